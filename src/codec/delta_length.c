/*-------------------------------------------------------------------------
 *
 * delta_length.c
 *	  DELTA_LENGTH_BYTE_ARRAY decoder and encoder.
 *
 * Stream grammar (parquet-format Encodings.md, DELTA_LENGTH_BYTE_ARRAY = 6):
 * the lengths of all values as one DELTA_BINARY_PACKED INT32 stream, then
 * the bytes of all values concatenated.
 *
 * Design notes: lengths decode into the caller's scratch array; one pass
 * checks them (negative lengths are corrupt) and sums them in 64 bits
 * against the bytes left, then a tight loop turns them into views into the
 * input.  Only the first count values are used when the header declares
 * more; *consumed is then the bytes those count values end at.
 *
 * IDENTIFICATION
 *	  src/codec/delta_length.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/delta.h"

#include <string.h>

/*
 * Decode count values into views pointing into `in`.  scratch holds count +
 * CDC_OUTPUT_SLACK int32 values.
 */
CdcStatus
cdc_delta_length_decode(const uint8_t *in, size_t in_len,
						CdcByteView *out, size_t count,
						int32_t *scratch, size_t *consumed)
{
	size_t		lengths_len;
	uint64_t	total = 0;
	uint32_t	negative = 0;
	const uint8_t *data;
	CdcStatus	st;

	st = cdc_delta_binary_decode32(in, in_len, scratch, count, &lengths_len);
	if (st != CDC_OK)
		return st;
	for (size_t i = 0; i < count; i++)
	{
		negative |= (uint32_t) scratch[i];
		total += (uint32_t) scratch[i];
	}
	if (negative >> 31)
		return CDC_ERR_CORRUPT;
	if (total > in_len - lengths_len)
		return CDC_ERR_TRUNCATED;

	data = in + lengths_len;
	for (size_t i = 0; i < count; i++)
	{
		out[i].ptr = data;
		out[i].len = (uint32_t) scratch[i];
		data += scratch[i];
	}
	*consumed = (size_t) (data - in);
	return CDC_OK;
}

static uint64_t
length_of_view(const void *arg, size_t i)
{
	return ((const CdcByteView *) arg)[i].len;
}

/*
 * Enough for any input: the lengths stream at full width plus the bytes.
 */
size_t
cdc_delta_length_max_size(const CdcByteView *in, size_t count)
{
	size_t		size = cdc_delta_binary_max_size(count, false);

	for (size_t i = 0; i < count; i++)
		size += in[i].len;
	return size;
}

/*
 * Encode count values; a length above INT32_MAX is
 * CDC_ERR_INVALID_ARGUMENT (Parquet lengths are int32).
 */
CdcStatus
cdc_delta_length_encode(const CdcByteView *in, size_t count,
						uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		o;
	CdcStatus	st;

	for (size_t i = 0; i < count; i++)
		if (in[i].len > INT32_MAX)
			return CDC_ERR_INVALID_ARGUMENT;
	st = cdc_delta_binary_encode_fn(length_of_view, in, count, false,
									CDC_DELTA_DEFAULT_BLOCK,
									CDC_DELTA_DEFAULT_MINIBLOCKS,
									out, out_cap, &o);
	if (st != CDC_OK)
		return st;
	for (size_t i = 0; i < count; i++)
	{
		if (out_cap - o < in[i].len)
			return CDC_ERR_OUTPUT_FULL;
		if (in[i].len > 0)
			memcpy(out + o, in[i].ptr, in[i].len);
		o += in[i].len;
	}
	*written = o;
	return CDC_OK;
}
