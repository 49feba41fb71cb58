/*-------------------------------------------------------------------------
 *
 * scan_filter.h
 *	  The plain scan's filters over a batch's raw values: leading
 *	  conjuncts of the quals evaluated on the format layer's decoded
 *	  batch (PqColumnBatch) into a selection vector before any Datum is
 *	  built, with the aggregate pushdown's compiled filters and kernels
 *	  (agg_filter.c), so both paths give the same rows.
 *
 * Contract: a filter is added only for a conjunct whose answer on every
 * row is exactly ExecQual's (three-valued logic: a row whose value is
 * NULL never passes), with no parameter whose value changes on rescans.
 * Per file, pf_scan_filters_fit() says whether the file's field is one
 * the kernels read raw; when it is not, the caller evaluates the conjunct
 * on Datums as before.
 *
 * IDENTIFICATION
 *	  src/fdw/scan_filter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_SCAN_FILTER_H
#define PF_SCAN_FILTER_H

#include "fdw/parquet_fdw.h"

typedef struct PfScanFilters PfScanFilters;

/*
 * An empty set of filters over relation rel (scan relid), for batches of
 * at most max_rows rows; allocated in the current memory context, which
 * must live as long as the scan.
 */
extern PfScanFilters *pf_scan_filters_create(Relation rel, Index relid,
											 uint32 max_rows);

/*
 * Add conjunct clause as the next filter; false (nothing added) when the
 * kernels cannot evaluate it.  *attnum: the column it reads.
 */
extern bool pf_scan_filters_add(PfScanFilters *fs, Expr *clause,
								AttrNumber *attnum);

/* Can filter k read the file's field (NULL: absent) raw? Once per file. */
extern bool pf_scan_filters_fit(PfScanFilters *fs, int k,
								const PqFileMeta *meta,
								const PqSchemaNode *field);

/*
 * The rows of in[0..n) (ascending) of batch b, the column of filter k,
 * that pass it, into out (ascending, not in); returns their number.
 * unit identifies the open unit: dictionary memos are dropped when it
 * changes.
 */
extern uint32 pf_scan_filters_select(PfScanFilters *fs, int k,
									 const PqColumnBatch *b, int64 unit,
									 const uint32 *in, uint32 n, uint32 *out);

#endif							/* PF_SCAN_FILTER_H */
