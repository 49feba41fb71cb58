/*-------------------------------------------------------------------------
 *
 * compress_int.h
 *	  Private interface between compress.c's dispatch and the per-codec files.
 *
 * Each codec file exports a decompressor, a compressor and a bound with the
 * same contracts as the public cmp_* functions in compress.h; compress.c has
 * already handled the codec id, NULL pointers with zero lengths, and the
 * "empty in, empty out" case before calling them, and maps level 0 nowhere:
 * each compressor knows its own default.
 *
 * IDENTIFICATION
 *	  src/compress/compress_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CMP_COMPRESS_INT_H
#define CMP_COMPRESS_INT_H

#include "compress/compress.h"

/* snappy.c */
CmpStatus	cmp_snappy_decompress(const uint8_t *in, size_t in_len,
								  uint8_t *out, size_t out_len);
CmpStatus	cmp_snappy_compress(int level, const uint8_t *in, size_t in_len,
								uint8_t *out, size_t out_cap, size_t *written);
size_t		cmp_snappy_bound(size_t in_len);

/* gzip.c */
CmpStatus	cmp_gzip_decompress(const uint8_t *in, size_t in_len,
								uint8_t *out, size_t out_len);
CmpStatus	cmp_gzip_compress(int level, const uint8_t *in, size_t in_len,
							  uint8_t *out, size_t out_cap, size_t *written);
size_t		cmp_gzip_bound(size_t in_len);

/* zstd.c */
CmpStatus	cmp_zstd_decompress(const uint8_t *in, size_t in_len,
								uint8_t *out, size_t out_len);
CmpStatus	cmp_zstd_compress(int level, const uint8_t *in, size_t in_len,
							  uint8_t *out, size_t out_cap, size_t *written);
size_t		cmp_zstd_bound(size_t in_len);

/* lz4.c */
CmpStatus	cmp_lz4_raw_decompress(const uint8_t *in, size_t in_len,
								   uint8_t *out, size_t out_len);
CmpStatus	cmp_lz4_raw_compress(int level, const uint8_t *in, size_t in_len,
								 uint8_t *out, size_t out_cap, size_t *written);
size_t		cmp_lz4_raw_bound(size_t in_len);
CmpStatus	cmp_lz4_hadoop_decompress(const uint8_t *in, size_t in_len,
									  uint8_t *out, size_t out_len);
CmpStatus	cmp_lz4_hadoop_compress(int level, const uint8_t *in, size_t in_len,
									uint8_t *out, size_t out_cap, size_t *written);
size_t		cmp_lz4_hadoop_bound(size_t in_len);

/* brotli.c */
CmpStatus	cmp_brotli_decompress(const uint8_t *in, size_t in_len,
								  uint8_t *out, size_t out_len);
CmpStatus	cmp_brotli_compress(int level, const uint8_t *in, size_t in_len,
								uint8_t *out, size_t out_cap, size_t *written);
size_t		cmp_brotli_bound(size_t in_len);

/*
 * Allocation hooks for the libraries that take them (zstd's customMem,
 * brotli's decoder; zlib through gzip.c's adapters): malloc and free, with
 * the bytes counted for cmp_memory_stats().  NULL on failure.
 */
void	   *cmp_lib_alloc(void *opaque, size_t size);
void		cmp_lib_free(void *opaque, void *ptr);

/* Saturating a + b for the bound functions. */
static inline size_t
cmp_add_sat(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

#endif							/* CMP_COMPRESS_INT_H */
