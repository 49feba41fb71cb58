/*-------------------------------------------------------------------------
 *
 * bitpack_avx512.c
 *	  AVX-512 (F+BW+VL) kernel: LSB-first bit unpacking to 32-bit values.
 *
 * Design notes: the AVX2 scheme (bitpack_avx2.c) widened to 16 lanes.
 * Sixteen values of width w occupy 2 * w <= 64 bytes, so one byte-masked
 * 512-bit load (vmovdqu8 with a mask of the group's bytes, which also
 * suppresses faults) holds a whole group and never reads past it.  vpermd
 * (16 lanes) brings each value's one or two words into its lane; variable
 * shifts and a mask finish it.  The partial last group is stored with a lane
 * mask, so this kernel neither over-reads nor over-writes.
 *
 * The development machine has no AVX-512: this file is compiled and
 * dispatched only when CPUID/XGETBV report AVX512F, BW and VL with ZMM
 * state, and the unit tests skip it elsewhere.
 *
 * IDENTIFICATION
 *	  src/codec/bitpack_avx512.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <immintrin.h>

#define AVX512_FN	__attribute__((target("avx512f,avx512bw,avx512vl")))

static CDC_ALWAYS_INLINE bool
group16_straddles(const unsigned w)
{
	for (unsigned j = 0; j < 16; j++)
		if ((j * w) % 32 + w > 32)
			return true;
	return false;
}

#define LANE_WORD(j, w)		((int) ((j) * (w) / 32))
#define LANE_SHIFT(j, w)	((int) ((j) * (w) % 32))

/* Decode the first `lanes` (1..16) values of a 16-value group. */
static CDC_ALWAYS_INLINE AVX512_FN void
unpack16_avx512(const uint8_t *in, uint32_t *out, const unsigned w,
				__mmask64 load_mask, __mmask16 store_mask,
				__m512i idx_lo, __m512i idx_hi, __m512i rshift,
				__m512i lshift, __m512i mask)
{
	__m512i		data = _mm512_maskz_loadu_epi8(load_mask, in);
	__m512i		v = _mm512_srlv_epi32(_mm512_permutexvar_epi32(idx_lo, data), rshift);

	if (group16_straddles(w))
		v = _mm512_or_si512(v, _mm512_sllv_epi32(_mm512_permutexvar_epi32(idx_hi, data),
												 lshift));
	_mm512_mask_storeu_epi32(out, store_mask, _mm512_and_si512(v, mask));
}

static CDC_ALWAYS_INLINE AVX512_FN void
unpack32_avx512_body(const uint8_t *in, uint32_t *out, size_t count,
					 const unsigned w)
{
	const __m512i idx_lo = _mm512_setr_epi32(LANE_WORD(0, w), LANE_WORD(1, w),
											 LANE_WORD(2, w), LANE_WORD(3, w),
											 LANE_WORD(4, w), LANE_WORD(5, w),
											 LANE_WORD(6, w), LANE_WORD(7, w),
											 LANE_WORD(8, w), LANE_WORD(9, w),
											 LANE_WORD(10, w), LANE_WORD(11, w),
											 LANE_WORD(12, w), LANE_WORD(13, w),
											 LANE_WORD(14, w), LANE_WORD(15, w));
	const __m512i idx_hi = _mm512_add_epi32(idx_lo, _mm512_set1_epi32(1));
	const __m512i rshift = _mm512_setr_epi32(LANE_SHIFT(0, w), LANE_SHIFT(1, w),
											 LANE_SHIFT(2, w), LANE_SHIFT(3, w),
											 LANE_SHIFT(4, w), LANE_SHIFT(5, w),
											 LANE_SHIFT(6, w), LANE_SHIFT(7, w),
											 LANE_SHIFT(8, w), LANE_SHIFT(9, w),
											 LANE_SHIFT(10, w), LANE_SHIFT(11, w),
											 LANE_SHIFT(12, w), LANE_SHIFT(13, w),
											 LANE_SHIFT(14, w), LANE_SHIFT(15, w));
	const __m512i lshift = _mm512_sub_epi32(_mm512_set1_epi32(32), rshift);
	const __m512i mask = _mm512_set1_epi32((int) (uint32_t) ((UINT64_C(1) << w) - 1));
	const __mmask64 group_bytes = (2 * w == 64) ? ~(__mmask64) 0
		: (((__mmask64) 1 << (2 * w)) - 1);
	size_t		i = 0;

	for (; i + 16 <= count; i += 16)
	{
		unpack16_avx512(in, out, w, group_bytes, 0xFFFF,
						idx_lo, idx_hi, rshift, lshift, mask);
		in += 2 * w;
		out += 16;
	}
	if (i < count)
	{
		size_t		left = count - i;
		size_t		nbytes = (left * w + 7) / 8;
		__mmask64	load_mask = nbytes >= 64 ? ~(__mmask64) 0
			: (((__mmask64) 1 << nbytes) - 1);

		unpack16_avx512(in, out, w, load_mask, (__mmask16) ((1u << left) - 1),
						idx_lo, idx_hi, rshift, lshift, mask);
	}
}

#define DEFINE_UNPACK32_AVX512(w) \
	static AVX512_FN void unpack32_avx512_##w(const uint8_t *in, uint32_t *out, size_t n) \
	{ unpack32_avx512_body(in, out, n, w); }
CDC_WIDTHS_0_32(DEFINE_UNPACK32_AVX512)

#define ENTRY_UNPACK32_AVX512(w) unpack32_avx512_##w,
const CdcUnpack32Fn cdc_unpack32_avx512_table[33] = {
	CDC_WIDTHS_0_32(ENTRY_UNPACK32_AVX512)
};
