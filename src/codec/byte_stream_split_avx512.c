/*-------------------------------------------------------------------------
 *
 * byte_stream_split_avx512.c
 *	  AVX-512 (F+BW) BYTE_STREAM_SPLIT decoders for widths 2 (FLOAT16), 4
 *	  and 8 (byte_stream_split.c).
 *
 * Design notes: the AVX2 ladder (byte_stream_split_avx2.c) at 64 values
 * per step.  One 64-byte load per stream; vpunpck{l,h}{bw,wd,dq} interleave
 * the streams inside each 128-bit lane, so lane L of every ladder output
 * holds a 16-byte piece of values 16L..16L+15.  Putting the pieces in
 * order is a 4x4 transpose of 128-bit lanes (eight vshufi64x2; for width 2
 * two vpermt2q).  The last partial step runs the same code with byte-masked
 * loads and stores (masked-off lanes neither fault nor write), so the
 * kernels read only the count bytes of each stream asked for and write
 * exactly count * width bytes: no scalar tail, no padding, no slack.
 *
 * Not dispatched for now: on the development CPU (AMD, 512-bit shuffles
 * at half rate) they measured 2-11% slower than the AVX2 kernels, which
 * the avx512 level therefore keeps (bench/RESULTS.md; an AVX512_VBMI
 * vpermt2b variant was no better).  test_bss checks them against scalar
 * so a CPU with full-width shuffles can switch byte_stream_split.c over.
 * They may run only where dispatch.c grants CDC_ISA_AVX512.
 *
 * IDENTIFICATION
 *	  src/codec/byte_stream_split_avx512.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <immintrin.h>

#define AVX512_FN	__attribute__((target("avx512f,avx512bw,avx512vl")))

/* The low n bytes (n may exceed 64, or be 0). */
static AVX512_FN inline __mmask64
bytes_mask(size_t n)
{
	return n >= 64 ? ~(__mmask64) 0 : (((__mmask64) 1 << n) - 1);
}

static CDC_ALWAYS_INLINE AVX512_FN __m512i
load(const uint8_t *p, __mmask64 m, const bool tail)
{
	return tail ? _mm512_maskz_loadu_epi8(m, p) : _mm512_loadu_si512(p);
}

/* Store output vector j (bytes 64j..64j+63 of the step); in the tail only
 * the bytes below out_bytes. */
static CDC_ALWAYS_INLINE AVX512_FN void
store(uint8_t *o, int j, __m512i v, size_t out_bytes, const bool tail)
{
	size_t		off = (size_t) j * 64;

	if (!tail)
		_mm512_storeu_si512(o + off, v);
	else if (out_bytes > off)
		_mm512_mask_storeu_epi8(o + off, bytes_mask(out_bytes - off), v);
}

/*
 * Transpose 128-bit lanes: out[L] = [a.L, b.L, c.L, d.L].  Two rounds of
 * vshufi64x2, each picking two lanes from each of two sources.
 */
static CDC_ALWAYS_INLINE AVX512_FN void
transpose4x128(__m512i a, __m512i b, __m512i c, __m512i d, __m512i out[4])
{
	__m512i		ab01 = _mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(1, 0, 1, 0)),
				cd01 = _mm512_shuffle_i64x2(c, d, _MM_SHUFFLE(1, 0, 1, 0)),
				ab23 = _mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(3, 2, 3, 2)),
				cd23 = _mm512_shuffle_i64x2(c, d, _MM_SHUFFLE(3, 2, 3, 2));

	out[0] = _mm512_shuffle_i64x2(ab01, cd01, _MM_SHUFFLE(2, 0, 2, 0));
	out[1] = _mm512_shuffle_i64x2(ab01, cd01, _MM_SHUFFLE(3, 1, 3, 1));
	out[2] = _mm512_shuffle_i64x2(ab23, cd23, _MM_SHUFFLE(2, 0, 2, 0));
	out[3] = _mm512_shuffle_i64x2(ab23, cd23, _MM_SHUFFLE(3, 1, 3, 1));
}

/* One step of n <= 64 values (n = 64 unless tail). */
static CDC_ALWAYS_INLINE AVX512_FN void
step2(const uint8_t *in, size_t stride, uint8_t *o, size_t n, const bool tail)
{
	const __mmask64 m = bytes_mask(n);
	__m512i		s0 = load(in, m, tail),
				s1 = load(in + stride, m, tail);
	/* lane L: values 16L..16L+7 (lo) and 16L+8..16L+15 (hi) */
	__m512i		lo = _mm512_unpacklo_epi8(s0, s1),
				hi = _mm512_unpackhi_epi8(s0, s1);
	/* qword indexes: lo lane L = 2L, 2L+1; hi lane L = 8+2L, 9+2L */
	const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
	const __m512i second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);

	store(o, 0, _mm512_permutex2var_epi64(lo, first, hi), 2 * n, tail);
	store(o, 1, _mm512_permutex2var_epi64(lo, second, hi), 2 * n, tail);
}

static CDC_ALWAYS_INLINE AVX512_FN void
step4(const uint8_t *in, size_t stride, uint8_t *o, size_t n, const bool tail)
{
	const __mmask64 m = bytes_mask(n);
	__m512i		s0 = load(in, m, tail),
				s1 = load(in + stride, m, tail),
				s2 = load(in + 2 * stride, m, tail),
				s3 = load(in + 3 * stride, m, tail);
	/* lane L: byte pairs (b0 b1), (b2 b3) of values 16L..+7 / 16L+8..+15 */
	__m512i		p01lo = _mm512_unpacklo_epi8(s0, s1),
				p01hi = _mm512_unpackhi_epi8(s0, s1),
				p23lo = _mm512_unpacklo_epi8(s2, s3),
				p23hi = _mm512_unpackhi_epi8(s2, s3);
	/* lane L: whole values 16L+0..3, +4..7, +8..11, +12..15 */
	__m512i		v0 = _mm512_unpacklo_epi16(p01lo, p23lo),
				v1 = _mm512_unpackhi_epi16(p01lo, p23lo),
				v2 = _mm512_unpacklo_epi16(p01hi, p23hi),
				v3 = _mm512_unpackhi_epi16(p01hi, p23hi);
	__m512i		r[4];

	transpose4x128(v0, v1, v2, v3, r);
	for (int j = 0; j < 4; j++)
		store(o, j, r[j], 4 * n, tail);
}

static CDC_ALWAYS_INLINE AVX512_FN void
step8(const uint8_t *in, size_t stride, uint8_t *o, size_t n, const bool tail)
{
	const __mmask64 m = bytes_mask(n);
	__m512i		s[8],
				p[8],
				q[8],
				v[8],
				r[4];

	for (int k = 0; k < 8; k++)
		s[k] = load(in + k * stride, m, tail);
	/* byte pairs of streams (0,1) (2,3) (4,5) (6,7): values 16L..+7 / +8..+15 */
	for (int k = 0; k < 4; k++)
	{
		p[2 * k] = _mm512_unpacklo_epi8(s[2 * k], s[2 * k + 1]);
		p[2 * k + 1] = _mm512_unpackhi_epi8(s[2 * k], s[2 * k + 1]);
	}
	/* byte quads of streams 0..3 (q0..q3) and 4..7 (q4..q7) */
	for (int h = 0; h < 2; h++)
	{
		q[4 * h] = _mm512_unpacklo_epi16(p[4 * h], p[4 * h + 2]);
		q[4 * h + 1] = _mm512_unpackhi_epi16(p[4 * h], p[4 * h + 2]);
		q[4 * h + 2] = _mm512_unpacklo_epi16(p[4 * h + 1], p[4 * h + 3]);
		q[4 * h + 3] = _mm512_unpackhi_epi16(p[4 * h + 1], p[4 * h + 3]);
	}
	/* lane L of v[j]: whole values 16L+2j, 16L+2j+1 */
	for (int k = 0; k < 4; k++)
	{
		v[2 * k] = _mm512_unpacklo_epi32(q[k], q[k + 4]);
		v[2 * k + 1] = _mm512_unpackhi_epi32(q[k], q[k + 4]);
	}
	/* output vector 2L holds v0..v3 lane L, vector 2L+1 v4..v7 lane L */
	transpose4x128(v[0], v[1], v[2], v[3], r);
	for (int j = 0; j < 4; j++)
		store(o, 2 * j, r[j], 8 * n, tail);
	transpose4x128(v[4], v[5], v[6], v[7], r);
	for (int j = 0; j < 4; j++)
		store(o, 2 * j + 1, r[j], 8 * n, tail);
}

/* in = value 0 of stream 0, stream k at in + k * stride; count values. */
#define DEFINE_BSS_AVX512(W) \
AVX512_FN void \
cdc_bss_decode##W##_avx512(const uint8_t *in, size_t stride, uint8_t *out, \
						   size_t count) \
{ \
	size_t		i = 0; \
\
	for (; i + 64 <= count; i += 64) \
		step##W(in + i, stride, out + W * i, 64, false); \
	if (i < count) \
		step##W(in + i, stride, out + W * i, count - i, true); \
}

DEFINE_BSS_AVX512(2)
DEFINE_BSS_AVX512(4)
DEFINE_BSS_AVX512(8)
