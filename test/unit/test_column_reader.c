/*-------------------------------------------------------------------------
 *
 * test_column_reader.c
 *	  Column readers over hand-built files and over the parquet-testing
 *	  corpus.
 *
 * Part one builds small files in memory: page bodies are bytes computed by
 * hand from the format and encoding specifications (the spec's worked
 * examples where it has them), page headers and footers are written with
 * the PqThriftWriter.  Part two reads every file of the corpus and compares
 * flat columns of simple types value by value with DuckDB's CSV rendering
 * (FILE.expected.csv); it prints how many columns it verified.
 *
 * IDENTIFICATION
 *	  test/unit/test_column_reader.c
 *
 *-------------------------------------------------------------------------
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sys/stat.h>

#include <zlib.h>

#include "unit.h"

#include "compress/compress.h"
#include "parquet/parquet.h"
#include "parquet/thrift.h"

/* ----------------------------------------------------------------
 * In-memory files
 * ----------------------------------------------------------------
 */
typedef struct MemFile
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
} MemFile;

static int
mem_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	MemFile    *m = ctx;

	if (offset > m->len || len > m->len - offset)
		return EIO;
	memcpy(buf, m->data + offset, len);
	return 0;
}

static void
mem_append(MemFile *m, const void *p, size_t len)
{
	if (m->len + len > m->cap)
	{
		m->cap = (m->len + len) * 2 + 64;
		m->data = realloc(m->data, m->cap);
	}
	memcpy(m->data + m->len, p, len);
	m->len += len;
}

/* One page to put in a test file. */
typedef struct TestPage
{
	int			type;			/* 0 data v1, 2 dictionary, 3 data v2 */
	int			num_values;
	int			encoding;
	const uint8_t *body;		/* stored bytes (levels + values) */
	size_t		body_len;
	/* v2 */
	int			num_nulls;
	int			num_rows;
	int			def_len;
	int			rep_len;
	bool		v2_uncompressed;
	/* crc: 0 none, 1 right, 2 wrong */
	int			crc;
	int			uncompressed_len;	/* 0: same as body_len */
} TestPage;

typedef struct TestColumn
{
	int			physical;
	int			type_length;
	int			repetition;		/* 0 required, 1 optional, 2 repeated */
	int			codec;
	bool		dict_offset_zero;	/* write dictionary_page_offset = 0 */
} TestColumn;

static void
write_page_header(PqThriftWriter *w, const TestPage *p, size_t stored_len)
{
	pq_thrift_write_struct_begin(w);
	pq_thrift_write_field(w, 1, PQ_THRIFT_I32);
	pq_thrift_write_i32(w, p->type);
	pq_thrift_write_field(w, 2, PQ_THRIFT_I32);
	pq_thrift_write_i32(w, p->uncompressed_len ? p->uncompressed_len : (int32_t) stored_len);
	pq_thrift_write_field(w, 3, PQ_THRIFT_I32);
	pq_thrift_write_i32(w, (int32_t) stored_len);
	if (p->crc)
	{
		uint32_t	crc = (uint32_t) crc32(0, p->body, (uInt) stored_len);

		pq_thrift_write_field(w, 4, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, (int32_t) (p->crc == 1 ? crc : crc ^ 1));
	}
	if (p->type == 0)
	{
		pq_thrift_write_field(w, 5, PQ_THRIFT_STRUCT);
		pq_thrift_write_struct_begin(w);
		pq_thrift_write_field(w, 1, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, p->num_values);
		pq_thrift_write_field(w, 2, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, p->encoding);
		pq_thrift_write_field(w, 3, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, 3);		/* RLE levels */
		pq_thrift_write_field(w, 4, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, 3);
		pq_thrift_write_struct_end(w);
	}
	else if (p->type == 2)
	{
		pq_thrift_write_field(w, 7, PQ_THRIFT_STRUCT);
		pq_thrift_write_struct_begin(w);
		pq_thrift_write_field(w, 1, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, p->num_values);
		pq_thrift_write_field(w, 2, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, p->encoding);
		pq_thrift_write_struct_end(w);
	}
	else
	{
		pq_thrift_write_field(w, 8, PQ_THRIFT_STRUCT);
		pq_thrift_write_struct_begin(w);
		pq_thrift_write_field(w, 1, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, p->num_values);
		pq_thrift_write_field(w, 2, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, p->num_nulls);
		pq_thrift_write_field(w, 3, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, p->num_rows);
		pq_thrift_write_field(w, 4, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, p->encoding);
		pq_thrift_write_field(w, 5, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, p->def_len);
		pq_thrift_write_field(w, 6, PQ_THRIFT_I32);
		pq_thrift_write_i32(w, p->rep_len);
		if (p->v2_uncompressed)
			pq_thrift_write_bool_field(w, 7, false);
		pq_thrift_write_struct_end(w);
	}
	pq_thrift_write_struct_end(w);
}

/*
 * A file of one column "c" in one row group.  Pages of a compressed column
 * are compressed here with the compression layer (v2: values only).
 */
static MemFile
build_file(const TestColumn *col, const TestPage *pages, int num_pages,
		   int64_t num_rows)
{
	MemFile		m = {0};
	PqThriftWriter w;
	int64_t		num_values = 0;
	int64_t		dict_offset = -1;
	int64_t		data_offset = -1;
	int64_t		chunk_start = 4;
	uint32_t	footer_len;

	mem_append(&m, "PAR1", 4);
	for (int i = 0; i < num_pages; i++)
	{
		TestPage	p = pages[i];
		uint8_t    *stored = malloc(p.body_len * 2 + 1024);
		size_t		stored_len = p.body_len;

		memcpy(stored, p.body, p.body_len);
		if (col->codec != CMP_UNCOMPRESSED && !(p.type == 3 && p.v2_uncompressed))
		{
			size_t		levels = p.type == 3 ? (size_t) (p.def_len + p.rep_len) : 0;
			size_t		written = 0;

			if (cmp_compress(col->codec, 0, p.body + levels, p.body_len - levels,
							 stored + levels, p.body_len * 2 + 1024 - levels,
							 &written) != CMP_OK)
				abort();
			stored_len = levels + written;
			if (p.uncompressed_len == 0)
				p.uncompressed_len = (int) p.body_len;
		}
		p.body = stored;
		if (p.type == 2)
			dict_offset = (int64_t) m.len;
		else
		{
			if (data_offset < 0)
				data_offset = (int64_t) m.len;
			num_values += p.num_values;
		}
		pq_thrift_writer_init(&w);
		write_page_header(&w, &p, stored_len);
		mem_append(&m, w.buf, w.len);
		pq_thrift_writer_free(&w);
		mem_append(&m, stored, stored_len);
		free(stored);
	}

	pq_thrift_writer_init(&w);
	pq_thrift_write_struct_begin(&w);
	pq_thrift_write_field(&w, 1, PQ_THRIFT_I32);
	pq_thrift_write_i32(&w, 1);
	pq_thrift_write_field(&w, 2, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(&w, PQ_THRIFT_STRUCT, 2);
	pq_thrift_write_struct_begin(&w);
	pq_thrift_write_field(&w, 4, PQ_THRIFT_BINARY);
	pq_thrift_write_binary(&w, "schema", 6);
	pq_thrift_write_field(&w, 5, PQ_THRIFT_I32);
	pq_thrift_write_i32(&w, 1);
	pq_thrift_write_struct_end(&w);
	pq_thrift_write_struct_begin(&w);
	pq_thrift_write_field(&w, 1, PQ_THRIFT_I32);
	pq_thrift_write_i32(&w, col->physical);
	if (col->physical == PQ_FIXED_LEN_BYTE_ARRAY)
	{
		pq_thrift_write_field(&w, 2, PQ_THRIFT_I32);
		pq_thrift_write_i32(&w, col->type_length);
	}
	pq_thrift_write_field(&w, 3, PQ_THRIFT_I32);
	pq_thrift_write_i32(&w, col->repetition);
	pq_thrift_write_field(&w, 4, PQ_THRIFT_BINARY);
	pq_thrift_write_binary(&w, "c", 1);
	pq_thrift_write_struct_end(&w);
	pq_thrift_write_field(&w, 3, PQ_THRIFT_I64);
	pq_thrift_write_i64(&w, num_rows);
	pq_thrift_write_field(&w, 4, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(&w, PQ_THRIFT_STRUCT, 1);
	pq_thrift_write_struct_begin(&w);	/* RowGroup */
	pq_thrift_write_field(&w, 1, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(&w, PQ_THRIFT_STRUCT, 1);
	pq_thrift_write_struct_begin(&w);	/* ColumnChunk */
	pq_thrift_write_field(&w, 2, PQ_THRIFT_I64);
	pq_thrift_write_i64(&w, chunk_start);
	pq_thrift_write_field(&w, 3, PQ_THRIFT_STRUCT);
	pq_thrift_write_struct_begin(&w);	/* ColumnMetaData */
	pq_thrift_write_field(&w, 1, PQ_THRIFT_I32);
	pq_thrift_write_i32(&w, col->physical);
	pq_thrift_write_field(&w, 2, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(&w, PQ_THRIFT_I32, 1);
	pq_thrift_write_i32(&w, 0);
	pq_thrift_write_field(&w, 3, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(&w, PQ_THRIFT_BINARY, 1);
	pq_thrift_write_binary(&w, "c", 1);
	pq_thrift_write_field(&w, 4, PQ_THRIFT_I32);
	pq_thrift_write_i32(&w, col->codec);
	pq_thrift_write_field(&w, 5, PQ_THRIFT_I64);
	pq_thrift_write_i64(&w, num_values);
	pq_thrift_write_field(&w, 6, PQ_THRIFT_I64);
	pq_thrift_write_i64(&w, (int64_t) m.len - chunk_start);
	pq_thrift_write_field(&w, 7, PQ_THRIFT_I64);
	pq_thrift_write_i64(&w, (int64_t) m.len - chunk_start);
	pq_thrift_write_field(&w, 9, PQ_THRIFT_I64);
	/* the dictionary-offset-zero quirk: data_page_offset is the dictionary */
	pq_thrift_write_i64(&w, col->dict_offset_zero && dict_offset >= 0 ? dict_offset : data_offset);
	if (dict_offset >= 0)
	{
		pq_thrift_write_field(&w, 11, PQ_THRIFT_I64);
		pq_thrift_write_i64(&w, col->dict_offset_zero ? 0 : dict_offset);
	}
	pq_thrift_write_struct_end(&w);
	pq_thrift_write_struct_end(&w);	/* ColumnChunk */
	pq_thrift_write_field(&w, 2, PQ_THRIFT_I64);
	pq_thrift_write_i64(&w, (int64_t) m.len - chunk_start);
	pq_thrift_write_field(&w, 3, PQ_THRIFT_I64);
	pq_thrift_write_i64(&w, num_rows);
	pq_thrift_write_struct_end(&w);	/* RowGroup */
	pq_thrift_write_struct_end(&w);	/* FileMetaData */
	if (w.failed)
		abort();
	mem_append(&m, w.buf, w.len);
	footer_len = (uint32_t) w.len;
	pq_thrift_writer_free(&w);
	{
		uint8_t		len_le[4] = {footer_len & 0xff, (footer_len >> 8) & 0xff,
		(footer_len >> 16) & 0xff, footer_len >> 24};

		mem_append(&m, len_le, 4);
	}
	mem_append(&m, "PAR1", 4);
	return m;
}

typedef struct Opened
{
	MemFile		mem;
	PfcSource	source;
	PqFile	   *file;
	PqColumnReader *reader;
	PqError		err;
} Opened;

static bool
open_reader(Opened *o, const TestColumn *col, const TestPage *pages, int n,
			int64_t rows, bool verify_crc)
{
	PqColumnReaderOptions options = {.verify_crc = verify_crc};

	o->mem = build_file(col, pages, n, rows);
	o->source.read_at = mem_read_at;
	o->source.size = o->mem.len;
	o->source.ctx = &o->mem;
	o->reader = NULL;
	o->file = NULL;
	if (pq_file_open(&o->file, &o->source, &pfc_malloc_allocator, &o->err) != PQ_OK)
	{
		fprintf(stderr, "open failed: %s\n", o->err.message);
		return false;
	}
	if (pq_column_reader_open(&o->reader, o->file, 0, 0, &options,
							  &pfc_malloc_allocator, &o->err) != PQ_OK)
	{
		fprintf(stderr, "reader open failed: %s\n", o->err.message);
		return false;
	}
	return true;
}

static void
close_reader(Opened *o)
{
	pq_column_reader_close(o->reader);
	if (o->file)
		pq_file_close(o->file);
	free(o->mem.data);
}

/* ----------------------------------------------------------------
 * Hand-built pages
 * ----------------------------------------------------------------
 */

/* v1 PLAIN INT32, required, read in batches smaller than the page. */
static void
test_plain_required(void)
{
	static const uint8_t body[] = {1, 0, 0, 0, 2, 0, 0, 0, 0xfd, 0xff, 0xff, 0xff};
	TestColumn	col = {PQ_INT32, 0, 0, CMP_UNCOMPRESSED};
	TestPage	page = {.type = 0, .num_values = 3, .encoding = 0, .body = body, .body_len = sizeof(body)};
	Opened		o;
	PqColumnBatch b;

	UNIT_CHECK(open_reader(&o, &col, &page, 1, 3, false));
	UNIT_CHECK(pq_column_reader_read(o.reader, 2, &b, &o.err) == PQ_OK);
	UNIT_CHECK(b.num_rows == 2 && b.num_levels == 2 && b.is_null == NULL && b.def_levels == NULL);
	UNIT_CHECK(((const int32_t *) b.values)[0] == 1 && ((const int32_t *) b.values)[1] == 2);
	UNIT_CHECK(pq_column_reader_read(o.reader, 2, &b, &o.err) == PQ_OK);
	UNIT_CHECK(b.num_rows == 1 && ((const int32_t *) b.values)[0] == -3);
	UNIT_CHECK(pq_column_reader_read(o.reader, 2, &b, &o.err) == PQ_OK);
	UNIT_CHECK(b.num_rows == 0);
	close_reader(&o);
}

/*
 * Optional INT32, v1, definition levels 1,0,1,1,0: RLE with a 4-byte length,
 * one bit-packed group (header (1 << 1) | 1 = 0x03; bits LSB first 10110000
 * = 0x0d), then the three defined values.  Same rows as two v1 pages too.
 */
static void
test_optional_v1(void)
{
	static const uint8_t body[] = {2, 0, 0, 0, 0x03, 0x0d,
	7, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0};
	TestColumn	col = {PQ_INT32, 0, 1, CMP_UNCOMPRESSED};
	TestPage	page = {.type = 0, .num_values = 5, .encoding = 0, .body = body, .body_len = sizeof(body)};
	static const bool nulls[5] = {false, true, false, false, true};
	static const int32_t vals[5] = {7, 0, 8, 9, 0};
	Opened		o;
	PqColumnBatch b;

	UNIT_CHECK(open_reader(&o, &col, &page, 1, 5, false));
	UNIT_CHECK(pq_column_reader_read(o.reader, 100, &b, &o.err) == PQ_OK);
	UNIT_CHECK(b.num_rows == 5 && b.num_values == 3 && b.is_null != NULL);
	for (int i = 0; i < 5 && b.is_null; i++)
	{
		UNIT_CHECKF(b.is_null[i] == nulls[i], "row %d", i);
		if (!nulls[i])
			UNIT_CHECKF(((const int32_t *) b.values)[i] == vals[i], "row %d", i);
		UNIT_CHECK(b.def_levels[i] == (nulls[i] ? 0 : 1));
	}
	close_reader(&o);

	/* batches of 2 over the same page: nulls line up across batches */
	UNIT_CHECK(open_reader(&o, &col, &page, 1, 5, false));
	{
		int			row = 0;

		while (pq_column_reader_read(o.reader, 2, &b, &o.err) == PQ_OK && b.num_rows > 0)
		{
			UNIT_CHECK(b.num_rows <= 2);
			for (uint32_t i = 0; i < b.num_rows; i++, row++)
			{
				bool		isnull = b.is_null ? b.is_null[i] : false;

				UNIT_CHECKF(isnull == nulls[row], "row %d", row);
				if (!nulls[row])
					UNIT_CHECKF(((const int32_t *) b.values)[i] == vals[row], "row %d", row);
			}
		}
		UNIT_CHECK(row == 5);
	}
	close_reader(&o);
}

/*
 * Dictionary: PLAIN INT64 dictionary {10, 20, 30}; RLE_DICTIONARY page with
 * bit width 2 and indexes 2,0,1,2 in one bit-packed group: 0x03, then
 * 2 | 0 << 2 | 1 << 4 | 2 << 6 = 0x92, 0x00.  Also with the dictionary page
 * announced only through data_page_offset (dictionary_page_offset 0).
 */
static void
test_dictionary(void)
{
	static const uint8_t dict[] = {10, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0,
	30, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t data[] = {2, 0x03, 0x92, 0x00};
	static const uint8_t bad_index[] = {2, 0x03, 0xff, 0x00};	/* index 3 */
	TestPage	pages[2] = {
		{.type = 2, .num_values = 3, .encoding = 0, .body = dict, .body_len = sizeof(dict)},
		{.type = 0, .num_values = 4, .encoding = 8, .body = data, .body_len = sizeof(data)},
	};
	static const int64_t expect[4] = {30, 10, 20, 30};

	for (int quirk = 0; quirk < 2; quirk++)
	{
		for (int codec = 0; codec < 2; codec++)
		{
			TestColumn	col = {PQ_INT64, 0, 0, codec ? CMP_SNAPPY : CMP_UNCOMPRESSED, quirk == 1};
			Opened		o;
			PqColumnBatch b;

			UNIT_CHECK(open_reader(&o, &col, pages, 2, 4, true));
			UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_OK);
			UNIT_CHECKF(b.num_rows == 4, "quirk %d codec %d: %s", quirk, codec, o.err.message);
			for (int i = 0; i < 4 && b.num_rows == 4; i++)
				UNIT_CHECK(((const int64_t *) b.values)[i] == expect[i]);
			close_reader(&o);
		}
	}

	/* an index past the dictionary is corrupt, with the page ordinal */
	{
		TestColumn	col = {PQ_INT64, 0, 0, CMP_UNCOMPRESSED};
		Opened		o;
		PqColumnBatch b;

		pages[1].body = bad_index;
		UNIT_CHECK(open_reader(&o, &col, pages, 2, 4, false));
		UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_ERR_CORRUPT);
		UNIT_CHECK(o.err.page == 1 && o.err.column == 0 && o.err.row_group == 0);
		close_reader(&o);
	}
}

/*
 * Dictionary entry numbers of BYTE_ARRAY values (what lets a consumer
 * convert each entry once): optional column, dictionary {"a", "bb"}; an
 * RLE_DICTIONARY page with def levels 1,0,1,1 (0x03, 0x0d) and indexes
 * 1,0,1 at bit width 1 (0x03, 0x05); then a PLAIN page (the writer gave up
 * on the dictionary) with the one value "zz" (def levels: RLE run 0x02, 1).
 */
static void
test_dictionary_indexes(void)
{
	static const uint8_t dict[] = {1, 0, 0, 0, 'a', 2, 0, 0, 0, 'b', 'b'};
	static const uint8_t data[] = {2, 0, 0, 0, 0x03, 0x0d, 1, 0x03, 0x05};
	static const uint8_t plain[] = {2, 0, 0, 0, 0x02, 0x01, 2, 0, 0, 0, 'z', 'z'};
	TestPage	pages[3] = {
		{.type = 2, .num_values = 2, .encoding = 0, .body = dict, .body_len = sizeof(dict)},
		{.type = 0, .num_values = 4, .encoding = 8, .body = data, .body_len = sizeof(data)},
		{.type = 0, .num_values = 1, .encoding = 0, .body = plain, .body_len = sizeof(plain)},
	};
	static const uint32_t expect_index[5] = {1, PQ_NOT_FROM_DICTIONARY, 0, 1,
	PQ_NOT_FROM_DICTIONARY};
	static const char *const expect_value[5] = {"bb", NULL, "a", "bb", "zz"};
	TestColumn	col = {PQ_BYTE_ARRAY, 0, 1, CMP_UNCOMPRESSED};

	/* one batch over both pages, then batches of two rows */
	for (int pass = 0; pass < 2; pass++)
	{
		uint32_t	max_rows = pass == 0 ? 10 : 2;
		Opened		o;
		PqColumnBatch b;
		int			row = 0;

		UNIT_CHECK(open_reader(&o, &col, pages, 3, 5, false));
		while (pq_column_reader_read(o.reader, max_rows, &b, &o.err) == PQ_OK &&
			   b.num_rows > 0)
		{
			const CdcByteView *views = b.values;

			UNIT_CHECK(b.dict_index != NULL && b.dictionary_count == 2);
			for (uint32_t i = 0; i < b.num_rows && b.dict_index && row < 5; i++, row++)
			{
				UNIT_CHECKF(b.dict_index[i] == expect_index[row], "row %d: %u",
							row, b.dict_index[i]);
				UNIT_CHECKF((b.is_null != NULL && b.is_null[i]) == (expect_value[row] == NULL),
							"row %d", row);
				if (expect_value[row])
					UNIT_CHECKF(views[i].len == strlen(expect_value[row]) &&
								memcmp(views[i].ptr, expect_value[row], views[i].len) == 0,
								"row %d", row);
			}
		}
		UNIT_CHECKF(row == 5, "max_rows %u: %d rows", max_rows, row);
		close_reader(&o);
	}

	/* a chunk without a dictionary has no entry numbers */
	{
		TestPage	only_plain = pages[2];
		Opened		o;
		PqColumnBatch b;

		UNIT_CHECK(open_reader(&o, &col, &only_plain, 1, 1, false));
		UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_OK);
		UNIT_CHECK(b.num_rows == 1 && b.dict_index == NULL && b.dictionary_count == 0);
		close_reader(&o);
	}
}

/*
 * Repeated column (max_rep 1, max_def 1), rows [[1, 2, 3], [4]] stored as
 * two v1 pages so the first row spans them: page 1 rep 0,1 def 1,1; page 2
 * rep 1,0 def 1,1.  Rep 0,1 -> 0x03, 0b10 = 0x02; rep 1,0 -> 0x03, 0x01;
 * def 1,1 -> 0x03, 0x03.
 */
static void
test_rows_span_pages(void)
{
	static const uint8_t p1[] = {2, 0, 0, 0, 0x03, 0x02, 2, 0, 0, 0, 0x03, 0x03,
	1, 0, 0, 0, 2, 0, 0, 0};
	static const uint8_t p2[] = {2, 0, 0, 0, 0x03, 0x01, 2, 0, 0, 0, 0x03, 0x03,
	3, 0, 0, 0, 4, 0, 0, 0};
	TestColumn	col = {PQ_INT32, 0, 2, CMP_UNCOMPRESSED};
	TestPage	pages[2] = {
		{.type = 0, .num_values = 2, .encoding = 0, .body = p1, .body_len = sizeof(p1)},
		{.type = 0, .num_values = 2, .encoding = 0, .body = p2, .body_len = sizeof(p2)},
	};
	Opened		o;
	PqColumnBatch b;

	UNIT_CHECK(open_reader(&o, &col, pages, 2, 2, false));
	UNIT_CHECK(pq_column_reader_read(o.reader, 1, &b, &o.err) == PQ_OK);
	UNIT_CHECK(b.num_rows == 1 && b.num_levels == 3 && b.num_values == 3);
	UNIT_CHECK(b.rep_levels[0] == 0 && b.rep_levels[1] == 1 && b.rep_levels[2] == 1);
	UNIT_CHECK(((const int32_t *) b.values)[0] == 1 && ((const int32_t *) b.values)[2] == 3);
	UNIT_CHECK(pq_column_reader_read(o.reader, 1, &b, &o.err) == PQ_OK);
	UNIT_CHECK(b.num_rows == 1 && b.num_levels == 1 && ((const int32_t *) b.values)[0] == 4);
	UNIT_CHECK(pq_column_reader_read(o.reader, 1, &b, &o.err) == PQ_OK && b.num_rows == 0);
	close_reader(&o);

	/* both rows in one batch */
	UNIT_CHECK(open_reader(&o, &col, pages, 2, 2, false));
	UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_OK);
	UNIT_CHECK(b.num_rows == 2 && b.num_levels == 4 && b.num_values == 4);
	close_reader(&o);
}

/*
 * v2 page of a repeated column, rows [[1, 2], [], [3]]: rep 0,1,0,0 ->
 * 0x03, 0x02; def 1,1,0,1 -> 0x03, 0x0b; no length prefixes; values
 * compressed with snappy when the column is.
 */
static void
test_v2_levels(void)
{
	static const uint8_t body[] = {0x03, 0x02, 0x03, 0x0b, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0};
	TestPage	page = {.type = 3, .num_values = 4, .encoding = 0, .body = body,
		.body_len = sizeof(body), .num_nulls = 1, .num_rows = 3, .def_len = 2, .rep_len = 2};

	for (int codec = 0; codec < 3; codec++)
	{
		TestColumn	col = {PQ_INT32, 0, 2, codec == 0 ? CMP_UNCOMPRESSED : codec == 1 ? CMP_SNAPPY : CMP_ZSTD};
		Opened		o;
		PqColumnBatch b;

		UNIT_CHECK(open_reader(&o, &col, &page, 1, 3, false));
		UNIT_CHECK(pq_column_reader_read(o.reader, 2, &b, &o.err) == PQ_OK);
		UNIT_CHECKF(b.num_rows == 2 && b.num_levels == 3 && b.num_values == 2, "codec %d: %s", codec, o.err.message);
		UNIT_CHECK(b.def_levels[2] == 0 && b.rep_levels[2] == 0);
		UNIT_CHECK(pq_column_reader_read(o.reader, 2, &b, &o.err) == PQ_OK);
		UNIT_CHECK(b.num_rows == 1 && b.num_values == 1 && ((const int32_t *) b.values)[0] == 3);
		close_reader(&o);
	}

	/* skipping the whole v2 page by its num_rows, then the end */
	{
		TestColumn	col = {PQ_INT32, 0, 2, CMP_UNCOMPRESSED};
		Opened		o;
		PqColumnBatch b;

		UNIT_CHECK(open_reader(&o, &col, &page, 1, 3, false));
		UNIT_CHECK(pq_column_reader_skip(o.reader, 3, &o.err) == PQ_OK);
		UNIT_CHECK(pq_column_reader_read(o.reader, 2, &b, &o.err) == PQ_OK && b.num_rows == 0);
		close_reader(&o);
		UNIT_CHECK(open_reader(&o, &col, &page, 1, 3, false));
		UNIT_CHECK(pq_column_reader_skip(o.reader, 1, &o.err) == PQ_OK);
		UNIT_CHECK(pq_column_reader_read(o.reader, 1, &b, &o.err) == PQ_OK);
		UNIT_CHECK(b.num_rows == 1 && b.num_levels == 1 && b.num_values == 0);
		close_reader(&o);
	}
}

/* CRC32 of the stored bytes: right one passes, wrong one fails only when asked. */
static void
test_crc(void)
{
	static const uint8_t body[] = {1, 0, 0, 0, 2, 0, 0, 0};
	TestColumn	col = {PQ_INT32, 0, 0, CMP_UNCOMPRESSED};
	PqColumnBatch b;

	for (int crc = 1; crc <= 2; crc++)
	{
		for (int verify = 0; verify < 2; verify++)
		{
			TestPage	page = {.type = 0, .num_values = 2, .encoding = 0, .body = body,
			.body_len = sizeof(body), .crc = crc};
			Opened		o;
			PqStatus	want = (crc == 2 && verify) ? PQ_ERR_CHECKSUM : PQ_OK;

			UNIT_CHECK(open_reader(&o, &col, &page, 1, 2, verify));
			UNIT_CHECKF(pq_column_reader_read(o.reader, 5, &b, &o.err) == want,
						"crc %d verify %d", crc, verify);
			close_reader(&o);
		}
	}
}

/* Values of every encoding, against bytes computed from the spec. */
static void
test_encodings(void)
{
	Opened		o;
	PqColumnBatch b;

	/* DELTA_BINARY_PACKED 1..5 (spec example 1): block 128, 4 miniblocks,
	 * count 5, first 1 (zigzag 2), min delta 1 (zigzag 2), widths 0 */
	{
		static const uint8_t body[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0};

		for (int t = 0; t < 2; t++)
		{
			TestColumn	col = {t ? PQ_INT64 : PQ_INT32, 0, 0, CMP_UNCOMPRESSED};
			TestPage	page = {.type = 0, .num_values = 5, .encoding = 5, .body = body, .body_len = sizeof(body)};

			UNIT_CHECK(open_reader(&o, &col, &page, 1, 5, false));
			UNIT_CHECK(pq_column_reader_read(o.reader, 3, &b, &o.err) == PQ_OK && b.num_rows == 3);
			UNIT_CHECK(pq_column_reader_read(o.reader, 3, &b, &o.err) == PQ_OK && b.num_rows == 2);
			UNIT_CHECK(t ? ((const int64_t *) b.values)[1] == 5 : ((const int32_t *) b.values)[1] == 5);
			close_reader(&o);
		}
	}

	/* DELTA_LENGTH_BYTE_ARRAY "Hello" "World" "Foobar" "ABCDEF" (spec):
	 * lengths 5,5,6,6: first zigzag 10, min delta 0, deltas 0,1,0 at width 1 */
	{
		static const uint8_t body[] = {0x80, 0x01, 0x04, 0x04, 0x0a, 0x00, 0x01, 0, 0, 0,
			0x02, 0, 0, 0, 'H', 'e', 'l', 'l', 'o', 'W', 'o', 'r', 'l', 'd',
		'F', 'o', 'o', 'b', 'a', 'r', 'A', 'B', 'C', 'D', 'E', 'F'};
		static const char *expect[4] = {"Hello", "World", "Foobar", "ABCDEF"};
		TestColumn	col = {PQ_BYTE_ARRAY, 0, 0, CMP_UNCOMPRESSED};
		TestPage	page = {.type = 0, .num_values = 4, .encoding = 6, .body = body, .body_len = sizeof(body)};

		UNIT_CHECK(open_reader(&o, &col, &page, 1, 4, false));
		UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_OK && b.num_rows == 4);
		for (int i = 0; i < 4 && b.num_rows == 4; i++)
		{
			const CdcByteView *v = &((const CdcByteView *) b.values)[i];

			UNIT_CHECK(v->len == strlen(expect[i]) && memcmp(v->ptr, expect[i], v->len) == 0);
		}
		close_reader(&o);
	}

	/* DELTA_BYTE_ARRAY "axis" "axle" "babble" "babyhood" (spec): prefixes
	 * 0,2,0,3 (first 0, min delta -2 = zigzag 3, adjusted 4,0,5 at width 3
	 * = 0x44 0x01), suffix lengths 4,2,6,5 (first zigzag 8, min -2, adjusted
	 * 0,6,1 at width 3 = 0x70), suffixes "axis" "le" "babble" "yhood" */
	{
		static const uint8_t body[] = {
			0x80, 0x01, 0x04, 0x04, 0x00, 0x03, 0x03, 0, 0, 0,
			0x44, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			0x80, 0x01, 0x04, 0x04, 0x08, 0x03, 0x03, 0, 0, 0,
			0x70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			'a', 'x', 'i', 's', 'l', 'e', 'b', 'a', 'b', 'b', 'l', 'e',
		'y', 'h', 'o', 'o', 'd'};
		static const char *expect[4] = {"axis", "axle", "babble", "babyhood"};
		TestColumn	col = {PQ_BYTE_ARRAY, 0, 0, CMP_UNCOMPRESSED};
		TestPage	page = {.type = 0, .num_values = 4, .encoding = 7, .body = body, .body_len = sizeof(body)};

		UNIT_CHECK(open_reader(&o, &col, &page, 1, 4, false));
		UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_OK);
		UNIT_CHECKF(b.num_rows == 4, "%s", o.err.message);
		for (int i = 0; i < 4 && b.num_rows == 4; i++)
		{
			const CdcByteView *v = &((const CdcByteView *) b.values)[i];

			UNIT_CHECKF(v->len == strlen(expect[i]) && memcmp(v->ptr, expect[i], v->len) == 0,
						"value %d", i);
		}
		close_reader(&o);
	}

	/* BYTE_STREAM_SPLIT FLOAT 1.0f (00 00 80 3f), 2.0f (00 00 00 40) */
	{
		static const uint8_t body[] = {0, 0, 0, 0, 0x80, 0x00, 0x3f, 0x40};
		TestColumn	col = {PQ_FLOAT, 0, 0, CMP_UNCOMPRESSED};
		TestPage	page = {.type = 0, .num_values = 2, .encoding = 9, .body = body, .body_len = sizeof(body)};

		UNIT_CHECK(open_reader(&o, &col, &page, 1, 2, false));
		UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_OK && b.num_rows == 2);
		UNIT_CHECK(((const float *) b.values)[0] == 1.0f && ((const float *) b.values)[1] == 2.0f);
		close_reader(&o);
	}

	/* RLE booleans true,false,true: length 2, 0x03, 0b101 */
	{
		static const uint8_t body[] = {2, 0, 0, 0, 0x03, 0x05};
		TestColumn	col = {PQ_BOOLEAN, 0, 0, CMP_UNCOMPRESSED};
		TestPage	page = {.type = 3, .num_values = 3, .num_rows = 3, .encoding = 3, .body = body, .body_len = sizeof(body)};
		const uint8_t *v;

		UNIT_CHECK(open_reader(&o, &col, &page, 1, 3, false));
		UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_OK && b.num_rows == 3);
		v = b.values;
		UNIT_CHECK(v[0] == 1 && v[1] == 0 && v[2] == 1);
		close_reader(&o);
	}

	/* PLAIN booleans read 3 at a time (bit offsets inside bytes):
	 * 10 values 1,1,0,1,0,0,1,0 | 1,1 -> 0x4b, 0x03 */
	{
		static const uint8_t body[] = {0x4b, 0x03};
		static const uint8_t expect[10] = {1, 1, 0, 1, 0, 0, 1, 0, 1, 1};
		TestColumn	col = {PQ_BOOLEAN, 0, 0, CMP_UNCOMPRESSED};
		TestPage	page = {.type = 0, .num_values = 10, .encoding = 0, .body = body, .body_len = sizeof(body)};
		int			row = 0;

		UNIT_CHECK(open_reader(&o, &col, &page, 1, 10, false));
		while (pq_column_reader_read(o.reader, 3, &b, &o.err) == PQ_OK && b.num_rows > 0)
			for (uint32_t i = 0; i < b.num_rows; i++, row++)
				UNIT_CHECKF(((const uint8_t *) b.values)[i] == expect[row], "row %d", row);
		UNIT_CHECK(row == 10);
		close_reader(&o);
	}

	/* PLAIN BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY(3) */
	{
		static const uint8_t body[] = {2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'};
		static const uint8_t flba[] = {'x', 'y', 'z', '1', '2', '3'};
		TestColumn	col = {PQ_BYTE_ARRAY, 0, 0, CMP_UNCOMPRESSED};
		TestColumn	fcol = {PQ_FIXED_LEN_BYTE_ARRAY, 3, 0, CMP_GZIP};
		TestPage	page = {.type = 0, .num_values = 3, .encoding = 0, .body = body, .body_len = sizeof(body)};
		TestPage	fpage = {.type = 0, .num_values = 2, .encoding = 0, .body = flba, .body_len = sizeof(flba)};
		const CdcByteView *v;

		UNIT_CHECK(open_reader(&o, &col, &page, 1, 3, false));
		UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_OK && b.num_rows == 3);
		v = b.values;
		UNIT_CHECK(v[0].len == 2 && memcmp(v[0].ptr, "hi", 2) == 0 && v[1].len == 0 &&
				   v[2].len == 3 && memcmp(v[2].ptr, "abc", 3) == 0);
		close_reader(&o);
		UNIT_CHECK(open_reader(&o, &fcol, &fpage, 1, 2, false));
		UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_OK && b.num_rows == 2);
		UNIT_CHECK(b.value_width == 3 && memcmp(b.values, "xyz123", 6) == 0);
		close_reader(&o);
	}

	/* an encoding id nobody defined: unsupported, and named */
	{
		static const uint8_t body[] = {1, 0, 0, 0};
		TestColumn	col = {PQ_INT32, 0, 0, CMP_UNCOMPRESSED};
		TestPage	page = {.type = 0, .num_values = 1, .encoding = 42, .body = body, .body_len = sizeof(body)};

		UNIT_CHECK(open_reader(&o, &col, &page, 1, 1, false));
		UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_ERR_UNSUPPORTED);
		UNIT_CHECKF(strstr(o.err.message, "encoding") != NULL, "%s", o.err.message);
		close_reader(&o);
	}

	/* a snappy page claiming 768 MB from a few bytes: refused before any
	 * allocation of that size */
	{
		static const uint8_t body[] = {1, 0, 0, 0};
		TestColumn	col = {PQ_INT32, 0, 0, CMP_SNAPPY};
		TestPage	page = {.type = 0, .num_values = 1, .encoding = 0, .body = body,
		.body_len = sizeof(body), .uncompressed_len = 0x30000000};

		UNIT_CHECK(open_reader(&o, &col, &page, 1, 1, false));
		UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_ERR_CORRUPT);
		UNIT_CHECK(o.err.page == 0);
		close_reader(&o);
	}

	/* a page whose value section is short: corrupt, never a crash */
	{
		static const uint8_t body[] = {1, 0, 0, 0, 2, 0};
		TestColumn	col = {PQ_INT32, 0, 0, CMP_UNCOMPRESSED};
		TestPage	page = {.type = 0, .num_values = 2, .encoding = 0, .body = body, .body_len = sizeof(body)};

		UNIT_CHECK(open_reader(&o, &col, &page, 1, 2, false));
		UNIT_CHECK(pq_column_reader_read(o.reader, 10, &b, &o.err) == PQ_ERR_CORRUPT);
		close_reader(&o);
	}
}

/* Many pages: skip whole pages, into a page, and read on. */
static void
test_skip(void)
{
	enum
	{
		PAGES = 5, PER_PAGE = 7
	};
	uint8_t		bodies[PAGES][PER_PAGE * 4];
	TestPage	pages[PAGES];
	TestColumn	col = {PQ_INT32, 0, 0, CMP_UNCOMPRESSED};
	static const int skips[] = {0, 1, 7, 8, 20, 34, 35, 40};

	for (int p = 0; p < PAGES; p++)
	{
		for (int i = 0; i < PER_PAGE; i++)
		{
			int32_t		v = 1000 + p * PER_PAGE + i;

			memcpy(&bodies[p][i * 4], &v, 4);	/* little-endian host */
		}
		pages[p] = (TestPage) {.type = p % 2 ? 3 : 0, .num_values = PER_PAGE,
		.num_rows = PER_PAGE, .encoding = 0, .body = bodies[p], .body_len = sizeof(bodies[p])};
	}
	for (size_t s = 0; s < sizeof(skips) / sizeof(skips[0]); s++)
	{
		Opened		o;
		PqColumnBatch b;
		int			next = skips[s];

		UNIT_CHECK(open_reader(&o, &col, pages, PAGES, PAGES * PER_PAGE, false));
		UNIT_CHECK(pq_column_reader_skip(o.reader, (uint64_t) skips[s], &o.err) == PQ_OK);
		while (pq_column_reader_read(o.reader, 4, &b, &o.err) == PQ_OK && b.num_rows > 0)
			for (uint32_t i = 0; i < b.num_rows; i++, next++)
				UNIT_CHECKF(((const int32_t *) b.values)[i] == 1000 + next,
							"skip %d row %d", skips[s], next);
		UNIT_CHECKF(next == (skips[s] > 35 ? skips[s] : 35), "skip %d ends at %d", skips[s], next);
		close_reader(&o);
	}
}

/* ----------------------------------------------------------------
 * The corpus, against DuckDB's CSV
 * ----------------------------------------------------------------
 */
typedef struct Csv
{
	char	   *text;
	int			num_cols;
	int			num_rows;
	char	 ***cells;			/* [row][col], NULL for an unquoted empty field */
	char	  **header;
} Csv;

/* Parse DuckDB's CSV: quotes around fields with , " or newlines, "" escapes. */
static bool
csv_load(const char *path, Csv *csv)
{
	FILE	   *f = fopen(path, "rb");
	long		len;
	char	   *p;
	char	  **row = NULL;
	int			ncol = 0,
				capcol = 0,
				caprow = 0;

	memset(csv, 0, sizeof(*csv));
	if (f == NULL)
		return false;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	csv->text = malloc((size_t) len + 1);
	if (fread(csv->text, 1, (size_t) len, f) != (size_t) len)
	{
		fclose(f);
		return false;
	}
	fclose(f);
	csv->text[len] = '\0';
	p = csv->text;
	while (*p)
	{
		char	   *start = p,
				   *out = p;
		bool		quoted = false;
		char		end;

		if (*p == '"')
		{
			quoted = true;
			p++;
			for (;;)
			{
				if (*p == '\0')
					break;
				if (*p == '"' && p[1] == '"')
				{
					*out++ = '"';
					p += 2;
				}
				else if (*p == '"')
				{
					p++;
					break;
				}
				else
					*out++ = *p++;
			}
		}
		else
			while (*p && *p != ',' && *p != '\n' && *p != '\r')
				*out++ = *p++;
		end = *p;
		if (end == '\r')
			p++;
		end = *p;
		if (*p)
			p++;
		*out = '\0';
		if (ncol == capcol)
		{
			capcol = capcol ? capcol * 2 : 16;
			row = realloc(row, sizeof(char *) * capcol);
		}
		row[ncol++] = (!quoted && *start == '\0') ? NULL : start;
		if (end == '\n' || end == '\0')
		{
			if (csv->header == NULL)
			{
				csv->header = row;
				csv->num_cols = ncol;
			}
			else
			{
				if (csv->num_rows == caprow)
				{
					caprow = caprow ? caprow * 2 : 64;
					csv->cells = realloc(csv->cells, sizeof(char **) * caprow);
				}
				csv->cells[csv->num_rows++] = row;
			}
			row = NULL;
			ncol = capcol = 0;
		}
	}
	free(row);
	return csv->header != NULL;
}

static void
csv_free(Csv *csv)
{
	for (int i = 0; i < csv->num_rows; i++)
		free(csv->cells[i]);
	free(csv->cells);
	free(csv->header);
	free(csv->text);
}

static int
file_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	FILE	   *f = ctx;

	if (fseeko(f, (off_t) offset, SEEK_SET) != 0 || fread(buf, 1, len, f) != len)
		return EIO;
	return 0;
}

/* Can we render this leaf the way DuckDB does, trivially? */
static bool
comparable(const PqLeaf *leaf)
{
	const PqSchemaNode *n = leaf->node;
	PqLogicalKind k = n->logical.kind;

	if (leaf->max_rep > 0 || n->parent == NULL || n->parent->parent != NULL)
		return false;
	switch (n->physical)
	{
		case PQ_BOOLEAN:
		case PQ_FLOAT:
		case PQ_DOUBLE:
			return k == PQ_LT_NONE;
		case PQ_INT32:
		case PQ_INT64:
			return k == PQ_LT_NONE || (k == PQ_LT_INTEGER && n->logical.is_signed);
		case PQ_BYTE_ARRAY:
			return k == PQ_LT_STRING;
		default:
			return false;
	}
}

/* Does the value at row i equal DuckDB's cell? */
static bool
value_matches(const PqLeaf *leaf, const PqColumnBatch *b, uint32_t i, const char *cell)
{
	const void *v = (const uint8_t *) b->values + (size_t) i * b->value_width;
	char		buf[64];

	if (b->is_null && b->is_null[i])
		return cell == NULL;
	if (cell == NULL)
		return false;
	switch (leaf->node->physical)
	{
		case PQ_BOOLEAN:
			return strcmp(cell, *(const uint8_t *) v ? "true" : "false") == 0;
		case PQ_INT32:
			snprintf(buf, sizeof(buf), "%d", *(const int32_t *) v);
			return strcmp(cell, buf) == 0;
		case PQ_INT64:
			snprintf(buf, sizeof(buf), "%lld", (long long) *(const int64_t *) v);
			return strcmp(cell, buf) == 0;
		case PQ_FLOAT:
		case PQ_DOUBLE:
			{
				double		x = leaf->node->physical == PQ_FLOAT ?
					(double) *(const float *) v : *(const double *) v;
				double		y = strtod(cell, NULL);

				if (isnan(x) || isnan(y))
					return isnan(x) && isnan(y);
				if (isinf(x) || isinf(y))
					return x == y;
				if (leaf->node->physical == PQ_FLOAT)
					return (float) y == (float) x || fabs(x - y) <= 1e-6 * fabs(x);
				return x == y || fabs(x - y) <= 1e-15 * fabs(x);
			}
		case PQ_BYTE_ARRAY:
			{
				const CdcByteView *s = v;

				return strlen(cell) == s->len && memcmp(cell, s->ptr, s->len) == 0;
			}
		default:
			return false;
	}
}


/*
 * A 3-level LIST of integers or strings at the top level (x.list.element):
 * rendered as DuckDB does, "[1, NULL, 3]", "[]" for an empty list, an empty
 * cell for a null list.  Returns the definition level of x (0 if the LIST
 * is required), or -1 when the leaf is not such a list.
 */
static int
list_comparable(const PqLeaf *leaf)
{
	const PqSchemaNode *n = leaf->node;
	const PqSchemaNode *list = n->parent;
	const PqSchemaNode *x = list ? list->parent : NULL;
	PqLogicalKind k = n->logical.kind;

	if (leaf->max_rep != 1 || x == NULL || x->parent == NULL || x->parent->parent != NULL ||
		x->logical.kind != PQ_LT_LIST || list->repetition != PQ_REPEATED ||
		n->repetition == PQ_REPEATED)
		return -1;
	if (!((n->physical == PQ_INT32 || n->physical == PQ_INT64) &&
		  (k == PQ_LT_NONE || (k == PQ_LT_INTEGER && n->logical.is_signed))) &&
		!(n->physical == PQ_BYTE_ARRAY && k == PQ_LT_STRING))
		return -1;
	return x->max_def;
}

static void
render_value(const PqLeaf *leaf, const void *v, char *out, size_t cap)
{
	switch (leaf->node->physical)
	{
		case PQ_INT32:
			snprintf(out, cap, "%d", *(const int32_t *) v);
			break;
		case PQ_INT64:
			snprintf(out, cap, "%lld", (long long) *(const int64_t *) v);
			break;
		default:
			{
				const CdcByteView *s = v;

				snprintf(out, cap, "%.*s", (int) s->len, (const char *) s->ptr);
			}
	}
}

/*
 * Render the rows of a repeated batch into rows[] (malloc'd strings, NULL
 * for a null list).
 */
static void
render_list_rows(const PqLeaf *leaf, int x_def, const PqColumnBatch *b, char **rows)
{
	uint32_t	v = 0;
	int			r = -1;
	size_t		len = 0;
	size_t		cap = 0;
	char	   *cur = NULL;

	for (uint32_t i = 0; i <= b->num_levels; i++)
	{
		char		item[512];

		if (i == b->num_levels || b->rep_levels[i] == 0)
		{
			if (r >= 0)
				rows[r] = cur;
			if (i == b->num_levels)
				break;
			r++;
			cur = NULL;
			len = 0;
			cap = 0;
			if (b->def_levels[i] < x_def)
				continue;		/* null list */
			cap = 64;
			cur = malloc(cap);
			strcpy(cur, "[");
			len = 1;
			if (b->def_levels[i] == x_def)
			{
				strcpy(cur + len, "]");
				continue;		/* empty list */
			}
		}
		if (b->def_levels[i] == leaf->max_def)
			render_value(leaf, (const uint8_t *) b->values + (size_t) (v++) * b->value_width,
						 item, sizeof(item));
		else
			strcpy(item, "NULL");
		if (cur == NULL)
			continue;
		while (len + strlen(item) + 4 > cap)
		{
			cap *= 2;
			cur = realloc(cur, cap);
		}
		len += (size_t) sprintf(cur + len, "%s%s", len > 1 ? ", " : "", item);
		strcpy(cur + len, "]");
	}
}

static int	lists_compared;

static int	files_read,
			files_compared,
			columns_compared;
static long values_compared;

/* Read every column of a file; compare the comparable ones with csv. */
static void
check_corpus_file(const char *dir, const char *name, bool bad_data)
{
	char		path[1024];
	char		csv_path[1100];
	FILE	   *f;
	struct stat st;
	PfcSource	source;
	PqFile	   *file;
	PqError		err;
	PqStatus	s;
	Csv			csv;
	bool		have_csv;
	const PqFileMeta *meta;
	bool		expect_checksum_error = strstr(name, "corrupt-checksum") != NULL;
	bool		encrypted = strstr(name, "encrypt") != NULL;
	bool		file_compared = false;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (f == NULL || fstat(fileno(f), &st) != 0)
	{
		UNIT_CHECKF(false, "cannot open %s", path);
		if (f)
			fclose(f);
		return;
	}
	source.read_at = file_read_at;
	source.size = (uint64_t) st.st_size;
	source.ctx = f;
	s = pq_file_open(&file, &source, &pfc_malloc_allocator, &err);
	if (s != PQ_OK)
	{
		/* only encrypted footers and bad data may fail to open */
		UNIT_CHECKF(bad_data || encrypted, "%s: %s", name, err.message);
		fclose(f);
		return;
	}
	snprintf(csv_path, sizeof(csv_path), "%s.expected.csv", path);
	have_csv = !bad_data && csv_load(csv_path, &csv);
	meta = pq_file_meta(file);
	files_read++;

	for (int leaf = 0; leaf < meta->num_leaves; leaf++)
	{
		const PqLeaf *lf = &meta->leaves[leaf];
		int			csv_col = -1;
		int64_t		row = 0;
		bool		ok = true;
		bool		failed = false;

		int			x_def = have_csv ? list_comparable(lf) : -1;

		if (have_csv && (comparable(lf) || x_def >= 0))
		{
			/* a list is named by its top-level field */
			size_t		name_len = x_def >= 0 ? strcspn(lf->path, ".") : strlen(lf->path);

			for (int c = 0; c < csv.num_cols; c++)
				if (strlen(csv.header[c]) == name_len &&
					strncmp(csv.header[c], lf->path, name_len) == 0)
					csv_col = c;
		}

		for (int rg = 0; rg < meta->num_row_groups && !failed; rg++)
		{
			PqColumnReaderOptions options = {.verify_crc = true};
			PqColumnReader *reader;
			PqColumnBatch b;

			s = pq_column_reader_open(&reader, file, rg, leaf, &options,
									  &pfc_malloc_allocator, &err);
			while (s == PQ_OK)
			{
				/* odd batch sizes cut across pages and rows */
				s = pq_column_reader_read(reader, 977, &b, &err);
				if (s != PQ_OK || b.num_rows == 0)
					break;
				if (x_def >= 0 && csv_col >= 0)
				{
					char	  **rendered = calloc(b.num_rows, sizeof(char *));

					render_list_rows(lf, x_def, &b, rendered);
					for (uint32_t i = 0; i < b.num_rows; i++, row++)
					{
						const char *cell = row < csv.num_rows ? csv.cells[row][csv_col] : "<missing>";
						bool		same = (cell == NULL && rendered[i] == NULL) ||
						(cell != NULL && rendered[i] != NULL && strcmp(cell, rendered[i]) == 0);

						if (!same && ok)
						{
							UNIT_CHECKF(false, "%s list %s row %lld: csv '%s', read '%s'", name,
										lf->path, (long long) row, cell ? cell : "NULL",
										rendered[i] ? rendered[i] : "NULL");
							ok = false;
						}
						free(rendered[i]);
						values_compared++;
					}
					free(rendered);
					continue;
				}
				for (uint32_t i = 0; i < b.num_rows && csv_col >= 0; i++, row++)
				{
					const char *cell = row < csv.num_rows ? csv.cells[row][csv_col] : "<missing>";

					if (!value_matches(lf, &b, i, cell) && ok)
					{
						UNIT_CHECKF(false, "%s column %s row %lld: csv '%s'", name, lf->path,
									(long long) row, cell ? cell : "NULL");
						ok = false;
					}
					values_compared++;
				}
			}
			if (s != PQ_OK)
			{
				failed = true;
				if (!bad_data)
				{
					bool		allowed = (s == PQ_ERR_CHECKSUM && expect_checksum_error) ||
					(s == PQ_ERR_UNSUPPORTED && encrypted);

					UNIT_CHECKF(allowed, "%s column %s row group %d: %s", name, lf->path,
								rg, err.message);
				}
			}
			if (s == PQ_OK || reader != NULL)
				pq_column_reader_close(reader);
		}
		if (csv_col >= 0 && !failed)
		{
			UNIT_CHECKF(row == csv.num_rows, "%s column %s: %lld rows, csv %d", name,
						lf->path, (long long) row, csv.num_rows);
			columns_compared++;
			lists_compared += x_def >= 0;
			file_compared = true;
		}
		if (!bad_data && !failed)
			UNIT_CHECK(true);	/* column read without error */
	}
	if (file_compared)
		files_compared++;
	if (have_csv)
		csv_free(&csv);
	pq_file_close(file);
	fclose(f);
}

static void
check_corpus_dir(const char *dir, bool bad_data)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;
	char	  **names = NULL;
	int			n = 0;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
	{
		size_t		len = strlen(e->d_name);

		if (len > 8 && (strcmp(e->d_name + len - 8, ".parquet") == 0 ||
						strstr(e->d_name, ".parquet.") != NULL) &&
			strstr(e->d_name, ".csv") == NULL && strstr(e->d_name, ".json") == NULL)
		{
			names = realloc(names, sizeof(char *) * (n + 1));
			names[n++] = strdup(e->d_name);
		}
	}
	closedir(d);
	for (int i = 0; i < n; i++)
	{
		check_corpus_file(dir, names[i], bad_data);
		free(names[i]);
	}
	free(names);
}

static void
test_corpus(void)
{
	const char *root = getenv("PARQUET_TESTING_DIR");
	char		dir[1024];
	struct stat st;

	if (root == NULL)
		root = "../../shared/parquet-testing";
	if (stat(root, &st) != 0)
		root = "../shared/parquet-testing";
	if (stat(root, &st) != 0)
	{
		printf("test_column_reader: corpus not found, skipping corpus checks\n");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/data", root);
	check_corpus_dir(dir, false);
	snprintf(dir, sizeof(dir), "%s/bad_data", root);
	check_corpus_dir(dir, true);
	snprintf(dir, sizeof(dir), "%s/shredded_variant", root);
	check_corpus_dir(dir, false);
	printf("test_column_reader: corpus: %d files read, %d columns (%d of them lists) of %d files compared with DuckDB (%ld values)\n",
		   files_read, columns_compared, lists_compared, files_compared, values_compared);
	UNIT_CHECK(columns_compared > 0);
}

int
main(void)
{
	test_plain_required();
	test_optional_v1();
	test_dictionary();
	test_dictionary_indexes();
	test_rows_span_pages();
	test_v2_levels();
	test_crc();
	test_encodings();
	test_skip();
	test_corpus();
	UNIT_MAIN_END("test_column_reader");
}
