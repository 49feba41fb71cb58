/*-------------------------------------------------------------------------
 *
 * convert_mapping.c
 *	  The default PostgreSQL type of a Parquet field (pf_default_type) and the
 *	  shapes of its schema the converter builds on: lists, maps, leaves.
 *
 * IDENTIFICATION
 *	  src/fdw/convert_mapping.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <string.h>

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/uuid.h"

#include "fdw/convert_internal.h"

/* numeric(p,s) typmod, or -1 when p,s do not fit numeric's limits. */
static int32
numeric_typmod(int32 precision, int32 scale)
{
	if (precision < 1 || precision > NUMERIC_MAX_PRECISION ||
		scale < 0 || scale > precision)
		return -1;
	return ((precision << 16) | scale) + VARHDRSZ;
}

/*
 * Choose the scalar fill function and default type of a leaf.  Annotations
 * that do not fit the physical type are ignored (the physical type's mapping
 * is used).
 */
void
pf_scalar_mapping(const PqSchemaNode *leaf, PfScalarFill *fill, Oid *typid,
				  int32 *typmod)
{
	const PqLogicalType *lt = &leaf->logical;
	PqPhysicalType phys = leaf->physical;
	PfScalarFill f = NULL;
	Oid			t = InvalidOid;
	int32		m = -1;

	switch (lt->kind)
	{
		case PQ_LT_NULL:
			f = pf_fill_all_null;
			t = TEXTOID;
			break;
		case PQ_LT_STRING:
		case PQ_LT_ENUM:
			if (phys == PQ_BYTE_ARRAY || phys == PQ_FIXED_LEN_BYTE_ARRAY)
			{
				f = pf_fill_text;
				t = TEXTOID;
			}
			break;
		case PQ_LT_JSON:
			if (phys == PQ_BYTE_ARRAY || phys == PQ_FIXED_LEN_BYTE_ARRAY)
			{
				f = pf_fill_jsonb;
				t = JSONBOID;
			}
			break;
		case PQ_LT_UUID:
			if (phys == PQ_FIXED_LEN_BYTE_ARRAY && leaf->type_length == UUID_LEN)
			{
				f = pf_fill_uuid;
				t = UUIDOID;
			}
			break;
		case PQ_LT_FLOAT16:
			if (phys == PQ_FIXED_LEN_BYTE_ARRAY && leaf->type_length == 2)
			{
				f = pf_fill_float16;
				t = FLOAT4OID;
			}
			break;
		case PQ_LT_INTERVAL:
			if (phys == PQ_FIXED_LEN_BYTE_ARRAY && leaf->type_length == 12)
			{
				f = pf_fill_interval;
				t = INTERVALOID;
			}
			break;
		case PQ_LT_DECIMAL:
			m = numeric_typmod(lt->precision, lt->scale);
			t = NUMERICOID;
			if (phys == PQ_INT32)
				f = pf_fill_dec32;
			else if (phys == PQ_INT64)
				f = pf_fill_dec64;
			else if (phys == PQ_BYTE_ARRAY || phys == PQ_FIXED_LEN_BYTE_ARRAY)
				f = pf_fill_dec_bytes;
			else
			{
				t = InvalidOid;
				m = -1;
			}
			break;
		case PQ_LT_DATE:
			if (phys == PQ_INT32)
			{
				f = pf_fill_date;
				t = DATEOID;
			}
			break;
		case PQ_LT_TIME:
			t = lt->utc_adjusted ? TIMETZOID : TIMEOID;
			if (phys == PQ_INT32 && lt->unit == PQ_UNIT_MILLIS)
				f = lt->utc_adjusted ? pf_fill_timetz_ms : pf_fill_time_ms;
			else if (phys == PQ_INT64 && lt->unit == PQ_UNIT_MICROS)
				f = lt->utc_adjusted ? pf_fill_timetz_us : pf_fill_time_us;
			else if (phys == PQ_INT64 && lt->unit == PQ_UNIT_NANOS)
				f = lt->utc_adjusted ? pf_fill_timetz_ns : pf_fill_time_ns;
			else
				t = InvalidOid;
			break;
		case PQ_LT_TIMESTAMP:
			if (phys == PQ_INT64)
			{
				t = lt->utc_adjusted ? TIMESTAMPTZOID : TIMESTAMPOID;
				f = lt->unit == PQ_UNIT_MILLIS ? pf_fill_ts_ms :
					lt->unit == PQ_UNIT_MICROS ? pf_fill_ts_us : pf_fill_ts_ns;
			}
			else if (phys == PQ_INT96)
			{
				t = lt->utc_adjusted ? TIMESTAMPTZOID : TIMESTAMPOID;
				f = pf_fill_int96;
			}
			break;
		case PQ_LT_INTEGER:
			if (phys == PQ_INT32)
			{
				if (lt->is_signed)
				{
					if (lt->bit_width == 8)
						f = pf_fill_s8_int2, t = INT2OID;
					else if (lt->bit_width == 16)
						f = pf_fill_s16_int2, t = INT2OID;
					else
						f = pf_fill_int4, t = INT4OID;
				}
				else
				{
					if (lt->bit_width == 8)
						f = pf_fill_u8_int2, t = INT2OID;
					else if (lt->bit_width == 16)
						f = pf_fill_u16_int4, t = INT4OID;
					else
						f = pf_fill_u32_int8, t = INT8OID;
				}
			}
			else if (phys == PQ_INT64)
			{
				if (lt->is_signed)
					f = pf_fill_int8, t = INT8OID;
				else if (lt->bit_width == 64)
					f = pf_fill_u64_numeric, t = NUMERICOID;
				else
					f = pf_fill_u32_int8_from64, t = INT8OID;
			}
			break;
		default:
			/* BSON, VARIANT, GEOMETRY, GEOGRAPHY, unknown: by physical type */
			break;
	}

	if (f == NULL)
	{
		m = -1;
		switch (phys)
		{
			case PQ_BOOLEAN:
				f = pf_fill_bool, t = BOOLOID;
				break;
			case PQ_INT32:
				f = pf_fill_int4, t = INT4OID;
				break;
			case PQ_INT64:
				f = pf_fill_int8, t = INT8OID;
				break;
			case PQ_INT96:
				f = pf_fill_int96, t = TIMESTAMPOID;
				break;
			case PQ_FLOAT:
				f = pf_fill_float4, t = FLOAT4OID;
				break;
			case PQ_DOUBLE:
				f = pf_fill_float8, t = FLOAT8OID;
				break;
			case PQ_BYTE_ARRAY:
			case PQ_FIXED_LEN_BYTE_ARRAY:
			default:
				f = pf_fill_bytea, t = BYTEAOID;
				break;
		}
	}
	*fill = f;
	*typid = t;
	*typmod = m;
}

/*
 * The element of a list-shaped node, following the backward-compatibility
 * rules of the Parquet LIST specification.  *repeated gets the repeated node;
 * the element is either a child of it (3-level form) or the repeated node
 * itself (2-level forms, repeated fields without annotation).  Returns NULL
 * when the node is not a list.
 */
const PqSchemaNode *
pf_list_element(const PqSchemaNode *node, const PqSchemaNode **repeated)
{
	const PqSchemaNode *rep;

	if (node->repetition == PQ_REPEATED)
	{
		/* a repeated field without LIST annotation: list of required items */
		*repeated = node;
		return node;
	}
	if (node->is_leaf || node->logical.kind != PQ_LT_LIST ||
		node->num_children != 1 ||
		node->children[0]->repetition != PQ_REPEATED)
		return NULL;

	rep = node->children[0];
	*repeated = rep;
	if (rep->is_leaf)
		return rep;
	if (rep->num_children == 1)
	{
		size_t		nlen = strlen(node->name);

		if (strcmp(rep->name, "array") == 0 ||
			(strncmp(rep->name, node->name, nlen) == 0 &&
			 strcmp(rep->name + nlen, "_tuple") == 0))
			return rep;			/* the repeated group is the element */
		return rep->children[0];
	}
	return rep;					/* repeated group of several fields */
}

/* Is the node a MAP (or legacy MAP_KEY_VALUE)?  Sets *kv to the repeated group. */
bool
pf_is_map(const PqSchemaNode *node, const PqSchemaNode **kv)
{
	const PqSchemaNode *rep;

	if (node->is_leaf || node->repetition == PQ_REPEATED ||
		node->num_children != 1)
		return false;
	rep = node->children[0];
	if (rep->repetition != PQ_REPEATED || rep->is_leaf ||
		rep->num_children < 1 || rep->num_children > 2)
		return false;
	if (node->logical.kind != PQ_LT_MAP &&
		rep->logical.kind != PQ_LT_MAP_KEY_VALUE &&
		node->logical.kind != PQ_LT_MAP_KEY_VALUE)
		return false;
	*kv = rep;
	return true;
}

/* The scalar leaf element of a list of scalars, else NULL. */
const PqSchemaNode *
pf_list_scalar_element(const PqSchemaNode *field, const PqSchemaNode **repeated)
{
	const PqSchemaNode *elem = pf_list_element(field, repeated);

	if (elem == NULL || !elem->is_leaf)
		return NULL;
	if (elem != *repeated && elem->repetition == PQ_REPEATED)
		return NULL;
	return elem;
}

/*
 * pf_default_type
 *		The PostgreSQL type a top-level field maps to by default.
 */
void
pf_default_type(const PqSchemaNode *field, Oid *typid, int32 *typmod)
{
	const PqSchemaNode *rep;
	const PqSchemaNode *elem;
	PfScalarFill fill;

	if (field->is_leaf && field->repetition != PQ_REPEATED)
	{
		pf_scalar_mapping(field, &fill, typid, typmod);
		return;
	}
	elem = pf_list_scalar_element(field, &rep);
	if (elem != NULL)
	{
		Oid			elemtyp;
		int32		elemmod;
		Oid			arrtyp;

		pf_scalar_mapping(elem, &fill, &elemtyp, &elemmod);
		arrtyp = get_array_type(elemtyp);
		if (OidIsValid(arrtyp))
		{
			*typid = arrtyp;
			*typmod = elemmod;
			return;
		}
	}
	*typid = JSONBOID;
	*typmod = -1;
}

/*
 * pf_default_type_sql
 *		The default type as SQL spells it, e.g. "numeric(10,2)".
 */
char *
pf_default_type_sql(const PqSchemaNode *field)
{
	Oid			typid;
	int32		typmod;

	pf_default_type(field, &typid, &typmod);
	return format_type_with_typemod(typid, typmod);
}

/* Count the leaves below a node (including itself). */
int
pf_count_leaves(const PqSchemaNode *node)
{
	int			n = 0;

	if (node->is_leaf)
		return 1;
	for (int i = 0; i < node->num_children; i++)
		n += pf_count_leaves(node->children[i]);
	return n;
}

/* "INT32 (DATE)", "group (LIST)": the file's type of a field, for messages. */
char *
pf_describe_parquet_type(const PqSchemaNode *node)
{
	const char *phys = node->is_leaf ? pq_physical_type_name(node->physical) : "group";

	if (node->repetition == PQ_REPEATED)
		return psprintf("repeated %s", phys);
	if (node->logical.kind == PQ_LT_NONE)
		return pstrdup(phys);
	if (node->logical.kind == PQ_LT_DECIMAL)
		return psprintf("%s (DECIMAL(%d,%d))", phys,
						node->logical.precision, node->logical.scale);
	return psprintf("%s (%s)", phys, pq_logical_kind_name(node->logical.kind));
}

