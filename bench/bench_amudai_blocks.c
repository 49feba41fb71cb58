/*-------------------------------------------------------------------------
 *
 * bench_amudai_blocks.c
 *	  Values per block of the Amudai writer (issue #17): for each block size,
 *	  the shard's size, a full scan's time, and a selective range query's
 *	  decoded blocks and time, on t10m-shaped columns.
 *
 *   bench/bin/bench_amudai_blocks [-n ROWS] [-r REPS] [BLOCK ...]
 *
 * Data (seeded, as bench/e2e_gen.sql shapes t10m): a bigint ascending
 * (gaps 0..15), b int uniform over 21 bits, c text of 2,000 distinct
 * word-number strings with 2% nulls, d float8 with 3 decimals and 1% nulls,
 * e a date of 2,000 days (DateTime ticks).  Stripes of 122,880 rows, every
 * block encoding chosen per block (AM_WRITER_ENC_AUTO), range indexes on.
 *
 * Full scan: every position of every column read in batches of 2,048 (as
 * the scan's batches).  Range query: `a BETWEEN x AND x + 8000` (about 1,000
 * rows) for 200 x spread over the table; the stripe's range index on a
 * keeps the 256-row groups that may match, and those rows of all five
 * columns are read, which decodes every block they touch.  Times are the
 * best of REPS runs in one process; the shard stays in memory.  Printed:
 * shard bytes, each column's buffer bytes, the full scan's ms, the numeric
 * blocks of a the queries decode (200 queries), and ms per query.
 *
 * IDENTIFICATION
 *	  bench/bench_amudai_blocks.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "amudai/amudai.h"
#include "common/common.h"

#define STRIPE_ROWS 122880
#define NCOLS 5
#define QUERIES 200
#define QUERY_WIDTH 8000

typedef struct MemFile
{
	const uint8_t *data;
	size_t		len;
} MemFile;

static int
mem_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	MemFile    *f = ctx;

	if (offset > f->len || len > f->len - offset)
		return 5;				/* EIO */
	memcpy(buf, f->data + offset, len);
	return 0;
}

static uint64_t
rnd(uint64_t *s)
{
	/* splitmix64 */
	uint64_t	z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct Table
{
	uint64_t	rows;
	int64_t    *a;
	int32_t    *b;
	uint8_t    *c_bytes;
	uint64_t   *c_off;
	uint8_t    *c_null;
	double	   *d;
	uint8_t    *d_null;
	uint64_t   *e;
} Table;

static void
generate(Table *t, uint64_t rows)
{
	static const char *const words[16] = {
		"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
		"india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa"};
	uint64_t	s = 42;
	size_t		at = 0;
	int64_t		a = 8000000;

	t->rows = rows;
	t->a = malloc(rows * 8);
	t->b = malloc(rows * 4);
	t->c_bytes = malloc(rows * 16);
	t->c_off = malloc((rows + 1) * 8);
	t->c_null = malloc(rows);
	t->d = malloc(rows * 8);
	t->d_null = malloc(rows);
	t->e = malloc(rows * 8);
	for (uint64_t i = 0; i < rows; i++)
	{
		uint64_t	r = rnd(&s);
		int			w = (int) (r % 16);

		t->a[i] = a;
		a += (int64_t) ((r >> 4) % 16);
		t->b[i] = (int32_t) ((r >> 8) % (1 << 21));
		t->c_off[i] = at;
		t->c_null[i] = (r >> 30) % 100 < 2;
		if (!t->c_null[i])
			at += (size_t) sprintf((char *) t->c_bytes + at, "%s%d", words[w],
								   (int) ((r >> 34) % 125) * 8 + w % 8);
		t->d_null[i] = (r >> 42) % 100 < 1;
		t->d[i] = (double) ((r >> 44) % 10000000) / 1000;
		t->e[i] = UINT64_C(621355968000000000) +
			(UINT64_C(10957) + (r >> 50) % 2000) * UINT64_C(864000000000);
	}
	t->c_off[rows] = at;
}

static void
columns_of(const Table *t, uint64_t first, AmWriterColumn *c)
{
	memset(c, 0, sizeof(AmWriterColumn) * NCOLS);
	c[0] = (AmWriterColumn) {"a", AM_TYPE_INT64, true, 0, AM_WRITER_ENC_AUTO, t->a + first};
	c[1] = (AmWriterColumn) {"b", AM_TYPE_INT32, true, 0, AM_WRITER_ENC_AUTO, t->b + first};
	c[2] = (AmWriterColumn) {"c", AM_TYPE_STRING, false, 0, AM_WRITER_ENC_AUTO, t->c_bytes,
	t->c_off + first, t->c_null + first};
	c[3] = (AmWriterColumn) {"d", AM_TYPE_FLOAT64, false, 0, AM_WRITER_ENC_AUTO, t->d + first,
	NULL, t->d_null + first};
	c[4] = (AmWriterColumn) {"e", AM_TYPE_DATETIME, false, 0, AM_WRITER_ENC_AUTO, t->e + first};
}

typedef struct Out
{
	uint8_t    *buf;
	size_t		len,
				cap;
} Out;

static int
out_sink(void *ctx, const void *data, size_t len)
{
	Out		   *o = ctx;

	if (o->len + len > o->cap)
	{
		o->cap = (o->len + len) * 2;
		o->buf = realloc(o->buf, o->cap);
	}
	memcpy(o->buf + o->len, data, len);
	o->len += len;
	return 0;
}

static void
die(const char *what, const AmError *err)
{
	fprintf(stderr, "bench_amudai_blocks: %s: %s\n", what, err->message);
	exit(1);
}

static Out
write_shard(const Table *t, uint32_t block)
{
	AmWriterOptions opt = {block, 0, true, false};
	AmWriterColumn c[NCOLS];
	AmShardWriter *w;
	AmError		err;
	Out			o = {0};

	columns_of(t, 0, c);
	if (am_shard_writer_begin(&w, c, NCOLS, &opt, &pfc_malloc_allocator, out_sink, &o, &err) != AM_OK)
		die("begin", &err);
	for (uint64_t first = 0; first < t->rows; first += STRIPE_ROWS)
	{
		uint64_t	n = t->rows - first < STRIPE_ROWS ? t->rows - first : STRIPE_ROWS;

		columns_of(t, first, c);
		/* string offsets index c_bytes from the stripe's first row on */
		if (am_shard_writer_add_stripe(w, c, n, &err) != AM_OK)
			die("add_stripe", &err);
	}
	if (am_shard_writer_finish(w, &err) != AM_OK)
		die("finish", &err);
	am_shard_writer_free(w);
	return o;
}

static AmShard *
open_shard(MemFile *mf, PfcSource *src)
{
	AmShard    *shard;
	AmError		err;

	src->ctx = mf;
	src->read_at = mem_read_at;
	src->size = mf->len;
	if (am_shard_open(&shard, src, NULL, &pfc_malloc_allocator, &err) != AM_OK)
		die("open", &err);
	return shard;
}

/* Read positions [first, first + n) of every column of a stripe. */
static void
read_rows(AmFieldReader **fr, uint64_t first, uint64_t n, uint64_t *sink)
{
	AmError		err;

	for (int c = 0; c < NCOLS; c++)
		for (uint64_t p = first; p < first + n; p += 2048)
		{
			AmColumnBatch b;
			size_t		k = first + n - p < 2048 ? (size_t) (first + n - p) : 2048;

			if (am_field_reader_read(fr[c], p, k, &b, &err) != AM_OK)
				die("read", &err);
			*sink += b.count + (b.nulls ? b.nulls[0] : 0);
		}
}

static double
full_scan(AmShard *shard, uint64_t *sink)
{
	double		t0 = now_ms();
	AmError		err;

	for (uint32_t s = 0; s < am_shard_stripe_count(shard); s++)
	{
		AmFieldReader *fr[NCOLS];
		uint64_t	n;

		for (int c = 0; c < NCOLS; c++)
			if (am_field_reader_open(&fr[c], shard, s, (uint32_t) c, &err) != AM_OK)
				die("reader", &err);
		n = am_field_reader_position_count(fr[0]);
		read_rows(fr, 0, n, sink);
		for (int c = 0; c < NCOLS; c++)
			am_field_reader_close(fr[c]);
	}
	return now_ms() - t0;
}

/* The stripe's range index on a (schema id 0). */
static AmRangeIndex
range_index_of(AmShard *shard, uint32_t stripe)
{
	AmStripeFieldDescriptor sfd;
	AmRangeIndex ri;
	bool		present;
	int			anchor,
				file;
	AmError		err;
	uint8_t    *bytes;

	if (am_shard_stripe_field(shard, stripe, 0, &present, &sfd, &anchor, &err) != AM_OK)
		die("stripe field", &err);
	for (uint32_t b = 0; b < sfd.num_buffers; b++)
		if (sfd.buffers[b].kind == AM_BUFFER_RANGE_INDEX)
		{
			const AmDataRef *r = &sfd.buffers[b].buffer;

			if (am_shard_resolve(shard, anchor, r, &file, &err) != AM_OK ||
				am_shard_read(shard, file, r->start, r->end, &bytes, &err) != AM_OK ||
				am_range_index_parse(bytes, (size_t) (r->end - r->start), 8,
									 am_shard_allocator(shard), &ri, &err) != AM_OK)
				die("range index", &err);
			am_shard_allocator(shard)->release(am_shard_allocator(shard)->ctx, bytes);
			return ri;
		}
	fprintf(stderr, "no range index\n");
	exit(1);
}

static double
range_queries(AmShard *shard, const Table *t, uint32_t block, uint64_t *blocks_decoded,
			  uint64_t *rows_read, uint64_t *sink)
{
	double		t0 = now_ms();
	AmError		err;

	*blocks_decoded = 0;
	*rows_read = 0;
	for (int q = 0; q < QUERIES; q++)
	{
		uint64_t	row = (t->rows - 1) * (uint64_t) q / QUERIES;
		int64_t		lo = t->a[row],
					hi = lo + QUERY_WIDTH;

		for (uint32_t s = 0; s < am_shard_stripe_count(shard); s++)
		{
			AmRangeIndex ri = range_index_of(shard, s);
			AmFieldReader *fr[NCOLS] = {0};
			uint64_t	last_block = UINT64_MAX;

			for (uint64_t g = 0; g < ri.blocks; g++)
			{
				int64_t		mn,
							mx;
				uint64_t	first = g * ri.block_rows;
				uint64_t	n = ri.span - first < ri.block_rows ? ri.span - first : ri.block_rows;

				memcpy(&mn, ri.mins + g * 8, 8);
				memcpy(&mx, ri.maxs + g * 8, 8);
				if (mx < lo || mn > hi)
					continue;
				if (fr[0] == NULL)
					for (int c = 0; c < NCOLS; c++)
						if (am_field_reader_open(&fr[c], shard, s, (uint32_t) c, &err) != AM_OK)
							die("reader", &err);
				read_rows(fr, first, n, sink);
				*rows_read += n;
				/* numeric blocks hold `block` positions each */
				for (uint64_t b = first / block; b <= (first + n - 1) / block; b++)
					if (b != last_block)
					{
						(*blocks_decoded)++;
						last_block = b;
					}
			}
			for (int c = 0; c < NCOLS; c++)
				if (fr[c] != NULL)
					am_field_reader_close(fr[c]);
			am_range_index_free(&ri, am_shard_allocator(shard));
		}
	}
	return now_ms() - t0;
}

/* Bytes of the buffers of column c over all stripes (descriptors aside). */
static uint64_t
column_bytes(AmShard *shard, uint32_t c)
{
	uint64_t	total = 0;
	AmError		err;

	for (uint32_t s = 0; s < am_shard_stripe_count(shard); s++)
	{
		AmStripeFieldDescriptor sfd;
		bool		present;
		int			anchor;

		if (am_shard_stripe_field(shard, s, c, &present, &sfd, &anchor, &err) != AM_OK)
			die("stripe field", &err);
		for (uint32_t b = 0; present && b < sfd.num_buffers; b++)
			total += sfd.buffers[b].buffer.end - sfd.buffers[b].buffer.start;
	}
	return total;
}

int
main(int argc, char **argv)
{
	uint64_t	rows = 1000000;
	int			reps = 5;
	uint32_t	sizes[16];
	int			nsizes = 0;
	Table		t;
	uint64_t	sink = 0;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			rows = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (nsizes < 16)
			sizes[nsizes++] = (uint32_t) strtoul(argv[i], NULL, 10);
	}
	if (nsizes == 0)
	{
		static const uint32_t def[] = {2048, 4096, 8192, 16384, 65536};

		memcpy(sizes, def, sizeof(def));
		nsizes = 5;
	}
	generate(&t, rows);
	printf("rows %llu, stripes of %d, %d range queries of a BETWEEN x AND x + %d\n",
		   (unsigned long long) rows, STRIPE_ROWS, QUERIES, QUERY_WIDTH);
	printf("%8s %12s %10s %10s %10s %10s %10s %9s %9s %9s\n", "block", "shard_bytes",
		   "a", "b", "c", "d", "e", "scan_ms", "q_blocks", "query_ms");
	for (int i = 0; i < nsizes; i++)
	{
		Out			o = write_shard(&t, sizes[i]);
		MemFile		mf = {o.buf, o.len};
		PfcSource	src;
		AmShard    *shard = open_shard(&mf, &src);
		double		best_scan = 1e30,
					best_q = 1e30;
		uint64_t	blocks = 0,
					qrows = 0;

		for (int r = 0; r < reps; r++)
		{
			double		ms = full_scan(shard, &sink);

			best_scan = ms < best_scan ? ms : best_scan;
			ms = range_queries(shard, &t, sizes[i], &blocks, &qrows, &sink);
			best_q = ms < best_q ? ms : best_q;
		}
		printf("%8u %12zu", sizes[i], o.len);
		for (uint32_t c = 0; c < NCOLS; c++)
			printf(" %10llu", (unsigned long long) column_bytes(shard, c));
		printf(" %9.1f %9llu %9.2f\n", best_scan, (unsigned long long) blocks,
			   best_q / QUERIES);
		fflush(stdout);
		(void) qrows;
		am_shard_close(shard);
		free(o.buf);
	}
	fprintf(stderr, "(checksum %llu)\n", (unsigned long long) sink);
	return 0;
}
