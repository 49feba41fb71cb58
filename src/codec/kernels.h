/*-------------------------------------------------------------------------
 *
 * kernels.h
 *	  Internal interface between the codec entry points and their per-ISA
 *	  kernels (bit unpacking, run fills, dictionary gathers).
 *
 * Design notes: bit-unpack kernels are instantiated once per bit width from
 * a single forced-inline body that takes the width as a compile-time
 * constant, so every shift and mask folds into an immediate.  The instances
 * are reached through per-ISA tables indexed by width.  Kernels check
 * nothing: the entry points in bitpack.c / rle.c / dict.c validate lengths,
 * widths and indexes once per call, then pick the table with
 * cdc_isa_current().
 *
 * Kernel contract (unpack): decode `count` values from `in`, which starts on
 * a group boundary (value 0 at bit 0).  Kernels may read up to 64 bytes past
 * the last byte that holds a requested bit, and may write up to 15 values
 * past out + count (inside CDC_OUTPUT_SLACK).
 *
 * IDENTIFICATION
 *	  src/codec/kernels.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KERNELS_H
#define CDC_KERNELS_H

#include "codec/codec.h"

#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the codec layer assumes a little-endian host"
#endif

#define CDC_ALWAYS_INLINE	inline __attribute__((always_inline))

/* The widths every 32-bit table holds, as an X-macro list. */
#define CDC_WIDTHS_0_32(X) \
	X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) \
	X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) \
	X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31) X(32)

#define CDC_WIDTHS_33_64(X) \
	X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) \
	X(44) X(45) X(46) X(47) X(48) X(49) X(50) X(51) X(52) X(53) X(54) \
	X(55) X(56) X(57) X(58) X(59) X(60) X(61) X(62) X(63) X(64)

typedef void (*CdcUnpack32Fn) (const uint8_t *in, uint32_t *out, size_t count);
typedef void (*CdcUnpack64Fn) (const uint8_t *in, uint64_t *out, size_t count);

/* Unaligned little-endian loads (compile to a single mov on x86). */
static CDC_ALWAYS_INLINE uint64_t
cdc_load64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static CDC_ALWAYS_INLINE uint32_t
cdc_load32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Value number i of an LSB-first stream of width <= 32 (runtime width).
 * Reads 8 bytes at byte i * w / 8. */
static CDC_ALWAYS_INLINE uint32_t
cdc_extract32(const uint8_t *in, size_t i, unsigned w)
{
	size_t		bit = i * w;
	uint64_t	mask = (UINT64_C(1) << w) - 1;

	return (uint32_t) ((cdc_load64(in + bit / 8) >> (bit % 8)) & mask);
}

/* bitpack.c: scalar tables */
extern const CdcUnpack32Fn cdc_unpack32_scalar_table[33];
extern const CdcUnpack64Fn cdc_unpack64_scalar_table[65];
extern const CdcUnpack32Fn cdc_unpack32_msb_scalar_table[33];

/* bitpack_avx2.c */
extern const CdcUnpack32Fn cdc_unpack32_avx2_table[33];
void		cdc_fill32_avx2(uint32_t *out, uint32_t value, size_t count);

/* bitpack_avx512.c */
extern const CdcUnpack32Fn cdc_unpack32_avx512_table[33];

/* The unpack32 table for an ISA. */
static inline const CdcUnpack32Fn *
cdc_unpack32_table(CdcIsa isa)
{
	switch (isa)
	{
		case CDC_ISA_AVX512:
			return cdc_unpack32_avx512_table;
		case CDC_ISA_AVX2:
			return cdc_unpack32_avx2_table;
		default:
			return cdc_unpack32_scalar_table;
	}
}

/* dict_avx2.c */
uint32_t	cdc_max_u32_avx2(const uint32_t *idx, size_t count);
void		cdc_gather32_avx2(const uint32_t *dict, const uint32_t *idx,
							  uint32_t *out, size_t count);
void		cdc_gather64_avx2(const uint64_t *dict, const uint32_t *idx,
							  uint64_t *out, size_t count);

/* dict_avx512.c: gathers return false (out unspecified) if some index is
 * >= dict_len; dict_len must be 1..INT32_MAX.  No padding or slack used. */
uint32_t	cdc_max_u32_avx512(const uint32_t *idx, size_t count);
bool		cdc_gather32_avx512(const uint32_t *dict, uint32_t dict_len,
								const uint32_t *idx, uint32_t *out, size_t count);
bool		cdc_gather64_avx512(const uint64_t *dict, uint32_t dict_len,
								const uint32_t *idx, uint64_t *out, size_t count);

/* byte_stream_split_avx2.c: in = value 0 of stream 0, stream k at
 * in + k * stride; out gets count values. */
void		cdc_bss_decode2_avx2(const uint8_t *in, size_t stride,
								 uint8_t *out, size_t count);
void		cdc_bss_decode4_avx2(const uint8_t *in, size_t stride,
								 uint8_t *out, size_t count);
void		cdc_bss_decode8_avx2(const uint8_t *in, size_t stride,
								 uint8_t *out, size_t count);

/* byte_stream_split_avx512.c: as above; reads exactly count bytes of each
 * stream and writes exactly count * width bytes (masked tails). */
void		cdc_bss_decode2_avx512(const uint8_t *in, size_t stride,
								   uint8_t *out, size_t count);
void		cdc_bss_decode4_avx512(const uint8_t *in, size_t stride,
								   uint8_t *out, size_t count);
void		cdc_bss_decode8_avx512(const uint8_t *in, size_t stride,
								   uint8_t *out, size_t count);

/* rle_avx512.c: run fills that write exactly count values (no slack). */
void		cdc_fill32_avx512(uint32_t *out, uint32_t value, size_t count);
void		cdc_fill16_avx512(int16_t *out, int16_t value, size_t count);

/* group_varint_avx2.c: whole groups until one does not fit before end;
 * returns bytes used, *done = groups decoded. */
size_t		cdc_group_varint_decode32_avx2(const uint8_t *in, const uint8_t *end,
										   uint32_t *out, size_t groups,
										   size_t *done);

#endif							/* CDC_KERNELS_H */
