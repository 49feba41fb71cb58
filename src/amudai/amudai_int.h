/*-------------------------------------------------------------------------
 *
 * amudai_int.h
 *	  Helpers shared by the files of the Amudai layer: error reporting,
 *	  unaligned little-endian loads and stores, allocation, and the bounded
 *	  protobuf wire-format reader (protobuf.c).
 *
 * Not part of the contract; only src/amudai/ and its tests include it.
 *
 * IDENTIFICATION
 *	  src/amudai/amudai_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef AM_AMUDAI_INT_H
#define AM_AMUDAI_INT_H

#include "amudai/amudai.h"

#include <inttypes.h>
#include <string.h>

#if defined(__GNUC__)
#define AM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define AM_PRINTF(f, a)
#endif

/*
 * Set err (may be NULL) to status with a printf-style message; keeps the
 * stripe/field/block context already there.  Returns status, so callers
 * write "return am_fail(err, AM_ERR_CORRUPT, ...)".
 */
AmStatus	am_fail(AmError *err, AmStatus status, const char *fmt, ...) AM_PRINTF(3, 4);

/* Allocation through a PfcAllocator; NULL result sets AM_ERR_IO/ENOMEM. */
void	   *am_alloc(const PfcAllocator *alloc, size_t size, AmError *err);
void		am_release(const PfcAllocator *alloc, void *ptr);

/* size = a * b, false on overflow. */
static inline bool
am_mul_ok(uint64_t a, uint64_t b, uint64_t *size)
{
	return !__builtin_mul_overflow(a, b, size);
}

static inline uint16_t
am_load_u16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (uint16_t) p[1] << 8);
}

static inline uint32_t
am_load_u32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, 4);
	return v;					/* x86-64 and every supported host: LE */
}

static inline uint64_t
am_load_u64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, 8);
	return v;
}

static inline void
am_store_u16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static inline void
am_store_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void
am_store_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline uint64_t
am_align_up(uint64_t x, uint64_t n)
{
	return (x + n - 1) / n * n;
}

/* ----------------------------------------------------------------
 * Protobuf wire format (protobuf.c)
 * ----------------------------------------------------------------
 */
#define AM_PB_MAX_DEPTH 32

typedef enum AmPbWireType
{
	AM_PB_VARINT = 0,
	AM_PB_FIXED64 = 1,
	AM_PB_LEN = 2,
	AM_PB_FIXED32 = 5
} AmPbWireType;

/* A cursor over one message's bytes; depth counts enclosing messages. */
typedef struct AmPbReader
{
	const uint8_t *pos;
	const uint8_t *end;
	int			depth;
} AmPbReader;

/* One decoded field: scalar in u64 (varint, fixed32, fixed64) or bytes. */
typedef struct AmPbField
{
	uint32_t	tag;
	AmPbWireType wire_type;
	uint64_t	u64;
	AmBytes		bytes;			/* AM_PB_LEN */
} AmPbField;

void		am_pb_init(AmPbReader *r, AmBytes msg);

/*
 * Start a reader over a nested message held in field f (must be AM_PB_LEN);
 * fails past AM_PB_MAX_DEPTH.
 */
AmStatus	am_pb_nested(const AmPbReader *parent, const AmPbField *f,
						 AmPbReader *child, AmError *err);

/*
 * Next field; *done = true at the end of the message.  Groups (wire types 3
 * and 4), tag 0, truncated values and 11-byte varints are corrupt.
 */
AmStatus	am_pb_next(AmPbReader *r, AmPbField *f, bool *done, AmError *err);

/* Read a varint at *pos (< end), advancing *pos; false on truncation. */
bool		am_pb_read_varint(const uint8_t **pos, const uint8_t *end,
							  uint64_t *value);

/* Checks that f has wire type wt, else AM_ERR_CORRUPT naming the message. */
AmStatus	am_pb_expect(const AmPbField *f, AmPbWireType wt, const char *msg,
						 AmError *err);

/*
 * Repeated fixed64 field: packed (AM_PB_LEN, 8-byte multiple) or one
 * unpacked value.  Counts the values in f, and copies them to out + *n when
 * out is not NULL, advancing *n.
 */
AmStatus	am_pb_fixed64_values(const AmPbField *f, uint64_t *out,
								 uint64_t cap, uint64_t *n, AmError *err);

/* ----------------------------------------------------------------
 * Protobuf writing (protobuf.c), for the writer and tests
 * ----------------------------------------------------------------
 */
typedef struct AmPbWriter
{
	uint8_t    *buf;
	size_t		len;
	size_t		cap;
	const PfcAllocator *alloc;
	bool		failed;			/* an allocation failed */
} AmPbWriter;

void		am_pbw_init(AmPbWriter *w, const PfcAllocator *alloc);
void		am_pbw_free(AmPbWriter *w);
void		am_pbw_raw(AmPbWriter *w, const void *data, size_t len);
void		am_pbw_varint(AmPbWriter *w, uint64_t v);
void		am_pbw_tag(AmPbWriter *w, uint32_t tag, AmPbWireType wt);
void		am_pbw_uint(AmPbWriter *w, uint32_t tag, uint64_t v);	/* varint */
void		am_pbw_fixed64(AmPbWriter *w, uint32_t tag, uint64_t v);
void		am_pbw_fixed32(AmPbWriter *w, uint32_t tag, uint32_t v);
void		am_pbw_bytes(AmPbWriter *w, uint32_t tag, const void *data,
						 size_t len);

#endif							/* AM_AMUDAI_INT_H */
