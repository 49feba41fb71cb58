/*-------------------------------------------------------------------------
 *
 * test_group_varint.c
 *	  Unit tests of group_varint.c: groups built by hand (the leading byte
 *	  0b00101101 example, a 64-bit group), padding of incomplete groups,
 *	  round trips of values of every byte length, every truncation in a
 *	  guard-page buffer, output capacities; all of it on every ISA.
 *
 * IDENTIFICATION
 *	  test/unit/test_group_varint.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "codec_test_util.h"

#include "codec/codec.h"

#define MAXN	3000

static uint32_t v32[MAXN];
static uint64_t v64[MAXN];
static uint32_t got32[MAXN + CDC_OUTPUT_SLACK];
static uint64_t got64[MAXN + CDC_OUTPUT_SLACK];
static uint8_t enc[MAXN * 9 + 64];

static void
test_by_hand(void)
{
	/*
	 * Leading byte 0b00101101: 2-bit fields from the lowest bits are 01,
	 * 11, 10, 00, so the values are 2, 4, 3 and 1 bytes long:
	 * 1000 = E8 03, 0x12345678 = 78 56 34 12, 70000 = 0x011170 = 70 11 01,
	 * 5 = 05.
	 */
	static const uint8_t g1[] = {0x2D, 0xE8, 0x03, 0x78, 0x56, 0x34, 0x12, 0x70, 0x11, 0x01, 0x05};
	static const uint32_t e1[] = {1000, 0x12345678, 70000, 5};

	/*
	 * Two values only: the group is padded with two zeros of one byte.
	 * 0xFFFFFFFF (4 bytes, code 3) and 0 (1 byte, code 0): key = 3 = 0x03.
	 */
	static const uint8_t g2[] = {0x03, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00};
	static const uint32_t e2[] = {0xFFFFFFFFu, 0};

	/*
	 * 64 bits, five values 1, 0x100, 2^63, 0x123456789A, 0 with lengths
	 * 1, 2, 8, 5, 1: 3-bit codes 0, 1, 7, 4, 0 give
	 * 0 | 1 << 3 | 7 << 6 | 4 << 9 | 0 << 12 = 0x9C8: bytes C8 09.
	 */
	static const uint8_t g3[] = {0xC8, 0x09, 0x01, 0x00, 0x01,
		0, 0, 0, 0, 0, 0, 0, 0x80, 0x9A, 0x78, 0x56, 0x34, 0x12, 0x00};
	static const uint64_t e3[] = {1, 0x100, UINT64_C(1) << 63, UINT64_C(0x123456789A), 0};
	uint8_t		in[64 + CDC_INPUT_PADDING];
	size_t		written = 0,
				consumed = 0;

	UNIT_CHECK(cdc_group_varint_encode32(e1, 4, enc, sizeof(enc), &written) == CDC_OK);
	UNIT_CHECK(written == sizeof(g1) && memcmp(enc, g1, sizeof(g1)) == 0);
	memset(in, 0xA5, sizeof(in));
	memcpy(in, g1, sizeof(g1));
	UNIT_CHECK(cdc_group_varint_decode32(in, sizeof(g1), got32, 4, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == sizeof(g1) && memcmp(got32, e1, sizeof(e1)) == 0);

	UNIT_CHECK(cdc_group_varint_encode32(e2, 2, enc, sizeof(enc), &written) == CDC_OK);
	UNIT_CHECK(written == sizeof(g2) && memcmp(enc, g2, sizeof(g2)) == 0);
	memset(in, 0xA5, sizeof(in));
	memcpy(in, g2, sizeof(g2));
	UNIT_CHECK(cdc_group_varint_decode32(in, sizeof(g2), got32, 2, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == sizeof(g2) && got32[0] == 0xFFFFFFFFu && got32[1] == 0);

	UNIT_CHECK(cdc_group_varint_encode64(e3, 5, enc, sizeof(enc), &written) == CDC_OK);
	UNIT_CHECK(written == sizeof(g3) && memcmp(enc, g3, sizeof(g3)) == 0);
	memset(in, 0xA5, sizeof(in));
	memcpy(in, g3, sizeof(g3));
	UNIT_CHECK(cdc_group_varint_decode64(in, sizeof(g3), got64, 5, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == sizeof(g3) && memcmp(got64, e3, sizeof(e3)) == 0);
	/* Three of the five: the whole group is still consumed. */
	UNIT_CHECK(cdc_group_varint_decode64(in, sizeof(g3), got64, 3, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == sizeof(g3) && memcmp(got64, e3, 3 * 8) == 0);

	/* Nothing to do. */
	UNIT_CHECK(cdc_group_varint_encode32(e1, 0, enc, 0, &written) == CDC_OK && written == 0);
	UNIT_CHECK(cdc_group_varint_decode32(in, 0, got32, 0, &consumed) == CDC_OK && consumed == 0);
	UNIT_CHECK(cdc_group_varint_decode64(in, 1, got64, 1, &consumed) == CDC_ERR_TRUNCATED);
}

/* Reference size of one encoded value. */
static size_t
ref_len(uint64_t v)
{
	size_t		n = 1;

	while (n < 8 && v >= (UINT64_C(1) << (8 * n)))
		n++;
	return n;
}

static void
test_round_trips(void)
{
	static const size_t counts[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 99, 100, 1001, MAXN};
	uint64_t	seed = 2024;
	GuardBuf	g = guard_alloc(MAXN * 9 + 4096);

	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
	{
		size_t		n = counts[c];
		size_t		expect32 = 0,
					expect64 = 0,
					written = 0,
					consumed = 0;

		/* Every byte length, with the lengths' edges. */
		for (size_t i = 0; i < n; i++)
		{
			unsigned	bytes = 1 + unit_rand(&seed) % 8;
			uint64_t	r = unit_rand(&seed);
			uint64_t	v = bytes == 8 ? r : r & ((UINT64_C(1) << (8 * bytes)) - 1);

			if (i % 11 == 3)
				v = bytes == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * bytes)) - 1;
			if (i % 13 == 5)
				v = 0;
			v64[i] = v;
			v32[i] = (uint32_t) (v >> (unit_rand(&seed) % 2 ? 32 : 0));
		}
		for (size_t i = 0; i < (n + 3) / 4 * 4; i++)
			expect32 += (i % 4 == 0) + (i < n ? ref_len(v32[i]) : 1);
		for (size_t i = 0; i < (n + 4) / 5 * 5; i++)
			expect64 += (i % 5 == 0 ? 2 : 0) + (i < n ? ref_len(v64[i]) : 1);

		UNIT_CHECK(cdc_group_varint_encode32(v32, n, enc, sizeof(enc), &written) == CDC_OK);
		UNIT_CHECKF(written == expect32 && written <= cdc_group_varint_max_size(n, false),
					"n %zu written %zu expect %zu", n, written, expect32);
		{
			const uint8_t *in = guarded_input(&g, enc, written);

			UNIT_CHECK(cdc_group_varint_decode32(in, written, got32, n, &consumed) == CDC_OK);
			UNIT_CHECK(consumed == written && memcmp(got32, v32, n * 4) == 0);
			for (size_t cut = 0; cut < written; cut++)
			{
				in = guarded_input(&g, enc, cut);
				UNIT_CHECKF(cdc_group_varint_decode32(in, cut, got32, n, &consumed) == CDC_ERR_TRUNCATED,
							"n %zu cut %zu", n, cut);
			}
		}
		for (size_t cap = written > 40 ? written - 40 : 0; cap < written; cap++)
			UNIT_CHECK(cdc_group_varint_encode32(v32, n, enc, cap, &consumed) == CDC_ERR_OUTPUT_FULL);

		UNIT_CHECK(cdc_group_varint_encode64(v64, n, enc, sizeof(enc), &written) == CDC_OK);
		UNIT_CHECKF(written == expect64 && written <= cdc_group_varint_max_size(n, true),
					"n %zu written %zu expect %zu", n, written, expect64);
		{
			const uint8_t *in = guarded_input(&g, enc, written);

			UNIT_CHECK(cdc_group_varint_decode64(in, written, got64, n, &consumed) == CDC_OK);
			UNIT_CHECK(consumed == written && memcmp(got64, v64, n * 8) == 0);
			for (size_t cut = 0; cut < written; cut++)
			{
				in = guarded_input(&g, enc, cut);
				UNIT_CHECKF(cdc_group_varint_decode64(in, cut, got64, n, &consumed) == CDC_ERR_TRUNCATED,
							"n %zu cut %zu", n, cut);
			}
		}
		for (size_t cap = written > 40 ? written - 40 : 0; cap < written; cap++)
			UNIT_CHECK(cdc_group_varint_encode64(v64, n, enc, cap, &consumed) == CDC_ERR_OUTPUT_FULL);
	}
}

int
main(void)
{
	/* Every ISA: INT32 decoding has an AVX2 path. */
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		test_by_hand();
		test_round_trips();
	}
	cdc_set_isa(cdc_isa_best());
	UNIT_MAIN_END("test_group_varint");
}
