/*-------------------------------------------------------------------------
 *
 * fdw.c
 *	  Module entry points: magic block, _PG_init (the GUCs), the FDW
 *	  handler and validator, and the routing of each callback.
 *
 * One FdwRoutine serves three kinds of scan: Parquet tables (scan.c, with
 * sorted.c's merge and the parallel callbacks), tables over Amudai shards
 * (amudai_scan.c) and aggregates pushed into a Parquet scan (aggregate.c).
 * Planning callbacks ask which format the table reads; execution callbacks
 * read the kind from the plan's marker, then from the scan state's first
 * member.  ANALYZE goes to analyze.c or amudai_analyze.c, IMPORT FOREIGN
 * SCHEMA to import.c, option validation to option.c.  This file makes no
 * planning or execution decision of its own.
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
#include "fdw/parquet_fdw.h"
#include "fdw/amudai_fdw.h"

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
		GUC_check_errdetail("This CPU does not support \"%s\" instructions.", *newval);
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

	DefineCustomBoolVariable("parquet_fdw.enable_aggregate_pushdown",
							 "Computes count, sum, avg, min and max inside Parquet scans.",
							 "Aggregates of one foreign table with simple filters and few groups are computed over the decoded columns (see aggregate.c).",
							 &pf_enable_aggregate_pushdown,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	MarkGUCPrefixReserved("parquet_fdw");
}

/*
 * Tables over Amudai shards (amudai_scan.c): GetForeignRelSize asks
 * pf_table_is_amudai(), the later planning callbacks look at the planner
 * state it left, execution callbacks at the plan's marker.
 */
static void
dispatchGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel,
						  Oid foreigntableid)
{
	if (pf_table_is_amudai(foreigntableid))
		amudaiGetForeignRelSize(root, baserel, foreigntableid);
	else
		parquetGetForeignRelSize(root, baserel, foreigntableid);
}

static void
dispatchGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel,
						Oid foreigntableid)
{
	if (pf_rel_is_amudai(baserel))
		amudaiGetForeignPaths(root, baserel, foreigntableid);
	else
		parquetGetForeignPaths(root, baserel, foreigntableid);
}

static ForeignScan *
dispatchGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel,
					   Oid foreigntableid, ForeignPath *best_path,
					   List *tlist, List *scan_clauses, Plan *outer_plan)
{
	if (IS_UPPER_REL(baserel))	/* aggregate pushdown (aggregate.c) */
		return pf_agg_get_foreign_plan(root, baserel, best_path, tlist,
									   outer_plan);
	if (pf_rel_is_amudai(baserel))
		return amudaiGetForeignPlan(root, baserel, foreigntableid, best_path,
									tlist, scan_clauses, outer_plan);
	return parquetGetForeignPlan(root, baserel, foreigntableid, best_path,
								 tlist, scan_clauses, outer_plan);
}

/*
 * Which kind of scan a plan node runs.  Until BeginForeignScan has made the
 * state, the plan's markers say; from then on the state's first member does,
 * one load per call (IterateForeignScan runs once per tuple).
 */
static PfScanKind
scan_kind(ForeignScanState *node)
{
	if (node->fdw_state != NULL)
		return *(const PfScanKind *) node->fdw_state;
	if (pf_agg_is_pushed_plan(node->ss.ps.plan))
		return PF_SCAN_AGGREGATE;
	if (pf_plan_is_amudai(node))
		return PF_SCAN_AMUDAI;
	return PF_SCAN_PARQUET;
}

static TupleTableSlot *dispatchIterateForeignScan(ForeignScanState *node);

static void
dispatchBeginForeignScan(ForeignScanState *node, int eflags)
{
	switch (scan_kind(node))
	{
		case PF_SCAN_AGGREGATE:
			pf_agg_begin_foreign_scan(node, eflags);
			break;
		case PF_SCAN_AMUDAI:
			amudaiBeginForeignScan(node, eflags);
			break;
		case PF_SCAN_PARQUET:
			parquetBeginForeignScan(node, eflags);

			/*
			 * The node's FdwRoutine is its own copy (made for the node by
			 * GetFdwRoutineForRelation, or by our handler), so a Parquet
			 * scan can skip the per-row dispatch: about 1% of a full scan.
			 */
			if (node->fdwroutine->IterateForeignScan == dispatchIterateForeignScan)
				node->fdwroutine->IterateForeignScan = parquetIterateForeignScan;
			break;
	}
}

static TupleTableSlot *
dispatchIterateForeignScan(ForeignScanState *node)
{
	switch (*(const PfScanKind *) node->fdw_state)
	{
		case PF_SCAN_AGGREGATE:
			return pf_agg_iterate_foreign_scan(node);
		case PF_SCAN_AMUDAI:
			return amudaiIterateForeignScan(node);
		case PF_SCAN_PARQUET:
			break;
	}
	return parquetIterateForeignScan(node);
}

static void
dispatchReScanForeignScan(ForeignScanState *node)
{
	switch (scan_kind(node))
	{
		case PF_SCAN_AGGREGATE:
			pf_agg_rescan_foreign_scan(node);
			break;
		case PF_SCAN_AMUDAI:
			amudaiReScanForeignScan(node);
			break;
		case PF_SCAN_PARQUET:
			parquetReScanForeignScan(node);
			break;
	}
}

/* Only Parquet scans have parallel state (the other kinds are not parallel-aware). */
static void
dispatchShutdownForeignScan(ForeignScanState *node)
{
	if (scan_kind(node) == PF_SCAN_PARQUET)
		parquetShutdownForeignScan(node);
}

static void
dispatchEndForeignScan(ForeignScanState *node)
{
	switch (scan_kind(node))
	{
		case PF_SCAN_AGGREGATE:
			pf_agg_end_foreign_scan(node);
			break;
		case PF_SCAN_AMUDAI:
			amudaiEndForeignScan(node);
			break;
		case PF_SCAN_PARQUET:
			parquetEndForeignScan(node);
			break;
	}
}

static void
dispatchExplainForeignScan(ForeignScanState *node, struct ExplainState *es)
{
	switch (scan_kind(node))
	{
		case PF_SCAN_AGGREGATE:
			pf_agg_explain_foreign_scan(node, es);
			break;
		case PF_SCAN_AMUDAI:
			amudaiExplainForeignScan(node, es);
			break;
		case PF_SCAN_PARQUET:
			parquetExplainForeignScan(node, es);
			break;
	}
}

/* Aggregate pushdown plans over Parquet planning state only. */
static void
dispatchGetForeignUpperPaths(PlannerInfo *root, UpperRelationKind stage,
							 RelOptInfo *input_rel, RelOptInfo *output_rel,
							 void *extra)
{
	if (pf_rel_is_amudai(input_rel))
		return;
	parquetGetForeignUpperPaths(root, stage, input_rel, output_rel, extra);
}

static bool
dispatchAnalyzeForeignTable(Relation relation, AcquireSampleRowsFunc *func,
							BlockNumber *totalpages)
{
	if (pf_table_is_amudai(RelationGetRelid(relation)))
	{
		*func = pf_amudai_acquire_sample_rows;
		*totalpages = pf_amudai_table_pages(relation);
		return true;
	}
	return parquetAnalyzeForeignTable(relation, func, totalpages);
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
	routine->GetForeignRelSize = dispatchGetForeignRelSize;
	routine->GetForeignPaths = dispatchGetForeignPaths;
	routine->GetForeignPlan = dispatchGetForeignPlan;
	routine->GetForeignUpperPaths = dispatchGetForeignUpperPaths;

	/* execution */
	routine->BeginForeignScan = dispatchBeginForeignScan;
	routine->IterateForeignScan = dispatchIterateForeignScan;
	routine->ReScanForeignScan = dispatchReScanForeignScan;
	routine->EndForeignScan = dispatchEndForeignScan;

	/* parallel query */
	routine->IsForeignScanParallelSafe = parquetIsForeignScanParallelSafe;
	routine->EstimateDSMForeignScan = parquetEstimateDSMForeignScan;
	routine->InitializeDSMForeignScan = parquetInitializeDSMForeignScan;
	routine->ReInitializeDSMForeignScan = parquetReInitializeDSMForeignScan;
	routine->InitializeWorkerForeignScan = parquetInitializeWorkerForeignScan;
	routine->ShutdownForeignScan = dispatchShutdownForeignScan;

	/* EXPLAIN */
	routine->ExplainForeignScan = dispatchExplainForeignScan;

	/* ANALYZE */
	routine->AnalyzeForeignTable = dispatchAnalyzeForeignTable;

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
