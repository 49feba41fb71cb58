/*-------------------------------------------------------------------------
 *
 * test_crc32.c
 *	  CRC-32 of src/common (crc32.h).
 *
 * pfc_crc32 hands the bytes to zlib, so zlib's crc32() cannot be its
 * referee: the reference here is the CRC computed bit by bit from the
 * polynomial's definition.  Every length from 0 to 300 at every alignment,
 * a 3 MB buffer, chaining split at random points (and mixed with zlib's
 * own chaining, which callers may rely on) must agree with it.
 *
 * IDENTIFICATION
 *	  test/unit/test_crc32.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include <zlib.h>

#include "common/crc32.h"

/* Reflected CRC-32, one bit at a time: register preset and final xor ~0. */
static uint32_t
bitwise_crc(uint32_t crc, const uint8_t *buf, size_t len)
{
	uint32_t	c = ~crc;

	for (size_t i = 0; i < len; i++)
	{
		c ^= buf[i];
		for (int bit = 0; bit < 8; bit++)
			c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
	}
	return ~c;
}

static uint32_t
zlib_crc(uint32_t crc, const uint8_t *buf, size_t len)
{
	return (uint32_t) crc32(crc, buf, (uInt) len);
}

static void
test_check_value(void)
{
	/* the catalogued check value of CRC-32/ISO-HDLC */
	UNIT_CHECK(pfc_crc32("123456789", 9) == 0xCBF43926u);
	UNIT_CHECK(pfc_crc32("", 0) == 0);
	UNIT_CHECK(pfc_crc32(NULL, 0) == 0);
	UNIT_CHECK(pfc_crc32_update(0xCBF43926u, NULL, 0) == 0xCBF43926u);
}

static void
test_short_lengths(void)
{
	uint8_t		buf[300 + 8];
	uint64_t	seed = 7;
	int			bad = 0;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t) unit_rand(&seed);
	for (size_t shift = 0; shift < 8; shift++)
		for (size_t len = 0; len <= 300; len++)
			bad += pfc_crc32(buf + shift, len) != bitwise_crc(0, buf + shift, len);
	UNIT_CHECKF(bad == 0, "%d of 2408 short buffers differ from the reference", bad);
}

static void
test_large_and_chained(void)
{
	size_t		size = 3 * 1024 * 1024 + 5;
	uint8_t    *buf = malloc(size);
	uint64_t	seed = 99;
	uint32_t	whole;

	if (buf == NULL)
	{
		UNIT_CHECK(buf != NULL);
		return;
	}
	for (size_t i = 0; i < size; i++)
		buf[i] = (uint8_t) unit_rand(&seed);
	whole = bitwise_crc(0, buf, size);
	UNIT_CHECK(pfc_crc32(buf, size) == whole);
	for (int round = 0; round < 50; round++)
	{
		size_t		done = 0;
		uint32_t	crc = 0;

		while (done < size)
		{
			size_t		n = (size_t) (unit_rand(&seed) % 70000);

			if (n > size - done)
				n = size - done;
			crc = pfc_crc32_update(crc, buf + done, n);
			done += n;
		}
		UNIT_CHECKF(crc == whole, "round %d: chained %08x, whole %08x", round, crc, whole);
	}
	/* chaining from a zlib CRC and back */
	UNIT_CHECK(zlib_crc(pfc_crc32(buf, 1000), buf + 1000, size - 1000) == whole);
	UNIT_CHECK(pfc_crc32_update(zlib_crc(0, buf, 12345), buf + 12345, size - 12345) == whole);
	/* all-zero and all-one bytes (the table's extremes) */
	memset(buf, 0, 4096);
	UNIT_CHECK(pfc_crc32(buf, 4096) == bitwise_crc(0, buf, 4096));
	memset(buf, 0xFF, 4096);
	UNIT_CHECK(pfc_crc32(buf, 4096) == bitwise_crc(0, buf, 4096));
	free(buf);
}

int
main(void)
{
	test_check_value();
	test_short_lengths();
	test_large_and_chained();
	UNIT_MAIN_END("test_crc32");
}
