/*-------------------------------------------------------------------------
 *
 * dictionary_probe.c
 *	  Reading a column chunk's dictionary page alone, for dictionary
 *	  pruning: when every data page of the chunk is dictionary-encoded,
 *	  the dictionary lists every value the chunk holds, so a value absent
 *	  from it is absent from the chunk.
 *
 * Whether the data pages are all dictionary-encoded is not taken from the
 * chunk's encodings list (writers list PLAIN for the dictionary page
 * itself, so a PLAIN fallback page looks the same) but from the page
 * headers: the probe walks them, reading only headers, until the chunk's
 * values are accounted for.
 *
 * IDENTIFICATION
 *	  src/parquet/dictionary_probe.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "parquet/dictionary_probe.h"
#include "parquet/page.h"
#include "parquet/pq_internal.h"

/* Is a data page's value encoding a dictionary one? */
static bool
is_dictionary_encoding(int32_t encoding)
{
	return encoding == PQ_ENC_PLAIN_DICTIONARY ||
		encoding == PQ_ENC_RLE_DICTIONARY;
}

/*
 * Split the plain-encoded dictionary body into one PqBytes per value.
 * Byte arrays are a 4-byte little-endian length and the bytes; fixed-width
 * values are width bytes each.
 */
static PqStatus
split_values(const uint8_t *body, size_t body_len, PqPhysicalType type,
			 uint32_t width, uint32_t count, PqBytes *values, PqError *err)
{
	size_t		pos = 0;

	if (type != PQ_BYTE_ARRAY)
	{
		if ((uint64_t) count * width > body_len)
		{
			pq_page_error(err, PQ_ERR_CORRUPT,
						  "dictionary page of %zu bytes is too short for %u values of %u bytes",
						  body_len, count, width);
			return PQ_ERR_CORRUPT;
		}
		for (uint32_t i = 0; i < count; i++)
		{
			values[i].data = body + (size_t) i * width;
			values[i].len = width;
		}
		return PQ_OK;
	}
	for (uint32_t i = 0; i < count; i++)
	{
		uint32_t	len;

		if (body_len - pos < 4)
			goto truncated;
		len = (uint32_t) body[pos] | ((uint32_t) body[pos + 1] << 8) |
			((uint32_t) body[pos + 2] << 16) | ((uint32_t) body[pos + 3] << 24);
		pos += 4;
		if (len > body_len - pos)
			goto truncated;
		values[i].data = body + pos;
		values[i].len = len;
		pos += len;
	}
	return PQ_OK;

truncated:
	pq_page_error(err, PQ_ERR_CORRUPT,
				  "dictionary page of %zu bytes is too short for its %u values",
				  body_len, count);
	return PQ_ERR_CORRUPT;
}

PqStatus
pq_read_dictionary(PqFile *file, int row_group, int leaf,
				   const PfcAllocator *alloc, PqDictionary **dict,
				   PqError *err)
{
	const PqFileMeta *meta = pq_file_meta(file);
	const PfcSource *source = pq_file_source(file);
	const PqColumnChunkMeta *chunk;
	const PqSchemaNode *node;
	PqPageHeader header;
	PqPage		page;
	PqDictionary *d;
	PqBytes    *values;
	uint64_t	start;
	uint64_t	length;
	uint64_t	limit;
	uint64_t	offset;
	int64_t		values_seen = 0;
	uint32_t	width = 0;
	PqStatus	st;

	*dict = NULL;
	if (alloc == NULL)
		alloc = &pfc_malloc_allocator;
	if (row_group < 0 || row_group >= meta->num_row_groups ||
		leaf < 0 || leaf >= meta->num_leaves ||
		leaf >= meta->row_groups[row_group].num_columns)
	{
		pq_page_error(err, PQ_ERR_INVALID_ARGUMENT,
					  "no column chunk %d in row group %d", leaf, row_group);
		return PQ_ERR_INVALID_ARGUMENT;
	}
	chunk = &meta->row_groups[row_group].columns[leaf];
	node = meta->leaves[leaf].node;
	if (chunk->file_path != NULL || chunk->is_encrypted ||
		chunk->num_values <= 0 ||
		node->physical == PQ_BOOLEAN || node->physical == PQ_INT96)
		return PQ_OK;
	switch (node->physical)
	{
		case PQ_INT32:
		case PQ_FLOAT:
			width = 4;
			break;
		case PQ_INT64:
		case PQ_DOUBLE:
			width = 8;
			break;
		case PQ_FIXED_LEN_BYTE_ARRAY:
			if (node->type_length <= 0)
				return PQ_OK;
			width = (uint32_t) node->type_length;
			break;
		default:
			break;
	}

	pq_column_chunk_range(chunk, &start, &length);
	limit = start + length;
	if (limit < start || limit > source->size)
		limit = source->size;

	/* the first page must be the dictionary */
	st = pq_page_read_header(source, alloc, start, limit, &header, err);
	if (st != PQ_OK)
		return st;
	if (header.type != PQ_PAGE_DICTIONARY ||
		(header.encoding != PQ_ENC_PLAIN &&
		 header.encoding != PQ_ENC_PLAIN_DICTIONARY))
		return PQ_OK;

	/* every data page after it must use the dictionary */
	offset = start + header.header_len + (uint64_t) header.compressed_size;
	while (values_seen < chunk->num_values && offset < limit)
	{
		PqPageHeader data;

		st = pq_page_read_header(source, alloc, offset, limit, &data, err);
		if (st != PQ_OK)
			return st;
		if (data.type == PQ_PAGE_DATA || data.type == PQ_PAGE_DATA_V2)
		{
			/* an all-null page stores no value: any encoding will do */
			bool		all_null = data.type == PQ_PAGE_DATA_V2 &&
				data.num_nulls == data.num_values;

			if (!all_null && !is_dictionary_encoding(data.encoding))
				return PQ_OK;
			values_seen += data.num_values;
		}
		else if (data.type == PQ_PAGE_DICTIONARY)
			return PQ_OK;		/* a second dictionary: not ours to judge */
		offset += data.header_len + (uint64_t) data.compressed_size;
	}
	if (values_seen < chunk->num_values)
		return PQ_OK;			/* pages missing: let the reader complain */

	/* the dictionary itself */
	memset(&page, 0, sizeof(page));
	st = pq_page_read_body(source, alloc, chunk->codec, start, &header,
						   false, &page, err);
	if (st != PQ_OK)
		return st;
	/* every value takes at least 4 bytes (a byte array's length) or width */
	if ((uint64_t) header.num_values * (width > 0 ? width : 4) > page.body_len)
	{
		pq_page_release(&page, alloc);
		pq_page_error(err, PQ_ERR_CORRUPT,
					  "dictionary page of %zu bytes is too short for %d values",
					  page.body_len, header.num_values);
		return PQ_ERR_CORRUPT;
	}
	d = alloc->alloc(alloc->ctx, sizeof(PqDictionary));
	values = alloc->alloc(alloc->ctx,
						  sizeof(PqBytes) * (header.num_values > 0 ?
											 (size_t) header.num_values : 1));
	if (d == NULL || values == NULL)
	{
		if (d && alloc->release)
			alloc->release(alloc->ctx, d);
		if (values && alloc->release)
			alloc->release(alloc->ctx, values);
		pq_page_release(&page, alloc);
		pq_error_oom(err);
		return err->status;
	}
	st = split_values(page.body, page.body_len, node->physical, width,
					  (uint32_t) header.num_values, values, err);
	if (st != PQ_OK)
	{
		if (alloc->release)
		{
			alloc->release(alloc->ctx, d);
			alloc->release(alloc->ctx, values);
		}
		pq_page_release(&page, alloc);
		return st;
	}
	d->num_values = (uint32_t) header.num_values;
	d->values = values;
	d->alloc = *alloc;
	d->body = page.body;
	*dict = d;
	return PQ_OK;
}

void
pq_dictionary_free(PqDictionary *dict)
{
	PfcAllocator alloc;

	if (dict == NULL)
		return;
	alloc = dict->alloc;
	if (alloc.release)
	{
		alloc.release(alloc.ctx, dict->body);
		alloc.release(alloc.ctx, (void *) dict->values);
		alloc.release(alloc.ctx, dict);
	}
}
