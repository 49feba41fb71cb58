/*-------------------------------------------------------------------------
 *
 * test_memory_bounded.c
 *	  Reading a file of many row groups takes memory that does not grow with
 *	  the row groups read.
 *
 * For each codec a file of 120 row groups (several pages per chunk, five
 * column shapes: PLAIN int64, dictionary int32, BYTE_STREAM_SPLIT double,
 * dictionary strings, DELTA_BINARY_PACKED optional int64 with nulls) is
 * written in memory with the project's writer, then every row group is read
 * through the column readers with a counting allocator, as the scan does:
 * open the readers, read batches, close them.  Checked:
 *
 *	- after each row group's readers are closed, no byte is left allocated;
 *	- the most memory live while reading a row group is the same for every
 *	  row group (the first ten set the bound, with 25% slack for dictionaries
 *	  of different sizes): nothing accumulates across row groups;
 *	- the compression libraries hold the same bytes after every row group
 *	  (cmp_memory_stats: decompressions free what they allocate; only zstd's
 *	  process-wide context stays);
 *	- the values read are the ones written (sums against the formulas).
 *
 * Then again with the readers' page buffers from one buffer pool shared
 * across row groups (as the scan does): what stays allocated after each row
 * group is the pool's kept buffers, which do not grow past what the first
 * ten row groups needed (compressed page sizes vary a little), and nothing
 * is left once the pool is destroyed.
 *
 * IDENTIFICATION
 *	  test/unit/test_memory_bounded.c
 *
 *-------------------------------------------------------------------------
 */
#include "compress/compress.h"
#include "common/buffer_pool.h"
#include "parquet/parquet.h"
#include "parquet/writer.h"

#include <errno.h>

#include "unit.h"

#define NUM_ROW_GROUPS	120
#define ROWS_PER_GROUP	5000
#define BATCH_ROWS		1024
#define NUM_COLUMNS		5

/* ---- in-memory file ---- */
typedef struct MemFile
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
} MemFile;

static int
mem_write(void *ctx, const void *buf, size_t len)
{
	MemFile    *m = ctx;

	if (m->len + len > m->cap)
	{
		size_t		cap = m->cap ? m->cap : 65536;
		uint8_t    *n;

		while (cap < m->len + len)
			cap *= 2;
		n = realloc(m->data, cap);
		if (n == NULL)
			return ENOMEM;
		m->data = n;
		m->cap = cap;
	}
	memcpy(m->data + m->len, buf, len);
	m->len += len;
	return 0;
}

static int
mem_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	MemFile    *m = ctx;

	if (offset > m->len || len > m->len - offset)
		return EIO;
	memcpy(buf, m->data + offset, len);
	return 0;
}

/* ---- counting allocator: live bytes and their high-water mark ---- */
typedef struct Counter
{
	size_t		live;
	size_t		peak;
	uint64_t	allocs;
} Counter;

static void *
count_alloc(void *ctx, size_t size)
{
	Counter    *c = ctx;
	size_t	   *p = malloc(size + 16);

	if (p == NULL)
		return NULL;
	p[0] = size;
	c->live += size;
	if (c->live > c->peak)
		c->peak = c->live;
	c->allocs++;
	return (uint8_t *) p + 16;
}

static void
count_release(void *ctx, void *ptr)
{
	Counter    *c = ctx;
	size_t	   *p;

	if (ptr == NULL)
		return;
	p = (size_t *) ((uint8_t *) ptr - 16);
	c->live -= p[0];
	free(p);
}

/* ---- the data: every value a function of the row number ---- */
static const char *const words[] = {"alpha", "bravo", "charlie", "delta",
"echo", "foxtrot", "golf", "hotel", "india", "juliett"};

static int64_t
v_id(int64_t row)
{
	return row * 7 + 3;
}

static int32_t
v_small(int64_t row)
{
	return (int32_t) (row % 97);
}

static double
v_double(int64_t row)
{
	return (double) ((row * 2654435761u) % 100000) / 8.0;
}

static const char *
v_word(int64_t row)
{
	return words[(row * 31) % 10];
}

/* optional: null every 5th row, else a pseudo-random wide value */
static bool
v_opt_null(int64_t row)
{
	return row % 5 == 0;
}

static int64_t
v_opt(int64_t row)
{
	return (int64_t) ((uint64_t) row * UINT64_C(0x9E3779B97F4A7C15) >> 20);
}

static bool
write_file(int codec, MemFile *out)
{
	PqWriteColumn cols[NUM_COLUMNS];
	PqWriterOptions opts;
	PqSink		sink = {mem_write, out};
	PqWriter   *w = NULL;
	PqError		err;
	int64_t    *i64 = malloc(sizeof(int64_t) * ROWS_PER_GROUP);
	int32_t    *i32 = malloc(sizeof(int32_t) * ROWS_PER_GROUP);
	double	   *f64 = malloc(sizeof(double) * ROWS_PER_GROUP);
	CdcByteView *str = malloc(sizeof(CdcByteView) * ROWS_PER_GROUP);
	int64_t    *opt = malloc(sizeof(int64_t) * ROWS_PER_GROUP);
	bool	   *opt_null = malloc(sizeof(bool) * ROWS_PER_GROUP);
	bool		ok = true;

	memset(cols, 0, sizeof(cols));
	for (int c = 0; c < NUM_COLUMNS; c++)
		cols[c].field_id = -1;
	cols[0].name = "id";
	cols[0].physical = PQ_INT64;
	cols[0].encoding = PQ_WRITE_PLAIN;
	cols[1].name = "small";
	cols[1].physical = PQ_INT32;
	cols[1].encoding = PQ_WRITE_DICTIONARY;
	cols[2].name = "d";
	cols[2].physical = PQ_DOUBLE;
	cols[2].encoding = PQ_WRITE_BYTE_STREAM_SPLIT;
	cols[3].name = "word";
	cols[3].physical = PQ_BYTE_ARRAY;
	cols[3].logical.kind = PQ_LT_STRING;
	cols[3].encoding = PQ_WRITE_DICTIONARY;
	cols[4].name = "opt";
	cols[4].physical = PQ_INT64;
	cols[4].repetition = PQ_OPTIONAL;
	cols[4].encoding = PQ_WRITE_DELTA_BINARY_PACKED;

	pq_writer_options_init(&opts);
	opts.codec = codec;
	opts.page_row_limit = 1000;	/* five pages per chunk */

	pq_error_clear(&err);
	if (pq_writer_open(&w, cols, NUM_COLUMNS, &opts, &sink, &pfc_malloc_allocator,
					   &err) != PQ_OK)
		ok = false;
	for (int rg = 0; ok && rg < NUM_ROW_GROUPS; rg++)
	{
		PqColumnBatch b;

		for (int i = 0; i < ROWS_PER_GROUP; i++)
		{
			int64_t		row = (int64_t) rg * ROWS_PER_GROUP + i;

			i64[i] = v_id(row);
			i32[i] = v_small(row);
			f64[i] = v_double(row);
			str[i].ptr = (const uint8_t *) v_word(row);
			str[i].len = (uint32_t) strlen(v_word(row));
			opt[i] = v_opt(row);
			opt_null[i] = v_opt_null(row);
		}
		for (int c = 0; ok && c < NUM_COLUMNS; c++)
		{
			memset(&b, 0, sizeof(b));
			b.num_rows = b.num_levels = b.num_values = ROWS_PER_GROUP;
			b.values = c == 0 ? (const void *) i64 : c == 1 ? (const void *) i32 :
				c == 2 ? (const void *) f64 : c == 3 ? (const void *) str :
				(const void *) opt;
			if (c == 4)
				b.is_null = opt_null;
			if (pq_writer_write_column(w, c, &b, &err) != PQ_OK)
				ok = false;
		}
		if (ok && pq_writer_end_row_group(w, &err) != PQ_OK)
			ok = false;
	}
	if (ok && pq_writer_close(w, &err) != PQ_OK)
		ok = false;
	if (!ok)
		fprintf(stderr, "writing the %s file failed: %s\n", cmp_codec_name(codec),
				err.message);
	pq_writer_free(w);
	free(i64);
	free(i32);
	free(f64);
	free(str);
	free(opt);
	free(opt_null);
	return ok;
}

/* Read every row group of the file as the scan does, checking memory. */
static void
read_file(int codec, MemFile *m, bool use_pool)
{
	PfcSource	src = {mem_read_at, m->len, m};
	PqFile	   *file = NULL;
	PqError		err;
	Counter		counter = {0};
	PfcAllocator alloc = {count_alloc, count_release, &counter};
	size_t		first_peak = 0;
	size_t		worst_peak = 0;
	int			worst_rg = -1;
	bool		lib_set = false;
	CmpMemoryStats lib_after_first = {0};
	int64_t		rows = 0;
	PfcBufferPool *pool = NULL;
	PfcAllocator pool_alloc;
	size_t		kept_after_first = 0;	/* most kept after one of the first ten */
	int64_t		sum_id = 0,
				want_id = 0;
	int64_t		sum_small = 0,
				want_small = 0;
	double		sum_d = 0,
				want_d = 0;
	int64_t		sum_word = 0,
				want_word = 0;
	int64_t		sum_opt = 0,
				want_opt = 0,
				nulls = 0,
				want_nulls = 0;

	pq_error_clear(&err);
	if (pq_file_open(&file, &src, &pfc_malloc_allocator, &err) != PQ_OK)
	{
		UNIT_CHECKF(false, "%s: open: %s", cmp_codec_name(codec), err.message);
		return;
	}
	UNIT_CHECK(pq_file_meta(file)->num_row_groups == NUM_ROW_GROUPS);
	if (use_pool)
	{
		/* the limits the FDW gives a scan's page pool (fdw/reader.c) */
		static const PfcBufferPoolLimits limits = {
			.max_cached = 64 * 1024 * 1024,
			.max_buffers = PFC_BUFFER_POOL_SLOTS,
			.min_size = 0,
			.max_size = SIZE_MAX,
			.max_waste = 2,
		};

		pool = pfc_buffer_pool_create(&alloc, &limits);
		UNIT_CHECK(pool != NULL);
		if (pool == NULL)
			return;
		pool_alloc = pfc_buffer_pool_allocator(pool);
	}

	for (int rg = 0; rg < NUM_ROW_GROUPS; rg++)
	{
		PqColumnReader *readers[NUM_COLUMNS];
		CmpMemoryStats lib;
		bool		done = false;

		counter.peak = counter.live;
		for (int c = 0; c < NUM_COLUMNS; c++)
			if (pq_column_reader_open(&readers[c], file, rg, c, NULL, &alloc,
									  &err) != PQ_OK)
			{
				UNIT_CHECKF(false, "%s: row group %d: %s", cmp_codec_name(codec),
							rg, err.message);
				return;
			}
			else if (use_pool)
				UNIT_CHECK(pq_column_reader_set_page_allocator(readers[c], &pool_alloc));
		while (!done)
		{
			PqColumnBatch b[NUM_COLUMNS];

			for (int c = 0; c < NUM_COLUMNS; c++)
				if (pq_column_reader_read(readers[c], BATCH_ROWS, &b[c], &err) != PQ_OK)
				{
					UNIT_CHECKF(false, "%s: row group %d column %d: %s",
								cmp_codec_name(codec), rg, c, err.message);
					return;
				}
			if (b[0].num_rows == 0)
				break;
			for (uint32_t i = 0; i < b[0].num_rows; i++)
			{
				int64_t		row = rows + i;
				const CdcByteView *w = (const CdcByteView *) b[3].values + i;

				sum_id += ((const int64_t *) b[0].values)[i];
				want_id += v_id(row);
				sum_small += ((const int32_t *) b[1].values)[i];
				want_small += v_small(row);
				sum_d += ((const double *) b[2].values)[i];
				want_d += v_double(row);
				sum_word += w->len * 1000 + w->ptr[0];
				want_word += (int64_t) strlen(v_word(row)) * 1000 + v_word(row)[0];
				if (b[4].is_null != NULL && b[4].is_null[i])
					nulls++;
				else
					sum_opt += ((const int64_t *) b[4].values)[i];
				if (v_opt_null(row))
					want_nulls++;
				else
					want_opt += v_opt(row);
			}
			rows += b[0].num_rows;
			done = b[0].num_rows < BATCH_ROWS;
		}
		for (int c = 0; c < NUM_COLUMNS; c++)
			pq_column_reader_close(readers[c]);

		/* nothing of the row group outlives its readers (but kept buffers) */
		if (!use_pool)
			UNIT_CHECKF(counter.live == 0, "%s: row group %d leaves %zu bytes",
						cmp_codec_name(codec), rg, counter.live);
		else if (rg < 10)
			kept_after_first = counter.live > kept_after_first ?
				counter.live : kept_after_first;
		else
			UNIT_CHECKF(counter.live <= kept_after_first + kept_after_first / 4,
						"%s: row group %d leaves %zu bytes with a pool, the first ten %zu",
						cmp_codec_name(codec), rg, counter.live, kept_after_first);
		if (rg < 10 && counter.peak > first_peak)
			first_peak = counter.peak;
		if (counter.peak > worst_peak)
		{
			worst_peak = counter.peak;
			worst_rg = rg;
		}

		/* the libraries hold what they held after the first row group */
		cmp_memory_stats(&lib);
		if (!lib_set)
		{
			lib_after_first = lib;
			lib_set = true;
		}
		else
			UNIT_CHECKF(lib.bytes_in_use == lib_after_first.bytes_in_use,
						"%s: row group %d: libraries hold %zu bytes, %zu after the first",
						cmp_codec_name(codec), rg, lib.bytes_in_use,
						lib_after_first.bytes_in_use);
	}
	UNIT_CHECKF(worst_peak <= first_peak + first_peak / 4,
				"%s: row group %d peaked at %zu bytes, the first ten at %zu",
				cmp_codec_name(codec), worst_rg, worst_peak, first_peak);
	/* a reader holds a page and a batch, not a chunk */
	UNIT_CHECKF(first_peak < (size_t) 2 * 1024 * 1024,
				"%s: %zu bytes live for five readers", cmp_codec_name(codec),
				first_peak);

	UNIT_CHECK(rows == (int64_t) NUM_ROW_GROUPS * ROWS_PER_GROUP);
	UNIT_CHECK(sum_id == want_id);
	UNIT_CHECK(sum_small == want_small);
	UNIT_CHECK(sum_d == want_d);
	UNIT_CHECK(sum_word == want_word);
	UNIT_CHECK(sum_opt == want_opt);
	UNIT_CHECK(nulls == want_nulls);
	if (use_pool)
	{
		UNIT_CHECK(pfc_buffer_pool_cached(pool) > 0);
		pfc_buffer_pool_destroy(pool);
		UNIT_CHECKF(counter.live == 0, "%s: %zu bytes left after the pool",
					cmp_codec_name(codec), counter.live);
	}
	printf("%-12s %7.1f MB file, %3d row groups%s: peak %zu bytes live (first ten %zu)\n",
		   cmp_codec_name(codec), m->len / 1e6, NUM_ROW_GROUPS,
		   use_pool ? ", pool" : "", worst_peak, first_peak);
	pq_file_close(file);
}

/* Decompressions free what they allocate: the stats return to where they were. */
static void
test_codec_frees(void)
{
	static const int codecs[] = {CMP_GZIP, CMP_BROTLI, CMP_ZSTD};
	size_t		n = 1 << 20;
	uint8_t    *in = malloc(n);
	uint8_t    *out = malloc(n);
	uint8_t    *comp;

	for (size_t i = 0; i < n; i++)
		in[i] = (uint8_t) ((i * 2654435761u) >> 13) & 0x3f;
	for (size_t k = 0; k < sizeof(codecs) / sizeof(codecs[0]); k++)
	{
		size_t		cap = cmp_compress_bound(codecs[k], n);
		size_t		len = 0;
		CmpMemoryStats before,
					after;

		comp = malloc(cap);
		UNIT_CHECK(cmp_compress(codecs[k], 0, in, n, comp, cap, &len) == CMP_OK);
		/* the first call may create a lasting context; count from the second */
		UNIT_CHECK(cmp_decompress(codecs[k], comp, len, out, n) == CMP_OK);
		cmp_memory_stats(&before);
		for (int rep = 0; rep < 20; rep++)
			UNIT_CHECK(cmp_decompress(codecs[k], comp, len, out, n) == CMP_OK);
		UNIT_CHECK_MEM(in, out, n);
		/* a truncated stream fails, and frees too */
		UNIT_CHECK(cmp_decompress(codecs[k], comp, len / 2, out, n) != CMP_OK);
		cmp_memory_stats(&after);
		UNIT_CHECKF(after.bytes_in_use == before.bytes_in_use,
					"%s: %zu bytes in use after 21 decompressions, %zu before",
					cmp_codec_name(codecs[k]), after.bytes_in_use, before.bytes_in_use);
		UNIT_CHECKF(after.allocations - before.allocations == after.frees - before.frees,
					"%s: %llu allocations, %llu frees", cmp_codec_name(codecs[k]),
					(unsigned long long) (after.allocations - before.allocations),
					(unsigned long long) (after.frees - before.frees));
		/* gzip and brotli allocate per stream: the hooks must see it */
		if (codecs[k] != CMP_ZSTD)
			UNIT_CHECK(after.allocations > before.allocations);
		free(comp);
	}
	free(in);
	free(out);
}

int
main(void)
{
	static const int codecs[] = {CMP_UNCOMPRESSED, CMP_SNAPPY, CMP_ZSTD,
	CMP_GZIP, CMP_BROTLI, CMP_LZ4_RAW};

	test_codec_frees();
	for (size_t k = 0; k < sizeof(codecs) / sizeof(codecs[0]); k++)
	{
		MemFile		m = {0};

		if (write_file(codecs[k], &m))
		{
			read_file(codecs[k], &m, false);
			read_file(codecs[k], &m, true);
		}
		else
			UNIT_CHECK(false);
		free(m.data);
	}
	UNIT_MAIN_END("test_memory_bounded");
}
