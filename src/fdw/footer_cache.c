/*-------------------------------------------------------------------------
 *
 * footer_cache.c
 *	  A per-backend cache of parsed Parquet footers, so that planning the
 *	  same files again neither reads nor parses their footers.
 *
 * Entries are keyed by path and remember the identity of the file they were
 * read from (device, inode, size, mtime, ctime).  Every acquire stats the
 * path first: a file changed since is read again, never served stale.
 *
 * An entry owns a memory context holding the parsed footer (a PqFile) and,
 * while somebody reads through it, a file descriptor.  Users pin entries
 * (acquire) and unpin them (release).  The cache's size is limited by
 * parquet_fdw.footer_cache_size (kB): past it, least recently used entries
 * are freed, but never a pinned one: an entry evicted or found stale while
 * pinned leaves the table and is freed by its last release.  So a scan's
 * metadata stays valid until the scan ends, whatever happens to the cache.
 *
 * The descriptor is opened on the first read (planning from a warm cache
 * opens no file at all) with BasicOpenFile and accounted as an external FD;
 * it is closed when the last pin goes.  At the end of every top-level
 * transaction all pins are dropped and descriptors closed: a scan that an
 * error unwound never releases its pins itself.  When a subtransaction
 * aborts, the pins its scans leaked stay until then, but every descriptor
 * is closed, so failing subtransactions cannot pile up open files; a scan
 * still running reopens its file on its next read (checking it is still the
 * same file).
 *
 * Object-store URLs are entries too, keyed by server and URL and
 * identified by size and ETag: every acquire HEADs the URL (once per
 * statement, remote_object.c), an entry whose ETag or size differs is read
 * again.  Such an entry reads through its PfRemoteObject instead of a
 * descriptor; its prefetched buffers are dropped with the last pin.
 *
 * IDENTIFICATION
 *	  src/fdw/footer_cache.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xact.h"
#include "common/hashfn.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/ilist.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "common/file_read.h"
#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_object.h"

/* GUC parquet_fdw.footer_cache_size, in kB */
int			pf_footer_cache_size_kb = 64 * 1024;

/* The identity of a file: a change in any of these is a new file. */
typedef struct PfFileIdentity
{
	dev_t		dev;
	ino_t		ino;
	off_t		size;
	struct timespec mtime;
	struct timespec ctime;
	char		etag[128];		/* remote objects: their ETag, else "" */
} PfFileIdentity;

struct PfFooterEntry
{
	char	   *path;			/* the file or URL */
	char	   *key;			/* in the table: path, or "server url" */
	PfRemoteObject *remote;		/* a URL's object, else NULL */
	Oid			serverid;		/* whose settings read the URL */
	PfFileIdentity id;			/* of the file the footer was read from */
	MemoryContext cxt;			/* owns the entry and everything below */
	PqFile	   *file;			/* the parsed footer; reads go to fd */
	int			fd;				/* open while pinned and read, else -1 */
	int			pins;
	bool		in_table;		/* else detached: freed at the last release */
	Size		mem;			/* bytes charged to the cache */
	dlist_node	node;			/* in lru when in_table, else in detached */
};

/* A slot of the hash table: path -> entry. */
typedef struct PfCacheSlot
{
	const char *path;			/* the entry's key */
	PfFooterEntry *entry;
	uint32		hash;
	char		status;
} PfCacheSlot;

#define SH_PREFIX		pfcache
#define SH_ELEMENT_TYPE	PfCacheSlot
#define SH_KEY_TYPE		const char *
#define SH_KEY			path
#define SH_HASH_KEY(tb, key) \
	hash_bytes((const unsigned char *) (key), (int) strlen(key))
#define SH_EQUAL(tb, a, b)	(strcmp((a), (b)) == 0)
#define SH_SCOPE		static inline
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a)	((a)->hash)
#define SH_DEFINE
#define SH_DECLARE
#include "lib/simplehash.h"

static MemoryContext cache_cxt = NULL;
static pfcache_hash *cache_table = NULL;
static dlist_head lru = DLIST_STATIC_INIT(lru);	/* most recent first */
static dlist_head detached = DLIST_STATIC_INIT(detached);
static Size cache_mem = 0;		/* bytes of the entries in the table */

/* counters for parquet_footer_cache_info() */
static int64 cache_hits = 0;
static int64 cache_misses = 0;
static int64 cache_evictions = 0;

static void cache_xact_callback(XactEvent event, void *arg);
static void cache_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
								   SubTransactionId parentSubid, void *arg);

/* ----------------------------------------------------------------
 * Entries
 * ----------------------------------------------------------------
 */

static void
identity_from_stat(PfFileIdentity *id, const struct stat *st)
{
	memset(id, 0, sizeof(*id));
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime = st->st_mtim;
	id->ctime = st->st_ctim;
}

static bool
identity_equal(const PfFileIdentity *a, const PfFileIdentity *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
		a->mtime.tv_sec == b->mtime.tv_sec &&
		a->mtime.tv_nsec == b->mtime.tv_nsec &&
		a->ctime.tv_sec == b->ctime.tv_sec &&
		a->ctime.tv_nsec == b->ctime.tv_nsec &&
		strcmp(a->etag, b->etag) == 0;
}

static void
entry_close_fd(PfFooterEntry *e)
{
	if (e->fd >= 0)
	{
		close(e->fd);
		ReleaseExternalFD();
		e->fd = -1;
	}
}

/*
 * Open the entry's file, checking it is still the file its footer came
 * from.  Returns 0 or an errno (ESTALE when the path names another file).
 */
static int
entry_open_fd(PfFooterEntry *e, PfFileIdentity *id_out)
{
	struct stat st;
	int			fd;
	int			rc;

	if (!AcquireExternalFD())
		return EMFILE;
	/* non-blocking: a FIFO put in the file's place must not hang us */
	fd = BasicOpenFile(e->path, PF_OPEN_READ_FLAGS);
	if (fd < 0)
	{
		int			save_errno = errno;

		ReleaseExternalFD();
		return save_errno;
	}
	if (fstat(fd, &st) != 0)
		rc = errno;
	else if ((rc = pf_keep_regular(fd, &st)) != 0 && !S_ISREG(st.st_mode))
		rc = ESTALE;			/* not the regular file stat() saw */
	if (rc != 0)
	{
		close(fd);
		ReleaseExternalFD();
		return rc;
	}
	/* what was opened must be what the plan checked (open_path.c) */
	PG_TRY();
	{
		pf_check_opened_file(e->path, &st);
	}
	PG_CATCH();
	{
		close(fd);
		ReleaseExternalFD();
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (id_out)
		identity_from_stat(id_out, &st);
	else
	{
		PfFileIdentity id;

		identity_from_stat(&id, &st);
		if (!identity_equal(&id, &e->id))
		{
			close(fd);
			ReleaseExternalFD();
			return ESTALE;
		}
	}
	e->fd = fd;
	return 0;
}

/* PfcSource.read_at over the entry's file: exactly len bytes or an errno. */
static int
entry_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	PfFooterEntry *e = (PfFooterEntry *) ctx;

	if (e->fd < 0)
	{
		int			rc;

		/* only pinned entries are read */
		if (e->pins <= 0)
			return EBADF;
		if ((rc = entry_open_fd(e, NULL)) != 0)
			return rc;
	}
	return pfc_pread_exact(e->fd, buf, len, offset);
}

/* A remote entry nobody reads keeps its footer, not its row-group buffers. */
static void
entry_drop_buffers(PfFooterEntry *e)
{
	if (e->remote != NULL)
	{
		pf_remote_object_prefetch(e->remote, NULL, 0);
		pf_remote_object_charge(e->remote, NULL);
	}
}

static void
entry_free(PfFooterEntry *e)
{
	Assert(e->pins == 0 && !e->in_table);
	entry_close_fd(e);
	dlist_delete(&e->node);
	if (e->file)
		pq_file_close(e->file);
	MemoryContextDelete(e->cxt);
}

/* Take the entry out of the table; freed now, or at its last release. */
static void
entry_detach(PfFooterEntry *e)
{
	Assert(e->in_table);
	pfcache_delete(cache_table, e->key);
	cache_mem -= e->mem;
	e->in_table = false;
	dlist_delete(&e->node);
	dlist_push_head(&detached, &e->node);
	if (e->pins == 0)
		entry_free(e);
}

/* Free least recently used unpinned entries until the cache fits its size. */
static void
evict_to_limit(void)
{
	Size		limit = (Size) pf_footer_cache_size_kb * 1024;
	dlist_node *cur;
	dlist_node *prev;

	/* from the least recently used end; entry_detach() unlinks cur */
	for (cur = lru.head.prev; cur != &lru.head && cache_mem > limit; cur = prev)
	{
		PfFooterEntry *e = dlist_container(PfFooterEntry, node, cur);

		prev = cur->prev;
		if (e->pins > 0)
			continue;
		cache_evictions++;
		entry_detach(e);
	}
}

static void
cache_init(void)
{
	if (cache_cxt != NULL)
		return;
	cache_cxt = AllocSetContextCreate(TopMemoryContext,
									  "parquet_fdw footer cache",
									  ALLOCSET_DEFAULT_SIZES);
	cache_table = pfcache_create(cache_cxt, 256, NULL);
	RegisterXactCallback(cache_xact_callback, NULL);
	RegisterSubXactCallback(cache_subxact_callback, NULL);
}

/* A new entry for path, pinned and detached, with no file read yet. */
static PfFooterEntry *
entry_new(const char *path, const char *key, Oid serverid)
{
	MemoryContext cxt;
	PfFooterEntry *e;

	cxt = AllocSetContextCreate(cache_cxt, "parquet_fdw footer",
								ALLOCSET_SMALL_SIZES);
	e = MemoryContextAllocZero(cxt, sizeof(PfFooterEntry));
	e->cxt = cxt;
	e->path = MemoryContextStrdup(cxt, path);
	e->key = key ? MemoryContextStrdup(cxt, key) : e->path;
	e->serverid = serverid;
	e->fd = -1;
	e->pins = 1;
	dlist_push_head(&detached, &e->node);
	return e;
}

/*
 * Parse the footer read through source into e; on any error (a parse
 * failure, or one a remote read raised) e is freed and the error raised.
 */
static void
entry_parse_footer(PfFooterEntry *e, PfcSource *source)
{
	PfcAllocator alloc = pf_context_allocator(e->cxt);
	PqError		err;
	PqStatus	status;

	pq_error_clear(&err);
	PG_TRY();
	{
		status = pq_file_open(&e->file, source, &alloc, &err);
	}
	PG_CATCH();
	{
		e->file = NULL;
		e->pins = 0;
		entry_free(e);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (status != PQ_OK)
	{
		const char *path = pstrdup(e->path);

		e->file = NULL;
		e->pins = 0;
		entry_free(e);
		if (err.status == PQ_OK)
			err.status = status;
		pf_report_error(path, &err);
	}
	e->mem = MemoryContextMemAllocated(e->cxt, true);
}

/*
 * Read the footer of the file at path into a new entry, pinned, its
 * descriptor open.  ereports on failure, leaving nothing behind.
 */
static PfFooterEntry *
entry_load(const char *path)
{
	PfFooterEntry *e = entry_new(path, NULL, InvalidOid);
	PfcSource	source;
	int			rc;

	rc = entry_open_fd(e, &e->id);
	if (rc != 0)
	{
		e->pins = 0;
		entry_free(e);
		errno = rc;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open Parquet file \"%s\": %m", path)));
	}
	source.read_at = entry_read_at;
	source.size = (uint64_t) e->id.size;
	source.ctx = e;
	entry_parse_footer(e, &source);
	return e;
}

/*
 * Read the footer of the object at url into a new entry, pinned.  Its
 * identity is the object's size and the ETag its reads are bound to.
 */
static PfFooterEntry *
entry_load_remote(const char *url, Oid serverid, const char *key)
{
	PfFooterEntry *e = entry_new(url, key, serverid);
	PfcSource	source;

	PG_TRY();
	{
		e->remote = pf_remote_object_open(url, serverid, e->cxt);
	}
	PG_CATCH();
	{
		e->pins = 0;
		entry_free(e);
		PG_RE_THROW();
	}
	PG_END_TRY();
	e->id.size = (off_t) pf_remote_object_size(e->remote);
	strlcpy(e->id.etag, pf_remote_object_etag(e->remote), sizeof(e->id.etag));
	source = pf_remote_object_source(e->remote);
	entry_parse_footer(e, &source);
	return e;
}

/* ----------------------------------------------------------------
 * Interface
 * ----------------------------------------------------------------
 */

/*
 * pf_footer_cache_acquire
 *		The parsed footer of the file at path, pinned until
 *		pf_footer_cache_release().  Served from the cache when the file is
 *		the one cached (same device, inode, size, mtime and ctime), read
 *		and cached otherwise.
 */
PfFooterEntry *
pf_footer_cache_acquire(const char *path)
{
	return pf_footer_cache_acquire_at(path, InvalidOid);
}

/*
 * pf_footer_cache_acquire_at
 *		pf_footer_cache_acquire, for a path that may be a URL read with the
 *		settings of foreign server serverid (InvalidOid: none).
 */
PfFooterEntry *
pf_footer_cache_acquire_at(const char *path, Oid serverid)
{
	struct stat st;
	PfFileIdentity id;
	PfCacheSlot *slot;
	PfFooterEntry *e;
	bool		found;
	bool		remote = pf_is_url(path);
	char	   *key = (char *) path;

	cache_init();
	evict_to_limit();			/* the limit may have been lowered */
	memset(&id, 0, sizeof(id));
	if (remote)
	{
		uint64		size;

		pf_remote_head(path, serverid, &size, id.etag);
		id.size = (off_t) size;
		key = psprintf("%u %s", serverid, path);
	}
	else
	{
		if (stat(path, &st) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open Parquet file \"%s\": %m", path)));
		if (!S_ISREG(st.st_mode))
			pf_report_not_regular(path, st.st_mode, "a Parquet file");
		identity_from_stat(&id, &st);
	}

	slot = pfcache_lookup(cache_table, key);
	if (slot != NULL)
	{
		e = slot->entry;
		if (identity_equal(&e->id, &id))
		{
			cache_hits++;
			e->pins++;
			dlist_move_head(&lru, &e->node);
			return e;
		}
		/* the file changed: whoever still reads the old one keeps it */
		entry_detach(e);
	}

	cache_misses++;
	e = remote ? entry_load_remote(path, serverid, key) : entry_load(path);

	/*
	 * Cache it only if it is the file stat() saw (else it changed while we
	 * read it: serve this read, cache nothing) and the cache may hold it.
	 */
	if (identity_equal(&e->id, &id) && pf_footer_cache_size_kb > 0)
	{
		slot = pfcache_insert(cache_table, e->key, &found);
		Assert(!found);
		slot->entry = e;
		e->in_table = true;
		cache_mem += e->mem;
		dlist_delete(&e->node);
		dlist_push_head(&lru, &e->node);
		evict_to_limit();
	}
	return e;
}

/* The cached footer of url on serverid (an object's entry), or NULL. */
static PfFooterEntry *
remote_entry(const char *url, Oid serverid)
{
	PfCacheSlot *slot;
	char	   *key;

	if (cache_table == NULL)
		return NULL;
	key = psprintf("%u %s", serverid, url);
	slot = pfcache_lookup(cache_table, key);
	pfree(key);
	return slot != NULL && slot->entry->remote != NULL ? slot->entry : NULL;
}

/*
 * pf_footer_cache_remote_peek
 *		The object behind the cached footer of url on serverid whose
 *		identity is size and etag, or NULL; neither pinned nor moved in the
 *		LRU order: valid until the cache is next used.
 */
PfRemoteObject *
pf_footer_cache_remote_peek(const char *url, Oid serverid, uint64 size,
							const char *etag)
{
	PfFooterEntry *e = remote_entry(url, serverid);

	if (e == NULL || (uint64) e->id.size != size || strcmp(e->id.etag, etag) != 0)
		return NULL;
	return e->remote;
}

/*
 * pf_footer_cache_remote_identity
 *		The size and ETag (at least 128 bytes) of the footer cached for url
 *		on serverid, whatever the object is now: false when none is.
 */
bool
pf_footer_cache_remote_identity(const char *url, Oid serverid, uint64 *size,
								char *etag)
{
	PfFooterEntry *e = remote_entry(url, serverid);

	if (e == NULL)
		return false;
	*size = (uint64) e->id.size;
	strlcpy(etag, e->id.etag, 128);
	return true;
}

/* pf_footer_entry_remote: the object of a URL's entry, else NULL. */
PfRemoteObject *
pf_footer_entry_remote(PfFooterEntry *e)
{
	return e->remote;
}

/* pf_footer_entry_file: the parsed footer of a pinned entry. */
PqFile *
pf_footer_entry_file(PfFooterEntry *e)
{
	return e->file;
}

/*
 * pf_footer_cache_release
 *		Unpin; the last pin closes the descriptor, and frees the entry if it
 *		left the table meanwhile.
 */
void
pf_footer_cache_release(PfFooterEntry *e)
{
	if (e == NULL || e->pins <= 0)
		return;					/* already dropped at transaction end */
	if (--e->pins > 0)
		return;
	entry_close_fd(e);
	entry_drop_buffers(e);
	if (!e->in_table)
		entry_free(e);
	else
		evict_to_limit();
}

/*
 * What differs between the identity a footer was read with and the file's
 * now, as an errdetail sentence (NULL: nothing).
 */
static char *
identity_change(const PfFileIdentity *was, const PfFileIdentity *now)
{
	if (was->dev != now->dev || was->ino != now->ino)
		return psprintf("The file was replaced by another one (inode %llu, now %llu).",
						(unsigned long long) was->ino,
						(unsigned long long) now->ino);
	if (was->size != now->size)
		return psprintf("Its size changed from %lld to %lld bytes.",
						(long long) was->size, (long long) now->size);
	if (!identity_equal(was, now))
		return pstrdup("Its modification or status change time changed.");
	return NULL;
}

/*
 * pf_footer_entry_check_unchanged
 *		ereport(ERROR) when the file a pinned entry was read from changed
 *		since: written in place (its open descriptor sees that) or, with
 *		by_path, also replaced or removed at its path.  A scan calls it
 *		when it starts a row group (not by_path: an open descriptor still
 *		reads the file the scan began with, whatever the path names now)
 *		and before it reports a failed read (by_path), so that a file
 *		changing under it is named as such, not as a damaged file or a
 *		disk fault, and no row group is read from a file written over.
 *
 * ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE: the file is no longer in the
 * state the query planned and began reading; nothing is wrong with the
 * file itself, and running the query again reads it as it is now.  (A
 * serialization failure would invite drivers to retry silently on what
 * may be a writer that never stops.)
 */
void
pf_footer_entry_check_unchanged(PfFooterEntry *e, bool by_path)
{
	struct stat st;
	PfFileIdentity now;
	char	   *change = NULL;

	if (e == NULL)
		return;
	/* reads of an object carry If-Match: only a by_path check asks again */
	if (e->remote != NULL)
	{
		uint64		size;
		char		etag[128];

		if (!by_path)
			return;
		pf_remote_head(e->path, e->serverid, &size, etag);
		if (size != (uint64) e->id.size || strcmp(etag, e->id.etag) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("object \"%s\" changed while it was being read", e->path),
					 errdetail_internal("Its ETag changed from %s to %s.", e->id.etag, etag),
					 errhint("Retry the query.")));
		return;
	}
	/* the path first: unlinking the old file changes its ctime too */
	if (by_path)
	{
		if (stat(e->path, &st) != 0)
		{
			if (errno == ENOENT)
				change = pstrdup("The file was removed.");
		}
		else
		{
			identity_from_stat(&now, &st);
			change = identity_change(&e->id, &now);
		}
	}
	if (change == NULL && e->fd >= 0 && fstat(e->fd, &st) == 0)
	{
		identity_from_stat(&now, &st);
		/* a removed or renamed-over file's ctime moves, its bytes do not */
		if (!by_path && now.size == e->id.size &&
			now.mtime.tv_sec == e->id.mtime.tv_sec &&
			now.mtime.tv_nsec == e->id.mtime.tv_nsec)
			return;
		change = identity_change(&e->id, &now);
	}
	if (change != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("file \"%s\" changed while it was being read", e->path),
				 errdetail_internal("%s", change),
				 errhint("Retry the query.")));
}

/*
 * End of a top-level transaction: every scan has ended or been unwound by
 * an error, so no pin can be live.  Drop them all, which closes every
 * descriptor and frees the detached entries.
 */
static void
cache_xact_callback(XactEvent event, void *arg)
{
	dlist_mutable_iter it;

	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			break;
		default:
			return;
	}
	dlist_foreach_modify(it, &detached)
	{
		PfFooterEntry *e = dlist_container(PfFooterEntry, node, it.cur);

		e->pins = 0;
		entry_free(e);
	}
	dlist_foreach_modify(it, &lru)
	{
		PfFooterEntry *e = dlist_container(PfFooterEntry, node, it.cur);

		e->pins = 0;
		entry_close_fd(e);
		entry_drop_buffers(e);
	}
	evict_to_limit();
}

/*
 * Subtransaction abort: the pins of the scans it unwound stay until the end
 * of the transaction, their descriptors need not.  Close them all; live
 * scans reopen theirs on their next read.
 */
static void
cache_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	dlist_iter	it;

	if (event != SUBXACT_EVENT_ABORT_SUB)
		return;
	/* the unwound scans' counters are freed: objects must not count there */
	dlist_foreach(it, &detached)
	{
		entry_close_fd(dlist_container(PfFooterEntry, node, it.cur));
		if (dlist_container(PfFooterEntry, node, it.cur)->remote != NULL)
			pf_remote_object_charge(dlist_container(PfFooterEntry, node, it.cur)->remote, NULL);
	}
	dlist_foreach(it, &lru)
	{
		entry_close_fd(dlist_container(PfFooterEntry, node, it.cur));
		if (dlist_container(PfFooterEntry, node, it.cur)->remote != NULL)
			pf_remote_object_charge(dlist_container(PfFooterEntry, node, it.cur)->remote, NULL);
	}
}

/*
 * parquet_footer_cache_info()
 *		This backend's cache: entries, bytes, hits, misses, evictions, and
 *		pinned: entries in use (in the table or not).
 */
PG_FUNCTION_INFO_V1(parquet_footer_cache_info);

Datum
parquet_footer_cache_info(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};
	int64		pinned = 0;
	dlist_iter	it;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum(cache_table ? (int64) cache_table->members : 0);
	values[1] = Int64GetDatum((int64) cache_mem);
	values[2] = Int64GetDatum(cache_hits);
	values[3] = Int64GetDatum(cache_misses);
	values[4] = Int64GetDatum(cache_evictions);
	dlist_foreach(it, &lru)
		pinned += dlist_container(PfFooterEntry, node, it.cur)->pins > 0;
	dlist_foreach(it, &detached)
		pinned += dlist_container(PfFooterEntry, node, it.cur)->pins > 0;
	values[5] = Int64GetDatum(pinned);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
