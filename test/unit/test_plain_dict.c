/*-------------------------------------------------------------------------
 *
 * test_plain_dict.c
 *	  Unit tests of plain.c and dict.c: exact bytes of PLAIN values, boolean
 *	  bit order, byte-array framing, gathers and max on every ISA against
 *	  scalar loops, out-of-range indexes and truncated inputs.
 *
 * IDENTIFICATION
 *	  test/unit/test_plain_dict.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "codec_test_util.h"

#include "codec/codec.h"

static void
test_plain_fixed(void)
{
	/* INT32 1, -2 and an INT96 as stored little-endian. */
	static const uint8_t in[] = {0x01, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 9, 9, 9, 9};
	int32_t		out32[2 + CDC_OUTPUT_SLACK];
	uint8_t		out96[12];
	size_t		consumed = 0;

	UNIT_CHECK(cdc_plain_fixed_decode(in, 8, 4, out32, 2, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == 8 && out32[0] == 1 && out32[1] == -2);
	UNIT_CHECK(cdc_plain_fixed_decode(in, 12, 12, out96, 1, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == 12 && memcmp(out96, in, 12) == 0);
	UNIT_CHECK(cdc_plain_fixed_decode(in, 11, 4, out32, 3, &consumed) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_plain_fixed_decode(in, 12, 0, out32, 3, &consumed) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_plain_fixed_decode(in, 12, 8, out32, SIZE_MAX / 4, &consumed) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_plain_fixed_decode(in, 0, 4, out32, 0, &consumed) == CDC_OK && consumed == 0);
}

static void
test_plain_bool(void)
{
	/* true, false, true, true, false, false, false, false, true = 0x0D 0x01 */
	static const uint8_t vals[9] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
	uint8_t		enc[2 + CDC_INPUT_PADDING] = {0};
	uint8_t		out[1100 + CDC_OUTPUT_SLACK];
	uint8_t		src[1100];
	uint8_t		packed[1100 / 8 + 1 + CDC_INPUT_PADDING];
	size_t		written = 0,
				consumed = 0;
	uint64_t	seed = 5;
	unsigned long bad = 0;

	UNIT_CHECK(cdc_plain_bool_encode(vals, 9, enc, 2, &written) == CDC_OK);
	UNIT_CHECK(written == 2 && enc[0] == 0x0D && enc[1] == 0x01);
	UNIT_CHECK(cdc_plain_bool_decode(enc, 2, out, 9, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == 2 && memcmp(out, vals, 9) == 0);
	UNIT_CHECK(cdc_plain_bool_decode(enc, 1, out, 9, &consumed) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_plain_bool_encode(vals, 9, enc, 1, &written) == CDC_ERR_OUTPUT_FULL);

	/* Random lengths against the reference bit reader; exact tail writes. */
	for (size_t n = 0; n < 1100; n += 1 + n / 50)
	{
		for (size_t i = 0; i < n; i++)
			src[i] = unit_rand(&seed) & 1;
		for (size_t i = 0; i < sizeof(packed); i++)
			packed[i] = (uint8_t) unit_rand(&seed);
		/* decode random bytes: reference is bit i */
		memset(out, 0xEE, sizeof(out));
		if (cdc_plain_bool_decode(packed, n / 8 + (n % 8 != 0), out, n, &consumed) != CDC_OK ||
			out[n] != 0xEE)
			bad++;
		for (size_t i = 0; i < n; i++)
			if (out[i] != ref_bit_lsb(packed, i))
			{
				bad++;
				break;
			}
		if (cdc_plain_bool_encode(src, n, packed, sizeof(packed), &written) != CDC_OK ||
			cdc_plain_bool_decode(packed, written, out, n, &consumed) != CDC_OK ||
			consumed != written || memcmp(out, src, n) != 0)
			bad++;
	}
	UNIT_CHECKF(bad == 0, "%lu boolean cases failed", bad);
}

static void
test_plain_byte_array(void)
{
	/* "ab", "", "xyz" */
	static const uint8_t in[] = {2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0, 3, 0, 0, 0, 'x', 'y', 'z'};
	CdcByteView v[3 + CDC_OUTPUT_SLACK];
	uint8_t		enc[64];
	size_t		consumed = 0,
				written = 0;

	UNIT_CHECK(cdc_plain_byte_array_decode(in, sizeof(in), v, 3, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == sizeof(in));
	UNIT_CHECK(v[0].ptr == in + 4 && v[0].len == 2);
	UNIT_CHECK(v[1].ptr == in + 10 && v[1].len == 0);
	UNIT_CHECK(v[2].ptr == in + 14 && v[2].len == 3);
	UNIT_CHECK(cdc_plain_byte_array_encode(v, 3, enc, sizeof(enc), &written) == CDC_OK);
	UNIT_CHECK(written == sizeof(in) && memcmp(enc, in, sizeof(in)) == 0);
	UNIT_CHECK(cdc_plain_byte_array_encode(v, 3, enc, sizeof(in) - 1, &written) == CDC_ERR_OUTPUT_FULL);
	/* Cut in the last value, in a length, and a huge length. */
	UNIT_CHECK(cdc_plain_byte_array_decode(in, sizeof(in) - 1, v, 3, &consumed) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_plain_byte_array_decode(in, 12, v, 3, &consumed) == CDC_ERR_TRUNCATED);
	{
		static const uint8_t huge[] = {0xFF, 0xFF, 0xFF, 0xFF, 'a'};

		UNIT_CHECK(cdc_plain_byte_array_decode(huge, sizeof(huge), v, 1, &consumed) == CDC_ERR_TRUNCATED);
	}
	UNIT_CHECK(cdc_plain_byte_array_decode(in, sizeof(in), v, 2, &consumed) == CDC_OK && consumed == 10);
}

#define NIDX 2000

static void
test_dict_isa(CdcIsa isa)
{
	static uint32_t dict32[1000];
	static uint64_t dict64[1000];
	static uint8_t dict12[1000 * 12];
	static CdcByteView dictv[1000];
	static uint32_t idx[NIDX];
	static uint32_t out32[NIDX + CDC_OUTPUT_SLACK];
	static uint64_t out64[NIDX + CDC_OUTPUT_SLACK];
	static uint8_t out12[NIDX * 12];
	static CdcByteView outv[NIDX + CDC_OUTPUT_SLACK];
	uint64_t	seed = 31 + isa;
	unsigned long bad = 0;

	UNIT_CHECK(cdc_set_isa(isa) == CDC_OK);
	for (int i = 0; i < 1000; i++)
	{
		dict32[i] = (uint32_t) unit_rand(&seed);
		dict64[i] = unit_rand(&seed);
		for (int b = 0; b < 12; b++)
			dict12[i * 12 + b] = (uint8_t) unit_rand(&seed);
		dictv[i].ptr = dict12 + i;
		dictv[i].len = (uint32_t) i;
	}
	for (size_t n = 0; n < NIDX; n += 1 + n / 20)
	{
		uint32_t	dict_len = 1 + (uint32_t) (unit_rand(&seed) % 1000);
		uint32_t	maxv = 0;

		for (size_t i = 0; i < n; i++)
		{
			idx[i] = (uint32_t) (unit_rand(&seed) % dict_len);
			if (i == n / 2 && n % 3 == 0)
				idx[i] = dict_len - 1;
			maxv = idx[i] > maxv ? idx[i] : maxv;
		}
		if (cdc_max_u32(idx, n) != maxv)
			bad++;
		if (cdc_dict_gather32(dict32, dict_len, idx, out32, n) != CDC_OK ||
			cdc_dict_gather64(dict64, dict_len, idx, out64, n) != CDC_OK ||
			cdc_dict_gather_fixed(dict12, 12, dict_len, idx, out12, n) != CDC_OK ||
			cdc_dict_gather_views(dictv, dict_len, idx, outv, n) != CDC_OK)
		{
			bad++;
			continue;
		}
		for (size_t i = 0; i < n; i++)
			if (out32[i] != dict32[idx[i]] || out64[i] != dict64[idx[i]] ||
				memcmp(out12 + i * 12, dict12 + idx[i] * 12, 12) != 0 ||
				outv[i].ptr != dictv[idx[i]].ptr || outv[i].len != dictv[idx[i]].len)
			{
				bad++;
				break;
			}
		/* One index equal to dict_len anywhere: rejected. */
		if (n > 0)
		{
			size_t		at = unit_rand(&seed) % n;
			uint32_t	saved = idx[at];

			idx[at] = dict_len;
			if (cdc_dict_gather32(dict32, dict_len, idx, out32, n) != CDC_ERR_CORRUPT ||
				cdc_dict_gather64(dict64, dict_len, idx, out64, n) != CDC_ERR_CORRUPT ||
				cdc_dict_gather_fixed(dict12, 12, dict_len, idx, out12, n) != CDC_ERR_CORRUPT ||
				cdc_dict_gather_views(dictv, dict_len, idx, outv, n) != CDC_ERR_CORRUPT)
				bad++;
			idx[at] = UINT32_MAX;
			if (cdc_max_u32(idx, n) != UINT32_MAX ||
				cdc_dict_gather32(dict32, dict_len, idx, out32, n) != CDC_ERR_CORRUPT)
				bad++;
			idx[at] = saved;
		}
	}
	/* Other widths of the fixed gather. */
	for (size_t width = 1; width <= 17; width++)
	{
		uint32_t	dict_len = (uint32_t) (sizeof(dict12) / width);

		for (size_t i = 0; i < 100; i++)
			idx[i] = (uint32_t) (unit_rand(&seed) % dict_len);
		if (cdc_dict_gather_fixed(dict12, width, dict_len, idx, out12, 100) != CDC_OK)
			bad++;
		for (size_t i = 0; i < 100; i++)
			if (memcmp(out12 + i * width, dict12 + idx[i] * width, width) != 0)
			{
				bad++;
				break;
			}
	}
	UNIT_CHECKF(bad == 0, "isa %s: %lu dictionary cases failed", cdc_isa_name(isa), bad);

	/* Empty dictionary; empty batch; width 0. */
	idx[0] = 0;
	UNIT_CHECK(cdc_dict_gather32(dict32, 0, idx, out32, 1) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_dict_gather32(dict32, 0, idx, out32, 0) == CDC_OK);
	UNIT_CHECK(cdc_dict_gather_fixed(dict12, 0, 5, idx, out12, 1) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_max_u32(idx, 0) == 0);
}


/*
 * Every strategy of the vector gathers (register permutes for small
 * dictionaries, masked gathers for large ones) against dict[idx[i]]: every
 * dictionary size 1..70 and a few large ones, every tail 0..1023 (stepped
 * for the big sizes), misaligned index and output arrays, extreme values,
 * an out-of-range index at the last position, and no write past count.
 */
static void
test_dict_small_isa(CdcIsa isa)
{
	static uint32_t dict32[4096];
	static uint64_t dict64[4096];
	static uint32_t idx_buf[1024 + 3];
	static uint32_t out32_buf[1024 + 3 + CDC_OUTPUT_SLACK];
	static uint64_t out64_buf[1024 + 3 + CDC_OUTPUT_SLACK];
	static const uint32_t sizes[] = {71, 72, 100, 128, 1000, 4096};
	uint64_t	seed = 77 + isa;
	unsigned long bad = 0;

	UNIT_CHECK(cdc_set_isa(isa) == CDC_OK);
	for (int i = 0; i < 4096; i++)
	{
		dict32[i] = (i % 5 == 0) ? UINT32_MAX - i : (uint32_t) unit_rand(&seed);
		dict64[i] = (i % 7 == 0) ? UINT64_MAX - i : unit_rand(&seed);
	}
	for (uint32_t s = 0; s < 70 + sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		uint32_t	dict_len = s < 70 ? s + 1 : sizes[s - 70];

		for (size_t n = 0; n <= 1024 - 3; n += (dict_len <= 70 ? 1 : 1 + n / 8))
		{
			size_t		mis = n % 4;	/* element offset of idx and out */
			uint32_t   *idx = idx_buf + mis;
			uint32_t   *out32 = out32_buf + (3 - mis);
			uint64_t   *out64 = out64_buf + (3 - mis);

			for (size_t i = 0; i < n; i++)
				idx[i] = (i % 11 == 3) ? dict_len - 1 : (uint32_t) (unit_rand(&seed) % dict_len);
			out32[n] = 0xA5A5A5A5u;
			out64[n] = 0xA5A5A5A5A5A5A5A5u;
			if (cdc_dict_gather32(dict32, dict_len, idx, out32, n) != CDC_OK ||
				cdc_dict_gather64(dict64, dict_len, idx, out64, n) != CDC_OK)
			{
				bad++;
				continue;
			}
			for (size_t i = 0; i < n; i++)
				if (out32[i] != dict32[idx[i]] || out64[i] != dict64[idx[i]])
				{
					bad++;
					break;
				}
			if (out32[n] != 0xA5A5A5A5u || out64[n] != 0xA5A5A5A5A5A5A5A5u)
				bad++;
			/* An out-of-range last index (the tail lanes) is caught. */
			if (n > 0)
			{
				uint32_t	saved = idx[n - 1];

				idx[n - 1] = (n % 2) ? dict_len : UINT32_MAX - (uint32_t) n;
				if (cdc_dict_gather32(dict32, dict_len, idx, out32, n) != CDC_ERR_CORRUPT ||
					cdc_dict_gather64(dict64, dict_len, idx, out64, n) != CDC_ERR_CORRUPT)
					bad++;
				idx[n - 1] = saved;
			}
		}
	}
	UNIT_CHECKF(bad == 0, "isa %s: %lu small-dictionary cases failed",
				cdc_isa_name(isa), bad);
}

int
main(void)
{
	test_plain_fixed();
	test_plain_bool();
	test_plain_byte_array();
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (!cdc_isa_supported((CdcIsa) isa))
		{
			printf("test_plain_dict: %s not supported by this CPU, skipped\n",
				   cdc_isa_name((CdcIsa) isa));
			continue;
		}
		test_dict_isa((CdcIsa) isa);
		test_dict_small_isa((CdcIsa) isa);
	}
	UNIT_MAIN_END("test_plain_dict");
}
