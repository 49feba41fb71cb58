/*-------------------------------------------------------------------------
 *
 * fuzz_fastlanes.c
 *	  libFuzzer target: FastLanes FLBitPack / FFOR decoders and packers on
 *	  arbitrary bytes.
 *
 * Input layout: byte 0 = type (bits 0..1: 8, 16, 32, 64-bit values); byte 1
 * = width (0..71, so invalid widths occur); bytes 2..3 = value count
 * (little-endian, modulo 5000); bytes 4..11 = reference; the rest is the
 * packed input, copied to a heap buffer of exactly in_len +
 * CDC_INPUT_PADDING bytes at an offset of 0 or 1 (byte 0 bit 2), so both the
 * aligned and the misaligned path run.  Outputs are heap buffers of exactly
 * count values.
 *
 * Oracles: the status is TRUNCATED / CORRUPT / OK exactly as the exact-size
 * rule says; every ISA gives the scalar values; on success, packing the
 * values again and decoding gives the same values, and when the count is a
 * multiple of 1024 the packed bytes equal the input.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_fastlanes.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/fastlanes.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static CdcStatus
decode(unsigned bits, const uint8_t *in, size_t len, unsigned w, uint64_t ref,
	   void *out, size_t count)
{
	switch (bits)
	{
		case 8:
			return cdc_ffor_decode8(in, len, w, (uint8_t) ref, out, count);
		case 16:
			return cdc_ffor_decode16(in, len, w, (uint16_t) ref, out, count);
		case 32:
			return cdc_ffor_decode32(in, len, w, (uint32_t) ref, out, count);
		default:
			return cdc_ffor_decode64(in, len, w, ref, out, count);
	}
}

static CdcStatus
encode(unsigned bits, const void *vals, size_t count, uint64_t ref, unsigned w,
	   uint8_t *out, size_t cap, size_t *written)
{
	switch (bits)
	{
		case 8:
			return cdc_ffor_encode8(vals, count, (uint8_t) ref, w, out, cap, written);
		case 16:
			return cdc_ffor_encode16(vals, count, (uint16_t) ref, w, out, cap, written);
		case 32:
			return cdc_ffor_encode32(vals, count, (uint32_t) ref, w, out, cap, written);
		default:
			return cdc_ffor_encode64(vals, count, ref, w, out, cap, written);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned bits_of[4] = {8, 16, 32, 64};
	unsigned	bits,
				w,
				shift;
	size_t		count,
				in_len,
				esize,
				need;
	uint64_t	ref;
	uint8_t    *buf,
			   *in;
	void	   *ref_out,
			   *got;
	CdcStatus	st0,
				st;
	CdcIsa		saved = cdc_isa_current();

	if (size < 12)
		return 0;
	bits = bits_of[data[0] & 3];
	shift = (data[0] >> 2) & 1;
	w = data[1] % 72;
	count = (data[2] | (size_t) data[3] << 8) % 5000;
	memcpy(&ref, data + 4, 8);
	in_len = size - 12;
	esize = bits / 8;
	buf = malloc(in_len + CDC_INPUT_PADDING + 1);
	in = buf + shift;
	memcpy(in, data + 12, in_len);
	memset(in + in_len, 0x5A, CDC_INPUT_PADDING);
	ref_out = malloc(count * esize + 1);
	got = malloc(count * esize + 1);

	cdc_set_isa(CDC_ISA_SCALAR);
	st0 = decode(bits, in, in_len, w, ref, ref_out, count);
	need = w <= bits ? cdc_fl_packed_size(count, w) : 0;
	if (w > bits ? st0 != CDC_ERR_CORRUPT :
		in_len < need ? st0 != CDC_ERR_TRUNCATED :
		in_len > need ? st0 != CDC_ERR_CORRUPT : st0 != CDC_OK)
		abort();
	for (int isa = 1; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		st = decode(bits, in, in_len, w, ref, got, count);
		if (st != st0 || (st == CDC_OK && memcmp(got, ref_out, count * esize) != 0))
			abort();
	}
	cdc_set_isa(saved);

	if (st0 == CDC_OK)
	{
		uint8_t    *enc = malloc(need + 1);
		size_t		written = 0;

		if (encode(bits, ref_out, count, ref, w, enc, need, &written) != CDC_OK ||
			written != need)
			abort();
		if (count % 1024 == 0 && memcmp(enc, in, need) != 0)
			abort();
		if (decode(bits, enc, need, w, ref, got, count) != CDC_OK ||
			memcmp(got, ref_out, count * esize) != 0)
			abort();
		free(enc);
	}
	free(got);
	free(ref_out);
	free(buf);
	return 0;
}
