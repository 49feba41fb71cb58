/*-------------------------------------------------------------------------
 *
 * amudai_fdw.h
 *	  Internal interfaces of the Amudai shard side of the PostgreSQL glue:
 *	  opening shards from the backend, value conversion, and what the shard
 *	  source (source_amudai.c) offers besides source.h.
 *
 * IDENTIFICATION
 *	  src/fdw/amudai_fdw.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef AMUDAI_FDW_H
#define AMUDAI_FDW_H

#include "postgres.h"

#include <sys/stat.h>

#include "foreign/fdwapi.h"
#include "nodes/pg_list.h"
#include "utils/memutils.h"
#include "fdw/pg_compat.h"

#include "amudai/amudai.h"

/* in source_amudai.c: the shard source (source.h) and its helpers */

/*
 * Schema id of the top-level field of the shard that column attname (file
 * field field_name) reads: exact name, else the one case-insensitive match
 * (several: ERROR).  -1 when absent, or ERROR if missing_error.
 */
extern int64 pf_amudai_find_field(AmShard *shard, const char *path,
								  const char *attname, const char *field_name,
								  bool missing_error);

/* in amudai_reader.c: shards opened from the backend */
#define PF_SHARD_CACHED 8

/* One open file of a shard (root or stripe file): the PfcSource ctx. */
typedef struct PfShardFile
{
	int			fd;
	char	   *path;
	struct stat opened;			/* fstat() at open: what a change is seen against */
	const char *change;			/* set once the file was seen changed */
} PfShardFile;

typedef struct PfShard
{
	char	   *path;
	int			fd;
	PfShardFile *root;
	PfcSource	source;
	PfcAllocator alloc;			/* pool's allocator, over cxt */
	MemoryContext cxt;
	/* large buffers the layer released, kept for its next block */
	struct PfcBufferPool *pool;
	AmResolver	resolver;		/* stripe files next to the root file */
	List	   *stripe_files;	/* PfShardFile *, the resolver's, in order */
	AmShard    *shard;
	Oid			serverid;		/* a URL's server (stripe URLs too) */
	struct PfRemoteStats *remote_stats; /* charged with the requests of its
										 * URLs, or NULL */
} PfShard;

/*
 * Open a shard (root file and, on demand, its stripe files) with memory
 * from cxt.  Errors are ereport()ed: errcode_for_file_access() for I/O,
 * ERRCODE_DATA_CORRUPTED for malformed shards.
 */
extern PfShard *pf_open_shard(const char *path, MemoryContext cxt);
/*
 * The same for a path that may be an object-store URL, read with the
 * settings of foreign server serverid (InvalidOid: the environment's);
 * its stripe files are then URLs next to it, read the same way.
 */
extern PfShard *pf_open_shard_at(const char *path, Oid serverid, MemoryContext cxt);
/*
 * pf_open_shard_at() that adds the requests and bytes of the shard's URLs
 * (root and stripe files, from the open on) to remote_stats.
 */
extern PfShard *pf_open_shard_counted(const char *path, Oid serverid,
									  struct PfRemoteStats *remote_stats,
									  MemoryContext cxt);
extern void pf_close_shard(PfShard *ps);

/*
 * Is any file of the shard no longer the one opened (written over in
 * place, truncated: size, modification time or inode of its descriptor
 * changed)?  ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE naming the file and
 * the change, with a hint to retry.  A file renamed over or removed is
 * still the descriptor's and reads on unchanged.
 */
extern void pf_shard_check_unchanged(PfShard *ps);

/*
 * Size of file number file of the shard as am_shard_resolve() numbers
 * them (0: the root file, then stripe files in the order opened).
 */
extern uint64 pf_shard_file_size(PfShard *ps, int file);

/* ereport(ERROR) for a failed AmStatus, naming the file and position. */
extern void pf_report_amudai_error(const char *path, const AmError *err) pg_attribute_noreturn();

/*
 * Whether the file is a shard: its name ends in ".amudai.shard" (so an
 * empty or cut one is still judged as a shard), or it starts with the
 * Amudai magic ("amud"); false if unreadable or no regular file.
 */
extern bool pf_file_is_amudai(const char *path);

/* in amudai_convert.c: shard values to Datums, a batch at a time */
typedef struct PfAmConverter PfAmConverter;

/*
 * The PostgreSQL type a top-level shard field maps to by default (format
 * notes, appendix B).  Returns false when the field has no mapping
 * (unions, structs, maps, nested lists).
 */
extern bool pf_amudai_default_type(const AmSchema *schema, uint32_t schema_id,
								   Oid *typid, int32 *typmod);

/*
 * Build the converter of top-level field schema_id to the declared type,
 * in cxt.  A declared type other than the default is reached directly for
 * DateTime -> timestamp/date, else through PostgreSQL's cast from the
 * default type; without one, ERRCODE_FEATURE_NOT_SUPPORTED naming the
 * column.
 */
extern PfAmConverter *pf_amudai_converter_create(const AmSchema *schema,
												 uint32_t schema_id,
												 Oid typid, int32 typmod,
												 const char *column_name,
												 MemoryContext cxt);

/*
 * Convert positions [first, first + count) of the field in the stripe
 * whose readers the converter holds (opened by pf_amudai_converter_begin_
 * stripe, in the stripe's memory context) into values[]/nulls[].
 * By-reference Datums go to the current memory context.
 */
/*
 * Guids (also array elements) read in .NET's mixed-endian layout: the first
 * three groups stored little-endian (producers differ; see the format
 * notes, section 8, item 34).
 */
extern void pf_amudai_converter_set_guid_dotnet(PfAmConverter *conv, bool dotnet);
extern void pf_amudai_converter_begin_stripe(PfAmConverter *conv, AmShard *shard,
											 const char *path, uint32_t stripe,
											 MemoryContext stripe_cxt);
extern void pf_amudai_converter_fill(PfAmConverter *conv, const char *path,
									 uint64_t first, uint32 count,
									 Datum *values, bool *nulls);
extern void pf_amudai_converter_end_stripe(PfAmConverter *conv);
/* Positions of the field in the current stripe. */
extern uint64 pf_amudai_converter_positions(const PfAmConverter *conv);

/*
 * A statistic (AnyValue of a field descriptor) as a Datum of the field's
 * default type typid; false when it cannot be expressed exactly.
 */
extern bool pf_amudai_stat_datum(const AmSchema *schema, uint32_t schema_id,
								 Oid typid, const AmAnyValue *v, Datum *out);

#endif							/* AMUDAI_FDW_H */
