/*-------------------------------------------------------------------------
 *
 * alloc.c
 *	  The malloc-backed PfcAllocator (common.h).
 *
 * IDENTIFICATION
 *	  src/common/alloc.c
 *
 *-------------------------------------------------------------------------
 */
#include "common/common.h"

#include <stdlib.h>

static void *
malloc_alloc(void *ctx, size_t size)
{
	(void) ctx;
	/* malloc(0) may return NULL, which callers would take for no memory */
	return malloc(size > 0 ? size : 1);
}

static void
malloc_release(void *ctx, void *ptr)
{
	(void) ctx;
	free(ptr);
}

const PfcAllocator pfc_malloc_allocator = {malloc_alloc, malloc_release, NULL};
