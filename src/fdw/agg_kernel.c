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
 *	PF_KERNEL_REGEX		regexp_replace(column, pattern, replacement), a
 *						text column, or column ~ pattern (!~), a bool
 *						column, by vec_regex.c; a row it cannot answer
 *						(parses it cannot order, the work bound, bytes
 *						that are not UTF-8) is given to PostgreSQL's own
 *						function, so every row is PostgreSQL's answer.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_kernel.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/agg_int.h"
#include "fdw/vec_regex.h"
#include "fdw/vec_text.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

/* A compiled regular expression and its work space (PF_KERNEL_REGEX). */
typedef struct PfAggRegex
{
	VrProgram	prog;
	VrReplacement repl;
	bool		replace;		/* regexp_replace, else a condition */
	bool		negate;			/* !~ */
	Oid			funcid;			/* PostgreSQL's function, for the rows left */
	Oid			collid;
	Datum		pattern;
	Datum		replacement;
	VrScratch  *scratch;		/* on first use */
	MemoryContext batch_cxt;	/* fallback results of the batch */
	uint8	   *out;			/* result bytes of the batch */
	Size		out_cap;
	uint64		rows;			/* rows computed */
	uint64		fallbacks;		/* of them by PostgreSQL's function */
} PfAggRegex;

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

bool
pf_agg_regex_prepare(PfAggComputed *cm, Oid funcid, Oid collid, text *pattern,
					 text *replacement)
{
	PfAggRegex *rx;

	if (GetDatabaseEncoding() != PG_UTF8 || !OidIsValid(collid) ||
		!get_collation_isdeterministic(collid))
		return false;
	rx = palloc0(sizeof(PfAggRegex));
	if (vr_compile((const uint8 *) VARDATA_ANY(pattern), VARSIZE_ANY_EXHDR(pattern),
				   &rx->prog) != VR_OK)
	{
		pfree(rx);
		return false;
	}
	rx->replace = funcid == F_REGEXP_REPLACE_TEXT_TEXT_TEXT;
	if (rx->replace &&
		vr_compile_replacement((const uint8 *) VARDATA_ANY(replacement),
							   VARSIZE_ANY_EXHDR(replacement), &rx->repl) != VR_OK)
	{
		pfree(rx);
		return false;
	}
	rx->negate = funcid == F_TEXTREGEXNE;
	rx->funcid = funcid;
	rx->collid = collid;
	rx->pattern = PointerGetDatum(pattern);
	rx->replacement = PointerGetDatum(replacement);
	cm->regex = rx;
	return true;
}

/* PostgreSQL's answer for the one value v. */
static Datum
regex_by_postgres(PfAggRegex *rx, const CdcByteView *v)
{
	Datum		subject = PointerGetDatum(cstring_to_text_with_len((const char *) v->ptr,
																   v->len));

	rx->fallbacks++;
	if (rx->replace)
		return OidFunctionCall3Coll(rx->funcid, rx->collid, subject, rx->pattern,
									rx->replacement);
	return OidFunctionCall2Coll(rx->funcid, rx->collid, subject, rx->pattern);
}

static void
fill_regex(PfAggScanState *st, PfAggComputed *cm, PqColumnBatch *out,
		   uint32 batch_n, const uint32 *sel, uint32 n, void *buf)
{
	PfAggCol   *in_col = &st->prog->cols[cm->kernel_col];
	const PqColumnBatch *in = col_batch(st, in_col);
	PfAggRegex *rx = cm->regex;
	const CdcByteView *vals;
	const bool *is_null;
	MemoryContext old;
	Size		need = 0;
	Size		used = 0;

	memset(out, 0, sizeof(PqColumnBatch));
	out->num_rows = out->num_levels = batch_n;
	out->values = buf;
	if (in_col->missing)
	{
		out->is_null = st->all_null;
		return;
	}
	vals = (const CdcByteView *) in->values;
	is_null = in->is_null;
	out->is_null = in->is_null;
	if (rx->scratch == NULL)
	{
		rx->scratch = MemoryContextAllocHuge(st->cxt, sizeof(VrScratch));
		rx->batch_cxt = AllocSetContextCreate(st->cxt, "parquet_fdw regex",
											  ALLOCSET_DEFAULT_SIZES);
	}
	MemoryContextReset(rx->batch_cxt);
	if (rx->replace)
	{
		for (uint32 i = 0; i < n; i++)
			if (is_null == NULL || !is_null[sel[i]])
				need += vr_replace_bound(&rx->repl, vals[sel[i]].len);
		if (need > rx->out_cap || rx->out == NULL)
		{
			if (rx->out != NULL)
				pfree(rx->out);
			rx->out_cap = Max(Max(need, 2 * rx->out_cap), 1024);
			rx->out = MemoryContextAllocHuge(st->cxt, rx->out_cap);
		}
	}
	old = MemoryContextSwitchTo(rx->batch_cxt);
	for (uint32 i = 0; i < n; i++)
	{
		uint32		r = sel[i];
		const CdcByteView *v = &vals[r];
		VrResult	res;

		if (is_null != NULL && is_null[r])
		{
			if (rx->replace)
				((CdcByteView *) buf)[r] = (CdcByteView) {0};
			else
				((uint8 *) buf)[r] = 0;
			continue;
		}
		if (rx->replace)
		{
			CdcByteView *o = &((CdcByteView *) buf)[r];
			size_t		len = 0;

			res = vr_replace(&rx->prog, &rx->repl, v->ptr, v->len, rx->scratch,
							 rx->out + used, &len);
			if (res == VR_MATCH)
			{
				o->ptr = rx->out + used;
				o->len = len;
				used += len;
			}
			else if (res == VR_NO_MATCH)
				*o = *v;
			else
			{
				text	   *t = DatumGetTextPP(regex_by_postgres(rx, v));

				o->ptr = (const uint8 *) VARDATA_ANY(t);
				o->len = VARSIZE_ANY_EXHDR(t);
			}
		}
		else
		{
			bool		match;

			res = vr_test(&rx->prog, v->ptr, v->len, rx->scratch);
			if (res == VR_MATCH || res == VR_NO_MATCH)
				match = (res == VR_MATCH) != rx->negate;
			else
				match = DatumGetBool(regex_by_postgres(rx, v));
			((uint8 *) buf)[r] = match;
		}
		if ((i & 1023) == 1023)
			CHECK_FOR_INTERRUPTS();
	}
	MemoryContextSwitchTo(old);
	rx->rows += n;
}

void
pf_agg_kernel_counts(PfAggScanState *st, uint64 *rows, uint64 *evaluations)
{
	PfAggProgram *prog = st->prog;

	*rows = *evaluations = 0;
	for (int j = 0; j < prog->ncomputed; j++)
		if (prog->computed[j].kernel == PF_KERNEL_REGEX)
		{
			*rows += prog->computed[j].regex->rows;
			*evaluations += prog->computed[j].regex->fallbacks;
		}
}

void
pf_agg_kernel_counts_reset(PfAggScanState *st)
{
	PfAggProgram *prog = st->prog;

	for (int j = 0; j < prog->ncomputed; j++)
		if (prog->computed[j].kernel == PF_KERNEL_REGEX)
			prog->computed[j].regex->rows = prog->computed[j].regex->fallbacks = 0;
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
		case PF_KERNEL_REGEX:
			fill_regex(st, cm, &st->batches[c], batch_n, sel, n, st->conv_buf[c]);
			break;
		default:
			elog(ERROR, "parquet_fdw: unknown kernel %d", cm->kernel);
	}
	st->err_column = NULL;
}
