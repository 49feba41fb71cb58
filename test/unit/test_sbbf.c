/*-------------------------------------------------------------------------
 *
 * test_sbbf.c
 *	  Split-block Bloom filters of src/common (sbbf.h).
 *
 * Checked against a naive reference written from the format text: a
 * filter as an array of u32 words, set and tested word by word, then laid
 * out little-endian.  The bytes pfc_sbbf_insert produces must equal the
 * reference's, and every probe must give the reference's answer.  Hash
 * values and one filter image were recorded from the per-layer copies this
 * code replaced, so a file written before the move still probes the same.
 *
 * IDENTIFICATION
 *	  test/unit/test_sbbf.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include "common/sbbf.h"

/* Reference: num_blocks blocks of eight u32 words. */
#define REF_MAX_BLOCKS 64

typedef struct RefFilter
{
	uint32_t	words[REF_MAX_BLOCKS][8];
	uint32_t	num_blocks;
} RefFilter;

static const uint32_t ref_salt[8] = {
	0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
	0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U
};

static uint32_t
ref_block(const RefFilter *f, uint64_t hash)
{
	/* floor(upper32 * num_blocks / 2^32), written as a division */
	return (uint32_t) ((double) (hash >> 32) * f->num_blocks / 4294967296.0);
}

static void
ref_insert(RefFilter *f, uint64_t hash)
{
	uint32_t	b = ref_block(f, hash);

	for (int i = 0; i < 8; i++)
		f->words[b][i] |= UINT32_C(1) << (((uint32_t) hash * ref_salt[i]) >> 27);
}

static bool
ref_probe(const RefFilter *f, uint64_t hash)
{
	uint32_t	b = ref_block(f, hash);

	for (int i = 0; i < 8; i++)
		if (!(f->words[b][i] & (UINT32_C(1) << (((uint32_t) hash * ref_salt[i]) >> 27))))
			return false;
	return true;
}

static void
ref_bytes(const RefFilter *f, uint8_t *out)
{
	for (uint32_t b = 0; b < f->num_blocks; b++)
		for (int i = 0; i < 8; i++)
			for (int k = 0; k < 4; k++)
				out[32 * b + 4 * i + k] = (uint8_t) (f->words[b][i] >> (8 * k));
}

/* The filter matches the reference byte for byte and probe for probe. */
static void
test_against_reference(void)
{
	static const uint32_t sizes[] = {1, 2, 3, 7, 16, 33, 64};
	uint64_t	seed = 0x5bbf;

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		uint32_t	nb = sizes[s];
		size_t		len = (size_t) nb * PFC_SBBF_BLOCK_BYTES;
		RefFilter	ref;
		uint8_t		bits[REF_MAX_BLOCKS * 32];
		uint8_t		expect[REF_MAX_BLOCKS * 32];
		uint64_t	inserted[300];
		int			n = (int) (nb * 4 < 300 ? nb * 4 : 300);
		int			disagree = 0;
		int			missing = 0;

		memset(&ref, 0, sizeof(ref));
		ref.num_blocks = nb;
		memset(bits, 0, len);
		for (int i = 0; i < n; i++)
		{
			inserted[i] = unit_rand(&seed);
			if (i == 0)
				inserted[i] = 0;	/* the all-zero hash is a valid key */
			if (i == 1)
				inserted[i] = UINT64_MAX;	/* the last block */
			ref_insert(&ref, inserted[i]);
			pfc_sbbf_insert(bits, len, inserted[i]);
		}
		ref_bytes(&ref, expect);
		UNIT_CHECKF(memcmp(bits, expect, len) == 0, "%u blocks: bytes differ", nb);
		for (int i = 0; i < n; i++)
			missing += !pfc_sbbf_probe(bits, len, inserted[i]);
		UNIT_CHECKF(missing == 0, "%u blocks: %d inserted hashes not found", nb, missing);
		for (int i = 0; i < 20000; i++)
		{
			uint64_t	h = unit_rand(&seed);

			disagree += pfc_sbbf_probe(bits, len, h) != ref_probe(&ref, h);
		}
		UNIT_CHECKF(disagree == 0, "%u blocks: %d probes differ", nb, disagree);
	}
}

/* Bytes past the whole blocks are ignored; fewer than 32 bytes: no filter. */
static void
test_lengths(void)
{
	uint8_t		bits[64 + 31];
	uint8_t		tail[31];

	memset(bits, 0, sizeof(bits));
	pfc_sbbf_insert(bits, 31, 12345);
	for (size_t i = 0; i < 31; i++)
		UNIT_CHECK(bits[i] == 0);
	UNIT_CHECK(pfc_sbbf_probe(bits, 31, 12345));	/* maybe */
	UNIT_CHECK(pfc_sbbf_probe(NULL, 0, 12345));
	pfc_sbbf_insert(NULL, 0, 12345);	/* nothing to touch */

	/* 95 bytes = 2 blocks: the same filter as 64 bytes, tail untouched */
	memset(tail, 0, sizeof(tail));
	for (uint64_t h = 1; h < 200; h++)
		pfc_sbbf_insert(bits, sizeof(bits), h * UINT64_C(0x9E3779B97F4A7C15));
	UNIT_CHECK(memcmp(bits + 64, tail, sizeof(tail)) == 0);
	for (uint64_t h = 1; h < 200; h++)
		UNIT_CHECK(pfc_sbbf_probe(bits, 64, h * UINT64_C(0x9E3779B97F4A7C15)));

	/* an empty (all-zero) filter holds nothing */
	memset(bits, 0, sizeof(bits));
	UNIT_CHECK(!pfc_sbbf_probe(bits, 64, 0));
	UNIT_CHECK(!pfc_sbbf_probe(bits, 64, UINT64_MAX));
}

/* The block choice: upper 32 bits scaled to the block count. */
static void
test_block_choice(void)
{
	uint8_t		bits[4 * 32];
	int			nonzero[4] = {0};

	/* hash >> 32 == 0x80000000 picks block 2 of 4; 0xFFFFFFFF block 3 */
	memset(bits, 0, sizeof(bits));
	pfc_sbbf_insert(bits, sizeof(bits), UINT64_C(0x8000000000000001));
	pfc_sbbf_insert(bits, sizeof(bits), UINT64_C(0xFFFFFFFF00000001));
	for (int b = 0; b < 4; b++)
		for (int i = 0; i < 32; i++)
			nonzero[b] += bits[32 * b + i] != 0;
	UNIT_CHECK(nonzero[0] == 0 && nonzero[1] == 0);
	UNIT_CHECK(nonzero[2] > 0 && nonzero[3] > 0);
	/* key 1: bit salt >> 27 of each word, one bit per word */
	for (int i = 0; i < 8; i++)
	{
		uint32_t	w = (uint32_t) bits[64 + 4 * i] | (uint32_t) bits[65 + 4 * i] << 8 |
			(uint32_t) bits[66 + 4 * i] << 16 | (uint32_t) bits[67 + 4 * i] << 24;

		UNIT_CHECK(w == UINT32_C(1) << (ref_salt[i] >> 27));
	}
}

/*
 * Values recorded from the code this replaced (xxHash64 seed 0 for
 * Parquet, XXH3 with Amudai's writer seed), and the image of a 3-block
 * filter holding the five strings.
 */
static void
test_known_values(void)
{
	static const char *const values[5] = {"", "parquet", "amudai", "2024-01-01", "x"};
	static const uint64_t xxh64[5] = {
		UINT64_C(0xef46db3751d8e999), UINT64_C(0x3c9d29275c52e429),
		UINT64_C(0xdd21924e8793216b), UINT64_C(0xf20c6b2d03a767c9),
		UINT64_C(0x5c80c09683041123)
	};
	static const uint64_t xxh3[5] = {
		UINT64_C(0x0d1c3bbd29dfb497), UINT64_C(0xb79e897bce3f547d),
		UINT64_C(0x4bd5e4182b47e0ea), UINT64_C(0xcadbc8b660d490ea),
		UINT64_C(0xb3b7b1b0d2185a08)
	};
	static const uint8_t image[96] = {
		0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x40, 0x00,
		0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x20, 0x00, 0x00,
		0x10, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x04, 0x00, 0x04, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00,
		0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x40,
		0x00, 0x00, 0x00, 0x02, 0x00, 0x80, 0x40, 0x20, 0x21, 0x00, 0x00, 0x00,
		0x20, 0x00, 0x00, 0x02, 0x00, 0x00, 0x80, 0x12, 0x00, 0x41, 0x00, 0x02,
		0x00, 0x01, 0x40, 0x20, 0x00, 0x80, 0x00, 0x60, 0x00, 0x40, 0x10, 0x40,
	};
	uint8_t		bits[96];

	memset(bits, 0, sizeof(bits));
	for (int i = 0; i < 5; i++)
	{
		size_t		len = strlen(values[i]);

		UNIT_CHECKF(pfc_sbbf_hash_xxh64(values[i], len) == xxh64[i], "xxh64 of \"%s\"", values[i]);
		UNIT_CHECKF(pfc_sbbf_hash_xxh3(values[i], len, UINT64_C(0x4D75646169424646)) == xxh3[i],
					"xxh3 of \"%s\"", values[i]);
		pfc_sbbf_insert(bits, sizeof(bits), pfc_sbbf_hash_xxh64(values[i], len));
	}
	UNIT_CHECK_MEM(bits, image, sizeof(image));
	for (int i = 0; i < 5; i++)
		UNIT_CHECK(pfc_sbbf_probe(image, sizeof(image), xxh64[i]));
}

/* False positives near the design rate: 1024 keys in 2 kB (16 bits/key). */
static void
test_false_positive_rate(void)
{
	static uint8_t bits[2048];
	uint64_t	seed = 42;
	int			fp = 0;

	for (int i = 0; i < 1024; i++)
		pfc_sbbf_insert(bits, sizeof(bits), unit_rand(&seed));
	for (int i = 0; i < 100000; i++)
		fp += pfc_sbbf_probe(bits, sizeof(bits), unit_rand(&seed));
	/* about 0.1% expected at 16 bits per key; 1% would mean broken bits */
	UNIT_CHECKF(fp < 1000, "%d false positives in 100000", fp);
}

int
main(void)
{
	test_against_reference();
	test_lengths();
	test_block_choice();
	test_known_values();
	test_false_positive_rate();
	UNIT_MAIN_END("test_sbbf");
}
