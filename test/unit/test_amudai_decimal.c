/*-------------------------------------------------------------------------
 *
 * test_amudai_decimal.c
 *	  KustoDecimal values (decimal.c): decimal128 DPD encoding against
 *	  published decQuad bit patterns, every declet, and round trips.
 *
 * The reference patterns are the decQuad constants of the General Decimal
 * Arithmetic specification's test cases (dqBase): 1, -1, 10, 1E+1, the
 * largest finite value, infinities and NaN, written big-endian there and
 * compared here after reversing our little-endian bytes.
 *
 * IDENTIFICATION
 *	  test/unit/test_amudai_decimal.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include "amudai/amudai.h"

/* Our 16 little-endian bytes as 32 big-endian hex digits. */
static void
to_hex(const uint8_t b[16], char out[33])
{
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", b[15 - i]);
}

static void
set_decimal(AmDecimal *d, bool negative, const char *digits, int32_t exponent)
{
	memset(d, 0, sizeof(*d));
	d->kind = AM_DECIMAL_FINITE;
	d->negative = negative;
	d->exponent = exponent;
	d->ndigits = (uint32_t) strlen(digits);
	memcpy(d->digits, digits, d->ndigits);
}

static void
check_vector(bool negative, const char *digits, int32_t exponent,
			 const char *expect_hex)
{
	AmDecimal	d,
				back;
	AmError		err;
	uint8_t		bytes[16];
	char		hex[33];

	set_decimal(&d, negative, digits, exponent);
	am_error_clear(&err);
	UNIT_CHECK(am_decimal128_encode(&d, bytes, &err) == AM_OK);
	to_hex(bytes, hex);
	UNIT_CHECKF(strcmp(hex, expect_hex) == 0, "%s E%d: %s, expected %s",
				digits, exponent, hex, expect_hex);
	am_decimal128_decode(bytes, &back);
	UNIT_CHECK(back.kind == AM_DECIMAL_FINITE);
	UNIT_CHECK(back.negative == negative);
	UNIT_CHECK(back.exponent == exponent);
	UNIT_CHECK(back.ndigits == strlen(digits) &&
			   memcmp(back.digits, digits, back.ndigits) == 0);
}

int
main(void)
{
	AmDecimal	d,
				back;
	AmError		err;
	uint8_t		bytes[16];
	char		hex[33];
	uint64_t	seed = 12345;

	check_vector(false, "1", 0, "22080000000000000000000000000001");
	check_vector(true, "1", 0, "a2080000000000000000000000000001");
	check_vector(false, "0", 0, "22080000000000000000000000000000");
	check_vector(false, "10", 0, "22080000000000000000000000000010");
	check_vector(false, "1", 1, "22084000000000000000000000000001");
	check_vector(false, "9999999999999999999999999999999999", 6111,
				 "77ffcff3fcff3fcff3fcff3fcff3fcff");
	/* smallest exponent, coefficient 1: 1E-6176 */
	check_vector(false, "1", -6176, "00000000000000000000000000000001");

	/* every three-digit group in the lowest declet and a middle one */
	for (unsigned v = 0; v < 1000; v++)
	{
		char		digits[8];

		snprintf(digits, sizeof(digits), "%u%03u", v + 1, v);
		set_decimal(&d, v % 2 == 0, digits, (int32_t) v - 500);
		am_error_clear(&err);
		UNIT_CHECK(am_decimal128_encode(&d, bytes, &err) == AM_OK);
		am_decimal128_decode(bytes, &back);
		UNIT_CHECKF(back.ndigits == d.ndigits &&
					memcmp(back.digits, d.digits, d.ndigits) == 0 &&
					back.exponent == d.exponent && back.negative == d.negative,
					"declet %u", v);
	}

	/* pseudo-random 34-digit coefficients (msd 1..9) round trip */
	for (int t = 0; t < 2000; t++)
	{
		char		digits[AM_DECIMAL_DIGITS + 1];
		int			n = 1 + t % AM_DECIMAL_DIGITS;

		for (int i = 0; i < n; i++)
		{
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			digits[i] = (char) ('0' + (seed >> 33) % 10);
		}
		if (digits[0] == '0')
			digits[0] = '7';
		digits[n] = '\0';
		set_decimal(&d, t % 3 == 0, digits, (int32_t) (t * 7 % 12000) - 6176);
		am_error_clear(&err);
		UNIT_CHECK(am_decimal128_encode(&d, bytes, &err) == AM_OK);
		am_decimal128_decode(bytes, &back);
		UNIT_CHECKF(back.ndigits == d.ndigits &&
					memcmp(back.digits, d.digits, d.ndigits) == 0 &&
					back.exponent == d.exponent && back.negative == d.negative,
					"random %d", t);
	}

	/* specials */
	memset(&d, 0, sizeof(d));
	d.kind = AM_DECIMAL_INFINITY;
	UNIT_CHECK(am_decimal128_encode(&d, bytes, &err) == AM_OK);
	to_hex(bytes, hex);
	UNIT_CHECK(strcmp(hex, "78000000000000000000000000000000") == 0);
	am_decimal128_decode(bytes, &back);
	UNIT_CHECK(back.kind == AM_DECIMAL_INFINITY && !back.negative);
	d.negative = true;
	UNIT_CHECK(am_decimal128_encode(&d, bytes, &err) == AM_OK);
	to_hex(bytes, hex);
	UNIT_CHECK(strcmp(hex, "f8000000000000000000000000000000") == 0);
	d.kind = AM_DECIMAL_NAN;
	d.negative = false;
	UNIT_CHECK(am_decimal128_encode(&d, bytes, &err) == AM_OK);
	to_hex(bytes, hex);
	UNIT_CHECK(strcmp(hex, "7c000000000000000000000000000000") == 0);
	am_decimal128_decode(bytes, &back);
	UNIT_CHECK(back.kind == AM_DECIMAL_NAN);

	/* numeric order: against the values' ordinary order */
	{
		struct
		{
			bool		na;
			const char *a;
			int32_t		ea;
			bool		nb;
			const char *b;
			int32_t		eb;
			int			expect;
		}			cases[] = {
			{false, "15", -1, false, "150", -2, 0},	/* 1.5 = 1.50 */
			{false, "0", 0, true, "0", 5, 0},	/* 0 = -0E5 */
			{true, "1", 0, false, "0", 0, -1},
			{false, "0", 0, false, "1", -30, -1},
			{false, "9", 0, false, "10", 0, -1},
			{false, "10", -1, false, "1", 0, 0},	/* 1.0 = 1 */
			{false, "123", 2, false, "12299", 0, 1},	/* 12300 > 12299 */
			{false, "1", -3, false, "1", -2, -1},	/* 0.001 < 0.01 */
			{true, "1", -3, true, "1", -2, 1},	/* -0.001 > -0.01 */
			{true, "5", 0, true, "49", -1, -1},	/* -5 < -4.9 */
			{false, "2", 6111, false, "9999999999999999999999999999999999", 6000, 1},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			AmDecimal	a,
						b2;

			set_decimal(&a, cases[i].na, cases[i].a, cases[i].ea);
			set_decimal(&b2, cases[i].nb, cases[i].b, cases[i].eb);
			UNIT_CHECKF(am_decimal_cmp(&a, &b2) == cases[i].expect, "case %zu", i);
			UNIT_CHECKF(am_decimal_cmp(&b2, &a) == -cases[i].expect, "case %zu reversed", i);
		}
		memset(&d, 0, sizeof(d));
		d.kind = AM_DECIMAL_INFINITY;
		set_decimal(&back, false, "9999999999999999999999999999999999", 6111);
		UNIT_CHECK(am_decimal_cmp(&d, &back) == 1 && am_decimal_cmp(&back, &d) == -1);
		d.negative = true;
		back.negative = true;
		UNIT_CHECK(am_decimal_cmp(&d, &back) == -1);
		UNIT_CHECK(am_decimal_cmp(&d, &d) == 0);
	}

	/* contract violations are errors, not undefined behaviour */
	set_decimal(&d, false, "12345678901234567890123456789012345", 0);
	UNIT_CHECK(am_decimal128_encode(&d, bytes, &err) == AM_ERR_INVALID_ARGUMENT);
	set_decimal(&d, false, "1", 6112);
	UNIT_CHECK(am_decimal128_encode(&d, bytes, &err) == AM_ERR_INVALID_ARGUMENT);
	set_decimal(&d, false, "1", -6177);
	UNIT_CHECK(am_decimal128_encode(&d, bytes, &err) == AM_ERR_INVALID_ARGUMENT);
	set_decimal(&d, false, "1x", 0);
	UNIT_CHECK(am_decimal128_encode(&d, bytes, &err) == AM_ERR_INVALID_ARGUMENT);

	UNIT_MAIN_END("test_amudai_decimal");
}
