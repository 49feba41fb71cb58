/*-------------------------------------------------------------------------
 *
 * test_buffer_pool.c
 *	  The bounded buffer recycler of src/common (buffer_pool.h).
 *
 * A counting allocator stands behind the pool, so the tests see what the
 * pool keeps and what it gives back: reuse by best fit, the waste bound,
 * the size window, the byte and count limits (random traffic checked
 * against them after every step), eviction of the smallest buffer, and
 * that destroy leaves nothing behind.
 *
 * IDENTIFICATION
 *	  test/unit/test_buffer_pool.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include "common/buffer_pool.h"

typedef struct Counting
{
	long		live;			/* allocations not yet released */
	long		allocs;
} Counting;

static void *
counting_alloc(void *ctx, size_t size)
{
	Counting   *c = ctx;
	void	   *p = malloc(size);

	if (p != NULL)
	{
		c->live++;
		c->allocs++;
	}
	return p;
}

static void
counting_release(void *ctx, void *ptr)
{
	Counting   *c = ctx;

	if (ptr != NULL)
		c->live--;
	free(ptr);
}

static PfcAllocator
counting(Counting *c)
{
	PfcAllocator a = {counting_alloc, counting_release, c};

	memset(c, 0, sizeof(*c));
	return a;
}

static void
test_reuse_and_waste(void)
{
	Counting	c;
	PfcAllocator backing = counting(&c);
	PfcBufferPoolLimits lim = {1 << 20, 8, 0, SIZE_MAX, 2};
	PfcBufferPool *pool = pfc_buffer_pool_create(&backing, &lim);
	PfcAllocator a;
	uint8_t    *p,
			   *q,
			   *r;

	UNIT_CHECK(pool != NULL);
	if (pool == NULL)
		return;
	a = pfc_buffer_pool_allocator(pool);
	p = a.alloc(a.ctx, 100000);
	UNIT_CHECK(p != NULL && ((uintptr_t) p % 16) == 0);
	memset(p, 0xAB, 100000);
	a.release(a.ctx, p);
	UNIT_CHECK(pfc_buffer_pool_cached(pool) == 100000);
	UNIT_CHECK(pfc_buffer_pool_count(pool) == 1);

	/* under half the capacity: a new buffer, the kept one stays */
	q = a.alloc(a.ctx, 40000);
	UNIT_CHECK(q != p);
	UNIT_CHECK(pfc_buffer_pool_count(pool) == 1);
	/* at least half: the kept buffer comes back */
	r = a.alloc(a.ctx, 60000);
	UNIT_CHECK(r == p);
	UNIT_CHECK(pfc_buffer_pool_cached(pool) == 0 && pfc_buffer_pool_count(pool) == 0);
	/* too large for it: a new buffer */
	a.release(a.ctx, r);
	r = a.alloc(a.ctx, 100001);
	UNIT_CHECK(r != p && pfc_buffer_pool_count(pool) == 1);

	a.release(a.ctx, q);
	a.release(a.ctx, r);
	a.release(a.ctx, NULL);
	UNIT_CHECK(pfc_buffer_pool_count(pool) == 3);

	/* best fit: of 100000, 100001 and 40000 kept, 45000 takes none, 50001 the 100000 */
	q = a.alloc(a.ctx, 45000);
	UNIT_CHECK(q != p && q != r && pfc_buffer_pool_count(pool) == 3);
	a.release(a.ctx, q);		/* kept? 4 buffers now */
	UNIT_CHECK(pfc_buffer_pool_count(pool) == 4);
	UNIT_CHECK(a.alloc(a.ctx, 50001) == p);
	a.release(a.ctx, p);
	pfc_buffer_pool_destroy(pool);
	UNIT_CHECKF(c.live == 0, "%ld allocations left after destroy", c.live);
}

static void
test_size_window_and_eviction(void)
{
	Counting	c;
	PfcAllocator backing = counting(&c);
	/* max_waste 1: only a buffer of the very size asked for is reused */
	PfcBufferPoolLimits lim = {10000, 3, 1000, 4000, 1};
	PfcBufferPool *pool = pfc_buffer_pool_create(&backing, &lim);
	PfcAllocator a;
	void	   *small,
			   *big,
			   *x,
			   *b[4];

	UNIT_CHECK(pool != NULL);
	if (pool == NULL)
		return;
	a = pfc_buffer_pool_allocator(pool);

	/* outside [min_size, max_size]: straight back to backing */
	small = a.alloc(a.ctx, 999);
	big = a.alloc(a.ctx, 4001);
	a.release(a.ctx, small);
	a.release(a.ctx, big);
	UNIT_CHECK(pfc_buffer_pool_count(pool) == 0 && c.live == 1);	/* the pool */

	/* three slots: 1000, 2000, 3000 kept; a fourth of 1500 evicts 1000 */
	b[0] = a.alloc(a.ctx, 1000);
	b[1] = a.alloc(a.ctx, 2000);
	b[2] = a.alloc(a.ctx, 3000);
	b[3] = a.alloc(a.ctx, 1500);
	for (int i = 0; i < 3; i++)
		a.release(a.ctx, b[i]);
	UNIT_CHECK(pfc_buffer_pool_count(pool) == 3 && pfc_buffer_pool_cached(pool) == 6000);
	a.release(a.ctx, b[3]);
	UNIT_CHECK(pfc_buffer_pool_count(pool) == 3 && pfc_buffer_pool_cached(pool) == 6500);
	UNIT_CHECK(c.live == 4);
	/* full, and smaller than every kept buffer: not kept */
	x = a.alloc(a.ctx, 1100);
	UNIT_CHECK(x != b[3] && c.live == 5);
	a.release(a.ctx, x);
	UNIT_CHECK(pfc_buffer_pool_count(pool) == 3 && pfc_buffer_pool_cached(pool) == 6500);
	UNIT_CHECK(c.live == 4);
	UNIT_CHECK(a.alloc(a.ctx, 1500) == b[3]);
	a.release(a.ctx, b[3]);
	/* the byte limit: 4000 in place of 1500 fits, in place of 2000 not */
	b[1] = a.alloc(a.ctx, 4000);
	b[2] = a.alloc(a.ctx, 4000);
	a.release(a.ctx, b[1]);		/* 2000 + 3000 + 4000 */
	UNIT_CHECK(pfc_buffer_pool_cached(pool) == 9000);
	a.release(a.ctx, b[2]);		/* 3000 + 4000 + 4000 > 10000 */
	UNIT_CHECK(pfc_buffer_pool_cached(pool) == 9000 && pfc_buffer_pool_count(pool) == 3);
	pfc_buffer_pool_destroy(pool);
	UNIT_CHECKF(c.live == 0, "%ld allocations left after destroy", c.live);
}

static void
test_invalid_limits(void)
{
	PfcBufferPoolLimits none = {1000, 0, 0, SIZE_MAX, 2};
	PfcBufferPoolLimits many = {1000, PFC_BUFFER_POOL_SLOTS + 1, 0, SIZE_MAX, 2};
	PfcBufferPoolLimits waste = {1000, 4, 0, SIZE_MAX, 0};
	PfcBufferPoolLimits window = {1000, 4, 10, 9, 2};

	UNIT_CHECK(pfc_buffer_pool_create(&pfc_malloc_allocator, &none) == NULL);
	UNIT_CHECK(pfc_buffer_pool_create(&pfc_malloc_allocator, &many) == NULL);
	UNIT_CHECK(pfc_buffer_pool_create(&pfc_malloc_allocator, &waste) == NULL);
	UNIT_CHECK(pfc_buffer_pool_create(&pfc_malloc_allocator, &window) == NULL);
}

/* Random traffic: the limits hold after every step, contents survive. */
static void
test_random_bounds(void)
{
	Counting	c;
	PfcAllocator backing = counting(&c);
	PfcBufferPoolLimits lim = {256 * 1024, 5, 4096, 128 * 1024, 3};
	PfcBufferPool *pool = pfc_buffer_pool_create(&backing, &lim);
	PfcAllocator a;
	uint8_t    *out[32] = {0};
	size_t		len[32] = {0};
	uint64_t	seed = 2024;
	int			over = 0,
				corrupt = 0;

	if (pool == NULL)
	{
		UNIT_CHECK(pool != NULL);
		return;
	}
	a = pfc_buffer_pool_allocator(pool);
	for (int step = 0; step < 20000; step++)
	{
		int			k = (int) (unit_rand(&seed) % 32);

		if (out[k] == NULL)
		{
			len[k] = (size_t) (unit_rand(&seed) % (160 * 1024)) + 1;
			out[k] = a.alloc(a.ctx, len[k]);
			memset(out[k], k, len[k]);
		}
		else
		{
			for (size_t i = 0; i < len[k]; i += 997)
				corrupt += out[k][i] != (uint8_t) k;
			corrupt += out[k][len[k] - 1] != (uint8_t) k;
			a.release(a.ctx, out[k]);
			out[k] = NULL;
		}
		over += pfc_buffer_pool_cached(pool) > lim.max_cached ||
			pfc_buffer_pool_count(pool) > lim.max_buffers;
	}
	UNIT_CHECKF(over == 0, "%d steps over the limits", over);
	UNIT_CHECKF(corrupt == 0, "%d bytes overwritten while handed out", corrupt);
	for (int k = 0; k < 32; k++)
		a.release(a.ctx, out[k]);
	UNIT_CHECK(c.live == 1 + pfc_buffer_pool_count(pool));
	UNIT_CHECK(c.allocs < 20000);	/* reuse happened */
	pfc_buffer_pool_destroy(pool);
	UNIT_CHECKF(c.live == 0, "%ld allocations left after destroy", c.live);
}

int
main(void)
{
	test_reuse_and_waste();
	test_size_window_and_eviction();
	test_invalid_limits();
	test_random_bounds();
	UNIT_MAIN_END("test_buffer_pool");
}
