/*
 * test_remote_settings.c: the merge of a store client's settings
 * (src/remote/settings.c): server options, then the user mapping, then the
 * environment, field by field; Azure connection strings; endpoint checks;
 * when link-local peers are allowed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remote/settings.h"
#include "fake_env.h"
#include "unit.h"

static bool
streq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static RmtUrl
url_of(const char *text)
{
	RmtUrl		url;
	char		msg[128];

	if (rmt_url_parse(text, &url, msg, sizeof(msg)) != RMT_OK)
	{
		fprintf(stderr, "bad test URL %s: %s\n", text, msg);
		exit(2);
	}
	return url;
}

static RmtStatus
resolve(const char *url_text, const RmtOption *server, int nserver,
		const RmtOption *mapping, int nmapping, FakeEnv *env, bool trusted,
		RmtSettings *out, char *msg, size_t msglen)
{
	RmtUrl		url = url_of(url_text);
	RmtSettingsInput in = {
		.url = &url, .server = server, .nserver = nserver,
		.mapping = mapping, .nmapping = nmapping,
		.endpoint_trusted = trusted, .lookup = env ? fake_getenv : NULL,
		.lookup_arg = env
	};

	msg[0] = '\0';
	return rmt_settings_resolve(&in, out, msg, msglen);
}

/* Nothing set anywhere: the public service, anonymous, TLS verified. */
static void
test_defaults(void)
{
	RmtSettings s;
	char		msg[200];
	FakeEnv		env = {0};

	UNIT_CHECK(resolve("s3://b/k", NULL, 0, NULL, 0, &env, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(s.config.endpoint == NULL);
	UNIT_CHECK(s.config.region == NULL);
	UNIT_CHECK(s.config.key_id == NULL && s.config.secret == NULL);
	UNIT_CHECK(s.config.use_ssl && s.config.verify_tls && !s.config.allow_link_local);
	UNIT_CHECK(s.config.url_style == RMT_URL_STYLE_DEFAULT);
	UNIT_CHECK(s.credential_source == RMT_CRED_NONE);

	/* Google's S3-compatible API signs with region "auto" */
	UNIT_CHECK(resolve("gs://b/k", NULL, 0, NULL, 0, &env, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(streq(s.config.region, "auto"));
}

/* Server options, then the user mapping, then the environment. */
static void
test_merge_order(void)
{
	RmtSettings s;
	char		msg[200];
	FakeEnv		env = {0};
	RmtOption	server[] = {
		{"endpoint", "http://minio.local:9000/"}, {"region", "eu-central-1"},
		{"url_style", "vhost"}, {"verify_tls", "off"}, {"ca_file", "/etc/ca.pem"}
	};
	RmtOption	mapping[] = {
		{"key_id", "MAPKEY"}, {"secret", "mapsecret"}, {"session_token", "maptoken"}
	};

	fake_env_set(&env, "AWS_ACCESS_KEY_ID", "ENVKEY");
	fake_env_set(&env, "AWS_SECRET_ACCESS_KEY", "envsecret");
	fake_env_set(&env, "AWS_SESSION_TOKEN", "envtoken");
	fake_env_set(&env, "AWS_REGION", "us-west-2");
	fake_env_set(&env, "AWS_ENDPOINT_URL", "https://env.example:443");

	/* every field from the server and the mapping: the environment unused */
	UNIT_CHECK(resolve("s3://b/k", server, 5, mapping, 3, &env, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(streq(s.config.endpoint, "minio.local:9000"));
	UNIT_CHECK(!s.config.use_ssl);	/* from the endpoint's http:// */
	UNIT_CHECK(streq(s.config.region, "eu-central-1"));
	UNIT_CHECK(s.config.url_style == RMT_URL_STYLE_VHOST);
	UNIT_CHECK(!s.config.verify_tls);
	UNIT_CHECK(streq(s.config.ca_file, "/etc/ca.pem"));
	UNIT_CHECK(streq(s.config.key_id, "MAPKEY"));
	UNIT_CHECK(streq(s.config.secret, "mapsecret"));
	UNIT_CHECK(streq(s.config.session_token, "maptoken"));
	UNIT_CHECK(s.credential_source == RMT_CRED_USER_MAPPING);

	/* no mapping: the environment's credentials, the server's endpoint */
	UNIT_CHECK(resolve("s3://b/k", server, 5, NULL, 0, &env, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(streq(s.config.key_id, "ENVKEY"));
	UNIT_CHECK(streq(s.config.secret, "envsecret"));
	UNIT_CHECK(streq(s.config.session_token, "envtoken"));
	UNIT_CHECK(s.credential_source == RMT_CRED_ENVIRONMENT);
	UNIT_CHECK(streq(s.config.endpoint, "minio.local:9000"));
	UNIT_CHECK(streq(s.config.region, "eu-central-1"));

	/* no server options: the environment's region and endpoint too */
	UNIT_CHECK(resolve("s3://b/k", NULL, 0, mapping, 2, &env, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(streq(s.config.key_id, "MAPKEY"));
	/* the mapping gave no token: the environment's is not mixed in */
	UNIT_CHECK(s.config.session_token == NULL);
	UNIT_CHECK(streq(s.config.region, "us-west-2"));
	UNIT_CHECK(streq(s.config.endpoint, "env.example:443"));
	UNIT_CHECK(s.config.use_ssl);

	/* an explicit use_ssl wins over the endpoint's scheme */
	{
		RmtOption	srv[] = {{"endpoint", "http://minio.local:9000"}, {"use_ssl", "true"}};

		UNIT_CHECK(resolve("s3://b/k", srv, 2, NULL, 0, NULL, false, &s, msg, sizeof(msg)) == RMT_OK);
		UNIT_CHECK(s.config.use_ssl);
	}

	/* http(s) URLs are never signed, whatever the mapping holds */
	UNIT_CHECK(resolve("https://h.example/x.parquet", server, 5, mapping, 3, &env, false, &s,
					   msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(s.config.key_id == NULL && s.config.secret == NULL);
	UNIT_CHECK(streq(s.config.ca_file, "/etc/ca.pem"));
}

/* The shared credentials file is the last source of keys. */
static void
test_aws_file(void)
{
	char		dir[] = "/tmp/pf-settings.XXXXXX";
	char		path[256];
	FILE	   *f;
	RmtSettings s;
	char		msg[200];
	FakeEnv		env = {0};

	if (mkdtemp(dir) == NULL)
	{
		UNIT_CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/credentials", dir);
	f = fopen(path, "w");
	fputs("[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = filesecret\n", f);
	fclose(f);
	fake_env_set(&env, "AWS_SHARED_CREDENTIALS_FILE", path);
	UNIT_CHECK(resolve("s3://b/k", NULL, 0, NULL, 0, &env, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(streq(s.config.key_id, "FILEKEY"));
	UNIT_CHECK(s.credential_source == RMT_CRED_AWS_FILE);
	unlink(path);
	rmdir(dir);
}

static void
test_azure(void)
{
	RmtSettings s;
	char		msg[200];
	FakeEnv		env = {0};
	RmtOption	cs[] = {{"connection_string",
		"DefaultEndpointsProtocol=http; AccountName=devacct;AccountKey=a2V5PT0=;"
	"BlobEndpoint=http://127.0.0.1:10000/devacct;"}};
	RmtOption	sas[] = {{"account_name", "acct2"}, {"sas_token", "?sv=2022&sig=ab%3D"}};
	RmtOption	srv[] = {{"endpoint", "https://blob.example/acct"}};

	fake_env_set(&env, "AZURE_STORAGE_ACCOUNT", "envacct");
	fake_env_set(&env, "AZURE_STORAGE_KEY", "ZW52");

	/* the mapping's connection string, every field */
	UNIT_CHECK(resolve("az://c/p.parquet", NULL, 0, cs, 1, &env, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(streq(s.config.account_name, "devacct"));
	UNIT_CHECK(streq(s.config.account_key, "a2V5PT0="));	/* '=' inside a value */
	UNIT_CHECK(streq(s.config.endpoint, "127.0.0.1:10000/devacct"));
	UNIT_CHECK(!s.config.use_ssl);
	UNIT_CHECK(s.credential_source == RMT_CRED_USER_MAPPING);

	/* the server's endpoint wins over BlobEndpoint */
	UNIT_CHECK(resolve("az://c/p.parquet", srv, 1, cs, 1, &env, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(streq(s.config.endpoint, "blob.example/acct"));
	UNIT_CHECK(s.config.use_ssl);

	/* a SAS token, its '?' dropped; no key from the environment mixed in */
	UNIT_CHECK(resolve("az://c/p.parquet", NULL, 0, sas, 2, &env, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(streq(s.config.sas_token, "sv=2022&sig=ab%3D"));
	UNIT_CHECK(s.config.account_key == NULL);
	UNIT_CHECK(streq(s.config.account_name, "acct2"));

	/* no mapping: account and key from the environment */
	UNIT_CHECK(resolve("az://c/p.parquet", NULL, 0, NULL, 0, &env, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(streq(s.config.account_name, "envacct"));
	UNIT_CHECK(streq(s.config.account_key, "ZW52"));
	UNIT_CHECK(s.credential_source == RMT_CRED_ENVIRONMENT);

	/* the environment's connection string comes before account + key */
	fake_env_set(&env, "AZURE_STORAGE_CONNECTION_STRING",
			"AccountName=csacct;SharedAccessSignature=sv=1&sig=x;EndpointSuffix=core.chinacloudapi.cn");
	UNIT_CHECK(resolve("az://c/p.parquet", NULL, 0, NULL, 0, &env, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(streq(s.config.account_name, "csacct"));
	UNIT_CHECK(streq(s.config.sas_token, "sv=1&sig=x"));
	UNIT_CHECK(s.config.account_key == NULL);
	UNIT_CHECK(streq(s.config.endpoint, "csacct.blob.core.chinacloudapi.cn"));
}

static void
test_connection_string(void)
{
	char		v[8];
	bool		too_long;

	UNIT_CHECK(rmt_connection_string_field("a=1;accountname=x", "AccountName", v, sizeof(v), &too_long));
	UNIT_CHECK(strcmp(v, "x") == 0);
	UNIT_CHECK(!rmt_connection_string_field("AccountNameX=1", "AccountName", v, sizeof(v), &too_long));
	UNIT_CHECK(!too_long);
	UNIT_CHECK(!rmt_connection_string_field("AccountKey=123456789", "AccountKey", v, sizeof(v), &too_long));
	UNIT_CHECK(too_long);
}

static void
test_endpoint_parse(void)
{
	char		hp[64];
	char		msg[200];
	int			ssl;

	UNIT_CHECK(rmt_endpoint_parse("127.0.0.1:9000", hp, sizeof(hp), &ssl, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(strcmp(hp, "127.0.0.1:9000") == 0 && ssl == -1);
	UNIT_CHECK(rmt_endpoint_parse("HTTPS://r2.example//", hp, sizeof(hp), &ssl, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(strcmp(hp, "r2.example") == 0 && ssl == 1);
	UNIT_CHECK(rmt_endpoint_parse("http://h:1/acct/", hp, sizeof(hp), &ssl, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(strcmp(hp, "h:1/acct") == 0 && ssl == 0);
	/* credentials, other schemes, queries, blanks, no host */
	UNIT_CHECK(rmt_endpoint_parse("http://AKID:secret@h:1", hp, sizeof(hp), &ssl, msg, sizeof(msg)) == RMT_INVALID_URL);
	UNIT_CHECK(strstr(msg, "secret") == NULL && strstr(msg, "credentials") != NULL);
	UNIT_CHECK(rmt_endpoint_parse("user@h", hp, sizeof(hp), &ssl, msg, sizeof(msg)) == RMT_INVALID_URL);
	UNIT_CHECK(rmt_endpoint_parse("ftp://h", hp, sizeof(hp), &ssl, msg, sizeof(msg)) == RMT_INVALID_URL);
	UNIT_CHECK(rmt_endpoint_parse("h/?x=1", hp, sizeof(hp), &ssl, msg, sizeof(msg)) == RMT_INVALID_URL);
	UNIT_CHECK(rmt_endpoint_parse("h x", hp, sizeof(hp), &ssl, msg, sizeof(msg)) == RMT_INVALID_URL);
	UNIT_CHECK(rmt_endpoint_parse("http://", hp, sizeof(hp), &ssl, msg, sizeof(msg)) == RMT_INVALID_URL);
	UNIT_CHECK(rmt_endpoint_parse(":90", hp, sizeof(hp), &ssl, msg, sizeof(msg)) == RMT_INVALID_URL);
	UNIT_CHECK(rmt_endpoint_parse("a-very-long-host.example", hp, 8, &ssl, msg, sizeof(msg)) == RMT_TOO_LONG);
}

/* Bad values found at resolution name the option, never the value. */
static void
test_bad_values(void)
{
	RmtSettings s;
	char		msg[200];
	RmtOption	style[] = {{"url_style", "virtual"}};
	RmtOption	path_ep[] = {{"endpoint", "minio:9000/sub"}};
	RmtOption	ep_secret[] = {{"endpoint", "http://K:topsecret@h"}};

	UNIT_CHECK(resolve("s3://b/k", style, 1, NULL, 0, NULL, false, &s, msg, sizeof(msg)) == RMT_INVALID_URL);
	UNIT_CHECK(strstr(msg, "url_style") != NULL);
	UNIT_CHECK(resolve("s3://b/k", path_ep, 1, NULL, 0, NULL, false, &s, msg, sizeof(msg)) == RMT_INVALID_URL);
	UNIT_CHECK(strstr(msg, "no path") != NULL);
	/* Azure endpoints keep their path (the emulator's account) */
	UNIT_CHECK(resolve("az://c/k", path_ep, 1, NULL, 0, NULL, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(resolve("s3://b/k", ep_secret, 1, NULL, 0, NULL, false, &s, msg, sizeof(msg)) == RMT_INVALID_URL);
	UNIT_CHECK(strstr(msg, "topsecret") == NULL);
}

/* The request-shaping options: whole numbers in range, else refused. */
static void
test_shaping_options(void)
{
	RmtSettings s;
	char		msg[200];
	RmtOption	good[] = {{"list_page_size", "5"}, {"coalesce_gap", "65536"},
	{"max_connections", "4"}};
	RmtOption	adaptive[] = {{"coalesce_gap", "0"}};
	const char *bad[][2] = {
		{"list_page_size", "0"}, {"list_page_size", "1001"}, {"list_page_size", ""},
		{"coalesce_gap", "-1"}, {"coalesce_gap", "1MB"}, {"coalesce_gap", "1073741825"},
		{"coalesce_gap", "99999999999999999999999"}, {"max_connections", "0"},
		{"max_connections", "257"}, {"max_connections", " 4"}
	};

	UNIT_CHECK(resolve("s3://b/k", NULL, 0, NULL, 0, NULL, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(s.config.list_page_size == 0 && s.config.coalesce_gap == 0 &&
			   s.config.max_connections == 0);
	UNIT_CHECK(resolve("az://c/k", good, 3, NULL, 0, NULL, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(s.config.list_page_size == 5 && s.config.coalesce_gap == 65536 &&
			   s.config.max_connections == 4);
	UNIT_CHECK(resolve("s3://b/k", adaptive, 1, NULL, 0, NULL, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(s.config.coalesce_gap == 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		RmtOption	o = {bad[i][0], bad[i][1]};

		UNIT_CHECKF(resolve("s3://b/k", &o, 1, NULL, 0, NULL, false, &s, msg, sizeof(msg)) == RMT_INVALID_URL,
					"%s '%s' accepted", bad[i][0], bad[i][1]);
		UNIT_CHECK(strstr(msg, bad[i][0]) != NULL);
	}
}

/* Link-local peers: only a superuser's server endpoint, only its host. */
static void
test_link_local(void)
{
	RmtSettings s;
	char		msg[200];
	RmtOption	srv[] = {{"endpoint", "http://169.254.169.254:80"}};
	FakeEnv		env = {0};

	UNIT_CHECK(resolve("s3://b/k", srv, 1, NULL, 0, NULL, true, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(s.config.allow_link_local);
	/* a server owned by someone else: refused by the client */
	UNIT_CHECK(resolve("s3://b/k", srv, 1, NULL, 0, NULL, false, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(!s.config.allow_link_local);
	/* an http URL to the endpoint's host and port, and to another */
	UNIT_CHECK(resolve("http://169.254.169.254:80/latest", srv, 1, NULL, 0, NULL, true, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(s.config.allow_link_local);
	UNIT_CHECK(resolve("http://169.254.170.2/creds", srv, 1, NULL, 0, NULL, true, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(!s.config.allow_link_local);
	/* an endpoint from the environment is not a superuser's server option */
	fake_env_set(&env, "AWS_ENDPOINT_URL", "http://169.254.169.254");
	UNIT_CHECK(resolve("s3://b/k", NULL, 0, NULL, 0, &env, true, &s, msg, sizeof(msg)) == RMT_OK);
	UNIT_CHECK(!s.config.allow_link_local);
}

int
main(void)
{
	test_defaults();
	test_merge_order();
	test_aws_file();
	test_azure();
	test_connection_string();
	test_endpoint_parse();
	test_bad_values();
	test_shaping_options();
	test_link_local();
	UNIT_MAIN_END("test_remote_settings");
}
