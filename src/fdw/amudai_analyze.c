/*-------------------------------------------------------------------------
 *
 * amudai_analyze.c
 *	  ANALYZE of foreign tables over Amudai shards: a row sample without
 *	  decoding whole shards.
 *
 * The row count comes from the stripes' record counts.  The table's rows,
 * stripe by stripe, are cut into chunks of PF_AM_CHUNK_ROWS; PostgreSQL's
 * block sampler picks chunks at random (in order) until they hold
 * PF_AM_ROWS_PER_TARGET rows per sample row wanted, each chosen chunk is
 * decoded (block maps let the converters start mid-stripe), and the rows
 * go through the reservoir of analyze.c, as the Parquet sampler's do.  A table smaller
 * than the budget is read whole, so its statistics are exact.
 *
 * IDENTIFICATION
 *	  src/fdw/amudai_analyze.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <sys/stat.h>

#include "access/htup_details.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "utils/rel.h"
#include "utils/sampling.h"

#include "fdw/amudai_fdw.h"
#include "fdw/parquet_fdw.h"

/* Rows decoded per sample row wanted, at most (as analyze.c for Parquet). */
#define PF_AM_ROWS_PER_TARGET	10
/* Rows of one chosen chunk: a few encoded blocks of each field. */
#define PF_AM_CHUNK_ROWS		1024

/* A chunk of the table: shard, stripe, first row in the stripe, rows. */
typedef struct AmChunk
{
	int			file;
	uint32		stripe;
	uint64		first;
	uint32		rows;
} AmChunk;

/* Where the sampling stands, for the error context. */
typedef struct AmAnalyzeContext
{
	const char *path;
	int			stripe;
	const char *column;
} AmAnalyzeContext;

static void
analyze_error_callback(void *arg)
{
	AmAnalyzeContext *c = (AmAnalyzeContext *) arg;

	if (c->path == NULL)
		return;
	if (c->stripe >= 0 && c->column)
		errcontext("ANALYZE of Amudai shard \"%s\", stripe %d, column \"%s\"",
				   c->path, c->stripe, c->column);
	else if (c->stripe >= 0)
		errcontext("ANALYZE of Amudai shard \"%s\", stripe %d", c->path, c->stripe);
	else
		errcontext("ANALYZE of Amudai shard \"%s\"", c->path);
}

/* Every chunk of the table's shards, in table order. */
static AmChunk *
table_chunks(List *filenames, uint32 *nchunks, double *totalrows,
			 AmAnalyzeContext *ctx)
{
	AmChunk    *chunks = NULL;
	uint64		n = 0;
	uint64		cap = 0;
	ListCell   *lc;

	*totalrows = 0;
	foreach(lc, filenames)
	{
		PfShard    *ps;
		uint32		nstripes;

		CHECK_FOR_INTERRUPTS();
		ctx->path = (const char *) lfirst(lc);
		ps = pf_open_shard(ctx->path, CurrentMemoryContext);
		nstripes = am_shard_stripe_count(ps->shard);
		for (uint32 s = 0; s < nstripes; s++)
		{
			uint64		rows = am_shard_stripe(ps->shard, s)->total_record_count;

			*totalrows += (double) rows;
			for (uint64 first = 0; first < rows; first += PF_AM_CHUNK_ROWS)
			{
				if (n == cap)
				{
					cap = Max(64, cap * 2);
					chunks = chunks ? repalloc_huge(chunks, sizeof(AmChunk) * cap)
						: palloc_extended(sizeof(AmChunk) * cap, MCXT_ALLOC_HUGE);
				}
				chunks[n].file = foreach_current_index(lc);
				chunks[n].stripe = s;
				chunks[n].first = first;
				chunks[n].rows = (uint32) Min((uint64) PF_AM_CHUNK_ROWS, rows - first);
				n++;
			}
		}
		pf_close_shard(ps);
	}
	ctx->path = NULL;
	if (n > (uint64) MaxBlockNumber)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many rows to sample in the Amudai shards of this table")));
	*nchunks = (uint32) n;
	return chunks;
}

BlockNumber
pf_amudai_table_pages(Relation rel)
{
	PfTableOptions *opts = pf_get_table_options(RelationGetRelid(rel));
	List	   *filenames = pf_expand_filenames(opts->filenames);
	double		bytes = 0;
	ListCell   *lc;

	foreach(lc, filenames)
	{
		struct stat st;

		if (stat((const char *) lfirst(lc), &st) == 0)
			bytes += (double) st.st_size;
	}
	return (BlockNumber) Min((double) MaxBlockNumber, ceil(bytes / BLCKSZ));
}

int
pf_amudai_acquire_sample_rows(Relation rel, int elevel, HeapTuple *rows,
							  int targrows, double *totalrows,
							  double *totaldeadrows)
{
	PfTableOptions *opts = pf_get_table_options(RelationGetRelid(rel));
	TupleDesc	tupdesc = RelationGetDescr(rel);
	int			natts = tupdesc->natts;
	List	   *filenames = pf_expand_filenames(opts->filenames);
	MemoryContext file_cxt;
	MemoryContext stripe_cxt;
	MemoryContext chunk_cxt;
	AmAnalyzeContext ctx = {NULL, -1, NULL};
	ErrorContextCallback errcb;
	AmChunk    *chunks;
	uint32		nchunks;
	int			wanted_chunks;
	BlockSamplerData bs;
	PfReservoir *reservoir;
	PfAmConverter **convs;
	Datum	  **values;
	bool	  **nulls;
	Datum	   *row_values;
	bool	   *row_nulls;
	PfShard    *ps = NULL;
	int			open_file = -1;
	int64		open_stripe = -1;
	int			numrows;
	int			chunks_read = 0;

	*totaldeadrows = 0;
	errcb.callback = analyze_error_callback;
	errcb.arg = &ctx;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	chunks = table_chunks(filenames, &nchunks, totalrows, &ctx);
	wanted_chunks = (int) Min((double) INT_MAX,
							  ceil((double) targrows * PF_AM_ROWS_PER_TARGET /
								   PF_AM_CHUNK_ROWS));

	file_cxt = AllocSetContextCreate(CurrentMemoryContext, "parquet_fdw amudai analyze shard",
									 ALLOCSET_DEFAULT_SIZES);
	stripe_cxt = AllocSetContextCreate(file_cxt, "parquet_fdw amudai analyze stripe",
									   ALLOCSET_DEFAULT_SIZES);
	chunk_cxt = AllocSetContextCreate(CurrentMemoryContext, "parquet_fdw amudai analyze chunk",
									  ALLOCSET_DEFAULT_SIZES);
	convs = palloc0(sizeof(PfAmConverter *) * Max(1, natts));
	values = palloc(sizeof(Datum *) * Max(1, natts));
	nulls = palloc(sizeof(bool *) * Max(1, natts));
	for (int i = 0; i < natts; i++)
	{
		values[i] = palloc(sizeof(Datum) * PF_AM_CHUNK_ROWS);
		nulls[i] = palloc(sizeof(bool) * PF_AM_CHUNK_ROWS);
	}
	row_values = palloc(sizeof(Datum) * Max(1, natts));
	row_nulls = palloc(sizeof(bool) * Max(1, natts));

	reservoir = pf_reservoir_create(tupdesc, targrows);
	BlockSampler_Init(&bs, nchunks, wanted_chunks,
					  pg_prng_uint32(&pg_global_prng_state));
	while (BlockSampler_HasMore(&bs))
	{
		const AmChunk *c = &chunks[BlockSampler_Next(&bs)];
		MemoryContext old;

		pf_analyze_delay_point();
		chunks_read++;

		/* the chunk's shard and stripe, with a converter per column */
		if (c->file != open_file)
		{
			if (open_stripe >= 0)
				for (int i = 0; i < natts; i++)
					if (convs[i])
						pf_amudai_converter_end_stripe(convs[i]);
			open_stripe = -1;
			if (ps)
				pf_close_shard(ps);
			MemoryContextReset(file_cxt);
			open_file = c->file;
			ctx.path = (const char *) list_nth(filenames, c->file);
			ps = pf_open_shard(ctx.path, file_cxt);
			for (int i = 0; i < natts; i++)
			{
				Form_pg_attribute attr = TupleDescAttr(tupdesc, i);
				int64		id;

				convs[i] = NULL;
				if (attr->attisdropped)
					continue;
				ctx.column = NameStr(attr->attname);
				id = pf_amudai_find_field(ps->shard, ctx.path, NameStr(attr->attname),
										  pf_get_column_name(RelationGetRelid(rel),
															 attr->attnum),
										  opts->missing_columns_error);
				if (id >= 0)
					convs[i] = pf_amudai_converter_create(am_shard_schema(ps->shard),
														  (uint32) id, attr->atttypid,
														  attr->atttypmod,
														  NameStr(attr->attname),
														  file_cxt);
				if (convs[i])
					pf_amudai_converter_set_guid_dotnet(convs[i], opts->guid_dotnet);
			}
			ctx.column = NULL;
		}
		if ((int64) c->stripe != open_stripe)
		{
			if (open_stripe >= 0)
				for (int i = 0; i < natts; i++)
					if (convs[i])
						pf_amudai_converter_end_stripe(convs[i]);
			MemoryContextReset(stripe_cxt);
			open_stripe = c->stripe;
			ctx.stripe = (int) c->stripe;
			for (int i = 0; i < natts; i++)
			{
				if (convs[i] == NULL)
					continue;
				ctx.column = NameStr(TupleDescAttr(tupdesc, i)->attname);
				pf_amudai_converter_begin_stripe(convs[i], ps->shard, ctx.path,
												 c->stripe, stripe_cxt);
				if (pf_amudai_converter_positions(convs[i]) < c->first + c->rows)
					ereport(ERROR,
							(errcode(ERRCODE_DATA_CORRUPTED),
							 errmsg("invalid Amudai shard \"%s\": field of column \"%s\" has fewer positions than its stripe has records",
									ctx.path, ctx.column)));
			}
			ctx.column = NULL;
		}

		/* decode the chunk, then offer its rows to the reservoir */
		MemoryContextReset(chunk_cxt);
		old = MemoryContextSwitchTo(chunk_cxt);
		for (int i = 0; i < natts; i++)
		{
			if (convs[i] == NULL)
			{
				for (uint32 r = 0; r < c->rows; r++)
					nulls[i][r] = true;
				continue;
			}
			ctx.column = NameStr(TupleDescAttr(tupdesc, i)->attname);
			pf_amudai_converter_fill(convs[i], ctx.path, c->first, c->rows,
									 values[i], nulls[i]);
		}
		ctx.column = NULL;
		MemoryContextSwitchTo(old);

		for (uint32 r = 0; r < c->rows; r++)
		{
			for (int i = 0; i < natts; i++)
			{
				row_values[i] = values[i][r];
				row_nulls[i] = convs[i] == NULL || nulls[i][r];
			}
			pf_reservoir_offer(reservoir, row_values, row_nulls);
		}
	}

	if (open_stripe >= 0)
		for (int i = 0; i < natts; i++)
			if (convs[i])
				pf_amudai_converter_end_stripe(convs[i]);
	if (ps)
		pf_close_shard(ps);
	error_context_stack = errcb.previous;
	MemoryContextDelete(chunk_cxt);
	MemoryContextDelete(file_cxt);

	numrows = pf_reservoir_finish(reservoir, rows);

	ereport(elevel,
			(errmsg("\"%s\": read %.0f of %.0f rows (%d of %u chunks of Amudai shards), %d rows in sample",
					RelationGetRelationName(rel), pf_reservoir_seen(reservoir),
					*totalrows, chunks_read, nchunks, numrows)));
	return numrows;
}
