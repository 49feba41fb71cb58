/*-------------------------------------------------------------------------
 *
 * agg_plan.c
 *	  Aggregate pushdown: the upper path (UPPERREL_GROUP_AGG) and its plan.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_plan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "optimizer/clauses.h"

#include "fdw/agg_int.h"

/* GUC parquet_fdw.enable_aggregate_pushdown */
bool		pf_enable_aggregate_pushdown = true;
/* GUC parquet_fdw.enable_partial_aggregate */
bool		pf_enable_partial_aggregate = true;

/* ----------------------------------------------------------------
 * Planning
 * ----------------------------------------------------------------
 */

/*
 * The first column the program reads that might be virtual (the file's
 * path, or the value of a "key=value" folder of some file's path), or -1.
 * Those are not in the files: no pushdown.  Only the columns read count,
 * so count(*) or sums of file fields over a hive-partitioned folder (as a
 * postgres_fdw node scans its share of a distributed table) are still
 * pushed down.  With
 * check_keys false the caller checks the folder keys file by file (a file
 * holding the field reads it, whatever the folder says).
 */
static int
first_virtual_column(Relation rel, PfAggProgram *prog, List *filenames,
					 bool check_keys)
{
	ListCell   *lc;

	for (int i = 0; i < prog->ncols; i++)
	{
		List	   *options = GetForeignColumnOptions(RelationGetRelid(rel),
													  prog->cols[i].attnum);

		foreach(lc, options)
			if (strcmp(((DefElem *) lfirst(lc))->defname, "filename_column") == 0)
				return i;
	}
	foreach(lc, check_keys ? filenames : NIL)
	{
		const char *path = (const char *) lfirst(lc);

		/* a folder named for a field: whether or not the file has it */
		for (int i = 0; i < prog->ncols; i++)
		{
			char	   *value;

			if (pf_partition_value(path, prog->cols[i].field_name, &value))
				return i;
		}
	}
	return -1;
}

typedef struct UpperExprContext
{
	List	   *group_vars;		/* group columns and computed group keys */
	List	   *aggrefs;
} UpperExprContext;

/* True at a node that cannot sit above the scan. */
static bool
upper_expr_walker(Node *node, UpperExprContext *cx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return !list_member(cx->group_vars, node);
	if (IsA(node, Aggref))
	{
		cx->aggrefs = lappend(cx->aggrefs, node);
		return false;
	}
	if (IsA(node, WindowFunc) || IsA(node, PlaceHolderVar))
		return true;
	/* a computed group key: the scan returns its value */
	if (list_member(cx->group_vars, node))
		return false;
	return expression_tree_walker(node, upper_expr_walker, (void *) cx);
}

/*
 * An expression over the grouped rows (target list entry or HAVING clause):
 * its Aggrefs join the scan's target list; any column outside them must be
 * a group column or inside a computed group key.  False when the
 * expression cannot sit above the scan.
 */
static bool
add_upper_expr(Node *expr, List *group_vars, List **scan_tlist,
			   const char **why)
{
	UpperExprContext cx;
	ListCell   *la;

	*why = "volatile expression";
	if (contain_volatile_functions(expr))
		return false;
	*why = "expression";
	cx.group_vars = group_vars;
	cx.aggrefs = NIL;
	if (upper_expr_walker(expr, &cx))
		return false;
	foreach(la, cx.aggrefs)
		*scan_tlist = add_to_flat_tlist(*scan_tlist, list_make1(lfirst(la)));
	return true;
}

/*
 * Is expr a function of the group columns alone: no volatile function, no
 * aggregate, every column in it a group column?
 */
static bool
derived_from_keys(Node *expr, List *group_vars)
{
	List	   *vars;
	ListCell   *lv;

	if (contain_volatile_functions(expr) || contain_agg_clause(expr) ||
		contain_window_function(expr))
		return false;
	vars = pull_var_clause(expr, PVC_INCLUDE_PLACEHOLDERS);
	foreach(lv, vars)
		if (!IsA(lfirst(lv), Var) || !list_member(group_vars, lfirst(lv)))
			return false;
	return true;
}

/*
 * The cheapest total cost of the base relation's own scan in one process.
 * Its cheapest path may be a Gather over the parallel scan, whose cost is
 * already divided between workers: the aggregate's cost starts from the
 * undivided one, which the partial path divides itself.
 */
static Cost
serial_scan_cost(RelOptInfo *input_rel)
{
	Cost		best = input_rel->cheapest_total_path->total_cost;
	bool		found = false;
	ListCell   *lc;

	foreach(lc, input_rel->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		/* computed group keys put a projection on the scan: its input */
		if (IsA(path, ProjectionPath))
			path = ((ProjectionPath *) path)->subpath;
		if (path->pathtype != T_ForeignScan || path->parallel_workers > 0 ||
			path->param_info != NULL)
			continue;
		if (!found || path->total_cost < best)
			best = path->total_cost;
		found = true;
	}
	return best;
}

/*
 * Parallel aggregate plans, fitted to the ClickBench bench on 2 cores
 * (bench/RESULTS.md, 2026-11-26 17:00 UTC), where a serial pushed plan
 * runs at about 1 us per cost unit when its cost is I/O and decoding
 * (Q40: 23338 units, 25 ms):
 *
 * PF_PARALLEL_SETUP_COST (parquet_fdw.h): what starting the workers
 * and combining their results costs beyond PostgreSQL's
 * parallel_setup_cost.  With 2 workers, Q38, Q40, Q41 and Q42 (9-41 ms
 * serially) took 14-46 ms as partial plans: 5-33 ms more, although the
 * costs said half.
 *
 * PF_PARALLEL_AGG_GROUP_COST: per group a participant returns, its
 * combination in the Finalize Aggregate beyond what PostgreSQL charges,
 * fitted as a second transfer through the Gather (Q12: 123k groups, 60
 * ms more than the serial plan's 59).
 */
#define PF_PARALLEL_AGG_GROUP_COST	parallel_tuple_cost

/*
 * The work of scanning text bytes in LIKE filters and in expressions
 * PostgreSQL computes per row (length(URL), regexp_replace(Referer, ...)):
 * a word per operator.  The serial pushed path's cost leaves it out, as
 * PostgreSQL's own plans price LIKE at one operator, so the pushed path
 * keeps winning against them; but it is the work parallel participants
 * divide (Q20, Q21, Q27, Q28 ran 1.2-1.7x faster as partial plans), so a
 * partial path is credited with the share it saves.
 */
static Cost
text_bytes_work(PfAggProgram *prog, Oid relid, Index relindex, double rows)
{
	double		bytes = 0;

	for (int i = 0; i < prog->nfilters; i++)
	{
		PfAggFilter *f = &prog->filters[i];

		if (f->kind == PF_FILTER_LIKE && f->col < prog->ncols)
			bytes += Max(get_attavgwidth(relid, prog->cols[f->col].attnum), 0);
	}
	for (int j = 0; j < prog->ncomputed; j++)
	{
		List	   *vars = pull_var_clause((Node *) prog->computed[j].expr, 0);
		ListCell   *lv;

		foreach(lv, vars)
		{
			Var		   *var = (Var *) lfirst(lv);

			if (var->varno == relindex && var->varattno > 0 &&
				(var->vartype == TEXTOID || var->vartype == VARCHAROID ||
				 var->vartype == BPCHAROID))
				bytes += Max(get_attavgwidth(relid, var->varattno), 0);
		}
	}
	return cpu_operator_cost * rows * bytes / sizeof(uint64);
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
	double		ngroups = 1;
	double		rows;
	Cost		cost;
	ListCell   *lc;
	ForeignPath *path;
	const PfSourceOps *ops;
	PfSourceColumn *src_cols;
	const char *why;
	int			virtual_col;
	int			misfit = -1;
	const char *misfit_file = NULL;
	/* UPPERREL_PARTIAL_GROUP_AGG: transition states, per worker */
	bool		partial = stage == UPPERREL_PARTIAL_GROUP_AGG;
	int			workers = 0;
	double		divisor = 1.0;

	if (stage == UPPERREL_FINAL)
	{
		/* ORDER BY ... LIMIT over the pushed groups */
		pf_agg_topn_add_path(root, input_rel, output_rel,
							 (FinalPathExtraData *) extra);
		return;
	}
	if ((stage != UPPERREL_GROUP_AGG && !partial) ||
		output_rel->fdw_private != NULL || !is_parquet_baserel(input_rel))
		return;
	if (gextra == NULL || (!parse->hasAggs && parse->groupClause == NIL))
		return;
	if (partial &&
		(input_rel->partial_pathlist == NIL || !output_rel->consider_parallel ||
		 !pf_enable_partial_aggregate))
		return;
	ps = (PfPlanState *) input_rel->fdw_private;
	/* the partial target holds the partial Aggrefs (transition types) */
	target = partial ? output_rel->reltarget :
		root->upper_targets[UPPERREL_GROUP_AGG];
	rte = planner_rt_fetch(input_rel->relid, root);
	if (rte->inh || (ps->kind != PF_SCAN_PARQUET && ps->kind != PF_SCAN_AMUDAI))
		return;
	ops = pf_source_of_kind(ps->kind);

	/*
	 * From here on every refusal names its reason on the base relation,
	 * which its scan's EXPLAIN (VERBOSE) shows (agg_refused.c).
	 */
	if (!pf_enable_aggregate_pushdown)
	{
		ps->agg_refused = pstrdup("parquet_fdw.enable_aggregate_pushdown is off");
		return;
	}
	if (parse->groupingSets)
	{
		ps->agg_refused = pstrdup("grouping sets");
		return;
	}
	if (parse->hasTargetSRFs)
	{
		ps->agg_refused = pstrdup("set-returning function in the target list");
		return;
	}
	if (gextra->patype != PARTITIONWISE_AGGREGATE_NONE)
	{
		ps->agg_refused = pstrdup("partitionwise aggregate");
		return;
	}

	/* every restriction must be evaluated by the scan itself */
	foreach(lc, input_rel->baserestrictinfo)
	{
		RestrictInfo *ri = (RestrictInfo *) lfirst(lc);

		if (ri->pseudoconstant)
		{
			ps->agg_refused = psprintf("constant condition %s",
									   pf_agg_deparse((Node *) ri->clause,
													  rte->relid, input_rel->relid));
			return;
		}
		quals = lappend(quals, ri->clause);
	}

	/* group keys: plain columns */
	foreach(lc, parse->groupClause)
	{
		SortGroupClause *sgc = (SortGroupClause *) lfirst(lc);
		Expr	   *expr = (Expr *) get_sortgroupclause_expr(sgc, parse->targetList);

		if (IsA(expr, Var))
		{
			group_exprs = lappend(group_exprs, expr);
			if (!list_member(group_vars, expr))
				group_vars = lappend(group_vars, expr);
		}
	}

	/*
	 * Other group expressions: a constant, or a non-volatile expression of
	 * group columns only, splits no group the columns make, so it is no key
	 * of the scan's; the ForeignScan's projection computes it per group
	 * (ClickBench's "GROUP BY 1, URL" and "GROUP BY ClientIP, ClientIP - 1").
	 * Without any column key a constant still groups (no rows, no group).
	 * Any other is a key the scan computes with PostgreSQL's expression
	 * machinery (agg_pgexpr.c), when it can.
	 */
	foreach(lc, parse->groupClause)
	{
		SortGroupClause *sgc = (SortGroupClause *) lfirst(lc);
		Expr	   *expr = (Expr *) get_sortgroupclause_expr(sgc, parse->targetList);
		const char *cannot = NULL;

		if (IsA(expr, Var))
			continue;
		if (group_vars != NIL && derived_from_keys((Node *) expr, group_vars))
			continue;
		if (pf_agg_pgexpr_evaluable((Node *) expr, input_rel->relid, &cannot) &&
			contain_var_clause((Node *) expr))
		{
			group_exprs = lappend(group_exprs, expr);
			if (!list_member(group_vars, expr))
				group_vars = lappend(group_vars, expr);
			continue;
		}
		ps->agg_refused = psprintf("GROUP BY expression %s%s%s%s",
								   pf_agg_deparse((Node *) expr, rte->relid,
												  input_rel->relid),
								   cannot ? " (" : "", cannot ? cannot : "",
								   cannot ? ")" : "");
		return;
	}

	/*
	 * The scan returns the group columns and the aggregates; any expression
	 * over them is computed by the ForeignScan's projection.
	 */
	foreach(lc, group_vars)
		scan_tlist = add_to_flat_tlist(scan_tlist, list_make1(lfirst(lc)));
	foreach(lc, target->exprs)
		if (!add_upper_expr((Node *) lfirst(lc), group_vars, &scan_tlist, &why))
		{
			ps->agg_refused = psprintf("%s %s", why,
									   pf_agg_deparse((Node *) lfirst(lc),
													  rte->relid, input_rel->relid));
			return;
		}

	/*
	 * HAVING: evaluated by the ForeignScan over its output rows; above a
	 * partial path, by the Finalize Aggregate.
	 */
	if (root->hasHavingQual && !partial)
	{
		having = (List *) gextra->havingQual;
		foreach(lc, having)
			if (!add_upper_expr((Node *) lfirst(lc), group_vars, &scan_tlist, &why))
			{
				ps->agg_refused = psprintf("HAVING %s %s", why,
										   pf_agg_deparse((Node *) lfirst(lc),
														  rte->relid,
														  input_rel->relid));
				return;
			}
	}

	rel = table_open(rte->relid, NoLock);
	{
		bool		has_partial;
		List	   *whole = pf_agg_partial_whole_tlist(scan_tlist, &has_partial);

		prog = pf_agg_compile_program(rel, input_rel->relid, quals, group_vars, whole);
		if (prog == NULL)
		{
			ps->agg_refused = pf_agg_refusal_of_program(rel, input_rel->relid, quals,
														group_vars, whole);
			table_close(rel, NoLock);
			return;
		}
	}
	if (partial && !pf_agg_partial_supported(prog, scan_tlist, &why))
	{
		ps->agg_refused = psprintf("no partial aggregate in workers: %s", why);
		table_close(rel, NoLock);
		return;
	}

	/* every file's fields must be of the shapes the vector code reads */
	opts = pf_get_table_options(rte->relid);
	virtual_col = first_virtual_column(rel, prog, ps->filenames,
									   ops->raw_field == NULL);
	if (virtual_col >= 0)
	{
		ps->agg_refused = psprintf("column %s is not in the files",
								   quote_identifier(prog->cols[virtual_col].attname));
		table_close(rel, NoLock);
		return;
	}
	src_cols = palloc0(sizeof(PfSourceColumn) * Max(1, prog->ncols));
	for (int i = 0; i < prog->ncols; i++)
	{
		src_cols[i].attnum = prog->cols[i].attnum;
		src_cols[i].attname = prog->cols[i].attname;
		src_cols[i].field_name = prog->cols[i].field_name;
		src_cols[i].typid = prog->cols[i].typid;
		src_cols[i].typmod = prog->cols[i].typmod;
	}

	/*
	 * A format that hands out its raw values must store each column in a
	 * shape the vector code reads; any other reads convert()'s Datums of
	 * the declared types, whatever the file stores.
	 */
	for (int fi = 0; ops->raw_field != NULL && fi < list_length(ps->filenames); fi++)
	{
		const char *filename = (const char *) list_nth(ps->filenames, fi);
		MemoryContext tmp;
		MemoryContext old;
		PfSourceScan sscan = {0};
		PfSource   *src;
		bool		fits = true;

		/* a file whose row groups are all pruned is not read */
		if (list_nth(ps->rowgroups, fi) == NIL)
			continue;
		tmp = AllocSetContextCreate(CurrentMemoryContext,
									"parquet_fdw aggregate planning",
									ALLOCSET_DEFAULT_SIZES);
		old = MemoryContextSwitchTo(tmp);
		sscan.cxt = tmp;
		src = ops->open(filename, rel, &sscan, tmp);
		ops->bind(src, src_cols, prog->ncols, opts->missing_columns_error, false);

		for (int i = 0; i < prog->ncols && fits; i++)
		{
			const PqFileMeta *meta;
			const PqSchemaNode *field = ops->raw_field(src, i, &meta);
			char	   *folder_value;

			/* a field the file lacks, named by a folder: a virtual column */
			misfit = i;
			if (field == NULL &&
				pf_partition_value(filename, prog->cols[i].field_name, &folder_value))
			{
				virtual_col = i;
				fits = false;
				break;
			}
			fits = pf_agg_field_fits(meta, field, &prog->cols[i]);
		}
		ops->close(src);
		MemoryContextSwitchTo(old);
		MemoryContextDelete(tmp);
		if (!fits)
		{
			const char *col = quote_identifier(prog->cols[misfit].attname);

			misfit_file = strrchr(filename, '/') ? strrchr(filename, '/') + 1 : filename;
			if (virtual_col >= 0)
				ps->agg_refused = psprintf("column %s is not in the files", col);
			else
				ps->agg_refused = psprintf("column %s is stored in %s as a type the pushdown does not read",
										   col, misfit_file);
			table_close(rel, NoLock);
			return;
		}
	}
	table_close(rel, NoLock);

	/*
	 * A partial path runs in as many workers as the base relation's
	 * partial scan; each aggregates its share of the rows, so the work
	 * divides as PostgreSQL divides a parallel scan's (its
	 * get_parallel_divisor), and each returns up to all the groups.
	 */
	if (partial)
	{
		workers = ((Path *) linitial(input_rel->partial_pathlist))->parallel_workers;

		/*
		 * Expressions PostgreSQL evaluates row by row (agg_pgexpr.c) make
		 * the work CPU-bound, which the scan's worker count, sized by the
		 * bytes to read, does not see: as many workers as allowed, one unit
		 * each at least.
		 */
		if (prog->ncomputed > 0)
		{
			int			nunits = 0;

			foreach(lc, ps->rowgroups)
				nunits += list_length((List *) lfirst(lc));
			workers = Max(workers, Min(max_parallel_workers_per_gather, nunits));
		}
		divisor = workers;
		if (parallel_leader_participation && 1.0 - 0.3 * workers > 0)
			divisor += 1.0 - 0.3 * workers;
		if (workers <= 0)
			return;
	}

	/* few groups only: their states stay in memory */
	rows = Max(ps->total_rows, 1);
	if (group_exprs != NIL)
	{
		ngroups = estimate_num_groups(root, group_exprs,
									  clamp_row_est(input_rel->rows / divisor),
									  NULL, NULL);
		if (ngroups > PF_AGG_MAX_GROUPS)
		{
			ps->agg_refused = psprintf("%.0f groups estimated, more than %d",
									   ngroups, PF_AGG_MAX_GROUPS);
			return;
		}
	}

	/*
	 * Cost: the base scan's reading and decoding, without forming a tuple
	 * per row, plus a little per row for the filters, keys and aggregates;
	 * answering from statistics costs about nothing.  Aggregates of one
	 * column share its decoded batch and pass, so they count at most once
	 * per column read (and count(*) once): ClickBench Q29's 90 sums of
	 * ResolutionWidth + k take 17 ms serially, which 90 operators per row
	 * priced at 4x the scan, and a parallel plan 3x slower as cheaper.
	 */
	if (prog->all_from_stats)
		cost = seq_page_cost * list_length(ps->filenames);
	else
		cost = serial_scan_cost(input_rel) -
			cpu_tuple_cost * rows +
			cpu_operator_cost * 0.25 *
			(prog->nfilters + prog->nkeys +
			 Min(prog->naggs, prog->ncols + 1)) * rows;
	/*
	 * Expressions PostgreSQL evaluates row by row inside the scan cost what
	 * they cost above it: a parallel plan that shares them among workers
	 * can then win, as the pushed aggregate runs in one process.
	 */
	for (int j = 0; j < prog->ncomputed; j++)
	{
		QualCost	qc;

		cost_qual_eval_node(&qc, (Node *) prog->computed[j].expr, root);
		cost += qc.startup + qc.per_tuple * rows;
	}
	cost = Max(cost, 0) / divisor + cpu_tuple_cost * ngroups;
	if (partial)
	{
		Cost		text_work = text_bytes_work(prog, rte->relid,
												input_rel->relid, rows);

		cost = Max(cost + PF_PARALLEL_SETUP_COST +
				   PF_PARALLEL_AGG_GROUP_COST * ngroups -
				   text_work * (1.0 - 1.0 / divisor),
				   cost / 2);
	}
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
	if (partial)
	{
		/* PostgreSQL adds the Gather and the Finalize Aggregate above */
		path->path.parallel_aware = true;
		path->path.parallel_safe = true;
		path->path.parallel_workers = workers;
		add_partial_path(output_rel, (Path *) path);
		return;
	}

	/*
	 * Seen only when the scan is planned after all: the path lost (and a
	 * partial one was refused, for the reason the partial rel left).
	 */
	ps->agg_refused = ps->agg_refused == NULL ?
		pstrdup("a cheaper plan was chosen") :
		psprintf("a cheaper plan was chosen (%s)", ps->agg_refused);
	add_path(output_rel, (Path *) path);
	/* and the same in parallel, the rows exchanged by key hash */
	pf_agg_add_exchange_path(root, output_rel, path, NIL, 0, 0);
}


/*
 * A parallel top-N participant's own spec: its top offset + n rows, none
 * skipped (the Limit above the Gather Merge skips the offset).
 */
static List *
participant_topn(List *topn, int64 count, int64 offset)
{
	List	   *ptopn = list_copy(topn);

	linitial(ptopn) = makeString(psprintf(INT64_FORMAT, count + offset));
	lsecond(ptopn) = makeString(pstrdup("0"));
	return ptopn;
}

/*
 * Limit -> Gather Merge over a parallel path whose participants each
 * return their own top rows sorted by the query's ORDER BY.
 */
static void
add_merged_topn_path(PlannerInfo *root, RelOptInfo *rel, ForeignPath *path,
					 double total_rows, int64 count, int64 offset)
{
	Path	   *top;

	top = (Path *) create_gather_merge_path(root, rel, (Path *) path,
											path->path.pathtarget,
											root->sort_pathkeys, NULL,
											&total_rows);
	top = (Path *) create_limit_path(root, rel, top,
									 root->parse->limitOffset,
									 root->parse->limitCount,
									 LIMIT_OPTION_COUNT,
									 (double) offset, (double) count);
	add_path(rel, top);
}

/*
 * ORDER BY ... LIMIT n over a GROUP BY with many groups, in parallel: the
 * partial path above (transition states) makes each participant return
 * up to all the groups for the Finalize Aggregate to combine, which costs
 * more than the serial scan saves.  Here the participants split the
 * groups instead, by the hash of their keys: each reads every unit, keeps
 * the rows of the partitions it claims, aggregates whole groups and
 * returns only its own top offset + n rows, sorted; a Gather Merge
 * merges them and a Limit takes the n after the offset.  A group strictly
 * better than a returned one is in its partition's top rows, so the
 * merged rows begin with a valid answer.
 */
void
pf_agg_add_partitioned_topn_path(PlannerInfo *root, RelOptInfo *final_rel,
								 ForeignPath *group_path, List *topn,
								 int64 count, int64 offset)
{
	List	   *gpriv = group_path->fdw_private;
	Index		rti = (Index) intVal(lfourth(gpriv));
	RelOptInfo *base = root->simple_rel_array[rti];
	RelOptInfo *grouped_rel = group_path->path.parent;
	PfPlanState *ps = (PfPlanState *) base->fdw_private;
	List	   *ptopn;
	ForeignPath *path;
	double		rows = Max(ps->total_rows, 1);
	double		ngroups = group_path->path.rows;
	double		per_part;
	double		passed;
	Cost		read_cost;
	Cost		cost;
	int			workers;
	int			nparts;
	ListCell   *lc;
	bool		stored_key = false;

	if (count > 0)
		pf_agg_add_exchange_path(root, final_rel, group_path, topn, count, offset);
	if (pf_xchg_mode == PF_XCHG_FORCE)
		return;
	if (!pf_enable_partial_aggregate || !grouped_rel->consider_parallel ||
		base->partial_pathlist == NIL || list_length(gpriv) != 5 || count <= 0)
		return;
	/* the partitions come from the stored key columns' values */
	foreach(lc, (List *) lthird(gpriv))
		stored_key |= IsA(lfirst(lc), Var);
	if (!stored_key)
		return;
	/*
	 * One partition per participant, and as many participants as the
	 * scan's workers, the leader being one of them: it claims a partition
	 * as the workers do (it runs the scan before it merges).  Each
	 * participant reads and hashes every row, so one more process than
	 * the scan was sized for adds a whole pass: on 2 cores, Q15 of the
	 * ClickBench bench took 150 ms with 2 participants, 233 with 3 and
	 * 230 serial.  At least 2, or nothing is split.
	 */
	nparts = Max(((Path *) linitial(base->partial_pathlist))->parallel_workers, 2);
	workers = Min(nparts - (parallel_leader_participation ? 1 : 0),
				  max_parallel_workers_per_gather);
	nparts = workers + (parallel_leader_participation ? 1 : 0);
	if (workers < 1 || nparts < 2)
		return;

	/*
	 * Cost: each participant reads and decodes every unit (the serial
	 * scan's cost without its tuples), hashes every row's stored keys (as
	 * the serial path costs a key per row) and does its share of the
	 * grouping and aggregating, which is the rest of the serial
	 * aggregation's cost.
	 */
	read_cost = Max(serial_scan_cost(base) - cpu_tuple_cost * rows, 0);
	read_cost = Min(read_cost, group_path->path.total_cost);
	per_part = Max(ngroups / nparts, 1);

	/*
	 * The filters run on every row in every participant: only the rows
	 * they pass are split, and the rest of the aggregation's work is
	 * theirs.  With filters, Q30, Q31, Q36 and Q37 ran up to 45% slower
	 * partitioned than serially; without, Q9, Q15, Q16 ran 10-45% faster.
	 */
	passed = Min(Max(base->rows / rows, 0.0), 1.0);
	cost = read_cost +
		cpu_operator_cost * 0.25 * list_length(lthird(gpriv)) * rows +
		(group_path->path.total_cost - read_cost) *
		(1.0 - passed + passed / nparts) +
		cpu_operator_cost * per_part +
		cpu_operator_cost * 0.25 * list_length(lsecond(gpriv)) * rows *
		(1.0 - 1.0 / nparts);

	ptopn = participant_topn(topn, count, offset);
	path = pf_create_foreign_upper_path(root, final_rel,
										root->upper_targets[UPPERREL_FINAL],
										Min(per_part, (double) (count + offset)),
										cost, cost, root->sort_pathkeys, NULL,
										lappend(lappend(list_copy(gpriv), ptopn),
												makeInteger(nparts)));
	path->path.parallel_aware = true;
	path->path.parallel_safe = true;
	path->path.parallel_workers = workers;

	add_merged_topn_path(root, final_rel, path, path->path.rows * nparts,
						 count, offset);
}

/*
 * The exchange (agg_exchange.c), fitted on the ClickBench bench (2M rows,
 * 2 workers on 2 cores, parquet_fdw.exchange_aggregate = force, off and
 * serial side by side, best of 3, 2026-11-26 21:40-21:50 UTC; the 22
 * GROUP BY queries, see bench/RESULTS.md):
 *
 * The serial plan's cost is divided as the partial path's; the workers'
 * start and the barrier cost PF_PARALLEL_SETUP_COST as for the partial
 * path: Q38 and Q40 (16k and 34k rows pass their filters, 22-52 ms
 * serial) ran 15-20 ms slower exchanged.
 *
 * PF_XCHG_BYTE_COST: per 8 bytes a surviving row keeps (keys and the
 * columns the aggregates read, at their average widths), written to a
 * partition's file and read back.  Q28 (1.2M rows of Referer: 285 ms as
 * partial aggregates, 360 exchanged) and Q33 (2M URLs) pay most.
 *
 * PF_XCHG_GROUP_CREDIT: per surviving row, the grouping work the serial
 * cost leaves out when the groups (or count(DISTINCT)'s pairs) are many
 * (more than PF_XCHG_MANY_GROUPS) and their table misses the caches;
 * the exchange divides it and each participant's partitions' tables are
 * 1/32 the size.  Q36 (417k URLs, 354k groups: 142 ms serial, 95
 * exchanged), Q14, Q15 and Q8 (count(DISTINCT UserID), 151 ms serial,
 * 106 exchanged) need it; Q12 (4885 groups estimated) and Q28 (22k) are
 * about even or slower exchanged without it.
 *
 * PF_XCHG_MIN_GROUPS: with fewer groups a participant's table is small
 * and its groups cheap to combine, so whole groups per participant save
 * nothing: the partial path or the serial one is as fast (Q10, Q11: 6
 * groups of count(DISTINCT), 26 ms serial, 40-58 exchanged).
 *
 * PF_XCHG_GROUP_BYTES: groups estimated to fill more than the
 * partitions' hash_mem at this size each spill within the partitions as
 * they spill serially, and the exchange only adds its writes: Q32 (2M
 * groups: 377 ms serial, 434-521 exchanged), Q33 and Q34 (859k URLs).
 */
#define PF_XCHG_BYTE_COST		cpu_operator_cost
#define PF_XCHG_GROUP_CREDIT	(12.0 * cpu_operator_cost)
#define PF_XCHG_MANY_GROUPS		32768
#define PF_XCHG_MIN_GROUPS		1000
#define PF_XCHG_GROUP_BYTES		512

/*
 * The 8-byte words an exchanged row keeps: the group keys and the columns
 * the aggregates read (count(*) none), at their average widths; and
 * whether an aggregate is a count(DISTINCT).
 */
static double
kept_words(List *gpriv, Oid relid, bool *distinct)
{
	List	   *scan_tlist = (List *) linitial(gpriv);
	List	   *vars = pull_var_clause((Node *) scan_tlist, PVC_RECURSE_AGGREGATES);
	List	   *seen = NIL;
	double		words = 0;
	ListCell   *lc;

	*distinct = false;
	foreach(lc, scan_tlist)
	{
		Aggref	   *agg = (Aggref *) ((TargetEntry *) lfirst(lc))->expr;

		if (IsA(agg, Aggref) && agg->aggdistinct != NIL)
			*distinct = true;
	}
	foreach(lc, vars)
	{
		Var		   *var = (Var *) lfirst(lc);

		if (list_member(seen, var))
			continue;
		seen = lappend(seen, var);
		words += 1 + Max(get_attavgwidth(relid, var->varattno), 0) / 8;
	}
	return Max(words, 1);
}

/*
 * Does the planner's group count rest on statistics: has every column the
 * group keys read them (ANALYZE, or a file's sketch through
 * distinct_stats.c)?  Without, PostgreSQL assumes 200 values a column, so
 * two keys make 40000 groups: TPC-H Q1's 4 groups over an un-ANALYZEd
 * lineitem took the exchange (its many-groups credit) and ran in 480 ms,
 * against 140 ms as partial aggregates.  The costs above were fitted on
 * ANALYZEd tables.
 */
static bool
groups_from_statistics(PlannerInfo *root, List *group_exprs)
{
	List	   *vars = pull_var_clause((Node *) group_exprs,
									   PVC_RECURSE_AGGREGATES |
									   PVC_RECURSE_PLACEHOLDERS);
	ListCell   *lc;

	foreach(lc, vars)
	{
		VariableStatData vardata;
		bool		known;

		examine_variable(root, (Node *) lfirst(lc), 0, &vardata);
		known = HeapTupleIsValid(vardata.statsTuple);
		ReleaseVariableStats(vardata);
		if (!known)
			return false;
	}
	return vars != NIL;
}

/*
 * GROUP BY in parallel with an exchange: the participants split the
 * units, filter and decode once, write the surviving rows to the
 * partitions of their key hash and then aggregate whole partitions, so
 * every participant returns whole groups.  Without topn, a Gather above
 * collects them (a path of the grouped rel); with it (offset + count
 * rows), each returns its own top rows sorted, merged by a Gather Merge
 * and cut by a Limit (a path of the final rel).
 */
void
pf_agg_add_exchange_path(PlannerInfo *root, RelOptInfo *out_rel,
						 ForeignPath *group_path, List *topn,
						 int64 count, int64 offset)
{
	List	   *gpriv = group_path->fdw_private;
	Index		rti;
	RelOptInfo *base;
	RelOptInfo *grouped_rel = group_path->path.parent;
	PfPlanState *ps;
	List	   *priv;
	ForeignPath *path;
	Path	   *top;
	double		rows;
	double		ngroups = group_path->path.rows;
	double		per_part;
	double		passed;
	double		total_rows;
	double		nproc;
	double		divisor;
	double		words;
	bool		distinct;
	Cost		read_cost;
	Cost		cost;
	int			workers;
	int			nunits = 0;
	ListCell   *lc;

	if (pf_xchg_mode == PF_XCHG_OFF || !pf_enable_partial_aggregate ||
		!grouped_rel->consider_parallel || list_length(gpriv) != 5 ||
		lthird(gpriv) == NIL)
		return;
	rti = (Index) intVal(lfourth(gpriv));
	base = root->simple_rel_array[rti];
	ps = (PfPlanState *) base->fdw_private;
	if (base->partial_pathlist == NIL || ps == NULL)
		return;
	/*
	 * A computed numeric key is kept at the scale of the first value each
	 * participant sees: the participants' files could disagree.
	 */
	foreach(lc, (List *) lthird(gpriv))
		if (!IsA(lfirst(lc), Var) && exprType((Node *) lfirst(lc)) == NUMERICOID)
			return;

	/* as many workers as allowed, the scan's units permitting */
	foreach(lc, ps->rowgroups)
		nunits += list_length((List *) lfirst(lc));
	workers = Min(max_parallel_workers_per_gather,
				  nunits - (parallel_leader_participation ? 1 : 0));
	if (workers < 1)
		return;
	nproc = workers + (parallel_leader_participation ? 1 : 0);
	if (pf_xchg_mode != PF_XCHG_FORCE &&
		(ngroups < PF_XCHG_MIN_GROUPS ||
		 !groups_from_statistics(root, (List *) lthird(gpriv))))
		return;
	/* the work divides as the partial path's (get_parallel_divisor) */
	divisor = workers;
	if (parallel_leader_participation && 1.0 - 0.3 * workers > 0)
		divisor += 1.0 - 0.3 * workers;

	/*
	 * Cost: the serial aggregation's, reading and filtering included,
	 * divided between the participants, plus writing and reading each
	 * surviving row's kept values once.
	 */
	rows = Max(ps->total_rows, 1);
	passed = Min(Max(base->rows / rows, 0.0), 1.0);
	read_cost = group_path->path.total_cost - cpu_tuple_cost * ngroups;
	words = kept_words(gpriv, planner_rt_fetch(rti, root)->relid, &distinct);
	if (pf_xchg_mode != PF_XCHG_FORCE &&
		ngroups * PF_XCHG_GROUP_BYTES >
		(double) work_mem * 1024.0 * hash_mem_multiplier * (1 << PF_XCHG_BITS))
		return;
	cost = Max(read_cost, 0) / divisor +
		PF_XCHG_BYTE_COST * passed * rows * words / divisor +
		PF_PARALLEL_SETUP_COST;
	if (distinct || ngroups > PF_XCHG_MANY_GROUPS)
		cost -= PF_XCHG_GROUP_CREDIT * passed * rows * (1.0 - 1.0 / divisor);
	cost = Max(cost, 0);
	if (pf_xchg_mode == PF_XCHG_FORCE)
		cost = 0;
	per_part = Max(ngroups / nproc, 1);

	priv = list_copy(gpriv);
	if (topn != NIL)
	{
		priv = lappend(priv, participant_topn(topn, count, offset));
		per_part = Min(per_part, (double) (count + offset));
	}
	else
		priv = lappend(priv, NIL);
	priv = lappend(priv, makeInteger(0));
	/* a slot per worker and the leader's, whether it participates or not */
	priv = lappend(priv, makeInteger(workers + 1));
	path = pf_create_foreign_upper_path(root, out_rel,
										topn != NIL ? root->upper_targets[UPPERREL_FINAL] :
										group_path->path.pathtarget,
										per_part, cost, cost,
										topn != NIL ? root->sort_pathkeys : NIL,
										NULL, priv);
	path->path.parallel_aware = true;
	path->path.parallel_safe = true;
	path->path.parallel_workers = workers;

	total_rows = per_part * nproc;
	if (topn == NIL)
	{
		top = (Path *) create_gather_path(root, out_rel, (Path *) path,
										  path->path.pathtarget, NULL, &total_rows);
		add_path(out_rel, top);
		return;
	}
	add_merged_topn_path(root, out_rel, path, total_rows, count, offset);
}

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

		/* as pf_agg_compile_filter: a comparison or IN whose value is not known yet */
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
	fdw_private = lappend(fdw_private, makeInteger((int) ps->kind));
	{
		List	   *identities = NIL;

		foreach(lc, ps->identities)
			identities = lappend(identities, makeString(pstrdup((char *) lfirst(lc))));
		fdw_private = lappend(fdw_private, identities);
	}
	/* agg_topn.c's path adds its top-N after the aggregation's elements */
	fdw_private = lappend(fdw_private,
						  list_length(path_private) > 5 ? list_nth(path_private, 5) : NIL);
	/* a partitioned parallel path's number of partitions */
	fdw_private = lappend(fdw_private,
						  list_length(path_private) > 6 ? list_nth(path_private, 6) :
						  makeInteger(0));
	/* an exchange path's participants */
	fdw_private = lappend(fdw_private,
						  list_length(path_private) > 7 ? list_nth(path_private, 7) :
						  makeInteger(0));

	/* no scan relation: the output columns are fdw_scan_tlist's */
	/*
	 * HAVING is the plan's qual: setrefs turns its Aggrefs into references
	 * to the scan's output columns.
	 */
	return make_foreignscan(tlist, (List *) list_nth(path_private, 4), 0,
							param_exprs, fdw_private, scan_tlist, NIL,
							outer_plan);
}
