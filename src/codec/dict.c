/*-------------------------------------------------------------------------
 *
 * dict.c
 *	  Dictionary gathers: out[i] = dict[idx[i]] for the decoded indexes of
 *	  RLE_DICTIONARY / PLAIN_DICTIONARY pages.
 *
 * Design notes: indexes come from the file, so they are untrusted.  Rather
 * than a compare per value, each call computes the largest index once
 * (a vectorized max in dict_avx2.c) and rejects the batch with
 * CDC_ERR_CORRUPT if it is out of range; the gather loops then run without
 * checks.  32- and 64-bit gathers use AVX2 vpgatherdd / vpgatherdq when
 * available; with AVX-512 the check is fused into the gather instead, and
 * dictionaries of up to 64 (32-bit) / 16 (64-bit) entries are looked up
 * with register permutes (dict_avx512.c), so on CDC_ERR_CORRUPT the
 * output's contents are unspecified; fixed-size values (INT96, FIXED_LEN_BYTE_ARRAY) use a memcpy
 * whose size is a constant for the common widths.
 *
 * IDENTIFICATION
 *	  src/codec/dict.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <string.h>

/* Largest index in idx[0..count), 0 for count == 0. */
uint32_t
cdc_max_u32(const uint32_t *idx, size_t count)
{
	uint32_t	m = 0;

	CdcIsa		isa = cdc_isa_current();

	if (isa >= CDC_ISA_AVX512)
		return cdc_max_u32_avx512(idx, count);
	if (isa >= CDC_ISA_AVX2)
		return cdc_max_u32_avx2(idx, count);
	for (size_t i = 0; i < count; i++)
		m = idx[i] > m ? idx[i] : m;
	return m;
}

/* Shared validation: every index must be below dict_len. */
static inline CdcStatus
check_indexes(uint32_t dict_len, const uint32_t *idx, size_t count)
{
	if (count == 0)
		return CDC_OK;
	if (dict_len == 0 || cdc_max_u32(idx, count) >= dict_len)
		return CDC_ERR_CORRUPT;
	return CDC_OK;
}

CdcStatus
cdc_dict_gather32(const uint32_t *dict, uint32_t dict_len,
				  const uint32_t *idx, uint32_t *out, size_t count)
{
	CdcIsa		isa = cdc_isa_current();
	CdcStatus	st;

	/* AVX-512 checks the indexes as it gathers (dict_avx512.c). */
	if (isa >= CDC_ISA_AVX512 && dict_len > 0 && dict_len <= INT32_MAX)
		return cdc_gather32_avx512(dict, dict_len, idx, out, count) ? CDC_OK : CDC_ERR_CORRUPT;
	st = check_indexes(dict_len, idx, count);
	if (st != CDC_OK)
		return st;
	/* vpgatherdd takes signed indexes: only below 2^31. */
	if (isa >= CDC_ISA_AVX2 && dict_len <= INT32_MAX)
		cdc_gather32_avx2(dict, idx, out, count);
	else
		for (size_t i = 0; i < count; i++)
			out[i] = dict[idx[i]];
	return CDC_OK;
}

CdcStatus
cdc_dict_gather64(const uint64_t *dict, uint32_t dict_len,
				  const uint32_t *idx, uint64_t *out, size_t count)
{
	CdcIsa		isa = cdc_isa_current();
	CdcStatus	st;

	/* Beyond 16 entries masked vpgatherdq measured 5-12% slower than the
	 * AVX2 gather plus a max pass (bench/RESULTS.md), so only permutes. */
	if (isa >= CDC_ISA_AVX512 && dict_len > 0 && dict_len <= 16)
		return cdc_gather64_avx512(dict, dict_len, idx, out, count) ? CDC_OK : CDC_ERR_CORRUPT;
	st = check_indexes(dict_len, idx, count);
	if (st != CDC_OK)
		return st;
	if (isa >= CDC_ISA_AVX2 && dict_len <= INT32_MAX)
		cdc_gather64_avx2(dict, idx, out, count);
	else
		for (size_t i = 0; i < count; i++)
			out[i] = dict[idx[i]];
	return CDC_OK;
}

/* Gather values of a constant width, so the memcpy becomes moves. */
static inline __attribute__((always_inline)) void
gather_width(const uint8_t *dict, const size_t width, const uint32_t *idx,
			 uint8_t *out, size_t count)
{
	for (size_t i = 0; i < count; i++)
		memcpy(out + i * width, dict + (size_t) idx[i] * width, width);
}

/*
 * Gather fixed-size values of `width` bytes (INT96 = 12, FLBA n); out
 * holds count * width bytes.  Width 0 is CDC_ERR_INVALID_ARGUMENT.
 */
CdcStatus
cdc_dict_gather_fixed(const uint8_t *dict, size_t width, uint32_t dict_len,
					  const uint32_t *idx, uint8_t *out, size_t count)
{
	CdcStatus	st;

	if (width == 0)
		return CDC_ERR_INVALID_ARGUMENT;
	st = check_indexes(dict_len, idx, count);
	if (st != CDC_OK)
		return st;
	switch (width)
	{
		case 2:
			gather_width(dict, 2, idx, out, count);
			break;
		case 4:
			gather_width(dict, 4, idx, out, count);
			break;
		case 8:
			gather_width(dict, 8, idx, out, count);
			break;
		case 12:
			gather_width(dict, 12, idx, out, count);
			break;
		case 16:
			gather_width(dict, 16, idx, out, count);
			break;
		default:
			gather_width(dict, width, idx, out, count);
			break;
	}
	return CDC_OK;
}

/* Gather byte-array views (the views keep pointing into the dictionary). */
CdcStatus
cdc_dict_gather_views(const CdcByteView *dict, uint32_t dict_len,
					  const uint32_t *idx, CdcByteView *out, size_t count)
{
	CdcStatus	st = check_indexes(dict_len, idx, count);

	if (st != CDC_OK)
		return st;
	for (size_t i = 0; i < count; i++)
		out[i] = dict[idx[i]];
	return CDC_OK;
}
