/*-------------------------------------------------------------------------
 *
 * page.c
 *	  Page headers, page bodies, CRC verification and decompression.
 *
 * Every size a page header declares is hostile until checked: the stored
 * body must lie inside the column chunk, and the uncompressed size must be
 * something the codec could produce from the stored bytes, so a few bytes
 * of garbage never make us allocate gigabytes.
 *
 * IDENTIFICATION
 *	  src/parquet/page.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/page.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/crc32.h"
#include "compress/compress.h"
#include "parquet/thrift.h"

/* First header window; most headers are a few dozen bytes. */
#define PAGE_HEADER_WINDOW	1024

void
pq_page_error(PqError *err, PqStatus status, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL)
		return;
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

/* An i32 field of the expected type; anything else marks the reader failed. */
static int32_t
field_i32(PqThriftReader *r, uint8_t type)
{
	if (type != PQ_THRIFT_I32)
	{
		r->failed = true;
		return 0;
	}
	return pq_thrift_i32(r);
}

static bool
field_bool(PqThriftReader *r, uint8_t type)
{
	if (type != PQ_THRIFT_BOOL_TRUE && type != PQ_THRIFT_BOOL_FALSE)
	{
		r->failed = true;
		return false;
	}
	return pq_thrift_bool(r, type);
}

/* DataPageHeader (v1): 1 num_values, 2 encoding, 3 def enc, 4 rep enc. */
static void
decode_data_page_header(PqThriftReader *r, PqPageHeader *h)
{
	int16_t		fid;
	uint8_t		type;
	bool		seen[3] = {false, false, false};

	pq_thrift_struct_begin(r);
	while (pq_thrift_field_next(r, &fid, &type))
	{
		switch (fid)
		{
			case 1:
				h->num_values = field_i32(r, type);
				seen[0] = true;
				break;
			case 2:
				h->encoding = field_i32(r, type);
				seen[1] = true;
				break;
			case 3:
				h->def_level_encoding = field_i32(r, type);
				break;
			case 4:
				h->rep_level_encoding = field_i32(r, type);
				break;
			default:
				pq_thrift_skip(r, type);
		}
	}
	pq_thrift_struct_end(r);
	if (!seen[0] || !seen[1])
		r->failed = true;
}

/* DataPageHeaderV2: 1 num_values .. 7 is_compressed. */
static void
decode_data_page_header_v2(PqThriftReader *r, PqPageHeader *h)
{
	int16_t		fid;
	uint8_t		type;
	unsigned	seen = 0;

	h->is_compressed = true;
	pq_thrift_struct_begin(r);
	while (pq_thrift_field_next(r, &fid, &type))
	{
		switch (fid)
		{
			case 1:
				h->num_values = field_i32(r, type);
				break;
			case 2:
				h->num_nulls = field_i32(r, type);
				break;
			case 3:
				h->num_rows = field_i32(r, type);
				break;
			case 4:
				h->encoding = field_i32(r, type);
				break;
			case 5:
				h->def_levels_len = field_i32(r, type);
				break;
			case 6:
				h->rep_levels_len = field_i32(r, type);
				break;
			case 7:
				h->is_compressed = field_bool(r, type);
				break;
			default:
				pq_thrift_skip(r, type);
				continue;
		}
		if (fid <= 6)
			seen |= 1u << fid;
	}
	pq_thrift_struct_end(r);
	/* fields 1..6 are required */
	if (seen != 0x7e)
		r->failed = true;
}

/* DictionaryPageHeader: 1 num_values, 2 encoding, 3 is_sorted. */
static void
decode_dictionary_page_header(PqThriftReader *r, PqPageHeader *h)
{
	int16_t		fid;
	uint8_t		type;
	bool		seen[2] = {false, false};

	pq_thrift_struct_begin(r);
	while (pq_thrift_field_next(r, &fid, &type))
	{
		switch (fid)
		{
			case 1:
				h->num_values = field_i32(r, type);
				seen[0] = true;
				break;
			case 2:
				h->encoding = field_i32(r, type);
				seen[1] = true;
				break;
			case 3:
				h->is_sorted = field_bool(r, type);
				break;
			default:
				pq_thrift_skip(r, type);
		}
	}
	pq_thrift_struct_end(r);
	if (!seen[0] || !seen[1])
		r->failed = true;
}

PqStatus
pq_page_header_decode(const uint8_t *buf, size_t len, PqPageHeader *h,
					  PqError *err)
{
	PqThriftReader r;
	int16_t		fid;
	uint8_t		type;
	bool		has_type = false,
				has_usize = false,
				has_csize = false;

	memset(h, 0, sizeof(*h));
	pq_thrift_reader_init(&r, buf, len);
	pq_thrift_struct_begin(&r);
	while (pq_thrift_field_next(&r, &fid, &type))
	{
		switch (fid)
		{
			case 1:
				h->type = field_i32(&r, type);
				has_type = true;
				break;
			case 2:
				h->uncompressed_size = field_i32(&r, type);
				has_usize = true;
				break;
			case 3:
				h->compressed_size = field_i32(&r, type);
				has_csize = true;
				break;
			case 4:
				h->crc = (uint32_t) field_i32(&r, type);
				h->has_crc = true;
				break;
			case 5:
			case 7:
			case 8:
				if (type != PQ_THRIFT_STRUCT)
				{
					r.failed = true;
					break;
				}
				/* only the sub-header matching the type is decoded */
				if (has_type && ((fid == 5 && h->type == PQ_PAGE_DATA) ||
								 (fid == 7 && h->type == PQ_PAGE_DICTIONARY) ||
								 (fid == 8 && h->type == PQ_PAGE_DATA_V2)))
				{
					if (fid == 5)
						decode_data_page_header(&r, h);
					else if (fid == 7)
						decode_dictionary_page_header(&r, h);
					else
						decode_data_page_header_v2(&r, h);
					h->has_sub_header = true;
				}
				else
					pq_thrift_skip(&r, type);
				break;
			default:
				pq_thrift_skip(&r, type);
		}
		if (r.failed)
			break;
	}
	pq_thrift_struct_end(&r);
	if (r.failed || !has_type || !has_usize || !has_csize)
	{
		pq_page_error(err, PQ_ERR_CORRUPT, "malformed page header");
		return PQ_ERR_CORRUPT;
	}
	h->header_len = (uint32_t) pq_thrift_reader_offset(&r, buf);
	return PQ_OK;
}

/* Check a decoded header's sizes against the bytes the chunk has left. */
static PqStatus
check_header(const PqPageHeader *h, uint64_t available, PqError *err)
{
	if (h->compressed_size < 0 || h->uncompressed_size < 0)
	{
		pq_page_error(err, PQ_ERR_CORRUPT, "negative page size in page header");
		return PQ_ERR_CORRUPT;
	}
	if ((uint64_t) h->compressed_size > available - h->header_len)
	{
		pq_page_error(err, PQ_ERR_CORRUPT,
					  "page of %d bytes extends past the end of its column chunk",
					  h->compressed_size);
		return PQ_ERR_CORRUPT;
	}
	if ((h->type == PQ_PAGE_DATA || h->type == PQ_PAGE_DATA_V2 ||
		 h->type == PQ_PAGE_DICTIONARY) && !h->has_sub_header)
	{
		pq_page_error(err, PQ_ERR_CORRUPT, "page header lacks its %s header",
					  h->type == PQ_PAGE_DICTIONARY ? "dictionary page" : "data page");
		return PQ_ERR_CORRUPT;
	}
	if (h->num_values < 0)
	{
		pq_page_error(err, PQ_ERR_CORRUPT, "negative value count %d in page header",
					  h->num_values);
		return PQ_ERR_CORRUPT;
	}
	if (h->type == PQ_PAGE_DATA_V2)
	{
		if (h->num_nulls < 0 || h->num_rows < 0 || h->num_nulls > h->num_values ||
			h->def_levels_len < 0 || h->rep_levels_len < 0 ||
			(int64_t) h->def_levels_len + h->rep_levels_len > h->compressed_size ||
			(int64_t) h->def_levels_len + h->rep_levels_len > h->uncompressed_size)
		{
			pq_page_error(err, PQ_ERR_CORRUPT, "inconsistent sizes in data page v2 header");
			return PQ_ERR_CORRUPT;
		}
	}
	return PQ_OK;
}

PqStatus
pq_page_read_header(const PfcSource *source, const PfcAllocator *alloc,
					uint64_t offset, uint64_t limit, PqPageHeader *header,
					PqError *err)
{
	uint8_t		stack_buf[PAGE_HEADER_WINDOW];
	uint64_t	available;
	size_t		window;
	PqStatus	status;

	if (limit > source->size)
		limit = source->size;
	if (offset >= limit)
	{
		pq_page_error(err, PQ_ERR_CORRUPT, "page header offset %llu is outside its column chunk",
					  (unsigned long long) offset);
		return PQ_ERR_CORRUPT;
	}
	available = limit - offset;
	window = available < PAGE_HEADER_WINDOW ? (size_t) available : PAGE_HEADER_WINDOW;

	/*
	 * A header that does not decode from the window may just be longer (big
	 * statistics): widen the window until it covers the rest of the chunk.
	 */
	for (;;)
	{
		uint8_t    *buf = stack_buf;
		int			rc;

		if (window > sizeof(stack_buf))
		{
			buf = alloc->alloc(alloc->ctx, window);
			if (buf == NULL)
			{
				pq_page_error(err, PQ_ERR_IO, "out of memory reading a page header");
				err->sys_errno = ENOMEM;
				return PQ_ERR_IO;
			}
		}
		rc = source->read_at(source->ctx, offset, buf, window);
		if (rc != 0)
		{
			if (buf != stack_buf)
				alloc->release(alloc->ctx, buf);
			pq_page_error(err, PQ_ERR_IO, "could not read page header at offset %llu",
						  (unsigned long long) offset);
			if (err)
				err->sys_errno = rc;
			return PQ_ERR_IO;
		}
		status = pq_page_header_decode(buf, window, header, err);
		if (buf != stack_buf)
			alloc->release(alloc->ctx, buf);
		if (status == PQ_OK || window == available)
			break;
		window = (available / 4 < window) ? (size_t) available : window * 4;
	}
	if (status != PQ_OK)
		return status;
	return check_header(header, available, err);
}

/*
 * The most a codec can expand its input, as a factor; 0 means no useful
 * bound (the 1 GB page limit then applies alone).
 */
static uint64_t
codec_max_ratio(int codec)
{
	switch (codec)
	{
		case CMP_SNAPPY:
			return 64;			/* a 64-byte copy costs at least 2 bytes */
		case CMP_GZIP:
			return 1100;		/* deflate's limit is 1032:1 */
		case CMP_LZ4_HADOOP:
		case CMP_LZ4_RAW:
			return 256;			/* a match length byte adds 255 */
		default:
			return 0;			/* zstd RLE blocks, brotli: unbounded in practice */
	}
}

static void *
alloc_padded(const PfcAllocator *alloc, size_t len, PqError *err)
{
	void	   *p = alloc->alloc(alloc->ctx, len + CDC_INPUT_PADDING);

	if (p == NULL)
	{
		pq_page_error(err, PQ_ERR_IO, "out of memory reading a page of %zu bytes", len);
		if (err)
			err->sys_errno = ENOMEM;
		return NULL;
	}
	memset((uint8_t *) p + len, 0, CDC_INPUT_PADDING);
	return p;
}

PqStatus
pq_page_read_body(const PfcSource *source, const PfcAllocator *alloc,
				  int codec, uint64_t offset, const PqPageHeader *header,
				  bool verify_crc, PqPage *page, PqError *err)
{
	size_t		stored_len = (size_t) header->compressed_size;
	size_t		levels_len = 0;
	size_t		out_len;
	uint8_t    *stored;
	uint8_t    *out;
	bool		compressed;
	int			rc;
	CmpStatus	cs;

	memset(page, 0, sizeof(*page));
	page->header = *header;
	page->offset = offset;

	if (stored_len > PQ_MAX_PAGE_BYTES)
	{
		pq_page_error(err, PQ_ERR_UNSUPPORTED, "page of %zu bytes is larger than 1 GB",
					  stored_len);
		return PQ_ERR_UNSUPPORTED;
	}
	stored = alloc_padded(alloc, stored_len, err);
	if (stored == NULL)
		return PQ_ERR_IO;
	rc = stored_len == 0 ? 0 :
		source->read_at(source->ctx, offset + header->header_len, stored, stored_len);
	if (rc != 0)
	{
		alloc->release(alloc->ctx, stored);
		pq_page_error(err, PQ_ERR_IO, "could not read page at offset %llu",
					  (unsigned long long) offset);
		if (err)
			err->sys_errno = rc;
		return PQ_ERR_IO;
	}

	/* The CRC covers the page bytes as stored, after the header. */
	if (verify_crc && header->has_crc)
	{
		uint32_t	crc = pfc_crc32(stored, stored_len);

		if (crc != header->crc)
		{
			alloc->release(alloc->ctx, stored);
			pq_page_error(err, PQ_ERR_CHECKSUM,
						  "The page's stored CRC32 is %08x, its bytes give %08x.",
						  header->crc, crc);
			return PQ_ERR_CHECKSUM;
		}
	}

	compressed = codec != CMP_UNCOMPRESSED;
	if (header->type == PQ_PAGE_DATA_V2)
	{
		levels_len = (size_t) header->def_levels_len + (size_t) header->rep_levels_len;
		if (!header->is_compressed)
			compressed = false;
	}
	if (!compressed)
	{
		/* Stored bytes are the body; uncompressed_size is not trusted. */
		page->body = stored;
		page->body_len = stored_len;
		return PQ_OK;
	}

	out_len = (size_t) header->uncompressed_size;
	{
		uint64_t	ratio = codec_max_ratio(codec);
		uint64_t	in_values = stored_len - levels_len;

		if (out_len > PQ_MAX_PAGE_BYTES ||
			(ratio != 0 && out_len - levels_len > in_values * ratio + 64))
		{
			alloc->release(alloc->ctx, stored);
			pq_page_error(err, PQ_ERR_CORRUPT,
						  "page declares %zu uncompressed bytes for %zu compressed bytes",
						  out_len, stored_len);
			return PQ_ERR_CORRUPT;
		}
	}
	out = alloc_padded(alloc, out_len, err);
	if (out == NULL)
	{
		alloc->release(alloc->ctx, stored);
		return PQ_ERR_IO;
	}
	memcpy(out, stored, levels_len);
	if (out_len == levels_len && stored_len == levels_len)
		cs = CMP_OK;			/* empty value section (all nulls) */
	else
		cs = cmp_decompress(codec, stored + levels_len, stored_len - levels_len,
							out + levels_len, out_len - levels_len);
	alloc->release(alloc->ctx, stored);
	if (cs != CMP_OK)
	{
		alloc->release(alloc->ctx, out);
		if (cs == CMP_ERR_UNSUPPORTED)
		{
			pq_page_error(err, PQ_ERR_UNSUPPORTED, "compression codec %s is not supported",
						  cmp_codec_name(codec));
			return PQ_ERR_UNSUPPORTED;
		}
		if (cs == CMP_ERR_NOMEM)
		{
			pq_page_error(err, PQ_ERR_IO, "out of memory decompressing a page");
			if (err)
				err->sys_errno = ENOMEM;
			return PQ_ERR_IO;
		}
		pq_page_error(err, PQ_ERR_CORRUPT, "could not decompress %s page: %s",
					  cmp_codec_name(codec), cmp_status_message(cs));
		return PQ_ERR_CORRUPT;
	}
	page->body = out;
	page->body_len = out_len;
	return PQ_OK;
}

void
pq_page_release(PqPage *page, const PfcAllocator *alloc)
{
	if (page->body != NULL)
		alloc->release(alloc->ctx, page->body);
	page->body = NULL;
	page->body_len = 0;
}
