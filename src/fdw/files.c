/*-------------------------------------------------------------------------
 *
 * files.c
 *	  Which files a foreign table reads, and which field of a file each of
 *	  its columns reads.
 *
 * IDENTIFICATION
 *	  src/fdw/files.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <glob.h>
#include <sys/stat.h>
#include <dirent.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "storage/fd.h"
#include "utils/rel.h"

#include "fdw/parquet_fdw.h"

/* ----------------------------------------------------------------
 * Field matching
 * ----------------------------------------------------------------
 */

/*
 * Index of the file's top-level field a column reads: the one whose name
 * equals `name` exactly, else the only one equal case-insensitively.
 * Returns -1 when there is none; several candidates are an error.
 */
static int
match_field(const PqFileMeta *meta, const char *name, const char *path)
{
	const PqSchemaNode *root = meta->root;
	int			exact = -1;
	int			nexact = 0;
	int			folded = -1;
	int			nfolded = 0;

	for (int i = 0; i < root->num_children; i++)
	{
		const char *fname = root->children[i]->name;

		if (fname == NULL)
			continue;
		if (strcmp(fname, name) == 0)
		{
			exact = i;
			nexact++;
		}
		else if (pg_strcasecmp(fname, name) == 0)
		{
			folded = i;
			nfolded++;
		}
	}
	if (nexact == 1)
		return exact;
	if (nexact > 1)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INCONSISTENT_DESCRIPTOR_INFORMATION),
				 errmsg("Parquet file \"%s\" has %d fields named \"%s\"",
						path, nexact, name)));
	if (nfolded == 1)
		return folded;
	if (nfolded > 1)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INCONSISTENT_DESCRIPTOR_INFORMATION),
				 errmsg("column name \"%s\" is ambiguous in Parquet file \"%s\"",
						name, path),
				 errdetail("%d fields match it case-insensitively and none exactly.",
						   nfolded),
				 errhint("Name the field exactly with the column option column_name.")));
	return -1;
}

/* The file's top-level field names, for hints ("a, b, c", truncated). */
static char *
field_list(const PqFileMeta *meta)
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
		if (i > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf, meta->root->children[i]->name ?
							   meta->root->children[i]->name : "");
	}
	return buf.data;
}

/*
 * The field an attribute reads, or NULL when the file lacks it and the
 * table's missing_columns option is 'null'.
 */
const PqSchemaNode *
pf_find_column_field(const PqFileMeta *meta, const char *path,
				  Relation rel, const char *attname, const char *field_name,
				  bool missing_error)
{
	int			i = match_field(meta, field_name, path);

	if (i >= 0)
		return meta->root->children[i];
	if (missing_error)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_COLUMN_NAME_NOT_FOUND),
				 errmsg("column \"%s\" of foreign table \"%s\" is not in Parquet file \"%s\"",
						attname, RelationGetRelationName(rel), path),
				 strcmp(attname, field_name) != 0 ?
				 errdetail("The column reads the field \"%s\"; the file's fields are: %s.",
						   field_name, field_list(meta)) :
				 errdetail("The file's fields are: %s.", field_list(meta)),
				 errhint("Set the column option column_name to the field to read, or the table option missing_columns to 'null'.")));
	return NULL;
}


/* ----------------------------------------------------------------
 * Expanding the filename option's entries
 *
 * An entry naming a folder stands for the *.parquet files below it, at any
 * depth, skipping hidden and "_"-prefixed names (Spark's _SUCCESS and
 * _metadata, .crc files); an entry with a wildcard (* ? [) is a glob(3)
 * pattern whose matches are used the same way.  Files come in path order,
 * so scans are deterministic.  Anything else is a file, opened as is.
 * ----------------------------------------------------------------
 */
static int
compare_paths(const ListCell *a, const ListCell *b)
{
	return strcmp((const char *) lfirst(a), (const char *) lfirst(b));
}

static bool
has_parquet_suffix(const char *name)
{
	size_t		len = strlen(name);

	return len > 8 && pg_strcasecmp(name + len - 8, ".parquet") == 0;
}

static void
expand_folder(const char *folder, List **files)
{
	DIR		   *dir;
	struct dirent *de;
	List	   *names = NIL;
	ListCell   *lc;

	CHECK_FOR_INTERRUPTS();
	dir = AllocateDir(folder);
	if (dir == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open folder \"%s\": %m", folder)));
	while ((de = ReadDir(dir, folder)) != NULL)
	{
		if (de->d_name[0] == '.' || de->d_name[0] == '_')
			continue;
		names = lappend(names, psprintf("%s/%s", folder, de->d_name));
	}
	FreeDir(dir);
	list_sort(names, compare_paths);
	foreach(lc, names)
	{
		const char *path = (const char *) lfirst(lc);
		struct stat st;

		if (stat(path, &st) != 0)
			continue;			/* vanished, or a dangling link */
		if (S_ISDIR(st.st_mode))
			expand_folder(path, files);
		else if (S_ISREG(st.st_mode) && has_parquet_suffix(path))
			*files = lappend(*files, (char *) path);
	}
}

List *
pf_expand_filenames(List *entries)
{
	List	   *files = NIL;
	ListCell   *lc;

	foreach(lc, entries)
	{
		char	   *entry = (char *) lfirst(lc);
		struct stat st;

		if (strpbrk(entry, "*?[") != NULL)
		{
			glob_t		g;
			int			rc;
			List	   *matches = NIL;
			ListCell   *lc2;

			memset(&g, 0, sizeof(g));
			rc = glob(entry, 0, NULL, &g);
			if (rc != 0 && rc != GLOB_NOMATCH)
			{
				globfree(&g);
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not expand file name pattern \"%s\"", entry)));
			}
			for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++)
				matches = lappend(matches, pstrdup(g.gl_pathv[i]));
			globfree(&g);
			foreach(lc2, matches)
			{
				char	   *path = (char *) lfirst(lc2);

				if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
					expand_folder(path, &files);
				else
					files = lappend(files, path);
			}
		}
		else if (stat(entry, &st) == 0 && S_ISDIR(st.st_mode))
			expand_folder(entry, &files);
		else
			files = lappend(files, entry);
	}
	return files;
}
