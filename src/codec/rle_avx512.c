/*-------------------------------------------------------------------------
 *
 * rle_avx512.c
 *	  AVX-512 (F+BW) run fills of the RLE / bit-packing hybrid decoder
 *	  (rle.c): 32-bit values and 16-bit levels.
 *
 * Design notes: repeated runs in dictionary indexes and levels are short
 * (often 8..64 values), so the cost of a fill is mostly its tail.  The
 * AVX2 fill (bitpack_avx2.c) rounds the tail up to a whole 8-value store
 * into the output slack; here the tail is one lane-masked store, so these
 * fills write exactly count values and need no slack.  Full 64-byte
 * stores go four at a time.
 *
 * IDENTIFICATION
 *	  src/codec/rle_avx512.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <immintrin.h>

#define AVX512_FN	__attribute__((target("avx512f,avx512bw,avx512vl")))

/* out[0..count) = value; writes nothing past count. */
AVX512_FN void
cdc_fill32_avx512(uint32_t *out, uint32_t value, size_t count)
{
	const __m512i v = _mm512_set1_epi32((int) value);
	size_t		i = 0;

	for (; i + 64 <= count; i += 64)
	{
		_mm512_storeu_si512(out + i, v);
		_mm512_storeu_si512(out + i + 16, v);
		_mm512_storeu_si512(out + i + 32, v);
		_mm512_storeu_si512(out + i + 48, v);
	}
	for (; i + 16 <= count; i += 16)
		_mm512_storeu_si512(out + i, v);
	if (i < count)
		_mm512_mask_storeu_epi32(out + i, (__mmask16) ((1u << (count - i)) - 1), v);
}

/* out[0..count) = value (16-bit levels); writes nothing past count. */
AVX512_FN void
cdc_fill16_avx512(int16_t *out, int16_t value, size_t count)
{
	const __m512i v = _mm512_set1_epi16(value);
	size_t		i = 0;

	for (; i + 128 <= count; i += 128)
	{
		_mm512_storeu_si512(out + i, v);
		_mm512_storeu_si512(out + i + 32, v);
		_mm512_storeu_si512(out + i + 64, v);
		_mm512_storeu_si512(out + i + 96, v);
	}
	for (; i + 32 <= count; i += 32)
		_mm512_storeu_si512(out + i, v);
	if (i < count)
		_mm512_mask_storeu_epi16(out + i, (__mmask32) ((UINT32_C(1) << (count - i)) - 1), v);
}
