/*-------------------------------------------------------------------------
 *
 * scan_topn.c
 *	  Top-N of a plain scan: a dynamic threshold on the first sort key of
 *	  "SELECT ... [WHERE ...] ORDER BY key ... LIMIT n" that lets the scan
 *	  drop rows which cannot be among the n first before it converts their
 *	  other columns.
 *
 * PostgreSQL's Sort and Limit stay above the scan and decide the answer;
 * the scan only withholds rows that the Sort would throw away.  It keeps a
 * bounded heap of the n best first-key values among the rows it returned
 * (rows that passed every qual); once the heap is full its worst value is
 * the threshold, and a row whose first key sorts strictly after it cannot
 * be among the first n rows of the Sort's output: n returned rows precede
 * it whatever the later keys.  Rows equal to the threshold are returned
 * (ties on the first key are decided by the later keys, above).
 *
 * Planning assumptions (checked against the planners of PostgreSQL 15, 17
 * and 18: grouping_planner() sets root->limit_tuples before query_planner()
 * and only for a known LIMIT without grouping, aggregates, DISTINCT,
 * window functions or set-returning functions in the target list):
 *	- the query's only base relation is the scanned table (no join, no
 *	  inheritance child), and it is a SELECT without row marks or set
 *	  operations;
 *	- root->query_pathkeys is the ORDER BY, and root->limit_tuples > 0 is
 *	  count + offset (a LIMIT 0 counts as 1, a Param LIMIT leaves it -1);
 *	- the first pathkey is a column of the table (a Var, maybe under a
 *	  binary-compatible RelabelType), ordered by the btree operator the
 *	  pathkey names, with its collation and NULLS FIRST/LAST: the same
 *	  comparison the Sort above makes (SortSupport from that operator);
 *	- every qual is evaluated inside the scan (late quals, scan.c): quals
 *	  with subplans or system columns, which scan.c leaves to the executor,
 *	  turn top-N off, and so does a sorted path (no Sort above it).
 * The executor side re-checks the last point: should the executor still
 * evaluate quals after the scan, the threshold is not used.
 *
 * IDENTIFICATION
 *	  src/fdw/scan_topn.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "access/sysattr.h"
#include "commands/explain.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parse_coerce.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/sortsupport.h"

#include "fdw/parquet_fdw.h"
#include "fdw/pg_compat.h"
#include "fdw/qual.h"
#include "fdw/source.h"

/*
 * Beyond so many rows the heap would cost more than the Sort saves: the
 * Sort's own bounded heap is as large, and few rows would be dropped.
 */
#define PF_TOPN_MAX_ROWS	100000

/* entry_verdict: the entry sorts after a threshold (see PfTopN) */
#define VERDICT_REJECTED	PG_UINT32_MAX

/* parquet_fdw.enable_scan_topn */
static bool pf_enable_scan_topn = true;

void
pf_topn_define_guc(void)
{
	DefineCustomBoolVariable("parquet_fdw.enable_scan_topn",
							 "Lets plain scans under ORDER BY ... LIMIT drop rows that cannot be among the first ones.",
							 "The scan keeps the n best values of the first sort key and skips rows and row groups that sort after them (see scan_topn.c).",
							 &pf_enable_scan_topn,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
}

/* Positions in the plan's list (fdw_private member PfScanPrivateTopN). */
enum
{
	TOPN_ATTNUM,
	TOPN_SORTOP,
	TOPN_COLLATION,
	TOPN_NULLS_FIRST,
	TOPN_DESCENDING,
	TOPN_ROWS,
	TOPN_NKEYS,
	TOPN_NFIELDS
};

struct PfTopN
{
	AttrNumber	attnum;
	int			rows;			/* n: count + offset */
	SortSupportData ssup;
	int16		typlen;
	bool		typbyval;
	MemoryContext cxt;			/* the kept values */
	/* a max-heap in sort order: values[0] sorts last, the threshold */
	int			count;
	Datum	   *values;
	bool	   *nulls;
	/*
	 * Unit skipping: "key <= threshold" (">=" descending) as a prune qual,
	 * its value set to the current threshold; NULL when statistics cannot
	 * judge.  It holds for no non-null value of a unit it excludes; when
	 * nulls sort first, the unit must have no null either.
	 */
	PfPruneQual *unit_qual;
	List	   *unit_quals;
	/*
	 * The open unit's dictionary of the key, judged entry by entry: a
	 * row's value is compared once per entry and threshold, not once per
	 * row (a strcoll under most collations).  entry_verdict[e] is
	 * VERDICT_REJECTED once entry e sorted after a threshold (the
	 * threshold only tightens: for good), the generation of the threshold
	 * it was found not to sort after, or 0 when not judged yet.
	 */
	uint32	   *entry_verdict;
	uint32		entry_count;	/* 0: no dictionary in use */
	uint32		threshold_gen;	/* bumped whenever values[0] changes */
	/* for EXPLAIN ANALYZE */
	int64		rows_dropped;
	int64		units_skipped;
};

/* ----------------------------------------------------------------
 * Planning
 * ----------------------------------------------------------------
 */

/* Does node read a system column or the whole row of relid? */
static bool
reads_system_column(Node *node, Index relid)
{
	Bitmapset  *attrs = NULL;
	int			first;

	pull_varattnos(node, relid, &attrs);
	first = bms_next_member(attrs, -1);
	return first >= 0 && first <= 0 - FirstLowInvalidHeapAttributeNumber;
}

List *
pf_topn_plan(PlannerInfo *root, RelOptInfo *baserel, List *clauses,
			 List *attnos)
{
	Query	   *parse = root->parse;
	PathKey    *pk;
	EquivalenceClass *ec;
	Var		   *var = NULL;
	Oid			sortop;
	bool		descending;
	ListCell   *lc;

	if (!pf_enable_scan_topn || root->limit_tuples <= 0 || root->limit_tuples > PF_TOPN_MAX_ROWS ||
		root->query_pathkeys == NIL)
		return NIL;
	if (parse->commandType != CMD_SELECT || parse->setOperations != NULL ||
		parse->rowMarks != NIL || parse->hasAggs || parse->groupClause != NIL ||
		parse->groupingSets != NIL || parse->distinctClause != NIL ||
		parse->hasWindowFuncs || parse->hasTargetSRFs || root->hasHavingQual)
		return NIL;
	if (baserel->reloptkind != RELOPT_BASEREL ||
		bms_membership(root->all_baserels) != BMS_SINGLETON ||
		!bms_is_member(baserel->relid, root->all_baserels))
		return NIL;

	/* quals the scan leaves to the executor (scan.c, late_qual_setup) */
	if (contain_subplans((Node *) clauses) ||
		reads_system_column((Node *) clauses, baserel->relid) ||
		reads_system_column((Node *) baserel->reltarget->exprs, baserel->relid))
		return NIL;

	/* the first sort key: a column of ours */
	pk = (PathKey *) linitial(root->query_pathkeys);
	ec = pk->pk_eclass;
	if (ec->ec_has_volatile)
		return NIL;
	foreach(lc, ec->ec_members)
	{
		EquivalenceMember *em = (EquivalenceMember *) lfirst(lc);
		Expr	   *e = em->em_expr;

		if (em->em_is_child || em->em_is_const)
			continue;
		while (IsA(e, RelabelType))
			e = ((RelabelType *) e)->arg;
		if (IsA(e, Var) && ((Var *) e)->varno == baserel->relid &&
			((Var *) e)->varlevelsup == 0 && ((Var *) e)->varattno > 0 &&
			list_member_int(attnos, ((Var *) e)->varattno) &&
			IsBinaryCoercible(((Var *) e)->vartype, em->em_datatype))
		{
			var = (Var *) e;
			sortop = get_opfamily_member(pk->pk_opfamily, em->em_datatype,
										 em->em_datatype,
										 PF_PATHKEY_STRATEGY(pk));
			if (OidIsValid(sortop))
				break;
			var = NULL;
		}
	}
	if (var == NULL)
		return NIL;
	descending = PF_PATHKEY_STRATEGY(pk) == BTGreaterStrategyNumber;

	return list_make5(makeInteger(var->varattno), makeInteger((int) sortop),
					  makeInteger((int) ec->ec_collation),
					  makeBoolean(pk->pk_nulls_first),
					  makeBoolean(descending));
}

/* The plan's list completed with n and the key count (see pf_topn_plan). */
List *
pf_topn_plan_rows(List *spec, PlannerInfo *root)
{
	spec = lappend(spec, makeInteger((int) root->limit_tuples));
	return lappend(spec, makeInteger(list_length(root->query_pathkeys)));
}

/* ----------------------------------------------------------------
 * Execution
 * ----------------------------------------------------------------
 */

PfTopN *
pf_topn_begin(List *spec, Relation rel, MemoryContext parent)
{
	PfTopN	   *t;
	MemoryContext cxt;
	Oid			typid;

	cxt = AllocSetContextCreate(parent, "parquet_fdw top-n",
								ALLOCSET_SMALL_SIZES);
	t = MemoryContextAllocZero(cxt, sizeof(PfTopN));
	t->cxt = cxt;
	t->attnum = (AttrNumber) intVal(list_nth(spec, TOPN_ATTNUM));
	t->rows = intVal(list_nth(spec, TOPN_ROWS));
	t->ssup.ssup_cxt = cxt;
	t->ssup.ssup_collation = (Oid) intVal(list_nth(spec, TOPN_COLLATION));
	t->ssup.ssup_nulls_first = boolVal(list_nth(spec, TOPN_NULLS_FIRST));
	PrepareSortSupportFromOrderingOp((Oid) intVal(list_nth(spec, TOPN_SORTOP)),
									 &t->ssup);
	typid = TupleDescAttr(RelationGetDescr(rel), t->attnum - 1)->atttypid;
	get_typlenbyval(typid, &t->typlen, &t->typbyval);
	t->threshold_gen = 1;
	t->values = MemoryContextAlloc(cxt, sizeof(Datum) * t->rows);
	t->nulls = MemoryContextAlloc(cxt, sizeof(bool) * t->rows);

	/*
	 * Statistics hold the non-null values' bounds: a unit whose least
	 * value (greatest, descending) sorts after the threshold has no
	 * non-null row that can be returned.  Only for a key compared as its
	 * own type, the bounds' type.
	 */
	{
		Oid			opfamily;
		Oid			opcintype;
		PfOrderingDirection direction;
		Oid			sortop = (Oid) intVal(list_nth(spec, TOPN_SORTOP));

		if (get_ordering_op_properties(sortop, &opfamily, &opcintype, &direction) &&
			opcintype == typid)
		{
			Oid			cmpproc = get_opfamily_proc(opfamily, typid, typid,
													BTORDER_PROC);
			bool		descending = boolVal(list_nth(spec, TOPN_DESCENDING));

			if (OidIsValid(cmpproc))
			{
				PfPruneQual *q = MemoryContextAllocZero(cxt, sizeof(PfPruneQual));

				q->attnum = t->attnum;
				q->strategy = descending ? BTGreaterEqualStrategyNumber :
					BTLessEqualStrategyNumber;
				q->cmpproc = cmpproc;
				fmgr_info_cxt(cmpproc, &q->cmp, cxt);
				q->collation = t->ssup.ssup_collation;
				q->order_not_bytes = OidIsValid(q->collation) &&
					!pf_collate_is_c(q->collation);
				q->coltype = q->valtype = q->exprtype = typid;
				t->unit_qual = q;
				t->unit_quals = lappend(NIL, q);
			}
		}
	}
	return t;
}

bool
pf_topn_unit_excluded(PfTopN *t, const PfSourceOps *ops, PfSource *src,
					  int unit, int col, Oid typid)
{
	MemoryContext old;

	if (t->unit_qual == NULL || t->count < t->rows || t->nulls[0] ||
		!src->present[col])
		return false;
	if (t->ssup.ssup_nulls_first)
	{
		Datum		min;
		Datum		max;
		int64		nulls;

		if (!ops->column_bounds(src, unit, col, typid, &min, &max, &nulls) ||
			nulls != 0)
			return false;
	}
	old = MemoryContextSwitchTo(t->cxt);
	pf_prune_qual_set_value(t->unit_qual, t->values[0], false);
	MemoryContextSwitchTo(old);
	if (ops->unit_prune(src, unit, t->unit_quals) == PF_PRUNE_NONE)
		return false;
	t->units_skipped++;
	return true;
}

AttrNumber
pf_topn_attnum(const PfTopN *t)
{
	return t->attnum;
}

/* < 0: heap entry i sorts before entry j. */
static inline int
entry_cmp(PfTopN *t, int i, int j)
{
	return ApplySortComparator(t->values[i], t->nulls[i],
							   t->values[j], t->nulls[j], &t->ssup);
}

static inline void
entry_swap(PfTopN *t, int i, int j)
{
	Datum		v = t->values[i];
	bool		n = t->nulls[i];

	t->values[i] = t->values[j];
	t->nulls[i] = t->nulls[j];
	t->values[j] = v;
	t->nulls[j] = n;
}

bool
pf_topn_rejects(PfTopN *t, Datum value, bool isnull)
{
	if (t->count < t->rows)
		return false;
	if (ApplySortComparator(value, isnull, t->values[0], t->nulls[0],
							&t->ssup) > 0)
	{
		t->rows_dropped++;
		return true;
	}
	return false;
}

void
pf_topn_use_dictionary(PfTopN *t, uint32 entries)
{
	if (entries == t->entry_count)
		return;
	if (t->entry_verdict != NULL)
		pfree(t->entry_verdict);
	t->entry_verdict = NULL;
	t->entry_count = 0;
	if (entries == 0)
		return;
	t->entry_verdict = MemoryContextAllocExtended(t->cxt,
												  sizeof(uint32) * entries,
												  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	t->entry_count = entries;
}

void
pf_topn_forget_dictionary(PfTopN *t)
{
	if (t->entry_count > 0)
		memset(t->entry_verdict, 0, sizeof(uint32) * t->entry_count);
}

bool
pf_topn_rejects_entry(PfTopN *t, uint32 entry, Datum value, bool isnull)
{
	uint32		verdict;

	if (t->count < t->rows)
		return false;
	if (entry >= t->entry_count)
		return pf_topn_rejects(t, value, isnull);
	verdict = t->entry_verdict[entry];
	if (verdict == t->threshold_gen)
		return false;
	if (verdict != VERDICT_REJECTED)
	{
		if (ApplySortComparator(value, isnull, t->values[0], t->nulls[0],
								&t->ssup) <= 0)
		{
			t->entry_verdict[entry] = t->threshold_gen;
			return false;
		}
		t->entry_verdict[entry] = VERDICT_REJECTED;
	}
	t->rows_dropped++;
	return true;
}

bool
pf_topn_rejects_all(PfTopN *t, const Datum *values, const bool *nulls,
					const uint32 *entries, uint32 nrows)
{
	return pf_topn_rejects_rows(t, values, nulls, entries, NULL, nrows);
}

bool
pf_topn_rejects_rows(PfTopN *t, const Datum *values, const bool *nulls,
					 const uint32 *entries, const uint32 *rows, uint32 nrows)
{
	int64		dropped = t->rows_dropped;

	if (t->count < t->rows)
		return false;
	for (uint32 i = 0; i < nrows; i++)
	{
		uint32		r = rows != NULL ? rows[i] : i;
		bool		rejected = entries != NULL ?
			pf_topn_rejects_entry(t, entries[r], values[r], nulls[r]) :
			pf_topn_rejects(t, values[r], nulls[r]);

		if (!rejected)
		{
			/* the rows go on to the row-by-row test, counted there */
			t->rows_dropped = dropped;
			return false;
		}
	}
	return true;
}

void
pf_topn_add(PfTopN *t, Datum value, bool isnull)
{
	MemoryContext old;
	int			i;

	if (t->count == t->rows)
	{
		/* a tie or worse leaves the threshold where it is */
		if (ApplySortComparator(value, isnull, t->values[0], t->nulls[0],
								&t->ssup) >= 0)
			return;
		if (!t->typbyval && !t->nulls[0])
			pfree(DatumGetPointer(t->values[0]));
		t->count--;
		t->values[0] = t->values[t->count];
		t->nulls[0] = t->nulls[t->count];
		/* sift down the moved last entry */
		i = 0;
		for (;;)
		{
			int			l = 2 * i + 1;
			int			worst = i;

			if (l < t->count && entry_cmp(t, l, worst) > 0)
				worst = l;
			if (l + 1 < t->count && entry_cmp(t, l + 1, worst) > 0)
				worst = l + 1;
			if (worst == i)
				break;
			entry_swap(t, i, worst);
			i = worst;
		}
	}

	old = MemoryContextSwitchTo(t->cxt);
	i = t->count++;
	t->nulls[i] = isnull;
	t->values[i] = isnull ? (Datum) 0 :
		datumCopy(value, t->typbyval, t->typlen);
	MemoryContextSwitchTo(old);
	/* sift up */
	while (i > 0 && entry_cmp(t, i, (i - 1) / 2) > 0)
	{
		entry_swap(t, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	/* a new threshold: entries judged not to sort after the old one are stale */
	if (t->count == t->rows)
	{
		t->threshold_gen++;
		if (t->threshold_gen == VERDICT_REJECTED)
		{
			t->threshold_gen = 1;
			pf_topn_forget_dictionary(t);
		}
	}
}

/* A unit and the best key its statistics promise. */
typedef struct UnitPromise
{
	int			unit;
	int			pos;			/* in the planned order */
	bool		known;			/* false: no usable bound, read first */
	Datum		best;
} UnitPromise;

static int
compare_promises(const void *a, const void *b, void *arg)
{
	const UnitPromise *pa = (const UnitPromise *) a;
	const UnitPromise *pb = (const UnitPromise *) b;
	int			c;

	if (pa->known != pb->known)
		return pa->known ? 1 : -1;
	if (pa->known)
	{
		c = ApplySortComparator(pa->best, false, pb->best, false,
								(SortSupport) arg);
		if (c != 0)
			return c;
	}
	/* the planned order among equals */
	return (pa->pos > pb->pos) - (pa->pos < pb->pos);
}

void
pf_topn_order_units(PfTopN *t, const PfSourceOps *ops, PfSource *src,
					int col, Oid typid, int *units, int nunits)
{
	MemoryContext tmp;
	MemoryContext old;
	UnitPromise *p;
	bool		descending = t->ssup.ssup_reverse;

	if (nunits < 2 || !src->present[col])
		return;
	tmp = AllocSetContextCreate(CurrentMemoryContext, "parquet_fdw top-n order",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(tmp);
	p = palloc(sizeof(UnitPromise) * nunits);
	for (int i = 0; i < nunits; i++)
	{
		Datum		min;
		Datum		max;
		int64		nulls;

		p[i].unit = units[i];
		p[i].pos = i;
		p[i].known = ops->column_bounds(src, units[i], col, typid, &min, &max,
										&nulls) &&
			nulls >= 0 && (nulls == 0 || !t->ssup.ssup_nulls_first);
		p[i].best = descending ? max : min;
	}
	qsort_arg(p, nunits, sizeof(UnitPromise), compare_promises, &t->ssup);
	for (int i = 0; i < nunits; i++)
		units[i] = p[i].unit;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
}

void
pf_topn_reset(PfTopN *t)
{
	for (int i = 0; i < t->count; i++)
		if (!t->typbyval && !t->nulls[i])
			pfree(DatumGetPointer(t->values[i]));
	t->count = 0;
	pf_topn_forget_dictionary(t);
}

bool
pf_topn_threshold(const PfTopN *t, Datum *value, bool *isnull)
{
	if (t->count < t->rows)
		return false;
	*value = t->values[0];
	*isnull = t->nulls[0];
	return true;
}

void
pf_topn_explain(List *spec, const PfTopN *t, Relation rel,
				const char *units_label, ExplainState *es)
{
	AttrNumber	attnum = (AttrNumber) intVal(list_nth(spec, TOPN_ATTNUM));
	bool		descending = boolVal(list_nth(spec, TOPN_DESCENDING));
	bool		nulls_first = boolVal(list_nth(spec, TOPN_NULLS_FIRST));
	const char *name = NameStr(TupleDescAttr(RelationGetDescr(rel),
											 attnum - 1)->attname);

	/* the direction and null order only where they differ from the default */
	ExplainPropertyText("Top-N Filter",
						psprintf("%s%s%s (n=%d%s)", quote_identifier(name),
								 descending ? " DESC" : "",
								 nulls_first != descending ?
								 (nulls_first ? " NULLS FIRST" : " NULLS LAST") : "",
								 intVal(list_nth(spec, TOPN_ROWS)),
								 intVal(list_nth(spec, TOPN_NKEYS)) > 1 ?
								 ", first of keys" : ""),
						es);
	if (es->analyze && t != NULL)
	{
		ExplainPropertyInteger("Rows Removed by Top-N Filter", NULL,
							   t->rows_dropped, es);
		if (t->unit_qual != NULL)
			ExplainPropertyInteger(psprintf("%s Skipped by Top-N Filter", units_label),
								   NULL, t->units_skipped, es);
	}
}
