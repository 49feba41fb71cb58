/*-------------------------------------------------------------------------
 *
 * delta_binary_avx2.c
 *	  AVX2 prefix sum of INT32 DELTA_BINARY_PACKED miniblocks
 *	  (delta_binary.c).
 *
 * Design notes: each vector of 8 deltas gets min_delta added, then a
 * log-step scan inside each 128-bit lane (byte shifts), then the last
 * element of the low lane is added to the high lane, and finally the
 * running total of the previous vectors is added in.  Two vectors are
 * scanned per step and the second gets the first's total before the
 * carry, so the loop-carried chain is one add and one broadcast per 16
 * values.  There is no 64-bit version: with four lanes the shuffles cost
 * more than the scalar chain of one add per value (measured 15-20% slower
 * than scalar even with the chain cut to one add per 16 values).  Tails
 * are scalar.
 *
 * IDENTIFICATION
 *	  src/codec/delta_binary_avx2.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/delta.h"

#include <immintrin.h>

#define AVX2_FN		__attribute__((target("avx2")))

/* Inclusive scan of 8 lanes of 32 bits. */
static AVX2_FN inline __m256i
scan8x32(__m256i x)
{
	__m256i		low_last;

	x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
	x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
	/* high lane += element 3: move the low lane up, broadcast its last. */
	low_last = _mm256_permute2x128_si256(x, x, 0x08);
	low_last = _mm256_shuffle_epi32(low_last, 0xFF);
	return _mm256_add_epi32(x, low_last);
}

AVX2_FN uint32_t
cdc_delta_prefix32_avx2(uint32_t *v, size_t n, uint32_t min_delta, uint32_t prev)
{
	const __m256i md = _mm256_set1_epi32((int) min_delta);
	const __m256i last = _mm256_set1_epi32(7);
	__m256i		carry = _mm256_set1_epi32((int) prev);
	size_t		i = 0;

	for (; i + 16 <= n; i += 16)
	{
		__m256i		a = _mm256_loadu_si256((const __m256i_u *) (v + i));
		__m256i		b = _mm256_loadu_si256((const __m256i_u *) (v + i + 8));
		__m256i		a_total;

		/* Both scans and b's offset are off the carried chain ... */
		a = scan8x32(_mm256_add_epi32(a, md));
		b = scan8x32(_mm256_add_epi32(b, md));
		a_total = _mm256_permutevar8x32_epi32(a, last);
		b = _mm256_add_epi32(b, a_total);
		/* ... which is one add per 16 values. */
		a = _mm256_add_epi32(a, carry);
		b = _mm256_add_epi32(b, carry);
		_mm256_storeu_si256((__m256i_u *) (v + i), a);
		_mm256_storeu_si256((__m256i_u *) (v + i + 8), b);
		carry = _mm256_permutevar8x32_epi32(b, last);
	}
	for (; i + 8 <= n; i += 8)
	{
		__m256i		a = _mm256_loadu_si256((const __m256i_u *) (v + i));

		a = _mm256_add_epi32(scan8x32(_mm256_add_epi32(a, md)), carry);
		_mm256_storeu_si256((__m256i_u *) (v + i), a);
		carry = _mm256_permutevar8x32_epi32(a, last);
	}
	prev = (uint32_t) _mm256_cvtsi256_si32(carry);
	for (; i < n; i++)
	{
		prev += min_delta + v[i];
		v[i] = prev;
	}
	return prev;
}
