/*-------------------------------------------------------------------------
 *
 * inspect.c
 *	  SQL functions that show a Parquet file's schema and metadata.
 *
 *	parquet_fdw_version()			build: version, compression libraries, SIMD
 *	parquet_schema(filename)		one row per schema node
 *	parquet_metadata(filename)		one row per row group x column chunk
 *	parquet_file_metadata(filename)	one row: file-level facts
 *	parquet_kv_metadata(filename)	the footer's key/value pairs
 *
 * All are set-returning functions in materialize mode.  The ones that read a
 * file require superuser or the privileges of pg_read_server_files, as
 * pg_read_file() does: they read arbitrary server files.
 *
 * IDENTIFICATION
 *	  src/fdw/inspect.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <string.h>

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/uuid.h"

#include "codec/codec.h"
#include "compress/compress.h"
#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"

#define PF_VERSION "1.0"

PG_FUNCTION_INFO_V1(parquet_fdw_version);
PG_FUNCTION_INFO_V1(parquet_schema);
PG_FUNCTION_INFO_V1(parquet_metadata);
PG_FUNCTION_INFO_V1(parquet_file_metadata);
PG_FUNCTION_INFO_V1(parquet_kv_metadata);

/*
 * Reading arbitrary server files needs superuser or pg_read_server_files,
 * the rule of pg_read_file() and COPY FROM a file.
 */
static void
check_file_access(const char *path)
{
	/* a URL reads no server file: pf_remote_store checks its own right */
	if (pf_is_url(path))
		return;
	if (!superuser() &&
		!has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read Parquet files"),
				 errhint("Only superusers and roles with privileges of the \"%s\" role may read server files.",
						 "pg_read_server_files")));
}

/* Check privileges and open the file named by the text argument. */
static PfFile *
open_argument(FunctionCallInfo fcinfo)
{
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(0));

	check_file_access(path);
	return pf_open_file(path, CurrentMemoryContext);
}

/* ----------------------------------------------------------------
 * Naming helpers
 * ----------------------------------------------------------------
 */

/* Legacy ConvertedType names, by value. */
static const char *const converted_type_names[] = {
	"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
	"TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS",
	"UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32",
	"INT_64", "JSON", "BSON", "INTERVAL"
};

static char *
converted_type_text(int32 ct)
{
	if (ct < 0)
		return NULL;
	if (ct < (int32) lengthof(converted_type_names))
		return pstrdup(converted_type_names[ct]);
	return psprintf("CONVERTED_%d", ct);
}

static const char *
unit_name(PqTimeUnit unit)
{
	switch (unit)
	{
		case PQ_UNIT_MILLIS:
			return "MILLIS";
		case PQ_UNIT_MICROS:
			return "MICROS";
		case PQ_UNIT_NANOS:
			return "NANOS";
	}
	return "?";
}

/* "DECIMAL(10,2)", "TIMESTAMP(MICROS,utc)", "INTEGER(8,signed)", or NULL. */
static char *
logical_type_text(const PqLogicalType *lt)
{
	switch (lt->kind)
	{
		case PQ_LT_NONE:
			return NULL;
		case PQ_LT_DECIMAL:
			return psprintf("DECIMAL(%d,%d)", lt->precision, lt->scale);
		case PQ_LT_TIME:
		case PQ_LT_TIMESTAMP:
			return psprintf("%s(%s,%s)", pq_logical_kind_name(lt->kind),
							unit_name(lt->unit),
							lt->utc_adjusted ? "utc" : "local");
		case PQ_LT_INTEGER:
			return psprintf("INTEGER(%d,%s)", lt->bit_width,
							lt->is_signed ? "signed" : "unsigned");
		default:
			return pstrdup(pq_logical_kind_name(lt->kind));
	}
}

/* ----------------------------------------------------------------
 * parquet_fdw_version()
 * ----------------------------------------------------------------
 */
Datum
parquet_fdw_version(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	InitMaterializedSRF(fcinfo, 0);
	values[0] = CStringGetTextDatum(PF_VERSION);
	values[1] = CStringGetTextDatum(cmp_library_versions());
	values[2] = CStringGetTextDatum(cdc_isa_name(cdc_isa_current()));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 * parquet_schema(filename)
 * ----------------------------------------------------------------
 */
typedef struct SchemaWalk
{
	ReturnSetInfo *rsinfo;
	int			position;
} SchemaWalk;

#define SCHEMA_COLS 13

static void
schema_rows(SchemaWalk *sw, const PqSchemaNode *node, const char *path)
{
	Datum		values[SCHEMA_COLS];
	bool		nulls[SCHEMA_COLS];
	char	   *s;
	bool		is_root = node->parent == NULL;

	memset(nulls, 0, sizeof(nulls));
	values[0] = Int32GetDatum(sw->position++);
	if (is_root)
		nulls[1] = true;
	else
		values[1] = CStringGetTextDatum(path);
	values[2] = CStringGetTextDatum(node->name ? node->name : "");
	values[3] = CStringGetTextDatum(pq_repetition_name(node->repetition));
	if (node->is_leaf)
	{
		values[4] = CStringGetTextDatum(pq_physical_type_name(node->physical));
		if (node->physical == PQ_FIXED_LEN_BYTE_ARRAY)
			values[5] = Int32GetDatum(node->type_length);
		else
			nulls[5] = true;
	}
	else
		nulls[4] = nulls[5] = true;
	s = logical_type_text(&node->logical);
	if (s)
		values[6] = CStringGetTextDatum(s);
	else
		nulls[6] = true;
	s = converted_type_text(node->converted_type);
	if (s)
		values[7] = CStringGetTextDatum(s);
	else
		nulls[7] = true;
	values[8] = Int32GetDatum(node->max_def);
	values[9] = Int32GetDatum(node->max_rep);
	if (node->field_id >= 0)
		values[10] = Int32GetDatum(node->field_id);
	else
		nulls[10] = true;
	values[11] = Int32GetDatum(node->num_children);
	if (is_root)
		nulls[12] = true;
	else
		values[12] = CStringGetTextDatum(pf_default_type_sql(node));
	tuplestore_putvalues(sw->rsinfo->setResult, sw->rsinfo->setDesc,
						 values, nulls);

	for (int i = 0; i < node->num_children; i++)
	{
		const PqSchemaNode *ch = node->children[i];
		char	   *chpath = is_root ? pstrdup(ch->name) :
			psprintf("%s.%s", path, ch->name);

		schema_rows(sw, ch, chpath);
		pfree(chpath);
	}
}

Datum
parquet_schema(PG_FUNCTION_ARGS)
{
	PfFile	   *pf = open_argument(fcinfo);
	SchemaWalk	sw;

	InitMaterializedSRF(fcinfo, 0);
	sw.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	sw.position = 0;
	schema_rows(&sw, pf->meta->root, "");
	pf_close_file(pf);
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 * parquet_metadata(filename)
 * ----------------------------------------------------------------
 */

/* Bytes as bytea's hex output, "\x0a1b". */
static char *
hex_text(const uint8 *p, uint32 len)
{
	static const char hexdig[] = "0123456789abcdef";
	char	   *s = palloc((Size) len * 2 + 3);
	char	   *q = s;

	*q++ = '\\';
	*q++ = 'x';
	for (uint32 i = 0; i < len; i++)
	{
		*q++ = hexdig[p[i] >> 4];
		*q++ = hexdig[p[i] & 0xf];
	}
	*q = '\0';
	return s;
}

/* Big-endian two's complement bytes (up to 16) as a decimal string, scaled. */
static char *
decimal_text(const uint8 *p, uint32 len, int32 scale)
{
	__int128	v;
	unsigned __int128 mag;
	char		digits[48];
	int			nd = 0;
	StringInfoData buf;

	if (len == 0 || len > 16)
		return hex_text(p, len);
	v = (p[0] & 0x80) ? -1 : 0;
	for (uint32 i = 0; i < len; i++)
		v = (__int128) (((unsigned __int128) v << 8) | p[i]);
	mag = v < 0 ? -(unsigned __int128) v : (unsigned __int128) v;
	do
	{
		digits[nd++] = '0' + (char) (mag % 10);
		mag /= 10;
	} while (mag != 0);
	while (nd <= scale)
		digits[nd++] = '0';
	initStringInfo(&buf);
	if (v < 0)
		appendStringInfoChar(&buf, '-');
	for (int i = nd - 1; i >= 0; i--)
	{
		appendStringInfoChar(&buf, digits[i]);
		if (i == scale && scale > 0)
			appendStringInfoChar(&buf, '.');
	}
	return buf.data;
}

/* IEEE half (little-endian) to float. */
static float
half_value(const uint8 *p)
{
	uint16		h = (uint16) (p[0] | (p[1] << 8));
	int			exp = (h >> 10) & 0x1f;
	int			mant = h & 0x3ff;
	float		f;

	if (exp == 0)
		f = ldexpf((float) mant, -24);
	else if (exp == 31)
		f = mant ? get_float4_nan() : get_float4_infinity();
	else
		f = ldexpf((float) (mant | 0x400), exp - 25);
	return (h & 0x8000) ? -f : f;
}

/*
 * A statistics value (plain-encoded) as text, decoded per type: booleans,
 * integers, floats, decimals, dates, timestamps, UUIDs and strings (when the
 * column is STRING/ENUM/JSON and the bytes are valid UTF-8); anything else
 * as hex.
 */
static char *
stat_value_text(const PqSchemaNode *leaf, const uint8 *p, uint32 len)
{
	const PqLogicalType *lt = &leaf->logical;

	switch (leaf->physical)
	{
		case PQ_BOOLEAN:
			if (len >= 1)
				return pstrdup(p[0] ? "true" : "false");
			break;
		case PQ_INT32:
			if (len >= 4)
			{
				int32		v;

				memcpy(&v, p, 4);
				if (lt->kind == PQ_LT_DECIMAL)
				{
					uint8		be[4] = {(uint8) (v >> 24), (uint8) (v >> 16),
					(uint8) (v >> 8), (uint8) v};

					return decimal_text(be, 4, lt->scale);
				}
				if (lt->kind == PQ_LT_DATE)
				{
					int64		d = (int64) v - (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE);

					if (IS_VALID_DATE(d))
						return DatumGetCString(DirectFunctionCall1(date_out,
																   DateADTGetDatum((DateADT) d)));
				}
				if (lt->kind == PQ_LT_INTEGER && !lt->is_signed)
					return psprintf("%u", (uint32) v);
				return psprintf("%d", v);
			}
			break;
		case PQ_INT64:
			if (len >= 8)
			{
				int64		v;

				memcpy(&v, p, 8);
				if (lt->kind == PQ_LT_DECIMAL)
				{
					uint8		be[8];

					for (int i = 0; i < 8; i++)
						be[i] = (uint8) ((uint64) v >> (56 - 8 * i));
					return decimal_text(be, 8, lt->scale);
				}
				if (lt->kind == PQ_LT_TIMESTAMP)
				{
					int64		us = lt->unit == PQ_UNIT_MILLIS ? v * 1000 :
						lt->unit == PQ_UNIT_NANOS ? v / 1000 : v;
					int64		ts = us - (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;

					if ((lt->unit != PQ_UNIT_MILLIS ||
						 (v < PG_INT64_MAX / 1000 && v > PG_INT64_MIN / 1000)) &&
						IS_VALID_TIMESTAMP(ts))
						return DatumGetCString(DirectFunctionCall1(timestamp_out,
																   TimestampGetDatum(ts)));
				}
				if (lt->kind == PQ_LT_INTEGER && !lt->is_signed)
					return psprintf(UINT64_FORMAT, (uint64) v);
				return psprintf(INT64_FORMAT, v);
			}
			break;
		case PQ_FLOAT:
			if (len >= 4)
			{
				float		f;

				memcpy(&f, p, 4);
				return DatumGetCString(DirectFunctionCall1(float4out,
														   Float4GetDatum(f)));
			}
			break;
		case PQ_DOUBLE:
			if (len >= 8)
			{
				double		f;

				memcpy(&f, p, 8);
				return DatumGetCString(DirectFunctionCall1(float8out,
														   Float8GetDatum(f)));
			}
			break;
		case PQ_BYTE_ARRAY:
		case PQ_FIXED_LEN_BYTE_ARRAY:
			if (lt->kind == PQ_LT_STRING || lt->kind == PQ_LT_ENUM ||
				lt->kind == PQ_LT_JSON)
			{
				if (pg_encoding_verifymbstr(PG_UTF8, (const char *) p, len) == (int) len)
				{
					char	   *s = pg_any_to_server((const char *) p, len, PG_UTF8);

					return s == (const char *) p ? pnstrdup(s, len) : s;
				}
			}
			else if (lt->kind == PQ_LT_DECIMAL)
				return decimal_text(p, len, lt->scale);
			else if (lt->kind == PQ_LT_FLOAT16 && len == 2)
				return DatumGetCString(DirectFunctionCall1(float4out,
														   Float4GetDatum(half_value(p))));
			else if (lt->kind == PQ_LT_UUID && len == 16)
			{
				pg_uuid_t	u;

				memcpy(u.data, p, 16);
				return DatumGetCString(DirectFunctionCall1(uuid_out,
														   UUIDPGetDatum(&u)));
			}
			break;
		default:
			break;
	}
	return hex_text(p, len);
}

#define METADATA_COLS 23

Datum
parquet_metadata(PG_FUNCTION_ARGS)
{
	PfFile	   *pf = open_argument(fcinfo);
	const PqFileMeta *meta = pf->meta;
	ReturnSetInfo *rsinfo;

	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	for (int rg = 0; rg < meta->num_row_groups; rg++)
	{
		const PqRowGroupMeta *g = &meta->row_groups[rg];

		for (int c = 0; c < g->num_columns && c < meta->num_leaves; c++)
		{
			const PqColumnChunkMeta *cc = &g->columns[c];
			const PqLeaf *leaf = &meta->leaves[c];
			const PqStatistics *st = &cc->statistics;
			Datum		values[METADATA_COLS];
			bool		nulls[METADATA_COLS];
			Datum	   *encs;

			memset(nulls, 0, sizeof(nulls));
			values[0] = Int32GetDatum(rg);
			values[1] = Int64GetDatum(g->num_rows);
			values[2] = Int32GetDatum(c);
			values[3] = CStringGetTextDatum(leaf->path);
			values[4] = CStringGetTextDatum(pq_physical_type_name(cc->type));
			values[5] = CStringGetTextDatum(cmp_codec_name(cc->codec));
			encs = palloc(sizeof(Datum) * Max(1, cc->num_encodings));
			for (int e = 0; e < cc->num_encodings; e++)
				encs[e] = CStringGetTextDatum(pq_encoding_name(cc->encodings[e]));
			values[6] = PointerGetDatum(construct_array(encs, cc->num_encodings,
														TEXTOID, -1, false,
														TYPALIGN_INT));
			values[7] = Int64GetDatum(cc->num_values);
			values[8] = Int64GetDatum(cc->total_compressed_size);
			values[9] = Int64GetDatum(cc->total_uncompressed_size);
			values[10] = Int64GetDatum(cc->data_page_offset);
			if (cc->has_dictionary_page_offset)
				values[11] = Int64GetDatum(cc->dictionary_page_offset);
			else
				nulls[11] = true;
			values[12] = BoolGetDatum(cc->has_statistics);
			if (cc->has_statistics && st->has_min)
				values[13] = CStringGetTextDatum(stat_value_text(leaf->node, st->min, st->min_len));
			else
				nulls[13] = true;
			if (cc->has_statistics && st->has_max)
				values[14] = CStringGetTextDatum(stat_value_text(leaf->node, st->max, st->max_len));
			else
				nulls[14] = true;
			if (cc->has_statistics && st->has_null_count)
				values[15] = Int64GetDatum(st->null_count);
			else
				nulls[15] = true;
			if (cc->has_statistics && st->has_distinct_count)
				values[16] = Int64GetDatum(st->distinct_count);
			else
				nulls[16] = true;
			if (cc->has_statistics && st->has_min_exact)
				values[17] = BoolGetDatum(st->min_exact);
			else
				nulls[17] = true;
			if (cc->has_statistics && st->has_max_exact)
				values[18] = BoolGetDatum(st->max_exact);
			else
				nulls[18] = true;
			if (cc->has_bloom_filter)
				values[19] = Int64GetDatum(cc->bloom_filter_offset);
			else
				nulls[19] = true;
			if (cc->has_bloom_filter && cc->bloom_filter_length >= 0)
				values[20] = Int32GetDatum(cc->bloom_filter_length);
			else
				nulls[20] = true;
			if (cc->has_column_index)
				values[21] = Int64GetDatum(cc->column_index_offset);
			else
				nulls[21] = true;
			if (cc->has_offset_index)
				values[22] = Int64GetDatum(cc->offset_index_offset);
			else
				nulls[22] = true;
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
								 values, nulls);
		}
	}
	pf_close_file(pf);
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 * parquet_file_metadata(filename)
 * ----------------------------------------------------------------
 */
Datum
parquet_file_metadata(PG_FUNCTION_ARGS)
{
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(0));
	PfFile	   *pf;
	const PqFileMeta *meta;
	ReturnSetInfo *rsinfo;
	Datum		values[7];
	bool		nulls[7];

	check_file_access(path);
	pf = pf_open_file(path, CurrentMemoryContext);
	meta = pf->meta;
	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	memset(nulls, 0, sizeof(nulls));
	values[0] = CStringGetTextDatum(path);
	values[1] = Int32GetDatum(meta->version);
	values[2] = Int64GetDatum(meta->num_rows);
	values[3] = Int32GetDatum(meta->num_row_groups);
	values[4] = Int32GetDatum(meta->num_leaves);
	if (meta->created_by != NULL)
		values[5] = CStringGetTextDatum(meta->created_by);
	else
		nulls[5] = true;
	values[6] = Int64GetDatum((int64) meta->footer_length);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	pf_close_file(pf);
	return (Datum) 0;
}

/* ----------------------------------------------------------------
 * parquet_kv_metadata(filename)
 * ----------------------------------------------------------------
 */
Datum
parquet_kv_metadata(PG_FUNCTION_ARGS)
{
	PfFile	   *pf = open_argument(fcinfo);
	const PqFileMeta *meta = pf->meta;
	ReturnSetInfo *rsinfo;

	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	for (int i = 0; i < meta->num_key_values; i++)
	{
		const PqKeyValue *kv = &meta->key_values[i];
		Datum		values[3];
		bool		nulls[3] = {false, false, false};
		size_t		klen = kv->key ? strlen(kv->key) : 0;

		if (kv->key != NULL &&
			pg_encoding_verifymbstr(PG_UTF8, kv->key, klen) == (int) klen)
			values[0] = CStringGetTextDatum(pg_any_to_server(kv->key, klen, PG_UTF8));
		else
			nulls[0] = true;
		if (kv->value != NULL)
		{
			bytea	   *b = (bytea *) palloc(VARHDRSZ + kv->value_len);

			SET_VARSIZE(b, VARHDRSZ + kv->value_len);
			memcpy(VARDATA(b), kv->value, kv->value_len);
			values[1] = PointerGetDatum(b);
			if (pg_encoding_verifymbstr(PG_UTF8, kv->value, kv->value_len) == (int) kv->value_len)
			{
				char	   *s = pg_any_to_server(kv->value, kv->value_len, PG_UTF8);

				values[2] = PointerGetDatum(s == kv->value ?
											cstring_to_text_with_len(s, kv->value_len) :
											cstring_to_text(s));
			}
			else
				nulls[2] = true;
		}
		else
			nulls[1] = nulls[2] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pf_close_file(pf);
	return (Datum) 0;
}
