/*-------------------------------------------------------------------------
 *
 * pg_compat.h
 *	  The one place where PostgreSQL's major versions differ for us.
 *
 * parquet_fdw builds against PostgreSQL 15, 16, 17 and 18.  15, 17 and 18
 * are built and tested (scripts/test-matrix.sh); 16 has no package here,
 * so its branches follow its headers and release notes, uncompiled.
 * Every call whose signature or home changed between those releases goes
 * through a pf_* wrapper here, which takes the arguments our call sites
 * pass and supplies (or drops) what a release added (or removed).  Each
 * guard names the upstream change and the release that made it.  Code
 * outside this header carries no PG_VERSION_NUM test.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_PG_COMPAT_H
#define PF_PG_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000
#error "parquet_fdw needs PostgreSQL 15 or later"
#endif

#include "commands/explain.h"
#include "commands/vacuum.h"
#include "nodes/pathnodes.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"

/*
 * 18 split EXPLAIN's API out of commands/explain.h: ExplainState moved to
 * commands/explain_state.h and the ExplainProperty* functions to
 * commands/explain_format.h (commit 9173e8b60 and its neighbours).
 * Including them here lets every file keep including commands/explain.h
 * alone.
 */
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#endif

/*
 * 18 no longer names the POSIX collation's OID in pg_collation_d.h; the
 * catalog row (OID 951, the same as C) is still there.
 */
#include "catalog/pg_collation.h"
#ifndef POSIX_COLLATION_OID
#define POSIX_COLLATION_OID 951
#endif

/*
 * 18 removed pg_attribute_noreturn() for the C11-style prefix pg_noreturn
 * (c.h).  Our declarations keep the old spelling, which GCC and clang read
 * as the noreturn attribute in front of or after the declarator.
 */
#ifndef pg_attribute_noreturn
#if defined(__GNUC__)
#define pg_attribute_noreturn() __attribute__((noreturn))
#else
#define pg_attribute_noreturn()
#endif
#endif

/*
 * Paths of a foreign scan and of a foreign upper rel.
 *
 * 17 added fdw_restrictinfo (the quals a join or upper path enforces;
 * commit 9e9931d2b "Re-allow FDWs and custom scan providers to replace
 * joins with pseudoconstant quals"); our paths enforce no quals of their
 * own, so NIL.  18 added disabled_nodes (the planner counts disabled nodes
 * apart from the cost, commit e22253467 "Treat number of disabled nodes in
 * a path as a separate cost metric"); our paths are never disabled, so 0.
 */
static inline ForeignPath *
pf_create_foreignscan_path(PlannerInfo *root, RelOptInfo *rel,
						   PathTarget *target, double rows,
						   Cost startup_cost, Cost total_cost,
						   List *pathkeys, Relids required_outer,
						   Path *fdw_outerpath, List *fdw_private)
{
#if PG_VERSION_NUM >= 180000
	return create_foreignscan_path(root, rel, target, rows, 0,
								   startup_cost, total_cost, pathkeys,
								   required_outer, fdw_outerpath, NIL,
								   fdw_private);
#elif PG_VERSION_NUM >= 170000
	return create_foreignscan_path(root, rel, target, rows,
								   startup_cost, total_cost, pathkeys,
								   required_outer, fdw_outerpath, NIL,
								   fdw_private);
#else
	return create_foreignscan_path(root, rel, target, rows,
								   startup_cost, total_cost, pathkeys,
								   required_outer, fdw_outerpath,
								   fdw_private);
#endif
}

static inline ForeignPath *
pf_create_foreign_upper_path(PlannerInfo *root, RelOptInfo *rel,
							 PathTarget *target, double rows,
							 Cost startup_cost, Cost total_cost,
							 List *pathkeys, Path *fdw_outerpath,
							 List *fdw_private)
{
#if PG_VERSION_NUM >= 180000
	return create_foreign_upper_path(root, rel, target, rows, 0,
									 startup_cost, total_cost, pathkeys,
									 fdw_outerpath, NIL, fdw_private);
#elif PG_VERSION_NUM >= 170000
	return create_foreign_upper_path(root, rel, target, rows,
									 startup_cost, total_cost, pathkeys,
									 fdw_outerpath, NIL, fdw_private);
#else
	return create_foreign_upper_path(root, rel, target, rows,
									 startup_cost, total_cost, pathkeys,
									 fdw_outerpath, fdw_private);
#endif
}

/*
 * The equivalence class of a sort expression.  16 dropped the
 * nullable_relids argument when Vars became outer-join-aware (commit
 * 2489d76c4 "Make Vars be outer-join-aware"); a base rel's Var has no
 * nullable relids, so 15 gets NULL.
 */
static inline EquivalenceClass *
pf_get_eclass_for_sort_expr(PlannerInfo *root, Expr *expr,
							List *opfamilies, Oid opcintype, Oid collation,
							Index sortref, Relids rel, bool create_it)
{
#if PG_VERSION_NUM >= 160000
	return get_eclass_for_sort_expr(root, expr, opfamilies, opcintype,
									collation, sortref, rel, create_it);
#else
	return get_eclass_for_sort_expr(root, expr, NULL, opfamilies, opcintype,
									collation, sortref, rel, create_it);
#endif
}

/*
 * The direction of an ordering operator, as get_ordering_op_properties()
 * reports it and make_canonical_pathkey() takes it.  18 moved both from
 * btree strategy numbers (int16 / int) to the AM-independent CompareType
 * (commits "Convert strategies to and from compare types" and "Replace
 * PathKey.pk_strategy with pk_cmptype").
 */
#if PG_VERSION_NUM >= 180000
typedef CompareType PfOrderingDirection;
#else
typedef int16 PfOrderingDirection;
#endif

/*
 * Does the collation compare bytes (C / POSIX)?  18 removed
 * lc_collate_is_c() (commit "Remove lc_collate_is_c()"); the locale object
 * carries the answer now.  InvalidOid (a non-collatable type) is not C, as
 * before.
 */
static inline bool
pf_collate_is_c(Oid collation)
{
#if PG_VERSION_NUM >= 180000
	if (!OidIsValid(collation))
		return false;
	return pg_newlocale_from_collation(collation)->collate_is_c;
#else
	return lc_collate_is_c(collation);
#endif
}

/*
 * The cost-based delay point of a sampling loop in ANALYZE.  18 added the
 * is_analyze argument so the delay time is reported to the right progress
 * view (commit "Add cost-based vacuum delay time to progress views").
 */
static inline void
pf_analyze_delay_point(void)
{
#if PG_VERSION_NUM >= 180000
	vacuum_delay_point(true);
#else
	vacuum_delay_point();
#endif
}

/* Run a query to completion: 18 dropped ExecutorRun's execute_once. */
#if PG_VERSION_NUM >= 180000
#define pf_executor_run_all(qd) ExecutorRun((qd), ForwardScanDirection, 0)
#else
#define pf_executor_run_all(qd) ExecutorRun((qd), ForwardScanDirection, 0, true)
#endif

/* A pathkey's btree strategy: 18 keeps a CompareType (same numbering). */
#if PG_VERSION_NUM >= 180000
#define PF_PATHKEY_STRATEGY(pk) \
	((pk)->pk_cmptype == COMPARE_GT ? BTGreaterStrategyNumber : BTLessStrategyNumber)
#else
#define PF_PATHKEY_STRATEGY(pk) ((pk)->pk_strategy)
#endif

#endif							/* PF_PG_COMPAT_H */
