/*-------------------------------------------------------------------------
 *
 * test_patched.c
 *	  Unit tests of bit packing with exceptions (patched_bitpack.h): blocks
 *	  computed by hand from the layout in the header, round trips with
 *	  outliers and extremes, and every malformed header.
 *
 * IDENTIFICATION
 *	  test/unit/test_patched.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "codec_test_util.h"
#include "codec/patched_bitpack.h"
#include "codec/fastlanes.h"

/*
 * {5, 7, 5, 1000, 6}: reference 5, deltas {0, 2, 0, 995, 1}.  Sizes
 * (header 24 + 128 * width + 4 per exception + packed highs): width 10:
 * 1304; 2: 285; 1: 163; 0: 24 + 12 + ceil(3 * 10 / 8) = 40, the smallest.
 * Highs 2, 995 (0b1111100011), 1 at 10 bits LSB first: 02 8C 1F 00.
 */
static const uint8_t hand_w0[40] = {
	0x05, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
	0x02, 0x8C, 0x1F, 0x00
};

static void
test_hand(void)
{
	uint32_t	vals[5] = {5, 7, 5, 1000, 6};
	uint8_t		out[2000];
	uint32_t	back[5];
	uint8_t		blk[285] = {0};
	size_t		n = 0;
	GuardBuf	g = guard_alloc(4096);

	UNIT_CHECK(cdc_pfor_encode32(vals, 5, out, sizeof(out), &n) == CDC_OK);
	UNIT_CHECK(n == 40);
	UNIT_CHECK_MEM(out, hand_w0, 40);
	UNIT_CHECK(cdc_pfor_decode32(guarded_input(&g, hand_w0, 40), 40, back, 5) == CDC_OK);
	UNIT_CHECK_MEM(back, vals, sizeof(vals));

	/*
	 * The same values written by hand with width 2: one FastLanes chunk
	 * (T = 32, lanes 0..4 of row 0 = elements 0..4, word 0 of lane l at
	 * bytes 4l..): low bits {0, 2, 0, 3, 1}; one exception at position 3
	 * with high 995 >> 2 = 248 in 8 bits.
	 */
	blk[0] = 5;
	blk[4] = 1;
	blk[8] = 2;
	blk[9] = 8;
	blk[16] = 5;
	blk[24 + 4] = 0x02;
	blk[24 + 12] = 0x03;
	blk[24 + 16] = 0x01;
	blk[24 + 256] = 0x03;
	blk[24 + 260] = 0xF8;
	UNIT_CHECK(cdc_pfor_decode32(guarded_input(&g, blk, 285), 285, back, 5) == CDC_OK);
	UNIT_CHECK_MEM(back, vals, sizeof(vals));
}

static void
test_malformed(void)
{
	uint8_t		b[64 + CDC_INPUT_PADDING] = {0};
	uint32_t	out[8];
	GuardBuf	g = guard_alloc(4096);
	bool		ok = true;

	for (size_t len = 0; len < 40; len++)
		ok &= cdc_pfor_decode32(guarded_input(&g, hand_w0, len), len, out, 5) == CDC_ERR_TRUNCATED;
	UNIT_CHECK(ok);
	memcpy(b, hand_w0, 40);
	b[40] = 0;
	UNIT_CHECK(cdc_pfor_decode32(b, 41, out, 5) == CDC_ERR_CORRUPT);	/* too long */
	UNIT_CHECK(cdc_pfor_decode32(b, 40, out, 4) == CDC_ERR_CORRUPT);	/* count */
	b[4] = 6;
	UNIT_CHECK(cdc_pfor_decode32(b, 40, out, 5) == CDC_ERR_CORRUPT);	/* exceptions > count */
	b[4] = 3;
	b[8] = 33;
	UNIT_CHECK(cdc_pfor_decode32(b, 40, out, 5) == CDC_ERR_CORRUPT);	/* width */
	b[8] = 0;
	b[9] = 33;
	UNIT_CHECK(cdc_pfor_decode32(b, 40, out, 5) == CDC_ERR_CORRUPT);	/* high width */
	b[9] = 10;
	b[12] = 1;
	UNIT_CHECK(cdc_pfor_decode32(b, 40, out, 5) == CDC_ERR_CORRUPT);	/* reserved */
	b[12] = 0;
	b[20] = 1;
	UNIT_CHECK(cdc_pfor_decode32(b, 40, out, 5) == CDC_ERR_CORRUPT);	/* u32 ref high */
	b[20] = 0;
	b[28] = 1;
	UNIT_CHECK(cdc_pfor_decode32(b, 40, out, 5) == CDC_ERR_CORRUPT);	/* not ascending */
	b[28] = 5;
	UNIT_CHECK(cdc_pfor_decode32(b, 40, out, 5) == CDC_ERR_CORRUPT);	/* position >= count */
	b[28] = 3;
	UNIT_CHECK(cdc_pfor_decode32(b, 40, out, 5) == CDC_OK);
}

static void
roundtrip64(const uint64_t *v, size_t n, size_t *size)
{
	size_t		cap = cdc_pfor_max_size64(n);
	uint8_t    *enc = malloc(cap + CDC_INPUT_PADDING);
	uint64_t   *out = malloc((n + 1) * 8);
	size_t		w = 0;

	UNIT_CHECK(cdc_pfor_encode64(v, n, enc, cap, &w) == CDC_OK);
	UNIT_CHECK(w <= cap);
	UNIT_CHECK(cdc_pfor_decode64(enc, w, out, n) == CDC_OK);
	UNIT_CHECKF(n == 0 || memcmp(out, v, n * 8) == 0, "pfor64 round trip n=%zu", n);
	*size = w;
	if (w > 0)
		UNIT_CHECK(cdc_pfor_encode64(v, n, enc, w - 1, &w) == CDC_ERR_OUTPUT_FULL);
	free(enc);
	free(out);
}

static void
test_roundtrips(void)
{
	enum { N = 4000 };
	uint64_t   *v = malloc(N * 8);
	uint32_t   *v32 = malloc(N * 4);
	uint32_t   *o32 = malloc(N * 4);
	uint8_t    *enc = malloc(cdc_pfor_max_size32(N) + CDC_INPUT_PADDING);
	uint64_t	s = 3;
	size_t		size,
				w;
	uint64_t	ref;
	unsigned	width;

	/* small values with 1 % huge outliers: beats plain FFOR */
	for (int i = 0; i < N; i++)
		v[i] = 1000 + unit_rand(&s) % 200;
	for (int i = 0; i < N; i += 97)
		v[i] = unit_rand(&s);
	roundtrip64(v, N, &size);
	cdc_ffor_analyze_u64(v, N, &ref, &width);
	UNIT_CHECKF(size * 3 < cdc_fl_packed_size(N, width), "pfor %zu vs ffor %zu",
				size, cdc_fl_packed_size(N, width));
	/* extremes: 0 and UINT64_MAX */
	for (int i = 0; i < N; i++)
		v[i] = (i % 5 == 0) ? UINT64_MAX : (uint64_t) (i % 3);
	roundtrip64(v, N, &size);
	/* all equal, single value, empty */
	for (int i = 0; i < N; i++)
		v[i] = 42;
	roundtrip64(v, N, &size);
	UNIT_CHECK(size == CDC_PFOR_HEADER_SIZE);
	roundtrip64(v, 1, &size);
	roundtrip64(v, 0, &size);
	/* random full width */
	for (int i = 0; i < N; i++)
		v[i] = unit_rand(&s);
	roundtrip64(v, N, &size);

	/* u32 with outliers, every ISA */
	for (int i = 0; i < N; i++)
		v32[i] = (uint32_t) (unit_rand(&s) % 16) + (i % 50 == 0 ? 0xF0000000u : 0);
	UNIT_CHECK(cdc_pfor_encode32(v32, N, enc, cdc_pfor_max_size32(N), &w) == CDC_OK);
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		memset(o32, 0, N * 4);
		UNIT_CHECK(cdc_pfor_decode32(enc, w, o32, N) == CDC_OK);
		UNIT_CHECK(memcmp(o32, v32, N * 4) == 0);
	}
	cdc_set_isa(cdc_isa_best());
	free(v);
	free(v32);
	free(o32);
	free(enc);
}

int
main(void)
{
	test_hand();
	test_malformed();
	test_roundtrips();
	UNIT_MAIN_END("test_patched");
}
