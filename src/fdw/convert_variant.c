/*-------------------------------------------------------------------------
 *
 * convert_variant.c
 *	  VARIANT columns to jsonb: the Variant binary of each row, reassembled
 *	  from its shredded columns when there are any (VariantShredding.md).
 *
 * A VARIANT group holds `metadata` (the key dictionary), `value` (Variant
 * binary, optional when shredded) and `typed_value` (optional): a Parquet
 * primitive, a LIST of {value, typed_value} elements, or a group of object
 * fields, each a {value, typed_value} group, nested to any depth.  The
 * converter compiles that schema once (rejecting typed_value types the
 * shredding spec does not allow), then per row walks the leaves' Dremel
 * levels and writes the row's JSON text with the pure-C writers of
 * parquet/variant.h, which jsonb_in turns into the Datum.
 *
 * Reassembly follows the spec's table: typed_value wins when non-null; a
 * shredded object merges its present fields with the residual `value`
 * object (a residual key that is also a shredded field is dropped: the
 * shredded column is authoritative, as the spec asks of readers that do not
 * fail); a field with neither is missing, a list element or top-level value
 * with neither is Variant null.  A non-null `value` next to a non-null
 * primitive or list typed_value, or a non-object `value` next to present
 * shredded fields, is a corrupt file (ERRCODE_DATA_CORRUPTED).
 *
 * IDENTIFICATION
 *	  src/fdw/convert_variant.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <string.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"

#include "fdw/parquet_fdw.h"
#include "parquet/variant.h"

/* Longest JSON text of one value (jsonb cannot hold much more). */
#define PV_MAX_JSON		((size_t) 255 * 1024 * 1024)

/* What a typed_value holds. */
typedef enum PvTypedKind
{
	PV_TYPED_NONE = 0,			/* no typed_value field */
	PV_TYPED_PRIMITIVE,
	PV_TYPED_OBJECT,
	PV_TYPED_LIST
} PvTypedKind;

/* Shredded primitive types (VariantShredding.md, "Shredded Value Types"). */
typedef enum PvPrim
{
	PV_BOOL,
	PV_INT32,					/* int8, int16, int32 */
	PV_INT64,
	PV_FLOAT,
	PV_DOUBLE,
	PV_DEC32,
	PV_DEC64,
	PV_DEC_BYTES,				/* BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY decimal */
	PV_DATE,
	PV_TIME_US,
	PV_TIMESTAMP_US,
	PV_TIMESTAMP_NS,
	PV_BINARY,
	PV_STRING,
	PV_UUID
} PvPrim;

/* One {value, typed_value} pair: the variant group itself, a field, an element. */
typedef struct PvNode
{
	const char *name;			/* object field name; NULL otherwise */
	int			value_leaf;		/* local leaf of `value`, or -1 */
	PvTypedKind typed_kind;
	int16		typed_def;		/* typed_value non-null when def >= this */
	int			typed_lo;		/* local leaves under typed_value */
	int			typed_hi;
	/* PV_TYPED_PRIMITIVE */
	PvPrim		prim;
	int			scale;
	bool		utc;
	bool		is_flba;
	/* PV_TYPED_OBJECT */
	int			num_fields;
	struct PvNode **fields;
	/* PV_TYPED_LIST: the repeated group's levels and the element */
	int16		rep_def;
	int16		rep_rep;
	struct PvNode *elem;
} PvNode;

/* A leaf's position in the current batch. */
typedef struct PvCursor
{
	const PqColumnBatch *batch;
	uint32		pos;			/* next level entry */
	uint32		vpos;			/* next dense value (repeated leaves) */
	int16		max_def;
	bool		flat;			/* max_rep == 0: values are row-aligned */
} PvCursor;

struct PfVariantConverter
{
	const char *column_name;
	int			num_leaves;
	int			first_leaf;		/* global index of local leaf 0 */
	int			metadata_leaf;
	bool		optional;		/* the group can be null */
	int16		max_def;		/* the group's level */
	const PqSchemaNode **leaf_nodes;	/* by local leaf */
	PvNode	   *root;
};

/* Per-batch walk state. */
typedef struct PvWalk
{
	PfVariantConverter *vc;
	PvCursor   *cur;
	PqVariantMetadata md;
	PqStrBuf	out;
} PvWalk;

/* ----------------------------------------------------------------
 * Errors
 * ----------------------------------------------------------------
 */
static void pg_attribute_noreturn()
schema_error(const char *column_name, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("invalid shredded variant schema in column \"%s\"", column_name),
			 errdetail("%s", detail)));
}

static void pg_attribute_noreturn()
value_error(const PvWalk *w, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("invalid variant value in column \"%s\"", w->vc->column_name),
			 errdetail("%s", detail)));
}

/* A failed PqStatus of the variant decoder. */
static void pg_attribute_noreturn()
decoder_error(const PvWalk *w, const PqError *err)
{
	int			code = ERRCODE_DATA_CORRUPTED;

	if (err->status == PQ_ERR_UNSUPPORTED)
		code = ERRCODE_FEATURE_NOT_SUPPORTED;
	else if (err->status == PQ_ERR_IO)
		code = ERRCODE_OUT_OF_MEMORY;
	ereport(ERROR,
			(errcode(code),
			 errmsg("invalid variant value in column \"%s\"", w->vc->column_name),
			 errdetail("%s.", err->message)));
}

static void pg_attribute_noreturn()
levels_error(const PvWalk *w)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("inconsistent repetition or definition levels in variant column \"%s\"",
					w->vc->column_name)));
}

/* ----------------------------------------------------------------
 * Schema compilation
 * ----------------------------------------------------------------
 */
bool
pf_is_variant_field(const PqSchemaNode *field)
{
	return !field->is_leaf && field->logical.kind == PQ_LT_VARIANT;
}

/* "INT32 (INTEGER(32,false))": a leaf's type for messages. */
static char *
describe_leaf(const PqSchemaNode *leaf)
{
	const PqLogicalType *lt = &leaf->logical;
	char	   *phys = leaf->physical == PQ_FIXED_LEN_BYTE_ARRAY ?
		psprintf("FIXED_LEN_BYTE_ARRAY(%d)", leaf->type_length) :
		pstrdup(pq_physical_type_name(leaf->physical));

	switch (lt->kind)
	{
		case PQ_LT_NONE:
			return phys;
		case PQ_LT_INTEGER:
			return psprintf("%s (INTEGER(%d,%s))", phys, lt->bit_width,
							lt->is_signed ? "true" : "false");
		case PQ_LT_DECIMAL:
			return psprintf("%s (DECIMAL(%d,%d))", phys, lt->precision, lt->scale);
		case PQ_LT_TIME:
		case PQ_LT_TIMESTAMP:
			return psprintf("%s (%s(%s,%s))", phys, pq_logical_kind_name(lt->kind),
							lt->utc_adjusted ? "true" : "false",
							lt->unit == PQ_UNIT_MILLIS ? "MILLIS" :
							lt->unit == PQ_UNIT_MICROS ? "MICROS" : "NANOS");
		default:
			return psprintf("%s (%s)", phys, pq_logical_kind_name(lt->kind));
	}
}

/* The shredded primitive of a typed_value leaf; false if the spec disallows it. */
static bool
leaf_prim(const PqSchemaNode *leaf, PvNode *n)
{
	const PqLogicalType *lt = &leaf->logical;

	n->scale = lt->kind == PQ_LT_DECIMAL ? lt->scale : 0;
	n->utc = lt->utc_adjusted;
	n->is_flba = leaf->physical == PQ_FIXED_LEN_BYTE_ARRAY;
	switch (leaf->physical)
	{
		case PQ_BOOLEAN:
			n->prim = PV_BOOL;
			return lt->kind == PQ_LT_NONE;
		case PQ_INT32:
			if (lt->kind == PQ_LT_NONE ||
				(lt->kind == PQ_LT_INTEGER && lt->is_signed && lt->bit_width <= 32))
				n->prim = PV_INT32;
			else if (lt->kind == PQ_LT_DECIMAL)
				n->prim = PV_DEC32;
			else if (lt->kind == PQ_LT_DATE)
				n->prim = PV_DATE;
			else
				return false;
			return true;
		case PQ_INT64:
			if (lt->kind == PQ_LT_NONE ||
				(lt->kind == PQ_LT_INTEGER && lt->is_signed && lt->bit_width == 64))
				n->prim = PV_INT64;
			else if (lt->kind == PQ_LT_DECIMAL)
				n->prim = PV_DEC64;
			else if (lt->kind == PQ_LT_TIME && !lt->utc_adjusted &&
					 lt->unit == PQ_UNIT_MICROS)
				n->prim = PV_TIME_US;
			else if (lt->kind == PQ_LT_TIMESTAMP && lt->unit == PQ_UNIT_MICROS)
				n->prim = PV_TIMESTAMP_US;
			else if (lt->kind == PQ_LT_TIMESTAMP && lt->unit == PQ_UNIT_NANOS)
				n->prim = PV_TIMESTAMP_NS;
			else
				return false;
			return true;
		case PQ_FLOAT:
			n->prim = PV_FLOAT;
			return lt->kind == PQ_LT_NONE;
		case PQ_DOUBLE:
			n->prim = PV_DOUBLE;
			return lt->kind == PQ_LT_NONE;
		case PQ_BYTE_ARRAY:
			if (lt->kind == PQ_LT_NONE)
				n->prim = PV_BINARY;
			else if (lt->kind == PQ_LT_STRING)
				n->prim = PV_STRING;
			else if (lt->kind == PQ_LT_DECIMAL)
				n->prim = PV_DEC_BYTES;
			else
				return false;
			return true;
		case PQ_FIXED_LEN_BYTE_ARRAY:
			if (lt->kind == PQ_LT_DECIMAL && leaf->type_length > 0)
				n->prim = PV_DEC_BYTES;
			else if (lt->kind == PQ_LT_UUID && leaf->type_length == 16)
				n->prim = PV_UUID;
			else
				return false;
			return true;
		default:
			return false;
	}
}

static int
first_leaf_index(const PqSchemaNode *node)
{
	while (!node->is_leaf)
	{
		if (node->num_children < 1)
			return -1;
		node = node->children[0];
	}
	return node->leaf_index;
}

static int
last_leaf_index(const PqSchemaNode *node)
{
	while (!node->is_leaf)
	{
		if (node->num_children < 1)
			return -1;
		node = node->children[node->num_children - 1];
	}
	return node->leaf_index;
}

static PvNode *compile_pair(PfVariantConverter *vc, const PqSchemaNode *group,
							const char *where, bool is_variant);

/* The typed_value of a pair. */
static void
compile_typed(PfVariantConverter *vc, PvNode *n, const PqSchemaNode *tv,
			  const char *where)
{
	if (first_leaf_index(tv) < 0 || last_leaf_index(tv) < 0)
		schema_error(vc->column_name,
					 psprintf("typed_value of %s is a group without fields.", where));
	n->typed_def = tv->max_def;
	n->typed_lo = first_leaf_index(tv) - vc->first_leaf;
	n->typed_hi = last_leaf_index(tv) - vc->first_leaf + 1;
	if (tv->repetition == PQ_REPEATED)
		schema_error(vc->column_name,
					 psprintf("typed_value of %s is repeated.", where));
	if (tv->is_leaf)
	{
		n->typed_kind = PV_TYPED_PRIMITIVE;
		if (!leaf_prim(tv, n))
			schema_error(vc->column_name,
						 psprintf("Unsupported shredded value type %s for typed_value of %s.",
								  describe_leaf(tv), where));
		return;
	}
	if (tv->logical.kind == PQ_LT_LIST)
	{
		const PqSchemaNode *rep;
		const PqSchemaNode *elem;

		if (tv->num_children != 1 || tv->children[0]->repetition != PQ_REPEATED ||
			tv->children[0]->is_leaf || tv->children[0]->num_children != 1 ||
			tv->children[0]->children[0]->is_leaf ||
			tv->children[0]->children[0]->repetition == PQ_REPEATED)
			schema_error(vc->column_name,
						 psprintf("typed_value of %s is not a three-level LIST of element groups.",
								  where));
		rep = tv->children[0];
		elem = rep->children[0];
		n->typed_kind = PV_TYPED_LIST;
		n->rep_def = rep->max_def;
		n->rep_rep = rep->max_rep;
		n->elem = compile_pair(vc, elem, psprintf("an element of %s", where), false);
		return;
	}
	if (tv->logical.kind != PQ_LT_NONE)
		schema_error(vc->column_name,
					 psprintf("typed_value of %s is a group annotated %s.", where,
							  pq_logical_kind_name(tv->logical.kind)));
	n->typed_kind = PV_TYPED_OBJECT;
	n->num_fields = tv->num_children;
	n->fields = palloc0(sizeof(PvNode *) * Max(1, tv->num_children));
	for (int i = 0; i < tv->num_children; i++)
	{
		const PqSchemaNode *f = tv->children[i];

		if (f->is_leaf || f->repetition == PQ_REPEATED)
			schema_error(vc->column_name,
						 psprintf("shredded field \"%s\" of %s is not a {value, typed_value} group.",
								  f->name, where));
		n->fields[i] = compile_pair(vc, f, psprintf("field \"%s\"", f->name), false);
		n->fields[i]->name = f->name;
	}
}

/* A {value, typed_value} group (the variant group itself also has metadata). */
static PvNode *
compile_pair(PfVariantConverter *vc, const PqSchemaNode *group, const char *where,
			 bool is_variant)
{
	PvNode	   *n = palloc0(sizeof(PvNode));
	const PqSchemaNode *typed = NULL;

	n->value_leaf = -1;
	for (int i = 0; i < group->num_children; i++)
	{
		const PqSchemaNode *ch = group->children[i];

		if (strcmp(ch->name, "value") == 0 && n->value_leaf < 0)
		{
			if (!ch->is_leaf || ch->physical != PQ_BYTE_ARRAY ||
				ch->repetition == PQ_REPEATED)
				schema_error(vc->column_name,
							 psprintf("value of %s is not a binary field.", where));
			n->value_leaf = ch->leaf_index - vc->first_leaf;
		}
		else if (strcmp(ch->name, "typed_value") == 0 && typed == NULL)
			typed = ch;
		else if (strcmp(ch->name, "metadata") == 0 && is_variant &&
				 vc->metadata_leaf < 0)
		{
			if (!ch->is_leaf || ch->physical != PQ_BYTE_ARRAY ||
				ch->repetition == PQ_REPEATED)
				schema_error(vc->column_name, "metadata is not a binary field.");
			vc->metadata_leaf = ch->leaf_index - vc->first_leaf;
		}
		else
			schema_error(vc->column_name,
						 psprintf("unexpected field \"%s\" in %s.", ch->name, where));
	}
	if (typed != NULL)
		compile_typed(vc, n, typed, where);
	if (n->value_leaf < 0 && typed == NULL)
		schema_error(vc->column_name,
					 psprintf("%s has neither value nor typed_value.", where));
	return n;
}

PfVariantConverter *
pf_variant_converter_create(const PqFileMeta *meta, const PqSchemaNode *field,
							const char *column_name, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	PfVariantConverter *vc = palloc0(sizeof(PfVariantConverter));
	PvNode	   *root;

	vc->column_name = pstrdup(column_name);
	if (first_leaf_index(field) < 0 || last_leaf_index(field) < 0)
		schema_error(column_name, "The variant group has no fields.");
	vc->first_leaf = first_leaf_index(field);
	vc->num_leaves = last_leaf_index(field) - vc->first_leaf + 1;
	vc->metadata_leaf = -1;
	vc->optional = field->repetition == PQ_OPTIONAL;
	vc->max_def = field->max_def;
	if (field->repetition == PQ_REPEATED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("repeated VARIANT column \"%s\" is not supported", column_name)));
	vc->leaf_nodes = palloc(sizeof(PqSchemaNode *) * vc->num_leaves);
	for (int i = 0; i < vc->num_leaves; i++)
		vc->leaf_nodes[i] = meta->leaves[vc->first_leaf + i].node;
	root = compile_pair(vc, field, "the variant", true);
	if (vc->metadata_leaf < 0)
		schema_error(vc->column_name, "The variant group has no metadata field.");
	vc->root = root;
	MemoryContextSwitchTo(old);
	return vc;
}

/* ----------------------------------------------------------------
 * Level walking
 * ----------------------------------------------------------------
 */
static inline PvCursor *
walk_cursor(PvWalk *w, int leaf)
{
	PvCursor   *c = &w->cur[leaf];

	if (unlikely(c->pos >= c->batch->num_levels))
		levels_error(w);
	return c;
}

static inline int16
peek_def(PvWalk *w, int leaf)
{
	PvCursor   *c = walk_cursor(w, leaf);

	if (c->batch->def_levels != NULL)
		return c->batch->def_levels[c->pos];
	if (c->batch->is_null != NULL && c->batch->is_null[c->pos])
		return 0;
	return c->max_def;
}

/* Consume one entry; the address of its value, or NULL when absent. */
static const void *
take(PvWalk *w, int leaf)
{
	PvCursor   *c = walk_cursor(w, leaf);
	const PqColumnBatch *b = c->batch;
	int16		def = peek_def(w, leaf);
	uint32		vi;

	if (c->flat)
	{
		vi = c->pos++;
		if (def < c->max_def || (b->is_null != NULL && b->is_null[vi]))
			return NULL;
	}
	else
	{
		c->pos++;
		if (def < c->max_def)
			return NULL;
		vi = c->vpos++;
		if (unlikely(vi >= b->num_values))
			levels_error(w);
	}
	return (const uint8 *) b->values + (size_t) vi * b->value_width;
}

/* Leaves [lo, hi) each consume one entry (an absent subtree). */
static void
skip_leaves(PvWalk *w, int lo, int hi)
{
	for (int i = lo; i < hi; i++)
		walk_cursor(w, i)->pos++;
}

/* Is there another element of the list at its first leaf? */
static inline bool
more_elements(PvWalk *w, const PvNode *n)
{
	PvCursor   *c = &w->cur[n->typed_lo];

	return c->pos < c->batch->num_levels &&
		c->batch->rep_levels != NULL &&
		c->batch->rep_levels[c->pos] >= n->rep_rep;
}

/* ----------------------------------------------------------------
 * Reassembly
 * ----------------------------------------------------------------
 */
static void
write_variant(PvWalk *w, const CdcByteView *v)
{
	PqError		err;

	pq_error_clear(&err);
	if (pq_variant_to_json(&w->md, v->ptr, v->len, &w->out, &err) != PQ_OK)
		decoder_error(w, &err);
}

static void
write_primitive(PvWalk *w, const PvNode *n, const void *p)
{
	PqStrBuf   *out = &w->out;
	int32		i32;
	int64		i64;

	switch (n->prim)
	{
		case PV_BOOL:
			if (*(const uint8 *) p)
				pq_strbuf_append(out, "true", 4);
			else
				pq_strbuf_append(out, "false", 5);
			break;
		case PV_INT32:
			memcpy(&i32, p, sizeof(i32));
			pq_json_int64(out, i32);
			break;
		case PV_INT64:
			memcpy(&i64, p, sizeof(i64));
			pq_json_int64(out, i64);
			break;
		case PV_FLOAT:
			{
				float		f;

				memcpy(&f, p, sizeof(f));
				pq_json_float(out, f);
				break;
			}
		case PV_DOUBLE:
			{
				double		d;

				memcpy(&d, p, sizeof(d));
				pq_json_double(out, d);
				break;
			}
		case PV_DEC32:
			memcpy(&i32, p, sizeof(i32));
			if (!pq_json_decimal128(out, i32 < 0 ? -1 : 0, (uint64) (int64) i32, n->scale))
				value_error(w, "A shredded decimal has a scale outside 0..38.");
			break;
		case PV_DEC64:
			memcpy(&i64, p, sizeof(i64));
			if (!pq_json_decimal128(out, i64 < 0 ? -1 : 0, (uint64) i64, n->scale))
				value_error(w, "A shredded decimal has a scale outside 0..38.");
			break;
		case PV_DEC_BYTES:
			{
				const uint8 *bytes;
				size_t		len;

				if (n->is_flba)
				{
					bytes = p;
					len = w->cur[n->typed_lo].batch->value_width;
				}
				else
				{
					bytes = ((const CdcByteView *) p)->ptr;
					len = ((const CdcByteView *) p)->len;
				}
				if (!pq_json_decimal_be(out, bytes, len, n->scale))
					value_error(w, "A shredded decimal does not fit 128 bits or has a scale outside 0..38.");
				break;
			}
		case PV_DATE:
			memcpy(&i32, p, sizeof(i32));
			pq_json_date(out, i32);
			break;
		case PV_TIME_US:
			memcpy(&i64, p, sizeof(i64));
			if (!pq_json_time(out, i64))
				value_error(w, "A shredded time of day is out of range.");
			break;
		case PV_TIMESTAMP_US:
		case PV_TIMESTAMP_NS:
			memcpy(&i64, p, sizeof(i64));
			pq_json_timestamp(out, i64, n->prim == PV_TIMESTAMP_NS, n->utc);
			break;
		case PV_BINARY:
			pq_json_binary(out, ((const CdcByteView *) p)->ptr,
						   ((const CdcByteView *) p)->len);
			break;
		case PV_STRING:
			if (!pq_json_string(out, ((const CdcByteView *) p)->ptr,
								((const CdcByteView *) p)->len))
				value_error(w, "A shredded string is not valid UTF-8.");
			break;
		case PV_UUID:
			pq_json_uuid(out, p);
			break;
	}
}

static bool is_shredded_field(const PvNode *n, const uint8 *key, size_t len);

/*
 * Write the value of one {value, typed_value} instance, consuming one entry
 * of each of its leaves (more for list elements).  False when the value is
 * missing (both null): nothing is written.
 */
static bool
emit(PvWalk *w, const PvNode *n)
{
	const CdcByteView *value = NULL;
	bool		has_typed = false;

	if (n->value_leaf >= 0)
		value = take(w, n->value_leaf);
	if (n->typed_kind != PV_TYPED_NONE)
	{
		has_typed = peek_def(w, n->typed_lo) >= n->typed_def;
		if (!has_typed)
			skip_leaves(w, n->typed_lo, n->typed_hi);
	}
	if (!has_typed)
	{
		if (value == NULL)
			return false;
		write_variant(w, value);
		return true;
	}

	switch (n->typed_kind)
	{
		case PV_TYPED_NONE:
			break;
		case PV_TYPED_PRIMITIVE:
			{
				const void *p = take(w, n->typed_lo);

				if (value != NULL)
					value_error(w, "Conflicting value and typed_value: both are set and typed_value is not an object.");
				if (p == NULL)
					levels_error(w);
				write_primitive(w, n, p);
				break;
			}
		case PV_TYPED_LIST:
			if (value != NULL)
				value_error(w, "Conflicting value and typed_value: both are set and typed_value is a list.");
			pq_strbuf_append_char(&w->out, '[');
			if (peek_def(w, n->typed_lo) < n->rep_def)
				skip_leaves(w, n->typed_lo, n->typed_hi);	/* empty list */
			else
			{
				bool		first = true;

				do
				{
					if (!first)
						pq_strbuf_append_char(&w->out, ',');
					first = false;
					/* a missing element is Variant null */
					if (!emit(w, n->elem))
						pq_strbuf_append(&w->out, "null", 4);
				} while (more_elements(w, n));
			}
			pq_strbuf_append_char(&w->out, ']');
			break;
		case PV_TYPED_OBJECT:
			{
				size_t		start = w->out.len;
				int			present = 0;

				pq_strbuf_append_char(&w->out, '{');
				for (int i = 0; i < n->num_fields; i++)
				{
					const PvNode *f = n->fields[i];
					size_t		mark = w->out.len;

					if (present > 0)
						pq_strbuf_append_char(&w->out, ',');
					if (!pq_json_string(&w->out, (const uint8 *) f->name, strlen(f->name)))
						value_error(w, "A shredded field name is not valid UTF-8.");
					pq_strbuf_append_char(&w->out, ':');
					if (emit(w, f))
						present++;
					else
						pq_strbuf_truncate(&w->out, mark);
				}
				if (value != NULL)
				{
					PqVariantObject obj;
					bool		is_object;
					size_t		used = 0;
					PqError		err;

					pq_error_clear(&err);
					if (pq_variant_object_open(&w->md, value->ptr, value->len,
											   &obj, &is_object, &err) != PQ_OK)
						decoder_error(w, &err);
					if (!is_object)
					{
						if (present > 0)
							value_error(w, "A non-object value has shredded fields.");
						/* every shredded field missing: the value stands */
						pq_strbuf_truncate(&w->out, start);
						write_variant(w, value);
						break;
					}
					for (uint32 i = 0; i < obj.num_fields; i++)
					{
						const uint8 *key;
						const uint8 *fv;
						size_t		key_len;
						size_t		fv_len;

						if (pq_variant_object_field(&obj, i, &key, &key_len,
													&fv, &fv_len, &err) != PQ_OK)
							decoder_error(w, &err);
						/* fields may not share bytes (bounds the work) */
						used += fv_len;
						if (used > obj.fields_len)
							value_error(w, "Object fields overlap.");
						if (is_shredded_field(n, key, key_len))
							continue;
						if (present++ > 0)
							pq_strbuf_append_char(&w->out, ',');
						if (!pq_json_string(&w->out, key, key_len))
							value_error(w, "An object key is not valid UTF-8.");
						pq_strbuf_append_char(&w->out, ':');
						if (pq_variant_to_json(&w->md, fv, fv_len, &w->out, &err) != PQ_OK)
							decoder_error(w, &err);
					}
				}
				pq_strbuf_append_char(&w->out, '}');
				break;
			}
	}
	return true;
}

static bool
is_shredded_field(const PvNode *n, const uint8 *key, size_t len)
{
	for (int i = 0; i < n->num_fields; i++)
	{
		const char *name = n->fields[i]->name;

		if (strlen(name) == len && memcmp(name, key, len) == 0)
			return true;
	}
	return false;
}

/*
 * Parse the row's metadata, unless its bytes repeat the previous row's
 * (whose parse still points into this batch's buffers).
 */
static void
load_metadata(PvWalk *w, const CdcByteView *m, const CdcByteView *prev)
{
	PqError		err;

	if (prev != NULL && prev->len == m->len &&
		(prev->ptr == m->ptr || memcmp(prev->ptr, m->ptr, m->len) == 0))
		return;
	pq_error_clear(&err);
	if (pq_variant_metadata_parse(m->ptr, m->len, &w->md, &err) != PQ_OK)
		decoder_error(w, &err);
}

/*
 * The current row's value: SQL null (*isnull) for a null group, else the
 * jsonb of the reassembled value.  Consumes one entry of every leaf.
 */
static Datum
convert_one(PvWalk *w, CdcByteView *prev_md, bool *have_prev, bool convert,
			bool *isnull)
{
	PfVariantConverter *vc = w->vc;
	const CdcByteView *m;
	PqError		err;
	char	   *text;

	if (vc->optional && peek_def(w, 0) < vc->max_def)
	{
		skip_leaves(w, 0, vc->num_leaves);
		*isnull = true;
		return (Datum) 0;
	}
	*isnull = false;
	m = take(w, vc->metadata_leaf);
	if (m == NULL)
		value_error(w, "The metadata of a non-null variant is null.");
	load_metadata(w, m, *have_prev ? prev_md : NULL);
	*prev_md = *m;
	*have_prev = true;

	pq_strbuf_reset(&w->out);
	/* a missing top-level value is Variant null */
	if (!emit(w, vc->root))
		pq_strbuf_append(&w->out, "null", 4);
	pq_error_clear(&err);
	if (pq_strbuf_status(&w->out, &err) != PQ_OK)
		decoder_error(w, &err);
	text = w->out.data;
	if (convert)
		text = pg_any_to_server(text, (int) w->out.len, PG_UTF8);
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(text));
}

static inline bool
database_needs_conversion(void)
{
	return GetDatabaseEncoding() != PG_UTF8 &&
		GetDatabaseEncoding() != PG_SQL_ASCII;
}

void
pf_variant_converter_fill(PfVariantConverter *vc, const PqColumnBatch *leaf_batches,
						  uint32 num_rows, Datum *values, bool *nulls, int stride)
{
	PvWalk		w;
	PfcAllocator alloc = pf_context_allocator(CurrentMemoryContext);
	CdcByteView prev_md = {NULL, 0};
	bool		have_prev = false;
	bool		convert = database_needs_conversion();

	memset(&w, 0, sizeof(w));
	w.vc = vc;
	w.cur = palloc0(sizeof(PvCursor) * vc->num_leaves);
	for (int i = 0; i < vc->num_leaves; i++)
	{
		w.cur[i].batch = &leaf_batches[i];
		w.cur[i].max_def = vc->leaf_nodes[i]->max_def;
		w.cur[i].flat = vc->leaf_nodes[i]->max_rep == 0;
	}
	pq_strbuf_init(&w.out, &alloc, PV_MAX_JSON);

	for (uint32 r = 0; r < num_rows; r++)
	{
		size_t		k = (size_t) r * stride;

		CHECK_FOR_INTERRUPTS();
		values[k] = convert_one(&w, &prev_md, &have_prev, convert, &nulls[k]);
	}

	/* every leaf must have been consumed exactly */
	for (int i = 0; i < vc->num_leaves; i++)
		if (w.cur[i].pos != leaf_batches[i].num_levels)
			levels_error(&w);
}

Datum
pf_variant_converter_next(PfVariantConverter *vc, PfLeafPosition *leaves,
						  bool *isnull)
{
	PvWalk		w;
	PfcAllocator alloc = pf_context_allocator(CurrentMemoryContext);
	CdcByteView prev_md = {NULL, 0};
	bool		have_prev = false;
	Datum		d;

	memset(&w, 0, sizeof(w));
	w.vc = vc;
	w.cur = palloc0(sizeof(PvCursor) * vc->num_leaves);
	for (int i = 0; i < vc->num_leaves; i++)
	{
		w.cur[i].batch = leaves[i].batch;
		w.cur[i].pos = leaves[i].pos;
		w.cur[i].vpos = leaves[i].vpos;
		w.cur[i].max_def = vc->leaf_nodes[i]->max_def;
		w.cur[i].flat = vc->leaf_nodes[i]->max_rep == 0;
	}
	pq_strbuf_init(&w.out, &alloc, PV_MAX_JSON);
	d = convert_one(&w, &prev_md, &have_prev, database_needs_conversion(),
					isnull);
	for (int i = 0; i < vc->num_leaves; i++)
	{
		leaves[i].pos = w.cur[i].pos;
		leaves[i].vpos = w.cur[i].vpos;
	}
	pq_strbuf_free(&w.out);
	pfree(w.cur);
	return d;
}
