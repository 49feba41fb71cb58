/*-------------------------------------------------------------------------
 *
 * metadata.c
 *	  Open a Parquet file: magic, footer, FileMetaData decoding and the
 *	  validation of everything the column readers will trust.
 *
 * Layout of a file: "PAR1", column chunks, FileMetaData (Thrift compact),
 * its length as a 4-byte little-endian integer, "PAR1".  A file whose
 * footer is encrypted ends in "PARE" and is reported as unsupported; a
 * plaintext footer of an encrypted file decodes normally, its encrypted
 * column chunks are flagged (is_encrypted) for the readers to refuse.
 *
 * Decoding is two passes.  The first walks the Thrift bytes into arena
 * structures, skipping unknown fields and fields of an unexpected wire type
 * (as the reference Thrift code does); integer fields accept any of the
 * zigzag types, since they share one encoding.  The second validates the
 * result as a whole, because field order in the footer is not guaranteed:
 * one column chunk per leaf in every row group, chunk types equal to the
 * schema's, and every offset and size inside the data region of the file
 * [4, size - 8 - footer_length).  Anything else is PQ_ERR_CORRUPT with the
 * row group and column in the error.
 *
 * Every string is copied NUL-terminated into the arena; statistics values
 * point into the footer bytes, which the arena keeps for the file's life.
 * A min or max whose length cannot be a value of the column's type (4 bytes
 * for INT32, at most type_length for FIXED_LEN_BYTE_ARRAY, ...) is dropped
 * rather than failing the file: statistics are optional, and consumers may
 * then read fixed-width values without checking lengths.
 *
 * IDENTIFICATION
 *	  src/parquet/metadata.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/pq_internal.h"
#include "parquet/thrift.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Allocations at least this large get a chunk of their own. */
#define ARENA_CHUNK_SIZE	(32 * 1024)
#define ARENA_BIG_ALLOC		(8 * 1024)

/* "PAR1" + footer length + "PAR1" */
#define PQ_MIN_FILE_SIZE	12

/* Bytes read from the end of a file in the hope they hold the footer. */
#define FOOTER_PROBE_SIZE	(16 * 1024)

struct PqFile
{
	PfcSource	source;
	PqArena		arena;
	PqFileMeta	meta;
};

/* ----------------------------------------------------------------
 * Allocation and errors
 * ----------------------------------------------------------------
 */

struct PqArenaChunk
{
	PqArenaChunk *next;
	uint64_t	pad;			/* keeps the payload 16-byte aligned */
};

void
pq_arena_init(PqArena *arena, const PfcAllocator *alloc)
{
	memset(arena, 0, sizeof(*arena));
	arena->alloc = *alloc;
}

void *
pq_arena_alloc(PqArena *arena, size_t size)
{
	PqArenaChunk *chunk;
	size_t		chunk_size;
	void	   *p;

	size = (size + 7) & ~(size_t) 7;
	if (size == 0)
		size = 8;
	if (size <= arena->left)
	{
		p = arena->cur;
		arena->cur += size;
		arena->left -= size;
		return p;
	}
	if (size > SIZE_MAX - sizeof(PqArenaChunk))
		return NULL;
	chunk_size = size >= ARENA_BIG_ALLOC ? size : ARENA_CHUNK_SIZE;
	chunk = arena->alloc.alloc(arena->alloc.ctx, sizeof(PqArenaChunk) + chunk_size);
	if (chunk == NULL)
		return NULL;
	chunk->next = arena->chunks;
	arena->chunks = chunk;
	p = (uint8_t *) (chunk + 1);
	if (size < ARENA_BIG_ALLOC)
	{
		/* Keep the rest of a small-allocation chunk for later requests. */
		arena->cur = (uint8_t *) p + size;
		arena->left = chunk_size - size;
	}
	return p;
}

void *
pq_arena_calloc(PqArena *arena, size_t n, size_t size)
{
	void	   *p;

	if (size != 0 && n > SIZE_MAX / size)
		return NULL;
	p = pq_arena_alloc(arena, n * size);
	if (p != NULL)
		memset(p, 0, n * size);
	return p;
}

char *
pq_arena_strndup(PqArena *arena, const uint8_t *s, uint32_t len)
{
	char	   *p = pq_arena_alloc(arena, (size_t) len + 1);

	if (p == NULL)
		return NULL;
	if (len > 0)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void
pq_arena_release(PqArena *arena)
{
	PqArenaChunk *chunk = arena->chunks;

	while (chunk != NULL)
	{
		PqArenaChunk *next = chunk->next;

		if (arena->alloc.release != NULL)
			arena->alloc.release(arena->alloc.ctx, chunk);
		chunk = next;
	}
	arena->chunks = NULL;
	arena->cur = NULL;
	arena->left = 0;
}

void
pq_error_clear(PqError *err)
{
	memset(err, 0, sizeof(*err));
	err->status = PQ_OK;
	err->row_group = -1;
	err->column = -1;
	err->page = -1;
}

/*
 * Messages quote names from the file.  Replace control characters and bytes
 * that are not well-formed UTF-8 (including a sequence cut by truncation)
 * with '?', so the text is safe to hand to any error reporting.
 */
void
pq_message_sanitize(char *msg)
{
	unsigned char *p = (unsigned char *) msg;

	while (*p)
	{
		int			n = 0;

		if (*p < 0x20 || *p == 0x7F)
		{
			*p++ = '?';
			continue;
		}
		if (*p < 0x80)
		{
			p++;
			continue;
		}
		if (*p >= 0xC2 && *p <= 0xDF)
			n = 1;
		else if (*p >= 0xE0 && *p <= 0xEF)
			n = 2;
		else if (*p >= 0xF0 && *p <= 0xF4)
			n = 3;
		for (int i = 1; i <= n; i++)
		{
			if ((p[i] & 0xC0) != 0x80)
			{
				n = 0;			/* also stops at the terminating NUL */
				break;
			}
		}
		/* overlong forms, surrogates, code points above U+10FFFF */
		if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] > 0x9F) ||
			(p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] > 0x8F))
			n = 0;
		if (n == 0)
			*p++ = '?';
		else
			p += n + 1;
	}
}

void
pq_error_set(PqError *err, PqStatus status, const char *fmt,...)
{
	va_list		ap;

	pq_error_clear(err);
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	pq_message_sanitize(err->message);
}

void
pq_error_oom(PqError *err)
{
	pq_error_set(err, PQ_ERR_IO, "out of memory");
	err->sys_errno = ENOMEM;
}

/* ----------------------------------------------------------------
 * Thrift decoding of FileMetaData
 * ----------------------------------------------------------------
 */

typedef struct Decoder
{
	PqThriftReader r;
	const uint8_t *buf;			/* start of the footer, for offsets */
	PqArena    *arena;
	bool		oom;
} Decoder;

/* Raw column orders: what the footer says per leaf, before validation. */
enum
{
	ORDER_UNKNOWN = 0,
	ORDER_TYPE_DEFINED = 1,
	ORDER_IEEE754 = 2
};

typedef struct RawFooter
{
	PqRawSchemaElement *schema;
	uint32_t	num_schema;
	bool		has_schema;
	bool		has_num_rows;
	bool		has_row_groups;
	bool		has_column_orders;
	uint8_t    *column_orders;
	uint32_t	num_column_orders;
	/* per row group x column: was ColumnMetaData present? */
	bool	  **chunk_has_meta;
} RawFooter;

static void *
dec_calloc(Decoder *d, size_t n, size_t size)
{
	void	   *p = pq_arena_calloc(d->arena, n > 0 ? n : 1, size);

	if (p == NULL)
	{
		d->oom = true;
		d->r.failed = true;		/* stop decoding */
	}
	return p;
}

/* Integer field of any zigzag type; false (value skipped) for other types. */
static bool
get_int(Decoder *d, uint8_t type, int64_t *out)
{
	if (type == PQ_THRIFT_I16 || type == PQ_THRIFT_I32 || type == PQ_THRIFT_I64)
	{
		*out = pq_thrift_i64(&d->r);
		return !d->r.failed;
	}
	if (type == PQ_THRIFT_I8)
	{
		*out = pq_thrift_i8(&d->r);
		return !d->r.failed;
	}
	pq_thrift_skip(&d->r, type);
	return false;
}

static bool
get_i32(Decoder *d, uint8_t type, int32_t *out)
{
	int64_t		v;

	if (!get_int(d, type, &v))
		return false;
	if (v < INT32_MIN || v > INT32_MAX)
	{
		d->r.failed = true;
		return false;
	}
	*out = (int32_t) v;
	return true;
}

static bool
get_bool(Decoder *d, uint8_t type, bool *out)
{
	if (type == PQ_THRIFT_BOOL_TRUE || type == PQ_THRIFT_BOOL_FALSE)
	{
		*out = pq_thrift_bool(&d->r, type);
		return !d->r.failed;
	}
	pq_thrift_skip(&d->r, type);
	return false;
}

/* Binary field, not copied (points into the footer). */
static bool
get_binary(Decoder *d, uint8_t type, const uint8_t **data, uint32_t *len)
{
	if (type == PQ_THRIFT_BINARY)
		return pq_thrift_binary(&d->r, data, len);
	pq_thrift_skip(&d->r, type);
	return false;
}

/* String field copied NUL-terminated into the arena; NULL if absent/bad. */
static const char *
get_string(Decoder *d, uint8_t type, uint32_t *len_out)
{
	const uint8_t *data;
	uint32_t	len;
	char	   *s;

	if (!get_binary(d, type, &data, &len))
		return NULL;
	s = pq_arena_strndup(d->arena, data, len);
	if (s == NULL)
	{
		d->oom = true;
		d->r.failed = true;
		return NULL;
	}
	if (len_out)
		*len_out = len;
	return s;
}

/*
 * Start reading a list field whose elements should be of type want.  On a
 * type mismatch the whole value is skipped and false is returned; on true
 * the caller reads *count elements.
 */
static bool
get_list(Decoder *d, uint8_t type, uint8_t want, uint32_t *count)
{
	uint8_t		elem_type;

	*count = 0;
	if (type != PQ_THRIFT_LIST && type != PQ_THRIFT_SET)
	{
		pq_thrift_skip(&d->r, type);
		return false;
	}
	if (!pq_thrift_list_begin(&d->r, &elem_type, count))
		return false;
	if (elem_type == want ||
		(want == PQ_THRIFT_I32 && (elem_type == PQ_THRIFT_I16 || elem_type == PQ_THRIFT_I64)))
		return true;
	for (uint32_t i = 0; i < *count && !d->r.failed; i++)
		pq_thrift_skip(&d->r, elem_type);
	*count = 0;
	return false;
}

/* An empty-struct union member (e.g. StringType): skip its body. */
static int16_t
decode_union_member(Decoder *d)
{
	int16_t		fid;
	uint8_t		type;
	int16_t		member = 0;

	pq_thrift_struct_begin(&d->r);
	while (pq_thrift_field_next(&d->r, &fid, &type))
	{
		if (member == 0 && type == PQ_THRIFT_STRUCT)
			member = fid;
		pq_thrift_skip(&d->r, type);
	}
	pq_thrift_struct_end(&d->r);
	return member;
}

/* TimeType / TimestampType: {1: isAdjustedToUTC, 2: unit (union)}. */
static void
decode_time_type(Decoder *d, PqLogicalType *lt)
{
	int16_t		fid;
	uint8_t		type;
	bool		has_unit = false;

	pq_thrift_struct_begin(&d->r);
	while (pq_thrift_field_next(&d->r, &fid, &type))
	{
		if (fid == 1)
			get_bool(d, type, &lt->utc_adjusted);
		else if (fid == 2 && type == PQ_THRIFT_STRUCT)
		{
			int16_t		unit = decode_union_member(d);

			has_unit = unit >= 1 && unit <= 3;
			if (has_unit)
				lt->unit = (PqTimeUnit) (unit - 1);
		}
		else
			pq_thrift_skip(&d->r, type);
	}
	pq_thrift_struct_end(&d->r);
	if (!has_unit)
		lt->kind = PQ_LT_OTHER;
}

/* LogicalType union; an unknown member gives PQ_LT_OTHER. */
static void
decode_logical_type(Decoder *d, PqLogicalType *lt)
{
	int16_t		fid;
	uint8_t		type;
	bool		seen = false;

	memset(lt, 0, sizeof(*lt));
	lt->kind = PQ_LT_OTHER;
	pq_thrift_struct_begin(&d->r);
	while (pq_thrift_field_next(&d->r, &fid, &type))
	{
		if (seen || type != PQ_THRIFT_STRUCT)
		{
			pq_thrift_skip(&d->r, type);
			continue;
		}
		seen = true;
		switch (fid)
		{
			case 1:
				lt->kind = PQ_LT_STRING;
				break;
			case 2:
				lt->kind = PQ_LT_MAP;
				break;
			case 3:
				lt->kind = PQ_LT_LIST;
				break;
			case 4:
				lt->kind = PQ_LT_ENUM;
				break;
			case 5:
				lt->kind = PQ_LT_DECIMAL;
				break;
			case 6:
				lt->kind = PQ_LT_DATE;
				break;
			case 7:
				lt->kind = PQ_LT_TIME;
				break;
			case 8:
				lt->kind = PQ_LT_TIMESTAMP;
				break;
			case 10:
				lt->kind = PQ_LT_INTEGER;
				break;
			case 11:
				lt->kind = PQ_LT_NULL;
				break;
			case 12:
				lt->kind = PQ_LT_JSON;
				break;
			case 13:
				lt->kind = PQ_LT_BSON;
				break;
			case 14:
				lt->kind = PQ_LT_UUID;
				break;
			case 15:
				lt->kind = PQ_LT_FLOAT16;
				break;
			case 16:
				lt->kind = PQ_LT_VARIANT;
				break;
			case 17:
				lt->kind = PQ_LT_GEOMETRY;
				break;
			case 18:
				lt->kind = PQ_LT_GEOGRAPHY;
				break;
			default:
				lt->kind = PQ_LT_OTHER;
				break;
		}

		if (lt->kind == PQ_LT_DECIMAL)
		{
			int16_t		f;
			uint8_t		t;

			pq_thrift_struct_begin(&d->r);
			while (pq_thrift_field_next(&d->r, &f, &t))
			{
				if (f == 1)
					get_i32(d, t, &lt->scale);
				else if (f == 2)
					get_i32(d, t, &lt->precision);
				else
					pq_thrift_skip(&d->r, t);
			}
			pq_thrift_struct_end(&d->r);
		}
		else if (lt->kind == PQ_LT_TIME || lt->kind == PQ_LT_TIMESTAMP)
			decode_time_type(d, lt);
		else if (lt->kind == PQ_LT_INTEGER)
		{
			int16_t		f;
			uint8_t		t;
			int64_t		width = 0;
			bool		is_signed = false;

			pq_thrift_struct_begin(&d->r);
			while (pq_thrift_field_next(&d->r, &f, &t))
			{
				if (f == 1)
					get_int(d, t, &width);
				else if (f == 2)
					get_bool(d, t, &is_signed);
				else
					pq_thrift_skip(&d->r, t);
			}
			pq_thrift_struct_end(&d->r);
			if (width == 8 || width == 16 || width == 32 || width == 64)
			{
				lt->bit_width = (int8_t) width;
				lt->is_signed = is_signed;
			}
			else
				lt->kind = PQ_LT_OTHER;
		}
		else
			pq_thrift_skip(&d->r, type);	/* members without parameters we use */
	}
	pq_thrift_struct_end(&d->r);
}

static void
decode_schema_element(Decoder *d, PqRawSchemaElement *e)
{
	int16_t		fid;
	uint8_t		type;

	e->type_length = -1;
	e->converted_type = -1;
	e->field_id = -1;
	pq_thrift_struct_begin(&d->r);
	while (pq_thrift_field_next(&d->r, &fid, &type))
	{
		switch (fid)
		{
			case 1:
				e->has_type = get_i32(d, type, &e->type);
				break;
			case 2:
				get_i32(d, type, &e->type_length);
				break;
			case 3:
				e->has_repetition = get_i32(d, type, &e->repetition);
				break;
			case 4:
				e->name = get_string(d, type, NULL);
				break;
			case 5:
				e->has_num_children = get_i32(d, type, &e->num_children);
				break;
			case 6:
				if (!get_i32(d, type, &e->converted_type))
					e->converted_type = -1;
				else if (e->converted_type < 0)
					e->converted_type = -1;
				break;
			case 7:
				e->has_scale = get_i32(d, type, &e->scale);
				break;
			case 8:
				e->has_precision = get_i32(d, type, &e->precision);
				break;
			case 9:
				if (!get_i32(d, type, &e->field_id))
					e->field_id = -1;
				break;
			case 10:
				if (type == PQ_THRIFT_STRUCT)
				{
					decode_logical_type(d, &e->logical);
					e->has_logical = true;
				}
				else
					pq_thrift_skip(&d->r, type);
				break;
			default:
				pq_thrift_skip(&d->r, type);
				break;
		}
	}
	pq_thrift_struct_end(&d->r);
	if (e->name == NULL && !d->r.failed)
	{
		/* name is required; keep going with an empty one for messages */
		e->name = pq_arena_strndup(d->arena, (const uint8_t *) "", 0);
		if (e->name == NULL)
		{
			d->oom = true;
			d->r.failed = true;
		}
	}
}

/* list<KeyValue> into an arena array. */
static void
decode_key_values(Decoder *d, uint8_t type, int *num_out,
				  const PqKeyValue **out)
{
	uint32_t	count;
	PqKeyValue *kvs;

	if (!get_list(d, type, PQ_THRIFT_STRUCT, &count))
		return;
	kvs = dec_calloc(d, count, sizeof(PqKeyValue));
	if (kvs == NULL)
		return;
	for (uint32_t i = 0; i < count && !d->r.failed; i++)
	{
		int16_t		fid;
		uint8_t		t;

		pq_thrift_struct_begin(&d->r);
		while (pq_thrift_field_next(&d->r, &fid, &t))
		{
			if (fid == 1)
				kvs[i].key = get_string(d, t, NULL);
			else if (fid == 2)
				kvs[i].value = get_string(d, t, &kvs[i].value_len);
			else
				pq_thrift_skip(&d->r, t);
		}
		pq_thrift_struct_end(&d->r);
		if (kvs[i].key == NULL && !d->r.failed)
		{
			kvs[i].key = pq_arena_strndup(d->arena, (const uint8_t *) "", 0);
			if (kvs[i].key == NULL)
			{
				d->oom = true;
				d->r.failed = true;
			}
		}
	}
	*num_out = (int) count;
	*out = kvs;
}

static void
decode_statistics(Decoder *d, PqStatistics *st)
{
	int16_t		fid;
	uint8_t		type;
	const uint8_t *legacy_min = NULL,
			   *legacy_max = NULL;
	uint32_t	legacy_min_len = 0,
				legacy_max_len = 0;
	bool		has_legacy_min = false,
				has_legacy_max = false;

	pq_thrift_struct_begin(&d->r);
	while (pq_thrift_field_next(&d->r, &fid, &type))
	{
		switch (fid)
		{
			case 1:				/* deprecated max */
				has_legacy_max = get_binary(d, type, &legacy_max, &legacy_max_len);
				break;
			case 2:				/* deprecated min */
				has_legacy_min = get_binary(d, type, &legacy_min, &legacy_min_len);
				break;
			case 3:
				st->has_null_count = get_int(d, type, &st->null_count);
				break;
			case 4:
				st->has_distinct_count = get_int(d, type, &st->distinct_count);
				break;
			case 5:
				st->has_max = get_binary(d, type, &st->max, &st->max_len);
				break;
			case 6:
				st->has_min = get_binary(d, type, &st->min, &st->min_len);
				break;
			case 7:
				st->has_max_exact = get_bool(d, type, &st->max_exact);
				break;
			case 8:
				st->has_min_exact = get_bool(d, type, &st->min_exact);
				break;
			default:
				pq_thrift_skip(&d->r, type);
				break;
		}
	}
	pq_thrift_struct_end(&d->r);

	/* min_value/max_value win; the deprecated pair is a fallback. */
	if (!st->has_min && has_legacy_min)
	{
		st->has_min = true;
		st->min = legacy_min;
		st->min_len = legacy_min_len;
		st->min_is_legacy = true;
	}
	if (!st->has_max && has_legacy_max)
	{
		st->has_max = true;
		st->max = legacy_max;
		st->max_len = legacy_max_len;
		st->max_is_legacy = true;
	}
}

/* Required ColumnMetaData fields, as bits of a mask. */
#define CMD_TYPE		0x01
#define CMD_CODEC		0x02
#define CMD_NUM_VALUES	0x04
#define CMD_UNCOMP		0x08
#define CMD_COMP		0x10
#define CMD_DATA_OFF	0x20
#define CMD_REQUIRED	0x3F

static void
decode_column_meta(Decoder *d, PqColumnChunkMeta *cc, unsigned *seen)
{
	int16_t		fid;
	uint8_t		type;
	int32_t		i32;

	pq_thrift_struct_begin(&d->r);
	while (pq_thrift_field_next(&d->r, &fid, &type))
	{
		switch (fid)
		{
			case 1:
				if (get_i32(d, type, &i32))
				{
					cc->type = (PqPhysicalType) i32;
					*seen |= CMD_TYPE;
					if (i32 < PQ_BOOLEAN || i32 > PQ_FIXED_LEN_BYTE_ARRAY)
						cc->type = (PqPhysicalType) -1;
				}
				break;
			case 2:
				{
					uint32_t	count;
					int32_t    *encs;

					if (!get_list(d, type, PQ_THRIFT_I32, &count))
						break;
					encs = dec_calloc(d, count, sizeof(int32_t));
					if (encs == NULL)
						break;
					for (uint32_t i = 0; i < count && !d->r.failed; i++)
						encs[i] = pq_thrift_i32(&d->r);
					cc->encodings = encs;
					cc->num_encodings = (int) count;
					break;
				}
			case 4:
				if (get_i32(d, type, &cc->codec))
					*seen |= CMD_CODEC;
				break;
			case 5:
				if (get_int(d, type, &cc->num_values))
					*seen |= CMD_NUM_VALUES;
				break;
			case 6:
				if (get_int(d, type, &cc->total_uncompressed_size))
					*seen |= CMD_UNCOMP;
				break;
			case 7:
				if (get_int(d, type, &cc->total_compressed_size))
					*seen |= CMD_COMP;
				break;
			case 8:
				decode_key_values(d, type, &cc->num_key_values, &cc->key_values);
				break;
			case 9:
				if (get_int(d, type, &cc->data_page_offset))
					*seen |= CMD_DATA_OFF;
				break;
			case 10:
				cc->has_index_page_offset = get_int(d, type, &cc->index_page_offset);
				break;
			case 11:
				cc->has_dictionary_page_offset =
					get_int(d, type, &cc->dictionary_page_offset);
				break;
			case 12:
				if (type == PQ_THRIFT_STRUCT)
				{
					decode_statistics(d, &cc->statistics);
					cc->has_statistics = true;
				}
				else
					pq_thrift_skip(&d->r, type);
				break;
			case 14:
				cc->has_bloom_filter = get_int(d, type, &cc->bloom_filter_offset);
				break;
			case 15:
				get_i32(d, type, &cc->bloom_filter_length);
				break;
			default:
				/* 3 path_in_schema, 13 encoding_stats, 16+ size/geo stats */
				pq_thrift_skip(&d->r, type);
				break;
		}
	}
	pq_thrift_struct_end(&d->r);
}

static void
decode_column_chunk(Decoder *d, PqColumnChunkMeta *cc, bool *has_meta,
					unsigned *seen)
{
	int16_t		fid;
	uint8_t		type;
	int64_t		oi_off = 0,
				ci_off = 0;
	int32_t		oi_len = 0,
				ci_len = 0;
	bool		has_oi_off = false,
				has_oi_len = false,
				has_ci_off = false,
				has_ci_len = false;

	cc->bloom_filter_length = -1;
	cc->offset_index_length = -1;
	cc->column_index_length = -1;
	pq_thrift_struct_begin(&d->r);
	while (pq_thrift_field_next(&d->r, &fid, &type))
	{
		switch (fid)
		{
			case 1:
				cc->file_path = get_string(d, type, NULL);
				break;
			case 3:
				if (type == PQ_THRIFT_STRUCT)
				{
					decode_column_meta(d, cc, seen);
					*has_meta = true;
				}
				else
					pq_thrift_skip(&d->r, type);
				break;
			case 4:
				has_oi_off = get_int(d, type, &oi_off);
				break;
			case 5:
				has_oi_len = get_i32(d, type, &oi_len);
				break;
			case 6:
				has_ci_off = get_int(d, type, &ci_off);
				break;
			case 7:
				has_ci_len = get_i32(d, type, &ci_len);
				break;
			case 8:				/* crypto_metadata */
			case 9:				/* encrypted_column_metadata */
				cc->is_encrypted = true;
				pq_thrift_skip(&d->r, type);
				break;
			default:
				/* 2 file_offset (deprecated) */
				pq_thrift_skip(&d->r, type);
				break;
		}
	}
	pq_thrift_struct_end(&d->r);

	/* An index is usable only with both its offset and length. */
	if (has_oi_off && has_oi_len)
	{
		cc->has_offset_index = true;
		cc->offset_index_offset = oi_off;
		cc->offset_index_length = oi_len;
	}
	if (has_ci_off && has_ci_len)
	{
		cc->has_column_index = true;
		cc->column_index_offset = ci_off;
		cc->column_index_length = ci_len;
	}
}

static void
decode_row_group(Decoder *d, PqRowGroupMeta *rg, bool **has_meta_out,
				 unsigned **seen_out)
{
	int16_t		fid;
	uint8_t		type;

	rg->total_compressed_size = -1;
	rg->file_offset = -1;
	rg->num_rows = -1;
	pq_thrift_struct_begin(&d->r);
	while (pq_thrift_field_next(&d->r, &fid, &type))
	{
		switch (fid)
		{
			case 1:
				{
					uint32_t	count;

					if (rg->columns != NULL || !get_list(d, type, PQ_THRIFT_STRUCT, &count))
					{
						if (rg->columns != NULL)
							pq_thrift_skip(&d->r, type);
						break;
					}
					rg->columns = dec_calloc(d, count, sizeof(PqColumnChunkMeta));
					*has_meta_out = dec_calloc(d, count, sizeof(bool));
					*seen_out = dec_calloc(d, count, sizeof(unsigned));
					if (d->r.failed)
						break;
					rg->num_columns = (int) count;
					for (uint32_t i = 0; i < count && !d->r.failed; i++)
						decode_column_chunk(d, &rg->columns[i], &(*has_meta_out)[i],
											&(*seen_out)[i]);
					break;
				}
			case 2:
				get_int(d, type, &rg->total_byte_size);
				break;
			case 3:
				get_int(d, type, &rg->num_rows);
				break;
			case 5:
				get_int(d, type, &rg->file_offset);
				break;
			case 6:
				get_int(d, type, &rg->total_compressed_size);
				break;
			default:
				/* 4 sorting_columns, 7 ordinal */
				pq_thrift_skip(&d->r, type);
				break;
		}
	}
	pq_thrift_struct_end(&d->r);
}

/* Per row group: the has-meta and required-field masks of its chunks. */
typedef struct RowGroupAux
{
	bool	   *has_meta;
	unsigned   *seen;
} RowGroupAux;

static void
decode_file_meta(Decoder *d, PqFileMeta *meta, RawFooter *raw,
				 RowGroupAux **aux_out)
{
	int16_t		fid;
	uint8_t		type;
	uint32_t	count;

	pq_thrift_struct_begin(&d->r);
	while (pq_thrift_field_next(&d->r, &fid, &type))
	{
		switch (fid)
		{
			case 1:
				get_i32(d, type, &meta->version);
				break;
			case 2:
				if (raw->has_schema || !get_list(d, type, PQ_THRIFT_STRUCT, &count))
				{
					if (raw->has_schema)
						pq_thrift_skip(&d->r, type);
					break;
				}
				raw->schema = dec_calloc(d, count, sizeof(PqRawSchemaElement));
				if (raw->schema == NULL)
					break;
				raw->num_schema = count;
				raw->has_schema = true;
				for (uint32_t i = 0; i < count && !d->r.failed; i++)
					decode_schema_element(d, &raw->schema[i]);
				break;
			case 3:
				raw->has_num_rows = get_int(d, type, &meta->num_rows);
				break;
			case 4:
				{
					PqRowGroupMeta *rgs;
					RowGroupAux *aux;

					if (raw->has_row_groups || !get_list(d, type, PQ_THRIFT_STRUCT, &count))
					{
						if (raw->has_row_groups)
							pq_thrift_skip(&d->r, type);
						break;
					}
					rgs = dec_calloc(d, count, sizeof(PqRowGroupMeta));
					aux = dec_calloc(d, count, sizeof(RowGroupAux));
					if (d->r.failed)
						break;
					raw->has_row_groups = true;
					meta->row_groups = rgs;
					meta->num_row_groups = (int) count;
					*aux_out = aux;
					for (uint32_t i = 0; i < count && !d->r.failed; i++)
						decode_row_group(d, &rgs[i], &aux[i].has_meta, &aux[i].seen);
					break;
				}
			case 5:
				decode_key_values(d, type, &meta->num_key_values, &meta->key_values);
				break;
			case 6:
				meta->created_by = get_string(d, type, NULL);
				break;
			case 7:
				if (raw->has_column_orders || !get_list(d, type, PQ_THRIFT_STRUCT, &count))
				{
					if (raw->has_column_orders)
						pq_thrift_skip(&d->r, type);
					break;
				}
				raw->column_orders = dec_calloc(d, count, sizeof(uint8_t));
				if (raw->column_orders == NULL)
					break;
				raw->has_column_orders = true;
				raw->num_column_orders = count;
				for (uint32_t i = 0; i < count && !d->r.failed; i++)
				{
					int16_t		member = decode_union_member(d);

					raw->column_orders[i] = member == 1 ? ORDER_TYPE_DEFINED :
						member == 2 ? ORDER_IEEE754 : ORDER_UNKNOWN;
				}
				break;
			default:
				/* 8 encryption_algorithm, 9 footer_signing_key_metadata */
				pq_thrift_skip(&d->r, type);
				break;
		}
	}
	pq_thrift_struct_end(&d->r);
}

/* ----------------------------------------------------------------
 * Validation
 * ----------------------------------------------------------------
 */

static PqStatus
corrupt_at(PqError *err, int row_group, int column, const char *fmt,...)
	__attribute__((format(printf, 4, 5)));

static PqStatus
corrupt_at(PqError *err, int row_group, int column, const char *fmt,...)
{
	va_list		ap;

	pq_error_clear(err);
	err->status = PQ_ERR_CORRUPT;
	err->row_group = row_group;
	err->column = column;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	pq_message_sanitize(err->message);
	return PQ_ERR_CORRUPT;
}

uint32_t
pq_fixed_value_width(const PqSchemaNode *leaf)
{
	switch (leaf->physical)
	{
		case PQ_BOOLEAN:
			return 1;
		case PQ_INT32:
		case PQ_FLOAT:
			return 4;
		case PQ_INT64:
		case PQ_DOUBLE:
			return 8;
		case PQ_INT96:
			return 12;
		case PQ_FIXED_LEN_BYTE_ARRAY:
			return (uint32_t) leaf->type_length;
		case PQ_BYTE_ARRAY:
			return 0;
	}
	return 0;
}

/* Drop a min/max that cannot be a value of the leaf's type. */
static void
sanitize_statistics(PqStatistics *st, const PqSchemaNode *leaf)
{
	uint32_t	width = pq_fixed_value_width(leaf);
	bool		flba = leaf->physical == PQ_FIXED_LEN_BYTE_ARRAY;

	if (width == 0)
		return;
	if (st->has_min && (flba ? st->min_len > width : st->min_len != width))
	{
		st->has_min = false;
		st->min = NULL;
		st->min_len = 0;
	}
	if (st->has_max && (flba ? st->max_len > width : st->max_len != width))
	{
		st->has_max = false;
		st->max = NULL;
		st->max_len = 0;
	}
}

int64_t
pq_chunk_start(const PqColumnChunkMeta *cc)
{
	if (cc->has_dictionary_page_offset &&
		(cc->dictionary_page_offset < cc->data_page_offset ||
		 cc->data_page_offset < 4))
		return cc->dictionary_page_offset;
	return cc->data_page_offset;
}

void
pq_column_chunk_range(const PqColumnChunkMeta *chunk, uint64_t *start,
					  uint64_t *length)
{
	int64_t		s = pq_chunk_start(chunk);

	*start = s > 0 ? (uint64_t) s : 0;
	*length = chunk->total_compressed_size > 0 ?
		(uint64_t) chunk->total_compressed_size : 0;
}

/* Is [offset, offset + length) inside [4, data_end)?  Overflow-safe. */
static bool
range_ok(int64_t offset, int64_t length, int64_t data_end)
{
	return offset >= 4 && length >= 0 && offset <= data_end &&
		length <= data_end - offset;
}

static PqStatus
validate_chunk(PqFileMeta *meta, int rg, int col, PqColumnChunkMeta *cc,
			   bool has_meta, unsigned seen, int64_t data_end, PqError *err)
{
	const PqLeaf *leaf = &meta->leaves[col];
	int64_t		start;

	if (!has_meta)
	{
		/* Columns encrypted with their own key hide their metadata. */
		if (cc->is_encrypted)
		{
			cc->type = leaf->node->physical;
			return PQ_OK;
		}
		return corrupt_at(err, rg, col, "column chunk of \"%s\" has no metadata",
						  leaf->path);
	}
	if ((seen & CMD_REQUIRED) != CMD_REQUIRED)
		return corrupt_at(err, rg, col,
						  "column chunk of \"%s\" lacks required metadata fields",
						  leaf->path);
	if (cc->type != leaf->node->physical)
		return corrupt_at(err, rg, col,
						  "column chunk of \"%s\" has type %s but the schema says %s",
						  leaf->path, pq_physical_type_name(cc->type),
						  pq_physical_type_name(leaf->node->physical));
	if (cc->num_values < 0)
		return corrupt_at(err, rg, col, "column chunk of \"%s\" has a negative value count",
						  leaf->path);
	if (cc->total_compressed_size < 0 || cc->total_uncompressed_size < 0)
		return corrupt_at(err, rg, col, "column chunk of \"%s\" has a negative size",
						  leaf->path);

	sanitize_statistics(&cc->statistics, leaf->node);

	/* A dictionary offset of 0 is a known writer bug meaning "none". */
	if (cc->has_dictionary_page_offset && cc->dictionary_page_offset == 0)
		cc->has_dictionary_page_offset = false;

	if (cc->file_path != NULL)
		return PQ_OK;			/* offsets refer to another file */

	start = pq_chunk_start(cc);
	if (!range_ok(start, cc->total_compressed_size, data_end))
		return corrupt_at(err, rg, col,
						  "column chunk of \"%s\" at offset %lld with %lld bytes lies outside the file's data",
						  leaf->path, (long long) start,
						  (long long) cc->total_compressed_size);
	if (cc->has_dictionary_page_offset &&
		!range_ok(cc->dictionary_page_offset, 0, start + cc->total_compressed_size))
		return corrupt_at(err, rg, col,
						  "dictionary page offset of \"%s\" lies outside its column chunk",
						  leaf->path);
	if (cc->num_values > 0 &&
		(cc->data_page_offset < start ||
		 cc->data_page_offset >= start + cc->total_compressed_size))
		return corrupt_at(err, rg, col,
						  "data page offset of \"%s\" lies outside its column chunk",
						  leaf->path);
	if (cc->has_offset_index &&
		!range_ok(cc->offset_index_offset, cc->offset_index_length, data_end))
		return corrupt_at(err, rg, col, "offset index of \"%s\" lies outside the file's data",
						  leaf->path);
	if (cc->has_column_index &&
		!range_ok(cc->column_index_offset, cc->column_index_length, data_end))
		return corrupt_at(err, rg, col, "column index of \"%s\" lies outside the file's data",
						  leaf->path);
	if (cc->has_bloom_filter &&
		!range_ok(cc->bloom_filter_offset,
				  cc->bloom_filter_length >= 0 ? cc->bloom_filter_length : 0,
				  data_end))
		return corrupt_at(err, rg, col, "bloom filter of \"%s\" lies outside the file's data",
						  leaf->path);
	return PQ_OK;
}

static PqStatus
validate_meta(PqFileMeta *meta, const RawFooter *raw, const RowGroupAux *aux,
			  int64_t data_end, PqError *err)
{
	if (meta->num_rows < 0)
		return corrupt_at(err, -1, -1, "file has a negative number of rows");

	for (int rg = 0; rg < meta->num_row_groups; rg++)
	{
		PqRowGroupMeta *g = (PqRowGroupMeta *) &meta->row_groups[rg];

		if (g->num_rows < 0)
			return corrupt_at(err, rg, -1, "row group %d has a missing or negative row count", rg);
		if (g->num_columns != meta->num_leaves)
			return corrupt_at(err, rg, -1,
							  "row group %d has %d column chunks but the schema has %d leaf columns",
							  rg, g->num_columns, meta->num_leaves);
		for (int col = 0; col < g->num_columns; col++)
		{
			PqStatus	st = validate_chunk(meta, rg, col, &g->columns[col],
											aux[rg].has_meta[col], aux[rg].seen[col],
											data_end, err);

			if (st != PQ_OK)
				return st;
		}
	}

	/* Column orders: one per leaf, or none trusted at all. */
	if (raw->has_column_orders && (int) raw->num_column_orders == meta->num_leaves)
	{
		PqLeaf	   *leaves = (PqLeaf *) meta->leaves;

		for (int i = 0; i < meta->num_leaves; i++)
		{
			leaves[i].type_defined_order = raw->column_orders[i] == ORDER_TYPE_DEFINED;
			leaves[i].ieee754_total_order = raw->column_orders[i] == ORDER_IEEE754;
		}
	}
	return PQ_OK;
}

/* ----------------------------------------------------------------
 * Open and close
 * ----------------------------------------------------------------
 */

static PqStatus
read_exact(const PfcSource *src, uint64_t offset, void *buf, size_t len,
		   PqError *err)
{
	int			rc = src->read_at(src->ctx, offset, buf, len);

	if (rc != 0)
	{
		pq_error_set(err, PQ_ERR_IO, "could not read %zu bytes at offset %llu",
					 len, (unsigned long long) offset);
		err->sys_errno = rc;
		return PQ_ERR_IO;
	}
	return PQ_OK;
}

static uint32_t
read_le32(const uint8_t *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 |
		(uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

/*
 * Check both magics and copy the footer into the arena.  One read of the
 * file's last FOOTER_PROBE_SIZE bytes usually brings the length, the magic
 * and the whole footer (and, for small files, the head magic too), which
 * matters when planning touches thousands of files.  The probe buffer is
 * temporary; the arena keeps only the footer's exact bytes.
 */
static PqStatus
read_footer(const PfcSource *source, const PfcAllocator *alloc, PqArena *arena,
			uint8_t **footer_out, uint32_t *footer_len_out, PqError *err)
{
	size_t		probe_len = source->size < FOOTER_PROBE_SIZE ?
		(size_t) source->size : FOOTER_PROBE_SIZE;
	uint8_t    *probe;
	const uint8_t *tail;
	uint8_t		head[4];
	uint32_t	footer_len;
	uint8_t    *footer;

	probe = alloc->alloc(alloc->ctx, probe_len);
	if (probe == NULL)
	{
		pq_error_oom(err);
		return err->status;
	}
	if (read_exact(source, source->size - probe_len, probe, probe_len, err) != PQ_OK)
		goto done;
	tail = probe + probe_len - 8;
	if (memcmp(tail + 4, "PARE", 4) == 0)
	{
		pq_error_set(err, PQ_ERR_UNSUPPORTED,
					 "parquet files with an encrypted footer are not supported");
		snprintf(err->detail, sizeof(err->detail),
				 "The file uses Parquet modular encryption (magic \"PARE\").");
		goto done;
	}
	if (memcmp(tail + 4, "PAR1", 4) != 0)
	{
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "not a parquet file: the last 4 bytes are not \"PAR1\"");
		goto done;
	}
	if (probe_len == source->size)
		memcpy(head, probe, 4);
	else if (read_exact(source, 0, head, 4, err) != PQ_OK)
		goto done;
	if (memcmp(head, "PAR1", 4) != 0)
	{
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "not a parquet file: the first 4 bytes are not \"PAR1\"");
		goto done;
	}
	footer_len = read_le32(tail);
	if (footer_len == 0 || footer_len > source->size - PQ_MIN_FILE_SIZE)
	{
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "footer length %u does not fit a file of %llu bytes",
					 footer_len, (unsigned long long) source->size);
		goto done;
	}
	footer = pq_arena_alloc(arena, footer_len);
	if (footer == NULL)
	{
		pq_error_oom(err);
		goto done;
	}
	if ((size_t) footer_len + 8 <= probe_len)
		memcpy(footer, tail - footer_len, footer_len);
	else if (read_exact(source, source->size - 8 - footer_len, footer,
						footer_len, err) != PQ_OK)
		goto done;
	*footer_out = footer;
	*footer_len_out = footer_len;

done:
	if (alloc->release != NULL)
		alloc->release(alloc->ctx, probe);
	return err->status;
}

PqStatus
pq_file_open(PqFile **file_out, const PfcSource *source,
			 const PfcAllocator *alloc, PqError *err)
{
	PqError		local_err;
	PqArena		arena;
	PqFile	   *file;
	uint32_t	footer_len = 0;
	uint64_t	footer_start;
	uint8_t    *footer = NULL;
	Decoder		d;
	RawFooter	raw;
	RowGroupAux *aux = NULL;
	PqStatus	st;

	if (err == NULL)
		err = &local_err;
	pq_error_clear(err);
	if (file_out == NULL || source == NULL || source->read_at == NULL)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "invalid arguments to pq_file_open");
		return err->status;
	}
	*file_out = NULL;
	if (alloc == NULL)
		alloc = &pfc_malloc_allocator;

	if (source->size < PQ_MIN_FILE_SIZE)
	{
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "file is too small to be a parquet file (%llu bytes)",
					 (unsigned long long) source->size);
		return err->status;
	}

	pq_arena_init(&arena, alloc);
	file = pq_arena_calloc(&arena, 1, sizeof(PqFile));
	if (file == NULL)
	{
		pq_error_oom(err);
		return err->status;
	}
	if ((st = read_footer(source, alloc, &arena, &footer, &footer_len, err)) != PQ_OK)
	{
		pq_arena_release(&arena);
		return st;
	}
	footer_start = source->size - 8 - footer_len;

	memset(&d, 0, sizeof(d));
	memset(&raw, 0, sizeof(raw));
	pq_thrift_reader_init(&d.r, footer, footer_len);
	d.buf = footer;
	d.arena = &arena;
	decode_file_meta(&d, &file->meta, &raw, &aux);
	if (d.oom)
	{
		pq_arena_release(&arena);
		pq_error_oom(err);
		return err->status;
	}
	if (d.r.failed)
	{
		pq_error_set(err, PQ_ERR_CORRUPT, "invalid thrift encoding in the file footer");
		snprintf(err->detail, sizeof(err->detail),
				 "Decoding stopped at byte %zu of the %u-byte footer.",
				 pq_thrift_reader_offset(&d.r, footer), footer_len);
		pq_arena_release(&arena);
		return err->status;
	}
	if (!raw.has_schema || !raw.has_num_rows || !raw.has_row_groups)
	{
		pq_error_set(err, PQ_ERR_CORRUPT, "file footer lacks its %s",
					 !raw.has_schema ? "schema" :
					 !raw.has_num_rows ? "row count" : "row groups");
		pq_arena_release(&arena);
		return err->status;
	}

	st = pq_schema_build(&arena, raw.schema, (int) raw.num_schema, &file->meta, err);
	if (st == PQ_OK)
		st = validate_meta(&file->meta, &raw, aux, (int64_t) footer_start, err);
	if (st != PQ_OK)
	{
		pq_arena_release(&arena);
		return st;
	}

	file->meta.footer_length = footer_len;
	file->source = *source;
	file->arena = arena;
	*file_out = file;
	return PQ_OK;
}

const PqFileMeta *
pq_file_meta(const PqFile *file)
{
	return &file->meta;
}

const PfcSource *
pq_file_source(const PqFile *file)
{
	return &file->source;
}

uint64_t
pq_file_data_end(const PqFile *file)
{
	return file->source.size - 8 - file->meta.footer_length;
}

void
pq_file_close(PqFile *file)
{
	PqArena		arena;

	if (file == NULL)
		return;
	/* The arena struct lives inside memory it owns: copy it out first. */
	arena = file->arena;
	pq_arena_release(&arena);
}
