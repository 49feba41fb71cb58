/*-------------------------------------------------------------------------
 *
 * agg_filter.c
 *	  Aggregate pushdown: filters over a batch's raw values (selection
 *	  vectors).
 *
 * IDENTIFICATION
 *	  src/fdw/agg_filter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/agg_int.h"

/* ----------------------------------------------------------------
 * Filters
 * ----------------------------------------------------------------
 */

/* Does cmp (column value against the constant, <0, 0, >0) satisfy strategy? */
#define PF_STRATEGY_HOLDS(strategy, cmp) \
	((strategy) == BTLessStrategyNumber ? (cmp) < 0 : \
	 (strategy) == BTLessEqualStrategyNumber ? (cmp) <= 0 : \
	 (strategy) == BTEqualStrategyNumber ? (cmp) == 0 : \
	 (strategy) == BTGreaterEqualStrategyNumber ? (cmp) >= 0 : \
	 (strategy) == BTGreaterStrategyNumber ? (cmp) > 0 : (cmp) != 0)

/*
 * Branch-free selection loops: out gets the rows of in (n of them) where
 * COND holds for value v and the row is not null.
 */
#define PF_SELECT(T, VALS, COND) \
	do { \
		const T *vals_ = (const T *) (VALS); \
		if (isnull == NULL) \
			for (uint32 i = 0; i < n; i++) \
			{ \
				uint32		r = in[i]; \
				T			v = vals_[r]; \
				(void) v; \
				out[m] = r; \
				m += (COND); \
			} \
		else \
			for (uint32 i = 0; i < n; i++) \
			{ \
				uint32		r = in[i]; \
				T			v = vals_[r]; \
				(void) v; \
				out[m] = r; \
				m += (!isnull[r]) & (COND); \
			} \
	} while (0)

#define PF_SELECT_STRATEGY(T, VALS, C) \
	do { \
		switch (strategy) \
		{ \
			case BTLessStrategyNumber: PF_SELECT(T, VALS, v < (C)); break; \
			case BTLessEqualStrategyNumber: PF_SELECT(T, VALS, v <= (C)); break; \
			case BTEqualStrategyNumber: PF_SELECT(T, VALS, v == (C)); break; \
			case BTGreaterEqualStrategyNumber: PF_SELECT(T, VALS, v >= (C)); break; \
			case BTGreaterStrategyNumber: PF_SELECT(T, VALS, v > (C)); break; \
			default: PF_SELECT(T, VALS, v != (C)); break; \
		} \
	} while (0)

/* Apply filter f to the n rows in; returns the number written to out. */
uint32
pf_agg_apply_filter(PfAggScanState *st, const PfAggFilter *f, const uint32 *in,
			 uint32 n, uint32 *out)
{
	const PfAggCol *col = &st->prog->cols[f->col];
	const PqColumnBatch *b = col_batch(st, col);
	const bool *isnull = b->is_null;
	int			strategy = f->strategy;
	uint32		m = 0;

	if (f->never)
		return 0;
	if (f->kind == PF_FILTER_IS_NULL)
	{
		if (isnull)
			for (uint32 i = 0; i < n; i++)
			{
				out[m] = in[i];
				m += isnull[in[i]];
			}
		return m;
	}
	if (f->any_not_null || f->kind == PF_FILTER_NOT_NULL)
	{
		PF_SELECT(uint8, st->zeros, true);
		return m;
	}
	if (f->kind == PF_FILTER_IN)
	{
		/* a row passes when some element's equality filter passes it */
		uint32	   *pass = st->row_hash;	/* free during filtering */
		uint32	   *tmp = palloc(sizeof(uint32) * n);

		memset(pass, 0, sizeof(uint32) * n);
		for (int v = 0; v < f->nvals; v++)
		{
			uint32		k = pf_agg_apply_filter(st, &f->vals[v], in, n, tmp);
			uint32		j = 0;

			/* in and tmp are both ascending: mark the positions */
			for (uint32 i = 0; i < n && j < k; i++)
				if (in[i] == tmp[j])
				{
					pass[i] = 1;
					j++;
				}
		}
		pfree(tmp);
		for (uint32 i = 0; i < n; i++)
		{
			out[m] = in[i];
			m += pass[i];
		}
		return m;
	}
	switch (col->kind)
	{
		case PF_COL_INT:
		case PF_COL_DATE:
		case PF_COL_DEC:
			if (col->phys == PQ_INT32 || col->phys == PQ_INT64)
			{
				int64		c;

				/* a constant beyond int64: the answer is the same for all */
				if (f->ival > PG_INT64_MAX || f->ival < PG_INT64_MIN)
				{
					bool		above = f->ival > 0;
					bool		all = PF_STRATEGY_HOLDS(strategy, above ? -1 : 1);

					if (!all)
						return 0;
					PF_SELECT(uint8, st->zeros, true);
					return m;
				}
				c = (int64) f->ival;
				if (col->phys == PQ_INT32)
				{
					/* beyond int32: compare in 64 bits */
					PF_SELECT_STRATEGY(int32, b->values, (int64) c);
				}
				else
					PF_SELECT_STRATEGY(int64, b->values, c);
			}
			else
			{
				/* FIXED_LEN_BYTE_ARRAY decimal */
				const uint8 *vals = (const uint8 *) b->values;
				int			len = col->flba_len;

				for (uint32 i = 0; i < n; i++)
				{
					uint32		r = in[i];
					int128_t	v;
					int			cmp;

					if (isnull && isnull[r])
						continue;
					v = flba_to_int128(vals + (size_t) r * len, len);
					cmp = (v > f->ival) - (v < f->ival);
					if (PF_STRATEGY_HOLDS(strategy, cmp))
						out[m++] = r;
				}
			}
			return m;
		case PF_COL_F4:
		case PF_COL_F8:
			{
				double		c = f->fval;

				if (!isnan(c))
				{
					/* NaN values: above c, so only > >= <> hold */
					if (col->kind == PF_COL_F8)
					{
						switch (strategy)
						{
							case BTLessStrategyNumber: PF_SELECT(double, b->values, v < c); break;
							case BTLessEqualStrategyNumber: PF_SELECT(double, b->values, v <= c); break;
							case BTEqualStrategyNumber: PF_SELECT(double, b->values, v == c); break;
							case BTGreaterEqualStrategyNumber: PF_SELECT(double, b->values, v >= c || isnan(v)); break;
							case BTGreaterStrategyNumber: PF_SELECT(double, b->values, v > c || isnan(v)); break;
							default: PF_SELECT(double, b->values, v != c); break;
						}
					}
					else
					{
						switch (strategy)
						{
							case BTLessStrategyNumber: PF_SELECT(float, b->values, (double) v < c); break;
							case BTLessEqualStrategyNumber: PF_SELECT(float, b->values, (double) v <= c); break;
							case BTEqualStrategyNumber: PF_SELECT(float, b->values, (double) v == c); break;
							case BTGreaterEqualStrategyNumber: PF_SELECT(float, b->values, (double) v >= c || isnan(v)); break;
							case BTGreaterStrategyNumber: PF_SELECT(float, b->values, (double) v > c || isnan(v)); break;
							default: PF_SELECT(float, b->values, (double) v != c); break;
						}
					}
				}
				else if (col->kind == PF_COL_F8)
					PF_SELECT(double, b->values,
							  PF_STRATEGY_HOLDS(strategy, float_cmp(v, c)));
				else
					PF_SELECT(float, b->values,
							  PF_STRATEGY_HOLDS(strategy, float_cmp(v, c)));
				return m;
			}
		case PF_COL_TEXT:
			{
				const CdcByteView *vals = (const CdcByteView *) b->values;

				for (uint32 i = 0; i < n; i++)
				{
					uint32		r = in[i];
					const CdcByteView *v = &vals[r];
					int			cmp;

					if (isnull && isnull[r])
						continue;
					if (strategy == BTEqualStrategyNumber ||
						strategy == PF_NOT_EQUAL_STRATEGY)
						cmp = (v->len == (uint32) f->len &&
							   memcmp(v->ptr, f->bytes, f->len) == 0) ? 0 : 1;
					else
					{
						/* C collation: bytes, then length */
						cmp = memcmp(v->ptr, f->bytes, Min(v->len, (uint32) f->len));
						if (cmp == 0)
							cmp = (v->len > (uint32) f->len) - (v->len < (uint32) f->len);
					}
					if (PF_STRATEGY_HOLDS(strategy, cmp))
						out[m++] = r;
				}
				return m;
			}
		case PF_COL_BOOL:
			{
				int			c = f->bval ? 1 : 0;

				PF_SELECT_STRATEGY(uint8, b->values, (uint8) c);
				return m;
			}
	}
	return m;
}
