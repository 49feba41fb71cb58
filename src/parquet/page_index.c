/*-------------------------------------------------------------------------
 *
 * page_index.c
 *	  ColumnIndex, OffsetIndex and BloomFilterHeader decoding; split-block
 *	  bloom filter probes; reading them from an open file.
 *
 * Structures (parquet.thrift):
 *	 ColumnIndex { 1: list<bool> null_pages, 2: list<binary> min_values,
 *				   3: list<binary> max_values, 4: BoundaryOrder boundary_order,
 *				   5: optional list<i64> null_counts, 6/7: level histograms }
 *	 OffsetIndex { 1: list<PageLocation> page_locations,
 *				   2: optional list<i64> unencoded_byte_array_data_bytes }
 *	 PageLocation { 1: i64 offset, 2: i32 compressed_page_size,
 *					3: i64 first_row_index }
 *	 BloomFilterHeader { 1: i32 numBytes, 2: algorithm {1: BLOCK},
 *						 3: hash {1: XXHASH}, 4: compression {1: UNCOMPRESSED} }
 *
 * Each decoded index lives in its own arena: the box holding the public
 * struct is the arena's first allocation, and the input bytes are copied
 * once so min/max values can point into the copy.
 *
 * The split-block filter (BloomFilter.md): the upper 32 bits of the hash
 * pick one 256-bit block (multiply-shift, so any block count works), the
 * lower 32 bits times eight odd salts pick one bit in each of the block's
 * eight 32-bit words.
 *
 * IDENTIFICATION
 *	  src/parquet/page_index.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/page_index.h"
#include "parquet/pq_internal.h"
#include "parquet/thrift.h"

#include <string.h>

/* Largest bitset the specification allows (128 MiB). */
#define BLOOM_MAX_BYTES		(128u * 1024 * 1024)
/* Bytes read to find a header when the footer gives no filter length. */
#define BLOOM_HEADER_GUESS	256

typedef struct ColumnIndexBox
{
	PqColumnIndex pub;			/* first: the public pointer is the box */
	PqArena		arena;
} ColumnIndexBox;

typedef struct OffsetIndexBox
{
	PqOffsetIndex pub;
	PqArena		arena;
} OffsetIndexBox;

/* ----------------------------------------------------------------
 * Small Thrift helpers
 * ----------------------------------------------------------------
 */

static bool
is_int_type(uint8_t type)
{
	return type == PQ_THRIFT_I16 || type == PQ_THRIFT_I32 || type == PQ_THRIFT_I64;
}

/*
 * Begin a list field whose elements satisfy accept(); otherwise skip the
 * value and return false.
 */
static bool
begin_list(PqThriftReader *r, uint8_t type, bool (*accept) (uint8_t),
		   uint32_t *count)
{
	uint8_t		elem_type;

	*count = 0;
	if (type != PQ_THRIFT_LIST)
	{
		pq_thrift_skip(r, type);
		return false;
	}
	if (!pq_thrift_list_begin(r, &elem_type, count))
		return false;
	if (accept(elem_type))
		return true;
	for (uint32_t i = 0; i < *count && !r->failed; i++)
		pq_thrift_skip(r, elem_type);
	*count = 0;
	return false;
}

static bool
is_bool_type(uint8_t type)
{
	return type == PQ_THRIFT_BOOL_TRUE || type == PQ_THRIFT_BOOL_FALSE;
}

static bool
is_binary_type(uint8_t type)
{
	return type == PQ_THRIFT_BINARY;
}

static bool
is_struct_type(uint8_t type)
{
	return type == PQ_THRIFT_STRUCT;
}

/* Which member of a union struct is set (0 if none). */
static int16_t
union_member(PqThriftReader *r)
{
	int16_t		fid;
	uint8_t		type;
	int16_t		member = 0;

	pq_thrift_struct_begin(r);
	while (pq_thrift_field_next(r, &fid, &type))
	{
		if (member == 0 && type == PQ_THRIFT_STRUCT)
			member = fid;
		pq_thrift_skip(r, type);
	}
	pq_thrift_struct_end(r);
	return member;
}

/* ----------------------------------------------------------------
 * ColumnIndex
 * ----------------------------------------------------------------
 */

PqStatus
pq_column_index_decode(const uint8_t *buf, size_t len, const PfcAllocator *alloc,
					   PqColumnIndex **index, PqError *err)
{
	PqArena		arena;
	ColumnIndexBox *box;
	uint8_t    *copy;
	PqThriftReader r;
	int16_t		fid;
	uint8_t		type;
	uint32_t	n_null_pages = 0,
				n_min = 0,
				n_max = 0,
				n_null_counts = 0;
	bool		seen[6] = {false};
	int32_t		order = -1;
	bool		oom = false;

	*index = NULL;
	pq_error_clear(err);
	pq_arena_init(&arena, alloc ? alloc : &pfc_malloc_allocator);
	box = pq_arena_calloc(&arena, 1, sizeof(ColumnIndexBox));
	copy = box ? pq_arena_alloc(&arena, len) : NULL;
	if (copy == NULL)
	{
		pq_arena_release(&arena);
		pq_error_oom(err);
		return err->status;
	}
	memcpy(copy, buf, len);

	pq_thrift_reader_init(&r, copy, len);
	pq_thrift_struct_begin(&r);
	while (!oom && pq_thrift_field_next(&r, &fid, &type))
	{
		uint32_t	count;

		switch (fid)
		{
			case 1:
				if (begin_list(&r, type, is_bool_type, &count))
				{
					bool	   *v = pq_arena_calloc(&arena, count, sizeof(bool));

					if (v == NULL)
					{
						oom = true;
						break;
					}
					for (uint32_t i = 0; i < count; i++)
						v[i] = pq_thrift_bool(&r, PQ_THRIFT_BOOL_TRUE);
					box->pub.null_pages = v;
					n_null_pages = count;
					seen[1] = true;
				}
				break;
			case 2:
			case 3:
				if (begin_list(&r, type, is_binary_type, &count))
				{
					PqBytes    *v = pq_arena_calloc(&arena, count, sizeof(PqBytes));

					if (v == NULL)
					{
						oom = true;
						break;
					}
					for (uint32_t i = 0; i < count; i++)
						pq_thrift_binary(&r, &v[i].data, &v[i].len);
					if (fid == 2)
					{
						box->pub.min_values = v;
						n_min = count;
					}
					else
					{
						box->pub.max_values = v;
						n_max = count;
					}
					seen[fid] = true;
				}
				break;
			case 4:
				if (is_int_type(type))
				{
					order = pq_thrift_i32(&r);
					seen[4] = true;
				}
				else
					pq_thrift_skip(&r, type);
				break;
			case 5:
				if (begin_list(&r, type, is_int_type, &count))
				{
					int64_t    *v = pq_arena_calloc(&arena, count, sizeof(int64_t));

					if (v == NULL)
					{
						oom = true;
						break;
					}
					for (uint32_t i = 0; i < count; i++)
						v[i] = pq_thrift_i64(&r);
					box->pub.null_counts = v;
					n_null_counts = count;
					seen[5] = true;
				}
				break;
			default:
				pq_thrift_skip(&r, type);
				break;
		}
	}
	pq_thrift_struct_end(&r);

	if (oom)
		pq_error_oom(err);
	else if (r.failed)
		pq_error_set(err, PQ_ERR_CORRUPT, "invalid thrift encoding in a column index");
	else if (!seen[1] || !seen[2] || !seen[3] || !seen[4])
		pq_error_set(err, PQ_ERR_CORRUPT, "column index lacks required fields");
	else if (n_min != n_null_pages || n_max != n_null_pages ||
			 (seen[5] && n_null_counts != n_null_pages))
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "column index lists disagree in length (%u null_pages, %u min, %u max)",
					 n_null_pages, n_min, n_max);
	else if (order < PQ_BOUNDARY_UNORDERED || order > PQ_BOUNDARY_DESCENDING)
		pq_error_set(err, PQ_ERR_CORRUPT, "column index has invalid boundary order %d",
					 order);
	if (err->status != PQ_OK)
	{
		pq_arena_release(&arena);
		return err->status;
	}
	box->pub.num_pages = n_null_pages;
	box->pub.boundary_order = (PqBoundaryOrder) order;
	box->pub.has_null_counts = seen[5];
	box->arena = arena;
	*index = &box->pub;
	return PQ_OK;
}

void
pq_column_index_free(PqColumnIndex *index)
{
	PqArena		arena;

	if (index == NULL)
		return;
	arena = ((ColumnIndexBox *) index)->arena;
	pq_arena_release(&arena);
}

/* ----------------------------------------------------------------
 * OffsetIndex
 * ----------------------------------------------------------------
 */

static bool
decode_page_location(PqThriftReader *r, PqPageLocation *loc)
{
	int16_t		fid;
	uint8_t		type;
	unsigned	seen = 0;

	pq_thrift_struct_begin(r);
	while (pq_thrift_field_next(r, &fid, &type))
	{
		if (fid >= 1 && fid <= 3 && is_int_type(type))
		{
			int64_t		v = pq_thrift_i64(r);

			seen |= 1u << fid;
			if (fid == 1)
				loc->offset = v;
			else if (fid == 2)
			{
				if (v < INT32_MIN || v > INT32_MAX)
					r->failed = true;
				loc->compressed_page_size = (int32_t) v;
			}
			else
				loc->first_row_index = v;
		}
		else
			pq_thrift_skip(r, type);
	}
	pq_thrift_struct_end(r);
	return seen == 0x0E;
}

PqStatus
pq_offset_index_decode(const uint8_t *buf, size_t len, const PfcAllocator *alloc,
					   PqOffsetIndex **index, PqError *err)
{
	PqArena		arena;
	OffsetIndexBox *box;
	PqThriftReader r;
	int16_t		fid;
	uint8_t		type;
	bool		have_pages = false;
	bool		missing = false;
	bool		oom = false;
	uint32_t	n_pages = 0;
	uint32_t	n_unenc = 0;

	*index = NULL;
	pq_error_clear(err);
	pq_arena_init(&arena, alloc ? alloc : &pfc_malloc_allocator);
	box = pq_arena_calloc(&arena, 1, sizeof(OffsetIndexBox));
	if (box == NULL)
	{
		pq_error_oom(err);
		return err->status;
	}

	pq_thrift_reader_init(&r, buf, len);
	pq_thrift_struct_begin(&r);
	while (!oom && pq_thrift_field_next(&r, &fid, &type))
	{
		uint32_t	count;

		if (fid == 1 && begin_list(&r, type, is_struct_type, &count))
		{
			PqPageLocation *v = pq_arena_calloc(&arena, count, sizeof(PqPageLocation));

			if (v == NULL)
			{
				oom = true;
				break;
			}
			for (uint32_t i = 0; i < count && !r.failed; i++)
				missing |= !decode_page_location(&r, &v[i]);
			box->pub.pages = v;
			n_pages = count;
			have_pages = true;
		}
		else if (fid == 2 && begin_list(&r, type, is_int_type, &count))
		{
			int64_t    *v = pq_arena_calloc(&arena, count, sizeof(int64_t));

			if (v == NULL)
			{
				oom = true;
				break;
			}
			for (uint32_t i = 0; i < count; i++)
				v[i] = pq_thrift_i64(&r);
			box->pub.unencoded_byte_array_data_bytes = v;
			box->pub.has_unencoded_byte_array_data_bytes = true;
			n_unenc = count;
		}
		else if (fid != 1 && fid != 2)
			pq_thrift_skip(&r, type);
	}
	pq_thrift_struct_end(&r);

	if (oom)
		pq_error_oom(err);
	else if (r.failed)
		pq_error_set(err, PQ_ERR_CORRUPT, "invalid thrift encoding in an offset index");
	else if (!have_pages || missing)
		pq_error_set(err, PQ_ERR_CORRUPT, "offset index lacks required fields");
	else if (box->pub.has_unencoded_byte_array_data_bytes && n_unenc != n_pages)
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "offset index has %u pages but %u unencoded byte counts",
					 n_pages, n_unenc);
	else
	{
		const PqPageLocation *p = box->pub.pages;

		for (uint32_t i = 0; i < n_pages; i++)
		{
			if (p[i].compressed_page_size <= 0 || p[i].offset < 0)
			{
				pq_error_set(err, PQ_ERR_CORRUPT,
							 "offset index page %u has offset %lld and size %d",
							 i, (long long) p[i].offset, p[i].compressed_page_size);
				err->page = (int) i;
				break;
			}
			if (i == 0 ? p[i].first_row_index != 0 :
				p[i].first_row_index < p[i - 1].first_row_index)
			{
				pq_error_set(err, PQ_ERR_CORRUPT,
							 "offset index page %u starts at row %lld, out of order",
							 i, (long long) p[i].first_row_index);
				err->page = (int) i;
				break;
			}
		}
	}
	if (err->status != PQ_OK)
	{
		pq_arena_release(&arena);
		return err->status;
	}
	box->pub.num_pages = n_pages;
	box->arena = arena;
	*index = &box->pub;
	return PQ_OK;
}

void
pq_offset_index_free(PqOffsetIndex *index)
{
	PqArena		arena;

	if (index == NULL)
		return;
	arena = ((OffsetIndexBox *) index)->arena;
	pq_arena_release(&arena);
}

/* ----------------------------------------------------------------
 * Bloom filters
 * ----------------------------------------------------------------
 */

PqStatus
pq_bloom_filter_header_decode(const uint8_t *buf, size_t len,
							  PqBloomFilterHeader *header, PqError *err)
{
	PqThriftReader r;
	int16_t		fid;
	uint8_t		type;
	int64_t		num_bytes = -1;
	int16_t		algorithm = -1,
				hash = -1,
				compression = -1;

	pq_error_clear(err);
	memset(header, 0, sizeof(*header));
	pq_thrift_reader_init(&r, buf, len);
	pq_thrift_struct_begin(&r);
	while (pq_thrift_field_next(&r, &fid, &type))
	{
		if (fid == 1 && is_int_type(type))
			num_bytes = pq_thrift_i32(&r);
		else if (fid >= 2 && fid <= 4 && type == PQ_THRIFT_STRUCT)
		{
			int16_t		m = union_member(&r);

			if (fid == 2)
				algorithm = m;
			else if (fid == 3)
				hash = m;
			else
				compression = m;
		}
		else
			pq_thrift_skip(&r, type);
	}
	pq_thrift_struct_end(&r);

	if (r.failed)
		pq_error_set(err, PQ_ERR_CORRUPT, "invalid thrift encoding in a bloom filter header");
	else if (num_bytes < 0 || algorithm < 0 || hash < 0 || compression < 0)
		pq_error_set(err, PQ_ERR_CORRUPT, "bloom filter header lacks required fields");
	else if (algorithm != 1 || hash != 1 || compression != 1)
		pq_error_set(err, PQ_ERR_UNSUPPORTED,
					 "bloom filter is not split-block/xxhash/uncompressed");
	else if (num_bytes == 0 || num_bytes % 32 != 0 || num_bytes > BLOOM_MAX_BYTES)
		pq_error_set(err, PQ_ERR_CORRUPT, "bloom filter has invalid size %lld",
					 (long long) num_bytes);
	if (err->status != PQ_OK)
		return err->status;
	header->num_bytes = (uint32_t) num_bytes;
	header->header_length = (uint32_t) pq_thrift_reader_offset(&r, buf);
	return PQ_OK;
}

/* ----------------------------------------------------------------
 * Reading from a file
 * ----------------------------------------------------------------
 */

/* The chunk of (row_group, leaf), or NULL with err set. */
static const PqColumnChunkMeta *
chunk_of(PqFile *file, int row_group, int leaf, PqError *err)
{
	const PqFileMeta *m = pq_file_meta(file);
	const PqColumnChunkMeta *cc;

	pq_error_clear(err);
	if (row_group < 0 || row_group >= m->num_row_groups ||
		leaf < 0 || leaf >= m->num_leaves)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
					 "no column chunk for row group %d, leaf %d", row_group, leaf);
		return NULL;
	}
	cc = &m->row_groups[row_group].columns[leaf];
	if (cc->is_encrypted || cc->file_path != NULL)
	{
		/* External chunks' offsets were not checked against this file. */
		pq_error_set(err, PQ_ERR_UNSUPPORTED,
					 cc->is_encrypted ? "column \"%s\" is encrypted" :
					 "column \"%s\" is stored in another file",
					 m->leaves[leaf].path);
		err->row_group = row_group;
		err->column = leaf;
		return NULL;
	}
	return cc;
}

/* Read len bytes at offset into a fresh buffer from alloc. */
static uint8_t *
read_block(PqFile *file, const PfcAllocator *alloc, uint64_t offset, size_t len,
		   PqError *err)
{
	const PfcSource *src = pq_file_source(file);
	uint8_t    *buf = alloc->alloc(alloc->ctx, len > 0 ? len : 1);
	int			rc;

	if (buf == NULL)
	{
		pq_error_oom(err);
		return NULL;
	}
	rc = src->read_at(src->ctx, offset, buf, len);
	if (rc != 0)
	{
		if (alloc->release)
			alloc->release(alloc->ctx, buf);
		pq_error_set(err, PQ_ERR_IO, "could not read %zu bytes at offset %llu",
					 len, (unsigned long long) offset);
		err->sys_errno = rc;
		return NULL;
	}
	return buf;
}

static void
set_position(PqError *err, int row_group, int leaf)
{
	err->row_group = row_group;
	err->column = leaf;
}

PqStatus
pq_read_column_index(PqFile *file, int row_group, int leaf,
					 const PfcAllocator *alloc, PqColumnIndex **index,
					 PqError *err)
{
	const PqColumnChunkMeta *cc = chunk_of(file, row_group, leaf, err);
	uint8_t    *buf;
	PqStatus	st;
	uint32_t	width;
	bool		flba;

	*index = NULL;
	if (cc == NULL)
		return err->status;
	if (!cc->has_column_index)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "column chunk has no column index");
		set_position(err, row_group, leaf);
		return err->status;
	}
	if (alloc == NULL)
		alloc = &pfc_malloc_allocator;
	buf = read_block(file, alloc, (uint64_t) cc->column_index_offset,
					 (size_t) cc->column_index_length, err);
	if (buf == NULL)
	{
		set_position(err, row_group, leaf);
		return err->status;
	}
	st = pq_column_index_decode(buf, (size_t) cc->column_index_length, alloc, index, err);
	if (alloc->release)
		alloc->release(alloc->ctx, buf);
	if (st != PQ_OK)
	{
		set_position(err, row_group, leaf);
		return st;
	}

	/* Fixed-width bounds must be whole values, so consumers need not check. */
	width = pq_fixed_value_width(pq_file_meta(file)->leaves[leaf].node);
	flba = pq_file_meta(file)->leaves[leaf].node->physical == PQ_FIXED_LEN_BYTE_ARRAY;
	for (uint32_t i = 0; width > 0 && i < (*index)->num_pages; i++)
	{
		uint32_t	min_len = (*index)->min_values[i].len;
		uint32_t	max_len = (*index)->max_values[i].len;

		if ((*index)->null_pages[i])
			continue;
		if (flba ? (min_len > width || max_len > width) :
			(min_len != width || max_len != width))
		{
			pq_error_set(err, PQ_ERR_CORRUPT,
						 "column index page %u has bounds of %u and %u bytes for %u-byte values",
						 i, min_len, max_len, width);
			set_position(err, row_group, leaf);
			err->page = (int) i;
			pq_column_index_free(*index);
			*index = NULL;
			return err->status;
		}
	}
	return PQ_OK;
}

PqStatus
pq_read_offset_index(PqFile *file, int row_group, int leaf,
					 const PfcAllocator *alloc, PqOffsetIndex **index,
					 PqError *err)
{
	const PqColumnChunkMeta *cc = chunk_of(file, row_group, leaf, err);
	const PqRowGroupMeta *rg;
	uint8_t    *buf;
	PqStatus	st;
	int64_t		start,
				end;

	*index = NULL;
	if (cc == NULL)
		return err->status;
	if (!cc->has_offset_index)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "column chunk has no offset index");
		set_position(err, row_group, leaf);
		return err->status;
	}
	if (alloc == NULL)
		alloc = &pfc_malloc_allocator;
	buf = read_block(file, alloc, (uint64_t) cc->offset_index_offset,
					 (size_t) cc->offset_index_length, err);
	if (buf == NULL)
	{
		set_position(err, row_group, leaf);
		return err->status;
	}
	st = pq_offset_index_decode(buf, (size_t) cc->offset_index_length, alloc, index, err);
	if (alloc->release)
		alloc->release(alloc->ctx, buf);
	if (st != PQ_OK)
	{
		set_position(err, row_group, leaf);
		return st;
	}

	/* Pages must lie inside the chunk and start below the row count. */
	rg = &pq_file_meta(file)->row_groups[row_group];
	start = pq_chunk_start(cc);
	end = start + cc->total_compressed_size;
	for (uint32_t i = 0; i < (*index)->num_pages; i++)
	{
		const PqPageLocation *p = &(*index)->pages[i];

		if (p->offset < start || p->offset > end ||
			p->compressed_page_size > end - p->offset)
		{
			pq_error_set(err, PQ_ERR_CORRUPT,
						 "offset index page %u lies outside its column chunk", i);
		}
		else if (p->first_row_index >= rg->num_rows)
		{
			pq_error_set(err, PQ_ERR_CORRUPT,
						 "offset index page %u starts at row %lld of a %lld-row group",
						 i, (long long) p->first_row_index, (long long) rg->num_rows);
		}
		if (err->status != PQ_OK)
		{
			set_position(err, row_group, leaf);
			err->page = (int) i;
			pq_offset_index_free(*index);
			*index = NULL;
			return err->status;
		}
	}
	return PQ_OK;
}

PqStatus
pq_read_bloom_filter(PqFile *file, int row_group, int leaf,
					 const PfcAllocator *alloc, uint8_t **bitset,
					 uint32_t *len, PqError *err)
{
	const PqColumnChunkMeta *cc = chunk_of(file, row_group, leaf, err);
	uint64_t	avail;
	size_t		head_len;
	uint8_t    *head;
	uint8_t    *bits;
	PqBloomFilterHeader hdr;
	PqStatus	st;

	*bitset = NULL;
	*len = 0;
	if (cc == NULL)
		return err->status;
	if (!cc->has_bloom_filter)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "column chunk has no bloom filter");
		set_position(err, row_group, leaf);
		return err->status;
	}
	if (alloc == NULL)
		alloc = &pfc_malloc_allocator;

	/* Bytes the filter may use: its stated length, else up to the footer. */
	avail = pq_file_data_end(file) - (uint64_t) cc->bloom_filter_offset;
	if (cc->bloom_filter_length >= 0 && (uint64_t) cc->bloom_filter_length < avail)
		avail = (uint64_t) cc->bloom_filter_length;
	head_len = avail < BLOOM_HEADER_GUESS ? (size_t) avail : BLOOM_HEADER_GUESS;
	head = read_block(file, alloc, (uint64_t) cc->bloom_filter_offset, head_len, err);
	if (head == NULL)
	{
		set_position(err, row_group, leaf);
		return err->status;
	}
	st = pq_bloom_filter_header_decode(head, head_len, &hdr, err);
	if (alloc->release)
		alloc->release(alloc->ctx, head);
	if (st == PQ_OK && (uint64_t) hdr.header_length + hdr.num_bytes > avail)
	{
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "bloom filter of %u bytes does not fit its space", hdr.num_bytes);
		st = err->status;
	}
	if (st != PQ_OK)
	{
		set_position(err, row_group, leaf);
		return st;
	}
	bits = read_block(file, alloc,
					  (uint64_t) cc->bloom_filter_offset + hdr.header_length,
					  hdr.num_bytes, err);
	if (bits == NULL)
	{
		set_position(err, row_group, leaf);
		return err->status;
	}
	*bitset = bits;
	*len = hdr.num_bytes;
	return PQ_OK;
}
