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

uint64_t
rmt_coalesce_gap_for(double latency_s, double bytes_per_s)
{
	double		gap;

	if (!(latency_s > 0) || !(bytes_per_s > 0))
		return RMT_GAP_UNMEASURED;
	gap = latency_s * bytes_per_s;
	if (gap < (double) RMT_GAP_MIN)
		return RMT_GAP_MIN;
	if (gap > (double) RMT_GAP_MAX)
		return RMT_GAP_MAX;
	return (uint64_t) gap;
}

uint64_t
rmt_store_coalesce_gap(const RmtStore *store)
{
	if (store->config.coalesce_gap)
		return store->config.coalesce_gap;
	/* a single sample may be a cold connection's handshake */
	if (store->link.samples < 2)
		return RMT_GAP_UNMEASURED;
	return rmt_coalesce_gap_for(store->link.latency_s, store->link.bytes_per_s);
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

/*
 * A read of several pieces: its requests (pieces in offset order, grouped
 * one group per request) and, while it runs in steps, the multi run.
 */
struct RmtFetch
{
	RmtStore   *store;
	RmtRange   *sorted;
	RmtTransfer *t;
	RmtRequest *request;
	int			ntransfers;
	const char *etag;
	RmtMultiRun *run;			/* NULL: not started on a multi handle */
	bool		done;			/* every transfer of run has finished */
	RmtFetch   *next_outstanding;	/* the store's list */
};

static void
fetch_free(RmtFetch *f)
{
	RmtStore   *store;

	if (f == NULL)
		return;
	store = f->store;
	rmt_multi_finish(f->run);
	for (RmtFetch **p = &store->fetch; *p; p = &(*p)->next_outstanding)
		if (*p == f)
		{
			*p = f->next_outstanding;
			break;
		}
	store->alloc.release(store->alloc.ctx, f->sorted);
	store->alloc.release(store->alloc.ctx, f->t);
	store->alloc.release(store->alloc.ctx, f->request);
	store->alloc.release(store->alloc.ctx, f);
}

/* Sort and group the pieces into requests (not sent yet). */
static RmtStatus
fetch_plan(RmtStore *store, const RmtUrl *url, const RmtRange *pieces,
		   int npieces, const char *etag, RmtFetch **out, RmtError *err)
{
	const RmtProtocol *proto = url->scheme == RMT_SCHEME_AZURE ?
		&rmt_azure_protocol : &rmt_s3_protocol;
	const RmtStoreConfig *cfg = &store->config;
	uint64_t	gap = rmt_store_coalesce_gap(store);
	uint64_t	max_span = cfg->max_request_bytes ? cfg->max_request_bytes : 64 * 1024 * 1024;
	RmtFetch   *f;
	RmtStatus	st;

	*out = NULL;
	memset(err, 0, sizeof(*err));
	if (etag && !etag[0])
		etag = NULL;
	f = store->alloc.alloc(store->alloc.ctx, sizeof(RmtFetch));
	if (f == NULL)
		return rmt_fail(err, RMT_NO_MEMORY, 0, "out of memory");
	memset(f, 0, sizeof(*f));
	f->store = store;
	f->etag = etag;
	f->sorted = store->alloc.alloc(store->alloc.ctx, sizeof(RmtRange) * (npieces + 1));
	f->t = store->alloc.alloc(store->alloc.ctx, sizeof(RmtTransfer) * (npieces + 1));
	f->request = store->alloc.alloc(store->alloc.ctx, sizeof(RmtRequest));
	if (!f->sorted || !f->t || !f->request)
	{
		fetch_free(f);
		return rmt_fail(err, RMT_NO_MEMORY, 0, "out of memory");
	}
	if ((st = proto->prepare(store, url, f->request, err)) != RMT_OK)
	{
		fetch_free(f);
		return st;
	}

	/* Group the pieces in offset order: one request per group. */
	{
		int			k = 0;

		for (int i = 0; i < npieces; i++)
			if (pieces[i].len > 0)
				f->sorted[k++] = pieces[i];
		npieces = k;
	}
	qsort(f->sorted, npieces, sizeof(RmtRange), compare_pieces);
	for (int i = 0; i < npieces;)
	{
		RmtTransfer *tr = &f->t[f->ntransfers++];
		uint64_t	start = f->sorted[i].offset;
		uint64_t	end = f->sorted[i].offset + f->sorted[i].len;
		int			j = i + 1;

		while (j < npieces && f->sorted[j].offset <= end + gap &&
			   (f->sorted[j].offset + f->sorted[j].len > end ?
				f->sorted[j].offset + f->sorted[j].len : end) - start <= max_span)
		{
			if (f->sorted[j].offset + f->sorted[j].len > end)
				end = f->sorted[j].offset + f->sorted[j].len;
			j++;
		}
		memset(tr, 0, sizeof(*tr));
		tr->request = f->request;
		tr->sign = proto->sign;
		tr->if_match = etag;
		snprintf(tr->range, sizeof(tr->range), "bytes=%llu-%llu",
				 (unsigned long long) start, (unsigned long long) (end - 1));
		tr->body.pieces = &f->sorted[i];
		tr->body.npieces = j - i;
		tr->body.base = start;
		tr->body.span = end - start;
		i = j;
	}
	*out = f;
	return RMT_OK;
}

/*
 * Finish a fetch whose run (if any) is done: retry the failed transfers
 * one after the other (or send the only one, when it never started), then
 * check every answer.
 */
static RmtStatus
fetch_complete(RmtFetch *f, RmtError *err)
{
	RmtStore   *store = f->store;
	RmtStatus	st;

	if (f->run == NULL && f->ntransfers == 1)	/* the plain path, with retries */
		f->t[0].status = rmt_exchange(store, f->request, f->t[0].sign, "GET",
									  f->t[0].range, f->etag, &f->t[0].body,
									  &f->t[0].resp, "GET", &f->t[0].err);
	else
	{
		if (f->run == NULL && f->ntransfers > 0)
		{
			const RmtStoreConfig *cfg = &store->config;

			if ((st = rmt_perform_many(store, f->t, f->ntransfers,
									   cfg->max_parallel > 0 ? cfg->max_parallel : 8,
									   err)) != RMT_OK)
				return st;
		}
		for (int i = 0; i < f->ntransfers; i++)
		{
			RmtTransfer *tr = &f->t[i];
			bool		ok = tr->status == RMT_OK && tr->resp.status >= 200 &&
				tr->resp.status < 300;

			if (ok || tr->status == RMT_CANCELLED || tr->status == RMT_FORBIDDEN_ADDRESS)
				continue;
			if (tr->status == RMT_OK && !rmt_retry_wait(store, 0, RMT_OK, &tr->resp, &tr->err))
				tr->status = tr->err.status == RMT_CANCELLED ? RMT_CANCELLED :
					rmt_http_failure(&tr->resp, "GET", &tr->err);	/* 404, 403... */
			else
				tr->status = rmt_exchange(store, f->request, tr->sign, "GET", tr->range,
										  f->etag, &tr->body, &tr->resp, "GET", &tr->err);
		}
	}
	for (int i = 0; i < f->ntransfers; i++)
	{
		if (f->t[i].status != RMT_OK)
		{
			*err = f->t[i].err;
			return f->t[i].status;
		}
		if ((st = check_read(&f->t[i], f->etag, err)) != RMT_OK)
			return st;
	}
	return RMT_OK;
}

RmtStatus
rmt_store_read_many(RmtStore *store, const RmtUrl *url, const RmtRange *pieces,
					int npieces, const char *etag, RmtError *err)
{
	RmtFetch   *f;
	RmtStatus	st;

	if ((st = fetch_plan(store, url, pieces, npieces, etag, &f, err)) != RMT_OK)
		return st;
	st = fetch_complete(f, err);
	fetch_free(f);
	return st;
}

RmtStatus
rmt_store_fetch_begin(RmtStore *store, const RmtUrl *url,
					  const RmtRange *pieces, int npieces, const char *etag,
					  RmtFetch **fetch, RmtError *err)
{
	const RmtStoreConfig *cfg = &store->config;
	RmtFetch   *f;
	RmtStatus	st;

	*fetch = NULL;
	if ((st = fetch_plan(store, url, pieces, npieces, etag, &f, err)) != RMT_OK)
		return st;

	/*
	 * Every outstanding fetch shares the store's multi handle: one
	 * connection cache, and one curl_multi_perform moves them all.
	 */
	if (!store->multi_async && !(store->multi_async = rmt_multi_new(store)))
	{
		fetch_free(f);
		return rmt_fail(err, RMT_NETWORK_ERROR, 0, "could not create a libcurl multi handle");
	}
	f->next_outstanding = store->fetch;
	store->fetch = f;
	if ((st = rmt_multi_start(store, store->multi_async, f->t, f->ntransfers,
							  cfg->max_parallel > 0 ? cfg->max_parallel : 8,
							  &f->run, err)) != RMT_OK)
	{
		fetch_free(f);
		return st;
	}
	f->done = rmt_multi_step(f->run, 0);
	*fetch = f;
	return RMT_OK;
}

/*
 * Move every outstanding fetch of the store: start the queued transfers
 * of each run (only a run starts its own, as others finish), then let curl
 * move the shared multi handle once, waiting up to wait_ms when nothing
 * finished and awaited (if any) is not done.  One curl_multi_perform polls
 * every socket of the handle, so it runs once here, not once per fetch:
 * with a window of row groups in flight, once per fetch made each batch
 * cost the square of the window in poll() calls.  Any drive (a begin's
 * too) may finish another run's transfers: done is computed for every run
 * before waiting, or a finished fetch would wait for others' sockets.
 */
static void
step_all(RmtStore *store, const RmtFetch *awaited, int wait_ms)
{
	bool		running = false;

	for (RmtFetch *o = store->fetch; o != NULL; o = o->next_outstanding)
		if (o->run != NULL && !o->done)
		{
			rmt_multi_launch(o->run);
			o->done = rmt_multi_done(o->run);
			running |= !o->done;
		}
	if (!running)
		return;
	if (awaited != NULL && awaited->done)
		wait_ms = 0;
	if (rmt_multi_drive(store->multi_async, wait_ms))
		for (RmtFetch *o = store->fetch; o != NULL; o = o->next_outstanding)
			if (o->run != NULL && !o->done)
			{
				/* slots freed: the next transfers start now */
				rmt_multi_launch(o->run);
				o->done = rmt_multi_done(o->run);
			}
}

bool
rmt_store_fetch_poll(RmtFetch *fetch)
{
	if (fetch == NULL)
		return true;
	step_all(fetch->store, NULL, 0);
	return fetch->done;
}

RmtStatus
rmt_store_fetch_wait(RmtFetch *fetch, RmtError *err)
{
	RmtStatus	st = RMT_OK;

	memset(err, 0, sizeof(*err));
	if (fetch == NULL)
		return RMT_OK;
	/* as rmt_multi_wait, keeping the fetches behind this one moving */
	while (!fetch->done)
	{
		step_all(fetch->store, fetch, 100);
		if (!fetch->done && rmt_interrupted(fetch->store))
		{
			st = rmt_fail(err, RMT_CANCELLED, 0, "canceled by the user");
			break;
		}
	}
	if (st == RMT_OK)
	{
		fetch->done = true;
		st = fetch_complete(fetch, err);
	}
	fetch_free(fetch);
	return st;
}

void
rmt_store_fetch_cancel(RmtFetch *fetch)
{
	fetch_free(fetch);
}

/* A listing by the protocol of where's scheme: flat, or one level. */
static RmtStatus
list_by_scheme(RmtStore *store, const RmtUrl *where, bool delimited,
			   RmtListEmit emit, RmtListPrefixEmit emit_prefix, void *arg,
			   RmtError *err)
{
	memset(err, 0, sizeof(*err));
	switch (where->scheme)
	{
		case RMT_SCHEME_AZURE:
			return rmt_azure_list(store, where, delimited, emit, emit_prefix,
								  arg, err);
		case RMT_SCHEME_S3:
		case RMT_SCHEME_GCS:
			return rmt_s3_list(store, where, delimited, emit, emit_prefix,
							   arg, err);
		case RMT_SCHEME_HTTP:
		case RMT_SCHEME_HTTPS:
			break;
	}
	return rmt_fail(err, RMT_UNSUPPORTED_SCHEME, 0,
					"%s URLs name single objects and cannot be listed",
					rmt_scheme_name(where->scheme));
}

RmtStatus
rmt_store_list(RmtStore *store, const RmtUrl *where, RmtListEmit emit,
			   void *arg, RmtError *err)
{
	return list_by_scheme(store, where, false, emit, NULL, arg, err);
}

RmtStatus
rmt_store_list_dir(RmtStore *store, const RmtUrl *where,
				   RmtListEmit emit_object, RmtListPrefixEmit emit_prefix,
				   void *arg, RmtError *err)
{
	return list_by_scheme(store, where, true, emit_object, emit_prefix, arg,
						  err);
}
