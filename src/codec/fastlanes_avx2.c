/*-------------------------------------------------------------------------
 *
 * fastlanes_avx2.c
 *	  AVX2 instances of the FastLanes chunk kernels.
 *
 * Design notes: the bodies in fastlanes_kernels.h are written so that the
 * compiler vectorizes the lane loop; compiled here under target("avx2") they
 * become 256-bit loops (32 u8, 16 u16, 8 u32 or 4 u64 values per shift, OR,
 * AND and add), with no intrinsics to maintain (CDC_VECTORIZE asks GCC
 * for its full vectorizer even in -O2 builds).  The dispatcher calls these only when
 * the CPU and OS support AVX2.
 *
 * IDENTIFICATION
 *	  src/codec/fastlanes_avx2.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/fastlanes_kernels.h"

#define FL_AVX2_FN	__attribute__((target("avx2"))) CDC_VECTORIZE

#define DEFINE_AVX2(T, BITS, W) \
static FL_AVX2_FN void \
fl_unpack##BITS##_w##W##_avx2(const T *in, T *out, T ref) \
{ \
	cdc_fl_unpack##BITS##_body(in, out, ref, W); \
}

#define DEF8(W) DEFINE_AVX2(uint8_t, 8, W)
#define DEF16(W) DEFINE_AVX2(uint16_t, 16, W)
#define DEF32(W) DEFINE_AVX2(uint32_t, 32, W)
#define DEF64(W) DEFINE_AVX2(uint64_t, 64, W)
CDC_FL_WIDTHS_8(DEF8)
CDC_FL_WIDTHS_16(DEF16)
CDC_FL_WIDTHS_32(DEF32)
CDC_FL_WIDTHS_64(DEF64)

#define REF8(W) fl_unpack8_w##W##_avx2,
#define REF16(W) fl_unpack16_w##W##_avx2,
#define REF32(W) fl_unpack32_w##W##_avx2,
#define REF64(W) fl_unpack64_w##W##_avx2,
const CdcFlUnpack8Fn cdc_fl_unpack8_avx2_table[9] = {CDC_FL_WIDTHS_8(REF8)};
const CdcFlUnpack16Fn cdc_fl_unpack16_avx2_table[17] = {CDC_FL_WIDTHS_16(REF16)};
const CdcFlUnpack32Fn cdc_fl_unpack32_avx2_table[33] = {CDC_FL_WIDTHS_32(REF32)};
const CdcFlUnpack64Fn cdc_fl_unpack64_avx2_table[65] = {CDC_FL_WIDTHS_64(REF64)};
