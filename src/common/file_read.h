/*-------------------------------------------------------------------------
 *
 * file_read.h
 *	  Exact-length positioned reads from a file descriptor, the body of
 *	  every descriptor-backed PfcSource.read_at.
 *
 * IDENTIFICATION
 *	  src/common/file_read.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PFC_FILE_READ_H
#define PFC_FILE_READ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Read exactly len bytes at offset of fd into buf, retrying short reads and
 * EINTR.  Returns 0, the errno of a failed read, EIO when the file ends
 * before offset + len (it shrank under us), or EOVERFLOW when the range
 * does not fit an off_t.
 */
int			pfc_pread_exact(int fd, void *buf, size_t len, uint64_t offset);

#ifdef __cplusplus
}
#endif

#endif							/* PFC_FILE_READ_H */
