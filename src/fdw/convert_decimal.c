/*-------------------------------------------------------------------------
 *
 * convert_decimal.c
 *	  Scalar fills that build numerics: DECIMAL in INT32, INT64 and bytes
 *	  (a batch's short numerics written straight into one allocation), and
 *	  unsigned 64-bit integers.
 *
 * IDENTIFICATION
 *	  src/fdw/convert_decimal.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <string.h>

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "fdw/convert_internal.h"

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
void \
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

PF_DEFINE_FILL_DEC(pf_fill_dec32, int32)
PF_DEFINE_FILL_DEC(pf_fill_dec64, int64)

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

PF_DEFINE_FILL(pf_fill_u64_numeric, int64, cv_u64_numeric)

/* Decimal stored in bytes (BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY). */
void
pf_fill_dec_bytes(const PfScalar *sc, const void *vals, const bool *is_null,
				  uint32 n, Datum *values, bool *nulls, int stride)
{
	int32		scale = sc->scale;
	char	   *arena = NULL;

	/* values that fit an int64 go to one arena, as in pf_fill_dec64 */
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
		pf_scalar_bytes(sc, vals, i, &p, &len);
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

