/*-------------------------------------------------------------------------
 *
 * remote_files.c
 *	  The objects a URL entry of the filename option stands for: the object
 *	  itself, the data files under a "folder" prefix, or the keys a glob
 *	  matches, found by listing the bucket.
 *
 * A pattern's keys are matched component by component with the matcher
 * files.c uses for local folders (fnmatch(3): "*", "?" and "[...]" within
 * a component, "**" for any number of folders, none starting with "." or
 * "_").  A pattern that matches a "folder" (a key prefix followed by more
 * components) stands for the data files below it, as a local folder does.
 * http(s) URLs name one object: their "*" or "?" are plain characters.
 *
 * Without a folder filter the pattern is listed once, flat, with its
 * literal head (everything before the first wildcard, escapes removed) as
 * the prefix.  With one (partition quals), the pattern is walked level by
 * level with delimiter listings, so a "key=value" folder the filter
 * rejects is never listed below: one day of years of daily folders costs
 * one request per level, not every key of the table.  Levels without
 * key=value folders, and "**", are listed flat from there.  Listings are
 * kept for the statement: planning and the scan (and format sniffing)
 * expand the same entries without asking again.
 *
 * IDENTIFICATION
 *	  src/fdw/remote_files.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

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
			if (pf_hidden_name(k[i]))
				return false;
		return is_data_file(k[nk - 1]);
	}
	if (strcmp(p[0], "**") == 0)
	{
		if (match_components(p + 1, np - 1, k, nk))
			return true;
		return nk > 1 && !pf_hidden_name(k[0]) && match_components(p, np, k + 1, nk - 1);
	}
	if (nk == 0 || !pf_component_matches(p[0], k[0]))
		return false;
	return match_components(p + 1, np - 1, k + 1, nk - 1);
}

/*
 * One listing request's answer, kept for the statement: planning and the
 * scan (and format sniffing) expand the same entries with one request.
 * The answer is the store's, before any folder filter judged it, so a
 * later expansion with other quals (or none) walks it correctly.
 */
typedef struct CachedListing
{
	Oid			serverid;
	char	   *where;			/* base URL and the prefix listed */
	bool		delimited;
	int			first;			/* > 0: only the first so many matches */
	List	   *keys;			/* char *: objects, folder markers left out */
	List	   *prefixes;		/* char *: "sub/" prefixes when delimited */
} CachedListing;

static List *listings = NIL;
static uint64 listings_generation = 0;

/* What a walk of one pattern carries down the prefixes. */
typedef struct Walk
{
	RmtStore   *store;
	RmtUrl		url;			/* bucket and account; key set per listing */
	Oid			serverid;
	const char *given;			/* the entry as the user wrote it */
	const char *base;			/* the URL up to the key: "s3://bucket/" */
	bool		folder_entry;	/* the pattern ends with '/' */
	char	  **pcomps;			/* the pattern's components (whole key) */
	int			npcomps;
	PfFolderFilter skip;
	void	   *arg;
	MemoryContext cache_cxt;
	int			first;			/* walk_first: how many matches */
	List	   *keys;			/* the matching keys */
	List	   *skipped;		/* folders the filter rejected (URLs) */
	StringInfoData buf;
} Walk;

static bool
collect_key(const char *key, uint64_t size, const char *etag, void *arg)
{
	CachedListing *c = (CachedListing *) arg;

	CHECK_FOR_INTERRUPTS();
	if (key[0] != '\0' && key[strlen(key) - 1] != '/')	/* not a marker */
		c->keys = lappend(c->keys, pstrdup(key));
	return true;
}

static bool
collect_prefix(const char *prefix, void *arg)
{
	CachedListing *c = (CachedListing *) arg;

	CHECK_FOR_INTERRUPTS();
	c->prefixes = lappend(c->prefixes, pstrdup(prefix));
	return true;
}

/* This statement's listing of prefix, or NULL. */
static CachedListing *
cached_listing(Walk *w, const char *prefix, bool delimited, int first)
{
	char	   *where = psprintf("%s%s", w->base, prefix);
	ListCell   *lc;

	foreach(lc, listings)
	{
		CachedListing *c = (CachedListing *) lfirst(lc);

		if (c->serverid == w->serverid && c->delimited == delimited &&
			c->first == first && strcmp(c->where, where) == 0)
			return c;
	}
	return NULL;
}

/* Aim the walk's URL at prefix. */
static void
set_prefix(Walk *w, const char *prefix)
{
	if (strlen(prefix) >= sizeof(w->url.key))
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("the key prefix of \"%s\" is too long", w->given)));
	strcpy(w->url.key, prefix);
}

/* The keys (and, delimited, the prefixes) below prefix: cached or listed. */
static CachedListing *
listing(Walk *w, const char *prefix, bool delimited)
{
	char	   *where = psprintf("%s%s", w->base, prefix);
	CachedListing *c = cached_listing(w, prefix, delimited, 0);
	MemoryContext old;
	RmtError	err;

	if (c != NULL)
		return c;
	set_prefix(w, prefix);

	/* a failed listing leaves its partial answer in the statement's context */
	old = MemoryContextSwitchTo(w->cache_cxt);
	c = palloc0(sizeof(CachedListing));
	c->serverid = w->serverid;
	c->where = pstrdup(where);
	c->delimited = delimited;
	memset(&err, 0, sizeof(err));
	if ((delimited ?
		 rmt_store_list_dir(w->store, &w->url, collect_key, collect_prefix, c, &err) :
		 rmt_store_list(w->store, &w->url, collect_key, c, &err)) != RMT_OK)
		pf_remote_report(w->given, &err);
	listings = lappend(listings, c);
	MemoryContextSwitchTo(old);
	return c;
}

/*
 * Does the filter reject folder (a key prefix ending with '/' whose last
 * component is key=value)?  Rejected folders are counted once each.
 */
static bool
folder_rejected(Walk *w, const char *folder)
{
	ListCell   *lc;
	char	   *url;

	if (w->skip == NULL)
		return false;
	resetStringInfo(&w->buf);
	appendStringInfo(&w->buf, "%s%s", w->base, folder);
	if (!w->skip(w->buf.data, w->arg))
		return false;
	foreach(lc, w->skipped)
		if (strcmp((char *) lfirst(lc), w->buf.data) == 0)
			return true;
	url = pstrdup(w->buf.data);
	w->skipped = lappend(w->skipped, url);
	return true;
}

/* The last component of a prefix "a/b/c/": is it key=value? */
static bool
hive_prefix(const char *prefix)
{
	size_t		len = strlen(prefix);
	const char *start = prefix + len - 1;	/* the trailing '/' */

	while (start > prefix && start[-1] != '/')
		start--;
	return memchr(start, '=', prefix + len - start) != NULL;
}

/* Is any key=value folder of key one the filter rejects? */
static bool
key_in_rejected_folder(Walk *w, const char *key)
{
	if (w->skip == NULL)
		return false;
	for (const char *slash = strchr(key, '/'); slash; slash = strchr(slash + 1, '/'))
	{
		char	   *folder = pnstrdup(key, slash - key + 1);

		if (hive_prefix(folder) && folder_rejected(w, folder))
			return true;
		pfree(folder);
	}
	return false;
}

/*
 * One flat listing of prefix (every key below it): the keys whose part
 * below dir (a prefix of prefix) matches p[0..np).  Hive folders are
 * judged on each key.
 */
static void
walk_flat(Walk *w, const char *dir, const char *prefix, char **p, int np)
{
	CachedListing *c = listing(w, prefix, false);
	size_t		dirlen = strlen(dir);
	ListCell   *lc;

	foreach(lc, c->keys)
	{
		char	   *key = (char *) lfirst(lc);
		int			nk;
		char	  **k = pf_split_components(key + dirlen, &nk);

		CHECK_FOR_INTERRUPTS();
		if (match_components(p, np, k, nk) && !key_in_rejected_folder(w, key))
			w->keys = lappend(w->keys, key);
		pfree(k);
	}
}

/*
 * Judge the prefixes of a delimited listing of dir: those of a hidden
 * name or that comp (NULL: any) does not match are dropped, key=value
 * ones the filter rejects counted in *nrejected; the rest are returned.
 */
static List *
kept_prefixes(Walk *w, const CachedListing *c, const char *dir,
			  const char *comp, int *nrejected)
{
	List	   *kept = NIL;
	ListCell   *lc;
	size_t		dirlen = strlen(dir);

	*nrejected = 0;
	foreach(lc, c->prefixes)
	{
		char	   *prefix = (char *) lfirst(lc);
		char	   *name = pnstrdup(prefix + dirlen, strlen(prefix) - dirlen - 1);

		CHECK_FOR_INTERRUPTS();
		if (comp ? !pf_component_matches(comp, name) : pf_hidden_name(name))
			continue;
		if (hive_prefix(prefix) && folder_rejected(w, prefix))
			(*nrejected)++;
		else
			kept = lappend(kept, prefix);
	}
	return kept;
}

/*
 * Is walking below the kept folders worth a request each?  Only where the
 * filter rejected some of their siblings (it constrains this level, so
 * likely the next ones too) or there is at most one: a level the quals
 * leave whole is cheaper listed flat in one go (a year qual over daily
 * folders would otherwise list every day folder on its own).
 */
static bool
walk_below(int nkept, int nrejected)
{
	return nrejected > 0 || nkept <= 1;
}

/*
 * The data files below dir (a prefix ending with '/'), which the pattern
 * matched as a folder: level by level while the filter prunes, so that
 * rejected folders are never listed below; else flat in one go.
 */
static void
walk_folder_files(Walk *w, const char *dir)
{
	CachedListing *c;
	ListCell   *lc;
	List	   *kept;
	int			nrejected;
	size_t		dirlen = strlen(dir);

	if (w->skip == NULL)
	{
		walk_flat(w, dir, dir, NULL, 0);
		return;
	}
	c = listing(w, dir, true);
	kept = kept_prefixes(w, c, dir, NULL, &nrejected);
	if (!walk_below(list_length(kept), nrejected))
	{
		walk_flat(w, dir, dir, NULL, 0);
		return;
	}
	foreach(lc, c->keys)
	{
		char	   *key = (char *) lfirst(lc);

		if (!pf_hidden_name(key + dirlen) && is_data_file(key + dirlen))
			w->keys = lappend(w->keys, key);
	}
	foreach(lc, kept)
		walk_folder_files(w, (char *) lfirst(lc));
}

/*
 * Match the pattern's components from i on below dir ("" or a prefix
 * ending with '/').  A literal folder component extends the prefix
 * without a request (a key=value one judged first); a component with a
 * wildcard (or the last one) is listed with the delimiter, its folders
 * judged by the filter before the walk descends into them; "**", or a
 * level the filter leaves whole, is listed flat from there.
 */
static void
walk_pattern(Walk *w, const char *dir, int i)
{
	const char *comp;
	const char *wild;
	CachedListing *c;
	ListCell   *lc;
	List	   *kept;
	int			nrejected;
	size_t		dirlen = strlen(dir);
	bool		last = i == w->npcomps - 1;
	char	   *head;

	CHECK_FOR_INTERRUPTS();
	if (i == w->npcomps)
	{
		walk_folder_files(w, dir);
		return;
	}
	comp = w->pcomps[i];
	if (strcmp(comp, "**") == 0)
	{
		walk_flat(w, dir, dir, w->pcomps + i, w->npcomps - i);
		return;
	}
	wild = pf_first_wildcard(comp);
	if (wild == NULL && (!last || w->folder_entry))
	{
		char	   *child = psprintf("%s%s/", dir,
									 pf_unescape_upto(comp, comp + strlen(comp)));

		if (!(hive_prefix(child) && folder_rejected(w, child)))
			walk_pattern(w, child, i + 1);
		return;
	}

	/* list this level from the component's literal head */
	head = psprintf("%s%s", dir,
					pf_unescape_upto(comp, wild ? wild : comp + strlen(comp)));
	c = listing(w, head, true);
	kept = kept_prefixes(w, c, dir, comp, &nrejected);
	if (!walk_below(list_length(kept), nrejected))
	{
		walk_flat(w, dir, head, w->pcomps + i, w->npcomps - i);
		return;
	}
	if (last)
		foreach(lc, c->keys)
		{
			char	   *key = (char *) lfirst(lc);

			if (pf_component_matches(comp, key + dirlen))
				w->keys = lappend(w->keys, key);
		}
	foreach(lc, kept)
	{
		if (last)
			walk_folder_files(w, (char *) lfirst(lc));
		else
			walk_pattern(w, (char *) lfirst(lc), i + 1);
	}
}

/* The first matches of a flat listing, which then stops. */
static bool
first_match_emit(const char *key, uint64_t size, const char *etag, void *arg)
{
	Walk	   *w = (Walk *) arg;
	int			nk;
	char	  **k;

	CHECK_FOR_INTERRUPTS();
	if (key[0] == '\0' || key[strlen(key) - 1] == '/')
		return true;
	k = pf_split_components(key, &nk);
	if (match_components(w->pcomps, w->npcomps, k, nk))
		w->keys = lappend(w->keys, pstrdup(key));
	pfree(k);
	return list_length(w->keys) < w->first;
}

/*
 * The first limit matches in key order (format sniffing wants one): a
 * flat listing that stops at the page where they are found, kept apart
 * from complete listings.
 */
static void
walk_first(Walk *w, const char *prefix, int limit)
{
	CachedListing *c = cached_listing(w, prefix, false, limit);
	RmtError	err;
	MemoryContext old;
	ListCell   *lc;

	if (c == NULL)
	{
		set_prefix(w, prefix);
		w->first = limit;
		memset(&err, 0, sizeof(err));
		if (rmt_store_list(w->store, &w->url, first_match_emit, w, &err) != RMT_OK)
			pf_remote_report(w->given, &err);
		old = MemoryContextSwitchTo(w->cache_cxt);
		c = palloc0(sizeof(CachedListing));
		c->serverid = w->serverid;
		c->where = psprintf("%s%s", w->base, prefix);
		c->first = limit;
		foreach(lc, w->keys)
			c->keys = lappend(c->keys, pstrdup((char *) lfirst(lc)));
		listings = lappend(listings, c);
		MemoryContextSwitchTo(old);
	}
	w->keys = c->keys;
}

static int
compare_urls(const ListCell *a, const ListCell *b)
{
	return strcmp((const char *) lfirst(a), (const char *) lfirst(b));
}

List *
pf_remote_expand(const char *entry, Oid serverid, PfFolderFilter skip,
				 void *arg, int *folders_skipped, int limit)
{
	RmtUrl		url;
	Walk		w;
	List	   *files = NIL;
	ListCell   *lc;
	uint64		generation;
	const char *key_start;
	const char *first_wild;
	const char *given = entry;	/* for messages: as the user wrote it */
	char	   *prefix;

	if (pf_first_wildcard(entry) == NULL || strncmp(entry, "http", 4) == 0)
	{
		/* one object; a name of a data file needs no listing */
		char	   *literal = strncmp(entry, "http", 4) == 0 ?
			pstrdup(entry) : pf_unescape_upto(entry, entry + strlen(entry));

		/* scheme, syntax and privilege, judged on the text as given */
		(void) pf_remote_store(literal, serverid, &url);
		if (strncmp(literal, "http", 4) == 0 || is_data_file(literal))
			return list_make1(literal);
		entry = psprintf("%s%s", pf_escape_path(literal),
						 literal[strlen(literal) - 1] == '/' ? "" : "/");
	}

	/* s3://bucket/<key pattern> */
	key_start = strstr(entry, "://") + 3;
	key_start = strchr(key_start, '/');
	if (key_start == NULL)
		key_start = entry + strlen(entry);
	else
		key_start++;
	first_wild = pf_first_wildcard(key_start);
	prefix = pf_unescape_upto(key_start, first_wild ? first_wild : key_start + strlen(key_start));

	memset(&w, 0, sizeof(w));
	w.serverid = serverid;
	w.given = given;
	w.base = pnstrdup(entry, key_start - entry);
	if (w.base[strlen(w.base) - 1] != '/')
		w.base = psprintf("%s/", w.base);
	w.folder_entry = key_start[0] != '\0' && entry[strlen(entry) - 1] == '/';
	w.pcomps = pf_split_components(key_start, &w.npcomps);
	/* a literal folder's components match only themselves */
	if (first_wild == NULL)
		for (int i = 0; i < w.npcomps; i++)
			w.pcomps[i] = pf_escape_path(pf_unescape_upto(w.pcomps[i], w.pcomps[i] + strlen(w.pcomps[i])));
	w.skip = skip;
	w.arg = arg;
	initStringInfo(&w.buf);

	/* the privilege is checked whether the listings are cached or not */
	w.store = pf_remote_store(psprintf("%s%s", w.base, prefix), serverid, &url);
	w.url = url;
	/*
	 * Only the first match wanted (format sniffing) of a pattern whose
	 * names end in a data file's suffix: an object's format is judged by
	 * its name, so the pattern answers without a listing request.
	 */
	if (skip == NULL && limit > 0 && is_data_file(given))
		return list_make1(pstrdup(given));
	w.cache_cxt = pf_remote_statement_cxt(&generation);
	if (generation != listings_generation)
	{
		listings = NIL;
		listings_generation = generation;
	}

	/*
	 * Without a filter one flat listing from the pattern's literal head
	 * answers it (its first page or so when only the first limit matches
	 * are wanted); with one, the walk lists level by level where key=value
	 * folders can be judged before anything below them is listed.
	 */
	if (skip == NULL && limit > 0 && cached_listing(&w, prefix, false, 0) == NULL)
		walk_first(&w, prefix, limit);
	else if (skip == NULL)
		walk_flat(&w, "", prefix, w.pcomps, w.npcomps);
	else
		walk_pattern(&w, "", 0);

	foreach(lc, w.keys)
		files = lappend(files, psprintf("%s%s", w.base, (char *) lfirst(lc)));
	list_sort(files, compare_urls);
	if (folders_skipped)
		*folders_skipped += list_length(w.skipped);
	return files;
}

/* ----------------------------------------------------------------
 * A "folder" of a bucket, for IMPORT FOREIGN SCHEMA
 * ----------------------------------------------------------------
 */

typedef struct FolderState
{
	size_t		prefix_len;		/* of the key prefix listed */
	List	   *entries;		/* PfRemoteEntry *, as the pages send them */
} FolderState;

static void
add_folder_entry(FolderState *fs, const char *name, size_t len, bool folder)
{
	PfRemoteEntry *e = palloc0(sizeof(PfRemoteEntry));

	e->name = pnstrdup(name, len);
	e->folder = folder;
	fs->entries = lappend(fs->entries, e);
}

/* An object right below the folder (the folder's own marker aside). */
static bool
folder_object_emit(const char *key, uint64_t size, const char *etag, void *arg)
{
	FolderState *fs = (FolderState *) arg;
	const char *rest = key + fs->prefix_len;

	CHECK_FOR_INTERRUPTS();
	if (rest[0] != '\0')
		add_folder_entry(fs, rest, strlen(rest), false);
	return true;
}

/* A subfolder: "sub/" below the folder's prefix. */
static bool
folder_prefix_emit(const char *prefix, void *arg)
{
	FolderState *fs = (FolderState *) arg;
	const char *rest = prefix + fs->prefix_len;
	size_t		len = strlen(rest);

	CHECK_FOR_INTERRUPTS();
	if (len > 1 && rest[len - 1] == '/')
		add_folder_entry(fs, rest, len - 1, true);
	return true;
}

static int
compare_entry_names(const ListCell *a, const ListCell *b)
{
	return strcmp(((PfRemoteEntry *) lfirst(a))->name,
				  ((PfRemoteEntry *) lfirst(b))->name);
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
	/* one level: a folder's subfolders come as prefixes, not key by key */
	if (rmt_store_list_dir(store, &url, folder_object_emit, folder_prefix_emit,
						   &fs, &err) != RMT_OK)
		pf_remote_report(url_text, &err);
	/* pages send objects before prefixes; a name both object and folder is one */
	list_sort(fs.entries, compare_entry_names);
	{
		List	   *merged = NIL;
		ListCell   *lc;

		foreach(lc, fs.entries)
		{
			PfRemoteEntry *e = (PfRemoteEntry *) lfirst(lc);
			PfRemoteEntry *last = merged ? (PfRemoteEntry *) llast(merged) : NULL;

			if (last != NULL && strcmp(last->name, e->name) == 0)
				last->folder |= e->folder;
			else
				merged = lappend(merged, e);
		}
		return merged;
	}
}
