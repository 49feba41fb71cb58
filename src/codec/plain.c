/*-------------------------------------------------------------------------
 *
 * plain.c
 *	  PLAIN encoding: fixed-width values, bit-packed booleans, and
 *	  length-prefixed byte arrays.
 *
 * Design notes: fixed-width values are stored little-endian exactly as a
 * little-endian host keeps them, so decoding is one bounds check and one
 * memcpy.  Booleans are LSB-first bits; each input byte is spread to eight
 * 0/1 bytes with a multiply (replicate the byte eight times), a per-byte bit
 * select and an add that carries into each byte's top bit iff the selected
 * bit is set.  Byte arrays are walked once, each length checked against the
 * bytes left, and returned as views into the input.
 *
 * IDENTIFICATION
 *	  src/codec/plain.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <string.h>

/*
 * Copy count values of `width` bytes (INT32 4, INT64 8, INT96 12, FLOAT 4,
 * DOUBLE 8, FIXED_LEN_BYTE_ARRAY n).  *consumed = count * width.
 */
CdcStatus
cdc_plain_fixed_decode(const uint8_t *in, size_t in_len, size_t width,
					   void *out, size_t count, size_t *consumed)
{
	size_t		need;

	if (width == 0)
		return CDC_ERR_INVALID_ARGUMENT;
	if (count > SIZE_MAX / width)
		return CDC_ERR_TRUNCATED;
	need = count * width;
	if (in_len < need)
		return CDC_ERR_TRUNCATED;
	if (need > 0)
		memcpy(out, in, need);
	*consumed = need;
	return CDC_OK;
}

/* Eight LSB-first bits of b as eight bytes 0/1, first bit in the low byte. */
static inline uint64_t
spread_bits(uint8_t b)
{
	uint64_t	sel = (b * UINT64_C(0x0101010101010101)) & UINT64_C(0x8040201008040201);

	/* Each byte of sel is 0 or one bit <= 0x80: adding 0x7F sets its top bit
	 * iff it is non-zero, and never carries into the next byte. */
	return ((sel + UINT64_C(0x7F7F7F7F7F7F7F7F)) >> 7) & UINT64_C(0x0101010101010101);
}

/*
 * Decode count bit-packed booleans into bytes 0/1.  *consumed =
 * ceil(count / 8).
 */
CdcStatus
cdc_plain_bool_decode(const uint8_t *in, size_t in_len,
					  uint8_t *out, size_t count, size_t *consumed)
{
	size_t		need = count / 8 + (count % 8 != 0);
	size_t		full = count / 8;

	if (in_len < need)
		return CDC_ERR_TRUNCATED;
	for (size_t i = 0; i < full; i++)
	{
		uint64_t	v = spread_bits(in[i]);

		memcpy(out + 8 * i, &v, 8);
	}
	if (count % 8)
	{
		uint64_t	v = spread_bits(in[full]);

		memcpy(out + 8 * full, &v, count % 8);
	}
	*consumed = need;
	return CDC_OK;
}

/*
 * Decode count byte arrays (4-byte little-endian length, then the bytes)
 * into views pointing into `in`.  A length running past in_len is
 * CDC_ERR_TRUNCATED.  *consumed = bytes used.
 */
CdcStatus
cdc_plain_byte_array_decode(const uint8_t *in, size_t in_len,
							CdcByteView *out, size_t count, size_t *consumed)
{
	size_t		pos = 0;

	for (size_t i = 0; i < count; i++)
	{
		uint32_t	len;

		if (in_len - pos < 4)
			return CDC_ERR_TRUNCATED;
		len = cdc_load32(in + pos);
		pos += 4;
		if (in_len - pos < len)
			return CDC_ERR_TRUNCATED;
		out[i].ptr = in + pos;
		out[i].len = len;
		pos += len;
	}
	*consumed = pos;
	return CDC_OK;
}

/*
 * Pack count booleans (any non-zero byte is true) LSB first, the unused
 * bits of the last byte zero.  *written = ceil(count / 8).
 */
CdcStatus
cdc_plain_bool_encode(const uint8_t *in, size_t count,
					  uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		need = count / 8 + (count % 8 != 0);

	if (out_cap < need)
		return CDC_ERR_OUTPUT_FULL;
	memset(out, 0, need);
	for (size_t i = 0; i < count; i++)
		out[i / 8] |= (uint8_t) ((in[i] != 0) << (i % 8));
	*written = need;
	return CDC_OK;
}

/* Encode count byte arrays, each as a 4-byte length and its bytes. */
CdcStatus
cdc_plain_byte_array_encode(const CdcByteView *in, size_t count,
							uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		pos = 0;

	for (size_t i = 0; i < count; i++)
	{
		uint32_t	len = in[i].len;

		if (out_cap - pos < 4 || out_cap - pos - 4 < len)
			return CDC_ERR_OUTPUT_FULL;
		memcpy(out + pos, &len, 4);
		if (len > 0)
			memcpy(out + pos + 4, in[i].ptr, len);
		pos += 4 + (size_t) len;
	}
	*written = pos;
	return CDC_OK;
}
