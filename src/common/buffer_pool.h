/*-------------------------------------------------------------------------
 *
 * buffer_pool.h
 *	  A bounded recycler of large buffers, itself a PfcAllocator.
 *
 * Readers of both formats release large buffers (page bodies, decoded
 * blocks) and ask for the same sizes again at the next page, block or row
 * group.  Handed back to malloc they go back to the kernel (munmap, heap
 * trimming) and the next request faults fresh zeroed pages in.  A pool
 * keeps released buffers, within limits, and hands them out again.
 *
 * Not thread-safe: one pool per scan or per open shard.
 *
 * IDENTIFICATION
 *	  src/common/buffer_pool.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PFC_BUFFER_POOL_H
#define PFC_BUFFER_POOL_H

#include <stddef.h>

#include "common/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Buffers a pool keeps at most, whatever its limits say. */
#define PFC_BUFFER_POOL_SLOTS 64

typedef struct PfcBufferPoolLimits
{
	size_t		max_cached;		/* bytes of kept buffers, at most */
	int			max_buffers;	/* kept buffers, 1..PFC_BUFFER_POOL_SLOTS */
	size_t		min_size;		/* smaller buffers are never kept */
	size_t		max_size;		/* larger buffers are never kept */
	size_t		max_waste;		/* a kept buffer serves a request of at
								 * least 1/max_waste of its size (>= 1) */
} PfcBufferPoolLimits;

typedef struct PfcBufferPool PfcBufferPool;

/*
 * A pool over backing, which must outlive the pool and every buffer it
 * handed out.  NULL when backing has no memory or the limits are invalid.
 */
PfcBufferPool *pfc_buffer_pool_create(const PfcAllocator *backing,
									  const PfcBufferPoolLimits *limits);

/*
 * The pool as an allocator.  alloc returns the smallest kept buffer that is
 * large enough and not wasteful, else memory from backing (16-byte
 * aligned when backing's is).  release keeps a buffer of a kept size while
 * the limits allow; when all slots are taken it replaces the smallest kept
 * buffer if that is smaller; anything else goes back to backing at once.
 * Every buffer carries a 16-byte header, so allocations of any size may go
 * through the pool.
 */
PfcAllocator pfc_buffer_pool_allocator(PfcBufferPool *pool);

/* Bytes (capacities) and number of the buffers kept now. */
size_t		pfc_buffer_pool_cached(const PfcBufferPool *pool);
int			pfc_buffer_pool_count(const PfcBufferPool *pool);

/*
 * Give every kept buffer and the pool itself back to backing (NULL is a
 * no-op).  Buffers still out must not be released to the pool afterwards;
 * they belong to backing's owner (e.g. a memory context).
 */
void		pfc_buffer_pool_destroy(PfcBufferPool *pool);

#ifdef __cplusplus
}
#endif

#endif							/* PFC_BUFFER_POOL_H */
