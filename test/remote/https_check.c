/*
 * https_check.c: the object-store client over HTTPS against nginx on
 * 127.0.0.1 with a certificate from a private CA (test/remote/https.sh
 * makes both), with the settings merged the way the FDW merges a foreign
 * server's options (src/remote/settings.h).
 *
 *   https_check HOST:PORT CA_FILE LOCAL_DIR KEY...
 *
 * nginx serves LOCAL_DIR's KEYs as /test/KEY (so s3://test/KEY through a
 * path-style endpoint reads them too), /redirect/KEY as a 302 to
 * /test/KEY, and /denied/KEY as a 403 with an S3 error body.
 *
 * Checks: with ca_file every KEY's size and bytes (whole file, ranges, the
 * last byte, several pieces at once) match the local file, for https://
 * URLs and for s3:// URLs through the endpoint; without the CA the request
 * fails with a TLS error naming the certificate; verify_tls off reads
 * without it; a redirect is not followed; a signed request that is refused
 * leaves neither the secret nor the key id's signature in the error;
 * cloud metadata addresses are refused without a connection.
 * Prints "https_check: N passed, N failed".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "remote/remote.h"
#include "remote/settings.h"
#include "remote/store.h"
#include "unit.h"

#define TEST_SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

static const char *endpoint;
static const char *ca_file;

static char *
read_local(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf;
	long		n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t) n + 1);
	if (fread(buf, 1, (size_t) n, f) != (size_t) n)
		n = -1;
	fclose(f);
	*len = (size_t) n;
	return buf;
}

static RmtUrl
url_of(const char *fmt, const char *a, const char *b)
{
	char		text[4096];
	char		msg[128];
	RmtUrl		u;

	snprintf(text, sizeof(text), fmt, a, b);
	if (rmt_url_parse(text, &u, msg, sizeof(msg)) != RMT_OK)
	{
		fprintf(stderr, "bad test URL %s: %s\n", text, msg);
		exit(2);
	}
	return u;
}

/*
 * A client for url with these server options and user mapping, through
 * the same merge the FDW uses (no environment).
 */
static RmtStore *
store_for(const RmtUrl *url, const RmtOption *server, int nserver,
		  const RmtOption *mapping, int nmapping)
{
	RmtSettingsInput in = {
		.url = url, .server = server, .nserver = nserver,
		.mapping = mapping, .nmapping = nmapping
	};
	RmtSettings s;
	RmtStore   *store = NULL;
	RmtError	err;
	char		msg[256];

	if (rmt_settings_resolve(&in, &s, msg, sizeof(msg)) != RMT_OK)
	{
		fprintf(stderr, "settings: %s\n", msg);
		exit(2);
	}
	s.config.max_retries = 1;
	s.config.retry_base_ms = 10;
	s.config.coalesce_gap = 64;
	if (rmt_store_open(&store, &s.config, &pfc_malloc_allocator, &err) != RMT_OK)
	{
		fprintf(stderr, "rmt_store_open: %s\n", err.message);
		exit(2);
	}
	return store;
}

/* Size and bytes of one object against the local file. */
static void
check_object(RmtStore *store, const RmtUrl *url, const char *local, size_t len)
{
	RmtObjectInfo info;
	RmtError	err;
	char	   *buf = malloc(len + 1);
	RmtRange	pieces[3];
	size_t		mid = len / 3;

	UNIT_CHECKF(rmt_store_head(store, url, &info, &err) == RMT_OK, "head %s: %s", url->key, err.message);
	UNIT_CHECKF(info.size == len, "size %zu, want %zu", (size_t) info.size, len);
	UNIT_CHECK(info.etag[0] != '\0');

	memset(buf, 0, len);
	UNIT_CHECKF(rmt_store_read(store, url, 0, len, buf, info.etag, &err) == RMT_OK,
				"read %s: %s", url->key, err.message);
	UNIT_CHECK_MEM(buf, local, len);
	UNIT_CHECK(rmt_store_read(store, url, len - 1, 1, buf, NULL, &err) == RMT_OK);
	UNIT_CHECK(buf[0] == local[len - 1]);
	UNIT_CHECK(rmt_store_read(store, url, mid, mid, buf, NULL, &err) == RMT_OK);
	UNIT_CHECK_MEM(buf, local + mid, mid);

	/* the footer, the start and a middle piece at once */
	memset(buf, 0, len);
	pieces[0] = (RmtRange) {len - 8, 8, buf + len - 8};
	pieces[1] = (RmtRange) {0, 4, buf};
	pieces[2] = (RmtRange) {mid, 16 < mid ? 16 : mid, buf + mid};
	UNIT_CHECKF(rmt_store_read_many(store, url, pieces, 3, info.etag, &err) == RMT_OK,
				"read_many %s: %s", url->key, err.message);
	UNIT_CHECK_MEM(buf + len - 8, local + len - 8, 8);
	UNIT_CHECK_MEM(buf, local, 4);
	UNIT_CHECK_MEM(buf + mid, local + mid, pieces[2].len);
	free(buf);
}

int
main(int argc, char **argv)
{
	const char *dir;
	char		https_ep[300];
	RmtError	err;
	RmtObjectInfo info;

	if (argc < 5)
	{
		fprintf(stderr, "usage: https_check HOST:PORT CA_FILE LOCAL_DIR KEY...\n");
		return 2;
	}
	endpoint = argv[1];
	ca_file = argv[2];
	dir = argv[3];
	snprintf(https_ep, sizeof(https_ep), "https://%s", endpoint);
	curl_global_init(CURL_GLOBAL_DEFAULT);

	{
		RmtOption	with_ca[] = {{"ca_file", ca_file}};
		RmtOption	s3_ca[] = {{"endpoint", https_ep}, {"ca_file", ca_file}};
		RmtUrl		first = url_of("https://%s/test/%s", endpoint, argv[4]);
		RmtUrl		s3first = url_of("s3://test/%s%s", argv[4], "");
		RmtStore   *https_store = store_for(&first, with_ca, 1, NULL, 0);
		RmtStore   *s3_store = store_for(&s3first, s3_ca, 2, NULL, 0);

		for (int i = 4; i < argc; i++)
		{
			char		path[4096];
			size_t		len;
			char	   *local;
			RmtUrl		u = url_of("https://%s/test/%s", endpoint, argv[i]);
			RmtUrl		s3u = url_of("s3://test/%s%s", argv[i], "");

			snprintf(path, sizeof(path), "%s/%s", dir, argv[i]);
			local = read_local(path, &len);
			if (local == NULL || len < 16)
			{
				fprintf(stderr, "cannot read %s\n", path);
				return 2;
			}
			check_object(https_store, &u, local, len);
			check_object(s3_store, &s3u, local, len);
			free(local);
		}
		/* the s3:// listing is not nginx's to answer; a missing object is */
		{
			RmtUrl		missing = url_of("https://%s/test/%s", endpoint, "no-such.parquet");

			UNIT_CHECK(rmt_store_head(https_store, &missing, &info, &err) == RMT_NOT_FOUND);
			UNIT_CHECK(err.http_status == 404);
		}
		/* a redirect is an answer, never followed */
		{
			RmtUrl		r = url_of("https://%s/redirect/%s", endpoint, argv[4]);
			char		b[4];

			UNIT_CHECK(rmt_store_read(https_store, &r, 0, 4, b, NULL, &err) != RMT_OK);
			UNIT_CHECKF(err.http_status == 302, "redirect gave HTTP %d", err.http_status);
		}
		rmt_store_close(https_store);
		rmt_store_close(s3_store);
	}

	/* without the CA: a clear TLS error, before any byte of the object */
	{
		RmtUrl		u = url_of("https://%s/test/%s", endpoint, argv[4]);
		RmtStore   *store = store_for(&u, NULL, 0, NULL, 0);
		RmtStatus	st = rmt_store_head(store, &u, &info, &err);

		UNIT_CHECKF(st == RMT_NETWORK_ERROR, "status %s", rmt_status_name(st));
		UNIT_CHECKF(strstr(err.message, "certificate") != NULL ||
					strstr(err.message, "SSL") != NULL,
					"message: %s", err.message);
		UNIT_CHECK(err.http_status == 0);
		rmt_store_close(store);
	}
	/* verify_tls off: read without the CA (the user's explicit choice) */
	{
		RmtOption	no_verify[] = {{"verify_tls", "off"}};
		RmtUrl		u = url_of("https://%s/test/%s", endpoint, argv[4]);
		RmtStore   *store = store_for(&u, no_verify, 1, NULL, 0);

		UNIT_CHECK(rmt_store_head(store, &u, &info, &err) == RMT_OK);
		rmt_store_close(store);
	}
	/* a refused signed request: the store's code, never the secret */
	{
		RmtOption	server[] = {{"endpoint", https_ep}, {"ca_file", ca_file}};
		RmtOption	mapping[] = {{"key_id", "AKIDEXAMPLE"}, {"secret", TEST_SECRET}};
		RmtUrl		u = url_of("s3://denied/%s%s", argv[4], "");
		RmtStore   *store = store_for(&u, server, 2, mapping, 2);
		char		b[4];
		RmtStatus	st = rmt_store_read(store, &u, 0, 4, b, NULL, &err);

		UNIT_CHECKF(st == RMT_ACCESS_DENIED, "status %s", rmt_status_name(st));
		UNIT_CHECK(err.http_status == 403);
		UNIT_CHECKF(strcmp(err.code, "AccessDenied") == 0, "code %s", err.code);
		UNIT_CHECK(strstr(err.message, TEST_SECRET) == NULL);
		UNIT_CHECK(strstr(err.code, TEST_SECRET) == NULL);
		UNIT_CHECK(strstr(err.message, "Signature=") == NULL);
		rmt_store_close(store);
	}
	/* metadata addresses: refused before a socket is opened */
	{
		static const char *const metadata[] = {
			"http://169.254.169.254/latest/meta-data/",
			"http://100.100.100.200/latest/meta-data/",
			"http://[fd00:ec2::254]/latest/meta-data/",
			"http://[::ffff:169.254.169.254]/latest/meta-data/",
			"http://[fe80::1]:80/x"
		};

		for (int i = 0; i < 5; i++)
		{
			RmtUrl		u = url_of("%s%s", metadata[i], "");
			RmtStore   *store = store_for(&u, NULL, 0, NULL, 0);
			RmtStatus	st = rmt_store_head(store, &u, &info, &err);

			UNIT_CHECKF(st == RMT_FORBIDDEN_ADDRESS, "%s: %s", metadata[i], rmt_status_name(st));
			rmt_store_close(store);
		}
	}
	curl_global_cleanup();
	UNIT_MAIN_END("https_check");
}
