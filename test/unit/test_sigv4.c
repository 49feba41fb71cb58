/*
 * test_sigv4.c: AWS Signature Version 4 (src/remote/sigv4.c) against the
 * examples the AWS documentation publishes, and the URL parser
 * (src/remote/url.c).
 *
 * Sources of the expected values:
 *  - S3 API reference, "Signature Calculations for the Authorization Header"
 *    (GET Object with a Range, GET Bucket lifecycle, GET Bucket /
 *    ListObjects): access key AKIAIOSFODNN7EXAMPLE, bucket examplebucket,
 *    20130524T000000Z, us-east-1.
 *  - The Signature Version 4 test suite (aws-sig-v4-test-suite): requests
 *    get-vanilla, get-vanilla-empty-query-key, get-header-value-trim and
 *    get-utf8 with key AKIDEXAMPLE at 20150830T123600Z, service "service".
 */
#include "remote/remote.h"
#include "remote/sigv4.h"
#include "unit.h"

#define S3_KEY "AKIAIOSFODNN7EXAMPLE"
#define S3_SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define SUITE_KEY "AKIDEXAMPLE"
#define SUITE_SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"

static const char *
signature_of(const char *authorization)
{
	const char *s = strstr(authorization, "Signature=");

	return s ? s + 10 : "";
}

static void
test_s3_get_object_range(void)
{
	RmtNameValue headers[] = {
		{"Host", "examplebucket.s3.amazonaws.com"},
		{"Range", "bytes=0-9"},
		{"x-amz-content-sha256", RMT_SHA256_EMPTY},
		{"x-amz-date", "20130524T000000Z"},
	};
	RmtSigV4Request req = {
		.method = "GET", .encoded_path = "/test.txt",
		.headers = headers, .nheaders = 4,
		.payload_sha256 = RMT_SHA256_EMPTY, .amz_date = "20130524T000000Z",
		.region = "us-east-1", .service = "s3",
		.key_id = S3_KEY, .secret = S3_SECRET,
	};
	char		auth[1024];

	UNIT_CHECK(rmt_sigv4_authorization(&req, auth, sizeof(auth)) == RMT_OK);
	UNIT_CHECKF(strcmp(signature_of(auth),
					   "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41") == 0,
				"got %s", auth);
	UNIT_CHECK(strstr(auth, "Credential=" S3_KEY "/20130524/us-east-1/s3/aws4_request,") != NULL);
	UNIT_CHECK(strstr(auth, "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,") != NULL);
}

static void
test_s3_list_objects(void)
{
	RmtNameValue query[] = {{"prefix", "J"}, {"max-keys", "2"}};
	RmtNameValue headers[] = {
		{"Host", "examplebucket.s3.amazonaws.com"},
		{"x-amz-date", "20130524T000000Z"},
		{"x-amz-content-sha256", RMT_SHA256_EMPTY},
	};
	RmtSigV4Request req = {
		.method = "GET", .encoded_path = "/", .query = query, .nquery = 2,
		.headers = headers, .nheaders = 3,
		.payload_sha256 = RMT_SHA256_EMPTY, .amz_date = "20130524T000000Z",
		.region = "us-east-1", .service = "s3",
		.key_id = S3_KEY, .secret = S3_SECRET,
	};
	char		auth[1024];
	char		creq[1024];

	UNIT_CHECK(rmt_sigv4_canonical_request(&req, creq, sizeof(creq)) == RMT_OK);
	UNIT_CHECKF(strncmp(creq, "GET\n/\nmax-keys=2&prefix=J\nhost:", 31) == 0, "got %s", creq);
	UNIT_CHECK(rmt_sigv4_authorization(&req, auth, sizeof(auth)) == RMT_OK);
	UNIT_CHECKF(strcmp(signature_of(auth),
					   "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == 0,
				"got %s", auth);
}

static void
test_s3_bare_query_key(void)
{
	RmtNameValue query[] = {{"lifecycle", ""}};
	RmtNameValue headers[] = {
		{"Host", "examplebucket.s3.amazonaws.com"},
		{"x-amz-date", "20130524T000000Z"},
		{"x-amz-content-sha256", RMT_SHA256_EMPTY},
	};
	RmtSigV4Request req = {
		.method = "GET", .encoded_path = "/", .query = query, .nquery = 1,
		.headers = headers, .nheaders = 3,
		.payload_sha256 = RMT_SHA256_EMPTY, .amz_date = "20130524T000000Z",
		.region = "us-east-1", .service = "s3",
		.key_id = S3_KEY, .secret = S3_SECRET,
	};
	char		auth[1024];

	UNIT_CHECK(rmt_sigv4_authorization(&req, auth, sizeof(auth)) == RMT_OK);
	UNIT_CHECKF(strcmp(signature_of(auth),
					   "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543") == 0,
				"got %s", auth);
}

static void
suite_request(RmtSigV4Request *req, RmtNameValue *headers, int nheaders)
{
	memset(req, 0, sizeof(*req));
	req->method = "GET";
	req->encoded_path = "/";
	req->headers = headers;
	req->nheaders = nheaders;
	req->payload_sha256 = RMT_SHA256_EMPTY;
	req->amz_date = "20150830T123600Z";
	req->region = "us-east-1";
	req->service = "service";
	req->key_id = SUITE_KEY;
	req->secret = SUITE_SECRET;
}

static void
test_suite_vanilla(void)
{
	RmtNameValue headers[] = {
		{"Host", "example.amazonaws.com"},
		{"X-Amz-Date", "20150830T123600Z"},
	};
	RmtNameValue query[] = {{"Param1", "value1"}};
	RmtSigV4Request req;
	char		auth[1024];

	suite_request(&req, headers, 2);
	UNIT_CHECK(rmt_sigv4_authorization(&req, auth, sizeof(auth)) == RMT_OK);
	UNIT_CHECKF(strcmp(auth,
					   "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
					   "SignedHeaders=host;x-amz-date, "
					   "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31") == 0,
				"got %s", auth);

	req.query = query;
	req.nquery = 1;
	UNIT_CHECK(rmt_sigv4_authorization(&req, auth, sizeof(auth)) == RMT_OK);
	UNIT_CHECKF(strcmp(signature_of(auth),
					   "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb") == 0,
				"got %s", auth);
}

static void
test_suite_header_trim(void)
{
	RmtNameValue headers[] = {
		{"Host", "example.amazonaws.com"},
		{"My-Header1", " value1"},
		{"My-Header2", " \"a   b   c\""},
		{"X-Amz-Date", "20150830T123600Z"},
	};
	RmtSigV4Request req;
	char		creq[1024];

	suite_request(&req, headers, 4);
	UNIT_CHECK(rmt_sigv4_canonical_request(&req, creq, sizeof(creq)) == RMT_OK);
	UNIT_CHECKF(strcmp(creq,
					   "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\n"
					   "my-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\n"
					   "host;my-header1;my-header2;x-amz-date\n" RMT_SHA256_EMPTY) == 0,
				"got %s", creq);
}

static void
test_uri_encode(void)
{
	char		out[64];

	/* get-utf8: U+1234 in the path */
	UNIT_CHECK(rmt_uri_encode("/\xe1\x88\xb4", 4, true, out, sizeof(out)) == RMT_OK);
	UNIT_CHECK(strcmp(out, "/%E1%88%B4") == 0);
	UNIT_CHECK(rmt_uri_encode("a b/c~d=e", 9, false, out, sizeof(out)) == RMT_OK);
	UNIT_CHECK(strcmp(out, "a%20b%2Fc~d%3De") == 0);
	UNIT_CHECK(rmt_uri_encode("abcdef", 6, true, out, 6) == RMT_TOO_LONG);
	UNIT_CHECK(rmt_uri_encode("abcde", 5, true, out, 6) == RMT_OK);
}

static void
test_sha256(void)
{
	char		hex[65];

	UNIT_CHECK(rmt_sha256_hex("", 0, hex) == RMT_OK);
	UNIT_CHECK(strcmp(hex, RMT_SHA256_EMPTY) == 0);
	UNIT_CHECK(rmt_sha256_hex("abc", 3, hex) == RMT_OK);
	UNIT_CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
}

static void
test_url_parse(void)
{
	RmtUrl		u;
	char		err[128];
	size_t		n;

	UNIT_CHECK(rmt_url_parse("s3://bucket/a/b/*.parquet", &u, err, sizeof(err)) == RMT_OK);
	UNIT_CHECK(u.scheme == RMT_SCHEME_S3 && strcmp(u.bucket, "bucket") == 0 &&
			   strcmp(u.key, "a/b/*.parquet") == 0);
	UNIT_CHECK(rmt_url_parse("gs://b", &u, err, sizeof(err)) == RMT_OK);
	UNIT_CHECK(u.scheme == RMT_SCHEME_GCS && strcmp(u.key, "") == 0);
	UNIT_CHECK(rmt_url_parse("az://container/dir/x.parquet", &u, err, sizeof(err)) == RMT_OK);
	UNIT_CHECK(u.scheme == RMT_SCHEME_AZURE && strcmp(u.bucket, "container") == 0);
	UNIT_CHECK(rmt_url_parse("abfss://cont@acct.dfs.core.windows.net/p/q", &u, err, sizeof(err)) == RMT_OK);
	UNIT_CHECK(strcmp(u.bucket, "cont") == 0 && strcmp(u.account, "acct") == 0 &&
			   strcmp(u.key, "p/q") == 0);
	UNIT_CHECK(rmt_url_parse("https://127.0.0.1:8443/data/x.parquet?v=1", &u, err, sizeof(err)) == RMT_OK);
	UNIT_CHECK(u.scheme == RMT_SCHEME_HTTPS && strcmp(u.host, "127.0.0.1") == 0 &&
			   u.port == 8443 && strcmp(u.key, "data/x.parquet?v=1") == 0);
	UNIT_CHECK(rmt_url_parse("http://[::1]:80/x", &u, err, sizeof(err)) == RMT_OK);
	UNIT_CHECK(strcmp(u.host, "[::1]") == 0 && u.port == 80);

	UNIT_CHECK(rmt_url_parse("https://user:pw@host/x", &u, err, sizeof(err)) == RMT_INVALID_URL);
	UNIT_CHECK(strstr(err, "credentials") != NULL);
	UNIT_CHECK(rmt_url_parse("s3://key:secret@bucket/x", &u, err, sizeof(err)) == RMT_INVALID_URL);
	UNIT_CHECK(rmt_url_parse("s3:///x", &u, err, sizeof(err)) == RMT_INVALID_URL);
	UNIT_CHECK(rmt_url_parse("s3://b/x?versionId=1", &u, err, sizeof(err)) == RMT_INVALID_URL);
	UNIT_CHECK(rmt_url_parse("http://h:99999/x", &u, err, sizeof(err)) == RMT_INVALID_URL);
	UNIT_CHECK(rmt_url_parse("ftp://h/x", &u, err, sizeof(err)) == RMT_UNSUPPORTED_SCHEME);
	UNIT_CHECK(rmt_url_parse("/tmp/x.parquet", &u, err, sizeof(err)) == RMT_INVALID_URL);

	UNIT_CHECK(rmt_has_scheme("s3://x", &n) && n == 2);
	UNIT_CHECK(rmt_has_scheme("xyz+a.b-c://x", &n) && n == 9);
	UNIT_CHECK(!rmt_has_scheme("/data/s3://x", NULL));
	UNIT_CHECK(!rmt_has_scheme("1a://x", NULL));
	UNIT_CHECK(!rmt_has_scheme("file.parquet", NULL));
}

int
main(void)
{
	test_s3_get_object_range();
	test_s3_list_objects();
	test_s3_bare_query_key();
	test_suite_vanilla();
	test_suite_header_trim();
	test_uri_encode();
	test_sha256();
	test_url_parse();
	UNIT_MAIN_END("test_sigv4");
}
