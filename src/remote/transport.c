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
	RmtBody    *body;
	RmtResponse *resp;
	bool		cancelled;
	bool		forbidden_peer;
} Exchange;

static size_t
on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	Exchange   *x = arg;
	RmtBody    *b = x->body;
	size_t		n = size * nmemb;
	size_t		used = n;
	long		status = 0;

	x->store->stats.bytes_fetched += n;
	curl_easy_getinfo(x->store->curl, CURLINFO_RESPONSE_CODE, &status);
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
	if (b->want > 0)			/* fixed buffer, maybe after a skip */
	{
		if (b->skip >= n)
		{
			b->skip -= n;
			return n;
		}
		data += b->skip;
		n -= (size_t) b->skip;
		b->skip = 0;
		if (n > b->want - b->len)
		{
			b->overflow = true;
			n = b->want - b->len;
		}
		memcpy(b->buf + b->len, data, n);
		b->len += n;
		/* the rest of a full-object answer is not needed: stop it */
		return b->len == b->want && b->overflow ? 0 : used;
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
	return used;
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

static bool
is_link_local(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
	{
		const struct sockaddr_in *a4 = (const struct sockaddr_in *) (const void *) sa;

		return (ntohl(a4->sin_addr.s_addr) & 0xFFFF0000u) == 0xA9FE0000u;	/* 169.254/16 */
	}
	if (sa->sa_family == AF_INET6)
	{
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *) (const void *) sa)->sin6_addr;

		if (a6->s6_addr[0] == 0xFE && (a6->s6_addr[1] & 0xC0) == 0x80)
			return true;		/* fe80::/10 */
		if (IN6_IS_ADDR_V4MAPPED(a6))	/* ::ffff:169.254.x.x */
			return a6->s6_addr[12] == 169 && a6->s6_addr[13] == 254;
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
	return socket(address->family, address->socktype, address->protocol);
}

RmtStatus
rmt_perform(RmtStore *store, const char *method, const char *url,
			struct curl_slist *headers, RmtBody *body, RmtResponse *resp,
			RmtError *err)
{
	CURL	   *c = store->curl;
	Exchange	x = {store, body, resp, false, false};
	CURLcode	rc;
	const RmtStoreConfig *cfg = &store->config;

	memset(resp, 0, sizeof(*resp));
	resp->retry_after_s = -1;
	if (body)
	{
		body->len = 0;
		body->overflow = false;
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
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &x);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, &x);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &x);
	if (strcmp(method, "HEAD") == 0)
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);

	store->stats.requests++;
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);

	if (x.cancelled)
		return rmt_fail(err, RMT_CANCELLED, 0, "canceled by the user");
	if (x.forbidden_peer)
		return rmt_fail(err, RMT_FORBIDDEN_ADDRESS, 0,
						"the host resolves to a link-local address (cloud metadata services answer there)");
	/* A full-object answer cut short on purpose is a success. */
	if (rc == CURLE_WRITE_ERROR && body && body->want > 0 && body->len == body->want)
		return RMT_OK;
	if (rc == CURLE_WRITE_ERROR && body && body->overflow)
		return rmt_fail(err, RMT_BAD_RESPONSE, (int) resp->status,
						"the response is larger than expected");
	if (rc != CURLE_OK)
		return rmt_fail(err, RMT_NETWORK_ERROR, (int) resp->status, "%s",
						curl_easy_strerror(rc));
	return RMT_OK;
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
