/*-------------------------------------------------------------------------
 *
 * agg_spill.c
 *	  Aggregate pushdown: groups beyond memory, spilled to temporary files.
 *
 * When the groups outgrow hash_mem, agg_exec.c stops making groups: a row
 * whose key already has a group is aggregated as before, any other row is
 * written here to one of 2^bits temporary files (BufFile) chosen by bits
 * of its key's hash.  Every group is then either wholly in memory or has
 * all its rows, in scan order, in one partition, so float sums still add
 * in scan order.  After the in-memory groups are returned, each partition
 * is read back as batches and aggregated the same way; one that overflows
 * again spills into partitions of the next hash bits (as PostgreSQL's
 * nodeAgg.c does).  Each row is so read from the source once and written
 * O(log(groups / memory)) times.
 *
 * A spilled row keeps only the key and aggregate argument columns (the
 * filters are done; a count(DISTINCT) pair's row only the keys and its
 * value, the others written as nulls): a null bitmap, then each value in
 * the shapes agg_exec.c gives a format without raw values
 * (pf_agg_generic_shape), so read-back batches look the same whatever
 * file or format the row came from:
 *	INT			int32, int64 for bigint
 *	DATE		int32 days from 1970-01-01
 *	DEC			int64 unscaled up to 18 digits, else 16 bytes big-endian
 *	F4, F8		float4, float8
 *	BOOL		one byte
 *	TEXT		uint32 length and the bytes, nothing when null
 * A null fixed-width value is written as zeros, so a row without text
 * columns has one size and needs no header.  Rows are packed into blocks
 * of a partition's own buffer and each block is written with one
 * BufFileWrite and read back whole; fixed-size rows are read back column
 * by column.  Per row, so, no call into BufFile at all.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_spill.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "storage/buffile.h"
#include "storage/fileset.h"

#include "fdw/agg_int.h"

/* Fewest and most partitions one overflowing pass writes. */
#define PF_SPILL_MIN_BITS	2
#define PF_SPILL_MAX_BITS	8

/*
 * A partition's rows are packed into a block buffer of this size, written
 * with one BufFileWrite when full: with BufFile's own buffer, two blocks
 * of memory per partition being written (pf_agg_spill_begin counts them).
 */
#define PF_SPILL_BLOCK		BLCKSZ

/* A block starts with two uint32: its bytes after them, its rows. */
#define PF_SPILL_BLOCK_HEADER	(2 * sizeof(uint32))

/*
 * A partition with its block being written and, when read back, the rows
 * of its current block that did not fit the last batch.  The public part
 * comes first: agg_exec.c holds and frees it as a PfAggSpillPart.
 */
typedef struct SpillPart
{
	PfAggSpillPart pub;
	char	   *block;			/* block being filled; NULL once finished */
	uint32		block_cap;		/* its size: PF_SPILL_BLOCK unless one row is larger */
	uint32		block_used;		/* bytes, header included */
	uint32		block_rows;
	char	   *carry;			/* read back: unread rows of a block */
	uint32		carry_cap;
	uint32		carry_len;
	uint32		carry_rows;
} SpillPart;

/* The partitions a pass writes. */
typedef struct PfAggSpill
{
	int			shift;			/* first hash bit of this level */
	int			bits;			/* 2^bits partitions */
	int			distinct;		/* pairs of this distinct aggregate, or -1 */
	SpillPart **parts;
	FileSet    *fileset;		/* exchange: the shared files', else NULL */
	char	   *prefix;			/* exchange: their names' prefix */
} PfAggSpill;

/* The columns a spilled row keeps: group keys and aggregate arguments. */
static void
mark_expr_cols(const PfAggExpr *e, bool *keep)
{
	if (e == NULL)
		return;
	if (e->op == PF_EXPR_COL)
		keep[e->col] = true;
	mark_expr_cols(e->left, keep);
	mark_expr_cols(e->right, keep);
}

void
pf_agg_spill_init(PfAggScanState *st)
{
	PfAggProgram *prog = st->prog;
	int			ncols = prog->ncols + prog->ncomputed;
	bool	   *keep = palloc0(sizeof(bool) * Max(1, ncols));

	for (int k = 0; k < prog->nkeys; k++)
		keep[prog->key_cols[k]] = true;
	for (int a = 0; a < prog->naggs; a++)
		mark_expr_cols(prog->aggs[a].arg, keep);
	st->spill_cols = palloc(sizeof(int) * Max(1, ncols));
	st->nspill_cols = 0;
	for (int c = 0; c < ncols; c++)
		if (keep[c])
			st->spill_cols[st->nspill_cols++] = c;
	pfree(keep);
	st->spill_sel = palloc(sizeof(uint32) * st->batch_rows);
	st->spill_cxt = AllocSetContextCreate(st->cxt, "parquet_fdw aggregate spill",
										  ALLOCSET_DEFAULT_SIZES);
}

/*
 * Hashes of the key values (not their codes, which differ between passes),
 * and of column extra_col's when not -1, of the n selected rows into
 * st->row_hash: the same for a value whatever
 * its stored width, so a row read back hashes as it did when written.
 */
static void
key_hashes(PfAggScanState *st, const uint32 *sel, uint32 n, int extra_col)
{
	PfAggProgram *prog = st->prog;
	uint32	   *h = st->row_hash;

	memset(h, 0, sizeof(uint32) * n);
	for (int k = 0; k < prog->nkeys + (extra_col >= 0); k++)
	{
		const PfAggCol *col = &prog->cols[k < prog->nkeys ? prog->key_cols[k] : extra_col];
		const PqColumnBatch *b = col_batch(st, col);
		const bool *isnull = b->is_null;

		for (uint32 i = 0; i < n; i++)
		{
			uint32		r = sel[i];
			uint32		hk;

			if (isnull && isnull[r])
				hk = 0x5bd1e995;
			else if (col->kind == PF_COL_TEXT)
			{
				const CdcByteView *v = &((const CdcByteView *) b->values)[r];

				hk = pf_agg_hash_text(v->ptr, v->len);
			}
			else if (col->kind == PF_COL_BOOL)
				hk = hash_int64(((const uint8 *) b->values)[r] ? 1 : 0);
			else if (col->kind == PF_COL_F4)
				hk = hash_int64(float_key_bits(((const float4 *) b->values)[r]));
			else if (col->kind == PF_COL_F8)
				hk = hash_int64(float_key_bits(((const float8 *) b->values)[r]));
			else if (col->phys == PQ_INT32)
				hk = hash_int64(((const int32 *) b->values)[r]);
			else
				hk = hash_int64(((const int64 *) b->values)[r]);
			h[i] = hash_combine(h[i], hk);
		}
	}
	for (uint32 i = 0; i < n; i++)
		h[i] = murmurhash32(h[i]);
}

/*
 * Start spilling (the pairs of distinct aggregate distinct, or groups when
 * -1), rows_left rows still to come of which fit made entries
 * (groups or pairs) in memory: enough partitions that each would fit if
 * every row made a new entry, within the hash bits left after the shift
 * bits the levels above used, and a quarter of the memory limit for the
 * files' buffers (BufFile's and the block being packed: two blocks
 * each).  Returns NULL when no hash bits are left (a partition of equal
 * hashes): the entries then simply grow.
 */
PfAggSpill *
pf_agg_spill_begin(PfAggScanState *st, int shift, double rows_left, double fit,
				   int distinct)
{
	double		need = rows_left / Max(fit, 1.0);
	int			max_bits = PF_SPILL_MIN_BITS;
	int			bits = PF_SPILL_MIN_BITS;
	PfAggSpill *sp;
	MemoryContext old;

	while (max_bits < PF_SPILL_MAX_BITS &&
		   ((Size) BLCKSZ << (max_bits + 1)) * 4 <= st->group_limit)
		max_bits++;
	while (bits < max_bits && (double) ((uint32) 1 << bits) < need)
		bits++;
	if (shift + bits > 32)
		return NULL;

	old = MemoryContextSwitchTo(st->spill_cxt);
	sp = palloc0(sizeof(PfAggSpill));
	sp->shift = shift;
	sp->bits = bits;
	sp->distinct = distinct;
	sp->parts = palloc0(sizeof(SpillPart *) << bits);
	MemoryContextSwitchTo(old);
	st->spilled = true;
	return sp;
}

/*
 * Bytes of column col's value in a spilled row, 0 for text (its uint32
 * length and bytes, nothing when null).  The width is the spill shape's,
 * so it is the same before and after pf_agg_spill_replay_shapes.
 */
static inline uint32
spill_width(const PfAggCol *col)
{
	switch (col->kind)
	{
		case PF_COL_INT:
			return col->typid == INT8OID ? 8 : 4;
		case PF_COL_DATE:
		case PF_COL_F4:
			return 4;
		case PF_COL_DEC:
			return col->precision <= 18 ? 8 : 16;
		case PF_COL_F8:
			return 8;
		case PF_COL_BOOL:
			return 1;
		case PF_COL_TEXT:
			return 0;
	}
	return 0;
}

/*
 * The layout of a spilled row: a null bitmap (bit j for kept column j),
 * then every fixed-width value in column order, zeros when null, with a
 * text value (uint32 length and bytes) in its place when not null.  Rows
 * without text columns are so all fixed_size bytes, without a header.
 */
typedef struct SpillLayout
{
	uint32		null_bytes;
	uint32		fixed_size;		/* null bitmap and the fixed-width values */
	bool		fixed;			/* no text column: every row is fixed_size */
} SpillLayout;

static void
spill_layout(const PfAggScanState *st, SpillLayout *lay)
{
	lay->null_bytes = (uint32) (st->nspill_cols + 7) / 8;
	lay->fixed_size = lay->null_bytes;
	lay->fixed = true;
	for (int j = 0; j < st->nspill_cols; j++)
	{
		uint32		w = spill_width(&st->prog->cols[st->spill_cols[j]]);

		lay->fixed_size += w;
		if (w == 0)
			lay->fixed = false;
	}
}

/* Write column col's value of batch row r at d in its spill shape; returns the end. */
static inline char *
put_value(char *d, const PfAggCol *col, const PqColumnBatch *b, uint32 r)
{
	switch (col->kind)
	{
		case PF_COL_INT:
		case PF_COL_DATE:
			{
				int64		v = col->phys == PQ_INT32 ? ((const int32 *) b->values)[r] :
					((const int64 *) b->values)[r];

				if (col->kind == PF_COL_INT && col->typid == INT8OID)
				{
					memcpy(d, &v, sizeof(int64));
					return d + sizeof(int64);
				}
				else
				{
					int32		v32 = (int32) v;

					memcpy(d, &v32, sizeof(int32));
					return d + sizeof(int32);
				}
			}
		case PF_COL_DEC:
			{
				int128_t	u;

				if (col->phys == PQ_INT32)
					u = ((const int32 *) b->values)[r];
				else if (col->phys == PQ_INT64)
					u = ((const int64 *) b->values)[r];
				else
					u = flba_to_int128((const uint8 *) b->values + (size_t) r * col->flba_len,
									   col->flba_len);
				if (col->precision <= 18)
				{
					int64		v = (int64) u;

					memcpy(d, &v, sizeof(int64));
					return d + sizeof(int64);
				}
				else
				{
					uint128_t	w = (uint128_t) u;

					for (int k = 15; k >= 0; k--, w >>= 8)
						((uint8 *) d)[k] = (uint8) (w & 0xff);
					return d + 16;
				}
			}
		case PF_COL_F4:
			memcpy(d, &((const float4 *) b->values)[r], sizeof(float4));
			return d + sizeof(float4);
		case PF_COL_F8:
			memcpy(d, &((const float8 *) b->values)[r], sizeof(float8));
			return d + sizeof(float8);
		case PF_COL_BOOL:
			*(uint8 *) d = ((const uint8 *) b->values)[r] ? 1 : 0;
			return d + 1;
		case PF_COL_TEXT:
			{
				const CdcByteView *v = &((const CdcByteView *) b->values)[r];
				uint32		len = v->len;

				memcpy(d, &len, sizeof(uint32));
				if (len > 0)
					memcpy(d + sizeof(uint32), v->ptr, len);
				return d + sizeof(uint32) + len;
			}
	}
	return d;
}

/* Write the partition's filled block (one BufFileWrite) and start an empty one. */
static void
flush_block(SpillPart *part)
{
	uint32		head[2];

	if (part->block_rows == 0)
		return;
	head[0] = part->block_used - (uint32) PF_SPILL_BLOCK_HEADER;
	head[1] = part->block_rows;
	memcpy(part->block, head, sizeof(head));
	BufFileWrite(part->pub.file, part->block, part->block_used);
	part->block_used = PF_SPILL_BLOCK_HEADER;
	part->block_rows = 0;
	if (part->block_cap > PF_SPILL_BLOCK)
	{
		/* a row larger than a block had its own: back to the usual size */
		pfree(part->block);
		part->block = MemoryContextAlloc(GetMemoryChunkContext(part), PF_SPILL_BLOCK);
		part->block_cap = PF_SPILL_BLOCK;
	}
}

static SpillPart *
new_part(PfAggScanState *st, PfAggSpill *sp, uint32 p)
{
	MemoryContext old = MemoryContextSwitchTo(st->spill_cxt);
	SpillPart  *part = palloc0(sizeof(SpillPart));

	if (sp->fileset != NULL)
	{
		char		name[MAXPGPATH];

		snprintf(name, sizeof(name), "%s.%u", sp->prefix, p);
		part->pub.file = BufFileCreateFileSet(sp->fileset, name);
	}
	else
		part->pub.file = BufFileCreateTemp(false);
	part->pub.shift = sp->shift + sp->bits;
	part->pub.distinct = sp->distinct;
	part->block = palloc(PF_SPILL_BLOCK);
	part->block_cap = PF_SPILL_BLOCK;
	part->block_used = PF_SPILL_BLOCK_HEADER;
	if (sp->fileset == NULL)
		st->spill_partitions++;
	MemoryContextSwitchTo(old);
	return part;
}

/*
 * Write the n selected rows of the current batch to the partitions of sp
 * by the hash of their keys (and of column extra_col when not -1).
 */
void
pf_agg_spill_rows(PfAggScanState *st, PfAggSpill *sp, const uint32 *sel, uint32 n,
				  int extra_col)
{
	PfAggProgram *prog = st->prog;
	uint32		mask = ((uint32) 1 << sp->bits) - 1;
	int			nkeep = st->nspill_cols;
	SpillLayout lay;
	bool		keep_buf[64];
	const PfAggCol *col_buf[64];
	const PqColumnBatch *batch_buf[64];
	bool	   *keep;
	const PfAggCol **cols;
	const PqColumnBatch **batches;

	if (n == 0)
		return;
	spill_layout(st, &lay);
	if (nkeep <= lengthof(keep_buf))
	{
		keep = keep_buf;
		cols = col_buf;
		batches = batch_buf;
	}
	else
	{
		keep = palloc(sizeof(bool) * nkeep);
		cols = palloc(sizeof(PfAggCol *) * nkeep);
		batches = palloc(sizeof(PqColumnBatch *) * nkeep);
	}
	/* a pair's row needs only the keys and the value: the rest as nulls */
	for (int j = 0; j < nkeep; j++)
	{
		cols[j] = &prog->cols[st->spill_cols[j]];
		batches[j] = cols[j]->missing ? NULL : col_batch(st, cols[j]);
		keep[j] = extra_col < 0 || st->spill_cols[j] == extra_col;
		for (int k = 0; k < prog->nkeys && !keep[j]; k++)
			keep[j] = st->spill_cols[j] == prog->key_cols[k];
		if (!keep[j])
			batches[j] = NULL;
	}
	key_hashes(st, sel, n, extra_col);
	for (uint32 i = 0; i < n; i++)
	{
		uint32		r = sel[i];
		uint32		p = (uint32) (((uint64) st->row_hash[i] >> sp->shift) & mask);
		SpillPart  *part = sp->parts[p];
		uint32		size = lay.fixed_size;
		char	   *d;
		uint8	   *nulls;

		if (part == NULL)
			part = sp->parts[p] = new_part(st, sp, p);
		if (!lay.fixed)
			for (int j = 0; j < nkeep; j++)
			{
				const PqColumnBatch *b = batches[j];

				if (cols[j]->kind == PF_COL_TEXT && b != NULL &&
					!(b->is_null && b->is_null[r]))
					size += sizeof(uint32) + ((const CdcByteView *) b->values)[r].len;
			}
		if (part->block_used + size > part->block_cap)
		{
			flush_block(part);
			if (PF_SPILL_BLOCK_HEADER + size > part->block_cap)
			{
				pfree(part->block);
				part->block_cap = (uint32) PF_SPILL_BLOCK_HEADER + size;
				part->block = MemoryContextAlloc(st->spill_cxt, part->block_cap);
			}
		}
		d = part->block + part->block_used;
		nulls = (uint8 *) d;
		memset(nulls, 0, lay.null_bytes);
		d += lay.null_bytes;
		for (int j = 0; j < nkeep; j++)
		{
			const PqColumnBatch *b = batches[j];

			if (b == NULL || (b->is_null && b->is_null[r]))
			{
				uint32		w = spill_width(cols[j]);

				nulls[j >> 3] |= (uint8) (1 << (j & 7));
				memset(d, 0, w);
				d += w;
			}
			else
				d = put_value(d, cols[j], b, r);
		}
		Assert(d == part->block + part->block_used + size);
		part->block_used += size;
		part->block_rows++;
		part->pub.rows++;
	}
	if (sp->fileset == NULL)
		st->spilled_rows += n;
	if (keep != keep_buf)
	{
		pfree(keep);
		pfree(cols);
		pfree(batches);
	}
}

/*
 * The rows are all written: sp's partitions, their last blocks written
 * and rewound, go first on the pending list (depth first: fewer files
 * open at once), returned; sp is freed.
 */
List *
pf_agg_spill_finish(PfAggScanState *st, PfAggSpill *sp, List *pending)
{
	MemoryContext old;

	if (sp == NULL)
		return pending;
	old = MemoryContextSwitchTo(st->spill_cxt);
	for (int p = (1 << sp->bits) - 1; p >= 0; p--)
	{
		SpillPart  *part = sp->parts[p];

		if (part == NULL)
			continue;
		flush_block(part);
		pfree(part->block);
		part->block = NULL;
		if (BufFileSeek(part->pub.file, 0, 0, SEEK_SET) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not rewind aggregate spill file: %m")));
		pending = lcons(part, pending);
	}
	MemoryContextSwitchTo(old);
	pfree(sp->parts);
	pfree(sp);
	return pending;
}

PfAggSpill *
pf_agg_spill_begin_shared(PfAggScanState *st, int bits, FileSet *fileset,
						  const char *prefix)
{
	MemoryContext old = MemoryContextSwitchTo(st->spill_cxt);
	PfAggSpill *sp = palloc0(sizeof(PfAggSpill));

	sp->shift = 0;
	sp->bits = bits;
	sp->distinct = -1;
	sp->parts = palloc0(sizeof(SpillPart *) << bits);
	sp->fileset = fileset;
	sp->prefix = pstrdup(prefix);
	MemoryContextSwitchTo(old);
	return sp;
}

void
pf_agg_spill_finish_shared(PfAggScanState *st, PfAggSpill *sp, int64 *rows,
						   int64 *bytes)
{
	*bytes = 0;
	for (int p = 0; p < (1 << sp->bits); p++)
	{
		SpillPart  *part = sp->parts[p];

		rows[p] = 0;
		if (part == NULL)
			continue;
		flush_block(part);
		/* BufFileClose writes BufFile's buffer: the size after it */
		BufFileExportFileSet(part->pub.file);
		*bytes += BufFileSize(part->pub.file);
		BufFileClose(part->pub.file);
		rows[p] = part->pub.rows;
		pfree(part->block);
		pfree(part);
	}
	pfree(sp->parts);
	pfree(sp->prefix);
	pfree(sp);
}

PfAggSpillPart *
pf_agg_spill_open_shared(PfAggScanState *st, FileSet *fileset, const char *name,
						 int64 rows, int shift)
{
	SpillPart  *part = MemoryContextAllocZero(st->spill_cxt, sizeof(SpillPart));

	part->pub.file = BufFileOpenFileSet(fileset, name, O_RDONLY, false);
	part->pub.rows = rows;
	part->pub.shift = shift;
	part->pub.distinct = -1;
	return &part->pub;
}

/* Read back: every kept column in its spill shape (pf_agg_generic_shape). */
void
pf_agg_spill_replay_shapes(PfAggScanState *st)
{
	PfAggProgram *prog = st->prog;

	for (int j = 0; j < st->nspill_cols; j++)
	{
		int			c = st->spill_cols[j];
		PfAggCol   *col = &prog->cols[c];

		pf_agg_generic_shape(col);
		col->missing = false;
		col->slot = c;
	}
}

static void
read_exact(BufFile *file, void *p, size_t n)
{
	if (BufFileRead(file, p, n) != n)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read aggregate spill file: read only part of a block")));
}

static void
short_block(void)
{
	elog(ERROR, "parquet_fdw: aggregate spill block is shorter than its rows");
}

/* Copy a w-byte value (w a constant after inlining) k times from a stride into dst. */
static inline void
gather_fixed(char *dst, const char *src, uint32 stride, uint32 k, uint32 w)
{
	for (uint32 i = 0; i < k; i++)
		memcpy(dst + (size_t) i * w, src + (size_t) i * stride, w);
}

/*
 * k fixed-size rows at src into the batches' rows n.. : column by column,
 * each value copied from its place in every row.
 */
static void
read_fixed_rows(PfAggScanState *st, const SpillLayout *lay, const char *src,
				uint32 k, uint32 n, bool *col_any_null)
{
	uint32		off = lay->null_bytes;
	uint32		stride = lay->fixed_size;

	for (int j = 0; j < st->nspill_cols; j++)
	{
		int			c = st->spill_cols[j];
		uint32		w = spill_width(&st->prog->cols[c]);
		char	   *dst = (char *) st->conv_buf[c] + (size_t) n * w;
		bool	   *nulls = st->conv_nulls[c] + n;
		uint8		bit = (uint8) (1 << (j & 7));
		bool		any = false;

		for (uint32 i = 0; i < k; i++)
		{
			nulls[i] = (((const uint8 *) src)[(size_t) i * stride + (j >> 3)] & bit) != 0;
			any |= nulls[i];
		}
		col_any_null[j] |= any;
		switch (w)
		{
			case 1:
				gather_fixed(dst, src + off, stride, k, 1);
				break;
			case 4:
				gather_fixed(dst, src + off, stride, k, 4);
				break;
			case 8:
				gather_fixed(dst, src + off, stride, k, 8);
				break;
			default:
				gather_fixed(dst, src + off, stride, k, 16);
				break;
		}
		off += w;
	}
}

/* One row with text at src + *pos (block end end) into the batches' row n. */
static void
read_row(PfAggScanState *st, const SpillLayout *lay, const char *src, uint32 *pos,
		 uint32 end, uint32 n, bool *col_any_null)
{
	const uint8 *nulls = (const uint8 *) src + *pos;
	uint32		p = *pos + lay->null_bytes;

	if (p > end)
		short_block();
	for (int j = 0; j < st->nspill_cols; j++)
	{
		int			c = st->spill_cols[j];
		const PfAggCol *col = &st->prog->cols[c];
		uint32		w = spill_width(col);
		bool		isnull = (nulls[j >> 3] & (1 << (j & 7))) != 0;

		st->conv_nulls[c][n] = isnull;
		col_any_null[j] |= isnull;
		if (w > 0)
		{
			if (p + w > end)
				short_block();
			memcpy((char *) st->conv_buf[c] + (size_t) n * w, src + p, w);
			p += w;
		}
		else
		{
			CdcByteView *v = &((CdcByteView *) st->conv_buf[c])[n];

			v->ptr = NULL;
			v->len = 0;
			if (!isnull)
			{
				if (p + sizeof(uint32) > end)
					short_block();
				memcpy(&v->len, src + p, sizeof(uint32));
				p += sizeof(uint32);
				if (v->len > end - p)
					short_block();
				v->ptr = (const uint8 *) src + p;
				p += v->len;
			}
		}
	}
	*pos = p;
}

/*
 * Read up to max rows of a partition into the batches of the kept columns
 * (values in the batch context); returns the number of rows, 0 at its end.
 * Blocks are read whole; the rows of one beyond max wait in the carry.
 */
uint32
pf_agg_spill_read(PfAggScanState *st, PfAggSpillPart *pub, uint32 max)
{
	SpillPart  *part = (SpillPart *) pub;
	uint32		n = 0;
	bool		any_null[INDEX_MAX_KEYS * 4];
	int			ncols = st->nspill_cols;
	bool	   *col_any_null = ncols <= lengthof(any_null) ? any_null :
		MemoryContextAllocZero(st->batch_cxt, sizeof(bool) * ncols);
	SpillLayout lay;
	char	   *src = NULL;
	uint32		pos = 0;
	uint32		end = 0;
	uint32		left = 0;		/* rows of src not read yet */

	spill_layout(st, &lay);
	memset(col_any_null, 0, sizeof(bool) * ncols);
	if (part->carry_rows > 0)
	{
		/* the batch context is reset per batch: the rows move into it */
		src = MemoryContextAlloc(st->batch_cxt, part->carry_len);
		memcpy(src, part->carry, part->carry_len);
		end = part->carry_len;
		left = part->carry_rows;
		part->carry_rows = 0;
	}
	while (n < max)
	{
		uint32		k;

		if (left == 0)
		{
			uint32		head[2];

			if (pub->rows_read >= pub->rows)
				break;
			read_exact(pub->file, head, sizeof(head));
			src = MemoryContextAlloc(st->batch_cxt, Max(head[0], 1));
			read_exact(pub->file, src, head[0]);
			pos = 0;
			end = head[0];
			left = head[1];
			if (left == 0 || left > pub->rows - pub->rows_read)
				elog(ERROR, "parquet_fdw: aggregate spill block has %u rows of %lld left",
					 left, (long long) (pub->rows - pub->rows_read));
		}
		k = Min(left, max - n);
		if (lay.fixed)
		{
			if ((uint64) k * lay.fixed_size > end - pos)
				short_block();
			read_fixed_rows(st, &lay, src + pos, k, n, col_any_null);
			pos += k * lay.fixed_size;
		}
		else
			for (uint32 i = 0; i < k; i++)
				read_row(st, &lay, src, &pos, end, n + i, col_any_null);
		n += k;
		left -= k;
		pub->rows_read += k;
	}
	if (left > 0)
	{
		uint32		len = end - pos;

		if (part->carry_cap < len)
		{
			if (part->carry)
				pfree(part->carry);
			part->carry = MemoryContextAlloc(st->spill_cxt, Max(len, PF_SPILL_BLOCK));
			part->carry_cap = Max(len, PF_SPILL_BLOCK);
		}
		memcpy(part->carry, src + pos, len);
		part->carry_len = len;
		part->carry_rows = left;
	}
	else if (part->carry && pub->rows_read >= pub->rows)
	{
		pfree(part->carry);
		part->carry = NULL;
		part->carry_cap = 0;
	}
	for (int j = 0; j < ncols; j++)
	{
		int			c = st->spill_cols[j];
		PqColumnBatch *b = &st->batches[c];

		memset(b, 0, sizeof(PqColumnBatch));
		b->num_rows = b->num_levels = n;
		b->values = st->conv_buf[c];
		b->is_null = col_any_null[j] ? st->conv_nulls[c] : NULL;
	}
	return n;
}

static void
close_written(PfAggSpill *sp)
{
	if (sp == NULL)
		return;
	for (int p = 0; p < (1 << sp->bits); p++)
		if (sp->parts[p])
			BufFileClose(sp->parts[p]->pub.file);
}

/* Close every partition: pending ones, read and being written. */
void
pf_agg_spill_discard(PfAggScanState *st)
{
	ListCell   *lc;

	close_written(st->spill_out);
	st->spill_out = NULL;
	for (int j = 0; j < st->ndistinct; j++)
	{
		close_written(st->distincts[j].spill_out);
		st->distincts[j].spill_out = NULL;
		pf_agg_distinct_fixed_discard(st, &st->distincts[j]);
	}
	foreach(lc, st->spill_pending)
		BufFileClose(((PfAggSpillPart *) lfirst(lc))->file);
	st->spill_pending = NIL;
	foreach(lc, st->pair_pending)
		BufFileClose(((PfAggSpillPart *) lfirst(lc))->file);
	st->pair_pending = NIL;
	if (st->spill_in)
		BufFileClose(st->spill_in->file);
	st->spill_in = NULL;
	if (st->spill_cxt)
		MemoryContextReset(st->spill_cxt);
}
