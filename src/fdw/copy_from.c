/*-------------------------------------------------------------------------
 *
 * copy_from.c
 *	  COPY table [(columns)] FROM 'file, pattern or folder' | STDIN
 *	  (FORMAT parquet, match_by 'name' | 'position').
 *
 * The rows are read through the Parquet table source (source.h), the one
 * the foreign tables use, so values are converted and cast exactly as a
 * foreign table with the target's column types would read them.  They are
 * inserted by one INSERT INTO target (columns) SELECT ... over the
 * set-returning function parquet_fdw_copy_rows(), which hands out the rows
 * of the COPY running in this backend.  Going through INSERT gives
 * triggers, partition routing, constraints, defaults of the columns not
 * listed, indexes and row-level security the behaviour of an INSERT, at
 * the price of forming each row as a composite (bench/RESULTS.md).  The
 * function is called in the SELECT list, so rows stream: nothing is
 * materialized.
 *
 * Matching: by name (the default), each target column reads the field of
 * its name (exact, else the only case-insensitive match; a hive key=value
 * folder of the path gives a field the file lacks); a column no field
 * gives is an error naming it, fields no column reads are ignored.  By
 * position, the i-th target column reads the file's i-th top-level field,
 * and the counts must be equal.  This is pg_parquet's rule for missing
 * columns; leave a column out of COPY's column list to get its default.
 *
 * FROM STDIN: Parquet needs random access, so the bytes the client sends
 * over the COPY protocol are spooled to a temporary file first.
 *
 * IDENTIFICATION
 *	  src/fdw/copy_from.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "executor/spi.h"
#include "funcapi.h"
/*
 * libpq-be.h includes the GSSAPI headers when the server was built with
 * GSSAPI; we use none of it, and the headers need not be installed.
 */
#undef ENABLE_GSS
#include "libpq/libpq.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "tcop/dest.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "fdw/copy.h"
#include "fdw/parquet_fdw.h"
#include "fdw/source.h"

PG_FUNCTION_INFO_V1(parquet_fdw_copy_rows);

/* Rows converted per read; the same order as the scan's batches. */
#define COPY_BATCH_ROWS	1024

/* One target column and where its values come from in the current file. */
typedef struct CopyColumn
{
	AttrNumber	attnum;
	char	   *attname;
	Oid			typid;
	int32		typmod;
	Datum	   *values;			/* the batch's values */
	bool	   *nulls;
	/* a field the file lacks given by a key=value folder of its path */
	bool		from_path;
	Datum		path_value;
	bool		path_null;
} CopyColumn;

/* The state of the COPY FROM running in this backend. */
typedef struct CopyFromState
{
	Relation	rel;
	bool		by_position;
	List	   *filenames;		/* char *, in order */
	const char *shown_name;		/* for messages: the user's, not a spool */
	int			ncolumns;
	CopyColumn *columns;
	PfSourceColumn *src_columns;

	MemoryContext cxt;			/* lives as long as the COPY */
	MemoryContext file_cxt;		/* reset per file */
	MemoryContext batch_cxt;	/* reset per batch */
	PfSourceScan scan;
	File		spool;			/* FROM STDIN: the spooled bytes, or -1 */

	/* the read position */
	int			file_index;
	PfSource   *src;
	int			unit;
	uint32		batch_n;
	uint32		batch_next;
	bool		converting;
	const char *err_column;
	int64		err_row_base;
	Datum	   *row_values;		/* natts of rel */
	bool	   *row_nulls;
	bool		handed_out;		/* the function has started */
} CopyFromState;

static CopyFromState *current_copy = NULL;

static void
copy_error_callback(void *arg)
{
	CopyFromState *cs = (CopyFromState *) arg;
	const char *path;

	if (cs->file_index < 0 || cs->file_index >= list_length(cs->filenames))
		return;
	path = cs->shown_name ? cs->shown_name :
		(const char *) list_nth(cs->filenames, cs->file_index);
	if (cs->src != NULL && cs->src->unit >= 0 && cs->err_column &&
		cs->converting && pf_parquet_source.failed_row() >= 0)
		errcontext("COPY %s, Parquet file \"%s\", row group %d, row %lld, column \"%s\"",
				   RelationGetRelationName(cs->rel), path, cs->src->unit,
				   (long long) (cs->err_row_base + pf_parquet_source.failed_row()),
				   cs->err_column);
	else if (cs->src != NULL && cs->src->unit >= 0)
		errcontext("COPY %s, Parquet file \"%s\", row group %d",
				   RelationGetRelationName(cs->rel), path, cs->src->unit);
	else
		errcontext("COPY %s, Parquet file \"%s\"",
				   RelationGetRelationName(cs->rel), path);
}

/* ----------------------------------------------------------------
 * Options and columns
 * ----------------------------------------------------------------
 */

static bool
parse_options(List *options)
{
	bool		by_position = false;
	bool		seen = false;
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *def = lfirst_node(DefElem, lc);

		if (strcmp(def->defname, "match_by") == 0)
		{
			char	   *value = defGetString(def);

			if (seen)
				ereport(ERROR,
						(errcode(ERRCODE_SYNTAX_ERROR),
						 errmsg("option \"match_by\" given more than once")));
			seen = true;
			if (pg_strcasecmp(value, "name") == 0)
				by_position = false;
			else if (pg_strcasecmp(value, "position") == 0)
				by_position = true;
			else
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid value for option \"match_by\": \"%s\"",
								value),
						 errhint("Valid values are \"name\" and \"position\".")));
		}
		else
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("option \"%s\" is not valid for COPY FROM with FORMAT parquet",
							def->defname),
					 errhint("Valid options are \"format\" and \"match_by\".")));
	}
	return by_position;
}

/*
 * The target columns: COPY's column list, else every column but dropped and
 * generated ones (as PostgreSQL's COPY).
 */
static List *
target_attnums(Relation rel, List *attlist)
{
	TupleDesc	tupdesc = RelationGetDescr(rel);
	List	   *attnums = NIL;
	ListCell   *lc;

	if (attlist == NIL)
	{
		for (int i = 0; i < tupdesc->natts; i++)
		{
			Form_pg_attribute attr = TupleDescAttr(tupdesc, i);

			if (attr->attisdropped || attr->attgenerated)
				continue;
			attnums = lappend_int(attnums, attr->attnum);
		}
		return attnums;
	}
	foreach(lc, attlist)
	{
		char	   *name = strVal(lfirst(lc));
		AttrNumber	attnum = InvalidAttrNumber;

		for (int i = 0; i < tupdesc->natts; i++)
		{
			Form_pg_attribute attr = TupleDescAttr(tupdesc, i);

			if (!attr->attisdropped && namestrcmp(&attr->attname, name) == 0)
			{
				if (attr->attgenerated)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_COLUMN_REFERENCE),
							 errmsg("column \"%s\" is a generated column", name),
							 errdetail("Generated columns cannot be used in COPY.")));
				attnum = attr->attnum;
				break;
			}
		}
		if (attnum == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of relation \"%s\" does not exist",
							name, RelationGetRelationName(rel))));
		if (list_member_int(attnums, attnum))
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_COLUMN),
					 errmsg("column \"%s\" specified more than once", name)));
		attnums = lappend_int(attnums, attnum);
	}
	return attnums;
}

/* The file's top-level field names, for messages. */
static char *
file_fields(const PqFileMeta *meta)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < meta->root->num_children; i++)
	{
		if (buf.len > 200)
		{
			appendStringInfoString(&buf, ", ...");
			break;
		}
		appendStringInfo(&buf, "%s%s", i > 0 ? ", " : "",
						 meta->root->children[i]->name);
	}
	return buf.data;
}

/* ----------------------------------------------------------------
 * Reading
 * ----------------------------------------------------------------
 */

/*
 * Open the next file and bind the target columns to its fields.  false
 * when there is none left.
 */
static bool
open_next_file(CopyFromState *cs)
{
	const char *path;
	const PqFileMeta *meta;
	const PqSchemaNode *root;
	const char *shown;
	MemoryContext old;

	if (cs->src != NULL)
	{
		pf_parquet_source.close(cs->src);
		cs->src = NULL;
	}
	MemoryContextReset(cs->file_cxt);
	if (++cs->file_index >= list_length(cs->filenames))
		return false;
	path = list_nth(cs->filenames, cs->file_index);
	shown = cs->shown_name ? cs->shown_name : path;
	/* partition values live as long as the file */
	old = MemoryContextSwitchTo(cs->file_cxt);
	cs->src = pf_parquet_source.open(path, cs->rel, &cs->scan, cs->file_cxt);
	/* raw_field(-1) gives the file's metadata before any binding */
	(void) pf_parquet_source.raw_field(cs->src, -1, &meta);
	root = meta->root;

	if (cs->by_position)
	{
		if (root->num_children != cs->ncolumns)
			ereport(ERROR,
					(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
					 errmsg("Parquet file \"%s\" has %d fields, COPY expects %d",
							shown, root->num_children, cs->ncolumns),
					 errdetail("The file's fields are: %s.", file_fields(meta)),
					 errhint("With match_by 'position' the i-th column reads the i-th field; list the columns to read in COPY's column list.")));
		for (int i = 0; i < cs->ncolumns; i++)
			cs->src_columns[i].field_name = root->children[i]->name;
	}

	pf_parquet_source.bind(cs->src, cs->src_columns, cs->ncolumns, false,
						   true);

	for (int i = 0; i < cs->ncolumns; i++)
	{
		CopyColumn *col = &cs->columns[i];
		char	   *text;

		col->from_path = false;
		if (cs->src->present[i])
			continue;
		if (!cs->by_position &&
			pf_partition_value(path, cs->src_columns[i].field_name, &text))
		{
			Oid			infunc;
			Oid			ioparam;

			getTypeInputInfo(col->typid, &infunc, &ioparam);
			col->from_path = true;
			col->path_null = text == NULL;
			col->path_value = OidInputFunctionCall(infunc, text, ioparam,
												   col->typmod);
			continue;
		}
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("column \"%s\" of relation \"%s\" is not in Parquet file \"%s\"",
						col->attname, RelationGetRelationName(cs->rel), shown),
				 errdetail("The file's fields are: %s.", file_fields(meta)),
				 errhint("Leave the column out of COPY's column list to fill it with its default, or use match_by 'position'.")));
	}
	MemoryContextSwitchTo(old);
	cs->unit = -1;
	return true;
}

/* Position the next batch; false at the end of the last file. */
static bool
read_next_batch(CopyFromState *cs)
{
	MemoryContext old;

	CHECK_FOR_INTERRUPTS();
	MemoryContextReset(cs->batch_cxt);
	for (;;)
	{
		uint32		n = 0;

		if (cs->src != NULL && cs->unit >= 0)
			n = pf_parquet_source.read(cs->src, COPY_BATCH_ROWS);
		if (n > 0)
		{
			cs->batch_n = n;
			cs->batch_next = 0;
			break;
		}
		if (cs->src != NULL && cs->unit >= 0)
			pf_parquet_source.unit_close(cs->src);
		if (cs->src != NULL && cs->unit + 1 < cs->src->nunits)
		{
			cs->unit++;
			pf_parquet_source.unit_open(cs->src, cs->unit, NIL, 0);
			continue;
		}
		cs->unit = -1;
		if (!open_next_file(cs))
			return false;
	}

	old = MemoryContextSwitchTo(cs->batch_cxt);
	for (int i = 0; i < cs->ncolumns; i++)
	{
		CopyColumn *col = &cs->columns[i];

		if (!cs->src->present[i])
			continue;
		cs->err_column = col->attname;
		cs->err_row_base = cs->src->batch_row;
		cs->converting = true;
		pf_parquet_source.convert(cs->src, i, 0, cs->batch_n, col->values,
								  col->nulls);
		cs->converting = false;
	}
	cs->err_column = NULL;
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * parquet_fdw_copy_rows(anyelement) returns setof anyelement
 *		The rows of the COPY FROM running in this backend as composites of
 *		the target's row type; called only by the INSERT pf_copy_from()
 *		runs.
 */
Datum
parquet_fdw_copy_rows(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	CopyFromState *cs = current_copy;
	TupleDesc	tupdesc;
	HeapTuple	tuple;

	if (cs == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("parquet_fdw_copy_rows() may only be called by COPY FROM with FORMAT parquet")));
	if (SRF_IS_FIRSTCALL())
	{
		if (cs->handed_out ||
			get_fn_expr_argtype(fcinfo->flinfo, 0) != RelationGetDescr(cs->rel)->tdtypeid)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("parquet_fdw_copy_rows() may only be called by COPY FROM with FORMAT parquet")));
		cs->handed_out = true;
		funcctx = SRF_FIRSTCALL_INIT();
	}
	funcctx = SRF_PERCALL_SETUP();

	if (cs->batch_next >= cs->batch_n && !read_next_batch(cs))
		SRF_RETURN_DONE(funcctx);

	tupdesc = RelationGetDescr(cs->rel);
	memset(cs->row_nulls, true, sizeof(bool) * tupdesc->natts);
	for (int i = 0; i < cs->ncolumns; i++)
	{
		CopyColumn *col = &cs->columns[i];
		int			a = col->attnum - 1;

		if (col->from_path)
		{
			cs->row_values[a] = col->path_value;
			cs->row_nulls[a] = col->path_null;
		}
		else
		{
			cs->row_values[a] = col->values[cs->batch_next];
			cs->row_nulls[a] = col->nulls[cs->batch_next];
		}
	}
	cs->batch_next++;
	/* heap_form_tuple labels the tuple with the row type: a composite Datum */
	tuple = heap_form_tuple(tupdesc, cs->row_values, cs->row_nulls);
	SRF_RETURN_NEXT(funcctx, HeapTupleGetDatum(tuple));
}

/* ----------------------------------------------------------------
 * FROM STDIN
 * ----------------------------------------------------------------
 */

/*
 * Receive the client's bytes over the COPY protocol into a temporary file
 * (removed at the end of the transaction); returns its path.
 */
static char *
spool_stdin(int ncolumns, File *file)
{
	StringInfoData buf;
	off_t		offset = 0;

	/* CopyInResponse: binary, one format code per column */
	pq_beginmessage(&buf, 'G');
	pq_sendbyte(&buf, 1);
	pq_sendint16(&buf, ncolumns);
	for (int i = 0; i < ncolumns; i++)
		pq_sendint16(&buf, 1);
	pq_endmessage(&buf);
	pq_flush();

	*file = OpenTemporaryFile(false);
	initStringInfo(&buf);
	for (;;)
	{
		int			mtype;
		int			maxlen;

		CHECK_FOR_INTERRUPTS();
		HOLD_CANCEL_INTERRUPTS();
		pq_startmsgread();
		mtype = pq_getbyte();
		if (mtype == EOF)
			ereport(ERROR,
					(errcode(ERRCODE_CONNECTION_FAILURE),
					 errmsg("unexpected EOF on client connection with an open transaction")));
		switch (mtype)
		{
			case 'd':			/* CopyData */
				maxlen = PQ_LARGE_MESSAGE_LIMIT;
				break;
			case 'c':			/* CopyDone */
			case 'f':			/* CopyFail */
			case 'H':			/* Flush */
			case 'S':			/* Sync */
				maxlen = PQ_SMALL_MESSAGE_LIMIT;
				break;
			default:
				ereport(ERROR,
						(errcode(ERRCODE_PROTOCOL_VIOLATION),
						 errmsg("unexpected message type 0x%02X during COPY from stdin",
								mtype)));
				maxlen = 0;		/* keep compiler quiet */
		}
		resetStringInfo(&buf);
		if (pq_getmessage(&buf, maxlen))
			ereport(ERROR,
					(errcode(ERRCODE_CONNECTION_FAILURE),
					 errmsg("unexpected EOF on client connection with an open transaction")));
		RESUME_CANCEL_INTERRUPTS();

		if (mtype == 'c')
			break;
		if (mtype == 'f')
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("COPY from stdin failed: %s",
							pq_getmsgstring(&buf))));
		if (mtype != 'd')
			continue;
		if (buf.len > 0)
		{
			int			written = FileWrite(*file, buf.data, buf.len, offset,
											0);

			if (written != buf.len)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not write temporary file \"%s\": %m",
								FilePathName(*file))));
			offset += buf.len;
		}
	}
	pfree(buf.data);
	return FilePathName(*file);
}

/* ----------------------------------------------------------------
 * The command
 * ----------------------------------------------------------------
 */

/* The schema parquet_fdw is installed in (PostgreSQL 15 has no getter). */
static Oid
extension_schema(void)
{
	Relation	catalog;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			schema = InvalidOid;

	catalog = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber,
				F_NAMEEQ, CStringGetDatum("parquet_fdw"));
	scan = systable_beginscan(catalog, ExtensionNameIndexId, true, NULL, 1,
							  &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		schema = ((Form_pg_extension) GETSTRUCT(tuple))->extnamespace;
	systable_endscan(scan);
	table_close(catalog, AccessShareLock);
	if (!OidIsValid(schema))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("extension \"parquet_fdw\" is not installed in this database"),
				 errhint("Run CREATE EXTENSION parquet_fdw.")));
	return schema;
}

/* The INSERT that moves the rows: target columns from the function's rows. */
static char *
insert_query(Relation rel, List *attnums)
{
	StringInfoData q;
	char	   *target;
	char	   *schema;
	ListCell   *lc;

	schema = get_namespace_name(extension_schema());
	target = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
										RelationGetRelationName(rel));
	initStringInfo(&q);
	appendStringInfo(&q, "INSERT INTO %s (", target);
	foreach(lc, attnums)
		appendStringInfo(&q, "%s%s", foreach_current_index(lc) > 0 ? ", " : "",
						 quote_identifier(get_attname(RelationGetRelid(rel),
													  lfirst_int(lc), false)));
	appendStringInfoString(&q, ") SELECT ");
	foreach(lc, attnums)
		appendStringInfo(&q, "%s(r).%s", foreach_current_index(lc) > 0 ? ", " : "",
						 quote_identifier(get_attname(RelationGetRelid(rel),
													  lfirst_int(lc), false)));
	appendStringInfo(&q, " FROM (SELECT %s.parquet_fdw_copy_rows(NULL::%s) AS r OFFSET 0) s",
					 quote_identifier(schema), target);
	return q.data;
}

uint64
pf_copy_from(ParseState *pstate, const CopyStmt *stmt, List *options)
{
	CopyFromState *cs;
	CopyFromState *outer = current_copy;
	Relation	rel;
	List	   *attnums;
	char	   *query;
	ErrorContextCallback errcb;
	uint64		processed;
	int			i;
	ListCell   *lc;
	int			rc;

	if (stmt->whereClause != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("COPY FROM with FORMAT parquet does not support WHERE"),
				 errhint("Read the file through a foreign table and INSERT ... SELECT ... WHERE.")));
	if (stmt->relation == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("COPY FROM needs a table")));

	cs = palloc0(sizeof(CopyFromState));
	cs->by_position = parse_options(options);
	cs->spool = -1;

	rel = table_openrv(stmt->relation, RowExclusiveLock);
	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE &&
		rel->rd_rel->relkind != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot copy to relation \"%s\"",
						RelationGetRelationName(rel)),
				 errdetail("COPY FROM with FORMAT parquet fills tables, partitioned tables and foreign tables.")));
	cs->rel = rel;
	attnums = target_attnums(rel, stmt->attlist);

	cs->cxt = AllocSetContextCreate(CurrentMemoryContext, "parquet_fdw copy from",
									ALLOCSET_DEFAULT_SIZES);
	cs->file_cxt = AllocSetContextCreate(cs->cxt, "parquet_fdw copy file",
										 ALLOCSET_DEFAULT_SIZES);
	cs->batch_cxt = AllocSetContextCreate(cs->cxt, "parquet_fdw copy batch",
										  ALLOCSET_DEFAULT_SIZES);
	cs->scan.cxt = cs->cxt;
	cs->ncolumns = list_length(attnums);
	cs->columns = palloc0(sizeof(CopyColumn) * Max(1, cs->ncolumns));
	cs->src_columns = palloc0(sizeof(PfSourceColumn) * Max(1, cs->ncolumns));
	i = 0;
	foreach(lc, attnums)
	{
		Form_pg_attribute attr = TupleDescAttr(RelationGetDescr(rel),
											   lfirst_int(lc) - 1);
		CopyColumn *col = &cs->columns[i];
		PfSourceColumn *sc = &cs->src_columns[i++];

		col->attnum = attr->attnum;
		col->attname = pstrdup(NameStr(attr->attname));
		col->typid = attr->atttypid;
		col->typmod = attr->atttypmod;
		col->values = palloc(sizeof(Datum) * COPY_BATCH_ROWS);
		col->nulls = palloc(sizeof(bool) * COPY_BATCH_ROWS);
		sc->attnum = col->attnum;
		sc->attname = col->attname;
		sc->field_name = col->attname;
		sc->typid = col->typid;
		sc->typmod = col->typmod;
	}
	cs->row_values = palloc(sizeof(Datum) * RelationGetDescr(rel)->natts);
	cs->row_nulls = palloc(sizeof(bool) * RelationGetDescr(rel)->natts);

	if (stmt->filename == NULL)
	{
		if (whereToSendOutput != DestRemote)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("COPY FROM STDIN with FORMAT parquet needs a client connection")));
		cs->filenames = list_make1(spool_stdin(cs->ncolumns, &cs->spool));
		cs->shown_name = "STDIN";
	}
	else
	{
		cs->filenames = pf_expand_filenames(list_make1(stmt->filename));
		if (cs->filenames == NIL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FILE),
					 errmsg("no Parquet file matches \"%s\"", stmt->filename)));
	}
	cs->file_index = -1;
	cs->unit = -1;

	/*
	 * Check the first file's columns before the INSERT starts, so that a
	 * mismatch is reported without an INSERT in the error context.
	 */
	errcb.callback = copy_error_callback;
	errcb.arg = cs;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	(void) open_next_file(cs);
	cs->file_index = -1;
	if (cs->src != NULL)
	{
		pf_parquet_source.close(cs->src);
		cs->src = NULL;
	}

	query = insert_query(rel, attnums);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	current_copy = cs;
	PG_TRY();
	{
		rc = SPI_execute(query, false, 0);
		if (rc != SPI_OK_INSERT)
			elog(ERROR, "SPI_execute of \"%s\" returned %d", query, rc);
		processed = SPI_processed;
	}
	PG_FINALLY();
	{
		current_copy = outer;
	}
	PG_END_TRY();
	SPI_finish();
	error_context_stack = errcb.previous;

	if (cs->src != NULL)
		pf_parquet_source.close(cs->src);
	if (cs->spool >= 0)
		FileClose(cs->spool);
	MemoryContextDelete(cs->cxt);
	table_close(rel, NoLock);
	return processed;
}
