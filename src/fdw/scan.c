/*-------------------------------------------------------------------------
 *
 * scan.c
 *	  Planning and execution of scans over Parquet foreign tables.
 *
 * Planning opens each file's footer once: the row count of the chosen row
 * groups gives the estimate, the compressed bytes of the column chunks the
 * query needs give the I/O cost.  The plan carries (fdw_private) the files,
 * the attributes to fill and, per file, the row groups to read.
 *
 * Execution goes file by file, row group by row group.  For each row group
 * a column reader is opened over only the leaves the needed attributes read
 * (none at all for count(*): the rows are counted from the metadata), a
 * batch of rows is decoded from every leaf, each attribute's converter turns
 * its leaves' batch into Datums at once, and tuples are then only gathered
 * from those arrays row by row into the virtual slot.
 *
 * Memory, by lifetime:
 *	scan_cxt		the scan state, Datum arrays; deleted at the end
 *	file_cxt		the open file's metadata and converters; reset per file
 *	rowgroup_cxt	column readers and their page buffers; reset per row group
 *	batch_cxt		by-reference Datums of one batch; reset per batch
 * (all siblings under scan_cxt, since resetting a context deletes its
 * children), so memory stays flat however many row groups and files a scan
 * reads.
 *
 * IDENTIFICATION
 *	  src/fdw/scan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pg_list.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "access/parallel.h"
#include "port/atomics.h"
#include "storage/spin.h"
#include "storage/fd.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datum.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/timestamp.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "fdw/parquet_fdw.h"
#include "parquet/buffer_pool.h"

/* Rows decoded per batch (fewer for very wide projections, see below). */
#define PF_BATCH_ROWS		4096
#define PF_MIN_BATCH_ROWS	128
/* Datum slots per batch beyond which the batch shrinks: 256k (~2.3 MB). */
#define PF_MAX_BATCH_DATUMS	(256 * 1024)

/*
 * fdw_private of the ForeignScan plan node, a List with these members.
 */
enum PfScanPrivateIndex
{
	PfScanPrivateFiles,			/* List of String: files, in scan order */
	PfScanPrivateAttnos,		/* List of Integer: attributes to fill */
	PfScanPrivateRowGroups,		/* List per file of List of Integer */
	PfScanPrivateTotalRowGroups,	/* Integer: row groups before pruning */
	PfScanPrivatePruneQuals,	/* List per qual of Integers: attnum,
								 * strategy, cmpproc, collation, valtype;
								 * the values are fdw_exprs, in order */
	PfScanPrivatePruned,		/* List of Integer: row groups pruned at
								 * plan time, per PfPruneKind */
	PfScanPrivateSorted			/* String: the "sorted" option when the
								 * path returns rows in its order, else
								 * absent */
};

/* A sorted path over more files than this would hold too many open. */
#define PF_MERGE_MAX_FILES	1000

/*
 * Shared state of a parallel scan, in the DSM: the next entry of the flat
 * row group list (PfScanState.work_file/work_rg) a participant may claim.
 * Every participant builds the same list from the plan.  Workers add their
 * EXPLAIN ANALYZE counters when they shut down; the leader folds them into
 * its own, so EXPLAIN shows the totals of all participants.
 */
typedef struct PfParallelScan
{
	pg_atomic_uint64 next_work;
	slock_t		mutex;			/* protects the counters below */
	int64		rowgroups_read;
	int64		rowgroups_skipped;
	int64		skipped_by[PF_PRUNE_KINDS];
	int64		rows_skipped_by_pages;
	int64		bytes_read;
	instr_time	decode_time;
	Size		peak_memory;	/* the largest of the workers' */
} PfParallelScan;

/* One attribute the scan fills. */
typedef struct PfScanColumn
{
	AttrNumber	attnum;
	char	   *attname;		/* the foreign table's column */
	char	   *field_name;		/* the file field it reads */
	Oid			typid;
	int32		typmod;
	PfConverter *conv;			/* for the current file; NULL: virt_value */
	Datum		virt_value;		/* path or partition value (virtual column) */
	bool		virt_null;		/* true also when the file lacks the column */
	int		   *slots;			/* conv's leaves as indexes into leaf slots */
	PqColumnBatch *leaf_batches;	/* gathered for pf_converter_fill */
	Datum	   *values;			/* batch_rows entries */
	bool	   *nulls;

	/*
	 * Late conversion (see PfLateQual): a lazy column of a flat leaf is
	 * converted only for the rows that reach a qual reading it, or are
	 * returned.  values[0..ready) hold what the current batch needed so far.
	 */
	bool		lazy;			/* set once by the scan's first row */
	bool		lazy_now;		/* lazy for the current batch (its file has
								 * the column as a flat leaf) */
	uint32		ready;
	int64		rows_needed;	/* rows that needed it, for the chunk size */
} PfScanColumn;

/*
 * The scan's quals, evaluated by the scan itself one conjunct at a time so
 * that columns only later conjuncts (or the target list) read are converted
 * for the rows that get that far.  Each row sees the conjuncts in the
 * plan's order with the executor's short-circuit, exactly as ExecScan would
 * have evaluated them (node->ss.ps.qual is then cleared); the filtered rows
 * are still counted for EXPLAIN ANALYZE.
 */
/*
 * A conjunct "column op constant" over integers, dates or timestamps with
 * the type's own comparison operator: strict, immutable and unable to fail,
 * so it is compared inline on the Datums instead of through ExecQual.
 */
typedef enum PfFastOp
{
	PF_FAST_NONE = 0,
	PF_FAST_LT, PF_FAST_LE, PF_FAST_EQ, PF_FAST_NE, PF_FAST_GE, PF_FAST_GT
} PfFastOp;

typedef struct PfFastConj
{
	PfFastOp	op;				/* column op value; NONE: use ExecQual */
	int			col;			/* index into columns */
	int16		typlen;			/* 2, 4 or 8: the Datum's integer width */
	int64		value;
} PfFastConj;

typedef struct PfLateQual
{
	int			nconj;
	ExprState **conj;			/* one per conjunct, in plan order */
	PfFastConj *fast;			/* per conjunct */
	int			nleading_fast;	/* leading conjuncts fast on eager columns:
								 * checked before the slot is filled */
	int		  **conj_cols;		/* lazy columns (indexes into columns) each
								 * conjunct reads first, -1 terminated */
	int		   *rest_cols;		/* lazy columns only the output reads */
	int64		rows_seen;		/* rows the quals were evaluated on */
} PfLateQual;

/*
 * How one column reaches the slot in the current batch: a per-batch plan so
 * the per-row loop is a few loads and stores with nothing to decide.
 */
typedef struct PfRowCopy
{
	const Datum *values;
	const bool *nulls;			/* NULL: no null in the batch */
	int			att;			/* index into the slot's arrays */
} PfRowCopy;

/* Execution state. */
typedef struct PfScanState
{
	PfScanKind	kind;			/* PF_SCAN_PARQUET; first, see parquet_fdw.h */
	MemoryContext scan_cxt;
	MemoryContext file_cxt;
	MemoryContext rowgroup_cxt;
	MemoryContext batch_cxt;

	Relation	rel;
	bool		missing_columns_error;
	bool		verify_checksums;	/* table option: page CRCs checked */
	List	   *filenames;		/* char * */
	List	   *rowgroups;		/* per file, List of Integer */
	int			total_rowgroups;

	int			ncolumns;
	PfScanColumn *columns;
	List	   *attnos;			/* attnum of each column, in order */
	const PqSchemaNode **fields;	/* each column's field in the current
									 * file, NULL when missing */

	/* run-time pruning with parameter values */
	List	   *param_quals;	/* PfPruneQual */
	List	   *param_states;	/* ExprState of each one's value */
	MemoryContext param_cxt;	/* their by-reference values */
	ExprContext *param_econtext;	/* to evaluate them in */
	bool		params_pending; /* values not evaluated since (re)start */
	uint32		batch_rows;		/* capacity of the Datum arrays */

	/*
	 * The planned row groups of all files as one flat list, in scan order:
	 * entry i is row group work_rg[i] of file work_file[i].  A serial scan
	 * walks it with next_work; participants of a parallel scan claim entries
	 * with the shared counter instead.
	 */
	int			nwork;
	int		   *work_file;
	int		   *work_rg;
	int			next_work;		/* serial scans: next entry to read */
	int64		rowgroup_row_limit; /* > 0: read only so many rows of each
									 * row group (ANALYZE samples) */
	PfParallelScan *shared;		/* parallel scans: in the DSM, else NULL */

	/* position */
	int			file_index;		/* into filenames; -1 before the first */
	PfFile	   *file;			/* open file, or NULL */
	int			rowgroup;		/* current row group, -1 when none */
	int64		rows_left;		/* rows of the row group not yet decoded */

	/* leaves read in the current file */
	int			nslots;
	int		   *slot_leaf;		/* leaf index of each slot */
	PqColumnReader **readers;	/* per slot, for the current row group */
	PqColumnBatch *batches;		/* per slot, the current batch */

	/* the decoded batch */
	uint32		batch_size;		/* rows in it */
	uint32		next_row;		/* next row to return */

	/* for the error context callback */
	const char *err_column;		/* column being read or converted */
	int64		err_row_base;	/* row in its row group of the batch being
								 * converted, while converting is set */
	bool		converting;

	/* for EXPLAIN ANALYZE */
	int64		rowgroups_read;
	int64		rowgroups_skipped;	/* by run-time pruning */
	int64		skipped_by[PF_PRUNE_KINDS]; /* the same, per method */

	/* page-index pruning: the current row group's rows that may match */
	List	   *page_quals;		/* PfPruneQual with values (or parameters) */
	PfRowRange *ranges;			/* in rowgroup_cxt */
	int			nranges;		/* -1: read every row */
	int			next_range;
	int64		rows_skipped_by_pages;
	int64		bytes_read;		/* by the readers of closed row groups */
	bool		time_decoding;	/* EXPLAIN ANALYZE with timing */
	instr_time	decode_time;	/* in the format layer's readers */
	Size		peak_memory;	/* of scan_cxt and below, after each batch */
	bool		late_decided;	/* late_qual set up (or found useless) */
	PqBufferPool *page_pool;	/* page buffers reused across row groups */
	PfLateQual *late_qual;		/* the scan evaluates the quals, or NULL */
	PfMerge    *merge;			/* rows in the declared order, or NULL */

	/* the current batch's slot filling, see plan_row_copies() */
	PfRowCopy  *copy_dense;		/* columns without nulls: values only */
	int			ncopy_dense;
	PfRowCopy  *copy_nulls;		/* columns with nulls: values and nulls */
	int			ncopy_nulls;
	int		   *lazy_atts;		/* lazy columns: null until late_convert */
	int			nlazy_atts;
} PfScanState;
/* Compressed bytes of the chunks of row group rg below a node. */
static double
field_bytes(const PqFileMeta *meta, int rg, const PqSchemaNode *node)
{
	double		bytes = 0;

	if (node->is_leaf)
	{
		if (node->leaf_index >= 0 &&
			node->leaf_index < meta->row_groups[rg].num_columns)
			return (double) meta->row_groups[rg].columns[node->leaf_index].total_compressed_size;
		return 0;
	}
	for (int i = 0; i < node->num_children; i++)
		bytes += field_bytes(meta, rg, node->children[i]);
	return bytes;
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

void
parquetGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel,
						 Oid foreigntableid)
{
	PfPlanState *ps = palloc0(sizeof(PfPlanState));
	PfTableOptions *opts = pf_get_table_options(foreigntableid);
	MemoryContext tmp_cxt;
	MemoryContext old;
	Relation	rel;
	List	   *quals;
	List	   *file_quals;
	List	   *all_files;
	double		all_rows = 0;
	int			natts;
	char	  **attnames;
	char	  **field_names;
	ListCell   *lc;

	ps->kind = PF_SCAN_PARQUET;
	rel = table_open(foreigntableid, AccessShareLock);
	ps->attnos = needed_attnos(baserel, rel);
	if (opts->sorted != NULL)
	{
		ps->sorted = opts->sorted;
		ps->sort_keys = pf_parse_sorted(opts->sorted, rel);
	}
	quals = pf_prune_quals(baserel);
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

		all_files = pf_expand_filenames_filtered(opts->filenames,
												 folder_pruned, &fp,
												 &ps->folders_pruned);
	}
	else
		all_files = pf_expand_filenames(opts->filenames);
	foreach(lc, quals)
		if (!((PfPruneQual *) lfirst(lc))->value_known)
			ps->param_quals = lappend(ps->param_quals, lfirst(lc));

	/* the file field of every column, looked up once */
	natts = RelationGetDescr(rel)->natts;
	attnames = palloc0(sizeof(char *) * Max(1, natts));
	field_names = palloc0(sizeof(char *) * Max(1, natts));
	for (int i = 0; i < natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(RelationGetDescr(rel), i);

		if (attr->attisdropped)
			continue;
		attnames[i] = pstrdup(NameStr(attr->attname));
		field_names[i] = pf_get_column_name(foreigntableid, attr->attnum);
	}

	/* footers are only needed here: read them in a context freed below */
	tmp_cxt = AllocSetContextCreate(CurrentMemoryContext,
									"parquet_fdw planning",
									ALLOCSET_DEFAULT_SIZES);
	foreach(lc, all_files)
	{
		const char *path = (const char *) lfirst(lc);
		PfFile	   *pf;
		const PqFileMeta *meta;
		const PqSchemaNode **fields;
		List	   *rgs = NIL;
		ListCell   *lc2;

		CHECK_FOR_INTERRUPTS();
		if (file_quals != NIL && pf_file_excluded(NULL, path, file_quals, rel))
		{
			ps->files_pruned++;
			continue;
		}
		old = MemoryContextSwitchTo(tmp_cxt);
		pf = pf_open_file(path, tmp_cxt);
		meta = pf->meta;
		fields = palloc0(sizeof(PqSchemaNode *) * Max(1, list_length(ps->attnos)));
		foreach(lc2, ps->attnos)
		{
			AttrNumber	attnum = lfirst_int(lc2);

			fields[foreach_current_index(lc2)] =
				pf_find_column_field(meta, path, rel, attnames[attnum - 1],
								  field_names[attnum - 1],
								  opts->missing_columns_error);
		}

		/*
		 * With missing_columns 'error', every column must be in the file,
		 * not only those this query reads: the table does not match it.
		 */
		if (opts->missing_columns_error)
			for (int i = 0; i < natts; i++)
				if (field_names[i] != NULL)
					(void) pf_find_column_field(meta, path, rel, attnames[i],
											 field_names[i], true);

		for (int rg = 0; rg < meta->num_row_groups; rg++)
		{
			ps->total_rowgroups++;
			all_rows += (double) meta->row_groups[rg].num_rows;
			if (file_quals != NIL)
			{
				/* file_quals: also text equality under any collation */
				PfPruneKind kind = pf_rowgroup_prune(pf, rg, file_quals,
													 ps->attnos, fields, rel);

				if (kind != PF_PRUNE_NONE)
				{
					ps->pruned[kind]++;
					continue;
				}
			}
			ps->total_rows += (double) meta->row_groups[rg].num_rows;
			for (int f = 0; f < list_length(ps->attnos); f++)
				if (fields[f])
					ps->bytes += field_bytes(meta, rg, fields[f]);
			MemoryContextSwitchTo(old);
			rgs = lappend_int(rgs, rg);
			MemoryContextSwitchTo(tmp_cxt);
		}
		pf_close_file(pf);
		MemoryContextSwitchTo(old);
		MemoryContextReset(tmp_cxt);
		ps->filenames = lappend(ps->filenames, (char *) path);
		ps->rowgroups = lappend(ps->rowgroups, rgs);
	}
	MemoryContextDelete(tmp_cxt);
	table_close(rel, AccessShareLock);

	/*
	 * The quals' selectivity applies to all rows; the pruned row groups only
	 * cap the estimate.
	 */
	baserel->tuples = all_rows;
	baserel->rows = clamp_row_est(Min(ps->total_rows,
									  all_rows *
									  clauselist_selectivity(root,
															 baserel->baserestrictinfo,
															 0, JOIN_INNER, NULL)));
	baserel->fdw_private = ps;
}

void
parquetGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel,
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
	 * A partial path for parallel query: participants share the row groups,
	 * so there is no use for more of them than row groups.  The worker count
	 * follows the bytes to read as for a heap of that many pages.
	 */
	foreach(lc, ps->rowgroups)
		nrowgroups += list_length((List *) lfirst(lc));
	if (baserel->consider_parallel && nrowgroups > 1)
	{
		int			workers;

		workers = compute_parallel_worker(baserel, pages, -1,
										  Min(nrowgroups,
											  max_parallel_workers_per_gather));
		if (workers > 0)
		{
			ForeignPath *path;
			double		divisor = workers;

			/* as the planner's get_parallel_divisor() for a seqscan */
			if (parallel_leader_participation && 1.0 - 0.3 * workers > 0)
				divisor += 1.0 - 0.3 * workers;

			/* the CPU work divides between participants; the I/O does not */
			path = pf_create_foreignscan_path(root, baserel, NULL,
										   clamp_row_est(baserel->rows / divisor),
										   startup_cost,
										   startup_cost + io_cost +
										   cpu_cost / divisor,
										   NIL, NULL, NULL, NIL);
			path->path.parallel_aware = true;
			path->path.parallel_safe = true;
			path->path.parallel_workers = workers;
			add_partial_path(baserel, (Path *) path);
		}
	}
}

ForeignScan *
parquetGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel,
					  Oid foreigntableid, ForeignPath *best_path,
					  List *tlist, List *scan_clauses, Plan *outer_plan)
{
	PfPlanState *ps = (PfPlanState *) baserel->fdw_private;
	List	   *files = NIL;
	List	   *fdw_private;
	List	   *prune = NIL;
	List	   *prune_exprs = NIL;
	ListCell   *lc;

	/* every qual is checked by the executor; pruning only skips row groups */
	scan_clauses = extract_actual_clauses(scan_clauses, false);

	foreach(lc, ps->filenames)
		files = lappend(files, makeString(pstrdup((char *) lfirst(lc))));
	foreach(lc, ps->param_quals)
	{
		PfPruneQual *q = (PfPruneQual *) lfirst(lc);

		prune = lappend(prune, list_make5_int(q->attnum, q->strategy,
											  (int) q->cmpproc,
											  (int) q->collation,
											  (int) q->valtype));
		prune_exprs = lappend(prune_exprs, q->expr);
	}
	fdw_private = list_make5(files, ps->attnos, ps->rowgroups,
							 makeInteger(ps->total_rowgroups), prune);
	{
		List	   *pruned = NIL;

		for (int k = 0; k < PF_PRUNE_KINDS; k++)
			pruned = lappend_int(pruned, ps->pruned[k]);
		pruned = lappend_int(pruned, ps->files_pruned);
		pruned = lappend_int(pruned, ps->folders_pruned);
		fdw_private = lappend(fdw_private, pruned);
	}
	if (best_path->path.pathkeys != NIL)
		fdw_private = lappend(fdw_private, makeString(pstrdup(ps->sorted)));

	/* the parameter expressions go in fdw_exprs, so setrefs sees them */
	return make_foreignscan(tlist, scan_clauses, baserel->relid,
							prune_exprs, fdw_private, NIL, NIL, outer_plan);
}

/* ----------------------------------------------------------------
 * Execution
 * ----------------------------------------------------------------
 */

/* Error context: the file, row group and column being read. */
static void
scan_error_callback(void *arg)
{
	PfScanState *st = (PfScanState *) arg;
	const char *path;

	if (st->file_index < 0 || st->file_index >= list_length(st->filenames))
		return;
	path = (const char *) list_nth(st->filenames, st->file_index);
	if (st->rowgroup >= 0 && st->err_column && st->converting &&
		pf_converter_failed_index() >= 0)
		errcontext("Parquet file \"%s\", row group %d, row %lld, column \"%s\"",
				   path, st->rowgroup,
				   (long long) (st->err_row_base + pf_converter_failed_index()),
				   st->err_column);
	else if (st->rowgroup >= 0 && st->err_column)
		errcontext("Parquet file \"%s\", row group %d, column \"%s\"",
				   path, st->rowgroup, st->err_column);
	else if (st->rowgroup >= 0)
		errcontext("Parquet file \"%s\", row group %d", path, st->rowgroup);
	else if (st->err_column)
		errcontext("Parquet file \"%s\", column \"%s\"", path, st->err_column);
	else
		errcontext("Parquet file \"%s\"", path);
}

/*
 * Compute the values of the run-time prune quals for this (re)scan: the
 * parameters may differ on every rescan.
 */
static void
evaluate_prune_quals(PfScanState *st)
{
	ExprContext *econtext = st->param_econtext;
	ListCell   *lq;
	ListCell   *ls;

	st->params_pending = false;
	if (st->param_quals == NIL)
		return;
	MemoryContextReset(st->param_cxt);
	forboth(lq, st->param_quals, ls, st->param_states)
	{
		PfPruneQual *q = (PfPruneQual *) lfirst(lq);
		ExprState  *state = (ExprState *) lfirst(ls);
		bool		isnull;
		Datum		value;
		int16		typlen;
		bool		typbyval;
		MemoryContext old;

		value = ExecEvalExprSwitchContext(state, econtext, &isnull);
		get_typlenbyval(q->valtype, &typlen, &typbyval);
		old = MemoryContextSwitchTo(st->param_cxt);
		if (!isnull)
			value = datumCopy(value, typbyval, typlen);
		MemoryContextSwitchTo(old);
		pf_prune_qual_set_value(q, value, isnull);
	}
	ResetExprContext(econtext);
}

/*
 * The state of a scan of rel over the given files (char *), row groups (per
 * file, List of Integer) and attributes, in a new context below parent.
 * Without columns_too (EXPLAIN only) just what EXPLAIN shows.
 */
static PfScanState *
scan_state_create(Relation rel, List *filenames, List *rowgroups,
				  List *attnos, bool columns_too, MemoryContext parent)
{
	PfScanState *st;
	MemoryContext scan_cxt;
	MemoryContext old;
	TupleDesc	tupdesc;
	PfTableOptions *opts;
	ListCell   *lc;
	int			i;

	scan_cxt = AllocSetContextCreate(parent, "parquet_fdw scan",
									 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(scan_cxt);
	st = palloc0(sizeof(PfScanState));
	st->kind = PF_SCAN_PARQUET;
	st->scan_cxt = scan_cxt;
	st->rel = rel;
	st->filenames = filenames;
	st->rowgroups = rowgroups;
	st->file_index = -1;
	st->rowgroup = -1;

	/* the flat list of (file, row group) to read, in scan order */
	foreach(lc, st->rowgroups)
		st->nwork += list_length((List *) lfirst(lc));
	st->work_file = palloc(sizeof(int) * Max(1, st->nwork));
	st->work_rg = palloc(sizeof(int) * Max(1, st->nwork));
	i = 0;
	foreach(lc, st->rowgroups)
	{
		ListCell   *lc2;

		foreach(lc2, (List *) lfirst(lc))
		{
			st->work_file[i] = foreach_current_index(lc);
			st->work_rg[i] = lfirst_int(lc2);
			i++;
		}
	}

	if (!columns_too)
	{
		MemoryContextSwitchTo(old);
		return st;
	}

	opts = pf_get_table_options(RelationGetRelid(st->rel));
	st->missing_columns_error = opts->missing_columns_error;
	st->verify_checksums = opts->verify_checksums;

	st->file_cxt = AllocSetContextCreate(st->scan_cxt, "parquet_fdw file",
										 ALLOCSET_DEFAULT_SIZES);
	st->rowgroup_cxt = AllocSetContextCreate(st->scan_cxt, "parquet_fdw row group",
											 ALLOCSET_DEFAULT_SIZES);
	st->batch_cxt = AllocSetContextCreate(st->scan_cxt, "parquet_fdw batch",
										  ALLOCSET_DEFAULT_SIZES);

	tupdesc = RelationGetDescr(st->rel);
	st->ncolumns = list_length(attnos);
	st->columns = palloc0(sizeof(PfScanColumn) * Max(1, st->ncolumns));
	st->batch_rows = PF_BATCH_ROWS;
	if (st->ncolumns > 0 &&
		(uint64) st->ncolumns * PF_BATCH_ROWS > PF_MAX_BATCH_DATUMS)
		st->batch_rows = Max(PF_MIN_BATCH_ROWS,
							 PF_MAX_BATCH_DATUMS / st->ncolumns);

	st->attnos = attnos;
	st->copy_dense = palloc(sizeof(PfRowCopy) * Max(1, st->ncolumns));
	st->copy_nulls = palloc(sizeof(PfRowCopy) * Max(1, st->ncolumns));
	st->lazy_atts = palloc(sizeof(int) * Max(1, st->ncolumns));

	i = 0;
	foreach(lc, attnos)
	{
		PfScanColumn *col = &st->columns[i++];
		Form_pg_attribute attr;

		col->attnum = lfirst_int(lc);
		attr = TupleDescAttr(tupdesc, col->attnum - 1);
		col->attname = pstrdup(NameStr(attr->attname));
		col->field_name = pf_get_column_name(RelationGetRelid(st->rel),
											 col->attnum);
		col->typid = attr->atttypid;
		col->typmod = attr->atttypmod;
		col->values = palloc(sizeof(Datum) * st->batch_rows);
		col->nulls = palloc(sizeof(bool) * st->batch_rows);
	}
	MemoryContextSwitchTo(old);
	return st;
}

void
parquetBeginForeignScan(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	EState	   *estate = node->ss.ps.state;
	PfScanState *st;
	MemoryContext old;
	List	   *filenames = NIL;
	ListCell   *lc;

	foreach(lc, (List *) list_nth(plan->fdw_private, PfScanPrivateFiles))
		filenames = lappend(filenames, strVal(lfirst(lc)));
	st = scan_state_create(node->ss.ss_currentRelation, filenames,
						   (List *) list_nth(plan->fdw_private,
											 PfScanPrivateRowGroups),
						   (List *) list_nth(plan->fdw_private,
											 PfScanPrivateAttnos),
						   (eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0,
						   estate->es_query_cxt);
	st->total_rowgroups = intVal(list_nth(plan->fdw_private,
										  PfScanPrivateTotalRowGroups));
	node->fdw_state = st;
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	/* the node's own instrumentation is set up only after this callback */
	st->time_decoding = (estate->es_instrument & INSTRUMENT_TIMER) != 0;

	/* a path in the files' declared order: their rows merged */
	if (list_length(plan->fdw_private) > PfScanPrivateSorted)
	{
		const char *spec = strVal(list_nth(plan->fdw_private, PfScanPrivateSorted));

		st->merge = pf_merge_begin(st->rel, pf_parse_sorted(spec, st->rel),
								   st->filenames, st->rowgroups,
								   (List *) list_nth(plan->fdw_private,
													 PfScanPrivateAttnos),
								   st->scan_cxt);
		st->late_decided = true;	/* the executor checks the quals */
		return;
	}

	/* run-time pruning: the quals' values are computed at each (re)scan */
	old = MemoryContextSwitchTo(st->scan_cxt);
	foreach(lc, (List *) list_nth(plan->fdw_private, PfScanPrivatePruneQuals))
	{
		List	   *ints = (List *) lfirst(lc);
		PfPruneQual *q = palloc0(sizeof(PfPruneQual));

		q->attnum = (AttrNumber) linitial_int(ints);
		q->strategy = lsecond_int(ints);
		q->cmpproc = (Oid) lthird_int(ints);
		q->collation = (Oid) lfourth_int(ints);
		q->valtype = (Oid) list_nth_int(ints, 4);
		fmgr_info_cxt(q->cmpproc, &q->cmp, st->scan_cxt);
		st->param_quals = lappend(st->param_quals, q);
	}
	if (st->param_quals != NIL)
	{
		st->param_states = ExecInitExprList(plan->fdw_exprs, (PlanState *) node);
		st->param_cxt = AllocSetContextCreate(st->scan_cxt, "parquet_fdw parameters",
											  ALLOCSET_SMALL_SIZES);
	}
	/* page-index pruning: the plan's constant quals and the parameter ones */
	st->page_quals = list_concat(pf_prune_quals_from_clauses(plan->scan.plan.qual,
															 plan->scan.scanrelid),
								 st->param_quals);
	MemoryContextSwitchTo(old);

	/*
	 * Parameter values are evaluated when the first row group is chosen, not
	 * here: an InitPlan's value is computed on first use, which cannot happen
	 * before ExecInitNode has set the node's initPlans up (after this
	 * callback), and a nested loop sets the inner side's parameters only
	 * before each rescan.
	 */
	st->param_econtext = node->ss.ps.ps_ExprContext;
	st->params_pending = true;
}

/* Close the current row group's readers and free their memory. */
static void
close_rowgroup(PfScanState *st)
{
	if (st->readers)
	{
		for (int s = 0; s < st->nslots; s++)
		{
			if (st->readers[s])
			{
				st->bytes_read += (int64) pq_column_reader_bytes_read(st->readers[s]);
				pq_column_reader_close(st->readers[s]);
			}
			st->readers[s] = NULL;
		}
	}
	st->rowgroup = -1;
	st->rows_left = 0;
	st->nranges = -1;
	MemoryContextReset(st->rowgroup_cxt);
}

/* Close the current file and free its metadata and converters. */
static void
close_file(PfScanState *st)
{
	close_rowgroup(st);
	if (st->file)
		pf_close_file(st->file);
	st->file = NULL;
	st->readers = NULL;
	st->batches = NULL;
	st->fields = NULL;
	st->nslots = 0;
	for (int i = 0; i < st->ncolumns; i++)
		st->columns[i].conv = NULL;
	MemoryContextReset(st->file_cxt);
}

/*
 * Open file number file_index: read its footer, match the columns to its
 * fields and build their converters, and assign a slot to every leaf the
 * converters read.
 */
static void
open_file(PfScanState *st, int file_index)
{
	const char *path = (const char *) list_nth(st->filenames, file_index);
	MemoryContext old = MemoryContextSwitchTo(st->file_cxt);
	const PqFileMeta *meta;
	int		   *leaf_slot;

	st->file_index = file_index;
	st->file = pf_open_file(path, st->file_cxt);
	meta = st->file->meta;

	leaf_slot = palloc(sizeof(int) * Max(1, meta->num_leaves));
	for (int l = 0; l < meta->num_leaves; l++)
		leaf_slot[l] = -1;
	st->slot_leaf = palloc(sizeof(int) * Max(1, meta->num_leaves));
	st->nslots = 0;
	st->fields = palloc0(sizeof(PqSchemaNode *) * Max(1, st->ncolumns));

	for (int i = 0; i < st->ncolumns; i++)
	{
		PfScanColumn *col = &st->columns[i];
		const PqSchemaNode *field;
		const int  *leaves;
		int			nleaves;

		st->err_column = col->attname;
		field = pf_find_column_field(meta, path, st->rel, col->attname,
								  col->field_name, st->missing_columns_error);
		col->conv = NULL;
		st->fields[i] = field;
		if (field == NULL)
		{
			char	   *text = NULL;

			col->virt_null = true;
			if (pf_virtual_column(meta, path, st->rel, col->attnum,
								  col->field_name, &text) && text != NULL)
			{
				Oid			typinput;
				Oid			typioparam;

				getTypeInputInfo(col->typid, &typinput, &typioparam);
				col->virt_value = OidInputFunctionCall(typinput, text, typioparam,
													   col->typmod);
				col->virt_null = false;
			}
			continue;
		}
		col->conv = pf_converter_create(meta, field, col->typid, col->typmod,
										col->attname, st->file_cxt);
		nleaves = pf_converter_num_leaves(col->conv);
		leaves = pf_converter_leaves(col->conv);
		col->slots = palloc(sizeof(int) * Max(1, nleaves));
		col->leaf_batches = palloc0(sizeof(PqColumnBatch) * Max(1, nleaves));
		for (int k = 0; k < nleaves; k++)
		{
			int			leaf = leaves[k];

			if (leaf < 0 || leaf >= meta->num_leaves)
				elog(ERROR, "converter of column \"%s\" names leaf %d of %d",
					 col->attname, leaf, meta->num_leaves);
			if (leaf_slot[leaf] < 0)
			{
				leaf_slot[leaf] = st->nslots;
				st->slot_leaf[st->nslots++] = leaf;
			}
			col->slots[k] = leaf_slot[leaf];
		}
	}
	st->err_column = NULL;
	st->readers = palloc0(sizeof(PqColumnReader *) * Max(1, st->nslots));
	st->batches = palloc0(sizeof(PqColumnBatch) * Max(1, st->nslots));
	MemoryContextSwitchTo(old);
}

/*
 * Claim the next entry of the flat row group list: the scan's own counter,
 * or in a parallel scan the counter all participants share, so each row
 * group is read by exactly one of them.  Returns nwork or more at the end.
 */
static int64
claim_work(PfScanState *st)
{
	if (st->shared != NULL)
	{
		uint64		work = pg_atomic_fetch_add_u64(&st->shared->next_work, 1);

		return (int64) Min(work, (uint64) st->nwork);
	}
	if (st->next_work < st->nwork)
		return st->next_work++;
	return st->nwork;
}

/*
 * Move to the next row group to read, opening its file when it is not the
 * open one.  Returns false at the end of the scan.
 */
static bool
next_rowgroup(PfScanState *st)
{
	for (;;)
	{
		int64		work = claim_work(st);

		if (work >= st->nwork)
		{
			if (st->file)
				close_file(st);
			return false;
		}
		if (st->file == NULL || st->file_index != st->work_file[work])
		{
			if (st->file)
				close_file(st);
			open_file(st, st->work_file[work]);
		}

		{
			int			rg = st->work_rg[work];
			const PqFileMeta *meta = st->file->meta;
			PqAllocator alloc;
			PqColumnReaderOptions ropts = {0};

			ropts.verify_crc = st->verify_checksums;
			if (rg < 0 || rg >= meta->num_row_groups)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("Parquet file \"%s\" changed since the query was planned",
								st->file->path),
						 errdetail("Row group %d was planned, the file now has %d.",
								   rg, meta->num_row_groups)));
			if (meta->row_groups[rg].num_rows <= 0)
				continue;
			if (st->params_pending)
				evaluate_prune_quals(st);
			if (st->param_quals != NIL)
			{
				PfPruneKind kind = pf_rowgroup_prune(st->file, rg,
													 st->param_quals,
													 st->attnos, st->fields,
													 st->rel);

				if (kind != PF_PRUNE_NONE)
				{
					st->rowgroups_skipped++;
					st->skipped_by[kind]++;
					continue;
				}
				/* parameters on partition or filename columns */
				if (pf_file_excluded(meta, st->file->path, st->param_quals,
									 st->rel))
				{
					st->rowgroups_skipped++;
					continue;
				}
			}

			st->rowgroup = rg;
			st->rows_left = meta->row_groups[rg].num_rows;
			if (st->rowgroup_row_limit > 0 && st->page_quals == NIL)
				st->rows_left = Min(st->rows_left, st->rowgroup_row_limit);
			st->nranges = -1;
			st->next_range = 0;
			if (st->page_quals != NIL)
				st->ranges = pf_rowgroup_row_ranges(st->file, rg, st->page_quals,
													st->attnos, st->fields,
													st->rel, st->rowgroup_cxt,
													&st->nranges);
			st->rowgroups_read++;
			alloc = pf_context_allocator(st->rowgroup_cxt);
			for (int s = 0; s < st->nslots; s++)
			{
				PqError		err;

				const PqColumnChunkMeta *chunk;

				st->err_column = meta->leaves[st->slot_leaf[s]].path;
				chunk = &meta->row_groups[rg].columns[st->slot_leaf[s]];
				if (chunk->is_encrypted)
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("column \"%s\" of Parquet file \"%s\" is encrypted",
									st->err_column, st->file->path),
							 errhint("Parquet modular encryption is not supported.")));
				if (chunk->file_path != NULL)
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("column \"%s\" of Parquet file \"%s\" is stored in another file",
									st->err_column, st->file->path),
							 errdetail("The column chunk names the file \"%s\".",
									   chunk->file_path)));
				pq_error_clear(&err);
				if (pq_column_reader_open(&st->readers[s], st->file->file, rg,
										  st->slot_leaf[s], &ropts, &alloc,
										  &err) != PQ_OK)
					pf_report_error(st->file->path, &err);
			}
			st->err_column = NULL;
			return true;
		}
	}
}

/*
 * Page-index pruning: move every reader to the next range of rows that may
 * match.  false when the row group has no such row left.
 */
static bool
skip_to_row_range(PfScanState *st)
{
	int64		pos;

	if (st->nranges < 0)
		return true;
	pos = st->file->meta->row_groups[st->rowgroup].num_rows - st->rows_left;
	while (st->next_range < st->nranges && st->ranges[st->next_range].end <= pos)
		st->next_range++;
	if (st->next_range >= st->nranges)
	{
		st->rows_skipped_by_pages += st->rows_left;
		st->rows_left = 0;
		return false;
	}
	if (st->ranges[st->next_range].start > pos)
	{
		int64		skip = st->ranges[st->next_range].start - pos;

		for (int s = 0; s < st->nslots; s++)
		{
			PqError		err;

			st->err_column = st->file->meta->leaves[st->slot_leaf[s]].path;
			pq_error_clear(&err);
			if (pq_column_reader_skip(st->readers[s], (uint64) skip, &err) != PQ_OK)
				pf_report_error(st->file->path, &err);
		}
		st->err_column = NULL;
		st->rows_left -= skip;
		st->rows_skipped_by_pages += skip;
	}
	return true;
}

/*
 * Decode the next batch into the columns' Datum arrays.  Returns false at
 * the end of the scan.
 */
static bool
read_batch(PfScanState *st)
{
	uint32		want;
	MemoryContext old;
	instr_time	decode_start;

	CHECK_FOR_INTERRUPTS();
	MemoryContextReset(st->batch_cxt);
	st->batch_size = 0;
	st->next_row = 0;

	while (st->rowgroup < 0 || st->rows_left <= 0 || !skip_to_row_range(st))
	{
		PqAllocator pool_alloc;

		if (st->rowgroup >= 0)
			close_rowgroup(st);
		if (!next_rowgroup(st))
			return false;

		/*
		 * The new readers take their page buffers from a pool that outlives
		 * row groups, so those buffers are not handed back to malloc (and
		 * the kernel) after every row group only to be faulted in again.
		 */
		if (st->page_pool == NULL)
			st->page_pool = pf_page_pool_create(st->scan_cxt);
		pool_alloc = pq_buffer_pool_allocator(st->page_pool);
		for (int s = 0; s < st->nslots; s++)
			if (st->readers[s])
				(void) pq_column_reader_set_page_allocator(st->readers[s],
														   &pool_alloc);
	}

	want = (uint32) Min((int64) st->batch_rows, st->rows_left);
	if (st->nranges >= 0)
		want = (uint32) Min((int64) want,
							st->ranges[st->next_range].end -
							(st->file->meta->row_groups[st->rowgroup].num_rows -
							 st->rows_left));
	if (st->time_decoding)
		INSTR_TIME_SET_CURRENT(decode_start);
	for (int s = 0; s < st->nslots; s++)
	{
		PqError		err;

		st->err_column = st->file->meta->leaves[st->slot_leaf[s]].path;
		pq_error_clear(&err);
		if (pq_column_reader_read(st->readers[s], want, &st->batches[s],
								  &err) != PQ_OK)
			pf_report_error(st->file->path, &err);
		if (st->batches[s].num_rows != want)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("column chunk \"%s\" of Parquet file \"%s\" holds fewer rows than its row group",
							st->err_column, st->file->path),
					 errdetail("The row group has %lld rows; %lld were left to read, the chunk gave %u.",
							   (long long) st->file->meta->row_groups[st->rowgroup].num_rows,
							   (long long) st->rows_left,
							   st->batches[s].num_rows)));
	}
	if (st->time_decoding)
	{
		instr_time	now;

		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_ACCUM_DIFF(st->decode_time, now, decode_start);
	}

	old = MemoryContextSwitchTo(st->batch_cxt);
	for (int i = 0; i < st->ncolumns; i++)
	{
		PfScanColumn *col = &st->columns[i];
		int			nleaves;

		if (col->conv == NULL)
		{
			for (uint32 r = 0; r < want; r++)
			{
				col->values[r] = col->virt_value;
				col->nulls[r] = col->virt_null;
			}
			continue;
		}
		st->err_column = col->attname;
		nleaves = pf_converter_num_leaves(col->conv);
		for (int k = 0; k < nleaves; k++)
			col->leaf_batches[k] = st->batches[col->slots[k]];

		/* a lazy column waits for the rows that need it (late_convert) */
		col->lazy_now = col->lazy && nleaves == 1 && st->fields[i]->is_leaf &&
			st->file->meta->leaves[st->slot_leaf[col->slots[0]]].max_rep == 0;
		col->ready = 0;
		if (col->lazy_now)
			continue;
		st->err_row_base = st->file->meta->row_groups[st->rowgroup].num_rows -
			st->rows_left;
		st->converting = true;
		pf_converter_fill(col->conv, col->leaf_batches, want,
						  col->values, col->nulls, 1);
		st->converting = false;
		col->ready = want;
	}
	MemoryContextSwitchTo(old);
	st->err_column = NULL;

	/* cheap: a walk over the scan's few contexts */
	st->peak_memory = Max(st->peak_memory,
						  MemoryContextMemAllocated(st->scan_cxt, true));

	st->rows_left -= want;
	st->batch_size = want;
	return true;
}

/* The comparison a same-type integer, date or timestamp operator makes. */
static PfFastOp
fast_op_of(Oid funcid, int16 *typlen)
{
	switch (funcid)
	{
		case F_INT2LT: *typlen = 2; return PF_FAST_LT;
		case F_INT2LE: *typlen = 2; return PF_FAST_LE;
		case F_INT2EQ: *typlen = 2; return PF_FAST_EQ;
		case F_INT2NE: *typlen = 2; return PF_FAST_NE;
		case F_INT2GE: *typlen = 2; return PF_FAST_GE;
		case F_INT2GT: *typlen = 2; return PF_FAST_GT;
		case F_INT4LT: case F_DATE_LT: *typlen = 4; return PF_FAST_LT;
		case F_INT4LE: case F_DATE_LE: *typlen = 4; return PF_FAST_LE;
		case F_INT4EQ: case F_DATE_EQ: *typlen = 4; return PF_FAST_EQ;
		case F_INT4NE: case F_DATE_NE: *typlen = 4; return PF_FAST_NE;
		case F_INT4GE: case F_DATE_GE: *typlen = 4; return PF_FAST_GE;
		case F_INT4GT: case F_DATE_GT: *typlen = 4; return PF_FAST_GT;
		case F_INT8LT: case F_TIMESTAMP_LT: case F_TIMESTAMPTZ_LT: *typlen = 8; return PF_FAST_LT;
		case F_INT8LE: case F_TIMESTAMP_LE: case F_TIMESTAMPTZ_LE: *typlen = 8; return PF_FAST_LE;
		case F_INT8EQ: case F_TIMESTAMP_EQ: case F_TIMESTAMPTZ_EQ: *typlen = 8; return PF_FAST_EQ;
		case F_INT8NE: case F_TIMESTAMP_NE: case F_TIMESTAMPTZ_NE: *typlen = 8; return PF_FAST_NE;
		case F_INT8GE: case F_TIMESTAMP_GE: case F_TIMESTAMPTZ_GE: *typlen = 8; return PF_FAST_GE;
		case F_INT8GT: case F_TIMESTAMP_GT: case F_TIMESTAMPTZ_GT: *typlen = 8; return PF_FAST_GT;
		default:
			return PF_FAST_NONE;
	}
}

/* Fill *fc when conjunct e is "column op constant" (either side) that fast_op_of knows. */
static void
fast_conjunct(Expr *e, Index scanrelid, PfScanState *st, PfFastConj *fc)
{
	OpExpr	   *op;
	Var		   *var;
	Const	   *cst;
	bool		flip = false;
	int16		typlen;
	PfFastOp	fop;

	fc->op = PF_FAST_NONE;
	if (!IsA(e, OpExpr))
		return;
	op = (OpExpr *) e;
	if (list_length(op->args) != 2)
		return;
	if (IsA(linitial(op->args), Var) && IsA(lsecond(op->args), Const))
	{
		var = linitial(op->args);
		cst = lsecond(op->args);
	}
	else if (IsA(linitial(op->args), Const) && IsA(lsecond(op->args), Var))
	{
		cst = linitial(op->args);
		var = lsecond(op->args);
		flip = true;
	}
	else
		return;
	if (var->varno != scanrelid || var->varlevelsup != 0 || var->varattno <= 0 ||
		cst->constisnull)
		return;
	fop = fast_op_of(op->opfuncid, &typlen);
	if (fop == PF_FAST_NONE)
		return;
	for (int c = 0; c < st->ncolumns; c++)
	{
		if (st->columns[c].attnum != var->varattno)
			continue;
		/* the column's declared type must be what the operator takes */
		if (get_typlen(st->columns[c].typid) != typlen ||
			st->columns[c].typid != var->vartype)
			return;
		if (flip)
			fop = fop == PF_FAST_LT ? PF_FAST_GT : fop == PF_FAST_LE ? PF_FAST_GE :
				fop == PF_FAST_GT ? PF_FAST_LT : fop == PF_FAST_GE ? PF_FAST_LE : fop;
		fc->col = c;
		fc->typlen = typlen;
		fc->value = typlen == 2 ? DatumGetInt16(cst->constvalue) :
			typlen == 4 ? DatumGetInt32(cst->constvalue) :
			DatumGetInt64(cst->constvalue);
		fc->op = fop;
		return;
	}
}

/* A fast conjunct on row r of its (converted) column: NULL is false. */
static inline bool
fast_conjunct_true(const PfFastConj *fc, const PfScanColumn *col, uint32 r)
{
	int64		v;

	if (col->nulls[r])
		return false;
	v = fc->typlen == 2 ? DatumGetInt16(col->values[r]) :
		fc->typlen == 4 ? DatumGetInt32(col->values[r]) :
		DatumGetInt64(col->values[r]);
	switch (fc->op)
	{
		case PF_FAST_LT:
			return v < fc->value;
		case PF_FAST_LE:
			return v <= fc->value;
		case PF_FAST_EQ:
			return v == fc->value;
		case PF_FAST_NE:
			return v != fc->value;
		case PF_FAST_GE:
			return v >= fc->value;
		case PF_FAST_GT:
			return v > fc->value;
		default:
			return false;
	}
}

/*
 * Set up late conversion at the scan's first row (the executor has built
 * the quals by now): worthwhile when the plan has quals and some column is
 * read only by later conjuncts or by the output.  Not done when a qual
 * reads system columns (ForeignNext sets tableoid only after this callback)
 * or holds subplans.
 */
static void
late_qual_setup(ForeignScanState *node, PfScanState *st)
{
	Plan	   *plan = node->ss.ps.plan;
	ForeignScan *fscan = (ForeignScan *) plan;
	Index		scanrelid = fscan->scan.scanrelid;
	PfLateQual *lq;
	MemoryContext old;
	Bitmapset  *seen = NULL;
	int			nlazy = 0;
	int			c;
	ListCell   *lc;

	st->late_decided = true;
	if (node->ss.ps.qual == NULL || plan->qual == NIL || st->ncolumns < 2 ||
		fscan->fsSystemCol || contain_subplans((Node *) plan->qual))
		return;
	foreach(lc, plan->qual)
	{
		Bitmapset  *attrs = NULL;

		pull_varattnos((Node *) lfirst(lc), scanrelid, &attrs);
		if (bms_next_member(attrs, -1) >= 0 &&
			bms_next_member(attrs, -1) <= 0 - FirstLowInvalidHeapAttributeNumber)
			return;				/* system column or whole row */
	}

	old = MemoryContextSwitchTo(st->scan_cxt);
	lq = palloc0(sizeof(PfLateQual));
	lq->nconj = list_length(plan->qual);
	lq->conj = palloc(sizeof(ExprState *) * lq->nconj);
	lq->conj_cols = palloc(sizeof(int *) * lq->nconj);
	lq->fast = palloc0(sizeof(PfFastConj) * lq->nconj);
	foreach(lc, plan->qual)
	{
		int			k = foreach_current_index(lc);
		Bitmapset  *attrs = NULL;
		int			n = 0;

		lq->conj[k] = ExecInitQual(list_make1(lfirst(lc)), &node->ss.ps);
		fast_conjunct((Expr *) lfirst(lc), scanrelid, st, &lq->fast[k]);
		pull_varattnos((Node *) lfirst(lc), scanrelid, &attrs);
		lq->conj_cols[k] = palloc(sizeof(int) * (st->ncolumns + 1));
		for (c = 0; c < st->ncolumns; c++)
		{
			PfScanColumn *col = &st->columns[c];

			if (!bms_is_member(col->attnum - FirstLowInvalidHeapAttributeNumber,
							   attrs) || bms_is_member(c, seen))
				continue;
			seen = bms_add_member(seen, c);
			/* the first conjunct's columns serve every row: converted eagerly */
			if (k == 0)
				continue;
			col->lazy = true;
			lq->conj_cols[k][n++] = c;
			nlazy++;
		}
		lq->conj_cols[k][n] = -1;
	}
	lq->rest_cols = palloc(sizeof(int) * (st->ncolumns + 1));
	c = 0;
	for (int i = 0; i < st->ncolumns; i++)
		if (!bms_is_member(i, seen))
		{
			st->columns[i].lazy = true;
			lq->rest_cols[c++] = i;
			nlazy++;
		}
	lq->rest_cols[c] = -1;
	MemoryContextSwitchTo(old);

	if (nlazy == 0)
	{
		for (int i = 0; i < st->ncolumns; i++)
			st->columns[i].lazy = false;
		return;
	}
	/* leading fast conjuncts on columns converted eagerly */
	while (lq->nleading_fast < lq->nconj &&
		   lq->fast[lq->nleading_fast].op != PF_FAST_NONE &&
		   !st->columns[lq->fast[lq->nleading_fast].col].lazy)
		lq->nleading_fast++;
	st->late_qual = lq;
	node->ss.ps.qual = NULL;	/* evaluated here from now on */
}

/*
 * Make lazy column col's value of row r ready and put it into the slot.
 * A column most rows need is converted for the rest of the batch at once;
 * one that few rows reach, for row r alone.
 */
static inline void
late_convert(PfScanState *st, PfScanColumn *col, uint32 r, TupleTableSlot *slot)
{
	col->rows_needed++;
	if (r >= col->ready)
	{
		PfLateQual *lq = st->late_qual;
		PqColumnBatch view = col->leaf_batches[0];
		uint32		n = 1;
		MemoryContext old;
		ErrorContextCallback errcb;

		if (lq->rows_seen >= 1024 && col->rows_needed * 4 >= lq->rows_seen)
			n = st->batch_size - r;
		/* the flat leaf's rows from r on: values are row-aligned */
		view.values = (const uint8 *) view.values + (size_t) r * view.value_width;
		if (view.is_null)
			view.is_null += r;
		if (view.def_levels)
			view.def_levels += r;
		view.num_rows = view.num_levels = n;

		errcb.callback = scan_error_callback;
		errcb.arg = st;
		errcb.previous = error_context_stack;
		error_context_stack = &errcb;
		st->err_column = col->attname;
		old = MemoryContextSwitchTo(st->batch_cxt);
		st->err_row_base = st->file->meta->row_groups[st->rowgroup].num_rows -
			st->rows_left - st->batch_size + r;
		st->converting = true;
		pf_converter_fill(col->conv, &view, n, col->values + r, col->nulls + r, 1);
		st->converting = false;
		MemoryContextSwitchTo(old);
		st->err_column = NULL;
		error_context_stack = errcb.previous;
		col->ready = r + n;
	}
	slot->tts_values[col->attnum - 1] = col->values[r];
	slot->tts_isnull[col->attnum - 1] = col->nulls[r];
}

/*
 * After a batch is read: decide once how each column fills the slot.  A
 * column without a null in the batch gets its isnull set false here and
 * only its values copied per row; the slot's isnull entries are written by
 * nothing else between rows (attributes the scan does not fill stay null
 * the same way).
 */
static void
plan_row_copies(PfScanState *st, TupleTableSlot *slot)
{
	st->ncopy_dense = st->ncopy_nulls = st->nlazy_atts = 0;
	for (int i = 0; i < st->ncolumns; i++)
	{
		PfScanColumn *col = &st->columns[i];
		int			att = col->attnum - 1;
		PfRowCopy  *c;

		if (col->lazy_now)
		{
			st->lazy_atts[st->nlazy_atts++] = att;
			continue;
		}
		if (memchr(col->nulls, true, st->batch_size) == NULL)
		{
			slot->tts_isnull[att] = false;
			c = &st->copy_dense[st->ncopy_dense++];
			c->nulls = NULL;
		}
		else
		{
			c = &st->copy_nulls[st->ncopy_nulls++];
			c->nulls = col->nulls;
		}
		c->values = col->values;
		c->att = att;
	}
}

/* Copy row r of the batch into the slot, as plan_row_copies() decided. */
static inline void
fill_slot_row(PfScanState *st, TupleTableSlot *slot, uint32 r)
{
	/* locals: with -fno-strict-aliasing every store below could hit st */
	Datum	   *tv = slot->tts_values;
	bool	   *tn = slot->tts_isnull;
	const PfRowCopy *dense = st->copy_dense;
	const PfRowCopy *withnulls = st->copy_nulls;
	const int  *lazy = st->lazy_atts;
	int			ndense = st->ncopy_dense;
	int			nwithnulls = st->ncopy_nulls;
	int			nlazy = st->nlazy_atts;

	for (int k = 0; k < ndense; k++)
		tv[dense[k].att] = dense[k].values[r];
	for (int k = 0; k < nwithnulls; k++)
	{
		tv[withnulls[k].att] = withnulls[k].values[r];
		tn[withnulls[k].att] = withnulls[k].nulls[r];
	}
	/* filled by late_convert() when a qual or the row needs it */
	for (int k = 0; k < nlazy; k++)
		tn[lazy[k]] = true;
}

static pg_noinline TupleTableSlot *iterate_slow(ForeignScanState *node);

/*
 * The common case, a row of the current batch and no quals of ours, stays
 * small so it runs without the general loop's setup; the rest is
 * iterate_slow().
 */
TupleTableSlot *
parquetIterateForeignScan(ForeignScanState *node)
{
	PfScanState *st = (PfScanState *) node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;

	if (likely(st->late_decided && st->late_qual == NULL &&
			   st->next_row < st->batch_size))
	{
		ExecClearTuple(slot);
		fill_slot_row(st, slot, st->next_row++);
		return ExecStoreVirtualTuple(slot);
	}
	return iterate_slow(node);
}

static pg_noinline TupleTableSlot *
iterate_slow(ForeignScanState *node)
{
	PfScanState *st = (PfScanState *) node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	PfLateQual *lq;
	uint32		r;

	if (st->merge != NULL)
		return pf_merge_next(st->merge, slot);
	if (unlikely(!st->late_decided))
		late_qual_setup(node, st);
	lq = st->late_qual;

	for (;;)
	{
		bool		pass = true;

		ExecClearTuple(slot);
		if (st->next_row >= st->batch_size)
		{
			ErrorContextCallback errcb;
			bool		more;

			errcb.callback = scan_error_callback;
			errcb.arg = st;
			errcb.previous = error_context_stack;
			error_context_stack = &errcb;
			more = read_batch(st);
			error_context_stack = errcb.previous;
			if (!more)
				return slot;

			/*
			 * Attributes the scan does not fill stay null; the ones it fills
			 * are overwritten per row, so this is needed once a batch only.
			 */
			memset(slot->tts_isnull, true,
				   sizeof(bool) * slot->tts_tupleDescriptor->natts);
			plan_row_copies(st, slot);
		}

		r = st->next_row++;

		/* leading fast conjuncts reject rows before the slot is touched */
		if (lq != NULL && lq->nleading_fast > 0)
		{
			int			k;

			for (k = 0; k < lq->nleading_fast; k++)
			{
				const PfFastConj *fc = &lq->fast[k];

				if (!fast_conjunct_true(fc, &st->columns[fc->col], r))
					break;
			}
			if (k < lq->nleading_fast)
			{
				lq->rows_seen++;
				InstrCountFiltered1(node, 1);
				continue;
			}
		}

		fill_slot_row(st, slot, r);
		ExecStoreVirtualTuple(slot);
		if (lq == NULL)
			return slot;

		/* the quals, conjunct by conjunct, converting what each reads */
		lq->rows_seen++;
		econtext->ecxt_scantuple = slot;
		for (int k = lq->nleading_fast; k < lq->nconj && pass; k++)
		{
			for (const int *c = lq->conj_cols[k]; *c >= 0; c++)
				if (st->columns[*c].lazy_now)
					late_convert(st, &st->columns[*c], r, slot);
			if (lq->fast[k].op != PF_FAST_NONE)
				pass = fast_conjunct_true(&lq->fast[k],
										  &st->columns[lq->fast[k].col], r);
			else
				pass = ExecQual(lq->conj[k], econtext);
		}
		if (!pass)
		{
			InstrCountFiltered1(node, 1);
			ResetExprContext(econtext);
			continue;
		}
		for (const int *c = lq->rest_cols; *c >= 0; c++)
			if (st->columns[*c].lazy_now)
				late_convert(st, &st->columns[*c], r, slot);
		return slot;
	}
}

void
parquetReScanForeignScan(ForeignScanState *node)
{
	PfScanState *st = (PfScanState *) node->fdw_state;

	if (st->merge != NULL)
		pf_merge_rescan(st->merge);
	close_file(st);
	MemoryContextReset(st->batch_cxt);
	st->file_index = -1;
	st->next_work = 0;			/* a parallel scan's counter: ReInitializeDSM */
	st->batch_size = 0;
	st->next_row = 0;
	st->params_pending = true;
}

void
parquetEndForeignScan(ForeignScanState *node)
{
	PfScanState *st = (PfScanState *) node->fdw_state;

	if (st == NULL)
		return;
	if (st->merge != NULL)
		pf_merge_end(st->merge);
	if (st->file_cxt)
		close_file(st);
	MemoryContextDelete(st->scan_cxt);
	node->fdw_state = NULL;
}

/* Bytes read so far by the readers of the current row group. */
static int64
open_reader_bytes(const PfScanState *st)
{
	int64		bytes = 0;

	if (st->readers == NULL || st->rowgroup < 0)
		return 0;
	for (int s = 0; s < st->nslots; s++)
		if (st->readers[s])
			bytes += (int64) pq_column_reader_bytes_read(st->readers[s]);
	return bytes;
}

/*
 * pf_explain_io
 *		EXPLAIN ANALYZE lines of a scan's reading: the bytes of pages it read
 *		from its files, and the time the format layer spent reading,
 *		decompressing and decoding them (NULL when not timed).
 */
void
pf_explain_io(int64 bytes_read, const instr_time *decode_time, ExplainState *es)
{
	ExplainPropertyInteger("Bytes Read", NULL, bytes_read, es);
	if (decode_time != NULL)
		ExplainPropertyFloat("Decode Time", "ms",
							 INSTR_TIME_GET_MILLISEC(*decode_time), 3, es);
}

void
parquetExplainForeignScan(ForeignScanState *node, ExplainState *es)
{
	PfScanState *st = (PfScanState *) node->fdw_state;
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
	{
		/* the plan's lines: pruning beyond statistics, the declared order */
		ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
		List	   *pruned = list_length(plan->fdw_private) > PfScanPrivatePruned ?
			(List *) list_nth(plan->fdw_private, PfScanPrivatePruned) : NIL;

		if (list_length(pruned) > PF_PRUNE_KINDS &&
			list_nth_int(pruned, PF_PRUNE_KINDS) > 0)
			ExplainPropertyText("Files",
								psprintf("%d of %d",
										 list_length(st->filenames),
										 list_length(st->filenames) +
										 list_nth_int(pruned, PF_PRUNE_KINDS)), es);
		if (list_length(pruned) > PF_PRUNE_KINDS + 1 &&
			list_nth_int(pruned, PF_PRUNE_KINDS + 1) > 0)
			ExplainPropertyInteger("Partition Folders Skipped", NULL,
								   list_nth_int(pruned, PF_PRUNE_KINDS + 1), es);
		if (list_length(pruned) > PF_PRUNE_KINDS &&
			list_nth_int(pruned, PF_PRUNE_BLOOM) +
			list_nth_int(pruned, PF_PRUNE_DICTIONARY) > 0)
			ExplainPropertyText("Row Groups Pruned",
								psprintf("statistics %d, bloom filters %d, dictionaries %d",
										 list_nth_int(pruned, PF_PRUNE_STATISTICS),
										 list_nth_int(pruned, PF_PRUNE_BLOOM),
										 list_nth_int(pruned, PF_PRUNE_DICTIONARY)),
								es);
		if (list_length(plan->fdw_private) > PfScanPrivateSorted)
			ExplainPropertyText("Sorted",
								psprintf("%s (merging %d files)",
										 strVal(list_nth(plan->fdw_private,
														 PfScanPrivateSorted)),
										 list_length(st->filenames)), es);
	}
	if (es->analyze && st->merge != NULL)
	{
		int			opened;
		int			open_max;

		pf_merge_counts(st->merge, &opened, &open_max);
		ExplainPropertyInteger("Files Opened", NULL, opened, es);
		ExplainPropertyInteger("Files Open at Once", NULL, open_max, es);
	}
	if (es->analyze && st->merge == NULL)
	{
		ExplainPropertyInteger("Row Groups Read", NULL, st->rowgroups_read, es);
		if (st->param_quals != NIL)
			ExplainPropertyInteger("Row Groups Skipped at Run Time", NULL,
								   st->rowgroups_skipped, es);
		if (st->rows_skipped_by_pages > 0)
			ExplainPropertyInteger("Rows Skipped by Page Index", NULL,
								   st->rows_skipped_by_pages, es);
		if (st->skipped_by[PF_PRUNE_BLOOM] + st->skipped_by[PF_PRUNE_DICTIONARY] > 0)
			ExplainPropertyText("Run-Time Skips",
								psprintf("statistics %lld, bloom filters %lld, dictionaries %lld",
										 (long long) st->skipped_by[PF_PRUNE_STATISTICS],
										 (long long) st->skipped_by[PF_PRUNE_BLOOM],
										 (long long) st->skipped_by[PF_PRUNE_DICTIONARY]),
								es);
		pf_explain_io(st->bytes_read + open_reader_bytes(st),
					  st->time_decoding && es->timing ? &st->decode_time : NULL,
					  es);
		ExplainPropertyInteger("Peak Memory", "kB",
							   (int64) ((st->peak_memory + 1023) / 1024), es);
	}
}

/* ----------------------------------------------------------------
 * Parallel query
 *
 * Participants (the leader too) share the scan by row groups: each claims
 * the next entry of the flat (file, row group) list with an atomic counter
 * in the DSM, so every row group is read exactly once whatever the number
 * of workers, and run-time pruning still applies to each claimed one.
 * ----------------------------------------------------------------
 */

/*
 * Any scan of a Parquet foreign table may run in a worker: it only reads
 * files and the catalogs.
 */
bool
parquetIsForeignScanParallelSafe(PlannerInfo *root, RelOptInfo *rel,
								 RangeTblEntry *rte)
{
	return true;
}

Size
parquetEstimateDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt)
{
	return sizeof(PfParallelScan);
}

void
parquetInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt,
								void *coordinate)
{
	PfScanState *st = (PfScanState *) node->fdw_state;
	PfParallelScan *shared = (PfParallelScan *) coordinate;

	memset(shared, 0, sizeof(PfParallelScan));
	pg_atomic_init_u64(&shared->next_work, 0);
	SpinLockInit(&shared->mutex);
	st->shared = shared;
}

/*
 * In a worker, add this participant's EXPLAIN ANALYZE counters to the
 * shared ones; in the leader, move the workers' totals into its own.
 */
static void
fold_parallel_counters(PfScanState *st)
{
	PfParallelScan *shared = st->shared;

	SpinLockAcquire(&shared->mutex);
	if (IsParallelWorker())
	{
		shared->rowgroups_read += st->rowgroups_read;
		shared->rowgroups_skipped += st->rowgroups_skipped;
		for (int k = 0; k < PF_PRUNE_KINDS; k++)
			shared->skipped_by[k] += st->skipped_by[k];
		shared->rows_skipped_by_pages += st->rows_skipped_by_pages;
		shared->bytes_read += st->bytes_read;
		INSTR_TIME_ADD(shared->decode_time, st->decode_time);
		shared->peak_memory = Max(shared->peak_memory, st->peak_memory);
		st->rowgroups_read = 0;
		st->rowgroups_skipped = 0;
		memset(st->skipped_by, 0, sizeof(st->skipped_by));
		st->rows_skipped_by_pages = 0;
		st->bytes_read = 0;
		INSTR_TIME_SET_ZERO(st->decode_time);
	}
	else
	{
		st->rowgroups_read += shared->rowgroups_read;
		st->rowgroups_skipped += shared->rowgroups_skipped;
		for (int k = 0; k < PF_PRUNE_KINDS; k++)
			st->skipped_by[k] += shared->skipped_by[k];
		st->rows_skipped_by_pages += shared->rows_skipped_by_pages;
		st->bytes_read += shared->bytes_read;
		INSTR_TIME_ADD(st->decode_time, shared->decode_time);
		st->peak_memory = Max(st->peak_memory, shared->peak_memory);
		shared->rowgroups_read = 0;
		shared->rowgroups_skipped = 0;
		memset(shared->skipped_by, 0, sizeof(shared->skipped_by));
		shared->rows_skipped_by_pages = 0;
		shared->bytes_read = 0;
		INSTR_TIME_SET_ZERO(shared->decode_time);
	}
	SpinLockRelease(&shared->mutex);
}

/* Before a rescan of the Gather: the row groups are all to read again. */
void
parquetReInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt,
								  void *coordinate)
{
	PfScanState *st = (PfScanState *) node->fdw_state;
	PfParallelScan *shared = (PfParallelScan *) coordinate;

	/* the previous round's workers have finished: keep what they counted */
	st->shared = shared;
	fold_parallel_counters(st);
	pg_atomic_write_u64(&shared->next_work, 0);
}

void
parquetInitializeWorkerForeignScan(ForeignScanState *node, shm_toc *toc,
								   void *coordinate)
{
	PfScanState *st = (PfScanState *) node->fdw_state;

	st->shared = (PfParallelScan *) coordinate;
}

/*
 * Before the DSM goes away: workers report their counters; the leader
 * collects those of the workers that have finished (all of them, once the
 * Gather has read everything).
 */
void
parquetShutdownForeignScan(ForeignScanState *node)
{
	PfScanState *st = (PfScanState *) node->fdw_state;

	if (st != NULL && st->shared != NULL)
	{
		fold_parallel_counters(st);

		/*
		 * Shutdown can come twice (a Limit shuts its subtree down early, and
		 * the executor shuts the whole plan down at the end), and the Gather
		 * frees the DSM right after the first: never touch it again.  A
		 * rescan that starts workers anew hands us the new DSM.
		 */
		st->shared = NULL;
	}
}

/* ----------------------------------------------------------------
 * Scans outside the executor (ANALYZE)
 * ----------------------------------------------------------------
 */

/*
 * pf_scan_open
 *		A scan of rel reading the given row groups of the given files (at
 *		most the first rowgroup_row_limit rows of each, if positive).
 */
PfScanState *
pf_scan_open(Relation rel, List *filenames, List *rowgroups, List *attnos,
			 int64 rowgroup_row_limit, MemoryContext parent)
{
	PfScanState *st;

	st = scan_state_create(rel, filenames, rowgroups, attnos, true, parent);
	st->rowgroup_row_limit = rowgroup_row_limit;
	return st;
}

/*
 * pf_scan_next
 *		The next row into values/isnull (indexed by attnum - 1, every
 *		attribute the scan does not fill set null).  By-reference values
 *		live until the next call.  Returns false at the end.
 */
bool
pf_scan_next(PfScanState *st, Datum *values, bool *isnull, int natts)
{
	uint32		r;

	if (st->next_row >= st->batch_size)
	{
		ErrorContextCallback errcb;
		bool		more;

		errcb.callback = scan_error_callback;
		errcb.arg = st;
		errcb.previous = error_context_stack;
		error_context_stack = &errcb;
		more = read_batch(st);
		error_context_stack = errcb.previous;
		if (!more)
			return false;
	}

	r = st->next_row++;
	memset(isnull, true, sizeof(bool) * natts);
	for (int i = 0; i < st->ncolumns; i++)
	{
		PfScanColumn *col = &st->columns[i];

		values[col->attnum - 1] = col->values[r];
		isnull[col->attnum - 1] = col->nulls[r];
	}
	return true;
}

/*
 * pf_scan_close
 *		Close the scan's file and free its memory.
 */
void
pf_scan_close(PfScanState *st)
{
	close_file(st);
	MemoryContextDelete(st->scan_cxt);
}
