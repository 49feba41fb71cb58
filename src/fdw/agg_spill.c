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
 * value, the others written as nulls), each a null byte and, when not
 * null, its value in
 * the shapes agg_exec.c gives a format without raw values
 * (pf_agg_generic_shape), so read-back batches look the same whatever
 * file or format the row came from:
 *	INT			int32, int64 for bigint
 *	DATE		int32 days from 1970-01-01
 *	DEC			int64 unscaled up to 18 digits, else 16 bytes big-endian
 *	F4, F8		float4, float8
 *	BOOL		one byte
 *	TEXT		uint32 length and the bytes
 * A row is a uint32 length followed by its fields.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_spill.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "storage/buffile.h"

#include "fdw/agg_int.h"

/* Fewest and most partitions one overflowing pass writes. */
#define PF_SPILL_MIN_BITS	2
#define PF_SPILL_MAX_BITS	8

/* The partitions a pass writes. */
typedef struct PfAggSpill
{
	int			shift;			/* first hash bit of this level */
	int			bits;			/* 2^bits partitions */
	int			distinct;		/* pairs of this distinct aggregate, or -1 */
	PfAggSpillPart **parts;
	StringInfoData row;			/* the row being written */
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
 * files' buffers.  Returns NULL when no hash bits are left (a partition of
 * equal hashes): the entries then simply grow.
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
	sp->parts = palloc0(sizeof(PfAggSpillPart *) << bits);
	initStringInfo(&sp->row);
	MemoryContextSwitchTo(old);
	st->spilled = true;
	return sp;
}

/* Append n bytes to the row. */
static inline void
put(StringInfo row, const void *p, int n)
{
	appendBinaryStringInfoNT(row, p, n);
}

/* Append column col's value of batch row r in its spill shape. */
static void
put_value(StringInfo row, const PfAggCol *col, const PqColumnBatch *b, uint32 r)
{
	switch (col->kind)
	{
		case PF_COL_INT:
		case PF_COL_DATE:
			{
				int64		v = col->phys == PQ_INT32 ? ((const int32 *) b->values)[r] :
					((const int64 *) b->values)[r];

				if (col->kind == PF_COL_INT && col->typid == INT8OID)
					put(row, &v, sizeof(int64));
				else
				{
					int32		v32 = (int32) v;

					put(row, &v32, sizeof(int32));
				}
				break;
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

					put(row, &v, sizeof(int64));
				}
				else
				{
					uint8		be[16];
					uint128_t	w = (uint128_t) u;

					for (int k = 15; k >= 0; k--, w >>= 8)
						be[k] = (uint8) (w & 0xff);
					put(row, be, 16);
				}
				break;
			}
		case PF_COL_F4:
			put(row, &((const float4 *) b->values)[r], sizeof(float4));
			break;
		case PF_COL_F8:
			put(row, &((const float8 *) b->values)[r], sizeof(float8));
			break;
		case PF_COL_BOOL:
			{
				uint8		v = ((const uint8 *) b->values)[r] ? 1 : 0;

				put(row, &v, 1);
				break;
			}
		case PF_COL_TEXT:
			{
				const CdcByteView *v = &((const CdcByteView *) b->values)[r];
				uint32		len = v->len;

				put(row, &len, sizeof(uint32));
				if (len > 0)
					put(row, v->ptr, (int) len);
				break;
			}
	}
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
	StringInfo	row = &sp->row;
	int			nkeep = st->nspill_cols;
	bool		keep_buf[64];
	bool	   *keep;

	if (n == 0)
		return;
	/* a pair's row needs only the keys and the value: the rest as nulls */
	keep = nkeep <= lengthof(keep_buf) ? keep_buf : palloc(sizeof(bool) * nkeep);
	for (int j = 0; j < nkeep; j++)
	{
		keep[j] = extra_col < 0 || st->spill_cols[j] == extra_col;
		for (int k = 0; k < prog->nkeys && !keep[j]; k++)
			keep[j] = st->spill_cols[j] == prog->key_cols[k];
	}
	key_hashes(st, sel, n, extra_col);
	for (uint32 i = 0; i < n; i++)
	{
		uint32		r = sel[i];
		uint32		p = (uint32) (((uint64) st->row_hash[i] >> sp->shift) & mask);
		PfAggSpillPart *part = sp->parts[p];
		uint32		len;

		if (part == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(st->spill_cxt);

			part = palloc0(sizeof(PfAggSpillPart));
			part->file = BufFileCreateTemp(false);
			part->shift = sp->shift + sp->bits;
			part->distinct = sp->distinct;
			sp->parts[p] = part;
			st->spill_partitions++;
			MemoryContextSwitchTo(old);
		}
		resetStringInfo(row);
		for (int j = 0; j < st->nspill_cols; j++)
		{
			const PfAggCol *col = &prog->cols[st->spill_cols[j]];
			const PqColumnBatch *b = col_batch(st, col);
			uint8		isnull = !keep[j] || col->missing || (b->is_null && b->is_null[r]);

			put(row, &isnull, 1);
			if (!isnull)
				put_value(row, col, b, r);
		}
		len = (uint32) row->len;
		BufFileWrite(part->file, (void *) &len, sizeof(uint32));
		BufFileWrite(part->file, (void *) row->data, len);
		part->rows++;
	}
	st->spilled_rows += n;
	if (keep != keep_buf)
		pfree(keep);
}

/*
 * The rows are all written: sp's partitions, rewound, go first on the
 * pending list (depth first: fewer files open at once), returned; sp is
 * freed.
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
		PfAggSpillPart *part = sp->parts[p];

		if (part == NULL)
			continue;
		if (BufFileSeek(part->file, 0, 0, SEEK_SET) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not rewind aggregate spill file: %m")));
		pending = lcons(part, pending);
	}
	MemoryContextSwitchTo(old);
	pfree(sp->parts);
	pfree(sp->row.data);
	pfree(sp);
	return pending;
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
				 errmsg("could not read aggregate spill file: read only part of a row")));
}

/* Take n bytes of the row at *pos. */
static inline const char *
take(const char *data, uint32 len, uint32 *pos, uint32 n)
{
	const char *p = data + *pos;

	if (*pos + n > len)
		elog(ERROR, "parquet_fdw: aggregate spill row is shorter than its columns");
	*pos += n;
	return p;
}

/* A fixed-width value into dst: zeros when null. */
static inline void
get_fixed(void *dst, const char *data, uint32 len, uint32 *pos, uint32 n, bool isnull)
{
	if (isnull)
		memset(dst, 0, n);
	else
		memcpy(dst, take(data, len, pos, n), n);
}

/*
 * Read up to max rows of a partition into the batches of the kept columns
 * (values in the batch context); returns the number of rows, 0 at its end.
 */
uint32
pf_agg_spill_read(PfAggScanState *st, PfAggSpillPart *part, uint32 max)
{
	PfAggProgram *prog = st->prog;
	uint32		n = 0;
	bool		any_null[INDEX_MAX_KEYS * 4];
	int			ncols = st->nspill_cols;
	bool	   *col_any_null = ncols <= lengthof(any_null) ? any_null :
		MemoryContextAllocZero(st->batch_cxt, sizeof(bool) * ncols);

	memset(col_any_null, 0, sizeof(bool) * ncols);
	while (n < max && part->rows_read < part->rows)
	{
		uint32		len;
		uint32		pos = 0;
		char	   *data;

		read_exact(part->file, &len, sizeof(uint32));
		data = MemoryContextAlloc(st->batch_cxt, Max(len, 1));
		read_exact(part->file, data, len);
		for (int j = 0; j < ncols; j++)
		{
			int			c = st->spill_cols[j];
			const PfAggCol *col = &prog->cols[c];
			void	   *buf = st->conv_buf[c];
			bool		isnull = *take(data, len, &pos, 1) != 0;

			st->conv_nulls[c][n] = isnull;
			col_any_null[j] |= isnull;
			switch (col->kind)
			{
				case PF_COL_INT:
				case PF_COL_DATE:
				case PF_COL_DEC:
					if (col->phys == PQ_INT64)
						get_fixed((char *) buf + (size_t) n * 8, data, len, &pos, 8, isnull);
					else if (col->phys == PQ_INT32)
						get_fixed((char *) buf + (size_t) n * 4, data, len, &pos, 4, isnull);
					else
						get_fixed((char *) buf + (size_t) n * 16, data, len, &pos, 16, isnull);
					break;
				case PF_COL_F4:
					get_fixed((char *) buf + (size_t) n * 4, data, len, &pos, 4, isnull);
					break;
				case PF_COL_F8:
					get_fixed((char *) buf + (size_t) n * 8, data, len, &pos, 8, isnull);
					break;
				case PF_COL_BOOL:
					((uint8 *) buf)[n] = isnull ? 0 : *(const uint8 *) take(data, len, &pos, 1);
					break;
				case PF_COL_TEXT:
					{
						CdcByteView *v = &((CdcByteView *) buf)[n];

						v->ptr = NULL;
						v->len = 0;
						if (!isnull)
						{
							memcpy(&v->len, take(data, len, &pos, 4), 4);
							v->ptr = (const uint8 *) take(data, len, &pos, v->len);
						}
						break;
					}
			}
		}
		part->rows_read++;
		n++;
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
			BufFileClose(sp->parts[p]->file);
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
