/*-------------------------------------------------------------------------
 *
 * test_amudai_alp_limits.c
 *	  ALP and ALPRD count their exceptions in a u16 (format notes 4.2), so a
 *	  block of 65,536 values can hold more exceptions than the field says.
 *	  The writer must then pick another encoding; the reader must reject a
 *	  section whose count disagrees with its exception bytes.
 *
 * Blocks where every value is an exception: 65,536 values (the largest
 * block the writer accepts: block_values may be up to 65,536) written with
 * AM_ENC_ALP and with AM_WRITER_ENC_AUTO come back bit for bit and are not
 * ALP; 65,535 exceptions still fit and are ALP.  Hand-built sections with
 * a wrapped or an overstated count fail with AM_ERR_CORRUPT.
 *
 * IDENTIFICATION
 *	  test/unit/test_amudai_alp_limits.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "amudai_test_util.h"

#include <math.h>

#define BIG 65536

static double f64[BIG];
static float f32[BIG];

/* Doubles no decimal exponent turns into integers: random bit patterns
 * with a large binary exponent and a full mantissa. */
static void
fill_exceptions(uint64_t seed)
{
	for (int i = 0; i < BIG; i++)
	{
		uint64_t	r = unit_rand(&seed);
		uint64_t	bits = (r & UINT64_C(0x800FFFFFFFFFFFFF)) | UINT64_C(0x0001) |
			(uint64_t) (1500 + r % 400) << 52;
		uint32_t	b32 = (uint32_t) (r >> 32) | 1;

		memcpy(&f64[i], &bits, 8);
		b32 = (b32 & 0x807FFFFFu) | (uint32_t) (200 + (r >> 8) % 40) << 23;
		memcpy(&f32[i], &b32, 4);
	}
}

/* The value encoding of the first block of the column's DATA buffer. */
static int
first_block_encoding(const uint8_t *file, const AmStripeFieldDescriptor *sfd,
					 uint16_t *exceptions)
{
	for (uint32_t b = 0; b < sfd->num_buffers; b++)
		if (sfd->buffers[b].kind == AM_BUFFER_DATA)
		{
			const uint8_t *blk = file + sfd->buffers[b].buffer.start;
			uint32_t	psize;
			const uint8_t *sec;
			uint16_t	enc;

			memcpy(&psize, blk, 4);
			sec = blk + 8 + ((psize + 7) & ~7u);
			memcpy(&enc, sec, 2);
			if (enc == AM_ENC_ALP)
				memcpy(exceptions, sec + 6, 2);
			return enc;
		}
	return -1;
}

static void
write_and_check(AmBasicType type, int encoding, size_t rows, int exceptions_expected)
{
	AmWriterColumn c = {"x", type, false, 0, encoding,
	type == AM_TYPE_FLOAT64 ? (const void *) f64 : (const void *) f32};
	AmWriterOptions opt = {BIG, 0, false, true};
	uint8_t    *file = NULL;
	size_t		len = 0;
	AmError		err;
	AmStatus	st;
	MemFile		mf;
	PfcSource	src;
	AmShard    *shard;
	AmStripeFieldDescriptor sfd;
	AmFieldReader *fr;
	AmColumnBatch batch;
	bool		present;
	int			anchor,
				enc;
	uint16_t	exc = 0;
	size_t		width = type == AM_TYPE_FLOAT64 ? 8 : 4;
	const char *what = type == AM_TYPE_FLOAT64 ? "f64" : "f32";

	st = am_write_shard(&c, 1, rows, &opt, &pfc_malloc_allocator, &file, &len, &err);
	UNIT_CHECKF(st == AM_OK, "write: %s", err.message);
	if (st != AM_OK)
		return;
	mf = (MemFile) {file, len, 0};
	src = mem_source(&mf);
	st = am_shard_open(&shard, &src, NULL, &pfc_malloc_allocator, &err);
	UNIT_CHECK(st == AM_OK);
	if (st != AM_OK)
	{
		free(file);
		return;
	}
	st = am_shard_stripe_field(shard, 0, 0, &present, &sfd, &anchor, &err);
	UNIT_CHECK(st == AM_OK && present);
	enc = first_block_encoding(file, &sfd, &exc);
	if (exceptions_expected < 0)
		UNIT_CHECKF(enc != AM_ENC_ALP, "%s, %zu values, encoding %d: %d is not ALP",
					what, rows, encoding, enc);
	else
		UNIT_CHECKF(enc == AM_ENC_ALP && exc == exceptions_expected,
					"%s, %zu values: encoding %d, %u exceptions (expected ALP, %d)",
					what, rows, enc, exc, exceptions_expected);
	st = am_field_reader_open(&fr, shard, 0, 0, &err);
	UNIT_CHECKF(st == AM_OK, "reader: %s", err.message);
	if (st == AM_OK)
	{
		st = am_field_reader_read(fr, 0, rows, &batch, &err);
		UNIT_CHECKF(st == AM_OK, "read: %s", err.message);
		if (st == AM_OK)
			UNIT_CHECKF(batch.count == rows &&
						memcmp(batch.values, c.values, rows * width) == 0,
						"%s, %zu values: not bit-exact", what, rows);
		am_field_reader_close(fr);
	}
	am_shard_close(shard);
	free(file);
}

static void
test_writer_limits(void)
{
	fill_exceptions(5);
	/* 65,536 exceptions do not fit the u16: another encoding */
	write_and_check(AM_TYPE_FLOAT64, AM_ENC_ALP, BIG, -1);
	write_and_check(AM_TYPE_FLOAT32, AM_ENC_ALP, BIG, -1);
	write_and_check(AM_TYPE_FLOAT64, AM_WRITER_ENC_AUTO, BIG, -1);
	write_and_check(AM_TYPE_FLOAT32, AM_WRITER_ENC_AUTO, BIG, -1);
	/* 65,535 exceptions and one value ALP encodes: still ALP */
	f64[0] = 1.5;
	f32[0] = 1.5f;
	write_and_check(AM_TYPE_FLOAT64, AM_ENC_ALP, BIG, BIG - 1);
	write_and_check(AM_TYPE_FLOAT32, AM_ENC_ALP, BIG, BIG - 1);
}

/*
 * An ALP f32 section of n values, all exceptions, whose count field says
 * `count`: integers Plain i32 zeros, then n positions and n raw values.
 */
static void
alp_section(TBuf *s, uint32_t n, uint16_t count)
{
	tb_u16(s, AM_ENC_ALP);
	tb_u32(s, 2 + 4 * n);		/* integers_size */
	tb_u16(s, count);
	tb_byte(s, 0);
	tb_byte(s, 0);
	tb_zeros(s, 6);
	tb_u16(s, AM_ENC_PLAIN);
	tb_zeros(s, 4 * (size_t) n);
	for (uint32_t i = 0; i < n; i++)
		tb_u32(s, i);
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	bits;

		memcpy(&bits, &f32[i], 4);
		tb_u32(s, bits);
	}
}

/* The same for ALPRD f32: dictionary of one left part, every value an
 * exception (left parts stored raw as u16). */
static void
alprd_section(TBuf *s, uint32_t n, uint16_t count)
{
	tb_u16(s, AM_ENC_ALPRD);
	tb_u32(s, 2 + 2 * n);		/* left parts size */
	tb_u32(s, 2 + 4 * n);		/* right parts size */
	tb_u16(s, count);
	tb_byte(s, 16);				/* right bit width */
	tb_byte(s, 1);				/* dictionary length */
	tb_zeros(s, 2);
	tb_u16(s, 0x3F80);
	tb_u16(s, AM_ENC_PLAIN);
	tb_zeros(s, 2 * (size_t) n);
	tb_u16(s, AM_ENC_PLAIN);
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	bits;

		memcpy(&bits, &f32[i], 4);
		tb_u32(s, bits & 0xFFFF);
	}
	for (uint32_t i = 0; i < n; i++)
		tb_u32(s, i);
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	bits;

		memcpy(&bits, &f32[i], 4);
		tb_u16(s, (uint16_t) (bits >> 16));
	}
}

static AmStatus
decode_f32(const TBuf *s, size_t n, float *out)
{
	AmError		err;

	return am_decode_numeric(s->data, s->len, AM_NUM_F32, n, out, &pfc_malloc_allocator, &err);
}

static void
test_reader_limits(void)
{
	static float out[BIG];
	TBuf		s = {0};

	fill_exceptions(9);
	/* 65,535 exceptions, counted right: decodes exactly */
	alp_section(&s, BIG - 1, BIG - 1);
	UNIT_CHECK(decode_f32(&s, BIG - 1, out) == AM_OK &&
			   memcmp(out, f32, (BIG - 1) * 4) == 0);
	s.len = 0;
	alprd_section(&s, BIG - 1, BIG - 1);
	UNIT_CHECK(decode_f32(&s, BIG - 1, out) == AM_OK &&
			   memcmp(out, f32, (BIG - 1) * 4) == 0);
	/* 65,536 exceptions: the u16 wraps to 0 and the bytes disagree */
	s.len = 0;
	alp_section(&s, BIG, (uint16_t) BIG);
	UNIT_CHECK(decode_f32(&s, BIG, out) == AM_ERR_CORRUPT);
	s.len = 0;
	alprd_section(&s, BIG, (uint16_t) BIG);
	UNIT_CHECK(decode_f32(&s, BIG, out) == AM_ERR_CORRUPT);
	/* a count above the values, or below the bytes given */
	s.len = 0;
	alp_section(&s, 1000, 1001);
	UNIT_CHECK(decode_f32(&s, 1000, out) == AM_ERR_CORRUPT);
	s.len = 0;
	alp_section(&s, 1000, 999);
	UNIT_CHECK(decode_f32(&s, 1000, out) == AM_ERR_CORRUPT);
	s.len = 0;
	alprd_section(&s, 1000, 1001);
	UNIT_CHECK(decode_f32(&s, 1000, out) == AM_ERR_CORRUPT);
	s.len = 0;
	alprd_section(&s, 1000, 999);
	UNIT_CHECK(decode_f32(&s, 1000, out) == AM_ERR_CORRUPT);
	tb_free(&s);
}

/*
 * With AMUDAI_SEED_DIR set: fuzz_amudai_block seeds (bare value sections,
 * mode byte 8 = f32, then the u16 value count) of AM_WRITER_BLOCK_VALUES
 * values, every one an exception, for ALP and ALPRD, each with its count
 * right and one off.  Named alp_limits_*; test/fuzz/corpus/ keeps them
 * under the SHA-1 of their bytes.
 */
static void
write_seeds(void)
{
	const char *dir = getenv("AMUDAI_SEED_DIR");
	static const struct
	{
		const char *name;
		bool		rd;
		int			delta;
	}			seeds[] = {
		{"alp", false, 0}, {"alp_count_over", false, 1},
		{"alprd", true, 0}, {"alprd_count_under", true, -1},
	};
	uint32_t	n = AM_WRITER_BLOCK_VALUES;

	if (dir == NULL)
		return;
	fill_exceptions(11);
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
	{
		TBuf		s = {0};
		char		path[512];
		FILE	   *f;

		tb_byte(&s, 8);
		tb_u16(&s, (uint16_t) n);
		if (seeds[i].rd)
			alprd_section(&s, n, (uint16_t) (n + seeds[i].delta));
		else
			alp_section(&s, n, (uint16_t) (n + seeds[i].delta));
		snprintf(path, sizeof(path), "%s/alp_limits_%s", dir, seeds[i].name);
		f = fopen(path, "wb");
		UNIT_CHECKF(f != NULL && fwrite(s.data, 1, s.len, f) == s.len, "seed %s", path);
		if (f != NULL)
			fclose(f);
		tb_free(&s);
	}
}

int
main(void)
{
	test_writer_limits();
	test_reader_limits();
	write_seeds();
	UNIT_MAIN_END("test_amudai_alp_limits");
}
