/*-------------------------------------------------------------------------
 *
 * agg_topn.c
 *	  Aggregate pushdown: ORDER BY <aggregate or group key> LIMIT n (top-N).
 *
 * A query such as
 *		SELECT userid, count(*) FROM hits GROUP BY userid
 *		ORDER BY count(*) DESC LIMIT 10
 * whose aggregation is pushed down (agg_plan.c) would hand every group to
 * a Sort and a Limit above the scan.  At UPPERREL_FINAL this file offers
 * a path of the whole query instead: the same pushed aggregation whose
 * groups are kept in a bounded sort (PostgreSQL's tuplesort with a bound,
 * a heap of the best offset + n rows) inside the scan, which then returns
 * at most n rows, already ordered.  The sort keys must be columns the
 * scan returns (group keys or aggregates), ordered by their own sort
 * operators, collations and NULLS FIRST/LAST, so the answer is one a
 * Sort would give (ties may come in another order, as SQL allows).
 *
 * Only a constant LIMIT (and OFFSET) is pushed: a parameter's value is
 * not known when the path is chosen.  No DISTINCT, window functions,
 * set-returning functions, FOR UPDATE or WITH TIES: those sit between the
 * groups and the LIMIT.  HAVING (the plan's qual, over the scan's rows)
 * is applied to each group before it may enter the sort, so the rows
 * returned are the best of those that pass it.
 *
 * Most groups of a high-cardinality GROUP BY cannot make the top rows:
 * when the first sort key is a count or an integer key, a heap of its
 * best values so far skips any group strictly worse than all of them
 * before its row is formed, so only a few groups reach the sort (with
 * no second sort key, ties with the worst are skipped too: SQL lets
 * ties come in any order, so any of them is a valid answer).
 *
 * The plan's fdw_private carries, as its PfAggPrivateTopN element, a List:
 *	String		the row count (LIMIT)
 *	String		the rows skipped first (OFFSET)
 *	List		per sort key, Integer: the scan output column (1-based)
 *	List		per sort key, String: the sort operator's OID
 *	List		per sort key, String: the collation's OID
 *	List		per sort key, Integer: 1 when NULLS FIRST
 *	String		the keys as EXPLAIN shows them
 *
 * IDENTIFICATION
 *	  src/fdw/agg_topn.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_opfamily.h"
#include "utils/tuplesort.h"

#include "fdw/agg_int.h"

/* Most rows (offset + count) whose first key values the prefilter keeps. */
#define PF_TOPN_MAX_PREFILTER	(1 << 20)

/* Executor state of a pushed top-N. */
typedef struct PfAggTopN
{
	int64		count;			/* LIMIT */
	int64		offset;			/* OFFSET */
	int			nkeys;
	AttrNumber *attnos;
	Oid		   *sortops;
	Oid		   *collations;
	bool	   *nulls_first;
	Tuplesortstate *sort;		/* NULL until the groups are sorted */
	TupleTableSlot *sorted_slot;	/* a row as the sort returns it */
	int64		returned;		/* rows returned so far */
	int64		groups_sorted;	/* for EXPLAIN ANALYZE */

	/*
	 * The first sort key's best offset + count values so far, when it is a
	 * count or an integer key in integer order (prefilter): a heap whose
	 * top is the worst of them.  A group strictly worse than that top
	 * cannot be among the rows returned and is never formed as a row.
	 */
	bool		prefilter;
	bool		descending;		/* of the first key */
	int64	   *best;
	int64		nbest;
	char	   *text;			/* for EXPLAIN */
} PfAggTopN;

/* ----------------------------------------------------------------
 * Planning
 * ----------------------------------------------------------------
 */

/* A constant LIMIT or OFFSET's value into *v; false if not constant. */
static bool
const_count(Node *n, int64 *v, bool is_limit)
{
	Const	   *c;

	if (n == NULL)
	{
		*v = 0;
		return !is_limit;
	}
	if (!IsA(n, Const))
		return false;
	c = (Const *) n;
	if (c->constisnull)
		return false;			/* LIMIT ALL / NULL: nothing to bound */
	*v = DatumGetInt64(c->constvalue);
	return *v >= 0;				/* a negative one errors at run time */
}

/* The pushed-down aggregation path agg_plan.c added to the grouped rel. */
static ForeignPath *
pushed_group_path(RelOptInfo *grouped_rel)
{
	ListCell   *lc;

	foreach(lc, grouped_rel->pathlist)
	{
		Path	   *p = (Path *) lfirst(lc);

		if (IsA(p, ForeignPath) && p->parent == grouped_rel &&
			((ForeignPath *) p)->fdw_private != NIL)
			return (ForeignPath *) p;
	}
	return NULL;
}

void
pf_agg_topn_add_path(PlannerInfo *root, RelOptInfo *input_rel,
					 RelOptInfo *final_rel, FinalPathExtraData *extra)
{
	Query	   *parse = root->parse;
	RelOptInfo *grouped_rel;
	ForeignPath *group_path;
	ForeignPath *path;
	List	   *gpriv;
	List	   *scan_tlist;
	PfPlanState *ps;
	RangeTblEntry *rte;
	Index		rti;
	int64		count;
	int64		offset;
	List	   *attnos = NIL;
	List	   *sortops = NIL;
	List	   *collations = NIL;
	List	   *nulls_first = NIL;
	StringInfoData text;
	ListCell   *lc;
	double		rows;
	Cost		cost;
	List	   *spec;

	if (final_rel->fdw_private != NULL || extra == NULL || !extra->limit_needed)
		return;
	if (parse->sortClause == NIL || parse->distinctClause != NIL ||
		parse->hasWindowFuncs || parse->hasTargetSRFs || parse->rowMarks != NIL ||
		parse->setOperations != NULL ||
		parse->limitOption != LIMIT_OPTION_COUNT)
		return;
	if (!const_count(parse->limitCount, &count, true) ||
		!const_count(parse->limitOffset, &offset, false) ||
		count > PG_INT64_MAX - offset)
		return;

	grouped_rel = fetch_upper_rel(root, UPPERREL_GROUP_AGG, NULL);
	ps = (PfPlanState *) grouped_rel->fdw_private;
	if (ps == NULL || (group_path = pushed_group_path(grouped_rel)) == NULL)
		return;
	gpriv = group_path->fdw_private;
	scan_tlist = (List *) linitial(gpriv);
	rti = (Index) intVal(lfourth(gpriv));
	rte = planner_rt_fetch(rti, root);

	/* every sort key: a column the scan returns */
	initStringInfo(&text);
	appendStringInfo(&text, INT64_FORMAT, count);
	if (offset > 0)
		appendStringInfo(&text, " offset " INT64_FORMAT, offset);
	appendStringInfoString(&text, " by ");
	foreach(lc, parse->sortClause)
	{
		SortGroupClause *sgc = (SortGroupClause *) lfirst(lc);
		TargetEntry *tle = get_sortgroupref_tle(sgc->tleSortGroupRef,
												root->processed_tlist);
		TargetEntry *col = NULL;
		ListCell   *ls;
		bool		descending;

		foreach(ls, scan_tlist)
			if (equal(((TargetEntry *) lfirst(ls))->expr, tle->expr))
				col = (TargetEntry *) lfirst(ls);
		if (col == NULL || !OidIsValid(sgc->sortop))
			return;
		/* an ordering operator of a btree family; reverse for DESC */
		if (!OidIsValid(get_equality_op_for_ordering_op(sgc->sortop, &descending)))
			return;
		attnos = lappend_int(attnos, col->resno);
		sortops = lappend(sortops, makeString(psprintf("%u", sgc->sortop)));
		collations = lappend(collations,
							 makeString(psprintf("%u", exprCollation((Node *) tle->expr))));
		nulls_first = lappend_int(nulls_first, sgc->nulls_first ? 1 : 0);
		appendStringInfo(&text, "%s%s%s%s", lc == list_head(parse->sortClause) ? "" : ", ",
						 pf_agg_deparse((Node *) tle->expr, rte->relid, rti),
						 descending ? " DESC" : "",
						 sgc->nulls_first != descending ?
						 (sgc->nulls_first ? " NULLS FIRST" : " NULLS LAST") : "");
	}

	/*
	 * Cost: the aggregation's, plus a comparison per group; a Sort over
	 * the same path with the Limit's bound costs about twice that and
	 * passes every group up the plan.
	 */
	rows = Min(group_path->path.rows, (double) count);
	cost = group_path->path.total_cost +
		cpu_operator_cost * group_path->path.rows;
	final_rel->fdw_private = ps;
	spec = list_make5(makeString(psprintf(INT64_FORMAT, count)),
					  makeString(psprintf(INT64_FORMAT, offset)),
					  attnos, sortops,
					  list_make3(collations, nulls_first, makeString(text.data)));
	path = pf_create_foreign_upper_path(root, final_rel,
										root->upper_targets[UPPERREL_FINAL],
										rows, cost, cost, root->sort_pathkeys,
										NULL, lappend(list_copy(gpriv), spec));
	add_path(final_rel, (Path *) path);
	/* and the same in parallel participants, each for its groups */
	pf_agg_add_partitioned_topn_path(root, final_rel, group_path, spec,
									 count, offset);
}

/* ----------------------------------------------------------------
 * Execution
 * ----------------------------------------------------------------
 */

/* The top-N of a plan's fdw_private element, or NULL when there is none. */
PfAggTopN *
pf_agg_topn_begin(List *spec)
{
	PfAggTopN  *t;
	List	   *attnos;
	List	   *sortops;
	List	   *rest;
	ListCell   *lc;
	int			k;

	if (spec == NIL)
		return NULL;
	t = palloc0(sizeof(PfAggTopN));
	t->count = strtoi64(strVal(linitial(spec)), NULL, 10);
	t->offset = strtoi64(strVal(lsecond(spec)), NULL, 10);
	attnos = (List *) lthird(spec);
	sortops = (List *) lfourth(spec);
	rest = (List *) list_nth(spec, 4);
	t->nkeys = list_length(attnos);
	t->attnos = palloc(sizeof(AttrNumber) * t->nkeys);
	t->sortops = palloc(sizeof(Oid) * t->nkeys);
	t->collations = palloc(sizeof(Oid) * t->nkeys);
	t->nulls_first = palloc(sizeof(bool) * t->nkeys);
	k = 0;
	foreach(lc, attnos)
		t->attnos[k++] = (AttrNumber) lfirst_int(lc);
	k = 0;
	foreach(lc, sortops)
		t->sortops[k++] = (Oid) strtoul(strVal(lfirst(lc)), NULL, 10);
	k = 0;
	foreach(lc, (List *) linitial(rest))
		t->collations[k++] = (Oid) strtoul(strVal(lfirst(lc)), NULL, 10);
	k = 0;
	foreach(lc, (List *) lsecond(rest))
		t->nulls_first[k++] = lfirst_int(lc) != 0;
	t->text = strVal(lthird(rest));
	{
		/* the integers' own < or > (not some other family's order) */
		int			strategy = get_op_opfamily_strategy(t->sortops[0],
														INTEGER_BTREE_FAM_OID);
		int64		bound = t->count + t->offset;

		t->prefilter = bound <= PF_TOPN_MAX_PREFILTER &&
			(strategy == BTLessStrategyNumber || strategy == BTGreaterStrategyNumber);
		t->descending = strategy == BTGreaterStrategyNumber;
		if (t->prefilter)
			t->best = palloc(sizeof(int64) * Max(1, bound));
	}
	return t;
}

/* Is a a strictly better first key value than b? */
static inline bool
better(const PfAggTopN *t, int64 a, int64 b)
{
	return t->descending ? a > b : a < b;
}

/*
 * Should the group whose first sort key is v be sorted?  False when the
 * heap holds offset + count values all strictly better than v; else v
 * joins the heap (replacing its worst value when full).
 */
static bool
prefilter_keeps(PfAggTopN *t, int64 v)
{
	int64		bound = t->count + t->offset;
	int64		i;

	if (t->nbest == bound)
	{
		if (better(t, t->best[0], v))
			return false;
		if (!better(t, v, t->best[0]))
		{
			/*
			 * A tie with the worst: a later sort key decides; without one
			 * the rows already sorted are as good an answer.
			 */
			return t->nkeys > 1;
		}
		/* v replaces the worst: sift it down below better values */
		t->best[0] = v;
		i = 0;
		for (;;)
		{
			int64		l = 2 * i + 1;
			int64		w = i;
			int64		tmp;

			if (l < t->nbest && better(t, t->best[w], t->best[l]))
				w = l;
			if (l + 1 < t->nbest && better(t, t->best[w], t->best[l + 1]))
				w = l + 1;
			if (w == i)
				break;
			tmp = t->best[i];
			t->best[i] = t->best[w];
			t->best[w] = tmp;
			i = w;
		}
		return true;
	}
	/* not full: sift v up from the end */
	i = t->nbest++;
	while (i > 0 && better(t, t->best[(i - 1) / 2], v))
	{
		t->best[i] = t->best[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	t->best[i] = v;
	return true;
}

/*
 * The next of the top rows into slot (cleared at the end).  The first
 * call sorts the groups, keeping the best offset + count.
 */
TupleTableSlot *
pf_agg_topn_next(PfAggTopN *t, PfAggScanState *st, TupleTableSlot *slot,
				 PlanState *node)
{
	ExprState  *having = node->qual;
	ExprContext *econtext = node->ps_ExprContext;

	if (t->count == 0 || t->returned >= t->count)
		return ExecClearTuple(slot);	/* LIMIT 0 reads nothing */
	if (t->sort == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(st->cxt);
		uint32		g;

		t->sort = tuplesort_begin_heap(slot->tts_tupleDescriptor, t->nkeys,
									   t->attnos, t->sortops, t->collations,
									   t->nulls_first, work_mem, NULL,
									   TUPLESORT_ALLOWBOUNDED);
		/* ALLOWBOUNDED: since 17 other sorts keep tuples in a bump context */
		tuplesort_set_bound(t->sort, t->count + t->offset);
		if (t->sorted_slot == NULL)
			t->sorted_slot = MakeSingleTupleTableSlot(slot->tts_tupleDescriptor,
													  &TTSOpsMinimalTuple);
		MemoryContextSwitchTo(old);
		t->groups_sorted = 0;
		t->nbest = 0;
		while ((g = pf_agg_next_group(st)) != PF_AGG_NO_GROUP)
		{
			int64		v;
			bool		isnull;

			CHECK_FOR_INTERRUPTS();
			if (having != NULL)
			{
				/*
				 * A group HAVING drops must neither take a place in the
				 * sort nor be a best value of the prefilter.
				 */
				pf_agg_group_row(st, g, slot);
				ResetExprContext(econtext);
				econtext->ecxt_scantuple = slot;
				if (!ExecQual(having, econtext))
					continue;
				if (t->prefilter &&
					pf_agg_group_int(st, g, t->attnos[0] - 1, &v, &isnull) &&
					!isnull && !prefilter_keeps(t, v))
					continue;
				tuplesort_puttupleslot(t->sort, slot);
				t->groups_sorted++;
				continue;
			}
			/* a NULL first key is always sorted: NULLS FIRST may take it */
			if (t->prefilter &&
				pf_agg_group_int(st, g, t->attnos[0] - 1, &v, &isnull) &&
				!isnull && !prefilter_keeps(t, v))
				continue;
			pf_agg_group_row(st, g, slot);
			tuplesort_puttupleslot(t->sort, slot);
			t->groups_sorted++;
		}
		tuplesort_performsort(t->sort);
		for (int64 i = 0; i < t->offset; i++)
			if (!tuplesort_gettupleslot(t->sort, true, false, t->sorted_slot, NULL))
				break;
	}
	if (!tuplesort_gettupleslot(t->sort, true, false, t->sorted_slot, NULL))
		return ExecClearTuple(slot);
	t->returned++;
	return ExecCopySlot(slot, t->sorted_slot);
}

/* Forget the sorted rows: a rescan sorts the groups again. */
void
pf_agg_topn_reset(PfAggTopN *t)
{
	if (t == NULL)
		return;
	if (t->sort != NULL)
		tuplesort_end(t->sort);
	t->sort = NULL;
	t->returned = 0;
}

/* EXPLAIN: "Pushed Top-N: 10 by count(*) DESC", and the groups sorted. */
void
pf_agg_topn_explain(PfAggTopN *t, ExplainState *es)
{
	if (t == NULL)
		return;
	ExplainPropertyText("Pushed Top-N", t->text, es);
	if (es->analyze)
		ExplainPropertyInteger("Groups Sorted", NULL, t->groups_sorted, es);
}
