/*-------------------------------------------------------------------------
 *
 * copy.h
 *	  COPY ... (FORMAT parquet): the contract between the utility hook
 *	  (copy_hook.c) and the two directions (copy_to.c, copy_from.c).
 *
 * The hook recognizes a Parquet COPY, checks the privileges PostgreSQL's
 * own COPY would check for the same target (superuser or
 * pg_write_server_files / pg_read_server_files for a server file, none for
 * STDIN/STDOUT), refuses PROGRAM, removes the "format" option and hands the
 * remaining options to one of the functions below, which validate them
 * (an unknown option or a bad value is an error naming it and its valid
 * values).  Each returns the number of rows processed, which the hook
 * reports as the command tag "COPY n".
 *
 * IDENTIFICATION
 *	  src/fdw/copy.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_COPY_H
#define PF_COPY_H

#include "postgres.h"

#include "nodes/parsenodes.h"
#include "parser/parse_node.h"

/* Installs the ProcessUtility hook; called once from _PG_init. */
extern void pf_copy_hook_install(void);

/*
 * True when stmt is a COPY this extension handles: FORMAT parquet, or no
 * FORMAT option and a file name ending in ".parquet".
 */
extern bool pf_copy_is_parquet(const CopyStmt *stmt);

/*
 * COPY table | (query) TO 'file' | STDOUT.  stmt->filename is NULL for
 * STDOUT.  options: the statement's options other than FORMAT.
 * stmt_location/stmt_len locate the statement in pstate->p_sourcetext, as
 * for PostgreSQL's DoCopy().
 */
extern uint64 pf_copy_to(ParseState *pstate, const CopyStmt *stmt,
						 List *options, int stmt_location, int stmt_len);

/*
 * COPY table [(columns)] FROM 'file, pattern or folder' | STDIN.
 * stmt->filename is NULL for STDIN.  options as for pf_copy_to().
 */
extern uint64 pf_copy_from(ParseState *pstate, const CopyStmt *stmt,
						   List *options);

#endif							/* PF_COPY_H */
