/*-------------------------------------------------------------------------
 *
 * bufcache.c
 *	  A PqAllocator for column readers that recycles page buffers.
 *
 * Column readers allocate a buffer per page (compressed bytes, decoded
 * values) and release it when the page is consumed.  Through a memory
 * context, a large buffer goes back to malloc, which returns it to the
 * kernel, and the next page pays for fresh zeroed pages: with v2 pages
 * this was half the time of a scan (kernel page faults).  This allocator
 * keeps released large buffers and hands them to the next pages and row
 * groups; small allocations come from the row group's context.
 *
 * IDENTIFICATION
 *	  src/fdw/bufcache.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/parquet_fdw.h"

/*
 * Large buffers (PF_BUFCACHE_MIN and up) come from cxt, rounded up to
 * powers of two; released ones are kept, at most PF_BUFCACHE_SLOTS of them
 * (the largest), and buffers still out when pf_bufcache_reclaim() is
 * called are taken back too.
 */
#define PF_BUFCACHE_MIN		(32 * 1024)
#define PF_BUFCACHE_SLOTS	16
#define PF_BUF_MAGIC_SMALL	UINT64CONST(0x7066736d616c6c31)
#define PF_BUF_MAGIC_BIG	UINT64CONST(0x7066626967627566)

typedef struct PfBufHeader
{
	uint64		magic;
	Size		cap;			/* bytes after the header (big buffers) */
	struct PfBufHeader *prev;	/* outstanding big buffers */
	struct PfBufHeader *next;
} PfBufHeader;

struct PfBufCache
{
	MemoryContext cxt;			/* big buffers: the scan's lifetime */
	MemoryContext small_cxt;	/* small ones: the row group's */
	PfBufHeader *outstanding;
	int			nfree;
	PfBufHeader *free_bufs[PF_BUFCACHE_SLOTS];
};

static void *
bufcache_alloc(void *ctx, size_t size)
{
	PfBufCache *bc = (PfBufCache *) ctx;
	PfBufHeader *h = NULL;
	int			best = -1;

	if (size < PF_BUFCACHE_MIN)
	{
		h = MemoryContextAlloc(bc->small_cxt, sizeof(PfBufHeader) + size);
		h->magic = PF_BUF_MAGIC_SMALL;
		return h + 1;
	}
	/* the smallest cached buffer that fits */
	for (int i = 0; i < bc->nfree; i++)
		if (bc->free_bufs[i]->cap >= size &&
			(best < 0 || bc->free_bufs[i]->cap < bc->free_bufs[best]->cap))
			best = i;
	if (best >= 0)
	{
		h = bc->free_bufs[best];
		bc->free_bufs[best] = bc->free_bufs[--bc->nfree];
	}
	else
	{
		Size		cap = PF_BUFCACHE_MIN;

		while (cap < size)
			cap *= 2;
		h = MemoryContextAllocHuge(bc->cxt, sizeof(PfBufHeader) + cap);
		h->magic = PF_BUF_MAGIC_BIG;
		h->cap = cap;
	}
	h->prev = NULL;
	h->next = bc->outstanding;
	if (bc->outstanding)
		bc->outstanding->prev = h;
	bc->outstanding = h;
	return h + 1;
}

/* Keep a big buffer for reuse (the largest ones go back to palloc). */
static void
bufcache_keep(PfBufCache *bc, PfBufHeader *h)
{
	int			smallest = 0;

	if (bc->nfree < PF_BUFCACHE_SLOTS)
	{
		bc->free_bufs[bc->nfree++] = h;
		return;
	}
	for (int i = 1; i < bc->nfree; i++)
		if (bc->free_bufs[i]->cap < bc->free_bufs[smallest]->cap)
			smallest = i;
	if (bc->free_bufs[smallest]->cap < h->cap)
	{
		PfBufHeader *old = bc->free_bufs[smallest];

		bc->free_bufs[smallest] = h;
		h = old;
	}
	pfree(h);
}

static void
bufcache_release(void *ctx, void *ptr)
{
	PfBufCache *bc = (PfBufCache *) ctx;
	PfBufHeader *h = ((PfBufHeader *) ptr) - 1;

	if (h->magic == PF_BUF_MAGIC_SMALL)
	{
		pfree(h);
		return;
	}
	Assert(h->magic == PF_BUF_MAGIC_BIG);
	if (h->prev)
		h->prev->next = h->next;
	else
		bc->outstanding = h->next;
	if (h->next)
		h->next->prev = h->prev;
	bufcache_keep(bc, h);
}

/* End of a row group: buffers the readers did not release are free now. */
void
pf_bufcache_reclaim(PfBufCache *bc)
{
	while (bc->outstanding)
	{
		PfBufHeader *h = bc->outstanding;

		bc->outstanding = h->next;
		bufcache_keep(bc, h);
	}
}

PfBufCache *
pf_bufcache_create(MemoryContext cxt, MemoryContext small_cxt)
{
	PfBufCache *bc = MemoryContextAllocZero(cxt, sizeof(PfBufCache));

	bc->cxt = AllocSetContextCreate(cxt, "parquet_fdw page buffers",
									ALLOCSET_DEFAULT_SIZES);
	bc->small_cxt = small_cxt;
	return bc;
}

PqAllocator
pf_bufcache_allocator(PfBufCache *bc)
{
	PqAllocator alloc;

	alloc.alloc = bufcache_alloc;
	alloc.release = bufcache_release;
	alloc.ctx = bc;
	return alloc;
}
