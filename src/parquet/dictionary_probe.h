/*-------------------------------------------------------------------------
 *
 * dictionary_probe.h
 *	  Contract of the dictionary probe: the dictionary of a column chunk
 *	  whose data pages are all dictionary-encoded, read without decoding
 *	  any data page, for dictionary pruning.
 *
 * Plain C11, no PostgreSQL, same rules as parquet.h.
 *
 * IDENTIFICATION
 *	  src/parquet/dictionary_probe.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PQ_DICTIONARY_PROBE_H
#define PQ_DICTIONARY_PROBE_H

#include "parquet/page_index.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The distinct values of a column chunk: each entry is one value's plain
 * encoding (byte arrays without their length prefix, fixed-width types
 * their little-endian bytes), pointing into the decompressed dictionary
 * page, which the structure owns.
 */
typedef struct PqDictionary
{
	uint32_t	num_values;
	const PqBytes *values;
	/* private: what pq_dictionary_free releases */
	PfcAllocator alloc;
	void	   *body;
} PqDictionary;

/*
 * Read the dictionary of leaf `leaf` of row group `row_group`, but only
 * when it holds every value of the chunk: the chunk's first page is a
 * dictionary page and every data page after it is dictionary-encoded
 * (checked by walking the page headers, so a chunk that fell back to
 * PLAIN pages is recognized whatever its encodings list says).
 *
 * On PQ_OK, *dict is the dictionary, or NULL when the chunk does not
 * qualify (no dictionary, a non-dictionary data page, BOOLEAN or INT96
 * values, an external or encrypted chunk).  Errors are the page reader's:
 * PQ_ERR_IO, PQ_ERR_CORRUPT (headers or dictionary that do not fit the
 * chunk), PQ_ERR_UNSUPPORTED (codec).  Callers that only prune may treat
 * any error as "cannot tell".
 */
PqStatus	pq_read_dictionary(PqFile *file, int row_group, int leaf,
							   const PfcAllocator *alloc,
							   PqDictionary **dict, PqError *err);

void		pq_dictionary_free(PqDictionary *dict);

#ifdef __cplusplus
}
#endif

#endif							/* PQ_DICTIONARY_PROBE_H */
