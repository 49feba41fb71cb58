/*-------------------------------------------------------------------------
 *
 * remote_upload.h
 *	  A file written to an object store: the remote side of atomic_file.h.
 *
 * The bytes stream into the store part by part (src/remote upload: one
 * part of 8 MiB buffered, so memory does not grow with the file), and the
 * object appears only when pf_remote_upload_commit() succeeds, which is
 * the object store's version of "rename on success".  Until then an abort
 * (pf_remote_upload_abort, called by atomic_file.c at error, cancel,
 * transaction abort or backend exit) drops the parts sent and no object
 * is left, nor is an existing one changed.
 *
 * IDENTIFICATION
 *	  src/fdw/remote_upload.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_REMOTE_UPLOAD_H
#define PF_REMOTE_UPLOAD_H

#include "postgres.h"

#include "fdw/pg_compat.h"

typedef struct PfRemoteUpload PfRemoteUpload;

/*
 * Start writing url_text (s3://, gs://, az://, abfss://): the write
 * privilege is checked (pf_remote_check_write), the settings are those of
 * foreign server serverid and the current user's mapping, or of the
 * environment when serverid is InvalidOid.  No request is sent yet.  The
 * upload lives in TopMemoryContext.
 */
extern PfRemoteUpload *pf_remote_upload_begin(const char *url_text, Oid serverid);

/*
 * Append len bytes; may send a part.  Returns 0 or EIO and never errors
 * (a pure-C writer's sink calls it); the failure is kept for
 * pf_remote_upload_report().
 */
extern int	pf_remote_upload_write(PfRemoteUpload *upload, const void *data, size_t len);

/* Raise the kept failure (a cancel raises the pending interrupt). */
extern void pf_remote_upload_report(const PfRemoteUpload *upload) pg_attribute_noreturn();

/* Bytes written so far. */
extern uint64 pf_remote_upload_size(const PfRemoteUpload *upload);

/*
 * Send the rest and make the object; frees the upload.  On failure raises
 * the error and leaves the upload to pf_remote_upload_abort().
 */
extern void pf_remote_upload_commit(PfRemoteUpload *upload);

/* Drop the parts sent, free.  Never errors. */
extern void pf_remote_upload_abort(PfRemoteUpload *upload);

/*
 * An object a statement wrote and committed, to remove if its transaction
 * aborts (modify.c).  pf_remote_written_remember() opens the store while
 * catalog lookups are still allowed (settings, credentials); so
 * pf_remote_written_remove(), called from the abort callbacks, needs none,
 * makes one attempt and never errors: a failure is a WARNING naming the
 * object left behind.  Both free w; pf_remote_written_forget() only frees
 * it (the transaction committed).  w lives in TopMemoryContext.
 */
typedef struct PfRemoteWritten PfRemoteWritten;

extern PfRemoteWritten *pf_remote_written_remember(const char *url_text, Oid serverid);
extern void pf_remote_written_remove(PfRemoteWritten *w);
extern void pf_remote_written_forget(PfRemoteWritten *w);

#endif							/* PF_REMOTE_UPLOAD_H */
