/*-------------------------------------------------------------------------
 *
 * delta_binary_avx2.c
 *	  AVX2 prefix sums of DELTA_BINARY_PACKED miniblocks (delta_binary.c).
 *
 * Design notes: each vector of 8 (or 4) deltas gets min_delta added, then a
 * log-step scan inside each 128-bit lane (byte shifts), then the last
 * element of the low lane is added to the high lane, and finally the
 * running total of the previous vector is broadcast in.  Only that last
 * add and broadcast sit on the loop-carried chain; the in-vector scan of
 * the next vector overlaps with it.  Tails are scalar.
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

/* Inclusive scan of 4 lanes of 64 bits. */
static AVX2_FN inline __m256i
scan4x64(__m256i x)
{
	__m256i		low_last;

	x = _mm256_add_epi64(x, _mm256_slli_si256(x, 8));
	low_last = _mm256_permute2x128_si256(x, x, 0x08);
	low_last = _mm256_shuffle_epi32(low_last, 0xEE);
	return _mm256_add_epi64(x, low_last);
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
		__m256i		a = _mm256_loadu_si256((const __m256i *) (v + i));
		__m256i		b = _mm256_loadu_si256((const __m256i *) (v + i + 8));

		a = scan8x32(_mm256_add_epi32(a, md));
		b = scan8x32(_mm256_add_epi32(b, md));
		a = _mm256_add_epi32(a, carry);
		_mm256_storeu_si256((__m256i *) (v + i), a);
		carry = _mm256_permutevar8x32_epi32(a, last);
		b = _mm256_add_epi32(b, carry);
		_mm256_storeu_si256((__m256i *) (v + i + 8), b);
		carry = _mm256_permutevar8x32_epi32(b, last);
	}
	for (; i + 8 <= n; i += 8)
	{
		__m256i		a = _mm256_loadu_si256((const __m256i *) (v + i));

		a = _mm256_add_epi32(scan8x32(_mm256_add_epi32(a, md)), carry);
		_mm256_storeu_si256((__m256i *) (v + i), a);
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

AVX2_FN uint64_t
cdc_delta_prefix64_avx2(uint64_t *v, size_t n, uint64_t min_delta, uint64_t prev)
{
	const __m256i md = _mm256_set1_epi64x((long long) min_delta);
	__m256i		carry = _mm256_set1_epi64x((long long) prev);
	size_t		i = 0;

	for (; i + 8 <= n; i += 8)
	{
		__m256i		a = _mm256_loadu_si256((const __m256i *) (v + i));
		__m256i		b = _mm256_loadu_si256((const __m256i *) (v + i + 4));

		a = scan4x64(_mm256_add_epi64(a, md));
		b = scan4x64(_mm256_add_epi64(b, md));
		a = _mm256_add_epi64(a, carry);
		_mm256_storeu_si256((__m256i *) (v + i), a);
		carry = _mm256_permute4x64_epi64(a, 0xFF);
		b = _mm256_add_epi64(b, carry);
		_mm256_storeu_si256((__m256i *) (v + i + 4), b);
		carry = _mm256_permute4x64_epi64(b, 0xFF);
	}
	for (; i + 4 <= n; i += 4)
	{
		__m256i		a = _mm256_loadu_si256((const __m256i *) (v + i));

		a = _mm256_add_epi64(scan4x64(_mm256_add_epi64(a, md)), carry);
		_mm256_storeu_si256((__m256i *) (v + i), a);
		carry = _mm256_permute4x64_epi64(a, 0xFF);
	}
	prev = (uint64_t) _mm256_extract_epi64(carry, 0);
	for (; i < n; i++)
	{
		prev += min_delta + v[i];
		v[i] = prev;
	}
	return prev;
}
