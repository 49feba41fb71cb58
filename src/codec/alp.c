/*-------------------------------------------------------------------------
 *
 * alp.c
 *	  ALP and ALPRD floating-point encodings: decoders (scalar and AVX2),
 *	  parameter search and encoders.
 *
 * Formats and contracts are in alp.h (amudai-format.md 4.2).
 *
 * Design notes:
 *	- Exactness.  The decode formula (T) k * F10[f] * IF10[e] must be
 *	  evaluated exactly as the writer did, in T's precision, left to right.
 *	  Two multiplies cannot contract into an FMA, and the codec layer is
 *	  never built with -ffast-math, so plain C expressions are exact.
 *	- int64 -> double has no AVX2 instruction, so the decoder converts
 *	  integers below 2^51 in magnitude with the magic-number trick (add the
 *	  bit pattern of 2^52 + 2^51, reinterpret, subtract 2^52 + 2^51), which is
 *	  exact there; a 1024-value block is range-checked first (a vectorized
 *	  OR of offsets) and falls back to the scalar conversion when some value
 *	  is larger.  The same body is compiled twice: plain (SSE2 vectors) and
 *	  under target("avx2"), and picked with cdc_isa_current().
 *	- Encoders compare bit patterns, not float values: -0.0, NaN payloads,
 *	  infinities and any value the formula cannot reproduce become
 *	  exceptions, so round trips are bit-exact.  The rounding trick only
 *	  runs on values whose scaled magnitude is below 2^51 (2^22 for f32),
 *	  which also keeps the cast to the integer type defined.
 *	- The parameter searches try every candidate on a sample of at most
 *	  CDC_ALP_SAMPLE values and estimate the encoded size (bit width of the
 *	  integer range, as FFOR would store it, plus exceptions).
 *
 * IDENTIFICATION
 *	  src/codec/alp.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/alp.h"
#include "codec/fastlanes_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 10^i and 10^-i as decimal literals rounded to the type (the format's
 * F10 and IF10 tables). */
static const double F10_64[24] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23
};
static const double IF10_64[24] = {
	1e-0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11,
	1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21,
	1e-22, 1e-23
};
static const float F10_32[11] = {
	1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f
};
static const float IF10_32[11] = {
	1e-0f, 1e-1f, 1e-2f, 1e-3f, 1e-4f, 1e-5f, 1e-6f, 1e-7f, 1e-8f, 1e-9f, 1e-10f
};

/* Largest exponent the encoders try (larger ones overflow the integers). */
#define ALP_SEARCH_MAX_E64	18
#define ALP_SEARCH_MAX_E32	10

#define ALP_BLOCK			1024
#define MAGIC_BITS64		UINT64_C(0x4338000000000000)	/* 2^52 + 2^51 */
#define MAGIC64				6755399441055744.0
#define MAGIC32				12582912.0f						/* 2^23 + 2^22 */

#define AVX2_FN		__attribute__((target("avx2"))) CDC_VECTORIZE

static inline uint64_t
bits64(double d)
{
	uint64_t	b;

	memcpy(&b, &d, 8);
	return b;
}

static inline double
from_bits64(uint64_t b)
{
	double		d;

	memcpy(&d, &b, 8);
	return d;
}

static inline uint32_t
bits32(float f)
{
	uint32_t	b;

	memcpy(&b, &f, 4);
	return b;
}

static inline float
from_bits32(uint32_t b)
{
	float		f;

	memcpy(&f, &b, 4);
	return f;
}

static unsigned
bit_length64(uint64_t v)
{
	return v == 0 ? 0 : 64 - (unsigned) __builtin_clzll(v);
}

/* ----------------------------------------------------------------
 * ALP decode kernels
 * ----------------------------------------------------------------
 */
static CDC_ALWAYS_INLINE void
alp_block64_body(const int64_t *restrict ints, size_t n, double fmul, double imul,
				 double *restrict out)
{
	uint64_t	wide = 0;

	/* k + 2^51 < 2^52 for every k  <=>  |k| fits the magic conversion */
	for (size_t i = 0; i < n; i++)
		wide |= ((uint64_t) ints[i] + (UINT64_C(1) << 51)) >> 52;
	if (wide == 0)
	{
		for (size_t i = 0; i < n; i++)
		{
			uint64_t	b = (uint64_t) ints[i] + MAGIC_BITS64;
			double		d;

			memcpy(&d, &b, 8);
			out[i] = (d - MAGIC64) * fmul * imul;
		}
	}
	else
	{
		for (size_t i = 0; i < n; i++)
			out[i] = (double) ints[i] * fmul * imul;
	}
}

static void
alp_decode64_scalar(const int64_t *ints, size_t count, double fmul, double imul,
					double *out)
{
	for (size_t s = 0; s < count; s += ALP_BLOCK)
		alp_block64_body(ints + s, count - s < ALP_BLOCK ? count - s : ALP_BLOCK,
						 fmul, imul, out + s);
}

static AVX2_FN void
alp_decode64_avx2(const int64_t *ints, size_t count, double fmul, double imul,
				  double *out)
{
	for (size_t s = 0; s < count; s += ALP_BLOCK)
		alp_block64_body(ints + s, count - s < ALP_BLOCK ? count - s : ALP_BLOCK,
						 fmul, imul, out + s);
}

static CDC_ALWAYS_INLINE void
alp_decode32_body(const int32_t *restrict ints, size_t count, float fmul,
				  float imul, float *restrict out)
{
	for (size_t i = 0; i < count; i++)
		out[i] = (float) ints[i] * fmul * imul;
}

static void
alp_decode32_scalar(const int32_t *ints, size_t count, float fmul, float imul,
					float *out)
{
	alp_decode32_body(ints, count, fmul, imul, out);
}

static AVX2_FN void
alp_decode32_avx2(const int32_t *ints, size_t count, float fmul, float imul,
				  float *out)
{
	alp_decode32_body(ints, count, fmul, imul, out);
}

/* Common checks of an exception region of `elem`-byte values. */
static CdcStatus
check_exceptions(size_t exceptions_len, uint32_t exception_count, size_t elem,
				 const uint8_t *exceptions, size_t count)
{
	size_t		need = (size_t) exception_count * (4 + elem);

	if (exceptions_len < need)
		return CDC_ERR_TRUNCATED;
	if (exceptions_len > need)
		return CDC_ERR_CORRUPT;
	for (uint32_t i = 0; i < exception_count; i++)
		if (cdc_load32(exceptions + 4 * (size_t) i) >= count)
			return CDC_ERR_CORRUPT;
	return CDC_OK;
}

CdcStatus
cdc_alp_decode64(const int64_t *ints, size_t count, unsigned exponent,
				 unsigned factor, const uint8_t *exceptions, size_t exceptions_len,
				 uint32_t exception_count, double *out)
{
	CdcStatus	st;
	const uint8_t *values = exception_count == 0 ? exceptions :
		exceptions + 4 * (size_t) exception_count;	/* no NULL + 0 */

	if (exponent > CDC_ALP_MAX_EXPONENT64 || factor > CDC_ALP_MAX_EXPONENT64)
		return CDC_ERR_CORRUPT;
	st = check_exceptions(exceptions_len, exception_count, 8, exceptions, count);
	if (st != CDC_OK)
		return st;
	if (cdc_isa_current() >= CDC_ISA_AVX2)
		alp_decode64_avx2(ints, count, F10_64[factor], IF10_64[exponent], out);
	else
		alp_decode64_scalar(ints, count, F10_64[factor], IF10_64[exponent], out);
	for (uint32_t i = 0; i < exception_count; i++)
		out[cdc_load32(exceptions + 4 * (size_t) i)] =
			from_bits64(cdc_load64(values + 8 * (size_t) i));
	return CDC_OK;
}

CdcStatus
cdc_alp_decode32(const int32_t *ints, size_t count, unsigned exponent,
				 unsigned factor, const uint8_t *exceptions, size_t exceptions_len,
				 uint32_t exception_count, float *out)
{
	CdcStatus	st;
	const uint8_t *values = exception_count == 0 ? exceptions :
		exceptions + 4 * (size_t) exception_count;	/* no NULL + 0 */

	if (exponent > CDC_ALP_MAX_EXPONENT32 || factor > CDC_ALP_MAX_EXPONENT32)
		return CDC_ERR_CORRUPT;
	st = check_exceptions(exceptions_len, exception_count, 4, exceptions, count);
	if (st != CDC_OK)
		return st;
	if (cdc_isa_current() >= CDC_ISA_AVX2)
		alp_decode32_avx2(ints, count, F10_32[factor], IF10_32[exponent], out);
	else
		alp_decode32_scalar(ints, count, F10_32[factor], IF10_32[exponent], out);
	for (uint32_t i = 0; i < exception_count; i++)
		out[cdc_load32(exceptions + 4 * (size_t) i)] =
			from_bits32(cdc_load32(values + 4 * (size_t) i));
	return CDC_OK;
}

CdcStatus
cdc_alp_ffor_decode64(const uint8_t *packed, size_t packed_len, unsigned width,
					  uint64_t reference, size_t count, unsigned exponent,
					  unsigned factor, const uint8_t *exceptions,
					  size_t exceptions_len, uint32_t exception_count, double *out)
{
	int64_t		ints[CDC_FL_CHUNK];
	size_t		chunk_bytes = (size_t) 128 * width;
	bool		avx2 = cdc_isa_current() >= CDC_ISA_AVX2;
	const uint8_t *values = exception_count == 0 ? exceptions :
		exceptions + 4 * (size_t) exception_count;	/* no NULL + 0 */
	CdcStatus	st;

	if (exponent > CDC_ALP_MAX_EXPONENT64 || factor > CDC_ALP_MAX_EXPONENT64 ||
		width > 64)
		return CDC_ERR_CORRUPT;
	if (packed_len < cdc_fl_packed_size(count, width))
		return CDC_ERR_TRUNCATED;
	if (packed_len > cdc_fl_packed_size(count, width))
		return CDC_ERR_CORRUPT;
	st = check_exceptions(exceptions_len, exception_count, 8, exceptions, count);
	if (st != CDC_OK)
		return st;
	for (size_t start = 0; start < count; start += CDC_FL_CHUNK)
	{
		size_t		n = count - start < CDC_FL_CHUNK ? count - start : CDC_FL_CHUNK;

		/* a one-chunk slice: its size check cannot fail */
		st = cdc_ffor_decode64(packed + start / CDC_FL_CHUNK * chunk_bytes, chunk_bytes,
							   width, reference, (uint64_t *) ints, n);
		if (st != CDC_OK)
			return st;
		if (avx2)
			alp_decode64_avx2(ints, n, F10_64[factor], IF10_64[exponent], out + start);
		else
			alp_decode64_scalar(ints, n, F10_64[factor], IF10_64[exponent], out + start);
	}
	for (uint32_t i = 0; i < exception_count; i++)
		out[cdc_load32(exceptions + 4 * (size_t) i)] =
			from_bits64(cdc_load64(values + 8 * (size_t) i));
	return CDC_OK;
}

/* ----------------------------------------------------------------
 * ALP encoders
 * ----------------------------------------------------------------
 */

/* Encode one value; false if it must be an exception. */
static inline bool
alp_try64(double v, unsigned e, unsigned f, int64_t *k)
{
	double		scaled = v * F10_64[e] * IF10_64[f];
	double		rounded;
	int64_t		n;

	/* also rejects NaN and infinities */
	if (!(fabs(scaled) < 2251799813685248.0))	/* 2^51 */
		return false;
	rounded = (scaled + MAGIC64) - MAGIC64;
	n = (int64_t) rounded;
	if (bits64((double) n * F10_64[f] * IF10_64[e]) != bits64(v))
		return false;
	*k = n;
	return true;
}

static inline bool
alp_try32(float v, unsigned e, unsigned f, int32_t *k)
{
	float		scaled = v * F10_32[e] * IF10_32[f];
	float		rounded;
	int32_t		n;

	if (!(fabsf(scaled) < 4194304.0f))	/* 2^22 */
		return false;
	rounded = (scaled + MAGIC32) - MAGIC32;
	n = (int32_t) rounded;
	if (bits32((float) n * F10_32[f] * IF10_32[e]) != bits32(v))
		return false;
	*k = n;
	return true;
}

/* Sample stride: at most CDC_ALP_SAMPLE values spread over the input. */
static size_t
sample_step(size_t count)
{
	return count <= CDC_ALP_SAMPLE ? 1 : (count + CDC_ALP_SAMPLE - 1) / CDC_ALP_SAMPLE;
}

#define DEFINE_ALP_ENCODE(BITS, FT, IT, UT, MAXE) \
void \
cdc_alp_choose##BITS(const FT *in, size_t count, CdcAlpParams *params) \
{ \
	size_t		step = sample_step(count); \
	uint64_t	best = UINT64_MAX; \
\
	params->exponent = 0; \
	params->factor = 0; \
	for (unsigned e = 0; e <= MAXE; e++) \
		for (unsigned f = 0; f <= e; f++) \
		{ \
			size_t		exc = 0, \
						n = 0; \
			IT			lo = 0, \
						hi = 0; \
			bool		any = false; \
			uint64_t	cost; \
\
			for (size_t i = 0; i < count; i += step) \
			{ \
				IT			k; \
\
				n++; \
				if (!alp_try##BITS(in[i], e, f, &k)) \
				{ \
					exc++; \
					continue; \
				} \
				if (!any || k < lo) \
					lo = k; \
				if (!any || k > hi) \
					hi = k; \
				any = true; \
			} \
			cost = (uint64_t) n * bit_length64((UT) ((UT) hi - (UT) lo)) + \
				(uint64_t) exc * (32 + BITS); \
			if (cost < best) \
			{ \
				best = cost; \
				params->exponent = (uint8_t) e; \
				params->factor = (uint8_t) f; \
			} \
		} \
} \
\
size_t \
cdc_alp_encode##BITS(const FT *in, size_t count, CdcAlpParams params, \
					 IT *ints, uint32_t *exc_positions, FT *exc_values) \
{ \
	size_t		exc = 0; \
	IT			fill = 0; \
	bool		have_fill = false; \
\
	for (size_t i = 0; i < count; i++) \
	{ \
		IT			k; \
\
		if (alp_try##BITS(in[i], params.exponent, params.factor, &k)) \
		{ \
			ints[i] = k; \
			if (!have_fill) \
			{ \
				fill = k; \
				have_fill = true; \
			} \
		} \
		else \
		{ \
			exc_positions[exc] = (uint32_t) i; \
			exc_values[exc] = in[i]; \
			exc++; \
		} \
	} \
	for (size_t j = 0; j < exc; j++) \
		ints[exc_positions[j]] = fill; \
	return exc; \
} \
\
CdcStatus \
cdc_alp_write_exceptions##BITS(const uint32_t *positions, const FT *values, \
							   size_t exception_count, uint8_t *out, \
							   size_t out_cap, size_t *written) \
{ \
	size_t		need = exception_count * (4 + sizeof(FT)); \
\
	*written = 0; \
	if (out_cap < need) \
		return CDC_ERR_OUTPUT_FULL; \
	memcpy(out, positions, exception_count * 4); \
	memcpy(out + exception_count * 4, values, exception_count * sizeof(FT)); \
	*written = need; \
	return CDC_OK; \
}

DEFINE_ALP_ENCODE(64, double, int64_t, uint64_t, ALP_SEARCH_MAX_E64)
DEFINE_ALP_ENCODE(32, float, int32_t, uint32_t, ALP_SEARCH_MAX_E32)

/* ----------------------------------------------------------------
 * ALPRD
 * ----------------------------------------------------------------
 */
static CDC_ALWAYS_INLINE uint16_t
max_u16(const uint16_t *restrict codes, size_t count)
{
	uint16_t	m = 0;

	for (size_t i = 0; i < count; i++)
		m = codes[i] > m ? codes[i] : m;
	return m;
}

#define DEFINE_ALPRD_DECODE(BITS, FT, UT) \
static CDC_ALWAYS_INLINE void \
alprd_body##BITS(const uint16_t *restrict codes, const UT *restrict right, \
				 size_t count, unsigned R, const UT *restrict dict, \
				 UT *restrict out) \
{ \
	for (size_t i = 0; i < count; i++) \
		out[i] = (UT) (dict[codes[i]] << R) | right[i]; \
} \
\
static void \
alprd_scalar##BITS(const uint16_t *codes, const UT *right, size_t count, \
				   unsigned R, const UT *dict, UT *out) \
{ \
	alprd_body##BITS(codes, right, count, R, dict, out); \
} \
\
static AVX2_FN void \
alprd_avx2##BITS(const uint16_t *codes, const UT *right, size_t count, \
				 unsigned R, const UT *dict, UT *out) \
{ \
	alprd_body##BITS(codes, right, count, R, dict, out); \
} \
\
CdcStatus \
cdc_alprd_decode##BITS(const uint16_t *left_codes, const UT *right_parts, \
					   size_t count, unsigned right_bit_width, \
					   const uint8_t *dict, unsigned dict_len, \
					   const uint8_t *exceptions, size_t exceptions_len, \
					   uint32_t exception_count, FT *out) \
{ \
	UT			dict_values[CDC_ALPRD_MAX_DICT]; \
	const uint8_t *lefts = exception_count == 0 ? exceptions : \
		exceptions + 4 * (size_t) exception_count; \
	UT		   *bits_out = (UT *) out; \
	CdcStatus	st; \
\
	if (right_bit_width == 0 || right_bit_width >= BITS || \
		dict_len > CDC_ALPRD_MAX_DICT) \
		return CDC_ERR_CORRUPT; \
	st = check_exceptions(exceptions_len, exception_count, 2, exceptions, count); \
	if (st != CDC_OK) \
		return st; \
	if (count == 0) \
		return CDC_OK; \
	if (dict_len == 0 || max_u16(left_codes, count) >= dict_len) \
		return CDC_ERR_CORRUPT; \
	for (unsigned i = 0; i < dict_len; i++) \
		dict_values[i] = (UT) (dict[2 * i] | (dict[2 * i + 1] << 8)); \
	if (cdc_isa_current() >= CDC_ISA_AVX2) \
		alprd_avx2##BITS(left_codes, right_parts, count, right_bit_width, \
						 dict_values, bits_out); \
	else \
		alprd_scalar##BITS(left_codes, right_parts, count, right_bit_width, \
						   dict_values, bits_out); \
	for (uint32_t i = 0; i < exception_count; i++) \
	{ \
		uint32_t	pos = cdc_load32(exceptions + 4 * (size_t) i); \
		UT			left = (UT) (lefts[2 * i] | (lefts[2 * i + 1] << 8)); \
\
		bits_out[pos] = (UT) (left << right_bit_width) | right_parts[pos]; \
	} \
	return CDC_OK; \
}

DEFINE_ALPRD_DECODE(64, double, uint64_t)
DEFINE_ALPRD_DECODE(32, float, uint32_t)

static int
cmp_u16(const void *a, const void *b)
{
	return (int) *(const uint16_t *) a - (int) *(const uint16_t *) b;
}

/*
 * Search: for every left width p (1..16), sort the sample's left parts,
 * count distinct values, keep the up to 8 most frequent, and estimate
 * bits = n * (R + code width) + exceptions * (32 + 16).
 */
#define DEFINE_ALPRD_ENCODE(BITS, FT, UT, BITSFN) \
void \
cdc_alprd_choose##BITS(const FT *in, size_t count, CdcAlprdParams *params) \
{ \
	uint16_t	lefts[CDC_ALP_SAMPLE]; \
	size_t		step = sample_step(count); \
	uint64_t	best = UINT64_MAX; \
\
	memset(params, 0, sizeof(*params)); \
	params->right_bit_width = BITS - 16; \
	params->dict_len = 1; \
	for (unsigned p = 1; p <= 16; p++) \
	{ \
		unsigned	R = BITS - p; \
		size_t		n = 0; \
		uint16_t	top[CDC_ALPRD_MAX_DICT]; \
		size_t		top_freq[CDC_ALPRD_MAX_DICT]; \
		unsigned	ntop = 0; \
\
		for (size_t i = 0; i < count && n < CDC_ALP_SAMPLE; i += step) \
			lefts[n++] = (uint16_t) (BITSFN(in[i]) >> R); \
		qsort(lefts, n, sizeof(uint16_t), cmp_u16); \
		/* keep the 8 most frequent runs (insertion into a small list) */ \
		for (size_t i = 0; i < n;) \
		{ \
			size_t		j = i; \
			unsigned	pos; \
\
			while (j < n && lefts[j] == lefts[i]) \
				j++; \
			pos = ntop; \
			while (pos > 0 && top_freq[pos - 1] < j - i) \
				pos--; \
			if (pos < CDC_ALPRD_MAX_DICT) \
			{ \
				unsigned	last = ntop < CDC_ALPRD_MAX_DICT ? ntop : CDC_ALPRD_MAX_DICT - 1; \
\
				for (unsigned k = last; k > pos; k--) \
				{ \
					top[k] = top[k - 1]; \
					top_freq[k] = top_freq[k - 1]; \
				} \
				top[pos] = lefts[i]; \
				top_freq[pos] = j - i; \
				if (ntop < CDC_ALPRD_MAX_DICT) \
					ntop++; \
			} \
			i = j; \
		} \
		/* best dictionary size for this split */ \
		{ \
			size_t		covered = 0; \
\
			for (unsigned d = 1; d <= ntop; d++) \
			{ \
				uint64_t	cost; \
\
				covered += top_freq[d - 1]; \
				cost = (uint64_t) n * (R + bit_length64(d - 1)) + \
					(uint64_t) (n - covered) * (32 + 16) + 16 * d; \
				if (cost < best) \
				{ \
					best = cost; \
					params->right_bit_width = (uint8_t) R; \
					params->dict_len = (uint8_t) d; \
					memcpy(params->dict, top, d * sizeof(uint16_t)); \
				} \
			} \
		} \
	} \
} \
\
size_t \
cdc_alprd_encode##BITS(const FT *in, size_t count, \
					   const CdcAlprdParams *params, uint16_t *left_codes, \
					   UT *right_parts, uint32_t *exc_positions, \
					   uint16_t *exc_left) \
{ \
	unsigned	R = params->right_bit_width; \
	UT			rmask = (UT) (((UT) 1 << R) - 1); \
	size_t		exc = 0; \
\
	for (size_t i = 0; i < count; i++) \
	{ \
		UT			b = BITSFN(in[i]); \
		uint16_t	left = (uint16_t) (b >> R); \
		unsigned	c = 0; \
\
		while (c < params->dict_len && params->dict[c] != left) \
			c++; \
		right_parts[i] = b & rmask; \
		if (c < params->dict_len) \
			left_codes[i] = (uint16_t) c; \
		else \
		{ \
			left_codes[i] = 0; \
			exc_positions[exc] = (uint32_t) i; \
			exc_left[exc] = left; \
			exc++; \
		} \
	} \
	return exc; \
}

DEFINE_ALPRD_ENCODE(64, double, uint64_t, bits64)
DEFINE_ALPRD_ENCODE(32, float, uint32_t, bits32)

CdcStatus
cdc_alprd_write_dict(const CdcAlprdParams *params, uint8_t *out, size_t out_cap,
					 size_t *written)
{
	*written = 0;
	if (params->dict_len > CDC_ALPRD_MAX_DICT)
		return CDC_ERR_INVALID_ARGUMENT;
	if (out_cap < 2 * (size_t) params->dict_len)
		return CDC_ERR_OUTPUT_FULL;
	memcpy(out, params->dict, 2 * (size_t) params->dict_len);
	*written = 2 * (size_t) params->dict_len;
	return CDC_OK;
}

CdcStatus
cdc_alprd_write_exceptions(const uint32_t *positions, const uint16_t *left,
						   size_t exception_count, uint8_t *out, size_t out_cap,
						   size_t *written)
{
	size_t		need = exception_count * 6;

	*written = 0;
	if (out_cap < need)
		return CDC_ERR_OUTPUT_FULL;
	memcpy(out, positions, exception_count * 4);
	memcpy(out + exception_count * 4, left, exception_count * 2);
	*written = need;
	return CDC_OK;
}
