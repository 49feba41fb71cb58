/*-------------------------------------------------------------------------
 *
 * test_vec_regex.c
 *	  The regular expression matcher of src/fdw/vec_regex.c: the subset it
 *	  accepts, answers PostgreSQL gives (written down from psql), and a
 *	  property test against the C library's POSIX matcher.
 *
 * The property: PostgreSQL and POSIX both take the leftmost match and,
 * for these greedy patterns, its longest end; they choose the captures
 * by different rules, but when every parse agrees on them (unique_only)
 * any correct matcher must report those, and PostgreSQL's preference
 * must then give the same.  So for random patterns of the subset (in the
 * syntax both read: no "(?:") and random subjects: vr_test equals
 * regexec's verdict, the match (\&) equals regexec's, and a unique_only
 * answer equals the one built from regexec's captures and the preferred
 * one.  Which parse PostgreSQL prefers otherwise is tested against
 * PostgreSQL itself in sql/agg_regex.sql.
 * The subjects are ASCII there: the C library's ranges in a UTF-8 locale
 * follow collation, PostgreSQL's code points.  Multibyte subjects are
 * covered by the fixed cases here and by sql/agg_regex.sql against
 * PostgreSQL itself.
 *
 * vec_regex.c is pure C but lives in src/fdw, so it is compiled in here.
 *
 * IDENTIFICATION
 *	  test/unit/test_vec_regex.c
 *
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE				/* vec_regex.c's memrchr */
#include "unit.h"

#include <regex.h>

#include "fdw/vec_regex.c"

static VrScratch scratch;

/* regexp_replace(s, pattern, repl) by vr_replace; NULL: no answer. */
static const char *
replace(const char *pattern, const char *repl, const char *s, VrResult *res)
{
	static VrProgram prog;
	static VrReplacement r;
	static uint8_t out[4096];
	size_t		out_len;

	if (vr_compile((const uint8_t *) pattern, strlen(pattern), &prog) != VR_OK ||
		vr_compile_replacement((const uint8_t *) repl, strlen(repl), &r) != VR_OK)
		return "<refused>";
	*res = vr_replace(&prog, &r, (const uint8_t *) s, strlen(s), &scratch, out, &out_len);
	if (*res == VR_NO_MATCH)
		return s;
	if (*res != VR_MATCH)
		return NULL;
	out[out_len] = 0;
	return (const char *) out;
}

static void
check_replace(const char *pattern, const char *repl, const char *s,
			  const char *expect)
{
	VrResult	res = VR_MATCH;
	const char *got = replace(pattern, repl, s, &res);

	UNIT_CHECKF(got != NULL && strcmp(got, expect) == 0,
				"regexp_replace('%s', '%s', '%s') = '%s', expected '%s'",
				s, pattern, repl, got ? got : "<no answer>", expect);
}

static void
check_refused(const char *pattern)
{
	VrProgram	prog;

	UNIT_CHECKF(vr_compile((const uint8_t *) pattern, strlen(pattern), &prog) != VR_OK,
				"'%s' should be refused", pattern);
}

static void
check_test(const char *pattern, const char *s, bool expect)
{
	VrProgram	prog;
	VrResult	res;

	UNIT_CHECK(vr_compile((const uint8_t *) pattern, strlen(pattern), &prog) == VR_OK);
	res = vr_test(&prog, (const uint8_t *) s, strlen(s), &scratch);
	UNIT_CHECKF(res == (expect ? VR_MATCH : VR_NO_MATCH), "'%s' ~ '%s'", s, pattern);
}

static void
fixed_cases(void)
{
	const char *q28 = "^https?://(?:www\\.)?([^/]+)/.*$";

	/* ClickBench Q28 */
	check_replace(q28, "\\1", "http://www.example.com/a/b?c", "example.com");
	check_replace(q28, "\\1", "https://example.com/", "example.com");
	check_replace(q28, "\\1", "https://wwwx.com/z", "wwwx.com");
	check_replace(q28, "\\1", "http://www.com/", "com");
	check_replace(q28, "\\1", "http://example.com", "http://example.com");
	check_replace(q28, "\\1", "ftp://x.org/", "ftp://x.org/");
	check_replace(q28, "\\1", "", "");
	check_replace(q28, "\\1", "http://a/b\nc", "a");	/* '.' matches newline */
	check_replace(q28, "\\1", "http://dé.€😀/x", "dé.€😀");
	/* "www." is optional and [^/]+ could take it: the prefix is longest */
	check_replace(q28, "\\1", "https://www.x/", "x");
	check_replace(q28, "<\\1>\\&", "http://www./", "<www.>http://www./");

	/* the first match only, leftmost then longest */
	check_replace("a+", "X", "baaac aa", "bXc aa");
	check_replace("b|bc", "X", "abcd", "aXd");
	check_replace("", "X", "abc", "Xabc");
	check_replace("x*", "-", "abc", "-abc");
	check_replace("c$", "!", "abc\nc", "abc\n!");
	check_replace("^c", "!", "abc\nc", "abc\nc");
	check_replace("[^a]", "_", "a\nb", "a_b");
	check_replace(".", "_", "é", "_");
	check_replace("[à-ÿ]+", "_", "abçdé", "ab_dé");
	check_replace("[a-]+", "_", "x-a-y", "x_y");
	check_replace("(a)(b*)", "[\\2\\1]", "ac", "[a]c");
	/* PostgreSQL's documentation: earlier subexpressions take priority */
	check_replace("(.*)([0-9]+)(.*)", "\\1,\\2,\\3", "abc01234xyz", "abc0123,4,xyz");
	check_replace("[a-z]*([0-9]{1,3})", "\\1", "xy1234z", "1234z");
	check_replace("(a|ab)(c|bcd)(d*)", "\\1,\\2,\\3", "abcd", "ab,c,d");
	check_replace("(a|ab)(c|bcd)(d*)", "\\1,\\2,\\3", "abcd", "ab,c,d");
	check_replace("(b|a|ab)c", "\\1", "abc", "ab");	/* the first branch that fits */
	check_replace("((a)|(a)b)(c)", "[\\2|\\3]", "abc", "[|a]");
	check_replace("(a)", "\\&\\\\\\3\\x\\", "a", "a\\\\x\\");
	check_replace("a{2,3}", "X", "aaaa", "Xa");
	check_replace("a{2}", "X", "aaaa", "Xaa");
	check_replace("a{2,}", "X", "aaaaa", "X");
	check_replace("(?:ab)+c", "X", "abababc", "X");
	check_replace("\\.\\*", "X", "a.*b", "aXb");
	check_replace("(?:(a)|(a))x", "\\1\\2", "ax", "a");

	check_test("^https?://", "https://x", true);
	check_test("^https?://", "xhttps://x", false);
	check_test("b$", "ab\n", false);
	check_test("é+$", "aéé", true);

	/* outside the subset */
	check_refused("a*?");
	check_refused("a+?");
	check_refused("a??");
	check_refused("a{1,2}?");
	check_refused("a**");
	check_refused("\\d");
	check_refused("\\w+");
	check_refused("\\1");
	check_refused("(a)\\1");
	check_refused("[[:alpha:]]");
	check_refused("[[.a.]]");
	check_refused("[]a]");
	check_refused("[a-c-e]");
	check_refused("[z-a]");
	check_refused("(?i)a");
	check_refused("(?=a)");
	check_refused("***=a");
	check_refused("*a");
	check_refused("a|*");
	check_refused("(a*)*");
	check_refused("(?:a|)+");
	check_refused("(a)+");
	check_refused("(a)?");
	check_refused("^https?://(www\\.)?([^/]+)/.*$");
	check_refused("(?:(a)b)*");
	check_refused("^*");
	check_refused("a{3,2}");
	check_refused("a{256}");
	check_refused("a{,2}");
	check_refused("(a");
	check_refused("a)");
	check_refused("[a");
	check_refused("\\");
	check_refused("\xff");
}

/* ---------------------------------------------------------------- */
/* The property test against regexec */

static uint64_t rng = 0x9E3779B97F4A7C15ull;

/* 0 .. n - 1 from unit.h's generator */
static uint32_t
rnd(uint32_t n)
{
	return (uint32_t) (unit_rand(&rng) % n);
}

static const char alphabet[] = "/:.whtps";

static void gen_alt(char **o, int depth, int *groups);

/* An atom that cannot match empty, with its quantifier. */
static void
gen_piece(char **o, int depth, int *groups)
{
	bool		quantified = rnd(3) == 0;

	switch (rnd(depth < 2 ? 7 : 5))
	{
		case 0:
		case 1:
			*(*o)++ = alphabet[rnd(sizeof(alphabet) - 1)];
			if ((*o)[-1] == '.' && rnd(2))
			{
				(*o)[-1] = '\\';
				*(*o)++ = '.';
			}
			break;
		case 2:
			*(*o)++ = '.';
			break;
		case 3:
			*(*o)++ = '[';
			if (rnd(2))
				*(*o)++ = '^';
			for (int i = 1 + rnd(3); i > 0; i--)
			{
				char		a = alphabet[rnd(sizeof(alphabet) - 1)];
				char		b = alphabet[rnd(sizeof(alphabet) - 1)];

				*(*o)++ = a < b ? a : b;
				if (a != b && rnd(2))
				{
					*(*o)++ = '-';
					*(*o)++ = a < b ? b : a;
				}
			}
			*(*o)++ = ']';
			break;
		case 4:
			*(*o)++ = rnd(2) ? '^' : '$';
			return;				/* zero-width: never quantified */
		default:
			/* in POSIX syntax every group captures: never quantified */
			if (*groups >= 9)
			{
				*(*o)++ = 'w';
				break;
			}
			(*groups)++;
			*(*o)++ = '(';
			gen_alt(o, depth + 1, groups);
			*(*o)++ = ')';
			return;
	}
	if (quantified)
	{
		static const char *const q[] = {"?", "*", "+", "{2}", "{1,3}", "{0,2}", "{2,}"};

		strcpy(*o, q[rnd(7)]);
		*o += strlen(*o);
	}
}

static void
gen_cat(char **o, int depth, int *groups)
{
	for (int i = 1 + rnd(4); i > 0; i--)
		gen_piece(o, depth, groups);
}

static void
gen_alt(char **o, int depth, int *groups)
{
	gen_cat(o, depth, groups);
	while (rnd(4) == 0)
	{
		*(*o)++ = '|';
		gen_cat(o, depth, groups);
	}
}

/* What regexp_replace gives from regexec's match. */
static void
posix_replace(const char *s, const regmatch_t *m, int ngroups, const char *repl,
			  char *out)
{
	char	   *o = out;

	memcpy(o, s, m[0].rm_so);
	o += m[0].rm_so;
	for (const char *p = repl; *p; p++)
	{
		int			g = -1;

		if (*p == '\\' && p[1] >= '1' && p[1] <= '9')
			g = p[1] - '0';
		else if (*p == '\\' && p[1] == '&')
			g = 0;
		if (g >= 0)
		{
			if (g <= ngroups && m[g].rm_so >= 0)
			{
				memcpy(o, s + m[g].rm_so, m[g].rm_eo - m[g].rm_so);
				o += m[g].rm_eo - m[g].rm_so;
			}
			p++;
		}
		else
			*o++ = *p;
	}
	strcpy(o, s + m[0].rm_eo);
}

static void
property_test(void)
{
	int			answered = 0;
	int			patterns = 0;

	for (int iter = 0; iter < 3000; iter++)
	{
		char		pattern[512];
		char	   *o = pattern;
		int			groups = 0;
		VrProgram	prog;
		VrReplacement r;
		VrReplacement whole;
		regex_t		re;
		char		repl[16];

		gen_alt(&o, 0, &groups);
		*o = 0;
		if (o - pattern > 200 ||
			vr_compile((const uint8_t *) pattern, strlen(pattern), &prog) != VR_OK)
			continue;
		if (regcomp(&re, pattern, REG_EXTENDED) != 0)
			continue;
		patterns++;
		snprintf(repl, sizeof(repl), "<\\%d\\&\\%d>", 1 + rnd(groups + 1), 1 + rnd(3));
		UNIT_CHECK(vr_compile_replacement((const uint8_t *) repl, strlen(repl), &r) == VR_OK);
		UNIT_CHECK(vr_compile_replacement((const uint8_t *) "<\\&>", 4, &whole) == VR_OK);
		for (int k = 0; k < 40; k++)
		{
			char		s[64];
			int			n = rnd(20);
			regmatch_t	m[10];
			int			rc;
			uint8_t		out[1024];
			uint8_t		pref[1024];
			size_t		pref_len = 0;
			char		expect[1024];
			size_t		out_len;
			VrResult	res;

			for (int i = 0; i < n; i++)
				s[i] = alphabet[rnd(sizeof(alphabet) - 1)];
			s[n] = 0;
			rc = regexec(&re, s, 10, m, 0);
			res = vr_test(&prog, (const uint8_t *) s, n, &scratch);
			UNIT_CHECKF(res == (rc == 0 ? VR_MATCH : VR_NO_MATCH),
						"'%s' ~ '%s': %d, regexec %d", s, pattern, res, rc);
			/* PostgreSQL's preference: the match itself must be POSIX's */
			res = vr_replace(&prog, &whole, (const uint8_t *) s, n, &scratch, out, &out_len);
			UNIT_CHECK(res == (rc == 0 ? VR_MATCH : VR_NO_MATCH));
			if (res == VR_MATCH && rc == 0)
			{
				posix_replace(s, m, groups, "<\\&>", expect);
				UNIT_CHECKF(out_len == strlen(expect) && memcmp(out, expect, out_len) == 0,
							"regexp_replace('%s', '%s', '<\\&>') = '%.*s', regexec '%s'",
							s, pattern, (int) out_len, out, expect);
			}
			res = vr_replace(&prog, &r, (const uint8_t *) s, n, &scratch, pref, &pref_len);
			UNIT_CHECK(res == (rc == 0 ? VR_MATCH : VR_NO_MATCH) || res == VR_AMBIGUOUS);
			/* every parse agreeing: any correct matcher's captures */
			prog.unique_only = true;
			res = vr_replace(&prog, &r, (const uint8_t *) s, n, &scratch, out, &out_len);
			prog.unique_only = false;
			if (res == VR_NO_MATCH)
				UNIT_CHECKF(rc != 0, "'%s' ~ '%s': no match, regexec matched", s, pattern);
			else if (res == VR_MATCH)
			{
				UNIT_CHECKF(rc == 0, "'%s' ~ '%s': match, regexec none", s, pattern);
				if (rc != 0)
					continue;
				posix_replace(s, m, groups, repl, expect);
				UNIT_CHECKF(out_len == strlen(expect) && memcmp(out, expect, out_len) == 0,
							"regexp_replace('%s', '%s', '%s') = '%.*s', regexec '%s'",
							s, pattern, repl, (int) out_len, out, expect);
				UNIT_CHECK(pref_len == out_len && memcmp(pref, out, out_len) == 0);
				answered++;
			}
			else
				UNIT_CHECKF(res == VR_AMBIGUOUS, "'%s' ~ '%s': %d", s, pattern, res);
		}
		regfree(&re);
	}
	/* the test means something only if most subjects get an answer */
	UNIT_CHECKF(patterns > 1000, "%d patterns", patterns);
	UNIT_CHECKF(answered > 10000, "%d answers", answered);
}

int
main(void)
{
	fixed_cases();
	property_test();
	UNIT_MAIN_END("test_vec_regex");
}
