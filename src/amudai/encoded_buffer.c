/*-------------------------------------------------------------------------
 *
 * encoded_buffer.c
 *	  Blocks of encoded buffers: framing, checksums, embedded presence, and
 *	  the buffer reader (format notes, sections 3.1 and 3.3-3.7).
 *
 * A block is
 *
 *	u32 presence_size, u32 values_size,
 *	presence section (presence_size bytes), zero pad to 8,
 *	value-encoding section (values_size bytes), zero pad,
 *	u32 checksum32 of everything before it (when block_checksums)
 *
 * and its logical value count comes from the block map, never from the
 * block.  The presence section exists only when the block has a null:
 * [01] all null; [02][one byte per position, 1 = present]; or
 * [03][u8 negated][Roaring bitmap in the portable serialization] listing the
 * present positions (negated = 0) or the null ones (negated = 1).
 *
 * The Roaring reader is our own, after the RoaringFormatSpec: a cookie
 * (12346 + u32 container count, or 12347 | (count - 1) << 16 + a bitmap of
 * run containers), then per container a u16 key and u16 cardinality - 1,
 * an offset table (skipped: containers are read in order), and the
 * containers: runs ([u16 count][u16 start, u16 length - 1]...), arrays
 * (cardinality <= 4096 sorted u16) or bitmaps (8 KiB).  Every position must
 * fall below the block's value count.
 *
 * IDENTIFICATION
 *	  src/amudai/encoded_buffer.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/amudai_int.h"

#define PRESENCE_ALL_NULLS	1
#define PRESENCE_PLAIN		2
#define PRESENCE_ROARING	3

#define ROARING_COOKIE_NO_RUNS	12346
#define ROARING_COOKIE_RUNS		12347
#define ROARING_MAX_ARRAY		4096
#define ROARING_NO_OFFSET_THRESHOLD 4

AmStatus
am_block_parse(const uint8_t *bytes, size_t len, bool checksums, bool verify,
			   bool embedded_presence, AmBlockView *out, AmError *err)
{
	size_t		body = len;
	uint32_t	presence_size,
				values_size;
	uint64_t	values_at;

	memset(out, 0, sizeof(*out));
	if (len < 8 + (checksums ? 4 : 0))
		return am_fail(err, AM_ERR_CORRUPT, "block of %zu bytes is too short", len);
	if (checksums)
	{
		body = len - 4;
		if (verify && am_checksum32(bytes, body) != am_load_u32(bytes + body))
			return am_fail(err, AM_ERR_CHECKSUM, "block checksum mismatch");
	}
	presence_size = am_load_u32(bytes);
	values_size = am_load_u32(bytes + 4);
	if (presence_size != 0 && !embedded_presence)
		return am_fail(err, AM_ERR_CORRUPT,
					   "block has a presence section in a buffer without embedded presence");
	values_at = 8 + am_align_up(presence_size, 8);
	if (values_at > body || values_size > body - values_at)
		return am_fail(err, AM_ERR_CORRUPT,
					   "block sections (%u + %u bytes) overrun the block of %zu bytes",
					   presence_size, values_size, len);
	out->presence.data = bytes + 8;
	out->presence.len = presence_size;
	out->values.data = bytes + values_at;
	out->values.len = values_size;
	return AM_OK;
}

/* Set (to `value`) the positions the Roaring bitmap lists. */
static AmStatus
roaring_decode(const uint8_t *p, size_t len, size_t count, uint8_t *bits,
			   uint8_t value, AmError *err)
{
	const uint8_t *end = p + len;
	const uint8_t *run_flags = NULL;
	const uint8_t *headers;
	uint32_t	cookie,
				n;
	bool		has_offsets;
	int64_t		prev_key = -1;

	if (len < 4)
		return am_fail(err, AM_ERR_CORRUPT, "roaring bitmap truncated");
	cookie = am_load_u32(p);
	p += 4;
	if ((cookie & 0xFFFF) == ROARING_COOKIE_RUNS)
	{
		n = (cookie >> 16) + 1;
		if ((size_t) (end - p) < (n + 7) / 8)
			return am_fail(err, AM_ERR_CORRUPT, "roaring bitmap truncated");
		run_flags = p;
		p += (n + 7) / 8;
		has_offsets = n >= ROARING_NO_OFFSET_THRESHOLD;
	}
	else if (cookie == ROARING_COOKIE_NO_RUNS)
	{
		if (end - p < 4)
			return am_fail(err, AM_ERR_CORRUPT, "roaring bitmap truncated");
		n = am_load_u32(p);
		p += 4;
		has_offsets = true;
	}
	else
		return am_fail(err, AM_ERR_CORRUPT, "bad roaring cookie %08x", cookie);
	/* keys are distinct u16: at most 65536 containers */
	if (n > 65536 || (size_t) (end - p) < (size_t) n * (has_offsets ? 8 : 4))
		return am_fail(err, AM_ERR_CORRUPT, "roaring bitmap header truncated");
	headers = p;
	p += (size_t) n * 4 + (has_offsets ? (size_t) n * 4 : 0);

	for (uint32_t c = 0; c < n; c++)
	{
		uint32_t	key = am_load_u16(headers + 4 * (size_t) c);
		uint32_t	card = am_load_u16(headers + 4 * (size_t) c + 2) + 1;
		uint64_t	base = (uint64_t) key << 16;

		if ((int64_t) key <= prev_key)
			return am_fail(err, AM_ERR_CORRUPT, "roaring keys not increasing");
		prev_key = key;
		if (run_flags != NULL && (run_flags[c / 8] >> (c % 8)) & 1)
		{
			uint32_t	runs;

			if (end - p < 2)
				return am_fail(err, AM_ERR_CORRUPT, "roaring run container truncated");
			runs = am_load_u16(p);
			p += 2;
			if ((size_t) (end - p) < (size_t) runs * 4)
				return am_fail(err, AM_ERR_CORRUPT, "roaring run container truncated");
			for (uint32_t r = 0; r < runs; r++)
			{
				uint64_t	start = base + am_load_u16(p + 4 * (size_t) r);
				uint64_t	stop = start + am_load_u16(p + 4 * (size_t) r + 2);

				if (stop >= count || stop >= base + 65536)
					return am_fail(err, AM_ERR_CORRUPT,
								   "roaring position %" PRIu64 " beyond the block's %zu values",
								   stop, count);
				memset(bits + start, value, (size_t) (stop - start + 1));
			}
			p += (size_t) runs * 4;
		}
		else if (card <= ROARING_MAX_ARRAY)
		{
			if ((size_t) (end - p) < (size_t) card * 2)
				return am_fail(err, AM_ERR_CORRUPT, "roaring array container truncated");
			for (uint32_t i = 0; i < card; i++)
			{
				uint64_t	pos = base + am_load_u16(p + 2 * (size_t) i);

				if (pos >= count)
					return am_fail(err, AM_ERR_CORRUPT,
								   "roaring position %" PRIu64 " beyond the block's %zu values",
								   pos, count);
				bits[pos] = value;
			}
			p += (size_t) card * 2;
		}
		else
		{
			if (end - p < 8192)
				return am_fail(err, AM_ERR_CORRUPT, "roaring bitmap container truncated");
			for (uint32_t w = 0; w < 1024; w++)
			{
				uint64_t	word = am_load_u64(p + 8 * (size_t) w);

				while (word != 0)
				{
					uint64_t	pos = base + 64 * (uint64_t) w + (uint64_t) __builtin_ctzll(word);

					if (pos >= count)
						return am_fail(err, AM_ERR_CORRUPT,
									   "roaring position %" PRIu64 " beyond the block's %zu values",
									   pos, count);
					bits[pos] = value;
					word &= word - 1;
				}
			}
			p += 8192;
		}
	}
	return AM_OK;
}

AmStatus
am_presence_decode(AmBytes section, size_t count, uint8_t *present,
				   size_t *null_count, AmError *err)
{
	AmStatus	st;
	size_t		nulls = 0;

	if (section.len == 0)
	{
		memset(present, 1, count);
		*null_count = 0;
		return AM_OK;
	}
	switch (section.data[0])
	{
		case PRESENCE_ALL_NULLS:
			if (section.len != 1)
				return am_fail(err, AM_ERR_CORRUPT, "all-null presence of %zu bytes",
							   section.len);
			memset(present, 0, count);
			*null_count = count;
			return AM_OK;
		case PRESENCE_PLAIN:
			if (section.len - 1 != count)
				return am_fail(err, AM_ERR_CORRUPT,
							   "presence holds %zu bytes for %zu values",
							   section.len - 1, count);
			for (size_t i = 0; i < count; i++)
			{
				present[i] = section.data[1 + i] != 0;
				nulls += present[i] == 0;
			}
			*null_count = nulls;
			return AM_OK;
		case PRESENCE_ROARING:
			{
				uint8_t		negated;

				if (section.len < 2 || section.data[1] > 1)
					return am_fail(err, AM_ERR_CORRUPT, "bad roaring presence header");
				negated = section.data[1];
				/* negated: the bitmap lists nulls; else it lists values */
				memset(present, negated, count);
				st = roaring_decode(section.data + 2, section.len - 2, count,
									present, (uint8_t) !negated, err);
				if (st != AM_OK)
					return st;
				for (size_t i = 0; i < count; i++)
					nulls += present[i] == 0;
				*null_count = nulls;
				return AM_OK;
			}
		default:
			return am_fail(err, AM_ERR_CORRUPT, "unknown presence kind %d",
						   (int) section.data[0]);
	}
}

AmStatus
am_buffer_open(AmBufferReader *reader, AmShard *shard, int anchor_file,
			   const AmEncodedBuffer *desc, AmError *err)
{
	uint8_t    *bytes;
	AmStatus	st;
	int			map_file;

	memset(reader, 0, sizeof(*reader));
	reader->shard = shard;
	reader->desc = *desc;
	reader->verify_checksums = true;
	if (!desc->has_block_map)
		return am_fail(err, AM_ERR_CORRUPT, "block-structured buffer without a block map");
	if ((st = am_shard_resolve(shard, anchor_file, &desc->buffer, &reader->file, err)) != AM_OK ||
		(st = am_shard_resolve(shard, anchor_file, &desc->block_map, &map_file, err)) != AM_OK)
		return st;
	if (map_file != reader->file || desc->block_map.start < desc->buffer.start ||
		desc->block_map.end > desc->buffer.end)
		return am_fail(err, AM_ERR_CORRUPT, "block map lies outside its buffer");
	if (desc->block_map.end - desc->block_map.start > SIZE_MAX / 4)
		return am_fail(err, AM_ERR_CORRUPT, "block map too large");
	if ((st = am_shard_read(shard, reader->file, desc->block_map.start,
							desc->block_map.end, &bytes, err)) != AM_OK)
		return st;
	st = am_block_map_parse(bytes, (size_t) (desc->block_map.end - desc->block_map.start),
							desc->block_map.start - desc->buffer.start,
							am_shard_allocator(shard), &reader->map, err);
	am_release(am_shard_allocator(shard), bytes);
	if (st != AM_OK)
		return st;
	if (desc->has_block_count && desc->block_count != reader->map.block_count)
	{
		am_buffer_close(reader);
		return am_fail(err, AM_ERR_CORRUPT,
					   "buffer declares %" PRIu64 " blocks, its map holds %" PRIu64,
					   desc->block_count, reader->map.block_count);
	}
	return AM_OK;
}

void
am_buffer_close(AmBufferReader *reader)
{
	if (reader->shard != NULL)
		am_block_map_free(&reader->map, am_shard_allocator(reader->shard));
	reader->shard = NULL;
}

AmStatus
am_buffer_read_block(AmBufferReader *reader, uint64_t block, uint8_t **bytes,
					 AmBlockView *view, AmError *err)
{
	uint64_t	start,
				end;
	AmStatus	st;

	*bytes = NULL;
	if (block >= reader->map.block_count)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT, "no block %" PRIu64, block);
	if (err != NULL)
		err->block = (int64_t) block;
	start = reader->desc.buffer.start + reader->map.byte_offsets[block];
	end = reader->desc.buffer.start + reader->map.byte_offsets[block + 1];
	if ((st = am_shard_read(reader->shard, reader->file, start, end, bytes, err)) != AM_OK)
		return st;
	st = am_block_parse(*bytes, (size_t) (end - start), reader->desc.block_checksums,
						reader->verify_checksums, reader->desc.embedded_presence,
						view, err);
	if (st != AM_OK)
	{
		am_release(am_shard_allocator(reader->shard), *bytes);
		*bytes = NULL;
		return st;
	}
	if (err != NULL)
		err->block = -1;
	return AM_OK;
}
