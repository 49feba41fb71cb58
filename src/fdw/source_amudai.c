/*-------------------------------------------------------------------------
 *
 * source_amudai.c
 *	  Amudai shards as a table source (source.h): units are stripes.
 *
 * A stripe is ruled out by its field descriptors (min/max, null counts,
 * constant values) when a qual can match no row, and by its Bloom filters
 * (format notes 5.4) when they hold none of the values of an = or IN qual
 * on a string, binary or Guid column.  In a stripe read, the RANGE_INDEX
 * buffers (3.9, 5.5: min, max and null/NaN count of every 256 rows) of the
 * columns the quals compare leave the row ranges some row of which may
 * match; only those are decoded (the field readers find their blocks
 * through the block maps).
 *
 * read() only positions a batch: a field is decoded when its column is
 * converted (amudai_convert.c), so a column late conversion never needs is
 * never decoded.
 *
 * Also here: the field lookup of a column.
 *
 * IDENTIFICATION
 *	  src/fdw/source_amudai.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/uuid.h"

#include "fdw/amudai_fdw.h"
#include "fdw/parquet_fdw.h"
#include "fdw/remote_fdw.h"
#include "fdw/remote_object.h"
#include "fdw/source.h"

/* Rows per block of RANGE_INDEX buffers this source uses (format notes 3.9). */
#define AM_RANGE_BLOCK_ROWS	256

/*
 * A shard in an object store: a stripe's bound fields' buffers in the root
 * file are fetched in one batch of concurrent requests when the stripe
 * opens, instead of one GET per buffer as the field readers ask, and the
 * next stripe's are fetched in the background while this one decodes.
 * Buffers of stripe files (and of nested fields) are read as asked.
 */
#define AM_PREFETCH_MAX_RANGES	1024

typedef struct AmSourceFile
{
	PfSource	base;			/* first: a PfSource * is an AmSourceFile * */
	PfShard    *shard;
	MemoryContext cxt;			/* the file's: bindings, converters */
	MemoryContext unit_cxt;		/* the open stripe's readers and blocks */

	/* per bound column */
	int64	   *field_ids;		/* schema id, -1: not in the shard */
	PfAmConverter **convs;		/* with converters */

	/* the open stripe */
	uint64		stripe_rows;
	int			ahead;			/* the stripe fetched in the background (-1) */
	uint64	   *ranges;			/* [2 i], [2 i + 1]: rows [start, end) */
	int			nranges;
	int			next_range;
	uint64		pos;			/* next row to position */
	uint64		range_end;		/* end of the range being read */
	uint64		batch_first;	/* first row of the current batch */
	uint32		batch_rows;		/* most rows a batch of the stripe holds */
} AmSourceFile;

#define AM(src)	((AmSourceFile *) (src))

/* ----------------------------------------------------------------
 * Fields of a shard: the field a column reads
 * ----------------------------------------------------------------
 */

/*
 * Schema id of the node among ids[0..n) named name: exact, else the only
 * case-insensitive match (several are an error), else -1.
 */
static int64
match_node(const AmSchema *schema, const uint32 *ids, uint32 n,
		   const char *name, size_t len, const char *attname, const char *path)
{
	int64		id = -1;
	int			matches = 0;

	for (uint32 i = 0; i < n; i++)
	{
		const AmSchemaNode *node = &schema->nodes[ids[i]];

		if (node->name.len == len && memcmp(node->name.data, name, len) == 0)
			return ids[i];
	}
	for (uint32 i = 0; i < n; i++)
	{
		const AmSchemaNode *node = &schema->nodes[ids[i]];

		if (node->name.len == len &&
			pg_strncasecmp((const char *) node->name.data, name, len) == 0)
		{
			id = ids[i];
			matches++;
		}
	}
	if (matches > 1)
		ereport(ERROR,
				(errcode(ERRCODE_AMBIGUOUS_COLUMN),
				 errmsg("column \"%s\" matches %d fields of Amudai shard \"%s\" case-insensitively",
						attname, matches, path),
				 errhint("Set the column option \"column_name\" to the exact field name.")));
	return id;
}

/*
 * A field inside structs named by a dotted path ("loc.lat"), each step
 * matched as a top-level name is; -1 unless every group passed through is
 * a struct (one value per row).
 */
static int64
find_field_path(const AmSchema *schema, const char *field_name,
				const char *attname, const char *path)
{
	const char *step = field_name;
	int64		id = -1;

	for (;;)
	{
		const char *dot = strchr(step, '.');
		size_t		len = dot ? (size_t) (dot - step) : strlen(step);

		if (id < 0)
			id = match_node(schema, schema->fields, schema->num_fields,
							step, len, attname, path);
		else if (schema->nodes[id].basic_type != AM_TYPE_STRUCT)
			return -1;
		else
			id = match_node(schema, schema->nodes[id].children,
							schema->nodes[id].num_children, step, len,
							attname, path);
		if (id < 0 || dot == NULL)
			return id;
		step = dot + 1;
	}
}

/* Schema id of the field a column reads (top level, else a dotted path), or -1. */
int64
pf_amudai_find_field(AmShard *shard, const char *path, const char *attname,
					 const char *field_name, bool missing_error)
{
	const AmSchema *schema = am_shard_schema(shard);
	int64		id = am_shard_find_field(shard, field_name, strlen(field_name));

	if (id < 0)
		id = match_node(schema, schema->fields, schema->num_fields, field_name,
						strlen(field_name), attname, path);
	if (id < 0 && strchr(field_name, '.') != NULL)
		id = find_field_path(schema, field_name, attname, path);
	if (id < 0 && missing_error)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of foreign table is not in Amudai shard \"%s\"",
						field_name, path),
				 errhint("Set the table option missing_columns to 'null' to read missing columns as NULL.")));
	return id;
}

/* ----------------------------------------------------------------
 * Stripe pruning: field descriptors and Bloom filters
 * ----------------------------------------------------------------
 */

/*
 * Can min/max bounds of a column of type deftyp decide qual q?  NaN sorts
 * above everything in PostgreSQL and is in no bound (nor in a range
 * index's min/max), and numeric NaN values compare only with numerics.
 */
static bool
bounds_usable(PfPruneQual *q, Oid deftyp, bool nan_free)
{
	/* FloatingStats saying no NaN: the bounds are the whole order */
	if (nan_free && (deftyp == FLOAT4OID || deftyp == FLOAT8OID) && !q->value_is_nan)
		return true;
	if ((deftyp == FLOAT4OID || deftyp == FLOAT8OID || deftyp == NUMERICOID) &&
		(q->strategy == BTGreaterStrategyNumber ||
		 q->strategy == BTGreaterEqualStrategyNumber ||
		 q->strategy == PF_NOT_EQUAL_STRATEGY || q->value_is_nan))
		return false;
	if (deftyp == NUMERICOID)
	{
		/* a NaN value (pf_prune_qual_set_value notes float NaNs only) */
		if (q->in_list)
		{
			for (int i = 0; i < q->num_elems; i++)
				if (numeric_is_nan(DatumGetNumeric(q->elems[i])))
					return false;
		}
		else if (q->valtype == NUMERICOID && numeric_is_nan(DatumGetNumeric(q->value)))
			return false;
		else if (q->valtype != NUMERICOID)
			return false;
	}
	return true;
}

/*
 * Schema id of the field qual q's column reads (the column's default type
 * must be its declared one), or -1; *deftyp gets that type.
 */
static int64
qual_field(AmShard *shard, PfPruneQual *q, List *attnos, const int64 *field_ids,
		   Relation rel, Oid *deftyp)
{
	int			pos = -1;
	int32		defmod;
	ListCell   *lc;

	foreach(lc, attnos)
		if (lfirst_int(lc) == q->attnum)
			pos = foreach_current_index(lc);
	if (pos < 0 || field_ids[pos] < 0)
		return -1;
	if (!pf_amudai_default_type(am_shard_schema(shard), (uint32) field_ids[pos],
								deftyp, &defmod) ||
		*deftyp != TupleDescAttr(RelationGetDescr(rel), q->attnum - 1)->atttypid)
		return -1;
	return field_ids[pos];
}

/*
 * Does the stripe's Bloom filter (format notes 5.4) show that no row
 * matches qual q, an equality or IN list on a string, binary or (in RFC
 * 4122 byte order) Guid column?  Equality under a deterministic collation
 * is byte equality, so any such collation will do.
 */
static bool
stripe_bloom_excludes(PfShard *ps, uint32 stripe, PfPruneQual *q,
					  List *attnos, const int64 *field_ids, Relation rel,
					  bool guid_dotnet)
{
	AmShard    *shard = ps->shard;
	AmStripeFieldDescriptor sfd;
	const AmSchemaNode *node;
	bool		present;
	int			anchor;
	AmError		err;
	int64		id;
	Oid			deftyp;
	ListCell   *lc;

	if (q->is_bool)
	{
		foreach(lc, q->args)
		{
			bool		arm = stripe_bloom_excludes(ps, stripe, (PfPruneQual *) lfirst(lc),
													attnos, field_ids, rel, guid_dotnet);

			if (q->bool_op == AND_EXPR && arm)
				return true;
			if (q->bool_op == OR_EXPR && !arm)
				return false;
		}
		return q->bool_op == OR_EXPR;
	}
	if (!q->value_known || q->value_null || q->is_null_test ||
		(!q->in_list && q->strategy != BTEqualStrategyNumber))
		return false;
	if (OidIsValid(q->collation) && !get_collation_isdeterministic(q->collation))
		return false;
	if ((id = qual_field(shard, q, attnos, field_ids, rel, &deftyp)) < 0)
		return false;
	node = &am_shard_schema(shard)->nodes[id];
	if (q->valtype != deftyp ||
		!((node->basic_type == AM_TYPE_STRING && deftyp == TEXTOID) ||
		  ((node->basic_type == AM_TYPE_BINARY ||
			node->basic_type == AM_TYPE_FIXED_SIZE_BINARY) && deftyp == BYTEAOID) ||
		  (node->basic_type == AM_TYPE_GUID && deftyp == UUIDOID && !guid_dotnet)))
		return false;
	am_error_clear(&err);
	if (am_shard_stripe_field(shard, stripe, (uint32) id, &present, &sfd,
							  &anchor, &err) != AM_OK)
		pf_report_amudai_error(ps->path, &err);
	if (!present || sfd.field.sbbf_data.len == 0)
		return false;
	for (int i = 0; i < (q->in_list ? q->num_elems : 1); i++)
	{
		Datum		v = q->in_list ? q->elems[i] : q->value;
		const void *bytes;
		size_t		len;

		if (deftyp == UUIDOID)
		{
			bytes = DatumGetUUIDP(v)->data;
			len = UUID_LEN;
		}
		else
		{
			struct varlena *t = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(v));

			bytes = VARDATA_ANY(t);
			len = VARSIZE_ANY_EXHDR(t);
		}
		if (am_sbbf_might_contain(&sfd.field, bytes, len))
			return false;
	}
	return true;
}

/*
 * Does qual q show that no row of the stripe can match?  The field's
 * stripe descriptor gives null count, constant and min/max.
 */
/*
 * StringStats: "text column = value" (or IN) is false for every row when no
 * value's byte length lies in [min_size, max_size].  Only under a
 * deterministic collation, where equal means the same bytes.
 */
static bool
string_sizes_exclude(PfPruneQual *q, const AmFieldDescriptor *fd, Oid deftyp)
{
	int			n = q->in_list ? q->num_elems : 1;

	if (!fd->has_string_stats || deftyp != TEXTOID ||
		q->strategy != BTEqualStrategyNumber || q->valtype != TEXTOID ||
		(OidIsValid(q->collation) && !get_collation_isdeterministic(q->collation)))
		return false;
	for (int i = 0; i < n; i++)
	{
		Datum		v = q->in_list ? q->elems[i] : q->value;
		uint64		len = VARSIZE_ANY_EXHDR(DatumGetPointer(v));

		if (len >= fd->min_size && len <= fd->max_size)
			return false;
	}
	return true;
}

static bool
stripe_qual_excludes(PfShard *ps, uint32 stripe, PfPruneQual *q,
					 List *attnos, const int64 *field_ids, Relation rel)
{
	AmShard    *shard = ps->shard;
	const AmSchema *schema = am_shard_schema(shard);
	uint64		rows = am_shard_stripe(shard, stripe)->total_record_count;
	AmStripeFieldDescriptor sfd;
	const AmFieldDescriptor *fd;
	bool		present;
	int			anchor;
	AmError		err;
	int			pos = -1;
	Oid			deftyp;
	int32		defmod;
	Datum		min,
				max;
	bool		all_null;
	bool		nan_free;
	ListCell   *lc;

	if (q->is_bool)
	{
		foreach(lc, q->args)
		{
			bool		arm = stripe_qual_excludes(ps, stripe,
												   (PfPruneQual *) lfirst(lc),
												   attnos, field_ids, rel);

			if (q->bool_op == AND_EXPR && arm)
				return true;
			if (q->bool_op == OR_EXPR && !arm)
				return false;
		}
		return q->bool_op == OR_EXPR;
	}
	if (!q->value_known)
		return false;
	if (q->value_null)
		return true;
	foreach(lc, attnos)
		if (lfirst_int(lc) == q->attnum)
			pos = foreach_current_index(lc);
	if (pos < 0 || field_ids[pos] < 0)
		return false;
	if (!pf_amudai_default_type(schema, (uint32) field_ids[pos], &deftyp, &defmod) ||
		deftyp != TupleDescAttr(RelationGetDescr(rel), q->attnum - 1)->atttypid)
		return false;

	am_error_clear(&err);
	if (am_shard_stripe_field(shard, stripe, (uint32) field_ids[pos], &present,
							  &sfd, &anchor, &err) != AM_OK)
		pf_report_amudai_error(ps->path, &err);
	if (!present)
		return false;
	fd = &sfd.field;
	all_null = fd->constant_value.kind == AM_VALUE_NULL ||
		(fd->has_null_count && rows > 0 && fd->null_count >= rows);

	if (q->is_null_test)
	{
		if (q->null_test == IS_NOT_NULL)
			return all_null;
		return fd->has_null_count && fd->null_count == 0 &&
			fd->constant_value.kind != AM_VALUE_NULL;
	}
	if (all_null)
		return true;

	if (string_sizes_exclude(q, fd, deftyp))
		return true;
	if (fd->constant_value.kind != AM_VALUE_ABSENT)
	{
		if (!pf_amudai_stat_datum(schema, (uint32) field_ids[pos], deftyp,
								  &fd->constant_value, &min))
			return false;
		max = min;
	}
	else if (deftyp == BOOLOID && fd->has_boolean_stats)
	{
		/* BooleanStats: false < true, the counts of each give the bounds */
		if (fd->true_count + fd->false_count == 0)
			return false;
		min = BoolGetDatum(fd->false_count == 0);
		max = BoolGetDatum(fd->true_count > 0);
	}
	else if (q->order_not_bytes ||	/* min/max are in byte order */
			 fd->min_value.kind == AM_VALUE_ABSENT ||
			 fd->max_value.kind == AM_VALUE_ABSENT ||
			 !fd->min_inclusive || !fd->max_inclusive ||
			 !pf_amudai_stat_datum(schema, (uint32) field_ids[pos], deftyp,
								   &fd->min_value, &min) ||
			 !pf_amudai_stat_datum(schema, (uint32) field_ids[pos], deftyp,
								   &fd->max_value, &max))
		return false;

	nan_free = fd->has_floating_stats && fd->floating_counts[3] == 0;
	if (!bounds_usable(q, deftyp, nan_free))
		return false;
	/*
	 * pf_range_excludes() leaves float > and >= alone (NaN sorts above every
	 * number); FloatingStats without NaN make max the greatest value.
	 */
	if (nan_free && (deftyp == FLOAT4OID || deftyp == FLOAT8OID) && !q->in_list)
	{
		if (q->strategy == BTGreaterStrategyNumber)
			return pf_qual_compare(q, max, q->value) <= 0;
		if (q->strategy == BTGreaterEqualStrategyNumber)
			return pf_qual_compare(q, max, q->value) < 0;
	}
	return pf_range_excludes(q, deftyp, min, max);
}

/*
 * Bytes of the buffers of a field in a stripe (for the cost).  A buffer
 * said to reach past the end of its file is a damaged shard, refused here,
 * before its size makes the cost absurd (which once put a small shard's
 * scan under JIT, ~95 MB for nothing) or anything is sized by it.
 */
static double
stripe_field_bytes(PfShard *ps, uint32 stripe, uint32 schema_id)
{
	AmStripeFieldDescriptor sfd;
	bool		present;
	int			anchor;
	AmError		err;
	double		bytes = 0;

	am_error_clear(&err);
	if (am_shard_stripe_field(ps->shard, stripe, schema_id, &present, &sfd,
							  &anchor, &err) != AM_OK)
		pf_report_amudai_error(ps->path, &err);
	if (!present)
		return 0;
	for (uint32 b = 0; b < sfd.num_buffers; b++)
	{
		const AmDataRef *ref = &sfd.buffers[b].buffer;
		uint64		size;
		int			file;

		if (ref->end <= ref->start)
			continue;
		if (am_shard_resolve(ps->shard, anchor, ref, &file, &err) != AM_OK)
			pf_report_amudai_error(ps->path, &err);
		size = pf_shard_file_size(ps, file);
		if (size > 0 && ref->end > size)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid Amudai shard \"%s\": a buffer of field %u in stripe %u ends past the end of its file",
							ps->path, schema_id, stripe),
					 errdetail("The buffer spans bytes [%llu, %llu) of a file of %llu bytes.",
							   (unsigned long long) ref->start,
							   (unsigned long long) ref->end,
							   (unsigned long long) size)));
		bytes += (double) (ref->end - ref->start);
	}
	return bytes;
}

/*
 * Rows per batch in the stripe so that one batch holds at most
 * PF_BATCH_VALUE_BYTES of the bound String and Binary columns' values:
 * their StringStats/BinaryStats max_size is the longest value of the
 * stripe, so rows x the sum of those is a bound known before anything is
 * decoded (the field readers expand a dictionary's value once per row: one
 * huge value shared by every row must not be decoded for all of them at
 * once).  Columns without those statistics are not bounded.
 */
static uint32
stripe_batch_rows(AmSourceFile *f, uint32 stripe)
{
	AmShard    *shard = f->shard->shard;
	const AmSchema *schema = am_shard_schema(shard);
	uint64		row_bytes = 0;

	for (int i = 0; i < f->base.ncolumns; i++)
	{
		AmStripeFieldDescriptor sfd;
		const AmSchemaNode *n;
		bool		present;
		int			anchor;
		AmError		err;

		if (f->field_ids[i] < 0 || f->convs == NULL || f->convs[i] == NULL)
			continue;
		n = &schema->nodes[f->field_ids[i]];
		if (n->basic_type != AM_TYPE_STRING && n->basic_type != AM_TYPE_BINARY)
			continue;
		am_error_clear(&err);
		if (am_shard_stripe_field(shard, stripe, (uint32) f->field_ids[i],
								  &present, &sfd, &anchor, &err) != AM_OK)
			pf_report_amudai_error(f->shard->path, &err);
		if (present && (sfd.field.has_string_stats || sfd.field.has_binary_stats))
			row_bytes += Min(sfd.field.max_size, PF_BATCH_VALUE_BYTES);
	}
	if (row_bytes == 0)
		return PG_UINT32_MAX;
	return (uint32) Max(PF_BATCH_VALUE_BYTES / row_bytes, 1);
}
/* ----------------------------------------------------------------
 * Row ranges of a stripe from its RANGE_INDEX buffers
 * ----------------------------------------------------------------
 */

/* Bytes per value of a RANGE_INDEX over a field of this basic type, or 0. */
static uint32
range_elem_size(const AmSchemaNode *n)
{
	switch (n->basic_type)
	{
		case AM_TYPE_INT8:
			return 1;
		case AM_TYPE_INT16:
			return 2;
		case AM_TYPE_INT32:
		case AM_TYPE_FLOAT32:
			return 4;
		case AM_TYPE_INT64:
		case AM_TYPE_FLOAT64:
		case AM_TYPE_DATETIME:
			return 8;
		case AM_TYPE_FIXED_SIZE_BINARY:
			return n->fixed_size == 16 ? 16 : 0;
		default:
			return 0;
	}
}

/* Value b of a range index's mins or maxs as a field descriptor's AnyValue. */
static void
range_value(const AmSchemaNode *n, const uint8 *p, AmAnyValue *v)
{
	memset(v, 0, sizeof(*v));
	switch (n->basic_type)
	{
		case AM_TYPE_FLOAT32:
			{
				float		f;

				memcpy(&f, p, 4);
				v->kind = AM_VALUE_DOUBLE;
				v->d = f;
				break;
			}
		case AM_TYPE_FLOAT64:
			v->kind = AM_VALUE_DOUBLE;
			memcpy(&v->d, p, 8);
			break;
		case AM_TYPE_FIXED_SIZE_BINARY:
			v->kind = AM_VALUE_DECIMAL;
			v->bytes.data = p;
			v->bytes.len = 16;
			break;
		case AM_TYPE_DATETIME:
			v->kind = AM_VALUE_U64;
			memcpy(&v->u64, p, 8);
			break;
		default:
			{
				uint32		w = range_elem_size(n);
				uint64		u = 0;

				memcpy(&u, p, w);	/* little-endian host, as elsewhere */
				if (n->is_signed && w < 8)
					u = (uint64) (((int64) (u << (64 - 8 * w))) >> (64 - 8 * w));
				v->kind = n->is_signed ? AM_VALUE_I64 : AM_VALUE_U64;
				v->u64 = u;
				break;
			}
	}
}

/*
 * Mark in keep[nblocks] (false = no row of that 256-row block can match)
 * what qual q shows with the RANGE_INDEX buffer of its column in the
 * stripe; keep is all true where q cannot tell.  The field's rows are the
 * stripe's rows (top-level fields).
 */
static void
qual_block_mask(AmSourceFile *st, uint32 stripe, uint64 rows, PfPruneQual *q,
				int nblocks, bool *keep)
{
	AmShard    *shard = st->shard->shard;
	AmStripeFieldDescriptor sfd;
	const AmEncodedBuffer *rb = NULL;
	const AmSchemaNode *node;
	AmRangeIndex ri;
	bool		present;
	int			anchor;
	int			file;
	uint8_t    *bytes;
	AmError		err;
	int64		id;
	Oid			deftyp;
	uint32		elem;
	ListCell   *lc;

	memset(keep, true, nblocks);
	if (q->is_bool)
	{
		bool	   *arm = palloc(nblocks);

		if (q->bool_op == OR_EXPR)
			memset(keep, false, nblocks);
		foreach(lc, q->args)
		{
			qual_block_mask(st, stripe, rows, (PfPruneQual *) lfirst(lc), nblocks, arm);
			for (int b = 0; b < nblocks; b++)
				keep[b] = q->bool_op == OR_EXPR ? keep[b] || arm[b] : keep[b] && arm[b];
		}
		pfree(arm);
		return;
	}
	if (!q->value_known || q->is_null_test || q->order_not_bytes)
		return;
	if (q->value_null)
	{
		memset(keep, false, nblocks);
		return;
	}
	if ((id = qual_field(shard, q, st->base.attnos, st->field_ids, st->base.rel, &deftyp)) < 0 ||
		!bounds_usable(q, deftyp, false))
		return;
	node = &am_shard_schema(shard)->nodes[id];
	if ((elem = range_elem_size(node)) == 0)
		return;
	am_error_clear(&err);
	if (am_shard_stripe_field(shard, stripe, (uint32) id, &present, &sfd,
							  &anchor, &err) != AM_OK)
		pf_report_amudai_error(st->shard->path, &err);
	if (!present)
		return;
	for (uint32 b = 0; b < sfd.num_buffers; b++)
		if (sfd.buffers[b].kind == AM_BUFFER_RANGE_INDEX)
			rb = &sfd.buffers[b];
	if (rb == NULL || rb->buffer.end <= rb->buffer.start)
		return;
	if (am_shard_resolve(shard, anchor, &rb->buffer, &file, &err) != AM_OK ||
		am_shard_read(shard, file, rb->buffer.start, rb->buffer.end, &bytes, &err) != AM_OK ||
		am_range_index_parse(bytes, (size_t) (rb->buffer.end - rb->buffer.start), elem,
							 am_shard_allocator(shard), &ri, &err) != AM_OK)
		pf_report_amudai_error(st->shard->path, &err);
	am_shard_allocator(shard)->release(am_shard_allocator(shard)->ctx, bytes);
	if (ri.span != rows || ri.block_rows != AM_RANGE_BLOCK_ROWS ||
		ri.blocks != (uint64) nblocks || ri.basic_type != node->basic_type)
	{
		am_range_index_free(&ri, am_shard_allocator(shard));
		return;
	}
	for (int b = 0; b < nblocks; b++)
	{
		uint64		in_block = Min((uint64) AM_RANGE_BLOCK_ROWS,
								   rows - (uint64) b * AM_RANGE_BLOCK_ROWS);
		AmAnyValue	vmin,
					vmax;
		Datum		min,
					max;

		/* only nulls and NaNs: this qual is true for none of them */
		if (ri.invalid != NULL && ri.invalid[b] >= in_block)
		{
			keep[b] = false;
			continue;
		}
		range_value(node, ri.mins + (size_t) b * elem, &vmin);
		range_value(node, ri.maxs + (size_t) b * elem, &vmax);
		if (pf_amudai_stat_datum(am_shard_schema(shard), (uint32) id, deftyp, &vmin, &min) &&
			pf_amudai_stat_datum(am_shard_schema(shard), (uint32) id, deftyp, &vmax, &max) &&
			pf_range_excludes(q, deftyp, min, max))
			keep[b] = false;
	}
	am_range_index_free(&ri, am_shard_allocator(shard));
}

/*
 * The row ranges of the stripe that the range indexes leave (all its rows
 * when no qual can use one), in the current context (the stripe's); the
 * rows left out are counted.
 */
static void
stripe_row_ranges(AmSourceFile *st, uint32 stripe, List *quals)
{
	uint64		rows = st->stripe_rows;
	int			nblocks;
	bool	   *keep,
			   *mask;
	ListCell   *lc;

	st->ranges = palloc(sizeof(uint64) * 2);
	st->ranges[0] = 0;
	st->ranges[1] = rows;
	st->nranges = 1;
	if (quals == NIL || rows == 0 ||
		(rows + AM_RANGE_BLOCK_ROWS - 1) / AM_RANGE_BLOCK_ROWS > (uint64) (MaxAllocSize / 16))
		return;
	nblocks = (int) ((rows + AM_RANGE_BLOCK_ROWS - 1) / AM_RANGE_BLOCK_ROWS);
	keep = palloc(nblocks);
	mask = palloc(nblocks);
	memset(keep, true, nblocks);
	foreach(lc, quals)
	{
		qual_block_mask(st, stripe, rows, (PfPruneQual *) lfirst(lc), nblocks, mask);
		for (int b = 0; b < nblocks; b++)
			keep[b] &= mask[b];
	}
	st->ranges = palloc(sizeof(uint64) * 2 * (nblocks + 1));
	st->nranges = 0;
	for (int b = 0; b < nblocks; b++)
	{
		uint64		start = (uint64) b * AM_RANGE_BLOCK_ROWS;
		uint64		end = Min(rows, start + AM_RANGE_BLOCK_ROWS);

		if (!keep[b])
			st->base.scan->rows_skipped_by_index += (int64) (end - start);
		else if (st->nranges > 0 && st->ranges[2 * st->nranges - 1] == start)
			st->ranges[2 * st->nranges - 1] = end;
		else
		{
			st->ranges[2 * st->nranges] = start;
			st->ranges[2 * st->nranges + 1] = end;
			st->nranges++;
		}
	}
}

/* Move to the next stripe, opening shards as needed; false at the end. */

/* ----------------------------------------------------------------
 * The source callbacks
 * ----------------------------------------------------------------
 */

static PfSource *
am_source_open(const char *path, Relation rel, PfSourceScan *scan,
			   MemoryContext cxt)
{
	AmSourceFile *f = MemoryContextAllocZero(cxt, sizeof(AmSourceFile));

	f->base.ops = &pf_amudai_source;
	f->base.path = MemoryContextStrdup(cxt, path);
	f->base.rel = rel;
	f->base.scan = scan;
	f->base.unit = -1;
	f->cxt = cxt;
	if (pf_is_url(path))
		scan->remote = true;
	f->shard = pf_open_shard_counted(path, pf_rel_serverid(rel),
									 &scan->remote_stats, cxt);
	f->base.nunits = (int) am_shard_stripe_count(f->shard->shard);
	f->ahead = -1;
	f->unit_cxt = AllocSetContextCreate(cxt, "parquet_fdw amudai stripe",
										ALLOCSET_DEFAULT_SIZES);
	return &f->base;
}

static void am_source_unit_close(PfSource *src);

static void
am_source_close(PfSource *src)
{
	AmSourceFile *f = AM(src);

	if (src->unit >= 0)
		am_source_unit_close(src);
	pf_close_shard(f->shard);
	f->shard = NULL;
}

static void
am_source_bind(PfSource *src, const PfSourceColumn *cols, int ncols,
			   bool missing_error, bool converters)
{
	AmSourceFile *f = AM(src);
	const AmSchema *schema = am_shard_schema(f->shard->shard);
	Oid			relid = RelationGetRelid(src->rel);
	MemoryContext old = MemoryContextSwitchTo(f->cxt);

	src->ncolumns = ncols;
	src->columns = cols;
	src->attnos = NIL;
	src->present = palloc0(sizeof(bool) * Max(1, ncols));
	f->field_ids = palloc(sizeof(int64) * Max(1, ncols));
	f->convs = converters ? palloc0(sizeof(PfAmConverter *) * Max(1, ncols)) : NULL;
	for (int i = 0; i < ncols; i++)
	{
		int64		id = -1;
		char	   *value;

		src->attnos = lappend_int(src->attnos, cols[i].attnum);
		src->err_column = cols[i].attname;

		/* virtual columns: the file's path, or a partition key it lacks */
		if (!pf_is_filename_column(relid, cols[i].attnum))
		{
			id = pf_amudai_find_field(f->shard->shard, src->path,
									  cols[i].attname, cols[i].field_name,
									  false);
			if (id < 0 && missing_error &&
				!pf_partition_value(src->path, cols[i].field_name, &value))
				(void) pf_amudai_find_field(f->shard->shard, src->path,
											cols[i].attname,
											cols[i].field_name, true);
		}
		f->field_ids[i] = id;
		src->present[i] = id >= 0;
		if (id < 0 || !converters)
			continue;
		f->convs[i] = pf_amudai_converter_create(schema, (uint32) id,
												 cols[i].typid, cols[i].typmod,
												 cols[i].attname, f->cxt);
		pf_amudai_converter_set_guid_dotnet(f->convs[i], src->scan->guid_dotnet);
	}
	src->err_column = NULL;
	MemoryContextSwitchTo(old);
}

static int64
am_source_unit_rows(PfSource *src, int unit)
{
	return (int64) am_shard_stripe(AM(src)->shard->shard, unit)->total_record_count;
}

static double
am_source_column_bytes(PfSource *src, int unit, int col)
{
	AmSourceFile *f = AM(src);

	if (f->field_ids[col] < 0)
		return 0;
	return stripe_field_bytes(f->shard, (uint32) unit, (uint32) f->field_ids[col]);
}

/* CardinalityInfo.count and null_count of the field's shard descriptor. */
static bool
am_source_column_distinct(PfSource *src, int col, double *distinct,
						  double *nulls)
{
	AmSourceFile *f = AM(src);
	AmFieldDescriptor fd;
	AmError		err;
	bool		present;

	if (f->field_ids[col] < 0)
		return false;
	if (am_shard_field_descriptor(f->shard->shard, (uint32) f->field_ids[col],
								  &present, &fd, &err) != AM_OK)
		pf_report_amudai_error(src->path, &err);
	if (!present || !fd.has_cardinality || !fd.has_null_count)
		return false;
	*distinct = (double) fd.cardinality;
	*nulls = (double) fd.null_count;
	return true;
}

static double
am_source_unit_bytes(PfSource *src, int unit)
{
	AmSourceFile *f = AM(src);
	const AmSchema *schema = am_shard_schema(f->shard->shard);
	double		bytes = 0;

	for (uint32 i = 0; i < schema->num_fields; i++)
		bytes += stripe_field_bytes(f->shard, (uint32) unit, schema->fields[i]);
	return bytes;
}

static bool
am_source_column_bounds(PfSource *src, int unit, int col, Oid typid,
						Datum *min, Datum *max, int64 *null_count)
{
	AmSourceFile *f = AM(src);
	AmShard    *shard = f->shard->shard;
	AmStripeFieldDescriptor sfd;
	const AmFieldDescriptor *fd;
	bool		present;
	int			anchor;
	AmError		err;
	int64		id = f->field_ids[col];
	Oid			deftyp;
	int32		defmod;

	*null_count = -1;
	if (id < 0 ||
		!pf_amudai_default_type(am_shard_schema(shard), (uint32) id, &deftyp, &defmod) ||
		deftyp != typid)
		return false;
	am_error_clear(&err);
	if (am_shard_stripe_field(shard, (uint32) unit, (uint32) id, &present, &sfd,
							  &anchor, &err) != AM_OK)
		pf_report_amudai_error(src->path, &err);
	if (!present)
		return false;
	fd = &sfd.field;
	if (fd->has_null_count)
		*null_count = (int64) fd->null_count;
	if (fd->constant_value.kind != AM_VALUE_ABSENT &&
		fd->constant_value.kind != AM_VALUE_NULL)
	{
		if (!pf_amudai_stat_datum(am_shard_schema(shard), (uint32) id, typid,
								  &fd->constant_value, min))
			return false;
		*max = *min;
		return true;
	}
	return fd->min_value.kind != AM_VALUE_ABSENT &&
		fd->max_value.kind != AM_VALUE_ABSENT &&
		fd->min_inclusive && fd->max_inclusive &&
		pf_amudai_stat_datum(am_shard_schema(shard), (uint32) id, typid,
							 &fd->min_value, min) &&
		pf_amudai_stat_datum(am_shard_schema(shard), (uint32) id, typid,
							 &fd->max_value, max);
}

static PfPruneKind
am_source_unit_prune(PfSource *src, int unit, List *quals)
{
	AmSourceFile *f = AM(src);
	ListCell   *lc;

	foreach(lc, quals)
		if (stripe_qual_excludes(f->shard, (uint32) unit,
								 (PfPruneQual *) lfirst(lc), src->attnos,
								 f->field_ids, src->rel))
			return PF_PRUNE_STATISTICS;
	foreach(lc, quals)
		if (stripe_bloom_excludes(f->shard, (uint32) unit,
								  (PfPruneQual *) lfirst(lc), src->attnos,
								  f->field_ids, src->rel,
								  src->scan->guid_dotnet))
			return PF_PRUNE_BLOOM;
	return PF_PRUNE_NONE;
}

/* Partition values are trusted without looking for the fields in the shard. */
static bool
am_source_file_excluded(PfSource *src, List *quals)
{
	return pf_file_excluded(NULL, src->path, quals, src->rel);
}

/*
 * Append the root file's buffers of stripe's bound fields to ranges (at
 * most AM_PREFETCH_MAX_RANGES in all); returns the count.
 */
static int
stripe_root_ranges(AmSourceFile *f, uint32 stripe, PfRemoteRange *ranges)
{
	int			n = 0;

	for (int i = 0; i < f->base.ncolumns; i++)
	{
		AmStripeFieldDescriptor sfd;
		bool		present;
		int			anchor;
		AmError		err;

		if (f->field_ids[i] < 0)
			continue;
		am_error_clear(&err);
		if (am_shard_stripe_field(f->shard->shard, stripe, (uint32) f->field_ids[i],
								  &present, &sfd, &anchor, &err) != AM_OK)
			pf_report_amudai_error(f->shard->path, &err);
		for (uint32 b = 0; present && b < sfd.num_buffers; b++)
		{
			const AmDataRef *ref = &sfd.buffers[b].buffer;
			int			file;

			if (ref->end <= ref->start || n >= AM_PREFETCH_MAX_RANGES)
				continue;
			if (am_shard_resolve(f->shard->shard, anchor, ref, &file, &err) != AM_OK)
				pf_report_amudai_error(f->shard->path, &err);
			if (file > 0)
				continue;
			ranges[n].offset = ref->start;
			ranges[n].len = ref->end - ref->start;
			n++;
		}
	}
	return n;
}

/*
 * A remote shard's stripe: its buffers from the background fetch when it
 * holds them, else fetched now, and the next stripe's fetch started.
 */
static void
prefetch_stripe(AmSourceFile *f, int unit)
{
	PfRemoteObject *obj = pf_remote_object_of(&f->shard->source);
	PfRemoteRange *ranges;
	int			next = -1;

	if (obj == NULL)
		return;
	ranges = palloc(sizeof(PfRemoteRange) * AM_PREFETCH_MAX_RANGES);
	if (f->ahead != unit || !pf_remote_object_take_tagged(obj, unit))
	{
		if (f->ahead >= 0)
			pf_remote_object_cancel_tagged(obj, f->ahead);
		pf_remote_object_prefetch(obj, ranges,
								  stripe_root_ranges(f, (uint32) unit, ranges));
	}
	f->ahead = -1;
	if (f->base.next_units != NULL)
	{
		if (f->base.nnext_units > 0)
			next = f->base.next_units[0];
	}
	else
		next = unit + 1;
	if (next >= 0 && next < f->base.nunits && next != unit &&
		pf_remote_object_fetch_tagged(obj, next, ranges,
									  stripe_root_ranges(f, (uint32) next, ranges)))
		f->ahead = next;
	pfree(ranges);
}

static void
am_source_unit_open(PfSource *src, int unit, List *row_quals, int64 row_limit)
{
	AmSourceFile *f = AM(src);
	MemoryContext old;

	/* no stripe is read from a file written over since it was opened */
	pf_shard_check_unchanged(f->shard);
	src->unit = unit;
	src->batch_row = 0;
	f->batch_rows = stripe_batch_rows(f, (uint32) unit);
	f->stripe_rows = am_shard_stripe(f->shard->shard, unit)->total_record_count;
	prefetch_stripe(f, unit);
	old = MemoryContextSwitchTo(f->unit_cxt);
	stripe_row_ranges(f, (uint32) unit, row_quals);
	if (row_limit > 0 && row_quals == NIL && f->nranges == 1)
		f->ranges[1] = Min(f->ranges[1], (uint64) row_limit);
	f->next_range = 0;
	f->pos = f->range_end = 0;
	for (int i = 0; i < src->ncolumns && f->nranges > 0; i++)
	{
		PfAmConverter *conv = f->convs[i];

		if (conv == NULL)
			continue;
		src->err_column = src->columns[i].attname;
		pf_amudai_converter_begin_stripe(conv, f->shard->shard, src->path,
										 (uint32) unit, f->unit_cxt);
		if (pf_amudai_converter_positions(conv) < f->stripe_rows)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid Amudai shard \"%s\": field of column \"%s\" has fewer positions than its stripe has records",
							src->path, src->columns[i].attname),
					 errdetail("Stripe %d has %llu records, the field %llu positions.",
							   unit, (unsigned long long) f->stripe_rows,
							   (unsigned long long) pf_amudai_converter_positions(conv))));
	}
	src->err_column = NULL;
	MemoryContextSwitchTo(old);
}

static uint32
am_source_read(PfSource *src, uint32 max_rows)
{
	AmSourceFile *f = AM(src);
	uint32		want;

	while (f->pos >= f->range_end)
	{
		if (f->next_range >= f->nranges)
			return 0;
		/* the next row range the range indexes left */
		f->pos = f->ranges[2 * f->next_range];
		f->range_end = f->ranges[2 * f->next_range + 1];
		f->next_range++;
	}
	want = (uint32) Min((uint64) Min(max_rows, f->batch_rows),
						f->range_end - f->pos);
	f->batch_first = f->pos;
	src->batch_row = (int64) f->pos;
	f->pos += want;
	return want;
}

static bool
am_source_column_lazy(PfSource *src, int col)
{
	return src->present[col];
}

static void
am_source_convert(PfSource *src, int col, uint32 from, uint32 n,
				  Datum *values, bool *nulls)
{
	AmSourceFile *f = AM(src);

	pf_amudai_converter_fill(f->convs[col], src->path, f->batch_first + from,
							 n, values, nulls);
}

static int64
am_source_failed_row(void)
{
	return -1;
}

static void
am_source_unit_close(PfSource *src)
{
	AmSourceFile *f = AM(src);

	if (f->convs)
		for (int i = 0; i < src->ncolumns; i++)
			if (f->convs[i])
				pf_amudai_converter_end_stripe(f->convs[i]);
	src->unit = -1;
	f->stripe_rows = 0;
	f->ranges = NULL;
	f->nranges = 0;
	f->next_range = 0;
	f->pos = f->range_end = 0;
	MemoryContextReset(f->unit_cxt);
}

const PfSourceOps pf_amudai_source = {
	.file_noun = "Amudai shard",
	.file_label = "Amudai Shard",
	.unit_noun = "stripe",
	.units_label = "Stripes",
	.index_label = "Rows Skipped by Range Index",
	.counts_io = false,
	/* a field reader's read costs about four Parquet slices a call */
	.lazy_rest_percent = 5,
	.open = am_source_open,
	.close = am_source_close,
	.bind = am_source_bind,
	.unit_rows = am_source_unit_rows,
	.column_bytes = am_source_column_bytes,
	.column_distinct = am_source_column_distinct,
	.unit_bytes = am_source_unit_bytes,
	.column_bounds = am_source_column_bounds,
	.unit_prune = am_source_unit_prune,
	.file_excluded = am_source_file_excluded,
	.unit_open = am_source_unit_open,
	.read = am_source_read,
	.column_lazy = am_source_column_lazy,
	.convert = am_source_convert,
	.failed_row = am_source_failed_row,
	.unit_bytes_read = NULL,
	.unit_close = am_source_unit_close,
};
