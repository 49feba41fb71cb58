/*-------------------------------------------------------------------------
 *
 * agg_int.h
 *	  Aggregate pushdown, private to its files: count, sum, avg, min and max
 *	  computed inside the scan over the decoded column batches, grouped by
 *	  a few columns.
 *
 * The files, one job each: agg_compile.c (restrictions, keys and
 * aggregates to a program), agg_plan.c (upper paths and the plan),
 * agg_eval.c (expressions and accumulation over a batch), agg_filter.c
 * (filters to selection vectors), agg_group.c (key dictionaries, group
 * hashing), agg_spill.c (groups beyond memory: spill partitions),
 * agg_exec.c (executor callbacks, units, statistics shortcuts),
 * agg_explain.c, agg_kernel.c (computed columns by vector kernels:
 * length() of text, vec_text.c), agg_partial.c (parallel workers:
 * transition states and the units' claim).
 *
 * Planning (GetForeignUpperPaths, UPPERREL_GROUP_AGG) accepts a query over
 * one foreign table (Parquet files or Amudai shards) when every
 * restriction is "column op value" (= <> < <= > >=, so also BETWEEN; a
 * boolean column or its negation) that
 * the scan can evaluate on the raw vectors, the value a constant or an
 * expression of parameters (evaluated at each (re)scan), every GROUP BY
 * item is a plain column of a small-domain type (text, bool, integers,
 * date) and every aggregate is count(*), count(x), sum(x), avg(x), min(col)
 * or max(col) with x a column or + - * of columns and constants of one
 * numeric family.  Anything else keeps the ordinary plan.  The plan is a
 * ForeignScan with scanrelid 0 whose fdw_scan_tlist holds the group columns
 * and the Aggrefs, HAVING its qual; the restrictions travel in fdw_private
 * (their parameter values in fdw_exprs) and are compiled again at executor
 * start by the same code that accepted them.
 *
 * Execution reads each unit (row group, stripe) through the table source
 * (source.h) a batch at a time: a format that offers raw values
 * (raw_field, raw_batch: Parquet) hands over its decoded physical values,
 * any other the Datums of convert(), put in the same shapes (agg_exec.c's
 * fill_batch).  It builds
 * a selection vector from the filters, maps the selected rows to groups
 * (per-column codes, then a hash table of code tuples), evaluates the
 * aggregate arguments column-wise and accumulates:
 *	integers		int128 sums (exact), the result typed as PostgreSQL's
 *	decimals		scaled integers (int64 when a batch's value bounds allow,
 *					else int128, else numeric arithmetic for that batch), the
 *					sum converted to numeric with the static display scale
 *					that PostgreSQL's numeric_add/numeric_mul would give, avg
 *					by numeric_div on that sum and the count, as numeric_avg
 *	floats			in scan order with float4/float8's own overflow checks
 *					(avg keeps float8_accum's Youngs-Cramer state, whose
 *					overflow check it reproduces)
 * so the results equal PostgreSQL's own.  Without restrictions and groups,
 * count(*), count(col), min and max of integers, dates and decimals stored
 * as integers come from the row groups' statistics when present (raw
 * values only: the shortcut reads Parquet's statistics); run-time unit
 * pruning by the filters' values uses those statistics, or the source's
 * unit_prune() for other formats.
 *
 * Memory: a unit's readers live in the source's context reset per unit,
 * convert()'s Datums in one reset per batch; the
 * groups' keys and states in one that grows with the number of groups.  Past
 * hash_mem, the rows of keys not yet grouped are spilled to temporary
 * files partitioned by key hash and aggregated partition by partition
 * (agg_spill.c), as PostgreSQL's hash aggregate does: memory stays
 * bounded whatever the estimate said, the source is read once.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_AGG_INT_H
#define PF_AGG_INT_H

#include "postgres.h"

#include <math.h>
#include <xxhash.h>

#include "access/nbtree.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "executor/tuptable.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/date.h"
#include "utils/datum.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "common/buffer_pool.h"
#include "fdw/parquet_fdw.h"
#include "fdw/amudai_fdw.h"
#include "fdw/source.h"


/* Rows decoded per batch. */
#define PF_AGG_BATCH_ROWS	4096
/*
 * The planner refuses more estimated groups than this.  Groups beyond
 * memory spill (agg_spill.c) at a cost linear in the rows, so only a
 * count the 32-bit group ids cannot number.
 */
#define PF_AGG_MAX_GROUPS	PG_INT32_MAX
/* Days from 1970-01-01 (Parquet DATE) to 2000-01-01 (PostgreSQL date). */
#define PF_AGG_EPOCH_DAYS	(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE)

/* Codes per key of the direct table of two-key groups (64 x 64 entries). */
#define PF_AGG_PAIR_CODES	64

/* First element of a pushed-down plan's fdw_private. */
#define PF_AGG_MARKER		"parquet_fdw aggregate pushdown"

/*
 * PostgreSQL's 128-bit integers: aligned to 8 bytes like palloc'd memory
 * (a plain __int128 field wants 16 and may be stored with aligned moves).
 */
typedef int128 int128_t;
typedef uint128 uint128_t;

/* ----------------------------------------------------------------
 * The compiled program: columns, filters, group keys, aggregates
 * ----------------------------------------------------------------
 */

/* A column's declared type, as the pushdown reads it. */
typedef enum PfColKind
{
	PF_COL_INT,					/* int2, int4, int8 */
	PF_COL_DEC,					/* numeric(p,s) from a DECIMAL */
	PF_COL_F4,
	PF_COL_F8,
	PF_COL_DATE,
	PF_COL_TEXT,
	PF_COL_BOOL
} PfColKind;

typedef struct PfAggCol
{
	AttrNumber	attnum;
	char	   *attname;
	char	   *field_name;
	Oid			typid;
	int32		typmod;
	PfColKind	kind;
	int			precision;		/* DEC */
	int			scale;			/* DEC */
	/* in the current file */
	bool		missing;		/* absent: all null */
	int			slot;			/* its batch in the scan state */
	PqPhysicalType phys;
	int32		flba_len;
	bool		datum_only;		/* read only through convert(), as an input of
								 * a computed column (agg_pgexpr.c) */
} PfAggCol;

/* Value domain of an expression. */
typedef enum PfNum
{
	PF_NUM_INT,					/* int2/int4/int8 arithmetic, in int64 */
	PF_NUM_DEC,					/* scaled integer */
	PF_NUM_F4,
	PF_NUM_F8,
	PF_NUM_DATE,				/* bare column only (min/max, count) */
	PF_NUM_OTHER				/* text or bool column: count only */
} PfNum;

typedef enum PfExprOp
{
	PF_EXPR_COL,
	PF_EXPR_CONST,
	PF_EXPR_ADD,
	PF_EXPR_SUB,
	PF_EXPR_MUL
} PfExprOp;

typedef struct PfAggExpr
{
	PfExprOp	op;
	PfNum		num;
	Oid			type;			/* result type */
	int			scale;			/* DEC: scale of the unscaled integer */
	int			col;			/* COL: index into columns */
	struct PfAggExpr *left;
	struct PfAggExpr *right;
	/* CONST */
	int64		ival;
	int128_t	dval;
	double		fval;
	/* per batch, over the selected rows */
	uint64		eval_batch;		/* batch number of the values below */
	bool		eval_ok;		/* eval_expr's result for that batch */
	/* per batch and group: sums of the values and non-null counts */
	uint64		gsum_batch;		/* batch number of gsum and gcnt */
	uint32		gcap;
	int64	   *gsum;
	uint32	   *gcnt;
	bool		wide;			/* DEC: values in i128 (else i64) */
	double		bound;			/* DEC: bound on the |unscaled value| */
	int64	   *i64;
	int128_t   *i128;
	double	   *f8;
	bool	   *nulls;			/* NULL: no null in this batch */
	bool	   *null_buf;
	/* per batch, INT: non-null values' range, sum and count (shifted sums) */
	uint64		range_batch;	/* batch number of the fields below */
	int64		vmin;
	int64		vmax;
	int128_t	vsum;
	int64		vcount;
} PfAggExpr;

typedef enum PfAggKind
{
	PF_AGG_COUNT_STAR,
	PF_AGG_COUNT,
	PF_AGG_SUM,
	PF_AGG_AVG,
	PF_AGG_MIN,
	PF_AGG_MAX
} PfAggKind;

typedef struct PfAggDef
{
	PfAggKind	kind;
	Oid			argtype;
	Oid			restype;
	PfAggExpr  *arg;			/* NULL for count(*) */
	bool		from_stats;		/* answerable from column statistics */
	Oid			collid;			/* min/max of text: the comparison's collation */
	bool		distinct;		/* count(DISTINCT column): PF_AGG_COUNT of
								 * the (group, value) pairs, see
								 * PfAggDistinct */
	const char *sql_name;		/* the aggregate as the query named it, for
								 * EXPLAIN (bool_and is computed as min) */
} PfAggDef;

/* A filter "column op constant", normalized to the column's raw domain. */
typedef struct PfAggFilter
{
	int			col;
	int			strategy;		/* BT*StrategyNumber or PF_NOT_EQUAL_STRATEGY */
	bool		never;			/* no row passes */
	bool		any_not_null;	/* every non-null row passes */
	int128_t	ival;			/* INT, DATE (Parquet days), DEC (unscaled) */
	double		fval;
	char	   *bytes;			/* TEXT */
	int			len;
	bool		bval;
	int			orig_strategy;	/* the clause's (decimals may adjust strategy) */
	Oid			inputcollid;
	Oid			valtype;
	Expr	   *param_expr;		/* value known at each (re)scan, else NULL */
	PfQual	   *qual;			/* the analyzer's form of the restriction */
	/* other kinds of filters than "column op value" */
	int			kind;			/* PF_FILTER_* */
	int			nvals;			/* IN: the list's normalized values */
	struct PfAggFilter *vals;
	/* for EXPLAIN */
	char	   *text;
	struct PfAggLike *like;		/* PF_FILTER_LIKE: the compiled pattern */
	/*
	 * TEXT over a dictionary-coded batch: each entry's answer, found once
	 * per unit (its dictionary), 0 not yet, 1 passes, 2 does not
	 */
	uint8	   *dict_memo;
	uint32		dict_memo_cap;
	int64		dict_memo_unit; /* st->rowgroups_read of dict_memo */
} PfAggFilter;

#define PF_FILTER_CMP		0	/* column op value */
#define PF_FILTER_IS_NULL	1
#define PF_FILTER_NOT_NULL	2
#define PF_FILTER_IN		3	/* column = ANY (array) */
#define PF_FILTER_LIKE		4	/* column [NOT] [I]LIKE constant (vec_like.c) */

/* A group key column's values, coded 1..n (0 is NULL). */
typedef struct PfKeyDict
{
	int			col;
	MemoryContext cxt;			/* of its arrays and values */
	bool		frozen;			/* a new value gets PF_AGG_NO_CODE */
	uint32		nvalues;		/* codes 1..nvalues in use */
	uint32		cap_values;
	int64	   *ivalues;		/* INT, DATE (PostgreSQL days), BOOL */
	char	  **tvalues;		/* TEXT */
	int		   *tlens;
	uint32	   *hashes;
	/* open-addressing table of codes */
	uint32	   *table;
	uint32		mask;
	/* TEXT: recently seen value pointers (dictionary pages repeat them) */
	const uint8 *cache_ptr[256];
	uint32		cache_len[256];
	uint32		cache_code[256];
	/* TEXT: code of each one-byte value (flags, statuses), 0 = not yet */
	uint32		byte_code[256];
	/*
	 * Frozen (agg_group.c): a bit per remixed hash of the values coded, so
	 * most values without a code (the rows to spill) miss without a probe
	 */
	uint64	   *seen;
	int			seen_shift;		/* 32 - log2 of its bits */
	uint32		seen_nvalues;	/* nvalues when built: stale if different */
} PfKeyDict;

/*
 * count(DISTINCT x) of a group: the (group, x value) pairs seen, each
 * counted once in the group's state when first seen.  Past memory
 * (no_new_pairs), a new pair of a group in memory is spilled to partitions
 * by the hash of (keys, x), which are deduplicated each on its own before
 * the groups are returned: a pair lands in one partition only.
 */
typedef struct PfAggDistinct
{
	int			agg;			/* index into prog->aggs */
	int			col;			/* x's column */
	PfKeyDict  *dict;			/* codes of x's values */
	uint64	   *pairs;			/* open addressing: (gid + 1) << 32 | code,
								 * 0 empty */
	uint64		mask;
	uint64		npairs;
	struct PfAggSpill *spill_out;	/* new pairs past memory, or NULL */
	struct PfDistinctSet *fixed;	/* fixed-width x: the raw pairs
									 * (agg_distinct.c) instead of dict,
									 * pairs and spill_out; else NULL */
	uint8	   *seen;			/* no group keys: per code, counted (instead
								 * of pairs) */
	uint32		seen_cap;
	struct PfDistinctMemo *memo;	/* text: codes of dictionary entries */
} PfAggDistinct;

/* One output column (fdw_scan_tlist entry). */
typedef struct PfAggOut
{
	bool		is_key;
	int			index;			/* into keys or aggs */
	Oid			type;
} PfAggOut;

typedef struct PfAggProgram
{
	int			ncols;
	PfAggCol   *cols;
	int			nfilters;
	PfAggFilter *filters;
	int			nkeys;
	int		   *key_cols;
	int			naggs;
	PfAggDef   *aggs;
	int			nouts;
	PfAggOut   *outs;
	bool		all_from_stats;
	/* computed columns: cols[ncols + j] is computed[j]'s (agg_pgexpr.c) */
	int			ncomputed;
	struct PfAggComputed *computed;
} PfAggProgram;

/* Per group and aggregate state. */
typedef struct PfAggState
{
	int128_t	isum;			/* integer/decimal sum, min or max */
	int64		count;			/* non-null inputs */
	double		fsum;			/* float sum, min or max; avg Sx */
	double		sxx;			/* avg of floats: float8_accum's Sxx */
	Datum		spill;			/* decimal sum beyond int128, numeric */
	bool		has_spill;
	struct varlena *text;		/* min/max of text: the value (group_cxt) */
} PfAggState;


/* fdw_private of the plan node */
enum PfAggPrivateIndex
{
	PfAggPrivateMarker,			/* String PF_AGG_MARKER */
	PfAggPrivateRelid,			/* Integer: foreign table OID */
	PfAggPrivateRti,			/* Integer: its range table index at plan time */
	PfAggPrivateFiles,			/* List of String */
	PfAggPrivateRowGroups,		/* List per file of List of Integer */
	PfAggPrivateTotalRowGroups, /* Integer */
	PfAggPrivateQuals,			/* List of Expr: the restrictions */
	PfAggPrivateGroupVars,		/* List of Var */
	PfAggPrivateTotalRows,		/* String: rows of the planned row groups */
	PfAggPrivateSourceKind,		/* Integer: PfScanKind of the table source */
	PfAggPrivateIdentities,		/* List of String: each file's identity
								 * when planned (pf_file_identity) */
	PfAggPrivateTopN,			/* List: the pushed top-N (agg_topn.c), or
								 * NIL */
	PfAggPrivatePartitions,		/* Integer: > 0 when each participant of a
								 * parallel plan aggregates the groups of
								 * the hash partitions it claims (all their
								 * rows), 0 otherwise */
	PfAggPrivateExchange		/* Integer: > 0 when the participants (at
								 * most this many) exchange the filtered rows
								 * by key hash (agg_exchange.c), 0 otherwise */
};


typedef struct PfAggScanState
{
	PfScanKind	kind;			/* PF_SCAN_AGGREGATE; first, see parquet_fdw.h */
	MemoryContext cxt;			/* the whole scan */
	MemoryContext file_cxt;		/* the open file; reset per file */
	MemoryContext rowgroup_cxt; /* reset per unit */
	MemoryContext batch_cxt;	/* convert()'s Datums; reset per batch */
	MemoryContext group_cxt;	/* group keys and states */
	MemoryContext tmp_cxt;		/* output values, slow batches */

	Relation	rel;
	bool		missing_columns_error;
	bool		verify_checksums;	/* table option: page CRCs checked */
	List	   *filenames;		/* char * */
	List	   *identities;		/* char *, parallel to filenames */
	List	   *rowgroups;		/* per file, List of Integer */
	int			total_rowgroups;
	double		total_rows;		/* rows of the planned row groups */
	PfAggProgram *prog;

	/* position, for the error context */
	int			file_index;
	const char *path;
	int			rowgroup;		/* the unit being read, -1: none */
	const char *err_column;

	/*
	 * The table source: the open file, its bound columns (one per program
	 * column) and their batches.  With raw, the format hands out its
	 * decoded values and metadata (raw_batch, raw_field) and the statistics
	 * shortcuts apply; else batches are built from convert()'s Datums.
	 */
	const PfSourceOps *ops;
	PfSourceScan sscan;			/* options, bytes read, decode time */
	PfSource   *src;
	PfSourceColumn *src_cols;
	bool		raw;
	const PqFileMeta *meta;		/* raw: the open file's metadata */
	int		   *col_leaf;		/* raw: per column, its leaf or -1 */
	bool	   *filled;			/* per column: its batch is filled */
	List	   *unit_quals;		/* not raw: PfQual of the filters, for
								 * unit_prune() and unit_open() */
	PqColumnBatch *batches;		/* per column, the current batch */
	Datum	   *conv_values;	/* not raw: convert()'s output */
	bool	  **conv_nulls;		/* per column */
	void	  **conv_buf;		/* per column, 16 bytes per row */

	/* batch buffers */
	uint64		batch_seq;		/* number of the current batch, from 1 */
	uint32		batch_rows;
	uint32	   *identity;		/* 0, 1, 2, ... */
	uint32	   *sel;
	uint32	   *sel2;
	uint32	   *gid;
	uint32	  **codes;			/* per key */
	uint32	   *group_rows;		/* rows of the batch per group */
	uint32		group_rows_cap;
	bool	   *all_null;		/* a missing column's batch */
	uint8	   *zeros;
	PqColumnBatch missing_batch;

	/* groups */
	PfKeyDict  *dicts;
	uint32		ngroups;
	uint32		cap_groups;
	uint32	   *group_codes;	/* ngroups * nkeys */
	uint32	   *gtable;			/* nkeys > 1: open addressing, gid + 1 */
	uint32		gmask;
	uint32	   *gid_of_code;	/* nkeys == 1: by code, UINT32_MAX = none */
	uint32		cap_code;
	uint32	   *gid_of_pair;	/* nkeys == 2, both codes < PF_AGG_PAIR_CODES:
								 * group by code pair, UINT32_MAX = not yet */
	PfAggState *states;			/* cap_groups * naggs */

	/* filters on parameters: their values, evaluated at each (re)scan */
	List	   *param_states;	/* ExprState per parameter filter */
	MemoryContext param_cxt;
	ExprContext *param_econtext;

	/*
	 * Groups beyond memory (agg_spill.c): once the groups outgrow
	 * group_limit, no new group is made (no_new_groups) and the rows of
	 * keys not yet grouped are written to spill partitions by their key
	 * hash; each partition is aggregated afterwards the same way,
	 * recursively, so every row is read from the source once.
	 */
	bool		no_new_groups;	/* keys not grouped yet go to spill_out */
	Size		group_limit;	/* bytes of group_cxt allowed */
	struct PfAggSpill *spill_out;	/* partitions this pass writes, or NULL */
	List	   *pair_pending;	/* PfAggSpillPart * of pairs still to count */
	int			ndistinct;		/* count(DISTINCT) aggregates */
	PfAggDistinct *distincts;
	MemoryContext distinct_cxt; /* their dictionaries and pairs */
	bool		no_new_pairs;	/* new pairs go to the distincts' spill_out */
	uint32	   *xcodes;			/* per batch: codes of a distinct's values */
	struct PfAggSpillPart *spill_in;	/* the partition this pass reads */
	int			spill_shift;	/* hash bits the levels above used */
	List	   *spill_pending;	/* PfAggSpillPart * still to aggregate */
	MemoryContext spill_cxt;	/* partitions, their buffers */
	int			nspill_cols;	/* the columns a spilled row keeps */
	int		   *spill_cols;
	uint32	   *spill_sel;		/* per batch: the rows to spill */
	uint32	   *row_hash;		/* per selected row */
	int64		pass_rows;		/* rows read by this pass so far */
	double		pass_rows_total;	/* rows this pass reads in all */
	int64		passes;			/* reads of the source, for EXPLAIN */
	int64		groups_total;
	int64		spilled_rows;	/* rows written to partitions, all levels */
	int64		spill_partitions;	/* partitions written */
	bool		spilled;		/* this computation spilled */

	/* output */
	bool		computed;
	uint32		next_out;
	struct PfAggTopN *topn;		/* ORDER BY ... LIMIT n pushed, or NULL */

	/* EXPLAIN ANALYZE */
	int64		rowgroups_read;
	int64		rowgroups_stats;
	int64		rowgroups_skipped;	/* by the filters' values and statistics */
	bool		time_decoding;	/* EXPLAIN ANALYZE with timing */
	Size		peak_memory;

	/* computed columns: their expression states (agg_pgexpr.c) */
	struct PfAggPgExprState *pgexpr;

	/*
	 * Partial aggregation in a parallel plan (agg_partial.c): the outputs
	 * are transition states, and the units are claimed from the counter
	 * all participants share (in the DSM) instead of read in plan order.
	 */
	bool		partial;		/* output transition states */
	struct PfAggParallel *shared;	/* parallel-aware plan, else NULL */
	int64		nwork;			/* entries of the flat unit list */
	int		   *work_file;		/* per entry: its file index */
	int		   *work_unit;		/* per entry: its unit in that file */

	/*
	 * Partitioned aggregation in a parallel plan: the group keys' hashes
	 * split the groups into nparts partitions; a participant reads every
	 * unit but keeps the rows of the partitions it claims, so its groups
	 * are whole and no Finalize Aggregate is needed.
	 */
	int			nparts;			/* 0: not partitioned */
	int			part;			/* the partition being read, or -1 */

	/*
	 * Exchange in a parallel plan (agg_exchange.c): the participants scan
	 * disjoint units once and write each filtered row to the shared file
	 * of its key hash's partition; after a barrier each aggregates the
	 * partitions it claims, reading every participant's file of them.
	 */
	int			xchg_participants;	/* > 0: an exchange plan, at most this
									 * many participants */
	struct PfAggXchgShared *xshared;	/* in the DSM, or NULL */
	struct PfAggSpill *xchg_out;	/* phase 1: this participant's files */
	bool		xchg_attached;	/* to the barrier */
	int64		xchg_rows;		/* EXPLAIN: rows exchanged, all participants */
	int64		xchg_bytes;
} PfAggScanState;


/* A program being compiled (planning and executor start). */
typedef struct PfCompile
{
	Relation	rel;
	Index		relid;			/* the base relation's range table index */
	PfAggProgram *prog;
	List	   *cols;			/* PfAggCol *, while compiling */
	List	   *exprs;			/* PfAggExpr *: each distinct one once */
	List	   *computed;		/* PfAggComputed *, while compiling */
	List	   *computed_cols;	/* PfAggCol *, parallel to computed */
} PfCompile;

/* Helpers shared by the agg_*.c files. */
/* The batch of column col (a missing column reads as all null). */
static inline const PqColumnBatch *
col_batch(PfAggScanState *st, const PfAggCol *col)
{
	return col->missing ? &st->missing_batch : &st->batches[col->slot];
}

static inline int128_t
flba_to_int128(const uint8 *p, int len)
{
	uint128_t	u = (p[0] & 0x80) ? ~(uint128_t) 0 : 0;

	for (int i = 0; i < len; i++)
		u = (u << 8) | p[i];
	return (int128_t) u;
}

/*
 * A float group key as the int64 its dictionary holds: the double's bits
 * with -0 made +0 and every NaN one NaN, so the values PostgreSQL's
 * float4eq/float8eq call equal are one group (float4 widens exactly).
 */
static inline int64
float_key_bits(double x)
{
	int64		bits;

	if (isnan(x))
		return INT64CONST(0x7FF8000000000000);
	if (x == 0.0)
		x = 0.0;
	memcpy(&bits, &x, sizeof(bits));
	return bits;
}

static inline double
float_key_value(int64 bits)
{
	double		x;

	memcpy(&x, &bits, sizeof(x));
	return x;
}

/* float8 comparison with NaN above everything, as float8_cmp_internal. */
static inline int
float_cmp(double a, double b)
{
	if (unlikely(isnan(a)))
		return isnan(b) ? 0 : 1;
	if (unlikely(isnan(b)))
		return -1;
	return (a > b) - (a < b);
}

/*
 * Hash of a text key's bytes (key dictionaries, spill partitions, the
 * expression memo): XXH3 reads 8 to 32 bytes a step where hash_bytes()
 * takes 12 bytes through a longer mix, and URLs are long keys.
 */
static inline uint32
pf_agg_hash_text(const uint8 *p, uint32 len)
{
	return (uint32) XXH3_64bits(p, len);
}

static inline uint32
hash_int64(int64 v)
{
	uint64		h = (uint64) v * UINT64CONST(0x9E3779B97F4A7C15);

	h ^= h >> 29;
	h *= UINT64CONST(0xBF58476D1CE4E5B9);
	return (uint32) (h ^ (h >> 32));
}

static inline int64
le_int64(const uint8 *p, uint32 len)
{
	if (len == 4)
	{
		int32		v;

		memcpy(&v, p, 4);
		return v;
	}
	else
	{
		int64		v;

		memcpy(&v, p, 8);
		return v;
	}
}

/* in agg_compile.c */
extern bool pf_agg_compile_filter(PfCompile *c, Expr *clause, PfAggFilter *f);
extern PfAggProgram *pf_agg_compile_program(Relation rel, Index relid, List *quals, List *group_vars,
				List *scan_tlist);
extern bool pf_agg_field_fits(const PqFileMeta *meta, const PqSchemaNode *field, PfAggCol *col);
extern bool pf_agg_filter_set_from_qual(PfAggFilter *f, const PfAggCol *col);
extern bool pf_agg_filter_set_in_from_qual(PfAggFilter *f, const PfAggCol *col);
extern int128_t pf_agg_pow10_128(int n);

/* in agg_eval.c */
extern void pf_agg_accumulate(PfAggScanState *st, int a, const uint32 *sel, uint32 n,
		   const uint32 *gid);
extern void pf_agg_error_callback(void *arg);
extern void pf_agg_count_group_rows(PfAggScanState *st, uint32 n);
extern void pf_agg_date_out_of_range(const char *attname, int64 days, bool from_statistics) pg_attribute_noreturn();
extern void pf_agg_init_expr(PfAggScanState *st, PfAggExpr *e);
extern Datum pf_agg_int128_to_numeric(int128_t v, int scale);
extern void *pf_agg_palloc16(MemoryContext cxt, Size size);
/* A numeric's value times 10^scale (it has at most scale digits after the point). */
extern int128_t pf_agg_numeric_unscaled(Datum num, int scale, const char *attname);

/* in agg_filter.c */
extern uint32 pf_agg_apply_filter(PfAggScanState *st, const PfAggFilter *f, const uint32 *in,
			 uint32 n, uint32 *out);

/* in agg_exec.c */
extern void pf_agg_generic_shape(PfAggCol *col);
extern uint32 pf_agg_next_group(PfAggScanState *st);
extern void pf_agg_group_row(PfAggScanState *st, uint32 g, TupleTableSlot *slot);
extern bool pf_agg_group_int(PfAggScanState *st, uint32 g, int o, int64 *v, bool *isnull);

/* in agg_group.c */
/* Key code / group id of a key not grouped while st->no_new_groups. */
#define PF_AGG_NO_CODE		PG_UINT32_MAX
#define PF_AGG_NO_GROUP		PG_UINT32_MAX
extern void pf_agg_assign_groups(PfAggScanState *st, uint32 n);
extern void pf_agg_dict_init(PfAggScanState *st, PfKeyDict *d, int col, MemoryContext cxt);
extern void pf_agg_key_codes(PfAggScanState *st, PfKeyDict *d, const uint32 *sel, uint32 n,
				 uint32 *codes);
extern void pf_agg_distinct_reset(PfAggScanState *st, PfAggDistinct *dd);
extern uint32 pf_agg_distinct_add(PfAggScanState *st, PfAggDistinct *dd, const uint32 *sel,
					uint32 n, const uint32 *gid, uint32 *spill);
extern uint32 pf_agg_new_group(PfAggScanState *st, const uint32 *keycodes);

/* in agg_spill.c */
/*
 * A spill partition: the rows (key and argument columns, in scan order)
 * of the groups that did not fit, whose key hash bits [shift, shift+bits)
 * of the level that wrote it select it.
 */
typedef struct PfAggSpillPart
{
	struct BufFile *file;
	int64		rows;			/* written */
	int64		rows_read;		/* read back so far */
	int			shift;			/* hash bits used by this and upper levels */
	int			distinct;		/* pairs of this distinct aggregate, or -1:
								 * rows of new groups */
	uint32		groups_hint;	/* groups of the partition before it on its
								 * level (if they fitted), or 0 */
} PfAggSpillPart;

extern struct PfAggSpill *pf_agg_spill_begin(PfAggScanState *st, int shift,
				   double rows_left, double fit, int distinct);
extern void pf_agg_spill_rows(PfAggScanState *st, struct PfAggSpill *sp,
				  const uint32 *sel, uint32 n, int extra_col);
extern List *pf_agg_spill_finish(PfAggScanState *st, struct PfAggSpill *sp, List *pending);
extern void pf_agg_spill_replay_shapes(PfAggScanState *st);
extern uint32 pf_agg_spill_read(PfAggScanState *st, PfAggSpillPart *part, uint32 max);
extern void pf_agg_spill_discard(PfAggScanState *st);
extern void pf_agg_spill_init(PfAggScanState *st);
extern void pf_agg_groups_reserve(PfAggScanState *st, uint32 n);
/*
 * Exchange files (agg_exchange.c): 2^bits partitions written to files of
 * fileset named prefix.<partition>; finish writes their last blocks,
 * closes them and stores each partition's rows in rows[] (zero for none)
 * and the bytes written in *bytes; a file so written is read back as a
 * partition of shift bits through open_shared.
 */
extern struct PfAggSpill *pf_agg_spill_begin_shared(PfAggScanState *st, int bits,
													struct FileSet *fileset,
													const char *prefix);
extern void pf_agg_spill_finish_shared(PfAggScanState *st, struct PfAggSpill *sp,
									   int64 *rows, int64 *bytes);
extern PfAggSpillPart *pf_agg_spill_open_shared(PfAggScanState *st,
												struct FileSet *fileset,
												const char *name, int64 rows,
												int shift);
/* in agg_refused.c: why pushdown was refused, for EXPLAIN (VERBOSE) */
extern char *pf_agg_deparse(Node *expr, Oid relid, Index rti);
extern char *pf_agg_refusal_of_program(Relation rel, Index rti, List *quals,
									   List *group_vars, List *scan_tlist);

/* in agg_topn.c: ORDER BY <aggregate or key> LIMIT n inside the scan */
struct PfAggTopN;
extern void pf_agg_topn_add_path(PlannerInfo *root, RelOptInfo *input_rel,
								 RelOptInfo *final_rel, FinalPathExtraData *extra);
extern struct PfAggTopN *pf_agg_topn_begin(List *spec);
extern TupleTableSlot *pf_agg_topn_next(struct PfAggTopN *t, PfAggScanState *st,
										TupleTableSlot *slot, PlanState *node);
extern void pf_agg_topn_reset(struct PfAggTopN *t);
extern void pf_agg_topn_explain(struct PfAggTopN *t, ExplainState *es);
/* agg_filter.c: LIKE / ILIKE / NOT LIKE filters over text columns */
extern Var *pf_agg_like_column(Expr *clause, Index relid);
extern bool pf_agg_filter_set_like(PfAggFilter *f, Expr *clause, const char *name);

/* ----------------------------------------------------------------
 * in agg_pgexpr.c: PostgreSQL's expression machinery over a batch's rows
 * ----------------------------------------------------------------
 */

/*
 * A computed column: an expression the vector code cannot evaluate (a
 * condition, a GROUP BY expression, an aggregate argument), evaluated by
 * ExecEvalExpr over a virtual tuple of its input columns, row by row for
 * the selected rows of a batch.  Its values fill the column's batch in the
 * shape of a stored column of its kind, so the key dictionaries, filters,
 * accumulators and spill files take it as they take a stored one.
 *	bool					PF_COL_BOOL (a condition: filtered "= true")
 *	int2, int4				PF_COL_INT, int32
 *	int8, timestamp(tz)		PF_COL_INT, int64
 *	numeric (group key)		PF_COL_INT, int64 unscaled at one scale for
 *							the whole scan (col->scale, from the first value)
 *	float4, float8			PF_COL_F4, PF_COL_F8 (aggregate arguments)
 *	date					PF_COL_DATE, Parquet days
 *	text					PF_COL_TEXT, bytes
 * During compilation a computed column's index is PF_AGG_COMPUTED_BASE + j;
 * pf_agg_compile_program renumbers them to ncols + j at its end.
 */
#define PF_AGG_COMPUTED_BASE	(1 << 24)

typedef struct PfAggComputed
{
	Expr	   *expr;
	Oid			type;			/* exprType(expr) */
	int			nargs;			/* its input columns (stored columns) */
	int		   *args;
	bool		scale_known;	/* numeric: col->scale set by a value */
	/* a vector kernel instead of ExecEvalExpr (agg_kernel.c) */
	int			kernel;			/* PF_KERNEL_* */
	int			kernel_col;		/* its input, a stored column */
	int			kernel_mode;	/* PF_KERNEL_LENGTH: a VtLengthKind */
	int32	   *memo;			/* per dictionary entry of the unit read */
	uint32		memo_cap;
	int64		memo_unit;		/* st->rowgroups_read of memo, -1: none */
	struct PfAggFilter *kernel_filter;	/* PF_KERNEL_CONDITION */
	struct PfAggRegex *regex;	/* PF_KERNEL_REGEX (agg_kernel.c) */
} PfAggComputed;

#define PF_KERNEL_NONE		0	/* ExecEvalExpr row by row */
#define PF_KERNEL_LENGTH	1	/* length(), char_length(), octet_length() of
								 * a text column (vec_text.c) */
#define PF_KERNEL_CONDITION	2	/* a condition a vector filter evaluates
								 * ("column op constant", LIKE): NULL where
								 * the column is (bool_and(x > 5)) */
#define PF_KERNEL_REGEX		3	/* regexp_replace(column, const, const) or
								 * column ~ const, !~ (vec_regex.c); rows
								 * it cannot answer by PostgreSQL's function */

/*
 * Can PostgreSQL evaluate expr row by row inside the scan of relation
 * relid (0: any)?  No volatile function, subquery, aggregate, window
 * function, set-returning function, placeholder or parameter of an outer
 * plan; every column a user column of the relation.  Else *why says what.
 */
extern bool pf_agg_pgexpr_evaluable(Node *expr, Index relid, const char **why);
/* The column kind of a computed result type; false when unsupported. */
extern bool pf_agg_pgexpr_kind(Oid type, PfAggCol *col);
extern void pf_agg_pgexpr_begin(PfAggScanState *st, PlanState *parent);
/* A new batch: the previous one's values and inputs are dropped. */
extern void pf_agg_pgexpr_batch_start(PfAggScanState *st);
/* Fill computed column c's batch for the n selected rows sel. */
extern void pf_agg_pgexpr_fill(PfAggScanState *st, int c, uint32 batch_n,
							   const uint32 *sel, uint32 n);
/*
 * Values computed so far and how many of them ExecEvalExpr computed (the
 * rest came from the memo of an expression of one column).
 */
extern void pf_agg_pgexpr_counts(PfAggScanState *st, uint64 *rows,
								 uint64 *evaluations);
/*
 * For parallel EXPLAIN ANALYZE: out, add this participant's counts to
 * *rows and *evaluations and zero its own; else move those into its own.
 */
extern void pf_agg_pgexpr_move_counts(PfAggScanState *st, uint64 *rows,
									  uint64 *evaluations, bool out);

/* in agg_kernel.c: computed columns by vector kernels (kernel != NONE) */
extern void pf_agg_kernel_fill(PfAggScanState *st, int c, uint32 batch_n,
							   const uint32 *sel, uint32 n);
/*
 * Set cm->regex for funcid (regexp_replace(text, text, text), textregexeq
 * or textregexne) under collation collid with these constant arguments
 * (replacement: regexp_replace only); false when the kernel cannot give
 * PostgreSQL's answer (the pattern outside vec_regex.c's subset, not
 * UTF-8, a nondeterministic collation).
 */
extern bool pf_agg_regex_prepare(PfAggComputed *cm, Oid funcid, Oid collid,
								 text *pattern, text *replacement);
/* Rows of computed column c the regex kernel gave to PostgreSQL. */
extern void pf_agg_kernel_counts(PfAggScanState *st, uint64 *rows,
								 uint64 *evaluations);
/* Zero those counts (a parallel worker's, added to the leader's). */
extern void pf_agg_kernel_counts_reset(PfAggScanState *st);
/* in agg_exec.c: fill stored column c's batch for the selected rows */
extern void pf_agg_fill_stored(PfAggScanState *st, int c, uint32 batch_n,
							   const uint32 *sel, uint32 n);

/* ----------------------------------------------------------------
 * in agg_partial.c: partial aggregates computed in parallel workers
 * ----------------------------------------------------------------
 */

/*
 * The scan target list with each partial Aggref (aggsplit
 * AGGSPLIT_INITIAL_SERIAL, aggtype its transition type) replaced by its
 * whole form, which pf_agg_compile_program compiles; *partial tells
 * whether there was one.  The other entries are shared with scan_tlist.
 */
extern List *pf_agg_partial_whole_tlist(List *scan_tlist, bool *partial);
/*
 * Can every aggregate of prog hand out its transition state as the
 * partial Aggref of scan_tlist expects it?  Else *why says which cannot.
 */
extern bool pf_agg_partial_supported(PfAggProgram *prog, List *scan_tlist,
									 const char **why);
/*
 * Aggregate a's transition state in group g into *v, *isnull when it
 * differs from the aggregate's final value (avg: the arrays of
 * int4_avg_accum and float8_accum); false when it is the final value.
 */
extern bool pf_agg_partial_state(PfAggScanState *st, uint32 g, int a,
								 Datum *v, bool *isnull);
/* The DSM callbacks of parallel-aware plans: parquet_fdw.h. */
/*
 * The next entry of the flat unit list this participant reads (each entry
 * goes to exactly one participant), or -1 when all are claimed.
 */
extern int64 pf_agg_partial_claim(PfAggScanState *st);
/*
 * Partitioned plans: the next partition this participant aggregates, or
 * -1 when all are claimed; and the selected rows of the partition being
 * read (their stored key columns filled) into out, returning their number.
 */
extern int	pf_agg_partial_claim_partition(PfAggScanState *st);
extern uint32 pf_agg_partial_keep_partition(PfAggScanState *st, const uint32 *sel,
											uint32 n, uint32 *out);
/*
 * in agg_plan.c: ORDER BY ... LIMIT over groups aggregated partition by
 * partition in parallel participants, each returning its own top rows
 * (topn: agg_topn.c's element for the serial path), merged above by a
 * Gather Merge and cut by a Limit.
 */
extern void pf_agg_add_partitioned_topn_path(PlannerInfo *root, RelOptInfo *final_rel,
											 ForeignPath *group_path, List *topn,
											 int64 count, int64 offset);

/* in agg_plan.c: the exchange's paths (agg_exchange.c) */
extern void pf_agg_add_exchange_path(PlannerInfo *root, RelOptInfo *out_rel,
									 ForeignPath *group_path, List *topn,
									 int64 count, int64 offset);

/* in agg_distinct.c: count(DISTINCT) of a fixed-width column */
extern bool pf_agg_distinct_fixed_kind(PfColKind kind);
extern void pf_agg_distinct_fixed_reset(PfAggScanState *st, PfAggDistinct *dd);
extern void pf_agg_distinct_fixed_add(PfAggScanState *st, PfAggDistinct *dd,
									  const uint32 *sel, uint32 n, const uint32 *gid);
extern void pf_agg_distinct_fixed_freeze(PfAggScanState *st, PfAggDistinct *dd);
extern void pf_agg_distinct_fixed_finish(PfAggScanState *st, PfAggDistinct *dd);
extern void pf_agg_distinct_fixed_discard(PfAggScanState *st, PfAggDistinct *dd);
extern void pf_agg_distinct_codes(PfAggScanState *st, PfAggDistinct *dd, const uint32 *sel,
								  uint32 n, uint32 *codes);
extern void pf_agg_distinct_codes_forget(PfAggDistinct *dd);

/* ----------------------------------------------------------------
 * in agg_exchange.c: parallel grouped aggregation with an exchange
 * ----------------------------------------------------------------
 */

/* Partitions of the exchange: 2^PF_XCHG_BITS, whatever the participants. */
#define PF_XCHG_BITS		5

/* parquet_fdw.exchange_aggregate: off, auto (by cost), force */
typedef enum PfXchgMode
{
	PF_XCHG_OFF,
	PF_XCHG_AUTO,
	PF_XCHG_FORCE
} PfXchgMode;
extern PGDLLIMPORT int pf_xchg_mode;

/* The DSM part after PfAggParallel: its size, set up, reset for a rescan. */
extern Size pf_agg_xchg_shared_size(int participants);
extern void pf_agg_xchg_init_shared(struct PfAggXchgShared *x, int participants,
									struct dsm_segment *seg);
extern void pf_agg_xchg_reinit_shared(struct PfAggXchgShared *x);
/*
 * Phase 1: true when this participant arrived before the barrier and is
 * to scan (st->xchg_out set: aggregate_rowgroup writes the rows there);
 * false for a latecomer, which goes straight to phase 2.
 */
extern bool pf_agg_xchg_scan_begin(PfAggScanState *st);
/* Phase 1 done here: the files closed, wait for every scanning participant. */
extern void pf_agg_xchg_scan_end(PfAggScanState *st);
/*
 * Phase 2: the files (PfAggSpillPart *) of the next partition this
 * participant claims, NIL when none has rows; *done when none is left.
 */
extern List *pf_agg_xchg_claim(PfAggScanState *st, bool *done);
/* Before the DSM goes away or is reset: the leader keeps the counters. */
extern void pf_agg_xchg_fold(PfAggScanState *st);
extern void pf_agg_xchg_explain(PfAggScanState *st, ExplainState *es);

#endif							/* PF_AGG_INT_H */
