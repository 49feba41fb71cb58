/*-------------------------------------------------------------------------
 *
 * thrift.c
 *	  Thrift compact protocol: bounded reader and growable writer.
 *
 * Wire format (Apache Thrift, compact protocol specification):
 *
 *	- integers i16/i32/i64 are zigzag ULEB128 varints; i8 is one raw byte;
 *	  double is 8 bytes little-endian; binary is a ULEB128 length + bytes;
 *	- a field header is one byte (delta << 4) | type when the field id is
 *	  1..15 above the previous one in the same struct, otherwise the byte
 *	  holds only the type and a zigzag varint i16 field id follows;
 *	- a bool field carries its value in the type nibble (1 true, 2 false);
 *	  bool list elements are one byte each;
 *	- a list/set header is one byte (count << 4) | elem_type for counts
 *	  below 15, else 0xF0 | elem_type followed by a ULEB128 count;
 *	- a map header is a ULEB128 count and, when non-zero, one byte
 *	  (key_type << 4) | value_type;
 *	- a struct is its fields followed by a STOP byte (0).
 *
 * Design notes: the bool-in-header case needs one bit of state.  When
 * pq_thrift_field_next() returns a bool field whose header says true it sets
 * pending_bool; pq_thrift_bool() and pq_thrift_skip() consume it instead of a
 * byte.  Every other header or list read clears it, so a list element read
 * with PQ_THRIFT_BOOL_TRUE never mistakes a stale header for its value.
 *
 * Every element of a list, set or map takes at least one byte, so a count
 * above the bytes left is rejected before any caller allocates for it.
 * Containers count against PQ_THRIFT_MAX_DEPTH as structs do, so pq_thrift_skip()
 * cannot be driven into deep recursion.
 *
 * IDENTIFICATION
 *	  src/parquet/thrift.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/thrift.h"

#include <stdlib.h>
#include <string.h>

#include "codec/varint.h"

/* ----------------------------------------------------------------
 * Reader
 * ----------------------------------------------------------------
 */

static inline bool
reader_fail(PqThriftReader *r)
{
	r->failed = true;
	r->pending_bool = false;
	return false;
}

static inline size_t
reader_left(const PqThriftReader *r)
{
	return (size_t) (r->end - r->pos);
}

static inline bool
valid_value_type(uint8_t type)
{
	return type >= PQ_THRIFT_BOOL_TRUE && type <= PQ_THRIFT_STRUCT;
}

void
pq_thrift_reader_init(PqThriftReader *r, const uint8_t *buf, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->pos = buf;
	r->end = buf + len;
}

size_t
pq_thrift_reader_offset(const PqThriftReader *r, const uint8_t *buf)
{
	return (size_t) (r->pos - buf);
}

static bool
read_varint(PqThriftReader *r, uint64_t *out)
{
	if (r->failed)
		return false;
	if (!cdc_uleb128_read(&r->pos, r->end, out))
		return reader_fail(r);
	return true;
}

static bool
read_varint32(PqThriftReader *r, uint32_t *out)
{
	if (r->failed)
		return false;
	if (!cdc_uleb128_read32(&r->pos, r->end, out))
		return reader_fail(r);
	return true;
}

static bool
read_byte(PqThriftReader *r, uint8_t *out)
{
	if (r->failed)
		return false;
	if (r->pos >= r->end)
		return reader_fail(r);
	*out = *r->pos++;
	return true;
}

/* Enter a struct or container level; false beyond PQ_THRIFT_MAX_DEPTH. */
static bool
depth_push(PqThriftReader *r)
{
	if (r->depth >= PQ_THRIFT_MAX_DEPTH)
		return reader_fail(r);
	r->last_fid[r->depth] = 0;
	r->depth++;
	return true;
}

static void
depth_pop(PqThriftReader *r)
{
	if (r->depth > 0)
		r->depth--;
}

void
pq_thrift_struct_begin(PqThriftReader *r)
{
	r->pending_bool = false;
	if (r->failed)
		return;
	depth_push(r);
}

void
pq_thrift_struct_end(PqThriftReader *r)
{
	r->pending_bool = false;
	depth_pop(r);
}

bool
pq_thrift_field_next(PqThriftReader *r, int16_t *fid, uint8_t *type)
{
	uint8_t		header;
	uint8_t		t;
	int32_t		id;

	r->pending_bool = false;
	if (r->failed)
		return false;
	if (r->depth <= 0)
		return reader_fail(r);
	if (!read_byte(r, &header))
		return false;
	if (header == PQ_THRIFT_STOP)
		return false;

	t = header & 0x0F;
	if (!valid_value_type(t))
		return reader_fail(r);
	if ((header >> 4) != 0)
		id = (int32_t) r->last_fid[r->depth - 1] + (header >> 4);
	else
	{
		uint32_t	raw;

		if (!read_varint32(r, &raw))
			return false;
		id = cdc_zigzag_decode32(raw);
	}
	if (id < INT16_MIN || id > INT16_MAX)
		return reader_fail(r);

	r->last_fid[r->depth - 1] = (int16_t) id;
	*fid = (int16_t) id;
	*type = t;
	if (t == PQ_THRIFT_BOOL_TRUE)
		r->pending_bool = true;
	return true;
}

bool
pq_thrift_bool(PqThriftReader *r, uint8_t type)
{
	uint8_t		byte;

	if (r->failed)
		return false;
	if (r->pending_bool)
	{
		r->pending_bool = false;
		return true;
	}
	if (type == PQ_THRIFT_BOOL_FALSE)
		return false;			/* a false bool field: nothing to read */
	if (type != PQ_THRIFT_BOOL_TRUE)
	{
		reader_fail(r);
		return false;
	}
	/* A list element: writers use 1 for true and 0 or 2 for false. */
	if (!read_byte(r, &byte))
		return false;
	if (byte > 2)
	{
		reader_fail(r);
		return false;
	}
	return byte == 1;
}

int8_t
pq_thrift_i8(PqThriftReader *r)
{
	uint8_t		byte;

	r->pending_bool = false;
	if (!read_byte(r, &byte))
		return 0;
	return (int8_t) byte;
}

int16_t
pq_thrift_i16(PqThriftReader *r)
{
	uint32_t	raw;
	int32_t		v;

	r->pending_bool = false;
	if (!read_varint32(r, &raw))
		return 0;
	v = cdc_zigzag_decode32(raw);
	if (v < INT16_MIN || v > INT16_MAX)
	{
		reader_fail(r);
		return 0;
	}
	return (int16_t) v;
}

int32_t
pq_thrift_i32(PqThriftReader *r)
{
	uint32_t	raw;

	r->pending_bool = false;
	if (!read_varint32(r, &raw))
		return 0;
	return cdc_zigzag_decode32(raw);
}

int64_t
pq_thrift_i64(PqThriftReader *r)
{
	uint64_t	raw;

	r->pending_bool = false;
	if (!read_varint(r, &raw))
		return 0;
	return cdc_zigzag_decode64(raw);
}

double
pq_thrift_double(PqThriftReader *r)
{
	uint64_t	bits = 0;
	double		v;

	r->pending_bool = false;
	if (r->failed)
		return 0.0;
	if (reader_left(r) < 8)
	{
		reader_fail(r);
		return 0.0;
	}
	for (int i = 7; i >= 0; i--)
		bits = (bits << 8) | r->pos[i];
	r->pos += 8;
	memcpy(&v, &bits, sizeof(v));
	return v;
}

bool
pq_thrift_binary(PqThriftReader *r, const uint8_t **data, uint32_t *len)
{
	uint32_t	n;

	r->pending_bool = false;
	*data = NULL;
	*len = 0;
	if (!read_varint32(r, &n))
		return false;
	if (n > reader_left(r))
		return reader_fail(r);
	*data = r->pos;
	*len = n;
	r->pos += n;
	return true;
}

bool
pq_thrift_list_begin(PqThriftReader *r, uint8_t *elem_type, uint32_t *count)
{
	uint8_t		header;
	uint8_t		t;
	uint32_t	n;

	r->pending_bool = false;
	*elem_type = 0;
	*count = 0;
	if (!read_byte(r, &header))
		return false;
	t = header & 0x0F;
	if (!valid_value_type(t))
		return reader_fail(r);
	n = header >> 4;
	if (n == 15 && !read_varint32(r, &n))
		return false;
	/* Every element takes at least one byte (a double eight). */
	if (n > reader_left(r) || (t == PQ_THRIFT_DOUBLE && n > reader_left(r) / 8))
		return reader_fail(r);
	*elem_type = t;
	*count = n;
	return true;
}

/* Skip one list/set element or map key/value of the given type. */
static void skip_value(PqThriftReader *r, uint8_t type, bool in_container);

static void
skip_struct(PqThriftReader *r)
{
	int16_t		fid;
	uint8_t		type;

	if (!depth_push(r))
		return;
	while (pq_thrift_field_next(r, &fid, &type))
		skip_value(r, type, false);
	r->pending_bool = false;
	depth_pop(r);
}

static void
skip_list(PqThriftReader *r)
{
	uint8_t		elem_type;
	uint32_t	count;

	if (!pq_thrift_list_begin(r, &elem_type, &count))
		return;
	if (!depth_push(r))
		return;
	for (uint32_t i = 0; i < count && !r->failed; i++)
		skip_value(r, elem_type, true);
	depth_pop(r);
}

static void
skip_map(PqThriftReader *r)
{
	uint32_t	count;
	uint8_t		kv = 0;
	uint8_t		key_type;
	uint8_t		value_type;

	if (!read_varint32(r, &count))
		return;
	if (count == 0)
		return;
	if (!read_byte(r, &kv))
		return;
	key_type = kv >> 4;
	value_type = kv & 0x0F;
	if (!valid_value_type(key_type) || !valid_value_type(value_type) ||
		count > reader_left(r) / 2)
	{
		reader_fail(r);
		return;
	}
	if (!depth_push(r))
		return;
	for (uint32_t i = 0; i < count && !r->failed; i++)
	{
		skip_value(r, key_type, true);
		skip_value(r, value_type, true);
	}
	depth_pop(r);
}

static void
skip_value(PqThriftReader *r, uint8_t type, bool in_container)
{
	uint64_t	ignored;
	uint8_t		byte;
	const uint8_t *data;
	uint32_t	len;

	if (r->failed)
		return;
	switch (type)
	{
		case PQ_THRIFT_BOOL_TRUE:
		case PQ_THRIFT_BOOL_FALSE:
			if (in_container)
				read_byte(r, &byte);
			r->pending_bool = false;
			break;
		case PQ_THRIFT_I8:
			read_byte(r, &byte);
			break;
		case PQ_THRIFT_I16:
		case PQ_THRIFT_I32:
		case PQ_THRIFT_I64:
			read_varint(r, &ignored);
			break;
		case PQ_THRIFT_DOUBLE:
			if (reader_left(r) < 8)
				reader_fail(r);
			else
				r->pos += 8;
			break;
		case PQ_THRIFT_BINARY:
			pq_thrift_binary(r, &data, &len);
			break;
		case PQ_THRIFT_LIST:
		case PQ_THRIFT_SET:
			skip_list(r);
			break;
		case PQ_THRIFT_MAP:
			skip_map(r);
			break;
		case PQ_THRIFT_STRUCT:
			skip_struct(r);
			break;
		default:
			reader_fail(r);
			break;
	}
}

/*
 * Skip a field's value.  A bool field's value is in its header, so
 * skipping it reads nothing.
 */
void
pq_thrift_skip(PqThriftReader *r, uint8_t type)
{
	if (type == PQ_THRIFT_BOOL_TRUE && !r->pending_bool && !r->failed)
	{
		/* Not right after a bool field header: a list element byte. */
		skip_value(r, type, true);
		return;
	}
	skip_value(r, type, false);
}

/* ----------------------------------------------------------------
 * Writer
 * ----------------------------------------------------------------
 */

void
pq_thrift_writer_init(PqThriftWriter *w)
{
	memset(w, 0, sizeof(*w));
}

void
pq_thrift_writer_reset(PqThriftWriter *w)
{
	w->len = 0;
	w->failed = false;
	w->depth = 0;
}

void
pq_thrift_writer_free(PqThriftWriter *w)
{
	if (w->buf != NULL)
	{
		if (w->grow != NULL)
			w->grow(w->grow_ctx, w->buf, 0);
		else
			free(w->buf);
	}
	w->buf = NULL;
	w->len = 0;
	w->cap = 0;
}

/* Make room for n more bytes; false (and failed) if allocation fails. */
static bool
writer_reserve(PqThriftWriter *w, size_t n)
{
	size_t		need;
	size_t		cap;
	uint8_t    *nbuf;

	if (w->failed)
		return false;
	if (n > SIZE_MAX - w->len)
	{
		w->failed = true;
		return false;
	}
	need = w->len + n;
	if (need <= w->cap)
		return true;
	cap = w->cap < 64 ? 64 : w->cap;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	if (w->grow != NULL)
		nbuf = w->grow(w->grow_ctx, w->buf, cap);
	else
		nbuf = realloc(w->buf, cap);
	if (nbuf == NULL)
	{
		w->failed = true;
		return false;
	}
	w->buf = nbuf;
	w->cap = cap;
	return true;
}

static void
write_byte(PqThriftWriter *w, uint8_t b)
{
	if (writer_reserve(w, 1))
		w->buf[w->len++] = b;
}

static void
write_varint(PqThriftWriter *w, uint64_t v)
{
	if (writer_reserve(w, CDC_ULEB128_MAX_BYTES))
		w->len += cdc_uleb128_write(w->buf + w->len, v);
}

void
pq_thrift_write_struct_begin(PqThriftWriter *w)
{
	if (w->depth >= PQ_THRIFT_MAX_DEPTH)
	{
		w->failed = true;
		return;
	}
	w->last_fid[w->depth++] = 0;
}

void
pq_thrift_write_struct_end(PqThriftWriter *w)
{
	write_byte(w, PQ_THRIFT_STOP);
	if (w->depth > 0)
		w->depth--;
}

void
pq_thrift_write_field(PqThriftWriter *w, int16_t fid, uint8_t type)
{
	int32_t		delta;

	if (w->depth <= 0)
	{
		w->failed = true;
		return;
	}
	delta = (int32_t) fid - w->last_fid[w->depth - 1];
	if (delta > 0 && delta <= 15)
		write_byte(w, (uint8_t) ((delta << 4) | (type & 0x0F)));
	else
	{
		write_byte(w, type & 0x0F);
		write_varint(w, cdc_zigzag_encode32(fid));
	}
	w->last_fid[w->depth - 1] = fid;
}

void
pq_thrift_write_bool_field(PqThriftWriter *w, int16_t fid, bool value)
{
	pq_thrift_write_field(w, fid, value ? PQ_THRIFT_BOOL_TRUE : PQ_THRIFT_BOOL_FALSE);
}

void
pq_thrift_write_i32(PqThriftWriter *w, int32_t v)
{
	write_varint(w, cdc_zigzag_encode32(v));
}

void
pq_thrift_write_i64(PqThriftWriter *w, int64_t v)
{
	write_varint(w, cdc_zigzag_encode64(v));
}

void
pq_thrift_write_double(PqThriftWriter *w, double v)
{
	uint64_t	bits;

	memcpy(&bits, &v, sizeof(bits));
	if (!writer_reserve(w, 8))
		return;
	for (int i = 0; i < 8; i++)
		w->buf[w->len++] = (uint8_t) (bits >> (8 * i));
}

void
pq_thrift_write_binary(PqThriftWriter *w, const void *data, uint32_t len)
{
	write_varint(w, len);
	if (len > 0 && writer_reserve(w, len))
	{
		memcpy(w->buf + w->len, data, len);
		w->len += len;
	}
}

void
pq_thrift_write_list_begin(PqThriftWriter *w, uint8_t elem_type, uint32_t count)
{
	if (count < 15)
		write_byte(w, (uint8_t) ((count << 4) | (elem_type & 0x0F)));
	else
	{
		write_byte(w, 0xF0 | (elem_type & 0x0F));
		write_varint(w, count);
	}
}

void
pq_thrift_write_i8(PqThriftWriter *w, int8_t v)
{
	write_byte(w, (uint8_t) v);
}

/* Bool list elements: 1 for true, 2 for false, as the reference library. */
void
pq_thrift_write_bool_elem(PqThriftWriter *w, bool v)
{
	write_byte(w, v ? PQ_THRIFT_BOOL_TRUE : PQ_THRIFT_BOOL_FALSE);
}

void
pq_thrift_write_map_begin(PqThriftWriter *w, uint8_t key_type, uint8_t value_type,
					   uint32_t count)
{
	write_varint(w, count);
	if (count > 0)
		write_byte(w, (uint8_t) ((key_type << 4) | (value_type & 0x0F)));
}
