/*-------------------------------------------------------------------------
 *
 * buffer_pool.h
 *	  Reuse of page-sized buffers across column readers.
 *
 * A scan opens new column readers for every row group, and each reader
 * allocates a buffer per page for the stored bytes and one for the
 * decompressed body; freeing them at the end of every row group hands
 * hundreds of kilobytes per column back to malloc, which returns them to
 * the kernel (munmap, heap trimming) only to fault fresh zeroed pages in
 * for the next row group.  A pool keeps released buffers, up to a byte
 * limit, and hands them out again; its allocator is given to readers with
 * pq_column_reader_set_page_allocator().
 *
 * Plain C, no PostgreSQL; not thread-safe (one pool per scan).
 *
 * IDENTIFICATION
 *	  src/parquet/buffer_pool.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PQ_BUFFER_POOL_H
#define PQ_BUFFER_POOL_H

#include "parquet/parquet.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PqBufferPool PqBufferPool;

/*
 * A pool whose buffers come from backing (which must outlive the pool and
 * every buffer handed out); at most max_cached bytes of released buffers
 * are kept, the rest go back to backing at once.  NULL when out of memory.
 */
PqBufferPool *pq_buffer_pool_create(const PqAllocator *backing, size_t max_cached);

/*
 * The pool as an allocator: alloc reuses the smallest kept buffer that is
 * large enough (and at most twice the size asked for), else allocates from
 * backing; release keeps the buffer while the limit allows.
 */
PqAllocator pq_buffer_pool_allocator(PqBufferPool *pool);

/* Bytes of released buffers kept now. */
size_t		pq_buffer_pool_cached(const PqBufferPool *pool);

/*
 * Give every kept buffer and the pool back to backing.  Buffers still out
 * must not be released to the pool afterwards.
 */
void		pq_buffer_pool_destroy(PqBufferPool *pool);

#ifdef __cplusplus
}
#endif

#endif							/* PQ_BUFFER_POOL_H */
