/*-------------------------------------------------------------------------
 *
 * s3.c
 *	  The S3 protocol over the transport: addressing, signed requests,
 *	  HEAD, ranged GET and ListObjectsV2; plain HTTP(S) objects too.
 *
 * S3 and Google Cloud Storage's XML API (with HMAC keys) speak the same
 * protocol; only the default endpoint differs.  Objects named by
 * http(s):// URLs are read with the same ranged GETs, unsigned.
 *
 * IDENTIFICATION
 *	  src/remote/s3.c
 *
 *-------------------------------------------------------------------------
 */
#include "remote/remote_int.h"
#include "remote/sigv4.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIST_PAGE_LIMIT (16 * 1024 * 1024)	/* one ListObjectsV2 page */


static const char *
default_endpoint(const RmtStore *store, RmtScheme scheme, char *buf, size_t cap)
{
	const char *region = store->config.region ? store->config.region : "us-east-1";

	if (store->config.endpoint)
		return store->config.endpoint;
	if (scheme == RMT_SCHEME_GCS)
		return "storage.googleapis.com";
	snprintf(buf, cap, "s3.%s.amazonaws.com", region);
	return buf;
}

/*
 * Address bucket/key: vhost style puts the bucket in the host name, path
 * style in the path.  A custom endpoint defaults to path style, which
 * every S3-compatible server understands.
 */
static RmtStatus
address(const RmtStore *store, const RmtUrl *url, RmtRequest *r, RmtError *err)
{
	char		epbuf[128];
	char		key[RMT_MAX_KEY * 3 + 1];
	const char *scheme_name;
	bool		vhost;

	memset(r, 0, sizeof(*r));
	if (url->scheme == RMT_SCHEME_HTTP || url->scheme == RMT_SCHEME_HTTPS)
	{
		/* http(s): the URL as written, the path already encoded by its author */
		if (url->port)
			snprintf(r->host, sizeof(r->host), "%s:%d", url->host, url->port);
		else
			snprintf(r->host, sizeof(r->host), "%s", url->host);
		snprintf(r->path, sizeof(r->path), "/%s", url->key);
		snprintf(r->url, sizeof(r->url), "%s://%s%s",
				 rmt_scheme_name(url->scheme), r->host, r->path);
		r->sign = false;
		return RMT_OK;
	}
	if (url->scheme == RMT_SCHEME_AZURE)
		return rmt_fail(err, RMT_UNSUPPORTED_SCHEME, 0,
						"Azure Blob Storage is not supported yet");

	vhost = store->config.url_style == RMT_URL_STYLE_VHOST ||
		(store->config.url_style == RMT_URL_STYLE_DEFAULT && !store->config.endpoint);
	/* bucket names with dots break TLS host matching under vhost style */
	if (vhost && strchr(url->bucket, '.') && store->config.use_ssl)
		vhost = false;
	if (rmt_uri_encode(url->key, strlen(url->key), true, key, sizeof(key)) != RMT_OK)
		return rmt_fail(err, RMT_TOO_LONG, 0, "the object key is too long");
	scheme_name = store->config.use_ssl ? "https" : "http";
	if (vhost)
	{
		snprintf(r->host, sizeof(r->host), "%s.%s", url->bucket,
				 default_endpoint(store, url->scheme, epbuf, sizeof(epbuf)));
		snprintf(r->path, sizeof(r->path), "/%s", key);
	}
	else
	{
		snprintf(r->host, sizeof(r->host), "%s",
				 default_endpoint(store, url->scheme, epbuf, sizeof(epbuf)));
		snprintf(r->path, sizeof(r->path), "/%s/%s", url->bucket, key);
	}
	snprintf(r->url, sizeof(r->url), "%s://%s%s", scheme_name, r->host, r->path);
	r->sign = store->config.key_id != NULL;
	return RMT_OK;
}

/*
 * The headers of one attempt, signed anew each time (x-amz-date moves):
 * Host, x-amz-date, x-amz-content-sha256, Range, If-Match, the session
 * token, Authorization.
 */
static RmtStatus
s3_sign(RmtStore *store, const RmtRequest *r, const char *method,
			  const char *range, const char *if_match,
			  struct curl_slist **out, RmtError *err)
{
	struct curl_slist *h = NULL;
	RmtNameValue signed_headers[6];
	int			n = 0;
	char		amz_date[17];
	char		line[RMT_MAX_HOST + 2300];
	char		auth[1024];
	time_t		now = time(NULL);
	struct tm	tm;
	const char *payload_sha256 = r->payload_sha256[0] ? r->payload_sha256 : RMT_SHA256_EMPTY;

	*out = NULL;
	gmtime_r(&now, &tm);
	strftime(amz_date, sizeof(amz_date), "%Y%m%dT%H%M%SZ", &tm);

	signed_headers[n++] = (RmtNameValue) {"host", r->host};
	if (range)
		signed_headers[n++] = (RmtNameValue) {"range", range};
	if (if_match)
		signed_headers[n++] = (RmtNameValue) {"if-match", if_match};
	if (r->sign)
	{
		signed_headers[n++] = (RmtNameValue) {"x-amz-content-sha256", payload_sha256};
		signed_headers[n++] = (RmtNameValue) {"x-amz-date", amz_date};
		if (store->config.session_token)
			signed_headers[n++] = (RmtNameValue) {"x-amz-security-token",
			store->config.session_token};
	}
	for (int i = 0; i < n; i++)
	{
		struct curl_slist *next;

		snprintf(line, sizeof(line), "%s: %s", signed_headers[i].name,
				 signed_headers[i].value);
		next = curl_slist_append(h, line);
		if (!next)
			goto oom;
		h = next;
	}
	if (strcmp(method, "PUT") == 0 || strcmp(method, "POST") == 0)
	{
		/* one round trip, not two: no "Expect: 100-continue" */
		struct curl_slist *next = curl_slist_append(h, "Expect:");

		if (!next)
			goto oom;
		h = next;
	}
	if (r->sign)
	{
		RmtSigV4Request req = {
			.method = method, .encoded_path = r->path,
			.query = r->query, .nquery = r->nquery,
			.headers = signed_headers, .nheaders = n,
			.payload_sha256 = payload_sha256, .amz_date = amz_date,
			.region = store->config.region ? store->config.region : "us-east-1",
			.service = "s3",
			.key_id = store->config.key_id,
			.secret = store->config.secret ? store->config.secret : "",
		};
		struct curl_slist *next;
		RmtStatus	st = rmt_sigv4_authorization(&req, auth, sizeof(auth));

		if (st != RMT_OK)
		{
			curl_slist_free_all(h);
			return rmt_fail(err, st, 0, "could not sign the request");
		}
		snprintf(line, sizeof(line), "Authorization: %s", auth);
		next = curl_slist_append(h, line);
		memset(line, 0, sizeof(line));
		if (!next)
			goto oom;
		h = next;
	}
	*out = h;
	return RMT_OK;
oom:
	curl_slist_free_all(h);
	return rmt_fail(err, RMT_NO_MEMORY, 0, "out of memory");
}

RmtStatus
rmt_s3_head(RmtStore *store, const RmtUrl *url, RmtObjectInfo *info,
			   RmtError *err)
{
	RmtRequest	r;
	RmtResponse resp;
	RmtStatus	st;

	memset(err, 0, sizeof(*err));
	memset(info, 0, sizeof(*info));
	if ((st = address(store, url, &r, err)) != RMT_OK)
		return st;
	st = rmt_exchange(store, &r, s3_sign, "HEAD", NULL, NULL, NULL, &resp, "HEAD", err);
	if (st != RMT_OK)
		return st;
	if (!resp.has_length)
		return rmt_fail(err, RMT_BAD_RESPONSE, (int) resp.status,
						"the response carries no Content-Length");
	info->size = resp.content_length;
	snprintf(info->etag, sizeof(info->etag), "%s", resp.etag);
	return RMT_OK;
}

/* A GET of the object: addressed, signed with SigV4 when there are keys. */
RmtStatus
rmt_s3_address(const RmtStore *store, const RmtUrl *url, RmtRequest *r,
			   RmtError *err)
{
	return address(store, url, r, err);
}

static RmtStatus
s3_prepare(RmtStore *store, const RmtUrl *url, RmtRequest *r, RmtError *err)
{
	return address(store, url, r, err);
}

const RmtProtocol rmt_s3_protocol = {s3_prepare, s3_sign};

RmtStatus
rmt_s3_list(RmtStore *store, const RmtUrl *where, bool delimited,
			RmtListEmit emit, RmtListPrefixEmit emit_prefix, void *arg,
			RmtError *err)
{
	RmtUrl		url = *where;
	const char *prefix = where->key;
	RmtRequest	r;
	RmtResponse resp;
	RmtBody		body;
	char	   *token = NULL;
	char		page_size[16];
	RmtStatus	st = RMT_OK;
	bool		more = true;

	memset(err, 0, sizeof(*err));
	url.key[0] = '\0';		/* the bucket itself; the prefix is a parameter */
	memset(&body, 0, sizeof(body));
	body.alloc = &store->alloc;
	body.limit = LIST_PAGE_LIMIT;
	token = store->alloc.alloc(store->alloc.ctx, 1024);
	if (!token)
		return rmt_fail(err, RMT_NO_MEMORY, 0, "out of memory");
	token[0] = '\0';
	snprintf(page_size, sizeof(page_size), "%d", store->config.list_page_size);

	while (more && st == RMT_OK)
	{
		const char *p;
		const char *end;
		size_t		len;

		if ((st = address(store, &url, &r, err)) != RMT_OK)
			break;
		r.query[r.nquery++] = (RmtNameValue) {"list-type", "2"};
		r.query[r.nquery++] = (RmtNameValue) {"prefix", prefix};
		if (delimited)
			r.query[r.nquery++] = (RmtNameValue) {"delimiter", "/"};
		if (token[0])
			r.query[r.nquery++] = (RmtNameValue) {"continuation-token", token};
		if (store->config.list_page_size > 0)
			r.query[r.nquery++] = (RmtNameValue) {"max-keys", page_size};
		if ((st = rmt_append_query(&r, err)) != RMT_OK)
			break;
		st = rmt_exchange(store, &r, s3_sign, "GET", NULL, NULL, &body, &resp, "ListObjectsV2", err);
		if (st != RMT_OK)
			break;
		if (!body.buf)
		{
			st = rmt_fail(err, RMT_BAD_RESPONSE, (int) resp.status, "the listing is empty");
			break;
		}
		end = body.buf + body.len;
		{
			static const RmtListTags tags = {"Contents", "Key", "Size", "ETag"};

			st = rmt_xml_emit_entries(body.buf, end, &tags, emit, arg, &more,
									  (int) resp.status, err);
		}
		if (st == RMT_OK && more && delimited)
			st = rmt_xml_emit_prefixes(body.buf, end, "CommonPrefixes", "Prefix",
									   emit_prefix, arg, &more,
									   (int) resp.status, err);
		if (st != RMT_OK || !more)
			break;
		more = false;
		if ((p = rmt_xml_find(body.buf, end, "IsTruncated", &len)) && len == 4 &&
			memcmp(p, "true", 4) == 0)
		{
			p = rmt_xml_find(body.buf, end, "NextContinuationToken", &len);
			if (!p || !rmt_xml_text(p, len, token, 1024) || !token[0])
				st = rmt_fail(err, RMT_BAD_RESPONSE, (int) resp.status,
							  "a truncated listing has no continuation token");
			else
				more = true;
		}
	}
	if (body.buf)
		store->alloc.release(store->alloc.ctx, body.buf);
	store->alloc.release(store->alloc.ctx, token);
	return st;
}
