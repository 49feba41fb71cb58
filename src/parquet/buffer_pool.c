/*-------------------------------------------------------------------------
 *
 * buffer_pool.c
 *	  Reuse of page-sized buffers across column readers (buffer_pool.h).
 *
 * Each buffer carries a small header with its capacity; released buffers
 * sit in a short array (a scan's readers hold a few pages at a time, so a
 * linear best-fit search is enough).  A buffer is reused only for a request
 * of at least half its capacity, so a small request never pins a large
 * buffer.
 *
 * IDENTIFICATION
 *	  src/parquet/buffer_pool.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/buffer_pool.h"

#include <string.h>

/* Buffers kept at most (beyond the byte limit). */
#define POOL_SLOTS		64
/* Room before each buffer for its capacity, keeping 16-byte alignment. */
#define POOL_HEADER		16

struct PqBufferPool
{
	PqAllocator backing;
	size_t		max_cached;
	size_t		cached;			/* bytes of the kept buffers */
	int			nfree;
	uint8_t    *free_blocks[POOL_SLOTS];	/* headers of kept buffers */
};

static size_t
block_capacity(const uint8_t *block)
{
	size_t		cap;

	memcpy(&cap, block, sizeof(cap));
	return cap;
}

static void *
pool_alloc(void *ctx, size_t size)
{
	PqBufferPool *pool = ctx;
	int			best = -1;
	size_t		best_cap = 0;
	uint8_t    *block;

	for (int i = 0; i < pool->nfree; i++)
	{
		size_t		cap = block_capacity(pool->free_blocks[i]);

		if (cap >= size && cap / 2 <= size && (best < 0 || cap < best_cap))
		{
			best = i;
			best_cap = cap;
		}
	}
	if (best >= 0)
	{
		block = pool->free_blocks[best];
		pool->free_blocks[best] = pool->free_blocks[--pool->nfree];
		pool->cached -= best_cap;
		return block + POOL_HEADER;
	}
	if (size > SIZE_MAX - POOL_HEADER)
		return NULL;
	block = pool->backing.alloc(pool->backing.ctx, size + POOL_HEADER);
	if (block == NULL)
		return NULL;
	memcpy(block, &size, sizeof(size));
	return block + POOL_HEADER;
}

static void
pool_release(void *ctx, void *ptr)
{
	PqBufferPool *pool = ctx;
	uint8_t    *block;
	size_t		cap;

	if (ptr == NULL)
		return;
	block = (uint8_t *) ptr - POOL_HEADER;
	cap = block_capacity(block);
	if (pool->nfree < POOL_SLOTS && cap <= pool->max_cached - pool->cached &&
		pool->cached <= pool->max_cached)
	{
		pool->free_blocks[pool->nfree++] = block;
		pool->cached += cap;
		return;
	}
	pool->backing.release(pool->backing.ctx, block);
}

PqBufferPool *
pq_buffer_pool_create(const PqAllocator *backing, size_t max_cached)
{
	PqBufferPool *pool = backing->alloc(backing->ctx, sizeof(PqBufferPool));

	if (pool == NULL)
		return NULL;
	memset(pool, 0, sizeof(*pool));
	pool->backing = *backing;
	pool->max_cached = max_cached;
	return pool;
}

PqAllocator
pq_buffer_pool_allocator(PqBufferPool *pool)
{
	PqAllocator a;

	a.alloc = pool_alloc;
	a.release = pool_release;
	a.ctx = pool;
	return a;
}

size_t
pq_buffer_pool_cached(const PqBufferPool *pool)
{
	return pool->cached;
}

void
pq_buffer_pool_destroy(PqBufferPool *pool)
{
	PqAllocator backing;

	if (pool == NULL)
		return;
	backing = pool->backing;
	for (int i = 0; i < pool->nfree; i++)
		backing.release(backing.ctx, pool->free_blocks[i]);
	backing.release(backing.ctx, pool);
}
