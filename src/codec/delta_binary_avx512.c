/*-------------------------------------------------------------------------
 *
 * delta_binary_avx512.c
 *	  AVX-512 (F) prefix sums of DELTA_BINARY_PACKED miniblocks
 *	  (delta_binary.c), INT32 and INT64.
 *
 * Design notes: the AVX2 scheme (delta_binary_avx2.c) widened.  Each
 * vector of deltas gets min_delta added, then a log-step scan: INT64 uses
 * valignq against zero (shift up by 1, 2, 4 lanes across the register);
 * INT32 scans inside 128-bit lanes, then across them (see scan16x32).
 * Two vectors are scanned per step and the second gets the first's total,
 * off the carried chain: INT64 carries a broadcast vector (one add and one
 * vpermq per 16 values), INT32 a scalar (one add per 32 values, i.e. per
 * usual miniblock).  The last partial vectors use lane-masked loads and
 * stores: lanes past n are loaded as zero, scanned (they only feed lanes
 * above them) and never stored, so nothing past v[n) is touched.
 *
 * Dispatch (delta_binary.c, bench/RESULTS.md): INT64 uses this under
 * avx512 (the AVX2 level has no INT64 scan: 4 lanes lost to scalar).
 * INT32 keeps the AVX2 scan, which the 16-lane one did not beat on the
 * development CPU (~8% slower: 512-bit shuffles at half rate); it is
 * unit tested against scalar for CPUs where it might.
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

/*
 * 16 values loaded as two 256-bit halves.  The unpack kernel that just
 * wrote them (AVX2: 256-bit stores) is usually still in the store buffer,
 * and a 512-bit load spanning two stores cannot be forwarded: it waits for
 * both to commit, which measured slower than scalar.
 */
static AVX512_FN inline __m512i
load_halves(const void *p)
{
	const __m256i_u *q = (const __m256i_u *) p;

	return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(q)),
							  _mm256_loadu_si256(q + 1), 1);
}

/*
 * Inclusive scan of 16 lanes of 32 bits (wrapping): in-lane first (byte
 * shifts, cheap), then a two-step scan over the four 128-bit lanes with
 * lane-masked vpermd broadcasts: lane L += last element of lane L - 1,
 * then lane L += last element of lane L - 2 (as updated by step one).  Two
 * cross-lane shuffles instead of the four of a full-width valignd ladder.
 */
static AVX512_FN inline __m512i
scan16x32(__m512i x)
{
	const __m512i below1 = _mm512_setr_epi32(0, 0, 0, 0, 3, 3, 3, 3,
											 7, 7, 7, 7, 11, 11, 11, 11);
	const __m512i below2 = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0,
											 3, 3, 3, 3, 7, 7, 7, 7);

	x = _mm512_add_epi32(x, _mm512_bslli_epi128(x, 4));
	x = _mm512_add_epi32(x, _mm512_bslli_epi128(x, 8));
	x = _mm512_add_epi32(x, _mm512_maskz_permutexvar_epi32(0xFFF0, below1, x));
	return _mm512_add_epi32(x, _mm512_maskz_permutexvar_epi32(0xFF00, below2, x));
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

/* Lane k of x as a scalar. */
static AVX512_FN inline uint32_t
lane32(__m512i x, int k)
{
	return (uint32_t) _mm_cvtsi128_si32(_mm512_castsi512_si128(
		_mm512_permutexvar_epi32(_mm512_set1_epi32(k), x)));
}

/*
 * Same contract as cdc_delta_prefix32_avx2 (delta.h).  The running value
 * is carried in a general register: each step's total (a vector lane
 * moved out) is computed off the chain, so from one step (and one
 * miniblock call) to the next the chain is a single scalar add.
 */
AVX512_FN uint32_t
cdc_delta_prefix32_avx512(uint32_t *v, size_t n, uint32_t min_delta, uint32_t prev)
{
	const __m512i md = _mm512_set1_epi32((int) min_delta);
	const __m512i last = _mm512_set1_epi32(15);
	size_t		i = 0;

	for (; i + 32 <= n; i += 32)
	{
		__m512i		a = load_halves(v + i);
		__m512i		b = load_halves(v + i + 16);
		__m512i		carry = _mm512_set1_epi32((int) prev);

		a = scan16x32(_mm512_add_epi32(a, md));
		b = scan16x32(_mm512_add_epi32(b, md));
		b = _mm512_add_epi32(b, _mm512_permutexvar_epi32(last, a));
		_mm512_storeu_si512(v + i, _mm512_add_epi32(a, carry));
		_mm512_storeu_si512(v + i + 16, _mm512_add_epi32(b, carry));
		prev += lane32(b, 15);
	}
	for (; i < n; i += 16)
	{
		size_t		k = n - i < 16 ? n - i : 16;
		__mmask16	m = (__mmask16) ((1u << k) - 1);
		__m512i		a = _mm512_maskz_loadu_epi32(m, v + i);

		a = scan16x32(_mm512_add_epi32(a, md));
		_mm512_mask_storeu_epi32(v + i, m,
								 _mm512_add_epi32(a, _mm512_set1_epi32((int) prev)));
		prev += lane32(a, (int) k - 1);
	}
	return prev;
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
