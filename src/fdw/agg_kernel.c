/*-------------------------------------------------------------------------
 *
 * agg_kernel.c
 *	  Aggregate pushdown: computed columns evaluated by vector kernels
 *	  over the batch of their input column, not by ExecEvalExpr per row.
 *
 * agg_compile.c picks a kernel for an expression it recognizes
 * (PfAggComputed.kernel); the column is then filled here in the same
 * shape agg_pgexpr.c gives it, so filters, keys and accumulators take it
 * unchanged.  Kernels:
 *	PF_KERNEL_LENGTH	length(), char_length(), octet_length() of a
 *						stored text column (vec_text.c): an int4 column;
 *						a dictionary-coded batch is measured once per
 *						dictionary entry of the unit.
 *	PF_KERNEL_CONDITION	a condition one vector filter evaluates
 *						(agg_filter.c): a bool column, true for the rows
 *						the filter passes, NULL where its column is.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_kernel.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/agg_int.h"
#include "fdw/vec_text.h"

/* The memo of cm for a batch of dictionary_count entries, reset per unit. */
static int32 *
length_memo(PfAggScanState *st, PfAggComputed *cm, uint32 dictionary_count)
{
	if (cm->memo_unit != st->rowgroups_read || cm->memo_cap < dictionary_count)
	{
		if (cm->memo_cap < dictionary_count)
		{
			if (cm->memo != NULL)
				pfree(cm->memo);
			cm->memo = MemoryContextAlloc(st->cxt, sizeof(int32) * dictionary_count);
			cm->memo_cap = dictionary_count;
		}
		for (uint32 i = 0; i < cm->memo_cap; i++)
			cm->memo[i] = VT_LEN_UNKNOWN;
		cm->memo_unit = st->rowgroups_read;
	}
	return cm->memo;
}

static void
fill_length(PfAggScanState *st, PfAggComputed *cm, PqColumnBatch *out,
			uint32 batch_n, const uint32 *sel, uint32 n, int32 *buf)
{
	PfAggCol   *in_col = &st->prog->cols[cm->kernel_col];
	const PqColumnBatch *in = col_batch(st, in_col);
	const uint32 *dict_index = NULL;
	int32	   *memo = NULL;
	uint32		bad_row;

	if (in_col->missing)
	{
		memset(out, 0, sizeof(PqColumnBatch));
		out->num_rows = out->num_levels = batch_n;
		out->is_null = st->all_null;
		out->values = buf;
		return;
	}
	if (in->dict_index != NULL && in->dictionary_count > 0)
	{
		dict_index = in->dict_index;
		memo = length_memo(st, cm, in->dictionary_count);
	}
	if (!vt_lengths((const CdcByteView *) in->values, in->is_null, dict_index, memo,
					(VtLengthKind) cm->kernel_mode, sel, n, buf, &bad_row))
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("invalid byte sequence for encoding \"UTF8\" in column \"%s\"",
						in_col->attname)));
	memset(out, 0, sizeof(PqColumnBatch));
	out->num_rows = out->num_levels = batch_n;
	out->is_null = in->is_null;
	out->values = buf;
}

static void
fill_condition(PfAggScanState *st, PfAggComputed *cm, PqColumnBatch *out,
			   uint32 batch_n, const uint32 *sel, uint32 n, uint8 *buf)
{
	const PqColumnBatch *in = col_batch(st, &st->prog->cols[cm->kernel_col]);
	uint32	   *pass = palloc(sizeof(uint32) * Max(1, n));
	uint32		m;

	m = pf_agg_apply_filter(st, cm->kernel_filter, sel, n, pass);
	for (uint32 i = 0; i < n; i++)
		buf[sel[i]] = 0;
	for (uint32 i = 0; i < m; i++)
		buf[pass[i]] = 1;
	pfree(pass);
	memset(out, 0, sizeof(PqColumnBatch));
	out->num_rows = out->num_levels = batch_n;
	out->is_null = in->is_null;
	out->values = buf;
}

void
pf_agg_kernel_fill(PfAggScanState *st, int c, uint32 batch_n,
				   const uint32 *sel, uint32 n)
{
	PfAggProgram *prog = st->prog;
	PfAggComputed *cm = &prog->computed[c - prog->ncols];
	int			in = cm->kernel_col;

	/* the input first, for the rows that reach this column */
	if (!st->filled[in])
	{
		st->err_column = prog->cols[in].attname;
		pf_agg_fill_stored(st, in, batch_n, sel, n);
		st->filled[in] = true;
	}
	st->err_column = prog->cols[c].attname;
	switch (cm->kernel)
	{
		case PF_KERNEL_LENGTH:
			fill_length(st, cm, &st->batches[c], batch_n, sel, n,
						(int32 *) st->conv_buf[c]);
			break;
		case PF_KERNEL_CONDITION:
			fill_condition(st, cm, &st->batches[c], batch_n, sel, n,
						   (uint8 *) st->conv_buf[c]);
			break;
		default:
			elog(ERROR, "parquet_fdw: unknown kernel %d", cm->kernel);
	}
	st->err_column = NULL;
}
