/*-------------------------------------------------------------------------
 *
 * sigv4.h
 *	  AWS Signature Version 4 for requests to S3 and S3-compatible stores.
 *
 * The caller builds the request (method, encoded path, query parameters,
 * the headers it will send, the payload's SHA-256) and gets back the value
 * of the Authorization header.  Every header given is signed, so pass
 * exactly the headers the request carries that the store must check: host,
 * x-amz-date, x-amz-content-sha256, and range / x-amz-security-token when
 * present.  Pure computation: testable against the published examples of
 * the AWS documentation (test/unit/test_sigv4.c).
 *
 * IDENTIFICATION
 *	  src/remote/sigv4.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef RMT_SIGV4_H
#define RMT_SIGV4_H

#include "remote/remote.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The SHA-256 of an empty payload, as x-amz-content-sha256 carries it. */
#define RMT_SHA256_EMPTY \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

typedef struct RmtNameValue
{
	const char *name;
	const char *value;
} RmtNameValue;

typedef struct RmtSigV4Request
{
	const char *method;			/* "GET", "HEAD", "PUT", ... */
	const char *encoded_path;	/* the path as sent: "/", "/key%20x" */
	const RmtNameValue *query;	/* raw (unencoded) parameters, any order;
								 * value "" for a bare key ("?lifecycle") */
	int			nquery;
	const RmtNameValue *headers;	/* any case and order; values are trimmed
									 * and inner runs of spaces collapsed */
	int			nheaders;
	const char *payload_sha256; /* lower-case hex, or "UNSIGNED-PAYLOAD" */
	const char *amz_date;		/* "YYYYMMDDTHHMMSSZ", as in x-amz-date */
	const char *region;			/* "us-east-1" */
	const char *service;		/* "s3" */
	const char *key_id;
	const char *secret;
} RmtSigV4Request;

/*
 * Write "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=..."
 * into out (NUL-terminated).  RMT_TOO_LONG when a field or out is too big
 * for the limits (16 query parameters and 16 headers, 8 KB of canonical
 * request), RMT_CRYPTO_ERROR when OpenSSL fails.
 */
extern RmtStatus rmt_sigv4_authorization(const RmtSigV4Request *req,
										 char *out, size_t cap);

/* The same steps exposed for tests: the canonical request's text. */
extern RmtStatus rmt_sigv4_canonical_request(const RmtSigV4Request *req,
											 char *out, size_t cap);

/* Lower-case hex SHA-256 of data (65 bytes with the NUL). */
extern RmtStatus rmt_sha256_hex(const void *data, size_t len, char out[65]);

#ifdef __cplusplus
}
#endif

#endif							/* RMT_SIGV4_H */
