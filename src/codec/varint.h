/*-------------------------------------------------------------------------
 *
 * varint.h
 *	  ULEB128 variable-length integers and zigzag mapping.
 *
 * Thrift compact protocol, DELTA_BINARY_PACKED headers and RLE run headers
 * all use unsigned LEB128: seven value bits per byte, lowest group first,
 * high bit set on every byte but the last.  Zigzag maps signed integers to
 * unsigned ones so that small magnitudes stay short.
 *
 * Design notes: everything is static inline so hot decoders can keep the
 * common one-byte case in registers.  The reader is bounds-checked against
 * `end` (it never touches *end) and is strict: at most 10 bytes for a 64-bit
 * value, and a 10th byte may only carry the single bit that still fits, so an
 * encoding that would overflow 64 bits is rejected rather than truncated.
 * Redundant zero continuation bytes that do not overflow (e.g. 80 00) are
 * accepted, as other Parquet readers do.
 *
 * IDENTIFICATION
 *	  src/codec/varint.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_VARINT_H
#define CDC_VARINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest ULEB128 encoding of a 64-bit value. */
#define CDC_ULEB128_MAX_BYTES	10

/*
 * Read one ULEB128 value from [*pos, end).  On success stores it in *out,
 * advances *pos past it and returns true.  Returns false, leaving *pos and
 * *out untouched, if the encoding runs past `end` or does not fit 64 bits.
 */
static inline bool
cdc_uleb128_read(const uint8_t **pos, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pos;
	uint64_t	result = 0;
	unsigned	shift = 0;

	/* Fast path: one byte, the usual case for headers and run lengths. */
	if (p < end && (p[0] & 0x80) == 0)
	{
		*out = p[0];
		*pos = p + 1;
		return true;
	}

	while (p < end)
	{
		uint8_t		byte = *p++;

		if (shift == 63)
		{
			/* 10th byte: only bit 63 is left, and it must be the last byte. */
			if (byte > 1)
				return false;
			result |= (uint64_t) byte << 63;
			*out = result;
			*pos = p;
			return true;
		}
		result |= (uint64_t) (byte & 0x7F) << shift;
		if ((byte & 0x80) == 0)
		{
			*out = result;
			*pos = p;
			return true;
		}
		shift += 7;
	}
	return false;				/* truncated */
}

/*
 * Read a ULEB128 value that must fit 32 bits (RLE run headers, thrift i32
 * fields).  Same contract as cdc_uleb128_read(); larger values are rejected.
 */
static inline bool
cdc_uleb128_read32(const uint8_t **pos, const uint8_t *end, uint32_t *out)
{
	const uint8_t *p = *pos;
	uint64_t	v;

	if (!cdc_uleb128_read(&p, end, &v) || v > UINT32_MAX)
		return false;
	*out = (uint32_t) v;
	*pos = p;
	return true;
}

/*
 * Write v as ULEB128 into out, which must have room for
 * CDC_ULEB128_MAX_BYTES bytes (or cdc_uleb128_size(v)).  Returns the number
 * of bytes written (1..10).
 */
static inline size_t
cdc_uleb128_write(uint8_t *out, uint64_t v)
{
	size_t		n = 0;

	while (v >= 0x80)
	{
		out[n++] = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t) v;
	return n;
}

/* Bytes cdc_uleb128_write() would use for v. */
static inline size_t
cdc_uleb128_size(uint64_t v)
{
	size_t		n = 1;

	while (v >= 0x80)
	{
		v >>= 7;
		n++;
	}
	return n;
}

/* Zigzag: 0, -1, 1, -2, ... <-> 0, 1, 2, 3, ...  Shifts are done unsigned
 * so no signed overflow can occur. */
static inline uint64_t
cdc_zigzag_encode64(int64_t v)
{
	return ((uint64_t) v << 1) ^ (uint64_t) (0 - ((uint64_t) v >> 63));
}

static inline int64_t
cdc_zigzag_decode64(uint64_t v)
{
	return (int64_t) ((v >> 1) ^ (0 - (v & 1)));
}

static inline uint32_t
cdc_zigzag_encode32(int32_t v)
{
	return ((uint32_t) v << 1) ^ (uint32_t) (0 - ((uint32_t) v >> 31));
}

static inline int32_t
cdc_zigzag_decode32(uint32_t v)
{
	return (int32_t) ((v >> 1) ^ (0 - (v & 1)));
}

#endif							/* CDC_VARINT_H */
