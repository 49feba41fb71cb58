/*-------------------------------------------------------------------------
 *
 * compress.c
 *	  Codec dispatch, names, status messages and library versions.
 *
 * The per-codec files do the work; this file maps Parquet's codec ids onto
 * them and settles the cases every codec shares, so the codec files never
 * see a NULL pointer:
 *
 *	- an unknown codec id or LZO is CMP_ERR_UNSUPPORTED;
 *	- UNCOMPRESSED is a copy whose sizes must agree exactly;
 *	- an empty input decodes to an empty output.  No codec's own encoding of
 *	  nothing is empty, but writers skip compressing empty page sections
 *	  (data page v2 with no values), so zero bytes in and zero bytes wanted
 *	  is accepted for every codec; zero bytes in and some bytes wanted is a
 *	  truncated stream, CMP_ERR_CORRUPT.
 *
 * IDENTIFICATION
 *	  src/compress/compress.c
 *
 *-------------------------------------------------------------------------
 */
#include "compress/compress_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <brotli/decode.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

/* Something for a zero-length buffer to point at. */
static uint8_t cmp_empty_byte;

/* Library memory, counted by cmp_lib_alloc / cmp_lib_free. */
static CmpMemoryStats cmp_lib_memory;

/* Room before each hooked allocation for its size (keeps malloc's alignment). */
#define CMP_LIB_HEADER 16

void *
cmp_lib_alloc(void *opaque, size_t size)
{
	uint8_t    *p;

	(void) opaque;
	if (size > SIZE_MAX - CMP_LIB_HEADER)
		return NULL;
	p = malloc(size + CMP_LIB_HEADER);
	if (p == NULL)
		return NULL;
	memcpy(p, &size, sizeof(size));
	cmp_lib_memory.bytes_in_use += size;
	if (cmp_lib_memory.bytes_in_use > cmp_lib_memory.peak_bytes)
		cmp_lib_memory.peak_bytes = cmp_lib_memory.bytes_in_use;
	cmp_lib_memory.allocations++;
	return p + CMP_LIB_HEADER;
}

void
cmp_lib_free(void *opaque, void *ptr)
{
	uint8_t    *p;
	size_t		size;

	(void) opaque;
	if (ptr == NULL)
		return;
	p = (uint8_t *) ptr - CMP_LIB_HEADER;
	memcpy(&size, p, sizeof(size));
	cmp_lib_memory.bytes_in_use -= size;
	cmp_lib_memory.frees++;
	free(p);
}

void
cmp_memory_stats(CmpMemoryStats *stats)
{
	*stats = cmp_lib_memory;
}

const char *
cmp_status_message(CmpStatus status)
{
	switch (status)
	{
		case CMP_OK:
			return "success";
		case CMP_ERR_CORRUPT:
			return "compressed data is corrupt";
		case CMP_ERR_SIZE_MISMATCH:
			return "decompressed size does not match the expected size";
		case CMP_ERR_UNSUPPORTED:
			return "compression codec is not supported";
		case CMP_ERR_OUTPUT_FULL:
			return "compressed output does not fit the buffer";
		case CMP_ERR_NOMEM:
			return "out of memory in the compression library";
	}
	return "unknown compression status";
}

const char *
cmp_codec_name(int codec)
{
	switch (codec)
	{
		case CMP_UNCOMPRESSED:
			return "UNCOMPRESSED";
		case CMP_SNAPPY:
			return "SNAPPY";
		case CMP_GZIP:
			return "GZIP";
		case CMP_LZO:
			return "LZO";
		case CMP_BROTLI:
			return "BROTLI";
		case CMP_LZ4_HADOOP:
			return "LZ4";
		case CMP_ZSTD:
			return "ZSTD";
		case CMP_LZ4_RAW:
			return "LZ4_RAW";
	}
	return "unknown";
}

bool
cmp_codec_supported(int codec)
{
	return codec >= 0 && codec < CMP_CODEC_COUNT && codec != CMP_LZO;
}

/*
 * Decompress in[0..in_len) into exactly out_len bytes at out.  Returns
 * CMP_OK only when the input is one valid stream (or, where the format
 * allows it, a sequence of them) producing exactly out_len bytes.
 */
CmpStatus
cmp_decompress(int codec, const uint8_t *in, size_t in_len,
			   uint8_t *out, size_t out_len)
{
	if (!cmp_codec_supported(codec))
		return CMP_ERR_UNSUPPORTED;
	if (in == NULL)
	{
		if (in_len != 0)
			return CMP_ERR_CORRUPT;
		in = &cmp_empty_byte;
	}
	if (out == NULL)
	{
		if (out_len != 0)
			return CMP_ERR_OUTPUT_FULL;
		/* zlib refuses a NULL next_out even with no room asked for */
		out = &cmp_empty_byte;
	}

	if (codec == CMP_UNCOMPRESSED)
	{
		if (in_len != out_len)
			return CMP_ERR_SIZE_MISMATCH;
		if (out_len > 0)
			memcpy(out, in, out_len);
		return CMP_OK;
	}
	if (in_len == 0)
		return out_len == 0 ? CMP_OK : CMP_ERR_CORRUPT;

	switch ((CmpCodec) codec)
	{
		case CMP_SNAPPY:
			return cmp_snappy_decompress(in, in_len, out, out_len);
		case CMP_GZIP:
			return cmp_gzip_decompress(in, in_len, out, out_len);
		case CMP_BROTLI:
			return cmp_brotli_decompress(in, in_len, out, out_len);
		case CMP_LZ4_HADOOP:
			return cmp_lz4_hadoop_decompress(in, in_len, out, out_len);
		case CMP_ZSTD:
			return cmp_zstd_decompress(in, in_len, out, out_len);
		case CMP_LZ4_RAW:
			return cmp_lz4_raw_decompress(in, in_len, out, out_len);
		default:
			break;
	}
	return CMP_ERR_UNSUPPORTED;
}

/*
 * An output capacity for which cmp_compress() cannot fail with
 * CMP_ERR_OUTPUT_FULL; saturates at SIZE_MAX.  0 for codecs this build
 * cannot compress.
 */
size_t
cmp_compress_bound(int codec, size_t in_len)
{
	switch (codec)
	{
		case CMP_UNCOMPRESSED:
			return in_len;
		case CMP_SNAPPY:
			return cmp_snappy_bound(in_len);
		case CMP_GZIP:
			return cmp_gzip_bound(in_len);
		case CMP_BROTLI:
			return cmp_brotli_bound(in_len);
		case CMP_LZ4_HADOOP:
			return cmp_lz4_hadoop_bound(in_len);
		case CMP_ZSTD:
			return cmp_zstd_bound(in_len);
		case CMP_LZ4_RAW:
			return cmp_lz4_raw_bound(in_len);
		default:
			break;
	}
	return 0;
}

/*
 * Compress in[0..in_len) into out[0..out_cap).  Level 0 is the codec's
 * default; other levels are clamped into the codec's range (see each codec
 * file).  On failure *written is 0.
 */
CmpStatus
cmp_compress(int codec, int level, const uint8_t *in, size_t in_len,
			 uint8_t *out, size_t out_cap, size_t *written)
{
	*written = 0;
	if (!cmp_codec_supported(codec))
		return CMP_ERR_UNSUPPORTED;
	if (in == NULL)
	{
		if (in_len != 0)
			return CMP_ERR_CORRUPT;
		in = &cmp_empty_byte;
	}
	if (out == NULL)
	{
		if (out_cap != 0)
			return CMP_ERR_OUTPUT_FULL;
		out = &cmp_empty_byte;
	}

	switch ((CmpCodec) codec)
	{
		case CMP_UNCOMPRESSED:
			if (in_len > out_cap)
				return CMP_ERR_OUTPUT_FULL;
			if (in_len > 0)
				memcpy(out, in, in_len);
			*written = in_len;
			return CMP_OK;
		case CMP_SNAPPY:
			return cmp_snappy_compress(level, in, in_len, out, out_cap, written);
		case CMP_GZIP:
			return cmp_gzip_compress(level, in, in_len, out, out_cap, written);
		case CMP_BROTLI:
			return cmp_brotli_compress(level, in, in_len, out, out_cap, written);
		case CMP_LZ4_HADOOP:
			return cmp_lz4_hadoop_compress(level, in, in_len, out, out_cap, written);
		case CMP_ZSTD:
			return cmp_zstd_compress(level, in, in_len, out, out_cap, written);
		case CMP_LZ4_RAW:
			return cmp_lz4_raw_compress(level, in, in_len, out, out_cap, written);
		default:
			break;
	}
	return CMP_ERR_UNSUPPORTED;
}

/*
 * Versions as the linked libraries report them at run time.  Snappy has no
 * version function, and the header with SNAPPY_MAJOR is C++ only, so snappy
 * is listed by name alone.  Built once into a static buffer (the backend is single-threaded).
 */
const char *
cmp_library_versions(void)
{
	static char versions[160];

	if (versions[0] == '\0')
	{
		uint32_t	brotli = BrotliDecoderVersion();

		snprintf(versions, sizeof(versions),
				 "snappy, zlib %s, zstd %s, lz4 %s, brotli %u.%u.%u",
				 zlibVersion(), ZSTD_versionString(), LZ4_versionString(),
				 (unsigned) (brotli >> 24), (unsigned) ((brotli >> 12) & 0xfff),
				 (unsigned) (brotli & 0xfff));
	}
	return versions;
}
