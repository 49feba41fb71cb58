/*-------------------------------------------------------------------------
 *
 * agg_pgexpr.c
 *	  Aggregate pushdown: evaluate a PostgreSQL expression over a batch's
 *	  rows, for what the vector code cannot evaluate itself.
 *
 * A computed column (agg_int.h, PfAggComputed) is initialized once per
 * scan with ExecInitExpr.  Per batch, its input columns are converted to
 * Datums by the source's own converters (convert(), as the row scan does)
 * for the selected rows only, put in a virtual tuple of the relation's
 * shape whose other attributes stay null, and ExecEvalExpr gives the value
 * of each selected row.  Exactness, errors included, is PostgreSQL's.
 *
 * Memory: the inputs' Datums and the results live in one context reset
 * when the next batch starts (the results' bytes are the batch's values).
 *
 * An expression of one column is memoized: its value is computed once per
 * distinct input (byte-equal Datums; the expressions are never volatile,
 * so a stable or immutable function gives the same value within the
 * statement), which turns a regexp_replace over a column of repeated URLs
 * from one call per row into one per distinct URL.  The memo is bounded:
 * past PF_MEMO_MAX_ENTRIES inputs or PF_MEMO_MAX_BYTES it starts over
 * between batches, or is dropped when its inputs rarely repeat.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_pgexpr.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "optimizer/clauses.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"

#include "fdw/agg_int.h"

/* Bounds of one computed column's memo; past them it starts over. */
#define PF_MEMO_MAX_ENTRIES 65536
#define PF_MEMO_MAX_BYTES (16 * 1024 * 1024)

/* One distinct input of a memoized expression and its value. */
typedef struct PfMemoEntry
{
	uint32		hash;
	bool		used;
	bool		in_null;
	bool		out_null;
	Datum		in;
	Datum		out;
} PfMemoEntry;

/*
 * The values of an expression of one input column by input, in its own
 * context (the results must outlive the batch's per-tuple memory only
 * until the next batch starts, when an overfull memo is cleared).
 */
typedef struct PfMemo
{
	MemoryContext cxt;
	int16		in_len;			/* typlen of the input, -1 varlena */
	bool		in_byval;
	int16		out_len;
	bool		out_byval;
	bool		disabled;		/* inputs rarely repeat: evaluate plainly */
	uint32		mask;			/* table size - 1 */
	uint32		nentries;
	PfMemoEntry *table;
	uint64		lookups;
	uint64		hits;
} PfMemo;

typedef struct PfAggPgExprState
{
	ExprContext *econtext;		/* its per-tuple memory: reset per batch */
	TupleTableSlot *slot;		/* virtual, the relation's descriptor */
	ExprState **states;			/* per computed column */
	/* per stored column: convert()'s Datums of this batch, when an input */
	Datum	  **values;
	bool	  **nulls;
	uint64	   *converted;		/* batch token of values, 0: none */
	uint64		token;			/* of the current batch */
	PfMemo	  **memos;			/* per computed column, NULL: not memoized */
	uint64		rows;			/* values computed, for EXPLAIN ANALYZE */
	uint64		evaluations;	/* of them by ExecEvalExpr, not the memo */
} PfAggPgExprState;

typedef struct EvaluableContext
{
	Index		relid;
	const char *why;
} EvaluableContext;

static bool
evaluable_walker(Node *node, EvaluableContext *cx)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) ||
		IsA(node, SubLink))
	{
		cx->why = "subquery";
		return true;
	}
	if (IsA(node, Aggref) || IsA(node, WindowFunc) ||
		IsA(node, GroupingFunc) || IsA(node, PlaceHolderVar))
	{
		cx->why = "aggregate or placeholder";
		return true;
	}
	if (IsA(node, Param) && ((Param *) node)->paramkind != PARAM_EXTERN)
	{
		cx->why = "parameter of an outer plan";
		return true;
	}
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varlevelsup != 0 || var->varattno <= 0 ||
			(cx->relid != 0 && var->varno != cx->relid))
		{
			cx->why = "column of another relation or a system column";
			return true;
		}
		return false;
	}
	return expression_tree_walker(node, evaluable_walker, (void *) cx);
}

bool
pf_agg_pgexpr_evaluable(Node *expr, Index relid, const char **why)
{
	EvaluableContext cx;

	cx.relid = relid;
	cx.why = NULL;
	if (contain_volatile_functions(expr))
		cx.why = "volatile function";
	else if (expression_returns_set(expr))
		cx.why = "set-returning function";
	else
		(void) evaluable_walker(expr, &cx);
	if (why)
		*why = cx.why;
	return cx.why == NULL;
}

bool
pf_agg_pgexpr_kind(Oid type, PfAggCol *col)
{
	col->typid = type;
	col->typmod = -1;
	col->flba_len = 0;
	switch (type)
	{
		case BOOLOID:
			col->kind = PF_COL_BOOL;
			col->phys = PQ_BOOLEAN;
			return true;
		case INT2OID:
		case INT4OID:
			/* spill files keep a 32-bit value of any non-int8 integer */
			col->kind = PF_COL_INT;
			col->phys = PQ_INT32;
			col->typid = INT4OID;
			return true;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case NUMERICOID:
			col->kind = PF_COL_INT;
			col->phys = PQ_INT64;
			col->typid = INT8OID;
			return true;
		case FLOAT4OID:
			col->kind = PF_COL_F4;
			col->phys = PQ_FLOAT;
			return true;
		case FLOAT8OID:
			col->kind = PF_COL_F8;
			col->phys = PQ_DOUBLE;
			return true;
		case DATEOID:
			col->kind = PF_COL_DATE;
			col->phys = PQ_INT32;
			return true;
		case TEXTOID:
			col->kind = PF_COL_TEXT;
			col->phys = PQ_BYTE_ARRAY;
			return true;
		default:
			return false;
	}
}

/* ----------------------------------------------------------------
 * The memo of an expression of one column
 * ----------------------------------------------------------------
 */

/* A memo for computed column cm, or NULL when it has not one input. */
static PfMemo *
memo_create(PfAggComputed *cm, PfAggProgram *prog, TupleDesc desc)
{
	PfMemo	   *m;
	Form_pg_attribute att;

	if (cm->nargs != 1 || cm->kernel != PF_KERNEL_NONE)
		return NULL;			/* a vector kernel computes it, not ExecEvalExpr */
	/* the input is what convert() gives: the column's declared type */
	att = TupleDescAttr(desc, prog->cols[cm->args[0]].attnum - 1);
	m = palloc0(sizeof(PfMemo));
	m->in_len = att->attlen;
	m->in_byval = att->attbyval;
	get_typlenbyval(cm->type, &m->out_len, &m->out_byval);
	if (m->in_len == -2 || m->out_len == -2)
	{
		pfree(m);
		return NULL;			/* cstrings: not worth a path of their own */
	}
	m->cxt = AllocSetContextCreate(CurrentMemoryContext,
								   "parquet_fdw expression memo",
								   ALLOCSET_DEFAULT_SIZES);
	m->mask = 1023;
	m->table = MemoryContextAllocZero(m->cxt, sizeof(PfMemoEntry) * (m->mask + 1));
	return m;
}

/* Forget every entry (between batches: no result of them is in use). */
static void
memo_clear(PfMemo *m)
{
	MemoryContextReset(m->cxt);
	m->mask = 1023;
	m->nentries = 0;
	m->table = MemoryContextAllocZero(m->cxt, sizeof(PfMemoEntry) * (m->mask + 1));
}

/* The bytes a by-reference Datum of length len covers. */
static inline const uint8 *
memo_bytes(Datum d, int16 len, Size *size)
{
	if (len == -1)
	{
		*size = VARSIZE_ANY_EXHDR(DatumGetPointer(d));
		return (const uint8 *) VARDATA_ANY(DatumGetPointer(d));
	}
	*size = len;
	return (const uint8 *) DatumGetPointer(d);
}

static inline uint32
memo_hash(const PfMemo *m, Datum in, bool in_null)
{
	const uint8 *p;
	Size		size;

	if (in_null)
		return 0x5bd1e995;
	if (m->in_byval)
		return hash_int64((int64) in);
	p = memo_bytes(in, m->in_len, &size);
	return pf_agg_hash_text(p, (uint32) size);
}

static inline bool
memo_equal(const PfMemo *m, const PfMemoEntry *e, uint32 h, Datum in, bool in_null)
{
	const uint8 *a;
	const uint8 *b;
	Size		alen;
	Size		blen;

	if (e->hash != h || e->in_null != in_null)
		return false;
	if (in_null)
		return true;
	if (m->in_byval)
		return e->in == in;
	a = memo_bytes(e->in, m->in_len, &alen);
	b = memo_bytes(in, m->in_len, &blen);
	return alen == blen && memcmp(a, b, alen) == 0;
}

/* Double the table (the entries' Datums stay where they are). */
static void
memo_grow(PfMemo *m)
{
	uint32		mask = m->mask * 2 + 1;
	PfMemoEntry *table = MemoryContextAllocZero(m->cxt,
												sizeof(PfMemoEntry) * (mask + 1));

	for (uint32 i = 0; i <= m->mask; i++)
	{
		uint32		pos;

		if (!m->table[i].used)
			continue;
		pos = m->table[i].hash & mask;
		while (table[pos].used)
			pos = (pos + 1) & mask;
		table[pos] = m->table[i];
	}
	pfree(m->table);
	m->table = table;
	m->mask = mask;
}

/*
 * The entry of input (in, in_null): found, or added with *fresh set for
 * the caller to fill in out/out_null.
 */
static PfMemoEntry *
memo_slot(PfMemo *m, Datum in, bool in_null, bool *fresh)
{
	uint32		h = memo_hash(m, in, in_null);
	uint32		pos = h & m->mask;
	PfMemoEntry *e;

	MemoryContext old;

	m->lookups++;
	while ((e = &m->table[pos])->used)
	{
		if (memo_equal(m, e, h, in, in_null))
		{
			m->hits++;
			*fresh = false;
			return e;
		}
		pos = (pos + 1) & m->mask;
	}
	if ((m->nentries + 1) * 2 > m->mask)
	{
		memo_grow(m);
		pos = h & m->mask;
		while (m->table[pos].used)
			pos = (pos + 1) & m->mask;
		e = &m->table[pos];
	}
	old = MemoryContextSwitchTo(m->cxt);
	e->used = true;
	e->hash = h;
	e->in_null = in_null;
	e->in = in_null ? (Datum) 0 : datumCopy(in, m->in_byval, m->in_len);
	MemoryContextSwitchTo(old);
	m->nentries++;
	*fresh = true;
	return e;
}

/* Can this input be looked up?  Converters never toast; should one... */
static inline bool
memoizable(const PfMemo *m, Datum in, bool in_null)
{
	return in_null || m->in_len != -1 ||
		!VARATT_IS_EXTENDED(DatumGetPointer(in)) ||
		VARATT_IS_SHORT(DatumGetPointer(in));
}

/*
 * Called between batches.  A full memo starts over, unless fewer than a
 * quarter of the lookups since it last started hit it: then inputs rarely
 * repeat within its reach and it is dropped (what it cost is bounded by
 * one filling).  Judging only a full memo keeps it for inputs that repeat
 * in cycles longer than its first rows.
 */
static void
memo_batch_start(PfMemo *m)
{
	if (m == NULL || m->disabled)
		return;
	if (m->nentries <= PF_MEMO_MAX_ENTRIES &&
		MemoryContextMemAllocated(m->cxt, true) <= PF_MEMO_MAX_BYTES)
		return;
	if (m->hits * 4 < m->lookups)
	{
		m->disabled = true;
		MemoryContextDelete(m->cxt);
		m->cxt = NULL;
		m->table = NULL;
		return;
	}
	memo_clear(m);
	m->lookups = m->hits = 0;
}

void
pf_agg_pgexpr_begin(PfAggScanState *st, PlanState *parent)
{
	PfAggProgram *prog = st->prog;
	PfAggPgExprState *px;
	TupleDesc	desc = RelationGetDescr(st->rel);

	for (int j = 0; j < prog->ncomputed; j++)
	{
		PfAggCol   *col = &prog->cols[prog->ncols + j];

		col->slot = prog->ncols + j;
		col->missing = false;
	}
	if (prog->ncomputed == 0)
		return;
	px = palloc0(sizeof(PfAggPgExprState));
	px->econtext = CreateExprContext(parent->state);
	/* a copy: an unpinned descriptor the scan context frees */
	px->slot = MakeSingleTupleTableSlot(CreateTupleDescCopy(desc), &TTSOpsVirtual);
	for (int a = 0; a < desc->natts; a++)
	{
		px->slot->tts_values[a] = (Datum) 0;
		px->slot->tts_isnull[a] = true;
	}
	px->states = palloc(sizeof(ExprState *) * prog->ncomputed);
	for (int j = 0; j < prog->ncomputed; j++)
	{
		Expr	   *expr = copyObject(prog->computed[j].expr);

		fix_opfuncids((Node *) expr);

		/*
		 * No parent: the node's scan slot (of its output columns, fixed
		 * ops) is not the tuple these expressions read, nor shall JIT
		 * assume it is.
		 */
		px->states[j] = ExecInitExpr(expr, NULL);
	}
	px->values = palloc0(sizeof(Datum *) * Max(1, prog->ncols));
	px->nulls = palloc0(sizeof(bool *) * Max(1, prog->ncols));
	px->converted = palloc0(sizeof(uint64) * Max(1, prog->ncols));
	for (int j = 0; j < prog->ncomputed; j++)
		for (int k = 0; k < prog->computed[j].nargs; k++)
		{
			int			c = prog->computed[j].args[k];

			if (px->values[c] == NULL)
			{
				px->values[c] = palloc(sizeof(Datum) * st->batch_rows);
				px->nulls[c] = palloc(sizeof(bool) * st->batch_rows);
			}
		}
	px->memos = palloc0(sizeof(PfMemo *) * prog->ncomputed);
	for (int j = 0; j < prog->ncomputed; j++)
		px->memos[j] = memo_create(&prog->computed[j], prog, desc);
	px->token = 1;
	st->pgexpr = px;
}

void
pf_agg_pgexpr_batch_start(PfAggScanState *st)
{
	if (st->pgexpr == NULL)
		return;
	st->pgexpr->token++;
	ResetExprContext(st->pgexpr->econtext);
	for (int j = 0; j < st->prog->ncomputed; j++)
		memo_batch_start(st->pgexpr->memos[j]);
}

/*
 * Datums of stored column c for the n selected rows, once per batch: the
 * selections of one batch only narrow, so the rows converted first cover
 * every later use.
 */
static void
convert_input(PfAggScanState *st, int c, uint32 batch_n, const uint32 *sel,
			  uint32 n)
{
	PfAggPgExprState *px = st->pgexpr;
	Datum	   *values = px->values[c];
	bool	   *nulls = px->nulls[c];

	if (px->converted[c] == px->token)
		return;
	px->converted[c] = px->token;
	if (st->prog->cols[c].missing)
	{
		memset(nulls, true, sizeof(bool) * batch_n);
		return;
	}
	st->err_column = st->prog->cols[c].attname;
	if (n == batch_n || !st->ops->column_lazy(st->src, c))
		st->ops->convert(st->src, c, 0, batch_n, values, nulls);
	else
	{
		/* the runs of selected rows only */
		for (uint32 i = 0; i < n;)
		{
			uint32		from = sel[i];
			uint32		len = 1;

			while (i + len < n && sel[i + len] == from + len)
				len++;
			st->ops->convert(st->src, c, from, len, values + from, nulls + from);
			i += len;
		}
	}
}

/* A numeric result as an integer at the scan's one scale for it. */
static int64
numeric_key_value(PfAggCol *col, PfAggComputed *cm, Datum d)
{
	int			scale = DatumGetInt32(DirectFunctionCall1(numeric_scale, d));
	int128_t	u;

	if (!cm->scale_known)
	{
		col->scale = scale;
		cm->scale_known = true;
	}
	if (scale == col->scale)
	{
		u = pf_agg_numeric_unscaled(d, scale, col->attname);
		if (u >= PG_INT64_MIN && u <= PG_INT64_MAX)
			return (int64) u;
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("aggregate pushdown cannot group by the numeric values of %s",
					col->attname),
			 errdetail("Its values differ in scale or exceed 18 digits."),
			 errhint("Set parquet_fdw.enable_aggregate_pushdown to off.")));
	return 0;
}

/* The expression's value in row r (the inputs converted). */
static inline Datum
evaluate_row(PfAggScanState *st, PfAggComputed *cm, ExprState *state,
			 uint32 r, bool *null)
{
	PfAggPgExprState *px = st->pgexpr;
	TupleTableSlot *slot = px->slot;

	ExecClearTuple(slot);
	for (int k = 0; k < cm->nargs; k++)
	{
		int			a = cm->args[k];
		int			att = st->prog->cols[a].attnum - 1;

		slot->tts_values[att] = px->values[a][r];
		slot->tts_isnull[att] = px->nulls[a][r];
	}
	ExecStoreVirtualTuple(slot);
	px->evaluations++;
	return ExecEvalExpr(state, px->econtext, null);
}

void
pf_agg_pgexpr_fill(PfAggScanState *st, int c, uint32 batch_n,
				   const uint32 *sel, uint32 n)
{
	PfAggProgram *prog = st->prog;
	PfAggPgExprState *px = st->pgexpr;
	PfAggComputed *cm = &prog->computed[c - prog->ncols];
	PfAggCol   *col = &prog->cols[c];
	ExprState  *state = px->states[c - prog->ncols];
	ExprContext *econtext = px->econtext;
	TupleTableSlot *slot = px->slot;
	PqColumnBatch *b = &st->batches[c];
	bool	   *isnull = st->conv_nulls[c];
	void	   *buf = st->conv_buf[c];
	bool		any_null = false;
	PfMemo	   *memo = px->memos[c - prog->ncols];
	MemoryContext old;

	if (cm->kernel != PF_KERNEL_NONE)
	{
		pf_agg_kernel_fill(st, c, batch_n, sel, n);
		return;
	}
	if (memo != NULL && memo->disabled)
		memo = NULL;
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	for (int k = 0; k < cm->nargs; k++)
		convert_input(st, cm->args[k], batch_n, sel, n);
	st->err_column = col->attname;
	econtext->ecxt_scantuple = slot;
	for (uint32 i = 0; i < n; i++)
	{
		uint32		r = sel[i];
		Datum		d;
		bool		null;

		if (memo != NULL && memoizable(memo, px->values[cm->args[0]][r],
									   px->nulls[cm->args[0]][r]))
		{
			int			a = cm->args[0];
			bool		fresh;
			PfMemoEntry *e = memo_slot(memo, px->values[a][r], px->nulls[a][r],
									   &fresh);

			if (fresh)
			{
				d = evaluate_row(st, cm, state, r, &null);
				e->out_null = null;
				MemoryContextSwitchTo(memo->cxt);
				e->out = null ? (Datum) 0 :
					datumCopy(d, memo->out_byval, memo->out_len);
				MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
			}
			d = e->out;
			null = e->out_null;
		}
		else
			d = evaluate_row(st, cm, state, r, &null);
		isnull[r] = null;
		any_null |= null;
		switch (col->kind)
		{
			case PF_COL_BOOL:
				((uint8 *) buf)[r] = null ? 0 : DatumGetBool(d);
				break;
			case PF_COL_INT:
				if (col->phys == PQ_INT32)
					((int32 *) buf)[r] = null ? 0 : cm->type == INT2OID ?
						DatumGetInt16(d) : DatumGetInt32(d);
				else
					((int64 *) buf)[r] = null ? 0 : cm->type == NUMERICOID ?
						numeric_key_value(col, cm, d) : DatumGetInt64(d);
				break;
			case PF_COL_F4:
				((float4 *) buf)[r] = null ? 0 : DatumGetFloat4(d);
				break;
			case PF_COL_F8:
				((float8 *) buf)[r] = null ? 0 : DatumGetFloat8(d);
				break;
			case PF_COL_DATE:
				{
					DateADT		v = null ? 0 : DatumGetDateADT(d);

					if (DATE_NOT_FINITE(v))
						ereport(ERROR,
								(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
								 errmsg("aggregate pushdown cannot group by an infinite date of %s",
										col->attname),
								 errhint("Set parquet_fdw.enable_aggregate_pushdown to off.")));
					((int32 *) buf)[r] = v + PF_AGG_EPOCH_DAYS;
					break;
				}
			case PF_COL_TEXT:
				{
					CdcByteView *v = &((CdcByteView *) buf)[r];

					v->ptr = NULL;
					v->len = 0;
					if (!null)
					{
						text	   *t = DatumGetTextPP(d);

						v->ptr = (const uint8 *) VARDATA_ANY(t);
						v->len = VARSIZE_ANY_EXHDR(t);
					}
					break;
				}
			case PF_COL_DEC:
				elog(ERROR, "parquet_fdw: no computed decimal column");
		}
	}
	ExecClearTuple(slot);
	px->rows += n;
	st->err_column = NULL;
	MemoryContextSwitchTo(old);
	memset(b, 0, sizeof(PqColumnBatch));
	b->num_rows = b->num_levels = batch_n;
	b->is_null = any_null ? isnull : NULL;
	b->values = buf;
}

void
pf_agg_pgexpr_counts(PfAggScanState *st, uint64 *rows, uint64 *evaluations)
{
	uint64		kernel_rows;
	uint64		kernel_evaluations;

	/* the regex kernel's rows too, those PostgreSQL's function computed */
	pf_agg_kernel_counts(st, &kernel_rows, &kernel_evaluations);
	*rows = (st->pgexpr ? st->pgexpr->rows : 0) + kernel_rows;
	*evaluations = (st->pgexpr ? st->pgexpr->evaluations : 0) + kernel_evaluations;
}

void
pf_agg_pgexpr_move_counts(PfAggScanState *st, uint64 *rows, uint64 *evaluations,
						  bool out)
{
	if (st->pgexpr == NULL)
		return;
	if (out)
	{
		uint64		r;
		uint64		e;

		/* ExecEvalExpr's and the regex kernel's */
		pf_agg_pgexpr_counts(st, &r, &e);
		*rows += r;
		*evaluations += e;
		st->pgexpr->rows = st->pgexpr->evaluations = 0;
		pf_agg_kernel_counts_reset(st);
	}
	else
	{
		st->pgexpr->rows += *rows;
		st->pgexpr->evaluations += *evaluations;
		*rows = *evaluations = 0;
	}
}
