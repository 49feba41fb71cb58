/*-------------------------------------------------------------------------
 *
 * remote_int.h
 *	  Private to src/remote: the store's state and one HTTP exchange.
 *
 * IDENTIFICATION
 *	  src/remote/remote_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef RMT_REMOTE_INT_H
#define RMT_REMOTE_INT_H

#include <curl/curl.h>

#include "remote/sigv4.h"
#include "remote/store.h"

/*
 * The link's cost as ranged GETs finish: time to the first byte and bytes
 * per second after it, moving averages over the requests seen.
 */
typedef struct RmtLinkEstimate
{
	double		latency_s;
	double		bytes_per_s;
	int			samples;
} RmtLinkEstimate;

/* A multi handle that keeps to the store's max_connections. */
extern CURLM *rmt_multi_new(RmtStore *store);

/* Fold one finished GET into the estimate (transport.c). */
extern void rmt_link_observe(RmtLinkEstimate *link, double first_byte_s,
							 double total_s, uint64_t bytes);

struct RmtStore
{
	RmtStoreConfig config;		/* strings below point into owned copies */
	PfcAllocator alloc;
	CURL	   *curl;			/* one handle: connections are reused */
	CURLM	   *multi;			/* for rmt_perform_many, made on first use */
	CURLM	   *multi_async;	/* shared by the outstanding fetches */
	RmtFetch   *fetch;			/* outstanding fetches (rmt_store_fetch_begin) */
	RmtStoreStats stats;
	RmtLinkEstimate link;		/* what a request costs, for coalescing */
	char	   *strings;		/* the copied config strings */
	size_t		strings_len;
};

/*
 * Where a response body goes.  Scatter mode (npieces > 0): the answer
 * holds bytes [base, base + span) of the object (206), or the whole object
 * from its start (200: a server that ignores Range), and each byte lands in
 * the pieces that cover it (sorted by offset, inside the span); a whole
 * object is cut off once past the span.  Growable mode (npieces == 0): the
 * body is collected, up to limit bytes, from alloc (listings).
 */
typedef struct RmtBody
{
	const RmtRange *pieces;
	int			npieces;
	uint64_t	base;
	uint64_t	span;
	/* growable mode */
	const PfcAllocator *alloc;
	size_t		limit;
	char	   *buf;
	size_t		cap;
	/* filled by the transfer (reset by each attempt) */
	uint64_t	received;		/* body bytes seen */
	int			next_piece;		/* pieces before it are complete */
	bool		started;
	bool		whole_object;	/* the answer was 200, not 206 */
	bool		cut_short;		/* we stopped a whole object past the span */
	size_t		len;			/* growable: bytes collected */
	bool		overflow;
} RmtBody;

/* Did a scatter body get every byte of its span? */
extern bool rmt_body_complete(const RmtBody *body);

typedef struct RmtResponse
{
	long		status;
	char		etag[128];
	bool		has_length;
	uint64_t	content_length;
	long		retry_after_s;	/* -1 when absent */
	char		error_code[64]; /* x-ms-error-code (Azure), else "" */
	char		error_body[2048];	/* the start of a non-2xx body */
	size_t		error_len;
} RmtResponse;

/* A request being built: its URL, Host, encoded path and query. */
#define RMT_URL_CAP (RMT_MAX_KEY * 3 + 512)
typedef struct RmtRequest
{
	char		url[RMT_URL_CAP];
	char		host[RMT_MAX_HOST + 80];
	char		path[RMT_MAX_KEY * 3 + 80]; /* encoded */
	RmtNameValue query[6];		/* raw; encoded into url by rmt_append_query */
	int			nquery;
	bool		sign;			/* false: anonymous, or a SAS token in the URL */
	char		account[RMT_MAX_ACCOUNT];	/* Azure: the account signing */
	char		resource[RMT_MAX_KEY * 3 + 200];	/* Azure: /account/path */
	/* PUT and POST (upload.c): the body sent, set after prepare */
	const void *payload;
	size_t		payload_len;
	char		payload_sha256[65]; /* S3: hex SHA-256 of it; "" when empty */
	const char *blob_type;		/* Azure Put Blob: "BlockBlob"; else NULL */
} RmtRequest;

/* Append "?a=b&c=d" (encoded) to r->url. */
extern RmtStatus rmt_append_query(RmtRequest *r, RmtError *err);

/* Build one attempt's headers, signed (the time moves between retries). */
typedef RmtStatus (*RmtSignFn) (RmtStore *store, const RmtRequest *r,
								const char *method, const char *range,
								const char *if_match, struct curl_slist **out,
								RmtError *err);

/*
 * The request with retries: each attempt signs anew, the body sink is
 * reset; a 2xx answer is RMT_OK, anything else after the retries is
 * classified by rmt_http_failure (what names the operation in messages).
 */
extern RmtStatus rmt_exchange(RmtStore *store, const RmtRequest *r,
							  RmtSignFn sign, const char *method,
							  const char *range, const char *if_match,
							  RmtBody *body, RmtResponse *resp,
							  const char *what, RmtError *err);

/* xml.c: element text by tag within [p, end), entity decoding, errors. */
extern const char *rmt_xml_find(const char *p, const char *end,
								const char *tag, size_t *len);
extern bool rmt_xml_text(const char *s, size_t len, char *out, size_t cap);
extern RmtStatus rmt_http_failure(const RmtResponse *resp, const char *what,
								  RmtError *err);

/* The element names of one listing entry: S3's Contents, Azure's Blob. */
typedef struct RmtListTags
{
	const char *entry;
	const char *key;
	const char *size;
	const char *etag;
} RmtListTags;

/*
 * Call emit(key, size, etag, arg) for every entry of one listing page in
 * [p, end).  *more becomes false when emit asks to stop; an entry without
 * a key or a size is RMT_BAD_RESPONSE (http_status for the message).
 */
extern RmtStatus rmt_xml_emit_entries(const char *p, const char *end,
									  const RmtListTags *tags, RmtListEmit emit,
									  void *arg, bool *more, int http_status,
									  RmtError *err);

/*
 * Call emit(prefix, arg) for the text of every name_tag inside an
 * entry_tag element of one page (S3's CommonPrefixes/Prefix, Azure's
 * BlobPrefix/Name), entities decoded; *more as above.
 */
extern RmtStatus rmt_xml_emit_prefixes(const char *p, const char *end,
									   const char *entry_tag,
									   const char *name_tag,
									   RmtListPrefixEmit emit, void *arg,
									   bool *more, int http_status,
									   RmtError *err);

/*
 * The protocols behind rmt_store_*: s3.c (S3, GCS, http) and azure.c.
 * prepare addresses an object (URL, host, path; a SAS token appended);
 * sign builds each attempt's headers.
 */
typedef struct RmtProtocol
{
	RmtStatus	(*prepare) (RmtStore *store, const RmtUrl *url, RmtRequest *r,
							RmtError *err);
	RmtSignFn	sign;
} RmtProtocol;
extern const RmtProtocol rmt_s3_protocol;
extern const RmtProtocol rmt_azure_protocol;

/* S3 addressing for upload.c: the object's URL, host and path. */
extern RmtStatus rmt_s3_address(const RmtStore *store, const RmtUrl *url,
								RmtRequest *r, RmtError *err);

/* Azure addressing for upload.c: a blob (blob_path) or its container. */
extern RmtStatus rmt_azure_address(const RmtStore *store, const RmtUrl *url,
								   bool blob_path, RmtRequest *r, RmtError *err);
extern RmtStatus rmt_azure_finish_url(const RmtStore *store, RmtRequest *r,
									  RmtError *err);

extern RmtStatus rmt_s3_head(RmtStore *store, const RmtUrl *url,
							 RmtObjectInfo *info, RmtError *err);
/* delimited: one level (objects and "sub/" prefixes), else every key */
extern RmtStatus rmt_s3_list(RmtStore *store, const RmtUrl *where,
							 bool delimited, RmtListEmit emit,
							 RmtListPrefixEmit emit_prefix, void *arg,
							 RmtError *err);
extern RmtStatus rmt_azure_head(RmtStore *store, const RmtUrl *url,
								RmtObjectInfo *info, RmtError *err);
extern RmtStatus rmt_azure_list(RmtStore *store, const RmtUrl *where,
								bool delimited, RmtListEmit emit,
								RmtListPrefixEmit emit_prefix, void *arg,
								RmtError *err);

/*
 * One attempt: method (GET or HEAD) on url with the given extra headers.
 * Returns RMT_OK when an HTTP response came back (any status), else the
 * transfer's failure (network, cancelled, forbidden address) in err.
 */
extern RmtStatus rmt_perform(RmtStore *store, const char *method,
							 const char *url, struct curl_slist *headers,
							 RmtBody *body, RmtResponse *resp, RmtError *err);

/*
 * The same for PUT, POST and DELETE: PUT and POST send payload_len bytes
 * of payload (sent anew by each attempt), without "Expect: 100-continue".
 */
extern RmtStatus rmt_perform_send(RmtStore *store, const char *method,
								  const char *url, struct curl_slist *headers,
								  const void *payload, size_t payload_len,
								  RmtBody *body, RmtResponse *resp,
								  RmtError *err);

/*
 * One attempt of several GETs at once (curl multi, at most max_parallel
 * transfers in flight): for each transfer, its status (as rmt_perform's),
 * response and error.  Returns RMT_CANCELLED when the interrupt check
 * stopped them all, else RMT_OK (look at each transfer).
 */
typedef struct RmtTransfer
{
	const RmtRequest *request;
	RmtSignFn	sign;
	char		range[64];
	const char *if_match;
	RmtBody		body;
	RmtResponse resp;
	RmtStatus	status;
	RmtError	err;
} RmtTransfer;
extern RmtStatus rmt_perform_many(RmtStore *store, RmtTransfer *transfers,
								  int n, int max_parallel, RmtError *err);

/*
 * The same, in steps: start() takes the transfers (they stay the caller's
 * until finish), step() starts what it may, lets curl move every transfer
 * without blocking, records the finished ones, and then waits up to
 * wait_ms (0: not at all) for sockets; it returns true when all are done.
 * wait() steps until done or interrupted (RMT_CANCELLED).  finish() stops
 * what still runs and frees the run.
 */
typedef struct RmtMultiRun RmtMultiRun;
extern RmtStatus rmt_multi_start(RmtStore *store, CURLM *multi,
								 RmtTransfer *transfers, int n,
								 int max_parallel, RmtMultiRun **run,
								 RmtError *err);
extern bool rmt_multi_step(RmtMultiRun *run, int wait_ms);

/*
 * step() in its parts, for runs sharing one multi handle: launch() starts
 * what a run may; drive() lets curl move every transfer of the handle once
 * (each curl_multi_perform polls every socket: once per handle, never once
 * per run), records the finished ones with their runs, and when none
 * finished waits up to wait_ms for sockets; it returns whether any
 * finished.  done() says whether all of a run's transfers have.
 */
extern void rmt_multi_launch(RmtMultiRun *run);
extern bool rmt_multi_drive(CURLM *multi, int wait_ms);
extern bool rmt_multi_done(const RmtMultiRun *run);
extern RmtStatus rmt_multi_wait(RmtMultiRun *run, RmtError *err);
extern void rmt_multi_finish(RmtMultiRun *run);
extern bool rmt_interrupted(RmtStore *store);

/*
 * Whether to try again after attempt (0-based) ended as status/resp, and
 * if so wait the backoff (interruptibly).  Returns false when the caller
 * should give up (err then says why: retries exhausted or cancelled).
 */
extern bool rmt_retry_wait(RmtStore *store, int attempt, RmtStatus status,
						   const RmtResponse *resp, RmtError *err);

/* Set err to status with a printf-style message. */
extern RmtStatus rmt_fail(RmtError *err, RmtStatus status, int http_status,
						  const char *fmt,...)
#if defined(__GNUC__)
			__attribute__((format(printf, 4, 5)))
#endif
			;

#endif							/* RMT_REMOTE_INT_H */
