/*-------------------------------------------------------------------------
 *
 * amudai_reader.c
 *	  Opening Amudai shards from the backend: file descriptors as PfcSource,
 *	  memory contexts as PfcAllocator, stripe files of two-level shards
 *	  through an AmResolver, and AmStatus errors as ereport()s.
 *
 * Descriptors come from OpenTransientFile, so an error anywhere in the
 * scan closes them at transaction abort; memory lives in the caller's
 * context.
 *
 * IDENTIFICATION
 *	  src/fdw/amudai_reader.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/fd.h"
#include "utils/memutils.h"

#include "common/buffer_pool.h"
#include "common/file_read.h"
#include "fdw/amudai_fdw.h"
#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_object.h"

/*
 * A file of the shard seen changed by a read (shard_read_at), for
 * pf_report_amudai_error() to name: the read runs inside the format layer,
 * which must not be unwound by an ereport, so it only fails with ESTALE
 * and leaves the what here (copied: the file's memory may be gone by the
 * time the error is reported).
 */
static bool change_pending = false;
static char change_path[MAXPGPATH];
static struct stat change_was;
static struct stat change_now;

/*
 * Has the file under the descriptor changed since it was opened?  Written
 * in place or truncated, its size or modification time moves; a file
 * renamed over or removed keeps both (only its ctime moves) and is still
 * the descriptor's, so it is not a change here.
 */
static bool
file_changed(const struct stat *was, const struct stat *now)
{
	return now->st_size != was->st_size ||
		now->st_mtim.tv_sec != was->st_mtim.tv_sec ||
		now->st_mtim.tv_nsec != was->st_mtim.tv_nsec;
}

static void
report_change(const char *path, const struct stat *was, const struct stat *now)
{
	change_pending = false;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("file \"%s\" changed while it was being read", path),
			 now->st_size != was->st_size ?
			 errdetail("Its size changed from %lld to %lld bytes.",
					   (long long) was->st_size, (long long) now->st_size) :
			 errdetail("Its modification time changed."),
			 errhint("Retry the query.")));
}

/*
 * PfcSource.read_at over a descriptor: exactly len bytes or an errno.
 * Bytes read while the file is being written over are no answer, so every
 * read looks at the file afterwards (a write moves mtime before it copies
 * its bytes): an fstat() per block read, far below the cost of the read.
 */
static int
shard_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	PfShardFile *f = (PfShardFile *) ctx;
	int			rc = pfc_pread_exact(f->fd, buf, len, offset);
	struct stat now;

	if (fstat(f->fd, &now) == 0 && file_changed(&f->opened, &now))
	{
		strlcpy(change_path, f->path, sizeof(change_path));
		change_was = f->opened;
		change_now = now;
		change_pending = true;
		return ESTALE;
	}
	return rc;
}

/*
 * The layer releases and asks again for the same large buffers (decoded
 * values, codes, block bytes) at every block.  Handed back to malloc, their
 * pages go back to the kernel and the next block faults them in again,
 * about a seventh of a string scan; so up to PF_SHARD_CACHED buffers of
 * 32 kB..4 MB are kept and reused by size (best fit, at most 4x the size
 * asked for).
 */
static const PfcBufferPoolLimits shard_pool_limits = {
	.max_cached = (size_t) PF_SHARD_CACHED * 4 * 1024 * 1024,
	.max_buffers = PF_SHARD_CACHED,
	.min_size = (size_t) 32 * 1024,
	.max_size = (size_t) 4 * 1024 * 1024,
	.max_waste = 4,
};

/*
 * Open path as a PfcSource, never blocking (pf_open_regular); returns 0 or
 * an errno, EINVAL when the path is no regular file (*mode then says what
 * it is; 0 otherwise).
 */
static int
open_source(const char *path, MemoryContext cxt, PfcSource *out, mode_t *mode)
{
	PfShardFile *f;
	struct stat st;
	int			fd = pf_open_regular(path, &st);

	*mode = st.st_mode;
	if (fd < 0)
		return errno;
	f = MemoryContextAllocZero(cxt, sizeof(PfShardFile));
	f->fd = fd;
	f->path = MemoryContextStrdup(cxt, path);
	f->opened = st;
	out->read_at = shard_read_at;
	out->size = (uint64_t) st.st_size;
	out->ctx = f;
	return 0;
}

/*
 * The last stripe file the resolver refused as no regular file, for
 * pf_report_amudai_error() to name: the resolver runs inside the format
 * layer, which must not be unwound by an ereport, so it only returns
 * EINVAL and leaves the why here.
 */
static char *refused_stripe = NULL;
static mode_t refused_stripe_mode;

/* AmResolver.open: a stripe file in the root file's folder. */
/* A URL of the shard as a source, its requests charged as the shard's are. */
static PfcSource
open_remote(PfShard *ps, const char *url, MemoryContext cxt)
{
	PfRemoteObject *obj = pf_remote_object_open(url, ps->serverid, cxt);

	if (ps->remote_stats != NULL)
		pf_remote_object_charge(obj, ps->remote_stats);
	return pf_remote_object_source(obj);
}

static int
resolver_open(void *ctx, const char *url, size_t url_len, PfcSource *out)
{
	PfShard    *ps = (PfShard *) ctx;
	MemoryContext cxt = ps->cxt;
	const char *slash = strrchr(ps->path, '/');
	size_t		dir_len = slash ? (size_t) (slash - ps->path) + 1 : 0;
	char	   *path = MemoryContextAlloc(cxt, dir_len + url_len + 1);
	mode_t		mode;
	int			rc;

	memcpy(path, ps->path, dir_len);
	memcpy(path + dir_len, url, url_len);
	path[dir_len + url_len] = '\0';
	if (pf_is_url(ps->path))
	{
		/* a store's errors say more than an errno: raised as they are */
		PfShardFile *f = MemoryContextAllocZero(cxt, sizeof(PfShardFile));
		MemoryContext old;

		*out = open_remote(ps, path, cxt);
		/* no descriptor: the ETag guards changes; the size bounds DataRefs */
		f->fd = -1;
		f->path = path;
		f->opened.st_size = (off_t) out->size;
		old = MemoryContextSwitchTo(cxt);
		ps->stripe_files = lappend(ps->stripe_files, f);
		MemoryContextSwitchTo(old);
		return 0;
	}
	rc = open_source(path, cxt, out, &mode);
	if (rc != 0 && mode != 0 && !S_ISREG(mode))
	{
		if (refused_stripe != NULL)
			pfree(refused_stripe);
		refused_stripe = MemoryContextStrdup(TopMemoryContext, path);
		refused_stripe_mode = mode;
	}
	if (rc == 0)
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		ps->stripe_files = lappend(ps->stripe_files, out->ctx);
		MemoryContextSwitchTo(old);
	}
	return rc;
}

static void
resolver_close(void *ctx, PfcSource *source)
{
	/* descriptors are closed by pf_close_shard */
}

PfShard *
pf_open_shard(const char *path, MemoryContext cxt)
{
	return pf_open_shard_at(path, InvalidOid, cxt);
}

PfShard *
pf_open_shard_at(const char *path, Oid serverid, MemoryContext cxt)
{
	return pf_open_shard_counted(path, serverid, NULL, cxt);
}

PfShard *
pf_open_shard_counted(const char *path, Oid serverid,
					  struct PfRemoteStats *remote_stats, MemoryContext cxt)
{
	PfShard    *ps = MemoryContextAllocZero(cxt, sizeof(PfShard));
	AmError		err;
	AmStatus	status;
	PfcAllocator backing;
	mode_t		mode = 0;
	int			rc = 0;

	change_pending = false;
	ps->path = MemoryContextStrdup(cxt, path);
	ps->fd = -1;
	ps->serverid = serverid;
	ps->remote_stats = remote_stats;
	if (pf_is_url(path))
		ps->source = open_remote(ps, path, cxt);
	else
		rc = open_source(path, cxt, &ps->source, &mode);
	if (rc != 0)
	{
		errno = rc;
		if (mode != 0 && !S_ISREG(mode))
			pf_report_not_regular(path, mode, "an Amudai shard");
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open Amudai shard \"%s\": %m", path)));
	}
	if (!pf_is_url(path))
	{
		ps->root = (PfShardFile *) ps->source.ctx;
		ps->fd = ps->root->fd;
	}
	ps->cxt = cxt;
	backing = pf_context_allocator(cxt);
	ps->pool = pfc_buffer_pool_create(&backing, &shard_pool_limits);
	if (ps->pool == NULL)
	{
		pf_close_shard(ps);
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	}
	ps->alloc = pfc_buffer_pool_allocator(ps->pool);
	ps->resolver.open = resolver_open;
	ps->resolver.close = resolver_close;
	ps->resolver.ctx = ps;

	am_error_clear(&err);
	status = am_shard_open(&ps->shard, &ps->source, &ps->resolver, &ps->alloc,
						   &err);
	if (status != AM_OK)
	{
		pf_close_shard(ps);
		if (err.status == AM_OK)
			err.status = status;
		pf_report_amudai_error(path, &err);
	}
	return ps;
}

void
pf_close_shard(PfShard *ps)
{
	ListCell   *lc;

	if (ps == NULL)
		return;
	if (ps->shard != NULL)
	{
		am_shard_close(ps->shard);
		ps->shard = NULL;
	}
	foreach(lc, ps->stripe_files)
	{
		PfShardFile *f = (PfShardFile *) lfirst(lc);

		if (f->fd >= 0)
			CloseTransientFile(f->fd);
	}
	ps->stripe_files = NIL;
	if (ps->fd >= 0)
	{
		CloseTransientFile(ps->fd);
		ps->fd = -1;
	}
	/* after the shard: closing it hands its buffers back to the pool */
	pfc_buffer_pool_destroy(ps->pool);
	ps->pool = NULL;
}

void
pf_shard_check_unchanged(PfShard *ps)
{
	struct stat now;
	ListCell   *lc;

	if (ps->root != NULL && fstat(ps->root->fd, &now) == 0 &&
		file_changed(&ps->root->opened, &now))
		report_change(ps->root->path, &ps->root->opened, &now);
	foreach(lc, ps->stripe_files)
	{
		PfShardFile *f = (PfShardFile *) lfirst(lc);

		if (f->fd >= 0 && fstat(f->fd, &now) == 0 && file_changed(&f->opened, &now))
			report_change(f->path, &f->opened, &now);
	}
}

uint64
pf_shard_file_size(PfShard *ps, int file)
{
	if (file <= 0)
		return ps->source.size;
	if (file - 1 < list_length(ps->stripe_files))
		return (uint64) ((PfShardFile *) list_nth(ps->stripe_files, file - 1))->opened.st_size;
	return 0;
}

bool
pf_file_is_amudai(const char *path)
{
	struct stat st;
	size_t		len = strlen(path);
	int			fd;
	char		magic[4];
	bool		result;

	/*
	 * The name first: a shard cut short (or empty) has lost its magic but
	 * is still to be reported as a bad shard, not as a bad Parquet file.
	 */
	if (len > 13 && pg_strcasecmp(path + len - 13, ".amudai.shard") == 0)
		return true;
	if (pf_is_url(path))
		return false;			/* an object is judged by its name only */
	fd = pf_open_regular(path, &st);
	if (fd < 0)
		return false;
	result = pfc_pread_exact(fd, magic, 4, 0) == 0 && memcmp(magic, "amud", 4) == 0;
	CloseTransientFile(fd);
	return result;
}

/* Error context line: where in the shard the layer failed. */
static int
position_context(const AmError *err)
{
	if (err->stripe >= 0 && err->field >= 0 && err->block >= 0)
		return errcontext("Amudai stripe %lld, field %lld, block %lld",
						  (long long) err->stripe, (long long) err->field,
						  (long long) err->block);
	if (err->stripe >= 0 && err->field >= 0)
		return errcontext("Amudai stripe %lld, field %lld",
						  (long long) err->stripe, (long long) err->field);
	if (err->stripe >= 0)
		return errcontext("Amudai stripe %lld", (long long) err->stripe);
	if (err->field >= 0)
		return errcontext("Amudai field %lld", (long long) err->field);
	return 0;
}

void
pf_report_amudai_error(const char *path, const AmError *err)
{
	const char *message = err->message[0] ? err->message : "unknown error";

	/* a read saw the file change: that, not what the bytes looked like */
	if (change_pending)
		report_change(pstrdup(change_path), &change_was, &change_now);

	if (err->status == AM_ERR_IO && err->sys_errno == EINVAL &&
		refused_stripe != NULL)
	{
		char	   *stripe = pstrdup(refused_stripe);

		pfree(refused_stripe);
		refused_stripe = NULL;
		pf_report_not_regular(stripe, refused_stripe_mode,
							  psprintf("a stripe file of Amudai shard \"%s\"", path));
	}
	switch (err->status)
	{
		case AM_ERR_IO:
			errno = err->sys_errno ? err->sys_errno : EIO;
			if (errno == ENOMEM)
				ereport(ERROR,
						(errcode(ERRCODE_OUT_OF_MEMORY),
						 errmsg("out of memory reading Amudai shard \"%s\"", path),
						 position_context(err)));
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read Amudai shard \"%s\": %m", path),
					 errdetail_internal("%s", message),
					 position_context(err)));
			break;
		case AM_ERR_UNSUPPORTED:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("unsupported Amudai feature in shard \"%s\": %s",
							path, message),
					 position_context(err)));
			break;
		case AM_ERR_CHECKSUM:
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("checksum mismatch in Amudai shard \"%s\": %s",
							path, message),
					 position_context(err)));
			break;
		case AM_ERR_INVALID_ARGUMENT:
		case AM_OK:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("internal error reading Amudai shard \"%s\": %s",
							path, message),
					 position_context(err)));
			break;
		case AM_ERR_CORRUPT:
		default:
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid Amudai shard \"%s\": %s", path, message),
					 position_context(err)));
			break;
	}
	pg_unreachable();
}
