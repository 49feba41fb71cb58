/*-------------------------------------------------------------------------
 *
 * gen_pageindex.c
 *	  Write test/data/pruning/pageindex.parquet, the page-index pruning fixture of
 *	  sql/pruning.sql, with this project's writer (writer.h).
 *
 *	  gen_pageindex OUT.parquet [ROW_GROUPS]
 *
 * 20000 rows, i = 1..20000, in 4 row groups (or ROW_GROUPS, for
 * benchmarks) of 5000 rows and data pages
 * of 500 rows (so page p of row group r holds i = 5000 r + 500 p + 1 ..
 * 5000 r + 500 p + 500), PLAIN values, ZSTD, v1 pages, statistics, and an
 * OffsetIndex and ColumnIndex for every chunk:
 *	 id  INT64 REQUIRED				 i
 *	 g	 INT32 OPTIONAL				 (i - 1) % 1000: even pages hold 0..499,
 *									 odd pages 500..999
 *	 n	 INT32 OPTIONAL				 i, NULL on every fourth page
 *									 ((i - 1) / 500 % 4 = 3)
 *	 s	 BYTE_ARRAY STRING REQUIRED	 's' followed by i in 5 digits
 *	 l	 LIST of INT64, REQUIRED	 i % 3 elements: 10 i, 10 i + 1, ...
 *									 (pages start at a row)
 *
 * IDENTIFICATION
 *	  test/tools/gen_pageindex.c
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compress/compress.h"
#include "parquet/writer.h"

#define ROWS_PER_GROUP	5000
#define DEFAULT_GROUPS	4

static int
file_write(void *ctx, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, (FILE *) ctx) == len ? 0 : EIO;
}

static int
fail(const char *what, const PqError *err)
{
	fprintf(stderr, "gen_pageindex: %s: %s\n", what, err->message);
	return 1;
}

int
main(int argc, char **argv)
{
	PqWriteColumn cols[5];
	PqWriterOptions opt;
	PqWriter   *w = NULL;
	PqError		err;
	PqSink		sink;
	FILE	   *f;
	static int64_t id[ROWS_PER_GROUP];
	static int32_t g[ROWS_PER_GROUP];
	static int32_t n[ROWS_PER_GROUP];
	static bool n_null[ROWS_PER_GROUP];
	static CdcByteView s[ROWS_PER_GROUP];
	static char sbuf[ROWS_PER_GROUP][12];
	static int64_t offsets[501];
	static int16_t ldef[1024];
	static int16_t lrep[1024];
	static int64_t lidx[1024];
	static int64_t lval[1024];

	int			groups = DEFAULT_GROUPS;

	if (argc != 2 && argc != 3)
	{
		fprintf(stderr, "usage: gen_pageindex OUT.parquet [ROW_GROUPS]\n");
		return 2;
	}
	if (argc == 3 && (groups = atoi(argv[2])) <= 0)
	{
		fprintf(stderr, "gen_pageindex: bad row group count \"%s\"\n", argv[2]);
		return 2;
	}
	f = fopen(argv[1], "wb");
	if (f == NULL)
	{
		perror(argv[1]);
		return 1;
	}
	sink.write = file_write;
	sink.ctx = f;

	memset(cols, 0, sizeof(cols));
	for (int c = 0; c < 5; c++)
	{
		cols[c].encoding = PQ_WRITE_PLAIN;
		cols[c].field_id = -1;
		cols[c].repetition = PQ_OPTIONAL;
	}
	cols[0].name = "id";
	cols[0].physical = PQ_INT64;
	cols[0].repetition = PQ_REQUIRED;
	cols[1].name = "g";
	cols[1].physical = PQ_INT32;
	cols[2].name = "n";
	cols[2].physical = PQ_INT32;
	cols[3].name = "s";
	cols[3].physical = PQ_BYTE_ARRAY;
	cols[3].logical.kind = PQ_LT_STRING;
	cols[3].repetition = PQ_REQUIRED;
	cols[4].name = "l";
	cols[4].physical = PQ_INT64;
	cols[4].repetition = PQ_REQUIRED;
	cols[4].is_list = true;
	cols[4].element_repetition = PQ_REQUIRED;

	pq_writer_options_init(&opt);
	opt.page_row_limit = 500;
	opt.write_page_index = true;
	opt.codec = CMP_ZSTD;
	opt.created_by = "parquet_fdw gen_pageindex";
	if (pq_writer_open(&w, cols, 5, &opt, &sink, &pfc_malloc_allocator, &err) != PQ_OK)
		return fail("open", &err);

	for (int r = 0; r < groups; r++)
	{
		PqColumnBatch b;

		for (int k = 0; k < ROWS_PER_GROUP; k++)
		{
			int64_t		i = (int64_t) r * ROWS_PER_GROUP + k + 1;

			id[k] = i;
			g[k] = (int32_t) ((i - 1) % 1000);
			n[k] = (int32_t) i;
			n_null[k] = (i - 1) / 500 % 4 == 3;
			s[k].len = (uint32_t) snprintf(sbuf[k], sizeof(sbuf[k]), "s%05d", (int) i);
			s[k].ptr = (const uint8_t *) sbuf[k];
		}
		/* one call per page, so pages hold exactly 500 rows */
		for (int c = 0; c < 5; c++)
			for (int k = 0; k < ROWS_PER_GROUP; k += 500)
			{
				memset(&b, 0, sizeof(b));
				b.num_rows = 500;
				b.num_levels = 500;
				switch (c)
				{
					case 0:
						b.values = id + k;
						break;
					case 1:
						b.values = g + k;
						break;
					case 2:
						b.values = n + k;
						b.is_null = n_null + k;
						break;
					case 3:
						b.values = s + k;
						break;
					default:
						{
							uint32_t	nv;

							/* row k + j holds id % 3 elements */
							offsets[0] = 0;
							for (int j = 0; j < 500; j++)
								offsets[j + 1] = offsets[j] + id[k + j] % 3;
							if (pq_list_levels(&cols[4], 500, offsets, NULL, NULL,
											   ldef, lrep, lidx, &nv, &err) != PQ_OK)
								return fail("list levels", &err);
							for (int j = 0, e = 0; j < 500; j++)
								for (int64_t x = 0; x < id[k + j] % 3; x++)
									lval[e++] = 10 * id[k + j] + x;
							b.num_levels = (uint32_t) pq_list_level_count(offsets, 500);
							b.num_values = nv;
							b.def_levels = ldef;
							b.rep_levels = lrep;
							b.values = lval;
						}
						break;
				}
				if (pq_writer_write_column(w, c, &b, &err) != PQ_OK)
					return fail("write", &err);
			}
		if (pq_writer_end_row_group(w, &err) != PQ_OK)
			return fail("row group", &err);
	}
	if (pq_writer_close(w, &err) != PQ_OK)
		return fail("close", &err);
	pq_writer_free(w);
	if (fclose(f) != 0)
	{
		perror(argv[1]);
		return 1;
	}
	return 0;
}
