/*-------------------------------------------------------------------------
 *
 * schema.c
 *	  Schema tree, definition/repetition levels, leaves, and the folding of
 *	  legacy ConvertedType annotations into PqLogicalType.
 *
 * The footer stores the schema as a depth-first list of SchemaElements in
 * which a group says how many children follow it.  The tree is rebuilt with
 * an explicit stack, so hostile counts cannot recurse: a group that claims
 * more children than elements remain, elements left over after the root's
 * children, or nesting deeper than PQ_MAX_SCHEMA_DEPTH are PQ_ERR_CORRUPT.
 * Each element gets exactly one parent by construction, so there are no
 * cycles to look for.
 *
 * An element is a group when num_children > 0; otherwise it is a leaf and
 * must carry a physical type.  An element with num_children = 0 and no
 * type is an empty group (some writers emit those for empty structs).
 *
 * Levels: a node's max_def counts the non-REQUIRED nodes on the path from
 * below the root to it, inclusive; max_rep counts the REPEATED ones.
 *
 * IDENTIFICATION
 *	  src/parquet/schema.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/pq_internal.h"

#include <string.h>

/*
 * Fold a ConvertedType.  The legacy TIME_* and TIMESTAMP_* types are
 * UTC-normalized by definition (parquet LogicalTypes.md, backward
 * compatibility section), hence utc_adjusted = true.
 */
PqLogicalType
pq_logical_from_converted(int32_t converted_type, int32_t precision,
						  int32_t scale)
{
	PqLogicalType lt;

	memset(&lt, 0, sizeof(lt));
	lt.kind = PQ_LT_NONE;
	switch (converted_type)
	{
		case PQ_CT_UTF8:
			lt.kind = PQ_LT_STRING;
			break;
		case PQ_CT_MAP:
			lt.kind = PQ_LT_MAP;
			break;
		case PQ_CT_MAP_KEY_VALUE:
			lt.kind = PQ_LT_MAP_KEY_VALUE;
			break;
		case PQ_CT_LIST:
			lt.kind = PQ_LT_LIST;
			break;
		case PQ_CT_ENUM:
			lt.kind = PQ_LT_ENUM;
			break;
		case PQ_CT_DECIMAL:
			lt.kind = PQ_LT_DECIMAL;
			lt.precision = precision;
			lt.scale = scale;
			break;
		case PQ_CT_DATE:
			lt.kind = PQ_LT_DATE;
			break;
		case PQ_CT_TIME_MILLIS:
		case PQ_CT_TIME_MICROS:
			lt.kind = PQ_LT_TIME;
			lt.unit = converted_type == PQ_CT_TIME_MILLIS ? PQ_UNIT_MILLIS : PQ_UNIT_MICROS;
			lt.utc_adjusted = true;
			break;
		case PQ_CT_TIMESTAMP_MILLIS:
		case PQ_CT_TIMESTAMP_MICROS:
			lt.kind = PQ_LT_TIMESTAMP;
			lt.unit = converted_type == PQ_CT_TIMESTAMP_MILLIS ? PQ_UNIT_MILLIS : PQ_UNIT_MICROS;
			lt.utc_adjusted = true;
			break;
		case PQ_CT_UINT_8:
		case PQ_CT_UINT_16:
		case PQ_CT_UINT_32:
		case PQ_CT_UINT_64:
			lt.kind = PQ_LT_INTEGER;
			lt.bit_width = (int8_t) (8 << (converted_type - PQ_CT_UINT_8));
			lt.is_signed = false;
			break;
		case PQ_CT_INT_8:
		case PQ_CT_INT_16:
		case PQ_CT_INT_32:
		case PQ_CT_INT_64:
			lt.kind = PQ_LT_INTEGER;
			lt.bit_width = (int8_t) (8 << (converted_type - PQ_CT_INT_8));
			lt.is_signed = true;
			break;
		case PQ_CT_JSON:
			lt.kind = PQ_LT_JSON;
			break;
		case PQ_CT_BSON:
			lt.kind = PQ_LT_BSON;
			break;
		case PQ_CT_INTERVAL:
			lt.kind = PQ_LT_INTERVAL;
			break;
		default:
			/* absent (-1) or a value this build does not know */
			if (converted_type >= 0)
				lt.kind = PQ_LT_OTHER;
			break;
	}
	return lt;
}

/* The logical type of an element: LogicalType wins over ConvertedType. */
static PqLogicalType
element_logical(const PqRawSchemaElement *e)
{
	if (e->has_logical && e->logical.kind != PQ_LT_OTHER)
		return e->logical;
	if (e->converted_type >= 0)
		return pq_logical_from_converted(e->converted_type,
										 e->has_precision ? e->precision : 0,
										 e->has_scale ? e->scale : 0);
	if (e->has_logical)
		return e->logical;		/* an unknown annotation, nothing to fall back on */
	return pq_logical_from_converted(-1, 0, 0);
}

/* Fill a node from its element; false (err set) if the element is invalid. */
static bool
init_node(PqSchemaNode *node, const PqRawSchemaElement *e, int index,
		  PqError *err)
{
	node->name = e->name;
	node->converted_type = e->converted_type;
	node->field_id = e->field_id;
	node->logical = element_logical(e);
	node->leaf_index = -1;
	node->type_length = e->type_length >= 0 ? e->type_length : 0;

	if (e->has_num_children && e->num_children < 0)
	{
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "schema element %d (\"%s\") has a negative number of children",
					 index, e->name);
		return false;
	}
	if (index == 0)
	{
		/* The root: a group whatever its repetition says. */
		if (!e->has_num_children)
		{
			pq_error_set(err, PQ_ERR_CORRUPT, "schema root \"%s\" is not a group",
						 e->name);
			return false;
		}
		node->repetition = PQ_REQUIRED;
		return true;
	}

	if (e->has_repetition)
	{
		if (e->repetition < PQ_REQUIRED || e->repetition > PQ_REPEATED)
		{
			pq_error_set(err, PQ_ERR_CORRUPT,
						 "schema element \"%s\" has invalid repetition %d",
						 e->name, e->repetition);
			return false;
		}
		node->repetition = (PqRepetition) e->repetition;
	}
	else
		node->repetition = PQ_REQUIRED;

	if (e->has_num_children && e->num_children > 0)
		return true;			/* a group */
	if (!e->has_type)
	{
		if (e->has_num_children)
			return true;		/* an empty group */
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "schema element \"%s\" has neither a type nor children",
					 e->name);
		return false;
	}
	if (e->type < PQ_BOOLEAN || e->type > PQ_FIXED_LEN_BYTE_ARRAY)
	{
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "schema element \"%s\" has invalid physical type %d",
					 e->name, e->type);
		return false;
	}
	if (e->type == PQ_FIXED_LEN_BYTE_ARRAY && e->type_length <= 0)
	{
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "fixed_len_byte_array column \"%s\" has invalid type_length %d",
					 e->name, e->type_length);
		return false;
	}
	node->is_leaf = true;
	node->physical = (PqPhysicalType) e->type;

	/* Converters size numerics from these; nonsense here is corruption. */
	if (node->logical.kind == PQ_LT_DECIMAL &&
		(node->logical.precision < 1 || node->logical.scale < 0 ||
		 node->logical.scale > node->logical.precision))
	{
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "decimal column \"%s\" has invalid precision %d and scale %d",
					 e->name, node->logical.precision, node->logical.scale);
		return false;
	}
	return true;
}

/* "a.b.c": the names from below the root down to the leaf. */
static const char *
leaf_path(PqArena *arena, const PqSchemaNode *leaf)
{
	size_t		len = 0;
	const PqSchemaNode *n;
	char	   *path;
	char	   *p;

	for (n = leaf; n->parent != NULL; n = n->parent)
		len += strlen(n->name) + 1;
	path = pq_arena_alloc(arena, len > 0 ? len : 1);
	if (path == NULL)
		return NULL;
	p = path + (len > 0 ? len - 1 : 0);
	*p = '\0';
	for (n = leaf; n->parent != NULL; n = n->parent)
	{
		size_t		nl = strlen(n->name);

		p -= nl;
		memcpy(p, n->name, nl);
		if (p > path)
			*--p = '.';
	}
	return path;
}

PqStatus
pq_schema_build(PqArena *arena, const PqRawSchemaElement *elems,
				int num_elems, PqFileMeta *meta, PqError *err)
{
	PqSchemaNode *nodes;
	PqSchemaNode *stack[PQ_MAX_SCHEMA_DEPTH + 1];
	int			depth = 0;
	int			num_leaves = 0;
	PqLeaf	   *leaves;

	if (num_elems < 1)
	{
		pq_error_set(err, PQ_ERR_CORRUPT, "file schema is empty");
		return err->status;
	}
	nodes = pq_arena_calloc(arena, (size_t) num_elems, sizeof(PqSchemaNode));
	if (nodes == NULL)
	{
		pq_error_oom(err);
		return err->status;
	}

	for (int i = 0; i < num_elems; i++)
	{
		PqSchemaNode *node = &nodes[i];
		const PqRawSchemaElement *e = &elems[i];

		if (!init_node(node, e, i, err))
			return err->status;

		if (i > 0)
		{
			PqSchemaNode *parent;

			/* Close the groups whose children are all placed. */
			while (depth > 0 &&
				   stack[depth - 1]->num_children == elems[stack[depth - 1] - nodes].num_children)
				depth--;
			if (depth == 0)
			{
				pq_error_set(err, PQ_ERR_CORRUPT,
							 "schema has %d elements beyond the root's %d children",
							 num_elems - i, elems[0].num_children);
				return err->status;
			}
			parent = stack[depth - 1];
			node->parent = parent;
			parent->children[parent->num_children++] = node;
			node->max_def = parent->max_def + (node->repetition != PQ_REQUIRED ? 1 : 0);
			node->max_rep = parent->max_rep + (node->repetition == PQ_REPEATED ? 1 : 0);
		}

		if (node->is_leaf)
		{
			node->leaf_index = num_leaves++;
			continue;
		}

		/* A group: make room for its children and descend into it. */
		if (e->num_children > num_elems - 1 - i)
		{
			pq_error_set(err, PQ_ERR_CORRUPT,
						 "schema element \"%s\" declares %d children but only %d elements follow",
						 e->name, e->num_children, num_elems - 1 - i);
			return err->status;
		}
		if (e->num_children > 0)
		{
			if (depth >= PQ_MAX_SCHEMA_DEPTH)
			{
				pq_error_set(err, PQ_ERR_CORRUPT,
							 "schema is nested deeper than %d levels",
							 PQ_MAX_SCHEMA_DEPTH);
				return err->status;
			}
			node->children = pq_arena_calloc(arena, (size_t) e->num_children,
											 sizeof(PqSchemaNode *));
			if (node->children == NULL)
			{
				pq_error_oom(err);
				return err->status;
			}
			stack[depth++] = node;
		}
	}

	/* Every group must have received all its children. */
	while (depth > 0)
	{
		PqSchemaNode *g = stack[--depth];
		const PqRawSchemaElement *e = &elems[g - nodes];

		if (g->num_children != e->num_children)
		{
			pq_error_set(err, PQ_ERR_CORRUPT,
						 "schema element \"%s\" declares %d children but has %d",
						 e->name, e->num_children, g->num_children);
			return err->status;
		}
	}

	leaves = pq_arena_calloc(arena, num_leaves > 0 ? (size_t) num_leaves : 1,
							 sizeof(PqLeaf));
	if (leaves == NULL)
	{
		pq_error_oom(err);
		return err->status;
	}
	for (int i = 0; i < num_elems; i++)
	{
		PqSchemaNode *node = &nodes[i];
		PqLeaf	   *leaf;

		if (!node->is_leaf)
			continue;
		leaf = &leaves[node->leaf_index];
		leaf->node = node;
		leaf->max_def = node->max_def;
		leaf->max_rep = node->max_rep;
		leaf->path = leaf_path(arena, node);
		if (leaf->path == NULL)
		{
			pq_error_oom(err);
			return err->status;
		}
	}

	meta->root = &nodes[0];
	meta->num_leaves = num_leaves;
	meta->leaves = leaves;
	return PQ_OK;
}
