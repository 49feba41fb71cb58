/*-------------------------------------------------------------------------
 *
 * compress.h
 *	  One interface over the block compressors Parquet and Amudai use.
 *
 * Plain C, no PostgreSQL.  Codec ids are Parquet's CompressionCodec values so
 * the format layer can pass them straight through.  Decompression knows the
 * exact uncompressed size (the page header says it) and fails unless the
 * compressed bytes produce exactly that many; it never writes past out_len
 * and never reads past in + in_len, whatever the input.
 *
 * The third-party libraries may allocate internally (zlib, zstd, brotli do);
 * nothing leaks and nothing aborts.  One file per codec: snappy.c, gzip.c,
 * zstd.c, lz4.c (raw, Hadoop-framed and its unframed variant), brotli.c.
 *
 * IDENTIFICATION
 *	  src/compress/compress.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CMP_COMPRESS_H
#define CMP_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parquet's CompressionCodec enum values. */
typedef enum CmpCodec
{
	CMP_UNCOMPRESSED = 0,
	CMP_SNAPPY = 1,
	CMP_GZIP = 2,
	CMP_LZO = 3,
	CMP_BROTLI = 4,
	CMP_LZ4_HADOOP = 5,			/* Parquet "LZ4": Hadoop framing, or unframed */
	CMP_ZSTD = 6,
	CMP_LZ4_RAW = 7,
	CMP_CODEC_COUNT
} CmpCodec;

typedef enum CmpStatus
{
	CMP_OK = 0,
	CMP_ERR_CORRUPT,			/* compressed bytes are invalid */
	CMP_ERR_SIZE_MISMATCH,		/* valid, but not exactly out_len bytes */
	CMP_ERR_UNSUPPORTED,		/* LZO, or an unknown codec id */
	CMP_ERR_OUTPUT_FULL,		/* compressor output capacity too small */
	CMP_ERR_NOMEM				/* a library failed to allocate */
} CmpStatus;

/* Lowercase, no final period. */
const char *cmp_status_message(CmpStatus status);

/* "UNCOMPRESSED", "SNAPPY", ... as Parquet spells them; "unknown" otherwise. */
const char *cmp_codec_name(int codec);

/* Whether this build can decompress / compress the codec. */
bool		cmp_codec_supported(int codec);

/*
 * Decompress in[0..in_len) into exactly out_len bytes at out.
 */
CmpStatus	cmp_decompress(int codec, const uint8_t *in, size_t in_len,
						   uint8_t *out, size_t out_len);

/* Output capacity that always suffices for cmp_compress(). */
size_t		cmp_compress_bound(int codec, size_t in_len);

/*
 * Compress with the codec's default level when level == 0.  CMP_LZ4_HADOOP
 * writes Hadoop framing.  *written gets the compressed length.
 */
CmpStatus	cmp_compress(int codec, int level, const uint8_t *in, size_t in_len,
						 uint8_t *out, size_t out_cap, size_t *written);

/*
 * Memory the codec libraries hold through this layer's allocation hooks:
 * zstd's contexts, zlib's inflate and deflate state, brotli's decoder (lz4's
 * frame context and brotli's one-shot encoder use their own malloc and are
 * not counted).  Every decompression frees what it allocated before it
 * returns, except the contexts kept for the whole process (zstd's, created
 * on first use), so bytes_in_use does not grow with the pages decoded.
 */
typedef struct CmpMemoryStats
{
	size_t		bytes_in_use;	/* allocated and not yet freed */
	size_t		peak_bytes;		/* the most in use at once */
	uint64_t	allocations;	/* calls */
	uint64_t	frees;
} CmpMemoryStats;

void		cmp_memory_stats(CmpMemoryStats *stats);

/*
 * Library names and versions linked into this build, e.g.
 * "snappy 1.1.9, zlib 1.2.13, zstd 1.5.4, lz4 1.9.4, brotli 1.0.9".
 */
const char *cmp_library_versions(void);

#ifdef __cplusplus
}
#endif

#endif							/* CMP_COMPRESS_H */
