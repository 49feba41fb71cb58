/*-------------------------------------------------------------------------
 *
 * fsst.h
 *	  Contract of FSST (fast static symbol table) string compression, as
 *	  Amudai stores it (amudai-format.md 4.3).
 *
 * Symbol table serialization (the section's payload start): symbols_count
 * u64 symbols, symbol bytes packed little-endian (first byte in the least
 * significant byte), then symbols_count u8 lengths (1..8).  symbols_count
 * (<= 255) itself lives in the section's metadata.
 *
 * Compressed stream: code c < 255 outputs the first len[c] bytes of
 * symbol[c]; code 255 (escape) outputs the next byte literally.  Amudai
 * compresses a block's concatenated value bytes as one string; the offsets
 * that split it again are stored beside it and are the caller's business.
 *
 * Decoder contract:
 *	- cdc_fsst_table_parse() reads 9 * symbols_count bytes; a length outside
 *	  1..8 is CDC_ERR_CORRUPT, a short input CDC_ERR_TRUNCATED.
 *	- cdc_fsst_decompress(): `in` carries CDC_INPUT_PADDING readable bytes as
 *	  usual; `out` must have room for out_cap + CDC_FSST_OUTPUT_SLACK bytes
 *	  (symbols are stored with one 8-byte write); *out_len gets the exact
 *	  decompressed size.  More output than out_cap is CDC_ERR_OUTPUT_FULL; a
 *	  code >= symbols_count or an escape as the last byte CDC_ERR_CORRUPT.
 *	  Bounds are checked once per block of input codes, not per code.
 *
 * Encoder: cdc_fsst_build() learns a table from sample strings (iterative
 * symbol/pair counting as in the FSST paper, simplified), using a
 * caller-allocated CdcFsstBuilder as workspace (about 1.1 MB; never on the
 * stack).  cdc_fsst_compress() compresses one string greedily (longest
 * symbol first); the output never exceeds cdc_fsst_max_compressed(len).
 *
 * IDENTIFICATION
 *	  src/codec/fsst.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_FSST_H
#define CDC_FSST_H

#include "codec/codec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CDC_FSST_MAX_SYMBOLS	255
#define CDC_FSST_ESCAPE			255
#define CDC_FSST_OUTPUT_SLACK	8

typedef struct CdcFsstTable
{
	unsigned	count;								/* 0..255 */
	uint64_t	symbols[CDC_FSST_MAX_SYMBOLS];		/* bytes LSB first, zero above len */
	uint8_t		lengths[CDC_FSST_MAX_SYMBOLS];		/* 1..8 */
} CdcFsstTable;

/* Table <-> bytes (9 * count bytes). */
CdcStatus	cdc_fsst_table_parse(const uint8_t *in, size_t in_len,
								 unsigned symbols_count, CdcFsstTable *table);
size_t		cdc_fsst_table_size(const CdcFsstTable *table);
CdcStatus	cdc_fsst_table_write(const CdcFsstTable *table, uint8_t *out,
								 size_t out_cap, size_t *written);

CdcStatus	cdc_fsst_decompress(const CdcFsstTable *table, const uint8_t *in,
								size_t in_len, uint8_t *out, size_t out_cap,
								size_t *out_len);

/* ---------------- encoder ---------------- */

#define CDC_FSST_CANDIDATES		1024

/* A candidate symbol of the builder. */
typedef struct CdcFsstCandidate
{
	uint64_t	symbol;
	uint64_t	gain;				/* frequency * length */
	uint8_t		length;
} CdcFsstCandidate;

/* Workspace of the table builder (counters, candidate heap). */
typedef struct CdcFsstBuilder
{
	uint32_t	single[512];		/* codes 0..254 symbols, 256 + b literals */
	uint32_t	pair[512 * 512];	/* pair[a * 512 + b]: code a followed by b */
	CdcFsstCandidate heap[CDC_FSST_CANDIDATES];	/* min-heap on gain */
	unsigned	heap_len;
} CdcFsstBuilder;

/* Learn a table from sample strings (all of them are read, so pass a
 * sample of a few KB to a few hundred KB). */
CdcStatus	cdc_fsst_build(CdcFsstBuilder *builder, const CdcByteView *sample,
						   size_t sample_count, CdcFsstTable *table);

size_t		cdc_fsst_max_compressed(size_t len);	/* 2 * len */
CdcStatus	cdc_fsst_compress(const CdcFsstTable *table, const uint8_t *in,
							  size_t in_len, uint8_t *out, size_t out_cap,
							  size_t *written);

#ifdef __cplusplus
}
#endif

#endif							/* CDC_FSST_H */
