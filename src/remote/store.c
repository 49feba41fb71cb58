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
#include <stdlib.h>
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

		if (st != RMT_OK)
			return st;
		st = rmt_perform_send(store, method, r->url, headers, r->payload,
							  r->payload_len, body, resp, err);
		curl_slist_free_all(headers);
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
	RmtRange	piece = {offset, len, buf};

	return rmt_store_read_many(store, url, &piece, 1, etag, err);
}

static int
compare_pieces(const void *a, const void *b)
{
	const RmtRange *pa = a;
	const RmtRange *pb = b;

	return pa->offset < pb->offset ? -1 : pa->offset > pb->offset;
}

/* Check one finished read: the version it came from and its length. */
static RmtStatus
check_read(const RmtTransfer *t, const char *etag, RmtError *err)
{
	/* a server that ignores If-Match still names the version it sent */
	if (etag && etag[0] && t->resp.etag[0] && strcmp(etag, t->resp.etag) != 0)
		return rmt_fail(err, RMT_CHANGED, (int) t->resp.status,
						"the object's ETag changed from %s to %s", etag, t->resp.etag);
	if (!rmt_body_complete(&t->body))
		return rmt_fail(err, RMT_BAD_RESPONSE, (int) t->resp.status,
						"expected %llu bytes at offset %llu, got %llu",
						(unsigned long long) t->body.span,
						(unsigned long long) t->body.base,
						(unsigned long long) t->body.received);
	return RMT_OK;
}

RmtStatus
rmt_store_read_many(RmtStore *store, const RmtUrl *url, const RmtRange *pieces,
					int npieces, const char *etag, RmtError *err)
{
	const RmtProtocol *proto = url->scheme == RMT_SCHEME_AZURE ?
		&rmt_azure_protocol : &rmt_s3_protocol;
	const RmtStoreConfig *cfg = &store->config;
	uint64_t	gap = cfg->coalesce_gap ? cfg->coalesce_gap : 1024 * 1024;
	uint64_t	max_span = cfg->max_request_bytes ? cfg->max_request_bytes : 64 * 1024 * 1024;
	int			max_parallel = cfg->max_parallel > 0 ? cfg->max_parallel : 8;
	RmtRange   *sorted;
	RmtTransfer *t;
	RmtRequest *request;
	int			ntransfers = 0;
	RmtStatus	st;

	memset(err, 0, sizeof(*err));
	if (etag && !etag[0])
		etag = NULL;
	sorted = store->alloc.alloc(store->alloc.ctx, sizeof(RmtRange) * (npieces + 1));
	t = store->alloc.alloc(store->alloc.ctx, sizeof(RmtTransfer) * (npieces + 1));
	request = store->alloc.alloc(store->alloc.ctx, sizeof(RmtRequest));
	if (!sorted || !t || !request)
	{
		st = rmt_fail(err, RMT_NO_MEMORY, 0, "out of memory");
		goto done;
	}
	if ((st = proto->prepare(store, url, request, err)) != RMT_OK)
		goto done;

	/* Group the pieces in offset order: one request per group. */
	{
		int			k = 0;

		for (int i = 0; i < npieces; i++)
			if (pieces[i].len > 0)
				sorted[k++] = pieces[i];
		npieces = k;
	}
	qsort(sorted, npieces, sizeof(RmtRange), compare_pieces);
	for (int i = 0; i < npieces;)
	{
		RmtTransfer *tr = &t[ntransfers++];
		uint64_t	start = sorted[i].offset;
		uint64_t	end = sorted[i].offset + sorted[i].len;
		int			j = i + 1;

		while (j < npieces && sorted[j].offset <= end + gap &&
			   (sorted[j].offset + sorted[j].len > end ?
				sorted[j].offset + sorted[j].len : end) - start <= max_span)
		{
			if (sorted[j].offset + sorted[j].len > end)
				end = sorted[j].offset + sorted[j].len;
			j++;
		}
		memset(tr, 0, sizeof(*tr));
		tr->request = request;
		tr->sign = proto->sign;
		tr->if_match = etag;
		snprintf(tr->range, sizeof(tr->range), "bytes=%llu-%llu",
				 (unsigned long long) start, (unsigned long long) (end - 1));
		tr->body.pieces = &sorted[i];
		tr->body.npieces = j - i;
		tr->body.base = start;
		tr->body.span = end - start;
		i = j;
	}

	if (ntransfers == 1)		/* one request: the plain path, with retries */
		t[0].status = rmt_exchange(store, request, proto->sign, "GET", t[0].range,
								   etag, &t[0].body, &t[0].resp, "GET", &t[0].err);
	else if (ntransfers > 1)
	{
		if ((st = rmt_perform_many(store, t, ntransfers, max_parallel, err)) != RMT_OK)
			goto done;
		/* a transfer that failed gets its own retries, one after the other */
		for (int i = 0; i < ntransfers; i++)
		{
			RmtTransfer *tr = &t[i];
			bool		ok = tr->status == RMT_OK && tr->resp.status >= 200 &&
				tr->resp.status < 300;

			if (ok || tr->status == RMT_CANCELLED || tr->status == RMT_FORBIDDEN_ADDRESS)
				continue;
			if (tr->status == RMT_OK && !rmt_retry_wait(store, 0, RMT_OK, &tr->resp, &tr->err))
				tr->status = tr->err.status == RMT_CANCELLED ? RMT_CANCELLED :
					rmt_http_failure(&tr->resp, "GET", &tr->err);	/* 404, 403... */
			else
				tr->status = rmt_exchange(store, request, proto->sign, "GET", tr->range,
										  etag, &tr->body, &tr->resp, "GET", &tr->err);
		}
	}
	for (int i = 0; i < ntransfers; i++)
	{
		if (t[i].status != RMT_OK)
		{
			*err = t[i].err;
			st = t[i].status;
			goto done;
		}
		if ((st = check_read(&t[i], etag, err)) != RMT_OK)
			goto done;
	}
	st = RMT_OK;
done:
	store->alloc.release(store->alloc.ctx, sorted);
	store->alloc.release(store->alloc.ctx, t);
	store->alloc.release(store->alloc.ctx, request);
	return st;
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
