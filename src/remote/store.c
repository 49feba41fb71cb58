/*-------------------------------------------------------------------------
 *
 * store.c
 *	  The store's entry points, routed by URL scheme, and the retry loop
 *	  every protocol's requests go through.
 *
 * IDENTIFICATION
 *	  src/remote/store.c
 *
 *-------------------------------------------------------------------------
 */
#include "remote/remote_int.h"

#include <stdio.h>
#include <string.h>

/* Append "?a=b&c=d" (encoded) to the request's URL. */
RmtStatus
rmt_append_query(RmtRequest *r, RmtError *err)
{
	size_t		len = strlen(r->url);

	for (int i = 0; i < r->nquery; i++)
	{
		char		name[128];
		char		value[RMT_MAX_KEY * 3 + 1];
		int			n;

		if (rmt_uri_encode(r->query[i].name, strlen(r->query[i].name), false,
						   name, sizeof(name)) != RMT_OK ||
			rmt_uri_encode(r->query[i].value, strlen(r->query[i].value), false,
						   value, sizeof(value)) != RMT_OK)
			return rmt_fail(err, RMT_TOO_LONG, 0, "a query parameter is too long");
		n = snprintf(r->url + len, sizeof(r->url) - len, "%c%s=%s",
					 i == 0 ? '?' : '&', name, value);
		if (n < 0 || (size_t) n >= sizeof(r->url) - len)
			return rmt_fail(err, RMT_TOO_LONG, 0, "the request URL is too long");
		len += (size_t) n;
	}
	return RMT_OK;
}

/* Run one request with retries; the body sink is reset for each attempt. */
RmtStatus
rmt_exchange(RmtStore *store, const RmtRequest *r, RmtSignFn sign,
			 const char *method, const char *range, const char *if_match,
			 RmtBody *body, RmtResponse *resp, const char *what, RmtError *err)
{
	for (int attempt = 0;; attempt++)
	{
		struct curl_slist *headers;
		RmtStatus	st = sign(store, r, method, range, if_match, &headers, err);
		uint64_t	skip = body ? body->skip : 0;

		if (st != RMT_OK)
			return st;
		st = rmt_perform(store, method, r->url, headers, body, resp, err);
		curl_slist_free_all(headers);
		if (body)
			body->skip = skip;
		if (st == RMT_OK && resp->status >= 200 && resp->status < 300)
			return RMT_OK;
		if (st == RMT_CANCELLED || st == RMT_FORBIDDEN_ADDRESS ||
			!rmt_retry_wait(store, attempt, st, resp, err))
		{
			if (err->status == RMT_CANCELLED)
				return RMT_CANCELLED;
			if (st != RMT_OK)
				return st;
			return rmt_http_failure(resp, what, err);
		}
	}
}

RmtStatus
rmt_store_head(RmtStore *store, const RmtUrl *url, RmtObjectInfo *info,
			   RmtError *err)
{
	if (url->scheme == RMT_SCHEME_AZURE)
		return rmt_azure_head(store, url, info, err);
	return rmt_s3_head(store, url, info, err);
}

RmtStatus
rmt_store_read(RmtStore *store, const RmtUrl *url, uint64_t offset,
			   size_t len, void *buf, const char *etag, RmtError *err)
{
	if (url->scheme == RMT_SCHEME_AZURE)
		return rmt_azure_read(store, url, offset, len, buf, etag, err);
	return rmt_s3_read(store, url, offset, len, buf, etag, err);
}

RmtStatus
rmt_store_list(RmtStore *store, const RmtUrl *where, RmtListEmit emit,
			   void *arg, RmtError *err)
{
	memset(err, 0, sizeof(*err));
	switch (where->scheme)
	{
		case RMT_SCHEME_AZURE:
			return rmt_azure_list(store, where, emit, arg, err);
		case RMT_SCHEME_S3:
		case RMT_SCHEME_GCS:
			return rmt_s3_list(store, where, emit, arg, err);
		case RMT_SCHEME_HTTP:
		case RMT_SCHEME_HTTPS:
			break;
	}
	return rmt_fail(err, RMT_UNSUPPORTED_SCHEME, 0,
					"%s URLs name single objects and cannot be listed",
					rmt_scheme_name(where->scheme));
}
