/*-------------------------------------------------------------------------
 *
 * bitpack_avx2.c
 *	  AVX2 kernels: LSB-first bit unpacking to 32-bit values, and the run
 *	  fill the RLE decoder uses.
 *
 * Design notes: eight values of width w occupy exactly w bytes (<= 32), so
 * one unaligned 256-bit load holds a whole group.  Lane j needs bits
 * [j*w, j*w + w) of the group: 32-bit word j*w/32, shifted right by
 * j*w%32, plus, when the value straddles two words, the next word shifted
 * left by 32 - j*w%32.  vpermd gathers the words into lanes, vpsrlvd /
 * vpsllvd do the per-lane shifts (a left shift by 32 yields zero, so lanes
 * that do not straddle need no special case), one AND masks.  The width is
 * a compile-time constant in each instance, so the index and shift vectors
 * are constants and the second permute disappears for widths where no lane
 * straddles (1, 2, 3, 4, 8, 16, 32 ...).
 *
 * Reads: a group's load covers bytes [g*w, g*w + 32), at most 32 - w bytes
 * past the group; the partial last group is decoded as a full one into the
 * output slack, so reads stay within packed size + 32 <= in_len +
 * CDC_INPUT_PADDING.  Writes: at most 7 values past count.
 *
 * Compiled with per-function target attributes only; the dispatcher never
 * calls these unless the CPU and OS support AVX2.
 *
 * IDENTIFICATION
 *	  src/codec/bitpack_avx2.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <immintrin.h>

#define AVX2_FN		__attribute__((target("avx2,bmi2")))

/* Whether some lane of an 8-value group of width w spans two 32-bit words;
 * folds to a constant for a constant w. */
static CDC_ALWAYS_INLINE bool
group8_straddles(const unsigned w)
{
	for (unsigned j = 0; j < 8; j++)
		if ((j * w) % 32 + w > 32)
			return true;
	return false;
}

#define LANE_WORD(j, w)		((int) ((j) * (w) / 32))
#define LANE_SHIFT(j, w)	((int) ((j) * (w) % 32))

/* Decode one group of 8 values from `in` into `out`. */
static CDC_ALWAYS_INLINE AVX2_FN void
unpack8_avx2(const uint8_t *in, uint32_t *out, const unsigned w,
			 __m256i idx_lo, __m256i idx_hi, __m256i rshift, __m256i lshift,
			 __m256i mask)
{
	__m256i		data = _mm256_loadu_si256((const __m256i_u *) in);
	__m256i		v = _mm256_srlv_epi32(_mm256_permutevar8x32_epi32(data, idx_lo), rshift);

	if (group8_straddles(w))
		v = _mm256_or_si256(v, _mm256_sllv_epi32(_mm256_permutevar8x32_epi32(data, idx_hi),
												 lshift));
	_mm256_storeu_si256((__m256i_u *) out, _mm256_and_si256(v, mask));
}

static CDC_ALWAYS_INLINE AVX2_FN void
unpack32_avx2_body(const uint8_t *in, uint32_t *out, size_t count,
				   const unsigned w)
{
	const __m256i idx_lo = _mm256_setr_epi32(LANE_WORD(0, w), LANE_WORD(1, w),
											 LANE_WORD(2, w), LANE_WORD(3, w),
											 LANE_WORD(4, w), LANE_WORD(5, w),
											 LANE_WORD(6, w), LANE_WORD(7, w));
	const __m256i idx_hi = _mm256_add_epi32(idx_lo, _mm256_set1_epi32(1));
	const __m256i rshift = _mm256_setr_epi32(LANE_SHIFT(0, w), LANE_SHIFT(1, w),
											 LANE_SHIFT(2, w), LANE_SHIFT(3, w),
											 LANE_SHIFT(4, w), LANE_SHIFT(5, w),
											 LANE_SHIFT(6, w), LANE_SHIFT(7, w));
	const __m256i lshift = _mm256_sub_epi32(_mm256_set1_epi32(32), rshift);
	const __m256i mask = _mm256_set1_epi32((int) (uint32_t) ((UINT64_C(1) << w) - 1));
	size_t		i = 0;

	if (w == 0)
	{
		cdc_fill32_avx2(out, 0, count);
		return;
	}
	/* Four groups per iteration: 32 values from 4 * w bytes. */
	for (; i + 32 <= count; i += 32)
	{
		unpack8_avx2(in, out, w, idx_lo, idx_hi, rshift, lshift, mask);
		unpack8_avx2(in + w, out + 8, w, idx_lo, idx_hi, rshift, lshift, mask);
		unpack8_avx2(in + 2 * w, out + 16, w, idx_lo, idx_hi, rshift, lshift, mask);
		unpack8_avx2(in + 3 * w, out + 24, w, idx_lo, idx_hi, rshift, lshift, mask);
		in += 4 * w;
		out += 32;
	}
	/* Remaining groups, the last possibly partial (its surplus lands in the
	 * output slack). */
	for (; i < count; i += 8)
	{
		unpack8_avx2(in, out, w, idx_lo, idx_hi, rshift, lshift, mask);
		in += w;
		out += 8;
	}
}

#define DEFINE_UNPACK32_AVX2(w) \
	static AVX2_FN void unpack32_avx2_##w(const uint8_t *in, uint32_t *out, size_t n) \
	{ unpack32_avx2_body(in, out, n, w); }
CDC_WIDTHS_0_32(DEFINE_UNPACK32_AVX2)

#define ENTRY_UNPACK32_AVX2(w) unpack32_avx2_##w,
const CdcUnpack32Fn cdc_unpack32_avx2_table[33] = {
	CDC_WIDTHS_0_32(ENTRY_UNPACK32_AVX2)
};

/*
 * Fill out[0..count) with value; may write up to 7 values past count (the
 * callers' outputs carry CDC_OUTPUT_SLACK).
 */
AVX2_FN void
cdc_fill32_avx2(uint32_t *out, uint32_t value, size_t count)
{
	const __m256i v = _mm256_set1_epi32((int) value);
	size_t		i = 0;

	for (; i + 32 <= count; i += 32)
	{
		_mm256_storeu_si256((__m256i_u *) (out + i), v);
		_mm256_storeu_si256((__m256i_u *) (out + i + 8), v);
		_mm256_storeu_si256((__m256i_u *) (out + i + 16), v);
		_mm256_storeu_si256((__m256i_u *) (out + i + 24), v);
	}
	for (; i < count; i += 8)
		_mm256_storeu_si256((__m256i_u *) (out + i), v);
}
