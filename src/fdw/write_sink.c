/*-------------------------------------------------------------------------
 *
 * write_sink.c
 *	  Tuples to Parquet row groups: see write_sink.h for the type mapping.
 *
 * Each column buffers one row group in the layout pq_writer_write_column()
 * takes: fixed-width values in one array, variable-width values as
 * (offset, length) into one byte arena (turned into views at flush, since
 * the arena moves as it grows), nulls per row; list columns keep per-row
 * Arrays and composites are shredded as they arrive: a tree of SinkNode per
 * such column turns each value into definition/repetition levels and dense
 * non-null values for every leaf below it.  The Parquet writer is opened at
 * the first flush, when the buffered rows tell how many of them fill
 * page_size bytes and how many dimensions each array column has.
 *
 * IDENTIFICATION
 *	  src/fdw/write_sink.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "codec/codec.h"
#include "compress/compress.h"
#include "fdw/atomic_file.h"
#include "fdw/numeric_form.h"
#include "fdw/parquet_fdw.h"
#include "fdw/write_sink.h"
#include "parquet/writer.h"

#define PF_UNIX_TO_PG_DAYS	10957
#define PF_UNIX_TO_PG_USECS	INT64CONST(946684800000000)
#define PF_CLIENT_CHUNK		(64 * 1024)
#define PF_UNCONSTRAINED_PRECISION 38
#define PF_UNCONSTRAINED_SCALE 9

/* How a value becomes Parquet bytes. */
typedef enum WriteKind
{
	WK_BOOL,
	WK_INT16,
	WK_INT32,
	WK_INT64,
	WK_FLOAT4,
	WK_FLOAT8,
	WK_DECIMAL,					/* numeric -> scaled integer, 4/8/n bytes */
	WK_TEXT,					/* text, varchar, bpchar: the bytes */
	WK_NAME,
	WK_BYTEA,
	WK_OUTPUT,					/* enum, json, jsonb: the output function */
	WK_DATE,
	WK_TIME,
	WK_TIMETZ,
	WK_TIMESTAMP,				/* also timestamptz */
	WK_INTERVAL,
	WK_UUID
} WriteKind;

typedef struct SinkColumn
{
	const char *name;
	int			attnum;			/* index into the slot */
	Oid			typid;			/* the declared type (for messages) */
	WriteKind	kind;
	int			width;			/* bytes per fixed value; 0: variable */
	int			scale;			/* WK_DECIMAL */
	int			precision;		/* WK_DECIMAL */
	int128		limit;			/* WK_DECIMAL: 10^precision */
	FmgrInfo	out_fn;			/* WK_OUTPUT */

	MemoryContext cxt;			/* where the buffers live */
	bool		leveled;		/* below an array or composite: levels */

	/* one row group */
	uint32		nvalues;		/* non-null values buffered */
	char	   *fixed;			/* nvalues * width bytes */
	uint32		fixed_cap;		/* values */
	uint64	   *var_off;		/* variable: arena offset per value */
	uint32	   *var_len;
	char	   *arena;
	uint64		arena_len;
	uint64		arena_cap;
	bool	   *row_null;		/* flat: per row */
	bool		any_null;
	int16	   *def;			/* leveled: one entry per level */
	int16	   *rep;
	uint32		nlev;
	uint32		lev_cap;
} SinkColumn;

/*
 * The shape of an array or composite column.  Definition levels count
 * OPTIONAL nodes and repeated list entries on the way down, repetition
 * levels the array dimensions: shred() computes both as it descends, so an
 * array's dimension count only has to be known once a non-empty value (or
 * the writer's schema) asks for it.
 */
typedef enum SinkNodeKind
{
	SN_LEAF,
	SN_STRUCT,
	SN_ARRAY
} SinkNodeKind;

typedef struct SinkNode
{
	SinkNodeKind kind;
	const char *name;			/* the Parquet field name */
	const char *path;			/* for messages: column.field */
	bool		optional;
	int			first_leaf;		/* the leaves below: consecutive columns */
	int			nleaves;
	int			leaf;			/* SN_LEAF: index into cols */

	/* SN_STRUCT */
	TupleDesc	tupdesc;
	int			nfields;
	struct SinkNode **fields;	/* per attribute of tupdesc; NULL: dropped */

	/* SN_ARRAY */
	struct SinkNode *element;
	Oid			elemtype;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	int			ndim;			/* 0: not known yet */
} SinkNode;

/* A column of the output: a flat leaf, or a tree of nodes. */
typedef struct SinkAttr
{
	int			attnum;
	SinkNode   *node;			/* NULL: flat, cols[leaf] */
	int			leaf;
} SinkAttr;

struct PfParquetSink
{
	MemoryContext cxt;
	MemoryContext row_cxt;		/* per-row garbage of output functions */
	PfWriteOptions opts;
	int			ncols;			/* leaves */
	int			cols_cap;
	SinkColumn *cols;
	PqWriteColumn *defs;
	int			nattrs;
	SinkAttr   *attrs;
	bool		any_nested;
	PqWriter   *writer;
	PqWriterOptions wopts;
	PfcAllocator alloc;
	PqSink		pqsink;

	PfAtomicFile *file;			/* NULL: to the client */
	char	   *target;
	StringInfoData client_buf;
	int			sink_errno;

	/* sorting_columns: the declared order, checked row by row */
	int			nsort;
	PqWriteSortingColumn *sort;
	FmgrInfo   *sort_cmp;		/* btree comparison per key */
	Oid		   *sort_collation;
	Datum	   *prev_values;	/* the previous row's keys */
	bool	   *prev_nulls;
	bool		have_prev;
	MemoryContext prev_cxt[2];	/* the previous row's copies, alternating */
	int			prev_which;

	uint32		rows;			/* buffered rows */
	uint32		rows_cap;
	uint64		buffered_bytes;
	uint64		total_rows;
};

static void grow_rows(PfParquetSink *sink);
static void setup_sorting(PfParquetSink *sink, TupleDesc desc);
static void check_order(PfParquetSink *sink, TupleTableSlot *slot);
static int	find_column(PfParquetSink *sink, const char *name, const char *option);

/* ----------------------------------------------------------------
 * Where the bytes go
 * ---------------------------------------------------------------- */

static int
client_flush(PfParquetSink *sink)
{
	/* the buffer is the CopyData message being built */
	if (sink->client_buf.len > 0)
	{
		pq_endmessage_reuse(&sink->client_buf);
		resetStringInfo(&sink->client_buf);
		sink->client_buf.cursor = 'd';	/* reset clears the message type */
	}
	return 0;
}

static int
sink_write(void *ctx, const void *buf, size_t len)
{
	PfParquetSink *sink = (PfParquetSink *) ctx;

	if (sink->file)
		return pf_atomic_file_write(sink->file, buf, len);
	{
		MemoryContext old = MemoryContextSwitchTo(sink->cxt);

		appendBinaryStringInfo(&sink->client_buf, buf, (int) len);
		MemoryContextSwitchTo(old);
	}
	if (sink->client_buf.len >= PF_CLIENT_CHUNK)
		return client_flush(sink);
	return 0;
}

static void pg_attribute_noreturn()
report_writer_error(PfParquetSink *sink, const PqError *err)
{
	if (err->status == PQ_ERR_IO && sink->file)
		pf_atomic_file_report(sink->file, err->sys_errno);
	if (err->status == PQ_ERR_IO)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("could not send Parquet data to the client")));
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("could not write Parquet file \"%s\": %s",
					sink->target ? sink->target : "STDOUT", err->message),
			 err->detail[0] ? errdetail("%s", err->detail) : 0));
}

/* ----------------------------------------------------------------
 * Type mapping (once per column)
 * ---------------------------------------------------------------- */

static void pg_attribute_noreturn()
unsupported_type(const char *name, Oid typid, int32 typmod, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("column \"%s\" of type %s cannot be written to Parquet",
					name, format_type_with_typemod(typid, typmod)),
			 errdetail("%s", why),
			 errhint("Cast the column to text or to a supported type in a query.")));
}

/* Smallest FIXED_LEN_BYTE_ARRAY holding precision decimal digits signed. */
static int
decimal_bytes(int precision)
{
	int			n = 1;

	while (pow(2.0, 8.0 * n - 1) <= pow(10.0, precision))
		n++;
	return n;
}

/*
 * Map a scalar type (domains already resolved) to kind and Parquet leaf.
 * Returns false for a type that has no mapping.
 */
static bool
map_scalar(SinkColumn *c, Oid typid, int32 typmod, PqWriteColumn *def)
{
	PqLogicalType *lt = &def->logical;

	memset(lt, 0, sizeof(*lt));
	lt->kind = PQ_LT_NONE;
	c->width = 0;
	switch (typid)
	{
		case BOOLOID:
			c->kind = WK_BOOL;
			def->physical = PQ_BOOLEAN;
			c->width = 1;
			return true;
		case INT2OID:
			c->kind = WK_INT16;
			def->physical = PQ_INT32;
			lt->kind = PQ_LT_INTEGER;
			lt->bit_width = 16;
			lt->is_signed = true;
			c->width = 4;
			return true;
		case INT4OID:
			c->kind = WK_INT32;
			def->physical = PQ_INT32;
			c->width = 4;
			return true;
		case INT8OID:
			c->kind = WK_INT64;
			def->physical = PQ_INT64;
			c->width = 8;
			return true;
		case FLOAT4OID:
			c->kind = WK_FLOAT4;
			def->physical = PQ_FLOAT;
			c->width = 4;
			return true;
		case FLOAT8OID:
			c->kind = WK_FLOAT8;
			def->physical = PQ_DOUBLE;
			c->width = 8;
			return true;
		case NUMERICOID:
			c->kind = WK_DECIMAL;
			if (typmod >= (int32) VARHDRSZ)
			{
				c->precision = ((typmod - VARHDRSZ) >> 16) & 0xffff;
				c->scale = (int16) ((typmod - VARHDRSZ) & 0xffff);
				if (c->precision > 38 || c->scale < 0 || c->scale > c->precision)
					return false;
			}
			else
			{
				c->precision = PF_UNCONSTRAINED_PRECISION;
				c->scale = PF_UNCONSTRAINED_SCALE;
			}
			c->limit = 1;
			for (int i = 0; i < c->precision; i++)
				c->limit *= 10;
			lt->kind = PQ_LT_DECIMAL;
			lt->precision = c->precision;
			lt->scale = c->scale;
			if (c->precision <= 9)
			{
				def->physical = PQ_INT32;
				c->width = 4;
			}
			else if (c->precision <= 18)
			{
				def->physical = PQ_INT64;
				c->width = 8;
			}
			else
			{
				def->physical = PQ_FIXED_LEN_BYTE_ARRAY;
				c->width = decimal_bytes(c->precision);
				def->type_length = c->width;
			}
			return true;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			c->kind = WK_TEXT;
			def->physical = PQ_BYTE_ARRAY;
			lt->kind = PQ_LT_STRING;
			return true;
		case NAMEOID:
			c->kind = WK_NAME;
			def->physical = PQ_BYTE_ARRAY;
			lt->kind = PQ_LT_STRING;
			return true;
		case BYTEAOID:
			c->kind = WK_BYTEA;
			def->physical = PQ_BYTE_ARRAY;
			return true;
		case JSONOID:
		case JSONBOID:
			c->kind = WK_OUTPUT;
			def->physical = PQ_BYTE_ARRAY;
			lt->kind = PQ_LT_JSON;
			break;
		case DATEOID:
			c->kind = WK_DATE;
			def->physical = PQ_INT32;
			lt->kind = PQ_LT_DATE;
			c->width = 4;
			return true;
		case TIMEOID:
		case TIMETZOID:
			c->kind = typid == TIMEOID ? WK_TIME : WK_TIMETZ;
			def->physical = PQ_INT64;
			lt->kind = PQ_LT_TIME;
			lt->unit = PQ_UNIT_MICROS;
			lt->utc_adjusted = typid == TIMETZOID;
			c->width = 8;
			return true;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			c->kind = WK_TIMESTAMP;
			def->physical = PQ_INT64;
			lt->kind = PQ_LT_TIMESTAMP;
			lt->unit = PQ_UNIT_MICROS;
			lt->utc_adjusted = typid == TIMESTAMPTZOID;
			c->width = 8;
			return true;
		case INTERVALOID:
			c->kind = WK_INTERVAL;
			def->physical = PQ_FIXED_LEN_BYTE_ARRAY;
			def->type_length = 12;
			lt->kind = PQ_LT_INTERVAL;
			c->width = 12;
			return true;
		case UUIDOID:
			c->kind = WK_UUID;
			def->physical = PQ_FIXED_LEN_BYTE_ARRAY;
			def->type_length = 16;
			lt->kind = PQ_LT_UUID;
			c->width = 16;
			return true;
		default:
			if (!type_is_enum(typid))
				return false;
			/* STRING, not ENUM: arrow-rs and hyparquet read ENUM as bytes */
			c->kind = WK_OUTPUT;
			def->physical = PQ_BYTE_ARRAY;
			lt->kind = PQ_LT_STRING;
			break;
	}
	/* WK_OUTPUT */
	{
		Oid			out;
		bool		varlena;

		getTypeOutputInfo(typid, &out, &varlena);
		fmgr_info_cxt(out, &c->out_fn, CurrentMemoryContext);
	}
	return true;
}

/* A new leaf column; returns its index (cols may move). */
static int
add_leaf(PfParquetSink *sink, const char *path)
{
	int			i = sink->ncols;

	if (i == sink->cols_cap)
	{
		int			cap = Max(8, sink->cols_cap * 2);

		sink->cols = repalloc(sink->cols, sizeof(SinkColumn) * cap);
		sink->defs = repalloc(sink->defs, sizeof(PqWriteColumn) * cap);
		memset(sink->cols + i, 0, sizeof(SinkColumn) * (cap - i));
		memset(sink->defs + i, 0, sizeof(PqWriteColumn) * (cap - i));
		sink->cols_cap = cap;
	}
	sink->cols[i].name = path;
	sink->cols[i].cxt = sink->cxt;
	sink->defs[i].name = path;
	sink->defs[i].field_id = -1;
	sink->defs[i].parent = -1;
	sink->ncols++;
	return i;
}

static void
map_leaf(PfParquetSink *sink, int leaf, Oid typid, int32 typmod, Oid shown_typid,
		 int32 shown_typmod)
{
	SinkColumn *c = &sink->cols[leaf];
	PqWriteColumn *def = &sink->defs[leaf];

	c->typid = typid;
	if (!map_scalar(c, typid, typmod, def))
		unsupported_type(c->name, shown_typid, shown_typmod,
						 typid == NUMERICOID ?
						 "Parquet DECIMAL holds at most 38 digits, with 0 <= scale <= precision." :
						 "This type has no Parquet mapping.");
	def->encoding = sink->opts.dictionary && def->physical != PQ_BOOLEAN ?
		PQ_WRITE_DICTIONARY : PQ_WRITE_PLAIN;
}

/*
 * The node of a value of type typid (domains resolved here) inside an
 * array or composite: a leaf, a STRUCT of the composite's attributes, or
 * a LIST of the array's elements.
 */
static SinkNode *
map_node(PfParquetSink *sink, Oid typid, int32 typmod, const char *name,
		 const char *path, bool optional, int ndims)
{
	SinkNode   *n = palloc0(sizeof(SinkNode));
	Oid			shown = typid;
	int32		shown_typmod = typmod;
	Oid			elem;

	check_stack_depth();
	typid = getBaseTypeAndTypmod(typid, &typmod);
	elem = get_element_type(typid);
	n->name = name;
	n->path = path;
	n->optional = optional;
	n->first_leaf = sink->ncols;
	if (OidIsValid(elem) && typid != NAMEOID)
	{
		n->kind = SN_ARRAY;
		n->elemtype = elem;
		/* int[][] declares its dimensions; int[] (and a query's 0) leaves
		 * them to the first non-empty value, as PostgreSQL enforces none */
		n->ndim = ndims >= 2 && ndims <= MAXDIM ? ndims : 0;
		get_typlenbyvalalign(elem, &n->elmlen, &n->elmbyval, &n->elmalign);
		/* the array's typmod applies to its elements */
		n->element = map_node(sink, elem, typmod, "element", path, true, 0);
	}
	else if (type_is_rowtype(typid))
	{
		if (typid == RECORDOID && typmod < 0)
			unsupported_type(path, shown, shown_typmod,
							 "An anonymous record has no field names: cast it to a composite type.");
		n->kind = SN_STRUCT;
		n->tupdesc = lookup_rowtype_tupdesc_copy(typid, typmod);
		n->nfields = n->tupdesc->natts;
		n->fields = palloc0(sizeof(SinkNode *) * Max(1, n->nfields));
		for (int i = 0; i < n->nfields; i++)
		{
			Form_pg_attribute a = TupleDescAttr(n->tupdesc, i);
			const char *fname;

			if (a->attisdropped)
				continue;
			fname = pstrdup(NameStr(a->attname));
			n->fields[i] = map_node(sink, a->atttypid, a->atttypmod, fname,
									psprintf("%s.%s", path, fname), true, a->attndims);
		}
		if (sink->ncols == n->first_leaf)
			unsupported_type(path, shown, shown_typmod,
							 "A composite type without attributes has no Parquet STRUCT.");
	}
	else
	{
		n->kind = SN_LEAF;
		n->leaf = add_leaf(sink, path);
		sink->defs[n->leaf].name = name;
		sink->cols[n->leaf].leveled = true;
		map_leaf(sink, n->leaf, typid, typmod, shown, shown_typmod);
	}
	n->nleaves = sink->ncols - n->first_leaf;
	return n;
}

/* Map one output column: flat, or a node tree (arrays, composites). */
static void
map_column(PfParquetSink *sink, SinkAttr *sa, Form_pg_attribute attr)
{
	int32		typmod = attr->atttypmod;
	Oid			typid = getBaseTypeAndTypmod(attr->atttypid, &typmod);
	const char *name = pstrdup(NameStr(attr->attname));

	sa->attnum = attr->attnum - 1;
	if ((OidIsValid(get_element_type(typid)) && typid != NAMEOID) ||
		type_is_rowtype(typid))
	{
		sa->node = map_node(sink, attr->atttypid, attr->atttypmod, name, name,
							!attr->attnotnull, attr->attndims);
		sa->leaf = sa->node->first_leaf;
		sink->any_nested = true;
		return;
	}
	sa->leaf = add_leaf(sink, name);
	sink->defs[sa->leaf].repetition = attr->attnotnull ? PQ_REQUIRED : PQ_OPTIONAL;
	map_leaf(sink, sa->leaf, typid, typmod, attr->atttypid, attr->atttypmod);
}

/* ----------------------------------------------------------------
 * Values
 * ---------------------------------------------------------------- */

static void pg_attribute_noreturn()
value_error(const SinkColumn *c, const char *msg, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("value of column \"%s\" cannot be written to Parquet: %s", c->name, msg),
			 detail ? errdetail("%s", detail) : 0));
}

/* An unscaled decimal: INT32/INT64 little-endian, else big-endian bytes. */
static void
put_unscaled(const SinkColumn *c, int128 v, char *out)
{
	if (c->width == 4)
	{
		int32		i = (int32) v;

		memcpy(out, &i, 4);
	}
	else if (c->width == 8)
	{
		int64		i = (int64) v;

		memcpy(out, &i, 8);
	}
	else
	{
		for (int b = c->width - 1; b >= 0; b--)
		{
			out[b] = (char) (uint8) (v & 0xff);
			v >>= 8;
		}
	}
}

/* numeric -> two's complement integer scaled by c->scale. */
static void
put_decimal(const SinkColumn *c, Datum d, char *out)
{
	char	   *s;
	const char *p;
	bool		neg = false;
	int			digits = 0;
	int			frac = -1;
	int128		v = 0;
	char		detail[128];

	/* the stored digits, when they fit; else the text, which also errors */
	if (pf_numeric_unscaled_fast(d, c->scale, &v) && v < c->limit && -v < c->limit)
	{
		put_unscaled(c, v, out);
		return;
	}
	s = DatumGetCString(DirectFunctionCall1(numeric_out, d));
	p = s;
	v = 0;

	if (*p == '-')
	{
		neg = true;
		p++;
	}
	if (!isdigit((unsigned char) *p))
		value_error(c, psprintf("%s is not a finite number", s), NULL);
	snprintf(detail, sizeof(detail),
			 "The column is written as DECIMAL(%d,%d)%s.", c->precision, c->scale,
			 c->typid == NUMERICOID && c->precision == PF_UNCONSTRAINED_PRECISION ?
			 ", the rule for numeric without precision; cast it to numeric(p,s) to choose" : "");
	for (; *p; p++)
	{
		if (*p == '.')
		{
			frac = 0;
			continue;
		}
		if (frac >= 0)
		{
			if (frac == c->scale)
			{
				if (*p != '0')
					value_error(c, psprintf("%s has more than %d digits after the decimal point", s, c->scale), detail);
				continue;
			}
			frac++;
		}
		if (v != 0 || *p != '0')
			digits++;
		v = v * 10 + (*p - '0');
	}
	for (frac = Max(frac, 0); frac < c->scale; frac++)
	{
		v *= 10;
		if (v != 0)
			digits++;
	}
	if (digits > c->precision)
		value_error(c, psprintf("%s has more than %d significant digits", s, c->precision), detail);
	if (neg)
		v = -v;
	put_unscaled(c, v, out);
	pfree(s);
}

static void
put_fixed(const SinkColumn *c, Datum d, char *out)
{
	switch (c->kind)
	{
		case WK_BOOL:
			*out = DatumGetBool(d) ? 1 : 0;
			break;
		case WK_INT16:
			{
				int32		v = DatumGetInt16(d);

				memcpy(out, &v, 4);
				break;
			}
		case WK_INT32:
			{
				int32		v = DatumGetInt32(d);

				memcpy(out, &v, 4);
				break;
			}
		case WK_INT64:
			{
				int64		v = DatumGetInt64(d);

				memcpy(out, &v, 8);
				break;
			}
		case WK_FLOAT4:
			{
				float4		v = DatumGetFloat4(d);

				memcpy(out, &v, 4);
				break;
			}
		case WK_FLOAT8:
			{
				float8		v = DatumGetFloat8(d);

				memcpy(out, &v, 8);
				break;
			}
		case WK_DECIMAL:
			put_decimal(c, d, out);
			break;
		case WK_DATE:
			{
				DateADT		v = DatumGetDateADT(d);

				if (DATE_NOT_FINITE(v))
					value_error(c, "infinite dates have no Parquet DATE", NULL);
				v += PF_UNIX_TO_PG_DAYS;
				memcpy(out, &v, 4);
				break;
			}
		case WK_TIME:
			{
				int64		v = DatumGetTimeADT(d);

				memcpy(out, &v, 8);
				break;
			}
		case WK_TIMETZ:
			{
				TimeTzADT  *t = DatumGetTimeTzADTP(d);
				int64		v = t->time + (int64) t->zone * USECS_PER_SEC;

				/* normalized to UTC, wrapped into one day */
				v %= USECS_PER_DAY;
				if (v < 0)
					v += USECS_PER_DAY;
				memcpy(out, &v, 8);
				break;
			}
		case WK_TIMESTAMP:
			{
				int64		v = DatumGetTimestamp(d);

				if (TIMESTAMP_NOT_FINITE(v))
					value_error(c, "infinite timestamps have no Parquet TIMESTAMP", NULL);
				v += PF_UNIX_TO_PG_USECS;
				memcpy(out, &v, 8);
				break;
			}
		case WK_INTERVAL:
			{
				Interval   *iv = DatumGetIntervalP(d);
				uint32		parts[3];

				if (iv->month < 0 || iv->day < 0 || iv->time < 0 ||
					iv->time % 1000 != 0 || iv->time / 1000 > PG_UINT32_MAX)
					value_error(c, "Parquet INTERVAL holds non-negative months, days and milliseconds below 2^32",
								"Cast it to text to keep any interval.");
				parts[0] = (uint32) iv->month;
				parts[1] = (uint32) iv->day;
				parts[2] = (uint32) (iv->time / 1000);
				memcpy(out, parts, 12);
				break;
			}
		case WK_UUID:
			memcpy(out, DatumGetUUIDP(d)->data, 16);
			break;
		default:
			elog(ERROR, "unexpected fixed-width kind %d", (int) c->kind);
	}
}

/* The bytes of a variable-width value; may allocate in the current context. */
static void
var_bytes(const SinkColumn *c, Datum d, const char **ptr, uint32 *len)
{
	switch (c->kind)
	{
		case WK_TEXT:
		case WK_BYTEA:
			{
				struct varlena *v = PG_DETOAST_DATUM_PACKED(d);

				*ptr = VARDATA_ANY(v);
				*len = VARSIZE_ANY_EXHDR(v);
				break;
			}
		case WK_NAME:
			*ptr = NameStr(*DatumGetName(d));
			*len = strlen(*ptr);
			break;
		case WK_OUTPUT:
			*ptr = OutputFunctionCall((FmgrInfo *) &c->out_fn, d);
			*len = strlen(*ptr);
			break;
		default:
			elog(ERROR, "unexpected variable-width kind %d", (int) c->kind);
	}
}

/* Append one non-null value to the column's value buffers. */
static uint64
put_value(SinkColumn *c, Datum d)
{
	if (c->width > 0)
	{
		if (c->nvalues == c->fixed_cap)
		{
			c->fixed_cap = Max(1024, c->fixed_cap * 2);
			c->fixed = c->fixed ? repalloc_huge(c->fixed, (Size) c->fixed_cap * c->width) :
				MemoryContextAllocHuge(c->cxt, (Size) c->fixed_cap * c->width);
		}
		put_fixed(c, d, c->fixed + (Size) c->nvalues * c->width);
		c->nvalues++;
		return c->width;
	}
	else
	{
		const char *ptr;
		uint32		len;

		var_bytes(c, d, &ptr, &len);
		if (c->nvalues == c->fixed_cap)
		{
			MemoryContext cxt = c->cxt;

			c->fixed_cap = Max(1024, c->fixed_cap * 2);
			c->var_off = c->var_off ? repalloc_huge(c->var_off, sizeof(uint64) * c->fixed_cap) :
				MemoryContextAllocHuge(cxt, sizeof(uint64) * c->fixed_cap);
			c->var_len = c->var_len ? repalloc_huge(c->var_len, sizeof(uint32) * c->fixed_cap) :
				MemoryContextAllocHuge(cxt, sizeof(uint32) * c->fixed_cap);
		}
		if (c->arena_len + len > c->arena_cap)
		{
			uint64		cap = Max(c->arena_cap * 2, c->arena_len + len);

			cap = Max(cap, 64 * 1024);
			c->arena = c->arena ? repalloc_huge(c->arena, cap) :
				MemoryContextAllocHuge(c->cxt, cap);
			c->arena_cap = cap;
		}
		memcpy(c->arena + c->arena_len, ptr, len);
		c->var_off[c->nvalues] = c->arena_len;
		c->var_len[c->nvalues] = len;
		c->arena_len += len;
		c->nvalues++;
		return len + 4;
	}
}

/*
 * A numeric of at most 16 digits times 10^scale, in 64-bit arithmetic from
 * its stored form (base-10000 digits, weight, sign: the on-disk format,
 * numeric_form.h, as pf_numeric_unscaled_fast reads it for int128).  False: not stored
 * inline, special, longer, more decimals than scale, or past int64; the
 * general path decides then.
 */
static inline bool
numeric_unscaled64(Datum d, int scale, int64 *out)
{
	static const int64 pow10[19] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
		1000000000, INT64CONST(10000000000), INT64CONST(100000000000),
		INT64CONST(1000000000000), INT64CONST(10000000000000),
		INT64CONST(100000000000000), INT64CONST(1000000000000000),
		INT64CONST(10000000000000000), INT64CONST(100000000000000000),
		INT64CONST(1000000000000000000)
	};
	const char *v = DatumGetPointer(d);
	const uint8 *p;
	Size		len;
	PfNumericForm f;
	int			exp10;
	int64		acc = 0;

	if (VARATT_IS_1B(v) && !VARATT_IS_1B_E(v))
	{
		p = (const uint8 *) VARDATA_1B(v);
		len = VARSIZE_1B(v) - VARHDRSZ_SHORT;
	}
	else if (VARATT_IS_4B_U(v))
	{
		p = (const uint8 *) VARDATA_4B(v);
		len = VARSIZE_4B(v) - VARHDRSZ;
	}
	else
		return false;
	if (!pf_numeric_form(p, len, &f))
		return false;
	if (f.ndigits == 0)
	{
		*out = 0;
		return true;
	}
	if (f.ndigits > 4)
		return false;
	for (int i = 0; i < f.ndigits; i++)
		acc = acc * 10000 + pf_numeric_digit(&f, i);
	/* acc counts units of 10000^(weight - ndigits + 1) */
	exp10 = 4 * (f.weight - f.ndigits + 1) + scale;
	if (exp10 > 0)
	{
		if (exp10 + 4 * f.ndigits > 18)
			return false;
		acc *= pow10[exp10];
	}
	else if (exp10 < 0)
	{
		if (-exp10 > 18 || acc % pow10[-exp10] != 0)
			return false;
		acc /= pow10[-exp10];
	}
	*out = f.neg ? -acc : acc;
	return true;
}

/*
 * put_value() for the common kinds while the buffers have room, inlined
 * into the row loop: no call, no switch over every kind, no detoasting
 * call for a text value stored inline.  Returns the bytes buffered, or 0
 * when put_value() must take the value.
 */
static inline uint64
put_value_fast(SinkColumn *c, Datum d)
{
	if (c->nvalues == c->fixed_cap)
		return 0;
	switch (c->kind)
	{
		case WK_INT32:
		case WK_DATE:
			{
				int32		v = DatumGetInt32(d);

				if (c->kind == WK_DATE)
				{
					if (DATE_NOT_FINITE(v))
						return 0;
					v += PF_UNIX_TO_PG_DAYS;
				}
				memcpy(c->fixed + (Size) c->nvalues * 4, &v, 4);
				c->nvalues++;
				return 4;
			}
		case WK_INT64:
		case WK_FLOAT8:
			{
				/* a float8 Datum holds the value's bits */
				int64		v = DatumGetInt64(d);

				memcpy(c->fixed + (Size) c->nvalues * 8, &v, 8);
				c->nvalues++;
				return 8;
			}
		case WK_DECIMAL:
			{
				int64		v;

				if ((c->width != 4 && c->width != 8) ||
					!numeric_unscaled64(d, c->scale, &v) ||
					v >= c->limit || -v >= c->limit)
					return 0;
				put_unscaled(c, v, c->fixed + (Size) c->nvalues * c->width);
				c->nvalues++;
				return c->width;
			}
		case WK_TEXT:
		case WK_BYTEA:
			{
				const char *v = DatumGetPointer(d);
				const char *ptr;
				uint32		len;

				if (VARATT_IS_1B(v) && !VARATT_IS_1B_E(v))
				{
					ptr = VARDATA_1B(v);
					len = VARSIZE_1B(v) - VARHDRSZ_SHORT;
				}
				else if (VARATT_IS_4B_U(v))
				{
					ptr = VARDATA_4B(v);
					len = VARSIZE_4B(v) - VARHDRSZ;
				}
				else
					return 0;	/* compressed or external */
				if (c->arena_len + len > c->arena_cap)
					return 0;
				memcpy(c->arena + c->arena_len, ptr, len);
				c->var_off[c->nvalues] = c->arena_len;
				c->var_len[c->nvalues] = len;
				c->arena_len += len;
				c->nvalues++;
				return (uint64) len + 4;
			}
		default:
			return 0;
	}
}

/* One level entry of a leveled leaf. */
static inline void
add_level(PfParquetSink *sink, SinkColumn *c, int16 rep, int16 def)
{
	if (c->nlev == c->lev_cap)
	{
		uint32		cap = Max(1024, c->lev_cap * 2);

		c->def = c->def ? repalloc_huge(c->def, sizeof(int16) * cap) :
			MemoryContextAllocHuge(c->cxt, sizeof(int16) * cap);
		c->rep = c->rep ? repalloc_huge(c->rep, sizeof(int16) * cap) :
			MemoryContextAllocHuge(c->cxt, sizeof(int16) * cap);
		c->lev_cap = cap;
	}
	c->def[c->nlev] = def;
	c->rep[c->nlev] = rep;
	c->nlev++;
	sink->buffered_bytes += 4;
}

/* Every leaf below node ends here: a NULL or an empty list at level def. */
static void
shred_absent(PfParquetSink *sink, const SinkNode *n, int16 rep, int16 def)
{
	for (int i = n->first_leaf; i < n->first_leaf + n->nleaves; i++)
		add_level(sink, &sink->cols[i], rep, def);
}

static void shred(PfParquetSink *sink, SinkNode *n, Datum d, bool isnull,
				  int16 rep, int16 def_parent, int16 rep_depth);

/*
 * Dimension k of a (rectangular) array, as one level of LIST: dimension
 * k's entries repeat at level rep_depth + k + 1, and each entry is present
 * at def + 1 (inner dimensions are REQUIRED lists: a sub-array is never
 * NULL).
 */
static void
shred_dims(PfParquetSink *sink, SinkNode *n, int k, const int *dims,
		   Datum *elems, bool *nulls, int *pos, int16 rep, int16 def, int16 rep_depth)
{
	for (int i = 0; i < dims[k]; i++)
	{
		int16		r = i == 0 ? rep : rep_depth + k + 1;

		if (k + 1 < n->ndim)
			shred_dims(sink, n, k + 1, dims, elems, nulls, pos, r, def + 1, rep_depth);
		else
		{
			shred(sink, n->element, elems[*pos], nulls[*pos], r, def + 1,
				  rep_depth + n->ndim);
			(*pos)++;
		}
	}
}

static void
shred_array(PfParquetSink *sink, SinkNode *n, Datum d, int16 rep, int16 def,
			int16 rep_depth)
{
	ArrayType  *arr = DatumGetArrayTypeP(d);
	int			ndim = ARR_NDIM(arr);
	Datum	   *elems;
	bool	   *nulls;
	int			count;
	int			pos = 0;

	if (ndim == 0)
	{
		shred_absent(sink, n, rep, def);
		return;
	}
	/* the first non-empty array fixes the dimensions, if the schema has not */
	if (n->ndim == 0)
		n->ndim = ndim;
	if (ndim != n->ndim)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("value of column \"%s\" is a %d-dimensional array, the column's arrays have %d dimensions",
						n->path, ndim, n->ndim),
				 errdetail("A Parquet column is a LIST nested as deep as the array has dimensions, the same in every row.")));
	/* a LIST has no lower bound: refuse rather than renumber silently */
	for (int k = 0; k < ndim; k++)
		if (ARR_LBOUND(arr)[k] != 1)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("value of column \"%s\" is an array starting at index %d",
							n->path, ARR_LBOUND(arr)[k]),
					 errdetail("Parquet lists start at index 1 and store no lower bound."),
					 errhint("Write %s[:] to renumber the elements from 1.", n->path)));
	deconstruct_array(arr, n->elemtype, n->elmlen, n->elmbyval, n->elmalign,
					  &elems, &nulls, &count);
	shred_dims(sink, n, 0, ARR_DIMS(arr), elems, nulls, &pos, rep, def, rep_depth);
	Assert(pos == count);
}

static void
shred_struct(PfParquetSink *sink, SinkNode *n, Datum d, int16 rep, int16 def,
			 int16 rep_depth)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(d);
	HeapTupleData tuple;
	Datum	   *values = palloc(sizeof(Datum) * Max(1, n->nfields));
	bool	   *nulls = palloc(sizeof(bool) * Max(1, n->nfields));

	tuple.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = th;
	if (HeapTupleHeaderGetNatts(th) > n->nfields)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("value of column \"%s\" has more attributes than its type", n->path)));
	heap_deform_tuple(&tuple, n->tupdesc, values, nulls);
	for (int i = 0; i < n->nfields; i++)
		if (n->fields[i] != NULL)
			shred(sink, n->fields[i], values[i], nulls[i], rep, def, rep_depth);
}

/*
 * One value of node n: rep is the repetition level of its first entry,
 * def_parent the definition level its parent reached, rep_depth the lists
 * above it.
 */
static void
shred(PfParquetSink *sink, SinkNode *n, Datum d, bool isnull, int16 rep,
	  int16 def_parent, int16 rep_depth)
{
	int16		def = def_parent + (n->optional ? 1 : 0);

	if (isnull)
	{
		shred_absent(sink, n, rep, def_parent);
		return;
	}
	switch (n->kind)
	{
		case SN_LEAF:
			{
				SinkColumn *c = &sink->cols[n->leaf];

				add_level(sink, c, rep, def);
				sink->buffered_bytes += put_value(c, d);
				break;
			}
		case SN_STRUCT:
			shred_struct(sink, n, d, rep, def, rep_depth);
			break;
		case SN_ARRAY:
			shred_array(sink, n, d, rep, def, rep_depth);
			break;
	}
}

/*
 * The writer's groups for node n below group parent; arrays whose
 * dimensions no value has shown yet become one-dimensional.
 */
static void
build_groups(PfParquetSink *sink, SinkNode *n, int32 parent, int32 field_id,
			 PqWriteGroup **groups, int *ngroups, int *cap)
{
	PqRepetition repetition = n->optional ? PQ_OPTIONAL : PQ_REQUIRED;

	if (n->kind == SN_LEAF)
	{
		sink->defs[n->leaf].parent = parent;
		sink->defs[n->leaf].repetition = repetition;
		sink->defs[n->leaf].field_id = field_id;
		return;
	}
	if (n->kind == SN_ARRAY && n->ndim == 0)
		n->ndim = 1;
	for (int k = 0; k < (n->kind == SN_ARRAY ? n->ndim : 1); k++)
	{
		PqWriteGroup *g;

		if (*ngroups == *cap)
		{
			*cap *= 2;
			*groups = repalloc(*groups, sizeof(PqWriteGroup) * *cap);
		}
		g = &(*groups)[*ngroups];
		g->name = n->name;
		g->kind = n->kind == SN_ARRAY ? PQ_GROUP_LIST : PQ_GROUP_STRUCT;
		/* inner dimensions are never NULL */
		g->repetition = k == 0 ? repetition : PQ_REQUIRED;
		g->parent = parent;
		g->field_id = k == 0 ? field_id : -1;
		parent = (*ngroups)++;
	}
	if (n->kind == SN_ARRAY)
		build_groups(sink, n->element, parent, -1, groups, ngroups, cap);
	else
		for (int i = 0; i < n->nfields; i++)
			if (n->fields[i] != NULL)
				build_groups(sink, n->fields[i], parent, -1, groups, ngroups, cap);
}

/* ----------------------------------------------------------------
 * Row groups
 * ---------------------------------------------------------------- */

/* Bloom filter bytes for ndv values at false-positive rate fpp. */
static uint32
bloom_bytes(double ndv, double fpp)
{
	double		bits = -8.0 * ndv / log(1.0 - pow(fpp, 1.0 / 8.0));
	double		bytes = Max(32.0, ceil(bits / 8.0));

	return (uint32) Min(bytes, 128.0 * 1024 * 1024);
}

static void
open_writer(PfParquetSink *sink)
{
	PqError		err;
	uint64		widest = 1;
	MemoryContext old;

	/* rows per page: page_size over the widest column's average value */
	for (int i = 0; i < sink->ncols; i++)
	{
		SinkColumn *c = &sink->cols[i];
		uint64		w = c->width > 0 ? (uint64) c->width :
			(c->nvalues > 0 ? c->arena_len / c->nvalues + 4 : 32);

		if (c->leveled && sink->rows > 0)
			w = w * Max(1, c->nlev / sink->rows);
		widest = Max(widest, w);
	}
	sink->wopts.page_row_limit = (uint32) Max(64, Min((uint64) sink->opts.page_size / widest,
													 (uint64) 1 << 20));
	for (int i = 0; i < sink->ncols; i++)
	{
		if (sink->defs[i].bloom_filter_bytes > 0)
		{
			double		ndv = sink->opts.bloom_filter_ndv > 0 ?
				(double) sink->opts.bloom_filter_ndv :
				(double) Min((uint64) sink->opts.row_group_size, Max(sink->rows, 1));

			sink->defs[i].bloom_filter_bytes = bloom_bytes(ndv, sink->opts.bloom_filter_fpp);
		}
	}
	old = MemoryContextSwitchTo(sink->cxt);
	{
		int			cap = 8;
		int			ngroups = 0;
		PqWriteGroup *groups = palloc0(sizeof(PqWriteGroup) * cap);

		for (int a = 0; a < sink->nattrs; a++)
			if (sink->attrs[a].node != NULL)
				build_groups(sink, sink->attrs[a].node, -1,
							 sink->opts.field_ids ? a : -1, &groups, &ngroups, &cap);
		memset(&err, 0, sizeof(err));
		if (pq_writer_open_nested(&sink->writer, groups, ngroups, sink->defs, sink->ncols,
								  &sink->wopts, &sink->pqsink, &sink->alloc, &err) != PQ_OK)
			report_writer_error(sink, &err);
	}
	MemoryContextSwitchTo(old);
}

static void
flush_row_group(PfParquetSink *sink)
{
	PqError		err;
	MemoryContext old;
	MemoryContext scratch;

	if (sink->writer == NULL)
		open_writer(sink);
	if (sink->rows == 0)
		return;
	scratch = AllocSetContextCreate(sink->cxt, "parquet_fdw sink flush",
									ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(scratch);
	memset(&err, 0, sizeof(err));
	for (int i = 0; i < sink->ncols; i++)
	{
		SinkColumn *c = &sink->cols[i];
		PqColumnBatch batch;
		const void *values = c->fixed;

		CHECK_FOR_INTERRUPTS();
		memset(&batch, 0, sizeof(batch));
		batch.num_rows = sink->rows;
		if (c->width == 0)
		{
			CdcByteView *views = palloc_extended(sizeof(CdcByteView) * Max(1, c->nvalues),
												 MCXT_ALLOC_HUGE);

			for (uint32 v = 0; v < c->nvalues; v++)
			{
				views[v].ptr = (const uint8_t *) c->arena + c->var_off[v];
				views[v].len = c->var_len[v];
			}
			values = views;
		}
		if (!c->leveled)
		{
			/* the writer wants row-aligned values: spread them out */
			if (c->any_null)
			{
				size_t		vsize = c->width > 0 ? c->width : sizeof(CdcByteView);
				char	   *spread = palloc_extended(vsize * sink->rows, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
				uint32		v = 0;

				for (uint32 r = 0; r < sink->rows; r++)
					if (!c->row_null[r])
						memcpy(spread + vsize * r, (const char *) values + vsize * v++, vsize);
				values = spread;
				batch.is_null = c->row_null;
			}
			batch.values = values;
		}
		else
		{
			batch.num_levels = c->nlev;
			batch.num_values = c->nvalues;
			batch.def_levels = c->def;
			batch.rep_levels = c->rep;
			batch.values = values;
		}
		if (pq_writer_write_column(sink->writer, i, &batch, &err) != PQ_OK)
			report_writer_error(sink, &err);
		MemoryContextReset(scratch);
	}
	if (pq_writer_end_row_group(sink->writer, &err) != PQ_OK)
		report_writer_error(sink, &err);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);

	for (int i = 0; i < sink->ncols; i++)
	{
		SinkColumn *c = &sink->cols[i];

		c->nvalues = 0;
		c->arena_len = 0;
		c->any_null = false;
		c->nlev = 0;
	}
	sink->rows = 0;
	sink->buffered_bytes = 0;
}

/* ----------------------------------------------------------------
 * sorting_columns: "col [ASC|DESC] [NULLS FIRST|LAST]", as the table
 * option "sorted" (sorted.c) spells an order.  The keys are compared with
 * the type's default btree order and the column's collation; a row out of
 * order is an error, so a file never claims an order it does not have.
 * ---------------------------------------------------------------- */

static void
setup_sorting(PfParquetSink *sink, TupleDesc desc)
{
	ListCell   *lc;
	int			k = 0;

	sink->nsort = list_length(sink->opts.sorting_columns);
	if (sink->nsort == 0)
		return;
	sink->sort = palloc0(sizeof(PqWriteSortingColumn) * sink->nsort);
	sink->sort_cmp = palloc0(sizeof(FmgrInfo) * sink->nsort);
	sink->sort_collation = palloc0(sizeof(Oid) * sink->nsort);
	sink->prev_values = palloc0(sizeof(Datum) * sink->nsort);
	sink->prev_nulls = palloc0(sizeof(bool) * sink->nsort);
	sink->prev_cxt[0] = AllocSetContextCreate(sink->cxt, "parquet_fdw sink order",
											  ALLOCSET_SMALL_SIZES);
	sink->prev_cxt[1] = AllocSetContextCreate(sink->cxt, "parquet_fdw sink order",
											  ALLOCSET_SMALL_SIZES);
	foreach(lc, sink->opts.sorting_columns)
	{
		char	   *spec = pstrdup(lfirst(lc));
		char	   *save = NULL;
		char	   *name = strtok_r(spec, " \t", &save);
		char	   *word;
		int			col;
		bool		descending = false;
		int			nulls = -1;
		TypeCacheEntry *tc;
		Form_pg_attribute attr;

		while ((word = strtok_r(NULL, " \t", &save)) != NULL)
		{
			if (pg_strcasecmp(word, "asc") == 0)
				descending = false;
			else if (pg_strcasecmp(word, "desc") == 0)
				descending = true;
			else if (pg_strcasecmp(word, "nulls") == 0 &&
					 (word = strtok_r(NULL, " \t", &save)) != NULL &&
					 (pg_strcasecmp(word, "first") == 0 || pg_strcasecmp(word, "last") == 0))
				nulls = pg_strcasecmp(word, "first") == 0;
			else
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid value for COPY option \"sorting_columns\": \"%s\"",
								(char *) lfirst(lc)),
						 errhint("Valid values are comma-separated \"column [ASC | DESC] [NULLS FIRST | NULLS LAST]\".")));
		}
		col = find_column(sink, name, "sorting_columns");
		if (sink->attrs[col].node != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("list or struct column \"%s\" cannot be a sorting column", name)));
		col = sink->attrs[col].leaf;
		attr = TupleDescAttr(desc, sink->cols[col].attnum);
		tc = lookup_type_cache(attr->atttypid, TYPECACHE_CMP_PROC_FINFO);
		if (!OidIsValid(tc->cmp_proc_finfo.fn_oid))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("column \"%s\" of type %s has no order for sorting_columns",
							name, format_type_be(attr->atttypid))));
		fmgr_info_copy(&sink->sort_cmp[k], &tc->cmp_proc_finfo, sink->cxt);
		sink->sort_collation[k] = attr->attcollation;
		/* the Parquet column index of a flat column is its leaf's */
		sink->sort[k].column = col;
		sink->sort[k].descending = descending;
		/* PostgreSQL's defaults: NULLS LAST ascending, FIRST descending */
		sink->sort[k].nulls_first = nulls >= 0 ? nulls == 1 : descending;
		k++;
	}
}

static void
check_order(PfParquetSink *sink, TupleTableSlot *slot)
{
	MemoryContext next = sink->prev_cxt[1 - sink->prev_which];
	MemoryContext old;

	if (sink->have_prev)
	{
		for (int k = 0; k < sink->nsort; k++)
		{
			const SinkColumn *c = &sink->cols[sink->sort[k].column];
			bool		null = slot->tts_isnull[c->attnum];
			bool		prev_null = sink->prev_nulls[k];
			int			cmp;

			if (null && prev_null)
				continue;
			if (null || prev_null)
				cmp = (null == sink->sort[k].nulls_first) ? -1 : 1;
			else
			{
				cmp = DatumGetInt32(FunctionCall2Coll(&sink->sort_cmp[k], sink->sort_collation[k],
													  slot->tts_values[c->attnum],
													  sink->prev_values[k]));
				if (sink->sort[k].descending)
					cmp = -cmp;
			}
			if (cmp < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("row %llu is out of the order given by COPY option \"sorting_columns\"",
								(unsigned long long) sink->total_rows + 1),
						 errdetail("Column \"%s\" goes against the order.", c->name),
						 errhint("Add a matching ORDER BY to the query.")));
			if (cmp > 0)
				break;
		}
	}
	MemoryContextReset(next);
	old = MemoryContextSwitchTo(next);
	for (int k = 0; k < sink->nsort; k++)
	{
		const SinkColumn *c = &sink->cols[sink->sort[k].column];
		Form_pg_attribute attr = TupleDescAttr(slot->tts_tupleDescriptor, c->attnum);

		sink->prev_nulls[k] = slot->tts_isnull[c->attnum];
		sink->prev_values[k] = sink->prev_nulls[k] ? (Datum) 0 :
			datumCopy(slot->tts_values[c->attnum], attr->attbyval, attr->attlen);
	}
	MemoryContextSwitchTo(old);
	sink->prev_which = 1 - sink->prev_which;
	sink->have_prev = true;
}

/* ----------------------------------------------------------------
 * The contract
 * ---------------------------------------------------------------- */

/* The output column named name, as its index in attrs. */
static int
find_column(PfParquetSink *sink, const char *name, const char *option)
{
	for (int a = 0; a < sink->nattrs; a++)
		if (strcmp(sink->cols[sink->attrs[a].leaf].name, name) == 0 ||
			(sink->attrs[a].node != NULL && strcmp(sink->attrs[a].node->name, name) == 0))
			return a;
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_COLUMN),
			 errmsg("column \"%s\" named in COPY option \"%s\" is not in the output", name, option)));
	return -1;
}

PfParquetSink *
pf_sink_begin(TupleDesc desc, const PfWriteOptions *opts, const char *target_path)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "parquet_fdw sink",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	PfParquetSink *sink = palloc0(sizeof(PfParquetSink));
	ListCell   *lc;

	sink->cxt = cxt;
	sink->row_cxt = AllocSetContextCreate(cxt, "parquet_fdw sink row",
										  ALLOCSET_SMALL_SIZES);
	sink->opts = *opts;
	sink->cols_cap = Max(1, desc->natts);
	sink->cols = palloc0(sizeof(SinkColumn) * sink->cols_cap);
	sink->defs = palloc0(sizeof(PqWriteColumn) * sink->cols_cap);
	sink->attrs = palloc0(sizeof(SinkAttr) * Max(1, desc->natts));
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(desc, i);
		SinkAttr   *sa = &sink->attrs[sink->nattrs];

		if (attr->attisdropped)
			continue;
		for (int j = 0; j < sink->nattrs; j++)
			if (strcmp(NameStr(TupleDescAttr(desc, sink->attrs[j].attnum)->attname),
					   NameStr(attr->attname)) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("two output columns are named \"%s\"", NameStr(attr->attname)),
						 errhint("Parquet column names must be distinct: rename one with AS.")));
		map_column(sink, sa, attr);
		for (int l = sa->leaf; l < sink->ncols; l++)
			sink->cols[l].attnum = i;
		if (opts->field_ids && sa->node == NULL)
			sink->defs[sa->leaf].field_id = sink->nattrs;
		sink->nattrs++;
	}
	if (sink->ncols == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a Parquet file needs at least one column")));
	/* a nested column gets a bloom filter on each of its leaves */
	foreach(lc, opts->bloom_filter_columns)
	{
		SinkAttr   *sa = &sink->attrs[find_column(sink, lfirst(lc), "bloom_filter_columns")];
		int			nleaves = sa->node ? sa->node->nleaves : 1;

		for (int l = sa->leaf; l < sa->leaf + nleaves; l++)
			sink->defs[l].bloom_filter_bytes = 1;
	}

	setup_sorting(sink, desc);
	pq_writer_options_init(&sink->wopts);
	sink->wopts.num_sorting_columns = sink->nsort;
	sink->wopts.sorting_columns = sink->sort;
	sink->wopts.codec = opts->codec;
	sink->wopts.compression_level = opts->compression_level;
	sink->wopts.data_page_v2 = opts->data_page_version == 2;
	sink->wopts.write_page_index = opts->page_index;
	sink->wopts.write_statistics = opts->statistics;
	sink->wopts.statistics_max_len = 64;
	/* a dictionary whose entries serve fewer than 5 values each loses to
	 * PLAIN once compressed (bench/copy.sh: lineitem's keys, prices and
	 * comments); DuckDB's files make the same choice */
	sink->wopts.dictionary_max_ratio = 0.2;
	sink->wopts.created_by = "parquet_fdw";
	sink->alloc = pf_context_allocator(cxt);
	sink->pqsink.write = sink_write;
	sink->pqsink.ctx = sink;
	sink->rows_cap = 0;
	grow_rows(sink);

	if (target_path)
	{
		sink->target = pstrdup(target_path);
		sink->file = pf_atomic_file_create_on(target_path, opts->remote_server);
	}
	else
		pq_beginmessage(&sink->client_buf, 'd');
	MemoryContextSwitchTo(old);
	return sink;
}

/* Room for more rows in the per-row arrays. */
static void
grow_rows(PfParquetSink *sink)
{
	uint32		cap = Max(1024, sink->rows_cap * 2);

	cap = (uint32) Min((int64) cap, Max(sink->opts.row_group_size, 1024));
	for (int i = 0; i < sink->ncols; i++)
	{
		SinkColumn *c = &sink->cols[i];

		if (c->leveled)
			continue;
		c->row_null = c->row_null ? repalloc_huge(c->row_null, cap) :
			MemoryContextAllocHuge(sink->cxt, cap);
	}
	sink->rows_cap = cap;
}

void
pf_sink_put(PfParquetSink *sink, TupleTableSlot *slot)
{
	MemoryContext old;
	uint32		r = sink->rows;

	if (r == sink->rows_cap)
		grow_rows(sink);
	slot_getallattrs(slot);
	if (sink->nsort > 0)
		check_order(sink, slot);
	old = MemoryContextSwitchTo(sink->row_cxt);
	for (int a = 0; a < sink->nattrs; a++)
	{
		SinkAttr   *sa = &sink->attrs[a];
		bool		isnull = slot->tts_isnull[sa->attnum];
		Datum		d = slot->tts_values[sa->attnum];

		if (sa->node != NULL)
			shred(sink, sa->node, d, isnull, 0, 0, 0);
		else
		{
			SinkColumn *c = &sink->cols[sa->leaf];

			uint64		bytes;

			c->row_null[r] = isnull;
			if (isnull)
			{
				c->any_null = true;
				sink->buffered_bytes++;
			}
			else if ((bytes = put_value_fast(c, d)) > 0)
				sink->buffered_bytes += bytes;
			else
				sink->buffered_bytes += put_value(c, d);
		}
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(sink->row_cxt);
	sink->rows++;
	sink->total_rows++;
	if (sink->rows >= sink->opts.row_group_size ||
		sink->buffered_bytes >= (uint64) sink->opts.row_group_size_bytes)
		flush_row_group(sink);
}

uint64
pf_sink_bytes(const PfParquetSink *sink)
{
	uint64		written = sink->file ? pf_atomic_file_size(sink->file) : 0;

	return written + sink->buffered_bytes;
}

uint64
pf_sink_finish(PfParquetSink *sink)
{
	PqError		err;
	uint64		rows = sink->total_rows;

	flush_row_group(sink);
	memset(&err, 0, sizeof(err));
	if (pq_writer_close(sink->writer, &err) != PQ_OK)
		report_writer_error(sink, &err);
	pq_writer_free(sink->writer);
	sink->writer = NULL;
	if (sink->file)
	{
		pf_atomic_file_commit(sink->file, true);
		sink->file = NULL;
	}
	else if (client_flush(sink) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("could not send Parquet data to the client")));
	MemoryContextDelete(sink->cxt);
	return rows;
}

void
pf_sink_abort(PfParquetSink *sink)
{
	if (sink == NULL)
		return;
	pq_writer_free(sink->writer);
	if (sink->file)
		pf_atomic_file_abort(sink->file);
	MemoryContextDelete(sink->cxt);
}
