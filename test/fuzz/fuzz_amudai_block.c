/*-------------------------------------------------------------------------
 *
 * fuzz_amudai_block.c
 *	  libFuzzer target: Amudai block framing, presence sections and value
 *	  sections (numeric cascades and binary encodings) on arbitrary bytes.
 *
 * Input layout: byte 0 = mode; (byte 0 & 0x7F) >= 112: the rest is a
 * RANGE_INDEX buffer with element size byte 1 % 17.  Otherwise bit 7 set:
 * the rest is a whole block (8-byte header, presence, value section; no
 * checksum), else a bare value section, and (byte 0 & 0x7F) % 14 picks the
 * stream type: 0..9 the AmNumType values, 10 variable-size binary, 11..13
 * fixed-size binary of width 16, 4 and 1.
 * Bytes 1..2 = value count (little-endian); the rest is copied to a heap
 * buffer of exactly its size, so ASan sees any over-read.
 *
 * Oracles: no crash, no leak; decoding the same bytes twice gives the same
 * status and values; a successful binary decode has offsets that start at
 * 0, never decrease and end at data_len; presence null counts match the
 * bytes.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_amudai_block.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "amudai/amudai.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint32_t fixed_widths[4] = {0, 16, 4, 1};

static void
decode_values(const uint8_t *sec, size_t len, unsigned type, size_t count,
			  const uint8_t *present)
{
	AmError		err;

	if (type < 10)
	{
		size_t		w = am_num_type_size((AmNumType) type);
		uint8_t    *a = malloc(count * w + 1);
		uint8_t    *b = malloc(count * w + 1);
		AmStatus	s1 = am_decode_numeric(sec, len, (AmNumType) type, count, a,
										   &pfc_malloc_allocator, &err);
		AmStatus	s2 = am_decode_numeric(sec, len, (AmNumType) type, count, b,
										   &pfc_malloc_allocator, &err);

		if (s1 != s2 || (s1 == AM_OK && memcmp(a, b, count * w) != 0))
			abort();
		free(a);
		free(b);
	}
	else
	{
		AmBinaryValues v;
		uint32_t	fw = fixed_widths[type - 10];
		AmStatus	st = am_decode_binary(sec, len, count, fw, present,
										  &pfc_malloc_allocator, &v, &err);

		if (st == AM_OK)
		{
			if (fw == 0)
			{
				if (v.offsets == NULL || v.offsets[0] != 0 ||
					v.offsets[count] != v.data_len)
					abort();
				for (size_t i = 0; i < count; i++)
					if (v.offsets[i + 1] < v.offsets[i])
						abort();
			}
			else if (v.offsets != NULL || v.data_len != count * (size_t) fw)
				abort();
			/* the first and last byte must be readable */
			if (v.data_len > 0)
			{
				volatile uint8_t sink = v.data[0] ^ v.data[v.data_len - 1];

				(void) sink;
			}
			am_binary_values_free(&v, &pfc_malloc_allocator);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned	type;
	size_t		count;
	size_t		len;
	uint8_t    *in;

	if (size < 3)
		return 0;
	type = (data[0] & 0x7F) % 14;
	count = data[1] | (size_t) data[2] << 8;
	len = size - 3;
	in = malloc(len > 0 ? len : 1);
	memcpy(in, data + 3, len);

	if ((data[0] & 0x7F) >= 112)
	{
		AmRangeIndex ri;
		AmError		err;

		if (am_range_index_parse(in, len, data[1] % 17, &pfc_malloc_allocator,
								 &ri, &err) == AM_OK)
		{
			/* first and last bytes of both arrays must be readable */
			if (ri.blocks > 0)
			{
				volatile uint8_t sink = ri.mins[0] ^ ri.maxs[ri.blocks * ri.elem_size - 1] ^
					ri.mins[ri.blocks * ri.elem_size - 1] ^ ri.maxs[0];

				(void) sink;
			}
			am_range_index_free(&ri, &pfc_malloc_allocator);
		}
	}
	else if (data[0] & 0x80)
	{
		AmBlockView view;
		AmError		err;
		uint8_t    *present = malloc(count + 1);
		size_t		nulls = 0;

		if (am_block_parse(in, len, false, false, true, &view, &err) == AM_OK &&
			am_presence_decode(view.presence, count, present, &nulls, &err) == AM_OK)
		{
			size_t		check = 0;

			for (size_t i = 0; i < count; i++)
			{
				if (present[i] > 1)
					abort();
				check += present[i] == 0;
			}
			if (check != nulls)
				abort();
			decode_values(view.values.data, view.values.len, type, count,
						  nulls ? present : NULL);
		}
		free(present);
	}
	else
		decode_values(in, len, type, count, NULL);
	free(in);
	return 0;
}
