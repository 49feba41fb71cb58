/*
 * test_credentials.c: the AWS settings chain (src/remote/credentials.c):
 * environment first, then the config and credentials files of the profile,
 * with files written into a temporary folder and a fake environment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remote/credentials.h"
#include "fake_env.h"
#include "unit.h"

static void
write_file(const char *path, const char *text)
{
	FILE	   *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static void
test_ini(void)
{
	const char *text =
		"# comment\n[default]\naws_access_key_id = AKID1\n"
		"  AWS_Secret_Access_Key=s1  \n; another\n"
		"[prod]\naws_access_key_id=AKID2\n[profile prod]\nregion = eu-west-1\n";
	char		v[16];
	bool		too_long = false;

	UNIT_CHECK(rmt_ini_lookup(text, strlen(text), "default", "aws_access_key_id", v, sizeof(v), &too_long));
	UNIT_CHECK(strcmp(v, "AKID1") == 0);
	UNIT_CHECK(rmt_ini_lookup(text, strlen(text), "default", "aws_secret_access_key", v, sizeof(v), &too_long));
	UNIT_CHECK(strcmp(v, "s1") == 0);
	UNIT_CHECK(rmt_ini_lookup(text, strlen(text), "prod", "aws_access_key_id", v, sizeof(v), &too_long));
	UNIT_CHECK(strcmp(v, "AKID2") == 0);
	UNIT_CHECK(!rmt_ini_lookup(text, strlen(text), "prod", "region", v, sizeof(v), &too_long));
	UNIT_CHECK(rmt_ini_lookup(text, strlen(text), "profile prod", "region", v, sizeof(v), &too_long));
	UNIT_CHECK(strcmp(v, "eu-west-1") == 0);
	UNIT_CHECK(!rmt_ini_lookup(text, strlen(text), "default", "aws_access_key_id", v, 3, &too_long));
	UNIT_CHECK(too_long);
}

int
main(void)
{
	char		dir[] = "/tmp/pf-cred-XXXXXX";
	char		path[256];
	char		cred[300];
	char		conf[300];
	RmtAwsSettings s;
	FakeEnv		e = {0};

	test_ini();
	UNIT_CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/.aws", dir);
	mkdir(path, 0700);
	snprintf(cred, sizeof(cred), "%s/.aws/credentials", dir);
	snprintf(conf, sizeof(conf), "%s/.aws/config", dir);
	write_file(cred, "[default]\naws_access_key_id=FILEKEY\naws_secret_access_key=FILESECRET\n"
			   "[other]\naws_access_key_id=OTHERKEY\naws_secret_access_key=OTHERSECRET\n"
			   "aws_session_token=TOKEN\n[half]\naws_access_key_id=HALF\n");
	write_file(conf, "[default]\nregion=us-west-2\n[profile other]\nregion=ap-south-1\n"
			   "endpoint_url=http://127.0.0.1:9000\n");

	/* nothing at all: empty settings */
	UNIT_CHECK(rmt_aws_settings_resolve(fake_getenv, &e, &s) == RMT_OK);
	UNIT_CHECK(s.key_id[0] == '\0' && s.region[0] == '\0');

	/* the default profile from the files under HOME */
	fake_env_set(&e, "HOME", dir);
	UNIT_CHECK(rmt_aws_settings_resolve(fake_getenv, &e, &s) == RMT_OK);
	UNIT_CHECK(strcmp(s.key_id, "FILEKEY") == 0 && strcmp(s.secret, "FILESECRET") == 0);
	UNIT_CHECK(strcmp(s.region, "us-west-2") == 0 && s.session_token[0] == '\0');
	UNIT_CHECK(strcmp(s.source, "credentials file") == 0);

	/* AWS_PROFILE picks the section, "[profile NAME]" in config */
	fake_env_set(&e, "AWS_PROFILE", "other");
	UNIT_CHECK(rmt_aws_settings_resolve(fake_getenv, &e, &s) == RMT_OK);
	UNIT_CHECK(strcmp(s.key_id, "OTHERKEY") == 0 && strcmp(s.session_token, "TOKEN") == 0);
	UNIT_CHECK(strcmp(s.region, "ap-south-1") == 0);
	UNIT_CHECK(strcmp(s.endpoint_url, "http://127.0.0.1:9000") == 0);

	/* half a key pair is no key */
	e.values[1] = "half";
	UNIT_CHECK(rmt_aws_settings_resolve(fake_getenv, &e, &s) == RMT_OK);
	UNIT_CHECK(s.key_id[0] == '\0');

	/* the environment wins, key and secret together; region too */
	fake_env_set(&e, "AWS_ACCESS_KEY_ID", "ENVKEY");
	UNIT_CHECK(rmt_aws_settings_resolve(fake_getenv, &e, &s) == RMT_OK);
	UNIT_CHECK(s.key_id[0] == '\0');	/* no secret in the environment */
	fake_env_set(&e, "AWS_SECRET_ACCESS_KEY", "ENVSECRET");
	fake_env_set(&e, "AWS_REGION", "sa-east-1");
	UNIT_CHECK(rmt_aws_settings_resolve(fake_getenv, &e, &s) == RMT_OK);
	UNIT_CHECK(strcmp(s.key_id, "ENVKEY") == 0 && strcmp(s.secret, "ENVSECRET") == 0);
	UNIT_CHECK(strcmp(s.region, "sa-east-1") == 0 && strcmp(s.source, "environment") == 0);

	/* explicit file locations */
	fake_env_set(&e, "AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials");
	UNIT_CHECK(rmt_aws_settings_resolve(fake_getenv, &e, &s) == RMT_OK);
	UNIT_CHECK(strcmp(s.key_id, "ENVKEY") == 0);

	unlink(cred);
	unlink(conf);
	rmdir(path);
	rmdir(dir);
	UNIT_MAIN_END("test_credentials");
}
