/*-------------------------------------------------------------------------
 *
 * convert_internal.h
 *	  What the files of the Parquet converter share (convert.c and its
 *	  convert_*.c families): the converter's structures, the scalar fill
 *	  functions each family defines, and the error reporters.  Not for use
 *	  outside the converter: its contract is parquet_fdw.h.
 *
 * IDENTIFICATION
 *	  src/fdw/convert_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_CONVERT_INTERNAL_H
#define PF_CONVERT_INTERNAL_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "fmgr.h"

#include "fdw/cast.h"
#include "fdw/parquet_fdw.h"

/* Days and microseconds between 1970-01-01 and 2000-01-01 (PostgreSQL's epoch). */
#define PF_UNIX_EPOCH_OFFSET_DAYS	(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE)
#define PF_UNIX_EPOCH_OFFSET_USECS	\
	((int64) PF_UNIX_EPOCH_OFFSET_DAYS * USECS_PER_DAY)

/* ----------------------------------------------------------------
 * Structures
 * ----------------------------------------------------------------
 */
typedef struct PfScalar PfScalar;

/*
 * Convert n values (vals, laid out as the batch's physical type) into
 * values[i * stride] / nulls[i * stride].  is_null may be NULL (no nulls).
 */
typedef void (*PfScalarFill) (const PfScalar *sc, const void *vals,
							  const bool *is_null, uint32 n,
							  Datum *values, bool *nulls, int stride);

/* How a leaf Datum of the default type renders inside jsonb. */
typedef enum PfJsonCategory
{
	PF_JSON_BOOL,
	PF_JSON_INT2,
	PF_JSON_INT4,
	PF_JSON_INT8,
	PF_JSON_NUMERIC,
	PF_JSON_FLOAT,				/* float4/float8: number, or NaN/Infinity strings */
	PF_JSON_TEXT,
	PF_JSON_JSONB,
	PF_JSON_DATETIME,			/* date, time, timetz, timestamp(tz) */
	PF_JSON_OTHER				/* output function, as a string */
} PfJsonCategory;

struct PfScalar
{
	PfScalarFill fill;
	const PqSchemaNode *node;	/* the leaf */
	const char *column_name;
	Oid			typid;			/* default type */
	int32		typmod;
	int32		scale;			/* DECIMAL */
	uint32		width;			/* FIXED_LEN_BYTE_ARRAY width, 0 for views */
	bool		same_encoding;	/* database is UTF8 or SQL_ASCII */
	/* for jsonb rendering */
	PfJsonCategory json_cat;
	FmgrInfo	out_func;
};

/* ----------------------------------------------------------------
 * Nested fields (jsonb record assembly)
 * ----------------------------------------------------------------
 */
typedef enum PfNodeKind
{
	PF_NODE_LEAF,
	PF_NODE_STRUCT,
	PF_NODE_LIST,
	PF_NODE_MAP,
	PF_NODE_VARIANT				/* a VARIANT group: convert_variant.c */
} PfNodeKind;

typedef struct PfNode
{
	PfNodeKind	kind;
	const char *name;
	bool		optional;		/* null when the first leaf's def < max_def */
	int16		max_def;
	int			leaf_lo;		/* local leaves [leaf_lo, leaf_hi) are below */
	int			leaf_hi;
	/* PF_NODE_STRUCT */
	int			num_children;
	struct PfNode **children;
	/* PF_NODE_LIST, PF_NODE_MAP: the repeated node's levels */
	int16		rep_def;
	int16		rep_rep;
	struct PfNode *elem;		/* LIST element, MAP value (may be NULL) */
	struct PfNode *key;			/* MAP key */
	/* PF_NODE_VARIANT */
	PfVariantConverter *variant;
	PfLeafPosition *positions;	/* scratch: one per leaf below */
} PfNode;

/* A leaf's position while assembling one batch. */
typedef struct PfCursor
{
	const PqColumnBatch *batch;
	uint32		pos;			/* next level entry */
	uint32		vpos;			/* next dense value (repeated leaves) */
	int16		max_def;
	bool		flat;			/* max_rep == 0: values are row-aligned */
	Datum	   *values;			/* converted leaf values */
	bool	   *nulls;
} PfCursor;

typedef enum PfConvKind
{
	PF_CONV_SCALAR,				/* flat leaf */
	PF_CONV_LIST,				/* list of scalars -> array */
	PF_CONV_JSON,				/* anything nested -> jsonb */
	PF_CONV_VARIANT				/* VARIANT group -> jsonb (convert_variant.c) */
} PfConvKind;

typedef void (*PfFill) (PfConverter *conv, const PqColumnBatch *batches,
						uint32 num_rows, Datum *values, bool *nulls,
						int stride);

struct PfConverter
{
	PfConvKind	kind;
	PfFill		fill;
	const PqFileMeta *meta;
	const PqSchemaNode *field;
	const char *column_name;
	Oid			typid;			/* declared */
	int32		typmod;
	Oid			default_typid;
	int32		default_typmod;
	int			num_leaves;
	int		   *leaves;			/* indexes into meta->leaves */
	PfScalar   *scalars;		/* one per leaf */
	PfCast	   *cast;			/* default type -> declared type, or NULL */

	/* PF_CONV_LIST */
	PfCast	   *elem_cast;		/* element default -> declared element, or NULL */
	Oid			elem_typid;		/* element type of the built arrays */
	int16		elem_len;
	bool		elem_byval;
	char		elem_align;
	int16		list_def;		/* row null when def < list_def */
	int16		rep_def;		/* empty list when def < rep_def */
	int16		leaf_def;		/* element null when def < leaf_def */

	/* PF_CONV_JSON */
	PfNode	   *root;
	bool	   *variant_leaf;	/* leaves read by a nested VARIANT node, or NULL */

	/* PF_CONV_VARIANT */
	PfVariantConverter *variant;

	/* PF_CONV_SCALAR over dictionary pages: convert_dictionary.c */
	MemoryContext share_cxt;	/* the open row group's, or NULL */
	uint32		share_count;	/* entries of the chunk's dictionary */
	Datum	   *share_values;	/* per entry, once converted */
	bool	   *share_nulls;
	uint8	   *share_state;
	void	   *share_scratch;	/* per-batch lists, share_scratch_rows rows */
	uint32		share_scratch_rows;
};


/* ----------------------------------------------------------------
 * Scalar fill functions (the PfScalarFill of each leaf kind)
 * ----------------------------------------------------------------
 */
#define PF_SCALAR_FILL_ARGS const PfScalar *sc, const void *vals, \
	const bool *is_null, uint32 n, Datum *values, bool *nulls, int stride

/* convert_scalar.c: booleans, integers, floats, UUID, strings, binary, JSON */
extern void pf_fill_bool(PF_SCALAR_FILL_ARGS);
extern void pf_fill_int4(PF_SCALAR_FILL_ARGS);
extern void pf_fill_int8(PF_SCALAR_FILL_ARGS);
extern void pf_fill_s8_int2(PF_SCALAR_FILL_ARGS);
extern void pf_fill_s16_int2(PF_SCALAR_FILL_ARGS);
extern void pf_fill_u8_int2(PF_SCALAR_FILL_ARGS);
extern void pf_fill_u16_int4(PF_SCALAR_FILL_ARGS);
extern void pf_fill_u32_int8(PF_SCALAR_FILL_ARGS);
extern void pf_fill_u32_int8_from64(PF_SCALAR_FILL_ARGS);
extern void pf_fill_float4(PF_SCALAR_FILL_ARGS);
extern void pf_fill_float8(PF_SCALAR_FILL_ARGS);
extern void pf_fill_float16(PF_SCALAR_FILL_ARGS);
extern void pf_fill_uuid(PF_SCALAR_FILL_ARGS);
extern void pf_fill_all_null(PF_SCALAR_FILL_ARGS);
extern void pf_fill_text(PF_SCALAR_FILL_ARGS);
extern void pf_fill_bytea(PF_SCALAR_FILL_ARGS);
extern void pf_fill_jsonb(PF_SCALAR_FILL_ARGS);

/* convert_decimal.c: numerics (DECIMAL, unsigned 64-bit integers) */
extern void pf_fill_u64_numeric(PF_SCALAR_FILL_ARGS);
extern void pf_fill_dec32(PF_SCALAR_FILL_ARGS);
extern void pf_fill_dec64(PF_SCALAR_FILL_ARGS);
extern void pf_fill_dec_bytes(PF_SCALAR_FILL_ARGS);

/* convert_temporal.c: dates, times, timestamps, INT96, intervals */
extern void pf_fill_date(PF_SCALAR_FILL_ARGS);
extern void pf_fill_time_ms(PF_SCALAR_FILL_ARGS);
extern void pf_fill_time_us(PF_SCALAR_FILL_ARGS);
extern void pf_fill_time_ns(PF_SCALAR_FILL_ARGS);
extern void pf_fill_timetz_ms(PF_SCALAR_FILL_ARGS);
extern void pf_fill_timetz_us(PF_SCALAR_FILL_ARGS);
extern void pf_fill_timetz_ns(PF_SCALAR_FILL_ARGS);
extern void pf_fill_ts_ms(PF_SCALAR_FILL_ARGS);
extern void pf_fill_ts_us(PF_SCALAR_FILL_ARGS);
extern void pf_fill_ts_ns(PF_SCALAR_FILL_ARGS);
extern void pf_fill_int96(PF_SCALAR_FILL_ARGS);
extern void pf_fill_interval(PF_SCALAR_FILL_ARGS);

/* Fixed-width physical value of C type CTYPE, converted by CONV. */
#define PF_DEFINE_FILL(NAME, CTYPE, CONV) \
void \
NAME(const PfScalar *sc, const void *vals, const bool *is_null, uint32 n, \
	 Datum *values, bool *nulls, int stride) \
{ \
	const CTYPE *v = (const CTYPE *) vals; \
	if (is_null == NULL && stride == 1) \
	{ \
		/* the scan's dense case: one loop the compiler can vectorize */ \
		for (uint32 i = 0; i < n; i++) \
			values[i] = CONV(sc, v[i]); \
		memset(nulls, false, n); \
	} \
	else if (stride == 1) \
	{ \
		for (uint32 i = 0; i < n; i++) \
			values[i] = is_null[i] ? (Datum) 0 : CONV(sc, v[i]); \
		memcpy(nulls, is_null, n); \
	} \
	else if (is_null == NULL) \
	{ \
		for (uint32 i = 0; i < n; i++) \
		{ \
			values[(size_t) i * stride] = CONV(sc, v[i]); \
			nulls[(size_t) i * stride] = false; \
		} \
	} \
	else \
	{ \
		for (uint32 i = 0; i < n; i++) \
		{ \
			bool		isnull = is_null[i]; \
			values[(size_t) i * stride] = isnull ? (Datum) 0 : CONV(sc, v[i]); \
			nulls[(size_t) i * stride] = isnull; \
		} \
	} \
}

/* FIXED_LEN_BYTE_ARRAY value (pointer to sc->width bytes), converted by CONV. */
#define PF_DEFINE_FILL_FLBA(NAME, CONV) \
void \
NAME(const PfScalar *sc, const void *vals, const bool *is_null, uint32 n, \
	 Datum *values, bool *nulls, int stride) \
{ \
	const uint8 *v = (const uint8 *) vals; \
	uint32		w = sc->width; \
	for (uint32 i = 0; i < n; i++) \
	{ \
		if (is_null != NULL && is_null[i]) \
		{ \
			values[(size_t) i * stride] = (Datum) 0; \
			nulls[(size_t) i * stride] = true; \
		} \
		else \
		{ \
			values[(size_t) i * stride] = CONV(sc, v + (size_t) i * w); \
			nulls[(size_t) i * stride] = false; \
		} \
	} \
}

/* The bytes of value i: a CdcByteView, or width bytes of a FLBA. */
static inline void
pf_scalar_bytes(const PfScalar *sc, const void *vals, uint32 i,
				const uint8 **ptr, uint32 *len)
{
	if (sc->width == 0)
	{
		const CdcByteView *v = (const CdcByteView *) vals + i;

		*ptr = v->ptr;
		*len = v->len;
	}
	else
	{
		*ptr = (const uint8 *) vals + (size_t) i * sc->width;
		*len = sc->width;
	}
}


/* ----------------------------------------------------------------
 * Default type mapping and schema shapes (convert_mapping.c)
 * ----------------------------------------------------------------
 */

/* The fill function and default type of a leaf. */
extern void pf_scalar_mapping(const PqSchemaNode *leaf, PfScalarFill *fill,
							  Oid *typid, int32 *typmod);

/*
 * The element of a list-shaped node (*repeated: its repeated node), or
 * NULL when the node is not a list.
 */
extern const PqSchemaNode *pf_list_element(const PqSchemaNode *node,
										   const PqSchemaNode **repeated);
/* The scalar leaf element of a list of scalars, else NULL. */
extern const PqSchemaNode *pf_list_scalar_element(const PqSchemaNode *field,
												  const PqSchemaNode **repeated);
/* Is the node a MAP (or legacy MAP_KEY_VALUE)?  *kv: its repeated group. */
extern bool pf_is_map(const PqSchemaNode *node, const PqSchemaNode **kv);
/* The leaves below a node (itself when a leaf). */
extern int	pf_count_leaves(const PqSchemaNode *node);
/* "INT32 (DATE)", "group (LIST)": the file's type of a field, for messages. */
extern char *pf_describe_parquet_type(const PqSchemaNode *node);

/* ----------------------------------------------------------------
 * Column fills (PfFill) of lists and nested fields
 * ----------------------------------------------------------------
 */

/* convert_list.c: a LIST of scalars, one array per row */
extern void pf_fill_list_column(PfConverter *conv, const PqColumnBatch *batches,
								uint32 num_rows, Datum *values, bool *nulls,
								int stride);

/* convert_nested.c: anything nested, one jsonb per row; VARIANT groups */
extern PfJsonCategory pf_json_category(Oid typid);
extern PfNode *pf_build_json_node(PfConverter *conv, const PqSchemaNode *node,
								  bool optional, int *next_leaf,
								  MemoryContext cxt);
extern void pf_fill_json_column(PfConverter *conv, const PqColumnBatch *batches,
								uint32 num_rows, Datum *values, bool *nulls,
								int stride);
extern void pf_fill_variant_column(PfConverter *conv,
								   const PqColumnBatch *batches,
								   uint32 num_rows, Datum *values,
								   bool *nulls, int stride);

/*
 * convert_dictionary.c: a flat column's batch whose values come from a
 * dictionary, each entry converted once per row group; false (nothing
 * done) when the batch has no dictionary numbers or sharing is off.
 */
extern bool pf_fill_scalar_shared(PfConverter *conv, const PqColumnBatch *b,
								  uint32 num_rows, Datum *values,
								  bool *nulls, int stride);

/* ----------------------------------------------------------------
 * Errors (convert_errors.c)
 * ----------------------------------------------------------------
 */

/*
 * The flat batch being converted (vals NULL: none), searched for a value
 * that failed so that the error can name its row.
 */
extern void pf_conv_track_values(const void *vals, uint32 width,
								 const bool *is_null, uint32 n);
/* Forget the tracked batch and any failed row (a new fill starts). */
extern void pf_conv_reset_failed(void);
/* Where a failing cast stores the batch index of its value. */
extern int64 *pf_conv_failed_slot(void);

extern void pf_conv_date_out_of_range(const PfScalar *sc, int64 days)
			pg_attribute_noreturn();
extern void pf_conv_timestamp_out_of_range(const PfScalar *sc, int64 value,
										   const char *unit)
			pg_attribute_noreturn();
extern void pf_conv_int96_out_of_range(const PfScalar *sc, int64 nanos,
									   int32 julian)
			pg_attribute_noreturn();
extern void pf_conv_time_out_of_range(const PfScalar *sc, int64 value,
									  const char *unit)
			pg_attribute_noreturn();
extern void pf_conv_interval_out_of_range(const PfScalar *sc, uint32 months,
										  uint32 days)
			pg_attribute_noreturn();
extern void pf_conv_invalid_utf8(const PfScalar *sc, const uint8 *ptr,
								 uint32 len)
			pg_attribute_noreturn();
extern void pf_conv_levels_corrupt(const char *column_name)
			pg_attribute_noreturn();

#endif							/* PF_CONVERT_INTERNAL_H */
