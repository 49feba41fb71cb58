/*-------------------------------------------------------------------------
 *
 * group_varint.c
 *	  GroupVarInt decoder and encoder (32-bit groups of 4, 64-bit groups
 *	  of 5).
 *
 * Layout (codec.h): INT32 values go in groups of four, each group a
 * leading byte of four 2-bit fields (byte length - 1, the first value in
 * the lowest bits) followed by the values little-endian in 1..4 bytes.
 * INT64 values go in groups of five behind a 2-byte little-endian field of
 * five 3-bit lengths (1..8 bytes; bit 15 is unused and ignored).  An
 * incomplete last group is padded with zero values, one byte each.
 *
 * Design notes: a group's total size follows from its leading field alone
 * (a 256-entry table for INT32), so each group is checked once against
 * the end of the input, then its values are read with full-width unaligned
 * loads masked down to their length.  Those loads read past the group's
 * last byte by at most 7 bytes, inside CDC_INPUT_PADDING.  Whole groups
 * are always decoded, so the padding values of the last group land in the
 * output slack.  With AVX2, INT32 groups go through a pshufb per group
 * (group_varint_avx2.c); INT64 groups (up to 42 bytes) stay scalar.
 *
 * IDENTIFICATION
 *	  src/codec/group_varint.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <string.h>

/* Largest groups: leading field plus the widest values. */
#define GV32_MAX_GROUP	(1 + 4 * 4)
#define GV64_MAX_GROUP	(2 + 5 * 8)

/* Bytes of a 32-bit group with leading byte `key`, key included. */
static inline size_t
gv32_group_size(unsigned key)
{
	return 1 + 4 + (key & 3) + ((key >> 2) & 3) + ((key >> 4) & 3) + (key >> 6);
}

static const uint32_t gv32_mask[4] = {0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF};

/*
 * Decode count values; *consumed = bytes of the ceil(count / 4) groups.
 * out needs room for count + CDC_OUTPUT_SLACK values.
 */
CdcStatus
cdc_group_varint_decode32(const uint8_t *in, size_t in_len,
						  uint32_t *out, size_t count, size_t *consumed)
{
	const uint8_t *pos = in;
	const uint8_t *end = in + in_len;
	size_t		groups = count / 4 + (count % 4 != 0);

	if (cdc_isa_current() >= CDC_ISA_AVX2)
	{
		size_t		done;
		size_t		used = cdc_group_varint_decode32_avx2(in, end, out, groups, &done);

		if (done < groups)
			return CDC_ERR_TRUNCATED;
		*consumed = used;
		return CDC_OK;
	}
	for (size_t g = 0; g < groups; g++)
	{
		unsigned	key;
		const uint8_t *p;

		if (pos >= end)
			return CDC_ERR_TRUNCATED;
		key = pos[0];
		if ((size_t) (end - pos) < gv32_group_size(key))
			return CDC_ERR_TRUNCATED;
		p = pos + 1;
#pragma GCC unroll 4
		for (unsigned j = 0; j < 4; j++)
		{
			unsigned	len_code = (key >> (2 * j)) & 3;

			out[j] = cdc_load32(p) & gv32_mask[len_code];
			p += len_code + 1;
		}
		pos = p;
		out += 4;
	}
	*consumed = (size_t) (pos - in);
	return CDC_OK;
}

/* Same for 64-bit values in groups of 5. */
CdcStatus
cdc_group_varint_decode64(const uint8_t *in, size_t in_len,
						  uint64_t *out, size_t count, size_t *consumed)
{
	const uint8_t *pos = in;
	const uint8_t *end = in + in_len;
	size_t		groups = count / 5 + (count % 5 != 0);

	for (size_t g = 0; g < groups; g++)
	{
		unsigned	key;
		size_t		size = 2 + 5;
		const uint8_t *p;

		if (end - pos < 2)
			return CDC_ERR_TRUNCATED;
		key = (unsigned) pos[0] | (unsigned) pos[1] << 8;
		for (unsigned j = 0; j < 5; j++)
			size += (key >> (3 * j)) & 7;
		if ((size_t) (end - pos) < size)
			return CDC_ERR_TRUNCATED;
		p = pos + 2;
#pragma GCC unroll 5
		for (unsigned j = 0; j < 5; j++)
		{
			unsigned	len_code = (key >> (3 * j)) & 7;
			uint64_t	v = cdc_load64(p);

			/* 2 << 63 wraps to 0, so 8 bytes keep all bits (no shift by 64) */
			out[j] = v & ((UINT64_C(2) << (8 * len_code + 7)) - 1);
			p += len_code + 1;
		}
		pos = p;
		out += 5;
	}
	*consumed = (size_t) (pos - in);
	return CDC_OK;
}

size_t
cdc_group_varint_max_size(size_t count, bool is64)
{
	if (is64)
		return (count / 5 + 1) * GV64_MAX_GROUP;
	return (count / 4 + 1) * GV32_MAX_GROUP;
}

/* Bytes needed for v, at least 1. */
static inline unsigned
byte_length(uint64_t v)
{
	unsigned	n = 1;

	while (n < 8 && (v >> (8 * n)) != 0)
		n++;
	return n;
}

CdcStatus
cdc_group_varint_encode32(const uint32_t *in, size_t count,
						  uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		o = 0;

	for (size_t g = 0; g < count; g += 4)
	{
		size_t		key_pos = o;
		unsigned	key = 0;

		if (out_cap - o < 1)
			return CDC_ERR_OUTPUT_FULL;
		o++;
		for (unsigned j = 0; j < 4; j++)
		{
			uint32_t	v = g + j < count ? in[g + j] : 0;
			unsigned	len = byte_length(v);

			if (out_cap - o < len)
				return CDC_ERR_OUTPUT_FULL;
			for (unsigned b = 0; b < len; b++)
				out[o + b] = (uint8_t) (v >> (8 * b));
			o += len;
			key |= (len - 1) << (2 * j);
		}
		out[key_pos] = (uint8_t) key;
	}
	*written = o;
	return CDC_OK;
}

CdcStatus
cdc_group_varint_encode64(const uint64_t *in, size_t count,
						  uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		o = 0;

	for (size_t g = 0; g < count; g += 5)
	{
		size_t		key_pos = o;
		unsigned	key = 0;

		if (out_cap - o < 2)
			return CDC_ERR_OUTPUT_FULL;
		o += 2;
		for (unsigned j = 0; j < 5; j++)
		{
			uint64_t	v = g + j < count ? in[g + j] : 0;
			unsigned	len = byte_length(v);

			if (out_cap - o < len)
				return CDC_ERR_OUTPUT_FULL;
			for (unsigned b = 0; b < len; b++)
				out[o + b] = (uint8_t) (v >> (8 * b));
			o += len;
			key |= (len - 1) << (3 * j);
		}
		out[key_pos] = (uint8_t) key;
		out[key_pos + 1] = (uint8_t) (key >> 8);
	}
	*written = o;
	return CDC_OK;
}
