/*-------------------------------------------------------------------------
 *
 * string_dict.h
 *	  Distinct values of a block of variable-size values (strings, binary)
 *	  and one code per value: the input of the writer's binary
 *	  BlockDictionary (format notes 4.3).
 *
 * Not part of the contract; only src/amudai/ and its tests include it.
 *
 * IDENTIFICATION
 *	  src/amudai/string_dict.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef AM_STRING_DICT_H
#define AM_STRING_DICT_H

#include "amudai/amudai_int.h"

typedef struct AmStringDict
{
	uint32_t	count;			/* entries (distinct non-null values) */
	uint32_t   *codes;			/* per value: 0 = null, c >= 1 = entry c - 1 */
	uint32_t   *first;			/* per entry: index of its first value */
} AmStringDict;

/*
 * Value i of the block is bytes[offsets[i] .. offsets[i + 1]), null when
 * nulls (may be NULL) has nulls[i] != 0.  Entries are numbered in order of
 * first appearance.  Returns AM_OK with out->count == 0 and nothing
 * allocated when the block has no non-null value or more than max_entries
 * distinct ones (the scan stops at the first value past the limit);
 * AM_ERR_IO when allocation fails.  Free with am_string_dict_free().
 */
AmStatus	am_string_dict_build(const PfcAllocator *alloc, const uint8_t *bytes,
								 const uint64_t *offsets, const uint8_t *nulls,
								 size_t n, uint32_t max_entries,
								 AmStringDict *out, AmError *err);
void		am_string_dict_free(const PfcAllocator *alloc, AmStringDict *dict);

#endif							/* AM_STRING_DICT_H */
