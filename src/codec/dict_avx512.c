/*-------------------------------------------------------------------------
 *
 * dict_avx512.c
 *	  AVX-512 kernels of dict.c: 32/64-bit dictionary gathers with the index
 *	  check fused in, and the unsigned max of an index array.
 *
 * Contract: cdc_gather{32,64}_avx512() write out[i] = dict[idx[i]] for
 * i < count and return true if every index is below dict_len (which must
 * be 1..INT32_MAX); otherwise they return false and out[0..count) holds
 * unspecified values.  They never read dict out of bounds, never read idx
 * or write out past count (tails use masked loads and stores), so they
 * need neither input padding nor output slack.
 *
 * Design notes: a separate max pass over the indexes costs as much as a
 * small-dictionary gather itself, so the check rides along: each vector of
 * 16 indexes is compared with dict_len (vpcmpud into a mask), out-of-range
 * lanes are ORed into a sticky "bad" mask that is tested once at the end.
 * Dictionaries that fit in registers skip memory entirely: 32-bit values
 * use vpermd (<= 16 entries), vpermi2d (<= 32) or two vpermi2d and a blend
 * on index bit 5 (<= 64); 64-bit values vpermq (<= 8) or vpermi2q (<= 16).
 * A permute only reads the low index bits, so an out-of-range index yields
 * some dictionary value (never a wild read) and the call still fails.
 * Larger dictionaries use masked vpgatherdd / vpgatherdq whose mask is the
 * in-range mask, so a hostile index is never dereferenced.
 *
 * IDENTIFICATION
 *	  src/codec/dict_avx512.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <immintrin.h>

#define AVX512_FN	__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

/* Lanes 0..n-1 set (n <= 16). */
static AVX512_FN inline __mmask16
lanes16(size_t n)
{
	return (__mmask16) ((1u << n) - 1);
}

AVX512_FN uint32_t
cdc_max_u32_avx512(const uint32_t *idx, size_t count)
{
	__m512i		m0 = _mm512_setzero_si512(),
				m1 = m0,
				m2 = m0,
				m3 = m0;
	size_t		i = 0;

	for (; i + 64 <= count; i += 64)
	{
		m0 = _mm512_max_epu32(m0, _mm512_loadu_si512(idx + i));
		m1 = _mm512_max_epu32(m1, _mm512_loadu_si512(idx + i + 16));
		m2 = _mm512_max_epu32(m2, _mm512_loadu_si512(idx + i + 32));
		m3 = _mm512_max_epu32(m3, _mm512_loadu_si512(idx + i + 48));
	}
	for (; i < count; i += 16)
	{
		size_t		left = count - i;

		m0 = _mm512_max_epu32(m0, _mm512_maskz_loadu_epi32(left >= 16 ? 0xFFFF : lanes16(left),
														   idx + i));
	}
	m0 = _mm512_max_epu32(_mm512_max_epu32(m0, m1), _mm512_max_epu32(m2, m3));
	return _mm512_reduce_max_epu32(m0);
}

/*
 * 32-bit gathers.  One body per strategy; `lookup` maps 16 indexes to 16
 * values.  The body handles the in-range check and the masked tail.
 */
#define GATHER32_LOOP(LOOKUP) \
	do { \
		for (; i + 32 <= count; i += 32) \
		{ \
			__m512i		a = _mm512_loadu_si512(idx + i); \
			__m512i		b = _mm512_loadu_si512(idx + i + 16); \
			bad |= _mm512_cmpge_epu32_mask(a, len) | _mm512_cmpge_epu32_mask(b, len); \
			_mm512_storeu_si512(out + i, LOOKUP(a, 0xFFFF)); \
			_mm512_storeu_si512(out + i + 16, LOOKUP(b, 0xFFFF)); \
		} \
		for (; i < count; i += 16) \
		{ \
			__mmask16	t = count - i >= 16 ? 0xFFFF : lanes16(count - i); \
			__m512i		a = _mm512_maskz_loadu_epi32(t, idx + i); \
			bad |= _mm512_mask_cmpge_epu32_mask(t, a, len); \
			_mm512_mask_storeu_epi32(out + i, t, LOOKUP(a, t)); \
		} \
	} while (0)

AVX512_FN bool
cdc_gather32_avx512(const uint32_t *dict, uint32_t dict_len, const uint32_t *idx,
					uint32_t *out, size_t count)
{
	const __m512i len = _mm512_set1_epi32((int) dict_len);
	__mmask16	bad = 0;
	size_t		i = 0;

	if (dict_len <= 16)
	{
		const __m512i t0 = _mm512_maskz_loadu_epi32(lanes16(dict_len), dict);

#define LOOKUP_PERM16(v, m)		_mm512_permutexvar_epi32((v), t0)
		GATHER32_LOOP(LOOKUP_PERM16);
	}
	else if (dict_len <= 32)
	{
		const __m512i t0 = _mm512_loadu_si512(dict);
		const __m512i t1 = _mm512_maskz_loadu_epi32(lanes16(dict_len - 16), dict + 16);

#define LOOKUP_PERM32(v, m)		_mm512_permutex2var_epi32(t0, (v), t1)
		GATHER32_LOOP(LOOKUP_PERM32);
	}
	else if (dict_len <= 64)
	{
		/* 33..64 entries: t2 may be partial and t3 empty; never read past
		 * the dictionary. */
		const __m512i t0 = _mm512_loadu_si512(dict);
		const __m512i t1 = _mm512_loadu_si512(dict + 16);
		const __m512i t2 = _mm512_maskz_loadu_epi32(lanes16(dict_len >= 48 ? 16 : dict_len - 32),
													dict + 32);
		const __m512i t3 = _mm512_maskz_loadu_epi32(lanes16(dict_len >= 48 ? dict_len - 48 : 0),
													dict + 48);
		const __m512i bit5 = _mm512_set1_epi32(32);

		/* entries 0..31 or 32..63, chosen by index bit 5 */
#define LOOKUP_PERM64(v, m) \
		_mm512_mask_blend_epi32(_mm512_test_epi32_mask((v), bit5), \
								_mm512_permutex2var_epi32(t0, (v), t1), \
								_mm512_permutex2var_epi32(t2, (v), t3))
		GATHER32_LOOP(LOOKUP_PERM64);
	}
	else
	{
		/* Only in-range lanes (and, in the tail, lanes below count) load. */
#define LOOKUP_GATHER(v, m) \
		_mm512_mask_i32gather_epi32(_mm512_setzero_si512(), \
									(__mmask16) ((m) & _mm512_cmplt_epu32_mask((v), len)), \
									(v), dict, 4)
		GATHER32_LOOP(LOOKUP_GATHER);
	}
	return bad == 0;
}

/*
 * 64-bit gathers: 16 indexes are loaded and checked at once, then looked
 * up as two halves of 8.
 */
#define GATHER64_LOOP(LOOKUP) \
	do { \
		for (; i < count; i += 16) \
		{ \
			__mmask16	t = count - i >= 16 ? 0xFFFF : lanes16(count - i); \
			__m512i		a = _mm512_maskz_loadu_epi32(t, idx + i); \
			__mmask16	ok = _mm512_mask_cmplt_epu32_mask(t, a, len); \
			__m512i		lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(a)); \
			__m512i		hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(a, 1)); \
			bad |= t & ~ok; \
			if (t == 0xFFFF) \
			{ \
				_mm512_storeu_si512(out + i, LOOKUP(lo, (__mmask8) ok)); \
				_mm512_storeu_si512(out + i + 8, LOOKUP(hi, (__mmask8) (ok >> 8))); \
			} \
			else \
			{ \
				_mm512_mask_storeu_epi64(out + i, (__mmask8) t, LOOKUP(lo, (__mmask8) ok)); \
				_mm512_mask_storeu_epi64(out + i + 8, (__mmask8) (t >> 8), \
										 LOOKUP(hi, (__mmask8) (ok >> 8))); \
			} \
		} \
	} while (0)

AVX512_FN bool
cdc_gather64_avx512(const uint64_t *dict, uint32_t dict_len, const uint32_t *idx,
					uint64_t *out, size_t count)
{
	const __m512i len = _mm512_set1_epi32((int) dict_len);
	__mmask16	bad = 0;
	size_t		i = 0;

	if (dict_len <= 8)
	{
		const __m512i t0 = _mm512_maskz_loadu_epi64((__mmask8) lanes16(dict_len), dict);

#define LOOKUP64_PERM8(v, ok)	_mm512_permutexvar_epi64((v), t0)
		GATHER64_LOOP(LOOKUP64_PERM8);
	}
	else if (dict_len <= 16)
	{
		const __m512i t0 = _mm512_loadu_si512(dict);
		const __m512i t1 = _mm512_maskz_loadu_epi64((__mmask8) lanes16(dict_len - 8), dict + 8);

#define LOOKUP64_PERM16(v, ok)	_mm512_permutex2var_epi64(t0, (v), t1)
		GATHER64_LOOP(LOOKUP64_PERM16);
	}
	else
	{
		/* The in-range mask already excludes lanes past count. */
#define LOOKUP64_GATHER(v, ok) \
		_mm512_mask_i64gather_epi64(_mm512_setzero_si512(), (ok), (v), dict, 8)
		GATHER64_LOOP(LOOKUP64_GATHER);
	}
	return bad == 0;
}
