/*-------------------------------------------------------------------------
 *
 * patched_bitpack.c
 *	  Bit packing with exceptions (patched frame of reference) over the
 *	  FastLanes layout: encoder with a size-optimal width, and decoder.
 *
 * The layout is documented in patched_bitpack.h.
 *
 * Design notes: the encoder makes one pass for the minimum, one for a
 * histogram of the deltas' bit lengths, then evaluates every width
 * exactly (FastLanes chunks + 4 bytes per exception + its packed high
 * part), so outliers stop inflating the width of a whole block.  The
 * decoder validates the header and the exact block size once, FFOR-decodes
 * all values (low bits + reference, the hot part, through the dispatched
 * FastLanes kernels), then patches exceptions by adding high << width:
 * additions mod 2^T_BITS commute, so patching after the reference is exact.
 *
 * IDENTIFICATION
 *	  src/codec/patched_bitpack.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/patched_bitpack.h"
#include "codec/fastlanes.h"
#include "codec/kernels.h"

#include <string.h>

static unsigned
bit_length64(uint64_t v)
{
	return v == 0 ? 0 : 64 - (unsigned) __builtin_clzll(v);
}

static inline uint64_t
low_mask(unsigned n)
{
	return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

/* Total block size for a width (e exceptions of high width hw). */
static size_t
block_size(size_t count, unsigned width, size_t e, unsigned hw)
{
	return CDC_PFOR_HEADER_SIZE + cdc_fl_packed_size(count, width) + 4 * e +
		(e * hw + 7) / 8;
}

size_t
cdc_pfor_max_size64(size_t count)
{
	/* the encoder never picks a size above plain width 64 */
	return block_size(count, 64, 0, 0);
}

size_t
cdc_pfor_max_size32(size_t count)
{
	return block_size(count, 32, 0, 0);
}

/* Bits [bit, bit + n) of an LSB-first stream (n <= 64); reads 9 bytes. */
static inline uint64_t
get_bits(const uint8_t *p, uint64_t bit, unsigned n)
{
	const uint8_t *q = p + bit / 8;
	unsigned	sh = (unsigned) (bit % 8);
	uint64_t	v = cdc_load64(q) >> sh;

	if (n == 0)
		return 0;
	if (sh + n > 64)
		v |= (uint64_t) q[8] << (64 - sh);
	return v & low_mask(n);
}

/* OR n bits of v at stream bit `bit` (output zeroed beforehand). */
static inline void
put_bits(uint8_t *p, uint64_t bit, uint64_t v, unsigned n)
{
	for (unsigned done = 0; done < n;)
	{
		uint64_t	b = bit + done;
		unsigned	take = 8 - (unsigned) (b % 8);

		if (take > n - done)
			take = n - done;
		p[b / 8] |= (uint8_t) (((v >> done) & low_mask(take)) << (b % 8));
		done += take;
	}
}

#define DEFINE_PFOR(BITS, T) \
CdcStatus \
cdc_pfor_encode##BITS(const T *in, size_t count, uint8_t *out, size_t out_cap, \
					  size_t *written) \
{ \
	size_t		hist[BITS + 1] = {0}; \
	T			ref = 0; \
	unsigned	maxlen = 0, \
				best_w = BITS, \
				hw; \
	size_t		best = (size_t) -1, \
				e = 0, \
				fl_len, \
				wr, \
				k; \
	uint8_t    *p; \
	CdcStatus	st; \
\
	*written = 0; \
	if (count > UINT32_MAX) \
		return CDC_ERR_INVALID_ARGUMENT; \
	for (size_t i = 0; i < count; i++) \
		ref = (i == 0 || in[i] < ref) ? in[i] : ref; \
	for (size_t i = 0; i < count; i++) \
		hist[bit_length64((T) (in[i] - ref))]++; \
	for (unsigned b = 0; b <= BITS; b++) \
		if (hist[b]) \
			maxlen = b; \
	/* exceptions above width w: values whose delta is longer than w */ \
	for (int w = BITS; w >= 0; w--) \
	{ \
		size_t		exc = 0, \
					size; \
\
		for (unsigned b = (unsigned) w + 1; b <= BITS; b++) \
			exc += hist[b]; \
		size = block_size(count, (unsigned) w, exc, exc ? maxlen - (unsigned) w : 0); \
		if (size <= best) \
		{ \
			best = size; \
			best_w = (unsigned) w; \
			e = exc; \
		} \
	} \
	hw = e ? maxlen - best_w : 0; \
	if (out_cap < best) \
		return CDC_ERR_OUTPUT_FULL; \
	memset(out, 0, best); \
	{ \
		uint32_t	n32 = (uint32_t) count, \
					e32 = (uint32_t) e; \
		uint64_t	ref64 = ref; \
\
		memcpy(out, &n32, 4); \
		memcpy(out + 4, &e32, 4); \
		out[8] = (uint8_t) best_w; \
		out[9] = (uint8_t) hw; \
		memcpy(out + 16, &ref64, 8); \
	} \
	fl_len = cdc_fl_packed_size(count, best_w); \
	st = cdc_ffor_encode##BITS(in, count, ref, best_w, out + CDC_PFOR_HEADER_SIZE, \
							   fl_len, &wr); \
	if (st != CDC_OK) \
		return st; \
	p = out + CDC_PFOR_HEADER_SIZE + fl_len; \
	k = 0; \
	for (size_t i = 0; i < count && e > 0; i++) \
	{ \
		T			d = (T) (in[i] - ref); \
\
		if (bit_length64(d) > best_w) \
		{ \
			uint32_t	pos = (uint32_t) i; \
\
			memcpy(p + 4 * k, &pos, 4); \
			put_bits(p + 4 * e, (uint64_t) k * hw, (uint64_t) d >> best_w, hw); \
			k++; \
		} \
	} \
	*written = best; \
	return CDC_OK; \
} \
\
CdcStatus \
cdc_pfor_decode##BITS(const uint8_t *in, size_t in_len, T *out, size_t count) \
{ \
	uint32_t	n32, \
				e; \
	unsigned	width, \
				hw; \
	uint64_t	ref; \
	size_t		fl_len, \
				need; \
	const uint8_t *pos_bytes, \
			   *highs; \
	CdcStatus	st; \
\
	if (in_len < CDC_PFOR_HEADER_SIZE) \
		return CDC_ERR_TRUNCATED; \
	n32 = cdc_load32(in); \
	e = cdc_load32(in + 4); \
	width = in[8]; \
	hw = in[9]; \
	ref = cdc_load64(in + 16); \
	if (n32 != count || e > count || width > BITS || hw > BITS || \
		(width == BITS && e > 0) || (BITS < 64 && (ref >> (BITS % 64)) != 0) || \
		(cdc_load64(in + 8) >> 16) != 0) \
		return CDC_ERR_CORRUPT; \
	fl_len = cdc_fl_packed_size(count, width); \
	need = block_size(count, width, e, hw); \
	if (in_len < need) \
		return CDC_ERR_TRUNCATED; \
	if (in_len > need) \
		return CDC_ERR_CORRUPT; \
	st = cdc_ffor_decode##BITS(in + CDC_PFOR_HEADER_SIZE, fl_len, width, (T) ref, \
							   out, count); \
	if (st != CDC_OK) \
		return st; \
	pos_bytes = in + CDC_PFOR_HEADER_SIZE + fl_len; \
	highs = pos_bytes + 4 * (size_t) e; \
	for (uint32_t k = 0; k < e; k++) \
	{ \
		uint32_t	pos = cdc_load32(pos_bytes + 4 * (size_t) k); \
\
		if (pos >= count || (k > 0 && pos <= cdc_load32(pos_bytes + 4 * (size_t) (k - 1)))) \
			return CDC_ERR_CORRUPT; \
		out[pos] += (T) (get_bits(highs, (uint64_t) k * hw, hw) << width); \
	} \
	return CDC_OK; \
}

DEFINE_PFOR(64, uint64_t)
DEFINE_PFOR(32, uint32_t)
