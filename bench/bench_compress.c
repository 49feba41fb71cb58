/*-------------------------------------------------------------------------
 *
 * bench_compress.c
 *	  Decompression throughput of every codec, beside memcpy.
 *
 * Builds a 16 MB buffer shaped like Parquet page contents (a quarter each
 * of text, little-endian int64s that grow slowly, doubles with few distinct
 * values, random bytes), compresses it once per codec at the default level,
 * then times cmp_decompress() of the whole buffer until at least half a
 * second has passed and reports the best pass in MB/s of decompressed
 * output (1 MB = 10^6 bytes), with the compression ratio.  The page-sized
 * variant cuts the same data into 64 KiB pages compressed separately, as
 * Parquet stores them.
 *
 *	  bench_compress [megabytes]
 *
 * IDENTIFICATION
 *	  bench/bench_compress.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compress/compress.h"

#define PAGE_LEN (64 * 1024)

static double
now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static uint64_t
next_rand(uint64_t *s)
{
	uint64_t	x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * UINT64_C(2685821657736338717);
}

static void
fill_mixed(uint8_t *buf, size_t len)
{
	static const char *words[] = {
		"parquet", "page", "value", "the", "of", "column", "2026-11-22",
		"compression", "row", "group", "and", "a", "foreign", "table"
	};
	size_t		q = len / 4;
	uint64_t	s = 42;
	size_t		i = 0;

	while (i < q)
	{
		const char *w = words[next_rand(&s) % 14];

		while (*w && i < q)
			buf[i++] = (uint8_t) *w++;
		if (i < q)
			buf[i++] = ' ';
	}
	for (int64_t v = 1000000; i + 8 <= 2 * q; i += 8)
	{
		v += (int64_t) (next_rand(&s) % 16);
		memcpy(buf + i, &v, 8);
	}
	for (; i + 8 <= 3 * q; i += 8)
	{
		double		d = (double) (next_rand(&s) % 100) * 0.25;

		memcpy(buf + i, &d, 8);
	}
	for (; i < len; i++)
		buf[i] = (uint8_t) (next_rand(&s) >> 56);
}

typedef struct Compressed
{
	uint8_t    *data;
	size_t		len;
	size_t		n_pages;
	size_t	   *page_off;		/* n_pages + 1 offsets into data */
} Compressed;

/* Compress in pages of page_len bytes (the whole buffer if page_len == len). */
static int
compress_pages(int codec, const uint8_t *in, size_t len, size_t page_len, Compressed *c)
{
	size_t		n_pages = (len + page_len - 1) / page_len;
	size_t		cap = 0;

	for (size_t p = 0; p < n_pages; p++)
		cap += cmp_compress_bound(codec, page_len);
	c->data = malloc(cap);
	c->page_off = malloc((n_pages + 1) * sizeof(size_t));
	c->n_pages = n_pages;
	c->len = 0;
	for (size_t p = 0; p < n_pages; p++)
	{
		size_t		n = len - p * page_len < page_len ? len - p * page_len : page_len;
		size_t		w = 0;

		c->page_off[p] = c->len;
		if (cmp_compress(codec, 0, in + p * page_len, n, c->data + c->len,
						 cap - c->len, &w) != CMP_OK)
			return -1;
		c->len += w;
	}
	c->page_off[n_pages] = c->len;
	return 0;
}

/* Best decompression speed over passes lasting at least 0.5 s in total. */
static double
time_decompress(int codec, const Compressed *c, const uint8_t *orig, size_t len,
				size_t page_len, uint8_t *out)
{
	double		best = 1e30;
	double		spent = 0;
	int			passes = 0;

	while (spent < 0.5 || passes < 3)
	{
		double		t0 = now_sec();
		double		dt;

		for (size_t p = 0; p < c->n_pages; p++)
		{
			size_t		n = len - p * page_len < page_len ? len - p * page_len : page_len;

			if (codec < 0)
				memcpy(out + p * page_len, orig + p * page_len, n);
			else if (cmp_decompress(codec, c->data + c->page_off[p],
									c->page_off[p + 1] - c->page_off[p],
									out + p * page_len, n) != CMP_OK)
			{
				fprintf(stderr, "%s: decompression failed\n", cmp_codec_name(codec));
				exit(1);
			}
		}
		dt = now_sec() - t0;
		spent += dt;
		passes++;
		if (dt < best)
			best = dt;
	}
	if (memcmp(out, orig, len) != 0)
	{
		fprintf(stderr, "%s: wrong output\n", codec < 0 ? "memcpy" : cmp_codec_name(codec));
		exit(1);
	}
	return (double) len / best / 1e6;
}

int
main(int argc, char **argv)
{
	static const int codecs[] = {
		CMP_SNAPPY, CMP_LZ4_RAW, CMP_LZ4_HADOOP, CMP_ZSTD, CMP_GZIP, CMP_BROTLI
	};
	size_t		len = (size_t) (argc > 1 ? atoi(argv[1]) : 16) * 1024 * 1024;
	uint8_t    *orig = malloc(len);
	uint8_t    *out = malloc(len);

	fill_mixed(orig, len);
	printf("libraries: %s\n", cmp_library_versions());
	printf("input: %zu MiB mixed (text, int64, double, random), default levels\n",
		   len >> 20);
	printf("%-14s %8s %14s %16s\n", "codec", "ratio", "whole MB/s", "64KiB-pages MB/s");
	{
		Compressed	c = {0};

		c.n_pages = 1;
		printf("%-14s %8s %14.0f", "memcpy", "1.000",
			   time_decompress(-1, &c, orig, len, len, out));
		c.n_pages = (len + PAGE_LEN - 1) / PAGE_LEN;
		printf(" %16.0f\n", time_decompress(-1, &c, orig, len, PAGE_LEN, out));
	}
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++)
	{
		Compressed	whole,
					paged;

		if (compress_pages(codecs[i], orig, len, len, &whole) != 0 ||
			compress_pages(codecs[i], orig, len, PAGE_LEN, &paged) != 0)
		{
			fprintf(stderr, "%s: compression failed\n", cmp_codec_name(codecs[i]));
			return 1;
		}
		printf("%-14s %8.3f %14.0f", cmp_codec_name(codecs[i]),
			   (double) len / (double) whole.len,
			   time_decompress(codecs[i], &whole, orig, len, len, out));
		printf(" %16.0f\n", time_decompress(codecs[i], &paged, orig, len, PAGE_LEN, out));
		fflush(stdout);
		free(whole.data);
		free(whole.page_off);
		free(paged.data);
		free(paged.page_off);
	}
	free(orig);
	free(out);
	return 0;
}
