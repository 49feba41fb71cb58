/*-------------------------------------------------------------------------
 *
 * test_dictionary_probe.c
 *	  Tests of pq_read_dictionary(): files written in memory by the
 *	  project's writer with dictionary chunks, chunks that fell back to
 *	  PLAIN pages, PLAIN chunks and every-other-row NULL columns; the
 *	  dictionary must list exactly the distinct non-null values written.
 *
 * IDENTIFICATION
 *	  test/unit/test_dictionary_probe.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/dictionary_probe.h"
#include "parquet/writer.h"
#include "compress/compress.h"

#include <errno.h>

#include "unit.h"

typedef struct MemBuf
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
} MemBuf;

static int
mem_write(void *ctx, const void *buf, size_t len)
{
	MemBuf	   *m = ctx;

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

#define NROWS 1000

/*
 * Two row groups of NROWS rows, three columns:
 *	 a INT64, dictionary: 10 * (i % 7) + row group, nulls where i % 3 == 0
 *	 s BYTE_ARRAY, dictionary with at most 50 entries: "v" + (i % 100), so
 *	   the rest of the chunk falls back to PLAIN pages
 *	 p INT32, PLAIN
 * Pages of 100 rows, so the walk crosses many page headers.
 */
static void
write_file(MemBuf *m, int32_t codec, bool v2)
{
	PqWriteColumn c[3];
	PqWriterOptions opt;
	PqSink		sink = {mem_write, m};
	PqWriter   *w = NULL;
	PqError		err;
	static int64_t a[NROWS];
	static bool anull[NROWS];
	static CdcByteView s[NROWS];
	static char sbuf[NROWS][8];
	static int32_t p[NROWS];

	memset(c, 0, sizeof(c));
	c[0].name = "a";
	c[0].physical = PQ_INT64;
	c[0].repetition = PQ_OPTIONAL;
	c[0].encoding = PQ_WRITE_DICTIONARY;
	c[0].field_id = -1;
	c[1] = c[0];
	c[1].name = "s";
	c[1].physical = PQ_BYTE_ARRAY;
	c[1].logical.kind = PQ_LT_STRING;
	c[2] = c[0];
	c[2].name = "p";
	c[2].physical = PQ_INT32;
	c[2].encoding = PQ_WRITE_PLAIN;

	pq_writer_options_init(&opt);
	opt.codec = codec;
	opt.data_page_v2 = v2;
	opt.page_row_limit = 100;
	opt.dictionary_max_entries = 50;
	UNIT_CHECK(pq_writer_open(&w, c, 3, &opt, &sink, &pfc_malloc_allocator, &err) == PQ_OK);
	for (int rg = 0; rg < 2; rg++)
	{
		PqColumnBatch b;

		for (int i = 0; i < NROWS; i++)
		{
			a[i] = 10 * (i % 7) + rg;
			anull[i] = i % 3 == 0;
			snprintf(sbuf[i], sizeof(sbuf[i]), "v%d", i % 100);
			s[i].ptr = (const uint8_t *) sbuf[i];
			s[i].len = (uint32_t) strlen(sbuf[i]);
			p[i] = i;
		}
		memset(&b, 0, sizeof(b));
		b.num_rows = NROWS;
		b.num_levels = NROWS;
		b.values = a;
		b.is_null = anull;
		UNIT_CHECK(pq_writer_write_column(w, 0, &b, &err) == PQ_OK);
		b.values = s;
		b.is_null = NULL;
		UNIT_CHECK(pq_writer_write_column(w, 1, &b, &err) == PQ_OK);
		b.values = p;
		UNIT_CHECK(pq_writer_write_column(w, 2, &b, &err) == PQ_OK);
		UNIT_CHECK(pq_writer_end_row_group(w, &err) == PQ_OK);
	}
	UNIT_CHECK(pq_writer_close(w, &err) == PQ_OK);
	pq_writer_free(w);
}

static void
check_file(int32_t codec, bool v2)
{
	MemBuf		m = {0};
	PfcSource	src;
	PqFile	   *file = NULL;
	PqError		err;

	write_file(&m, codec, v2);
	src.read_at = mem_read_at;
	src.size = m.len;
	src.ctx = &m;
	UNIT_CHECK(pq_file_open(&file, &src, &pfc_malloc_allocator, &err) == PQ_OK);
	if (file == NULL)
		return;

	for (int rg = 0; rg < 2; rg++)
	{
		PqDictionary *d = NULL;
		bool		seen[7] = {false};

		/* a: exactly the 7 values 10 * k + rg, each once */
		UNIT_CHECKF(pq_read_dictionary(file, rg, 0, NULL, &d, &err) == PQ_OK,
					"%s", err.message);
		UNIT_CHECK(d != NULL);
		if (d)
		{
			UNIT_CHECK(d->num_values == 7);
			for (uint32_t i = 0; i < d->num_values; i++)
			{
				int64_t		v;

				UNIT_CHECK(d->values[i].len == 8);
				memcpy(&v, d->values[i].data, 8);
				UNIT_CHECKF(v >= 0 && v < 70 && v % 10 == rg && !seen[v / 10],
							"value %lld", (long long) v);
				if (v >= 0 && v < 70)
					seen[v / 10] = true;
			}
			pq_dictionary_free(d);
		}

		/* s: the dictionary overflowed, PLAIN pages follow: not usable */
		d = (PqDictionary *) 1;
		UNIT_CHECK(pq_read_dictionary(file, rg, 1, NULL, &d, &err) == PQ_OK);
		UNIT_CHECK(d == NULL);

		/* p: PLAIN, no dictionary */
		d = (PqDictionary *) 1;
		UNIT_CHECK(pq_read_dictionary(file, rg, 2, NULL, &d, &err) == PQ_OK);
		UNIT_CHECK(d == NULL);
	}
	{
		PqDictionary *d = NULL;

		UNIT_CHECK(pq_read_dictionary(file, 2, 0, NULL, &d, &err) ==
				   PQ_ERR_INVALID_ARGUMENT && d == NULL);
		UNIT_CHECK(pq_read_dictionary(file, 0, 3, NULL, &d, &err) ==
				   PQ_ERR_INVALID_ARGUMENT && d == NULL);
	}
	pq_file_close(file);

	/* a damaged dictionary page header is an error, never a dictionary */
	{
		const PqFileMeta *meta;
		uint64_t	start;
		uint64_t	length;

		UNIT_CHECK(pq_file_open(&file, &src, &pfc_malloc_allocator, &err) == PQ_OK);
		meta = pq_file_meta(file);
		pq_column_chunk_range(&meta->row_groups[0].columns[0], &start, &length);
		for (uint64_t k = 0; k < 16 && start + k < m.len; k++)
		{
			PqDictionary *d = NULL;
			uint8_t		saved = m.data[start + k];
			PqStatus	st;

			m.data[start + k] = 0xFF;
			st = pq_read_dictionary(file, 0, 0, NULL, &d, &err);
			/* either refused or, if the byte did not matter, the same 7 */
			UNIT_CHECKF(st != PQ_OK ? d == NULL : (d == NULL || d->num_values == 7),
						"byte %llu: status %d", (unsigned long long) k, st);
			pq_dictionary_free(d);
			m.data[start + k] = saved;
		}
		pq_file_close(file);
	}
	free(m.data);
}

int
main(void)
{
	check_file(CMP_UNCOMPRESSED, false);
	check_file(CMP_UNCOMPRESSED, true);
	check_file(CMP_ZSTD, false);
	check_file(CMP_SNAPPY, true);
	UNIT_MAIN_END("test_dictionary_probe");
}
