/*-------------------------------------------------------------------------
 *
 * remote_fdw.h
 *	  The FDW's side of object-store URLs: which text is a URL, who may make
 *	  the server send requests, which client (settings and credentials)
 *	  serves a URL, and how a failed request becomes a PostgreSQL error.
 *
 * The pure-C client lives in src/remote (store.h).  This header is the one
 * door to it from src/fdw: everything that reads a URL (footer cache, file
 * listing, Amudai opens, inspection functions) gets its RmtStore here.
 *
 * IDENTIFICATION
 *	  src/fdw/remote_fdw.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_REMOTE_FDW_H
#define PF_REMOTE_FDW_H

#include "postgres.h"

#include "fdw/pg_compat.h"
#include "remote/remote.h"
#include "remote/store.h"

/*
 * Is text "scheme://..."?  Such text is a URL, never a local path: a scheme
 * parquet_fdw does not read is an error, not a file name.
 */
extern bool pf_is_url(const char *text);

/*
 * pf_remote_store
 *		Parse url_text into *url (22023 when malformed, 0A000 for a scheme
 *		no store here reads), check that the current user may make the
 *		server send requests (superuser, pg_read_server_files or the role
 *		parquet_fdw_remote_read; else 42501), and return the backend's
 *		client for it.
 *
 * serverid names the foreign server whose options (endpoint, region,
 * url_style, use_ssl, ...) and whose user mapping for the current user
 * (key_id, secret, ...) apply; InvalidOid for callers with no server (SQL
 * functions given a path): then only the environment's settings apply.
 * Whatever the options do not say comes from the server OS user's
 * environment chain (AWS_* variables, ~/.aws files, AZURE_STORAGE_*).
 *
 * Clients live until the backend exits, so connections are reused across
 * statements; one client per distinct resolved setting.  Never returns
 * NULL.
 */
extern RmtStore *pf_remote_store(const char *url_text, Oid serverid, RmtUrl *url);

/*
 * pf_remote_store_for_write
 *		pf_remote_store for a URL the caller will write (remote_upload.h):
 *		the privilege checked is pf_remote_check_write's.
 */
extern RmtStore *pf_remote_store_for_write(const char *url_text, Oid serverid,
										   RmtUrl *url);

/*
 * pf_remote_check_write
 *		May the current user make the server write url_text?  Superuser,
 *		pg_write_server_files or the role parquet_fdw_remote_write; else
 *		42501.
 */
extern void pf_remote_check_write(const char *url_text);

/*
 * pf_remote_report
 *		Raise err, from a request for url_text, as an ERROR: 404 -> 58P01,
 *		401/403 -> 42501, an object changed under a read (412) -> 55000,
 *		anything else 58030 with the HTTP status and the store's error code
 *		in errdetail.  A cancelled request raises the pending interrupt
 *		(query cancel, termination) instead.  Never prints a credential.
 */
extern void pf_remote_report(const char *url_text, const RmtError *err) pg_attribute_noreturn();

/* The same for a request that wrote: "could not write ...". */
extern void pf_remote_report_write(const char *url_text, const RmtError *err) pg_attribute_noreturn();

#endif							/* PF_REMOTE_FDW_H */
