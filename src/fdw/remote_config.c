/*-------------------------------------------------------------------------
 *
 * remote_config.c
 *	  Which client serves a URL: privileges, settings, credentials, and the
 *	  backend's clients kept between statements.
 *
 * This first version resolves settings from the environment chain only
 * (AWS_* variables and ~/.aws files through rmt_aws_settings_resolve,
 * AZURE_STORAGE_* for Azure).  Server and user-mapping options come on top
 * of it without changing the contract in remote_fdw.h.
 *
 * IDENTIFICATION
 *	  src/fdw/remote_config.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <stdlib.h>

#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/memutils.h"

#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "remote/credentials.h"

/* One client per distinct resolved setting, for the backend's life. */
typedef struct PfRemoteClient
{
	char	   *key;			/* the resolved settings, flattened */
	RmtStore   *store;
	struct PfRemoteClient *next;
} PfRemoteClient;

static PfRemoteClient *clients = NULL;
static MemoryContext clients_cxt = NULL;

bool
pf_is_url(const char *text)
{
	size_t		scheme_len;

	return text != NULL && rmt_has_scheme(text, &scheme_len);
}

static const char *
env_lookup(const char *name, void *arg)
{
	return getenv(name);
}

/* PostgreSQL's pending interrupts, polled by the client during waits. */
static int
remote_interrupted(void *arg)
{
	return InterruptPending && (QueryCancelPending || ProcDiePending);
}

/* Remote URLs make the server send requests: not for every role. */
static void
check_remote_privilege(const char *url_text)
{
	Oid			role;

	if (superuser() || has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES))
		return;
	role = get_role_oid("parquet_fdw_remote_read", true);
	if (OidIsValid(role) && has_privs_of_role(GetUserId(), role))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to read \"%s\"", url_text),
			 errdetail("Only roles with privileges of the \"%s\" or \"%s\" role may read remote URLs.",
					   "pg_read_server_files", "parquet_fdw_remote_read")));
}

/*
 * "http://host:port" or "host:port" into the config: the scheme picks
 * use_ssl, a custom endpoint defaults to path-style addressing.
 */
static void
apply_endpoint(RmtStoreConfig *config, const char *endpoint_url, char *buf, size_t cap)
{
	const char *p = endpoint_url;

	if (strncmp(p, "http://", 7) == 0)
	{
		config->use_ssl = false;
		p += 7;
	}
	else if (strncmp(p, "https://", 8) == 0)
		p += 8;
	strlcpy(buf, p, cap);
	/* no trailing slash: the client appends "/bucket/key" */
	while (buf[0] != '\0' && buf[strlen(buf) - 1] == '/')
		buf[strlen(buf) - 1] = '\0';
	config->endpoint = buf;
	config->url_style = RMT_URL_STYLE_PATH;
}

/* Settings of an Azure connection string "Name=value;Name=value". */
static bool
connection_string_field(const char *cs, const char *name, char *out, size_t cap)
{
	size_t		nlen = strlen(name);
	const char *p = cs;

	while (*p)
	{
		const char *end = strchr(p, ';');
		size_t		len = end ? (size_t) (end - p) : strlen(p);

		if (len > nlen && strncmp(p, name, nlen) == 0 && p[nlen] == '=')
		{
			size_t		vlen = len - nlen - 1;

			if (vlen >= cap)
				return false;
			memcpy(out, p + nlen + 1, vlen);
			out[vlen] = '\0';
			return true;
		}
		p += len;
		if (*p == ';')
			p++;
	}
	return false;
}

/* Resolved settings, kept with their buffers. */
typedef struct ResolvedSettings
{
	RmtStoreConfig config;
	RmtAwsSettings aws;
	char		endpoint[512];
	char		account_name[RMT_MAX_ACCOUNT];
	char		account_key[256];
	char		sas_token[2048];
} ResolvedSettings;

static void
resolve_environment(const RmtUrl *url, ResolvedSettings *rs)
{
	rmt_store_config_init(&rs->config);
	if (url->scheme == RMT_SCHEME_S3 || url->scheme == RMT_SCHEME_GCS)
	{
		if (rmt_aws_settings_resolve(env_lookup, NULL, &rs->aws) != RMT_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("an AWS setting of the environment is too long")));
		if (rs->aws.key_id[0] != '\0')
		{
			rs->config.key_id = rs->aws.key_id;
			rs->config.secret = rs->aws.secret;
			if (rs->aws.session_token[0] != '\0')
				rs->config.session_token = rs->aws.session_token;
		}
		if (rs->aws.region[0] != '\0')
			rs->config.region = rs->aws.region;
		if (rs->aws.endpoint_url[0] != '\0')
			apply_endpoint(&rs->config, rs->aws.endpoint_url, rs->endpoint,
						   sizeof(rs->endpoint));
		else if (url->scheme == RMT_SCHEME_GCS)
			rs->config.region = rs->config.region ? rs->config.region : "auto";
	}
	else if (url->scheme == RMT_SCHEME_AZURE)
	{
		const char *cs = getenv("AZURE_STORAGE_CONNECTION_STRING");
		const char *account = getenv("AZURE_STORAGE_ACCOUNT");
		const char *key = getenv("AZURE_STORAGE_KEY");
		char		blob_endpoint[512];

		if (cs != NULL)
		{
			if (connection_string_field(cs, "AccountName", rs->account_name,
										sizeof(rs->account_name)))
				rs->config.account_name = rs->account_name;
			if (connection_string_field(cs, "AccountKey", rs->account_key,
										sizeof(rs->account_key)))
				rs->config.account_key = rs->account_key;
			if (connection_string_field(cs, "SharedAccessSignature", rs->sas_token,
										sizeof(rs->sas_token)))
				rs->config.sas_token = rs->sas_token;
			if (connection_string_field(cs, "BlobEndpoint", blob_endpoint,
										sizeof(blob_endpoint)))
				apply_endpoint(&rs->config, blob_endpoint, rs->endpoint,
							   sizeof(rs->endpoint));
		}
		else
		{
			if (account != NULL)
			{
				strlcpy(rs->account_name, account, sizeof(rs->account_name));
				rs->config.account_name = rs->account_name;
			}
			if (key != NULL)
			{
				strlcpy(rs->account_key, key, sizeof(rs->account_key));
				rs->config.account_key = rs->account_key;
			}
		}
	}
	rs->config.interrupted = remote_interrupted;
}

/* The settings flattened into a lookup key (kept in backend memory only). */
static char *
settings_key(const RmtStoreConfig *c)
{
#define S(x) ((x) ? (x) : "")
	return psprintf("%s|%s|%d|%d|%d|%s|%d|%s|%s|%s|%s|%s|%s",
					S(c->endpoint), S(c->region), (int) c->url_style,
					(int) c->use_ssl, (int) c->verify_tls, S(c->ca_file),
					(int) c->allow_link_local, S(c->key_id), S(c->secret),
					S(c->session_token), S(c->account_name), S(c->account_key),
					S(c->sas_token));
#undef S
}

RmtStore *
pf_remote_store(const char *url_text, Oid serverid, RmtUrl *url)
{
	char		msg[256];
	RmtStatus	st;
	ResolvedSettings rs;
	char	   *key;
	PfRemoteClient *c;
	PfcAllocator alloc;
	RmtError	err;

	memset(&rs, 0, sizeof(rs));
	st = rmt_url_parse(url_text, url, msg, sizeof(msg));
	if (st == RMT_UNSUPPORTED_SCHEME)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("URL scheme of \"%s\" is not supported", url_text),
				 errhint("parquet_fdw reads s3://, gs://, az://, abfss://, http:// and https:// URLs.")));
	if (st != RMT_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid URL \"%s\"", url_text),
				 errdetail("%s", msg)));
	check_remote_privilege(url_text);

	resolve_environment(url, &rs);
	key = settings_key(&rs.config);
	for (c = clients; c != NULL; c = c->next)
		if (strcmp(c->key, key) == 0)
		{
			pfree(key);
			return c->store;
		}

	if (clients_cxt == NULL)
		clients_cxt = AllocSetContextCreate(TopMemoryContext,
											"parquet_fdw remote clients",
											ALLOCSET_SMALL_SIZES);
	c = MemoryContextAllocZero(clients_cxt, sizeof(PfRemoteClient));
	c->key = MemoryContextStrdup(clients_cxt, key);
	pfree(key);
	alloc = pf_context_allocator(clients_cxt);
	memset(&err, 0, sizeof(err));
	st = rmt_store_open(&c->store, &rs.config, &alloc, &err);
	explicit_bzero(&rs, sizeof(rs));
	if (st != RMT_OK)
		pf_remote_report(url_text, &err);
	c->next = clients;
	clients = c;
	return c->store;
}

void
pf_remote_report(const char *url_text, const RmtError *err)
{
	int			code;

	if (err->status == RMT_CANCELLED)
	{
		CHECK_FOR_INTERRUPTS();
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("canceling request to \"%s\"", url_text)));
	}
	switch (err->status)
	{
		case RMT_NOT_FOUND:
			code = ERRCODE_UNDEFINED_FILE;
			break;
		case RMT_ACCESS_DENIED:
			code = ERRCODE_INSUFFICIENT_PRIVILEGE;
			break;
		case RMT_CHANGED:
			code = ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;
			break;
		case RMT_FORBIDDEN_ADDRESS:
			code = ERRCODE_INSUFFICIENT_PRIVILEGE;
			break;
		case RMT_NO_MEMORY:
			code = ERRCODE_OUT_OF_MEMORY;
			break;
		default:
			code = ERRCODE_IO_ERROR;	/* 58030 */
			break;
	}
	if (err->status == RMT_CHANGED)
		ereport(ERROR,
				(errcode(code),
				 errmsg("object \"%s\" changed while it was being read", url_text),
				 errhint("Retry the query.")));
	if (err->http_status != 0)
		ereport(ERROR,
				(errcode(code),
				 errmsg("could not read \"%s\": %s", url_text, rmt_status_name(err->status)),
				 errdetail("HTTP status %d%s%s: %s", err->http_status,
						   err->code[0] ? ", error code " : "", err->code,
						   err->message)));
	ereport(ERROR,
			(errcode(code),
			 errmsg("could not read \"%s\": %s", url_text, rmt_status_name(err->status)),
			 err->message[0] ? errdetail("%s", err->message) : 0));
}
