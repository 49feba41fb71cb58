/*-------------------------------------------------------------------------
 *
 * scan.c
 *	  Execution of scans over foreign tables, of either file format: the
 *	  engine works on table sources (source.h) and never looks inside a
 *	  file itself.  plan.c plans them (fdw_private, parquet_fdw.h).
 *
 * Execution goes file by file, unit by unit.  For each unit the source
 * opens readers over only the fields the needed attributes read, positions
 * a batch of rows, and each attribute is converted into an array of
 * Datums at once (or, for columns only later quals or the output read, for
 * the rows that get that far); tuples are then only gathered from those
 * arrays row by row into the virtual slot.
 *
 * Memory, by lifetime:
 *	scan_cxt		the scan state, Datum arrays; deleted at the end
 *	file_cxt		the open source: metadata, converters, and below it the
 *					open unit's readers; reset per file
 *	batch_cxt		by-reference Datums of one batch; reset per batch
 * (siblings under scan_cxt, since resetting a context deletes its
 * children), so memory stays flat however many units and files a scan
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
#include "access/sysattr.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "foreign/fdwapi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pg_list.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "access/parallel.h"
#include "port/atomics.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "fdw/parquet_fdw.h"
#include "fdw/source.h"
#include "fdw/remote_fdw.h"
#include "fdw/scan_filter.h"

/*
 * Units a participant of a parallel scan claims at once: a few, so that
 * the units are shared out evenly, and more from a URL, where the claimed
 * ones are fetched in the background (round trips to hide: row groups
 * decode faster than a request returns).
 */
#define PF_CLAIM_AHEAD 4
#define PF_CLAIM_AHEAD_REMOTE 8

/* Leading conjuncts evaluated on raw values at most (PfLateQual.raw). */
#define PF_MAX_RAW_FILTERS	8

/* Rows decoded per batch (fewer for very wide projections, see below). */
#define PF_BATCH_ROWS		4096
#define PF_MIN_BATCH_ROWS	128
/* Datum slots per batch beyond which the batch shrinks: 256k (~2.3 MB). */
#define PF_MAX_BATCH_DATUMS	(256 * 1024)

/*
 * Shared state of a parallel scan, in the DSM: the next entry of the flat
 * unit list (PfScanState.work_file/work_rg) a participant may claim.
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
	int64		rows_skipped_by_index;
	int64		bytes_read;
	PfRemoteStats remote;		/* requests and bytes of remote files */
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
	bool		present;		/* the current file has it; else virt_value */
	Datum		virt_value;		/* path or partition value (virtual column) */
	bool		virt_null;		/* true also when the file lacks the column */
	Datum	   *values;			/* batch_rows entries */
	bool	   *nulls;

	/*
	 * Late conversion (see PfLateQual): a lazy column the source can convert
	 * a few rows at a time is converted only for the rows that reach a qual
	 * reading it, or are returned.  values[0..ready) hold what the current
	 * batch needed so far.
	 */
	bool		lazy;			/* set once by the scan's first row */
	bool		lazy_now;		/* lazy for the current batch */
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
 * A conjunct "column op value" over integers, dates or timestamps that the
 * analyzer (qual.c) turned into an exact comparison in the column's own
 * type: compared inline on the Datums instead of through ExecQual.
 */
typedef enum PfFastOp
{
	PF_FAST_NONE = 0,
	PF_FAST_LT, PF_FAST_LE, PF_FAST_EQ, PF_FAST_NE, PF_FAST_GE, PF_FAST_GT,
	PF_FAST_LIKE,				/* text [NOT] [I]LIKE constant: vec_like.c */
	PF_FAST_TEXT_EQ, PF_FAST_TEXT_NE	/* text = or <> a constant, bytewise */
} PfFastOp;

typedef struct PfFastConj
{
	PfFastOp	op;				/* column op value; NONE: use ExecQual */
	int			col;			/* index into columns */
	int16		typlen;			/* 2, 4 or 8: the Datum's integer width */
	int64		value;
	const PfLikeFilter *like;	/* PF_FAST_LIKE */
	const char *text;			/* PF_FAST_TEXT_*: the constant's bytes */
	int			textlen;
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

	/*
	 * The leading conjuncts scan_filter.c evaluates on a batch's raw values
	 * (no top-N): filter k reads column raw_cols[k].  In a file whose
	 * fields they all read raw, they select a batch's rows before any of
	 * its columns is converted, and their columns are then converted for
	 * the selected rows only.
	 */
	PfScanFilters *raw;
	int			nraw;
	int		   *raw_cols;
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
	PfScanKind	kind;			/* the format; first, see parquet_fdw.h */
	const PfSourceOps *ops;		/* its source */
	MemoryContext scan_cxt;
	MemoryContext file_cxt;
	MemoryContext batch_cxt;

	Relation	rel;
	bool		missing_columns_error;
	List	   *filenames;		/* char * */
	List	   *identities;		/* char *, when planned; NIL: no check */
	List	   *rowgroups;		/* per file, List of Integer: units */
	int			total_rowgroups;

	int			ncolumns;
	PfScanColumn *columns;
	PfSourceColumn *src_columns;	/* the same, as sources bind them */
	List	   *attnos;			/* attnum of each column, in order */

	/* run-time pruning with parameter values */
	List	   *param_quals;	/* PfPruneQual */
	List	   *param_states;	/* ExprState of each one's value */
	MemoryContext param_cxt;	/* their by-reference values */
	ExprContext *param_econtext;	/* to evaluate them in */
	bool		params_pending; /* values not evaluated since (re)start */
	uint32		batch_rows;		/* capacity of the Datum arrays */

	/*
	 * The planned units of all files as one flat list, in scan order: entry
	 * i is unit work_rg[i] of file work_file[i].  A serial scan walks it
	 * with next_work; participants of a parallel scan claim entries with the
	 * shared counter instead.
	 */
	int			nwork;
	int		   *work_file;
	int		   *work_rg;
	int			next_work;		/* serial scans: next entry to read */

	/*
	 * A participant of a parallel scan claims entries ahead of the one it
	 * reads (PF_CLAIM_AHEAD, PF_CLAIM_AHEAD_REMOTE for a URL), so a remote
	 * file can fetch them in the background: claimed[] holds their entries
	 * (rg list in claimed_rg[]).
	 */
	int			nclaimed;
	int64		claimed[PF_CLAIM_AHEAD_REMOTE];
	int			claimed_rg[PF_CLAIM_AHEAD_REMOTE];
	int64		rowgroup_row_limit; /* > 0: read only so many rows of each
									 * unit (ANALYZE samples) */
	PfParallelScan *shared;		/* parallel scans: in the DSM, else NULL */

	/* position */
	int			file_index;		/* into filenames; -1 before the first */
	PfSource   *src;			/* open file, or NULL */
	PfSourceScan io;			/* what the sources share, and count */

	/* the current batch */
	uint32		batch_size;		/* rows in it */
	uint32		next_row;		/* next row to return */

	/* for the error context callback */
	const char *err_column;		/* column being converted */
	int64		err_row_base;	/* row in its unit of the batch being
								 * converted, while converting is set */
	bool		converting;

	/* for EXPLAIN ANALYZE */
	int64		rowgroups_read;
	int64		rowgroups_skipped;	/* by run-time pruning */
	int64		skipped_by[PF_PRUNE_KINDS]; /* the same, per method */

	/* row-level index pruning (page index, range index) */
	List	   *page_quals;		/* PfPruneQual with values (or parameters) */
	Size		peak_memory;	/* of scan_cxt and below, after each batch */
	bool		late_decided;	/* late_qual set up (or found useless) */
	PfLateQual *late_qual;		/* the scan evaluates the quals, or NULL */
	PfMerge    *merge;			/* rows in the declared order, or NULL */

	/* the current batch's slot filling, see plan_row_copies() */
	PfRowCopy  *copy_dense;		/* columns without nulls: values only */
	int			ncopy_dense;
	PfRowCopy  *copy_nulls;		/* columns with nulls: values and nulls */
	int			ncopy_nulls;
	int		   *lazy_atts;		/* lazy columns: null until late_convert */
	int			nlazy_atts;

	/* ORDER BY ... LIMIT: the first key's threshold (scan_topn.c) */
	List	   *topn_spec;		/* from the plan, or NIL */
	PfTopN	   *topn;			/* in use, or NULL */
	int			topn_col;		/* the key's column */
	const uint32 *topn_entries; /* the batch's key rows' dictionary entries,
								 * or NULL (see pf_topn_use_dictionary) */

	/* raw filters (PfLateQual.raw) */
	bool		raw_file_ok;	/* the open file's fields fit them */
	bool		raw_active;		/* the current batch's rows are sel[] */
	uint32	   *sel;			/* batch_rows entries: the selected rows */
	uint32	   *sel_tmp;
	uint32		nsel;
	uint32		sel_next;		/* next entry of sel to return */
	int64		raw_rejected;	/* rows they rejected, not counted yet */
	int64		raw_batches;	/* batches they selected rows of */
} PfScanState;

/* ----------------------------------------------------------------
 * Execution
 * ----------------------------------------------------------------
 */

/* Error context: the file, unit, row and column being read. */
static void
scan_error_callback(void *arg)
{
	PfScanState *st = (PfScanState *) arg;
	const PfSourceOps *ops = st->ops;
	const char *path;
	const char *column = st->err_column;
	int			unit = st->src != NULL ? st->src->unit : -1;

	if (st->file_index < 0 || st->file_index >= list_length(st->filenames))
		return;
	path = (const char *) list_nth(st->filenames, st->file_index);
	if (st->src != NULL && st->src->err_column != NULL)
		column = st->src->err_column;
	if (unit >= 0 && column && st->converting && ops->failed_row() >= 0)
		errcontext("%s \"%s\", %s %d, row %lld, column \"%s\"",
				   ops->file_noun, path, ops->unit_noun, unit,
				   (long long) (st->err_row_base + ops->failed_row()),
				   column);
	else if (unit >= 0 && column)
		errcontext("%s \"%s\", %s %d, column \"%s\"",
				   ops->file_noun, path, ops->unit_noun, unit, column);
	else if (unit >= 0)
		errcontext("%s \"%s\", %s %d", ops->file_noun, path, ops->unit_noun,
				   unit);
	else if (column)
		errcontext("%s \"%s\", column \"%s\"", ops->file_noun, path, column);
	else
		errcontext("%s \"%s\"", ops->file_noun, path);
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
		pf_qual_evaluate((PfPruneQual *) lfirst(lq), (ExprState *) lfirst(ls),
						 econtext, st->param_cxt);
	ResetExprContext(econtext);
}

/*
 * The state of a scan of rel over the given files (char *) of a format,
 * units (per file, List of Integer) and attributes, in a new context below
 * parent.  Without columns_too (EXPLAIN only) just what EXPLAIN shows.
 */
static PfScanState *
scan_state_create(Relation rel, const PfSourceOps *ops, List *filenames,
				  List *rowgroups, List *attnos, bool columns_too,
				  MemoryContext parent)
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
	st->kind = pf_source_kind(ops);
	st->ops = ops;
	st->scan_cxt = scan_cxt;
	st->rel = rel;
	st->filenames = filenames;
	st->rowgroups = rowgroups;
	st->file_index = -1;

	/* the flat list of (file, unit) to read, in scan order */
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
	st->io.cxt = scan_cxt;
	st->io.verify_checksums = opts->verify_checksums;
	st->io.guid_dotnet = opts->guid_dotnet;

	st->file_cxt = AllocSetContextCreate(st->scan_cxt, "parquet_fdw file",
										 ALLOCSET_DEFAULT_SIZES);
	st->batch_cxt = AllocSetContextCreate(st->scan_cxt, "parquet_fdw batch",
										  ALLOCSET_DEFAULT_SIZES);

	tupdesc = RelationGetDescr(st->rel);
	st->ncolumns = list_length(attnos);
	st->columns = palloc0(sizeof(PfScanColumn) * Max(1, st->ncolumns));
	st->src_columns = palloc0(sizeof(PfSourceColumn) * Max(1, st->ncolumns));
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
		PfSourceColumn *sc = &st->src_columns[i];
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
		sc->attnum = col->attnum;
		sc->attname = col->attname;
		sc->field_name = col->field_name;
		sc->typid = col->typid;
		sc->typmod = col->typmod;
	}
	MemoryContextSwitchTo(old);
	return st;
}

void
pfBeginForeignScan(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	EState	   *estate = node->ss.ps.state;
	PfScanState *st;
	MemoryContext old;
	List	   *filenames = NIL;
	ListCell   *lc;
	ListCell   *lc2;

	foreach(lc, (List *) list_nth(plan->fdw_private, PfScanPrivateFiles))
		filenames = lappend(filenames, strVal(lfirst(lc)));
	st = scan_state_create(node->ss.ss_currentRelation,
						   pf_source_of_kind((PfScanKind) intVal(list_nth(plan->fdw_private,
																		  PfScanPrivateKind))),
						   filenames,
						   (List *) list_nth(plan->fdw_private,
											 PfScanPrivateRowGroups),
						   (List *) list_nth(plan->fdw_private,
											 PfScanPrivateAttnos),
						   (eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0,
						   estate->es_query_cxt);
	st->total_rowgroups = intVal(list_nth(plan->fdw_private,
										  PfScanPrivateTotalRowGroups));
	foreach(lc, (List *) list_nth(plan->fdw_private, PfScanPrivateIdentities))
		st->identities = lappend(st->identities, strVal(lfirst(lc)));
	node->fdw_state = st;
	if (list_length(plan->fdw_private) > PfScanPrivateTopN)
		st->topn_spec = (List *) list_nth(plan->fdw_private, PfScanPrivateTopN);
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	/* the node's own instrumentation is set up only after this callback */
	st->io.time_decoding = (estate->es_instrument & INSTRUMENT_TIMER) != 0;

	/* a path in the files' declared order: their rows merged */
	if (list_length(plan->fdw_private) > PfScanPrivateSorted &&
		strVal(list_nth(plan->fdw_private, PfScanPrivateSorted))[0] != '\0')
	{
		const char *spec = strVal(list_nth(plan->fdw_private, PfScanPrivateSorted));

		/* the merge opens every file now: check them all first */
		forboth(lc, st->filenames, lc2, st->identities)
			pf_check_planned_file((const char *) lfirst(lc), (const char *) lfirst(lc2));

		st->merge = pf_merge_begin(st->rel, st->ops,
								   pf_parse_sorted(spec, st->rel),
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
		PfPruneQual *q = pf_qual_from_list(ints, st->scan_cxt);

		st->param_quals = lappend(st->param_quals, q);
	}
	if (st->param_quals != NIL)
	{
		st->param_states = ExecInitExprList(plan->fdw_exprs, (PlanState *) node);
		st->param_cxt = AllocSetContextCreate(st->scan_cxt, "parquet_fdw parameters",
											  ALLOCSET_SMALL_SIZES);
	}
	/* row-level index pruning: the plan's constant quals and the parameter ones */
	st->page_quals = list_concat(pf_prune_quals_from_clauses(plan->scan.plan.qual,
															 plan->scan.scanrelid),
								 st->param_quals);
	MemoryContextSwitchTo(old);

	/*
	 * Parameter values are evaluated when the first unit is chosen, not
	 * here: an InitPlan's value is computed on first use, which cannot happen
	 * before ExecInitNode has set the node's initPlans up (after this
	 * callback), and a nested loop sets the inner side's parameters only
	 * before each rescan.
	 */
	st->param_econtext = node->ss.ps.ps_ExprContext;
	st->params_pending = true;

	/* top-N: the key column's threshold, if the scan fills that column */
	if (st->topn_spec != NIL)
	{
		st->topn = pf_topn_begin(st->topn_spec, st->rel, st->scan_cxt);
		st->topn_col = -1;
		for (int i = 0; i < st->ncolumns; i++)
			if (st->columns[i].attnum == pf_topn_attnum(st->topn))
				st->topn_col = i;
		if (st->topn_col < 0)
			st->topn = NULL;
	}
}

/* Close the open unit's readers and free their memory. */
static void
close_rowgroup(PfScanState *st)
{
	if (st->src != NULL && st->src->unit >= 0)
		st->ops->unit_close(st->src);
	/* the next unit numbers its dictionary entries afresh */
	if (st->topn != NULL)
		pf_topn_forget_dictionary(st->topn);
	st->topn_entries = NULL;
}

/* Close the current file and free its metadata and converters. */
static void
close_file(PfScanState *st)
{
	close_rowgroup(st);
	if (st->src)
		st->ops->close(st->src);
	st->src = NULL;
	MemoryContextReset(st->file_cxt);
}

/*
 * Open file number file_index: bind the columns to its fields, with their
 * converters; the columns it lacks get their virtual value (file path,
 * partition value) or NULL.
 */
/* Do the open file's fields fit the raw filters (all of them)? */
static bool
raw_filters_fit(PfScanState *st)
{
	PfLateQual *lq = st->late_qual;

	if (lq == NULL || lq->nraw == 0 || st->ops->raw_field == NULL ||
		st->ops->raw_batch == NULL)
		return false;
	for (int k = 0; k < lq->nraw; k++)
	{
		int			c = lq->raw_cols[k];
		const PqFileMeta *meta;
		const PqSchemaNode *field;

		if (!st->src->present[c] || !st->ops->column_lazy(st->src, c))
			return false;
		field = st->ops->raw_field(st->src, c, &meta);
		if (!pf_scan_filters_fit(lq->raw, k, meta, field))
			return false;
	}
	return true;
}

static void
open_file(PfScanState *st, int file_index)
{
	const char *path = (const char *) list_nth(st->filenames, file_index);
	MemoryContext old = MemoryContextSwitchTo(st->file_cxt);

	st->file_index = file_index;
	/* the planned units are this file's only if it is the planned file */
	if (st->identities != NIL)
		pf_check_planned_file(path, (const char *) list_nth(st->identities, file_index));
	st->src = st->ops->open(path, st->rel, &st->io, st->file_cxt);
	st->ops->bind(st->src, st->src_columns, st->ncolumns,
				  st->missing_columns_error, true);
	st->raw_file_ok = raw_filters_fit(st);

	/*
	 * Late materialization: the columns the quals' first conjunct does not
	 * read are converted for the rows that need them only, and so may be
	 * decoded for those rows only.
	 */
	if (st->ops->column_defer != NULL)
		for (int i = 0; i < st->ncolumns; i++)
			if (st->columns[i].lazy && st->src->present[i] &&
				st->ops->column_lazy(st->src, i))
				st->ops->column_defer(st->src, i);

	for (int i = 0; i < st->ncolumns; i++)
	{
		PfScanColumn *col = &st->columns[i];
		char	   *text = NULL;

		col->present = st->src->present[i];
		if (col->present)
			continue;
		st->err_column = col->attname;
		col->virt_null = true;
		if (pf_virtual_column(NULL, path, st->rel, col->attnum,
							  col->field_name, &text) && text != NULL)
		{
			Oid			typinput;
			Oid			typioparam;

			getTypeInputInfo(col->typid, &typinput, &typioparam);
			col->virt_value = OidInputFunctionCall(typinput, text, typioparam,
												   col->typmod);
			col->virt_null = false;
		}
	}
	st->err_column = NULL;
	MemoryContextSwitchTo(old);
}

/*
 * Claim the next entry of the flat unit list: the scan's own counter, or
 * in a parallel scan the counter all participants share, so each unit is
 * read by exactly one of them.  Returns nwork or more at the end.
 */
static int64
claim_shared(PfScanState *st)
{
	uint64		work = pg_atomic_fetch_add_u64(&st->shared->next_work, 1);

	return (int64) Min(work, (uint64) st->nwork);
}

static int64
claim_work(PfScanState *st)
{
	if (st->shared != NULL)
	{
		int64		work;

		if (st->nclaimed == 0)
			return claim_shared(st);
		work = st->claimed[0];
		st->nclaimed--;
		memmove(st->claimed, st->claimed + 1, sizeof(int64) * st->nclaimed);
		return work;
	}
	if (st->next_work < st->nwork)
		return st->next_work++;
	return st->nwork;
}

/*
 * Tell the source which units of the open file follow work: the planned
 * list's next entries in a serial scan; in a parallel one, the entries
 * claimed ahead (claiming up to PF_CLAIM_AHEAD of them, more for a URL).
 */
static void
hint_next_units(PfScanState *st, int64 work)
{
	int			n = 0;

	if (st->shared != NULL)
	{
		int			ahead = pf_is_url(st->src->path) ? PF_CLAIM_AHEAD_REMOTE : PF_CLAIM_AHEAD;

		while (st->nclaimed < ahead)
		{
			int64		next = claim_shared(st);

			if (next >= st->nwork)
				break;
			st->claimed[st->nclaimed++] = next;
		}
		while (n < st->nclaimed && st->work_file[st->claimed[n]] == st->work_file[work])
		{
			st->claimed_rg[n] = st->work_rg[st->claimed[n]];
			n++;
		}
		st->src->next_units = st->claimed_rg;
	}
	else
	{
		while (work + 1 + n < st->nwork && n < 16 &&
			   st->work_file[work + 1 + n] == st->work_file[work])
			n++;
		st->src->next_units = st->work_rg + work + 1;
	}
	st->src->nnext_units = n;
}

/*
 * Move to the next unit to read, opening its file when it is not the open
 * one.  Returns false at the end of the scan.
 */
static bool
next_rowgroup(PfScanState *st)
{
	for (;;)
	{
		int64		work = claim_work(st);
		int			rg;

		if (work >= st->nwork)
		{
			if (st->src)
				close_file(st);
			return false;
		}
		if (st->src == NULL || st->file_index != st->work_file[work])
		{
			if (st->src)
				close_file(st);
			open_file(st, st->work_file[work]);

			/*
			 * A serial top-N scan reads the file's most promising units
			 * first (parallel participants share one order: kept).
			 */
			if (st->topn != NULL && st->shared == NULL)
			{
				int			end = (int) work;

				while (end < st->nwork && st->work_file[end] == st->file_index)
					end++;
				pf_topn_order_units(st->topn, st->ops, st->src, st->topn_col,
									st->columns[st->topn_col].typid,
									st->work_rg + work, end - (int) work);
			}
		}

		rg = st->work_rg[work];
		if (rg < 0 || rg >= st->src->nunits)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("%s \"%s\" changed since the query was planned",
							st->ops->file_noun, st->src->path),
					 errdetail("Unit %d (%s) was planned, the file now has %d.",
							   rg, st->ops->unit_noun, st->src->nunits)));
		if (st->ops->unit_rows(st->src, rg) <= 0)
			continue;
		if (st->params_pending)
			evaluate_prune_quals(st);
		if (st->param_quals != NIL)
		{
			PfPruneKind kind = st->ops->unit_prune(st->src, rg, st->param_quals);

			if (kind != PF_PRUNE_NONE)
			{
				st->rowgroups_skipped++;
				st->skipped_by[kind]++;
				continue;
			}
			/* parameters on partition or filename columns */
			if (st->ops->file_excluded(st->src, st->param_quals))
			{
				st->rowgroups_skipped++;
				continue;
			}
		}

		/* a unit none of whose rows can beat the top-N threshold */
		if (st->topn != NULL &&
			pf_topn_unit_excluded(st->topn, st->ops, st->src, rg, st->topn_col,
								  st->columns[st->topn_col].typid))
			continue;

		st->rowgroups_read++;
		hint_next_units(st, work);
		st->ops->unit_open(st->src, rg, st->page_quals, st->rowgroup_row_limit);
		return true;
	}
}

/*
 * Convert column i of the batch's first want rows, unless it is lazy now
 * (then late_convert() converts the rows that need it).
 */
static void
convert_batch_column(PfScanState *st, int i, uint32 want)
{
	PfScanColumn *col = &st->columns[i];

	if (!col->present)
	{
		for (uint32 r = 0; r < want; r++)
		{
			col->values[r] = col->virt_value;
			col->nulls[r] = col->virt_null;
		}
		return;
	}

	/* a lazy column waits for the rows that need it (late_convert) */
	col->lazy_now = col->lazy && st->ops->column_lazy(st->src, i);
	col->ready = 0;
	if (col->lazy_now)
		return;
	st->err_column = col->attname;
	st->err_row_base = st->src->batch_row;
	st->converting = true;
	st->ops->convert(st->src, i, 0, want, col->values, col->nulls);
	st->converting = false;
	col->ready = want;
}

/*
 * The dictionary entries of the top-N key's rows in the current batch of
 * want rows (PqColumnBatch.dict_index, numbered for the open unit), or
 * NULL when the format does not show them.
 */
static const uint32 *
key_entries(PfScanState *st, uint32 want)
{
	const PqColumnBatch *raw;

	if (st->ops->raw_batch == NULL || !st->src->present[st->topn_col])
		return NULL;
	raw = st->ops->raw_batch(st->src, st->topn_col);
	if (raw == NULL || raw->dict_index == NULL || raw->dictionary_count == 0 ||
		raw->num_rows != want || raw->rep_levels != NULL)
		return NULL;
	pf_topn_use_dictionary(st->topn, raw->dictionary_count);
	return raw->dict_index;
}

/*
 * Select the rows of the current batch (want rows) the raw filters pass
 * into st->sel; false when some filter's column has no raw batch now.
 */
static bool
raw_select(PfScanState *st, uint32 want)
{
	PfLateQual *lq = st->late_qual;
	const PqColumnBatch *b[PF_MAX_RAW_FILTERS];
	int			nraw = lq->nraw;
	uint32		n = want;

	for (int k = 0; k < nraw; k++)
	{
		b[k] = st->ops->raw_batch(st->src, lq->raw_cols[k]);
		if (b[k] == NULL || b[k]->num_rows != want || b[k]->rep_levels != NULL)
			return false;
	}
	for (uint32 r = 0; r < want; r++)
		st->sel[r] = r;
	for (int k = 0; k < nraw && n > 0; k++)
	{
		uint32	   *tmp = st->sel_tmp;

		n = pf_scan_filters_select(lq->raw, k, b[k], st->rowgroups_read,
								   st->sel, n, tmp);
		st->sel_tmp = st->sel;
		st->sel = tmp;
	}
	st->nsel = n;
	st->sel_next = 0;
	return true;
}

/*
 * Position the next batch and convert its eager columns into the columns'
 * Datum arrays.  Returns false at the end of the scan.  Under a top-N
 * threshold the key is converted first: a batch none of whose rows can
 * beat it is passed over before its other columns are converted (the
 * columns no flat leaf holds, which convert a whole batch at once).
 */
static bool
read_batch(PfScanState *st)
{
	uint32		want = 0;
	MemoryContext old;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		MemoryContextReset(st->batch_cxt);
		st->batch_size = 0;
		st->next_row = 0;

		while (st->src == NULL || st->src->unit < 0 ||
			   (want = st->ops->read(st->src, st->batch_rows)) == 0)
		{
			close_rowgroup(st);
			if (!next_rowgroup(st))
				return false;
		}

		old = MemoryContextSwitchTo(st->batch_cxt);
		st->raw_active = st->raw_file_ok && raw_select(st, want);
		st->raw_batches += st->raw_active;
		if (st->raw_active && st->nsel == 0)
		{
			/* no row passes: nothing to convert */
			st->raw_rejected += want;
			st->raw_active = false;
			MemoryContextSwitchTo(old);
			continue;
		}
		if (st->raw_active)
			st->raw_rejected += want - st->nsel;
		if (st->topn != NULL)
		{
			const PfScanColumn *key = &st->columns[st->topn_col];

			convert_batch_column(st, st->topn_col, want);
			st->topn_entries = key_entries(st, want);
			if (pf_topn_rejects_rows(st->topn, key->values, key->nulls,
									 st->topn_entries,
									 st->raw_active ? st->sel : NULL,
									 st->raw_active ? st->nsel : want))
			{
				MemoryContextSwitchTo(old);
				st->err_column = NULL;
				continue;
			}
		}
		for (int i = 0; i < st->ncolumns; i++)
			if (st->topn == NULL || i != st->topn_col)
				convert_batch_column(st, i, want);
		/* the raw filters' columns: for the selected rows only */
		if (st->raw_active)
			for (int k = 0; k < st->late_qual->nraw; k++)
			{
				PfScanColumn *col = &st->columns[st->late_qual->raw_cols[k]];

				if (st->topn != NULL)
					break;		/* the key: converted above */

				col->lazy_now = true;
				col->ready = 0;
			}
		MemoryContextSwitchTo(old);
		st->err_column = NULL;
		break;
	}

	/* cheap: a walk over the scan's few contexts */
	st->peak_memory = Max(st->peak_memory,
						  MemoryContextMemAllocated(st->scan_cxt, true));

	st->batch_size = want;
	return true;
}

/*
 * "text column = constant" or "<>" under a deterministic collation: equal
 * exactly when the bytes are (texteq, textne), so compared without the
 * fmgr call and detoasting of each row's value.
 */
static bool
fast_text_equality(Expr *e, Index scanrelid, PfScanState *st, PfFastConj *fc)
{
	OpExpr	   *op = (OpExpr *) e;
	Expr	   *left;
	Expr	   *right;
	Var		   *var;
	Const	   *cst;
	int			c;

	if (!IsA(e, OpExpr) || list_length(op->args) != 2 ||
		(op->opfuncid != F_TEXTEQ && op->opfuncid != F_TEXTNE) ||
		!OidIsValid(op->inputcollid) ||
		!get_collation_isdeterministic(op->inputcollid))
		return false;
	left = linitial(op->args);
	right = lsecond(op->args);
	while (IsA(left, RelabelType))
		left = ((RelabelType *) left)->arg;
	while (IsA(right, RelabelType))
		right = ((RelabelType *) right)->arg;
	if (IsA(right, Var) && IsA(left, Const))
	{
		Expr	   *tmp = left;

		left = right;
		right = tmp;
	}
	if (!IsA(left, Var) || !IsA(right, Const))
		return false;
	var = (Var *) left;
	cst = (Const *) right;
	if (var->varno != scanrelid || var->varlevelsup != 0 || cst->constisnull)
		return false;
	for (c = 0; c < st->ncolumns; c++)
		if (st->columns[c].attnum == var->varattno)
			break;
	if (c == st->ncolumns ||
		(st->columns[c].typid != TEXTOID && st->columns[c].typid != VARCHAROID))
		return false;
	{
		text	   *t = DatumGetTextPP(cst->constvalue);

		fc->text = VARDATA_ANY(t);
		fc->textlen = VARSIZE_ANY_EXHDR(t);
	}
	fc->col = c;
	fc->op = op->opfuncid == F_TEXTEQ ? PF_FAST_TEXT_EQ : PF_FAST_TEXT_NE;
	return true;
}

/*
 * Fill *fc when conjunct e is a comparison of an integer, date or
 * timestamp column whose exact same-type form (qual.c) is known for the
 * whole scan: constants, stable functions and the query's parameters are
 * computed now, a value that changes on rescans (PARAM_EXEC) is not.
 */
static void
fast_conjunct(Expr *e, ForeignScanState *node, PfScanState *st,
			  PfFastConj *fc)
{
	Index		scanrelid = ((Scan *) node->ss.ps.plan)->scanrelid;
	PfQual	   *q = pf_qual_classify((Node *) e, scanrelid);
	int16		typlen;
	int			c;

	fc->op = PF_FAST_NONE;
	/* LIKE on a text column: matched on the value's bytes, no fmgr call */
	{
		AttrNumber	attnum;
		const PfLikeFilter *like = pf_like_filter_compile(e, scanrelid, &attnum);

		if (like != NULL)
		{
			for (c = 0; c < st->ncolumns; c++)
				if (st->columns[c].attnum == attnum)
					break;
			if (c == st->ncolumns ||
				(st->columns[c].typid != TEXTOID && st->columns[c].typid != VARCHAROID))
				return;
			fc->col = c;
			fc->like = like;
			fc->op = PF_FAST_LIKE;
			return;
		}
	}
	if (fast_text_equality(e, scanrelid, st, fc))
		return;
	if (q == NULL || q->is_bool || q->is_null_test || q->in_list ||
		q->prune_only)
		return;
	switch (q->coltype)
	{
		case INT2OID:
			typlen = 2;
			break;
		case INT4OID:
		case DATEOID:
			typlen = 4;
			break;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			typlen = 8;
			break;
		default:
			return;
	}
	for (c = 0; c < st->ncolumns; c++)
		if (st->columns[c].attnum == q->attnum)
			break;
	if (c == st->ncolumns || st->columns[c].typid != q->coltype)
		return;
	if (!q->value_known)
	{
		if (pf_qual_has_exec_param(q))
			return;
		pf_qual_evaluate(q, ExecInitExpr(q->expr, &node->ss.ps),
						 node->ss.ps.ps_ExprContext, st->scan_cxt);
	}
	fc->col = c;
	fc->typlen = typlen;
	switch (q->norm)
	{
		case PF_NORM_CMP:
			if (q->norm_type != q->coltype)
				return;
			fc->value = typlen == 2 ? DatumGetInt16(q->norm_value) :
				typlen == 4 ? DatumGetInt32(q->norm_value) :
				DatumGetInt64(q->norm_value);
			fc->op = q->norm_strategy == BTLessStrategyNumber ? PF_FAST_LT :
				q->norm_strategy == BTLessEqualStrategyNumber ? PF_FAST_LE :
				q->norm_strategy == BTEqualStrategyNumber ? PF_FAST_EQ :
				q->norm_strategy == BTGreaterEqualStrategyNumber ? PF_FAST_GE :
				q->norm_strategy == BTGreaterStrategyNumber ? PF_FAST_GT :
				PF_FAST_NE;
			return;
		case PF_NORM_ALWAYS:
			/* every non-null value: v >= the least int64 */
			fc->value = PG_INT64_MIN;
			fc->op = PF_FAST_GE;
			return;
		case PF_NORM_NEVER:
			fc->value = PG_INT64_MIN;
			fc->op = PF_FAST_LT;
			return;
		case PF_NORM_NONE:
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
	if (fc->op == PF_FAST_LIKE)
		return pf_like_filter_datum(fc->like, col->values[r]);
	if (fc->op == PF_FAST_TEXT_EQ || fc->op == PF_FAST_TEXT_NE)
	{
		const struct varlena *t = (const struct varlena *) DatumGetPointer(col->values[r]);
		bool		equal;

		/* the scan's own values: never compressed or external */
		equal = VARSIZE_ANY_EXHDR(t) == fc->textlen &&
			memcmp(VARDATA_ANY(t), fc->text, fc->textlen) == 0;
		return equal == (fc->op == PF_FAST_TEXT_EQ);
	}
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

static bool late_qual_possible(ForeignScanState *node, PfScanState *st);

/*
 * The leading conjuncts scan_filter.c can evaluate on raw values.  Under
 * a top-N threshold only those on its key, which is decoded and converted
 * for every row anyway: other columns are better decoded only for the
 * rows the threshold lets through.
 */
static void
raw_filters_setup(ForeignScanState *node, PfScanState *st, PfLateQual *lq)
{
	Plan	   *plan = node->ss.ps.plan;
	Index		scanrelid = ((Scan *) plan)->scanrelid;
	ListCell   *lc;

	if (st->ops->raw_batch == NULL || st->ops->raw_field == NULL)
		return;
	lq->raw = pf_scan_filters_create(st->rel, scanrelid, st->batch_rows);
	lq->raw_cols = palloc(sizeof(int) * PF_MAX_RAW_FILTERS);
	foreach(lc, plan->qual)
	{
		AttrNumber	attnum;
		int			c;

		if (lq->nraw == PF_MAX_RAW_FILTERS ||
			!pf_scan_filters_add(lq->raw, (Expr *) lfirst(lc), &attnum))
			break;
		for (c = 0; c < st->ncolumns; c++)
			if (st->columns[c].attnum == attnum)
				break;
		if (c == st->ncolumns || (st->topn != NULL && c != st->topn_col))
			break;
		lq->raw_cols[lq->nraw++] = c;
	}
	if (lq->nraw > 0)
	{
		st->sel = palloc(sizeof(uint32) * st->batch_rows);
		st->sel_tmp = palloc(sizeof(uint32) * st->batch_rows);
	}
}

/*
 * Set up late conversion at the scan's first row (the executor has built
 * the quals by now): worthwhile when the plan has quals and some column is
 * read only by later conjuncts or by the output, and needed under a top-N
 * threshold (its key converted eagerly, rows it drops never reaching the
 * quals or the other columns).  Not done when a qual
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
	if (!late_qual_possible(node, st))
	{
		/* rows the executor may still reject must not feed the threshold */
		if (node->ss.ps.qual != NULL)
			st->topn = NULL;
		return;
	}
	if (st->topn == NULL && (node->ss.ps.qual == NULL || plan->qual == NIL))
		return;
	/* the top-N key is read for every row: converted eagerly */
	if (st->topn != NULL)
		seen = bms_make_singleton(st->topn_col);

	old = MemoryContextSwitchTo(st->scan_cxt);
	lq = palloc0(sizeof(PfLateQual));
	lq->nconj = list_length(plan->qual);
	lq->conj = palloc(sizeof(ExprState *) * lq->nconj);
	lq->conj_cols = palloc(sizeof(int *) * lq->nconj);
	lq->fast = palloc0(sizeof(PfFastConj) * lq->nconj);
	raw_filters_setup(node, st, lq);
	foreach(lc, plan->qual)
	{
		int			k = foreach_current_index(lc);
		Bitmapset  *attrs = NULL;
		int			n = 0;

		lq->conj[k] = ExecInitQual(list_make1(lfirst(lc)), &node->ss.ps);
		fast_conjunct((Expr *) lfirst(lc), node, st, &lq->fast[k]);
		pull_varattnos((Node *) lfirst(lc), scanrelid, &attrs);
		lq->conj_cols[k] = palloc(sizeof(int) * (st->ncolumns + 1));
		for (c = 0; c < st->ncolumns; c++)
		{
			PfScanColumn *col = &st->columns[c];

			if (!bms_is_member(col->attnum - FirstLowInvalidHeapAttributeNumber,
							   attrs) || bms_is_member(c, seen))
				continue;
			seen = bms_add_member(seen, c);
			/*
			 * The first conjunct's columns serve every row: converted
			 * eagerly, unless a top-N threshold drops rows before the
			 * quals see them (then only the rows it lets through need
			 * them, a few in a selective ORDER BY ... LIMIT).
			 */
			if ((k == 0 || k < lq->nraw) && st->topn == NULL)
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

	/* leading fast conjuncts on columns converted eagerly */
	while (lq->nleading_fast < lq->nconj &&
		   lq->fast[lq->nleading_fast].op != PF_FAST_NONE &&
		   !st->columns[lq->fast[lq->nleading_fast].col].lazy)
		lq->nleading_fast++;

	/*
	 * Nothing to convert late, no top-N and no conjunct to test without
	 * the slot (one column, say, compared by a function of its own):
	 * ExecScan's qual does as well.
	 */
	if (nlazy == 0 && st->topn == NULL && lq->nleading_fast == 0 &&
		lq->nraw == 0)
	{
		for (int i = 0; i < st->ncolumns; i++)
			st->columns[i].lazy = false;
		return;
	}
	st->late_qual = lq;
	node->ss.ps.qual = NULL;	/* evaluated here from now on */
}

/*
 * Can the scan evaluate the plan's quals itself?  Not when a qual reads
 * system columns (ForeignNext sets tableoid only after the scan returns
 * the row) or holds subplans.
 */
static bool
late_qual_possible(ForeignScanState *node, PfScanState *st)
{
	ForeignScan *fscan = (ForeignScan *) node->ss.ps.plan;
	ListCell   *lc;

	if (fscan->fsSystemCol || contain_subplans((Node *) fscan->scan.plan.qual))
		return false;
	foreach(lc, fscan->scan.plan.qual)
	{
		Bitmapset  *attrs = NULL;

		pull_varattnos((Node *) lfirst(lc), fscan->scan.scanrelid, &attrs);
		if (bms_next_member(attrs, -1) >= 0 &&
			bms_next_member(attrs, -1) <= 0 - FirstLowInvalidHeapAttributeNumber)
			return false;		/* system column or whole row */
	}
	return true;
}

/*
 * Make lazy column col's value of row r ready (late_convert: and put it
 * into the slot).
 * A column more than the source's lazy_rest_percent of the rows need is
 * converted for the rest of the batch at once; one that fewer rows reach,
 * for row r alone.
 */
static inline void
late_ready(PfScanState *st, PfScanColumn *col, uint32 r)
{
	col->rows_needed++;
	if (r >= col->ready)
	{
		PfLateQual *lq = st->late_qual;
		uint32		n = 1;
		MemoryContext old;
		ErrorContextCallback errcb;

		if (lq->rows_seen >= 1024 &&
			col->rows_needed * 100 >= lq->rows_seen * st->ops->lazy_rest_percent)
			n = st->batch_size - r;

		errcb.callback = scan_error_callback;
		errcb.arg = st;
		errcb.previous = error_context_stack;
		error_context_stack = &errcb;
		st->err_column = col->attname;
		old = MemoryContextSwitchTo(st->batch_cxt);
		st->err_row_base = st->src->batch_row + r;
		st->converting = true;
		st->ops->convert(st->src, (int) (col - st->columns), r, n,
						 col->values + r, col->nulls + r);
		st->converting = false;
		MemoryContextSwitchTo(old);
		st->err_column = NULL;
		error_context_stack = errcb.previous;
		col->ready = r + n;
	}
}

static inline void
late_convert(PfScanState *st, PfScanColumn *col, uint32 r, TupleTableSlot *slot)
{
	late_ready(st, col, r);
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
pfIterateForeignScan(ForeignScanState *node)
{
	PfScanState *st = (PfScanState *) node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;

	if (likely(st->late_decided && st->late_qual == NULL &&
			   st->topn == NULL && st->next_row < st->batch_size))
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
	PfTopN	   *topn;
	const PfScanColumn *topn_col;
	uint32		r;

	if (st->merge != NULL)
	{
		slot = pf_merge_next(st->merge, slot);
		if (TupIsNull(slot))
			pf_remote_verify_statement();
		return slot;
	}
	if (unlikely(!st->late_decided))
		late_qual_setup(node, st);
	lq = st->late_qual;
	topn = st->topn;
	topn_col = topn != NULL ? &st->columns[st->topn_col] : NULL;

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
			if (st->raw_rejected > 0)
			{
				/* rows the raw filters rejected, as ExecScan counts them */
				InstrCountFiltered1(node, (double) st->raw_rejected);
				lq->rows_seen += st->raw_rejected;
				st->raw_rejected = 0;
			}
			if (!more)
			{
				/* the end, maybe of row groups a cached footer pruned */
				pf_remote_verify_statement();
				return slot;
			}

			/*
			 * Attributes the scan does not fill stay null; the ones it fills
			 * are overwritten per row, so this is needed once a batch only.
			 */
			memset(slot->tts_isnull, true,
				   sizeof(bool) * slot->tts_tupleDescriptor->natts);
			plan_row_copies(st, slot);
		}

		if (st->raw_active)
		{
			/* the next row the raw filters selected */
			if (st->sel_next >= st->nsel)
			{
				st->next_row = st->batch_size;
				continue;
			}
			r = st->sel[st->sel_next++];
			st->next_row = r + 1;
			for (int k = 0; k < lq->nraw; k++)
			{
				PfScanColumn *col = &st->columns[lq->raw_cols[k]];

				if (col->lazy_now)
					late_ready(st, col, r);
			}
		}
		else
			r = st->next_row++;

		/* a row after the top-N threshold cannot be among the first n */
		if (topn != NULL &&
			(st->topn_entries != NULL ?
			 pf_topn_rejects_entry(topn, st->topn_entries[r],
								   topn_col->values[r], topn_col->nulls[r]) :
			 pf_topn_rejects(topn, topn_col->values[r], topn_col->nulls[r])))
		{
			if (lq != NULL)
				lq->rows_seen++;
			continue;
		}

		/* leading fast conjuncts reject rows before the slot is touched */
		if (lq != NULL && lq->nleading_fast > 0)
		{
			int			k;

			for (k = st->raw_active ? lq->nraw : 0; k < lq->nleading_fast; k++)
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
		if (st->raw_active)
			for (int k = 0; k < lq->nraw; k++)
			{
				const PfScanColumn *col = &st->columns[lq->raw_cols[k]];

				if (col->lazy_now)
				{
					slot->tts_values[col->attnum - 1] = col->values[r];
					slot->tts_isnull[col->attnum - 1] = col->nulls[r];
				}
			}
		ExecStoreVirtualTuple(slot);
		if (lq == NULL)
		{
			if (topn != NULL)
				pf_topn_add(topn, topn_col->values[r], topn_col->nulls[r]);
			return slot;
		}

		/* the quals, conjunct by conjunct, converting what each reads */
		lq->rows_seen++;
		econtext->ecxt_scantuple = slot;
		for (int k = Max(lq->nleading_fast, st->raw_active ? lq->nraw : 0);
			 k < lq->nconj && pass; k++)
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
		if (topn != NULL)
			pf_topn_add(topn, topn_col->values[r], topn_col->nulls[r]);
		for (const int *c = lq->rest_cols; *c >= 0; c++)
			if (st->columns[*c].lazy_now)
				late_convert(st, &st->columns[*c], r, slot);
		return slot;
	}
}
void
pfReScanForeignScan(ForeignScanState *node)
{
	PfScanState *st = (PfScanState *) node->fdw_state;

	if (st->merge != NULL)
		pf_merge_rescan(st->merge);
	close_file(st);
	MemoryContextReset(st->batch_cxt);
	st->file_index = -1;
	st->next_work = 0;			/* a parallel scan's counter: ReInitializeDSM */
	st->nclaimed = 0;
	st->batch_size = 0;
	st->next_row = 0;
	st->params_pending = true;
	if (st->topn != NULL)
		pf_topn_reset(st->topn);
}

void
pfEndForeignScan(ForeignScanState *node)
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
pfExplainForeignScan(ForeignScanState *node, ExplainState *es)
{
	PfScanState *st = (PfScanState *) node->fdw_state;
	const PfSourceOps *ops = st->ops;
	int			nread = 0;
	ListCell   *lc;
	List	   *pruned = (List *) list_nth(((ForeignScan *) node->ss.ps.plan)->fdw_private,
										 PfScanPrivatePruned);

	pf_explain_files(st->filenames, list_nth_int(pruned, PF_PRUNE_KINDS),
					 ops->file_label, es);

	foreach(lc, st->rowgroups)
		nread += list_length((List *) lfirst(lc));
	ExplainPropertyText(ops->units_label,
						psprintf("%d of %d", nread, st->total_rowgroups), es);
	{
		/* the plan's lines: pruning beyond statistics, the declared order */
		ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;

		if (list_nth_int(pruned, PF_PRUNE_KINDS + 1) > 0)
			ExplainPropertyInteger("Partition Folders Skipped", NULL,
								   list_nth_int(pruned, PF_PRUNE_KINDS + 1), es);
		if (list_nth_int(pruned, PF_PRUNE_BLOOM) +
			list_nth_int(pruned, PF_PRUNE_DICTIONARY) > 0)
			ExplainPropertyText(psprintf("%s Pruned", ops->units_label),
								psprintf("statistics %d, bloom filters %d, dictionaries %d",
										 list_nth_int(pruned, PF_PRUNE_STATISTICS),
										 list_nth_int(pruned, PF_PRUNE_BLOOM),
										 list_nth_int(pruned, PF_PRUNE_DICTIONARY)),
								es);
		if (list_length(plan->fdw_private) > PfScanPrivateSorted &&
			strVal(list_nth(plan->fdw_private, PfScanPrivateSorted))[0] != '\0')
			ExplainPropertyText("Sorted",
								psprintf("%s (merging %d files)",
										 strVal(list_nth(plan->fdw_private,
														 PfScanPrivateSorted)),
										 list_length(st->filenames)), es);
	}
	if (st->topn_spec != NIL && (es->verbose || es->analyze))
		pf_topn_explain(st->topn_spec, st->topn, st->rel, ops->units_label, es);
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
		ExplainPropertyInteger(psprintf("%s Read", ops->units_label), NULL,
							   st->rowgroups_read, es);
		if (st->param_quals != NIL)
			ExplainPropertyInteger(psprintf("%s Skipped at Run Time", ops->units_label),
								   NULL, st->rowgroups_skipped, es);
		if (st->io.rows_skipped_by_index > 0)
			ExplainPropertyInteger(ops->index_label, NULL,
								   st->io.rows_skipped_by_index, es);
		if (st->skipped_by[PF_PRUNE_BLOOM] + st->skipped_by[PF_PRUNE_DICTIONARY] > 0)
			ExplainPropertyText("Run-Time Skips",
								psprintf("statistics %lld, bloom filters %lld, dictionaries %lld",
										 (long long) st->skipped_by[PF_PRUNE_STATISTICS],
										 (long long) st->skipped_by[PF_PRUNE_BLOOM],
										 (long long) st->skipped_by[PF_PRUNE_DICTIONARY]),
								es);
		if (ops->counts_io)
			pf_explain_io(st->io.bytes_read +
						  (st->src != NULL && st->src->unit >= 0 ?
						   ops->unit_bytes_read(st->src) : 0),
						  st->io.time_decoding && es->timing ? &st->io.decode_time : NULL,
						  es);
		if (st->io.remote)
			pf_explain_remote(&st->io.remote_stats, es);
		ExplainPropertyInteger("Peak Memory", "kB",
							   (int64) ((st->peak_memory + 1023) / 1024), es);
		/* leading conjuncts evaluated on the batches' raw values */
		if (es->verbose && st->raw_batches > 0)
			ExplainPropertyInteger("Raw Filters", NULL, st->late_qual->nraw, es);
	}
}

/* ----------------------------------------------------------------
 * Parallel query
 *
 * Participants (the leader too) share the scan by units: each claims the
 * next entry of the flat (file, unit) list with an atomic counter in the
 * DSM, so every unit is read exactly once whatever the number of workers,
 * and run-time pruning still applies to each claimed one.
 * ----------------------------------------------------------------
 */

/*
 * Any scan of our foreign tables may run in a worker: it only reads files
 * and the catalogs.
 */
bool
pfIsForeignScanParallelSafe(PlannerInfo *root, RelOptInfo *rel,
							RangeTblEntry *rte)
{
	return true;
}

Size
pfEstimateDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt)
{
	return sizeof(PfParallelScan);
}

void
pfInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt,
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
		shared->rows_skipped_by_index += st->io.rows_skipped_by_index;
		shared->bytes_read += st->io.bytes_read;
		shared->remote.requests += st->io.remote_stats.requests;
		shared->remote.bytes_fetched += st->io.remote_stats.bytes_fetched;
		INSTR_TIME_ADD(shared->decode_time, st->io.decode_time);
		shared->peak_memory = Max(shared->peak_memory, st->peak_memory);
		st->rowgroups_read = 0;
		st->rowgroups_skipped = 0;
		memset(st->skipped_by, 0, sizeof(st->skipped_by));
		st->io.rows_skipped_by_index = 0;
		st->io.bytes_read = 0;
		memset(&st->io.remote_stats, 0, sizeof(PfRemoteStats));
		INSTR_TIME_SET_ZERO(st->io.decode_time);
	}
	else
	{
		st->rowgroups_read += shared->rowgroups_read;
		st->rowgroups_skipped += shared->rowgroups_skipped;
		for (int k = 0; k < PF_PRUNE_KINDS; k++)
			st->skipped_by[k] += shared->skipped_by[k];
		st->io.rows_skipped_by_index += shared->rows_skipped_by_index;
		st->io.bytes_read += shared->bytes_read;
		st->io.remote_stats.requests += shared->remote.requests;
		st->io.remote_stats.bytes_fetched += shared->remote.bytes_fetched;
		st->io.remote |= shared->remote.requests > 0;
		INSTR_TIME_ADD(st->io.decode_time, shared->decode_time);
		st->peak_memory = Max(st->peak_memory, shared->peak_memory);
		shared->rowgroups_read = 0;
		shared->rowgroups_skipped = 0;
		memset(shared->skipped_by, 0, sizeof(shared->skipped_by));
		shared->rows_skipped_by_index = 0;
		shared->bytes_read = 0;
		memset(&shared->remote, 0, sizeof(PfRemoteStats));
		INSTR_TIME_SET_ZERO(shared->decode_time);
	}
	SpinLockRelease(&shared->mutex);
}

/* Before a rescan of the Gather: the units are all to read again. */
void
pfReInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt,
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
pfInitializeWorkerForeignScan(ForeignScanState *node, shm_toc *toc,
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
pfShutdownForeignScan(ForeignScanState *node)
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
 * Scans outside the executor (ANALYZE, the sorted merge)
 * ----------------------------------------------------------------
 */

/*
 * pf_scan_open
 *		A scan of rel reading the given units of the given files of a
 *		format (at most the first rowgroup_row_limit rows of each, if
 *		positive).
 */
PfScanState *
pf_scan_open(Relation rel, const PfSourceOps *source, List *filenames,
			 List *rowgroups, List *attnos, int64 rowgroup_row_limit,
			 MemoryContext parent)
{
	PfScanState *st;

	st = scan_state_create(rel, source, filenames, rowgroups, attnos, true,
						   parent);
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
