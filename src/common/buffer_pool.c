/*-------------------------------------------------------------------------
 *
 * buffer_pool.c
 *	  A bounded recycler of large buffers (buffer_pool.h).
 *
 * Each buffer carries a header with its capacity, so release knows the
 * size without asking backing; kept buffers sit in a short array (a reader
 * holds a few large buffers at a time, so a linear best-fit search is
 * enough).
 *
 * IDENTIFICATION
 *	  src/common/buffer_pool.c
 *
 *-------------------------------------------------------------------------
 */
#include "common/buffer_pool.h"

#include <stdint.h>
#include <string.h>

/* Room before each buffer for its capacity, keeping 16-byte alignment. */
#define POOL_HEADER		16

struct PfcBufferPool
{
	PfcAllocator backing;
	PfcBufferPoolLimits limits;
	size_t		cached;			/* capacities of the kept buffers */
	int			nkept;
	uint8_t    *kept[PFC_BUFFER_POOL_SLOTS];	/* headers of kept buffers */
};

static size_t
block_capacity(const uint8_t *block)
{
	size_t		cap;

	memcpy(&cap, block, sizeof(cap));
	return cap;
}

static void
forget(PfcBufferPool *pool, int i)
{
	pool->cached -= block_capacity(pool->kept[i]);
	pool->kept[i] = pool->kept[--pool->nkept];
}

static void *
pool_alloc(void *ctx, size_t size)
{
	PfcBufferPool *pool = ctx;
	int			best = -1;
	size_t		best_cap = 0;
	uint8_t    *block;

	for (int i = 0; i < pool->nkept; i++)
	{
		size_t		cap = block_capacity(pool->kept[i]);

		if (cap >= size && cap / pool->limits.max_waste <= size &&
			(best < 0 || cap < best_cap))
		{
			best = i;
			best_cap = cap;
		}
	}
	if (best >= 0)
	{
		block = pool->kept[best];
		forget(pool, best);
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
	PfcBufferPool *pool = ctx;
	const PfcBufferPoolLimits *lim = &pool->limits;
	uint8_t    *block;
	size_t		cap;
	size_t		freed = 0;
	int			victim = -1;

	if (ptr == NULL)
		return;
	block = (uint8_t *) ptr - POOL_HEADER;
	cap = block_capacity(block);
	if (cap < lim->min_size || cap > lim->max_size || cap > lim->max_cached)
	{
		pool->backing.release(pool->backing.ctx, block);
		return;
	}
	if (pool->nkept == lim->max_buffers)
	{
		/* full: keep the larger buffers, they cost the most to fault in */
		victim = 0;
		for (int i = 1; i < pool->nkept; i++)
			if (block_capacity(pool->kept[i]) < block_capacity(pool->kept[victim]))
				victim = i;
		freed = block_capacity(pool->kept[victim]);
		if (freed >= cap)
			victim = -1;
	}
	if ((pool->nkept == lim->max_buffers && victim < 0) ||
		cap > lim->max_cached - (pool->cached - (victim >= 0 ? freed : 0)))
	{
		pool->backing.release(pool->backing.ctx, block);
		return;
	}
	if (victim >= 0)
	{
		uint8_t    *old = pool->kept[victim];

		forget(pool, victim);
		pool->backing.release(pool->backing.ctx, old);
	}
	pool->kept[pool->nkept++] = block;
	pool->cached += cap;
}

PfcBufferPool *
pfc_buffer_pool_create(const PfcAllocator *backing,
					   const PfcBufferPoolLimits *limits)
{
	PfcBufferPool *pool;

	if (limits->max_buffers < 1 || limits->max_buffers > PFC_BUFFER_POOL_SLOTS ||
		limits->max_waste < 1 || limits->min_size > limits->max_size)
		return NULL;
	pool = backing->alloc(backing->ctx, sizeof(PfcBufferPool));
	if (pool == NULL)
		return NULL;
	memset(pool, 0, sizeof(*pool));
	pool->backing = *backing;
	pool->limits = *limits;
	return pool;
}

PfcAllocator
pfc_buffer_pool_allocator(PfcBufferPool *pool)
{
	PfcAllocator a;

	a.alloc = pool_alloc;
	a.release = pool_release;
	a.ctx = pool;
	return a;
}

size_t
pfc_buffer_pool_cached(const PfcBufferPool *pool)
{
	return pool->cached;
}

int
pfc_buffer_pool_count(const PfcBufferPool *pool)
{
	return pool->nkept;
}

void
pfc_buffer_pool_destroy(PfcBufferPool *pool)
{
	PfcAllocator backing;

	if (pool == NULL)
		return;
	backing = pool->backing;
	for (int i = 0; i < pool->nkept; i++)
		backing.release(backing.ctx, pool->kept[i]);
	backing.release(backing.ctx, pool);
}
