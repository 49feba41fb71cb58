/*-------------------------------------------------------------------------
 *
 * atomic_file.c
 *	  Temporary file, fsync, rename: see atomic_file.h.
 *
 * Pending files live in TopMemoryContext on one list, so the cleanup
 * callbacks find them after the statement's memory is gone.  The callbacks
 * are registered on first use: a session that never writes pays nothing.
 * Plain open()/close() rather than fd.c's transient files, because fd.c
 * closes those at abort on its own schedule and we must close before we
 * unlink (and after a rename we own the descriptor's fate).
 *
 * A URL target is an upload (remote_upload.h) kept on the same list: the
 * store's completed upload plays the rename, its abort the unlink.
 *
 * IDENTIFICATION
 *	  src/fdw/atomic_file.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xact.h"
#include "common/file_perm.h"
#include "lib/ilist.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "utils/memutils.h"

#include "fdw/atomic_file.h"
#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_upload.h"

#define PF_ATOMIC_BUFFER	(256 * 1024)

struct PfAtomicFile
{
	dlist_node	node;
	int			fd;
	PfRemoteUpload *remote;		/* a URL target: the upload, else NULL */
	SubTransactionId subid;		/* the subtransaction that owns it */
	char	   *target;
	char	   *temp;
	char	   *folder;
	uint64		size;
	size_t		buffered;
	char		buffer[PF_ATOMIC_BUFFER];
};

static dlist_head pending = DLIST_STATIC_INIT(pending);
static bool callbacks_registered = false;
static uint32 temp_counter = 0;

/* Close and unlink; used from callbacks, so it never errors. */
static void
discard(PfAtomicFile *file)
{
	dlist_delete(&file->node);
	if (file->remote)
		pf_remote_upload_abort(file->remote);
	else
	{
		if (file->fd >= 0)
			close(file->fd);
		(void) unlink(file->temp);
	}
	file->fd = -1;
	pfree(file->target);
	pfree(file->temp);
	if (file->folder)
		pfree(file->folder);
	pfree(file);
}

static void
discard_all(void)
{
	dlist_mutable_iter iter;

	dlist_foreach_modify(iter, &pending)
		discard(dlist_container(PfAtomicFile, node, iter.cur));
}

/* A file still pending when its transaction ends is abandoned. */
static void
on_xact(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			discard_all();
			break;
		default:
			break;
	}
}

static void
on_subxact(SubXactEvent event, SubTransactionId mySubid,
		   SubTransactionId parentSubid, void *arg)
{
	dlist_mutable_iter iter;

	dlist_foreach_modify(iter, &pending)
	{
		PfAtomicFile *file = dlist_container(PfAtomicFile, node, iter.cur);

		if (file->subid != mySubid)
			continue;
		if (event == SUBXACT_EVENT_ABORT_SUB)
			discard(file);
		else if (event == SUBXACT_EVENT_COMMIT_SUB)
			file->subid = parentSubid;
	}
}

static void
on_backend_exit(int code, Datum arg)
{
	discard_all();
}

static void
register_callbacks(void)
{
	if (callbacks_registered)
		return;
	RegisterXactCallback(on_xact, NULL);
	RegisterSubXactCallback(on_subxact, NULL);
	before_shmem_exit(on_backend_exit, (Datum) 0);
	callbacks_registered = true;
}

PfAtomicFile *
pf_atomic_file_create(const char *target)
{
	return pf_atomic_file_create_on(target, InvalidOid);
}

/* An upload to a URL, on the pending list like a temporary file. */
static PfAtomicFile *
create_remote(const char *target, Oid serverid)
{
	PfRemoteUpload *upload;
	PfAtomicFile *file;

	register_callbacks();
	upload = pf_remote_upload_begin(target, serverid);
	file = MemoryContextAllocZero(TopMemoryContext, sizeof(PfAtomicFile));
	file->fd = -1;
	file->remote = upload;
	file->target = MemoryContextStrdup(TopMemoryContext, target);
	file->temp = MemoryContextStrdup(TopMemoryContext, target);
	file->subid = GetCurrentSubTransactionId();
	dlist_push_tail(&pending, &file->node);
	return file;
}

PfAtomicFile *
pf_atomic_file_create_on(const char *target, Oid serverid)
{
	MemoryContext old;
	PfAtomicFile *file;
	const char *slash;
	const char *base;

	if (pf_is_url(target))
		return create_remote(target, serverid);
	register_callbacks();
	old = MemoryContextSwitchTo(TopMemoryContext);
	file = palloc(sizeof(PfAtomicFile));
	file->target = pstrdup(target);
	slash = strrchr(target, '/');
	file->folder = slash == NULL ? pstrdup(".") :
		slash == target ? pstrdup("/") : pnstrdup(target, slash - target);
	base = slash == NULL ? target : slash + 1;
	file->temp = NULL;
	file->fd = -1;
	file->remote = NULL;
	file->size = 0;
	file->buffered = 0;
	file->subid = GetCurrentSubTransactionId();
	MemoryContextSwitchTo(old);

	if (*base == '\0')
	{
		pfree(file->target);
		pfree(file->folder);
		pfree(file);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("file name \"%s\" names a folder", target)));
	}

	for (int attempt = 0; file->fd < 0; attempt++)
	{
		if (file->temp)
			pfree(file->temp);
		file->temp = MemoryContextStrdup(TopMemoryContext,
										 psprintf("%s/.%s.%d.%u.tmp", file->folder, base,
												  MyProcPid, ++temp_counter));
		file->fd = open(file->temp, O_WRONLY | O_CREAT | O_EXCL | PG_BINARY,
						pg_file_create_mode);
		if (file->fd < 0 && (errno != EEXIST || attempt >= 100))
		{
			int			save_errno = errno;
			char	   *temp = pstrdup(file->temp);

			pfree(file->temp);
			pfree(file->target);
			pfree(file->folder);
			pfree(file);
			errno = save_errno;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not create temporary file \"%s\": %m", temp)));
		}
	}
	dlist_push_tail(&pending, &file->node);
	return file;
}

static int
flush_buffer(PfAtomicFile *file)
{
	const char *p = file->buffer;
	size_t		len = file->buffered;

	while (len > 0)
	{
		ssize_t		n = write(file->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? ENOSPC : errno;
		p += n;
		len -= (size_t) n;
	}
	file->buffered = 0;
	return 0;
}

void
pf_atomic_file_report(const PfAtomicFile *file, int errnum)
{
	if (file->remote)
		pf_remote_upload_report(file->remote);
	errno = errnum;
	ereport(ERROR,
			(errcode_for_file_access(),
			 errmsg("could not write file \"%s\": %m", file->temp)));
}

int
pf_atomic_file_write(PfAtomicFile *file, const void *data, size_t len)
{
	const char *p = data;

	if (file->remote)
		return pf_remote_upload_write(file->remote, data, len);
	file->size += len;
	while (len > 0)
	{
		size_t		room = PF_ATOMIC_BUFFER - file->buffered;
		size_t		n = Min(room, len);

		memcpy(file->buffer + file->buffered, p, n);
		file->buffered += n;
		p += n;
		len -= n;
		if (file->buffered == PF_ATOMIC_BUFFER)
		{
			int			rc = flush_buffer(file);

			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

uint64
pf_atomic_file_size(const PfAtomicFile *file)
{
	if (file->remote)
		return pf_remote_upload_size(file->remote);
	return file->size;
}

static void
fsync_folder(const char *folder)
{
	int			fd = open(folder, O_RDONLY | PG_BINARY);

	if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL && errno != EBADF))
	{
		int			save_errno = errno;

		if (fd >= 0)
			close(fd);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not fsync folder \"%s\": %m", folder)));
	}
	close(fd);
}

/* Complete the upload: the object appears now, whole. */
static void
commit_remote(PfAtomicFile *file, bool replace)
{
	if (!replace)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot add object \"%s\" without replacing one of that name",
						file->target)));
	pf_remote_upload_commit(file->remote);
	file->remote = NULL;
	dlist_delete(&file->node);
	pfree(file->target);
	pfree(file->temp);
	pfree(file);
}

void
pf_atomic_file_commit(PfAtomicFile *file, bool replace)
{
	int			rc;

	if (file->remote)
	{
		commit_remote(file, replace);
		return;
	}
	rc = flush_buffer(file);

	if (rc != 0)
		pf_atomic_file_report(file, rc);
	if (pg_fsync(file->fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not fsync file \"%s\": %m", file->temp)));
	if (close(file->fd) != 0)
	{
		file->fd = -1;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", file->temp)));
	}
	file->fd = -1;
	if (replace)
	{
		if (rename(file->temp, file->target) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not rename file \"%s\" to \"%s\": %m",
							file->temp, file->target)));
	}
	else
	{
		/* link() fails when the target exists: never replaces a file */
		if (link(file->temp, file->target) != 0)
		{
			int			code = errno == EEXIST ? ERRCODE_DUPLICATE_FILE :
				ERRCODE_IO_ERROR;

			ereport(ERROR,
					(errcode(code),
					 errmsg("could not create file \"%s\": %m", file->target)));
		}
		(void) unlink(file->temp);
	}
	/* renamed: nothing left to clean up, whatever fsync_folder says */
	{
		char	   *folder = pstrdup(file->folder);

		dlist_delete(&file->node);
		pfree(file->target);
		pfree(file->temp);
		pfree(file->folder);
		pfree(file);
		fsync_folder(folder);
		pfree(folder);
	}
}

void
pf_atomic_file_abort(PfAtomicFile *file)
{
	if (file != NULL)
		discard(file);
}
