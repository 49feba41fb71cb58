/*-------------------------------------------------------------------------
 *
 * field_reader.c
 *	  Field assembly: the positions of one schema node in one stripe into
 *	  column batches (format notes, sections 1.8, 1.11, 2.1, 3.7, 3.8).
 *
 * What a stripe stores per node, and how it is read back here:
 *
 *	constant or all-null (constant_value set, or null_count ==
 *	position_count), absent (empty field-list entry): no buffers; the batch
 *	is filled from the constant or with nulls.
 *	Int*, Float*, DateTime: DATA blocks with embedded presence.
 *	String, Binary, Guid, FixedSizeBinary: DATA blocks (binary grammar) with
 *	embedded presence; or, when the stripe descriptor has dictionary_size,
 *	DATA = u32 ids + a VALUE_DICTIONARY buffer (nulls = the null id).
 *	Boolean: DATA bit buffer + optional PRESENCE bit buffer.
 *	List, Map: OFFSETS (u64, position_count + 1 values) + optional PRESENCE.
 *	Struct, FixedSizeList: optional PRESENCE only.
 *
 * Bit buffers are u8 streams whose block maps count bytes: bit i is bit
 * i % 8 of byte i / 8.  Position counts of absent nodes come from their
 * parent as section 1.8 suggests (top level: the stripe's records; struct
 * child: the parent's; fixed-size-list child: parent * size; list/map
 * child: 0).
 *
 * Each buffer keeps its last decoded block, so consecutive batches that
 * share a block decode it once.  Block sizes are bounded (AM_MAX_BLOCK_VALUES)
 * before anything is allocated for them.
 *
 * IDENTIFICATION
 *	  src/amudai/field_reader.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/amudai_int.h"

/* Largest block (in values) we decode; the reference writes <= 64 K. */
#define AM_MAX_BLOCK_VALUES ((uint64_t) 1 << 24)

typedef enum FieldMode
{
	MODE_NULLS,					/* absent, all null, Unit */
	MODE_CONSTANT,
	MODE_NUMERIC,
	MODE_BINARY,
	MODE_DICTIONARY,
	MODE_BOOLEAN,
	MODE_LIST,
	MODE_PRESENCE_ONLY			/* Struct, FixedSizeList */
} FieldMode;

/* One block-structured buffer with its last decoded block. */
typedef struct Cursor
{
	bool		open;
	AmBufferReader br;
	AmNumType	type;
	bool		binary;
	uint32_t	fixed_width;
	int64_t		block;			/* cached block, -1 = none */
	uint64_t	block_first;
	size_t		block_count;
	uint8_t    *block_bytes;
	uint8_t    *values;
	size_t		values_cap;
	uint8_t    *present;
	size_t		present_cap;
	bool		has_nulls;
	AmBinaryValues bin;
} Cursor;

/* A growable reader-owned array. */
typedef struct Grow
{
	uint8_t    *p;
	size_t		cap;
} Grow;

struct AmFieldReader
{
	AmShard    *shard;
	const PfcAllocator *alloc;
	uint32_t	stripe;
	const AmSchemaNode *node;
	uint64_t	position_count;
	FieldMode	mode;
	AmStripeFieldDescriptor sfd;
	int			anchor;
	uint32_t	value_width;	/* batch value width */
	uint32_t	fixed_width;	/* fixed-size binary */

	Cursor		data;
	Cursor		presence;

	/* value dictionary */
	uint8_t    *dict_bytes;
	const uint8_t *dict_values;
	uint64_t	dict_count;
	uint64_t   *dict_offsets;	/* [dict_count + 1] */
	bool		dict_has_null;
	uint32_t	dict_null_id;

	/* constant */
	uint8_t		const_value[16];
	AmBytes		const_bytes;

	/* batch storage */
	Grow		g_values;
	Grow		g_nulls;
	Grow		g_offsets;
	Grow		g_bytes;
	Grow		g_tmp;
	Grow		g_present;
};

static bool
grow(const PfcAllocator *alloc, Grow *g, size_t need, AmError *err)
{
	uint8_t    *n;

	if (need <= g->cap)
		return true;
	n = am_alloc(alloc, need, err);
	if (n == NULL)
		return false;
	am_release(alloc, g->p);
	g->p = n;
	g->cap = need;
	return true;
}

static AmNumType
numeric_type(const AmSchemaNode *n)
{
	switch (n->basic_type)
	{
		case AM_TYPE_INT8:
			return n->is_signed ? AM_NUM_I8 : AM_NUM_U8;
		case AM_TYPE_INT16:
			return n->is_signed ? AM_NUM_I16 : AM_NUM_U16;
		case AM_TYPE_INT32:
			return n->is_signed ? AM_NUM_I32 : AM_NUM_U32;
		case AM_TYPE_INT64:
			return n->is_signed ? AM_NUM_I64 : AM_NUM_U64;
		case AM_TYPE_FLOAT32:
			return AM_NUM_F32;
		case AM_TYPE_FLOAT64:
			return AM_NUM_F64;
		default:
			return AM_NUM_U64;	/* DateTime ticks */
	}
}

static bool
is_numeric(AmBasicType t)
{
	return (t >= AM_TYPE_INT8 && t <= AM_TYPE_FLOAT64) || t == AM_TYPE_DATETIME;
}

static bool
is_binary(AmBasicType t)
{
	return t == AM_TYPE_BINARY || t == AM_TYPE_STRING ||
		t == AM_TYPE_GUID || t == AM_TYPE_FIXED_SIZE_BINARY;
}

/* Position count of a node in a stripe, derived for absent nodes. */
static AmStatus
node_position_count(AmShard *shard, uint32_t stripe, uint32_t id, int depth,
					uint64_t *count, AmError *err)
{
	const AmSchema *schema = am_shard_schema(shard);
	const AmSchemaNode *node = &schema->nodes[id];
	AmStripeFieldDescriptor sfd;
	bool		present;
	int			anchor;
	AmStatus	st;
	uint64_t	parent;

	if (depth > AM_MAX_SCHEMA_DEPTH)
		return am_fail(err, AM_ERR_CORRUPT, "schema nested too deeply");
	if ((st = am_shard_stripe_field(shard, stripe, id, &present, &sfd, &anchor,
									err)) != AM_OK)
		return st;
	if (present)
	{
		*count = sfd.field.position_count;
		return AM_OK;
	}
	if (node->parent_id == AM_NO_PARENT)
	{
		*count = am_shard_stripe(shard, stripe)->total_record_count;
		return AM_OK;
	}
	if (node->parent_id >= schema->schema_id_count)
		return am_fail(err, AM_ERR_CORRUPT, "bad parent id");
	switch (schema->nodes[node->parent_id].basic_type)
	{
		case AM_TYPE_LIST:
		case AM_TYPE_MAP:
			*count = 0;
			return AM_OK;
		default:
			break;
	}
	if ((st = node_position_count(shard, stripe, node->parent_id, depth + 1,
								  &parent, err)) != AM_OK)
		return st;
	if (schema->nodes[node->parent_id].basic_type == AM_TYPE_FIXED_SIZE_LIST &&
		!am_mul_ok(parent, schema->nodes[node->parent_id].fixed_size, &parent))
		return am_fail(err, AM_ERR_CORRUPT, "fixed-size list too large");
	*count = parent;
	return AM_OK;
}

static const AmEncodedBuffer *
find_buffer(const AmStripeFieldDescriptor *sfd, AmBufferKind kind)
{
	for (uint32_t i = 0; i < sfd->num_buffers; i++)
		if (sfd->buffers[i].kind == (uint32_t) kind)
			return &sfd->buffers[i];
	return NULL;
}

static AmStatus
cursor_open(AmFieldReader *r, Cursor *c, const AmEncodedBuffer *desc,
			AmNumType type, bool binary, uint64_t expect_values, AmError *err)
{
	AmStatus	st;

	memset(c, 0, sizeof(*c));
	c->block = -1;
	c->type = type;
	c->binary = binary;
	c->fixed_width = r->fixed_width;
	if ((st = am_buffer_open(&c->br, r->shard, r->anchor, desc, err)) != AM_OK)
		return st;
	c->open = true;
	if (c->br.map.value_count != expect_values)
		return am_fail(err, AM_ERR_CORRUPT,
					   "buffer holds %" PRIu64 " values, expected %" PRIu64,
					   c->br.map.value_count, expect_values);
	return AM_OK;
}

static void
cursor_close(AmFieldReader *r, Cursor *c)
{
	if (!c->open)
		return;
	am_binary_values_free(&c->bin, r->alloc);
	am_release(r->alloc, c->block_bytes);
	am_release(r->alloc, c->values);
	am_release(r->alloc, c->present);
	am_buffer_close(&c->br);
	c->open = false;
}

/* Decode block b of the cursor's buffer (unless cached). */
static AmStatus
cursor_load(AmFieldReader *r, Cursor *c, uint64_t b, AmError *err)
{
	AmBlockView view;
	size_t		nulls = 0;
	AmStatus	st;
	uint64_t	n;

	if (c->block == (int64_t) b)
		return AM_OK;
	c->block = -1;
	am_binary_values_free(&c->bin, r->alloc);
	am_release(r->alloc, c->block_bytes);
	c->block_bytes = NULL;
	n = c->br.map.logical_offsets[b + 1] - c->br.map.logical_offsets[b];
	if (n > AM_MAX_BLOCK_VALUES)
		return am_fail(err, AM_ERR_UNSUPPORTED,
					   "block of %" PRIu64 " values is too large", n);
	if ((st = am_buffer_read_block(&c->br, b, &c->block_bytes, &view, err)) != AM_OK)
		return st;
	if (err != NULL)
		err->block = (int64_t) b;
	if (c->present_cap < n)
	{
		am_release(r->alloc, c->present);
		c->present = am_alloc(r->alloc, (size_t) n, err);
		c->present_cap = c->present ? (size_t) n : 0;
		if (c->present == NULL)
			return AM_ERR_IO;
	}
	if ((st = am_presence_decode(view.presence, (size_t) n, c->present, &nulls,
								 err)) != AM_OK)
		return st;
	c->has_nulls = nulls > 0;
	if (c->binary)
		st = am_decode_binary(view.values.data, view.values.len, (size_t) n,
							  c->fixed_width, c->has_nulls ? c->present : NULL,
							  r->alloc, &c->bin, err);
	else
	{
		size_t		bytes = (size_t) n * am_num_type_size(c->type);

		if (c->values_cap < bytes)
		{
			am_release(r->alloc, c->values);
			c->values = am_alloc(r->alloc, bytes, err);
			c->values_cap = c->values ? bytes : 0;
			if (c->values == NULL)
				return AM_ERR_IO;
		}
		st = am_decode_numeric(view.values.data, view.values.len, c->type,
							   (size_t) n, c->values, r->alloc, err);
	}
	if (st != AM_OK)
		return st;
	if (err != NULL)
		err->block = -1;
	c->block = (int64_t) b;
	c->block_first = c->br.map.logical_offsets[b];
	c->block_count = (size_t) n;
	return AM_OK;
}

/*
 * Copy numeric positions [first, first + count) into out (and, if nulls is
 * not NULL, 1 for each null); returns whether any null was seen.
 */
static AmStatus
read_numeric(AmFieldReader *r, Cursor *c, uint64_t first, size_t count,
			 uint8_t *out, uint8_t *nulls, bool *any_null, AmError *err)
{
	size_t		size = am_num_type_size(c->type);
	size_t		done = 0;
	AmStatus	st;

	while (done < count)
	{
		uint64_t	pos = first + done;
		uint64_t	b = am_block_map_find(&c->br.map, pos);
		size_t		within,
					k;

		if ((st = cursor_load(r, c, b, err)) != AM_OK)
			return st;
		within = (size_t) (pos - c->block_first);
		k = c->block_count - within;
		if (k > count - done)
			k = count - done;
		memcpy(out + done * size, c->values + within * size, k * size);
		if (nulls != NULL && c->has_nulls)
		{
			uint8_t		seen = 0;

			for (size_t i = 0; i < k; i++)
			{
				nulls[done + i] = c->present[within + i] == 0;
				seen |= nulls[done + i];
			}
			*any_null |= seen != 0;
		}
		else if (nulls != NULL)
			memset(nulls + done, 0, k);
		done += k;
	}
	return AM_OK;
}

/* Bits [first, first + count) of a bit buffer into bits[count] (0/1). */
static AmStatus
read_bits(AmFieldReader *r, Cursor *c, uint64_t first, size_t count,
		  uint8_t *bits, AmError *err)
{
	uint64_t	byte0 = first / 8;
	size_t		nbytes = count == 0 ? 0 : (size_t) ((first + count - 1) / 8 - byte0 + 1);
	AmStatus	st;

	if (!grow(r->alloc, &r->g_tmp, nbytes + 1, err))
		return AM_ERR_IO;
	if ((st = read_numeric(r, c, byte0, nbytes, r->g_tmp.p, NULL, NULL, err)) != AM_OK)
		return st;
	for (size_t i = 0; i < count; i++)
	{
		uint64_t	bit = first % 8 + i;

		bits[i] = (r->g_tmp.p[bit / 8] >> (bit % 8)) & 1;
	}
	return AM_OK;
}

/* Parse a VALUE_DICTIONARY section at [start, end) of buf (3.8). */
static AmStatus
dict_section(const uint8_t *buf, size_t len, uint64_t start, uint64_t end,
			 AmBytes *payload, AmError *err)
{
	uint64_t	plen;

	if (start > end || end > len || end - start < 12)
		return am_fail(err, AM_ERR_CORRUPT, "value dictionary section out of range");
	plen = am_load_u64(buf + start);
	if (plen > end - start - 12)
		return am_fail(err, AM_ERR_CORRUPT, "value dictionary section overruns its range");
	if (am_checksum32(buf + start + 8, (size_t) plen) != am_load_u32(buf + end - 4))
		return am_fail(err, AM_ERR_CHECKSUM, "value dictionary section checksum mismatch");
	payload->data = buf + start + 8;
	payload->len = (size_t) plen;
	return AM_OK;
}

static AmStatus
load_dictionary(AmFieldReader *r, const AmEncodedBuffer *desc, AmError *err)
{
	int			file;
	uint8_t    *buf;
	size_t		len;
	AmBytes		values,
				offsets;
	uint32_t	fixed;
	AmStatus	st;

	if ((st = am_shard_resolve(r->shard, r->anchor, &desc->buffer, &file, err)) != AM_OK)
		return st;
	if (desc->buffer.end - desc->buffer.start < 128 ||
		desc->buffer.end - desc->buffer.start > ((uint64_t) 1 << 31))
		return am_fail(err, AM_ERR_CORRUPT, "value dictionary of impossible size");
	if ((st = am_shard_read(r->shard, file, desc->buffer.start, desc->buffer.end,
							&r->dict_bytes, err)) != AM_OK)
		return st;
	buf = r->dict_bytes;
	len = (size_t) (desc->buffer.end - desc->buffer.start);
	if (am_checksum32(buf, 124) != am_load_u32(buf + 124))
		return am_fail(err, AM_ERR_CHECKSUM, "value dictionary header checksum mismatch");
	r->dict_count = am_load_u32(buf + 1);
	r->dict_has_null = buf[5] != 0;
	r->dict_null_id = am_load_u32(buf + 6);
	fixed = am_load_u32(buf + 10);
	if ((st = dict_section(buf, len, am_load_u64(buf + 14), am_load_u64(buf + 22),
						   &values, err)) != AM_OK)
		return st;
	if (fixed != r->fixed_width || (r->dict_has_null && r->dict_null_id >= r->dict_count))
		return am_fail(err, AM_ERR_CORRUPT, "value dictionary header disagrees with the field");
	r->dict_values = values.data;
	r->dict_offsets = am_alloc(r->alloc, (size_t) (r->dict_count + 1) * 8, err);
	if (r->dict_offsets == NULL)
		return AM_ERR_IO;
	if (fixed != 0)
	{
		if (r->dict_count * fixed != values.len)
			return am_fail(err, AM_ERR_CORRUPT, "value dictionary values do not fill their section");
		for (uint64_t i = 0; i <= r->dict_count; i++)
			r->dict_offsets[i] = i * fixed;
		return AM_OK;
	}
	if ((st = dict_section(buf, len, am_load_u64(buf + 30), am_load_u64(buf + 38),
						   &offsets, err)) != AM_OK)
		return st;
	if (offsets.len != (r->dict_count + 1) * 8)
		return am_fail(err, AM_ERR_CORRUPT, "value dictionary offsets do not match its count");
	memcpy(r->dict_offsets, offsets.data, offsets.len);
	if (r->dict_offsets[0] != 0 || r->dict_offsets[r->dict_count] != values.len)
		return am_fail(err, AM_ERR_CORRUPT, "value dictionary offsets do not span its values");
	for (uint64_t i = 0; i < r->dict_count; i++)
		if (r->dict_offsets[i + 1] < r->dict_offsets[i])
			return am_fail(err, AM_ERR_CORRUPT, "value dictionary offsets decrease");
	return AM_OK;
}

/* The stripe constant as batch value bytes (or const_bytes for binary). */
static AmStatus
set_constant(AmFieldReader *r, const AmAnyValue *v, AmError *err)
{
	AmBasicType t = r->node->basic_type;

	memset(r->const_value, 0, sizeof(r->const_value));
	if (v->kind == AM_VALUE_NULL)
	{
		r->mode = MODE_NULLS;
		return AM_OK;
	}
	r->mode = MODE_CONSTANT;
	if (is_binary(t))
	{
		if (v->kind != AM_VALUE_STRING && v->kind != AM_VALUE_BYTES &&
			v->kind != AM_VALUE_DECIMAL)
			return am_fail(err, AM_ERR_CORRUPT, "constant of the wrong kind for a binary field");
		if (r->fixed_width != 0 && v->bytes.len != r->fixed_width)
			return am_fail(err, AM_ERR_CORRUPT, "fixed-size constant of the wrong size");
		r->const_bytes = v->bytes;
		return AM_OK;
	}
	if (t == AM_TYPE_BOOLEAN)
	{
		if (v->kind != AM_VALUE_BOOL)
			return am_fail(err, AM_ERR_CORRUPT, "constant of the wrong kind for a boolean field");
		r->const_value[0] = v->b;
		return AM_OK;
	}
	if (is_numeric(t))
	{
		AmNumType nt = numeric_type(r->node);

		if (nt == AM_NUM_F32 || nt == AM_NUM_F64)
		{
			if (v->kind != AM_VALUE_DOUBLE)
				return am_fail(err, AM_ERR_CORRUPT, "constant of the wrong kind for a float field");
			if (nt == AM_NUM_F32)
			{
				float		f = (float) v->d;

				memcpy(r->const_value, &f, 4);
			}
			else
				memcpy(r->const_value, &v->d, 8);
			return AM_OK;
		}
		if (v->kind != AM_VALUE_I64 && v->kind != AM_VALUE_U64 &&
			v->kind != AM_VALUE_DATETIME && v->kind != AM_VALUE_TIMESPAN)
			return am_fail(err, AM_ERR_CORRUPT, "constant of the wrong kind for an integer field");
		/* little-endian: the low bytes are the value in its own width */
		memcpy(r->const_value, &v->u64, 8);
		return AM_OK;
	}
	return am_fail(err, AM_ERR_UNSUPPORTED, "constant value for a nested field");
}

static AmStatus
reader_setup(AmFieldReader *r, AmError *err)
{
	AmBasicType t = r->node->basic_type;
	bool		present;
	const AmEncodedBuffer *data,
			   *pres,
			   *offsets,
			   *dict;
	AmStatus	st;

	if (t == AM_TYPE_UNION)
		return am_fail(err, AM_ERR_UNSUPPORTED, "union fields are not supported");
	if (t == AM_TYPE_GUID || t == AM_TYPE_FIXED_SIZE_BINARY)
	{
		uint64_t	w = t == AM_TYPE_GUID ? 16 : r->node->fixed_size;

		if (w == 0 || w > (1u << 20))
			return am_fail(err, AM_ERR_CORRUPT, "fixed-size binary of width %" PRIu64, w);
		r->fixed_width = (uint32_t) w;
	}
	r->value_width = is_numeric(t) ? (uint32_t) am_num_type_size(numeric_type(r->node)) :
		t == AM_TYPE_BOOLEAN ? 1 : r->fixed_width;

	if ((st = am_shard_stripe_field(r->shard, r->stripe, r->node->schema_id,
									&present, &r->sfd, &r->anchor, err)) != AM_OK)
		return st;
	if (!present)
	{
		r->mode = MODE_NULLS;
		return node_position_count(r->shard, r->stripe, r->node->schema_id, 0,
								   &r->position_count, err);
	}
	r->position_count = r->sfd.field.position_count;
	if (r->node->parent_id == AM_NO_PARENT &&
		r->position_count != am_shard_stripe(r->shard, r->stripe)->total_record_count)
		return am_fail(err, AM_ERR_CORRUPT,
					   "top-level field has %" PRIu64 " positions in a stripe of %" PRIu64 " records",
					   r->position_count,
					   am_shard_stripe(r->shard, r->stripe)->total_record_count);
	if (t == AM_TYPE_UNIT)
	{
		r->mode = MODE_NULLS;
		return AM_OK;
	}
	if (r->sfd.field.constant_value.kind != AM_VALUE_ABSENT)
		return set_constant(r, &r->sfd.field.constant_value, err);
	if (r->sfd.field.has_null_count &&
		r->sfd.field.null_count == r->position_count)
	{
		r->mode = MODE_NULLS;
		return AM_OK;
	}

	data = find_buffer(&r->sfd, AM_BUFFER_DATA);
	pres = find_buffer(&r->sfd, AM_BUFFER_PRESENCE);
	offsets = find_buffer(&r->sfd, AM_BUFFER_OFFSETS);
	dict = find_buffer(&r->sfd, AM_BUFFER_VALUE_DICTIONARY);
	if (pres != NULL &&
		(st = cursor_open(r, &r->presence, pres, AM_NUM_U8, false,
						  (r->position_count + 7) / 8, err)) != AM_OK)
		return st;

	if (is_numeric(t))
	{
		r->mode = MODE_NUMERIC;
		if (data == NULL)
			return am_fail(err, AM_ERR_CORRUPT, "numeric field without a data buffer");
		return cursor_open(r, &r->data, data, numeric_type(r->node), false,
						   r->position_count, err);
	}
	if (is_binary(t))
	{
		if (data == NULL)
			return am_fail(err, AM_ERR_CORRUPT, "binary field without a data buffer");
		if (r->sfd.field.has_dictionary_size)
		{
			r->mode = MODE_DICTIONARY;
			if (dict == NULL)
				return am_fail(err, AM_ERR_CORRUPT, "dictionary field without a value dictionary");
			if ((st = load_dictionary(r, dict, err)) != AM_OK)
				return st;
			return cursor_open(r, &r->data, data, AM_NUM_U32, false,
							   r->position_count, err);
		}
		r->mode = MODE_BINARY;
		return cursor_open(r, &r->data, data, AM_NUM_U8, true,
						   r->position_count, err);
	}
	switch (t)
	{
		case AM_TYPE_BOOLEAN:
			r->mode = MODE_BOOLEAN;
			if (data == NULL)
				return am_fail(err, AM_ERR_CORRUPT, "boolean field without a data buffer");
			return cursor_open(r, &r->data, data, AM_NUM_U8, false,
							   (r->position_count + 7) / 8, err);
		case AM_TYPE_LIST:
		case AM_TYPE_MAP:
			r->mode = MODE_LIST;
			if (offsets == NULL)
				return am_fail(err, AM_ERR_CORRUPT, "list field without an offsets buffer");
			return cursor_open(r, &r->data, offsets, AM_NUM_U64, false,
							   r->position_count + 1, err);
		default:
			r->mode = MODE_PRESENCE_ONLY;
			return AM_OK;
	}
}

AmStatus
am_field_reader_open(AmFieldReader **out, AmShard *shard, uint32_t stripe,
					 uint32_t schema_id, AmError *err)
{
	const PfcAllocator *alloc = am_shard_allocator(shard);
	AmFieldReader *r;
	AmStatus	st;

	*out = NULL;
	if (stripe >= am_shard_stripe_count(shard) ||
		schema_id >= am_shard_schema(shard)->schema_id_count)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT, "no stripe %u or schema id %u",
					   stripe, schema_id);
	r = am_alloc(alloc, sizeof(*r), err);
	if (r == NULL)
		return AM_ERR_IO;
	memset(r, 0, sizeof(*r));
	r->shard = shard;
	r->alloc = alloc;
	r->stripe = stripe;
	r->node = &am_shard_schema(shard)->nodes[schema_id];
	if (err != NULL)
	{
		err->stripe = stripe;
		err->field = schema_id;
	}
	st = reader_setup(r, err);
	if (st != AM_OK)
	{
		am_field_reader_close(r);
		return st;
	}
	*out = r;
	return AM_OK;
}

uint64_t
am_field_reader_position_count(const AmFieldReader *reader)
{
	return reader->position_count;
}

void
am_field_reader_close(AmFieldReader *r)
{
	if (r == NULL)
		return;
	cursor_close(r, &r->data);
	cursor_close(r, &r->presence);
	am_release(r->alloc, r->dict_bytes);
	am_release(r->alloc, r->dict_offsets);
	am_release(r->alloc, r->g_values.p);
	am_release(r->alloc, r->g_nulls.p);
	am_release(r->alloc, r->g_offsets.p);
	am_release(r->alloc, r->g_bytes.p);
	am_release(r->alloc, r->g_tmp.p);
	am_release(r->alloc, r->g_present.p);
	am_release(r->alloc, r);
}

/* Append bytes to the batch's byte buffer (growing it geometrically). */
static bool
append_bytes(AmFieldReader *r, size_t *used, const uint8_t *p, size_t n,
			 AmError *err)
{
	if (r->g_bytes.cap - *used < n)
	{
		size_t		cap = r->g_bytes.cap ? r->g_bytes.cap : 256;
		uint8_t    *nb;

		while (cap - *used < n)
		{
			if (cap > SIZE_MAX / 2)
			{
				am_fail(err, AM_ERR_UNSUPPORTED, "batch too large");
				return false;
			}
			cap *= 2;
		}
		nb = am_alloc(r->alloc, cap, err);
		if (nb == NULL)
			return false;
		if (*used > 0)
			memcpy(nb, r->g_bytes.p, *used);
		am_release(r->alloc, r->g_bytes.p);
		r->g_bytes.p = nb;
		r->g_bytes.cap = cap;
	}
	if (n > 0)
		memcpy(r->g_bytes.p + *used, p, n);
	*used += n;
	return true;
}

static AmStatus
read_binary(AmFieldReader *r, uint64_t first, size_t count, uint64_t *offsets,
			uint8_t *nulls, bool *any_null, size_t *used, AmError *err)
{
	Cursor	   *c = &r->data;
	size_t		done = 0;
	AmStatus	st;

	if (offsets)
		offsets[0] = 0;
	while (done < count)
	{
		uint64_t	pos = first + done;
		size_t		within,
					k;

		if ((st = cursor_load(r, c, am_block_map_find(&c->br.map, pos), err)) != AM_OK)
			return st;
		within = (size_t) (pos - c->block_first);
		k = c->block_count - within;
		if (k > count - done)
			k = count - done;
		if (c->bin.offsets && offsets)
		{
			/*
			 * Strings are contiguous in the decoded block: when every null
			 * is already empty (all writers do that), one copy and shifted
			 * offsets replace a copy per value.
			 */
			const uint64_t *o = c->bin.offsets + within;
			bool		empty_nulls = true;

			for (size_t i = 0; i < k; i++)
			{
				nulls[done + i] = c->present[within + i] == 0;
				if (nulls[done + i])
				{
					*any_null = true;
					empty_nulls &= o[i + 1] == o[i];
				}
			}
			if (empty_nulls)
			{
				uint64_t	shift = *used - o[0];	/* wraps; sums are exact */

				if (!append_bytes(r, used, c->bin.data + o[0], (size_t) (o[k] - o[0]), err))
					return err ? err->status : AM_ERR_IO;
				for (size_t i = 0; i < k; i++)
					offsets[done + i + 1] = o[i + 1] + shift;
				done += k;
				continue;
			}
		}
		for (size_t i = 0; i < k; i++)
		{
			size_t		j = within + i;
			const uint8_t *p;
			size_t		n;

			if (c->bin.offsets)
			{
				p = c->bin.data + c->bin.offsets[j];
				n = (size_t) (c->bin.offsets[j + 1] - c->bin.offsets[j]);
			}
			else
			{
				p = c->bin.data + j * (size_t) r->fixed_width;
				n = r->fixed_width;
			}
			nulls[done + i] = c->present[j] == 0;
			if (nulls[done + i])
			{
				*any_null = true;
				if (offsets)
					n = 0;		/* null strings are empty */
			}
			if (!append_bytes(r, used, p, n, err))
				return err ? err->status : AM_ERR_IO;
			if (nulls[done + i] && !offsets)
				memset(r->g_bytes.p + *used - n, 0, n);
			if (offsets)
				offsets[done + i + 1] = *used;
		}
		done += k;
	}
	return AM_OK;
}

static AmStatus
read_dictionary(AmFieldReader *r, uint64_t first, size_t count,
				uint64_t *offsets, uint8_t *nulls, bool *any_null,
				size_t *used, AmError *err)
{
	uint32_t   *ids;
	AmStatus	st;

	if (!grow(r->alloc, &r->g_tmp, count * 4 + 4, err))
		return AM_ERR_IO;
	ids = (uint32_t *) r->g_tmp.p;
	if ((st = read_numeric(r, &r->data, first, count, r->g_tmp.p, NULL, NULL, err)) != AM_OK)
		return st;
	if (offsets)
		offsets[0] = 0;
	for (size_t i = 0; i < count; i++)
	{
		uint32_t	id = ids[i];
		size_t		n;

		if (id >= r->dict_count)
			return am_fail(err, AM_ERR_CORRUPT, "dictionary id %u out of range", id);
		nulls[i] = r->dict_has_null && id == r->dict_null_id;
		*any_null |= nulls[i];
		n = nulls[i] && offsets ? 0 : (size_t) (r->dict_offsets[id + 1] - r->dict_offsets[id]);
		if (!append_bytes(r, used, r->dict_values + r->dict_offsets[id], n, err))
			return err ? err->status : AM_ERR_IO;
		if (offsets)
			offsets[i + 1] = *used;
	}
	return AM_OK;
}

AmStatus
am_field_reader_read(AmFieldReader *r, uint64_t first, size_t count,
					 AmColumnBatch *batch, AmError *err)
{
	bool		any_null = false;
	bool		variable = r->node->basic_type == AM_TYPE_STRING ||
		r->node->basic_type == AM_TYPE_BINARY;
	bool		list = r->node->basic_type == AM_TYPE_LIST ||
		r->node->basic_type == AM_TYPE_MAP;
	uint8_t    *nulls;
	uint64_t   *offsets = NULL;
	size_t		used = 0;
	AmStatus	st = AM_OK;

	memset(batch, 0, sizeof(*batch));
	if (err != NULL)
	{
		err->stripe = r->stripe;
		err->field = r->node->schema_id;
	}
	if (first > r->position_count || count > r->position_count - first)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT,
					   "positions [%" PRIu64 ", +%zu) beyond the field's %" PRIu64,
					   first, count, r->position_count);
	if (count > SIZE_MAX / 32)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT, "batch too large");
	if (!grow(r->alloc, &r->g_nulls, count + 1, err) ||
		!grow(r->alloc, &r->g_values, (size_t) count * (r->fixed_width && !variable ? 0 : r->value_width) + 8, err) ||
		((variable || list) && !grow(r->alloc, &r->g_offsets, (count + 1) * 8, err)))
		return AM_ERR_IO;
	nulls = r->g_nulls.p;
	memset(nulls, 0, count);
	if (variable || list)
	{
		offsets = (uint64_t *) r->g_offsets.p;
		offsets[0] = 0;
	}
	batch->count = count;
	batch->value_width = (variable || list) ? 0 : r->value_width;

	switch (r->mode)
	{
		case MODE_NULLS:
			memset(nulls, 1, count);
			any_null = count > 0;
			if (r->value_width && !variable)
			{
				if (!grow(r->alloc, &r->g_values, (size_t) count * r->value_width + 8, err))
					return AM_ERR_IO;
				memset(r->g_values.p, 0, (size_t) count * r->value_width);
			}
			if (offsets)
				memset(offsets, 0, (count + 1) * 8);
			break;
		case MODE_CONSTANT:
			if (variable || r->fixed_width)
			{
				for (size_t i = 0; i < count; i++)
				{
					if (!append_bytes(r, &used, r->const_bytes.data, r->const_bytes.len, err))
						return err ? err->status : AM_ERR_IO;
					if (offsets)
						offsets[i + 1] = used;
				}
			}
			else
				for (size_t i = 0; i < count; i++)
					memcpy(r->g_values.p + i * r->value_width, r->const_value,
						   r->value_width);
			break;
		case MODE_NUMERIC:
			st = read_numeric(r, &r->data, first, count, r->g_values.p, nulls,
							  &any_null, err);
			break;
		case MODE_BINARY:
			st = read_binary(r, first, count, offsets, nulls, &any_null, &used, err);
			break;
		case MODE_DICTIONARY:
			st = read_dictionary(r, first, count, offsets, nulls, &any_null, &used, err);
			break;
		case MODE_BOOLEAN:
			st = read_bits(r, &r->data, first, count, r->g_values.p, err);
			break;
		case MODE_LIST:
			st = read_numeric(r, &r->data, first, count + 1, r->g_offsets.p,
							  NULL, NULL, err);
			for (size_t i = 0; st == AM_OK && i < count; i++)
				if (offsets[i + 1] < offsets[i])
					st = am_fail(err, AM_ERR_CORRUPT, "list offsets decrease");
			break;
		case MODE_PRESENCE_ONLY:
			break;
	}
	if (st != AM_OK)
		return st;

	/* a separate PRESENCE bit buffer (booleans, lists, structs) */
	if (r->presence.open && count > 0)
	{
		if (!grow(r->alloc, &r->g_present, count, err))
			return AM_ERR_IO;
		if ((st = read_bits(r, &r->presence, first, count, r->g_present.p, err)) != AM_OK)
			return st;
		for (size_t i = 0; i < count; i++)
			if (!r->g_present.p[i])
			{
				nulls[i] = 1;
				any_null = true;
			}
	}
	{
		uint8_t    *values = NULL;

		if (r->fixed_width && r->mode != MODE_NULLS)
			values = r->g_bytes.p;
		else if (!variable && !list && r->value_width > 0)
			values = r->g_values.p;
		/* null slots hold whatever the writer put there: make them zero */
		if (any_null && values != NULL && batch->value_width > 0)
			for (size_t i = 0; i < count; i++)
				if (nulls[i])
					memset(values + i * batch->value_width, 0, batch->value_width);
		batch->values = values;
	}
	batch->nulls = any_null ? nulls : NULL;
	batch->offsets = offsets;
	if (variable)
	{
		batch->bytes = r->g_bytes.p;
		batch->bytes_len = used;
	}
	return AM_OK;
}
