/*-------------------------------------------------------------------------
 *
 * url.c
 *	  Parsing the object-store and HTTP URLs the extension accepts, and the
 *	  percent-encoding their requests need.
 *
 * IDENTIFICATION
 *	  src/remote/url.c
 *
 *-------------------------------------------------------------------------
 */
#include "remote/remote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
is_scheme_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return true;
	return !first && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.');
}

bool
rmt_has_scheme(const char *text, size_t *scheme_len)
{
	size_t		i = 0;

	while (text[i] && is_scheme_char(text[i], i == 0))
		i++;
	if (i == 0 || strncmp(text + i, "://", 3) != 0)
		return false;
	if (scheme_len)
		*scheme_len = i;
	return true;
}

const char *
rmt_scheme_name(RmtScheme scheme)
{
	switch (scheme)
	{
		case RMT_SCHEME_S3:
			return "s3";
		case RMT_SCHEME_GCS:
			return "gs";
		case RMT_SCHEME_AZURE:
			return "az";
		case RMT_SCHEME_HTTP:
			return "http";
		case RMT_SCHEME_HTTPS:
			return "https";
	}
	return "?";
}

static RmtStatus
fail(RmtStatus status, char *errmsg, size_t errlen, const char *msg)
{
	if (errlen > 0)
		snprintf(errmsg, errlen, "%s", msg);
	return status;
}

/* Copy len bytes into a fixed field; false when it does not fit. */
static bool
copy_field(char *dst, size_t cap, const char *src, size_t len)
{
	if (len >= cap)
		return false;
	memcpy(dst, src, len);
	dst[len] = '\0';
	return true;
}

/* s3://bucket/key, gs://bucket/key, az://container/path */
static RmtStatus
parse_bucket_url(const char *rest, RmtUrl *url, char *errmsg, size_t errlen)
{
	const char *slash = strchr(rest, '/');
	size_t		blen = slash ? (size_t) (slash - rest) : strlen(rest);

	if (blen == 0)
		return fail(RMT_INVALID_URL, errmsg, errlen, "the bucket name is empty");
	if (memchr(rest, '@', blen) || memchr(rest, ':', blen))
		return fail(RMT_INVALID_URL, errmsg, errlen,
					"the bucket name contains \"@\" or \":\" (credentials do not belong in URLs)");
	if (strpbrk(rest, "?#"))
		return fail(RMT_INVALID_URL, errmsg, errlen,
					"object URLs take no query string or fragment");
	if (!copy_field(url->bucket, sizeof(url->bucket), rest, blen))
		return fail(RMT_TOO_LONG, errmsg, errlen, "the bucket name is too long");
	if (!copy_field(url->key, sizeof(url->key), slash ? slash + 1 : "",
					slash ? strlen(slash + 1) : 0))
		return fail(RMT_TOO_LONG, errmsg, errlen, "the object key is too long");
	return RMT_OK;
}

/* abfss://container@account.dfs.core.windows.net/path */
static RmtStatus
parse_abfss_url(const char *rest, RmtUrl *url, char *errmsg, size_t errlen)
{
	const char *at = strchr(rest, '@');
	const char *slash = strchr(rest, '/');
	const char *dot;

	if (!at || (slash && at > slash))
		return fail(RMT_INVALID_URL, errmsg, errlen,
					"abfss URLs name container@account.dfs.core.windows.net");
	dot = strchr(at + 1, '.');
	if (!dot || (slash && dot > slash) || dot == at + 1 || at == rest)
		return fail(RMT_INVALID_URL, errmsg, errlen,
					"abfss URLs name container@account.dfs.core.windows.net");
	if (!copy_field(url->bucket, sizeof(url->bucket), rest, (size_t) (at - rest)) ||
		!copy_field(url->account, sizeof(url->account), at + 1,
					(size_t) (dot - at - 1)))
		return fail(RMT_TOO_LONG, errmsg, errlen, "the container or account name is too long");
	if (strpbrk(rest, "?#"))
		return fail(RMT_INVALID_URL, errmsg, errlen,
					"object URLs take no query string or fragment");
	if (!copy_field(url->key, sizeof(url->key), slash ? slash + 1 : "",
					slash ? strlen(slash + 1) : 0))
		return fail(RMT_TOO_LONG, errmsg, errlen, "the path is too long");
	return RMT_OK;
}

/* http(s)://host[:port]/path[?query]: the path keeps its query string. */
static RmtStatus
parse_http_url(const char *rest, RmtUrl *url, char *errmsg, size_t errlen)
{
	size_t		hlen = strcspn(rest, "/?#");
	const char *colon;
	const char *path = rest + hlen;

	if (hlen == 0)
		return fail(RMT_INVALID_URL, errmsg, errlen, "the host name is empty");
	if (memchr(rest, '@', hlen))
		return fail(RMT_INVALID_URL, errmsg, errlen,
					"credentials in URLs are refused: put them in a user mapping");
	if (*path == '#')
		return fail(RMT_INVALID_URL, errmsg, errlen, "URLs take no fragment");
	colon = memchr(rest, ':', hlen);
	if (rest[0] == '[')			/* [IPv6]:port */
	{
		const char *close = memchr(rest, ']', hlen);

		if (!close)
			return fail(RMT_INVALID_URL, errmsg, errlen, "unterminated IPv6 address");
		colon = (close + 1 < rest + hlen && close[1] == ':') ? close + 1 : NULL;
	}
	if (colon)
	{
		char	   *end;
		long		port = strtol(colon + 1, &end, 10);

		if (end != rest + hlen || port <= 0 || port > 65535)
			return fail(RMT_INVALID_URL, errmsg, errlen, "the port is not a number from 1 to 65535");
		url->port = (int) port;
	}
	if (!copy_field(url->host, sizeof(url->host), rest,
					colon ? (size_t) (colon - rest) : hlen))
		return fail(RMT_TOO_LONG, errmsg, errlen, "the host name is too long");
	if (*path == '/')
		path++;
	if (strchr(path, '#'))
		return fail(RMT_INVALID_URL, errmsg, errlen, "URLs take no fragment");
	if (!copy_field(url->key, sizeof(url->key), path, strlen(path)))
		return fail(RMT_TOO_LONG, errmsg, errlen, "the path is too long");
	return RMT_OK;
}

RmtStatus
rmt_url_parse(const char *text, RmtUrl *url, char *errmsg, size_t errlen)
{
	size_t		slen;
	const char *rest;

	memset(url, 0, sizeof(*url));
	if (errlen > 0)
		errmsg[0] = '\0';
	if (!rmt_has_scheme(text, &slen))
		return fail(RMT_INVALID_URL, errmsg, errlen, "not a URL (scheme://...)");
	rest = text + slen + 3;
#define SCHEME_IS(name) (slen == strlen(name) && strncmp(text, name, slen) == 0)
	if (SCHEME_IS("s3") || SCHEME_IS("s3a"))
		url->scheme = RMT_SCHEME_S3;
	else if (SCHEME_IS("gs") || SCHEME_IS("gcs"))
		url->scheme = RMT_SCHEME_GCS;
	else if (SCHEME_IS("az") || SCHEME_IS("azure"))
		url->scheme = RMT_SCHEME_AZURE;
	else if (SCHEME_IS("abfss"))
	{
		url->scheme = RMT_SCHEME_AZURE;
		return parse_abfss_url(rest, url, errmsg, errlen);
	}
	else if (SCHEME_IS("http"))
		url->scheme = RMT_SCHEME_HTTP;
	else if (SCHEME_IS("https"))
		url->scheme = RMT_SCHEME_HTTPS;
	else
		return fail(RMT_UNSUPPORTED_SCHEME, errmsg, errlen,
					"supported schemes are s3, gs, az, abfss, http and https");
#undef SCHEME_IS
	if (url->scheme == RMT_SCHEME_HTTP || url->scheme == RMT_SCHEME_HTTPS)
		return parse_http_url(rest, url, errmsg, errlen);
	return parse_bucket_url(rest, url, errmsg, errlen);
}

RmtStatus
rmt_uri_encode(const char *text, size_t len, bool keep_slash, char *out,
			   size_t cap)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t		n = 0;

	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) text[i];
		bool		plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			(c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
			c == '~' || (c == '/' && keep_slash);

		if (n + (plain ? 1 : 3) >= cap)
			return RMT_TOO_LONG;
		if (plain)
			out[n++] = (char) c;
		else
		{
			out[n++] = '%';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		}
	}
	if (n >= cap)
		return RMT_TOO_LONG;
	out[n] = '\0';
	return RMT_OK;
}
