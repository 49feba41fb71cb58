/*-------------------------------------------------------------------------
 *
 * delta_binary.c
 *	  DELTA_BINARY_PACKED decoder and encoder (INT32 and INT64).
 *
 * Stream grammar (parquet-format Encodings.md, DELTA_BINARY_PACKED = 5):
 *
 *	header:	<block size> <miniblocks per block> <total count> <first value>
 *			(ULEB128, ULEB128, ULEB128, zigzag ULEB128)
 *	block:	<min delta> (zigzag ULEB128) <one bit-width byte per miniblock>
 *			<miniblocks>, each values-per-miniblock values of (delta - min
 *			delta) bit-packed LSB first at its width
 *
 * The first value is in the header, so total count - 1 deltas follow in
 * ceil((total - 1) / block size) blocks.  The block size is a multiple of
 * 128 and values per miniblock a multiple of 32.  In the last block the
 * miniblock holding the last delta is padded to full length; miniblocks
 * after it still have a width byte (any value) but no bytes at all.  All
 * arithmetic wraps in the column's width (two's complement), so an INT32
 * column whose deltas overflow int32 still round-trips.
 *
 * Design notes: a miniblock's bounds and width are checked once, then its
 * deltas go through the dispatched unpack kernel straight into the output
 * and a prefix sum turns them into values in place, while they are still in
 * L1.  The prefix sum is the serial part; its INT32 AVX2 version lives in
 * delta_binary_avx2.c (INT64 has none there: slower than scalar), its
 * INT64 AVX-512 version in delta_binary_avx512.c.  Decoding stops
 * unpacking at `count` values but still walks the block headers to the end of the stream, so *consumed
 * tells DELTA_LENGTH_BYTE_ARRAY where its bytes start; every block costs at
 * least one byte per miniblock, so the walk is linear in the input.  Widths
 * of unused miniblocks are ignored as the spec asks.  One writer leniency:
 * a last miniblock cut off after its last delta's bits (instead of padded)
 * is accepted, with *consumed = in_len.
 *
 * The encoder computes deltas block by block through a value callback
 * (delta.h), so the byte-array encoders can feed it lengths without a
 * scratch array.
 *
 * IDENTIFICATION
 *	  src/codec/delta_binary.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/delta.h"
#include "codec/kernels.h"
#include "codec/varint.h"

#include <string.h>

/* Largest block size accepted (the spec sets none; this keeps sizes sane). */
#define DELTA_MAX_BLOCK		(UINT32_C(1) << 30)

typedef struct DeltaHeader
{
	uint64_t	block_size;
	uint64_t	miniblocks;
	uint64_t	mini_values;	/* values per miniblock */
	uint64_t	total;			/* values in the stream */
	uint64_t	first;			/* first value, two's complement bits */
	const uint8_t *blocks;		/* first byte after the header */
} DeltaHeader;

static CdcStatus
delta_read_header(const uint8_t *in, size_t in_len, DeltaHeader *h)
{
	const uint8_t *pos = in;
	const uint8_t *end = in + in_len;
	uint64_t	first;

	if (!cdc_uleb128_read(&pos, end, &h->block_size) ||
		!cdc_uleb128_read(&pos, end, &h->miniblocks) ||
		!cdc_uleb128_read(&pos, end, &h->total) ||
		!cdc_uleb128_read(&pos, end, &first))
		return cdc_uleb128_failure(pos, end);
	if (h->block_size == 0 || h->block_size % 128 != 0 ||
		h->block_size > DELTA_MAX_BLOCK)
		return CDC_ERR_CORRUPT;
	if (h->miniblocks == 0 || h->block_size % h->miniblocks != 0)
		return CDC_ERR_CORRUPT;
	h->mini_values = h->block_size / h->miniblocks;
	if (h->mini_values % 32 != 0)
		return CDC_ERR_CORRUPT;
	h->first = (uint64_t) cdc_zigzag_decode64(first);
	h->blocks = pos;
	return CDC_OK;
}

/* ----------------------------------------------------------------
 * Scalar prefix sums: v[i] = prev + sum over j <= i of (min_delta + v[j]).
 * Return the last value.
 * ----------------------------------------------------------------
 */
static uint32_t
prefix32_scalar(uint32_t *v, size_t n, uint32_t min_delta, uint32_t prev)
{
	for (size_t i = 0; i < n; i++)
	{
		prev += min_delta + v[i];
		v[i] = prev;
	}
	return prev;
}

static uint64_t
prefix64_scalar(uint64_t *v, size_t n, uint64_t min_delta, uint64_t prev)
{
	for (size_t i = 0; i < n; i++)
	{
		prev += min_delta + v[i];
		v[i] = prev;
	}
	return prev;
}

/*
 * The decoder, written once; is64 is a constant in both callers, so each
 * instance keeps only its own branches.
 */
static CDC_ALWAYS_INLINE CdcStatus
delta_decode_body(const uint8_t *in, size_t in_len, void *out_v,
				  size_t count, size_t *consumed, const bool is64)
{
	const uint8_t *end = in + in_len;
	const unsigned max_width = is64 ? 64 : 32;
	CdcIsa		isa = cdc_isa_current();
	/* AVX-512 unpack kernels lose to AVX2 on 32-value miniblocks (bench). */
	const CdcUnpack32Fn *unpack32 =
		cdc_unpack32_table(isa >= CDC_ISA_AVX2 ? CDC_ISA_AVX2 : isa);
	uint32_t   *out32 = out_v;
	uint64_t   *out64 = out_v;
	DeltaHeader h;
	const uint8_t *pos;
	uint64_t	deltas_left;
	uint64_t	prev;
	size_t		produced = 0;
	CdcStatus	st;

	st = delta_read_header(in, in_len, &h);
	if (st != CDC_OK)
		return st;
	if (count > h.total)
		return CDC_ERR_TRUNCATED;
	pos = h.blocks;
	prev = h.first;
	if (count > 0)
	{
		if (is64)
			out64[0] = prev;
		else
			out32[0] = (uint32_t) prev;
		produced = 1;
	}
	deltas_left = h.total > 0 ? h.total - 1 : 0;

	while (deltas_left > 0)
	{
		uint64_t	in_block = deltas_left < h.block_size ? deltas_left : h.block_size;
		uint64_t	min_zz;
		uint64_t	min_delta;
		const uint8_t *widths;

		if (!cdc_uleb128_read(&pos, end, &min_zz))
			return cdc_uleb128_failure(pos, end);
		min_delta = (uint64_t) cdc_zigzag_decode64(min_zz);
		if ((uint64_t) (end - pos) < h.miniblocks)
			return CDC_ERR_TRUNCATED;
		widths = pos;
		pos += h.miniblocks;

		for (size_t m = 0; in_block > 0; m++)
		{
			unsigned	w = widths[m];
			uint64_t	n = in_block < h.mini_values ? in_block : h.mini_values;
			size_t		avail = (size_t) (end - pos);
			uint64_t	bytes;

			if (w > max_width)
				return CDC_ERR_CORRUPT;
			bytes = (h.mini_values / 8) * w;
			if (bytes > avail)
			{
				/* A last miniblock that stops right after its last delta. */
				if (n == deltas_left && cdc_packed_size(n, w) <= avail)
					bytes = avail;
				else
					return CDC_ERR_TRUNCATED;
			}
			if (produced < count)
			{
				size_t		take = count - produced < n ? count - produced : (size_t) n;

				if (is64)
				{
					cdc_unpack64_scalar_table[w] (pos, out64 + produced, take);
					if (isa >= CDC_ISA_AVX512)
						prev = cdc_delta_prefix64_avx512(out64 + produced, take,
														 min_delta, prev);
					else
						prev = prefix64_scalar(out64 + produced, take, min_delta, prev);
				}
				else
				{
					unpack32[w] (pos, out32 + produced, take);
					/* AVX2 also under avx512: the 512-bit scan lost ~8%
					 * (bench/RESULTS.md). */
					if (isa >= CDC_ISA_AVX2)
						prev = cdc_delta_prefix32_avx2(out32 + produced, take,
													   (uint32_t) min_delta,
													   (uint32_t) prev);
					else
						prev = prefix32_scalar(out32 + produced, take,
											   (uint32_t) min_delta,
											   (uint32_t) prev);
				}
				produced += take;
			}
			pos += bytes;
			in_block -= n;
			deltas_left -= n;
		}
	}
	*consumed = (size_t) (pos - in);
	return CDC_OK;
}

/*
 * Decode the first count values (count <= the header's total, else
 * CDC_ERR_TRUNCATED) into out (room for count + CDC_OUTPUT_SLACK).
 * *consumed = bytes of the whole stream.  Widths above 32 are corrupt for
 * INT32; first value and min deltas are taken modulo 2^32.
 */
CdcStatus
cdc_delta_binary_decode32(const uint8_t *in, size_t in_len,
						  int32_t *out, size_t count, size_t *consumed)
{
	return delta_decode_body(in, in_len, out, count, consumed, false);
}

CdcStatus
cdc_delta_binary_decode64(const uint8_t *in, size_t in_len,
						  int64_t *out, size_t count, size_t *consumed)
{
	return delta_decode_body(in, in_len, out, count, consumed, true);
}

CdcStatus
cdc_delta_binary_header_count(const uint8_t *in, size_t in_len,
							  uint64_t *total_count)
{
	DeltaHeader h;
	CdcStatus	st = delta_read_header(in, in_len, &h);

	if (st == CDC_OK)
		*total_count = h.total;
	return st;
}

/* ----------------------------------------------------------------
 * Encoder
 * ----------------------------------------------------------------
 */

/*
 * A capacity that suffices for every layout with block size <= 1024: a
 * 40-byte header; per block at most a 10-byte min delta and 32 width bytes
 * (counted as if blocks held 128 values); deltas at full width plus up to
 * 1024 values of padding in the last miniblock.
 */
size_t
cdc_delta_binary_max_size(size_t count, bool is64)
{
	size_t		value_bytes = is64 ? 8 : 4;

	return 4 * CDC_ULEB128_MAX_BYTES + (count / 128 + 1) * 42 +
		(count + 1024) * value_bytes;
}

/* Signed delta of value i (i >= 1) in the column's width. */
static inline int64_t
delta_at(CdcDeltaValueFn value, const void *arg, size_t i, bool is64)
{
	uint64_t	d = value(arg, i) - value(arg, i - 1);

	return is64 ? (int64_t) d : (int64_t) (int32_t) (uint32_t) d;
}

/* Bits needed for v (0 for 0). */
static inline unsigned
bits_needed(uint64_t v)
{
	return v == 0 ? 0 : 64 - (unsigned) __builtin_clzll(v);
}

CdcStatus
cdc_delta_binary_encode_fn(CdcDeltaValueFn value, const void *arg,
						   size_t count, bool is64,
						   uint32_t block_size, uint32_t miniblocks,
						   uint8_t *out, size_t out_cap, size_t *written)
{
	const uint64_t value_mask = is64 ? UINT64_MAX : UINT32_MAX;
	uint32_t	mini_values;
	uint8_t    *o = out;
	uint8_t    *o_end = out + out_cap;
	int64_t		first = 0;
	size_t		next = 1;		/* index of the first value of the next block */

	if (block_size == 0 || block_size % 128 != 0 || block_size > DELTA_MAX_BLOCK ||
		miniblocks == 0 || block_size % miniblocks != 0 ||
		(block_size / miniblocks) % 32 != 0)
		return CDC_ERR_INVALID_ARGUMENT;
	mini_values = block_size / miniblocks;

	if (count > 0)
		first = is64 ? (int64_t) value(arg, 0) : (int64_t) (int32_t) (uint32_t) value(arg, 0);
	if ((size_t) (o_end - o) < 4 * CDC_ULEB128_MAX_BYTES)
		return CDC_ERR_OUTPUT_FULL;
	o += cdc_uleb128_write(o, block_size);
	o += cdc_uleb128_write(o, miniblocks);
	o += cdc_uleb128_write(o, count);
	o += cdc_uleb128_write(o, cdc_zigzag_encode64(first));

	while (next < count)
	{
		size_t		in_block = count - next < block_size ? count - next : block_size;
		int64_t		min_delta = INT64_MAX;
		uint8_t    *widths;

		for (size_t i = next; i < next + in_block; i++)
		{
			int64_t		d = delta_at(value, arg, i, is64);

			min_delta = d < min_delta ? d : min_delta;
		}
		if ((size_t) (o_end - o) < CDC_ULEB128_MAX_BYTES + miniblocks)
			return CDC_ERR_OUTPUT_FULL;
		o += cdc_uleb128_write(o, cdc_zigzag_encode64(min_delta));
		widths = o;
		memset(widths, 0, miniblocks);	/* unused miniblocks: width 0 */
		o += miniblocks;

		for (uint32_t m = 0; m * (size_t) mini_values < in_block; m++)
		{
			size_t		start = next + (size_t) m * mini_values;
			size_t		n = next + in_block - start;
			uint64_t	rel_bits = 0;	/* OR of all: same top bit as max */
			unsigned	w;

			if (n > mini_values)
				n = mini_values;
			for (size_t i = start; i < start + n; i++)
				rel_bits |= ((uint64_t) delta_at(value, arg, i, is64) - (uint64_t) min_delta) & value_mask;
			w = bits_needed(rel_bits);
			widths[m] = (uint8_t) w;
			if ((size_t) (o_end - o) < (size_t) mini_values / 8 * w)
				return CDC_ERR_OUTPUT_FULL;

			/* 32 values of width w fill exactly 4w bytes; pad with zeros. */
			for (size_t c = 0; c < mini_values; c += 32)
			{
				uint64_t	rel[32] = {0};
				size_t		wrote;

				for (size_t j = 0; j < 32 && c + j < n; j++)
					rel[j] = ((uint64_t) delta_at(value, arg, start + c + j, is64) -
							  (uint64_t) min_delta) & value_mask;
				if (cdc_pack64(rel, 32, w, o, (size_t) (o_end - o), &wrote) != CDC_OK)
					return CDC_ERR_OUTPUT_FULL;
				o += wrote;
			}
		}
		next += in_block;
	}
	*written = (size_t) (o - out);
	return CDC_OK;
}

static uint64_t
value_of_int32(const void *arg, size_t i)
{
	return (uint32_t) ((const int32_t *) arg)[i];
}

static uint64_t
value_of_int64(const void *arg, size_t i)
{
	return (uint64_t) ((const int64_t *) arg)[i];
}

CdcStatus
cdc_delta_binary_encode32(const int32_t *in, size_t count,
						  uint32_t block_size, uint32_t miniblocks,
						  uint8_t *out, size_t out_cap, size_t *written)
{
	return cdc_delta_binary_encode_fn(value_of_int32, in, count, false,
									  block_size, miniblocks,
									  out, out_cap, written);
}

CdcStatus
cdc_delta_binary_encode64(const int64_t *in, size_t count,
						  uint32_t block_size, uint32_t miniblocks,
						  uint8_t *out, size_t out_cap, size_t *written)
{
	return cdc_delta_binary_encode_fn(value_of_int64, in, count, true,
									  block_size, miniblocks,
									  out, out_cap, written);
}
