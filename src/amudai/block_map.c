/*-------------------------------------------------------------------------
 *
 * block_map.c
 *	  Block maps of encoded buffers (format notes, section 3.2): decoding,
 *	  validation, and logical-position lookup.
 *
 * Layout (offsets relative to the block map, all LE):
 *
 *	segment records (each 8-byte aligned)
 *	u64 segment_logical_offsets[k + 1]	0, ..., value_count
 *	u64 segment_record_offsets[k + 1]	0, ..., end of the last record
 *	footer: u64 value_count, block_count, segment_count (k), segment_size,
 *			data_size
 *
 * A segment record: u64 first_logical_pos, u64 first_block_offset,
 * u32 min_logical_size, u32 min_block_size, u8 logical_size_bits,
 * u8 block_size_bits (each 8, 16 or 32), u16 block_count, then the packed
 * logical sizes (size - min), zero pad to 4, the packed block sizes, zero
 * pad to 8.  The widths come before the count; the book has them after.
 *
 * The map is expanded at parse time into per-block logical and byte
 * offsets (16 bytes per block; blocks hold thousands of values), so lookups
 * are one binary search and block ranges are two loads.  Every rule is
 * checked: counts consistent with the footer, offsets strictly increasing,
 * segments full except the last, blocks non-empty and 8-byte multiples,
 * every block inside the buffer's data section.
 *
 * IDENTIFICATION
 *	  src/amudai/block_map.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/amudai_int.h"

#define SEGMENT_HEADER_SIZE 28

static AmStatus
map_corrupt(AmError *err, const char *what)
{
	return am_fail(err, AM_ERR_CORRUPT, "block map: %s", what);
}

static inline uint32_t
load_packed(const uint8_t *p, unsigned bits, uint32_t i)
{
	switch (bits)
	{
		case 8:
			return p[i];
		case 16:
			return am_load_u16(p + 2 * (size_t) i);
		default:
			return am_load_u32(p + 4 * (size_t) i);
	}
}

/*
 * Decode segment `seg` (record bytes rec[0..rec_len)) into the expanded
 * arrays starting at block index first_block.
 */
static AmStatus
decode_segment(const uint8_t *rec, size_t rec_len, uint64_t first_block,
			   uint32_t expect_blocks, AmBlockMap *map, AmError *err)
{
	uint64_t	first_logical,
				first_offset;
	uint32_t	min_logical,
				min_size;
	unsigned	lbits,
				bbits;
	uint32_t	n;
	size_t		sizes_at,
				end_at;
	uint64_t	logical,
				offset;

	if (rec_len < SEGMENT_HEADER_SIZE)
		return map_corrupt(err, "segment record too short");
	first_logical = am_load_u64(rec);
	first_offset = am_load_u64(rec + 8);
	min_logical = am_load_u32(rec + 16);
	min_size = am_load_u32(rec + 20);
	lbits = rec[24];
	bbits = rec[25];
	n = am_load_u16(rec + 26);
	if ((lbits != 8 && lbits != 16 && lbits != 32) ||
		(bbits != 8 && bbits != 16 && bbits != 32))
		return map_corrupt(err, "packed size width is not 8, 16 or 32");
	if (n != expect_blocks)
		return map_corrupt(err, "segment block count disagrees with the footer");
	sizes_at = am_align_up(SEGMENT_HEADER_SIZE + (size_t) n * lbits / 8, 4);
	end_at = am_align_up(sizes_at + (size_t) n * bbits / 8, 8);
	if (end_at > rec_len)
		return map_corrupt(err, "segment record overruns its range");
	if (first_logical != map->logical_offsets[first_block] ||
		first_offset != map->byte_offsets[first_block])
		return map_corrupt(err, "segment does not start where the previous one ended");

	logical = first_logical;
	offset = first_offset;
	for (uint32_t i = 0; i < n; i++)
	{
		uint64_t	lsize = (uint64_t) min_logical + load_packed(rec + SEGMENT_HEADER_SIZE, lbits, i);
		uint64_t	bsize = (uint64_t) min_size + load_packed(rec + sizes_at, bbits, i);

		if (lsize == 0 || bsize < 8 || bsize % 8 != 0)
			return map_corrupt(err, "empty block or block size not a multiple of 8");
		logical += lsize;		/* at most 2^33 per block: no overflow here */
		offset += bsize;
		if (logical > map->value_count || offset > map->data_size)
			return map_corrupt(err, "blocks exceed the footer's totals");
		map->logical_offsets[first_block + i + 1] = logical;
		map->byte_offsets[first_block + i + 1] = offset;
	}
	return AM_OK;
}

AmStatus
am_block_map_parse(const uint8_t *bytes, size_t len, uint64_t data_limit,
				   const PfcAllocator *alloc, AmBlockMap *out, AmError *err)
{
	const uint8_t *footer;
	const uint8_t *seg_logical,
			   *seg_records;
	uint64_t	k;
	size_t		lists_at;
	AmStatus	st;

	memset(out, 0, sizeof(*out));
	if (len < AM_BLOCK_MAP_FOOTER_SIZE + 16 || len % 8 != 0)
		return map_corrupt(err, "size is not a multiple of 8 of at least 56 bytes");
	footer = bytes + len - AM_BLOCK_MAP_FOOTER_SIZE;
	out->value_count = am_load_u64(footer);
	out->block_count = am_load_u64(footer + 8);
	out->segment_count = k = am_load_u64(footer + 16);
	out->segment_size = am_load_u64(footer + 24);
	out->data_size = am_load_u64(footer + 32);

	if (k > (len - AM_BLOCK_MAP_FOOTER_SIZE) / 16 - 1)
		return map_corrupt(err, "segment count does not fit");
	lists_at = len - AM_BLOCK_MAP_FOOTER_SIZE - 16 * (size_t) (k + 1);
	seg_logical = bytes + lists_at;
	seg_records = seg_logical + 8 * (k + 1);

	/* each block takes at least two packed bytes, bounding block_count */
	if (out->block_count > len || out->value_count < out->block_count ||
		out->block_count < k || out->data_size > data_limit)
		return map_corrupt(err, "footer counts are inconsistent");
	if (k > 0 &&
		(out->segment_size == 0 || out->segment_size > UINT16_MAX ||
		 (k - 1) * out->segment_size >= out->block_count ||
		 k * out->segment_size < out->block_count))
		return map_corrupt(err, "segment size does not match the block count");
	if (k == 0 && (out->block_count != 0 || out->value_count != 0 ||
				   out->data_size != 0))
		return map_corrupt(err, "blocks without segments");
	if (am_load_u64(seg_logical) != 0 || am_load_u64(seg_records) != 0 ||
		am_load_u64(seg_logical + 8 * k) != out->value_count ||
		am_load_u64(seg_records + 8 * k) != lists_at)
		return map_corrupt(err, "segment offset lists do not span the map");
	for (uint64_t i = 0; i < k; i++)
	{
		uint64_t	r0 = am_load_u64(seg_records + 8 * i),
					r1 = am_load_u64(seg_records + 8 * (i + 1));

		if (am_load_u64(seg_logical + 8 * i) >= am_load_u64(seg_logical + 8 * (i + 1)) ||
			r0 >= r1 || r0 % 8 != 0)
			return map_corrupt(err, "segment offsets are not strictly increasing");
	}

	out->logical_offsets = am_alloc(alloc, (out->block_count + 1) * 16, err);
	if (out->logical_offsets == NULL)
		return AM_ERR_IO;
	out->byte_offsets = out->logical_offsets + out->block_count + 1;
	out->logical_offsets[0] = 0;
	out->byte_offsets[0] = 0;

	for (uint64_t i = 0; i < k; i++)
	{
		uint64_t	r0 = am_load_u64(seg_records + 8 * i),
					r1 = am_load_u64(seg_records + 8 * (i + 1));
		uint64_t	first = i * out->segment_size;
		uint64_t	nblocks = out->block_count - first < out->segment_size ?
			out->block_count - first : out->segment_size;

		st = decode_segment(bytes + r0, (size_t) (r1 - r0), first,
							(uint32_t) nblocks, out, err);
		if (st == AM_OK &&
			out->logical_offsets[first + nblocks] != am_load_u64(seg_logical + 8 * (i + 1)))
			st = map_corrupt(err, "segment logical end disagrees with its blocks");
		if (st != AM_OK)
		{
			am_block_map_free(out, alloc);
			return st;
		}
	}
	if (out->byte_offsets[out->block_count] != out->data_size)
	{
		am_block_map_free(out, alloc);
		return map_corrupt(err, "block sizes do not add up to data_size");
	}
	return AM_OK;
}

void
am_block_map_free(AmBlockMap *map, const PfcAllocator *alloc)
{
	am_release(alloc, map->logical_offsets);
	map->logical_offsets = NULL;
	map->byte_offsets = NULL;
}

uint64_t
am_block_map_find(const AmBlockMap *map, uint64_t pos)
{
	uint64_t	lo = 0,
				hi = map->block_count;

	/* last block whose first position is <= pos */
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (map->logical_offsets[mid] <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}
