/*-------------------------------------------------------------------------
 *
 * dict_avx2.c
 *	  AVX2 kernels of dict.c: unsigned max of an index array and the
 *	  32/64-bit dictionary gathers.
 *
 * Design notes: the max runs four independent vpmaxud accumulators (32
 * indexes per iteration) to hide latency, then reduces; the tail is scalar.
 * Gathers issue vpgatherdd (8 lanes) / vpgatherdq (4 lanes); the caller has
 * already proved every index in range, and tails are scalar so no lane ever
 * reads an index past count.
 *
 * IDENTIFICATION
 *	  src/codec/dict_avx2.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <immintrin.h>

#define AVX2_FN		__attribute__((target("avx2")))

AVX2_FN uint32_t
cdc_max_u32_avx2(const uint32_t *idx, size_t count)
{
	__m256i		m0 = _mm256_setzero_si256(),
				m1 = m0,
				m2 = m0,
				m3 = m0;
	__m128i		r;
	uint32_t	m;
	size_t		i = 0;

	for (; i + 32 <= count; i += 32)
	{
		m0 = _mm256_max_epu32(m0, _mm256_loadu_si256((const __m256i_u *) (idx + i)));
		m1 = _mm256_max_epu32(m1, _mm256_loadu_si256((const __m256i_u *) (idx + i + 8)));
		m2 = _mm256_max_epu32(m2, _mm256_loadu_si256((const __m256i_u *) (idx + i + 16)));
		m3 = _mm256_max_epu32(m3, _mm256_loadu_si256((const __m256i_u *) (idx + i + 24)));
	}
	for (; i + 8 <= count; i += 8)
		m0 = _mm256_max_epu32(m0, _mm256_loadu_si256((const __m256i_u *) (idx + i)));
	m0 = _mm256_max_epu32(_mm256_max_epu32(m0, m1), _mm256_max_epu32(m2, m3));
	r = _mm_max_epu32(_mm256_castsi256_si128(m0), _mm256_extracti128_si256(m0, 1));
	r = _mm_max_epu32(r, _mm_shuffle_epi32(r, _MM_SHUFFLE(1, 0, 3, 2)));
	r = _mm_max_epu32(r, _mm_shuffle_epi32(r, _MM_SHUFFLE(2, 3, 0, 1)));
	m = (uint32_t) _mm_cvtsi128_si32(r);
	for (; i < count; i++)
		m = idx[i] > m ? idx[i] : m;
	return m;
}

AVX2_FN void
cdc_gather32_avx2(const uint32_t *dict, const uint32_t *idx,
				  uint32_t *out, size_t count)
{
	size_t		i = 0;

	for (; i + 16 <= count; i += 16)
	{
		__m256i		a = _mm256_loadu_si256((const __m256i_u *) (idx + i));
		__m256i		b = _mm256_loadu_si256((const __m256i_u *) (idx + i + 8));

		_mm256_storeu_si256((__m256i_u *) (out + i),
							_mm256_i32gather_epi32((const int *) dict, a, 4));
		_mm256_storeu_si256((__m256i_u *) (out + i + 8),
							_mm256_i32gather_epi32((const int *) dict, b, 4));
	}
	for (; i < count; i++)
		out[i] = dict[idx[i]];
}

AVX2_FN void
cdc_gather64_avx2(const uint64_t *dict, const uint32_t *idx,
				  uint64_t *out, size_t count)
{
	size_t		i = 0;

	for (; i + 8 <= count; i += 8)
	{
		__m128i		a = _mm_loadu_si128((const __m128i_u *) (idx + i));
		__m128i		b = _mm_loadu_si128((const __m128i_u *) (idx + i + 4));

		_mm256_storeu_si256((__m256i_u *) (out + i),
							_mm256_i32gather_epi64((const long long *) dict, a, 8));
		_mm256_storeu_si256((__m256i_u *) (out + i + 4),
							_mm256_i32gather_epi64((const long long *) dict, b, 8));
	}
	for (; i < count; i++)
		out[i] = dict[idx[i]];
}
