/*-------------------------------------------------------------------------
 *
 * sigv4.c
 *	  AWS Signature Version 4: canonical request, string to sign, signing
 *	  key and the Authorization header value.
 *
 * The steps follow the "Create a signed AWS API request" page of the AWS
 * documentation; test/unit/test_sigv4.c checks them against its published
 * examples (S3's GET Object with a Range, ListObjects, and the signature
 * test suite's vanilla requests).  SHA-256 and HMAC come from OpenSSL's
 * libcrypto.
 *
 * IDENTIFICATION
 *	  src/remote/sigv4.c
 *
 *-------------------------------------------------------------------------
 */
#include "remote/sigv4.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#define MAX_PARAMS 16
#define MAX_NAME 128
#define MAX_VALUE 2048
#define CANONICAL_CAP 8192

/* A bounded string builder: sets overflow instead of writing past cap. */
typedef struct Builder
{
	char	   *buf;
	size_t		cap;
	size_t		len;
	bool		overflow;
} Builder;

static void
put(Builder *b, const char *s, size_t n)
{
	if (b->overflow || b->len + n >= b->cap)
	{
		b->overflow = true;
		return;
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

static void
puts_(Builder *b, const char *s)
{
	put(b, s, strlen(s));
}

static void
hex_encode(const unsigned char *bytes, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++)
	{
		out[2 * i] = hex[bytes[i] >> 4];
		out[2 * i + 1] = hex[bytes[i] & 15];
	}
	out[2 * n] = '\0';
}

RmtStatus
rmt_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int dlen = 0;

	if (EVP_Digest(data, len, digest, &dlen, EVP_sha256(), NULL) != 1 || dlen != 32)
		return RMT_CRYPTO_ERROR;
	hex_encode(digest, 32, out);
	return RMT_OK;
}

static bool
hmac_sha256(const void *key, size_t keylen, const void *data, size_t len,
			unsigned char out[32])
{
	unsigned int olen = 0;

	return HMAC(EVP_sha256(), key, (int) keylen, data, len, out, &olen) != NULL &&
		olen == 32;
}

/* An encoded query parameter or a normalized header, for sorting. */
typedef struct Pair
{
	char		name[MAX_NAME];
	char		value[MAX_VALUE];
} Pair;

static int
compare_pairs(const void *a, const void *b)
{
	const Pair *pa = a;
	const Pair *pb = b;
	int			c = strcmp(pa->name, pb->name);

	return c != 0 ? c : strcmp(pa->value, pb->value);
}

/* Header values: trimmed, inner runs of spaces collapsed to one. */
static bool
normalize_value(const char *v, char *out, size_t cap)
{
	size_t		n = 0;
	bool		space = false;

	while (*v == ' ' || *v == '\t')
		v++;
	for (; *v; v++)
	{
		if (*v == ' ' || *v == '\t')
		{
			space = true;
			continue;
		}
		if (space && n > 0)
		{
			if (n + 1 >= cap)
				return false;
			out[n++] = ' ';
		}
		space = false;
		if (n + 1 >= cap)
			return false;
		out[n++] = *v;
	}
	out[n] = '\0';
	return true;
}

/*
 * Sorted, lower-cased headers and sorted, encoded query parameters: the
 * two lists both the canonical request and the Authorization header use.
 */
typedef struct Canonical
{
	Pair		headers[MAX_PARAMS];
	int			nheaders;
	Pair		query[MAX_PARAMS];
	int			nquery;
} Canonical;

static RmtStatus
canonicalize(const RmtSigV4Request *req, Canonical *c)
{
	if (req->nheaders > MAX_PARAMS || req->nquery > MAX_PARAMS)
		return RMT_TOO_LONG;
	c->nheaders = req->nheaders;
	for (int i = 0; i < req->nheaders; i++)
	{
		const char *name = req->headers[i].name;
		size_t		n = strlen(name);

		if (n >= MAX_NAME)
			return RMT_TOO_LONG;
		for (size_t k = 0; k <= n; k++)
			c->headers[i].name[k] = (name[k] >= 'A' && name[k] <= 'Z') ?
				(char) (name[k] - 'A' + 'a') : name[k];
		if (!normalize_value(req->headers[i].value, c->headers[i].value, MAX_VALUE))
			return RMT_TOO_LONG;
	}
	qsort(c->headers, c->nheaders, sizeof(Pair), compare_pairs);

	c->nquery = req->nquery;
	for (int i = 0; i < req->nquery; i++)
	{
		const char *name = req->query[i].name;
		const char *value = req->query[i].value ? req->query[i].value : "";

		if (rmt_uri_encode(name, strlen(name), false, c->query[i].name, MAX_NAME) != RMT_OK ||
			rmt_uri_encode(value, strlen(value), false, c->query[i].value, MAX_VALUE) != RMT_OK)
			return RMT_TOO_LONG;
	}
	qsort(c->query, c->nquery, sizeof(Pair), compare_pairs);
	return RMT_OK;
}

static void
put_signed_headers(Builder *b, const Canonical *c)
{
	for (int i = 0; i < c->nheaders; i++)
	{
		if (i > 0)
			puts_(b, ";");
		puts_(b, c->headers[i].name);
	}
}

static RmtStatus
build_canonical_request(const RmtSigV4Request *req, const Canonical *c,
						Builder *b)
{
	puts_(b, req->method);
	puts_(b, "\n");
	puts_(b, req->encoded_path);
	puts_(b, "\n");
	for (int i = 0; i < c->nquery; i++)
	{
		if (i > 0)
			puts_(b, "&");
		puts_(b, c->query[i].name);
		puts_(b, "=");
		puts_(b, c->query[i].value);
	}
	puts_(b, "\n");
	for (int i = 0; i < c->nheaders; i++)
	{
		puts_(b, c->headers[i].name);
		puts_(b, ":");
		puts_(b, c->headers[i].value);
		puts_(b, "\n");
	}
	puts_(b, "\n");
	put_signed_headers(b, c);
	puts_(b, "\n");
	puts_(b, req->payload_sha256);
	return b->overflow ? RMT_TOO_LONG : RMT_OK;
}

RmtStatus
rmt_sigv4_canonical_request(const RmtSigV4Request *req, char *out, size_t cap)
{
	Canonical  *c = malloc(sizeof(Canonical));
	Builder		b = {out, cap, 0, false};
	RmtStatus	status;

	if (!c)
		return RMT_CRYPTO_ERROR;
	if (cap > 0)
		out[0] = '\0';
	status = canonicalize(req, c);
	if (status == RMT_OK)
		status = build_canonical_request(req, c, &b);
	free(c);
	return status;
}

RmtStatus
rmt_sigv4_authorization(const RmtSigV4Request *req, char *out, size_t cap)
{
	Canonical  *c;
	char	   *creq;
	Builder		cb;
	Builder		sts;
	Builder		auth = {out, cap, 0, false};
	char		sts_buf[512];
	char		date[9];
	char		creq_hash[65];
	char		key0[256];
	unsigned char k[32];
	char		signature[65];
	RmtStatus	status;

	if (cap > 0)
		out[0] = '\0';
	if (strlen(req->amz_date) != 16 || strlen(req->secret) + 5 > sizeof(key0))
		return RMT_TOO_LONG;
	memcpy(date, req->amz_date, 8);
	date[8] = '\0';

	c = malloc(sizeof(Canonical));
	creq = malloc(CANONICAL_CAP);
	if (!c || !creq)
	{
		free(c);
		free(creq);
		return RMT_CRYPTO_ERROR;
	}
	cb = (Builder) {creq, CANONICAL_CAP, 0, false};
	status = canonicalize(req, c);
	if (status == RMT_OK)
		status = build_canonical_request(req, c, &cb);
	if (status == RMT_OK)
		status = rmt_sha256_hex(creq, cb.len, creq_hash);
	if (status != RMT_OK)
		goto done;

	/* String to sign: algorithm, time, scope, hash of the request. */
	sts = (Builder) {sts_buf, sizeof(sts_buf), 0, false};
	puts_(&sts, "AWS4-HMAC-SHA256\n");
	puts_(&sts, req->amz_date);
	puts_(&sts, "\n");
	puts_(&sts, date);
	puts_(&sts, "/");
	puts_(&sts, req->region);
	puts_(&sts, "/");
	puts_(&sts, req->service);
	puts_(&sts, "/aws4_request\n");
	puts_(&sts, creq_hash);
	if (sts.overflow)
	{
		status = RMT_TOO_LONG;
		goto done;
	}

	/* Signing key: HMAC chain over date, region, service, "aws4_request". */
	snprintf(key0, sizeof(key0), "AWS4%s", req->secret);
	if (!hmac_sha256(key0, strlen(key0), date, 8, k) ||
		!hmac_sha256(k, 32, req->region, strlen(req->region), k) ||
		!hmac_sha256(k, 32, req->service, strlen(req->service), k) ||
		!hmac_sha256(k, 32, "aws4_request", 12, k) ||
		!hmac_sha256(k, 32, sts_buf, sts.len, k))
	{
		status = RMT_CRYPTO_ERROR;
		goto done;
	}
	hex_encode(k, 32, signature);

	puts_(&auth, "AWS4-HMAC-SHA256 Credential=");
	puts_(&auth, req->key_id);
	puts_(&auth, "/");
	puts_(&auth, date);
	puts_(&auth, "/");
	puts_(&auth, req->region);
	puts_(&auth, "/");
	puts_(&auth, req->service);
	puts_(&auth, "/aws4_request, SignedHeaders=");
	put_signed_headers(&auth, c);
	puts_(&auth, ", Signature=");
	puts_(&auth, signature);
	status = auth.overflow ? RMT_TOO_LONG : RMT_OK;

done:
	/* The key material leaves no copy behind on the stack or heap. */
	OPENSSL_cleanse(key0, sizeof(key0));
	OPENSSL_cleanse(k, sizeof(k));
	free(c);
	free(creq);
	return status;
}
