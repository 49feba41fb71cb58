/*-------------------------------------------------------------------------
 *
 * delta.h
 *	  Internal interface shared by the three delta encodings
 *	  (delta_binary.c, delta_length.c, delta_byte_array.c).
 *
 * The byte-array encodings store their lengths as DELTA_BINARY_PACKED
 * INT32 streams, but the lengths are not an array their encoders could pass
 * in (they come from views, or from the common prefix of two views), and
 * encoders allocate nothing.  So the DELTA_BINARY_PACKED encoder is written
 * once over a value callback; the public encoders wrap arrays in it.
 *
 * IDENTIFICATION
 *	  src/codec/delta.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_DELTA_H
#define CDC_DELTA_H

#include "codec/codec.h"
#include "codec/varint.h"

/* The layout every parquet writer we know of uses: 128 values, 4 x 32. */
#define CDC_DELTA_DEFAULT_BLOCK			128
#define CDC_DELTA_DEFAULT_MINIBLOCKS	4

/*
 * Value number i of the sequence being encoded, as raw bits (the low 32
 * bits only for INT32 streams).  Called in increasing i, a few times each.
 */
typedef uint64_t (*CdcDeltaValueFn) (const void *arg, size_t i);

/* delta_binary.c */
CdcStatus	cdc_delta_binary_encode_fn(CdcDeltaValueFn value, const void *arg,
									   size_t count, bool is64,
									   uint32_t block_size, uint32_t miniblocks,
									   uint8_t *out, size_t out_cap,
									   size_t *written);

/*
 * delta_binary_avx2.c: in-place prefix sum of unpacked INT32 deltas,
 * v[i] = prev + sum over j <= i of (min_delta + v[j]), wrapping; returns
 * the last value (prev for n = 0).
 */
uint32_t	cdc_delta_prefix32_avx2(uint32_t *v, size_t n, uint32_t min_delta,
									uint32_t prev);

/*
 * delta_binary_avx512.c: the same for INT32 and INT64; touches nothing
 * past v[n).
 */
uint32_t	cdc_delta_prefix32_avx512(uint32_t *v, size_t n, uint32_t min_delta,
									  uint32_t prev);
uint64_t	cdc_delta_prefix64_avx512(uint64_t *v, size_t n, uint64_t min_delta,
									  uint64_t prev);

/*
 * Why cdc_uleb128_read() failed at pos: the input ended inside the varint
 * (truncated), or the varint does not fit 64 bits (corrupt).
 */
static inline CdcStatus
cdc_uleb128_failure(const uint8_t *pos, const uint8_t *end)
{
	size_t		avail = (size_t) (end - pos);

	if (avail >= CDC_ULEB128_MAX_BYTES)
		return CDC_ERR_CORRUPT;
	for (size_t i = 0; i < avail; i++)
		if ((pos[i] & 0x80) == 0)
			return CDC_ERR_CORRUPT;
	return CDC_ERR_TRUNCATED;
}

#endif							/* CDC_DELTA_H */
