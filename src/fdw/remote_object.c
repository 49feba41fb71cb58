/*-------------------------------------------------------------------------
 *
 * remote_object.c
 *	  An object-store object as a PfcSource: a HEAD, a tail buffer for the
 *	  footer, prefetched row-group ranges, ranged GETs with If-Match.
 *
 * IDENTIFICATION
 *	  src/fdw/remote_object.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "commands/explain.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_object.h"

/* A footer, and the page indexes before it, in one request. */
#define PF_REMOTE_TAIL_BYTES	((uint64) 64 * 1024)

/* A fetched range of the object. */
typedef struct RemoteBuffer
{
	uint64		offset;
	uint64		len;
	char	   *data;
} RemoteBuffer;

struct PfRemoteObject
{
	MemoryContext cxt;			/* the object and its tail */
	MemoryContext prefetch_cxt; /* the current prefetch's buffers */
	char	   *url;
	RmtUrl		parsed;
	RmtStore   *store;
	uint64		size;
	char		etag[128];
	RemoteBuffer tail;			/* data NULL until the tail is read */
	RemoteBuffer *prefetched;
	int			nprefetched;
	PfRemoteStats *stats;

	/*
	 * The next ranges, fetched in the background (pf_remote_object_fetch_next)
	 * into buffers of pending_cxt that become the prefetched ones when taken.
	 */
	MemoryContext pending_cxt;
	RmtFetch   *pending;
	RemoteBuffer *pending_bufs;
	int			npending;
	MemoryContextCallback cancel_cb;	/* cancels pending when obj goes */
};

/* ----------------------------------------------------------------
 * HEADs, once per statement
 * ----------------------------------------------------------------
 */

typedef struct HeadResult
{
	Oid			serverid;
	char	   *url;
	uint64		size;
	char		etag[128];
} HeadResult;

static MemoryContext statement_cxt = NULL;
static uint64 statement_generation = 0;
static TimestampTz statement_start = 0;
static TimestampTz statement_xact = 0;

MemoryContext
pf_remote_statement_cxt(uint64 *generation)
{
	TimestampTz now = GetCurrentStatementStartTimestamp();
	TimestampTz xact = GetCurrentTransactionStartTimestamp();

	if (statement_cxt == NULL)
		statement_cxt = AllocSetContextCreate(TopMemoryContext,
											  "parquet_fdw remote statement cache",
											  ALLOCSET_SMALL_SIZES);
	if (now != statement_start || xact != statement_xact)
	{
		MemoryContextReset(statement_cxt);
		statement_generation++;
		statement_start = now;
		statement_xact = xact;
	}
	*generation = statement_generation;
	return statement_cxt;
}

static List *head_results = NIL;
static uint64 head_generation = 0;

/* The store's counters since *before, added to stats. */
static void
charge(PfRemoteStats *stats, RmtStore *store, const RmtStoreStats *before)
{
	const RmtStoreStats *now = rmt_store_stats(store);

	if (stats == NULL)
		return;
	stats->requests += (int64) (now->requests - before->requests);
	stats->bytes_fetched += (int64) (now->bytes_fetched - before->bytes_fetched);
}

static void
head_request(const char *url, RmtStore *store, const RmtUrl *parsed,
			 uint64 *size, char *etag)
{
	RmtObjectInfo info;
	RmtError	err;

	memset(&err, 0, sizeof(err));
	if (rmt_store_head(store, parsed, &info, &err) != RMT_OK)
		pf_remote_report(url, &err);
	*size = info.size;
	strlcpy(etag, info.etag, 128);
}

void
pf_remote_head(const char *url, Oid serverid, uint64 *size, char *etag)
{
	RmtUrl		parsed;
	RmtStore   *store;
	ListCell   *lc;
	HeadResult *h;
	MemoryContext old;
	MemoryContext head_cxt;
	uint64		generation;

	/* the privilege is checked on every call, cached or not */
	store = pf_remote_store(url, serverid, &parsed);
	head_cxt = pf_remote_statement_cxt(&generation);
	if (generation != head_generation)
	{
		head_results = NIL;
		head_generation = generation;
	}
	foreach(lc, head_results)
	{
		h = (HeadResult *) lfirst(lc);
		if (h->serverid == serverid && strcmp(h->url, url) == 0)
		{
			*size = h->size;
			strlcpy(etag, h->etag, 128);
			return;
		}
	}
	head_request(url, store, &parsed, size, etag);
	old = MemoryContextSwitchTo(head_cxt);
	h = palloc0(sizeof(HeadResult));
	h->serverid = serverid;
	h->url = pstrdup(url);
	h->size = *size;
	strlcpy(h->etag, etag, sizeof(h->etag));
	head_results = lappend(head_results, h);
	MemoryContextSwitchTo(old);
}

char *
pf_remote_identity(const char *url, Oid serverid)
{
	uint64		size;
	char		etag[128];

	pf_remote_head(url, serverid, &size, etag);
	return psprintf("%llu:%s", (unsigned long long) size, etag);
}

void
pf_explain_remote(const PfRemoteStats *stats, ExplainState *es)
{
	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		/* ExplainIndentText() is not exported before PostgreSQL 16 */
		appendStringInfoSpaces(es->str, es->indent * 2);
		appendStringInfo(es->str, "Requests: %lld  Bytes Fetched: %lld\n",
						 (long long) stats->requests,
						 (long long) stats->bytes_fetched);
		return;
	}
	ExplainPropertyInteger("Requests", NULL, stats->requests, es);
	ExplainPropertyInteger("Bytes Fetched", NULL, stats->bytes_fetched, es);
}

/* ----------------------------------------------------------------
 * Reads
 * ----------------------------------------------------------------
 */

/* One ranged GET of exactly len bytes at offset, If-Match the ETag. */
static void
fetch(PfRemoteObject *obj, uint64 offset, void *buf, size_t len)
{
	RmtStoreStats before = *rmt_store_stats(obj->store);
	RmtError	err;
	RmtStatus	st;

	memset(&err, 0, sizeof(err));
	st = rmt_store_read(obj->store, &obj->parsed, offset, len, buf,
						obj->etag, &err);
	charge(obj->stats, obj->store, &before);
	if (st != RMT_OK)
		pf_remote_report(obj->url, &err);
}

static bool
serve_from(const RemoteBuffer *b, uint64 offset, void *buf, size_t len)
{
	if (b->data == NULL || offset < b->offset ||
		offset + len > b->offset + b->len)
		return false;
	memcpy(buf, b->data + (offset - b->offset), len);
	return true;
}

/* Sort ranges, clip them to the object and merge overlaps; returns the count. */
static int
merge_ranges(const PfRemoteObject *obj, PfRemoteRange *sorted,
			 const PfRemoteRange *ranges, int nranges);

/* Whether the background fetch holds [offset, offset + len). */
static bool
pending_covers(const PfRemoteObject *obj, uint64 offset, size_t len)
{
	for (int i = 0; i < obj->npending; i++)
		if (offset >= obj->pending_bufs[i].offset &&
			offset + len <= obj->pending_bufs[i].offset + obj->pending_bufs[i].len)
			return true;
	return false;
}

/* Drop the background fetch and its buffers. */
static void
cancel_pending(PfRemoteObject *obj)
{
	if (obj->pending != NULL)
	{
		RmtFetch   *f = obj->pending;

		obj->pending = NULL;
		rmt_store_fetch_cancel(f);
	}
	obj->pending_bufs = NULL;
	obj->npending = 0;
	MemoryContextReset(obj->pending_cxt);
}

/* The object's memory goes (statement end, error): stop its transfers. */
static void
cancel_pending_cb(void *arg)
{
	PfRemoteObject *obj = (PfRemoteObject *) arg;

	if (obj->pending != NULL)
	{
		RmtFetch   *f = obj->pending;

		obj->pending = NULL;
		rmt_store_fetch_cancel(f);
	}
}

/* PfcSource.read_at: buffers first, then the tail, then one GET. */
static int
remote_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	PfRemoteObject *obj = (PfRemoteObject *) ctx;
	uint64		tail_start;

	if (offset > obj->size || len > obj->size - offset)
		return EIO;
	if (len == 0)
		return 0;
	for (int i = 0; i < obj->nprefetched; i++)
		if (serve_from(&obj->prefetched[i], offset, buf, len))
			return 0;
	if (serve_from(&obj->tail, offset, buf, len))
		return 0;
	if (obj->pending != NULL && pending_covers(obj, offset, len))
	{
		pf_remote_object_take_next(obj);
		for (int i = 0; i < obj->nprefetched; i++)
			if (serve_from(&obj->prefetched[i], offset, buf, len))
				return 0;
	}

	tail_start = obj->size > PF_REMOTE_TAIL_BYTES ?
		obj->size - PF_REMOTE_TAIL_BYTES : 0;
	if (obj->tail.data == NULL && offset >= tail_start)
	{
		obj->tail.offset = tail_start;
		obj->tail.len = obj->size - tail_start;
		obj->tail.data = MemoryContextAlloc(obj->cxt, obj->tail.len);
		PG_TRY();
		{
			fetch(obj, obj->tail.offset, obj->tail.data, obj->tail.len);
		}
		PG_CATCH();
		{
			pfree(obj->tail.data);
			obj->tail.data = NULL;
			PG_RE_THROW();
		}
		PG_END_TRY();
		memcpy(buf, obj->tail.data + (offset - tail_start), len);
		return 0;
	}
	fetch(obj, offset, buf, len);
	return 0;
}

PfRemoteObject *
pf_remote_object_open(const char *url, Oid serverid, MemoryContext cxt)
{
	MemoryContext ocxt = AllocSetContextCreate(cxt, "parquet_fdw remote object",
											   ALLOCSET_SMALL_SIZES);
	PfRemoteObject *obj = MemoryContextAllocZero(ocxt, sizeof(PfRemoteObject));

	obj->cxt = ocxt;
	obj->prefetch_cxt = AllocSetContextCreate(ocxt, "parquet_fdw prefetch",
											  ALLOCSET_DEFAULT_SIZES);
	obj->pending_cxt = AllocSetContextCreate(ocxt, "parquet_fdw prefetch ahead",
											 ALLOCSET_DEFAULT_SIZES);
	obj->cancel_cb.func = cancel_pending_cb;
	obj->cancel_cb.arg = obj;
	MemoryContextRegisterResetCallback(ocxt, &obj->cancel_cb);
	obj->url = MemoryContextStrdup(ocxt, url);
	pf_remote_head(url, serverid, &obj->size, obj->etag);
	obj->store = pf_remote_store(url, serverid, &obj->parsed);
	return obj;
}

void
pf_remote_object_close(PfRemoteObject *obj)
{
	if (obj != NULL)
		MemoryContextDelete(obj->cxt);
}

PfcSource
pf_remote_object_source(PfRemoteObject *obj)
{
	PfcSource	source;

	source.read_at = remote_read_at;
	source.size = obj->size;
	source.ctx = obj;
	return source;
}

uint64
pf_remote_object_size(const PfRemoteObject *obj)
{
	return obj->size;
}

const char *
pf_remote_object_etag(const PfRemoteObject *obj)
{
	return obj->etag;
}

const char *
pf_remote_object_url(const PfRemoteObject *obj)
{
	return obj->url;
}

void
pf_remote_object_charge(PfRemoteObject *obj, PfRemoteStats *stats)
{
	obj->stats = stats;
}

void
pf_remote_object_uncharge(PfRemoteObject *obj, PfRemoteStats *stats)
{
	if (obj->stats == stats)
		obj->stats = NULL;
}

static int
compare_ranges(const void *a, const void *b)
{
	const PfRemoteRange *x = a;
	const PfRemoteRange *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset ? 1 : 0;
}

static int
merge_ranges(const PfRemoteObject *obj, PfRemoteRange *sorted,
			 const PfRemoteRange *ranges, int nranges)
{
	int			n = 0;
	int			m = 0;

	for (int i = 0; i < nranges; i++)
	{
		if (ranges[i].len == 0 || ranges[i].offset >= obj->size)
			continue;
		/* the tail has it already (page indexes, usually) */
		if (obj->tail.data != NULL && ranges[i].offset >= obj->tail.offset &&
			ranges[i].offset + ranges[i].len <= obj->tail.offset + obj->tail.len)
			continue;
		sorted[n] = ranges[i];
		sorted[n].len = Min(sorted[n].len, obj->size - sorted[n].offset);
		n++;
	}
	if (n == 0)
		return 0;
	qsort(sorted, n, sizeof(PfRemoteRange), compare_ranges);
	for (int i = 1; i < n; i++)
	{
		uint64		end = sorted[m].offset + sorted[m].len;

		if (sorted[i].offset <= end)
			sorted[m].len = Max(end, sorted[i].offset + sorted[i].len) - sorted[m].offset;
		else
			sorted[++m] = sorted[i];
	}
	return m + 1;
}

/*
 * Buffers for ranges (merged, every byte once) in cxt, and the store's
 * pieces pointing into them.
 */
static int
make_buffers(const PfRemoteObject *obj, MemoryContext cxt,
			 const PfRemoteRange *ranges, int nranges,
			 RemoteBuffer **bufs, RmtRange **pieces)
{
	PfRemoteRange *sorted;
	int			n;

	*bufs = NULL;
	*pieces = NULL;
	if (nranges <= 0)
		return 0;
	sorted = MemoryContextAlloc(cxt, sizeof(PfRemoteRange) * nranges);
	n = merge_ranges(obj, sorted, ranges, nranges);
	if (n == 0)
		return 0;
	*bufs = MemoryContextAllocZero(cxt, sizeof(RemoteBuffer) * n);
	*pieces = MemoryContextAlloc(cxt, sizeof(RmtRange) * n);
	for (int i = 0; i < n; i++)
	{
		(*bufs)[i].offset = sorted[i].offset;
		(*bufs)[i].len = sorted[i].len;
		(*bufs)[i].data = MemoryContextAllocHuge(cxt, sorted[i].len);
		(*pieces)[i].offset = sorted[i].offset;
		(*pieces)[i].len = sorted[i].len;
		(*pieces)[i].buf = (*bufs)[i].data;
	}
	return n;
}

void
pf_remote_object_prefetch(PfRemoteObject *obj, const PfRemoteRange *ranges,
						  int nranges)
{
	RemoteBuffer *bufs;
	RmtRange   *pieces;
	int			n;
	RmtStoreStats before;
	RmtError	err;
	RmtStatus	st;

	MemoryContextReset(obj->prefetch_cxt);
	obj->prefetched = NULL;
	obj->nprefetched = 0;
	n = make_buffers(obj, obj->prefetch_cxt, ranges, nranges, &bufs, &pieces);
	if (n == 0)
		return;

	before = *rmt_store_stats(obj->store);
	memset(&err, 0, sizeof(err));
	st = rmt_store_read_many(obj->store, &obj->parsed, pieces, n, obj->etag, &err);
	charge(obj->stats, obj->store, &before);
	if (st != RMT_OK)
	{
		MemoryContextReset(obj->prefetch_cxt);
		pf_remote_report(obj->url, &err);
	}
	obj->prefetched = bufs;
	obj->nprefetched = n;
}

void
pf_remote_object_fetch_next(PfRemoteObject *obj, const PfRemoteRange *ranges,
							int nranges)
{
	RmtRange   *pieces;
	RmtStoreStats before;
	RmtError	err;
	RmtStatus	st;
	RmtFetch   *f;

	cancel_pending(obj);
	obj->npending = make_buffers(obj, obj->pending_cxt, ranges, nranges,
								 &obj->pending_bufs, &pieces);
	if (obj->npending == 0)
		return;
	before = *rmt_store_stats(obj->store);
	memset(&err, 0, sizeof(err));
	st = rmt_store_fetch_begin(obj->store, &obj->parsed, pieces, obj->npending,
							   obj->etag, &f, &err);
	charge(obj->stats, obj->store, &before);
	if (st != RMT_OK)
	{
		cancel_pending(obj);
		pf_remote_report(obj->url, &err);
	}
	obj->pending = f;
}

void
pf_remote_object_poll(PfRemoteObject *obj)
{
	RmtStoreStats before;

	if (obj == NULL || obj->pending == NULL)
		return;
	before = *rmt_store_stats(obj->store);
	(void) rmt_store_fetch_poll(obj->pending);
	charge(obj->stats, obj->store, &before);
}

bool
pf_remote_object_take_next(PfRemoteObject *obj)
{
	RmtStoreStats before;
	RmtError	err;
	RmtStatus	st;
	RmtFetch   *f = obj->pending;
	MemoryContext swap;

	if (f == NULL)
		return false;
	before = *rmt_store_stats(obj->store);
	obj->pending = NULL;		/* wait frees it, whatever it returns */
	st = rmt_store_fetch_wait(f, &err);
	charge(obj->stats, obj->store, &before);
	if (st != RMT_OK)
	{
		cancel_pending(obj);
		pf_remote_report(obj->url, &err);
	}

	/* the fetched buffers become the prefetched ones */
	MemoryContextReset(obj->prefetch_cxt);
	swap = obj->prefetch_cxt;
	obj->prefetch_cxt = obj->pending_cxt;
	obj->pending_cxt = swap;
	obj->prefetched = obj->pending_bufs;
	obj->nprefetched = obj->npending;
	obj->pending_bufs = NULL;
	obj->npending = 0;
	return true;
}

void
pf_remote_object_drop_buffers(PfRemoteObject *obj)
{
	cancel_pending(obj);
	MemoryContextReset(obj->prefetch_cxt);
	obj->prefetched = NULL;
	obj->nprefetched = 0;
}
