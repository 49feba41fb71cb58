/*-------------------------------------------------------------------------
 *
 * remote_files.c
 *	  The objects a URL entry of the filename option stands for: the object
 *	  itself, the data files under a "folder" prefix, or the keys a glob
 *	  matches, found by listing the bucket.
 *
 * A pattern is listed once, with its literal head (everything before the
 * first wildcard, escapes removed) as the prefix; each key is then matched
 * component by component with fnmatch(3), as files.c matches local
 * folders: "*", "?" and "[...]" within a component, "**" for any number of
 * folders (none starting with "." or "_").  A pattern that matches a
 * "folder" (a key prefix followed by more components) stands for the data
 * files below it, as a local folder does.  Hive folders "key=value" the
 * caller's filter rejects are left out, their objects never opened.
 * http(s) URLs name one object: their "*" or "?" are plain characters.
 * A listing's matches are kept for the statement: planning and the scan
 * (and format sniffing) expand the same entries, with one request.
 *
 * IDENTIFICATION
 *	  src/fdw/remote_files.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fnmatch.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"

#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_files.h"
#include "fdw/remote_object.h"

/* A data file a folder stands for: *.parquet (or an Amudai shard). */
static bool
is_data_file(const char *name)
{
	size_t		len = strlen(name);

	return (len > 8 && pg_strcasecmp(name + len - 8, ".parquet") == 0) ||
		(len > 13 && pg_strcasecmp(name + len - 13, ".amudai.shard") == 0);
}

static bool
hidden(const char *comp)
{
	return comp[0] == '.' || comp[0] == '_';
}

/* Split text at '/' (empty components dropped) into a palloc'd array. */
static char **
split_components(const char *text, int *n)
{
	char	   *copy = pstrdup(text);
	char	  **out = palloc(sizeof(char *) * (strlen(text) / 2 + 2));
	char	   *save = NULL;

	*n = 0;
	for (char *p = strtok_r(copy, "/", &save); p; p = strtok_r(NULL, "/", &save))
		out[(*n)++] = p;
	return out;
}

/*
 * Does the pattern p[0..np) match key components k[0..nk)?  Components of
 * the key left over after the pattern ends are a folder's content: data
 * files, no hidden folder.
 */
static bool
match_components(char **p, int np, char **k, int nk)
{
	if (np == 0)
	{
		if (nk == 0)
			return true;
		for (int i = 0; i < nk; i++)
			if (hidden(k[i]))
				return false;
		return is_data_file(k[nk - 1]);
	}
	if (strcmp(p[0], "**") == 0)
	{
		if (match_components(p + 1, np - 1, k, nk))
			return true;
		return nk > 1 && !hidden(k[0]) && match_components(p, np, k + 1, nk - 1);
	}
	if (nk == 0 || fnmatch(p[0], k[0], FNM_PERIOD) != 0)
		return false;
	return match_components(p + 1, np - 1, k + 1, nk - 1);
}

/* Does text hold a wildcard (* ? [) that no backslash escapes? */
static bool
url_has_wildcard(const char *text)
{
	for (const char *p = text; *p; p++)
	{
		if (*p == '\\' && p[1] != '\0')
			p++;
		else if (*p == '*' || *p == '?' || *p == '[')
			return true;
	}
	return false;
}

/* text up to end with its escapes removed */
static char *
unescape_upto(const char *text, const char *end)
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

typedef struct ListState
{
	const char *base;			/* the URL up to the key: "s3://bucket/" */
	char	  **pcomps;			/* the pattern's components (whole key) */
	int			npcomps;
	PfFolderFilter skip;
	void	   *arg;
	List	   *keys;			/* the matching keys, in the store's order */
	List	   *skipped;		/* folders the filter rejected (URLs) */
	StringInfoData buf;
} ListState;

/* A listing's matches, kept for the statement. */
typedef struct CachedListing
{
	Oid			serverid;
	char	   *entry;
	List	   *keys;			/* char * */
} CachedListing;

static List *listings = NIL;
static uint64 listings_generation = 0;

/* Is a "key=value" folder of the key one the filter rejects? */
static bool
skipped_by_filter(ListState *ls, char **k, int nk)
{
	if (ls->skip == NULL)
		return false;
	resetStringInfo(&ls->buf);
	appendStringInfoString(&ls->buf, ls->base);
	for (int i = 0; i < nk - 1; i++)
	{
		appendStringInfo(&ls->buf, "%s/", k[i]);
		if (strchr(k[i], '=') != NULL && ls->skip(ls->buf.data, ls->arg))
		{
			ListCell   *lc;

			foreach(lc, ls->skipped)
				if (strcmp((char *) lfirst(lc), ls->buf.data) == 0)
					return true;
			ls->skipped = lappend(ls->skipped, pstrdup(ls->buf.data));
			return true;
		}
	}
	return false;
}

static bool
list_emit(const char *key, uint64_t size, const char *etag, void *arg)
{
	ListState  *ls = (ListState *) arg;
	int			nk;
	char	  **k;

	CHECK_FOR_INTERRUPTS();
	if (key[0] == '\0' || key[strlen(key) - 1] == '/')
		return true;			/* a "folder" marker object */
	k = split_components(key, &nk);
	if (match_components(ls->pcomps, ls->npcomps, k, nk))
		ls->keys = lappend(ls->keys, pstrdup(key));
	pfree(k);
	return true;
}

static int
compare_urls(const ListCell *a, const ListCell *b)
{
	return strcmp((const char *) lfirst(a), (const char *) lfirst(b));
}

List *
pf_remote_expand(const char *entry, Oid serverid, PfFolderFilter skip,
				 void *arg, int *folders_skipped)
{
	RmtUrl		url;
	RmtStore   *store;
	RmtError	err;
	ListState	ls;
	List	   *files = NIL;
	ListCell   *lc;
	CachedListing *cached = NULL;
	MemoryContext cache_cxt;
	uint64		generation;
	const char *key_start;
	const char *first_wild = NULL;
	const char *given = entry;	/* for messages: as the user wrote it */
	char	   *pattern_key;
	char	   *prefix;

	if (!url_has_wildcard(entry) || strncmp(entry, "http", 4) == 0)
	{
		/* one object; a name of a data file needs no listing */
		char	   *literal = strncmp(entry, "http", 4) == 0 ?
			pstrdup(entry) : unescape_upto(entry, entry + strlen(entry));

		/* scheme, syntax and privilege, judged on the text as given */
		(void) pf_remote_store(literal, serverid, &url);
		if (strncmp(literal, "http", 4) == 0 || is_data_file(literal))
			return list_make1(literal);
		entry = psprintf("%s%s", pf_escape_path(literal),
						 literal[strlen(literal) - 1] == '/' ? "" : "/");
	}

	/* s3://bucket/<key pattern>: list from the literal head of the key */
	key_start = strstr(entry, "://") + 3;
	key_start = strchr(key_start, '/');
	if (key_start == NULL)
		key_start = entry + strlen(entry);
	else
		key_start++;
	for (const char *p = key_start; *p; p++)
	{
		if (*p == '\\' && p[1] != '\0')
			p++;
		else if (*p == '*' || *p == '?' || *p == '[')
		{
			first_wild = p;
			break;
		}
	}
	prefix = unescape_upto(key_start, first_wild ? first_wild : key_start + strlen(key_start));
	pattern_key = pstrdup(key_start);

	memset(&ls, 0, sizeof(ls));
	ls.base = pnstrdup(entry, key_start - entry);
	if (ls.base[strlen(ls.base) - 1] != '/')
		ls.base = psprintf("%s/", ls.base);
	ls.pcomps = split_components(pattern_key, &ls.npcomps);
	/* a literal folder's components match only themselves */
	if (first_wild == NULL)
		for (int i = 0; i < ls.npcomps; i++)
			ls.pcomps[i] = pf_escape_path(unescape_upto(ls.pcomps[i], ls.pcomps[i] + strlen(ls.pcomps[i])));
	ls.skip = skip;
	ls.arg = arg;
	initStringInfo(&ls.buf);

	/* the privilege is checked whether the listing is cached or not */
	store = pf_remote_store(psprintf("%s%s", ls.base, prefix), serverid, &url);
	cache_cxt = pf_remote_statement_cxt(&generation);
	if (generation != listings_generation)
	{
		listings = NIL;
		listings_generation = generation;
	}
	foreach(lc, listings)
	{
		CachedListing *c = (CachedListing *) lfirst(lc);

		if (c->serverid == serverid && strcmp(c->entry, entry) == 0)
			cached = c;
	}
	if (cached == NULL)
	{
		MemoryContext old;

		memset(&err, 0, sizeof(err));
		if (rmt_store_list(store, &url, list_emit, &ls, &err) != RMT_OK)
			pf_remote_report(given, &err);
		old = MemoryContextSwitchTo(cache_cxt);
		cached = palloc0(sizeof(CachedListing));
		cached->serverid = serverid;
		cached->entry = pstrdup(entry);
		foreach(lc, ls.keys)
			cached->keys = lappend(cached->keys, pstrdup((char *) lfirst(lc)));
		listings = lappend(listings, cached);
		MemoryContextSwitchTo(old);
	}

	/* hive folders the caller's filter rejects are left out */
	foreach(lc, cached->keys)
	{
		const char *key = (const char *) lfirst(lc);
		int			nk;
		char	  **k = split_components(key, &nk);

		if (!skipped_by_filter(&ls, k, nk))
			files = lappend(files, psprintf("%s%s", ls.base, key));
		pfree(k);
	}
	list_sort(files, compare_urls);
	if (folders_skipped)
		*folders_skipped += list_length(ls.skipped);
	return files;
}

/* ----------------------------------------------------------------
 * A "folder" of a bucket, for IMPORT FOREIGN SCHEMA
 * ----------------------------------------------------------------
 */

typedef struct FolderState
{
	size_t		prefix_len;		/* of the key prefix listed */
	List	   *entries;		/* PfRemoteEntry *, in key order */
} FolderState;

static bool
folder_emit(const char *key, uint64_t size, const char *etag, void *arg)
{
	FolderState *fs = (FolderState *) arg;
	const char *rest = key + fs->prefix_len;
	const char *slash;
	size_t		len;
	PfRemoteEntry *last;

	CHECK_FOR_INTERRUPTS();
	if (rest[0] == '\0')
		return true;			/* the folder's own marker object */
	slash = strchr(rest, '/');
	len = slash ? (size_t) (slash - rest) : strlen(rest);
	/* keys come in order: a folder's keys follow one another */
	last = fs->entries != NIL ? (PfRemoteEntry *) llast(fs->entries) : NULL;
	if (last != NULL && strlen(last->name) == len &&
		strncmp(last->name, rest, len) == 0)
	{
		last->folder |= slash != NULL;
		return true;
	}
	last = palloc0(sizeof(PfRemoteEntry));
	last->name = pnstrdup(rest, len);
	last->folder = slash != NULL;
	fs->entries = lappend(fs->entries, last);
	return true;
}

List *
pf_remote_list_folder(const char *url_text, Oid serverid)
{
	RmtUrl		url;
	RmtStore   *store;
	RmtError	err;
	FolderState fs;
	size_t		len = strlen(url_text);
	const char *folder = url_text;

	if (len == 0 || url_text[len - 1] != '/')
		folder = psprintf("%s/", url_text);
	store = pf_remote_store(folder, serverid, &url);
	if (url.scheme == RMT_SCHEME_HTTP || url.scheme == RMT_SCHEME_HTTPS)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" cannot be listed", url_text),
				 errdetail("An http(s) URL names one object; s3://, gs:// and az:// folders can be listed.")));
	/* the bucket's root: its whole key space */
	if (strcmp(url.key, "/") == 0)
		url.key[0] = '\0';
	memset(&fs, 0, sizeof(fs));
	fs.prefix_len = strlen(url.key);
	memset(&err, 0, sizeof(err));
	if (rmt_store_list(store, &url, folder_emit, &fs, &err) != RMT_OK)
		pf_remote_report(url_text, &err);
	return fs.entries;
}
