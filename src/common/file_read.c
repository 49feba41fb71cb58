/*-------------------------------------------------------------------------
 *
 * file_read.c
 *	  Exact-length positioned reads (file_read.h).
 *
 * IDENTIFICATION
 *	  src/common/file_read.c
 *
 *-------------------------------------------------------------------------
 */
#include "common/file_read.h"

#include <errno.h>
#include <limits.h>
#include <sys/types.h>
#include <unistd.h>

int
pfc_pread_exact(int fd, void *buf, size_t len, uint64_t offset)
{
	char	   *dst = buf;

	/* off_t is signed 64-bit on every platform the project builds for */
	if (offset > (uint64_t) INT64_MAX || len > (uint64_t) INT64_MAX - offset)
		return EOVERFLOW;
	while (len > 0)
	{
		ssize_t		n = pread(fd, dst, len, (off_t) offset);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (n == 0)
			return EIO;
		dst += n;
		offset += (uint64_t) n;
		len -= (size_t) n;
	}
	return 0;
}
