/*-------------------------------------------------------------------------
 *
 * test_delta.c
 *	  Unit tests of delta_binary.c, delta_length.c and delta_byte_array.c:
 *	  the worked examples of Encodings.md byte for byte, an independent
 *	  naive reference encoder (bit-at-a-time packing, its own varints) whose
 *	  bytes our encoder must reproduce and our decoder must read, round
 *	  trips of adversarial sequences on every ISA and layout, every
 *	  truncation of valid streams in guard-page buffers, hostile headers.
 *
 * IDENTIFICATION
 *	  test/unit/test_delta.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "codec_test_util.h"

#include "codec/codec.h"

#define MAXV	5000

static int64_t vals64[MAXV];
static int32_t vals32[MAXV];
static int64_t got64[MAXV + CDC_OUTPUT_SLACK];
static int32_t got32[MAXV + CDC_OUTPUT_SLACK];
static uint8_t enc[MAXV * 9 + 65536];
static uint8_t ref[MAXV * 9 + 65536];

/* ----------------------------------------------------------------
 * Reference encoder: written from the spec text, sharing nothing with
 * src/codec (bits are set one at a time by ref_pack_lsb).
 * ----------------------------------------------------------------
 */
static size_t
ref_uleb(uint8_t *out, uint64_t v)
{
	size_t		n = 0;

	do
	{
		uint8_t		b = v & 0x7F;

		v >>= 7;
		out[n++] = b | (v ? 0x80 : 0);
	} while (v);
	return n;
}

static uint64_t
ref_zigzag(int64_t v)
{
	return v < 0 ? ((uint64_t) (-(v + 1)) * 2 + 1) : (uint64_t) v * 2;
}

/* Encode n values (already as raw bits; bits = 32 or 64) with the layout. */
static size_t
ref_encode(const uint64_t *v, size_t n, unsigned bits, uint32_t block,
		   uint32_t minis, uint8_t *out)
{
	uint64_t	mask = bits == 64 ? UINT64_MAX : UINT32_MAX;
	uint32_t	per_mini = block / minis;
	size_t		o = 0;
	int64_t		first = 0;
	static uint64_t rel[1 << 16];

	if (n > 0)
		first = bits == 64 ? (int64_t) v[0] : (int64_t) (int32_t) (uint32_t) v[0];
	o += ref_uleb(out + o, block);
	o += ref_uleb(out + o, minis);
	o += ref_uleb(out + o, n);
	o += ref_uleb(out + o, ref_zigzag(first));
	for (size_t b = 1; b < n; b += block)
	{
		size_t		cnt = n - b < block ? n - b : block;
		int64_t		mind = 0;
		size_t		wpos;

		for (size_t i = b; i < b + cnt; i++)
		{
			uint64_t	d = (v[i] - v[i - 1]) & mask;
			int64_t		sd = bits == 64 ? (int64_t) d : (int64_t) (int32_t) (uint32_t) d;

			if (i == b || sd < mind)
				mind = sd;
		}
		o += ref_uleb(out + o, ref_zigzag(mind));
		wpos = o;
		o += minis;
		for (uint32_t m = 0; m < minis; m++)
		{
			size_t		s = b + (size_t) m * per_mini;
			unsigned	w = 0;

			out[wpos + m] = 0;
			if ((size_t) m * per_mini >= cnt)
				continue;
			for (uint32_t j = 0; j < per_mini; j++)
			{
				rel[j] = 0;
				if (s + j < b + cnt)
				{
					uint64_t	d = (v[s + j] - v[s + j - 1]) & mask;

					rel[j] = (d - (uint64_t) mind) & mask;
				}
				while (w < 64 && (rel[j] >> w) != 0)
					w++;
			}
			out[wpos + m] = (uint8_t) w;
			ref_pack_lsb(rel, per_mini, w, out + o);
			o += (size_t) per_mini * w / 8;
		}
	}
	return o;
}

/* ----------------------------------------------------------------
 * Worked examples
 * ----------------------------------------------------------------
 */
static void
test_spec_examples(void)
{
	/*
	 * Encodings.md example 1: 1, 2, 3, 4, 5.  The spec draws it with a
	 * block of 8, which its own rule (multiple of 128) forbids, so here with
	 * the usual 128 / 4 layout:
	 *   header: 80 01 (128) | 04 (4 miniblocks) | 05 (5 values) | 02 (zigzag 1)
	 *   block:  02 (min delta 1, zigzag) | 00 00 00 00 (widths: deltas - min
	 *           are all 0, later miniblocks unused) | no data at width 0
	 */
	static const int32_t v1[] = {1, 2, 3, 4, 5};
	static const uint8_t e1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};

	/*
	 * Example 2: 7, 5, 3, 1, 2, 3, 4, 5.  Deltas -2 -2 -2 1 1 1 1, min -2,
	 * so deltas - min = 0 0 0 3 3 3 3: width 2.
	 *   header: 80 01 | 04 | 08 | 0E (zigzag 7 = 14)
	 *   block:  03 (zigzag -2) | 02 00 00 00
	 *   data:   32 values at width 2 = 8 bytes, LSB first:
	 *           byte 0 = 0 | 0<<2 | 0<<4 | 3<<6 = C0, byte 1 = 3 | 3<<2 | 3<<4 = 3F,
	 *           then the zero padding of the miniblock.
	 */
	static const int32_t v2[] = {7, 5, 3, 1, 2, 3, 4, 5};
	static const uint8_t e2[] = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00, 0x00,
	0xC0, 0x3F, 0, 0, 0, 0, 0, 0};
	uint8_t		in[64 + CDC_INPUT_PADDING] = {0};
	size_t		written = 0,
				consumed = 0;
	uint64_t	total = 0;

	UNIT_CHECK(cdc_delta_binary_encode32(v1, 5, 128, 4, enc, sizeof(enc), &written) == CDC_OK);
	UNIT_CHECK(written == sizeof(e1));
	UNIT_CHECK_MEM(enc, e1, sizeof(e1));
	memcpy(in, e1, sizeof(e1));
	UNIT_CHECK(cdc_delta_binary_decode32(in, sizeof(e1), got32, 5, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == sizeof(e1));
	UNIT_CHECK_MEM(got32, v1, sizeof(v1));
	UNIT_CHECK(cdc_delta_binary_header_count(in, sizeof(e1), &total) == CDC_OK && total == 5);

	UNIT_CHECK(cdc_delta_binary_encode32(v2, 8, 128, 4, enc, sizeof(enc), &written) == CDC_OK);
	UNIT_CHECK(written == sizeof(e2));
	UNIT_CHECK_MEM(enc, e2, sizeof(e2));
	memset(in, 0, sizeof(in));
	memcpy(in, e2, sizeof(e2));
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		memset(got32, 0, sizeof(got32));
		UNIT_CHECK(cdc_delta_binary_decode32(in, sizeof(e2), got32, 8, &consumed) == CDC_OK);
		UNIT_CHECK(consumed == sizeof(e2));
		UNIT_CHECK_MEM(got32, v2, sizeof(v2));
		/* Fewer values than the header holds: still consumes the stream. */
		UNIT_CHECK(cdc_delta_binary_decode32(in, sizeof(e2), got32, 3, &consumed) == CDC_OK);
		UNIT_CHECK(consumed == sizeof(e2));
		UNIT_CHECK(got32[0] == 7 && got32[1] == 5 && got32[2] == 3);
		/* More than it holds. */
		UNIT_CHECK(cdc_delta_binary_decode32(in, sizeof(e2), got32, 9, &consumed) == CDC_ERR_TRUNCATED);
	}
	cdc_set_isa(cdc_isa_best());

	/* The same as INT64. */
	{
		static const int64_t v2l[] = {7, 5, 3, 1, 2, 3, 4, 5};

		UNIT_CHECK(cdc_delta_binary_encode64(v2l, 8, 128, 4, enc, sizeof(enc), &written) == CDC_OK);
		UNIT_CHECK(written == sizeof(e2));
		UNIT_CHECK_MEM(enc, e2, sizeof(e2));
		UNIT_CHECK(cdc_delta_binary_decode64(in, sizeof(e2), got64, 8, &consumed) == CDC_OK);
		UNIT_CHECK_MEM(got64, v2l, sizeof(v2l));
	}

	/* Empty and single-value streams: header only. */
	{
		static const uint8_t e0[] = {0x80, 0x01, 0x04, 0x00, 0x00};
		static const uint8_t e1v[] = {0x80, 0x01, 0x04, 0x01, 0x01};	/* -1 */
		int32_t		one = -1;

		UNIT_CHECK(cdc_delta_binary_encode32(NULL, 0, 128, 4, enc, sizeof(enc), &written) == CDC_OK);
		UNIT_CHECK(written == sizeof(e0) && memcmp(enc, e0, sizeof(e0)) == 0);
		UNIT_CHECK(cdc_delta_binary_encode32(&one, 1, 128, 4, enc, sizeof(enc), &written) == CDC_OK);
		UNIT_CHECK(written == sizeof(e1v) && memcmp(enc, e1v, sizeof(e1v)) == 0);
		memset(in, 0, sizeof(in));
		memcpy(in, e1v, sizeof(e1v));
		UNIT_CHECK(cdc_delta_binary_decode32(in, sizeof(e1v), got32, 1, &consumed) == CDC_OK);
		UNIT_CHECK(got32[0] == -1 && consumed == sizeof(e1v));
		UNIT_CHECK(cdc_delta_binary_decode32(in, sizeof(e1v), got32, 0, &consumed) == CDC_OK);
		UNIT_CHECK(consumed == sizeof(e1v));
	}
}

/*
 * DELTA_LENGTH_BYTE_ARRAY example of Encodings.md: "Hello", "World",
 * "Foobar", "ABCDEF" is DeltaEncoding(5, 5, 6, 6) then the bytes.
 *   lengths: 80 01 | 04 | 04 | 0A (zigzag 5) | 00 (min delta 0) |
 *            01 00 00 00 (deltas 0 1 0 fit one bit) | 02 00 00 00 (bit 1 set)
 */
static void
test_delta_length_example(void)
{
	static const char *strs[] = {"Hello", "World", "Foobar", "ABCDEF"};
	static const uint8_t lens[] = {0x80, 0x01, 0x04, 0x04, 0x0A, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00};
	uint8_t		expect[64];
	uint8_t		in[64 + CDC_INPUT_PADDING] = {0};
	CdcByteView views[4];
	CdcByteView out[4];
	int32_t		scratch[4 + CDC_OUTPUT_SLACK];
	size_t		written = 0,
				consumed = 0,
				n = sizeof(lens);

	memcpy(expect, lens, sizeof(lens));
	memcpy(expect + n, "HelloWorldFoobarABCDEF", 22);
	n += 22;
	for (int i = 0; i < 4; i++)
	{
		views[i].ptr = (const uint8_t *) strs[i];
		views[i].len = (uint32_t) strlen(strs[i]);
	}
	UNIT_CHECK(cdc_delta_length_encode(views, 4, enc, sizeof(enc), &written) == CDC_OK);
	UNIT_CHECK(written == n);
	UNIT_CHECK_MEM(enc, expect, n);
	UNIT_CHECK(cdc_delta_length_max_size(views, 4) >= n);

	memcpy(in, expect, n);
	UNIT_CHECK(cdc_delta_length_decode(in, n, out, 4, scratch, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == n);
	for (int i = 0; i < 4; i++)
	{
		UNIT_CHECK(out[i].len == views[i].len);
		UNIT_CHECK(memcmp(out[i].ptr, strs[i], out[i].len) == 0);
		UNIT_CHECK(out[i].ptr >= in && out[i].ptr + out[i].len <= in + n);
	}
	/* Two values only: consumed stops after their bytes. */
	UNIT_CHECK(cdc_delta_length_decode(in, n, out, 2, scratch, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == sizeof(lens) + 10);
	/* Missing the last byte. */
	UNIT_CHECK(cdc_delta_length_decode(in, n - 1, out, 4, scratch, &consumed) == CDC_ERR_TRUNCATED);
}

/*
 * DELTA_BYTE_ARRAY example of Encodings.md: axis, axle, babble, babyhood
 * has prefix lengths 0 2 0 3 and suffixes "axis" "le" "babble" "yhood".
 *   prefixes: 80 01 04 04 | 00 (first 0) | 03 (min delta -2; deltas 2 -2 3)
 *             | 03 00 00 00 (deltas - min = 4 0 5: width 3) | 12 data bytes:
 *             4 at bits 0-2, 0 at 3-5, 5 (101b) at 6-8 -> 44 01 then zeros
 *   suffix lengths 4 2 6 5: 80 01 04 04 | 08 (zigzag 4) | 03 (min -2;
 *             deltas -2 4 -1) | 03 00 00 00 (0 6 1: width 3) | 6 (110b) at
 *             bits 3-5 and 1 at bit 6 -> 70 then zeros
 *   bytes:    "axislebabbleyhood"
 */
static void
test_delta_byte_array_example(void)
{
	static const char *strs[] = {"axis", "axle", "babble", "babyhood"};
	static const uint8_t head[] = {
		0x80, 0x01, 0x04, 0x04, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00,
		0x44, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x80, 0x01, 0x04, 0x04, 0x08, 0x03, 0x03, 0x00, 0x00, 0x00,
		0x70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
	};
	uint8_t		expect[128];
	uint8_t		in[128 + CDC_INPUT_PADDING] = {0};
	CdcByteView views[4];
	CdcByteView out[4];
	int32_t		s1[4 + CDC_OUTPUT_SLACK];
	int32_t		s2[4 + CDC_OUTPUT_SLACK];
	uint8_t		arena[128];
	size_t		written = 0,
				consumed = 0,
				needed = 0,
				n = sizeof(head);

	memcpy(expect, head, n);
	memcpy(expect + n, "axislebabbleyhood", 17);
	n += 17;
	for (int i = 0; i < 4; i++)
	{
		views[i].ptr = (const uint8_t *) strs[i];
		views[i].len = (uint32_t) strlen(strs[i]);
	}
	UNIT_CHECK(cdc_delta_byte_array_encode(views, 4, enc, sizeof(enc), &written) == CDC_OK);
	UNIT_CHECK(written == n);
	UNIT_CHECK_MEM(enc, expect, n);
	UNIT_CHECK(cdc_delta_byte_array_max_size(views, 4) >= n);

	memcpy(in, expect, n);
	UNIT_CHECK(cdc_delta_byte_array_measure(in, n, 4, s1, &needed) == CDC_OK);
	UNIT_CHECK(needed == 4 + 4 + 6 + 8 + 64);
	UNIT_CHECK(cdc_delta_byte_array_decode(in, n, out, 4, s1, s2, arena, needed,
										   &consumed) == CDC_OK);
	UNIT_CHECK(consumed == n);
	for (int i = 0; i < 4; i++)
		UNIT_CHECKF(out[i].len == views[i].len && memcmp(out[i].ptr, strs[i], out[i].len) == 0,
					"value %d", i);
	/* axle and babyhood share a prefix: they need 4 + 8 arena bytes. */
	UNIT_CHECK(cdc_delta_byte_array_decode(in, n, out, 4, s1, s2, arena, 12,
										   &consumed) == CDC_OK);
	UNIT_CHECK(cdc_delta_byte_array_decode(in, n, out, 4, s1, s2, arena, 11,
										   &consumed) == CDC_ERR_OUTPUT_FULL);

	/* A first prefix of 1 (nothing precedes it) is corrupt: first value
	 * 0 -> 1 is zigzag 02. */
	in[4] = 0x02;
	UNIT_CHECK(cdc_delta_byte_array_decode(in, n, out, 4, s1, s2, arena, sizeof(arena),
										   &consumed) == CDC_ERR_CORRUPT);
	/* Prefix 5 after "axis" (4 bytes): deltas 5 -5 3, min -5 (zigzag 9),
	 * deltas - min = 10 0 8 at width 4: bytes 0A 80. */
	in[4] = 0x00;
	in[5] = 0x09;
	in[6] = 0x04;
	memset(in + 10, 0, 16);
	in[10] = 0x0A;
	in[11] = 0x80;
	memmove(in + 26, expect + 22, n - 22);
	UNIT_CHECK(cdc_delta_byte_array_decode(in, n + 4, out, 4, s1, s2, arena, sizeof(arena),
										   &consumed) == CDC_ERR_CORRUPT);
	/* The same stream cut to one value is fine (prefix 0). */
	UNIT_CHECK(cdc_delta_byte_array_decode(in, n + 4, out, 1, s1, s2, arena, sizeof(arena),
										   &consumed) == CDC_OK);
	UNIT_CHECK(out[0].len == 4 && memcmp(out[0].ptr, "axis", 4) == 0);
}

/* ----------------------------------------------------------------
 * Round trips against the reference encoder
 * ----------------------------------------------------------------
 */
typedef enum Pattern
{
	PAT_RANDOM,
	PAT_SMALL,
	PAT_EQUAL,
	PAT_EXTREMES,
	PAT_RAMP,
	PAT_MIXED_WIDTHS,
	PAT_COUNT
} Pattern;

static void
fill_pattern(uint64_t *v, size_t n, Pattern p, uint64_t *seed)
{
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	r = unit_rand(seed);

		switch (p)
		{
			case PAT_RANDOM:
				v[i] = r;
				break;
			case PAT_SMALL:
				v[i] = (uint64_t) (int64_t) (r % 200) - 100;
				break;
			case PAT_EQUAL:
				v[i] = UINT64_C(0x8000000080000000);
				break;
			case PAT_EXTREMES:
				/* INT_MIN / INT_MAX alternating, with some zeros and -1. */
				v[i] = (i % 5 == 4) ? (r & 1 ? 0 : UINT64_MAX)
					: (i & 1) ? (uint64_t) INT64_MAX : (uint64_t) INT64_MIN;
				break;
			case PAT_RAMP:
				v[i] = (uint64_t) i * 1000 + (r % 3);
				break;
			case PAT_MIXED_WIDTHS:
				/* each 32-value stretch gets its own delta width */
				v[i] = (i > 0 ? v[i - 1] : 0) + (r & ((UINT64_C(1) << ((i / 32) * 7 % 65 % 64)) - 1));
				break;
			default:
				break;
		}
	}
}

static uint64_t rawv[MAXV];

static void
check_round_trip(size_t n, unsigned bits, uint32_t block, uint32_t minis,
				 const char *what)
{
	size_t		ref_len,
				written = 0,
				consumed = 0;
	CdcStatus	st;

	ref_len = ref_encode(rawv, n, bits, block, minis, ref);
	if (bits == 64)
	{
		for (size_t i = 0; i < n; i++)
			vals64[i] = (int64_t) rawv[i];
		st = cdc_delta_binary_encode64(vals64, n, block, minis, enc, sizeof(enc), &written);
	}
	else
	{
		for (size_t i = 0; i < n; i++)
			vals32[i] = (int32_t) (uint32_t) rawv[i];
		st = cdc_delta_binary_encode32(vals32, n, block, minis, enc, sizeof(enc), &written);
	}
	UNIT_CHECKF(st == CDC_OK && written == ref_len && memcmp(enc, ref, ref_len) == 0,
				"%s: encoder differs from the reference (n %zu, bits %u, layout %u/%u)",
				what, n, bits, block, minis);
	if (block <= 1024)
		UNIT_CHECKF(written <= cdc_delta_binary_max_size(n, bits == 64), "%s: max size", what);

	memset(ref + ref_len, 0xA5, CDC_INPUT_PADDING);
	for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		if (bits == 64)
		{
			st = cdc_delta_binary_decode64(ref, ref_len, got64, n, &consumed);
			UNIT_CHECKF(st == CDC_OK && consumed == ref_len &&
						memcmp(got64, vals64, n * 8) == 0,
						"%s: decode64 n %zu isa %d layout %u/%u", what, n, isa, block, minis);
		}
		else
		{
			st = cdc_delta_binary_decode32(ref, ref_len, got32, n, &consumed);
			UNIT_CHECKF(st == CDC_OK && consumed == ref_len &&
						memcmp(got32, vals32, n * 4) == 0,
						"%s: decode32 n %zu isa %d layout %u/%u", what, n, isa, block, minis);
		}
	}
	cdc_set_isa(cdc_isa_best());
}

static void
test_round_trips(void)
{
	static const uint32_t layouts[][2] = {{128, 4}, {128, 1}, {256, 8}, {512, 4}, {1024, 32}, {128, 2}};
	static const size_t counts[] = {0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 130,
	255, 256, 257, 1000, 1025, 4999};
	uint64_t	seed = 12345;
	char		what[64];

	for (int p = 0; p < PAT_COUNT; p++)
		for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++)
			for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
				for (unsigned bits = 32; bits <= 64; bits += 32)
				{
					fill_pattern(rawv, counts[c], (Pattern) p, &seed);
					snprintf(what, sizeof(what), "pattern %d", p);
					check_round_trip(counts[c], bits, layouts[l][0], layouts[l][1], what);
				}
}

/* Every miniblock width 0..64 (and 0..32 for INT32) on every ISA. */
static void
test_every_width(void)
{
	uint64_t	seed = 99;

	for (unsigned bits = 32; bits <= 64; bits += 32)
		for (unsigned w = 0; w <= bits; w++)
		{
			char		what[32];
			uint64_t	mask = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
			size_t		n = 300;

			/* Deltas of exactly w bits relative to the block minimum. */
			rawv[0] = unit_rand(&seed);
			for (size_t i = 1; i < n; i++)
			{
				uint64_t	rel = unit_rand(&seed) & mask;

				if (i % 37 == 1)
					rel = mask;		/* reach the full width */
				if (i % 37 == 2)
					rel = 0;
				rawv[i] = rawv[i - 1] + rel;
			}
			snprintf(what, sizeof(what), "width %u", w);
			check_round_trip(n, bits, 128, 4, what);
		}
}

/* ----------------------------------------------------------------
 * Truncations and hostile streams
 * ----------------------------------------------------------------
 */
static void
test_truncations(void)
{
	GuardBuf	g = guard_alloc(64 * 1024);
	uint64_t	seed = 7;
	size_t		n = 300;
	size_t		len,
				consumed;

	fill_pattern(rawv, n, PAT_RANDOM, &seed);
	for (size_t i = 0; i < n; i++)
		vals64[i] = (int64_t) rawv[i];
	for (size_t i = 0; i < n; i++)
		vals32[i] = (int32_t) (uint32_t) rawv[i];
	for (unsigned bits = 32; bits <= 64; bits += 32)
	{
		len = ref_encode(rawv, n, bits, 128, 4, ref);
		for (size_t cut = 0; cut < len; cut++)
		{
			const uint8_t *in = guarded_input(&g, ref, cut);
			CdcStatus	st;

			for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
			{
				if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
					continue;
				if (bits == 64)
					st = cdc_delta_binary_decode64(in, cut, got64, n, &consumed);
				else
					st = cdc_delta_binary_decode32(in, cut, got32, n, &consumed);

				/*
				 * 299 deltas fill blocks of 128, 128 and 43: the last
				 * miniblock holds 11 deltas and 21 padding values, and only
				 * that padding may be missing.
				 */
				if (st == CDC_OK)
				{
					UNIT_CHECKF(consumed == cut && len - cut <= (size_t) (32 - 11) * bits / 8,
								"bits %u cut %zu of %zu accepted", bits, cut, len);
					UNIT_CHECK(bits == 64 ? memcmp(got64, vals64, n * 8) == 0
							   : memcmp(got32, vals32, n * 4) == 0);
				}
				else
					UNIT_CHECKF(st == CDC_ERR_TRUNCATED, "bits %u cut %zu: status %d", bits, cut, st);
			}
		}
	}
	cdc_set_isa(cdc_isa_best());
}

static void
test_hostile(void)
{
	uint8_t		in[256 + CDC_INPUT_PADDING];
	size_t		consumed;
	uint64_t	total;

	/* A valid 40-value stream with one block: 80 01 04 28 00 | 00 | w w w w */
	static const uint8_t base[] = {0x80, 0x01, 0x04, 0x28, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00};
	size_t		len = sizeof(base) + 4 + 4;

	memset(in, 0, sizeof(in));
	memcpy(in, base, sizeof(base));
	UNIT_CHECK(cdc_delta_binary_decode32(in, len, got32, 40, &consumed) == CDC_OK);
	UNIT_CHECK(consumed == len);

	/* Unused miniblock widths may hold anything. */
	in[8] = 0xFF;
	in[9] = 0x41;
	UNIT_CHECK(cdc_delta_binary_decode32(in, len, got32, 40, &consumed) == CDC_OK);
	/* Used widths above the type's bits are corrupt. */
	in[7] = 33;
	UNIT_CHECK(cdc_delta_binary_decode32(in, len + 200, got32, 40, &consumed) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_delta_binary_decode64(in, len + 200, got64, 40, &consumed) == CDC_OK);
	in[7] = 65;
	UNIT_CHECK(cdc_delta_binary_decode64(in, len + 200, got64, 40, &consumed) == CDC_ERR_CORRUPT);
	in[7] = 1;

	/* Bad layouts: block 64, block 0, 0 miniblocks, 48 values per miniblock
	 * (384 / 8), miniblocks not dividing the block. */
	memcpy(in, (const uint8_t[]) {0x40, 0x04, 0x05, 0x00}, 4);
	UNIT_CHECK(cdc_delta_binary_decode32(in, len, got32, 1, &consumed) == CDC_ERR_CORRUPT);
	memcpy(in, (const uint8_t[]) {0x00, 0x04, 0x05, 0x00}, 4);
	UNIT_CHECK(cdc_delta_binary_decode32(in, len, got32, 1, &consumed) == CDC_ERR_CORRUPT);
	memcpy(in, (const uint8_t[]) {0x80, 0x01, 0x00, 0x05, 0x00}, 5);
	UNIT_CHECK(cdc_delta_binary_decode32(in, len, got32, 1, &consumed) == CDC_ERR_CORRUPT);
	memcpy(in, (const uint8_t[]) {0x80, 0x03, 0x08, 0x05, 0x00}, 5);
	UNIT_CHECK(cdc_delta_binary_decode32(in, len, got32, 1, &consumed) == CDC_ERR_CORRUPT);
	memcpy(in, (const uint8_t[]) {0x80, 0x01, 0x03, 0x05, 0x00}, 5);
	UNIT_CHECK(cdc_delta_binary_decode32(in, len, got32, 1, &consumed) == CDC_ERR_CORRUPT);
	/* A varint of 11 bytes is corrupt, one cut short is truncated. */
	memset(in, 0xFF, 11);
	UNIT_CHECK(cdc_delta_binary_header_count(in, 11, &total) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_delta_binary_header_count(in, 3, &total) == CDC_ERR_TRUNCATED);

	/* A huge declared count with few bytes: truncated, found quickly. */
	memcpy(in, (const uint8_t[]) {0x80, 0x01, 0x04, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00}, 9);
	memset(in + 9, 0, 100);
	UNIT_CHECK(cdc_delta_binary_decode32(in, 109, got32, 10, &consumed) == CDC_ERR_TRUNCATED);

	/* Invalid encoder layouts. */
	UNIT_CHECK(cdc_delta_binary_encode32(vals32, 3, 100, 4, enc, sizeof(enc), &consumed) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_delta_binary_encode32(vals32, 3, 128, 3, enc, sizeof(enc), &consumed) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_delta_binary_encode32(vals32, 3, 128, 8, enc, sizeof(enc), &consumed) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_delta_binary_encode32(vals32, 3, 128, 0, enc, sizeof(enc), &consumed) == CDC_ERR_INVALID_ARGUMENT);
	/* Output too small, at every capacity. */
	{
		size_t		full,
					w;

		for (size_t i = 0; i < 200; i++)
			vals64[i] = (int64_t) (i * i * 977);
		UNIT_CHECK(cdc_delta_binary_encode64(vals64, 200, 128, 4, enc, sizeof(enc), &full) == CDC_OK);
		for (size_t cap = 0; cap < full; cap++)
			UNIT_CHECKF(cdc_delta_binary_encode64(vals64, 200, 128, 4, enc, cap, &w) == CDC_ERR_OUTPUT_FULL,
						"cap %zu", cap);
	}
}

/* ----------------------------------------------------------------
 * Byte-array round trips
 * ----------------------------------------------------------------
 */
static void
test_byte_array_round_trips(void)
{
	static uint8_t pool[MAXV * 16];
	static CdcByteView views[MAXV];
	static CdcByteView out[MAXV];
	static int32_t s1[MAXV + CDC_OUTPUT_SLACK];
	static int32_t s2[MAXV + CDC_OUTPUT_SLACK];
	static uint8_t arena[MAXV * 16];
	static const size_t counts[] = {0, 1, 2, 127, 128, 129, 1000, MAXV};
	uint64_t	seed = 4242;

	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
	{
		size_t		n = counts[c];
		size_t		p = 0;
		size_t		written,
					consumed,
					needed;

		/* Sorted-ish keys: random lengths 0..15 sharing prefixes. */
		for (size_t i = 0; i < n; i++)
		{
			size_t		len = unit_rand(&seed) % 16;
			size_t		keep = i > 0 ? unit_rand(&seed) % (views[i - 1].len + 1) : 0;

			if (keep > len)
				keep = len;
			for (size_t k = 0; k < len; k++)
				pool[p + k] = k < keep ? views[i - 1].ptr[k] : (uint8_t) unit_rand(&seed);
			views[i].ptr = pool + p;
			views[i].len = (uint32_t) len;
			p += len;
		}

		UNIT_CHECK(cdc_delta_length_encode(views, n, enc, sizeof(enc), &written) == CDC_OK);
		UNIT_CHECK(written <= cdc_delta_length_max_size(views, n));
		memset(enc + written, 0xA5, CDC_INPUT_PADDING);
		UNIT_CHECK(cdc_delta_length_decode(enc, written, out, n, s1, &consumed) == CDC_OK);
		UNIT_CHECK(consumed == written);
		for (size_t i = 0; i < n; i++)
			UNIT_CHECKF(out[i].len == views[i].len &&
						memcmp(out[i].ptr, views[i].ptr, views[i].len) == 0, "dlba %zu", i);
		for (size_t cut = written > 300 ? written - 300 : 0; cut < written && p > 0; cut++)
			UNIT_CHECKF(cdc_delta_length_decode(enc, cut, out, n, s1, &consumed) == CDC_ERR_TRUNCATED,
						"dlba cut %zu of %zu", cut, written);

		UNIT_CHECK(cdc_delta_byte_array_encode(views, n, enc, sizeof(enc), &written) == CDC_OK);
		UNIT_CHECK(written <= cdc_delta_byte_array_max_size(views, n));
		memset(enc + written, 0xA5, CDC_INPUT_PADDING);
		UNIT_CHECK(cdc_delta_byte_array_measure(enc, written, n, s1, &needed) == CDC_OK);
		UNIT_CHECK(needed == p + 64);
		UNIT_CHECK(cdc_delta_byte_array_decode(enc, written, out, n, s1, s2, arena, needed,
											   &consumed) == CDC_OK);
		UNIT_CHECK(consumed == written);
		for (size_t i = 0; i < n; i++)
			UNIT_CHECKF(out[i].len == views[i].len &&
						memcmp(out[i].ptr, views[i].ptr, views[i].len) == 0, "dba %zu", i);
	}
}

int
main(void)
{
	test_spec_examples();
	test_delta_length_example();
	test_delta_byte_array_example();
	test_round_trips();
	test_every_width();
	test_truncations();
	test_hostile();
	test_byte_array_round_trips();
	UNIT_MAIN_END("test_delta");
}
