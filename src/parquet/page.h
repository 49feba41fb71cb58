/*-------------------------------------------------------------------------
 *
 * page.h
 *	  Private interface of the Parquet layer: page headers and page bodies.
 *
 * A column chunk is a run of pages, each a Thrift-compact PageHeader
 * followed by compressed_page_size bytes.  page.c reads one page at a time
 * through the PfcSource: it decodes the header from a bounded window, checks
 * every size against the chunk's byte range, reads the body, verifies the
 * CRC32 of the stored (compressed) bytes when asked, and decompresses.  For
 * DATA_PAGE_V2 the repetition and definition levels are stored uncompressed
 * before the (possibly compressed) values, so the body comes back as
 * levels + decompressed values in one contiguous buffer.
 *
 * Bodies are allocated through the caller's PfcAllocator with
 * CDC_INPUT_PADDING readable bytes after them, as the codec layer requires.
 *
 * IDENTIFICATION
 *	  src/parquet/page.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PQ_PAGE_H
#define PQ_PAGE_H

#include "parquet/parquet.h"

/* Parquet's PageType values. */
typedef enum PqPageType
{
	PQ_PAGE_DATA = 0,
	PQ_PAGE_INDEX = 1,
	PQ_PAGE_DICTIONARY = 2,
	PQ_PAGE_DATA_V2 = 3
} PqPageType;

/* Parquet's Encoding values. */
typedef enum PqEncoding
{
	PQ_ENC_PLAIN = 0,
	PQ_ENC_PLAIN_DICTIONARY = 2,
	PQ_ENC_RLE = 3,
	PQ_ENC_BIT_PACKED = 4,
	PQ_ENC_DELTA_BINARY_PACKED = 5,
	PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
	PQ_ENC_DELTA_BYTE_ARRAY = 7,
	PQ_ENC_RLE_DICTIONARY = 8,
	PQ_ENC_BYTE_STREAM_SPLIT = 9
} PqEncoding;

/*
 * A decoded PageHeader.  Fields of the sub-header that the type does not
 * use are zero.  num_values counts level entries (data pages) or
 * dictionary entries (dictionary pages).
 */
typedef struct PqPageHeader
{
	int32_t		type;			/* PqPageType, or an unknown value */
	int32_t		uncompressed_size;
	int32_t		compressed_size;
	bool		has_crc;
	uint32_t	crc;
	uint32_t	header_len;		/* bytes of the Thrift header itself */

	bool		has_sub_header; /* the header matching type was present */
	int32_t		num_values;
	int32_t		encoding;		/* values (or dictionary) encoding */

	/* DATA_PAGE (v1) */
	int32_t		def_level_encoding;
	int32_t		rep_level_encoding;

	/* DATA_PAGE_V2 */
	int32_t		num_nulls;
	int32_t		num_rows;
	int32_t		def_levels_len;
	int32_t		rep_levels_len;
	bool		is_compressed;	/* default true */

	/* DICTIONARY_PAGE */
	bool		is_sorted;
} PqPageHeader;

/* A page whose body has been read (and decompressed). */
typedef struct PqPage
{
	PqPageHeader header;
	uint64_t	offset;			/* of the header in the file */
	uint8_t    *body;			/* body_len bytes + CDC_INPUT_PADDING */
	size_t		body_len;		/* v2: levels + uncompressed values */
} PqPage;

/* Largest page body (compressed or not) the layer accepts: 1 GB, what a
 * PostgreSQL allocation can hold. */
#define PQ_MAX_PAGE_BYTES	((size_t) 0x3FFFFFFF - CDC_INPUT_PADDING)

/*
 * Decode a PageHeader from buf[0..len).  PQ_ERR_CORRUPT when the bytes are
 * not a complete, well-formed header (a truncated window looks the same, so
 * callers with more bytes available retry with a wider window).
 */
PqStatus	pq_page_header_decode(const uint8_t *buf, size_t len,
								  PqPageHeader *header, PqError *err);

/*
 * Read the header of the page at `offset`; the page must end at or before
 * `limit` (the end of the column chunk).  Sizes are checked against the
 * range, so header->compressed_size bytes follow the header within it.
 * Large headers (long statistics) are read through alloc.
 */
PqStatus	pq_page_read_header(const PfcSource *source, const PfcAllocator *alloc,
								uint64_t offset, uint64_t limit,
								PqPageHeader *header, PqError *err);

/*
 * Read the body of the page whose header was read at `offset`, verify its
 * CRC when verify_crc is set and the header has one, and decompress it with
 * `codec` (a CmpCodec).  On success page->body is owned by the caller, to be
 * given back with pq_page_release().
 */
PqStatus	pq_page_read_body(const PfcSource *source, const PfcAllocator *alloc,
							  int codec, uint64_t offset,
							  const PqPageHeader *header, bool verify_crc,
							  PqPage *page, PqError *err);

void		pq_page_release(PqPage *page, const PfcAllocator *alloc);

/* printf-style helper filling err (status and message). */
void		pq_page_error(PqError *err, PqStatus status, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

#endif							/* PQ_PAGE_H */
