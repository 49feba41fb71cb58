/*-------------------------------------------------------------------------
 *
 * bitpack.c
 *	  Fixed-width bit packing: LSB-first (RLE/bit-packing hybrid, BOOLEAN,
 *	  delta miniblocks) and MSB-first (deprecated BIT_PACKED).
 *
 * Design notes: eight values of width w fill exactly w bytes, so each group
 * of eight starts on a byte boundary and the bit offset of value j inside
 * its group is the constant j * w.  The scalar kernels unroll one group with
 * the width as a compile-time constant: each value is one unaligned 64-bit
 * load, one shift and one mask (a value of <= 57 bits plus a sub-byte offset
 * fits the load; wider 64-bit values borrow one more byte).  Tails decode
 * value by value, exactly.  SIMD variants of unpack32 live in
 * bitpack_avx2.c and bitpack_avx512.c; see kernels.h for the kernel
 * contract.  The packers are plain scalar code: only writers and tests use
 * them.
 *
 * IDENTIFICATION
 *	  src/codec/bitpack.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <string.h>

/* ----------------------------------------------------------------
 * Scalar unpack kernels
 * ----------------------------------------------------------------
 */

/* LSB-first, widths 0..32; `w` is a compile-time constant in every caller. */
static CDC_ALWAYS_INLINE void
unpack32_scalar_body(const uint8_t *in, uint32_t *out, size_t count,
					 const unsigned w)
{
	const uint64_t mask = (UINT64_C(1) << w) - 1;
	size_t		groups = count / 8;

	if (w == 0)
	{
		memset(out, 0, count * sizeof(uint32_t));
		return;
	}
	for (size_t g = 0; g < groups; g++)
	{
#pragma GCC unroll 8
		for (unsigned j = 0; j < 8; j++)
			out[j] = (uint32_t) ((cdc_load64(in + j * w / 8) >> (j * w % 8)) & mask);
		in += w;
		out += 8;
	}
	for (unsigned j = 0; j < count % 8; j++)
		out[j] = (uint32_t) ((cdc_load64(in + j * w / 8) >> (j * w % 8)) & mask);
}

/* One LSB-first value of width <= 64 at bit offset `bit` of `in`. */
static CDC_ALWAYS_INLINE uint64_t
extract64(const uint8_t *in, size_t bit, const unsigned w)
{
	const uint8_t *p = in + bit / 8;
	unsigned	shift = bit % 8;
	uint64_t	v = cdc_load64(p) >> shift;

	if (w + shift > 64)
		v |= (uint64_t) p[8] << (64 - shift);
	return w == 64 ? v : v & ((UINT64_C(1) << w) - 1);
}

/* LSB-first, widths 0..64. */
static CDC_ALWAYS_INLINE void
unpack64_scalar_body(const uint8_t *in, uint64_t *out, size_t count,
					 const unsigned w)
{
	size_t		groups = count / 8;

	if (w == 0)
	{
		memset(out, 0, count * sizeof(uint64_t));
		return;
	}
	for (size_t g = 0; g < groups; g++)
	{
#pragma GCC unroll 8
		for (unsigned j = 0; j < 8; j++)
			out[j] = extract64(in, j * w, w);
		in += w;
		out += 8;
	}
	for (unsigned j = 0; j < count % 8; j++)
		out[j] = extract64(in, j * w, w);
}

/* MSB-first (BIT_PACKED), widths 0..32: a big-endian 64-bit window, the
 * value's first bit moved to the top, then shifted down. */
static CDC_ALWAYS_INLINE uint32_t
extract_msb(const uint8_t *in, size_t bit, const unsigned w)
{
	uint64_t	window = __builtin_bswap64(cdc_load64(in + bit / 8));

	return (uint32_t) ((window << (bit % 8)) >> (64 - w));
}

static CDC_ALWAYS_INLINE void
unpack32_msb_scalar_body(const uint8_t *in, uint32_t *out, size_t count,
						 const unsigned w)
{
	size_t		groups = count / 8;

	if (w == 0)
	{
		memset(out, 0, count * sizeof(uint32_t));
		return;
	}
	for (size_t g = 0; g < groups; g++)
	{
#pragma GCC unroll 8
		for (unsigned j = 0; j < 8; j++)
			out[j] = extract_msb(in, j * w, w);
		in += w;
		out += 8;
	}
	for (unsigned j = 0; j < count % 8; j++)
		out[j] = extract_msb(in, j * w, w);
}

/* One instance per width, and the tables indexed by width. */
#define DEFINE_UNPACK32(w) \
	static void unpack32_scalar_##w(const uint8_t *in, uint32_t *out, size_t n) \
	{ unpack32_scalar_body(in, out, n, w); }
#define DEFINE_UNPACK64(w) \
	static void unpack64_scalar_##w(const uint8_t *in, uint64_t *out, size_t n) \
	{ unpack64_scalar_body(in, out, n, w); }
#define DEFINE_UNPACK32_MSB(w) \
	static void unpack32_msb_scalar_##w(const uint8_t *in, uint32_t *out, size_t n) \
	{ unpack32_msb_scalar_body(in, out, n, w); }

CDC_WIDTHS_0_32(DEFINE_UNPACK32)
CDC_WIDTHS_0_32(DEFINE_UNPACK64)
CDC_WIDTHS_33_64(DEFINE_UNPACK64)
CDC_WIDTHS_0_32(DEFINE_UNPACK32_MSB)

#define ENTRY_UNPACK32(w) unpack32_scalar_##w,
#define ENTRY_UNPACK64(w) unpack64_scalar_##w,
#define ENTRY_UNPACK32_MSB(w) unpack32_msb_scalar_##w,

const CdcUnpack32Fn cdc_unpack32_scalar_table[33] = {
	CDC_WIDTHS_0_32(ENTRY_UNPACK32)
};
const CdcUnpack64Fn cdc_unpack64_scalar_table[65] = {
	CDC_WIDTHS_0_32(ENTRY_UNPACK64)
	CDC_WIDTHS_33_64(ENTRY_UNPACK64)
};
const CdcUnpack32Fn cdc_unpack32_msb_scalar_table[33] = {
	CDC_WIDTHS_0_32(ENTRY_UNPACK32_MSB)
};

/* ----------------------------------------------------------------
 * Public entry points
 * ----------------------------------------------------------------
 */

/* Bytes holding count values of bit_width bits: ceil(count * w / 8),
 * computed without overflowing for any count. */
size_t
cdc_packed_size(size_t count, unsigned bit_width)
{
	return (count / 8) * bit_width + ((count % 8) * bit_width + 7) / 8;
}

/*
 * Unpack count LSB-first values of bit_width (0..32) bits.  Widths above 32
 * are CDC_ERR_INVALID_ARGUMENT; an input shorter than
 * cdc_packed_size(count, bit_width) is CDC_ERR_TRUNCATED.
 */
CdcStatus
cdc_unpack32(const uint8_t *in, size_t in_len, unsigned bit_width,
			 uint32_t *out, size_t count)
{
	if (bit_width > 32)
		return CDC_ERR_INVALID_ARGUMENT;
	if (count == 0)
		return CDC_OK;
	if (in_len < cdc_packed_size(count, bit_width))
		return CDC_ERR_TRUNCATED;
	cdc_unpack32_table(cdc_isa_current())[bit_width] (in, out, count);
	return CDC_OK;
}

/* Same for 64-bit outputs, widths 0..64. */
CdcStatus
cdc_unpack64(const uint8_t *in, size_t in_len, unsigned bit_width,
			 uint64_t *out, size_t count)
{
	if (bit_width > 64)
		return CDC_ERR_INVALID_ARGUMENT;
	if (count == 0)
		return CDC_OK;
	if (in_len < cdc_packed_size(count, bit_width))
		return CDC_ERR_TRUNCATED;
	cdc_unpack64_scalar_table[bit_width] (in, out, count);
	return CDC_OK;
}

/* MSB-first (deprecated BIT_PACKED) values, widths 0..32. */
CdcStatus
cdc_unpack32_msb(const uint8_t *in, size_t in_len, unsigned bit_width,
				 uint32_t *out, size_t count)
{
	if (bit_width > 32)
		return CDC_ERR_INVALID_ARGUMENT;
	if (count == 0)
		return CDC_OK;
	if (in_len < cdc_packed_size(count, bit_width))
		return CDC_ERR_TRUNCATED;
	cdc_unpack32_msb_scalar_table[bit_width] (in, out, count);
	return CDC_OK;
}

/* ----------------------------------------------------------------
 * Packers
 *
 * Each writes exactly cdc_packed_size(count, bit_width) bytes, the unused
 * bits of the last byte zero.  A value with bits set above bit_width is
 * CDC_ERR_INVALID_ARGUMENT (silently masking would hide a writer bug).
 * ----------------------------------------------------------------
 */

/* Append the low n (<= 32) bits of v to an LSB-first accumulator, flushing
 * whole 32-bit words.  Invariant: *nbits < 32 on entry and exit. */
static inline void
push_lsb(uint64_t *acc, unsigned *nbits, uint8_t **out, uint64_t v, unsigned n)
{
	*acc |= v << *nbits;
	*nbits += n;
	if (*nbits >= 32)
	{
		uint32_t	word = (uint32_t) *acc;

		memcpy(*out, &word, 4);
		*out += 4;
		*acc >>= 32;
		*nbits -= 32;
	}
}

/* Write the bytes left in the accumulator. */
static inline void
flush_lsb(uint64_t acc, unsigned nbits, uint8_t *out)
{
	for (unsigned i = 0; i * 8 < nbits; i++)
		out[i] = (uint8_t) (acc >> (8 * i));
}

CdcStatus
cdc_pack32(const uint32_t *in, size_t count, unsigned bit_width,
		   uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		size;
	uint64_t	acc = 0;
	unsigned	nbits = 0;
	uint8_t    *o = out;

	if (bit_width > 32)
		return CDC_ERR_INVALID_ARGUMENT;
	size = cdc_packed_size(count, bit_width);
	if (out_cap < size)
		return CDC_ERR_OUTPUT_FULL;
	for (size_t i = 0; i < count; i++)
	{
		if (bit_width < 32 && (in[i] >> bit_width) != 0)
			return CDC_ERR_INVALID_ARGUMENT;
		push_lsb(&acc, &nbits, &o, in[i], bit_width);
	}
	flush_lsb(acc, nbits, o);
	*written = size;
	return CDC_OK;
}

CdcStatus
cdc_pack64(const uint64_t *in, size_t count, unsigned bit_width,
		   uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		size;
	uint64_t	acc = 0;
	unsigned	nbits = 0;
	uint8_t    *o = out;

	if (bit_width > 64)
		return CDC_ERR_INVALID_ARGUMENT;
	size = cdc_packed_size(count, bit_width);
	if (out_cap < size)
		return CDC_ERR_OUTPUT_FULL;
	for (size_t i = 0; i < count; i++)
	{
		uint64_t	v = in[i];

		if (bit_width < 64 && (v >> bit_width) != 0)
			return CDC_ERR_INVALID_ARGUMENT;
		if (bit_width <= 32)
			push_lsb(&acc, &nbits, &o, v, bit_width);
		else
		{
			push_lsb(&acc, &nbits, &o, v & UINT32_MAX, 32);
			push_lsb(&acc, &nbits, &o, v >> 32, bit_width - 32);
		}
	}
	flush_lsb(acc, nbits, o);
	*written = size;
	return CDC_OK;
}

CdcStatus
cdc_pack32_msb(const uint32_t *in, size_t count, unsigned bit_width,
			   uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		size;
	uint64_t	acc = 0;
	unsigned	nbits = 0;
	size_t		o = 0;

	if (bit_width > 32)
		return CDC_ERR_INVALID_ARGUMENT;
	size = cdc_packed_size(count, bit_width);
	if (out_cap < size)
		return CDC_ERR_OUTPUT_FULL;
	for (size_t i = 0; i < count; i++)
	{
		if (bit_width < 32 && (in[i] >> bit_width) != 0)
			return CDC_ERR_INVALID_ARGUMENT;
		/* nbits < 8 here, so the accumulator holds < 40 live bits. */
		acc = (acc << bit_width) | in[i];
		nbits += bit_width;
		while (nbits >= 8)
		{
			out[o++] = (uint8_t) (acc >> (nbits - 8));
			nbits -= 8;
		}
	}
	if (nbits > 0)
		out[o++] = (uint8_t) (acc << (8 - nbits));
	*written = size;
	return CDC_OK;
}
