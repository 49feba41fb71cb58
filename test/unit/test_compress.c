/*-------------------------------------------------------------------------
 *
 * test_compress.c
 *	  Unit tests of src/compress/: round trips, independent references,
 *	  hostile input.
 *
 * References that do not come from our own compressor:
 *	- byte arrays made by the gzip, zstd, lz4 and brotli command-line tools
 *	  (two gzip members back to back, two zstd frames without content size,
 *	  an lz4 frame, a brotli stream);
 *	- zlib's compress2() (zlib header), deflate with a gzip header into two
 *	  members, libzstd's streaming API, LZ4F frames, Hadoop frames assembled
 *	  here around LZ4_compress_default() blocks, BrotliEncoderCompress();
 *	- snappy and LZ4 blocks written byte by byte, checked by hand;
 *	- the pages of the Parquet test corpus (concatenated gzip members, Hadoop
 *	  and non-Hadoop LZ4, LZ4_RAW), walked with a minimal page-header reader
 *	  of its own, when the corpus is present (PARQUET_TESTING_DIR, which
 *	  make -C test run-unit sets; by hand, ../../shared/parquet-testing
 *	  from test/).
 *
 * Every decompression writes into a buffer with guard bytes after out_len,
 * checked afterwards, so a write past out_len fails a test even without
 * sanitizers.
 *
 * IDENTIFICATION
 *	  test/unit/test_compress.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include "compress/compress.h"

#include <stdbool.h>

#include <brotli/encode.h>
#include <lz4.h>
#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#define GUARD_LEN 32
#define GUARD_BYTE 0xA5
#define MB (1024 * 1024)

static const int all_codecs[] = {
	CMP_UNCOMPRESSED, CMP_SNAPPY, CMP_GZIP, CMP_BROTLI, CMP_LZ4_HADOOP,
	CMP_ZSTD, CMP_LZ4_RAW
};
#define N_CODECS ((int) (sizeof(all_codecs) / sizeof(all_codecs[0])))

/*
 * Decompress into a fresh buffer of out_len bytes followed by guard bytes;
 * checks the guard and returns the status.  *result (if not NULL) gets the
 * buffer, else it is freed.
 */
static CmpStatus
guarded_decompress(int codec, const uint8_t *in, size_t in_len,
				   size_t out_len, uint8_t **result)
{
	uint8_t    *out = malloc(out_len + GUARD_LEN);
	CmpStatus	st;
	bool		guard_ok = true;

	memset(out + out_len, GUARD_BYTE, GUARD_LEN);
	st = cmp_decompress(codec, in, in_len, out, out_len);
	for (int i = 0; i < GUARD_LEN; i++)
		guard_ok &= out[out_len + i] == GUARD_BYTE;
	UNIT_CHECKF(guard_ok, "%s wrote past out_len %zu", cmp_codec_name(codec), out_len);
	if (result)
		*result = out;
	else
		free(out);
	return st;
}

/* Decompress and expect exactly expect[0..len). */
static void
check_decodes_to(int codec, const uint8_t *in, size_t in_len,
				 const void *expect, size_t len, const char *what)
{
	uint8_t    *out;
	CmpStatus	st = guarded_decompress(codec, in, in_len, len, &out);

	UNIT_CHECKF(st == CMP_OK, "%s (%s): status %s", what, cmp_codec_name(codec),
				cmp_status_message(st));
	if (st == CMP_OK)
		UNIT_CHECKF(memcmp(out, expect, len) == 0, "%s: wrong bytes", what);
	free(out);
}

static void
check_status(int codec, const uint8_t *in, size_t in_len, size_t out_len,
			 CmpStatus expect, const char *what)
{
	CmpStatus	st = guarded_decompress(codec, in, in_len, out_len, NULL);

	UNIT_CHECKF(st == expect, "%s (%s, in %zu, out %zu): got \"%s\", want \"%s\"",
				what, cmp_codec_name(codec), in_len, out_len,
				cmp_status_message(st), cmp_status_message(expect));
}

/* ---------------------------------------------------------------------- */
/* Data shapes */

static uint8_t *
make_random(size_t len, uint64_t seed)
{
	uint8_t    *p = malloc(len + 1);
	uint64_t	s = seed;

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t) (unit_rand(&s) >> 56);
	return p;
}

static uint8_t *
make_repetitive(size_t len)
{
	static const char pattern[] = "0123456789abcdef0123456789ABCDEF!";
	uint8_t    *p = malloc(len + 1);

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t) pattern[(i / 7) % (sizeof(pattern) - 1)] ^ (i % 4096 == 0);
	return p;
}

/* Words drawn with a skewed distribution, spaces and newlines. */
static uint8_t *
make_text(size_t len, uint64_t seed)
{
	static const char *words[] = {
		"the", "of", "parquet", "page", "column", "value", "and", "a",
		"compression", "dictionary", "foreign", "table", "row", "group",
		"snappy", "zstd", "is", "to", "in", "encoding", "2026-11-22", "42"
	};
	uint8_t    *p = malloc(len + 1);
	uint64_t	s = seed;
	size_t		i = 0;

	while (i < len)
	{
		uint64_t	r = unit_rand(&s);
		int			w = (int) ((r & 0xff) % 22);
		const char *word;

		if ((r >> 8) % 3 == 0)
			w %= 6;				/* skew towards the common words */
		word = words[w];
		for (const char *c = word; *c && i < len; c++)
			p[i++] = (uint8_t) *c;
		if (i < len)
			p[i++] = ((r >> 20) % 12 == 0) ? '\n' : ' ';
	}
	return p;
}

/* ---------------------------------------------------------------------- */

static void
test_names_and_versions(void)
{
	const char *v = cmp_library_versions();
	char		expect[64];

	UNIT_CHECK(strcmp(cmp_codec_name(CMP_UNCOMPRESSED), "UNCOMPRESSED") == 0);
	UNIT_CHECK(strcmp(cmp_codec_name(CMP_SNAPPY), "SNAPPY") == 0);
	UNIT_CHECK(strcmp(cmp_codec_name(CMP_GZIP), "GZIP") == 0);
	UNIT_CHECK(strcmp(cmp_codec_name(CMP_LZO), "LZO") == 0);
	UNIT_CHECK(strcmp(cmp_codec_name(CMP_BROTLI), "BROTLI") == 0);
	UNIT_CHECK(strcmp(cmp_codec_name(CMP_LZ4_HADOOP), "LZ4") == 0);
	UNIT_CHECK(strcmp(cmp_codec_name(CMP_ZSTD), "ZSTD") == 0);
	UNIT_CHECK(strcmp(cmp_codec_name(CMP_LZ4_RAW), "LZ4_RAW") == 0);
	UNIT_CHECK(strcmp(cmp_codec_name(8), "unknown") == 0);
	UNIT_CHECK(strcmp(cmp_codec_name(-1), "unknown") == 0);

	for (int c = 0; c < CMP_CODEC_COUNT; c++)
		UNIT_CHECK(cmp_codec_supported(c) == (c != CMP_LZO));
	UNIT_CHECK(!cmp_codec_supported(-1));
	UNIT_CHECK(!cmp_codec_supported(CMP_CODEC_COUNT));

	UNIT_CHECK(strcmp(cmp_status_message(CMP_OK), "success") == 0);
	for (int s = CMP_OK; s <= CMP_ERR_NOMEM; s++)
	{
		const char *m = cmp_status_message((CmpStatus) s);
		size_t		n = strlen(m);

		/* lowercase start, no final period, distinct from "unknown" */
		UNIT_CHECK(n > 0 && m[0] >= 'a' && m[0] <= 'z' && m[n - 1] != '.');
		UNIT_CHECK(strstr(m, "unknown") == NULL);
	}

	/* the versions string reports what the libraries report */
	snprintf(expect, sizeof(expect), "zlib %s,", zlibVersion());
	UNIT_CHECKF(strstr(v, expect) != NULL, "%s", v);
	snprintf(expect, sizeof(expect), "zstd %s,", ZSTD_versionString());
	UNIT_CHECKF(strstr(v, expect) != NULL, "%s", v);
	snprintf(expect, sizeof(expect), "lz4 %s,", LZ4_versionString());
	UNIT_CHECKF(strstr(v, expect) != NULL, "%s", v);
	UNIT_CHECKF(strncmp(v, "snappy", 6) == 0 && strstr(v, "brotli 1.") != NULL, "%s", v);
	UNIT_CHECK(cmp_library_versions() == v);	/* built once */
	printf("libraries: %s\n", v);
}

static void
test_unsupported(void)
{
	uint8_t		in[4] = {1, 2, 3, 4};
	uint8_t		out[16];
	size_t		written = 99;

	UNIT_CHECK(cmp_decompress(CMP_LZO, in, 4, out, 4) == CMP_ERR_UNSUPPORTED);
	UNIT_CHECK(cmp_decompress(99, in, 4, out, 4) == CMP_ERR_UNSUPPORTED);
	UNIT_CHECK(cmp_decompress(-1, in, 4, out, 4) == CMP_ERR_UNSUPPORTED);
	UNIT_CHECK(cmp_compress(CMP_LZO, 0, in, 4, out, 16, &written) == CMP_ERR_UNSUPPORTED);
	UNIT_CHECK(written == 0);
	UNIT_CHECK(cmp_compress(42, 0, in, 4, out, 16, &written) == CMP_ERR_UNSUPPORTED);
	UNIT_CHECK(cmp_compress_bound(CMP_LZO, 100) == 0);
	UNIT_CHECK(cmp_compress_bound(42, 100) == 0);
}

/* Empty input and NULL pointers with zero lengths. */
static void
test_empty(void)
{
	uint8_t		buf[8];
	size_t		written;

	for (int i = 0; i < N_CODECS; i++)
	{
		int			c = all_codecs[i];

		UNIT_CHECK(cmp_decompress(c, NULL, 0, NULL, 0) == CMP_OK);
		UNIT_CHECK(cmp_decompress(c, buf, 0, buf, 0) == CMP_OK);
		UNIT_CHECK(cmp_decompress(c, NULL, 0, buf, 5) ==
				   (c == CMP_UNCOMPRESSED ? CMP_ERR_SIZE_MISMATCH : CMP_ERR_CORRUPT));
		UNIT_CHECK(cmp_compress(c, 0, NULL, 0, NULL, 0, &written) ==
				   (c == CMP_UNCOMPRESSED ? CMP_OK : CMP_ERR_OUTPUT_FULL));
	}
	/* UNCOMPRESSED is a copy with an exact size check */
	{
		uint8_t		src[5] = {1, 2, 3, 4, 5};

		check_decodes_to(CMP_UNCOMPRESSED, src, 5, src, 5, "uncompressed copy");
		check_status(CMP_UNCOMPRESSED, src, 5, 4, CMP_ERR_SIZE_MISMATCH, "short");
		check_status(CMP_UNCOMPRESSED, src, 5, 6, CMP_ERR_SIZE_MISMATCH, "long");
		UNIT_CHECK(cmp_compress(CMP_UNCOMPRESSED, 0, src, 5, buf, 4, &written) ==
				   CMP_ERR_OUTPUT_FULL);
	}
}

/*
 * Compress data at a level, check the bound, decompress exactly, and with
 * out_len one short and one long.
 */
static void
round_trip(int codec, int level, const uint8_t *data, size_t len, const char *shape)
{
	size_t		bound = cmp_compress_bound(codec, len);
	uint8_t    *comp = malloc(bound + 1);
	size_t		written = 0;
	CmpStatus	st;

	st = cmp_compress(codec, level, data, len, comp, bound, &written);
	UNIT_CHECKF(st == CMP_OK, "compress %s level %d %s: %s", cmp_codec_name(codec),
				level, shape, cmp_status_message(st));
	if (st != CMP_OK)
	{
		free(comp);
		return;
	}
	UNIT_CHECKF(written <= bound && (written > 0 || codec == CMP_UNCOMPRESSED),
				"%s %s: written %zu bound %zu", cmp_codec_name(codec), shape, written, bound);
	check_decodes_to(codec, comp, written, data, len, shape);
	if (len > 0)
		check_status(codec, comp, written, len - 1, CMP_ERR_SIZE_MISMATCH, shape);
	check_status(codec, comp, written, len + 1, CMP_ERR_SIZE_MISMATCH, shape);
	check_status(codec, comp, written, len + 1000, CMP_ERR_SIZE_MISMATCH, shape);

	/* one byte too little room to compress into */
	if (written > 0)
	{
		size_t		w2 = 77;

		st = cmp_compress(codec, level, data, len, comp, written - 1, &w2);
		UNIT_CHECKF(st == CMP_ERR_OUTPUT_FULL && w2 == 0, "%s %s: short output: %s",
					cmp_codec_name(codec), shape, cmp_status_message(st));
	}
	free(comp);
}

static void
test_round_trips(void)
{
	struct
	{
		int			codec;
		int			levels[3];
	}			plan[] = {
		{CMP_UNCOMPRESSED, {0, 0, 0}},
		{CMP_SNAPPY, {0, 0, 0}},
		{CMP_GZIP, {0, 1, 9}},
		{CMP_BROTLI, {0, 1, 5}},
		{CMP_LZ4_HADOOP, {0, -8, 9}},
		{CMP_ZSTD, {0, -5, 9}},
		{CMP_LZ4_RAW, {0, -8, 9}},
	};
	uint8_t		one = 'x';
	uint8_t    *rnd = make_random(MB, 1);
	uint8_t    *rep = make_repetitive(MB);
	uint8_t    *txt = make_text(MB, 2);
	uint8_t    *small = make_text(1000, 3);

	for (size_t p = 0; p < sizeof(plan) / sizeof(plan[0]); p++)
	{
		for (int l = 0; l < 3; l++)
		{
			int			c = plan[p].codec;
			int			lv = plan[p].levels[l];

			if (l > 0 && lv == 0)
				break;
			round_trip(c, lv, &one, 0, "empty");
			round_trip(c, lv, &one, 1, "one byte");
			round_trip(c, lv, small, 1000, "1000 bytes of text");
			round_trip(c, lv, rnd, MB, "random 1 MB");
			round_trip(c, lv, rep, MB, "repetitive 1 MB");
			round_trip(c, lv, txt, MB, "text 1 MB");
		}
	}

	/* levels beyond a codec's range are clamped, not refused */
	{
		int			odd[] = {-1000000, -1, 100, 1000000};

		for (int i = 0; i < N_CODECS; i++)
			for (int j = 0; j < 4; j++)
				round_trip(all_codecs[i], odd[j], small, 1000, "odd level");
	}

	/* compression actually compresses the compressible shapes */
	for (int i = 1; i < N_CODECS; i++)
	{
		size_t		bound = cmp_compress_bound(all_codecs[i], MB);
		uint8_t    *comp = malloc(bound);
		size_t		written = 0;

		UNIT_CHECK(cmp_compress(all_codecs[i], 0, rep, MB, comp, bound, &written) == CMP_OK);
		UNIT_CHECKF(written < MB / 10, "%s: repetitive 1 MB -> %zu",
					cmp_codec_name(all_codecs[i]), written);
		free(comp);
	}
	free(rnd);
	free(rep);
	free(txt);
	free(small);
}

/* ---------------------------------------------------------------------- */
/* Independent references */

/* `gzip -9 -n` of "The quick brown fox " then `gzip -1 -n` of the rest. */
static const uint8_t gzip_cli_two_members[] = {
	0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x0b, 0xc9,
	0x48, 0x55, 0x28, 0x2c, 0xcd, 0x4c, 0xce, 0x56, 0x48, 0x2a, 0xca, 0x2f,
	0xcf, 0x53, 0x48, 0xcb, 0xaf, 0x50, 0x00, 0x00, 0xe2, 0x75, 0xb0, 0x88,
	0x14, 0x00, 0x00, 0x00, 0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x04, 0x03, 0xcb, 0x2a, 0xcd, 0x2d, 0x28, 0x56, 0xc8, 0x2f, 0x4b, 0x2d,
	0x52, 0x28, 0xc9, 0x48, 0x55, 0xc8, 0x49, 0xac, 0xaa, 0x54, 0x48, 0xc9,
	0x4f, 0xd7, 0xe3, 0x02, 0x00, 0x50, 0x51, 0xf0, 0x6c, 0x19, 0x00, 0x00,
	0x00
};
static const char gzip_cli_text[] = "The quick brown fox jumps over the lazy dog.\n";

/* `zstd` from a pipe (no content size in the header), twice, concatenated. */
static const uint8_t zstd_cli_two_frames[] = {
	0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x81, 0x00, 0x00, 0x7a, 0x73, 0x74,
	0x64, 0x20, 0x66, 0x72, 0x61, 0x6d, 0x65, 0x20, 0x6f, 0x6e, 0x65, 0x2c,
	0x20, 0xf2, 0xa0, 0x82, 0x46, 0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x68, 0x71,
	0x00, 0x00, 0x61, 0x6e, 0x64, 0x20, 0x66, 0x72, 0x61, 0x6d, 0x65, 0x20,
	0x74, 0x77, 0x6f, 0x2e, 0xc9, 0x81, 0x23, 0xa5
};
static const char zstd_cli_text[] = "zstd frame one, and frame two.";

/* `lz4 -c`: an LZ4 frame with a block checksum-free body and end mark. */
static const uint8_t lz4_cli_frame[] = {
	0x04, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7, 0x2c, 0x00, 0x00, 0x00, 0xff,
	0x12, 0x6c, 0x7a, 0x34, 0x20, 0x66, 0x72, 0x61, 0x6d, 0x65, 0x20, 0x66,
	0x72, 0x6f, 0x6d, 0x20, 0x74, 0x68, 0x65, 0x20, 0x63, 0x6f, 0x6d, 0x6d,
	0x61, 0x6e, 0x64, 0x20, 0x6c, 0x69, 0x6e, 0x65, 0x2c, 0x20, 0x21, 0x00,
	0x08, 0x50, 0x6c, 0x69, 0x6e, 0x65, 0x21, 0x00, 0x00, 0x00, 0x00, 0xba,
	0x4a, 0xc2, 0xd5
};
static const char lz4_cli_text[] =
"lz4 frame from the command line, lz4 frame from the command line!";

/* `brotli -c` */
static const uint8_t brotli_cli_stream[] = {
	0x1f, 0x3a, 0x00, 0xf8, 0x1d, 0xa9, 0x53, 0x9f, 0xbb, 0x70, 0x25, 0x26,
	0x97, 0x20, 0x2e, 0x74, 0x99, 0xc6, 0xf6, 0x06, 0x13, 0x39, 0x60, 0x6f,
	0x4b, 0x42, 0xb9, 0xc8, 0xbb, 0x05, 0x52, 0x7c, 0x41, 0xc9, 0xfa, 0xe1,
	0xe6, 0xbc, 0x87, 0x17, 0x05
};
static const char brotli_cli_text[] =
"brotli from the command line, brotli from the command line.";

/*
 * Every proper prefix of a stream is truncated: never OK, never a crash, and
 * corrupt unless it ends exactly between two members or frames, where it is
 * a valid shorter stream (boundary, or 0 for none).
 */
static void
check_prefixes_fail(int codec, const uint8_t *in, size_t in_len, size_t out_len,
					size_t boundary, const char *what)
{
	int			not_ok = 0;
	int			corrupt = 0;

	for (size_t n = 1; n < in_len; n++)
	{
		uint8_t    *copy = malloc(n);
		CmpStatus	st;

		memcpy(copy, in, n);
		st = guarded_decompress(codec, copy, n, out_len, NULL);
		not_ok += st != CMP_OK;
		if (n == boundary)
			UNIT_CHECKF(st == CMP_ERR_SIZE_MISMATCH, "%s: cut at %zu", what, n);
		else
			corrupt += st == CMP_ERR_CORRUPT;
		free(copy);
	}
	UNIT_CHECKF(not_ok == (int) in_len - 1, "%s: a truncation decoded", what);
	/* a truncated stream is corrupt, not merely the wrong size */
	UNIT_CHECKF(corrupt == (int) in_len - 1 - (boundary != 0),
				"%s: %d of %zu truncations corrupt", what, corrupt, in_len - 1);
}

static void
test_cli_references(void)
{
	size_t		n;

	n = strlen(gzip_cli_text);
	check_decodes_to(CMP_GZIP, gzip_cli_two_members, sizeof(gzip_cli_two_members),
					 gzip_cli_text, n, "gzip CLI, two members");
	/* the first member alone is the first 20 bytes of text */
	check_decodes_to(CMP_GZIP, gzip_cli_two_members, 40, gzip_cli_text, 20,
					 "gzip CLI, first member");
	check_status(CMP_GZIP, gzip_cli_two_members, sizeof(gzip_cli_two_members), n - 1,
				 CMP_ERR_SIZE_MISMATCH, "gzip two members, short");
	check_status(CMP_GZIP, gzip_cli_two_members, sizeof(gzip_cli_two_members), n + 1,
				 CMP_ERR_SIZE_MISMATCH, "gzip two members, long");
	check_status(CMP_GZIP, gzip_cli_two_members, 40, n, CMP_ERR_SIZE_MISMATCH,
				 "gzip first member only");
	check_prefixes_fail(CMP_GZIP, gzip_cli_two_members, sizeof(gzip_cli_two_members),
						n, 40, "gzip CLI truncated");
	{
		/* a bad CRC in the second member's trailer */
		uint8_t		bad[sizeof(gzip_cli_two_members)];

		memcpy(bad, gzip_cli_two_members, sizeof(bad));
		bad[sizeof(bad) - 6] ^= 1;
		check_status(CMP_GZIP, bad, sizeof(bad), n, CMP_ERR_CORRUPT, "gzip bad crc");
		/* trailing junk after the last member */
		uint8_t		junk[sizeof(gzip_cli_two_members) + 2];

		memcpy(junk, gzip_cli_two_members, sizeof(gzip_cli_two_members));
		junk[sizeof(junk) - 2] = 0;
		junk[sizeof(junk) - 1] = 0;
		check_status(CMP_GZIP, junk, sizeof(junk), n, CMP_ERR_CORRUPT, "gzip junk after");
	}

	n = strlen(zstd_cli_text);
	check_decodes_to(CMP_ZSTD, zstd_cli_two_frames, sizeof(zstd_cli_two_frames),
					 zstd_cli_text, n, "zstd CLI, two frames without content size");
	check_status(CMP_ZSTD, zstd_cli_two_frames, sizeof(zstd_cli_two_frames), n - 1,
				 CMP_ERR_SIZE_MISMATCH, "zstd two frames, short");
	check_status(CMP_ZSTD, zstd_cli_two_frames, sizeof(zstd_cli_two_frames), n + 1,
				 CMP_ERR_SIZE_MISMATCH, "zstd two frames, long");
	check_prefixes_fail(CMP_ZSTD, zstd_cli_two_frames, sizeof(zstd_cli_two_frames),
						n, 29, "zstd CLI truncated");

	n = strlen(lz4_cli_text);
	/* some writers put an LZ4 frame under Parquet's codec 5 */
	check_decodes_to(CMP_LZ4_HADOOP, lz4_cli_frame, sizeof(lz4_cli_frame),
					 lz4_cli_text, n, "lz4 CLI frame under codec 5");
	check_status(CMP_LZ4_HADOOP, lz4_cli_frame, sizeof(lz4_cli_frame), n - 1,
				 CMP_ERR_SIZE_MISMATCH, "lz4 frame, short");
	check_status(CMP_LZ4_HADOOP, lz4_cli_frame, sizeof(lz4_cli_frame), n + 1,
				 CMP_ERR_SIZE_MISMATCH, "lz4 frame, long");
	check_prefixes_fail(CMP_LZ4_HADOOP, lz4_cli_frame, sizeof(lz4_cli_frame),
						n, 0, "lz4 CLI frame truncated");
	/* LZ4_RAW is a bare block only */
	check_status(CMP_LZ4_RAW, lz4_cli_frame, sizeof(lz4_cli_frame), n,
				 CMP_ERR_CORRUPT, "lz4 frame as LZ4_RAW");

	n = strlen(brotli_cli_text);
	check_decodes_to(CMP_BROTLI, brotli_cli_stream, sizeof(brotli_cli_stream),
					 brotli_cli_text, n, "brotli CLI");
	check_status(CMP_BROTLI, brotli_cli_stream, sizeof(brotli_cli_stream), n - 1,
				 CMP_ERR_SIZE_MISMATCH, "brotli short");
	check_status(CMP_BROTLI, brotli_cli_stream, sizeof(brotli_cli_stream), n + 1,
				 CMP_ERR_SIZE_MISMATCH, "brotli long");
	check_prefixes_fail(CMP_BROTLI, brotli_cli_stream, sizeof(brotli_cli_stream),
						n, 0, "brotli CLI truncated");
	{
		uint8_t		junk[sizeof(brotli_cli_stream) + 1];

		memcpy(junk, brotli_cli_stream, sizeof(brotli_cli_stream));
		junk[sizeof(brotli_cli_stream)] = 0;
		check_status(CMP_BROTLI, junk, sizeof(junk), n, CMP_ERR_CORRUPT, "brotli junk after");
	}
}

/* Snappy streams written byte by byte. */
static void
test_snappy_by_hand(void)
{
	/* varint 5, literal tag (5-1)<<2, "hello" */
	static const uint8_t literal[] = {0x05, 0x10, 'h', 'e', 'l', 'l', 'o'};

	/*
	 * "abcabcabcabc": varint 12, literal "abc" (tag (3-1)<<2), then a copy
	 * with 1-byte offset: tag bits 00000001 | (len-4)<<2 | (offset>>8)<<5
	 * with len 9, offset 3: 0x15, then the offset's low byte 0x03.
	 */
	static const uint8_t copy[] = {0x0c, 0x08, 'a', 'b', 'c', 0x15, 0x03};

	check_decodes_to(CMP_SNAPPY, literal, sizeof(literal), "hello", 5, "snappy literal");
	check_decodes_to(CMP_SNAPPY, copy, sizeof(copy), "abcabcabcabc", 12, "snappy copy");
	{
		/*
		 * 200 literal bytes: varint 200 = 0xc8 0x01, tag 60<<2 = 0xf0 says
		 * "length - 1 in the next byte", 199.
		 */
		uint8_t		buf[4 + 200];
		uint8_t		text200[200];

		buf[0] = 0xc8;
		buf[1] = 0x01;
		buf[2] = 0xf0;
		buf[3] = 199;
		for (int i = 0; i < 200; i++)
			text200[i] = buf[4 + i] = (uint8_t) ('A' + i % 26);
		check_decodes_to(CMP_SNAPPY, buf, sizeof(buf), text200, 200, "snappy long literal");
		check_prefixes_fail(CMP_SNAPPY, buf, sizeof(buf), 200, 0, "snappy long literal truncated");
	}

	/* declared 5, asked for 4 or 6: valid stream, wrong size */
	check_status(CMP_SNAPPY, literal, sizeof(literal), 4, CMP_ERR_SIZE_MISMATCH, "snappy short");
	check_status(CMP_SNAPPY, literal, sizeof(literal), 6, CMP_ERR_SIZE_MISMATCH, "snappy long");
	check_prefixes_fail(CMP_SNAPPY, literal, sizeof(literal), 5, 0, "snappy literal truncated");
	{
		/* declares 6 but holds 5: corrupt, whatever out_len */
		uint8_t		lie[sizeof(literal)];

		memcpy(lie, literal, sizeof(lie));
		lie[0] = 6;
		check_status(CMP_SNAPPY, lie, sizeof(lie), 6, CMP_ERR_CORRUPT, "snappy length lie");
		check_status(CMP_SNAPPY, lie, sizeof(lie), 5, CMP_ERR_CORRUPT, "snappy length lie 5");
	}
	{
		/* copy offset 4 before 3 bytes exist */
		uint8_t		bad[sizeof(copy)];

		memcpy(bad, copy, sizeof(bad));
		bad[6] = 0x04;
		check_status(CMP_SNAPPY, bad, sizeof(bad), 12, CMP_ERR_CORRUPT, "snappy far offset");
		bad[6] = 0x00;
		check_status(CMP_SNAPPY, bad, sizeof(bad), 12, CMP_ERR_CORRUPT, "snappy zero offset");
	}
	{
		/* an over-long varint */
		static const uint8_t varint[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00};

		check_status(CMP_SNAPPY, varint, sizeof(varint), 5, CMP_ERR_CORRUPT, "snappy varint");
	}
}

/*
 * Our snappy decoder against libsnappy's: streams libsnappy wrote from data
 * shaped like Parquet pages (slowly growing integers, short repeats,
 * overlapping runs, random bytes, at sizes around the decoder's 8- and
 * 16-byte moves) decode to the input, and every truncation and many
 * single-byte corruptions of them get the same verdict from both, with the
 * same bytes when both accept.
 */
static void
test_snappy_against_libsnappy(void)
{
	static const size_t sizes[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 64, 65, 100, 1000, 70000};
	uint64_t	rng = 0x9e3779b97f4a7c15ULL;
	int			mismatches = 0;

	for (int shape = 0; shape < 5; shape++)
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		{
			size_t		n = sizes[si];
			uint8_t    *in = malloc(n + 1);
			size_t		clen = snappy_max_compressed_length(n);
			uint8_t    *comp = malloc(clen);
			uint8_t    *ours = malloc(n + 1);
			uint8_t    *theirs = malloc(n + 1);

			for (size_t i = 0; i < n; i++)
			{
				rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
				switch (shape)
				{
					case 0:		/* little-endian int64s growing by 0..15 */
						in[i] = (uint8_t) (i % 8 == 0 ? rng >> 60 : (i / 8 * 13) >> (8 * (i % 8)));
						break;
					case 1:		/* random bytes */
						in[i] = (uint8_t) (rng >> 56);
						break;
					case 2:		/* runs of one byte (overlapping copies) */
						in[i] = (uint8_t) ((i / 37) & 3);
						break;
					case 3:		/* a 3-byte pattern with rare noise */
						in[i] = (uint8_t) ((rng >> 58) == 0 ? rng >> 40 : "abc"[i % 3]);
						break;
					default:	/* doubles with few distinct values */
						in[i] = (uint8_t) ((i % 8 < 4) ? 0 : ((rng >> 62) * 17 + i % 8));
						break;
				}
			}
			UNIT_CHECK(snappy_compress((const char *) in, n, (char *) comp, &clen) == SNAPPY_OK);
			UNIT_CHECKF(cmp_decompress(CMP_SNAPPY, comp, clen, ours, n) == CMP_OK &&
						memcmp(ours, in, n) == 0,
						"snappy shape %d size %zu does not round-trip", shape, n);
			/* (no bytes for no bytes is cmp_decompress's own case) */
			for (size_t cut = n > 0 ? 0 : clen; cut < clen; cut += (clen > 200 ? clen / 97 + 1 : 1))
				if (cmp_decompress(CMP_SNAPPY, comp, cut, ours, n) == CMP_OK)
					mismatches++;	/* libsnappy rejects every prefix */
			for (int k = 0; k < 300 && clen > 0; k++)
			{
				size_t		pos;
				uint8_t		saved;
				size_t		tlen = n;
				bool		lib_ok;
				bool		our_ok;

				rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
				pos = (size_t) (rng >> 33) % clen;
				saved = comp[pos];
				comp[pos] ^= (uint8_t) (1u << ((rng >> 20) & 7));
				lib_ok = snappy_uncompress((const char *) comp, clen, (char *) theirs, &tlen) == SNAPPY_OK &&
					tlen == n;
				our_ok = cmp_decompress(CMP_SNAPPY, comp, clen, ours, n) == CMP_OK;
				if (lib_ok != our_ok || (lib_ok && memcmp(ours, theirs, n) != 0))
					mismatches++;
				comp[pos] = saved;
			}
			free(in);
			free(comp);
			free(ours);
			free(theirs);
		}
	UNIT_CHECKF(mismatches == 0, "%d snappy streams decoded differently from libsnappy", mismatches);
}

/* LZ4 blocks written byte by byte. */
static void
test_lz4_by_hand(void)
{
	/* token 0x50: 5 literals, no match: the whole block is "hello" */
	static const uint8_t literal[] = {0x50, 'h', 'e', 'l', 'l', 'o'};

	/*
	 * "abcd" x 4 + "12345": token 0x48 (4 literals, match length 4+8=12),
	 * "abcd", offset 4 little-endian, then token 0x50 with the 5 final
	 * literals the format requires at the end.
	 */
	static const uint8_t match[] = {
		0x48, 'a', 'b', 'c', 'd', 0x04, 0x00, 0x50, '1', '2', '3', '4', '5'
	};
	static const char match_text[] = "abcdabcdabcdabcd12345";

	check_decodes_to(CMP_LZ4_RAW, literal, sizeof(literal), "hello", 5, "lz4 literal");
	check_decodes_to(CMP_LZ4_RAW, match, sizeof(match), match_text, 21, "lz4 match");
	/* a bare block under codec 5 (old parquet-cpp) */
	check_decodes_to(CMP_LZ4_HADOOP, match, sizeof(match), match_text, 21,
					 "lz4 raw block under codec 5");
	for (int codec = CMP_LZ4_HADOOP; codec <= CMP_LZ4_RAW; codec += 2)
	{
		check_status(codec, match, sizeof(match), 20, CMP_ERR_SIZE_MISMATCH, "lz4 short");
		check_status(codec, match, sizeof(match), 22, CMP_ERR_SIZE_MISMATCH, "lz4 long");
		check_status(codec, match, sizeof(match), 1000, CMP_ERR_SIZE_MISMATCH, "lz4 longer");
		check_status(codec, match, sizeof(match) - 1, 21, CMP_ERR_CORRUPT, "lz4 truncated");
	}
	{
		uint8_t		bad[sizeof(match)];

		memcpy(bad, match, sizeof(bad));
		bad[5] = 5;				/* offset 5 before 4 bytes exist */
		check_status(CMP_LZ4_RAW, bad, sizeof(bad), 21, CMP_ERR_CORRUPT, "lz4 far offset");
		/*
		 * Offset 0 is invalid by the format, but liblz4 1.9 decodes it (as
		 * a copy of not yet written output, all inside out): only check that
		 * nothing lands past out_len.
		 */
		bad[5] = 0;
		(void) guarded_decompress(CMP_LZ4_RAW, bad, sizeof(bad), 21, NULL);
		/* under codec 5 a bare block must be well formed to be taken */
		check_status(CMP_LZ4_HADOOP, bad, sizeof(bad), 21, CMP_ERR_CORRUPT,
					 "lz4 zero offset, codec 5");
	}
}

/* Hadoop framing assembled here around LZ4_compress_default() blocks. */
static size_t
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) (v >> 24);
	p[1] = (uint8_t) (v >> 16);
	p[2] = (uint8_t) (v >> 8);
	p[3] = (uint8_t) v;
	return 4;
}

/*
 * Frame data as Hadoop blocks of block_len input bytes each, every block
 * cut into chunks of chunk_len input bytes.
 */
static size_t
hadoop_frame(const uint8_t *data, size_t len, size_t block_len, size_t chunk_len,
			 uint8_t *out)
{
	size_t		op = 0;

	for (size_t b = 0; b < len; b += block_len)
	{
		size_t		bl = len - b < block_len ? len - b : block_len;

		op += put_be32(out + op, (uint32_t) bl);
		for (size_t c = 0; c < bl; c += chunk_len)
		{
			size_t		cl = bl - c < chunk_len ? bl - c : chunk_len;
			int			n = LZ4_compress_default((const char *) data + b + c,
												 (char *) out + op + 4, (int) cl,
												 LZ4_compressBound((int) cl));

			op += put_be32(out + op, (uint32_t) n);
			op += (size_t) n;
		}
	}
	return op;
}

static void
test_lz4_hadoop_and_frames(void)
{
	size_t		len = 300000;
	uint8_t    *data = make_text(len, 7);
	uint8_t    *framed = malloc(2 * len);
	size_t		n;

	/* one block, one chunk (Arrow's writer) */
	n = hadoop_frame(data, len, len, len, framed);
	check_decodes_to(CMP_LZ4_HADOOP, framed, n, data, len, "hadoop 1 block");
	/* several blocks (Arrow/parquet-mr multi-frame) */
	n = hadoop_frame(data, len, 65536, 65536, framed);
	check_decodes_to(CMP_LZ4_HADOOP, framed, n, data, len, "hadoop several blocks");
	check_status(CMP_LZ4_HADOOP, framed, n, len - 1, CMP_ERR_SIZE_MISMATCH, "hadoop short");
	check_status(CMP_LZ4_HADOOP, framed, n, len + 1, CMP_ERR_SIZE_MISMATCH, "hadoop long");
	check_status(CMP_LZ4_HADOOP, framed, n - 1, len, CMP_ERR_CORRUPT, "hadoop truncated");
	check_status(CMP_LZ4_HADOOP, framed, n - 70000, len, CMP_ERR_CORRUPT,
				 "hadoop truncated a block");
	/* blocks holding several chunks (Hadoop's BlockCompressorStream) */
	n = hadoop_frame(data, len, 100000, 30000, framed);
	check_decodes_to(CMP_LZ4_HADOOP, framed, n, data, len, "hadoop multi-chunk blocks");
	check_status(CMP_LZ4_HADOOP, framed, n, len + 7, CMP_ERR_SIZE_MISMATCH,
				 "hadoop multi-chunk long");

	/*
	 * Small Hadoop streams asked for a few bytes more: read as a bare block
	 * they start with offset 0, which liblz4 would happily "decode" (found
	 * by fuzz_compress_roundtrip); they must stay size mismatches.
	 */
	for (size_t small = 2; small <= 402; small += 4)
	{
		uint8_t    *zeros = calloc(small, 1);

		/* at 102 bytes, the fuzzer's finding: a few set bytes among zeros */
		if (small == 102)
		{
			memset(zeros + 19, 0xff, 3);
			zeros[22] = 0x03;
			zeros[32] = 0x40;
			memset(zeros + 54, 0xff, 5);
		}
		uint8_t    *f = malloc(small * 2 + 64);
		size_t		fn = 0;

		UNIT_CHECK(cmp_compress(CMP_LZ4_HADOOP, 0, zeros, small, f, small * 2 + 64, &fn) == CMP_OK);
		for (size_t extra = 1; extra <= 3; extra++)
			check_status(CMP_LZ4_HADOOP, f, fn, small + extra, CMP_ERR_SIZE_MISMATCH,
						 "hadoop zeros, long");
		check_status(CMP_LZ4_HADOOP, f, fn, small - 1, CMP_ERR_SIZE_MISMATCH,
					 "hadoop zeros, short");
		free(zeros);
		free(f);
	}

	/* sizes that lie */
	{
		size_t		small = 5000;
		uint8_t    *f = malloc(small * 2);
		size_t		fn = hadoop_frame(data, small, small, small, f);

		check_decodes_to(CMP_LZ4_HADOOP, f, fn, data, small, "hadoop small");
		put_be32(f, (uint32_t) small + 1);	/* uncompressed size too big */
		check_status(CMP_LZ4_HADOOP, f, fn, small, CMP_ERR_CORRUPT, "hadoop usize+1");
		check_status(CMP_LZ4_HADOOP, f, fn, small + 1, CMP_ERR_CORRUPT, "hadoop usize+1 b");
		put_be32(f, (uint32_t) small - 1);	/* too small */
		check_status(CMP_LZ4_HADOOP, f, fn, small, CMP_ERR_CORRUPT, "hadoop usize-1");
		put_be32(f, 0xffffffffu);
		check_status(CMP_LZ4_HADOOP, f, fn, small, CMP_ERR_CORRUPT, "hadoop usize huge");
		put_be32(f, (uint32_t) small);
		put_be32(f + 4, (uint32_t) (fn - 8 + 1));	/* compressed size too big */
		check_status(CMP_LZ4_HADOOP, f, fn, small, CMP_ERR_CORRUPT, "hadoop csize+1");
		put_be32(f + 4, (uint32_t) (fn - 8 - 1));	/* too small */
		check_status(CMP_LZ4_HADOOP, f, fn, small, CMP_ERR_CORRUPT, "hadoop csize-1");
		put_be32(f + 4, 0x7fffffffu);
		check_status(CMP_LZ4_HADOOP, f, fn, small, CMP_ERR_CORRUPT, "hadoop csize huge");
		put_be32(f + 4, (uint32_t) (fn - 8));
		check_decodes_to(CMP_LZ4_HADOOP, f, fn, data, small, "hadoop repaired");
		free(f);
	}

	/* our own Hadoop writer's output, read back as Hadoop blocks by hand */
	{
		size_t		bound = cmp_compress_bound(CMP_LZ4_HADOOP, len);
		uint8_t    *c = malloc(bound);
		size_t		w = 0,
					ip = 0,
					total = 0;
		int			blocks = 0;
		bool		ok = true;
		uint8_t    *out = malloc(len);

		UNIT_CHECK(cmp_compress(CMP_LZ4_HADOOP, 0, data, len, c, bound, &w) == CMP_OK);
		while (ip + 8 <= w && ok)
		{
			uint32_t	ul = (uint32_t) c[ip] << 24 | c[ip + 1] << 16 | c[ip + 2] << 8 | c[ip + 3];
			uint32_t	cl = (uint32_t) c[ip + 4] << 24 | c[ip + 5] << 16 | c[ip + 6] << 8 | c[ip + 7];
			int			r;

			ip += 8;
			ok = cl <= w - ip && total + ul <= len;
			if (!ok)
				break;
			r = LZ4_decompress_safe((const char *) c + ip, (char *) out + total, (int) cl, (int) ul);
			ok = r == (int) ul;
			ip += cl;
			total += ul;
			blocks++;
		}
		UNIT_CHECKF(ok && ip == w && total == len && memcmp(out, data, len) == 0,
					"our Hadoop output does not parse as Hadoop blocks");
		UNIT_CHECKF(blocks == 2, "blocks %d", blocks);	/* 256 KiB blocks */
		free(c);
		free(out);
	}

	/* LZ4 frames from the LZ4F API under codec 5, with checksums, two frames */
	{
		LZ4F_preferences_t prefs;
		size_t		cap = LZ4F_compressFrameBound(len, NULL) * 2 + 64;
		uint8_t    *f = malloc(cap);
		size_t		f1,
					f2;

		memset(&prefs, 0, sizeof(prefs));
		prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
		prefs.frameInfo.blockSizeID = LZ4F_max64KB;
		f1 = LZ4F_compressFrame(f, cap, data, 200000, &prefs);
		UNIT_CHECK(!LZ4F_isError(f1));
		f2 = LZ4F_compressFrame(f + f1, cap - f1, data + 200000, len - 200000, NULL);
		UNIT_CHECK(!LZ4F_isError(f2));
		check_decodes_to(CMP_LZ4_HADOOP, f, f1, data, 200000, "LZ4F frame");
		check_decodes_to(CMP_LZ4_HADOOP, f, f1 + f2, data, len, "two LZ4F frames");
		check_status(CMP_LZ4_HADOOP, f, f1 + f2, len - 1, CMP_ERR_SIZE_MISMATCH, "LZ4F short");
		check_status(CMP_LZ4_HADOOP, f, f1 + f2, len + 1, CMP_ERR_SIZE_MISMATCH, "LZ4F long");
		check_status(CMP_LZ4_HADOOP, f, f1 + f2 - 1, len, CMP_ERR_CORRUPT, "LZ4F truncated");
		f[f1 / 2] ^= 0x40;		/* content checksum catches a flipped byte */
		UNIT_CHECK(guarded_decompress(CMP_LZ4_HADOOP, f, f1, 200000, NULL) != CMP_OK);
		free(f);
	}
	free(data);
	free(framed);
}

/* Other library APIs as references for gzip, zstd and brotli. */
static void
test_library_references(void)
{
	size_t		len = 200000;
	uint8_t    *data = make_text(len, 11);
	uint8_t    *buf = malloc(2 * len + 1024);

	/* zlib header via compress2() */
	{
		uLongf		n = 2 * len + 1024;

		UNIT_CHECK(compress2(buf, &n, data, len, 6) == Z_OK);
		check_decodes_to(CMP_GZIP, buf, n, data, len, "zlib header (compress2)");
		check_status(CMP_GZIP, buf, n - 1, len, CMP_ERR_CORRUPT, "zlib truncated adler");
		buf[n - 1] ^= 1;
		check_status(CMP_GZIP, buf, n, len, CMP_ERR_CORRUPT, "zlib bad adler");
	}
	/* two gzip members from deflate with a gzip header */
	{
		size_t		total = 0;

		for (int m = 0; m < 2; m++)
		{
			z_stream	zs;
			size_t		half = m == 0 ? 70000 : len - 70000;

			memset(&zs, 0, sizeof(zs));
			UNIT_CHECK(deflateInit2(&zs, 9 - m * 8, Z_DEFLATED, 31, 9, Z_FILTERED) == Z_OK);
			zs.next_in = data + (m == 0 ? 0 : 70000);
			zs.avail_in = (uInt) half;
			zs.next_out = buf + total;
			zs.avail_out = (uInt) (2 * len + 1024 - total);
			UNIT_CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END);
			total += zs.total_out;
			deflateEnd(&zs);
		}
		check_decodes_to(CMP_GZIP, buf, total, data, len, "two deflate gzip members");
		{
			/*
			 * An empty member between the two, and a third member with
			 * every optional header field (extra, name, comment, header
			 * CRC) and no data.
			 */
			uint8_t    *three = malloc(total + 200);
			z_stream	zs;
			gz_header	gh;
			size_t		first_len = 0;
			size_t		n;

			memset(&zs, 0, sizeof(zs));
			/* find the first member's end by inflating it alone */
			UNIT_CHECK(inflateInit2(&zs, 31) == Z_OK);
			zs.next_in = buf;
			zs.avail_in = (uInt) total;
			{
				uint8_t    *sink = malloc(len);

				zs.next_out = sink;
				zs.avail_out = (uInt) len;
				UNIT_CHECK(inflate(&zs, Z_FINISH) == Z_STREAM_END);
				UNIT_CHECK(zs.total_out == 70000);
				first_len = total - zs.avail_in;
				inflateEnd(&zs);
				free(sink);
			}

			memcpy(three, buf, first_len);
			n = first_len;
			memset(&zs, 0, sizeof(zs));
			UNIT_CHECK(deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK);
			zs.next_out = three + n;
			zs.avail_out = 100;
			UNIT_CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END);
			n += zs.total_out;
			deflateEnd(&zs);
			memcpy(three + n, buf + first_len, total - first_len);
			n += total - first_len;

			memset(&zs, 0, sizeof(zs));
			memset(&gh, 0, sizeof(gh));
			gh.extra = (Bytef *) "xtra";
			gh.extra_len = 4;
			gh.name = (Bytef *) "page.bin";
			gh.comment = (Bytef *) "a comment";
			gh.hcrc = 1;
			UNIT_CHECK(deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK);
			UNIT_CHECK(deflateSetHeader(&zs, &gh) == Z_OK);
			zs.next_out = three + n;
			zs.avail_out = 100;
			UNIT_CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END);
			n += zs.total_out;
			deflateEnd(&zs);

			UNIT_CHECK(first_len > 0 && first_len < total);
			check_decodes_to(CMP_GZIP, three, n, data, len, "members with an empty one");
			three[n - 15] ^= 0x01;	/* inside the last member's header */
			check_status(CMP_GZIP, three, n, len, CMP_ERR_CORRUPT, "bad header crc");
			free(three);
		}
		check_status(CMP_GZIP, buf, total, len - 1, CMP_ERR_SIZE_MISMATCH, "members short");
		check_status(CMP_GZIP, buf, total, len + 1, CMP_ERR_SIZE_MISMATCH, "members long");
	}
	/* zstd streaming API: no content size, 3 blocks, a skippable frame */
	{
		ZSTD_CCtx  *cc = ZSTD_createCCtx();
		ZSTD_outBuffer ob = {buf, 2 * len + 1024, 0};
		ZSTD_inBuffer ib = {data, len, 0};
		size_t		rem;

		/* skippable frame first: magic 0x184D2A50, 4-byte size, payload */
		static const uint8_t skip[] = {0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9};

		memcpy(buf, skip, sizeof(skip));
		ob.pos = sizeof(skip);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 5);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
		ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_continue);
		do
			rem = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end);
		while (rem > 0 && !ZSTD_isError(rem));
		UNIT_CHECK(rem == 0);
		UNIT_CHECK(ZSTD_getFrameContentSize(buf + sizeof(skip), ob.pos - sizeof(skip)) ==
				   ZSTD_CONTENTSIZE_UNKNOWN);
		check_decodes_to(CMP_ZSTD, buf, ob.pos, data, len, "zstd stream, skippable frame");
		check_status(CMP_ZSTD, buf, ob.pos, len - 1, CMP_ERR_SIZE_MISMATCH, "zstd stream short");
		check_status(CMP_ZSTD, buf, ob.pos, len + 1, CMP_ERR_SIZE_MISMATCH, "zstd stream long");
		check_status(CMP_ZSTD, buf, ob.pos - 1, len, CMP_ERR_CORRUPT, "zstd stream truncated");
		buf[ob.pos - 1] ^= 1;	/* checksum */
		check_status(CMP_ZSTD, buf, ob.pos, len, CMP_ERR_CORRUPT, "zstd bad checksum");
		ZSTD_freeCCtx(cc);
	}
	/* brotli encoder with a large window, in a mode we never write */
	{
		size_t		n = 2 * len + 1024;

		UNIT_CHECK(BrotliEncoderCompress(4, 24, BROTLI_MODE_TEXT, len, data, &n, buf));
		check_decodes_to(CMP_BROTLI, buf, n, data, len, "brotli text mode");
		check_status(CMP_BROTLI, buf, n, len - 1, CMP_ERR_SIZE_MISMATCH, "brotli short");
		check_status(CMP_BROTLI, buf, n, len + 1, CMP_ERR_SIZE_MISMATCH, "brotli long");
		check_status(CMP_BROTLI, buf, n - 1, len, CMP_ERR_CORRUPT, "brotli truncated");
	}
	free(data);
	free(buf);
}

/* ---------------------------------------------------------------------- */
/* Hostile input */

static void
test_garbage(void)
{
	uint8_t		ff[64];
	uint64_t	seed = 12345;
	int			ok_count[CMP_CODEC_COUNT] = {0};

	memset(ff, 0xff, sizeof(ff));
	for (int i = 1; i < N_CODECS; i++)
		check_status(all_codecs[i], ff, sizeof(ff), 100, CMP_ERR_CORRUPT, "all 0xff");

	/* random bytes of random lengths into random sizes: never OK, no crash */
	for (int round = 0; round < 3000; round++)
	{
		size_t		in_len = 1 + unit_rand(&seed) % 300;
		size_t		out_len = unit_rand(&seed) % 2000;
		uint8_t    *in = make_random(in_len, unit_rand(&seed));
		int			c = all_codecs[1 + round % (N_CODECS - 1)];

		if (guarded_decompress(c, in, in_len, out_len, NULL) == CMP_OK)
			ok_count[c]++;
		free(in);
	}
	for (int c = 0; c < CMP_CODEC_COUNT; c++)
		UNIT_CHECKF(ok_count[c] == 0, "%s decoded random bytes %d times",
					cmp_codec_name(c), ok_count[c]);

	/* valid streams with bytes flipped: never past out_len, never a crash */
	{
		size_t		len = 4000;
		uint8_t    *data = make_text(len, 5);

		for (int i = 1; i < N_CODECS; i++)
		{
			int			c = all_codecs[i];
			size_t		bound = cmp_compress_bound(c, len);
			uint8_t    *comp = malloc(bound);
			size_t		w = 0;

			UNIT_CHECK(cmp_compress(c, 0, data, len, comp, bound, &w) == CMP_OK);
			for (int round = 0; round < 300; round++)
			{
				uint8_t    *mut = malloc(w);

				memcpy(mut, comp, w);
				for (int k = 0; k < 1 + round % 4; k++)
					mut[unit_rand(&seed) % w] ^= (uint8_t) (1 + unit_rand(&seed) % 255);
				(void) guarded_decompress(c, mut, w, len, NULL);
				free(mut);
			}
			free(comp);
		}
		free(data);
	}
}

/* ---------------------------------------------------------------------- */
/* The Parquet test corpus */

/*
 * Just enough of Thrift's compact protocol to walk page headers: read
 * field headers, integers, skip everything else.
 */
typedef struct Tcp
{
	const uint8_t *p;
	const uint8_t *end;
	bool		bad;
} Tcp;

static uint64_t
tcp_varint(Tcp *t)
{
	uint64_t	v = 0;

	for (int shift = 0; shift < 64; shift += 7)
	{
		uint8_t		b;

		if (t->p >= t->end)
		{
			t->bad = true;
			return 0;
		}
		b = *t->p++;
		v |= (uint64_t) (b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	t->bad = true;
	return 0;
}

static int64_t
tcp_zigzag(Tcp *t)
{
	uint64_t	v = tcp_varint(t);

	return (int64_t) (v >> 1) ^ -(int64_t) (v & 1);
}

static void tcp_skip(Tcp *t, int type, int depth);

static void
tcp_skip_struct(Tcp *t, int depth)
{
	while (!t->bad && t->p < t->end)
	{
		uint8_t		h = *t->p++;

		if (h == 0)
			return;
		if ((h >> 4) == 0)
			(void) tcp_zigzag(t);	/* long-form field id */
		tcp_skip(t, h & 0x0f, depth + 1);
	}
	t->bad = true;
}

static void
tcp_skip(Tcp *t, int type, int depth)
{
	if (depth > 32)
	{
		t->bad = true;
		return;
	}
	switch (type)
	{
		case 1:					/* bool true */
		case 2:					/* bool false */
			return;
		case 3:					/* byte */
			t->p++;
			return;
		case 4:					/* i16 */
		case 5:					/* i32 */
		case 6:					/* i64 */
			(void) tcp_varint(t);
			return;
		case 7:					/* double */
			t->p += 8;
			return;
		case 8:					/* binary */
			{
				uint64_t	n = tcp_varint(t);

				if (n > (uint64_t) (t->end - t->p))
					t->bad = true;
				else
					t->p += n;
				return;
			}
		case 9:					/* list */
		case 10:				/* set */
			{
				uint8_t		h;
				uint64_t	n;

				if (t->p >= t->end)
				{
					t->bad = true;
					return;
				}
				h = *t->p++;
				n = h >> 4;
				if (n == 15)
					n = tcp_varint(t);
				for (uint64_t i = 0; i < n && !t->bad; i++)
					tcp_skip(t, h & 0x0f, depth + 1);
				return;
			}
		case 12:				/* struct */
			tcp_skip_struct(t, depth);
			return;
		default:				/* maps never occur in a page header */
			t->bad = true;
	}
}

typedef struct PageInfo
{
	int			type;
	int64_t		uncompressed;
	int64_t		compressed;
	int64_t		levels_len;		/* v2: uncompressed level bytes up front */
	bool		v2_compressed;
} PageInfo;

/* Read a PageHeader; the v2 header's fields 5, 6, 7 give the level bytes. */
static bool
read_page_header(Tcp *t, PageInfo *pi)
{
	int			last = 0;

	memset(pi, 0, sizeof(*pi));
	pi->v2_compressed = true;
	while (!t->bad && t->p < t->end)
	{
		uint8_t		h = *t->p++;
		int			type = h & 0x0f;
		int			id;

		if (h == 0)
			return true;
		id = (h >> 4) ? last + (h >> 4) : (int) tcp_zigzag(t);
		last = id;
		if (id >= 1 && id <= 3 && type == 5)
		{
			int64_t		v = tcp_zigzag(t);

			if (id == 1)
				pi->type = (int) v;
			else if (id == 2)
				pi->uncompressed = v;
			else
				pi->compressed = v;
		}
		else if (id == 8 && type == 12)
		{
			int			l2 = 0;

			while (!t->bad && t->p < t->end)
			{
				uint8_t		h2 = *t->p++;
				int			id2;

				if (h2 == 0)
					break;
				id2 = (h2 >> 4) ? l2 + (h2 >> 4) : (int) tcp_zigzag(t);
				l2 = id2;
				if ((id2 == 5 || id2 == 6) && (h2 & 0x0f) == 5)
					pi->levels_len += tcp_zigzag(t);
				else if (id2 == 7 && ((h2 & 0x0f) == 1 || (h2 & 0x0f) == 2))
					pi->v2_compressed = (h2 & 0x0f) == 1;
				else
					tcp_skip(t, h2 & 0x0f, 1);
			}
		}
		else
			tcp_skip(t, type, 0);
	}
	return false;
}

static uint8_t *
read_whole_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *buf;
	long		n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t) n);
	if (fread(buf, 1, (size_t) n, f) != (size_t) n)
	{
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t) n;
	return buf;
}

/*
 * Decompress every page of a single-codec file, walking page headers from
 * offset 4 up to the first thing that is not a page header; returns the
 * number of pages decoded exactly.  If first_page is not NULL it gets a
 * copy of the first data page's decoded values section.
 */
static const char *
corpus_root(void)
{
	const char *env = getenv("PARQUET_TESTING_DIR");

	return env != NULL && env[0] != '\0' ? env : "../../shared/parquet-testing";
}

static int
corpus_pages(const char *name, int codec, int hadoop, uint8_t **first_page,
			 size_t *first_len)
{
	char		path[512];
	size_t		file_len;
	uint8_t    *file;
	Tcp			t;
	int			pages = 0;

	snprintf(path, sizeof(path), "%s/data/%s", corpus_root(), name);
	file = read_whole_file(path, &file_len);
	if (file == NULL || file_len < 12)
	{
		free(file);
		return -1;
	}
	t.p = file + 4;
	t.end = file + file_len - 8;
	t.bad = false;
	for (;;)
	{
		PageInfo	pi;
		const uint8_t *body;
		size_t		skip;
		CmpStatus	st;
		uint8_t    *out;

		if (!read_page_header(&t, &pi) || pi.compressed < 0 || pi.uncompressed < 0 ||
			pi.compressed > t.end - t.p || pi.type < 0 || pi.type > 3)
			break;
		body = t.p;
		t.p += pi.compressed;
		skip = (size_t) pi.levels_len;
		if (skip > (size_t) pi.compressed || skip > (size_t) pi.uncompressed)
			break;
		/*
		 * hadoop 1: every page is one Hadoop block of one chunk, so the
		 * Hadoop path is the one tested; 0: none is (the fallbacks are).
		 */
		if (hadoop >= 0 && pi.compressed >= 8)
		{
			uint32_t	ul = (uint32_t) body[0] << 24 | body[1] << 16 | body[2] << 8 | body[3];
			uint32_t	cl = (uint32_t) body[4] << 24 | body[5] << 16 | body[6] << 8 | body[7];
			bool		framed = ul == pi.uncompressed && cl == pi.compressed - 8;

			UNIT_CHECKF(framed == (hadoop == 1), "%s page %d: Hadoop framed %d",
						name, pages, framed);
		}
		st = guarded_decompress(pi.v2_compressed ? codec : CMP_UNCOMPRESSED,
								body + skip, (size_t) pi.compressed - skip,
								(size_t) pi.uncompressed - skip, &out);
		UNIT_CHECKF(st == CMP_OK, "%s page %d: %s", name, pages, cmp_status_message(st));
		if (st == CMP_OK && first_page != NULL && *first_page == NULL && pi.type != 2)
		{
			*first_page = out;
			*first_len = (size_t) pi.uncompressed - skip;
		}
		else
			free(out);
		pages++;
	}
	free(file);
	return pages;
}

static void
test_corpus(void)
{
	struct
	{
		const char *name;
		int			codec;
		int			min_pages;
		int			hadoop;		/* pages Hadoop framed: 1 all, 0 none, -1 n/a */
	}			files[] = {
		{"concatenated_gzip_members.parquet", CMP_GZIP, 1, -1},
		{"hadoop_lz4_compressed.parquet", CMP_LZ4_HADOOP, 3, 1},
		{"hadoop_lz4_compressed_larger.parquet", CMP_LZ4_HADOOP, 1, 1},
		{"non_hadoop_lz4_compressed.parquet", CMP_LZ4_HADOOP, 3, 0},
		{"lz4_raw_compressed.parquet", CMP_LZ4_RAW, 3, -1},
		{"lz4_raw_compressed_larger.parquet", CMP_LZ4_RAW, 1, -1},
		{"datapage_v2.snappy.parquet", CMP_SNAPPY, 2, -1},
		{"byte_stream_split.zstd.parquet", CMP_ZSTD, 2, -1},
	};
	int			found = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
	{
		uint8_t    *first = NULL;
		size_t		first_len = 0;
		int			pages = corpus_pages(files[i].name, files[i].codec, files[i].hadoop,
										 &first, &first_len);

		if (pages < 0)
			continue;			/* not in this copy of the corpus */
		found++;
		UNIT_CHECKF(pages >= files[i].min_pages, "%s: %d pages", files[i].name, pages);
		printf("corpus %s: %d pages decompressed\n", files[i].name, pages);

		/* the gzip file's page holds 513 PLAIN uint64s, 1..513 by its CSV */
		if (i == 0)
			UNIT_CHECK(first != NULL);
		if (i == 0 && first != NULL)
		{
			bool		ok = first_len == 513 * 8;

			for (uint64_t v = 0; ok && v < 513; v++)
			{
				uint64_t	x;

				memcpy(&x, first + v * 8, 8);
				ok = x == v + 1;
			}
			UNIT_CHECKF(ok, "concatenated gzip values differ from the CSV (len %zu)", first_len);
		}
		free(first);
	}
	if (found == 0)
		printf("corpus: %s not found, skipped\n", corpus_root());
}

int
main(void)
{
	test_names_and_versions();
	test_unsupported();
	test_empty();
	test_snappy_by_hand();
	test_snappy_against_libsnappy();
	test_lz4_by_hand();
	test_cli_references();
	test_library_references();
	test_lz4_hadoop_and_frames();
	test_garbage();
	test_corpus();
	test_round_trips();
	UNIT_MAIN_END("test_compress");
}
