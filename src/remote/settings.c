/*-------------------------------------------------------------------------
 *
 * settings.c
 *	  Merge a store client's settings: server options, user mapping,
 *	  environment (see settings.h for the order).
 *
 * IDENTIFICATION
 *	  src/remote/settings.c
 *
 *-------------------------------------------------------------------------
 */
#include "remote/settings.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static RmtStatus fail(char *errmsg, size_t errlen, RmtStatus st, const char *fmt,...)
			__attribute__((format(printf, 4, 5)));

static RmtStatus
fail(char *errmsg, size_t errlen, RmtStatus st, const char *fmt,...)
{
	va_list		ap;

	if (errlen > 0)
	{
		va_start(ap, fmt);
		vsnprintf(errmsg, errlen, fmt, ap);
		va_end(ap);
	}
	return st;
}

static const char *
option(const RmtOption *opts, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(opts[i].name, name) == 0)
			return opts[i].value;
	return NULL;
}

static bool
copy(char *dst, size_t cap, const char *src)
{
	size_t		len = strlen(src);

	if (len >= cap)
		return false;
	memcpy(dst, src, len + 1);
	return true;
}

int
rmt_parse_bool(const char *value)
{
	if (strcasecmp(value, "true") == 0 || strcasecmp(value, "on") == 0 ||
		strcmp(value, "1") == 0)
		return 1;
	if (strcasecmp(value, "false") == 0 || strcasecmp(value, "off") == 0 ||
		strcmp(value, "0") == 0)
		return 0;
	return -1;
}

RmtStatus
rmt_endpoint_parse(const char *text, char *hostpath, size_t cap, int *ssl,
				   char *errmsg, size_t errlen)
{
	const char *p = text;
	size_t		authority_len;
	size_t		len;

	*ssl = -1;
	if (strncasecmp(p, "https://", 8) == 0)
	{
		*ssl = 1;
		p += 8;
	}
	else if (strncasecmp(p, "http://", 7) == 0)
	{
		*ssl = 0;
		p += 7;
	}
	else if (strstr(p, "://") != NULL)
		return fail(errmsg, errlen, RMT_INVALID_URL,
					"an endpoint is \"host[:port]\", \"http://host[:port]\" or \"https://host[:port]\"");
	for (const char *q = p; *q; q++)
		if (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
			return fail(errmsg, errlen, RMT_INVALID_URL, "an endpoint holds no blanks");
	authority_len = strcspn(p, "/");
	if (memchr(p, '@', authority_len) != NULL)
		return fail(errmsg, errlen, RMT_INVALID_URL,
					"credentials do not belong in the endpoint");
	if (strpbrk(p, "?#") != NULL)
		return fail(errmsg, errlen, RMT_INVALID_URL,
					"an endpoint has no query or fragment");
	if (authority_len == 0 || p[0] == ':')
		return fail(errmsg, errlen, RMT_INVALID_URL, "the endpoint names no host");
	len = strlen(p);
	while (len > authority_len && p[len - 1] == '/')
		len--;
	if (hostpath != NULL)
	{
		if (len >= cap)
			return fail(errmsg, errlen, RMT_TOO_LONG, "the endpoint is too long");
		memcpy(hostpath, p, len);
		hostpath[len] = '\0';
	}
	return RMT_OK;
}

bool
rmt_connection_string_field(const char *cs, const char *name, char *out,
							size_t cap, bool *too_long)
{
	size_t		nlen = strlen(name);
	const char *p = cs;

	*too_long = false;
	while (*p)
	{
		const char *end = strchr(p, ';');
		size_t		len = end ? (size_t) (end - p) : strlen(p);

		while (len > 0 && (*p == ' ' || *p == '\t'))
		{
			p++;
			len--;
		}
		if (len > nlen && strncasecmp(p, name, nlen) == 0 && p[nlen] == '=')
		{
			size_t		vlen = len - nlen - 1;

			if (vlen >= cap)
			{
				*too_long = true;
				return false;
			}
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

/* "host[:port]" of an endpoint "host[:port][/path]" equals the URL's? */
static bool
endpoint_names_host(const char *endpoint, const RmtUrl *url)
{
	char		want[RMT_MAX_HOST + 8];
	size_t		hlen = strcspn(endpoint, "/");

	if (url->port)
		snprintf(want, sizeof(want), "%s:%d", url->host, url->port);
	else
		snprintf(want, sizeof(want), "%s", url->host);
	return strlen(want) == hlen && strncasecmp(endpoint, want, hlen) == 0;
}

/* An endpoint text into out's endpoint (and use_ssl when it says). */
static RmtStatus
set_endpoint(RmtSettings *out, const char *text, const char *what,
			 char *errmsg, size_t errlen)
{
	int			ssl;
	char		why[160];
	RmtStatus	st;

	st = rmt_endpoint_parse(text, out->endpoint, sizeof(out->endpoint), &ssl,
							why, sizeof(why));
	if (st != RMT_OK)
		return fail(errmsg, errlen, st, "%s: %s", what, why);
	out->config.endpoint = out->endpoint;
	if (ssl >= 0)
		out->config.use_ssl = ssl == 1;
	return RMT_OK;
}

/* S3 and GCS: key id, secret and token from one source. */
static RmtStatus
resolve_aws(const RmtSettingsInput *in, RmtSettings *out, char *errmsg, size_t errlen)
{
	RmtAwsSettings aws;
	const char *key_id = option(in->mapping, in->nmapping, "key_id");
	RmtStatus	st;

	memset(&aws, 0, sizeof(aws));
	if (in->lookup != NULL &&
		(st = rmt_aws_settings_resolve(in->lookup, in->lookup_arg, &aws)) != RMT_OK)
		return fail(errmsg, errlen, st, "an AWS setting of the environment is too long");

	if (key_id != NULL)
	{
		const char *secret = option(in->mapping, in->nmapping, "secret");
		const char *token = option(in->mapping, in->nmapping, "session_token");

		if (!copy(out->key_id, sizeof(out->key_id), key_id) ||
			!copy(out->secret, sizeof(out->secret), secret ? secret : "") ||
			!copy(out->session_token, sizeof(out->session_token), token ? token : ""))
			return fail(errmsg, errlen, RMT_TOO_LONG,
						"a credential of the user mapping is too long");
		out->credential_source = RMT_CRED_USER_MAPPING;
	}
	else if (aws.key_id[0] != '\0')
	{
		strcpy(out->key_id, aws.key_id);
		strcpy(out->secret, aws.secret);
		strcpy(out->session_token, aws.session_token);
		out->credential_source = strcmp(aws.source, "environment") == 0 ?
			RMT_CRED_ENVIRONMENT : RMT_CRED_AWS_FILE;
	}
	if (out->credential_source != RMT_CRED_NONE)
	{
		out->config.key_id = out->key_id;
		out->config.secret = out->secret;
		if (out->session_token[0] != '\0')
			out->config.session_token = out->session_token;
	}

	if (out->config.region == NULL)
	{
		if (aws.region[0] != '\0')
		{
			strcpy(out->region, aws.region);
			out->config.region = out->region;
		}
		else if (in->url->scheme == RMT_SCHEME_GCS)
			out->config.region = "auto";
	}
	if (out->config.endpoint == NULL && aws.endpoint_url[0] != '\0')
	{
		st = set_endpoint(out, aws.endpoint_url, "AWS_ENDPOINT_URL", errmsg, errlen);
		if (st != RMT_OK)
			return st;
	}
	if (out->config.endpoint != NULL && strchr(out->config.endpoint, '/') != NULL)
		return fail(errmsg, errlen, RMT_INVALID_URL,
					"the endpoint of an S3-compatible store has no path");
	return RMT_OK;
}

/* The fields of a connection string, for Azure. */
static RmtStatus
apply_connection_string(RmtSettings *out, const char *cs, const char *what,
						bool set_endpoint_too, char *errmsg, size_t errlen)
{
	char		buf[512];
	bool		too_long = false;
	bool		got;

	got = rmt_connection_string_field(cs, "AccountName", out->account_name,
									  sizeof(out->account_name), &too_long);
	if (!too_long && got)
		out->config.account_name = out->account_name;
	if (!too_long &&
		rmt_connection_string_field(cs, "AccountKey", out->account_key,
									sizeof(out->account_key), &too_long))
		out->config.account_key = out->account_key;
	if (!too_long &&
		rmt_connection_string_field(cs, "SharedAccessSignature", out->sas_token,
									sizeof(out->sas_token), &too_long))
		out->config.sas_token = out->sas_token[0] == '?' ? out->sas_token + 1 : out->sas_token;
	if (too_long)
		return fail(errmsg, errlen, RMT_TOO_LONG, "a field of %s is too long", what);
	if (!set_endpoint_too)
		return RMT_OK;

	if (rmt_connection_string_field(cs, "DefaultEndpointsProtocol", buf, sizeof(buf), &too_long))
		out->config.use_ssl = strcasecmp(buf, "http") != 0;
	if (rmt_connection_string_field(cs, "BlobEndpoint", buf, sizeof(buf), &too_long))
	{
		char		label[96];

		snprintf(label, sizeof(label), "BlobEndpoint of %s", what);
		return set_endpoint(out, buf, label, errmsg, errlen);
	}
	if (rmt_connection_string_field(cs, "EndpointSuffix", buf, sizeof(buf), &too_long) &&
		out->config.account_name != NULL)
	{
		if (snprintf(out->endpoint, sizeof(out->endpoint), "%s.blob.%s",
					 out->config.account_name, buf) >= (int) sizeof(out->endpoint))
			return fail(errmsg, errlen, RMT_TOO_LONG, "EndpointSuffix of %s is too long", what);
		out->config.endpoint = out->endpoint;
	}
	if (too_long)
		return fail(errmsg, errlen, RMT_TOO_LONG, "a field of %s is too long", what);
	return RMT_OK;
}

static RmtStatus
resolve_azure(const RmtSettingsInput *in, RmtSettings *out, char *errmsg, size_t errlen)
{
	const char *cs = option(in->mapping, in->nmapping, "connection_string");
	const char *name = option(in->mapping, in->nmapping, "account_name");
	const char *key = option(in->mapping, in->nmapping, "account_key");
	const char *sas = option(in->mapping, in->nmapping, "sas_token");
	const char *env_name = in->lookup ? in->lookup("AZURE_STORAGE_ACCOUNT", in->lookup_arg) : NULL;
	const char *env_key = in->lookup ? in->lookup("AZURE_STORAGE_KEY", in->lookup_arg) : NULL;
	const char *env_sas = in->lookup ? in->lookup("AZURE_STORAGE_SAS_TOKEN", in->lookup_arg) : NULL;
	const char *env_cs = in->lookup ? in->lookup("AZURE_STORAGE_CONNECTION_STRING", in->lookup_arg) : NULL;
	bool		server_endpoint = out->config.endpoint != NULL;
	RmtStatus	st;

	if (cs != NULL || key != NULL || sas != NULL)
	{
		out->credential_source = RMT_CRED_USER_MAPPING;
		if (cs != NULL)
		{
			st = apply_connection_string(out, cs, "the user mapping's connection_string",
										 !server_endpoint, errmsg, errlen);
			if (st != RMT_OK)
				return st;
		}
		if (key != NULL)
		{
			if (!copy(out->account_key, sizeof(out->account_key), key))
				return fail(errmsg, errlen, RMT_TOO_LONG, "account_key is too long");
			out->config.account_key = out->account_key;
		}
		if (sas != NULL)
		{
			if (!copy(out->sas_token, sizeof(out->sas_token), sas[0] == '?' ? sas + 1 : sas))
				return fail(errmsg, errlen, RMT_TOO_LONG, "sas_token is too long");
			out->config.sas_token = out->sas_token;
		}
	}
	else if (env_cs != NULL)
	{
		out->credential_source = RMT_CRED_ENVIRONMENT;
		st = apply_connection_string(out, env_cs, "AZURE_STORAGE_CONNECTION_STRING",
									 !server_endpoint, errmsg, errlen);
		if (st != RMT_OK)
			return st;
	}
	else if (env_key != NULL || env_sas != NULL)
	{
		out->credential_source = RMT_CRED_ENVIRONMENT;
		if (env_name != NULL && name == NULL)
		{
			if (!copy(out->account_name, sizeof(out->account_name), env_name))
				return fail(errmsg, errlen, RMT_TOO_LONG, "AZURE_STORAGE_ACCOUNT is too long");
			out->config.account_name = out->account_name;
		}
		if (env_key != NULL)
		{
			if (!copy(out->account_key, sizeof(out->account_key), env_key))
				return fail(errmsg, errlen, RMT_TOO_LONG, "AZURE_STORAGE_KEY is too long");
			out->config.account_key = out->account_key;
		}
		else
		{
			if (!copy(out->sas_token, sizeof(out->sas_token), env_sas[0] == '?' ? env_sas + 1 : env_sas))
				return fail(errmsg, errlen, RMT_TOO_LONG, "AZURE_STORAGE_SAS_TOKEN is too long");
			out->config.sas_token = out->sas_token;
		}
	}
	else if (env_name != NULL && name == NULL)
	{
		/* an account for anonymous reads of public containers */
		if (!copy(out->account_name, sizeof(out->account_name), env_name))
			return fail(errmsg, errlen, RMT_TOO_LONG, "AZURE_STORAGE_ACCOUNT is too long");
		out->config.account_name = out->account_name;
	}

	/* the mapping's account name names the account whatever the source */
	if (name != NULL)
	{
		if (!copy(out->account_name, sizeof(out->account_name), name))
			return fail(errmsg, errlen, RMT_TOO_LONG, "account_name is too long");
		out->config.account_name = out->account_name;
	}
	return RMT_OK;
}

/* A whole decimal number in [min, max], nothing around it. */
static bool
parse_count(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t	v = 0;

	if (text[0] == '\0')
		return false;
	for (const char *p = text; *p; p++)
	{
		if (*p < '0' || *p > '9' || v > max)
			return false;
		v = v * 10 + (uint64_t) (*p - '0');
	}
	if (v < min || v > max)
		return false;
	*out = v;
	return true;
}

RmtStatus
rmt_settings_resolve(const RmtSettingsInput *in, RmtSettings *out,
					 char *errmsg, size_t errlen)
{
	const char *endpoint = option(in->server, in->nserver, "endpoint");
	const char *region = option(in->server, in->nserver, "region");
	const char *url_style = option(in->server, in->nserver, "url_style");
	const char *use_ssl = option(in->server, in->nserver, "use_ssl");
	const char *verify_tls = option(in->server, in->nserver, "verify_tls");
	const char *ca_file = option(in->server, in->nserver, "ca_file");
	const char *list_page_size = option(in->server, in->nserver, "list_page_size");
	const char *coalesce_gap = option(in->server, in->nserver, "coalesce_gap");
	const char *max_connections = option(in->server, in->nserver, "max_connections");
	uint64_t	n;
	RmtStatus	st;

	memset(out, 0, sizeof(*out));
	rmt_store_config_init(&out->config);

	/* the server's options */
	if (endpoint != NULL &&
		(st = set_endpoint(out, endpoint, "option \"endpoint\"", errmsg, errlen)) != RMT_OK)
		return st;
	if (region != NULL)
	{
		if (!copy(out->region, sizeof(out->region), region))
			return fail(errmsg, errlen, RMT_TOO_LONG, "option \"region\" is too long");
		out->config.region = out->region;
	}
	if (url_style != NULL)
	{
		if (strcasecmp(url_style, "vhost") == 0)
			out->config.url_style = RMT_URL_STYLE_VHOST;
		else if (strcasecmp(url_style, "path") == 0)
			out->config.url_style = RMT_URL_STYLE_PATH;
		else
			return fail(errmsg, errlen, RMT_INVALID_URL,
						"option \"url_style\" is \"vhost\" or \"path\"");
	}
	if (use_ssl != NULL)
	{
		int			b = rmt_parse_bool(use_ssl);

		if (b < 0)
			return fail(errmsg, errlen, RMT_INVALID_URL, "option \"use_ssl\" is a boolean");
		out->config.use_ssl = b == 1;
	}
	if (verify_tls != NULL)
	{
		int			b = rmt_parse_bool(verify_tls);

		if (b < 0)
			return fail(errmsg, errlen, RMT_INVALID_URL, "option \"verify_tls\" is a boolean");
		out->config.verify_tls = b == 1;
	}
	if (ca_file != NULL)
	{
		if (!copy(out->ca_file, sizeof(out->ca_file), ca_file))
			return fail(errmsg, errlen, RMT_TOO_LONG, "option \"ca_file\" is too long");
		out->config.ca_file = out->ca_file;
	}

	/* how requests are shaped */
	if (list_page_size != NULL)
	{
		if (!parse_count(list_page_size, 1, 1000, &n))
			return fail(errmsg, errlen, RMT_INVALID_URL,
						"option \"list_page_size\" is a number of keys from 1 to 1000");
		out->config.list_page_size = (int) n;
	}
	if (coalesce_gap != NULL)
	{
		if (!parse_count(coalesce_gap, 0, UINT64_C(1) << 30, &n))
			return fail(errmsg, errlen, RMT_INVALID_URL,
						"option \"coalesce_gap\" is a number of bytes from 0 (adaptive) to 1073741824");
		out->config.coalesce_gap = n;
	}
	if (max_connections != NULL)
	{
		if (!parse_count(max_connections, 1, 256, &n))
			return fail(errmsg, errlen, RMT_INVALID_URL,
						"option \"max_connections\" is a number from 1 to 256");
		out->config.max_connections = (int) n;
	}

	/* credentials and what the environment still adds */
	switch (in->url->scheme)
	{
		case RMT_SCHEME_S3:
		case RMT_SCHEME_GCS:
			st = resolve_aws(in, out, errmsg, errlen);
			break;
		case RMT_SCHEME_AZURE:
			st = resolve_azure(in, out, errmsg, errlen);
			break;
		default:
			st = RMT_OK;		/* http(s): anonymous, the URL names the host */
			break;
	}
	if (st != RMT_OK)
		return st;
	/* an explicit use_ssl wins over the endpoint's or connection string's */
	if (use_ssl != NULL)
		out->config.use_ssl = rmt_parse_bool(use_ssl) == 1;

	/* link-local peers only where a superuser's server sends the request */
	if (in->endpoint_trusted && endpoint != NULL)
	{
		if (in->url->scheme == RMT_SCHEME_HTTP || in->url->scheme == RMT_SCHEME_HTTPS)
			out->config.allow_link_local = endpoint_names_host(out->endpoint, in->url);
		else
			out->config.allow_link_local = out->config.endpoint == out->endpoint;
	}
	return RMT_OK;
}
