/*-------------------------------------------------------------------------
 *
 * amudai_test_util.h
 *	  Helpers for the Amudai unit tests: an in-memory PfcSource and resolver,
 *	  a growable byte vector, and a tiny protobuf encoder.
 *
 * The encoder here is deliberately separate from src/amudai/protobuf.c, so
 * the tests build their shard bytes independently of the code under test
 * (following the wire format rules: key = tag << 3 | wire type, base-128
 * varints, fixed-width little-endian, length-delimited bytes).
 *
 * IDENTIFICATION
 *	  test/unit/amudai_test_util.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef AMUDAI_TEST_UTIL_H
#define AMUDAI_TEST_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "amudai/amudai.h"

typedef struct TBuf
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
} TBuf;

static inline void
tb_put(TBuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap)
	{
		b->cap = (b->len + n) * 2 + 64;
		b->data = realloc(b->data, b->cap);
	}
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline void
tb_byte(TBuf *b, uint8_t v)
{
	tb_put(b, &v, 1);
}

static inline void
tb_zeros(TBuf *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tb_byte(b, 0);
}

static inline void
tb_u16(TBuf *b, uint16_t v)
{
	tb_byte(b, v & 0xFF);
	tb_byte(b, v >> 8);
}

static inline void
tb_u32(TBuf *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		tb_byte(b, (uint8_t) (v >> (8 * i)));
}

static inline void
tb_u64(TBuf *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		tb_byte(b, (uint8_t) (v >> (8 * i)));
}

static inline void
tb_pad_to(TBuf *b, size_t multiple)
{
	while (b->len % multiple != 0)
		tb_byte(b, 0);
}

static inline void
tb_free(TBuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* ---- protobuf (independent of src/amudai/protobuf.c) ---- */
static inline void
pb_varint(TBuf *b, uint64_t v)
{
	while (v >= 0x80)
	{
		tb_byte(b, (uint8_t) (v | 0x80));
		v >>= 7;
	}
	tb_byte(b, (uint8_t) v);
}

static inline void
pb_key(TBuf *b, unsigned tag, unsigned wt)
{
	pb_varint(b, (uint64_t) tag << 3 | wt);
}

static inline void
pb_uint(TBuf *b, unsigned tag, uint64_t v)
{
	pb_key(b, tag, 0);
	pb_varint(b, v);
}

static inline void
pb_fixed64(TBuf *b, unsigned tag, uint64_t v)
{
	pb_key(b, tag, 1);
	tb_u64(b, v);
}

static inline void
pb_bytes(TBuf *b, unsigned tag, const void *p, size_t n)
{
	pb_key(b, tag, 2);
	pb_varint(b, n);
	tb_put(b, p, n);
}

/* Append msg as a length-delimited field and free it. */
static inline void
pb_msg(TBuf *b, unsigned tag, TBuf *msg)
{
	pb_bytes(b, tag, msg->data, msg->len);
	tb_free(msg);
}

/* DataRef {url = "" (omitted), range {start, end}} */
static inline void
pb_data_ref(TBuf *b, unsigned tag, uint64_t start, uint64_t end)
{
	TBuf		range = {0},
				ref = {0};

	pb_fixed64(&range, 1, start);
	pb_fixed64(&range, 2, end);
	pb_msg(&ref, 2, &range);
	pb_msg(b, tag, &ref);
}

/* checksum32 exactly as the format notes' section 1.2 define it. */
static inline uint32_t
t_checksum32(const void *p, size_t n)
{
	uint64_t	h = XXH3_64bits(p, n);

	return (uint32_t) h ^ (uint32_t) (h >> 32);
}

/* Append [u32 len][payload][u32 checksum32]; sets the range it fills. */
static inline void
tb_envelope(TBuf *file, const TBuf *payload, uint64_t *start, uint64_t *end)
{
	*start = file->len;
	tb_u32(file, (uint32_t) payload->len);
	tb_put(file, payload->data, payload->len);
	tb_u32(file, t_checksum32(payload->data, payload->len));
	*end = file->len;
}

/* ---- in-memory sources ---- */
typedef struct MemFile
{
	const uint8_t *data;
	size_t		len;
	int			fail_errno;		/* nonzero: every read fails */
} MemFile;

static inline int
mem_read_at(void *ctx, uint64_t off, void *buf, size_t len)
{
	MemFile    *f = ctx;

	if (f->fail_errno)
		return f->fail_errno;
	if (off > f->len || len > f->len - off)
		return EIO;
	memcpy(buf, f->data + off, len);
	return 0;
}

static inline PfcSource
mem_source(MemFile *f)
{
	PfcSource	s;

	s.read_at = mem_read_at;
	s.size = f->len;
	s.ctx = f;
	return s;
}

/* A resolver over a table of named in-memory files. */
typedef struct MemDir
{
	int			count;
	const char *names[8];
	MemFile		files[8];
	int			opened;
	int			closed;
} MemDir;

static inline int
memdir_open(void *ctx, const char *url, size_t url_len, PfcSource *out)
{
	MemDir	   *d = ctx;

	for (int i = 0; i < d->count; i++)
		if (strlen(d->names[i]) == url_len && memcmp(d->names[i], url, url_len) == 0)
		{
			*out = mem_source(&d->files[i]);
			d->opened++;
			return 0;
		}
	return ENOENT;
}

static inline void
memdir_close(void *ctx, PfcSource *s)
{
	MemDir	   *d = ctx;

	(void) s;
	d->closed++;
}

/*
 * When AMUDAI_SEED_DIR is set, write hdr + data there as a fuzz seed named
 * name (how test/fuzz/corpus/fuzz_amudai_* were made).
 */
static inline void
t_dump_seed(const char *name, const uint8_t *hdr, size_t hlen,
			const uint8_t *data, size_t len)
{
	const char *dir = getenv("AMUDAI_SEED_DIR");
	char		path[512];
	FILE	   *f;

	if (dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL)
		return;
	if (hlen > 0)
		fwrite(hdr, 1, hlen, f);
	fwrite(data, 1, len, f);
	fclose(f);
}

#endif							/* AMUDAI_TEST_UTIL_H */
