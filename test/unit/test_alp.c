/*-------------------------------------------------------------------------
 *
 * test_alp.c
 *	  Unit tests of ALP and ALPRD (alp.h).
 *
 * References: the decode formula of amudai-format.md 4.2 written out with
 * literal constants, exception regions built byte by byte from the
 * document's layout, and bit-exact round trips (through the FFOR packer for
 * the integers, as a writer would store them) on money-like, sensor-like,
 * random and special values (-0.0, NaN payloads, infinities, subnormals).
 *
 * IDENTIFICATION
 *	  test/unit/test_alp.c
 *
 *-------------------------------------------------------------------------
 */
#include <float.h>
#include <math.h>

#include "unit.h"
#include "codec_test_util.h"
#include "codec/alp.h"
#include "codec/fastlanes.h"

static uint64_t
b64(double d)
{
	uint64_t	b;

	memcpy(&b, &d, 8);
	return b;
}

static double
d64(uint64_t b)
{
	double		d;

	memcpy(&d, &b, 8);
	return d;
}

static uint32_t
b32(float f)
{
	uint32_t	b;

	memcpy(&b, &f, 4);
	return b;
}

static float
f32(uint32_t b)
{
	float		f;

	memcpy(&f, &b, 4);
	return f;
}

/*
 * e = 2, f = 0: x = (double) k * 1.0 * 0.01.  Exceptions (hand-built): one
 * position u32 = 1 (01 00 00 00), then the value -0.0 as its IEEE bits
 * 0x8000000000000000 little-endian (00 .. 00 80).
 */
static void
test_hand_alp64(void)
{
	int64_t		ints[4] = {12345, 99, -7, 0};
	static const uint8_t exc[12] = {
		0x01, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80
	};
	double		out[4];

	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		UNIT_CHECK(cdc_alp_decode64(ints, 4, 2, 0, exc, 12, 1, out) == CDC_OK);
		UNIT_CHECK(b64(out[0]) == b64(12345.0 * 1.0 * 0.01));
		UNIT_CHECK(b64(out[1]) == UINT64_C(0x8000000000000000));
		UNIT_CHECK(b64(out[2]) == b64(-7.0 * 1.0 * 0.01));
		UNIT_CHECK(b64(out[3]) == 0);
		/* e = 5, f = 3: k * 1000.0 * 0.00001 */
		UNIT_CHECK(cdc_alp_decode64(ints, 4, 5, 3, exc, 0, 0, out) == CDC_OK);
		UNIT_CHECK(b64(out[0]) == b64(12345.0 * 1000.0 * 0.00001));
		UNIT_CHECK(b64(out[1]) == b64(99.0 * 1000.0 * 0.00001));
	}
	cdc_set_isa(cdc_isa_best());

	/* errors */
	UNIT_CHECK(cdc_alp_decode64(ints, 4, 24, 0, exc, 12, 1, out) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_alp_decode64(ints, 4, 2, 24, exc, 12, 1, out) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_alp_decode64(ints, 4, 2, 0, exc, 11, 1, out) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_alp_decode64(ints, 4, 2, 0, exc, 12, 0, out) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_alp_decode64(ints, 1, 2, 0, exc, 12, 1, out) == CDC_ERR_CORRUPT);	/* pos 1 >= 1 */
}

/*
 * The F10 / IF10 tables must be the decimal literals 10^i and 10^-i rounded
 * to the type: decoding k = 1 with (e = i, f = 0) yields IF10[i], with
 * (e = 0, f = i) F10[i]; compare with strtod / strtof of the literal text.
 */
static void
test_tables(void)
{
	int64_t		one64 = 1;
	int32_t		one32 = 1;
	double		d;
	float		f;
	char		text[16];
	bool		ok = true;

	for (int i = 0; i <= CDC_ALP_MAX_EXPONENT64; i++)
	{
		snprintf(text, sizeof(text), "1e-%d", i);
		ok &= cdc_alp_decode64(&one64, 1, (unsigned) i, 0, NULL, 0, 0, &d) == CDC_OK &&
			b64(d) == b64(strtod(text, NULL));
		snprintf(text, sizeof(text), "1e%d", i);
		ok &= cdc_alp_decode64(&one64, 1, 0, (unsigned) i, NULL, 0, 0, &d) == CDC_OK &&
			b64(d) == b64(strtod(text, NULL));
	}
	for (int i = 0; i <= CDC_ALP_MAX_EXPONENT32; i++)
	{
		snprintf(text, sizeof(text), "1e-%d", i);
		ok &= cdc_alp_decode32(&one32, 1, (unsigned) i, 0, NULL, 0, 0, &f) == CDC_OK &&
			b32(f) == b32(strtof(text, NULL));
		snprintf(text, sizeof(text), "1e%d", i);
		ok &= cdc_alp_decode32(&one32, 1, 0, (unsigned) i, NULL, 0, 0, &f) == CDC_OK &&
			b32(f) == b32(strtof(text, NULL));
	}
	UNIT_CHECK(ok);
}

/* f32: e = 1, f = 0: (float) k * 1.0f * 0.1f; exception NaN 0x7FC00123. */
static void
test_hand_alp32(void)
{
	int32_t		ints[3] = {15, -3, 7};
	static const uint8_t exc[8] = {0x02, 0, 0, 0, 0x23, 0x01, 0xC0, 0x7F};
	float		out[3];

	UNIT_CHECK(cdc_alp_decode32(ints, 3, 1, 0, exc, 8, 1, out) == CDC_OK);
	UNIT_CHECK(b32(out[0]) == b32(15.0f * 1.0f * 0.1f));
	UNIT_CHECK(b32(out[1]) == b32(-3.0f * 1.0f * 0.1f));
	UNIT_CHECK(b32(out[2]) == UINT32_C(0x7FC00123));
	UNIT_CHECK(cdc_alp_decode32(ints, 3, 11, 0, exc, 8, 1, out) == CDC_ERR_CORRUPT);
}

/* Encode with chosen parameters, store ints with FFOR, decode both, compare
 * bits.  Returns the exception count. */
static size_t
roundtrip64(const double *v, size_t n, CdcAlpParams *pp)
{
	CdcAlpParams p;
	int64_t    *ints = malloc((n + 1) * 8);
	int64_t    *ints2 = malloc((n + 1) * 8);
	uint32_t   *pos = malloc((n + 1) * 4);
	double	   *excv = malloc((n + 1) * 8);
	uint8_t    *excb = malloc((n + 1) * 12);
	double	   *out = malloc((n + 1) * 8);
	double	   *out2 = malloc((n + 1) * 8);
	uint8_t    *packed;
	int64_t		ref;
	unsigned	w;
	size_t		exc,
				wr,
				plen;
	bool		same = true;

	cdc_alp_choose64(v, n, &p);
	exc = cdc_alp_encode64(v, n, p, ints, pos, excv);
	UNIT_CHECK(cdc_alp_write_exceptions64(pos, excv, exc, excb, exc * 12, &wr) == CDC_OK);
	UNIT_CHECK(wr == exc * 12);
	cdc_ffor_analyze_i64(ints, n, &ref, &w);
	plen = cdc_fl_packed_size(n, w);
	packed = malloc(plen + 1);
	UNIT_CHECK(cdc_ffor_encode64((const uint64_t *) ints, n, (uint64_t) ref, w, packed, plen, &wr) == CDC_OK);
	UNIT_CHECK(cdc_ffor_decode64(packed, plen, w, (uint64_t) ref, (uint64_t *) ints2, n) == CDC_OK);
	cdc_set_isa(CDC_ISA_SCALAR);
	UNIT_CHECK(cdc_alp_decode64(ints2, n, p.exponent, p.factor, excb, exc * 12, (uint32_t) exc, out) == CDC_OK);
	cdc_set_isa(cdc_isa_best());
	UNIT_CHECK(cdc_alp_decode64(ints2, n, p.exponent, p.factor, excb, exc * 12, (uint32_t) exc, out2) == CDC_OK);
	for (size_t i = 0; i < n; i++)
		same &= b64(out[i]) == b64(v[i]) && b64(out2[i]) == b64(v[i]);
	UNIT_CHECKF(same, "alp64 round trip (e=%u f=%u exc=%zu)", p.exponent, p.factor, exc);
	/* the fused FFOR + ALP decode, on every ISA */
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		memset(out, 0, (n + 1) * 8);
		UNIT_CHECK(cdc_alp_ffor_decode64(packed, plen, w, (uint64_t) ref, n, p.exponent, p.factor,
										 excb, exc * 12, (uint32_t) exc, out) == CDC_OK);
		UNIT_CHECK(n == 0 || memcmp(out, v, n * 8) == 0);
	}
	cdc_set_isa(cdc_isa_best());
	if (plen > 0)
	{
		UNIT_CHECK(cdc_alp_ffor_decode64(packed, plen - 1, w, (uint64_t) ref, n, p.exponent, p.factor,
										 excb, exc * 12, (uint32_t) exc, out) == CDC_ERR_TRUNCATED);
		UNIT_CHECK(cdc_alp_ffor_decode64(packed, plen, 65, (uint64_t) ref, n, p.exponent, p.factor,
										 excb, exc * 12, (uint32_t) exc, out) == CDC_ERR_CORRUPT);
	}
	if (pp)
		*pp = p;
	free(ints);
	free(ints2);
	free(pos);
	free(excv);
	free(excb);
	free(out);
	free(out2);
	free(packed);
	return exc;
}

static size_t
roundtrip32(const float *v, size_t n, CdcAlpParams *pp)
{
	CdcAlpParams p;
	int32_t    *ints = malloc((n + 1) * 4);
	uint32_t   *pos = malloc((n + 1) * 4);
	float	   *excv = malloc((n + 1) * 4);
	uint8_t    *excb = malloc((n + 1) * 8);
	float	   *out = malloc((n + 1) * 4);
	size_t		exc,
				wr;
	bool		same = true;

	cdc_alp_choose32(v, n, &p);
	exc = cdc_alp_encode32(v, n, p, ints, pos, excv);
	UNIT_CHECK(cdc_alp_write_exceptions32(pos, excv, exc, excb, exc * 8, &wr) == CDC_OK);
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		UNIT_CHECK(cdc_alp_decode32(ints, n, p.exponent, p.factor, excb, wr, (uint32_t) exc, out) == CDC_OK);
		for (size_t i = 0; i < n; i++)
			same &= b32(out[i]) == b32(v[i]);
	}
	cdc_set_isa(cdc_isa_best());
	UNIT_CHECKF(same, "alp32 round trip (e=%u f=%u exc=%zu)", p.exponent, p.factor, exc);
	if (pp)
		*pp = p;
	free(ints);
	free(pos);
	free(excv);
	free(excb);
	free(out);
	return exc;
}

static void
test_roundtrips(void)
{
	enum { N = 3000 };
	double	   *v = malloc(N * 8);
	float	   *fv = malloc(N * 4);
	uint64_t	s = 42;
	CdcAlpParams p;
	size_t		exc;
	static const double specials[] = {
		-0.0, 0.0, INFINITY, -INFINITY, 4.9e-324, -4.9e-324, DBL_MIN, DBL_MAX,
		-DBL_MAX, 9007199254740993.0, 1e300, -1e-300, 0.1, 2.5
	};
	static const uint64_t nan_bits[] = {
		UINT64_C(0x7FF0000000000001), UINT64_C(0xFFF8000000000123), UINT64_C(0x7FF8000000000000)
	};

	/* money: cents / 100, exactly representable as decimal with e - f = 2 */
	for (int i = 0; i < N; i++)
		v[i] = (double) (int64_t) (unit_rand(&s) % 2000000 - 1000000) / 100.0;
	exc = roundtrip64(v, N, &p);
	UNIT_CHECKF(exc == 0 && p.exponent - p.factor == 2, "money: e=%u f=%u exc=%zu",
				p.exponent, p.factor, exc);

	/* sensor: a smooth signal with 3 decimals */
	for (int i = 0; i < N; i++)
		v[i] = round((20.0 + 5.0 * sin(i / 50.0) + (double) (unit_rand(&s) % 100) / 1000.0) * 1000.0) / 1000.0;
	/* k / 1000.0 is not always k * 10^f * 10^-e for one (e, f): a few
	 * exceptions are expected, but the scale must be 3 decimals */
	exc = roundtrip64(v, N, &p);
	UNIT_CHECKF(exc < N / 50 && p.exponent - p.factor == 3, "sensor: e=%u f=%u exc=%zu",
				p.exponent, p.factor, exc);

	/* random bits (mostly exceptions; NaNs and all) */
	for (int i = 0; i < N; i++)
		v[i] = d64(unit_rand(&s));
	roundtrip64(v, N, NULL);

	/* integers beyond 2^51 take the decoder's plain conversion: compare
	 * with the formula, one 1024-block mixing small and huge values */
	{
		int64_t    *ints = malloc(N * 8);
		double	   *out = malloc(N * 8);
		bool		same = true;

		for (int i = 0; i < N; i++)
			ints[i] = (int64_t) (unit_rand(&s) >> (i % 3 == 0 ? 1 : 20)) * (i % 2 ? -1 : 1);
		ints[5] = INT64_MIN;
		ints[6] = INT64_MAX;
		ints[2000] = (INT64_C(1) << 51);	/* first value outside the magic range */
		for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
		{
			if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
				continue;
			UNIT_CHECK(cdc_alp_decode64(ints, N, 4, 1, NULL, 0, 0, out) == CDC_OK);
			for (int i = 0; i < N; i++)
				same &= b64(out[i]) == b64((double) ints[i] * 10.0 * 0.0001);
		}
		cdc_set_isa(cdc_isa_best());
		UNIT_CHECK(same);
		free(ints);
		free(out);
	}

	/* specials sprinkled into money data */
	for (int i = 0; i < N; i++)
		v[i] = (double) (int64_t) (unit_rand(&s) % 20000) / 100.0;
	for (size_t k = 0; k < sizeof(specials) / sizeof(specials[0]); k++)
		v[(k * 211) % N] = specials[k];
	for (size_t k = 0; k < 3; k++)
		v[(k * 97 + 5) % N] = d64(nan_bits[k]);
	exc = roundtrip64(v, N, &p);
	UNIT_CHECKF(exc >= 12 && exc <= 20, "specials: exc=%zu", exc);

	/* -0.0 alone and empty input */
	v[0] = -0.0;
	UNIT_CHECK(roundtrip64(v, 1, NULL) == 1);
	roundtrip64(v, 0, NULL);

	/* f32: prices with 2 decimals, specials, random bits */
	for (int i = 0; i < N; i++)
		fv[i] = (float) (int32_t) (unit_rand(&s) % 100000) / 100.0f;
	/* in f32 the two roundings of k * 10^f * 10^-e miss k / 100.0f often
	 * (about 20 % of values for every (e, f) here), so only bound it */
	exc = roundtrip32(fv, N, &p);
	UNIT_CHECKF(exc < N * 3 / 10, "f32 prices: e=%u f=%u exc=%zu", p.exponent, p.factor, exc);
	fv[3] = -0.0f;
	fv[4] = f32(0x7FC00001);
	fv[5] = INFINITY;
	fv[6] = 1e-45f;
	roundtrip32(fv, N, NULL);
	for (int i = 0; i < N; i++)
		fv[i] = f32((uint32_t) unit_rand(&s));
	roundtrip32(fv, N, NULL);
	free(v);
	free(fv);
}

/*
 * ALPRD f64, R = 48, dictionary {0x3FF0, 0x4000} (bytes F0 3F 00 40):
 * codes {0, 1, 0}, rights {0, 0, 1} give 1.0 (0x3FF0000000000000), 2.0
 * (0x4000000000000000) and 0x3FF0000000000001; an exception at position 2
 * with left 0xC000 (bytes 02 00 00 00 | 00 C0) gives 0xC000000000000001.
 */
static void
test_hand_alprd(void)
{
	uint16_t	codes[3] = {0, 1, 0};
	uint64_t	right[3] = {0, 0, 1};
	static const uint8_t dict[4] = {0xF0, 0x3F, 0x00, 0x40};
	static const uint8_t exc[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0xC0};
	double		out[3];
	uint16_t	bad[3] = {0, 2, 0};
	uint16_t	codes32[2] = {1, 0};
	uint32_t	right32[2] = {0x1234, 0};
	static const uint8_t dict32[4] = {0x80, 0x3F, 0x00, 0xBF};	/* 0x3F80, 0xBF00 */
	float		out32[2];

	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		UNIT_CHECK(cdc_alprd_decode64(codes, right, 3, 48, dict, 2, exc, 0, 0, out) == CDC_OK);
		UNIT_CHECK(b64(out[0]) == UINT64_C(0x3FF0000000000000) && out[0] == 1.0);
		UNIT_CHECK(b64(out[1]) == UINT64_C(0x4000000000000000) && out[1] == 2.0);
		UNIT_CHECK(b64(out[2]) == UINT64_C(0x3FF0000000000001));
		UNIT_CHECK(cdc_alprd_decode64(codes, right, 3, 48, dict, 2, exc, 6, 1, out) == CDC_OK);
		UNIT_CHECK(b64(out[2]) == UINT64_C(0xC000000000000001));
		UNIT_CHECK(b64(out[1]) == UINT64_C(0x4000000000000000));
		/* f32, R = 16: 0xBF00 << 16 | 0x1234 and 0x3F80 << 16 = 1.0f */
		UNIT_CHECK(cdc_alprd_decode32(codes32, right32, 2, 16, dict32, 2, exc, 0, 0, out32) == CDC_OK);
		UNIT_CHECK(b32(out32[0]) == UINT32_C(0xBF001234) && out32[1] == 1.0f);
	}
	cdc_set_isa(cdc_isa_best());
	UNIT_CHECK(cdc_alprd_decode64(bad, right, 3, 48, dict, 2, exc, 0, 0, out) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_alprd_decode64(codes, right, 3, 0, dict, 2, exc, 0, 0, out) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_alprd_decode64(codes, right, 3, 64, dict, 2, exc, 0, 0, out) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_alprd_decode64(codes, right, 3, 48, dict, 9, exc, 0, 0, out) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_alprd_decode64(codes, right, 3, 48, dict, 0, exc, 0, 0, out) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_alprd_decode64(codes, right, 3, 48, dict, 2, exc, 5, 1, out) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_alprd_decode64(codes, right, 3, 48, dict, 2, exc, 6, 0, out) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_alprd_decode64(codes, right, 2, 48, dict, 2, exc, 6, 1, out) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_alprd_decode32(codes32, right32, 2, 32, dict32, 2, exc, 0, 0, out32) == CDC_ERR_CORRUPT);
}

static void
alprd_roundtrip64(const double *v, size_t n, size_t max_exc)
{
	CdcAlprdParams p;
	uint16_t   *codes = malloc((n + 1) * 2);
	uint64_t   *right = malloc((n + 1) * 8);
	uint32_t   *pos = malloc((n + 1) * 4);
	uint16_t   *left = malloc((n + 1) * 2);
	uint8_t    *excb = malloc((n + 1) * 6);
	uint8_t		dictb[16];
	double	   *out = malloc((n + 1) * 8);
	size_t		exc,
				wr,
				dw;
	bool		same = true;

	cdc_alprd_choose64(v, n, &p);
	UNIT_CHECK(p.dict_len >= 1 && p.dict_len <= 8 && p.right_bit_width >= 48 && p.right_bit_width < 64);
	exc = cdc_alprd_encode64(v, n, &p, codes, right, pos, left);
	UNIT_CHECK(cdc_alprd_write_exceptions(pos, left, exc, excb, exc * 6, &wr) == CDC_OK);
	UNIT_CHECK(cdc_alprd_write_dict(&p, dictb, sizeof(dictb), &dw) == CDC_OK && dw == 2u * p.dict_len);
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		UNIT_CHECK(cdc_alprd_decode64(codes, right, n, p.right_bit_width, dictb, p.dict_len,
									  excb, wr, (uint32_t) exc, out) == CDC_OK);
		for (size_t i = 0; i < n; i++)
			same &= b64(out[i]) == b64(v[i]);
	}
	cdc_set_isa(cdc_isa_best());
	UNIT_CHECKF(same, "alprd64 round trip R=%u d=%u exc=%zu", p.right_bit_width, p.dict_len, exc);
	UNIT_CHECKF(exc <= max_exc, "alprd64 exceptions %zu > %zu", exc, max_exc);
	free(codes);
	free(right);
	free(pos);
	free(left);
	free(excb);
	free(out);
}

static void
alprd_roundtrip32(const float *v, size_t n)
{
	CdcAlprdParams p;
	uint16_t   *codes = malloc((n + 1) * 2);
	uint32_t   *right = malloc((n + 1) * 4);
	uint32_t   *pos = malloc((n + 1) * 4);
	uint16_t   *left = malloc((n + 1) * 2);
	uint8_t    *excb = malloc((n + 1) * 6);
	uint8_t		dictb[16];
	float	   *out = malloc((n + 1) * 4);
	size_t		exc,
				wr,
				dw;
	bool		same = true;

	cdc_alprd_choose32(v, n, &p);
	exc = cdc_alprd_encode32(v, n, &p, codes, right, pos, left);
	cdc_alprd_write_exceptions(pos, left, exc, excb, exc * 6, &wr);
	cdc_alprd_write_dict(&p, dictb, sizeof(dictb), &dw);
	UNIT_CHECK(cdc_alprd_decode32(codes, right, n, p.right_bit_width, dictb, p.dict_len,
								  excb, wr, (uint32_t) exc, out) == CDC_OK);
	for (size_t i = 0; i < n; i++)
		same &= b32(out[i]) == b32(v[i]);
	UNIT_CHECKF(same, "alprd32 round trip R=%u d=%u exc=%zu", p.right_bit_width, p.dict_len, exc);
	free(codes);
	free(right);
	free(pos);
	free(left);
	free(excb);
	free(out);
}

static void
test_alprd_roundtrips(void)
{
	enum { N = 2500 };
	double	   *v = malloc(N * 8);
	float	   *fv = malloc(N * 4);
	uint64_t	s = 7;

	/* high-precision doubles in [1, 16): few distinct exponents */
	for (int i = 0; i < N; i++)
		v[i] = 1.0 + (double) (unit_rand(&s) >> 11) / 9007199254740992.0 * 15.0;
	alprd_roundtrip64(v, N, N / 10);
	/* random bits: anything goes, still bit-exact */
	for (int i = 0; i < N; i++)
		v[i] = d64(unit_rand(&s));
	alprd_roundtrip64(v, N, N);
	/* specials */
	v[0] = -0.0;
	v[1] = d64(UINT64_C(0x7FF0000000000001));
	v[2] = INFINITY;
	v[3] = 4.9e-324;
	alprd_roundtrip64(v, N, N);
	alprd_roundtrip64(v, 1, 1);
	for (int i = 0; i < N; i++)
		fv[i] = (float) (1.0 + (double) (unit_rand(&s) >> 40) / 16777216.0);
	fv[7] = -0.0f;
	fv[8] = f32(0xFFC00001);
	alprd_roundtrip32(fv, N);
	free(v);
	free(fv);
}

int
main(void)
{
	test_tables();
	test_hand_alp64();
	test_hand_alp32();
	test_roundtrips();
	test_hand_alprd();
	test_alprd_roundtrips();
	UNIT_MAIN_END("test_alp");
}
