/*-------------------------------------------------------------------------
 *
 * convert_nested.c
 *	  Nested fields (STRUCT, MAP, lists of lists or of structs, VARIANT
 *	  inside them) to one jsonb per row: a record-assembly tree compiled
 *	  once per column, walked over all the field's leaves together.
 *
 * IDENTIFICATION
 *	  src/fdw/convert_nested.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "fdw/convert_internal.h"

/* How a leaf of default type typid renders inside jsonb. */
PfJsonCategory
pf_json_category(Oid typid)
{
	switch (typid)
	{
		case BOOLOID:
			return PF_JSON_BOOL;
		case INT2OID:
			return PF_JSON_INT2;
		case INT4OID:
			return PF_JSON_INT4;
		case INT8OID:
			return PF_JSON_INT8;
		case NUMERICOID:
			return PF_JSON_NUMERIC;
		case FLOAT4OID:
		case FLOAT8OID:
			return PF_JSON_FLOAT;
		case TEXTOID:
			return PF_JSON_TEXT;
		case JSONBOID:
			return PF_JSON_JSONB;
		case DATEOID:
		case TIMEOID:
		case TIMETZOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return PF_JSON_DATETIME;
		default:
			return PF_JSON_OTHER;
	}
}

typedef struct PfJsonWalk
{
	PfConverter *conv;
	PfCursor   *cur;			/* one per local leaf */
	JsonbParseState *state;
} PfJsonWalk;

/* jsonb's order of object keys: shorter first, then bytewise. */
static int
json_key_cmp(const char *a, const char *b)
{
	size_t		la = strlen(a);
	size_t		lb = strlen(b);

	if (la != lb)
		return la < lb ? -1 : 1;
	return memcmp(a, b, la);
}

/*
 * A struct over the children of a node (the node itself is not nullable).
 * The children are kept in jsonb's key order: each reads its own leaves,
 * so the order they are emitted in is free, and keys pushed already sorted
 * leave jsonb's per-object sort nothing to do.  Insertion sort: stable, so
 * of two fields with one name the later still wins.
 */
static PfNode *
build_struct(PfConverter *conv, const PqSchemaNode *node, bool optional,
			 int *next_leaf, MemoryContext cxt)
{
	PfNode	   *n = MemoryContextAllocZero(cxt, sizeof(PfNode));

	n->kind = PF_NODE_STRUCT;
	n->name = node->name;
	n->optional = optional;
	n->max_def = node->max_def;
	n->leaf_lo = *next_leaf;
	n->num_children = node->num_children;
	n->children = MemoryContextAllocZero(cxt, sizeof(PfNode *) * Max(1, node->num_children));
	for (int i = 0; i < node->num_children; i++)
	{
		const PqSchemaNode *ch = node->children[i];

		n->children[i] = pf_build_json_node(conv, ch, ch->repetition == PQ_OPTIONAL,
											next_leaf, cxt);
	}
	n->leaf_hi = *next_leaf;
	for (int i = 1; i < n->num_children; i++)
	{
		PfNode	   *ch = n->children[i];
		int			j = i;

		for (; j > 0 && json_key_cmp(n->children[j - 1]->name, ch->name) > 0; j--)
			n->children[j] = n->children[j - 1];
		n->children[j] = ch;
	}
	return n;
}

/* A node as an element: a leaf, or the struct of its children. */
static PfNode *
build_instance(PfConverter *conv, const PqSchemaNode *node, int *next_leaf,
			   MemoryContext cxt)
{
	PfNode	   *n;

	if (!node->is_leaf)
		return build_struct(conv, node, false, next_leaf, cxt);
	n = MemoryContextAllocZero(cxt, sizeof(PfNode));
	n->kind = PF_NODE_LEAF;
	n->name = node->name;
	n->max_def = node->max_def;
	n->leaf_lo = (*next_leaf)++;
	n->leaf_hi = *next_leaf;
	return n;
}

/*
 * Compile the record-assembly tree of a node whose leaves come next (from
 * *next_leaf on) in the converter's leaf list.  "optional" says whether the
 * node can be null by itself.
 */
PfNode *
pf_build_json_node(PfConverter *conv, const PqSchemaNode *node, bool optional,
				   int *next_leaf, MemoryContext cxt)
{
	PfNode	   *n;
	const PqSchemaNode *rep;
	const PqSchemaNode *elem;

	if (node->repetition == PQ_REPEATED)
		optional = false;

	if (pf_is_variant_field(node))
	{
		n = MemoryContextAllocZero(cxt, sizeof(PfNode));
		n->kind = PF_NODE_VARIANT;
		n->name = node->name;
		n->optional = optional;
		n->max_def = node->max_def;
		n->leaf_lo = *next_leaf;
		n->leaf_hi = *next_leaf + pf_count_leaves(node);
		*next_leaf = n->leaf_hi;
		n->variant = pf_variant_converter_create(conv->meta, node,
												 conv->column_name, cxt);
		n->positions = MemoryContextAllocZero(cxt, sizeof(PfLeafPosition) *
											  (n->leaf_hi - n->leaf_lo));
		/* its leaves are read as Variant bytes, never converted one by one */
		if (conv->variant_leaf == NULL)
			conv->variant_leaf = MemoryContextAllocZero(cxt, sizeof(bool) *
														conv->num_leaves);
		for (int i = n->leaf_lo; i < n->leaf_hi; i++)
			conv->variant_leaf[i] = true;
		return n;
	}

	if (pf_is_map(node, &rep))
	{
		n = MemoryContextAllocZero(cxt, sizeof(PfNode));
		n->kind = PF_NODE_MAP;
		n->name = node->name;
		n->optional = optional;
		n->max_def = node->max_def;
		n->rep_def = rep->max_def;
		n->rep_rep = rep->max_rep;
		n->leaf_lo = *next_leaf;
		n->key = build_instance(conv, rep->children[0], next_leaf, cxt);
		if (rep->num_children > 1)
			n->elem = pf_build_json_node(conv, rep->children[1],
										 rep->children[1]->repetition == PQ_OPTIONAL,
										 next_leaf, cxt);
		n->leaf_hi = *next_leaf;
		return n;
	}

	elem = pf_list_element(node, &rep);
	if (elem != NULL)
	{
		n = MemoryContextAllocZero(cxt, sizeof(PfNode));
		n->kind = PF_NODE_LIST;
		n->name = node->name;
		n->optional = optional;
		n->max_def = node->max_def;
		n->rep_def = rep->max_def;
		n->rep_rep = rep->max_rep;
		n->leaf_lo = *next_leaf;
		if (elem == rep)
			n->elem = build_instance(conv, rep, next_leaf, cxt);
		else
			n->elem = pf_build_json_node(conv, elem, elem->repetition == PQ_OPTIONAL,
										 next_leaf, cxt);
		n->leaf_hi = *next_leaf;
		return n;
	}

	if (!node->is_leaf)
		return build_struct(conv, node, optional, next_leaf, cxt);

	n = build_instance(conv, node, next_leaf, cxt);
	n->optional = optional;
	return n;
}

static inline PfCursor *
walk_cursor(PfJsonWalk *w, int leaf)
{
	PfCursor   *c = &w->cur[leaf];

	if (unlikely(c->pos >= c->batch->num_levels))
		pf_conv_levels_corrupt(w->conv->column_name);
	return c;
}

static inline int16
cursor_def(const PfCursor *c)
{
	if (c->batch->def_levels != NULL)
		return c->batch->def_levels[c->pos];
	if (c->batch->is_null != NULL && c->batch->is_null[c->pos])
		return 0;
	return c->max_def;
}

/* A null or empty node: every leaf below it has one entry to consume. */
static void
skip_node(PfJsonWalk *w, const PfNode *n)
{
	for (int i = n->leaf_lo; i < n->leaf_hi; i++)
		walk_cursor(w, i)->pos++;
}

/*
 * pf_datum_to_jsonb_value
 *		A Datum of type typid as the jsonb value to_jsonb() makes of it:
 *		numbers as numbers (NaN and infinities as strings), dates and
 *		timestamps in ISO 8601, jsonb as itself, anything else as its text.
 *		out_func is typid's output function.
 */
void
pf_datum_to_jsonb_value(Datum d, Oid typid, FmgrInfo *out_func, JsonbValue *v)
{
	char		buf[MAXDATELEN + 1];

	switch (pf_json_category(typid))
	{
		case PF_JSON_BOOL:
			v->type = jbvBool;
			v->val.boolean = DatumGetBool(d);
			break;
		case PF_JSON_INT2:
			v->type = jbvNumeric;
			v->val.numeric = int64_to_numeric(DatumGetInt16(d));
			break;
		case PF_JSON_INT4:
			v->type = jbvNumeric;
			v->val.numeric = int64_to_numeric(DatumGetInt32(d));
			break;
		case PF_JSON_INT8:
			v->type = jbvNumeric;
			v->val.numeric = int64_to_numeric(DatumGetInt64(d));
			break;
		case PF_JSON_NUMERIC:
			v->type = jbvNumeric;
			v->val.numeric = DatumGetNumeric(d);
			break;
		case PF_JSON_FLOAT:
			{
				double		f = typid == FLOAT4OID ?
					(double) DatumGetFloat4(d) : DatumGetFloat8(d);
				char	   *s = OutputFunctionCall(out_func, d);

				if (isnan(f) || isinf(f))
				{
					v->type = jbvString;
					v->val.string.val = s;
					v->val.string.len = strlen(s);
				}
				else
				{
					v->type = jbvNumeric;
					v->val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
																		CStringGetDatum(s),
																		ObjectIdGetDatum(InvalidOid),
																		Int32GetDatum(-1)));
				}
				break;
			}
		case PF_JSON_TEXT:
			v->type = jbvString;
			v->val.string.val = VARDATA_ANY(DatumGetPointer(d));
			v->val.string.len = VARSIZE_ANY_EXHDR(DatumGetPointer(d));
			break;
		case PF_JSON_JSONB:
			{
				Jsonb	   *jb = DatumGetJsonbP(d);

				if (JB_ROOT_IS_SCALAR(jb))
				{
					if (!JsonbExtractScalar(&jb->root, v))
						elog(ERROR, "could not extract jsonb scalar");
				}
				else
				{
					v->type = jbvBinary;
					v->val.binary.data = &jb->root;
					v->val.binary.len = VARSIZE(jb) - VARHDRSZ;
				}
				break;
			}
		case PF_JSON_DATETIME:
			{
				char	   *s = JsonEncodeDateTime(buf, d, typid, NULL);

				v->type = jbvString;
				v->val.string.val = pstrdup(s);
				v->val.string.len = strlen(s);
				break;
			}
		case PF_JSON_OTHER:
		default:
			{
				char	   *s = OutputFunctionCall(out_func, d);

				v->type = jbvString;
				v->val.string.val = s;
				v->val.string.len = strlen(s);
				break;
			}
	}
}

/* Push a leaf's Datum as a jsonb scalar (or container). */
static JsonbValue *
push_leaf_value(PfJsonWalk *w, int leaf, Datum d, JsonbIteratorToken tok)
{
	const PfScalar *sc = &w->conv->scalars[leaf];
	JsonbValue	v;

	pf_datum_to_jsonb_value(d, sc->typid, (FmgrInfo *) &sc->out_func, &v);
	return pushJsonbValue(&w->state, tok, &v);
}

static JsonbValue *
push_null(PfJsonWalk *w, JsonbIteratorToken tok)
{
	JsonbValue	v;

	v.type = jbvNull;
	return pushJsonbValue(&w->state, tok, &v);
}

static JsonbValue *
push_key(PfJsonWalk *w, const char *key, int len)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) key;
	v.val.string.len = len;
	return pushJsonbValue(&w->state, WJB_KEY, &v);
}

/* The text of a map key (to_jsonb's rules for keys). */
static void
map_key_text(PfJsonWalk *w, int leaf, Datum d, char **str, int *len)
{
	const PfScalar *sc = &w->conv->scalars[leaf];
	char		buf[MAXDATELEN + 1];

	switch (sc->json_cat)
	{
		case PF_JSON_TEXT:
			*str = VARDATA_ANY(DatumGetPointer(d));
			*len = VARSIZE_ANY_EXHDR(DatumGetPointer(d));
			return;
		case PF_JSON_BOOL:
			*str = DatumGetBool(d) ? "true" : "false";
			break;
		case PF_JSON_DATETIME:
			*str = pstrdup(JsonEncodeDateTime(buf, d, sc->typid, NULL));
			break;
		default:
			*str = OutputFunctionCall((FmgrInfo *) &sc->out_func, d);
			break;
	}
	*len = strlen(*str);
}

/* Consume one leaf entry; returns whether a value is there and sets *d. */
static bool
take_leaf(PfJsonWalk *w, int leaf, Datum *d)
{
	PfCursor   *c = walk_cursor(w, leaf);
	int16		def = cursor_def(c);
	uint32		vi;

	if (c->flat)
		vi = c->pos;
	else if (def >= c->max_def)
		vi = c->vpos++;
	else
		vi = 0;
	c->pos++;
	if (def < c->max_def)
		return false;
	if (unlikely(vi >= (c->flat ? c->batch->num_levels : c->batch->num_values)))
		pf_conv_levels_corrupt(w->conv->column_name);
	if (c->nulls[vi])
		return false;
	*d = c->values[vi];
	return true;
}

static JsonbValue *emit_node(PfJsonWalk *w, const PfNode *n, JsonbIteratorToken tok);

/* Is there another element of the repeated node at the first leaf? */
static inline bool
more_elements(PfJsonWalk *w, const PfNode *n)
{
	PfCursor   *c = &w->cur[n->leaf_lo];

	return c->pos < c->batch->num_levels &&
		c->batch->rep_levels != NULL &&
		c->batch->rep_levels[c->pos] >= n->rep_rep;
}

/* A nested VARIANT's value, reassembled by convert_variant.c, spliced in. */
static JsonbValue *
emit_variant(PfJsonWalk *w, const PfNode *n, JsonbIteratorToken tok)
{
	int			nleaves = n->leaf_hi - n->leaf_lo;
	PfLeafPosition *lp = n->positions;
	JsonbValue	v;
	Jsonb	   *jb;
	Datum		d;
	bool		isnull;

	for (int i = 0; i < nleaves; i++)
	{
		PfCursor   *c = &w->cur[n->leaf_lo + i];

		lp[i].batch = c->batch;
		lp[i].pos = c->pos;
		lp[i].vpos = c->vpos;
	}
	d = pf_variant_converter_next(n->variant, lp, &isnull);
	for (int i = 0; i < nleaves; i++)
	{
		PfCursor   *c = &w->cur[n->leaf_lo + i];

		c->pos = lp[i].pos;
		c->vpos = lp[i].vpos;
	}
	if (isnull)
		return push_null(w, tok);
	jb = DatumGetJsonbP(d);
	v.type = jbvBinary;
	v.val.binary.data = &jb->root;
	v.val.binary.len = VARSIZE(jb) - VARHDRSZ;
	return pushJsonbValue(&w->state, tok, &v);
}

static JsonbValue *
emit_node(PfJsonWalk *w, const PfNode *n, JsonbIteratorToken tok)
{
	JsonbValue *res;

	if (n->optional && n->leaf_hi > n->leaf_lo &&
		cursor_def(walk_cursor(w, n->leaf_lo)) < n->max_def)
	{
		skip_node(w, n);
		return push_null(w, tok);
	}

	switch (n->kind)
	{
		case PF_NODE_LEAF:
			{
				Datum		d;

				if (take_leaf(w, n->leaf_lo, &d))
					return push_leaf_value(w, n->leaf_lo, d, tok);
				return push_null(w, tok);
			}
		case PF_NODE_STRUCT:
			pushJsonbValue(&w->state, WJB_BEGIN_OBJECT, NULL);
			for (int i = 0; i < n->num_children; i++)
			{
				const PfNode *ch = n->children[i];

				push_key(w, ch->name, strlen(ch->name));
				emit_node(w, ch, WJB_VALUE);
			}
			return pushJsonbValue(&w->state, WJB_END_OBJECT, NULL);
		case PF_NODE_LIST:
			pushJsonbValue(&w->state, WJB_BEGIN_ARRAY, NULL);
			if (cursor_def(walk_cursor(w, n->leaf_lo)) < n->rep_def)
				skip_node(w, n);
			else
			{
				do
				{
					emit_node(w, n->elem, WJB_ELEM);
				} while (more_elements(w, n));
			}
			return pushJsonbValue(&w->state, WJB_END_ARRAY, NULL);
		case PF_NODE_VARIANT:
			return emit_variant(w, n, tok);
		case PF_NODE_MAP:
			pushJsonbValue(&w->state, WJB_BEGIN_OBJECT, NULL);
			if (cursor_def(walk_cursor(w, n->leaf_lo)) < n->rep_def)
				skip_node(w, n);
			else
			{
				do
				{
					Datum		kd;
					char	   *ks;
					int			klen;

					if (n->key->kind != PF_NODE_LEAF || !take_leaf(w, n->key->leaf_lo, &kd))
						ereport(ERROR,
								(errcode(ERRCODE_DATA_CORRUPTED),
								 errmsg("null or nested map key in column \"%s\"",
										w->conv->column_name)));
					map_key_text(w, n->key->leaf_lo, kd, &ks, &klen);
					push_key(w, ks, klen);
					if (n->elem != NULL)
						emit_node(w, n->elem, WJB_VALUE);
					else
						push_null(w, WJB_VALUE);
				} while (more_elements(w, n));
			}
			return pushJsonbValue(&w->state, WJB_END_OBJECT, NULL);
	}
	res = NULL;
	return res;
}

void
pf_fill_json_column(PfConverter *conv, const PqColumnBatch *batches,
					uint32 num_rows, Datum *values, bool *nulls, int stride)
{
	PfJsonWalk	w;
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext row_cxt;

	w.conv = conv;
	w.state = NULL;
	w.cur = palloc0(sizeof(PfCursor) * conv->num_leaves);

	/* convert every leaf's values once */
	for (int i = 0; i < conv->num_leaves; i++)
	{
		const PqColumnBatch *b = &batches[i];
		const PfScalar *sc = &conv->scalars[i];
		PfCursor   *c = &w.cur[i];
		uint32		n;

		c->batch = b;
		c->max_def = sc->node->max_def;
		c->flat = sc->node->max_rep == 0;
		n = c->flat ? b->num_levels : b->num_values;
		if (conv->variant_leaf != NULL && conv->variant_leaf[i])
			continue;			/* read as Variant bytes by emit_variant() */
		c->values = palloc(sizeof(Datum) * (n + 1));
		c->nulls = palloc(sizeof(bool) * (n + 1));
		if (c->flat)
		{
			/* row-aligned values: skip the slots whose levels say absent */
			bool	   *absent = palloc(sizeof(bool) * (n + 1));

			for (uint32 j = 0; j < n; j++)
				absent[j] = (b->is_null != NULL && b->is_null[j]) ||
					(b->def_levels != NULL && b->def_levels[j] < c->max_def);
			sc->fill(sc, b->values, absent, n, c->values, c->nulls, 1);
			pfree(absent);
		}
		else
			sc->fill(sc, b->values, NULL, n, c->values, c->nulls, 1);
	}

	/*
	 * A row's jsonb is built in a context reset after every row: the
	 * building leaves garbage several times the result's size (the parse
	 * state, numerics, a 1 kB buffer), which would otherwise pile up in
	 * the caller's context until the batch ends, faulting in fresh pages.
	 */
	row_cxt = AllocSetContextCreate(caller, "parquet_fdw jsonb row",
									ALLOCSET_DEFAULT_SIZES);
	for (uint32 r = 0; r < num_rows; r++)
	{
		size_t		k = (size_t) r * stride;
		const PfNode *root = conv->root;
		JsonbValue *res;
		Jsonb	   *jb;

		if (root->optional &&
			cursor_def(walk_cursor(&w, root->leaf_lo)) < root->max_def)
		{
			skip_node(&w, root);
			values[k] = (Datum) 0;
			nulls[k] = true;
			continue;
		}
		if (root->kind == PF_NODE_LEAF)
		{
			/* cannot happen: scalar fields do not take this path */
			values[k] = (Datum) 0;
			nulls[k] = true;
			continue;
		}
		w.state = NULL;
		MemoryContextSwitchTo(row_cxt);
		res = emit_node(&w, root, WJB_VALUE);
		jb = JsonbValueToJsonb(res);
		MemoryContextSwitchTo(caller);
		values[k] = PointerGetDatum(memcpy(palloc(VARSIZE(jb)), jb, VARSIZE(jb)));
		nulls[k] = false;
		MemoryContextReset(row_cxt);
	}
	MemoryContextDelete(row_cxt);

	/* every leaf must have been consumed exactly */
	for (int i = 0; i < conv->num_leaves; i++)
		if (w.cur[i].pos != batches[i].num_levels)
			pf_conv_levels_corrupt(conv->column_name);

	pf_cast_apply(conv->cast, values, nulls, num_rows, stride,
				  pf_conv_failed_slot());
}

/* VARIANT group: reassembled to jsonb by convert_variant.c, then the cast. */
void
pf_fill_variant_column(PfConverter *conv, const PqColumnBatch *batches,
					   uint32 num_rows, Datum *values, bool *nulls, int stride)
{
	pf_variant_converter_fill(conv->variant, batches, num_rows, values, nulls,
							  stride);
	pf_cast_apply(conv->cast, values, nulls, num_rows, stride,
				  pf_conv_failed_slot());
}

