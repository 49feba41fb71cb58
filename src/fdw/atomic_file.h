/*-------------------------------------------------------------------------
 *
 * atomic_file.h
 *	  Files that appear whole or not at all: written under a temporary name
 *	  in the target's folder, renamed into place only on success.
 *
 * pf_atomic_file_create() makes "<folder>/.<name>.<pid>.<n>.tmp" with
 * O_EXCL (another name is tried while one exists).  Writes are buffered.
 * pf_atomic_file_commit() flushes, fsyncs the file, renames it to the target
 * (replacing it, or, with replace false, failing when it exists) and fsyncs
 * the folder, so a reader sees the old file or the whole new one.
 *
 * Until committed, the temporary file is removed by pf_atomic_file_abort(),
 * by the abort of the (sub)transaction that created it (an error or a
 * cancel in the statement), and at backend exit.  Errors are ereport(ERROR)
 * naming the file.
 *
 * IDENTIFICATION
 *	  src/fdw/atomic_file.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_ATOMIC_FILE_H
#define PF_ATOMIC_FILE_H

#include "postgres.h"

#include "fdw/pg_compat.h"

typedef struct PfAtomicFile PfAtomicFile;

/* Open a temporary file for target (an absolute or data-folder path). */
extern PfAtomicFile *pf_atomic_file_create(const char *target);

/*
 * The same, or for a URL target (s3://, gs://, az://, abfss://) an upload
 * (remote_upload.h) with the settings of foreign server serverid
 * (InvalidOid: the environment's): nothing is visible in the store until
 * pf_atomic_file_commit() (replace must be true: an object store has no
 * "create only if absent" here), and the cleanups abort the upload.
 */
extern PfAtomicFile *pf_atomic_file_create_on(const char *target, Oid serverid);

/*
 * Append len bytes (buffered).  Returns 0 or an errno and never errors, so
 * it can serve as a pure-C layer's sink callback (PqSink, the Amudai
 * writer); the caller reports a failure with pf_atomic_file_report().
 */
extern int	pf_atomic_file_write(PfAtomicFile *file, const void *data, size_t len);

/* ereport(ERROR) "could not write file": errnum from a failed write. */
extern void pf_atomic_file_report(const PfAtomicFile *file, int errnum) pg_attribute_noreturn();

/* Bytes written so far. */
extern uint64 pf_atomic_file_size(const PfAtomicFile *file);

/*
 * Flush, fsync, rename over the target (replace true) or to the target only
 * if it does not exist (replace false: ERRCODE_DUPLICATE_FILE when it does),
 * fsync the folder, free.
 */
extern void pf_atomic_file_commit(PfAtomicFile *file, bool replace);

/* Close and remove the temporary file, free.  Never errors. */
extern void pf_atomic_file_abort(PfAtomicFile *file);

#endif							/* PF_ATOMIC_FILE_H */
