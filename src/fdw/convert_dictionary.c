/*-------------------------------------------------------------------------
 *
 * convert_dictionary.c
 *	  Flat columns read from dictionary-encoded BYTE_ARRAY chunks: each
 *	  dictionary entry is converted once per row group and every row that
 *	  references it gets the same by-reference Datum.
 *
 * Copying the value per row would let a tiny file cost unbounded memory:
 * one 100 MB string in the dictionary, referenced by N rows, became N
 * copies of 100 MB in one batch.  Shared, it costs 100 MB once, and a
 * column of a few distinct strings stops copying them row after row.
 *
 * The Datums live in the context the source gives when it opens a row
 * group (pf_converter_share_dictionary) and die with it; the column
 * reader numbers a chunk's entries (PqColumnBatch.dict_index) for as long
 * as the row group is open, so an entry's number is its key here.
 *
 * IDENTIFICATION
 *	  src/fdw/convert_dictionary.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "fdw/convert_internal.h"

/* Entries of the shared table: not converted yet, or converted. */
#define ENTRY_NEW		0
#define ENTRY_PENDING	1
#define ENTRY_DONE		2

void
pf_converter_share_dictionary(PfConverter *conv, MemoryContext cxt)
{
	conv->share_cxt = cxt;
	conv->share_count = 0;
	conv->share_values = NULL;
	conv->share_nulls = NULL;
	conv->share_state = NULL;
	conv->share_scratch = NULL;
	conv->share_scratch_rows = 0;
}

/*
 * While a group of values is converted: the error context names the row of
 * the batch, not the value's place in the group (the failed slot holds
 * the group index when the error is reported; outer callbacks read it).
 */
typedef struct GroupRows
{
	const uint32 *rows;
	uint32		n;
} GroupRows;

static void
group_rows_callback(void *arg)
{
	GroupRows  *g = (GroupRows *) arg;
	int64	   *slot = pf_conv_failed_slot();

	if (*slot >= 0 && *slot < g->n)
		*slot = g->rows[*slot];
}

/*
 * Convert the n values views[0..n) (rows rows[] of the batch) to the
 * declared type into values[0..n), nulls[0..n), in the current context.
 */
static void
convert_group(PfConverter *conv, const CdcByteView *views, const uint32 *rows,
			  uint32 n, Datum *values, bool *nulls)
{
	const PfScalar *sc = &conv->scalars[0];
	ErrorContextCallback errcb;
	GroupRows	g = {rows, n};

	if (n == 0)
		return;
	errcb.callback = group_rows_callback;
	errcb.arg = &g;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	pf_conv_track_values(views, sizeof(CdcByteView), NULL, n);
	sc->fill(sc, views, NULL, n, values, nulls, 1);
	pf_conv_track_values(NULL, 0, NULL, 0);
	pf_cast_apply(conv->cast, values, nulls, n, 1, pf_conv_failed_slot());

	error_context_stack = errcb.previous;
}

/* Make the shared table fit the chunk's dictionary. */
static void
share_table_fit(PfConverter *conv, uint32 count)
{
	if (conv->share_state != NULL && conv->share_count == count)
		return;
	/* a new dictionary: the old entries stay in share_cxt until it resets */
	conv->share_values = MemoryContextAllocHuge(conv->share_cxt,
												sizeof(Datum) * Max(count, 1));
	conv->share_nulls = MemoryContextAllocHuge(conv->share_cxt,
											   sizeof(bool) * Max(count, 1));
	conv->share_state = MemoryContextAllocHuge(conv->share_cxt,
											   sizeof(uint8) * Max(count, 1));
	memset(conv->share_state, ENTRY_NEW, sizeof(uint8) * Max(count, 1));
	conv->share_count = count;
}

bool
pf_fill_scalar_shared(PfConverter *conv, const PqColumnBatch *b,
					  uint32 num_rows, Datum *values, bool *nulls, int stride)
{
	const CdcByteView *views = (const CdcByteView *) b->values;
	const uint32 *idx = b->dict_index;
	CdcByteView *new_views;
	uint32	   *new_rows;
	uint32	   *new_entries;
	uint32		nnew = 0;
	CdcByteView *plain_views;
	uint32	   *plain_rows;
	uint32		nplain = 0;
	Datum	   *tmp_values;
	bool	   *tmp_nulls;

	if (conv->share_cxt == NULL || idx == NULL ||
		b->value_width != sizeof(CdcByteView))
		return false;
	share_table_fit(conv, b->dictionary_count);

	/* scratch for the batch, kept for the row group (late conversion asks row by row) */
	if (conv->share_scratch_rows < num_rows)
	{
		uint32		cap = Max(num_rows, 64);
		Size		per_row = 2 * sizeof(CdcByteView) + 3 * sizeof(uint32) +
			sizeof(Datum) + sizeof(bool);

		conv->share_scratch = MemoryContextAllocHuge(conv->share_cxt,
													 per_row * cap + 16);
		conv->share_scratch_rows = cap;
	}
	{
		char	   *p = conv->share_scratch;
		uint32		cap = conv->share_scratch_rows;

		new_views = (CdcByteView *) p;
		plain_views = new_views + cap;
		tmp_values = (Datum *) (plain_views + cap);
		new_rows = (uint32 *) (tmp_values + cap);
		new_entries = new_rows + cap;
		plain_rows = new_entries + cap;
		tmp_nulls = (bool *) (plain_rows + cap);
	}

	/* the entries this batch meets first, and values of plain pages */
	for (uint32 i = 0; i < num_rows; i++)
	{
		uint32		k = idx[i];

		if (b->is_null != NULL && b->is_null[i])
			continue;
		if (k == PQ_NOT_FROM_DICTIONARY || k >= conv->share_count)
		{
			plain_views[nplain] = views[i];
			plain_rows[nplain++] = i;
		}
		else if (conv->share_state[k] == ENTRY_NEW)
		{
			conv->share_state[k] = ENTRY_PENDING;
			new_views[nnew] = views[i];
			new_rows[nnew] = i;
			new_entries[nnew++] = k;
		}
	}

	if (nnew > 0)
	{
		/*
		 * In share_cxt: a value copied once more to keep it would double
		 * the peak for the largest one (the garbage of an I/O cast, rare,
		 * stays until the row group closes).
		 */
		MemoryContext old = MemoryContextSwitchTo(conv->share_cxt);

		/* (an error ends the scan, and this converter with it) */
		convert_group(conv, new_views, new_rows, nnew, tmp_values, tmp_nulls);
		MemoryContextSwitchTo(old);
		for (uint32 j = 0; j < nnew; j++)
		{
			conv->share_values[new_entries[j]] = tmp_values[j];
			conv->share_nulls[new_entries[j]] = tmp_nulls[j];
			conv->share_state[new_entries[j]] = ENTRY_DONE;
		}
	}

	for (uint32 i = 0; i < num_rows; i++)
	{
		size_t		o = (size_t) i * stride;
		uint32		k = idx[i];

		if ((b->is_null != NULL && b->is_null[i]) ||
			k == PQ_NOT_FROM_DICTIONARY || k >= conv->share_count)
		{
			values[o] = (Datum) 0;
			nulls[o] = true;	/* plain values: set below */
			continue;
		}
		values[o] = conv->share_values[k];
		nulls[o] = conv->share_nulls[k];
	}

	/* values of pages that are not dictionary-encoded: per row, as usual */
	convert_group(conv, plain_views, plain_rows, nplain, tmp_values, tmp_nulls);
	for (uint32 j = 0; j < nplain; j++)
	{
		values[(size_t) plain_rows[j] * stride] = tmp_values[j];
		nulls[(size_t) plain_rows[j] * stride] = tmp_nulls[j];
	}

	return true;
}
