/*-------------------------------------------------------------------------
 *
 * fastlanes.h
 *	  Contract of the FastLanes 1024-value transposed bit packing: FLBitPack
 *	  and FFOR (frame of reference fused with bit packing), as Amudai stores
 *	  them (amudai-format.md 4.2 and 4.4).
 *
 * Layout.  Values are packed in chunks of 1024 values of an unsigned type T
 * of T_BITS = 8, 16, 32 or 64 bits.  LANES = 1024 / T_BITS.  With
 * ORDER = {0, 4, 2, 6, 1, 5, 3, 7}, row r (0 <= r < T_BITS) of lane l holds
 * input element
 *
 *		idx(r, l) = 128 * (r % 8) + 16 * ORDER[r / 8] + l
 *
 * Each lane's T_BITS values, in row order, keep their low `width` bits and
 * form a little-endian bit stream cut into T-bit words, LSB first; word k of
 * lane l is element k * LANES + l of the packed chunk.  A chunk of width W
 * is therefore 128 * W bytes, and ceil(count / 1024) chunks are stored (the
 * last one zero-padded to 1024 values before packing).
 *
 * FFOR stores (v - reference) mod 2^T_BITS instead of v and adds the
 * reference back (wrapping) on decode; FLBitPack is FFOR with reference 0.
 * Signed streams reinterpret their values as the unsigned type of the same
 * size.
 *
 * Decoder contract (as codec.h):
 *	- in_len must be exactly cdc_fl_packed_size(count, width) (Amudai gives a
 *	  decoder an exact slice): shorter is CDC_ERR_TRUNCATED, longer
 *	  CDC_ERR_CORRUPT.  width > T_BITS is CDC_ERR_CORRUPT.  Width 0 decodes to
 *	  `reference` everywhere and takes no bytes.
 *	- `out` has room for count values (whole chunks go straight to out; the
 *	  last partial chunk is decoded into a stack buffer and copied).  `in`
 *	  needs no alignment.
 *	- The kernels are instantiated per width and picked by cdc_isa_current()
 *	  (scalar or AVX2; AVX-512 machines use the AVX2 kernels).
 *
 * Encoder contract: values are masked to `width` bits (after subtracting the
 * reference), as the format defines; the output capacity must be at least
 * cdc_fl_packed_size(count, width), else CDC_ERR_OUTPUT_FULL.
 *
 * IDENTIFICATION
 *	  src/codec/fastlanes.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_FASTLANES_H
#define CDC_FASTLANES_H

#include "codec/codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values per FastLanes chunk. */
#define CDC_FL_CHUNK	1024

/* Bytes of the packed form: ceil(count / 1024) * 128 * width. */
size_t		cdc_fl_packed_size(size_t count, unsigned width);

/* FFOR decode: out[i] = reference + unpacked[i] (wrapping). */
CdcStatus	cdc_ffor_decode8(const uint8_t *in, size_t in_len, unsigned width,
							 uint8_t reference, uint8_t *out, size_t count);
CdcStatus	cdc_ffor_decode16(const uint8_t *in, size_t in_len, unsigned width,
							  uint16_t reference, uint16_t *out, size_t count);
CdcStatus	cdc_ffor_decode32(const uint8_t *in, size_t in_len, unsigned width,
							  uint32_t reference, uint32_t *out, size_t count);
CdcStatus	cdc_ffor_decode64(const uint8_t *in, size_t in_len, unsigned width,
							  uint64_t reference, uint64_t *out, size_t count);

/* FLBitPack decode (FFOR with reference 0). */
CdcStatus	cdc_fl_unpack8(const uint8_t *in, size_t in_len, unsigned width,
						   uint8_t *out, size_t count);
CdcStatus	cdc_fl_unpack16(const uint8_t *in, size_t in_len, unsigned width,
							uint16_t *out, size_t count);
CdcStatus	cdc_fl_unpack32(const uint8_t *in, size_t in_len, unsigned width,
							uint32_t *out, size_t count);
CdcStatus	cdc_fl_unpack64(const uint8_t *in, size_t in_len, unsigned width,
							uint64_t *out, size_t count);

/* FFOR encode: packs (in[i] - reference) masked to width bits. */
CdcStatus	cdc_ffor_encode8(const uint8_t *in, size_t count, uint8_t reference,
							 unsigned width, uint8_t *out, size_t out_cap,
							 size_t *written);
CdcStatus	cdc_ffor_encode16(const uint16_t *in, size_t count, uint16_t reference,
							  unsigned width, uint8_t *out, size_t out_cap,
							  size_t *written);
CdcStatus	cdc_ffor_encode32(const uint32_t *in, size_t count, uint32_t reference,
							  unsigned width, uint8_t *out, size_t out_cap,
							  size_t *written);
CdcStatus	cdc_ffor_encode64(const uint64_t *in, size_t count, uint64_t reference,
							  unsigned width, uint8_t *out, size_t out_cap,
							  size_t *written);

/* FLBitPack encode (FFOR with reference 0). */
CdcStatus	cdc_fl_pack8(const uint8_t *in, size_t count, unsigned width,
						 uint8_t *out, size_t out_cap, size_t *written);
CdcStatus	cdc_fl_pack16(const uint16_t *in, size_t count, unsigned width,
						  uint8_t *out, size_t out_cap, size_t *written);
CdcStatus	cdc_fl_pack32(const uint32_t *in, size_t count, unsigned width,
						  uint8_t *out, size_t out_cap, size_t *written);
CdcStatus	cdc_fl_pack64(const uint64_t *in, size_t count, unsigned width,
						  uint8_t *out, size_t out_cap, size_t *written);

/*
 * Writer helpers: the reference (minimum, unsigned or signed as asked) and
 * the bit width of max - min, as the reference writer chooses them.  Width 0
 * means all values are equal (Amudai then writes SingleValue).  count 0 gives
 * reference 0, width 0.
 */
void		cdc_ffor_analyze_u64(const uint64_t *in, size_t count,
								 uint64_t *reference, unsigned *width);
void		cdc_ffor_analyze_i64(const int64_t *in, size_t count,
								 int64_t *reference, unsigned *width);
void		cdc_ffor_analyze_u32(const uint32_t *in, size_t count,
								 uint32_t *reference, unsigned *width);
void		cdc_ffor_analyze_i32(const int32_t *in, size_t count,
								 int32_t *reference, unsigned *width);

#ifdef __cplusplus
}
#endif

#endif							/* CDC_FASTLANES_H */
