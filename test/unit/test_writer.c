/*-------------------------------------------------------------------------
 *
 * test_writer.c
 *	  Tests of the Parquet writer (writer.c).
 *
 * The writer's output is checked by readers it does not share code with:
 *
 *	- pq_file_open (metadata.c) decodes every footer written here; schema,
 *	  logical types, row groups, encodings, codecs and statistics are
 *	  compared with what the test asked for and with min/max/null counts the
 *	  test computes itself from the generated rows;
 *	- page CRCs are compared with zlib's crc32();
 *	- list levels are compared with the Dremel levels of the format's
 *	  examples, worked out by hand;
 *	- with PQ_WRITER_OUT_DIR set, the files are also left there for
 *	  test/generated/check_writer.mjs, which reads them with DuckDB and
 *	  compares every value with the same formulas written in SQL (and then
 *	  writes expected CSVs for the conformance harness).
 *
 * Every value is a function of the row number (row_value() below; the SQL
 * twin is in check_writer.mjs): change both together.
 *
 * IDENTIFICATION
 *	  test/unit/test_writer.c
 *
 *-------------------------------------------------------------------------
 */
#include "common/crc32.h"
#include "compress/compress.h"
#include "parquet/page_index.h"
#include "parquet/parquet.h"
#include "parquet/thrift.h"
#include "parquet/writer.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <xxhash.h>
#include <zlib.h>

#include "unit.h"

/* ----------------------------------------------------------------
 * Memory sink and source
 * ----------------------------------------------------------------
 */
typedef struct MemBuf
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
	int			fail_after;		/* >= 0: fail writes once len would pass it */
} MemBuf;

static int
mem_write(void *ctx, const void *buf, size_t len)
{
	MemBuf	   *m = ctx;

	if (m->fail_after >= 0 && m->len + len > (size_t) m->fail_after)
		return ENOSPC;
	if (m->len + len > m->cap)
	{
		size_t		cap = m->cap ? m->cap : 4096;

		while (cap < m->len + len)
			cap *= 2;
		m->data = realloc(m->data, cap);
		m->cap = cap;
	}
	memcpy(m->data + m->len, buf, len);
	m->len += len;
	return 0;
}

static int
mem_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	MemBuf	   *m = ctx;

	if (offset > m->len || len > m->len - offset)
		return EIO;
	memcpy(buf, m->data + offset, len);
	return 0;
}

static PqStatus
open_mem(MemBuf *m, PqFile **file, PqError *err)
{
	PfcSource	src;

	src.read_at = mem_read_at;
	src.size = m->len;
	src.ctx = m;
	return pq_file_open(file, &src, &pfc_malloc_allocator, err);
}

/* ----------------------------------------------------------------
 * The dataset: one column per kind the writer supports
 * ----------------------------------------------------------------
 */
enum
{
	C_ID, C_I32, C_I64, C_U8, C_U32, C_U64, C_I8, C_F32, C_F64, C_BOOL,
	C_STR, C_BIN, C_DATE, C_TS_US, C_TS_MS_UTC, C_TS_NS, C_TIME_US,
	C_TIME_MS_UTC, C_DEC9, C_DEC18, C_DEC38, C_DECBA, C_UUID, C_INTERVAL,
	C_LIST_INT, C_LIST_STR, C_JSON, C_FLBA3, C_INT96, C_ENUM,
	NUM_COLS
};

static PqLogicalType
lt_kind(PqLogicalKind kind)
{
	PqLogicalType lt;

	memset(&lt, 0, sizeof(lt));
	lt.kind = kind;
	return lt;
}

static PqLogicalType
lt_int(int bits, bool is_signed)
{
	PqLogicalType lt = lt_kind(PQ_LT_INTEGER);

	lt.bit_width = (int8_t) bits;
	lt.is_signed = is_signed;
	return lt;
}

static PqLogicalType
lt_time(PqLogicalKind kind, PqTimeUnit unit, bool utc)
{
	PqLogicalType lt = lt_kind(kind);

	lt.unit = unit;
	lt.utc_adjusted = utc;
	return lt;
}

static PqLogicalType
lt_dec(int p, int s)
{
	PqLogicalType lt = lt_kind(PQ_LT_DECIMAL);

	lt.precision = p;
	lt.scale = s;
	return lt;
}

/* How a variant encodes its columns. */
typedef enum Style
{
	STYLE_PLAIN,
	STYLE_DICT,
	STYLE_DELTA_BINARY,			/* INT32, INT64 */
	STYLE_DELTA_LENGTH,			/* BYTE_ARRAY */
	STYLE_DELTA_BYTE_ARRAY,		/* BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY */
	STYLE_BSS_FLOATS,			/* FLOAT, DOUBLE (what DuckDB reads) */
	STYLE_BSS_ALL				/* every type the spec allows it for */
} Style;

/*
 * The Parquet Encoding id a style gives a physical type (the encodings
 * section of the format spec): -1 where the style does not apply, and the
 * column is written PLAIN (or dictionary for STYLE_DICT).
 */
static int
style_encoding(Style style, PqPhysicalType p)
{
	switch (style)
	{
		case STYLE_DELTA_BINARY:
			return p == PQ_INT32 || p == PQ_INT64 ? 5 : -1;
		case STYLE_DELTA_LENGTH:
			return p == PQ_BYTE_ARRAY ? 6 : -1;
		case STYLE_DELTA_BYTE_ARRAY:
			return p == PQ_BYTE_ARRAY || p == PQ_FIXED_LEN_BYTE_ARRAY ? 7 : -1;
		case STYLE_BSS_FLOATS:
			return p == PQ_FLOAT || p == PQ_DOUBLE ? 9 : -1;
		case STYLE_BSS_ALL:
			return p == PQ_FLOAT || p == PQ_DOUBLE || p == PQ_INT32 || p == PQ_INT64 ||
				p == PQ_FIXED_LEN_BYTE_ARRAY ? 9 : -1;
		default:
			return -1;
	}
}

static PqWriteEncoding
style_write_encoding(Style style, PqPhysicalType p)
{
	if (style == STYLE_DICT)
		return PQ_WRITE_DICTIONARY;
	switch (style_encoding(style, p))
	{
		case 5:
			return PQ_WRITE_DELTA_BINARY_PACKED;
		case 6:
			return PQ_WRITE_DELTA_LENGTH_BYTE_ARRAY;
		case 7:
			return PQ_WRITE_DELTA_BYTE_ARRAY;
		case 9:
			return PQ_WRITE_BYTE_STREAM_SPLIT;
		default:
			return PQ_WRITE_PLAIN;
	}
}

static void
dataset_columns(PqWriteColumn *c, Style style)
{
	memset(c, 0, sizeof(PqWriteColumn) * NUM_COLS);
	for (int i = 0; i < NUM_COLS; i++)
	{
		c[i].repetition = PQ_OPTIONAL;
		c[i].field_id = -1;
	}
#define COL(idx, nm, phys, lt) (c[idx].name = (nm), c[idx].physical = (phys), c[idx].logical = (lt))
	COL(C_ID, "id", PQ_INT64, lt_kind(PQ_LT_NONE));
	c[C_ID].repetition = PQ_REQUIRED;
	c[C_ID].field_id = 1;
	COL(C_I32, "i32", PQ_INT32, lt_kind(PQ_LT_NONE));
	COL(C_I64, "i64", PQ_INT64, lt_kind(PQ_LT_NONE));
	COL(C_U8, "u8", PQ_INT32, lt_int(8, false));
	c[C_U8].repetition = PQ_REQUIRED;
	COL(C_U32, "u32", PQ_INT32, lt_int(32, false));
	COL(C_U64, "u64", PQ_INT64, lt_int(64, false));
	c[C_U64].repetition = PQ_REQUIRED;
	COL(C_I8, "i8", PQ_INT32, lt_int(8, true));
	COL(C_F32, "f32", PQ_FLOAT, lt_kind(PQ_LT_NONE));
	COL(C_F64, "f64", PQ_DOUBLE, lt_kind(PQ_LT_NONE));
	c[C_F64].repetition = PQ_REQUIRED;
	COL(C_BOOL, "b", PQ_BOOLEAN, lt_kind(PQ_LT_NONE));
	COL(C_STR, "s", PQ_BYTE_ARRAY, lt_kind(PQ_LT_STRING));
	COL(C_BIN, "bin", PQ_BYTE_ARRAY, lt_kind(PQ_LT_NONE));
	c[C_BIN].repetition = PQ_REQUIRED;
	COL(C_DATE, "d", PQ_INT32, lt_kind(PQ_LT_DATE));
	COL(C_TS_US, "ts_us", PQ_INT64, lt_time(PQ_LT_TIMESTAMP, PQ_UNIT_MICROS, false));
	COL(C_TS_MS_UTC, "ts_ms_utc", PQ_INT64, lt_time(PQ_LT_TIMESTAMP, PQ_UNIT_MILLIS, true));
	COL(C_TS_NS, "ts_ns", PQ_INT64, lt_time(PQ_LT_TIMESTAMP, PQ_UNIT_NANOS, false));
	COL(C_TIME_US, "time_us", PQ_INT64, lt_time(PQ_LT_TIME, PQ_UNIT_MICROS, false));
	COL(C_TIME_MS_UTC, "time_ms_utc", PQ_INT32, lt_time(PQ_LT_TIME, PQ_UNIT_MILLIS, true));
	COL(C_DEC9, "dec9", PQ_INT32, lt_dec(9, 2));
	COL(C_DEC18, "dec18", PQ_INT64, lt_dec(18, 4));
	COL(C_DEC38, "dec38", PQ_FIXED_LEN_BYTE_ARRAY, lt_dec(38, 10));
	c[C_DEC38].type_length = 16;
	COL(C_DECBA, "dec_ba", PQ_BYTE_ARRAY, lt_dec(20, 3));
	COL(C_UUID, "uuid", PQ_FIXED_LEN_BYTE_ARRAY, lt_kind(PQ_LT_UUID));
	c[C_UUID].type_length = 16;
	COL(C_INTERVAL, "ivl", PQ_FIXED_LEN_BYTE_ARRAY, lt_kind(PQ_LT_INTERVAL));
	c[C_INTERVAL].type_length = 12;
	COL(C_LIST_INT, "l_int", PQ_INT32, lt_kind(PQ_LT_NONE));
	c[C_LIST_INT].is_list = true;
	c[C_LIST_INT].element_repetition = PQ_OPTIONAL;
	c[C_LIST_INT].field_id = 7;
	COL(C_LIST_STR, "l_str", PQ_BYTE_ARRAY, lt_kind(PQ_LT_STRING));
	c[C_LIST_STR].is_list = true;
	c[C_LIST_STR].repetition = PQ_REQUIRED;
	c[C_LIST_STR].element_repetition = PQ_REQUIRED;
	COL(C_JSON, "js", PQ_BYTE_ARRAY, lt_kind(PQ_LT_JSON));
	COL(C_FLBA3, "flba3", PQ_FIXED_LEN_BYTE_ARRAY, lt_kind(PQ_LT_NONE));
	c[C_FLBA3].type_length = 3;
	COL(C_INT96, "i96", PQ_INT96, lt_kind(PQ_LT_NONE));
	COL(C_ENUM, "en", PQ_BYTE_ARRAY, lt_kind(PQ_LT_ENUM));
#undef COL
	for (int i = 0; i < NUM_COLS; i++)
		c[i].encoding = style_write_encoding(style, c[i].physical);
	/* DuckDB 1.5 reads DELTA_LENGTH_BYTE_ARRAY for strings and blobs only */
	if (style == STYLE_DELTA_LENGTH)
		c[C_DECBA].encoding = PQ_WRITE_PLAIN;
}

static bool
row_is_null(int col, int64_t i)
{
	switch (col)
	{
		case C_I32:
			return i % 7 == 3;
		case C_I64:
			return i % 11 == 5;
		case C_U32:
			return i % 17 == 0;
		case C_F32:
			return i % 13 == 0;
		case C_BOOL:
			return i % 5 == 4;
		case C_STR:
			return i % 9 == 2;
		case C_ID:
		case C_U8:
		case C_U64:
		case C_F64:
		case C_BIN:
		case C_LIST_STR:
			return false;
		default:
			return i % 23 == 7;	/* every other optional column */
	}
}

/* Minimal big-endian two's complement bytes of v (at least one byte). */
static uint32_t
int128_be_minimal(__int128 v, uint8_t *out)
{
	uint8_t		full[16];
	int			start = 0;

	for (int k = 0; k < 16; k++)
		full[15 - k] = (uint8_t) (v >> (8 * k));
	while (start < 15 &&
		   ((full[start] == 0x00 && !(full[start + 1] & 0x80)) ||
			(full[start] == 0xFF && (full[start + 1] & 0x80))))
		start++;
	memcpy(out, full + start, 16 - start);
	return (uint32_t) (16 - start);
}

/*
 * Row i's value of a flat column, as the bytes PLAIN would store (fixed
 * width) or as a byte string; returns the length.
 */
static uint32_t
row_value(int col, int64_t i, uint8_t *out)
{
	switch (col)
	{
		case C_ID:
			memcpy(out, &i, 8);
			return 8;
		case C_I32:
			{
				int32_t		v = (int32_t) ((i * 7919) % 100000) - 50000;

				memcpy(out, &v, 4);
				return 4;
			}
		case C_I64:
			{
				int64_t		v = i * 1000003 - 500000000;

				memcpy(out, &v, 8);
				return 8;
			}
		case C_U8:
			{
				int32_t		v = (int32_t) (i % 256);

				memcpy(out, &v, 4);
				return 4;
			}
		case C_U32:
			{
				uint32_t	v = (uint32_t) ((uint64_t) i * 2654435761u);

				memcpy(out, &v, 4);
				return 4;
			}
		case C_U64:
			{
				uint64_t	v = (uint64_t) i * UINT64_C(11400714819323198485);

				memcpy(out, &v, 8);
				return 8;
			}
		case C_I8:
			{
				int32_t		v = (int32_t) (i % 256) - 128;

				memcpy(out, &v, 4);
				return 4;
			}
		case C_F32:
			{
				float		v = (float) ((i % 1000) * 0.5 - 100);

				memcpy(out, &v, 4);
				return 4;
			}
		case C_F64:
			{
				double		v = i % 97 == 1 ? NAN : i / 8.0;

				memcpy(out, &v, 8);
				return 8;
			}
		case C_BOOL:
			out[0] = i % 3 == 0;
			return 1;
		case C_STR:
			return (uint32_t) sprintf((char *) out, "v%d\xc3\xa9", (int) (i % 50));
		case C_BIN:
			{
				int			n = sprintf((char *) out, "k%lld", (long long) i);

				out[n] = 0xFF;
				return (uint32_t) n + 1;
			}
		case C_DATE:
			{
				int32_t		v = (int32_t) (i % 20000) - 10000;

				memcpy(out, &v, 4);
				return 4;
			}
		case C_TS_US:
			{
				int64_t		v = i * 1000003000 - INT64_C(50000000000000);

				memcpy(out, &v, 8);
				return 8;
			}
		case C_TS_MS_UTC:
			{
				int64_t		v = i * 86400123;

				memcpy(out, &v, 8);
				return 8;
			}
		case C_TS_NS:
			{
				int64_t		v = i * 123456789 - INT64_C(1000000000000);

				memcpy(out, &v, 8);
				return 8;
			}
		case C_TIME_US:
			{
				int64_t		v = (i * 1000003) % INT64_C(86400000000);

				memcpy(out, &v, 8);
				return 8;
			}
		case C_TIME_MS_UTC:
			{
				int32_t		v = (int32_t) ((i * 1001) % 86400000);

				memcpy(out, &v, 4);
				return 4;
			}
		case C_DEC9:
			{
				int32_t		v = (int32_t) (i * 7919 - 300000000);

				memcpy(out, &v, 4);
				return 4;
			}
		case C_DEC18:
			{
				int64_t		v = i * 1000003 * 7 - 123456789;

				memcpy(out, &v, 8);
				return 8;
			}
		case C_DEC38:
			{
				__int128	v = (__int128) (i - 50000) * ((__int128) 10000000000 * 10000000000) + i;

				for (int k = 0; k < 16; k++)
					out[15 - k] = (uint8_t) (v >> (8 * k));
				return 16;
			}
		case C_DECBA:
			return int128_be_minimal((__int128) (i - 50000) * 1000000007, out);
		case C_UUID:
			for (int k = 0; k < 16; k++)
				out[k] = (uint8_t) ((i * 31 + k * 17) & 0xFF);
			return 16;
		case C_INTERVAL:
			{
				uint32_t	m = (uint32_t) (i % 13),
							d = (uint32_t) (i % 31),
							ms = (uint32_t) ((i * 1000) % 86400000);

				memcpy(out, &m, 4);
				memcpy(out + 4, &d, 4);
				memcpy(out + 8, &ms, 4);
				return 12;
			}
		case C_JSON:
			return (uint32_t) sprintf((char *) out, "{\"i\": %lld}", (long long) i);
		case C_FLBA3:
			out[0] = (uint8_t) (i % 256);
			out[1] = (uint8_t) ((i / 256) % 256);
			out[2] = 0x41;
			return 3;
		case C_INT96:
			{
				/* Impala layout: nanoseconds of the day, then the Julian day */
				int64_t		nanos = i * 1000;
				int32_t		jd = 2440588 + (int32_t) (i % 1000);

				memcpy(out, &nanos, 8);
				memcpy(out + 8, &jd, 4);
				return 12;
			}
		case C_ENUM:
			{
				static const char *const names[] = {"red", "green", "blue"};

				strcpy((char *) out, names[i % 3]);
				return (uint32_t) strlen(names[i % 3]);
			}
	}
	return 0;
}

/* List rows: l_int is NULL when i % 10 == 0, empty when i % 10 == 1, else
 * i % 4 + 1 elements i*10+j, NULL when (i+j) % 7 == 0.  l_str holds
 * "a<j>" for j < i % 3 (empty when i % 3 == 0). */
static int
list_length(int col, int64_t i)
{
	if (col == C_LIST_INT)
		return i % 10 == 0 || i % 10 == 1 ? 0 : (int) (i % 4) + 1;
	return (int) (i % 3);
}

/* A batch of rows [first, first + n) of one column, and its storage. */
typedef struct ColData
{
	PqColumnBatch batch;
	uint8_t    *values;
	bool	   *is_null;
	int16_t    *def;
	int16_t    *rep;
	uint8_t    *arena;
} ColData;

static void
coldata_free(ColData *cd)
{
	free(cd->values);
	free(cd->is_null);
	free(cd->def);
	free(cd->rep);
	free(cd->arena);
	memset(cd, 0, sizeof(*cd));
}

static int
fixed_width(const PqWriteColumn *c)
{
	switch (c->physical)
	{
		case PQ_BOOLEAN:
			return 1;
		case PQ_INT32:
		case PQ_FLOAT:
			return 4;
		case PQ_INT64:
		case PQ_DOUBLE:
			return 8;
		case PQ_INT96:
			return 12;
		case PQ_FIXED_LEN_BYTE_ARRAY:
			return c->type_length;
		default:
			return 0;
	}
}

static void
build_batch(const PqWriteColumn *cols, int col, int64_t first, uint32_t n, ColData *cd)
{
	const PqWriteColumn *c = &cols[col];
	int			width = fixed_width(c);
	size_t		vsize = width ? (size_t) width : sizeof(CdcByteView);
	size_t		apos = 0;

	memset(cd, 0, sizeof(*cd));
	if (!c->is_list)
	{
		cd->values = calloc((size_t) n + 1, vsize);
		cd->is_null = calloc((size_t) n + 1, sizeof(bool));
		cd->arena = malloc((size_t) n * 64 + 64);
		for (uint32_t r = 0; r < n; r++)
		{
			int64_t		i = first + r;

			cd->is_null[r] = row_is_null(col, i);
			if (cd->is_null[r])
				continue;
			if (width)
				row_value(col, i, cd->values + r * vsize);
			else
			{
				CdcByteView *v = (CdcByteView *) cd->values + r;

				v->len = row_value(col, i, cd->arena + apos);
				v->ptr = cd->arena + apos;
				apos += v->len;
			}
		}
		cd->batch.num_rows = n;
		cd->batch.num_levels = n;
		cd->batch.is_null = c->repetition == PQ_OPTIONAL ? cd->is_null : NULL;
		cd->batch.values = cd->values;
		return;
	}
	else
	{
		int64_t    *offsets = malloc(((size_t) n + 1) * sizeof(int64_t));
		bool	   *list_null = calloc((size_t) n + 1, sizeof(bool));
		bool	   *elem_null;
		int64_t    *vidx;
		size_t		nlev;
		int64_t		e = 0;
		uint32_t	nv = 0;
		PqError		err;
		uint8_t    *elem_vals;

		for (uint32_t r = 0; r < n; r++)
		{
			offsets[r] = e;
			e += list_length(col, first + r);
			list_null[r] = col == C_LIST_INT && (first + r) % 10 == 0;
		}
		offsets[n] = e;
		elem_null = calloc((size_t) e + 1, sizeof(bool));
		elem_vals = calloc((size_t) e + 1, vsize);
		cd->arena = malloc((size_t) e * 16 + 16);
		for (uint32_t r = 0; r < n; r++)
		{
			int64_t		i = first + r;

			for (int64_t k = offsets[r]; k < offsets[r + 1]; k++)
			{
				int			j = (int) (k - offsets[r]);

				if (col == C_LIST_INT)
				{
					int32_t		v = (int32_t) (i * 10 + j);

					elem_null[k] = (i + j) % 7 == 0;
					memcpy(elem_vals + k * vsize, &v, 4);
				}
				else
				{
					CdcByteView *v = (CdcByteView *) elem_vals + k;

					v->len = (uint32_t) sprintf((char *) cd->arena + apos, "a%d", j);
					v->ptr = cd->arena + apos;
					apos += v->len;
				}
			}
		}
		nlev = pq_list_level_count(offsets, n);
		cd->def = malloc((nlev + 1) * sizeof(int16_t));
		cd->rep = malloc((nlev + 1) * sizeof(int16_t));
		vidx = malloc((nlev + 1) * sizeof(int64_t));
		UNIT_CHECK(pq_list_levels(c, n, offsets, list_null, elem_null, cd->def,
								  cd->rep, vidx, &nv, &err) == PQ_OK);
		cd->values = calloc((size_t) nv + 1, vsize);
		for (size_t l = 0, o = 0; l < nlev; l++)
			if (vidx[l] >= 0)
				memcpy(cd->values + vsize * o++, elem_vals + vsize * vidx[l], vsize);
		cd->batch.num_rows = n;
		cd->batch.num_levels = (uint32_t) nlev;
		cd->batch.num_values = nv;
		cd->batch.def_levels = cd->def;
		cd->batch.rep_levels = cd->rep;
		cd->batch.values = cd->values;
		free(offsets);
		free(list_null);
		free(elem_null);
		free(elem_vals);
		free(vidx);
	}
}

/* ----------------------------------------------------------------
 * Writing a whole file of the dataset
 * ----------------------------------------------------------------
 */
typedef struct Variant
{
	const char *name;
	Style		style;
	int32_t		codec;
	bool		v2;
	bool		crc;
	uint32_t	page_rows;
	uint32_t	dict_max_entries;
	int			num_rows;
	int			rows_per_group;
	bool		split_batches;	/* two write_column calls per chunk */
	bool		empty_last_group;
	bool		page_index;		/* write_page_index */
	bool		bloom;			/* bloom filters on BLOOM_COLS */
} Variant;

/* Columns that get a bloom filter in variants with .bloom. */
static const int BLOOM_COLS[] = {C_ID, C_I32, C_STR, C_UUID, C_LIST_STR};

static void
set_bloom_columns(PqWriteColumn *cols, const Variant *v)
{
	if (v->bloom)
		for (size_t k = 0; k < sizeof(BLOOM_COLS) / sizeof(BLOOM_COLS[0]); k++)
			cols[BLOOM_COLS[k]].bloom_filter_bytes = 3000;	/* becomes 4096 */
}

static const Variant variants[] = {
	{"plain_v1_uncompressed", STYLE_PLAIN, CMP_UNCOMPRESSED, false, false, 0, 0, 5000, 5000, false, false, false, true},
	{"dict_v1_snappy", STYLE_DICT, CMP_SNAPPY, false, true, 0, 0, 10000, 4000, false, false},
	{"dict_v2_zstd", STYLE_DICT, CMP_ZSTD, true, true, 1000, 0, 10000, 4000, true, false, true, true},
	{"plain_v2_gzip", STYLE_PLAIN, CMP_GZIP, true, false, 700, 0, 6000, 6000, false, true, true},
	{"dict_v1_brotli_small_pages", STYLE_DICT, CMP_BROTLI, false, true, 100, 0, 3000, 1000, true, false, true},
	{"plain_v2_lz4raw", STYLE_PLAIN, CMP_LZ4_RAW, true, true, 0, 0, 4000, 4000, false, false},
	{"dict_fallback_v1_zstd", STYLE_DICT, CMP_ZSTD, false, false, 20, 40, 8000, 8000, true, false, true},
	{"dict_v2_uncompressed", STYLE_DICT, CMP_UNCOMPRESSED, true, true, 0, 0, 3000, 3000, false, false},
	{"delta_binary_v2_snappy", STYLE_DELTA_BINARY, CMP_SNAPPY, true, true, 1000, 0, 5000, 2500, true, false, true},
	{"delta_length_v1_zstd", STYLE_DELTA_LENGTH, CMP_ZSTD, false, false, 700, 0, 4000, 4000, false, true},
	{"delta_byte_array_v2_gzip", STYLE_DELTA_BYTE_ARRAY, CMP_GZIP, true, false, 0, 0, 4000, 1500, true, false, false, true},
	{"byte_stream_split_v1_snappy", STYLE_BSS_FLOATS, CMP_SNAPPY, false, true, 333, 0, 4000, 4000, false, false},
	/* DuckDB reads BYTE_STREAM_SPLIT on floats only: check_writer.mjs
	 * compares this one with its PLAIN twin plain_v1_uncompressed */
	{"bss_all_types_v2_zstd", STYLE_BSS_ALL, CMP_ZSTD, true, true, 0, 0, 5000, 5000, false, false},
};

static PqStatus
write_dataset(const Variant *v, MemBuf *out, PqError *err)
{
	PqWriteColumn cols[NUM_COLS];
	PqWriterOptions opt;
	PqSink		sink = {mem_write, out};
	PqWriter   *w;
	PqStatus	st;
	static const PqKeyValue kv[] = {{"writer.test", "dataset", 7}, {"no.value", NULL, 0}};

	dataset_columns(cols, v->style);
	set_bloom_columns(cols, v);
	pq_writer_options_init(&opt);
	opt.codec = v->codec;
	opt.data_page_v2 = v->v2;
	opt.write_crc = v->crc;
	opt.page_row_limit = v->page_rows;
	opt.dictionary_max_entries = v->dict_max_entries;
	opt.write_page_index = v->page_index;
	opt.num_key_values = 2;
	opt.key_values = kv;
	st = pq_writer_open(&w, cols, NUM_COLS, &opt, &sink, &pfc_malloc_allocator, err);
	for (int first = 0; st == PQ_OK && first < v->num_rows; first += v->rows_per_group)
	{
		uint32_t	n = (uint32_t) (v->num_rows - first < v->rows_per_group ?
									v->num_rows - first : v->rows_per_group);

		for (int c = 0; c < NUM_COLS && st == PQ_OK; c++)
		{
			ColData		cd;
			uint32_t	half = v->split_batches ? n / 3 : n;

			build_batch(cols, c, first, half, &cd);
			st = pq_writer_write_column(w, c, &cd.batch, err);
			coldata_free(&cd);
			if (st == PQ_OK && half < n)
			{
				build_batch(cols, c, first + half, n - half, &cd);
				st = pq_writer_write_column(w, c, &cd.batch, err);
				coldata_free(&cd);
			}
		}
		if (st == PQ_OK)
			st = pq_writer_end_row_group(w, err);
	}
	if (st == PQ_OK && v->empty_last_group)
		st = pq_writer_end_row_group(w, err);
	if (st == PQ_OK)
		st = pq_writer_close(w, err);
	pq_writer_free(w);
	return st;
}

/* ----------------------------------------------------------------
 * Checks against pq_file_open and recomputed statistics
 * ----------------------------------------------------------------
 */
static int
cmp_stat(int col, const uint8_t *a, uint32_t al, const uint8_t *b, uint32_t bl)
{
	switch (col)
	{
		case C_U32:
			{
				uint32_t	x, y;

				memcpy(&x, a, 4);
				memcpy(&y, b, 4);
				return (x > y) - (x < y);
			}
		case C_U64:
			{
				uint64_t	x, y;

				memcpy(&x, a, 8);
				memcpy(&y, b, 8);
				return (x > y) - (x < y);
			}
		case C_ID: case C_I64: case C_TS_US: case C_TS_MS_UTC: case C_TS_NS:
		case C_TIME_US: case C_DEC18:
			{
				int64_t		x, y;

				memcpy(&x, a, 8);
				memcpy(&y, b, 8);
				return (x > y) - (x < y);
			}
		case C_F32:
			{
				float		x, y;

				memcpy(&x, a, 4);
				memcpy(&y, b, 4);
				return (x > y) - (x < y);
			}
		case C_F64:
			{
				double		x, y;

				memcpy(&x, a, 8);
				memcpy(&y, b, 8);
				return (x > y) - (x < y);
			}
		case C_BOOL:
			return (a[0] != 0) - (b[0] != 0);
		case C_DEC38:
		case C_DECBA:
			{
				/* decode to __int128 and compare: independent of byte tricks */
				__int128	x = (a[0] & 0x80) ? -1 : 0,
							y = (b[0] & 0x80) ? -1 : 0;

				for (uint32_t k = 0; k < al; k++)
					x = x * 256 + a[k];
				for (uint32_t k = 0; k < bl; k++)
					y = y * 256 + b[k];
				return (x > y) - (x < y);
			}
		case C_STR: case C_BIN: case C_UUID: case C_JSON: case C_FLBA3: case C_ENUM:
			{
				uint32_t	n = al < bl ? al : bl;
				int			r = memcmp(a, b, n);

				return r != 0 ? (r > 0) - (r < 0) : (al > bl) - (al < bl);
			}
		default:				/* the remaining INT32 kinds */
			{
				int32_t		x, y;

				memcpy(&x, a, 4);
				memcpy(&y, b, 4);
				return (x > y) - (x < y);
			}
	}
}

/*
 * Statistics of rows [first, last) of a column recomputed from the
 * formulas: min/max (NaN skipped, a zero float min made -0.0 as the spec
 * says), null count (level entries without a value) and level entries.
 */
static void
recompute(const PqWriteColumn *cols, int c, int64_t first, int64_t last,
		  uint8_t *minb, uint32_t *minl, uint8_t *maxb, uint32_t *maxl,
		  bool *any, int64_t *nulls, int64_t *levels)
{
	uint8_t		cur[64];

	*any = false;
	*nulls = *levels = 0;
	*minl = *maxl = 0;
	for (int64_t i = first; i < last; i++)
	{
		if (cols[c].is_list)
		{
			int			len = list_length(c, i);
			bool		lnull = c == C_LIST_INT && i % 10 == 0;

			if (lnull || len == 0)
			{
				(*nulls)++;
				(*levels)++;
				continue;
			}
			for (int j = 0; j < len; j++)
			{
				uint32_t	l;

				(*levels)++;
				if (c == C_LIST_INT && (i + j) % 7 == 0)
				{
					(*nulls)++;
					continue;
				}
				if (c == C_LIST_INT)
				{
					int32_t		x = (int32_t) (i * 10 + j);

					memcpy(cur, &x, 4);
					l = 4;
				}
				else
					l = (uint32_t) sprintf((char *) cur, "a%d", j);
				if (!*any || cmp_stat(c == C_LIST_INT ? C_I32 : C_STR, cur, l, minb, *minl) < 0)
					memcpy(minb, cur, *minl = l);
				if (!*any || cmp_stat(c == C_LIST_INT ? C_I32 : C_STR, cur, l, maxb, *maxl) > 0)
					memcpy(maxb, cur, *maxl = l);
				*any = true;
			}
			continue;
		}
		(*levels)++;
		if (row_is_null(c, i))
		{
			(*nulls)++;
			continue;
		}
		{
			uint32_t	l = row_value(c, i, cur);

			if (c == C_F64 && isnan(((double *) (void *) cur)[0]))
				continue;
			if (!*any || cmp_stat(c, cur, l, minb, *minl) < 0)
				memcpy(minb, cur, *minl = l);
			if (!*any || cmp_stat(c, cur, l, maxb, *maxl) > 0)
				memcpy(maxb, cur, *maxl = l);
			*any = true;
		}
	}
	if (*any && c == C_F64)
	{
		double		z;

		memcpy(&z, minb, 8);
		if (z == 0.0)
		{
			z = -0.0;
			memcpy(minb, &z, 8);
		}
	}
	if (*any && c == C_F32)
	{
		float		z;

		memcpy(&z, minb, 4);
		if (z == 0.0f)
		{
			z = -0.0f;
			memcpy(minb, &z, 4);
		}
	}
}

static bool
has_encoding(const PqColumnChunkMeta *cc, int32_t enc)
{
	for (int e = 0; e < cc->num_encodings; e++)
		if (cc->encodings[e] == enc)
			return true;
	return false;
}

static void
check_dataset_file(const Variant *v, MemBuf *m)
{
	PqFile	   *f = NULL;
	PqError		err;
	const PqFileMeta *fm;
	PqWriteColumn cols[NUM_COLS];
	int			groups = (v->num_rows + v->rows_per_group - 1) / v->rows_per_group +
		(v->empty_last_group ? 1 : 0);

	dataset_columns(cols, v->style);
	UNIT_CHECKF(open_mem(m, &f, &err) == PQ_OK, "%s: %s", v->name, err.message);
	if (f == NULL)
		return;
	fm = pq_file_meta(f);
	UNIT_CHECK(fm->num_rows == v->num_rows);
	UNIT_CHECK(fm->num_leaves == NUM_COLS);
	UNIT_CHECKF(fm->num_row_groups == groups, "%s: %d row groups", v->name, fm->num_row_groups);
	UNIT_CHECK(fm->created_by && strcmp(fm->created_by, "parquet_fdw writer") == 0);
	UNIT_CHECK(fm->num_key_values == 2 && strcmp(fm->key_values[0].key, "writer.test") == 0 &&
			   fm->key_values[0].value_len == 7 && memcmp(fm->key_values[0].value, "dataset", 7) == 0 &&
			   fm->key_values[1].value == NULL);
	if (fm->num_leaves != NUM_COLS)
	{
		pq_file_close(f);
		return;
	}

	for (int c = 0; c < NUM_COLS; c++)
	{
		const PqLeaf *leaf = &fm->leaves[c];
		const PqSchemaNode *n = leaf->node;
		const PqWriteColumn *wc = &cols[c];

		UNIT_CHECKF(strcmp(leaf->path, wc->name) == 0 ||
					(wc->is_list && strncmp(leaf->path, wc->name, strlen(wc->name)) == 0 &&
					 strcmp(leaf->path + strlen(wc->name), ".list.element") == 0),
					"leaf %d path %s", c, leaf->path);
		UNIT_CHECK(n->physical == wc->physical);
		UNIT_CHECK(leaf->max_def == pq_write_column_max_def(wc));
		UNIT_CHECK(leaf->max_rep == pq_write_column_max_rep(wc));
		UNIT_CHECK(leaf->type_defined_order);
		UNIT_CHECKF(n->logical.kind == wc->logical.kind, "column %s kind %d", wc->name, n->logical.kind);
		if (wc->physical == PQ_FIXED_LEN_BYTE_ARRAY)
			UNIT_CHECK(n->type_length == wc->type_length);
		if (wc->logical.kind == PQ_LT_DECIMAL)
			UNIT_CHECK(n->logical.precision == wc->logical.precision &&
					   n->logical.scale == wc->logical.scale);
		if (wc->logical.kind == PQ_LT_TIME || wc->logical.kind == PQ_LT_TIMESTAMP)
			UNIT_CHECKF(n->logical.unit == wc->logical.unit &&
						n->logical.utc_adjusted == wc->logical.utc_adjusted,
						"column %s unit/utc", wc->name);
		if (wc->logical.kind == PQ_LT_INTEGER)
			UNIT_CHECK(n->logical.bit_width == wc->logical.bit_width &&
					   n->logical.is_signed == wc->logical.is_signed);
		if (wc->is_list)
		{
			UNIT_CHECK(n->parent && n->parent->parent &&
					   n->parent->parent->logical.kind == PQ_LT_LIST &&
					   n->parent->parent->field_id == wc->field_id);
		}
		else if (c == C_ID)
			UNIT_CHECK(n->field_id == 1);
	}

	for (int g = 0, first = 0; g < fm->num_row_groups; g++)
	{
		const PqRowGroupMeta *rg = &fm->row_groups[g];
		int			n = g < groups - (v->empty_last_group ? 1 : 0) ?
			(v->num_rows - first < v->rows_per_group ? v->num_rows - first : v->rows_per_group) : 0;

		UNIT_CHECKF(rg->num_rows == n, "%s rg %d: %lld rows", v->name, g, (long long) rg->num_rows);
		for (int c = 0; c < NUM_COLS; c++)
		{
			const PqColumnChunkMeta *cc = &rg->columns[c];
			const PqStatistics *st = &cc->statistics;
			uint8_t		minb[64], maxb[64];
			uint32_t	minl = 0, maxl = 0;
			bool		any = false;
			int64_t		nulls = 0, levels = 0;

			UNIT_CHECK(cc->codec == v->codec);
			UNIT_CHECK(cc->type == cols[c].physical);
			recompute(cols, c, first, first + n, minb, &minl, maxb, &maxl, &any, &nulls, &levels);
			UNIT_CHECKF(cc->num_values == levels, "%s rg %d col %d: %lld values vs %lld",
						v->name, g, c, (long long) cc->num_values, (long long) levels);
			UNIT_CHECK(cc->has_statistics && st->has_null_count && st->null_count == nulls);
			if (c == C_INT96 || c == C_INTERVAL || !any)
			{
				UNIT_CHECKF(!st->has_min && !st->has_max, "%s col %d has min/max", v->name, c);
				continue;
			}
			UNIT_CHECKF(st->has_min && st->has_max && !st->min_is_legacy &&
						st->has_min_exact && st->min_exact && st->has_max_exact && st->max_exact,
						"%s rg %d col %d stats flags", v->name, g, c);
			if (!st->has_min || !st->has_max)
				continue;
			/* a zero float bound is written as -0.0 (min) / +0.0 (max) */
			UNIT_CHECKF(st->min_len == minl && memcmp(st->min, minb, minl) == 0 &&
						st->max_len == maxl && memcmp(st->max, maxb, maxl) == 0,
						"%s rg %d col %s min/max differ", v->name, g, cols[c].name);
		}
		/* encodings: dictionary chunks list RLE_DICTIONARY; fallback adds PLAIN pages */
		{
			const PqColumnChunkMeta *s = &rg->columns[C_STR];
			const PqColumnChunkMeta *id = &rg->columns[C_ID];
			const PqColumnChunkMeta *b = &rg->columns[C_BOOL];

			UNIT_CHECK(!has_encoding(b, 8) && has_encoding(b, 0));
			if (v->style == STYLE_DICT && n > 0)
			{
				UNIT_CHECK(has_encoding(s, 8) && s->has_dictionary_page_offset);
				if (v->dict_max_entries > 0)
					UNIT_CHECKF(has_encoding(id, 8) && has_encoding(id, 0),
								"%s: id chunk should fall back to PLAIN", v->name);
			}
			else
				UNIT_CHECK(!has_encoding(s, 8) && !s->has_dictionary_page_offset);
			UNIT_CHECK(has_encoding(s, 3));	/* RLE levels */
			for (int c = 0; c < NUM_COLS; c++)
			{
				int			want = style_encoding(v->style, cols[c].physical);

				if (want >= 0 && cols[c].encoding != PQ_WRITE_PLAIN)
					UNIT_CHECKF(has_encoding(&rg->columns[c], want) &&
								!has_encoding(&rg->columns[c], 0),
								"%s rg %d col %s: encoding %d missing", v->name, g,
								cols[c].name, want);
			}
			UNIT_CHECK(!has_encoding(&rg->columns[C_U64], 3));	/* required, flat */
		}
		first += n;
	}
	pq_file_close(f);
}

/*
 * Walk the pages of every chunk: page headers parse as Thrift with the
 * sizes the footer adds up to, and each stored CRC equals zlib's crc32 of
 * the page bytes.  A minimal PageHeader reader, written from parquet.thrift
 * with the Thrift reader (only fields 1-4 are needed).
 */
static void
check_pages_and_crc(const Variant *v, MemBuf *m)
{
	PqFile	   *f = NULL;
	PqError		err;
	const PqFileMeta *fm;
	int			pages = 0, crcs = 0;

	if (open_mem(m, &f, &err) != PQ_OK)
		return;
	fm = pq_file_meta(f);
	for (int g = 0; g < fm->num_row_groups; g++)
		for (int c = 0; c < fm->num_leaves; c++)
		{
			const PqColumnChunkMeta *cc = &fm->row_groups[g].columns[c];
			int64_t		pos = cc->has_dictionary_page_offset ? cc->dictionary_page_offset :
				cc->data_page_offset;
			int64_t		end = pos + cc->total_compressed_size;
			int64_t		values = 0;

			while (pos < end)
			{
				PqThriftReader r;
				int16_t		fid;
				uint8_t		type;
				int32_t		ptype = -1, csize = -1, crc = 0, nvals = 0;
				bool		has_crc = false;

				pq_thrift_reader_init(&r, m->data + pos, (size_t) (end - pos));
				pq_thrift_struct_begin(&r);
				while (pq_thrift_field_next(&r, &fid, &type))
				{
					if (fid == 1 && type == PQ_THRIFT_I32)
						ptype = pq_thrift_i32(&r);
					else if (fid == 3 && type == PQ_THRIFT_I32)
						csize = pq_thrift_i32(&r);
					else if (fid == 4 && type == PQ_THRIFT_I32)
					{
						crc = pq_thrift_i32(&r);
						has_crc = true;
					}
					else if ((fid == 5 || fid == 8) && type == PQ_THRIFT_STRUCT)
					{
						int16_t		f2;
						uint8_t		t2;

						pq_thrift_struct_begin(&r);
						while (pq_thrift_field_next(&r, &f2, &t2))
						{
							if (f2 == 1 && t2 == PQ_THRIFT_I32)
								nvals = pq_thrift_i32(&r);
							else
								pq_thrift_skip(&r, t2);
						}
						pq_thrift_struct_end(&r);
					}
					else
						pq_thrift_skip(&r, type);
				}
				pq_thrift_struct_end(&r);
				UNIT_CHECK(!r.failed && csize >= 0);
				if (r.failed || csize < 0)
					break;
				pos += (int64_t) pq_thrift_reader_offset(&r, m->data + pos);
				UNIT_CHECK(pos + csize <= end);
				UNIT_CHECK(has_crc == v->crc);
				if (has_crc)
				{
					uint32_t	ref = (uint32_t) crc32(0L, m->data + pos, (uInt) csize);

					UNIT_CHECKF((uint32_t) crc == ref, "%s rg %d col %d: crc %08x vs zlib %08x",
								v->name, g, c, (uint32_t) crc, ref);
					crcs++;
				}
				if (ptype == 0 || ptype == 3)
					values += nvals;
				pos += csize;
				pages++;
			}
			UNIT_CHECK(pos == end);
			UNIT_CHECK(values == cc->num_values);
			if (v->page_rows > 0 && fm->row_groups[g].num_rows > (int64_t) v->page_rows * 2)
				UNIT_CHECK(pages >= 2);
		}
	UNIT_CHECK(pages > 0);
	UNIT_CHECK(!v->crc || crcs == pages);
	pq_file_close(f);
}

/*
 * The page index, read back with page_index.c: OffsetIndex pages tile the
 * chunk from its first data page, starting at row 0; ColumnIndex null
 * counts, null pages and bounds equal what recompute() gives for the rows
 * of each page; INT96 and INTERVAL (undefined order) have no ColumnIndex.
 */
static void
check_page_index(const Variant *v, MemBuf *m)
{
	PqFile	   *f = NULL;
	PqError		err;
	const PqFileMeta *fm;
	PqWriteColumn cols[NUM_COLS];
	int64_t		first = 0;
	int			multi_page_chunks = 0;

	dataset_columns(cols, v->style);
	if (open_mem(m, &f, &err) != PQ_OK)
		return;
	fm = pq_file_meta(f);
	for (int g = 0; g < fm->num_row_groups; g++)
	{
		const PqRowGroupMeta *rg = &fm->row_groups[g];

		for (int c = 0; c < NUM_COLS; c++)
		{
			const PqColumnChunkMeta *cc = &rg->columns[c];
			PqOffsetIndex *oi = NULL;
			PqColumnIndex *ci = NULL;
			bool		ordered = c != C_INT96 && c != C_INTERVAL;

			if (!v->page_index || rg->num_rows == 0)
			{
				UNIT_CHECK(!cc->has_offset_index && !cc->has_column_index);
				continue;
			}
			UNIT_CHECK(cc->has_offset_index);
			UNIT_CHECKF(cc->has_column_index == ordered, "%s col %s: column index %d",
						v->name, cols[c].name, cc->has_column_index);
			UNIT_CHECKF(pq_read_offset_index(f, g, c, &pfc_malloc_allocator, &oi, &err) == PQ_OK,
						"%s rg %d col %d: %s", v->name, g, c, err.message);
			if (oi == NULL)
				continue;
			UNIT_CHECK(oi->num_pages >= 1 && oi->pages[0].first_row_index == 0 &&
					   oi->pages[0].offset == cc->data_page_offset);
			for (uint32_t k = 0; k + 1 < oi->num_pages; k++)
				UNIT_CHECK(oi->pages[k + 1].offset == oi->pages[k].offset + oi->pages[k].compressed_page_size &&
						   oi->pages[k + 1].first_row_index > oi->pages[k].first_row_index);
			{
				const PqPageLocation *last = &oi->pages[oi->num_pages - 1];
				int64_t		start = cc->has_dictionary_page_offset ?
					cc->dictionary_page_offset : cc->data_page_offset;

				UNIT_CHECK(last->offset + last->compressed_page_size == start + cc->total_compressed_size);
			}
			multi_page_chunks += oi->num_pages > 1;
			if (ordered &&
				pq_read_column_index(f, g, c, &pfc_malloc_allocator, &ci, &err) == PQ_OK)
			{
				UNIT_CHECK(ci->num_pages == oi->num_pages && ci->has_null_counts);
				for (uint32_t k = 0; k < ci->num_pages && k < oi->num_pages; k++)
				{
					int64_t		lo = first + oi->pages[k].first_row_index;
					int64_t		hi = k + 1 < oi->num_pages ? first + oi->pages[k + 1].first_row_index :
						first + rg->num_rows;
					uint8_t		minb[64], maxb[64];
					uint32_t	minl, maxl;
					bool		any;
					int64_t		nulls, levels;

					recompute(cols, c, lo, hi, minb, &minl, maxb, &maxl, &any, &nulls, &levels);
					UNIT_CHECKF(ci->null_counts[k] == nulls && ci->null_pages[k] == (levels == nulls),
								"%s rg %d col %s page %u: nulls %lld vs %lld", v->name, g,
								cols[c].name, k, (long long) ci->null_counts[k], (long long) nulls);
					if (!ci->null_pages[k])
						UNIT_CHECKF(ci->min_values[k].len == minl &&
									memcmp(ci->min_values[k].data, minb, minl) == 0 &&
									ci->max_values[k].len == maxl &&
									memcmp(ci->max_values[k].data, maxb, maxl) == 0,
									"%s rg %d col %s page %u: bounds differ", v->name, g,
									cols[c].name, k);
				}
				if (c == C_ID)
					UNIT_CHECK(ci->boundary_order == PQ_BOUNDARY_ASCENDING);
				pq_column_index_free(ci);
			}
			else if (ordered)
				UNIT_CHECKF(false, "%s rg %d col %d: column index: %s", v->name, g, c, err.message);
			pq_offset_index_free(oi);
		}
		first += rg->num_rows;
	}
	UNIT_CHECK(!v->page_index || v->page_rows == 0 || multi_page_chunks > 0);
	pq_file_close(f);
}

/*
 * Bloom filters, read back with page_index.c: every value of the chunk's
 * rows is found (a bloom filter has no false negatives) and values that are
 * not there are mostly rejected; columns without one have none.
 */
static void
check_bloom_filters(const Variant *v, MemBuf *m)
{
	PqFile	   *f = NULL;
	PqError		err;
	const PqFileMeta *fm;
	PqWriteColumn cols[NUM_COLS];
	int64_t		first = 0;

	dataset_columns(cols, v->style);
	set_bloom_columns(cols, v);
	if (open_mem(m, &f, &err) != PQ_OK)
		return;
	fm = pq_file_meta(f);
	for (int g = 0; g < fm->num_row_groups; g++)
	{
		int64_t		n = fm->row_groups[g].num_rows;

		for (int c = 0; c < NUM_COLS; c++)
		{
			const PqColumnChunkMeta *cc = &fm->row_groups[g].columns[c];
			uint8_t    *bits = NULL;
			uint32_t	len = 0;
			int			false_pos = 0;

			UNIT_CHECK(cc->has_bloom_filter == (cols[c].bloom_filter_bytes > 0));
			if (!cc->has_bloom_filter)
				continue;
			UNIT_CHECKF(pq_read_bloom_filter(f, g, c, &pfc_malloc_allocator, &bits, &len, &err) == PQ_OK,
						"%s rg %d col %d: %s", v->name, g, c, err.message);
			if (bits == NULL)
				continue;
			UNIT_CHECK(len == 4096);
			for (int64_t i = first; i < first + n; i++)
			{
				uint8_t		val[64];
				uint32_t	l;

				if (c == C_LIST_STR)
				{
					for (int j = 0; j < list_length(c, i); j++)
					{
						l = (uint32_t) sprintf((char *) val, "a%d", j);
						UNIT_CHECK(pfc_sbbf_probe(bits, len, XXH64(val, l, 0)));
					}
					continue;
				}
				if (row_is_null(c, i))
					continue;
				l = row_value(c, i, val);
				UNIT_CHECKF(pfc_sbbf_probe(bits, len, XXH64(val, l, 0)),
							"%s rg %d col %s row %lld missing from the bloom filter",
							v->name, g, cols[c].name, (long long) i);
			}
			/* 1000 values outside the dataset: ids/ints far away, other strings */
			for (int k = 0; k < 1000; k++)
			{
				uint8_t		val[64];
				uint32_t	l;

				if (c == C_ID)
				{
					int64_t		x = INT64_C(1000000000000) + k;

					memcpy(val, &x, 8);
					l = 8;
				}
				else if (c == C_I32)
				{
					int32_t		x = 1000000 + k;

					memcpy(val, &x, 4);
					l = 4;
				}
				else if (c == C_UUID)
				{
					memset(val, 0xEE, 16);
					memcpy(val, &k, sizeof(k));
					l = 16;
				}
				else
					l = (uint32_t) sprintf((char *) val, "absent-%d", k);
				false_pos += pfc_sbbf_probe(bits, len, XXH64(val, l, 0));
			}
			UNIT_CHECKF(false_pos < 100, "%s rg %d col %s: %d false positives in 1000",
						v->name, g, cols[c].name, false_pos);
			free(bits);
		}
		first += n;
	}
	pq_file_close(f);
}

/*
 * Expected levels of row i of a list column, from the Dremel definition:
 * l_int is an optional list (def 1) of a repeated group (def 2) of optional
 * elements (def 3); l_str is required throughout (def 1 only for elements).
 * Returns the number of level entries written to def/rep.
 */
static int
expected_list_levels(int c, int64_t i, int16_t *def, int16_t *rep)
{
	int			len = list_length(c, i);

	if (c == C_LIST_INT && i % 10 == 0)
	{
		def[0] = 0;
		rep[0] = 0;
		return 1;
	}
	if (len == 0)
	{
		def[0] = c == C_LIST_INT ? 1 : 0;
		rep[0] = 0;
		return 1;
	}
	for (int j = 0; j < len; j++)
	{
		def[j] = c == C_LIST_INT ? ((i + j) % 7 == 0 ? 2 : 3) : 1;
		rep[j] = j == 0 ? 0 : 1;
	}
	return len;
}

/*
 * Every value read back with the project's column reader (column_reader.c,
 * page CRCs verified where written), in batches that cut across pages,
 * equals the formulas.
 */
static void
check_with_reader(const Variant *v, MemBuf *m)
{
	PqFile	   *f = NULL;
	PqError		err;
	const PqFileMeta *fm;
	PqWriteColumn cols[NUM_COLS];
	PqColumnReaderOptions ro;
	int64_t		first = 0;
	long		mismatches = 0;

	dataset_columns(cols, v->style);
	memset(&ro, 0, sizeof(ro));
	ro.verify_crc = v->crc;
	if (open_mem(m, &f, &err) != PQ_OK)
		return;
	fm = pq_file_meta(f);
	for (int g = 0; g < fm->num_row_groups; g++)
	{
		int64_t		n = fm->row_groups[g].num_rows;

		for (int c = 0; c < NUM_COLS; c++)
		{
			PqColumnReader *r = NULL;
			int64_t		row = first;
			int			width = fixed_width(&cols[c]);

			UNIT_CHECKF(pq_column_reader_open(&r, f, g, c, &ro, &pfc_malloc_allocator, &err) == PQ_OK,
						"%s rg %d col %d: %s", v->name, g, c, err.message);
			if (r == NULL)
				continue;
			for (;;)
			{
				PqColumnBatch b;
				uint32_t	vi = 0,
							l = 0;

				if (pq_column_reader_read(r, 777, &b, &err) != PQ_OK)
				{
					UNIT_CHECKF(false, "%s rg %d col %s: read: %s", v->name, g, cols[c].name, err.message);
					break;
				}
				if (b.num_rows == 0)
					break;
				for (uint32_t k = 0; k < b.num_rows; k++, row++)
				{
					uint8_t		want[64];
					uint32_t	wl;

					if (cols[c].is_list)
					{
						int16_t		d[8], rp[8];
						int			ne = expected_list_levels(c, row, d, rp);

						for (int e = 0; e < ne; e++, l++)
						{
							const CdcByteView *bv;

							if (l >= b.num_levels || b.def_levels[l] != d[e] || b.rep_levels[l] != rp[e])
							{
								mismatches++;
								continue;
							}
							if (d[e] != (c == C_LIST_INT ? 3 : 1))
								continue;
							if (c == C_LIST_INT)
							{
								int32_t		x = (int32_t) (row * 10 + e);

								mismatches += memcmp((const int32_t *) b.values + vi, &x, 4) != 0;
							}
							else
							{
								wl = (uint32_t) sprintf((char *) want, "a%d", e);
								bv = (const CdcByteView *) b.values + vi;
								mismatches += bv->len != wl || memcmp(bv->ptr, want, wl) != 0;
							}
							vi++;
						}
						continue;
					}
					if (row_is_null(c, row))
					{
						mismatches += b.is_null == NULL || !b.is_null[k];
						continue;
					}
					if (b.is_null != NULL && b.is_null[k])
					{
						mismatches++;
						continue;
					}
					wl = row_value(c, row, want);
					if (width > 0)
						mismatches += memcmp((const uint8_t *) b.values + (size_t) k * width, want, wl) != 0;
					else
					{
						const CdcByteView *bv = (const CdcByteView *) b.values + k;

						mismatches += bv->len != wl || memcmp(bv->ptr, want, wl) != 0;
					}
				}
				if (cols[c].is_list)
					mismatches += l != b.num_levels || vi != b.num_values;
			}
			UNIT_CHECKF(row == first + n, "%s rg %d col %s: %lld rows read of %lld", v->name, g,
						cols[c].name, (long long) (row - first), (long long) n);
			pq_column_reader_close(r);
		}
		first += n;
	}
	UNIT_CHECKF(mismatches == 0, "%s: %ld values differ from the formulas", v->name, mismatches);
	pq_file_close(f);
}

/* ----------------------------------------------------------------
 * Focused tests
 * ----------------------------------------------------------------
 */
static void
test_crc32(void)
{
	uint64_t	seed = 42;
	uint8_t		buf[4099];

	UNIT_CHECK(pfc_crc32("123456789", 9) == 0xCBF43926u);	/* the CRC-32 check value */
	UNIT_CHECK(pfc_crc32("", 0) == 0);
	for (int t = 0; t < 50; t++)
	{
		size_t		n = (size_t) (unit_rand(&seed) % sizeof(buf));

		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t) unit_rand(&seed);
		UNIT_CHECK(pfc_crc32(buf, n) == (uint32_t) crc32(0L, buf, (uInt) n));
	}
}

/*
 * Levels of an optional list of optional int32 for the rows
 * [1, 2], [], NULL, [NULL, 3]: max_def 3 (list, repeated group, element),
 * max_rep 1.  Worked out from the definition of the levels.
 */
static void
test_list_levels(void)
{
	PqWriteColumn c;
	int64_t		offsets[] = {0, 2, 2, 2, 4};
	bool		list_null[] = {false, false, true, false};
	bool		elem_null[] = {false, false, true, false};
	int16_t		def[8], rep[8];
	int64_t		vidx[8];
	uint32_t	nv = 0;
	PqError		err;
	static const int16_t want_def[] = {3, 3, 1, 0, 2, 3};
	static const int16_t want_rep[] = {0, 1, 0, 0, 0, 1};
	static const int64_t want_idx[] = {0, 1, -1, -1, -1, 3};

	memset(&c, 0, sizeof(c));
	c.name = "l";
	c.physical = PQ_INT32;
	c.repetition = PQ_OPTIONAL;
	c.is_list = true;
	c.element_repetition = PQ_OPTIONAL;
	UNIT_CHECK(pq_write_column_max_def(&c) == 3 && pq_write_column_max_rep(&c) == 1);
	UNIT_CHECK(pq_list_level_count(offsets, 4) == 6);
	UNIT_CHECK(pq_list_levels(&c, 4, offsets, list_null, elem_null, def, rep, vidx, &nv, &err) == PQ_OK);
	UNIT_CHECK(nv == 3);
	UNIT_CHECK_MEM(def, want_def, sizeof(want_def));
	UNIT_CHECK_MEM(rep, want_rep, sizeof(want_rep));
	UNIT_CHECK_MEM(vidx, want_idx, sizeof(want_idx));

	/* required list of required elements: max_def 1; a NULL list is refused */
	c.repetition = PQ_REQUIRED;
	c.element_repetition = PQ_REQUIRED;
	UNIT_CHECK(pq_write_column_max_def(&c) == 1);
	UNIT_CHECK(pq_list_levels(&c, 4, offsets, list_null, NULL, def, rep, NULL, &nv, &err) ==
			   PQ_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(pq_list_levels(&c, 2, offsets, NULL, NULL, def, rep, NULL, &nv, &err) == PQ_OK);
	UNIT_CHECK(def[0] == 1 && def[1] == 1 && def[2] == 0 && rep[0] == 0 && rep[1] == 1 &&
			   rep[2] == 0 && nv == 2);
}

static PqWriteColumn
simple_col(const char *name, PqPhysicalType p, PqRepetition rep)
{
	PqWriteColumn c;

	memset(&c, 0, sizeof(c));
	c.name = name;
	c.physical = p;
	c.repetition = rep;
	c.field_id = -1;
	return c;
}

static void
test_contract_errors(void)
{
	PqWriteColumn c[2];
	PqWriterOptions opt;
	MemBuf		m = {0};
	PqSink		sink = {mem_write, &m};
	PqWriter   *w = NULL;
	PqError		err;
	int32_t		vals[4] = {1, 2, 3, 4};
	bool		nulls[4] = {false, true, false, false};
	PqColumnBatch b;

	m.fail_after = -1;
	pq_writer_options_init(&opt);

	/* annotations that do not fit the physical type */
	c[0] = simple_col("x", PQ_INT64, PQ_OPTIONAL);
	c[0].logical = lt_kind(PQ_LT_DATE);
	UNIT_CHECK(pq_writer_open(&w, c, 1, &opt, &sink, &pfc_malloc_allocator, &err) ==
			   PQ_ERR_INVALID_ARGUMENT && err.column == 0);
	pq_writer_free(w);
	c[0] = simple_col("x", PQ_INT32, PQ_OPTIONAL);
	c[0].logical = lt_dec(10, 2);
	UNIT_CHECK(pq_writer_open(&w, c, 1, &opt, &sink, &pfc_malloc_allocator, &err) ==
			   PQ_ERR_INVALID_ARGUMENT);
	pq_writer_free(w);
	c[0] = simple_col("x", PQ_FIXED_LEN_BYTE_ARRAY, PQ_OPTIONAL);
	c[0].type_length = 4;
	c[0].logical = lt_dec(10, 2);	/* 4 bytes hold 9 digits */
	UNIT_CHECK(pq_writer_open(&w, c, 1, &opt, &sink, &pfc_malloc_allocator, &err) ==
			   PQ_ERR_INVALID_ARGUMENT);
	pq_writer_free(w);
	c[0].logical = lt_dec(9, 2);
	UNIT_CHECK(pq_writer_open(&w, c, 1, &opt, &sink, &pfc_malloc_allocator, &err) == PQ_OK);
	pq_writer_free(w);
	c[0] = simple_col("x", PQ_DOUBLE, PQ_OPTIONAL);
	c[0].encoding = PQ_WRITE_DELTA_BINARY_PACKED;
	UNIT_CHECK(pq_writer_open(&w, c, 1, &opt, &sink, &pfc_malloc_allocator, &err) ==
			   PQ_ERR_INVALID_ARGUMENT);
	pq_writer_free(w);
	c[0] = simple_col("x", PQ_BOOLEAN, PQ_OPTIONAL);
	c[0].encoding = PQ_WRITE_BYTE_STREAM_SPLIT;
	UNIT_CHECK(pq_writer_open(&w, c, 1, &opt, &sink, &pfc_malloc_allocator, &err) ==
			   PQ_ERR_INVALID_ARGUMENT);
	pq_writer_free(w);
	c[0] = simple_col("x", PQ_INT32, PQ_REPEATED);
	UNIT_CHECK(pq_writer_open(&w, c, 1, &opt, &sink, &pfc_malloc_allocator, &err) ==
			   PQ_ERR_INVALID_ARGUMENT);
	pq_writer_free(w);
	opt.codec = CMP_LZO;
	c[0] = simple_col("x", PQ_INT32, PQ_OPTIONAL);
	UNIT_CHECK(pq_writer_open(&w, c, 1, &opt, &sink, &pfc_malloc_allocator, &err) ==
			   PQ_ERR_UNSUPPORTED);
	pq_writer_free(w);
	opt.codec = CMP_UNCOMPRESSED;

	/* NULL in a REQUIRED column; columns out of order; row count mismatch */
	c[0] = simple_col("a", PQ_INT32, PQ_REQUIRED);
	c[1] = simple_col("b", PQ_INT32, PQ_OPTIONAL);
	memset(&b, 0, sizeof(b));
	b.num_rows = 4;
	b.values = vals;
	b.is_null = nulls;
	m.len = 0;
	UNIT_CHECK(pq_writer_open(&w, c, 2, &opt, &sink, &pfc_malloc_allocator, &err) == PQ_OK);
	UNIT_CHECK(pq_writer_write_column(w, 0, &b, &err) == PQ_ERR_INVALID_ARGUMENT);
	b.is_null = NULL;
	UNIT_CHECK(pq_writer_write_column(w, 1, &b, &err) == PQ_OK);
	UNIT_CHECK(pq_writer_write_column(w, 0, &b, &err) == PQ_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(pq_writer_end_row_group(w, &err) == PQ_ERR_INVALID_ARGUMENT);	/* a: 0 rows */
	pq_writer_free(w);

	/* a sink that fails: PQ_ERR_IO with its errno, then everything refuses */
	m.len = 0;
	m.fail_after = 10;
	UNIT_CHECK(pq_writer_open(&w, c, 2, &opt, &sink, &pfc_malloc_allocator, &err) == PQ_OK);
	UNIT_CHECK(pq_writer_write_column(w, 0, &b, &err) == PQ_OK);
	UNIT_CHECK(pq_writer_write_column(w, 1, &b, &err) == PQ_ERR_IO && err.sys_errno == ENOSPC);
	UNIT_CHECK(pq_writer_close(w, &err) == PQ_ERR_INVALID_ARGUMENT);
	pq_writer_free(w);
	pq_writer_free(NULL);
	free(m.data);
}

/* Float statistics: NaN ignored, a zero bound signed as the spec says;
 * all-NaN chunks have no min/max. */
static void
test_float_stats(void)
{
	PqWriteColumn c[2];
	PqWriterOptions opt;
	MemBuf		m = {0};
	PqSink		sink = {mem_write, &m};
	PqWriter   *w;
	PqError		err;
	PqFile	   *f;
	double		d[4] = {NAN, 0.0, 2.5, -0.0};
	float		fl[4] = {NAN, NAN, NAN, NAN};
	PqColumnBatch b;

	m.fail_after = -1;
	pq_writer_options_init(&opt);
	c[0] = simple_col("d", PQ_DOUBLE, PQ_REQUIRED);
	c[1] = simple_col("f", PQ_FLOAT, PQ_REQUIRED);
	UNIT_CHECK(pq_writer_open(&w, c, 2, &opt, &sink, &pfc_malloc_allocator, &err) == PQ_OK);
	memset(&b, 0, sizeof(b));
	b.num_rows = 4;
	b.values = d;
	UNIT_CHECK(pq_writer_write_column(w, 0, &b, &err) == PQ_OK);
	b.values = fl;
	UNIT_CHECK(pq_writer_write_column(w, 1, &b, &err) == PQ_OK);
	UNIT_CHECK(pq_writer_close(w, &err) == PQ_OK);
	pq_writer_free(w);
	UNIT_CHECK(open_mem(&m, &f, &err) == PQ_OK);
	{
		const PqStatistics *s = &pq_file_meta(f)->row_groups[0].columns[0].statistics;
		const PqStatistics *s2 = &pq_file_meta(f)->row_groups[0].columns[1].statistics;
		double		mn, mx;

		UNIT_CHECK(s->has_min && s->has_max && s->min_len == 8 && s->max_len == 8);
		memcpy(&mn, s->min, 8);
		memcpy(&mx, s->max, 8);
		UNIT_CHECK(mn == 0.0 && signbit(mn) && mx == 2.5);
		UNIT_CHECK(!s2->has_min && !s2->has_max && s2->null_count == 0);
	}
	pq_file_close(f);
	free(m.data);
}

/* Byte-array bounds longer than statistics_max_len: min truncated, max
 * rounded up, both inexact; a max of all 0xFF cannot be rounded up. */
static void
test_truncated_stats(void)
{
	PqWriteColumn c[2];
	PqWriterOptions opt;
	MemBuf		m = {0};
	PqSink		sink = {mem_write, &m};
	PqWriter   *w;
	PqError		err;
	PqFile	   *f;
	CdcByteView v[3] = {{(const uint8_t *) "abcdefgh", 8}, {(const uint8_t *) "abczzzzz", 8},
	{(const uint8_t *) "ab", 2}};
	CdcByteView ff[2] = {{(const uint8_t *) "\xff\xff\xff\xff\xff", 5}, {(const uint8_t *) "\x01", 1}};
	PqColumnBatch b;

	m.fail_after = -1;
	pq_writer_options_init(&opt);
	opt.statistics_max_len = 4;
	c[0] = simple_col("s", PQ_BYTE_ARRAY, PQ_REQUIRED);
	c[0].logical = lt_kind(PQ_LT_STRING);
	c[1] = simple_col("x", PQ_BYTE_ARRAY, PQ_REQUIRED);
	UNIT_CHECK(pq_writer_open(&w, c, 2, &opt, &sink, &pfc_malloc_allocator, &err) == PQ_OK);
	memset(&b, 0, sizeof(b));
	b.num_rows = 3;
	b.values = v;
	UNIT_CHECK(pq_writer_write_column(w, 0, &b, &err) == PQ_OK);
	b.num_rows = 2;
	b.values = ff;
	UNIT_CHECK(pq_writer_write_column(w, 1, &b, &err) == PQ_OK);
	UNIT_CHECK(pq_writer_end_row_group(w, &err) == PQ_ERR_INVALID_ARGUMENT && err.column == 1);	/* 2 vs 3 rows */
	pq_writer_free(w);

	m.len = 0;
	UNIT_CHECK(pq_writer_open(&w, c, 2, &opt, &sink, &pfc_malloc_allocator, &err) == PQ_OK);
	b.num_rows = 2;
	b.values = v;
	UNIT_CHECK(pq_writer_write_column(w, 0, &b, &err) == PQ_OK);
	b.values = ff;
	UNIT_CHECK(pq_writer_write_column(w, 1, &b, &err) == PQ_OK);
	UNIT_CHECK(pq_writer_close(w, &err) == PQ_OK);
	pq_writer_free(w);
	UNIT_CHECK(open_mem(&m, &f, &err) == PQ_OK);
	{
		const PqStatistics *s = &pq_file_meta(f)->row_groups[0].columns[0].statistics;
		const PqStatistics *s2 = &pq_file_meta(f)->row_groups[0].columns[1].statistics;

		UNIT_CHECK(s->has_min && s->min_len == 4 && memcmp(s->min, "abcd", 4) == 0 &&
				   s->has_min_exact && !s->min_exact);
		UNIT_CHECK(s->has_max && s->max_len == 4 && memcmp(s->max, "abc{", 4) == 0 && s->has_max_exact && !s->max_exact);
		UNIT_CHECK(s2->has_min && s2->min_len == 1 && s2->min[0] == 1 && s2->min_exact);
		UNIT_CHECK(!s2->has_max);
	}
	pq_file_close(f);

	/* fixed-width bounds stay whole and exact */
	{
		uint8_t		u[2][16];
		PqColumnBatch ub;

		memset(u[0], 0x11, 16);
		memset(u[1], 0x99, 16);
		c[0] = simple_col("u", PQ_FIXED_LEN_BYTE_ARRAY, PQ_REQUIRED);
		c[0].type_length = 16;
		c[0].logical = lt_kind(PQ_LT_UUID);
		m.len = 0;
		UNIT_CHECK(pq_writer_open(&w, c, 1, &opt, &sink, &pfc_malloc_allocator, &err) == PQ_OK);
		memset(&ub, 0, sizeof(ub));
		ub.num_rows = 2;
		ub.values = u;
		UNIT_CHECK(pq_writer_write_column(w, 0, &ub, &err) == PQ_OK);
		UNIT_CHECK(pq_writer_close(w, &err) == PQ_OK);
		pq_writer_free(w);
		UNIT_CHECK(open_mem(&m, &f, &err) == PQ_OK);
		{
			const PqStatistics *st = &pq_file_meta(f)->row_groups[0].columns[0].statistics;

			UNIT_CHECK(st->has_min && st->min_len == 16 && memcmp(st->min, u[0], 16) == 0 && st->min_exact);
			UNIT_CHECK(st->has_max && st->max_len == 16 && memcmp(st->max, u[1], 16) == 0 && st->max_exact);
		}
		pq_file_close(f);
	}
	free(m.data);
}

/* A damaged page body: the reader reports PQ_ERR_CHECKSUM when it checks
 * the CRC the writer stored, and reads on when it does not. */
static void
test_crc_detects_damage(void)
{
	PqWriteColumn c[1];
	PqWriterOptions opt;
	MemBuf		m = {0};
	PqSink		sink = {mem_write, &m};
	PqWriter   *w;
	PqError		err;
	PqFile	   *f;
	int64_t		vals[100];
	PqColumnBatch b;

	m.fail_after = -1;
	for (int i = 0; i < 100; i++)
		vals[i] = i * 3;
	pq_writer_options_init(&opt);
	opt.write_crc = true;
	c[0] = simple_col("x", PQ_INT64, PQ_REQUIRED);
	UNIT_CHECK(pq_writer_open(&w, c, 1, &opt, &sink, &pfc_malloc_allocator, &err) == PQ_OK);
	memset(&b, 0, sizeof(b));
	b.num_rows = 100;
	b.values = vals;
	UNIT_CHECK(pq_writer_write_column(w, 0, &b, &err) == PQ_OK);
	UNIT_CHECK(pq_writer_close(w, &err) == PQ_OK);
	pq_writer_free(w);
	UNIT_CHECK(open_mem(&m, &f, &err) == PQ_OK);
	{
		const PqColumnChunkMeta *cc = &pq_file_meta(f)->row_groups[0].columns[0];
		PqColumnReaderOptions ro = {true};
		PqColumnReader *r = NULL;

		/* the last byte of the chunk is the last value's high byte */
		m.data[cc->data_page_offset + cc->total_compressed_size - 1] ^= 0x40;
		UNIT_CHECK(pq_column_reader_open(&r, f, 0, 0, &ro, &pfc_malloc_allocator, &err) == PQ_OK);
		UNIT_CHECK(r && pq_column_reader_read(r, 100, &b, &err) == PQ_ERR_CHECKSUM);
		pq_column_reader_close(r);
		ro.verify_crc = false;
		r = NULL;
		UNIT_CHECK(pq_column_reader_open(&r, f, 0, 0, &ro, &pfc_malloc_allocator, &err) == PQ_OK);
		UNIT_CHECK(r && pq_column_reader_read(r, 100, &b, &err) == PQ_OK && b.num_rows == 100 &&
				   ((const int64_t *) b.values)[99] == (297 ^ (INT64_C(0x40) << 56)));
		pq_column_reader_close(r);
	}
	pq_file_close(f);
	free(m.data);
}

/* A file with no row groups, and one whose only row group is empty. */
static void
test_empty_files(void)
{
	PqWriteColumn c[2];
	PqWriterOptions opt;
	PqError		err;

	pq_writer_options_init(&opt);
	c[0] = simple_col("a", PQ_INT32, PQ_OPTIONAL);
	c[1] = simple_col("b", PQ_BYTE_ARRAY, PQ_REQUIRED);
	c[1].logical = lt_kind(PQ_LT_STRING);
	c[1].encoding = PQ_WRITE_DICTIONARY;
	for (int groups = 0; groups < 2; groups++)
	{
		MemBuf		m = {0};
		PqSink		sink = {mem_write, &m};
		PqWriter   *w;
		PqFile	   *f = NULL;

		m.fail_after = -1;
		UNIT_CHECK(pq_writer_open(&w, c, 2, &opt, &sink, &pfc_malloc_allocator, &err) == PQ_OK);
		if (groups == 1)
			UNIT_CHECK(pq_writer_end_row_group(w, &err) == PQ_OK);
		UNIT_CHECK(pq_writer_close(w, &err) == PQ_OK);
		pq_writer_free(w);
		UNIT_CHECK(m.len >= 12 && memcmp(m.data, "PAR1", 4) == 0 && memcmp(m.data + m.len - 4, "PAR1", 4) == 0);
		UNIT_CHECKF(open_mem(&m, &f, &err) == PQ_OK, "%s", err.message);
		if (f != NULL)
		{
			const PqFileMeta *fm = pq_file_meta(f);

			UNIT_CHECK(fm->num_rows == 0 && fm->num_row_groups == groups && fm->num_leaves == 2);
			if (groups == 1)
			{
				PqColumnReader *r = NULL;
				PqColumnBatch b;
				PqColumnReaderOptions ro = {false};

				UNIT_CHECK(fm->row_groups[0].num_rows == 0);
				for (int col = 0; col < 2; col++)
				{
					UNIT_CHECK(pq_column_reader_open(&r, f, 0, col, &ro, &pfc_malloc_allocator, &err) == PQ_OK);
					UNIT_CHECK(r && pq_column_reader_read(r, 10, &b, &err) == PQ_OK && b.num_rows == 0);
					pq_column_reader_close(r);
					r = NULL;
				}
			}
			pq_file_close(f);
		}
		free(m.data);
	}
}

/*
 * The dictionary is decided per chunk on its first batch: 1000 distinct
 * values of 1000 are PLAIN (no dictionary page), 10 distinct of 1000 keep
 * the dictionary, and both read back equal.
 */
static void
test_dictionary_decision(void)
{
	PqWriteColumn c[2];
	PqWriterOptions opt;
	MemBuf		m = {0};
	PqSink		sink = {mem_write, &m};
	PqWriter   *w;
	PqError		err;
	PqFile	   *f;
	int64_t		many[1000],
				few[1000];
	PqColumnBatch b;

	m.fail_after = -1;
	for (int i = 0; i < 1000; i++)
	{
		many[i] = (int64_t) i * 7919;
		few[i] = i % 10;
	}
	pq_writer_options_init(&opt);
	opt.dictionary_max_ratio = 0.2;
	c[0] = simple_col("many", PQ_INT64, PQ_REQUIRED);
	c[0].encoding = PQ_WRITE_DICTIONARY;
	c[1] = simple_col("few", PQ_INT64, PQ_REQUIRED);
	c[1].encoding = PQ_WRITE_DICTIONARY;
	UNIT_CHECK(pq_writer_open(&w, c, 2, &opt, &sink, &pfc_malloc_allocator, &err) == PQ_OK);
	memset(&b, 0, sizeof(b));
	b.num_rows = 1000;
	b.values = many;
	UNIT_CHECK(pq_writer_write_column(w, 0, &b, &err) == PQ_OK);
	b.values = few;
	UNIT_CHECK(pq_writer_write_column(w, 1, &b, &err) == PQ_OK);
	UNIT_CHECK(pq_writer_close(w, &err) == PQ_OK);
	pq_writer_free(w);
	UNIT_CHECK(open_mem(&m, &f, &err) == PQ_OK);
	{
		const PqColumnChunkMeta *cm = &pq_file_meta(f)->row_groups[0].columns[0];
		const PqColumnChunkMeta *cf = &pq_file_meta(f)->row_groups[0].columns[1];

		UNIT_CHECK(!has_encoding(cm, 8) && has_encoding(cm, 0) && !cm->has_dictionary_page_offset);
		UNIT_CHECK(has_encoding(cf, 8) && cf->has_dictionary_page_offset);
		for (int col = 0; col < 2; col++)
		{
			PqColumnReader *r = NULL;
			PqColumnReaderOptions ro = {true};
			const int64_t *want = col == 0 ? many : few;

			UNIT_CHECK(pq_column_reader_open(&r, f, 0, col, &ro, &pfc_malloc_allocator, &err) == PQ_OK);
			UNIT_CHECK(r && pq_column_reader_read(r, 1000, &b, &err) == PQ_OK && b.num_rows == 1000 &&
					   memcmp(b.values, want, sizeof(many)) == 0);
			pq_column_reader_close(r);
		}
	}
	pq_file_close(f);
	free(m.data);
}

/*
 * Groups: a record { s: OPTIONAL STRUCT { a: INT32, l: OPTIONAL
 * LIST<OPTIONAL STRUCT { t: STRING }> } } shredded by hand, written and
 * read back: paths, levels per leaf, and the values.  Rows:
 *	 0: s = NULL
 *	 1: s = { a: NULL, l: NULL }
 *	 2: s = { a: 5, l: [] }
 *	 3: s = { a: 6, l: [NULL, {t: NULL}, {t: "x"}] }
 */
static void
test_nested_groups(void)
{
	PqWriteGroup g[3] = {
		{"s", PQ_GROUP_STRUCT, PQ_OPTIONAL, -1, -1},
		{"l", PQ_GROUP_LIST, PQ_OPTIONAL, 0, -1},
		{"element", PQ_GROUP_STRUCT, PQ_OPTIONAL, 1, -1},
	};
	PqWriteColumn c[3];
	PqWriterOptions opt;
	MemBuf		m = {0};
	PqSink		sink = {mem_write, &m};
	PqWriter   *w;
	PqError		err;
	PqFile	   *f;
	PqColumnBatch b;
	/* a: max_def 2, no repetition */
	int16_t		a_def[4] = {0, 1, 2, 2};
	int32_t		a_val[2] = {5, 6};
	/* t: max_def 5 (s, l, list, element, t), max_rep 1 */
	int16_t		t_def[6] = {0, 1, 2, 3, 4, 5};
	int16_t		t_rep[6] = {0, 0, 0, 0, 1, 1};
	CdcByteView t_val[1] = {{(const uint8_t *) "x", 1}};

	m.fail_after = -1;
	pq_writer_options_init(&opt);
	c[0] = simple_col("id", PQ_INT32, PQ_REQUIRED);
	c[0].parent = -1;
	c[1] = simple_col("a", PQ_INT32, PQ_OPTIONAL);
	c[1].parent = 0;
	c[2] = simple_col("t", PQ_BYTE_ARRAY, PQ_OPTIONAL);
	c[2].logical = lt_kind(PQ_LT_STRING);
	c[2].parent = 2;
	UNIT_CHECK(pq_writer_open_nested(&w, g, 3, c, 3, &opt, &sink, &pfc_malloc_allocator, &err) == PQ_OK);
	UNIT_CHECK(pq_writer_max_def(w, 1) == 2 && pq_writer_max_rep(w, 1) == 0);
	UNIT_CHECK(pq_writer_max_def(w, 2) == 5 && pq_writer_max_rep(w, 2) == 1);
	{
		int32_t		ids[4] = {0, 1, 2, 3};

		memset(&b, 0, sizeof(b));
		b.num_rows = 4;
		b.values = ids;
		UNIT_CHECK(pq_writer_write_column(w, 0, &b, &err) == PQ_OK);
	}
	memset(&b, 0, sizeof(b));
	b.num_rows = 4;
	b.num_levels = 4;
	b.num_values = 2;
	b.def_levels = a_def;
	b.values = a_val;
	UNIT_CHECKF(pq_writer_write_column(w, 1, &b, &err) == PQ_OK, "%s", err.message);
	memset(&b, 0, sizeof(b));
	b.num_rows = 4;
	b.num_levels = 6;
	b.num_values = 1;
	b.def_levels = t_def;
	b.rep_levels = t_rep;
	b.values = t_val;
	UNIT_CHECKF(pq_writer_write_column(w, 2, &b, &err) == PQ_OK, "%s", err.message);
	UNIT_CHECK(pq_writer_close(w, &err) == PQ_OK);
	pq_writer_free(w);

	UNIT_CHECKF(open_mem(&m, &f, &err) == PQ_OK, "%s", err.message);
	{
		const PqFileMeta *fm = pq_file_meta(f);

		UNIT_CHECK(fm->num_leaves == 3);
		UNIT_CHECKF(strcmp(fm->leaves[1].path, "s.a") == 0, "%s", fm->leaves[1].path);
		UNIT_CHECKF(strcmp(fm->leaves[2].path, "s.l.list.element.t") == 0, "%s", fm->leaves[2].path);
		UNIT_CHECK(fm->leaves[1].max_def == 2 && fm->leaves[1].max_rep == 0);
		UNIT_CHECK(fm->leaves[2].max_def == 5 && fm->leaves[2].max_rep == 1);
		UNIT_CHECK(fm->row_groups[0].columns[2].num_values == 6);
		for (int col = 1; col < 3; col++)
		{
			PqColumnReader *r = NULL;
			PqColumnReaderOptions ro = {true};

			UNIT_CHECK(pq_column_reader_open(&r, f, 0, col, &ro, &pfc_malloc_allocator, &err) == PQ_OK);
			UNIT_CHECK(r && pq_column_reader_read(r, 4, &b, &err) == PQ_OK && b.num_rows == 4);
			if (col == 1)		/* no repetition: the reader aligns values to rows */
				UNIT_CHECK(b.num_levels == 4 && memcmp(b.def_levels, a_def, sizeof(a_def)) == 0 &&
						   b.is_null && b.is_null[0] && b.is_null[1] && !b.is_null[2] && !b.is_null[3] &&
						   ((const int32_t *) b.values)[2] == 5 && ((const int32_t *) b.values)[3] == 6);
			else
				UNIT_CHECK(b.num_levels == 6 && memcmp(b.def_levels, t_def, sizeof(t_def)) == 0 &&
						   memcmp(b.rep_levels, t_rep, sizeof(t_rep)) == 0 && b.num_values == 1 &&
						   ((const CdcByteView *) b.values)[0].len == 1 &&
						   ((const CdcByteView *) b.values)[0].ptr[0] == 'x');
			pq_column_reader_close(r);
		}
	}
	pq_file_close(f);
	free(m.data);

	/* schema errors: a LIST with two children, a group's leaves apart */
	{
		PqWriteGroup bad[1] = {{"l", PQ_GROUP_LIST, PQ_OPTIONAL, -1, -1}};
		PqWriteColumn two[3];

		two[0] = simple_col("x", PQ_INT32, PQ_OPTIONAL);
		two[0].parent = 0;
		two[1] = simple_col("y", PQ_INT32, PQ_OPTIONAL);
		two[1].parent = 0;
		UNIT_CHECK(pq_writer_open_nested(&w, bad, 1, two, 2, &opt, &sink, &pfc_malloc_allocator, &err) ==
				   PQ_ERR_INVALID_ARGUMENT);
		pq_writer_free(w);
		bad[0].kind = PQ_GROUP_STRUCT;
		two[2] = two[1];
		two[1] = simple_col("z", PQ_INT32, PQ_OPTIONAL);
		two[1].parent = -1;
		UNIT_CHECK(pq_writer_open_nested(&w, bad, 1, two, 3, &opt, &sink, &pfc_malloc_allocator, &err) ==
				   PQ_ERR_INVALID_ARGUMENT);
		pq_writer_free(w);
	}
}

/* ----------------------------------------------------------------
 * main
 * ----------------------------------------------------------------
 */
int
main(void)
{
	const char *outdir = getenv("PQ_WRITER_OUT_DIR");

	test_crc32();
	test_list_levels();
	test_contract_errors();
	test_float_stats();
	test_truncated_stats();
	test_crc_detects_damage();
	test_empty_files();
	test_dictionary_decision();
	test_nested_groups();

	for (size_t k = 0; k < sizeof(variants) / sizeof(variants[0]); k++)
	{
		const Variant *v = &variants[k];
		MemBuf		m = {0};
		PqError		err;
		PqStatus	st;

		m.fail_after = -1;
		st = write_dataset(v, &m, &err);
		UNIT_CHECKF(st == PQ_OK, "%s: %s", v->name, err.message);
		if (st == PQ_OK)
		{
			check_dataset_file(v, &m);
			check_pages_and_crc(v, &m);
			check_page_index(v, &m);
			check_bloom_filters(v, &m);
			check_with_reader(v, &m);
			if (outdir != NULL)
			{
				char		path[4096];
				FILE	   *fp;

				snprintf(path, sizeof(path), "%s/writer_%s.parquet", outdir, v->name);
				fp = fopen(path, "wb");
				UNIT_CHECKF(fp != NULL && fwrite(m.data, 1, m.len, fp) == m.len &&
							fclose(fp) == 0, "cannot write %s", path);
			}
		}
		free(m.data);
	}
	UNIT_MAIN_END("test_writer");
}
