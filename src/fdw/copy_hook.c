/*-------------------------------------------------------------------------
 *
 * copy_hook.c
 *	  The ProcessUtility hook that routes COPY ... (FORMAT parquet) to
 *	  copy_to.c and copy_from.c; every other statement passes through.
 *
 * PostgreSQL has no API for COPY formats, so the only way in is the
 * utility hook, as pg_parquet does.  The hook exists only once the library
 * is loaded: README tells users to list parquet_fdw in
 * shared_preload_libraries or session_preload_libraries.
 *
 * IDENTIFICATION
 *	  src/fdw/copy_hook.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "tcop/utility.h"
#include "utils/acl.h"

#include "fdw/copy.h"
#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"

static ProcessUtility_hook_type prev_process_utility = NULL;

static bool
has_parquet_suffix(const char *name)
{
	size_t		len = strlen(name);

	return len >= 8 && pg_strcasecmp(name + len - 8, ".parquet") == 0;
}

bool
pf_copy_is_parquet(const CopyStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->options)
	{
		DefElem    *def = lfirst_node(DefElem, lc);

		if (strcmp(def->defname, "format") == 0)
			return pg_strcasecmp(defGetString(def), "parquet") == 0;
	}
	return stmt->filename != NULL && !stmt->is_program &&
		has_parquet_suffix(stmt->filename);
}

/* The options other than FORMAT, for the direction's own validation. */
static List *
options_without_format(List *options)
{
	List	   *rest = NIL;
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *def = lfirst_node(DefElem, lc);

		if (strcmp(def->defname, "format") != 0)
			rest = lappend(rest, def);
	}
	return rest;
}

/* The same rule as PostgreSQL's DoCopy() for server-side files. */
static void
check_copy_privileges(const CopyStmt *stmt)
{
	if (stmt->is_program)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("COPY with FORMAT parquet does not support PROGRAM"),
				 errhint("Write to a file or to %s.",
						 stmt->is_from ? "STDIN" : "STDOUT")));
	/*
	 * A URL is no server file: it makes the server send requests, which the
	 * remote roles govern (a read's, pf_remote_store() checks).
	 */
	if (pf_is_url(stmt->filename))
	{
		if (!stmt->is_from)
			pf_remote_check_write(stmt->filename);
		return;
	}
	if (stmt->filename == NULL || superuser())
		return;
	if (stmt->is_from &&
		!has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to COPY from a file"),
				 errdetail("Only roles with privileges of the \"%s\" role may COPY from a file.",
						   "pg_read_server_files"),
				 errhint("Anyone can COPY from STDIN, psql's \\copy works for anyone.")));
	if (!stmt->is_from &&
		!has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to COPY to a file"),
				 errdetail("Only roles with privileges of the \"%s\" role may COPY to a file.",
						   "pg_write_server_files"),
				 errhint("Anyone can COPY to STDOUT, psql's \\copy works for anyone.")));
}

static void
pf_process_utility(PlannedStmt *pstmt, const char *queryString,
				   bool readOnlyTree, ProcessUtilityContext context,
				   ParamListInfo params, QueryEnvironment *queryEnv,
				   DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;

	if (IsA(parsetree, CopyStmt) &&
		pf_copy_is_parquet((CopyStmt *) parsetree))
	{
		CopyStmt   *stmt = (CopyStmt *) parsetree;
		ParseState *pstate = make_parsestate(NULL);
		List	   *options = options_without_format(stmt->options);
		uint64		processed;

		check_copy_privileges(stmt);
		pstate->p_sourcetext = queryString;
		pstate->p_queryEnv = queryEnv;
		if (stmt->is_from)
			processed = pf_copy_from(pstate, stmt, options);
		else
			processed = pf_copy_to(pstate, stmt, options,
								   pstmt->stmt_location, pstmt->stmt_len);
		free_parsestate(pstate);
		if (qc)
			SetQueryCompletion(qc, CMDTAG_COPY, processed);
		return;
	}

	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context,
							 params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}

void
pf_copy_hook_install(void)
{
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = pf_process_utility;
}
