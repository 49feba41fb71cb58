/*-------------------------------------------------------------------------
 *
 * xml.c
 *	  The little XML the stores answer with: listings and error documents.
 *
 * Not a parser: S3's ListObjectsV2, Azure's List Blobs and both stores'
 * error documents are flat, so finding an element's text by its tag and
 * decoding entities is all that is needed.  Every access stays inside
 * [p, end).
 *
 * IDENTIFICATION
 *	  src/remote/xml.c
 *
 *-------------------------------------------------------------------------
 */
#include "remote/remote_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first occurrence of needle in [p, end), or NULL (memmem is GNU). */
static const char *
find_bytes(const char *p, const char *end, const char *needle, size_t n)
{
	for (; p + n <= end; p++)
	{
		p = memchr(p, needle[0], (size_t) (end - p));
		if (!p || p + n > end)
			return NULL;
		if (memcmp(p, needle, n) == 0)
			return p;
	}
	return NULL;
}

/* Text between <tag> and </tag> in [p, end), or NULL. */
const char *
rmt_xml_find(const char *p, const char *end, const char *tag, size_t *len)
{
	char		open[64];
	char		close[64];
	const char *a;
	const char *b;
	size_t		olen;

	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	olen = strlen(open);
	a = find_bytes(p, end, open, olen);
	if (!a)
		return NULL;
	a += olen;
	b = find_bytes(a, end, close, strlen(close));
	if (!b)
		return NULL;
	*len = (size_t) (b - a);
	return a;
}

/* Copy XML text, decoding the five entities and numeric references. */
bool
rmt_xml_text(const char *s, size_t len, char *out, size_t cap)
{
	size_t		n = 0;

	for (size_t i = 0; i < len; i++)
	{
		char		c = s[i];

		if (c == '&')
		{
			const char *semi = memchr(s + i, ';', len - i);
			size_t		elen;

			if (!semi)
				return false;
			elen = (size_t) (semi - (s + i)) + 1;
			if (elen == 5 && memcmp(s + i, "&amp;", 5) == 0)
				c = '&';
			else if (elen == 4 && memcmp(s + i, "&lt;", 4) == 0)
				c = '<';
			else if (elen == 4 && memcmp(s + i, "&gt;", 4) == 0)
				c = '>';
			else if (elen == 6 && memcmp(s + i, "&quot;", 6) == 0)
				c = '"';
			else if (elen == 6 && memcmp(s + i, "&apos;", 6) == 0)
				c = '\'';
			else if (elen > 3 && s[i + 1] == '#')
			{
				long		cp = s[i + 2] == 'x' ? strtol(s + i + 3, NULL, 16)
					: strtol(s + i + 2, NULL, 10);

				if (cp <= 0 || cp > 0x10FFFF || n + 4 >= cap)
					return false;
				/* UTF-8 of the code point */
				if (cp < 0x80)
					out[n++] = (char) cp;
				else if (cp < 0x800)
				{
					out[n++] = (char) (0xC0 | (cp >> 6));
					out[n++] = (char) (0x80 | (cp & 0x3F));
				}
				else if (cp < 0x10000)
				{
					out[n++] = (char) (0xE0 | (cp >> 12));
					out[n++] = (char) (0x80 | ((cp >> 6) & 0x3F));
					out[n++] = (char) (0x80 | (cp & 0x3F));
				}
				else
				{
					out[n++] = (char) (0xF0 | (cp >> 18));
					out[n++] = (char) (0x80 | ((cp >> 12) & 0x3F));
					out[n++] = (char) (0x80 | ((cp >> 6) & 0x3F));
					out[n++] = (char) (0x80 | (cp & 0x3F));
				}
				i += elen - 1;
				continue;
			}
			else
				return false;
			i += elen - 1;
		}
		if (n + 1 >= cap)
			return false;
		out[n++] = c;
	}
	out[n] = '\0';
	return true;
}

/*
 * An error response: its status and the store's error code, from the XML
 * document's <Code> or (HEAD has no body) the x-ms-error-code header.
 */
RmtStatus
rmt_http_failure(const RmtResponse *resp, const char *what, RmtError *err)
{
	RmtStatus	status;
	size_t		len;
	const char *code = NULL;

	if (resp->status == 404)
		status = RMT_NOT_FOUND;
	else if (resp->status == 401 || resp->status == 403)
		status = RMT_ACCESS_DENIED;
	else if (resp->status == 412)
		status = RMT_CHANGED;
	else
		status = RMT_HTTP_ERROR;
	rmt_fail(err, status, (int) resp->status, "%s failed with HTTP status %ld",
			 what, resp->status);
	code = rmt_xml_find(resp->error_body, resp->error_body + resp->error_len,
					"Code", &len);
	if (code && !rmt_xml_text(code, len, err->code, sizeof(err->code)))
		err->code[0] = '\0';
	if (!err->code[0] && resp->error_code[0])
		snprintf(err->code, sizeof(err->code), "%s", resp->error_code);
	return status;
}


RmtStatus
rmt_xml_emit_entries(const char *p, const char *end, const RmtListTags *tags,
					 RmtListEmit emit, void *arg, bool *more, int http_status,
					 RmtError *err)
{
	for (;;)
	{
		size_t		elen;
		const char *entry = rmt_xml_find(p, end, tags->entry, &elen);
		const char *k;
		const char *v;
		char		key[RMT_MAX_KEY];
		char		etag[128] = "";
		char		size_text[32];
		size_t		klen;
		size_t		vlen;

		if (!entry)
			return RMT_OK;
		k = rmt_xml_find(entry, entry + elen, tags->key, &klen);
		v = rmt_xml_find(entry, entry + elen, tags->size, &vlen);
		if (!k || !v || !rmt_xml_text(k, klen, key, sizeof(key)) ||
			!rmt_xml_text(v, vlen, size_text, sizeof(size_text)))
			return rmt_fail(err, RMT_BAD_RESPONSE, http_status,
							"a listing entry lacks a %s or a %s",
							tags->key, tags->size);
		v = rmt_xml_find(entry, entry + elen, tags->etag, &vlen);
		if (v && !rmt_xml_text(v, vlen, etag, sizeof(etag)))
			etag[0] = '\0';
		if (!emit(key, strtoull(size_text, NULL, 10), etag, arg))
		{
			*more = false;
			return RMT_OK;
		}
		p = entry + elen;
	}
}

RmtStatus
rmt_xml_emit_prefixes(const char *p, const char *end, const char *entry_tag,
					  const char *name_tag, RmtListPrefixEmit emit, void *arg,
					  bool *more, int http_status, RmtError *err)
{
	for (;;)
	{
		size_t		elen;
		size_t		nlen;
		const char *entry = rmt_xml_find(p, end, entry_tag, &elen);
		const char *name;
		char		prefix[RMT_MAX_KEY];

		if (!entry)
			return RMT_OK;
		name = rmt_xml_find(entry, entry + elen, name_tag, &nlen);
		if (!name || !rmt_xml_text(name, nlen, prefix, sizeof(prefix)))
			return rmt_fail(err, RMT_BAD_RESPONSE, http_status,
							"a listing's %s lacks a %s", entry_tag, name_tag);
		if (!emit(prefix, arg))
		{
			*more = false;
			return RMT_OK;
		}
		p = entry + elen;
	}
}
