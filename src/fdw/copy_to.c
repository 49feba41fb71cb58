/*-------------------------------------------------------------------------
 *
 * copy_to.c
 *	  COPY ... TO ... (FORMAT parquet).  Placeholder until the writer
 *	  branch lands: refuses with a clear error.
 *
 * IDENTIFICATION
 *	  src/fdw/copy_to.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/copy.h"

uint64
pf_copy_to(ParseState *pstate, const CopyStmt *stmt, List *options,
		   int stmt_location, int stmt_len)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("COPY TO with FORMAT parquet is not implemented yet")));
	return 0;
}
