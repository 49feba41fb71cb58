/*-------------------------------------------------------------------------
 *
 * fuzz_rle.c
 *	  libFuzzer target: the RLE / bit-packing hybrid decoder (and encoder)
 *	  on arbitrary bytes.
 *
 * Input layout: byte 0 = bit width (0..35, so invalid widths occur) and in
 * bit 7 the length-prefixed form; byte 1 = batch size seed; bytes 2..3 =
 * value count (little-endian); the rest is the stream, copied to a heap
 * buffer of exactly in_len + CDC_INPUT_PADDING bytes.  Outputs are heap
 * buffers of exactly count + CDC_OUTPUT_SLACK values.
 *
 * Oracles: one-call decoding is identical on every ISA (status and values);
 * decoding in batches, with skips, gives the same status and the same values
 * where not skipped; int16 level decoding agrees; no value exceeds the bit
 * width; and a successful decode re-encodes and decodes to the same values.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_rle.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static CdcStatus
init(CdcRleDecoder *dec, const uint8_t *in, size_t len, unsigned w, int prefixed)
{
	size_t		consumed = 0;
	CdcStatus	st;

	if (!prefixed)
		return cdc_rle_init(dec, in, len, w);
	st = cdc_rle_init_prefixed(dec, in, len, w, &consumed);
	if (st == CDC_OK && (consumed < 4 || consumed > len))
		abort();
	return st;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned	w;
	int			prefixed;
	unsigned	batch_seed;
	size_t		count;
	size_t		in_len;
	uint8_t    *in;
	uint32_t   *ref;
	uint32_t   *got;
	int16_t    *got16;
	CdcRleDecoder dec;
	CdcStatus	st0,
				st;
	CdcIsa		saved = cdc_isa_current();

	if (size < 4)
		return 0;
	w = (data[0] & 0x7F) % 36;
	prefixed = data[0] >> 7;
	batch_seed = data[1];
	count = data[2] | (size_t) data[3] << 8;
	in_len = size - 4;
	in = malloc(in_len + CDC_INPUT_PADDING);
	memcpy(in, data + 4, in_len);
	memset(in + in_len, 0x5A, CDC_INPUT_PADDING);
	ref = malloc((count + CDC_OUTPUT_SLACK) * sizeof(uint32_t));
	got = malloc((count + CDC_OUTPUT_SLACK) * sizeof(uint32_t));
	got16 = malloc((count + CDC_OUTPUT_SLACK) * sizeof(int16_t));

	/* Scalar, one call: the reference. */
	cdc_set_isa(CDC_ISA_SCALAR);
	st0 = init(&dec, in, in_len, w, prefixed);
	if (st0 == CDC_OK)
		st0 = cdc_rle_decode(&dec, ref, count);
	if (w > 32 && st0 != CDC_ERR_CORRUPT)
		abort();
	if (st0 == CDC_OK && w < 32)
		for (size_t i = 0; i < count; i++)
			if (ref[i] >> w)
				abort();

	for (int isa = 1; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		st = init(&dec, in, in_len, w, prefixed);
		if (st == CDC_OK)
			st = cdc_rle_decode(&dec, got, count);
		if (st != st0 || (st == CDC_OK && memcmp(got, ref, count * 4) != 0))
			abort();
	}
	cdc_set_isa(saved);

	/* Batches and skips: same outcome. */
	st = init(&dec, in, in_len, w, prefixed);
	if (st == CDC_OK)
	{
		size_t		pos = 0;
		unsigned	s = batch_seed | 1;

		while (pos < count && st == CDC_OK)
		{
			size_t		k = 1 + s % 37;

			s = s * 1103515245u + 12345u;
			if (k > count - pos)
				k = count - pos;
			if ((s >> 16) % 5 == 0)
				st = cdc_rle_skip(&dec, k);
			else
			{
				st = cdc_rle_decode(&dec, got + pos, k);
				if (st == CDC_OK && memcmp(got + pos, ref + pos, k * 4) != 0)
					abort();
			}
			pos += k;
		}
	}
	if (st != st0)
		abort();

	/* Levels. */
	if (w <= 15)
	{
		st = init(&dec, in, in_len, w, prefixed);
		if (st == CDC_OK)
			st = cdc_rle_decode16(&dec, got16, count);
		if (st != st0)
			abort();
		if (st == CDC_OK)
			for (size_t i = 0; i < count; i++)
				if ((uint32_t) got16[i] != ref[i])
					abort();
	}

	/* Re-encode what decoded. */
	if (st0 == CDC_OK)
	{
		size_t		cap = cdc_rle_max_size(count, w);
		uint8_t    *enc = malloc(cap + CDC_INPUT_PADDING);
		size_t		written = 0;

		if (cdc_rle_encode(ref, count, w, enc, cap, &written) != CDC_OK || written > cap)
			abort();
		memset(enc + written, 0, CDC_INPUT_PADDING);
		if (cdc_rle_init(&dec, enc, written, w) != CDC_OK ||
			cdc_rle_decode(&dec, got, count) != CDC_OK ||
			memcmp(got, ref, count * 4) != 0)
			abort();
		free(enc);
	}
	free(got16);
	free(got);
	free(ref);
	free(in);
	return 0;
}
