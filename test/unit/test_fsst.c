/*-------------------------------------------------------------------------
 *
 * test_fsst.c
 *	  Unit tests of FSST (fsst.h): a symbol table and a code stream built by
 *	  hand from amudai-format.md 4.3, error cases, and round trips of
 *	  arbitrary binary (empty strings, byte 255, random bytes, text).
 *
 * IDENTIFICATION
 *	  test/unit/test_fsst.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "codec_test_util.h"
#include "codec/fsst.h"

/*
 * Two symbols: 0 = "ab" (u64 LE 61 62 00 ..), 1 = "hello" (68 65 6c 6c 6f
 * 00 00 00); lengths 02 05.  Codes 01 | 00 | FF FF | 00 | FF 00 decode
 * to "hello" "ab" 0xFF (escaped) "ab" 0x00 (escaped).
 */
static const uint8_t hand_table[18] = {
	0x61, 0x62, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x68, 0x65, 0x6C, 0x6C, 0x6F, 0x00, 0x00, 0x00,
	0x02, 0x05
};

static void
test_hand(void)
{
	CdcFsstTable t;
	static const uint8_t codes[7] = {0x01, 0x00, 0xFF, 0xFF, 0x00, 0xFF, 0x00};
	static const uint8_t expect[11] = {'h', 'e', 'l', 'l', 'o', 'a', 'b', 0xFF, 'a', 'b', 0x00};
	uint8_t		out[64 + CDC_FSST_OUTPUT_SLACK];
	uint8_t		again[18];
	size_t		n = 0;
	static const uint8_t bad_code[3] = {0x00, 0x02, 0x00};
	static const uint8_t bad_escape[2] = {0x00, 0xFF};
	uint8_t		bad_len[18];

	UNIT_CHECK(cdc_fsst_table_parse(hand_table, 18, 2, &t) == CDC_OK);
	UNIT_CHECK(t.count == 2 && t.lengths[1] == 5 && t.symbols[0] == 0x6261);
	UNIT_CHECK(cdc_fsst_decompress(&t, codes, 7, out, 64, &n) == CDC_OK);
	UNIT_CHECK(n == 11);
	UNIT_CHECK_MEM(out, expect, 11);
	/* exact capacity, one byte short */
	UNIT_CHECK(cdc_fsst_decompress(&t, codes, 7, out, 11, &n) == CDC_OK && n == 11);
	UNIT_CHECK(cdc_fsst_decompress(&t, codes, 7, out, 10, &n) == CDC_ERR_OUTPUT_FULL);
	UNIT_CHECK(cdc_fsst_decompress(&t, codes, 0, out, 0, &n) == CDC_OK && n == 0);
	UNIT_CHECK(cdc_fsst_decompress(&t, NULL, 0, out, 0, &n) == CDC_OK && n == 0);
	/* serialization round trip */
	UNIT_CHECK(cdc_fsst_table_size(&t) == 18);
	UNIT_CHECK(cdc_fsst_table_write(&t, again, 18, &n) == CDC_OK && n == 18);
	UNIT_CHECK_MEM(again, hand_table, 18);
	UNIT_CHECK(cdc_fsst_table_write(&t, again, 17, &n) == CDC_ERR_OUTPUT_FULL);
	/* errors */
	UNIT_CHECK(cdc_fsst_decompress(&t, bad_code, 3, out, 64, &n) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_fsst_decompress(&t, bad_escape, 2, out, 64, &n) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_fsst_table_parse(hand_table, 17, 2, &t) == CDC_ERR_TRUNCATED);
	memcpy(bad_len, hand_table, 18);
	bad_len[17] = 9;
	UNIT_CHECK(cdc_fsst_table_parse(bad_len, 18, 2, &t) == CDC_ERR_CORRUPT);
	bad_len[17] = 0;
	UNIT_CHECK(cdc_fsst_table_parse(bad_len, 18, 2, &t) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_fsst_table_parse(hand_table, 18 * 100, 256, &t) == CDC_ERR_CORRUPT);
}

/* A bad code deep inside a long stream (the unchecked block path). */
static void
test_bad_code_in_block(void)
{
	CdcFsstTable t;
	uint8_t		codes[1000];
	uint8_t    *out = malloc(8 * 1000 + CDC_FSST_OUTPUT_SLACK);
	size_t		n;

	cdc_fsst_table_parse(hand_table, 18, 2, &t);
	for (int i = 0; i < 1000; i++)
		codes[i] = (uint8_t) (i % 2);
	UNIT_CHECK(cdc_fsst_decompress(&t, codes, 1000, out, 8000, &n) == CDC_OK && n == 500 * 7);
	codes[300] = 7;
	UNIT_CHECK(cdc_fsst_decompress(&t, codes, 1000, out, 8000, &n) == CDC_ERR_CORRUPT);
	codes[300] = 0;
	codes[999] = 0xFF;
	UNIT_CHECK(cdc_fsst_decompress(&t, codes, 1000, out, 8000, &n) == CDC_ERR_CORRUPT);
	free(out);
}

/* Build from the strings, compress their concatenation, decompress, compare;
 * also every prefix of the code stream from a guarded buffer: a clean
 * status and, when OK, a prefix of the original.  Returns compressed size. */
static size_t
roundtrip(const CdcByteView *strs, size_t count, bool prefixes)
{
	CdcFsstBuilder *b = malloc(sizeof(CdcFsstBuilder));
	CdcFsstTable t,
				t2;
	size_t		total = 0,
				pos = 0,
				clen = 0,
				n = 0;
	uint8_t    *raw,
			   *comp,
			   *out,
			   *ser;
	GuardBuf	g;
	bool		ok = true;

	for (size_t i = 0; i < count; i++)
		total += strs[i].len;
	raw = malloc(total + 1);
	comp = malloc(cdc_fsst_max_compressed(total) + 1);
	out = malloc(total + 1 + CDC_FSST_OUTPUT_SLACK);
	ser = malloc(9 * 255);
	for (size_t i = 0; i < count; i++)
	{
		if (strs[i].len)
			memcpy(raw + pos, strs[i].ptr, strs[i].len);
		pos += strs[i].len;
	}
	UNIT_CHECK(cdc_fsst_build(b, strs, count, &t) == CDC_OK);
	UNIT_CHECK(t.count <= 255);
	/* the table survives serialization */
	UNIT_CHECK(cdc_fsst_table_write(&t, ser, 9 * 255, &n) == CDC_OK);
	UNIT_CHECK(cdc_fsst_table_parse(ser, n, t.count, &t2) == CDC_OK);
	UNIT_CHECK(cdc_fsst_compress(&t2, raw, total, comp, cdc_fsst_max_compressed(total), &clen) == CDC_OK);
	UNIT_CHECK(cdc_fsst_decompress(&t2, comp, clen, out, total, &n) == CDC_OK);
	UNIT_CHECK(n == total && (total == 0 || memcmp(out, raw, total) == 0));
	if (clen > 0)
		UNIT_CHECK(cdc_fsst_compress(&t2, raw, total, comp, clen - 1, &n) == CDC_ERR_OUTPUT_FULL);
	if (prefixes)
	{
		g = guard_alloc(clen + 4096);
		for (size_t len = 0; len <= clen; len += 1 + len / 16)
		{
			const uint8_t *in = guarded_input(&g, comp, len);
			CdcStatus	st = cdc_fsst_decompress(&t2, in, len, out, total, &n);

			if (st == CDC_OK)
				ok &= n <= total && memcmp(out, raw, n) == 0;
			else
				ok &= st == CDC_ERR_CORRUPT && len > 0 && comp[len - 1] == 0xFF;
		}
		UNIT_CHECK(ok);
	}
	free(b);
	free(raw);
	free(comp);
	free(out);
	free(ser);
	return clen;
}

static void
test_roundtrips(void)
{
	enum { N = 2000 };
	static const char *words[] = {
		"https://", "www.", "example", ".com/", "index", ".html", "the ", "quick ",
		"brown ", "fox ", "jumps ", "over ", "lazy ", "dog", "postgres", "parquet"
	};
	CdcByteView *v = malloc(N * sizeof(CdcByteView));
	uint8_t    *arena = malloc(N * 200);
	uint64_t	s = 5;
	size_t		used = 0,
				total = 0,
				clen;

	/* text-like: words, some empty strings */
	for (int i = 0; i < N; i++)
	{
		int			k = (int) (unit_rand(&s) % 6);

		v[i].ptr = arena + used;
		v[i].len = 0;
		for (int j = 0; j < k; j++)
		{
			const char *w = words[unit_rand(&s) % 16];

			memcpy(arena + used, w, strlen(w));
			used += strlen(w);
			v[i].len += (uint32_t) strlen(w);
		}
		total += v[i].len;
	}
	clen = roundtrip(v, N, true);
	UNIT_CHECKF(clen * 3 < total, "text compresses %zu -> %zu", total, clen);

	/* random binary with many 0xFF bytes */
	used = 0;
	for (int i = 0; i < N; i++)
	{
		uint32_t	len = (uint32_t) (unit_rand(&s) % 40);

		v[i].ptr = arena + used;
		v[i].len = len;
		for (uint32_t j = 0; j < len; j++)
			arena[used++] = (unit_rand(&s) % 3 == 0) ? 0xFF : (uint8_t) unit_rand(&s);
	}
	roundtrip(v, N, true);

	/* only empty strings, one string, all 0xFF */
	for (int i = 0; i < 10; i++)
		v[i].len = 0;
	UNIT_CHECK(roundtrip(v, 10, false) == 0);
	memset(arena, 0xFF, 3000);
	v[0].ptr = arena;
	v[0].len = 3000;
	clen = roundtrip(v, 1, true);
	UNIT_CHECKF(clen <= 3000 / 8 + 1, "0xFF run compresses to %zu", clen);
	free(v);
	free(arena);
}

int
main(void)
{
	test_hand();
	test_bad_code_in_block();
	test_roundtrips();
	UNIT_MAIN_END("test_fsst");
}
