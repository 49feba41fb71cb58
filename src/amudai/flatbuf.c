/*-------------------------------------------------------------------------
 *
 * flatbuf.c
 *	  A bounded FlatBuffers reader for the Amudai schema (format notes,
 *	  section 1.10).
 *
 * FlatBuffers in brief: the buffer starts with a u32 offset to the root
 * table.  A table starts with an i32 whose subtraction from the table's
 * position gives its vtable: [u16 vtable bytes][u16 table bytes][u16 field
 * offsets...], a zero offset meaning "absent, use the default".  Strings,
 * vectors and sub-tables are reached through u32 offsets relative to the
 * position of the offset itself; vectors are [u32 count][elements], strings
 * [u32 len][bytes][NUL].  Everything is little-endian; the payload sits 4
 * bytes into its envelope, so nothing is assumed aligned.
 *
 * Hostile buffers: every position is checked against the payload before it
 * is read; DataType nesting is bounded by AM_MAX_SCHEMA_DEPTH; and since
 * every node must carry a distinct schema id below schema_id_count, a buffer
 * whose tables are shared (a DAG, which would make a naive walk exponential)
 * fails on the second visit.
 *
 * IDENTIFICATION
 *	  src/amudai/flatbuf.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/amudai_int.h"

typedef struct FbBuf
{
	const uint8_t *data;
	size_t		len;
} FbBuf;

/* A located table: its position and its vtable's. */
typedef struct FbTable
{
	size_t		pos;
	size_t		vt;
	uint16_t	vt_len;
} FbTable;

typedef struct SchemaBuild
{
	FbBuf		fb;
	AmSchema   *schema;
	uint32_t   *child_ids;		/* all children slices, [schema_id_count] */
	uint32_t	child_cursor;
	uint32_t	visited;
	AmError    *err;
} SchemaBuild;

static AmStatus
fb_corrupt(AmError *err, const char *what)
{
	return am_fail(err, AM_ERR_CORRUPT, "schema flatbuffer: %s", what);
}

static bool
fb_has(const FbBuf *fb, size_t pos, size_t n)
{
	return pos <= fb->len && n <= fb->len - pos;
}

static AmStatus
fb_table_at(const FbBuf *fb, size_t pos, FbTable *t, AmError *err)
{
	int32_t		soff;
	int64_t		vt;

	if (!fb_has(fb, pos, 4))
		return fb_corrupt(err, "table out of bounds");
	soff = (int32_t) am_load_u32(fb->data + pos);
	vt = (int64_t) pos - soff;
	if (vt < 0 || !fb_has(fb, (size_t) vt, 4))
		return fb_corrupt(err, "vtable out of bounds");
	t->pos = pos;
	t->vt = (size_t) vt;
	t->vt_len = am_load_u16(fb->data + vt);
	if (t->vt_len < 4 || t->vt_len % 2 != 0 || !fb_has(fb, t->vt, t->vt_len))
		return fb_corrupt(err, "bad vtable size");
	if (!fb_has(fb, pos, am_load_u16(fb->data + vt + 2)))
		return fb_corrupt(err, "table overruns the buffer");
	return AM_OK;
}

/*
 * Position of field `slot` of t, requiring `size` readable bytes there;
 * 0 when absent.
 */
static AmStatus
fb_field(const FbBuf *fb, const FbTable *t, int slot, size_t size,
		 size_t *pos, AmError *err)
{
	size_t		entry = 4 + 2 * (size_t) slot;
	uint16_t	off;

	*pos = 0;
	if (entry + 2 > t->vt_len)
		return AM_OK;
	off = am_load_u16(fb->data + t->vt + entry);
	if (off == 0)
		return AM_OK;
	if (off < 4 || !fb_has(fb, t->pos + off, size))
		return fb_corrupt(err, "field out of bounds");
	*pos = t->pos + off;
	return AM_OK;
}

/* Follow the u32 offset of field slot; *target = 0 when absent. */
static AmStatus
fb_indirect(const FbBuf *fb, const FbTable *t, int slot, size_t *target,
			AmError *err)
{
	size_t		pos;
	AmStatus	st;
	uint64_t	tgt;

	*target = 0;
	if ((st = fb_field(fb, t, slot, 4, &pos, err)) != AM_OK || pos == 0)
		return st;
	tgt = (uint64_t) pos + am_load_u32(fb->data + pos);
	if (tgt >= fb->len)
		return fb_corrupt(err, "offset out of bounds");
	*target = (size_t) tgt;
	return AM_OK;
}

/* A vector at pos with elements of elem_size bytes. */
static AmStatus
fb_vector(const FbBuf *fb, size_t pos, size_t elem_size, uint32_t *count,
		  AmError *err)
{
	uint32_t	n;

	if (!fb_has(fb, pos, 4))
		return fb_corrupt(err, "vector out of bounds");
	n = am_load_u32(fb->data + pos);
	if ((uint64_t) n * elem_size > fb->len - pos - 4)
		return fb_corrupt(err, "vector overruns the buffer");
	*count = n;
	return AM_OK;
}

static AmStatus
fb_string(const FbBuf *fb, size_t pos, AmBytes *out, AmError *err)
{
	uint32_t	n = 0;
	AmStatus	st;

	/* the string plus its NUL terminator */
	if ((st = fb_vector(fb, pos, 1, &n, err)) != AM_OK)
		return st;
	if (n == fb->len - pos - 4 || fb->data[pos + 4 + n] != 0)
		return fb_corrupt(err, "string is not NUL-terminated");
	out->data = fb->data + pos + 4;
	out->len = n;
	return AM_OK;
}

/* Element i of a vector of tables at vec. */
static AmStatus
fb_vector_table(const FbBuf *fb, size_t vec, uint32_t i, FbTable *t,
				AmError *err)
{
	size_t		elem = vec + 4 + (size_t) i * 4;
	uint64_t	tgt = (uint64_t) elem + am_load_u32(fb->data + elem);

	if (tgt >= fb->len)
		return fb_corrupt(err, "table offset out of bounds");
	return fb_table_at(fb, (size_t) tgt, t, err);
}

static AmStatus
parse_data_type(SchemaBuild *b, const FbTable *t, uint32_t parent_id,
				int depth, uint32_t *id_out)
{
	const FbBuf *fb = &b->fb;
	AmError    *err = b->err;
	AmStatus	st;
	size_t		pos;
	uint32_t	schema_id = 0;
	uint32_t	stored_parent = 0;
	uint32_t	n_children = 0;
	size_t		name_pos,
				children_pos,
				ext_pos;
	AmSchemaNode *node;
	uint32_t   *slice;

	if (depth > AM_MAX_SCHEMA_DEPTH)
		return fb_corrupt(err, "data types nested too deeply");
	if (++b->visited > b->schema->schema_id_count)
		return fb_corrupt(err, "more data types than schema_id_count");

	if ((st = fb_field(fb, t, 1, 4, &pos, err)) != AM_OK)
		return st;
	if (pos != 0)
		schema_id = am_load_u32(fb->data + pos);
	if (schema_id >= b->schema->schema_id_count)
		return am_fail(err, AM_ERR_CORRUPT,
					   "schema id %u is not below schema_id_count %u",
					   schema_id, b->schema->schema_id_count);
	node = &b->schema->nodes[schema_id];
	if (node->schema_id != UINT32_MAX)
		return am_fail(err, AM_ERR_CORRUPT, "schema id %u used twice", schema_id);
	node->schema_id = schema_id;
	node->parent_id = parent_id;

	if ((st = fb_field(fb, t, 2, 4, &pos, err)) != AM_OK)
		return st;
	if (pos != 0)
		stored_parent = am_load_u32(fb->data + pos);
	if (stored_parent != parent_id)
		return am_fail(err, AM_ERR_CORRUPT,
					   "schema id %u names parent %u, found under %u",
					   schema_id, stored_parent, parent_id);

	if ((st = fb_field(fb, t, 0, 1, &pos, err)) != AM_OK)
		return st;
	node->basic_type = pos ? (AmBasicType) fb->data[pos] : AM_TYPE_UNIT;
	if (node->basic_type > AM_TYPE_UNION)
		return am_fail(err, AM_ERR_CORRUPT, "unknown basic type %d",
					   (int) node->basic_type);
	if ((st = fb_field(fb, t, 6, 1, &pos, err)) != AM_OK)
		return st;
	node->is_signed = pos ? fb->data[pos] != 0 : false;
	if ((st = fb_field(fb, t, 7, 8, &pos, err)) != AM_OK)
		return st;
	node->fixed_size = pos ? am_load_u64(fb->data + pos) : 0;

	if ((st = fb_indirect(fb, t, 3, &name_pos, err)) != AM_OK)
		return st;
	if (name_pos == 0)
		return fb_corrupt(err, "data type without a field name");
	if ((st = fb_string(fb, name_pos, &node->name, err)) != AM_OK)
		return st;

	if ((st = fb_indirect(fb, t, 8, &ext_pos, err)) != AM_OK)
		return st;
	if (ext_pos != 0)
	{
		FbTable		ext;
		size_t		label_pos;

		if ((st = fb_table_at(fb, ext_pos, &ext, err)) != AM_OK ||
			(st = fb_indirect(fb, &ext, 0, &label_pos, err)) != AM_OK)
			return st;
		if (label_pos == 0)
			return fb_corrupt(err, "extended type without a label");
		if ((st = fb_string(fb, label_pos, &node->extension_label, err)) != AM_OK)
			return st;
	}

	if ((st = fb_indirect(fb, t, 5, &children_pos, err)) != AM_OK)
		return st;
	if (children_pos == 0)
		return fb_corrupt(err, "data type without a children vector");
	if ((st = fb_vector(fb, children_pos, 4, &n_children, err)) != AM_OK)
		return st;
	if (n_children > b->schema->schema_id_count - b->child_cursor)
		return fb_corrupt(err, "more children than schema ids");
	slice = b->child_ids + b->child_cursor;
	b->child_cursor += n_children;
	node->num_children = n_children;
	node->children = slice;
	for (uint32_t i = 0; i < n_children; i++)
	{
		FbTable		ct;

		if ((st = fb_vector_table(fb, children_pos, i, &ct, err)) != AM_OK ||
			(st = parse_data_type(b, &ct, schema_id, depth + 1, &slice[i])) != AM_OK)
			return st;
	}
	*id_out = schema_id;
	return AM_OK;
}

AmStatus
am_parse_schema(AmBytes payload, const PfcAllocator *alloc, AmSchema *out,
				AmError *err)
{
	SchemaBuild b;
	FbTable		root;
	size_t		pos,
				fields_pos;
	uint32_t	count = 0;
	uint32_t	n_fields = 0;
	uint32_t   *fields;
	AmStatus	st;

	memset(out, 0, sizeof(*out));
	b.fb.data = payload.data;
	b.fb.len = payload.len;
	b.err = err;
	if (payload.len < 4)
		return fb_corrupt(err, "shorter than its root offset");
	if ((st = fb_table_at(&b.fb, am_load_u32(payload.data), &root, err)) != AM_OK)
		return st;
	if ((st = fb_field(&b.fb, &root, 1, 4, &pos, err)) != AM_OK)
		return st;
	if (pos != 0)
		count = am_load_u32(payload.data + pos);
	/* every node takes well over 8 bytes, so this bounds the allocation */
	if (count > AM_MAX_SCHEMA_NODES || count > payload.len / 8)
		return am_fail(err, AM_ERR_CORRUPT,
					   "schema_id_count %u is impossible in %zu bytes",
					   count, payload.len);
	if ((st = fb_indirect(&b.fb, &root, 0, &fields_pos, err)) != AM_OK)
		return st;
	if (fields_pos == 0)
		return fb_corrupt(err, "schema without a fields vector");
	if ((st = fb_vector(&b.fb, fields_pos, 4, &n_fields, err)) != AM_OK)
		return st;
	if (n_fields > count)
		return fb_corrupt(err, "more fields than schema ids");

	out->schema_id_count = count;
	out->nodes = am_alloc(alloc, (size_t) count * sizeof(AmSchemaNode), err);
	fields = am_alloc(alloc, ((size_t) count * 2 + 1) * sizeof(uint32_t), err);
	if (out->nodes == NULL || fields == NULL)
	{
		am_release(alloc, out->nodes);
		am_release(alloc, fields);
		memset(out, 0, sizeof(*out));
		return AM_ERR_IO;
	}
	memset(out->nodes, 0, (size_t) count * sizeof(AmSchemaNode));
	for (uint32_t i = 0; i < count; i++)
	{
		out->nodes[i].schema_id = UINT32_MAX;	/* "not seen yet" */
		out->nodes[i].parent_id = AM_NO_PARENT;
	}
	b.schema = out;
	b.child_ids = fields + count;
	b.child_cursor = 0;
	b.visited = 0;
	out->fields = fields;
	out->num_fields = n_fields;

	for (uint32_t i = 0; i < n_fields; i++)
	{
		FbTable		ft,
					dt;
		size_t		dt_pos;

		if ((st = fb_vector_table(&b.fb, fields_pos, i, &ft, err)) != AM_OK ||
			(st = fb_indirect(&b.fb, &ft, 0, &dt_pos, err)) != AM_OK)
			break;
		if (dt_pos == 0)
		{
			st = fb_corrupt(err, "field without a data type");
			break;
		}
		if ((st = fb_table_at(&b.fb, dt_pos, &dt, err)) != AM_OK ||
			(st = parse_data_type(&b, &dt, AM_NO_PARENT, 1, &fields[i])) != AM_OK)
			break;
	}
	if (st == AM_OK && b.visited != count)
		st = am_fail(err, AM_ERR_CORRUPT,
					 "schema declares %u ids but holds %u data types",
					 count, b.visited);
	if (st != AM_OK)
	{
		am_release(alloc, out->nodes);
		am_release(alloc, fields);
		memset(out, 0, sizeof(*out));
	}
	return st;
}
