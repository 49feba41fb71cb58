/*-------------------------------------------------------------------------
 *
 * names.c
 *	  Human-readable names of Parquet types, encodings and repetitions.
 *
 * Names are the identifiers of parquet.thrift, so inspection output matches
 * what other tools print.  Values outside the enums map to "UNKNOWN".
 *
 * IDENTIFICATION
 *	  src/parquet/names.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/parquet.h"

const char *
pq_physical_type_name(PqPhysicalType type)
{
	switch (type)
	{
		case PQ_BOOLEAN:
			return "BOOLEAN";
		case PQ_INT32:
			return "INT32";
		case PQ_INT64:
			return "INT64";
		case PQ_INT96:
			return "INT96";
		case PQ_FLOAT:
			return "FLOAT";
		case PQ_DOUBLE:
			return "DOUBLE";
		case PQ_BYTE_ARRAY:
			return "BYTE_ARRAY";
		case PQ_FIXED_LEN_BYTE_ARRAY:
			return "FIXED_LEN_BYTE_ARRAY";
	}
	return "UNKNOWN";
}

const char *
pq_logical_kind_name(PqLogicalKind kind)
{
	switch (kind)
	{
		case PQ_LT_NONE:
			return "NONE";
		case PQ_LT_STRING:
			return "STRING";
		case PQ_LT_ENUM:
			return "ENUM";
		case PQ_LT_JSON:
			return "JSON";
		case PQ_LT_BSON:
			return "BSON";
		case PQ_LT_UUID:
			return "UUID";
		case PQ_LT_DECIMAL:
			return "DECIMAL";
		case PQ_LT_DATE:
			return "DATE";
		case PQ_LT_TIME:
			return "TIME";
		case PQ_LT_TIMESTAMP:
			return "TIMESTAMP";
		case PQ_LT_INTEGER:
			return "INTEGER";
		case PQ_LT_FLOAT16:
			return "FLOAT16";
		case PQ_LT_INTERVAL:
			return "INTERVAL";
		case PQ_LT_LIST:
			return "LIST";
		case PQ_LT_MAP:
			return "MAP";
		case PQ_LT_MAP_KEY_VALUE:
			return "MAP_KEY_VALUE";
		case PQ_LT_NULL:
			return "UNKNOWN";	/* parquet.thrift's name for the null type */
		case PQ_LT_VARIANT:
			return "VARIANT";
		case PQ_LT_GEOMETRY:
			return "GEOMETRY";
		case PQ_LT_GEOGRAPHY:
			return "GEOGRAPHY";
		case PQ_LT_OTHER:
			return "OTHER";
	}
	return "OTHER";
}

/* Parquet Encoding ids (parquet.thrift); 1 was GROUP_VAR_INT, never used. */
const char *
pq_encoding_name(int32_t encoding)
{
	switch (encoding)
	{
		case 0:
			return "PLAIN";
		case 1:
			return "GROUP_VAR_INT";
		case 2:
			return "PLAIN_DICTIONARY";
		case 3:
			return "RLE";
		case 4:
			return "BIT_PACKED";
		case 5:
			return "DELTA_BINARY_PACKED";
		case 6:
			return "DELTA_LENGTH_BYTE_ARRAY";
		case 7:
			return "DELTA_BYTE_ARRAY";
		case 8:
			return "RLE_DICTIONARY";
		case 9:
			return "BYTE_STREAM_SPLIT";
	}
	return "UNKNOWN";
}

const char *
pq_repetition_name(PqRepetition rep)
{
	switch (rep)
	{
		case PQ_REQUIRED:
			return "REQUIRED";
		case PQ_OPTIONAL:
			return "OPTIONAL";
		case PQ_REPEATED:
			return "REPEATED";
	}
	return "UNKNOWN";
}
