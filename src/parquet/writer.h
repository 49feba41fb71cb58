/*-------------------------------------------------------------------------
 *
 * writer.h
 *	  Contract of the Parquet writer: flat columns, LIST and STRUCT groups.
 *
 * Plain C11, no PostgreSQL, same rules as parquet.h: status codes and a
 * PqError, memory only through a PfcAllocator, bytes out only through a
 * PqSink callback.  Used by tests, fuzz seeds and (later) export.
 *
 * Schema: a list of top-level columns, each either a primitive leaf of any
 * physical type with an optional logical annotation, or a 3-level LIST of
 * such a leaf:
 *
 *	 <repetition> group <name> (LIST) {
 *		 repeated group list {
 *			 <element_repetition> <physical> element (<logical>);
 *		 }
 *	 }
 *
 * Nesting (pq_writer_open_nested): groups above the leaves, each a STRUCT
 * (its children by name) or a 3-level LIST (one child, named "element"):
 *
 *	 <repetition> group <name> { <children> }			STRUCT
 *	 <repetition> group <name> (LIST) {				LIST
 *		 repeated group list { <child named element> }
 *	 }
 *
 * Groups and columns name their parent group by index (-1: the root); a
 * group comes after its parent in the groups array, and the columns are
 * the leaves in schema order, so every group's leaves are consecutive.
 * The leaves of a nested column take levels, not is_null (below): the
 * caller shreds its records (definition: one per OPTIONAL ancestor or self
 * and per LIST; repetition: one per LIST).
 *
 * Usage:
 *
 *	 pq_writer_open(&w, columns, ncolumns, &options, &sink, alloc, &err);
 *	 for each row group:
 *		 pq_writer_write_column(w, 0, &batch, &err);	// columns in order,
 *		 pq_writer_write_column(w, 1, &batch, &err);	// each any number of
 *		 ...											// times in a row
 *		 pq_writer_end_row_group(w, &err);
 *	 pq_writer_close(w, &err);		// writes the footer
 *	 pq_writer_free(w);				// always, also after an error
 *
 * Each write_column call becomes one or more data pages (at most
 * page_row_limit top-level rows each; pages of list columns start at a row
 * boundary); calls are never merged into one page.  A column chunk is
 * buffered until the next column starts or the row group ends, because a
 * dictionary page must precede the data pages that use it.  Every column of
 * a row group must be given the same number of rows (a column given none
 * gets an empty chunk only when the row group has no rows).
 *
 * Encodings, per column: PLAIN; dictionary (PLAIN dictionary page,
 * RLE_DICTIONARY data pages; decided per chunk on its first batch: PLAIN
 * when that batch's distinct values pass dictionary_max_ratio of its values
 * or the limits below; when a later batch makes the dictionary exceed
 * dictionary_max_entries or dictionary_max_bytes, the rest of the chunk
 * falls back to PLAIN pages, so a chunk may hold both; BOOLEAN is always
 * PLAIN); DELTA_BINARY_PACKED (block 128, 4 miniblocks);
 * DELTA_LENGTH_BYTE_ARRAY; DELTA_BYTE_ARRAY; BYTE_STREAM_SPLIT; each only
 * on the physical types the format defines it for (else pq_writer_open
 * fails).  Levels are RLE (v1: length-prefixed, compressed with the values;
 * v2: in front, uncompressed).
 *
 * Statistics per column chunk (unless disabled): null_count, and
 * min_value/max_value in the column's sort order (signed or unsigned
 * integers by the INTEGER annotation, IEEE floats ignoring NaN with -0.0 as
 * min and +0.0 as max of a zero, unsigned bytewise for byte arrays, signed
 * two's complement for DECIMAL byte arrays); none for INT96, INTERVAL and
 * FLOAT16.  A BYTE_ARRAY bound (not DECIMAL) longer than
 * statistics_max_len is truncated and marked inexact (the max rounded up;
 * omitted when it cannot be); fixed-width bounds are never truncated.  The footer declares TYPE_DEFINED_ORDER for
 * every column.
 *
 * Sorting columns (options): written into every row group's metadata as
 * given; the writer does not check the order.
 *
 * Bloom filters (bloom_filter_bytes): split-block, xxHash64 (seed 0) of
 * each non-null value's plain bytes without length prefix, uncompressed;
 * written after the last row group, before the page index.
 *
 * Page index (write_page_index): an OffsetIndex for every chunk (but
 * those of empty row groups) and a
 * ColumnIndex (per data page: null_pages, bounds as for the statistics,
 * null_counts, boundary_order) for every chunk whose order is defined and
 * whose non-null pages all have bounds (not only NaNs), written after the
 * last row group: all ColumnIndexes, then all OffsetIndexes.
 *
 * IDENTIFICATION
 *	  src/parquet/writer.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PQ_WRITER_H
#define PQ_WRITER_H

#include "parquet/parquet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the bytes go: write all len bytes, return 0 or an errno. */
typedef struct PqSink
{
	int			(*write) (void *ctx, const void *buf, size_t len);
	void	   *ctx;
} PqSink;

typedef enum PqWriteEncoding
{
	PQ_WRITE_PLAIN = 0,
	PQ_WRITE_DICTIONARY,		/* RLE_DICTIONARY, PLAIN fallback */
	PQ_WRITE_DELTA_BINARY_PACKED,	/* INT32, INT64 */
	PQ_WRITE_DELTA_LENGTH_BYTE_ARRAY,	/* BYTE_ARRAY */
	PQ_WRITE_DELTA_BYTE_ARRAY,	/* BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY */
	PQ_WRITE_BYTE_STREAM_SPLIT	/* FLOAT, DOUBLE, INT32, INT64, FLBA */
} PqWriteEncoding;

typedef struct PqWriteColumn
{
	const char *name;
	PqPhysicalType physical;
	int32_t		type_length;	/* FIXED_LEN_BYTE_ARRAY width; else ignored */
	PqLogicalType logical;		/* kind PQ_LT_NONE for none; PQ_LT_INTERVAL
								 * is written as the legacy annotation only */
	PqRepetition repetition;	/* REQUIRED or OPTIONAL (of the list, if any) */
	bool		is_list;		/* wrap the leaf in a 3-level LIST */
	PqRepetition element_repetition;	/* list element: REQUIRED or OPTIONAL */
	PqWriteEncoding encoding;
	int32_t		field_id;		/* written when >= 0 */
	uint32_t	bloom_filter_bytes; /* 0: none; else a split-block bloom
									 * filter per chunk of this many bytes,
									 * rounded up to a power of two >= 32 */
	int32_t		parent;			/* pq_writer_open_nested only: index of the
								 * enclosing group, -1 for the root */
} PqWriteColumn;

/* Deepest nesting of groups above a leaf. */
#define PQ_WRITE_MAX_DEPTH 64

typedef enum PqWriteGroupKind
{
	PQ_GROUP_STRUCT = 0,
	PQ_GROUP_LIST				/* 3-level LIST of its one child */
} PqWriteGroupKind;

typedef struct PqWriteGroup
{
	const char *name;			/* ignored (written "element") in a LIST */
	PqWriteGroupKind kind;
	PqRepetition repetition;	/* REQUIRED or OPTIONAL */
	int32_t		parent;			/* index of the enclosing group, -1: root */
	int32_t		field_id;		/* written when >= 0 */
} PqWriteGroup;

/* One key of the order the rows of every row group are stored in. */
typedef struct PqWriteSortingColumn
{
	int32_t		column;			/* leaf column index */
	bool		descending;
	bool		nulls_first;
} PqWriteSortingColumn;

typedef struct PqWriterOptions
{
	int32_t		codec;			/* CmpCodec for every chunk */
	int			compression_level;	/* 0: the codec's default */
	bool		data_page_v2;	/* DATA_PAGE_V2 instead of DATA_PAGE */
	uint32_t	page_row_limit; /* top-level rows per data page; 0: 8192 */
	bool		write_crc;		/* CRC32 of each page's stored bytes */
	bool		write_page_index;	/* OffsetIndex per chunk, ColumnIndex where
									 * every page has bounds */
	bool		write_statistics;
	uint32_t	statistics_max_len; /* byte-array bound length; 0: no limit */
	uint32_t	dictionary_max_entries; /* 0: 65536 */
	size_t		dictionary_max_bytes;	/* plain-encoded size; 0: 1 MB */
	double		dictionary_max_ratio;	/* a chunk whose first batch has more
										 * distinct values than this share
										 * of its values is PLAIN; 0 (or
										 * >= 1): no decision up front */
	const char *created_by;		/* NULL: "parquet_fdw writer" */
	int			num_key_values;
	const PqKeyValue *key_values;	/* value may be NULL; value_len bytes */
	int			num_sorting_columns;	/* written as every row group's
										 * sorting_columns; the caller
										 * vouches for the order */
	const PqWriteSortingColumn *sorting_columns;
} PqWriterOptions;

/* Defaults: UNCOMPRESSED, v1 pages, statistics on, no CRC. */
void		pq_writer_options_init(PqWriterOptions *options);

typedef struct PqWriter PqWriter;

/*
 * Check the schema and write the leading magic.  Columns are copied; the
 * options' strings and key-values must stay valid until pq_writer_close().
 */
PqStatus	pq_writer_open(PqWriter **writer, const PqWriteColumn *columns,
						   int num_columns, const PqWriterOptions *options,
						   const PqSink *sink, const PfcAllocator *alloc,
						   PqError *err);

/*
 * As pq_writer_open, with groups (see Nesting above; columns' parent
 * fields are read).  num_groups 0 is pq_writer_open.
 */
PqStatus	pq_writer_open_nested(PqWriter **writer, const PqWriteGroup *groups,
								  int num_groups, const PqWriteColumn *columns,
								  int num_columns, const PqWriterOptions *options,
								  const PqSink *sink, const PfcAllocator *alloc,
								  PqError *err);

/*
 * Append rows to column `column` of the current row group.  The batch has
 * the layout pq_column_reader_read() returns (parquet.h):
 *
 *	 flat columns: num_rows; values row-aligned (values[i] is row i's value,
 *	   ignored when is_null[i]); is_null NULL means no nulls (required for
 *	   REQUIRED columns); levels unused.
 *	 list and nested columns: num_rows top-level rows, num_levels entries
 *	   of def_levels and rep_levels (max_def / max_rep of the leaf;
 *	   rep_levels may be NULL when no LIST is above the leaf), and the
 *	   num_values non-null leaf values densely in values; is_null unused.
 *
 * value_width is ignored (the physical type decides).  Values are copied.
 * Columns go in schema order; moving to a later column closes the earlier
 * ones for this row group.
 */
PqStatus	pq_writer_write_column(PqWriter *writer, int column,
								   const PqColumnBatch *batch, PqError *err);

/* Finish the row group (flushing its chunks); an empty row group is kept. */
PqStatus	pq_writer_end_row_group(PqWriter *writer, PqError *err);

/* Write the footer; a pending row group with rows is ended first. */
PqStatus	pq_writer_close(PqWriter *writer, PqError *err);

/* Release everything; safe on NULL and after any error. */
void		pq_writer_free(PqWriter *writer);

/* Max definition / repetition level of a column's leaf (no groups). */
int16_t		pq_write_column_max_def(const PqWriteColumn *column);
int16_t		pq_write_column_max_rep(const PqWriteColumn *column);

/* The same for leaf `column` of an open writer (groups counted). */
int16_t		pq_writer_max_def(const PqWriter *writer, int column);
int16_t		pq_writer_max_rep(const PqWriter *writer, int column);

/*
 * Levels of a list column from Arrow-style offsets: row r's list holds
 * elements offsets[r] .. offsets[r + 1] - 1; list_is_null[r] (may be NULL)
 * makes it a NULL list (its offsets must be equal), element_is_null[e] (may
 * be NULL) a NULL element.  def_levels and rep_levels need room for
 * pq_list_level_count() entries; *num_values gets the non-null elements, and
 * value_index (may be NULL, same room) the element index of each level entry
 * that carries a value (so callers can gather values densely), -1 otherwise.
 */
size_t		pq_list_level_count(const int64_t *offsets, uint32_t num_rows);
PqStatus	pq_list_levels(const PqWriteColumn *column, uint32_t num_rows,
						   const int64_t *offsets, const bool *list_is_null,
						   const bool *element_is_null, int16_t *def_levels,
						   int16_t *rep_levels, int64_t *value_index,
						   uint32_t *num_values, PqError *err);

#ifdef __cplusplus
}
#endif

#endif							/* PQ_WRITER_H */
