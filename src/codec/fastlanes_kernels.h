/*-------------------------------------------------------------------------
 *
 * fastlanes_kernels.h
 *	  Internal: the FastLanes chunk kernels, written once as forced-inline
 *	  bodies and instantiated per type, width and ISA by fastlanes.c
 *	  (scalar) and fastlanes_avx2.c (the same bodies compiled for AVX2).
 *
 * Design notes: a kernel decodes one whole chunk (1024 values).  Row r of
 * every lane is one straight loop over LANES consecutive words with the same
 * shift, so the lane loop vectorizes with no shuffles (the point of the
 * layout); with the width a compile-time constant the mask and the
 * straddle test fold away.  `restrict` lets the vectorizer skip alias
 * checks.  Inputs are T-aligned (fastlanes.c copies misaligned chunks to an
 * aligned buffer first), so the kernels may use typed loads.
 *
 * IDENTIFICATION
 *	  src/codec/fastlanes_kernels.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_FASTLANES_KERNELS_H
#define CDC_FASTLANES_KERNELS_H

#include "codec/fastlanes.h"
#include "codec/kernels.h"

/*
 * Ask GCC for its full vectorizer on the SIMD instances even in -O2 builds
 * (whose very cheap cost model leaves some lane loops scalar); clang
 * vectorizes at -O2 anyway and has no such attribute.
 */
#if defined(__clang__)
#define CDC_VECTORIZE
#else
#define CDC_VECTORIZE	__attribute__((optimize("tree-vectorize")))
#endif

/* 3-bit bit reversal: the order of the 16-value groups inside a row block. */
static const unsigned cdc_fl_order[8] = {0, 4, 2, 6, 1, 5, 3, 7};

/*
 * One chunk: out[idx(r, l)] = ref + (bits [r*W, r*W + W) of lane l).
 * W = 0 writes ref everywhere and reads nothing.
 */
#define CDC_FL_DEFINE_UNPACK_BODY(T, BITS) \
static CDC_ALWAYS_INLINE void \
cdc_fl_unpack##BITS##_body(const T *restrict in, T *restrict out, T ref, \
						   const unsigned W) \
{ \
	enum { LANES = 1024 / BITS }; \
	const T		mask = W >= BITS ? (T) ~(T) 0 : (T) ((((uint64_t) 1) << W) - 1); \
\
	for (unsigned r = 0; r < BITS; r++) \
	{ \
		const unsigned bit = r * W; \
		const unsigned sh = bit % BITS; \
		const T    *restrict a = in + (bit / BITS) * LANES; \
		T		   *restrict o = out + 128 * (r % 8) + 16 * cdc_fl_order[r / 8]; \
\
		if (W == 0) \
		{ \
			for (unsigned l = 0; l < LANES; l++) \
				o[l] = ref; \
		} \
		else if (sh + W > BITS) \
		{ \
			const T    *restrict b = a + LANES; \
\
			for (unsigned l = 0; l < LANES; l++) \
				o[l] = (T) ((T) (((T) (a[l] >> sh) | (T) (b[l] << (BITS - sh))) & mask) + ref); \
		} \
		else \
		{ \
			for (unsigned l = 0; l < LANES; l++) \
				o[l] = (T) ((T) ((T) (a[l] >> sh) & mask) + ref); \
		} \
	} \
}

CDC_FL_DEFINE_UNPACK_BODY(uint8_t, 8)
CDC_FL_DEFINE_UNPACK_BODY(uint16_t, 16)
CDC_FL_DEFINE_UNPACK_BODY(uint32_t, 32)
CDC_FL_DEFINE_UNPACK_BODY(uint64_t, 64)

/* Width lists per type, as X-macros. */
#define CDC_WIDTHS_0_8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8)
#define CDC_WIDTHS_9_16(X) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
#define CDC_WIDTHS_17_32(X) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) \
	X(25) X(26) X(27) X(28) X(29) X(30) X(31) X(32)
#define CDC_FL_WIDTHS_8(X)	CDC_WIDTHS_0_8(X)
#define CDC_FL_WIDTHS_16(X) CDC_WIDTHS_0_8(X) CDC_WIDTHS_9_16(X)
#define CDC_FL_WIDTHS_32(X) CDC_WIDTHS_0_32(X)
#define CDC_FL_WIDTHS_64(X) CDC_WIDTHS_0_32(X) CDC_WIDTHS_33_64(X)

typedef void (*CdcFlUnpack8Fn) (const uint8_t *in, uint8_t *out, uint8_t ref);
typedef void (*CdcFlUnpack16Fn) (const uint16_t *in, uint16_t *out, uint16_t ref);
typedef void (*CdcFlUnpack32Fn) (const uint32_t *in, uint32_t *out, uint32_t ref);
typedef void (*CdcFlUnpack64Fn) (const uint64_t *in, uint64_t *out, uint64_t ref);

/* fastlanes.c */
extern const CdcFlUnpack8Fn cdc_fl_unpack8_scalar_table[9];
extern const CdcFlUnpack16Fn cdc_fl_unpack16_scalar_table[17];
extern const CdcFlUnpack32Fn cdc_fl_unpack32_scalar_table[33];
extern const CdcFlUnpack64Fn cdc_fl_unpack64_scalar_table[65];

/* fastlanes_avx2.c */
extern const CdcFlUnpack8Fn cdc_fl_unpack8_avx2_table[9];
extern const CdcFlUnpack16Fn cdc_fl_unpack16_avx2_table[17];
extern const CdcFlUnpack32Fn cdc_fl_unpack32_avx2_table[33];
extern const CdcFlUnpack64Fn cdc_fl_unpack64_avx2_table[65];

#endif							/* CDC_FASTLANES_KERNELS_H */
