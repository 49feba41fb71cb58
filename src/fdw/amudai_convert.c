/*-------------------------------------------------------------------------
 *
 * amudai_convert.c
 *	  Amudai shard values to PostgreSQL Datums, a batch at a time.
 *
 * A converter is built once per column and shard: it knows the field's
 * basic type, the default PostgreSQL type it maps to (format notes,
 * appendix B) and how to reach the declared type.  Each batch is decoded
 * by the field reader, then converted by one loop per kind (no per-row
 * type switch).  Declared types other than the default are reached
 * through the cast layer (cast.h), which also reads DateTime (a UTC
 * instant) declared timestamp or date in UTC.
 *
 * Mapping: Boolean -> bool; Int8 -> int2; Int16 -> int2 (unsigned: int4);
 * Int32 -> int4 (unsigned: int8); Int64 -> int8 (unsigned: int8, values
 * above its range are an error); Float32/64 -> real/double precision;
 * String -> text; Binary and FixedSizeBinary -> bytea; Guid -> uuid (the 16
 * stored bytes in order, or with the first three groups byte-swapped for
 * shards written with .NET's layout: table option guid_byte_order); DateTime (100 ns ticks from 0001-01-01 UTC) ->
 * timestamptz; Int64 + KustoTimeSpan -> interval; FixedSizeBinary(16) +
 * KustoDecimal -> numeric; List of those -> one-dimensional arrays;
 * Struct, Map, FixedSizeList and lists of nested values -> jsonb (objects
 * with the fields in schema order, objects keyed by the map keys' text,
 * arrays), also for a List declared jsonb.  Union is not read.
 *
 * IDENTIFICATION
 *	  src/fdw/amudai_convert.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "parser/parse_coerce.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "fdw/amudai_fdw.h"
#include "fdw/cast.h"
#include "fdw/parquet_fdw.h"

/* Ticks (100 ns) from 0001-01-01 to 1970-01-01, and 1970 to 2000 in us. */
#define AM_TICKS_TO_UNIX	INT64CONST(621355968000000000)
#define AM_UNIX_TO_PG_US	INT64CONST(946684800000000)

typedef enum PfAmKind
{
	PF_AM_BOOL,
	PF_AM_INT2,					/* any int fitting int2 */
	PF_AM_INT4,
	PF_AM_INT8,
	PF_AM_FLOAT4,
	PF_AM_FLOAT8,
	PF_AM_TEXT,
	PF_AM_BYTEA,
	PF_AM_UUID,
	PF_AM_TIMESTAMPTZ,
	PF_AM_INTERVAL,
	PF_AM_NUMERIC,				/* KustoDecimal */
	PF_AM_ARRAY,
	PF_AM_JSON					/* Struct, Map, FixedSizeList, nested List */
} PfAmKind;

struct PfAmConverter
{
	uint32_t	schema_id;
	const AmSchemaNode *node;
	PfAmKind	kind;
	Oid			deftyp;			/* what kind produces */
	const char *column_name;
	bool		nested;			/* converts a List's or a Struct's children */

	/* default -> declared */
	Oid			typid;			/* declared */
	int32		typmod;
	PfCast	   *cast;			/* NULL: nothing to do */

	/* PF_AM_UUID: the shard's Guids are in .NET order (first three groups LE) */
	bool		guid_dotnet;

	/* PF_AM_JSON: one converter per child (default types, jsonb for nested) */
	int			nchildren;
	PfAmConverter **children;
	char	  **child_names;	/* Struct field names */
	FmgrInfo	json_out;		/* as a JSON child: deftyp's output function */

	/* arrays: the element converter and its type */
	PfAmConverter *elem;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;

	/* per stripe */
	AmFieldReader *reader;
	uint32_t	stripe;
};

/* Default kind and type of a node; false when there is none. */
static bool
node_kind(const AmSchema *schema, const AmSchemaNode *n, PfAmKind *kind,
		  Oid *typid)
{
	bool		timespan = n->extension_label.len == 13 &&
		memcmp(n->extension_label.data, "KustoTimeSpan", 13) == 0;
	bool		decimal = n->extension_label.len == 12 &&
		memcmp(n->extension_label.data, "KustoDecimal", 12) == 0;

	switch (n->basic_type)
	{
		case AM_TYPE_BOOLEAN:
			*kind = PF_AM_BOOL;
			*typid = BOOLOID;
			return true;
		case AM_TYPE_INT8:
			*kind = PF_AM_INT2;
			*typid = INT2OID;
			return true;
		case AM_TYPE_INT16:
			*kind = n->is_signed ? PF_AM_INT2 : PF_AM_INT4;
			*typid = n->is_signed ? INT2OID : INT4OID;
			return true;
		case AM_TYPE_INT32:
			*kind = n->is_signed ? PF_AM_INT4 : PF_AM_INT8;
			*typid = n->is_signed ? INT4OID : INT8OID;
			return true;
		case AM_TYPE_INT64:
			if (timespan && n->is_signed)
			{
				*kind = PF_AM_INTERVAL;
				*typid = INTERVALOID;
				return true;
			}
			*kind = PF_AM_INT8;
			*typid = INT8OID;
			return true;
		case AM_TYPE_FLOAT32:
			*kind = PF_AM_FLOAT4;
			*typid = FLOAT4OID;
			return true;
		case AM_TYPE_FLOAT64:
			*kind = PF_AM_FLOAT8;
			*typid = FLOAT8OID;
			return true;
		case AM_TYPE_STRING:
			*kind = PF_AM_TEXT;
			*typid = TEXTOID;
			return true;
		case AM_TYPE_BINARY:
			*kind = PF_AM_BYTEA;
			*typid = BYTEAOID;
			return true;
		case AM_TYPE_FIXED_SIZE_BINARY:
			if (decimal && n->fixed_size == 16)
			{
				*kind = PF_AM_NUMERIC;
				*typid = NUMERICOID;
				return true;
			}
			*kind = PF_AM_BYTEA;
			*typid = BYTEAOID;
			return true;
		case AM_TYPE_GUID:
			if (n->fixed_size != 16)
				return false;
			*kind = PF_AM_UUID;
			*typid = UUIDOID;
			return true;
		case AM_TYPE_DATETIME:
			*kind = PF_AM_TIMESTAMPTZ;
			*typid = TIMESTAMPTZOID;
			return true;
		case AM_TYPE_LIST:
			{
				PfAmKind	ek;
				Oid			et;
				const AmSchemaNode *child;

				if (n->num_children != 1 || n->children[0] >= schema->schema_id_count)
					return false;
				child = &schema->nodes[n->children[0]];
				if (!node_kind(schema, child, &ek, &et))
					return false;
				if (ek == PF_AM_ARRAY || ek == PF_AM_JSON)
				{
					/* lists of lists, structs...: JSON arrays */
					*kind = PF_AM_JSON;
					*typid = JSONBOID;
					return true;
				}
				*kind = PF_AM_ARRAY;
				*typid = get_array_type(et);
				return OidIsValid(*typid);
			}
		case AM_TYPE_STRUCT:
		case AM_TYPE_MAP:
		case AM_TYPE_FIXED_SIZE_LIST:
			{
				PfAmKind	ck;
				Oid			ct;

				if ((n->basic_type == AM_TYPE_MAP && n->num_children != 2) ||
					(n->basic_type == AM_TYPE_FIXED_SIZE_LIST &&
					 (n->num_children != 1 || n->fixed_size == 0)))
					return false;
				for (uint32 k = 0; k < n->num_children; k++)
					if (n->children[k] >= schema->schema_id_count ||
						!node_kind(schema, &schema->nodes[n->children[k]], &ck, &ct))
						return false;
				*kind = PF_AM_JSON;
				*typid = JSONBOID;
				return true;
			}
		default:
			return false;
	}
}

bool
pf_amudai_default_type(const AmSchema *schema, uint32_t schema_id,
					   Oid *typid, int32 *typmod)
{
	PfAmKind	kind;

	*typmod = -1;
	if (schema_id >= schema->schema_id_count)
		return false;
	return node_kind(schema, &schema->nodes[schema_id], &kind, typid);
}

static const char *
basic_type_name(AmBasicType t)
{
	static const char *const names[] = {
		"Unit", "Boolean", "Int8", "Int16", "Int32", "Int64", "Float32",
		"Float64", "Binary", "FixedSizeBinary", "String", "Guid", "DateTime",
		"List", "FixedSizeList", "Struct", "Map", "Union"
	};

	return (unsigned) t < lengthof(names) ? names[t] : "unknown";
}

/* "Int64 (KustoTimeSpan)": a field's type in the shard, for messages. */
static char *
describe_amudai_type(const AmSchemaNode *n)
{
	if (n->extension_label.len == 0)
		return pstrdup(basic_type_name(n->basic_type));
	return psprintf("%s (%.*s)", basic_type_name(n->basic_type),
					(int) n->extension_label.len,
					(const char *) n->extension_label.data);
}

/* The converters of a Struct's, Map's or nested List's children. */
static void
create_json_children(PfAmConverter *conv, const AmSchema *schema,
					 MemoryContext cxt)
{
	const AmSchemaNode *n = conv->node;

	conv->nchildren = (int) n->num_children;
	conv->children = palloc0(sizeof(PfAmConverter *) * Max(1, n->num_children));
	conv->child_names = palloc0(sizeof(char *) * Max(1, n->num_children));
	for (uint32 k = 0; k < n->num_children; k++)
	{
		const AmSchemaNode *c = &schema->nodes[n->children[k]];
		PfAmKind	ck;
		Oid			ct;
		bool		varlena;
		Oid			outfn;

		(void) node_kind(schema, c, &ck, &ct);
		if (ck == PF_AM_ARRAY)
			ct = JSONBOID;		/* inside JSON, lists are JSON arrays */
		conv->children[k] = pf_amudai_converter_create(schema, n->children[k],
													   ct, -1, conv->column_name,
													   cxt);
		conv->children[k]->nested = true;
		conv->child_names[k] = pnstrdup((const char *) c->name.data, c->name.len);
		getTypeOutputInfo(conv->children[k]->deftyp, &outfn, &varlena);
		fmgr_info_cxt(outfn, &conv->children[k]->json_out, cxt);
	}
}

PfAmConverter *
pf_amudai_converter_create(const AmSchema *schema, uint32_t schema_id,
						   Oid typid, int32 typmod, const char *column_name,
						   MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	PfAmConverter *conv = palloc0(sizeof(PfAmConverter));
	const AmSchemaNode *n = &schema->nodes[schema_id];
	int32		decl_basemod = typmod;
	Oid			decl_base = getBaseTypeAndTypmod(typid, &decl_basemod);
	Oid			default_typid;
	bool		no_path;

	conv->schema_id = schema_id;
	conv->node = n;
	conv->column_name = pstrdup(column_name);
	conv->typid = typid;
	conv->typmod = typmod;
	if (!node_kind(schema, n, &conv->kind, &conv->deftyp))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("column \"%s\" reads an Amudai field of type %s, which is not supported",
						column_name, basic_type_name(n->basic_type)),
				 errhint("Unions cannot be read.")));
	default_typid = conv->deftyp;

	/* a list declared jsonb: a JSON array, like nested lists */
	if (conv->kind == PF_AM_ARRAY && decl_base == JSONBOID)
	{
		conv->kind = PF_AM_JSON;
		conv->deftyp = JSONBOID;
	}
	if (conv->kind == PF_AM_JSON)
		create_json_children(conv, schema, cxt);

	if (conv->kind == PF_AM_ARRAY)
	{
		Oid			elemtyp = get_element_type(conv->deftyp);
		int32		elemmod = -1;

		/*
		 * A declared array type: its elements are converted to the declared
		 * element type (element by element, casts and domains included).
		 */
		if (OidIsValid(get_element_type(typid)))
		{
			elemtyp = get_element_type(typid);
			elemmod = typmod;
			conv->deftyp = typid;
			typmod = -1;		/* applied to the elements */
		}
		conv->elem = pf_amudai_converter_create(schema, n->children[0], elemtyp,
												elemmod, column_name, cxt);
		conv->elem->nested = true;
		get_typlenbyvalalign(elemtyp, &conv->elmlen, &conv->elmbyval,
							 &conv->elmalign);
	}

	conv->cast = pf_cast_create(conv->deftyp, -1, typid, typmod, cxt, &no_path);
	if (no_path)
		pf_cast_not_supported(column_name, "Amudai", describe_amudai_type(n),
							  default_typid, -1, conv->typid, conv->typmod);
	MemoryContextSwitchTo(old);
	return conv;
}

void
pf_amudai_converter_set_guid_dotnet(PfAmConverter *conv, bool dotnet)
{
	for (; conv != NULL; conv = conv->elem)
	{
		conv->guid_dotnet = dotnet;
		for (int k = 0; k < conv->nchildren; k++)
			pf_amudai_converter_set_guid_dotnet(conv->children[k], dotnet);
	}
}

void
pf_amudai_converter_begin_stripe(PfAmConverter *conv, AmShard *shard,
								 const char *path, uint32_t stripe,
								 MemoryContext stripe_cxt)
{
	AmError		err;

	conv->reader = NULL;
	conv->stripe = stripe;
	am_error_clear(&err);
	if (am_field_reader_open(&conv->reader, shard, stripe, conv->schema_id,
							 &err) != AM_OK)
		pf_report_amudai_error(path, &err);
	if (conv->elem)
		pf_amudai_converter_begin_stripe(conv->elem, shard, path, stripe,
										 stripe_cxt);
	for (int k = 0; k < conv->nchildren; k++)
		pf_amudai_converter_begin_stripe(conv->children[k], shard, path, stripe,
										 stripe_cxt);
}

uint64
pf_amudai_converter_positions(const PfAmConverter *conv)
{
	return conv->reader ? am_field_reader_position_count(conv->reader) : 0;
}

void
pf_amudai_converter_end_stripe(PfAmConverter *conv)
{
	if (conv->reader)
		am_field_reader_close(conv->reader);
	conv->reader = NULL;
	if (conv->elem)
		pf_amudai_converter_end_stripe(conv->elem);
	for (int k = 0; k < conv->nchildren; k++)
		pf_amudai_converter_end_stripe(conv->children[k]);
}

/* Integer i of a batch as int64 (width and signedness from the node). */
#define LOAD_INT(T) \
	for (uint32 i = 0; i < count; i++) \
	{ \
		T			v; \
		memcpy(&v, (const char *) b->values + (size_t) i * sizeof(T), sizeof(T)); \
		ints[i] = (int64) v; \
	}

static void
load_ints(const PfAmConverter *conv, const AmColumnBatch *b, uint32 count,
		  int64 *ints)
{
	bool		s = conv->node->is_signed;

	switch (b->value_width)
	{
		case 1:
			if (s)
				LOAD_INT(int8)
			else
				LOAD_INT(uint8)
			break;
		case 2:
			if (s)
				LOAD_INT(int16)
			else
				LOAD_INT(uint16)
			break;
		case 4:
			if (s)
				LOAD_INT(int32)
			else
				LOAD_INT(uint32)
			break;
		default:
			if (s)
				LOAD_INT(int64)
			else
			{
				for (uint32 i = 0; i < count; i++)
				{
					uint64		v;

					memcpy(&v, (const char *) b->values + (size_t) i * 8, 8);
					if (v > (uint64) PG_INT64_MAX && !(b->nulls && b->nulls[i]))
						ereport(ERROR,
								(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
								 errmsg("unsigned Amudai value %llu of column \"%s\" is out of range for type bigint",
										(unsigned long long) v, conv->column_name)));
					ints[i] = (int64) v;
				}
			}
			break;
	}
}

/* DateTime ticks to PostgreSQL microseconds; error when out of range. */
static int64
ticks_to_pg_us(uint64 ticks, const char *column_name)
{
	int64		rel = (int64) (ticks - (uint64) AM_TICKS_TO_UNIX);
	int64		us;

	if (ticks > (uint64) PG_INT64_MAX)
		rel = PG_INT64_MAX;
	us = rel / 10 - (rel % 10 < 0 ? 1 : 0) - AM_UNIX_TO_PG_US;
	if (!IS_VALID_TIMESTAMP(us))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("Amudai DateTime value of column \"%s\" is out of range for PostgreSQL timestamps",
						column_name)));
	return us;
}

static Datum
decimal_datum(const uint8_t *bytes)
{
	AmDecimal	d;
	char		buf[AM_DECIMAL_DIGITS + 32];

	am_decimal128_decode(bytes, &d);
	if (d.kind == AM_DECIMAL_NAN)
		strcpy(buf, "NaN");
	else if (d.kind == AM_DECIMAL_INFINITY)
		strcpy(buf, d.negative ? "-Infinity" : "Infinity");
	else
		snprintf(buf, sizeof(buf), "%s%.*sE%d", d.negative ? "-" : "",
				 (int) d.ndigits, d.digits, (int) d.exponent);
	return DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/* A child's value into a JSON container under construction. */
static void
push_child(JsonbParseState **state, PfAmConverter *child, Datum d, bool isnull,
		   JsonbIteratorToken tok)
{
	JsonbValue	v;

	if (isnull)
		v.type = jbvNull;
	else if (child->kind == PF_AM_JSON)
	{
		Jsonb	   *jb = DatumGetJsonbP(d);

		v.type = jbvBinary;
		v.val.binary.data = &jb->root;
		v.val.binary.len = VARSIZE(jb) - VARHDRSZ;
	}
	else
		pf_datum_to_jsonb_value(d, child->deftyp, &child->json_out, &v);
	(void) pushJsonbValue(state, tok, &v);
}

/* The child positions [lo, hi) of a batch's lists, checked against the child. */
static void
check_child_range(PfAmConverter *conv, PfAmConverter *child, const char *path,
				  uint64 lo, uint64 hi)
{
	uint64		have = am_field_reader_position_count(child->reader);

	if (hi < lo || hi > have)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid Amudai shard \"%s\": offsets of column \"%s\" point beyond the child positions",
						path, conv->column_name),
				 errdetail("Positions up to %llu, the child has %llu.",
						   (unsigned long long) hi, (unsigned long long) have)));
	if (hi - lo > (uint64) MaxAllocSize / sizeof(Datum))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("values of column \"%s\" hold too many elements for one batch",
						conv->column_name)));
}

/*
 * Struct, Map, FixedSizeList and nested List positions as jsonb: the
 * children's positions for the whole batch converted at once (recursively),
 * then one container per position.  Struct fields keep schema order; map
 * keys are their text; a NaN float is a string, as to_jsonb() makes it.
 */
static void
fill_json(PfAmConverter *conv, const char *path, uint64 first,
		  const AmColumnBatch *b, uint32 count, Datum *values, bool *nulls)
{
	const AmSchemaNode *n = conv->node;
	int			nc = conv->nchildren;
	Datum	  **cv = palloc(sizeof(Datum *) * Max(1, nc));
	bool	  **cn = palloc(sizeof(bool *) * Max(1, nc));
	uint64		lo = 0,
				hi = 0;

	switch (n->basic_type)
	{
		case AM_TYPE_STRUCT:
			lo = first;
			hi = first + count;
			break;
		case AM_TYPE_FIXED_SIZE_LIST:
			if (first > PG_UINT64_MAX / n->fixed_size ||
				first + count > PG_UINT64_MAX / n->fixed_size)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("invalid Amudai shard \"%s\": fixed-size lists of column \"%s\" overflow",
								path, conv->column_name)));
			lo = first * n->fixed_size;
			hi = (first + count) * n->fixed_size;
			break;
		default:				/* List, Map */
			lo = b->offsets[0];
			hi = b->offsets[count];
			break;
	}
	for (int k = 0; k < nc; k++)
	{
		check_child_range(conv, conv->children[k], path, lo, hi);
		cv[k] = palloc(sizeof(Datum) * Max(1, hi - lo));
		cn[k] = palloc(sizeof(bool) * Max(1, hi - lo));
		if (hi > lo)
			pf_amudai_converter_fill(conv->children[k], path, lo, (uint32) (hi - lo),
									 cv[k], cn[k]);
	}

	for (uint32 i = 0; i < count; i++)
	{
		JsonbParseState *state = NULL;
		JsonbValue *res = NULL;
		uint64		s,
					e;

		if (nulls[i])
			continue;
		CHECK_FOR_INTERRUPTS();
		switch (n->basic_type)
		{
			case AM_TYPE_STRUCT:
				pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
				for (int k = 0; k < nc; k++)
				{
					JsonbValue	key;

					key.type = jbvString;
					key.val.string.val = conv->child_names[k];
					key.val.string.len = strlen(conv->child_names[k]);
					pushJsonbValue(&state, WJB_KEY, &key);
					push_child(&state, conv->children[k], cv[k][i], cn[k][i], WJB_VALUE);
				}
				res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
				break;
			case AM_TYPE_MAP:
				s = b->offsets[i] - lo;
				e = b->offsets[i + 1] - lo;
				pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
				for (uint64 j = s; j < e; j++)
				{
					JsonbValue	key;
					PfAmConverter *kc = conv->children[0];

					if (cn[0][j])
						ereport(ERROR,
								(errcode(ERRCODE_DATA_CORRUPTED),
								 errmsg("invalid Amudai shard \"%s\": a map of column \"%s\" has a null key",
										path, conv->column_name)));
					key.type = jbvString;
					if (kc->deftyp == TEXTOID)
					{
						key.val.string.val = VARDATA_ANY(DatumGetPointer(cv[0][j]));
						key.val.string.len = VARSIZE_ANY_EXHDR(DatumGetPointer(cv[0][j]));
					}
					else
					{
						key.val.string.val = OutputFunctionCall(&kc->json_out, cv[0][j]);
						key.val.string.len = strlen(key.val.string.val);
					}
					pushJsonbValue(&state, WJB_KEY, &key);
					push_child(&state, conv->children[1], cv[1][j], cn[1][j], WJB_VALUE);
				}
				res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
				break;
			default:			/* List, FixedSizeList */
				if (n->basic_type == AM_TYPE_FIXED_SIZE_LIST)
				{
					s = (uint64) i * n->fixed_size;
					e = s + n->fixed_size;
				}
				else
				{
					s = b->offsets[i] - lo;
					e = b->offsets[i + 1] - lo;
				}
				pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
				for (uint64 j = s; j < e; j++)
					push_child(&state, conv->children[0], cv[0][j], cn[0][j], WJB_ELEM);
				res = pushJsonbValue(&state, WJB_END_ARRAY, NULL);
				break;
		}
		values[i] = JsonbPGetDatum(JsonbValueToJsonb(res));
	}
}

/* Integers of any width and signedness as int2, int4 or int8. */
static void
fill_ints(PfAmConverter *conv, const AmColumnBatch *b, uint32 count,
		  Datum *values)
{
	int64	   *ints;

	/* the common same-width cases straight to Datums */
	if (conv->node->is_signed && b->value_width == 8 && conv->kind == PF_AM_INT8)
	{
		for (uint32 i = 0; i < count; i++)
		{
			int64		v;

			memcpy(&v, (const char *) b->values + (size_t) i * 8, 8);
			values[i] = Int64GetDatum(v);
		}
		return;
	}
	if (conv->node->is_signed && b->value_width == 4 && conv->kind == PF_AM_INT4)
	{
		for (uint32 i = 0; i < count; i++)
		{
			int32		v;

			memcpy(&v, (const char *) b->values + (size_t) i * 4, 4);
			values[i] = Int32GetDatum(v);
		}
		return;
	}
	ints = palloc(sizeof(int64) * Max(count, 1));
	load_ints(conv, b, count, ints);
	if (conv->kind == PF_AM_INT2)
		for (uint32 i = 0; i < count; i++)
			values[i] = Int16GetDatum((int16) ints[i]);
	else if (conv->kind == PF_AM_INT4)
		for (uint32 i = 0; i < count; i++)
			values[i] = Int32GetDatum((int32) ints[i]);
	else
		for (uint32 i = 0; i < count; i++)
			values[i] = Int64GetDatum(ints[i]);
	pfree(ints);
}

/*
 * String and Binary values as text or bytea: one allocation for the batch's
 * varlenas; strings that are all ASCII without NUL need no per-value
 * encoding check.
 */
static void
fill_strings(PfAmConverter *conv, const AmColumnBatch *b, uint32 count,
			 Datum *values, const bool *nulls)
{
	bool		text = conv->kind == PF_AM_TEXT;
	bool		utf8 = GetDatabaseEncoding() == PG_UTF8;
	bool		ascii = true;
	Size		total = 0;
	char	   *arena;

	if (text && b->offsets)
	{
		const uint8_t *p = b->bytes + b->offsets[0];
		const uint8_t *end = b->bytes + b->offsets[count];
		uint8_t		bad = 0;

		for (; p < end; p++)
			bad |= (uint8_t) (*p - 1) >= 0x7F;
		ascii = bad == 0;
	}
	for (uint32 i = 0; i < count; i++)
		if (!nulls[i])
			total += INTALIGN(VARHDRSZ +
							  (b->offsets ? b->offsets[i + 1] - b->offsets[i] :
							   b->value_width));
	arena = MemoryContextAllocHuge(CurrentMemoryContext, Max(total, 1));
	for (uint32 i = 0; i < count; i++)
	{
		const char *src;
		size_t		len;
		struct varlena *v;

		if (nulls[i])
			continue;
		if (b->offsets)
		{
			src = (const char *) b->bytes + b->offsets[i];
			len = (size_t) (b->offsets[i + 1] - b->offsets[i]);
		}
		else
		{
			src = (const char *) b->values + (size_t) i * b->value_width;
			len = b->value_width;
		}
		if (text && !ascii)
		{
			if (!utf8)
			{
				/* converted text may be longer: its own palloc */
				values[i] = PointerGetDatum(cstring_to_text(pg_any_to_server(src, (int) len, PG_UTF8)));
				continue;
			}
			(void) pg_verifymbstr(src, (int) len, false);
		}
		v = (struct varlena *) arena;
		SET_VARSIZE(v, VARHDRSZ + len);
		memcpy(VARDATA(v), src, len);
		arena += INTALIGN(VARHDRSZ + len);
		values[i] = PointerGetDatum(v);
	}
}

/* Guids as uuid, in the shard's byte order (guid_byte_order). */
static void
fill_uuids(PfAmConverter *conv, const AmColumnBatch *b, uint32 count,
		   Datum *values, const bool *nulls)
{
	for (uint32 i = 0; i < count; i++)
	{
		pg_uuid_t  *u;

		if (nulls[i])
			continue;
		u = palloc(sizeof(pg_uuid_t));
		memcpy(u->data, (const char *) b->values + (size_t) i * 16, 16);
		if (conv->guid_dotnet)
		{
			/* .NET: Data1 (4 bytes), Data2 and Data3 (2 each) LE */
			static const uint8 from[16] = {3, 2, 1, 0, 5, 4, 7, 6,
			8, 9, 10, 11, 12, 13, 14, 15};
			uint8		t[16];

			for (int k = 0; k < 16; k++)
				t[k] = u->data[from[k]];
			memcpy(u->data, t, 16);
		}
		values[i] = UUIDPGetDatum(u);
	}
}

/* Lists as arrays: the elements converted at once, then one array per row. */
static void
fill_arrays(PfAmConverter *conv, const char *path, const AmColumnBatch *b,
			uint32 count, Datum *values, const bool *nulls)
{
	uint64		lo = b->offsets[0];
	uint64		hi = b->offsets[count];
	Datum	   *ev;
	bool	   *en;
	Oid			elemtyp = get_element_type(conv->deftyp);

	if (hi < lo || hi > am_field_reader_position_count(conv->elem->reader))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid Amudai shard \"%s\": list offsets of column \"%s\" point beyond the list elements",
						path, conv->column_name),
				 errdetail("Offsets up to %llu, %llu elements.",
						   (unsigned long long) hi,
						   (unsigned long long) am_field_reader_position_count(conv->elem->reader))));
	if (hi - lo > (uint64) MaxAllocSize / sizeof(Datum))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("lists of column \"%s\" hold too many elements for one batch",
						conv->column_name)));
	ev = palloc(sizeof(Datum) * Max(hi - lo, 1));
	en = palloc(sizeof(bool) * Max(hi - lo, 1));
	if (hi > lo)
		pf_amudai_converter_fill(conv->elem, path, lo, (uint32) (hi - lo),
								 ev, en);
	for (uint32 i = 0; i < count; i++)
	{
		int			dims[1];
		int			lbs[1] = {1};
		uint64		s = b->offsets[i] - lo;

		if (nulls[i])
			continue;
		dims[0] = (int) (b->offsets[i + 1] - b->offsets[i]);
		values[i] = PointerGetDatum(construct_md_array(ev + s, en + s, 1,
													   dims, lbs, elemtyp,
													   conv->elmlen,
													   conv->elmbyval,
													   conv->elmalign));
	}
}

/* Fill values[]/nulls[] with the default-type Datums of a batch. */
static void
fill_default(PfAmConverter *conv, const char *path, uint64 first,
			 const AmColumnBatch *b, uint32 count, Datum *values, bool *nulls)
{
	const uint8_t *bn = b->nulls;

	for (uint32 i = 0; i < count; i++)
		nulls[i] = bn != NULL && bn[i];

	switch (conv->kind)
	{
		case PF_AM_BOOL:
			for (uint32 i = 0; i < count; i++)
				values[i] = BoolGetDatum(((const uint8_t *) b->values)[i] != 0);
			break;
		case PF_AM_INT2:
		case PF_AM_INT4:
		case PF_AM_INT8:
			fill_ints(conv, b, count, values);
			break;
		case PF_AM_FLOAT4:
			for (uint32 i = 0; i < count; i++)
			{
				float4		f;

				memcpy(&f, (const char *) b->values + (size_t) i * 4, 4);
				values[i] = Float4GetDatum(f);
			}
			break;
		case PF_AM_FLOAT8:
			for (uint32 i = 0; i < count; i++)
			{
				float8		f;

				memcpy(&f, (const char *) b->values + (size_t) i * 8, 8);
				values[i] = Float8GetDatum(f);
			}
			break;
		case PF_AM_TEXT:
		case PF_AM_BYTEA:
			fill_strings(conv, b, count, values, nulls);
			break;
		case PF_AM_UUID:
			fill_uuids(conv, b, count, values, nulls);
			break;
		case PF_AM_TIMESTAMPTZ:
			for (uint32 i = 0; i < count; i++)
			{
				uint64		ticks;
				int64		us;

				if (nulls[i])
					continue;
				memcpy(&ticks, (const char *) b->values + (size_t) i * 8, 8);
				us = ticks_to_pg_us(ticks, conv->column_name);
				values[i] = TimestampTzGetDatum(us);
			}
			break;
		case PF_AM_INTERVAL:
			for (uint32 i = 0; i < count; i++)
			{
				int64		ticks;
				Interval   *iv;

				if (nulls[i])
					continue;
				memcpy(&ticks, (const char *) b->values + (size_t) i * 8, 8);
				iv = palloc0(sizeof(Interval));
				iv->time = ticks / 10;
				values[i] = IntervalPGetDatum(iv);
			}
			break;
		case PF_AM_NUMERIC:
			for (uint32 i = 0; i < count; i++)
			{
				if (nulls[i])
					continue;
				values[i] = decimal_datum((const uint8_t *) b->values + (size_t) i * 16);
			}
			break;
		case PF_AM_JSON:
			fill_json(conv, path, first, b, count, values, nulls);
			break;
		case PF_AM_ARRAY:
			fill_arrays(conv, path, b, count, values, nulls);
			break;
	}
}

/* What a failing cast was converting: the column, type and position. */
typedef struct PfAmCastContext
{
	PfAmConverter *conv;
	uint64		first;
	int64		failed;			/* index in the batch, or -1 */
} PfAmCastContext;

static void
cast_error_callback(void *arg)
{
	PfAmCastContext *ctx = (PfAmCastContext *) arg;
	PfAmConverter *conv = ctx->conv;
	char	   *typname = format_type_with_typemod(conv->typid, conv->typmod);

	if (ctx->failed < 0)
		errcontext("converting Amudai column \"%s\" to type %s",
				   conv->column_name, typname);
	else if (conv->nested)
		errcontext("converting Amudai column \"%s\" to type %s, element %llu of stripe %u",
				   conv->column_name, typname,
				   (unsigned long long) (ctx->first + ctx->failed), conv->stripe);
	else
		errcontext("converting Amudai column \"%s\" to type %s, row %llu of stripe %u",
				   conv->column_name, typname,
				   (unsigned long long) (ctx->first + ctx->failed), conv->stripe);
}

/* Default-type Datums of a batch to the declared type, in place. */
static void
cast_batch(PfAmConverter *conv, uint64 first, uint32 count, Datum *values,
		   bool *nulls)
{
	PfAmCastContext ctx = {conv, first, -1};

	pf_cast_apply_in_context(conv->cast, values, nulls, count, 1, &ctx.failed,
							 cast_error_callback, &ctx);
}

void
pf_amudai_converter_fill(PfAmConverter *conv, const char *path,
						 uint64_t first, uint32 count, Datum *values,
						 bool *nulls)
{
	AmColumnBatch batch;
	AmError		err;

	am_error_clear(&err);
	if (am_field_reader_read(conv->reader, first, count, &batch, &err) != AM_OK)
		pf_report_amudai_error(path, &err);
	if (batch.count != count)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("Amudai field of column \"%s\" gave %zu positions, %u were asked",
						conv->column_name, batch.count, count)));
	fill_default(conv, path, first, &batch, count, values, nulls);
	if (conv->cast != NULL)
		cast_batch(conv, first, count, values, nulls);
}

bool
pf_amudai_stat_datum(const AmSchema *schema, uint32_t schema_id, Oid typid,
					 const AmAnyValue *v, Datum *out)
{
	const AmSchemaNode *n = &schema->nodes[schema_id];
	int64		i;

	switch (typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			if (n->basic_type < AM_TYPE_INT8 || n->basic_type > AM_TYPE_INT64)
				return false;
			if (v->kind == AM_VALUE_I64)
				i = (int64) v->u64;
			else if (v->kind == AM_VALUE_U64 && v->u64 <= (uint64) PG_INT64_MAX)
				i = (int64) v->u64;
			else
				return false;
			if (typid == INT2OID && (i < PG_INT16_MIN || i > PG_INT16_MAX))
				return false;
			if (typid == INT4OID && (i < PG_INT32_MIN || i > PG_INT32_MAX))
				return false;
			*out = typid == INT2OID ? Int16GetDatum((int16) i) :
				typid == INT4OID ? Int32GetDatum((int32) i) : Int64GetDatum(i);
			return true;
		case FLOAT4OID:
		case FLOAT8OID:
			if (v->kind != AM_VALUE_DOUBLE || isnan(v->d))
				return false;
			if (typid == FLOAT4OID)
			{
				/* the bound widened from float4 narrows back exactly */
				if ((double) (float4) v->d != v->d)
					return false;
				*out = Float4GetDatum((float4) v->d);
			}
			else
				*out = Float8GetDatum(v->d);
			return true;
		case NUMERICOID:
			{
				AmDecimal	d;

				if (v->kind != AM_VALUE_DECIMAL || v->bytes.len != 16 ||
					n->basic_type != AM_TYPE_FIXED_SIZE_BINARY)
					return false;
				am_decimal128_decode(v->bytes.data, &d);
				if (d.kind == AM_DECIMAL_NAN)
					return false;
				*out = decimal_datum(v->bytes.data);
				return true;
			}
		case TIMESTAMPTZOID:
			{
				int64		rel;

				if (n->basic_type != AM_TYPE_DATETIME ||
					(v->kind != AM_VALUE_U64 && v->kind != AM_VALUE_DATETIME &&
					 v->kind != AM_VALUE_I64) ||
					v->u64 > (uint64) PG_INT64_MAX)
					return false;
				rel = (int64) (v->u64 - (uint64) AM_TICKS_TO_UNIX);
				/* floor for the minimum, ceiling for the maximum is not
				 * needed: written values are whole microseconds; be safe by
				 * refusing ones that are not */
				if (rel % 10 != 0)
					return false;
				rel = rel / 10 - AM_UNIX_TO_PG_US;
				if (!IS_VALID_TIMESTAMP(rel))
					return false;
				*out = TimestampTzGetDatum(rel);
				return true;
			}
		default:
			return false;
	}
}
