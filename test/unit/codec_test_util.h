/*-------------------------------------------------------------------------
 *
 * codec_test_util.h
 *	  Shared helpers of the codec unit tests: independent bit-at-a-time
 *	  reference packers, and input buffers that end just before a guard page.
 *
 * The references are deliberately naive (one bit per step, no word tricks)
 * so they share no logic with the kernels they check.
 *
 * IDENTIFICATION
 *	  test/unit/codec_test_util.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CODEC_TEST_UTIL_H
#define CODEC_TEST_UTIL_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "codec/codec.h"

/* Bit k of an LSB-first stream. */
static inline unsigned
ref_bit_lsb(const uint8_t *in, uint64_t k)
{
	return (in[k / 8] >> (k % 8)) & 1;
}

static inline uint64_t
ref_get_lsb(const uint8_t *in, uint64_t i, unsigned w)
{
	uint64_t	v = 0;

	for (unsigned b = 0; b < w; b++)
		v |= (uint64_t) ref_bit_lsb(in, i * w + b) << b;
	return v;
}

static inline uint64_t
ref_get_msb(const uint8_t *in, uint64_t i, unsigned w)
{
	uint64_t	v = 0;

	for (unsigned b = 0; b < w; b++)
	{
		uint64_t	k = i * w + b;

		v = (v << 1) | ((in[k / 8] >> (7 - k % 8)) & 1);
	}
	return v;
}

/* Pack count values LSB-first into out (zeroed first). */
static inline void
ref_pack_lsb(const uint64_t *vals, size_t count, unsigned w, uint8_t *out)
{
	memset(out, 0, (count * w + 7) / 8);
	for (size_t i = 0; i < count; i++)
		for (unsigned b = 0; b < w; b++)
			if ((vals[i] >> b) & 1)
			{
				uint64_t	k = (uint64_t) i * w + b;

				out[k / 8] |= (uint8_t) (1u << (k % 8));
			}
}

static inline void
ref_pack_msb(const uint64_t *vals, size_t count, unsigned w, uint8_t *out)
{
	memset(out, 0, (count * w + 7) / 8);
	for (size_t i = 0; i < count; i++)
		for (unsigned b = 0; b < w; b++)
			if ((vals[i] >> (w - 1 - b)) & 1)
			{
				uint64_t	k = (uint64_t) i * w + b;

				out[k / 8] |= (uint8_t) (0x80u >> (k % 8));
			}
}

/*
 * A region whose last CDC_INPUT_PADDING readable bytes are followed by an
 * inaccessible page: guarded_input() copies len bytes so that
 * in + len + CDC_INPUT_PADDING is exactly the guard, so any read beyond the
 * contract faults.
 */
typedef struct GuardBuf
{
	uint8_t    *base;
	size_t		size;			/* readable bytes */
} GuardBuf;

static inline GuardBuf
guard_alloc(size_t size)
{
	GuardBuf	g;
	size_t		page = (size_t) sysconf(_SC_PAGESIZE);
	size_t		rounded = (size + page - 1) / page * page;
	uint8_t    *p = mmap(NULL, rounded + page, PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		abort();
	mprotect(p + rounded, page, PROT_NONE);
	g.base = p;
	g.size = rounded;
	return g;
}

static inline const uint8_t *
guarded_input(GuardBuf *g, const uint8_t *src, size_t len)
{
	uint8_t    *dst = g->base + g->size - CDC_INPUT_PADDING - len;

	memcpy(dst, src, len);
	memset(dst + len, 0xA5, CDC_INPUT_PADDING);
	return dst;
}

#endif							/* CODEC_TEST_UTIL_H */
