/*-------------------------------------------------------------------------
 *
 * test_vec_text.c
 *	  String length kernels of src/fdw/vec_text.c against a naive decoder.
 *
 * The reference decodes each code point from its bits and judges it by
 * the Unicode definition (shortest form, not a surrogate, at most
 * U+10FFFF, not NUL, which PostgreSQL's text refuses); it shares no code
 * with the kernel's byte-range table.  Random strings mix ASCII runs
 * (longer than the kernel's eight-byte steps), valid sequences of two to
 * four bytes and, in some rounds, random bytes; vt_lengths must agree row
 * by row under selection vectors, nulls and dictionary memos.
 *
 * vec_text.c is pure C but lives in src/fdw (its only callers are there),
 * outside the libraries the unit tests link, so it is compiled in here.
 *
 * IDENTIFICATION
 *	  test/unit/test_vec_text.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include "fdw/vec_text.c"

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint32_t
rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t) (rng_state % n);
}

/* Characters of s by decoding, or -1 when any code point is not legal. */
static int64_t
ref_chars(const uint8_t *s, size_t len)
{
	int64_t		chars = 0;
	size_t		i = 0;

	while (i < len)
	{
		uint32_t	cp;
		size_t		n;
		uint32_t	min;

		if (s[i] < 0x80)
		{
			cp = s[i];
			n = 1;
			min = 0;
		}
		else if ((s[i] & 0xE0) == 0xC0)
		{
			cp = s[i] & 0x1F;
			n = 2;
			min = 0x80;
		}
		else if ((s[i] & 0xF0) == 0xE0)
		{
			cp = s[i] & 0x0F;
			n = 3;
			min = 0x800;
		}
		else if ((s[i] & 0xF8) == 0xF0)
		{
			cp = s[i] & 0x07;
			n = 4;
			min = 0x10000;
		}
		else
			return -1;
		if (i + n > len)
			return -1;
		for (size_t k = 1; k < n; k++)
		{
			if ((s[i + k] & 0xC0) != 0x80)
				return -1;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if (cp < min || cp == 0 || cp > 0x10FFFF ||
			(cp >= 0xD800 && cp <= 0xDFFF))
			return -1;
		chars++;
		i += n;
	}
	return chars;
}

/* Append the UTF-8 form of code point cp. */
static size_t
put_utf8(uint8_t *p, uint32_t cp)
{
	if (cp < 0x80)
	{
		p[0] = (uint8_t) cp;
		return 1;
	}
	if (cp < 0x800)
	{
		p[0] = (uint8_t) (0xC0 | (cp >> 6));
		p[1] = (uint8_t) (0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000)
	{
		p[0] = (uint8_t) (0xE0 | (cp >> 12));
		p[1] = (uint8_t) (0x80 | ((cp >> 6) & 0x3F));
		p[2] = (uint8_t) (0x80 | (cp & 0x3F));
		return 3;
	}
	p[0] = (uint8_t) (0xF0 | (cp >> 18));
	p[1] = (uint8_t) (0x80 | ((cp >> 12) & 0x3F));
	p[2] = (uint8_t) (0x80 | ((cp >> 6) & 0x3F));
	p[3] = (uint8_t) (0x80 | (cp & 0x3F));
	return 4;
}

/* A random string of at most max bytes (max >= 4); garbage adds raw bytes. */
static size_t
random_string(uint8_t *p, size_t max, bool garbage)
{
	size_t		len = 0;
	size_t		target = rnd((uint32_t) max - 3);

	while (len < target)
	{
		switch (rnd(garbage ? 6 : 5))
		{
			case 0:
			case 1:
				{
					/* an ASCII run */
					uint32_t	run = 1 + rnd(20);

					while (run-- > 0 && len < target)
						p[len++] = (uint8_t) (' ' + rnd(95));
					break;
				}
			case 2:
				len += put_utf8(p + len, 0x80 + rnd(0x800 - 0x80));
				break;
			case 3:
				{
					uint32_t	cp = 0x800 + rnd(0x10000 - 0x800);

					if (cp >= 0xD800 && cp <= 0xDFFF)
						cp -= 0x1000;
					len += put_utf8(p + len, cp);
					break;
				}
			case 4:
				len += put_utf8(p + len, 0x10000 + rnd(0x110000 - 0x10000));
				break;
			default:
				p[len++] = (uint8_t) rnd(256);
				break;
		}
	}
	return len;
}

/* Fixed cases at the edges of the byte-range table. */
static void
check_fixed(void)
{
	static const struct
	{
		const char *s;
		int64_t		chars;
	}			cases[] = {
		{"", 0},
		{"a", 1},
		{"abcdefgh", 8},
		{"abcdefghi", 9},
		{"\xc3\xa9t\xc3\xa9", 3},
		{"\xe2\x82\xac", 1},
		{"\xf0\x9f\x98\x80x", 2},
		{"\xc0\x80", -1},		/* overlong NUL */
		{"\xc1\xbf", -1},		/* overlong */
		{"\xe0\x9f\xbf", -1},	/* overlong */
		{"\xed\xa0\x80", -1},	/* surrogate */
		{"\xed\x9f\xbf", 1},	/* U+D7FF */
		{"\xf0\x8f\xbf\xbf", -1},	/* overlong */
		{"\xf4\x8f\xbf\xbf", 1},	/* U+10FFFF */
		{"\xf4\x90\x80\x80", -1},	/* U+110000 */
		{"\xf5\x80\x80\x80", -1},
		{"abcdefg\xc3", -1},	/* cut short */
		{"\x80", -1},
		{"abcdefgh\xe2\x82", -1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		size_t		len = strlen(cases[i].s);

		UNIT_CHECKF(vt_utf8_chars((const uint8_t *) cases[i].s, len) == cases[i].chars,
					"case %zu", i);
		UNIT_CHECKF(ref_chars((const uint8_t *) cases[i].s, len) == cases[i].chars,
					"reference, case %zu", i);
	}
	/* NUL inside an ASCII word and alone */
	UNIT_CHECK(vt_utf8_chars((const uint8_t *) "abc\0defgh", 9) == -1);
	UNIT_CHECK(vt_utf8_chars((const uint8_t *) "\0", 1) == -1);
}

#define NROWS 512
#define NDICT 40

/* vt_lengths against the reference over random batches. */
static void
check_batches(bool garbage, int rounds)
{
	static uint8_t bytes[NROWS][64];
	static uint8_t dict[NDICT][64];
	CdcByteView vals[NROWS];
	bool		is_null[NROWS];
	uint32_t	dict_index[NROWS];
	int32_t		memo[NDICT];
	uint32_t	sel[NROWS];
	int32_t		out[NROWS];
	size_t		dict_len[NDICT];

	for (int round = 0; round < rounds; round++)
	{
		bool		use_dict = rnd(2);
		bool		use_nulls = rnd(2);
		VtLengthKind kind = (VtLengthKind) rnd(3);
		uint32_t	n = 0;
		uint32_t	bad = UINT32_MAX;
		uint32_t	bad_row = UINT32_MAX;
		bool		ok;

		for (int d = 0; d < NDICT; d++)
		{
			dict_len[d] = random_string(dict[d], sizeof(dict[d]), garbage && rnd(8) == 0);
			memo[d] = VT_LEN_UNKNOWN;
		}
		for (uint32_t r = 0; r < NROWS; r++)
		{
			is_null[r] = use_nulls && rnd(5) == 0;
			dict_index[r] = UINT32_MAX;
			if (use_dict && rnd(4) != 0)
			{
				/* from the dictionary: the view points into its entry */
				uint32_t	d = rnd(NDICT);

				dict_index[r] = is_null[r] ? UINT32_MAX : d;
				vals[r].ptr = dict[d];
				vals[r].len = (uint32_t) dict_len[d];
			}
			else
			{
				vals[r].len = (uint32_t) random_string(bytes[r], sizeof(bytes[r]),
													   garbage && rnd(8) == 0);
				vals[r].ptr = bytes[r];
			}
			if (is_null[r])
			{
				vals[r].ptr = NULL;
				vals[r].len = 0;
			}
			if (rnd(3) != 0)
				sel[n++] = r;
		}
		for (uint32_t i = 0; i < n && bad == UINT32_MAX; i++)
		{
			uint32_t	r = sel[i];

			if (!is_null[r] && kind != VT_BYTES && ref_chars(vals[r].ptr, vals[r].len) < 0)
				bad = r;
		}
		ok = vt_lengths(vals, use_nulls ? is_null : NULL,
						use_dict ? dict_index : NULL, memo, kind, sel, n, out, &bad_row);
		UNIT_CHECKF(ok == (bad == UINT32_MAX), "round %d: ok %d", round, ok);
		if (!ok)
		{
			UNIT_CHECKF(bad_row == bad, "round %d: bad row %u, want %u", round, bad_row, bad);
			continue;
		}
		for (uint32_t i = 0; i < n; i++)
		{
			uint32_t	r = sel[i];
			int64_t		want = is_null[r] ? 0 :
				kind == VT_UTF8_CHARS ? ref_chars(vals[r].ptr, vals[r].len) :
				(int64_t) vals[r].len;

			UNIT_CHECKF(out[r] == want, "round %d row %u: %d, want %lld",
						round, r, out[r], (long long) want);
		}
	}
}

int
main(void)
{
	check_fixed();
	for (int i = 0; i < 20000; i++)
	{
		uint8_t		s[80];
		size_t		len = random_string(s, sizeof(s), rnd(2));

		UNIT_CHECKF(vt_utf8_chars(s, len) == ref_chars(s, len), "random string %d", i);
	}
	check_batches(false, 300);
	check_batches(true, 300);
	UNIT_MAIN_END("test_vec_text");
}
