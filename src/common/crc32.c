/*-------------------------------------------------------------------------
 *
 * crc32.c
 *	  CRC-32 (crc32.h), eight bytes per step.
 *
 * Table k holds the CRC contribution of a byte followed by k zero bytes,
 * so eight table lookups fold eight input bytes into the register at once
 * (a byte-at-a-time loop runs about five times slower on page-sized input).
 * The tables are built once, before main() or at the module's dlopen(), so
 * no caller ever races to fill them.
 *
 * IDENTIFICATION
 *	  src/common/crc32.c
 *
 *-------------------------------------------------------------------------
 */
#include "common/crc32.h"

#define CRC32_POLY	0xEDB88320u

static uint32_t crc_tables[8][256];

__attribute__((constructor))
static void
build_tables(void)
{
	for (uint32_t n = 0; n < 256; n++)
	{
		uint32_t	c = n;

		for (int bit = 0; bit < 8; bit++)
			c = (c & 1) ? CRC32_POLY ^ (c >> 1) : c >> 1;
		crc_tables[0][n] = c;
	}
	for (int k = 1; k < 8; k++)
		for (uint32_t n = 0; n < 256; n++)
		{
			uint32_t	prev = crc_tables[k - 1][n];

			crc_tables[k][n] = (prev >> 8) ^ crc_tables[0][prev & 0xFF];
		}
}

static inline uint32_t
load_le32(const uint8_t *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 |
		(uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

uint32_t
pfc_crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t	c = ~crc;

	while (len >= 8)
	{
		uint32_t	lo = c ^ load_le32(p);
		uint32_t	hi = load_le32(p + 4);

		c = crc_tables[7][lo & 0xFF] ^ crc_tables[6][(lo >> 8) & 0xFF] ^
			crc_tables[5][(lo >> 16) & 0xFF] ^ crc_tables[4][lo >> 24] ^
			crc_tables[3][hi & 0xFF] ^ crc_tables[2][(hi >> 8) & 0xFF] ^
			crc_tables[1][(hi >> 16) & 0xFF] ^ crc_tables[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len-- > 0)
		c = crc_tables[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
	return ~c;
}
