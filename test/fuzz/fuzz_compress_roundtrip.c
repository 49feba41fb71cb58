/*-------------------------------------------------------------------------
 *
 * fuzz_compress_roundtrip.c
 *	  libFuzzer target: cmp_compress() then cmp_decompress() gives the input
 *	  back, for every codec we can write.
 *
 * Input layout: byte 0 picks the codec (among the seven we compress), byte
 * 1 the level as a signed byte (reduced to keep brotli and zstd fast: the
 * point is the framing and the size handling, not the slowest levels), the
 * rest is the data.
 *
 * Checks: compression into cmp_compress_bound() bytes succeeds and writes
 * no more than that; the result decompresses to exactly the data; with one
 * byte less of room compression fails with CMP_ERR_OUTPUT_FULL; decompressing
 * with out_len one more or one less is CMP_ERR_SIZE_MISMATCH.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_compress_roundtrip.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compress/compress.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int codecs[] = {
	CMP_UNCOMPRESSED, CMP_SNAPPY, CMP_GZIP, CMP_BROTLI, CMP_LZ4_HADOOP,
	CMP_ZSTD, CMP_LZ4_RAW
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int			codec;
	int			level;
	size_t		len;
	uint8_t    *in;
	uint8_t    *comp;
	uint8_t    *out;
	size_t		bound;
	size_t		written = 0;
	size_t		w2 = 0;

	if (size < 2)
		return 0;
	codec = codecs[data[0] % 7];
	level = (int8_t) data[1] % 10;	/* -9..9 */
	len = size - 2;
	in = malloc(len ? len : 1);
	if (len)
		memcpy(in, data + 2, len);

	bound = cmp_compress_bound(codec, len);
	comp = malloc(bound ? bound : 1);
	if (cmp_compress(codec, level, in, len, comp, bound, &written) != CMP_OK ||
		written > bound)
		abort();
	if (written > 0 &&
		cmp_compress(codec, level, in, len, comp, written - 1, &w2) != CMP_ERR_OUTPUT_FULL)
		abort();
	/* the failed attempt may have scribbled on comp: compress again */
	if (cmp_compress(codec, level, in, len, comp, bound, &written) != CMP_OK)
		abort();

	out = malloc(len + 1);
	if (cmp_decompress(codec, comp, written, out, len) != CMP_OK ||
		(len && memcmp(out, in, len) != 0))
		abort();
	if (cmp_decompress(codec, comp, written, out, len + 1) != CMP_ERR_SIZE_MISMATCH)
		abort();
	if (len > 0 &&
		cmp_decompress(codec, comp, written, out, len - 1) != CMP_ERR_SIZE_MISMATCH)
		abort();

	free(in);
	free(comp);
	free(out);
	return 0;
}
