/*-------------------------------------------------------------------------
 *
 * settings.h
 *	  Which settings a store client gets for a URL: the foreign server's
 *	  options, then the user mapping's credentials, then the environment
 *	  of the server's OS user for whatever is still missing.
 *
 * Plain C11, no PostgreSQL: the FDW hands the options over as name/value
 * pairs, so the merge is testable without a server.
 *
 * Order, field by field:
 *	- endpoint: the server's `endpoint`; else AWS_ENDPOINT_URL (s3, gs) or
 *	  a connection string's BlobEndpoint (az); else the scheme's public
 *	  service.  "http://" / "https://" in it picks use_ssl.
 *	- region: the server's `region`; else AWS_REGION / AWS_DEFAULT_REGION /
 *	  ~/.aws/config; else "auto" for gs and us-east-1 (the client's) for s3.
 *	- url_style, use_ssl, verify_tls, ca_file: the server's options only.
 *	- list_page_size (keys a listing page asks for), coalesce_gap (bytes
 *	  a read bridges between pieces; 0: adaptive, store.h) and
 *	  max_connections (across a backend's reads at once): the server's
 *	  options only.
 *	- credentials, never mixed across sources: the user mapping's when it
 *	  names any (key_id for s3/gs; connection_string, account_key or
 *	  sas_token for az); else the environment chain (credentials.h; Azure:
 *	  AZURE_STORAGE_CONNECTION_STRING, else AZURE_STORAGE_ACCOUNT with
 *	  AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN); else anonymous.
 *	  http(s) URLs are always anonymous.
 *	- allow_link_local: only when endpoint_trusted (a superuser owns the
 *	  server that named the endpoint) and the request goes to the server's
 *	  endpoint (s3/gs/az URLs, or an http(s) URL on the endpoint's host).
 *
 * IDENTIFICATION
 *	  src/remote/settings.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef RMT_SETTINGS_H
#define RMT_SETTINGS_H

#include "remote/credentials.h"
#include "remote/remote.h"
#include "remote/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One option as the catalog holds it. */
typedef struct RmtOption
{
	const char *name;
	const char *value;
} RmtOption;

typedef struct RmtSettingsInput
{
	const RmtUrl *url;			/* the URL to serve */
	const RmtOption *server;	/* endpoint, region, url_style, use_ssl, ... */
	int			nserver;
	const RmtOption *mapping;	/* key_id, secret, ..., connection_string */
	int			nmapping;
	bool		endpoint_trusted;	/* the server's owner is a superuser */
	RmtGetenv	lookup;			/* the environment; NULL: none */
	void	   *lookup_arg;
} RmtSettingsInput;

/* Where the credentials came from, for hints when a request is refused. */
typedef enum RmtCredentialSource
{
	RMT_CRED_NONE = 0,			/* anonymous requests */
	RMT_CRED_USER_MAPPING,
	RMT_CRED_ENVIRONMENT,		/* AWS_* or AZURE_STORAGE_* variables */
	RMT_CRED_AWS_FILE			/* ~/.aws/credentials */
} RmtCredentialSource;

/* The resolved settings; config's strings point into the buffers here. */
typedef struct RmtSettings
{
	RmtStoreConfig config;
	RmtCredentialSource credential_source;
	char		endpoint[512];
	char		region[64];
	char		ca_file[1024];
	char		key_id[128];
	char		secret[256];
	char		session_token[4096];
	char		account_name[RMT_MAX_ACCOUNT];
	char		account_key[256];
	char		sas_token[2048];
} RmtSettings;

/*
 * Merge as the header comment says into *out (rmt_store_config_init
 * first).  RMT_INVALID_URL with a message naming the option (never its
 * value) when an option's value is wrong; RMT_TOO_LONG when a value does
 * not fit its buffer.
 */
extern RmtStatus rmt_settings_resolve(const RmtSettingsInput *in, RmtSettings *out,
									  char *errmsg, size_t errlen);

/*
 * Check an endpoint option: "[http://|https://]host[:port][/path]", no
 * credentials ("user:pass@"), no query or fragment, no blanks.  On success
 * copies "host[:port][/path]" without a trailing '/' into hostpath (may be
 * NULL) and sets *ssl to 1 (https://), 0 (http://) or -1 (no scheme).
 */
extern RmtStatus rmt_endpoint_parse(const char *text, char *hostpath, size_t cap,
									int *ssl, char *errmsg, size_t errlen);

/*
 * The value of field `name` (case-insensitive) of an Azure connection
 * string "Name=value;Name=value".  Values may hold '=' (SAS tokens do).
 * Returns true and copies it when present; *too_long when it does not fit.
 */
extern bool rmt_connection_string_field(const char *cs, const char *name,
										char *out, size_t cap, bool *too_long);

/* A value of a boolean option as PostgreSQL spells them; -1 if not one. */
extern int	rmt_parse_bool(const char *value);

#ifdef __cplusplus
}
#endif

#endif							/* RMT_SETTINGS_H */
