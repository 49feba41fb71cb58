/*-------------------------------------------------------------------------
 *
 * chimp.h
 *	  Contract of Chimp (XOR-based floating-point compression, Liakos et al.,
 *	  VLDB 2022) for f64 and f32.  No Amudai file uses it yet (the format's
 *	  chapter 7 only proposes it), so the layout below is this project's own.
 *
 * Layout.  A bit stream, LSB first: bit k of the stream is bit k % 8 of byte
 * k / 8, and every field is written low bit first.  The value count comes
 * from the caller (the parent section knows it).  T_BITS is 64 (f64) or 32
 * (f32); values are handled as their IEEE bit patterns, so NaN payloads,
 * -0.0, infinities and subnormals are preserved exactly.
 *
 *	value 0         T_BITS raw bits
 *	value i > 0     x = bits(v[i]) XOR bits(v[i-1]), then a 2-bit flag:
 *	  flag 0        x == 0
 *	  flag 1        trailing_zeros(x) > TRAIL (6 for f64, 5 for f32):
 *	                3-bit lead code, CENTER-bit center length c (6 bits for
 *	                f64, 5 for f32; 1 <= c <= T_BITS - lead), then the c bits
 *	                x >> (T_BITS - lead - c)
 *	  flag 2        leading_zeros(x) >= the lead of the previous record that
 *	                carried a lead code (0 before any): T_BITS - lead bits of x
 *	  flag 3        3-bit lead code, then T_BITS - lead bits of x
 *
 * Lead codes index LEAD64 = {0, 8, 12, 16, 18, 20, 22, 24} or LEAD32 =
 * {0, 4, 6, 8, 10, 12, 14, 16}; an encoder uses the largest entry not above
 * leading_zeros(x).  Flags 1 and 3 set the "previous lead".  The stream is
 * padded with zero bits to a whole byte.
 *
 * Decoder contract (as codec.h): `in` carries CDC_INPUT_PADDING readable
 * bytes; decodes exactly `count` values into out (room for count values);
 * *consumed gets the bytes the stream used (ceil(bits / 8)).  A stream that
 * ends early is CDC_ERR_TRUNCATED; a center length of 0 or one that does not
 * fit is CDC_ERR_CORRUPT.  Bounds are checked once for every run of values
 * whose worst-case size fits the remaining input, so the loop over them is
 * unchecked.
 *
 * Encoder: out_cap must be at least cdc_chimp_max_size64/32(count), else
 * CDC_ERR_OUTPUT_FULL (checked once, up front).
 *
 * IDENTIFICATION
 *	  src/codec/chimp.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_CHIMP_H
#define CDC_CHIMP_H

#include "codec/codec.h"

#ifdef __cplusplus
extern "C" {
#endif

size_t		cdc_chimp_max_size64(size_t count);
size_t		cdc_chimp_max_size32(size_t count);

CdcStatus	cdc_chimp_encode64(const double *in, size_t count, uint8_t *out,
							   size_t out_cap, size_t *written);
CdcStatus	cdc_chimp_encode32(const float *in, size_t count, uint8_t *out,
							   size_t out_cap, size_t *written);

CdcStatus	cdc_chimp_decode64(const uint8_t *in, size_t in_len, double *out,
							   size_t count, size_t *consumed);
CdcStatus	cdc_chimp_decode32(const uint8_t *in, size_t in_len, float *out,
							   size_t count, size_t *consumed);

#ifdef __cplusplus
}
#endif

#endif							/* CDC_CHIMP_H */
