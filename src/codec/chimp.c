/*-------------------------------------------------------------------------
 *
 * chimp.c
 *	  Chimp XOR-based floating-point compression (f64 and f32): encoder and
 *	  decoder of the layout documented in chimp.h.
 *
 * Design notes: one body handles both widths (T_BITS passed as a constant
 * to always-inline functions, so each instance folds its tables and
 * shifts).  The decoder is sequential by nature (each value depends on the
 * previous one), so "check once per block" means: before a run of values,
 * compute how many records certainly fit in the remaining bits at the
 * worst-case record size (MAX_RECORD) and decode that many without any
 * check; only the last few values near the end of the input go through the
 * checked reader.  Reads are 8-byte unaligned loads plus one byte for fields
 * that straddle, so they stay within the last byte that holds a requested
 * bit + 8, inside CDC_INPUT_PADDING.
 *
 * IDENTIFICATION
 *	  src/codec/chimp.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/chimp.h"
#include "codec/kernels.h"

#include <string.h>

static const uint8_t LEAD64[8] = {0, 8, 12, 16, 18, 20, 22, 24};
static const uint8_t LEAD32[8] = {0, 4, 6, 8, 10, 12, 14, 16};

/* Trailing-zero threshold, center-length field width, worst record size. */
#define TRAIL(T)		((T) == 64 ? 6 : 5)
#define CENTER_BITS(T)	((T) == 64 ? 6 : 5)
#define MAX_RECORD(T)	(2 + 3 + CENTER_BITS(T) + (1u << CENTER_BITS(T)) - 1)

static inline const uint8_t *
lead_table(const unsigned T)
{
	return T == 64 ? LEAD64 : LEAD32;
}

static inline uint64_t
low_mask(unsigned n)
{
	return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

/* ----------------------------------------------------------------
 * Bit writer (the caller checked the capacity up front)
 * ----------------------------------------------------------------
 */
typedef struct BitWriter
{
	uint8_t    *out;
	size_t		pos;			/* bytes flushed */
	uint64_t	acc;
	unsigned	fill;			/* bits in acc, < 64 */
} BitWriter;

static CDC_ALWAYS_INLINE void
bw_put(BitWriter *w, uint64_t v, unsigned n)
{
	if (n == 0)
		return;
	w->acc |= v << w->fill;
	if (w->fill + n >= 64)
	{
		unsigned	used = 64 - w->fill;

		memcpy(w->out + w->pos, &w->acc, 8);
		w->pos += 8;
		w->acc = used < 64 ? v >> used : 0;
		w->fill = w->fill + n - 64;
	}
	else
		w->fill += n;
}

static size_t
bw_finish(BitWriter *w)
{
	size_t		tail = (w->fill + 7) / 8;

	memcpy(w->out + w->pos, &w->acc, tail);
	return w->pos + tail;
}

/* ----------------------------------------------------------------
 * Encoder
 * ----------------------------------------------------------------
 */
static CDC_ALWAYS_INLINE size_t
chimp_max_size(size_t count, const unsigned T)
{
	return (count * MAX_RECORD(T) + 7) / 8 + 8;
}

size_t
cdc_chimp_max_size64(size_t count)
{
	return chimp_max_size(count, 64);
}

size_t
cdc_chimp_max_size32(size_t count)
{
	return chimp_max_size(count, 32);
}

static CDC_ALWAYS_INLINE unsigned
lead_code(unsigned lz, const unsigned T)
{
	const uint8_t *lead = lead_table(T);
	unsigned	code = 7;

	while (lead[code] > lz)
		code--;
	return code;
}

/* Bit pattern of value i (f64 or f32 array). */
static CDC_ALWAYS_INLINE uint64_t
value_bits(const void *in, size_t i, const unsigned T)
{
	if (T == 64)
	{
		uint64_t	b;

		memcpy(&b, (const uint8_t *) in + 8 * i, 8);
		return b;
	}
	else
	{
		uint32_t	b;

		memcpy(&b, (const uint8_t *) in + 4 * i, 4);
		return b;
	}
}

static CDC_ALWAYS_INLINE CdcStatus
chimp_encode(const void *in, size_t count, uint8_t *out, size_t out_cap,
			 size_t *written, const unsigned T)
{
	const uint8_t *lead = lead_table(T);
	BitWriter	w = {out, 0, 0, 0};
	unsigned	prev_lead = 0;
	uint64_t	prev;

	*written = 0;
	if (out_cap < chimp_max_size(count, T))
		return CDC_ERR_OUTPUT_FULL;
	if (count == 0)
		return CDC_OK;
	prev = value_bits(in, 0, T);
	bw_put(&w, prev, T);
	for (size_t i = 1; i < count; i++)
	{
		uint64_t	cur = value_bits(in, i, T);
		uint64_t	x = cur ^ prev;
		unsigned	lz,
					tz,
					code;

		prev = cur;
		if (x == 0)
		{
			bw_put(&w, 0, 2);
			continue;
		}
		lz = (unsigned) __builtin_clzll(x) - (64 - T);
		tz = (unsigned) __builtin_ctzll(x);
		code = lead_code(lz, T);
		if (tz > TRAIL(T))
		{
			unsigned	c = T - lead[code] - tz;

			bw_put(&w, 1 | code << 2 | (uint64_t) c << 5, 5 + CENTER_BITS(T));
			bw_put(&w, x >> tz, c);
			prev_lead = lead[code];
		}
		else if (lz >= prev_lead && lead[code] - prev_lead <= 3)
		{
			/* reusing the previous lead costs at most 3 bits: cheaper
			 * than a new lead code */
			bw_put(&w, 2, 2);
			bw_put(&w, x, T - prev_lead);
		}
		else
		{
			bw_put(&w, 3 | code << 2, 5);
			bw_put(&w, x, T - lead[code]);
			prev_lead = lead[code];
		}
	}
	*written = bw_finish(&w);
	return CDC_OK;
}

CdcStatus
cdc_chimp_encode64(const double *in, size_t count, uint8_t *out, size_t out_cap,
				   size_t *written)
{
	return chimp_encode(in, count, out, out_cap, written, 64);
}

CdcStatus
cdc_chimp_encode32(const float *in, size_t count, uint8_t *out, size_t out_cap,
				   size_t *written)
{
	return chimp_encode(in, count, out, out_cap, written, 32);
}

/* ----------------------------------------------------------------
 * Decoder
 * ----------------------------------------------------------------
 */

/* n (1..64) bits at stream bit pos; the caller made sure they exist. */
static CDC_ALWAYS_INLINE uint64_t
br_get(const uint8_t *in, uint64_t pos, unsigned n)
{
	const uint8_t *p = in + pos / 8;
	unsigned	sh = (unsigned) (pos % 8);
	uint64_t	v;

	memcpy(&v, p, 8);
	v >>= sh;
	if (sh + n > 64)
		v |= (uint64_t) p[8] << (64 - sh);
	return v & low_mask(n);
}

/*
 * Decode values [i, end) starting at bit *pos.  CHECKED: every field is
 * checked against total_bits; otherwise the caller guaranteed that
 * (end - i) * MAX_RECORD bits remain.
 */
#define NEED(n) \
	do { \
		if (checked && total_bits - p < (n)) \
			return CDC_ERR_TRUNCATED; \
	} while (0)

static CDC_ALWAYS_INLINE CdcStatus
chimp_decode_run(const uint8_t *in, uint64_t *pos, uint64_t total_bits,
				 uint8_t *out, size_t i, size_t end, uint64_t *prev,
				 unsigned *prev_lead, const unsigned T, const bool checked)
{
	const uint8_t *lead = lead_table(T);
	uint64_t	p = *pos;
	uint64_t	v = *prev;
	unsigned	pl = *prev_lead;

	for (; i < end; i++)
	{
		unsigned	flag;

		NEED(2);
		flag = (unsigned) br_get(in, p, 2);
		p += 2;
		if (flag == 1)
		{
			uint64_t	head;
			unsigned	ld,
						c;

			NEED(3 + CENTER_BITS(T));
			head = br_get(in, p, 3 + CENTER_BITS(T));
			p += 3 + CENTER_BITS(T);
			ld = lead[head & 7];
			c = (unsigned) (head >> 3);
			if (c == 0 || ld + c > T)
				return CDC_ERR_CORRUPT;
			NEED(c);
			v ^= br_get(in, p, c) << (T - ld - c);
			p += c;
			pl = ld;
		}
		else if (flag == 2)
		{
			NEED(T - pl);
			v ^= br_get(in, p, T - pl);
			p += T - pl;
		}
		else if (flag == 3)
		{
			unsigned	ld;

			NEED(3);
			ld = lead[br_get(in, p, 3)];
			p += 3;
			NEED(T - ld);
			v ^= br_get(in, p, T - ld);
			p += T - ld;
			pl = ld;
		}
		if (T == 64)
			memcpy(out + 8 * i, &v, 8);
		else
		{
			uint32_t	v32 = (uint32_t) v;

			memcpy(out + 4 * i, &v32, 4);
		}
	}
	*pos = p;
	*prev = v;
	*prev_lead = pl;
	return CDC_OK;
}

static CDC_ALWAYS_INLINE CdcStatus
chimp_decode(const uint8_t *in, size_t in_len, uint8_t *out, size_t count,
			 size_t *consumed, const unsigned T)
{
	uint64_t	total_bits = (uint64_t) in_len * 8;
	uint64_t	pos = 0;
	uint64_t	prev;
	unsigned	prev_lead = 0;
	size_t		i = 1;

	*consumed = 0;
	if (count == 0)
		return CDC_OK;
	if (total_bits < T)
		return CDC_ERR_TRUNCATED;
	prev = br_get(in, 0, T);
	pos = T;
	if (T == 64)
		memcpy(out, &prev, 8);
	else
	{
		uint32_t	v32 = (uint32_t) prev;

		memcpy(out, &v32, 4);
	}
	while (i < count)
	{
		size_t		safe = (size_t) ((total_bits - pos) / MAX_RECORD(T));
		CdcStatus	st;

		if (safe > count - i)
			safe = count - i;
		if (safe > 0)
			st = chimp_decode_run(in, &pos, total_bits, out, i, i + safe, &prev,
								  &prev_lead, T, false);
		else
		{
			safe = 1;
			st = chimp_decode_run(in, &pos, total_bits, out, i, i + 1, &prev,
								  &prev_lead, T, true);
		}
		if (st != CDC_OK)
			return st;
		i += safe;
	}
	*consumed = (size_t) ((pos + 7) / 8);
	return CDC_OK;
}

CdcStatus
cdc_chimp_decode64(const uint8_t *in, size_t in_len, double *out, size_t count,
				   size_t *consumed)
{
	return chimp_decode(in, in_len, (uint8_t *) out, count, consumed, 64);
}

CdcStatus
cdc_chimp_decode32(const uint8_t *in, size_t in_len, float *out, size_t count,
				   size_t *consumed)
{
	return chimp_decode(in, in_len, (uint8_t *) out, count, consumed, 32);
}
