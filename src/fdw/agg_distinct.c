/*-------------------------------------------------------------------------
 *
 * agg_distinct.c
 *	  Aggregate pushdown: count(DISTINCT x) of a fixed-width x (integers,
 *	  floats, booleans) as a set of raw (group, value) pairs.
 *
 * The general path (agg_group.c) codes x's values through a dictionary and
 * keeps (group, code) pairs: two random memory accesses per row and, past
 * memory, spilled rows that are grouped and coded again when read back.
 * A fixed-width value needs neither: the set here is one open-addressing
 * table of (value, group + 1) slots (of values only without group keys),
 * probed once per run of equal rows.  A new pair is
 * counted in its group's state when inserted.  Once the table may not grow
 * (its memory limit), a pair not in it is written as a raw 12-byte record
 * to one of PF_DISTINCT_FANOUT temporary files chosen by bits of its hash;
 * since the table no longer changes, a spilled pair is never in it, and
 * equal pairs land in the same file.  After the pass each file is counted
 * on its own with a fresh table (spilling again to the next hash bits when
 * it does not fit): every row is read from the source once, every record
 * written and read once per level.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_distinct.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/buffile.h"

#include "fdw/agg_int.h"

/* Partitions per spill level, and the hash bits that choose them. */
#define PF_DISTINCT_FANOUT_BITS	5
#define PF_DISTINCT_FANOUT		(1 << PF_DISTINCT_FANOUT_BITS)
/* Levels whose partition bits stay clear of the table's index bits. */
#define PF_DISTINCT_MAX_SHIFT	(PF_DISTINCT_FANOUT_BITS * 5)
/* Records staged per partition before a write. */
#define PF_DISTINCT_STAGE		256
/* Rows ahead whose slot is fetched while one is probed. */
#define PF_DISTINCT_PREFETCH	16
/* Records read back at a time. */
#define PF_DISTINCT_READ		1024

/* A pair as spilled: 12 bytes, no padding. */
typedef struct PfDistinctRecord
{
	uint32		w[3];			/* value's low, high 32 bits; group id */
} PfDistinctRecord;

/* One slot of the table with group keys; gid1 == 0 is empty. */
typedef struct PfDistinctSlot
{
	int64		value;
	uint32		gid1;			/* group id + 1 */
	uint32		unused;
} PfDistinctSlot;

/* A written partition waiting to be counted. */
typedef struct PfDistinctPart
{
	BufFile    *file;
	int64		records;
	int			shift;			/* hash bits used to choose it and above */
} PfDistinctPart;

/*
 * Without group keys the table holds values only (twice as many in the
 * same memory): a slot is the value with its sign bit flipped, 0 empty;
 * the one value that flips to 0, INT64_MIN, is a flag of its own.
 */
#define PF_DISTINCT_FLIP	UINT64CONST(0x8000000000000000)

typedef struct PfDistinctSet
{
	bool		narrow;			/* one group: uint64 slots (flipped values) */
	PfDistinctSlot *slots;		/* in st->distinct_cxt */
	uint64	   *keys;			/* narrow: the slots */
	bool		has_min;		/* narrow: INT64_MIN is in the set */
	uint64		mask;
	uint64		n;
	bool		no_grow;		/* at its memory limit: fills to 3/4 */
	bool		full;			/* new pairs are spilled */
	/* the partitions being written, NULL when not spilling */
	bool		spilling;
	int			shift;			/* hash bits of the levels above */
	BufFile    *files[PF_DISTINCT_FANOUT];
	int64		records[PF_DISTINCT_FANOUT];
	uint32		nstaged[PF_DISTINCT_FANOUT];
	PfDistinctRecord *stage;	/* FANOUT * STAGE, in st->cxt */
	List	   *pending;		/* PfDistinctPart * still to count (st->cxt) */
	int64	   *values;			/* per batch row, in st->cxt */
	uint64	   *hashes;
	uint32	   *rows;
} PfDistinctSet;

/* Can count(DISTINCT) of a column of this kind use the raw set? */
bool
pf_agg_distinct_fixed_kind(PfColKind kind)
{
	return kind == PF_COL_INT || kind == PF_COL_F4 || kind == PF_COL_F8 ||
		kind == PF_COL_BOOL;
}

static inline uint64
pair_hash(int64 value, uint32 gid)
{
	uint64		h = (uint64) value * UINT64CONST(0x9E3779B97F4A7C15) ^
		(uint64) gid * UINT64CONST(0xC2B2AE3D27D4EB4F);

	h ^= h >> 31;
	h *= UINT64CONST(0xBF58476D1CE4E5B9);
	h ^= h >> 29;
	return h;
}

/* The partition of a hash at the level below shift bits: its top bits. */
static inline uint32
part_of(uint64 h, int shift)
{
	return (uint32) (h >> (64 - PF_DISTINCT_FANOUT_BITS - shift)) &
		(PF_DISTINCT_FANOUT - 1);
}

static Size
slots_bytes(PfDistinctSet *s, uint64 nslots)
{
	return (Size) nslots * (s->narrow ? sizeof(uint64) : sizeof(PfDistinctSlot));
}

/* Bytes the groups and every distinct aggregate hold now. */
static Size
entries_memory(PfAggScanState *st)
{
	return MemoryContextMemAllocated(st->group_cxt, true) +
		MemoryContextMemAllocated(st->distinct_cxt, true);
}

/* A new empty table of nslots (a power of two) slots. */
static void
set_alloc(PfAggScanState *st, PfDistinctSet *s, uint64 nslots)
{
	void	   *t = MemoryContextAllocExtended(st->distinct_cxt, slots_bytes(s, nslots),
												   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	s->slots = s->narrow ? NULL : t;
	s->keys = s->narrow ? t : NULL;
	s->has_min = false;
	s->mask = nslots - 1;
	s->n = 0;
	s->no_grow = false;
	s->full = false;
}

/*
 * Double the table if the memory limit allows (old and new live together
 * while rehashing); past the last spill level it grows regardless.
 */
static void
set_grow(PfAggScanState *st, PfDistinctSet *s)
{
	uint64		nslots = (s->mask + 1) * 2;
	PfDistinctSlot *old = s->slots;
	uint64		oldmask = s->mask;

	if (s->shift + PF_DISTINCT_FANOUT_BITS <= PF_DISTINCT_MAX_SHIFT &&
		entries_memory(st) + slots_bytes(s, nslots) > st->group_limit)
	{
		s->no_grow = true;
		return;
	}
	if (s->narrow)
	{
		uint64	   *oldkeys = s->keys;

		s->keys = MemoryContextAllocExtended(st->distinct_cxt, slots_bytes(s, nslots),
											 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		s->mask = nslots - 1;
		for (uint64 j = 0; j <= oldmask; j++)
		{
			uint64		pos;

			if (oldkeys[j] == 0)
				continue;
			pos = pair_hash((int64) (oldkeys[j] ^ PF_DISTINCT_FLIP), 0) & s->mask;
			while (s->keys[pos] != 0)
				pos = (pos + 1) & s->mask;
			s->keys[pos] = oldkeys[j];
		}
		pfree(oldkeys);
		return;
	}
	s->slots = MemoryContextAllocExtended(st->distinct_cxt, slots_bytes(s, nslots),
										  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	s->mask = nslots - 1;
	for (uint64 j = 0; j <= oldmask; j++)
	{
		uint64		pos;

		if (old[j].gid1 == 0)
			continue;
		pos = pair_hash(old[j].value, old[j].gid1 - 1) & s->mask;
		while (s->slots[pos].gid1 != 0)
			pos = (pos + 1) & s->mask;
		s->slots[pos] = old[j];
	}
	pfree(old);
}

/* Write partition p's staged records. */
static void
flush_stage(PfAggScanState *st, PfDistinctSet *s, int p)
{
	if (s->nstaged[p] == 0)
		return;
	if (s->files[p] == NULL)
	{
		/* the file lives past the batch's memory */
		MemoryContext old = MemoryContextSwitchTo(st->cxt);

		s->files[p] = BufFileCreateTemp(false);
		MemoryContextSwitchTo(old);
	}
	BufFileWrite(s->files[p], (void *) (s->stage + (Size) p * PF_DISTINCT_STAGE),
				 sizeof(PfDistinctRecord) * s->nstaged[p]);
	s->nstaged[p] = 0;
}

/* Spill the pair (value, gid) of hash h. */
static inline void
spill_pair(PfAggScanState *st, PfDistinctSet *s, int64 value, uint32 gid, uint64 h)
{
	int			p = (int) part_of(h, s->shift);
	PfDistinctRecord *r;

	if (!s->spilling)
	{
		s->spilling = true;
		st->spilled = true;
	}
	if (s->nstaged[p] == PF_DISTINCT_STAGE)
		flush_stage(st, s, p);
	r = &s->stage[(Size) p * PF_DISTINCT_STAGE + s->nstaged[p]++];
	r->w[0] = (uint32) (uint64) value;
	r->w[1] = (uint32) ((uint64) value >> 32);
	r->w[2] = gid;
	s->records[p]++;
	st->spilled_rows++;
}

/*
 * Add the pair (value, gid) of hash h: counted in the group's state when
 * new, spilled when new and the table is full.
 */
static inline void
add_pair(PfAggScanState *st, PfAggDistinct *dd, PfDistinctSet *s,
		 int64 value, uint32 gid, uint64 h)
{
	uint64		pos = h & s->mask;
	uint32		gid1 = gid + 1;

	if (s->narrow)
	{
		uint64		key = (uint64) value ^ PF_DISTINCT_FLIP;
		uint64		k;

		if (unlikely(key == 0))
		{
			if (s->has_min)
				return;
			if (s->full)
				spill_pair(st, s, value, gid, h);
			else
			{
				s->has_min = true;
				st->states[dd->agg].count++;
			}
			return;
		}
		while ((k = s->keys[pos]) != 0)
		{
			if (k == key)
				return;			/* seen */
			pos = (pos + 1) & s->mask;
		}
		if (s->full)
		{
			spill_pair(st, s, value, gid, h);
			return;
		}
		s->keys[pos] = key;
	}
	else
	{
		for (;;)
		{
			PfDistinctSlot *slot = &s->slots[pos];

			if (slot->gid1 == 0)
				break;
			if (slot->value == value && slot->gid1 == gid1)
				return;			/* seen */
			pos = (pos + 1) & s->mask;
		}
		if (s->full)
		{
			spill_pair(st, s, value, gid, h);
			return;
		}
		s->slots[pos].value = value;
		s->slots[pos].gid1 = gid1;
	}
	st->states[(size_t) gid * st->prog->naggs + dd->agg].count++;
	/* grow at half load; one that may not grow fills to 3/4 */
	s->n++;
	if (!s->no_grow && s->n * 2 >= s->mask + 1)
		set_grow(st, s);
	if (s->no_grow && s->n * 4 >= (s->mask + 1) * 3)
		s->full = true;
}

/* Empty set (at each pass), its per-scan buffers made once. */
void
pf_agg_distinct_fixed_reset(PfAggScanState *st, PfAggDistinct *dd)
{
	PfDistinctSet *s = dd->fixed;

	if (s == NULL)
	{
		s = MemoryContextAllocZero(st->cxt, sizeof(PfDistinctSet));
		s->stage = MemoryContextAlloc(st->cxt, sizeof(PfDistinctRecord) *
									  PF_DISTINCT_FANOUT * PF_DISTINCT_STAGE);
		s->values = MemoryContextAlloc(st->cxt, sizeof(int64) * st->batch_rows);
		s->hashes = MemoryContextAlloc(st->cxt, sizeof(uint64) * st->batch_rows);
		s->rows = MemoryContextAlloc(st->cxt, sizeof(uint32) * st->batch_rows);
		dd->fixed = s;
	}
	s->narrow = st->prog->nkeys == 0;
	pf_agg_distinct_fixed_discard(st, dd);
	s->shift = 0;
	set_alloc(st, s, 256);
}

/* No growing from now on: the groups need the memory. */
void
pf_agg_distinct_fixed_freeze(PfAggScanState *st, PfAggDistinct *dd)
{
	dd->fixed->full = true;
}

/*
 * Add the pairs of the n selected rows (groups gid) of x's column;
 * null values count nothing.
 */
void
pf_agg_distinct_fixed_add(PfAggScanState *st, PfAggDistinct *dd, const uint32 *sel,
						  uint32 n, const uint32 *gid)
{
	PfDistinctSet *s = dd->fixed;
	const PfAggCol *col = &st->prog->cols[dd->col];
	const PqColumnBatch *b = col_batch(st, col);
	const bool *isnull = b->is_null;
	int64	   *values = s->values;
	uint64	   *hashes = s->hashes;
	uint32	   *rows = s->rows;	/* indexes into sel of non-null rows */
	uint32		m = 0;

	/* the values, as 64 bits equal when the type's equality says so */
	switch (col->kind)
	{
		case PF_COL_BOOL:
			for (uint32 i = 0; i < n; i++)
				if (!(isnull && isnull[sel[i]]))
				{
					values[m] = ((const uint8 *) b->values)[sel[i]] ? 1 : 0;
					rows[m++] = i;
				}
			break;
		case PF_COL_F4:
			for (uint32 i = 0; i < n; i++)
				if (!(isnull && isnull[sel[i]]))
				{
					values[m] = float_key_bits(((const float4 *) b->values)[sel[i]]);
					rows[m++] = i;
				}
			break;
		case PF_COL_F8:
			for (uint32 i = 0; i < n; i++)
				if (!(isnull && isnull[sel[i]]))
				{
					values[m] = float_key_bits(((const float8 *) b->values)[sel[i]]);
					rows[m++] = i;
				}
			break;
		default:
			if (col->phys == PQ_INT32)
			{
				const int32 *v = (const int32 *) b->values;

				for (uint32 i = 0; i < n; i++)
					if (!(isnull && isnull[sel[i]]))
					{
						values[m] = v[sel[i]];
						rows[m++] = i;
					}
			}
			else
			{
				const int64 *v = (const int64 *) b->values;

				for (uint32 i = 0; i < n; i++)
					if (!(isnull && isnull[sel[i]]))
					{
						values[m] = v[sel[i]];
						rows[m++] = i;
					}
			}
			break;
	}
	/* a run of one pair (files sorted by x) needs one probe */
	if (m > 1)
	{
		uint32		k = 1;

		for (uint32 i = 1; i < m; i++)
		{
			values[k] = values[i];
			rows[k] = rows[i];
			k += values[i] != values[k - 1] || gid[rows[i]] != gid[rows[k - 1]];
		}
		m = k;
	}
	for (uint32 i = 0; i < m; i++)
		hashes[i] = pair_hash(values[i], gid[rows[i]]);
	for (uint32 i = 0; i < m; i++)
	{
		/* the slot a few rows ahead is fetched while this one is probed */
		if (i + PF_DISTINCT_PREFETCH < m)
		{
			uint64		ahead = hashes[i + PF_DISTINCT_PREFETCH] & s->mask;

			if (s->narrow)
				__builtin_prefetch(&s->keys[ahead]);
			else
				__builtin_prefetch(&s->slots[ahead]);
		}
		add_pair(st, dd, s, values[i], gid[rows[i]], hashes[i]);
	}
}

/* The written partitions, flushed and rewound, onto the pending list. */
static void
finish_level(PfAggScanState *st, PfDistinctSet *s)
{
	MemoryContext old;

	if (!s->spilling)
		return;
	old = MemoryContextSwitchTo(st->cxt);
	for (int p = 0; p < PF_DISTINCT_FANOUT; p++)
	{
		PfDistinctPart *part;

		flush_stage(st, s, p);
		if (s->files[p] == NULL)
			continue;
		if (BufFileSeek(s->files[p], 0, 0, SEEK_SET) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not rewind count(DISTINCT) spill file")));
		part = palloc(sizeof(PfDistinctPart));
		part->file = s->files[p];
		part->records = s->records[p];
		part->shift = s->shift + PF_DISTINCT_FANOUT_BITS;
		/* depth first: few files wait at a time */
		s->pending = lcons(part, s->pending);
		st->spill_partitions++;
		s->files[p] = NULL;
		s->records[p] = 0;
	}
	MemoryContextSwitchTo(old);
	s->spilling = false;
}

/*
 * The pass's groups are all made: count the spilled pairs, partition by
 * partition, each with a fresh table (the pairs seen before are dropped:
 * no spilled pair is among them).
 */
void
pf_agg_distinct_fixed_finish(PfAggScanState *st, PfAggDistinct *dd)
{
	PfDistinctSet *s = dd->fixed;
	PfDistinctRecord *buf;

	finish_level(st, s);
	if (s->pending == NIL)
		return;
	buf = palloc(sizeof(PfDistinctRecord) * PF_DISTINCT_READ);
	while (s->pending != NIL)
	{
		PfDistinctPart *part = (PfDistinctPart *) linitial(s->pending);
		uint64		nslots = 256;
		size_t		got;

		s->pending = list_delete_first(s->pending);
		/*
		 * Room for every record at half load, as far as memory allows.  The
		 * groups may hold all of hash_mem by now; a partition then still
		 * gets a quarter of it, or it would split into ever smaller files
		 * while no memory is freed for them (the groups stay).
		 */
		pfree(s->narrow ? (void *) s->keys : (void *) s->slots);
		s->slots = NULL;
		s->keys = NULL;
		while ((double) nslots < (double) part->records * 2 &&
			   (entries_memory(st) + slots_bytes(s, nslots * 2) <= st->group_limit ||
				slots_bytes(s, nslots * 2) <= st->group_limit / 4))
			nslots *= 2;
		set_alloc(st, s, nslots);
		s->shift = part->shift;
		while ((got = BufFileRead(part->file, buf,
								  sizeof(PfDistinctRecord) * PF_DISTINCT_READ)) > 0)
		{
			uint32		nrec = (uint32) (got / sizeof(PfDistinctRecord));

			CHECK_FOR_INTERRUPTS();
			if (got % sizeof(PfDistinctRecord) != 0)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not read count(DISTINCT) spill file: read only part of a record")));
			for (uint32 i = 0; i < nrec; i++)
			{
				int64		value = (int64) ((uint64) buf[i].w[1] << 32 | buf[i].w[0]);
				uint32		gid = buf[i].w[2];

				add_pair(st, dd, s, value, gid, pair_hash(value, gid));
			}
		}
		BufFileClose(part->file);
		pfree(part);
		st->peak_memory = Max(st->peak_memory,
							  MemoryContextMemAllocated(st->cxt, true));
		finish_level(st, s);
	}
	pfree(buf);
}

/* Close every file (rescan, error cleanup, a new pass). */
void
pf_agg_distinct_fixed_discard(PfAggScanState *st, PfAggDistinct *dd)
{
	PfDistinctSet *s = dd->fixed;
	ListCell   *lc;

	if (s == NULL)
		return;
	for (int p = 0; p < PF_DISTINCT_FANOUT; p++)
	{
		if (s->files[p] != NULL)
			BufFileClose(s->files[p]);
		s->files[p] = NULL;
		s->records[p] = 0;
		s->nstaged[p] = 0;
	}
	foreach(lc, s->pending)
		BufFileClose(((PfDistinctPart *) lfirst(lc))->file);
	list_free_deep(s->pending);
	s->pending = NIL;
	s->spilling = false;
}

/* ----------------------------------------------------------------
 * Text: the codes of a dictionary-coded batch
 * ----------------------------------------------------------------
 */

/*
 * Per dictionary entry of the current unit, its code in the distinct's
 * dictionary (0 = not known yet), so that each entry is hashed and
 * compared once per unit instead of once per row.
 */
typedef struct PfDistinctMemo
{
	uint32	   *code_of;		/* per dictionary entry */
	uint32		cap;
	int64		unit;			/* st->rowgroups_read it is of, -1 = none */
	uint32	   *need;			/* per batch: rows to look up */
	uint32	   *need_at;		/* their positions in sel */
	uint32	   *need_codes;
} PfDistinctMemo;

/* The dictionary was reset: its codes are no longer the memo's. */
void
pf_agg_distinct_codes_forget(PfAggDistinct *dd)
{
	if (dd->memo != NULL)
		dd->memo->unit = -1;
}

/*
 * Codes of x's values for the n selected rows, as pf_agg_key_codes gives
 * them, looking each dictionary entry up once per unit when the batch is
 * dictionary-coded.
 */
void
pf_agg_distinct_codes(PfAggScanState *st, PfAggDistinct *dd, const uint32 *sel,
					  uint32 n, uint32 *codes)
{
	const PfAggCol *col = &st->prog->cols[dd->col];
	const PqColumnBatch *b = col_batch(st, col);
	const uint32 *dict_index = b->dict_index;
	const bool *isnull = b->is_null;
	PfDistinctMemo *m = dd->memo;
	uint32		nneed = 0;

	if (col->kind != PF_COL_TEXT || dict_index == NULL || b->dictionary_count == 0)
	{
		pf_agg_key_codes(st, dd->dict, sel, n, codes);
		return;
	}
	if (m == NULL)
	{
		m = MemoryContextAllocZero(st->cxt, sizeof(PfDistinctMemo));
		m->unit = -1;
		m->need = MemoryContextAlloc(st->cxt, sizeof(uint32) * st->batch_rows);
		m->need_at = MemoryContextAlloc(st->cxt, sizeof(uint32) * st->batch_rows);
		m->need_codes = MemoryContextAlloc(st->cxt, sizeof(uint32) * st->batch_rows);
		dd->memo = m;
	}
	if (m->cap < b->dictionary_count)
	{
		if (m->code_of != NULL)
			pfree(m->code_of);
		m->cap = Max(b->dictionary_count, m->cap * 2);
		m->code_of = MemoryContextAlloc(st->cxt, sizeof(uint32) * m->cap);
		m->unit = -1;
	}
	if (m->unit != st->rowgroups_read)
	{
		memset(m->code_of, 0, sizeof(uint32) * m->cap);
		m->unit = st->rowgroups_read;
	}
	for (uint32 i = 0; i < n; i++)
	{
		uint32		r = sel[i];
		uint32		e = dict_index[r];

		if (isnull && isnull[r])
			codes[i] = 0;
		else if (e != PQ_NOT_FROM_DICTIONARY && e < b->dictionary_count &&
				 m->code_of[e] != 0)
			codes[i] = m->code_of[e];
		else
		{
			m->need[nneed] = r;
			m->need_at[nneed++] = i;
		}
	}
	if (nneed == 0)
		return;
	pf_agg_key_codes(st, dd->dict, m->need, nneed, m->need_codes);
	for (uint32 j = 0; j < nneed; j++)
	{
		uint32		code = m->need_codes[j];
		uint32		e = dict_index[m->need[j]];

		codes[m->need_at[j]] = code;
		/* a value not coded (the dictionary is frozen) is asked again */
		if (e != PQ_NOT_FROM_DICTIONARY && e < b->dictionary_count &&
			code != PF_AGG_NO_CODE)
			m->code_of[e] = code;
	}
}
