/*-------------------------------------------------------------------------
 *
 * agg_eval.c
 *	  Aggregate pushdown: batch evaluation of expressions and accumulation
 *	  of aggregate states.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_eval.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/varlena.h"

#include "fdw/agg_int.h"
#include "fdw/numeric_form.h"


/* palloc with 16-byte alignment (int128 arrays). */
void *
pf_agg_palloc16(MemoryContext cxt, Size size)
{
	char	   *p = MemoryContextAllocZero(cxt, size + 16);

	return (void *) TYPEALIGN(16, p);
}

void
pf_agg_error_callback(void *arg)
{
	PfAggScanState *st = (PfAggScanState *) arg;
	const char *file_noun = st->ops->file_noun;
	const char *column = st->err_column;

	if (st->path == NULL)
		return;
	/* the source names the field it is reading */
	if (st->src != NULL && st->src->err_column != NULL)
		column = st->src->err_column;
	if (st->rowgroup >= 0 && column)
		errcontext("%s \"%s\", %s %d, column \"%s\"", file_noun,
				   st->path, st->ops->unit_noun, st->rowgroup, column);
	else if (st->rowgroup >= 0)
		errcontext("%s \"%s\", %s %d", file_noun, st->path,
				   st->ops->unit_noun, st->rowgroup);
	else
		errcontext("%s \"%s\"", file_noun, st->path);
}

/*
 * The value of a numeric read from its stored form (base-10000 digits, a
 * weight and a sign: the on-disk format, stable across releases) times
 * 10^scale into *v; false when it is special (NaN, infinity), has more
 * digits than an int128 surely holds, or more decimals than scale.
 */
bool
pf_numeric_unscaled_fast(Datum num, int scale, int128_t *v)
{
	struct varlena *vl = PG_DETOAST_DATUM_PACKED(num);
	PfNumericForm f;
	int			exp10;
	int128_t	acc = 0;

	if (!pf_numeric_form((const uint8 *) VARDATA_ANY(vl),
						 VARSIZE_ANY_EXHDR(vl), &f))
		return false;
	if (f.ndigits > 9)
		return false;			/* up to 36 decimal digits fit */
	for (int i = 0; i < f.ndigits; i++)
		acc = acc * 10000 + pf_numeric_digit(&f, i);
	/* acc counts units of 10000^(weight - ndigits + 1) */
	exp10 = 4 * (f.weight - f.ndigits + 1) + scale;
	if (f.ndigits == 0)
		exp10 = 0;
	if (exp10 > 0)
	{
		if (exp10 + 4 * f.ndigits > 38)
			return false;
		acc *= pf_agg_pow10_128(exp10);
	}
	else if (exp10 < 0)
	{
		int128_t	div;

		if (-exp10 > 38)
			return false;
		div = pf_agg_pow10_128(-exp10);
		if (acc % div != 0)
			return false;
		acc /= div;
	}
	*v = f.neg ? -acc : acc;
	return true;
}

int128_t
pf_agg_numeric_unscaled(Datum num, int scale, const char *attname)
{
	char	   *text;
	const char *p;
	bool		neg = false;
	int			frac = -1;		/* digits after the point, -1 before it */
	int128_t	v = 0;

	if (pf_numeric_unscaled_fast(num, scale, &v))
		return v;
	/* the rest from the value's text */
	text = DatumGetCString(DirectFunctionCall1(numeric_out, num));
	p = text;

	if (*p == '-')
	{
		neg = true;
		p++;
	}
	if (*p < '0' || *p > '9')
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("aggregate pushdown cannot read the value \"%s\" of column \"%s\"",
						text, attname),
				 errhint("Set parquet_fdw.enable_aggregate_pushdown to off.")));
	for (; *p; p++)
	{
		if (*p == '.')
		{
			frac = 0;
			continue;
		}
		if (frac >= 0 && ++frac > scale)
			elog(ERROR, "parquet_fdw: numeric %s of column \"%s\" has more than %d decimals",
				 text, attname, scale);
		v = v * 10 + (*p - '0');
	}
	for (frac = Max(frac, 0); frac < scale; frac++)
		v *= 10;
	pfree(text);
	return neg ? -v : v;
}

/* The scaled int128 as numeric with that display scale. */
Datum
pf_agg_int128_to_numeric(int128_t v, int scale)
{
	char		buf[64];
	char	   *p = buf + sizeof(buf);
	bool		neg = v < 0;
	uint128_t	u = neg ? -(uint128_t) v : (uint128_t) v;
	int			nd = 0;

	*--p = '\0';
	for (;;)
	{
		*--p = '0' + (int) (u % 10);
		u /= 10;
		nd++;
		if (nd == scale)
			*--p = '.';
		if (u == 0 && nd > scale)
			break;
	}
	if (neg)
		*--p = '-';
	return DirectFunctionCall3(numeric_in, CStringGetDatum(p),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/* Allocate the per-batch buffers of an expression tree. */
void
pf_agg_init_expr(PfAggScanState *st, PfAggExpr *e)
{
	uint32		n = st->batch_rows;

	if (e == NULL || e->i64 != NULL)
		return;					/* none, or shared and done */
	pf_agg_init_expr(st, e->left);
	pf_agg_init_expr(st, e->right);
	e->i64 = MemoryContextAllocZero(st->cxt, sizeof(int64) * n);
	e->i128 = pf_agg_palloc16(st->cxt, sizeof(int128_t) * n);
	e->f8 = MemoryContextAllocZero(st->cxt, sizeof(double) * n);
	e->null_buf = MemoryContextAllocZero(st->cxt, sizeof(bool) * n);
	if (e->op == PF_EXPR_CONST)
	{
		int128_t	d = e->num == PF_NUM_DEC ? e->dval : e->ival;

		for (uint32 i = 0; i < n; i++)
		{
			e->i64[i] = (int64) d;
			e->i128[i] = d;
			e->f8[i] = e->fval;
		}
		e->wide = d > PG_INT64_MAX / 4 || d < PG_INT64_MIN / 4;
		e->bound = fabs((double) d);
		e->nulls = NULL;
	}
}

static void pg_attribute_noreturn()
int_out_of_range(Oid type)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg(type == INT2OID ? "smallint out of range" :
					type == INT4OID ? "integer out of range" :
					"bigint out of range")));
}

/* A file's date (days from 1970) PostgreSQL cannot hold, in column attname. */
void pg_attribute_noreturn()
pf_agg_date_out_of_range(const char *attname, int64 days, bool from_statistics)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("date out of range: %lld days from 1970-01-01",
					(long long) days),
			 from_statistics ?
			 errdetail("The statistics of column \"%s\" hold a date outside PostgreSQL's range.",
					   attname) :
			 errdetail("Column \"%s\" holds a date outside PostgreSQL's range.",
					   attname)));
}

static bool eval_binary(PfAggScanState *st, PfAggExpr *e, uint32 n);
static bool eval_expr_batch(PfAggScanState *st, PfAggExpr *e,
							const uint32 *sel, uint32 n);

/*
 * Evaluate an expression over the n selected rows into its buffers.
 * Returns false when a decimal value could exceed int128 (the caller then
 * computes that batch with numeric arithmetic).
 */
static bool
eval_expr(PfAggScanState *st, PfAggExpr *e, const uint32 *sel, uint32 n)
{
	if (e->op == PF_EXPR_CONST)
		return true;
	/* a shared node: once per batch */
	if (e->eval_batch != st->batch_seq)
	{
		e->eval_ok = eval_expr_batch(st, e, sel, n);
		e->eval_batch = st->batch_seq;
	}
	return e->eval_ok;
}

static bool
eval_expr_batch(PfAggScanState *st, PfAggExpr *e, const uint32 *sel, uint32 n)
{
	bool		ok = true;

	if (e->op == PF_EXPR_COL)
	{
		const PfAggCol *col = &st->prog->cols[e->col];
		const PqColumnBatch *b = col_batch(st, col);
		const bool *isnull = b->is_null;

		e->nulls = NULL;
		if (isnull)
		{
			for (uint32 i = 0; i < n; i++)
				e->null_buf[i] = isnull[sel[i]];
			e->nulls = e->null_buf;
		}
		switch (e->num)
		{
			case PF_NUM_INT:
			case PF_NUM_DEC:
			case PF_NUM_DATE:
				e->wide = false;
				if (col->phys == PQ_INT32)
				{
					const int32 *v = (const int32 *) b->values;

					for (uint32 i = 0; i < n; i++)
						e->i64[i] = v[sel[i]];
				}
				else if (col->phys == PQ_INT64)
				{
					const int64 *v = (const int64 *) b->values;

					for (uint32 i = 0; i < n; i++)
						e->i64[i] = v[sel[i]];
				}
				else
				{
					/* FIXED_LEN_BYTE_ARRAY decimal */
					const uint8 *v = (const uint8 *) b->values;
					int			len = col->flba_len;

					e->wide = true;
					for (uint32 i = 0; i < n; i++)
						e->i128[i] = (isnull && isnull[sel[i]]) ? 0 :
							flba_to_int128(v + (size_t) sel[i] * len, len);
				}
				if (!e->wide && isnull)
					for (uint32 i = 0; i < n; i++)
						if (e->null_buf[i])
							e->i64[i] = 0;
				if (e->num == PF_NUM_DATE)
				{
					for (uint32 i = 0; i < n; i++)
					{
						int64		d = e->i64[i] - PF_AGG_EPOCH_DAYS;

						if (unlikely(!IS_VALID_DATE(d)) &&
							!(e->nulls && e->nulls[i]))
							pf_agg_date_out_of_range(col->attname, e->i64[i], false);
						e->i64[i] = d;
					}
				}
				if (e->num == PF_NUM_DEC)
				{
					if (e->wide)
					{
						uint128_t	m = 0;

						for (uint32 i = 0; i < n; i++)
						{
							int128_t	v = e->i128[i];
							uint128_t	a = v < 0 ? -(uint128_t) v : (uint128_t) v;

							m = a > m ? a : m;
						}
						e->bound = (double) m;
						/* narrow again when the values allow */
						if (m < ((uint128_t) 1 << 62))
						{
							for (uint32 i = 0; i < n; i++)
								e->i64[i] = (int64) e->i128[i];
							e->wide = false;
						}
					}
					else
					{
						uint64		m = 0;

						for (uint32 i = 0; i < n; i++)
						{
							int64		v = e->i64[i];
							uint64		a = v < 0 ? -(uint64) v : (uint64) v;

							m = a > m ? a : m;
						}
						e->bound = (double) m;
					}
				}
				break;
			case PF_NUM_F4:
				{
					const float *v = (const float *) b->values;

					for (uint32 i = 0; i < n; i++)
						e->f8[i] = v[sel[i]];
					if (isnull)
						for (uint32 i = 0; i < n; i++)
							if (e->null_buf[i])
								e->f8[i] = 0;
					break;
				}
			case PF_NUM_F8:
				{
					const double *v = (const double *) b->values;

					for (uint32 i = 0; i < n; i++)
						e->f8[i] = v[sel[i]];
					if (isnull)
						for (uint32 i = 0; i < n; i++)
							if (e->null_buf[i])
								e->f8[i] = 0;
					break;
				}
			case PF_NUM_OTHER:
				/* booleans as 0/1 (bool_and, bool_or: min, max) */
				if (col->kind == PF_COL_BOOL)
				{
					const uint8 *v = (const uint8 *) b->values;

					for (uint32 i = 0; i < n; i++)
						e->i64[i] = v[sel[i]] != 0;
				}
				break;
		}
		return true;
	}

	/* a binary operator */
	/* both sides: their null flags are needed even when one overflows */
	ok = eval_expr(st, e->left, sel, n);
	if (!eval_expr(st, e->right, sel, n))
		ok = false;
	{
		const bool *ln = e->left->nulls;
		const bool *rn = e->right->nulls;

		if (ln && rn)
		{
			for (uint32 i = 0; i < n; i++)
				e->null_buf[i] = ln[i] | rn[i];
			e->nulls = e->null_buf;
		}
		else
			e->nulls = ln ? (bool *) ln : (bool *) rn;
	}
	if (!ok)
		return false;
	if (!eval_binary(st, e, n))
		return false;

	/* null rows hold 0 in every node: sums add them unmasked */
	if (e->nulls)
	{
		const bool *nulls = e->nulls;

		if (e->num == PF_NUM_F4 || e->num == PF_NUM_F8)
		{
			for (uint32 i = 0; i < n; i++)
				if (nulls[i])
					e->f8[i] = 0;
		}
		else if (e->wide)
		{
			for (uint32 i = 0; i < n; i++)
				if (nulls[i])
					e->i128[i] = 0;
		}
		else
		{
			for (uint32 i = 0; i < n; i++)
				if (nulls[i])
					e->i64[i] = 0;
		}
	}
	return true;
}

/*
 * The values of binary operator node e from its evaluated operands; false
 * when decimal values could exceed int128.
 */
static bool
eval_binary(PfAggScanState *st, PfAggExpr *e, uint32 n)
{
	switch (e->num)
	{
		case PF_NUM_INT:
			{
				const int64 *l = e->left->i64;
				const int64 *r = e->right->i64;
				int64	   *o = e->i64;
				int64		lo = e->type == INT2OID ? PG_INT16_MIN :
					e->type == INT4OID ? PG_INT32_MIN : PG_INT64_MIN;
				int64		hi = e->type == INT2OID ? PG_INT16_MAX :
					e->type == INT4OID ? PG_INT32_MAX : PG_INT64_MAX;
				bool		overflow = false;

				for (uint32 i = 0; i < n; i++)
				{
					int64		v;
					bool		of;

					if (e->op == PF_EXPR_ADD)
						of = __builtin_add_overflow(l[i], r[i], &v);
					else if (e->op == PF_EXPR_SUB)
						of = __builtin_sub_overflow(l[i], r[i], &v);
					else
						of = __builtin_mul_overflow(l[i], r[i], &v);
					overflow |= of | (v < lo) | (v > hi);
					o[i] = v;
				}
				if (unlikely(overflow))
				{
					/* only a non-null row's overflow is an error */
					for (uint32 i = 0; i < n; i++)
					{
						int64		v;
						bool		of;

						if (e->nulls && e->nulls[i])
						{
							o[i] = 0;
							continue;
						}
						if (e->op == PF_EXPR_ADD)
							of = __builtin_add_overflow(l[i], r[i], &v);
						else if (e->op == PF_EXPR_SUB)
							of = __builtin_sub_overflow(l[i], r[i], &v);
						else
							of = __builtin_mul_overflow(l[i], r[i], &v);
						if (of || v < lo || v > hi)
							int_out_of_range(e->type);
					}
				}
				return true;
			}
		case PF_NUM_F4:
		case PF_NUM_F8:
			{
				const double *l = e->left->f8;
				const double *r = e->right->f8;
				double	   *o = e->f8;

				/* nulls hold 0, which raises no error */
				if (e->num == PF_NUM_F8)
				{
					for (uint32 i = 0; i < n; i++)
						o[i] = e->op == PF_EXPR_ADD ? float8_pl(l[i], r[i]) :
							e->op == PF_EXPR_SUB ? float8_mi(l[i], r[i]) :
							float8_mul(l[i], r[i]);
				}
				else
				{
					for (uint32 i = 0; i < n; i++)
						o[i] = e->op == PF_EXPR_ADD ? float4_pl((float4) l[i], (float4) r[i]) :
							e->op == PF_EXPR_SUB ? float4_mi((float4) l[i], (float4) r[i]) :
							float4_mul((float4) l[i], (float4) r[i]);
				}
				return true;
			}
		case PF_NUM_DEC:
			{
				PfAggExpr  *L = e->left;
				PfAggExpr  *R = e->right;
				int			ls = e->op == PF_EXPR_MUL ? 0 : e->scale - L->scale;
				int			rs = e->op == PF_EXPR_MUL ? 0 : e->scale - R->scale;
				double		bound;

				if (e->op == PF_EXPR_MUL)
					bound = L->bound * R->bound;
				else
					bound = L->bound * pow(10, ls) + R->bound * pow(10, rs);
				bound = bound * (1 + 1e-9) + 1;
				e->bound = bound;
				if (bound >= 8.5e37)	/* below 2^126 */
					return false;
				e->wide = bound >= 4.0e18 || L->wide || R->wide;
				if (!e->wide)
				{
					const int64 *l = L->i64;
					const int64 *r = R->i64;
					int64		lm = (int64) pf_agg_pow10_128(ls);
					int64		rm = (int64) pf_agg_pow10_128(rs);
					int64	   *o = e->i64;

					if (e->op == PF_EXPR_MUL)
						for (uint32 i = 0; i < n; i++)
							o[i] = l[i] * r[i];
					else if (e->op == PF_EXPR_ADD)
						for (uint32 i = 0; i < n; i++)
							o[i] = l[i] * lm + r[i] * rm;
					else
						for (uint32 i = 0; i < n; i++)
							o[i] = l[i] * lm - r[i] * rm;
				}
				else
				{
					int128_t	lm = pf_agg_pow10_128(ls);
					int128_t	rm = pf_agg_pow10_128(rs);
					int128_t   *o = e->i128;

					for (uint32 i = 0; i < n; i++)
					{
						int128_t	a = L->wide ? L->i128[i] : L->i64[i];
						int128_t	b = R->wide ? R->i128[i] : R->i64[i];

						o[i] = e->op == PF_EXPR_MUL ? a * b :
							e->op == PF_EXPR_ADD ? a * lm + b * rm :
							a * lm - b * rm;
					}
				}
				return true;
			}
		default:
			return false;
	}
}

/* Row i's value of a decimal expression as numeric (slow batches). */
static Datum
expr_numeric(PfAggExpr *e, uint32 i)
{
	Datum		l;
	Datum		r;

	if (e->op == PF_EXPR_CONST)
		return pf_agg_int128_to_numeric(e->dval, e->scale);
	if (e->op == PF_EXPR_COL)
		return pf_agg_int128_to_numeric(e->wide ? e->i128[i] : e->i64[i], e->scale);
	l = expr_numeric(e->left, i);
	r = expr_numeric(e->right, i);
	return DirectFunctionCall2(e->op == PF_EXPR_ADD ? numeric_add :
							   e->op == PF_EXPR_SUB ? numeric_sub : numeric_mul,
							   l, r);
}

/* Add a numeric to a state's spilled decimal sum. */
static void
spill_add(PfAggScanState *st, PfAggState *s, Datum num)
{
	MemoryContext old = MemoryContextSwitchTo(st->group_cxt);

	s->spill = s->has_spill ?
		DirectFunctionCall2(numeric_add, s->spill, num) : datumCopy(num, false, -1);
	s->has_spill = true;
	MemoryContextSwitchTo(old);
}

/* The int128 sum overflowed: move it to the numeric spill. */
static pg_noinline void
spill_int128(PfAggScanState *st, PfAggState *s, int128_t v, int scale)
{
	MemoryContext old = MemoryContextSwitchTo(st->tmp_cxt);

	spill_add(st, s, pf_agg_int128_to_numeric(s->isum, scale));
	s->isum = v;
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->tmp_cxt);
}

/*
 * Rows of the batch per group (st->group_rows), after pf_agg_assign_groups.
 * Only when there are no more groups than rows: the per-group loops that
 * read group_rows run only then, and past that clearing it for every batch
 * would cost more than the batch (ClickBench Q12 spent a quarter of its
 * time there).
 */
void
pf_agg_count_group_rows(PfAggScanState *st, uint32 n)
{
	if (st->ngroups > n)
		return;
	if (st->ngroups > st->group_rows_cap)
	{
		uint32		cap = Max(st->ngroups, st->group_rows_cap * 2);

		st->group_rows = st->group_rows ?
			repalloc(st->group_rows, sizeof(uint32) * cap) :
			MemoryContextAlloc(st->cxt, sizeof(uint32) * cap);
		st->group_rows_cap = cap;
	}
	memset(st->group_rows, 0, sizeof(uint32) * st->ngroups);
	for (uint32 i = 0; i < n; i++)
		st->group_rows[st->gid[i]]++;
}

/* Up to this many groups, group_sums() accumulates in four interleaved sets. */
#define PF_AGG_LANE_GROUPS	16

/* Per-group sums (and non-null counts) of e's int64 values, once per batch. */
static void
group_sums(PfAggScanState *st, PfAggExpr *e, uint32 n, const uint32 *gid)
{
	const int64 *v = e->i64;
	const bool *nulls = e->nulls;

	if (e->gsum_batch == st->batch_seq)
		return;
	if (st->ngroups > e->gcap)
	{
		uint32		cap = Max(st->ngroups, e->gcap * 2);

		e->gsum = e->gsum ? repalloc(e->gsum, sizeof(int64) * cap) :
			MemoryContextAlloc(st->cxt, sizeof(int64) * cap);
		e->gcnt = e->gcnt ? repalloc(e->gcnt, sizeof(uint32) * cap) :
			MemoryContextAlloc(st->cxt, sizeof(uint32) * cap);
		e->gcap = cap;
	}
	if (st->ngroups <= PF_AGG_LANE_GROUPS)
	{
		/*
		 * Few groups: consecutive rows mostly add to the same group, and one
		 * accumulator per group would chain every addition to the previous
		 * one's store.  Four interleaved accumulator sets break the chain;
		 * the caller's bound keeps every partial sum within int64.
		 */
		int64		lane[4][PF_AGG_LANE_GROUPS] = {{0}};
		uint32		cnt[4][PF_AGG_LANE_GROUPS] = {{0}};
		uint32		i = 0;

		for (; i + 4 <= n; i += 4)
		{
			lane[0][gid[i]] += v[i];	/* null rows hold 0 */
			lane[1][gid[i + 1]] += v[i + 1];
			lane[2][gid[i + 2]] += v[i + 2];
			lane[3][gid[i + 3]] += v[i + 3];
		}
		for (; i < n; i++)
			lane[0][gid[i]] += v[i];
		for (uint32 g = 0; g < st->ngroups; g++)
			e->gsum[g] = lane[0][g] + lane[1][g] + lane[2][g] + lane[3][g];
		if (nulls)
		{
			for (i = 0; i + 4 <= n; i += 4)
			{
				cnt[0][gid[i]] += !nulls[i];
				cnt[1][gid[i + 1]] += !nulls[i + 1];
				cnt[2][gid[i + 2]] += !nulls[i + 2];
				cnt[3][gid[i + 3]] += !nulls[i + 3];
			}
			for (; i < n; i++)
				cnt[0][gid[i]] += !nulls[i];
			for (uint32 g = 0; g < st->ngroups; g++)
				e->gcnt[g] = cnt[0][g] + cnt[1][g] + cnt[2][g] + cnt[3][g];
		}
		e->gsum_batch = st->batch_seq;
		return;
	}
	memset(e->gsum, 0, sizeof(int64) * st->ngroups);
	for (uint32 i = 0; i < n; i++)
		e->gsum[gid[i]] += v[i];	/* null rows hold 0 */
	if (nulls)
	{
		memset(e->gcnt, 0, sizeof(uint32) * st->ngroups);
		for (uint32 i = 0; i < n; i++)
			e->gcnt[gid[i]] += !nulls[i];
	}
	e->gsum_batch = st->batch_seq;
}

/*
 * min or max of a text column over the n selected rows: as text_larger and
 * text_smaller, in scan order, the state kept only when strictly beyond
 * the new value by the collation (equal values under a nondeterministic
 * collation: the later one).
 */
static void
accumulate_text_minmax(PfAggScanState *st, const PfAggDef *def, PfAggState *states,
					   const uint32 *sel, uint32 n, const uint32 *gid)
{
	const PfAggCol *col = &st->prog->cols[def->arg->col];
	const PqColumnBatch *b = col_batch(st, col);
	const CdcByteView *vals = (const CdcByteView *) b->values;
	int			naggs = st->prog->naggs;
	bool		is_max = def->kind == PF_AGG_MAX;

	for (uint32 i = 0; i < n; i++)
	{
		uint32		r = sel[i];
		PfAggState *s = &states[(size_t) gid[i] * naggs];
		const CdcByteView *v = &vals[r];

		if (b->is_null && b->is_null[r])
			continue;
		if (s->count > 0)
		{
			int			cmp;

			/* the same bytes: nothing to replace */
			if (VARSIZE_ANY_EXHDR(s->text) == v->len &&
				memcmp(VARDATA_ANY(s->text), v->ptr, v->len) == 0)
			{
				s->count++;
				continue;
			}
			cmp = varstr_cmp(VARDATA_ANY(s->text), VARSIZE_ANY_EXHDR(s->text),
							 (const char *) v->ptr, (int) v->len, def->collid);
			if (is_max ? cmp > 0 : cmp < 0)
			{
				s->count++;
				continue;
			}
		}
		if (pg_encoding_verifymbstr(PG_UTF8, (const char *) v->ptr, (int) v->len) != (int) v->len)
			ereport(ERROR,
					(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
					 errmsg("invalid byte sequence for encoding \"UTF8\" in column \"%s\"",
							col->attname)));
		if (s->text)
			pfree(s->text);
		s->text = MemoryContextAlloc(st->group_cxt, VARHDRSZ + v->len);
		SET_VARSIZE(s->text, VARHDRSZ + v->len);
		if (v->len > 0)
			memcpy(VARDATA(s->text), v->ptr, v->len);
		s->count++;
	}
}

/*
 * sum or avg of "column + k" (or "column - k") over integers, as the sum
 * of the column plus k times its non-null count: ClickBench's 90 sums of
 * ResolutionWidth + 0..89 then cost one pass over the column, not 90.
 * Exact only when no row's column + k overflows the expression's type
 * (PostgreSQL would raise the error there): the batch's range says so,
 * else false and the caller evaluates row by row, raising it.
 */
static bool
shifted_operand(const PfAggExpr *e, PfAggExpr **base, int64 *k)
{
	if (e->num != PF_NUM_INT || (e->op != PF_EXPR_ADD && e->op != PF_EXPR_SUB))
		return false;
	if (e->left->op == PF_EXPR_COL && e->right->op == PF_EXPR_CONST)
	{
		*base = e->left;
		*k = e->right->ival;
		if (e->op == PF_EXPR_SUB)
		{
			if (*k == PG_INT64_MIN)
				return false;
			*k = -*k;
		}
		return (*base)->num == PF_NUM_INT;
	}
	if (e->op == PF_EXPR_ADD && e->left->op == PF_EXPR_CONST &&
		e->right->op == PF_EXPR_COL)
	{
		*base = e->right;
		*k = e->left->ival;
		return (*base)->num == PF_NUM_INT;
	}
	return false;
}

static bool
accumulate_shifted(PfAggScanState *st, const PfAggDef *def, PfAggState *states,
				   const uint32 *sel, uint32 n, const uint32 *gid)
{
	PfAggProgram *prog = st->prog;
	int			naggs = prog->naggs;
	PfAggExpr  *base;
	int64		k;
	int128_t	lo;
	int128_t	hi;

	if (!shifted_operand(def->arg, &base, &k))
		return false;
	(void) eval_expr(st, base, sel, n);
	if (base->range_batch != st->batch_seq)
	{
		const bool *nulls = base->nulls;
		int64		vmin = PG_INT64_MAX;
		int64		vmax = PG_INT64_MIN;
		int128_t	vsum = 0;
		int64		vcount = 0;

		for (uint32 i = 0; i < n; i++)
		{
			int64		v = base->i64[i];	/* nulls hold 0 */

			if (nulls && nulls[i])
				continue;
			vmin = Min(vmin, v);
			vmax = Max(vmax, v);
			vsum += v;
			vcount++;
		}
		base->vmin = vmin;
		base->vmax = vmax;
		base->vsum = vsum;
		base->vcount = vcount;
		base->range_batch = st->batch_seq;
	}
	if (base->vcount == 0)
		return true;			/* all null: nothing to add */
	switch (def->arg->type)
	{
		case INT2OID:
			lo = PG_INT16_MIN, hi = PG_INT16_MAX;
			break;
		case INT4OID:
			lo = PG_INT32_MIN, hi = PG_INT32_MAX;
			break;
		case INT8OID:
			lo = PG_INT64_MIN, hi = PG_INT64_MAX;
			break;
		default:
			return false;
	}
	if ((int128_t) base->vmin + k < lo || (int128_t) base->vmax + k > hi)
		return false;

	if (prog->nkeys == 0)
	{
		states->isum += base->vsum + (int128_t) k * base->vcount;
		states->count += base->vcount;
		return true;
	}
	if (st->ngroups <= n && base->type != INT8OID)
	{
		group_sums(st, base, n, gid);
		for (uint32 g = 0; g < st->ngroups; g++)
		{
			PfAggState *s = &states[(size_t) g * naggs];
			uint32		cnt = base->nulls ? base->gcnt[g] : st->group_rows[g];

			if (st->group_rows[g] == 0)
				continue;
			s->isum += (int128_t) base->gsum[g] + (int128_t) k * cnt;
			s->count += cnt;
		}
		return true;
	}
	for (uint32 i = 0; i < n; i++)
	{
		PfAggState *s = &states[(size_t) gid[i] * naggs];

		if (base->nulls && base->nulls[i])
			continue;
		s->isum += (int128_t) base->i64[i] + k;
		s->count++;
	}
	return true;
}

/* Accumulate aggregate a over the n selected rows with groups gid. */
void
pf_agg_accumulate(PfAggScanState *st, int a, const uint32 *sel, uint32 n,
		   const uint32 *gid)
{
	PfAggProgram *prog = st->prog;
	PfAggDef   *def = &prog->aggs[a];
	PfAggExpr  *e = def->arg;
	int			naggs = prog->naggs;
	PfAggState *states = st->states + a;
	const bool *nulls;
	bool		values_ok;

#define STATE(i) (&states[(size_t) gid[i] * naggs])

	if (def->distinct)
		return;					/* counted by pf_agg_distinct_add */
	if (OidIsValid(def->collid))
	{
		accumulate_text_minmax(st, def, states, sel, n, gid);
		return;
	}
	if (def->kind == PF_AGG_COUNT_STAR)
	{
		if (prog->nkeys == 0)
			states->count += n;
		else if (st->ngroups <= n)
			for (uint32 g = 0; g < st->ngroups; g++)
				states[(size_t) g * naggs].count += st->group_rows[g];
		else
			/* many groups, few in this batch: per row, not per group */
			for (uint32 i = 0; i < n; i++)
				STATE(i)->count++;
		return;
	}

	if ((def->kind == PF_AGG_SUM || def->kind == PF_AGG_AVG) &&
		accumulate_shifted(st, def, states, sel, n, gid))
		return;

	values_ok = eval_expr(st, e, sel, n);
	nulls = e->nulls;

	/*
	 * Integer and decimal sums over groups: per-group int64 sums of the
	 * batch first (one pass, shared by sum and avg of the same expression),
	 * when the values' bound says they cannot overflow, then one checked
	 * int128 addition per group.
	 */
	if (values_ok && prog->nkeys > 0 && st->ngroups <= n &&
		(def->kind == PF_AGG_SUM || def->kind == PF_AGG_AVG) &&
		((e->num == PF_NUM_INT && e->type != INT8OID) ||
		 (e->num == PF_NUM_DEC && !e->wide && e->bound * n < 4.0e18)))
	{
		group_sums(st, e, n, gid);
		for (uint32 g = 0; g < st->ngroups; g++)
		{
			PfAggState *s = &states[(size_t) g * naggs];
			int128_t	r;

			if (st->group_rows[g] == 0)
				continue;
			if (unlikely(__builtin_add_overflow(s->isum, (int128_t) e->gsum[g], &r)))
				spill_int128(st, s, e->gsum[g], e->scale);
			else
				s->isum = r;
			s->count += nulls ? e->gcnt[g] : st->group_rows[g];
		}
		return;
	}

	if (def->kind == PF_AGG_COUNT)
	{
		for (uint32 i = 0; i < n; i++)
			STATE(i)->count += !(nulls && nulls[i]);
		return;
	}

	if (!values_ok)
	{
		/* decimal values beyond int128: numeric arithmetic, row by row */
		for (uint32 i = 0; i < n; i++)
		{
			PfAggState *s = STATE(i);
			MemoryContext old;

			if (nulls && nulls[i])
				continue;
			old = MemoryContextSwitchTo(st->tmp_cxt);
			spill_add(st, s, expr_numeric(e, i));
			MemoryContextSwitchTo(old);
			MemoryContextReset(st->tmp_cxt);
			s->count++;
		}
		return;
	}

	switch (def->kind)
	{
		case PF_AGG_SUM:
		case PF_AGG_AVG:
			switch (e->num)
			{
				case PF_NUM_INT:
					if (prog->nkeys == 0)
					{
						int128_t	sum = 0;
						int64		cnt = 0;

						for (uint32 i = 0; i < n; i++)
						{
							bool		valid = !(nulls && nulls[i]);

							sum += e->i64[i];	/* nulls hold 0 */
							cnt += valid;
						}
						states->isum += sum;
						states->count += cnt;
					}
					else
						for (uint32 i = 0; i < n; i++)
						{
							PfAggState *s = STATE(i);

							s->isum += e->i64[i];
							s->count += !(nulls && nulls[i]);
						}
					break;
				case PF_NUM_DEC:
					if (!e->wide)
					{
						if (prog->nkeys == 0)
						{
							/* a batch of int64 values cannot overflow int128 */
							int128_t	sum = 0;
							int64		cnt = 0;
							int128_t	r;

							for (uint32 i = 0; i < n; i++)
							{
								sum += e->i64[i];
								cnt += !(nulls && nulls[i]);
							}
							if (__builtin_add_overflow(states->isum, sum, &r))
								spill_int128(st, states, sum, e->scale);
							else
								states->isum = r;
							states->count += cnt;
						}
						else
							for (uint32 i = 0; i < n; i++)
							{
								PfAggState *s = STATE(i);
								int128_t	r;

								if (unlikely(__builtin_add_overflow(s->isum, (int128_t) e->i64[i], &r)))
									spill_int128(st, s, e->i64[i], e->scale);
								else
									s->isum = r;
								s->count += !(nulls && nulls[i]);
							}
					}
					else
						for (uint32 i = 0; i < n; i++)
						{
							PfAggState *s = STATE(i);
							int128_t	r;

							if (unlikely(__builtin_add_overflow(s->isum, e->i128[i], &r)))
								spill_int128(st, s, e->i128[i], e->scale);
							else
								s->isum = r;
							s->count += !(nulls && nulls[i]);
						}
					break;
				case PF_NUM_F4:
				case PF_NUM_F8:
					for (uint32 i = 0; i < n; i++)
					{
						PfAggState *s = STATE(i);
						double		x = e->f8[i];

						if (nulls && nulls[i])
							continue;
						if (def->kind == PF_AGG_SUM)
						{
							/* float4pl / float8pl, in scan order */
							if (e->num == PF_NUM_F4)
								s->fsum = s->count == 0 ? x :
									float4_pl((float4) s->fsum, (float4) x);
							else
								s->fsum = s->count == 0 ? x : float8_pl(s->fsum, x);
							s->count++;
						}
						else
						{
							/* float8_accum: N, Sx, Sxx (Youngs-Cramer) */
							double		N = (double) s->count;
							double		Sx = s->fsum;
							double		Sxx = s->sxx;

							N += 1.0;
							Sx += x;
							if (s->count > 0)
							{
								double		tmp = x * N - Sx;

								Sxx += tmp * tmp / (N * (double) s->count);
								if (isinf(Sx) || isinf(Sxx))
								{
									if (!isinf(s->fsum) && !isinf(x))
										float_overflow_error();
									Sxx = get_float8_nan();
								}
							}
							else if (isnan(x) || isinf(x))
								Sxx = get_float8_nan();
							s->fsum = Sx;
							s->sxx = Sxx;
							s->count++;
						}
					}
					break;
				default:
					break;
			}
			break;
		case PF_AGG_MIN:
		case PF_AGG_MAX:
			{
				bool		is_max = def->kind == PF_AGG_MAX;

				for (uint32 i = 0; i < n; i++)
				{
					PfAggState *s = STATE(i);

					if (nulls && nulls[i])
						continue;
					if (e->num == PF_NUM_F4 || e->num == PF_NUM_F8)
					{
						double		x = e->f8[i];

						/* float8larger/smaller: keep the state only when beyond */
						if (s->count == 0 ||
							!(is_max ? float_cmp(s->fsum, x) > 0 :
							  float_cmp(s->fsum, x) < 0))
							s->fsum = x;
					}
					else
					{
						int128_t	x = e->wide ? e->i128[i] : e->i64[i];

						if (s->count == 0 || (is_max ? x > s->isum : x < s->isum))
							s->isum = x;
					}
					s->count++;
				}
				break;
			}
		default:
			break;
	}
#undef STATE
}
