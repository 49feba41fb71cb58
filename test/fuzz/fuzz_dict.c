/*-------------------------------------------------------------------------
 *
 * fuzz_dict.c
 *	  libFuzzer target: dictionary gathers with arbitrary indexes.
 *
 * Input layout: bytes 0..1 = dictionary length (0..65535), byte 2 = fixed
 * width (0..31); the rest is read as little-endian 32-bit indexes (the last
 * partial index dropped), the top bits often cleared so that in-range
 * batches occur.  The dictionaries are heap buffers of exactly dict_len
 * entries; outputs exactly count (+ slack).
 *
 * Oracles: CDC_ERR_CORRUPT exactly when some index >= dict_len (or the
 * batch is non-empty and the dictionary empty); on success every ISA
 * matches a scalar loop; cdc_max_u32 matches a scalar max.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_dict.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t	dict_len;
	size_t		width;
	size_t		count;
	uint32_t   *idx;
	uint32_t   *d32;
	uint64_t   *d64;
	uint8_t    *dfix;
	CdcByteView *dv;
	uint32_t   *o32;
	uint64_t   *o64;
	uint8_t    *ofix;
	CdcByteView *ov;
	uint32_t	maxv = 0;
	int			in_range;
	CdcIsa		saved = cdc_isa_current();

	if (size < 3)
		return 0;
	dict_len = data[0] | (uint32_t) data[1] << 8;
	width = data[2] % 32;
	count = (size - 3) / 4;
	idx = malloc(count * 4 + 1);
	for (size_t i = 0; i < count; i++)
	{
		memcpy(&idx[i], data + 3 + 4 * i, 4);
		if (data[2] & 0x80)
			idx[i] &= 0xFFFF;
		maxv = idx[i] > maxv ? idx[i] : maxv;
	}
	in_range = count == 0 || (dict_len > 0 && maxv < dict_len);

	d32 = malloc(dict_len * 4 + 1);
	d64 = malloc(dict_len * 8 + 1);
	dfix = malloc(dict_len * width + 1);
	dv = malloc(dict_len * sizeof(CdcByteView) + 1);
	for (uint32_t i = 0; i < dict_len; i++)
	{
		d32[i] = i * 2654435761u;
		d64[i] = (uint64_t) i * 0x9E3779B97F4A7C15u;
		dv[i].ptr = dfix;
		dv[i].len = i;
	}
	for (size_t i = 0; i < dict_len * width; i++)
		dfix[i] = (uint8_t) (i * 7);
	o32 = malloc((count + CDC_OUTPUT_SLACK) * 4);
	o64 = malloc((count + CDC_OUTPUT_SLACK) * 8);
	ofix = malloc(count * width + 1);
	ov = malloc((count + CDC_OUTPUT_SLACK) * sizeof(CdcByteView));

	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		CdcStatus	want = in_range ? CDC_OK : CDC_ERR_CORRUPT;

		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		if (cdc_max_u32(idx, count) != maxv)
			abort();
		if (cdc_dict_gather32(d32, dict_len, idx, o32, count) != want ||
			cdc_dict_gather64(d64, dict_len, idx, o64, count) != want ||
			cdc_dict_gather_views(dv, dict_len, idx, ov, count) != want)
			abort();
		if (cdc_dict_gather_fixed(dfix, width, dict_len, idx, ofix, count) !=
			(width == 0 ? CDC_ERR_INVALID_ARGUMENT : want))
			abort();
		if (!in_range)
			continue;
		for (size_t i = 0; i < count; i++)
			if (o32[i] != d32[idx[i]] || o64[i] != d64[idx[i]] ||
				ov[i].len != dv[idx[i]].len ||
				(width && memcmp(ofix + i * width, dfix + (size_t) idx[i] * width, width) != 0))
				abort();
	}
	cdc_set_isa(saved);
	free(ov);
	free(ofix);
	free(o64);
	free(o32);
	free(dv);
	free(dfix);
	free(d64);
	free(d32);
	free(idx);
	return 0;
}
