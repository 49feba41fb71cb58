/*-------------------------------------------------------------------------
 *
 * import.c
 *	  Foreign tables whose columns come from the files' schemas:
 *	  IMPORT FOREIGN SCHEMA and parquet_create_foreign_table().
 *
 *	IMPORT FOREIGN SCHEMA "/folder" FROM SERVER s INTO local_schema
 *		one foreign table per *.parquet file and *.amudai.shard shard of
 *		the folder (not recursive), named after the file without its
 *		extension, and one per subfolder holding *.parquet files (at any
 *		depth), named after the subfolder and reading all its files.  A
 *		hive dataset root, a folder whose subfolders are all "key=value"
 *		folders, is one dataset: one table named after the folder, with
 *		the partition columns.  Every entry that makes no table (hidden,
 *		"_"-prefixed, not a data file, an empty folder, ...) gets a NOTICE
 *		saying why; LIMIT TO and EXCEPT name tables.
 *
 *	parquet_create_foreign_table(table_name, server, filename)
 *		one foreign table over a file, a folder or a pattern (as the
 *		filename option reads them; an existing file or folder is taken
 *		literally, anything else as a pattern); table_name is taken
 *		literally (no case folding, no schema qualification: the table
 *		goes into the current creation schema).
 *
 * Paths are stored in the filename option escaped (\*, \?, \[, \, and \\),
 * so a folder named "a*" reads only itself, never its sibling "abc".
 *
 * Columns are the union by name of the fields of the first
 * PF_IMPORT_SAMPLE_FILES files in path order (a later file's new field
 * comes after the earlier ones), each with the default type mapping of
 * convert.c, widened where files differ (smallint to integer to bigint,
 * real to double precision, integers and decimals to a numeric covering
 * both, date to timestamp); types that do not widen (text and integer)
 * are an error naming the column and both files.  A file without some
 * column reads it as NULL (plan.c).  Then come the hive-style partition
 * keys of the files' folders ("key=value") that no field has, in order of
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
#include "catalog/pg_type.h"
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
#include "utils/numeric.h"

#include "fdw/parquet_fdw.h"
#include "fdw/amudai_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_files.h"
#include "fdw/remote_object.h"

PG_FUNCTION_INFO_V1(parquet_create_foreign_table);

#define PF_PARQUET_SUFFIX ".parquet"
#define PF_SHARD_SUFFIX ".amudai.shard"

/*
 * Files whose fields make the columns: reading every footer of a large
 * dataset would make IMPORT as slow as a scan of it.  Files past these
 * read the columns they have; a field only they hold is not a column.
 */
#define PF_IMPORT_SAMPLE_FILES 100

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
 * An escaped path as one entry of the filename option (see option.c):
 * double-quoted when it holds a double quote or starts or ends with a
 * blank (its commas are escaped already).
 */
static char *
filename_option_entry(const char *path)
{
	size_t		len = strlen(path);
	StringInfoData buf;

	if (len > 0 && strchr(path, '"') == NULL &&
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

/* A column of the table being made: the union of the sampled files' fields. */
typedef struct ImportColumn
{
	const char *name;
	Oid			typid;
	int32		typmod;
	const char *file;			/* the first file giving this type */
} ImportColumn;

/* The column named name (exact, else ignoring case), or NULL. */
static ImportColumn *
find_column(List *columns, const char *name)
{
	ListCell   *lc;

	foreach(lc, columns)
		if (strcmp(((ImportColumn *) lfirst(lc))->name, name) == 0)
			return (ImportColumn *) lfirst(lc);
	foreach(lc, columns)
		if (pg_strcasecmp(((ImportColumn *) lfirst(lc))->name, name) == 0)
			return (ImportColumn *) lfirst(lc);
	return NULL;
}

static bool
is_integer_type(Oid typid)
{
	return typid == INT2OID || typid == INT4OID || typid == INT8OID;
}

/* Digits of an integer type, so that it widens to numeric(digits, 0). */
static int32
integer_digits(Oid typid)
{
	return typid == INT2OID ? 5 : typid == INT4OID ? 10 : 19;
}

/* numeric(precision, scale) as (precision, scale); -1, -1: unconstrained. */
static void
numeric_parts(Oid typid, int32 typmod, int32 *precision, int32 *scale)
{
	if (is_integer_type(typid))
	{
		*precision = integer_digits(typid);
		*scale = 0;
	}
	else if (typmod < (int32) VARHDRSZ)
		*precision = *scale = -1;
	else
	{
		*precision = ((typmod - VARHDRSZ) >> 16) & 0xffff;
		*scale = (typmod - VARHDRSZ) & 0xffff;
	}
}

/*
 * The type that holds the values of both (a, amod) and (b, bmod) exactly,
 * as PostgreSQL's UNION would resolve them, or false when there is none:
 * integers widen to the wider integer, float4 to float8, integers and
 * decimals to a numeric whose digits cover both sides, date to timestamp.
 * Integers with floats (int8 would lose digits), and the time zone aware
 * timestamptz with anything else, do not mix.
 */
static bool
widen_type(Oid a, int32 amod, Oid b, int32 bmod, Oid *typid, int32 *typmod)
{
	if (a == b && amod == bmod)
	{
		*typid = a;
		*typmod = amod;
		return true;
	}
	if (is_integer_type(a) && is_integer_type(b))
	{
		*typid = a == INT8OID || b == INT8OID ? INT8OID :
			a == INT4OID || b == INT4OID ? INT4OID : INT2OID;
		*typmod = -1;
		return true;
	}
	if ((a == FLOAT4OID || a == FLOAT8OID) && (b == FLOAT4OID || b == FLOAT8OID))
	{
		*typid = FLOAT8OID;
		*typmod = -1;
		return true;
	}
	if ((a == NUMERICOID || is_integer_type(a)) &&
		(b == NUMERICOID || is_integer_type(b)))
	{
		int32		ap;
		int32		as;
		int32		bp;
		int32		bs;
		int32		scale;
		int32		precision;

		numeric_parts(a, amod, &ap, &as);
		numeric_parts(b, bmod, &bp, &bs);
		*typid = NUMERICOID;
		*typmod = -1;
		if (ap < 0 || bp < 0)
			return true;
		scale = Max(as, bs);
		precision = Max(ap - as, bp - bs) + scale;
		if (precision <= NUMERIC_MAX_PRECISION)
			*typmod = ((precision << 16) | scale) + VARHDRSZ;
		return true;
	}
	if ((a == DATEOID && b == TIMESTAMPOID) || (a == TIMESTAMPOID && b == DATEOID))
	{
		*typid = TIMESTAMPOID;
		*typmod = a == TIMESTAMPOID ? amod : bmod;
		return true;
	}
	if (a == b)
	{
		/* same type, other precision (timestamp(3) and timestamp(6)) */
		*typid = a;
		*typmod = amod < 0 || bmod < 0 ? -1 : Max(amod, bmod);
		return true;
	}
	return false;
}

/* Add a file's field to the union of columns, widening its type. */
static List *
add_column(List *columns, const char *name, Oid typid, int32 typmod,
		   const char *file)
{
	ImportColumn *col = find_column(columns, name);

	if (col == NULL)
	{
		col = palloc(sizeof(ImportColumn));
		col->name = pstrdup(name);
		col->typid = typid;
		col->typmod = typmod;
		col->file = pstrdup(file);
		return lappend(columns, col);
	}
	if (!widen_type(col->typid, col->typmod, typid, typmod,
					&col->typid, &col->typmod))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" is %s in file \"%s\" but %s in file \"%s\"",
						col->name, format_type_with_typemod(col->typid, col->typmod),
						col->file, format_type_with_typemod(typid, typmod), file),
				 errhint("Declare the table with CREATE FOREIGN TABLE and a type both convert to, or read the files in separate tables.")));
	return columns;
}

/* The union with the fields of a Parquet file (by name, in file order). */
static List *
add_parquet_columns(List *columns, const char *path, Oid serverid)
{
	MemoryContext tmp_cxt = AllocSetContextCreate(CurrentMemoryContext,
												  "parquet_fdw import",
												  ALLOCSET_SMALL_SIZES);
	PfFile	   *pf;
	const PqSchemaNode *root;

	/* the table is made from this footer: ask the store, trust nothing */
	if (pf_is_url(path))
		pf_remote_forget(path);
	pf = pf_open_file_at(path, serverid, tmp_cxt);
	root = pf->meta->root;

	for (int i = 0; i < root->num_children; i++)
	{
		const PqSchemaNode *field = root->children[i];
		Oid			typid;
		int32		typmod;

		pf_default_type(field, &typid, &typmod);
		columns = add_column(columns, field->name ? field->name : "",
							 typid, typmod, path);
	}
	pf_close_file(pf);
	MemoryContextDelete(tmp_cxt);
	return columns;
}

/* The same for an Amudai shard; fields without a PostgreSQL type are left out. */
static List *
add_shard_columns(List *columns, const char *path, Oid serverid)
{
	MemoryContext tmp_cxt = AllocSetContextCreate(CurrentMemoryContext,
												  "parquet_fdw amudai import",
												  ALLOCSET_SMALL_SIZES);
	PfShard    *ps = pf_open_shard_at(path, serverid, tmp_cxt);
	const AmSchema *schema = am_shard_schema(ps->shard);

	for (uint32 i = 0; i < schema->num_fields; i++)
	{
		const AmSchemaNode *n = &schema->nodes[schema->fields[i]];
		char	   *name = pnstrdup((const char *) n->name.data, n->name.len);
		Oid			typid;
		int32		typmod;

		if (!pf_amudai_default_type(schema, schema->fields[i], &typid, &typmod))
		{
			ereport(NOTICE,
					(errmsg("field \"%s\" of Amudai shard \"%s\" has no PostgreSQL type yet and is left out",
							name, path)));
			continue;
		}
		columns = add_column(columns, name, typid, typmod, path);
	}
	pf_close_shard(ps);
	MemoryContextDelete(tmp_cxt);
	return columns;
}

/* The partition keys of the files' folders, typed by all their values. */
static List *
file_partitions(List *files)
{
	List	   *parts = NIL;
	ListCell   *lc;

	foreach(lc, files)
	{
		ListCell   *lp;

		CHECK_FOR_INTERRUPTS();
		foreach(lp, pf_path_partitions((const char *) lfirst(lc)))
		{
			PfPartition *fp = (PfPartition *) lfirst(lp);
			ImportPartition *ip = NULL;
			ListCell   *lk;

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
	return parts;
}

/*
 * The CREATE FOREIGN TABLE statement for the files of a filename entry (as
 * stored: literal paths escaped): its columns are the union by name of the
 * first PF_IMPORT_SAMPLE_FILES files' fields, then the partition keys of
 * all the files' folders that no field has.  NULL when no file matches and
 * missing_ok.
 */
static char *
create_table_sql(const char *table_name, const char *server_name,
				 const char *entry, bool missing_ok)
{
	StringInfoData buf;
	List	   *files;
	List	   *columns = NIL;
	bool		shards;
	int			ncols = 0;
	ListCell   *lc;
	Oid			serverid = get_foreign_server_oid(server_name, false);

	files = pf_expand_filenames_at(list_make1(pstrdup(entry)), serverid);
	if (files == NIL)
	{
		if (missing_ok)
			return NULL;
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("no Parquet file matches \"%s\"", entry)));
	}

	/* the first file decides the format, as for the table's scans */
	shards = pf_file_is_amudai((const char *) linitial(files));
	foreach(lc, files)
	{
		if (foreach_current_index(lc) >= PF_IMPORT_SAMPLE_FILES)
			break;
		CHECK_FOR_INTERRUPTS();
		columns = shards ?
			add_shard_columns(columns, (const char *) lfirst(lc), serverid) :
			add_parquet_columns(columns, (const char *) lfirst(lc), serverid);
	}

	initStringInfo(&buf);
	appendStringInfo(&buf, "CREATE FOREIGN TABLE %s (", quote_identifier(table_name));
	foreach(lc, columns)
	{
		ImportColumn *col = (ImportColumn *) lfirst(lc);

		appendStringInfo(&buf, "%s\n  %s %s", ncols++ > 0 ? "," : "",
						 quote_identifier(col->name),
						 format_type_with_typemod(col->typid, col->typmod));
	}
	foreach(lc, file_partitions(files))
	{
		ImportPartition *ip = (ImportPartition *) lfirst(lc);

		/* a field of the files holds the key's values already */
		if (find_column(columns, ip->key) != NULL)
			continue;
		appendStringInfo(&buf, "%s\n  %s %s", ncols++ > 0 ? "," : "",
						 quote_identifier(ip->key),
						 ip->all_int8 ? "bigint" : ip->all_date ? "date" : "text");
	}
	appendStringInfo(&buf, "%s) SERVER %s OPTIONS (filename %s)",
					 ncols > 0 ? "\n" : "",
					 quote_identifier(server_name),
					 quote_literal_cstr(filename_option_entry(entry)));
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

/* What IMPORT sees in a folder entry. */
typedef enum ImportEntryKind
{
	ENTRY_HIDDEN,				/* ".x" or "_x": Spark's _SUCCESS, .crc files */
	ENTRY_FOLDER,
	ENTRY_PARTITION,			/* a "key=value" folder */
	ENTRY_DATA_FILE,			/* *.parquet, *.amudai.shard */
	ENTRY_OTHER_FILE,
	ENTRY_SPECIAL				/* FIFO, socket, device, dangling link */
} ImportEntryKind;

typedef struct ImportEntry
{
	char	   *name;
	ImportEntryKind kind;
} ImportEntry;

static int
compare_entries(const void *a, const void *b)
{
	return strcmp(((const ImportEntry *) a)->name, ((const ImportEntry *) b)->name);
}

/* A bucket folder's entries, classified as read_folder() does. */
static ImportEntry *
read_remote_folder(const char *url, Oid serverid, int *nentries)
{
	List	   *listed = pf_remote_list_folder(url, serverid);
	ImportEntry *entries = palloc(sizeof(ImportEntry) * Max(list_length(listed), 1));
	ListCell   *lc;
	int			n = 0;

	foreach(lc, listed)
	{
		PfRemoteEntry *r = (PfRemoteEntry *) lfirst(lc);
		ImportEntry *e = &entries[n++];

		e->name = r->name;
		if (r->name[0] == '.' || r->name[0] == '_')
			e->kind = ENTRY_HIDDEN;
		else if (r->folder)
			e->kind = strchr(r->name, '=') > r->name ? ENTRY_PARTITION : ENTRY_FOLDER;
		else if (data_file_suffix_len(r->name) > 0)
			e->kind = ENTRY_DATA_FILE;
		else
			e->kind = ENTRY_OTHER_FILE;
	}
	qsort(entries, n, sizeof(ImportEntry), compare_entries);
	*nentries = n;
	return entries;
}

/* The folder's entries but "." and "..", classified, in name order. */
static ImportEntry *
read_folder(const char *folder, int *nentries)
{
	DIR		   *dir;
	struct dirent *de;
	ImportEntry *entries;
	int			n = 0;
	int			capacity = 16;

	dir = AllocateDir(folder);
	if (dir == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open folder \"%s\": %m", folder),
				 errhint("IMPORT FOREIGN SCHEMA takes the folder holding the Parquet files as the remote schema.")));
	entries = palloc(sizeof(ImportEntry) * capacity);
	while ((de = ReadDir(dir, folder)) != NULL)
	{
		struct stat st;
		ImportEntry *e;

		CHECK_FOR_INTERRUPTS();
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == capacity)
		{
			capacity *= 2;
			entries = repalloc(entries, sizeof(ImportEntry) * capacity);
		}
		e = &entries[n++];
		e->name = pstrdup(de->d_name);
		if (de->d_name[0] == '.' || de->d_name[0] == '_')
			e->kind = ENTRY_HIDDEN;
		else if (stat(psprintf("%s/%s", folder, de->d_name), &st) != 0)
			e->kind = ENTRY_SPECIAL;
		else if (S_ISDIR(st.st_mode))
			e->kind = strchr(de->d_name, '=') > de->d_name ?
				ENTRY_PARTITION : ENTRY_FOLDER;
		else if (!S_ISREG(st.st_mode))
			e->kind = ENTRY_SPECIAL;
		else if (data_file_suffix_len(de->d_name) > 0)
			e->kind = ENTRY_DATA_FILE;
		else
			e->kind = ENTRY_OTHER_FILE;
	}
	FreeDir(dir);
	qsort(entries, n, sizeof(ImportEntry), compare_entries);
	*nentries = n;
	return entries;
}

/*
 * NOTICE: the entry makes no table, and why (not for the entries LIMIT TO
 * or EXCEPT leave out by their name).
 */
static void
notice_skipped(ImportForeignSchemaStmt *stmt, const ImportEntry *e,
			   bool dataset)
{
	const char *why = NULL;

	if (!import_wanted(stmt, e->name))
		return;

	switch (e->kind)
	{
		case ENTRY_HIDDEN:
			why = e->name[0] == '.' ? "hidden (its name starts with \".\")" :
				"hidden (its name starts with \"_\")";
			break;
		case ENTRY_PARTITION:
			why = "a \"key=value\" partition folder next to folders that are not partitions";
			break;
		case ENTRY_OTHER_FILE:
			why = "not a Parquet file (*.parquet) or Amudai shard (*.amudai.shard)";
			break;
		case ENTRY_DATA_FILE:
			/* only a dataset root's shards: its folders are read for Parquet files */
			why = "an Amudai shard in a hive dataset, which reads its Parquet files";
			break;
		case ENTRY_SPECIAL:
			why = "not a regular file or folder";
			break;
		case ENTRY_FOLDER:
			why = dataset ? "a folder not named \"key=value\" in a hive dataset" :
				"a folder without Parquet files";
			break;
	}
	ereport(NOTICE,
			(errmsg("skipping \"%s\": %s", e->name, why)));
}

/* The path of a folder entry: folder "/" name. */
static char *
entry_path(const char *folder, const char *name)
{
	return psprintf("%s%s%s", folder,
					folder[0] && folder[strlen(folder) - 1] == '/' ? "" : "/",
					name);
}

/*
 * The last component of a folder path ("/data/sales/" -> "sales"): a
 * dataset root's table name.
 */
static char *
folder_name(const char *folder)
{
	size_t		len = strlen(folder);
	const char *start;

	while (len > 1 && folder[len - 1] == '/')
		len--;
	start = folder + len;
	while (start > folder && start[-1] != '/')
		start--;
	return pnstrdup(start, folder + len - start);
}

/*
 * parquetImportForeignSchema
 *		One CREATE FOREIGN TABLE per .parquet file or .amudai.shard shard
 *		and per subfolder of the folder named as the remote schema, in name
 *		order, or one for the whole folder when it is a hive dataset root.
 */
List *
parquetImportForeignSchema(ImportForeignSchemaStmt *stmt, Oid serverOid)
{
	const char *folder = stmt->remote_schema;
	ForeignServer *server = GetForeignServer(serverOid);
	List	   *commands = NIL;
	ImportEntry *entries;
	int			nentries;
	int			nfolders = 0;
	int			npartitions = 0;
	bool		dataset;

	/* a URL reads no server file: pf_remote_store checks its own right */
	if (!pf_is_url(folder))
		pf_check_file_access("import Parquet files");

	entries = pf_is_url(folder) ? read_remote_folder(folder, serverOid, &nentries) :
		read_folder(folder, &nentries);
	for (int i = 0; i < nentries; i++)
	{
		nfolders += entries[i].kind == ENTRY_FOLDER;
		npartitions += entries[i].kind == ENTRY_PARTITION;
	}

	/*
	 * Partition folders only: the folder is one dataset (a key=value
	 * folder itself, or the root above them).  Its Parquet files, at any
	 * depth, are the table's, its key=value folders the partition columns.
	 */
	dataset = npartitions > 0 && nfolders == 0;
	if (dataset)
	{
		char	   *table = folder_name(folder);

		for (int i = 0; i < nentries; i++)
			if (entries[i].kind != ENTRY_PARTITION &&
				!(entries[i].kind == ENTRY_DATA_FILE &&
				  data_file_suffix_len(entries[i].name) == strlen(PF_PARQUET_SUFFIX)))
				notice_skipped(stmt, &entries[i], true);
		if (import_wanted(stmt, table))
		{
			char	   *sql = create_table_sql(table, server->servername,
											   pf_escape_path(folder), true);

			if (sql == NULL)
				ereport(NOTICE,
						(errmsg("skipping hive dataset \"%s\": no Parquet file in its partition folders",
								folder)));
			else
				commands = lappend(commands, sql);
		}
		return commands;
	}

	for (int i = 0; i < nentries; i++)
	{
		ImportEntry *e = &entries[i];
		size_t		len = strlen(e->name);
		char	   *table;
		char	   *sql;

		CHECK_FOR_INTERRUPTS();
		if (e->kind == ENTRY_FOLDER)
			table = e->name;
		else if (e->kind == ENTRY_DATA_FILE)
			table = pnstrdup(e->name, len - data_file_suffix_len(e->name));
		else
		{
			notice_skipped(stmt, e, false);
			continue;
		}
		if (!import_wanted(stmt, table))
			continue;
		sql = create_table_sql(table, server->servername,
							   pf_escape_path(entry_path(folder, e->name)),
							   e->kind == ENTRY_FOLDER);
		if (sql == NULL)
			notice_skipped(stmt, e, false);
		else
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
	struct stat st;
	int			rc;

	/* a URL reads no server file: pf_remote_store checks its own right */
	if (!pf_is_url(path))
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

	/* an existing file or folder is literal; anything else a pattern */
	if (!pf_is_url(path) && stat(path, &st) == 0)
		path = pf_escape_path(path);
	sql = create_table_sql(table_name, server_name, path, false);

	if ((rc = SPI_connect()) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed: %s", SPI_result_code_string(rc));
	if ((rc = SPI_execute(sql, false, 0)) != SPI_OK_UTILITY)
		elog(ERROR, "SPI_execute failed: %s", SPI_result_code_string(rc));
	SPI_finish();

	PG_RETURN_VOID();
}
