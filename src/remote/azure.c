/*-------------------------------------------------------------------------
 *
 * azure.c
 *	  Azure Blob Storage: addressing, Shared Key signatures, SAS tokens,
 *	  Get Blob Properties, ranged Get Blob and List Blobs.
 *
 * The Shared Key string to sign is the one the "Authorize with Shared
 * Key" page of the Azure Storage REST documentation defines for the Blob
 * service (version 2015-02-21 and later: an empty Content-Length for
 * requests without a body): the verb, eleven standard header values, the
 * x-ms- headers sorted, and the canonicalized resource
 * "/account/path" followed by the query parameters sorted by name.
 * test/remote/run.sh checks it against Azurite, which verifies it.
 *
 * IDENTIFICATION
 *	  src/remote/azure.c
 *
 *-------------------------------------------------------------------------
 */
#include "remote/remote_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#define AZURE_VERSION "2021-08-06"
#define LIST_PAGE_LIMIT (16 * 1024 * 1024)

static const char *
account_of(const RmtStore *store, const RmtUrl *url)
{
	if (url->account[0])
		return url->account;
	return store->config.account_name;
}

/*
 * Address container/blob: https://ACCOUNT.blob.core.windows.net/container/
 * blob, or under the configured endpoint (which may carry a path: the
 * emulator's is host:port/ACCOUNT).  blob_path false addresses the
 * container (for listings).
 */
RmtStatus
rmt_azure_address(const RmtStore *store, const RmtUrl *url, bool blob_path,
				  RmtRequest *r, RmtError *err)
{
	const char *account = account_of(store, url);
	const char *endpoint = store->config.endpoint;
	char		key[RMT_MAX_KEY * 3 + 1];
	const char *slash;
	size_t		hlen;

	memset(r, 0, sizeof(*r));
	if (!account || !account[0])
		return rmt_fail(err, RMT_INVALID_URL, 0,
						"no Azure storage account: name it in the URL (abfss://container@ACCOUNT.dfs.core.windows.net/...) or in the account_name option");
	if (strlen(account) >= sizeof(r->account))
		return rmt_fail(err, RMT_TOO_LONG, 0, "the account name is too long");
	strcpy(r->account, account);
	if (rmt_uri_encode(url->key, strlen(url->key), true, key, sizeof(key)) != RMT_OK)
		return rmt_fail(err, RMT_TOO_LONG, 0, "the blob path is too long");

	if (endpoint)
	{
		slash = strchr(endpoint, '/');
		hlen = slash ? (size_t) (slash - endpoint) : strlen(endpoint);
		snprintf(r->host, sizeof(r->host), "%.*s", (int) hlen, endpoint);
		snprintf(r->path, sizeof(r->path), "%s/%s%s%s", slash ? slash : "",
				 url->bucket, blob_path ? "/" : "", blob_path ? key : "");
	}
	else
	{
		snprintf(r->host, sizeof(r->host), "%s.blob.core.windows.net", account);
		snprintf(r->path, sizeof(r->path), "/%s%s%s", url->bucket,
				 blob_path ? "/" : "", blob_path ? key : "");
	}
	snprintf(r->resource, sizeof(r->resource), "/%s%s", account, r->path);
	snprintf(r->url, sizeof(r->url), "%s://%s%s",
			 store->config.use_ssl ? "https" : "http", r->host, r->path);
	r->sign = store->config.account_key != NULL && store->config.sas_token == NULL;
	return RMT_OK;
}

/* A SAS token goes after our own parameters, as its author encoded it. */
RmtStatus
rmt_azure_finish_url(const RmtStore *store, RmtRequest *r, RmtError *err)
{
	RmtStatus	st = rmt_append_query(r, err);
	size_t		len = strlen(r->url);
	const char *sas = store->config.sas_token;

	if (st != RMT_OK || !sas)
		return st;
	if (sas[0] == '?')
		sas++;
	if (len + strlen(sas) + 2 > sizeof(r->url))
		return rmt_fail(err, RMT_TOO_LONG, 0, "the request URL is too long");
	snprintf(r->url + len, sizeof(r->url) - len, "%c%s",
			 r->nquery > 0 ? '&' : '?', sas);
	return RMT_OK;
}

static int
compare_query(const void *a, const void *b)
{
	return strcmp(((const RmtNameValue *) a)->name, ((const RmtNameValue *) b)->name);
}

/* Shared Key: the string to sign, HMAC-SHA256 with the decoded key. */
static RmtStatus
shared_key(const RmtStore *store, const RmtRequest *r, const char *method,
		   const char *range, const char *if_match, const char *date,
		   char *out, size_t cap, RmtError *err)
{
	char		sts[RMT_MAX_KEY * 4 + 1024];
	RmtNameValue query[6];
	unsigned char key[128];
	unsigned char mac[32];
	unsigned int maclen = 0;
	const char *b64 = store->config.account_key;
	size_t		b64len = strlen(b64);
	int			keylen;
	int			n;
	char		length[32];
	char		blob_type[64];

	/* base64 key: decoded length minus the padding EVP_DecodeBlock zero-fills */
	if (b64len == 0 || b64len % 4 != 0 || b64len / 4 * 3 > sizeof(key))
		return rmt_fail(err, RMT_ACCESS_DENIED, 0, "the account key is not base64");
	keylen = EVP_DecodeBlock(key, (const unsigned char *) b64, (int) b64len);
	if (keylen < 0)
		return rmt_fail(err, RMT_ACCESS_DENIED, 0, "the account key is not base64");
	keylen -= (b64[b64len - 1] == '=') + (b64[b64len - 2] == '=');

	/* Content-Length is empty when 0 (versions since 2015-02-21) */
	if (r->payload_len > 0)
		snprintf(length, sizeof(length), "%zu", r->payload_len);
	else
		length[0] = '\0';
	if (r->blob_type)
		snprintf(blob_type, sizeof(blob_type), "x-ms-blob-type:%s\n", r->blob_type);
	else
		blob_type[0] = '\0';
	n = snprintf(sts, sizeof(sts),
				 "%s\n\n\n%s\n\n\n\n\n%s\n\n\n%s\n%sx-ms-date:%s\nx-ms-version:%s\n%s",
				 method, length, if_match ? if_match : "", range ? range : "",
				 blob_type, date, AZURE_VERSION, r->resource);
	memcpy(query, r->query, sizeof(RmtNameValue) * r->nquery);
	qsort(query, r->nquery, sizeof(RmtNameValue), compare_query);
	for (int i = 0; i < r->nquery && n > 0 && (size_t) n < sizeof(sts); i++)
		n += snprintf(sts + n, sizeof(sts) - n, "\n%s:%s", query[i].name, query[i].value);
	if (n < 0 || (size_t) n >= sizeof(sts))
		return rmt_fail(err, RMT_TOO_LONG, 0, "the request is too long to sign");

	if (!HMAC(EVP_sha256(), key, keylen, (const unsigned char *) sts, (size_t) n,
			  mac, &maclen) || maclen != 32 || cap < 45 + strlen(r->account) + 12)
	{
		OPENSSL_cleanse(key, sizeof(key));
		return rmt_fail(err, RMT_CRYPTO_ERROR, 0, "could not sign the request");
	}
	OPENSSL_cleanse(key, sizeof(key));
	n = snprintf(out, cap, "Authorization: SharedKey %s:", r->account);
	EVP_EncodeBlock((unsigned char *) out + n, mac, 32);
	return RMT_OK;
}

static RmtStatus
azure_sign(RmtStore *store, const RmtRequest *r, const char *method,
		   const char *range, const char *if_match, struct curl_slist **out,
		   RmtError *err)
{
	struct curl_slist *h = NULL;
	char		date[64];
	char		line[RMT_MAX_HOST + 300];
	time_t		now = time(NULL);
	struct tm	tm;
	const char *lines[7];
	int			n = 0;
	char		l_date[100];
	char		l_range[100];
	char		l_match[200];
	char		l_type[64];
	RmtStatus	st = RMT_OK;

	*out = NULL;
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	snprintf(l_date, sizeof(l_date), "x-ms-date: %s", date);
	lines[n++] = l_date;
	lines[n++] = "x-ms-version: " AZURE_VERSION;
	if (range)
	{
		snprintf(l_range, sizeof(l_range), "Range: %s", range);
		lines[n++] = l_range;
	}
	if (if_match)
	{
		snprintf(l_match, sizeof(l_match), "If-Match: %s", if_match);
		lines[n++] = l_match;
	}
	if (r->blob_type)
	{
		snprintf(l_type, sizeof(l_type), "x-ms-blob-type: %s", r->blob_type);
		lines[n++] = l_type;
	}
	if (strcmp(method, "PUT") == 0)
		lines[n++] = "Expect:";	/* one round trip, not two */
	for (int i = 0; i < n; i++)
	{
		struct curl_slist *next = curl_slist_append(h, lines[i]);

		if (!next)
			goto oom;
		h = next;
	}
	if (r->sign)
	{
		struct curl_slist *next;

		st = shared_key(store, r, method, range, if_match, date, line,
						sizeof(line), err);
		if (st != RMT_OK)
		{
			curl_slist_free_all(h);
			return st;
		}
		next = curl_slist_append(h, line);
		OPENSSL_cleanse(line, sizeof(line));
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
rmt_azure_head(RmtStore *store, const RmtUrl *url, RmtObjectInfo *info,
			   RmtError *err)
{
	RmtRequest	r;
	RmtResponse resp;
	RmtStatus	st;

	memset(err, 0, sizeof(*err));
	memset(info, 0, sizeof(*info));
	if ((st = rmt_azure_address(store, url, true, &r, err)) != RMT_OK ||
		(st = rmt_azure_finish_url(store, &r, err)) != RMT_OK)
		return st;
	st = rmt_exchange(store, &r, azure_sign, "HEAD", NULL, NULL, NULL, &resp,
					  "Get Blob Properties", err);
	if (st != RMT_OK)
		return st;
	if (!resp.has_length)
		return rmt_fail(err, RMT_BAD_RESPONSE, (int) resp.status,
						"the response carries no Content-Length");
	info->size = resp.content_length;
	snprintf(info->etag, sizeof(info->etag), "%s", resp.etag);
	return RMT_OK;
}

/* A GET of the blob: addressed, with a SAS token or signed with Shared Key. */
static RmtStatus
azure_prepare(RmtStore *store, const RmtUrl *url, RmtRequest *r, RmtError *err)
{
	RmtStatus	st = rmt_azure_address(store, url, true, r, err);

	return st != RMT_OK ? st : rmt_azure_finish_url(store, r, err);
}

const RmtProtocol rmt_azure_protocol = {azure_prepare, azure_sign};

RmtStatus
rmt_azure_list(RmtStore *store, const RmtUrl *where, bool delimited,
			   RmtListEmit emit, RmtListPrefixEmit emit_prefix, void *arg,
			   RmtError *err)
{
	RmtRequest	r;
	RmtResponse resp;
	RmtBody		body;
	char	   *marker;
	char		page_size[16];
	RmtStatus	st = RMT_OK;
	bool		more = true;

	memset(&body, 0, sizeof(body));
	body.alloc = &store->alloc;
	body.limit = LIST_PAGE_LIMIT;
	marker = store->alloc.alloc(store->alloc.ctx, 1024);
	if (!marker)
		return rmt_fail(err, RMT_NO_MEMORY, 0, "out of memory");
	marker[0] = '\0';
	snprintf(page_size, sizeof(page_size), "%d", store->config.list_page_size);

	while (more && st == RMT_OK)
	{
		const char *p;
		const char *end;
		size_t		len;

		if ((st = rmt_azure_address(store, where, false, &r, err)) != RMT_OK)
			break;
		r.query[r.nquery++] = (RmtNameValue) {"comp", "list"};
		if (delimited)
			r.query[r.nquery++] = (RmtNameValue) {"delimiter", "/"};
		r.query[r.nquery++] = (RmtNameValue) {"prefix", where->key};
		r.query[r.nquery++] = (RmtNameValue) {"restype", "container"};
		if (marker[0])
			r.query[r.nquery++] = (RmtNameValue) {"marker", marker};
		if (store->config.list_page_size > 0)
			r.query[r.nquery++] = (RmtNameValue) {"maxresults", page_size};
		if ((st = rmt_azure_finish_url(store, &r, err)) != RMT_OK)
			break;
		st = rmt_exchange(store, &r, azure_sign, "GET", NULL, NULL, &body, &resp,
						  "List Blobs", err);
		if (st != RMT_OK)
			break;
		if (!body.buf)
		{
			st = rmt_fail(err, RMT_BAD_RESPONSE, (int) resp.status, "the listing is empty");
			break;
		}
		end = body.buf + body.len;
		{
			static const RmtListTags tags = {"Blob", "Name", "Content-Length", "Etag"};

			st = rmt_xml_emit_entries(body.buf, end, &tags, emit, arg, &more,
									  (int) resp.status, err);
		}
		if (st == RMT_OK && more && delimited)
			st = rmt_xml_emit_prefixes(body.buf, end, "BlobPrefix", "Name",
									   emit_prefix, arg, &more,
									   (int) resp.status, err);
		if (st != RMT_OK || !more)
			break;
		p = rmt_xml_find(body.buf, end, "NextMarker", &len);
		more = p && len > 0;
		if (more && !rmt_xml_text(p, len, marker, 1024))
			st = rmt_fail(err, RMT_BAD_RESPONSE, (int) resp.status,
						  "the listing's continuation marker is too long");
	}
	if (body.buf)
		store->alloc.release(store->alloc.ctx, body.buf);
	store->alloc.release(store->alloc.ctx, marker);
	return st;
}
