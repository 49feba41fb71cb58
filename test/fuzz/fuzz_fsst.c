/*-------------------------------------------------------------------------
 *
 * fuzz_fsst.c
 *	  libFuzzer target: FSST table parsing and decompression on arbitrary
 *	  bytes, and the builder/compressor round trip on arbitrary strings.
 *
 * Input layout: byte 0 = symbols count; byte 1 = output capacity selector
 * (0: 8 bytes per code, always enough; otherwise byte 1 * 4 bytes); the rest
 * is the serialized table followed by the code stream, as an FSST payload
 * holds them, copied to a heap buffer of exactly its size plus
 * CDC_INPUT_PADDING.  The output is a heap buffer of exactly capacity +
 * CDC_FSST_OUTPUT_SLACK bytes.
 *
 * Oracles: no out-of-bounds access; a successful decompression fits the
 * capacity and gives the same bytes with a larger capacity; the rest of the
 * input, split into strings at 0x00 bytes, round-trips through
 * cdc_fsst_build / cdc_fsst_compress / cdc_fsst_decompress.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_fsst.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/fsst.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static CdcFsstBuilder *builder;

static void
roundtrip(const uint8_t *bytes, size_t len)
{
	CdcByteView views[256];
	size_t		n = 0,
				start = 0,
				clen,
				dlen;
	CdcFsstTable t;
	uint8_t    *comp = malloc(cdc_fsst_max_compressed(len) + 1);
	uint8_t    *out = malloc(len + CDC_FSST_OUTPUT_SLACK + 1);

	for (size_t i = 0; i <= len && n < 256; i++)
		if (i == len || bytes[i] == 0)
		{
			views[n].ptr = bytes + start;
			views[n].len = (uint32_t) (i - start);
			n++;
			start = i + 1;
		}
	if (builder == NULL)
		builder = malloc(sizeof(CdcFsstBuilder));
	if (cdc_fsst_build(builder, views, n, &t) != CDC_OK)
		abort();
	if (cdc_fsst_compress(&t, bytes, len, comp, cdc_fsst_max_compressed(len), &clen) != CDC_OK)
		abort();
	if (cdc_fsst_decompress(&t, comp, clen, out, len, &dlen) != CDC_OK ||
		dlen != len || (len > 0 && memcmp(out, bytes, len) != 0))
		abort();
	free(comp);
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned	nsym;
	size_t		in_len,
				cap,
				out_len = 0;
	uint8_t    *in,
			   *out;
	CdcFsstTable t;
	CdcStatus	st;

	if (size < 2)
		return 0;
	nsym = data[0];
	in_len = size - 2;
	in = malloc(in_len + CDC_INPUT_PADDING);
	memcpy(in, data + 2, in_len);
	memset(in + in_len, 0xA5, CDC_INPUT_PADDING);

	st = cdc_fsst_table_parse(in, in_len, nsym, &t);
	if (st == CDC_OK)
	{
		const uint8_t *codes = in + 9 * (size_t) nsym;
		size_t		codes_len = in_len - 9 * (size_t) nsym;

		cap = data[1] == 0 ? 8 * codes_len : (size_t) data[1] * 4;
		out = malloc(cap + CDC_FSST_OUTPUT_SLACK);
		st = cdc_fsst_decompress(&t, codes, codes_len, out, cap, &out_len);
		if (st == CDC_OK)
		{
			uint8_t    *big = malloc(8 * codes_len + CDC_FSST_OUTPUT_SLACK);
			size_t		big_len = 0;

			if (out_len > cap)
				abort();
			if (cdc_fsst_decompress(&t, codes, codes_len, big, 8 * codes_len, &big_len) != CDC_OK ||
				big_len != out_len || memcmp(big, out, out_len) != 0)
				abort();
			free(big);
		}
		else if (st != CDC_ERR_CORRUPT && st != CDC_ERR_OUTPUT_FULL)
			abort();
		free(out);
	}
	else if (st != CDC_ERR_CORRUPT && st != CDC_ERR_TRUNCATED)
		abort();
	free(in);

	roundtrip(data + 2, size - 2 < 4096 ? size - 2 : 4096);
	return 0;
}
