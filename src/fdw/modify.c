/*-------------------------------------------------------------------------
 *
 * modify.c
 *	  INSERT into parquet_fdw foreign tables (contract: modify.h).
 *
 * A statement's rows go to new files named
 * <table>-<UTC time>-<pid>-<n>.parquet in the table's folder, one file per
 * key=value folder when the table is hive-partitioned: the keys are those
 * of the folders the table's first file lies in below the table folder,
 * each the field a column reads; the key columns are not written into the
 * files (their values are in the folder names) and neither is a
 * filename_column.  Files are written through the sink (write_sink.h):
 * a temporary name, renamed when the statement ends.  A table whose
 * filename is an s3://, gs://, az:// or abfss:// URL gets objects the same
 * way: uploaded, and made whole when the statement ends (remote_upload.h).
 *
 * The transaction remembers the files its statements renamed into place
 * and removes them if it, or the subtransaction that wrote them, aborts
 * (objects by a DELETE request, with the settings looked up when the
 * statement ended: an aborting transaction may not read the catalogs).
 * Committed files stay; a transaction that wrote files cannot be
 * prepared, since nothing would remove them on ROLLBACK PREPARED.
 *
 * Memory: each open file buffers one row group (write_sink.h), so an
 * INSERT that spreads rows over many partitions holds that many row
 * groups until the statement ends.
 *
 * IDENTIFICATION
 *	  src/fdw/modify.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/tupdesc.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "common/file_perm.h"
#include "commands/defrem.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/plannodes.h"
#include "pgtime.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "fdw/modify.h"
#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_upload.h"
#include "fdw/source.h"
#include "fdw/write_sink.h"

/* An open file of the statement, one per key=value folder. */
typedef struct PfOpenFile
{
	char		folder[MAXPGPATH];	/* hash key: the file's folder */
	char	   *path;
	PfParquetSink *sink;
} PfOpenFile;

/* The state of one INSERT into one table (ri_FdwState). */
typedef struct PfModifyState
{
	Relation	rel;
	Oid			serverid;
	MemoryContext cxt;			/* the statement's; sinks live below it */
	char	   *folder;			/* the table's folder, no trailing '/' */
	bool		remote;			/* folder is a URL */
	char	   *name_prefix;	/* "<table>-<time>-<pid>" */
	PfWriteOptions wopts;

	/* the columns written: file attribute i is table attribute attnos[i] */
	TupleDesc	file_desc;
	AttrNumber *file_attnos;
	TupleTableSlot *file_slot;

	/* hive partition keys, outermost first */
	int			nkeys;
	char	  **keys;
	AttrNumber *key_attnos;
	FmgrInfo   *key_out;

	HTAB	   *files;			/* PfOpenFile by folder */
	StringInfoData folder_buf;	/* the current row's folder */
} PfModifyState;

/* ----------------------------------------------------------------
 * Files written by the transaction, removed if it aborts
 * ----------------------------------------------------------------
 */

typedef struct PfWrittenFile
{
	char	   *path;
	PfRemoteWritten *remote;	/* an object's, else NULL */
	SubTransactionId subid;		/* the subtransaction that wrote it */
} PfWrittenFile;

static List *written_files = NIL;	/* PfWrittenFile *, in TopTransactionContext */
static bool callbacks_registered = false;
static uint32 file_counter = 0;

static void
remove_written(PfWrittenFile *wf)
{
	if (wf->remote != NULL)
	{
		pf_remote_written_remove(wf->remote);
		wf->remote = NULL;
	}
	else if (unlink(wf->path) != 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\" of an aborted INSERT: %m",
						wf->path)));
}

static void
xact_callback(XactEvent event, void *arg)
{
	ListCell   *lc;

	switch (event)
	{
		case XACT_EVENT_PRE_PREPARE:
			if (written_files != NIL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot PREPARE a transaction that has inserted into a parquet_fdw foreign table")));
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			foreach(lc, written_files)
				remove_written((PfWrittenFile *) lfirst(lc));
			written_files = NIL;
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			foreach(lc, written_files)
			{
				PfWrittenFile *wf = lfirst(lc);

				if (wf->remote != NULL)
					pf_remote_written_forget(wf->remote);
			}
			written_files = NIL;
			break;
		default:
			break;
	}
}

static void
subxact_callback(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		/* the parent owns them now */
		foreach(lc, written_files)
		{
			PfWrittenFile *wf = lfirst(lc);

			if (wf->subid == mySubid)
				wf->subid = parentSubid;
		}
	}
	else if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		/* this subtransaction's files and its children's */
		foreach(lc, written_files)
		{
			PfWrittenFile *wf = lfirst(lc);

			if (wf->subid >= mySubid)
			{
				remove_written(wf);
				written_files = foreach_delete_current(written_files, lc);
			}
		}
	}
}

/*
 * Remember path (a file, or an object of server serverid) before it is
 * renamed into place or made whole (removing none is fine).
 */
static void
remember_written(const char *path, Oid serverid)
{
	MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
	PfWrittenFile *wf = palloc(sizeof(PfWrittenFile));

	if (!callbacks_registered)
	{
		RegisterXactCallback(xact_callback, NULL);
		RegisterSubXactCallback(subxact_callback, NULL);
		callbacks_registered = true;
	}
	wf->path = pstrdup(path);
	wf->remote = pf_is_url(path) ? pf_remote_written_remember(path, serverid) : NULL;
	wf->subid = GetCurrentSubTransactionId();
	written_files = lappend(written_files, wf);
	MemoryContextSwitchTo(old);
}

/* ----------------------------------------------------------------
 * Where the files go
 * ----------------------------------------------------------------
 */

static bool
has_wildcard(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/*
 * The folder of a URL: an object store has no folders to stat, so a URL
 * ending in ".parquet" names an object, whose prefix up to the last '/' is
 * the folder, and any other names the folder itself.
 */
static char *
url_folder(char *url)
{
	size_t		len = strlen(url);
	char	   *scheme_end = strstr(url, "://");

	if (len > 8 && pg_strcasecmp(url + len - 8, ".parquet") == 0)
	{
		char	   *slash = strrchr(url, '/');

		if (slash != NULL && scheme_end != NULL && slash > scheme_end + 2)
			*slash = '\0';
	}
	len = strlen(url);
	while (len > 0 && url[len - 1] == '/')
		url[--len] = '\0';
	return url;
}

/* The table's folder: its filename option must name one folder or file. */
static char *
table_folder(Relation rel, PfTableOptions *opts)
{
	const char *name = RelationGetRelationName(rel);
	char	   *entry;
	struct stat st;
	char	   *folder;
	size_t		len;

	if (list_length(opts->filenames) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("cannot insert into foreign table \"%s\"", name),
				 errdetail("Its option \"filename\" lists %d entries; INSERT writes into one folder.",
						   list_length(opts->filenames)),
				 errhint("Name one folder or one file in option \"filename\".")));
	entry = pstrdup(linitial(opts->filenames));
	if (has_wildcard(entry))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("cannot insert into foreign table \"%s\"", name),
				 errdetail("Its option \"filename\" is a pattern; INSERT writes into one folder."),
				 errhint("Name one folder or one file in option \"filename\".")));
	if (pf_is_url(entry))
		return url_folder(entry);
	if (stat(entry, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("cannot insert into foreign table \"%s\": could not stat \"%s\": %m",
						name, entry)));
	if (S_ISDIR(st.st_mode))
		folder = entry;
	else
	{
		char	   *slash = strrchr(entry, '/');

		if (slash == NULL)
			folder = pstrdup(".");
		else if (slash == entry)
			folder = pstrdup("/");
		else
		{
			*slash = '\0';
			folder = entry;
		}
	}
	len = strlen(folder);
	while (len > 1 && folder[len - 1] == '/')
		folder[--len] = '\0';
	return folder;
}

/* The attribute whose file field is key (exact, else case-insensitive). */
static AttrNumber
key_attribute(Relation rel, const char *key)
{
	TupleDesc	desc = RelationGetDescr(rel);
	AttrNumber	fallback = InvalidAttrNumber;

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(desc, i);
		char	   *field;

		if (attr->attisdropped)
			continue;
		field = pf_get_column_name(RelationGetRelid(rel), attr->attnum);
		if (strcmp(field, key) == 0)
			return attr->attnum;
		if (pg_strcasecmp(field, key) == 0 && fallback == InvalidAttrNumber)
			fallback = attr->attnum;
	}
	return fallback;
}

/*
 * The hive partition keys: the key=value folders between the table's
 * folder and its first file.
 */
static void
find_partition_keys(PfModifyState *st, List *entries)
{
	char	   *first;
	List	   *parts;
	ListCell   *lc;
	size_t		flen = strlen(st->folder);

	first = pf_expand_first_filename_at(entries, st->serverid);
	if (first == NULL || strncmp(first, st->folder, flen) != 0 ||
		first[flen] != '/')
		return;
	parts = pf_path_partitions(first + flen + 1);
	st->nkeys = list_length(parts);
	st->keys = palloc(sizeof(char *) * Max(1, st->nkeys));
	st->key_attnos = palloc(sizeof(AttrNumber) * Max(1, st->nkeys));
	st->key_out = palloc(sizeof(FmgrInfo) * Max(1, st->nkeys));
	foreach(lc, parts)
	{
		PfPartition *part = lfirst(lc);
		int			k = foreach_current_index(lc);
		AttrNumber	attnum = key_attribute(st->rel, part->key);
		Oid			outfunc;
		bool		varlena;

		if (attnum == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_COLUMN_NAME_NOT_FOUND),
					 errmsg("cannot insert into foreign table \"%s\"",
							RelationGetRelationName(st->rel)),
					 errdetail("Its files lie in folders named \"%s=...\", and no column reads the field \"%s\".",
							   part->key, part->key),
					 errhint("Add the column, so that each row's folder is known.")));
		st->keys[k] = part->key;
		st->key_attnos[k] = attnum;
		getTypeOutputInfo(TupleDescAttr(RelationGetDescr(st->rel), attnum - 1)->atttypid,
						  &outfunc, &varlena);
		fmgr_info_cxt(outfunc, &st->key_out[k], st->cxt);
	}
}

static bool
is_key_attribute(PfModifyState *st, AttrNumber attnum)
{
	for (int k = 0; k < st->nkeys; k++)
		if (st->key_attnos[k] == attnum)
			return true;
	return false;
}

/* The file's columns: the table's but dropped, key and filename columns. */
static void
build_file_desc(PfModifyState *st)
{
	TupleDesc	desc = RelationGetDescr(st->rel);
	Oid			relid = RelationGetRelid(st->rel);
	int			n = 0;

	st->file_attnos = palloc(sizeof(AttrNumber) * Max(1, desc->natts));
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(desc, i);

		if (attr->attisdropped || is_key_attribute(st, attr->attnum) ||
			pf_is_filename_column(relid, attr->attnum))
			continue;
		st->file_attnos[n++] = attr->attnum;
	}
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot insert into foreign table \"%s\"",
						RelationGetRelationName(st->rel)),
				 errdetail("Every column is a partition key or the filename column: a file would have no field.")));
	st->file_desc = CreateTemplateTupleDesc(n);
	for (int i = 0; i < n; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(desc, st->file_attnos[i] - 1);

		/* the field is named as the column reads it */
		TupleDescInitEntry(st->file_desc, i + 1,
						   pf_get_column_name(relid, attr->attnum),
						   attr->atttypid, attr->atttypmod, attr->attndims);
		TupleDescInitEntryCollation(st->file_desc, i + 1, attr->attcollation);
	}
	st->file_slot = MakeSingleTupleTableSlot(st->file_desc, &TTSOpsVirtual);
}

/* A folder name's value: %XX for every byte but [A-Za-z0-9._-]. */
static void
append_escaped(StringInfo buf, const char *s)
{
	for (const unsigned char *p = (const unsigned char *) s; *p; p++)
	{
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-')
			appendStringInfoChar(buf, (char) *p);
		else
			appendStringInfo(buf, "%%%02X", *p);
	}
}

/* The open file for the row in slot (values extracted), opened if new. */
static PfOpenFile *
file_for_row(PfModifyState *st, TupleTableSlot *slot)
{
	PfOpenFile *of;
	bool		found;
	MemoryContext old;

	resetStringInfo(&st->folder_buf);
	appendStringInfoString(&st->folder_buf, st->folder);
	for (int k = 0; k < st->nkeys; k++)
	{
		AttrNumber	a = st->key_attnos[k];

		appendStringInfoChar(&st->folder_buf, '/');
		append_escaped(&st->folder_buf, st->keys[k]);
		appendStringInfoChar(&st->folder_buf, '=');
		if (slot->tts_isnull[a - 1])
			appendStringInfoString(&st->folder_buf, "__HIVE_DEFAULT_PARTITION__");
		else
			append_escaped(&st->folder_buf,
						   OutputFunctionCall(&st->key_out[k],
											  slot->tts_values[a - 1]));
	}
	if (st->folder_buf.len >= MAXPGPATH - 64)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("folder name too long: \"%s\"", st->folder_buf.data)));

	of = hash_search(st->files, st->folder_buf.data, HASH_ENTER, &found);
	if (found)
		return of;

	of->path = NULL;
	of->sink = NULL;
	old = MemoryContextSwitchTo(st->cxt);
	/* an object store has no folders to create */
	if (!st->remote && st->nkeys > 0 &&
		pg_mkdir_p(st->folder_buf.data, pg_dir_create_mode) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create folder \"%s\": %m",
						st->folder_buf.data)));
	/* a name no file has: the counter moves on past any that exists */
	for (;;)
	{
		struct stat sb;

		of->path = psprintf("%s/%s-%u.parquet", st->folder_buf.data,
							st->name_prefix, file_counter++);
		/* an object's name: the time, pid and counter make it unique */
		if (st->remote || (stat(of->path, &sb) != 0 && errno == ENOENT))
			break;
	}
	of->sink = pf_sink_begin(st->file_desc, &st->wopts, of->path);
	MemoryContextSwitchTo(old);
	return of;
}

/* ----------------------------------------------------------------
 * The callbacks
 * ----------------------------------------------------------------
 */

int
pfIsForeignRelUpdatable(Relation rel)
{
	return 1 << CMD_INSERT;
}

List *
pfPlanForeignModify(PlannerInfo *root, ModifyTable *plan,
					Index resultRelation, int subplan_index)
{
	if (plan->operation != CMD_INSERT)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("parquet_fdw foreign tables accept INSERT only"),
				 errdetail("Parquet files are never rewritten: UPDATE and DELETE are not supported.")));
	if (plan->onConflictAction != ONCONFLICT_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("INSERT with ON CONFLICT is not supported by parquet_fdw foreign tables")));
	return NIL;
}

/* A table-level option's integer value, else the server's, else dflt. */
static int
batch_size_option(Relation rel)
{
	ForeignTable *table = GetForeignTable(RelationGetRelid(rel));
	ForeignServer *server = GetForeignServer(table->serverid);
	List	   *lists[2] = {table->options, server->options};

	for (int i = 0; i < 2; i++)
	{
		ListCell   *lc;

		foreach(lc, lists[i])
		{
			DefElem    *def = lfirst(lc);

			if (strcmp(def->defname, "batch_size") == 0)
				return (int) strtol(defGetString(def), NULL, 10);
		}
	}
	return 1;
}

static PfModifyState *
begin_insert(Relation rel, EState *estate)
{
	PfModifyState *st;
	PfTableOptions *opts;
	MemoryContext old;
	HASHCTL		hctl;
	pg_time_t	now_t;
	TimestampTz now = GetCurrentTimestamp();
	char		stamp[32];
	StringInfoData prefix;
	const char *name;
	bool		remote;

	opts = pf_get_table_options(RelationGetRelid(rel));
	remote = opts->filenames != NIL && pf_is_url(linitial(opts->filenames));
	/* objects: the rule of COPY TO a URL (a role may write, not read files) */
	if (remote)
		pf_remote_check_write(linitial(opts->filenames));
	else if (!superuser() &&
			 !has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to insert into foreign table \"%s\"",
						RelationGetRelationName(rel)),
				 errdetail("INSERT writes files: only roles with privileges of the \"%s\" role may.",
						   "pg_write_server_files")));
	if (pf_table_source(RelationGetRelid(rel)) != &pf_parquet_source)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot insert into foreign table \"%s\": it reads Amudai shards",
						RelationGetRelationName(rel)),
				 errhint("INSERT writes Parquet files; write a shard with parquet_fdw_write_amudai().")));

	old = MemoryContextSwitchTo(estate->es_query_cxt);
	st = palloc0(sizeof(PfModifyState));
	st->rel = rel;
	st->cxt = AllocSetContextCreate(estate->es_query_cxt, "parquet_fdw insert",
									ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(st->cxt);
	st->serverid = GetForeignTable(RelationGetRelid(rel))->serverid;
	st->remote = remote;
	st->folder = table_folder(rel, opts);
	find_partition_keys(st, list_make1(st->folder));
	build_file_desc(st);
	pf_write_options_init(&st->wopts);
	if (remote)
		st->wopts.remote_server = st->serverid;

	/* <table>-<UTC time to the microsecond>-<pid>: the table's name kept to [A-Za-z0-9_] */
	initStringInfo(&prefix);
	for (name = RelationGetRelationName(rel); *name; name++)
		appendStringInfoChar(&prefix, isalnum((unsigned char) *name) ? *name : '_');
	now_t = timestamptz_to_time_t(now);
	pg_strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", pg_gmtime(&now_t));
	appendStringInfo(&prefix, "-%s%06d-%d", stamp,
					 (int) (now % USECS_PER_SEC + USECS_PER_SEC) % (int) USECS_PER_SEC,
					 MyProcPid);
	st->name_prefix = prefix.data;

	memset(&hctl, 0, sizeof(hctl));
	hctl.keysize = MAXPGPATH;
	hctl.entrysize = sizeof(PfOpenFile);
	hctl.hcxt = st->cxt;
	st->files = hash_create("parquet_fdw insert files", 16, &hctl,
							HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	initStringInfo(&st->folder_buf);
	MemoryContextSwitchTo(old);
	return st;
}

void
pfBeginForeignModify(ModifyTableState *mtstate, ResultRelInfo *rinfo,
					 List *fdw_private, int subplan_index, int eflags)
{
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	rinfo->ri_FdwState = begin_insert(rinfo->ri_RelationDesc,
									  mtstate->ps.state);
}

void
pfBeginForeignInsert(ModifyTableState *mtstate, ResultRelInfo *rinfo)
{
	rinfo->ri_FdwState = begin_insert(rinfo->ri_RelationDesc,
									  mtstate->ps.state);
}

static void
put_row(PfModifyState *st, TupleTableSlot *slot)
{
	PfOpenFile *of;
	TupleTableSlot *fs = st->file_slot;

	slot_getallattrs(slot);
	of = file_for_row(st, slot);
	ExecClearTuple(fs);
	for (int i = 0; i < st->file_desc->natts; i++)
	{
		AttrNumber	a = st->file_attnos[i];

		fs->tts_values[i] = slot->tts_values[a - 1];
		fs->tts_isnull[i] = slot->tts_isnull[a - 1];
	}
	ExecStoreVirtualTuple(fs);
	pf_sink_put(of->sink, fs);
}

TupleTableSlot *
pfExecForeignInsert(EState *estate, ResultRelInfo *rinfo,
					TupleTableSlot *slot, TupleTableSlot *planSlot)
{
	put_row((PfModifyState *) rinfo->ri_FdwState, slot);
	return slot;
}

TupleTableSlot **
pfExecForeignBatchInsert(EState *estate, ResultRelInfo *rinfo,
						 TupleTableSlot **slots, TupleTableSlot **planSlots,
						 int *numSlots)
{
	PfModifyState *st = (PfModifyState *) rinfo->ri_FdwState;

	for (int i = 0; i < *numSlots; i++)
		put_row(st, slots[i]);
	return slots;
}

/*
 * The batch_size option (table, else server; default 1), 1 when RETURNING
 * or AFTER ROW triggers need each row back at once, as postgres_fdw does.
 */
int
pfGetForeignModifyBatchSize(ResultRelInfo *rinfo)
{
	if (rinfo->ri_projectReturning != NULL ||
		(rinfo->ri_TrigDesc != NULL &&
		 (rinfo->ri_TrigDesc->trig_insert_after_row ||
		  rinfo->ri_TrigDesc->trig_insert_before_row)))
		return 1;
	return Max(1, batch_size_option(rinfo->ri_RelationDesc));
}

/* Finish every open file: fsync and rename into place. */
void
pfEndForeignModify(EState *estate, ResultRelInfo *rinfo)
{
	PfModifyState *st = (PfModifyState *) rinfo->ri_FdwState;
	HASH_SEQ_STATUS seq;
	PfOpenFile *of;

	if (st == NULL)
		return;
	hash_seq_init(&seq, st->files);
	while ((of = hash_seq_search(&seq)) != NULL)
	{
		remember_written(of->path, st->serverid);
		(void) pf_sink_finish(of->sink);
		of->sink = NULL;
	}
	ExecDropSingleTupleTableSlot(st->file_slot);
	MemoryContextDelete(st->cxt);
	rinfo->ri_FdwState = NULL;
}

void
pfEndForeignInsert(EState *estate, ResultRelInfo *rinfo)
{
	pfEndForeignModify(estate, rinfo);
}
