/*-------------------------------------------------------------------------
 *
 * credentials.c
 *	  The AWS credential and settings chain: environment, then the shared
 *	  credentials and config files.
 *
 * IDENTIFICATION
 *	  src/remote/credentials.c
 *
 *-------------------------------------------------------------------------
 */
#include "remote/credentials.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FILE (1024 * 1024)	/* larger shared files are not read */

static bool
set_field(char *field, size_t cap, const char *value, bool *too_long)
{
	size_t		n = strlen(value);

	if (n >= cap)
	{
		*too_long = true;
		return false;
	}
	memcpy(field, value, n + 1);
	return true;
}

/* Trim [*s, *e) of blanks on both ends. */
static void
trim(const char **s, const char **e)
{
	while (*s < *e && isspace((unsigned char) **s))
		(*s)++;
	while (*e > *s && isspace((unsigned char) (*e)[-1]))
		(*e)--;
}

bool
rmt_ini_lookup(const char *text, size_t len, const char *section,
			   const char *key, char *value, size_t cap, bool *too_long)
{
	const char *p = text;
	const char *end = text + len;
	bool		in_section = false;

	while (p < end)
	{
		const char *eol = memchr(p, '\n', (size_t) (end - p));
		const char *ls = p;
		const char *le = eol ? eol : end;

		p = eol ? eol + 1 : end;
		trim(&ls, &le);
		if (ls == le || *ls == '#' || *ls == ';')
			continue;
		if (*ls == '[')
		{
			const char *ns = ls + 1;
			const char *ne = memchr(ns, ']', (size_t) (le - ns));

			if (!ne)
				continue;
			trim(&ns, &ne);
			in_section = (size_t) (ne - ns) == strlen(section) &&
				strncmp(ns, section, (size_t) (ne - ns)) == 0;
			continue;
		}
		if (in_section)
		{
			const char *eq = memchr(ls, '=', (size_t) (le - ls));
			const char *ks = ls;
			const char *ke;
			const char *vs;
			const char *ve = le;
			size_t		vlen;

			if (!eq)
				continue;
			ke = eq;
			vs = eq + 1;
			trim(&ks, &ke);
			trim(&vs, &ve);
			if ((size_t) (ke - ks) != strlen(key) ||
				strncasecmp(ks, key, (size_t) (ke - ks)) != 0)
				continue;
			vlen = (size_t) (ve - vs);
			if (vlen >= cap)
			{
				*too_long = true;
				return false;
			}
			memcpy(value, vs, vlen);
			value[vlen] = '\0';
			return true;
		}
	}
	return false;
}

/* The whole file (NUL-terminated, malloc'd) or NULL. */
static char *
slurp(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "r");
	char	   *buf;
	size_t		n;

	if (!f)
		return NULL;
	buf = malloc(MAX_FILE + 1);
	if (!buf)
	{
		fclose(f);
		return NULL;
	}
	n = fread(buf, 1, MAX_FILE, f);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static const char *
env(RmtGetenv lookup, void *arg, const char *name)
{
	const char *v = lookup(name, arg);

	return v && v[0] ? v : NULL;
}

/* A shared file's path: the variable, else ~/.aws/<name>. */
static bool
shared_file(RmtGetenv lookup, void *arg, const char *var, const char *name,
			char *path, size_t cap)
{
	const char *v = env(lookup, arg, var);
	const char *home;

	if (v)
		return (size_t) snprintf(path, cap, "%s", v) < cap;
	home = env(lookup, arg, "HOME");
	if (!home)
		return false;
	return (size_t) snprintf(path, cap, "%s/.aws/%s", home, name) < cap;
}

RmtStatus
rmt_aws_settings_resolve(RmtGetenv lookup, void *arg, RmtAwsSettings *s)
{
	const char *profile = env(lookup, arg, "AWS_PROFILE");
	const char *v;
	bool		too_long = false;
	char		path[4096];
	char		config_section[300];
	char	   *text;
	size_t		len;

	memset(s, 0, sizeof(*s));
	if (!profile)
		profile = "default";
	if (strcmp(profile, "default") == 0)
		snprintf(config_section, sizeof(config_section), "default");
	else
		snprintf(config_section, sizeof(config_section), "profile %s", profile);

	/* 1. the environment: key id and secret come together or not at all */
	if ((v = env(lookup, arg, "AWS_ACCESS_KEY_ID")) &&
		env(lookup, arg, "AWS_SECRET_ACCESS_KEY"))
	{
		set_field(s->key_id, sizeof(s->key_id), v, &too_long);
		set_field(s->secret, sizeof(s->secret),
				  env(lookup, arg, "AWS_SECRET_ACCESS_KEY"), &too_long);
		if ((v = env(lookup, arg, "AWS_SESSION_TOKEN")))
			set_field(s->session_token, sizeof(s->session_token), v, &too_long);
		snprintf(s->source, sizeof(s->source), "environment");
	}
	if ((v = env(lookup, arg, "AWS_REGION")) ||
		(v = env(lookup, arg, "AWS_DEFAULT_REGION")))
		set_field(s->region, sizeof(s->region), v, &too_long);
	if ((v = env(lookup, arg, "AWS_ENDPOINT_URL")))
		set_field(s->endpoint_url, sizeof(s->endpoint_url), v, &too_long);

	/* 2. the config file: region and endpoint of the profile */
	if (shared_file(lookup, arg, "AWS_CONFIG_FILE", "config", path, sizeof(path)) &&
		(text = slurp(path, &len)))
	{
		if (!s->region[0])
			rmt_ini_lookup(text, len, config_section, "region", s->region,
						   sizeof(s->region), &too_long);
		if (!s->endpoint_url[0])
			rmt_ini_lookup(text, len, config_section, "endpoint_url",
						   s->endpoint_url, sizeof(s->endpoint_url), &too_long);
		free(text);
	}

	/* 3. the credentials file: keys (and, as some tools write, the region) */
	if (shared_file(lookup, arg, "AWS_SHARED_CREDENTIALS_FILE", "credentials",
					path, sizeof(path)) &&
		(text = slurp(path, &len)))
	{
		if (!s->key_id[0] &&
			rmt_ini_lookup(text, len, profile, "aws_access_key_id", s->key_id,
						   sizeof(s->key_id), &too_long))
		{
			if (!rmt_ini_lookup(text, len, profile, "aws_secret_access_key",
								s->secret, sizeof(s->secret), &too_long))
				s->key_id[0] = '\0';	/* half a key pair is none */
			else
			{
				rmt_ini_lookup(text, len, profile, "aws_session_token",
							   s->session_token, sizeof(s->session_token),
							   &too_long);
				snprintf(s->source, sizeof(s->source), "credentials file");
			}
		}
		if (!s->region[0])
			rmt_ini_lookup(text, len, profile, "region", s->region,
						   sizeof(s->region), &too_long);
		/* the secret's bytes do not outlive their use here */
		memset(text, 0, len);
		free(text);
	}
	return too_long ? RMT_TOO_LONG : RMT_OK;
}
