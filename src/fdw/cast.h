/*-------------------------------------------------------------------------
 *
 * cast.h
 *	  The cast layer shared by both file formats: a column's values arrive
 *	  as Datums of the type the file maps to by default; a PfCast takes a
 *	  batch of them to the column's declared type.
 *
 * How values get there is decided once per column (pf_cast_create), in
 * this order of preference:
 *
 *	- nothing, when the declared type (or its domain's base) is the default
 *	  type or binary-coercible from it;
 *	- a direct loop for the common widenings and the timestamp family
 *	  (int2/int4 to int4/int8, float4 to float8, timestamp to date, and a
 *	  UTC instant, timestamptz, to timestamp or date in UTC, so that what a
 *	  file holds does not depend on the session's TimeZone);
 *	- PostgreSQL's cast function, else I/O coercion (output then input),
 *	  looked up as for an explicit cast;
 *
 * then the declared typmod is enforced as on assignment (INSERT): a too
 * long varchar is an error, numerics are rounded; last, a declared domain's
 * constraints are checked on every value, NULLs included.  Arrays of a
 * declared element type are cast element by element by the converters,
 * each element through a PfCast of the element type.
 *
 * Errors are PostgreSQL's own for the cast, domain or typmod.  A column
 * whose declared type has no cast from the default type is reported by
 * pf_cast_not_supported().
 *
 * IDENTIFICATION
 *	  src/fdw/cast.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_CAST_H
#define PF_CAST_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/palloc.h"
#include "fdw/pg_compat.h"

typedef struct PfCast PfCast;

/*
 * Plan the cast from the default (src, srcmod) to the declared (dst,
 * dstmod), allocated in cxt (which must live as long as the cast).  NULL
 * when there is nothing to do at all; *no_path is set when PostgreSQL has
 * no cast (the caller reports it with pf_cast_not_supported).
 */
extern PfCast *pf_cast_create(Oid src, int32 srcmod, Oid dst, int32 dstmod,
							  MemoryContext cxt, bool *no_path);

/*
 * Plan jsonb to a composite type (or a domain over one): object keys are
 * matched to attribute names, each field converted by its input function
 * (jsonb_populate_record), then the domain checked.
 */
extern PfCast *pf_cast_create_populate(Oid dst, MemoryContext cxt);

/*
 * Cast n Datums in place: values[i * stride] / nulls[i * stride].  c may be
 * NULL (nothing to do).  When a value fails, *failed_index (if not NULL)
 * is set to its i before the error propagates, so that the caller's error
 * context can name the row.
 */
extern void pf_cast_apply(PfCast *c, Datum *values, bool *nulls, uint32 n,
						  int stride, int64 *failed_index);

/*
 * pf_cast_apply() under the caller's error context callback(arg), which
 * reads *failed_index to name where the failing value came from (a row of
 * a stripe, an element of a list).
 */
extern void pf_cast_apply_in_context(PfCast *c, Datum *values, bool *nulls,
									 uint32 n, int stride, int64 *failed_index,
									 void (*callback) (void *arg), void *arg);

/*
 * ERRCODE_FEATURE_NOT_SUPPORTED: column column_name, whose file type is
 * file_type in format ("Parquet", "Amudai"), has the default type
 * (deftyp, defmod) and no cast from it to the declared (typid, typmod).
 */
extern void pf_cast_not_supported(const char *column_name, const char *format,
								  const char *file_type, Oid deftyp,
								  int32 defmod, Oid typid, int32 typmod)
			pg_attribute_noreturn();

#endif							/* PF_CAST_H */
