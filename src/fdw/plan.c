/*-------------------------------------------------------------------------
 *
 * plan.c
 *	  Planning of scans over foreign tables, of either file format: the
 *	  table's source (source.h), the units to read, costs and paths.
 *
 * Planning opens each file once: the row count of the chosen units (row
 * groups, stripes) gives the estimate, the stored bytes of the fields the
 * query needs give the I/O cost.  Partition quals skip folders and files
 * before they are opened, the source's statistics and probes skip units.
 * The plan carries (fdw_private, see parquet_fdw.h) the format, the
 * files, the attributes to fill and, per file, the units to read.
 *
 * IDENTIFICATION
 *	  src/fdw/plan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "commands/defrem.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/pg_list.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "storage/bufpage.h"
#include "tcop/pquery.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "fdw/amudai_fdw.h"
#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/source.h"

/* A sorted path over more files than this would hold too many open. */
#define PF_MERGE_MAX_FILES	1000

/* Units planning names to a source's speculate (it takes its first window). */
#define PF_SPECULATE_UNITS	16

/* ----------------------------------------------------------------
 * The table's source
 * ----------------------------------------------------------------
 */

/* The table's format option: 'auto' (NULL) unless set. */
static const char *
table_format(Oid foreigntableid)
{
	ForeignTable *table = GetForeignTable(foreigntableid);
	ListCell   *lc;

	foreach(lc, table->options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, "format") == 0)
			return defGetString(def);
	}
	return NULL;
}

/*
 * pf_table_source
 *		The table option format ('amudai', 'parquet' or 'auto', the default)
 *		decides, and with 'auto' the magic bytes of the table's first file:
 *		Parquet (or unreadable) -> Parquet; a shard -> Amudai when every file
 *		is one, else (a mix) ERRCODE_FEATURE_NOT_SUPPORTED.
 */
const PfSourceOps *
pf_table_source(Oid foreigntableid)
{
	const char *format = table_format(foreigntableid);
	PfTableOptions *opts;
	char	   *first;
	List	   *files;
	int			shards = 0;
	ListCell   *lc;

	if (format != NULL && pg_strcasecmp(format, "amudai") == 0)
		return &pf_amudai_source;
	if (format != NULL && pg_strcasecmp(format, "parquet") == 0)
		return &pf_parquet_source;

	opts = pf_get_table_options(foreigntableid);

	/*
	 * The first file decides; only shard tables look at every file (a
	 * shard among Parquet files is then reported by the Parquet reader),
	 * so planning a Parquet table lists and opens one file more, not all.
	 */
	first = pf_expand_first_filename_at(opts->filenames, opts->serverid);
	if (first == NULL || !pf_file_is_amudai(first))
		return &pf_parquet_source;
	files = pf_expand_filenames_at(opts->filenames, opts->serverid);
	foreach(lc, files)
		shards += pf_file_is_amudai((const char *) lfirst(lc));
	if (shards > 0 && shards < list_length(files))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("foreign table \"%s\" mixes Amudai shards and Parquet files",
						get_rel_name(foreigntableid)),
				 errdetail("%d of its %d files are Amudai shards.", shards,
						   list_length(files)),
				 errhint("Create one foreign table per format.")));
	return shards > 0 ? &pf_amudai_source : &pf_parquet_source;
}

const PfSourceOps *
pf_source_of_kind(PfScanKind kind)
{
	return kind == PF_SCAN_AMUDAI ? &pf_amudai_source : &pf_parquet_source;
}

PfScanKind
pf_source_kind(const PfSourceOps *ops)
{
	return ops == &pf_amudai_source ? PF_SCAN_AMUDAI : PF_SCAN_PARQUET;
}

/* ----------------------------------------------------------------
 * Planning
 * ----------------------------------------------------------------
 */

/*
 * The attributes a scan must fill: those in the target list or in the
 * quals.  A whole-row reference needs them all.
 */
static List *
needed_attnos(RelOptInfo *baserel, Relation rel)
{
	Bitmapset  *attrs = NULL;
	List	   *result = NIL;
	TupleDesc	tupdesc = RelationGetDescr(rel);
	ListCell   *lc;
	bool		whole_row;

	pull_varattnos((Node *) baserel->reltarget->exprs, baserel->relid, &attrs);
	foreach(lc, baserel->baserestrictinfo)
	{
		RestrictInfo *rinfo = (RestrictInfo *) lfirst(lc);

		pull_varattnos((Node *) rinfo->clause, baserel->relid, &attrs);
	}
	whole_row = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs);

	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(tupdesc, i);

		if (attr->attisdropped)
			continue;
		if (whole_row ||
			bms_is_member(attr->attnum - FirstLowInvalidHeapAttributeNumber, attrs))
			result = lappend_int(result, attr->attnum);
	}
	return result;
}

/* The folder filter of planning: partition quals over folder names. */
typedef struct PfFolderPrune
{
	List	   *quals;
	Relation	rel;
} PfFolderPrune;

static bool
folder_pruned(const char *folder, void *arg)
{
	PfFolderPrune *fp = (PfFolderPrune *) arg;

	return pf_folder_excluded(folder, fp->quals, fp->rel);
}

/*
 * The columns of rel a source binds: those in attnos, or all of them, with
 * their file field names from field_names (per attribute).
 */
static PfSourceColumn *
source_columns(Relation rel, bool all, List *attnos, char **field_names,
			   int *ncols)
{
	TupleDesc	tupdesc = RelationGetDescr(rel);
	PfSourceColumn *cols = palloc0(sizeof(PfSourceColumn) * Max(1, tupdesc->natts));
	int			n = 0;

	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(tupdesc, i);

		if (attr->attisdropped ||
			(!all && !list_member_int(attnos, attr->attnum)))
			continue;
		cols[n].attnum = attr->attnum;
		cols[n].attname = pstrdup(NameStr(attr->attname));
		cols[n].field_name = field_names[i];
		cols[n].typid = attr->atttypid;
		cols[n].typmod = attr->atttypmod;
		n++;
	}
	*ncols = n;
	return cols;
}

/*
 * Which columns some file has (missing_columns unset): a file lacking a
 * column reads it as NULL, but a column in none of the files is most
 * likely a misspelt name, reported as such.
 */
typedef struct ColumnPresence
{
	const PfSourceColumn *cols;	/* all the table's columns */
	int			ncols;
	bool	   *found;			/* in some file, or virtual in one */
	int			nfound;
} ColumnPresence;

static void
presence_init(ColumnPresence *cp, Relation rel, const PfSourceColumn *cols,
			  int ncols)
{
	cp->cols = cols;
	cp->ncols = ncols;
	cp->found = palloc0(sizeof(bool) * Max(1, ncols));
	cp->nfound = 0;
	for (int i = 0; i < ncols; i++)
		if (pf_is_filename_column(RelationGetRelid(rel), cols[i].attnum))
		{
			cp->found[i] = true;
			cp->nfound++;
		}
}

/* Note the columns of the file at path: a partition key of its folders. */
static void
presence_note_path(ColumnPresence *cp, const char *path)
{
	char	   *value;

	for (int i = 0; i < cp->ncols && cp->nfound < cp->ncols; i++)
		if (!cp->found[i] && pf_partition_value(path, cp->cols[i].field_name, &value))
		{
			cp->found[i] = true;
			cp->nfound++;
		}
}

/*
 * Note the columns an open file has (it is left bound to them); cheap
 * once every column is found, as after the first file of most tables.
 */
static void
presence_note_file(ColumnPresence *cp, const PfSourceOps *ops, PfSource *src)
{
	if (cp->nfound == cp->ncols)
		return;
	ops->bind(src, cp->cols, cp->ncols, false, false);
	for (int i = 0; i < cp->ncols; i++)
		if (!cp->found[i] && src->present[i])
		{
			cp->found[i] = true;
			cp->nfound++;
		}
	presence_note_path(cp, src->path);
}

/*
 * After planning has opened the files it reads: with search, look for
 * the columns not found yet in all the table's files (rarely: only when
 * some column is in none of the files read and some were pruned), then
 * name the first column no file has.
 */
static void
presence_check(ColumnPresence *cp, const PfSourceOps *ops, Relation rel,
			   PfSourceScan *io, List *files, bool search)
{
	ListCell   *lc;

	if (cp->nfound == cp->ncols || files == NIL)
		return;
	foreach(lc, search ? files : NIL)
	{
		MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
												  "parquet_fdw column check",
												  ALLOCSET_DEFAULT_SIZES);
		MemoryContext old = MemoryContextSwitchTo(cxt);
		PfSource   *src;

		CHECK_FOR_INTERRUPTS();
		if (cp->nfound == cp->ncols)
			break;
		presence_note_path(cp, (const char *) lfirst(lc));
		if (cp->nfound < cp->ncols)
		{
			io->cxt = cxt;
			src = ops->open((const char *) lfirst(lc), rel, io, cxt);
			presence_note_file(cp, ops, src);
			ops->close(src);
		}
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
	}
	for (int i = 0; i < cp->ncols; i++)
		if (!cp->found[i])
			ereport(ERROR,
					(errcode(ERRCODE_FDW_COLUMN_NAME_NOT_FOUND),
					 errmsg("column \"%s\" of foreign table \"%s\" is in none of its files",
							cp->cols[i].attname, RelationGetRelationName(rel)),
					 list_length(files) == 1 ?
					 errdetail("The column reads the field \"%s\", which the file \"%s\" lacks.",
							   cp->cols[i].field_name,
							   (const char *) linitial(files)) :
					 errdetail("The column reads the field \"%s\", which none of the %d files has (the first is \"%s\").",
							   cp->cols[i].field_name, list_length(files),
							   (const char *) linitial(files)),
					 errhint("Correct the column's name or its column option column_name, or set the table option missing_columns to 'null' to read it as NULL.")));
}

/*
 * Is the statement being planned an EXPLAIN without ANALYZE?  It plans
 * and never scans: what speculation fetched would be bytes for nothing.
 */
static bool
planning_explain_only(void)
{
	PlannedStmt *stmt;
	ListCell   *lc;

	if (ActivePortal == NULL || list_length(ActivePortal->stmts) != 1)
		return false;
	stmt = linitial_node(PlannedStmt, ActivePortal->stmts);
	if (stmt->commandType != CMD_UTILITY || stmt->utilityStmt == NULL ||
		!IsA(stmt->utilityStmt, ExplainStmt))
		return false;
	foreach(lc, ((ExplainStmt *) stmt->utilityStmt)->options)
	{
		DefElem    *opt = (DefElem *) lfirst(lc);

		if (strcmp(opt->defname, "analyze") == 0)
			return !defGetBoolean(opt);
	}
	return true;
}

/*
 * The units a scan of a remote file opens first, fetched while the HEAD
 * that confirms its cached footer is on its way: the two share one round
 * trip, where the HEAD alone took one before the scan's first.  A file
 * found replaced is planned again from its new footer (its HEAD is then
 * the statement's); the fetched units wait for the scan, which adopts
 * them.  Only the first unit the quals leave and those behind it, as the
 * scan's first window; a parallel scan's leader claims those first.
 */
static void
speculate_first_units(const PfSourceOps *ops, const char *path, Relation rel,
					  PfSourceScan *io, const PfSourceColumn *cols, int ncols,
					  List *file_quals, Oid serverid)
{
	PfSource   *src = ops->open(path, rel, io, io->cxt);
	int		   *units;
	int			nunits = 0;

	ops->bind(src, cols, ncols, false, false);
	units = palloc(sizeof(int) * Max(src->nunits, 1));
	for (int u = 0; u < src->nunits && nunits < PF_SPECULATE_UNITS; u++)
		if (file_quals == NIL || ops->unit_prune(src, u, file_quals) == PF_PRUNE_NONE)
			units[nunits++] = u;
	if (nunits > 0)
		ops->speculate(src, units, nunits);
	if (!pf_remote_settle(path, serverid))
		ops->speculate(src, NULL, 0);
	ops->close(src);
}

void
pfGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel,
					Oid foreigntableid)
{
	PfPlanState *ps = palloc0(sizeof(PfPlanState));
	PfTableOptions *opts = pf_get_table_options(foreigntableid);
	const PfSourceOps *ops = pf_table_source(foreigntableid);
	PfSourceScan io = {0};
	MemoryContext tmp_cxt;
	MemoryContext old;
	Relation	rel;
	List	   *file_quals;
	List	   *all_files;
	double		all_rows = 0;
	int			natts;
	char	  **field_names;
	PfSourceColumn *cols;
	PfSourceColumn *all_cols = NULL;
	ColumnPresence presence = {0};
	int			ncols;
	int			nall_cols = 0;
	bool		speculated = false;
	ListCell   *lc;

	ps->kind = pf_source_kind(ops);
	rel = table_open(foreigntableid, AccessShareLock);
	ps->attnos = needed_attnos(baserel, rel);
	if (opts->sorted != NULL)
	{
		ps->sorted = opts->sorted;
		ps->sort_keys = pf_parse_sorted(opts->sorted, rel);
	}
	file_quals = pf_file_prune_quals(baserel);

	/*
	 * Partition quals skip key=value folders while listing them, and files
	 * whose path (partition values, file name) no row can match before
	 * their footers are read: over thousands of files the footers and the
	 * listing are the planning.
	 */
	if (file_quals != NIL)
	{
		PfFolderPrune fp = {file_quals, rel};

		all_files = pf_table_files(opts, folder_pruned, &fp,
								   &ps->folders_pruned);
	}
	else
		all_files = pf_table_files(opts, NULL, NULL, NULL);
	/* file_quals: text under any collation, each source judges what it can */
	foreach(lc, file_quals)
		if (!((PfPruneQual *) lfirst(lc))->value_known)
			ps->param_quals = lappend(ps->param_quals, lfirst(lc));

	/* the file field of every column, looked up once */
	natts = RelationGetDescr(rel)->natts;
	field_names = palloc0(sizeof(char *) * Max(1, natts));
	for (int i = 0; i < natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(RelationGetDescr(rel), i);

		if (attr->attisdropped)
			continue;
		field_names[i] = pf_get_column_name(foreigntableid, attr->attnum);
	}
	cols = source_columns(rel, false, ps->attnos, field_names, &ncols);
	if (opts->missing_columns_error || !opts->missing_columns_null)
		all_cols = source_columns(rel, true, NIL, field_names, &nall_cols);
	if (!opts->missing_columns_error && !opts->missing_columns_null)
		presence_init(&presence, rel, all_cols, nall_cols);
	io.guid_dotnet = opts->guid_dotnet;
	io.verify_checksums = opts->verify_checksums;

	/* metadata is only needed here: read it in a context freed below */
	tmp_cxt = AllocSetContextCreate(CurrentMemoryContext,
									"parquet_fdw planning",
									ALLOCSET_DEFAULT_SIZES);
	io.cxt = tmp_cxt;
	foreach(lc, all_files)
	{
		const char *path = (const char *) lfirst(lc);
		PfSource   *src;
		List	   *rgs = NIL;
		char	   *identity;

		CHECK_FOR_INTERRUPTS();
		if (file_quals != NIL && pf_file_excluded(NULL, path, file_quals, rel))
		{
			ps->files_pruned++;
			continue;
		}

		/* the first remote file: its first units go out with its HEAD */
		if (!speculated && ops->speculate != NULL && pf_is_url(path) &&
			!planning_explain_only() &&
			pf_remote_head_speculate(path, opts->serverid))
		{
			speculated = true;
			old = MemoryContextSwitchTo(tmp_cxt);
			speculate_first_units(ops, path, rel, &io, cols, ncols,
								  file_quals, opts->serverid);
			MemoryContextSwitchTo(old);
			MemoryContextReset(tmp_cxt);
		}

		/*
		 * The identity the units are planned for, taken before the open: a
		 * file replaced after it is planned from the new footer but checked
		 * against the old identity, so execution refuses it (55000); taken
		 * after, a replacement between the two would pass the check with
		 * the old file's units.
		 */
		identity = pf_file_identity_at(path, opts->serverid);
		old = MemoryContextSwitchTo(tmp_cxt);
		src = ops->open(path, rel, &io, tmp_cxt);

		/*
		 * With missing_columns 'error', every column must be in the file,
		 * not only those this query reads: the table does not match it.
		 * Unset, each column must be in some file.
		 */
		if (opts->missing_columns_error)
			ops->bind(src, all_cols, nall_cols, true, false);
		else if (presence.cols != NULL)
			presence_note_file(&presence, ops, src);
		ops->bind(src, cols, ncols, opts->missing_columns_error, false);
		pf_distinct_note_file(ps, ops, src, cols, ncols, natts);

		for (int u = 0; u < src->nunits; u++)
		{
			double		rows = (double) ops->unit_rows(src, u);

			ps->total_rowgroups++;
			all_rows += rows;
			if (file_quals != NIL)
			{
				/* file_quals: also text equality under any collation */
				PfPruneKind kind = ops->unit_prune(src, u, file_quals);

				if (kind != PF_PRUNE_NONE)
				{
					ps->pruned[kind]++;
					continue;
				}
			}
			ps->total_rows += rows;
			for (int c = 0; c < ncols; c++)
				ps->bytes += ops->column_bytes(src, u, c);
			MemoryContextSwitchTo(old);
			rgs = lappend_int(rgs, u);
			MemoryContextSwitchTo(tmp_cxt);
		}
		ops->close(src);
		MemoryContextSwitchTo(old);
		MemoryContextReset(tmp_cxt);
		ps->filenames = lappend(ps->filenames, (char *) path);
		ps->identities = lappend(ps->identities, identity);
		ps->rowgroups = lappend(ps->rowgroups, rgs);
	}
	MemoryContextDelete(tmp_cxt);
	/* every column found (most tables): no second, unfiltered listing */
	if (presence.cols != NULL && presence.nfound < presence.ncols)
	{
		bool		pruned = ps->files_pruned > 0 || ps->folders_pruned > 0;

		presence_check(&presence, ops, rel, &io,
					   ps->folders_pruned > 0 ?
					   pf_expand_filenames_at(opts->filenames, opts->serverid) : all_files,
					   pruned);
	}
	table_close(rel, AccessShareLock);

	/*
	 * The quals' selectivity applies to all rows; the pruned units only cap
	 * the estimate.
	 */
	baserel->tuples = all_rows;
	baserel->rows = clamp_row_est(Min(ps->total_rows,
									  all_rows *
									  clauselist_selectivity(root,
															 baserel->baserestrictinfo,
															 0, JOIN_INNER, NULL)));
	baserel->fdw_private = ps;
}

/*
 * The pages a heap would take holding the scan's rows with only the
 * needed columns, decoded: what each participant of a parallel scan works
 * through.  Compressed bytes understate it (a 16 MB bigint column holds 2M
 * rows); row width and tuple overhead as PostgreSQL estimates a heap's
 * size without statistics (table_block_relation_estimate_size).
 */
static double
decoded_heap_pages(PfPlanState *ps, Oid relid)
{
	int32		width = 0;
	double		tuple_bytes;
	double		per_page;
	ListCell   *lc;

	foreach(lc, ps->attnos)
	{
		AttrNumber	attnum = (AttrNumber) lfirst_int(lc);
		int32		avg = get_attavgwidth(relid, attnum);

		if (avg <= 0)
		{
			Oid			typid;
			int32		typmod;
			Oid			collid;

			get_atttypetypmodcoll(relid, attnum, &typid, &typmod, &collid);
			avg = get_typavgwidth(typid, typmod);
		}
		width += avg;
	}
	tuple_bytes = MAXALIGN(SizeofHeapTupleHeader) + MAXALIGN(width) +
		sizeof(ItemIdData);
	per_page = floor((BLCKSZ - SizeOfPageHeaderData) / tuple_bytes);
	return ceil(ps->total_rows / Max(per_page, 1));
}

/*
 * Will the scan evaluate the quals itself (scan.c, late_qual_possible)?
 * Not when one reads a system column or the whole row, or holds a
 * subplan.
 */
static bool
quals_in_scan(RelOptInfo *baserel)
{
	ListCell   *lc;

	foreach(lc, baserel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		Bitmapset  *attrs = NULL;
		int			first;

		if (contain_subplans((Node *) ri->clause))
			return false;
		pull_varattnos((Node *) ri->clause, baserel->relid, &attrs);
		first = bms_next_member(attrs, -1);
		if (first >= 0 && first <= 0 - FirstLowInvalidHeapAttributeNumber)
			return false;
	}
	return true;
}

void
pfGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel,
					   Oid foreigntableid)
{
	PfPlanState *ps = (PfPlanState *) baserel->fdw_private;
	Cost		startup_cost;
	Cost		io_cost;
	Cost		cpu_cost;
	double		pages = ceil(ps->bytes / BLCKSZ);
	double		ncols = list_length(ps->attnos);
	int			nrowgroups = 0;
	ListCell   *lc;

	/*
	 * Reading is sequential I/O over the needed column chunks; decoding
	 * costs about an operator evaluation per value; each row then costs a
	 * tuple plus the quals the executor checks.
	 */
	startup_cost = baserel->baserestrictcost.startup;
	io_cost = seq_page_cost * pages;
	cpu_cost = cpu_operator_cost * ncols * ps->total_rows +
		(cpu_tuple_cost + baserel->baserestrictcost.per_tuple) * ps->total_rows;

	add_path(baserel, (Path *)
			 pf_create_foreignscan_path(root, baserel, NULL, baserel->rows,
									 startup_cost,
									 startup_cost + io_cost + cpu_cost,
									 NIL, NULL, NULL, NIL));

	/*
	 * The files' declared order (option "sorted"): a path with its
	 * pathkeys, costing a heap merge of the files' rows (and the check of
	 * each row's order) on top.
	 */
	{
		int			nfiles = list_length(ps->filenames);

		if (ps->sort_keys != NIL && nfiles <= PF_MERGE_MAX_FILES)
		{
			List	   *pathkeys = pf_sorted_pathkeys(root, baserel, ps->sort_keys);

			if (pathkeys != NIL)
			{
				Cost		merge_cost = cpu_operator_cost * ps->total_rows *
					(1 + ceil(log2(Max(nfiles, 1)) + 1));

				add_path(baserel, (Path *)
						 pf_create_foreignscan_path(root, baserel, NULL, baserel->rows,
												 startup_cost,
												 startup_cost + io_cost + cpu_cost +
												 merge_cost,
												 pathkeys, NULL, NULL, NIL));
			}
		}
	}

	/*
	 * A partial path for parallel query: participants share the units,
	 * so there is no use for more of them than units.  The worker count
	 * follows the decoding work, as for a heap holding the decoded rows.
	 */
	foreach(lc, ps->rowgroups)
		nrowgroups += list_length((List *) lfirst(lc));
	if (baserel->consider_parallel && nrowgroups > 1)
	{
		int			workers;

		workers = compute_parallel_worker(baserel,
										  decoded_heap_pages(ps, foreigntableid),
										  -1,
										  Min(nrowgroups,
											  max_parallel_workers_per_gather));
		if (workers > 0)
		{
			ForeignPath *path;
			double		divisor = workers;
			Cost		unformed = 0;

			/*
			 * The rows the scan's own quals reject never become tuples
			 * (scan.c): the tuple the serial path charges each of them
			 * stands for no work, so participants do not divide it; a
			 * selective scan of a few columns then stays serial, where
			 * the workers' start would cost more than they save.
			 */
			if (quals_in_scan(baserel))
				unformed = cpu_tuple_cost * Max(ps->total_rows - baserel->rows, 0);

			/* as the planner's get_parallel_divisor() for a seqscan */
			if (parallel_leader_participation && 1.0 - 0.3 * workers > 0)
				divisor += 1.0 - 0.3 * workers;

			/*
			 * The CPU work divides between participants; the I/O does not;
			 * the workers' start is dearer than PostgreSQL's default says.
			 */
			path = pf_create_foreignscan_path(root, baserel, NULL,
										   clamp_row_est(baserel->rows / divisor),
										   startup_cost + PF_PARALLEL_SETUP_COST,
										   startup_cost + PF_PARALLEL_SETUP_COST +
										   io_cost + unformed +
										   (cpu_cost - unformed) / divisor,
										   NIL, NULL, NULL, NIL);
			path->path.parallel_aware = true;
			path->path.parallel_safe = true;
			path->path.parallel_workers = workers;
			add_partial_path(baserel, (Path *) path);
		}
	}
}

ForeignScan *
pfGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel,
					  Oid foreigntableid, ForeignPath *best_path,
					  List *tlist, List *scan_clauses, Plan *outer_plan)
{
	PfPlanState *ps = (PfPlanState *) baserel->fdw_private;
	List	   *files = NIL;
	List	   *fdw_private;
	List	   *prune = NIL;
	List	   *prune_exprs = NIL;
	ListCell   *lc;

	/* every qual is checked by the executor; pruning only skips units */
	scan_clauses = extract_actual_clauses(scan_clauses, false);

	foreach(lc, ps->filenames)
		files = lappend(files, makeString(pstrdup((char *) lfirst(lc))));
	foreach(lc, ps->param_quals)
	{
		PfPruneQual *q = (PfPruneQual *) lfirst(lc);

		prune = lappend(prune, pf_qual_to_list(q));
		prune_exprs = lappend(prune_exprs, q->expr);
	}
	fdw_private = list_make5(makeInteger(ps->kind), files, ps->attnos,
							 ps->rowgroups, makeInteger(ps->total_rowgroups));
	fdw_private = lappend(fdw_private, prune);
	{
		List	   *pruned = NIL;

		for (int k = 0; k < PF_PRUNE_KINDS; k++)
			pruned = lappend_int(pruned, ps->pruned[k]);
		pruned = lappend_int(pruned, ps->files_pruned);
		pruned = lappend_int(pruned, ps->folders_pruned);
		fdw_private = lappend(fdw_private, pruned);
	}
	{
		List	   *identities = NIL;

		foreach(lc, ps->identities)
			identities = lappend(identities, makeString(pstrdup((char *) lfirst(lc))));
		fdw_private = lappend(fdw_private, identities);
	}
	fdw_private = lappend(fdw_private,
						  makeString(pstrdup(ps->agg_refused ? ps->agg_refused : "")));
	if (best_path->path.pathkeys != NIL)
		fdw_private = lappend(fdw_private, makeString(pstrdup(ps->sorted)));
	else
	{
		/* a Sort above: the scan may drop rows it would discard */
		List	   *topn = pf_topn_plan(root, baserel, scan_clauses, ps->attnos);

		if (topn != NIL)
		{
			fdw_private = lappend(fdw_private, makeString(pstrdup("")));
			fdw_private = lappend(fdw_private, pf_topn_plan_rows(topn, root));
		}
	}

	/* the parameter expressions go in fdw_exprs, so setrefs sees them */
	return make_foreignscan(tlist, scan_clauses, baserel->relid,
							prune_exprs, fdw_private, NIL, NIL, outer_plan);
}
