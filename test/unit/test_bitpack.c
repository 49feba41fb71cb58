/*-------------------------------------------------------------------------
 *
 * test_bitpack.c
 *	  Unit tests of bitpack.c: spec examples, every width and tail length on
 *	  every ISA this CPU has against a bit-at-a-time reference, misaligned
 *	  and guard-page-bounded inputs, packers, error statuses.
 *
 * IDENTIFICATION
 *	  test/unit/test_bitpack.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "codec_test_util.h"

#include "codec/codec.h"

#define MAXN		1024
#define CANARY32	0xDEADBEEFu

static void
test_spec_examples(void)
{
	/* Encodings.md, RLE section, item 1: 0..7 at width 3, LSB first. */
	static const uint8_t lsb[] = {0x88, 0xC6, 0xFA};
	/* Encodings.md, BIT_PACKED section: same values MSB first. */
	static const uint8_t msb[] = {0x05, 0x39, 0x77};
	uint32_t	vals[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	uint8_t		buf[3 + CDC_INPUT_PADDING];
	uint32_t	out[8 + CDC_OUTPUT_SLACK];
	size_t		written = 0;

	UNIT_CHECK(cdc_pack32(vals, 8, 3, buf, sizeof(buf), &written) == CDC_OK);
	UNIT_CHECK(written == 3);
	UNIT_CHECK_MEM(buf, lsb, 3);
	UNIT_CHECK(cdc_pack32_msb(vals, 8, 3, buf, sizeof(buf), &written) == CDC_OK);
	UNIT_CHECK(written == 3);
	UNIT_CHECK_MEM(buf, msb, 3);

	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		memset(buf, 0, sizeof(buf));
		memcpy(buf, lsb, 3);
		memset(out, 0xFF, sizeof(out));
		UNIT_CHECK(cdc_unpack32(buf, 3, 3, out, 8) == CDC_OK);
		UNIT_CHECK_MEM(out, vals, sizeof(vals));
	}
	cdc_set_isa(cdc_isa_best());
	memcpy(buf, msb, 3);
	UNIT_CHECK(cdc_unpack32_msb(buf, 3, 3, out, 8) == CDC_OK);
	UNIT_CHECK_MEM(out, vals, sizeof(vals));

	/* BIT_PACKED example in words: 30 values of 2 bits take 8 bytes. */
	UNIT_CHECK(cdc_packed_size(30, 2) == 8);
	UNIT_CHECK(cdc_packed_size(0, 17) == 0);
	UNIT_CHECK(cdc_packed_size(1, 1) == 1);
	UNIT_CHECK(cdc_packed_size(9, 64) == 72);
	UNIT_CHECK(cdc_packed_size(SIZE_MAX, 1) == SIZE_MAX / 8 + 1);
}

/* Random stream bytes of the given length, plus padding of junk. */
static void
fill_random(uint8_t *buf, size_t len, uint64_t *seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t) unit_rand(seed);
}

/*
 * unpack32 on one ISA against the reference for all widths, all lengths
 * 0..MAXN-1, misaligned (offset n % 8) and at a guard page; the slack
 * beyond count + 15 must stay untouched.
 */
static void
test_unpack32_isa(CdcIsa isa, GuardBuf *guard)
{
	static uint8_t raw[MAXN * 4 + 8 + CDC_INPUT_PADDING];
	static uint32_t out[MAXN + CDC_OUTPUT_SLACK];
	uint64_t	seed = 0x1234567 + isa;
	unsigned long bad = 0;

	UNIT_CHECK(cdc_set_isa(isa) == CDC_OK);
	UNIT_CHECK(cdc_isa_current() == isa);
	for (unsigned w = 0; w <= 32; w++)
	{
		for (size_t n = 0; n < MAXN; n++)
		{
			size_t		len = cdc_packed_size(n, w);
			size_t		off = n % 8;
			const uint8_t *in;
			int			pass;

			fill_random(raw, sizeof(raw), &seed);
			if (n % 97 == 0)
				memset(raw, 0xFF, sizeof(raw));		/* extreme values */
			for (pass = 0; pass < 2; pass++)
			{
				in = pass == 0 ? raw + off : guarded_input(guard, raw + off, len);
				for (size_t i = 0; i < MAXN + CDC_OUTPUT_SLACK; i++)
					out[i] = CANARY32;
				if (cdc_unpack32(in, len, w, out, n) != CDC_OK)
				{
					bad++;
					continue;
				}
				for (size_t i = 0; i < n; i++)
					if (out[i] != (uint32_t) ref_get_lsb(in, i, w))
					{
						if (bad++ < 5)
							fprintf(stderr, "isa %s w %u n %zu: value %zu is %u, want %u\n",
									cdc_isa_name(isa), w, n, i, out[i],
									(uint32_t) ref_get_lsb(in, i, w));
						break;
					}
				for (size_t i = n + 15; i < MAXN + CDC_OUTPUT_SLACK; i++)
					if (out[i] != CANARY32)
					{
						bad++;
						break;
					}
			}
		}
	}
	UNIT_CHECKF(bad == 0, "isa %s: %lu mismatches", cdc_isa_name(isa), bad);
}

static void
test_unpack64_and_msb(GuardBuf *guard)
{
	static uint8_t raw[MAXN * 8 + 8 + CDC_INPUT_PADDING];
	static uint64_t out64[MAXN + CDC_OUTPUT_SLACK];
	static uint32_t out32[MAXN + CDC_OUTPUT_SLACK];
	uint64_t	seed = 99;
	unsigned long bad64 = 0,
				badmsb = 0;

	for (unsigned w = 0; w <= 64; w++)
	{
		for (size_t n = 0; n < MAXN; n += (n < 80 ? 1 : 37))
		{
			size_t		len = cdc_packed_size(n, w);
			const uint8_t *in;

			fill_random(raw, sizeof(raw), &seed);
			if (n % 7 == 3)
				memset(raw, 0xFF, sizeof(raw));
			in = (n & 1) ? guarded_input(guard, raw, len) : raw + 1 + n % 7;
			if (cdc_unpack64(in, len, w, out64, n) != CDC_OK)
				bad64++;
			else
				for (size_t i = 0; i < n; i++)
					if (out64[i] != ref_get_lsb(in, i, w))
					{
						bad64++;
						break;
					}
			if (w > 32)
				continue;
			if (cdc_unpack32_msb(in, len, w, out32, n) != CDC_OK)
				badmsb++;
			else
				for (size_t i = 0; i < n; i++)
					if (out32[i] != (uint32_t) ref_get_msb(in, i, w))
					{
						badmsb++;
						break;
					}
		}
	}
	UNIT_CHECKF(bad64 == 0, "unpack64: %lu mismatches", bad64);
	UNIT_CHECKF(badmsb == 0, "unpack32_msb: %lu mismatches", badmsb);
}

/* Packers against the reference packers, and round trips. */
static void
test_pack(void)
{
	static uint64_t vals[MAXN];
	static uint32_t vals32[MAXN];
	static uint8_t got[MAXN * 8 + CDC_INPUT_PADDING];
	static uint8_t want[MAXN * 8];
	static uint64_t back64[MAXN + CDC_OUTPUT_SLACK];
	static uint32_t back32[MAXN + CDC_OUTPUT_SLACK];
	uint64_t	seed = 4242;
	unsigned long bad = 0;

	for (unsigned w = 0; w <= 64; w++)
	{
		uint64_t	mask = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;

		for (size_t n = 0; n < 300; n += 1 + n / 16)
		{
			size_t		written = 0;
			size_t		len = cdc_packed_size(n, w);

			for (size_t i = 0; i < n; i++)
			{
				vals[i] = (i % 5 == 4) ? mask : unit_rand(&seed) & mask;
				vals32[i] = (uint32_t) vals[i];
			}
			ref_pack_lsb(vals, n, w, want);
			memset(got, 0xCC, sizeof(got));
			if (cdc_pack64(vals, n, w, got, len, &written) != CDC_OK ||
				written != len || memcmp(got, want, len) != 0 ||
				got[len] != 0xCC)
				bad++;
			if (cdc_unpack64(got, len, w, back64, n) != CDC_OK ||
				memcmp(back64, vals, n * 8) != 0)
				bad++;
			if (w > 32)
				continue;
			memset(got, 0xCC, sizeof(got));
			if (cdc_pack32(vals32, n, w, got, len, &written) != CDC_OK ||
				written != len || memcmp(got, want, len) != 0 ||
				got[len] != 0xCC)
				bad++;
			if (cdc_unpack32(got, len, w, back32, n) != CDC_OK ||
				memcmp(back32, vals32, n * 4) != 0)
				bad++;
			ref_pack_msb(vals, n, w, want);
			memset(got, 0xCC, sizeof(got));
			if (cdc_pack32_msb(vals32, n, w, got, len, &written) != CDC_OK ||
				written != len || memcmp(got, want, len) != 0 ||
				got[len] != 0xCC)
				bad++;
			if (cdc_unpack32_msb(got, len, w, back32, n) != CDC_OK ||
				memcmp(back32, vals32, n * 4) != 0)
				bad++;
		}
	}
	UNIT_CHECKF(bad == 0, "pack: %lu mismatches", bad);
}

static void
test_errors(void)
{
	uint8_t		in[16 + CDC_INPUT_PADDING] = {0};
	uint32_t	out32[16 + CDC_OUTPUT_SLACK];
	uint64_t	out64[16 + CDC_OUTPUT_SLACK];
	uint32_t	v32[2] = {7, 8};
	uint64_t	v64[2] = {7, 8};
	size_t		written = 12345;

	UNIT_CHECK(cdc_unpack32(in, 16, 33, out32, 1) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_unpack32_msb(in, 16, 33, out32, 1) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_unpack64(in, 16, 65, out64, 1) == CDC_ERR_INVALID_ARGUMENT);
	/* 9 values of 7 bits need 8 bytes. */
	UNIT_CHECK(cdc_unpack32(in, 7, 7, out32, 9) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_unpack32(in, 8, 7, out32, 9) == CDC_OK);
	UNIT_CHECK(cdc_unpack32_msb(in, 7, 7, out32, 9) == CDC_ERR_TRUNCATED);
	/* 3 values of 40 bits need 15 bytes. */
	UNIT_CHECK(cdc_unpack64(in, 14, 40, out64, 3) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_unpack64(in, 15, 40, out64, 3) == CDC_OK);
	UNIT_CHECK(cdc_unpack32(NULL, 0, 5, NULL, 0) == CDC_OK);

	/* 8 needs 4 bits; 7 fits 3. */
	UNIT_CHECK(cdc_pack32(v32, 2, 3, in, 16, &written) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_pack32_msb(v32, 2, 3, in, 16, &written) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_pack64(v64, 2, 3, in, 16, &written) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_pack32(v32, 2, 4, in, 0, &written) == CDC_ERR_OUTPUT_FULL);
	UNIT_CHECK(written == 12345);
	UNIT_CHECK(cdc_pack32(v32, 2, 33, in, 16, &written) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_pack64(v64, 2, 65, in, 16, &written) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_pack32(v32, 2, 4, in, 1, &written) == CDC_OK && written == 1 && in[0] == 0x87);
}

int
main(void)
{
	GuardBuf	guard = guard_alloc(MAXN * 8 + 4096);

	test_spec_examples();
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (!cdc_isa_supported((CdcIsa) isa))
		{
			printf("test_bitpack: %s not supported by this CPU, skipped\n",
				   cdc_isa_name((CdcIsa) isa));
			UNIT_CHECK(cdc_set_isa((CdcIsa) isa) == CDC_ERR_UNSUPPORTED);
			continue;
		}
		test_unpack32_isa((CdcIsa) isa, &guard);
	}
	cdc_set_isa(cdc_isa_best());
	test_unpack64_and_msb(&guard);
	test_pack();
	test_errors();
	UNIT_MAIN_END("test_bitpack");
}
