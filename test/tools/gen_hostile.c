/*-------------------------------------------------------------------------
 *
 * gen_hostile.c
 *	  Write a small Parquet file whose values are huge: the memory stage's
 *	  fixture (test/memory/run.sh), made by this project's writer.
 *
 *	  gen_hostile OUT.parquet ROWS VALUE_BYTES [dictionary|plain]
 *
 * One row group, ZSTD, v1 pages of one row each:
 *	 id  INT32 REQUIRED				 1 .. ROWS
 *	 s	 BYTE_ARRAY STRING OPTIONAL	 VALUE_BYTES times 'x' in every row
 *
 * dictionary (the default): s is dictionary-encoded, so its one value is
 * stored once, in the dictionary page, and every row references it; the
 * file is a few KB however large VALUE_BYTES is.  plain: each row stores
 * the value itself (still small, compressed), the case a batch's byte
 * bound protects against.
 *
 * IDENTIFICATION
 *	  test/tools/gen_hostile.c
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compress/compress.h"
#include "parquet/writer.h"

static int
file_write(void *ctx, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, (FILE *) ctx) == len ? 0 : EIO;
}

static int
fail(const char *what, const PqError *err)
{
	fprintf(stderr, "gen_hostile: %s: %s\n", what, err->message);
	return 1;
}

int
main(int argc, char **argv)
{
	PqWriteColumn cols[2];
	PqWriterOptions opt;
	PqWriter   *w = NULL;
	PqError		err;
	PqSink		sink;
	FILE	   *f;
	long		rows;
	long long	value_bytes;
	bool		dictionary = true;
	uint8_t    *value;
	int			status = 0;

	if (argc < 4 || argc > 5 ||
		(argc == 5 && strcmp(argv[4], "dictionary") != 0 && strcmp(argv[4], "plain") != 0))
	{
		fprintf(stderr, "usage: gen_hostile OUT.parquet ROWS VALUE_BYTES [dictionary|plain]\n");
		return 2;
	}
	rows = atol(argv[2]);
	value_bytes = atoll(argv[3]);
	if (rows <= 0 || rows > 1000000 || value_bytes < 0 || value_bytes > 1000000000LL)
	{
		fprintf(stderr, "gen_hostile: ROWS must be 1..1000000, VALUE_BYTES 0..1000000000\n");
		return 2;
	}
	dictionary = argc < 5 || strcmp(argv[4], "dictionary") == 0;
	value = malloc((size_t) value_bytes + 1);
	if (value == NULL)
	{
		fprintf(stderr, "gen_hostile: out of memory\n");
		return 1;
	}
	memset(value, 'x', (size_t) value_bytes);

	f = fopen(argv[1], "wb");
	if (f == NULL)
	{
		perror(argv[1]);
		free(value);
		return 1;
	}
	sink.write = file_write;
	sink.ctx = f;

	memset(cols, 0, sizeof(cols));
	cols[0].name = "id";
	cols[0].physical = PQ_INT32;
	cols[0].repetition = PQ_REQUIRED;
	cols[0].encoding = PQ_WRITE_PLAIN;
	cols[0].field_id = -1;
	cols[1].name = "s";
	cols[1].physical = PQ_BYTE_ARRAY;
	cols[1].logical.kind = PQ_LT_STRING;
	cols[1].repetition = PQ_OPTIONAL;
	cols[1].encoding = dictionary ? PQ_WRITE_DICTIONARY : PQ_WRITE_PLAIN;
	cols[1].field_id = -1;

	pq_writer_options_init(&opt);
	opt.page_row_limit = 1;
	opt.codec = CMP_ZSTD;
	opt.write_statistics = false;	/* bounds would copy the value twice */
	opt.dictionary_max_bytes = (size_t) value_bytes + 64;
	opt.created_by = "parquet_fdw gen_hostile";
	if (pq_writer_open(&w, cols, 2, &opt, &sink, &pfc_malloc_allocator, &err) != PQ_OK)
		status = fail("open", &err);

	/* ids first (a column is closed when the next one starts), row by row */
	for (long r = 0; status == 0 && r < rows; r++)
	{
		int32_t		id = (int32_t) (r + 1);
		PqColumnBatch b = {.num_rows = 1, .values = &id};

		if (pq_writer_write_column(w, 0, &b, &err) != PQ_OK)
			status = fail("write id", &err);
	}
	for (long r = 0; status == 0 && r < rows; r++)
	{
		CdcByteView v = {value, (uint32_t) value_bytes};
		PqColumnBatch b = {.num_rows = 1, .values = &v};

		if (pq_writer_write_column(w, 1, &b, &err) != PQ_OK)
			status = fail("write s", &err);
	}
	if (status == 0 && pq_writer_close(w, &err) != PQ_OK)
		status = fail("close", &err);
	pq_writer_free(w);
	free(value);
	if (fclose(f) != 0 && status == 0)
	{
		perror(argv[1]);
		status = 1;
	}
	return status;
}
