/*-------------------------------------------------------------------------
 *
 * agg_explain.c
 *	  Aggregate pushdown: EXPLAIN of a pushed-down aggregate.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_explain.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/agg_int.h"


static const char *
agg_kind_name(const PfAggDef *def)
{
	if (def->distinct)
		return "count(DISTINCT)";
	/* bool_and, every and bool_or run as min and max of 0/1 */
	if (def->sql_name != NULL && def->kind != PF_AGG_COUNT_STAR)
		return def->sql_name;
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

	const PfSourceOps *ops = pf_source_of_kind((PfScanKind)
											   intVal(list_nth(plan->fdw_private,
															   PfAggPrivateSourceKind)));

	pf_explain_files(st->filenames, 0, ops->file_label, es);
	foreach(lc, st->rowgroups)
		nread += list_length((List *) lfirst(lc));
	ExplainPropertyText(ops->units_label,
						psprintf("%d of %d", nread, st->total_rowgroups), es);

	initStringInfo(&buf);
	for (int a = 0; a < prog->naggs; a++)
		appendStringInfo(&buf, "%s%s", a > 0 ? ", " : "", agg_kind_name(&prog->aggs[a]));
	ExplainPropertyText("Aggregate Pushdown", buf.data, es);
	pf_agg_topn_explain(st->topn, es);
	pf_agg_xchg_explain(st, es);
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
		ExplainPropertyInteger(psprintf("%s Read", ops->units_label), NULL,
							   st->rowgroups_read, es);
		if (ops->raw_field != NULL)	/* the statistics shortcuts need raw values */
			ExplainPropertyInteger(psprintf("%s From Statistics", ops->units_label),
								   NULL, st->rowgroups_stats, es);
		if (prog->nfilters > 0)
			ExplainPropertyInteger(psprintf("%s Skipped at Run Time", ops->units_label),
								   NULL, st->rowgroups_skipped, es);
		if (st->sscan.rows_skipped_by_index > 0)
			ExplainPropertyInteger(ops->index_label, NULL,
								   st->sscan.rows_skipped_by_index, es);
		ExplainPropertyInteger("Groups", NULL, st->groups_total, es);
		if (prog->ncomputed > 0)
		{
			uint64		rows;
			uint64		evaluations;

			pf_agg_pgexpr_counts(st, &rows, &evaluations);
			ExplainPropertyText("Computed Values",
								psprintf(UINT64_FORMAT " (" UINT64_FORMAT " evaluated)",
										 rows, evaluations), es);
		}
		if (st->passes > 1)
			ExplainPropertyInteger("Partition Passes", NULL, st->passes, es);
		if (ops->counts_io)
			pf_explain_io(st->sscan.bytes_read,
						  st->sscan.time_decoding && es->timing ?
						  &st->sscan.decode_time : NULL,
						  es);
		if (st->sscan.remote)
			pf_explain_remote(&st->sscan.remote_stats, es);
		ExplainPropertyInteger("Peak Memory", "kB",
							   (int64) ((st->peak_memory + 1023) / 1024), es);
	}
}

/*
 * A table scan under an aggregate that was not pushed down: EXPLAIN
 * (VERBOSE) says why, as the planner recorded it (agg_refused.c).
 */
void
pf_agg_explain_refused(ForeignScanState *node, ExplainState *es)
{
	List	   *fdw_private = ((ForeignScan *) node->ss.ps.plan)->fdw_private;
	const char *why;

	if (!es->verbose || list_length(fdw_private) <= PfScanPrivateAggRefused)
		return;
	why = strVal(list_nth(fdw_private, PfScanPrivateAggRefused));
	if (why[0] != '\0')
		ExplainPropertyText("Aggregate Pushdown", psprintf("not used (%s)", why), es);
}
