/*-------------------------------------------------------------------------
 *
 * fuzz_delta.c
 *	  libFuzzer target: the DELTA_BINARY_PACKED (INT32, INT64),
 *	  DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY decoders on arbitrary
 *	  bytes.
 *
 * Input layout: byte 0 = mode (low 2 bits: int32, int64, length byte
 * array, byte array); bytes 1..2 = value count (little-endian); the rest is
 * the stream, copied to a heap buffer of exactly in_len +
 * CDC_INPUT_PADDING bytes.  Outputs are heap buffers of exactly count +
 * CDC_OUTPUT_SLACK values, the arena exactly what measure asks for.
 *
 * Oracles: integers decode identically on every ISA (status, values,
 * consumed); decoding fewer values gives a prefix and the same consumed;
 * consumed never exceeds the input; views stay inside the input or the
 * arena; whatever decodes re-encodes and decodes to the same values.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_delta.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_ints(const uint8_t *in, size_t in_len, size_t count, int is64)
{
	size_t		vsize = is64 ? 8 : 4;
	uint8_t    *ref = malloc((count + CDC_OUTPUT_SLACK) * vsize);
	uint8_t    *got = malloc((count + CDC_OUTPUT_SLACK) * vsize);
	size_t		c0 = 0,
				c = 0;
	CdcStatus	st0,
				st;
	CdcIsa		saved = cdc_isa_current();

#define DECODE(out, n, consumed) \
	(is64 ? cdc_delta_binary_decode64(in, in_len, (int64_t *) (out), (n), (consumed)) \
	 : cdc_delta_binary_decode32(in, in_len, (int32_t *) (out), (n), (consumed)))

	cdc_set_isa(CDC_ISA_SCALAR);
	st0 = DECODE(ref, count, &c0);
	if (st0 == CDC_OK && c0 > in_len)
		abort();
	for (int isa = 1; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		st = DECODE(got, count, &c);
		if (st != st0 || (st == CDC_OK && (c != c0 || memcmp(got, ref, count * vsize) != 0)))
			abort();
	}
	cdc_set_isa(saved);

	if (st0 == CDC_OK)
	{
		size_t		half = count / 2;
		size_t		cap = cdc_delta_binary_max_size(count, is64);
		uint8_t    *enc = malloc(cap + CDC_INPUT_PADDING);
		size_t		written = 0;

		st = DECODE(got, half, &c);
		if (st != CDC_OK || c != c0 || memcmp(got, ref, half * vsize) != 0)
			abort();

		st = is64 ? cdc_delta_binary_encode64((const int64_t *) ref, count, 128, 4, enc, cap, &written)
			: cdc_delta_binary_encode32((const int32_t *) ref, count, 128, 4, enc, cap, &written);
		if (st != CDC_OK || written > cap)
			abort();
		memset(enc + written, 0, CDC_INPUT_PADDING);
		st = is64 ? cdc_delta_binary_decode64(enc, written, (int64_t *) got, count, &c)
			: cdc_delta_binary_decode32(enc, written, (int32_t *) got, count, &c);
		if (st != CDC_OK || c != written || memcmp(got, ref, count * vsize) != 0)
			abort();
		free(enc);
	}
#undef DECODE
	free(ref);
	free(got);
}

static void
check_views(const CdcByteView *v, size_t count, const uint8_t *lo1, size_t len1,
			const uint8_t *lo2, size_t len2)
{
	for (size_t i = 0; i < count; i++)
	{
		int			in1 = v[i].ptr >= lo1 && v[i].ptr + v[i].len <= lo1 + len1;
		int			in2 = lo2 && v[i].ptr >= lo2 && v[i].ptr + v[i].len <= lo2 + len2;

		if (v[i].len > 0 && !in1 && !in2)
			abort();
	}
}

/* Re-encode views and decode them back. */
static void
reencode(const CdcByteView *v, size_t count, int dba)
{
	size_t		cap = dba ? cdc_delta_byte_array_max_size(v, count)
		: cdc_delta_length_max_size(v, count);
	uint8_t    *enc = malloc(cap + CDC_INPUT_PADDING);
	CdcByteView *back = malloc((count + 1) * sizeof(CdcByteView));
	int32_t    *s1 = malloc((count + CDC_OUTPUT_SLACK) * sizeof(int32_t));
	int32_t    *s2 = malloc((count + CDC_OUTPUT_SLACK) * sizeof(int32_t));
	uint8_t    *arena = NULL;
	size_t		written = 0,
				c = 0,
				needed = 0;
	CdcStatus	st;

	st = dba ? cdc_delta_byte_array_encode(v, count, enc, cap, &written)
		: cdc_delta_length_encode(v, count, enc, cap, &written);
	if (st != CDC_OK || written > cap)
		abort();
	memset(enc + written, 0, CDC_INPUT_PADDING);
	if (dba)
	{
		if (cdc_delta_byte_array_measure(enc, written, count, s1, &needed) != CDC_OK)
			abort();
		arena = malloc(needed + 1);
		st = cdc_delta_byte_array_decode(enc, written, back, count, s1, s2, arena, needed, &c);
	}
	else
		st = cdc_delta_length_decode(enc, written, back, count, s1, &c);
	if (st != CDC_OK || c != written)
		abort();
	for (size_t i = 0; i < count; i++)
		if (back[i].len != v[i].len || (v[i].len && memcmp(back[i].ptr, v[i].ptr, v[i].len) != 0))
			abort();
	free(enc);
	free(back);
	free(s1);
	free(s2);
	free(arena);
}

static void
fuzz_bytes(const uint8_t *in, size_t in_len, size_t count, int dba)
{
	CdcByteView *out = malloc((count + 1) * sizeof(CdcByteView));
	int32_t    *s1 = malloc((count + CDC_OUTPUT_SLACK) * sizeof(int32_t));
	int32_t    *s2 = malloc((count + CDC_OUTPUT_SLACK) * sizeof(int32_t));
	size_t		c = 0;
	CdcStatus	st;

	if (!dba)
	{
		st = cdc_delta_length_decode(in, in_len, out, count, s1, &c);
		if (st == CDC_OK)
		{
			if (c > in_len)
				abort();
			check_views(out, count, in, in_len, NULL, 0);
			reencode(out, count, 0);
		}
	}
	else
	{
		size_t		needed = 0;

		st = cdc_delta_byte_array_measure(in, in_len, count, s1, &needed);
		if (st == CDC_OK && needed <= (1u << 24))
		{
			uint8_t    *arena = malloc(needed + 1);

			st = cdc_delta_byte_array_decode(in, in_len, out, count, s1, s2,
											 arena, needed, &c);
			if (st == CDC_OK)
			{
				if (c > in_len)
					abort();
				check_views(out, count, in, in_len, arena, needed);
				reencode(out, count, 1);
			}
			/* A one-byte-smaller arena either suffices or is reported. */
			if (st == CDC_OK && needed > 0)
			{
				st = cdc_delta_byte_array_decode(in, in_len, out, count, s1, s2,
												 arena, needed - 1, &c);
				if (st != CDC_OK && st != CDC_ERR_OUTPUT_FULL)
					abort();
			}
			free(arena);
		}
	}
	free(out);
	free(s1);
	free(s2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned	mode;
	size_t		count;
	size_t		in_len;
	uint8_t    *in;

	if (size < 3)
		return 0;
	mode = data[0] & 3;
	count = data[1] | (size_t) data[2] << 8;
	in_len = size - 3;
	in = malloc(in_len + CDC_INPUT_PADDING);
	memcpy(in, data + 3, in_len);
	memset(in + in_len, 0x5A, CDC_INPUT_PADDING);
	if (mode <= 1)
		fuzz_ints(in, in_len, count, mode == 1);
	else
		fuzz_bytes(in, in_len, count, mode == 3);
	free(in);
	return 0;
}
