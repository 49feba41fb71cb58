/*-------------------------------------------------------------------------
 *
 * agg_exec.c
 *	  Aggregate pushdown: executor start, unit iteration, statistics
 *	  shortcuts, the pass over the source and over spill partitions,
 *	  results, rescan and end.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_exec.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/buffile.h"

#include "fdw/agg_int.h"
#include "fdw/remote_fdw.h"

/* ----------------------------------------------------------------
 * Files, row groups, statistics
 * ----------------------------------------------------------------
 */

static void
close_file(PfAggScanState *st)
{
	if (st->src)
	{
		if (st->src->unit >= 0)
			st->ops->unit_close(st->src);
		st->ops->close(st->src);
	}
	MemoryContextReset(st->rowgroup_cxt);
	st->src = NULL;
	st->meta = NULL;
	st->rowgroup = -1;
	MemoryContextReset(st->file_cxt);
}

/*
 * The value shapes the evaluator reads for a column whose batches come
 * from convert() (a format without raw values): integers and dates as
 * int32/int64 (dates in days from 1970, as Parquet stores them), decimals
 * as unscaled int64, or 16 big-endian bytes beyond 18 digits.
 */
void
pf_agg_generic_shape(PfAggCol *col)
{
	col->flba_len = 0;
	switch (col->kind)
	{
		case PF_COL_INT:
			col->phys = col->typid == INT8OID ? PQ_INT64 : PQ_INT32;
			break;
		case PF_COL_DEC:
			col->phys = col->precision <= 18 ? PQ_INT64 : PQ_FIXED_LEN_BYTE_ARRAY;
			col->flba_len = 16;
			break;
		case PF_COL_F4:
			col->phys = PQ_FLOAT;
			break;
		case PF_COL_F8:
			col->phys = PQ_DOUBLE;
			break;
		case PF_COL_DATE:
			col->phys = PQ_INT32;
			break;
		case PF_COL_TEXT:
			col->phys = PQ_BYTE_ARRAY;
			break;
		case PF_COL_BOOL:
			col->phys = PQ_BOOLEAN;
			break;
	}
}

/* Open file i through the table source and bind the program's columns. */
static void
open_file(PfAggScanState *st, int i)
{
	PfAggProgram *prog = st->prog;
	MemoryContext old = MemoryContextSwitchTo(st->file_cxt);

	st->file_index = i;
	st->path = (const char *) list_nth(st->filenames, i);
	/* the planned units are this file's only if it is the planned file */
	if (st->identities != NIL)
		pf_check_planned_file(st->path, (const char *) list_nth(st->identities, i));
	st->src = st->ops->open(st->path, st->rel, &st->sscan, st->file_cxt);
	st->ops->bind(st->src, st->src_cols, prog->ncols,
				  st->missing_columns_error, true);
	st->raw = st->ops->raw_field != NULL && st->ops->raw_batch != NULL;
	st->meta = NULL;
	if (st->raw)
		(void) st->ops->raw_field(st->src, -1, &st->meta);
	for (int c = 0; c < prog->ncols; c++)
	{
		PfAggCol   *col = &prog->cols[c];

		col->missing = !st->src->present[c];
		col->slot = c;
		st->col_leaf[c] = -1;
		if (!st->raw)
		{
			pf_agg_generic_shape(col);
			continue;
		}
		{
			const PqSchemaNode *field = st->ops->raw_field(st->src, c, &st->meta);

			st->err_column = col->attname;
			if (!pf_agg_field_fits(st->meta, field, col))
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("%s \"%s\" changed since the query was planned",
								st->ops->file_noun, st->path),
						 errdetail("Column \"%s\" no longer has the type the aggregate pushdown planned for.",
								   col->attname)));
			if (field != NULL)
				st->col_leaf[c] = field->leaf_index;
		}
	}
	st->err_column = NULL;
	MemoryContextSwitchTo(old);
}

/*
 * Fill the batch of column c, n rows, from the source: the format's own
 * values when it offers them, else convert()'s Datums put in the shapes
 * pf_agg_generic_shape() promised, for the nrows rows of rows only (the rest
 * of the batch is left undefined: nothing reads it).
 */
static void
fill_batch(PfAggScanState *st, int c, uint32 n, const uint32 *rows,
		   uint32 nrows)
{
	const PfAggCol *col = &st->prog->cols[c];
	PqColumnBatch *b = &st->batches[c];
	Datum	   *values = st->conv_values;
	bool	   *nulls = st->conv_nulls[c];
	bool		any_null = false;

	if (col->missing || col->datum_only)
		return;					/* datum-only: agg_pgexpr.c converts it */
	if (st->raw)
	{
		const PqColumnBatch *raw = st->ops->raw_batch(st->src, c);

		if (raw == NULL)
			elog(ERROR, "parquet_fdw: no raw batch of column \"%s\"", col->attname);
		*b = *raw;
		return;
	}
	if (nrows == n || !st->ops->column_lazy(st->src, c))
	{
		st->ops->convert(st->src, c, 0, n, values, nulls);
		rows = st->identity;
		nrows = n;
	}
	else
	{
		/* a few rows passed the filters: convert their runs only */
		for (uint32 i = 0; i < nrows;)
		{
			uint32		from = rows[i];
			uint32		len = 1;

			while (i + len < nrows && rows[i + len] == from + len)
				len++;
			st->ops->convert(st->src, c, from, len, values + from, nulls + from);
			i += len;
		}
	}
	for (uint32 i = 0; i < nrows; i++)
		any_null |= nulls[rows[i]];
	memset(b, 0, sizeof(PqColumnBatch));
	b->num_rows = b->num_levels = n;
	b->is_null = any_null ? nulls : NULL;
	b->values = st->conv_buf[c];
	switch (col->kind)
	{
		case PF_COL_INT:
			if (col->phys == PQ_INT64)
			{
				int64	   *v = (int64 *) st->conv_buf[c];

				for (uint32 i = 0; i < nrows; i++)
					v[rows[i]] = nulls[rows[i]] ? 0 : DatumGetInt64(values[rows[i]]);
			}
			else
			{
				int32	   *v = (int32 *) st->conv_buf[c];

				for (uint32 i = 0; i < nrows; i++)
					v[rows[i]] = nulls[rows[i]] ? 0 : col->typid == INT2OID ?
						DatumGetInt16(values[rows[i]]) : DatumGetInt32(values[rows[i]]);
			}
			break;
		case PF_COL_DATE:
			{
				int32	   *v = (int32 *) st->conv_buf[c];

				for (uint32 i = 0; i < nrows; i++)
				{
					uint32		r = rows[i];
					DateADT		d = nulls[r] ? 0 : DatumGetDateADT(values[r]);

					if (DATE_NOT_FINITE(d))
						ereport(ERROR,
								(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
								 errmsg("aggregate pushdown cannot read an infinite date in column \"%s\"",
										col->attname),
								 errhint("Set parquet_fdw.enable_aggregate_pushdown to off.")));
					v[r] = d + PF_AGG_EPOCH_DAYS;
				}
			}
			break;
		case PF_COL_DEC:
			for (uint32 i = 0; i < nrows; i++)
			{
				uint32		r = rows[i];
				int128_t	u = nulls[r] ? 0 :
					pf_agg_numeric_unscaled(values[r], col->scale, col->attname);

				if (col->phys == PQ_INT64)
					((int64 *) st->conv_buf[c])[r] = (int64) u;
				else
				{
					uint8	   *p = (uint8 *) st->conv_buf[c] + (size_t) r * 16;
					uint128_t	w = (uint128_t) u;

					for (int k = 15; k >= 0; k--, w >>= 8)
						p[k] = (uint8) (w & 0xff);
				}
			}
			break;
		case PF_COL_F4:
			for (uint32 i = 0; i < nrows; i++)
				((float4 *) st->conv_buf[c])[rows[i]] = nulls[rows[i]] ? 0 : DatumGetFloat4(values[rows[i]]);
			break;
		case PF_COL_F8:
			for (uint32 i = 0; i < nrows; i++)
				((float8 *) st->conv_buf[c])[rows[i]] = nulls[rows[i]] ? 0 : DatumGetFloat8(values[rows[i]]);
			break;
		case PF_COL_TEXT:
			for (uint32 i = 0; i < nrows; i++)
			{
				uint32		r = rows[i];
				CdcByteView *v = &((CdcByteView *) st->conv_buf[c])[r];

				if (nulls[r])
				{
					v->ptr = NULL;
					v->len = 0;
				}
				else
				{
					text	   *t = DatumGetTextPP(values[r]);

					v->ptr = (const uint8 *) VARDATA_ANY(t);
					v->len = VARSIZE_ANY_EXHDR(t);
				}
			}
			break;
		case PF_COL_BOOL:
			for (uint32 i = 0; i < nrows; i++)
				((uint8 *) st->conv_buf[c])[rows[i]] = nulls[rows[i]] ? 0 : DatumGetBool(values[rows[i]]);
			break;
	}
}

void
pf_agg_fill_stored(PfAggScanState *st, int c, uint32 batch_n,
				   const uint32 *sel, uint32 n)
{
	fill_batch(st, c, batch_n, sel, n);
}

/*
 * Answer every aggregate of row group rg from its metadata, if possible
 * (no filters, no groups: the caller checked).  Returns false, changing
 * nothing, when some statistic is missing or inexact.
 */
static bool
rowgroup_from_stats(PfAggScanState *st, int rg)
{
	PfAggProgram *prog = st->prog;
	const PqRowGroupMeta *rgm = &st->meta->row_groups[rg];
	int64		rows = rgm->num_rows;

	/* check first */
	for (int a = 0; a < prog->naggs; a++)
	{
		PfAggDef   *def = &prog->aggs[a];
		const PfAggCol *col;
		const PqStatistics *s;
		int			leaf;
		int			width;

		if (def->kind == PF_AGG_COUNT_STAR)
			continue;
		col = &prog->cols[def->arg->col];
		if (col->missing)
			continue;
		leaf = st->col_leaf[def->arg->col];
		if (leaf < 0 || leaf >= rgm->num_columns || !rgm->columns[leaf].has_statistics)
			return false;
		s = &rgm->columns[leaf].statistics;
		if (!s->has_null_count || s->null_count < 0 || s->null_count > rows)
			return false;
		if (def->kind == PF_AGG_COUNT || s->null_count == rows)
			continue;
		width = col->phys == PQ_INT32 ? 4 : col->phys == PQ_INT64 ? 8 : 0;
		if (width == 0 || !s->has_min || !s->has_max ||
			s->min_is_legacy || s->max_is_legacy ||
			(s->has_min_exact && !s->min_exact) ||
			(s->has_max_exact && !s->max_exact) ||
			s->min_len != (uint32) width || s->max_len != (uint32) width)
			return false;
	}

	for (int a = 0; a < prog->naggs; a++)
	{
		PfAggDef   *def = &prog->aggs[a];
		PfAggState *state = &st->states[a];
		const PfAggCol *col;
		const PqStatistics *s;
		int64		v;

		if (def->kind == PF_AGG_COUNT_STAR)
		{
			state->count += rows;
			continue;
		}
		col = &prog->cols[def->arg->col];
		if (col->missing)
			continue;
		s = &rgm->columns[st->col_leaf[def->arg->col]].statistics;
		if (def->kind == PF_AGG_COUNT)
		{
			state->count += rows - s->null_count;
			continue;
		}
		if (s->null_count == rows)
			continue;
		if (def->kind == PF_AGG_MIN)
			v = le_int64(s->min, s->min_len);
		else
			v = le_int64(s->max, s->max_len);
		if (col->kind == PF_COL_DATE)
		{
			int64		d = v - PF_AGG_EPOCH_DAYS;

			if (!IS_VALID_DATE(d))
				pf_agg_date_out_of_range(col->attname, v, true);
			v = d;
		}
		if (state->count == 0 ||
			(def->kind == PF_AGG_MAX ? v > state->isum : v < state->isum))
			state->isum = v;
		state->count++;
	}
	return true;
}

/*
 * Can the filters' values exclude every row of unit rg?  With raw values,
 * by the Parquet column-chunk statistics: integer, date and decimal
 * columns stored as integers (the raw domain the filters are normalized
 * to), and all-null chunks for any filter; other formats by their own
 * unit_prune().  The planner pruned with constants already; this also
 * covers parameters (and, with raw values, decimals).
 */
static bool
rowgroup_filtered_out(PfAggScanState *st, int rg)
{
	PfAggProgram *prog = st->prog;
	/* statistics in the raw domain: when the format offers raw values */
	const PqRowGroupMeta *rgm = st->raw ? &st->meta->row_groups[rg] : NULL;

	for (int fi = 0; fi < prog->nfilters; fi++)
	{
		const PfAggFilter *f = &prog->filters[fi];
		const PfAggCol *col = &prog->cols[f->col];
		const PqStatistics *s;
		int			leaf;
		int			width;
		int64		min;
		int64		max;
		int128_t	c = f->ival;
		bool		excluded;

		if (f->col >= prog->ncols)
			continue;			/* computed: no statistics */
		if (f->kind == PF_FILTER_IS_NULL)
		{
			/* no null in the chunk: no row passes */
			if (!col->missing && rgm != NULL)
			{
				leaf = st->col_leaf[f->col];
				if (leaf >= 0 && leaf < rgm->num_columns && rgm->columns[leaf].has_statistics &&
					rgm->columns[leaf].statistics.has_null_count &&
					rgm->columns[leaf].statistics.null_count == 0)
					return true;
			}
			continue;
		}
		if (f->never || col->missing)
			return true;		/* no row passes */
		if (rgm == NULL)
			continue;
		leaf = st->col_leaf[f->col];
		if (leaf < 0 || leaf >= rgm->num_columns || !rgm->columns[leaf].has_statistics)
			continue;
		s = &rgm->columns[leaf].statistics;
		if (s->has_null_count && s->null_count >= rgm->num_rows)
			return true;		/* all null: no comparison holds */
		if (f->any_not_null ||
			(f->kind != PF_FILTER_CMP && f->kind != PF_FILTER_IN) ||
			(col->kind != PF_COL_INT && col->kind != PF_COL_DATE &&
			 col->kind != PF_COL_DEC))
			continue;
		width = col->phys == PQ_INT32 ? 4 : col->phys == PQ_INT64 ? 8 : 0;
		if (width == 0 || !s->has_min || !s->has_max ||
			s->min_is_legacy || s->max_is_legacy ||
			s->min_len != (uint32) width || s->max_len != (uint32) width)
			continue;
		min = le_int64(s->min, s->min_len);
		max = le_int64(s->max, s->max_len);
		if (f->kind == PF_FILTER_IN)
		{
			/* every element outside [min, max] */
			excluded = true;
			for (int k = 0; k < f->nvals && excluded; k++)
				excluded = f->vals[k].ival < min || f->vals[k].ival > max;
			if (excluded)
				return true;
			continue;
		}
		switch (f->strategy)
		{
			case BTLessStrategyNumber:
				excluded = min >= c;
				break;
			case BTLessEqualStrategyNumber:
				excluded = min > c;
				break;
			case BTEqualStrategyNumber:
				excluded = c < min || c > max;
				break;
			case BTGreaterEqualStrategyNumber:
				excluded = max < c;
				break;
			case BTGreaterStrategyNumber:
				excluded = max <= c;
				break;
			default:
				excluded = min == max && min == c;
				break;
		}
		if (excluded)
			return true;
	}
	/* other formats: whatever the source prunes with (statistics, indexes) */
	if (rgm == NULL && st->unit_quals != NIL &&
		st->ops->unit_prune(st->src, rg, st->unit_quals) != PF_PRUNE_NONE)
		return true;
	return false;
}

/* Bytes of the groups and of the distinct aggregates' pairs. */
static Size
entries_memory(PfAggScanState *st)
{
	Size		m = MemoryContextMemAllocated(st->group_cxt, true);

	if (st->ndistinct > 0)
		m += MemoryContextMemAllocated(st->distinct_cxt, true);
	return m;
}

/* No new group from now on: the keys' dictionaries only look up. */
static void
freeze_groups(PfAggScanState *st)
{
	st->no_new_groups = true;
	for (int k = 0; k < st->prog->nkeys; k++)
		st->dicts[k].frozen = true;
}

/*
 * Memory is full: from the next batch on, the rows of keys without a
 * group and of pairs not seen go to spill partitions (unless no hash bits
 * are left for them: those entries then grow).
 */
static void
start_spilling(PfAggScanState *st)
{
	double		left = Max(st->pass_rows_total - (double) st->pass_rows, 1.0);

	if (!st->no_new_groups && st->prog->nkeys > 0)
	{
		st->spill_out = pf_agg_spill_begin(st, st->spill_shift, left,
										   (double) st->ngroups, -1);
		if (st->spill_out != NULL)
			freeze_groups(st);
	}
	if (!st->no_new_pairs)
	{
		/* the pairs' hash is of (keys, value): its bits are all unused */
		for (int j = 0; j < st->ndistinct; j++)
		{
			PfAggDistinct *dd = &st->distincts[j];

			if (dd->fixed)
			{
				pf_agg_distinct_fixed_freeze(st, dd);
				continue;
			}
			dd->spill_out = pf_agg_spill_begin(st, 0, left,
											   (double) Max(dd->npairs, 1), j);
			dd->dict->frozen = dd->spill_out != NULL;
		}
		st->no_new_pairs = true;
	}
}

/* Count the pairs of the n selected rows (groups in st->gid) of every distinct aggregate. */
static void
add_distinct_pairs(PfAggScanState *st, const uint32 *sel, uint32 n)
{
	for (int j = 0; j < st->ndistinct; j++)
	{
		PfAggDistinct *dd = &st->distincts[j];
		uint32		nspill;

		if (dd->fixed)
		{
			pf_agg_distinct_fixed_add(st, dd, sel, n, st->gid);
			continue;
		}
		st->err_column = st->prog->cols[dd->col].attname;
		pf_agg_distinct_codes(st, dd, sel, n, st->xcodes);
		st->err_column = NULL;
		nspill = pf_agg_distinct_add(st, dd, sel, n, st->gid, st->spill_sel);
		if (nspill > 0)
			pf_agg_spill_rows(st, dd->spill_out, st->spill_sel, nspill, dd->col);
	}
}

/* Group ids of the n selected rows into st->gid (0 without keys). */
static void
group_rows(PfAggScanState *st, const uint32 *sel, uint32 n)
{
	PfAggProgram *prog = st->prog;

	for (int k = 0; k < prog->nkeys; k++)
	{
		st->err_column = prog->cols[prog->key_cols[k]].attname;
		pf_agg_key_codes(st, &st->dicts[k], sel, n, st->codes[k]);
	}
	st->err_column = NULL;
	if (prog->nkeys > 0)
		pf_agg_assign_groups(st, n);
}

/*
 * Aggregate the n selected rows of the current batch: group them (making
 * new groups until they outgrow memory, then spilling the rows of keys
 * without a group), count the distinct pairs and accumulate.
 */
static void
aggregate_selected(PfAggScanState *st, const uint32 *sel, uint32 n)
{
	PfAggProgram *prog = st->prog;

	group_rows(st, sel, n);
	if (prog->nkeys > 0 && st->no_new_groups)
	{
		/* rows with a group stay, the others are spilled */
		uint32	   *kept = (sel == st->sel) ? st->sel2 : st->sel;
		uint32		m = 0;
		uint32		nspill = 0;

		for (uint32 i = 0; i < n; i++)
		{
			if (st->gid[i] == PF_AGG_NO_GROUP)
				st->spill_sel[nspill++] = sel[i];
			else
			{
				kept[m] = sel[i];
				st->gid[m++] = st->gid[i];
			}
		}
		pf_agg_spill_rows(st, st->spill_out, st->spill_sel, nspill, -1);
		sel = kept;
		n = m;
		if (n == 0)
			return;
	}
	add_distinct_pairs(st, sel, n);
	if (prog->nkeys > 0)
		pf_agg_count_group_rows(st, n);
	if ((!st->no_new_groups || !st->no_new_pairs) &&
		entries_memory(st) > st->group_limit)
		start_spilling(st);		/* this batch's entries are made */
	for (int a = 0; a < prog->naggs; a++)
		pf_agg_accumulate(st, a, sel, n, st->gid);
}

/* Read and aggregate row group rg of the open file. */
static void
aggregate_rowgroup(PfAggScanState *st, int rg)
{
	PfAggProgram *prog = st->prog;
	int			ncols = prog->ncols + prog->ncomputed;

	st->rowgroup = rg;
	if (prog->nfilters > 0 && rowgroup_filtered_out(st, rg))
	{
		st->rowgroups_skipped++;
		st->rowgroup = -1;
		return;
	}
	if (prog->all_from_stats && st->raw && rowgroup_from_stats(st, rg))
	{
		st->rowgroups_stats++;
		st->rowgroup = -1;
		return;
	}
	st->rowgroups_read++;

	/* a row-level index may skip rows the filters would drop anyway */
	st->ops->unit_open(st->src, rg, st->raw ? NIL : st->unit_quals, 0);
	for (;;)
	{
		uint32		n;
		uint32		batch_n;
		const uint32 *sel = st->identity;
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		MemoryContextReset(st->batch_cxt);
		n = st->ops->read(st->src, st->batch_rows);
		if (n == 0)
			break;
		pf_agg_pgexpr_batch_start(st);
		batch_n = n;
		st->pass_rows += n;
		/*
		 * Filters narrow the selection, each over the previous one's rows;
		 * a column is filled for the rows that reach its first reader.
		 */
		memset(st->filled, 0, sizeof(bool) * Max(1, ncols));
		for (int f = 0; f < prog->nfilters && n > 0; f++)
		{
			uint32	   *out = (sel == st->sel) ? st->sel2 : st->sel;
			int			c = prog->filters[f].col;

			st->err_column = prog->cols[c].attname;
			if (!st->filled[c])
			{
				old = MemoryContextSwitchTo(st->batch_cxt);
				if (c >= prog->ncols)
					pf_agg_pgexpr_fill(st, c, batch_n, sel, n);
				else
					fill_batch(st, c, batch_n, sel, n);
				MemoryContextSwitchTo(old);
				st->filled[c] = true;
			}
			n = pf_agg_apply_filter(st, &prog->filters[f], sel, n, out);
			sel = out;
		}
		st->err_column = NULL;

		st->batch_seq++;
		if (n > 0 && st->part >= 0)
		{
			/* a partitioned plan: only the rows of this partition's groups */
			uint32	   *out = (sel == st->sel) ? st->sel2 : st->sel;

			old = MemoryContextSwitchTo(st->batch_cxt);
			for (int k = 0; k < prog->nkeys; k++)
			{
				int			c = prog->key_cols[k];

				/* computed keys: later, for the rows kept */
				if (st->filled[c] || c >= prog->ncols)
					continue;
				st->err_column = prog->cols[c].attname;
				fill_batch(st, c, batch_n, sel, n);
				st->filled[c] = true;
			}
			MemoryContextSwitchTo(old);
			st->err_column = NULL;
			n = pf_agg_partial_keep_partition(st, sel, n, out);
			sel = out;
		}
		if (n > 0)
		{
			old = MemoryContextSwitchTo(st->batch_cxt);
			for (int c = 0; c < ncols; c++)
			{
				if (st->filled[c])
					continue;
				st->err_column = prog->cols[c].attname;
				if (c >= prog->ncols)
					pf_agg_pgexpr_fill(st, c, batch_n, sel, n);
				else
					fill_batch(st, c, batch_n, sel, n);
			}
			MemoryContextSwitchTo(old);
			st->err_column = NULL;

			if (st->xchg_out != NULL)
				pf_agg_spill_rows(st, st->xchg_out, sel, n, -1);	/* exchanged */
			else
				aggregate_selected(st, sel, n);
		}
	}
	st->ops->unit_close(st->src);
	MemoryContextReset(st->batch_cxt);
	MemoryContextReset(st->rowgroup_cxt);
	st->peak_memory = Max(st->peak_memory,
						  MemoryContextMemAllocated(st->cxt, true));
	st->rowgroup = -1;
}

/* Is unit rg of the open file one it has?  Else the file changed. */
static void
check_planned_unit(PfAggScanState *st, int rg)
{
	if (rg < 0 || rg >= st->src->nunits)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s \"%s\" changed since the query was planned",
						st->ops->file_noun, st->path),
				 errdetail("%c%s %d was planned, the file now has %d.",
						   pg_toupper((unsigned char) st->ops->unit_noun[0]),
						   st->ops->unit_noun + 1, rg, st->src->nunits)));
}

/*
 * Units a participant claims beyond the one it opens while it reads an
 * object-store URL, so that the source fetches them in the background
 * (the units of a local file are claimed one at a time: nothing to hide,
 * and the last ones spread best over the participants).
 */
#define PF_AGG_CLAIM_AHEAD	8

/*
 * A participant of a parallel plan: aggregate the units it claims, one
 * at a time from the counter all share (and ahead of it for a URL),
 * keeping a file open while the claimed units are its.
 */
static void
compute_claimed(PfAggScanState *st)
{
	int64		claimed[PF_AGG_CLAIM_AHEAD + 1];
	int			next_units[PF_AGG_CLAIM_AHEAD];
	int			nclaimed = 0;

	for (;;)
	{
		int64		work;
		int			fi;
		int			rg;
		int			n = 0;

		if (nclaimed == 0 && (claimed[0] = pf_agg_partial_claim(st)) >= 0)
			nclaimed = 1;
		if (nclaimed == 0)
			break;
		work = claimed[0];
		fi = st->work_file[work];
		rg = st->work_unit[work];
		if (pf_is_url((const char *) list_nth(st->filenames, fi)))
			while (nclaimed < PF_AGG_CLAIM_AHEAD + 1 &&
				   (claimed[nclaimed] = pf_agg_partial_claim(st)) >= 0)
				nclaimed++;
		nclaimed--;
		memmove(claimed, claimed + 1, sizeof(int64) * nclaimed);

		CHECK_FOR_INTERRUPTS();
		if (st->src != NULL && st->file_index != fi)
			close_file(st);
		if (st->src == NULL)
			open_file(st, fi);
		/* the units claimed ahead in this file, for its readahead */
		while (n < nclaimed && st->work_file[claimed[n]] == fi)
		{
			next_units[n] = st->work_unit[claimed[n]];
			n++;
		}
		/* (none: not the units after this one, which are others') */
		st->src->next_units = next_units;
		st->src->nnext_units = n;
		check_planned_unit(st, rg);
		if (st->ops->unit_rows(st->src, rg) <= 0)
			continue;
		aggregate_rowgroup(st, rg);
	}
	if (st->src != NULL)
		close_file(st);
}

/* Aggregate every planned unit, in plan order. */
static void
compute_all_units(PfAggScanState *st)
{
	for (int fi = 0; fi < list_length(st->filenames); fi++)
	{
		List	   *rgs = (List *) list_nth(st->rowgroups, fi);
		ListCell   *lr;

		int		   *planned;
		int			nplanned = 0;

		if (rgs == NIL)
			continue;
		open_file(st, fi);
		/* the row groups after each one, for a remote file's readahead */
		planned = palloc(sizeof(int) * list_length(rgs));
		foreach(lr, rgs)
			planned[nplanned++] = lfirst_int(lr);
		foreach(lr, rgs)
		{
			int			rg = lfirst_int(lr);

			st->src->next_units = planned + foreach_current_index(lr) + 1;
			st->src->nnext_units = nplanned - foreach_current_index(lr) - 1;
			check_planned_unit(st, rg);
			if (st->ops->unit_rows(st->src, rg) <= 0)
				continue;
			aggregate_rowgroup(st, rg);
		}
		close_file(st);
		pfree(planned);
	}
}

/* Run the whole aggregation. */
static void
compute(PfAggScanState *st)
{
	ErrorContextCallback errcb;

	errcb.callback = pf_agg_error_callback;
	errcb.arg = st;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	if (st->nparts > 0 && st->shared != NULL)
	{
		/*
		 * Partitioned: every unit for each partition claimed; the groups
		 * of different partitions never meet, so they share one table.
		 */
		while ((st->part = pf_agg_partial_claim_partition(st)) >= 0)
			compute_all_units(st);
	}
	else if (st->xchg_participants > 0 && st->xshared != NULL)
	{
		/*
		 * Exchange, phase 1: the claimed units' rows go to the partitions'
		 * files; the groups are made partition by partition afterwards
		 * (pf_agg_next_group).  A latecomer skips the scan.
		 */
		if (pf_agg_xchg_scan_begin(st))
		{
			compute_claimed(st);
			pf_agg_xchg_scan_end(st);
		}
	}
	else if (st->shared != NULL)
		compute_claimed(st);
	else
	{
		/* the plan run without workers (and without a DSM): all groups */
		st->part = -1;
		compute_all_units(st);
	}
	st->path = NULL;
	error_context_stack = errcb.previous;
	st->passes++;
}

static void reset_groups(PfAggScanState *st);

/*
 * The pass's groups are all made; count the pairs of distinct aggregates
 * spilled past memory, partition by partition (each pair is in one only):
 * the x dictionaries and pairs seen so far are dropped, each partition's
 * are built afresh (spilling again to the next hash bits if they outgrow
 * memory) and its new pairs counted in their groups.
 */
static void
count_spilled_pairs(PfAggScanState *st)
{
	PfAggProgram *prog = st->prog;

	for (int j = 0; j < st->ndistinct; j++)
	{
		if (st->distincts[j].fixed)
			pf_agg_distinct_fixed_finish(st, &st->distincts[j]);
		st->pair_pending = pf_agg_spill_finish(st, st->distincts[j].spill_out,
											   st->pair_pending);
		st->distincts[j].spill_out = NULL;
	}
	if (st->pair_pending == NIL)
		return;
	freeze_groups(st);
	pf_agg_spill_replay_shapes(st);
	while (st->pair_pending != NIL)
	{
		PfAggSpillPart *part = (PfAggSpillPart *) linitial(st->pair_pending);
		PfAggDistinct *dd = &st->distincts[part->distinct];

		st->pair_pending = list_delete_first(st->pair_pending);
		st->spill_in = part;
		MemoryContextReset(st->distinct_cxt);
		pf_agg_distinct_reset(st, dd);
		st->no_new_pairs = false;
		st->pass_rows = 0;
		st->pass_rows_total = (double) part->rows;
		for (;;)
		{
			uint32		n;
			uint32		nspill;

			CHECK_FOR_INTERRUPTS();
			MemoryContextReset(st->batch_cxt);
			n = pf_agg_spill_read(st, part, st->batch_rows);
			if (n == 0)
				break;
			st->pass_rows += n;
			st->batch_seq++;
			group_rows(st, st->identity, n);
			for (uint32 i = 0; prog->nkeys > 0 && i < n; i++)
				if (st->gid[i] == PF_AGG_NO_GROUP)
					elog(ERROR, "parquet_fdw: the group of a spilled count(DISTINCT) value is missing");
			st->err_column = prog->cols[dd->col].attname;
			pf_agg_key_codes(st, dd->dict, st->identity, n, st->xcodes);
			st->err_column = NULL;
			nspill = pf_agg_distinct_add(st, dd, st->identity, n, st->gid, st->spill_sel);
			if (nspill > 0)
				pf_agg_spill_rows(st, dd->spill_out, st->spill_sel, nspill, dd->col);
			if (!st->no_new_pairs &&
				MemoryContextMemAllocated(st->distinct_cxt, true) > st->group_limit)
			{
				dd->spill_out = pf_agg_spill_begin(st, part->shift,
												   Max(st->pass_rows_total - (double) st->pass_rows, 1.0),
												   (double) Max(dd->npairs, 1), part->distinct);
				dd->dict->frozen = dd->spill_out != NULL;
				st->no_new_pairs = true;
			}
		}
		MemoryContextReset(st->batch_cxt);
		st->peak_memory = Max(st->peak_memory,
							  MemoryContextMemAllocated(st->cxt, true));
		BufFileClose(part->file);
		st->spill_in = NULL;
		pfree(part);
		st->pair_pending = pf_agg_spill_finish(st, dd->spill_out, st->pair_pending);
		dd->spill_out = NULL;
	}
	MemoryContextReset(st->distinct_cxt);
	for (int j = 0; j < st->ndistinct; j++)
		st->distincts[j].dict = NULL;
}


/*
 * Aggregate the rows of the spill files parts (PfAggSpillPart *, of one
 * partition: one file, or an exchange partition's file of every
 * participant), read back in turn: their groups replace the ones
 * returned before.  The files are closed and freed.
 */
static void
aggregate_parts(PfAggScanState *st, List *parts)
{
	PfAggSpillPart *first = (PfAggSpillPart *) linitial(parts);
	ListCell   *lc;

	reset_groups(st);
	if (first->groups_hint > 0)
		pf_agg_groups_reserve(st, first->groups_hint);
	st->spill_shift = first->shift;
	st->pass_rows = 0;
	st->pass_rows_total = 0;
	foreach(lc, parts)
		st->pass_rows_total += (double) ((PfAggSpillPart *) lfirst(lc))->rows;
	pf_agg_spill_replay_shapes(st);
	foreach(lc, parts)
	{
		PfAggSpillPart *part = (PfAggSpillPart *) lfirst(lc);

		st->spill_in = part;
		for (;;)
		{
			uint32		n;

			CHECK_FOR_INTERRUPTS();
			MemoryContextReset(st->batch_cxt);
			n = pf_agg_spill_read(st, part, st->batch_rows);
			if (n == 0)
				break;
			st->pass_rows += n;
			st->batch_seq++;
			aggregate_selected(st, st->identity, n);
		}
		MemoryContextReset(st->batch_cxt);
		BufFileClose(part->file);
		st->spill_in = NULL;
	}
	st->peak_memory = Max(st->peak_memory,
						  MemoryContextMemAllocated(st->cxt, true));
	/* the next partition of this level has about as many groups */
	if (st->spill_out == NULL && st->spill_pending != NIL &&
		((PfAggSpillPart *) linitial(st->spill_pending))->shift == first->shift &&
		((PfAggSpillPart *) linitial(st->spill_pending))->distinct < 0)
		((PfAggSpillPart *) linitial(st->spill_pending))->groups_hint = st->ngroups;
	list_free_deep(parts);
	st->spill_pending = pf_agg_spill_finish(st, st->spill_out, st->spill_pending);
	st->spill_out = NULL;
	count_spilled_pairs(st);
	st->groups_total += st->ngroups;
}

/*
 * Aggregate the next spill partition, read back from its file.  Returns
 * false when none is left.
 */
static bool
aggregate_next_partition(PfAggScanState *st)
{
	PfAggSpillPart *part;

	if (st->spill_pending == NIL)
		return false;
	part = (PfAggSpillPart *) linitial(st->spill_pending);
	st->spill_pending = list_delete_first(st->spill_pending);
	aggregate_parts(st, list_make1(part));
	return true;
}

/*
 * Exchange, phase 2: aggregate the next partition this participant
 * claims, from every participant's file of it.  False when none is left.
 */
static bool
aggregate_next_exchange_partition(PfAggScanState *st)
{
	for (;;)
	{
		bool		done;
		List	   *parts = pf_agg_xchg_claim(st, &done);

		if (done)
			return false;
		if (parts != NIL)
		{
			aggregate_parts(st, parts);
			return true;
		}
	}
}

/* Read the source once: the groups that fit, the other rows spilled. */
static void
aggregate_source(PfAggScanState *st)
{
	reset_groups(st);
	st->spill_shift = 0;
	st->pass_rows = 0;
	st->pass_rows_total = st->total_rows;
	compute(st);
	st->spill_pending = pf_agg_spill_finish(st, st->spill_out, st->spill_pending);
	st->spill_out = NULL;
	count_spilled_pairs(st);
	st->groups_total += st->ngroups;
}

/* ----------------------------------------------------------------
 * Executor callbacks
 * ----------------------------------------------------------------
 */

void
pf_agg_begin_foreign_scan(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	EState	   *estate = node->ss.ps.state;
	List	   *priv = plan->fdw_private;
	PfAggScanState *st;
	MemoryContext old;
	Oid			relid = (Oid) intVal(list_nth(priv, PfAggPrivateRelid));
	Index		rti = (Index) intVal(list_nth(priv, PfAggPrivateRti));
	PfAggProgram *prog;
	ListCell   *lc;
	int			ncols;

	st = MemoryContextAllocZero(estate->es_query_cxt, sizeof(PfAggScanState));
	st->kind = PF_SCAN_AGGREGATE;
	node->fdw_state = st;
	st->cxt = AllocSetContextCreate(estate->es_query_cxt,
									"parquet_fdw aggregate",
									ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(st->cxt);
	foreach(lc, (List *) list_nth(priv, PfAggPrivateFiles))
		st->filenames = lappend(st->filenames, strVal(lfirst(lc)));
	st->rowgroups = (List *) list_nth(priv, PfAggPrivateRowGroups);
	foreach(lc, (List *) list_nth(priv, PfAggPrivateIdentities))
		st->identities = lappend(st->identities, strVal(lfirst(lc)));
	st->total_rowgroups = intVal(list_nth(priv, PfAggPrivateTotalRowGroups));
	st->total_rows = strtod(strVal(list_nth(priv, PfAggPrivateTotalRows)), NULL);
	st->file_index = -1;
	st->rowgroup = -1;

	/* the relation is locked: it is in the plan's range table */
	st->rel = table_open(relid, NoLock);

	/*
	 * Relation index 0: every Var is of this table (checked at planning),
	 * and setrefs renumbered fdw_scan_tlist's Vars but not fdw_private's.
	 */
	(void) rti;
	prog = pf_agg_compile_program(st->rel, 0,
						   (List *) list_nth(priv, PfAggPrivateQuals),
						   (List *) list_nth(priv, PfAggPrivateGroupVars),
						   pf_agg_partial_whole_tlist(plan->fdw_scan_tlist,
													  &st->partial));
	if (prog == NULL)
		elog(ERROR, "parquet_fdw: a pushed-down aggregate plan no longer compiles");
	st->prog = prog;
	if (list_length(priv) > PfAggPrivateTopN)
		st->topn = pf_agg_topn_begin((List *) list_nth(priv, PfAggPrivateTopN));
	if (list_length(priv) > PfAggPrivatePartitions)
		st->nparts = intVal(list_nth(priv, PfAggPrivatePartitions));
	st->part = -1;
	if (list_length(priv) > PfAggPrivateExchange)
		st->xchg_participants = intVal(list_nth(priv, PfAggPrivateExchange));
	ncols = prog->ncols + prog->ncomputed;
	MemoryContextSwitchTo(old);
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	/* the node's own instrumentation is set up only after this callback */
	st->time_decoding = (estate->es_instrument & INSTRUMENT_TIMER) != 0;

	old = MemoryContextSwitchTo(st->cxt);
	{
		PfTableOptions *opts = pf_get_table_options(relid);

		st->missing_columns_error = opts->missing_columns_error;
		st->verify_checksums = opts->verify_checksums;
	}
	st->file_cxt = AllocSetContextCreate(st->cxt, "parquet_fdw aggregate file",
										 ALLOCSET_DEFAULT_SIZES);
	st->rowgroup_cxt = AllocSetContextCreate(st->cxt, "parquet_fdw aggregate row group",
											 ALLOCSET_DEFAULT_SIZES);
	st->group_cxt = AllocSetContextCreate(st->cxt, "parquet_fdw aggregate groups",
										  ALLOCSET_DEFAULT_SIZES);
	st->tmp_cxt = AllocSetContextCreate(st->cxt, "parquet_fdw aggregate output",
										ALLOCSET_SMALL_SIZES);
	st->batch_cxt = AllocSetContextCreate(st->cxt, "parquet_fdw aggregate batch",
										  ALLOCSET_DEFAULT_SIZES);
	st->batch_rows = PF_AGG_BATCH_ROWS;

	/* the table source, its columns and the batches read from it */
	st->ops = pf_source_of_kind((PfScanKind) intVal(list_nth(priv, PfAggPrivateSourceKind)));
	st->sscan.cxt = st->cxt;
	st->sscan.verify_checksums = st->verify_checksums;
	st->sscan.time_decoding = st->time_decoding;
	st->src_cols = palloc0(sizeof(PfSourceColumn) * Max(1, prog->ncols));
	st->col_leaf = palloc(sizeof(int) * Max(1, prog->ncols));
	/* computed columns' batches follow the stored columns' */
	st->batches = palloc0(sizeof(PqColumnBatch) * Max(1, ncols));
	st->conv_values = palloc(sizeof(Datum) * st->batch_rows);
	st->conv_nulls = palloc(sizeof(bool *) * Max(1, ncols));
	st->conv_buf = palloc(sizeof(void *) * Max(1, ncols));
	for (int c = 0; c < ncols; c++)
	{
		st->conv_nulls[c] = palloc(sizeof(bool) * st->batch_rows);
		st->conv_buf[c] = palloc(16 * st->batch_rows);
	}
	for (int c = 0; c < prog->ncols; c++)
	{
		PfSourceColumn *sc = &st->src_cols[c];

		sc->attnum = prog->cols[c].attnum;
		sc->attname = prog->cols[c].attname;
		sc->field_name = prog->cols[c].field_name;
		sc->typid = prog->cols[c].typid;
		sc->typmod = prog->cols[c].typmod;
	}
	st->filled = palloc0(sizeof(bool) * Max(1, ncols));
	/* the filters' analyzed forms, for a source's own unit pruning */
	for (int f = 0; f < prog->nfilters; f++)
		if (prog->filters[f].qual != NULL)
			st->unit_quals = lappend(st->unit_quals, prog->filters[f].qual);
	st->identity = palloc(sizeof(uint32) * st->batch_rows);
	for (uint32 i = 0; i < st->batch_rows; i++)
		st->identity[i] = i;
	st->sel = palloc(sizeof(uint32) * st->batch_rows);
	st->sel2 = palloc(sizeof(uint32) * st->batch_rows);
	st->gid = palloc0(sizeof(uint32) * st->batch_rows);
	st->codes = palloc0(sizeof(uint32 *) * Max(1, prog->nkeys));
	for (int k = 0; k < prog->nkeys; k++)
		st->codes[k] = palloc0(sizeof(uint32) * st->batch_rows);
	st->row_hash = palloc(sizeof(uint32) * st->batch_rows);
	/* as much memory for the groups as a hash aggregate may take */
	st->group_limit = (Size) ((double) work_mem * 1024.0 * hash_mem_multiplier);
	pf_agg_spill_init(st);
	/* count(DISTINCT): the pairs of each, apart from the groups */
	for (int a = 0; a < prog->naggs; a++)
		st->ndistinct += prog->aggs[a].distinct;
	st->distincts = palloc0(sizeof(PfAggDistinct) * Max(1, st->ndistinct));
	st->ndistinct = 0;
	for (int a = 0; a < prog->naggs; a++)
		if (prog->aggs[a].distinct)
		{
			st->distincts[st->ndistinct].agg = a;
			st->distincts[st->ndistinct++].col = prog->aggs[a].arg->col;
		}
	st->distinct_cxt = AllocSetContextCreate(st->cxt, "parquet_fdw aggregate distinct",
											 ALLOCSET_DEFAULT_SIZES);
	st->xcodes = palloc(sizeof(uint32) * st->batch_rows);
	st->all_null = palloc(sizeof(bool) * st->batch_rows);
	memset(st->all_null, true, sizeof(bool) * st->batch_rows);
	st->zeros = palloc0(16 * st->batch_rows);
	st->missing_batch.is_null = st->all_null;
	st->missing_batch.values = st->zeros;
	for (int a = 0; a < prog->naggs; a++)
		pf_agg_init_expr(st, prog->aggs[a].arg);
	pf_agg_pgexpr_begin(st, (PlanState *) node);
	if (plan->fdw_exprs != NIL)
	{
		st->param_states = ExecInitExprList(plan->fdw_exprs, (PlanState *) node);
		st->param_cxt = AllocSetContextCreate(st->cxt, "parquet_fdw aggregate parameters",
											  ALLOCSET_SMALL_SIZES);
		st->param_econtext = node->ss.ps.ps_ExprContext;
	}
	MemoryContextSwitchTo(old);
}

/* Evaluate the parameter filters' values for this (re)scan. */
static void
evaluate_param_filters(PfAggScanState *st)
{
	PfAggProgram *prog = st->prog;
	ListCell   *ls = list_head(st->param_states);
	MemoryContext old;

	if (st->param_states == NIL)
		return;
	MemoryContextReset(st->param_cxt);
	old = MemoryContextSwitchTo(st->param_cxt);
	for (int f = 0; f < prog->nfilters; f++)
	{
		PfAggFilter *filter = &prog->filters[f];

		if (filter->param_expr == NULL)
			continue;
		if (ls == NULL)
			elog(ERROR, "parquet_fdw: aggregate pushdown plan lacks a parameter value");
		pf_qual_evaluate(filter->qual, (ExprState *) lfirst(ls),
						 st->param_econtext, st->param_cxt);
		ls = lnext(st->param_states, ls);
		if (!(filter->kind == PF_FILTER_IN ?
			  pf_agg_filter_set_in_from_qual(filter, &prog->cols[filter->col]) :
			  pf_agg_filter_set_from_qual(filter, &prog->cols[filter->col])))
			elog(ERROR, "parquet_fdw: aggregate pushdown cannot compare column \"%s\" with its parameter",
				 prog->cols[filter->col].attname);
	}
	MemoryContextSwitchTo(old);
	ResetExprContext(st->param_econtext);
}

/* Fresh, empty groups (the single group when there are no keys). */
static void
reset_groups(PfAggScanState *st)
{
	PfAggProgram *prog = st->prog;

	MemoryContextReset(st->group_cxt);
	st->dicts = MemoryContextAllocZero(st->group_cxt,
									   sizeof(PfKeyDict) * Max(1, prog->nkeys));
	for (int k = 0; k < prog->nkeys; k++)
		pf_agg_dict_init(st, &st->dicts[k], prog->key_cols[k], st->group_cxt);
	st->no_new_groups = false;
	st->no_new_pairs = false;
	if (st->ndistinct > 0)
	{
		MemoryContextReset(st->distinct_cxt);
		for (int j = 0; j < st->ndistinct; j++)
			pf_agg_distinct_reset(st, &st->distincts[j]);
	}
	st->ngroups = 0;
	st->cap_groups = 0;
	st->states = NULL;
	st->group_codes = NULL;
	st->gmask = 255;
	st->gtable = MemoryContextAllocZero(st->group_cxt, sizeof(uint32) * (st->gmask + 1));
	st->cap_code = 64;
	st->gid_of_code = MemoryContextAlloc(st->group_cxt, sizeof(uint32) * st->cap_code);
	for (uint32 j = 0; j < st->cap_code; j++)
		st->gid_of_code[j] = PG_UINT32_MAX;
	st->gid_of_pair = NULL;
	if (prog->nkeys == 2)
	{
		st->gid_of_pair = MemoryContextAlloc(st->group_cxt, sizeof(uint32) *
											 PF_AGG_PAIR_CODES * PF_AGG_PAIR_CODES);
		memset(st->gid_of_pair, 0xff, sizeof(uint32) *
			   PF_AGG_PAIR_CODES * PF_AGG_PAIR_CODES);
	}
	if (prog->nkeys == 0)
		(void) pf_agg_new_group(st, NULL);
	st->next_out = 0;
}

/* The final value of aggregate a in group g. */
static Datum
agg_result(PfAggScanState *st, uint32 g, int a, bool *isnull)
{
	PfAggDef   *def = &st->prog->aggs[a];
	PfAggState *s = &st->states[(size_t) g * st->prog->naggs + a];
	PfNum		num = def->arg ? def->arg->num : PF_NUM_INT;
	int			scale = def->arg ? def->arg->scale : 0;
	Datum		sum;

	*isnull = false;
	if (def->kind == PF_AGG_COUNT_STAR || def->kind == PF_AGG_COUNT)
		return Int64GetDatum(s->count);
	if (s->count == 0)
	{
		*isnull = true;
		return (Datum) 0;
	}
	if (num == PF_NUM_F4 || num == PF_NUM_F8)
	{
		if (def->kind == PF_AGG_AVG)
			return Float8GetDatum(s->fsum / (double) s->count);
		return def->restype == FLOAT4OID ? Float4GetDatum((float4) s->fsum) :
			Float8GetDatum(s->fsum);
	}
	if (def->kind == PF_AGG_MIN || def->kind == PF_AGG_MAX)
	{
		switch (def->restype)
		{
			case TEXTOID:
				return datumCopy(PointerGetDatum(s->text), false, -1);
			case INT2OID:
				return Int16GetDatum((int16) s->isum);
			case INT4OID:
				return Int32GetDatum((int32) s->isum);
			case INT8OID:
				return Int64GetDatum((int64) s->isum);
			case DATEOID:
				return DateADTGetDatum((DateADT) s->isum);
			case BOOLOID:
				return BoolGetDatum(s->isum != 0);	/* bool_and, bool_or */
			default:
				return pf_agg_int128_to_numeric(s->isum, scale);
		}
	}

	/* sum and avg of integers and decimals */
	if (num == PF_NUM_INT && def->argtype != INT8OID)
	{
		/* int2_sum/int4_sum and int4_avg_accum keep a wrapping int64 */
		int64		wrapped = (int64) (uint64) s->isum;

		if (def->kind == PF_AGG_SUM)
			return Int64GetDatum(wrapped);
		sum = DirectFunctionCall1(int8_numeric, Int64GetDatum(wrapped));
	}
	else
	{
		sum = pf_agg_int128_to_numeric(s->isum, scale);
		if (s->has_spill)
			sum = DirectFunctionCall2(numeric_add, s->spill, sum);
		if (def->kind == PF_AGG_SUM)
			return sum;
	}
	/* avg: numeric_avg's division of the exact sum by the count */
	return DirectFunctionCall2(numeric_div, sum,
							   NumericGetDatum(int64_to_numeric(s->count)));
}

/*
 * The next group to return (computing the groups first), or
 * PF_AGG_NO_GROUP when every group was returned.
 */
uint32
pf_agg_next_group(PfAggScanState *st)
{
	if (!st->computed)
	{
		MemoryContext old = MemoryContextSwitchTo(st->cxt);

		evaluate_param_filters(st);
		MemoryContextSwitchTo(old);
		pf_agg_spill_discard(st);
		st->spilled = false;
		st->computed = true;
		aggregate_source(st);
		/* groups of row-group metadata, maybe of a cached footer */
		pf_remote_verify_statement();
		if (st->spilled)
			elog(DEBUG1, "parquet_fdw: aggregate pushdown spilled " INT64_FORMAT " rows of new groups to " INT64_FORMAT " partitions",
				 st->spilled_rows, st->spill_partitions);
	}
	while (st->next_out >= st->ngroups)
	{
		/* these groups are done: those of the next spill partition */
		if (!aggregate_next_partition(st) &&
			!aggregate_next_exchange_partition(st))
			return PF_AGG_NO_GROUP;
	}
	return st->next_out++;
}

/* Group g's output row into slot. */
void
pf_agg_group_row(PfAggScanState *st, uint32 g, TupleTableSlot *slot)
{
	PfAggProgram *prog = st->prog;

	ExecClearTuple(slot);
	MemoryContextReset(st->tmp_cxt);
	{
		MemoryContext old = MemoryContextSwitchTo(st->tmp_cxt);

		for (int o = 0; o < prog->nouts; o++)
		{
			PfAggOut   *out = &prog->outs[o];
			Datum		v = (Datum) 0;
			bool		isnull = false;

			if (out->is_key)
			{
				PfKeyDict  *d = &st->dicts[out->index];
				uint32		code = st->group_codes[(size_t) g * prog->nkeys + out->index];

				if (code == 0)
					isnull = true;
				else
					switch (out->type)
					{
						case TEXTOID:
							v = PointerGetDatum(cstring_to_text_with_len(d->tvalues[code],
																		 d->tlens[code]));
							break;
						case BOOLOID:
							v = BoolGetDatum(d->ivalues[code] != 0);
							break;
						case INT2OID:
							v = Int16GetDatum((int16) d->ivalues[code]);
							break;
						case INT4OID:
							v = Int32GetDatum((int32) d->ivalues[code]);
							break;
						case DATEOID:
							v = DateADTGetDatum((DateADT) d->ivalues[code]);
							break;
						case FLOAT4OID:
							v = Float4GetDatum((float4) float_key_value(d->ivalues[code]));
							break;
						case FLOAT8OID:
							v = Float8GetDatum(float_key_value(d->ivalues[code]));
							break;
						case NUMERICOID:
							/* a computed key, at its scan's one scale */
							v = pf_agg_int128_to_numeric(d->ivalues[code],
														 prog->cols[prog->key_cols[out->index]].scale);
							break;
						default:
							v = Int64GetDatum(d->ivalues[code]);
							break;
					}
			}
			else if (!st->partial ||
					 !pf_agg_partial_state(st, g, out->index, &v, &isnull))
				v = agg_result(st, g, out->index, &isnull);
			slot->tts_values[o] = v;
			slot->tts_isnull[o] = isnull;
		}
		MemoryContextSwitchTo(old);
	}
	ExecStoreVirtualTuple(slot);
}

/*
 * Output column o of group g as an int64 that orders as the column's
 * values do, when it is one without forming a Datum: a count, or an
 * integer group key (*isnull for its NULL group).  False otherwise.
 */
bool
pf_agg_group_int(PfAggScanState *st, uint32 g, int o, int64 *v, bool *isnull)
{
	PfAggProgram *prog = st->prog;
	PfAggOut   *out = &prog->outs[o];

	*isnull = false;
	if (out->is_key)
	{
		uint32		code;

		if (out->type != INT2OID && out->type != INT4OID && out->type != INT8OID)
			return false;
		code = st->group_codes[(size_t) g * prog->nkeys + out->index];
		*isnull = code == 0;
		*v = code == 0 ? 0 : st->dicts[out->index].ivalues[code];
		return true;
	}
	if (prog->aggs[out->index].kind != PF_AGG_COUNT_STAR &&
		prog->aggs[out->index].kind != PF_AGG_COUNT)
		return false;
	*v = st->states[(size_t) g * prog->naggs + out->index].count;
	return true;
}

TupleTableSlot *
pf_agg_iterate_foreign_scan(ForeignScanState *node)
{
	PfAggScanState *st = (PfAggScanState *) node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	uint32		g;

	if (st->topn != NULL)
		return pf_agg_topn_next(st->topn, st, slot, &node->ss.ps);
	g = pf_agg_next_group(st);
	if (g == PF_AGG_NO_GROUP)
		return ExecClearTuple(slot);
	pf_agg_group_row(st, g, slot);
	return slot;
}

void
pf_agg_rescan_foreign_scan(ForeignScanState *node)
{
	PfAggScanState *st = (PfAggScanState *) node->fdw_state;

	/*
	 * The same groups again, unless a filter's parameter may have changed
	 * or some were spilled (only the last partition's are kept).
	 */
	st->next_out = 0;
	if (st->param_states != NIL || st->spilled)
		st->computed = false;
	/* a parallel plan's participants share the units anew */
	if (node->ss.ps.plan->parallel_aware)
		st->computed = false;
	pf_agg_topn_reset(st->topn);
}

void
pf_agg_end_foreign_scan(ForeignScanState *node)
{
	PfAggScanState *st = (PfAggScanState *) node->fdw_state;

	if (st == NULL)
		return;
	if (st->file_cxt)
		close_file(st);
	pf_agg_topn_reset(st->topn);
	pf_agg_spill_discard(st);
	if (st->rel)
		table_close(st->rel, NoLock);
	MemoryContextDelete(st->cxt);
	node->fdw_state = NULL;
}
