/*-------------------------------------------------------------------------
 *
 * agg_refused.c
 *	  Aggregate pushdown: naming why it was refused.
 *
 * agg_plan.c gives up at the first piece the vector code cannot compute;
 * the reason goes on the base relation's PfPlanState and from there into
 * its scan's plan (PfScanPrivateAggRefused), where EXPLAIN (VERBOSE) shows
 * it.  When the whole program does not compile, the real compiler is run
 * again on one piece at a time (each condition, each group key, each
 * aggregate) to find the first one that fails, so the reason never
 * disagrees with what the compiler accepts.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_refused.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "rewrite/rewriteManip.h"
#include "nodes/nodeFuncs.h"
#include "utils/regproc.h"

#include "fdw/agg_int.h"

/*
 * Nodes the deparser may not print outside a full plan's context: besides
 * subplans and placeholders, executor parameters (an outer query's value
 * in a correlated subquery: PostgreSQL 17's deparser looks for the plan
 * that sets them and crashes without one) and Vars of any other relation
 * or query level (the context below names one relation).
 */
static bool
unprintable_walker(Node *node, void *context)
{
	Index		rti = *(Index *) context;

	if (node == NULL)
		return false;
	if (IsA(node, PlaceHolderVar) || IsA(node, GroupingFunc) ||
		IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) ||
		IsA(node, SubLink))
		return true;
	if (IsA(node, Param) && ((Param *) node)->paramkind != PARAM_EXTERN)
		return true;
	if (IsA(node, Var) &&
		(((Var *) node)->varlevelsup != 0 || ((Var *) node)->varno != rti))
		return true;
	return expression_tree_walker(node, unprintable_walker, context);
}

/*
 * Text of an expression over relation rti, columns named as in the table.
 * Planning computes it for every refused query, so it must never fail:
 * what the deparser might not print stays unnamed.
 */
char *
pf_agg_deparse(Node *expr, Oid relid, Index rti)
{
	Node	   *copy;

	if (unprintable_walker(expr, &rti))
		return pstrdup("(an expression with a subquery, parameter or placeholder)");
	copy = copyObject(expr);

	/* the context below knows one relation, range table index 1 */
	if (rti != 1)
		ChangeVarNodes(copy, (int) rti, 1, 0);
	return deparse_expression(copy,
							  deparse_context_for(get_rel_name(relid), relid),
							  false, false);
}

/* Does the program of this one piece compile? */
static bool
piece_compiles(Relation rel, Index rti, List *quals, List *group_vars,
			   List *scan_tlist)
{
	return pf_agg_compile_program(rel, rti, quals, group_vars, scan_tlist) != NULL;
}

/* Why one Aggref the compiler refused was refused. */
static char *
aggref_refusal(Relation rel, Index rti, Aggref *agg)
{
	Oid			relid = RelationGetRelid(rel);
	char	   *text = pf_agg_deparse((Node *) agg, relid, rti);
	const char *name = get_func_name(agg->aggfnoid);
	Aggref	   *count;
	Expr	   *arg;

	if (agg->aggdistinct != NIL)
		return psprintf("DISTINCT aggregate %s", text);
	if (agg->aggfilter != NULL)
		return psprintf("aggregate with FILTER %s", text);
	if (agg->aggorder != NIL || agg->aggkind != AGGKIND_NORMAL)
		return psprintf("ordered aggregate %s", text);
	if (get_func_namespace(agg->aggfnoid) != PG_CATALOG_NAMESPACE ||
		name == NULL ||
		(strcmp(name, "count") != 0 && strcmp(name, "sum") != 0 &&
		 strcmp(name, "avg") != 0 && strcmp(name, "min") != 0 &&
		 strcmp(name, "max") != 0 && strcmp(name, "bool_and") != 0 &&
		 strcmp(name, "bool_or") != 0 && strcmp(name, "every") != 0) ||
		list_length(agg->args) != 1)
		return psprintf("aggregate function %s",
						format_procedure(agg->aggfnoid));

	/*
	 * A supported function: either its argument is an expression the
	 * vector code does not evaluate (count(arg) does not compile either),
	 * or the function does not take that type (or, for min and max, an
	 * expression rather than a column).
	 */
	arg = ((TargetEntry *) linitial(agg->args))->expr;
	count = copyObject(agg);
	count->aggfnoid = F_COUNT_ANY;
	count->aggtype = INT8OID;
	count->aggtranstype = INT8OID;
	if (!piece_compiles(rel, rti, NIL, NIL,
						list_make1(makeTargetEntry((Expr *) count, 1, NULL, false))))
		return psprintf("expression %s", pf_agg_deparse((Node *) arg, relid, rti));
	if ((strcmp(name, "min") == 0 || strcmp(name, "max") == 0) &&
		!IsA(arg, Var) && !(IsA(arg, RelabelType) &&
							IsA(((RelabelType *) arg)->arg, Var)))
		return psprintf("%s of an expression, %s", name, text);
	return psprintf("%s of type %s, %s", name,
					format_type_be(exprType((Node *) arg)), text);
}

char *
pf_agg_refusal_of_program(Relation rel, Index rti, List *quals,
						  List *group_vars, List *scan_tlist)
{
	Oid			relid = RelationGetRelid(rel);
	ListCell   *lc;

	foreach(lc, quals)
	{
		Node	   *qual = (Node *) lfirst(lc);
		const char *cannot;

		if (!piece_compiles(rel, rti, list_make1(qual), NIL, NIL))
		{
			/* not even PostgreSQL's expressions inside the scan: say why */
			if (!pf_agg_pgexpr_evaluable(qual, rti, &cannot))
				return psprintf("condition %s (%s)",
								pf_agg_deparse(qual, relid, rti), cannot);
			return psprintf("condition %s", pf_agg_deparse(qual, relid, rti));
		}
	}
	foreach(lc, group_vars)
	{
		Expr	   *key = (Expr *) lfirst(lc);
		Oid			collid = exprCollation((Node *) key);

		if (!piece_compiles(rel, rti, NIL, list_make1(key),
							list_make1(makeTargetEntry(key, 1, NULL, false))))
		{
			char	   *col = pf_agg_deparse((Node *) key, relid, rti);

			if (OidIsValid(collid) && !get_collation_isdeterministic(collid))
				return psprintf("group key %s with nondeterministic collation %s",
								col, get_collation_name(collid));
			return psprintf("group key %s of type %s", col,
							format_type_be(exprType((Node *) key)));
		}
	}
	foreach(lc, scan_tlist)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		if (IsA(tle->expr, Aggref) &&
			!piece_compiles(rel, rti, NIL, NIL, list_make1(tle)))
			return aggref_refusal(rel, rti, (Aggref *) tle->expr);
	}
	/* each piece compiles alone: their combination does not */
	return pstrdup("the combination of conditions, keys and aggregates");
}
