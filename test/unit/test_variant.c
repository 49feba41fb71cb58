/*-------------------------------------------------------------------------
 *
 * test_variant.c
 *	  Unit tests of the Variant decoder (src/parquet/variant.c): metadata
 *	  parsing, every primitive type, short strings, objects and arrays
 *	  (small and large headers, out-of-order field values, nesting), the JSON
 *	  writers used by the shredding reassembly, and hostile inputs (every
 *	  truncation, bad ids and offsets, overlapping fields, excessive depth,
 *	  invalid UTF-8, unknown versions and types).
 *
 * Expected texts come from the spec's definitions and from the values the
 * parquet-testing shredded_variant cases.json lists for the same bytes
 * (e.g. DECIMAL8 123456789.987654321, TIMESTAMPTZ_NANOS
 * 1957-11-07T12:33:54.123456789+00:00); epoch offsets were computed with
 * Python's datetime (and, before 1 AD, by counting days year by year),
 * independently of the decoder's date arithmetic.
 *
 * IDENTIFICATION
 *	  test/unit/test_variant.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "parquet/variant.h"
#include "unit.h"

/* metadata: version 1, sorted, 1-byte offsets, keys a b c d e */
static const uint8_t MD_ABCDE[] = {0x11, 0x05, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
'a', 'b', 'c', 'd', 'e'};
/* metadata: version 1, empty dictionary */
static const uint8_t MD_EMPTY[] = {0x01, 0x00, 0x00};

/* Decode value with metadata md; the JSON text (static) or NULL on error. */
static const char *
to_json(const uint8_t *md, size_t md_len, const uint8_t *v, size_t len,
		PqStatus *status)
{
	static char result[4096];
	PqVariantMetadata meta;
	PqStrBuf	buf;
	PqError		err;
	PqStatus	st;

	pq_error_clear(&err);
	st = pq_variant_metadata_parse(md, md_len, &meta, &err);
	if (st == PQ_OK)
	{
		pq_strbuf_init(&buf, &pfc_malloc_allocator, 1 << 20);
		st = pq_variant_to_json(&meta, v, len, &buf, &err);
		if (st == PQ_OK)
			snprintf(result, sizeof(result), "%s", buf.data ? buf.data : "");
		pq_strbuf_free(&buf);
	}
	if (status)
		*status = st;
	if (st != PQ_OK && err.message[0] == '\0')
		fprintf(stderr, "error status without a message\n");
	return st == PQ_OK ? result : NULL;
}

#define CHECK_JSON(md, v, want) \
	do { \
		PqStatus	st_; \
		const char *got_ = to_json((md), sizeof(md), (v), sizeof(v), &st_); \
		UNIT_CHECKF(got_ != NULL && strcmp(got_, (want)) == 0, \
					"want %s, got %s (status %d)", (want), got_ ? got_ : "(error)", (int) st_); \
	} while (0)

#define CHECK_FAILS(md, v, want_status) \
	do { \
		PqStatus	st_; \
		const char *got_ = to_json((md), sizeof(md), (v), sizeof(v), &st_); \
		UNIT_CHECKF(got_ == NULL && st_ == (want_status), \
					"want status %d, got %d (%s)", (int) (want_status), (int) st_, \
					got_ ? got_ : "(error)"); \
	} while (0)

static void
test_metadata(void)
{
	PqVariantMetadata md;
	PqError		err;
	const uint8_t *key;
	size_t		len;

	UNIT_CHECK(pq_variant_metadata_parse(MD_ABCDE, sizeof(MD_ABCDE), &md, &err) == PQ_OK);
	UNIT_CHECK(md.num_keys == 5 && md.sorted_strings && md.offset_size == 1);
	UNIT_CHECK(pq_variant_metadata_key(&md, 3, &key, &len) && len == 1 && key[0] == 'd');
	UNIT_CHECK(!pq_variant_metadata_key(&md, 5, &key, &len));

	/* 2-byte offsets, unsorted, keys "zz" and "a" */
	{
		const uint8_t m[] = {0x41, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x03, 0x00, 'z', 'z', 'a'};

		UNIT_CHECK(pq_variant_metadata_parse(m, sizeof(m), &md, &err) == PQ_OK);
		UNIT_CHECK(md.num_keys == 2 && !md.sorted_strings && md.offset_size == 2);
		UNIT_CHECK(pq_variant_metadata_key(&md, 0, &key, &len) && len == 2 && memcmp(key, "zz", 2) == 0);
		UNIT_CHECK(pq_variant_metadata_key(&md, 1, &key, &len) && len == 1 && key[0] == 'a');
	}

	/* hostile metadata */
	{
		const uint8_t v2[] = {0x02, 0x00, 0x00};
		const uint8_t huge[] = {0xC1, 0xFF, 0xFF, 0xFF, 0xFF, 0x00};
		const uint8_t decreasing[] = {0x01, 0x02, 0x00, 0x02, 0x01, 'a', 'b'};
		const uint8_t beyond[] = {0x01, 0x01, 0x00, 0x05, 'a'};
		const uint8_t first_not_zero[] = {0x01, 0x01, 0x01, 0x01, 'a'};

		UNIT_CHECK(pq_variant_metadata_parse(v2, sizeof(v2), &md, &err) == PQ_ERR_UNSUPPORTED);
		UNIT_CHECK(pq_variant_metadata_parse(huge, sizeof(huge), &md, &err) == PQ_ERR_CORRUPT);
		UNIT_CHECK(pq_variant_metadata_parse(decreasing, sizeof(decreasing), &md, &err) == PQ_ERR_CORRUPT);
		UNIT_CHECK(pq_variant_metadata_parse(beyond, sizeof(beyond), &md, &err) == PQ_ERR_CORRUPT);
		UNIT_CHECK(pq_variant_metadata_parse(first_not_zero, sizeof(first_not_zero), &md, &err) == PQ_ERR_CORRUPT);
		UNIT_CHECK(pq_variant_metadata_parse(MD_ABCDE, 0, &md, &err) == PQ_ERR_CORRUPT);
		/* every truncation of valid metadata fails cleanly */
		for (size_t n = 0; n < sizeof(MD_ABCDE) - 5; n++)
			UNIT_CHECKF(pq_variant_metadata_parse(MD_ABCDE, n, &md, &err) == PQ_ERR_CORRUPT,
						"prefix %zu", n);
	}
}

static void
test_primitives(void)
{
	const uint8_t null_v[] = {0x00};
	const uint8_t true_v[] = {0x04};
	const uint8_t false_v[] = {0x08};
	const uint8_t i8[] = {0x0C, 0xDE};	/* -34 */
	const uint8_t i16[] = {0x10, 0x2E, 0xFB};	/* -1234 */
	const uint8_t i32[] = {0x14, 0x39, 0x30, 0x00, 0x00};	/* 12345 */
	const uint8_t i64[] = {0x18, 0x16, 0xE9, 0x4F, 0xB3, 0xFD, 0xFF, 0xFF, 0xFF};	/* -9876543210 */
	const uint8_t dbl[] = {0x1C, 0x9A, 0x99, 0x99, 0x99, 0x99, 0x99, 0x2C, 0xC0};	/* -14.3 */
	const uint8_t dec4[] = {0x20, 0x04, 0xEB, 0x32, 0xA4, 0xF8};	/* -123456789, scale 4 */
	const uint8_t dec8[] = {0x24, 0x09, 0xB1, 0xFA, 0x52, 0xE0, 0x4B, 0x9B, 0xB6, 0x01};
	const uint8_t dec16[] = {0x28, 0x09, 0xEB, 0x8E, 0xCB, 0x4F, 0x47, 0x78, 0xEF, 0x76,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
	const uint8_t dec_small[] = {0x20, 0x05, 0x07, 0x00, 0x00, 0x00};	/* 7e-5 */
	const uint8_t dec_neg_small[] = {0x20, 0x02, 0xFF, 0xFF, 0xFF, 0xFF};	/* -0.01 */
	const uint8_t dec_scale0[] = {0x20, 0x00, 0x2A, 0x00, 0x00, 0x00};
	const uint8_t date[] = {0x2C, 0x42, 0x4E, 0x00, 0x00};	/* 20034 */
	const uint8_t date_old[] = {0x2C, 0xAA, 0xEE, 0xFF, 0xFF};	/* -4438 */
	/* 1730982834123456 us */
	const uint8_t ts[] = {0x30, 0xC0, 0xB2, 0xF0, 0xD8, 0x51, 0x26, 0x06, 0x00};
	const uint8_t ts_ntz[] = {0x34, 0xC0, 0xB2, 0xF0, 0xD8, 0x51, 0x26, 0x06, 0x00};
	const uint8_t flt[] = {0x38, 0x8F, 0xC2, 0x21, 0x41};	/* 10.11f */
	const uint8_t bin[] = {0x3C, 0x04, 0x00, 0x00, 0x00, 0x0A, 0x0B, 0x0C, 0x0D};
	const uint8_t str[] = {0x40, 0x07, 0x00, 0x00, 0x00, 'i', 'c', 'e', 'b', 'e', 'r', 'g'};
	const uint8_t tim[] = {0x44, 0xC0, 0xF2, 0x29, 0x88, 0x0A, 0x00, 0x00, 0x00};	/* 45234123456 */
	/* -383397965876543211 ns */
	const uint8_t ts_ns[] = {0x48, 0x15, 0x41, 0x52, 0xD4, 0x94, 0xE5, 0xAD, 0xFA};
	/* 1730982834123456789 ns */
	const uint8_t ntz_ns[] = {0x4C, 0x15, 0x41, 0x3A, 0x6C, 0xB7, 0xAF, 0x05, 0x18};
	const uint8_t uuid[] = {0x50, 0xF2, 0x4F, 0x9B, 0x64, 0x81, 0xFA, 0x49, 0xD1,
	0xB7, 0x4E, 0x8C, 0x09, 0xA6, 0xE3, 0x1C, 0x56};
	const uint8_t sstr[] = {0x1D, 'i', 'c', 'e', 'b', 'e', 'r', 'g'};
	const uint8_t sempty[] = {0x01};

	CHECK_JSON(MD_EMPTY, null_v, "null");
	CHECK_JSON(MD_EMPTY, true_v, "true");
	CHECK_JSON(MD_EMPTY, false_v, "false");
	CHECK_JSON(MD_EMPTY, i8, "-34");
	CHECK_JSON(MD_EMPTY, i16, "-1234");
	CHECK_JSON(MD_EMPTY, i32, "12345");
	CHECK_JSON(MD_EMPTY, i64, "-9876543210");
	CHECK_JSON(MD_EMPTY, dbl, "-14.3");
	CHECK_JSON(MD_EMPTY, dec4, "-12345.6789");
	CHECK_JSON(MD_EMPTY, dec8, "123456789.987654321");
	CHECK_JSON(MD_EMPTY, dec16, "-9876543210.123456789");
	CHECK_JSON(MD_EMPTY, dec_small, "0.00007");
	CHECK_JSON(MD_EMPTY, dec_neg_small, "-0.01");
	CHECK_JSON(MD_EMPTY, dec_scale0, "42");
	CHECK_JSON(MD_EMPTY, date, "\"2024-11-07\"");
	CHECK_JSON(MD_EMPTY, date_old, "\"1957-11-07\"");
	CHECK_JSON(MD_EMPTY, ts, "\"2024-11-07T12:33:54.123456+00:00\"");
	CHECK_JSON(MD_EMPTY, ts_ntz, "\"2024-11-07T12:33:54.123456\"");
	CHECK_JSON(MD_EMPTY, flt, "10.11");
	CHECK_JSON(MD_EMPTY, bin, "\"\\\\x0a0b0c0d\"");
	CHECK_JSON(MD_EMPTY, str, "\"iceberg\"");
	CHECK_JSON(MD_EMPTY, tim, "\"12:33:54.123456\"");
	CHECK_JSON(MD_EMPTY, ts_ns, "\"1957-11-07T12:33:54.123456789+00:00\"");
	CHECK_JSON(MD_EMPTY, ntz_ns, "\"2024-11-07T12:33:54.123456789\"");
	CHECK_JSON(MD_EMPTY, uuid, "\"f24f9b64-81fa-49d1-b74e-8c09a6e31c56\"");
	CHECK_JSON(MD_EMPTY, sstr, "\"iceberg\"");
	CHECK_JSON(MD_EMPTY, sempty, "\"\"");
}

static void
test_containers(void)
{
	/* spec example shapes, keys from MD_ABCDE */
	const uint8_t obj[] = {0x02, 0x02, 0x00, 0x03, 0x00, 0x01, 0x09,
		0x00,
	0x1D, 'i', 'c', 'e', 'b', 'e', 'r', 'g'};
	/* values stored in the reverse order of the ids: {"a": 1, "b": 2} */
	const uint8_t obj_rev[] = {0x02, 0x02, 0x00, 0x01, 0x02, 0x00, 0x04,
	0x0C, 0x02, 0x0C, 0x01};
	/* is_large, 2-byte ids, 2-byte offsets: {"c": true} */
	const uint8_t obj_large[] = {0x02 | (0x15 << 2), 0x01, 0x00, 0x00, 0x00,
		0x02, 0x00,
		0x00, 0x00, 0x01, 0x00,
	0x04};
	const uint8_t obj_empty[] = {0x02, 0x00, 0x00};
	const uint8_t arr[] = {0x03, 0x02, 0x00, 0x07, 0x0D,
		0x19, 'c', 'o', 'm', 'e', 'd', 'y',
	0x15, 'd', 'r', 'a', 'm', 'a'};
	const uint8_t arr_empty[] = {0x03, 0x00, 0x00};
	/* is_large array, 3-byte offsets: [null, [1]] */
	const uint8_t arr_large[] = {0x03 | (0x06 << 2), 0x02, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x07, 0x00, 0x00,
		0x00,
	0x03, 0x01, 0x00, 0x02, 0x0C, 0x01};
	/* {"e": [{"a": "x"}], "b": null} with nested containers */
	const uint8_t nested[] = {0x02, 0x02, 0x01, 0x04, 0x00, 0x01, 0x0C,
		0x00,
		0x03, 0x01, 0x00, 0x07,
		0x02, 0x01, 0x00, 0x00, 0x02,
	0x05, 'x'};

	CHECK_JSON(MD_ABCDE, obj, "{\"a\":null,\"d\":\"iceberg\"}");
	CHECK_JSON(MD_ABCDE, obj_rev, "{\"a\":1,\"b\":2}");
	CHECK_JSON(MD_ABCDE, obj_large, "{\"c\":true}");
	CHECK_JSON(MD_ABCDE, obj_empty, "{}");
	CHECK_JSON(MD_EMPTY, arr, "[\"comedy\",\"drama\"]");
	CHECK_JSON(MD_EMPTY, arr_empty, "[]");
	CHECK_JSON(MD_EMPTY, arr_large, "[null,[1]]");
	CHECK_JSON(MD_ABCDE, nested, "{\"b\":null,\"e\":[{\"a\":\"x\"}]}");

	/* object access API */
	{
		PqVariantMetadata md;
		PqVariantObject o;
		PqError		err;
		bool		is_object;
		const uint8_t *key,
				   *val;
		size_t		klen,
					vlen;
		const uint8_t i32[] = {0x14, 0x22, 0x00, 0x00, 0x00};

		pq_variant_metadata_parse(MD_ABCDE, sizeof(MD_ABCDE), &md, &err);
		UNIT_CHECK(pq_variant_object_open(&md, obj, sizeof(obj), &o, &is_object, &err) == PQ_OK && is_object);
		UNIT_CHECK(o.num_fields == 2);
		UNIT_CHECK(pq_variant_object_field(&o, 1, &key, &klen, &val, &vlen, &err) == PQ_OK);
		UNIT_CHECK(klen == 1 && key[0] == 'd' && vlen == 8 && val[0] == 0x1D);
		UNIT_CHECK(pq_variant_object_field(&o, 2, &key, &klen, &val, &vlen, &err) == PQ_ERR_INVALID_ARGUMENT);
		UNIT_CHECK(pq_variant_object_open(&md, i32, sizeof(i32), &o, &is_object, &err) == PQ_OK && !is_object);
		UNIT_CHECK(pq_variant_object_open(&md, i32, 3, &o, &is_object, &err) == PQ_ERR_CORRUPT);
	}
}

/* Every strict prefix of a valid value must fail without reading past it. */
static void
check_truncations(const uint8_t *md, size_t md_len, const uint8_t *v, size_t len)
{
	for (size_t n = 0; n < len; n++)
	{
		uint8_t    *copy = malloc(n + 1);	/* exact size (ASan builds catch overreads) */
		PqStatus	st;

		memcpy(copy, v, n);
		UNIT_CHECKF(to_json(md, md_len, copy, n, &st) == NULL && st == PQ_ERR_CORRUPT,
					"prefix %zu of %zu decoded (status %d)", n, len, (int) st);
		free(copy);
	}
}

static void
test_hostile(void)
{
	const uint8_t nested[] = {0x02, 0x02, 0x01, 0x04, 0x00, 0x01, 0x0C,
		0x00,
		0x03, 0x01, 0x00, 0x07,
		0x02, 0x01, 0x00, 0x00, 0x02,
	0x05, 'x'};
	const uint8_t dec16[] = {0x28, 0x09, 0xEB, 0x8E, 0xCB, 0x4F, 0x47, 0x78, 0xEF, 0x76,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
	const uint8_t str[] = {0x40, 0x02, 0x00, 0x00, 0x00, 'h', 'i'};
	/* field id 5 is beyond the 5-key dictionary */
	const uint8_t bad_id[] = {0x02, 0x01, 0x05, 0x00, 0x01, 0x00};
	/* field offset 3 is beyond the 1 byte of fields */
	const uint8_t bad_off[] = {0x02, 0x01, 0x00, 0x03, 0x01, 0x00};
	/* last offset beyond the value */
	const uint8_t bad_last[] = {0x03, 0x01, 0x00, 0x09, 0x00};
	/* two fields aliasing one 4-byte string inside 5 bytes of fields */
	const uint8_t overlap[] = {0x02, 0x02, 0x00, 0x01, 0x00, 0x00, 0x05,
	0x0D, 'a', 'b', 'c', 0x00};
	/* a child value longer than the fields area */
	const uint8_t child_long[] = {0x03, 0x01, 0x00, 0x02, 0x0D, 'a'};
	const uint8_t unknown_type[] = {21 << 2};
	const uint8_t dec_scale39[] = {0x20, 39, 0x01, 0x00, 0x00, 0x00};
	const uint8_t bad_utf8[] = {0x09, 0xC0, 0x80};	/* overlong NUL */
	const uint8_t surrogate[] = {0x0D, 0xED, 0xA0, 0x80};
	const uint8_t bad_key_utf8_md[] = {0x01, 0x01, 0x00, 0x01, 0xFF};
	const uint8_t obj_one[] = {0x02, 0x01, 0x00, 0x00, 0x01, 0x00};
	const uint8_t trailing[] = {0x00, 0x00};
	const uint8_t time_range[] = {0x44, 0x01, 0x60, 0xD7, 0x1D, 0x14, 0x00, 0x00, 0x00};	/* 86400000001 */
	const uint8_t long_string_len[] = {0x40, 0xFF, 0xFF, 0xFF, 0xFF, 'x'};

	check_truncations(MD_ABCDE, sizeof(MD_ABCDE), nested, sizeof(nested));
	check_truncations(MD_EMPTY, sizeof(MD_EMPTY), dec16, sizeof(dec16));
	check_truncations(MD_EMPTY, sizeof(MD_EMPTY), str, sizeof(str));
	CHECK_FAILS(MD_ABCDE, bad_id, PQ_ERR_CORRUPT);
	CHECK_FAILS(MD_ABCDE, bad_off, PQ_ERR_CORRUPT);
	CHECK_FAILS(MD_ABCDE, bad_last, PQ_ERR_CORRUPT);
	CHECK_FAILS(MD_ABCDE, overlap, PQ_ERR_CORRUPT);
	CHECK_FAILS(MD_EMPTY, child_long, PQ_ERR_CORRUPT);
	CHECK_FAILS(MD_EMPTY, unknown_type, PQ_ERR_UNSUPPORTED);
	CHECK_FAILS(MD_EMPTY, dec_scale39, PQ_ERR_CORRUPT);
	CHECK_FAILS(MD_EMPTY, bad_utf8, PQ_ERR_CORRUPT);
	CHECK_FAILS(MD_EMPTY, surrogate, PQ_ERR_CORRUPT);
	CHECK_FAILS(bad_key_utf8_md, obj_one, PQ_ERR_CORRUPT);
	CHECK_FAILS(MD_EMPTY, trailing, PQ_ERR_CORRUPT);
	CHECK_FAILS(MD_EMPTY, time_range, PQ_ERR_CORRUPT);
	CHECK_FAILS(MD_EMPTY, long_string_len, PQ_ERR_CORRUPT);

	/* nesting: depth PQ_VARIANT_MAX_DEPTH is accepted, one more is not */
	for (int depth = PQ_VARIANT_MAX_DEPTH; depth <= PQ_VARIANT_MAX_DEPTH + 1; depth++)
	{
		/* [[[...[null]...]]]: per level 0x07 (2-byte offsets), 1 element, offsets 0 and the rest's size */
		size_t		len;
		uint8_t    *v;
		PqStatus	st;
		const char *got;

		len = (size_t) depth * 6 + 1;
		v = malloc(len);
		for (int i = 0; i < depth; i++)
		{
			size_t		rest = len - (size_t) (i + 1) * 6;

			v[i * 6] = 0x03 | (0x01 << 2);
			v[i * 6 + 1] = 0x01;
			v[i * 6 + 2] = 0x00;
			v[i * 6 + 3] = 0x00;
			v[i * 6 + 4] = (uint8_t) (rest & 0xFF);
			v[i * 6 + 5] = (uint8_t) (rest >> 8);
		}
		v[len - 1] = 0x00;
		got = to_json(MD_EMPTY, sizeof(MD_EMPTY), v, len, &st);
		if (depth == PQ_VARIANT_MAX_DEPTH)
			UNIT_CHECKF(got != NULL && strncmp(got, "[[[", 3) == 0 &&
						strlen(got) == (size_t) depth * 2 + 4, "depth %d: status %d", depth, (int) st);
		else
			UNIT_CHECKF(got == NULL && st == PQ_ERR_CORRUPT, "depth %d accepted", depth);
		free(v);
	}

	/* output limit */
	{
		PqVariantMetadata md;
		PqStrBuf	buf;
		PqError		err;
		const uint8_t s[] = {0x1D, 'i', 'c', 'e', 'b', 'e', 'r', 'g'};

		pq_variant_metadata_parse(MD_EMPTY, sizeof(MD_EMPTY), &md, &err);
		pq_strbuf_init(&buf, &pfc_malloc_allocator, 5);
		UNIT_CHECK(pq_variant_to_json(&md, s, sizeof(s), &buf, &err) == PQ_ERR_CORRUPT);
		pq_strbuf_free(&buf);
	}
}

static const char *
write_with(void (*fn) (PqStrBuf *, const void *), const void *arg)
{
	static char result[512];
	PqStrBuf	buf;

	pq_strbuf_init(&buf, &pfc_malloc_allocator, 1 << 20);
	fn(&buf, arg);
	snprintf(result, sizeof(result), "%s", buf.status == PQ_OK && buf.data ? buf.data : "(error)");
	pq_strbuf_free(&buf);
	return result;
}

static void w_double(PqStrBuf *b, const void *a) { pq_json_double(b, *(const double *) a); }
static void w_float(PqStrBuf *b, const void *a) { pq_json_float(b, *(const float *) a); }
static void w_date(PqStrBuf *b, const void *a) { pq_json_date(b, *(const int64_t *) a); }
static void w_ts_us(PqStrBuf *b, const void *a) { pq_json_timestamp(b, *(const int64_t *) a, false, false); }
static void w_ts_ns_utc(PqStrBuf *b, const void *a) { pq_json_timestamp(b, *(const int64_t *) a, true, true); }
static void w_str(PqStrBuf *b, const void *a) { pq_json_string(b, (const uint8_t *) a, strlen(a)); }

static void
test_writers(void)
{
	double		d;
	float		f;
	int64_t		i;

	d = 0.1;
	UNIT_CHECK(strcmp(write_with(w_double, &d), "0.1") == 0);
	d = 1e300;
	UNIT_CHECK(strcmp(write_with(w_double, &d), "1e+300") == 0);
	d = 5e-324;
	UNIT_CHECK(strtod(write_with(w_double, &d), NULL) == 5e-324);
	d = 0.30000000000000004;
	UNIT_CHECK(strcmp(write_with(w_double, &d), "0.30000000000000004") == 0);
	d = NAN;
	UNIT_CHECK(strcmp(write_with(w_double, &d), "\"NaN\"") == 0);
	d = -INFINITY;
	UNIT_CHECK(strcmp(write_with(w_double, &d), "\"-Infinity\"") == 0);
	f = INFINITY;
	UNIT_CHECK(strcmp(write_with(w_float, &f), "\"Infinity\"") == 0);
	f = 16777217.0f;			/* rounds to 16777216 */
	UNIT_CHECK(strcmp(write_with(w_float, &f), "16777216") == 0);
	f = 3.4028235e38f;
	UNIT_CHECK(strcmp(write_with(w_float, &f), "3.4028235e+38") == 0);

	/* proleptic Gregorian, BC years as PostgreSQL prints them */
	i = -719528;				/* 0000-01-01 = 1 BC */
	UNIT_CHECK(strcmp(write_with(w_date, &i), "\"0001-01-01 BC\"") == 0);
	i = -735160;				/* -0043-03-15 = 44 BC (day count by brute force) */
	UNIT_CHECK(strcmp(write_with(w_date, &i), "\"0044-03-15 BC\"") == 0);
	i = 106751991;				/* 294247-01-10 */
	UNIT_CHECK(strcmp(write_with(w_date, &i), "\"294247-01-10\"") == 0);
	i = -1;
	UNIT_CHECK(strcmp(write_with(w_ts_us, &i), "\"1969-12-31T23:59:59.999999\"") == 0);
	i = 0;
	UNIT_CHECK(strcmp(write_with(w_ts_us, &i), "\"1970-01-01T00:00:00\"") == 0);
	i = 1500000;
	UNIT_CHECK(strcmp(write_with(w_ts_us, &i), "\"1970-01-01T00:00:01.5\"") == 0);
	i = INT64_MIN;				/* 1677-09-21T00:12:43.145224192 */
	UNIT_CHECK(strcmp(write_with(w_ts_ns_utc, &i), "\"1677-09-21T00:12:43.145224192+00:00\"") == 0);
	i = INT64_MAX;				/* 2262-04-11T23:47:16.854775807 */
	UNIT_CHECK(strcmp(write_with(w_ts_ns_utc, &i), "\"2262-04-11T23:47:16.854775807+00:00\"") == 0);

	UNIT_CHECK(strcmp(write_with(w_str, "a\"b\\c\n\x01\x1f\xc3\xa9\xf0\x9f\x98\x80"),
					  "\"a\\\"b\\\\c\\n\\u0001\\u001f\xc3\xa9\xf0\x9f\x98\x80\"") == 0);

	/* decimals from big-endian bytes (Parquet FLBA / BYTE_ARRAY layout) */
	{
		PqStrBuf	buf;
		const uint8_t minus_one[] = {0xFF};
		const uint8_t big[17] = {0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};	/* 2^127 - 1 */
		const uint8_t min128[16] = {0x80};	/* -2^127 */
		const uint8_t too_big[17] = {0x01};
		const uint8_t sign_mismatch[17] = {0xFF, 0x00};

		pq_strbuf_init(&buf, &pfc_malloc_allocator, 1 << 20);
		UNIT_CHECK(pq_json_decimal_be(&buf, minus_one, 1, 2) && strcmp(buf.data, "-0.01") == 0);
		pq_strbuf_reset(&buf);
		UNIT_CHECK(pq_json_decimal_be(&buf, big, 17, 0) &&
				   strcmp(buf.data, "170141183460469231731687303715884105727") == 0);
		pq_strbuf_reset(&buf);
		UNIT_CHECK(pq_json_decimal_be(&buf, min128, 16, 38) &&
				   strcmp(buf.data, "-1.70141183460469231731687303715884105728") == 0);
		pq_strbuf_reset(&buf);
		UNIT_CHECK(!pq_json_decimal_be(&buf, too_big, 17, 0));
		UNIT_CHECK(!pq_json_decimal_be(&buf, sign_mismatch, 17, 0));
		UNIT_CHECK(!pq_json_decimal_be(&buf, minus_one, 0, 0));
		UNIT_CHECK(!pq_json_decimal_be(&buf, minus_one, 1, 39));
		UNIT_CHECK(!pq_json_time(&buf, -1));
		UNIT_CHECK(pq_json_time(&buf, INT64_C(86400000000)) && strcmp(buf.data, "\"24:00:00\"") == 0);
		pq_strbuf_free(&buf);
	}
}

int
main(void)
{
	test_metadata();
	test_primitives();
	test_containers();
	test_hostile();
	test_writers();
	UNIT_MAIN_END("test_variant");
}
