/*-------------------------------------------------------------------------
 *
 * fuzz_bss.c
 *	  libFuzzer target: the BYTE_STREAM_SPLIT decoder on arbitrary bytes.
 *
 * Input layout: byte 0 = width (0..40; 0 is an invalid argument); bytes
 * 1..2 = first value, 3..4 = count (little-endian); the rest is the page,
 * copied to a heap buffer of exactly in_len + CDC_INPUT_PADDING bytes.
 *
 * Oracles: every ISA gives the same status and bytes; a successful range
 * equals the naive definition; re-encoding a whole page gives the input.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_bss.c
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
	size_t		width,
				first,
				count,
				in_len;
	uint8_t    *in,
			   *ref,
			   *got;
	CdcStatus	st0,
				st;
	CdcIsa		saved = cdc_isa_current();

	if (size < 5)
		return 0;
	width = data[0] % 41;
	first = data[1] | (size_t) data[2] << 8;
	count = data[3] | (size_t) data[4] << 8;
	in_len = size - 5;
	in = malloc(in_len + CDC_INPUT_PADDING);
	memcpy(in, data + 5, in_len);
	memset(in + in_len, 0x5A, CDC_INPUT_PADDING);
	ref = malloc(count * (width ? width : 1) + 1);
	got = malloc(count * (width ? width : 1) + 1);

	cdc_set_isa(CDC_ISA_SCALAR);
	st0 = cdc_bss_decode_range(in, in_len, width, first, ref, count);
	if (st0 == CDC_OK)
	{
		size_t		n = in_len / width;

		for (size_t i = 0; i < count; i++)
			for (size_t k = 0; k < width; k++)
				if (ref[i * width + k] != in[k * n + first + i])
					abort();
	}
	for (int isa = 1; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		st = cdc_bss_decode_range(in, in_len, width, first, got, count);
		if (st != st0 || (st == CDC_OK && memcmp(got, ref, count * width) != 0))
			abort();
	}
	cdc_set_isa(saved);

	/* Whole page: decode, encode, compare with the input. */
	if (width > 0 && in_len % width == 0)
	{
		size_t		n = in_len / width;
		uint8_t    *vals = malloc(in_len + 1);
		uint8_t    *enc = malloc(in_len + 1);
		size_t		written = 0;

		if (cdc_bss_decode(in, in_len, width, vals, n) != CDC_OK ||
			cdc_bss_encode(vals, width, n, enc, in_len, &written) != CDC_OK ||
			written != in_len || memcmp(enc, in, in_len) != 0)
			abort();
		free(vals);
		free(enc);
	}
	free(in);
	free(ref);
	free(got);
	return 0;
}
