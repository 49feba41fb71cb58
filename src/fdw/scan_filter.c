/*-------------------------------------------------------------------------
 *
 * scan_filter.c
 *	  The plain scan's filters over a batch's raw values (scan_filter.h):
 *	  compiled and applied by the aggregate pushdown's code, agg_compile.c
 *	  and agg_filter.c, through a small scan state of their own whose
 *	  program has one column per filter.
 *
 * IDENTIFICATION
 *	  src/fdw/scan_filter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/agg_int.h"
#include "fdw/scan_filter.h"

struct PfScanFilters
{
	Relation	rel;
	Index		relid;
	int			nfilters;
	int			cap;
	PfAggFilter *filters;		/* filter k reads program column k */
	PfAggProgram prog;			/* cols only */
	PfAggScanState *st;			/* what pf_agg_apply_filter reads */
};

PfScanFilters *
pf_scan_filters_create(Relation rel, Index relid, uint32 max_rows)
{
	PfScanFilters *fs = palloc0(sizeof(PfScanFilters));

	fs->rel = rel;
	fs->relid = relid;
	fs->cap = 4;
	fs->filters = palloc0(sizeof(PfAggFilter) * fs->cap);
	fs->prog.cols = palloc0(sizeof(PfAggCol) * fs->cap);
	fs->st = palloc0(sizeof(PfAggScanState));
	fs->st->prog = &fs->prog;
	fs->st->cxt = CurrentMemoryContext;
	fs->st->batches = palloc0(sizeof(PqColumnBatch) * fs->cap);
	/* every-row selections read zeros[r]; IN filters use row_hash */
	fs->st->zeros = palloc0(Max(max_rows, 1));
	fs->st->row_hash = palloc0(sizeof(uint32) * Max(max_rows, 1));
	fs->st->rowgroups_read = -1;
	return fs;
}

bool
pf_scan_filters_add(PfScanFilters *fs, Expr *clause, AttrNumber *attnum)
{
	PfCompile	c;
	PfAggFilter f;
	PfAggCol   *col;
	int			k = fs->nfilters;

	memset(&c, 0, sizeof(c));
	memset(&f, 0, sizeof(f));
	c.rel = fs->rel;
	c.relid = fs->relid;
	/* a value known only at each (re)scan stays on the row path */
	if (!pf_agg_compile_filter(&c, clause, &f) || f.param_expr != NULL ||
		f.col != 0 || list_length(c.cols) != 1 || c.computed != NIL)
		return false;
	col = (PfAggCol *) linitial(c.cols);
	if (col->datum_only)
		return false;
	if (k == fs->cap)
	{
		fs->cap *= 2;
		fs->filters = repalloc(fs->filters, sizeof(PfAggFilter) * fs->cap);
		fs->prog.cols = repalloc(fs->prog.cols, sizeof(PfAggCol) * fs->cap);
		fs->st->batches = repalloc(fs->st->batches,
								   sizeof(PqColumnBatch) * fs->cap);
	}
	fs->prog.cols[k] = *col;
	fs->prog.cols[k].slot = k;
	fs->prog.cols[k].missing = false;
	fs->filters[k] = f;
	fs->filters[k].col = k;
	for (int v = 0; v < f.nvals; v++)
		f.vals[v].col = k;		/* IN: the elements' filters read it too */
	fs->nfilters = k + 1;
	fs->prog.ncols = fs->nfilters;
	*attnum = col->attnum;
	return true;
}

bool
pf_scan_filters_fit(PfScanFilters *fs, int k, const PqFileMeta *meta,
					const PqSchemaNode *field)
{
	Assert(k >= 0 && k < fs->nfilters);
	/* an absent column reads as NULL: left to the row path */
	return field != NULL && pf_agg_field_fits(meta, field, &fs->prog.cols[k]);
}

uint32
pf_scan_filters_select(PfScanFilters *fs, int k, const PqColumnBatch *b,
					   int64 unit, const uint32 *in, uint32 n, uint32 *out)
{
	Assert(k >= 0 && k < fs->nfilters);
	fs->st->batches[k] = *b;
	fs->st->rowgroups_read = unit;
	return pf_agg_apply_filter(fs->st, &fs->filters[k], in, n, out);
}
