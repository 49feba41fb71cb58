/*-------------------------------------------------------------------------
 *
 * remote_object.c
 *	  An object-store object as a PfcSource: a HEAD, a tail buffer for the
 *	  footer, prefetched row-group ranges, ranged GETs with If-Match.
 *
 * An object's identity (size and ETag) comes from a HEAD, made at most
 * once per statement.  With parquet_fdw.remote_metadata_ttl set (0 by
 * default), a backend trusts the identities it saw for that many seconds
 * and plans without asking again: on a store 10-100 ms away, the HEAD is a
 * round trip in front of every statement over a cached footer.  Such an
 * identity is still checked in every statement that uses it, only later
 * and mostly for free: every read is bound to the ETag (If-Match), so the
 * first read that the store answers confirms it, and a scan that reads
 * nothing from the store (its rows in the cached tail, or all its row
 * groups pruned) sends the HEAD before it answers (pf_remote_object_verify,
 * pf_remote_verify_statement).  An object replaced meanwhile fails that
 * statement with 55000 and is forgotten with the plans made for it, so the
 * next statement plans for the object as it is.  Any aborted transaction
 * forgets every identity.
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
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/timestamp.h"

#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_object.h"

/* A footer, and the page indexes before it, in one request. */
#define PF_REMOTE_TAIL_BYTES	((uint64) 64 * 1024)
/* ... with the object's first bytes (the head magic) beside it */
#define PF_REMOTE_HEAD_BYTES	((uint64) 8)
/* ... grown to hold a larger footer up to this size */
#define PF_REMOTE_TAIL_MAX_BYTES	((uint64) 4 * 1024 * 1024)
/* tails handed to parallel workers, in all */
#define PF_HANDOFF_MAX_TAIL_BYTES	((Size) 16 * 1024 * 1024)

/*
 * A small read no buffer holds fetches this much from its offset, kept
 * until the next such read: metadata read piece by piece (an Amudai
 * stripe's field descriptors, lists) lies close together, and a round
 * trip costs far more than the bytes.
 */
#define PF_REMOTE_AROUND_BYTES	((uint64) 256 * 1024)

/* A fetched range of the object. */
typedef struct RemoteBuffer
{
	uint64		offset;
	uint64		len;
	char	   *data;
} RemoteBuffer;

/*
 * One set of ranges fetched together (a row group's column chunks): its
 * buffers live in a context of their own, so each set is freed alone.
 * While fetch is set the requests are still running; a taken set's
 * buffers serve reads.
 */
typedef struct RemoteSet
{
	int			tag;			/* the caller's name for it (-1: none) */
	uint64		generation;		/* of the statement that asked for it */
	bool		taken;
	bool		speculative;	/* asked for by planning: no scan owns it yet */
	PfRemoteStats spec_charge;	/* a speculative set's requests and bytes
								 * before its scan adopted it */
	MemoryContext cxt;
	RmtFetch   *fetch;
	RemoteBuffer *bufs;
	int			nbufs;
	uint64		bytes;
} RemoteSet;

#define PF_REMOTE_MAX_SETS	32

struct PfRemoteObject
{
	MemoryContext cxt;			/* the object and its tail */
	char	   *url;
	Oid			serverid;
	RmtUrl		parsed;
	RmtStore   *store;
	uint64		size;
	char		etag[128];
	RemoteBuffer tail;			/* data NULL until the tail is read */
	RemoteBuffer head;			/* the first bytes, read with the tail */
	bool		handed_tried;	/* looked for a tail the leader handed over */
	RemoteBuffer around;		/* the last small read's neighbourhood */
	PfRemoteStats *stats;

	/* taken sets serve reads; the others are being fetched, oldest first */
	RemoteSet	sets[PF_REMOTE_MAX_SETS];
	int			nsets;
	MemoryContextCallback cancel_cb;	/* cancels fetches when obj goes */
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
	bool		verified;		/* a HEAD or a read of this statement saw it */
	bool		speculative;	/* the cached footer's, until planning settles
								 * it (pf_remote_settle) */
} HeadResult;

static MemoryContext statement_cxt = NULL;
static uint64 statement_generation = 0;
static TimestampTz statement_start = 0;
static TimestampTz statement_xact = 0;

/*
 * Objects that planning fetched sets for (pf_remote_object_speculate): a
 * statement planned but never run (EXPLAIN, an error, a cursor never
 * fetched from) leaves its sets, and the footer cache keeps the object, so
 * the end of the transaction or the next statement drops them.  An object
 * leaves when its memory goes.  At most this many objects' first windows
 * (each up to 32 MiB) are held.
 */
#define PF_SPECULATING_MAX	4
static PfRemoteObject *speculating[PF_SPECULATING_MAX];
static int	nspeculating = 0;
static bool speculating_callback_set = false;

static void
end_speculation(XactEvent event, void *arg)
{
	if (event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT &&
		event != XACT_EVENT_PARALLEL_COMMIT && event != XACT_EVENT_PARALLEL_ABORT)
		return;
	for (int i = 0; i < nspeculating; i++)
		pf_remote_object_cancel_speculative(speculating[i]);
	nspeculating = 0;
}

static void drop_stale_speculative(PfRemoteObject *obj);

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
		/* speculation no scan took: its statement is over */
		for (int i = 0; i < nspeculating; i++)
			drop_stale_speculative(speculating[i]);
		nspeculating = 0;
	}
	*generation = statement_generation;
	return statement_cxt;
}

static List *head_results = NIL;
static uint64 head_generation = 0;

/* GUC parquet_fdw.remote_metadata_ttl, in seconds (0: HEAD every statement) */
int			pf_remote_metadata_ttl_s = 0;

/*
 * Identities seen by this backend, keyed by "server url"; at most
 * PF_KNOWN_MAX of them (then the table starts over), URLs of up to
 * PF_KNOWN_KEY_LEN bytes (longer ones are asked about every statement).
 */
#define PF_KNOWN_MAX		16384
#define PF_KNOWN_KEY_LEN	1024

typedef struct KnownObject
{
	char		key[PF_KNOWN_KEY_LEN];
	uint64		size;
	char		etag[128];
	TimestampTz seen;			/* when a HEAD returned it */
} KnownObject;

static HTAB *known_objects = NULL;
static bool known_callback_set = false;

/* An aborted transaction may have met a replaced object: ask again. */
static void
known_forget_on_abort(XactEvent event, void *arg)
{
	if ((event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT) &&
		known_objects != NULL)
	{
		hash_destroy(known_objects);
		known_objects = NULL;
	}
}

static bool
known_key(char *key, const char *url, Oid serverid)
{
	return snprintf(key, PF_KNOWN_KEY_LEN, "%u %s", serverid, url) < PF_KNOWN_KEY_LEN;
}

/* The identity a HEAD returned less than the TTL ago, if any. */
static bool
known_lookup(const char *url, Oid serverid, uint64 *size, char *etag)
{
	char		key[PF_KNOWN_KEY_LEN];
	KnownObject *k;

	if (known_objects == NULL || pf_remote_metadata_ttl_s <= 0 ||
		!known_key(key, url, serverid))
		return false;
	k = hash_search(known_objects, key, HASH_FIND, NULL);
	if (k == NULL ||
		TimestampDifferenceExceeds(k->seen, GetCurrentTimestamp(),
								   pf_remote_metadata_ttl_s * 1000))
		return false;
	*size = k->size;
	strlcpy(etag, k->etag, 128);
	return true;
}

static void
known_remember(const char *url, Oid serverid, uint64 size, const char *etag)
{
	char		key[PF_KNOWN_KEY_LEN];
	KnownObject *k;

	if (pf_remote_metadata_ttl_s <= 0 || etag[0] == '\0' ||
		!known_key(key, url, serverid))
		return;
	if (known_objects != NULL && hash_get_num_entries(known_objects) >= PF_KNOWN_MAX)
	{
		hash_destroy(known_objects);
		known_objects = NULL;
	}
	if (known_objects == NULL)
	{
		HASHCTL		ctl;

		if (!known_callback_set)
		{
			RegisterXactCallback(known_forget_on_abort, NULL);
			known_callback_set = true;
		}
		ctl.keysize = PF_KNOWN_KEY_LEN;
		ctl.entrysize = sizeof(KnownObject);
		ctl.hcxt = TopMemoryContext;
		known_objects = hash_create("parquet_fdw remote identities", 64, &ctl,
									HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	}
	k = hash_search(known_objects, key, HASH_ENTER, NULL);
	k->size = size;
	strlcpy(k->etag, etag, sizeof(k->etag));
	k->seen = GetCurrentTimestamp();
}

void
pf_remote_forget(const char *url)
{
	HASH_SEQ_STATUS it;
	KnownObject *k;
	ListCell   *lc;

	if (known_objects != NULL)
	{
		hash_seq_init(&it, known_objects);
		while ((k = hash_seq_search(&it)) != NULL)
		{
			const char *space = strchr(k->key, ' ');

			if (space != NULL && strcmp(space + 1, url) == 0)
				(void) hash_search(known_objects, k->key, HASH_REMOVE, NULL);
		}
	}
	/* nor may a later read of this statement take it from its HEADs */
	foreach(lc, head_results)
	{
		HeadResult *h = (HeadResult *) lfirst(lc);

		if (strcmp(h->url, url) == 0)
			h->url[0] = '\0';
	}
}

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

/* Memory for this statement's HEAD results (a new statement has none). */
static MemoryContext
statement_heads_cxt(void)
{
	uint64		generation;
	MemoryContext cxt = pf_remote_statement_cxt(&generation);

	if (generation != head_generation)
	{
		head_results = NIL;
		head_generation = generation;
	}
	return cxt;
}

/* Note url's identity as this statement's. */
static HeadResult *
add_statement_head(const char *url, Oid serverid, uint64 size,
				   const char *etag, bool verified)
{
	MemoryContext old = MemoryContextSwitchTo(statement_heads_cxt());
	HeadResult *h = palloc0(sizeof(HeadResult));

	h->serverid = serverid;
	h->url = pstrdup(url);
	h->size = size;
	strlcpy(h->etag, etag, sizeof(h->etag));
	h->verified = verified;
	head_results = lappend(head_results, h);
	MemoryContextSwitchTo(old);
	return h;
}

/* This statement's HEAD results, or NIL. */
static List *
statement_heads(void)
{
	uint64		generation;

	(void) pf_remote_statement_cxt(&generation);
	return generation == head_generation ? head_results : NIL;
}

/* This statement's HEAD result for url on serverid, or NULL. */
static HeadResult *
statement_head(const char *url, Oid serverid)
{
	ListCell   *lc;

	foreach(lc, statement_heads())
	{
		HeadResult *h = (HeadResult *) lfirst(lc);

		if (h->serverid == serverid && strcmp(h->url, url) == 0)
			return h;
	}
	return NULL;
}

/*
 * A HEAD now for h's object, remembered as the backend's latest: true when
 * it still has h's size and ETag (*size and etag: what the store said).
 */
static bool
head_confirms(const HeadResult *h, uint64 *size, char *etag)
{
	RmtUrl		parsed;
	RmtStore   *store = pf_remote_store(h->url, h->serverid, &parsed);

	head_request(h->url, store, &parsed, size, etag);
	known_remember(h->url, h->serverid, *size, etag);
	return *size == h->size && strcmp(etag, h->etag) == 0;
}

/* A HEAD now for an identity taken on trust: 55000 if the object changed. */
static void
verify_head(HeadResult *h)
{
	uint64		size;
	char		etag[128];

	if (!head_confirms(h, &size, etag))
	{
		char	   *url = pstrdup(h->url);

		pf_remote_forget(url);
		ResetPlanCache();
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("object \"%s\" changed after the query was planned", url),
				 errdetail("Its size or ETag changed since parquet_fdw.remote_metadata_ttl let this backend trust them."),
				 errhint("Run the query again: it will be planned for the object as it is now.")));
	}
	h->verified = true;
}

void
pf_remote_object_verify(PfRemoteObject *obj)
{
	HeadResult *h = statement_head(obj->url, obj->serverid);

	if (h != NULL && !h->verified)
		verify_head(h);
}

void
pf_remote_verify_statement(void)
{
	ListCell   *lc;

	foreach(lc, statement_heads())
	{
		HeadResult *h = (HeadResult *) lfirst(lc);

		if (!h->verified && h->url[0] != '\0')
			verify_head(h);
	}
}

/* A read bound to obj's ETag succeeded: the store confirmed the identity. */
static void
confirmed(PfRemoteObject *obj)
{
	HeadResult *h = statement_head(obj->url, obj->serverid);

	if (h != NULL && !h->verified && h->size == obj->size &&
		strcmp(h->etag, obj->etag) == 0)
		h->verified = true;
}

/* ----------------------------------------------------------------
 * Parallel workers: the leader's HEADs and footer tails
 *
 * A worker is a new backend: it would HEAD every object, then fetch its
 * tail, before reading a byte of data: two or three round trips each.
 * The leader hands over what it asked this statement (the identities its
 * plan is bound to; reads still carry them as If-Match) and the tails of
 * the footers it holds, in the scan's DSM.
 * ----------------------------------------------------------------
 */

typedef struct HandoffRecord
{
	Size		total;			/* bytes of this record, MAXALIGNed; 0 ends */
	Oid			serverid;
	uint64		size;
	char		etag[128];
	uint64		tail_offset;
	uint64		tail_len;		/* 0: no tail */
	Size		url_len;
	bool		verified;		/* else on trust: the worker confirms it too */
	uint64		head_len;		/* 0 or PF_REMOTE_HEAD_BYTES */
	char		head[PF_REMOTE_HEAD_BYTES];
	/* the URL and its NUL, then tail_len bytes */
} HandoffRecord;

/* The records handed to this worker with a tail (they stay in the DSM). */
static List *handed_tails = NIL;
static uint64 handed_generation = 0;

/* The record for h, its tail's object set when it fits in *tail_budget. */
static Size
handoff_record(const HeadResult *h, PfRemoteObject **tail_of, Size *tail_budget)
{
	PfRemoteObject *obj;
	Size		tail_len = 0;

	*tail_of = NULL;
	obj = pf_footer_cache_remote_peek(h->url, h->serverid, h->size, h->etag);
	if (obj != NULL && obj->tail.data != NULL && obj->tail.len <= *tail_budget)
	{
		*tail_of = obj;
		tail_len = obj->tail.len;
		*tail_budget -= tail_len;
	}
	return MAXALIGN(sizeof(HandoffRecord) + strlen(h->url) + 1 + tail_len);
}

/* Handoff sizes reserved this statement, by scan node (the caller's key). */
typedef struct HandoffReserved
{
	const void *key;
	Size		size;
} HandoffReserved;

static List *handoff_reserved = NIL;
static uint64 reserved_generation = 0;

Size
pf_remote_handoff_estimate(const void *key)
{
	Size		total = sizeof(Size);	/* the terminator */
	Size		budget = PF_HANDOFF_MAX_TAIL_BYTES;
	ListCell   *lc;
	HandoffReserved *r;
	MemoryContext cxt;
	MemoryContext old;
	uint64		generation;

	foreach(lc, statement_heads())
	{
		HeadResult *h = (HeadResult *) lfirst(lc);
		PfRemoteObject *obj;

		if (h->url[0] != '\0')
			total = add_size(total, handoff_record(h, &obj, &budget));
	}
	total = MAXALIGN(total);
	cxt = pf_remote_statement_cxt(&generation);
	if (generation != reserved_generation)
	{
		handoff_reserved = NIL;
		reserved_generation = generation;
	}
	old = MemoryContextSwitchTo(cxt);
	r = palloc(sizeof(HandoffReserved));
	r->key = key;
	r->size = total;
	handoff_reserved = lappend(handoff_reserved, r);
	MemoryContextSwitchTo(old);
	return total;
}

Size
pf_remote_handoff_write(const void *key, char *dst)
{
	Size		budget = PF_HANDOFF_MAX_TAIL_BYTES;
	Size		avail = 0;
	Size		used = 0;
	ListCell   *lc;
	uint64		generation;

	(void) pf_remote_statement_cxt(&generation);
	if (generation == reserved_generation)
		foreach(lc, handoff_reserved)
		{
			HandoffReserved *r = (HandoffReserved *) lfirst(lc);

			if (r->key == key)
				avail = r->size;
		}
	if (avail < sizeof(Size))
		return 0;
	foreach(lc, statement_heads())
	{
		HeadResult *h = (HeadResult *) lfirst(lc);
		PfRemoteObject *obj;
		HandoffRecord *r;
		Size		n;

		if (h->url[0] == '\0')
			continue;
		n = handoff_record(h, &obj, &budget);
		if (used + n + sizeof(Size) > avail)
			break;				/* more than was estimated: not handed */
		r = (HandoffRecord *) (dst + used);
		memset(r, 0, sizeof(HandoffRecord));
		r->total = n;
		r->serverid = h->serverid;
		r->size = h->size;
		strlcpy(r->etag, h->etag, sizeof(r->etag));
		r->verified = h->verified;
		r->url_len = strlen(h->url);
		memcpy((char *) (r + 1), h->url, r->url_len + 1);
		if (obj != NULL)
		{
			if (obj->head.data != NULL && obj->head.len == PF_REMOTE_HEAD_BYTES)
			{
				r->head_len = PF_REMOTE_HEAD_BYTES;
				memcpy(r->head, obj->head.data, PF_REMOTE_HEAD_BYTES);
			}
			r->tail_offset = obj->tail.offset;
			r->tail_len = obj->tail.len;
			memcpy((char *) (r + 1) + r->url_len + 1, obj->tail.data, obj->tail.len);
		}
		used += n;
	}
	*(Size *) (dst + used) = 0;
	return avail;
}

void
pf_remote_handoff_read(const char *src)
{
	MemoryContext cxt = statement_heads_cxt();
	MemoryContext old;
	uint64		generation;
	Size		used = 0;

	(void) pf_remote_statement_cxt(&generation);
	if (generation != handed_generation)
	{
		handed_tails = NIL;
		handed_generation = generation;
	}
	old = MemoryContextSwitchTo(cxt);
	for (;;)
	{
		const HandoffRecord *r = (const HandoffRecord *) (src + used);
		const char *url = (const char *) (r + 1);

		if (r->total == 0)
			break;
		used += r->total;
		if (statement_head(url, r->serverid) != NULL)
			continue;			/* a rescan hands the same again */
		/* taken on trust: the worker confirms it before it answers */
		(void) add_statement_head(url, r->serverid, r->size, r->etag,
								  r->verified);
		if (r->tail_len > 0)
			handed_tails = lappend(handed_tails, (void *) r);
	}
	MemoryContextSwitchTo(old);
}

/* The tail the leader handed over for obj, copied in, if there is one. */
static void
take_handed_tail(PfRemoteObject *obj)
{
	uint64		generation;
	ListCell   *lc;

	(void) pf_remote_statement_cxt(&generation);
	if (generation != handed_generation)
		return;
	foreach(lc, handed_tails)
	{
		const HandoffRecord *r = (const HandoffRecord *) lfirst(lc);
		const char *url = (const char *) (r + 1);

		if (r->serverid == obj->serverid && r->size == obj->size &&
			strcmp(url, obj->url) == 0 && strcmp(r->etag, obj->etag) == 0 &&
			r->tail_offset + r->tail_len == obj->size)
		{
			obj->tail.data = MemoryContextAllocHuge(obj->cxt, r->tail_len);
			memcpy(obj->tail.data, url + r->url_len + 1, r->tail_len);
			obj->tail.offset = r->tail_offset;
			obj->tail.len = r->tail_len;
			if (r->head_len > 0 && obj->head.data == NULL)
			{
				obj->head.data = MemoryContextAlloc(obj->cxt, r->head_len);
				memcpy(obj->head.data, r->head, r->head_len);
				obj->head.offset = 0;
				obj->head.len = r->head_len;
			}
			return;
		}
	}
}

void
pf_remote_head(const char *url, Oid serverid, uint64 *size, char *etag)
{
	RmtUrl		parsed;
	RmtStore   *store;
	HeadResult *h;
	bool		trusted;

	/* the privilege is checked on every call, cached or not */
	store = pf_remote_store(url, serverid, &parsed);
	(void) statement_heads_cxt();
	if ((h = statement_head(url, serverid)) != NULL)
	{
		*size = h->size;
		strlcpy(etag, h->etag, 128);
		return;
	}
	trusted = known_lookup(url, serverid, size, etag);
	if (!trusted)
	{
		head_request(url, store, &parsed, size, etag);
		known_remember(url, serverid, *size, etag);
	}
	(void) add_statement_head(url, serverid, *size, etag, !trusted);
}

bool
pf_remote_head_speculate(const char *url, Oid serverid)
{
	RmtUrl		parsed;
	uint64		size;
	char		etag[128];
	HeadResult *h;

	(void) pf_remote_store(url, serverid, &parsed);
	(void) statement_heads_cxt();
	if (statement_head(url, serverid) != NULL ||
		known_lookup(url, serverid, &size, etag) ||
		!pf_footer_cache_remote_identity(url, serverid, &size, etag))
		return false;
	h = add_statement_head(url, serverid, size, etag, false);
	h->speculative = true;
	return true;
}

bool
pf_remote_settle(const char *url, Oid serverid)
{
	HeadResult *h = statement_head(url, serverid);
	uint64		size;
	char		etag[128];
	bool		same;

	if (h == NULL || !h->speculative)
		return true;
	h->speculative = false;
	if (h->verified)
		return true;			/* a read bound to it succeeded */
	same = head_confirms(h, &size, etag);
	h->verified = true;
	if (same)
		return true;
	/* replaced: the statement plans for the object as it is now */
	h->size = size;
	strlcpy(h->etag, etag, sizeof(h->etag));
	return false;
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
	confirmed(obj);
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

static bool
set_covers(const RemoteSet *set, uint64 offset, size_t len)
{
	for (int i = 0; i < set->nbufs; i++)
		if (offset >= set->bufs[i].offset &&
			offset + len <= set->bufs[i].offset + set->bufs[i].len)
			return true;
	return false;
}

/* Sort ranges, clip them to the object and merge overlaps; returns the count. */
static int
merge_ranges(const PfRemoteObject *obj, PfRemoteRange *sorted,
			 const PfRemoteRange *ranges, int nranges);

/* Stop set i's requests, free its buffers and forget it. */
static void
drop_set(PfRemoteObject *obj, int i)
{
	RemoteSet	set = obj->sets[i];

	memmove(&obj->sets[i], &obj->sets[i + 1],
			sizeof(RemoteSet) * (obj->nsets - i - 1));
	obj->nsets--;
	if (set.fetch != NULL)
		rmt_store_fetch_cancel(set.fetch);
	MemoryContextDelete(set.cxt);
}

/*
 * Drop the sets an earlier statement asked for: a scan ended by an error
 * never took or cancelled them, and the footer cache keeps the object
 * (with its transfers running) for the next statement, whose scan must
 * neither take their buffers for its own nor count them in its budget.
 */
static void
drop_stale(PfRemoteObject *obj)
{
	uint64		generation;

	(void) pf_remote_statement_cxt(&generation);
	for (int i = obj->nsets - 1; i >= 0; i--)
		if (obj->sets[i].generation != generation)
			drop_set(obj, i);
}

/* Drop the sets an earlier statement's planning fetched and no scan took. */
static void
drop_stale_speculative(PfRemoteObject *obj)
{
	for (int i = obj->nsets - 1; i >= 0; i--)
		if (obj->sets[i].speculative &&
			obj->sets[i].generation != statement_generation)
			drop_set(obj, i);
}

static void
drop_taken(PfRemoteObject *obj)
{
	for (int i = obj->nsets - 1; i >= 0; i--)
		if (obj->sets[i].taken)
			drop_set(obj, i);
}

/*
 * Wait (interruptibly) for set i's requests and let its buffers serve
 * reads; a failed fetch drops the set and is raised.
 */
static void
take_set(PfRemoteObject *obj, int i)
{
	RemoteSet  *set = &obj->sets[i];
	RmtFetch   *f = set->fetch;
	RmtStoreStats before;
	RmtError	err;
	RmtStatus	st;

	set->taken = true;
	if (f == NULL)
		return;
	set->fetch = NULL;			/* wait frees it, whatever it returns */
	before = *rmt_store_stats(obj->store);
	st = rmt_store_fetch_wait(f, &err);
	charge(obj->stats, obj->store, &before);
	if (st != RMT_OK)
	{
		drop_set(obj, i);
		pf_remote_report(obj->url, &err);
	}
	confirmed(obj);
}

/* The object's memory goes (statement end, error): stop its transfers. */
static void
cancel_pending_cb(void *arg)
{
	PfRemoteObject *obj = (PfRemoteObject *) arg;

	for (int i = 0; i < obj->nsets; i++)
	{
		RmtFetch   *f = obj->sets[i].fetch;

		obj->sets[i].fetch = NULL;
		if (f != NULL)
			rmt_store_fetch_cancel(f);
	}
	obj->nsets = 0;
	for (int i = 0; i < nspeculating; i++)
		if (speculating[i] == obj)
			speculating[i--] = speculating[--nspeculating];
}

/*
 * The tail from tail_start, and in the same round trip (two requests at
 * once) the object's first bytes: a Parquet reader checks the magic there
 * right after the tail's, and a round trip costs far more than 8 bytes.
 */
static void
fetch_tail(PfRemoteObject *obj, uint64 tail_start)
{
	RmtStoreStats before = *rmt_store_stats(obj->store);
	RmtRange	pieces[2];
	int			npieces = 0;
	RmtError	err;
	RmtStatus	st;

	obj->tail.offset = tail_start;
	obj->tail.len = obj->size - tail_start;
	obj->tail.data = MemoryContextAlloc(obj->cxt, obj->tail.len);
	if (tail_start >= PF_REMOTE_HEAD_BYTES && obj->head.data == NULL)
	{
		obj->head.offset = 0;
		obj->head.len = 0;		/* empty until it is read */
		obj->head.data = MemoryContextAlloc(obj->cxt, PF_REMOTE_HEAD_BYTES);
		pieces[npieces].offset = 0;
		pieces[npieces].len = PF_REMOTE_HEAD_BYTES;
		pieces[npieces++].buf = obj->head.data;
	}
	pieces[npieces].offset = obj->tail.offset;
	pieces[npieces].len = obj->tail.len;
	pieces[npieces++].buf = obj->tail.data;
	memset(&err, 0, sizeof(err));
	st = rmt_store_read_many(obj->store, &obj->parsed, pieces, npieces,
							 obj->etag, &err);
	charge(obj->stats, obj->store, &before);
	if (st != RMT_OK)
	{
		pfree(obj->tail.data);
		obj->tail.data = NULL;
		pf_remote_report(obj->url, &err);
	}
	if (obj->head.data != NULL)
		obj->head.len = PF_REMOTE_HEAD_BYTES;
	confirmed(obj);
}

/*
 * A footer larger than the tail is read just before the tail (it ends 8
 * bytes before the object's end): fetch the missing head only, and keep
 * the whole footer in the tail, where a parallel worker is handed it.
 */
static bool
extend_tail(PfRemoteObject *obj, uint64 offset, size_t len)
{
	uint64		extra;
	char	   *data;

	if (obj->tail.data == NULL || offset >= obj->tail.offset ||
		offset + len != obj->size - 8 ||
		obj->tail.offset - offset > PF_REMOTE_TAIL_MAX_BYTES)
		return false;
	extra = obj->tail.offset - offset;
	data = MemoryContextAllocHuge(obj->cxt, extra + obj->tail.len);
	PG_TRY();
	{
		fetch(obj, offset, data, extra);
	}
	PG_CATCH();
	{
		pfree(data);
		PG_RE_THROW();
	}
	PG_END_TRY();
	memcpy(data + extra, obj->tail.data, obj->tail.len);
	pfree(obj->tail.data);
	obj->tail.data = data;
	obj->tail.offset = offset;
	obj->tail.len += extra;
	return true;
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
	for (int i = 0; i < obj->nsets; i++)
		if (obj->sets[i].taken)
			for (int j = 0; j < obj->sets[i].nbufs; j++)
				if (serve_from(&obj->sets[i].bufs[j], offset, buf, len))
					return 0;
	if (obj->tail.data == NULL && !obj->handed_tried)
	{
		obj->handed_tried = true;
		take_handed_tail(obj);
	}
	if (serve_from(&obj->tail, offset, buf, len) ||
		serve_from(&obj->head, offset, buf, len))
		return 0;
	if (extend_tail(obj, offset, len))
	{
		memcpy(buf, obj->tail.data + (offset - obj->tail.offset), len);
		return 0;
	}
	/* a set still being fetched has it: wait for that set, keep the rest */
	for (int i = 0; i < obj->nsets; i++)
		if (!obj->sets[i].taken && set_covers(&obj->sets[i], offset, len))
		{
			take_set(obj, i);
			for (int j = 0; j < obj->sets[i].nbufs; j++)
				if (serve_from(&obj->sets[i].bufs[j], offset, buf, len))
					return 0;
		}

	tail_start = obj->size > PF_REMOTE_TAIL_BYTES ?
		obj->size - PF_REMOTE_TAIL_BYTES : 0;
	if (obj->tail.data == NULL && offset >= tail_start)
	{
		fetch_tail(obj, tail_start);
		memcpy(buf, obj->tail.data + (offset - tail_start), len);
		return 0;
	}
	if (serve_from(&obj->around, offset, buf, len))
		return 0;
	if (len < PF_REMOTE_AROUND_BYTES / 4)
	{
		uint64		around_len = Min(PF_REMOTE_AROUND_BYTES, obj->size - offset);

		if (obj->around.data == NULL)
			obj->around.data = MemoryContextAlloc(obj->cxt, PF_REMOTE_AROUND_BYTES);
		obj->around.len = 0;	/* empty while it is fetched */
		fetch(obj, offset, obj->around.data, around_len);
		obj->around.offset = offset;
		obj->around.len = around_len;
		memcpy(buf, obj->around.data, len);
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
	obj->cancel_cb.func = cancel_pending_cb;
	obj->cancel_cb.arg = obj;
	MemoryContextRegisterResetCallback(ocxt, &obj->cancel_cb);
	obj->url = MemoryContextStrdup(ocxt, url);
	obj->serverid = serverid;
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

PfRemoteObject *
pf_remote_object_of(const PfcSource *source)
{
	return source->read_at == remote_read_at ? (PfRemoteObject *) source->ctx : NULL;
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
 * A new set for ranges (merged, every byte once) in a context of its own,
 * and the store's pieces pointing into its buffers; NULL when nothing is
 * left to fetch.
 */
static RemoteSet *
new_set(PfRemoteObject *obj, int tag, const PfRemoteRange *ranges,
		int nranges, RmtRange **pieces)
{
	RemoteSet  *set;
	PfRemoteRange *sorted;
	MemoryContext cxt;
	int			n;

	*pieces = NULL;
	if (obj->nsets >= PF_REMOTE_MAX_SETS)
		elog(ERROR, "too many prefetched sets of remote object \"%s\"", obj->url);
	if (nranges <= 0)
		return NULL;
	cxt = AllocSetContextCreate(obj->cxt, "parquet_fdw prefetch",
								ALLOCSET_DEFAULT_SIZES);
	sorted = MemoryContextAlloc(cxt, sizeof(PfRemoteRange) * nranges);
	n = merge_ranges(obj, sorted, ranges, nranges);
	if (n == 0)
	{
		MemoryContextDelete(cxt);
		return NULL;
	}
	set = &obj->sets[obj->nsets++];
	memset(set, 0, sizeof(RemoteSet));
	set->tag = tag;
	(void) pf_remote_statement_cxt(&set->generation);
	set->cxt = cxt;
	set->bufs = MemoryContextAllocZero(cxt, sizeof(RemoteBuffer) * n);
	set->nbufs = n;
	*pieces = MemoryContextAlloc(cxt, sizeof(RmtRange) * n);
	for (int i = 0; i < n; i++)
	{
		set->bufs[i].offset = sorted[i].offset;
		set->bufs[i].len = sorted[i].len;
		set->bufs[i].data = MemoryContextAllocHuge(cxt, sorted[i].len);
		set->bytes += sorted[i].len;
		(*pieces)[i].offset = sorted[i].offset;
		(*pieces)[i].len = sorted[i].len;
		(*pieces)[i].buf = set->bufs[i].data;
	}
	return set;
}

void
pf_remote_object_prefetch(PfRemoteObject *obj, const PfRemoteRange *ranges,
						  int nranges)
{
	RemoteSet  *set;
	RmtRange   *pieces;
	RmtStoreStats before;
	RmtError	err;
	RmtStatus	st;

	drop_stale(obj);
	drop_taken(obj);
	set = new_set(obj, -1, ranges, nranges, &pieces);
	if (set == NULL)
		return;
	set->taken = true;
	before = *rmt_store_stats(obj->store);
	memset(&err, 0, sizeof(err));
	st = rmt_store_read_many(obj->store, &obj->parsed, pieces, set->nbufs,
							 obj->etag, &err);
	charge(obj->stats, obj->store, &before);
	if (st != RMT_OK)
	{
		drop_set(obj, obj->nsets - 1);
		pf_remote_report(obj->url, &err);
	}
	confirmed(obj);
}

/*
 * Start a set of ranges named tag in the background (an empty one when the
 * tail holds them all); its requests and bytes so far are charged to the
 * object's scan and to also (NULL: nowhere else).  NULL: no room left.
 */
static RemoteSet *
begin_set(PfRemoteObject *obj, int tag, const PfRemoteRange *ranges,
		  int nranges, PfRemoteStats *also)
{
	RemoteSet  *set;
	RmtRange   *pieces;
	RmtStoreStats before;
	RmtError	err;
	RmtStatus	st;
	RmtFetch   *f;

	drop_stale(obj);
	/* room for one more, and for a synchronous prefetch after it */
	if (obj->nsets >= PF_REMOTE_MAX_SETS - 1)
		return NULL;
	set = new_set(obj, tag, ranges, nranges, &pieces);
	if (set == NULL)
	{
		/* nothing to fetch (the tail has it): an empty set to take */
		set = &obj->sets[obj->nsets++];
		memset(set, 0, sizeof(RemoteSet));
		set->tag = tag;
		(void) pf_remote_statement_cxt(&set->generation);
		set->cxt = AllocSetContextCreate(obj->cxt, "parquet_fdw prefetch",
										 ALLOCSET_SMALL_SIZES);
		return set;
	}
	before = *rmt_store_stats(obj->store);
	memset(&err, 0, sizeof(err));
	st = rmt_store_fetch_begin(obj->store, &obj->parsed, pieces, set->nbufs,
							   obj->etag, &f, &err);
	charge(obj->stats, obj->store, &before);
	charge(also, obj->store, &before);
	if (st != RMT_OK)
	{
		drop_set(obj, obj->nsets - 1);
		pf_remote_report(obj->url, &err);
	}
	set->fetch = f;
	return set;
}

/*
 * The set planning fetched for tag, taken over by a scan that asks for
 * ranges it holds (true); one missing some of them is dropped (false).
 */
static bool
adopt_speculative(PfRemoteObject *obj, int tag, const PfRemoteRange *ranges,
				  int nranges)
{
	for (int i = 0; i < obj->nsets; i++)
	{
		RemoteSet  *set = &obj->sets[i];
		PfRemoteRange *sorted;
		bool		covers = true;
		int			n;

		if (!set->speculative || set->taken || set->tag != tag)
			continue;
		sorted = palloc(sizeof(PfRemoteRange) * Max(nranges, 1));
		n = merge_ranges(obj, sorted, ranges, nranges);
		for (int j = 0; j < n && covers; j++)
			covers = set_covers(set, sorted[j].offset, sorted[j].len);
		pfree(sorted);
		if (!covers)
		{
			drop_set(obj, i);
			return false;
		}
		set->speculative = false;
		if (obj->stats != NULL)
		{
			obj->stats->requests += set->spec_charge.requests;
			obj->stats->bytes_fetched += set->spec_charge.bytes_fetched;
		}
		return true;
	}
	return false;
}

bool
pf_remote_object_fetch_tagged(PfRemoteObject *obj, int tag,
							  const PfRemoteRange *ranges, int nranges)
{
	drop_stale(obj);
	if (adopt_speculative(obj, tag, ranges, nranges))
		return true;
	return begin_set(obj, tag, ranges, nranges, NULL) != NULL;
}

void
pf_remote_object_speculate(PfRemoteObject *obj, int tag,
						   const PfRemoteRange *ranges, int nranges)
{
	PfRemoteStats charged = {0};
	RemoteSet  *set;
	bool		listed = false;

	for (int i = 0; i < nspeculating; i++)
		listed |= speculating[i] == obj;
	if (!listed && nspeculating >= PF_SPECULATING_MAX)
		return;
	if (!speculating_callback_set)
	{
		RegisterXactCallback(end_speculation, NULL);
		speculating_callback_set = true;
	}
	if ((set = begin_set(obj, tag, ranges, nranges, &charged)) == NULL)
		return;
	set->speculative = true;
	set->spec_charge = charged;
	if (!listed)
		speculating[nspeculating++] = obj;
}

void
pf_remote_object_cancel_speculative(PfRemoteObject *obj)
{
	for (int i = obj->nsets - 1; i >= 0; i--)
		if (obj->sets[i].speculative)
			drop_set(obj, i);
}

bool
pf_remote_object_take_tagged(PfRemoteObject *obj, int tag)
{
	int			i;

	drop_stale(obj);
	for (i = 0; i < obj->nsets; i++)
		if (!obj->sets[i].taken && !obj->sets[i].speculative &&
			obj->sets[i].tag == tag)
			break;
	if (i == obj->nsets)
		return false;
	/* the taken sets before it go: their indexes shift */
	for (int j = obj->nsets - 1; j >= 0; j--)
		if (obj->sets[j].taken)
		{
			drop_set(obj, j);
			if (j < i)
				i--;
		}
	take_set(obj, i);
	return true;
}

void
pf_remote_object_cancel_tagged(PfRemoteObject *obj, int tag)
{
	for (int i = obj->nsets - 1; i >= 0; i--)
		if (!obj->sets[i].taken && !obj->sets[i].speculative &&
			obj->sets[i].tag == tag)
			drop_set(obj, i);
}

uint64
pf_remote_object_pending_bytes(const PfRemoteObject *obj)
{
	uint64		bytes = 0;

	for (int i = 0; i < obj->nsets; i++)
		if (!obj->sets[i].taken && !obj->sets[i].speculative)
			bytes += obj->sets[i].bytes;
	return bytes;
}

void
pf_remote_object_poll(PfRemoteObject *obj)
{
	RmtStoreStats before;

	if (obj == NULL)
		return;
	/* polling one fetch moves all of the store's */
	for (int i = 0; i < obj->nsets; i++)
		if (obj->sets[i].fetch != NULL)
		{
			before = *rmt_store_stats(obj->store);
			(void) rmt_store_fetch_poll(obj->sets[i].fetch);
			charge(obj->stats, obj->store, &before);
			return;
		}
}

void
pf_remote_object_drop_buffers(PfRemoteObject *obj)
{
	for (int i = obj->nsets - 1; i >= 0; i--)
		if (!obj->sets[i].speculative)
			drop_set(obj, i);
	if (obj->around.data != NULL)
		pfree(obj->around.data);
	obj->around.data = NULL;
	obj->around.len = 0;
}
