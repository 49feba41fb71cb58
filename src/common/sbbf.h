/*-------------------------------------------------------------------------
 *
 * sbbf.h
 *	  Split-block Bloom filters: insert and probe 64-bit hashes.
 *
 * The layout both formats store (Parquet's BloomFilter.md; Amudai's
 * MembershipFilters.sbbf reuses it): a bitset of 32-byte blocks, each eight
 * little-endian u32 words.  The upper 32 bits of a hash choose the block,
 * ((hash >> 32) * num_blocks) >> 32; the lower 32 bits times eight fixed
 * odd salts choose one bit in each word, the top five bits of the product.
 *
 * What is hashed differs per format and stays with the caller: Parquet
 * hashes a value's plain encoding (no length prefix) with xxHash64, seed 0
 * (pfc_sbbf_hash_xxh64); Amudai hashes the value bytes with XXH3-64 and the
 * seed the field descriptor names (pfc_sbbf_hash_xxh3).
 *
 * The bitset length is given in bytes; only whole blocks count, so a length
 * under 32 bytes (or over UINT32_MAX blocks, which no writer makes) is no
 * filter: a probe answers "maybe" and an insert does nothing.
 *
 * IDENTIFICATION
 *	  src/common/sbbf.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PFC_SBBF_H
#define PFC_SBBF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PFC_SBBF_BLOCK_BYTES 32

/*
 * May the set hold the value whose hash this is?  false only when some bit
 * the hash selects is clear, so false is certain and true is "maybe".
 */
bool		pfc_sbbf_probe(const uint8_t *bitset, size_t len, uint64_t hash);

/* Set the eight bits the hash selects. */
void		pfc_sbbf_insert(uint8_t *bitset, size_t len, uint64_t hash);

/* Parquet's hash: xxHash64 with seed 0. */
uint64_t	pfc_sbbf_hash_xxh64(const void *value, size_t len);

/* Amudai's hash: XXH3 64-bit with the filter's seed. */
uint64_t	pfc_sbbf_hash_xxh3(const void *value, size_t len, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif							/* PFC_SBBF_H */
