/*-------------------------------------------------------------------------
 *
 * source_parquet.c
 *	  Parquet files as a table source (source.h): units are row groups.
 *
 * Binding a file matches each column to a top-level field and, for
 * reading, builds the column's converter and gives every leaf the
 * converters read one slot, so a leaf two columns share is decoded once.
 * A unit opens a column reader per slot; read() decodes a batch of every
 * slot and convert() turns a column's leaves' batches into Datums (a flat
 * leaf's rows a few at a time, for late conversion).  A column the engine
 * defers (late materialization) is left out of read(): its reader stays
 * behind and decodes only the rows convert() asks for, skipping to them,
 * so pages no selected row is in are not even decompressed.
 *
 * Row groups are ruled out by chunk statistics, Bloom filters and
 * dictionaries (prune.c); within a row group the page index leaves the
 * row ranges some row of which may match, and the readers skip the rest.
 *
 * IDENTIFICATION
 *	  src/fdw/source_parquet.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "fdw/parquet_fdw.h"
#include "fdw/source.h"
#include "common/buffer_pool.h"

/*
 * Readahead of a remote file: the next row groups the scan will open, at
 * most this many and this many bytes of their read columns, are fetched in
 * the background, each row group its own set of concurrent requests, while
 * the open one decodes.  Opening a row group waits for its own set alone
 * and tops the window up behind it, so the store's latency is hidden
 * behind decoding all along, not paid at every batch's boundary.  The
 * window starts at PQ_AHEAD_FIRST_UNITS, so the first row group does not
 * share the bandwidth with a whole window, and doubles with every row
 * group taken: a row group that decodes in less than a round trip waits
 * about one round trip per step of the ramp, and adding 2 a step took 7
 * steps to fill the window where doubling takes 3.  A first window of 6
 * rather than 2 took one of those steps away: TPC-H Q6 in parallel from a
 * store 20 ms away, 157 ms instead of 165 (the local file: 115 ms).
 * Memory: the window and the open row group.
 */
#define PQ_AHEAD_MAX_UNITS	16
#define PQ_AHEAD_FIRST_UNITS 6
#define PQ_AHEAD_MAX_BYTES	((uint64) 32 * 1024 * 1024)
#define PQ_RANGES_PER_SLOT	3	/* chunk, column index, offset index */

typedef struct PqSourceFile
{
	PfSource	base;			/* first: a PfSource * is a PqSourceFile * */
	PfFile	   *pf;
	const PqFileMeta *meta;
	MemoryContext cxt;			/* the file's: bindings, converters */
	MemoryContext unit_cxt;		/* the open row group's readers */

	/* per bound column */
	const PqSchemaNode **fields;	/* NULL: not in the file */
	PfConverter **convs;		/* with converters */
	int		  **col_slots;		/* each converter leaf's slot */
	PqColumnBatch **col_batches;	/* gathered for pf_converter_fill */
	bool	   *flat;			/* one flat leaf: convertible a row at a time */

	/* leaves read, one slot each */
	int			nslots;
	int		   *slot_leaf;
	PqColumnReader **readers;	/* per slot, for the open row group */
	PqColumnBatch *batches;		/* per slot, as the reader decoded it */
	PqColumnBatch *views;		/* per slot, the rows of the current batch */
	int16	   *slot_max_def;	/* per slot, its leaf's */
	bool	   *slot_views;		/* per slot: BYTE_ARRAY, values are views */
	int		   *slot_users;		/* per slot, the bound columns reading it */
	bool	   *slot_deferred;	/* per slot: decoded by convert() alone */
	int64	   *slot_row;		/* per deferred slot, the unit row its
								 * reader stands at */
	uint32	   *slot_rows;		/* per deferred slot, the rows before that
								 * its batches[] holds */

	/*
	 * The readers' batches may be served as several batches when their
	 * values are large (PF_BATCH_VALUE_BYTES): rows [served, decoded) of
	 * them are still to come; row_bytes[r] is row r's value bytes (only
	 * when the decoded rows hold more than the bound).
	 */
	uint32		decoded;
	uint32		served;
	int64		decoded_row;	/* unit row of the decoded rows' first */
	uint64		row_bytes_guess;	/* stored value bytes a row takes, about */
	uint64	   *row_bytes;		/* NULL: all of them fit in one batch */
	uint64	   *row_bytes_buf;	/* in unit_cxt */
	uint32		row_bytes_cap;

	/* the open row group */
	int64		rows_left;		/* not yet decoded (nor skipped) */
	PfRowRange *ranges;			/* page-index row ranges, in unit_cxt */
	int			nranges;		/* -1: every row */
	int			next_range;
	uint32		batch_size;

	/*
	 * A remote file's row groups pending[] are being fetched in the
	 * background, in the order the scan should open them; window is how
	 * many may be; last_unit is the row group opened before (-1), to guess
	 * the next ones of a scan that names none.
	 */
	int			pending[PQ_AHEAD_MAX_UNITS];
	int			npending;
	int			window;
	int			last_unit;
} PqSourceFile;

#define PQ(src)	((PqSourceFile *) (src))

/* Is bound column col deferred (read by convert() alone)?  Only flat ones. */
static inline bool
column_deferred(const PqSourceFile *f, int col)
{
	return f->flat[col] && f->slot_deferred[f->col_slots[col][0]];
}

static PfSource *
pq_source_open(const char *path, Relation rel, PfSourceScan *scan,
			   MemoryContext cxt)
{
	PqSourceFile *f = MemoryContextAllocZero(cxt, sizeof(PqSourceFile));

	f->base.ops = &pf_parquet_source;
	f->base.path = MemoryContextStrdup(cxt, path);
	f->base.rel = rel;
	f->base.scan = scan;
	f->base.unit = -1;
	f->cxt = cxt;
	f->last_unit = -1;
	f->pf = pf_open_file_at(path, pf_rel_serverid(rel), cxt);
	if (pf_footer_entry_remote(f->pf->entry) != NULL)
	{
		scan->remote = true;
		pf_remote_object_charge(pf_footer_entry_remote(f->pf->entry),
								&scan->remote_stats);
	}
	f->meta = f->pf->meta;
	f->base.nunits = f->meta->num_row_groups;
	f->unit_cxt = AllocSetContextCreate(cxt, "parquet_fdw row group",
										ALLOCSET_DEFAULT_SIZES);
	f->nranges = -1;
	return &f->base;
}

static void pq_source_unit_close(PfSource *src);

static void
pq_source_close(PfSource *src)
{
	PqSourceFile *f = PQ(src);

	if (src->unit >= 0)
		pq_source_unit_close(src);
	/* the counters live in the scan, which may end before the entry */
	if (f->pf->entry != NULL && pf_footer_entry_remote(f->pf->entry) != NULL)
	{
		pf_remote_object_uncharge(pf_footer_entry_remote(f->pf->entry),
								  &src->scan->remote_stats);
		pf_remote_object_drop_buffers(pf_footer_entry_remote(f->pf->entry));
	}
	pf_close_file(f->pf);
	f->pf = NULL;
}

static void
pq_source_bind(PfSource *src, const PfSourceColumn *cols, int ncols,
			   bool missing_error, bool converters)
{
	PqSourceFile *f = PQ(src);
	const PqFileMeta *meta = f->meta;
	MemoryContext old = MemoryContextSwitchTo(f->cxt);
	int		   *leaf_slot = NULL;

	src->ncolumns = ncols;
	src->columns = cols;
	src->attnos = NIL;
	src->present = palloc0(sizeof(bool) * Max(1, ncols));
	f->fields = palloc0(sizeof(PqSchemaNode *) * Max(1, ncols));
	f->nslots = 0;
	f->slot_users = NULL;
	f->slot_deferred = NULL;
	f->slot_row = NULL;
	f->slot_rows = NULL;
	/* other columns: fetch anew */
	if (f->npending > 0 && f->pf != NULL && f->pf->entry != NULL &&
		pf_footer_entry_remote(f->pf->entry) != NULL)
		for (int i = 0; i < f->npending; i++)
			pf_remote_object_cancel_tagged(pf_footer_entry_remote(f->pf->entry),
										   f->pending[i]);
	f->npending = 0;
	if (converters)
	{
		f->convs = palloc0(sizeof(PfConverter *) * Max(1, ncols));
		f->col_slots = palloc0(sizeof(int *) * Max(1, ncols));
		f->col_batches = palloc0(sizeof(PqColumnBatch *) * Max(1, ncols));
		f->flat = palloc0(sizeof(bool) * Max(1, ncols));
		leaf_slot = palloc(sizeof(int) * Max(1, meta->num_leaves));
		for (int l = 0; l < meta->num_leaves; l++)
			leaf_slot[l] = -1;
		f->slot_leaf = palloc(sizeof(int) * Max(1, meta->num_leaves));
	}
	for (int i = 0; i < ncols; i++)
	{
		const PqSchemaNode *field;
		const int  *leaves;
		int			nleaves;

		src->attnos = lappend_int(src->attnos, cols[i].attnum);
		src->err_column = cols[i].attname;
		field = pf_find_column_field(meta, src->path, src->rel,
									 cols[i].attname, cols[i].field_name,
									 missing_error);
		f->fields[i] = field;
		src->present[i] = field != NULL;
		if (field == NULL || !converters)
			continue;
		f->convs[i] = pf_converter_create(meta, field, cols[i].typid,
										  cols[i].typmod, cols[i].attname,
										  f->cxt);
		nleaves = pf_converter_num_leaves(f->convs[i]);
		leaves = pf_converter_leaves(f->convs[i]);
		f->col_slots[i] = palloc(sizeof(int) * Max(1, nleaves));
		f->col_batches[i] = palloc0(sizeof(PqColumnBatch) * Max(1, nleaves));
		for (int k = 0; k < nleaves; k++)
		{
			int			leaf = leaves[k];

			if (leaf < 0 || leaf >= meta->num_leaves)
				elog(ERROR, "converter of column \"%s\" names leaf %d of %d",
					 cols[i].attname, leaf, meta->num_leaves);
			if (leaf_slot[leaf] < 0)
			{
				leaf_slot[leaf] = f->nslots;
				f->slot_leaf[f->nslots++] = leaf;
			}
			f->col_slots[i][k] = leaf_slot[leaf];
		}
		f->flat[i] = nleaves == 1 && field->is_leaf &&
			meta->leaves[f->slot_leaf[f->col_slots[i][0]]].max_rep == 0;
	}
	src->err_column = NULL;
	if (converters)
	{
		f->readers = palloc0(sizeof(PqColumnReader *) * Max(1, f->nslots));
		f->batches = palloc0(sizeof(PqColumnBatch) * Max(1, f->nslots));
		f->views = palloc0(sizeof(PqColumnBatch) * Max(1, f->nslots));
		f->slot_max_def = palloc0(sizeof(int16) * Max(1, f->nslots));
		f->slot_views = palloc0(sizeof(bool) * Max(1, f->nslots));
		f->slot_users = palloc0(sizeof(int) * Max(1, f->nslots));
		f->slot_deferred = palloc0(sizeof(bool) * Max(1, f->nslots));
		f->slot_row = palloc0(sizeof(int64) * Max(1, f->nslots));
		f->slot_rows = palloc0(sizeof(uint32) * Max(1, f->nslots));
		for (int i = 0; i < ncols; i++)
			for (int k = 0; f->convs[i] != NULL &&
				 k < pf_converter_num_leaves(f->convs[i]); k++)
				f->slot_users[f->col_slots[i][k]]++;
		for (int s = 0; s < f->nslots; s++)
		{
			f->slot_max_def[s] = meta->leaves[f->slot_leaf[s]].max_def;
			f->slot_views[s] =
				meta->leaves[f->slot_leaf[s]].node->physical == PQ_BYTE_ARRAY;
		}
	}
	MemoryContextSwitchTo(old);
}

static int64
pq_source_unit_rows(PfSource *src, int unit)
{
	return PQ(src)->meta->row_groups[unit].num_rows;
}

/* Compressed bytes of the chunks of row group rg below a node. */
static double
field_bytes(const PqFileMeta *meta, int rg, const PqSchemaNode *node)
{
	double		bytes = 0;

	if (node->is_leaf)
	{
		if (node->leaf_index >= 0 &&
			node->leaf_index < meta->row_groups[rg].num_columns)
			return (double) meta->row_groups[rg].columns[node->leaf_index].total_compressed_size;
		return 0;
	}
	for (int i = 0; i < node->num_children; i++)
		bytes += field_bytes(meta, rg, node->children[i]);
	return bytes;
}

static double
pq_source_column_bytes(PfSource *src, int unit, int col)
{
	PqSourceFile *f = PQ(src);

	return f->fields[col] ? field_bytes(f->meta, unit, f->fields[col]) : 0;
}

static double
pq_source_unit_bytes(PfSource *src, int unit)
{
	const PqRowGroupMeta *g = &PQ(src)->meta->row_groups[unit];
	double		bytes = 0;

	for (int c = 0; c < g->num_columns; c++)
		bytes += (double) g->columns[c].total_compressed_size;
	return bytes;
}

static bool
pq_source_column_bounds(PfSource *src, int unit, int col, Oid typid,
						Datum *min, Datum *max, int64 *null_count)
{
	PqSourceFile *f = PQ(src);
	const PqSchemaNode *field = f->fields[col];
	const PqColumnChunkMeta *chunk;

	*null_count = -1;
	if (field == NULL || !field->is_leaf || field->leaf_index < 0 ||
		field->leaf_index >= f->meta->row_groups[unit].num_columns)
		return false;
	chunk = &f->meta->row_groups[unit].columns[field->leaf_index];
	if (chunk->has_statistics && chunk->statistics.has_null_count)
		*null_count = chunk->statistics.null_count;
	return pf_chunk_bound(f->meta, unit, field, typid, false, min) &&
		pf_chunk_bound(f->meta, unit, field, typid, true, max);
}

static PfPruneKind
pq_source_unit_prune(PfSource *src, int unit, List *quals)
{
	PqSourceFile *f = PQ(src);

	return pf_rowgroup_prune(f->pf, unit, quals, src->attnos, f->fields,
							 src->rel);
}

static bool
pq_source_file_excluded(PfSource *src, List *quals)
{
	return pf_file_excluded(PQ(src)->meta, src->path, quals, src->rel);
}

/* Stored bytes of leaves' column chunks in row group unit. */
static uint64
leaves_bytes(const PqFileMeta *meta, const int *leaves, int nleaves, int unit)
{
	uint64		bytes = 0;

	for (int s = 0; s < nleaves; s++)
		bytes += (uint64) Max(meta->row_groups[unit].columns[leaves[s]].total_compressed_size, 0);
	return bytes;
}

/* Bytes of the read columns' chunks of row group unit. */
static uint64
unit_bytes(const PqSourceFile *f, int unit)
{
	return leaves_bytes(f->meta, f->slot_leaf, f->nslots, unit);
}

/*
 * Append row group unit's column chunks of leaves and their page indexes
 * to ranges (room for PQ_RANGES_PER_SLOT per leaf).
 */
static int
add_leaf_ranges(const PqFileMeta *meta, const int *leaves, int nleaves,
				int unit, PfRemoteRange *ranges, int n)
{
	for (int s = 0; s < nleaves; s++)
	{
		const PqColumnChunkMeta *chunk = &meta->row_groups[unit].columns[leaves[s]];
		int64		start = chunk->data_page_offset;

		if (chunk->has_dictionary_page_offset && chunk->dictionary_page_offset > 0 &&
			chunk->dictionary_page_offset < start)
			start = chunk->dictionary_page_offset;
		ranges[n].offset = (uint64) Max(start, 0);
		ranges[n].len = (uint64) Max(chunk->total_compressed_size, 0);
		n++;
		/* page indexes, read when quals narrow the rows (small, adjacent) */
		if (chunk->column_index_length > 0)
		{
			ranges[n].offset = (uint64) Max(chunk->column_index_offset, 0);
			ranges[n++].len = (uint64) chunk->column_index_length;
		}
		if (chunk->offset_index_length > 0)
		{
			ranges[n].offset = (uint64) Max(chunk->offset_index_offset, 0);
			ranges[n++].len = (uint64) chunk->offset_index_length;
		}
	}
	return n;
}

/* The read columns' ranges of row group unit (add_leaf_ranges). */
static int
add_unit_ranges(const PqSourceFile *f, int unit, PfRemoteRange *ranges, int n)
{
	return add_leaf_ranges(f->meta, f->slot_leaf, f->nslots, unit, ranges, n);
}

static bool
unit_in(const int *units, int n, int unit)
{
	for (int i = 0; i < n; i++)
		if (units[i] == unit)
			return true;
	return false;
}

/* Start fetching row group unit's read chunks in the background. */
static void
fetch_unit(PqSourceFile *f, PfRemoteObject *obj, int unit)
{
	PfRemoteRange *ranges = palloc(sizeof(PfRemoteRange) *
								   Max(f->nslots, 1) * PQ_RANGES_PER_SLOT);

	if (pf_remote_object_fetch_tagged(obj, unit, ranges,
									  add_unit_ranges(f, unit, ranges, 0)))
		f->pending[f->npending++] = unit;
	pfree(ranges);
}

/*
 * Top the background fetches up with the row groups the scan opens after
 * unit (those it named, or in a scan that names none and reads in order,
 * the following ones) that are not fetching already: as many as the
 * window and PQ_AHEAD_MAX_BYTES allow, at least one.
 */
static void
fetch_ahead(PqSourceFile *f, PfRemoteObject *obj, int unit)
{
	const PfSource *src = &f->base;
	uint64		bytes = pf_remote_object_pending_bytes(obj);
	int			limit = Min(f->window, PQ_AHEAD_MAX_UNITS);
	int			n;

	if (src->next_units != NULL)
		n = src->nnext_units;
	else if (unit == f->last_unit + 1)
		n = f->meta->num_row_groups - unit - 1;
	else
		return;
	for (int i = 0; i < n && f->npending < limit; i++)
	{
		int			u = src->next_units != NULL ? src->next_units[i] : unit + 1 + i;
		uint64		b;

		if (u < 0 || u >= f->meta->num_row_groups || u == unit ||
			unit_in(f->pending, f->npending, u))
			continue;
		b = unit_bytes(f, u);
		if (f->npending > 0 && bytes + b > PQ_AHEAD_MAX_BYTES)
			break;
		bytes += b;
		fetch_unit(f, obj, u);
	}
}

/* The leaves under node not in seen yet, appended to leaves. */
static int
field_leaves(const PqSchemaNode *node, int *leaves, int n, bool *seen)
{
	if (node->is_leaf)
	{
		if (node->leaf_index >= 0 && !seen[node->leaf_index])
		{
			seen[node->leaf_index] = true;
			leaves[n++] = node->leaf_index;
		}
		return n;
	}
	for (int c = 0; c < node->num_children; c++)
		n = field_leaves(node->children[c], leaves, n, seen);
	return n;
}

/*
 * Planning's guess at the scan's first window: the units it opens first,
 * fetched as its first prefetch_unit would (the same ranges, so the scan
 * adopts them), while the HEAD that confirms the footer is on its way.
 */
static void
pq_source_speculate(PfSource *src, const int *units, int nunits)
{
	PqSourceFile *f = PQ(src);
	const PqFileMeta *meta = f->meta;
	PfRemoteObject *obj = pf_footer_entry_remote(f->pf->entry);
	PfRemoteRange *ranges;
	bool	   *seen;
	int		   *leaves;
	int			nleaves = 0;
	uint64		bytes = 0;

	if (obj == NULL)
		return;
	if (units == NULL)
	{
		pf_remote_object_cancel_speculative(obj);
		return;
	}

	/*
	 * Planning binds no converters, so no slots: the bound fields' leaves,
	 * those a converter reads (a scan reading fewer still adopts the set).
	 */
	seen = palloc0(sizeof(bool) * Max(meta->num_leaves, 1));
	leaves = palloc(sizeof(int) * Max(meta->num_leaves, 1));
	for (int i = 0; i < src->ncolumns; i++)
		if (f->fields[i] != NULL)
			nleaves = field_leaves(f->fields[i], leaves, nleaves, seen);
	ranges = palloc(sizeof(PfRemoteRange) * Max(nleaves, 1) * PQ_RANGES_PER_SLOT);
	/* the first unit and the window behind it, as prefetch_unit asks */
	for (int i = 0; i < Min(nunits, PQ_AHEAD_FIRST_UNITS + 1); i++)
	{
		uint64		b = leaves_bytes(meta, leaves, nleaves, units[i]);

		if (i > 0 && bytes + b > PQ_AHEAD_MAX_BYTES)
			break;
		bytes += b;
		pf_remote_object_speculate(obj, units[i], ranges,
								   add_leaf_ranges(meta, leaves, nleaves,
												   units[i], ranges, 0));
	}
	pfree(ranges);
	pfree(leaves);
	pfree(seen);
	/* requests on connections opened just now go out with this */
	pf_remote_object_poll(obj);
}

/*
 * A remote file's row group: its read columns' chunks in the object's
 * buffers before the readers ask for them one by one (from its background
 * fetch, else fetched now together with the window behind it).  Row
 * groups fetched ahead of it were skipped by the scan: they are dropped.
 */
static void
prefetch_unit(PqSourceFile *f, int unit)
{
	PfRemoteObject *obj = pf_footer_entry_remote(f->pf->entry);
	int			at = -1;

	if (obj == NULL)
		return;
	pf_remote_object_charge(obj, &f->base.scan->remote_stats);
	for (int i = 0; i < f->npending; i++)
		if (f->pending[i] == unit)
		{
			at = i;
			break;
		}
	/* at -1: a guess that missed, every fetch ahead is dropped */
	for (int i = 0; i < (at < 0 ? f->npending : at); i++)
		pf_remote_object_cancel_tagged(obj, f->pending[i]);
	if (at < 0)
	{
		f->npending = 0;
		f->window = PQ_AHEAD_FIRST_UNITS;
		fetch_unit(f, obj, unit);
		at = f->npending - 1;	/* 0, or -1 when there was no room */
	}
	else
		f->window = Min(f->window * 2, PQ_AHEAD_MAX_UNITS);
	/* unit itself leaves the list; its fetch is taken below */
	f->npending -= at + 1;
	memmove(f->pending, f->pending + at + 1, sizeof(int) * f->npending);

	/* the window's next requests go out before this one is waited for */
	fetch_ahead(f, obj, unit);
	if (!pf_remote_object_take_tagged(obj, unit))
	{
		/* another scan of the object took it, or no room was left */
		PfRemoteRange *ranges = palloc(sizeof(PfRemoteRange) *
									   Max(f->nslots, 1) * PQ_RANGES_PER_SLOT);

		pf_remote_object_prefetch(obj, ranges, add_unit_ranges(f, unit, ranges, 0));
		pfree(ranges);
	}
	f->last_unit = unit;
	/* a unit read from the cached tail alone confirmed nothing */
	pf_remote_object_verify(obj);
}

static void
pq_source_unit_open(PfSource *src, int unit, List *row_quals, int64 row_limit)
{
	PqSourceFile *f = PQ(src);
	const PqFileMeta *meta = f->meta;
	PfcAllocator alloc;
	PfcAllocator pool_alloc;
	PqColumnReaderOptions ropts = {0};

	/* a file written over between row groups must not be read on */
	pf_footer_entry_check_unchanged(f->pf->entry, false);
	src->unit = unit;
	src->batch_row = 0;
	f->batch_size = 0;
	f->decoded = f->served = 0;
	f->rows_left = meta->row_groups[unit].num_rows;
	if (row_limit > 0 && row_quals == NIL)
		f->rows_left = Min(f->rows_left, row_limit);
	f->nranges = -1;
	f->next_range = 0;
	if (f->slot_row != NULL)
	{
		memset(f->slot_row, 0, sizeof(int64) * Max(1, f->nslots));
		memset(f->slot_rows, 0, sizeof(uint32) * Max(1, f->nslots));
	}
	/* before the page indexes are read: they come with the chunks */
	prefetch_unit(f, unit);
	if (row_quals != NIL)
		f->ranges = pf_rowgroup_row_ranges(f->pf, unit, row_quals, src->attnos,
										   f->fields, src->rel, f->unit_cxt,
										   &f->nranges);

	/*
	 * Page buffers come from a pool that outlives row groups and files, so
	 * they are not handed back to malloc (and the kernel) after every row
	 * group only to be faulted in again.
	 */
	if (src->scan->buffers == NULL)
		src->scan->buffers = pf_page_pool_create(src->scan->cxt);
	pool_alloc = pfc_buffer_pool_allocator((PfcBufferPool *) src->scan->buffers);
	ropts.verify_crc = src->scan->verify_checksums;
	alloc = pf_context_allocator(f->unit_cxt);
	for (int s = 0; s < f->nslots; s++)
	{
		const PqColumnChunkMeta *chunk = &meta->row_groups[unit].columns[f->slot_leaf[s]];
		PqError		err;

		src->err_column = meta->leaves[f->slot_leaf[s]].path;
		if (chunk->is_encrypted)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column \"%s\" of Parquet file \"%s\" is encrypted",
							src->err_column, src->path),
					 errhint("Parquet modular encryption is not supported.")));
		if (chunk->file_path != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column \"%s\" of Parquet file \"%s\" is stored in another file",
							src->err_column, src->path),
					 errdetail("The column chunk names the file \"%s\".",
							   chunk->file_path)));
		pq_error_clear(&err);
		if (pq_column_reader_open(&f->readers[s], f->pf->file, unit,
								  f->slot_leaf[s], &ropts, &alloc,
								  &err) != PQ_OK)
			pf_report_read_error(f->pf, &err);
		(void) pq_column_reader_set_page_allocator(f->readers[s], &pool_alloc);
	}
	src->err_column = NULL;

	/* a first guess at the bytes of a row: the chunks' decompressed sizes */
	f->row_bytes_guess = 0;
	if (meta->row_groups[unit].num_rows > 0)
	{
		uint64		total = 0;

		for (int s = 0; s < f->nslots; s++)
			total += (uint64) Max(meta->row_groups[unit].columns[f->slot_leaf[s]].total_uncompressed_size, 0);
		f->row_bytes_guess = total / (uint64) meta->row_groups[unit].num_rows;
	}

	/* dictionary entries are converted once for the row group's rows */
	for (int i = 0; i < src->ncolumns; i++)
		if (f->convs != NULL && f->convs[i] != NULL)
			pf_converter_share_dictionary(f->convs[i], f->unit_cxt);
}

/* The row group's next row not yet decoded nor skipped. */
static inline int64
next_row_of(PqSourceFile *f)
{
	return f->meta->row_groups[f->base.unit].num_rows - f->rows_left;
}

/*
 * Page-index pruning: move every reader to the next range of rows that may
 * match.  false when the row group has no such row left.
 */
static bool
skip_to_row_range(PqSourceFile *f)
{
	int64		pos;

	if (f->nranges < 0)
		return true;
	pos = next_row_of(f);
	while (f->next_range < f->nranges && f->ranges[f->next_range].end <= pos)
		f->next_range++;
	if (f->next_range >= f->nranges)
	{
		f->base.scan->rows_skipped_by_index += f->rows_left;
		f->rows_left = 0;
		return false;
	}
	if (f->ranges[f->next_range].start > pos)
	{
		int64		skip = f->ranges[f->next_range].start - pos;

		for (int s = 0; s < f->nslots; s++)
		{
			PqError		err;

			if (f->slot_deferred[s])
				continue;		/* catches up when a row is asked for */
			f->base.err_column = f->meta->leaves[f->slot_leaf[s]].path;
			pq_error_clear(&err);
			if (pq_column_reader_skip(f->readers[s], (uint64) skip, &err) != PQ_OK)
				pf_report_read_error(f->pf, &err);
		}
		f->base.err_column = NULL;
		f->rows_left -= skip;
		f->base.scan->rows_skipped_by_index += skip;
	}
	return true;
}

/* Bytes of one stored value of a batch: a view's length, else its width. */
static inline uint64
value_bytes(const PqColumnBatch *b, bool views, uint32 v)
{
	if (views)
		return ((const CdcByteView *) b->values)[v].len;
	return b->value_width;
}

/* Bytes of all of a batch's values (a first look: usually far below the bound). */
static uint64
batch_value_bytes(const PqColumnBatch *b, bool views)
{
	uint32		n = b->rep_levels != NULL ? b->num_values : b->num_rows;
	uint64		bytes = 0;

	if (!views)
		return (uint64) n * b->value_width;
	for (uint32 i = 0; i < n; i++)
		bytes += value_bytes(b, true, i);
	return bytes;
}

/*
 * Add each row's value bytes of slot batch b into row_bytes[].  Flat
 * batches are row-aligned; repeated ones hold their values densely, a row
 * beginning at each repetition level 0.
 */
static void
add_row_bytes(const PqColumnBatch *b, bool views, int16 max_def,
			  uint64 *row_bytes)
{
	uint32		v = 0;
	int64		row = -1;

	if (b->rep_levels == NULL)
	{
		for (uint32 i = 0; i < b->num_rows; i++)
			if (b->is_null == NULL || !b->is_null[i])
				row_bytes[i] += value_bytes(b, views, i);
		return;
	}
	for (uint32 l = 0; l < b->num_levels; l++)
	{
		if (b->rep_levels[l] == 0)
			row++;
		if (b->def_levels == NULL || b->def_levels[l] == max_def)
		{
			if (row >= 0 && row < b->num_rows && v < b->num_values)
				row_bytes[row] += value_bytes(b, views, v);
			v++;
		}
	}
}

/* Rows [from, from + n) of slot batch b, as a batch of their own. */
static void
slice_batch(const PqColumnBatch *b, int16 max_def, uint32 from, uint32 n,
			PqColumnBatch *out)
{
	uint32		lfrom = from;
	uint32		lend = from + n;
	uint32		vfrom = 0;
	uint32		nvalues = 0;

	*out = *b;
	if (b->rep_levels != NULL)
	{
		uint32		row = 0;
		bool		started = false;

		/* level range of the rows, and the dense values before them */
		lfrom = lend = b->num_levels;
		for (uint32 l = 0; l < b->num_levels; l++)
		{
			if (b->rep_levels[l] == 0)
			{
				if (started)
					row++;
				started = true;
				if (row == from)
					lfrom = l;
				if (row == from + n)
				{
					lend = l;
					break;
				}
			}
			if (lfrom == b->num_levels &&
				(b->def_levels == NULL || b->def_levels[l] == max_def))
				vfrom++;
		}
		for (uint32 l = lfrom; l < lend; l++)
			nvalues += b->def_levels == NULL || b->def_levels[l] == max_def;
		out->rep_levels = b->rep_levels + lfrom;
	}
	else
	{
		vfrom = from;
		if (b->is_null == NULL)
			nvalues = n;
		else
			for (uint32 i = from; i < from + n; i++)
				nvalues += !b->is_null[i];
		if (b->is_null != NULL)
			out->is_null = b->is_null + from;
	}
	out->num_rows = n;
	out->num_levels = lend - lfrom;
	out->num_values = nvalues;
	if (b->def_levels != NULL)
		out->def_levels = b->def_levels + lfrom;
	out->values = (const uint8 *) b->values + (size_t) vfrom * b->value_width;
	if (b->dict_index != NULL)
		out->dict_index = b->dict_index + vfrom;
}

/* Decode the next rows of every slot: false when the row group has none. */
static bool
decode_rows(PqSourceFile *f, uint32 max_rows)
{
	PfSource   *src = &f->base;
	PfSourceScan *scan = src->scan;
	uint32		want;
	uint64		bytes = 0;
	instr_time	decode_start;

	if (f->rows_left <= 0 || !skip_to_row_range(f))
		return false;
	want = (uint32) Min((int64) max_rows, f->rows_left);
	if (f->nranges >= 0)
		want = (uint32) Min((int64) want,
							f->ranges[f->next_range].end - next_row_of(f));

	/*
	 * The readers keep the pages of the rows they decode until the next
	 * read: large values must not even be decoded many rows at a time.
	 */
	if (f->row_bytes_guess > 0)
		want = (uint32) Min((uint64) want,
							Max(PF_BATCH_VALUE_BYTES / f->row_bytes_guess, 1));
	f->decoded_row = next_row_of(f);
	if (scan->time_decoding)
		INSTR_TIME_SET_CURRENT(decode_start);
	for (int s = 0; s < f->nslots; s++)
	{
		PqError		err;

		if (f->slot_deferred[s])
			continue;
		src->err_column = f->meta->leaves[f->slot_leaf[s]].path;
		pq_error_clear(&err);
		if (pq_column_reader_read(f->readers[s], want, &f->batches[s],
								  &err) != PQ_OK)
			pf_report_read_error(f->pf, &err);
		if (f->batches[s].num_rows != want)
		{
			pf_footer_entry_check_unchanged(f->pf->entry, true);
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("column chunk \"%s\" of Parquet file \"%s\" holds fewer rows than its row group",
							src->err_column, src->path),
					 errdetail("The row group has %lld rows; %lld were left to read, the chunk gave %u.",
							   (long long) f->meta->row_groups[src->unit].num_rows,
							   (long long) f->rows_left,
							   f->batches[s].num_rows)));
		}
		bytes += batch_value_bytes(&f->batches[s], f->slot_views[s]);
	}
	src->err_column = NULL;
	if (scan->time_decoding)
	{
		instr_time	now;

		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_ACCUM_DIFF(scan->decode_time, now, decode_start);
	}

	/*
	 * Pages read after a write in place hold the new file's bytes: no row
	 * of a batch may come from them (one fstat() per batch).
	 */
	pf_footer_entry_check_unchanged(f->pf->entry, false);
	f->rows_left -= want;
	f->decoded = want;
	f->served = 0;
	/* what these rows took says how many the next read should ask for */
	f->row_bytes_guess = Max(f->row_bytes_guess, bytes / want);

	/* large values: served in several batches, cut by row_bytes */
	f->row_bytes = NULL;
	if (bytes > PF_BATCH_VALUE_BYTES)
	{
		if (f->row_bytes_cap < want)
		{
			f->row_bytes_cap = want;
			f->row_bytes_buf = MemoryContextAlloc(f->unit_cxt, sizeof(uint64) * want);
		}
		f->row_bytes = f->row_bytes_buf;
		memset(f->row_bytes, 0, sizeof(uint64) * want);
		for (int s = 0; s < f->nslots; s++)
			if (!f->slot_deferred[s])
				add_row_bytes(&f->batches[s], f->slot_views[s],
							  f->slot_max_def[s], f->row_bytes);
	}
	return true;
}

static uint32
pq_source_read(PfSource *src, uint32 max_rows)
{
	PqSourceFile *f = PQ(src);
	uint32		from;
	uint32		n;

	f->batch_size = 0;
	if (f->npending > 0)		/* let the background fetch move */
		pf_remote_object_poll(pf_footer_entry_remote(f->pf->entry));
	if (f->served >= f->decoded && !decode_rows(f, max_rows))
		return 0;

	/* the next rows up to max_rows and the byte bound, at least one */
	from = f->served;
	n = Min(max_rows, f->decoded - from);
	if (f->row_bytes != NULL)
	{
		uint64		bytes = f->row_bytes[from];
		uint32		k = 1;

		while (k < n && bytes + f->row_bytes[from + k] <= PF_BATCH_VALUE_BYTES)
			bytes += f->row_bytes[from + k++];
		n = k;
	}
	for (int s = 0; s < f->nslots; s++)
	{
		if (f->slot_deferred[s])
			continue;
		if (from == 0 && n == f->decoded)
			f->views[s] = f->batches[s];
		else
			slice_batch(&f->batches[s], f->slot_max_def[s], from, n, &f->views[s]);
	}
	src->batch_row = f->decoded_row + from;
	f->served = from + n;

	/* each column's leaves' batches, for convert() */
	for (int i = 0; i < src->ncolumns; i++)
	{
		PfConverter *conv = f->convs[i];

		if (conv == NULL || column_deferred(f, i))
			continue;
		for (int k = 0; k < pf_converter_num_leaves(conv); k++)
			f->col_batches[i][k] = f->views[f->col_slots[i][k]];
	}
	f->batch_size = n;
	return n;
}

static bool
pq_source_column_lazy(PfSource *src, int col)
{
	return PQ(src)->flat[col];
}

/*
 * Only a flat leaf no other bound column reads is deferred: its rows are
 * then asked for by one column, in order.
 */
static void
pq_source_column_defer(PfSource *src, int col)
{
	PqSourceFile *f = PQ(src);

	Assert(src->unit < 0);
	if (f->convs == NULL || f->convs[col] == NULL || !f->flat[col] ||
		f->slot_users[f->col_slots[col][0]] != 1)
		return;
	f->slot_deferred[f->col_slots[col][0]] = true;
}

/*
 * Make rows [from, from + n) of the current batch of deferred column col
 * decoded in its slot's batch, and return the first one's index in it.
 * When they are not, its reader skips the rows since the last it decoded
 * (whole pages unread when they lie within them) and decodes from the
 * first of them to the batch's end: decoding costs little per row next to
 * converting, and one call per batch far less than one per row.
 */
static uint32
decode_deferred(PqSourceFile *f, int col, uint32 from, uint32 n)
{
	PfSource   *src = &f->base;
	int			s = f->col_slots[col][0];
	int64		row = src->batch_row + from;
	uint32		want = f->batch_size - from;
	instr_time	start;
	PqError		err;

	if (row >= f->slot_row[s] - f->slot_rows[s] && row + n <= f->slot_row[s])
		return (uint32) (row - (f->slot_row[s] - f->slot_rows[s]));
	if (row < f->slot_row[s] || n > want)
		elog(ERROR, "rows %lld to %lld of deferred column \"%s\" asked for after row %lld",
			 (long long) row, (long long) (row + n - 1),
			 src->columns[col].attname, (long long) f->slot_row[s]);
	if (src->scan->time_decoding)
		INSTR_TIME_SET_CURRENT(start);
	src->err_column = f->meta->leaves[f->slot_leaf[s]].path;
	pq_error_clear(&err);
	if (row > f->slot_row[s] &&
		pq_column_reader_skip(f->readers[s], (uint64) (row - f->slot_row[s]),
							  &err) != PQ_OK)
		pf_report_read_error(f->pf, &err);
	if (pq_column_reader_read(f->readers[s], want, &f->batches[s], &err) != PQ_OK)
		pf_report_read_error(f->pf, &err);
	if (f->batches[s].num_rows != want)
	{
		pf_footer_entry_check_unchanged(f->pf->entry, true);
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("column chunk \"%s\" of Parquet file \"%s\" holds fewer rows than its row group",
						src->err_column, src->path),
				 errdetail("The row group has %lld rows; rows from %lld were asked for, the chunk gave %u of %u.",
						   (long long) f->meta->row_groups[src->unit].num_rows,
						   (long long) row, f->batches[s].num_rows, want)));
	}
	f->slot_row[s] = row + want;
	f->slot_rows[s] = want;
	src->err_column = NULL;
	if (src->scan->time_decoding)
	{
		instr_time	now;

		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_ACCUM_DIFF(src->scan->decode_time, now, start);
	}
	/* as after every read(): no row may come from a file written over */
	pf_footer_entry_check_unchanged(f->pf->entry, false);
	return 0;
}

/* Rows [from, from + n) of flat column batch b, as a batch of their own. */
static void
flat_rows(const PqColumnBatch *b, uint32 from, uint32 n, PqColumnBatch *view)
{
	*view = *b;
	view->values = (const uint8 *) view->values + (size_t) from * view->value_width;
	if (view->is_null)
		view->is_null += from;
	if (view->dict_index)
		view->dict_index += from;
	if (view->def_levels)
		view->def_levels += from;
	view->num_rows = view->num_levels = n;
}

static void
pq_source_convert(PfSource *src, int col, uint32 from, uint32 n,
				  Datum *values, bool *nulls)
{
	PqSourceFile *f = PQ(src);
	PqColumnBatch view;

	if (column_deferred(f, col))
	{
		uint32		at = decode_deferred(f, col, from, n);

		flat_rows(&f->batches[f->col_slots[col][0]], at, n, &view);
		pf_converter_fill(f->convs[col], &view, n, values, nulls, 1);
		return;
	}
	if (from == 0 && n == f->batch_size)
	{
		pf_converter_fill(f->convs[col], f->col_batches[col], n, values, nulls, 1);
		return;
	}
	/* a flat leaf's rows from `from` on: values are row-aligned */
	Assert(f->flat[col]);
	flat_rows(&f->col_batches[col][0], from, n, &view);
	pf_converter_fill(f->convs[col], &view, n, values, nulls, 1);
}

static int64
pq_source_failed_row(void)
{
	return pf_converter_failed_index();
}

static int64
pq_source_unit_bytes_read(PfSource *src)
{
	PqSourceFile *f = PQ(src);
	int64		bytes = 0;

	if (src->unit < 0 || f->readers == NULL)
		return 0;
	for (int s = 0; s < f->nslots; s++)
		if (f->readers[s])
			bytes += (int64) pq_column_reader_bytes_read(f->readers[s]);
	return bytes;
}

static void
pq_source_unit_close(PfSource *src)
{
	PqSourceFile *f = PQ(src);

	if (f->readers)
	{
		for (int s = 0; s < f->nslots; s++)
		{
			if (f->readers[s])
			{
				src->scan->bytes_read += (int64) pq_column_reader_bytes_read(f->readers[s]);
				pq_column_reader_close(f->readers[s]);
			}
			f->readers[s] = NULL;
		}
	}
	for (int i = 0; i < src->ncolumns; i++)
		if (f->convs != NULL && f->convs[i] != NULL)
			pf_converter_share_dictionary(f->convs[i], NULL);
	src->unit = -1;
	f->rows_left = 0;
	f->nranges = -1;
	f->batch_size = 0;
	f->decoded = f->served = 0;
	f->row_bytes = f->row_bytes_buf = NULL;
	f->row_bytes_cap = 0;
	MemoryContextReset(f->unit_cxt);
}

static const PqSchemaNode *
pq_source_raw_field(PfSource *src, int col, const PqFileMeta **meta)
{
	*meta = PQ(src)->meta;
	return col >= 0 ? PQ(src)->fields[col] : NULL;
}

static const PqColumnBatch *
pq_source_raw_batch(PfSource *src, int col)
{
	PqSourceFile *f = PQ(src);

	if (f->convs == NULL || f->convs[col] == NULL ||
		pf_converter_num_leaves(f->convs[col]) != 1 || !f->flat[col] ||
		column_deferred(f, col))
		return NULL;
	return &f->views[f->col_slots[col][0]];
}

const PfSourceOps pf_parquet_source = {
	.file_noun = "Parquet file",
	.file_label = "Parquet File",
	.unit_noun = "row group",
	.units_label = "Row Groups",
	.index_label = "Rows Skipped by Page Index",
	.counts_io = true,
	.lazy_rest_percent = 25,
	.open = pq_source_open,
	.close = pq_source_close,
	.bind = pq_source_bind,
	.unit_rows = pq_source_unit_rows,
	.column_bytes = pq_source_column_bytes,
	.unit_bytes = pq_source_unit_bytes,
	.column_bounds = pq_source_column_bounds,
	.unit_prune = pq_source_unit_prune,
	.file_excluded = pq_source_file_excluded,
	.speculate = pq_source_speculate,
	.unit_open = pq_source_unit_open,
	.read = pq_source_read,
	.column_lazy = pq_source_column_lazy,
	.column_defer = pq_source_column_defer,
	.convert = pq_source_convert,
	.failed_row = pq_source_failed_row,
	.unit_bytes_read = pq_source_unit_bytes_read,
	.unit_close = pq_source_unit_close,
	.raw_field = pq_source_raw_field,
	.raw_batch = pq_source_raw_batch,
};
