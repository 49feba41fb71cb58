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
 * Oracles beyond "no crash": the status is one of the enum's values; LZO
 * and unknown ids are always CMP_ERR_UNSUPPORTED; UNCOMPRESSED is OK exactly
 * when the sizes agree and then copies; and a successful decode is
 * repeatable (the static zstd / LZ4F contexts carry no state across calls).
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
	codec = data[0] % 9;
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
