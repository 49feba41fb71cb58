/*-------------------------------------------------------------------------
 *
 * convert.c
 *	  Type mapping and column converters: Parquet leaf batches to Datums.
 *
 * Every foreign-table column gets one PfConverter, built once per scan.  The
 * builder looks at the Parquet field (physical type, logical annotation,
 * nesting) and at the declared column type, and picks:
 *
 *	- for a flat leaf, a scalar fill function specialized for the (physical,
 *	  logical) pair that turns a whole batch into Datums of the default type
 *	  in one tight loop (no per-value type switch);
 *	- for a LIST of scalars, the same scalar fill over the batch's dense
 *	  values, then an assembly pass over the Dremel levels building one
 *	  PostgreSQL array per row;
 *	- for anything else nested (STRUCT, MAP, lists of lists or of structs), a
 *	  record assembler that walks all the field's leaves together and builds
 *	  one jsonb value per row.
 *
 * A declared type other than the default is reached from the default type
 * through the cast layer (cast.h), applied column-at-a-time after the fill.
 *
 * Default mapping (see pf_default_type):
 *	BOOLEAN bool; INT32 int4; INT64 int8; INT(8|16,signed) int2;
 *	INT(8,unsigned) int2; INT(16,unsigned) int4; INT(32,unsigned) int8;
 *	INT(64,unsigned) numeric; FLOAT float4; DOUBLE float8; FLOAT16 float4;
 *	DECIMAL numeric(p,s); DATE date; TIME time (timetz when UTC-adjusted);
 *	TIMESTAMP timestamp (timestamptz when UTC-adjusted); INT96 timestamp;
 *	STRING/ENUM text; JSON jsonb; UUID uuid; INTERVAL interval; NULL text;
 *	anything else binary bytea; LIST of scalars an array; other nested jsonb.
 *
 * IDENTIFICATION
 *	  src/fdw/convert.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <string.h>

#include "catalog/pg_type.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "parser/parse_coerce.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "fdw/cast.h"
#include "fdw/parquet_fdw.h"

/* Microseconds between 1970-01-01 and 2000-01-01 (PostgreSQL's epoch). */
#define PF_UNIX_EPOCH_OFFSET_DAYS	(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE)
#define PF_UNIX_EPOCH_OFFSET_USECS	\
	((int64) PF_UNIX_EPOCH_OFFSET_DAYS * USECS_PER_DAY)

/* ----------------------------------------------------------------
 * Scalar converters
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
};

/* ----------------------------------------------------------------
 * Errors
 * ----------------------------------------------------------------
 */

/*
 * The values a flat column's conversion is reading, so that an error about
 * one value can say which row holds it: conversion errors are rare, so the
 * row is found by searching the batch for the value, not tracked per value
 * (rows before it converted, so the first match is the one).
 */
static struct
{
	const uint8 *vals;			/* NULL outside fill_scalar_column() */
	uint32		width;
	const bool *is_null;
	uint32		n;
	int64		failed;			/* index of the failing value, or -1 */
}			cur_batch = {NULL, 0, NULL, 0, -1};

static void
note_failed_bytes(const void *raw, size_t len)
{
	if (cur_batch.vals == NULL || len > cur_batch.width)
		return;
	for (uint32 i = 0; i < cur_batch.n; i++)
		if ((cur_batch.is_null == NULL || !cur_batch.is_null[i]) &&
			memcmp(cur_batch.vals + (size_t) i * cur_batch.width, raw, len) == 0)
		{
			cur_batch.failed = i;
			return;
		}
}

/* An integer physical value (INT32 or INT64, as the batch stores it). */
static void
note_failed_integer(int64 raw)
{
	int32		raw32 = (int32) raw;

	if (cur_batch.width == 4)
		note_failed_bytes(&raw32, 4);
	else
		note_failed_bytes(&raw, 8);
}

int64
pf_converter_failed_index(void)
{
	return cur_batch.failed;
}

static void pg_attribute_noreturn()
date_out_of_range(const PfScalar *sc, int64 days)
{
	note_failed_integer(days);
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("date out of range: %lld days from 1970-01-01",
					(long long) days),
			 errdetail("Column \"%s\" holds a date outside PostgreSQL's range.",
					   sc->column_name)));
}

static void pg_attribute_noreturn()
timestamp_out_of_range(const PfScalar *sc, int64 value, const char *unit)
{
	note_failed_integer(value);
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("timestamp out of range: %lld %s from 1970-01-01 00:00:00",
					(long long) value, unit),
			 errdetail("Column \"%s\" holds a timestamp outside PostgreSQL's range.",
					   sc->column_name)));
}

static void pg_attribute_noreturn()
int96_out_of_range(const PfScalar *sc, int64 nanos, int32 julian)
{
	uint8		raw[12];

	memcpy(raw, &nanos, 8);
	memcpy(raw + 8, &julian, 4);
	note_failed_bytes(raw, 12);
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("timestamp out of range: Julian day %d, %lld nanoseconds",
					julian, (long long) nanos),
			 errdetail("Column \"%s\" holds an INT96 timestamp outside PostgreSQL's range.",
					   sc->column_name)));
}

static void pg_attribute_noreturn()
time_out_of_range(const PfScalar *sc, int64 value, const char *unit)
{
	note_failed_integer(value);
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("time out of range: %lld %s", (long long) value, unit),
			 errdetail("Column \"%s\" holds a time of day outside 00:00:00 to 24:00:00.",
					   sc->column_name)));
}

static void pg_attribute_noreturn()
interval_out_of_range(const PfScalar *sc, uint32 months, uint32 days)
{
	uint32		raw[2] = {months, days};

	note_failed_bytes(raw, 8);	/* the millisecond part is never at fault */
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("interval out of range: %u months, %u days", months, days),
			 errdetail("Column \"%s\" holds an INTERVAL that PostgreSQL cannot represent.",
					   sc->column_name)));
}

static void pg_attribute_noreturn()
invalid_utf8(const PfScalar *sc, const uint8 *ptr, uint32 len)
{
	int			valid = pg_encoding_verifymbstr(PG_UTF8, (const char *) ptr, len);
	char		buf[8 * 5 + 1];
	char	   *p = buf;

	/* name the offending bytes as PostgreSQL does: up to 8, in hex */
	for (uint32 i = valid; i < len && i < (uint32) valid + 8; i++)
	{
		if (p != buf)
			*p++ = ' ';
		p += sprintf(p, "0x%02x", ptr[i]);
	}
	*p = '\0';
	ereport(ERROR,
			(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
			 errmsg("invalid byte sequence for encoding \"UTF8\" in column \"%s\": %s",
					sc->column_name, buf),
			 errdetail("Parquet STRING values must be valid UTF-8 without zero bytes."),
			 errhint("Declare the column as bytea to read the raw bytes.")));
}

static void pg_attribute_noreturn()
levels_corrupt(const char *column_name)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("inconsistent repetition or definition levels in column \"%s\"",
					column_name)));
}

/* ----------------------------------------------------------------
 * Per-value conversions (inline; the fill loops below wrap them)
 * ----------------------------------------------------------------
 */
static inline Datum
cv_bool(const PfScalar *sc, uint8 v)
{
	return BoolGetDatum(v != 0);
}

static inline Datum
cv_int4(const PfScalar *sc, int32 v)
{
	return Int32GetDatum(v);
}

static inline Datum
cv_int8(const PfScalar *sc, int64 v)
{
	return Int64GetDatum(v);
}

static inline Datum
cv_s8_int2(const PfScalar *sc, int32 v)
{
	return Int16GetDatum((int16) (int8) v);
}

static inline Datum
cv_s16_int2(const PfScalar *sc, int32 v)
{
	return Int16GetDatum((int16) v);
}

static inline Datum
cv_u8_int2(const PfScalar *sc, int32 v)
{
	return Int16GetDatum((int16) (uint8) v);
}

static inline Datum
cv_u16_int4(const PfScalar *sc, int32 v)
{
	return Int32GetDatum((int32) (uint16) v);
}

static inline Datum
cv_u32_int8(const PfScalar *sc, int32 v)
{
	return Int64GetDatum((int64) (uint32) v);
}

static inline Datum
cv_u32_int8_from64(const PfScalar *sc, int64 v)
{
	return Int64GetDatum((int64) (uint32) v);
}

/* An unsigned 64-bit value as numeric. */
static Datum
uint64_numeric(uint64 v)
{
	char		buf[32];

	if (v <= (uint64) PG_INT64_MAX)
		return NumericGetDatum(int64_to_numeric((int64) v));
	snprintf(buf, sizeof(buf), UINT64_FORMAT, v);
	return DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

static inline Datum
cv_u64_numeric(const PfScalar *sc, int64 v)
{
	return uint64_numeric((uint64) v);
}

static inline Datum
cv_float4(const PfScalar *sc, float v)
{
	return Float4GetDatum(v);
}

static inline Datum
cv_float8(const PfScalar *sc, double v)
{
	return Float8GetDatum(v);
}

/* IEEE 754 half precision (little-endian bytes) to float. */
static inline float
half_to_float(uint16 h)
{
	uint32		sign = (uint32) (h & 0x8000) << 16;
	uint32		exp = (h >> 10) & 0x1f;
	uint32		mant = h & 0x3ff;
	uint32		bits;
	float		f;

	if (exp == 0x1f)
		bits = sign | 0x7f800000 | (mant << 13);	/* Inf, NaN */
	else if (exp != 0)
		bits = sign | ((exp + 112) << 23) | (mant << 13);
	else if (mant == 0)
		bits = sign;			/* signed zero */
	else
	{
		/* subnormal: value = mant * 2^-24 */
		f = ldexpf((float) mant, -24);
		return sign ? -f : f;
	}
	memcpy(&f, &bits, sizeof(f));
	return f;
}

static inline Datum
cv_float16(const PfScalar *sc, const uint8 *p)
{
	return Float4GetDatum(half_to_float((uint16) (p[0] | (p[1] << 8))));
}

/* Unscaled int64 decimal to numeric with the column's scale. */
static inline Datum
decimal_from_int64(int64 v, int32 scale)
{
	if (scale == 0)
		return NumericGetDatum(int64_to_numeric(v));
	return NumericGetDatum(int64_div_fast_to_numeric(v, scale));
}

/*
 * Numerics of a whole batch, written straight into one allocation.
 *
 * numeric's stored form is its on-disk format, so it cannot change without
 * breaking pg_upgrade; an unscaled int64 with a scale of at most 16 always
 * fits the short form: a 16-bit header (sign, display scale, weight) and
 * base-10000 digits, without leading or trailing zero digits (as
 * make_result() leaves them).  This avoids int64_div_fast_to_numeric()'s
 * NumericVar, its palloc per value and the copy out of it, which made
 * DECIMAL columns the costliest part of a scan.
 */
#define PF_NUMERIC_SHORT			0x8000
#define PF_NUMERIC_SHORT_SIGN_MASK	0x2000
#define PF_NUMERIC_SHORT_DSCALE_SHIFT 7
#define PF_NUMERIC_SHORT_WEIGHT_SIGN_MASK 0x0040
#define PF_NUMERIC_SHORT_WEIGHT_MASK 0x003F
#define PF_NUMERIC_NBASE			10000
/* larger scales could overflow uint64 when the fraction is widened */
#define PF_FAST_NUMERIC_MAX_SCALE	16
/* header + 5 integer digits (2^64 < 10^20) + 4 fraction digits, aligned */
#define PF_FAST_NUMERIC_MAX_BYTES	MAXALIGN(VARHDRSZ + sizeof(uint16) + 9 * sizeof(int16))

static const uint64 pf_pow10[] = {
	UINT64CONST(1), UINT64CONST(10), UINT64CONST(100), UINT64CONST(1000),
	UINT64CONST(10000), UINT64CONST(100000), UINT64CONST(1000000),
	UINT64CONST(10000000), UINT64CONST(100000000), UINT64CONST(1000000000),
	UINT64CONST(10000000000), UINT64CONST(100000000000),
	UINT64CONST(1000000000000), UINT64CONST(10000000000000),
	UINT64CONST(100000000000000), UINT64CONST(1000000000000000),
	UINT64CONST(10000000000000000)
};

/*
 * Write v / 10^scale (0 <= scale <= PF_FAST_NUMERIC_MAX_SCALE) as a short
 * numeric at dst (PF_FAST_NUMERIC_MAX_BYTES available); returns the bytes
 * used, MAXALIGNed.  Byte for byte what int64_div_fast_to_numeric() makes.
 * Always inlined, so that a constant scale turns the divisions into
 * multiplications.
 */
static inline __attribute__((always_inline)) Size
write_short_numeric(char *dst, int64 v, int32 scale)
{
	bool		negative = v < 0;
	uint64		u = negative ? (uint64) 0 - (uint64) v : (uint64) v;
	int			fgroups = (scale + 3) / 4;	/* base-10000 fraction digits */
	uint64		ip = u / pf_pow10[scale];
	uint64		fp = (u - ip * pf_pow10[scale]) * pf_pow10[fgroups * 4 - scale];
	int16		idig[5];
	int16		digits[9];
	int			ni = 0;
	int			nd = 0;
	int			first;
	int			weight;
	uint16		header;
	Size		len;

	while (ip != 0)
	{
		idig[ni++] = (int16) (ip % PF_NUMERIC_NBASE);
		ip /= PF_NUMERIC_NBASE;
	}
	for (int i = ni - 1; i >= 0; i--)
		digits[nd++] = idig[i];
	for (int i = fgroups - 1; i >= 0; i--)
	{
		digits[nd + i] = (int16) (fp % PF_NUMERIC_NBASE);
		fp /= PF_NUMERIC_NBASE;
	}
	nd += fgroups;
	weight = ni - 1;
	/* strip zero digits: leading ones (only without an integer part) move the weight */
	first = 0;
	while (first < nd && digits[first] == 0)
	{
		first++;
		weight--;
	}
	while (nd > first && digits[nd - 1] == 0)
		nd--;
	if (nd == first)
	{
		weight = 0;
		negative = false;
	}
	header = PF_NUMERIC_SHORT |
		(negative ? PF_NUMERIC_SHORT_SIGN_MASK : 0) |
		((uint16) scale << PF_NUMERIC_SHORT_DSCALE_SHIFT) |
		(weight < 0 ? PF_NUMERIC_SHORT_WEIGHT_SIGN_MASK : 0) |
		((uint16) weight & PF_NUMERIC_SHORT_WEIGHT_MASK);
	len = VARHDRSZ + sizeof(uint16) + (Size) (nd - first) * sizeof(int16);
	SET_VARSIZE(dst, len);
	memcpy(dst + VARHDRSZ, &header, sizeof(uint16));
	/*
	 * Digit by digit: one wide copy of the digits just stored one by one
	 * would stall on store forwarding.
	 */
	for (int i = first; i < nd; i++)
		memcpy(dst + VARHDRSZ + sizeof(uint16) + (i - first) * sizeof(int16),
			   &digits[i], sizeof(int16));
	return MAXALIGN(len);
}

/* One loop per scale, so each sees its scale as a constant. */
#define PF_DEC_LOOP(CTYPE, SCALE) \
	for (uint32 i = 0; i < n; i++) \
	{ \
		if (is_null != NULL && is_null[i]) \
		{ \
			values[(size_t) i * stride] = (Datum) 0; \
			nulls[(size_t) i * stride] = true; \
			continue; \
		} \
		values[(size_t) i * stride] = PointerGetDatum(arena); \
		arena += write_short_numeric(arena, (int64) v[i], (SCALE)); \
		nulls[(size_t) i * stride] = false; \
	}

/*
 * Unscaled integers of C type CTYPE to numerics: one arena for the batch
 * when the scale allows the short form, else value by value.
 */
#define PF_DEFINE_FILL_DEC(NAME, CTYPE) \
static void \
NAME(const PfScalar *sc, const void *vals, const bool *is_null, uint32 n, \
	 Datum *values, bool *nulls, int stride) \
{ \
	const CTYPE *v = (const CTYPE *) vals; \
	int32		scale = sc->scale; \
	char	   *arena; \
	if (scale < 0 || scale > PF_FAST_NUMERIC_MAX_SCALE) \
	{ \
		for (uint32 i = 0; i < n; i++) \
		{ \
			bool		isnull = is_null != NULL && is_null[i]; \
			values[(size_t) i * stride] = isnull ? (Datum) 0 : \
				decimal_from_int64((int64) v[i], scale); \
			nulls[(size_t) i * stride] = isnull; \
		} \
		return; \
	} \
	if (n == 0) \
		return; \
	arena = MemoryContextAllocHuge(CurrentMemoryContext, \
								   (Size) n * PF_FAST_NUMERIC_MAX_BYTES); \
	switch (scale) \
	{ \
		case 0: PF_DEC_LOOP(CTYPE, 0); break; \
		case 1: PF_DEC_LOOP(CTYPE, 1); break; \
		case 2: PF_DEC_LOOP(CTYPE, 2); break; \
		case 3: PF_DEC_LOOP(CTYPE, 3); break; \
		case 4: PF_DEC_LOOP(CTYPE, 4); break; \
		default: PF_DEC_LOOP(CTYPE, scale); break; \
	} \
}

PF_DEFINE_FILL_DEC(fill_dec32, int32)
PF_DEFINE_FILL_DEC(fill_dec64, int64)

/*
 * A big-endian two's complement integer wider than 64 bits, with a scale, to
 * numeric: the magnitude is turned into decimal digits by repeated division
 * by 10^9 over 32-bit limbs, then parsed by numeric_in.
 */
static Datum
decimal_from_wide_bytes(const uint8 *p, uint32 len, int32 scale)
{
	bool		negative = (p[0] & 0x80) != 0;
	int			nlimbs = (len + 3) / 4;
	uint32	   *limbs = palloc0(sizeof(uint32) * nlimbs);	/* little-endian limbs */
	char	   *digits = palloc(len * 3 + 16);	/* 8 bits < 3 digits */
	int			ndigits = 0;
	char	   *str;
	char	   *s;
	int			top;
	Datum		result;

	/* bytes into limbs */
	for (uint32 i = 0; i < len; i++)
	{
		uint32		byte = p[len - 1 - i];

		limbs[i / 4] |= byte << (8 * (i % 4));
	}
	/* sign-extend the top limb, then negate for the magnitude */
	if (negative)
	{
		uint64		carry = 1;

		if (len % 4)
			limbs[nlimbs - 1] |= ~(uint32) 0 << (8 * (len % 4));
		for (int i = 0; i < nlimbs; i++)
		{
			uint64		t = (uint64) (uint32) ~limbs[i] + carry;

			limbs[i] = (uint32) t;
			carry = t >> 32;
		}
	}

	/* repeated division by 10^9, collecting digits least significant first */
	top = nlimbs - 1;
	while (top >= 0 && limbs[top] == 0)
		top--;
	while (top >= 0)
	{
		uint64		rem = 0;

		for (int i = top; i >= 0; i--)
		{
			uint64		cur = (rem << 32) | limbs[i];

			limbs[i] = (uint32) (cur / 1000000000);
			rem = cur % 1000000000;
		}
		while (top >= 0 && limbs[top] == 0)
			top--;
		for (int k = 0; k < 9 && (top >= 0 || rem != 0); k++)
		{
			digits[ndigits++] = '0' + (char) (rem % 10);
			rem /= 10;
		}
	}
	if (ndigits == 0)
		digits[ndigits++] = '0';

	/* most significant first, with the decimal point "scale" digits from the right */
	str = palloc(ndigits + scale + 4);
	s = str;
	if (negative)
		*s++ = '-';
	if (scale <= 0)
	{
		for (int i = ndigits - 1; i >= 0; i--)
			*s++ = digits[i];
		for (int i = 0; i < -scale; i++)
			*s++ = '0';
	}
	else
	{
		int			intdigits = ndigits - scale;

		if (intdigits <= 0)
		{
			*s++ = '0';
			*s++ = '.';
			for (int i = 0; i < -intdigits; i++)
				*s++ = '0';
			for (int i = ndigits - 1; i >= 0; i--)
				*s++ = digits[i];
		}
		else
		{
			for (int i = ndigits - 1; i >= 0; i--)
			{
				*s++ = digits[i];
				if (i == scale)
					*s++ = '.';
			}
		}
	}
	*s = '\0';
	result = DirectFunctionCall3(numeric_in, CStringGetDatum(str),
								 ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	pfree(limbs);
	pfree(digits);
	pfree(str);
	return result;
}

/*
 * Big-endian two's complement bytes (any length) as an int64, when they fit
 * one (extra leading bytes only extending the sign).
 */
static inline bool
decimal_bytes_int64(const uint8 *p, uint32 len, int64 *result)
{
	uint64		u;

	if (len == 0)
	{
		*result = 0;
		return true;
	}
	if (len > 8)
	{
		uint8		ext = (p[len - 8] & 0x80) ? 0xff : 0x00;

		for (uint32 i = 0; i < len - 8; i++)
			if (p[i] != ext)
				return false;
		p += len - 8;
		len = 8;
	}
	u = (p[0] & 0x80) ? ~(uint64) 0 : 0;
	for (uint32 i = 0; i < len; i++)
		u = (u << 8) | p[i];
	*result = (int64) u;
	return true;
}

/* Big-endian two's complement bytes (any length) to numeric. */
static inline Datum
decimal_from_bytes(const uint8 *p, uint32 len, int32 scale)
{
	int64		v;

	if (!decimal_bytes_int64(p, len, &v))
		return decimal_from_wide_bytes(p, len, scale);
	return decimal_from_int64(v, scale);
}

static inline Datum
cv_date(const PfScalar *sc, int32 v)
{
	int64		d = (int64) v - PF_UNIX_EPOCH_OFFSET_DAYS;

	if (unlikely(!IS_VALID_DATE(d)))
		date_out_of_range(sc, v);
	return DateADTGetDatum((DateADT) d);
}

/* Round nanoseconds to microseconds, halves away from zero (as PostgreSQL
 * rounds fractional seconds to a typmod). */
static inline int64
nanos_to_micros(int64 v)
{
	int64		q = v / 1000;
	int64		r = v % 1000;

	if (r >= 500)
		q++;
	else if (r <= -500)
		q--;
	return q;
}

static inline int64
time_check(const PfScalar *sc, int64 us, int64 raw, const char *unit)
{
	if (unlikely(us < 0 || us > USECS_PER_DAY))
		time_out_of_range(sc, raw, unit);
	return us;
}

static inline Datum
cv_time_ms(const PfScalar *sc, int32 v)
{
	return TimeADTGetDatum(time_check(sc, (int64) v * 1000, v, "milliseconds"));
}

static inline Datum
cv_time_us(const PfScalar *sc, int64 v)
{
	return TimeADTGetDatum(time_check(sc, v, v, "microseconds"));
}

static inline Datum
cv_time_ns(const PfScalar *sc, int64 v)
{
	return TimeADTGetDatum(time_check(sc, nanos_to_micros(v), v, "nanoseconds"));
}

static inline Datum
make_timetz(int64 us)
{
	TimeTzADT  *t = (TimeTzADT *) palloc(sizeof(TimeTzADT));

	t->time = us;
	t->zone = 0;
	return TimeTzADTPGetDatum(t);
}

static inline Datum
cv_timetz_ms(const PfScalar *sc, int32 v)
{
	return make_timetz(time_check(sc, (int64) v * 1000, v, "milliseconds"));
}

static inline Datum
cv_timetz_us(const PfScalar *sc, int64 v)
{
	return make_timetz(time_check(sc, v, v, "microseconds"));
}

static inline Datum
cv_timetz_ns(const PfScalar *sc, int64 v)
{
	return make_timetz(time_check(sc, nanos_to_micros(v), v, "nanoseconds"));
}

/* Microseconds since the Unix epoch to a checked PostgreSQL Timestamp. */
static inline Datum
timestamp_from_unix_us(const PfScalar *sc, int64 us, int64 raw, const char *unit)
{
	int64		ts;

	if (unlikely(pg_sub_s64_overflow(us, PF_UNIX_EPOCH_OFFSET_USECS, &ts) ||
				 !IS_VALID_TIMESTAMP(ts)))
		timestamp_out_of_range(sc, raw, unit);
	return TimestampGetDatum(ts);
}

static inline Datum
cv_ts_ms(const PfScalar *sc, int64 v)
{
	int64		us;

	if (unlikely(pg_mul_s64_overflow(v, 1000, &us)))
		timestamp_out_of_range(sc, v, "milliseconds");
	return timestamp_from_unix_us(sc, us, v, "milliseconds");
}

static inline Datum
cv_ts_us(const PfScalar *sc, int64 v)
{
	return timestamp_from_unix_us(sc, v, v, "microseconds");
}

static inline Datum
cv_ts_ns(const PfScalar *sc, int64 v)
{
	return timestamp_from_unix_us(sc, nanos_to_micros(v), v, "nanoseconds");
}

/* INT96: 8-byte LE nanoseconds of the day, then 4-byte LE Julian day. */
static inline Datum
cv_int96(const PfScalar *sc, const uint8 *p)
{
	int64		nanos;
	int32		julian;
	uint64		unix_us;
	int64		ts;

	memcpy(&nanos, p, 8);
	memcpy(&julian, p + 8, 4);

	/*
	 * Microseconds since 1970 computed as Spark and Impala read INT96, in
	 * wrapping 64-bit arithmetic: writers that overflowed int64 nanoseconds
	 * produced (day, nanos) pairs that only this reading maps back to the
	 * intended instant (int96_from_spark.parquet's year 290000).  Values
	 * that never overflowed read the same either way.
	 */
	unix_us = (uint64) ((int64) julian - UNIX_EPOCH_JDATE) * (uint64) USECS_PER_DAY +
		(uint64) nanos_to_micros(nanos);
	if (unlikely(pg_sub_s64_overflow((int64) unix_us, PF_UNIX_EPOCH_OFFSET_USECS, &ts) ||
				 !IS_VALID_TIMESTAMP(ts)))
		int96_out_of_range(sc, nanos, julian);
	return TimestampGetDatum(ts);
}

static inline Datum
cv_uuid(const PfScalar *sc, const uint8 *p)
{
	pg_uuid_t  *u = (pg_uuid_t *) palloc(sizeof(pg_uuid_t));

	memcpy(u->data, p, UUID_LEN);
	return UUIDPGetDatum(u);
}

static inline Datum
cv_interval(const PfScalar *sc, const uint8 *p)
{
	uint32		months;
	uint32		days;
	uint32		millis;
	Interval   *iv;

	memcpy(&months, p, 4);
	memcpy(&days, p + 4, 4);
	memcpy(&millis, p + 8, 4);
	if (unlikely(months > PG_INT32_MAX || days > PG_INT32_MAX))
		interval_out_of_range(sc, months, days);
	iv = (Interval *) palloc(sizeof(Interval));
	iv->month = (int32) months;
	iv->day = (int32) days;
	iv->time = (int64) millis * 1000;
	return IntervalPGetDatum(iv);
}

/* ----------------------------------------------------------------
 * Fill loops
 * ----------------------------------------------------------------
 */

/* Fixed-width physical value of C type CTYPE, converted by CONV. */
#define PF_DEFINE_FILL(NAME, CTYPE, CONV) \
static void \
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
static void \
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

PF_DEFINE_FILL(fill_bool, uint8, cv_bool)
PF_DEFINE_FILL(fill_int4, int32, cv_int4)
PF_DEFINE_FILL(fill_int8, int64, cv_int8)
PF_DEFINE_FILL(fill_s8_int2, int32, cv_s8_int2)
PF_DEFINE_FILL(fill_s16_int2, int32, cv_s16_int2)
PF_DEFINE_FILL(fill_u8_int2, int32, cv_u8_int2)
PF_DEFINE_FILL(fill_u16_int4, int32, cv_u16_int4)
PF_DEFINE_FILL(fill_u32_int8, int32, cv_u32_int8)
PF_DEFINE_FILL(fill_u32_int8_from64, int64, cv_u32_int8_from64)
PF_DEFINE_FILL(fill_u64_numeric, int64, cv_u64_numeric)
PF_DEFINE_FILL(fill_float4, float, cv_float4)
PF_DEFINE_FILL(fill_float8, double, cv_float8)
PF_DEFINE_FILL(fill_date, int32, cv_date)
PF_DEFINE_FILL(fill_time_ms, int32, cv_time_ms)
PF_DEFINE_FILL(fill_time_us, int64, cv_time_us)
PF_DEFINE_FILL(fill_time_ns, int64, cv_time_ns)
PF_DEFINE_FILL(fill_timetz_ms, int32, cv_timetz_ms)
PF_DEFINE_FILL(fill_timetz_us, int64, cv_timetz_us)
PF_DEFINE_FILL(fill_timetz_ns, int64, cv_timetz_ns)
PF_DEFINE_FILL(fill_ts_ms, int64, cv_ts_ms)
PF_DEFINE_FILL(fill_ts_us, int64, cv_ts_us)
PF_DEFINE_FILL(fill_ts_ns, int64, cv_ts_ns)
PF_DEFINE_FILL_FLBA(fill_float16, cv_float16)
PF_DEFINE_FILL_FLBA(fill_int96, cv_int96)
PF_DEFINE_FILL_FLBA(fill_uuid, cv_uuid)
PF_DEFINE_FILL_FLBA(fill_interval, cv_interval)

/* All null (Parquet NULL/UNKNOWN logical type). */
static void
fill_all_null(const PfScalar *sc, const void *vals, const bool *is_null,
			  uint32 n, Datum *values, bool *nulls, int stride)
{
	for (uint32 i = 0; i < n; i++)
	{
		values[(size_t) i * stride] = (Datum) 0;
		nulls[(size_t) i * stride] = true;
	}
}

/* The bytes of value i: a CdcByteView, or width bytes of a FLBA. */
static inline void
get_bytes(const PfScalar *sc, const void *vals, uint32 i,
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

/* Decimal stored in bytes (BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY). */
static void
fill_dec_bytes(const PfScalar *sc, const void *vals, const bool *is_null,
			   uint32 n, Datum *values, bool *nulls, int stride)
{
	int32		scale = sc->scale;
	char	   *arena = NULL;

	/* values that fit an int64 go to one arena, as in fill_dec64 */
	if (scale >= 0 && scale <= PF_FAST_NUMERIC_MAX_SCALE && n > 0)
		arena = MemoryContextAllocHuge(CurrentMemoryContext,
									   (Size) n * PF_FAST_NUMERIC_MAX_BYTES);
	for (uint32 i = 0; i < n; i++)
	{
		const uint8 *p;
		uint32		len;
		int64		v;

		if (is_null != NULL && is_null[i])
		{
			values[(size_t) i * stride] = (Datum) 0;
			nulls[(size_t) i * stride] = true;
			continue;
		}
		get_bytes(sc, vals, i, &p, &len);
		if (arena != NULL && decimal_bytes_int64(p, len, &v))
		{
			values[(size_t) i * stride] = PointerGetDatum(arena);
			arena += write_short_numeric(arena, v, scale);
		}
		else
			values[(size_t) i * stride] = decimal_from_bytes(p, len, scale);
		nulls[(size_t) i * stride] = false;
	}
}

/*
 * Build text or bytea varlenas for a batch with one copy: the total size is
 * computed first, then one allocation holds every value (each MAXALIGNed).
 * When validate is set, values are checked as UTF-8 (text); a database whose
 * encoding is neither UTF8 nor SQL_ASCII gets each value converted instead.
 */
static void
fill_varlena(const PfScalar *sc, const void *vals, const bool *is_null,
			 uint32 n, Datum *values, bool *nulls, int stride, bool validate)
{
	Size		total = 0;
	char	   *arena;

	if (validate && !sc->same_encoding)
	{
		/* convert value by value: sizes are unknown before conversion */
		for (uint32 i = 0; i < n; i++)
		{
			const uint8 *p;
			uint32		len;
			char	   *conv;

			if (is_null != NULL && is_null[i])
			{
				values[(size_t) i * stride] = (Datum) 0;
				nulls[(size_t) i * stride] = true;
				continue;
			}
			get_bytes(sc, vals, i, &p, &len);
			if (pg_encoding_verifymbstr(PG_UTF8, (const char *) p, len) != (int) len)
				invalid_utf8(sc, p, len);
			conv = pg_any_to_server((const char *) p, len, PG_UTF8);
			values[(size_t) i * stride] =
				PointerGetDatum(cstring_to_text_with_len(conv,
														 conv == (const char *) p ? len : strlen(conv)));
			nulls[(size_t) i * stride] = false;
		}
		return;
	}

	for (uint32 i = 0; i < n; i++)
	{
		const uint8 *p;
		uint32		len;

		if (is_null != NULL && is_null[i])
			continue;
		get_bytes(sc, vals, i, &p, &len);
		if (unlikely((Size) len + VARHDRSZ > MaxAllocSize))
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("value of column \"%s\" is too large (%u bytes)",
							sc->column_name, len)));
		total += MAXALIGN((Size) len + VARHDRSZ);
	}
	arena = total > 0 ? MemoryContextAllocHuge(CurrentMemoryContext, total) : NULL;

	for (uint32 i = 0; i < n; i++)
	{
		const uint8 *p;
		uint32		len;
		struct varlena *vl;

		if (is_null != NULL && is_null[i])
		{
			values[(size_t) i * stride] = (Datum) 0;
			nulls[(size_t) i * stride] = true;
			continue;
		}
		get_bytes(sc, vals, i, &p, &len);
		if (validate &&
			unlikely(pg_encoding_verifymbstr(PG_UTF8, (const char *) p, len) != (int) len))
			invalid_utf8(sc, p, len);
		vl = (struct varlena *) arena;
		SET_VARSIZE(vl, len + VARHDRSZ);
		memcpy(VARDATA(vl), p, len);
		arena += MAXALIGN((Size) len + VARHDRSZ);
		values[(size_t) i * stride] = PointerGetDatum(vl);
		nulls[(size_t) i * stride] = false;
	}
}

static void
fill_text(const PfScalar *sc, const void *vals, const bool *is_null,
		  uint32 n, Datum *values, bool *nulls, int stride)
{
	fill_varlena(sc, vals, is_null, n, values, nulls, stride, true);
}

static void
fill_bytea(const PfScalar *sc, const void *vals, const bool *is_null,
		   uint32 n, Datum *values, bool *nulls, int stride)
{
	fill_varlena(sc, vals, is_null, n, values, nulls, stride, false);
}

/* JSON strings to jsonb: validated, converted, parsed by jsonb_in. */
static void
fill_jsonb(const PfScalar *sc, const void *vals, const bool *is_null,
		   uint32 n, Datum *values, bool *nulls, int stride)
{
	for (uint32 i = 0; i < n; i++)
	{
		const uint8 *p;
		uint32		len;
		char	   *str;

		if (is_null != NULL && is_null[i])
		{
			values[(size_t) i * stride] = (Datum) 0;
			nulls[(size_t) i * stride] = true;
			continue;
		}
		get_bytes(sc, vals, i, &p, &len);
		if (pg_encoding_verifymbstr(PG_UTF8, (const char *) p, len) != (int) len)
			invalid_utf8(sc, p, len);
		str = pg_any_to_server((const char *) p, len, PG_UTF8);
		if (str == (const char *) p)
			str = pnstrdup((const char *) p, len);
		values[(size_t) i * stride] = DirectFunctionCall1(jsonb_in, CStringGetDatum(str));
		nulls[(size_t) i * stride] = false;
		pfree(str);
	}
}

/* ----------------------------------------------------------------
 * Default type mapping
 * ----------------------------------------------------------------
 */

/* numeric(p,s) typmod, or -1 when p,s do not fit numeric's limits. */
static int32
numeric_typmod(int32 precision, int32 scale)
{
	if (precision < 1 || precision > NUMERIC_MAX_PRECISION ||
		scale < 0 || scale > precision)
		return -1;
	return ((precision << 16) | scale) + VARHDRSZ;
}

/*
 * Choose the scalar fill function and default type of a leaf.  Annotations
 * that do not fit the physical type are ignored (the physical type's mapping
 * is used).
 */
static void
scalar_mapping(const PqSchemaNode *leaf, PfScalarFill *fill, Oid *typid,
			   int32 *typmod)
{
	const PqLogicalType *lt = &leaf->logical;
	PqPhysicalType phys = leaf->physical;
	PfScalarFill f = NULL;
	Oid			t = InvalidOid;
	int32		m = -1;

	switch (lt->kind)
	{
		case PQ_LT_NULL:
			f = fill_all_null;
			t = TEXTOID;
			break;
		case PQ_LT_STRING:
		case PQ_LT_ENUM:
			if (phys == PQ_BYTE_ARRAY || phys == PQ_FIXED_LEN_BYTE_ARRAY)
			{
				f = fill_text;
				t = TEXTOID;
			}
			break;
		case PQ_LT_JSON:
			if (phys == PQ_BYTE_ARRAY || phys == PQ_FIXED_LEN_BYTE_ARRAY)
			{
				f = fill_jsonb;
				t = JSONBOID;
			}
			break;
		case PQ_LT_UUID:
			if (phys == PQ_FIXED_LEN_BYTE_ARRAY && leaf->type_length == UUID_LEN)
			{
				f = fill_uuid;
				t = UUIDOID;
			}
			break;
		case PQ_LT_FLOAT16:
			if (phys == PQ_FIXED_LEN_BYTE_ARRAY && leaf->type_length == 2)
			{
				f = fill_float16;
				t = FLOAT4OID;
			}
			break;
		case PQ_LT_INTERVAL:
			if (phys == PQ_FIXED_LEN_BYTE_ARRAY && leaf->type_length == 12)
			{
				f = fill_interval;
				t = INTERVALOID;
			}
			break;
		case PQ_LT_DECIMAL:
			m = numeric_typmod(lt->precision, lt->scale);
			t = NUMERICOID;
			if (phys == PQ_INT32)
				f = fill_dec32;
			else if (phys == PQ_INT64)
				f = fill_dec64;
			else if (phys == PQ_BYTE_ARRAY || phys == PQ_FIXED_LEN_BYTE_ARRAY)
				f = fill_dec_bytes;
			else
			{
				t = InvalidOid;
				m = -1;
			}
			break;
		case PQ_LT_DATE:
			if (phys == PQ_INT32)
			{
				f = fill_date;
				t = DATEOID;
			}
			break;
		case PQ_LT_TIME:
			t = lt->utc_adjusted ? TIMETZOID : TIMEOID;
			if (phys == PQ_INT32 && lt->unit == PQ_UNIT_MILLIS)
				f = lt->utc_adjusted ? fill_timetz_ms : fill_time_ms;
			else if (phys == PQ_INT64 && lt->unit == PQ_UNIT_MICROS)
				f = lt->utc_adjusted ? fill_timetz_us : fill_time_us;
			else if (phys == PQ_INT64 && lt->unit == PQ_UNIT_NANOS)
				f = lt->utc_adjusted ? fill_timetz_ns : fill_time_ns;
			else
				t = InvalidOid;
			break;
		case PQ_LT_TIMESTAMP:
			if (phys == PQ_INT64)
			{
				t = lt->utc_adjusted ? TIMESTAMPTZOID : TIMESTAMPOID;
				f = lt->unit == PQ_UNIT_MILLIS ? fill_ts_ms :
					lt->unit == PQ_UNIT_MICROS ? fill_ts_us : fill_ts_ns;
			}
			else if (phys == PQ_INT96)
			{
				t = lt->utc_adjusted ? TIMESTAMPTZOID : TIMESTAMPOID;
				f = fill_int96;
			}
			break;
		case PQ_LT_INTEGER:
			if (phys == PQ_INT32)
			{
				if (lt->is_signed)
				{
					if (lt->bit_width == 8)
						f = fill_s8_int2, t = INT2OID;
					else if (lt->bit_width == 16)
						f = fill_s16_int2, t = INT2OID;
					else
						f = fill_int4, t = INT4OID;
				}
				else
				{
					if (lt->bit_width == 8)
						f = fill_u8_int2, t = INT2OID;
					else if (lt->bit_width == 16)
						f = fill_u16_int4, t = INT4OID;
					else
						f = fill_u32_int8, t = INT8OID;
				}
			}
			else if (phys == PQ_INT64)
			{
				if (lt->is_signed)
					f = fill_int8, t = INT8OID;
				else if (lt->bit_width == 64)
					f = fill_u64_numeric, t = NUMERICOID;
				else
					f = fill_u32_int8_from64, t = INT8OID;
			}
			break;
		default:
			/* BSON, VARIANT, GEOMETRY, GEOGRAPHY, unknown: by physical type */
			break;
	}

	if (f == NULL)
	{
		m = -1;
		switch (phys)
		{
			case PQ_BOOLEAN:
				f = fill_bool, t = BOOLOID;
				break;
			case PQ_INT32:
				f = fill_int4, t = INT4OID;
				break;
			case PQ_INT64:
				f = fill_int8, t = INT8OID;
				break;
			case PQ_INT96:
				f = fill_int96, t = TIMESTAMPOID;
				break;
			case PQ_FLOAT:
				f = fill_float4, t = FLOAT4OID;
				break;
			case PQ_DOUBLE:
				f = fill_float8, t = FLOAT8OID;
				break;
			case PQ_BYTE_ARRAY:
			case PQ_FIXED_LEN_BYTE_ARRAY:
			default:
				f = fill_bytea, t = BYTEAOID;
				break;
		}
	}
	*fill = f;
	*typid = t;
	*typmod = m;
}

/*
 * The element of a list-shaped node, following the backward-compatibility
 * rules of the Parquet LIST specification.  *repeated gets the repeated node;
 * the element is either a child of it (3-level form) or the repeated node
 * itself (2-level forms, repeated fields without annotation).  Returns NULL
 * when the node is not a list.
 */
static const PqSchemaNode *
list_element(const PqSchemaNode *node, const PqSchemaNode **repeated)
{
	const PqSchemaNode *rep;

	if (node->repetition == PQ_REPEATED)
	{
		/* a repeated field without LIST annotation: list of required items */
		*repeated = node;
		return node;
	}
	if (node->is_leaf || node->logical.kind != PQ_LT_LIST ||
		node->num_children != 1 ||
		node->children[0]->repetition != PQ_REPEATED)
		return NULL;

	rep = node->children[0];
	*repeated = rep;
	if (rep->is_leaf)
		return rep;
	if (rep->num_children == 1)
	{
		size_t		nlen = strlen(node->name);

		if (strcmp(rep->name, "array") == 0 ||
			(strncmp(rep->name, node->name, nlen) == 0 &&
			 strcmp(rep->name + nlen, "_tuple") == 0))
			return rep;			/* the repeated group is the element */
		return rep->children[0];
	}
	return rep;					/* repeated group of several fields */
}

/* Is the node a MAP (or legacy MAP_KEY_VALUE)?  Sets *kv to the repeated group. */
static bool
is_map(const PqSchemaNode *node, const PqSchemaNode **kv)
{
	const PqSchemaNode *rep;

	if (node->is_leaf || node->repetition == PQ_REPEATED ||
		node->num_children != 1)
		return false;
	rep = node->children[0];
	if (rep->repetition != PQ_REPEATED || rep->is_leaf ||
		rep->num_children < 1 || rep->num_children > 2)
		return false;
	if (node->logical.kind != PQ_LT_MAP &&
		rep->logical.kind != PQ_LT_MAP_KEY_VALUE &&
		node->logical.kind != PQ_LT_MAP_KEY_VALUE)
		return false;
	*kv = rep;
	return true;
}

/* The scalar leaf element of a list of scalars, else NULL. */
static const PqSchemaNode *
list_scalar_element(const PqSchemaNode *field, const PqSchemaNode **repeated)
{
	const PqSchemaNode *elem = list_element(field, repeated);

	if (elem == NULL || !elem->is_leaf)
		return NULL;
	if (elem != *repeated && elem->repetition == PQ_REPEATED)
		return NULL;
	return elem;
}

/*
 * pf_default_type
 *		The PostgreSQL type a top-level field maps to by default.
 */
void
pf_default_type(const PqSchemaNode *field, Oid *typid, int32 *typmod)
{
	const PqSchemaNode *rep;
	const PqSchemaNode *elem;
	PfScalarFill fill;

	if (field->is_leaf && field->repetition != PQ_REPEATED)
	{
		scalar_mapping(field, &fill, typid, typmod);
		return;
	}
	elem = list_scalar_element(field, &rep);
	if (elem != NULL)
	{
		Oid			elemtyp;
		int32		elemmod;
		Oid			arrtyp;

		scalar_mapping(elem, &fill, &elemtyp, &elemmod);
		arrtyp = get_array_type(elemtyp);
		if (OidIsValid(arrtyp))
		{
			*typid = arrtyp;
			*typmod = elemmod;
			return;
		}
	}
	*typid = JSONBOID;
	*typmod = -1;
}

/*
 * pf_default_type_sql
 *		The default type as SQL spells it, e.g. "numeric(10,2)".
 */
char *
pf_default_type_sql(const PqSchemaNode *field)
{
	Oid			typid;
	int32		typmod;

	pf_default_type(field, &typid, &typmod);
	return format_type_with_typemod(typid, typmod);
}

/* ----------------------------------------------------------------
 * Casts to the declared type
 * ----------------------------------------------------------------
 */

/* "INT32 (DATE)", "group (LIST)": the file's type of a field, for messages. */
static char *
describe_parquet_type(const PqSchemaNode *node)
{
	const char *phys = node->is_leaf ? pq_physical_type_name(node->physical) : "group";

	if (node->repetition == PQ_REPEATED)
		return psprintf("repeated %s", phys);
	if (node->logical.kind == PQ_LT_NONE)
		return pstrdup(phys);
	if (node->logical.kind == PQ_LT_DECIMAL)
		return psprintf("%s (DECIMAL(%d,%d))", phys,
						node->logical.precision, node->logical.scale);
	return psprintf("%s (%s)", phys, pq_logical_kind_name(node->logical.kind));
}

/*
 * The cast from (src, srcmod) to the declared (dst, dstmod), or NULL when
 * there is nothing to do; no cast at all is an error naming the column.
 */
static PfCast *
plan_cast(PfConverter *conv, Oid src, int32 srcmod, Oid dst, int32 dstmod,
		  MemoryContext cxt)
{
	bool		no_path;
	PfCast	   *c = pf_cast_create(src, srcmod, dst, dstmod, cxt, &no_path);

	if (no_path)
		pf_cast_not_supported(conv->column_name, "Parquet",
							  describe_parquet_type(conv->field),
							  conv->default_typid, conv->default_typmod,
							  conv->typid, conv->typmod);
	return c;
}

/* ----------------------------------------------------------------
 * Scalars
 * ----------------------------------------------------------------
 */
static PfJsonCategory
json_category(Oid typid)
{
	switch (typid)
	{
		case BOOLOID:
			return PF_JSON_BOOL;
		case INT2OID:
			return PF_JSON_INT2;
		case INT4OID:
			return PF_JSON_INT4;
		case INT8OID:
			return PF_JSON_INT8;
		case NUMERICOID:
			return PF_JSON_NUMERIC;
		case FLOAT4OID:
		case FLOAT8OID:
			return PF_JSON_FLOAT;
		case TEXTOID:
			return PF_JSON_TEXT;
		case JSONBOID:
			return PF_JSON_JSONB;
		case DATEOID:
		case TIMEOID:
		case TIMETZOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return PF_JSON_DATETIME;
		default:
			return PF_JSON_OTHER;
	}
}

static void
init_scalar(PfScalar *sc, const PqSchemaNode *leaf, const char *column_name,
			MemoryContext cxt)
{
	int			enc = GetDatabaseEncoding();
	Oid			outfn;
	bool		isvarlena;

	memset(sc, 0, sizeof(*sc));
	sc->node = leaf;
	sc->column_name = column_name;
	scalar_mapping(leaf, &sc->fill, &sc->typid, &sc->typmod);
	sc->scale = leaf->logical.kind == PQ_LT_DECIMAL ? leaf->logical.scale : 0;
	sc->width = leaf->physical == PQ_FIXED_LEN_BYTE_ARRAY ?
		(uint32) leaf->type_length : leaf->physical == PQ_INT96 ? 12 : 0;
	sc->same_encoding = (enc == PG_UTF8 || enc == PG_SQL_ASCII);
	sc->json_cat = json_category(sc->typid);
	getTypeOutputInfo(sc->typid, &outfn, &isvarlena);
	fmgr_info_cxt(outfn, &sc->out_func, cxt);
}

/*
 * Text-like targets of binary leaves read the bytes as text rather than
 * casting the default type: JSON declared json or a string type keeps the
 * file's text (jsonb would normalize it), and unannotated BYTE_ARRAY (bytea
 * by default, often strings from older writers) declared as a string type,
 * json or jsonb is read as UTF-8 text rather than through bytea's hex output.
 * Switches the scalar to text and returns true when that applies.
 */
static bool
read_as_text(PfScalar *sc, Oid target)
{
	bool		stringish = TypeCategory(target) == TYPCATEGORY_STRING ||
		target == JSONOID;

	if ((sc->fill == fill_jsonb && stringish) ||
		(sc->fill == fill_bytea && (stringish || target == JSONBOID)))
	{
		sc->fill = fill_text;
		sc->typid = TEXTOID;
		sc->typmod = -1;
		sc->json_cat = PF_JSON_TEXT;
		return true;
	}
	return false;
}

/* Flat leaf: one fill over the row-aligned values, then the cast. */
static void
fill_scalar_column(PfConverter *conv, const PqColumnBatch *batches,
				   uint32 num_rows, Datum *values, bool *nulls, int stride)
{
	const PqColumnBatch *b = &batches[0];
	const PfScalar *sc = &conv->scalars[0];

	if (unlikely(b->num_rows < num_rows))
		levels_corrupt(conv->column_name);
	cur_batch.vals = b->values;
	cur_batch.width = b->value_width;
	cur_batch.is_null = b->is_null;
	cur_batch.n = num_rows;
	sc->fill(sc, b->values, b->is_null, num_rows, values, nulls, stride);
	cur_batch.vals = NULL;
	pf_cast_apply(conv->cast, values, nulls, num_rows, stride, &cur_batch.failed);
}

/* ----------------------------------------------------------------
 * Lists of scalars -> arrays
 * ----------------------------------------------------------------
 */
static void
fill_list_column(PfConverter *conv, const PqColumnBatch *batches,
				 uint32 num_rows, Datum *values, bool *nulls, int stride)
{
	const PqColumnBatch *b = &batches[0];
	const PfScalar *sc = &conv->scalars[0];
	uint32		nv = b->num_values;
	uint32		nlev = b->num_levels;
	const int16 *def = b->def_levels;
	const int16 *rep = b->rep_levels;
	Datum	   *ev = palloc(sizeof(Datum) * (nv + 1));
	bool	   *en = palloc(sizeof(bool) * (nv + 1));
	Datum	   *buf = palloc(sizeof(Datum) * (nlev + 1));
	bool	   *bnull = palloc(sizeof(bool) * (nlev + 1));
	uint32		pos = 0;
	uint32		vi = 0;
	int			lbs = 1;

	if (unlikely(def == NULL || rep == NULL))
		levels_corrupt(conv->column_name);

	/* convert every element value at once */
	sc->fill(sc, b->values, NULL, nv, ev, en, 1);
	pf_cast_apply(conv->elem_cast, ev, en, nv, 1, NULL);

	for (uint32 r = 0; r < num_rows; r++)
	{
		size_t		k = (size_t) r * stride;
		int16		d;
		int			count = 0;

		if (unlikely(pos >= nlev || rep[pos] != 0))
			levels_corrupt(conv->column_name);
		d = def[pos];
		if (d < conv->list_def)
		{
			values[k] = (Datum) 0;
			nulls[k] = true;
			pos++;
			continue;
		}
		if (d < conv->rep_def)
		{
			values[k] = PointerGetDatum(construct_empty_array(conv->elem_typid));
			nulls[k] = false;
			pos++;
			continue;
		}
		do
		{
			d = def[pos];
			if (d >= conv->leaf_def)
			{
				if (unlikely(vi >= nv))
					levels_corrupt(conv->column_name);
				buf[count] = ev[vi];
				bnull[count] = en[vi];
				vi++;
			}
			else
			{
				buf[count] = (Datum) 0;
				bnull[count] = true;
			}
			count++;
			pos++;
		} while (pos < nlev && rep[pos] != 0);

		values[k] = PointerGetDatum(construct_md_array(buf, bnull, 1, &count, &lbs,
													   conv->elem_typid,
													   conv->elem_len,
													   conv->elem_byval,
													   conv->elem_align));
		nulls[k] = false;
	}
	pfree(ev);
	pfree(en);
	pfree(buf);
	pfree(bnull);
	pf_cast_apply(conv->cast, values, nulls, num_rows, stride, &cur_batch.failed);
}

/* ----------------------------------------------------------------
 * Nested fields -> jsonb
 * ----------------------------------------------------------------
 */
typedef struct PfJsonWalk
{
	PfConverter *conv;
	PfCursor   *cur;			/* one per local leaf */
	JsonbParseState *state;
} PfJsonWalk;

static PfNode *build_node(PfConverter *conv, const PqSchemaNode *node,
						  bool optional, int *next_leaf, MemoryContext cxt);

/* Count the leaves below a node (including itself). */
static int
count_leaves(const PqSchemaNode *node)
{
	int			n = 0;

	if (node->is_leaf)
		return 1;
	for (int i = 0; i < node->num_children; i++)
		n += count_leaves(node->children[i]);
	return n;
}

/* A struct over the children of a node (the node itself is not nullable). */
static PfNode *
build_struct(PfConverter *conv, const PqSchemaNode *node, bool optional,
			 int *next_leaf, MemoryContext cxt)
{
	PfNode	   *n = MemoryContextAllocZero(cxt, sizeof(PfNode));

	n->kind = PF_NODE_STRUCT;
	n->name = node->name;
	n->optional = optional;
	n->max_def = node->max_def;
	n->leaf_lo = *next_leaf;
	n->num_children = node->num_children;
	n->children = MemoryContextAllocZero(cxt, sizeof(PfNode *) * Max(1, node->num_children));
	for (int i = 0; i < node->num_children; i++)
	{
		const PqSchemaNode *ch = node->children[i];

		n->children[i] = build_node(conv, ch, ch->repetition == PQ_OPTIONAL,
									next_leaf, cxt);
	}
	n->leaf_hi = *next_leaf;
	return n;
}

/* A node as an element: a leaf, or the struct of its children. */
static PfNode *
build_instance(PfConverter *conv, const PqSchemaNode *node, int *next_leaf,
			   MemoryContext cxt)
{
	PfNode	   *n;

	if (!node->is_leaf)
		return build_struct(conv, node, false, next_leaf, cxt);
	n = MemoryContextAllocZero(cxt, sizeof(PfNode));
	n->kind = PF_NODE_LEAF;
	n->name = node->name;
	n->max_def = node->max_def;
	n->leaf_lo = (*next_leaf)++;
	n->leaf_hi = *next_leaf;
	return n;
}

/*
 * Compile the record-assembly tree of a node whose leaves come next (from
 * *next_leaf on) in the converter's leaf list.  "optional" says whether the
 * node can be null by itself.
 */
static PfNode *
build_node(PfConverter *conv, const PqSchemaNode *node, bool optional,
		   int *next_leaf, MemoryContext cxt)
{
	PfNode	   *n;
	const PqSchemaNode *rep;
	const PqSchemaNode *elem;

	if (node->repetition == PQ_REPEATED)
		optional = false;

	if (pf_is_variant_field(node))
	{
		n = MemoryContextAllocZero(cxt, sizeof(PfNode));
		n->kind = PF_NODE_VARIANT;
		n->name = node->name;
		n->optional = optional;
		n->max_def = node->max_def;
		n->leaf_lo = *next_leaf;
		n->leaf_hi = *next_leaf + count_leaves(node);
		*next_leaf = n->leaf_hi;
		n->variant = pf_variant_converter_create(conv->meta, node,
												 conv->column_name, cxt);
		n->positions = MemoryContextAllocZero(cxt, sizeof(PfLeafPosition) *
											  (n->leaf_hi - n->leaf_lo));
		/* its leaves are read as Variant bytes, never converted one by one */
		if (conv->variant_leaf == NULL)
			conv->variant_leaf = MemoryContextAllocZero(cxt, sizeof(bool) *
														conv->num_leaves);
		for (int i = n->leaf_lo; i < n->leaf_hi; i++)
			conv->variant_leaf[i] = true;
		return n;
	}

	if (is_map(node, &rep))
	{
		n = MemoryContextAllocZero(cxt, sizeof(PfNode));
		n->kind = PF_NODE_MAP;
		n->name = node->name;
		n->optional = optional;
		n->max_def = node->max_def;
		n->rep_def = rep->max_def;
		n->rep_rep = rep->max_rep;
		n->leaf_lo = *next_leaf;
		n->key = build_instance(conv, rep->children[0], next_leaf, cxt);
		if (rep->num_children > 1)
			n->elem = build_node(conv, rep->children[1],
								 rep->children[1]->repetition == PQ_OPTIONAL,
								 next_leaf, cxt);
		n->leaf_hi = *next_leaf;
		return n;
	}

	elem = list_element(node, &rep);
	if (elem != NULL)
	{
		n = MemoryContextAllocZero(cxt, sizeof(PfNode));
		n->kind = PF_NODE_LIST;
		n->name = node->name;
		n->optional = optional;
		n->max_def = node->max_def;
		n->rep_def = rep->max_def;
		n->rep_rep = rep->max_rep;
		n->leaf_lo = *next_leaf;
		if (elem == rep)
			n->elem = build_instance(conv, rep, next_leaf, cxt);
		else
			n->elem = build_node(conv, elem, elem->repetition == PQ_OPTIONAL,
								 next_leaf, cxt);
		n->leaf_hi = *next_leaf;
		return n;
	}

	if (!node->is_leaf)
		return build_struct(conv, node, optional, next_leaf, cxt);

	n = build_instance(conv, node, next_leaf, cxt);
	n->optional = optional;
	return n;
}

static inline PfCursor *
walk_cursor(PfJsonWalk *w, int leaf)
{
	PfCursor   *c = &w->cur[leaf];

	if (unlikely(c->pos >= c->batch->num_levels))
		levels_corrupt(w->conv->column_name);
	return c;
}

static inline int16
cursor_def(const PfCursor *c)
{
	if (c->batch->def_levels != NULL)
		return c->batch->def_levels[c->pos];
	if (c->batch->is_null != NULL && c->batch->is_null[c->pos])
		return 0;
	return c->max_def;
}

/* A null or empty node: every leaf below it has one entry to consume. */
static void
skip_node(PfJsonWalk *w, const PfNode *n)
{
	for (int i = n->leaf_lo; i < n->leaf_hi; i++)
		walk_cursor(w, i)->pos++;
}

/*
 * pf_datum_to_jsonb_value
 *		A Datum of type typid as the jsonb value to_jsonb() makes of it:
 *		numbers as numbers (NaN and infinities as strings), dates and
 *		timestamps in ISO 8601, jsonb as itself, anything else as its text.
 *		out_func is typid's output function.
 */
void
pf_datum_to_jsonb_value(Datum d, Oid typid, FmgrInfo *out_func, JsonbValue *v)
{
	char		buf[MAXDATELEN + 1];

	switch (json_category(typid))
	{
		case PF_JSON_BOOL:
			v->type = jbvBool;
			v->val.boolean = DatumGetBool(d);
			break;
		case PF_JSON_INT2:
			v->type = jbvNumeric;
			v->val.numeric = int64_to_numeric(DatumGetInt16(d));
			break;
		case PF_JSON_INT4:
			v->type = jbvNumeric;
			v->val.numeric = int64_to_numeric(DatumGetInt32(d));
			break;
		case PF_JSON_INT8:
			v->type = jbvNumeric;
			v->val.numeric = int64_to_numeric(DatumGetInt64(d));
			break;
		case PF_JSON_NUMERIC:
			v->type = jbvNumeric;
			v->val.numeric = DatumGetNumeric(d);
			break;
		case PF_JSON_FLOAT:
			{
				double		f = typid == FLOAT4OID ?
					(double) DatumGetFloat4(d) : DatumGetFloat8(d);
				char	   *s = OutputFunctionCall(out_func, d);

				if (isnan(f) || isinf(f))
				{
					v->type = jbvString;
					v->val.string.val = s;
					v->val.string.len = strlen(s);
				}
				else
				{
					v->type = jbvNumeric;
					v->val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
																		CStringGetDatum(s),
																		ObjectIdGetDatum(InvalidOid),
																		Int32GetDatum(-1)));
				}
				break;
			}
		case PF_JSON_TEXT:
			v->type = jbvString;
			v->val.string.val = VARDATA_ANY(DatumGetPointer(d));
			v->val.string.len = VARSIZE_ANY_EXHDR(DatumGetPointer(d));
			break;
		case PF_JSON_JSONB:
			{
				Jsonb	   *jb = DatumGetJsonbP(d);

				if (JB_ROOT_IS_SCALAR(jb))
				{
					if (!JsonbExtractScalar(&jb->root, v))
						elog(ERROR, "could not extract jsonb scalar");
				}
				else
				{
					v->type = jbvBinary;
					v->val.binary.data = &jb->root;
					v->val.binary.len = VARSIZE(jb) - VARHDRSZ;
				}
				break;
			}
		case PF_JSON_DATETIME:
			{
				char	   *s = JsonEncodeDateTime(buf, d, typid, NULL);

				v->type = jbvString;
				v->val.string.val = pstrdup(s);
				v->val.string.len = strlen(s);
				break;
			}
		case PF_JSON_OTHER:
		default:
			{
				char	   *s = OutputFunctionCall(out_func, d);

				v->type = jbvString;
				v->val.string.val = s;
				v->val.string.len = strlen(s);
				break;
			}
	}
}

/* Push a leaf's Datum as a jsonb scalar (or container). */
static JsonbValue *
push_leaf_value(PfJsonWalk *w, int leaf, Datum d, JsonbIteratorToken tok)
{
	const PfScalar *sc = &w->conv->scalars[leaf];
	JsonbValue	v;

	pf_datum_to_jsonb_value(d, sc->typid, (FmgrInfo *) &sc->out_func, &v);
	return pushJsonbValue(&w->state, tok, &v);
}

static JsonbValue *
push_null(PfJsonWalk *w, JsonbIteratorToken tok)
{
	JsonbValue	v;

	v.type = jbvNull;
	return pushJsonbValue(&w->state, tok, &v);
}

static JsonbValue *
push_key(PfJsonWalk *w, const char *key, int len)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) key;
	v.val.string.len = len;
	return pushJsonbValue(&w->state, WJB_KEY, &v);
}

/* The text of a map key (to_jsonb's rules for keys). */
static void
map_key_text(PfJsonWalk *w, int leaf, Datum d, char **str, int *len)
{
	const PfScalar *sc = &w->conv->scalars[leaf];
	char		buf[MAXDATELEN + 1];

	switch (sc->json_cat)
	{
		case PF_JSON_TEXT:
			*str = VARDATA_ANY(DatumGetPointer(d));
			*len = VARSIZE_ANY_EXHDR(DatumGetPointer(d));
			return;
		case PF_JSON_BOOL:
			*str = DatumGetBool(d) ? "true" : "false";
			break;
		case PF_JSON_DATETIME:
			*str = pstrdup(JsonEncodeDateTime(buf, d, sc->typid, NULL));
			break;
		default:
			*str = OutputFunctionCall((FmgrInfo *) &sc->out_func, d);
			break;
	}
	*len = strlen(*str);
}

/* Consume one leaf entry; returns whether a value is there and sets *d. */
static bool
take_leaf(PfJsonWalk *w, int leaf, Datum *d)
{
	PfCursor   *c = walk_cursor(w, leaf);
	int16		def = cursor_def(c);
	uint32		vi;

	if (c->flat)
		vi = c->pos;
	else if (def >= c->max_def)
		vi = c->vpos++;
	else
		vi = 0;
	c->pos++;
	if (def < c->max_def)
		return false;
	if (unlikely(vi >= (c->flat ? c->batch->num_levels : c->batch->num_values)))
		levels_corrupt(w->conv->column_name);
	if (c->nulls[vi])
		return false;
	*d = c->values[vi];
	return true;
}

static JsonbValue *emit_node(PfJsonWalk *w, const PfNode *n, JsonbIteratorToken tok);

/* Is there another element of the repeated node at the first leaf? */
static inline bool
more_elements(PfJsonWalk *w, const PfNode *n)
{
	PfCursor   *c = &w->cur[n->leaf_lo];

	return c->pos < c->batch->num_levels &&
		c->batch->rep_levels != NULL &&
		c->batch->rep_levels[c->pos] >= n->rep_rep;
}

/* A nested VARIANT's value, reassembled by convert_variant.c, spliced in. */
static JsonbValue *
emit_variant(PfJsonWalk *w, const PfNode *n, JsonbIteratorToken tok)
{
	int			nleaves = n->leaf_hi - n->leaf_lo;
	PfLeafPosition *lp = n->positions;
	JsonbValue	v;
	Jsonb	   *jb;
	Datum		d;
	bool		isnull;

	for (int i = 0; i < nleaves; i++)
	{
		PfCursor   *c = &w->cur[n->leaf_lo + i];

		lp[i].batch = c->batch;
		lp[i].pos = c->pos;
		lp[i].vpos = c->vpos;
	}
	d = pf_variant_converter_next(n->variant, lp, &isnull);
	for (int i = 0; i < nleaves; i++)
	{
		PfCursor   *c = &w->cur[n->leaf_lo + i];

		c->pos = lp[i].pos;
		c->vpos = lp[i].vpos;
	}
	if (isnull)
		return push_null(w, tok);
	jb = DatumGetJsonbP(d);
	v.type = jbvBinary;
	v.val.binary.data = &jb->root;
	v.val.binary.len = VARSIZE(jb) - VARHDRSZ;
	return pushJsonbValue(&w->state, tok, &v);
}

static JsonbValue *
emit_node(PfJsonWalk *w, const PfNode *n, JsonbIteratorToken tok)
{
	JsonbValue *res;

	if (n->optional && n->leaf_hi > n->leaf_lo &&
		cursor_def(walk_cursor(w, n->leaf_lo)) < n->max_def)
	{
		skip_node(w, n);
		return push_null(w, tok);
	}

	switch (n->kind)
	{
		case PF_NODE_LEAF:
			{
				Datum		d;

				if (take_leaf(w, n->leaf_lo, &d))
					return push_leaf_value(w, n->leaf_lo, d, tok);
				return push_null(w, tok);
			}
		case PF_NODE_STRUCT:
			pushJsonbValue(&w->state, WJB_BEGIN_OBJECT, NULL);
			for (int i = 0; i < n->num_children; i++)
			{
				const PfNode *ch = n->children[i];

				push_key(w, ch->name, strlen(ch->name));
				emit_node(w, ch, WJB_VALUE);
			}
			return pushJsonbValue(&w->state, WJB_END_OBJECT, NULL);
		case PF_NODE_LIST:
			pushJsonbValue(&w->state, WJB_BEGIN_ARRAY, NULL);
			if (cursor_def(walk_cursor(w, n->leaf_lo)) < n->rep_def)
				skip_node(w, n);
			else
			{
				do
				{
					emit_node(w, n->elem, WJB_ELEM);
				} while (more_elements(w, n));
			}
			return pushJsonbValue(&w->state, WJB_END_ARRAY, NULL);
		case PF_NODE_VARIANT:
			return emit_variant(w, n, tok);
		case PF_NODE_MAP:
			pushJsonbValue(&w->state, WJB_BEGIN_OBJECT, NULL);
			if (cursor_def(walk_cursor(w, n->leaf_lo)) < n->rep_def)
				skip_node(w, n);
			else
			{
				do
				{
					Datum		kd;
					char	   *ks;
					int			klen;

					if (n->key->kind != PF_NODE_LEAF || !take_leaf(w, n->key->leaf_lo, &kd))
						ereport(ERROR,
								(errcode(ERRCODE_DATA_CORRUPTED),
								 errmsg("null or nested map key in column \"%s\"",
										w->conv->column_name)));
					map_key_text(w, n->key->leaf_lo, kd, &ks, &klen);
					push_key(w, ks, klen);
					if (n->elem != NULL)
						emit_node(w, n->elem, WJB_VALUE);
					else
						push_null(w, WJB_VALUE);
				} while (more_elements(w, n));
			}
			return pushJsonbValue(&w->state, WJB_END_OBJECT, NULL);
	}
	res = NULL;
	return res;
}

static void
fill_json_column(PfConverter *conv, const PqColumnBatch *batches,
				 uint32 num_rows, Datum *values, bool *nulls, int stride)
{
	PfJsonWalk	w;

	w.conv = conv;
	w.state = NULL;
	w.cur = palloc0(sizeof(PfCursor) * conv->num_leaves);

	/* convert every leaf's values once */
	for (int i = 0; i < conv->num_leaves; i++)
	{
		const PqColumnBatch *b = &batches[i];
		const PfScalar *sc = &conv->scalars[i];
		PfCursor   *c = &w.cur[i];
		uint32		n;

		c->batch = b;
		c->max_def = sc->node->max_def;
		c->flat = sc->node->max_rep == 0;
		n = c->flat ? b->num_levels : b->num_values;
		if (conv->variant_leaf != NULL && conv->variant_leaf[i])
			continue;			/* read as Variant bytes by emit_variant() */
		c->values = palloc(sizeof(Datum) * (n + 1));
		c->nulls = palloc(sizeof(bool) * (n + 1));
		if (c->flat)
		{
			/* row-aligned values: skip the slots whose levels say absent */
			bool	   *absent = palloc(sizeof(bool) * (n + 1));

			for (uint32 j = 0; j < n; j++)
				absent[j] = (b->is_null != NULL && b->is_null[j]) ||
					(b->def_levels != NULL && b->def_levels[j] < c->max_def);
			sc->fill(sc, b->values, absent, n, c->values, c->nulls, 1);
			pfree(absent);
		}
		else
			sc->fill(sc, b->values, NULL, n, c->values, c->nulls, 1);
	}

	for (uint32 r = 0; r < num_rows; r++)
	{
		size_t		k = (size_t) r * stride;
		const PfNode *root = conv->root;
		JsonbValue *res;

		if (root->optional &&
			cursor_def(walk_cursor(&w, root->leaf_lo)) < root->max_def)
		{
			skip_node(&w, root);
			values[k] = (Datum) 0;
			nulls[k] = true;
			continue;
		}
		if (root->kind == PF_NODE_LEAF)
		{
			/* cannot happen: scalar fields do not take this path */
			values[k] = (Datum) 0;
			nulls[k] = true;
			continue;
		}
		w.state = NULL;
		res = emit_node(&w, root, WJB_VALUE);
		values[k] = JsonbPGetDatum(JsonbValueToJsonb(res));
		nulls[k] = false;
	}

	/* every leaf must have been consumed exactly */
	for (int i = 0; i < conv->num_leaves; i++)
		if (w.cur[i].pos != batches[i].num_levels)
			levels_corrupt(conv->column_name);

	pf_cast_apply(conv->cast, values, nulls, num_rows, stride, &cur_batch.failed);
}

/* VARIANT group: reassembled to jsonb by convert_variant.c, then the cast. */
static void
fill_variant_column(PfConverter *conv, const PqColumnBatch *batches,
					uint32 num_rows, Datum *values, bool *nulls, int stride)
{
	pf_variant_converter_fill(conv->variant, batches, num_rows, values, nulls,
							  stride);
	pf_cast_apply(conv->cast, values, nulls, num_rows, stride, &cur_batch.failed);
}

/* ----------------------------------------------------------------
 * Converter construction
 * ----------------------------------------------------------------
 */
static void
collect_leaves(const PqSchemaNode *node, int *out, int *n)
{
	if (node->is_leaf)
	{
		out[(*n)++] = node->leaf_index;
		return;
	}
	for (int i = 0; i < node->num_children; i++)
		collect_leaves(node->children[i], out, n);
}

/*
 * pf_converter_create
 *		Build the converter of top-level field `field` to the declared type.
 */
PfConverter *
pf_converter_create(const PqFileMeta *meta, const PqSchemaNode *field,
					Oid typid, int32 typmod, const char *column_name,
					MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	PfConverter *conv = palloc0(sizeof(PfConverter));
	const PqSchemaNode *rep = NULL;
	const PqSchemaNode *elem = NULL;
	Oid			decl_base;
	int32		decl_basemod = typmod;
	bool		want_json;
	int			n = 0;

	conv->meta = meta;
	conv->field = field;
	conv->column_name = pstrdup(column_name);
	conv->typid = typid;
	conv->typmod = typmod;
	pf_default_type(field, &conv->default_typid, &conv->default_typmod);

	conv->num_leaves = count_leaves(field);
	conv->leaves = palloc(sizeof(int) * conv->num_leaves);
	collect_leaves(field, conv->leaves, &n);
	conv->scalars = palloc0(sizeof(PfScalar) * conv->num_leaves);
	for (int i = 0; i < conv->num_leaves; i++)
		init_scalar(&conv->scalars[i], meta->leaves[conv->leaves[i]].node,
					conv->column_name, cxt);

	decl_base = getBaseTypeAndTypmod(typid, &decl_basemod);
	want_json = decl_base == JSONBOID;

	if (pf_is_variant_field(field))
	{
		conv->kind = PF_CONV_VARIANT;
		conv->fill = fill_variant_column;
		conv->variant = pf_variant_converter_create(meta, field, conv->column_name,
													cxt);
		conv->cast = plan_cast(conv, JSONBOID, -1, typid, typmod, cxt);
		MemoryContextSwitchTo(old);
		return conv;
	}
	else if (field->is_leaf && field->repetition != PQ_REPEATED)
	{
		conv->kind = PF_CONV_SCALAR;
		conv->fill = fill_scalar_column;
	}
	else if (!want_json &&
			 (elem = list_scalar_element(field, &rep)) != NULL &&
			 conv->default_typid != JSONBOID)
	{
		Oid			decl_elem = get_element_type(decl_base);
		const PfScalar *sc = &conv->scalars[0];

		conv->kind = PF_CONV_LIST;
		conv->fill = fill_list_column;
		conv->list_def = (field->repetition == PQ_OPTIONAL) ? field->max_def : 0;
		conv->rep_def = rep->max_def;
		conv->leaf_def = elem->max_def;
		if (OidIsValid(decl_elem) && decl_base == typid)
		{
			read_as_text(&conv->scalars[0], decl_elem);
			/* declared array: cast elements, build arrays of the declared type */
			conv->elem_cast = plan_cast(conv, sc->typid, sc->typmod,
										decl_elem, typmod, cxt);
			conv->elem_typid = decl_elem;
		}
		else
		{
			/* arrays of the default type, then a cast of the whole array */
			conv->elem_typid = sc->typid;
			conv->cast = plan_cast(conv, conv->default_typid,
								   conv->default_typmod, typid, typmod, cxt);
		}
		get_typlenbyvalalign(conv->elem_typid, &conv->elem_len,
							 &conv->elem_byval, &conv->elem_align);
		MemoryContextSwitchTo(old);
		return conv;
	}
	else
	{
		int			next = 0;

		conv->kind = PF_CONV_JSON;
		conv->fill = fill_json_column;
		conv->root = build_node(conv, field, field->repetition == PQ_OPTIONAL,
								&next, cxt);
		Assert(next == conv->num_leaves);
		if (!field->is_leaf && get_typtype(decl_base) == TYPTYPE_COMPOSITE &&
			conv->root->kind == PF_NODE_STRUCT)
			conv->cast = pf_cast_create_populate(typid, cxt);
		else
			conv->cast = plan_cast(conv, JSONBOID, -1, typid, typmod, cxt);
		MemoryContextSwitchTo(old);
		return conv;
	}

	/*
	 * Flat scalar.  JSON text read as json or a string type keeps the file's
	 * text as is (validated by json_in for json) instead of jsonb's
	 * normalized rendering.
	 */
	if (read_as_text(&conv->scalars[0], decl_base))
	{
		conv->cast = plan_cast(conv, TEXTOID, -1, typid, typmod, cxt);
		MemoryContextSwitchTo(old);
		return conv;
	}
	conv->cast = plan_cast(conv, conv->default_typid, conv->default_typmod,
						   typid, typmod, cxt);
	MemoryContextSwitchTo(old);
	return conv;
}

int
pf_converter_num_leaves(const PfConverter *conv)
{
	return conv->num_leaves;
}

const int *
pf_converter_leaves(const PfConverter *conv)
{
	return conv->leaves;
}

/* Error context: which column and types a failure happened in. */
static void
converter_error_callback(void *arg)
{
	PfConverter *conv = (PfConverter *) arg;

	errcontext("converting Parquet column \"%s\" to type %s",
			   conv->column_name,
			   format_type_with_typemod(conv->typid, conv->typmod));
}

/*
 * pf_converter_fill
 *		Convert one batch of the converter's leaves into Datums.
 */
void
pf_converter_fill(PfConverter *conv, const PqColumnBatch *leaf_batches,
				  uint32 num_rows, Datum *values, bool *nulls, int stride)
{
	ErrorContextCallback errcb;

	errcb.callback = converter_error_callback;
	errcb.arg = conv;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	cur_batch.vals = NULL;		/* an earlier fill may have ended in ERROR */
	cur_batch.failed = -1;
	conv->fill(conv, leaf_batches, num_rows, values, nulls, stride);

	error_context_stack = errcb.previous;
}
