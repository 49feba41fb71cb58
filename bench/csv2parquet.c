/*-------------------------------------------------------------------------
 *
 * csv2parquet.c
 *	  Write a CSV file as Parquet with this project's writer (writer.h), so
 *	  the end-to-end benchmark can read files from our own writer beside
 *	  DuckDB's.
 *
 *	  csv2parquet [options] TYPES in.csv out.parquet
 *
 * TYPES lists the column types, comma-separated, in CSV order: i32, i64,
 * f64, str, date, decN.S (DECIMAL(N,S) stored as INT64, N <= 18).  Column
 * names come from the CSV's header line.  Every column is OPTIONAL.  The
 * CSV is what DuckDB's COPY ... (FORMAT csv, HEADER) writes: comma
 * separated, fields quoted with " when needed ("" inside), an unquoted
 * empty field is NULL, dates as YYYY-MM-DD.
 *
 * Options:
 *	  --codec none|snappy|zstd   (default snappy)
 *	  --v2                       DATA_PAGE_V2 pages (default v1)
 *	  --plain                    PLAIN values (default: dictionary, falling
 *	                             back to PLAIN when it grows too large)
 *	  --row-group N              rows per row group (default 100000)
 *
 * IDENTIFICATION
 *	  bench/csv2parquet.c
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compress/compress.h"
#include "parquet/parquet.h"
#include "parquet/writer.h"

#define MAX_COLUMNS 64

typedef enum ColKind
{
	COL_I32,
	COL_I64,
	COL_F64,
	COL_STR,
	COL_DATE,
	COL_DEC
} ColKind;

/* One column's values for the current row group. */
typedef struct Column
{
	ColKind		kind;
	int			precision;		/* COL_DEC */
	int			scale;			/* COL_DEC */
	char	   *name;
	bool	   *is_null;
	void	   *values;			/* int32_t, int64_t, double or CdcByteView */
} Column;

/* Bytes of the current row group's strings; views point into its blocks. */
typedef struct Arena
{
	char	  **blocks;
	int			nblocks;
	int			maxblocks;
	size_t		used;			/* in the last block */
} Arena;

#define ARENA_BLOCK (4 * 1024 * 1024)

static void
die(const char *fmt, const char *arg)
{
	fprintf(stderr, "csv2parquet: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

static void *
xmalloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
		die("%s", "out of memory");
	return p;
}

static char *
arena_copy(Arena *a, const char *s, size_t len)
{
	char	   *dst;

	if (len > ARENA_BLOCK)
		die("%s", "field longer than 4 MB");
	if (a->nblocks == 0 || a->used + len > ARENA_BLOCK)
	{
		if (a->nblocks == a->maxblocks)
		{
			a->maxblocks = a->maxblocks ? a->maxblocks * 2 : 16;
			a->blocks = realloc(a->blocks, a->maxblocks * sizeof(char *));
			if (a->blocks == NULL)
				die("%s", "out of memory");
		}
		a->blocks[a->nblocks++] = xmalloc(ARENA_BLOCK);
		a->used = 0;
	}
	dst = a->blocks[a->nblocks - 1] + a->used;
	memcpy(dst, s, len);
	a->used += len;
	return dst;
}

static void
arena_reset(Arena *a)
{
	for (int i = 0; i < a->nblocks; i++)
		free(a->blocks[i]);
	a->nblocks = 0;
	a->used = 0;
}

/* ----------------------------------------------------------------
 * CSV reading
 * ----------------------------------------------------------------
 */

/*
 * Split one record of the CSV into fields.  Returns the number of fields,
 * 0 at end of file.  Fields point into *buf (unquoted in place); quoted[i]
 * tells an empty quoted string from NULL.  A quoted field may span lines.
 */
static int
read_record(FILE *in, char **buf, size_t *cap, char **fields, size_t *lens,
			bool *quoted, int maxfields)
{
	size_t		len = 0;
	int			nfields = 0;
	int			c;
	bool		in_quotes = false;
	bool		field_start = true;
	size_t		start = 0;

	c = getc(in);
	if (c == EOF)
		return 0;
	for (;;)
	{
		if (len + 2 > *cap)
		{
			*cap = *cap ? *cap * 2 : 4096;
			*buf = realloc(*buf, *cap);
			if (*buf == NULL)
				die("%s", "out of memory");
		}
		if (field_start)
		{
			if (nfields == maxfields)
				die("%s", "too many fields in a record");
			start = len;
			quoted[nfields] = false;
			field_start = false;
			if (c == '"')
			{
				quoted[nfields] = true;
				in_quotes = true;
				c = getc(in);
				continue;
			}
		}
		if (in_quotes)
		{
			if (c == EOF)
				die("%s", "end of file inside a quoted field");
			if (c == '"')
			{
				c = getc(in);
				if (c != '"')
				{
					in_quotes = false;
					continue;	/* c is the character after the quote */
				}
			}
			(*buf)[len++] = (char) c;
			c = getc(in);
			continue;
		}
		if (c == ',' || c == '\n' || c == EOF)
		{
			fields[nfields] = *buf + start;	/* fixed up below: buf may move */
			lens[nfields] = len - start;
			(*buf)[len++] = '\0';
			nfields++;
			if (c != ',')
				break;
			field_start = true;
			c = getc(in);
			continue;
		}
		if (c != '\r')
			(*buf)[len++] = (char) c;
		c = getc(in);
	}
	/* Recompute the pointers from offsets, the buffer may have moved. */
	{
		size_t		off = 0;

		for (int i = 0; i < nfields; i++)
		{
			fields[i] = *buf + off;
			off += lens[i] + 1;
		}
	}
	return nfields;
}

/* Days from 1970-01-01 to a proleptic Gregorian date. */
static int32_t
days_from_civil(int y, int m, int d)
{
	int			era;
	int			yoe;
	int			doy;
	int			doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "-123.4" at scale 2 -> -12340; exact, no floating point. */
static int64_t
parse_decimal(const char *s, int scale)
{
	bool		neg = false;
	int64_t		v = 0;
	int			frac = -1;

	if (*s == '-' || *s == '+')
		neg = (*s++ == '-');
	for (; *s; s++)
	{
		if (*s == '.' && frac < 0)
		{
			frac = 0;
			continue;
		}
		if (*s < '0' || *s > '9')
			die("bad decimal \"%s\"", s);
		if (frac >= 0 && frac == scale)
			die("%s", "decimal with more digits than its scale");
		v = v * 10 + (*s - '0');
		if (frac >= 0)
			frac++;
	}
	for (frac = frac < 0 ? 0 : frac; frac < scale; frac++)
		v *= 10;
	return neg ? -v : v;
}

static void
parse_value(Column *col, uint32_t row, const char *s, size_t len, bool quoted,
			Arena *arena)
{
	char	   *end;

	col->is_null[row] = (len == 0 && !quoted);
	if (col->is_null[row])
		return;
	errno = 0;
	switch (col->kind)
	{
		case COL_I32:
			((int32_t *) col->values)[row] = (int32_t) strtol(s, &end, 10);
			if (*end || errno)
				die("bad int \"%s\"", s);
			break;
		case COL_I64:
			((int64_t *) col->values)[row] = strtoll(s, &end, 10);
			if (*end || errno)
				die("bad bigint \"%s\"", s);
			break;
		case COL_F64:
			((double *) col->values)[row] = strtod(s, &end);
			if (*end)
				die("bad float \"%s\"", s);
			break;
		case COL_DATE:
			{
				int			y,
							m,
							d;

				if (sscanf(s, "%d-%d-%d", &y, &m, &d) != 3)
					die("bad date \"%s\"", s);
				((int32_t *) col->values)[row] = days_from_civil(y, m, d);
				break;
			}
		case COL_DEC:
			((int64_t *) col->values)[row] = parse_decimal(s, col->scale);
			break;
		case COL_STR:
			{
				CdcByteView *v = &((CdcByteView *) col->values)[row];

				v->ptr = (const uint8_t *) arena_copy(arena, s, len);
				v->len = (uint32_t) len;
				break;
			}
	}
}

/* ----------------------------------------------------------------
 * Parquet writing
 * ----------------------------------------------------------------
 */

static int
file_write(void *ctx, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, (FILE *) ctx) == len ? 0 : (errno ? errno : EIO);
}

static void
check(PqStatus st, const PqError *err, const char *what)
{
	if (st != PQ_OK)
	{
		fprintf(stderr, "csv2parquet: %s: %s%s%s\n", what, err->message,
				err->detail[0] ? ": " : "", err->detail);
		exit(1);
	}
}

static void
flush_row_group(PqWriter *w, Column *cols, int ncols, uint32_t nrows)
{
	PqError		err;

	for (int i = 0; i < ncols; i++)
	{
		PqColumnBatch batch;

		memset(&batch, 0, sizeof(batch));
		batch.num_rows = nrows;
		batch.is_null = cols[i].is_null;
		batch.values = cols[i].values;
		check(pq_writer_write_column(w, i, &batch, &err), &err, "write column");
	}
	check(pq_writer_end_row_group(w, &err), &err, "end row group");
}

static void
parse_types(const char *spec, Column *cols, int *ncols)
{
	char	   *copy = strdup(spec);
	char	   *save = NULL;

	*ncols = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
	{
		Column	   *c = &cols[*ncols];

		if (*ncols == MAX_COLUMNS)
			die("%s", "too many columns");
		memset(c, 0, sizeof(*c));
		if (strcmp(t, "i32") == 0)
			c->kind = COL_I32;
		else if (strcmp(t, "i64") == 0)
			c->kind = COL_I64;
		else if (strcmp(t, "f64") == 0)
			c->kind = COL_F64;
		else if (strcmp(t, "str") == 0)
			c->kind = COL_STR;
		else if (strcmp(t, "date") == 0)
			c->kind = COL_DATE;
		else if (sscanf(t, "dec%d.%d", &c->precision, &c->scale) == 2 &&
				 c->precision >= 1 && c->precision <= 18 &&
				 c->scale >= 0 && c->scale <= c->precision)
			c->kind = COL_DEC;
		else
			die("unknown type \"%s\" (i32, i64, f64, str, date, decN.S with N <= 18)", t);
		(*ncols)++;
	}
	free(copy);
}

static size_t
value_size(ColKind kind)
{
	switch (kind)
	{
		case COL_I32:
		case COL_DATE:
			return sizeof(int32_t);
		case COL_I64:
		case COL_DEC:
			return sizeof(int64_t);
		case COL_F64:
			return sizeof(double);
		case COL_STR:
			return sizeof(CdcByteView);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	PqWriterOptions opt;
	PqWriteColumn wcols[MAX_COLUMNS];
	Column		cols[MAX_COLUMNS];
	char	   *fields[MAX_COLUMNS];
	size_t		lens[MAX_COLUMNS];
	bool		quoted[MAX_COLUMNS];
	int			ncols;
	uint32_t	row_group = 100000;
	bool		plain = false;
	int			argi = 1;
	FILE	   *in;
	FILE	   *out;
	char	   *buf = NULL;
	size_t		cap = 0;
	int			n;
	uint32_t	nrows = 0;
	uint64_t	total = 0;
	Arena		arena = {0};
	PqSink		sink;
	PqWriter   *w = NULL;
	PqError		err;

	pq_writer_options_init(&opt);
	opt.codec = CMP_SNAPPY;
	for (; argi < argc && strncmp(argv[argi], "--", 2) == 0; argi++)
	{
		if (strcmp(argv[argi], "--v2") == 0)
			opt.data_page_v2 = true;
		else if (strcmp(argv[argi], "--plain") == 0)
			plain = true;
		else if (strcmp(argv[argi], "--codec") == 0 && argi + 1 < argc)
		{
			const char *c = argv[++argi];

			if (strcmp(c, "none") == 0)
				opt.codec = CMP_UNCOMPRESSED;
			else if (strcmp(c, "snappy") == 0)
				opt.codec = CMP_SNAPPY;
			else if (strcmp(c, "zstd") == 0)
				opt.codec = CMP_ZSTD;
			else
				die("unknown codec \"%s\"", c);
		}
		else if (strcmp(argv[argi], "--row-group") == 0 && argi + 1 < argc)
			row_group = (uint32_t) strtoul(argv[++argi], NULL, 10);
		else
			die("unknown option \"%s\"", argv[argi]);
	}
	if (argc - argi != 3 || row_group == 0)
	{
		fprintf(stderr, "usage: csv2parquet [--codec none|snappy|zstd] [--v2] [--plain] "
				"[--row-group N] TYPES in.csv out.parquet\n");
		return 2;
	}
	parse_types(argv[argi], cols, &ncols);
	if ((in = fopen(argv[argi + 1], "r")) == NULL)
		die("cannot open \"%s\"", argv[argi + 1]);
	if ((out = fopen(argv[argi + 2], "wb")) == NULL)
		die("cannot create \"%s\"", argv[argi + 2]);

	/* The header names the columns. */
	n = read_record(in, &buf, &cap, fields, lens, quoted, MAX_COLUMNS);
	if (n != ncols)
		die("%s", "the header's field count differs from TYPES");
	memset(wcols, 0, sizeof(wcols));
	for (int i = 0; i < ncols; i++)
	{
		PqWriteColumn *wc = &wcols[i];
		Column	   *c = &cols[i];

		c->name = strdup(fields[i]);
		c->is_null = xmalloc(row_group * sizeof(bool));
		c->values = xmalloc(row_group * value_size(c->kind));
		wc->name = c->name;
		wc->repetition = PQ_OPTIONAL;
		wc->encoding = plain ? PQ_WRITE_PLAIN : PQ_WRITE_DICTIONARY;
		wc->field_id = -1;
		wc->logical.kind = PQ_LT_NONE;
		switch (c->kind)
		{
			case COL_I32:
				wc->physical = PQ_INT32;
				break;
			case COL_I64:
				wc->physical = PQ_INT64;
				break;
			case COL_F64:
				wc->physical = PQ_DOUBLE;
				break;
			case COL_STR:
				wc->physical = PQ_BYTE_ARRAY;
				wc->logical.kind = PQ_LT_STRING;
				break;
			case COL_DATE:
				wc->physical = PQ_INT32;
				wc->logical.kind = PQ_LT_DATE;
				break;
			case COL_DEC:
				wc->physical = PQ_INT64;
				wc->logical.kind = PQ_LT_DECIMAL;
				wc->logical.precision = c->precision;
				wc->logical.scale = c->scale;
				break;
		}
	}
	sink.write = file_write;
	sink.ctx = out;
	check(pq_writer_open(&w, wcols, ncols, &opt, &sink, &pfc_malloc_allocator, &err),
		  &err, "open");

	while ((n = read_record(in, &buf, &cap, fields, lens, quoted, MAX_COLUMNS)) > 0)
	{
		if (n != ncols)
			die("%s", "a record's field count differs from the header's");
		for (int i = 0; i < ncols; i++)
			parse_value(&cols[i], nrows, fields[i], lens[i], quoted[i], &arena);
		if (++nrows == row_group)
		{
			flush_row_group(w, cols, ncols, nrows);
			arena_reset(&arena);
			total += nrows;
			nrows = 0;
		}
	}
	if (nrows > 0)
	{
		flush_row_group(w, cols, ncols, nrows);
		total += nrows;
	}
	check(pq_writer_close(w, &err), &err, "close");
	pq_writer_free(w);
	arena_reset(&arena);
	if (fclose(out) != 0)
		die("cannot write \"%s\"", argv[argi + 2]);
	fclose(in);
	fprintf(stderr, "csv2parquet: %llu rows, %d columns\n", (unsigned long long) total, ncols);
	return 0;
}
