/*-------------------------------------------------------------------------
 *
 * delta_byte_array.c
 *	  DELTA_BYTE_ARRAY (incremental / front coding) decoder and encoder.
 *
 * Stream grammar (parquet-format Encodings.md, DELTA_BYTE_ARRAY = 7): the
 * prefix lengths of all values as a DELTA_BINARY_PACKED INT32 stream, then
 * the suffixes as DELTA_LENGTH_BYTE_ARRAY.  Value i is the first
 * prefix[i] bytes of value i - 1 followed by suffix i; the first value's
 * prefix is 0.
 *
 * Design notes: a prefix longer than the previous value (or negative) is
 * CDC_ERR_CORRUPT.  Values with a prefix of 0 are their suffix, so their
 * views point into the input and cost no copy; the others are built in the
 * caller's arena, each checked against its capacity before the copy.
 * cdc_delta_byte_array_measure() returns the sum of all value lengths plus
 * 64 bytes of slack: while 64 bytes remain, a value whose prefix and suffix
 * are both at most 32 bytes is built with two fixed 32-byte copies instead
 * of two memcpy calls of variable length.  Their over-reads stay inside
 * the input padding (suffixes, values in the input) or below arena + used
 * + 32 (the previous value, when it is the last one built in the arena);
 * their over-writes land in the arena's unused tail.
 *
 * IDENTIFICATION
 *	  src/codec/delta_byte_array.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/delta.h"

#include <string.h>

/*
 * Arena bytes beyond the values that measure() asks for, so short values
 * can be built with fixed 32-byte copies (prefix + 32 <= 64).
 */
#define DBA_ARENA_SLACK		64

/* 32 bytes from src to dst, loaded before stored (they may overlap). */
static inline void
copy32(uint8_t *dst, const uint8_t *src)
{
	uint8_t		tmp[32];

	memcpy(tmp, src, 32);
	memcpy(dst, tmp, 32);
}

/*
 * Arena bytes cdc_delta_byte_array_decode() needs for count values (at
 * most; it only copies values that share a prefix, plus DBA_ARENA_SLACK).  scratch holds count +
 * CDC_OUTPUT_SLACK int32 values.
 */
CdcStatus
cdc_delta_byte_array_measure(const uint8_t *in, size_t in_len,
							 size_t count, int32_t *scratch,
							 size_t *arena_needed)
{
	size_t		prefixes_len;
	size_t		suffixes_len;
	uint64_t	total = 0;
	uint32_t	negative = 0;
	CdcStatus	st;

	st = cdc_delta_binary_decode32(in, in_len, scratch, count, &prefixes_len);
	if (st != CDC_OK)
		return st;
	for (size_t i = 0; i < count; i++)
	{
		negative |= (uint32_t) scratch[i];
		total += (uint32_t) scratch[i];
	}
	st = cdc_delta_binary_decode32(in + prefixes_len, in_len - prefixes_len,
								   scratch, count, &suffixes_len);
	if (st != CDC_OK)
		return st;
	for (size_t i = 0; i < count; i++)
	{
		negative |= (uint32_t) scratch[i];
		total += (uint32_t) scratch[i];
	}
	if (negative >> 31)
		return CDC_ERR_CORRUPT;
	*arena_needed = (size_t) total + DBA_ARENA_SLACK;
	return CDC_OK;
}

/*
 * Decode count values.  scratch and scratch2 hold count + CDC_OUTPUT_SLACK
 * int32 values each (prefix and suffix lengths).  *consumed = bytes used.
 */
CdcStatus
cdc_delta_byte_array_decode(const uint8_t *in, size_t in_len,
							CdcByteView *out, size_t count,
							int32_t *scratch, int32_t *scratch2,
							uint8_t *arena, size_t arena_cap,
							size_t *consumed)
{
	size_t		prefixes_len;
	size_t		suffixes_len;
	const uint8_t *prev_ptr = NULL;
	uint32_t	prev_len = 0;
	size_t		used = 0;
	CdcStatus	st;

	st = cdc_delta_binary_decode32(in, in_len, scratch, count, &prefixes_len);
	if (st != CDC_OK)
		return st;
	st = cdc_delta_length_decode(in + prefixes_len, in_len - prefixes_len,
								 out, count, scratch2, &suffixes_len);
	if (st != CDC_OK)
		return st;

	for (size_t i = 0; i < count; i++)
	{
		uint32_t	prefix = (uint32_t) scratch[i];
		CdcByteView suffix = out[i];

		if (prefix > prev_len)
			return CDC_ERR_CORRUPT;
		if (prefix > 0)
		{
			uint64_t	len = (uint64_t) prefix + suffix.len;
			uint8_t    *dst = arena + used;

			if (prefix <= 32 && suffix.len <= 32 && arena_cap - used >= DBA_ARENA_SLACK)
			{
				/* Short value: two fixed 32-byte copies, see the header. */
				copy32(dst, prev_ptr);
				copy32(dst + prefix, suffix.ptr);
			}
			else
			{
				if (len > UINT32_MAX)
					return CDC_ERR_CORRUPT;
				if (arena_cap - used < len)
					return CDC_ERR_OUTPUT_FULL;
				memcpy(dst, prev_ptr, prefix);
				if (suffix.len > 0)
					memcpy(dst + prefix, suffix.ptr, suffix.len);
			}
			out[i].ptr = dst;
			out[i].len = (uint32_t) len;
			used += len;
		}
		prev_ptr = out[i].ptr;
		prev_len = out[i].len;
	}
	*consumed = prefixes_len + suffixes_len;
	return CDC_OK;
}

/* Length of the common prefix of values i - 1 and i (0 for i = 0). */
static uint64_t
prefix_length(const void *arg, size_t i)
{
	const CdcByteView *v = arg;
	uint32_t	n;
	uint32_t	k = 0;

	if (i == 0)
		return 0;
	n = v[i - 1].len < v[i].len ? v[i - 1].len : v[i].len;
	while (k < n && v[i - 1].ptr[k] == v[i].ptr[k])
		k++;
	return k;
}

static uint64_t
suffix_length(const void *arg, size_t i)
{
	return ((const CdcByteView *) arg)[i].len - prefix_length(arg, i);
}

/* Enough for any input: two length streams at full width plus the bytes. */
size_t
cdc_delta_byte_array_max_size(const CdcByteView *in, size_t count)
{
	return cdc_delta_binary_max_size(count, false) +
		cdc_delta_length_max_size(in, count);
}

/*
 * Encode count values with the longest common prefix of each value and the
 * previous one.  A length above INT32_MAX is CDC_ERR_INVALID_ARGUMENT.
 */
CdcStatus
cdc_delta_byte_array_encode(const CdcByteView *in, size_t count,
							uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		o;
	size_t		o2;
	CdcStatus	st;

	for (size_t i = 0; i < count; i++)
		if (in[i].len > INT32_MAX)
			return CDC_ERR_INVALID_ARGUMENT;
	st = cdc_delta_binary_encode_fn(prefix_length, in, count, false,
									CDC_DELTA_DEFAULT_BLOCK,
									CDC_DELTA_DEFAULT_MINIBLOCKS,
									out, out_cap, &o);
	if (st != CDC_OK)
		return st;
	st = cdc_delta_binary_encode_fn(suffix_length, in, count, false,
									CDC_DELTA_DEFAULT_BLOCK,
									CDC_DELTA_DEFAULT_MINIBLOCKS,
									out + o, out_cap - o, &o2);
	if (st != CDC_OK)
		return st;
	o += o2;
	for (size_t i = 0; i < count; i++)
	{
		uint32_t	prefix = (uint32_t) prefix_length(in, i);
		uint32_t	n = in[i].len - prefix;

		if (out_cap - o < n)
			return CDC_ERR_OUTPUT_FULL;
		if (n > 0)
			memcpy(out + o, in[i].ptr + prefix, n);
		o += n;
	}
	*written = o;
	return CDC_OK;
}
