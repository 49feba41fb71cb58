/*-------------------------------------------------------------------------
 *
 * upload.c
 *	  Objects written whole or not at all: S3 multipart uploads and Azure
 *	  block lists, fed one buffered part at a time (see store.h).
 *
 * The bytes collect in one part-sized buffer.  While the object still fits
 * in it, nothing is sent; at commit it goes up in one PUT (S3 PutObject,
 * Azure Put Blob).  Once the buffer fills, the upload becomes a multipart
 * one: S3 CreateMultipartUpload then one UploadPart per full buffer, and at
 * commit the last part and CompleteMultipartUpload with every part's ETag;
 * Azure Put Block per buffer and Put Block List at commit.  Until that
 * last request the store shows no object (nor changes an existing one).
 *
 * Every request goes through rmt_exchange, so parts are retried like
 * reads: a part is idempotent (sent again whole, under the same number).
 *
 * IDENTIFICATION
 *	  src/remote/upload.c
 *
 *-------------------------------------------------------------------------
 */
#include "remote/remote_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#define MIN_PART_SIZE	(5u * 1024 * 1024)	/* S3's least part but the last */
#define DEFAULT_PART_SIZE (8u * 1024 * 1024)
#define MAX_PARTS		10000	/* S3's and Azure's limit */
#define REPLY_LIMIT		(1024 * 1024)	/* Create/Complete answers */
#define ETAG_LEN		128

struct RmtUpload
{
	RmtStore   *store;
	RmtUrl		url;
	bool		azure;
	char	   *part;			/* the buffer of the part being filled */
	size_t		part_size;
	size_t		part_len;
	uint64_t	total;
	int			nparts;			/* parts sent */
	char		upload_id[1024];	/* S3, once multipart; "" before */
	char	   *etags;			/* S3: ETAG_LEN bytes per part sent */
	int			etags_cap;
};

static RmtStatus
oom(RmtError *err)
{
	return rmt_fail(err, RMT_NO_MEMORY, 0, "out of memory");
}

static void *
allocate(RmtStore *store, size_t n)
{
	return store->alloc.alloc(store->alloc.ctx, n);
}

static void
release(RmtStore *store, void *p)
{
	if (p)
		store->alloc.release(store->alloc.ctx, p);
}

RmtStatus
rmt_upload_begin(RmtStore *store, const RmtUrl *url, size_t part_size,
				 RmtUpload **out, RmtError *err)
{
	RmtUpload  *up;

	memset(err, 0, sizeof(*err));
	*out = NULL;
	if (url->scheme == RMT_SCHEME_HTTP || url->scheme == RMT_SCHEME_HTTPS)
		return rmt_fail(err, RMT_UNSUPPORTED_SCHEME, 0,
						"%s URLs are read only: write to s3://, gs:// or az://",
						rmt_scheme_name(url->scheme));
	if (url->key[0] == '\0' || url->key[strlen(url->key) - 1] == '/')
		return rmt_fail(err, RMT_INVALID_URL, 0, "the URL names no object");
	if (part_size == 0)
		part_size = DEFAULT_PART_SIZE;
	if (part_size < MIN_PART_SIZE)
		part_size = MIN_PART_SIZE;
	up = allocate(store, sizeof(RmtUpload));
	if (!up)
		return oom(err);
	memset(up, 0, sizeof(*up));
	up->store = store;
	up->url = *url;
	up->azure = url->scheme == RMT_SCHEME_AZURE;
	up->part_size = part_size;
	up->part = allocate(store, part_size);
	if (!up->part)
	{
		release(store, up);
		return oom(err);
	}
	*out = up;
	return RMT_OK;
}

uint64_t
rmt_upload_bytes(const RmtUpload *up)
{
	return up->total;
}

/* Address the object and attach a payload; S3 signs its SHA-256. */
static RmtStatus
prepare(RmtUpload *up, bool blob_path, RmtRequest *r, RmtError *err)
{
	RmtStatus	st;

	if (up->azure)
		st = rmt_azure_address(up->store, &up->url, blob_path, r, err);
	else
		st = rmt_s3_address(up->store, &up->url, r, err);
	return st;
}

static RmtStatus
finish(RmtUpload *up, RmtRequest *r, const void *payload, size_t len,
	   RmtError *err)
{
	RmtStatus	st;

	r->payload = payload;
	r->payload_len = len;
	if (up->azure)
		return rmt_azure_finish_url(up->store, r, err);
	if ((st = rmt_append_query(r, err)) != RMT_OK)
		return st;
	if (r->sign && len > 0 &&
		rmt_sha256_hex(payload, len, r->payload_sha256) != RMT_OK)
		return rmt_fail(err, RMT_CRYPTO_ERROR, 0, "could not hash the payload");
	return RMT_OK;
}

static RmtSignFn
signer(const RmtUpload *up)
{
	return up->azure ? rmt_azure_protocol.sign : rmt_s3_protocol.sign;
}

/* One request whose answer body is not needed. */
static RmtStatus
send_simple(RmtUpload *up, RmtRequest *r, const char *method,
			RmtResponse *resp, const char *what, RmtError *err)
{
	return rmt_exchange(up->store, r, signer(up), method, NULL, NULL, NULL,
						resp, what, err);
}

/*
 * A DELETE sent once and not stopped by the interrupt check: it undoes a
 * write on the way out of a failure, where a pending cancel must not stop
 * it and an object or upload left behind is only a leftover.
 */
static RmtStatus
send_delete_once(RmtUpload *up, RmtRequest *r, const char *what, RmtError *err)
{
	RmtStore   *store = up->store;
	int			retries = store->config.max_retries;
	int			(*interrupted) (void *) = store->config.interrupted;
	RmtResponse resp;
	RmtStatus	st;

	store->config.max_retries = 0;
	store->config.interrupted = NULL;
	st = send_simple(up, r, "DELETE", &resp, what, err);
	store->config.max_retries = retries;
	store->config.interrupted = interrupted;
	return st;
}

/* One request whose XML answer is wanted in body (freed by the caller). */
static RmtStatus
send_for_reply(RmtUpload *up, RmtRequest *r, const char *method,
			   RmtBody *body, RmtResponse *resp, const char *what,
			   RmtError *err)
{
	memset(body, 0, sizeof(*body));
	body->alloc = &up->store->alloc;
	body->limit = REPLY_LIMIT;
	return rmt_exchange(up->store, r, signer(up), method, NULL, NULL, body,
						resp, what, err);
}

/*
 * An error document in a 200 answer: S3 may answer
 * CompleteMultipartUpload with 200 and then fail it in the body.
 */
static RmtStatus
check_error_document(const RmtBody *body, const RmtResponse *resp,
					 const char *what, RmtError *err)
{
	const char *end = body->buf + body->len;
	const char *code;
	size_t		len;

	if (!body->buf || !rmt_xml_find(body->buf, end, "Error", &len))
		return RMT_OK;
	code = rmt_xml_find(body->buf, end, "Code", &len);
	if (code && !rmt_xml_text(code, len, err->code, sizeof(err->code)))
		err->code[0] = '\0';
	return rmt_fail(err, RMT_HTTP_ERROR, (int) resp->status,
					"%s failed after its answer began", what);
}

/* Azure block ids: base64 of a fixed-width number, the same length for all. */
static void
block_id(int number, char out[64])
{
	char		raw[16];

	snprintf(raw, sizeof(raw), "part%08d", number);
	EVP_EncodeBlock((unsigned char *) out, (const unsigned char *) raw, 12);
}

static RmtStatus
s3_create(RmtUpload *up, RmtError *err)
{
	RmtRequest	r;
	RmtResponse resp;
	RmtBody		body;
	RmtStatus	st;
	const char *id;
	size_t		len;

	if ((st = prepare(up, true, &r, err)) != RMT_OK)
		return st;
	r.query[r.nquery++] = (RmtNameValue) {"uploads", ""};
	if ((st = finish(up, &r, NULL, 0, err)) != RMT_OK)
		return st;
	st = send_for_reply(up, &r, "POST", &body, &resp, "CreateMultipartUpload", err);
	if (st == RMT_OK)
	{
		id = body.buf ? rmt_xml_find(body.buf, body.buf + body.len, "UploadId", &len) : NULL;
		if (!id || !rmt_xml_text(id, len, up->upload_id, sizeof(up->upload_id)) ||
			!up->upload_id[0])
			st = rmt_fail(err, RMT_BAD_RESPONSE, (int) resp.status,
						  "CreateMultipartUpload answered no UploadId");
	}
	release(up->store, body.buf);
	return st;
}

/* Send the buffered bytes as the next part (block). */
static RmtStatus
send_part(RmtUpload *up, RmtError *err)
{
	RmtRequest	r;
	RmtResponse resp;
	RmtStatus	st;
	char		number[16];
	char		id[64];
	int			part_no = up->nparts + 1;

	if (part_no > MAX_PARTS)
		return rmt_fail(err, RMT_TOO_LONG, 0,
						"the object needs more than %d parts of %zu bytes",
						MAX_PARTS, up->part_size);
	if (!up->azure && !up->upload_id[0] && (st = s3_create(up, err)) != RMT_OK)
		return st;
	if (!up->azure && part_no > up->etags_cap)
	{
		int			cap = up->etags_cap ? up->etags_cap * 2 : 64;
		char	   *grown = allocate(up->store, (size_t) cap * ETAG_LEN);

		if (!grown)
			return oom(err);
		if (up->nparts)
			memcpy(grown, up->etags, (size_t) up->nparts * ETAG_LEN);
		release(up->store, up->etags);
		up->etags = grown;
		up->etags_cap = cap;
	}
	if ((st = prepare(up, true, &r, err)) != RMT_OK)
		return st;
	snprintf(number, sizeof(number), "%d", part_no);
	if (up->azure)
	{
		block_id(part_no, id);
		r.query[r.nquery++] = (RmtNameValue) {"comp", "block"};
		r.query[r.nquery++] = (RmtNameValue) {"blockid", id};
	}
	else
	{
		r.query[r.nquery++] = (RmtNameValue) {"partNumber", number};
		r.query[r.nquery++] = (RmtNameValue) {"uploadId", up->upload_id};
	}
	if ((st = finish(up, &r, up->part, up->part_len, err)) != RMT_OK)
		return st;
	st = send_simple(up, &r, "PUT", &resp, up->azure ? "Put Block" : "UploadPart", err);
	if (st != RMT_OK)
		return st;
	if (!up->azure)
	{
		if (!resp.etag[0])
			return rmt_fail(err, RMT_BAD_RESPONSE, (int) resp.status,
							"UploadPart answered no ETag");
		snprintf(up->etags + (size_t) up->nparts * ETAG_LEN, ETAG_LEN, "%s", resp.etag);
	}
	up->nparts++;
	up->part_len = 0;
	return RMT_OK;
}

RmtStatus
rmt_upload_write(RmtUpload *up, const void *data, size_t len, RmtError *err)
{
	const char *p = data;

	memset(err, 0, sizeof(*err));
	while (len > 0)
	{
		size_t		n = up->part_size - up->part_len;
		RmtStatus	st;

		if (n > len)
			n = len;
		memcpy(up->part + up->part_len, p, n);
		up->part_len += n;
		up->total += n;
		p += n;
		len -= n;
		/* a full part goes only once more bytes follow: the last may be full */
		if (up->part_len == up->part_size && len > 0 &&
			(st = send_part(up, err)) != RMT_OK)
			return st;
	}
	/* keep the buffer for the next bytes, which may be the end */
	return RMT_OK;
}

/* The object in one request: S3 PutObject, Azure Put Blob. */
static RmtStatus
put_whole(RmtUpload *up, RmtError *err)
{
	RmtRequest	r;
	RmtResponse resp;
	RmtStatus	st;

	if ((st = prepare(up, true, &r, err)) != RMT_OK)
		return st;
	if (up->azure)
		r.blob_type = "BlockBlob";
	if ((st = finish(up, &r, up->part, up->part_len, err)) != RMT_OK)
		return st;
	return send_simple(up, &r, "PUT", &resp, up->azure ? "Put Blob" : "PutObject", err);
}

/* The list of parts that makes the object: its XML, allocated. */
static char *
commit_document(RmtUpload *up, size_t *len)
{
	size_t		cap = 128 + (size_t) up->nparts * (ETAG_LEN + 96);
	char	   *doc = allocate(up->store, cap);
	size_t		n;

	if (!doc)
		return NULL;
	if (up->azure)
	{
		n = (size_t) snprintf(doc, cap, "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>");
		for (int i = 0; i < up->nparts; i++)
		{
			char		id[64];

			block_id(i + 1, id);
			n += (size_t) snprintf(doc + n, cap - n, "<Latest>%s</Latest>", id);
		}
		n += (size_t) snprintf(doc + n, cap - n, "</BlockList>");
	}
	else
	{
		n = (size_t) snprintf(doc, cap, "<CompleteMultipartUpload>");
		for (int i = 0; i < up->nparts; i++)
		{
			const char *etag = up->etags + (size_t) i * ETAG_LEN;

			/* ETags are hex in quotes: nothing to escape but the quotes */
			n += (size_t) snprintf(doc + n, cap - n,
								   "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>",
								   i + 1, etag);
		}
		n += (size_t) snprintf(doc + n, cap - n, "</CompleteMultipartUpload>");
	}
	*len = n;
	return doc;
}

static RmtStatus
put_part_list(RmtUpload *up, RmtError *err)
{
	RmtRequest	r;
	RmtResponse resp;
	RmtBody		body;
	RmtStatus	st;
	size_t		len = 0;
	char	   *doc = commit_document(up, &len);
	const char *what = up->azure ? "Put Block List" : "CompleteMultipartUpload";

	if (!doc)
		return oom(err);
	if ((st = prepare(up, true, &r, err)) == RMT_OK)
	{
		if (up->azure)
			r.query[r.nquery++] = (RmtNameValue) {"comp", "blocklist"};
		else
			r.query[r.nquery++] = (RmtNameValue) {"uploadId", up->upload_id};
		st = finish(up, &r, doc, len, err);
	}
	if (st == RMT_OK)
	{
		st = send_for_reply(up, &r, up->azure ? "PUT" : "POST", &body, &resp, what, err);
		if (st == RMT_OK)
			st = check_error_document(&body, &resp, what, err);
		release(up->store, body.buf);
	}
	release(up->store, doc);
	return st;
}

static void
free_upload(RmtUpload *up)
{
	RmtStore   *store = up->store;

	release(store, up->part);
	release(store, up->etags);
	release(store, up);
}

RmtStatus
rmt_upload_commit(RmtUpload *up, RmtError *err)
{
	RmtStatus	st;

	memset(err, 0, sizeof(*err));
	if (up->nparts == 0)
		st = put_whole(up, err);
	else if ((st = send_part(up, err)) == RMT_OK)
		st = put_part_list(up, err);
	if (st == RMT_OK)
		free_upload(up);
	return st;
}

void
rmt_upload_abort(RmtUpload *up)
{
	if (!up)
		return;
	/*
	 * S3 keeps the parts (and bills them) until aborted; Azure drops
	 * uncommitted blocks by itself.  One attempt: this runs on the way
	 * out of a failure, and an upload left behind is not an object.
	 */
	if (!up->azure && up->upload_id[0])
	{
		RmtRequest	r;
		RmtError	err;

		if (prepare(up, true, &r, &err) == RMT_OK)
		{
			r.query[r.nquery++] = (RmtNameValue) {"uploadId", up->upload_id};
			if (finish(up, &r, NULL, 0, &err) == RMT_OK)
				(void) send_delete_once(up, &r, "AbortMultipartUpload", &err);
		}
	}
	free_upload(up);
}

RmtStatus
rmt_store_delete_once(RmtStore *store, const RmtUrl *url, RmtError *err)
{
	RmtUpload	target;
	RmtRequest	r;
	RmtStatus	st;

	memset(err, 0, sizeof(*err));
	if (url->scheme == RMT_SCHEME_HTTP || url->scheme == RMT_SCHEME_HTTPS)
		return rmt_fail(err, RMT_UNSUPPORTED_SCHEME, 0,
						"%s URLs are read only", rmt_scheme_name(url->scheme));
	/* addressed and signed as an upload of the same object would be */
	memset(&target, 0, sizeof(target));
	target.store = store;
	target.url = *url;
	target.azure = url->scheme == RMT_SCHEME_AZURE;
	if ((st = prepare(&target, true, &r, err)) == RMT_OK &&
		(st = finish(&target, &r, NULL, 0, err)) == RMT_OK)
		st = send_delete_once(&target, &r,
							  target.azure ? "Delete Blob" : "DeleteObject", err);
	if (st != RMT_OK && err->http_status == 404)
	{
		memset(err, 0, sizeof(*err));
		st = RMT_OK;
	}
	return st;
}
