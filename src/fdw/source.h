/*-------------------------------------------------------------------------
 *
 * source.h
 *	  The table source: what the planner, the executor, ANALYZE and the
 *	  sorted merge need from a file of either format, and nothing more.
 *
 * A file is cut into units (Parquet row groups, Amudai stripes), each with
 * a row count.  The engine binds the foreign table's columns to a file's
 * fields once per file, asks the source whether qualifiers rule a unit
 * out (statistics, Bloom filters, dictionaries: whatever the format has),
 * and reads a unit batch by batch: read() positions the next batch (the
 * source skips the rows its row-level index rules out), convert() turns a
 * column's rows of that batch into Datums of the declared type, for the
 * whole batch or, for late conversion, for a few rows at a time.
 *
 * Each format implements PfSourceOps in one file (source_parquet.c,
 * source_amudai.c); the two never call each other.  Errors are ereport()ed
 * by the sources with PostgreSQL error codes; while a source reads,
 * src->err_column names what it is reading, for the engine's error
 * context.
 *
 * Memory: a source lives in the context given to open() (the engine's
 * per-file context) and keeps what a unit needs in a child context it
 * resets when the unit closes.  By-reference Datums from convert() go to
 * the caller's current context.
 *
 * IDENTIFICATION
 *	  src/fdw/source.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_SOURCE_H
#define PF_SOURCE_H

#include "postgres.h"

#include "portability/instr_time.h"
#include "nodes/pg_list.h"
#include "utils/relcache.h"

#include "fdw/parquet_fdw.h"
#include "fdw/remote_object.h"

/* A foreign-table column a source binds to its file's field. */
typedef struct PfSourceColumn
{
	AttrNumber	attnum;
	const char *attname;		/* the foreign table's column */
	const char *field_name;		/* the field it reads (column_name option) */
	Oid			typid;			/* declared type (convert() target) */
	int32		typmod;
} PfSourceColumn;

/*
 * What one scan shares with the sources it opens, file after file: table
 * options, counters for EXPLAIN ANALYZE, and buffers kept across files
 * (zeroed, with cxt set, by the caller).
 */
typedef struct PfSourceScan
{
	MemoryContext cxt;			/* lives as long as the scan */
	bool		verify_checksums;	/* table option verify_checksums */
	bool		guid_dotnet;	/* table option guid_byte_order 'dotnet' */
	bool		time_decoding;	/* add the format layer's time to decode_time */
	void	   *buffers;		/* a source's own, kept across files (in cxt) */
	int64		bytes_read;		/* by closed units' readers */
	instr_time	decode_time;
	int64		rows_skipped_by_index;	/* rows a row-level index ruled out */
	bool		remote;			/* a file was an object-store URL */
	PfRemoteStats remote_stats; /* its requests, for EXPLAIN ANALYZE */
} PfSourceScan;

/*
 * The most bytes of stored values (variable-width values at their length,
 * a dictionary's value once per row that uses it) one batch may hold: the
 * Datums converted from them cost about as much again, so a scan's batch
 * memory stays near 2 x 64 MB however large the values of a file are.
 */
#define PF_BATCH_VALUE_BYTES	((uint64) 64 * 1024 * 1024)

typedef struct PfSourceOps PfSourceOps;

/* An open file.  Sources embed it as the first member of their own state. */
typedef struct PfSource
{
	const PfSourceOps *ops;
	const char *path;
	Relation	rel;
	PfSourceScan *scan;			/* options and counters (planning too) */
	int			nunits;

	/* set by bind() */
	int			ncolumns;
	const PfSourceColumn *columns;
	List	   *attnos;			/* int: each bound column's attnum */
	bool	   *present;		/* per bound column: the file has its field
								 * (else it is NULL or virtual) */

	/*
	 * The units the scan will open after the one it opens next, in order,
	 * as far as it knows (set before unit_open; NULL: unknown, a source
	 * may then guess the following ones).  A remote source fetches them
	 * in the background while the open one decodes.
	 */
	const int  *next_units;
	int			nnext_units;

	/* set while a unit is open */
	int			unit;			/* -1: none */
	int64		batch_row;		/* unit row of the current batch's first */
	const char *err_column;		/* column or field being read, or NULL */
} PfSource;

struct PfSourceOps
{
	/* words for messages and EXPLAIN */
	const char *file_noun;		/* "Parquet file" */
	const char *file_label;		/* "Parquet File" (EXPLAIN adds "s") */
	const char *unit_noun;		/* "row group" */
	const char *units_label;	/* "Row Groups" */
	const char *index_label;	/* "Rows Skipped by Page Index" */
	bool		counts_io;		/* bytes_read and decode_time are kept */

	/*
	 * Late conversion: once more than this percentage of the rows seen
	 * need a lazy column, the rest of each batch is converted at once (a
	 * row at a time costs more per value than a batch, by how much depends
	 * on the format's readers).
	 */
	int			lazy_rest_percent;

	/*
	 * Open the file at path (its footer from the footer cache when the
	 * format has one).  scan gives the table options; planning and
	 * metadata use pass one too, its counters then unused.
	 */
	PfSource   *(*open) (const char *path, Relation rel, PfSourceScan *scan,
						 MemoryContext cxt);
	void		(*close) (PfSource *src);

	/*
	 * Bind columns to the file's fields (exact name, else the only
	 * case-insensitive match).  A column the file lacks is not present:
	 * an error when missing_error, unless it is the filename column or a
	 * partition key of the path.  With converters, convert() may be used.
	 * Binding again replaces the previous binding.
	 */
	void		(*bind) (PfSource *src, const PfSourceColumn *cols, int ncols,
						 bool missing_error, bool converters);

	/* Rows of a unit. */
	int64		(*unit_rows) (PfSource *src, int unit);
	/* Stored bytes of bound column col in a unit (costing). */
	double		(*column_bytes) (PfSource *src, int unit, int col);
	/* Stored bytes of a whole unit, every field (ANALYZE's page count). */
	double		(*unit_bytes) (PfSource *src, int unit);

	/*
	 * Bounds of bound column col's non-null values in a unit as Datums of
	 * type typid (the field's default type; bytes order for text), and its
	 * null count (-1: unknown).  false when the format has no exact bound.
	 */
	bool		(*column_bounds) (PfSource *src, int unit, int col, Oid typid,
								  Datum *min, Datum *max, int64 *null_count);

	/*
	 * The cheapest way the format shows that the quals (PfPruneQual, over
	 * bound columns) hold for no row of a unit: statistics, Bloom filters,
	 * dictionaries; PF_PRUNE_NONE when none does.
	 */
	PfPruneKind (*unit_prune) (PfSource *src, int unit, List *quals);
	/* Do quals rule the whole file out by its virtual columns' values? */
	bool		(*file_excluded) (PfSource *src, List *quals);

	/*
	 * Planning of a remote file whose identity is not confirmed yet
	 * (pf_remote_head_speculate): start fetching the bound columns of the
	 * units the scan will open first, in that order (units NULL: cancel
	 * that); close() leaves them for the scan to come.  NULL: the format
	 * does not.
	 */
	void		(*speculate) (PfSource *src, const int *units, int nunits);

	/*
	 * Open a unit for reading the bound columns: row_quals (PfPruneQual with
	 * values) may let a row-level index skip rows (counted in
	 * scan->rows_skipped_by_index); row_limit > 0 reads only the unit's
	 * first row_limit rows (when no row quals).
	 */
	void		(*unit_open) (PfSource *src, int unit, List *row_quals,
							  int64 row_limit);
	/*
	 * Position the next batch of at most max_rows rows, decoding what the
	 * format decodes for all columns at once; src->batch_row is its first
	 * row in the unit.  0: the unit has no row left.  A batch holds at most
	 * PF_BATCH_VALUE_BYTES of stored values (fewer rows when they are
	 * large; one row when that row alone is larger).
	 */
	uint32		(*read) (PfSource *src, uint32 max_rows);
	/* May convert() take bound column col a few rows at a time? */
	bool		(*column_lazy) (PfSource *src, int col);
	/*
	 * Optional (NULL: every column is decoded by read()).  From now on the
	 * engine converts bound column col, one column_lazy() allows, only a
	 * few rows at a time and, within a batch, in increasing row order
	 * without asking for a row twice: the source may then decode the
	 * column only for the rows convert() asks for, passing over the pages
	 * none of them is in (late materialization).  Called after bind(),
	 * before a unit opens; a new bind() forgets it.
	 */
	void		(*column_defer) (PfSource *src, int col);
	/*
	 * Rows [from, from + n) of the current batch of present bound column
	 * col as Datums of its declared type into values[0..n), nulls[0..n).
	 */
	void		(*convert) (PfSource *src, int col, uint32 from, uint32 n,
							Datum *values, bool *nulls);
	/* In an error context callback: the failing row of convert's n, or -1. */
	int64		(*failed_row) (void);
	/* Bytes the open unit's readers have read so far (NULL: not kept). */
	int64		(*unit_bytes_read) (PfSource *src);
	void		(*unit_close) (PfSource *src);

	/*
	 * Optional (NULL: the format does not offer them): the stored values
	 * themselves, for a consumer that evaluates them without convert(),
	 * the aggregate pushdown.  raw_field gives the file's metadata and the
	 * field bound column col reads (NULL: absent, or col -1); raw_batch
	 * the current batch of a present bound column that is one flat leaf,
	 * as the format layer decoded it (Parquet physical values), valid
	 * until the next read().  Needs a binding with converters.
	 */
	const PqSchemaNode *(*raw_field) (PfSource *src, int col,
									  const PqFileMeta **meta);
	const PqColumnBatch *(*raw_batch) (PfSource *src, int col);

	/*
	 * Optional (NULL: the format keeps no sketch): the distinct non-null
	 * values of bound column col in the whole file (Amudai's
	 * CardinalityInfo, a HyperLogLog estimate) and its null count; false
	 * when this file has no sketch for the field.  For the planner's
	 * distinct estimates (distinct_stats.c).
	 */
	bool		(*column_distinct) (PfSource *src, int col, double *distinct,
									double *nulls);
};

/* in source_parquet.c, source_amudai.c */
extern const PfSourceOps pf_parquet_source;
extern const PfSourceOps pf_amudai_source;

/* in plan.c: the source of a foreign table (table option format, magic) */
extern const PfSourceOps *pf_table_source(Oid foreigntableid);
/* The source of a plan state's or plan's kind, and the kind of a source. */
extern const PfSourceOps *pf_source_of_kind(PfScanKind kind);
extern PfScanKind pf_source_kind(const PfSourceOps *ops);

/* in distinct_stats.c: a planned file's sketches (see column_distinct) */
extern void pf_distinct_note_file(PfPlanState *ps, const PfSourceOps *ops,
								  PfSource *src, const PfSourceColumn *cols,
								  int ncols, int natts);

#endif							/* PF_SOURCE_H */
