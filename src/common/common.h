/*-------------------------------------------------------------------------
 *
 * common.h
 *	  Contracts both format layers (src/parquet, src/amudai) share: how they
 *	  allocate memory and how they read bytes.
 *
 * Plain C11, no PostgreSQL, no dependency on any other layer: src/parquet
 * and src/amudai include this header and never each other.  The FDW glue
 * supplies memory-context allocators and descriptor sources; unit tests,
 * fuzzers and tools use pfc_malloc_allocator.
 *
 * Shared code lives next to this header, one job per file: sbbf.h
 * (split-block Bloom filters), crc32.h (CRC-32 of Parquet page bodies),
 * buffer_pool.h (a bounded recycler of large buffers), file_read.h (the
 * exact-length pread loop of descriptor sources).
 *
 * Headers here must not take a name PostgreSQL's server headers use under
 * common/ (int.h, hashfn.h, string.h...): the FDW includes both, and
 * -Isrc comes first.
 *
 * IDENTIFICATION
 *	  src/common/common.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PFC_COMMON_H
#define PFC_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Where a layer's memory comes from.  alloc returns uninitialized memory
 * aligned to at least 8 bytes, or NULL (which the layers report as an I/O
 * error with sys_errno = ENOMEM); it may also longjmp on out-of-memory, as
 * palloc does, so a layer holds nothing that would leak beyond its
 * allocator.  release gives back one allocation (NULL is allowed) and may be
 * a no-op for arena-style owners.
 */
typedef struct PfcAllocator
{
	void	   *(*alloc) (void *ctx, size_t size);
	void		(*release) (void *ctx, void *ptr);
	void	   *ctx;
} PfcAllocator;

/* malloc/free, for tools, tests and fuzzers; a request of 0 bytes gets 1. */
extern const PfcAllocator pfc_malloc_allocator;

/*
 * A file (or anything file-like) the layers read from.  read_at reads
 * exactly len bytes at offset into buf and returns 0, or an errno when it
 * cannot (EIO when the file ends early).
 */
typedef struct PfcSource
{
	int			(*read_at) (void *ctx, uint64_t offset, void *buf, size_t len);
	uint64_t	size;			/* file size in bytes */
	void	   *ctx;
} PfcSource;

#ifdef __cplusplus
}
#endif

#endif							/* PFC_COMMON_H */
