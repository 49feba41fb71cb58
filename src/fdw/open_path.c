/*-------------------------------------------------------------------------
 *
 * open_path.c
 *	  Opening the files the extension reads without ever waiting in
 *	  open(2), and refusing the paths it cannot read at all (URLs).
 *
 * open(2) of a FIFO with no writer, or of some devices, waits inside the
 * kernel where neither statement_timeout nor pg_cancel_backend reaches it.
 * So every read-only open passes O_NONBLOCK, which makes such an open
 * return at once, then fstat()s the descriptor and keeps it only when it
 * is a regular file, clearing O_NONBLOCK again (it means nothing for
 * regular files, but reads should not depend on that).
 *
 * IDENTIFICATION
 *	  src/fdw/open_path.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "access/xact.h"
#include "foreign/foreign.h"
#include "storage/fd.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/rel.h"

#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_object.h"

const char *
pf_file_type_name(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	return "not a regular file";
}

int
pf_keep_regular(int fd, const struct stat *st)
{
	int			flags;

	if (!S_ISREG(st->st_mode))
		return EINVAL;
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
		return errno;
	return 0;
}

int
pf_open_regular(const char *path, struct stat *st)
{
	int			fd;
	int			rc;

	memset(st, 0, sizeof(*st));
	fd = OpenTransientFile(path, PF_OPEN_READ_FLAGS);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0)
	{
		rc = errno;
		memset(st, 0, sizeof(*st));
	}
	else
		rc = pf_keep_regular(fd, st);
	if (rc != 0)
	{
		CloseTransientFile(fd);
		errno = rc;
		return -1;
	}
	/* (an error here leaves the descriptor to the abort, which closes it) */
	pf_check_opened_file(path, st);
	return fd;
}

void
pf_report_not_regular(const char *path, mode_t mode, const char *expected)
{
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("\"%s\" is %s, not %s", path, pf_file_type_name(mode),
					expected),
			 !S_ISDIR(mode) ?
			 errdetail("Only regular files are read: other kinds of file could block the server.") : 0));
}

/*
 * The scheme of a URL ("s3" of "s3://bucket/key"): letters, digits, '+',
 * '-' and '.' after a letter, then "://".  NULL for a plain path.
 */
static char *
url_scheme(const char *path)
{
	const char *p = path;

	if (!isalpha((unsigned char) *p))
		return NULL;
	while (isalnum((unsigned char) *p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	if (strncmp(p, "://", 3) != 0)
		return NULL;
	return pnstrdup(path, p - path);
}

void
pf_refuse_url(const char *path)
{
	char	   *scheme = url_scheme(path);

	if (scheme != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot write to URL \"%s\"", path),
				 errdetail("This writer takes files of the server's file system, not %s:// URLs; COPY TO and parquet_fdw_write_amudai write s3://, gs:// and az:// URLs.",
						   scheme)));
}

/* The identity text of pf_file_identity() for a stat() result. */
static char *
identity_text(const struct stat *st)
{
	return psprintf("%lld:%lld.%09ld:%llu", (long long) st->st_size,
					(long long) st->st_mtim.tv_sec, (long) st->st_mtim.tv_nsec,
					(unsigned long long) st->st_ino);
}

Oid
pf_rel_serverid(Relation rel)
{
	/* COPY FROM reads files for a table of any kind */
	if (rel == NULL || rel->rd_rel->relkind != RELKIND_FOREIGN_TABLE)
		return InvalidOid;
	return GetForeignTable(RelationGetRelid(rel))->serverid;
}

/*
 * A URL's identity is "size:etag:server": the server is kept so that the
 * check before execution asks the store the plan asked.
 */
char *
pf_file_identity_at(const char *path, Oid serverid)
{
	if (pf_is_url(path))
		return psprintf("%s:%u", pf_remote_identity(path, serverid), serverid);
	return pf_file_identity(path);
}

char *
pf_file_identity(const char *path)
{
	struct stat st;

	if (pf_is_url(path))
		return pf_file_identity_at(path, InvalidOid);

	if (stat(path, &st) != 0)
		return pstrdup("");
	return identity_text(&st);
}

static void
report_planned_change(const char *path, const char *planned, const char *now)
{
	long long	planned_size = strtoll(planned, NULL, 10);
	long long	now_size = strtoll(now, NULL, 10);

	/* a cached plan would fail the same way on every run: plan anew */
	ResetPlanCache();
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("file \"%s\" changed after the query was planned", path),
			 planned_size != now_size ?
			 errdetail("Its size changed from %lld to %lld bytes.", planned_size, now_size) :
			 errdetail("Its modification time or inode changed."),
			 errhint("Run the query again: it will be planned for the file as it is now.")));
}

/*
 * The files a plan check let through, each with the identity the plan
 * carried, until the file's next open: stat() and open() are two steps,
 * and a file renamed over the path between them would be read unchecked.
 * The open compares what it got (pf_check_opened_file).  A check and its
 * open happen in one statement, so an entry counts only in the statement
 * that made it: a check whose open never came (the footer cache keeps its
 * own descriptors) must not judge a later statement's open of a file
 * replaced meanwhile.  A hash table in TopTransactionContext, forgotten
 * at the end of the transaction; one entry per path however often a
 * rescan checks it.  Paths too long for a key are left to the plan check
 * alone.
 */
#define PLANNED_IDENTITY_LEN 96

typedef struct PlannedOpen
{
	char		path[MAXPGPATH];	/* key */
	char		identity[PLANNED_IDENTITY_LEN];
	TimestampTz statement;		/* start of the statement that checked */
} PlannedOpen;

static HTAB *planned_opens = NULL;
static bool planned_opens_callback_set = false;

static void
planned_opens_forget(XactEvent event, void *arg)
{
	planned_opens = NULL;		/* its memory goes with the transaction */
}

static void
planned_opens_add(const char *path, const char *identity)
{
	PlannedOpen *po;

	if (strlen(path) >= MAXPGPATH || strlen(identity) >= PLANNED_IDENTITY_LEN)
		return;
	if (planned_opens == NULL)
	{
		HASHCTL		ctl;

		if (!planned_opens_callback_set)
		{
			RegisterXactCallback(planned_opens_forget, NULL);
			planned_opens_callback_set = true;
		}
		ctl.keysize = MAXPGPATH;
		ctl.entrysize = sizeof(PlannedOpen);
		ctl.hcxt = TopTransactionContext;
		planned_opens = hash_create("parquet_fdw planned files", 16, &ctl,
									HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	}
	po = hash_search(planned_opens, path, HASH_ENTER, NULL);
	strlcpy(po->identity, identity, PLANNED_IDENTITY_LEN);
	po->statement = GetCurrentStatementStartTimestamp();
}

void
pf_check_opened_file(const char *path, const struct stat *st)
{
	PlannedOpen *po;
	char		planned[PLANNED_IDENTITY_LEN];
	bool		stale;
	char	   *now;

	if (planned_opens == NULL || strlen(path) >= MAXPGPATH)
		return;
	po = hash_search(planned_opens, path, HASH_FIND, NULL);
	if (po == NULL)
		return;
	strlcpy(planned, po->identity, sizeof(planned));
	stale = po->statement != GetCurrentStatementStartTimestamp();
	(void) hash_search(planned_opens, path, HASH_REMOVE, NULL);
	if (stale)
		return;
	now = identity_text(st);
	if (strcmp(now, planned) != 0)
		report_planned_change(path, planned, now);
	pfree(now);
}

/*
 * The plan chose units of the file it saw; read from another file, they
 * would give part of its rows without a word.  A file that cannot be
 * stat'ed now is left to the open that follows, which names the problem.
 */
void
pf_check_planned_file(const char *path, const char *planned)
{
	char	   *now;

	if (planned == NULL || planned[0] == '\0')
		return;
	if (pf_is_url(path))
	{
		const char *server = strrchr(planned, ':');

		now = pf_file_identity_at(path, server ? (Oid) strtoul(server + 1, NULL, 10) : InvalidOid);
		if (strcmp(now, planned) == 0)
			return;
		ResetPlanCache();
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("object \"%s\" changed after the query was planned", path),
				 errdetail("Its size or ETag changed."),
				 errhint("Run the query again: it will be planned for the object as it is now.")));
	}
	now = pf_file_identity(path);
	if (now[0] == '\0')
		return;
	if (strcmp(now, planned) != 0)
		report_planned_change(path, planned, now);
	planned_opens_add(path, planned);
}
