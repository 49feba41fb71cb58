/*-------------------------------------------------------------------------
 *
 * files.c
 *	  Which files a foreign table reads, and which field of a file each of
 *	  its columns reads; virtual columns: the file's path (a column with
 *	  the option filename_column 'true') and hive-style partition values
 *	  from "key=value" folder names.
 *
 * IDENTIFICATION
 *	  src/fdw/files.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>
#include <fnmatch.h>
#include <glob.h>
#include <sys/stat.h>
#include <dirent.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "storage/fd.h"
#include "utils/lsyscache.h"
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
 * table's missing_columns option is 'null', or when the column is virtual
 * in this file (pf_virtual_column).
 */
const PqSchemaNode *
pf_find_column_field(const PqFileMeta *meta, const char *path,
				  Relation rel, const char *attname, const char *field_name,
				  bool missing_error)
{
	AttrNumber	attnum = get_attnum(RelationGetRelid(rel), attname);
	int			i;
	char	   *value;

	if (attnum != InvalidAttrNumber &&
		pf_is_filename_column(RelationGetRelid(rel), attnum))
		return NULL;
	i = match_field(meta, field_name, path);
	if (i >= 0)
		return meta->root->children[i];
	if (pf_partition_value(path, field_name, &value))
		return NULL;
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
 * Virtual columns
 * ----------------------------------------------------------------
 */

bool
pf_is_filename_column(Oid relid, AttrNumber attnum)
{
	ListCell   *lc;

	/* the column's own option first, then the table's naming a column */
	foreach(lc, GetForeignColumnOptions(relid, attnum))
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, "filename_column") == 0)
			return defGetBoolean(def);
	}
	foreach(lc, GetForeignTable(relid)->options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, "filename_column") == 0)
		{
			char	   *attname = get_attname(relid, attnum, true);

			return attname != NULL && strcmp(attname, defGetString(def)) == 0;
		}
	}
	return false;
}

/* Hive's escaping of folder names: %XX is the byte XX. */
static char *
unescape_partition(const char *s, size_t len)
{
	char	   *out = palloc(len + 1);
	size_t		n = 0;

	for (size_t i = 0; i < len; i++)
	{
		if (s[i] == '%' && i + 2 < len &&
			isxdigit((unsigned char) s[i + 1]) &&
			isxdigit((unsigned char) s[i + 2]))
		{
			char		hex[3] = {s[i + 1], s[i + 2], '\0'};

			out[n++] = (char) strtol(hex, NULL, 16);
			i += 2;
		}
		else
			out[n++] = s[i];
	}
	out[n] = '\0';
	return out;
}

List *
pf_path_partitions(const char *path)
{
	List	   *result = NIL;
	const char *p = path;
	const char *slash;

	/* every folder of the path; the file name itself is no partition */
	while ((slash = strchr(p, '/')) != NULL)
	{
		const char *eq = memchr(p, '=', slash - p);

		if (eq != NULL && eq > p)
		{
			PfPartition *part = palloc(sizeof(PfPartition));

			part->key = unescape_partition(p, eq - p);
			part->value = unescape_partition(eq + 1, slash - eq - 1);
			if (strcmp(part->value, "__HIVE_DEFAULT_PARTITION__") == 0)
				part->value = NULL;
			result = lappend(result, part);
		}
		p = slash + 1;
	}
	return result;
}

bool
pf_partition_value(const char *path, const char *key, char **value)
{
	PfPartition *exact = NULL;
	PfPartition *folded = NULL;
	ListCell   *lc;

	/* the innermost folder wins; an exact name before a case-folded one */
	foreach(lc, pf_path_partitions(path))
	{
		PfPartition *part = (PfPartition *) lfirst(lc);

		if (strcmp(part->key, key) == 0)
			exact = part;
		else if (pg_strcasecmp(part->key, key) == 0)
			folded = part;
	}
	if (exact == NULL)
		exact = folded;
	if (exact == NULL)
		return false;
	*value = exact->value;
	return true;
}

bool
pf_virtual_column(const PqFileMeta *meta, const char *path, Relation rel,
				  AttrNumber attnum, const char *field_name, char **value)
{
	if (pf_is_filename_column(RelationGetRelid(rel), attnum))
	{
		*value = pstrdup(path);
		return true;
	}
	if (meta != NULL && match_field(meta, field_name, path) >= 0)
		return false;
	return pf_partition_value(path, field_name, value);
}

/* ----------------------------------------------------------------
 * Expanding the filename option's entries
 *
 * An entry naming a folder stands for the *.parquet files below it, at any
 * depth, skipping hidden and "_"-prefixed names (Spark's _SUCCESS and
 * _metadata, .crc files); an entry with a wildcard (* ? [) is a glob(3)
 * pattern whose matches are used the same way, where a "**" component
 * also matches any number of folders (none included; hidden and
 * "_"-prefixed ones skipped).  Files come in path order,
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

/*
 * Match the pattern components parts[0..nparts) below folder base, adding
 * the matching paths to *matches.
 */
static void
expand_components(const char *base, char **parts, int nparts, List **matches)
{
	const char *comp;
	DIR		   *dir;
	struct dirent *de;
	struct stat st;

	CHECK_FOR_INTERRUPTS();
	if (nparts == 0)
	{
		if (stat(base, &st) == 0)
			*matches = lappend(*matches, pstrdup(base));
		return;
	}
	comp = parts[0];
	if (strpbrk(comp, "*?[") == NULL)
	{
		char	   *path = psprintf("%s/%s", base, comp);

		if (stat(path, &st) == 0)
			expand_components(path, parts + 1, nparts - 1, matches);
		return;
	}
	if (strcmp(comp, "**") == 0)
		expand_components(base, parts + 1, nparts - 1, matches);
	dir = AllocateDir(base[0] ? base : "/");
	if (dir == NULL)
		return;					/* not a folder, or unreadable: no match */
	while ((de = ReadDir(dir, base[0] ? base : "/")) != NULL)
	{
		char	   *path;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		path = psprintf("%s/%s", base, de->d_name);
		if (strcmp(comp, "**") == 0)
		{
			/* one folder deeper, still under "**" */
			if (de->d_name[0] != '.' && de->d_name[0] != '_' &&
				stat(path, &st) == 0 && S_ISDIR(st.st_mode))
				expand_components(path, parts, nparts, matches);
		}
		else if (fnmatch(comp, de->d_name, FNM_PERIOD) == 0)
			expand_components(path, parts + 1, nparts - 1, matches);
	}
	FreeDir(dir);
}

/* The matches of a pattern with "**" components, sorted, without repeats. */
static List *
expand_recursive_pattern(const char *pattern)
{
	List	   *parts = NIL;
	List	   *matches = NIL;
	List	   *result = NIL;
	char	  **comps;
	char	   *copy = pstrdup(pattern);
	char	   *p;
	const char *base;
	ListCell   *lc;
	int			n = 0;

	for (p = strtok(copy, "/"); p != NULL; p = strtok(NULL, "/"))
		parts = lappend(parts, p);
	comps = palloc(sizeof(char *) * Max(1, list_length(parts)));
	foreach(lc, parts)
		comps[n++] = (char *) lfirst(lc);
	base = pattern[0] == '/' ? "" : ".";
	expand_components(base, comps, n, &matches);
	list_sort(matches, compare_paths);
	foreach(lc, matches)
	{
		char	   *path = (char *) lfirst(lc);

		/* a relative pattern's matches without the "./" added above */
		if (pattern[0] != '/' && strncmp(path, "./", 2) == 0)
			path += 2;
		if (result == NIL || strcmp(path, (char *) llast(result)) != 0)
			result = lappend(result, path);
	}
	return result;
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

			if (strstr(entry, "**") != NULL)
			{
				List	   *found = NIL;
				char	   *prev = NULL;

				foreach(lc2, expand_recursive_pattern(entry))
				{
					char	   *path = (char *) lfirst(lc2);

					if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
						expand_folder(path, &found);
					else
						found = lappend(found, path);
				}
				/* a trailing "**" matches nested folders: each file once */
				list_sort(found, compare_paths);
				foreach(lc2, found)
				{
					char	   *path = (char *) lfirst(lc2);

					if (prev == NULL || strcmp(prev, path) != 0)
						files = lappend(files, path);
					prev = path;
				}
				continue;
			}
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
