/*-------------------------------------------------------------------------
 *
 * test_amudai_values.c
 *	  Value-encoding sections of Amudai blocks (format notes, section 4),
 *	  from hand-built byte vectors: every numeric encoding, cascades, the
 *	  binary encodings, and hostile variations.
 *
 * Sections are written here from the document's layouts; compressed
 * payloads come from libzstd / liblz4 directly, FastLanes payloads from a
 * packer written here from the layout formula of section 4.4, and expected
 * ALP values from the decode formula of 4.2 evaluated in the test.
 *
 * IDENTIFICATION
 *	  test/unit/test_amudai_values.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "amudai_test_util.h"

#include <lz4.h>
#include <math.h>
#include <zstd.h>

static const PfcAllocator *A = &pfc_malloc_allocator;

/* Decode a numeric section and compare with expect (n values of size). */
static void
check_num(const TBuf *s, AmNumType t, size_t n, const void *expect,
		  const char *what)
{
	size_t		size = am_num_type_size(t);
	uint8_t    *out = malloc(n * size + 1);
	AmError		err;
	AmStatus	st;

	am_error_clear(&err);
	{
		uint8_t		hdr[3] = {(uint8_t) t, (uint8_t) n, (uint8_t) (n >> 8)};
		char		name[64];

		snprintf(name, sizeof(name), "num_%s", what);
		for (char *p = name; *p; p++)
			if (*p == ' ' || *p == '>' || *p == '-')
				*p = '_';
		t_dump_seed(name, hdr, 3, s->data, s->len);
	}
	st = am_decode_numeric(s->data, s->len, t, n, out, A, &err);
	UNIT_CHECKF(st == AM_OK, "%s: %s", what, err.message);
	if (st == AM_OK)
		UNIT_CHECKF(memcmp(out, expect, n * size) == 0, "%s: values differ", what);

	/* every truncation is an error, never an out-of-bounds read */
	for (size_t k = 0; k < s->len; k++)
	{
		uint8_t    *copy = malloc(k + 1);

		memcpy(copy, s->data, k);
		st = am_decode_numeric(copy, k, t, n, out, A, &err);
		UNIT_CHECKF(st != AM_OK || n == 0, "%s: truncated to %zu accepted", what, k);
		free(copy);
	}
	free(out);
}

static AmStatus
decode_status(const TBuf *s, AmNumType t, size_t n)
{
	uint8_t    *out = malloc(n * 8 + 8);
	AmError		err;
	AmStatus	st = am_decode_numeric(s->data, s->len, t, n, out, A, &err);

	free(out);
	return st;
}

/* [u16 1][raw values] */
static void
put_plain(TBuf *b, const void *values, size_t bytes)
{
	tb_u16(b, AM_ENC_PLAIN);
	tb_put(b, values, bytes);
}

static void
test_plain_single(void)
{
	TBuf		s = {0};
	static const int64_t v[3] = {42, -7, (INT64_C(1) << 40) + 5};
	static const uint32_t sv[5] = {42, 42, 42, 42, 42};

	/* Appendix A's value section */
	put_plain(&s, v, sizeof(v));
	UNIT_CHECK(s.len == 26);
	check_num(&s, AM_NUM_I64, 3, v, "plain i64");
	UNIT_CHECK(decode_status(&s, AM_NUM_I64, 2) == AM_ERR_CORRUPT);
	UNIT_CHECK(decode_status(&s, AM_NUM_I64, 4) == AM_ERR_CORRUPT);
	tb_free(&s);

	tb_u16(&s, AM_ENC_SINGLE_VALUE);
	tb_u32(&s, 42);
	check_num(&s, AM_NUM_U32, 5, sv, "single u32");
	UNIT_CHECK(decode_status(&s, AM_NUM_U64, 5) == AM_ERR_CORRUPT);
	tb_free(&s);

	/* unknown kinds */
	tb_u16(&s, 20);
	tb_u32(&s, 0);
	UNIT_CHECK(decode_status(&s, AM_NUM_U32, 1) == AM_ERR_CORRUPT);
	s.data[0] = 0;
	UNIT_CHECK(decode_status(&s, AM_NUM_U32, 1) == AM_ERR_CORRUPT);
	tb_free(&s);
}

static void
test_for_delta(void)
{
	TBuf		s = {0};
	static const int32_t for_exp[3] = {-100, -95, 100};
	static const uint32_t deltas[3] = {0, 5, 200};
	static const uint64_t wrap_d[2] = {0, 1};
	static const int64_t wrap_exp[2] = {INT64_MAX, INT64_MIN};
	static const int64_t diffs[2] = {1, -3};
	static const int64_t delta_exp[3] = {10, 11, 8};

	/* FOR i32: ref at +2, payload at +8 */
	tb_u16(&s, AM_ENC_FOR);
	tb_u32(&s, (uint32_t) -100);
	tb_zeros(&s, 2);
	put_plain(&s, deltas, sizeof(deltas));
	check_num(&s, AM_NUM_I32, 3, for_exp, "for i32");
	tb_free(&s);

	/* FOR i64: ref at +2, payload at +16; wrapping */
	tb_u16(&s, AM_ENC_FOR);
	tb_u64(&s, (uint64_t) INT64_MAX);
	tb_zeros(&s, 6);
	put_plain(&s, wrap_d, sizeof(wrap_d));
	UNIT_CHECK(s.len == 16 + 2 + 16);
	check_num(&s, AM_NUM_I64, 2, wrap_exp, "for i64 wrap");
	/* not for floats */
	UNIT_CHECK(decode_status(&s, AM_NUM_F64, 2) == AM_ERR_CORRUPT);
	tb_free(&s);

	/* Delta i64: base at +2, payload at +16 */
	tb_u16(&s, AM_ENC_DELTA);
	tb_u64(&s, 10);
	tb_zeros(&s, 6);
	put_plain(&s, diffs, sizeof(diffs));
	check_num(&s, AM_NUM_I64, 3, delta_exp, "delta i64");
	tb_free(&s);

	/* Delta i32 -> ZigZag (cascading) -> Plain u32: diffs 2, -1, 0 */
	{
		static const uint32_t zz[3] = {4, 1, 0};
		static const int32_t exp[4] = {-5, -3, -4, -4};

		tb_u16(&s, AM_ENC_DELTA);
		tb_u32(&s, (uint32_t) -5);
		tb_zeros(&s, 2);
		tb_u16(&s, AM_ENC_ZIGZAG);
		tb_byte(&s, 1);
		tb_zeros(&s, 5);
		put_plain(&s, zz, sizeof(zz));
		check_num(&s, AM_NUM_I32, 4, exp, "delta->zigzag->plain i32");
		tb_free(&s);
	}
}

static void
test_run_length(void)
{
	TBuf		s = {0};
	static const uint16_t exp[6] = {7, 7, 8, 9, 9, 9};
	static const uint16_t exp2[4] = {5, 5, 6, 6};

	/* raw values and raw lengths */
	tb_u16(&s, AM_ENC_RUN_LENGTH);
	tb_u32(&s, 6);				/* values_size */
	tb_u32(&s, 3);				/* runs_count */
	tb_byte(&s, 0);
	tb_byte(&s, 0);
	tb_zeros(&s, 4);			/* payload at +16 */
	tb_u16(&s, 7);
	tb_u16(&s, 8);
	tb_u16(&s, 9);
	tb_zeros(&s, 2);			/* pad to 8 */
	tb_u32(&s, 2);
	tb_u32(&s, 1);
	tb_u32(&s, 3);
	check_num(&s, AM_NUM_U16, 6, exp, "rle raw");
	UNIT_CHECK(decode_status(&s, AM_NUM_U16, 7) == AM_ERR_CORRUPT);
	UNIT_CHECK(decode_status(&s, AM_NUM_U16, 5) == AM_ERR_CORRUPT);
	tb_free(&s);

	/* cascaded values (Plain) and lengths (SingleValue 2) */
	tb_u16(&s, AM_ENC_RUN_LENGTH);
	tb_u32(&s, 6);
	tb_u32(&s, 2);
	tb_byte(&s, 1);
	tb_byte(&s, 1);
	tb_zeros(&s, 4);
	tb_u16(&s, AM_ENC_PLAIN);
	tb_u16(&s, 5);
	tb_u16(&s, 6);
	tb_zeros(&s, 2);
	tb_u16(&s, AM_ENC_SINGLE_VALUE);
	tb_u32(&s, 2);
	check_num(&s, AM_NUM_I16, 4, exp2, "rle cascaded");
	tb_free(&s);
}

static void
test_truncate_zigzag(void)
{
	TBuf		s = {0};
	static const int32_t t8_exp[3] = {-1, 127, -128};
	static const uint16_t t16_raw[3] = {0xFFFE, 0x7FFF, 0x8000};
	static const int64_t t16_exp[3] = {-2, 32767, -32768};
	static const uint64_t zz[5] = {0, 1, 2, 3, UINT64_MAX};
	static const int64_t zz_exp[5] = {0, -1, 1, -2, INT64_MIN};

	tb_u16(&s, AM_ENC_TRUNCATE_U8);
	tb_byte(&s, 0);
	tb_zeros(&s, 5);
	tb_byte(&s, 0xFF);
	tb_byte(&s, 0x7F);
	tb_byte(&s, 0x80);
	check_num(&s, AM_NUM_I32, 3, t8_exp, "truncate u8 raw");
	UNIT_CHECK(decode_status(&s, AM_NUM_U32, 3) == AM_ERR_CORRUPT);
	tb_free(&s);

	tb_u16(&s, AM_ENC_TRUNCATE_U16);
	tb_byte(&s, 1);
	tb_zeros(&s, 5);
	put_plain(&s, t16_raw, sizeof(t16_raw));
	check_num(&s, AM_NUM_I64, 3, t16_exp, "truncate u16 cascaded");
	tb_free(&s);

	/* TruncateU64 on i32 is not allowed; TruncateU32 on i32 is a no-op */
	tb_u16(&s, AM_ENC_TRUNCATE_U64);
	tb_byte(&s, 0);
	tb_zeros(&s, 5);
	tb_u64(&s, 1);
	UNIT_CHECK(decode_status(&s, AM_NUM_I32, 2) == AM_ERR_CORRUPT);
	tb_free(&s);
	{
		static const int32_t same[2] = {-9, 9};

		tb_u16(&s, AM_ENC_TRUNCATE_U32);
		tb_byte(&s, 0);
		tb_zeros(&s, 5);
		tb_u32(&s, (uint32_t) -9);
		tb_u32(&s, 9);
		check_num(&s, AM_NUM_I32, 2, same, "truncate u32 on i32");
		tb_free(&s);
	}

	tb_u16(&s, AM_ENC_ZIGZAG);
	tb_byte(&s, 1);
	tb_zeros(&s, 5);
	put_plain(&s, zz, sizeof(zz));
	check_num(&s, AM_NUM_I64, 5, zz_exp, "zigzag i64");
	UNIT_CHECK(decode_status(&s, AM_NUM_U64, 5) == AM_ERR_CORRUPT);
	tb_free(&s);
}

static void
test_dictionary_sparse(void)
{
	TBuf		s = {0};
	static const uint32_t codes[4] = {1, 2, 0, 1};
	static const int64_t dict[2] = {100, -5};
	static const int64_t exp[4] = {100, -5, 0, 100};

	tb_u16(&s, AM_ENC_BLOCK_DICTIONARY);
	tb_u32(&s, 18);				/* codes_size: Plain u32 x 4 */
	tb_u32(&s, 2);
	tb_byte(&s, 0);
	tb_zeros(&s, 5);
	put_plain(&s, codes, sizeof(codes));
	tb_put(&s, dict, sizeof(dict));	/* right after the codes, no pad */
	check_num(&s, AM_NUM_I64, 4, exp, "block dictionary i64");
	/* code 3 is out of range */
	s.data[16 + 2 + 4] = 3;
	UNIT_CHECK(decode_status(&s, AM_NUM_I64, 4) == AM_ERR_CORRUPT);
	tb_free(&s);

	/* Sparse f64: 6 slots, values at 1 and 4 (-0.0 stays -0.0) */
	{
		double		e[6] = {0, 1.5, 0, 0, -0.0, 0};
		double		vals[2] = {1.5, -0.0};

		tb_u16(&s, AM_ENC_SPARSE);
		tb_u32(&s, 2);
		tb_u32(&s, 8);
		tb_byte(&s, 0);
		tb_byte(&s, 0);
		tb_zeros(&s, 4);
		tb_u32(&s, 1);
		tb_u32(&s, 4);
		tb_put(&s, vals, sizeof(vals));
		check_num(&s, AM_NUM_F64, 6, e, "sparse f64");
		UNIT_CHECK(decode_status(&s, AM_NUM_F64, 4) == AM_ERR_CORRUPT);
		/* descending positions */
		s.data[16] = 5;
		UNIT_CHECK(decode_status(&s, AM_NUM_F64, 6) == AM_ERR_CORRUPT);
		tb_free(&s);
	}
}

static void
test_generic(void)
{
	TBuf		s = {0};
	uint32_t	vals[3000];
	char		comp[20000];
	size_t		clen;
	int			ilen;

	for (int i = 0; i < 3000; i++)
		vals[i] = (uint32_t) (i * 7 % 1000);

	clen = ZSTD_compress(comp, sizeof(comp), vals, sizeof(vals), 3);
	UNIT_CHECK(!ZSTD_isError(clen));
	tb_u16(&s, AM_ENC_ZSTD);
	tb_zeros(&s, 6);
	tb_put(&s, comp, clen);
	check_num(&s, AM_NUM_U32, 3000, vals, "zstd u32");
	UNIT_CHECK(decode_status(&s, AM_NUM_U32, 2999) == AM_ERR_CORRUPT);
	tb_free(&s);

	ilen = LZ4_compress_default((const char *) vals, comp, sizeof(vals), sizeof(comp));
	UNIT_CHECK(ilen > 0);
	tb_u16(&s, AM_ENC_LZ4);
	tb_zeros(&s, 6);
	tb_u32(&s, sizeof(vals));
	tb_put(&s, comp, (size_t) ilen);
	check_num(&s, AM_NUM_I32, 3000, vals, "lz4 i32");
	tb_free(&s);
}

/*
 * FastLanes packing written from section 4.4: row r of lane l holds element
 * 128 * (r % 8) + 16 * ORDER[r / 8] + l; each lane's rows form an LSB-first
 * bit stream of W-bit values cut into T-bit words; word k of lane l is at
 * k * LANES + l.
 */
static void
fl_pack64(const uint64_t *in, size_t n, unsigned bits, unsigned w,
		  TBuf *out)
{
	static const int order[8] = {0, 4, 2, 6, 1, 5, 3, 7};
	unsigned	lanes = 1024 / bits;
	uint64_t	mask = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
	uint64_t	tmask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;

	for (size_t chunk = 0; chunk * 1024 < n; chunk++)
	{
		uint64_t   *words = calloc((size_t) w * lanes, 8);

		for (unsigned l = 0; l < lanes; l++)
			for (unsigned r = 0; r < bits; r++)
			{
				size_t		idx = 128 * (r % 8) + 16 * order[r / 8] + l;
				size_t		at = chunk * 1024 + idx;
				uint64_t	v = (at < n ? in[at] : 0) & mask;
				unsigned	p = r * w;
				unsigned	k = p / bits,
							shift = p % bits;

				words[(size_t) k * lanes + l] |= (v << shift) & tmask;
				if (shift + w > bits)
					words[(size_t) (k + 1) * lanes + l] |= v >> (bits - shift);
			}
		for (size_t i = 0; i < (size_t) w * lanes; i++)
			for (unsigned b = 0; b < bits / 8; b++)
				tb_byte(out, (uint8_t) (words[i] >> (8 * b)));
		free(words);
	}
}

static void
test_fastlanes(void)
{
	TBuf		s = {0};
	uint64_t	src[1500];
	uint32_t	exp32[1500];
	int64_t		exp64[1500];
	uint64_t	ureq[1500];

	/* FLBitPack u32, width 3, two chunks (the second zero-padded) */
	for (int i = 0; i < 1500; i++)
	{
		src[i] = (uint64_t) (i * 5 % 8);
		exp32[i] = (uint32_t) src[i];
	}
	tb_u16(&s, AM_ENC_FLBITPACK);
	tb_byte(&s, 3);
	tb_zeros(&s, 5);
	fl_pack64(src, 1500, 32, 3, &s);
	UNIT_CHECK(s.len == 8 + 2 * 128 * 3);
	check_num(&s, AM_NUM_U32, 1500, exp32, "flbitpack u32 w3");
	UNIT_CHECK(decode_status(&s, AM_NUM_I32, 1500) == AM_ERR_CORRUPT);
	tb_free(&s);

	/* FFOR i64, reference -1000, width 11 (values -1000 .. 1047) */
	for (int i = 0; i < 1500; i++)
	{
		exp64[i] = -1000 + (int64_t) ((i * 37) % 2048);
		ureq[i] = (uint64_t) (exp64[i] - (-1000));
	}
	tb_u16(&s, AM_ENC_FFOR);
	tb_u64(&s, (uint64_t) (int64_t) -1000);
	tb_byte(&s, 11);
	tb_zeros(&s, 5);
	fl_pack64(ureq, 1500, 64, 11, &s);
	check_num(&s, AM_NUM_I64, 1500, exp64, "ffor i64 w11");
	/* width 65 is corrupt */
	s.data[10] = 65;
	UNIT_CHECK(decode_status(&s, AM_NUM_I64, 1500) == AM_ERR_CORRUPT);
	tb_free(&s);
}

static void
test_alp(void)
{
	TBuf		s = {0};
	static const int64_t ints[3] = {123, -456, 0};
	double		exp[3];
	uint64_t	nan_bits = UINT64_C(0x7FF8000000000123);

	/* e = 2, f = 0: x = (double) k * 10^0 * 10^-2, left to right */
	exp[0] = (double) ints[0] * 1.0 * 0.01;
	exp[1] = (double) ints[1] * 1.0 * 0.01;
	memcpy(&exp[2], &nan_bits, 8);
	tb_u16(&s, AM_ENC_ALP);
	tb_u32(&s, 2 + 24);			/* integers_size */
	tb_u16(&s, 1);				/* exceptions_count */
	tb_byte(&s, 2);				/* e */
	tb_byte(&s, 0);				/* f */
	tb_zeros(&s, 6);
	put_plain(&s, ints, sizeof(ints));
	tb_u32(&s, 2);				/* exception position */
	tb_u64(&s, nan_bits);		/* exception value */
	check_num(&s, AM_NUM_F64, 3, exp, "alp f64");
	UNIT_CHECK(decode_status(&s, AM_NUM_I64, 3) == AM_ERR_CORRUPT);
	tb_free(&s);

	/* ALPRD f64: R = 48, dictionary [0x3FF0]; right parts 0 and 1 */
	{
		static const uint16_t codes[2] = {0, 0};
		static const uint64_t right[2] = {0, 1};
		double		e2[2];

		e2[0] = 1.0;
		e2[1] = nextafter(1.0, 2.0);
		tb_u16(&s, AM_ENC_ALPRD);
		tb_u32(&s, 2 + 4);		/* left parts size */
		tb_u32(&s, 2 + 16);		/* right parts size */
		tb_u16(&s, 0);
		tb_byte(&s, 48);
		tb_byte(&s, 1);
		tb_zeros(&s, 2);
		tb_u16(&s, 0x3FF0);
		put_plain(&s, codes, sizeof(codes));
		put_plain(&s, right, sizeof(right));
		check_num(&s, AM_NUM_F64, 2, e2, "alprd f64");
		tb_free(&s);
	}
}

static void
test_depth(void)
{
	TBuf		s = {0};
	uint32_t	one = 1;

	/* FOR u32 nested 12 deep: deeper than AM_MAX_CASCADE_DEPTH */
	for (int i = 0; i < 12; i++)
	{
		tb_u16(&s, AM_ENC_FOR);
		tb_u32(&s, 0);
		tb_zeros(&s, 2);
	}
	put_plain(&s, &one, 4);
	UNIT_CHECK(decode_status(&s, AM_NUM_U32, 1) == AM_ERR_CORRUPT);
	tb_free(&s);
	/* 5 deep is fine */
	for (int i = 0; i < 5; i++)
	{
		tb_u16(&s, AM_ENC_FOR);
		tb_u32(&s, 1);
		tb_zeros(&s, 2);
	}
	put_plain(&s, &one, 4);
	{
		uint32_t	six = 6;

		check_num(&s, AM_NUM_U32, 1, &six, "nested for");
	}
	tb_free(&s);
}

/* ---- binary ---- */
static void
check_strings(const TBuf *s, size_t n, const uint8_t *present,
			  const char *const *expect, bool rest_is_value, const char *what)
{
	AmBinaryValues v;
	AmError		err;
	AmStatus	st;

	{
		uint8_t		hdr[3] = {10, (uint8_t) n, (uint8_t) (n >> 8)};
		char		name[64];

		snprintf(name, sizeof(name), "bin_%s", what);
		for (char *p = name; *p; p++)
			if (*p == ' ')
				*p = '_';
		t_dump_seed(name, hdr, 3, s->data, s->len);
	}
	st = am_decode_binary(s->data, s->len, n, 0, present, A, &v, &err);
	UNIT_CHECKF(st == AM_OK, "%s: %s", what, err.message);
	if (st != AM_OK)
		return;
	UNIT_CHECK(v.offsets != NULL && v.offsets[0] == 0 && v.offsets[n] == v.data_len);
	for (size_t i = 0; i < n; i++)
	{
		size_t		len = v.offsets[i + 1] - v.offsets[i];

		UNIT_CHECKF(len == strlen(expect[i]) &&
					memcmp(v.data + v.offsets[i], expect[i], len) == 0,
					"%s: value %zu", what, i);
	}
	am_binary_values_free(&v, A);
	for (size_t k = 0; k < s->len; k++)
	{
		uint8_t    *copy = malloc(k + 1);

		memcpy(copy, s->data, k);
		st = am_decode_binary(copy, k, n, 0, present, A, &v, &err);
		/* SingleValue's value is the rest: a shorter one is still valid */
		UNIT_CHECKF(st != AM_OK || (rest_is_value && k >= 2),
					"%s: truncated to %zu accepted", what, k);
		if (st == AM_OK)
			am_binary_values_free(&v, A);
		free(copy);
	}
}

static void
test_binary(void)
{
	TBuf		s = {0};
	static const char *const plain_exp[3] = {"ab", "", "xyz"};
	static const char *const single_exp[3] = {"hi", "", "hi"};
	static const char *const dict_exp[4] = {"z", "foo", "", "z"};
	static const uint8_t present[3] = {1, 0, 1};
	AmBinaryValues v;
	AmError		err;

	tb_u16(&s, AM_ENC_PLAIN);
	tb_byte(&s, 8);
	tb_u64(&s, 0);
	tb_u64(&s, 2);
	tb_u64(&s, 2);
	tb_u64(&s, 5);
	tb_put(&s, "abxyz", 5);
	check_strings(&s, 3, NULL, plain_exp, false, "plain strings");
	/* the last offset must match the bytes */
	s.data[3 + 24] = 4;
	UNIT_CHECK(am_decode_binary(s.data, s.len, 3, 0, NULL, A, &v, &err) == AM_ERR_CORRUPT);
	tb_free(&s);

	/* fixed width 4, no offsets */
	tb_u16(&s, AM_ENC_PLAIN);
	tb_byte(&s, 0);
	tb_put(&s, "ABCDEFGH", 8);
	UNIT_CHECK(am_decode_binary(s.data, s.len, 2, 4, NULL, A, &v, &err) == AM_OK);
	UNIT_CHECK(v.offsets == NULL && v.data_len == 8 && memcmp(v.data, "ABCDEFGH", 8) == 0);
	am_binary_values_free(&v, A);
	UNIT_CHECK(am_decode_binary(s.data, s.len, 3, 4, NULL, A, &v, &err) == AM_ERR_CORRUPT);
	UNIT_CHECK(am_decode_binary(s.data, s.len, 2, 0, NULL, A, &v, &err) == AM_ERR_CORRUPT);
	tb_free(&s);

	tb_u16(&s, AM_ENC_SINGLE_VALUE);
	tb_put(&s, "hi", 2);
	check_strings(&s, 3, present, single_exp, true, "single string");
	tb_free(&s);

	/* BlockDictionary: codes [2, 1, 0, 2], entries "foo", "z" */
	{
		static const uint32_t codes[4] = {2, 1, 0, 2};

		tb_u16(&s, AM_ENC_BLOCK_DICTIONARY);
		tb_u32(&s, 18);
		tb_u32(&s, 8);
		tb_u32(&s, 2);
		tb_byte(&s, 0);
		tb_zeros(&s, 1);
		put_plain(&s, codes, sizeof(codes));
		tb_zeros(&s, 6);		/* pad codes to 24 */
		tb_u32(&s, 3);
		tb_u32(&s, 1);
		tb_put(&s, "fooz", 4);
		check_strings(&s, 4, NULL, dict_exp, false, "dictionary strings");
		tb_free(&s);
	}

	/* fixed-size dictionary: entries right after the padded codes */
	{
		static const uint32_t codes[2] = {1, 0};

		tb_u16(&s, AM_ENC_BLOCK_DICTIONARY);
		tb_u32(&s, 10);
		tb_u32(&s, 0);
		tb_u32(&s, 1);
		tb_byte(&s, 0);
		tb_zeros(&s, 1);
		put_plain(&s, codes, sizeof(codes));
		tb_zeros(&s, 6);
		tb_put(&s, "AB", 2);
		UNIT_CHECK(am_decode_binary(s.data, s.len, 2, 2, NULL, A, &v, &err) == AM_OK);
		UNIT_CHECK(v.data_len == 4 && memcmp(v.data, "AB\0\0", 4) == 0);
		am_binary_values_free(&v, A);
		tb_free(&s);
	}

	/* ZSTD and LZ4 of the concatenated bytes, raw u64 offsets */
	for (int kind = AM_ENC_ZSTD; kind <= AM_ENC_LZ4; kind++)
	{
		char		comp[256];
		size_t		clen;

		tb_u16(&s, (uint16_t) kind);
		if (kind == AM_ENC_ZSTD)
			clen = ZSTD_compress(comp, sizeof(comp), "abxyz", 5, 1);
		else
		{
			clen = 4;
			comp[0] = 5;
			comp[1] = comp[2] = comp[3] = 0;
			clen += (size_t) LZ4_compress_default("abxyz", comp + 4, 5, 200);
		}
		tb_u32(&s, (uint32_t) clen);
		tb_byte(&s, 8);
		tb_byte(&s, 0);
		tb_put(&s, comp, clen);
		while ((s.len - 8) % 8)
			tb_byte(&s, 0);
		tb_u64(&s, 0);
		tb_u64(&s, 2);
		tb_u64(&s, 2);
		tb_u64(&s, 5);
		check_strings(&s, 3, NULL, plain_exp, false, kind == AM_ENC_ZSTD ? "zstd strings" : "lz4 strings");
		tb_free(&s);
	}

	/*
	 * FSST: symbols "ab" (code 0) and "xyz" (code 1); the block's bytes
	 * "ab" "" "xyz" "abq" are the codes 0, 1, 0, escape 'q'.
	 */
	{
		static const char *const fsst_exp[4] = {"ab", "", "xyz", "abq"};
		static const uint8_t codes[5] = {0, 1, 0, 255, 'q'};

		tb_u16(&s, AM_ENC_FSST);
		tb_byte(&s, 2);			/* symbols_count */
		tb_u32(&s, 5);			/* values_size */
		tb_byte(&s, 0);			/* offsets_cascading */
		tb_byte(&s, 8);			/* offset_width */
		tb_zeros(&s, 7);		/* payload at +16 */
		tb_u64(&s, 0x6261);		/* "ab", first byte least significant */
		tb_u64(&s, 0x7A7978);	/* "xyz" */
		tb_byte(&s, 2);
		tb_byte(&s, 3);
		tb_put(&s, codes, 5);
		tb_zeros(&s, 1);		/* 16 + 2 + 5 = 23: pad to 24 */
		tb_u64(&s, 0);
		tb_u64(&s, 2);
		tb_u64(&s, 2);
		tb_u64(&s, 5);
		tb_u64(&s, 8);
		check_strings(&s, 4, NULL, fsst_exp, false, "fsst strings");
		/* a code beyond the table */
		s.data[16 + 18] = 7;
		UNIT_CHECK(am_decode_binary(s.data, s.len, 4, 0, NULL, A, &v, &err) == AM_ERR_CORRUPT);
		tb_free(&s);
	}
	/* numeric-only kinds */
	tb_u16(&s, AM_ENC_FOR);
	tb_zeros(&s, 14);
	UNIT_CHECK(am_decode_binary(s.data, s.len, 1, 0, NULL, A, &v, &err) == AM_ERR_CORRUPT);
	tb_free(&s);
}

int
main(void)
{
	test_plain_single();
	test_for_delta();
	test_run_length();
	test_truncate_zigzag();
	test_dictionary_sparse();
	test_generic();
	test_fastlanes();
	test_alp();
	test_depth();
	test_binary();
	UNIT_MAIN_END("test_amudai_values");
}
