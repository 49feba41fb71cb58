/*-------------------------------------------------------------------------
 *
 * fuzz_group_varint.c
 *	  libFuzzer target: the GroupVarInt decoders on arbitrary bytes.
 *
 * Input layout: byte 0 bit 0 = 64-bit; bytes 1..2 = value count
 * (little-endian); the rest is the stream, copied to a heap buffer of
 * exactly in_len + CDC_INPUT_PADDING bytes.  The output holds exactly
 * count + CDC_OUTPUT_SLACK values.
 *
 * Oracles: every ISA gives the same status, values and consumed; consumed
 * never exceeds the input; whatever decodes re-encodes
 * and decodes to the same values, and the re-encoding is no longer than
 * what was consumed (the encoder picks the shortest lengths).
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_group_varint.c
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
	int			is64;
	size_t		count,
				in_len,
				consumed = 0;
	uint8_t    *in;
	uint64_t   *out,
			   *back;
	CdcStatus	st;

	if (size < 3)
		return 0;
	is64 = data[0] & 1;
	count = data[1] | (size_t) data[2] << 8;
	in_len = size - 3;
	in = malloc(in_len + CDC_INPUT_PADDING);
	memcpy(in, data + 3, in_len);
	memset(in + in_len, 0x5A, CDC_INPUT_PADDING);
	out = malloc((count + CDC_OUTPUT_SLACK) * 8);
	back = malloc((count + CDC_OUTPUT_SLACK) * 8);

	st = is64 ? cdc_group_varint_decode64(in, in_len, out, count, &consumed)
		: cdc_group_varint_decode32(in, in_len, (uint32_t *) out, count, &consumed);

	/* Every ISA agrees with the current one. */
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		CdcIsa		saved = cdc_isa_current();
		size_t		c2 = 0;
		CdcStatus	st2;

		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		st2 = is64 ? cdc_group_varint_decode64(in, in_len, back, count, &c2)
			: cdc_group_varint_decode32(in, in_len, (uint32_t *) back, count, &c2);
		cdc_set_isa(saved);
		if (st2 != st || (st == CDC_OK && (c2 != consumed ||
										   memcmp(back, out, count * (is64 ? 8 : 4)) != 0)))
			abort();
	}
	if (st == CDC_OK)
	{
		size_t		cap = cdc_group_varint_max_size(count, is64);
		uint8_t    *enc = malloc(cap + CDC_INPUT_PADDING);
		size_t		written = 0,
					c = 0;

		if (consumed > in_len)
			abort();
		st = is64 ? cdc_group_varint_encode64(out, count, enc, cap, &written)
			: cdc_group_varint_encode32((uint32_t *) out, count, enc, cap, &written);
		if (st != CDC_OK || written > cap || written > consumed)
			abort();
		memset(enc + written, 0, CDC_INPUT_PADDING);
		st = is64 ? cdc_group_varint_decode64(enc, written, back, count, &c)
			: cdc_group_varint_decode32(enc, written, (uint32_t *) back, count, &c);
		if (st != CDC_OK || c != written ||
			memcmp(back, out, count * (is64 ? 8 : 4)) != 0)
			abort();
		free(enc);
	}
	else if (st != CDC_ERR_TRUNCATED)
		abort();
	free(in);
	free(out);
	free(back);
	return 0;
}
