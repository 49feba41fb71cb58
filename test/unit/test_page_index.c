/*-------------------------------------------------------------------------
 *
 * test_page_index.c
 *	  Tests of ColumnIndex / OffsetIndex / BloomFilterHeader decoding and
 *	  the split-block bloom filter.
 *
 * Byte vectors are written by hand from parquet.thrift and the compact
 * protocol; the corpus part reads the page indexes of every file that has
 * them and checks them against facts recorded elsewhere: data page counts
 * in MANIFEST.tsv (an independent walk of the page headers), row counts
 * and null counts and min/max statistics in the footer, and, for the bloom
 * filter written by parquet-mr, every value DuckDB read from the file
 * (xxHash64 from libxxhash).
 *
 * IDENTIFICATION
 *	  test/unit/test_page_index.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/page_index.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "unit.h"

/*
 * ColumnIndex { null_pages [false, true], min_values ["a", ""],
 *				 max_values ["c", ""], boundary_order ASCENDING,
 *				 null_counts [0, 5] }
 */
static const uint8_t column_index_bytes[] = {
	0x19, 0x21, 0x02, 0x01,		/* 1: list<bool> count 2; false=2, true=1 */
	0x19, 0x28, 0x01, 'a', 0x00,	/* 2: list<binary> "a", "" */
	0x19, 0x28, 0x01, 'c', 0x00,	/* 3: list<binary> "c", "" */
	0x15, 0x02,					/* 4: i32 zigzag(1) */
	0x19, 0x26, 0x00, 0x0A,		/* 5: list<i64> 0, 5 */
	0x00
};

/*
 * OffsetIndex { page_locations [ {4, 100, 0}, {104, 50, 10} ] }
 * zigzag: 4 -> 08, 100 -> C8 01, 104 -> D0 01, 50 -> 64, 10 -> 14
 */
static const uint8_t offset_index_bytes[] = {
	0x19, 0x2C,
	0x16, 0x08, 0x15, 0xC8, 0x01, 0x16, 0x00, 0x00,
	0x16, 0xD0, 0x01, 0x15, 0x64, 0x16, 0x14, 0x00,
	0x00
};

/* BloomFilterHeader { numBytes 32, BLOCK, XXHASH, UNCOMPRESSED } */
static const uint8_t bloom_header_bytes[] = {
	0x15, 0x40,
	0x1C, 0x1C, 0x00, 0x00,
	0x1C, 0x1C, 0x00, 0x00,
	0x1C, 0x1C, 0x00, 0x00,
	0x00
};

static void
test_column_index(void)
{
	PqColumnIndex *ci;
	PqError		err;
	uint8_t		buf[64];

	UNIT_CHECK(pq_column_index_decode(column_index_bytes, sizeof(column_index_bytes),
									  &pfc_malloc_allocator, &ci, &err) == PQ_OK);
	if (ci == NULL)
		return;
	UNIT_CHECK(ci->num_pages == 2);
	UNIT_CHECK(!ci->null_pages[0] && ci->null_pages[1]);
	UNIT_CHECK(ci->min_values[0].len == 1 && ci->min_values[0].data[0] == 'a');
	UNIT_CHECK(ci->max_values[0].len == 1 && ci->max_values[0].data[0] == 'c');
	UNIT_CHECK(ci->min_values[1].len == 0 && ci->max_values[1].len == 0);
	UNIT_CHECK(ci->boundary_order == PQ_BOUNDARY_ASCENDING);
	UNIT_CHECK(ci->has_null_counts && ci->null_counts[0] == 0 && ci->null_counts[1] == 5);
	pq_column_index_free(ci);

	/* The decoded index does not point into the caller's buffer. */
	memcpy(buf, column_index_bytes, sizeof(column_index_bytes));
	UNIT_CHECK(pq_column_index_decode(buf, sizeof(column_index_bytes),
									  NULL, &ci, &err) == PQ_OK);
	memset(buf, 0, sizeof(buf));
	UNIT_CHECK(ci && ci->min_values[0].data[0] == 'a');
	pq_column_index_free(ci);

	for (size_t cut = 0; cut < sizeof(column_index_bytes); cut++)
	{
		PqStatus	st = pq_column_index_decode(column_index_bytes, cut, NULL, &ci, &err);

		UNIT_CHECKF(st == PQ_ERR_CORRUPT && ci == NULL, "prefix %zu: %d", cut, st);
	}

	/* max_values with one entry for two pages */
	{
		static const uint8_t b[] = {
			0x19, 0x21, 0x02, 0x01,
			0x19, 0x28, 0x01, 'a', 0x00,
			0x19, 0x18, 0x01, 'c',
			0x15, 0x02,
			0x00
		};

		UNIT_CHECK(pq_column_index_decode(b, sizeof(b), NULL, &ci, &err) == PQ_ERR_CORRUPT);
		UNIT_CHECK(strstr(err.message, "disagree") != NULL);
	}
	/* boundary order 3 is not defined */
	{
		uint8_t		b[sizeof(column_index_bytes)];

		memcpy(b, column_index_bytes, sizeof(b));
		b[15] = 0x06;
		UNIT_CHECK(pq_column_index_decode(b, sizeof(b), NULL, &ci, &err) == PQ_ERR_CORRUPT);
	}
}

static void
test_offset_index(void)
{
	PqOffsetIndex *oi;
	PqError		err;

	UNIT_CHECK(pq_offset_index_decode(offset_index_bytes, sizeof(offset_index_bytes),
									  NULL, &oi, &err) == PQ_OK);
	if (oi == NULL)
		return;
	UNIT_CHECK(oi->num_pages == 2);
	UNIT_CHECK(oi->pages[0].offset == 4 && oi->pages[0].compressed_page_size == 100 &&
			   oi->pages[0].first_row_index == 0);
	UNIT_CHECK(oi->pages[1].offset == 104 && oi->pages[1].compressed_page_size == 50 &&
			   oi->pages[1].first_row_index == 10);
	UNIT_CHECK(!oi->has_unencoded_byte_array_data_bytes);
	pq_offset_index_free(oi);

	for (size_t cut = 0; cut < sizeof(offset_index_bytes); cut++)
	{
		PqStatus	st = pq_offset_index_decode(offset_index_bytes, cut, NULL, &oi, &err);

		UNIT_CHECKF(st == PQ_ERR_CORRUPT && oi == NULL, "prefix %zu: %d", cut, st);
	}
	/* second page starting before the first: first_row_index 10 -> -1 (01) */
	{
		uint8_t		b[sizeof(offset_index_bytes)];

		memcpy(b, offset_index_bytes, sizeof(b));
		b[16] = 0x01;
		UNIT_CHECK(pq_offset_index_decode(b, sizeof(b), NULL, &oi, &err) == PQ_ERR_CORRUPT);
		UNIT_CHECK(err.page == 1);
	}
	/* first page not at row 0: 0 -> 1 (02) */
	{
		uint8_t		b[sizeof(offset_index_bytes)];

		memcpy(b, offset_index_bytes, sizeof(b));
		b[8] = 0x02;
		UNIT_CHECK(pq_offset_index_decode(b, sizeof(b), NULL, &oi, &err) == PQ_ERR_CORRUPT);
	}
	/* page size 0 */
	{
		uint8_t		b[] = {0x19, 0x1C, 0x16, 0x08, 0x15, 0x00, 0x16, 0x00, 0x00, 0x00};

		UNIT_CHECK(pq_offset_index_decode(b, sizeof(b), NULL, &oi, &err) == PQ_ERR_CORRUPT);
	}
}

static void
test_bloom(void)
{
	PqBloomFilterHeader hdr;
	PqError		err;
	uint8_t		bits[32 * 64];
	uint64_t	seed = 12345;
	int			fp = 0;

	UNIT_CHECK(pq_bloom_filter_header_decode(bloom_header_bytes, sizeof(bloom_header_bytes),
											 &hdr, &err) == PQ_OK);
	UNIT_CHECK(hdr.num_bytes == 32 && hdr.header_length == sizeof(bloom_header_bytes));
	for (size_t cut = 0; cut < sizeof(bloom_header_bytes); cut++)
		UNIT_CHECK(pq_bloom_filter_header_decode(bloom_header_bytes, cut, &hdr, &err) ==
				   PQ_ERR_CORRUPT);
	{
		uint8_t		b[sizeof(bloom_header_bytes)];

		memcpy(b, bloom_header_bytes, sizeof(b));
		b[3] = 0x2C;			/* algorithm member 2: unknown */
		UNIT_CHECK(pq_bloom_filter_header_decode(b, sizeof(b), &hdr, &err) ==
				   PQ_ERR_UNSUPPORTED);
		memcpy(b, bloom_header_bytes, sizeof(b));
		b[1] = 0x3E;			/* 31 bytes: not a multiple of 32 */
		UNIT_CHECK(pq_bloom_filter_header_decode(b, sizeof(b), &hdr, &err) ==
				   PQ_ERR_CORRUPT);
	}

	/*
	 * Hand-worked probe (BloomFilter.md): hash 0 selects block 0 and, since
	 * key * salt = 0, bit 0 of each of its eight words.
	 */
	memset(bits, 0, sizeof(bits));
	UNIT_CHECK(!pfc_sbbf_probe(bits, 32, 0));
	for (int i = 0; i < 8; i++)
		bits[4 * i] = 0x01;
	UNIT_CHECK(pfc_sbbf_probe(bits, 32, 0));
	bits[4 * 7] = 0;
	UNIT_CHECK(!pfc_sbbf_probe(bits, 32, 0));
	/*
	 * hash 0x80000000_00000001 with 2 blocks: block (0x80000000 * 2) >> 32 = 1;
	 * key 1, so bit (salt_i >> 27) of word i: salts' top five bits are
	 * 8, 8, 17, 20, 14, 5, 19, 11.
	 */
	memset(bits, 0, 64);
	{
		static const int bit[8] = {8, 8, 17, 20, 14, 5, 19, 11};

		for (int i = 0; i < 8; i++)
			bits[32 + 4 * i + bit[i] / 8] |= (uint8_t) (1u << (bit[i] % 8));
	}
	UNIT_CHECK(pfc_sbbf_probe(bits, 64, UINT64_C(0x8000000000000001)));
	UNIT_CHECK(!pfc_sbbf_probe(bits, 64, UINT64_C(0x0000000000000001)));
	{
		uint8_t		again[64] = {0};

		pfc_sbbf_insert(again, 64, UINT64_C(0x8000000000000001));
		UNIT_CHECK_MEM(again, bits, 64);
	}

	/* Inserted hashes are always found; few others are. */
	memset(bits, 0, sizeof(bits));
	for (int i = 0; i < 200; i++)
		pfc_sbbf_insert(bits, sizeof(bits), XXH64(&i, sizeof(i), 0));
	for (int i = 0; i < 200; i++)
		UNIT_CHECK(pfc_sbbf_probe(bits, sizeof(bits), XXH64(&i, sizeof(i), 0)));
	for (int i = 0; i < 10000; i++)
		fp += pfc_sbbf_probe(bits, sizeof(bits), unit_rand(&seed));
	UNIT_CHECKF(fp < 200, "%d false positives in 10000", fp);
}

/* ----------------------------------------------------------------
 * Corpus
 * ----------------------------------------------------------------
 */

typedef struct DiskFile
{
	int			fd;
} DiskFile;

static int
disk_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	DiskFile   *f = ctx;
	ssize_t		n = pread(f->fd, buf, len, (off_t) offset);

	if (n < 0)
		return errno;
	return (size_t) n == len ? 0 : EIO;
}

static const char *
find_corpus(void)
{
	static char buf[4096];
	const char *env = getenv("PARQUET_TESTING_DIR");
	static const char *const candidates[] = {
		"../../shared/parquet-testing",
		"../shared/parquet-testing",
		"../../../shared/parquet-testing",
	};
	struct stat sb;

	if (env && *env)
	{
		snprintf(buf, sizeof(buf), "%s/MANIFEST.tsv", env);
		if (stat(buf, &sb) == 0)
			return env;
	}
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
	{
		snprintf(buf, sizeof(buf), "%s/MANIFEST.tsv", candidates[i]);
		if (stat(buf, &sb) == 0)
			return candidates[i];
	}
	return NULL;
}

/* Data pages (v1 + v2) MANIFEST.tsv counted for a file; -1 if unknown. */
static long
manifest_data_pages(const char *root, const char *rel)
{
	char		path[4096];
	char		line[16384];
	FILE	   *fp;
	long		pages = -1;

	snprintf(path, sizeof(path), "%s/MANIFEST.tsv", root);
	fp = fopen(path, "r");
	if (fp == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp))
	{
		char	   *f = line;
		size_t		l = strcspn(line, "\t");

		if (l != strlen(rel) || strncmp(line, rel, l) != 0)
			continue;
		/* column 10 (data_pages): "v1=N v2=M dict=K ..." */
		for (int i = 0; i < 9 && f; i++)
		{
			f = strchr(f, '\t');
			if (f)
				f++;
		}
		if (f && strstr(f, "partial") == NULL)
		{
			char	   *v1 = strstr(f, "v1=");
			char	   *v2 = strstr(f, "v2=");
			char	   *tab = strchr(f, '\t');

			pages = 0;
			if (v1 && (!tab || v1 < tab))
				pages += atol(v1 + 3);
			if (v2 && (!tab || v2 < tab))
				pages += atol(v2 + 3);
		}
		break;
	}
	fclose(fp);
	return pages;
}

static int64_t
le_int(const uint8_t *p, uint32_t len)
{
	if (len == 4)
	{
		int32_t		v;

		memcpy(&v, p, 4);
		return v;
	}
	{
		int64_t		v;

		memcpy(&v, p, 8);
		return v;
	}
}

typedef struct IndexStats
{
	int			files;
	int			column_indexes;
	int			offset_indexes;
	long		pages;
	int			minmax_checked;
	int			nullcount_checked;
	int			bloom_values;
} IndexStats;

static void
check_file_indexes(const char *root, const char *rel, IndexStats *is)
{
	char		path[8192];
	DiskFile	df;
	struct stat sb;
	PfcSource	src;
	PqFile	   *file;
	PqError		err;
	const PqFileMeta *m;
	long		oi_pages = 0;
	bool		all_have_oi = true;
	bool		any_index = false;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	df.fd = open(path, O_RDONLY);
	if (df.fd < 0 || fstat(df.fd, &sb) != 0)
		return;
	src.read_at = disk_read_at;
	src.ctx = &df;
	src.size = (uint64_t) sb.st_size;
	if (pq_file_open(&file, &src, NULL, &err) != PQ_OK)
	{
		close(df.fd);
		return;
	}
	m = pq_file_meta(file);

	for (int rg = 0; rg < m->num_row_groups; rg++)
	{
		const PqRowGroupMeta *g = &m->row_groups[rg];

		for (int c = 0; c < g->num_columns; c++)
		{
			const PqColumnChunkMeta *cc = &g->columns[c];
			PqColumnIndex *ci = NULL;
			PqOffsetIndex *oi = NULL;
			PqStatus	st;

			if (!cc->has_offset_index)
				all_have_oi = false;
			if (!cc->has_column_index && !cc->has_offset_index)
				continue;
			any_index = true;
			if (cc->is_encrypted)
			{
				st = cc->has_column_index ?
					pq_read_column_index(file, rg, c, NULL, &ci, &err) :
					pq_read_offset_index(file, rg, c, NULL, &oi, &err);
				UNIT_CHECKF(st == PQ_ERR_UNSUPPORTED, "%s: encrypted chunk: %d", rel, st);
				all_have_oi = false;
				continue;
			}
			if (cc->has_offset_index)
			{
				st = pq_read_offset_index(file, rg, c, NULL, &oi, &err);
				UNIT_CHECKF(st == PQ_OK, "%s rg %d col %d: %s", rel, rg, c, err.message);
				if (oi)
				{
					bool		ok = oi->num_pages > 0 || g->num_rows == 0;

					is->offset_indexes++;
					oi_pages += oi->num_pages;
					for (uint32_t p = 0; p < oi->num_pages; p++)
					{
						const PqPageLocation *pl = &oi->pages[p];

						ok &= pl->first_row_index < g->num_rows;
						if (p > 0)
							ok &= pl->first_row_index >= oi->pages[p - 1].first_row_index &&
								pl->offset >= oi->pages[p - 1].offset +
								oi->pages[p - 1].compressed_page_size;
						else
							ok &= pl->first_row_index == 0 && pl->offset >= cc->data_page_offset;
					}
					UNIT_CHECKF(ok, "%s rg %d col %d: offset index inconsistent", rel, rg, c);
				}
			}
			if (cc->has_column_index)
			{
				st = pq_read_column_index(file, rg, c, NULL, &ci, &err);
				UNIT_CHECKF(st == PQ_OK, "%s rg %d col %d: %s", rel, rg, c, err.message);
			}
			if (ci)
			{
				const PqSchemaNode *leaf = m->leaves[c].node;
				const PqStatistics *stats = &cc->statistics;

				is->column_indexes++;
				if (oi)
					UNIT_CHECKF(ci->num_pages == oi->num_pages, "%s: %u vs %u pages",
								rel, ci->num_pages, oi->num_pages);
				/* null counts add up to the chunk's */
				if (ci->has_null_counts && cc->has_statistics && stats->has_null_count)
				{
					int64_t		sum = 0;

					for (uint32_t p = 0; p < ci->num_pages; p++)
						sum += ci->null_counts[p];
					UNIT_CHECKF(sum == stats->null_count, "%s col %d: null counts %lld vs %lld",
								rel, c, (long long) sum, (long long) stats->null_count);
					is->nullcount_checked++;
				}
				/* integer page minima/maxima reach the chunk's min and max */
				if ((leaf->physical == PQ_INT32 || leaf->physical == PQ_INT64) &&
					cc->has_statistics && stats->has_min && stats->has_max &&
					!stats->min_is_legacy &&
					leaf->logical.kind != PQ_LT_INTEGER)
				{
					uint32_t	w = leaf->physical == PQ_INT32 ? 4 : 8;
					bool		any = false;
					int64_t		lo = INT64_MAX,
								hi = INT64_MIN;

					for (uint32_t p = 0; p < ci->num_pages; p++)
					{
						if (ci->null_pages[p])
							continue;
						if (ci->min_values[p].len != w || ci->max_values[p].len != w)
						{
							UNIT_CHECKF(false, "%s: page %u min/max width", rel, p);
							continue;
						}
						any = true;
						if (le_int(ci->min_values[p].data, w) < lo)
							lo = le_int(ci->min_values[p].data, w);
						if (le_int(ci->max_values[p].data, w) > hi)
							hi = le_int(ci->max_values[p].data, w);
					}
					if (any && stats->min_len == w && stats->max_len == w)
					{
						UNIT_CHECKF(lo == le_int(stats->min, w) && hi == le_int(stats->max, w),
									"%s col %d: page min/max %lld/%lld vs chunk %lld/%lld",
									rel, c, (long long) lo, (long long) hi,
									(long long) le_int(stats->min, w),
									(long long) le_int(stats->max, w));
						is->minmax_checked++;
					}
				}
			}
			pq_column_index_free(ci);
			pq_offset_index_free(oi);
		}
	}

	if (any_index)
	{
		long		expect = manifest_data_pages(root, rel);

		is->files++;
		is->pages += oi_pages;
		if (all_have_oi && expect >= 0)
			UNIT_CHECKF(oi_pages == expect, "%s: %ld pages in offset indexes, manifest says %ld",
						rel, oi_pages, expect);
	}
	pq_file_close(file);
	close(df.fd);
}

/* Next CSV field of DuckDB's output (quotes doubled inside quotes). */
static bool
csv_next_line(FILE *fp, char *out, size_t cap, bool *is_null)
{
	int			ch;
	size_t		n = 0;
	bool		quoted = false;

	ch = fgetc(fp);
	if (ch == EOF)
		return false;
	if (ch == '"')
	{
		quoted = true;
		while ((ch = fgetc(fp)) != EOF)
		{
			if (ch == '"')
			{
				ch = fgetc(fp);
				if (ch != '"')
					break;
			}
			if (n + 1 < cap)
				out[n++] = (char) ch;
		}
	}
	while (ch != EOF && ch != '\n')
	{
		if (ch != '\r' && n + 1 < cap)
			out[n++] = (char) ch;
		ch = fgetc(fp);
	}
	out[n] = '\0';
	*is_null = !quoted && n == 0;
	return true;
}

static void
check_bloom_corpus(const char *root, IndexStats *is)
{
	static const char rel[] = "data/data_index_bloom_encoding_stats.parquet";
	char		path[4096];
	DiskFile	df;
	struct stat sb;
	PfcSource	src;
	PqFile	   *file;
	PqError		err;
	uint8_t    *bits = NULL;
	uint32_t	len = 0;
	FILE	   *csv;
	char		value[1024];
	bool		is_null;
	int			found = 0,
				values = 0,
				absent_hits = 0;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	df.fd = open(path, O_RDONLY);
	if (df.fd < 0 || fstat(df.fd, &sb) != 0)
	{
		UNIT_CHECKF(false, "%s missing", rel);
		return;
	}
	src.read_at = disk_read_at;
	src.ctx = &df;
	src.size = (uint64_t) sb.st_size;
	UNIT_CHECK(pq_file_open(&file, &src, NULL, &err) == PQ_OK);
	UNIT_CHECK(pq_read_bloom_filter(file, 0, 0, NULL, &bits, &len, &err) == PQ_OK);
	UNIT_CHECKF(bits != NULL && len >= 32 && len % 32 == 0, "%s", err.message);
	snprintf(path, sizeof(path), "%s/%s.expected.csv", root, rel);
	csv = fopen(path, "r");
	UNIT_CHECK(csv != NULL);
	if (bits && csv)
	{
		csv_next_line(csv, value, sizeof(value), &is_null);	/* header */
		while (csv_next_line(csv, value, sizeof(value), &is_null))
		{
			if (is_null)
				continue;
			values++;
			found += pfc_sbbf_probe(bits, len, XXH64(value, strlen(value), 0));
		}
		UNIT_CHECKF(values > 0 && found == values, "bloom found %d of %d values", found, values);
		is->bloom_values = found;
		/* values certainly not in the column: most must be rejected */
		for (int i = 0; i < 1000; i++)
		{
			char		probe[32];

			snprintf(probe, sizeof(probe), "absent-%d", i);
			absent_hits += pfc_sbbf_probe(bits, len, XXH64(probe, strlen(probe), 0));
		}
		UNIT_CHECKF(absent_hits < 100, "%d of 1000 absent values pass the filter", absent_hits);
	}
	if (csv)
		fclose(csv);
	free(bits);
	pq_file_close(file);
	close(df.fd);
}

static void
walk(const char *root, const char *sub, IndexStats *is)
{
	char		path[4096];
	DIR		   *dir;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/%s", root, sub);
	dir = opendir(path);
	if (dir == NULL)
		return;
	while ((de = readdir(dir)) != NULL)
	{
		char		rel[4096];
		char		full[8192];
		struct stat sb;
		size_t		n = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", sub, de->d_name);
		snprintf(full, sizeof(full), "%s/%s", root, rel);
		if (stat(full, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode))
			walk(root, rel, is);
		else if ((n > 8 && strcmp(de->d_name + n - 8, ".parquet") == 0) ||
				 (n > 18 && strcmp(de->d_name + n - 18, ".parquet.encrypted") == 0))
			check_file_indexes(root, rel, is);
	}
	closedir(dir);
}

static void
test_corpus(void)
{
	const char *root = find_corpus();
	IndexStats	is = {0};

	if (root == NULL)
	{
		printf("corpus: ../shared/parquet-testing not found, skipped\n");
		return;
	}
	walk(root, "data", &is);
	walk(root, "bad_data", &is);
	walk(root, "shredded_variant", &is);
	check_bloom_corpus(root, &is);
	UNIT_CHECK(is.files > 10 && is.minmax_checked > 0 && is.nullcount_checked > 0);
	printf("corpus: %d files with page indexes, %d column indexes, %d offset indexes "
		   "(%ld pages), %d min/max and %d null-count cross-checks, %d bloom values found\n",
		   is.files, is.column_indexes, is.offset_indexes, is.pages, is.minmax_checked,
		   is.nullcount_checked, is.bloom_values);
}

int
main(void)
{
	test_column_index();
	test_offset_index();
	test_bloom();
	test_corpus();
	UNIT_MAIN_END("test_page_index");
}
