/*-------------------------------------------------------------------------
 *
 * prune.c
 *	  Deciding from a file's metadata that a row group holds no row a
 *	  query wants.
 *
 * IDENTIFICATION
 *	  src/fdw/prune.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include <xxhash.h>

#include "access/nbtree.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/restrictinfo.h"
#include "common/int.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "fdw/parquet_fdw.h"
#include "parquet/dictionary_probe.h"
#include "parquet/page_index.h"

/* ----------------------------------------------------------------
 * Row-group pruning with column-chunk statistics
 *
 * A qual "column op constant" (op one of = < <= > >= of the column type's
 * default btree family, either side) skips a row group whose min/max
 * statistics show that no row can satisfy it, and every such qual skips a
 * row group whose column is entirely null.  Only flat columns read as
 * their default type are used, for integer, float, date, timestamp,
 * numeric (DECIMAL on INT32/INT64) and (under the C collation, whose order
 * is the statistics' byte order) text columns.  The quals stay in the plan and are checked on every row.
 *
 * An equality or IN qual that the statistics cannot decide may still be
 * decided by the chunk's split-block bloom filter (no element hashes into
 * it) or, when every data page of the chunk is dictionary-encoded, by its
 * dictionary (no element is in it).  Both compare the value's Parquet plain
 * encoding, so they are used only where that encoding follows exactly from
 * the PostgreSQL value: integers, date, timestamp, text, uuid, and numeric
 * from DECIMAL on INT32/INT64.
 * ----------------------------------------------------------------
 */

/*
 * What qual_excludes may look at: statistics only, or also bloom filters
 * and dictionaries (which cost I/O), read through the open file.  The
 * filters and dictionaries read for one row group are kept per leaf.
 */
typedef struct PruneProbe
{
	PfPruneKind level;			/* the most costly method allowed */
	PfFile	   *pf;				/* NULL: statistics only */
	int			rowgroup;
	MemoryContext cxt;			/* filters, dictionaries; NULL until needed */
	uint8	  **bloom;			/* per leaf: bitset, once read */
	uint32	   *bloom_len;		/* 0: none or unusable */
	bool	   *bloom_read;
	PqDictionary **dict;		/* per leaf: NULL when unusable */
	bool	   *dict_read;
} PruneProbe;

static inline int32
stat_int32(const uint8 *p)
{
	uint32		v = (uint32) p[0] | ((uint32) p[1] << 8) |
		((uint32) p[2] << 16) | ((uint32) p[3] << 24);

	return (int32) v;
}

static inline int64
stat_int64(const uint8 *p)
{
	return (int64) ((uint64) (uint32) stat_int32(p) |
					((uint64) (uint32) stat_int32(p + 4) << 32));
}

/*
 * A statistics bound (plain-encoded bytes) of a flat leaf as a Datum of
 * its default type typid.  is_max rounds sub-microsecond timestamps up, so
 * the bound stays a bound.  Returns false when the type or value cannot be
 * used for pruning.
 */
static bool
stat_datum(const PqSchemaNode *leaf, Oid typid, const uint8 *p, uint32 len,
		   bool legacy, bool is_max, Datum *out)
{
	const PqLogicalType *lt = &leaf->logical;

	switch (typid)
	{
		case INT2OID:
		case INT4OID:
			if (leaf->physical != PQ_INT32 || len != 4 ||
				(lt->kind != PQ_LT_NONE && lt->kind != PQ_LT_INTEGER))
				return false;
			if (lt->kind == PQ_LT_INTEGER && !lt->is_signed && lt->bit_width > 16)
				return false;
			if (typid == INT2OID)
			{
				int32		v = stat_int32(p);

				if (v < PG_INT16_MIN || v > PG_INT16_MAX)
					return false;
				*out = Int16GetDatum((int16) v);
			}
			else
				*out = Int32GetDatum(stat_int32(p));
			return true;
		case INT8OID:
			if (leaf->physical != PQ_INT64 || len != 8 ||
				(lt->kind != PQ_LT_NONE &&
				 !(lt->kind == PQ_LT_INTEGER && lt->is_signed)))
				return false;
			*out = Int64GetDatum(stat_int64(p));
			return true;
		case FLOAT4OID:
			{
				float4		f;

				if (leaf->physical != PQ_FLOAT || len != 4 || lt->kind != PQ_LT_NONE)
					return false;
				memcpy(&f, p, 4);
				if (isnan(f))
					return false;
				*out = Float4GetDatum(f);
				return true;
			}
		case FLOAT8OID:
			{
				float8		f;

				if (leaf->physical != PQ_DOUBLE || len != 8 || lt->kind != PQ_LT_NONE)
					return false;
				memcpy(&f, p, 8);
				if (isnan(f))
					return false;
				*out = Float8GetDatum(f);
				return true;
			}
		case DATEOID:
			{
				int64		days;

				if (leaf->physical != PQ_INT32 || len != 4 || lt->kind != PQ_LT_DATE)
					return false;
				days = (int64) stat_int32(p) - (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE);
				if (days < (DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE) ||
					days >= (DATE_END_JULIAN - POSTGRES_EPOCH_JDATE))
					return false;
				*out = DateADTGetDatum((DateADT) days);
				return true;
			}
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			{
				int64		v;
				int64		us;

				if (leaf->physical != PQ_INT64 || len != 8 ||
					lt->kind != PQ_LT_TIMESTAMP)
					return false;
				v = stat_int64(p);
				switch (lt->unit)
				{
					case PQ_UNIT_MILLIS:
						if (pg_mul_s64_overflow(v, 1000, &us))
							return false;
						break;
					case PQ_UNIT_MICROS:
						us = v;
						break;
					case PQ_UNIT_NANOS:
						us = v / 1000;
						if (v % 1000 != 0 && (v < 0) != is_max)
							us += is_max ? 1 : -1;
						break;
					default:
						return false;
				}
				if (pg_sub_s64_overflow(us, (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY, &us) ||
					!IS_VALID_TIMESTAMP(us))
					return false;
				*out = TimestampGetDatum(us);
				return true;
			}
		case NUMERICOID:
			/* DECIMAL on INT32 / INT64: signed unscaled integers */
			if (lt->kind != PQ_LT_DECIMAL || lt->scale < 0 || lt->scale > 18 ||
				!((leaf->physical == PQ_INT32 && len == 4) ||
				  (leaf->physical == PQ_INT64 && len == 8)))
				return false;
			*out = NumericGetDatum(int64_div_fast_to_numeric(len == 4 ? (int64) stat_int32(p) :
															 stat_int64(p),
															 lt->scale));
			return true;
		case TEXTOID:
			if (leaf->physical != PQ_BYTE_ARRAY || legacy ||
				(lt->kind != PQ_LT_STRING && lt->kind != PQ_LT_ENUM))
				return false;
			*out = PointerGetDatum(cstring_to_text_with_len((const char *) p, len));
			return true;
		default:
			return false;
	}
}

/* ----------------------------------------------------------------
 * Bloom filters and dictionaries
 * ----------------------------------------------------------------
 */

/*
 * The unscaled integer of a numeric value at decimal scale `scale`, when
 * the value has no more decimals than that and the integer lies in
 * [lo, hi]; else false.
 */
static bool
numeric_unscaled(Datum v, int32 scale, int64 lo, int64 hi, int64 *out)
{
	Numeric		num = DatumGetNumeric(v);
	Datum		scaled;
	int64		pow10 = 1;

	if (numeric_is_nan(num) || numeric_is_inf(num) || scale < 0 || scale > 18)
		return false;
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, v,
										  DirectFunctionCall2(numeric_round, v,
															  Int32GetDatum(scale)))) != 0)
		return false;
	for (int i = 0; i < scale; i++)
		pow10 *= 10;
	scaled = DirectFunctionCall2(numeric_mul, v,
								 NumericGetDatum(int64_to_numeric(pow10)));
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, scaled,
										  NumericGetDatum(int64_to_numeric(lo)))) < 0 ||
		DatumGetInt32(DirectFunctionCall2(numeric_cmp, scaled,
										  NumericGetDatum(int64_to_numeric(hi)))) > 0)
		return false;
	*out = DatumGetInt64(DirectFunctionCall1(numeric_int8, scaled));
	return true;
}

/* An integer value of type valtype (int2, int4, int8), or false. */
static bool
datum_int64(Oid valtype, Datum v, int64 *out)
{
	switch (valtype)
	{
		case INT2OID:
			*out = DatumGetInt16(v);
			return true;
		case INT4OID:
			*out = DatumGetInt32(v);
			return true;
		case INT8OID:
			*out = DatumGetInt64(v);
			return true;
		default:
			return false;
	}
}

static void
put_le32(uint8 *p, uint32 v)
{
	p[0] = (uint8) v;
	p[1] = (uint8) (v >> 8);
	p[2] = (uint8) (v >> 16);
	p[3] = (uint8) (v >> 24);
}

static void
put_le64(uint8 *p, uint64 v)
{
	put_le32(p, (uint32) v);
	put_le32(p + 4, (uint32) (v >> 32));
}

/*
 * The Parquet plain encoding (without a byte array's length prefix) of
 * value v of type valtype as flat leaf `leaf` read as its default type
 * coltype would store it: *bytes points into buf (16 bytes) or into v.
 * false when the encoding does not follow exactly from the value (then
 * the value must not prune), including values the column cannot hold.
 */
static bool
plain_encoding(const PqSchemaNode *leaf, Oid coltype, Oid valtype, Datum v,
			   uint8 *buf, const uint8 **bytes, uint32 *len)
{
	const PqLogicalType *lt = &leaf->logical;
	int64		i;

	*bytes = buf;
	switch (coltype)
	{
		case INT2OID:
		case INT4OID:
			/* as stat_datum accepts them: the INT32 holds the value itself */
			if (leaf->physical != PQ_INT32 ||
				(lt->kind != PQ_LT_NONE && lt->kind != PQ_LT_INTEGER) ||
				(lt->kind == PQ_LT_INTEGER && !lt->is_signed && lt->bit_width > 16) ||
				!datum_int64(valtype, v, &i) ||
				i < PG_INT32_MIN || i > PG_INT32_MAX)
				return false;
			put_le32(buf, (uint32) (int32) i);
			*len = 4;
			return true;
		case INT8OID:
			if (leaf->physical != PQ_INT64 ||
				(lt->kind != PQ_LT_NONE &&
				 !(lt->kind == PQ_LT_INTEGER && lt->is_signed)) ||
				!datum_int64(valtype, v, &i))
				return false;
			put_le64(buf, (uint64) i);
			*len = 8;
			return true;
		case DATEOID:
			{
				DateADT		d;

				if (leaf->physical != PQ_INT32 || lt->kind != PQ_LT_DATE ||
					valtype != DATEOID)
					return false;
				d = DatumGetDateADT(v);
				if (DATE_NOT_FINITE(d))
					return false;
				i = (int64) d + (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE);
				put_le32(buf, (uint32) (int32) i);
				*len = 4;
				return true;
			}
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			{
				Timestamp	ts;
				int64		unix_us;

				if (leaf->physical != PQ_INT64 || lt->kind != PQ_LT_TIMESTAMP ||
					valtype != coltype)
					return false;
				ts = DatumGetTimestamp(v);
				if (TIMESTAMP_NOT_FINITE(ts) ||
					pg_add_s64_overflow(ts, (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY,
										&unix_us))
					return false;
				switch (lt->unit)
				{
					case PQ_UNIT_MILLIS:
						/* a value between milliseconds: leave it to the rows */
						if (unix_us % 1000 != 0)
							return false;
						i = unix_us / 1000;
						break;
					case PQ_UNIT_MICROS:
						i = unix_us;
						break;
					case PQ_UNIT_NANOS:
						if (pg_mul_s64_overflow(unix_us, 1000, &i))
							return false;
						break;
					default:
						return false;
				}
				put_le64(buf, (uint64) i);
				*len = 8;
				return true;
			}
		case TEXTOID:
			{
				text	   *t;

				if (leaf->physical != PQ_BYTE_ARRAY ||
					(lt->kind != PQ_LT_STRING && lt->kind != PQ_LT_ENUM) ||
					valtype != TEXTOID)
					return false;
				t = DatumGetTextPP(v);
				*bytes = (const uint8 *) VARDATA_ANY(t);
				*len = VARSIZE_ANY_EXHDR(t);
				return true;
			}
		case NUMERICOID:
			/* DECIMAL on INT32 / INT64: the unscaled value, little endian */
			if (lt->kind != PQ_LT_DECIMAL || valtype != NUMERICOID ||
				(leaf->physical != PQ_INT32 && leaf->physical != PQ_INT64))
				return false;
			if (leaf->physical == PQ_INT32)
			{
				if (!numeric_unscaled(v, lt->scale, PG_INT32_MIN, PG_INT32_MAX, &i))
					return false;
				put_le32(buf, (uint32) (int32) i);
				*len = 4;
				return true;
			}
			if (!numeric_unscaled(v, lt->scale, PG_INT64_MIN, PG_INT64_MAX, &i))
				return false;
			put_le64(buf, (uint64) i);
			*len = 8;
			return true;
		case UUIDOID:
			if (leaf->physical != PQ_FIXED_LEN_BYTE_ARRAY ||
				leaf->type_length != UUID_LEN || lt->kind != PQ_LT_UUID ||
				valtype != UUIDOID)
				return false;
			memcpy(buf, DatumGetUUIDP(v)->data, UUID_LEN);
			*len = UUID_LEN;
			return true;
		default:
			return false;
	}
}

/* The probe's per-leaf caches, allocated on first use. */
static void
probe_prepare(PruneProbe *probe)
{
	int			n = pq_file_meta(probe->pf->file)->num_leaves;
	MemoryContext old;

	if (probe->cxt != NULL)
		return;
	probe->cxt = AllocSetContextCreate(CurrentMemoryContext,
									   "parquet_fdw pruning probes",
									   ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(probe->cxt);
	probe->bloom = palloc0(sizeof(uint8 *) * Max(1, n));
	probe->bloom_len = palloc0(sizeof(uint32) * Max(1, n));
	probe->bloom_read = palloc0(sizeof(bool) * Max(1, n));
	probe->dict = palloc0(sizeof(PqDictionary *) * Max(1, n));
	probe->dict_read = palloc0(sizeof(bool) * Max(1, n));
	MemoryContextSwitchTo(old);
}

/*
 * The bloom filter of a leaf in the probe's row group, or NULL.  A filter
 * that cannot be read (an unsupported kind, bytes that do not fit) only
 * means no pruning: the row group is then read, and its pages checked, as
 * if there were no filter.
 */
static const uint8 *
probe_bloom(PruneProbe *probe, int leaf, uint32 *len)
{
	const PqColumnChunkMeta *chunk =
		&pq_file_meta(probe->pf->file)->row_groups[probe->rowgroup].columns[leaf];

	probe_prepare(probe);
	if (!probe->bloom_read[leaf])
	{
		probe->bloom_read[leaf] = true;
		if (chunk->has_bloom_filter && !chunk->is_encrypted &&
			chunk->file_path == NULL)
		{
			PfcAllocator alloc = pf_context_allocator(probe->cxt);
			PqError		err;
			uint8	   *bits = NULL;
			uint32		n = 0;

			pq_error_clear(&err);
			if (pq_read_bloom_filter(probe->pf->file, probe->rowgroup, leaf,
									 &alloc, &bits, &n, &err) == PQ_OK &&
				n >= 32 && n % 32 == 0)
			{
				probe->bloom[leaf] = bits;
				probe->bloom_len[leaf] = n;
			}
		}
	}
	*len = probe->bloom_len[leaf];
	return probe->bloom[leaf];
}

/*
 * The dictionary of a leaf in the probe's row group when it lists every
 * value of the chunk, else NULL (also when it cannot be read: the reader
 * reports damaged pages when it reads the row group).
 */
static const PqDictionary *
probe_dictionary(PruneProbe *probe, int leaf)
{
	probe_prepare(probe);
	if (!probe->dict_read[leaf])
	{
		PfcAllocator alloc = pf_context_allocator(probe->cxt);
		PqError		err;
		PqDictionary *d = NULL;

		probe->dict_read[leaf] = true;
		pq_error_clear(&err);
		if (pq_read_dictionary(probe->pf->file, probe->rowgroup, leaf,
							   &alloc, &d, &err) == PQ_OK)
			probe->dict[leaf] = d;
	}
	return probe->dict[leaf];
}

/*
 * Can a value be in the chunk, by the probes allowed at this level?
 * "maybe" (true) whenever the value has no exact plain encoding.
 */
static bool
value_may_be_present(PruneProbe *probe, const PqSchemaNode *field, Oid coltype,
					 Oid valtype, Datum v)
{
	uint8		buf[16];
	const uint8 *bytes;
	uint32		len;
	int			leaf = field->leaf_index;

	if (!plain_encoding(field, coltype, valtype, v, buf, &bytes, &len))
		return true;
	if (probe->level >= PF_PRUNE_BLOOM)
	{
		uint32		nbits;
		const uint8 *bits = probe_bloom(probe, leaf, &nbits);

		if (bits != NULL && !pfc_sbbf_probe(bits, nbits, XXH64(bytes, len, 0)))
			return false;
	}
	if (probe->level >= PF_PRUNE_DICTIONARY)
	{
		const PqDictionary *d = probe_dictionary(probe, leaf);

		if (d != NULL)
		{
			for (uint32 k = 0; k < d->num_values; k++)
				if (d->values[k].len == len &&
					memcmp(d->values[k].data, bytes, len) == 0)
					return true;
			return false;
		}
	}
	return true;
}

/*
 * The flat leaf a (non-boolean) prune qual's column reads in this file,
 * when the column is read as the leaf's default type (*deftyp), else NULL.
 */
static const PqSchemaNode *
qual_leaf(const PqFileMeta *meta, int rg, PfPruneQual *q, List *attnos,
		  const PqSchemaNode **fields, Relation rel, Oid *deftyp)
{
	int			pos = -1;
	const PqSchemaNode *field;
	Form_pg_attribute attr;
	int32		defmod;
	ListCell   *lc;

	foreach(lc, attnos)
		if (lfirst_int(lc) == q->attnum)
			pos = foreach_current_index(lc);
	if (pos < 0 || (field = fields[pos]) == NULL)
		return NULL;
	if (!field->is_leaf || field->repetition == PQ_REPEATED ||
		field->leaf_index < 0 ||
		field->leaf_index >= meta->row_groups[rg].num_columns)
		return NULL;
	attr = TupleDescAttr(RelationGetDescr(rel), q->attnum - 1);
	pf_default_type(field, deftyp, &defmod);
	if (*deftyp != attr->atttypid)
		return NULL;
	return field;
}

bool
pf_chunk_bound(const PqFileMeta *meta, int rg, const PqSchemaNode *field,
			   Oid typid, bool want_max, Datum *bound)
{
	const PqColumnChunkMeta *chunk;
	const PqStatistics *stats;
	Oid			deftyp;
	int32		defmod;

	if (field == NULL || !field->is_leaf || field->repetition == PQ_REPEATED ||
		field->leaf_index < 0 || rg < 0 || rg >= meta->num_row_groups ||
		field->leaf_index >= meta->row_groups[rg].num_columns)
		return false;
	pf_default_type(field, &deftyp, &defmod);
	if (deftyp != typid)
		return false;
	chunk = &meta->row_groups[rg].columns[field->leaf_index];
	stats = &chunk->statistics;
	if (!chunk->has_statistics)
		return false;
	if (want_max)
		return stats->has_max &&
			stat_datum(field, deftyp, stats->max, stats->max_len,
					   stats->max_is_legacy, true, bound);
	return stats->has_min &&
		stat_datum(field, deftyp, stats->min, stats->min_len,
				   stats->min_is_legacy, false, bound);
}

/* What a row group's leaf quals are judged with (pf_qual_excludes). */
typedef struct RowGroupJudge
{
	const PqFileMeta *meta;
	int			rg;
	List	   *attnos;
	const PqSchemaNode **fields;
	Relation	rel;
	PruneProbe *probe;			/* NULL: statistics only */
} RowGroupJudge;

/*
 * Does leaf qual q show that no row of the judged row group can match?
 * fields[i] is the field of attribute attnos[i] (NULL when the file lacks
 * it).  Statistics always; bloom filters and dictionaries as probe allows.
 */
static bool
leaf_excludes_rowgroup(PfPruneQual *q, void *arg)
{
	RowGroupJudge *j = (RowGroupJudge *) arg;
	const PqRowGroupMeta *rgm = &j->meta->row_groups[j->rg];
	PruneProbe *probe = j->probe;
	const PqSchemaNode *field;
	const PqColumnChunkMeta *chunk;
	const PqStatistics *stats;
	PfQualBounds b;

	if (!q->value_known)
		return false;
	if (q->value_null || q->norm == PF_NORM_NEVER)
		return true;		/* the qual is true for no value */
	field = qual_leaf(j->meta, j->rg, q, j->attnos, j->fields, j->rel, &b.type);
	if (field == NULL)
		return false;
	chunk = &rgm->columns[field->leaf_index];
	stats = &chunk->statistics;

	b.min = b.max = (Datum) 0;
	b.has_min_max = chunk->has_statistics && stats->has_min && stats->has_max &&
		stat_datum(field, b.type, stats->min, stats->min_len,
				   stats->min_is_legacy, false, &b.min) &&
		stat_datum(field, b.type, stats->max, stats->max_len,
				   stats->max_is_legacy, true, &b.max);
	b.has_null_count = chunk->has_statistics && stats->has_null_count;
	b.null_count = stats->null_count;
	b.num_rows = rgm->num_rows;
	if (pf_qual_bounds_exclude(q, &b))
		return true;
	if (q->is_null_test)
		return false;

	/*
	 * Equality the statistics cannot decide: bloom filter, dictionary.  They
	 * compare bytes, which is equality under any deterministic collation;
	 * the value in the column's own type (norm) has the bytes a file holds.
	 */
	if (probe == NULL || probe->level < PF_PRUNE_BLOOM || probe->pf == NULL ||
		q->strategy != BTEqualStrategyNumber || q->value_is_nan ||
		q->norm != PF_NORM_CMP || q->prune_only ||
		(q->order_not_bytes && !get_collation_isdeterministic(q->collation)))
		return false;
	if (q->in_list)
	{
		for (int i = 0; i < q->norm_num_elems; i++)
			if (value_may_be_present(probe, field, b.type, q->norm_type,
									 q->norm_elems[i]))
				return false;
		return true;
	}
	return !value_may_be_present(probe, field, b.type, q->norm_type,
								 q->norm_value);
}

/* Does prune qual q (a leaf or an AND/OR tree) exclude row group rg? */
static bool
qual_excludes(const PqFileMeta *meta, int rg, PfPruneQual *q,
			  List *attnos, const PqSchemaNode **fields, Relation rel,
			  PruneProbe *probe)
{
	RowGroupJudge j = {meta, rg, attnos, fields, rel, probe};

	return pf_qual_excludes(q, leaf_excludes_rowgroup, &j);
}

/*
 * Can row group rg be skipped: does some qual exclude every row?
 * Statistics only.
 */
bool
pf_rowgroup_excluded(const PqFileMeta *meta, int rg, List *quals,
				  List *attnos, const PqSchemaNode **fields,
				  Relation rel)
{
	ListCell   *lc;

	foreach(lc, quals)
		if (qual_excludes(meta, rg, (PfPruneQual *) lfirst(lc),
						  attnos, fields, rel, NULL))
			return true;
	return false;
}

/*
 * Which method, if any, shows that row group rg holds no row the quals
 * accept: the cheapest one that does.  Statistics first; bloom filters and
 * dictionaries are read only for equality quals statistics leave open.
 */
PfPruneKind
pf_rowgroup_prune(struct PfFile *pf, int rg, List *quals, List *attnos,
				  const PqSchemaNode **fields, Relation rel)
{
	PruneProbe	probe;
	PfPruneKind result = PF_PRUNE_NONE;

	if (quals == NIL)
		return PF_PRUNE_NONE;
	memset(&probe, 0, sizeof(probe));
	probe.pf = pf;
	probe.rowgroup = rg;
	for (int level = PF_PRUNE_STATISTICS;
		 level <= PF_PRUNE_DICTIONARY && result == PF_PRUNE_NONE; level++)
	{
		ListCell   *lc;

		probe.level = (PfPruneKind) level;
		foreach(lc, quals)
			if (qual_excludes(pf->meta, rg, (PfPruneQual *) lfirst(lc),
							  attnos, fields, rel, &probe))
			{
				result = (PfPruneKind) level;
				break;
			}
	}
	if (probe.cxt != NULL)
		MemoryContextDelete(probe.cxt);
	return result;
}

/* ----------------------------------------------------------------
 * Page-index pruning: the rows of a row group that may match
 *
 * With a chunk's ColumnIndex (per data page: min, max, null page, null
 * count) and OffsetIndex (each page's first row), a qual on a flat column
 * gives the row ranges of the pages it does not exclude; AND intersects
 * the ranges of its arms, OR unites them, a qual that cannot be judged
 * keeps every row.  The scan then skips the other rows in every column.
 * ----------------------------------------------------------------
 */

/* A sorted list of disjoint, non-adjacent ranges. */
typedef struct RowRanges
{
	int			n;
	PfRowRange *r;
} RowRanges;

static RowRanges
ranges_all(int64 num_rows)
{
	RowRanges	all;

	all.n = num_rows > 0 ? 1 : 0;
	all.r = palloc(sizeof(PfRowRange));
	all.r[0].start = 0;
	all.r[0].end = num_rows;
	return all;
}

/* Append [start, end) to sorted ranges, merging with the last one. */
static void
ranges_append(RowRanges *out, int64 start, int64 end)
{
	if (start >= end)
		return;
	if (out->n > 0 && out->r[out->n - 1].end >= start)
	{
		out->r[out->n - 1].end = Max(out->r[out->n - 1].end, end);
		return;
	}
	out->r[out->n].start = start;
	out->r[out->n].end = end;
	out->n++;
}

static RowRanges
ranges_intersect(RowRanges a, RowRanges b)
{
	RowRanges	out;
	int			i = 0;
	int			j = 0;

	out.n = 0;
	out.r = palloc(sizeof(PfRowRange) * Max(1, a.n + b.n));
	while (i < a.n && j < b.n)
	{
		ranges_append(&out, Max(a.r[i].start, b.r[j].start),
					  Min(a.r[i].end, b.r[j].end));
		if (a.r[i].end < b.r[j].end)
			i++;
		else
			j++;
	}
	return out;
}

static RowRanges
ranges_union(RowRanges a, RowRanges b)
{
	RowRanges	out;
	int			i = 0;
	int			j = 0;

	out.n = 0;
	out.r = palloc(sizeof(PfRowRange) * Max(1, a.n + b.n));
	while (i < a.n || j < b.n)
	{
		if (j >= b.n || (i < a.n && a.r[i].start <= b.r[j].start))
		{
			ranges_append(&out, a.r[i].start, a.r[i].end);
			i++;
		}
		else
		{
			ranges_append(&out, b.r[j].start, b.r[j].end);
			j++;
		}
	}
	return out;
}

/* Can data page p, as its ColumnIndex entry describes it, hold a match? */
static bool
page_may_match(PfPruneQual *q, const PqSchemaNode *field, Oid deftyp,
			   const PqColumnIndex *ci, uint32 p)
{
	Datum		min;
	Datum		max;

	if (q->is_null_test)
	{
		if (q->null_test == IS_NOT_NULL)
			return !ci->null_pages[p];
		return !(ci->has_null_counts && ci->null_counts[p] == 0);
	}
	if (ci->null_pages[p])
		return false;			/* only nulls: no comparison holds */
	if (!stat_datum(field, deftyp, ci->min_values[p].data, ci->min_values[p].len,
					false, false, &min) ||
		!stat_datum(field, deftyp, ci->max_values[p].data, ci->max_values[p].len,
					false, true, &max))
		return true;
	return !pf_range_excludes(q, deftyp, min, max);
}

/*
 * The row ranges of row group rg where qual q may hold; *pages_total
 * counts the pages judged with a page index.
 */
static RowRanges
qual_ranges(PfFile *pf, int rg, PfPruneQual *q, List *attnos,
			const PqSchemaNode **fields, Relation rel, MemoryContext cxt,
			int64 *pages_total)
{
	const PqFileMeta *meta = pf->meta;
	int64		num_rows = meta->row_groups[rg].num_rows;
	const PqSchemaNode *field;
	const PqColumnChunkMeta *chunk;
	PqColumnIndex *ci = NULL;
	PqOffsetIndex *oi = NULL;
	PfcAllocator alloc;
	PqError		err;
	RowRanges	out;
	Oid			deftyp;

	if (q->is_bool)
	{
		ListCell   *lc;
		RowRanges	acc;

		acc.n = 0;
		acc.r = NULL;
		if (q->bool_op == AND_EXPR)
			acc = ranges_all(num_rows);
		foreach(lc, q->args)
		{
			RowRanges	arm = qual_ranges(pf, rg, (PfPruneQual *) lfirst(lc),
										  attnos, fields, rel, cxt,
										  pages_total);

			acc = q->bool_op == AND_EXPR ? ranges_intersect(acc, arm) :
				ranges_union(acc, arm);
		}
		return acc;
	}
	if (!q->value_known)
		return ranges_all(num_rows);
	if (q->value_null || q->norm == PF_NORM_NEVER)
	{
		out.n = 0;
		out.r = palloc(sizeof(PfRowRange));
		return out;
	}
	if (q->order_not_bytes)
		return ranges_all(num_rows);
	field = qual_leaf(meta, rg, q, attnos, fields, rel, &deftyp);
	if (field == NULL)
		return ranges_all(num_rows);
	chunk = &meta->row_groups[rg].columns[field->leaf_index];
	if (!chunk->has_column_index || !chunk->has_offset_index ||
		chunk->is_encrypted || chunk->file_path != NULL)
		return ranges_all(num_rows);

	/* an index that cannot be read only means no page-level pruning */
	alloc = pf_context_allocator(cxt);
	pq_error_clear(&err);
	if (pq_read_column_index(pf->file, rg, field->leaf_index, &alloc, &ci,
							 &err) != PQ_OK ||
		pq_read_offset_index(pf->file, rg, field->leaf_index, &alloc, &oi,
							 &err) != PQ_OK ||
		ci->num_pages != oi->num_pages || ci->num_pages == 0)
		return ranges_all(num_rows);

	out.n = 0;
	out.r = palloc(sizeof(PfRowRange) * ci->num_pages);
	for (uint32 p = 0; p < ci->num_pages; p++)
	{
		int64		start = oi->pages[p].first_row_index;
		int64		end = p + 1 < oi->num_pages ?
			oi->pages[p + 1].first_row_index : num_rows;

		if (page_may_match(q, field, deftyp, ci, p))
			ranges_append(&out, start, Min(end, num_rows));
	}
	*pages_total += ci->num_pages;
	return out;
}

PfRowRange *
pf_rowgroup_row_ranges(PfFile *pf, int rg, List *quals, List *attnos,
					   const PqSchemaNode **fields, Relation rel,
					   MemoryContext cxt, int *nranges)
{
	int64		num_rows = pf->meta->row_groups[rg].num_rows;
	int64		pages = 0;
	RowRanges	acc;
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ListCell   *lc;

	*nranges = -1;
	acc = ranges_all(num_rows);
	foreach(lc, quals)
	{
		CHECK_FOR_INTERRUPTS();
		acc = ranges_intersect(acc, qual_ranges(pf, rg, (PfPruneQual *) lfirst(lc),
												attnos, fields, rel, cxt, &pages));
	}
	MemoryContextSwitchTo(old);
	if (pages == 0)
		return NULL;			/* nothing judged: read every row */
	*nranges = acc.n;
	return acc.r;
}

/* ----------------------------------------------------------------
 * File pruning with virtual columns
 *
 * A qual on a column that is constant in a file (its path, a hive-style
 * partition value) decides the whole file at once.
 * ----------------------------------------------------------------
 */

/* Does qual q exclude every row of the file, judged by its constants? */
typedef struct FileJudge
{
	const PqFileMeta *meta;
	const char *path;
	bool		folder;
	Relation	rel;
} FileJudge;

static bool
leaf_excludes_file(PfPruneQual *q, void *arg)
{
	FileJudge  *j = (FileJudge *) arg;
	const PqFileMeta *meta = j->meta;
	const char *path = j->path;
	bool		folder = j->folder;
	Relation	rel = j->rel;
	Form_pg_attribute attr;
	char	   *text;
	Datum		value;

	if (!q->value_known)
		return false;
	attr = TupleDescAttr(RelationGetDescr(rel), q->attnum - 1);
	if (!q->virt_resolved)
	{
		/* once per qual: planning may judge thousands of files with it */
		Oid			relid = RelationGetRelid(rel);

		q->virt_is_filename = pf_is_filename_column(relid, q->attnum);
		q->virt_field = pf_get_column_name(relid, q->attnum);
		getTypeInputInfo(attr->atttypid, &q->virt_typinput, &q->virt_typioparam);
		q->virt_resolved = true;
	}
	/* a folder's path is no file's: only its partition values count */
	if (folder && q->virt_is_filename)
		return false;
	if (!pf_virtual_value(meta, path, q->virt_is_filename, q->virt_field, &text))
		return false;
	if (q->is_null_test)
		return (text == NULL) == (q->null_test == IS_NOT_NULL);
	if (q->value_null || text == NULL)
		return true;			/* a comparison with NULL is never true */
	value = OidInputFunctionCall(q->virt_typinput, text, q->virt_typioparam,
								 attr->atttypmod);
	if (attr->atttypid == FLOAT4OID || attr->atttypid == FLOAT8OID)
		return false;			/* NaN orders apart; not worth the care */
	return pf_range_excludes(q, attr->atttypid, value, value);
}

static bool
file_qual_excludes(PfPruneQual *q, const PqFileMeta *meta, const char *path,
				   bool folder, Relation rel)
{
	FileJudge	j = {meta, path, folder, rel};

	return pf_qual_excludes(q, leaf_excludes_file, &j);
}

bool
pf_file_excluded(const PqFileMeta *meta, const char *path, List *quals,
				 Relation rel)
{
	ListCell   *lc;

	foreach(lc, quals)
		if (file_qual_excludes((PfPruneQual *) lfirst(lc), meta, path, false, rel))
			return true;
	return false;
}

bool
pf_folder_excluded(const char *folder, List *quals, Relation rel)
{
	ListCell   *lc;

	foreach(lc, quals)
		if (file_qual_excludes((PfPruneQual *) lfirst(lc), NULL, folder, true, rel))
			return true;
	return false;
}
