/*-------------------------------------------------------------------------
 *
 * reader.c
 *	  Opening Parquet files from the backend, and turning the format
 *	  layer's errors into PostgreSQL errors.
 *
 * A file's parsed footer comes from the per-backend footer cache
 * (footer_cache.c), which also owns the descriptor reads go through and
 * closes it when the last user lets go (or at transaction end when an error
 * unwound a scan).  The format layer allocates from a memory context
 * through a PfcAllocator, so the memory of readers goes away with the
 * context.
 *
 * IDENTIFICATION
 *	  src/fdw/reader.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "common/buffer_pool.h"
#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_object.h"

/* PfcAllocator callbacks over a memory context. */
static void *
pf_context_alloc(void *ctx, size_t size)
{
	/*
	 * NO_OOM: the layer turns NULL into an error it reports with its
	 * position; HUGE: a large dictionary or page may pass 1 GB (the layer
	 * has checked every size against the file's size already).
	 */
	return MemoryContextAllocExtended((MemoryContext) ctx, Max(size, 1),
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

static void
pf_context_release(void *ctx, void *ptr)
{
	if (ptr != NULL)
		pfree(ptr);
}

/*
 * pf_context_allocator
 *		A PfcAllocator over memory context cxt.
 */
PfcAllocator
pf_context_allocator(MemoryContext cxt)
{
	PfcAllocator alloc;

	alloc.alloc = pf_context_alloc;
	alloc.release = pf_context_release;
	alloc.ctx = cxt;
	return alloc;
}

/*
 * pf_page_pool_create
 *		A scan's pool of page buffers (common/buffer_pool.h), living in
 *		cxt and keeping at most PF_PAGE_POOL_BYTES of released buffers.
 */
PfcBufferPool *
pf_page_pool_create(MemoryContext cxt)
{
	/* pages of any size; a buffer serves requests of at least half its size */
	static const PfcBufferPoolLimits limits = {
		.max_cached = PF_PAGE_POOL_BYTES,
		.max_buffers = PFC_BUFFER_POOL_SLOTS,
		.min_size = 0,
		.max_size = SIZE_MAX,
		.max_waste = 2,
	};
	PfcAllocator backing = pf_context_allocator(cxt);
	PfcBufferPool *pool = pfc_buffer_pool_create(&backing, &limits);

	if (pool == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	return pool;
}

/*
 * pf_open_file
 *		Open a Parquet file: its parsed footer comes from the footer cache
 *		(footer_cache.c), pinned until pf_close_file().  The PfFile itself
 *		is allocated in cxt.
 */
PfFile *
pf_open_file(const char *path, MemoryContext cxt)
{
	/* its callers answer from the footer: ask the store, trust nothing */
	if (pf_is_url(path))
		pf_remote_forget(path);
	return pf_open_file_at(path, InvalidOid, cxt);
}

/* pf_open_file of a path that may be a URL, read with serverid's settings */
PfFile *
pf_open_file_at(const char *path, Oid serverid, MemoryContext cxt)
{
	PfFile	   *pf = MemoryContextAllocZero(cxt, sizeof(PfFile));

	pf->path = MemoryContextStrdup(cxt, path);
	pf->fd = -1;
	pf->alloc = pf_context_allocator(cxt);
	pf->entry = pf_footer_cache_acquire_at(path, serverid);
	pf->file = pf_footer_entry_file(pf->entry);
	pf->source = *pq_file_source(pf->file);
	pf->meta = pq_file_meta(pf->file);
	return pf;
}

/*
 * pf_close_file
 *		Unpin the footer: the metadata must not be used after this.  Memory
 *		of the PfFile stays with the caller's context.
 */
void
pf_close_file(PfFile *pf)
{
	if (pf == NULL)
		return;
	if (pf->entry != NULL)
		pf_footer_cache_release(pf->entry);
	pf->entry = NULL;
	pf->file = NULL;
	pf->meta = NULL;
}

/* Error context line: where in the file the format layer failed. */
static int
position_context(const PqError *err)
{
	if (err->row_group >= 0 && err->column >= 0 && err->page >= 0)
		return errcontext("Parquet row group %d, leaf column %d, page %d",
						  err->row_group, err->column, err->page);
	if (err->row_group >= 0 && err->column >= 0)
		return errcontext("Parquet row group %d, leaf column %d",
						  err->row_group, err->column);
	if (err->row_group >= 0)
		return errcontext("Parquet row group %d", err->row_group);
	return 0;
}

/*
 * pf_report_error
 *		ereport(ERROR) for a failed PqStatus, with the SQLSTATE its kind
 *		calls for: I/O errors as file access errors, malformed files and
 *		checksum mismatches as data corruption, unsupported features as such.
 */
void
pf_report_error(const char *path, const PqError *err)
{
	const char *message = err->message[0] ? err->message : "unknown error";
	const char *detail = err->detail[0] ? err->detail : NULL;

	switch (err->status)
	{
		case PQ_ERR_IO:
			errno = err->sys_errno ? err->sys_errno : EIO;
			if (errno == ENOMEM)
				ereport(ERROR,
						(errcode(ERRCODE_OUT_OF_MEMORY),
						 errmsg("out of memory reading Parquet file \"%s\"", path),
						 detail ? errdetail_internal("%s", detail) : 0,
						 position_context(err)));
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read Parquet file \"%s\": %m", path),
					 errdetail_internal("%s", message),
					 position_context(err)));
			break;
		case PQ_ERR_UNSUPPORTED:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("unsupported Parquet feature in file \"%s\": %s",
							path, message),
					 detail ? errdetail_internal("%s", detail) : 0,
					 position_context(err)));
			break;
		case PQ_ERR_CHECKSUM:
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("page checksum mismatch in Parquet file \"%s\"", path),
					 errdetail_internal("%s", message),
					 errhint("The file was damaged after it was written; the table option verify_checksums 'false' reads it unchecked."),
					 position_context(err)));
			break;
		case PQ_ERR_INVALID_ARGUMENT:
		case PQ_OK:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("internal error reading Parquet file \"%s\": %s",
							path, message),
					 detail ? errdetail_internal("%s", detail) : 0,
					 position_context(err)));
			break;
		case PQ_ERR_CORRUPT:
		default:
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid Parquet file \"%s\": %s", path, message),
					 detail ? errdetail_internal("%s", detail) : 0,
					 position_context(err)));
			break;
	}
	pg_unreachable();
}

/*
 * pf_report_read_error
 *		A page that does not parse, a short read, a checksum mismatch: when
 *		the file changed under the scan, that is the error to report.
 */
void
pf_report_read_error(PfFile *pf, const PqError *err)
{
	if (err->status != PQ_ERR_UNSUPPORTED)
		pf_footer_entry_check_unchanged(pf->entry, true);
	pf_report_error(pf->path, err);
}
