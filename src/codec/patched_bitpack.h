/*-------------------------------------------------------------------------
 *
 * patched_bitpack.h
 *	  Contract of bit packing with exceptions (patched frame of reference,
 *	  "PFOR") for u32 and u64 streams.  No Amudai file uses it yet (the
 *	  format's chapter 7 only proposes it), so the layout below is this
 *	  project's own; it reuses the FastLanes layout of fastlanes.h for the
 *	  bulk of the values.
 *
 * Layout (little-endian, offsets in bytes):
 *
 *	 0  u32  count              values in the block
 *	 4  u32  exception_count
 *	 8  u8   width              bits kept per value, 0..T_BITS
 *	 9  u8   high_width         bits of each exception's high part, 0..T_BITS
 *	10  6 zero bytes
 *	16  u64  reference          (u32 streams: low 4 bytes, high 4 zero)
 *	24  FastLanes chunks of (v - reference) mod 2^T_BITS masked to `width`
 *	    bits: cdc_fl_packed_size(count, width) bytes
 *	 .. exception_count u32 positions, strictly ascending, < count
 *	 .. exception high parts ((v - reference) >> width), bit-packed LSB
 *	    first at high_width bits each (ceil(exception_count * high_width / 8)
 *	    bytes, as cdc_pack64 writes them)
 *
 * Decode: FFOR-unpack with the reference, then out[pos] += high << width
 * (wrapping; addition mod 2^T_BITS makes the two steps commute).  The
 * encoder picks the reference (minimum) and the width that minimizes the
 * total size.
 *
 * Decoder contract: the block must be exactly the bytes the header implies
 * (shorter CDC_ERR_TRUNCATED, longer or inconsistent CDC_ERR_CORRUPT, count
 * different from the caller's count CDC_ERR_CORRUPT); `in` carries
 * CDC_INPUT_PADDING readable bytes; out has room for count values.
 *
 * IDENTIFICATION
 *	  src/codec/patched_bitpack.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PATCHED_BITPACK_H
#define CDC_PATCHED_BITPACK_H

#include "codec/codec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CDC_PFOR_HEADER_SIZE	24

/* A capacity that always suffices for the encoder. */
size_t		cdc_pfor_max_size64(size_t count);
size_t		cdc_pfor_max_size32(size_t count);

CdcStatus	cdc_pfor_encode64(const uint64_t *in, size_t count, uint8_t *out,
							  size_t out_cap, size_t *written);
CdcStatus	cdc_pfor_encode32(const uint32_t *in, size_t count, uint8_t *out,
							  size_t out_cap, size_t *written);

CdcStatus	cdc_pfor_decode64(const uint8_t *in, size_t in_len, uint64_t *out,
							  size_t count);
CdcStatus	cdc_pfor_decode32(const uint8_t *in, size_t in_len, uint32_t *out,
							  size_t count);

#ifdef __cplusplus
}
#endif

#endif							/* CDC_PATCHED_BITPACK_H */
