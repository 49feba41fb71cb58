/*-------------------------------------------------------------------------
 *
 * parquet_fdw.h
 *	  Internal interfaces of the PostgreSQL glue layer.
 *
 * The scan reads a batch of rows from every needed leaf column, then each
 * foreign-table column's converter turns its leaves' batches into an array
 * of Datums at once (column at a time, the type decision made once when the
 * converter is built), and tuple formation only gathers Datums row by row.
 *
 * Grouped by the file that defines them, as in postgres_fdw.h: fdw.c (the
 * GUC), option.c (table and column options), files.c (file lists, folder
 * and pattern expansion, hive partitions, column-to-field matching),
 * prune.c (row-group pruning), scan.c (the Parquet scan callbacks),
 * analyze.c, import.c, footer_cache.c, reader.c (opening files from the
 * backend), sorted.c (the "sorted" option and its merge), scan.c again
 * (EXPLAIN ANALYZE's I/O counters), convert.c and convert_variant.c
 * (values to Datums), agg_*.c (aggregate pushdown).  The shard side's
 * declarations are in amudai_fdw.h.
 *
 * IDENTIFICATION
 *	  src/fdw/parquet_fdw.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PARQUET_FDW_H
#define PARQUET_FDW_H

#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "fmgr.h"
#include "access/nbtree.h"
#include "foreign/fdwapi.h"
#include "fmgr.h"
#include "nodes/primnodes.h"
#include "utils/relcache.h"
#include "nodes/pg_list.h"
#include "utils/memutils.h"
#include "utils/jsonb.h"
#include "fdw/pg_compat.h"

#include "parquet/parquet.h"

/* in fdw.c */
extern PGDLLIMPORT char *parquet_fdw_simd;	/* GUC parquet_fdw.simd */

/* in option.c: options of foreign tables and their columns */
typedef struct PfTableOptions
{
	List	   *filenames;		/* char *, in scan order */
	bool		missing_columns_error;	/* missing_columns 'error' */
	bool		missing_columns_null;	/* missing_columns 'null'; neither:
										 * NULL, but an error when no file
										 * has the column */
	bool		verify_checksums;	/* check the CRC of pages that have one */
	bool		guid_dotnet;	/* Amudai Guids in .NET order (else RFC 4122) */
	char	   *sorted;			/* the "sorted" option, or NULL */
	bool		allow_empty;	/* allow_empty: an entry may yield no file */
	Oid			serverid;		/* the table's server (reads its URLs) */
} PfTableOptions;

extern void pf_validate_options(List *options, Oid catalog);
extern PfTableOptions *pf_get_table_options(Oid foreigntableid);
/* The file column an attribute reads: its column_name option or its name. */
extern char *pf_get_column_name(Oid relid, AttrNumber attnum);
/* Superuser or pg_read_server_files, else ERRCODE_INSUFFICIENT_PRIVILEGE. */
extern void pf_check_file_access(const char *what);

/* in open_path.c: opening what the extension reads, never blocking */

/* Read-only, and open(2) returns at once even for a FIFO or a device. */
#define PF_OPEN_READ_FLAGS	(O_RDONLY | PG_BINARY | O_NONBLOCK)
/* "a FIFO", "a directory", ...: what a path is, for messages. */
extern const char *pf_file_type_name(mode_t mode);
/*
 * After opening with PF_OPEN_READ_FLAGS and fstat()ing into st: 0 when the
 * descriptor is a regular file (O_NONBLOCK then cleared), else an errno
 * (EINVAL: not a regular file); the caller closes the descriptor on failure.
 */
extern int	pf_keep_regular(int fd, const struct stat *st);
/*
 * Open path as a transient file (closed at abort) the non-blocking way;
 * the descriptor, or -1 with errno set.  *st is the file's fstat(); after
 * a failure its st_mode is 0 unless the path is no regular file
 * (pf_report_not_regular() then says what it is).
 */
extern int	pf_open_regular(const char *path, struct stat *st);
/*
 * A file's identity as a plan records it (size, modification time, inode),
 * and the check an execution makes before it reads the planned units of a
 * file: a file changed since planning is an error (55000) rather than a
 * partial answer; cached plans are reset, so the next run plans anew.
 * pf_file_identity returns "" when the path cannot be stat'ed.
 */
extern char *pf_file_identity(const char *path);
/* The same for a path that may be a URL ("size:etag", one HEAD a statement). */
extern char *pf_file_identity_at(const char *path, Oid serverid);
/* The foreign server of rel's table (InvalidOid: none, or no foreign table). */
extern Oid	pf_rel_serverid(Relation rel);
extern void pf_check_planned_file(const char *path, const char *planned_identity);
/*
 * After opening a file that pf_check_planned_file() let through in this
 * transaction: the same 55000 error when the descriptor's fstat() (st) is
 * not the planned file (it was replaced between the check and the open).
 * pf_open_regular() calls it; openers of their own call it after fstat().
 */
extern void pf_check_opened_file(const char *path, const struct stat *st);
/* ERRCODE_WRONG_OBJECT_TYPE: "path" is <what mode is>, not <expected>. */
extern void pf_report_not_regular(const char *path, mode_t mode,
								  const char *expected) pg_attribute_noreturn();
/*
 * ERRCODE_FEATURE_NOT_SUPPORTED when a write target is a URL ("s3://...",
 * "https://..."), for the writers that take local paths only (INSERT;
 * COPY TO and parquet_fdw_write_amudai upload: remote_upload.h); a plain
 * path returns.
 */
extern void pf_refuse_url(const char *path);

/* in files.c: the files a table reads and the fields its columns read */

/*
 * Expand the filename option's entries: a folder stands for the *.parquet
 * files below it (any depth, hidden and "_"-prefixed names skipped), an
 * entry with a wildcard is a glob(3) pattern; files come in path order.
 */
extern List *pf_expand_filenames(List *entries);
/* The first file pf_expand_filenames() would give (NULL: none), cheaply. */
extern char *pf_expand_first_filename(List *entries);
/* The same two where URL entries are read with serverid's settings. */
extern List *pf_expand_filenames_at(List *entries, Oid serverid);
extern char *pf_expand_first_filename_at(List *entries, Oid serverid);

/*
 * The same, not descending into the folders named key=value (at any depth)
 * for which skip(folder path with a trailing '/', arg) returns true; *folders_skipped (when not
 * NULL) counts them.  For partition pruning: the files below such a folder
 * are not even listed.
 */
typedef bool (*PfFolderFilter) (const char *folder, void *arg);
extern List *pf_expand_filenames_filtered(List *entries, PfFolderFilter skip,
										  void *arg, int *folders_skipped);

/*
 * The files a table reads: pf_expand_filenames_filtered() of its filename
 * entries, where an entry (pattern, folder, file) yielding no file, with no
 * key=value folder skipped either, is an error (ERRCODE_UNDEFINED_FILE)
 * naming it unless the table's allow_empty option is set.
 */
extern List *pf_table_files(const PfTableOptions *opts, PfFolderFilter skip,
							void *arg, int *folders_skipped);

/*
 * A literal path spelled so that the filename option's reader takes it as
 * itself: '\' before each '*', '?', '[', ']', ',', '"' and '\'.  Palloc'd.
 * IMPORT and parquet_create_foreign_table write paths through it.
 */
extern char *pf_escape_path(const char *path);

/*
 * The filename option's pattern syntax, one matcher for local folders and
 * object-store listings (files.c): the first unescaped wildcard (* ? [)
 * or NULL; text up to end with its backslash escapes removed; the
 * components between '/' (empty ones dropped, palloc'd); a hidden name
 * (".x", "_x": what folder expansion and "**" pass over); one name
 * against one component, as glob(3) matches it (fnmatch, FNM_PERIOD).
 */
extern const char *pf_first_wildcard(const char *text);
extern char *pf_unescape_upto(const char *text, const char *end);
extern char **pf_split_components(const char *text, int *n);
extern bool pf_hidden_name(const char *name);
extern bool pf_component_matches(const char *pattern, const char *name);

/*
 * EXPLAIN's lines of a scan's files: "Files: N" (or "N of M" when pruning
 * left files out; omitted for one file and nothing pruned), then the one
 * file, or the first under label "First <label>", and under VERBOSE
 * the whole list as "<label>s".
 */
extern void pf_explain_files(List *filenames, int files_pruned,
							 const char *label, struct ExplainState *es);

/*
 * The field of a file an attribute reads (its column_name option, else its
 * name; exact match first, then the only case-insensitive one), or NULL
 * when the file lacks it and missing_error is false; otherwise ereport.
 */
extern const PqSchemaNode *pf_find_column_field(const PqFileMeta *meta,
												const char *path,
												Relation rel,
												const char *attname,
												const char *field_name,
												bool missing_error);

/*
 * Virtual columns.  A column with the option filename_column 'true' holds
 * the path of the file each row comes from.  A folder of a file's path
 * named "key=value" (hive-style partitioning; %XX escapes decoded,
 * __HIVE_DEFAULT_PARTITION__ is NULL) gives a column that reads the field
 * "key" the value, in files that lack the field.
 */
typedef struct PfPartition
{
	char	   *key;
	char	   *value;			/* NULL: SQL NULL */
} PfPartition;

extern bool pf_is_filename_column(Oid relid, AttrNumber attnum);
/*
 * pf_virtual_column's answer when the caller knows whether the column is the
 * filename column and which field it reads (no catalog lookups).
 */
extern bool pf_virtual_value(const PqFileMeta *meta, const char *path,
							 bool is_filename_column, const char *field_name,
							 char **value);
/* The "key=value" folders of a path, outermost first (PfPartition *). */
extern List *pf_path_partitions(const char *path);
/* The value of partition key (exact name, else case-insensitive), if any. */
extern bool pf_partition_value(const char *path, const char *key, char **value);

/*
 * Is attribute attnum (reading field field_name) virtual in the file at
 * path (meta may be NULL: then a partition key counts whether or not the
 * file has the field)?  If so, *value is its text (NULL for SQL NULL).
 */
extern bool pf_virtual_column(const PqFileMeta *meta, const char *path,
							  Relation rel, AttrNumber attnum,
							  const char *field_name, char **value);

/* in qual.c: the analyzer of restriction clauses (PfPruneQual, PfQual) */
#include "fdw/qual.h"

/* in prune.c: row-group pruning with column-chunk statistics */
/*
 * Can row group rg be skipped: does some qual exclude every row?  attnos
 * and fields are parallel: the file field each attribute reads.
 */
extern bool pf_rowgroup_excluded(const PqFileMeta *meta, int rg, List *quals,
								 List *attnos, const PqSchemaNode **fields,
								 Relation rel);

/* What pruned a row group, from the cheapest method to the costliest. */
typedef enum PfPruneKind
{
	PF_PRUNE_NONE = 0,
	PF_PRUNE_STATISTICS,		/* column-chunk min/max and null counts */
	PF_PRUNE_BLOOM,				/* split-block bloom filters */
	PF_PRUNE_DICTIONARY			/* dictionaries of all-dictionary chunks */
} PfPruneKind;
#define PF_PRUNE_KINDS	(PF_PRUNE_DICTIONARY + 1)

/*
 * The cheapest method showing that row group rg of open file pf holds no
 * row the quals accept (PF_PRUNE_NONE: none does).  Bloom filters and
 * dictionaries are read through pf, for equality and IN quals statistics
 * leave open.
 */
struct PfFile;
extern PfPruneKind pf_rowgroup_prune(struct PfFile *pf, int rg, List *quals,
									 List *attnos, const PqSchemaNode **fields,
									 Relation rel);

/*
 * Does some qual exclude every row of a file by the values of its virtual
 * columns (path, partition values; pf_virtual_column)?  A partition value
 * the column's type cannot read is an error, as it would be in the scan.
 */
extern bool pf_file_excluded(const PqFileMeta *meta, const char *path,
							 List *quals, Relation rel);
/*
 * Does some qual exclude every file below folder (a path ending in '/') by
 * the partition values its path gives (key=value folder names, the
 * folder's own included)?
 * Files below are not opened, so a field of theirs named as a partition key
 * cannot override the folder's value here: pruning trusts folder names.
 */
extern bool pf_folder_excluded(const char *folder, List *quals, Relation rel);

/*
 * The min (or max) statistic of field's chunk in row group rg as a Datum
 * of typid, its default type; false when there is none or the field reads
 * another type.  Bytes order: text bounds hold under the C collation only.
 */
extern bool pf_chunk_bound(const PqFileMeta *meta, int rg,
						   const PqSchemaNode *field, Oid typid, bool want_max,
						   Datum *bound);

/* Rows [start, end) of a row group. */
typedef struct PfRowRange
{
	int64		start;
	int64		end;
} PfRowRange;

/*
 * Page-index pruning: the sorted, disjoint row ranges of row group rg
 * whose pages (by the ColumnIndex and OffsetIndex of the quals' columns)
 * may hold rows the quals accept, allocated in cxt; *nranges of them
 * (0: no row can match).  NULL (*nranges -1) when no qual could be judged
 * by a page index: read every row.
 */
extern PfRowRange *pf_rowgroup_row_ranges(struct PfFile *pf, int rg, List *quals,
										  List *attnos,
										  const PqSchemaNode **fields,
										  Relation rel, MemoryContext cxt,
										  int *nranges);

/* in plan.c and scan.c: planning and execution callbacks, for tables of
 * either format */

/*
 * The first member of every state we keep in RelOptInfo.fdw_private
 * (planning) and ForeignScanState.fdw_state (execution), so that fdw.c
 * dispatches each callback, and each tuple, on one load instead of
 * inspecting options or the plan.  A table scan's kind names its format
 * (its source, source.h); both run the same callbacks.
 */
typedef enum PfScanKind
{
	PF_SCAN_PARQUET = 1,
	PF_SCAN_AMUDAI,
	PF_SCAN_AGGREGATE
} PfScanKind;

/*
 * Planner state of a base relation, kept in baserel->fdw_private between
 * callbacks (and read by upper-relation planning, e.g. aggregate pushdown).
 * "Row groups" are the format's units: Parquet row groups, Amudai stripes.
 */
typedef struct PfPlanState
{
	PfScanKind	kind;			/* the format; first, see PfScanKind */
	List	   *filenames;		/* char * */
	List	   *identities;		/* char *, per file: pf_file_identity() */
	List	   *attnos;			/* int: attributes to fill */
	List	   *rowgroups;		/* per file, List of int: units */
	int			total_rowgroups;
	double		total_rows;		/* rows of the chosen units */
	double		bytes;			/* stored bytes of the needed fields */
	List	   *param_quals;	/* PfPruneQual whose value is known only at
								 * executor start */
	int			pruned[PF_PRUNE_KINDS]; /* units skipped at plan time,
										 * by method */
	int			files_pruned;	/* files skipped by virtual-column quals */
	int			folders_pruned; /* key=value folders not even listed */
	char	   *sorted;			/* the table option "sorted", or NULL */
	List	   *sort_keys;		/* its keys (PfSortKey), parsed */
	char	   *agg_refused;	/* why aggregate pushdown was not used, for
								 * EXPLAIN (VERBOSE); NULL when not tried */
	/* distinct_stats.c: per attnum 1..natts, summed over the files */
	int			distinct_natts;
	double	   *distinct;		/* NULL, or [natts + 1]: < 0 unknown */
	double	   *distinct_nulls;
} PfPlanState;

/*
 * fdw_private of the ForeignScan plan node of a table scan (plan.c makes
 * it, scan.c reads it), a List with these members.
 */
enum PfScanPrivateIndex
{
	PfScanPrivateKind,			/* Integer: PfScanKind, the format */
	PfScanPrivateFiles,			/* List of String: files, in scan order */
	PfScanPrivateAttnos,		/* List of Integer: attributes to fill */
	PfScanPrivateRowGroups,		/* List per file of List of Integer: units */
	PfScanPrivateTotalRowGroups,	/* Integer: units before pruning */
	PfScanPrivatePruneQuals,	/* List per qual of Integers: attnum,
								 * strategy, cmpproc, collation, valtype;
								 * the values are fdw_exprs, in order */
	PfScanPrivatePruned,		/* List of Integer: units pruned at plan
								 * time, per PfPruneKind; then files and
								 * folders pruned */
	PfScanPrivateIdentities,	/* List of String: each file's identity
								 * when planned (pf_file_identity) */
	PfScanPrivateAggRefused,	/* String: why aggregate pushdown was not
								 * used (agg_refused.c), or "" */
	PfScanPrivateSorted,		/* String: the "sorted" option when the
								 * path returns rows in its order, else ""
								 * or absent */
	PfScanPrivateTopN			/* List: the top-N threshold's key
								 * (scan_topn.c), else absent */
};


/* in plan.c */
extern void pfGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel,
								Oid foreigntableid);
extern void pfGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel,
							  Oid foreigntableid);
extern ForeignScan *pfGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel,
									 Oid foreigntableid, ForeignPath *best_path,
									 List *tlist, List *scan_clauses,
									 Plan *outer_plan);
/* in scan.c */
extern void pfBeginForeignScan(ForeignScanState *node, int eflags);
extern TupleTableSlot *pfIterateForeignScan(ForeignScanState *node);
extern void pfReScanForeignScan(ForeignScanState *node);
extern void pfEndForeignScan(ForeignScanState *node);
extern void pfExplainForeignScan(ForeignScanState *node,
								 struct ExplainState *es);
/*
 * A scan outside the executor (ANALYZE, the sorted merge): rows of the
 * given units (per file, List of Integer) of the given files (char *) of
 * one format (its source), only the first rowgroup_row_limit rows of each
 * when that is positive, the attributes attnos filled.  pf_scan_next()
 * returns false at the end; values and isnull are indexed by attnum - 1
 * (natts entries), by-reference values valid until the next call.  Memory
 * lives in a context below parent, freed by close.
 */
struct PfSourceOps;
typedef struct PfScanState PfScanState;
extern PfScanState *pf_scan_open(Relation rel, const struct PfSourceOps *source,
								 List *filenames, List *rowgroups,
								 List *attnos, int64 rowgroup_row_limit,
								 MemoryContext parent);
extern bool pf_scan_next(PfScanState *st, Datum *values, bool *isnull, int natts);
extern void pf_scan_close(PfScanState *st);

/*
 * in scan_topn.c: top-N of a plain scan (ORDER BY ... LIMIT n), a
 * threshold on the first sort key that drops rows which cannot be among the
 * first n before their other columns are converted.
 *
 * pf_topn_plan: the key as a List for fdw_private, or NIL when the query is
 * not a single-table ORDER BY with a known LIMIT whose quals the scan
 * evaluates itself (clauses: the scan's quals; attnos: the columns it
 * fills); pf_topn_plan_rows completes it with n and the number of keys.
 * pf_topn_rejects: does a value sort strictly after the n-th best value of
 * the rows returned so far (counted as dropped)?  pf_topn_add: note the
 * key of a returned row.  pf_topn_threshold: the n-th best value once n
 * rows were returned.
 */
typedef struct PfTopN PfTopN;
extern void pf_topn_define_guc(void);	/* parquet_fdw.enable_scan_topn */
extern List *pf_topn_plan(PlannerInfo *root, RelOptInfo *baserel,
						  List *clauses, List *attnos);
extern List *pf_topn_plan_rows(List *spec, PlannerInfo *root);
extern PfTopN *pf_topn_begin(List *spec, Relation rel, MemoryContext parent);
extern AttrNumber pf_topn_attnum(const PfTopN *t);
extern bool pf_topn_rejects(PfTopN *t, Datum value, bool isnull);
/*
 * The key's values come from a dictionary of so many entries (0: not, or
 * no longer): pf_topn_rejects_entry then judges each entry once per
 * threshold, a row by the entry its value is (entry numbers beyond the
 * count: judged by value).  pf_topn_forget_dictionary: the entries'
 * numbers change (a new unit).
 */
extern void pf_topn_use_dictionary(PfTopN *t, uint32 entries);
extern void pf_topn_forget_dictionary(PfTopN *t);
extern bool pf_topn_rejects_entry(PfTopN *t, uint32 entry, Datum value,
								  bool isnull);
/*
 * Does the threshold reject every one of nrows values (counted as
 * dropped)?  entries: their dictionary entries, or NULL.
 */
extern bool pf_topn_rejects_all(PfTopN *t, const Datum *values,
								const bool *nulls, const uint32 *entries,
								uint32 nrows);
/* The same for rows rows[0..nrows) of the batch only (a selection). */
extern bool pf_topn_rejects_rows(PfTopN *t, const Datum *values,
								 const bool *nulls, const uint32 *entries,
								 const uint32 *rows, uint32 nrows);
extern void pf_topn_add(PfTopN *t, Datum value, bool isnull);
extern bool pf_topn_threshold(const PfTopN *t, Datum *value, bool *isnull);
extern void pf_topn_reset(PfTopN *t);
extern void pf_topn_explain(List *spec, const PfTopN *t, Relation rel,
							const char *units_label, struct ExplainState *es);
/*
 * Do unit's statistics (column col of src, of type typid) show none of its
 * rows can beat the threshold?  Counted as skipped when they do.
 */
struct PfSource;
extern bool pf_topn_unit_excluded(PfTopN *t, const struct PfSourceOps *ops,
								  struct PfSource *src, int unit, int col,
								  Oid typid);
/*
 * Reorder a file's units (the serial scan's remaining ones) so those whose
 * statistics promise the best keys come first and the threshold tightens
 * early; units without usable bounds first.  col: the key's bound column
 * (of type typid) in src.
 */
struct PfSource;
extern void pf_topn_order_units(PfTopN *t, const struct PfSourceOps *ops,
								struct PfSource *src, int col, Oid typid,
								int *units, int nunits);

/* parallel query: participants share the units through the DSM */
extern bool pfIsForeignScanParallelSafe(PlannerInfo *root, RelOptInfo *rel,
										RangeTblEntry *rte);
extern Size pfEstimateDSMForeignScan(ForeignScanState *node,
									 ParallelContext *pcxt);
extern void pfInitializeDSMForeignScan(ForeignScanState *node,
									   ParallelContext *pcxt,
									   void *coordinate);
extern void pfReInitializeDSMForeignScan(ForeignScanState *node,
										 ParallelContext *pcxt,
										 void *coordinate);
extern void pfInitializeWorkerForeignScan(ForeignScanState *node,
										  shm_toc *toc,
										  void *coordinate);
extern void pfShutdownForeignScan(ForeignScanState *node);

/* in analyze.c: the row reservoir of both ANALYZE samplers */
typedef struct PfReservoir PfReservoir;

/* Keeps targrows rows of tupdesc, formed in the current memory context. */
extern PfReservoir *pf_reservoir_create(TupleDesc tupdesc, int targrows);
/* The next row in table order (Vitter's algorithm decides if it stays). */
extern void pf_reservoir_offer(PfReservoir *r, Datum *values, bool *isnull);
/* Rows offered so far. */
extern double pf_reservoir_seen(const PfReservoir *r);
/* The kept rows into rows[] in table order; returns how many. */
extern int	pf_reservoir_finish(PfReservoir *r, HeapTuple *rows);

/* in analyze.c: ANALYZE samples rows of units picked at random */
extern bool pfAnalyzeForeignTable(Relation relation,
									   AcquireSampleRowsFunc *func,
									   BlockNumber *totalpages);

/* in import.c: IMPORT FOREIGN SCHEMA and parquet_create_foreign_table() */
extern List *parquetImportForeignSchema(ImportForeignSchemaStmt *stmt,
										Oid serverOid);

/* in footer_cache.c: per-backend cache of parsed footers */
extern PGDLLIMPORT int pf_footer_cache_size_kb;	/* parquet_fdw.footer_cache_size */
typedef struct PfFooterEntry PfFooterEntry;

/*
 * The parsed footer of the file at path, pinned: from the cache when the
 * file's device, inode, size, mtime and ctime are those cached, else read
 * (and cached within the size limit).  A pinned entry stays valid whatever
 * happens to the cache until pf_footer_cache_release(); the end of the
 * transaction drops every pin.  Errors as pf_open_file().
 */
extern PfFooterEntry *pf_footer_cache_acquire(const char *path);
/*
 * The same for a path that may be an object-store URL, read with the
 * settings of foreign server serverid (InvalidOid: the environment's):
 * keyed by server and URL, identified by size and ETag (remote_object.h).
 */
extern PfFooterEntry *pf_footer_cache_acquire_at(const char *path, Oid serverid);
/* The remote object a URL's entry reads through (NULL: a local file). */
extern struct PfRemoteObject *pf_footer_entry_remote(PfFooterEntry *entry);
extern struct PfRemoteObject *pf_footer_cache_remote_peek(const char *url, Oid serverid,
														  uint64 size, const char *etag);
extern bool pf_footer_cache_remote_identity(const char *url, Oid serverid,
											uint64 *size, char *etag);
/* The entry's PqFile: metadata, and reads through the entry's descriptor. */
extern PqFile *pf_footer_entry_file(PfFooterEntry *entry);
extern void pf_footer_cache_release(PfFooterEntry *entry);
/*
 * ereport(ERROR, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE) "file ... changed
 * while it was being read" when the file of a pinned entry is no longer
 * the one its footer was read from, with what changed and a hint to retry:
 * written in place (size or mtime, seen through the open descriptor), or,
 * with by_path, also replaced or removed at its path.
 */
extern void pf_footer_entry_check_unchanged(PfFooterEntry *entry,
											bool by_path);

/* in reader.c: opening files from the backend */
/*
 * Open a Parquet file for reading: its footer comes from the footer cache,
 * pinned until pf_close_file(); reads through file go to a descriptor the
 * cache opens on first use.  Errors are ereport()ed:
 * errcode_for_file_access() for I/O, ERRCODE_DATA_CORRUPTED for bad files,
 * ERRCODE_FEATURE_NOT_SUPPORTED for encrypted files.  The PfFile is
 * allocated in the given context; meta and file must not be used after
 * pf_close_file().
 */
typedef struct PfFile
{
	char	   *path;
	int			fd;				/* unused: -1 (the cache entry's is used) */
	PfcSource	source;
	PfcAllocator alloc;
	PqFile	   *file;
	const PqFileMeta *meta;
	PfFooterEntry *entry;		/* the pinned footer cache entry */
} PfFile;

/*
 * pf_open_file is for callers that answer from the footer alone (the
 * inspection functions): a URL's identity is asked for, never taken on
 * trust (remote_metadata_ttl).
 */
extern PfFile *pf_open_file(const char *path, MemoryContext cxt);
/* The same for a path that may be a URL read with serverid's settings. */
extern PfFile *pf_open_file_at(const char *path, Oid serverid, MemoryContext cxt);
extern void pf_close_file(PfFile *pf);

/* Turn a failed PqStatus into an ereport(ERROR) naming file and location. */
extern void pf_report_error(const char *path, const PqError *err) pg_attribute_noreturn();

/*
 * A failed read of an open file: reported as the file having changed when
 * it did (pf_footer_entry_check_unchanged), else as pf_report_error().
 */
extern void pf_report_read_error(PfFile *pf, const PqError *err) pg_attribute_noreturn();

/* in sorted.c: the table option "sorted" and the merge of sorted files */
typedef struct PfSortKey
{
	char	   *name;			/* as written (folded unless quoted) */
	bool		descending;
	bool		nulls_first;
	/* with a relation: the column and its default ordering operator */
	AttrNumber	attnum;
	Oid			type;
	int32		typmod;
	Oid			collation;
	int16		typlen;
	bool		typbyval;
	Oid			sortop;			/* "<" ascending, ">" descending */
} PfSortKey;

/* The keys of a "sorted" value; rel NULL: syntax only (the validator). */
extern List *pf_parse_sorted(const char *spec, Relation rel);
/* The pathkeys of that order over baserel (leading usable keys). */
extern List *pf_sorted_pathkeys(PlannerInfo *root, RelOptInfo *baserel,
								List *keys);

/*
 * A merge of the rows of files, each in the keys' order: one scan per file
 * (filenames, rowgroups parallel: the plan's lists), the next row in order
 * from pf_merge_next() (an empty slot at the end).  Errors when a file's
 * row sorts before the one preceding it.
 */
typedef struct PfMerge PfMerge;
extern PfMerge *pf_merge_begin(Relation rel, const struct PfSourceOps *source,
							   List *keys, List *filenames,
							   List *rowgroups, List *attnos,
							   MemoryContext parent);
extern TupleTableSlot *pf_merge_next(PfMerge *m, TupleTableSlot *slot);
extern void pf_merge_rescan(PfMerge *m);
extern void pf_merge_end(PfMerge *m);
extern void pf_merge_counts(const PfMerge *m, int *opened, int *open_max);

/* in scan.c: EXPLAIN ANALYZE's "Bytes Read" and "Decode Time" (NULL: untimed) */
extern void pf_explain_io(int64 bytes_read, const instr_time *decode_time,
						  struct ExplainState *es);

/*
 * in agg_eval.c: a numeric times 10^scale from its stored digits; false
 * for NaN/infinity, more than 36 digits or more decimals than scale (the
 * caller then goes through numeric_out).  Also used by write_sink.c.
 */
extern bool pf_numeric_unscaled_fast(Datum num, int scale, int128 *v);

/* A PfcAllocator over a memory context (alloc = MemoryContextAlloc, release = pfree). */
extern PfcAllocator pf_context_allocator(MemoryContext cxt);
/* A pool of page buffers for a scan's column readers (buffer_pool.h). */
extern struct PfcBufferPool *pf_page_pool_create(MemoryContext cxt);

/* in convert.c: types and converters */

/*
 * The PostgreSQL type a top-level Parquet field maps to by default (used by
 * IMPORT FOREIGN SCHEMA and parquet_create_foreign_table).  Never fails: types
 * without a better mapping become bytea, nested ones jsonb.
 */
extern void pf_default_type(const PqSchemaNode *field, Oid *typid, int32 *typmod);

/* Type name with modifier as SQL spells it, e.g. "numeric(10,2)". */
extern char *pf_default_type_sql(const PqSchemaNode *field);

typedef struct PfConverter PfConverter;

/*
 * Build a converter from top-level field `field` to the declared column type.
 * Called once per scan (at BeginForeignScan), in cxt.  A declared type that
 * differs from the default is reached through PostgreSQL's cast from the
 * default type; without such a cast, ereport(ERROR,
 * ERRCODE_FEATURE_NOT_SUPPORTED) naming the column, file type and declared
 * type, with a hint at the default type.
 */
extern PfConverter *pf_converter_create(const PqFileMeta *meta,
										const PqSchemaNode *field,
										Oid typid, int32 typmod,
										const char *column_name,
										MemoryContext cxt);

/* Leaf indexes (into PqFileMeta.leaves) the converter needs, in order. */
extern int	pf_converter_num_leaves(const PfConverter *conv);
extern const int *pf_converter_leaves(const PfConverter *conv);

/*
 * Convert one batch: leaf_batches[i] is the batch of pf_converter_leaves()[i],
 * all covering the same num_rows rows.  Writes values[r * stride] and
 * nulls[r * stride] for r in 0..num_rows; allocates by-reference Datums in
 * the current memory context (the caller's per-batch context).
 */
extern void pf_converter_fill(PfConverter *conv,
							  const PqColumnBatch *leaf_batches,
							  uint32 num_rows,
							  Datum *values, bool *nulls, int stride);

/*
 * From now on, give every row of a flat column that references the same
 * entry of a dictionary-encoded chunk the same by-reference Datum, made in
 * cxt the first time a row needs it: the source calls this when it opens a
 * row group, with a context that lives until the row group closes (and
 * with NULL before it resets that context: copies per row again).
 */
extern void pf_converter_share_dictionary(PfConverter *conv,
										  MemoryContext cxt);

/*
 * Inside an error context callback: the index, in the batch given to the
 * pf_converter_fill() that raised the error, of the row whose value it is
 * about (flat columns), or -1.
 */
extern int64 pf_converter_failed_index(void);

/*
 * A Datum of type typid as the jsonb value to_jsonb() makes of it (out_func:
 * typid's output function); for nested values of other formats too.
 */
extern void pf_datum_to_jsonb_value(Datum d, Oid typid, FmgrInfo *out_func,
									JsonbValue *v);

/* in convert_variant.c: VARIANT groups (shredded or not) to jsonb */
typedef struct PfVariantConverter PfVariantConverter;

/* Is a top-level field a group annotated VARIANT? */
extern bool pf_is_variant_field(const PqSchemaNode *field);

/*
 * Compile the reassembly of VARIANT group `field` (its leaves, in schema
 * order, are the converter's leaves).  A shredding schema the spec does not
 * allow (e.g. an unsigned or FIXED_LEN_BYTE_ARRAY(4) typed_value) is
 * ereport(ERROR, ERRCODE_DATA_CORRUPTED).  Allocates in cxt.
 */
extern PfVariantConverter *pf_variant_converter_create(const PqFileMeta *meta,
													   const PqSchemaNode *field,
													   const char *column_name,
													   MemoryContext cxt);

/*
 * One batch of jsonb Datums (same contract as pf_converter_fill, without the
 * cast): SQL NULL for a null group, JSON null for Variant null; malformed
 * values ereport(ERROR, ERRCODE_DATA_CORRUPTED).
 */
extern void pf_variant_converter_fill(PfVariantConverter *vc,
									  const PqColumnBatch *leaf_batches,
									  uint32 num_rows,
									  Datum *values, bool *nulls, int stride);

/* Where the walk of one leaf stands in its batch (see the nested form below). */
typedef struct PfLeafPosition
{
	const PqColumnBatch *batch;
	uint32		pos;			/* next level entry */
	uint32		vpos;			/* next dense value (leaves under a repetition) */
} PfLeafPosition;

/*
 * The nested form, for a VARIANT group inside a struct, list or map: the one
 * value whose leaves (the converter's, in order) stand at `leaves`, which
 * are advanced past it.  *isnull for a null group; jsonb otherwise.
 */
extern Datum pf_variant_converter_next(PfVariantConverter *vc,
									   PfLeafPosition *leaves, bool *isnull);

/* in agg_plan.c and agg_exec.c: aggregate pushdown (UPPERREL_GROUP_AGG) */
extern PGDLLIMPORT bool pf_enable_aggregate_pushdown;
/* GUC parquet_fdw.enable_partial_aggregate (agg_plan.c) */
extern PGDLLIMPORT bool pf_enable_partial_aggregate;	/* GUC */
extern void parquetGetForeignUpperPaths(PlannerInfo *root,
										UpperRelationKind stage,
										RelOptInfo *input_rel,
										RelOptInfo *output_rel, void *extra);
/* Is this ForeignScan plan a pushed-down aggregate (scanrelid 0)? */
extern bool pf_agg_is_pushed_plan(Plan *plan);
extern ForeignScan *pf_agg_get_foreign_plan(PlannerInfo *root,
											RelOptInfo *upperrel,
											ForeignPath *best_path,
											List *tlist, Plan *outer_plan);
extern void pf_agg_begin_foreign_scan(ForeignScanState *node, int eflags);
extern TupleTableSlot *pf_agg_iterate_foreign_scan(ForeignScanState *node);
extern void pf_agg_rescan_foreign_scan(ForeignScanState *node);
extern void pf_agg_end_foreign_scan(ForeignScanState *node);
extern void pf_agg_explain_foreign_scan(ForeignScanState *node,
										struct ExplainState *es);
/* in agg_explain.c: the line saying why a table scan's aggregate was not pushed */
extern void pf_agg_explain_refused(ForeignScanState *node,
								   struct ExplainState *es);

/*
 * Page buffers a scan (plain or aggregating) keeps in its
 * common/buffer_pool.h pool for the next pages and row groups, at most.
 */
#define PF_PAGE_POOL_BYTES	((Size) 64 * 1024 * 1024)

/* in distinct_stats.c: files' distinct sketches for the planner */
extern void pf_distinct_stats_install(void);

/*
 * in agg_filter.c: "column [NOT] [I]LIKE constant" as vec_like.c evaluates
 * it (also the scan's late qual): NULL when the clause stays PostgreSQL's
 */
typedef struct PfLikeFilter PfLikeFilter;
extern PfLikeFilter *pf_like_filter_compile(Expr *clause, Index relid,
											AttrNumber *attnum);
extern bool pf_like_filter_datum(const PfLikeFilter *like, Datum text);

/*
 * agg_partial.c: a partial aggregate plan's units counter in the DSM, for
 * its participants to share the units.
 */
extern Size pf_agg_partial_estimate_dsm(ForeignScanState *node);
extern void pf_agg_partial_init_dsm(ForeignScanState *node, ParallelContext *pcxt,
									void *coordinate);
extern void pf_agg_partial_reinit_dsm(ForeignScanState *node, void *coordinate);
extern void pf_agg_partial_init_worker(ForeignScanState *node, void *coordinate);
extern void pf_agg_partial_shutdown(ForeignScanState *node);
/* agg_exchange.c: parquet_fdw.exchange_aggregate */
extern void pf_agg_xchg_define_guc(void);

/*
 * The start of a parallel scan of ours beyond parallel_setup_cost: workers
 * that open the files and read their footers, and the results combined
 * after them.  Fitted to the ClickBench bench (agg_plan.c says how) as a
 * multiple of parallel_setup_cost, so that setting it to 0 still forces
 * parallel plans.
 */
#define PF_PARALLEL_SETUP_COST	(15.0 * parallel_setup_cost)

#endif							/* PARQUET_FDW_H */
