/*-------------------------------------------------------------------------
 *
 * cast.c
 *	  Default type to declared type, a batch of Datums at a time, for both
 *	  file formats (contract: cast.h).
 *
 * IDENTIFICATION
 *	  src/fdw/cast.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "nodes/makefuncs.h"
#include "parser/parse_coerce.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "fdw/cast.h"

/* How a value of the default type becomes one of the declared base type. */
typedef enum PfCastMethod
{
	PF_CAST_NONE,				/* same type, or binary-coercible */
	PF_CAST_DIRECT,				/* one of PfDirectCast's loops */
	PF_CAST_FUNC,				/* cast function */
	PF_CAST_IO,					/* output then input function */
	PF_CAST_POPULATE			/* jsonb to a composite: jsonb_populate_record */
} PfCastMethod;

/* The casts done without a function call per value. */
typedef enum PfDirectCast
{
	PF_DIRECT_INT2_INT4,
	PF_DIRECT_INT2_INT8,
	PF_DIRECT_INT4_INT8,
	PF_DIRECT_FLOAT4_FLOAT8,
	PF_DIRECT_TIMESTAMP_DATE,	/* also timestamptz, in UTC */
	PF_DIRECT_TIMESTAMPTZ_TIMESTAMP /* the UTC wall clock: same microseconds */
} PfDirectCast;

struct PfCast
{
	PfCastMethod method;
	PfDirectCast direct;		/* PF_CAST_DIRECT */
	FmgrInfo	func;			/* PF_CAST_FUNC, PF_CAST_POPULATE */
	int			func_nargs;
	FmgrInfo	out_func;		/* PF_CAST_IO */
	FmgrInfo	in_func;
	Oid			in_ioparam;
	int32		target_typmod;	/* the declared (base) typmod */
	bool		has_typmod_func;	/* declared typmod's length coercion */
	FmgrInfo	typmod_func;
	int			typmod_nargs;
	Oid			domain_type;	/* declared domain, or InvalidOid */
	void	   *domain_extra;
	MemoryContext cxt;
};

/* Is there a direct loop from src to dst?  Sets *direct. */
static bool
find_direct_cast(Oid src, Oid dst, PfDirectCast *direct)
{
	if (src == INT2OID && dst == INT4OID)
		*direct = PF_DIRECT_INT2_INT4;
	else if (src == INT2OID && dst == INT8OID)
		*direct = PF_DIRECT_INT2_INT8;
	else if (src == INT4OID && dst == INT8OID)
		*direct = PF_DIRECT_INT4_INT8;
	else if (src == FLOAT4OID && dst == FLOAT8OID)
		*direct = PF_DIRECT_FLOAT4_FLOAT8;
	else if ((src == TIMESTAMPOID || src == TIMESTAMPTZOID) && dst == DATEOID)
		*direct = PF_DIRECT_TIMESTAMP_DATE;
	else if (src == TIMESTAMPTZOID && dst == TIMESTAMPOID)
		*direct = PF_DIRECT_TIMESTAMPTZ_TIMESTAMP;
	else
		return false;
	return true;
}

/* Look up PostgreSQL's cast pathway; false when there is none. */
static bool
setup_pathway(PfCast *c, Oid src, Oid base, MemoryContext cxt)
{
	Oid			funcid = InvalidOid;
	CoercionPathType path;

	if (base == src)
		path = COERCION_PATH_RELABELTYPE;
	else if (find_direct_cast(src, base, &c->direct))
	{
		c->method = PF_CAST_DIRECT;
		return true;
	}
	else
		path = find_coercion_pathway(base, src, COERCION_EXPLICIT, &funcid);

	switch (path)
	{
		case COERCION_PATH_RELABELTYPE:
			c->method = PF_CAST_NONE;
			return true;
		case COERCION_PATH_FUNC:
			c->method = PF_CAST_FUNC;
			fmgr_info_cxt(funcid, &c->func, cxt);
			c->func_nargs = get_func_nargs(funcid);
			return true;
		case COERCION_PATH_COERCEVIAIO:
			{
				Oid			outfn;
				Oid			infn;
				bool		isvarlena;

				c->method = PF_CAST_IO;
				getTypeOutputInfo(src, &outfn, &isvarlena);
				getTypeInputInfo(base, &infn, &c->in_ioparam);
				fmgr_info_cxt(outfn, &c->out_func, cxt);
				fmgr_info_cxt(infn, &c->in_func, cxt);
				return true;
			}
		default:
			return false;
	}
}

PfCast *
pf_cast_create(Oid src, int32 srcmod, Oid dst, int32 dstmod,
			   MemoryContext cxt, bool *no_path)
{
	PfCast	   *c = MemoryContextAllocZero(cxt, sizeof(PfCast));
	int32		basemod = dstmod;
	Oid			base = getBaseTypeAndTypmod(dst, &basemod);

	*no_path = false;
	c->cxt = cxt;
	c->target_typmod = basemod;
	if (base != dst)
		c->domain_type = dst;

	if (!setup_pathway(c, src, base, cxt))
	{
		*no_path = true;
		pfree(c);
		return NULL;
	}

	/*
	 * The declared typmod's length coercion, unless the value already has
	 * it or the cast function applied it.
	 */
	if (basemod >= 0 && !(base == src && basemod == srcmod) &&
		!(c->method == PF_CAST_FUNC && c->func_nargs >= 2))
	{
		Oid			tmfunc = InvalidOid;

		if (find_typmod_coercion_function(base, &tmfunc) == COERCION_PATH_FUNC)
		{
			c->has_typmod_func = true;
			fmgr_info_cxt(tmfunc, &c->typmod_func, cxt);
			c->typmod_nargs = get_func_nargs(tmfunc);
		}
	}

	if (c->method == PF_CAST_NONE && !c->has_typmod_func &&
		!OidIsValid(c->domain_type))
	{
		pfree(c);
		return NULL;
	}
	return c;
}

/*
 * jsonb_populate_record learns the record type from its call expression,
 * so a dummy one is attached to the FmgrInfo.
 */
PfCast *
pf_cast_create_populate(Oid dst, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	PfCast	   *c = palloc0(sizeof(PfCast));
	int32		basemod = -1;
	Oid			base = getBaseTypeAndTypmod(dst, &basemod);

	c->cxt = cxt;
	if (base != dst)
		c->domain_type = dst;
	c->method = PF_CAST_POPULATE;
	c->target_typmod = -1;
	fmgr_info_cxt(F_JSONB_POPULATE_RECORD, &c->func, cxt);
	c->func.fn_expr = (Node *)
		makeFuncExpr(F_JSONB_POPULATE_RECORD, base,
					 list_make2(makeNullConst(base, -1, InvalidOid),
								makeNullConst(JSONBOID, -1, InvalidOid)),
					 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	MemoryContextSwitchTo(old);
	return c;
}

/* Floor of microseconds to days; the infinities stay infinite. */
static inline DateADT
timestamp_days(Timestamp ts)
{
	if (TIMESTAMP_IS_NOBEGIN(ts))
		return DATEVAL_NOBEGIN;
	if (TIMESTAMP_IS_NOEND(ts))
		return DATEVAL_NOEND;
	return (DateADT) (ts / USECS_PER_DAY - (ts % USECS_PER_DAY < 0 ? 1 : 0));
}

/* The direct loops: one per cast, no per-value switch. */
static void
apply_direct(PfDirectCast direct, Datum *values, const bool *nulls,
			 uint32 n, int stride)
{
#define PF_DIRECT_LOOP(EXPR) \
	for (uint32 i = 0; i < n; i++) \
	{ \
		size_t		k = (size_t) i * stride; \
		if (!nulls[k]) \
		{ \
			Datum		v = values[k]; \
			values[k] = (EXPR); \
		} \
	}

	switch (direct)
	{
		case PF_DIRECT_INT2_INT4:
			PF_DIRECT_LOOP(Int32GetDatum((int32) DatumGetInt16(v)));
			break;
		case PF_DIRECT_INT2_INT8:
			PF_DIRECT_LOOP(Int64GetDatum((int64) DatumGetInt16(v)));
			break;
		case PF_DIRECT_INT4_INT8:
			PF_DIRECT_LOOP(Int64GetDatum((int64) DatumGetInt32(v)));
			break;
		case PF_DIRECT_FLOAT4_FLOAT8:
			PF_DIRECT_LOOP(Float8GetDatum((float8) DatumGetFloat4(v)));
			break;
		case PF_DIRECT_TIMESTAMP_DATE:
			PF_DIRECT_LOOP(DateADTGetDatum(timestamp_days(DatumGetTimestamp(v))));
			break;
		case PF_DIRECT_TIMESTAMPTZ_TIMESTAMP:
			break;				/* the same int64 */
	}
#undef PF_DIRECT_LOOP
}

/* One value through a cast function, I/O or jsonb_populate_record. */
static inline Datum
apply_one(PfCast *c, Datum v, bool *isnull)
{
	switch (c->method)
	{
		case PF_CAST_FUNC:
			/* isExplicit false: typmods enforced as on assignment */
			if (c->func_nargs >= 3)
				return FunctionCall3(&c->func, v, Int32GetDatum(c->target_typmod),
									 BoolGetDatum(false));
			if (c->func_nargs == 2)
				return FunctionCall2(&c->func, v, Int32GetDatum(c->target_typmod));
			return FunctionCall1(&c->func, v);
		case PF_CAST_IO:
			return InputFunctionCall(&c->in_func, OutputFunctionCall(&c->out_func, v),
									 c->in_ioparam, -1);
		case PF_CAST_POPULATE:
			{
				LOCAL_FCINFO(fcinfo, 2);
				Datum		r;

				InitFunctionCallInfoData(*fcinfo, &c->func, 2, InvalidOid,
										 NULL, NULL);
				fcinfo->args[0].value = (Datum) 0;
				fcinfo->args[0].isnull = true;
				fcinfo->args[1].value = v;
				fcinfo->args[1].isnull = false;
				r = FunctionCallInvoke(fcinfo);
				*isnull = fcinfo->isnull;
				return r;
			}
		case PF_CAST_NONE:
		case PF_CAST_DIRECT:
			break;
	}
	return v;
}

/* Where an error callback finds the value being cast. */
typedef struct PfCastProgress
{
	uint32		i;
	int64	   *failed_index;
} PfCastProgress;

static void
cast_error_callback(void *arg)
{
	PfCastProgress *p = (PfCastProgress *) arg;

	if (p->failed_index != NULL)
		*p->failed_index = p->i;
}

void
pf_cast_apply_in_context(PfCast *c, Datum *values, bool *nulls, uint32 n,
						 int stride, int64 *failed_index,
						 void (*callback) (void *arg), void *arg)
{
	ErrorContextCallback errcb;

	errcb.callback = callback;
	errcb.arg = arg;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	pf_cast_apply(c, values, nulls, n, stride, failed_index);
	error_context_stack = errcb.previous;
}

void
pf_cast_apply(PfCast *c, Datum *values, bool *nulls, uint32 n, int stride,
			  int64 *failed_index)
{
	ErrorContextCallback errcb;
	PfCastProgress progress = {0, failed_index};

	if (c == NULL || n == 0)
		return;
	if (c->method == PF_CAST_DIRECT)
	{
		/* cannot fail; then the typmod and the domain, if any */
		apply_direct(c->direct, values, nulls, n, stride);
		if (!c->has_typmod_func && !OidIsValid(c->domain_type))
			return;
	}

	errcb.callback = cast_error_callback;
	errcb.arg = &progress;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	for (uint32 i = 0; i < n; i++)
	{
		size_t		k = (size_t) i * stride;

		progress.i = i;
		if (!nulls[k])
		{
			Datum		v = apply_one(c, values[k], &nulls[k]);

			if (c->has_typmod_func && !nulls[k])
				v = c->typmod_nargs >= 3 ?
					FunctionCall3(&c->typmod_func, v,
								  Int32GetDatum(c->target_typmod),
								  BoolGetDatum(false)) :
					FunctionCall2(&c->typmod_func, v,
								  Int32GetDatum(c->target_typmod));
			values[k] = v;
		}
		if (OidIsValid(c->domain_type))
			domain_check(values[k], nulls[k], c->domain_type,
						 &c->domain_extra, c->cxt);
	}
	error_context_stack = errcb.previous;
}

void
pf_cast_not_supported(const char *column_name, const char *format,
					  const char *file_type, Oid deftyp, int32 defmod,
					  Oid typid, int32 typmod)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("column \"%s\" of %s type %s cannot be read as type %s",
					column_name, format, file_type,
					format_type_with_typemod(typid, typmod)),
			 errdetail("There is no cast from %s, the default type for this %s type, to %s.",
					   format_type_with_typemod(deftyp, defmod), format,
					   format_type_be(typid)),
			 errhint("Declare the column as %s or as a type %s can be cast to.",
					 format_type_with_typemod(deftyp, defmod),
					 format_type_be(deftyp))));
}
