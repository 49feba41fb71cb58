/*-------------------------------------------------------------------------
 *
 * column_reader.c
 *	  Column chunk pages to batches of rows (pq_column_reader_* of parquet.h).
 *
 * The reader walks the pages of one column chunk in order.  A data page is
 * read and decompressed whole, then consumed by as many batches as it takes;
 * level streams (RLE) and PLAIN/dictionary values are decoded incrementally,
 * one batch segment at a time.  The codec layer's delta and byte-stream-split
 * decoders decode a whole stream at once, so those pages are decoded into a
 * page-sized buffer when loaded and copied out per batch.
 *
 * A batch never splits a row.  For repeated columns the repetition levels of
 * the next segment are decoded ahead from a copy of the decoder state (the
 * RLE decoder is a plain struct), the batch is cut at the first rep_level 0
 * past the requested row count, and the real state advances by what was
 * taken.  Rows may continue on the next page, so a batch may hold pieces of
 * several pages; the buffers of consumed pages stay alive until the next
 * call (byte-array views point into them) and are released then.
 *
 * IDENTIFICATION
 *	  src/parquet/column_reader.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/parquet.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compress/compress.h"
#include "parquet/page.h"

/* Level entries decoded per step when looking for row boundaries. */
#define LEVEL_STEP			4096

/* Rows decoded per step when skipping inside a page. */
#define SKIP_STEP			4096

/* Bytes a parquet-mr dictionary page header may add past its chunk. */
#define LEGACY_DICT_HEADER_SLACK	100

/* Level entries one batch may hold (a single row cannot exceed it). */
#define MAX_BATCH_LEVELS	((uint32_t) 1 << 26)

/* A stream of levels: RLE hybrid, or the legacy BIT_PACKED form decoded
 * up front (it has no length prefix and no streaming decoder). */
typedef struct LevelSource
{
	bool		present;
	CdcRleDecoder rle;
	const int16_t *predecoded;	/* BIT_PACKED levels, or NULL */
	uint32_t	pos;			/* next predecoded entry */
} LevelSource;

struct PqColumnReader
{
	PqFile	   *file;
	const PfcSource *source;
	PfcAllocator alloc;
	PfcAllocator page_alloc;		/* page bodies and what pages own (may be a
								 * pool shared across readers) */
	bool		verify_crc;
	int			row_group;
	int			leaf;
	PqPhysicalType type;
	uint32_t	width;			/* bytes per batch value */
	int32_t		type_length;	/* FIXED_LEN_BYTE_ARRAY */
	int16_t		max_def;
	int16_t		max_rep;
	unsigned	def_bits;
	unsigned	rep_bits;
	int			codec;

	/* position in the chunk */
	uint64_t	next_offset;	/* next page header */
	uint64_t	chunk_end;
	int			next_page;		/* ordinal of the next page header */
	int			cur_page;		/* ordinal of the page being consumed */
	int64_t		levels_left;	/* entries not yet loaded into a page */
	bool		seen_data_page;
	uint64_t	bytes_read;		/* page headers and bodies read so far */

	/* dictionary (lives until close) */
	bool		have_dict;
	PqPage		dict_page;
	uint32_t	dict_count;
	uint8_t    *dict_values;	/* width bytes each; views for BYTE_ARRAY */

	/* the data page being consumed */
	bool		page_loaded;
	PqPage		page;
	uint32_t	page_levels_left;
	LevelSource def_src;
	LevelSource rep_src;
	int32_t		encoding;
	const uint8_t *vpos;		/* value section, streaming encodings */
	const uint8_t *vend;
	uint64_t	bool_bit;		/* PLAIN BOOLEAN: next bit from vpos */
	CdcRleDecoder idx;			/* dictionary indexes, RLE booleans */
	bool		idx_ready;
	uint8_t    *pre_values;		/* delta and BSS pages: decoded values */
	uint32_t	pre_count;
	uint32_t	pre_pos;
	void	   *page_allocs[8];	/* extra allocations owned by the page */
	int			num_page_allocs;

	/* buffers of consumed pages, released at the next call */
	void	  **retired;
	uint32_t	num_retired;
	uint32_t	retired_cap;

	/* batch buffers */
	uint8_t    *values;
	bool	   *is_null;
	int16_t    *def;
	int16_t    *rep;
	uint32_t   *dict_idx;		/* BYTE_ARRAY: dictionary entry per value */
	uint32_t	batch_cap;		/* level entries the buffers hold */
	uint32_t   *idx_buf;
	uint32_t	idx_cap;
};

/* ----------------------------------------------------------------
 * Errors and memory
 * ----------------------------------------------------------------
 */

static PqStatus reader_error(PqColumnReader *r, PqError *err, PqStatus status,
							 const char *fmt,...) __attribute__((format(printf, 4, 5)));

/* Fill err with the reader's position and a formatted message. */
static PqStatus
reader_error(PqColumnReader *r, PqError *err, PqStatus status, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL)
		return status;
	pq_error_clear(err);
	err->status = status;
	err->row_group = r->row_group;
	err->column = r->leaf;
	err->page = r->cur_page;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return status;
}

/* Add the reader's position to an error page.c filled in. */
static PqStatus
locate_error(PqColumnReader *r, PqError *err, PqStatus status)
{
	if (err != NULL)
	{
		err->status = status;
		err->row_group = r->row_group;
		err->column = r->leaf;
		err->page = r->cur_page;
	}
	return status;
}

static PqStatus
codec_error(PqColumnReader *r, PqError *err, CdcStatus cs, const char *what)
{
	if (cs == CDC_ERR_UNSUPPORTED)
		return reader_error(r, err, PQ_ERR_UNSUPPORTED, "%s: %s", what,
							cdc_status_message(cs));
	return reader_error(r, err, PQ_ERR_CORRUPT, "%s: %s", what,
						cdc_status_message(cs));
}

static void *
reader_alloc(PqColumnReader *r, size_t size, PqError *err)
{
	void	   *p = r->alloc.alloc(r->alloc.ctx, size);

	if (p == NULL)
	{
		reader_error(r, err, PQ_ERR_IO, "out of memory");
		if (err)
			err->sys_errno = ENOMEM;
	}
	return p;
}

static void
reader_free(PqColumnReader *r, void *p)
{
	if (p != NULL)
		r->alloc.release(r->alloc.ctx, p);
}

/* Release a buffer a page owned (from page_alloc). */
static void
page_free(PqColumnReader *r, void *p)
{
	if (p != NULL)
		r->page_alloc.release(r->page_alloc.ctx, p);
}

/* Element count * size + slack, or 0 on overflow. */
static size_t
array_bytes(size_t count, size_t size)
{
	if (count > (SIZE_MAX / 2) / (size ? size : 1) - CDC_OUTPUT_SLACK)
		return 0;
	return (count + CDC_OUTPUT_SLACK) * (size ? size : 1);
}

/* An allocation the current page owns (released with it). */
static void *
page_alloc(PqColumnReader *r, size_t count, size_t size, PqError *err)
{
	size_t		bytes = array_bytes(count, size);
	void	   *p;

	if (bytes == 0)
	{
		reader_error(r, err, PQ_ERR_CORRUPT, "page value count %zu is too large", count);
		return NULL;
	}
	p = r->page_alloc.alloc(r->page_alloc.ctx, bytes);
	if (p == NULL)
	{
		reader_error(r, err, PQ_ERR_IO, "out of memory");
		if (err)
			err->sys_errno = ENOMEM;
		return NULL;
	}
	r->page_allocs[r->num_page_allocs++] = p;
	return p;
}

static bool
retire(PqColumnReader *r, void *p, PqError *err)
{
	if (p == NULL)
		return true;
	if (r->num_retired == r->retired_cap)
	{
		uint32_t	cap = r->retired_cap ? r->retired_cap * 2 : 16;
		void	  **n = reader_alloc(r, cap * sizeof(void *), err);

		if (n == NULL)
			return false;
		if (r->num_retired)
			memcpy(n, r->retired, r->num_retired * sizeof(void *));
		reader_free(r, r->retired);
		r->retired = n;
		r->retired_cap = cap;
	}
	r->retired[r->num_retired++] = p;
	return true;
}

static void
release_retired(PqColumnReader *r)
{
	for (uint32_t i = 0; i < r->num_retired; i++)
		page_free(r, r->retired[i]);
	r->num_retired = 0;
}

/* The current page is consumed: its buffers outlive it until the next call. */
static PqStatus
retire_page(PqColumnReader *r, PqError *err)
{
	if (!retire(r, r->page.body, err))
		return PQ_ERR_IO;
	r->page.body = NULL;
	for (int i = 0; i < r->num_page_allocs; i++)
	{
		if (!retire(r, r->page_allocs[i], err))
		{
			/* keep the rest owned by the page so close frees them */
			memmove(r->page_allocs, r->page_allocs + i,
					(r->num_page_allocs - i) * sizeof(void *));
			r->num_page_allocs -= i;
			return PQ_ERR_IO;
		}
	}
	r->num_page_allocs = 0;
	r->page_loaded = false;
	r->pre_values = NULL;
	return PQ_OK;
}

/* Make the batch buffers hold `need` level entries, keeping `used`. */
static PqStatus
reserve_batch(PqColumnReader *r, uint32_t need, uint32_t used, PqError *err)
{
	uint64_t	cap;
	uint8_t    *values;
	bool	   *is_null;
	int16_t    *def = NULL;
	int16_t    *rep = NULL;
	uint32_t   *dict_idx = NULL;

	if (need <= r->batch_cap)
		return PQ_OK;
	if (need > MAX_BATCH_LEVELS)
		return reader_error(r, err, PQ_ERR_UNSUPPORTED,
							"batch needs more than %u level entries", MAX_BATCH_LEVELS);
	cap = (uint64_t) r->batch_cap * 2;
	if (cap < need)
		cap = need;
	if (cap < 256)
		cap = 256;
	if (cap > MAX_BATCH_LEVELS)
		cap = MAX_BATCH_LEVELS;

	values = reader_alloc(r, array_bytes(cap, r->width), err);
	is_null = values ? reader_alloc(r, array_bytes(cap, 1), err) : NULL;
	if (is_null && r->max_def > 0)
		def = reader_alloc(r, array_bytes(cap, sizeof(int16_t)), err);
	if (is_null && r->max_rep > 0 && (r->max_def == 0 || def))
		rep = reader_alloc(r, array_bytes(cap, sizeof(int16_t)), err);
	if (is_null && r->type == PQ_BYTE_ARRAY)
		dict_idx = reader_alloc(r, array_bytes(cap, sizeof(uint32_t)), err);
	if (values == NULL || is_null == NULL ||
		(r->max_def > 0 && def == NULL) || (r->max_rep > 0 && rep == NULL) ||
		(r->type == PQ_BYTE_ARRAY && dict_idx == NULL))
	{
		reader_free(r, values);
		reader_free(r, is_null);
		reader_free(r, def);
		reader_free(r, rep);
		reader_free(r, dict_idx);
		return PQ_ERR_IO;
	}
	if (used > 0)
	{
		memcpy(values, r->values, (size_t) used * r->width);
		if (dict_idx)
			memcpy(dict_idx, r->dict_idx, used * sizeof(uint32_t));
		if (def)
			memcpy(def, r->def, used * sizeof(int16_t));
		if (rep)
			memcpy(rep, r->rep, used * sizeof(int16_t));
	}
	reader_free(r, r->values);
	reader_free(r, r->is_null);
	reader_free(r, r->def);
	reader_free(r, r->rep);
	reader_free(r, r->dict_idx);
	r->values = values;
	r->is_null = is_null;
	r->def = def;
	r->rep = rep;
	r->dict_idx = dict_idx;
	r->batch_cap = (uint32_t) cap;
	return PQ_OK;
}

static PqStatus
reserve_idx(PqColumnReader *r, uint32_t need, PqError *err)
{
	uint32_t	cap;
	uint32_t   *buf;

	if (need <= r->idx_cap)
		return PQ_OK;
	cap = need < 1024 ? 1024 : need;
	buf = reader_alloc(r, array_bytes(cap, sizeof(uint32_t)), err);
	if (buf == NULL)
		return PQ_ERR_IO;
	reader_free(r, r->idx_buf);
	r->idx_buf = buf;
	r->idx_cap = cap;
	return PQ_OK;
}

/* ----------------------------------------------------------------
 * Levels
 * ----------------------------------------------------------------
 */

/* Bits of a level stream: ceil(log2(max + 1)). */
static unsigned
level_bit_width(int16_t max_level)
{
	unsigned	bits = 0;

	while (bits < 16 && ((int32_t) 1 << bits) <= max_level)
		bits++;
	return bits;
}

/*
 * Set up a v1 level stream at *pos: RLE with a 4-byte length prefix, or
 * the deprecated MSB-first BIT_PACKED form of exactly num_values entries.
 */
static PqStatus
init_levels_v1(PqColumnReader *r, LevelSource *src, int32_t encoding,
			   unsigned bits, uint32_t num_values, const uint8_t **pos,
			   const uint8_t *end, const char *what, PqError *err)
{
	CdcStatus	cs;

	memset(src, 0, sizeof(*src));
	src->present = true;
	if (encoding == PQ_ENC_BIT_PACKED)
	{
		size_t		bytes = cdc_packed_size(num_values, bits);
		uint32_t   *tmp;
		int16_t    *levels;

		if (bytes > (size_t) (end - *pos))
			return reader_error(r, err, PQ_ERR_CORRUPT,
								"%s levels are truncated", what);
		tmp = reader_alloc(r, array_bytes(num_values, sizeof(uint32_t)), err);
		if (tmp == NULL)
			return PQ_ERR_IO;
		cs = cdc_unpack32_msb(*pos, bytes, bits, tmp, num_values);
		if (cs != CDC_OK)
		{
			reader_free(r, tmp);
			return codec_error(r, err, cs, "bad bit-packed levels");
		}
		levels = page_alloc(r, num_values, sizeof(int16_t), err);
		if (levels == NULL)
		{
			reader_free(r, tmp);
			return PQ_ERR_IO;
		}
		for (uint32_t i = 0; i < num_values; i++)
			levels[i] = (int16_t) tmp[i];	/* bits <= 16: no truncation */
		reader_free(r, tmp);
		src->predecoded = levels;
		*pos += bytes;
		return PQ_OK;
	}
	if (encoding != PQ_ENC_RLE)
		return reader_error(r, err, PQ_ERR_UNSUPPORTED,
							"%s level encoding %s is not supported", what,
							pq_encoding_name(encoding));
	{
		size_t		consumed;

		cs = cdc_rle_init_prefixed(&src->rle, *pos, (size_t) (end - *pos), bits,
								   &consumed);
		if (cs != CDC_OK)
			return codec_error(r, err, cs, "bad level stream");
		*pos += consumed;
	}
	return PQ_OK;
}

/* Decode n levels and check none exceeds max_level. */
static PqStatus
decode_levels(PqColumnReader *r, LevelSource *src, int16_t *out, uint32_t n,
			  int16_t max_level, PqError *err)
{
	int16_t		worst = 0;

	if (src->predecoded)
	{
		memcpy(out, src->predecoded + src->pos, n * sizeof(int16_t));
		src->pos += n;
	}
	else
	{
		CdcStatus	cs = cdc_rle_decode16(&src->rle, out, n);

		if (cs != CDC_OK)
			return codec_error(r, err, cs, "bad level stream");
	}
	for (uint32_t i = 0; i < n; i++)
		worst = out[i] > worst ? out[i] : worst;
	if (worst > max_level)
		return reader_error(r, err, PQ_ERR_CORRUPT,
							"level %d exceeds the column's maximum %d",
							worst, max_level);
	return PQ_OK;
}

static PqStatus
skip_levels(PqColumnReader *r, LevelSource *src, uint32_t n, PqError *err)
{
	CdcStatus	cs;

	if (src->predecoded)
	{
		src->pos += n;
		return PQ_OK;
	}
	cs = cdc_rle_skip(&src->rle, n);
	if (cs != CDC_OK)
		return codec_error(r, err, cs, "bad level stream");
	return PQ_OK;
}

/* ----------------------------------------------------------------
 * Dictionary pages
 * ----------------------------------------------------------------
 */
static PqStatus
load_dictionary(PqColumnReader *r, PqError *err)
{
	const PqPageHeader *h = &r->dict_page.header;
	const uint8_t *body = r->dict_page.body;
	size_t		len = r->dict_page.body_len;
	uint32_t	n = (uint32_t) h->num_values;
	size_t		consumed;
	CdcStatus	cs;

	if (h->encoding != PQ_ENC_PLAIN && h->encoding != PQ_ENC_PLAIN_DICTIONARY)
		return reader_error(r, err, PQ_ERR_UNSUPPORTED,
							"dictionary page encoding %s is not supported",
							pq_encoding_name(h->encoding));

	/* The smallest encoding of n values must fit before we allocate. */
	if ((r->type == PQ_BOOLEAN && n / 8 > len) ||
		(r->type == PQ_BYTE_ARRAY && n > len / 4) ||
		(r->type != PQ_BOOLEAN && r->type != PQ_BYTE_ARRAY && n > len / r->width))
		return reader_error(r, err, PQ_ERR_CORRUPT,
							"dictionary page of %zu bytes cannot hold %u values",
							len, n);
	r->dict_values = reader_alloc(r, array_bytes(n, r->width), err);
	if (r->dict_values == NULL)
		return PQ_ERR_IO;
	if (r->type == PQ_BOOLEAN)
		cs = cdc_plain_bool_decode(body, len, r->dict_values, n, &consumed);
	else if (r->type == PQ_BYTE_ARRAY)
		cs = cdc_plain_byte_array_decode(body, len, (CdcByteView *) r->dict_values,
										 n, &consumed);
	else
		cs = cdc_plain_fixed_decode(body, len, r->width, r->dict_values, n,
									&consumed);
	if (cs != CDC_OK)
		return codec_error(r, err, cs, "bad dictionary page");
	r->dict_count = n;
	r->have_dict = true;
	return PQ_OK;
}

/* ----------------------------------------------------------------
 * Data pages
 * ----------------------------------------------------------------
 */

/* Delta and BSS pages: decode the whole value section now. */
static PqStatus
predecode_values(PqColumnReader *r, uint32_t num_levels, PqError *err)
{
	const uint8_t *in = r->vpos;
	size_t		len = (size_t) (r->vend - r->vpos);
	uint64_t	total = 0;
	uint32_t	count;
	size_t		consumed;
	CdcStatus	cs;

	switch (r->encoding)
	{
		case PQ_ENC_BYTE_STREAM_SPLIT:
			if (len % r->width != 0)
				return reader_error(r, err, PQ_ERR_CORRUPT,
									"byte stream split section of %zu bytes is not a multiple of %u",
									len, r->width);
			total = len / r->width;
			break;
		case PQ_ENC_DELTA_BINARY_PACKED:
		case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
		case PQ_ENC_DELTA_BYTE_ARRAY:
			if (len == 0)
				total = 0;		/* an all-null page may have no values section */
			else
			{
				cs = cdc_delta_binary_header_count(in, len, &total);
				if (cs != CDC_OK)
					return codec_error(r, err, cs, "bad delta header");
			}
			break;
	}
	if (total > num_levels)
		return reader_error(r, err, PQ_ERR_CORRUPT,
							"page holds %llu values for %u level entries",
							(unsigned long long) total, num_levels);
	count = (uint32_t) total;
	/* constant runs decode from almost nothing; refuse absurd expansions */
	if ((uint64_t) count > (uint64_t) len * 256 + 4096)
		return reader_error(r, err, PQ_ERR_CORRUPT,
							"page declares %u values in %zu bytes", count, len);
	r->pre_count = count;
	r->pre_pos = 0;
	if (count == 0)
		return PQ_OK;
	r->pre_values = page_alloc(r, count, r->width, err);
	if (r->pre_values == NULL)
		return PQ_ERR_IO;

	switch (r->encoding)
	{
		case PQ_ENC_BYTE_STREAM_SPLIT:
			cs = cdc_bss_decode(in, len, r->width, r->pre_values, count);
			break;
		case PQ_ENC_DELTA_BINARY_PACKED:
			if (r->type == PQ_INT32)
			{
				cs = cdc_delta_binary_decode32(in, len, (int32_t *) r->pre_values,
											   count, &consumed);

				/*
				 * Some writers (DuckDB) compute INT32 deltas in 64 bits, so a
				 * miniblock may be 33 bits wide.  Decoding in 64 bits and
				 * keeping the low 32 gives the same values modulo 2^32.
				 */
				if (cs == CDC_ERR_CORRUPT)
				{
					int64_t    *wide = page_alloc(r, count, sizeof(int64_t), err);

					if (wide == NULL)
						return PQ_ERR_IO;
					cs = cdc_delta_binary_decode64(in, len, wide, count, &consumed);
					if (cs == CDC_OK)
						for (uint32_t i = 0; i < count; i++)
							((int32_t *) r->pre_values)[i] = (int32_t) (uint32_t) (uint64_t) wide[i];
				}
			}
			else
				cs = cdc_delta_binary_decode64(in, len, (int64_t *) r->pre_values,
											   count, &consumed);
			break;
		case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
			{
				int32_t    *scratch = page_alloc(r, count, sizeof(int32_t), err);

				if (scratch == NULL)
					return PQ_ERR_IO;
				cs = cdc_delta_length_decode(in, len, (CdcByteView *) r->pre_values,
											 count, scratch, &consumed);
				break;
			}
		case PQ_ENC_DELTA_BYTE_ARRAY:
			{
				int32_t    *scratch = page_alloc(r, count, sizeof(int32_t), err);
				int32_t    *scratch2 = scratch ? page_alloc(r, count, sizeof(int32_t), err) : NULL;
				CdcByteView *views;
				size_t		arena_len = 0;
				uint8_t    *arena;

				if (scratch2 == NULL)
					return PQ_ERR_IO;
				cs = cdc_delta_byte_array_measure(in, len, count, scratch, &arena_len);
				if (cs != CDC_OK)
					break;
				if (arena_len > PQ_MAX_PAGE_BYTES)
					return reader_error(r, err, PQ_ERR_UNSUPPORTED,
										"delta byte array page expands to %zu bytes",
										arena_len);
				arena = page_alloc(r, arena_len, 1, err);
				if (arena == NULL)
					return PQ_ERR_IO;
				/* FLBA: decode to views, then lay the bytes out fixed width */
				views = (CdcByteView *) r->pre_values;
				if (r->type != PQ_BYTE_ARRAY)
				{
					views = page_alloc(r, count, sizeof(CdcByteView), err);
					if (views == NULL)
						return PQ_ERR_IO;
				}
				cs = cdc_delta_byte_array_decode(in, len, views, count, scratch,
												 scratch2, arena, arena_len + CDC_OUTPUT_SLACK,
												 &consumed);
				if (cs == CDC_OK && r->type != PQ_BYTE_ARRAY)
				{
					for (uint32_t i = 0; i < count; i++)
					{
						if (views[i].len != r->width)
							return reader_error(r, err, PQ_ERR_CORRUPT,
												"delta byte array value of %u bytes in a column of width %u",
												views[i].len, r->width);
						memcpy(r->pre_values + (size_t) i * r->width, views[i].ptr, r->width);
					}
				}
				break;
			}
		default:
			cs = CDC_ERR_INVALID_ARGUMENT;
	}
	if (cs != CDC_OK)
		return codec_error(r, err, cs, "bad encoded values");
	return PQ_OK;
}

/* Which value encodings go with which physical types. */
static bool
encoding_fits_type(int32_t encoding, PqPhysicalType type)
{
	switch (encoding)
	{
		case PQ_ENC_PLAIN:
		case PQ_ENC_PLAIN_DICTIONARY:
		case PQ_ENC_RLE_DICTIONARY:
			return true;
		case PQ_ENC_RLE:
			return type == PQ_BOOLEAN;
		case PQ_ENC_DELTA_BINARY_PACKED:
			return type == PQ_INT32 || type == PQ_INT64;
		case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
			return type == PQ_BYTE_ARRAY;
		case PQ_ENC_DELTA_BYTE_ARRAY:
			return type == PQ_BYTE_ARRAY || type == PQ_FIXED_LEN_BYTE_ARRAY;
		case PQ_ENC_BYTE_STREAM_SPLIT:
			return type == PQ_FLOAT || type == PQ_DOUBLE || type == PQ_INT32 ||
				type == PQ_INT64 || type == PQ_FIXED_LEN_BYTE_ARRAY;
		default:
			return false;
	}
}

/* Set up level and value decoding over the freshly read data page. */
static PqStatus
start_data_page(PqColumnReader *r, PqError *err)
{
	const PqPageHeader *h = &r->page.header;
	const uint8_t *pos = r->page.body;
	const uint8_t *end = r->page.body + r->page.body_len;
	uint32_t	nv = (uint32_t) h->num_values;
	PqStatus	status;
	CdcStatus	cs;

	memset(&r->def_src, 0, sizeof(r->def_src));
	memset(&r->rep_src, 0, sizeof(r->rep_src));
	r->idx_ready = false;
	r->pre_values = NULL;
	r->pre_count = r->pre_pos = 0;
	r->bool_bit = 0;
	r->encoding = h->encoding;

	if (h->type == PQ_PAGE_DATA)
	{
		if (r->max_rep > 0)
		{
			status = init_levels_v1(r, &r->rep_src, h->rep_level_encoding,
									r->rep_bits, nv, &pos, end, "repetition", err);
			if (status != PQ_OK)
				return status;
		}
		if (r->max_def > 0)
		{
			status = init_levels_v1(r, &r->def_src, h->def_level_encoding,
									r->def_bits, nv, &pos, end, "definition", err);
			if (status != PQ_OK)
				return status;
		}
	}
	else
	{
		size_t		rep_len = (size_t) h->rep_levels_len;
		size_t		def_len = (size_t) h->def_levels_len;

		if (rep_len + def_len > r->page.body_len)
			return reader_error(r, err, PQ_ERR_CORRUPT,
								"level sections exceed the page");
		if (r->max_rep > 0)
		{
			r->rep_src.present = true;
			cs = cdc_rle_init(&r->rep_src.rle, pos, rep_len, r->rep_bits);
			if (cs != CDC_OK)
				return codec_error(r, err, cs, "bad repetition levels");
		}
		if (r->max_def > 0)
		{
			r->def_src.present = true;
			cs = cdc_rle_init(&r->def_src.rle, pos + rep_len, def_len, r->def_bits);
			if (cs != CDC_OK)
				return codec_error(r, err, cs, "bad definition levels");
		}
		pos += rep_len + def_len;
	}
	r->vpos = pos;
	r->vend = end;

	if (!encoding_fits_type(r->encoding, r->type))
	{
		const char *name = pq_encoding_name(r->encoding);

		return reader_error(r, err, PQ_ERR_UNSUPPORTED,
							"encoding %s%s is not supported for %s columns",
							name, strcmp(name, "unknown") == 0 ? " (unknown id)" : "",
							pq_physical_type_name(r->type));
	}

	switch (r->encoding)
	{
		case PQ_ENC_PLAIN:
			break;
		case PQ_ENC_PLAIN_DICTIONARY:
		case PQ_ENC_RLE_DICTIONARY:
			if (!r->have_dict)
				return reader_error(r, err, PQ_ERR_CORRUPT,
									"dictionary-encoded page without a dictionary page");
			/* an all-null page may omit even the bit width byte */
			if (r->vpos < r->vend)
			{
				unsigned	bits = *r->vpos;

				if (bits > 32)
					return reader_error(r, err, PQ_ERR_CORRUPT,
										"dictionary index bit width %u", bits);
				cs = cdc_rle_init(&r->idx, r->vpos + 1, (size_t) (r->vend - r->vpos - 1), bits);
				if (cs != CDC_OK)
					return codec_error(r, err, cs, "bad dictionary indexes");
				r->idx_ready = true;
			}
			break;
		case PQ_ENC_RLE:
			if (r->vpos < r->vend)
			{
				size_t		consumed;

				cs = cdc_rle_init_prefixed(&r->idx, r->vpos, (size_t) (r->vend - r->vpos),
										   1, &consumed);
				if (cs != CDC_OK)
					return codec_error(r, err, cs, "bad rle booleans");
				r->idx_ready = true;
			}
			break;
		default:
			return predecode_values(r, nv, err);
	}
	return PQ_OK;
}

/*
 * Read page headers until the next data page header; dictionary pages met
 * on the way are loaded, index pages and unknown page types skipped.
 * *found is false when the chunk has no more values.
 */
static PqStatus
next_data_page_header(PqColumnReader *r, PqPageHeader *h, bool *found, PqError *err)
{
	PqStatus	status;

	*found = false;
	while (r->levels_left > 0)
	{
		if (r->next_offset >= r->chunk_end)
			return reader_error(r, err, PQ_ERR_CORRUPT,
								"column chunk ends with %lld values missing",
								(long long) r->levels_left);
		r->cur_page = r->next_page;
		status = pq_page_read_header(r->source, &r->alloc, r->next_offset,
									 r->chunk_end, h, err);
		if (status != PQ_OK)
			return locate_error(r, err, status);
		r->next_page++;
		r->bytes_read += h->header_len;

		if (h->type == PQ_PAGE_DATA || h->type == PQ_PAGE_DATA_V2)
		{
			if ((int64_t) h->num_values > r->levels_left)
				return reader_error(r, err, PQ_ERR_CORRUPT,
									"page holds %d values, the column chunk only %lld more",
									h->num_values, (long long) r->levels_left);
			*found = true;
			return PQ_OK;
		}
		if (h->type == PQ_PAGE_DICTIONARY)
		{
			if (r->have_dict || r->seen_data_page)
				return reader_error(r, err, PQ_ERR_CORRUPT,
									"unexpected dictionary page");
			status = pq_page_read_body(r->source, &r->page_alloc, r->codec, r->next_offset,
									   h, r->verify_crc, &r->dict_page, err);
			if (status != PQ_OK)
				return locate_error(r, err, status);
			r->bytes_read += (uint64_t) h->compressed_size;
			status = load_dictionary(r, err);
			if (status != PQ_OK)
				return status;
		}
		r->next_offset += h->header_len + (uint64_t) h->compressed_size;
	}
	return PQ_OK;
}

/* Read and set up the next data page; page_loaded stays false at the end. */
static PqStatus
load_next_page(PqColumnReader *r, PqError *err)
{
	PqPageHeader h;
	bool		found;
	PqStatus	status;

	status = next_data_page_header(r, &h, &found, err);
	if (status != PQ_OK || !found)
		return status;
	status = pq_page_read_body(r->source, &r->page_alloc, r->codec, r->next_offset, &h,
							   r->verify_crc, &r->page, err);
	if (status != PQ_OK)
		return locate_error(r, err, status);
	r->bytes_read += (uint64_t) h.compressed_size;
	r->next_offset += h.header_len + (uint64_t) h.compressed_size;
	r->levels_left -= h.num_values;
	r->seen_data_page = true;
	r->page_loaded = true;
	r->page_levels_left = (uint32_t) h.num_values;
	r->num_page_allocs = 0;
	status = start_data_page(r, err);
	if (status != PQ_OK)
	{
		/* the failed page's buffers go now; nothing references them */
		pq_page_release(&r->page, &r->page_alloc);
		for (int i = 0; i < r->num_page_allocs; i++)
			page_free(r, r->page_allocs[i]);
		r->num_page_allocs = 0;
		r->page_loaded = false;
		/* do not resume past a broken page */
		r->levels_left = 0;
	}
	return status;
}

/* Decode n dense (non-null) values of the current page into out. */
static PqStatus
decode_values(PqColumnReader *r, uint8_t *out, uint32_t n, PqError *err)
{
	size_t		avail = (size_t) (r->vend - r->vpos);
	size_t		consumed = 0;
	CdcStatus	cs = CDC_OK;

	if (n == 0)
		return PQ_OK;
	switch (r->encoding)
	{
		case PQ_ENC_PLAIN:
			if (r->type == PQ_BOOLEAN)
			{
				/* whole bytes from the one holding bool_bit, then drop the lead */
				uint64_t	byte = r->bool_bit >> 3;
				unsigned	lead = (unsigned) (r->bool_bit & 7);

				if (byte > avail)
					return reader_error(r, err, PQ_ERR_CORRUPT, "plain booleans are truncated");
				cs = cdc_plain_bool_decode(r->vpos + byte, avail - byte, out,
										   (size_t) n + lead, &consumed);
				if (cs == CDC_OK)
				{
					if (lead)
						memmove(out, out + lead, n);
					r->bool_bit += n;
				}
				consumed = 0;
			}
			else if (r->type == PQ_BYTE_ARRAY)
				cs = cdc_plain_byte_array_decode(r->vpos, avail, (CdcByteView *) out,
												 n, &consumed);
			else
				cs = cdc_plain_fixed_decode(r->vpos, avail, r->width, out, n, &consumed);
			r->vpos += consumed;
			break;

		case PQ_ENC_PLAIN_DICTIONARY:
		case PQ_ENC_RLE_DICTIONARY:
		case PQ_ENC_RLE:
			{
				PqStatus	status;

				if (!r->idx_ready)
					return reader_error(r, err, PQ_ERR_CORRUPT,
										"page has no values section for %u values", n);
				status = reserve_idx(r, n, err);
				if (status != PQ_OK)
					return status;
				cs = cdc_rle_decode(&r->idx, r->idx_buf, n);
				if (cs != CDC_OK)
					break;
				if (r->encoding == PQ_ENC_RLE)
				{
					for (uint32_t i = 0; i < n; i++)
						out[i] = (uint8_t) r->idx_buf[i];
					break;
				}
				if (r->type == PQ_BYTE_ARRAY)
					cs = cdc_dict_gather_views((const CdcByteView *) r->dict_values,
											   r->dict_count, r->idx_buf,
											   (CdcByteView *) out, n);
				else if (r->width == 4)
					cs = cdc_dict_gather32((const uint32_t *) r->dict_values,
										   r->dict_count, r->idx_buf,
										   (uint32_t *) out, n);
				else if (r->width == 8)
					cs = cdc_dict_gather64((const uint64_t *) r->dict_values,
										   r->dict_count, r->idx_buf,
										   (uint64_t *) out, n);
				else
					cs = cdc_dict_gather_fixed(r->dict_values, r->width, r->dict_count,
											   r->idx_buf, out, n);
				if (cs != CDC_OK)
					return codec_error(r, err, cs, "bad dictionary index");
				break;
			}

		default:
			if (n > r->pre_count - r->pre_pos)
				return reader_error(r, err, PQ_ERR_CORRUPT,
									"page has fewer values than its levels say");
			memcpy(out, r->pre_values + (size_t) r->pre_pos * r->width,
				   (size_t) n * r->width);
			r->pre_pos += n;
			break;
	}
	if (cs != CDC_OK)
		return codec_error(r, err, cs, "bad encoded values");
	return PQ_OK;
}

/*
 * Where the next n dense values of the current page already lie in memory
 * as the batch layout wants them (PLAIN or pre-decoded 4- and 8-byte
 * values, naturally aligned), or NULL.  A batch made of them alone can point
 * there instead of copying: the page's buffers live until the next read.
 */
static const uint8_t *
values_in_place(const PqColumnReader *r, uint32_t n)
{
	const uint8_t *p;

	if (r->width != 4 && r->width != 8)
		return NULL;
	switch (r->encoding)
	{
		case PQ_ENC_PLAIN:
			if (r->type == PQ_BOOLEAN || r->type == PQ_BYTE_ARRAY ||
				(size_t) (r->vend - r->vpos) < (size_t) n * r->width)
				return NULL;	/* decode_values() reports a short page */
			p = r->vpos;
			break;
		case PQ_ENC_PLAIN_DICTIONARY:
		case PQ_ENC_RLE_DICTIONARY:
		case PQ_ENC_RLE:
			return NULL;
		default:
			if (r->pre_values == NULL || n > r->pre_count - r->pre_pos)
				return NULL;
			p = r->pre_values + (size_t) r->pre_pos * r->width;
			break;
	}
	return ((uintptr_t) p & (r->width - 1)) == 0 ? p : NULL;
}

/* Consume the n values values_in_place() returned. */
static void
skip_values_in_place(PqColumnReader *r, uint32_t n)
{
	if (r->encoding == PQ_ENC_PLAIN)
		r->vpos += (size_t) n * r->width;
	else
		r->pre_pos += n;
}

/* ----------------------------------------------------------------
 * Public interface
 * ----------------------------------------------------------------
 */
PqStatus
pq_column_reader_open(PqColumnReader **reader, PqFile *file, int row_group,
					  int leaf, const PqColumnReaderOptions *options,
					  const PfcAllocator *alloc, PqError *err)
{
	const PqFileMeta *meta = pq_file_meta(file);
	const PqColumnChunkMeta *chunk;
	const PqLeaf *lf;
	PqColumnReader *r;
	uint64_t	start,
				length;

	*reader = NULL;
	if (err)
		pq_error_clear(err);
	if (row_group < 0 || row_group >= meta->num_row_groups ||
		leaf < 0 || leaf >= meta->num_leaves)
	{
		if (err)
		{
			err->status = PQ_ERR_INVALID_ARGUMENT;
			snprintf(err->message, sizeof(err->message),
					 "no column %d in row group %d", leaf, row_group);
		}
		return PQ_ERR_INVALID_ARGUMENT;
	}
	r = alloc->alloc(alloc->ctx, sizeof(*r));
	if (r == NULL)
	{
		if (err)
		{
			err->status = PQ_ERR_IO;
			err->sys_errno = ENOMEM;
			snprintf(err->message, sizeof(err->message), "out of memory");
		}
		return PQ_ERR_IO;
	}
	memset(r, 0, sizeof(*r));
	chunk = &meta->row_groups[row_group].columns[leaf];
	lf = &meta->leaves[leaf];
	r->file = file;
	r->source = pq_file_source(file);
	r->alloc = *alloc;
	r->page_alloc = *alloc;
	r->verify_crc = options ? options->verify_crc : false;
	r->row_group = row_group;
	r->leaf = leaf;
	r->cur_page = -1;
	r->type = lf->node->physical;
	r->type_length = lf->node->type_length;
	r->max_def = lf->max_def;
	r->max_rep = lf->max_rep;
	r->def_bits = level_bit_width(r->max_def);
	r->rep_bits = level_bit_width(r->max_rep);
	r->codec = chunk->codec;
	switch (r->type)
	{
		case PQ_BOOLEAN:
			r->width = 1;
			break;
		case PQ_INT32:
		case PQ_FLOAT:
			r->width = 4;
			break;
		case PQ_INT64:
		case PQ_DOUBLE:
			r->width = 8;
			break;
		case PQ_INT96:
			r->width = 12;
			break;
		case PQ_BYTE_ARRAY:
			r->width = sizeof(CdcByteView);
			break;
		case PQ_FIXED_LEN_BYTE_ARRAY:
			r->width = r->type_length > 0 ? (uint32_t) r->type_length : 0;
			break;
	}

	if (r->width == 0)
	{
		reader_error(r, err, PQ_ERR_CORRUPT, "fixed-length column of width %d",
					 r->type_length);
		goto fail;
	}
	if (chunk->is_encrypted)
	{
		reader_error(r, err, PQ_ERR_UNSUPPORTED, "encrypted column chunks are not supported");
		goto fail;
	}
	if (chunk->file_path != NULL)
	{
		reader_error(r, err, PQ_ERR_UNSUPPORTED,
					 "column chunks stored in other files are not supported");
		goto fail;
	}
	if (!cmp_codec_supported(chunk->codec))
	{
		reader_error(r, err, PQ_ERR_UNSUPPORTED,
					 "compression codec %s is not supported", cmp_codec_name(chunk->codec));
		goto fail;
	}
	if (chunk->num_values < 0)
	{
		reader_error(r, err, PQ_ERR_CORRUPT, "negative value count in column chunk");
		goto fail;
	}
	pq_column_chunk_range(chunk, &start, &length);
	r->next_offset = start;
	r->chunk_end = start + length;

	/*
	 * parquet-mr before 1.2.9 left the dictionary page header out of
	 * total_compressed_size (PARQUET-816); allow its chunks the header's
	 * worth of slack, as other readers do.
	 */
	if (meta->created_by != NULL && strncmp(meta->created_by, "parquet-mr", 10) == 0)
		r->chunk_end += LEGACY_DICT_HEADER_SLACK;
	if (r->chunk_end < start || r->chunk_end > r->source->size)
		r->chunk_end = r->source->size;
	r->levels_left = chunk->num_values;
	*reader = r;
	return PQ_OK;

fail:
	{
		PqStatus	status = err ? err->status : PQ_ERR_CORRUPT;

		alloc->release(alloc->ctx, r);
		return status;
	}
}

/*
 * Record which dictionary entries the n BYTE_ARRAY values just decoded at
 * dense position at are: decode_values() left their indexes in idx_buf
 * when the page is dictionary-encoded.
 */
static void
note_dict_indexes(PqColumnReader *r, uint32_t at, uint32_t n)
{
	uint32_t   *out = r->dict_idx + at;

	if (n == 0)
		return;					/* idx_buf may not exist yet */
	if (r->encoding == PQ_ENC_PLAIN_DICTIONARY ||
		r->encoding == PQ_ENC_RLE_DICTIONARY)
		memcpy(out, r->idx_buf, (size_t) n * sizeof(uint32_t));
	else
		for (uint32_t i = 0; i < n; i++)
			out[i] = PQ_NOT_FROM_DICTIONARY;
}

/* spread_values() for the dictionary indexes of a flat batch's values. */
static void
spread_dict_indexes(uint32_t *idx, const int16_t *def, uint32_t levels,
					uint32_t nvalues, int16_t max_def)
{
	uint32_t	v = nvalues;

	for (uint32_t i = levels; i-- > 0;)
		idx[i] = def[i] < max_def ? PQ_NOT_FROM_DICTIONARY : idx[--v];
}

/*
 * Move the nvalues dense values of a flat batch to their rows and fill
 * is_null.  Back to front, the source slot (v) is never after the target
 * (i), so nothing is overwritten before it is read.  Inlined with constant
 * widths so each copy is a plain load and store.
 */
static inline __attribute__((always_inline)) void
spread_values(uint8_t *values, const int16_t *def, bool *is_null,
			  uint32_t levels, uint32_t nvalues, size_t w, int16_t max_def)
{
	uint32_t	v = nvalues;

	for (uint32_t i = levels; i-- > 0;)
	{
		bool		null = def[i] < max_def;

		is_null[i] = null;
		if (null)
			memset(values + (size_t) i * w, 0, w);
		else if (--v != i)
			memcpy(values + (size_t) i * w, values + (size_t) v * w, w);
	}
}

PqStatus
pq_column_reader_read(PqColumnReader *r, uint32_t max_rows,
					  PqColumnBatch *batch, PqError *err)
{
	uint32_t	levels = 0;		/* entries in the batch */
	uint32_t	nvalues = 0;	/* dense values in the batch */
	uint32_t	rows = 0;
	bool		flat = r->max_rep == 0;
	bool		full = false;
	const uint8_t *in_place = NULL; /* the batch's values, in the page */
	PqStatus	status;

	memset(batch, 0, sizeof(*batch));
	batch->value_width = r->width;
	release_retired(r);
	if (max_rows == 0)
		return reader_error(r, err, PQ_ERR_INVALID_ARGUMENT, "batch of zero rows requested");

	while (!full)
	{
		uint32_t	take;
		uint32_t	nn;

		if (!r->page_loaded)
		{
			if (r->levels_left == 0)
				break;
			status = load_next_page(r, err);
			if (status != PQ_OK)
				return status;
			continue;
		}
		if (r->page_levels_left == 0)
		{
			status = retire_page(r, err);
			if (status != PQ_OK)
				return status;
			continue;
		}

		if (flat)
		{
			take = max_rows - rows;
			if (take > r->page_levels_left)
				take = r->page_levels_left;
			status = reserve_batch(r, levels + take, levels, err);
			if (status != PQ_OK)
				return status;
			rows += take;
			full = rows == max_rows;
		}
		else
		{
			/* look ahead in the repetition levels for the row boundary */
			LevelSource ahead = r->rep_src;
			uint32_t	n = r->page_levels_left < LEVEL_STEP ? r->page_levels_left : LEVEL_STEP;
			uint32_t	i;

			status = reserve_batch(r, levels + n, levels, err);
			if (status != PQ_OK)
				return status;
			status = decode_levels(r, &ahead, r->rep + levels, n, r->max_rep, err);
			if (status != PQ_OK)
				return status;
			if (levels == 0 && r->rep[0] != 0)
				return reader_error(r, err, PQ_ERR_CORRUPT,
									"first level entry of a row has repetition level %d",
									r->rep[0]);
			for (i = 0; i < n; i++)
			{
				if (r->rep[levels + i] == 0)
				{
					if (rows == max_rows)
					{
						full = true;
						break;
					}
					rows++;
				}
			}
			take = i;
			if (take == n)
				r->rep_src = ahead;
			else
			{
				status = skip_levels(r, &r->rep_src, take, err);
				if (status != PQ_OK)
					return status;
			}
		}

		if (r->max_def > 0)
		{
			status = decode_levels(r, &r->def_src, r->def + levels, take, r->max_def, err);
			if (status != PQ_OK)
				return status;
			{
				/* locals: through r the int16 stores might alias, no SIMD */
				const int16_t *d = r->def + levels;
				const int16_t max_def = r->max_def;

				nn = 0;
				for (uint32_t i = 0; i < take; i++)
					nn += d[i] == max_def;
			}
		}
		else
			nn = take;
		if (flat && levels == 0 && full && nn == take &&
			(in_place = values_in_place(r, nn)) != NULL)
			skip_values_in_place(r, nn);	/* the whole batch, no nulls */
		else
		{
			in_place = NULL;
			status = decode_values(r, r->values + (size_t) nvalues * r->width, nn, err);
			if (status != PQ_OK)
				return status;
			if (r->type == PQ_BYTE_ARRAY && r->have_dict)
				note_dict_indexes(r, nvalues, nn);
		}
		levels += take;
		nvalues += nn;
		r->page_levels_left -= take;
		if (r->page_levels_left == 0)
		{
			status = retire_page(r, err);
			if (status != PQ_OK)
				return status;
		}
	}

	if (levels == 0)
		return PQ_OK;			/* exhausted */

	batch->num_rows = rows;
	batch->num_levels = levels;
	batch->num_values = nvalues;
	batch->values = in_place ? (const void *) in_place : (const void *) r->values;
	batch->def_levels = r->max_def > 0 ? r->def : NULL;
	batch->rep_levels = r->max_rep > 0 ? r->rep : NULL;

	if (r->type == PQ_BYTE_ARRAY && r->have_dict)
	{
		batch->dict_index = r->dict_idx;
		batch->dictionary_count = r->dict_count;
		if (flat && nvalues < levels)
			spread_dict_indexes(r->dict_idx, r->def, levels, nvalues, r->max_def);
	}

	/* Flat columns: spread the dense values to their rows, back to front. */
	if (flat && nvalues < levels)
	{
		switch (r->width)
		{
			case 1:
				spread_values(r->values, r->def, r->is_null, levels, nvalues, 1, r->max_def);
				break;
			case 4:
				spread_values(r->values, r->def, r->is_null, levels, nvalues, 4, r->max_def);
				break;
			case 8:
				spread_values(r->values, r->def, r->is_null, levels, nvalues, 8, r->max_def);
				break;
			case 16:
				spread_values(r->values, r->def, r->is_null, levels, nvalues, 16, r->max_def);
				break;
			default:
				spread_values(r->values, r->def, r->is_null, levels, nvalues, r->width, r->max_def);
		}
		batch->is_null = r->is_null;
	}
	return PQ_OK;
}

PqStatus
pq_column_reader_skip(PqColumnReader *r, uint64_t rows, PqError *err)
{
	PqStatus	status;

	while (rows > 0)
	{
		PqColumnBatch batch;
		uint32_t	step;

		release_retired(r);

		/*
		 * Between pages, a page whose rows all fall in the skipped range is
		 * passed over unread: flat pages hold one row per level entry, v2
		 * pages say their row count (and may not split rows).
		 */
		if (!r->page_loaded && r->levels_left > 0)
		{
			PqPageHeader h;
			bool		found;
			int64_t		page_rows = -1;

			status = next_data_page_header(r, &h, &found, err);
			if (status != PQ_OK)
				return status;
			if (!found)
				break;
			if (r->max_rep == 0)
				page_rows = h.num_values;
			else if (h.type == PQ_PAGE_DATA_V2)
				page_rows = h.num_rows;
			if (page_rows >= 0 && (uint64_t) page_rows <= rows)
			{
				r->next_offset += h.header_len + (uint64_t) h.compressed_size;
				r->levels_left -= h.num_values;
				r->seen_data_page = true;
				rows -= (uint64_t) page_rows;
				continue;
			}
			/* re-read this header through the normal path */
			r->next_page--;
		}

		step = rows > SKIP_STEP ? SKIP_STEP : (uint32_t) rows;
		status = pq_column_reader_read(r, step, &batch, err);
		if (status != PQ_OK)
			return status;
		if (batch.num_rows == 0)
			break;
		rows -= batch.num_rows;
	}
	return PQ_OK;
}

bool
pq_column_reader_set_page_allocator(PqColumnReader *r, const PfcAllocator *alloc)
{
	/* only before anything was allocated with the previous one */
	if (r->next_page != 0 || r->page_loaded || r->have_dict ||
		r->num_retired != 0 || r->num_page_allocs != 0)
		return false;
	r->page_alloc = *alloc;
	return true;
}

void
pq_column_reader_close(PqColumnReader *r)
{
	if (r == NULL)
		return;
	release_retired(r);
	if (r->page_loaded)
		pq_page_release(&r->page, &r->page_alloc);
	for (int i = 0; i < r->num_page_allocs; i++)
		page_free(r, r->page_allocs[i]);
	pq_page_release(&r->dict_page, &r->page_alloc);
	reader_free(r, r->dict_values);
	reader_free(r, r->retired);
	reader_free(r, r->values);
	reader_free(r, r->is_null);
	reader_free(r, r->def);
	reader_free(r, r->rep);
	reader_free(r, r->dict_idx);
	reader_free(r, r->idx_buf);
	r->alloc.release(r->alloc.ctx, r);
}

uint64_t
pq_column_reader_bytes_read(const PqColumnReader *reader)
{
	return reader->bytes_read;
}
