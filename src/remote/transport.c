/*-------------------------------------------------------------------------
 *
 * transport.c
 *	  One HTTP exchange over libcurl, retries with backoff, the client's
 *	  life cycle.
 *
 * libcurl does the HTTP; this file only decides what it may do: no
 * signals (the backend owns SIGALRM), no redirects, no link-local peers,
 * a progress callback that polls the caller's interrupt check (libcurl
 * calls it at least once a second, also while a transfer is idle), and
 * bodies written into caller-sized or bounded buffers.
 *
 * IDENTIFICATION
 *	  src/remote/transport.c
 *
 *-------------------------------------------------------------------------
 */
#include "remote/remote_int.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <time.h>

const char *
rmt_status_name(RmtStatus status)
{
	switch (status)
	{
		case RMT_OK:
			return "ok";
		case RMT_INVALID_URL:
			return "invalid URL";
		case RMT_UNSUPPORTED_SCHEME:
			return "unsupported URL scheme";
		case RMT_TOO_LONG:
			return "value too long";
		case RMT_CRYPTO_ERROR:
			return "cryptography error";
		case RMT_NO_MEMORY:
			return "out of memory";
		case RMT_NOT_FOUND:
			return "not found";
		case RMT_ACCESS_DENIED:
			return "access denied";
		case RMT_CHANGED:
			return "object changed";
		case RMT_HTTP_ERROR:
			return "HTTP error";
		case RMT_NETWORK_ERROR:
			return "network error";
		case RMT_BAD_RESPONSE:
			return "invalid response";
		case RMT_FORBIDDEN_ADDRESS:
			return "forbidden address";
		case RMT_CANCELLED:
			return "cancelled";
	}
	return "unknown error";
}

RmtStatus
rmt_fail(RmtError *err, RmtStatus status, int http_status, const char *fmt,...)
{
	va_list		ap;

	err->status = status;
	err->http_status = http_status;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return status;
}

void
rmt_store_config_init(RmtStoreConfig *config)
{
	memset(config, 0, sizeof(*config));
	config->use_ssl = true;
	config->verify_tls = true;
}

/* Copy the config's strings into one allocation the store owns. */
static RmtStatus
copy_strings(RmtStore *s)
{
	const char **fields[] = {&s->config.endpoint, &s->config.region,
		&s->config.ca_file, &s->config.key_id, &s->config.secret,
		&s->config.session_token, &s->config.account_name,
	&s->config.account_key, &s->config.sas_token};
	size_t		total = 0;
	char	   *p;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (*fields[i])
			total += strlen(*fields[i]) + 1;
	s->strings = p = s->alloc.alloc(s->alloc.ctx, total + 1);
	s->strings_len = total + 1;
	if (!p)
		return RMT_NO_MEMORY;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (*fields[i])
		{
			size_t		n = strlen(*fields[i]) + 1;

			memcpy(p, *fields[i], n);
			*fields[i] = p;
			p += n;
		}
	return RMT_OK;
}

RmtStatus
rmt_store_open(RmtStore **store, const RmtStoreConfig *config,
			   const PfcAllocator *alloc, RmtError *err)
{
	static bool curl_ready = false;
	RmtStore   *s;

	memset(err, 0, sizeof(*err));
	*store = NULL;
	if (!curl_ready)
	{
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return rmt_fail(err, RMT_NETWORK_ERROR, 0, "could not initialize libcurl");
		curl_ready = true;
	}
	s = alloc->alloc(alloc->ctx, sizeof(RmtStore));
	if (!s)
		return rmt_fail(err, RMT_NO_MEMORY, 0, "out of memory");
	memset(s, 0, sizeof(*s));
	s->config = *config;
	s->alloc = *alloc;
	if (!s->config.connect_timeout_ms)
		s->config.connect_timeout_ms = 10000;
	if (!s->config.low_speed_time_s)
		s->config.low_speed_time_s = 30;
	if (!s->config.max_retries)
		s->config.max_retries = 4;
	if (!s->config.retry_base_ms)
		s->config.retry_base_ms = 200;
	if (copy_strings(s) != RMT_OK)
	{
		alloc->release(alloc->ctx, s);
		return rmt_fail(err, RMT_NO_MEMORY, 0, "out of memory");
	}
	s->curl = curl_easy_init();
	if (!s->curl)
	{
		rmt_store_close(s);
		return rmt_fail(err, RMT_NETWORK_ERROR, 0, "could not create a libcurl handle");
	}
	*store = s;
	return RMT_OK;
}

void
rmt_store_close(RmtStore *store)
{
	if (!store)
		return;
	if (store->curl)
		curl_easy_cleanup(store->curl);
	while (store->fetch)
		rmt_store_fetch_cancel(store->fetch);
	if (store->multi)
		curl_multi_cleanup(store->multi);
	if (store->multi_async)
		curl_multi_cleanup(store->multi_async);
	if (store->strings)
	{
		/* the secret lives in here: leave no copy behind */
		memset(store->strings, 0, store->strings_len);
		store->alloc.release(store->alloc.ctx, store->strings);
	}
	store->alloc.release(store->alloc.ctx, store);
}

const RmtStoreStats *
rmt_store_stats(const RmtStore *store)
{
	return &store->stats;
}

/* ---- one exchange ------------------------------------------------------ */

typedef struct Exchange
{
	RmtStore   *store;
	CURL	   *handle;
	RmtBody    *body;
	RmtResponse *resp;
	bool		cancelled;
	bool		forbidden_peer;
	const char *payload;		/* PUT/POST body and how much is sent */
	size_t		payload_len;
	size_t		payload_sent;
	RmtMultiRun *run;			/* the run it belongs to (multi transfers) */
} Exchange;

bool
rmt_body_complete(const RmtBody *b)
{
	if (b->whole_object)
		return b->received >= b->base + b->span;
	return b->received == b->span;
}

/* Scatter bytes [abs, abs + n) of the object into the pieces covering them. */
static void
scatter(RmtBody *b, const char *data, uint64_t abs, size_t n)
{
	uint64_t	end = abs + n;

	for (int i = b->next_piece; i < b->npieces; i++)
	{
		const RmtRange *p = &b->pieces[i];
		uint64_t	lo = p->offset > abs ? p->offset : abs;
		uint64_t	hi = p->offset + p->len < end ? p->offset + p->len : end;

		if (p->offset >= end)
			break;
		if (lo < hi)
			memcpy((char *) p->buf + (lo - p->offset), data + (lo - abs), (size_t) (hi - lo));
	}
	while (b->next_piece < b->npieces &&
		   b->pieces[b->next_piece].offset + b->pieces[b->next_piece].len <= end)
		b->next_piece++;
}

static size_t
on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	Exchange   *x = arg;
	RmtBody    *b = x->body;
	size_t		n = size * nmemb;
	long		status = 0;

	x->store->stats.bytes_fetched += n;
	curl_easy_getinfo(x->handle, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 300)			/* an error document: keep its start */
	{
		RmtResponse *r = x->resp;
		size_t		room = sizeof(r->error_body) - 1 - r->error_len;

		memcpy(r->error_body + r->error_len, data, n < room ? n : room);
		r->error_len += n < room ? n : room;
		r->error_body[r->error_len] = '\0';
		return n;
	}
	if (!b)
		return n;
	if (b->npieces > 0)
	{
		uint64_t	abs;

		if (!b->started)
		{
			b->started = true;
			b->whole_object = status == 200;
		}
		abs = (b->whole_object ? 0 : b->base) + b->received;
		if (!b->whole_object && b->received + n > b->span)
		{
			b->overflow = true;
			return 0;
		}
		b->received += n;
		scatter(b, data, abs, n);
		/* the rest of a whole-object answer is not needed: stop it */
		if (b->whole_object && b->received >= b->base + b->span)
		{
			b->cut_short = true;
			return 0;
		}
		return n;
	}
	if (b->len + n > b->limit)
	{
		b->overflow = true;
		return 0;
	}
	if (b->len + n + 1 > b->cap)
	{
		size_t		cap = b->cap ? b->cap * 2 : 64 * 1024;
		char	   *grown;

		while (cap < b->len + n + 1)
			cap *= 2;
		grown = b->alloc->alloc(b->alloc->ctx, cap);
		if (!grown)
			return 0;
		if (b->len)
			memcpy(grown, b->buf, b->len);
		if (b->buf)
			b->alloc->release(b->alloc->ctx, b->buf);
		b->buf = grown;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return n;
}

/* Header lines: status resets per response; ETag, length, Retry-After. */
static size_t
on_header(char *line, size_t size, size_t nmemb, void *arg)
{
	Exchange   *x = arg;
	size_t		n = size * nmemb;
	char		name[32];
	size_t		i = 0;
	const char *v;
	size_t		vlen;

	while (i < n && i + 1 < sizeof(name) && line[i] != ':')
	{
		name[i] = (char) tolower((unsigned char) line[i]);
		i++;
	}
	if (i >= n || line[i] != ':')
		return n;
	name[i] = '\0';
	v = line + i + 1;
	while (v < line + n && (*v == ' ' || *v == '\t'))
		v++;
	vlen = (size_t) (line + n - v);
	while (vlen > 0 && (v[vlen - 1] == '\r' || v[vlen - 1] == '\n' || v[vlen - 1] == ' '))
		vlen--;
	if (strcmp(name, "etag") == 0 && vlen < sizeof(x->resp->etag))
	{
		memcpy(x->resp->etag, v, vlen);
		x->resp->etag[vlen] = '\0';
	}
	else if (strcmp(name, "content-length") == 0)
	{
		x->resp->has_length = true;
		x->resp->content_length = strtoull(v, NULL, 10);
	}
	else if (strcmp(name, "retry-after") == 0)
		x->resp->retry_after_s = strtol(v, NULL, 10);
	else if (strcmp(name, "x-ms-error-code") == 0 && vlen < sizeof(x->resp->error_code))
	{
		memcpy(x->resp->error_code, v, vlen);
		x->resp->error_code[vlen] = '\0';
	}
	return n;
}

static int
on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow,
			curl_off_t ultotal, curl_off_t ulnow)
{
	Exchange   *x = arg;
	const RmtStoreConfig *c = &x->store->config;

	if (c->interrupted && c->interrupted(c->interrupt_arg))
	{
		x->cancelled = true;
		return 1;
	}
	return 0;
}

/*
 * Addresses where cloud metadata services answer: link-local
 * 169.254.0.0/16 and fe80::/10 (AWS, GCP, Azure, OCI...), plus the few
 * clouds that use others: AWS's IPv6 IMDS fd00:ec2::254 and Alibaba
 * Cloud's 100.100.100.200.
 */
static bool
is_ipv4_metadata(uint32_t host_order)
{
	return (host_order & 0xFFFF0000u) == 0xA9FE0000u ||	/* 169.254/16 */
		host_order == 0x646464C8u;	/* 100.100.100.200 */
}

static bool
is_link_local(const struct sockaddr *sa)
{
	static const unsigned char aws_imds_v6[16] =
	{0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54};

	if (sa->sa_family == AF_INET)
	{
		const struct sockaddr_in *a4 = (const struct sockaddr_in *) (const void *) sa;

		return is_ipv4_metadata(ntohl(a4->sin_addr.s_addr));
	}
	if (sa->sa_family == AF_INET6)
	{
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *) (const void *) sa)->sin6_addr;

		if (a6->s6_addr[0] == 0xFE && (a6->s6_addr[1] & 0xC0) == 0x80)
			return true;		/* fe80::/10 */
		if (memcmp(a6->s6_addr, aws_imds_v6, 16) == 0)
			return true;
		if (IN6_IS_ADDR_V4MAPPED(a6))	/* ::ffff:a.b.c.d */
			return is_ipv4_metadata(((uint32_t) a6->s6_addr[12] << 24) |
									((uint32_t) a6->s6_addr[13] << 16) |
									((uint32_t) a6->s6_addr[14] << 8) |
									(uint32_t) a6->s6_addr[15]);
	}
	return false;
}

/*
 * libcurl asks here for each socket it opens, with the resolved address:
 * the one place to refuse a peer before any byte is sent to it.
 */
static curl_socket_t
on_open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *address)
{
	Exchange   *x = arg;

	if (!x->store->config.allow_link_local && is_link_local(&address->addr))
	{
		x->forbidden_peer = true;
		return CURL_SOCKET_BAD;
	}
	{
		curl_socket_t fd = socket(address->family, address->socktype, address->protocol);

		if (fd != CURL_SOCKET_BAD)
		{
			RmtStoreStats *stats = &x->store->stats;

			if (++stats->open_connections > stats->max_open_connections)
				stats->max_open_connections = stats->open_connections;
		}
		return fd;
	}
}

/* The count of open sockets, for the connection cap's check. */
static int
on_close_socket(void *arg, curl_socket_t fd)
{
	RmtStore   *store = arg;

	if (store->stats.open_connections > 0)
		store->stats.open_connections--;
	return close(fd);
}

/* The request body of PUT and POST, from memory. */
static size_t
on_read(char *buf, size_t size, size_t nitems, void *arg)
{
	Exchange   *x = arg;
	size_t		n = x->payload_len - x->payload_sent;

	if (n > size * nitems)
		n = size * nitems;
	if (n > 0)
		memcpy(buf, x->payload + x->payload_sent, n);
	x->payload_sent += n;
	return n;
}

/* Reset an attempt's state and set every option of one transfer. */
static void
setup_handle(RmtStore *store, CURL *c, Exchange *x, const char *method,
			 const char *url, struct curl_slist *headers)
{
	const RmtStoreConfig *cfg = &store->config;

	memset(x->resp, 0, sizeof(*x->resp));
	x->resp->retry_after_s = -1;
	if (x->body)
	{
		x->body->received = 0;
		x->body->next_piece = 0;
		x->body->started = false;
		x->body->whole_object = false;
		x->body->cut_short = false;
		x->body->len = 0;
		x->body->overflow = false;
	}
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, cfg->connect_timeout_ms);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, cfg->low_speed_time_s);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, cfg->verify_tls ? 1L : 0L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, cfg->verify_tls ? 2L : 0L);
	if (cfg->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, cfg->ca_file);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, x);
	/* the socket may outlive x in the connection cache: count on the store */
	curl_easy_setopt(c, CURLOPT_CLOSESOCKETFUNCTION, on_close_socket);
	curl_easy_setopt(c, CURLOPT_CLOSESOCKETDATA, store);
	if (strcmp(method, "HEAD") == 0)
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else if (strcmp(method, "PUT") == 0 || strcmp(method, "POST") == 0)
	{
		x->payload_sent = 0;
		curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
		curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(c, CURLOPT_READDATA, x);
		curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t) x->payload_len);
	}
	else if (strcmp(method, "GET") != 0)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	store->stats.requests++;
}

/* Below this a body's transfer time says more about timers than bytes/s. */
#define LINK_MIN_BODY	(UINT64_C(256) << 10)

void
rmt_link_observe(RmtLinkEstimate *link, double first_byte_s, double total_s,
				 uint64_t bytes)
{
	/* new samples weigh a quarter: the link changes, one request is noise */
	const double w = link->samples == 0 ? 1.0 : 0.25;

	if (!(first_byte_s >= 0) || !(total_s >= first_byte_s))
		return;
	link->latency_s += w * (first_byte_s - link->latency_s);
	if (bytes >= LINK_MIN_BODY && total_s - first_byte_s > 1e-4)
	{
		double		rate = (double) bytes / (total_s - first_byte_s);

		link->bytes_per_s = link->bytes_per_s > 0 ?
			link->bytes_per_s + 0.25 * (rate - link->bytes_per_s) : rate;
	}
	link->samples++;
}

/*
 * A ranged GET's timing: from the request sent to its first byte (what
 * one more request costs), and the body's rate after that.
 */
static void
observe_link(Exchange *x)
{
	curl_off_t	pre = 0,
				first = 0,
				total = 0,
				bytes = 0;

	if (curl_easy_getinfo(x->handle, CURLINFO_PRETRANSFER_TIME_T, &pre) != CURLE_OK ||
		curl_easy_getinfo(x->handle, CURLINFO_STARTTRANSFER_TIME_T, &first) != CURLE_OK ||
		curl_easy_getinfo(x->handle, CURLINFO_TOTAL_TIME_T, &total) != CURLE_OK ||
		curl_easy_getinfo(x->handle, CURLINFO_SIZE_DOWNLOAD_T, &bytes) != CURLE_OK)
		return;
	if (first < pre || bytes <= 0)
		return;
	rmt_link_observe(&x->store->link, (double) (first - pre) / 1e6,
					 (double) (total - pre) / 1e6, (uint64_t) bytes);
}

/* What one finished transfer amounts to. */
static RmtStatus
transfer_result(Exchange *x, CURLcode rc, RmtError *err)
{
	RmtBody    *body = x->body;

	curl_easy_getinfo(x->handle, CURLINFO_RESPONSE_CODE, &x->resp->status);
	if (x->cancelled)
		return rmt_fail(err, RMT_CANCELLED, 0, "canceled by the user");
	if (x->forbidden_peer)
		return rmt_fail(err, RMT_FORBIDDEN_ADDRESS, 0,
						"the host resolves to a link-local address (cloud metadata services answer there)");
	/* a whole-object answer we cut off past the span is a success */
	if (rc == CURLE_WRITE_ERROR && body && body->cut_short)
		return RMT_OK;
	if (rc == CURLE_WRITE_ERROR && body && body->overflow)
		return rmt_fail(err, RMT_BAD_RESPONSE, (int) x->resp->status,
						"the response is larger than expected");
	if (rc != CURLE_OK)
		return rmt_fail(err, RMT_NETWORK_ERROR, (int) x->resp->status, "%s",
						curl_easy_strerror(rc));
	if (body && body->npieces > 0 && x->resp->status >= 200 && x->resp->status < 300)
		observe_link(x);
	return RMT_OK;
}

RmtStatus
rmt_perform(RmtStore *store, const char *method, const char *url,
			struct curl_slist *headers, RmtBody *body, RmtResponse *resp,
			RmtError *err)
{
	return rmt_perform_send(store, method, url, headers, NULL, 0, body, resp, err);
}

RmtStatus
rmt_perform_send(RmtStore *store, const char *method, const char *url,
				 struct curl_slist *headers, const void *payload,
				 size_t payload_len, RmtBody *body, RmtResponse *resp,
				 RmtError *err)
{
	Exchange	x = {store, store->curl, body, resp, false, false,
	payload, payload_len, 0};
	CURLcode	rc;

	setup_handle(store, store->curl, &x, method, url, headers);
	rc = curl_easy_perform(store->curl);
	return transfer_result(&x, rc, err);
}

/*
 * Transfers of one rmt_perform_many or one asynchronous fetch: started up
 * to max_parallel at a time on multi, advanced by rmt_multi_step.
 */
struct RmtMultiRun
{
	RmtStore   *store;
	CURLM	   *multi;
	RmtTransfer *t;
	int			n;
	int			max_parallel;
	int			next;			/* transfers [0, next) were started */
	int			in_flight;
	CURL	  **handles;
	Exchange   *xs;
	struct curl_slist **headers;
};

RmtStatus
rmt_multi_start(RmtStore *store, CURLM *multi, RmtTransfer *t, int n,
				int max_parallel, RmtMultiRun **run, RmtError *err)
{
	RmtMultiRun *r = store->alloc.alloc(store->alloc.ctx, sizeof(RmtMultiRun));

	*run = NULL;
	if (r == NULL)
		return rmt_fail(err, RMT_NO_MEMORY, 0, "out of memory");
	memset(r, 0, sizeof(*r));
	r->store = store;
	r->multi = multi;
	r->t = t;
	r->n = n;
	r->max_parallel = max_parallel > 0 ? max_parallel : 1;
	r->handles = store->alloc.alloc(store->alloc.ctx, sizeof(CURL *) * (n + 1));
	r->xs = store->alloc.alloc(store->alloc.ctx, sizeof(Exchange) * (n + 1));
	r->headers = store->alloc.alloc(store->alloc.ctx, sizeof(struct curl_slist *) * (n + 1));
	if (!r->handles || !r->xs || !r->headers)
	{
		rmt_multi_finish(r);
		return rmt_fail(err, RMT_NO_MEMORY, 0, "out of memory");
	}
	memset(r->handles, 0, sizeof(CURL *) * (n + 1));
	memset(r->headers, 0, sizeof(struct curl_slist *) * (n + 1));
	*run = r;
	return RMT_OK;
}

void
rmt_multi_launch(RmtMultiRun *r)
{
	RmtStore   *store = r->store;

	while (r->next < r->n && r->in_flight < r->max_parallel)
	{
		int			i = r->next++;
		RmtTransfer *tr = &r->t[i];

		memset(&tr->err, 0, sizeof(tr->err));
		tr->status = tr->sign(store, tr->request, "GET", tr->range,
							  tr->if_match, &r->headers[i], &tr->err);
		if (tr->status == RMT_OK && !(r->handles[i] = curl_easy_init()))
			tr->status = rmt_fail(&tr->err, RMT_NO_MEMORY, 0, "could not create a libcurl handle");
		if (tr->status != RMT_OK)
			continue;
		r->xs[i] = (Exchange) {store, r->handles[i], &tr->body, &tr->resp, false, false};
		r->xs[i].run = r;
		setup_handle(store, r->handles[i], &r->xs[i], "GET", tr->request->url,
					 r->headers[i]);
		curl_easy_setopt(r->handles[i], CURLOPT_PRIVATE, (void *) &r->xs[i]);
		curl_multi_add_handle(r->multi, r->handles[i]);
		r->in_flight++;
	}
	if ((uint64_t) r->in_flight > store->stats.max_in_flight)
		store->stats.max_in_flight = (uint64_t) r->in_flight;
}

bool
rmt_multi_drive(CURLM *multi, int wait_ms)
{
	CURLMsg    *msg;
	int			left;
	int			running = 0;
	int			finished = 0;

	curl_multi_perform(multi, &running);
	while ((msg = curl_multi_info_read(multi, &left)))
	{
		Exchange   *x = NULL;
		RmtMultiRun *owner;
		RmtTransfer *tr;

		if (msg->msg != CURLMSG_DONE)
			continue;
		/* several runs may share the multi handle: finish the owner's */
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **) &x);
		owner = x->run;
		tr = &owner->t[x - owner->xs];
		tr->status = transfer_result(x, msg->data.result, &tr->err);
		curl_multi_remove_handle(owner->multi, msg->easy_handle);
		/* done: its connection stays in the multi handle's cache */
		curl_easy_cleanup(msg->easy_handle);
		owner->handles[x - owner->xs] = NULL;
		owner->in_flight--;
		finished++;
	}
	/* a finished transfer may free a slot: the caller launches first */
	if (finished == 0 && wait_ms > 0 && running > 0)
		curl_multi_poll(multi, NULL, 0, wait_ms, NULL);
	return finished > 0;
}

bool
rmt_multi_done(const RmtMultiRun *r)
{
	return r->in_flight == 0 && r->next == r->n;
}

bool
rmt_multi_step(RmtMultiRun *r, int wait_ms)
{
	rmt_multi_launch(r);
	if (r->in_flight == 0)
		return true;
	rmt_multi_drive(r->multi, wait_ms);
	return rmt_multi_done(r);
}

void
rmt_multi_finish(RmtMultiRun *r)
{
	RmtStore   *store;

	if (r == NULL)
		return;
	store = r->store;
	for (int i = 0; r->handles && r->headers && i < r->n; i++)
	{
		if (r->handles[i])
		{
			curl_multi_remove_handle(r->multi, r->handles[i]);
			curl_easy_cleanup(r->handles[i]);
		}
		curl_slist_free_all(r->headers[i]);
	}
	store->alloc.release(store->alloc.ctx, r->handles);
	store->alloc.release(store->alloc.ctx, r->xs);
	store->alloc.release(store->alloc.ctx, r->headers);
	store->alloc.release(store->alloc.ctx, r);
}

bool
rmt_interrupted(RmtStore *store)
{
	const RmtStoreConfig *cfg = &store->config;

	return cfg->interrupted && cfg->interrupted(cfg->interrupt_arg);
}

RmtStatus
rmt_multi_wait(RmtMultiRun *r, RmtError *err)
{
	while (!rmt_multi_step(r, 100))
	{
		if (rmt_interrupted(r->store))
			return rmt_fail(err, RMT_CANCELLED, 0, "canceled by the user");
	}
	return RMT_OK;
}

CURLM *
rmt_multi_new(RmtStore *store)
{
	CURLM	   *m = curl_multi_init();
	long		cap = store->config.max_connections > 0 ? store->config.max_connections : 16;

	/*
	 * Transfers past the cap wait in curl's queue for a free connection.
	 * The idle connections stay for the next statement: curl's cache keeps
	 * four per easy handle added by default, so the first request of a
	 * statement (one handle) closed the previous one's and each statement
	 * paid a handshake per connection again (two round trips more with TLS).
	 */
	if (m)
	{
		curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, cap);
		curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, cap);
	}
	return m;
}

RmtStatus
rmt_perform_many(RmtStore *store, RmtTransfer *t, int n, int max_parallel,
				 RmtError *err)
{
	RmtMultiRun *run;
	RmtStatus	st;

	if (!store->multi && !(store->multi = rmt_multi_new(store)))
		return rmt_fail(err, RMT_NETWORK_ERROR, 0, "could not create a libcurl multi handle");
	if ((st = rmt_multi_start(store, store->multi, t, n, max_parallel, &run, err)) != RMT_OK)
		return st;
	st = rmt_multi_wait(run, err);
	rmt_multi_finish(run);
	return st;
}

/* Sleep ms milliseconds in slices, polling the interrupt check. */
static bool
sleep_interruptibly(RmtStore *store, long ms)
{
	const RmtStoreConfig *c = &store->config;

	while (ms > 0)
	{
		long		slice = ms < 100 ? ms : 100;
		struct timespec ts = {0, slice * 1000000L};

		if (c->interrupted && c->interrupted(c->interrupt_arg))
			return false;
		nanosleep(&ts, NULL);
		ms -= slice;
	}
	return !(c->interrupted && c->interrupted(c->interrupt_arg));
}

bool
rmt_retry_wait(RmtStore *store, int attempt, RmtStatus status,
			   const RmtResponse *resp, RmtError *err)
{
	long		wait_ms;
	bool		retryable;

	if (status == RMT_NETWORK_ERROR)
		retryable = true;
	else if (status == RMT_OK)
		retryable = resp->status == 429 || resp->status == 500 ||
			resp->status == 502 || resp->status == 503 || resp->status == 504;
	else
		retryable = false;
	if (!retryable || attempt >= store->config.max_retries)
		return false;

	wait_ms = store->config.retry_base_ms << (attempt < 6 ? attempt : 6);
	if (resp->retry_after_s >= 0)
		wait_ms = resp->retry_after_s * 1000L;
	if (wait_ms > 30000)
		wait_ms = 30000;
	store->stats.retries++;
	if (!sleep_interruptibly(store, wait_ms))
	{
		rmt_fail(err, RMT_CANCELLED, 0, "canceled by the user");
		return false;
	}
	return true;
}
