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

#include "remote/store.h"

struct RmtStore
{
	RmtStoreConfig config;		/* strings below point into owned copies */
	PfcAllocator alloc;
	CURL	   *curl;			/* one handle: connections are reused */
	RmtStoreStats stats;
	char	   *strings;		/* the copied config strings */
	size_t		strings_len;
};

/* Where a response body goes. */
typedef struct RmtBody
{
	/* Fixed: exactly want bytes into buf, after skipping skip bytes. */
	char	   *buf;
	size_t		want;
	uint64_t	skip;
	/* Growable (want == 0): up to limit bytes from the store's allocator. */
	const PfcAllocator *alloc;
	size_t		limit;
	/* Filled by the transfer. */
	size_t		len;
	size_t		cap;
	bool		overflow;
} RmtBody;

typedef struct RmtResponse
{
	long		status;
	char		etag[128];
	bool		has_length;
	uint64_t	content_length;
	long		retry_after_s;	/* -1 when absent */
	char		error_body[2048];	/* the start of a non-2xx body */
	size_t		error_len;
} RmtResponse;

/*
 * One attempt: method (GET or HEAD) on url with the given extra headers.
 * Returns RMT_OK when an HTTP response came back (any status), else the
 * transfer's failure (network, cancelled, forbidden address) in err.
 */
extern RmtStatus rmt_perform(RmtStore *store, const char *method,
							 const char *url, struct curl_slist *headers,
							 RmtBody *body, RmtResponse *resp, RmtError *err);

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
