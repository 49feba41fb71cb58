/*-------------------------------------------------------------------------
 *
 * agg_exchange.c
 *	  Aggregate pushdown in parallel with an exchange: the participants
 *	  scan disjoint units once and hand each filtered row to whoever
 *	  aggregates its key hash's partition.
 *
 * Phase 1 (scan): each participant claims units from the counter the
 * partial path uses (agg_partial.c), evaluates the filters once and writes
 * each surviving row's group keys and aggregate arguments, in agg_spill.c's
 * block format, to its own file of the row's partition: 2^PF_XCHG_BITS
 * partitions chosen by the low bits of the key hash, whatever the number of
 * participants, in a SharedFileSet of the plan's DSM.  Nothing is returned
 * before the barrier, so no participant can block on a full tuple queue
 * while another waits for it.
 *
 * Barrier: dynamic participation.  A participant attaches when it starts;
 * one that never starts blocks nobody, and one that arrives after the scan
 * is over goes straight to phase 2.
 *
 * Phase 2 (aggregate): participants claim partitions from a counter, read
 * that partition's file of every participant and aggregate them as a
 * spilled partition is aggregated (agg_exec.c; one past hash_mem spills
 * again into private files, on the hash bits after PF_XCHG_BITS).  Groups
 * of different partitions never meet, so every participant returns whole
 * groups: a Gather above simply collects them, or, with a pushed top-N,
 * each returns its own top rows sorted for a Gather Merge and a Limit.
 *
 * A rescan (the Gather under a nested loop) resets the barrier and the
 * counters and starts a new generation of file names; the previous
 * generation's files are deleted then.
 *
 * IDENTIFICATION
 *	  src/fdw/agg_exchange.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "port/atomics.h"
#include "storage/barrier.h"
#include "storage/buffile.h"
#include "storage/sharedfileset.h"
#include "utils/guc.h"
#include "utils/wait_event.h"

#include "fdw/agg_int.h"

#define PF_XCHG_PARTS		(1 << PF_XCHG_BITS)

/* Barrier phases. */
#define PF_XCHG_PHASE_SCAN		0
#define PF_XCHG_PHASE_AGGREGATE	1

int			pf_xchg_mode = PF_XCHG_AUTO;

/* The exchange's part of the DSM. */
typedef struct PfAggXchgShared
{
	Barrier		barrier;
	pg_atomic_uint32 next_part; /* phase 2: the next partition to claim */
	int			generation;		/* of the file names: one per (re)scan */
	int			participants;	/* slots in rows[] */
	pg_atomic_uint64 rows_written;	/* EXPLAIN ANALYZE */
	pg_atomic_uint64 bytes_written;
	SharedFileSet fileset;
	/* rows written by participant i to partition p: rows[i * PARTS + p] */
	int64		rows[FLEXIBLE_ARRAY_MEMBER];
} PfAggXchgShared;

static const struct config_enum_entry xchg_modes[] = {
	{"off", PF_XCHG_OFF, false},
	{"auto", PF_XCHG_AUTO, false},
	{"force", PF_XCHG_FORCE, false},
	{NULL, 0, false}
};

void
pf_agg_xchg_define_guc(void)
{
	DefineCustomEnumVariable("parquet_fdw.exchange_aggregate",
							 "Computes pushed-down GROUP BY aggregates in parallel with an exchange.",
							 "auto: when its cost wins; force: whenever the plan is parallel (for tests); off: never (see agg_exchange.c).",
							 &pf_xchg_mode,
							 PF_XCHG_AUTO,
							 xchg_modes,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
}

Size
pf_agg_xchg_shared_size(int participants)
{
	return add_size(offsetof(PfAggXchgShared, rows),
					mul_size(sizeof(int64), mul_size(participants, PF_XCHG_PARTS)));
}

void
pf_agg_xchg_init_shared(PfAggXchgShared *x, int participants, dsm_segment *seg)
{
	memset(x, 0, pf_agg_xchg_shared_size(participants));
	BarrierInit(&x->barrier, 0);
	pg_atomic_init_u32(&x->next_part, 0);
	pg_atomic_init_u64(&x->rows_written, 0);
	pg_atomic_init_u64(&x->bytes_written, 0);
	x->participants = participants;
	/* the files go when the DSM does (workers never outlive it) */
	SharedFileSetInit(&x->fileset, seg);
}

/* The name of participant i's file of partition p, generation gen. */
static void
file_name(char *name, size_t size, int gen, int i, int p)
{
	snprintf(name, size, "pfx%d.%d.%d", gen, i, p);
}

void
pf_agg_xchg_reinit_shared(PfAggXchgShared *x)
{
	char		name[MAXPGPATH];

	/* the previous round's workers are gone: its files are no one's */
	for (int i = 0; i < x->participants; i++)
		for (int p = 0; p < PF_XCHG_PARTS; p++)
			if (x->rows[i * PF_XCHG_PARTS + p] > 0)
			{
				file_name(name, sizeof(name), x->generation, i, p);
				BufFileDeleteFileSet(&x->fileset.fs, name, true);
			}
	memset(x->rows, 0, sizeof(int64) * x->participants * PF_XCHG_PARTS);
	x->generation++;
	BarrierInit(&x->barrier, 0);
	pg_atomic_write_u32(&x->next_part, 0);
}

/* This participant's slot: the leader's 0, worker n's n + 1. */
static int
participant(PfAggScanState *st)
{
	int			i = IsParallelWorker() ? ParallelWorkerNumber + 1 : 0;

	if (i >= st->xshared->participants)
		elog(ERROR, "parquet_fdw: exchange participant %d of %d planned",
			 i, st->xshared->participants);
	return i;
}

bool
pf_agg_xchg_scan_begin(PfAggScanState *st)
{
	PfAggXchgShared *x = st->xshared;
	char		prefix[MAXPGPATH];
	int			phase;

	phase = BarrierAttach(&x->barrier);
	st->xchg_attached = true;
	if (phase != PF_XCHG_PHASE_SCAN)
		return false;			/* the scan is over: aggregate only */
	snprintf(prefix, sizeof(prefix), "pfx%d.%d", x->generation, participant(st));
	st->xchg_out = pf_agg_spill_begin_shared(st, PF_XCHG_BITS, &x->fileset.fs,
											 prefix);
	return true;
}

void
pf_agg_xchg_scan_end(PfAggScanState *st)
{
	PfAggXchgShared *x = st->xshared;
	int64		bytes;
	int64	   *rows = &x->rows[participant(st) * PF_XCHG_PARTS];
	int64		total = 0;

	pf_agg_spill_finish_shared(st, st->xchg_out, rows, &bytes);
	st->xchg_out = NULL;
	for (int p = 0; p < PF_XCHG_PARTS; p++)
		total += rows[p];
	pg_atomic_fetch_add_u64(&x->rows_written, (uint64) total);
	pg_atomic_fetch_add_u64(&x->bytes_written, (uint64) bytes);
	/* the barrier orders the row counts before their readers */
	(void) BarrierArriveAndWait(&x->barrier, PG_WAIT_EXTENSION);
}

List *
pf_agg_xchg_claim(PfAggScanState *st, bool *done)
{
	PfAggXchgShared *x = st->xshared;
	uint32		p;
	List	   *parts = NIL;
	char		name[MAXPGPATH];

	*done = false;
	if (x == NULL || !st->xchg_attached)
	{
		*done = true;
		return NIL;
	}
	p = pg_atomic_fetch_add_u32(&x->next_part, 1);
	if (p >= PF_XCHG_PARTS)
	{
		/* nothing left to claim: nobody waits for this participant */
		BarrierDetach(&x->barrier);
		st->xchg_attached = false;
		*done = true;
		return NIL;
	}
	for (int i = 0; i < x->participants; i++)
	{
		int64		rows = x->rows[i * PF_XCHG_PARTS + p];

		if (rows == 0)
			continue;
		file_name(name, sizeof(name), x->generation, i, p);
		parts = lappend(parts, pf_agg_spill_open_shared(st, &x->fileset.fs, name,
														rows, PF_XCHG_BITS));
	}
	return parts;
}

void
pf_agg_xchg_fold(PfAggScanState *st)
{
	PfAggXchgShared *x = st->xshared;

	if (x == NULL || IsParallelWorker())
		return;
	st->xchg_rows += (int64) pg_atomic_exchange_u64(&x->rows_written, 0);
	st->xchg_bytes += (int64) pg_atomic_exchange_u64(&x->bytes_written, 0);
}

void
pf_agg_xchg_explain(PfAggScanState *st, ExplainState *es)
{
	if (st->xchg_participants <= 0)
		return;
	if (!es->analyze)
		ExplainPropertyText("Exchange", psprintf("%d partitions", PF_XCHG_PARTS), es);
	else
		ExplainPropertyText("Exchange",
							psprintf("%d partitions, " INT64_FORMAT " rows, %.1f MB",
									 PF_XCHG_PARTS, st->xchg_rows,
									 (double) st->xchg_bytes / (1024.0 * 1024.0)),
							es);
}
