/*-------------------------------------------------------------------------
 *
 * parquet.h
 *	  Contracts of the Parquet format layer: footer, schema, column readers.
 *
 * Plain C11, no PostgreSQL.  The layer reads through a PfcSource (read-at
 * callback) and allocates only through a PfcAllocator the caller supplies, so
 * the FDW can put everything in memory contexts and unit tests can use malloc.
 * Functions return a PqStatus and fill a PqError; they never abort or
 * longjmp (the allocator may longjmp on out-of-memory, as palloc does; the
 * layer holds no resource that would leak then).
 *
 * Metadata is normalized once, at open: legacy ConvertedType annotations are
 * folded into PqLogicalType, so consumers look at one field only.
 *
 * Column readers decode one leaf column of one row group, a batch of rows at
 * a time, into a PqColumnBatch whose buffers the reader owns and keeps valid
 * until the next read on the same reader (or its close).
 *
 * Files: thrift.c (compact protocol), metadata.c (FileMetaData and friends),
 * schema.c (schema tree, levels), page.c (page headers, decompression, CRC),
 * column_reader.c (pages to batches), writer.c (for tests and export).
 *
 * IDENTIFICATION
 *	  src/parquet/parquet.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PQ_PARQUET_H
#define PQ_PARQUET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/codec.h"
#include "common/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------
 * Status, errors, I/O and memory
 * ----------------------------------------------------------------
 */
typedef enum PqStatus
{
	PQ_OK = 0,
	PQ_ERR_IO,					/* the source failed; PqError.sys_errno says why */
	PQ_ERR_CORRUPT,				/* malformed file: ERRCODE_DATA_CORRUPTED */
	PQ_ERR_UNSUPPORTED,			/* valid but not supported (encryption, LZO...) */
	PQ_ERR_CHECKSUM,			/* page CRC mismatch (when verification is on) */
	PQ_ERR_INVALID_ARGUMENT		/* caller broke the contract */
} PqStatus;

#define PQ_ERROR_TEXT_LEN 256

typedef struct PqError
{
	PqStatus	status;
	int			sys_errno;		/* for PQ_ERR_IO */
	int			row_group;		/* -1 when not applicable */
	int			column;			/* leaf index, -1 when not applicable */
	int			page;			/* page ordinal in the chunk, -1 when n/a */
	char		message[PQ_ERROR_TEXT_LEN];	/* lowercase, no final period */
	char		detail[PQ_ERROR_TEXT_LEN];	/* may be empty */
} PqError;

void		pq_error_clear(PqError *err);

/* Sources (PfcSource) and allocators (PfcAllocator) are common/common.h's. */

/* ----------------------------------------------------------------
 * Types
 * ----------------------------------------------------------------
 */
typedef enum PqPhysicalType
{
	PQ_BOOLEAN = 0,
	PQ_INT32 = 1,
	PQ_INT64 = 2,
	PQ_INT96 = 3,
	PQ_FLOAT = 4,
	PQ_DOUBLE = 5,
	PQ_BYTE_ARRAY = 6,
	PQ_FIXED_LEN_BYTE_ARRAY = 7
} PqPhysicalType;

typedef enum PqLogicalKind
{
	PQ_LT_NONE = 0,
	PQ_LT_STRING,				/* also legacy UTF8 */
	PQ_LT_ENUM,
	PQ_LT_JSON,
	PQ_LT_BSON,
	PQ_LT_UUID,
	PQ_LT_DECIMAL,				/* precision, scale */
	PQ_LT_DATE,
	PQ_LT_TIME,					/* unit, utc_adjusted */
	PQ_LT_TIMESTAMP,			/* unit, utc_adjusted */
	PQ_LT_INTEGER,				/* bit_width, is_signed */
	PQ_LT_FLOAT16,
	PQ_LT_INTERVAL,				/* legacy INTERVAL: FLBA(12) months/days/ms */
	PQ_LT_LIST,					/* group annotations */
	PQ_LT_MAP,
	PQ_LT_MAP_KEY_VALUE,
	PQ_LT_NULL,					/* "UNKNOWN": always null */
	PQ_LT_VARIANT,
	PQ_LT_GEOMETRY,
	PQ_LT_GEOGRAPHY,
	PQ_LT_OTHER					/* an annotation this build does not know */
} PqLogicalKind;

typedef enum PqTimeUnit
{
	PQ_UNIT_MILLIS = 0,
	PQ_UNIT_MICROS,
	PQ_UNIT_NANOS
} PqTimeUnit;

typedef struct PqLogicalType
{
	PqLogicalKind kind;
	int32_t		precision;		/* DECIMAL */
	int32_t		scale;			/* DECIMAL */
	PqTimeUnit	unit;			/* TIME, TIMESTAMP */
	bool		utc_adjusted;	/* TIME, TIMESTAMP */
	int8_t		bit_width;		/* INTEGER: 8, 16, 32, 64 */
	bool		is_signed;		/* INTEGER */
} PqLogicalType;

typedef enum PqRepetition
{
	PQ_REQUIRED = 0,
	PQ_OPTIONAL = 1,
	PQ_REPEATED = 2
} PqRepetition;

/* ----------------------------------------------------------------
 * Schema
 * ----------------------------------------------------------------
 */
typedef struct PqSchemaNode
{
	const char *name;
	PqRepetition repetition;	/* root: PQ_REQUIRED */
	bool		is_leaf;
	PqPhysicalType physical;	/* leaves only */
	int32_t		type_length;	/* FIXED_LEN_BYTE_ARRAY width */
	PqLogicalType logical;
	int32_t		converted_type; /* raw legacy value, -1 if absent */
	int32_t		field_id;		/* -1 if absent */
	int16_t		max_def;		/* levels of this node (counting itself) */
	int16_t		max_rep;
	int			leaf_index;		/* leaves: index in PqFileMeta.leaves; else -1 */
	int			num_children;
	struct PqSchemaNode **children;
	struct PqSchemaNode *parent;	/* NULL for the root */
} PqSchemaNode;

typedef struct PqLeaf
{
	const PqSchemaNode *node;
	const char *path;			/* dotted path from below the root, "a.b.c" */
	int16_t		max_def;
	int16_t		max_rep;
	bool		type_defined_order; /* ColumnOrder says TYPE_DEFINED_ORDER */
	bool		ieee754_total_order;	/* ColumnOrder says IEEE_754_TOTAL_ORDER */
} PqLeaf;

/* ----------------------------------------------------------------
 * Row groups and column chunks
 * ----------------------------------------------------------------
 */
typedef struct PqStatistics
{
	bool		has_min;
	bool		has_max;
	/* plain-encoded value bytes; for fixed-width types pq_file_open keeps
	 * only values of exactly the type's width (FLBA: at most type_length) */
	const uint8_t *min;
	uint32_t	min_len;
	const uint8_t *max;
	uint32_t	max_len;
	bool		min_is_legacy;	/* from deprecated min/max (field 1/2) */
	bool		max_is_legacy;
	bool		has_min_exact;
	bool		min_exact;
	bool		has_max_exact;
	bool		max_exact;
	bool		has_null_count;
	int64_t		null_count;
	bool		has_distinct_count;
	int64_t		distinct_count;
} PqStatistics;

typedef struct PqKeyValue
{
	const char *key;
	const char *value;			/* NULL when absent */
	uint32_t	value_len;
} PqKeyValue;

typedef struct PqColumnChunkMeta
{
	const char *file_path;		/* external chunk file; NULL = this file */
	PqPhysicalType type;
	int			num_encodings;
	const int32_t *encodings;	/* Parquet Encoding ids */
	int32_t		codec;			/* CmpCodec */
	int64_t		num_values;
	int64_t		total_uncompressed_size;
	int64_t		total_compressed_size;
	int64_t		data_page_offset;
	bool		has_dictionary_page_offset;
	int64_t		dictionary_page_offset;
	bool		has_index_page_offset;
	int64_t		index_page_offset;
	bool		has_statistics;
	PqStatistics statistics;
	bool		has_bloom_filter;
	int64_t		bloom_filter_offset;
	int32_t		bloom_filter_length;	/* -1 when absent */
	bool		has_offset_index;
	int64_t		offset_index_offset;
	int32_t		offset_index_length;
	bool		has_column_index;
	int64_t		column_index_offset;
	int32_t		column_index_length;
	bool		is_encrypted;	/* crypto_metadata present */
	int			num_key_values;
	const PqKeyValue *key_values;
} PqColumnChunkMeta;

typedef struct PqRowGroupMeta
{
	int64_t		num_rows;
	int64_t		total_byte_size;
	int64_t		total_compressed_size;	/* -1 when absent */
	int64_t		file_offset;			/* -1 when absent */
	int			num_columns;
	PqColumnChunkMeta *columns; /* indexed by leaf index */
} PqRowGroupMeta;

typedef struct PqFileMeta
{
	int32_t		version;
	int64_t		num_rows;
	const char *created_by;		/* NULL when absent */
	const PqSchemaNode *root;
	int			num_leaves;
	const PqLeaf *leaves;
	int			num_row_groups;
	const PqRowGroupMeta *row_groups;
	int			num_key_values;
	const PqKeyValue *key_values;
	uint32_t	footer_length;	/* thrift bytes of FileMetaData */
} PqFileMeta;

typedef struct PqFile PqFile;

/*
 * Open a file: check magic, read and decode the footer.  An encrypted footer
 * ("PARE") gives PQ_ERR_UNSUPPORTED.  Every count, offset and size in the
 * metadata is checked against the file size here, so readers can trust them.
 */
PqStatus	pq_file_open(PqFile **file, const PfcSource *source,
						 const PfcAllocator *alloc, PqError *err);
const PqFileMeta *pq_file_meta(const PqFile *file);

/*
 * Byte range [*start, *start + *length) of a column chunk in its file: it
 * begins at the dictionary page when there is one (a chunk holding only a
 * dictionary page may say data_page_offset 0; a dictionary_page_offset of
 * 0 is reported as absent).  pq_file_open() checked the range lies inside
 * the file's data region unless file_path is set or the chunk is encrypted.
 */
void		pq_column_chunk_range(const PqColumnChunkMeta *chunk,
								  uint64_t *start, uint64_t *length);
const PfcSource *pq_file_source(const PqFile *file);
void		pq_file_close(PqFile *file);

/* Human-readable names, for inspection functions and messages. */
const char *pq_physical_type_name(PqPhysicalType type);	/* "INT32" */
const char *pq_logical_kind_name(PqLogicalKind kind);	/* "STRING" */
const char *pq_encoding_name(int32_t encoding);			/* "PLAIN" */
const char *pq_repetition_name(PqRepetition rep);		/* "OPTIONAL" */

/* ----------------------------------------------------------------
 * Column readers
 * ----------------------------------------------------------------
 */
typedef struct PqColumnReaderOptions
{
	bool		verify_crc;		/* check page CRCs that are present */
} PqColumnReaderOptions;

/*
 * A batch of rows of one leaf column.
 *
 * Flat columns (max_rep == 0): values are row-aligned.  values[i] belongs to
 * row i; is_null[i] says whether it is null (is_null is NULL when the column
 * is REQUIRED or the batch has no null).  num_levels == num_rows.
 *
 * Repeated columns (max_rep > 0): one level entry per leaf slot;
 * values hold only the num_values non-null leaf values, densely, in order,
 * and the consumer walks def_levels/rep_levels to assemble lists.
 *
 * Value layout by physical type: BOOLEAN uint8_t 0/1; INT32 int32_t; INT64
 * int64_t; INT96 12 bytes; FLOAT float; DOUBLE double; FIXED_LEN_BYTE_ARRAY
 * type_length bytes each; BYTE_ARRAY CdcByteView (pointing into page or
 * dictionary buffers owned by the reader).
 */
typedef struct PqColumnBatch
{
	uint32_t	num_rows;		/* top-level rows in this batch */
	uint32_t	num_levels;		/* level entries */
	uint32_t	num_values;		/* non-null leaf values (repeated columns) */
	const int16_t *def_levels;	/* NULL when max_def == 0 */
	const int16_t *rep_levels;	/* NULL when max_rep == 0 */
	const bool *is_null;		/* flat columns only, see above */
	const void *values;
	uint32_t	value_width;	/* bytes per entry of values */

	/*
	 * BYTE_ARRAY chunks with a dictionary page: per entry of values, the
	 * dictionary entry (0 .. dictionary_count - 1) the value is, so a
	 * consumer can convert each entry once per chunk instead of once per
	 * row; PQ_NOT_FROM_DICTIONARY for a value of a page that is not
	 * dictionary-encoded and for a null.  NULL otherwise.  The entries
	 * and their numbers stay the same until the reader is closed.
	 */
	const uint32_t *dict_index;
	uint32_t	dictionary_count;
} PqColumnBatch;

#define PQ_NOT_FROM_DICTIONARY	UINT32_MAX

typedef struct PqColumnReader PqColumnReader;

/*
 * Open a reader over leaf `leaf` of row group `row_group`.  Reads the chunk's
 * bytes lazily, page by page; memory comes from alloc and is released as pages
 * are consumed, so a reader holds O(page + batch) memory.
 */
PqStatus	pq_column_reader_open(PqColumnReader **reader, PqFile *file,
								  int row_group, int leaf,
								  const PqColumnReaderOptions *options,
								  const PfcAllocator *alloc, PqError *err);

/*
 * Take the buffers of pages (stored and decompressed bodies, dictionary
 * pages, per-page decoded values) from alloc instead, e.g. a buffer pool
 * shared by the readers of successive row groups (buffer_pool.h).  Only
 * right after open, before the first read or skip; returns false (and
 * changes nothing) later.  alloc must outlive the reader.
 */
bool		pq_column_reader_set_page_allocator(PqColumnReader *reader,
												const PfcAllocator *alloc);

/*
 * Decode the next rows (at most max_rows, fewer only at the end of the row
 * group) into *batch.  batch->num_rows == 0 means the chunk is exhausted.
 * Buffers stay valid until the next read or close on this reader (values
 * may point into the page itself: a batch of one page with no null).
 */
PqStatus	pq_column_reader_read(PqColumnReader *reader, uint32_t max_rows,
								  PqColumnBatch *batch, PqError *err);

/* Skip rows without materializing them (page-index pruning). */
PqStatus	pq_column_reader_skip(PqColumnReader *reader, uint64_t rows,
								  PqError *err);

/*
 * Bytes the reader has read from its source so far: page headers and the
 * stored (compressed) bodies of the pages it loaded, dictionary included.
 */
uint64_t	pq_column_reader_bytes_read(const PqColumnReader *reader);

void		pq_column_reader_close(PqColumnReader *reader);

#ifdef __cplusplus
}
#endif

#endif							/* PQ_PARQUET_H */
