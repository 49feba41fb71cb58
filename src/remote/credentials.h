/*-------------------------------------------------------------------------
 *
 * credentials.h
 *	  The standard places AWS tools look for credentials and settings,
 *	  read the way the AWS CLI and SDKs read them.
 *
 * Order (the first that gives a key id wins, fields are not mixed across
 * sources): the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN), then the shared credentials file
 * (AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials) for the profile
 * AWS_PROFILE (else "default").  The region and endpoint come from
 * AWS_REGION / AWS_DEFAULT_REGION and AWS_ENDPOINT_URL, then from the
 * config file (AWS_CONFIG_FILE or ~/.aws/config: "[default]" or
 * "[profile NAME]" sections), then from the credentials file's section.
 *
 * The environment is read through a caller-supplied lookup so tests can
 * give their own; files are read with stdio.
 *
 * IDENTIFICATION
 *	  src/remote/credentials.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef RMT_CREDENTIALS_H
#define RMT_CREDENTIALS_H

#include "remote/remote.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RmtAwsSettings
{
	char		key_id[128];
	char		secret[256];
	char		session_token[4096];
	char		region[64];
	char		endpoint_url[256];
	char		source[64];		/* where the key came from, for messages:
								 * "environment", "credentials file" */
} RmtAwsSettings;

/* Returns the variable's value or NULL, like getenv(3). */
typedef const char *(*RmtGetenv) (const char *name, void *arg);

/*
 * Fill settings from the chain above.  Fields nobody sets stay "".  Only
 * RMT_TOO_LONG (a value longer than its field) is an error; missing files
 * or keys are not.
 */
extern RmtStatus rmt_aws_settings_resolve(RmtGetenv lookup, void *arg,
										  RmtAwsSettings *settings);

/*
 * Look up key in section of an INI text (the shared files' format: "[name]"
 * headers, "key = value" lines, '#' and ';' comments, keys case-insensitive).
 * Returns true and copies the value when found.
 */
extern bool rmt_ini_lookup(const char *text, size_t len, const char *section,
						   const char *key, char *value, size_t cap,
						   bool *too_long);

#ifdef __cplusplus
}
#endif

#endif							/* RMT_CREDENTIALS_H */
