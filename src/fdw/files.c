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
#include <sys/stat.h>
#include <dirent.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "foreign/foreign.h"
#include "storage/fd.h"
#include "utils/lsyscache.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_files.h"

/* ----------------------------------------------------------------
 * Field matching
 * ----------------------------------------------------------------
 */

/*
 * Index of the child of group `root` a column reads: the one whose name
 * equals `name` exactly, else the only one equal case-insensitively.
 * Returns -1 when there is none; several candidates are an error.
 */
static int
match_child(const PqSchemaNode *root, const char *name, const char *path)
{
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

/* Index of the file's top-level field named `name` (match_child). */
static int
match_field(const PqFileMeta *meta, const char *name, const char *path)
{
	return match_child(meta->root, name, path);
}

/*
 * A field inside structs named by a dotted path ("loc.lat"), each step
 * matched as match_child() does; NULL unless every step is found and
 * every group passed through is a plain struct (not repeated, not inside
 * a list or map: one value per row).
 */
static const PqSchemaNode *
match_field_path(const PqFileMeta *meta, const char *name, const char *path)
{
	const PqSchemaNode *node = meta->root;
	char	   *copy = pstrdup(name);
	char	   *step = copy;

	for (;;)
	{
		char	   *dot = strchr(step, '.');
		int			i;

		if (dot != NULL)
			*dot = '\0';
		if (node->is_leaf || node->repetition == PQ_REPEATED || node->max_rep > 0)
			return NULL;
		i = match_child(node, step, path);
		if (i < 0)
			return NULL;
		node = node->children[i];
		if (dot == NULL)
			break;
		step = dot + 1;
	}
	pfree(copy);
	return node->repetition == PQ_REPEATED ? NULL : node;
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
	const PqSchemaNode *field;
	int			i;
	char	   *value;

	if (attnum != InvalidAttrNumber &&
		pf_is_filename_column(RelationGetRelid(rel), attnum))
		return NULL;
	i = match_field(meta, field_name, path);
	if (i >= 0)
		return meta->root->children[i];
	if (strchr(field_name, '.') != NULL &&
		(field = match_field_path(meta, field_name, path)) != NULL)
		return field;
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

	/* COPY FROM binds a plain table's columns: no options there */
	if (get_rel_relkind(relid) != RELKIND_FOREIGN_TABLE)
		return false;
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

/* Does the raw (maybe %-escaped) key [k, k + len) name key?  *exact set. */
static bool
partition_key_matches(const char *k, size_t len, const char *key, bool *exact)
{
	char	   *unescaped = NULL;
	bool		match;

	if (memchr(k, '%', len) != NULL)
	{
		unescaped = unescape_partition(k, len);
		k = unescaped;
		len = strlen(unescaped);
	}
	*exact = strlen(key) == len && strncmp(k, key, len) == 0;
	match = *exact || (strlen(key) == len && pg_strncasecmp(k, key, len) == 0);
	if (unescaped)
		pfree(unescaped);
	return match;
}

bool
pf_partition_value(const char *path, const char *key, char **value)
{
	const char *p = path;
	const char *slash;
	const char *exact_eq = NULL;
	const char *exact_end = NULL;
	const char *folded_eq = NULL;
	const char *folded_end = NULL;

	/*
	 * The innermost folder wins; an exact name before a case-folded one.
	 * Scanned in place: planning asks this of thousands of folders.
	 */
	while ((slash = strchr(p, '/')) != NULL)
	{
		const char *eq = memchr(p, '=', slash - p);
		bool		exact;

		if (eq != NULL && eq > p &&
			partition_key_matches(p, eq - p, key, &exact))
		{
			if (exact)
			{
				exact_eq = eq;
				exact_end = slash;
			}
			else
			{
				folded_eq = eq;
				folded_end = slash;
			}
		}
		p = slash + 1;
	}
	if (exact_eq == NULL)
	{
		exact_eq = folded_eq;
		exact_end = folded_end;
	}
	if (exact_eq == NULL)
		return false;
	*value = unescape_partition(exact_eq + 1, exact_end - exact_eq - 1);
	if (strcmp(*value, "__HIVE_DEFAULT_PARTITION__") == 0)
		*value = NULL;
	return true;
}

bool
pf_virtual_column(const PqFileMeta *meta, const char *path, Relation rel,
				  AttrNumber attnum, const char *field_name, char **value)
{
	return pf_virtual_value(meta, path,
							pf_is_filename_column(RelationGetRelid(rel), attnum),
							field_name, value);
}

bool
pf_virtual_value(const PqFileMeta *meta, const char *path,
				 bool is_filename_column, const char *field_name, char **value)
{
	if (is_filename_column)
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
 * _metadata, .crc files); an entry with a wildcard (* ? [) is a pattern
 * as glob(3) reads it (matched by our own walk, which a cancel
 * interrupts), whose matches are used the same way, where a "**" component
 * also matches any number of folders (none included; hidden and
 * "_"-prefixed ones skipped).  Files come in path order,
 * so scans are deterministic.  Anything else is a file, opened as is.
 *
 * A backslash makes the next character literal ("\*" is a '*', "\\" a
 * backslash), as glob(3) reads it: an entry without an unescaped wildcard
 * is a literal path, its escapes removed, so that a folder really named
 * "a*" or "x[1]" can be named (pf_escape_path() spells any path so).
 * An entry that yields no file is an error for a table (pf_table_files)
 * unless its option allow_empty says so: an empty result is then never a
 * mistyped pattern's silence.
 * ----------------------------------------------------------------
 */

/*
 * The pattern matcher local folders and object-store listings share
 * (remote_files.c): where a pattern's first wildcard is, its literal
 * text, its components, and whether one name matches one component.
 */
const char *
pf_first_wildcard(const char *text)
{
	for (const char *p = text; *p; p++)
	{
		if (*p == '\\' && p[1] != '\0')
			p++;
		else if (*p == '*' || *p == '?' || *p == '[')
			return p;
	}
	return NULL;
}

char *
pf_unescape_upto(const char *text, const char *end)
{
	char	   *out = palloc(end - text + 1);
	char	   *o = out;

	for (const char *p = text; p < end; p++)
	{
		if (*p == '\\' && p + 1 < end)
			p++;
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

char **
pf_split_components(const char *text, int *n)
{
	char	   *copy = pstrdup(text);
	char	  **out = palloc(sizeof(char *) * (strlen(text) / 2 + 2));
	char	   *save = NULL;

	*n = 0;
	for (char *p = strtok_r(copy, "/", &save); p; p = strtok_r(NULL, "/", &save))
		out[(*n)++] = p;
	return out;
}

bool
pf_hidden_name(const char *name)
{
	return name[0] == '.' || name[0] == '_';
}

bool
pf_component_matches(const char *pattern, const char *name)
{
	return fnmatch(pattern, name, FNM_PERIOD) == 0;
}

/* Does the entry hold a wildcard (* ? [) no backslash escapes? */
static bool
has_wildcard(const char *entry)
{
	return pf_first_wildcard(entry) != NULL;
}

/*
 * The path a literal entry names: its escapes removed (a lone trailing
 * backslash stays).
 */
static char *
unescape_path(const char *entry)
{
	return pf_unescape_upto(entry, entry + strlen(entry));
}

char *
pf_escape_path(const char *path)
{
	size_t		len = strlen(path);
	char	   *out = palloc(2 * len + 1);
	char	   *o = out;

	for (size_t i = 0; i < len; i++)
	{
		char		c = path[i];

		/*
		 * Wildcards, the option's separator and quote, the escape itself;
		 * blanks only at the ends, where the option's reader trims them.
		 */
		if (strchr("\\*?[],\"", c) != NULL ||
			(isspace((unsigned char) c) && (i == 0 || i == len - 1)))
			*o++ = '\\';
		*o++ = c;
	}
	*o = '\0';
	return out;
}

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

typedef struct PfExpansion PfExpansion;
static List *expand_entries(List *entries, PfExpansion *ex);

/* What expansion carries down the folders: the caller's folder filter. */
struct PfExpansion
{
	PfFolderFilter skip;		/* NULL: none */
	void	   *arg;
	int			nskipped;		/* folders the filter skipped */
	bool		may_repeat;		/* a "**" pattern may visit a folder twice */
	List	   *skipped;		/* ... so then also their paths */
	int			limit;			/* > 0: stop listing after so many files */
	int			found;
	bool		require_files;	/* an entry yielding no file is an error */
	Oid			serverid;		/* whose settings read URL entries */
	StringInfoData buf;			/* skip_child()'s paths */
};

#define EXPANSION_DONE(ex) ((ex)->limit > 0 && (ex)->found >= (ex)->limit)

/*
 * Is the folder named `name` in `parent` one whose name is key=value and
 * which the filter rejects?  Only such folders are offered: the filter
 * judges partition values.  (The path is built in a reused buffer: this
 * runs for every entry of folders of thousands of partitions.)
 */
static bool
skip_child(PfExpansion *ex, const char *parent, const char *name)
{
	if (ex->skip == NULL || strchr(name, '=') == NULL)
		return false;
	if (ex->buf.data == NULL)
		initStringInfo(&ex->buf);
	resetStringInfo(&ex->buf);
	appendStringInfo(&ex->buf, "%s/%s/", parent, name);
	if (!ex->skip(ex->buf.data, ex->arg))
		return false;
	ex->nskipped++;
	if (ex->may_repeat)
		ex->skipped = lappend(ex->skipped, pstrdup(ex->buf.data));
	return true;
}

/* skip_child() for a folder given by its path */
static bool
skip_folder(PfExpansion *ex, const char *folder)
{
	const char *slash = strrchr(folder, '/');
	char	   *parent;
	bool		skip;

	if (ex->skip == NULL || slash == NULL ||
		strchr(slash + 1, '=') == NULL)
		return false;
	parent = pnstrdup(folder, slash - folder);
	skip = skip_child(ex, parent, slash + 1);
	pfree(parent);
	return skip;
}

/* ----------------------------------------------------------------
 * Folder listings
 *
 * Listing a folder of thousands of partition folders is most of the
 * planning of a query that keeps one of them, so large listings are kept
 * per backend, keyed by the folder's path and checked against its inode,
 * mtime and ctime on every use (adding, removing or renaming an entry
 * changes them).  A listing is kept only when the folder has not changed
 * for a couple of seconds: a change within the file system's timestamp
 * granularity of the listing would otherwise go unseen.  The footer
 * cache's size setting turns it off when 0.
 * ----------------------------------------------------------------
 */

/* The entries of a folder a scan may use: *.parquet files and folders. */
typedef struct PfListing
{
	int			count;
	char	  **names;
	bool	   *is_dir;
} PfListing;

typedef struct PfListingEntry
{
	char		path[MAXPGPATH];	/* hash key */
	dev_t		dev;
	ino_t		ino;
	struct timespec mtime;
	struct timespec ctime;
	MemoryContext cxt;			/* holds the listing */
	PfListing	listing;
} PfListingEntry;

#define LISTING_CACHE_MIN_ENTRIES	256 /* smaller folders list quickly */
#define LISTING_CACHE_MAX_NAMES		(4 * 1024 * 1024)	/* over all folders */
#define LISTING_SETTLED_SECONDS		2

static HTAB *listing_cache = NULL;
static MemoryContext listing_cxt = NULL;
static int64 listing_cached_names = 0;

static bool
same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Read folder's entries into *out, allocated in the current context. */
static void
read_listing(const char *folder, PfListing *out)
{
	DIR		   *dir;
	struct dirent *de;
	int			cap = 64;

	out->count = 0;
	out->names = palloc(sizeof(char *) * cap);
	out->is_dir = palloc(sizeof(bool) * cap);
	dir = AllocateDir(folder);
	if (dir == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open folder \"%s\": %m", folder)));
	while ((de = ReadDir(dir, folder)) != NULL)
	{
		bool		is_dir;

		CHECK_FOR_INTERRUPTS();
		if (de->d_name[0] == '.' || de->d_name[0] == '_')
			continue;

		/*
		 * The entry's type from the folder itself where the file system
		 * gives it: a stat() per entry would cost more than the listing.
		 */
		if (de->d_type == DT_DIR || de->d_type == DT_REG)
			is_dir = de->d_type == DT_DIR;
		else
		{
			char	   *path = psprintf("%s/%s", folder, de->d_name);
			struct stat st;
			bool		usable;

			usable = stat(path, &st) == 0 &&
				(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
			pfree(path);
			if (!usable)
				continue;		/* vanished, a dangling link, a device */
			is_dir = S_ISDIR(st.st_mode);
		}
		if (!is_dir && !has_parquet_suffix(de->d_name))
			continue;
		if (out->count == cap)
		{
			cap *= 2;
			out->names = repalloc(out->names, sizeof(char *) * cap);
			out->is_dir = repalloc(out->is_dir, sizeof(bool) * cap);
		}
		out->names[out->count] = pstrdup(de->d_name);
		out->is_dir[out->count] = is_dir;
		out->count++;
	}
	FreeDir(dir);
}

/* Forget every kept listing. */
static void
listing_cache_reset(void)
{
	HASH_SEQ_STATUS seq;
	PfListingEntry *e;

	hash_seq_init(&seq, listing_cache);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		MemoryContextDelete(e->cxt);
		hash_search(listing_cache, e->path, HASH_REMOVE, NULL);
	}
	listing_cached_names = 0;
}

/*
 * The usable entries of folder, in no particular order: from the cache when
 * the folder is unchanged since it was listed.  The listing must not be
 * used after the next call (which may replace it).
 */
static const PfListing *
list_folder(const char *folder, PfListing *scratch)
{
	struct stat st;
	PfListingEntry *entry;
	bool		found;
	struct timespec now;
	MemoryContext cxt;
	MemoryContext old;
	PfListing	copy;

	if (pf_footer_cache_size_kb == 0 || strlen(folder) >= MAXPGPATH ||
		stat(folder, &st) != 0)
	{
		read_listing(folder, scratch);
		return scratch;
	}
	if (listing_cache == NULL)
	{
		HASHCTL		ctl;

		listing_cxt = AllocSetContextCreate(TopMemoryContext,
											"parquet_fdw folder listings",
											ALLOCSET_DEFAULT_SIZES);
		ctl.keysize = MAXPGPATH;
		ctl.entrysize = sizeof(PfListingEntry);
		ctl.hcxt = listing_cxt;
		listing_cache = hash_create("parquet_fdw folder listings", 64, &ctl,
									HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	}
	entry = hash_search(listing_cache, folder, HASH_FIND, NULL);
	if (entry != NULL && entry->dev == st.st_dev && entry->ino == st.st_ino &&
		same_time(&entry->mtime, &st.st_mtim) &&
		same_time(&entry->ctime, &st.st_ctim))
		return &entry->listing;
	if (entry != NULL)
	{
		listing_cached_names -= entry->listing.count;
		MemoryContextDelete(entry->cxt);
		hash_search(listing_cache, folder, HASH_REMOVE, NULL);
	}

	read_listing(folder, scratch);
	clock_gettime(CLOCK_REALTIME, &now);
	if (scratch->count < LISTING_CACHE_MIN_ENTRIES ||
		now.tv_sec - Max(st.st_mtim.tv_sec, st.st_ctim.tv_sec) < LISTING_SETTLED_SECONDS)
		return scratch;
	if (listing_cached_names + scratch->count > LISTING_CACHE_MAX_NAMES)
		listing_cache_reset();	/* full: start over rather than track recency */

	/* a copy in a context of its own; the entry goes in only when made */
	cxt = AllocSetContextCreate(listing_cxt, "parquet_fdw folder listing",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	copy.count = scratch->count;
	copy.names = palloc(sizeof(char *) * Max(1, copy.count));
	copy.is_dir = palloc(sizeof(bool) * Max(1, copy.count));
	for (int i = 0; i < copy.count; i++)
	{
		copy.names[i] = pstrdup(scratch->names[i]);
		copy.is_dir[i] = scratch->is_dir[i];
	}
	MemoryContextSwitchTo(old);
	entry = hash_search(listing_cache, folder, HASH_ENTER, &found);
	entry->dev = st.st_dev;
	entry->ino = st.st_ino;
	entry->mtime = st.st_mtim;
	entry->ctime = st.st_ctim;
	entry->cxt = cxt;
	entry->listing = copy;
	listing_cached_names += copy.count;
	return &entry->listing;
}

/* The files below folder, which the filter has already let through. */
static void
expand_folder_entries(const char *folder, List **files, PfExpansion *ex)
{
	PfListing	scratch;
	const PfListing *listing;
	List	   *names = NIL;
	ListCell   *lc;
	bool		sniffing = ex->limit > 0;

	CHECK_FOR_INTERRUPTS();
	listing = list_folder(folder, &scratch);
	for (int i = 0; i < listing->count; i++)
	{
		char	   *path;
		bool		is_dir = listing->is_dir[i];

		/* partition folders the quals exclude: neither sorted nor listed */
		if (is_dir && skip_child(ex, folder, listing->names[i]))
			continue;
		/* sniffing: a file first, a folder only when there is none */
		if (sniffing && is_dir && names != NIL)
			continue;
		path = psprintf("%s/%s", folder, listing->names[i]);

		/* a file to tell the format by: any will do, the first comes */
		if (sniffing && !is_dir)
		{
			*files = lappend(*files, path);
			if (++ex->found >= ex->limit)
				return;
			continue;
		}
		names = lappend(names, is_dir ? psprintf("%s/", path) : path);
	}

	/*
	 * Path order, a folder's files where its name sorts (as "name/"); the
	 * listing may be gone once subfolders are listed, names are copies.
	 */
	if (!sniffing)
		list_sort(names, compare_paths);
	foreach(lc, names)
	{
		char	   *path = (char *) lfirst(lc);
		size_t		len = strlen(path);

		if (EXPANSION_DONE(ex))
			break;
		if (path[len - 1] == '/')
		{
			path[len - 1] = '\0';
			expand_folder_entries(path, files, ex);
		}
		else
			*files = lappend(*files, path);
	}
}

/* The files below folder, unless the filter skips the folder itself. */
static void
expand_folder(const char *folder, List **files, PfExpansion *ex)
{
	if (!skip_folder(ex, folder))
		expand_folder_entries(folder, files, ex);
}

/*
 * Match the pattern components parts[0..nparts) below folder base, adding
 * the matching paths to *matches.
 */
static void
expand_components(const char *base, char **parts, int nparts, List **matches,
				  PfExpansion *ex)
{
	const char *comp;
	DIR		   *dir;
	struct dirent *de;
	struct stat st;

	CHECK_FOR_INTERRUPTS();
	if (nparts > 0 && skip_folder(ex, base))
		return;
	if (nparts == 0)
	{
		if (stat(base, &st) == 0)
			*matches = lappend(*matches, pstrdup(base));
		return;
	}
	comp = parts[0];
	if (!has_wildcard(comp))
	{
		char	   *path = psprintf("%s/%s", base, unescape_path(comp));

		if (stat(path, &st) == 0)
			expand_components(path, parts + 1, nparts - 1, matches, ex);
		return;
	}
	if (strcmp(comp, "**") == 0)
		expand_components(base, parts + 1, nparts - 1, matches, ex);
	dir = AllocateDir(base[0] ? base : "/");
	if (dir == NULL)
		return;					/* not a folder, or unreadable: no match */
	while ((de = ReadDir(dir, base[0] ? base : "/")) != NULL)
	{
		char	   *path;

		CHECK_FOR_INTERRUPTS();
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		path = psprintf("%s/%s", base, de->d_name);
		if (strcmp(comp, "**") == 0)
		{
			/* one folder deeper, still under "**" */
			if (!pf_hidden_name(de->d_name) &&
				stat(path, &st) == 0 && S_ISDIR(st.st_mode))
				expand_components(path, parts, nparts, matches, ex);
		}
		else if (pf_component_matches(comp, de->d_name))
			expand_components(path, parts + 1, nparts - 1, matches, ex);
	}
	FreeDir(dir);
}

/* The matches of a pattern with "**" components, sorted, without repeats. */
static List *
expand_recursive_pattern(const char *pattern, PfExpansion *ex)
{
	List	   *matches = NIL;
	List	   *result = NIL;
	int			n;
	char	  **comps = pf_split_components(pattern, &n);
	const char *base;
	ListCell   *lc;

	base = pattern[0] == '/' ? "" : ".";
	expand_components(base, comps, n, &matches, ex);
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
	return pf_expand_filenames_at(entries, InvalidOid);
}

List *
pf_expand_filenames_at(List *entries, Oid serverid)
{
	PfExpansion all = {0};

	all.serverid = serverid;
	return expand_entries(entries, &all);
}

/*
 * Only the first file of the expansion matters (format sniffing): folders
 * stop being listed once one is found.
 */
char *
pf_expand_first_filename(List *entries)
{
	return pf_expand_first_filename_at(entries, InvalidOid);
}

char *
pf_expand_first_filename_at(List *entries, Oid serverid)
{
	ListCell   *lc;
	List	   *files;

	foreach(lc, entries)
	{
		PfExpansion first = {.limit = 1, .serverid = serverid};

		files = expand_entries(list_make1(lfirst(lc)), &first);
		if (files != NIL)
			return (char *) linitial(files);
	}
	/* the quick way looks into one subfolder per folder: all may hold one */
	files = pf_expand_filenames_at(entries, serverid);
	return files != NIL ? (char *) linitial(files) : NULL;
}

/* pf_expand_filenames_filtered(), where require_files: pf_table_files() */
static List *
expand_filtered(List *entries, PfFolderFilter skip, void *arg,
				int *folders_skipped, bool require_files, Oid serverid)
{
	PfExpansion expansion = {0};
	List	   *files;
	const char *prev = NULL;
	ListCell   *lc;

	expansion.skip = skip;
	expansion.arg = arg;
	expansion.require_files = require_files;
	expansion.serverid = serverid;
	files = expand_entries(entries, &expansion);
	if (folders_skipped == NULL)
		return files;
	*folders_skipped = expansion.nskipped;
	if (!expansion.may_repeat)
		return files;
	/* under "**" a folder may have been skipped twice: count it once */
	*folders_skipped = 0;
	list_sort(expansion.skipped, compare_paths);
	foreach(lc, expansion.skipped)
	{
		if (prev == NULL || strcmp(prev, (char *) lfirst(lc)) != 0)
			(*folders_skipped)++;
		prev = (char *) lfirst(lc);
	}
	return files;
}

List *
pf_expand_filenames_filtered(List *entries, PfFolderFilter skip, void *arg,
							 int *folders_skipped)
{
	return expand_filtered(entries, skip, arg, folders_skipped, false,
						   InvalidOid);
}

List *
pf_table_files(const PfTableOptions *opts, PfFolderFilter skip, void *arg,
			   int *folders_skipped)
{
	return expand_filtered(opts->filenames, skip, arg, folders_skipped,
						   !opts->allow_empty, opts->serverid);
}

/* An entry of a table's filename option that yields no file. */
static void pg_attribute_noreturn()
report_no_files(const char *entry)
{
	struct stat st;
	const char *hint = "Set the table option allow_empty to 'true' if it may yield no file.";

	if (has_wildcard(entry))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("no file matches the pattern \"%s\"", entry),
				 errhint("%s", hint)));
	if (stat(unescape_path(entry), &st) == 0 && S_ISDIR(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("folder \"%s\" holds no Parquet file", entry),
				 errdetail("Files named *.parquet are read at any depth, names starting with \".\" or \"_\" skipped."),
				 errhint("%s", hint)));
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_FILE),
			 errmsg("\"%s\" yields no file", entry),
			 errhint("%s", hint)));
}

/*
 * The matches of a pattern without "**", appended to files.  Our own walk
 * (expand_components), not glob(3): glob cannot be interrupted, and on a
 * huge tree it held the backend past statement_timeout and cancels.  The
 * same matches (fnmatch per component, FNM_PERIOD, backslash escapes),
 * sorted by bytes as folder listings are.  Folders on the way are not
 * filtered, as glob listed them all; folders matched are, by
 * expand_folder().  A trailing '/' matches folders only.
 */
static List *
expand_glob(const char *entry, List *files, PfExpansion *ex)
{
	PfFolderFilter skip = ex->skip;
	size_t		len = strlen(entry);
	bool		folders_only = len > 1 && entry[len - 1] == '/';
	List	   *matches;
	ListCell   *lc2;
	struct stat st;

	ex->skip = NULL;
	matches = expand_recursive_pattern(entry, ex);
	ex->skip = skip;
	foreach(lc2, matches)
	{
		char	   *path = (char *) lfirst(lc2);

		CHECK_FOR_INTERRUPTS();
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			expand_folder(path, &files, ex);
		else if (!folders_only)
			files = lappend(files, path);
	}
	return files;
}

/* The files of entries (pf_expand_filenames), as ex filters and limits. */
static List *
expand_entries(List *entries, PfExpansion *ex)
{
	List	   *files = NIL;
	ListCell   *lc;

	foreach(lc, entries)
	{
		char	   *entry = (char *) lfirst(lc);
		struct stat st;
		int			nfiles = list_length(files);
		int			nskipped = ex->nskipped;

		if (pf_is_url(entry))
		{
			List	   *found = pf_remote_expand(entry, ex->serverid, ex->skip,
												 ex->arg, &ex->nskipped,
												 ex->limit > 0 ? Max(1, ex->limit - ex->found) : 0);

			ex->found += list_length(found);
			files = list_concat(files, found);
		}
		else if (!has_wildcard(entry))
		{
			char	   *path = unescape_path(entry);

			if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
				expand_folder(path, &files, ex);
			else
				files = lappend(files, path);
		}
		else if (strstr(entry, "**") != NULL)
		{
			List	   *found = NIL;
			char	   *prev = NULL;
			ListCell   *lc2;

			ex->may_repeat = true;
			foreach(lc2, expand_recursive_pattern(entry, ex))
			{
				char	   *path = (char *) lfirst(lc2);

				if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
					expand_folder(path, &found, ex);
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
		}
		else
			files = expand_glob(entry, files, ex);
		if (ex->require_files && list_length(files) == nfiles &&
			ex->nskipped == nskipped)
			report_no_files(entry);
	}
	return files;
}

/* ----------------------------------------------------------------
 * EXPLAIN
 * ----------------------------------------------------------------
 */
void
pf_explain_files(List *filenames, int files_pruned, const char *label,
				 ExplainState *es)
{
	int			nfiles = list_length(filenames);

	/* a count, so that a folder of thousands of files is one short line */
	if (files_pruned > 0)
		ExplainPropertyText("Files",
							psprintf("%d of %d", nfiles, nfiles + files_pruned),
							es);
	else if (nfiles != 1)
		ExplainPropertyInteger("Files", NULL, nfiles, es);
	if (nfiles == 1)
		ExplainPropertyText(label, linitial(filenames), es);
	else if (es->verbose)
		ExplainPropertyList(psprintf("%ss", label), filenames, es);
	else if (nfiles > 1)
		ExplainPropertyText(psprintf("First %s", label), linitial(filenames),
							es);
}
