/*-------------------------------------------------------------------------
 *
 * copy_to.c
 *	  COPY table | (query) TO 'file' | STDOUT (FORMAT parquet, ...).
 *
 * A table becomes "SELECT cols FROM ONLY table" (as PostgreSQL's COPY TO
 * does for row-level security, and the same privileges are checked by the
 * planner; a partitioned table without ONLY), a query is analyzed as is; either runs through a portal into
 * a DestReceiver that hands each slot to the sink (write_sink.h).
 *
 * TO STDOUT sends the file as a binary COPY: CopyOutResponse, CopyData
 * messages with the file's bytes, CopyDone, so psql's \copy writes a
 * client-side file.
 *
 * file_size_bytes splits the output: the target is then a folder (created
 * if missing) receiving data_0.parquet, data_1.parquet, ... each a complete
 * file closed at the first row group end past the limit; folders are never
 * emptied first, and a split cannot go to STDOUT.
 *
 * An s3://, gs:// or az:// target is uploaded as it is written (see
 * atomic_file.h, remote_upload.h): the object appears only when the COPY
 * succeeds.  The settings come from the option server 'name' (that foreign
 * server and the current user's mapping) or else the environment, as for
 * the inspection functions.  A split then writes the objects
 * PREFIX/data_0.parquet, ... under the URL.
 *
 * IDENTIFICATION
 *	  src/fdw/copy_to.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_foreign_server.h"
#include "commands/defrem.h"
#include "executor/executor.h"
#include "executor/tstoreReceiver.h"
#include "foreign/foreign.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "pgstat.h"
#include "rewrite/rewriteHandler.h"
#include "tcop/pquery.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "fdw/copy.h"
#include "fdw/pg_compat.h"
#include "fdw/remote_fdw.h"
#include "fdw/write_sink.h"

typedef struct SinkReceiver
{
	DestReceiver pub;
	PfWriteOptions *opts;
	const char *target;			/* file, folder (split) or NULL (client) */
	TupleDesc	desc;
	Oid			relid;			/* COPY table TO: the table, else InvalidOid */
	PfParquetSink *sink;
	int			file_no;
	uint64		rows;
} SinkReceiver;

static char *
split_file_name(const SinkReceiver *r)
{
	size_t		len = strlen(r->target);

	/* a URL prefix may end in '/': one separator, not two */
	if (len > 0 && r->target[len - 1] == '/')
		len--;
	return psprintf("%.*s/data_%d.parquet", (int) len, r->target, r->file_no);
}

/*
 * COPY's server 'name' option, taken out of options: the foreign server
 * whose settings and user mapping a URL target uses.  Needs USAGE on it,
 * as a foreign table on it would.
 */
static List *
take_server_option(List *options, Oid *serverid)
{
	List	   *rest = NIL;
	ListCell   *lc;

	*serverid = InvalidOid;
	foreach(lc, options)
	{
		DefElem    *def = lfirst_node(DefElem, lc);
		ForeignServer *server;
		AclResult	aclresult;

		if (strcmp(def->defname, "server") != 0)
		{
			rest = lappend(rest, def);
			continue;
		}
		if (OidIsValid(*serverid))
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("conflicting or redundant options"),
					 errdetail("COPY option \"%s\" is given twice.", "server")));
		server = GetForeignServerByName(defGetString(def), false);
#if PG_VERSION_NUM >= 160000
		aclresult = object_aclcheck(ForeignServerRelationId, server->serverid,
									GetUserId(), ACL_USAGE);
#else
		aclresult = pg_foreign_server_aclcheck(server->serverid, GetUserId(), ACL_USAGE);
#endif
		if (aclresult != ACLCHECK_OK)
			aclcheck_error(aclresult, OBJECT_FOREIGN_SERVER, server->servername);
		*serverid = server->serverid;
	}
	return rest;
}

/*
 * The query's columns with the table's declared array dimensions (int[][]),
 * which a query's result does not carry: the sink writes them as nested
 * LISTs even before a value shows them.
 */
static TupleDesc
with_declared_dims(TupleDesc desc, Oid relid)
{
	Relation	rel = table_open(relid, NoLock);
	TupleDesc	reldesc = RelationGetDescr(rel);
	TupleDesc	copy = CreateTupleDescCopy(desc);

	for (int i = 0; i < copy->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(copy, i);

		for (int j = 0; j < reldesc->natts; j++)
		{
			Form_pg_attribute ra = TupleDescAttr(reldesc, j);

			if (!ra->attisdropped && ra->atttypid == a->atttypid &&
				strcmp(NameStr(ra->attname), NameStr(a->attname)) == 0)
				a->attndims = ra->attndims;
		}
	}
	table_close(rel, NoLock);
	return copy;
}

static void
receiver_startup(DestReceiver *self, int operation, TupleDesc desc)
{
	SinkReceiver *r = (SinkReceiver *) self;

	if (OidIsValid(r->relid))
		desc = with_declared_dims(desc, r->relid);
	r->desc = desc;
	if (r->opts->file_size_bytes > 0 && pf_is_url(r->target))
		r->sink = pf_sink_begin(desc, r->opts, split_file_name(r));
	else if (r->opts->file_size_bytes > 0)
	{
		if (mkdir(r->target, S_IRWXU | S_IRWXG | S_IRWXO) != 0 && errno != EEXIST)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not create folder \"%s\": %m", r->target)));
		r->sink = pf_sink_begin(desc, r->opts, split_file_name(r));
	}
	else
		r->sink = pf_sink_begin(desc, r->opts, r->target);
}

static bool
receiver_receive(TupleTableSlot *slot, DestReceiver *self)
{
	SinkReceiver *r = (SinkReceiver *) self;

	pf_sink_put(r->sink, slot);
	r->rows++;
	if (r->opts->file_size_bytes > 0 &&
		pf_sink_bytes(r->sink) >= (uint64) r->opts->file_size_bytes)
	{
		pf_sink_finish(r->sink);
		r->file_no++;
		r->sink = pf_sink_begin(r->desc, r->opts, split_file_name(r));
	}
	return true;
}

static void
receiver_shutdown(DestReceiver *self)
{
	SinkReceiver *r = (SinkReceiver *) self;

	if (r->sink)
		pf_sink_finish(r->sink);
	r->sink = NULL;
}

static void
receiver_destroy(DestReceiver *self)
{
}

/* "SELECT cols FROM ONLY table" for COPY table [(cols)] TO. */
static Node *
table_query(const CopyStmt *stmt, char relkind)
{
	SelectStmt *select = makeNode(SelectStmt);
	RangeVar   *from = copyObject(stmt->relation);
	ListCell   *lc;

	/* a partitioned table's rows are in its partitions (as COPY TO in 17) */
	from->inh = relkind == RELKIND_PARTITIONED_TABLE;
	if (stmt->attlist == NIL)
	{
		ColumnRef  *cr = makeNode(ColumnRef);
		ResTarget  *target = makeNode(ResTarget);

		cr->fields = list_make1(makeNode(A_Star));
		cr->location = -1;
		target->val = (Node *) cr;
		target->location = -1;
		select->targetList = list_make1(target);
	}
	else
		foreach(lc, stmt->attlist)
		{
			ColumnRef  *cr = makeNode(ColumnRef);
			ResTarget  *target = makeNode(ResTarget);

			cr->fields = list_make1(makeString(strVal(lfirst(lc))));
			cr->location = -1;
			target->val = (Node *) cr;
			target->location = -1;
			select->targetList = lappend(select->targetList, target);
		}
	select->fromClause = list_make1(from);
	return (Node *) select;
}

static char
check_relation_kind(const CopyStmt *stmt)
{
	Relation	rel = table_openrv(stmt->relation, AccessShareLock);
	char		kind = rel->rd_rel->relkind;

	table_close(rel, NoLock);
	if (kind == RELKIND_VIEW || kind == RELKIND_SEQUENCE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot copy from %s \"%s\"",
						kind == RELKIND_VIEW ? "view" : "sequence",
						stmt->relation->relname),
				 errhint("Try the COPY (SELECT ...) TO variant.")));
	return kind;
}

/* Binary CopyOutResponse with every column marked binary. */
static void
send_copy_out_response(int natts)
{
	StringInfoData buf;

	pq_beginmessage(&buf, 'H');
	pq_sendbyte(&buf, 1);		/* overall binary */
	pq_sendint16(&buf, natts);
	for (int i = 0; i < natts; i++)
		pq_sendint16(&buf, 1);
	pq_endmessage(&buf);
}

uint64
pf_copy_to(ParseState *pstate, const CopyStmt *stmt, List *options,
		   int stmt_location, int stmt_len)
{
	PfWriteOptions opts;
	RawStmt    *raw;
	Query	   *query;
	List	   *rewritten;
	PlannedStmt *plan;
	QueryDesc  *qd;
	SinkReceiver *recv;
	char	   *target = NULL;

	pf_write_options_init(&opts);
	options = take_server_option(options, &opts.remote_server);
	pf_write_options_parse(options, &opts);

	if (OidIsValid(opts.remote_server) && !pf_is_url(stmt->filename))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("COPY option \"server\" applies only to s3://, gs:// and az:// targets"),
				 errhint("Leave the option out to write a server file or to STDOUT.")));
	if (pf_is_url(stmt->filename))
		target = pstrdup(stmt->filename);
	else if (stmt->filename)
	{
		if (!is_absolute_path(stmt->filename))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_NAME),
					 errmsg("relative path not allowed for COPY to file")));
		target = pstrdup(stmt->filename);
	}
	else if (opts.file_size_bytes > 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("COPY option \"file_size_bytes\" cannot be used with COPY TO STDOUT"),
				 errhint("Write to a server folder, or leave the option out.")));

	raw = makeNode(RawStmt);
	if (stmt->relation)
	{
		char		relkind = check_relation_kind(stmt);

		raw->stmt = table_query(stmt, relkind);
	}
	else
		raw->stmt = stmt->query;
	raw->stmt_location = stmt_location;
	raw->stmt_len = stmt_len;

	rewritten = pg_analyze_and_rewrite_fixedparams(raw, pstate->p_sourcetext,
												   NULL, 0, NULL);
	if (list_length(rewritten) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("COPY query must be one statement without rules that add actions")));
	query = linitial_node(Query, rewritten);
	if (query->commandType != CMD_SELECT)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("COPY (FORMAT parquet) supports only SELECT queries"),
				 errhint("Use COPY (SELECT ...) TO, or a data-modifying CTE inside a SELECT is not supported either.")));
	if (query->utilityStmt != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("COPY query must not be a utility command")));

	plan = pg_plan_query(query, pstate->p_sourcetext, CURSOR_OPT_PARALLEL_OK, NULL);

	recv = palloc0(sizeof(SinkReceiver));
	recv->pub.receiveSlot = receiver_receive;
	recv->pub.rStartup = receiver_startup;
	recv->pub.rShutdown = receiver_shutdown;
	recv->pub.rDestroy = receiver_destroy;
	recv->pub.mydest = DestNone;
	recv->opts = &opts;
	recv->target = target;
	if (stmt->relation)
		recv->relid = RangeVarGetRelid(stmt->relation, NoLock, false);

	PushCopiedSnapshot(GetActiveSnapshot());
	UpdateActiveSnapshotCommandId();
	qd = CreateQueryDesc(plan, pstate->p_sourcetext, GetActiveSnapshot(),
						 InvalidSnapshot, (DestReceiver *) recv, NULL, NULL, 0);
	ExecutorStart(qd, 0);
	if (target == NULL)
		send_copy_out_response(qd->tupDesc->natts);
	pf_executor_run_all(qd);
	ExecutorFinish(qd);
	ExecutorEnd(qd);
	if (target == NULL)
		pq_putemptymessage('c');
	FreeQueryDesc(qd);
	PopActiveSnapshot();
	return recv->rows;
}
