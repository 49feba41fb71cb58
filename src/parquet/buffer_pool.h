/*-------------------------------------------------------------------------
 *
 * buffer_pool.h
 *	  Transitional aliases: the page buffer pool is common/buffer_pool.h.
 *
 * Removed by the tree-wide rename (PqBufferPool -> PfcBufferPool); kept
 * until then so files other branches edit still compile.
 *
 * IDENTIFICATION
 *	  src/parquet/buffer_pool.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PQ_BUFFER_POOL_H
#define PQ_BUFFER_POOL_H

#include "common/buffer_pool.h"
#include "parquet/parquet.h"

typedef PfcBufferPool PqBufferPool;
#define pq_buffer_pool_allocator pfc_buffer_pool_allocator
#define pq_buffer_pool_cached pfc_buffer_pool_cached
#define pq_buffer_pool_destroy pfc_buffer_pool_destroy

#endif							/* PQ_BUFFER_POOL_H */
