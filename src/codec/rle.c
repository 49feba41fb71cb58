/*-------------------------------------------------------------------------
 *
 * rle.c
 *	  RLE / bit-packing hybrid: streaming decoder and encoder.
 *
 * Stream grammar (parquet-format Encodings.md, RLE = 3): a sequence of runs,
 * each introduced by a ULEB128 header h.  h & 1 = 1: a literal run of
 * (h >> 1) groups of 8 values bit-packed LSB first ((h >> 1) * bit_width
 * bytes).  h & 1 = 0: a repeated run of (h >> 1) copies of one value stored
 * little-endian in ceil(bit_width / 8) bytes.  Levels of v1 pages and RLE
 * booleans put a 4-byte little-endian byte length in front.
 *
 * Design notes: the decoder validates each run once, when its header is
 * read: run lengths above 2^31 - 1 (the spec's limit) and repeated values
 * wider than bit_width are CDC_ERR_CORRUPT.  Writers sometimes declare more
 * literal groups than the page holds values and end the stream early, so a
 * literal run is clamped to the whole values its bytes really contain;
 * asking for values beyond them is CDC_ERR_TRUNCATED, asking for fewer is
 * fine.  Repeated runs are expanded with a vector fill, literal runs go
 * through the per-width unpack kernels of the current ISA (whole groups in
 * one call; a group split across calls resumes through a scalar extract).
 * Kernels over-read into the caller's input padding and over-write into
 * the output slack as kernels.h allows; since outputs hold count +
 * CDC_OUTPUT_SLACK values, a run written at out + k with k + n <= count may
 * spill 15 values and stay inside the buffer.
 *
 * The encoder is greedy: a value repeated at least 8 times becomes a
 * repeated run, everything else goes into literal runs of whole groups
 * (the last group padded with zeros).
 *
 * IDENTIFICATION
 *	  src/codec/rle.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"
#include "codec/varint.h"

#include <string.h>

/* Longest run the spec allows (2^31 - 1 values). */
#define RLE_MAX_RUN		((uint32_t) INT32_MAX)

/* Values decoded per step when narrowing to int16. */
#define RLE16_CHUNK		256

static CdcStatus
rle_init_common(CdcRleDecoder *dec, const uint8_t *in, size_t in_len,
				unsigned bit_width)
{
	memset(dec, 0, sizeof(*dec));
	if (bit_width > 32)
		return CDC_ERR_CORRUPT;
	dec->pos = in;
	dec->end = in + in_len;
	dec->bit_width = bit_width;
	dec->literal_pos = in;
	return CDC_OK;
}

/*
 * Start decoding in[0..in_len) at bit_width (0..32).  A width above 32
 * comes from a corrupt page (dictionary index width byte): CDC_ERR_CORRUPT.
 */
CdcStatus
cdc_rle_init(CdcRleDecoder *dec, const uint8_t *in, size_t in_len,
			 unsigned bit_width)
{
	return rle_init_common(dec, in, in_len, bit_width);
}

/*
 * Start decoding a length-prefixed stream; the prefix must fit in in_len.
 * *consumed = 4 + the prefixed length.
 */
CdcStatus
cdc_rle_init_prefixed(CdcRleDecoder *dec, const uint8_t *in, size_t in_len,
					  unsigned bit_width, size_t *consumed)
{
	uint32_t	len;
	CdcStatus	st;

	st = rle_init_common(dec, in, 0, bit_width);
	if (st != CDC_OK)
		return st;
	if (in_len < 4)
		return CDC_ERR_TRUNCATED;
	len = cdc_load32(in);
	if (len > in_len - 4)
		return CDC_ERR_TRUNCATED;
	st = rle_init_common(dec, in + 4, len, bit_width);
	if (st == CDC_OK)
		*consumed = 4 + (size_t) len;
	return st;
}

/*
 * Why a ULEB128 read failed: the stream ended inside it (truncated), or it
 * does not fit 64 bits (corrupt).
 */
static CdcStatus
uleb128_failure(const uint8_t *pos, const uint8_t *end)
{
	size_t		avail = (size_t) (end - pos);

	if (avail >= CDC_ULEB128_MAX_BYTES)
		return CDC_ERR_CORRUPT;
	for (size_t i = 0; i < avail; i++)
		if ((pos[i] & 0x80) == 0)
			return CDC_ERR_CORRUPT;
	return CDC_ERR_TRUNCATED;
}

/*
 * Read the next run header and set up the run.  Returns CDC_ERR_TRUNCATED
 * at the end of the stream.
 */
static CdcStatus
rle_next_run(CdcRleDecoder *dec)
{
	uint64_t	header;
	uint64_t	n;
	unsigned	w = dec->bit_width;

	if (!cdc_uleb128_read(&dec->pos, dec->end, &header))
		return uleb128_failure(dec->pos, dec->end);
	n = header >> 1;
	if (header & 1)
	{
		size_t		avail = (size_t) (dec->end - dec->pos);
		uint64_t	bytes;

		/* Literal run of n groups of 8. */
		if (n > RLE_MAX_RUN / 8)
			return CDC_ERR_CORRUPT;
		bytes = n * w;
		dec->run_is_literal = true;
		dec->literal_pos = dec->pos;
		dec->literal_skip = 0;
		if (bytes <= avail)
		{
			dec->run_left = (uint32_t) (n * 8);
			dec->pos += bytes;
		}
		else
		{
			/* Cut short by the end of the stream: keep the whole values
			 * present; asking for more will be CDC_ERR_TRUNCATED. */
			dec->run_left = (uint32_t) ((uint64_t) avail * 8 / w);
			dec->pos = dec->end;
		}
	}
	else
	{
		unsigned	nbytes = (w + 7) / 8;
		uint32_t	value = 0;

		if (n > RLE_MAX_RUN)
			return CDC_ERR_CORRUPT;
		if ((size_t) (dec->end - dec->pos) < nbytes)
			return CDC_ERR_TRUNCATED;
		for (unsigned i = 0; i < nbytes; i++)
			value |= (uint32_t) dec->pos[i] << (8 * i);
		if (w < 32 && (value >> w) != 0)
			return CDC_ERR_CORRUPT;
		dec->pos += nbytes;
		dec->run_is_literal = false;
		dec->run_value = value;
		dec->run_left = (uint32_t) n;
	}
	return CDC_OK;
}

/*
 * Take n (<= run_left) values of the current literal run into out (NULL:
 * skip them).  Whole groups go through the unpack kernel.
 */
static void
rle_take_literal(CdcRleDecoder *dec, uint32_t *out, size_t n,
				 const CdcUnpack32Fn *unpack)
{
	unsigned	w = dec->bit_width;

	/* Finish a group a previous call started. */
	if (dec->literal_skip > 0)
	{
		size_t		k = 8 - dec->literal_skip;

		if (k > n)
			k = n;
		if (out)
		{
			for (size_t i = 0; i < k; i++)
				out[i] = cdc_extract32(dec->literal_pos, dec->literal_skip + i, w);
			out += k;
		}
		n -= k;
		dec->run_left -= (uint32_t) k;
		dec->literal_skip += (uint32_t) k;
		if (dec->literal_skip == 8)
		{
			dec->literal_pos += w;
			dec->literal_skip = 0;
		}
	}
	if (n == 0)
		return;
	if (out)
		unpack[w] (dec->literal_pos, out, n);
	dec->literal_pos += (n / 8) * w;
	dec->literal_skip = (uint32_t) (n % 8);
	dec->run_left -= (uint32_t) n;
}

static inline void
fill32(uint32_t *out, uint32_t value, size_t n, CdcIsa isa)
{
	if (isa >= CDC_ISA_AVX512)
		cdc_fill32_avx512(out, value, n);
	else if (isa >= CDC_ISA_AVX2)
		cdc_fill32_avx2(out, value, n);
	else
		for (size_t i = 0; i < n; i++)
			out[i] = value;
}

/* Decode (out != NULL) or skip count values. */
static CdcStatus
rle_decode_impl(CdcRleDecoder *dec, uint32_t *out, size_t count)
{
	CdcIsa		isa = cdc_isa_current();
	const CdcUnpack32Fn *unpack = cdc_unpack32_table(isa);

	while (count > 0)
	{
		size_t		n;

		if (dec->run_left == 0)
		{
			CdcStatus	st = rle_next_run(dec);

			if (st != CDC_OK)
				return st;
			continue;
		}
		n = dec->run_left < count ? dec->run_left : count;
		if (dec->run_is_literal)
			rle_take_literal(dec, out, n, unpack);
		else
		{
			if (out)
				fill32(out, dec->run_value, n, isa);
			dec->run_left -= (uint32_t) n;
		}
		if (out)
			out += n;
		count -= n;
	}
	return CDC_OK;
}

/*
 * Decode exactly count values into out (room for count + CDC_OUTPUT_SLACK).
 * On error the decoder is left mid-stream and should not be used again.
 */
CdcStatus
cdc_rle_decode(CdcRleDecoder *dec, uint32_t *out, size_t count)
{
	return rle_decode_impl(dec, out, count);
}

/* Skip count values. */
CdcStatus
cdc_rle_skip(CdcRleDecoder *dec, size_t count)
{
	return rle_decode_impl(dec, NULL, count);
}

/*
 * Decode count levels into int16 (room for count + CDC_OUTPUT_SLACK).
 * Levels never exceed 15 bits; a wider decoder is CDC_ERR_INVALID_ARGUMENT.
 */
CdcStatus
cdc_rle_decode16(CdcRleDecoder *dec, int16_t *out, size_t count)
{
	uint32_t	buf[RLE16_CHUNK + CDC_OUTPUT_SLACK];
	CdcIsa		isa = cdc_isa_current();

	if (dec->bit_width > 15)
		return CDC_ERR_INVALID_ARGUMENT;
	while (count > 0)
	{
		size_t		n;
		CdcStatus	st;

		/* Repeated runs fill directly, without the bounce buffer. */
		if (dec->run_left > 0 && !dec->run_is_literal)
		{
			int16_t		v = (int16_t) dec->run_value;

			n = dec->run_left < count ? dec->run_left : count;
			if (isa >= CDC_ISA_AVX512)
				cdc_fill16_avx512(out, v, n);
			else
				for (size_t i = 0; i < n; i++)
					out[i] = v;
			dec->run_left -= (uint32_t) n;
		}
		else
		{
			n = count < RLE16_CHUNK ? count : RLE16_CHUNK;
			if (dec->run_left > 0 && dec->run_left < n)
				n = dec->run_left;
			st = rle_decode_impl(dec, buf, n);
			if (st != CDC_OK)
				return st;
			for (size_t i = 0; i < n; i++)
				out[i] = (int16_t) buf[i];
		}
		out += n;
		count -= n;
	}
	return CDC_OK;
}

/* ----------------------------------------------------------------
 * Encoder
 * ----------------------------------------------------------------
 */

/*
 * A capacity cdc_rle_encode() never exceeds: every run but the last covers
 * at least 8 values and costs at most a 5-byte header plus 4 value bytes
 * beyond its packed bits; literal runs pad to whole groups.
 */
size_t
cdc_rle_max_size(size_t count, unsigned bit_width)
{
	if (bit_width > 32)
		bit_width = 32;
	return (count / 8 + 2) * (CDC_ULEB128_MAX_BYTES + 4) +
		cdc_packed_size(count + 8, bit_width);
}

/* Length of the run of equal values starting at in[i] (capped). */
static size_t
run_length_at(const uint32_t *in, size_t i, size_t count, size_t cap)
{
	size_t		j = i + 1;

	while (j < count && j - i < cap && in[j] == in[i])
		j++;
	return j - i;
}

/*
 * Encode count values (each < 2^bit_width) as the hybrid, without length
 * prefix.  *written gets the bytes used.
 */
CdcStatus
cdc_rle_encode(const uint32_t *in, size_t count, unsigned bit_width,
			   uint8_t *out, size_t out_cap, size_t *written)
{
	unsigned	w = bit_width;
	unsigned	value_bytes = (w + 7) / 8;
	size_t		o = 0;
	size_t		i = 0;

	if (w > 32)
		return CDC_ERR_INVALID_ARGUMENT;
	if (w < 32)
		for (size_t k = 0; k < count; k++)
			if ((in[k] >> w) != 0)
				return CDC_ERR_INVALID_ARGUMENT;

	while (i < count)
	{
		size_t		run = run_length_at(in, i, count, RLE_MAX_RUN);

		if (run >= 8)
		{
			if (out_cap - o < CDC_ULEB128_MAX_BYTES + value_bytes)
				return CDC_ERR_OUTPUT_FULL;
			o += cdc_uleb128_write(out + o, (uint64_t) run << 1);
			for (unsigned b = 0; b < value_bytes; b++)
				out[o++] = (uint8_t) (in[i] >> (8 * b));
			i += run;
		}
		else
		{
			/* Literal: whole groups until a run of 8 starts on a group
			 * boundary, or the input ends. */
			size_t		start = i;
			size_t		groups = 0;
			size_t		nvals;
			size_t		nbytes;
			uint32_t	pad[8] = {0};
			size_t		wrote;
			CdcStatus	st;

			do
			{
				groups++;
				i += 8;
			} while (i < count && groups < RLE_MAX_RUN / 8 &&
					 run_length_at(in, i, count, 8) < 8);
			if (i > count)
				i = count;
			nvals = i - start;
			nbytes = groups * w;
			if (out_cap - o < CDC_ULEB128_MAX_BYTES + nbytes)
				return CDC_ERR_OUTPUT_FULL;
			o += cdc_uleb128_write(out + o, ((uint64_t) groups << 1) | 1);
			/* Whole groups straight from the input, a partial last group
			 * padded with zeros. */
			st = cdc_pack32(in + start, nvals / 8 * 8, w, out + o,
							out_cap - o, &wrote);
			if (st != CDC_OK)
				return st;
			o += wrote;
			if (nvals % 8)
			{
				memcpy(pad, in + start + nvals / 8 * 8, (nvals % 8) * sizeof(uint32_t));
				st = cdc_pack32(pad, 8, w, out + o, out_cap - o, &wrote);
				if (st != CDC_OK)
					return st;
				o += wrote;
			}
		}
	}
	*written = o;
	return CDC_OK;
}
