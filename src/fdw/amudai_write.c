/*-------------------------------------------------------------------------
 *
 * amudai_write.c
 *	  parquet_fdw_write_amudai(query, path, stripe_rows): run a query and
 *	  write its result as a single-file Amudai shard.
 *
 * The query runs through an SPI cursor, fetched in batches; each batch is
 * deformed once and appended column by column (the type decision made once
 * per column and batch) to the column arrays of the current stripe.  When
 * stripe_rows rows are collected, src/amudai/writer.c's streaming writer
 * encodes the stripe (per-block encodings chosen by trying candidates,
 * AM_WRITER_ENC_AUTO; field descriptors with counts, null counts and
 * min/max) and writes it to the file; the arrays are then reused.  Memory
 * is bounded by one stripe's data and encoding, whatever the result's size.
 *
 * Types: bool -> Boolean; smallint/integer/bigint -> Int16/32/64;
 * real/double precision -> Float32/64; text, varchar, char -> String
 * (UTF-8); bytea -> Binary; date, timestamp, timestamptz -> DateTime (100 ns
 * ticks, UTC; a timestamp is taken as UTC wall clock); numeric -> KustoDecimal
 * (decimal128, at most 34 significant digits); uuid -> Guid (the 16 bytes
 * in order); interval without months or days -> Int64 KustoTimeSpan;
 * one-dimensional arrays of those -> List (lower bounds become 1).
 *
 * The shard is written to a temporary file next to the target and renamed
 * over it only when complete (atomic_file.h): a failing query leaves the
 * old shard as it was.
 *
 * Writing a server file needs superuser or pg_write_server_files, as COPY
 * TO a file does.  An s3://, gs:// or az:// path is uploaded instead
 * (atomic_file.h): the object appears when the shard is complete; the
 * settings are the environment's, the privilege COPY TO a URL's.
 *
 * IDENTIFICATION
 *	  src/fdw/amudai_write.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "fdw/amudai_fdw.h"
#include "fdw/atomic_file.h"
#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"

PG_FUNCTION_INFO_V1(parquet_fdw_write_amudai);

#define AM_FETCH_ROWS		8192
#define AM_TICKS_TO_UNIX	INT64CONST(621355968000000000)
#define AM_UNIX_TO_PG_US	INT64CONST(946684800000000)

/* A result column being collected. */
typedef struct WriteColumn
{
	char	   *name;
	Oid			typid;
	AmBasicType type;
	bool		is_signed;
	uint32		width;			/* bytes per value; 0 for String/Binary */
	const char *label;
	char	   *values;
	Size		values_len;
	Size		values_cap;
	uint64	   *offsets;		/* String/Binary: rows + 1 */
	uint8	   *nulls;
	uint64		rows_cap;		/* entries of nulls (offsets: one more) */
	bool		any_null;
	/* arrays: a List column; the fields above then hold the elements */
	bool		is_list;
	Oid			elemtyp;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	uint64		elems;			/* elements so far */
	uint64	   *list_offsets;	/* rows + 1 */
	uint8	   *list_nulls;
	uint64		list_cap;
	bool		any_null_list;
} WriteColumn;

static void
column_setup(WriteColumn *c, Form_pg_attribute attr)
{
	Oid			typid = attr->atttypid;
	Oid			elemtyp = get_element_type(typid);

	c->name = pstrdup(NameStr(attr->attname));
	if (OidIsValid(elemtyp) && typid != INT2VECTOROID && typid != OIDVECTOROID)
	{
		/* a one-dimensional array: a List of its element type */
		c->is_list = true;
		c->elemtyp = elemtyp;
		get_typlenbyvalalign(elemtyp, &c->elmlen, &c->elmbyval, &c->elmalign);
		typid = elemtyp;
	}
	c->typid = typid;
	c->is_signed = true;
	switch (typid)
	{
		case BOOLOID:
			c->type = AM_TYPE_BOOLEAN;
			c->width = 1;
			break;
		case INT2OID:
			c->type = AM_TYPE_INT16;
			c->width = 2;
			break;
		case INT4OID:
			c->type = AM_TYPE_INT32;
			c->width = 4;
			break;
		case INT8OID:
			c->type = AM_TYPE_INT64;
			c->width = 8;
			break;
		case FLOAT4OID:
			c->type = AM_TYPE_FLOAT32;
			c->width = 4;
			break;
		case FLOAT8OID:
			c->type = AM_TYPE_FLOAT64;
			c->width = 8;
			break;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			c->type = AM_TYPE_STRING;
			break;
		case BYTEAOID:
			c->type = AM_TYPE_BINARY;
			break;
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			c->type = AM_TYPE_DATETIME;
			c->is_signed = false;
			c->width = 8;
			break;
		case NUMERICOID:
			c->type = AM_TYPE_FIXED_SIZE_BINARY;
			c->width = 16;
			c->label = "KustoDecimal";
			break;
		case UUIDOID:
			c->type = AM_TYPE_GUID;
			c->width = 16;
			break;
		case INTERVALOID:
			c->type = AM_TYPE_INT64;
			c->width = 8;
			c->label = "KustoTimeSpan";
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column \"%s\" of type %s cannot be written to an Amudai shard",
							c->name, format_type_be(attr->atttypid)),
					 errhint("Cast it to text, bytea, a numeric type or a one-dimensional array of those in the query.")));
	}
}

/* Make room for n more bytes of values and rows more rows. */
static void
column_reserve(WriteColumn *c, uint64 rows, Size bytes, uint64 total_rows)
{
	uint64		need_rows = total_rows + rows + 1;

	if (c->values_len + bytes > c->values_cap || c->values == NULL)
	{
		Size		cap = Max(c->values_cap * 2, c->values_len + bytes + 1024);

		c->values = c->values ? repalloc_huge(c->values, cap) :
			MemoryContextAllocHuge(CurrentMemoryContext, cap);
		c->values_cap = cap;
	}
	/* nulls and offsets grow with the values' row capacity */
	if (c->nulls == NULL || c->rows_cap < need_rows)
	{
		Size		cap = Max(need_rows * 2, 1024);

		c->rows_cap = cap;

		c->nulls = c->nulls ? repalloc_huge(c->nulls, cap) :
			MemoryContextAllocHuge(CurrentMemoryContext, cap);
		if (c->width == 0)
			c->offsets = c->offsets ? repalloc_huge(c->offsets, cap * sizeof(uint64)) :
				MemoryContextAllocHuge(CurrentMemoryContext, cap * sizeof(uint64));
	}
}

static void
append_fixed(WriteColumn *c, const void *v)
{
	memcpy(c->values + c->values_len, v, c->width);
	c->values_len += c->width;
}

/* DateTime ticks of PostgreSQL microseconds since 2000-01-01 UTC. */
static uint64
pg_us_to_ticks(int64 us, const char *column)
{
	int64		unix_us = us + AM_UNIX_TO_PG_US;
	int64		ticks;

	if (pg_mul_s64_overflow(unix_us, 10, &ticks) ||
		pg_add_s64_overflow(ticks, AM_TICKS_TO_UNIX, &ticks) || ticks < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("value of column \"%s\" is out of range for an Amudai DateTime",
						column),
				 errdetail("Amudai DateTime values start at 0001-01-01 UTC and cannot be infinite.")));
	return (uint64) ticks;
}

static void pg_attribute_noreturn()
infinite_value(const char *column)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("infinite value of column \"%s\" cannot be stored as an Amudai DateTime",
					column)));
}

/* A numeric as decimal128 bytes. */
static void
numeric_to_decimal(Datum d, const char *column, uint8 out[16])
{
	char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, d));
	AmDecimal	dec;
	AmError		err;
	const char *p = s;
	int			n = 0;
	int			frac = 0;
	bool		in_frac = false;
	int			start = 0;

	memset(&dec, 0, sizeof(dec));
	if (strcmp(s, "NaN") == 0)
		dec.kind = AM_DECIMAL_NAN;
	else if (strcmp(s, "Infinity") == 0 || strcmp(s, "-Infinity") == 0)
	{
		dec.kind = AM_DECIMAL_INFINITY;
		dec.negative = s[0] == '-';
	}
	else
	{
		char	   *all = palloc(strlen(s) + 1);

		if (*p == '-')
		{
			dec.negative = true;
			p++;
		}
		for (; *p; p++)
		{
			if (*p == '.')
				in_frac = true;
			else
			{
				all[n++] = *p;
				frac += in_frac;
			}
		}
		/* no leading zeros; then trailing zeros go to the exponent if too long */
		while (start < n - 1 && all[start] == '0')
			start++;
		dec.exponent = -frac;
		while (n - start > AM_DECIMAL_DIGITS && all[n - 1] == '0')
		{
			n--;
			dec.exponent++;
		}
		if (n - start > AM_DECIMAL_DIGITS)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("numeric value of column \"%s\" has more than 34 significant digits",
							column),
					 errdetail("Amudai stores numerics as KustoDecimal (decimal128)."),
					 errhint("Round the value in the query, e.g. with round().")));
		dec.ndigits = (uint32) (n - start);
		memcpy(dec.digits, all + start, dec.ndigits);
		pfree(all);
	}
	am_error_clear(&err);
	if (am_decimal128_encode(&dec, out, &err) != AM_OK)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("numeric value of column \"%s\" cannot be stored as KustoDecimal: %s",
						column, err.message)));
	pfree(s);
}

/* Append rows [0, nrows) of the deformed batch to column c. */
static void
column_append(WriteColumn *c, Datum *values, bool *isnull, int natts, int col,
			  uint64 nrows, uint64 total_rows)
{
	static const uint8 zeros[16] = {0};

	if (c->width > 0)
		column_reserve(c, nrows, (Size) nrows * c->width, total_rows);
	else
	{
		Size		bytes = 0;

		for (uint64 r = 0; r < nrows; r++)
			if (!isnull[r * natts + col])
				bytes += VARSIZE_ANY_EXHDR(DatumGetPointer(values[r * natts + col]));
		column_reserve(c, nrows, bytes, total_rows);
		if (total_rows == 0)
			c->offsets[0] = 0;
	}

	for (uint64 r = 0; r < nrows; r++)
	{
		bool		null = isnull[r * natts + col];

		c->nulls[total_rows + r] = null;
		c->any_null |= null;
	}

#define EACH_ROW(body) \
	for (uint64 r = 0; r < nrows; r++) \
	{ \
		Datum		d = values[r * natts + col]; \
		if (isnull[r * natts + col]) \
		{ \
			append_fixed(c, zeros); \
			continue; \
		} \
		body; \
	}

	switch (c->typid)
	{
		case BOOLOID:
			EACH_ROW(
			{
				uint8		v = DatumGetBool(d) ? 1 : 0;

				append_fixed(c, &v);
			});
			break;
		case INT2OID:
			EACH_ROW(
			{
				int16		v = DatumGetInt16(d);

				append_fixed(c, &v);
			});
			break;
		case INT4OID:
			EACH_ROW(
			{
				int32		v = DatumGetInt32(d);

				append_fixed(c, &v);
			});
			break;
		case INT8OID:
			EACH_ROW(
			{
				int64		v = DatumGetInt64(d);

				append_fixed(c, &v);
			});
			break;
		case FLOAT4OID:
			EACH_ROW(
			{
				float4		v = DatumGetFloat4(d);

				append_fixed(c, &v);
			});
			break;
		case FLOAT8OID:
			EACH_ROW(
			{
				float8		v = DatumGetFloat8(d);

				append_fixed(c, &v);
			});
			break;
		case DATEOID:
			EACH_ROW(
			{
				DateADT		day = DatumGetDateADT(d);
				uint64		v;

				if (DATE_NOT_FINITE(day))
					infinite_value(c->name);
				v = pg_us_to_ticks((int64) day * USECS_PER_DAY, c->name);
				append_fixed(c, &v);
			});
			break;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			EACH_ROW(
			{
				Timestamp	ts = DatumGetTimestamp(d);
				uint64		v;

				if (TIMESTAMP_NOT_FINITE(ts))
					infinite_value(c->name);
				v = pg_us_to_ticks(ts, c->name);
				append_fixed(c, &v);
			});
			break;
		case NUMERICOID:
			EACH_ROW(
			{
				uint8		v[16];

				numeric_to_decimal(d, c->name, v);
				append_fixed(c, v);
			});
			break;
		case UUIDOID:
			EACH_ROW(
			{
				append_fixed(c, DatumGetUUIDP(d)->data);
			});
			break;
		case INTERVALOID:
			EACH_ROW(
			{
				Interval   *iv = DatumGetIntervalP(d);
				int64		ticks;

				if (iv->month != 0 || iv->day != 0 ||
					pg_mul_s64_overflow(iv->time, 10, &ticks))
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("interval value of column \"%s\" has months or days",
									c->name),
							 errdetail("A KustoTimeSpan is a fixed number of ticks."),
							 errhint("Use justify_hours() in reverse, or extract(epoch from ...) in the query.")));
				append_fixed(c, &ticks);
			});
			break;
		default:
			/* String and Binary: bytes and offsets */
			for (uint64 r = 0; r < nrows; r++)
			{
				uint64		row = total_rows + r;

				if (!isnull[r * natts + col])
				{
					struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(values[r * natts + col]));
					const char *s = VARDATA_ANY(v);
					Size		len = VARSIZE_ANY_EXHDR(v);

					if (c->type == AM_TYPE_STRING && GetDatabaseEncoding() != PG_UTF8)
					{
						s = pg_server_to_any(s, (int) len, PG_UTF8);
						len = strlen(s);
						column_reserve(c, 0, len, total_rows + r);
					}
					memcpy(c->values + c->values_len, s, len);
					c->values_len += len;
				}
				c->offsets[row + 1] = c->values_len;
			}
			break;
	}
#undef EACH_ROW
}

/*
 * Append rows [0, nrows) of array column col: each array's elements go to
 * the element arrays (column_append over them), its end to list_offsets.
 */
static void
list_append(WriteColumn *c, Datum *values, bool *isnull, int natts, int col,
			uint64 nrows, uint64 total_rows)
{
	if (c->list_offsets == NULL || c->list_cap < total_rows + nrows + 1)
	{
		Size		cap = Max((total_rows + nrows + 1) * 2, 1024);

		c->list_offsets = c->list_offsets ?
			repalloc_huge(c->list_offsets, cap * sizeof(uint64)) :
			MemoryContextAllocHuge(CurrentMemoryContext, cap * sizeof(uint64));
		c->list_nulls = c->list_nulls ? repalloc_huge(c->list_nulls, cap) :
			MemoryContextAllocHuge(CurrentMemoryContext, cap);
		c->list_cap = cap;
	}
	if (total_rows == 0)
		c->list_offsets[0] = 0;
	for (uint64 r = 0; r < nrows; r++)
	{
		uint64		row = total_rows + r;

		c->list_nulls[row] = isnull[r * natts + col];
		c->any_null_list |= isnull[r * natts + col];
		if (!isnull[r * natts + col])
		{
			ArrayType  *arr = DatumGetArrayTypeP(values[r * natts + col]);
			Datum	   *elems;
			bool	   *enulls;
			int			n;

			if (ARR_NDIM(arr) > 1)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("array of column \"%s\" has %d dimensions", c->name,
								ARR_NDIM(arr)),
						 errdetail("Amudai lists have one dimension.")));
			/* a list has no lower bound: refuse rather than renumber silently */
			if (ARR_NDIM(arr) == 1 && ARR_LBOUND(arr)[0] != 1)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("array of column \"%s\" starts at index %d", c->name,
								ARR_LBOUND(arr)[0]),
						 errdetail("Amudai lists start at index 1 and store no lower bound."),
						 errhint("Write %s[:] to renumber the elements from 1.", c->name)));
			deconstruct_array(arr, c->elemtyp, c->elmlen, c->elmbyval,
							  c->elmalign, &elems, &enulls, &n);
			if (n > 0)
				column_append(c, elems, enulls, 1, 0, (uint64) n, c->elems);
			c->elems += (uint64) n;
		}
		c->list_offsets[row + 1] = c->elems;
	}
}

/* The shard's temporary file (atomic_file.h): the streaming writer's sink. */
static int
write_sink(void *ctx, const void *data, size_t len)
{
	return pf_atomic_file_write((PfAtomicFile *) ctx, data, len);
}

static void pg_attribute_noreturn()
report_write_error(PfAtomicFile *file, const char *path, const AmError *err)
{
	/* a failed upload: the store's error, not errno's */
	if (err->status == AM_ERR_IO && file != NULL && pf_is_url(path))
		pf_atomic_file_report(file, err->sys_errno);
	if (err->status == AM_ERR_IO && err->sys_errno != 0 && err->sys_errno != ENOMEM)
	{
		errno = err->sys_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write Amudai shard \"%s\": %m", path)));
	}
	ereport(ERROR,
			(errcode(err->status == AM_ERR_IO ? ERRCODE_OUT_OF_MEMORY : ERRCODE_INTERNAL_ERROR),
			 errmsg("could not write Amudai shard \"%s\": %s", path, err->message)));
}

/* The writer's view of the collected columns (rows of the current stripe). */
static void
writer_columns(WriteColumn *cols, int natts, AmWriterColumn *wcols)
{
	static const uint64 zero_offsets[2] = {0, 0};

	for (int i = 0; i < natts; i++)
	{
		WriteColumn *c = &cols[i];

		memset(&wcols[i], 0, sizeof(AmWriterColumn));
		if (c->values == NULL)
		{
			/* nothing collected yet: the writer still wants the pointers */
			c->values = palloc0(16);
			c->values_cap = 16;
			c->nulls = palloc0(1);
			c->rows_cap = 1;
			if (c->width == 0)
				c->offsets = palloc0(sizeof(uint64) * 2);
		}
		wcols[i].name = c->name;
		wcols[i].type = c->type;
		wcols[i].is_signed = c->is_signed;
		wcols[i].fixed_size = c->type == AM_TYPE_FIXED_SIZE_BINARY ? c->width : 0;
		wcols[i].encoding = AM_WRITER_ENC_AUTO;
		wcols[i].values = c->values;
		wcols[i].offsets = c->offsets;
		wcols[i].nulls = c->any_null ? c->nulls : NULL;
		wcols[i].extension_label = c->label;
		if (c->is_list)
		{
			wcols[i].list_offsets = c->list_offsets ? c->list_offsets : zero_offsets;
			wcols[i].list_nulls = c->any_null_list ? c->list_nulls : NULL;
		}
	}
}

/* Forget the collected rows, keeping the arrays for the next stripe. */
static void
columns_reset(WriteColumn *cols, int natts)
{
	for (int i = 0; i < natts; i++)
	{
		cols[i].values_len = 0;
		cols[i].any_null = false;
		cols[i].elems = 0;
		cols[i].any_null_list = false;
	}
}

Datum
parquet_fdw_write_amudai(PG_FUNCTION_ARGS)
{
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int64		stripe_rows = PG_NARGS() > 2 ? PG_GETARG_INT64(2) : 0;
	MemoryContext wcxt;
	MemoryContext batch_cxt;
	MemoryContext old;
	SPIPlanPtr	plan;
	Portal		portal;
	TupleDesc	tupdesc;
	WriteColumn *cols;
	AmWriterColumn *wcols;
	AmWriterOptions opts;
	PfcAllocator alloc;
	AmError		err;
	AmShardWriter *writer = NULL;
	PfAtomicFile *file;
	uint64		rows = 0;
	uint64		in_stripe = 0;
	int			natts;

	if (pf_is_url(path))
		pf_remote_check_write(path);
	else if (!superuser() &&
			 !has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to write an Amudai shard"),
				 errhint("Only superusers and roles with privileges of the \"%s\" role may write server files.",
						 "pg_write_server_files")));
	if (!pf_is_url(path) && !is_absolute_path(path))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("relative path not allowed for an Amudai shard written by the server")));
	if (stripe_rows <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("stripe_rows must be positive")));

	/* wcxt: the columns of one stripe and the writer; batch_cxt: a fetch */
	wcxt = AllocSetContextCreate(CurrentMemoryContext, "parquet_fdw amudai writer",
								 ALLOCSET_DEFAULT_SIZES);
	batch_cxt = AllocSetContextCreate(wcxt, "parquet_fdw amudai writer batch",
									  ALLOCSET_DEFAULT_SIZES);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	if (!SPI_is_cursor_plan(plan))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("query for parquet_fdw_write_amudai must return rows")));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	tupdesc = portal->tupDesc;
	natts = tupdesc->natts;

	old = MemoryContextSwitchTo(wcxt);
	cols = palloc0(sizeof(WriteColumn) * Max(1, natts));
	wcols = palloc0(sizeof(AmWriterColumn) * Max(1, natts));
	for (int i = 0; i < natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(tupdesc, i);

		if (attr->attisdropped)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("query result has a dropped column")));
		column_setup(&cols[i], attr);
		for (int j = 0; j < i; j++)
			if (strcmp(cols[j].name, cols[i].name) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("query result has two columns named \"%s\"", cols[i].name),
						 errhint("Give the columns distinct names with AS.")));
	}

	/* the old shard stays whole until the new one is complete */
	file = pf_atomic_file_create(path);
	memset(&opts, 0, sizeof(opts));
	opts.stripe_rows = (uint64) stripe_rows;
	opts.detect_constants = true;

	/* values per block: the trade-off measured in bench/AMUDAI.md */
	opts.block_values = AM_WRITER_BLOCK_VALUES;
	alloc = pf_context_allocator(wcxt);
	writer_columns(cols, natts, wcols);
	am_error_clear(&err);
	if (am_shard_writer_begin(&writer, wcols, (uint32) natts, &opts, &alloc,
							  write_sink, file, &err) != AM_OK)
		report_write_error(file, path, &err);
	MemoryContextSwitchTo(old);

	for (;;)
	{
		uint64		n;
		uint64		want = (uint64) stripe_rows - in_stripe;
		Datum	   *values;
		bool	   *isnull;

		CHECK_FOR_INTERRUPTS();
		SPI_cursor_fetch(portal, true, (long) Min(want, (uint64) AM_FETCH_ROWS));
		n = SPI_processed;
		if (n > 0)
		{
			old = MemoryContextSwitchTo(batch_cxt);
			values = palloc(sizeof(Datum) * n * Max(1, natts));
			isnull = palloc(sizeof(bool) * n * Max(1, natts));
			for (uint64 r = 0; r < n; r++)
				heap_deform_tuple(SPI_tuptable->vals[r], tupdesc,
								  values + r * natts, isnull + r * natts);
			/* the column arrays live in wcxt, across batches */
			MemoryContextSwitchTo(wcxt);
			for (int i = 0; i < natts; i++)
			{
				if (cols[i].is_list)
					list_append(&cols[i], values, isnull, natts, i, n, in_stripe);
				else
					column_append(&cols[i], values, isnull, natts, i, n, in_stripe);
			}
			MemoryContextSwitchTo(old);
			MemoryContextReset(batch_cxt);
			SPI_freetuptable(SPI_tuptable);
			in_stripe += n;
			rows += n;
		}
		/* a full stripe, or the last one, goes to the file */
		if (in_stripe > 0 && (in_stripe == (uint64) stripe_rows || n == 0))
		{
			old = MemoryContextSwitchTo(wcxt);
			writer_columns(cols, natts, wcols);
			if (am_shard_writer_add_stripe(writer, wcols, in_stripe, &err) != AM_OK)
				report_write_error(file, path, &err);
			MemoryContextSwitchTo(old);
			columns_reset(cols, natts);
			in_stripe = 0;
		}
		if (n == 0)
			break;
	}
	SPI_cursor_close(portal);

	if (am_shard_writer_finish(writer, &err) != AM_OK)
		report_write_error(file, path, &err);
	am_shard_writer_free(writer);
	pf_atomic_file_commit(file, true);
	MemoryContextDelete(wcxt);
	SPI_finish();
	PG_RETURN_INT64((int64) rows);
}
