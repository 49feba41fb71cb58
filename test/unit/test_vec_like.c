/*-------------------------------------------------------------------------
 *
 * test_vec_like.c
 *	  LIKE / ILIKE kernels of src/fdw/vec_like.c against a naive matcher.
 *
 * The reference walks the raw pattern recursively, character by character,
 * as the SQL standard defines LIKE ('%' any run, '_' one character, '\'
 * escapes); it shares no code with the kernels.  Random strings and
 * patterns over a small alphabet (ASCII letters of both cases, the
 * metacharacters themselves, two- and three-byte UTF-8 characters) make
 * every shape of pattern common: exact, prefix, suffix, contains, several
 * segments, '_' inside segments, escapes.  vl_select and vl_select_dict
 * must agree with the reference row by row under selection vectors, nulls
 * and NOT.
 *
 * vec_like.c is pure C but lives in src/fdw (its only callers are there),
 * outside the libraries the unit tests link, so it is compiled in here.
 *
 * IDENTIFICATION
 *	  test/unit/test_vec_like.c
 *
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE				/* vec_like.c's memmem */
#include "unit.h"

#include "fdw/vec_like.c"

static bool ref_utf8;
static bool ref_icase;

static size_t
ref_char_len(const uint8_t *s, size_t len)
{
	size_t		n = 1;

	if (!ref_utf8)
		return 1;
	while (n < len && (s[n] & 0xC0) == 0x80)
		n++;
	return n;
}

static uint8_t
ref_fold(uint8_t c)
{
	return ref_icase && c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* Does s match p?  -1 when the pattern ends with the escape. */
static int
ref_like(const uint8_t *s, size_t sl, const uint8_t *p, size_t pl)
{
	if (pl == 0)
		return sl == 0;
	if (p[0] == '%')
	{
		/* try every split at a character boundary, including the end */
		for (size_t at = 0;;)
		{
			int			r = ref_like(s + at, sl - at, p + 1, pl - 1);

			if (r != 0)
				return r;
			if (at >= sl)
				return 0;
			at += ref_char_len(s + at, sl - at);
		}
	}
	if (p[0] == '_')
	{
		size_t		cl;

		if (sl == 0)
			return 0;
		cl = ref_char_len(s, sl);
		return ref_like(s + cl, sl - cl, p + 1, pl - 1);
	}
	if (p[0] == '\\')
	{
		if (pl == 1)
			return -1;
		p++;
		pl--;
	}
	if (sl == 0 || ref_fold(s[0]) != ref_fold(p[0]))
		return 0;
	return ref_like(s + 1, sl - 1, p + 1, pl - 1);
}

static const char *const alphabet[] = {
	"a", "b", "A", "B", "z", "%", "_", "\\", "\xc3\xa9", "\xe2\x82\xac", "\xc3\x89"
};
#define NALPHA (sizeof(alphabet) / sizeof(alphabet[0]))

static uint64_t rng = 0x9E3779B97F4A7C15ull;

/* 0 .. n - 1 from unit.h's generator */
static uint32_t
rnd(uint32_t n)
{
	return (uint32_t) (unit_rand(&rng) % n);
}

/* A random string of up to maxc characters (from the first nalpha). */
static size_t
random_string(uint8_t *out, int maxc, int nalpha)
{
	size_t		len = 0;
	int			n = rnd(maxc + 1);

	for (int i = 0; i < n; i++)
	{
		const char *a = alphabet[rnd(nalpha)];

		memcpy(out + len, a, strlen(a));
		len += strlen(a);
	}
	return len;
}

/* A random pattern: tokens of literals, '%', '_', escapes. */
static size_t
random_pattern(uint8_t *out, int maxt)
{
	size_t		len = 0;
	int			n = rnd(maxt + 1);

	for (int i = 0; i < n; i++)
	{
		switch (rnd(6))
		{
			case 0:
				out[len++] = '%';
				break;
			case 1:
				out[len++] = '_';
				break;
			case 2:
				/* an escaped character, sometimes the trailing escape */
				out[len++] = '\\';
				if (i + 1 < n || rnd(4) != 0)
				{
					const char *a = alphabet[rnd(NALPHA)];

					memcpy(out + len, a, strlen(a));
					len += strlen(a);
				}
				break;
			default:
				{
					const char *a = alphabet[rnd(5) == 0 ? 8 + rnd(3) : rnd(5)];

					if (a[0] == '%' || a[0] == '_' || a[0] == '\\')
						a = "a";
					memcpy(out + len, a, strlen(a));
					len += strlen(a);
				}
		}
	}
	return len;
}

static void
check_fixed(void)
{
	uint8_t		buf[64];
	VlMatcher	m;

	ref_utf8 = true;
	ref_icase = false;
	UNIT_CHECK(vl_compile((const uint8_t *) "ab\\", 3, false, true, buf, &m) == VL_TRAILING_ESCAPE);
	UNIT_CHECK(vl_compile((const uint8_t *) "", 0, false, true, buf, &m) == VL_OK);
	UNIT_CHECK(vl_match(&m, (const uint8_t *) "", 0));
	UNIT_CHECK(!vl_match(&m, (const uint8_t *) "a", 1));
	UNIT_CHECK(vl_compile((const uint8_t *) "%", 1, false, true, buf, &m) == VL_OK);
	UNIT_CHECK(vl_match(&m, (const uint8_t *) "", 0));
	UNIT_CHECK(vl_match(&m, (const uint8_t *) "xyz", 3));
	UNIT_CHECK(vl_compile((const uint8_t *) "%google%", 8, false, true, buf, &m) == VL_OK);
	UNIT_CHECK(vl_match(&m, (const uint8_t *) "http://www.google.com/", 22));
	UNIT_CHECK(!vl_match(&m, (const uint8_t *) "http://www.googl.com/", 21));
	/* "\%" at the end is a literal percent: anchored */
	UNIT_CHECK(vl_compile((const uint8_t *) "%a\\%", 4, false, true, buf, &m) == VL_OK);
	UNIT_CHECK(vl_match(&m, (const uint8_t *) "xa%", 3));
	UNIT_CHECK(!vl_match(&m, (const uint8_t *) "xa%y", 4));
	/* '_' is one code point: "é" is two bytes */
	UNIT_CHECK(vl_compile((const uint8_t *) "_b", 2, false, true, buf, &m) == VL_OK);
	UNIT_CHECK(vl_match(&m, (const uint8_t *) "\xc3\xa9" "b", 3));
	UNIT_CHECK(vl_compile((const uint8_t *) "_b", 2, false, false, buf, &m) == VL_OK);
	UNIT_CHECK(!vl_match(&m, (const uint8_t *) "\xc3\xa9" "b", 3));
	/* ILIKE folds ASCII only */
	UNIT_CHECK(vl_compile((const uint8_t *) "%GOO%", 5, true, true, buf, &m) == VL_OK);
	UNIT_CHECK(vl_match(&m, (const uint8_t *) "xgOoy", 5));
	UNIT_CHECK(vl_compile((const uint8_t *) "\xc3\xa9", 2, true, true, buf, &m) == VL_OK);
	UNIT_CHECK(!vl_match(&m, (const uint8_t *) "\xc3\x89", 2));
}

static void
check_random(bool utf8, bool icase, int rounds)
{
	uint8_t		pat[256];
	uint8_t		buf[600];
	uint8_t		strs[64][128];
	CdcByteView vals[64];
	bool		nulls[64];
	uint32_t	in[64];
	uint32_t	out[64];
	uint32_t	dict_index[64];
	uint8_t		memo[8];
	int			expect[64];

	ref_utf8 = utf8;
	ref_icase = icase;
	for (int round = 0; round < rounds; round++)
	{
		size_t		pl = random_pattern(pat, 10);
		VlMatcher	m;
		VlStatus	st = vl_compile(pat, pl, icase, utf8, buf, &m);
		uint32_t	nin = 0;
		bool		negate = rnd(2);
		uint32_t	k;
		uint32_t	j;
		bool		trailing = false;

		for (int r = 0; r < 64; r++)
		{
			size_t		sl;

			/* rows 32.. repeat 8 dictionary entries */
			if (r < 40)
				sl = random_string(strs[r], 12, NALPHA);
			else
			{
				sl = vals[32 + (r % 8)].len;
				memcpy(strs[r], strs[32 + (r % 8)], sl);
			}
			vals[r].ptr = strs[r];
			vals[r].len = (uint32_t) sl;
			nulls[r] = rnd(8) == 0;
			dict_index[r] = r >= 32 ? (uint32_t) (r % 8) : UINT32_MAX;
			expect[r] = ref_like(strs[r], sl, pat, pl);
			if (rnd(4) != 0)
				in[nin++] = r;
		}
		/* a pattern ending with an unpaired escape is left to PostgreSQL */
		for (size_t i = 0; i < pl; i++)
			if (pat[i] == '\\' && ++i >= pl)
				trailing = true;
		UNIT_CHECKF((st == VL_TRAILING_ESCAPE) == trailing,
					"round %d: status %d, pattern %.*s", round, st, (int) pl, pat);
		if (st != VL_OK)
			continue;
		for (int r = 0; r < 64; r++)
			UNIT_CHECKF(vl_match(&m, vals[r].ptr, vals[r].len) == (expect[r] == 1),
						"pattern '%.*s' string '%.*s' utf8 %d icase %d: expected %d",
						(int) pl, pat, (int) vals[r].len, vals[r].ptr, utf8, icase, expect[r]);
		k = vl_select(&m, negate, vals, nulls, in, nin, out);
		j = 0;
		for (uint32_t i = 0; i < nin; i++)
		{
			uint32_t	r = in[i];

			if (!nulls[r] && (expect[r] == 1) != negate)
			{
				UNIT_CHECKF(j < k && out[j] == r, "vl_select row %u", r);
				j++;
			}
		}
		UNIT_CHECK(j == k);
		/* in place, through the dictionary memo */
		memset(memo, 0, sizeof(memo));
		memcpy(out, in, sizeof(uint32_t) * nin);
		UNIT_CHECK(vl_select_dict(&m, negate, vals, nulls, dict_index, memo,
								  out, nin, out) == k);
		j = 0;
		for (uint32_t i = 0; i < nin; i++)
		{
			uint32_t	r = in[i];

			if (!nulls[r] && (expect[r] == 1) != negate)
			{
				UNIT_CHECKF(j < k && out[j] == r, "vl_select_dict row %u", r);
				j++;
			}
		}
	}
}

/* Long strings: memmem's path and matches near the ends. */
static void
check_long(void)
{
	static uint8_t s[5000];
	uint8_t		buf[64];
	VlMatcher	m;

	ref_utf8 = true;
	ref_icase = false;
	for (int round = 0; round < 200; round++)
	{
		size_t		sl = 0;
		uint8_t		pat[32];
		size_t		pl;

		while (sl < 4000)
			s[sl++] = "abcab"[rnd(5)];
		pl = 0;
		pat[pl++] = '%';
		for (int i = 0, n = 1 + rnd(5); i < n; i++)
			pat[pl++] = "abc"[rnd(3)];
		if (rnd(2))
			pat[pl++] = '%';
		UNIT_CHECK(vl_compile(pat, pl, false, true, buf, &m) == VL_OK);
		UNIT_CHECK(vl_match(&m, s, sl) == (ref_like(s, sl, pat, pl) == 1));
	}
}

int
main(void)
{
	check_fixed();
	check_random(true, false, 20000);
	check_random(true, true, 10000);
	check_random(false, false, 10000);
	check_random(false, true, 5000);
	check_long();
	UNIT_MAIN_END("test_vec_like");
}
