/*-------------------------------------------------------------------------
 *
 * fuzz_patched.c
 *	  libFuzzer target: the patched bit-packing decoders (u64 and u32) on
 *	  arbitrary blocks, and the encoder's round trip on arbitrary values.
 *
 * Input layout: byte 0 bit 0 = u32 (else u64); bytes 1..2 = value count
 * (little-endian, modulo 5000); byte 3 bit 0 = patch the block's count
 * field to match (so the decoder gets past it); the rest is the block,
 * copied to a heap buffer of exactly its size plus CDC_INPUT_PADDING.  The
 * output is a heap buffer of exactly count values.
 *
 * Oracles: no out-of-bounds access; every ISA gives the same status and
 * values; a successful decode re-encodes and decodes to the same values;
 * the same bytes read as integers round-trip.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_patched.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/patched_bitpack.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static CdcStatus
decode(int is32, const uint8_t *in, size_t len, void *out, size_t n)
{
	return is32 ? cdc_pfor_decode32(in, len, out, n) : cdc_pfor_decode64(in, len, out, n);
}

static void
roundtrip(const void *vals, size_t n, int is32)
{
	size_t		cap = is32 ? cdc_pfor_max_size32(n) : cdc_pfor_max_size64(n);
	uint8_t    *enc = malloc(cap + CDC_INPUT_PADDING);
	size_t		esize = is32 ? 4 : 8;
	uint8_t    *back = malloc(n * esize + 1);
	size_t		w = 0;
	CdcStatus	st;

	st = is32 ? cdc_pfor_encode32(vals, n, enc, cap, &w) :
		cdc_pfor_encode64(vals, n, enc, cap, &w);
	if (st != CDC_OK || w > cap)
		abort();
	memset(enc + w, 0, CDC_INPUT_PADDING);
	if (decode(is32, enc, w, back, n) != CDC_OK || memcmp(back, vals, n * esize) != 0)
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
				esize;
	uint8_t    *in,
			   *out,
			   *out2;
	CdcStatus	st0,
				st;
	CdcIsa		saved = cdc_isa_current();

	if (size < 4)
		return 0;
	is32 = data[0] & 1;
	count = (data[1] | (size_t) data[2] << 8) % 5000;
	in_len = size - 4;
	esize = is32 ? 4 : 8;
	in = malloc(in_len + CDC_INPUT_PADDING);
	memcpy(in, data + 4, in_len);
	memset(in + in_len, 0xA5, CDC_INPUT_PADDING);
	if ((data[3] & 1) && in_len >= 4)
	{
		uint32_t	n32 = (uint32_t) count;

		memcpy(in, &n32, 4);
	}
	out = malloc(count * esize + 1);
	out2 = malloc(count * esize + 1);

	cdc_set_isa(CDC_ISA_SCALAR);
	st0 = decode(is32, in, in_len, out, count);
	for (int isa = 1; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		st = decode(is32, in, in_len, out2, count);
		if (st != st0 || (st == CDC_OK && memcmp(out, out2, count * esize) != 0))
			abort();
	}
	cdc_set_isa(saved);
	if (st0 == CDC_OK)
		roundtrip(out, count, is32);
	free(out);
	free(out2);
	free(in);

	/* the raw bytes as values (copied: the encoder takes typed arrays) */
	{
		size_t		n = (size - 4) / esize;
		uint64_t   *vals = malloc(n * esize + 8);

		memcpy(vals, data + 4, n * esize);
		roundtrip(vals, n, is32);
		free(vals);
	}
	return 0;
}
