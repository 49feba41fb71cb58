/*-------------------------------------------------------------------------
 *
 * qual.c
 *	  The one analyzer of restriction clauses "column op value": what
 *	  pruning (prune.c, source_amudai.c), late quals (scan.c) and pushed
 *	  aggregate filters (agg_compile.c) may use, in one form (PfQual).
 *
 * Comparisons go through the btree operator family of the type the
 * operator reads the column as, so cross-type operators (date against
 * timestamp, int4 against int8, text against a varchar) are understood
 * with PostgreSQL's own support function; a column under a cast that
 * keeps its order (integer to numeric, float4 or float8) is compared after
 * the same cast.
 * Once a value is known, discrete column types (integers, date, timestamp)
 * also get the exact same-type form that row-by-row consumers evaluate,
 * found by bisecting the column's domain with that support function: the
 * boundary is where PostgreSQL's comparison changes sign, so midnight,
 * fractions, rounding, overflow and the session TimeZone are its.
 *
 * IDENTIFICATION
 *	  src/fdw/qual.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/nbtree.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/restrictinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/timestamp.h"

#include "fdw/pg_compat.h"
#include "fdw/qual.h"

static PfQual *classify(Node *clause, Index relid, bool negate);

/* ----------------------------------------------------------------
 * The column side
 * ----------------------------------------------------------------
 */

/* Is n a column of relation relid (0: of any relation at this level)? */
static bool
is_rel_column(Node *n, Index relid)
{
	Var		   *var = (Var *) n;

	return n != NULL && IsA(n, Var) && var->varattno > 0 &&
		var->varlevelsup == 0 && (relid == 0 || var->varno == relid);
}

/*
 * Casts of an integer column that never reorder values: to numeric (exact,
 * one-to-one) and to float4/float8 (exact for small integers, else rounded
 * to nearest, which may merge neighbours but never swaps them).  Pruning
 * and the bisection of discrete_form need only that order.
 */
static bool
monotone_cast(Oid funcid)
{
	switch (funcid)
	{
		case F_NUMERIC_INT2:
		case F_NUMERIC_INT4:
		case F_NUMERIC_INT8:
		case F_FLOAT4_INT2:
		case F_FLOAT4_INT4:
		case F_FLOAT4_INT8:
		case F_FLOAT8_INT2:
		case F_FLOAT8_INT4:
		case F_FLOAT8_INT8:
			return true;
		default:
			return false;
	}
}

/* Does the cast keep distinct integers distinct (no rounding)? */
static bool
one_to_one_cast(Oid funcid)
{
	return funcid == F_NUMERIC_INT2 || funcid == F_NUMERIC_INT4 ||
		funcid == F_NUMERIC_INT8 || funcid == F_FLOAT4_INT2 ||
		funcid == F_FLOAT8_INT2 || funcid == F_FLOAT8_INT4;
}

/*
 * The column n reads, seen through binary-compatible relabeling (a
 * collation, varchar read as text) or one order-keeping cast: *optype is
 * the type the operator reads it as, *castfunc the cast (or InvalidOid).
 */
static Var *
column_of(Node *n, Index relid, Oid *optype, Oid *castfunc)
{
	*castfunc = InvalidOid;
	*optype = exprType(n);
	if (n && IsA(n, FuncExpr))
	{
		FuncExpr   *f = (FuncExpr *) n;

		if (list_length(f->args) != 1 || !monotone_cast(f->funcid) ||
			f->funcformat == COERCE_EXPLICIT_CALL)
			return NULL;
		*castfunc = f->funcid;
		n = linitial(f->args);
	}
	while (n && IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	if (!is_rel_column(n, relid))
		return NULL;
	return (Var *) n;
}

/* Can an expression be the value: no column, nothing volatile, no subplan. */
static bool
value_expr_ok(Node *n)
{
	return !contain_var_clause(n) && !contain_volatile_functions(n) &&
		!contain_subplans(n);
}

/* The btree family of type's default operator class, or InvalidOid. */
static Oid
default_btree_family(Oid type)
{
	Oid			opclass = GetDefaultOpClass(type, BTREE_AM_OID);

	return OidIsValid(opclass) ? get_opclass_family(opclass) : InvalidOid;
}

static PfQual *
new_leaf(Var *var, Oid castfunc, Oid cmpproc, int strategy, Oid collation)
{
	PfQual	   *q = palloc0(sizeof(PfQual));

	q->attnum = var->varattno;
	q->coltype = var->vartype;
	q->castfunc = castfunc;
	if (OidIsValid(castfunc))
		fmgr_info(castfunc, &q->cast);
	q->cmpproc = cmpproc;
	fmgr_info(cmpproc, &q->cmp);
	q->strategy = strategy;
	q->collation = collation;
	/* text order must be byte order to compare with statistics */
	q->order_not_bytes = OidIsValid(collation) && !pf_collate_is_c(collation);
	return q;
}

/* ----------------------------------------------------------------
 * Classification
 * ----------------------------------------------------------------
 */

static int
negate_strategy(int strategy)
{
	switch (strategy)
	{
		case BTLessStrategyNumber:
			return BTGreaterEqualStrategyNumber;
		case BTLessEqualStrategyNumber:
			return BTGreaterStrategyNumber;
		case BTEqualStrategyNumber:
			return PF_NOT_EQUAL_STRATEGY;
		case BTGreaterEqualStrategyNumber:
			return BTLessStrategyNumber;
		case BTGreaterStrategyNumber:
			return BTLessEqualStrategyNumber;
		default:
			return BTEqualStrategyNumber;
	}
}

/*
 * "column op value" (either side) with op, or its negator, in the btree
 * family of the type op reads the column as.
 */
static PfQual *
classify_comparison(OpExpr *op, Index relid, bool negate)
{
	Node	   *left;
	Node	   *right;
	Oid			opno = op->opno;
	Oid			optype;
	Oid			castfunc;
	Oid			opfamily;
	Oid			lefttype;
	Oid			righttype;
	Oid			cmpproc;
	int			strategy;
	Var		   *var;
	PfQual	   *q;

	if (list_length(op->args) != 2)
		return NULL;
	left = linitial(op->args);
	right = lsecond(op->args);
	var = column_of(left, relid, &optype, &castfunc);
	if (var == NULL)
	{
		Node	   *tmp = left;

		left = right;
		right = tmp;
		var = column_of(left, relid, &optype, &castfunc);
		opno = get_commutator(opno);
		if (var == NULL || !OidIsValid(opno))
			return NULL;
	}
	if (!value_expr_ok(right))
		return NULL;
	opfamily = default_btree_family(optype);
	if (!OidIsValid(opfamily))
		return NULL;
	if (op_in_opfamily(opno, opfamily))
		get_op_opfamily_properties(opno, opfamily, false,
								   &strategy, &lefttype, &righttype);
	else
	{
		/* "<>": its negator is the family's "=" */
		Oid			negator = get_negator(opno);

		if (!OidIsValid(negator) || !op_in_opfamily(negator, opfamily))
			return NULL;
		get_op_opfamily_properties(negator, opfamily, false,
								   &strategy, &lefttype, &righttype);
		if (strategy != BTEqualStrategyNumber)
			return NULL;
		strategy = PF_NOT_EQUAL_STRATEGY;
	}
	if (lefttype != optype || righttype != exprType(right))
		return NULL;
	cmpproc = get_opfamily_proc(opfamily, lefttype, righttype, BTORDER_PROC);
	if (!OidIsValid(cmpproc))
		return NULL;
	/* NOT (x op v) is x negator(op) v: both are false for a null x or v */
	if (negate)
		strategy = negate_strategy(strategy);
	q = new_leaf(var, castfunc, cmpproc, strategy, op->inputcollid);
	q->expr = (Expr *) right;
	q->valtype = q->exprtype = righttype;

	/*
	 * A constant is known at plan time, but a comparison that is only stable
	 * (timestamp against timestamptz depends on TimeZone) must wait for
	 * executor start, as PostgreSQL's partition pruning does: a cached plan
	 * may run under another setting.
	 */
	if (IsA(right, Const) && func_volatile(cmpproc) == PROVOLATILE_IMMUTABLE)
		pf_prune_qual_set_value(q, ((Const *) right)->constvalue,
								((Const *) right)->constisnull);
	return q;
}

/* "column = ANY (array)" (and IN lists), the array constant or known at
 * executor start. */
static PfQual *
classify_in_list(ScalarArrayOpExpr *saop, Index relid)
{
	Node	   *arr;
	Oid			optype;
	Oid			castfunc;
	Oid			opfamily;
	Oid			lefttype;
	Oid			righttype;
	Oid			cmpproc;
	int			strategy;
	Var		   *var;
	PfQual	   *q;

	if (!saop->useOr || list_length(saop->args) != 2)
		return NULL;
	var = column_of(linitial(saop->args), relid, &optype, &castfunc);
	arr = lsecond(saop->args);
	if (var == NULL || !value_expr_ok(arr))
		return NULL;
	opfamily = default_btree_family(optype);
	if (!OidIsValid(opfamily) || !op_in_opfamily(saop->opno, opfamily))
		return NULL;
	get_op_opfamily_properties(saop->opno, opfamily, false,
							   &strategy, &lefttype, &righttype);
	if (strategy != BTEqualStrategyNumber || lefttype != optype ||
		get_element_type(exprType(arr)) != righttype)
		return NULL;
	cmpproc = get_opfamily_proc(opfamily, lefttype, righttype, BTORDER_PROC);
	if (!OidIsValid(cmpproc))
		return NULL;
	q = new_leaf(var, castfunc, cmpproc, BTEqualStrategyNumber,
				 saop->inputcollid);
	q->in_list = true;
	q->expr = (Expr *) arr;
	q->valtype = righttype;
	q->exprtype = exprType(arr);
	if (IsA(arr, Const) && func_volatile(cmpproc) == PROVOLATILE_IMMUTABLE)
		pf_prune_qual_set_value(q, ((Const *) arr)->constvalue,
								((Const *) arr)->constisnull);
	return q;
}

/*
 * The literal prefix of a LIKE pattern (default escape), and whether the
 * pattern has a wildcard at all.
 */
static char *
like_prefix(text *pattern, int *len)
{
	const char *p = VARDATA_ANY(pattern);
	int			n = VARSIZE_ANY_EXHDR(pattern);
	char	   *out = palloc(n + 1);
	int			k = 0;

	for (int i = 0; i < n; i++)
	{
		if (p[i] == '%' || p[i] == '_')
			break;
		if (p[i] == '\\')
		{
			if (++i >= n)
				break;			/* a trailing escape: PostgreSQL errors */
		}
		out[k++] = p[i];
	}
	*len = k;
	return out;
}

/*
 * "text_column LIKE 'prefix%'": every match starts with prefix, so it lies
 * in [prefix, successor) in byte order, whatever the collation (LIKE
 * matches bytes under every deterministic collation).  Prune only: the
 * range bounds the matches, it is not the qual.
 */
static PfQual *
classify_like(OpExpr *op, Index relid)
{
	Oid			optype;
	Oid			castfunc;
	Var		   *var;
	Const	   *pat;
	char	   *prefix;
	int			len;
	PfQual	   *and;
	PfQual	   *q;

	if (op->opfuncid != F_TEXTLIKE || list_length(op->args) != 2 ||
		!IsA(lsecond(op->args), Const) ||
		((Const *) lsecond(op->args))->constisnull)
		return NULL;
	var = column_of(linitial(op->args), relid, &optype, &castfunc);
	if (var == NULL || OidIsValid(castfunc) || optype != TEXTOID ||
		(OidIsValid(op->inputcollid) &&
		 !get_collation_isdeterministic(op->inputcollid)))
		return NULL;
	pat = (Const *) lsecond(op->args);
	prefix = like_prefix(DatumGetTextPP(pat->constvalue), &len);
	if (len == 0)
		return NULL;

	and = palloc0(sizeof(PfQual));
	and->is_bool = true;
	and->bool_op = AND_EXPR;
	and->prune_only = true;
	and->value_known = true;

	q = new_leaf(var, InvalidOid, F_BTTEXTCMP, BTGreaterEqualStrategyNumber,
				 C_COLLATION_OID);
	q->valtype = q->exprtype = TEXTOID;
	q->prune_only = true;
	pf_prune_qual_set_value(q, PointerGetDatum(cstring_to_text_with_len(prefix, len)),
							false);
	and->args = lappend(and->args, q);

	/* the successor: the last byte below 0xff incremented, the rest cut */
	while (len > 0 && (unsigned char) prefix[len - 1] == 0xff)
		len--;
	if (len > 0)
	{
		prefix[len - 1]++;
		q = new_leaf(var, InvalidOid, F_BTTEXTCMP, BTLessStrategyNumber,
					 C_COLLATION_OID);
		q->valtype = q->exprtype = TEXTOID;
		q->prune_only = true;
		pf_prune_qual_set_value(q, PointerGetDatum(cstring_to_text_with_len(prefix, len)),
								false);
		and->args = lappend(and->args, q);
	}
	return and;
}

/* A boolean column ("WHERE flag", "WHERE NOT flag"): flag = true/false. */
static PfQual *
classify_bool_column(Var *var, bool negate)
{
	PfQual	   *q = new_leaf(var, InvalidOid, F_BTBOOLCMP,
							 BTEqualStrategyNumber, InvalidOid);

	q->valtype = q->exprtype = BOOLOID;
	q->expr = (Expr *) makeBoolConst(!negate, false);
	pf_prune_qual_set_value(q, BoolGetDatum(!negate), false);
	return q;
}

/*
 * AND/OR (NOT pushed through by De Morgan): AND keeps the arms it can use,
 * OR needs every arm, with values known now (no parameters inside OR).
 */
static PfQual *
classify_bool_expr(BoolExpr *b, Index relid, bool negate)
{
	BoolExprType op = b->boolop;
	PfQual	   *q;
	ListCell   *lc;

	if (negate)
		op = op == AND_EXPR ? OR_EXPR : AND_EXPR;
	q = palloc0(sizeof(PfQual));
	q->is_bool = true;
	q->bool_op = op;
	q->value_known = true;
	foreach(lc, b->args)
	{
		PfQual	   *arm = classify((Node *) lfirst(lc), relid, negate);

		if (arm == NULL || !arm->value_known)
		{
			if (op == OR_EXPR)
				return NULL;
			continue;
		}
		q->prune_only |= arm->prune_only;
		q->args = lappend(q->args, arm);
	}
	return q->args != NIL ? q : NULL;
}

static PfQual *
classify(Node *clause, Index relid, bool negate)
{
	if (clause == NULL)
		return NULL;
	if (IsA(clause, BoolExpr))
	{
		BoolExpr   *b = (BoolExpr *) clause;

		if (b->boolop == NOT_EXPR)
			return classify((Node *) linitial(b->args), relid, !negate);
		return classify_bool_expr(b, relid, negate);
	}
	if (is_rel_column(clause, relid) && ((Var *) clause)->vartype == BOOLOID)
		return classify_bool_column((Var *) clause, negate);
	if (IsA(clause, BooleanTest) &&
		is_rel_column((Node *) ((BooleanTest *) clause)->arg, relid))
	{
		/*
		 * "flag IS TRUE" is "flag = true" (both false for NULL), and so is
		 * "NOT (flag IS NOT TRUE)"; IS NOT TRUE itself holds for NULL.
		 */
		BoolTestType t = ((BooleanTest *) clause)->booltesttype;
		Var		   *var = (Var *) ((BooleanTest *) clause)->arg;

		if (!negate && (t == IS_TRUE || t == IS_FALSE))
			return classify_bool_column(var, t == IS_FALSE);
		if (negate && (t == IS_NOT_TRUE || t == IS_NOT_FALSE))
			return classify_bool_column(var, t == IS_NOT_FALSE);
		return NULL;
	}
	if (IsA(clause, NullTest) && !((NullTest *) clause)->argisrow)
	{
		NullTest   *nt = (NullTest *) clause;
		Oid			optype;
		Oid			castfunc;
		Var		   *var = column_of((Node *) nt->arg, relid, &optype, &castfunc);
		PfQual	   *q;

		if (var == NULL)
			return NULL;
		q = palloc0(sizeof(PfQual));
		q->attnum = var->varattno;
		q->coltype = var->vartype;
		q->is_null_test = true;
		q->null_test = (nt->nulltesttype == IS_NULL) != negate ?
			IS_NULL : IS_NOT_NULL;
		q->value_known = true;
		return q;
	}
	if (IsA(clause, ScalarArrayOpExpr))
		return negate ? NULL : classify_in_list((ScalarArrayOpExpr *) clause, relid);
	if (IsA(clause, OpExpr))
	{
		PfQual	   *q = classify_comparison((OpExpr *) clause, relid, negate);

		if (q == NULL && !negate)
			q = classify_like((OpExpr *) clause, relid);
		return q;
	}
	return NULL;
}

PfQual *
pf_qual_classify(Node *clause, Index relid)
{
	return classify(clause, relid, false);
}

/* Does a qual compare text in an order other than byte order? */
static bool
needs_value_order(PfQual *q)
{
	ListCell   *lc;

	if (q->order_not_bytes)
		return true;
	foreach(lc, q->args)
		if (needs_value_order((PfQual *) lfirst(lc)))
			return true;
	return false;
}

/*
 * The prunable quals among baserel's restriction clauses.  Those for file
 * statistics (for_files false) compare text in byte order only; those for
 * virtual columns' values (for_files) may use any collation.
 */
static List *
rel_quals(RelOptInfo *baserel, bool for_files)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, baserel->baserestrictinfo)
	{
		RestrictInfo *rinfo = (RestrictInfo *) lfirst(lc);
		PfQual	   *q = pf_qual_classify((Node *) rinfo->clause, baserel->relid);

		if (q && (for_files || !needs_value_order(q)))
			result = lappend(result, q);
	}
	return result;
}

List *
pf_prune_quals(RelOptInfo *baserel)
{
	return rel_quals(baserel, false);
}

List *
pf_file_prune_quals(RelOptInfo *baserel)
{
	return rel_quals(baserel, true);
}

List *
pf_prune_quals_from_clauses(List *clauses, Index relid)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, clauses)
	{
		PfQual	   *q = pf_qual_classify((Node *) lfirst(lc), relid);

		if (q && q->value_known && !needs_value_order(q))
			result = lappend(result, q);
	}
	return result;
}

/* ----------------------------------------------------------------
 * Values and the same-type form
 * ----------------------------------------------------------------
 */

int
pf_qual_compare(PfQual *q, Datum column_value, Datum value)
{
	if (OidIsValid(q->castfunc))
		column_value = FunctionCall1(&q->cast, column_value);
	return DatumGetInt32(FunctionCall2Coll(&q->cmp, q->collation,
										   column_value, value));
}

static bool
is_nan_value(Oid type, Datum v)
{
	return (type == FLOAT4OID && isnan(DatumGetFloat4(v))) ||
		(type == FLOAT8OID && isnan(DatumGetFloat8(v)));
}

/*
 * The values a column of a discrete type can hold, as int64: every value
 * a file can give lies in [*lo, *hi] (dates and timestamps: the finite
 * ones PostgreSQL accepts).
 */
static bool
discrete_domain(Oid type, int64 *lo, int64 *hi)
{
	switch (type)
	{
		case INT2OID:
			*lo = PG_INT16_MIN;
			*hi = PG_INT16_MAX;
			return true;
		case INT4OID:
			*lo = PG_INT32_MIN;
			*hi = PG_INT32_MAX;
			return true;
		case INT8OID:
			*lo = PG_INT64_MIN;
			*hi = PG_INT64_MAX;
			return true;
		case DATEOID:
			*lo = DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE;
			*hi = DATE_END_JULIAN - POSTGRES_EPOCH_JDATE - 1;
			return true;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			*lo = MIN_TIMESTAMP;
			*hi = END_TIMESTAMP - 1;
			return true;
		default:
			return false;
	}
}

static Datum
discrete_datum(Oid type, int64 v)
{
	switch (type)
	{
		case INT2OID:
			return Int16GetDatum((int16) v);
		case INT4OID:
			return Int32GetDatum((int32) v);
		case DATEOID:
			return DateADTGetDatum((DateADT) v);
		default:
			return Int64GetDatum(v);
	}
}

/*
 * The largest column value x in [lo, hi] with cmp(x, value) < 0 (<= 0
 * with or_equal), by bisection: the comparison is monotone in x.  False
 * when there is none.
 */
static bool
last_below(PfQual *q, Datum value, bool or_equal, int64 lo, int64 hi,
		   int64 *out)
{
#define BELOW(x) (or_equal ? \
	pf_qual_compare(q, discrete_datum(q->coltype, (x)), value) <= 0 : \
	pf_qual_compare(q, discrete_datum(q->coltype, (x)), value) < 0)
	int64		a = lo;
	int64		b = hi;

	if (!BELOW(lo))
		return false;
	if (BELOW(hi))
	{
		*out = hi;
		return true;
	}
	/* BELOW(a), !BELOW(b) */
	while ((uint64) b - (uint64) a > 1)
	{
		int64		mid = (int64) ((uint64) a + ((uint64) b - (uint64) a) / 2);

		if (BELOW(mid))
			a = mid;
		else
			b = mid;
	}
#undef BELOW
	*out = a;
	return true;
}

/*
 * The same-type form of "column strategy value" for a discrete column:
 * the comparisons with the value split the domain at the last value below
 * it and the last value not above it.
 */
static PfQualNorm
discrete_form(PfQual *q, int strategy, Datum value, int *nstrategy,
			  Datum *nvalue)
{
	int64		lo;
	int64		hi;
	int64		lt;
	int64		le;
	bool		has_lt;
	bool		has_le;
	int64		first_eq;

	if (!discrete_domain(q->coltype, &lo, &hi))
		return PF_NORM_NONE;
	has_lt = last_below(q, value, false, lo, hi, &lt);
	has_le = last_below(q, value, true, lo, hi, &le);
	switch (strategy)
	{
		case BTLessStrategyNumber:
			if (!has_lt)
				return PF_NORM_NEVER;
			if (lt == hi)
				return PF_NORM_ALWAYS;
			*nstrategy = BTLessEqualStrategyNumber;
			*nvalue = discrete_datum(q->coltype, lt);
			return PF_NORM_CMP;
		case BTLessEqualStrategyNumber:
			if (!has_le)
				return PF_NORM_NEVER;
			if (le == hi)
				return PF_NORM_ALWAYS;
			*nstrategy = BTLessEqualStrategyNumber;
			*nvalue = discrete_datum(q->coltype, le);
			return PF_NORM_CMP;
		case BTGreaterStrategyNumber:
			if (!has_le)
				return PF_NORM_ALWAYS;
			if (le == hi)
				return PF_NORM_NEVER;
			*nstrategy = BTGreaterStrategyNumber;
			*nvalue = discrete_datum(q->coltype, le);
			return PF_NORM_CMP;
		case BTGreaterEqualStrategyNumber:
			if (!has_lt)
				return PF_NORM_ALWAYS;
			if (lt == hi)
				return PF_NORM_NEVER;
			*nstrategy = BTGreaterStrategyNumber;
			*nvalue = discrete_datum(q->coltype, lt);
			return PF_NORM_CMP;
		case BTEqualStrategyNumber:
		case PF_NOT_EQUAL_STRATEGY:
			/* the values equal to it: (lt, le] */
			first_eq = has_lt ? lt + 1 : lo;
			if (!has_le || le < first_eq)
				return strategy == BTEqualStrategyNumber ?
					PF_NORM_NEVER : PF_NORM_ALWAYS;
			if (le != first_eq)
				return PF_NORM_NONE;	/* a cast that is not one-to-one */
			*nstrategy = strategy;
			*nvalue = discrete_datum(q->coltype, le);
			return PF_NORM_CMP;
	}
	return PF_NORM_NONE;
}

/* The same-type form of "column strategy value". */
static PfQualNorm
same_type_form(PfQual *q, int strategy, Datum value, int *nstrategy,
			   Datum *nvalue, Oid *ntype)
{
	/* the column's own operator, or a float column against any float */
	if (!OidIsValid(q->castfunc) &&
		(q->valtype == q->coltype ||
		 ((q->coltype == FLOAT4OID || q->coltype == FLOAT8OID) &&
		  (q->valtype == FLOAT4OID || q->valtype == FLOAT8OID))))
	{
		*nstrategy = strategy;
		*nvalue = value;
		*ntype = q->valtype;
		return PF_NORM_CMP;
	}
	*ntype = q->coltype;
	return discrete_form(q, strategy, value, nstrategy, nvalue);
}

Oid
pf_qual_same_type(PfQual *q)
{
	int64		lo;
	int64		hi;

	if (q->is_bool || q->is_null_test || q->prune_only)
		return InvalidOid;
	/* a rounding cast may make several column values equal the value */
	if (OidIsValid(q->castfunc) && !one_to_one_cast(q->castfunc) &&
		(q->in_list || q->strategy == BTEqualStrategyNumber ||
		 q->strategy == PF_NOT_EQUAL_STRATEGY))
		return InvalidOid;
	if (!OidIsValid(q->castfunc) &&
		(q->valtype == q->coltype ||
		 ((q->coltype == FLOAT4OID || q->coltype == FLOAT8OID) &&
		  (q->valtype == FLOAT4OID || q->valtype == FLOAT8OID))))
		return q->valtype;
	return discrete_domain(q->coltype, &lo, &hi) ? q->coltype : InvalidOid;
}

static void
normalize(PfQual *q)
{
	q->norm = PF_NORM_NONE;
	q->norm_num_elems = 0;
	if (q->is_bool || q->is_null_test || q->prune_only || !q->value_known)
		return;
	if (q->value_null)
	{
		q->norm = PF_NORM_NEVER;
		return;
	}
	if (q->in_list)
	{
		q->norm_elems = palloc(sizeof(Datum) * Max(1, q->num_elems));
		for (int i = 0; i < q->num_elems; i++)
		{
			int			s;
			Datum		v;
			PfQualNorm	n;

			CHECK_FOR_INTERRUPTS();
			n = same_type_form(q, BTEqualStrategyNumber, q->elems[i], &s, &v,
							   &q->norm_type);
			if (n == PF_NORM_NONE)
				return;
			if (n == PF_NORM_CMP)
				q->norm_elems[q->norm_num_elems++] = v;
		}
		q->norm_strategy = BTEqualStrategyNumber;
		q->norm = q->norm_num_elems > 0 ? PF_NORM_CMP : PF_NORM_NEVER;
		return;
	}
	q->norm = same_type_form(q, q->strategy, q->value, &q->norm_strategy,
							 &q->norm_value, &q->norm_type);
}

void
pf_prune_qual_set_value(PfQual *q, Datum value, bool isnull)
{
	q->value_known = true;
	q->value_null = isnull;
	q->value = value;
	q->value_is_nan = false;
	if (q->in_list)
	{
		q->num_elems = 0;
		if (!isnull)
		{
			ArrayType  *array = DatumGetArrayTypeP(value);
			int16		elmlen;
			bool		elmbyval;
			char		elmalign;
			Datum	   *elems;
			bool	   *nulls;
			int			nelems;

			get_typlenbyvalalign(q->valtype, &elmlen, &elmbyval, &elmalign);
			deconstruct_array(array, q->valtype, elmlen, elmbyval, elmalign,
							  &elems, &nulls, &nelems);
			q->elems = palloc(sizeof(Datum) * Max(1, nelems));
			for (int i = 0; i < nelems; i++)
			{
				if (nulls[i])
					continue;	/* "= NULL" is never true */
				/* a NaN element may match NaN values, which statistics omit */
				if (is_nan_value(q->valtype, elems[i]))
					q->value_is_nan = true;
				q->elems[q->num_elems++] = datumCopy(elems[i], elmbyval, elmlen);
			}
		}
		/* no element (or a NULL array): no row matches */
		q->value_null = q->num_elems == 0;
	}
	else if (!isnull)
		q->value_is_nan = is_nan_value(q->valtype, value);
	normalize(q);
}

void
pf_qual_evaluate(PfQual *q, ExprState *state, ExprContext *econtext,
				 MemoryContext cxt)
{
	bool		isnull;
	Datum		value;
	int16		typlen;
	bool		typbyval;
	MemoryContext old;

	value = ExecEvalExprSwitchContext(state, econtext, &isnull);
	get_typlenbyval(q->exprtype, &typlen, &typbyval);
	old = MemoryContextSwitchTo(cxt);
	if (!isnull)
		value = datumCopy(value, typbyval, typlen);
	pf_prune_qual_set_value(q, value, isnull);
	MemoryContextSwitchTo(old);
}

static bool
has_exec_param_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXEC)
		return true;
	return expression_tree_walker(node, has_exec_param_walker, context);
}

bool
pf_qual_has_exec_param(PfQual *q)
{
	return has_exec_param_walker((Node *) q->expr, NULL);
}

/* ----------------------------------------------------------------
 * Plans
 * ----------------------------------------------------------------
 */

List *
pf_qual_to_list(PfQual *q)
{
	List	   *l = list_make5_int(q->attnum, q->strategy, (int) q->cmpproc,
								   (int) q->collation, (int) q->valtype);

	l = lappend_int(l, (int) q->coltype);
	l = lappend_int(l, (int) q->exprtype);
	l = lappend_int(l, (int) q->castfunc);
	l = lappend_int(l, q->in_list);
	l = lappend_int(l, q->order_not_bytes);
	return l;
}

PfQual *
pf_qual_from_list(List *ints, MemoryContext cxt)
{
	PfQual	   *q = MemoryContextAllocZero(cxt, sizeof(PfQual));

	q->attnum = (AttrNumber) list_nth_int(ints, 0);
	q->strategy = list_nth_int(ints, 1);
	q->cmpproc = (Oid) list_nth_int(ints, 2);
	q->collation = (Oid) list_nth_int(ints, 3);
	q->valtype = (Oid) list_nth_int(ints, 4);
	q->coltype = (Oid) list_nth_int(ints, 5);
	q->exprtype = (Oid) list_nth_int(ints, 6);
	q->castfunc = (Oid) list_nth_int(ints, 7);
	q->in_list = list_nth_int(ints, 8) != 0;
	q->order_not_bytes = list_nth_int(ints, 9) != 0;
	fmgr_info_cxt(q->cmpproc, &q->cmp, cxt);
	if (OidIsValid(q->castfunc))
		fmgr_info_cxt(q->castfunc, &q->cast, cxt);
	return q;
}

/* ----------------------------------------------------------------
 * Pruning helpers
 * ----------------------------------------------------------------
 */

bool
pf_range_excludes(PfQual *q, Oid deftyp, Datum min, Datum max)
{
	bool		excluded = false;

	if (q->prune_only && q->is_bool)
		return false;			/* not a leaf */
	/* floats: NaN is above everything in PostgreSQL, and not in bounds */
	if ((deftyp == FLOAT4OID || deftyp == FLOAT8OID) &&
		(q->strategy == BTGreaterStrategyNumber ||
		 q->strategy == BTGreaterEqualStrategyNumber ||
		 q->strategy == PF_NOT_EQUAL_STRATEGY ||
		 q->value_is_nan))
		return false;
	if (q->in_list)
	{
		/* excluded when every element is outside [min, max] */
		excluded = true;
		for (int i = 0; i < q->num_elems && excluded; i++)
			if (pf_qual_compare(q, min, q->elems[i]) <= 0 &&
				pf_qual_compare(q, max, q->elems[i]) >= 0)
				excluded = false;
		return excluded;
	}
	switch (q->strategy)
	{
		case BTLessStrategyNumber:
			excluded = pf_qual_compare(q, min, q->value) >= 0;
			break;
		case BTLessEqualStrategyNumber:
			excluded = pf_qual_compare(q, min, q->value) > 0;
			break;
		case BTEqualStrategyNumber:
			excluded = pf_qual_compare(q, min, q->value) > 0 ||
				pf_qual_compare(q, max, q->value) < 0;
			break;
		case BTGreaterEqualStrategyNumber:
			excluded = pf_qual_compare(q, max, q->value) < 0;
			break;
		case BTGreaterStrategyNumber:
			excluded = pf_qual_compare(q, max, q->value) <= 0;
			break;
		case PF_NOT_EQUAL_STRATEGY:
			/* every non-null value equals the constant */
			excluded = pf_qual_compare(q, min, q->value) == 0 &&
				pf_qual_compare(q, max, q->value) == 0;
			break;
	}
	return excluded;
}

bool
pf_qual_bounds_exclude(PfQual *q, const PfQualBounds *b)
{
	bool		all_null = b->has_null_count && b->num_rows > 0 &&
		b->null_count >= b->num_rows;

	if (!q->value_known)
		return false;
	if (q->is_null_test)
	{
		if (q->null_test == IS_NULL)
			return b->has_null_count && b->null_count == 0;
		return all_null;
	}
	if (q->value_null || q->norm == PF_NORM_NEVER || all_null)
		return true;			/* no comparison holds */
	/* min/max are in byte order: only a collation of that order compares */
	if (!b->has_min_max || q->order_not_bytes)
		return false;
	return pf_range_excludes(q, b->type, b->min, b->max);
}

bool
pf_qual_excludes(PfQual *q, PfQualLeafExcludes leaf_excludes, void *arg)
{
	ListCell   *lc;

	if (!q->is_bool)
		return leaf_excludes(q, arg);
	foreach(lc, q->args)
	{
		bool		arm = pf_qual_excludes((PfQual *) lfirst(lc),
										   leaf_excludes, arg);

		if (q->bool_op == AND_EXPR && arm)
			return true;
		if (q->bool_op == OR_EXPR && !arm)
			return false;
	}
	return q->bool_op == OR_EXPR;
}
