/*-------------------------------------------------------------------------
 *
 * write_sink.h
 *	  Tuples to one Parquet file: the contract COPY TO (copy_to.c) and
 *	  INSERT into foreign tables (modify.c) write through.
 *
 * A sink maps each column of a TupleDesc to a Parquet column once (types
 * below), buffers row_group_size rows (or row_group_size_bytes of converted
 * values, whichever comes first), and then hands the row group to
 * src/parquet/writer.c.  Memory: one row group's converted values plus the
 * writer's encoded chunk of the column being written; nothing grows with
 * the total number of rows.
 *
 * The file is written through atomic_file.h: to a temporary name in the
 * target's folder, renamed over the target only by pf_sink_finish().  An
 * error, a cancel, a transaction abort or backend exit before that removes
 * the temporary file and leaves any old target as it was.
 *
 * Types: bool -> BOOLEAN; int2/int4 -> INT32 (INTEGER 16/32); int8 ->
 * INT64; float4 -> FLOAT; float8 -> DOUBLE; numeric(p,s) -> DECIMAL(p,s)
 * on INT32 (p <= 9), INT64 (p <= 18) or FIXED_LEN_BYTE_ARRAY; unconstrained
 * numeric -> DECIMAL(38,9) on FIXED_LEN_BYTE_ARRAY(16) (a value with more
 * digits is an error naming the column; NaN/Infinity are errors);
 * text/varchar/bpchar/name -> BYTE_ARRAY STRING; enum -> BYTE_ARRAY
 * STRING (the label; arrow-rs and hyparquet would return an ENUM
 * annotation as bytes); json/jsonb -> BYTE_ARRAY JSON (text form); bytea ->
 * BYTE_ARRAY; date -> INT32 DATE; time -> INT64 TIME(us, local); timetz ->
 * INT64 TIME(us, UTC adjusted, the value normalized to UTC); timestamp ->
 * INT64 TIMESTAMP(us, local); timestamptz -> INT64 TIMESTAMP(us, UTC);
 * interval -> FIXED_LEN_BYTE_ARRAY(12) INTERVAL (months, days, ms; an
 * interval with sub-millisecond parts is an error); uuid ->
 * FIXED_LEN_BYTE_ARRAY(16) UUID; domains -> their base type; arrays ->
 * 3-level LIST with OPTIONAL elements; composite types -> STRUCT of their
 * attributes by name, every field OPTIONAL; these nest freely (arrays of
 * composites, composites holding arrays and composites).  An
 * n-dimensional array is n nested LISTs, the inner ones REQUIRED (a
 * PostgreSQL array is rectangular, a sub-array never NULL): int[][]
 * {{1,2},{3,4}} is list<list<int>> [[1,2],[3,4]].  Since PostgreSQL does
 * not enforce a column's dimensions, the count is the declared one when
 * the column says int[][] (attndims >= 2), else that of the first
 * non-empty value in the file (1 when there is none); a later value with
 * another count is an error.  No PostgreSQL type is a map, so nothing is
 * written as MAP (hstore or jsonb objects stay JSON text).  Anonymous
 * records (ROW(...) without a type) and other types (ranges, geometric,
 * ...) are refused by pf_sink_begin() with ERRCODE_FEATURE_NOT_SUPPORTED
 * naming the column and its type.
 *
 * IDENTIFICATION
 *	  src/fdw/write_sink.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_WRITE_SINK_H
#define PF_WRITE_SINK_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "executor/tuptable.h"
#include "nodes/pg_list.h"

/* Parsed write options (COPY options, later foreign table options). */
typedef struct PfWriteOptions
{
	int64		row_group_size;		/* rows per row group; default 122880 */
	int64		row_group_size_bytes;	/* buffered bytes per row group;
										 * default 128 MB */
	int			codec;				/* CmpCodec; default snappy */
	int			compression_level;	/* 0: the codec's default */
	int64		page_size;			/* target data page bytes; default 1 MB */
	bool		dictionary;			/* default true */
	int			data_page_version;	/* 1 (default) or 2 */
	bool		statistics;			/* default true */
	bool		page_index;			/* default true */
	List	   *bloom_filter_columns;	/* column names (char *); default none */
	double		bloom_filter_fpp;	/* default 0.01 */
	int64		bloom_filter_ndv;	/* expected distinct values per row group;
									 * default 0: the row group's row count */
	List	   *sorting_columns;	/* "col [asc|desc] [nulls first|last]"
									 * strings, parsed by the sink */
	bool		field_ids;			/* write field ids 0..n-1; default false */
	int64		file_size_bytes;	/* 0: one file; else split (copy_to.c) */
	Oid			remote_server;	/* a URL target's settings: COPY's server
								 * option (copy_to.c); InvalidOid: the
								 * environment's */
} PfWriteOptions;

/* Defaults as documented above. */
extern void pf_write_options_init(PfWriteOptions *opts);

/*
 * Parse DefElems (COPY options without FORMAT) over opts (initialized
 * first by the caller).  An unknown option, a repeated option or a bad
 * value is an error naming the option and its valid values.
 */
extern void pf_write_options_parse(List *defelems, PfWriteOptions *opts);

typedef struct PfParquetSink PfParquetSink;

/*
 * Start a file for rows of desc (dropped attributes are skipped).
 * target_path: the file to create or replace (written atomically), or
 * an s3:// gs:// az:// URL (uploaded, see atomic_file.h);
 * NULL: the bytes go to the client as COPY protocol CopyData messages (the
 * caller has sent CopyOutResponse).  The sink lives in a child of
 * CurrentMemoryContext and must be finished or aborted in the same
 * transaction.
 */
extern PfParquetSink *pf_sink_begin(TupleDesc desc, const PfWriteOptions *opts,
									const char *target_path);

/* Append one row (the slot is read, not kept). */
extern void pf_sink_put(PfParquetSink *sink, TupleTableSlot *slot);

/* Bytes written so far, including the buffered row group's estimate. */
extern uint64 pf_sink_bytes(const PfParquetSink *sink);

/*
 * Flush the last row group, write the footer, fsync, rename over the
 * target and fsync its folder; free the sink.  Returns the rows written.
 */
extern uint64 pf_sink_finish(PfParquetSink *sink);

/*
 * Give up: remove the temporary file and free the sink.  Optional (abort
 * and errors clean up by themselves), for callers that decide not to keep
 * a file.
 */
extern void pf_sink_abort(PfParquetSink *sink);

#endif							/* PF_WRITE_SINK_H */
