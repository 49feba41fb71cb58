/*-------------------------------------------------------------------------
 *
 * agg_group.c
 *	  Aggregate pushdown: group key dictionaries and group hashing.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_group.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/agg_int.h"

/* ----------------------------------------------------------------
 * Groups
 * ----------------------------------------------------------------
 */

/* An empty dictionary of column col's values, allocated in cxt. */
void
pf_agg_dict_init(PfAggScanState *st, PfKeyDict *d, int col, MemoryContext cxt)
{
	memset(d, 0, sizeof(PfKeyDict));
	d->col = col;
	d->cxt = cxt;
	d->cap_values = 16;
	d->ivalues = MemoryContextAllocZero(cxt, sizeof(int64) * (d->cap_values + 1));
	/* only text values need these: 12 bytes a value the groups can use */
	if (st->prog->cols[col].kind == PF_COL_TEXT)
	{
		d->tvalues = MemoryContextAllocZero(cxt, sizeof(char *) * (d->cap_values + 1));
		d->tlens = MemoryContextAllocZero(cxt, sizeof(int) * (d->cap_values + 1));
	}
	d->hashes = MemoryContextAllocZero(cxt, sizeof(uint32) * (d->cap_values + 1));
	d->mask = 63;
	d->table = MemoryContextAllocZero(cxt, sizeof(uint32) * (d->mask + 1));
}

/* Room for cap values (codes 1..cap) in d's per-value arrays. */
static void
dict_resize_values(PfKeyDict *d, uint32 cap)
{
	d->ivalues = repalloc(d->ivalues, sizeof(int64) * (cap + 1));
	if (d->tvalues)
	{
		d->tvalues = repalloc(d->tvalues, sizeof(char *) * (cap + 1));
		d->tlens = repalloc(d->tlens, sizeof(int) * (cap + 1));
	}
	d->hashes = repalloc(d->hashes, sizeof(uint32) * (cap + 1));
	d->cap_values = cap;
}

/* Make room for one more value in d, rehashing at half load. */
static void
dict_grow(PfAggScanState *st, PfKeyDict *d)
{
	if (d->nvalues + 1 > d->cap_values)
		dict_resize_values(d, d->cap_values * 2);
	if ((d->nvalues + 1) * 2 > d->mask)
	{
		uint32		mask = d->mask * 2 + 1;

		pfree(d->table);
		d->table = MemoryContextAllocZero(d->cxt, sizeof(uint32) * (mask + 1));
		d->mask = mask;
		for (uint32 code = 1; code <= d->nvalues; code++)
		{
			uint32		pos = d->hashes[code] & mask;

			while (d->table[pos] != 0)
				pos = (pos + 1) & mask;
			d->table[pos] = code;
		}
	}
}

/* The bit of hash h in a frozen dictionary's seen filter: other bits than the table's. */
static inline uint32
seen_bit(const PfKeyDict *d, uint32 h)
{
	return (h * 0x9E3779B1U) >> d->seen_shift;
}

/*
 * Build the seen filter of a frozen dictionary: 8 bits a value, so about
 * one value in nine without a code passes to the probe.  A filter of up
 * to a few hundred kB stays in cache where the table and values, probed
 * up to the next empty slot for every row to spill, do not.
 */
static void
seen_build(PfKeyDict *d)
{
	int			bits = 9;

	while (bits < 31 && ((uint64) 1 << bits) < (uint64) d->nvalues * 8)
		bits++;
	if (d->seen)
		pfree(d->seen);
	d->seen = MemoryContextAllocZero(d->cxt, ((Size) 1 << bits) / 8);
	d->seen_shift = 32 - bits;
	for (uint32 code = 1; code <= d->nvalues; code++)
	{
		uint32		b = seen_bit(d, d->hashes[code]);

		d->seen[b >> 6] |= UINT64CONST(1) << (b & 63);
	}
	d->seen_nvalues = d->nvalues;
}

/* Frozen and no value of hash h coded: the value is surely new. */
static inline bool
surely_new(PfKeyDict *d, uint32 h)
{
	uint32		b;

	if (!d->frozen)
		return false;
	if (unlikely(d->seen == NULL || d->seen_nvalues != d->nvalues))
		seen_build(d);
	b = seen_bit(d, h);
	return (d->seen[b >> 6] & (UINT64CONST(1) << (b & 63))) == 0;
}

/* The code of an integer value (INT, DATE as PostgreSQL days, BOOL). */
static uint32
dict_int(PfAggScanState *st, PfKeyDict *d, int64 v, PfColKind kind)
{
	uint32		h = hash_int64(v);
	uint32		pos = h & d->mask;
	uint32		code;

	if (surely_new(d, h))
		return PF_AGG_NO_CODE;	/* a new value: a new group, spilled */
	while ((code = d->table[pos]) != 0)
	{
		if (d->ivalues[code] == v)
			return code;
		pos = (pos + 1) & d->mask;
	}
	if (d->frozen)
		return PF_AGG_NO_CODE;	/* a new value: a new group, spilled */
	if (kind == PF_COL_DATE && !IS_VALID_DATE(v))
		pf_agg_date_out_of_range(st->prog->cols[d->col].attname, v + PF_AGG_EPOCH_DAYS,
						  false);
	dict_grow(st, d);
	code = ++d->nvalues;
	d->ivalues[code] = v;
	d->hashes[code] = h;
	pos = h & d->mask;
	while (d->table[pos] != 0)
		pos = (pos + 1) & d->mask;
	d->table[pos] = code;
	return code;
}

/* The code of a text value; new values are checked as UTF-8 and copied. */
static uint32
dict_text(PfAggScanState *st, PfKeyDict *d, const uint8 *p, uint32 len)
{
	uint32		h = pf_agg_hash_text(p, len);
	uint32		pos = h & d->mask;
	uint32		code;

	if (surely_new(d, h))
		return PF_AGG_NO_CODE;	/* checked when read back */
	while ((code = d->table[pos]) != 0)
	{
		if (d->hashes[code] == h && d->tlens[code] == (int) len &&
			memcmp(d->tvalues[code], p, len) == 0)
			return code;
		pos = (pos + 1) & d->mask;
	}
	if (d->frozen)
		return PF_AGG_NO_CODE;	/* checked when read back */
	if (pg_encoding_verifymbstr(PG_UTF8, (const char *) p, (int) len) != (int) len)
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("invalid byte sequence for encoding \"UTF8\" in column \"%s\"",
						st->prog->cols[d->col].attname)));
	dict_grow(st, d);
	code = ++d->nvalues;
	d->tvalues[code] = MemoryContextAlloc(d->cxt, len + 1);
	memcpy(d->tvalues[code], p, len);
	d->tlens[code] = (int) len;
	d->hashes[code] = h;
	pos = h & d->mask;
	while (d->table[pos] != 0)
		pos = (pos + 1) & d->mask;
	d->table[pos] = code;
	return code;
}

/* Codes of dictionary d's column for the n selected rows. */
void
pf_agg_key_codes(PfAggScanState *st, PfKeyDict *d, const uint32 *sel, uint32 n, uint32 *codes)
{
	const PfAggCol *col = &st->prog->cols[d->col];
	const PqColumnBatch *b = col_batch(st, col);
	const bool *isnull = b->is_null;

	switch (col->kind)
	{
		case PF_COL_TEXT:
			{
				const CdcByteView *vals = (const CdcByteView *) b->values;

				/* the cache holds this batch's pointers only */
				memset(d->cache_ptr, 0, sizeof(d->cache_ptr));
				for (uint32 i = 0; i < n; i++)
				{
					uint32		r = sel[i];
					const CdcByteView *v = &vals[r];
					uint32		slot;

					if (isnull && isnull[r])
					{
						codes[i] = 0;
						continue;
					}
					if (v->len == 1)
					{
						uint32	   *bc = &d->byte_code[v->ptr[0]];

						if (likely(*bc != 0))
							codes[i] = *bc;
						else if ((codes[i] = dict_text(st, d, v->ptr, 1)) != PF_AGG_NO_CODE)
							*bc = codes[i];
						continue;
					}
					slot = (uint32) (((uintptr_t) v->ptr * UINT64CONST(0x9E3779B97F4A7C15)) >> 56);
					if (d->cache_ptr[slot] == v->ptr && d->cache_len[slot] == v->len &&
						v->ptr != NULL)
						codes[i] = d->cache_code[slot];
					else
					{
						codes[i] = dict_text(st, d, v->ptr, v->len);
						d->cache_ptr[slot] = v->ptr;
						d->cache_len[slot] = v->len;
						d->cache_code[slot] = codes[i];
					}
				}
				break;
			}
		case PF_COL_BOOL:
			{
				const uint8 *vals = (const uint8 *) b->values;

				for (uint32 i = 0; i < n; i++)
				{
					uint32		r = sel[i];

					codes[i] = (isnull && isnull[r]) ? 0 :
						dict_int(st, d, vals[r] ? 1 : 0, col->kind);
				}
				break;
			}
		case PF_COL_F4:
		case PF_COL_F8:
			{
				/* equal as float4eq/float8eq: -0 = +0, NaN = NaN */
				for (uint32 i = 0; i < n; i++)
				{
					uint32		r = sel[i];
					double		x;

					if (isnull && isnull[r])
					{
						codes[i] = 0;
						continue;
					}
					x = col->kind == PF_COL_F4 ? ((const float4 *) b->values)[r] :
						((const float8 *) b->values)[r];
					codes[i] = dict_int(st, d, float_key_bits(x), col->kind);
				}
				break;
			}
		default:
			{
				int64		last_v = 0;
				uint32		last_code = 0;
				int64		off = col->kind == PF_COL_DATE ? PF_AGG_EPOCH_DAYS : 0;

				for (uint32 i = 0; i < n; i++)
				{
					uint32		r = sel[i];
					int64		v;

					if (isnull && isnull[r])
					{
						codes[i] = 0;
						continue;
					}
					v = (col->phys == PQ_INT32 ? ((const int32 *) b->values)[r] :
						 ((const int64 *) b->values)[r]) - off;
					if (last_code == 0 || v != last_v)
					{
						last_code = dict_int(st, d, v, col->kind);
						last_v = v;
					}
					codes[i] = last_code;
				}
				break;
			}
	}
}

/*
 * The groups' states: zeroed, 16-byte aligned (int128 sums), and freed
 * when they grow, so the memory limit counts only the live array.  The
 * chunk's own address is kept just below the aligned one for the pfree.
 */
static PfAggState *
states_alloc(MemoryContext cxt, Size size)
{
	char	   *chunk = MemoryContextAllocExtended(cxt, size + 16 + sizeof(void *),
												   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	char	   *states = (char *) TYPEALIGN(16, chunk + sizeof(void *));

	((void **) states)[-1] = chunk;
	return (PfAggState *) states;
}

static void
states_free(PfAggState *states)
{
	pfree(((void **) states)[-1]);
}

/*
 * Room for cap groups (cap >= cap_groups): the states are copied into a
 * new array and the old one freed, the key codes reallocated.
 */
static void
groups_resize(PfAggScanState *st, uint32 cap)
{
	PfAggProgram *prog = st->prog;
	PfAggState *states = states_alloc(st->group_cxt,
									  sizeof(PfAggState) * cap * Max(1, prog->naggs));

	if (st->states)
	{
		memcpy(states, st->states,
			   sizeof(PfAggState) * st->cap_groups * Max(1, prog->naggs));
		states_free(st->states);
	}
	st->states = states;
	st->group_codes = st->group_codes ?
		repalloc(st->group_codes, sizeof(uint32) * cap * Max(1, prog->nkeys)) :
		MemoryContextAlloc(st->group_cxt, sizeof(uint32) * cap * Max(1, prog->nkeys));
	st->cap_groups = cap;
}

/* Room for n values in an empty dictionary: no growth up to them. */
static void
dict_reserve(PfKeyDict *d, uint32 n)
{
	uint32		cap = d->cap_values;
	uint32		mask = d->mask;

	Assert(d->nvalues == 0);
	while (cap < n)
		cap *= 2;
	while ((n + 1) * 2 > mask)
		mask = mask * 2 + 1;
	if (cap > d->cap_values)
		dict_resize_values(d, cap);
	if (mask > d->mask)
	{
		pfree(d->table);
		d->table = MemoryContextAllocZero(d->cxt, sizeof(uint32) * (mask + 1));
		d->mask = mask;
	}
}

/*
 * Room for n groups right after reset_groups: a spill partition expecting
 * about as many groups as the one before it on the same level makes them
 * without doubling and copying its arrays on the way.  n must be a count
 * that fitted in memory.
 */
void
pf_agg_groups_reserve(PfAggScanState *st, uint32 n)
{
	PfAggProgram *prog = st->prog;
	uint32		cap = 16;

	if (prog->nkeys == 0 || st->ngroups > 0 || n <= cap)
		return;
	for (int k = 0; k < prog->nkeys; k++)
		dict_reserve(&st->dicts[k], n);
	while (cap < n)
		cap *= 2;
	groups_resize(st, cap);
	if (prog->nkeys == 1 && st->cap_code < cap + 1)
	{
		st->gid_of_code = repalloc(st->gid_of_code, sizeof(uint32) * (cap + 1));
		for (uint32 j = st->cap_code; j < cap + 1; j++)
			st->gid_of_code[j] = PG_UINT32_MAX;
		st->cap_code = cap + 1;
	}
	if (prog->nkeys >= 2 && n * 2 > st->gmask)
	{
		uint32		mask = st->gmask;

		while (n * 2 > mask)
			mask = mask * 2 + 1;
		pfree(st->gtable);
		st->gtable = MemoryContextAllocZero(st->group_cxt, sizeof(uint32) * (mask + 1));
		st->gmask = mask;
	}
}

/* A new group with these key codes; returns its id. */
uint32
pf_agg_new_group(PfAggScanState *st, const uint32 *keycodes)
{
	PfAggProgram *prog = st->prog;
	uint32		g = st->ngroups;

	if (g >= st->cap_groups)
		groups_resize(st, Max(16, st->cap_groups * 2));
	if (prog->nkeys > 0)
		memcpy(&st->group_codes[(size_t) g * prog->nkeys], keycodes,
			   sizeof(uint32) * prog->nkeys);
	st->ngroups++;
	return g;
}

static inline uint32
hash_codes(const uint32 *codes, int nkeys)
{
	uint64		h = 0;

	for (int k = 0; k < nkeys; k++)
		h = (h ^ codes[k]) * UINT64CONST(0x9E3779B97F4A7C15);
	return (uint32) (h >> 32);
}

/* The group of a key (its codes), found in or added to the hash table. */
static uint32
group_of_key(PfAggScanState *st, const uint32 *key, int nkeys)
{
	uint32		h = hash_codes(key, nkeys);
	uint32		pos = h & st->gmask;
	uint32		e;

	while ((e = st->gtable[pos]) != 0)
	{
		const uint32 *gk = &st->group_codes[(size_t) (e - 1) * nkeys];
		int			k = 0;

		while (k < nkeys && gk[k] == key[k])
			k++;
		if (k == nkeys)
			return e - 1;
		pos = (pos + 1) & st->gmask;
	}
	if (st->no_new_groups)
		return PF_AGG_NO_GROUP;
	e = pf_agg_new_group(st, key) + 1;
	st->gtable[pos] = e;
	if (st->ngroups * 2 > st->gmask)
	{
		/* rehash into a table twice as large */
		uint32		mask = st->gmask * 2 + 1;

		pfree(st->gtable);
		st->gtable = MemoryContextAllocZero(st->group_cxt,
											sizeof(uint32) * (mask + 1));
		st->gmask = mask;
		for (uint32 j = 0; j < st->ngroups; j++)
		{
			uint32		p = hash_codes(&st->group_codes[(size_t) j * nkeys],
									   nkeys) & mask;

			while (st->gtable[p] != 0)
				p = (p + 1) & mask;
			st->gtable[p] = j + 1;
		}
	}
	return e - 1;
}

/*
 * Group ids of the n selected rows from their keys' codes.  With
 * st->no_new_groups, a key without a group (or with a value not coded:
 * PF_AGG_NO_CODE) gets PF_AGG_NO_GROUP instead of a new group.
 */
void
pf_agg_assign_groups(PfAggScanState *st, uint32 n)
{
	int			nkeys = st->prog->nkeys;
	uint32	   *gid = st->gid;

	if (nkeys == 1)
	{
		const uint32 *codes = st->codes[0];

		for (uint32 i = 0; i < n; i++)
		{
			uint32		c = codes[i];

			if (unlikely(st->no_new_groups) &&
				(c >= st->cap_code || st->gid_of_code[c] == PG_UINT32_MAX))
			{
				gid[i] = PF_AGG_NO_GROUP;
				continue;
			}
			if (unlikely(c >= st->cap_code))
			{
				uint32		cap = Max(c + 1, st->cap_code * 2);

				st->gid_of_code = repalloc(st->gid_of_code, sizeof(uint32) * cap);
				for (uint32 j = st->cap_code; j < cap; j++)
					st->gid_of_code[j] = PG_UINT32_MAX;
				st->cap_code = cap;
			}
			if (unlikely(st->gid_of_code[c] == PG_UINT32_MAX))
				st->gid_of_code[c] = pf_agg_new_group(st, &c);
			gid[i] = st->gid_of_code[c];
		}
		return;
	}

	if (nkeys == 2)
	{
		const uint32 *c0 = st->codes[0];
		const uint32 *c1 = st->codes[1];

		/* small code pairs (flags, statuses) straight from a table */
		for (uint32 i = 0; i < n; i++)
		{
			uint32		key[2] = {c0[i], c1[i]};
			uint32	   *slot = NULL;

			if (key[0] < PF_AGG_PAIR_CODES && key[1] < PF_AGG_PAIR_CODES)
			{
				slot = &st->gid_of_pair[key[0] * PF_AGG_PAIR_CODES + key[1]];
				if (likely(*slot != PG_UINT32_MAX))
				{
					gid[i] = *slot;
					continue;
				}
			}
			if (unlikely(key[0] == PF_AGG_NO_CODE || key[1] == PF_AGG_NO_CODE))
			{
				gid[i] = PF_AGG_NO_GROUP;
				continue;
			}
			gid[i] = group_of_key(st, key, 2);
			if (slot && gid[i] != PF_AGG_NO_GROUP)
				*slot = gid[i];
		}
		return;
	}

	for (uint32 i = 0; i < n; i++)
	{
		uint32		key[INDEX_MAX_KEYS];
		bool		coded = true;

		for (int k = 0; k < nkeys; k++)
		{
			key[k] = st->codes[k][i];
			coded &= key[k] != PF_AGG_NO_CODE;
		}
		gid[i] = coded ? group_of_key(st, key, nkeys) : PF_AGG_NO_GROUP;
	}
}

/* ----------------------------------------------------------------
 * count(DISTINCT x): (group, value) pairs
 * ----------------------------------------------------------------
 */

/* No pair seen, x's dictionary empty (both in st->distinct_cxt). */
void
pf_agg_distinct_reset(PfAggScanState *st, PfAggDistinct *dd)
{
	dd->dict = MemoryContextAlloc(st->distinct_cxt, sizeof(PfKeyDict));
	pf_agg_dict_init(st, dd->dict, dd->col, st->distinct_cxt);
	dd->mask = 255;
	dd->pairs = MemoryContextAllocZero(st->distinct_cxt, sizeof(uint64) * (dd->mask + 1));
	dd->npairs = 0;
	dd->seen = NULL;
	dd->seen_cap = 0;
	pf_agg_distinct_codes_forget(dd);
	if (pf_agg_distinct_fixed_kind(st->prog->cols[dd->col].kind))
		pf_agg_distinct_fixed_reset(st, dd);
}

static inline uint64
pair_hash(uint64 key)
{
	key *= UINT64CONST(0x9E3779B97F4A7C15);
	return key ^ (key >> 29);
}

/* Double the pair table. */
static void
pairs_grow(PfAggScanState *st, PfAggDistinct *dd)
{
	uint64		mask = dd->mask * 2 + 1;
	uint64	   *pairs = MemoryContextAllocExtended(st->distinct_cxt, sizeof(uint64) * (mask + 1),
												   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	for (uint64 j = 0; j <= dd->mask; j++)
	{
		uint64		key = dd->pairs[j];
		uint64		pos;

		if (key == 0)
			continue;
		pos = pair_hash(key) & mask;
		while (pairs[pos] != 0)
			pos = (pos + 1) & mask;
		pairs[pos] = key;
	}
	pfree(dd->pairs);
	dd->pairs = pairs;
	dd->mask = mask;
}

/*
 * Count the new (group, value) pairs of the n selected rows (groups gid,
 * x's codes in st->xcodes) in their groups' states; null values count
 * nothing.  With st->no_new_pairs, the rows of pairs not seen (and of
 * values not coded) are put in spill, their number returned.
 */
uint32
pf_agg_distinct_add(PfAggScanState *st, PfAggDistinct *dd, const uint32 *sel,
					uint32 n, const uint32 *gid, uint32 *spill)
{
	int			naggs = st->prog->naggs;
	PfAggState *states = st->states + dd->agg;
	const uint32 *codes = st->xcodes;
	uint32		nspill = 0;

	if (st->prog->nkeys == 0)
	{
		/* one group: a code is a pair, the codes are dense */
		for (uint32 i = 0; i < n; i++)
		{
			uint32		code = codes[i];

			if (code == 0)
				continue;		/* NULL */
			if (code != PF_AGG_NO_CODE && code >= dd->seen_cap)
			{
				uint32		cap = Max(code + 1, dd->seen_cap * 2);
				uint8	   *seen = MemoryContextAllocZero(st->distinct_cxt, cap);

				if (dd->seen != NULL)
				{
					memcpy(seen, dd->seen, dd->seen_cap);
					pfree(dd->seen);
				}
				dd->seen = seen;
				dd->seen_cap = cap;
			}
			if (code != PF_AGG_NO_CODE && dd->seen[code])
				continue;
			if (code == PF_AGG_NO_CODE || st->no_new_pairs)
			{
				spill[nspill++] = sel[i];
				continue;
			}
			dd->seen[code] = 1;
			dd->npairs++;
			states[0].count++;
		}
		return nspill;
	}
	for (uint32 i = 0; i < n; i++)
	{
		uint32		code = codes[i];
		uint64		key;
		uint64		pos;

		if (code == 0)
			continue;			/* NULL */
		if (code == PF_AGG_NO_CODE)
		{
			spill[nspill++] = sel[i];
			continue;
		}
		key = ((uint64) gid[i] + 1) << 32 | code;
		pos = pair_hash(key) & dd->mask;
		while (dd->pairs[pos] != 0 && dd->pairs[pos] != key)
			pos = (pos + 1) & dd->mask;
		if (dd->pairs[pos] == key)
			continue;
		if (st->no_new_pairs)
		{
			spill[nspill++] = sel[i];
			continue;
		}
		dd->pairs[pos] = key;
		states[(size_t) gid[i] * naggs].count++;
		if (++dd->npairs * 2 > dd->mask)
			pairs_grow(st, dd);
	}
	return nspill;
}
