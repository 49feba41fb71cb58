/*-------------------------------------------------------------------------
 *
 * convert_test.c
 *	  A backend test module for src/fdw/convert.c, independent of the file
 *	  reader: it builds schema trees and column batches by hand (Dremel levels
 *	  included) and returns what the converter makes of them.
 *
 *	  pf_convert_test(case text, typ regtype, typmod int) RETURNS SETOF text
 *
 *	  One row per converted row: the value through the declared type's output
 *	  function, or NULL.  Built and run by test/fdw_convert/run.sh.
 *
 * IDENTIFICATION
 *	  test/fdw_convert/convert_test.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <errno.h>
#include <stdarg.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/tuplestore.h"

#include "fdw/parquet_fdw.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(pf_convert_test);

/* Stubs of the format layer's name functions (used in messages only). */
const char *
pq_physical_type_name(PqPhysicalType type)
{
	static const char *const n[] = {"BOOLEAN", "INT32", "INT64", "INT96",
	"FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};

	return (int) type >= 0 && type <= 7 ? n[type] : "?";
}

const char *
pq_logical_kind_name(PqLogicalKind kind)
{
	return psprintf("LOGICAL_%d", (int) kind);
}

/* variant.c's out-of-memory report (metadata.c is not linked in) */
extern void pq_error_oom(PqError *err);
void
pq_error_oom(PqError *err)
{
	if (err == NULL)
		return;
	err->status = PQ_ERR_IO;
	err->sys_errno = ENOMEM;
	snprintf(err->message, sizeof(err->message), "out of memory");
}

/* The rest of what variant.c and convert_variant.c link against. */
extern void pq_error_set(PqError *err, PqStatus status, const char *fmt,...);
void
pq_error_clear(PqError *err)
{
	memset(err, 0, sizeof(*err));
	err->row_group = err->column = err->page = -1;
}

/* declared as pq_internal.h does, so the format is checked (gcc 14 asks) */
void		pq_error_set(PqError *err, PqStatus status, const char *fmt,...) pg_attribute_printf(3, 4);

void
pq_error_set(PqError *err, PqStatus status, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL)
		return;
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

static void *
test_context_alloc(void *ctx, size_t size)
{
	return MemoryContextAllocExtended((MemoryContext) ctx, Max(size, 1),
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

static void
test_context_release(void *ctx, void *ptr)
{
	if (ptr != NULL)
		pfree(ptr);
}

PfcAllocator
pf_context_allocator(MemoryContext cxt)
{
	PfcAllocator alloc;

	alloc.alloc = test_context_alloc;
	alloc.release = test_context_release;
	alloc.ctx = cxt;
	return alloc;
}

/* ---- schema construction ---- */
#define MAXN 32
static PqSchemaNode nodes[MAXN];
static int	nnodes;
static PqLeaf leaves[MAXN];
static int	nleaves;
/* dec_sweep cases: the unscaled values, for the reference conversion */
static int64 *sweep_values;

static PqSchemaNode *
mk(const char *name, PqRepetition rep, bool leaf, PqPhysicalType phys,
   PqLogicalKind lk)
{
	PqSchemaNode *n = &nodes[nnodes++];

	memset(n, 0, sizeof(*n));
	n->name = name;
	n->repetition = rep;
	n->is_leaf = leaf;
	n->physical = phys;
	n->logical.kind = lk;
	n->converted_type = -1;
	n->field_id = -1;
	n->leaf_index = -1;
	return n;
}

static void
add(PqSchemaNode *parent, PqSchemaNode *child)
{
	PqSchemaNode **c = palloc(sizeof(PqSchemaNode *) * (parent->num_children + 1));

	if (parent->num_children)
		memcpy(c, parent->children, sizeof(PqSchemaNode *) * parent->num_children);
	c[parent->num_children++] = child;
	parent->children = c;
	child->parent = parent;
}

static void
finish(PqSchemaNode *n, int16 def, int16 rep)
{
	if (n->parent != NULL)
	{
		if (n->repetition != PQ_REQUIRED)
			def++;
		if (n->repetition == PQ_REPEATED)
			rep++;
	}
	n->max_def = def;
	n->max_rep = rep;
	if (n->is_leaf)
	{
		n->leaf_index = nleaves;
		leaves[nleaves].node = n;
		leaves[nleaves].path = n->name;
		leaves[nleaves].max_def = def;
		leaves[nleaves].max_rep = rep;
		nleaves++;
	}
	for (int i = 0; i < n->num_children; i++)
		finish(n->children[i], def, rep);
}

static CdcByteView
bv(const char *s)
{
	CdcByteView v;

	v.ptr = (const uint8 *) s;
	v.len = strlen(s);
	return v;
}

Datum
pf_convert_test(PG_FUNCTION_ARGS)
{
	char	   *cname = text_to_cstring(PG_GETARG_TEXT_PP(0));
	Oid			typid = PG_GETARG_OID(1);
	int32		typmod = PG_GETARG_INT32(2);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	PqSchemaNode *root;
	PqSchemaNode *f = NULL;
	PqFileMeta	meta;
	PqColumnBatch b[4];
	uint32		num_rows = 0;
	PfConverter *conv;
	Datum	   *values;
	bool	   *nulls;
	Oid			outfn;
	bool		isvarlena;
	FmgrInfo	out;

	nnodes = nleaves = 0;
	sweep_values = NULL;
	memset(b, 0, sizeof(b));
	root = mk("schema", PQ_REQUIRED, false, 0, PQ_LT_NONE);

	if (strcmp(cname, "int32_opt") == 0)
	{
		static const int32 v[] = {1, 2, 0, 4, -5};
		static const bool n[] = {false, false, true, false, false};

		f = mk("x", PQ_OPTIONAL, true, PQ_INT32, PQ_LT_NONE);
		add(root, f);
		num_rows = 5;
		b[0].values = v;
		b[0].is_null = n;
	}
	else if (strcmp(cname, "int8_u") == 0 || strcmp(cname, "int16_s") == 0 ||
			 strcmp(cname, "int32_u") == 0 || strcmp(cname, "int16_u") == 0)
	{
		static const int32 v[] = {0, 255, -1, 127, -128};

		f = mk("x", PQ_REQUIRED, true, PQ_INT32, PQ_LT_INTEGER);
		f->logical.bit_width = cname[3] == '8' ? 8 : cname[3] == '1' ? 16 : 32;
		f->logical.is_signed = cname[strlen(cname) - 1] == 's';
		add(root, f);
		num_rows = 5;
		b[0].values = v;
	}
	else if (strcmp(cname, "uint64") == 0)
	{
		static const int64 v[] = {0, -1, PG_INT64_MAX, PG_INT64_MIN};

		f = mk("x", PQ_REQUIRED, true, PQ_INT64, PQ_LT_INTEGER);
		f->logical.bit_width = 64;
		add(root, f);
		num_rows = 4;
		b[0].values = v;
	}
	else if (strcmp(cname, "dec_int32") == 0 || strcmp(cname, "dec_int64") == 0)
	{
		static const int32 v32[] = {12345, -5, 0, 99999};
		static const int64 v64[] = {12345, -5, 0, PG_INT64_MIN};

		f = mk("x", PQ_REQUIRED, true,
			   cname[7] == '3' ? PQ_INT32 : PQ_INT64, PQ_LT_DECIMAL);
		f->logical.precision = cname[7] == '3' ? 5 : 18;
		f->logical.scale = 2;
		add(root, f);
		num_rows = 4;
		b[0].values = cname[7] == '3' ? (const void *) v32 : (const void *) v64;
	}
	else if (strcmp(cname, "dec_flba") == 0)
	{
		/* FLBA(11) DECIMAL(25,2) */
		static const uint8 v[] = {
			/* 1234567890123456789012345 = 0x1056E0F36A6443DE2DF79 */
			0x01, 0x05, 0x6E, 0x0F, 0x36, 0xA6, 0x44, 0x3D, 0xE2, 0xDF, 0x79,
			/* -1 */
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			/* 0 */
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			/* -1234567890123456789012345 */
			0xFE, 0xFA, 0x91, 0xF0, 0xC9, 0x59, 0xBB, 0xC2, 0x1D, 0x20, 0x87,
			/* 12345 */
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0x30, 0x39,
		};

		f = mk("x", PQ_REQUIRED, true, PQ_FIXED_LEN_BYTE_ARRAY, PQ_LT_DECIMAL);
		f->type_length = 11;
		f->logical.precision = 25;
		f->logical.scale = 2;
		add(root, f);
		num_rows = 5;
		b[0].values = v;
	}
	else if (strcmp(cname, "dec_bytes") == 0)
	{
		static CdcByteView v[3];
		static const uint8 big[] = {0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};	/* -2^127 */
		static const uint8 small[] = {0xfe, 0x0c};	/* -500 */
		static const uint8 one[] = {0x01};

		v[0].ptr = big;
		v[0].len = 16;
		v[1].ptr = small;
		v[1].len = 2;
		v[2].ptr = one;
		v[2].len = 1;
		f = mk("x", PQ_REQUIRED, true, PQ_BYTE_ARRAY, PQ_LT_DECIMAL);
		f->logical.precision = 38;
		f->logical.scale = 3;
		add(root, f);
		num_rows = 3;
		b[0].values = v;
	}
	else if (strncmp(cname, "dec_sweep_", 10) == 0)
	{
		/*
		 * dec_sweep_{32,64,ba}_SCALE: many unscaled values (edges, powers of
		 * ten and their neighbours, pseudo-random magnitudes), each result
		 * compared byte for byte with PostgreSQL's own int64 -> numeric
		 * conversion below.
		 */
		char		kind = cname[10];
		int			scale = atoi(cname + 13);
		int64	   *v64 = palloc(sizeof(int64) * 4096);
		uint64		x = UINT64CONST(0x9E3779B97F4A7C15);
		uint32		n = 0;

		v64[n++] = 0;
		v64[n++] = PG_INT64_MAX;
		v64[n++] = PG_INT64_MIN;
		v64[n++] = PG_INT64_MIN + 1;
		for (int e = 0; e <= 18; e++)
		{
			int64		p = 1;

			for (int k = 0; k < e; k++)
				p *= 10;
			for (int d = -1; d <= 1; d++)
			{
				v64[n++] = p + d;
				v64[n++] = -(p + d);
				v64[n++] = p * 7 + d;
			}
		}
		while (n < 4096)
		{
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* random magnitude: keep 1..63 low bits, random sign */
			v64[n] = (int64) (x >> (1 + (x % 63)));
			if (x & 1)
				v64[n] = -v64[n];
			n++;
		}
		sweep_values = v64;
		f = mk("x", PQ_REQUIRED, true,
			   kind == '3' ? PQ_INT32 : kind == '6' ? PQ_INT64 : PQ_BYTE_ARRAY,
			   PQ_LT_DECIMAL);
		f->logical.precision = kind == '3' ? 9 : 38;
		f->logical.scale = scale;
		add(root, f);
		num_rows = n;
		if (kind == '3')
		{
			int32	   *v32 = palloc(sizeof(int32) * n);

			for (uint32 i = 0; i < n; i++)
			{
				v32[i] = (int32) v64[i];
				v64[i] = v32[i];
			}
			b[0].values = v32;
		}
		else if (kind == '6')
			b[0].values = v64;
		else
		{
			/* big-endian bytes, 1..9 of them (minimal, plus sign-extended) */
			CdcByteView *views = palloc(sizeof(CdcByteView) * n);
			uint8	   *bytes = palloc(16 * n);

			for (uint32 i = 0; i < n; i++)
			{
				uint32		len = 1 + (i % 9);
				uint64		u = (uint64) v64[i];
				uint8	   *q = bytes + 16 * i;

				/* widen short encodings that would not hold the value */
				while (len < 8 &&
					   ((int64) (u << (64 - 8 * len)) >> (64 - 8 * len)) != v64[i])
					len++;
				for (uint32 k = 0; k < len; k++)
					q[len - 1 - k] = k < 8 ? (uint8) (u >> (8 * k)) :
						(v64[i] < 0 ? 0xff : 0x00);
				views[i].ptr = q;
				views[i].len = len;
			}
			b[0].values = views;
		}
	}
	else if (strcmp(cname, "text") == 0 || strcmp(cname, "bad_utf8") == 0 ||
			 strcmp(cname, "bytea") == 0 || strcmp(cname, "json") == 0)
	{
		static CdcByteView v[4];
		static const bool n[] = {false, true, false, false};

		v[0] = bv(strcmp(cname, "json") == 0 ? "{\"b\":1,  \"a\":[1,2.50]}" : "héllo");
		v[1] = bv("");
		v[2] = bv(strcmp(cname, "json") == 0 ? "\"s\"" : "");
		v[3] = bv(strcmp(cname, "bad_utf8") == 0 ? "ab\xc3\x28" :
				  strcmp(cname, "json") == 0 ? "null" : "abcd");
		f = mk("x", PQ_OPTIONAL, true, PQ_BYTE_ARRAY,
			   strcmp(cname, "bytea") == 0 ? PQ_LT_NONE :
			   strcmp(cname, "json") == 0 ? PQ_LT_JSON : PQ_LT_STRING);
		add(root, f);
		num_rows = 4;
		b[0].values = v;
		b[0].is_null = n;
	}
	else if (strcmp(cname, "date") == 0 || strcmp(cname, "bad_date") == 0)
	{
		static const int32 v[] = {0, 19000, -719528, 2147483647};

		f = mk("x", PQ_REQUIRED, true, PQ_INT32, PQ_LT_DATE);
		add(root, f);
		num_rows = strcmp(cname, "date") == 0 ? 3 : 4;
		b[0].values = v;
	}
	else if (strncmp(cname, "ts_", 3) == 0 || strncmp(cname, "time_", 5) == 0)
	{
		static const int64 ns[] = {0, 1500, -1500, 1700000000123456789LL, -1};
		static const int64 us[] = {0, 1, -1, 1700000000123456LL, 86400000000LL};
		static const int32 ms[] = {0, 1, 86399999, 1000, 5};
		bool		is_ts = cname[0] == 't' && cname[1] == 's';
		const char *unit = strchr(cname, '_') + 1;

		f = mk("x", PQ_REQUIRED, true,
			   !is_ts && strncmp(unit, "ms", 2) == 0 ? PQ_INT32 : PQ_INT64,
			   is_ts ? PQ_LT_TIMESTAMP : PQ_LT_TIME);
		f->logical.unit = strncmp(unit, "ms", 2) == 0 ? PQ_UNIT_MILLIS :
			strncmp(unit, "us", 2) == 0 ? PQ_UNIT_MICROS : PQ_UNIT_NANOS;
		f->logical.utc_adjusted = strstr(cname, "utc") != NULL;
		add(root, f);
		num_rows = (!is_ts && f->logical.unit == PQ_UNIT_NANOS) ? 4 : 5;
		if (!is_ts && f->logical.unit == PQ_UNIT_NANOS)
		{
			static const int64 tns[] = {0, 1500, 86399999999500LL, 86400000000000LL};

			b[0].values = tns;
		}
		else if (is_ts && f->logical.unit == PQ_UNIT_MILLIS)
		{
			static const int64 tms[] = {0, 1, -1, 1700000000123LL, 253402300799999LL};

			b[0].values = tms;
		}
		else
			b[0].values = f->logical.unit == PQ_UNIT_MILLIS ? (const void *) ms :
				f->logical.unit == PQ_UNIT_MICROS ? (const void *) us : (const void *) ns;
	}
	else if (strcmp(cname, "int96") == 0)
	{
		static uint8 v[3 * 12];
		int64		nanos[] = {0, 3723000000500LL, 86399999999999LL};
		int32		jd[] = {2440588, 2451545, 2440587};

		for (int i = 0; i < 3; i++)
		{
			memcpy(v + i * 12, &nanos[i], 8);
			memcpy(v + i * 12 + 8, &jd[i], 4);
		}
		f = mk("x", PQ_REQUIRED, true, PQ_INT96, PQ_LT_NONE);
		f->type_length = 12;
		add(root, f);
		num_rows = 3;
		b[0].values = v;
	}
	else if (strcmp(cname, "float16") == 0)
	{
		static const uint8 v[] = {0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0x01, 0x00,
		0x00, 0x7c, 0x00, 0xfe, 0x00, 0x80};

		f = mk("x", PQ_REQUIRED, true, PQ_FIXED_LEN_BYTE_ARRAY, PQ_LT_FLOAT16);
		f->type_length = 2;
		add(root, f);
		num_rows = 7;
		b[0].values = v;
	}
	else if (strcmp(cname, "uuid") == 0 || strcmp(cname, "interval") == 0 ||
			 strcmp(cname, "flba") == 0)
	{
		static const uint8 u[] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
		static const uint8 iv[] = {14, 0, 0, 0, 3, 0, 0, 0, 0x39, 0x30, 0, 0};	/* 14 mons 3 days 12.345 s */

		f = mk("x", PQ_REQUIRED, true, PQ_FIXED_LEN_BYTE_ARRAY,
			   cname[0] == 'u' ? PQ_LT_UUID : cname[0] == 'i' ? PQ_LT_INTERVAL : PQ_LT_NONE);
		f->type_length = cname[0] == 'i' ? 12 : 16;
		add(root, f);
		num_rows = 1;
		b[0].values = cname[0] == 'i' ? iv : u;
	}
	else if (strcmp(cname, "list3") == 0 || strcmp(cname, "list3_text") == 0)
	{
		/* optional group x (LIST) { repeated group list { optional int32 element } } */
		static const int16 def[] = {3, 3, 0, 1, 2, 3, 3};
		static const int16 rep[] = {0, 1, 0, 0, 0, 1, 0};
		static const int32 v[] = {1, 2, 3, 4};
		static CdcByteView tv[4];
		PqSchemaNode *l = mk("list", PQ_REPEATED, false, 0, PQ_LT_NONE);
		bool		text = strcmp(cname, "list3_text") == 0;

		tv[0] = bv("a");
		tv[1] = bv("bcd");
		tv[2] = bv("");
		tv[3] = bv("xyzzy");
		f = mk("x", PQ_OPTIONAL, false, 0, PQ_LT_LIST);
		add(root, f);
		add(f, l);
		add(l, mk("element", PQ_OPTIONAL, true, text ? PQ_BYTE_ARRAY : PQ_INT32,
				  text ? PQ_LT_STRING : PQ_LT_NONE));
		num_rows = 5;
		b[0].num_levels = 7;
		b[0].num_values = 4;
		b[0].def_levels = def;
		b[0].rep_levels = rep;
		b[0].values = text ? (const void *) tv : (const void *) v;
	}
	else if (strcmp(cname, "list2") == 0)
	{
		/* repeated int32 x (no annotation) */
		static const int16 def[] = {1, 1, 0, 1};
		static const int16 rep[] = {0, 1, 0, 0};
		static const int32 v[] = {1, 2, 3};

		f = mk("x", PQ_REPEATED, true, PQ_INT32, PQ_LT_NONE);
		add(root, f);
		num_rows = 3;
		b[0].num_levels = 4;
		b[0].num_values = 3;
		b[0].def_levels = def;
		b[0].rep_levels = rep;
		b[0].values = v;
	}
	else if (strcmp(cname, "list_array") == 0)
	{
		/* required group x (LIST) { repeated group array { required int32 a } } : list of structs */
		static const int16 def[] = {1, 1, 0};
		static const int16 rep[] = {0, 1, 0};
		static const int32 v[] = {7, 8};
		PqSchemaNode *l = mk("array", PQ_REPEATED, false, 0, PQ_LT_NONE);

		f = mk("x", PQ_REQUIRED, false, 0, PQ_LT_LIST);
		add(root, f);
		add(f, l);
		add(l, mk("a", PQ_REQUIRED, true, PQ_INT32, PQ_LT_NONE));
		num_rows = 2;
		b[0].num_levels = 3;
		b[0].num_values = 2;
		b[0].def_levels = def;
		b[0].rep_levels = rep;
		b[0].values = v;
	}
	else if (strcmp(cname, "map") == 0)
	{
		static const int16 kdef[] = {2, 2, 0, 1};
		static const int16 krep[] = {0, 1, 0, 0};
		static const int16 vdef[] = {3, 2, 0, 1};
		static const int16 vrep[] = {0, 1, 0, 0};
		static CdcByteView kv[2];
		static const int32 vv[] = {1};
		PqSchemaNode *kvn = mk("key_value", PQ_REPEATED, false, 0, PQ_LT_NONE);

		kv[0] = bv("a");
		kv[1] = bv("b");
		f = mk("m", PQ_OPTIONAL, false, 0, PQ_LT_MAP);
		add(root, f);
		add(f, kvn);
		add(kvn, mk("key", PQ_REQUIRED, true, PQ_BYTE_ARRAY, PQ_LT_STRING));
		add(kvn, mk("value", PQ_OPTIONAL, true, PQ_INT32, PQ_LT_NONE));
		num_rows = 3;
		b[0].num_levels = 4;
		b[0].num_values = 2;
		b[0].def_levels = kdef;
		b[0].rep_levels = krep;
		b[0].values = kv;
		b[1].num_levels = 4;
		b[1].num_values = 1;
		b[1].def_levels = vdef;
		b[1].rep_levels = vrep;
		b[1].values = vv;
	}
	else if (strcmp(cname, "struct") == 0)
	{
		static const int16 adef[] = {2, 0, 1};
		static const bool anull[] = {false, true, true};
		static const int32 av[] = {1, 0, 0};
		static const int16 bdef[] = {1, 0, 1};
		static const bool bnull[] = {false, true, false};
		static CdcByteView bvv[3];
		static const double dv[] = {1.5, 0, -0.0};
		static const bool dnull[] = {false, true, false};

		bvv[0] = bv("x");
		bvv[1] = bv("");
		bvv[2] = bv("y");
		f = mk("s", PQ_OPTIONAL, false, 0, PQ_LT_NONE);
		add(root, f);
		add(f, mk("a", PQ_OPTIONAL, true, PQ_INT32, PQ_LT_NONE));
		add(f, mk("b", PQ_REQUIRED, true, PQ_BYTE_ARRAY, PQ_LT_STRING));
		add(f, mk("c", PQ_REQUIRED, true, PQ_DOUBLE, PQ_LT_NONE));
		num_rows = 3;
		b[0].num_levels = 3;
		b[0].def_levels = adef;
		b[0].is_null = anull;
		b[0].values = av;
		b[1].num_levels = 3;
		b[1].def_levels = bdef;
		b[1].is_null = bnull;
		b[1].values = bvv;
		b[2].num_levels = 3;
		b[2].def_levels = bdef;
		b[2].is_null = dnull;
		b[2].values = dv;
	}
	else if (strcmp(cname, "nested_list") == 0)
	{
		/* a: list<list<int32>>: [[1,2],[3]], [[],NULL], NULL, [] */
		static const int16 def[] = {5, 5, 5, 3, 2, 0, 1};
		static const int16 rep[] = {0, 2, 1, 0, 1, 0, 0};
		static const int32 v[] = {1, 2, 3};
		PqSchemaNode *l1 = mk("list", PQ_REPEATED, false, 0, PQ_LT_NONE);
		PqSchemaNode *e1 = mk("element", PQ_OPTIONAL, false, 0, PQ_LT_LIST);
		PqSchemaNode *l2 = mk("list", PQ_REPEATED, false, 0, PQ_LT_NONE);

		f = mk("a", PQ_OPTIONAL, false, 0, PQ_LT_LIST);
		add(root, f);
		add(f, l1);
		add(l1, e1);
		add(e1, l2);
		add(l2, mk("element", PQ_OPTIONAL, true, PQ_INT32, PQ_LT_NONE));
		num_rows = 4;
		b[0].num_levels = 7;
		b[0].num_values = 3;
		b[0].def_levels = def;
		b[0].rep_levels = rep;
		b[0].values = v;
	}
	else
		elog(ERROR, "unknown case \"%s\"", cname);

	finish(root, 0, 0);
	for (int i = 0; i < nleaves; i++)
	{
		b[i].num_rows = num_rows;
		if (b[i].num_levels == 0)
			b[i].num_levels = num_rows;
		if (leaves[i].max_rep == 0 && leaves[i].max_def > 0 && b[i].def_levels == NULL)
		{
			int16	   *d = palloc(sizeof(int16) * num_rows);

			for (uint32 r = 0; r < num_rows; r++)
				d[r] = b[i].is_null && b[i].is_null[r] ? 0 : leaves[i].max_def;
			b[i].def_levels = d;
		}
	}
	memset(&meta, 0, sizeof(meta));
	meta.root = root;
	meta.num_leaves = nleaves;
	meta.leaves = leaves;
	meta.num_rows = num_rows;

	conv = pf_converter_create(&meta, f, typid, typmod, f->name, CurrentMemoryContext);
	Assert(pf_converter_num_leaves(conv) == nleaves);
	values = palloc(sizeof(Datum) * num_rows * 2);
	nulls = palloc(sizeof(bool) * num_rows * 2);
	/* stride 2 to check strided output */
	pf_converter_fill(conv, b, num_rows, values, nulls, 2);

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	getTypeOutputInfo(typid, &outfn, &isvarlena);
	fmgr_info(outfn, &out);
	for (uint32 r = 0; r < num_rows; r++)
	{
		Datum		d[1];
		bool		n[1];

		n[0] = nulls[r * 2];
		if (sweep_values != NULL)
		{
			/* PostgreSQL's conversion, and the bytes must be the same */
			int			scale = f->logical.scale;
			Datum		want = scale == 0 ?
				NumericGetDatum(int64_to_numeric(sweep_values[r])) :
				NumericGetDatum(int64_div_fast_to_numeric(sweep_values[r], scale));

			if (!n[0] && datumIsEqual(values[r * 2], want, false, -1))
				d[0] = CStringGetTextDatum("ok");
			else
				d[0] = CStringGetTextDatum(psprintf("%lld scale %d: got %s, want %s",
													(long long) sweep_values[r], scale,
													n[0] ? "NULL" : OutputFunctionCall(&out, values[r * 2]),
													OutputFunctionCall(&out, want)));
			n[0] = false;
		}
		else if (!n[0])
			d[0] = CStringGetTextDatum(OutputFunctionCall(&out, values[r * 2]));
		else
			d[0] = (Datum) 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, d, n);
	}
	return (Datum) 0;
}
