/*-------------------------------------------------------------------------
 *
 * fuzz_bitpack.c
 *	  libFuzzer target: cdc_unpack32 / cdc_unpack64 / cdc_unpack32_msb and
 *	  the packers on arbitrary bytes.
 *
 * Input layout: byte 0 = bit width (0..70, so invalid widths occur), byte 1
 * = mode (0 unpack32, 1 unpack64, 2 unpack32_msb) and in_len shortfall
 * (bits 2..3: claim 0..3 fewer bytes than present), bytes 2..3 = value
 * count (little-endian, up to 65535); the rest is the packed input, copied
 * to a heap buffer of exactly in_len + CDC_INPUT_PADDING bytes.  Outputs are
 * heap buffers of exactly count + CDC_OUTPUT_SLACK values.
 *
 * Oracles: every ISA the CPU has gives the same values as the scalar one;
 * the status is TRUNCATED exactly when in_len < cdc_packed_size(); and on
 * success packing the values again reproduces the input bits (the unused
 * bits of the last byte masked off).
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_bitpack.c
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
	unsigned	w;
	unsigned	mode;
	size_t		count;
	size_t		in_len;
	size_t		need;
	uint8_t    *in;
	void	   *out[CDC_ISA_COUNT] = {0};
	size_t		elem;
	CdcStatus	st[CDC_ISA_COUNT];
	CdcIsa		saved = cdc_isa_current();

	if (size < 4)
		return 0;
	w = data[0] % 71;
	mode = data[1] % 3;
	count = data[2] | (size_t) data[3] << 8;
	in_len = size - 4;
	if (in_len >= ((data[1] >> 2) & 3))
		in_len -= (data[1] >> 2) & 3;
	elem = mode == 1 ? 8 : 4;
	in = malloc(in_len + CDC_INPUT_PADDING);
	memcpy(in, data + 4, in_len);
	memset(in + in_len, 0xA5, CDC_INPUT_PADDING);
	need = cdc_packed_size(count, w);

	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		out[isa] = malloc((count + CDC_OUTPUT_SLACK) * elem);
		if (mode == 0)
			st[isa] = cdc_unpack32(in, in_len, w, out[isa], count);
		else if (mode == 1)
			st[isa] = cdc_unpack64(in, in_len, w, out[isa], count);
		else
			st[isa] = cdc_unpack32_msb(in, in_len, w, out[isa], count);

		if (w > (mode == 1 ? 64u : 32u))
		{
			if (st[isa] != CDC_ERR_INVALID_ARGUMENT)
				abort();
		}
		else if (count > 0 && in_len < need)
		{
			if (st[isa] != CDC_ERR_TRUNCATED)
				abort();
		}
		else if (st[isa] != CDC_OK)
			abort();
		if (st[isa] != st[0] ||
			(st[isa] == CDC_OK && memcmp(out[isa], out[0], count * elem) != 0))
			abort();
	}
	cdc_set_isa(saved);

	/* Pack again: same bytes, up to the unused bits of the last byte. */
	if (st[0] == CDC_OK && count > 0)
	{
		uint8_t    *re = malloc(need);
		size_t		written = 0;
		CdcStatus	s;

		if (mode == 0)
			s = cdc_pack32(out[0], count, w, re, need, &written);
		else if (mode == 1)
			s = cdc_pack64(out[0], count, w, re, need, &written);
		else
			s = cdc_pack32_msb(out[0], count, w, re, need, &written);
		if (s != CDC_OK || written != need)
			abort();
		if (need > 0)
		{
			unsigned	used = (unsigned) ((count * w) % 8);
			uint8_t		last_mask = used == 0 ? 0xFF
				: (mode == 2 ? (uint8_t) (0xFF << (8 - used)) : (uint8_t) ((1u << used) - 1));

			if (memcmp(re, in, need - 1) != 0 ||
				(re[need - 1] & last_mask) != (in[need - 1] & last_mask))
				abort();
		}
		free(re);
	}
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
		free(out[isa]);
	free(in);
	return 0;
}
