/*-------------------------------------------------------------------------
 *
 * string_dict.c
 *	  Dictionary of a block of variable-size values (string_dict.h): an
 *	  open-addressing hash set of entry numbers keyed by XXH3 of the bytes.
 *
 * The table is sized for max_entries at a load factor of at most 1/2, so a
 * probe sequence always ends at an empty slot; the full 64-bit hash is
 * kept per entry so most mismatches cost no memcmp.
 *
 * IDENTIFICATION
 *	  src/amudai/string_dict.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/string_dict.h"

#include <xxhash.h>

void
am_string_dict_free(const PfcAllocator *alloc, AmStringDict *dict)
{
	am_release(alloc, dict->codes);
	am_release(alloc, dict->first);
	memset(dict, 0, sizeof(*dict));
}

AmStatus
am_string_dict_build(const PfcAllocator *alloc, const uint8_t *bytes,
					 const uint64_t *offsets, const uint8_t *nulls, size_t n,
					 uint32_t max_entries, AmStringDict *out, AmError *err)
{
	size_t		slots = 16;
	uint32_t   *table = NULL;
	uint64_t   *hashes = NULL;
	uint32_t	count = 0;

	memset(out, 0, sizeof(*out));
	if (n == 0 || max_entries == 0)
		return AM_OK;
	while (slots < (size_t) max_entries * 2)
		slots *= 2;
	table = am_alloc(alloc, slots * sizeof(uint32_t), err);
	hashes = am_alloc(alloc, (size_t) max_entries * sizeof(uint64_t), err);
	out->codes = am_alloc(alloc, n * sizeof(uint32_t), err);
	out->first = am_alloc(alloc, (size_t) max_entries * sizeof(uint32_t), err);
	if (table == NULL || hashes == NULL || out->codes == NULL || out->first == NULL)
	{
		am_release(alloc, table);
		am_release(alloc, hashes);
		am_string_dict_free(alloc, out);
		return AM_ERR_IO;
	}
	memset(table, 0, slots * sizeof(uint32_t));	/* 0 = empty, else entry + 1 */
	for (size_t i = 0; i < n; i++)
	{
		const uint8_t *v = bytes + offsets[i];
		size_t		len = (size_t) (offsets[i + 1] - offsets[i]);
		uint64_t	h;
		size_t		s;

		if (nulls != NULL && nulls[i])
		{
			out->codes[i] = 0;
			continue;
		}
		h = XXH3_64bits(v, len);
		for (s = (size_t) h & (slots - 1);; s = (s + 1) & (slots - 1))
		{
			uint32_t	e = table[s];

			if (e == 0)
				break;
			e--;
			if (hashes[e] == h &&
				offsets[out->first[e] + 1] - offsets[out->first[e]] == len &&
				memcmp(bytes + offsets[out->first[e]], v, len) == 0)
				break;
		}
		if (table[s] == 0)
		{
			if (count == max_entries)
			{
				count = 0;		/* too many distinct values: no dictionary */
				break;
			}
			hashes[count] = h;
			out->first[count] = (uint32_t) i;
			table[s] = ++count;
		}
		out->codes[i] = table[s];
	}
	am_release(alloc, table);
	am_release(alloc, hashes);
	if (count == 0)
		am_string_dict_free(alloc, out);
	out->count = count;
	return AM_OK;
}
