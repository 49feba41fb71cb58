/*-------------------------------------------------------------------------
 *
 * test_rle.c
 *	  Unit tests of rle.c: streams built by hand from the grammar of
 *	  Encodings.md, round trips of runs of every length near the group
 *	  boundaries at every width on every ISA, batched and skipping decodes,
 *	  int16 levels, the length-prefixed form, hostile streams.
 *
 * IDENTIFICATION
 *	  test/unit/test_rle.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "codec_test_util.h"

#include "codec/codec.h"

#define MAXV	20000

static uint8_t stream[MAXV * 5 + 4096];
static uint32_t vals[MAXV];
static uint32_t got[MAXV + CDC_OUTPUT_SLACK];
static int16_t got16[MAXV + CDC_OUTPUT_SLACK];

/* Decode a whole stream in one call and compare. */
static CdcStatus
decode_all(const uint8_t *in, size_t len, unsigned w, uint32_t *out, size_t n)
{
	CdcRleDecoder dec;
	CdcStatus	st = cdc_rle_init(&dec, in, len, w);

	return st != CDC_OK ? st : cdc_rle_decode(&dec, out, n);
}

/*
 * Hand-made streams.  Encodings.md has no complete worked stream for the
 * hybrid, so these follow its grammar and its bit-packing example
 * (0..7 at width 3 = 88 C6 FA) byte by byte.
 */
static void
test_hand_streams(void)
{
	/* Literal run of one group (header (1 << 1) | 1 = 03), then a repeated
	 * run of 9 fives (header 9 << 1 = 0x12, value in one byte). */
	static const uint8_t s1[] = {0x03, 0x88, 0xC6, 0xFA, 0x12, 0x05};
	static const uint32_t v1[] = {0, 1, 2, 3, 4, 5, 6, 7, 5, 5, 5, 5, 5, 5, 5, 5, 5};
	/* The same with the 4-byte length prefix of v1 levels. */
	static const uint8_t s1p[] = {0x06, 0x00, 0x00, 0x00, 0x03, 0x88, 0xC6, 0xFA, 0x12, 0x05, 0xEE};
	/* Width 1 booleans: repeated run of 300 ones (header 600 = D8 04),
	 * then a literal group 0b01010101. */
	static const uint8_t s2[] = {0xD8, 0x04, 0x01, 0x03, 0x55};
	/* Width 12: repeated run of 2 x 0xABC stored in 2 bytes LE. */
	static const uint8_t s3[] = {0x04, 0xBC, 0x0A};
	uint8_t		buf[64 + CDC_INPUT_PADDING] = {0};
	uint8_t		enc[64];
	size_t		written = 0,
				consumed = 0;
	CdcRleDecoder dec;

	memcpy(buf, s1, sizeof(s1));
	UNIT_CHECK(decode_all(buf, sizeof(s1), 3, got, 17) == CDC_OK);
	UNIT_CHECK_MEM(got, v1, sizeof(v1));
	UNIT_CHECK(cdc_rle_encode(v1, 17, 3, enc, sizeof(enc), &written) == CDC_OK);
	UNIT_CHECK(written == sizeof(s1));
	UNIT_CHECK_MEM(enc, s1, sizeof(s1));
	/* 18th value: stream exhausted. */
	UNIT_CHECK(decode_all(buf, sizeof(s1), 3, got, 18) == CDC_ERR_TRUNCATED);

	memcpy(buf, s1p, sizeof(s1p));
	UNIT_CHECK(cdc_rle_init_prefixed(&dec, buf, sizeof(s1p), 3, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == 10);
	UNIT_CHECK(cdc_rle_decode(&dec, got, 17) == CDC_OK);
	UNIT_CHECK_MEM(got, v1, sizeof(v1));
	UNIT_CHECK(cdc_rle_decode(&dec, got, 1) == CDC_ERR_TRUNCATED);

	memset(buf, 0, sizeof(buf));
	memcpy(buf, s2, sizeof(s2));
	UNIT_CHECK(decode_all(buf, sizeof(s2), 1, got, 308) == CDC_OK);
	{
		int			ok = 1;

		for (int i = 0; i < 300; i++)
			ok &= got[i] == 1;
		for (int i = 0; i < 8; i++)
			ok &= got[300 + i] == (uint32_t) ((i + 1) % 2);
		UNIT_CHECK(ok);
	}
	memset(buf, 0, sizeof(buf));
	memcpy(buf, s3, sizeof(s3));
	UNIT_CHECK(decode_all(buf, sizeof(s3), 12, got, 2) == CDC_OK);
	UNIT_CHECK(got[0] == 0xABC && got[1] == 0xABC);
	UNIT_CHECK(cdc_rle_encode(got, 2, 12, enc, sizeof(enc), &written) == CDC_OK);
	/* Two values are too few for a repeated run: one padded literal group. */
	/* 0xABC, 0xABC at 12 bits LSB first: BC CA AB, then 6 zero values. */
	UNIT_CHECK(written == 1 + 12 && enc[0] == 0x03 && enc[1] == 0xBC && enc[2] == 0xCA &&
			   enc[3] == 0xAB && enc[4] == 0 && enc[12] == 0);
}

/* Build values made of runs whose lengths sit near group boundaries. */
static size_t
make_runs(uint32_t *v, size_t max, unsigned w, uint64_t *seed)
{
	static const size_t lens[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65,
	127, 128, 129, 255, 256, 257, 1000};
	uint32_t	mask = w == 32 ? UINT32_MAX : (uint32_t) ((UINT64_C(1) << w) - 1);
	size_t		n = 0;

	while (n < max)
	{
		size_t		len = lens[unit_rand(seed) % (sizeof(lens) / sizeof(lens[0]))];
		uint32_t	value = (unit_rand(seed) % 4 == 0) ? mask : (uint32_t) unit_rand(seed) & mask;
		int			literal = unit_rand(seed) % 2;

		for (size_t k = 0; k < len && n < max; k++)
			v[n++] = literal ? (uint32_t) unit_rand(seed) & mask : value;
	}
	return n;
}

static void
test_round_trips(GuardBuf *guard)
{
	uint64_t	seed = 777;
	unsigned long bad = 0,
				cases = 0;

	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		for (unsigned w = 0; w <= 32; w++)
		{
			for (int rep = 0; rep < 6; rep++)
			{
				size_t		n = make_runs(vals, rep == 0 ? 1 + unit_rand(&seed) % 40 : 1 + unit_rand(&seed) % MAXV, w, &seed);
				size_t		cap = cdc_rle_max_size(n, w);
				size_t		written = 0;
				const uint8_t *in;
				CdcRleDecoder dec;
				size_t		pos = 0;

				cases++;
				if (cdc_rle_encode(vals, n, w, stream, cap, &written) != CDC_OK || written > cap)
				{
					bad++;
					continue;
				}
				in = guarded_input(guard, stream, written);

				/* One call. */
				if (decode_all(in, written, w, got, n) != CDC_OK ||
					memcmp(got, vals, n * 4) != 0)
					bad++;

				/* Random batches with skips in between. */
				memset(got, 0, sizeof(got));
				cdc_rle_init(&dec, in, written, w);
				while (pos < n)
				{
					size_t		k = 1 + unit_rand(&seed) % 150;

					if (k > n - pos)
						k = n - pos;
					if (unit_rand(&seed) % 4 == 0)
					{
						if (cdc_rle_skip(&dec, k) != CDC_OK)
						{
							bad++;
							break;
						}
					}
					else if (cdc_rle_decode(&dec, got + pos, k) != CDC_OK ||
							 memcmp(got + pos, vals + pos, k * 4) != 0)
					{
						bad++;
						break;
					}
					pos += k;
				}
				/* The whole values are used up (only padding can remain). */
				{
					uint32_t	extra[8 + CDC_OUTPUT_SLACK];
					size_t		pad = (8 - n % 8) % 8;

					if (pad > 0 && cdc_rle_decode(&dec, extra, pad) == CDC_OK)
					{
						for (size_t k = 0; k < pad; k++)
							if (extra[k] != 0 && extra[k] != vals[n - 1])
								bad++;
					}
				}

				/* int16 levels. */
				if (w <= 15)
				{
					cdc_rle_init(&dec, in, written, w);
					if (cdc_rle_decode16(&dec, got16, n) != CDC_OK)
						bad++;
					else
						for (size_t k = 0; k < n; k++)
							if (got16[k] != (int16_t) vals[k])
							{
								bad++;
								break;
							}
				}

				/* Length-prefixed form. */
				{
					size_t		consumed = 0;

					memmove(stream + 4, stream, written);
					stream[0] = (uint8_t) written;
					stream[1] = (uint8_t) (written >> 8);
					stream[2] = (uint8_t) (written >> 16);
					stream[3] = (uint8_t) (written >> 24);
					in = guarded_input(guard, stream, written + 4);
					if (cdc_rle_init_prefixed(&dec, in, written + 4, w, &consumed) != CDC_OK ||
						consumed != written + 4 ||
						cdc_rle_decode(&dec, got, n) != CDC_OK ||
						memcmp(got, vals, n * 4) != 0)
						bad++;
				}
			}
		}
	}
	cdc_set_isa(cdc_isa_best());
	printf("test_rle: %lu round-trip streams checked\n", cases);
	UNIT_CHECKF(bad == 0, "%lu of %lu round trips failed", bad, cases);
	UNIT_CHECK(cases > 0);
}

/* Every run length 1..130 alone, at a few widths: exact sizes. */
static void
test_run_lengths(void)
{
	unsigned long bad = 0;

	for (unsigned w = 0; w <= 32; w += (w < 4 ? 1 : 7))
		for (size_t len = 1; len <= 130; len++)
		{
			uint32_t	value = w == 0 ? 0 : (uint32_t) ((UINT64_C(1) << w) - 1);
			size_t		written = 0;
			size_t		expect;

			for (size_t k = 0; k < len; k++)
				vals[k] = value;
			if (cdc_rle_encode(vals, len, w, stream, sizeof(stream), &written) != CDC_OK)
			{
				bad++;
				continue;
			}
			/* >= 8 equal values: one repeated run; else one literal run. */
			if (len >= 8)
				expect = (len < 64 ? 1 : 2) + (w + 7) / 8;
			else
				expect = 1 + w;
			if (written != expect)
				bad++;
			memset(stream + written, 0, CDC_INPUT_PADDING);
			if (decode_all(stream, written, w, got, len) != CDC_OK ||
				memcmp(got, vals, len * 4) != 0)
				bad++;
		}
	UNIT_CHECKF(bad == 0, "%lu run-length cases failed", bad);
}

static void
test_hostile(void)
{
	uint8_t		buf[64 + CDC_INPUT_PADDING];
	CdcRleDecoder dec;
	size_t		consumed = 0;

#define SET(...) do { static const uint8_t s_[] = {__VA_ARGS__}; memset(buf, 0, sizeof(buf)); memcpy(buf, s_, sizeof(s_)); } while (0)

	/* Empty stream. */
	UNIT_CHECK(decode_all(buf, 0, 3, got, 1) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(decode_all(buf, 0, 3, got, 0) == CDC_OK);
	/* Width above 32. */
	UNIT_CHECK(cdc_rle_init(&dec, buf, 4, 33) == CDC_ERR_CORRUPT);
	/* Literal run declaring 2 groups, only 1 present: 8 values fine. */
	SET(0x05, 0x88, 0xC6, 0xFA);
	UNIT_CHECK(decode_all(buf, 4, 3, got, 8) == CDC_OK && got[7] == 7);
	UNIT_CHECK(decode_all(buf, 4, 3, got, 9) == CDC_ERR_TRUNCATED);
	/* Cut inside the group: 2 bytes hold 16 / 3 = 5 whole values. */
	SET(0x03, 0x88, 0xC6);
	UNIT_CHECK(decode_all(buf, 3, 3, got, 5) == CDC_OK && got[4] == 4);
	UNIT_CHECK(decode_all(buf, 3, 3, got, 6) == CDC_ERR_TRUNCATED);
	/* The same, taken one value per call. */
	cdc_rle_init(&dec, buf, 3, 3);
	for (uint32_t i = 0; i < 5; i++)
		UNIT_CHECK(cdc_rle_decode(&dec, got, 1) == CDC_OK && got[0] == i);
	UNIT_CHECK(cdc_rle_decode(&dec, got, 1) == CDC_ERR_TRUNCATED);
	/* Repeated run without its value byte. */
	SET(0x10);
	UNIT_CHECK(decode_all(buf, 1, 8, got, 1) == CDC_ERR_TRUNCATED);
	SET(0x10, 0xFF);
	UNIT_CHECK(decode_all(buf, 2, 9, got, 1) == CDC_ERR_TRUNCATED);
	/* Repeated value wider than the width. */
	SET(0x10, 0x08);
	UNIT_CHECK(decode_all(buf, 2, 3, got, 1) == CDC_ERR_CORRUPT);
	SET(0x10, 0x00, 0x02);
	UNIT_CHECK(decode_all(buf, 3, 9, got, 1) == CDC_ERR_CORRUPT);
	SET(0x10, 0xFF, 0x01);
	UNIT_CHECK(decode_all(buf, 3, 9, got, 8) == CDC_OK && got[7] == 0x1FF);
	SET(0x10, 0x01);
	UNIT_CHECK(decode_all(buf, 2, 0, got, 1) == CDC_OK && got[0] == 0);	/* width 0: no value byte */
	/* Repeated run of 2^31 (header 2^32 = 80 80 80 80 10). */
	SET(0x80, 0x80, 0x80, 0x80, 0x10, 0x01);
	UNIT_CHECK(decode_all(buf, 6, 1, got, 1) == CDC_ERR_CORRUPT);
	/* 2^31 - 1 is allowed. */
	SET(0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 0x01);
	UNIT_CHECK(decode_all(buf, 6, 1, got, 100) == CDC_OK && got[99] == 1);
	cdc_rle_init(&dec, buf, 6, 1);
	UNIT_CHECK(cdc_rle_skip(&dec, INT32_MAX) == CDC_OK);
	UNIT_CHECK(cdc_rle_skip(&dec, 1) == CDC_ERR_TRUNCATED);
	/* Literal run of 2^28 groups = 2^31 values: too long. */
	SET(0x81, 0x80, 0x80, 0x80, 0x02);
	UNIT_CHECK(decode_all(buf, 5, 1, got, 1) == CDC_ERR_CORRUPT);
	/* Header overflowing 64 bits; header cut off. */
	SET(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F);
	UNIT_CHECK(decode_all(buf, 10, 1, got, 1) == CDC_ERR_CORRUPT);
	SET(0x80, 0x80);
	UNIT_CHECK(decode_all(buf, 2, 1, got, 1) == CDC_ERR_TRUNCATED);
	/* Zero-length runs are skipped over. */
	SET(0x00, 0x01, 0x03, 0xFF);
	UNIT_CHECK(decode_all(buf, 4, 1, got, 8) == CDC_OK && got[0] == 1 && got[7] == 1);
	/* Prefixed: too short for the prefix; length beyond the buffer. */
	SET(0x02, 0x00, 0x00);
	UNIT_CHECK(cdc_rle_init_prefixed(&dec, buf, 3, 1, &consumed) == CDC_ERR_TRUNCATED);
	SET(0x05, 0x00, 0x00, 0x00, 0x10, 0x01);
	UNIT_CHECK(cdc_rle_init_prefixed(&dec, buf, 6, 1, &consumed) == CDC_ERR_TRUNCATED);
	SET(0xFF, 0xFF, 0xFF, 0xFF, 0x10, 0x01);
	UNIT_CHECK(cdc_rle_init_prefixed(&dec, buf, 6, 1, &consumed) == CDC_ERR_TRUNCATED);
	SET(0x02, 0x00, 0x00, 0x00, 0x10, 0x01);
	UNIT_CHECK(cdc_rle_init_prefixed(&dec, buf, 6, 1, &consumed) == CDC_OK && consumed == 6);
	/* decode16 refuses widths a level cannot have. */
	cdc_rle_init(&dec, buf, 6, 16);
	UNIT_CHECK(cdc_rle_decode16(&dec, got16, 1) == CDC_ERR_INVALID_ARGUMENT);
	/* Encoder: value too wide, output too small. */
	{
		uint32_t	v[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
		size_t		written = 0;

		UNIT_CHECK(cdc_rle_encode(v, 9, 3, stream, sizeof(stream), &written) == CDC_ERR_INVALID_ARGUMENT);
		UNIT_CHECK(cdc_rle_encode(v, 9, 4, stream, 5, &written) == CDC_ERR_OUTPUT_FULL);
		UNIT_CHECK(cdc_rle_encode(v, 9, 33, stream, 100, &written) == CDC_ERR_INVALID_ARGUMENT);
		UNIT_CHECK(cdc_rle_encode(v, 0, 4, stream, 0, &written) == CDC_OK && written == 0);
	}
#undef SET
}

int
main(void)
{
	GuardBuf	guard = guard_alloc(sizeof(stream) + 4096);

	test_hand_streams();
	test_run_lengths();
	test_round_trips(&guard);
	test_hostile();
	UNIT_MAIN_END("test_rle");
}
