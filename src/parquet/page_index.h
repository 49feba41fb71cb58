/*-------------------------------------------------------------------------
 *
 * page_index.h
 *	  Contracts for page-level pruning structures: ColumnIndex, OffsetIndex
 *	  and split-block bloom filters.
 *
 * Plain C11, no PostgreSQL.  Decoders take a caller-owned byte buffer and a
 * PfcAllocator; a decoded index owns one arena (value bytes are copied), so
 * the buffer may be released at once, and one *_free() call releases it.
 * The pq_read_* helpers fetch the bytes of one column chunk's structure
 * through the file's PfcSource at the offsets pq_file_open() validated.
 *
 * Validation: ColumnIndex lists must agree in length and boundary_order be
 * known, and (pq_read_column_index) bounds of non-null pages of fixed-width
 * columns must be exactly one value wide (FLBA: at most); OffsetIndex pages must start at row 0 with non-decreasing
 * first_row_index and positive sizes, and (pq_read_offset_index) lie inside
 * their column chunk with first_row_index below the row group's row count.
 * Violations are PQ_ERR_CORRUPT; bloom filters other than SPLIT BLOCK /
 * XXHASH / UNCOMPRESSED are PQ_ERR_UNSUPPORTED.
 *
 * IDENTIFICATION
 *	  src/parquet/page_index.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PQ_PAGE_INDEX_H
#define PQ_PAGE_INDEX_H

#include "common/sbbf.h"
#include "parquet/parquet.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PqBytes
{
	const uint8_t *data;
	uint32_t	len;
} PqBytes;

typedef enum PqBoundaryOrder
{
	PQ_BOUNDARY_UNORDERED = 0,
	PQ_BOUNDARY_ASCENDING = 1,
	PQ_BOUNDARY_DESCENDING = 2
} PqBoundaryOrder;

/* ColumnIndex: per data page of a chunk, in page order. */
typedef struct PqColumnIndex
{
	uint32_t	num_pages;
	const bool *null_pages;		/* page holds only nulls (min/max empty) */
	const PqBytes *min_values;	/* plain-encoded, possibly truncated */
	const PqBytes *max_values;
	PqBoundaryOrder boundary_order;
	bool		has_null_counts;
	const int64_t *null_counts; /* NULL unless has_null_counts */
} PqColumnIndex;

typedef struct PqPageLocation
{
	int64_t		offset;			/* file offset of the page header */
	int32_t		compressed_page_size;	/* header + compressed data */
	int64_t		first_row_index;	/* within the row group */
} PqPageLocation;

/* OffsetIndex: where each data page of a chunk starts. */
typedef struct PqOffsetIndex
{
	uint32_t	num_pages;
	const PqPageLocation *pages;
	bool		has_unencoded_byte_array_data_bytes;
	const int64_t *unencoded_byte_array_data_bytes;
} PqOffsetIndex;

typedef struct PqBloomFilterHeader
{
	uint32_t	num_bytes;		/* bitset length, a multiple of 32 */
	uint32_t	header_length;	/* Thrift bytes before the bitset */
} PqBloomFilterHeader;

PqStatus	pq_column_index_decode(const uint8_t *buf, size_t len,
								   const PfcAllocator *alloc,
								   PqColumnIndex **index, PqError *err);
void		pq_column_index_free(PqColumnIndex *index);

PqStatus	pq_offset_index_decode(const uint8_t *buf, size_t len,
								   const PfcAllocator *alloc,
								   PqOffsetIndex **index, PqError *err);
void		pq_offset_index_free(PqOffsetIndex *index);

/* Decode the header at buf; the bitset follows at buf + header_length. */
PqStatus	pq_bloom_filter_header_decode(const uint8_t *buf, size_t len,
										  PqBloomFilterHeader *header,
										  PqError *err);

/*
 * The bitset is a split-block Bloom filter (common/sbbf.h): Parquet hashes
 * a value's plain encoding without length prefix with pfc_sbbf_hash_xxh64.
 */

/* Structures of one column chunk of an open file. */
PqStatus	pq_read_column_index(PqFile *file, int row_group, int leaf,
								 const PfcAllocator *alloc,
								 PqColumnIndex **index, PqError *err);
PqStatus	pq_read_offset_index(PqFile *file, int row_group, int leaf,
								 const PfcAllocator *alloc,
								 PqOffsetIndex **index, PqError *err);
/* The bitset, allocated with alloc (release it with alloc->release). */
PqStatus	pq_read_bloom_filter(PqFile *file, int row_group, int leaf,
								 const PfcAllocator *alloc,
								 uint8_t **bitset, uint32_t *len,
								 PqError *err);

#ifdef __cplusplus
}
#endif

#endif							/* PQ_PAGE_INDEX_H */
