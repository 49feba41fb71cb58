/*-------------------------------------------------------------------------
 *
 * fuzz_chimp.c
 *	  libFuzzer target: the Chimp decoders (f64 and f32) on arbitrary bytes,
 *	  and the encoder's bit-exact round trip on arbitrary floats.
 *
 * Input layout: byte 0 bit 0 = f32 (else f64); bytes 1..2 = value count
 * (little-endian, modulo 4000); the rest is the stream, copied to a heap
 * buffer of exactly its size plus CDC_INPUT_PADDING.  The output is a heap
 * buffer of exactly count values.
 *
 * Oracles: no out-of-bounds access; on success *consumed <= in_len and
 * re-encoding the values, then decoding, gives the same bits; the same
 * bytes read as floats round-trip through encode/decode.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_chimp.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/chimp.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Encode n values (esize bytes each) and decode them back, bit-exact. */
static void
roundtrip(const void *vals, size_t n, int is32)
{
	size_t		cap = is32 ? cdc_chimp_max_size32(n) : cdc_chimp_max_size64(n);
	uint8_t    *enc = malloc(cap + CDC_INPUT_PADDING);
	size_t		esize = is32 ? 4 : 8;
	uint8_t    *back = malloc(n * esize + 1);
	size_t		w = 0,
				used = 0;
	CdcStatus	st;

	st = is32 ? cdc_chimp_encode32(vals, n, enc, cap, &w) :
		cdc_chimp_encode64(vals, n, enc, cap, &w);
	if (st != CDC_OK || w > cap)
		abort();
	memset(enc + w, 0, CDC_INPUT_PADDING);
	st = is32 ? cdc_chimp_decode32(enc, w, (float *) back, n, &used) :
		cdc_chimp_decode64(enc, w, (double *) back, n, &used);
	if (st != CDC_OK || used != w || memcmp(back, vals, n * esize) != 0)
		abort();
	free(enc);
	free(back);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int			is32;
	size_t		count,
				in_len,
				esize,
				used = 0;
	uint8_t    *in,
			   *out;
	CdcStatus	st;

	if (size < 3)
		return 0;
	is32 = data[0] & 1;
	count = (data[1] | (size_t) data[2] << 8) % 4000;
	in_len = size - 3;
	esize = is32 ? 4 : 8;
	in = malloc(in_len + CDC_INPUT_PADDING);
	memcpy(in, data + 3, in_len);
	memset(in + in_len, 0xA5, CDC_INPUT_PADDING);
	out = malloc(count * esize + 1);

	st = is32 ? cdc_chimp_decode32(in, in_len, (float *) out, count, &used) :
		cdc_chimp_decode64(in, in_len, (double *) out, count, &used);
	if (st == CDC_OK)
	{
		if (used > in_len)
			abort();
		roundtrip(out, count, is32);
	}
	else if (st != CDC_ERR_TRUNCATED && st != CDC_ERR_CORRUPT)
		abort();
	free(out);
	free(in);

	roundtrip(data + 3, (size - 3) / esize, is32);
	return 0;
}
