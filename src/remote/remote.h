/*-------------------------------------------------------------------------
 *
 * remote.h
 *	  Contract of the remote layer: object-store URLs and how requests to
 *	  them are signed.
 *
 * Plain C11, no PostgreSQL: status codes, caller-owned buffers, never
 * abort.  This header covers what needs no network: parsing the URLs the
 * extension accepts (s3://, gs://, az://, abfss://, http(s)://) and the
 * request signatures of the stores (sigv4.h: AWS Signature Version 4, used
 * by S3 and by Google Cloud Storage's S3-compatible API).  The transfer
 * side (libcurl) builds on these.
 *
 * IDENTIFICATION
 *	  src/remote/remote.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef RMT_REMOTE_H
#define RMT_REMOTE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum RmtStatus
{
	RMT_OK = 0,
	RMT_INVALID_URL,			/* not a URL this layer can parse */
	RMT_UNSUPPORTED_SCHEME,		/* scheme:// that no store here reads */
	RMT_TOO_LONG,				/* a caller buffer or a field is too small */
	RMT_CRYPTO_ERROR,			/* the hash or HMAC primitive failed */
	RMT_NO_MEMORY,				/* the allocator returned NULL */
	RMT_NOT_FOUND,				/* HTTP 404: no such bucket or object */
	RMT_ACCESS_DENIED,			/* HTTP 401/403 */
	RMT_CHANGED,				/* HTTP 412: the object's ETag changed */
	RMT_HTTP_ERROR,				/* any other HTTP status, after retries */
	RMT_NETWORK_ERROR,			/* connect, TLS, reset, timeout, after retries */
	RMT_BAD_RESPONSE,			/* a body or header that makes no sense */
	RMT_FORBIDDEN_ADDRESS,		/* a link-local or metadata address */
	RMT_CANCELLED				/* the caller's interrupt check said stop */
} RmtStatus;

/*
 * What went wrong in a request, for the caller's error message: the HTTP
 * status (0 when none came back), the store's error code ("NoSuchKey",
 * "AccessDenied", "SlowDown"...), and a short explanation.  Never holds a
 * credential or a signature.
 */
typedef struct RmtError
{
	RmtStatus	status;
	int			http_status;
	char		code[64];
	char		message[256];
} RmtError;

/* A readable name of a status ("not found", "access denied", ...). */
extern const char *rmt_status_name(RmtStatus status);

typedef enum RmtScheme
{
	RMT_SCHEME_S3,				/* s3://bucket/key */
	RMT_SCHEME_GCS,				/* gs://bucket/key (S3-compatible API) */
	RMT_SCHEME_AZURE,			/* az://container/path,
								 * abfss://container@account.dfs.core.windows.net/path */
	RMT_SCHEME_HTTP,			/* http://host[:port]/path */
	RMT_SCHEME_HTTPS			/* https://host[:port]/path */
} RmtScheme;

/* Field limits: S3 keys are at most 1024 bytes, hosts 253, buckets 63. */
#define RMT_MAX_BUCKET	64
#define RMT_MAX_ACCOUNT 64
#define RMT_MAX_HOST	256
#define RMT_MAX_KEY		2048

typedef struct RmtUrl
{
	RmtScheme	scheme;
	char		bucket[RMT_MAX_BUCKET]; /* bucket or container; "" for http */
	char		account[RMT_MAX_ACCOUNT];	/* Azure account named in an abfss
											 * host; else "" */
	char		host[RMT_MAX_HOST]; /* http(s) host; else "" */
	int			port;			/* http(s) port; 0 when not given */
	char		key[RMT_MAX_KEY];	/* object key or path, no leading '/' */
} RmtUrl;

/*
 * Does the text start with "<letters, digits, + - .>://"?  Such text is a
 * URL to the extension, never a local path (a scheme it does not read is
 * an error, not a file name).  *scheme_len gets the length of the scheme.
 */
extern bool rmt_has_scheme(const char *text, size_t *scheme_len);

/*
 * Parse an object-store or HTTP URL.  Refuses userinfo ("user:pass@" in an
 * http(s) host: credentials belong in user mappings), empty buckets, query
 * strings and fragments in s3/gs/az URLs, and fields longer than the
 * limits above.  On failure a message (at most errlen bytes, may be 0)
 * says what is wrong, without repeating the URL.
 */
extern RmtStatus rmt_url_parse(const char *text, RmtUrl *url,
							   char *errmsg, size_t errlen);

/* The scheme's name as users write it ("s3", "gs", "az", "http", "https"). */
extern const char *rmt_scheme_name(RmtScheme scheme);

/*
 * Percent-encode text as AWS Signature Version 4 and S3 want it: every byte
 * but A-Z a-z 0-9 - _ . ~ becomes %XX (upper-case hex); '/' is kept when
 * keep_slash (object key paths) and encoded otherwise (query values).
 * Writes a NUL-terminated string; RMT_TOO_LONG when cap is too small.
 */
extern RmtStatus rmt_uri_encode(const char *text, size_t len, bool keep_slash,
								char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif							/* RMT_REMOTE_H */
