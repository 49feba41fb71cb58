/*-------------------------------------------------------------------------
 *
 * sbbf.c
 *	  Split-block Bloom filters (sbbf.h).
 *
 * Words are read and written byte by byte, so the bitset needs no
 * alignment and the result is the same on any host byte order.
 *
 * IDENTIFICATION
 *	  src/common/sbbf.c
 *
 *-------------------------------------------------------------------------
 */
#include "common/sbbf.h"

#include <xxhash.h>

/* The eight odd multipliers of the format, one per word of a block. */
static const uint32_t sbbf_salt[8] = {
	0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
	0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U
};

/*
 * Blocks of a bitset of len bytes, 0 when it holds no usable filter: more
 * blocks than 32 bits count would overflow the block choice below.
 */
static inline uint64_t
usable_blocks(size_t len)
{
	uint64_t	num_blocks = len / PFC_SBBF_BLOCK_BYTES;

	return num_blocks <= UINT32_MAX ? num_blocks : 0;
}

/* Byte offset of the block the hash selects among num_blocks (>= 1). */
static inline size_t
block_offset(uint64_t num_blocks, uint64_t hash)
{
	return (size_t) (((hash >> 32) * num_blocks) >> 32) * PFC_SBBF_BLOCK_BYTES;
}

bool
pfc_sbbf_probe(const uint8_t *bitset, size_t len, uint64_t hash)
{
	uint64_t	num_blocks = usable_blocks(len);
	const uint8_t *block;
	uint32_t	key = (uint32_t) hash;

	if (num_blocks == 0)
		return true;
	block = bitset + block_offset(num_blocks, hash);
	for (int i = 0; i < 8; i++)
	{
		unsigned	bit = (key * sbbf_salt[i]) >> 27;

		if ((block[4 * i + bit / 8] & (1u << (bit % 8))) == 0)
			return false;
	}
	return true;
}

void
pfc_sbbf_insert(uint8_t *bitset, size_t len, uint64_t hash)
{
	uint64_t	num_blocks = usable_blocks(len);
	uint8_t    *block;
	uint32_t	key = (uint32_t) hash;

	if (num_blocks == 0)
		return;
	block = bitset + block_offset(num_blocks, hash);
	for (int i = 0; i < 8; i++)
	{
		unsigned	bit = (key * sbbf_salt[i]) >> 27;

		block[4 * i + bit / 8] |= (uint8_t) (1u << (bit % 8));
	}
}

uint64_t
pfc_sbbf_hash_xxh64(const void *value, size_t len)
{
	return XXH64(value, len, 0);
}

uint64_t
pfc_sbbf_hash_xxh3(const void *value, size_t len, uint64_t seed)
{
	return XXH3_64bits_withSeed(value, len, seed);
}
