/*-------------------------------------------------------------------------
 *
 * decimal.c
 *	  IEEE 754 decimal128 in densely packed decimal (DPD) encoding, the
 *	  value layout of KustoDecimal columns (format notes, section 1.10).
 *
 * A decimal128 holds a sign, a 14-bit biased exponent (bias 6176) and a
 * 34-digit coefficient: the most significant digit and the top two exponent
 * bits share the 5-bit combination field, the other 33 digits are 11
 * declets of 10 bits (3 digits each, DPD).  The 16 bytes are stored
 * little-endian, as decNumber's decQuad holds them in memory on x86.
 *
 * IDENTIFICATION
 *	  src/amudai/decimal.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/amudai_int.h"

#define DEC_BIAS		6176
#define DEC_MAX_BIASED	12287	/* 3 * 4096 - 1 */

/* Three decimal digits (0..999) to a 10-bit declet (IEEE 754-2008, 3.5.2). */
static unsigned
dpd_encode3(unsigned v)
{
	unsigned	d2 = v / 100,
				d1 = v / 10 % 10,
				d0 = v % 10;
	unsigned	a = d2 >> 3,
				e = d1 >> 3,
				i = d0 >> 3;
	unsigned	b = d2 >> 2 & 1,
				c = d2 >> 1 & 1,
				d = d2 & 1;
	unsigned	f = d1 >> 2 & 1,
				g = d1 >> 1 & 1,
				h = d1 & 1;
	unsigned	j = d0 >> 2 & 1,
				k = d0 >> 1 & 1,
				m = d0 & 1;

	switch (a << 2 | e << 1 | i)
	{
		case 0:					/* all digits small */
			return b << 9 | c << 8 | d << 7 | f << 6 | g << 5 | h << 4 | j << 2 | k << 1 | m;
		case 1:					/* units large */
			return b << 9 | c << 8 | d << 7 | f << 6 | g << 5 | h << 4 | 1 << 3 | m;
		case 2:					/* tens large */
			return b << 9 | c << 8 | d << 7 | j << 6 | k << 5 | h << 4 | 1 << 3 | 1 << 1 | m;
		case 4:					/* hundreds large */
			return j << 9 | k << 8 | d << 7 | f << 6 | g << 5 | h << 4 | 1 << 3 | 1 << 2 | m;
		case 6:					/* hundreds and tens large */
			return j << 9 | k << 8 | d << 7 | 0 << 5 | h << 4 | 1 << 3 | 3 << 1 | m;
		case 5:					/* hundreds and units large */
			return f << 9 | g << 8 | d << 7 | 1 << 5 | h << 4 | 1 << 3 | 3 << 1 | m;
		case 3:					/* tens and units large */
			return b << 9 | c << 8 | d << 7 | 2 << 5 | h << 4 | 1 << 3 | 3 << 1 | m;
		default:				/* all three large */
			return d << 7 | 3 << 5 | h << 4 | 1 << 3 | 3 << 1 | m;
	}
}

/* A declet to its value 0..999 (non-canonical declets decode as 8xx/9xx). */
static unsigned
dpd_decode3(unsigned x)
{
	unsigned	p = x >> 9 & 1,
				q = x >> 8 & 1,
				r = x >> 7 & 1,
				s = x >> 6 & 1,
				t = x >> 5 & 1,
				u = x >> 4 & 1,
				v = x >> 3 & 1,
				w = x >> 2 & 1,
				xx = x >> 1 & 1,
				y = x & 1;
	unsigned	d2,
				d1,
				d0;

	if (!v)
	{
		d2 = p << 2 | q << 1 | r;
		d1 = s << 2 | t << 1 | u;
		d0 = w << 2 | xx << 1 | y;
	}
	else if (!w && !xx)
	{
		d2 = p << 2 | q << 1 | r;
		d1 = s << 2 | t << 1 | u;
		d0 = 8 + y;
	}
	else if (!w && xx)
	{
		d2 = p << 2 | q << 1 | r;
		d1 = 8 + u;
		d0 = s << 2 | t << 1 | y;
	}
	else if (w && !xx)
	{
		d2 = 8 + r;
		d1 = s << 2 | t << 1 | u;
		d0 = p << 2 | q << 1 | y;
	}
	else
	{
		switch (s << 1 | t)
		{
			case 0:
				d2 = 8 + r;
				d1 = 8 + u;
				d0 = p << 2 | q << 1 | y;
				break;
			case 1:
				d2 = 8 + r;
				d1 = p << 2 | q << 1 | u;
				d0 = 8 + y;
				break;
			case 2:
				d2 = p << 2 | q << 1 | r;
				d1 = 8 + u;
				d0 = 8 + y;
				break;
			default:
				d2 = 8 + r;
				d1 = 8 + u;
				d0 = 8 + y;
				break;
		}
	}
	return d2 * 100 + d1 * 10 + d0;
}

/* The 128 bits as hi:lo 64-bit halves, stored little-endian. */
static void
store128(uint8_t out[16], uint64_t hi, uint64_t lo)
{
	am_store_u64(out, lo);
	am_store_u64(out + 8, hi);
}

AmStatus
am_decimal128_encode(const AmDecimal *value, uint8_t out[16], AmError *err)
{
	unsigned	digits[AM_DECIMAL_DIGITS];
	uint64_t	hi = 0,
				lo = 0;
	int64_t		biased;
	unsigned	msd;
	unsigned	g;

	if (value->kind != AM_DECIMAL_FINITE)
	{
		/* combination 11110 = infinity, 11111 = quiet NaN */
		g = value->kind == AM_DECIMAL_INFINITY ? 0x1E : 0x1F;
		hi = (uint64_t) (value->negative ? 1 : 0) << 63 | (uint64_t) g << 58;
		store128(out, hi, 0);
		return AM_OK;
	}
	if (value->ndigits > AM_DECIMAL_DIGITS)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT,
					   "decimal128 holds at most 34 digits, not %u",
					   (unsigned) value->ndigits);
	biased = (int64_t) value->exponent + DEC_BIAS;
	if (biased < 0 || biased > DEC_MAX_BIASED)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT,
					   "decimal128 exponent %d out of range", (int) value->exponent);

	/* right-align the digits into 34 places */
	for (unsigned i = 0; i < AM_DECIMAL_DIGITS; i++)
		digits[i] = 0;
	for (unsigned i = 0; i < value->ndigits; i++)
	{
		char		ch = value->digits[i];

		if (ch < '0' || ch > '9')
			return am_fail(err, AM_ERR_INVALID_ARGUMENT,
						   "decimal digit expected, not byte %u", (unsigned char) ch);
		digits[AM_DECIMAL_DIGITS - value->ndigits + i] = (unsigned) (ch - '0');
	}

	/* declets 0..10 from the least significant end, 10 bits each */
	for (unsigned d = 0; d < 11; d++)
	{
		unsigned	base = AM_DECIMAL_DIGITS - 3 * (d + 1);
		uint64_t	declet = dpd_encode3(digits[base] * 100 + digits[base + 1] * 10 +
										 digits[base + 2]);
		unsigned	bit = 10 * d;

		if (bit < 64)
		{
			lo |= declet << bit;
			if (bit + 10 > 64)
				hi |= declet >> (64 - bit);
		}
		else
			hi |= declet << (bit - 64);
	}
	msd = digits[0];
	if (msd < 8)
		g = (unsigned) (biased >> 12) << 3 | msd;
	else
		g = 0x18 | (unsigned) (biased >> 12) << 1 | (msd & 1);
	hi |= (uint64_t) (value->negative ? 1 : 0) << 63 | (uint64_t) g << 58 |
		(uint64_t) (biased & 0xFFF) << 46;
	store128(out, hi, lo);
	return AM_OK;
}

void
am_decimal128_decode(const uint8_t in[16], AmDecimal *out)
{
	uint64_t	lo = am_load_u64(in);
	uint64_t	hi = am_load_u64(in + 8);
	unsigned	g = (unsigned) (hi >> 58) & 0x1F;
	unsigned	msd;
	unsigned	biased_top;
	char		all[AM_DECIMAL_DIGITS];
	unsigned	start = 0;

	memset(out, 0, sizeof(*out));
	out->negative = (hi >> 63) != 0;
	if ((g & 0x1E) == 0x1E)
	{
		out->kind = g == 0x1E ? AM_DECIMAL_INFINITY : AM_DECIMAL_NAN;
		return;
	}
	out->kind = AM_DECIMAL_FINITE;
	if ((g & 0x18) == 0x18)
	{
		biased_top = g >> 1 & 3;
		msd = 8 + (g & 1);
	}
	else
	{
		biased_top = g >> 3;
		msd = g & 7;
	}
	out->exponent = (int32_t) ((biased_top << 12 | (unsigned) (hi >> 46 & 0xFFF)) - DEC_BIAS);
	all[0] = (char) ('0' + msd);
	for (unsigned d = 0; d < 11; d++)
	{
		unsigned	bit = 10 * d;
		uint64_t	declet;
		unsigned	v;
		unsigned	base = AM_DECIMAL_DIGITS - 3 * (d + 1);

		if (bit + 10 <= 64)
			declet = lo >> bit;
		else if (bit < 64)
			declet = lo >> bit | hi << (64 - bit);
		else
			declet = hi >> (bit - 64);
		v = dpd_decode3((unsigned) (declet & 0x3FF));
		all[base] = (char) ('0' + v / 100);
		all[base + 1] = (char) ('0' + v / 10 % 10);
		all[base + 2] = (char) ('0' + v % 10);
	}
	/* a coefficient above 10^34 - 1 is non-canonical; kept as read */
	while (start + 1 < AM_DECIMAL_DIGITS && all[start] == '0')
		start++;
	out->ndigits = AM_DECIMAL_DIGITS - start;
	memcpy(out->digits, all + start, out->ndigits);
}

/* Is a finite decimal zero (any sign or exponent)? */
static bool
decimal_is_zero(const AmDecimal *d)
{
	for (uint32_t i = 0; i < d->ndigits; i++)
		if (d->digits[i] != '0')
			return false;
	return true;
}

/* Compare magnitudes of two nonzero finite decimals without leading zeros. */
static int
magnitude_cmp(const AmDecimal *a, const AmDecimal *b)
{
	int64_t		adj_a = (int64_t) a->exponent + a->ndigits;
	int64_t		adj_b = (int64_t) b->exponent + b->ndigits;
	uint32_t	n = a->ndigits > b->ndigits ? a->ndigits : b->ndigits;

	if (adj_a != adj_b)
		return adj_a < adj_b ? -1 : 1;
	/* same order of magnitude: digit by digit, missing digits are zeros */
	for (uint32_t i = 0; i < n; i++)
	{
		char		da = i < a->ndigits ? a->digits[i] : '0';
		char		db = i < b->ndigits ? b->digits[i] : '0';

		if (da != db)
			return da < db ? -1 : 1;
	}
	return 0;
}

int
am_decimal_cmp(const AmDecimal *a, const AmDecimal *b)
{
	int			sa,
				sb,
				m;

	/* signs: -1, 0 or 1; infinities are beyond every finite value */
	sa = a->kind == AM_DECIMAL_INFINITY ? (a->negative ? -2 : 2) :
		decimal_is_zero(a) ? 0 : (a->negative ? -1 : 1);
	sb = b->kind == AM_DECIMAL_INFINITY ? (b->negative ? -2 : 2) :
		decimal_is_zero(b) ? 0 : (b->negative ? -1 : 1);
	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (sa == 0 || sa == 2 || sa == -2)
		return 0;
	m = magnitude_cmp(a, b);
	return sa < 0 ? -m : m;
}
