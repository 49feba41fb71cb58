/*-------------------------------------------------------------------------
 *
 * pruning.c
 *	  What a planner reads to skip data: split-block Bloom filters of
 *	  stripe field descriptors (format notes, 5.4) and RANGE_INDEX buffers
 *	  (3.9, 5.5).
 *
 * Bloom filter: Parquet's split-block layout (common/sbbf.h) over
 * h = XXH3_64bits_withSeed(value, seed).
 *
 * Range index: a 40-byte header (u16 version 1, u8 basic_type, u8
 * has_checksum, u64 span, u64 sizes of the min, max and invalid-count
 * payloads, u16 logical block size, u16 0), then the payloads, each one
 * complete block (presence disabled, checksum when has_checksum) whose
 * values are the raw little-endian bytes of the array as a u8 stream.
 *
 * IDENTIFICATION
 *	  src/amudai/pruning.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/amudai_int.h"

#include "common/sbbf.h"

bool
am_sbbf_might_contain(const AmFieldDescriptor *fd, const void *value,
					  size_t len)
{
	/* the parser checked sbbf_data.len == 32 * sbbf_num_blocks */
	if (fd->sbbf_data.len == 0 || fd->sbbf_num_blocks == 0 ||
		fd->sbbf_hash_algorithm.len != 7 ||
		memcmp(fd->sbbf_hash_algorithm.data, "xxh3_64", 7) != 0)
		return true;
	return pfc_sbbf_probe(fd->sbbf_data.data, fd->sbbf_data.len,
						  pfc_sbbf_hash_xxh3(value, len, fd->sbbf_hash_seed));
}

/* Decode one payload block into out[want] bytes. */
static AmStatus
range_payload(const uint8_t *p, size_t len, bool checksums, size_t want,
			  void *out, const PfcAllocator *alloc, AmError *err)
{
	AmBlockView view;
	AmStatus	st;

	if ((st = am_block_parse(p, len, checksums, true, false, &view, err)) != AM_OK)
		return st;
	return am_decode_numeric(view.values.data, view.values.len, AM_NUM_U8,
							 want, out, alloc, err);
}

AmStatus
am_range_index_parse(const uint8_t *bytes, size_t len, uint32_t elem_size,
					 const PfcAllocator *alloc, AmRangeIndex *out, AmError *err)
{
	uint64_t	sizes[3];
	uint64_t	at = 40;
	uint64_t	want;
	bool		checksums;
	AmStatus	st;

	memset(out, 0, sizeof(*out));
	if (len < 40 || am_load_u16(bytes) != 1)
		return am_fail(err, AM_ERR_CORRUPT, "range index: bad header or version");
	if (elem_size == 0 || elem_size > 16)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT, "range index: bad element size");
	out->basic_type = bytes[2];
	checksums = bytes[3] != 0;
	out->span = am_load_u64(bytes + 4);
	sizes[0] = am_load_u64(bytes + 12);
	sizes[1] = am_load_u64(bytes + 20);
	sizes[2] = am_load_u64(bytes + 28);
	out->block_rows = am_load_u16(bytes + 36);
	out->elem_size = elem_size;
	if (out->block_rows == 0)
		return am_fail(err, AM_ERR_CORRUPT, "range index: zero block size");
	out->blocks = (out->span + out->block_rows - 1) / out->block_rows;
	for (int i = 0; i < 3; i++)
	{
		if (sizes[i] > len - at)
			return am_fail(err, AM_ERR_CORRUPT, "range index: payloads overrun the buffer");
		at += sizes[i];
	}
	/* every value needs at least one encoded byte in some cascade; bound
	 * the allocation by the payload size times a generous factor */
	if (out->blocks > ((uint64_t) 1 << 32) ||
		out->blocks * elem_size > (sizes[0] + 64) * 4096)
		return am_fail(err, AM_ERR_CORRUPT, "range index: impossible span");
	want = out->blocks * elem_size;
	out->mins = am_alloc(alloc, (size_t) want + 1, err);
	out->maxs = am_alloc(alloc, (size_t) want + 1, err);
	if (out->mins == NULL || out->maxs == NULL)
	{
		am_range_index_free(out, alloc);
		return AM_ERR_IO;
	}
	at = 40;
	st = range_payload(bytes + at, (size_t) sizes[0], checksums, (size_t) want,
					   out->mins, alloc, err);
	at += sizes[0];
	if (st == AM_OK)
		st = range_payload(bytes + at, (size_t) sizes[1], checksums,
						   (size_t) want, out->maxs, alloc, err);
	at += sizes[1];
	if (st == AM_OK && sizes[2] > 0)
	{
		out->invalid = am_alloc(alloc, (size_t) out->blocks * 2 + 2, err);
		if (out->invalid == NULL)
			st = AM_ERR_IO;
		else
			st = range_payload(bytes + at, (size_t) sizes[2], checksums,
							   (size_t) out->blocks * 2, out->invalid, alloc, err);
	}
	if (st != AM_OK)
		am_range_index_free(out, alloc);
	return st;
}

void
am_range_index_free(AmRangeIndex *index, const PfcAllocator *alloc)
{
	am_release(alloc, index->mins);
	am_release(alloc, index->maxs);
	am_release(alloc, index->invalid);
	index->mins = index->maxs = NULL;
	index->invalid = NULL;
}
