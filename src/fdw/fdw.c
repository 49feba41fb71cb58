/*-------------------------------------------------------------------------
 *
 * fdw.c
 *	  Module entry points: magic block, _PG_init (the GUCs), the FDW
 *	  handler and validator, and the routing of each callback.
 *
 * The callbacks themselves live in scan.c (planning and execution, for
 * tables of either format), agg_*.c (pushed-down aggregates),
 * import.c (IMPORT FOREIGN SCHEMA) and option.c (option validation); this
 * file only wires them into the FdwRoutine.
 *
 * IDENTIFICATION
 *	  src/fdw/fdw.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/reloptions.h"
#include "fmgr.h"
#include "foreign/fdwapi.h"
#include "utils/guc.h"

#include "codec/codec.h"
#include "fdw/copy.h"
#include "fdw/modify.h"
#include "fdw/parquet_fdw.h"
#include "fdw/remote_object.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

PG_FUNCTION_INFO_V1(parquet_fdw_handler);
PG_FUNCTION_INFO_V1(parquet_fdw_validator);

/* GUC parquet_fdw.simd: which SIMD kernels the codec layer uses. */
char	   *parquet_fdw_simd = NULL;

/*
 * check_hook for parquet_fdw.simd: the name must be known and, unless it is
 * "auto", the CPU must support it.  Forcing an ISA the CPU lacks is an error
 * at SET time, never a crash later.
 */
static bool
check_simd(char **newval, void **extra, GucSource source)
{
	CdcIsa		isa;

	if (!cdc_isa_from_name(*newval, &isa))
	{
		GUC_check_errdetail("Valid values are \"auto\", \"scalar\", \"avx2\" and \"avx512\".");
		return false;
	}
	if (!cdc_isa_supported(isa))
	{
		/* the ISAs are nested: the best one names all the CPU has */
		GUC_check_errdetail("This CPU does not support \"%s\" instructions; the best it supports is \"%s\".",
							*newval, cdc_isa_name(cdc_isa_best()));
		return false;
	}
	return true;
}

/* assign_hook: switch the codec layer's kernels (cannot fail after check). */
static void
assign_simd(const char *newval, void *extra)
{
	CdcIsa		isa;

	if (cdc_isa_from_name(newval, &isa))
		(void) cdc_set_isa(isa);
}

void
_PG_init(void)
{
	DefineCustomStringVariable("parquet_fdw.simd",
							   "Selects the SIMD kernels used to decode Parquet pages.",
							   "One of auto (the best the CPU supports), scalar, avx2, avx512.",
							   &parquet_fdw_simd,
							   "auto",
							   PGC_USERSET,
							   0,
							   check_simd, assign_simd, NULL);

	DefineCustomIntVariable("parquet_fdw.footer_cache_size",
							"Sets the memory each backend may keep parsed Parquet footers in.",
							"Footers of files planned or read are kept, least recently used evicted first; 0 disables the cache.",
							&pf_footer_cache_size_kb,
							64 * 1024,
							0, MAX_KILOBYTES,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("parquet_fdw.remote_metadata_ttl",
							"Sets how long a backend trusts an object's size and ETag without asking the store.",
							"Within it, statements plan over a cached footer without a HEAD; the first read (If-Match) or a HEAD before the answer confirms the object, and a replaced one fails the statement (55000). 0 (the default) asks every statement.",
							&pf_remote_metadata_ttl_s,
							0,
							0, INT_MAX / 1000,
							PGC_USERSET,
							GUC_UNIT_S,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("parquet_fdw.enable_aggregate_pushdown",
							 "Computes count, sum, avg, min and max inside Parquet scans.",
							 "Aggregates of one foreign table with simple filters and few groups are computed over the decoded columns (see agg_exec.c).",
							 &pf_enable_aggregate_pushdown,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("parquet_fdw.enable_partial_aggregate",
							 "Computes pushed-down aggregates in parallel workers.",
							 "Each participant of a parallel plan returns its groups' transition states, which Finalize Aggregate combines (see agg_partial.c).",
							 &pf_enable_partial_aggregate,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	pf_topn_define_guc();
	pf_agg_xchg_define_guc();

	MarkGUCPrefixReserved("parquet_fdw");

	pf_copy_hook_install();
	pf_distinct_stats_install();
}

/*
 * Table scans of both formats run the same callbacks (scan.c over the
 * table's source); only pushed-down aggregates (agg_exec.c) have their
 * own.  Planning callbacks for a base relation are always the scan's.
 */
static ForeignScan *
dispatchGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel,
					   Oid foreigntableid, ForeignPath *best_path,
					   List *tlist, List *scan_clauses, Plan *outer_plan)
{
	if (IS_UPPER_REL(baserel))	/* aggregate pushdown (agg_plan.c) */
		return pf_agg_get_foreign_plan(root, baserel, best_path, tlist,
									   outer_plan);
	return pfGetForeignPlan(root, baserel, foreigntableid, best_path,
							tlist, scan_clauses, outer_plan);
}

/*
 * Is this node a pushed-down aggregate?  Until BeginForeignScan has made
 * the state, the plan says; from then on the state's first member does,
 * one load per call.
 */
static bool
is_aggregate(ForeignScanState *node)
{
	if (node->fdw_state != NULL)
		return *(const PfScanKind *) node->fdw_state == PF_SCAN_AGGREGATE;
	return pf_agg_is_pushed_plan(node->ss.ps.plan);
}

static TupleTableSlot *dispatchIterateForeignScan(ForeignScanState *node);

static void
dispatchBeginForeignScan(ForeignScanState *node, int eflags)
{
	if (is_aggregate(node))
	{
		pf_agg_begin_foreign_scan(node, eflags);
		return;
	}
	pfBeginForeignScan(node, eflags);

	/*
	 * The node's FdwRoutine is its own copy (made for the node by
	 * GetFdwRoutineForRelation, or by our handler), so a table scan can
	 * skip the per-row dispatch: about 1% of a full scan.
	 */
	if (node->fdwroutine->IterateForeignScan == dispatchIterateForeignScan)
		node->fdwroutine->IterateForeignScan = pfIterateForeignScan;
}

static TupleTableSlot *
dispatchIterateForeignScan(ForeignScanState *node)
{
	if (is_aggregate(node))
		return pf_agg_iterate_foreign_scan(node);
	return pfIterateForeignScan(node);
}

static void
dispatchReScanForeignScan(ForeignScanState *node)
{
	if (is_aggregate(node))
		pf_agg_rescan_foreign_scan(node);
	else
		pfReScanForeignScan(node);
}

/*
 * Parallel state: a Size, the remote objects' handoff of that many bytes
 * (remote_object.h: what the leader knows of the URLs it planned over),
 * then a table scan's, or a partial aggregate's units counter
 * (agg_partial.c).
 */
#define PF_DSM_HEAD		MAXALIGN(sizeof(Size))

static void *
format_state(void *coordinate)
{
	return (char *) coordinate + PF_DSM_HEAD + *(Size *) coordinate;
}

static Size
dispatchEstimateDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt)
{
	Size		own;

	if (is_aggregate(node))
		own = pf_agg_partial_estimate_dsm(node);
	else
		own = pfEstimateDSMForeignScan(node, pcxt);
	return add_size(add_size(PF_DSM_HEAD, pf_remote_handoff_estimate(node)), own);
}

static void
dispatchInitializeDSMForeignScan(ForeignScanState *node, ParallelContext *pcxt,
								 void *coordinate)
{
	*(Size *) coordinate = pf_remote_handoff_write(node,
												   (char *) coordinate + PF_DSM_HEAD);
	if (is_aggregate(node))
		pf_agg_partial_init_dsm(node, pcxt, format_state(coordinate));
	else
		pfInitializeDSMForeignScan(node, pcxt, format_state(coordinate));
}

static void
dispatchReInitializeDSMForeignScan(ForeignScanState *node,
								   ParallelContext *pcxt, void *coordinate)
{
	if (is_aggregate(node))
		pf_agg_partial_reinit_dsm(node, format_state(coordinate));
	else
		pfReInitializeDSMForeignScan(node, pcxt, format_state(coordinate));
}

static void
dispatchInitializeWorkerForeignScan(ForeignScanState *node, shm_toc *toc,
									void *coordinate)
{
	if (*(Size *) coordinate > 0)
		pf_remote_handoff_read((char *) coordinate + PF_DSM_HEAD);
	if (is_aggregate(node))
		pf_agg_partial_init_worker(node, format_state(coordinate));
	else
		pfInitializeWorkerForeignScan(node, toc, format_state(coordinate));
}

/* Before the DSM goes away: the workers' EXPLAIN ANALYZE counters. */
static void
dispatchShutdownForeignScan(ForeignScanState *node)
{
	if (is_aggregate(node))
		pf_agg_partial_shutdown(node);
	else
		pfShutdownForeignScan(node);
}

static void
dispatchEndForeignScan(ForeignScanState *node)
{
	if (is_aggregate(node))
		pf_agg_end_foreign_scan(node);
	else
		pfEndForeignScan(node);
}

static void
dispatchExplainForeignScan(ForeignScanState *node, struct ExplainState *es)
{
	if (is_aggregate(node))
		pf_agg_explain_foreign_scan(node, es);
	else
	{
		pfExplainForeignScan(node, es);
		pf_agg_explain_refused(node, es);
	}
}

/*
 * parquet_fdw_handler
 *		The FdwRoutine with our callbacks.
 */
Datum
parquet_fdw_handler(PG_FUNCTION_ARGS)
{
	FdwRoutine *routine = makeNode(FdwRoutine);

	/* planning */
	routine->GetForeignRelSize = pfGetForeignRelSize;
	routine->GetForeignPaths = pfGetForeignPaths;
	routine->GetForeignPlan = dispatchGetForeignPlan;
	routine->GetForeignUpperPaths = parquetGetForeignUpperPaths;

	/* execution */
	routine->BeginForeignScan = dispatchBeginForeignScan;
	routine->IterateForeignScan = dispatchIterateForeignScan;
	routine->ReScanForeignScan = dispatchReScanForeignScan;
	routine->EndForeignScan = dispatchEndForeignScan;

	/* parallel query */
	routine->IsForeignScanParallelSafe = pfIsForeignScanParallelSafe;
	routine->EstimateDSMForeignScan = dispatchEstimateDSMForeignScan;
	routine->InitializeDSMForeignScan = dispatchInitializeDSMForeignScan;
	routine->ReInitializeDSMForeignScan = dispatchReInitializeDSMForeignScan;
	routine->InitializeWorkerForeignScan = dispatchInitializeWorkerForeignScan;
	routine->ShutdownForeignScan = dispatchShutdownForeignScan;

	/* INSERT (modify.c); UPDATE and DELETE are not offered */
	routine->IsForeignRelUpdatable = pfIsForeignRelUpdatable;
	routine->PlanForeignModify = pfPlanForeignModify;
	routine->BeginForeignModify = pfBeginForeignModify;
	routine->ExecForeignInsert = pfExecForeignInsert;
	routine->ExecForeignBatchInsert = pfExecForeignBatchInsert;
	routine->GetForeignModifyBatchSize = pfGetForeignModifyBatchSize;
	routine->EndForeignModify = pfEndForeignModify;
	routine->BeginForeignInsert = pfBeginForeignInsert;
	routine->EndForeignInsert = pfEndForeignInsert;

	/* EXPLAIN */
	routine->ExplainForeignScan = dispatchExplainForeignScan;

	/* ANALYZE */
	routine->AnalyzeForeignTable = pfAnalyzeForeignTable;

	/* IMPORT FOREIGN SCHEMA */
	routine->ImportForeignSchema = parquetImportForeignSchema;

	PG_RETURN_POINTER(routine);
}

/*
 * parquet_fdw_validator
 *		Checks the options of CREATE/ALTER FOREIGN TABLE, SERVER, USER
 *		MAPPING and FOREIGN DATA WRAPPER (see option.c).
 */
Datum
parquet_fdw_validator(PG_FUNCTION_ARGS)
{
	List	   *options = untransformRelOptions(PG_GETARG_DATUM(0));
	Oid			catalog = PG_GETARG_OID(1);

	pf_validate_options(options, catalog);
	PG_RETURN_VOID();
}
