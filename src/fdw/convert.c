/*-------------------------------------------------------------------------
 *
 * convert.c
 *	  Type mapping and column converters: Parquet leaf batches to Datums.
 *
 * Every foreign-table column gets one PfConverter, built once per scan.  The
 * builder looks at the Parquet field (physical type, logical annotation,
 * nesting) and at the declared column type, and picks:
 *
 *	- for a flat leaf, a scalar fill function specialized for the (physical,
 *	  logical) pair that turns a whole batch into Datums of the default type
 *	  in one tight loop (no per-value type switch);
 *	- for a LIST of scalars, the same scalar fill over the batch's dense
 *	  values, then an assembly pass over the Dremel levels building one
 *	  PostgreSQL array per row;
 *	- for anything else nested (STRUCT, MAP, lists of lists or of structs), a
 *	  record assembler that walks all the field's leaves together and builds
 *	  one jsonb value per row.
 *
 * A declared type other than the default is reached from the default type
 * through the cast layer (cast.h), applied column-at-a-time after the fill.
 *
 * This file builds converters and runs them; the work is in its families
 * (shared declarations: convert_internal.h):
 *	convert_mapping.c	default types, list/map shapes of the schema;
 *	convert_scalar.c	booleans, integers, floats, UUID, text, bytea, jsonb;
 *	convert_decimal.c	numerics: DECIMAL, unsigned 64-bit integers;
 *	convert_temporal.c	dates, times, timestamps, INT96, intervals;
 *	convert_list.c		LIST of scalars to arrays;
 *	convert_nested.c	other nested fields to jsonb;
 *	convert_variant.c	VARIANT groups to jsonb;
 *	convert_dictionary.c	dictionary entries converted once per row group;
 *	convert_errors.c	values out of range, and the row that held them.
 *
 * Default mapping (see pf_default_type):
 *	BOOLEAN bool; INT32 int4; INT64 int8; INT(8|16,signed) int2;
 *	INT(8,unsigned) int2; INT(16,unsigned) int4; INT(32,unsigned) int8;
 *	INT(64,unsigned) numeric; FLOAT float4; DOUBLE float8; FLOAT16 float4;
 *	DECIMAL numeric(p,s); DATE date; TIME time (timetz when UTC-adjusted);
 *	TIMESTAMP timestamp (timestamptz when UTC-adjusted); INT96 timestamp;
 *	STRING/ENUM text; JSON jsonb; UUID uuid; INTERVAL interval; NULL text;
 *	anything else binary bytea; LIST of scalars an array; other nested jsonb.
 *
 * IDENTIFICATION
 *	  src/fdw/convert.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "parser/parse_coerce.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "fdw/convert_internal.h"

/* ----------------------------------------------------------------
 * Casts to the declared type
 * ----------------------------------------------------------------
 */
/*
 * The cast from (src, srcmod) to the declared (dst, dstmod), or NULL when
 * there is nothing to do; no cast at all is an error naming the column.
 */
static PfCast *
plan_cast(PfConverter *conv, Oid src, int32 srcmod, Oid dst, int32 dstmod,
		  MemoryContext cxt)
{
	bool		no_path;
	PfCast	   *c = pf_cast_create(src, srcmod, dst, dstmod, cxt, &no_path);

	if (no_path)
		pf_cast_not_supported(conv->column_name, "Parquet",
							  pf_describe_parquet_type(conv->field),
							  conv->default_typid, conv->default_typmod,
							  conv->typid, conv->typmod);
	return c;
}

/* ----------------------------------------------------------------
 * Scalars
 * ----------------------------------------------------------------
 */
static void
init_scalar(PfScalar *sc, const PqSchemaNode *leaf, const char *column_name,
			MemoryContext cxt)
{
	int			enc = GetDatabaseEncoding();
	Oid			outfn;
	bool		isvarlena;

	memset(sc, 0, sizeof(*sc));
	sc->node = leaf;
	sc->column_name = column_name;
	pf_scalar_mapping(leaf, &sc->fill, &sc->typid, &sc->typmod);
	sc->scale = leaf->logical.kind == PQ_LT_DECIMAL ? leaf->logical.scale : 0;
	sc->width = leaf->physical == PQ_FIXED_LEN_BYTE_ARRAY ?
		(uint32) leaf->type_length : leaf->physical == PQ_INT96 ? 12 : 0;
	sc->same_encoding = (enc == PG_UTF8 || enc == PG_SQL_ASCII);
	sc->json_cat = pf_json_category(sc->typid);
	getTypeOutputInfo(sc->typid, &outfn, &isvarlena);
	fmgr_info_cxt(outfn, &sc->out_func, cxt);
}

/*
 * Text-like targets of binary leaves read the bytes as text rather than
 * casting the default type: JSON declared json or a string type keeps the
 * file's text (jsonb would normalize it), and unannotated BYTE_ARRAY (bytea
 * by default, often strings from older writers) declared as a string type,
 * json or jsonb is read as UTF-8 text rather than through bytea's hex output.
 * Switches the scalar to text and returns true when that applies.
 */
static bool
read_as_text(PfScalar *sc, Oid target)
{
	bool		stringish = TypeCategory(target) == TYPCATEGORY_STRING ||
		target == JSONOID;

	if ((sc->fill == pf_fill_jsonb && stringish) ||
		(sc->fill == pf_fill_bytea && (stringish || target == JSONBOID)))
	{
		sc->fill = pf_fill_text;
		sc->typid = TEXTOID;
		sc->typmod = -1;
		sc->json_cat = PF_JSON_TEXT;
		return true;
	}
	return false;
}

/* Flat leaf: one fill over the row-aligned values, then the cast. */
static void
fill_scalar_column(PfConverter *conv, const PqColumnBatch *batches,
				   uint32 num_rows, Datum *values, bool *nulls, int stride)
{
	const PqColumnBatch *b = &batches[0];
	const PfScalar *sc = &conv->scalars[0];

	if (unlikely(b->num_rows < num_rows))
		pf_conv_levels_corrupt(conv->column_name);
	if (b->dict_index != NULL &&
		pf_fill_scalar_shared(conv, b, num_rows, values, nulls, stride))
		return;
	pf_conv_track_values(b->values, b->value_width, b->is_null, num_rows);
	sc->fill(sc, b->values, b->is_null, num_rows, values, nulls, stride);
	pf_conv_track_values(NULL, 0, NULL, 0);
	pf_cast_apply(conv->cast, values, nulls, num_rows, stride,
				  pf_conv_failed_slot());
}

/* ----------------------------------------------------------------
 * Converter construction
 * ----------------------------------------------------------------
 */
static void
collect_leaves(const PqSchemaNode *node, int *out, int *n)
{
	if (node->is_leaf)
	{
		out[(*n)++] = node->leaf_index;
		return;
	}
	for (int i = 0; i < node->num_children; i++)
		collect_leaves(node->children[i], out, n);
}

/* VARIANT group: reassembled to jsonb by convert_variant.c, then cast. */
static void
setup_variant(PfConverter *conv, MemoryContext cxt)
{
	conv->kind = PF_CONV_VARIANT;
	conv->fill = pf_fill_variant_column;
	conv->variant = pf_variant_converter_create(conv->meta, conv->field,
												conv->column_name, cxt);
	conv->cast = plan_cast(conv, JSONBOID, -1, conv->typid, conv->typmod, cxt);
}

/*
 * Flat leaf.  JSON text read as json or a string type keeps the file's text
 * as is (validated by json_in for json) instead of jsonb's normalized
 * rendering; see read_as_text for binary.
 */
static void
setup_scalar(PfConverter *conv, Oid decl_base, MemoryContext cxt)
{
	conv->kind = PF_CONV_SCALAR;
	conv->fill = fill_scalar_column;
	if (read_as_text(&conv->scalars[0], decl_base))
		conv->cast = plan_cast(conv, TEXTOID, -1, conv->typid, conv->typmod, cxt);
	else
		conv->cast = plan_cast(conv, conv->default_typid, conv->default_typmod,
							   conv->typid, conv->typmod, cxt);
}

/*
 * LIST of scalars.  Declared as an array: the elements are cast one by one
 * and the arrays built of the declared element type (its typmod and domain
 * checked per element).  Declared otherwise: arrays of the default element
 * type, then a cast of each whole array.
 */
static void
setup_list(PfConverter *conv, const PqSchemaNode *rep,
		   const PqSchemaNode *elem, Oid decl_base, MemoryContext cxt)
{
	const PqSchemaNode *field = conv->field;
	Oid			decl_elem = get_element_type(decl_base);
	PfScalar   *sc = &conv->scalars[0];

	conv->kind = PF_CONV_LIST;
	conv->fill = pf_fill_list_column;
	conv->list_def = (field->repetition == PQ_OPTIONAL) ? field->max_def : 0;
	conv->rep_def = rep->max_def;
	conv->leaf_def = elem->max_def;
	if (OidIsValid(decl_elem) && decl_base == conv->typid)
	{
		read_as_text(sc, decl_elem);
		conv->elem_cast = plan_cast(conv, sc->typid, sc->typmod,
									decl_elem, conv->typmod, cxt);
		conv->elem_typid = decl_elem;
	}
	else
	{
		conv->elem_typid = sc->typid;
		conv->cast = plan_cast(conv, conv->default_typid, conv->default_typmod,
							   conv->typid, conv->typmod, cxt);
	}
	get_typlenbyvalalign(conv->elem_typid, &conv->elem_len,
						 &conv->elem_byval, &conv->elem_align);
}

/*
 * Anything else nested: jsonb, then a cast; a STRUCT declared as a
 * composite type is populated from the jsonb object by attribute names.
 */
static void
setup_json(PfConverter *conv, Oid decl_base, MemoryContext cxt)
{
	const PqSchemaNode *field = conv->field;
	int			next = 0;

	conv->kind = PF_CONV_JSON;
	conv->fill = pf_fill_json_column;
	conv->root = pf_build_json_node(conv, field,
									field->repetition == PQ_OPTIONAL,
									&next, cxt);
	Assert(next == conv->num_leaves);
	if (!field->is_leaf && get_typtype(decl_base) == TYPTYPE_COMPOSITE &&
		conv->root->kind == PF_NODE_STRUCT)
		conv->cast = pf_cast_create_populate(conv->typid, cxt);
	else
		conv->cast = plan_cast(conv, JSONBOID, -1, conv->typid, conv->typmod,
							   cxt);
}

/*
 * pf_converter_create
 *		Build the converter of top-level field `field` to the declared type.
 */
PfConverter *
pf_converter_create(const PqFileMeta *meta, const PqSchemaNode *field,
					Oid typid, int32 typmod, const char *column_name,
					MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	PfConverter *conv = palloc0(sizeof(PfConverter));
	const PqSchemaNode *rep = NULL;
	const PqSchemaNode *elem = NULL;
	int32		decl_basemod = typmod;
	Oid			decl_base = getBaseTypeAndTypmod(typid, &decl_basemod);
	int			n = 0;

	conv->meta = meta;
	conv->field = field;
	conv->column_name = pstrdup(column_name);
	conv->typid = typid;
	conv->typmod = typmod;
	pf_default_type(field, &conv->default_typid, &conv->default_typmod);

	conv->num_leaves = pf_count_leaves(field);
	conv->leaves = palloc(sizeof(int) * conv->num_leaves);
	collect_leaves(field, conv->leaves, &n);
	conv->scalars = palloc0(sizeof(PfScalar) * conv->num_leaves);
	for (int i = 0; i < conv->num_leaves; i++)
		init_scalar(&conv->scalars[i], meta->leaves[conv->leaves[i]].node,
					conv->column_name, cxt);

	if (pf_is_variant_field(field))
		setup_variant(conv, cxt);
	else if (field->is_leaf && field->repetition != PQ_REPEATED)
		setup_scalar(conv, decl_base, cxt);
	else if (decl_base != JSONBOID &&
			 (elem = pf_list_scalar_element(field, &rep)) != NULL &&
			 conv->default_typid != JSONBOID)
		setup_list(conv, rep, elem, decl_base, cxt);
	else
		setup_json(conv, decl_base, cxt);
	MemoryContextSwitchTo(old);
	return conv;
}

int
pf_converter_num_leaves(const PfConverter *conv)
{
	return conv->num_leaves;
}

const int *
pf_converter_leaves(const PfConverter *conv)
{
	return conv->leaves;
}

/* Error context: which column and types a failure happened in. */
static void
converter_error_callback(void *arg)
{
	PfConverter *conv = (PfConverter *) arg;

	errcontext("converting Parquet column \"%s\" to type %s",
			   conv->column_name,
			   format_type_with_typemod(conv->typid, conv->typmod));
}

/*
 * pf_converter_fill
 *		Convert one batch of the converter's leaves into Datums.
 */
void
pf_converter_fill(PfConverter *conv, const PqColumnBatch *leaf_batches,
				  uint32 num_rows, Datum *values, bool *nulls, int stride)
{
	ErrorContextCallback errcb;

	errcb.callback = converter_error_callback;
	errcb.arg = conv;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	pf_conv_reset_failed();		/* an earlier fill may have ended in ERROR */
	conv->fill(conv, leaf_batches, num_rows, values, nulls, stride);

	error_context_stack = errcb.previous;
}
