/*-------------------------------------------------------------------------
 *
 * remote_files.h
 *	  The files an object-store URL entry of the filename option yields
 *	  (files.c calls it for entries that are URLs).
 *
 * IDENTIFICATION
 *	  src/fdw/remote_files.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_REMOTE_FILES_H
#define PF_REMOTE_FILES_H

#include "postgres.h"

#include "fdw/parquet_fdw.h"

/*
 * The URLs entry stands for, sorted: itself when it names a data file
 * (*.parquet, *.amudai.shard) or is an http(s) URL; else the data files
 * under it as a folder, or the keys its glob matches ("*", "?", "[...]",
 * "**"), found by listing with the pattern's literal head as the prefix.
 * Hive folders skip (may be NULL) rejects are left out and counted in
 * *folders_skipped (may be NULL): with a filter the pattern is listed
 * level by level, so that rejected folders are never listed below.
 * limit > 0 (and no filter): only the first limit matches in key order
 * are wanted, and the listing stops where they are found; a pattern
 * whose names end in ".parquet" or ".amudai.shard" then answers itself,
 * unlisted, since the name alone decides an object's format.  An empty list
 * when nothing matches; the caller decides whether that is an error.
 * Errors of the store as pf_remote_report.
 */
extern List *pf_remote_expand(const char *entry, Oid serverid,
							  PfFolderFilter skip, void *arg,
							  int *folders_skipped, int limit);

/* An entry of a bucket "folder": an object, or a prefix with objects. */
typedef struct PfRemoteEntry
{
	char	   *name;			/* the next key component */
	bool		folder;			/* keys continue below it */
} PfRemoteEntry;

/*
 * The entries right below the folder url ("s3://bucket/dir", with or
 * without the trailing slash; "s3://bucket/" for the root), PfRemoteEntry
 * * in name order, from one delimiter listing of its prefix (one level:
 * subfolders come as common prefixes, however many keys they hold).
 */
extern List *pf_remote_list_folder(const char *url, Oid serverid);

#endif							/* PF_REMOTE_FILES_H */
