/*-------------------------------------------------------------------------
 *
 * store.h
 *	  Contract of an object-store client: object size and ETag, ranged
 *	  reads, listings, over libcurl.
 *
 * Plain C11, no PostgreSQL.  One RmtStore per backend and configuration
 * keeps its connections alive between requests.  Every call is
 * synchronous, retries what is worth retrying (429, 5xx, resets and
 * timeouts, with exponential backoff that honours Retry-After), and polls
 * the caller's interrupt check at least once a second, also while it
 * waits: the FDW passes one that looks at PostgreSQL's pending interrupts
 * and then raises them itself once the call has returned RMT_CANCELLED.
 *
 * Redirects are never followed.  Connections to link-local addresses
 * (169.254.0.0/16, fe80::/10: where cloud metadata services answer) are
 * refused unless allow_link_local is set (a superuser named that host).
 *
 * IDENTIFICATION
 *	  src/remote/store.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef RMT_STORE_H
#define RMT_STORE_H

#include <stdint.h>

#include "common/common.h"
#include "remote/remote.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum RmtUrlStyle
{
	RMT_URL_STYLE_DEFAULT = 0,	/* vhost for AWS, path for a custom endpoint */
	RMT_URL_STYLE_VHOST,		/* https://bucket.endpoint/key */
	RMT_URL_STYLE_PATH			/* https://endpoint/bucket/key */
} RmtUrlStyle;

typedef struct RmtStoreConfig
{
	/*
	 * Where: NULL endpoint means the scheme's public service.  For S3:
	 * "host[:port]", e.g. "127.0.0.1:9000"; for Azure the blob endpoint
	 * with its path, e.g. "127.0.0.1:10000/devstoreaccount1" (the
	 * emulator's), else https://ACCOUNT.blob.core.windows.net.
	 */
	const char *endpoint;
	const char *region;			/* NULL: "us-east-1" */
	RmtUrlStyle url_style;
	bool		use_ssl;		/* https (default) or http to the endpoint */
	bool		verify_tls;		/* check the server's certificate */
	const char *ca_file;		/* PEM bundle of trusted CAs; NULL: system */
	bool		allow_link_local;

	/* Who: NULL key_id means anonymous (unsigned) requests. */
	const char *key_id;
	const char *secret;
	const char *session_token;
	/* Azure: Shared Key (account_key, base64) or a SAS token; neither:
	 * anonymous.  account_name is used when the URL names no account. */
	const char *account_name;
	const char *account_key;
	const char *sas_token;		/* without the leading '?' */

	/* How long and how often. */
	long		connect_timeout_ms; /* 0: 10 s */
	long		low_speed_time_s;	/* abort a transfer that moves < 1 byte/s
									 * this long; 0: 30 s */
	int			max_retries;	/* 0: 4 (5 attempts) */
	long		retry_base_ms;	/* first backoff; 0: 200 ms */
	int			list_page_size; /* ListObjectsV2 max-keys; 0: the store's (1000) */
	uint64_t	coalesce_gap;	/* rmt_store_read_many; 0: adaptive */
	uint64_t	max_request_bytes;	/* 0: 64 MiB */
	int			max_parallel;	/* per read; 0: 8 */
	int			max_connections;	/* across every read at once; 0: 16 */

	/* Nonzero means stop now; polled at least once a second. */
	int			(*interrupted) (void *arg);
	void	   *interrupt_arg;
} RmtStoreConfig;

/* Defaults: https, verify TLS, no link-local, anonymous. */
extern void rmt_store_config_init(RmtStoreConfig *config);

typedef struct RmtStore RmtStore;

/* Counters for EXPLAIN ANALYZE: requests sent (retries included), bytes. */
typedef struct RmtStoreStats
{
	uint64_t	requests;
	uint64_t	retries;
	uint64_t	bytes_fetched;
	uint64_t	max_in_flight;	/* most requests one read ran at once */
	uint64_t	open_connections;	/* sockets open now */
	uint64_t	max_open_connections;	/* most open at once */
} RmtStoreStats;

/*
 * Make a client.  The config's strings are copied.  Memory comes from
 * alloc (the listing's response buffers too).
 */
extern RmtStatus rmt_store_open(RmtStore **store, const RmtStoreConfig *config,
								const PfcAllocator *alloc, RmtError *err);
extern void rmt_store_close(RmtStore *store);
extern const RmtStoreStats *rmt_store_stats(const RmtStore *store);

typedef struct RmtObjectInfo
{
	uint64_t	size;
	char		etag[128];		/* as the store sent it, quotes included */
} RmtObjectInfo;

/* HEAD the object: its size and ETag (RMT_NOT_FOUND when absent). */
extern RmtStatus rmt_store_head(RmtStore *store, const RmtUrl *url,
								RmtObjectInfo *info, RmtError *err);

/* One piece of an object to read: len bytes at offset into buf. */
typedef struct RmtRange
{
	uint64_t	offset;
	size_t		len;
	void	   *buf;
} RmtRange;

/*
 * Read exactly len bytes at offset into buf.  When etag is given the
 * request carries If-Match, so a replaced object gives RMT_CHANGED rather
 * than bytes of the new version.
 */
extern RmtStatus rmt_store_read(RmtStore *store, const RmtUrl *url,
								uint64_t offset, size_t len, void *buf,
								const char *etag, RmtError *err);

/*
 * The widest hole between two pieces that one request bridges, when
 * coalesce_gap is 0: a request costs latency_s before its first byte, and
 * the hole's bytes cost size / bytes_per_s, so holes are bridged while
 * they are cheaper than a request.  Clamped to [32 KiB, 8 MiB]; with no
 * measurement yet (latency_s or bytes_per_s <= 0) it is 1 MiB.
 */
#define RMT_GAP_UNMEASURED	(UINT64_C(1) << 20)
#define RMT_GAP_MIN			(UINT64_C(32) << 10)
#define RMT_GAP_MAX			(UINT64_C(8) << 20)
extern uint64_t rmt_coalesce_gap_for(double latency_s, double bytes_per_s);

/* The gap the store's next read uses: pinned, or from its measurements. */
extern uint64_t rmt_store_coalesce_gap(const RmtStore *store);

/*
 * Read several pieces of one object, as a scan reads a row group's column
 * chunks: pieces closer than the coalesce gap share one request (the
 * bytes between are fetched and dropped, cheaper than a round trip),
 * requests span at most max_request_bytes, and up to max_parallel of them
 * run at once.  Pieces may come in any order; etag as for rmt_store_read.
 */
extern RmtStatus rmt_store_read_many(RmtStore *store, const RmtUrl *url,
									 const RmtRange *pieces, int npieces,
									 const char *etag, RmtError *err);

/*
 * The same read, asynchronous: begin() starts the requests and returns at
 * once; the caller goes on with other work and calls poll() now and then
 * (it lets the transfers move without waiting and says whether all have
 * finished); wait() then finishes them (a failed request is retried as
 * read_many would, waiting on the interrupt check), checks them and frees
 * the fetch: on RMT_OK every piece's buffer is filled.  cancel() stops
 * the transfers and frees the fetch (NULL: nothing).  The pieces' buffers,
 * url and etag must stay valid until wait() or cancel(); the pieces array
 * is copied.  Several fetches may be outstanding: they share the store's
 * connections, and polling or waiting for one moves the others too (a
 * scan keeps several row groups in flight).  Closing the store cancels
 * those still there.
 */
typedef struct RmtFetch RmtFetch;
extern RmtStatus rmt_store_fetch_begin(RmtStore *store, const RmtUrl *url,
									   const RmtRange *pieces, int npieces,
									   const char *etag, RmtFetch **fetch,
									   RmtError *err);
extern bool rmt_store_fetch_poll(RmtFetch *fetch);
extern RmtStatus rmt_store_fetch_wait(RmtFetch *fetch, RmtError *err);
extern void rmt_store_fetch_cancel(RmtFetch *fetch);

/*
 * List the objects of where's bucket (or container) whose keys start with
 * where->key (S3's ListObjectsV2 or Azure's List Blobs, every page),
 * calling emit(key, size, etag, arg) for each in the store's (lexical)
 * order; emit returns false to stop early.
 */
typedef bool (*RmtListEmit) (const char *key, uint64_t size, const char *etag,
							 void *arg);
extern RmtStatus rmt_store_list(RmtStore *store, const RmtUrl *where,
								RmtListEmit emit, void *arg, RmtError *err);

/*
 * One level of a "folder": list with the delimiter '/' (S3's
 * ListObjectsV2 delimiter=/ with its CommonPrefixes, Azure's List Blobs
 * with its BlobPrefix elements, every page), so that keys below the next
 * '/' after where->key are not sent one by one but folded into their
 * common prefix.  emit_object(key, size, etag, arg) for each object whose
 * key starts with where->key and has no '/' after it; emit_prefix(prefix,
 * arg) for each such prefix, ending with '/' (e.g. "t/date=2024-01-01/"
 * for where->key "t/"), once.  Within a page objects come before
 * prefixes; callers that need one order sort.  Either emitter returns
 * false to stop early.
 */
typedef bool (*RmtListPrefixEmit) (const char *prefix, void *arg);
extern RmtStatus rmt_store_list_dir(RmtStore *store, const RmtUrl *where,
									RmtListEmit emit_object,
									RmtListPrefixEmit emit_prefix, void *arg,
									RmtError *err);

/*
 * Uploads: an object written whole or not at all (upload.c).  Bytes are
 * buffered one part at a time (part_size bytes, 0: 8 MiB, at least 5 MiB:
 * the memory an upload holds); an object smaller than a part is sent by
 * rmt_upload_commit in one PUT, a larger one as a multipart upload (S3,
 * GCS) or a block list (Azure), part by part as the buffer fills.  Only a
 * successful rmt_upload_commit makes the object appear (or replace the old
 * one); after any failed call, the caller ends with rmt_upload_abort,
 * which asks the store to drop the parts sent (best effort, one attempt,
 * not stopped by the interrupt check) and frees the upload.  Parts are
 * retried like reads.  http(s):// URLs cannot be written.
 */
typedef struct RmtUpload RmtUpload;

extern RmtStatus rmt_upload_begin(RmtStore *store, const RmtUrl *url,
								  size_t part_size, RmtUpload **upload,
								  RmtError *err);
extern RmtStatus rmt_upload_write(RmtUpload *upload, const void *data,
								  size_t len, RmtError *err);
/* Bytes written so far. */
extern uint64_t rmt_upload_bytes(const RmtUpload *upload);
/* Send the rest and make the object; frees the upload on success only. */
extern RmtStatus rmt_upload_commit(RmtUpload *upload, RmtError *err);
extern void rmt_upload_abort(RmtUpload *upload);

/*
 * Remove the object url names (S3 DeleteObject, Azure Delete Blob), for
 * undoing a write whose transaction aborted: one attempt, not stopped by
 * the interrupt check (it runs on the way out of a failure).  An object
 * already gone is no failure.
 */
extern RmtStatus rmt_store_delete_once(RmtStore *store, const RmtUrl *url,
									   RmtError *err);

#ifdef __cplusplus
}
#endif

#endif							/* RMT_STORE_H */
