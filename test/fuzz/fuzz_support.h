/*-------------------------------------------------------------------------
 *
 * fuzz_support.h
 *	  What the fuzz targets over whole files share: the input as a read-only
 *	  file, an allocator that fails at the n-th call, and a sink that makes
 *	  every byte of a result be read (so ASan sees a dangling pointer).
 *
 * mem_read_at aborts on a read outside the input: the layers promise never
 * to ask for one, and an abort is how a fuzzer reports a broken promise.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_support.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef FUZZ_SUPPORT_H
#define FUZZ_SUPPORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct MemFile
{
	const uint8_t *data;
	size_t		len;
} MemFile;

static inline int
mem_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	MemFile    *m = ctx;

	if (offset > m->len || len > m->len - offset)
		abort();
	memcpy(buf, m->data + offset, len);
	return 0;
}

/* Succeeds calls_left times, then returns NULL: failure paths must free all. */
typedef struct FailingAlloc
{
	long		calls_left;
} FailingAlloc;

static inline void *
failing_alloc(void *ctx, size_t size)
{
	FailingAlloc *fa = ctx;

	if (fa->calls_left-- <= 0)
		return NULL;
	return malloc(size);
}

static inline void
failing_release(void *ctx, void *ptr)
{
	(void) ctx;
	free(ptr);
}

static volatile uint8_t fuzz_sink;

static inline void
touch(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		fuzz_sink ^= b[i];
}

#endif							/* FUZZ_SUPPORT_H */
