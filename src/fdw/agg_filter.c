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

#include "catalog/pg_collation.h"
#include "fdw/agg_int.h"
#include "fdw/pg_compat.h"
#include "fdw/vec_like.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

/* A LIKE filter's compiled pattern (PfAggFilter.like, the scan's quals). */
struct PfAggLike
{
	VlMatcher	matcher;
	bool		negate;			/* NOT LIKE, NOT ILIKE */
};

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

/*
 * f's memo of dictionary entries for batch b, zeroed when the unit (and so
 * the dictionary) changed; NULL when b is not dictionary-coded.
 */
static uint8 *
dict_memo(PfAggScanState *st, const PfAggFilter *cf, const PqColumnBatch *b)
{
	PfAggFilter *f = (PfAggFilter *) cf;	/* the memo is run-time state */

	if (b->dict_index == NULL || b->dictionary_count == 0)
		return NULL;
	if (f->dict_memo_cap < b->dictionary_count)
	{
		if (f->dict_memo != NULL)
			pfree(f->dict_memo);
		f->dict_memo = MemoryContextAlloc(st->cxt, b->dictionary_count);
		f->dict_memo_cap = b->dictionary_count;
		f->dict_memo_unit = -1;
	}
	if (f->dict_memo_unit != st->rowgroups_read)
	{
		memset(f->dict_memo, 0, f->dict_memo_cap);
		f->dict_memo_unit = st->rowgroups_read;
	}
	return f->dict_memo;
}

/* Does text value v satisfy "column strategy f's value" (C order)? */
static inline bool
text_holds(const PfAggFilter *f, int strategy, const CdcByteView *v)
{
	int			cmp;

	if (strategy == BTEqualStrategyNumber || strategy == PF_NOT_EQUAL_STRATEGY)
		cmp = (v->len == (uint32) f->len &&
			   memcmp(v->ptr, f->bytes, f->len) == 0) ? 0 : 1;
	else
	{
		/* C collation: bytes, then length */
		cmp = memcmp(v->ptr, f->bytes, Min(v->len, (uint32) f->len));
		if (cmp == 0)
			cmp = (v->len > (uint32) f->len) - (v->len < (uint32) f->len);
	}
	return PF_STRATEGY_HOLDS(strategy, cmp);
}

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
	if (f->kind == PF_FILTER_LIKE)
	{
		uint8	   *memo = dict_memo(st, f, b);

		/* dictionary-coded: each entry matched once per unit */
		if (memo != NULL)
			return vl_select_dict(&f->like->matcher, f->like->negate,
								  (const CdcByteView *) b->values, isnull,
								  b->dict_index, memo, in, n, out);
		return vl_select(&f->like->matcher, f->like->negate,
						 (const CdcByteView *) b->values, isnull, in, n, out);
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
				uint8	   *memo = dict_memo(st, f, b);

				if (memo != NULL)
				{
					/* each dictionary entry compared once per unit */
					const uint32 *dict_index = b->dict_index;

					for (uint32 i = 0; i < n; i++)
					{
						uint32		r = in[i];
						uint32		e = dict_index[r];
						bool		pass;

						if (isnull && isnull[r])
							continue;
						if (e == PQ_NOT_FROM_DICTIONARY)
							pass = text_holds(f, strategy, &vals[r]);
						else
						{
							if (memo[e] == 0)
								memo[e] = text_holds(f, strategy, &vals[r]) ? 1 : 2;
							pass = memo[e] == 1;
						}
						out[m] = r;
						m += pass;
					}
					return m;
				}
				for (uint32 i = 0; i < n; i++)
				{
					uint32		r = in[i];

					if (isnull && isnull[r])
						continue;
					if (text_holds(f, strategy, &vals[r]))
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

/* ----------------------------------------------------------------
 * LIKE / ILIKE / NOT LIKE
 * ----------------------------------------------------------------
 */

/* Is funcid one of text's LIKE functions?  Which variant. */
static bool
like_function(Oid funcid, bool *negate, bool *icase)
{
	*negate = funcid == F_TEXTNLIKE || funcid == F_TEXTICNLIKE;
	*icase = funcid == F_TEXTICLIKE || funcid == F_TEXTICNLIKE;
	return funcid == F_TEXTLIKE || funcid == F_TEXTNLIKE ||
		funcid == F_TEXTICLIKE || funcid == F_TEXTICNLIKE;
}

/*
 * The column of "column [NOT] [I]LIKE constant" when vec_like.c gives
 * PostgreSQL's answer for it, else NULL (the clause stays PostgreSQL's):
 * a text or varchar column of the relation, a deterministic collation
 * (PostgreSQL refuses LIKE under the others before version 18), UTF-8 or
 * a single-byte database encoding, and for ILIKE the C collation, whose
 * lower() folds ASCII letters only.
 */
Var *
pf_agg_like_column(Expr *clause, Index relid)
{
	OpExpr	   *op = (OpExpr *) clause;
	Node	   *arg;
	Const	   *pat;
	Var		   *var;
	bool		negate;
	bool		icase;

	if (!IsA(clause, OpExpr) || list_length(op->args) != 2 ||
		!like_function(op->opfuncid, &negate, &icase))
		return NULL;
	arg = linitial(op->args);
	if (IsA(arg, RelabelType))
		arg = (Node *) ((RelabelType *) arg)->arg;
	pat = (Const *) lsecond(op->args);
	if (!IsA(arg, Var) || !IsA(pat, Const) || pat->constisnull ||
		pat->consttype != TEXTOID)
		return NULL;
	var = (Var *) arg;
	/* relid 0: at execution, every Var is of the table */
	if ((relid != 0 && var->varno != relid) || var->varlevelsup != 0 || var->varattno <= 0 ||
		(var->vartype != TEXTOID && var->vartype != VARCHAROID))
		return NULL;
	if (!OidIsValid(op->inputcollid) ||
		!get_collation_isdeterministic(op->inputcollid))
		return NULL;
	if (GetDatabaseEncoding() != PG_UTF8 && pg_database_encoding_max_length() != 1)
		return NULL;
	if (icase && op->inputcollid != C_COLLATION_OID &&
		op->inputcollid != POSIX_COLLATION_OID)
		return NULL;
	return var;
}

/* Compile the pattern of a clause pf_agg_like_column accepted; NULL if not the kernels'. */
static struct PfAggLike *
like_compile(OpExpr *op)
{
	text	   *pattern = DatumGetTextPP(((Const *) lsecond(op->args))->constvalue);
	size_t		len = VARSIZE_ANY_EXHDR(pattern);
	struct PfAggLike *like = palloc0(sizeof(struct PfAggLike));
	uint8	   *buf = palloc(vl_buffer_size(len));
	bool		icase;

	like_function(op->opfuncid, &like->negate, &icase);
	if (vl_compile((const uint8 *) VARDATA_ANY(pattern), len, icase,
				   GetDatabaseEncoding() == PG_UTF8, buf, &like->matcher) != VL_OK)
	{
		pfree(buf);
		pfree(like);
		return NULL;
	}
	return like;
}

/*
 * Compile the pattern of a clause pf_agg_like_column accepted into filter
 * f on column name; false when the pattern is not the kernels' (a
 * trailing escape, which PostgreSQL reports; too many '%').
 */
bool
pf_agg_filter_set_like(PfAggFilter *f, Expr *clause, const char *name)
{
	OpExpr	   *op = (OpExpr *) clause;
	struct PfAggLike *like = like_compile(op);

	/* a trailing escape (PostgreSQL reports it), too many '%' */
	if (like == NULL)
		return false;
	f->kind = PF_FILTER_LIKE;
	f->like = like;
	f->inputcollid = op->inputcollid;
	f->text = psprintf("%s %s %s", name, get_opname(op->opno),
					   quote_literal_cstr(TextDatumGetCString(((Const *) lsecond(op->args))->constvalue)));
	return true;
}

/*
 * The scan's form: the compiled clause and its column's attribute number,
 * NULL when the clause stays PostgreSQL's.
 */
PfLikeFilter *
pf_like_filter_compile(Expr *clause, Index relid, AttrNumber *attnum)
{
	Var		   *var = pf_agg_like_column(clause, relid);

	if (var == NULL)
		return NULL;
	*attnum = var->varattno;
	return (PfLikeFilter *) like_compile((OpExpr *) clause);
}

/* Does a non-null text Datum pass the filter? */
bool
pf_like_filter_datum(const PfLikeFilter *filter, Datum value)
{
	const struct PfAggLike *like = (const struct PfAggLike *) filter;
	text	   *t = DatumGetTextPP(value);
	bool		hit = vl_match(&like->matcher, (const uint8 *) VARDATA_ANY(t),
							   VARSIZE_ANY_EXHDR(t));

	if ((Pointer) t != DatumGetPointer(value))
		pfree(t);
	return hit != like->negate;
}
