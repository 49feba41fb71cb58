/*-------------------------------------------------------------------------
 *
 * fuzz_decompress.c
 *	  libFuzzer target: cmp_decompress() on arbitrary bytes.
 *
 * Input layout: byte 0 picks the codec id (0..8, so LZO and an unknown id
 * are exercised too), bytes 1..4 are the claimed out_len (little-endian,
 * reduced modulo 1 MB + 1), the rest is the compressed input, copied into
 * an exactly sized heap buffer; out is exactly out_len bytes on the heap.
 * ASan catches any read past in_len or write past out_len.
 *
 * With the top bit of byte 0 set, the rest is plaintext instead: it is
 * compressed with the codec, then byte (bytes 1..2 mod length) is xored with
 * byte 3, and decoded with out_len = plaintext length + (byte 4 mod 9) - 4.
 * The libraries are not instrumented, so blind bytes rarely get deep into
 * their decoders; a valid stream with one damaged byte does.
 *
 * Oracles beyond "no crash": the status is one of the enum's values; LZO
 * and unknown ids are always CMP_ERR_UNSUPPORTED; UNCOMPRESSED is OK exactly
 * when the sizes agree and then copies; a successful decode is repeatable
 * (the static zstd / LZ4F contexts carry no state across calls); and in the
 * mutation mode an undamaged stream (xor 0) decodes to the plaintext when
 * out_len is right and is a size mismatch when it is not.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_decompress.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compress/compress.h"

#define FUZZ_MAX_OUT (1024 * 1024)

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Compress the plaintext, damage one byte, decode with exact-size buffers. */
static int
fuzz_damaged_stream(int codec, const uint8_t *data, size_t size)
{
	const uint8_t *plain = data + 5;
	size_t		plain_len = size - 5;
	size_t		bound = cmp_compress_bound(codec, plain_len);
	uint8_t    *comp = malloc(bound ? bound : 1);
	size_t		comp_len = 0;
	size_t		out_len;
	uint8_t    *in;
	uint8_t    *out;
	int			delta = data[4] % 9 - 4;
	CmpStatus	st;

	if (cmp_compress(codec, 0, plain, plain_len, comp, bound, &comp_len) != CMP_OK)
		abort();
	if (delta < 0 && (size_t) -delta > plain_len)
		delta = 0;
	out_len = plain_len + delta;
	if (comp_len > 0)
		comp[((size_t) data[1] | (size_t) data[2] << 8) % comp_len] ^= data[3];
	in = malloc(comp_len ? comp_len : 1);
	out = malloc(out_len ? out_len : 1);
	if (comp_len)
		memcpy(in, comp, comp_len);
	st = cmp_decompress(codec, in, comp_len, out, out_len);
	if ((int) st < CMP_OK || st > CMP_ERR_NOMEM)
		abort();
	if (data[3] == 0 || comp_len == 0)
	{
		if (delta == 0 && (st != CMP_OK || (out_len && memcmp(out, plain, out_len) != 0)))
			abort();
		if (delta != 0 && st != CMP_ERR_SIZE_MISMATCH)
			abort();
	}
	free(comp);
	free(in);
	free(out);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int			codec;
	size_t		out_len;
	size_t		in_len;
	uint8_t    *in;
	uint8_t    *out;
	CmpStatus	st;

	if (size < 5)
		return 0;
	codec = (data[0] & 0x7f) % 9;
	if ((data[0] & 0x80) && cmp_codec_supported(codec))
		return fuzz_damaged_stream(codec, data, size);
	out_len = ((size_t) data[1] | (size_t) data[2] << 8 |
			   (size_t) data[3] << 16 | (size_t) data[4] << 24) % (FUZZ_MAX_OUT + 1);
	in_len = size - 5;
	in = malloc(in_len ? in_len : 1);
	out = malloc(out_len ? out_len : 1);
	if (in_len)
		memcpy(in, data + 5, in_len);

	st = cmp_decompress(codec, in_len ? in : NULL, in_len, out, out_len);
	if ((int) st < CMP_OK || st > CMP_ERR_NOMEM)
		abort();
	if (!cmp_codec_supported(codec) && st != CMP_ERR_UNSUPPORTED)
		abort();
	if (codec == CMP_UNCOMPRESSED)
	{
		if ((st == CMP_OK) != (in_len == out_len))
			abort();
		if (st == CMP_OK && out_len && memcmp(in, out, out_len) != 0)
			abort();
	}
	if (st == CMP_OK && out_len > 0)
	{
		uint8_t    *again = malloc(out_len);

		if (cmp_decompress(codec, in, in_len, again, out_len) != CMP_OK ||
			memcmp(again, out, out_len) != 0)
			abort();
		free(again);
	}
	free(in);
	free(out);
	return 0;
}
