/*-------------------------------------------------------------------------
 *
 * copy_from.c
 *	  COPY ... FROM ... (FORMAT parquet).  Placeholder until the writer
 *	  branch lands: refuses with a clear error.
 *
 * IDENTIFICATION
 *	  src/fdw/copy_from.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/copy.h"

uint64
pf_copy_from(ParseState *pstate, const CopyStmt *stmt, List *options)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("COPY FROM with FORMAT parquet is not implemented yet")));
	return 0;
}
