/*-------------------------------------------------------------------------
 *
 * remote_config.c
 *	  Which client serves a URL: privileges, settings, credentials, and the
 *	  backend's clients kept between statements; and how a failed request
 *	  becomes a PostgreSQL error.
 *
 * The settings are merged by src/remote/settings.c: the foreign server's
 * options (endpoint, region, url_style, use_ssl, verify_tls, ca_file),
 * then the current user's user mapping (key_id, secret, session_token;
 * Azure account_name, account_key, sas_token, connection_string), then the
 * environment of the server's OS user for whatever is still missing.  This
 * file only reads the catalogs and decides what may be trusted: a
 * link-local endpoint only from a server a superuser owns.
 *
 * IDENTIFICATION
 *	  src/fdw/remote_config.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <stdlib.h>

#include "access/reloptions.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/syscache.h"

#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_object.h"
#include "remote/settings.h"

/* One client per distinct resolved setting, for the backend's life. */
typedef struct PfRemoteClient
{
	char	   *key;			/* the resolved settings, flattened */
	RmtStore   *store;
	struct PfRemoteClient *next;
} PfRemoteClient;

static PfRemoteClient *clients = NULL;
static MemoryContext clients_cxt = NULL;

/*
 * Where the settings of a bucket (container, host) came from, remembered
 * by pf_remote_store for the hints of pf_remote_report: the last few
 * places resolved, newest first.
 */
#define PF_REMOTE_ORIGINS 8

typedef struct PfRemoteOrigin
{
	char		place[RMT_MAX_HOST + RMT_MAX_BUCKET + RMT_MAX_ACCOUNT + 16];
	RmtScheme	scheme;
	char		server[NAMEDATALEN];	/* "" when no foreign server */
	RmtCredentialSource source;
} PfRemoteOrigin;

static PfRemoteOrigin origins[PF_REMOTE_ORIGINS];
static int	norigins = 0;

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

void
pf_remote_check_write(const char *url_text)
{
	Oid			role;

	if (superuser() || has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
		return;
	role = get_role_oid("parquet_fdw_remote_write", true);
	if (OidIsValid(role) && has_privs_of_role(GetUserId(), role))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to write \"%s\"", url_text),
			 errdetail("Only roles with privileges of the \"%s\" or \"%s\" role may write remote URLs.",
					   "pg_write_server_files", "parquet_fdw_remote_write")));
}

/*
 * url_text for messages: "user:password@" in its host part, which the
 * parser refuses, becomes "...@" so the refusal does not print it.
 */
static char *
url_for_message(const char *url_text)
{
	const char *authority = strstr(url_text, "://");
	const char *end;
	const char *at = NULL;

	if (authority == NULL)
		return pstrdup(url_text);
	authority += 3;
	end = authority + strcspn(authority, "/?#");
	for (const char *p = authority; p < end; p++)
		if (*p == '@')
			at = p;
	if (at == NULL)
		return pstrdup(url_text);
	return psprintf("%.*s...%s", (int) (authority - url_text), url_text, at);
}

/* A DefElem list of the catalog as the settings merge takes it. */
static RmtOption *
options_of(List *defs, int *n)
{
	RmtOption  *opts = palloc0(sizeof(RmtOption) * (list_length(defs) + 1));
	ListCell   *lc;

	*n = 0;
	foreach(lc, defs)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		opts[*n].name = def->defname;
		opts[*n].value = defGetString(def);
		(*n)++;
	}
	return opts;
}

/*
 * The options of the user mapping of user for the server, else of its
 * PUBLIC mapping, else NIL: unlike GetUserMapping, no mapping is no error
 * (anonymous reads and the environment's credentials need none).
 */
static List *
user_mapping_options(Oid userid, Oid serverid)
{
	HeapTuple	tp;
	Datum		datum;
	bool		isnull;
	List	   *result = NIL;

	tp = SearchSysCache2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(userid),
						 ObjectIdGetDatum(serverid));
	if (!HeapTupleIsValid(tp))
		tp = SearchSysCache2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(InvalidOid),
							 ObjectIdGetDatum(serverid));
	if (!HeapTupleIsValid(tp))
		return NIL;
	datum = SysCacheGetAttr(USERMAPPINGUSERSERVER, tp,
							Anum_pg_user_mapping_umoptions, &isnull);
	if (!isnull)
		result = untransformRelOptions(datum);
	ReleaseSysCache(tp);
	return result;
}

/* "s3:bucket@account|host:port": what a URL's settings are resolved for. */
static void
place_of(const RmtUrl *url, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s:%s@%s|%s:%d", rmt_scheme_name(url->scheme),
			 url->bucket, url->account, url->host, url->port);
}

static void
remember_origin(const RmtUrl *url, const char *server, RmtCredentialSource source)
{
	PfRemoteOrigin o;
	int			i;

	memset(&o, 0, sizeof(o));
	place_of(url, o.place, sizeof(o.place));
	o.scheme = url->scheme;
	strlcpy(o.server, server ? server : "", sizeof(o.server));
	o.source = source;
	/* drop an older entry of the same place, shift, put it first */
	for (i = 0; i < norigins; i++)
		if (strcmp(origins[i].place, o.place) == 0)
			break;
	if (i == norigins && norigins < PF_REMOTE_ORIGINS)
		norigins++;
	if (i == PF_REMOTE_ORIGINS)
		i--;
	memmove(&origins[1], &origins[0], sizeof(PfRemoteOrigin) * i);
	origins[0] = o;
}

static const PfRemoteOrigin *
find_origin(const char *url_text)
{
	RmtUrl		url;
	char		place[sizeof(origins[0].place)];
	char		msg[8];

	if (rmt_url_parse(url_text, &url, msg, sizeof(msg)) != RMT_OK)
		return NULL;
	place_of(&url, place, sizeof(place));
	for (int i = 0; i < norigins; i++)
		if (strcmp(origins[i].place, place) == 0)
			return &origins[i];
	return NULL;
}

/* The settings flattened into a lookup key (kept in backend memory only). */
static char *
settings_key(const RmtStoreConfig *c)
{
#define S(x) ((x) ? (x) : "")
	return psprintf("%s|%s|%d|%d|%d|%s|%d|%s|%s|%s|%s|%s|%s|%d|" UINT64_FORMAT "|%d",
					S(c->endpoint), S(c->region), (int) c->url_style,
					(int) c->use_ssl, (int) c->verify_tls, S(c->ca_file),
					(int) c->allow_link_local, S(c->key_id), S(c->secret),
					S(c->session_token), S(c->account_name), S(c->account_key),
					S(c->sas_token), c->list_page_size,
					(uint64) c->coalesce_gap, c->max_connections);
#undef S
}

static RmtStore *open_store(const char *url_text, Oid serverid, RmtUrl *url,
							bool write);

RmtStore *
pf_remote_store(const char *url_text, Oid serverid, RmtUrl *url)
{
	return open_store(url_text, serverid, url, false);
}

RmtStore *
pf_remote_store_for_write(const char *url_text, Oid serverid, RmtUrl *url)
{
	return open_store(url_text, serverid, url, true);
}

static RmtStore *
open_store(const char *url_text, Oid serverid, RmtUrl *url, bool write)
{
	char		msg[256];
	RmtStatus	st;
	RmtSettingsInput in;
	RmtSettings *rs;
	ForeignServer *server = NULL;
	char	   *key;
	PfRemoteClient *c;
	PfcAllocator alloc;
	RmtError	err;

	st = rmt_url_parse(url_text, url, msg, sizeof(msg));
	if (st == RMT_UNSUPPORTED_SCHEME)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("URL scheme of \"%s\" is not supported", url_for_message(url_text)),
				 errhint("parquet_fdw reads s3://, gs://, az://, abfss://, http:// and https:// URLs.")));
	if (st != RMT_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid URL \"%s\"", url_for_message(url_text)),
				 errdetail("%c%s.", pg_toupper((unsigned char) msg[0]), msg + 1)));
	if (write)
		pf_remote_check_write(url_text);
	else
		check_remote_privilege(url_text);

	memset(&in, 0, sizeof(in));
	in.url = url;
	in.lookup = env_lookup;
	if (OidIsValid(serverid))
	{
		server = GetForeignServer(serverid);
		in.server = options_of(server->options, &in.nserver);
		in.mapping = options_of(user_mapping_options(GetUserId(), serverid),
								&in.nmapping);
		/* server options are the owner's: a superuser's are trusted */
		in.endpoint_trusted = superuser_arg(server->owner);
	}
	rs = palloc(sizeof(RmtSettings));
	st = rmt_settings_resolve(&in, rs, msg, sizeof(msg));
	if (st != RMT_OK)
	{
		explicit_bzero(rs, sizeof(RmtSettings));
		if (server)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("invalid settings for \"%s\" of server \"%s\"",
							url_text, server->servername),
					 errdetail("%c%s.", pg_toupper((unsigned char) msg[0]), msg + 1)));
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid settings for \"%s\" in the environment", url_text),
				 errdetail("%c%s.", pg_toupper((unsigned char) msg[0]), msg + 1)));
	}
	rs->config.interrupted = remote_interrupted;
	remember_origin(url, server ? server->servername : NULL, rs->credential_source);

	key = settings_key(&rs->config);
	for (c = clients; c != NULL; c = c->next)
		if (strcmp(c->key, key) == 0)
			break;
	if (c == NULL)
	{
		if (clients_cxt == NULL)
			clients_cxt = AllocSetContextCreate(TopMemoryContext,
												"parquet_fdw remote clients",
												ALLOCSET_SMALL_SIZES);
		c = MemoryContextAllocZero(clients_cxt, sizeof(PfRemoteClient));
		c->key = MemoryContextStrdup(clients_cxt, key);
		alloc = pf_context_allocator(clients_cxt);
		memset(&err, 0, sizeof(err));
		st = rmt_store_open(&c->store, &rs->config, &alloc, &err);
		if (st != RMT_OK)
		{
			explicit_bzero(c->key, strlen(c->key));
			explicit_bzero(key, strlen(key));
			explicit_bzero(rs, sizeof(RmtSettings));
			pf_remote_report(url_text, &err);
		}
		c->next = clients;
		clients = c;
	}
	explicit_bzero(key, strlen(key));
	pfree(key);
	explicit_bzero(rs, sizeof(RmtSettings));
	pfree(rs);
	return c->store;
}

/* Where to look when a store refused the credentials sent. */
static char *
access_hint(const PfRemoteOrigin *o)
{
	bool		azure = o->scheme == RMT_SCHEME_AZURE;
	const char *fields = azure ? "account_key, sas_token or connection_string" :
		"key_id and secret";

	if (o->scheme == RMT_SCHEME_HTTP || o->scheme == RMT_SCHEME_HTTPS)
		return pstrdup("http:// and https:// URLs are read without credentials: the object must be public.");
	switch (o->source)
	{
		case RMT_CRED_USER_MAPPING:
			return psprintf("Check the %s of the user mapping for server \"%s\".",
							fields, o->server);
		case RMT_CRED_ENVIRONMENT:
			return psprintf("The credentials came from the %s variables of the server's OS user; a user mapping with %s overrides them.",
							azure ? "AZURE_STORAGE_*" : "AWS_*", fields);
		case RMT_CRED_AWS_FILE:
			return psprintf("The credentials came from the AWS credentials file of the server's OS user; a user mapping with %s overrides them.",
							fields);
		case RMT_CRED_NONE:
			break;
	}
	if (o->server[0] != '\0')
		return psprintf("The request was anonymous: create a user mapping for server \"%s\" with %s.",
						o->server, fields);
	return psprintf("The request was anonymous: read through a foreign server whose user mapping has %s, or give the server's OS user %s.",
					fields, azure ? "AZURE_STORAGE_* variables" : "AWS credentials");
}

static void report(const char *url_text, const RmtError *err,
				   const char *verb) pg_attribute_noreturn();

void
pf_remote_report(const char *url_text, const RmtError *err)
{
	report(url_text, err, "read");
}

void
pf_remote_report_write(const char *url_text, const RmtError *err)
{
	report(url_text, err, "write");
}

static void
report(const char *url_text, const RmtError *err, const char *verb)
{
	const PfRemoteOrigin *origin = find_origin(url_text);
	char	   *hint = NULL;
	char	   *message;
	int			code;

	if (err->status == RMT_CANCELLED)
	{
		CHECK_FOR_INTERRUPTS();
		/* interrupts held off: the cancel still ends the statement */
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("canceling request to \"%s\"", url_text)));
	}
	switch (err->status)
	{
		case RMT_NOT_FOUND:
			code = ERRCODE_UNDEFINED_FILE;	/* 58P01 */
			break;
		case RMT_ACCESS_DENIED:
			code = ERRCODE_INSUFFICIENT_PRIVILEGE;	/* 42501 */
			if (origin)
				hint = access_hint(origin);
			break;
		case RMT_CHANGED:
			/* the next statement asks for the object as it is now */
			pf_remote_forget(url_text);
			ResetPlanCache();
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("object \"%s\" changed while it was being read", url_text),
					 errdetail("Its ETag no longer matches the one its metadata was read with."),
					 errhint("Run the query again: it will read the object as it is now.")));
			break;
		case RMT_FORBIDDEN_ADDRESS:
			code = ERRCODE_INSUFFICIENT_PRIVILEGE;
			hint = pstrdup("Requests to link-local addresses (cloud metadata services) are refused unless a superuser-owned foreign server names that host in its endpoint option.");
			break;
		case RMT_NO_MEMORY:
			code = ERRCODE_OUT_OF_MEMORY;
			break;
		case RMT_INVALID_URL:
		case RMT_UNSUPPORTED_SCHEME:
		case RMT_TOO_LONG:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
		case RMT_NETWORK_ERROR:
			code = ERRCODE_IO_ERROR;	/* 58030 */
			if (strstr(err->message, "certificate") || strstr(err->message, "SSL"))
				hint = pstrdup("If the store's certificate is signed by a private CA, set the foreign server's ca_file option to that CA's PEM file.");
			break;
		default:
			code = ERRCODE_IO_ERROR;
			break;
	}
	/* the client's text says more than the status only when it is not
	 * just "... HTTP status N" again */
	message = err->message[0] && strstr(err->message, "HTTP status") == NULL ?
		psprintf("%c%s", pg_toupper((unsigned char) err->message[0]), err->message + 1) : NULL;
	if (err->http_status != 0)
		ereport(ERROR,
				(errcode(code),
				 errmsg("could not %s \"%s\": %s", verb, url_text, rmt_status_name(err->status)),
				 errdetail("HTTP status %d%s%s%s%s.", err->http_status,
						   err->code[0] ? ", store error code " : "", err->code,
						   message ? ": " : "", message ? message : ""),
				 hint ? errhint("%s", hint) : 0));
	ereport(ERROR,
			(errcode(code),
			 errmsg("could not %s \"%s\": %s", verb, url_text, rmt_status_name(err->status)),
			 message ? errdetail("%s%s%s.", err->code[0] ? err->code : "",
								 err->code[0] ? ": " : "", message) : 0,
			 hint ? errhint("%s", hint) : 0));
}
