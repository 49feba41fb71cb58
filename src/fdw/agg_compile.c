/*-------------------------------------------------------------------------
 *
 * agg_compile.c
 *	  Aggregate pushdown: restrictions, group keys and aggregates compiled
 *	  to a program (shared by planning and executor start).
 *
 * IDENTIFICATION
 *	  src/fdw/agg_compile.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/agg_int.h"
#include "catalog/pg_opfamily.h"
#include "fdw/vec_text.h"

/* ----------------------------------------------------------------
 * Compilation (shared by planning and executor start)
 * ----------------------------------------------------------------
 */

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

/* Set col's kind from its declared type; false if the vector code does not read it. */
static bool
set_column_kind(PfAggCol *col, Form_pg_attribute attr)
{
	switch (attr->atttypid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			col->kind = PF_COL_INT;
			return true;
		case FLOAT4OID:
			col->kind = PF_COL_F4;
			return true;
		case FLOAT8OID:
			col->kind = PF_COL_F8;
			return true;
		case NUMERICOID:
			/* the typmod must match the files' DECIMAL, checked per file */
			if (!numeric_typmod_parts(attr->atttypmod, &col->precision,
									  &col->scale))
				return false;
			col->kind = PF_COL_DEC;
			return true;
		case DATEOID:
			col->kind = PF_COL_DATE;
			return true;
		case TEXTOID:
			/* file bytes are UTF-8: they must be the database's bytes */
			if (GetDatabaseEncoding() != PG_UTF8 &&
				GetDatabaseEncoding() != PG_SQL_ASCII)
				return false;
			col->kind = PF_COL_TEXT;
			return true;
		case BOOLOID:
			col->kind = PF_COL_BOOL;
			return true;
		default:
			return false;
	}
}

/*
 * The column index of a Var of the relation, added when new; -1 if not a
 * user column of it.  With datum_only, any type (an input of a computed
 * column, read through convert() only); else one the vector code reads
 * (a datum-only column is then promoted).
 */
static int
compile_var(PfCompile *c, Var *var, bool datum_only)
{
	Form_pg_attribute attr;
	PfAggCol   *col = NULL;
	ListCell   *lc;
	int			index = -1;

	if (!IsA(var, Var) || (c->relid != 0 && var->varno != c->relid) ||
		var->varlevelsup != 0 ||
		var->varattno <= 0 ||
		var->varattno > RelationGetDescr(c->rel)->natts)
		return -1;
	attr = TupleDescAttr(RelationGetDescr(c->rel), var->varattno - 1);
	if (attr->attisdropped || attr->atttypid != var->vartype)
		return -1;
	foreach(lc, c->cols)
		if (((PfAggCol *) lfirst(lc))->attnum == var->varattno)
		{
			col = (PfAggCol *) lfirst(lc);
			index = foreach_current_index(lc);
		}
	if (col != NULL && (datum_only || !col->datum_only))
		return index;
	if (col == NULL)
	{
		col = palloc0(sizeof(PfAggCol));
		col->attnum = var->varattno;
		col->attname = pstrdup(NameStr(attr->attname));
		col->field_name = pf_get_column_name(RelationGetRelid(c->rel), col->attnum);
		col->typid = attr->atttypid;
		col->typmod = attr->atttypmod;
	}
	if (datum_only)
		col->datum_only = true;
	else if (!set_column_kind(col, attr))
		return -1;
	else
		col->datum_only = false;
	if (index < 0)
	{
		c->cols = lappend(c->cols, col);
		index = list_length(c->cols) - 1;
	}
	return index;
}

static int
compile_column(PfCompile *c, Var *var)
{
	return compile_var(c, var, false);
}

static PfAggCol *
get_col(PfCompile *c, int i)
{
	if (i >= PF_AGG_COMPUTED_BASE)
		return (PfAggCol *) list_nth(c->computed_cols, i - PF_AGG_COMPUTED_BASE);
	return (PfAggCol *) list_nth(c->cols, i);
}

/* The range table index of expr's columns (1 without any), for deparsing. */
static Index
expr_rti(Node *expr)
{
	List	   *vars = pull_var_clause(expr, 0);

	return vars != NIL ? ((Var *) linitial(vars))->varno : 1;
}

static Node *strip_relabel(Node *node);

/*
 * A boolean condition one vector filter evaluates, whose value is NULL
 * exactly where its column is: "column op constant" or LIKE, not IS NULL
 * (never NULL), IN (NULL elements) or a parameter (set per scan on the
 * program's filters only).
 */
static bool
compile_condition_kernel(PfCompile *c, Expr *expr, PfAggComputed *cm)
{
	PfAggFilter *f;

	if (exprType((Node *) expr) != BOOLOID || IsA(expr, Var))
		return false;
	f = palloc0(sizeof(PfAggFilter));
	if (!pf_agg_compile_filter(c, expr, f) || f->param_expr != NULL ||
		(f->kind != PF_FILTER_CMP && f->kind != PF_FILTER_LIKE) ||
		f->col >= PF_AGG_COMPUTED_BASE)
		return false;
	cm->kernel = PF_KERNEL_CONDITION;
	cm->kernel_col = f->col;
	cm->kernel_filter = f;
	return true;
}

/*
 * regexp_replace(column, 'pattern', 'replacement'), column ~ 'pattern'
 * and !~ over a stored text column, the pattern one vec_regex.c takes:
 * set cm to the regex kernel of agg_kernel.c.
 */
static bool
compile_regex_kernel(PfCompile *c, Expr *expr, PfAggComputed *cm)
{
	List	   *args;
	Oid			funcid;
	Oid			collid;
	Node	   *arg;
	Const	   *pattern;
	Const	   *repl = NULL;
	int			ci;

	if (IsA(expr, FuncExpr) &&
		((FuncExpr *) expr)->funcid == F_REGEXP_REPLACE_TEXT_TEXT_TEXT)
	{
		args = ((FuncExpr *) expr)->args;
		funcid = ((FuncExpr *) expr)->funcid;
		collid = ((FuncExpr *) expr)->inputcollid;
		if (list_length(args) != 3)
			return false;
		repl = (Const *) strip_relabel((Node *) lthird(args));
		if (!IsA(repl, Const) || repl->constisnull || repl->consttype != TEXTOID)
			return false;
	}
	else if (IsA(expr, OpExpr))
	{
		args = ((OpExpr *) expr)->args;
		funcid = get_opcode(((OpExpr *) expr)->opno);
		collid = ((OpExpr *) expr)->inputcollid;
		if ((funcid != F_TEXTREGEXEQ && funcid != F_TEXTREGEXNE) ||
			list_length(args) != 2)
			return false;
	}
	else
		return false;
	arg = strip_relabel((Node *) linitial(args));
	pattern = (Const *) strip_relabel((Node *) lsecond(args));
	if (!IsA(arg, Var) || !IsA(pattern, Const) || pattern->constisnull ||
		pattern->consttype != TEXTOID)
		return false;
	if (!pf_agg_regex_prepare(cm, funcid, collid,
							  DatumGetTextPP(pattern->constvalue),
							  repl ? DatumGetTextPP(repl->constvalue) : NULL))
		return false;
	ci = compile_column(c, (Var *) arg);
	if (ci < 0 || get_col(c, ci)->kind != PF_COL_TEXT)
	{
		cm->regex = NULL;
		return false;
	}
	cm->kernel = PF_KERNEL_REGEX;
	cm->kernel_col = ci;
	return true;
}

/*
 * length(), char_length(), octet_length() of a stored text column: set cm
 * to the vector kernel of agg_kernel.c.  The file's bytes are the
 * database's (set_column_kind: UTF-8 or SQL_ASCII), so characters are
 * UTF-8 code points, or bytes in SQL_ASCII.
 */
static bool
compile_kernel(PfCompile *c, Expr *expr, PfAggComputed *cm)
{
	FuncExpr   *fe = (FuncExpr *) expr;
	bool		chars;
	Node	   *arg;
	int			ci;

	if (compile_condition_kernel(c, expr, cm))
		return true;
	if (compile_regex_kernel(c, expr, cm))
		return true;
	if (!IsA(expr, FuncExpr) || list_length(fe->args) != 1)
		return false;
	switch (fe->funcid)
	{
		case F_LENGTH_TEXT:
		case F_CHAR_LENGTH_TEXT:
		case F_CHARACTER_LENGTH_TEXT:
			chars = true;
			break;
		case F_OCTET_LENGTH_TEXT:
			chars = false;
			break;
		default:
			return false;
	}
	arg = strip_relabel((Node *) linitial(fe->args));
	if (!IsA(arg, Var))
		return false;
	ci = compile_column(c, (Var *) arg);
	if (ci < 0 || get_col(c, ci)->kind != PF_COL_TEXT)
		return false;
	cm->kernel = PF_KERNEL_LENGTH;
	cm->kernel_col = ci;
	if (GetDatabaseEncoding() != PG_UTF8)
		cm->kernel_mode = VT_BYTES;
	else
		cm->kernel_mode = chars ? VT_UTF8_CHARS : VT_UTF8_BYTES;
	cm->memo_unit = -1;
	return true;
}

/*
 * The column PostgreSQL computes from expr (agg_pgexpr.c), added when new;
 * -1 when it cannot be evaluated there or its type is not one a computed
 * column holds.  Its index is PF_AGG_COMPUTED_BASE + j until the program
 * is complete.
 */
static int
compile_computed(PfCompile *c, Expr *expr)
{
	PfAggComputed *cm;
	PfAggCol   *col;
	List	   *vars;
	ListCell   *lc;

	if (!pf_agg_pgexpr_evaluable((Node *) expr, c->relid, NULL))
		return -1;
	foreach(lc, c->computed)
		if (equal(((PfAggComputed *) lfirst(lc))->expr, expr))
			return PF_AGG_COMPUTED_BASE + foreach_current_index(lc);
	col = palloc0(sizeof(PfAggCol));
	if (!pf_agg_pgexpr_kind(exprType((Node *) expr), col))
		return -1;
	cm = palloc0(sizeof(PfAggComputed));
	cm->expr = expr;
	cm->type = exprType((Node *) expr);
	vars = pull_var_clause((Node *) expr, 0);
	cm->args = palloc(sizeof(int) * Max(1, list_length(vars)));
	/* a kernel reads its stored column itself, no Datum inputs */
	if (!compile_kernel(c, expr, cm))
	{
		foreach(lc, vars)
		{
			int			ci = compile_var(c, (Var *) lfirst(lc), true);
			bool		seen = false;

			if (ci < 0)
				return -1;
			for (int k = 0; k < cm->nargs; k++)
				seen |= cm->args[k] == ci;
			if (!seen)
				cm->args[cm->nargs++] = ci;
		}
	}
	col->attname = pf_agg_deparse((Node *) expr,
								  RelationGetRelid(c->rel), expr_rti((Node *) expr));
	col->field_name = col->attname;
	c->computed = lappend(c->computed, cm);
	c->computed_cols = lappend(c->computed_cols, col);
	return PF_AGG_COMPUTED_BASE + list_length(c->computed) - 1;
}

/*
 * "expression op constant" (either side), the expression an integer that
 * a computed column holds (length(url) > 10): the expression is computed
 * (by a kernel when it has one) and compared by the vector filter, not
 * the whole condition row by row.
 */
static bool
compile_computed_cmp(PfCompile *c, Expr *clause, PfAggFilter *f)
{
	OpExpr	   *op = (OpExpr *) clause;
	Node	   *expr;
	Const	   *k;
	Oid			opno;
	Oid			etype;
	int			strategy;
	Oid			lefttype;
	Oid			righttype;

	if (!IsA(clause, OpExpr) || list_length(op->args) != 2)
		return false;
	expr = (Node *) linitial(op->args);
	k = (Const *) lsecond(op->args);
	opno = op->opno;
	if (IsA(expr, Const))
	{
		k = (Const *) expr;
		expr = (Node *) lsecond(op->args);
		opno = get_commutator(opno);
	}
	if (!OidIsValid(opno) || !IsA(k, Const) || k->constisnull ||
		IsA(expr, Var) || IsA(expr, Const))
		return false;
	etype = exprType(expr);
	if ((etype != INT2OID && etype != INT4OID && etype != INT8OID) ||
		(k->consttype != INT2OID && k->consttype != INT4OID &&
		 k->consttype != INT8OID))
		return false;
	if (op_in_opfamily(opno, INTEGER_BTREE_FAM_OID))
		get_op_opfamily_properties(opno, INTEGER_BTREE_FAM_OID, false,
								   &strategy, &lefttype, &righttype);
	else if (OidIsValid(get_negator(opno)) &&
			 op_in_opfamily(get_negator(opno), INTEGER_BTREE_FAM_OID))
	{
		get_op_opfamily_properties(get_negator(opno), INTEGER_BTREE_FAM_OID,
								   false, &strategy, &lefttype, &righttype);
		if (strategy != BTEqualStrategyNumber)
			return false;
		strategy = PF_NOT_EQUAL_STRATEGY;
	}
	else
		return false;
	memset(f, 0, sizeof(PfAggFilter));
	f->col = compile_computed(c, (Expr *) expr);
	if (f->col < 0)
		return false;
	f->kind = PF_FILTER_CMP;
	f->strategy = f->orig_strategy = strategy;
	f->valtype = k->consttype;
	f->ival = k->consttype == INT2OID ? DatumGetInt16(k->constvalue) :
		k->consttype == INT4OID ? DatumGetInt32(k->constvalue) :
		DatumGetInt64(k->constvalue);
	f->text = pf_agg_deparse((Node *) clause, RelationGetRelid(c->rel),
							 expr_rti((Node *) clause));
	return true;
}

/*
 * A condition the vector filters cannot evaluate, computed by PostgreSQL:
 * a boolean column filtered "= true" (false and NULL drop the row).  Not
 * one whose value the planner sends as a parameter (agg_plan.c pairs
 * those with the vector filters).
 */
static bool
compile_computed_filter(PfCompile *c, Expr *clause, PfAggFilter *f)
{
	PfQual	   *q = pf_qual_classify((Node *) clause, c->relid);

	if (q != NULL && !q->is_bool && !q->is_null_test && !q->value_known)
		return false;
	if (exprType((Node *) clause) != BOOLOID)
		return false;
	if (compile_computed_cmp(c, clause, f))
		return true;
	memset(f, 0, sizeof(PfAggFilter));
	f->col = compile_computed(c, clause);
	if (f->col < 0)
		return false;
	f->kind = PF_FILTER_CMP;
	f->strategy = f->orig_strategy = BTEqualStrategyNumber;
	f->bval = true;
	f->valtype = BOOLOID;
	f->text = get_col(c, f->col)->attname;
	return true;
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

int128_t
pf_agg_pow10_128(int n)
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
												 pf_agg_int128_to_numeric(pf_agg_pow10_128(col->scale), 0));
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
bool
pf_agg_filter_set_from_qual(PfAggFilter *f, const PfAggCol *col)
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
bool
pf_agg_filter_set_in_from_qual(PfAggFilter *f, const PfAggCol *col)
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
bool
pf_agg_compile_filter(PfCompile *c, Expr *clause, PfAggFilter *f)
{
	PfQual	   *q = pf_qual_classify((Node *) clause, c->relid);
	Var		   *var;
	PfAggCol   *col;
	const char *name;

	/* LIKE family: the vectorized matchers of vec_like.c */
	var = pf_agg_like_column(clause, c->relid);
	if (var != NULL)
	{
		f->col = compile_column(c, var);
		if (f->col < 0 || get_col(c, f->col)->kind != PF_COL_TEXT)
			return false;
		return pf_agg_filter_set_like(f, clause,
									  quote_identifier(get_col(c, f->col)->attname));
	}
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
		return pf_agg_filter_set_in_from_qual(f, col);
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
		return pf_agg_filter_set_from_qual(f, col);

	/* known at each (re)scan: the form's type must be one the column takes */
	f->valtype = pf_qual_same_type(q);
	f->param_expr = q->expr;
	return OidIsValid(f->valtype) && filter_type_ok(f, col, f->valtype);
}


/*
 * count(DISTINCT col) of a column whose values the group dictionaries
 * code (integers, dates, booleans, text) or agg_distinct.c keeps raw
 * (floats too, -0 = 0 and NaN = NaN as float8eq): values are distinct when
 * their codes are, so text needs a deterministic collation (equal = same
 * bytes).
 */
static bool
compile_count_distinct(PfCompile *c, Aggref *agg, const char *name, Expr *arg,
					   PfAggDef *def)
{
	const PfAggCol *col;

	if (strcmp(name, "count") != 0 || !IsA(arg, Var) ||
		list_length(agg->aggdistinct) != 1)
		return false;
	def->kind = PF_AGG_COUNT;
	def->distinct = true;
	def->arg = compile_expr(c, arg, false);
	if (def->arg == NULL || def->arg->op != PF_EXPR_COL)
		return false;
	col = get_col(c, def->arg->col);
	if (col->kind != PF_COL_INT && col->kind != PF_COL_TEXT &&
		col->kind != PF_COL_BOOL && col->kind != PF_COL_DATE &&
		col->kind != PF_COL_F4 && col->kind != PF_COL_F8)
		return false;
	if (col->kind == PF_COL_TEXT &&
		(!OidIsValid(agg->inputcollid) ||
		 !get_collation_isdeterministic(agg->inputcollid)))
		return false;
	def->from_stats = false;
	return true;
}

/*
 * An aggregate argument PostgreSQL computes (avg(length(url))): a column
 * of a computed integer, float, date, text or boolean expression.
 */
static PfAggExpr *
compile_computed_arg(PfCompile *c, Expr *arg)
{
	Oid			type = exprType((Node *) arg);
	PfAggExpr  *e;
	int			ci;
	ListCell   *lc;

	/* numerics need a scale known now; timestamps are no number here */
	if (type == NUMERICOID || type == TIMESTAMPOID || type == TIMESTAMPTZOID)
		return NULL;
	ci = compile_computed(c, arg);
	if (ci < 0)
		return NULL;
	foreach(lc, c->exprs)
	{
		PfAggExpr  *o = (PfAggExpr *) lfirst(lc);

		if (o->op == PF_EXPR_COL && o->col == ci)
			return o;
	}
	e = palloc0(sizeof(PfAggExpr));
	e->op = PF_EXPR_COL;
	e->type = type;
	e->num = num_of_type(type);
	e->col = ci;
	c->exprs = lappend(c->exprs, e);
	return e;
}

/*
 * bool_and(x) (every) and bool_or(x): min and max of x's values as 0/1
 * (false < true), NULLs skipped and no input NULL, as booland_statefunc
 * and boolor_statefunc give.  x a boolean column or a condition
 * PostgreSQL computes.
 */
static bool
compile_bool_agg(PfCompile *c, const char *name, Expr *arg, PfAggDef *def)
{
	if (exprType((Node *) arg) != BOOLOID || def->restype != BOOLOID)
		return false;
	def->kind = strcmp(name, "bool_or") == 0 ? PF_AGG_MAX : PF_AGG_MIN;
	def->arg = IsA(arg, Var) ? compile_expr(c, arg, false) :
		compile_computed_arg(c, arg);
	if (def->arg == NULL || def->arg->op != PF_EXPR_COL ||
		get_col(c, def->arg->col)->kind != PF_COL_BOOL)
		return false;
	def->from_stats = false;
	return true;
}

/* Compile one Aggref; NULL when not supported. */
static bool
compile_aggref(PfCompile *c, Aggref *agg, PfAggDef *def)
{
	char	   *name;
	Oid			argtype = InvalidOid;
	Expr	   *arg = NULL;

	if (agg->aggfilter != NULL ||
		agg->aggorder != NIL || agg->aggdirectargs != NIL ||
		agg->aggkind != AGGKIND_NORMAL || agg->agglevelsup != 0 ||
		agg->aggsplit != AGGSPLIT_SIMPLE || agg->aggvariadic)
		return false;
	if (get_func_namespace(agg->aggfnoid) != PG_CATALOG_NAMESPACE)
		return false;
	name = get_func_name(agg->aggfnoid);
	if (name == NULL)
		return false;
	def->sql_name = name;
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

	if (agg->aggdistinct != NIL)
		return compile_count_distinct(c, agg, name, arg, def);

	if (strcmp(name, "count") == 0)
	{
		def->kind = PF_AGG_COUNT;
		def->arg = compile_expr(c, arg, false);
		if (def->arg == NULL)
			def->arg = compile_expr(c, arg, true);
		if (def->arg == NULL)
			def->arg = compile_computed_arg(c, arg);
		if (def->arg == NULL)
			return false;
		/* a stored column's count is in its statistics, a computed one's not */
		def->from_stats = def->arg->op == PF_EXPR_COL &&
			def->arg->col < PF_AGG_COMPUTED_BASE;
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
	else if (strcmp(name, "bool_and") == 0 || strcmp(name, "every") == 0 ||
			 strcmp(name, "bool_or") == 0)
		return compile_bool_agg(c, name, arg, def);
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
			/* min, max of text: compared as text_larger/smaller do */
			if (IsA(arg, Var) && argtype == TEXTOID && def->restype == TEXTOID &&
				OidIsValid(agg->inputcollid))
			{
				def->collid = agg->inputcollid;
				break;
			}
			/*
			 * min, max: of a type compared as numbers; a column, or an
			 * expression of numbers (computed by the vector arithmetic, or
			 * else by PostgreSQL into a computed column)
			 */
			if (def->restype != argtype ||
				!(argtype == INT2OID || argtype == INT4OID ||
				  argtype == INT8OID || argtype == FLOAT4OID ||
				  argtype == FLOAT8OID || argtype == NUMERICOID ||
				  (argtype == DATEOID && IsA(arg, Var))))
				return false;
			break;
	}
	def->arg = compile_expr(c, arg, def->kind == PF_AGG_SUM ||
							def->kind == PF_AGG_AVG || !IsA(arg, Var));
	if (def->arg == NULL)
		def->arg = compile_computed_arg(c, arg);
	if (def->arg == NULL)
		return false;
	/* a stored column's bounds are in its statistics */
	if ((def->kind == PF_AGG_MIN || def->kind == PF_AGG_MAX) &&
		def->arg->op == PF_EXPR_COL && def->arg->col < PF_AGG_COMPUTED_BASE &&
		(def->arg->num == PF_NUM_INT || def->arg->num == PF_NUM_DATE ||
		 def->arg->num == PF_NUM_DEC))
		def->from_stats = true;
	return true;
}

/* A copy of expr whose columns all read range table index 1. */
static Node *
vars_to_one_mutator(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) copyObject(node);

		var->varno = 1;
		var->varnosyn = 1;
		var->varattnosyn = var->varattno;
		return (Node *) var;
	}
	return expression_tree_mutator(node, vars_to_one_mutator, context);
}

static Node *
vars_to_one(Node *expr)
{
	return vars_to_one_mutator(expr, NULL);
}

/* A computed column's index during compilation to its place in cols. */
static void
renumber_column(PfAggProgram *prog, int *col)
{
	if (*col >= PF_AGG_COMPUTED_BASE)
		*col = prog->ncols + (*col - PF_AGG_COMPUTED_BASE);
}

/*
 * Compile the whole query: restrictions (Expr list), group columns (Var
 * list) and the scan target list (group Vars and Aggrefs).  Returns NULL
 * when something cannot be pushed down.
 */
PfAggProgram *
pf_agg_compile_program(Relation rel, Index relid, List *quals, List *group_vars,
				List *scan_tlist)
{
	PfCompile	c;
	PfAggProgram *prog = palloc0(sizeof(PfAggProgram));
	List	   *aggs = NIL;
	List	   *computed_quals = NIL;
	List	   *norm_keys = NIL;
	int			nvector = 0;
	ListCell   *lc;
	int			i;

	memset(&c, 0, sizeof(c));
	c.rel = rel;
	c.relid = relid;
	c.prog = prog;

	/* the vector filters first, then those PostgreSQL computes */
	prog->nfilters = list_length(quals);
	prog->filters = palloc0(sizeof(PfAggFilter) * Max(1, prog->nfilters));
	foreach(lc, quals)
	{
		PfAggFilter *f = &prog->filters[nvector];

		if (pf_agg_compile_filter(&c, (Expr *) lfirst(lc), f))
			nvector++;
		else
		{
			memset(f, 0, sizeof(PfAggFilter));
			computed_quals = lappend(computed_quals, lfirst(lc));
		}
	}
	i = nvector;
	foreach(lc, computed_quals)
		if (!compile_computed_filter(&c, (Expr *) lfirst(lc), &prog->filters[i++]))
			return NULL;

	prog->nkeys = list_length(group_vars);
	prog->key_cols = palloc0(sizeof(int) * Max(1, prog->nkeys));
	foreach(lc, group_vars)
	{
		Expr	   *key = (Expr *) lfirst(lc);
		Oid			collid = exprCollation((Node *) key);
		int			ci;
		PfAggCol   *col;

		/* a column, else an expression PostgreSQL computes */
		ci = IsA(key, Var) ? compile_column(&c, (Var *) key) :
			compile_computed(&c, key);
		if (ci < 0)
			return NULL;
		col = get_col(&c, ci);
		if (col->kind != PF_COL_INT && col->kind != PF_COL_TEXT &&
			col->kind != PF_COL_BOOL && col->kind != PF_COL_DATE &&
			col->kind != PF_COL_F4 && col->kind != PF_COL_F8)
			return NULL;
		/* grouping text by bytes needs a deterministic collation */
		if (col->kind == PF_COL_TEXT && OidIsValid(collid) &&
			!get_collation_isdeterministic(collid))
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
		{
			/* a computed key: its columns' range table index may differ */
			Node	   *norm = vars_to_one((Node *) tle->expr);
			ListCell   *lg;

			if (norm_keys == NIL)
				foreach(lg, group_vars)
					norm_keys = lappend(norm_keys, vars_to_one(lfirst(lg)));
			out->is_key = true;
			out->index = -1;
			foreach(lg, norm_keys)
				if (!IsA(lfirst(lg), Var) && equal(lfirst(lg), norm))
					out->index = foreach_current_index(lg);
			if (out->index < 0)
				return NULL;
		}
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
	prog->ncomputed = list_length(c.computed);
	prog->cols = palloc0(sizeof(PfAggCol) * Max(1, prog->ncols + prog->ncomputed));
	i = 0;
	foreach(lc, c.cols)
		prog->cols[i++] = *(PfAggCol *) lfirst(lc);
	foreach(lc, c.computed_cols)
		prog->cols[i++] = *(PfAggCol *) lfirst(lc);
	prog->computed = palloc0(sizeof(PfAggComputed) * Max(1, prog->ncomputed));
	i = 0;
	foreach(lc, c.computed)
		prog->computed[i++] = *(PfAggComputed *) lfirst(lc);

	/* computed columns follow the stored ones */
	for (int f = 0; f < prog->nfilters; f++)
	{
		renumber_column(prog, &prog->filters[f].col);
		for (int k = 0; k < prog->filters[f].nvals; k++)
			renumber_column(prog, &prog->filters[f].vals[k].col);
	}
	for (int k = 0; k < prog->nkeys; k++)
		renumber_column(prog, &prog->key_cols[k]);
	foreach(lc, c.exprs)
		if (((PfAggExpr *) lfirst(lc))->op == PF_EXPR_COL)
			renumber_column(prog, &((PfAggExpr *) lfirst(lc))->col);
	return prog;
}

/*
 * Does a file's field hold what the program expects of column col: a flat
 * leaf whose default type is the declared type, in a physical type the
 * vector code reads?  Sets col->phys and flba_len.
 */
bool
pf_agg_field_fits(const PqFileMeta *meta, const PqSchemaNode *field, PfAggCol *col)
{
	Oid			deftyp;
	int32		defmod;
	const PqLogicalType *lt;

	if (field == NULL || col->datum_only)
		return true;			/* missing: null (missing_columns 'null');
								 * datum-only: convert() reads any field */
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
