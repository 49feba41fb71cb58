/*-------------------------------------------------------------------------
 *
 * convert_list.c
 *	  A LIST of scalars to one PostgreSQL array per row: the element values
 *	  converted at once, then the Dremel levels walked row by row.
 *
 * IDENTIFICATION
 *	  src/fdw/convert_list.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/array.h"

#include "fdw/convert_internal.h"

/* The batch whose element values are being cast, to name a failing row. */
typedef struct PfListCastState
{
	const PfConverter *conv;
	const PqColumnBatch *batch;
	int64		failed_value;	/* index of the failing element, or -1 */
} PfListCastState;

/*
 * An element failed its cast: find the row holding it (the row count at
 * its level entry, elements being the entries defined down to the leaf),
 * so the scan's error context can name that row.  Errors are rare, so the
 * levels are walked only then.
 */
static void
list_cast_error_callback(void *arg)
{
	PfListCastState *st = (PfListCastState *) arg;
	const PqColumnBatch *b = st->batch;
	int64		row = -1;
	int64		vi = 0;

	if (st->failed_value < 0)
		return;
	for (uint32 pos = 0; pos < b->num_levels; pos++)
	{
		if (b->rep_levels[pos] == 0)
			row++;
		if (b->def_levels[pos] >= st->conv->leaf_def && vi++ == st->failed_value)
		{
			*pf_conv_failed_slot() = row;
			return;
		}
	}
}

/* Cast every element value of the batch at once. */
static void
cast_elements(PfConverter *conv, const PqColumnBatch *b, Datum *ev, bool *en,
			  uint32 nv)
{
	PfListCastState st = {conv, b, -1};

	if (conv->elem_cast == NULL)
		return;
	pf_cast_apply_in_context(conv->elem_cast, ev, en, nv, 1, &st.failed_value,
							 list_cast_error_callback, &st);
}

void
pf_fill_list_column(PfConverter *conv, const PqColumnBatch *batches,
					uint32 num_rows, Datum *values, bool *nulls, int stride)
{
	const PqColumnBatch *b = &batches[0];
	const PfScalar *sc = &conv->scalars[0];
	uint32		nv = b->num_values;
	uint32		nlev = b->num_levels;
	const int16 *def = b->def_levels;
	const int16 *rep = b->rep_levels;
	Datum	   *ev = palloc(sizeof(Datum) * (nv + 1));
	bool	   *en = palloc(sizeof(bool) * (nv + 1));
	Datum	   *buf = palloc(sizeof(Datum) * (nlev + 1));
	bool	   *bnull = palloc(sizeof(bool) * (nlev + 1));
	uint32		pos = 0;
	uint32		vi = 0;
	int			lbs = 1;

	if (unlikely(def == NULL || rep == NULL))
		pf_conv_levels_corrupt(conv->column_name);

	/* convert every element value at once */
	sc->fill(sc, b->values, NULL, nv, ev, en, 1);
	cast_elements(conv, b, ev, en, nv);

	for (uint32 r = 0; r < num_rows; r++)
	{
		size_t		k = (size_t) r * stride;
		int16		d;
		int			count = 0;

		if (unlikely(pos >= nlev || rep[pos] != 0))
			pf_conv_levels_corrupt(conv->column_name);
		d = def[pos];
		if (d < conv->list_def)
		{
			values[k] = (Datum) 0;
			nulls[k] = true;
			pos++;
			continue;
		}
		if (d < conv->rep_def)
		{
			values[k] = PointerGetDatum(construct_empty_array(conv->elem_typid));
			nulls[k] = false;
			pos++;
			continue;
		}
		do
		{
			d = def[pos];
			if (d >= conv->leaf_def)
			{
				if (unlikely(vi >= nv))
					pf_conv_levels_corrupt(conv->column_name);
				buf[count] = ev[vi];
				bnull[count] = en[vi];
				vi++;
			}
			else
			{
				buf[count] = (Datum) 0;
				bnull[count] = true;
			}
			count++;
			pos++;
		} while (pos < nlev && rep[pos] != 0);

		values[k] = PointerGetDatum(construct_md_array(buf, bnull, 1, &count, &lbs,
													   conv->elem_typid,
													   conv->elem_len,
													   conv->elem_byval,
													   conv->elem_align));
		nulls[k] = false;
	}
	pfree(ev);
	pfree(en);
	pfree(buf);
	pfree(bnull);
	pf_cast_apply(conv->cast, values, nulls, num_rows, stride,
				  pf_conv_failed_slot());
}

