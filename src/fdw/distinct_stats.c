/*-------------------------------------------------------------------------
 *
 * distinct_stats.c
 *	  Distinct-value estimates from the files' own sketches for the planner
 *	  (issue #17): Amudai shards carry a HyperLogLog estimate of each
 *	  string field's distinct values (CardinalityInfo, format notes 5.3).
 *
 * Planning notes, per file, the sketch of every column the scan reads
 * (pf_distinct_note_file); a get_relation_stats_hook then answers for
 * those columns of our foreign tables that ANALYZE has not described,
 * with a pg_statistic tuple that holds only stadistinct and stanullfrac,
 * so GROUP BY sizing (estimate_num_groups) and equality selectivity use
 * the sketch instead of the default of 200 values.  Files of one table are
 * summed (capped at the rows): exact for partitions with disjoint values,
 * an upper bound otherwise.  Columns whose files lack a sketch, and every
 * column once ANALYZE has run, keep PostgreSQL's usual estimates.
 *
 * IDENTIFICATION
 *	  src/fdw/distinct_stats.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_statistic.h"
#include "optimizer/pathnode.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "fdw/parquet_fdw.h"
#include "fdw/source.h"

static get_relation_stats_hook_type prev_relation_stats_hook = NULL;

/*
 * Add one open, bound file's sketches for cols to ps; a column without one
 * in this file becomes unknown for the table.
 */
void
pf_distinct_note_file(PfPlanState *ps, const PfSourceOps *ops, PfSource *src,
					  const PfSourceColumn *cols, int ncols, int natts)
{
	if (ops->column_distinct == NULL)
		return;
	if (ps->distinct == NULL)
	{
		ps->distinct_natts = natts;
		ps->distinct = palloc0(sizeof(double) * (natts + 1));
		ps->distinct_nulls = palloc0(sizeof(double) * (natts + 1));
	}
	for (int c = 0; c < ncols; c++)
	{
		AttrNumber	att = cols[c].attnum;
		double		distinct,
					nulls;

		if (att <= 0 || att > natts || ps->distinct[att] < 0)
			continue;
		if (ops->column_distinct(src, c, &distinct, &nulls))
		{
			ps->distinct[att] += distinct;
			ps->distinct_nulls[att] += nulls;
		}
		else
			ps->distinct[att] = -1;
	}
}

/* A pg_statistic tuple with only stadistinct and stanullfrac set. */
static HeapTuple
distinct_tuple(Oid relid, AttrNumber attnum, bool inh, double distinct,
			   double nullfrac)
{
	Relation	statrel = table_open(StatisticRelationId, AccessShareLock);
	Datum		values[Natts_pg_statistic];
	bool		nulls[Natts_pg_statistic];
	HeapTuple	tuple;

	memset(values, 0, sizeof(values));
	memset(nulls, false, sizeof(nulls));
	values[Anum_pg_statistic_starelid - 1] = ObjectIdGetDatum(relid);
	values[Anum_pg_statistic_staattnum - 1] = Int16GetDatum(attnum);
	values[Anum_pg_statistic_stainherit - 1] = BoolGetDatum(inh);
	values[Anum_pg_statistic_stanullfrac - 1] = Float4GetDatum((float4) nullfrac);
	values[Anum_pg_statistic_stawidth - 1] = Int32GetDatum(0);
	values[Anum_pg_statistic_stadistinct - 1] = Float4GetDatum((float4) distinct);
	for (int k = 0; k < STATISTIC_NUM_SLOTS; k++)
	{
		/* kinds, operators and collations 0: no slot holds anything */
		values[Anum_pg_statistic_stakind1 - 1 + k] = Int16GetDatum(0);
		values[Anum_pg_statistic_staop1 - 1 + k] = ObjectIdGetDatum(InvalidOid);
		values[Anum_pg_statistic_stacoll1 - 1 + k] = ObjectIdGetDatum(InvalidOid);
		nulls[Anum_pg_statistic_stanumbers1 - 1 + k] = true;
		nulls[Anum_pg_statistic_stavalues1 - 1 + k] = true;
	}
	tuple = heap_form_tuple(RelationGetDescr(statrel), values, nulls);
	table_close(statrel, AccessShareLock);
	return tuple;
}

static void
free_distinct_tuple(HeapTuple tuple)
{
	heap_freetuple(tuple);
}

static bool
pf_relation_stats(PlannerInfo *root, RangeTblEntry *rte, AttrNumber attnum,
				  VariableStatData *vardata)
{
	RelOptInfo *rel = vardata->rel;
	PfPlanState *ps;
	HeapTuple	analyzed;
	double		rows;

	if (prev_relation_stats_hook != NULL &&
		prev_relation_stats_hook(root, rte, attnum, vardata))
		return true;
	if (rte->rtekind != RTE_RELATION || rte->relkind != RELKIND_FOREIGN_TABLE ||
		rel == NULL || rel->fdwroutine == NULL ||
		rel->fdwroutine->GetForeignRelSize != pfGetForeignRelSize ||
		rel->fdw_private == NULL)
		return false;
	ps = (PfPlanState *) rel->fdw_private;
	if (ps->distinct == NULL || attnum <= 0 || attnum > ps->distinct_natts ||
		ps->distinct[attnum] <= 0)
		return false;

	/* statistics from ANALYZE describe the table better: leave them */
	analyzed = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(rte->relid),
							   Int16GetDatum(attnum), BoolGetDatum(rte->inh));
	if (HeapTupleIsValid(analyzed))
	{
		ReleaseSysCache(analyzed);
		return false;
	}
	rows = Max(rel->tuples, 1);
	vardata->statsTuple = distinct_tuple(rte->relid, attnum, rte->inh,
										 Min(ps->distinct[attnum], rows),
										 Min(ps->distinct_nulls[attnum] / rows, 1.0));
	vardata->freefunc = free_distinct_tuple;
	return true;
}

void
pf_distinct_stats_install(void)
{
	prev_relation_stats_hook = get_relation_stats_hook;
	get_relation_stats_hook = pf_relation_stats;
}
