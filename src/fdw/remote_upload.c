/*-------------------------------------------------------------------------
 *
 * remote_upload.c
 *	  A file written to an object store: see remote_upload.h.
 *
 * Streaming rather than a local temporary file then an upload: memory
 * stays at one part whatever the file's size, no local disk is needed,
 * and the upload overlaps the query instead of following it.  The price
 * is that a failed part fails the statement (after the store client's
 * retries), which a local copy could have retried later; nothing else
 * could make use of it.
 *
 * IDENTIFICATION
 *	  src/fdw/remote_upload.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "fdw/remote_fdw.h"
#include "fdw/remote_upload.h"

struct PfRemoteUpload
{
	char	   *url_text;
	RmtUpload  *upload;
	RmtError	failure;		/* the last failed write's */
};

PfRemoteUpload *
pf_remote_upload_begin(const char *url_text, Oid serverid)
{
	RmtUrl		url;
	RmtStore   *store = pf_remote_store_for_write(url_text, serverid, &url);
	RmtError	err;
	RmtUpload  *upload;
	PfRemoteUpload *u;

	if (rmt_upload_begin(store, &url, 0, &upload, &err) != RMT_OK)
	{
		if (err.status == RMT_UNSUPPORTED_SCHEME || err.status == RMT_INVALID_URL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot write to URL \"%s\"", url_text),
					 errdetail("%c%s.", pg_toupper((unsigned char) err.message[0]),
							   err.message + 1)));
		pf_remote_report_write(url_text, &err);
	}
	u = MemoryContextAllocZero(TopMemoryContext, sizeof(PfRemoteUpload));
	u->url_text = MemoryContextStrdup(TopMemoryContext, url_text);
	u->upload = upload;
	return u;
}

int
pf_remote_upload_write(PfRemoteUpload *u, const void *data, size_t len)
{
	if (rmt_upload_write(u->upload, data, len, &u->failure) != RMT_OK)
		return EIO;
	return 0;
}

void
pf_remote_upload_report(const PfRemoteUpload *u)
{
	pf_remote_report_write(u->url_text, &u->failure);
}

uint64
pf_remote_upload_size(const PfRemoteUpload *u)
{
	return rmt_upload_bytes(u->upload);
}

void
pf_remote_upload_commit(PfRemoteUpload *u)
{
	if (rmt_upload_commit(u->upload, &u->failure) != RMT_OK)
		pf_remote_upload_report(u);
	pfree(u->url_text);
	pfree(u);
}

void
pf_remote_upload_abort(PfRemoteUpload *u)
{
	if (u == NULL)
		return;
	rmt_upload_abort(u->upload);
	pfree(u->url_text);
	pfree(u);
}

struct PfRemoteWritten
{
	RmtStore   *store;			/* cached for the backend's life */
	RmtUrl		url;
	char	   *url_text;
};

PfRemoteWritten *
pf_remote_written_remember(const char *url_text, Oid serverid)
{
	RmtUrl		url;
	RmtStore   *store = pf_remote_store_for_write(url_text, serverid, &url);
	PfRemoteWritten *w = MemoryContextAllocZero(TopMemoryContext,
												sizeof(PfRemoteWritten));

	w->store = store;
	w->url = url;
	w->url_text = MemoryContextStrdup(TopMemoryContext, url_text);
	return w;
}

void
pf_remote_written_remove(PfRemoteWritten *w)
{
	RmtError	err;

	if (rmt_store_delete_once(w->store, &w->url, &err) != RMT_OK)
	{
		/* the query string may hold a SAS token */
		char	   *q = strchr(w->url_text, '?');

		if (q != NULL)
			*q = '\0';
		ereport(WARNING,
				(errcode(ERRCODE_IO_ERROR),
				 errmsg("could not remove object \"%s\" of an aborted INSERT", w->url_text),
				 errdetail("%s%s%s.", err.message, err.code[0] ? ": " : "", err.code)));
	}
	pf_remote_written_forget(w);
}

void
pf_remote_written_forget(PfRemoteWritten *w)
{
	pfree(w->url_text);
	pfree(w);
}
