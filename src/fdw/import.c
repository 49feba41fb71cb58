/*-------------------------------------------------------------------------
 *
 * import.c
 *	  Foreign tables whose columns come from the files' schemas:
 *	  IMPORT FOREIGN SCHEMA and parquet_create_foreign_table().
 *
 *	IMPORT FOREIGN SCHEMA "/folder" FROM SERVER s INTO local_schema
 *		one foreign table per *.parquet file and *.amudai.shard shard of
 *		the folder (not recursive),
 *		named after the file without its extension, and one per subfolder
 *		holding *.parquet files (at any depth; hidden, "_"-prefixed and
 *		"key=value" folders excepted), named after the subfolder and
 *		reading all its files; LIMIT TO and EXCEPT name tables.
 *
 *	parquet_create_foreign_table(table_name, server, filename)
 *		one foreign table over a file, a folder or a pattern (as the
 *		filename option reads them); table_name is taken literally (no
 *		case folding, no schema qualification: the table goes into the
 *		current creation schema).
 *
 * Columns are the first file's top-level fields, in file order, with the
 * default type mapping of convert.c, then the hive-style partition keys of
 * the files' folders ("key=value") that the first file lacks, in order of
 * appearance, typed by their values: bigint when all are integers, date
 * when all are dates (YYYY-MM-DD), text otherwise.  Both read files, so
 * both require superuser or pg_read_server_files, as the filename option
 * does.
 *
 * IDENTIFICATION
 *	  src/fdw/import.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "catalog/namespace.h"
#include "executor/spi.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "parser/scansup.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/memutils.h"

#include "fdw/parquet_fdw.h"
#include "fdw/amudai_fdw.h"

PG_FUNCTION_INFO_V1(parquet_create_foreign_table);

#define PF_PARQUET_SUFFIX ".parquet"
#define PF_SHARD_SUFFIX ".amudai.shard"

/* Length of the data-file suffix a file name ends with (any case), or 0. */
static size_t
data_file_suffix_len(const char *name)
{
	static const char *const suffixes[] = {PF_PARQUET_SUFFIX, PF_SHARD_SUFFIX};
	size_t		len = strlen(name);

	for (int i = 0; i < lengthof(suffixes); i++)
	{
		size_t		slen = strlen(suffixes[i]);

		if (len > slen && pg_strcasecmp(name + len - slen, suffixes[i]) == 0)
			return slen;
	}
	return 0;
}

/*
 * A path as one entry of the filename option (see option.c): double-quoted
 * when it holds a comma or a double quote or starts or ends with a blank.
 */
static char *
filename_option_entry(const char *path)
{
	size_t		len = strlen(path);
	StringInfoData buf;

	if (len > 0 && strpbrk(path, ",\"") == NULL &&
		!scanner_isspace(path[0]) && !scanner_isspace(path[len - 1]))
		return pstrdup(path);

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '"');
	for (const char *p = path; *p; p++)
	{
		if (*p == '"')
			appendStringInfoChar(&buf, '"');
		appendStringInfoChar(&buf, *p);
	}
	appendStringInfoChar(&buf, '"');
	return buf.data;
}

/* An optionally signed run of digits that fits int8. */
static bool
is_int8_text(const char *s)
{
	const char *p = s;
	int			digits = 0;

	if (*p == '-' || *p == '+')
		p++;
	for (; *p; p++, digits++)
		if (*p < '0' || *p > '9')
			return false;
	if (digits == 0 || digits > 19)
		return false;
	return digits < 19 || strtoull(s + (s[0] == '-' || s[0] == '+'), NULL, 10) <=
		(s[0] == '-' ? (unsigned long long) PG_INT64_MAX + 1 : (unsigned long long) PG_INT64_MAX);
}

/* A valid date written YYYY-MM-DD. */
static bool
is_date_text(const char *s)
{
	int			y;
	int			m;
	int			d;

	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
			return false;
	y = atoi(s);
	m = atoi(s + 5);
	d = atoi(s + 8);
	return y >= 1 && m >= 1 && m <= 12 && d >= 1 &&
		d <= day_tab[isleap(y)][m - 1];
}

/* A partition key of the files, with what its values allow it to be. */
typedef struct ImportPartition
{
	const char *key;
	bool		all_int8;
	bool		all_date;
} ImportPartition;

/* Does the file have a top-level field named key (ignoring case)? */
static bool
has_field(const PqSchemaNode *root, const char *key)
{
	for (int i = 0; i < root->num_children; i++)
		if (root->children[i]->name &&
			pg_strcasecmp(root->children[i]->name, key) == 0)
			return true;
	return false;
}

/*
 * The CREATE FOREIGN TABLE statement for the files of a filename entry, its
 * columns read from the first file's footer and the files' partition
 * folders.  NULL when no file matches and missing_ok.
 */
static char *
create_table_sql(const char *table_name, const char *server_name,
				 const char *entry, bool missing_ok)
{
	MemoryContext tmp_cxt;
	MemoryContext old;
	StringInfoData buf;
	PfFile	   *pf;
	const PqSchemaNode *root;
	List	   *files;
	List	   *parts = NIL;
	ListCell   *lc;

	files = pf_expand_filenames(list_make1(pstrdup(entry)));
	if (files == NIL)
	{
		if (missing_ok)
			return NULL;
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("no Parquet file matches \"%s\"", entry)));
	}

	/* Amudai shards: their schema is read by source_amudai.c */
	if (pf_file_is_amudai((const char *) linitial(files)))
		return pf_amudai_create_table_sql(table_name, server_name,
										  (const char *) linitial(files),
										  filename_option_entry(entry));

	initStringInfo(&buf);
	tmp_cxt = AllocSetContextCreate(CurrentMemoryContext,
									"parquet_fdw import",
									ALLOCSET_SMALL_SIZES);
	pf = pf_open_file((const char *) linitial(files), tmp_cxt);
	root = pf->meta->root;

	/* partition keys the first file lacks, typed by all their values */
	foreach(lc, files)
	{
		ListCell   *lp;

		CHECK_FOR_INTERRUPTS();
		foreach(lp, pf_path_partitions((const char *) lfirst(lc)))
		{
			PfPartition *fp = (PfPartition *) lfirst(lp);
			ImportPartition *ip = NULL;
			ListCell   *lk;

			if (has_field(root, fp->key))
				continue;
			foreach(lk, parts)
				if (strcmp(((ImportPartition *) lfirst(lk))->key, fp->key) == 0)
					ip = (ImportPartition *) lfirst(lk);
			if (ip == NULL)
			{
				ip = palloc(sizeof(ImportPartition));
				ip->key = fp->key;
				ip->all_int8 = true;
				ip->all_date = true;
				parts = lappend(parts, ip);
			}
			if (fp->value != NULL)
			{
				ip->all_int8 = ip->all_int8 && is_int8_text(fp->value);
				ip->all_date = ip->all_date && is_date_text(fp->value);
			}
		}
	}

	appendStringInfo(&buf, "CREATE FOREIGN TABLE %s (", quote_identifier(table_name));
	for (int i = 0; i < root->num_children; i++)
	{
		const PqSchemaNode *field = root->children[i];
		char	   *type;

		old = MemoryContextSwitchTo(tmp_cxt);
		type = pf_default_type_sql(field);
		MemoryContextSwitchTo(old);
		appendStringInfo(&buf, "%s\n  %s %s", i > 0 ? "," : "",
						 quote_identifier(field->name ? field->name : ""), type);
	}
	foreach(lc, parts)
	{
		ImportPartition *ip = (ImportPartition *) lfirst(lc);

		appendStringInfo(&buf, "%s\n  %s %s",
						 root->num_children > 0 || foreach_current_index(lc) > 0 ? "," : "",
						 quote_identifier(ip->key),
						 ip->all_int8 ? "bigint" : ip->all_date ? "date" : "text");
	}
	appendStringInfo(&buf, "%s) SERVER %s OPTIONS (filename %s)",
					 root->num_children > 0 || parts != NIL ? "\n" : "",
					 quote_identifier(server_name),
					 quote_literal_cstr(filename_option_entry(entry)));

	pf_close_file(pf);
	MemoryContextDelete(tmp_cxt);
	return buf.data;
}

/* Does LIMIT TO / EXCEPT let table `name` through? */
static bool
import_wanted(ImportForeignSchemaStmt *stmt, const char *name)
{
	ListCell   *lc;
	bool		listed = false;

	if (stmt->list_type == FDW_IMPORT_SCHEMA_ALL)
		return true;
	foreach(lc, stmt->table_list)
	{
		RangeVar   *rv = (RangeVar *) lfirst(lc);

		if (strcmp(rv->relname, name) == 0)
			listed = true;
	}
	return stmt->list_type == FDW_IMPORT_SCHEMA_LIMIT_TO ? listed : !listed;
}

static int
compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * parquetImportForeignSchema
 *		One CREATE FOREIGN TABLE per .parquet file or .amudai.shard shard
 *		of the folder named as the remote schema, in file name order.
 */
List *
parquetImportForeignSchema(ImportForeignSchemaStmt *stmt, Oid serverOid)
{
	const char *folder = stmt->remote_schema;
	ForeignServer *server = GetForeignServer(serverOid);
	List	   *commands = NIL;
	DIR		   *dir;
	struct dirent *de;
	char	  **names;
	int			nnames = 0;
	int			capacity = 16;

	pf_check_file_access("import Parquet files");

	dir = AllocateDir(folder);
	if (dir == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open folder \"%s\": %m", folder),
				 errhint("IMPORT FOREIGN SCHEMA takes the folder holding the Parquet files as the remote schema.")));
	names = palloc(sizeof(char *) * capacity);
	while ((de = ReadDir(dir, folder)) != NULL)
	{
		char	   *path;
		struct stat st;

		CHECK_FOR_INTERRUPTS();
		path = psprintf("%s/%s", folder, de->d_name);
		/* a subfolder: one table over its files (the name keeps a "/") */
		if (de->d_name[0] != '.' && de->d_name[0] != '_' &&
			strchr(de->d_name, '=') == NULL &&
			stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		{
			if (nnames == capacity)
			{
				capacity *= 2;
				names = repalloc(names, sizeof(char *) * capacity);
			}
			names[nnames++] = psprintf("%s/", de->d_name);
			continue;
		}
		if (data_file_suffix_len(de->d_name) == 0)
			continue;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (nnames == capacity)
		{
			capacity *= 2;
			names = repalloc(names, sizeof(char *) * capacity);
		}
		names[nnames++] = pstrdup(de->d_name);
	}
	FreeDir(dir);

	qsort(names, nnames, sizeof(char *), compare_names);
	for (int i = 0; i < nnames; i++)
	{
		size_t		len = strlen(names[i]);
		bool		is_folder = names[i][len - 1] == '/';
		size_t		suffix_len = is_folder ? 1 : data_file_suffix_len(names[i]);
		char	   *table = pnstrdup(names[i], len - suffix_len);
		char	   *path;
		char	   *sql;

		if (!import_wanted(stmt, table))
			continue;
		CHECK_FOR_INTERRUPTS();
		path = psprintf("%s%s%s", folder,
						folder[0] && folder[strlen(folder) - 1] == '/' ? "" : "/",
						table);
		if (!is_folder)
			path = psprintf("%s%s", path, names[i] + len - suffix_len);
		sql = create_table_sql(table, server->servername, path, is_folder);
		if (sql != NULL)
			commands = lappend(commands, sql);
	}
	return commands;
}

/*
 * parquet_create_foreign_table(table_name text, server text, filename text)
 *		Create a foreign table over one file with its columns inferred.
 */
Datum
parquet_create_foreign_table(PG_FUNCTION_ARGS)
{
	char	   *table_name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *server_name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(2));
	char	   *sql;
	int			rc;

	pf_check_file_access("read Parquet files");
	/* a clear error for a missing server before the file is read */
	(void) GetForeignServerByName(server_name, false);
	if (table_name[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table name must not be empty")));
	/* before reading the file, and without the statement in the context */
	if (OidIsValid(RangeVarGetRelid(makeRangeVar(NULL, table_name, -1),
									NoLock, true)))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" already exists", table_name)));

	sql = create_table_sql(table_name, server_name, path, false);

	if ((rc = SPI_connect()) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed: %s", SPI_result_code_string(rc));
	if ((rc = SPI_execute(sql, false, 0)) != SPI_OK_UTILITY)
		elog(ERROR, "SPI_execute failed: %s", SPI_result_code_string(rc));
	SPI_finish();

	PG_RETURN_VOID();
}
