/*-------------------------------------------------------------------------
 *
 * test_fastlanes.c
 *	  Unit tests of the FastLanes transposed bit packing (FLBitPack, FFOR).
 *
 * References: byte vectors computed by hand from amudai-format.md 4.4, and a
 * bit-at-a-time reference built on the document's *random access* formula
 * (l = i mod LANES, s = i div 128, g = ((i mod 128) - l) / 16,
 * r = 8 * ORDER[g] + s), which shares nothing with the kernels' row-major
 * loops.
 *
 * IDENTIFICATION
 *	  test/unit/test_fastlanes.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "codec_test_util.h"
#include "codec/fastlanes.h"

static const unsigned ORDER[8] = {0, 4, 2, 6, 1, 5, 3, 7};

/* Row and lane of element i of a chunk (document's random-access rule). */
static void
ref_row_lane(size_t i, unsigned bits, unsigned *row, unsigned *lane)
{
	unsigned	lanes = 1024 / bits;
	unsigned	l = (unsigned) (i % lanes);
	unsigned	s = (unsigned) (i / 128);
	unsigned	g = (unsigned) ((i % 128) - l) / 16;

	*lane = l;
	*row = 8 * ORDER[g] + s;
}

/* Stream bit `pos` of lane l in chunk c: its byte and bit in the packed bytes. */
static void
ref_locate(size_t c, unsigned bits, unsigned width, unsigned lane, uint64_t pos,
		   size_t *byte, unsigned *bit)
{
	unsigned	lanes = 1024 / bits;
	uint64_t	word = pos / bits;
	unsigned	in_word = (unsigned) (pos % bits);
	size_t		elem = (size_t) (word * lanes + lane);

	*byte = c * 128 * (size_t) width + elem * (bits / 8) + in_word / 8;
	*bit = in_word % 8;
}

/* Pack (v - ref) masked to width, one bit at a time; the tail of the last
 * chunk is zero.  out must hold ref_size bytes. */
static void
ref_pack(const uint64_t *v, size_t count, unsigned bits, unsigned width,
		 uint64_t ref, uint8_t *out)
{
	size_t		chunks = (count + 1023) / 1024;
	uint64_t	tmask = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;

	memset(out, 0, chunks * 128 * width);
	for (size_t i = 0; i < count; i++)
	{
		unsigned	row,
					lane;
		uint64_t	d = (v[i] - ref) & tmask;

		ref_row_lane(i % 1024, bits, &row, &lane);
		for (unsigned b = 0; b < width; b++)
		{
			size_t		byte;
			unsigned	bit;

			if (!((d >> b) & 1))
				continue;
			ref_locate(i / 1024, bits, width, lane, (uint64_t) row * width + b, &byte, &bit);
			out[byte] |= (uint8_t) (1u << bit);
		}
	}
}

static uint64_t
ref_get(const uint8_t *packed, size_t i, unsigned bits, unsigned width, uint64_t ref)
{
	unsigned	row,
				lane;
	uint64_t	d = 0;
	uint64_t	tmask = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;

	ref_row_lane(i % 1024, bits, &row, &lane);
	for (unsigned b = 0; b < width; b++)
	{
		size_t		byte;
		unsigned	bit;

		ref_locate(i / 1024, bits, width, lane, (uint64_t) row * width + b, &byte, &bit);
		d |= (uint64_t) ((packed[byte] >> bit) & 1) << b;
	}
	return (d + ref) & tmask;
}

/* Type-generic wrappers over the four element sizes. */
static CdcStatus
dec_any(unsigned bits, const uint8_t *in, size_t in_len, unsigned w, uint64_t ref,
		uint64_t *out, size_t count)
{
	void	   *tmp = malloc((count + 1) * 8);
	CdcStatus	st = CDC_ERR_INVALID_ARGUMENT;

	switch (bits)
	{
		case 8:
			st = cdc_ffor_decode8(in, in_len, w, (uint8_t) ref, tmp, count);
			for (size_t i = 0; i < count; i++)
				out[i] = ((uint8_t *) tmp)[i];
			break;
		case 16:
			st = cdc_ffor_decode16(in, in_len, w, (uint16_t) ref, tmp, count);
			for (size_t i = 0; i < count; i++)
				out[i] = ((uint16_t *) tmp)[i];
			break;
		case 32:
			st = cdc_ffor_decode32(in, in_len, w, (uint32_t) ref, tmp, count);
			for (size_t i = 0; i < count; i++)
				out[i] = ((uint32_t *) tmp)[i];
			break;
		case 64:
			st = cdc_ffor_decode64(in, in_len, w, ref, tmp, count);
			memcpy(out, tmp, count * 8);
			break;
	}
	free(tmp);
	return st;
}

static CdcStatus
enc_any(unsigned bits, const uint64_t *v, size_t count, uint64_t ref, unsigned w,
		uint8_t *out, size_t cap, size_t *written)
{
	void	   *tmp = malloc((count + 1) * 8);
	CdcStatus	st = CDC_ERR_INVALID_ARGUMENT;

	for (size_t i = 0; i < count; i++)
	{
		if (bits == 8)
			((uint8_t *) tmp)[i] = (uint8_t) v[i];
		else if (bits == 16)
			((uint16_t *) tmp)[i] = (uint16_t) v[i];
		else if (bits == 32)
			((uint32_t *) tmp)[i] = (uint32_t) v[i];
		else
			((uint64_t *) tmp)[i] = v[i];
	}
	switch (bits)
	{
		case 8:
			st = cdc_ffor_encode8(tmp, count, (uint8_t) ref, w, out, cap, written);
			break;
		case 16:
			st = cdc_ffor_encode16(tmp, count, (uint16_t) ref, w, out, cap, written);
			break;
		case 32:
			st = cdc_ffor_encode32(tmp, count, (uint32_t) ref, w, out, cap, written);
			break;
		case 64:
			st = cdc_ffor_encode64(tmp, count, ref, w, out, cap, written);
			break;
	}
	free(tmp);
	return st;
}

/* T = 8, W = 1: lane l's byte has bit r = value of element 128 r + l. */
static void
test_hand_u8_w1(void)
{
	uint8_t		vals[1024] = {0};
	uint8_t		packed[128];
	uint8_t		expect[128] = {0};
	uint8_t		back[1024];
	size_t		written = 0;

	vals[5] = 1;				/* row 0, lane 5 */
	vals[128 * 3 + 5] = 1;		/* row 3, lane 5 */
	vals[1023] = 1;				/* row 7, lane 127 */
	expect[5] = 0x09;
	expect[127] = 0x80;
	UNIT_CHECK(cdc_fl_pack8(vals, 1024, 1, packed, sizeof(packed), &written) == CDC_OK);
	UNIT_CHECK(written == 128);
	UNIT_CHECK_MEM(packed, expect, 128);
	UNIT_CHECK(cdc_fl_unpack8(expect, 128, 1, back, 1024) == CDC_OK);
	UNIT_CHECK_MEM(back, vals, 1024);
}

/*
 * T = 16, W = 3: a lane is 16 values * 3 bits = 3 words.  Row 5 (element
 * 640 + l) sits at stream bits 15..17: bit 15 of word 0, bits 0..1 of word 1.
 * Row 10 (r % 8 = 2, ORDER[1] = 4: element 256 + 64 + l) at bits 30..32:
 * bits 14..15 of word 1 and bit 0 of word 2.  Word k of lane l is element
 * k * 64 + l of the 192-word chunk (384 bytes).
 */
static void
test_hand_u16_w3(void)
{
	uint16_t	vals[1024] = {0};
	uint8_t		packed[384];
	uint8_t		expect[384] = {0};
	uint16_t	back[1024];
	size_t		written = 0;

	vals[640 + 2] = 5;			/* 0b101: lane 2 */
	vals[256 + 64 + 7] = 3;		/* 0b011: lane 7 */
	vals[256 + 64 + 9] = 4;		/* 0b100: lane 9, only the bit in word 2 */
	/* lane 2: word 0 = 0x8000 (element 2), word 1 = 0x0002 (element 66) */
	expect[2 * 2 + 1] = 0x80;
	expect[66 * 2] = 0x02;
	/* lane 7: word 1 = 0xC000 (element 71), word 2 bit 0 = 0 */
	expect[71 * 2 + 1] = 0xC0;
	/* lane 9: word 2 = 0x0001 (element 137) */
	expect[137 * 2] = 0x01;
	UNIT_CHECK(cdc_fl_pack16(vals, 1024, 3, packed, sizeof(packed), &written) == CDC_OK);
	UNIT_CHECK(written == 384);
	UNIT_CHECK_MEM(packed, expect, 384);
	UNIT_CHECK(cdc_fl_unpack16(expect, 384, 3, back, 1024) == CDC_OK);
	UNIT_CHECK_MEM(back, vals, sizeof(vals));
}

/*
 * The document's worked check (T = 32, W = 32, a pure transpose): packed
 * word r * 32 + l holds element idx(r, l).  Lane 0 rows 0..7 = 0, 128, ..,
 * 896; rows 8..15 = 64, 192, .., 960; rows 16..23 = 32, 160, ..; rows
 * 24..31 = 96, 224, ...
 */
static void
test_worked_transpose(void)
{
	uint32_t	vals[1024];
	uint32_t	packed[1024];
	uint32_t	back[1024];
	size_t		written = 0;
	static const uint32_t lane0[32] = {
		0, 128, 256, 384, 512, 640, 768, 896,
		64, 192, 320, 448, 576, 704, 832, 960,
		32, 160, 288, 416, 544, 672, 800, 928,
		96, 224, 352, 480, 608, 736, 864, 992
	};
	bool		ok = true;

	for (uint32_t i = 0; i < 1024; i++)
		vals[i] = i;
	UNIT_CHECK(cdc_fl_pack32(vals, 1024, 32, (uint8_t *) packed, 4096, &written) == CDC_OK);
	for (int r = 0; r < 32; r++)
	{
		ok &= packed[r * 32] == lane0[r];
		ok &= packed[r * 32 + 5] == lane0[r] + 5;	/* lane 5: same + 5 */
		ok &= packed[r * 32 + 31] == lane0[r] + 31;
	}
	UNIT_CHECK(ok);
	UNIT_CHECK(cdc_fl_unpack32((uint8_t *) packed, 4096, 32, back, 1024) == CDC_OK);
	UNIT_CHECK_MEM(back, vals, sizeof(vals));
}

/* FFOR, T = 32, W = 2, reference 1000: 1001 at element 1 (row 0, lane 1)
 * packs as 1 in bits 0..1 of lane 1's word 0 = bytes 4..7 = 01 00 00 00;
 * 1003 at element 128 (row 1, lane 0) as 3 in bits 2..3 of lane 0's word 0. */
static void
test_hand_ffor(void)
{
	uint32_t	vals[3] = {1000, 1001, 1000};
	uint32_t	big[129];
	uint8_t		packed[256];
	uint8_t		expect[256] = {0};
	uint32_t	back[129];
	size_t		written = 0;

	UNIT_CHECK(cdc_ffor_encode32(vals, 3, 1000, 2, packed, sizeof(packed), &written) == CDC_OK);
	UNIT_CHECK(written == 256);
	expect[4] = 0x01;
	UNIT_CHECK_MEM(packed, expect, 256);

	for (int i = 0; i < 129; i++)
		big[i] = 1000;
	big[128] = 1003;
	UNIT_CHECK(cdc_ffor_encode32(big, 129, 1000, 2, packed, sizeof(packed), &written) == CDC_OK);
	expect[4] = 0x00;
	expect[0] = 0x0C;
	UNIT_CHECK_MEM(packed, expect, 256);
	UNIT_CHECK(cdc_ffor_decode32(packed, 256, 2, 1000, back, 129) == CDC_OK);
	UNIT_CHECK_MEM(back, big, sizeof(big));
	/* wrapping reference: values below the reference come back modulo 2^32 */
	UNIT_CHECK(cdc_ffor_decode32(expect, 256, 2, UINT32_MAX - 1, back, 129) == CDC_OK);
	UNIT_CHECK(back[0] == UINT32_MAX - 1 && back[128] == 1);
}

static uint64_t
rand_width(uint64_t *s, unsigned w)
{
	uint64_t	v = unit_rand(s);

	return w == 64 ? v : (w == 0 ? 0 : v & ((UINT64_C(1) << w) - 1));
}

/* Every type, every width, several counts, every ISA: pack equals the
 * bit-at-a-time reference, decode equals the reference decode. */
static void
test_all_widths(void)
{
	static const unsigned bits_list[4] = {8, 16, 32, 64};
	static const size_t counts[] = {0, 1, 7, 1023, 1024, 1025, 2048 + 333};
	uint64_t	seed = 0x1234567;
	size_t		max = 2048 + 333;
	uint64_t   *vals = malloc(max * 8);
	uint64_t   *out = malloc(max * 8);
	uint8_t    *ref_bytes = malloc(3 * 128 * 64 + 64);
	uint8_t    *enc = malloc(3 * 128 * 64 + 64 + 1);
	unsigned long mismatches = 0,
				cases = 0;

	for (int b = 0; b < 4; b++)
	{
		unsigned	bits = bits_list[b];
		uint64_t	tmask = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;

		for (unsigned w = 0; w <= bits; w++)
			for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++)
			{
				size_t		n = counts[ci];
				uint64_t	ref = unit_rand(&seed) & tmask;
				size_t		size = cdc_fl_packed_size(n, w);
				size_t		written = 0;

				for (size_t i = 0; i < n; i++)
					vals[i] = (ref + rand_width(&seed, w)) & tmask;
				/* extremes in the first chunk */
				if (n > 3 && w > 0)
				{
					vals[0] = ref;
					vals[1] = (ref + (w == 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1)) & tmask;
				}
				ref_pack(vals, n, bits, w, ref, ref_bytes);
				cases++;
				if (enc_any(bits, vals, n, ref, w, enc + 1, size, &written) != CDC_OK ||
					written != size || memcmp(enc + 1, ref_bytes, size) != 0)
				{
					mismatches++;
					fprintf(stderr, "pack mismatch bits=%u w=%u n=%zu\n", bits, w, n);
				}
				for (int isa = 0; isa < CDC_ISA_COUNT; isa++)
				{
					if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
						continue;
					/* aligned (ref_bytes) and misaligned (enc + 1) inputs */
					for (int mis = 0; mis < 2; mis++)
					{
						const uint8_t *src = mis ? enc + 1 : ref_bytes;
						bool		ok;

						memset(out, 0xEE, max * 8);
						ok = dec_any(bits, src, size, w, ref, out, n) == CDC_OK;
						for (size_t i = 0; ok && i < n; i++)
							ok = out[i] == vals[i] && out[i] == ref_get(ref_bytes, i, bits, w, ref);
						if (!ok)
						{
							mismatches++;
							fprintf(stderr, "decode mismatch bits=%u w=%u n=%zu isa=%d\n",
									bits, w, n, isa);
						}
					}
				}
				cdc_set_isa(cdc_isa_best());
			}
	}
	UNIT_CHECKF(mismatches == 0, "%lu of %lu cases", mismatches, cases);
	free(vals);
	free(out);
	free(ref_bytes);
	free(enc);
}

/* Every short length is TRUNCATED, longer CORRUPT, bad widths CORRUPT; the
 * input ends at a guard page so any over-read faults. */
static void
test_sizes(void)
{
	GuardBuf	g = guard_alloc(64 * 1024);
	uint64_t	vals[1100];
	uint8_t		enc[2 * 128 * 64];
	uint64_t	out[1100];
	size_t		written;
	uint64_t	seed = 99;
	bool		ok = true;

	for (int i = 0; i < 1100; i++)
		vals[i] = unit_rand(&seed) >> 23;
	UNIT_CHECK(cdc_fl_pack64(vals, 1100, 41, enc, sizeof(enc), &written) == CDC_OK);
	UNIT_CHECK(written == 2 * 128 * 41);
	for (size_t len = 0; len < written; len += (len < 200 ? 1 : 97))
	{
		const uint8_t *in = guarded_input(&g, enc, len);

		ok &= cdc_fl_unpack64(in, len, 41, out, 1100) == CDC_ERR_TRUNCATED;
	}
	UNIT_CHECK(ok);
	UNIT_CHECK(cdc_fl_unpack64(guarded_input(&g, enc, written), written, 41, out, 1100) == CDC_OK);
	UNIT_CHECK(memcmp(out, vals, sizeof(vals)) == 0);
	UNIT_CHECK(cdc_fl_unpack64(enc, written, 41, out, 1024) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_fl_unpack64(enc, written, 65, out, 1100) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_fl_unpack32(enc, 128 * 33, 33, (uint32_t *) out, 10) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_fl_unpack16(enc, 128 * 17, 17, (uint16_t *) out, 10) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_fl_unpack8(enc, 128 * 9, 9, (uint8_t *) out, 10) == CDC_ERR_CORRUPT);
	UNIT_CHECK(cdc_fl_unpack64(enc, 0, 0, out, 5) == CDC_OK && out[4] == 0);
	/* width 0 takes no bytes, so a NULL payload is fine */
	UNIT_CHECK(cdc_ffor_decode64(NULL, 0, 0, 77, out, 1100) == CDC_OK &&
			   out[0] == 77 && out[1099] == 77);
	UNIT_CHECK(cdc_ffor_decode8(NULL, 0, 0, 5, (uint8_t *) out, 3) == CDC_OK &&
			   ((uint8_t *) out)[2] == 5);
	UNIT_CHECK(cdc_fl_unpack64(enc, 0, 7, out, 0) == CDC_OK);
	UNIT_CHECK(cdc_fl_pack64(vals, 1100, 41, enc, written - 1, &written) == CDC_ERR_OUTPUT_FULL);
	UNIT_CHECK(cdc_fl_packed_size(1, 64) == 8192 && cdc_fl_packed_size(1025, 3) == 768);
}

static void
test_analyze(void)
{
	int64_t		s64[3] = {INT64_MAX, -5, INT64_MIN};
	uint64_t	u64[3] = {7, 7, 7};
	int32_t		s32[4] = {-3, 4, 0, -1};
	uint32_t	u32[2] = {100, 355};
	int64_t		r64;
	uint64_t	ru64;
	int32_t		r32;
	uint32_t	ru32;
	unsigned	w;

	cdc_ffor_analyze_i64(s64, 3, &r64, &w);
	UNIT_CHECK(r64 == INT64_MIN && w == 64);
	cdc_ffor_analyze_u64(u64, 3, &ru64, &w);
	UNIT_CHECK(ru64 == 7 && w == 0);
	cdc_ffor_analyze_i32(s32, 4, &r32, &w);
	UNIT_CHECK(r32 == -3 && w == 3);	/* range 7 */
	cdc_ffor_analyze_u32(u32, 2, &ru32, &w);
	UNIT_CHECK(ru32 == 100 && w == 8);	/* range 255 */
	cdc_ffor_analyze_u32(u32, 0, &ru32, &w);
	UNIT_CHECK(ru32 == 0 && w == 0);
}

int
main(void)
{
	test_hand_u8_w1();
	test_hand_u16_w3();
	test_worked_transpose();
	test_hand_ffor();
	test_all_widths();
	test_sizes();
	test_analyze();
	UNIT_MAIN_END("test_fastlanes");
}
