/*-------------------------------------------------------------------------
 *
 * test_thrift.c
 *	  Unit tests of the Thrift compact protocol reader and writer.
 *
 * The reader is checked against byte vectors computed by hand from the
 * compact protocol specification (thrift/doc/specs/thrift-compact-protocol.md),
 * not produced by our writer; the writer is checked against the same bytes
 * and by round trips.  Every truncation of a valid message must fail
 * cleanly, and nesting beyond PQ_THRIFT_MAX_DEPTH must fail.
 *
 * IDENTIFICATION
 *	  test/unit/test_thrift.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/thrift.h"

#include <math.h>

#include "unit.h"

/*
 * A message exercising every construct, annotated byte by byte.
 *
 * struct {
 *	 1: i32 = 150			 15 AC 02		  delta 1, type 5; zigzag(150)=300
 *	 2: bool = true			 11				  delta 1, type 1 (true)
 *	 3: bool = false		 12				  delta 1, type 2 (false)
 *	 5: binary = "abc"		 28 03 61 62 63	  delta 2, type 8; len 3
 *	 21: i64 = -1			 06 2A 01		  delta 16 > 15: long form, type 6,
 *											  zigzag(21)=42, zigzag(-1)=1
 *	 4: i16 = -300			 04 08 D7 04	  delta negative: long form, zigzag(4)=8,
 *											  zigzag(-300)=599=0x257 -> D7 04
 *	 6: double = 1.0		 27 00.. F0 3F	  delta 2, type 7; LE IEEE754
 *	 7: list<i32> [1,-1,2]	 19 35 02 01 04	  delta 1, type 9; count 3 type 5
 *	 8: struct { 1: i8 = -2 }  1C 13 FE 00	  delta 1, type 12; inner field delta 1 type 3
 *	 9: map<i32,binary> {1:"x"} 1B 01 58 02 01 78	count 1; key 5 value 8
 *	 10: list<bool> [t,f]	 19 21 01 02	  count 2, type 1; elements 1, 2
 *	 11: i32 = 2147483647	 15 FE FF FF FF 0F  zigzag = 0xFFFFFFFE
 * } 00
 */
static const uint8_t full_message[] = {
	0x15, 0xAC, 0x02,
	0x11,
	0x12,
	0x28, 0x03, 'a', 'b', 'c',
	0x06, 0x2A, 0x01,
	0x04, 0x08, 0xD7, 0x04,
	0x27, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F,
	0x19, 0x35, 0x02, 0x01, 0x04,
	0x1C, 0x13, 0xFE, 0x00,
	0x1B, 0x01, 0x58, 0x02, 0x01, 0x78,
	0x19, 0x21, 0x01, 0x02,
	0x15, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F,
	0x00
};

/* What decode_full() found; mask bit (fid) set per field seen. */
typedef struct FullResult
{
	uint32_t	seen;
	int32_t		f1;
	bool		f2;
	bool		f3;
	uint8_t		f5[8];
	uint32_t	f5_len;
	int64_t		f21;
	int16_t		f4;
	double		f6;
	int32_t		f7[3];
	uint32_t	f7_count;
	int8_t		f8_inner;
	int32_t		f9_key;
	uint8_t		f9_value;
	bool		f10[2];
	int32_t		f11;
} FullResult;

/* Decode full_message with typed reads; false on any reader failure. */
static bool
decode_full(const uint8_t *buf, size_t len, FullResult *res)
{
	PqThriftReader r;
	int16_t		fid;
	uint8_t		type;

	memset(res, 0, sizeof(*res));
	pq_thrift_reader_init(&r, buf, len);
	pq_thrift_struct_begin(&r);
	while (pq_thrift_field_next(&r, &fid, &type))
	{
		if (fid >= 0 && fid < 32)
			res->seen |= 1u << fid;
		switch (fid)
		{
			case 1:
				res->f1 = pq_thrift_i32(&r);
				break;
			case 2:
				res->f2 = pq_thrift_bool(&r, type);
				break;
			case 3:
				res->f3 = pq_thrift_bool(&r, type);
				break;
			case 5:
				{
					const uint8_t *d;
					uint32_t	n;

					if (pq_thrift_binary(&r, &d, &n) && n <= sizeof(res->f5))
					{
						memcpy(res->f5, d, n);
						res->f5_len = n;
					}
					break;
				}
			case 21:
				res->f21 = pq_thrift_i64(&r);
				break;
			case 4:
				res->f4 = pq_thrift_i16(&r);
				break;
			case 6:
				res->f6 = pq_thrift_double(&r);
				break;
			case 7:
				{
					uint8_t		et;
					uint32_t	n;

					if (pq_thrift_list_begin(&r, &et, &n) && et == PQ_THRIFT_I32)
					{
						res->f7_count = n;
						for (uint32_t i = 0; i < n; i++)
						{
							int32_t		v = pq_thrift_i32(&r);

							if (i < 3)
								res->f7[i] = v;
						}
					}
					break;
				}
			case 8:
				{
					int16_t		ifid;
					uint8_t		itype;

					pq_thrift_struct_begin(&r);
					while (pq_thrift_field_next(&r, &ifid, &itype))
					{
						if (ifid == 1 && itype == PQ_THRIFT_I8)
							res->f8_inner = pq_thrift_i8(&r);
						else
							pq_thrift_skip(&r, itype);
					}
					pq_thrift_struct_end(&r);
					break;
				}
			case 10:
				{
					uint8_t		et;
					uint32_t	n;

					if (pq_thrift_list_begin(&r, &et, &n))
						for (uint32_t i = 0; i < n; i++)
						{
							bool		b = pq_thrift_bool(&r, PQ_THRIFT_BOOL_TRUE);

							if (i < 2)
								res->f10[i] = b;
						}
					break;
				}
			case 11:
				res->f11 = pq_thrift_i32(&r);
				break;
			default:
				pq_thrift_skip(&r, type);	/* 9: the map */
				break;
		}
	}
	pq_thrift_struct_end(&r);
	if (r.failed)
		return false;
	return pq_thrift_reader_offset(&r, buf) == len;
}

static void
test_full_message(void)
{
	FullResult	res;

	UNIT_CHECK(decode_full(full_message, sizeof(full_message), &res));
	UNIT_CHECK(res.seen == ((1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) |
							(1u << 5) | (1u << 6) | (1u << 7) | (1u << 8) |
							(1u << 9) | (1u << 10) | (1u << 11) | (1u << 21)));
	UNIT_CHECK(res.f1 == 150);
	UNIT_CHECK(res.f2 == true);
	UNIT_CHECK(res.f3 == false);
	UNIT_CHECK(res.f5_len == 3 && memcmp(res.f5, "abc", 3) == 0);
	UNIT_CHECK(res.f21 == -1);
	UNIT_CHECK(res.f4 == -300);
	UNIT_CHECK(res.f6 == 1.0);
	UNIT_CHECK(res.f7_count == 3);
	UNIT_CHECK(res.f7[0] == 1 && res.f7[1] == -1 && res.f7[2] == 2);
	UNIT_CHECK(res.f8_inner == -2);
	UNIT_CHECK(res.f10[0] == true && res.f10[1] == false);
	UNIT_CHECK(res.f11 == INT32_MAX);

	/* Every proper prefix is truncated and must fail without reading past it. */
	for (size_t cut = 0; cut < sizeof(full_message); cut++)
	{
		uint8_t    *copy = malloc(cut ? cut : 1);

		memcpy(copy, full_message, cut);
		UNIT_CHECKF(!decode_full(copy, cut, &res), "prefix of %zu bytes accepted", cut);
		free(copy);
	}

	/* Skipping the whole struct as a value consumes exactly all of it. */
	{
		PqThriftReader r;

		pq_thrift_reader_init(&r, full_message, sizeof(full_message));
		pq_thrift_skip(&r, PQ_THRIFT_STRUCT);
		UNIT_CHECK(!r.failed);
		UNIT_CHECK(pq_thrift_reader_offset(&r, full_message) == sizeof(full_message));
		for (size_t cut = 0; cut < sizeof(full_message); cut++)
		{
			pq_thrift_reader_init(&r, full_message, cut);
			pq_thrift_skip(&r, PQ_THRIFT_STRUCT);
			UNIT_CHECKF(r.failed, "skip of a %zu-byte prefix succeeded", cut);
		}
	}
}

/* Zigzag varints: values from the spec's zigzag table and the extremes. */
static void
test_integers(void)
{
	static const struct
	{
		uint8_t		bytes[10];
		size_t		len;
		int64_t		value;
	}			i64_cases[] = {
		{{0x00}, 1, 0},
		{{0x01}, 1, -1},
		{{0x02}, 1, 1},
		{{0x03}, 1, -2},
		{{0x7F}, 1, -64},
		{{0x80, 0x01}, 2, 64},
		/* INT64_MAX -> zigzag 0xFFFF...FE: nine 0xFF-ish bytes and 0x01 */
		{{0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, 10, INT64_MAX},
		{{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, 10, INT64_MIN},
	};

	for (size_t i = 0; i < sizeof(i64_cases) / sizeof(i64_cases[0]); i++)
	{
		PqThriftReader r;
		int64_t		v;

		pq_thrift_reader_init(&r, i64_cases[i].bytes, i64_cases[i].len);
		v = pq_thrift_i64(&r);
		UNIT_CHECKF(!r.failed && v == i64_cases[i].value, "i64 case %zu", i);
		UNIT_CHECK(r.pos == r.end);
	}

	/* i32: INT32_MIN is zigzag 0xFFFFFFFF = FF FF FF FF 0F. */
	{
		static const uint8_t b[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
		PqThriftReader r;

		pq_thrift_reader_init(&r, b, sizeof(b));
		UNIT_CHECK(pq_thrift_i32(&r) == INT32_MIN && !r.failed);
	}
	/* i32 beyond 32 bits (0x1_0000_0000) fails. */
	{
		static const uint8_t b[] = {0x80, 0x80, 0x80, 0x80, 0x10};
		PqThriftReader r;

		pq_thrift_reader_init(&r, b, sizeof(b));
		(void) pq_thrift_i32(&r);
		UNIT_CHECK(r.failed);
	}
	/* 11-byte varint (overlong) fails as i64. */
	{
		static const uint8_t b[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
		0x80, 0x80, 0x80, 0x01};
		PqThriftReader r;

		pq_thrift_reader_init(&r, b, sizeof(b));
		(void) pq_thrift_i64(&r);
		UNIT_CHECK(r.failed);
	}
	/* i16 out of range: zigzag(40000) = 80000 = 0x13880 -> 80 F1 04. */
	{
		static const uint8_t b[] = {0x80, 0xF1, 0x04};
		PqThriftReader r;

		pq_thrift_reader_init(&r, b, sizeof(b));
		(void) pq_thrift_i16(&r);
		UNIT_CHECK(r.failed);
	}
	/* i16 in range: zigzag(-32768) = 65535 = FF FF 03. */
	{
		static const uint8_t b[] = {0xFF, 0xFF, 0x03};
		PqThriftReader r;

		pq_thrift_reader_init(&r, b, sizeof(b));
		UNIT_CHECK(pq_thrift_i16(&r) == INT16_MIN && !r.failed);
	}
	/* Failure latches: a later valid read still reports failure. */
	{
		static const uint8_t b[] = {0x80};
		PqThriftReader r;

		pq_thrift_reader_init(&r, b, sizeof(b));
		(void) pq_thrift_i32(&r);
		UNIT_CHECK(r.failed);
		r.pos = b;
		(void) pq_thrift_i8(&r);
		UNIT_CHECK(r.failed);
	}
	/* double -2.5 = 0xC004000000000000, little-endian. */
	{
		static const uint8_t b[] = {0, 0, 0, 0, 0, 0, 0x04, 0xC0};
		PqThriftReader r;

		pq_thrift_reader_init(&r, b, sizeof(b));
		UNIT_CHECK(pq_thrift_double(&r) == -2.5 && !r.failed);
		pq_thrift_reader_init(&r, b, 7);
		(void) pq_thrift_double(&r);
		UNIT_CHECK(r.failed);
	}
}

/* Lists: long count form, count bound, bad type nibbles, sets. */
static void
test_lists(void)
{
	/* 20 i8 elements: F3 14 then 20 bytes. */
	{
		uint8_t		b[22];
		PqThriftReader r;
		uint8_t		et;
		uint32_t	n;
		bool		ok = true;

		b[0] = 0xF3;
		b[1] = 0x14;
		for (int i = 0; i < 20; i++)
			b[2 + i] = (uint8_t) (i * 3);
		pq_thrift_reader_init(&r, b, sizeof(b));
		UNIT_CHECK(pq_thrift_list_begin(&r, &et, &n));
		UNIT_CHECK(et == PQ_THRIFT_I8 && n == 20);
		for (uint32_t i = 0; i < n; i++)
			ok &= pq_thrift_i8(&r) == (int8_t) (i * 3);
		UNIT_CHECK(ok && !r.failed && r.pos == r.end);

		/* One element short: the count exceeds the bytes left. */
		pq_thrift_reader_init(&r, b, sizeof(b) - 1);
		UNIT_CHECK(!pq_thrift_list_begin(&r, &et, &n) && r.failed);
	}
	/* A count of 2^31 with a handful of bytes is rejected up front. */
	{
		static const uint8_t b[] = {0xF5, 0x80, 0x80, 0x80, 0x80, 0x08, 0x02};
		PqThriftReader r;
		uint8_t		et;
		uint32_t	n;

		pq_thrift_reader_init(&r, b, sizeof(b));
		UNIT_CHECK(!pq_thrift_list_begin(&r, &et, &n));
		UNIT_CHECK(r.failed && n == 0);
	}
	/* Doubles take 8 bytes each: 2 doubles in 15 bytes is too few. */
	{
		uint8_t		b[16] = {0x27};	/* count 2, doubles */
		PqThriftReader r;
		uint8_t		et;
		uint32_t	n;

		pq_thrift_reader_init(&r, b, 16);
		UNIT_CHECK(!pq_thrift_list_begin(&r, &et, &n));
		b[0] = 0x17;			/* one double in 15 bytes is fine */
		pq_thrift_reader_init(&r, b, 16);
		UNIT_CHECK(pq_thrift_list_begin(&r, &et, &n) && n == 1 && et == PQ_THRIFT_DOUBLE);
	}
	/* Type nibble 13..15 or 0 is invalid in a list header. */
	{
		static const uint8_t bad[] = {0x1D, 0x10, 0x1F};

		for (size_t i = 0; i < sizeof(bad); i++)
		{
			PqThriftReader r;
			uint8_t		et;
			uint32_t	n;
			uint8_t		b[4] = {bad[i], 0, 0, 0};

			pq_thrift_reader_init(&r, b, sizeof(b));
			UNIT_CHECKF(!pq_thrift_list_begin(&r, &et, &n), "list header %02x", bad[i]);
		}
	}
	/* A set is skipped like a list: set<binary> {"a","bc"} = 28 01 61 02 62 63. */
	{
		static const uint8_t b[] = {0x28, 0x01, 0x61, 0x02, 0x62, 0x63, 0xEE};
		PqThriftReader r;

		pq_thrift_reader_init(&r, b, sizeof(b));
		pq_thrift_skip(&r, PQ_THRIFT_SET);
		UNIT_CHECK(!r.failed && r.pos == b + 6);
	}
	/* Empty map is one zero byte; a map with a bad key type fails. */
	{
		static const uint8_t empty[] = {0x00};
		static const uint8_t bad[] = {0x01, 0xD5, 0x00, 0x00};
		PqThriftReader r;

		pq_thrift_reader_init(&r, empty, 1);
		pq_thrift_skip(&r, PQ_THRIFT_MAP);
		UNIT_CHECK(!r.failed && r.pos == r.end);
		pq_thrift_reader_init(&r, bad, sizeof(bad));
		pq_thrift_skip(&r, PQ_THRIFT_MAP);
		UNIT_CHECK(r.failed);
	}
	/* Map count beyond the bytes left (2 per entry minimum). */
	{
		static const uint8_t b[] = {0x03, 0x33, 0x01, 0x02, 0x03, 0x04};
		PqThriftReader r;

		pq_thrift_reader_init(&r, b, sizeof(b));
		pq_thrift_skip(&r, PQ_THRIFT_MAP);
		UNIT_CHECK(r.failed);
	}
	/* Binary longer than the buffer. */
	{
		static const uint8_t b[] = {0x05, 'a', 'b'};
		PqThriftReader r;
		const uint8_t *d;
		uint32_t	n;

		pq_thrift_reader_init(&r, b, sizeof(b));
		UNIT_CHECK(!pq_thrift_binary(&r, &d, &n) && r.failed && d == NULL);
	}
}

/* Field headers: STOP, long form, invalid types, field id range. */
static void
test_field_headers(void)
{
	/* Field 1 i32 5, then field 1 again via long form (type 5, id zigzag 2). */
	{
		static const uint8_t b[] = {0x15, 0x0A, 0x05, 0x02, 0x0C, 0x00};
		PqThriftReader r;
		int16_t		fid;
		uint8_t		type;

		pq_thrift_reader_init(&r, b, sizeof(b));
		pq_thrift_struct_begin(&r);
		UNIT_CHECK(pq_thrift_field_next(&r, &fid, &type) && fid == 1 && type == PQ_THRIFT_I32);
		UNIT_CHECK(pq_thrift_i32(&r) == 5);
		UNIT_CHECK(pq_thrift_field_next(&r, &fid, &type) && fid == 1 && type == PQ_THRIFT_I32);
		UNIT_CHECK(pq_thrift_i32(&r) == 6);
		UNIT_CHECK(!pq_thrift_field_next(&r, &fid, &type) && !r.failed);
		pq_thrift_struct_end(&r);
		UNIT_CHECK(r.depth == 0 && r.pos == r.end);
	}
	/* Delta 15 is the largest short form: field 15 = F5. */
	{
		static const uint8_t b[] = {0xF5, 0x02, 0x00};
		PqThriftReader r;
		int16_t		fid;
		uint8_t		type;

		pq_thrift_reader_init(&r, b, sizeof(b));
		pq_thrift_struct_begin(&r);
		UNIT_CHECK(pq_thrift_field_next(&r, &fid, &type) && fid == 15);
		UNIT_CHECK(pq_thrift_i32(&r) == 1);
		UNIT_CHECK(!pq_thrift_field_next(&r, &fid, &type) && !r.failed);
	}
	/* Type nibbles 13, 14, 15 are invalid. */
	for (uint8_t t = 13; t <= 15; t++)
	{
		uint8_t		b[3] = {(uint8_t) (0x10 | t), 0, 0};
		PqThriftReader r;
		int16_t		fid;
		uint8_t		type;

		pq_thrift_reader_init(&r, b, sizeof(b));
		pq_thrift_struct_begin(&r);
		UNIT_CHECK(!pq_thrift_field_next(&r, &fid, &type) && r.failed);
	}
	/* Long-form field id 40000 does not fit i16. */
	{
		static const uint8_t b[] = {0x05, 0x80, 0xF1, 0x04, 0x00, 0x00};
		PqThriftReader r;
		int16_t		fid;
		uint8_t		type;

		pq_thrift_reader_init(&r, b, sizeof(b));
		pq_thrift_struct_begin(&r);
		UNIT_CHECK(!pq_thrift_field_next(&r, &fid, &type) && r.failed);
	}
	/* Empty input: the field header itself is missing. */
	{
		PqThriftReader r;
		int16_t		fid;
		uint8_t		type;

		pq_thrift_reader_init(&r, full_message, 0);
		pq_thrift_struct_begin(&r);
		UNIT_CHECK(!pq_thrift_field_next(&r, &fid, &type) && r.failed);
	}
	/* A skipped true bool field reads nothing; the next field follows. */
	{
		static const uint8_t b[] = {0x11, 0x15, 0x08, 0x00};
		PqThriftReader r;
		int16_t		fid;
		uint8_t		type;

		pq_thrift_reader_init(&r, b, sizeof(b));
		pq_thrift_struct_begin(&r);
		UNIT_CHECK(pq_thrift_field_next(&r, &fid, &type) && type == PQ_THRIFT_BOOL_TRUE);
		pq_thrift_skip(&r, type);
		UNIT_CHECK(pq_thrift_field_next(&r, &fid, &type) && fid == 2);
		UNIT_CHECK(pq_thrift_i32(&r) == 4);
		UNIT_CHECK(!pq_thrift_field_next(&r, &fid, &type) && !r.failed);
	}
	/* Bool list elements other than 0, 1, 2 are rejected. */
	{
		static const uint8_t b[] = {0x11, 0x07};
		PqThriftReader r;
		uint8_t		et;
		uint32_t	n;

		pq_thrift_reader_init(&r, b, sizeof(b));
		UNIT_CHECK(pq_thrift_list_begin(&r, &et, &n) && n == 1);
		(void) pq_thrift_bool(&r, PQ_THRIFT_BOOL_TRUE);
		UNIT_CHECK(r.failed);
	}
}

/* Nesting deeper than PQ_THRIFT_MAX_DEPTH fails instead of recursing. */
static void
test_depth(void)
{
	/* 100 nested structs, each field 1: 1C 1C ... then STOPs. */
	enum
	{
	NEST = 100};
	uint8_t		b[2 * NEST + 1];
	PqThriftReader r;
	size_t		n = 0;

	for (int i = 0; i < NEST; i++)
		b[n++] = 0x1C;
	for (int i = 0; i <= NEST; i++)
		b[n++] = 0x00;
	pq_thrift_reader_init(&r, b, n);
	pq_thrift_skip(&r, PQ_THRIFT_STRUCT);
	UNIT_CHECK(r.failed);

	/* PQ_THRIFT_MAX_DEPTH - 1 nested fields inside the top struct still pass. */
	n = 0;
	for (int i = 0; i < PQ_THRIFT_MAX_DEPTH - 1; i++)
		b[n++] = 0x1C;
	for (int i = 0; i < PQ_THRIFT_MAX_DEPTH; i++)
		b[n++] = 0x00;
	pq_thrift_reader_init(&r, b, n);
	pq_thrift_skip(&r, PQ_THRIFT_STRUCT);
	UNIT_CHECK(!r.failed && r.pos == r.end && r.depth == 0);

	/* Lists of lists count too: 200 x (list of 1 list) = 19 19 ... */
	{
		uint8_t		lb[200];

		for (int i = 0; i < 200; i++)
			lb[i] = 0x19;
		pq_thrift_reader_init(&r, lb, sizeof(lb));
		pq_thrift_skip(&r, PQ_THRIFT_LIST);
		UNIT_CHECK(r.failed);
	}
}

/* The writer produces the hand-computed bytes of full_message. */
static void
test_writer(void)
{
	PqThriftWriter w;

	pq_thrift_writer_init(&w);
	pq_thrift_write_struct_begin(&w);
	pq_thrift_write_field(&w, 1, PQ_THRIFT_I32);
	pq_thrift_write_i32(&w, 150);
	pq_thrift_write_bool_field(&w, 2, true);
	pq_thrift_write_bool_field(&w, 3, false);
	pq_thrift_write_field(&w, 5, PQ_THRIFT_BINARY);
	pq_thrift_write_binary(&w, "abc", 3);
	pq_thrift_write_field(&w, 21, PQ_THRIFT_I64);
	pq_thrift_write_i64(&w, -1);
	pq_thrift_write_field(&w, 4, PQ_THRIFT_I16);
	pq_thrift_write_i32(&w, -300);
	pq_thrift_write_field(&w, 6, PQ_THRIFT_DOUBLE);
	pq_thrift_write_double(&w, 1.0);
	pq_thrift_write_field(&w, 7, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(&w, PQ_THRIFT_I32, 3);
	pq_thrift_write_i32(&w, 1);
	pq_thrift_write_i32(&w, -1);
	pq_thrift_write_i32(&w, 2);
	pq_thrift_write_field(&w, 8, PQ_THRIFT_STRUCT);
	pq_thrift_write_struct_begin(&w);
	pq_thrift_write_field(&w, 1, PQ_THRIFT_I8);
	pq_thrift_write_i8(&w, -2);
	pq_thrift_write_struct_end(&w);
	pq_thrift_write_field(&w, 9, PQ_THRIFT_MAP);
	pq_thrift_write_map_begin(&w, PQ_THRIFT_I32, PQ_THRIFT_BINARY, 1);
	pq_thrift_write_i32(&w, 1);
	pq_thrift_write_binary(&w, "x", 1);
	pq_thrift_write_field(&w, 10, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(&w, PQ_THRIFT_BOOL_TRUE, 2);
	pq_thrift_write_bool_elem(&w, true);
	pq_thrift_write_bool_elem(&w, false);
	pq_thrift_write_field(&w, 11, PQ_THRIFT_I32);
	pq_thrift_write_i32(&w, INT32_MAX);
	pq_thrift_write_struct_end(&w);

	UNIT_CHECK(!w.failed && w.depth == 0);
	UNIT_CHECK(w.len == sizeof(full_message));
	if (w.len == sizeof(full_message))
		UNIT_CHECK_MEM(w.buf, full_message, w.len);
	pq_thrift_writer_free(&w);
}

/* Random round trips: writer -> reader for many field layouts. */
static void
test_round_trip(void)
{
	uint64_t	seed = 0x5eed1234abcdULL;
	bool		all_ok = true;

	for (int iter = 0; iter < 2000; iter++)
	{
		PqThriftWriter w;
		PqThriftReader r;
		int16_t		fids[24];
		uint8_t		kinds[24];
		int64_t		vals[24];
		int			nfields = (int) (unit_rand(&seed) % 24);
		int16_t		fid = 0;
		int			k;
		int16_t		rfid;
		uint8_t		rtype;

		pq_thrift_writer_init(&w);
		pq_thrift_write_struct_begin(&w);
		for (int i = 0; i < nfields; i++)
		{
			uint64_t	x = unit_rand(&seed);

			/* Mostly ascending small deltas, sometimes big or backwards. */
			if (x % 7 == 0)
				fid = (int16_t) ((int64_t) (x >> 8) % 32767 - 16000);
			else
				fid = (int16_t) (fid + 1 + (x >> 4) % 20);
			fids[i] = fid;
			kinds[i] = (uint8_t) ((x >> 20) % 5);
			vals[i] = (int64_t) unit_rand(&seed) >> (x % 64);
			switch (kinds[i])
			{
				case 0:
					pq_thrift_write_field(&w, fid, PQ_THRIFT_I32);
					pq_thrift_write_i32(&w, (int32_t) vals[i]);
					break;
				case 1:
					pq_thrift_write_field(&w, fid, PQ_THRIFT_I64);
					pq_thrift_write_i64(&w, vals[i]);
					break;
				case 2:
					pq_thrift_write_bool_field(&w, fid, vals[i] & 1);
					break;
				case 3:
					pq_thrift_write_field(&w, fid, PQ_THRIFT_BINARY);
					pq_thrift_write_binary(&w, &vals[i], (uint32_t) (x % 9));
					break;
				case 4:
					pq_thrift_write_field(&w, fid, PQ_THRIFT_DOUBLE);
					pq_thrift_write_double(&w, (double) vals[i] / 3.0);
					break;
			}
		}
		pq_thrift_write_struct_end(&w);

		pq_thrift_reader_init(&r, w.buf, w.len);
		pq_thrift_struct_begin(&r);
		k = 0;
		while (pq_thrift_field_next(&r, &rfid, &rtype))
		{
			if (k >= nfields || rfid != fids[k])
			{
				all_ok = false;
				break;
			}
			switch (kinds[k])
			{
				case 0:
					all_ok &= rtype == PQ_THRIFT_I32 && pq_thrift_i32(&r) == (int32_t) vals[k];
					break;
				case 1:
					all_ok &= rtype == PQ_THRIFT_I64 && pq_thrift_i64(&r) == vals[k];
					break;
				case 2:
					all_ok &= pq_thrift_bool(&r, rtype) == (bool) (vals[k] & 1);
					break;
				case 3:
					{
						const uint8_t *d;
						uint32_t	n;

						all_ok &= rtype == PQ_THRIFT_BINARY && pq_thrift_binary(&r, &d, &n) &&
							memcmp(d, &vals[k], n) == 0;
						break;
					}
				case 4:
					all_ok &= rtype == PQ_THRIFT_DOUBLE &&
						pq_thrift_double(&r) == (double) vals[k] / 3.0;
					break;
			}
			k++;
		}
		pq_thrift_struct_end(&r);
		all_ok &= !r.failed && k == nfields && r.pos == r.end;
		pq_thrift_writer_free(&w);
	}
	UNIT_CHECK(all_ok);

	/* Long list count form round trip. */
	{
		PqThriftWriter w;
		PqThriftReader r;
		uint8_t		et;
		uint32_t	n;
		bool		ok = true;

		pq_thrift_writer_init(&w);
		pq_thrift_write_list_begin(&w, PQ_THRIFT_I64, 1000);
		for (int i = 0; i < 1000; i++)
			pq_thrift_write_i64(&w, (int64_t) i * -123456789);
		UNIT_CHECK(w.buf[0] == 0xF6 && w.buf[1] == 0xE8 && w.buf[2] == 0x07);
		pq_thrift_reader_init(&r, w.buf, w.len);
		UNIT_CHECK(pq_thrift_list_begin(&r, &et, &n) && et == PQ_THRIFT_I64 && n == 1000);
		for (int i = 0; i < 1000; i++)
			ok &= pq_thrift_i64(&r) == (int64_t) i * -123456789;
		UNIT_CHECK(ok && !r.failed && r.pos == r.end);
		pq_thrift_writer_free(&w);
	}
}

/* The writer grows through the hook and latches allocation failure. */
typedef struct GrowCtx
{
	int			calls;
	size_t		limit;
} GrowCtx;

static void *
limited_grow(void *ctx, void *old, size_t new_size)
{
	GrowCtx    *g = ctx;

	g->calls++;
	if (new_size == 0)
	{
		free(old);
		return NULL;
	}
	if (new_size > g->limit)
		return NULL;
	return realloc(old, new_size);
}

static void
test_writer_growth(void)
{
	PqThriftWriter w;
	GrowCtx		g = {0, 1 << 20};
	PqThriftReader r;
	uint8_t		et;
	uint32_t	n;
	bool		ok = true;

	pq_thrift_writer_init(&w);
	w.grow = limited_grow;
	w.grow_ctx = &g;
	pq_thrift_write_list_begin(&w, PQ_THRIFT_I32, 5000);
	for (int i = 0; i < 5000; i++)
		pq_thrift_write_i32(&w, i * 7919);
	UNIT_CHECK(!w.failed && g.calls > 1);
	pq_thrift_reader_init(&r, w.buf, w.len);
	UNIT_CHECK(pq_thrift_list_begin(&r, &et, &n) && n == 5000);
	for (int i = 0; i < 5000; i++)
		ok &= pq_thrift_i32(&r) == i * 7919;
	UNIT_CHECK(ok && r.pos == r.end);

	/* reset keeps the buffer; a refused growth latches failed */
	pq_thrift_writer_reset(&w);
	UNIT_CHECK(w.len == 0 && w.buf != NULL);
	g.limit = w.cap;
	{
		static uint8_t big[1 << 16];

		for (int i = 0; i < 40 && !w.failed; i++)
			pq_thrift_write_binary(&w, big, sizeof(big));
	}
	UNIT_CHECK(w.failed);
	pq_thrift_writer_free(&w);
	UNIT_CHECK(w.buf == NULL && w.len == 0);
}

int
main(void)
{
	test_full_message();
	test_integers();
	test_lists();
	test_field_headers();
	test_depth();
	test_writer();
	test_round_trip();
	test_writer_growth();
	UNIT_MAIN_END("test_thrift");
}
