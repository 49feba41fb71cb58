/*-------------------------------------------------------------------------
 *
 * byte_stream_split_avx2.c
 *	  AVX2 BYTE_STREAM_SPLIT decoders for widths 2 (FLOAT16), 4 and 8
 *	  (byte_stream_split.c).
 *
 * Design notes: 32 values per step.  One 32-byte load per stream, then an
 * unpack ladder (bytes, then 16-bit pairs, then for width 8 32-bit quads)
 * interleaves the streams inside each 128-bit lane: the low lane ends up
 * holding values 0..15 of the step, the high lane values 16..31, in
 * 4-value (or 2-value) pieces.  vperm2i128 then puts the pieces in order.
 * Every load stays inside the count values asked for; the tail is scalar.
 *
 * IDENTIFICATION
 *	  src/codec/byte_stream_split_avx2.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <immintrin.h>

#define AVX2_FN		__attribute__((target("avx2")))

static AVX2_FN inline __m256i
load(const uint8_t *p)
{
	return _mm256_loadu_si256((const __m256i_u *) p);
}

static AVX2_FN inline void
store(uint8_t *p, __m256i v)
{
	_mm256_storeu_si256((__m256i_u *) p, v);
}

AVX2_FN void
cdc_bss_decode2_avx2(const uint8_t *in, size_t stride, uint8_t *out, size_t count)
{
	size_t		i = 0;

	for (; i + 32 <= count; i += 32)
	{
		__m256i		s0 = load(in + i),
					s1 = load(in + stride + i);
		/* per lane: values 0..7 / 16..23, and 8..15 / 24..31 */
		__m256i		lo = _mm256_unpacklo_epi8(s0, s1),
					hi = _mm256_unpackhi_epi8(s0, s1);
		uint8_t    *o = out + 2 * i;

		store(o, _mm256_permute2x128_si256(lo, hi, 0x20));
		store(o + 32, _mm256_permute2x128_si256(lo, hi, 0x31));
	}
	for (; i < count; i++)
	{
		out[2 * i] = in[i];
		out[2 * i + 1] = in[stride + i];
	}
}

AVX2_FN void
cdc_bss_decode4_avx2(const uint8_t *in, size_t stride, uint8_t *out, size_t count)
{
	size_t		i = 0;

	for (; i + 32 <= count; i += 32)
	{
		__m256i		s0 = load(in + i),
					s1 = load(in + stride + i),
					s2 = load(in + 2 * stride + i),
					s3 = load(in + 3 * stride + i);
		/* per lane: values 0..7 / 8..15 as byte pairs (b0 b1), (b2 b3) */
		__m256i		p01lo = _mm256_unpacklo_epi8(s0, s1),
					p01hi = _mm256_unpackhi_epi8(s0, s1),
					p23lo = _mm256_unpacklo_epi8(s2, s3),
					p23hi = _mm256_unpackhi_epi8(s2, s3);
		/* per lane: whole values 0..3, 4..7, 8..11, 12..15 */
		__m256i		v0 = _mm256_unpacklo_epi16(p01lo, p23lo),
					v1 = _mm256_unpackhi_epi16(p01lo, p23lo),
					v2 = _mm256_unpacklo_epi16(p01hi, p23hi),
					v3 = _mm256_unpackhi_epi16(p01hi, p23hi);
		uint8_t    *o = out + 4 * i;

		store(o, _mm256_permute2x128_si256(v0, v1, 0x20));
		store(o + 32, _mm256_permute2x128_si256(v2, v3, 0x20));
		store(o + 64, _mm256_permute2x128_si256(v0, v1, 0x31));
		store(o + 96, _mm256_permute2x128_si256(v2, v3, 0x31));
	}
	for (; i < count; i++)
	{
		out[4 * i] = in[i];
		out[4 * i + 1] = in[stride + i];
		out[4 * i + 2] = in[2 * stride + i];
		out[4 * i + 3] = in[3 * stride + i];
	}
}

AVX2_FN void
cdc_bss_decode8_avx2(const uint8_t *in, size_t stride, uint8_t *out, size_t count)
{
	size_t		i = 0;

	for (; i + 32 <= count; i += 32)
	{
		__m256i		s[8],
					p[8],
					q[8],
					v[8];
		uint8_t    *o = out + 8 * i;

		for (int k = 0; k < 8; k++)
			s[k] = load(in + k * stride + i);
		/* byte pairs of streams (0,1) (2,3) (4,5) (6,7), values 0..7 / 8..15 */
		for (int k = 0; k < 4; k++)
		{
			p[2 * k] = _mm256_unpacklo_epi8(s[2 * k], s[2 * k + 1]);
			p[2 * k + 1] = _mm256_unpackhi_epi8(s[2 * k], s[2 * k + 1]);
		}
		/* byte quads of streams 0..3 and 4..7: values 0..3, 4..7, 8..11, 12..15 */
		q[0] = _mm256_unpacklo_epi16(p[0], p[2]);
		q[1] = _mm256_unpackhi_epi16(p[0], p[2]);
		q[2] = _mm256_unpacklo_epi16(p[1], p[3]);
		q[3] = _mm256_unpackhi_epi16(p[1], p[3]);
		q[4] = _mm256_unpacklo_epi16(p[4], p[6]);
		q[5] = _mm256_unpackhi_epi16(p[4], p[6]);
		q[6] = _mm256_unpacklo_epi16(p[5], p[7]);
		q[7] = _mm256_unpackhi_epi16(p[5], p[7]);
		/* whole values, two per lane: 0-1, 2-3, 4-5, ... 14-15 */
		for (int k = 0; k < 4; k++)
		{
			v[2 * k] = _mm256_unpacklo_epi32(q[k], q[k + 4]);
			v[2 * k + 1] = _mm256_unpackhi_epi32(q[k], q[k + 4]);
		}
		for (int k = 0; k < 4; k++)
		{
			store(o + 32 * k, _mm256_permute2x128_si256(v[2 * k], v[2 * k + 1], 0x20));
			store(o + 128 + 32 * k, _mm256_permute2x128_si256(v[2 * k], v[2 * k + 1], 0x31));
		}
	}
	for (; i < count; i++)
		for (int k = 0; k < 8; k++)
			out[8 * i + k] = in[k * stride + i];
}
