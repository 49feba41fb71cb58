/*-------------------------------------------------------------------------
 *
 * analyze.c
 *	  ANALYZE of foreign tables of either format: a row sample without
 *	  decoding whole files.
 *
 * The row count comes from the files' metadata (table sources, source.h).
 * The sample comes from a budget of PF_ANALYZE_ROWS_PER_TARGET times the
 * rows ANALYZE asks for, spread over as many units (row groups, stripes)
 * as possible: each chosen unit (picked at random) gives its first
 * budget / units rows, at least PF_ANALYZE_MIN_ROWS (all of them for a
 * small table).  Those rows are decoded in file order
 * and sampled with Vitter's reservoir algorithm, as file_fdw does over a
 * whole file.  Cheap however large the table; spreading the budget matters
 * for files sorted on a column, where each row group holds a range of
 * values.
 *
 * IDENTIFICATION
 *	  src/fdw/analyze.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/table.h"
#include "commands/vacuum.h"
#include "common/pg_prng.h"
#include "foreign/fdwapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/sampling.h"

#include "fdw/parquet_fdw.h"
#include "fdw/source.h"

/* Rows decoded per sample row wanted, at most. */
#define PF_ANALYZE_ROWS_PER_TARGET	10
/* Rows read from each chosen row group, at least (fewer if it has fewer). */
#define PF_ANALYZE_MIN_ROWS			1024

/* A row group of the table: file index, row group, rows. */
typedef struct PfSampleGroup
{
	int			file;
	int			rg;
	int64		rows;
} PfSampleGroup;

/*
 * The reservoir the sampler feeds: rows
 * offered in table order, targrows of them kept by Vitter's algorithm as
 * acquire_sample_rows() does, handed back in table order.
 */
typedef struct PfSampleRow
{
	HeapTuple	tuple;
	double		position;		/* rows offered before it */
} PfSampleRow;

struct PfReservoir
{
	TupleDesc	tupdesc;
	MemoryContext tuple_cxt;	/* the caller's: where the tuples live */
	int			targrows;
	int			numrows;
	double		seen;
	double		rowstoskip;
	ReservoirStateData rstate;
	PfSampleRow *sample;
};

PfReservoir *
pf_reservoir_create(TupleDesc tupdesc, int targrows)
{
	PfReservoir *r = palloc0(sizeof(PfReservoir));

	r->tupdesc = tupdesc;
	r->tuple_cxt = CurrentMemoryContext;
	r->targrows = targrows;
	r->rowstoskip = -1;
	r->sample = palloc(sizeof(PfSampleRow) * Max(1, targrows));
	reservoir_init_selection_state(&r->rstate, targrows);
	return r;
}

void
pf_reservoir_offer(PfReservoir *r, Datum *values, bool *isnull)
{
	int			k = -1;

	if (r->numrows < r->targrows)
		k = r->numrows++;
	else
	{
		/* full: skip rows at random, then replace a random one */
		if (r->rowstoskip < 0)
			r->rowstoskip = reservoir_get_next_S(&r->rstate, r->seen, r->targrows);
		if (r->rowstoskip <= 0)
		{
			k = (int) (r->targrows * sampler_random_fract(&r->rstate.randstate));
			Assert(k >= 0 && k < r->targrows);
			heap_freetuple(r->sample[k].tuple);
		}
		r->rowstoskip -= 1;
	}
	if (k >= 0)
	{
		MemoryContext old = MemoryContextSwitchTo(r->tuple_cxt);

		r->sample[k].tuple = heap_form_tuple(r->tupdesc, values, isnull);
		r->sample[k].position = r->seen;
		MemoryContextSwitchTo(old);
	}
	r->seen += 1;
}

double
pf_reservoir_seen(const PfReservoir *r)
{
	return r->seen;
}

static int
sample_row_cmp(const void *a, const void *b)
{
	double		x = ((const PfSampleRow *) a)->position;
	double		y = ((const PfSampleRow *) b)->position;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/*
 * The sample into rows[], in table order, as acquire_sample_rows() sorts a
 * heap's by TID: ANALYZE computes a column's correlation with the physical
 * order from it.  Returns how many.
 */
int
pf_reservoir_finish(PfReservoir *r, HeapTuple *rows)
{
	qsort(r->sample, r->numrows, sizeof(PfSampleRow), sample_row_cmp);
	for (int i = 0; i < r->numrows; i++)
		rows[i] = r->sample[i].tuple;
	return r->numrows;
}

static int
sample_group_cmp(const void *a, const void *b)
{
	const PfSampleGroup *x = (const PfSampleGroup *) a;
	const PfSampleGroup *y = (const PfSampleGroup *) b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->rg < y->rg ? -1 : (x->rg > y->rg ? 1 : 0);
}

/*
 * Every non-empty unit of the table's files, with the table's total rows
 * and stored bytes.
 */
static PfSampleGroup *
table_row_groups(Relation rel, const PfSourceOps *ops, List *filenames,
				 int *ngroups, double *totalrows, double *totalbytes)
{
	PfSampleGroup *groups = NULL;
	PfSourceScan io = {0};
	int			n = 0;
	int			cap = 0;
	ListCell   *lc;

	*totalrows = 0;
	*totalbytes = 0;
	io.cxt = CurrentMemoryContext;
	foreach(lc, filenames)
	{
		PfSource   *src;

		CHECK_FOR_INTERRUPTS();
		src = ops->open((const char *) lfirst(lc), rel, &io, CurrentMemoryContext);
		for (int rg = 0; rg < src->nunits; rg++)
		{
			int64		rows = ops->unit_rows(src, rg);

			if (rows <= 0)
				continue;
			if (n == cap)
			{
				cap = Max(64, cap * 2);
				groups = groups ? repalloc_huge(groups, sizeof(PfSampleGroup) * cap)
					: palloc_extended(sizeof(PfSampleGroup) * cap, MCXT_ALLOC_HUGE);
			}
			groups[n].file = foreach_current_index(lc);
			groups[n].rg = rg;
			groups[n].rows = rows;
			n++;
			*totalrows += (double) rows;
			*totalbytes += ops->unit_bytes(src, rg);
		}
		ops->close(src);
	}
	*ngroups = n;
	return groups;
}

/*
 * AcquireSampleRowsFunc: up to targrows rows into rows[], the table's row
 * count from the footers into *totalrows (no dead rows in a file).
 */
static int
pf_acquire_sample_rows(Relation rel, int elevel, HeapTuple *rows,
					   int targrows, double *totalrows,
					   double *totaldeadrows)
{
	PfTableOptions *opts = pf_get_table_options(RelationGetRelid(rel));
	const PfSourceOps *ops = pf_table_source(RelationGetRelid(rel));
	TupleDesc	tupdesc = RelationGetDescr(rel);
	List	   *filenames = pf_table_files(opts, NULL, NULL, NULL);
	List	   *attnos = NIL;
	List	   *rowgroups = NIL;
	PfSampleGroup *groups;
	int			ngroups;
	int			nchosen;
	double		totalbytes;
	double		budget;
	double		per_group;
	double		chosen_rows = 0;
	int			numrows;
	PfReservoir *reservoir;
	PfScanState *scan;
	Datum	   *values;
	bool	   *isnull;

	*totaldeadrows = 0;
	groups = table_row_groups(rel, ops, filenames, &ngroups, totalrows,
							  &totalbytes);

	/*
	 * Pick row groups at random (a partial Fisher-Yates shuffle) until the
	 * rows to read from them, per_group at most from each, fill the budget;
	 * then read them in file order.
	 */
	budget = (double) targrows * PF_ANALYZE_ROWS_PER_TARGET;
	per_group = Max(PF_ANALYZE_MIN_ROWS, ceil(budget / Max(1, ngroups)));
	for (nchosen = 0; nchosen < ngroups && chosen_rows < budget; nchosen++)
	{
		int			j = nchosen +
			(int) pg_prng_uint64_range(&pg_global_prng_state, 0,
									   ngroups - 1 - nchosen);
		PfSampleGroup tmp = groups[nchosen];

		groups[nchosen] = groups[j];
		groups[j] = tmp;
		chosen_rows += Min((double) groups[nchosen].rows, per_group);
	}
	if (nchosen > 0)
		qsort(groups, nchosen, sizeof(PfSampleGroup), sample_group_cmp);
	for (int f = 0; f < list_length(filenames); f++)
	{
		List	   *rgs = NIL;

		for (int i = 0; i < nchosen; i++)
			if (groups[i].file == f)
				rgs = lappend_int(rgs, groups[i].rg);
		rowgroups = lappend(rowgroups, rgs);
	}

	for (int i = 0; i < tupdesc->natts; i++)
		if (!TupleDescAttr(tupdesc, i)->attisdropped)
			attnos = lappend_int(attnos, TupleDescAttr(tupdesc, i)->attnum);

	values = palloc(sizeof(Datum) * Max(1, tupdesc->natts));
	isnull = palloc(sizeof(bool) * Max(1, tupdesc->natts));
	reservoir = pf_reservoir_create(tupdesc, targrows);
	scan = pf_scan_open(rel, ops, filenames, rowgroups, attnos, (int64) per_group,
						CurrentMemoryContext);
	while (pf_scan_next(scan, values, isnull, tupdesc->natts))
	{
		pf_analyze_delay_point();
		pf_reservoir_offer(reservoir, values, isnull);
	}
	pf_scan_close(scan);
	numrows = pf_reservoir_finish(reservoir, rows);

	ereport(elevel,
			(errmsg("\"%s\": read %d of %d %ss, %.0f of %.0f rows; %d rows in sample",
					RelationGetRelationName(rel), nchosen, ngroups, ops->unit_noun,
					pf_reservoir_seen(reservoir), *totalrows, numrows)));
	return numrows;
}

/*
 * pfAnalyzeForeignTable
 *		ANALYZE is supported: the sampler above, the stored size of the
 *		files' units as the page count.
 */
bool
pfAnalyzeForeignTable(Relation relation, AcquireSampleRowsFunc *func,
					  BlockNumber *totalpages)
{
	PfTableOptions *opts = pf_get_table_options(RelationGetRelid(relation));
	const PfSourceOps *ops = pf_table_source(RelationGetRelid(relation));
	List	   *filenames = pf_table_files(opts, NULL, NULL, NULL);
	int			ngroups;
	double		totalrows;
	double		totalbytes;

	(void) table_row_groups(relation, ops, filenames, &ngroups, &totalrows,
							&totalbytes);
	*totalpages = (BlockNumber) Min(ceil(totalbytes / BLCKSZ),
									(double) MaxBlockNumber);
	*func = pf_acquire_sample_rows;
	return true;
}
