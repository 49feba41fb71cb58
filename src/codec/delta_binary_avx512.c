/*-------------------------------------------------------------------------
 *
 * delta_binary_avx512.c
 *	  AVX-512 (F) prefix sums of DELTA_BINARY_PACKED miniblocks
 *	  (delta_binary.c), INT32 and INT64.
 *
 * Design notes: the AVX2 scheme (delta_binary_avx2.c) on 16 lanes.  Each
 * vector of deltas gets min_delta added, then a log-step scan over the
 * whole register: valignd/valignq against zero shifts the vector up by
 * 1, 2, 4 (and 8) lanes across 128-bit lanes, so no lane fix-up is needed.
 * Two vectors are scanned per step and the second gets the first's total
 * before the carry, so the loop-carried chain is one add and one
 * broadcast per 32 (INT32) or 16 (INT64) values; a 32-value miniblock is
 * one INT32 step.  The last partial vectors use lane-masked loads and
 * stores: lanes past n are loaded as zero, scanned (they only feed lanes
 * above them) and never stored, so nothing past v[n) is touched.
 *
 * IDENTIFICATION
 *	  src/codec/delta_binary_avx512.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/delta.h"

#include <immintrin.h>

#define AVX512_FN	__attribute__((target("avx512f,avx512bw,avx512vl")))

/* Inclusive scan of 16 lanes of 32 bits (wrapping). */
static AVX512_FN inline __m512i
scan16x32(__m512i x)
{
	const __m512i z = _mm512_setzero_si512();

	/* valignd(x, z, 16 - k): lane i gets x[i - k], zero below k */
	x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 15));
	x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 14));
	x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 12));
	return _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 8));
}

/* Inclusive scan of 8 lanes of 64 bits (wrapping). */
static AVX512_FN inline __m512i
scan8x64(__m512i x)
{
	const __m512i z = _mm512_setzero_si512();

	x = _mm512_add_epi64(x, _mm512_alignr_epi64(x, z, 7));
	x = _mm512_add_epi64(x, _mm512_alignr_epi64(x, z, 6));
	return _mm512_add_epi64(x, _mm512_alignr_epi64(x, z, 4));
}

/* Same contract as cdc_delta_prefix32_avx2 (delta.h). */
AVX512_FN uint32_t
cdc_delta_prefix32_avx512(uint32_t *v, size_t n, uint32_t min_delta, uint32_t prev)
{
	const __m512i md = _mm512_set1_epi32((int) min_delta);
	const __m512i last = _mm512_set1_epi32(15);
	__m512i		carry = _mm512_set1_epi32((int) prev);
	size_t		i = 0;

	for (; i + 32 <= n; i += 32)
	{
		__m512i		a = _mm512_loadu_si512(v + i);
		__m512i		b = _mm512_loadu_si512(v + i + 16);

		/* Both scans and b's offset are off the carried chain ... */
		a = scan16x32(_mm512_add_epi32(a, md));
		b = scan16x32(_mm512_add_epi32(b, md));
		b = _mm512_add_epi32(b, _mm512_permutexvar_epi32(last, a));
		/* ... which is one add and one broadcast per 32 values. */
		a = _mm512_add_epi32(a, carry);
		b = _mm512_add_epi32(b, carry);
		_mm512_storeu_si512(v + i, a);
		_mm512_storeu_si512(v + i + 16, b);
		carry = _mm512_permutexvar_epi32(last, b);
	}
	for (; i < n; i += 16)
	{
		size_t		k = n - i < 16 ? n - i : 16;
		__mmask16	m = (__mmask16) ((1u << k) - 1);
		__m512i		a = _mm512_maskz_loadu_epi32(m, v + i);

		a = _mm512_add_epi32(scan16x32(_mm512_add_epi32(a, md)), carry);
		_mm512_mask_storeu_epi32(v + i, m, a);
		carry = _mm512_permutexvar_epi32(_mm512_set1_epi32((int) k - 1), a);
	}
	return (uint32_t) _mm_cvtsi128_si32(_mm512_castsi512_si128(carry));
}

/* The INT64 version: v[i] = prev + sum over j <= i of (min_delta + v[j]). */
AVX512_FN uint64_t
cdc_delta_prefix64_avx512(uint64_t *v, size_t n, uint64_t min_delta, uint64_t prev)
{
	const __m512i md = _mm512_set1_epi64((long long) min_delta);
	const __m512i last = _mm512_set1_epi64(7);
	__m512i		carry = _mm512_set1_epi64((long long) prev);
	size_t		i = 0;

	for (; i + 16 <= n; i += 16)
	{
		__m512i		a = _mm512_loadu_si512(v + i);
		__m512i		b = _mm512_loadu_si512(v + i + 8);

		a = scan8x64(_mm512_add_epi64(a, md));
		b = scan8x64(_mm512_add_epi64(b, md));
		b = _mm512_add_epi64(b, _mm512_permutexvar_epi64(last, a));
		a = _mm512_add_epi64(a, carry);
		b = _mm512_add_epi64(b, carry);
		_mm512_storeu_si512(v + i, a);
		_mm512_storeu_si512(v + i + 8, b);
		carry = _mm512_permutexvar_epi64(last, b);
	}
	for (; i < n; i += 8)
	{
		size_t		k = n - i < 8 ? n - i : 8;
		__mmask8	m = (__mmask8) ((1u << k) - 1);
		__m512i		a = _mm512_maskz_loadu_epi64(m, v + i);

		a = _mm512_add_epi64(scan8x64(_mm512_add_epi64(a, md)), carry);
		_mm512_mask_storeu_epi64(v + i, m, a);
		carry = _mm512_permutexvar_epi64(_mm512_set1_epi64((long long) k - 1), a);
	}
	return (uint64_t) _mm_cvtsi128_si64(_mm512_castsi512_si128(carry));
}
