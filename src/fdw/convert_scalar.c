/*-------------------------------------------------------------------------
 *
 * convert_scalar.c
 *	  Scalar fills of the plain kinds: booleans, integers, floats (FLOAT16
 *	  too), UUIDs, strings and binary as text or bytea, JSON as jsonb.
 *
 * IDENTIFICATION
 *	  src/fdw/convert_scalar.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <string.h>

#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/uuid.h"

#include "fdw/convert_internal.h"

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

static inline Datum
cv_uuid(const PfScalar *sc, const uint8 *p)
{
	pg_uuid_t  *u = (pg_uuid_t *) palloc(sizeof(pg_uuid_t));

	memcpy(u->data, p, UUID_LEN);
	return UUIDPGetDatum(u);
}

/* ----------------------------------------------------------------
 * Fill loops
 * ----------------------------------------------------------------
 */
PF_DEFINE_FILL(pf_fill_bool, uint8, cv_bool)
PF_DEFINE_FILL(pf_fill_int4, int32, cv_int4)
PF_DEFINE_FILL(pf_fill_int8, int64, cv_int8)
PF_DEFINE_FILL(pf_fill_s8_int2, int32, cv_s8_int2)
PF_DEFINE_FILL(pf_fill_s16_int2, int32, cv_s16_int2)
PF_DEFINE_FILL(pf_fill_u8_int2, int32, cv_u8_int2)
PF_DEFINE_FILL(pf_fill_u16_int4, int32, cv_u16_int4)
PF_DEFINE_FILL(pf_fill_u32_int8, int32, cv_u32_int8)
PF_DEFINE_FILL(pf_fill_u32_int8_from64, int64, cv_u32_int8_from64)
PF_DEFINE_FILL(pf_fill_float4, float, cv_float4)
PF_DEFINE_FILL(pf_fill_float8, double, cv_float8)
PF_DEFINE_FILL_FLBA(pf_fill_float16, cv_float16)
PF_DEFINE_FILL_FLBA(pf_fill_uuid, cv_uuid)

/* All null (Parquet NULL/UNKNOWN logical type). */
void
pf_fill_all_null(const PfScalar *sc, const void *vals, const bool *is_null,
				 uint32 n, Datum *values, bool *nulls, int stride)
{
	for (uint32 i = 0; i < n; i++)
	{
		values[(size_t) i * stride] = (Datum) 0;
		nulls[(size_t) i * stride] = true;
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
			pf_scalar_bytes(sc, vals, i, &p, &len);
			if (pg_encoding_verifymbstr(PG_UTF8, (const char *) p, len) != (int) len)
				pf_conv_invalid_utf8(sc, p, len);
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
		pf_scalar_bytes(sc, vals, i, &p, &len);
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
		pf_scalar_bytes(sc, vals, i, &p, &len);
		if (validate &&
			unlikely(pg_encoding_verifymbstr(PG_UTF8, (const char *) p, len) != (int) len))
			pf_conv_invalid_utf8(sc, p, len);
		vl = (struct varlena *) arena;
		SET_VARSIZE(vl, len + VARHDRSZ);
		memcpy(VARDATA(vl), p, len);
		arena += MAXALIGN((Size) len + VARHDRSZ);
		values[(size_t) i * stride] = PointerGetDatum(vl);
		nulls[(size_t) i * stride] = false;
	}
}

void
pf_fill_text(const PfScalar *sc, const void *vals, const bool *is_null,
			 uint32 n, Datum *values, bool *nulls, int stride)
{
	fill_varlena(sc, vals, is_null, n, values, nulls, stride, true);
}

void
pf_fill_bytea(const PfScalar *sc, const void *vals, const bool *is_null,
			  uint32 n, Datum *values, bool *nulls, int stride)
{
	fill_varlena(sc, vals, is_null, n, values, nulls, stride, false);
}

/* JSON strings to jsonb: validated, converted, parsed by jsonb_in. */
void
pf_fill_jsonb(const PfScalar *sc, const void *vals, const bool *is_null,
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
		pf_scalar_bytes(sc, vals, i, &p, &len);
		if (pg_encoding_verifymbstr(PG_UTF8, (const char *) p, len) != (int) len)
			pf_conv_invalid_utf8(sc, p, len);
		str = pg_any_to_server((const char *) p, len, PG_UTF8);
		if (str == (const char *) p)
			str = pnstrdup((const char *) p, len);
		values[(size_t) i * stride] = DirectFunctionCall1(jsonb_in, CStringGetDatum(str));
		nulls[(size_t) i * stride] = false;
		pfree(str);
	}
}

