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
 * IDENTIFICATION
 *	  src/fdw/agg_pgexpr.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "optimizer/clauses.h"

#include "fdw/agg_int.h"

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
	MemoryContext old;

	if (cm->kernel != PF_KERNEL_NONE)
	{
		pf_agg_kernel_fill(st, c, batch_n, sel, n);
		return;
	}
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

		ExecClearTuple(slot);
		for (int k = 0; k < cm->nargs; k++)
		{
			int			a = cm->args[k];
			int			att = prog->cols[a].attnum - 1;

			slot->tts_values[att] = px->values[a][r];
			slot->tts_isnull[att] = px->nulls[a][r];
		}
		ExecStoreVirtualTuple(slot);
		d = ExecEvalExpr(state, econtext, &null);
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
	st->err_column = NULL;
	MemoryContextSwitchTo(old);
	memset(b, 0, sizeof(PqColumnBatch));
	b->num_rows = b->num_levels = batch_n;
	b->is_null = any_null ? isnull : NULL;
	b->values = buf;
}
