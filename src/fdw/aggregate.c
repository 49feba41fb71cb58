/*-------------------------------------------------------------------------
 *
 * aggregate.c
 *	  Aggregate pushdown: count, sum, avg, min and max computed inside the
 *	  scan over the decoded column batches, grouped by a few columns.
 *
 * Planning (GetForeignUpperPaths, UPPERREL_GROUP_AGG) accepts a query over
 * one Parquet foreign table when every restriction is "column op value"
 * (= <> < <= > >=, so also BETWEEN; a boolean column or its negation) that
 * the scan can evaluate on the raw vectors, the value a constant or an
 * expression of parameters (evaluated at each (re)scan), every GROUP BY
 * item is a plain column of a small-domain type (text, bool, integers,
 * date) and every aggregate is count(*), count(x), sum(x), avg(x), min(col)
 * or max(col) with x a column or + - * of columns and constants of one
 * numeric family.  Anything else keeps the ordinary plan.  The plan is a
 * ForeignScan with scanrelid 0 whose fdw_scan_tlist holds the group columns
 * and the Aggrefs, HAVING its qual; the restrictions travel in fdw_private
 * (their parameter values in fdw_exprs) and are compiled again at executor
 * start by the same code that accepted them.
 *
 * Execution reads each row group's needed leaves a batch at a time, builds
 * a selection vector from the filters, maps the selected rows to groups
 * (per-column codes, then a hash table of code tuples), evaluates the
 * aggregate arguments column-wise and accumulates:
 *	integers		int128 sums (exact), the result typed as PostgreSQL's
 *	decimals		scaled integers (int64 when a batch's value bounds allow,
 *					else int128, else numeric arithmetic for that batch), the
 *					sum converted to numeric with the static display scale
 *					that PostgreSQL's numeric_add/numeric_mul would give, avg
 *					by numeric_div on that sum and the count, as numeric_avg
 *	floats			in scan order with float4/float8's own overflow checks
 *					(avg keeps float8_accum's Youngs-Cramer state, whose
 *					overflow check it reproduces)
 * so the results equal PostgreSQL's own.  Without restrictions and groups,
 * count(*), count(col), min and max of integers, dates and decimals stored
 * as integers come from the row groups' statistics when present.
 *
 * Memory: column readers live in a context reset per row group; the
 * groups' keys and states in one that grows with the number of groups (the
 * planner refuses more than PF_AGG_MAX_GROUPS estimated groups).  Past
 * hash_mem, a pass is dropped and the input read again once per partition
 * of the key values' hashes, so memory stays bounded whatever the estimate
 * said (slow, but exact).
 *
 * IDENTIFICATION
 *	  src/fdw/aggregate.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/nbtree.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "executor/tuptable.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/date.h"
#include "utils/datum.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "common/buffer_pool.h"
#include "fdw/parquet_fdw.h"
#include "fdw/amudai_fdw.h"

/* GUC parquet_fdw.enable_aggregate_pushdown */
bool		pf_enable_aggregate_pushdown = true;

/* Rows decoded per batch. */
#define PF_AGG_BATCH_ROWS	4096
/* The planner refuses more estimated groups than this. */
#define PF_AGG_MAX_GROUPS	65536
/* Days from 1970-01-01 (Parquet DATE) to 2000-01-01 (PostgreSQL date). */
#define PF_AGG_EPOCH_DAYS	(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE)

/* First element of a pushed-down plan's fdw_private. */
#define PF_AGG_MARKER		"parquet_fdw aggregate pushdown"

/*
 * PostgreSQL's 128-bit integers: aligned to 8 bytes like palloc'd memory
 * (a plain __int128 field wants 16 and may be stored with aligned moves).
 */
typedef int128 int128_t;
typedef uint128 uint128_t;

/* ----------------------------------------------------------------
 * The compiled program: columns, filters, group keys, aggregates
 * ----------------------------------------------------------------
 */

/* A column's declared type, as the pushdown reads it. */
typedef enum PfColKind
{
	PF_COL_INT,					/* int2, int4, int8 */
	PF_COL_DEC,					/* numeric(p,s) from a DECIMAL */
	PF_COL_F4,
	PF_COL_F8,
	PF_COL_DATE,
	PF_COL_TEXT,
	PF_COL_BOOL
} PfColKind;

typedef struct PfAggCol
{
	AttrNumber	attnum;
	char	   *attname;
	char	   *field_name;
	Oid			typid;
	int32		typmod;
	PfColKind	kind;
	int			precision;		/* DEC */
	int			scale;			/* DEC */
	/* in the current file */
	bool		missing;		/* absent: all null */
	int			slot;			/* reader slot, -1 when missing */
	PqPhysicalType phys;
	int32		flba_len;
} PfAggCol;

/* Value domain of an expression. */
typedef enum PfNum
{
	PF_NUM_INT,					/* int2/int4/int8 arithmetic, in int64 */
	PF_NUM_DEC,					/* scaled integer */
	PF_NUM_F4,
	PF_NUM_F8,
	PF_NUM_DATE,				/* bare column only (min/max, count) */
	PF_NUM_OTHER				/* text or bool column: count only */
} PfNum;

typedef enum PfExprOp
{
	PF_EXPR_COL,
	PF_EXPR_CONST,
	PF_EXPR_ADD,
	PF_EXPR_SUB,
	PF_EXPR_MUL
} PfExprOp;

typedef struct PfAggExpr
{
	PfExprOp	op;
	PfNum		num;
	Oid			type;			/* result type */
	int			scale;			/* DEC: scale of the unscaled integer */
	int			col;			/* COL: index into columns */
	struct PfAggExpr *left;
	struct PfAggExpr *right;
	/* CONST */
	int64		ival;
	int128_t	dval;
	double		fval;
	/* per batch, over the selected rows */
	uint64		eval_batch;		/* batch number of the values below */
	bool		eval_ok;		/* eval_expr's result for that batch */
	/* per batch and group: sums of the values and non-null counts */
	uint64		gsum_batch;		/* batch number of gsum and gcnt */
	uint32		gcap;
	int64	   *gsum;
	uint32	   *gcnt;
	bool		wide;			/* DEC: values in i128 (else i64) */
	double		bound;			/* DEC: bound on the |unscaled value| */
	int64	   *i64;
	int128_t   *i128;
	double	   *f8;
	bool	   *nulls;			/* NULL: no null in this batch */
	bool	   *null_buf;
} PfAggExpr;

typedef enum PfAggKind
{
	PF_AGG_COUNT_STAR,
	PF_AGG_COUNT,
	PF_AGG_SUM,
	PF_AGG_AVG,
	PF_AGG_MIN,
	PF_AGG_MAX
} PfAggKind;

typedef struct PfAggDef
{
	PfAggKind	kind;
	Oid			argtype;
	Oid			restype;
	PfAggExpr  *arg;			/* NULL for count(*) */
	bool		from_stats;		/* answerable from column statistics */
} PfAggDef;

/* A filter "column op constant", normalized to the column's raw domain. */
typedef struct PfAggFilter
{
	int			col;
	int			strategy;		/* BT*StrategyNumber or PF_NOT_EQUAL_STRATEGY */
	bool		never;			/* no row passes */
	bool		any_not_null;	/* every non-null row passes */
	int128_t	ival;			/* INT, DATE (Parquet days), DEC (unscaled) */
	double		fval;
	char	   *bytes;			/* TEXT */
	int			len;
	bool		bval;
	int			orig_strategy;	/* the clause's (decimals may adjust strategy) */
	Oid			inputcollid;
	Oid			valtype;
	Expr	   *param_expr;		/* value known at each (re)scan, else NULL */
	PfQual	   *qual;			/* the analyzer's form of the restriction */
	/* other kinds of filters than "column op value" */
	int			kind;			/* PF_FILTER_* */
	int			nvals;			/* IN: the list's normalized values */
	struct PfAggFilter *vals;
	/* for EXPLAIN */
	char	   *text;
} PfAggFilter;

#define PF_FILTER_CMP		0	/* column op value */
#define PF_FILTER_IS_NULL	1
#define PF_FILTER_NOT_NULL	2
#define PF_FILTER_IN		3	/* column = ANY (array) */

/* A group key column's values, coded 1..n (0 is NULL). */
typedef struct PfKeyDict
{
	int			col;
	uint32		nvalues;		/* codes 1..nvalues in use */
	uint32		cap_values;
	int64	   *ivalues;		/* INT, DATE (PostgreSQL days), BOOL */
	char	  **tvalues;		/* TEXT */
	int		   *tlens;
	uint32	   *hashes;
	/* open-addressing table of codes */
	uint32	   *table;
	uint32		mask;
	/* TEXT: recently seen value pointers (dictionary pages repeat them) */
	const uint8 *cache_ptr[256];
	uint32		cache_len[256];
	uint32		cache_code[256];
	/* TEXT: code of each one-byte value (flags, statuses), 0 = not yet */
	uint32		byte_code[256];
} PfKeyDict;

/* One output column (fdw_scan_tlist entry). */
typedef struct PfAggOut
{
	bool		is_key;
	int			index;			/* into keys or aggs */
	Oid			type;
} PfAggOut;

typedef struct PfAggProgram
{
	int			ncols;
	PfAggCol   *cols;
	int			nfilters;
	PfAggFilter *filters;
	int			nkeys;
	int		   *key_cols;
	int			naggs;
	PfAggDef   *aggs;
	int			nouts;
	PfAggOut   *outs;
	bool		all_from_stats;
} PfAggProgram;

/* Per group and aggregate state. */
typedef struct PfAggState
{
	int128_t	isum;			/* integer/decimal sum, min or max */
	int64		count;			/* non-null inputs */
	double		fsum;			/* float sum, min or max; avg Sx */
	double		sxx;			/* avg of floats: float8_accum's Sxx */
	Datum		spill;			/* decimal sum beyond int128, numeric */
	bool		has_spill;
} PfAggState;

/* ----------------------------------------------------------------
 * Compilation (shared by planning and executor start)
 * ----------------------------------------------------------------
 */

typedef struct PfCompile
{
	Relation	rel;
	Index		relid;			/* the base relation's range table index */
	PfAggProgram *prog;
	List	   *cols;			/* PfAggCol *, while compiling */
	List	   *exprs;			/* PfAggExpr *: each distinct one once */
} PfCompile;

/* Decimal precision and scale of a numeric typmod, false without one. */
static bool
numeric_typmod_parts(int32 typmod, int *precision, int *scale)
{
	if (typmod < (int32) VARHDRSZ)
		return false;
	*precision = ((typmod - VARHDRSZ) >> 16) & 0xffff;
	*scale = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;
	return *precision >= 1 && *precision <= 38 && *scale >= 0 &&
		*scale <= *precision;
}

/* The column index of attribute attnum, added when new; -1 if unsupported. */
static int
compile_column(PfCompile *c, Var *var)
{
	Form_pg_attribute attr;
	PfAggCol   *col;
	ListCell   *lc;

	if (!IsA(var, Var) || (c->relid != 0 && var->varno != c->relid) ||
		var->varlevelsup != 0 ||
		var->varattno <= 0 ||
		var->varattno > RelationGetDescr(c->rel)->natts)
		return -1;
	foreach(lc, c->cols)
		if (((PfAggCol *) lfirst(lc))->attnum == var->varattno)
			return foreach_current_index(lc);

	attr = TupleDescAttr(RelationGetDescr(c->rel), var->varattno - 1);
	if (attr->attisdropped || attr->atttypid != var->vartype)
		return -1;
	col = palloc0(sizeof(PfAggCol));
	col->attnum = var->varattno;
	col->attname = pstrdup(NameStr(attr->attname));
	col->field_name = pf_get_column_name(RelationGetRelid(c->rel), col->attnum);
	col->typid = attr->atttypid;
	col->typmod = attr->atttypmod;
	switch (attr->atttypid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			col->kind = PF_COL_INT;
			break;
		case FLOAT4OID:
			col->kind = PF_COL_F4;
			break;
		case FLOAT8OID:
			col->kind = PF_COL_F8;
			break;
		case NUMERICOID:
			/* the typmod must match the files' DECIMAL, checked per file */
			if (!numeric_typmod_parts(attr->atttypmod, &col->precision,
									  &col->scale))
				return -1;
			col->kind = PF_COL_DEC;
			break;
		case DATEOID:
			col->kind = PF_COL_DATE;
			break;
		case TEXTOID:
			/* file bytes are UTF-8: they must be the database's bytes */
			if (GetDatabaseEncoding() != PG_UTF8 &&
				GetDatabaseEncoding() != PG_SQL_ASCII)
				return -1;
			col->kind = PF_COL_TEXT;
			break;
		case BOOLOID:
			col->kind = PF_COL_BOOL;
			break;
		default:
			return -1;
	}
	c->cols = lappend(c->cols, col);
	return list_length(c->cols) - 1;
}

static PfAggCol *
get_col(PfCompile *c, int i)
{
	return (PfAggCol *) list_nth(c->cols, i);
}

/* A numeric constant as an unscaled int128 and its display scale. */
static bool
numeric_const_parts(Datum d, int128_t *value, int *scale)
{
	Numeric		num = DatumGetNumeric(d);
	char	   *s;
	bool		neg = false;
	bool		frac = false;
	int			ndigits = 0;
	int128_t	acc = 0;
	int			sc = 0;

	if (numeric_is_nan(num) || numeric_is_inf(num))
		return false;
	s = DatumGetCString(DirectFunctionCall1(numeric_out, d));
	if (*s == '-')
	{
		neg = true;
		s++;
	}
	for (; *s; s++)
	{
		if (*s == '.')
		{
			frac = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			return false;
		if (acc != 0 || *s != '0')
			ndigits++;
		if (ndigits > 38)	/* 10^38 - 1 < 2^127 */
			return false;
		acc = acc * 10 + (*s - '0');
		if (frac)
			sc++;
	}
	*value = neg ? -acc : acc;
	*scale = sc;
	return true;
}

static int128_t
pow10_128(int n)
{
	int128_t	r = 1;

	while (n-- > 0)
		r *= 10;
	return r;
}

/* Is opno the builtin "+", "-" or "*"?  Which one. */
static PfExprOp
arith_op(Oid opno)
{
	HeapTuple	tup;
	Form_pg_operator form;
	PfExprOp	result = PF_EXPR_COL;

	tup = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
	if (!HeapTupleIsValid(tup))
		return PF_EXPR_COL;
	form = (Form_pg_operator) GETSTRUCT(tup);
	if (form->oprnamespace == PG_CATALOG_NAMESPACE && form->oprkind == 'b')
	{
		if (strcmp(NameStr(form->oprname), "+") == 0)
			result = PF_EXPR_ADD;
		else if (strcmp(NameStr(form->oprname), "-") == 0)
			result = PF_EXPR_SUB;
		else if (strcmp(NameStr(form->oprname), "*") == 0)
			result = PF_EXPR_MUL;
	}
	ReleaseSysCache(tup);
	return result;
}

static PfNum
num_of_type(Oid type)
{
	switch (type)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return PF_NUM_INT;
		case NUMERICOID:
			return PF_NUM_DEC;
		case FLOAT4OID:
			return PF_NUM_F4;
		case FLOAT8OID:
			return PF_NUM_F8;
		case DATEOID:
			return PF_NUM_DATE;
		default:
			return PF_NUM_OTHER;
	}
}

static PfAggExpr *compile_expr_node(PfCompile *c, Expr *expr, bool arithmetic);
static inline int64 le_int64(const uint8 *p, uint32 len);
static Datum int128_to_numeric(int128_t v, int scale);

/*
 * Compile an expression, sharing the node of an identical one compiled
 * before (Q1's l_extendedprice * (1 - l_discount) appears twice, its
 * columns four times): each is then evaluated once per batch.
 */
static PfAggExpr *
compile_expr(PfCompile *c, Expr *expr, bool arithmetic)
{
	PfAggExpr  *e = compile_expr_node(c, expr, arithmetic);
	ListCell   *lc;

	if (e == NULL)
		return NULL;
	foreach(lc, c->exprs)
	{
		PfAggExpr  *o = (PfAggExpr *) lfirst(lc);

		if (o->op == e->op && o->num == e->num && o->type == e->type &&
			o->scale == e->scale && o->left == e->left &&
			o->right == e->right &&
			(e->op == PF_EXPR_COL ? o->col == e->col :
			 e->op == PF_EXPR_CONST ? (o->ival == e->ival && o->dval == e->dval &&
									   memcmp(&o->fval, &e->fval, sizeof(double)) == 0) :
			 true))
		{
			pfree(e);
			return o;
		}
	}
	c->exprs = lappend(c->exprs, e);
	return e;
}

/*
 * Compile an aggregate argument: a column, or + - * of columns and
 * constants of one family (integers, numeric or floats).  NULL when the
 * scan cannot evaluate it exactly as PostgreSQL would.
 */
static PfAggExpr *
compile_expr_node(PfCompile *c, Expr *expr, bool arithmetic)
{
	PfAggExpr  *e = palloc0(sizeof(PfAggExpr));

	e->type = exprType((Node *) expr);
	e->num = num_of_type(e->type);
	if (IsA(expr, Var))
	{
		PfAggCol   *col;

		e->op = PF_EXPR_COL;
		e->col = compile_column(c, (Var *) expr);
		if (e->col < 0)
			return NULL;
		col = get_col(c, e->col);
		if (col->kind == PF_COL_DEC)
			e->scale = col->scale;
		if (arithmetic && e->num != PF_NUM_INT && e->num != PF_NUM_DEC &&
			e->num != PF_NUM_F4 && e->num != PF_NUM_F8)
			return NULL;
		return e;
	}
	if (IsA(expr, Const))
	{
		Const	   *k = (Const *) expr;

		e->op = PF_EXPR_CONST;
		if (k->constisnull || !arithmetic)
			return NULL;
		switch (k->consttype)
		{
			case INT2OID:
				e->ival = DatumGetInt16(k->constvalue);
				return e;
			case INT4OID:
				e->ival = DatumGetInt32(k->constvalue);
				return e;
			case INT8OID:
				e->ival = DatumGetInt64(k->constvalue);
				return e;
			case FLOAT4OID:
				e->fval = DatumGetFloat4(k->constvalue);
				return e;
			case FLOAT8OID:
				e->fval = DatumGetFloat8(k->constvalue);
				return e;
			case NUMERICOID:
				if (!numeric_const_parts(k->constvalue, &e->dval, &e->scale))
					return NULL;
				return e;
			default:
				return NULL;
		}
	}
	if (IsA(expr, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) expr;
		Oid			lt;
		Oid			rt;

		if (list_length(op->args) != 2 || op->opretset)
			return NULL;
		e->op = arith_op(op->opno);
		if (e->op == PF_EXPR_COL)
			return NULL;
		lt = exprType(linitial(op->args));
		rt = exprType(lsecond(op->args));
		/* one family: builtin operators of that family only */
		if (e->num == PF_NUM_OTHER || e->num == PF_NUM_DATE)
			return NULL;
		/* float8 operators also take float4 operands (exact in double) */
		if (e->num == PF_NUM_F8 ?
			!((num_of_type(lt) == PF_NUM_F4 || num_of_type(lt) == PF_NUM_F8) &&
			  (num_of_type(rt) == PF_NUM_F4 || num_of_type(rt) == PF_NUM_F8)) :
			(num_of_type(lt) != e->num || num_of_type(rt) != e->num))
			return NULL;
		e->left = compile_expr(c, linitial(op->args), true);
		e->right = compile_expr(c, lsecond(op->args), true);
		if (e->left == NULL || e->right == NULL)
			return NULL;
		if (e->num == PF_NUM_DEC)
		{
			if (e->op == PF_EXPR_MUL)
				e->scale = e->left->scale + e->right->scale;
			else
				e->scale = Max(e->left->scale, e->right->scale);
			/* numeric_mul's display scale stays below this */
			if (e->scale > 38)
				return NULL;
		}
		/* a constant-only subtree would have been folded by the planner */
		if (e->left->op == PF_EXPR_CONST && e->right->op == PF_EXPR_CONST)
			return NULL;
		return e;
	}
	return NULL;
}

/* A Var under a collation-only relabeling is the Var. */
static Node *
strip_relabel(Node *node)
{
	if (node && IsA(node, RelabelType) &&
		IsA(((RelabelType *) node)->arg, Var) &&
		((RelabelType *) node)->resulttype ==
		((Var *) ((RelabelType *) node)->arg)->vartype)
		return (Node *) ((RelabelType *) node)->arg;
	return node;
}

/* Can a filter of column col compare with a value of type valtype? */
static bool
filter_type_ok(const PfAggFilter *f, const PfAggCol *col, Oid valtype)
{
	int			strategy = f->orig_strategy;

	switch (col->kind)
	{
		case PF_COL_INT:
			return valtype == INT2OID || valtype == INT4OID || valtype == INT8OID;
		case PF_COL_DATE:
			return valtype == DATEOID;
		case PF_COL_DEC:
			return valtype == NUMERICOID;
		case PF_COL_F4:
		case PF_COL_F8:
			return valtype == FLOAT4OID || valtype == FLOAT8OID;
		case PF_COL_TEXT:
			/* equality is byte equality under a deterministic collation */
			return valtype == TEXTOID && OidIsValid(f->inputcollid) &&
				(pf_collate_is_c(f->inputcollid) ||
				 ((strategy == BTEqualStrategyNumber ||
				   strategy == PF_NOT_EQUAL_STRATEGY) &&
				  get_collation_isdeterministic(f->inputcollid)));
		case PF_COL_BOOL:
			return valtype == BOOLOID;
	}
	return false;
}

/*
 * Set filter f's value (of type valtype) for column col, normalized to the
 * column's raw domain.  Called at planning for constants and at each
 * (re)scan for parameters.  False when the type cannot be evaluated exactly
 * (then the planner keeps the ordinary plan).
 */
static bool
filter_set_value(PfAggFilter *f, const PfAggCol *col, Oid valtype,
				 Datum value, bool isnull)
{
	int			strategy = f->orig_strategy;

	f->strategy = strategy;
	f->never = false;
	f->any_not_null = false;
	if (!filter_type_ok(f, col, valtype))
		return false;
	if (isnull)
	{
		f->never = true;		/* a comparison with NULL is never true */
		return true;
	}
	switch (col->kind)
	{
		case PF_COL_INT:
			switch (valtype)
			{
				case INT2OID:
					f->ival = DatumGetInt16(value);
					return true;
				case INT4OID:
					f->ival = DatumGetInt32(value);
					return true;
				case INT8OID:
					f->ival = DatumGetInt64(value);
					return true;
				default:
					return false;
			}
		case PF_COL_DATE:
			{
				DateADT		d;

				if (valtype != DATEOID)
					return false;
				d = DatumGetDateADT(value);
				/* infinities: beyond every date a file can hold */
				if (DATE_IS_NOBEGIN(d))
					f->ival = (int128_t) PG_INT64_MIN;
				else if (DATE_IS_NOEND(d))
					f->ival = (int128_t) PG_INT64_MAX;
				else
					f->ival = (int128_t) d + PF_AGG_EPOCH_DAYS;
				return true;
			}
		case PF_COL_DEC:
			{
				int128_t	v = 0;
				int			cscale;
				Numeric		num = DatumGetNumeric(value);
				Datum		scaled;
				Datum		fl;
				bool		exact;
				bool		beyond = false;
				bool		above = false;

				if (valtype != NUMERICOID)
					return false;

				/*
				 * The column holds integers x at its scale: compare them with
				 * value * 10^scale, through its floor when not integral.
				 * NaN is above every number; infinities, and values too large
				 * for int128, are beyond every column value.
				 */
				if (numeric_is_nan(num) || numeric_is_inf(num))
				{
					beyond = true;
					above = numeric_is_nan(num) ||
						DatumGetBool(DirectFunctionCall2(numeric_gt, value,
														 NumericGetDatum(int64_to_numeric(0))));
					exact = true;
				}
				else
				{
					scaled = DirectFunctionCall2(numeric_mul, value,
												 int128_to_numeric(pow10_128(col->scale), 0));
					fl = DirectFunctionCall1(numeric_floor, scaled);
					exact = DatumGetBool(DirectFunctionCall2(numeric_eq, fl, scaled));
					if (!numeric_const_parts(fl, &v, &cscale) || cscale != 0)
					{
						beyond = true;
						above = DatumGetBool(DirectFunctionCall2(numeric_gt, fl,
																 NumericGetDatum(int64_to_numeric(0))));
					}
				}
				if (beyond)
				{
					switch (strategy)
					{
						case BTLessStrategyNumber:
						case BTLessEqualStrategyNumber:
							if (above)
								f->any_not_null = true;
							else
								f->never = true;
							break;
						case BTEqualStrategyNumber:
							f->never = true;
							break;
						case PF_NOT_EQUAL_STRATEGY:
							f->any_not_null = true;
							break;
						default:
							if (above)
								f->never = true;
							else
								f->any_not_null = true;
							break;
					}
					return true;
				}
				f->ival = v;
				if (!exact)
				{
					/* x against a value strictly between fl and fl + 1 */
					switch (strategy)
					{
						case BTLessStrategyNumber:
							f->strategy = BTLessEqualStrategyNumber;
							break;
						case BTGreaterEqualStrategyNumber:
							f->strategy = BTGreaterStrategyNumber;
							break;
						case BTEqualStrategyNumber:
							f->never = true;
							break;
						case PF_NOT_EQUAL_STRATEGY:
							f->any_not_null = true;
							break;
						default:
							break;	/* <= and > keep the floor */
					}
				}
				return true;
			}
		case PF_COL_F4:
		case PF_COL_F8:
			if (valtype == FLOAT4OID)
				f->fval = DatumGetFloat4(value);
			else if (valtype == FLOAT8OID)
				f->fval = DatumGetFloat8(value);
			else
				return false;
			return true;
		case PF_COL_TEXT:
			{
				text	   *t;

				if (valtype != TEXTOID || !OidIsValid(f->inputcollid))
					return false;
				/* equality is byte equality under a deterministic collation */
				if (!pf_collate_is_c(f->inputcollid) &&
					!((strategy == BTEqualStrategyNumber ||
					   strategy == PF_NOT_EQUAL_STRATEGY) &&
					  get_collation_isdeterministic(f->inputcollid)))
					return false;
				t = DatumGetTextPP(value);
				f->len = VARSIZE_ANY_EXHDR(t);
				f->bytes = palloc(f->len + 1);
				memcpy(f->bytes, VARDATA_ANY(t), f->len);
				return true;
			}
		case PF_COL_BOOL:
			if (valtype != BOOLOID)
				return false;
			f->bval = DatumGetBool(value);
			return true;
	}
	return false;
}

/*
 * Set filter f from its qual's same-type form (pf_qual_set_value computed
 * it with the value): the bound of an exact comparison in the column's own
 * type, or "every non-null row" / "no row".  False when the column kind
 * cannot evaluate that form.
 */
static bool
filter_set_from_qual(PfAggFilter *f, const PfAggCol *col)
{
	PfQual	   *q = f->qual;

	switch (q->norm)
	{
		case PF_NORM_CMP:
			f->orig_strategy = q->norm_strategy;
			return filter_set_value(f, col, q->norm_type, q->norm_value, false);
		case PF_NORM_ALWAYS:
		case PF_NORM_NEVER:
			f->strategy = f->orig_strategy = q->strategy;
			f->any_not_null = q->norm == PF_NORM_ALWAYS;
			f->never = q->norm == PF_NORM_NEVER;
			return true;
		case PF_NORM_NONE:
			break;
	}
	return false;
}

/*
 * Set an IN filter's elements from its qual's same-type form: each an
 * equality filter; NULL elements, and elements no column value can equal,
 * match nothing.
 */
static bool
filter_set_in_from_qual(PfAggFilter *f, const PfAggCol *col)
{
	PfQual	   *q = f->qual;

	f->nvals = 0;
	f->never = false;
	if (q->norm == PF_NORM_NONE)
		return false;
	f->vals = palloc0(sizeof(PfAggFilter) * Max(1, q->norm_num_elems));
	for (int i = 0; i < q->norm_num_elems; i++)
	{
		PfAggFilter *v = &f->vals[f->nvals];

		v->col = f->col;
		v->strategy = v->orig_strategy = BTEqualStrategyNumber;
		v->inputcollid = q->collation;
		if (!filter_set_value(v, col, q->norm_type, q->norm_elems[i], false))
			return false;
		if (!v->never)
			f->nvals++;
	}
	f->never = (f->nvals == 0);
	return true;
}

/* The operator's name as the clause reads, the column on the left. */
static char *
filter_op_name(Expr *clause, PfQual *q)
{
	OpExpr	   *op = (OpExpr *) clause;
	Oid			opno = op->opno;

	if (q->expr == linitial(op->args))
		opno = get_commutator(opno);
	return get_opname(opno);
}

/* The value's text for EXPLAIN: a literal, a parameter or an expression. */
static char *
filter_value_text(Expr *value)
{
	Oid			outfn;
	bool		isvarlena;
	Const	   *k = (Const *) value;

	if (IsA(value, Param))
		return psprintf("$%d", ((Param *) value)->paramid);
	if (!IsA(value, Const))
		return "(parameter expression)";
	if (k->constisnull)
		return "NULL";
	getTypeOutputInfo(k->consttype, &outfn, &isvarlena);
	return quote_literal_cstr(OidOutputFunctionCall(outfn, k->constvalue));
}

/*
 * Compile a restriction into a filter on the raw values, from the one
 * analyzer's form (qual.c); false when the scan cannot evaluate it
 * exactly (then the planner keeps the ordinary plan).
 */
static bool
compile_filter(PfCompile *c, Expr *clause, PfAggFilter *f)
{
	PfQual	   *q = pf_qual_classify((Node *) clause, c->relid);
	Var		   *var;
	PfAggCol   *col;
	const char *name;

	/* AND/OR trees and LIKE ranges prune row groups; rows need more */
	if (q == NULL || q->is_bool || q->prune_only)
		return false;
	var = makeVar(c->relid, q->attnum, q->coltype, -1, InvalidOid, 0);
	f->col = compile_column(c, var);
	if (f->col < 0)
		return false;
	col = get_col(c, f->col);
	name = quote_identifier(col->attname);
	f->qual = q;
	f->inputcollid = q->collation;

	if (q->is_null_test)
	{
		f->kind = q->null_test == IS_NULL ? PF_FILTER_IS_NULL : PF_FILTER_NOT_NULL;
		f->text = psprintf("%s IS %sNULL", name,
						   q->null_test == IS_NULL ? "" : "NOT ");
		return true;
	}
	if (q->in_list)
	{
		f->kind = PF_FILTER_IN;
		f->strategy = f->orig_strategy = BTEqualStrategyNumber;
		f->valtype = pf_qual_same_type(q);
		if (!OidIsValid(f->valtype) || !filter_type_ok(f, col, f->valtype))
			return false;
		if (!q->value_known)
		{
			f->param_expr = q->expr;
			f->text = psprintf("%s = ANY (%s)", name, filter_value_text(q->expr));
			return true;
		}
		if (((Const *) q->expr)->constisnull)
			f->text = psprintf("%s = ANY (NULL)", name);
		else
			f->text = psprintf("%s IN (%d values)", name,
							   ArrayGetNItems(ARR_NDIM(DatumGetArrayTypeP(q->value)),
											  ARR_DIMS(DatumGetArrayTypeP(q->value))));
		return filter_set_in_from_qual(f, col);
	}

	f->strategy = f->orig_strategy = q->strategy;
	if (IsA(clause, OpExpr))
		f->text = psprintf("%s %s %s", name, filter_op_name(clause, q),
						   filter_value_text(q->expr));
	else if (q->cmpproc == F_BTBOOLCMP)
		f->text = psprintf("%s%s", DatumGetBool(q->value) ? "" : "NOT ", name);
	else
		return false;			/* NOT (x op v): left to PostgreSQL */
	if (q->value_known)
		return filter_set_from_qual(f, col);

	/* known at each (re)scan: the form's type must be one the column takes */
	f->valtype = pf_qual_same_type(q);
	f->param_expr = q->expr;
	return OidIsValid(f->valtype) && filter_type_ok(f, col, f->valtype);
}


/* Compile one Aggref; NULL when not supported. */
static bool
compile_aggref(PfCompile *c, Aggref *agg, PfAggDef *def)
{
	char	   *name;
	Oid			argtype = InvalidOid;
	Expr	   *arg = NULL;

	if (agg->aggfilter != NULL || agg->aggdistinct != NIL ||
		agg->aggorder != NIL || agg->aggdirectargs != NIL ||
		agg->aggkind != AGGKIND_NORMAL || agg->agglevelsup != 0 ||
		agg->aggsplit != AGGSPLIT_SIMPLE || agg->aggvariadic)
		return false;
	if (get_func_namespace(agg->aggfnoid) != PG_CATALOG_NAMESPACE)
		return false;
	name = get_func_name(agg->aggfnoid);
	if (name == NULL)
		return false;
	def->restype = agg->aggtype;
	if (agg->aggstar)
	{
		if (strcmp(name, "count") != 0 || agg->args != NIL)
			return false;
		def->kind = PF_AGG_COUNT_STAR;
		def->from_stats = true;
		return true;
	}
	if (list_length(agg->args) != 1)
		return false;
	arg = ((TargetEntry *) linitial(agg->args))->expr;
	arg = (Expr *) strip_relabel((Node *) arg);
	argtype = exprType((Node *) arg);
	def->argtype = argtype;

	if (strcmp(name, "count") == 0)
	{
		def->kind = PF_AGG_COUNT;
		def->arg = compile_expr(c, arg, false);
		if (def->arg == NULL)
			def->arg = compile_expr(c, arg, true);
		if (def->arg == NULL)
			return false;
		def->from_stats = def->arg->op == PF_EXPR_COL;
		return true;
	}
	if (strcmp(name, "sum") == 0)
		def->kind = PF_AGG_SUM;
	else if (strcmp(name, "avg") == 0)
		def->kind = PF_AGG_AVG;
	else if (strcmp(name, "min") == 0)
		def->kind = PF_AGG_MIN;
	else if (strcmp(name, "max") == 0)
		def->kind = PF_AGG_MAX;
	else
		return false;

	/* the result types this code computes */
	switch (def->kind)
	{
		case PF_AGG_SUM:
			if (!((argtype == INT2OID || argtype == INT4OID) ? def->restype == INT8OID :
				  argtype == INT8OID ? def->restype == NUMERICOID :
				  (argtype == FLOAT4OID || argtype == FLOAT8OID ||
				   argtype == NUMERICOID) ? def->restype == argtype : false))
				return false;
			break;
		case PF_AGG_AVG:
			if (!((argtype == INT2OID || argtype == INT4OID ||
				   argtype == INT8OID || argtype == NUMERICOID) ?
				  def->restype == NUMERICOID :
				  (argtype == FLOAT4OID || argtype == FLOAT8OID) ?
				  def->restype == FLOAT8OID : false))
				return false;
			break;
		default:
			/* min, max: a bare column, of a type compared as numbers */
			if (!IsA(arg, Var) || def->restype != argtype ||
				!(argtype == INT2OID || argtype == INT4OID ||
				  argtype == INT8OID || argtype == FLOAT4OID ||
				  argtype == FLOAT8OID || argtype == NUMERICOID ||
				  argtype == DATEOID))
				return false;
			break;
	}
	def->arg = compile_expr(c, arg, def->kind == PF_AGG_SUM ||
							def->kind == PF_AGG_AVG);
	if (def->arg == NULL)
		return false;
	if ((def->kind == PF_AGG_MIN || def->kind == PF_AGG_MAX) &&
		(def->arg->num == PF_NUM_INT || def->arg->num == PF_NUM_DATE ||
		 def->arg->num == PF_NUM_DEC))
		def->from_stats = true;
	return true;
}

/*
 * Compile the whole query: restrictions (Expr list), group columns (Var
 * list) and the scan target list (group Vars and Aggrefs).  Returns NULL
 * when something cannot be pushed down.
 */
static PfAggProgram *
compile_program(Relation rel, Index relid, List *quals, List *group_vars,
				List *scan_tlist)
{
	PfCompile	c;
	PfAggProgram *prog = palloc0(sizeof(PfAggProgram));
	List	   *aggs = NIL;
	ListCell   *lc;
	int			i;

	memset(&c, 0, sizeof(c));
	c.rel = rel;
	c.relid = relid;
	c.prog = prog;

	prog->nfilters = list_length(quals);
	prog->filters = palloc0(sizeof(PfAggFilter) * Max(1, prog->nfilters));
	foreach(lc, quals)
		if (!compile_filter(&c, (Expr *) lfirst(lc),
							&prog->filters[foreach_current_index(lc)]))
			return NULL;

	prog->nkeys = list_length(group_vars);
	prog->key_cols = palloc0(sizeof(int) * Max(1, prog->nkeys));
	foreach(lc, group_vars)
	{
		Var		   *var = (Var *) lfirst(lc);
		int			ci = compile_column(&c, var);
		PfAggCol   *col;

		if (ci < 0)
			return NULL;
		col = get_col(&c, ci);
		if (col->kind != PF_COL_INT && col->kind != PF_COL_TEXT &&
			col->kind != PF_COL_BOOL && col->kind != PF_COL_DATE)
			return NULL;
		/* grouping text by bytes needs a deterministic collation */
		if (col->kind == PF_COL_TEXT && OidIsValid(var->varcollid) &&
			!get_collation_isdeterministic(var->varcollid))
			return NULL;
		prog->key_cols[foreach_current_index(lc)] = ci;
	}

	prog->nouts = list_length(scan_tlist);
	prog->outs = palloc0(sizeof(PfAggOut) * Max(1, prog->nouts));
	foreach(lc, scan_tlist)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);
		PfAggOut   *out = &prog->outs[foreach_current_index(lc)];

		out->type = exprType((Node *) tle->expr);
		if (IsA(tle->expr, Var))
		{
			ListCell   *lg;

			out->is_key = true;
			out->index = -1;
			/* by attribute: setrefs renumbered the tlist's Vars only */
			foreach(lg, group_vars)
				if (((Var *) lfirst(lg))->varattno == ((Var *) tle->expr)->varattno)
					out->index = foreach_current_index(lg);
			if (out->index < 0)
				return NULL;
		}
		else if (IsA(tle->expr, Aggref))
		{
			out->is_key = false;
			out->index = list_length(aggs);
			aggs = lappend(aggs, tle->expr);
		}
		else
			return NULL;
	}

	prog->naggs = list_length(aggs);
	prog->aggs = palloc0(sizeof(PfAggDef) * Max(1, prog->naggs));
	prog->all_from_stats = (prog->nfilters == 0 && prog->nkeys == 0);
	foreach(lc, aggs)
	{
		PfAggDef   *def = &prog->aggs[foreach_current_index(lc)];

		if (!compile_aggref(&c, (Aggref *) lfirst(lc), def))
			return NULL;
		if (!def->from_stats)
			prog->all_from_stats = false;
	}

	prog->ncols = list_length(c.cols);
	prog->cols = palloc0(sizeof(PfAggCol) * Max(1, prog->ncols));
	i = 0;
	foreach(lc, c.cols)
		prog->cols[i++] = *(PfAggCol *) lfirst(lc);
	return prog;
}

/*
 * Does a file's field hold what the program expects of column col: a flat
 * leaf whose default type is the declared type, in a physical type the
 * vector code reads?  Sets col->phys and flba_len.
 */
static bool
field_fits(const PqFileMeta *meta, const PqSchemaNode *field, PfAggCol *col)
{
	Oid			deftyp;
	int32		defmod;
	const PqLogicalType *lt;

	if (field == NULL)
		return true;			/* missing: null (missing_columns 'null') */
	if (!field->is_leaf || field->leaf_index < 0 ||
		field->leaf_index >= meta->num_leaves ||
		meta->leaves[field->leaf_index].max_rep != 0)
		return false;
	pf_default_type(field, &deftyp, &defmod);
	if (deftyp != col->typid)
		return false;
	if (col->kind == PF_COL_DEC ? defmod != col->typmod :
		(col->typmod != -1 && col->typmod != defmod))
		return false;
	lt = &field->logical;
	col->phys = field->physical;
	col->flba_len = field->type_length;
	switch (col->kind)
	{
		case PF_COL_INT:
			if (lt->kind == PQ_LT_INTEGER && !lt->is_signed)
				return false;
			return field->physical == (col->typid == INT8OID ? PQ_INT64 : PQ_INT32);
		case PF_COL_DEC:
			return field->physical == PQ_INT32 || field->physical == PQ_INT64 ||
				(field->physical == PQ_FIXED_LEN_BYTE_ARRAY &&
				 field->type_length >= 1 && field->type_length <= 16);
		case PF_COL_F4:
			return field->physical == PQ_FLOAT;
		case PF_COL_F8:
			return field->physical == PQ_DOUBLE;
		case PF_COL_DATE:
			return field->physical == PQ_INT32;
		case PF_COL_TEXT:
			return field->physical == PQ_BYTE_ARRAY &&
				(lt->kind == PQ_LT_STRING || lt->kind == PQ_LT_ENUM);
		case PF_COL_BOOL:
			return field->physical == PQ_BOOLEAN;
	}
	return false;
}

/* ----------------------------------------------------------------
 * Planning
 * ----------------------------------------------------------------
 */

/*
 * Might a column be virtual (the file's path, or a "key=value" folder of a
 * hive-partitioned path)?  Those are not in the files: no pushdown.
 */
static bool
has_virtual_columns(Relation rel, PfAggProgram *prog, List *filenames)
{
	ListCell   *lc;

	for (int i = 0; i < prog->ncols; i++)
	{
		List	   *options = GetForeignColumnOptions(RelationGetRelid(rel),
													  prog->cols[i].attnum);

		foreach(lc, options)
			if (strcmp(((DefElem *) lfirst(lc))->defname, "filename_column") == 0)
				return true;
	}
	foreach(lc, filenames)
	{
		const char *path = (const char *) lfirst(lc);
		const char *slash = strrchr(path, '/');

		/* an '=' in a folder name */
		if (slash != NULL && memchr(path, '=', slash - path) != NULL)
			return true;
	}
	return false;
}

/*
 * An expression over the grouped rows (target list entry or HAVING clause):
 * its Aggrefs join the scan's target list; any column outside them must be
 * a group column.  False when the expression cannot sit above the scan.
 */
static bool
add_upper_expr(Node *expr, List *group_vars, List **scan_tlist)
{
	List	   *vars;
	ListCell   *lv;

	if (contain_volatile_functions(expr))
		return false;
	vars = pull_var_clause(expr, PVC_INCLUDE_AGGREGATES |
						   PVC_INCLUDE_WINDOWFUNCS |
						   PVC_INCLUDE_PLACEHOLDERS);
	foreach(lv, vars)
	{
		Node	   *v = (Node *) lfirst(lv);

		if (IsA(v, Var))
		{
			if (!list_member(group_vars, v))
				return false;
		}
		else if (IsA(v, Aggref))
			*scan_tlist = add_to_flat_tlist(*scan_tlist, list_make1(v));
		else
			return false;
	}
	return true;
}

/*
 * Is column ci an integer or date group key whose values, by the planned
 * row groups' statistics (folded into *min and *max across files), span
 * more than PF_AGG_MAX_GROUPS?  The planner's estimate of the groups is a
 * guess without ANALYZE statistics (200 per column), and a GROUP BY of a
 * key column would then be pushed down and outgrow memory.
 */
static bool
key_range_too_wide(PfAggProgram *prog, int ci, const PqFileMeta *meta,
				   const PqSchemaNode *field, List *rowgroups,
				   int64 *min, int64 *max)
{
	const PfAggCol *col = &prog->cols[ci];
	bool		is_key = false;
	int			width;
	ListCell   *lc;

	for (int k = 0; k < prog->nkeys; k++)
		if (prog->key_cols[k] == ci)
			is_key = true;
	if (!is_key || (col->kind != PF_COL_INT && col->kind != PF_COL_DATE))
		return false;
	width = field->physical == PQ_INT32 ? 4 : field->physical == PQ_INT64 ? 8 : 0;
	if (width == 0)
		return false;
	foreach(lc, rowgroups)
	{
		int			rg = lfirst_int(lc);
		const PqColumnChunkMeta *chunk;
		const PqStatistics *s;
		int64		lo;
		int64		hi;

		if (rg < 0 || rg >= meta->num_row_groups ||
			field->leaf_index >= meta->row_groups[rg].num_columns)
			continue;
		chunk = &meta->row_groups[rg].columns[field->leaf_index];
		s = &chunk->statistics;
		if (!chunk->has_statistics || !s->has_min || !s->has_max ||
			s->min_len != (uint32) width || s->max_len != (uint32) width)
			continue;			/* unknown: no decision */
		lo = le_int64(s->min, s->min_len);
		hi = le_int64(s->max, s->max_len);
		*min = Min(*min, lo);
		*max = Max(*max, hi);
	}
	return *max >= *min &&
		(uint64) *max - (uint64) *min >= (uint64) PF_AGG_MAX_GROUPS;
}

/* Is the relation one scan.c planned (a Parquet table, not a shard)? */
static bool
is_parquet_baserel(RelOptInfo *rel)
{
	return rel->reloptkind == RELOPT_BASEREL && rel->rtekind == RTE_RELATION &&
		rel->fdw_private != NULL;
}

void
parquetGetForeignUpperPaths(PlannerInfo *root, UpperRelationKind stage,
							RelOptInfo *input_rel, RelOptInfo *output_rel,
							void *extra)
{
	Query	   *parse = root->parse;
	GroupPathExtraData *gextra = (GroupPathExtraData *) extra;
	PathTarget *target;
	PfPlanState *ps;
	RangeTblEntry *rte;
	Relation	rel;
	List	   *quals = NIL;
	List	   *group_vars = NIL;
	List	   *group_exprs = NIL;
	List	   *scan_tlist = NIL;
	List	   *having = NIL;
	PfAggProgram *prog;
	PfTableOptions *opts;
	int64	   *key_min;
	int64	   *key_max;
	double		ngroups = 1;
	double		rows;
	Cost		cost;
	ListCell   *lc;
	ForeignPath *path;

	if (!pf_enable_aggregate_pushdown || stage != UPPERREL_GROUP_AGG ||
		output_rel->fdw_private != NULL || !is_parquet_baserel(input_rel))
		return;
	if (parse->groupingSets || parse->hasTargetSRFs || gextra == NULL ||
		gextra->patype != PARTITIONWISE_AGGREGATE_NONE ||
		(!parse->hasAggs && parse->groupClause == NIL))
		return;
	ps = (PfPlanState *) input_rel->fdw_private;
	target = root->upper_targets[UPPERREL_GROUP_AGG];
	rte = planner_rt_fetch(input_rel->relid, root);
	if (rte->inh || ps->kind != PF_SCAN_PARQUET)
		return;

	/* every restriction must be evaluated by the scan itself */
	foreach(lc, input_rel->baserestrictinfo)
	{
		RestrictInfo *ri = (RestrictInfo *) lfirst(lc);

		if (ri->pseudoconstant)
			return;
		quals = lappend(quals, ri->clause);
	}

	/* group keys: plain columns */
	foreach(lc, parse->groupClause)
	{
		SortGroupClause *sgc = (SortGroupClause *) lfirst(lc);
		Expr	   *expr = (Expr *) get_sortgroupclause_expr(sgc, parse->targetList);

		if (!IsA(expr, Var))
			return;
		group_exprs = lappend(group_exprs, expr);
		if (!list_member(group_vars, expr))
			group_vars = lappend(group_vars, expr);
	}

	/*
	 * The scan returns the group columns and the aggregates; any expression
	 * over them is computed by the ForeignScan's projection.
	 */
	foreach(lc, group_vars)
		scan_tlist = add_to_flat_tlist(scan_tlist, list_make1(lfirst(lc)));
	foreach(lc, target->exprs)
		if (!add_upper_expr((Node *) lfirst(lc), group_vars, &scan_tlist))
			return;

	/* HAVING: evaluated by the ForeignScan over its output rows */
	if (root->hasHavingQual)
	{
		having = (List *) gextra->havingQual;
		foreach(lc, having)
			if (!add_upper_expr((Node *) lfirst(lc), group_vars, &scan_tlist))
				return;
	}

	rel = table_open(rte->relid, NoLock);
	prog = compile_program(rel, input_rel->relid, quals, group_vars, scan_tlist);
	if (prog == NULL)
	{
		table_close(rel, NoLock);
		return;
	}

	/* every file's fields must be of the shapes the vector code reads */
	opts = pf_get_table_options(rte->relid);
	if (has_virtual_columns(rel, prog, ps->filenames))
	{
		table_close(rel, NoLock);
		return;
	}
	key_min = palloc(sizeof(int64) * Max(1, prog->ncols));
	key_max = palloc(sizeof(int64) * Max(1, prog->ncols));
	for (int i = 0; i < prog->ncols; i++)
	{
		key_min[i] = PG_INT64_MAX;
		key_max[i] = PG_INT64_MIN;
	}
	for (int fi = 0; fi < list_length(ps->filenames); fi++)
	{
		const char *filename = (const char *) list_nth(ps->filenames, fi);
		MemoryContext tmp;
		MemoryContext old;
		PfFile	   *pf;
		bool		fits = true;

		/* a file whose row groups are all pruned is not read */
		if (list_nth(ps->rowgroups, fi) == NIL)
			continue;
		tmp = AllocSetContextCreate(CurrentMemoryContext,
									"parquet_fdw aggregate planning",
									ALLOCSET_DEFAULT_SIZES);
		old = MemoryContextSwitchTo(tmp);
		pf = pf_open_file(filename, tmp);

		for (int i = 0; i < prog->ncols && fits; i++)
		{
			const PqSchemaNode *field =
				pf_find_column_field(pf->meta, filename, rel, prog->cols[i].attname,
									 prog->cols[i].field_name,
									 opts->missing_columns_error);

			fits = field_fits(pf->meta, field, &prog->cols[i]);
			if (fits && field != NULL && key_range_too_wide(prog, i, pf->meta, field,
															(List *) list_nth(ps->rowgroups, fi),
															&key_min[i], &key_max[i]))
				fits = false;
		}
		pf_close_file(pf);
		MemoryContextSwitchTo(old);
		MemoryContextDelete(tmp);
		if (!fits)
		{
			table_close(rel, NoLock);
			return;
		}
	}
	table_close(rel, NoLock);

	/* few groups only: their states stay in memory */
	rows = Max(ps->total_rows, 1);
	if (group_exprs != NIL)
	{
		ngroups = estimate_num_groups(root, group_exprs, input_rel->rows,
									  NULL, NULL);
		if (ngroups > PF_AGG_MAX_GROUPS)
			return;
	}

	/*
	 * Cost: the base scan's reading and decoding, without forming a tuple
	 * per row, plus a little per row for the filters, keys and aggregates;
	 * answering from statistics costs about nothing.
	 */
	if (prog->all_from_stats)
		cost = seq_page_cost * list_length(ps->filenames);
	else
		cost = input_rel->cheapest_total_path->total_cost -
			cpu_tuple_cost * rows +
			cpu_operator_cost * 0.25 *
			(prog->nfilters + prog->nkeys + prog->naggs) * rows;
	cost = Max(cost, 0) + cpu_tuple_cost * ngroups;
	if (having != NIL)
		ngroups = clamp_row_est(ngroups *
								clauselist_selectivity(root, having, 0,
													   JOIN_INNER, NULL));

	output_rel->fdw_private = ps;	/* done for this rel */
	path = pf_create_foreign_upper_path(root, output_rel, target, ngroups,
									 cost, cost, NIL, NULL,
									 list_make5(scan_tlist, quals, group_vars,
												makeInteger((int) input_rel->relid),
												having));
	add_path(output_rel, (Path *) path);
}

/* fdw_private of the plan node */
enum PfAggPrivateIndex
{
	PfAggPrivateMarker,			/* String PF_AGG_MARKER */
	PfAggPrivateRelid,			/* Integer: foreign table OID */
	PfAggPrivateRti,			/* Integer: its range table index at plan time */
	PfAggPrivateFiles,			/* List of String */
	PfAggPrivateRowGroups,		/* List per file of List of Integer */
	PfAggPrivateTotalRowGroups, /* Integer */
	PfAggPrivateQuals,			/* List of Expr: the restrictions */
	PfAggPrivateGroupVars,		/* List of Var */
	PfAggPrivateTotalRows		/* String: rows of the planned row groups */
};

bool
pf_agg_is_pushed_plan(Plan *plan)
{
	ForeignScan *fs = (ForeignScan *) plan;

	return IsA(plan, ForeignScan) && fs->scan.scanrelid == 0 &&
		fs->fdw_private != NIL && IsA(linitial(fs->fdw_private), String) &&
		strcmp(strVal(linitial(fs->fdw_private)), PF_AGG_MARKER) == 0;
}

ForeignScan *
pf_agg_get_foreign_plan(PlannerInfo *root, RelOptInfo *upperrel,
						ForeignPath *best_path, List *tlist, Plan *outer_plan)
{
	PfPlanState *ps = (PfPlanState *) upperrel->fdw_private;
	List	   *path_private = best_path->fdw_private;
	List	   *scan_tlist = (List *) linitial(path_private);
	List	   *quals = (List *) lsecond(path_private);
	List	   *group_vars = (List *) lthird(path_private);
	List	   *param_exprs = NIL;
	List	   *files = NIL;
	Index		rti = (Index) intVal(lfourth(path_private));
	Oid			relid;
	List	   *fdw_private;
	ListCell   *lc;

	relid = planner_rt_fetch(rti, root)->relid;

	/*
	 * The values of filters on parameters go in fdw_exprs, in filter order:
	 * setrefs and the executor's parameter tracking see them there (a
	 * changed parameter rescans the node).
	 */
	foreach(lc, quals)
	{
		PfQual	   *q = pf_qual_classify((Node *) lfirst(lc), rti);

		/* as compile_filter: a comparison or IN whose value is not known yet */
		if (q != NULL && !q->is_bool && !q->is_null_test && !q->value_known)
			param_exprs = lappend(param_exprs, q->expr);
	}
	foreach(lc, ps->filenames)
		files = lappend(files, makeString(pstrdup((char *) lfirst(lc))));

	fdw_private = list_make4(makeString(pstrdup(PF_AGG_MARKER)),
							 makeInteger((int) relid), makeInteger((int) rti),
							 files);
	fdw_private = lappend(fdw_private, ps->rowgroups);
	fdw_private = lappend(fdw_private, makeInteger(ps->total_rowgroups));
	fdw_private = lappend(fdw_private, quals);
	fdw_private = lappend(fdw_private, group_vars);
	/* a String: a Float node of an integral value reads back as Integer */
	fdw_private = lappend(fdw_private,
						  makeString(psprintf("%.0f", ps->total_rows)));

	/* no scan relation: the output columns are fdw_scan_tlist's */
	/*
	 * HAVING is the plan's qual: setrefs turns its Aggrefs into references
	 * to the scan's output columns.
	 */
	return make_foreignscan(tlist, (List *) list_nth(path_private, 4), 0,
							param_exprs, fdw_private, scan_tlist, NIL,
							outer_plan);
}

/* ----------------------------------------------------------------
 * Execution
 * ----------------------------------------------------------------
 */

typedef struct PfAggScanState
{
	PfScanKind	kind;			/* PF_SCAN_AGGREGATE; first, see parquet_fdw.h */
	MemoryContext cxt;			/* the whole scan */
	MemoryContext file_cxt;		/* the open file; reset per file */
	MemoryContext rowgroup_cxt; /* column readers; reset per row group */
	MemoryContext group_cxt;	/* group keys and states */
	MemoryContext tmp_cxt;		/* output values, slow batches */

	Relation	rel;
	bool		missing_columns_error;
	bool		verify_checksums;	/* table option: page CRCs checked */
	List	   *filenames;		/* char * */
	List	   *rowgroups;		/* per file, List of Integer */
	int			total_rowgroups;
	double		total_rows;		/* rows of the planned row groups */
	PfAggProgram *prog;

	/* position, for the error context */
	int			file_index;
	const char *path;
	PfFile	   *file;
	int			rowgroup;
	const char *err_column;

	/* page buffers the column readers release, kept for the next pages */
	PfcBufferPool *page_pool;

	/* leaves of the current file */
	int			nslots;
	int		   *slot_leaf;
	PqColumnReader **readers;
	PqColumnBatch *batches;

	/* batch buffers */
	uint64		batch_seq;		/* number of the current batch, from 1 */
	uint32		batch_rows;
	uint32	   *identity;		/* 0, 1, 2, ... */
	uint32	   *sel;
	uint32	   *sel2;
	uint32	   *gid;
	uint32	  **codes;			/* per key */
	uint32	   *group_rows;		/* rows of the batch per group */
	uint32		group_rows_cap;
	bool	   *all_null;		/* a missing column's batch */
	uint8	   *zeros;
	PqColumnBatch missing_batch;

	/* groups */
	PfKeyDict  *dicts;
	uint32		ngroups;
	uint32		cap_groups;
	uint32	   *group_codes;	/* ngroups * nkeys */
	uint32	   *gtable;			/* nkeys > 1: open addressing, gid + 1 */
	uint32		gmask;
	uint32	   *gid_of_code;	/* nkeys == 1: by code, UINT32_MAX = none */
	uint32		cap_code;
	uint32	   *gid_of_pair;	/* nkeys == 2, both codes < PF_AGG_PAIR_CODES:
								 * group by code pair, UINT32_MAX = not yet */
	PfAggState *states;			/* cap_groups * naggs */

	/* filters on parameters: their values, evaluated at each (re)scan */
	List	   *param_states;	/* ExprState per parameter filter */
	MemoryContext param_cxt;
	ExprContext *param_econtext;

	/*
	 * Passes over key-hash partitions, when the groups outgrow memory: a
	 * pass aggregates the rows whose key hash has low part_bits bits equal
	 * to part_value.  A pass that overflows is dropped and split in four.
	 */
	int			part_bits;
	uint32		part_value;
	List	   *pending_parts;	/* (bits, value) Integer pairs still to do */
	bool		overflow;		/* this pass outgrew group_limit */
	Size		group_limit;	/* bytes of group_cxt allowed */
	uint32	   *row_hash;		/* per selected row */
	int64		pass_rows;		/* rows read by this pass so far */
	int64		passes;			/* for EXPLAIN ANALYZE */
	int64		groups_total;

	/* output */
	bool		computed;
	uint32		next_out;

	/* EXPLAIN ANALYZE */
	int64		rowgroups_read;
	int64		rowgroups_stats;
	int64		rowgroups_skipped;	/* by the filters' values and statistics */
	int64		bytes_read;		/* by the readers of closed row groups */
	bool		time_decoding;	/* EXPLAIN ANALYZE with timing */
	instr_time	decode_time;	/* in the format layer's readers */
	Size		peak_memory;
} PfAggScanState;

/* palloc with 16-byte alignment (int128 arrays). */
static void *
palloc16(MemoryContext cxt, Size size)
{
	char	   *p = MemoryContextAllocZero(cxt, size + 16);

	return (void *) TYPEALIGN(16, p);
}

static void
agg_error_callback(void *arg)
{
	PfAggScanState *st = (PfAggScanState *) arg;

	if (st->path == NULL)
		return;
	if (st->rowgroup >= 0 && st->err_column)
		errcontext("Parquet file \"%s\", row group %d, column \"%s\"",
				   st->path, st->rowgroup, st->err_column);
	else if (st->rowgroup >= 0)
		errcontext("Parquet file \"%s\", row group %d", st->path, st->rowgroup);
	else
		errcontext("Parquet file \"%s\"", st->path);
}

/* The scaled int128 as numeric with that display scale. */
static Datum
int128_to_numeric(int128_t v, int scale)
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

static inline int128_t
flba_to_int128(const uint8 *p, int len)
{
	uint128_t	u = (p[0] & 0x80) ? ~(uint128_t) 0 : 0;

	for (int i = 0; i < len; i++)
		u = (u << 8) | p[i];
	return (int128_t) u;
}

/* Allocate the per-batch buffers of an expression tree. */
static void
init_expr(PfAggScanState *st, PfAggExpr *e)
{
	uint32		n = st->batch_rows;

	if (e == NULL || e->i64 != NULL)
		return;					/* none, or shared and done */
	init_expr(st, e->left);
	init_expr(st, e->right);
	e->i64 = MemoryContextAllocZero(st->cxt, sizeof(int64) * n);
	e->i128 = palloc16(st->cxt, sizeof(int128_t) * n);
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

/* The batch of column col (a missing column reads as all null). */
static inline const PqColumnBatch *
col_batch(PfAggScanState *st, const PfAggCol *col)
{
	return col->missing ? &st->missing_batch : &st->batches[col->slot];
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
static void pg_attribute_noreturn()
date_out_of_range(const char *attname, int64 days, bool from_statistics)
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
							date_out_of_range(col->attname, e->i64[i], false);
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
					int64		lm = (int64) pow10_128(ls);
					int64		rm = (int64) pow10_128(rs);
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
					int128_t	lm = pow10_128(ls);
					int128_t	rm = pow10_128(rs);
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
		return int128_to_numeric(e->dval, e->scale);
	if (e->op == PF_EXPR_COL)
		return int128_to_numeric(e->wide ? e->i128[i] : e->i64[i], e->scale);
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

	spill_add(st, s, int128_to_numeric(s->isum, scale));
	s->isum = v;
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->tmp_cxt);
}

/* float8 comparison with NaN above everything, as float8_cmp_internal. */
static inline int
float_cmp(double a, double b)
{
	if (unlikely(isnan(a)))
		return isnan(b) ? 0 : 1;
	if (unlikely(isnan(b)))
		return -1;
	return (a > b) - (a < b);
}

/* Rows of the batch per group (st->group_rows), after assign_groups. */
static void
count_group_rows(PfAggScanState *st, uint32 n)
{
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

/* Accumulate aggregate a over the n selected rows with groups gid. */
static void
accumulate(PfAggScanState *st, int a, const uint32 *sel, uint32 n,
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

	if (def->kind == PF_AGG_COUNT_STAR)
	{
		if (prog->nkeys == 0)
			states->count += n;
		else
			for (uint32 g = 0; g < st->ngroups; g++)
				states[(size_t) g * naggs].count += st->group_rows[g];
		return;
	}

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
static uint32
apply_filter(PfAggScanState *st, const PfAggFilter *f, const uint32 *in,
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
			uint32		k = apply_filter(st, &f->vals[v], in, n, tmp);
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

/* ----------------------------------------------------------------
 * Groups
 * ----------------------------------------------------------------
 */

static inline uint32
hash_int64(int64 v)
{
	uint64		h = (uint64) v * UINT64CONST(0x9E3779B97F4A7C15);

	h ^= h >> 29;
	h *= UINT64CONST(0xBF58476D1CE4E5B9);
	return (uint32) (h ^ (h >> 32));
}

static void
dict_init(PfAggScanState *st, PfKeyDict *d, int col)
{
	d->col = col;
	d->cap_values = 16;
	d->ivalues = MemoryContextAllocZero(st->group_cxt, sizeof(int64) * (d->cap_values + 1));
	d->tvalues = MemoryContextAllocZero(st->group_cxt, sizeof(char *) * (d->cap_values + 1));
	d->tlens = MemoryContextAllocZero(st->group_cxt, sizeof(int) * (d->cap_values + 1));
	d->hashes = MemoryContextAllocZero(st->group_cxt, sizeof(uint32) * (d->cap_values + 1));
	d->mask = 63;
	d->table = MemoryContextAllocZero(st->group_cxt, sizeof(uint32) * (d->mask + 1));
}

/* Make room for one more value in d, rehashing at half load. */
static void
dict_grow(PfAggScanState *st, PfKeyDict *d)
{
	if (d->nvalues + 1 > d->cap_values)
	{
		uint32		cap = d->cap_values * 2;

		d->ivalues = repalloc(d->ivalues, sizeof(int64) * (cap + 1));
		d->tvalues = repalloc(d->tvalues, sizeof(char *) * (cap + 1));
		d->tlens = repalloc(d->tlens, sizeof(int) * (cap + 1));
		d->hashes = repalloc(d->hashes, sizeof(uint32) * (cap + 1));
		d->cap_values = cap;
	}
	if ((d->nvalues + 1) * 2 > d->mask)
	{
		uint32		mask = d->mask * 2 + 1;

		pfree(d->table);
		d->table = MemoryContextAllocZero(st->group_cxt, sizeof(uint32) * (mask + 1));
		d->mask = mask;
		for (uint32 code = 1; code <= d->nvalues; code++)
		{
			uint32		pos = d->hashes[code] & mask;

			while (d->table[pos] != 0)
				pos = (pos + 1) & mask;
			d->table[pos] = code;
		}
	}
}

/* The code of an integer value (INT, DATE as PostgreSQL days, BOOL). */
static uint32
dict_int(PfAggScanState *st, PfKeyDict *d, int64 v, PfColKind kind)
{
	uint32		h = hash_int64(v);
	uint32		pos = h & d->mask;
	uint32		code;

	while ((code = d->table[pos]) != 0)
	{
		if (d->ivalues[code] == v)
			return code;
		pos = (pos + 1) & d->mask;
	}
	if (kind == PF_COL_DATE && !IS_VALID_DATE(v))
		date_out_of_range(st->prog->cols[d->col].attname, v + PF_AGG_EPOCH_DAYS,
						  false);
	dict_grow(st, d);
	code = ++d->nvalues;
	d->ivalues[code] = v;
	d->hashes[code] = h;
	pos = h & d->mask;
	while (d->table[pos] != 0)
		pos = (pos + 1) & d->mask;
	d->table[pos] = code;
	return code;
}

/* The code of a text value; new values are checked as UTF-8 and copied. */
static uint32
dict_text(PfAggScanState *st, PfKeyDict *d, const uint8 *p, uint32 len)
{
	uint32		h = hash_bytes(p, (int) len);
	uint32		pos = h & d->mask;
	uint32		code;

	while ((code = d->table[pos]) != 0)
	{
		if (d->hashes[code] == h && d->tlens[code] == (int) len &&
			memcmp(d->tvalues[code], p, len) == 0)
			return code;
		pos = (pos + 1) & d->mask;
	}
	if (pg_encoding_verifymbstr(PG_UTF8, (const char *) p, (int) len) != (int) len)
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("invalid byte sequence for encoding \"UTF8\" in column \"%s\"",
						st->prog->cols[d->col].attname)));
	dict_grow(st, d);
	code = ++d->nvalues;
	d->tvalues[code] = MemoryContextAlloc(st->group_cxt, len + 1);
	memcpy(d->tvalues[code], p, len);
	d->tlens[code] = (int) len;
	d->hashes[code] = h;
	pos = h & d->mask;
	while (d->table[pos] != 0)
		pos = (pos + 1) & d->mask;
	d->table[pos] = code;
	return code;
}

/* Codes of key k's column for the n selected rows. */
static void
key_codes(PfAggScanState *st, int k, const uint32 *sel, uint32 n, uint32 *codes)
{
	PfKeyDict  *d = &st->dicts[k];
	const PfAggCol *col = &st->prog->cols[d->col];
	const PqColumnBatch *b = col_batch(st, col);
	const bool *isnull = b->is_null;

	switch (col->kind)
	{
		case PF_COL_TEXT:
			{
				const CdcByteView *vals = (const CdcByteView *) b->values;

				/* the cache holds this batch's pointers only */
				memset(d->cache_ptr, 0, sizeof(d->cache_ptr));
				for (uint32 i = 0; i < n; i++)
				{
					uint32		r = sel[i];
					const CdcByteView *v = &vals[r];
					uint32		slot;

					if (isnull && isnull[r])
					{
						codes[i] = 0;
						continue;
					}
					if (v->len == 1)
					{
						uint32	   *bc = &d->byte_code[v->ptr[0]];

						if (unlikely(*bc == 0))
							*bc = dict_text(st, d, v->ptr, 1);
						codes[i] = *bc;
						continue;
					}
					slot = (uint32) (((uintptr_t) v->ptr * UINT64CONST(0x9E3779B97F4A7C15)) >> 56);
					if (d->cache_ptr[slot] == v->ptr && d->cache_len[slot] == v->len &&
						v->ptr != NULL)
						codes[i] = d->cache_code[slot];
					else
					{
						codes[i] = dict_text(st, d, v->ptr, v->len);
						d->cache_ptr[slot] = v->ptr;
						d->cache_len[slot] = v->len;
						d->cache_code[slot] = codes[i];
					}
				}
				break;
			}
		case PF_COL_BOOL:
			{
				const uint8 *vals = (const uint8 *) b->values;

				for (uint32 i = 0; i < n; i++)
				{
					uint32		r = sel[i];

					codes[i] = (isnull && isnull[r]) ? 0 :
						dict_int(st, d, vals[r] ? 1 : 0, col->kind);
				}
				break;
			}
		default:
			{
				int64		last_v = 0;
				uint32		last_code = 0;
				int64		off = col->kind == PF_COL_DATE ? PF_AGG_EPOCH_DAYS : 0;

				for (uint32 i = 0; i < n; i++)
				{
					uint32		r = sel[i];
					int64		v;

					if (isnull && isnull[r])
					{
						codes[i] = 0;
						continue;
					}
					v = (col->phys == PQ_INT32 ? ((const int32 *) b->values)[r] :
						 ((const int64 *) b->values)[r]) - off;
					if (last_code == 0 || v != last_v)
					{
						last_code = dict_int(st, d, v, col->kind);
						last_v = v;
					}
					codes[i] = last_code;
				}
				break;
			}
	}
}

/* A new group with these key codes; returns its id. */
static uint32
new_group(PfAggScanState *st, const uint32 *keycodes)
{
	PfAggProgram *prog = st->prog;
	uint32		g = st->ngroups;

	if (g >= st->cap_groups)
	{
		uint32		cap = Max(16, st->cap_groups * 2);
		PfAggState *states = palloc16(st->group_cxt,
									  sizeof(PfAggState) * cap * Max(1, prog->naggs));

		if (st->states)
			memcpy(states, st->states,
				   sizeof(PfAggState) * st->cap_groups * Max(1, prog->naggs));
		st->states = states;
		st->group_codes = st->group_codes ?
			repalloc(st->group_codes, sizeof(uint32) * cap * Max(1, prog->nkeys)) :
			MemoryContextAlloc(st->group_cxt, sizeof(uint32) * cap * Max(1, prog->nkeys));
		st->cap_groups = cap;
	}
	if (prog->nkeys > 0)
		memcpy(&st->group_codes[(size_t) g * prog->nkeys], keycodes,
			   sizeof(uint32) * prog->nkeys);
	st->ngroups++;
	return g;
}

/* Codes per key of the direct table of two-key groups (64 x 64 entries). */
#define PF_AGG_PAIR_CODES	64

static inline uint32
hash_codes(const uint32 *codes, int nkeys)
{
	uint64		h = 0;

	for (int k = 0; k < nkeys; k++)
		h = (h ^ codes[k]) * UINT64CONST(0x9E3779B97F4A7C15);
	return (uint32) (h >> 32);
}

/* The group of a key (its codes), found in or added to the hash table. */
static uint32
group_of_key(PfAggScanState *st, const uint32 *key, int nkeys)
{
	uint32		h = hash_codes(key, nkeys);
	uint32		pos = h & st->gmask;
	uint32		e;

	while ((e = st->gtable[pos]) != 0)
	{
		const uint32 *gk = &st->group_codes[(size_t) (e - 1) * nkeys];
		int			k = 0;

		while (k < nkeys && gk[k] == key[k])
			k++;
		if (k == nkeys)
			return e - 1;
		pos = (pos + 1) & st->gmask;
	}
	e = new_group(st, key) + 1;
	st->gtable[pos] = e;
	if (st->ngroups * 2 > st->gmask)
	{
		/* rehash into a table twice as large */
		uint32		mask = st->gmask * 2 + 1;

		pfree(st->gtable);
		st->gtable = MemoryContextAllocZero(st->group_cxt,
											sizeof(uint32) * (mask + 1));
		st->gmask = mask;
		for (uint32 j = 0; j < st->ngroups; j++)
		{
			uint32		p = hash_codes(&st->group_codes[(size_t) j * nkeys],
									   nkeys) & mask;

			while (st->gtable[p] != 0)
				p = (p + 1) & mask;
			st->gtable[p] = j + 1;
		}
	}
	return e - 1;
}

/* Group ids of the n selected rows from their keys' codes. */
static void
assign_groups(PfAggScanState *st, uint32 n)
{
	int			nkeys = st->prog->nkeys;
	uint32	   *gid = st->gid;

	if (nkeys == 1)
	{
		const uint32 *codes = st->codes[0];

		for (uint32 i = 0; i < n; i++)
		{
			uint32		c = codes[i];

			if (unlikely(c >= st->cap_code))
			{
				uint32		cap = Max(c + 1, st->cap_code * 2);

				st->gid_of_code = repalloc(st->gid_of_code, sizeof(uint32) * cap);
				for (uint32 j = st->cap_code; j < cap; j++)
					st->gid_of_code[j] = PG_UINT32_MAX;
				st->cap_code = cap;
			}
			if (unlikely(st->gid_of_code[c] == PG_UINT32_MAX))
				st->gid_of_code[c] = new_group(st, &c);
			gid[i] = st->gid_of_code[c];
		}
		return;
	}

	if (nkeys == 2)
	{
		const uint32 *c0 = st->codes[0];
		const uint32 *c1 = st->codes[1];

		/* small code pairs (flags, statuses) straight from a table */
		for (uint32 i = 0; i < n; i++)
		{
			uint32		key[2] = {c0[i], c1[i]};
			uint32	   *slot = NULL;

			if (key[0] < PF_AGG_PAIR_CODES && key[1] < PF_AGG_PAIR_CODES)
			{
				slot = &st->gid_of_pair[key[0] * PF_AGG_PAIR_CODES + key[1]];
				if (likely(*slot != PG_UINT32_MAX))
				{
					gid[i] = *slot;
					continue;
				}
			}
			gid[i] = group_of_key(st, key, 2);
			if (slot)
				*slot = gid[i];
		}
		return;
	}

	for (uint32 i = 0; i < n; i++)
	{
		uint32		key[INDEX_MAX_KEYS];

		for (int k = 0; k < nkeys; k++)
			key[k] = st->codes[k][i];
		gid[i] = group_of_key(st, key, nkeys);
	}
}

/* ----------------------------------------------------------------
 * Files, row groups, statistics
 * ----------------------------------------------------------------
 */

static void
close_file(PfAggScanState *st)
{
	if (st->readers)
		for (int s = 0; s < st->nslots; s++)
			if (st->readers[s])
			{
				st->bytes_read += (int64) pq_column_reader_bytes_read(st->readers[s]);
				pq_column_reader_close(st->readers[s]);
			}
	MemoryContextReset(st->rowgroup_cxt);
	if (st->file)
		pf_close_file(st->file);
	st->file = NULL;
	st->readers = NULL;
	st->batches = NULL;
	st->nslots = 0;
	st->rowgroup = -1;
	MemoryContextReset(st->file_cxt);
}

/* Open file i and match the program's columns to its leaves. */
static void
open_file(PfAggScanState *st, int i)
{
	PfAggProgram *prog = st->prog;
	MemoryContext old = MemoryContextSwitchTo(st->file_cxt);
	const PqFileMeta *meta;

	st->file_index = i;
	st->path = (const char *) list_nth(st->filenames, i);
	st->file = pf_open_file(st->path, st->file_cxt);
	meta = st->file->meta;
	st->slot_leaf = palloc(sizeof(int) * Max(1, prog->ncols));
	st->nslots = 0;
	for (int c = 0; c < prog->ncols; c++)
	{
		PfAggCol   *col = &prog->cols[c];
		const PqSchemaNode *field;

		st->err_column = col->attname;
		field = pf_find_column_field(meta, st->path, st->rel, col->attname,
									 col->field_name, st->missing_columns_error);
		if (!field_fits(meta, field, col))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("Parquet file \"%s\" changed since the query was planned",
							st->path),
					 errdetail("Column \"%s\" no longer has the type the aggregate pushdown planned for.",
							   col->attname)));
		col->missing = (field == NULL);
		col->slot = -1;
		if (field == NULL)
			continue;
		/* one slot per leaf: a column read by several parts of the query */
		for (int s = 0; s < st->nslots; s++)
			if (st->slot_leaf[s] == field->leaf_index)
				col->slot = s;
		if (col->slot < 0)
		{
			col->slot = st->nslots;
			st->slot_leaf[st->nslots++] = field->leaf_index;
		}
	}
	st->err_column = NULL;
	st->readers = palloc0(sizeof(PqColumnReader *) * Max(1, st->nslots));
	st->batches = palloc0(sizeof(PqColumnBatch) * Max(1, st->nslots));
	MemoryContextSwitchTo(old);
}

static inline int64
le_int64(const uint8 *p, uint32 len)
{
	if (len == 4)
	{
		int32		v;

		memcpy(&v, p, 4);
		return v;
	}
	else
	{
		int64		v;

		memcpy(&v, p, 8);
		return v;
	}
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
	const PqRowGroupMeta *rgm = &st->file->meta->row_groups[rg];
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
		leaf = st->slot_leaf[col->slot];
		if (leaf >= rgm->num_columns || !rgm->columns[leaf].has_statistics)
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
		s = &rgm->columns[st->slot_leaf[col->slot]].statistics;
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
				date_out_of_range(col->attname, v, true);
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
 * Keep the rows of this pass's key-hash partition: out gets those of the n
 * rows in.  The hash is of the key values themselves (not their codes), so
 * it is the same in every file and pass.
 */
static uint32
partition_rows(PfAggScanState *st, const uint32 *in, uint32 n, uint32 *out)
{
	PfAggProgram *prog = st->prog;
	uint32	   *h = st->row_hash;
	uint32		mask = (st->part_bits >= 32) ? PG_UINT32_MAX :
		(((uint32) 1 << st->part_bits) - 1);
	uint32		m = 0;

	memset(h, 0, sizeof(uint32) * n);
	for (int k = 0; k < prog->nkeys; k++)
	{
		const PfAggCol *col = &prog->cols[prog->key_cols[k]];
		const PqColumnBatch *b = col_batch(st, col);
		const bool *isnull = b->is_null;

		for (uint32 i = 0; i < n; i++)
		{
			uint32		r = in[i];
			uint32		hk;

			if (isnull && isnull[r])
				hk = 0x5bd1e995;
			else if (col->kind == PF_COL_TEXT)
			{
				const CdcByteView *v = &((const CdcByteView *) b->values)[r];

				hk = hash_bytes(v->ptr, (int) v->len);
			}
			else if (col->kind == PF_COL_BOOL)
				hk = hash_int64(((const uint8 *) b->values)[r] ? 1 : 0);
			else if (col->phys == PQ_INT32)
				hk = hash_int64(((const int32 *) b->values)[r]);
			else
				hk = hash_int64(((const int64 *) b->values)[r]);
			h[i] = hash_combine(h[i], hk);
		}
	}
	for (uint32 i = 0; i < n; i++)
	{
		out[m] = in[i];
		m += (murmurhash32(h[i]) & mask) == st->part_value;
	}
	return m;
}

/*
 * Can the filters' values exclude every row of row group rg, by its
 * column-chunk statistics?  Integer, date and decimal columns stored as
 * integers (the raw domain the filters are normalized to), and all-null
 * chunks for any filter.  The planner pruned with constants already; this
 * also covers parameters and decimals.
 */
static bool
rowgroup_filtered_out(PfAggScanState *st, int rg)
{
	PfAggProgram *prog = st->prog;
	const PqRowGroupMeta *rgm = &st->file->meta->row_groups[rg];

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

		if (f->kind == PF_FILTER_IS_NULL)
		{
			/* no null in the chunk: no row passes */
			if (!col->missing)
			{
				leaf = st->slot_leaf[col->slot];
				if (leaf < rgm->num_columns && rgm->columns[leaf].has_statistics &&
					rgm->columns[leaf].statistics.has_null_count &&
					rgm->columns[leaf].statistics.null_count == 0)
					return true;
			}
			continue;
		}
		if (f->never || col->missing)
			return true;		/* no row passes */
		leaf = st->slot_leaf[col->slot];
		if (leaf >= rgm->num_columns || !rgm->columns[leaf].has_statistics)
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
	return false;
}

/* Read and aggregate row group rg of the open file. */
static void
aggregate_rowgroup(PfAggScanState *st, int rg)
{
	PfAggProgram *prog = st->prog;
	const PqFileMeta *meta = st->file->meta;
	int64		rows_left = meta->row_groups[rg].num_rows;
	PfcAllocator alloc;
	PfcAllocator page_alloc;
	PqColumnReaderOptions ropts = {0};

	ropts.verify_crc = st->verify_checksums;
	st->rowgroup = rg;
	if (prog->nfilters > 0 && rowgroup_filtered_out(st, rg))
	{
		st->rowgroups_skipped++;
		st->rowgroup = -1;
		return;
	}
	if (prog->all_from_stats && rowgroup_from_stats(st, rg))
	{
		st->rowgroups_stats++;
		st->rowgroup = -1;
		return;
	}
	st->rowgroups_read++;

	alloc = pf_context_allocator(st->rowgroup_cxt);
	page_alloc = pfc_buffer_pool_allocator(st->page_pool);
	for (int s = 0; s < st->nslots; s++)
	{
		const PqColumnChunkMeta *chunk = &meta->row_groups[rg].columns[st->slot_leaf[s]];
		PqError		err;

		st->err_column = meta->leaves[st->slot_leaf[s]].path;
		if (chunk->is_encrypted)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column \"%s\" of Parquet file \"%s\" is encrypted",
							st->err_column, st->path),
					 errhint("Parquet modular encryption is not supported.")));
		if (chunk->file_path != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column \"%s\" of Parquet file \"%s\" is stored in another file",
							st->err_column, st->path)));
		pq_error_clear(&err);
		if (pq_column_reader_open(&st->readers[s], st->file->file, rg,
								  st->slot_leaf[s], &ropts, &alloc, &err) != PQ_OK)
			pf_report_error(st->path, &err);
		(void) pq_column_reader_set_page_allocator(st->readers[s], &page_alloc);
	}

	while (rows_left > 0)
	{
		uint32		want = (uint32) Min((int64) st->batch_rows, rows_left);
		uint32		n = want;
		const uint32 *sel = st->identity;
		instr_time	decode_start;

		st->pass_rows += want;

		CHECK_FOR_INTERRUPTS();
		if (st->time_decoding)
			INSTR_TIME_SET_CURRENT(decode_start);
		for (int s = 0; s < st->nslots; s++)
		{
			PqError		err;

			st->err_column = meta->leaves[st->slot_leaf[s]].path;
			pq_error_clear(&err);
			if (pq_column_reader_read(st->readers[s], want, &st->batches[s],
									  &err) != PQ_OK)
				pf_report_error(st->path, &err);
			if (st->batches[s].num_rows != want)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("column chunk \"%s\" of Parquet file \"%s\" holds fewer rows than its row group",
								st->err_column, st->path)));
		}
		st->err_column = NULL;
		if (st->time_decoding)
		{
			instr_time	now;

			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_ACCUM_DIFF(st->decode_time, now, decode_start);
		}

		/* filters narrow the selection, each over the previous one's rows */
		for (int f = 0; f < prog->nfilters && n > 0; f++)
		{
			uint32	   *out = (sel == st->sel) ? st->sel2 : st->sel;

			st->err_column = prog->cols[prog->filters[f].col].attname;
			n = apply_filter(st, &prog->filters[f], sel, n, out);
			sel = out;
		}
		st->err_column = NULL;

		st->batch_seq++;
		if (n > 0)
		{
			if (prog->nkeys > 0 && st->part_bits > 0)
			{
				/* this pass's partition only */
				uint32	   *out = (sel == st->sel) ? st->sel2 : st->sel;

				n = partition_rows(st, sel, n, out);
				sel = out;
			}
			if (prog->nkeys > 0 && n > 0)
			{
				for (int k = 0; k < prog->nkeys; k++)
				{
					st->err_column = prog->cols[prog->key_cols[k]].attname;
					key_codes(st, k, sel, n, st->codes[k]);
				}
				st->err_column = NULL;
				assign_groups(st, n);
				count_group_rows(st, n);
				if (MemoryContextMemAllocated(st->group_cxt, true) > st->group_limit)
				{
					st->overflow = true;
					break;
				}
			}
			for (int a = 0; a < prog->naggs; a++)
				accumulate(st, a, sel, n, st->gid);
		}
		rows_left -= want;
	}
	for (int s = 0; s < st->nslots; s++)
	{
		st->bytes_read += (int64) pq_column_reader_bytes_read(st->readers[s]);
		pq_column_reader_close(st->readers[s]);
		st->readers[s] = NULL;
	}
	MemoryContextReset(st->rowgroup_cxt);
	st->peak_memory = Max(st->peak_memory,
						  MemoryContextMemAllocated(st->cxt, true));
	st->rowgroup = -1;
}

/* Run the whole aggregation. */
static void
compute(PfAggScanState *st)
{
	ErrorContextCallback errcb;

	errcb.callback = agg_error_callback;
	errcb.arg = st;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	for (int fi = 0; fi < list_length(st->filenames); fi++)
	{
		List	   *rgs = (List *) list_nth(st->rowgroups, fi);
		ListCell   *lr;

		if (rgs == NIL)
			continue;
		open_file(st, fi);
		foreach(lr, rgs)
		{
			int			rg = lfirst_int(lr);

			if (rg < 0 || rg >= st->file->meta->num_row_groups)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("Parquet file \"%s\" changed since the query was planned",
								st->path),
						 errdetail("Row group %d was planned, the file now has %d.",
								   rg, st->file->meta->num_row_groups)));
			if (st->file->meta->row_groups[rg].num_rows <= 0)
				continue;
			aggregate_rowgroup(st, rg);
			if (st->overflow)
				break;
		}
		close_file(st);
		if (st->overflow)
			break;
	}
	st->path = NULL;
	error_context_stack = errcb.previous;
	st->passes++;
}

static void reset_groups(PfAggScanState *st);

/*
 * Aggregate the next partition of key hashes that fits in memory: a pass
 * whose groups outgrow the limit is dropped and its partition split in
 * four, pushed on the pending list.  Returns false when no partition is
 * left.
 */
static bool
compute_next_pass(PfAggScanState *st)
{
	for (;;)
	{
		if (st->pending_parts == NIL)
			return false;
		st->part_bits = intVal(linitial(st->pending_parts));
		st->part_value = (uint32) intVal(lsecond(st->pending_parts));
		st->pending_parts = list_delete_first(list_delete_first(st->pending_parts));
		st->overflow = false;
		st->pass_rows = 0;
		reset_groups(st);
		compute(st);
		if (!st->overflow)
		{
			st->groups_total += st->ngroups;
			return true;
		}
		/*
		 * Split in 2^k, k from how much of the input filled memory: twice
		 * the partitions the groups seem to need, at least four.
		 */
		{
			MemoryContext old = MemoryContextSwitchTo(st->cxt);
			double		need = 2.0 * (double) Max(st->total_rows, 1) /
				(double) Max(st->pass_rows, 1);
			int			k = 2;

			while (k < 16 && (double) ((uint32) 1 << k) < need)
				k++;
			if (st->part_bits + k > 30)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("aggregate pushdown: groups exceed the memory limit after %d partition passes",
								(int) st->passes),
						 errhint("Set parquet_fdw.enable_aggregate_pushdown to off.")));
			for (int j = (1 << k) - 1; j >= 0; j--)
				st->pending_parts = lcons(makeInteger(st->part_bits + k),
										  lcons(makeInteger((int) (st->part_value |
																   ((uint32) j << st->part_bits))),
												st->pending_parts));
			MemoryContextSwitchTo(old);
		}
	}
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
	prog = compile_program(st->rel, 0,
						   (List *) list_nth(priv, PfAggPrivateQuals),
						   (List *) list_nth(priv, PfAggPrivateGroupVars),
						   plan->fdw_scan_tlist);
	if (prog == NULL)
		elog(ERROR, "parquet_fdw: a pushed-down aggregate plan no longer compiles");
	st->prog = prog;
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
	st->page_pool = pf_page_pool_create(st->cxt);
	st->batch_rows = PF_AGG_BATCH_ROWS;
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
	st->group_limit = (Size) Max((double) work_mem * 1024.0 * hash_mem_multiplier,
								 4.0 * 1024 * 1024);
	st->all_null = palloc(sizeof(bool) * st->batch_rows);
	memset(st->all_null, true, sizeof(bool) * st->batch_rows);
	st->zeros = palloc0(16 * st->batch_rows);
	st->missing_batch.is_null = st->all_null;
	st->missing_batch.values = st->zeros;
	for (int a = 0; a < prog->naggs; a++)
		init_expr(st, prog->aggs[a].arg);
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
			  filter_set_in_from_qual(filter, &prog->cols[filter->col]) :
			  filter_set_from_qual(filter, &prog->cols[filter->col])))
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
		dict_init(st, &st->dicts[k], prog->key_cols[k]);
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
		(void) new_group(st, NULL);
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
			case INT2OID:
				return Int16GetDatum((int16) s->isum);
			case INT4OID:
				return Int32GetDatum((int32) s->isum);
			case INT8OID:
				return Int64GetDatum((int64) s->isum);
			case DATEOID:
				return DateADTGetDatum((DateADT) s->isum);
			default:
				return int128_to_numeric(s->isum, scale);
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
		sum = int128_to_numeric(s->isum, scale);
		if (s->has_spill)
			sum = DirectFunctionCall2(numeric_add, s->spill, sum);
		if (def->kind == PF_AGG_SUM)
			return sum;
	}
	/* avg: numeric_avg's division of the exact sum by the count */
	return DirectFunctionCall2(numeric_div, sum,
							   NumericGetDatum(int64_to_numeric(s->count)));
}

TupleTableSlot *
pf_agg_iterate_foreign_scan(ForeignScanState *node)
{
	PfAggScanState *st = (PfAggScanState *) node->fdw_state;
	PfAggProgram *prog = st->prog;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	uint32		g;

	if (!st->computed)
	{
		MemoryContext old = MemoryContextSwitchTo(st->cxt);

		evaluate_param_filters(st);
		list_free(st->pending_parts);
		st->pending_parts = list_make2(makeInteger(0), makeInteger(0));
		MemoryContextSwitchTo(old);
		st->computed = true;
		st->ngroups = 0;
		st->next_out = 0;
		if (!compute_next_pass(st))
			return ExecClearTuple(slot);
	}
	ExecClearTuple(slot);
	while (st->next_out >= st->ngroups)
	{
		/* this partition is done: the next one */
		if (!compute_next_pass(st))
			return slot;
	}
	g = st->next_out++;
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
						default:
							v = Int64GetDatum(d->ivalues[code]);
							break;
					}
			}
			else
				v = agg_result(st, g, out->index, &isnull);
			slot->tts_values[o] = v;
			slot->tts_isnull[o] = isnull;
		}
		MemoryContextSwitchTo(old);
	}
	return ExecStoreVirtualTuple(slot);
}

void
pf_agg_rescan_foreign_scan(ForeignScanState *node)
{
	PfAggScanState *st = (PfAggScanState *) node->fdw_state;

	/*
	 * The same groups again, unless a filter's parameter may have changed
	 * or they came in several passes (only the last one is kept).
	 */
	st->next_out = 0;
	if (st->param_states != NIL || st->passes > 1 || st->pending_parts != NIL)
		st->computed = false;
}

void
pf_agg_end_foreign_scan(ForeignScanState *node)
{
	PfAggScanState *st = (PfAggScanState *) node->fdw_state;

	if (st == NULL)
		return;
	if (st->file_cxt)
		close_file(st);
	if (st->rel)
		table_close(st->rel, NoLock);
	MemoryContextDelete(st->cxt);
	node->fdw_state = NULL;
}

static const char *
agg_kind_name(const PfAggDef *def)
{
	switch (def->kind)
	{
		case PF_AGG_COUNT_STAR:
			return "count(*)";
		case PF_AGG_COUNT:
			return "count";
		case PF_AGG_SUM:
			return "sum";
		case PF_AGG_AVG:
			return "avg";
		case PF_AGG_MIN:
			return "min";
		default:
			return "max";
	}
}

void
pf_agg_explain_foreign_scan(ForeignScanState *node, ExplainState *es)
{
	PfAggScanState *st = (PfAggScanState *) node->fdw_state;
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	PfAggProgram *prog = st->prog;
	StringInfoData buf;
	int			nread = 0;
	ListCell   *lc;

	if (list_length(st->filenames) == 1)
		ExplainPropertyText("Parquet File", linitial(st->filenames), es);
	else
		ExplainPropertyList("Parquet Files", st->filenames, es);
	foreach(lc, st->rowgroups)
		nread += list_length((List *) lfirst(lc));
	ExplainPropertyText("Row Groups",
						psprintf("%d of %d", nread, st->total_rowgroups), es);

	initStringInfo(&buf);
	for (int a = 0; a < prog->naggs; a++)
		appendStringInfo(&buf, "%s%s", a > 0 ? ", " : "", agg_kind_name(&prog->aggs[a]));
	ExplainPropertyText("Aggregate Pushdown", buf.data, es);
	if (prog->nkeys > 0)
	{
		resetStringInfo(&buf);
		for (int k = 0; k < prog->nkeys; k++)
			appendStringInfo(&buf, "%s%s", k > 0 ? ", " : "",
							 quote_identifier(prog->cols[prog->key_cols[k]].attname));
		ExplainPropertyText("Pushed Group Keys", buf.data, es);
	}
	if (prog->nfilters > 0)
	{
		resetStringInfo(&buf);
		for (int f = 0; f < prog->nfilters; f++)
			appendStringInfo(&buf, "%s(%s)", f > 0 ? " AND " : "",
							 prog->filters[f].text);
		ExplainPropertyText("Pushed Filters", buf.data, es);
	}
	if (es->verbose)
	{
		List	   *context = set_deparse_context_plan(es->deparse_cxt,
													   (Plan *) plan, NIL);
		bool		first = true;

		resetStringInfo(&buf);
		foreach(lc, plan->fdw_scan_tlist)
		{
			TargetEntry *tle = (TargetEntry *) lfirst(lc);

			if (!IsA(tle->expr, Aggref))
				continue;
			appendStringInfo(&buf, "%s%s", first ? "" : ", ",
							 deparse_expression((Node *) tle->expr, context,
												true, false));
			first = false;
		}
		ExplainPropertyText("Pushed Aggregates", buf.data, es);
	}
	if (es->analyze)
	{
		ExplainPropertyInteger("Row Groups Read", NULL, st->rowgroups_read, es);
		ExplainPropertyInteger("Row Groups From Statistics", NULL,
							   st->rowgroups_stats, es);
		if (prog->nfilters > 0)
			ExplainPropertyInteger("Row Groups Skipped at Run Time", NULL,
								   st->rowgroups_skipped, es);
		ExplainPropertyInteger("Groups", NULL, st->groups_total, es);
		if (st->passes > 1)
			ExplainPropertyInteger("Partition Passes", NULL, st->passes, es);
		pf_explain_io(st->bytes_read,
					  st->time_decoding && es->timing ? &st->decode_time : NULL,
					  es);
		ExplainPropertyInteger("Peak Memory", "kB",
							   (int64) ((st->peak_memory + 1023) / 1024), es);
	}
}
