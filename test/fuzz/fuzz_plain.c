/*-------------------------------------------------------------------------
 *
 * fuzz_plain.c
 *	  libFuzzer target: the PLAIN decoders on arbitrary bytes.
 *
 * Input layout: byte 0 = mode (0 fixed width, 1 boolean, 2 byte array) and
 * for fixed width the width (byte 0 >> 2, 0..63); bytes 1..2 = value count;
 * the rest is the input, in a heap buffer of exactly in_len +
 * CDC_INPUT_PADDING bytes; outputs exactly count (+ slack) values.
 *
 * Oracles: consumed never exceeds in_len; fixed values equal the input
 * bytes; booleans equal the input bits; byte-array views lie inside the
 * input, follow each other and re-encode to exactly the consumed bytes.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_plain.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned	mode;
	size_t		width;
	size_t		count;
	size_t		in_len;
	size_t		consumed = (size_t) -1;
	uint8_t    *in;
	CdcStatus	st;

	if (size < 3)
		return 0;
	mode = data[0] % 3;
	width = data[0] >> 2;
	count = data[1] | (size_t) data[2] << 8;
	in_len = size - 3;
	in = malloc(in_len + CDC_INPUT_PADDING);
	memcpy(in, data + 3, in_len);
	memset(in + in_len, 0, CDC_INPUT_PADDING);

	if (mode == 0)
	{
		uint8_t    *out = malloc(count * (width ? width : 1) + CDC_OUTPUT_SLACK);

		st = cdc_plain_fixed_decode(in, in_len, width, out, count, &consumed);
		if (width == 0 ? st != CDC_ERR_INVALID_ARGUMENT
			: (st == CDC_OK) != (count * width <= in_len))
			abort();
		if (st == CDC_OK && (consumed != count * width || memcmp(out, in, consumed) != 0))
			abort();
		free(out);
	}
	else if (mode == 1)
	{
		uint8_t    *out = malloc(count + CDC_OUTPUT_SLACK);
		uint8_t    *re = malloc(count / 8 + 1);
		size_t		written = 0;

		st = cdc_plain_bool_decode(in, in_len, out, count, &consumed);
		if ((st == CDC_OK) != ((count + 7) / 8 <= in_len))
			abort();
		if (st == CDC_OK)
		{
			if (consumed != (count + 7) / 8)
				abort();
			for (size_t i = 0; i < count; i++)
				if (out[i] != ((in[i / 8] >> (i % 8)) & 1))
					abort();
			if (cdc_plain_bool_encode(out, count, re, count / 8 + 1, &written) != CDC_OK ||
				written != consumed)
				abort();
		}
		free(re);
		free(out);
	}
	else
	{
		CdcByteView *out = malloc((count + CDC_OUTPUT_SLACK) * sizeof(CdcByteView));

		st = cdc_plain_byte_array_decode(in, in_len, out, count, &consumed);
		if (st != CDC_OK && st != CDC_ERR_TRUNCATED)
			abort();
		if (st == CDC_OK)
		{
			const uint8_t *p = in;
			uint8_t    *re = malloc(consumed + 1);
			size_t		written = 0;

			if (consumed > in_len)
				abort();
			for (size_t i = 0; i < count; i++)
			{
				if (out[i].ptr != p + 4 || out[i].ptr + out[i].len > in + in_len)
					abort();
				p = out[i].ptr + out[i].len;
			}
			if ((size_t) (p - in) != consumed)
				abort();
			if (cdc_plain_byte_array_encode(out, count, re, consumed, &written) != CDC_OK ||
				written != consumed || memcmp(re, in, consumed) != 0)
				abort();
			free(re);
		}
		free(out);
	}
	free(in);
	return 0;
}
