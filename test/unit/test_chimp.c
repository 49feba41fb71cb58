/*-------------------------------------------------------------------------
 *
 * test_chimp.c
 *	  Unit tests of Chimp (chimp.h): streams computed by hand from the
 *	  layout in chimp.h, bit-exact round trips (specials, sensor-like,
 *	  money-like, random), truncation and corruption.
 *
 * IDENTIFICATION
 *	  test/unit/test_chimp.c
 *
 *-------------------------------------------------------------------------
 */
#include <float.h>
#include <math.h>

#include "unit.h"
#include "codec_test_util.h"
#include "codec/chimp.h"

static double
d64(uint64_t b)
{
	double		d;

	memcpy(&d, &b, 8);
	return d;
}

/*
 * {1.0, 1.0, 2.0}:
 *	 1.0 raw: 00 00 00 00 00 00 F0 3F                       (bits 0..63)
 *	 x = 0: flag 0                                          (bits 64..65)
 *	 x = 0x3FF0.. ^ 0x4000.. = 0x7FF0000000000000: 1 leading zero, 52
 *	 trailing > 6: flag 1 (bits 66..67 = 1, 0), lead code 0 (68..70),
 *	 center length 12 = 001100 (71..76), center 0x7FF (77..88).
 *	 byte 8 = bit 66 = 0x04; byte 9 = bits 73, 74, 77, 78, 79 = 0xE6;
 *	 byte 10 = 0xFF; byte 11 = bit 88 = 0 -> 89 bits, 12 bytes.
 */
static const uint8_t hand1[12] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F, 0x04, 0xE6, 0xFF, 0x00
};

/*
 * {1.0, 0x3FF0000000000001, 0x3FF0000000000003}:
 *	 x = 1: 63 leading zeros -> lead code 7 (24), 0 trailing: flag 3
 *	 (bits 64, 65), code 7 (66..68), 40 bits of x (69..108: bit 69 set).
 *	 byte 8 = bits 0..5 = 0x3F.
 *	 x = 1 ^ 3 = 2: lead 24 = previous lead: flag 2 (bit 109 = 0, 110 = 1),
 *	 40 bits of x = 2 (111..150: bit 112 set).
 *	 byte 13 = bit 110 = 0x40; byte 14 = bit 112 = 0x01; 151 bits, 19 bytes.
 */
static const uint8_t hand2[19] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F,
	0x3F, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00, 0x00, 0x00
};

static void
test_hand(void)
{
	double		v1[3] = {1.0, 1.0, 2.0};
	double		v2[3] = {1.0, d64(UINT64_C(0x3FF0000000000001)), d64(UINT64_C(0x3FF0000000000003))};
	uint8_t		out[64];
	double		back[3];
	size_t		n = 0,
				used = 0;
	GuardBuf	g = guard_alloc(4096);

	UNIT_CHECK(cdc_chimp_encode64(v1, 3, out, sizeof(out), &n) == CDC_OK);
	UNIT_CHECK(n == sizeof(hand1));
	UNIT_CHECK_MEM(out, hand1, sizeof(hand1));
	UNIT_CHECK(cdc_chimp_decode64(guarded_input(&g, hand1, sizeof(hand1)), sizeof(hand1), back, 3, &used) == CDC_OK);
	UNIT_CHECK(used == 12 && memcmp(back, v1, sizeof(v1)) == 0);

	UNIT_CHECK(cdc_chimp_encode64(v2, 3, out, sizeof(out), &n) == CDC_OK);
	UNIT_CHECK(n == sizeof(hand2));
	UNIT_CHECK_MEM(out, hand2, sizeof(hand2));
	UNIT_CHECK(cdc_chimp_decode64(guarded_input(&g, hand2, sizeof(hand2)), sizeof(hand2), back, 3, &used) == CDC_OK);
	UNIT_CHECK(used == 19 && memcmp(back, v2, sizeof(v2)) == 0);
}

static void
test_corrupt(void)
{
	/* 1.0, then flag 1 with code 0 and center length 0 */
	uint8_t		zero_center[16 + CDC_INPUT_PADDING] = {0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0x01, 0x00};
	/* flag 1, code 7 (lead 24), center 63: 24 + 63 > 64.  1 | 7 << 2 | 63 << 5 = 0x7FD */
	uint8_t		too_long[32 + CDC_INPUT_PADDING] = {0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0xFD, 0x07};
	double		out[2];
	float		out32[2];
	size_t		used;

	UNIT_CHECK(cdc_chimp_decode64(zero_center, 16, out, 2, &used) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_chimp_decode64(too_long, 32, out, 2, &used) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_chimp_decode64(too_long, 7, out, 1, &used) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_chimp_decode64(too_long, 0, out, 0, &used) == CDC_OK && used == 0);
	UNIT_CHECK(cdc_chimp_decode32(too_long, 3, out32, 1, &used) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_chimp_encode64(out, 2, too_long, cdc_chimp_max_size64(2) - 1, &used) == CDC_ERR_OUTPUT_FULL);
}

/* Round trip, then every shorter input from a guarded buffer is TRUNCATED. */
static size_t
roundtrip64(const double *v, size_t n, bool prefixes)
{
	size_t		cap = cdc_chimp_max_size64(n);
	uint8_t    *enc = malloc(cap + CDC_INPUT_PADDING);
	double	   *out = malloc((n + 1) * 8);
	size_t		w = 0,
				used = 0;
	bool		ok = true;

	UNIT_CHECK(cdc_chimp_encode64(v, n, enc, cap, &w) == CDC_OK);
	UNIT_CHECK(cdc_chimp_decode64(enc, w, out, n, &used) == CDC_OK);
	UNIT_CHECK(used == w);
	UNIT_CHECKF(n == 0 || memcmp(out, v, n * 8) == 0, "chimp64 round trip n=%zu", n);
	if (prefixes)
	{
		GuardBuf	g = guard_alloc(w + 4096);

		for (size_t len = 0; len < w; len += 1 + len / 8)
			ok &= cdc_chimp_decode64(guarded_input(&g, enc, len), len, out, n, &used) == CDC_ERR_TRUNCATED;
		UNIT_CHECK(ok);
	}
	free(enc);
	free(out);
	return w;
}

static void
test_roundtrips(void)
{
	enum { N = 5000 };
	double	   *v = malloc(N * 8);
	float	   *f = malloc(N * 4);
	float	   *fo = malloc(N * 4);
	uint8_t    *enc = malloc(cdc_chimp_max_size32(N) + CDC_INPUT_PADDING);
	uint64_t	s = 11;
	size_t		w,
				used;
	static const double specials[] = {
		-0.0, 0.0, INFINITY, -INFINITY, 4.9e-324, DBL_MIN, DBL_MAX, -DBL_MAX, 1e300
	};

	/* sensor: slow drift, 2 decimals */
	for (int i = 0; i < N; i++)
		v[i] = round((20.0 + 3.0 * sin(i / 200.0)) * 100.0) / 100.0;
	w = roundtrip64(v, N, true);
	/* XORs of 2-decimal values keep most mantissa bits: Chimp's known
	 * weak spot, but it must still save a quarter */
	UNIT_CHECKF(w < N * 8 * 3 / 4, "sensor compresses to %zu of %d", w, N * 8);
	/* repeated values */
	for (int i = 0; i < N; i++)
		v[i] = (double) (i / 100);
	w = roundtrip64(v, N, false);
	UNIT_CHECKF(w < N * 8 / 10, "runs compress to %zu", w);
	/* random bits, NaN payloads, specials */
	for (int i = 0; i < N; i++)
		v[i] = d64(unit_rand(&s));
	for (size_t k = 0; k < sizeof(specials) / sizeof(specials[0]); k++)
		v[k * 7] = specials[k];
	v[100] = d64(UINT64_C(0x7FF0000000000001));
	v[101] = d64(UINT64_C(0xFFF8000000000ABC));
	roundtrip64(v, N, true);
	roundtrip64(v, 1, true);
	roundtrip64(v, 0, false);

	/* f32: money-like and random */
	for (int i = 0; i < N; i++)
		f[i] = (float) (int) (unit_rand(&s) % 10000) / 100.0f;
	f[3] = -0.0f;
	memcpy(&f[4], &(uint32_t) {0x7FC00077}, 4);
	UNIT_CHECK(cdc_chimp_encode32(f, N, enc, cdc_chimp_max_size32(N), &w) == CDC_OK);
	UNIT_CHECK(cdc_chimp_decode32(enc, w, fo, N, &used) == CDC_OK && used == w);
	UNIT_CHECK(memcmp(f, fo, N * 4) == 0);
	for (int i = 0; i < N; i++)
	{
		uint32_t	b = (uint32_t) unit_rand(&s);

		memcpy(&f[i], &b, 4);
	}
	UNIT_CHECK(cdc_chimp_encode32(f, N, enc, cdc_chimp_max_size32(N), &w) == CDC_OK);
	UNIT_CHECK(cdc_chimp_decode32(enc, w, fo, N, &used) == CDC_OK && used == w);
	UNIT_CHECK(memcmp(f, fo, N * 4) == 0);
	UNIT_CHECK(cdc_chimp_decode32(enc, w - 1, fo, N, &used) == CDC_ERR_TRUNCATED);
	free(v);
	free(f);
	free(fo);
	free(enc);
}

int
main(void)
{
	test_hand();
	test_corrupt();
	test_roundtrips();
	UNIT_MAIN_END("test_chimp");
}
