/*-------------------------------------------------------------------------
 *
 * agg_partial.c
 *	  Aggregate pushdown in parallel workers: each participant aggregates
 *	  the units (row groups, stripes) it claims and returns one row per
 *	  group holding each aggregate's transition state, which PostgreSQL's
 *	  Finalize Aggregate combines above the Gather.
 *
 * The planner's partial Aggrefs (AGGSPLIT_INITIAL_SERIAL) carry the
 * transition type as their type.  Only aggregates whose transition state
 * is not "internal" are offered: the states below are what the transition
 * functions build, so the combine functions take them unchanged.
 *	count(*), count(x)		int8, the count
 *	sum(int2/int4)			int8, the wrapping sum (NULL without input)
 *	sum(float4/float8)		float4 / float8, the sum (NULL without input)
 *	avg(int2/int4)			int8[] {N, sum}, as int4_avg_accum
 *	avg(float4/float8)		float8[] {N, Sx, Sxx}, as float8_accum
 *	min, max				the value (NULL without input)
 * sum and avg of int8 and numeric keep an internal state whose serialized
 * form is PostgreSQL's private business: those stay serial.
 *
 * ORDER BY ... LIMIT over many groups is planned differently (agg_plan.c,
 * pf_agg_add_partitioned_topn_path): the participants claim partitions of
 * the groups' key hashes instead of units, read every unit, aggregate the
 * rows of their partitions into whole groups and return only their own
 * top rows, so nothing has to combine millions of partial groups.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_partial.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "port/atomics.h"
#include "storage/spin.h"

#include "fdw/agg_int.h"

/*
 * In the DSM of a parallel-aware aggregate plan: the units' counter, and
 * the EXPLAIN ANALYZE counters the workers add when they shut down, which
 * the leader folds into its own.
 */
typedef struct PfAggParallel
{
	pg_atomic_uint64 next_work;
	pg_atomic_uint32 next_part;	/* partitioned plans: the next partition */
	slock_t		mutex;			/* protects the counters below */
	int64		rowgroups_read;
	int64		rowgroups_stats;
	int64		rowgroups_skipped;
	int64		groups_total;
	int64		bytes_read;
	int64		rows_skipped_by_index;
	PfRemoteStats remote;		/* requests and bytes of remote files */
	instr_time	decode_time;
	Size		peak_memory;	/* the largest of the participants' */
	uint64		computed_values;	/* of expressions PostgreSQL computes */
	uint64		computed_evaluations;
} PfAggParallel;

/* ----------------------------------------------------------------
 * Planning and executor start: the target list and the states offered
 * ----------------------------------------------------------------
 */

List *
pf_agg_partial_whole_tlist(List *scan_tlist, bool *partial)
{
	List	   *whole = NIL;
	ListCell   *lc;

	*partial = false;
	foreach(lc, scan_tlist)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);
		Aggref	   *agg = (Aggref *) tle->expr;

		if (IsA(agg, Aggref) && DO_AGGSPLIT_SKIPFINAL(agg->aggsplit))
		{
			tle = flatCopyTargetEntry(tle);
			agg = (Aggref *) copyObject(agg);
			agg->aggsplit = AGGSPLIT_SIMPLE;
			/* our aggregates are not polymorphic: the function's type */
			agg->aggtype = get_func_rettype(agg->aggfnoid);
			tle->expr = (Expr *) agg;
			*partial = true;
		}
		whole = lappend(whole, tle);
	}
	return whole;
}

/* The transition type of def's state as this file builds it, or 0. */
static Oid
state_type(const PfAggDef *def)
{
	bool		small_int = def->argtype == INT2OID || def->argtype == INT4OID;
	bool		is_float = def->argtype == FLOAT4OID || def->argtype == FLOAT8OID;

	if (def->distinct)
		return InvalidOid;
	switch (def->kind)
	{
		case PF_AGG_COUNT_STAR:
		case PF_AGG_COUNT:
			return INT8OID;
		case PF_AGG_SUM:
			return small_int ? INT8OID : is_float ? def->argtype : InvalidOid;
		case PF_AGG_AVG:
			return small_int ? INT8ARRAYOID : is_float ? FLOAT8ARRAYOID : InvalidOid;
		case PF_AGG_MIN:
		case PF_AGG_MAX:
			return def->restype;
	}
	return InvalidOid;
}

bool
pf_agg_partial_supported(PfAggProgram *prog, List *scan_tlist,
						 const char **why)
{
	ListCell   *lc;

	foreach(lc, scan_tlist)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);
		PfAggOut   *out = &prog->outs[foreach_current_index(lc)];
		Aggref	   *agg = (Aggref *) tle->expr;

		if (out->is_key || !IsA(agg, Aggref))
			continue;
		/* the planner's transition type must be the one built here */
		if (!DO_AGGSPLIT_SKIPFINAL(agg->aggsplit) ||
			state_type(&prog->aggs[out->index]) != agg->aggtype)
		{
			*why = psprintf("%s(%s) has a transition state the scan does not build",
							get_func_name(agg->aggfnoid),
							agg->aggstar ? "*" : format_type_be(prog->aggs[out->index].argtype));
			return false;
		}
	}
	return true;
}

/* ----------------------------------------------------------------
 * Execution: the states
 * ----------------------------------------------------------------
 */

bool
pf_agg_partial_state(PfAggScanState *st, uint32 g, int a, Datum *v,
					 bool *isnull)
{
	PfAggDef   *def = &st->prog->aggs[a];
	PfAggState *s = &st->states[(size_t) g * st->prog->naggs + a];
	Datum		elems[3];

	if (def->kind != PF_AGG_AVG)
		return false;
	*isnull = false;
	if (def->argtype == FLOAT4OID || def->argtype == FLOAT8OID)
	{
		/* float8_accum's {N, Sx, Sxx}, initially {0, 0, 0} */
		elems[0] = Float8GetDatum((double) s->count);
		elems[1] = Float8GetDatum(s->count > 0 ? s->fsum : 0.0);
		elems[2] = Float8GetDatum(s->count > 0 ? s->sxx : 0.0);
		*v = PointerGetDatum(construct_array(elems, 3, FLOAT8OID, sizeof(float8),
											 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	}
	else
	{
		/* int4_avg_accum's {N, sum}: the sum wraps as its int64 does */
		elems[0] = Int64GetDatum(s->count);
		elems[1] = Int64GetDatum((int64) (uint64) s->isum);
		*v = PointerGetDatum(construct_array(elems, 2, INT8OID, sizeof(int64),
											 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	}
	return true;
}

/* ----------------------------------------------------------------
 * Execution: sharing the units between participants
 * ----------------------------------------------------------------
 */

/*
 * The flat (file, unit) list in plan order: every participant builds the
 * same one from the plan, so an entry's number names the same unit in all.
 */
static void
build_work_list(PfAggScanState *st)
{
	int64		n = 0;
	ListCell   *lf;

	if (st->work_file != NULL)
		return;
	foreach(lf, st->rowgroups)
		n += list_length((List *) lfirst(lf));
	st->work_file = MemoryContextAlloc(st->cxt, sizeof(int) * Max(n, 1));
	st->work_unit = MemoryContextAlloc(st->cxt, sizeof(int) * Max(n, 1));
	st->nwork = 0;
	foreach(lf, st->rowgroups)
	{
		ListCell   *lu;

		foreach(lu, (List *) lfirst(lf))
		{
			st->work_file[st->nwork] = foreach_current_index(lf);
			st->work_unit[st->nwork++] = lfirst_int(lu);
		}
	}
}

/* An exchange plan's part of the DSM follows (agg_exchange.c). */
static struct PfAggXchgShared *
xchg_shared(PfAggScanState *st, void *coordinate)
{
	if (st->xchg_participants <= 0)
		return NULL;
	return (struct PfAggXchgShared *) ((char *) coordinate +
									   MAXALIGN(sizeof(PfAggParallel)));
}

Size
pf_agg_partial_estimate_dsm(ForeignScanState *node)
{
	PfAggScanState *st = (PfAggScanState *) node->fdw_state;

	if (st->xchg_participants > 0)
		return add_size(MAXALIGN(sizeof(PfAggParallel)),
						pf_agg_xchg_shared_size(st->xchg_participants));
	return sizeof(PfAggParallel);
}

void
pf_agg_partial_init_dsm(ForeignScanState *node, ParallelContext *pcxt,
						void *coordinate)
{
	PfAggScanState *st = (PfAggScanState *) node->fdw_state;
	PfAggParallel *shared = (PfAggParallel *) coordinate;

	memset(shared, 0, sizeof(PfAggParallel));
	pg_atomic_init_u64(&shared->next_work, 0);
	pg_atomic_init_u32(&shared->next_part, 0);
	SpinLockInit(&shared->mutex);
	st->shared = shared;
	st->xshared = xchg_shared(st, coordinate);
	if (st->xshared != NULL)
		pf_agg_xchg_init_shared(st->xshared, st->xchg_participants, pcxt->seg);
	build_work_list(st);
}

/*
 * In a worker, add this participant's EXPLAIN ANALYZE counters to the
 * shared ones; in the leader, move the workers' totals into its own.
 */
static void
fold_counters(PfAggScanState *st)
{
	PfAggParallel *sh = st->shared;
	bool		worker = IsParallelWorker();

#define PF_FOLD(to, from) \
	do { (to) += (from); (from) = 0; } while (0)

	SpinLockAcquire(&sh->mutex);
	if (worker)
	{
		PF_FOLD(sh->rowgroups_read, st->rowgroups_read);
		PF_FOLD(sh->rowgroups_stats, st->rowgroups_stats);
		PF_FOLD(sh->rowgroups_skipped, st->rowgroups_skipped);
		PF_FOLD(sh->groups_total, st->groups_total);
		PF_FOLD(sh->bytes_read, st->sscan.bytes_read);
		PF_FOLD(sh->rows_skipped_by_index, st->sscan.rows_skipped_by_index);
		PF_FOLD(sh->remote.requests, st->sscan.remote_stats.requests);
		PF_FOLD(sh->remote.bytes_fetched, st->sscan.remote_stats.bytes_fetched);
		INSTR_TIME_ADD(sh->decode_time, st->sscan.decode_time);
		INSTR_TIME_SET_ZERO(st->sscan.decode_time);
		sh->peak_memory = Max(sh->peak_memory, st->peak_memory);
		pf_agg_pgexpr_move_counts(st, &sh->computed_values,
								  &sh->computed_evaluations, true);
	}
	else
	{
		PF_FOLD(st->rowgroups_read, sh->rowgroups_read);
		PF_FOLD(st->rowgroups_stats, sh->rowgroups_stats);
		PF_FOLD(st->rowgroups_skipped, sh->rowgroups_skipped);
		PF_FOLD(st->groups_total, sh->groups_total);
		PF_FOLD(st->sscan.bytes_read, sh->bytes_read);
		PF_FOLD(st->sscan.rows_skipped_by_index, sh->rows_skipped_by_index);
		st->sscan.remote |= sh->remote.requests > 0;
		PF_FOLD(st->sscan.remote_stats.requests, sh->remote.requests);
		PF_FOLD(st->sscan.remote_stats.bytes_fetched, sh->remote.bytes_fetched);
		INSTR_TIME_ADD(st->sscan.decode_time, sh->decode_time);
		INSTR_TIME_SET_ZERO(sh->decode_time);
		st->peak_memory = Max(st->peak_memory, sh->peak_memory);
		pf_agg_pgexpr_move_counts(st, &sh->computed_values,
								  &sh->computed_evaluations, false);
	}
	SpinLockRelease(&sh->mutex);
#undef PF_FOLD
}

/*
 * Before the DSM goes away (a Limit may shut the subtree down early, and
 * the executor shuts the plan down again at the end): report once, and
 * never touch the DSM afterwards; a rescan hands over the new one.
 */
void
pf_agg_partial_shutdown(ForeignScanState *node)
{
	PfAggScanState *st = (PfAggScanState *) node->fdw_state;

	if (st == NULL || st->shared == NULL)
		return;
	fold_counters(st);
	pf_agg_xchg_fold(st);
	st->shared = NULL;
	st->xshared = NULL;
	st->xchg_attached = false;
}

/* Before a rescan of the Gather: every unit is to be read again. */
void
pf_agg_partial_reinit_dsm(ForeignScanState *node, void *coordinate)
{
	PfAggScanState *st = (PfAggScanState *) node->fdw_state;
	PfAggParallel *shared = (PfAggParallel *) coordinate;

	/* the previous round's workers have finished: keep what they counted */
	st->shared = shared;
	fold_counters(st);
	pg_atomic_write_u64(&shared->next_work, 0);
	pg_atomic_write_u32(&shared->next_part, 0);
	st->xshared = xchg_shared(st, coordinate);
	st->xchg_attached = false;
	if (st->xshared != NULL)
	{
		pf_agg_xchg_fold(st);
		pf_agg_xchg_reinit_shared(st->xshared);
	}
}

void
pf_agg_partial_init_worker(ForeignScanState *node, void *coordinate)
{
	PfAggScanState *st = (PfAggScanState *) node->fdw_state;

	st->shared = (PfAggParallel *) coordinate;
	st->xshared = xchg_shared(st, coordinate);
	build_work_list(st);
}

int64
pf_agg_partial_claim(PfAggScanState *st)
{
	uint64		work = pg_atomic_fetch_add_u64(&st->shared->next_work, 1);

	return work < (uint64) st->nwork ? (int64) work : -1;
}

/* ----------------------------------------------------------------
 * Execution: partitioned plans
 * ----------------------------------------------------------------
 */

/*
 * Partitions are claimed, not assigned by worker number: a worker that
 * did not start leaves its partition to whoever asks next (the leader at
 * the latest), so every partition is aggregated exactly once.
 */
int
pf_agg_partial_claim_partition(PfAggScanState *st)
{
	uint32		part = pg_atomic_fetch_add_u32(&st->shared->next_part, 1);

	return part < (uint32) st->nparts ? (int) part : -1;
}

/* The hash of one stored key value: equal values hash equally in every file. */
static inline uint32
key_value_hash(const PfAggCol *col, const PqColumnBatch *b, uint32 r)
{
	if (b->is_null && b->is_null[r])
		return 0x9e3779b9;
	switch (col->kind)
	{
		case PF_COL_TEXT:
			{
				const CdcByteView *v = &((const CdcByteView *) b->values)[r];

				return pf_agg_hash_text(v->ptr, v->len);
			}
		case PF_COL_BOOL:
			return hash_int64(((const uint8 *) b->values)[r] != 0);
		case PF_COL_F4:
			return hash_int64(float_key_bits(((const float4 *) b->values)[r]));
		case PF_COL_F8:
			return hash_int64(float_key_bits(((const float8 *) b->values)[r]));
		default:
			return hash_int64(col->phys == PQ_INT32 ?
							  ((const int32 *) b->values)[r] :
							  ((const int64 *) b->values)[r]);
	}
}

uint32
pf_agg_partial_keep_partition(PfAggScanState *st, const uint32 *sel, uint32 n,
							  uint32 *out)
{
	PfAggProgram *prog = st->prog;
	uint32	   *h = st->row_hash;
	uint64		nparts = (uint64) st->nparts;
	uint32		m = 0;

	/*
	 * Only the stored keys: rows of one group agree on them too, and the
	 * computed ones are evaluated after this, for the rows kept only.
	 */
	memset(h, 0, sizeof(uint32) * n);
	for (int k = 0; k < prog->nkeys; k++)
	{
		const PfAggCol *col = &prog->cols[prog->key_cols[k]];
		const PqColumnBatch *b;

		if (prog->key_cols[k] >= prog->ncols)
			continue;
		b = col_batch(st, col);
		for (uint32 i = 0; i < n; i++)
			h[i] = hash_combine(h[i], key_value_hash(col, b, sel[i]));
	}

	/* the high bits of the mixed hash choose the partition */
	for (uint32 i = 0; i < n; i++)
		if ((int) (((uint64) murmurhash32(h[i]) * nparts) >> 32) == st->part)
			out[m++] = sel[i];
	return m;
}
