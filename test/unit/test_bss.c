/*-------------------------------------------------------------------------
 *
 * test_bss.c
 *	  Unit tests of byte_stream_split.c: the layout by hand (FLOAT 1.0f,
 *	  -2.5f and a DOUBLE), every width 1..33 against a naive reference
 *	  transposition, widths 2, 4 and 8 at every count 0..1023 and several
 *	  misalignments on every ISA, ranges, round trips, bad arguments.
 *
 * IDENTIFICATION
 *	  test/unit/test_bss.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "codec_test_util.h"

#include "codec/codec.h"

#define MAXN	1100
#define MAXW	33

static uint8_t values[MAXN * MAXW];
static uint8_t split[MAXN * MAXW + 64 + CDC_INPUT_PADDING];
static uint8_t got[MAXN * MAXW + 64 + CDC_OUTPUT_SLACK * MAXW];

/* Reference: the definition, byte by byte. */
static void
ref_split(const uint8_t *v, size_t width, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < width; k++)
			out[k * n + i] = v[i * width + k];
}

static void
test_by_hand(void)
{
	/*
	 * FLOAT 1.0f = 0x3F800000 (bytes 00 00 80 3F) and -2.5f = 0xC0200000
	 * (bytes 00 00 20 C0): stream 0 = 00 00, stream 1 = 00 00, stream 2 =
	 * 80 20, stream 3 = 3F C0.
	 */
	static const uint8_t f_split[] = {0x00, 0x00, 0x00, 0x00, 0x80, 0x20, 0x3F, 0xC0};
	/* DOUBLE 1.5 = 0x3FF8000000000000 and INT64 0x0102030405060708. */
	static const uint8_t d_split[] = {0x00, 0x08, 0x00, 0x07, 0x00, 0x06, 0x00, 0x05,
	0x00, 0x04, 0x00, 0x03, 0xF8, 0x02, 0x3F, 0x01};
	float		f[2] = {1.0f, -2.5f};
	float		fgot[2 + CDC_OUTPUT_SLACK];
	uint64_t	d[2];
	uint64_t	dgot[2 + CDC_OUTPUT_SLACK];
	double		onehalf = 1.5;
	uint8_t		in[16 + CDC_INPUT_PADDING] = {0};
	uint8_t		out[16];
	size_t		written = 0;

	memcpy(&d[0], &onehalf, 8);
	d[1] = UINT64_C(0x0102030405060708);
	UNIT_CHECK(cdc_bss_encode((const uint8_t *) f, 4, 2, out, sizeof(out), &written) == CDC_OK);
	UNIT_CHECK(written == 8 && memcmp(out, f_split, 8) == 0);
	UNIT_CHECK(cdc_bss_encode((const uint8_t *) d, 8, 2, out, sizeof(out), &written) == CDC_OK);
	UNIT_CHECK(written == 16 && memcmp(out, d_split, 16) == 0);
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		memcpy(in, f_split, 8);
		UNIT_CHECK(cdc_bss_decode(in, 8, 4, (uint8_t *) fgot, 2) == CDC_OK);
		UNIT_CHECK(fgot[0] == 1.0f && fgot[1] == -2.5f);
		/* The second value alone: streams are still 2 bytes long. */
		UNIT_CHECK(cdc_bss_decode_range(in, 8, 4, 1, (uint8_t *) fgot, 1) == CDC_OK);
		UNIT_CHECK(fgot[0] == -2.5f);
		memcpy(in, d_split, 16);
		UNIT_CHECK(cdc_bss_decode(in, 16, 8, (uint8_t *) dgot, 2) == CDC_OK);
		UNIT_CHECK(dgot[0] == d[0] && dgot[1] == d[1]);
	}
	cdc_set_isa(cdc_isa_best());

	/* Bad arguments and short input. */
	UNIT_CHECK(cdc_bss_decode(in, 8, 0, out, 1) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_bss_decode(in, 7, 4, out, 1) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_bss_decode(in, 8, 4, out, 3) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_bss_decode_range(in, 8, 4, 1, out, 2) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_bss_decode_range(in, 8, 4, 3, out, 0) == CDC_ERR_TRUNCATED);
	UNIT_CHECK(cdc_bss_decode_range(in, 8, 4, 2, out, 0) == CDC_OK);
	UNIT_CHECK(cdc_bss_decode(in, 0, 4, out, 0) == CDC_OK);
	UNIT_CHECK(cdc_bss_encode(values, 4, 3, out, 11, &written) == CDC_ERR_OUTPUT_FULL);
	UNIT_CHECK(cdc_bss_encode(values, 0, 3, out, 11, &written) == CDC_ERR_INVALID_ARGUMENT);
}

/* Decode split[] (n values of width) at offset first..first+count on every
 * ISA and compare with values[]. */
static void
check_decode(size_t width, size_t n, size_t first, size_t count, size_t misalign)
{
	uint8_t    *in = split + 64 - misalign;

	memmove(in, split + 64, n * width);
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		memset(got, 0xEE, count * width + 8);
		UNIT_CHECKF(cdc_bss_decode_range(in, n * width, width, first, got + misalign, count) == CDC_OK &&
					memcmp(got + misalign, values + first * width, count * width) == 0,
					"width %zu n %zu first %zu count %zu isa %d", width, n, first, count, isa);
	}
	memmove(split + 64, in, n * width);
	cdc_set_isa(cdc_isa_best());
}

static void
test_against_reference(void)
{
	uint64_t	seed = 31337;

	for (size_t i = 0; i < sizeof(values); i++)
		values[i] = (uint8_t) unit_rand(&seed);

	/* Widths 2, 4 and 8 (the AVX2 ones): every count up to 1023, some
	 * misaligned. */
	for (size_t width = 2; width <= 8; width *= 2)
		for (size_t n = 0; n < 1024; n++)
		{
			ref_split(values, width, n, split + 64);
			check_decode(width, n, 0, n, n % 7);
		}
	/* Every width: a few counts, ranges inside the page. */
	for (size_t width = 1; width <= MAXW; width++)
	{
		static const size_t counts[] = {0, 1, 31, 32, 33, 257, 1000, MAXN};

		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
		{
			size_t		n = counts[c];
			size_t		written = 0;

			ref_split(values, width, n, split + 64);
			check_decode(width, n, 0, n, 0);
			if (n > 40)
			{
				check_decode(width, n, 3, n - 40, 1);
				check_decode(width, n, n - 33, 33, 0);
			}
			/* The encoder reproduces the reference layout. */
			UNIT_CHECKF(cdc_bss_encode(values, width, n, got, sizeof(got), &written) == CDC_OK &&
						written == n * width && memcmp(got, split + 64, n * width) == 0,
						"encode width %zu n %zu", width, n);
		}
	}
}

/* Floats keep every bit: -0.0, NaN payloads, denormals. */
static void
test_float_bits(void)
{
	static const uint32_t bits[] = {0x80000000u, 0x7FC00001u, 0xFFA00000u, 0x00000001u,
	0x7F800000u, 0xFF800000u, 0x00800000u, 0x7F7FFFFFu};
	uint32_t	in32[40 * 8];
	uint32_t	out32[40 * 8 + CDC_OUTPUT_SLACK];
	uint8_t		enc[40 * 8 * 4 + CDC_INPUT_PADDING];
	size_t		written;

	for (size_t i = 0; i < 40 * 8; i++)
		in32[i] = bits[i % 8];
	UNIT_CHECK(cdc_bss_encode((const uint8_t *) in32, 4, 320, enc, sizeof(enc), &written) == CDC_OK);
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		UNIT_CHECK(cdc_bss_decode(enc, written, 4, (uint8_t *) out32, 320) == CDC_OK);
		UNIT_CHECK(memcmp(out32, in32, sizeof(in32)) == 0);
	}
	cdc_set_isa(cdc_isa_best());
}

int
main(void)
{
	test_by_hand();
	test_against_reference();
	test_float_bits();
	UNIT_MAIN_END("test_bss");
}
