/*-------------------------------------------------------------------------
 *
 * reader.c
 *	  Opening Parquet files from the backend, and turning the format
 *	  layer's errors into PostgreSQL errors.
 *
 * Files are opened with OpenTransientFile, so PostgreSQL closes them at
 * transaction abort when an error unwinds a scan; pf_close_file() closes
 * them on the normal path.  The format layer reads through a PqSource over
 * the descriptor (pread) and allocates from a memory context through a
 * PqAllocator, so its memory goes away with the context.
 *
 * IDENTIFICATION
 *	  src/fdw/reader.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/fd.h"
#include "utils/memutils.h"

#include "fdw/parquet_fdw.h"

/* PqSource.read_at over a file descriptor: exactly len bytes or an errno. */
static int
pf_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	PfFile	   *pf = (PfFile *) ctx;
	char	   *dst = (char *) buf;

	while (len > 0)
	{
		ssize_t		n = pg_pread(pf->fd, dst, len, (off_t) offset);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (n == 0)
			return EIO;			/* the file shrank under us */
		dst += n;
		offset += n;
		len -= n;
	}
	return 0;
}

/* PqAllocator callbacks over a memory context. */
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
 *		A PqAllocator over memory context cxt.
 */
PqAllocator
pf_context_allocator(MemoryContext cxt)
{
	PqAllocator alloc;

	alloc.alloc = pf_context_alloc;
	alloc.release = pf_context_release;
	alloc.ctx = cxt;
	return alloc;
}

/*
 * pf_open_file
 *		Open a Parquet file and read its footer, in memory context cxt.
 */
PfFile *
pf_open_file(const char *path, MemoryContext cxt)
{
	PfFile	   *pf = MemoryContextAllocZero(cxt, sizeof(PfFile));
	struct stat st;
	PqError		err;
	PqStatus	status;

	pf->path = MemoryContextStrdup(cxt, path);
	pf->fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (pf->fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open Parquet file \"%s\": %m", path)));
	if (fstat(pf->fd, &st) != 0)
	{
		int			save_errno = errno;

		CloseTransientFile(pf->fd);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat Parquet file \"%s\": %m", path)));
	}
	if (S_ISDIR(st.st_mode))
	{
		CloseTransientFile(pf->fd);
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a directory, not a Parquet file", path)));
	}

	pf->source.read_at = pf_read_at;
	pf->source.size = (uint64_t) st.st_size;
	pf->source.ctx = pf;
	pf->alloc = pf_context_allocator(cxt);

	pq_error_clear(&err);
	status = pq_file_open(&pf->file, &pf->source, &pf->alloc, &err);
	if (status != PQ_OK)
	{
		CloseTransientFile(pf->fd);
		pf->fd = -1;
		if (err.status == PQ_OK)
			err.status = status;
		pf_report_error(path, &err);
	}
	pf->meta = pq_file_meta(pf->file);
	return pf;
}

/*
 * pf_close_file
 *		Close the descriptor; memory stays with the caller's context.
 */
void
pf_close_file(PfFile *pf)
{
	if (pf == NULL)
		return;
	if (pf->file != NULL)
	{
		pq_file_close(pf->file);
		pf->file = NULL;
	}
	if (pf->fd >= 0)
	{
		CloseTransientFile(pf->fd);
		pf->fd = -1;
	}
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
					 errmsg("page checksum mismatch in Parquet file \"%s\": %s",
							path, message),
					 detail ? errdetail_internal("%s", detail) : 0,
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
