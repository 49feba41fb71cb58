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

#include "foreign/foreign.h"
#include "storage/fd.h"
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
				 errmsg("URL scheme \"%s\" is not supported", scheme),
				 errdetail("\"%s\" is a URL; parquet_fdw reads files and folders of the server's file system only.",
						   path)));
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
	return psprintf("%lld:%lld.%09ld:%llu", (long long) st.st_size,
					(long long) st.st_mtim.tv_sec, (long) st.st_mtim.tv_nsec,
					(unsigned long long) st.st_ino);
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
	long long	planned_size;
	long long	now_size;

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
	if (now[0] == '\0' || strcmp(now, planned) == 0)
		return;

	/* a cached plan would fail the same way on every run: plan anew */
	ResetPlanCache();
	planned_size = strtoll(planned, NULL, 10);
	now_size = strtoll(now, NULL, 10);
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("file \"%s\" changed after the query was planned", path),
			 planned_size != now_size ?
			 errdetail("Its size changed from %lld to %lld bytes.", planned_size, now_size) :
			 errdetail("Its modification time or inode changed."),
			 errhint("Run the query again: it will be planned for the file as it is now.")));
}
