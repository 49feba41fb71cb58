/*-------------------------------------------------------------------------
 *
 * amudai_scan.c
 *	  Planning and execution of scans over foreign tables whose files are
 *	  Amudai shards (fdw.c routes such tables here).
 *
 * Planning opens each shard's metadata once: stripes whose field
 * descriptors (min/max, null counts, constant values) show that a simple
 * qual can match no row are left out, and so are those whose Bloom filters
 * (format notes 5.4) hold none of the values of an = or IN qual on a
 * string, binary or Guid column; the record counts of the others give
 * the estimate, the buffer bytes of the needed fields the I/O cost.  The
 * plan carries (fdw_private) a marker, the files, the attributes to fill
 * and, per file, the stripes to read.
 *
 * In each stripe read, the RANGE_INDEX buffers (3.9, 5.5: min, max and
 * null/NaN count of every 256 rows) of the columns the plan's quals
 * compare leave the row ranges some row of which may match; only those are
 * decoded (the field readers find their blocks through the block maps).
 * PostgreSQL still checks the quals on every row returned.
 *
 * Execution goes shard by shard, stripe by stripe: for each stripe a field
 * reader is opened per needed column, a batch of positions is decoded from
 * each and converted into Datum arrays at once (amudai_convert.c), and
 * tuples only gather Datums row by row.
 *
 * Memory, by lifetime:
 *	scan_cxt		the scan state, Datum arrays; deleted at the end
 *	file_cxt		the open shard's metadata and converters; reset per file
 *	stripe_cxt		field readers and their blocks; reset per stripe
 *	batch_cxt		by-reference Datums of one batch; reset per batch
 * (siblings under scan_cxt), so memory stays flat however large the shard.
 *
 * IDENTIFICATION
 *	  src/fdw/amudai_scan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/uuid.h"

#include "fdw/amudai_fdw.h"
#include "fdw/parquet_fdw.h"

#define AM_BATCH_ROWS		4096
#define AM_MIN_BATCH_ROWS	128
#define AM_MAX_BATCH_DATUMS	(256 * 1024)

/* First element of the plan's fdw_private: tells shard plans apart. */
#define AM_PLAN_MARKER		"amudai shard scan"

enum AmScanPrivateIndex
{
	AmScanPrivateMarker,		/* String AM_PLAN_MARKER */
	AmScanPrivateFiles,			/* List of String */
	AmScanPrivateAttnos,		/* List of Integer */
	AmScanPrivateStripes,		/* List per file of List of Integer */
	AmScanPrivateTotalStripes,	/* Integer: stripes before pruning */
	AmScanPrivateParamQuals,	/* List per qual of Integers: attnum,
								 * strategy, cmpproc, collation, valtype;
								 * the values are fdw_exprs, in order */
	AmScanPrivateBloomPruned	/* Integer: stripes Bloom filters pruned */
};

/* Rows per block of RANGE_INDEX buffers this scan uses (format notes 3.9). */
#define AM_RANGE_BLOCK_ROWS	256

/* Planner state, in baserel->fdw_private. */
typedef struct AmPlanState
{
	PfScanKind	kind;			/* PF_SCAN_AMUDAI; first, see parquet_fdw.h */
	List	   *filenames;
	List	   *attnos;
	List	   *stripes;		/* per file, List of int */
	int			total_stripes;
	double		total_rows;
	double		bytes;
	List	   *param_quals;	/* PfPruneQual valued only at run time */
	int			bloom_pruned;	/* stripes left out by Bloom filters */
} AmPlanState;

typedef struct AmScanColumn
{
	AttrNumber	attnum;
	char	   *attname;
	char	   *field_name;
	Oid			typid;
	int32		typmod;
	PfAmConverter *conv;		/* for the current shard; NULL: all null */
	Datum	   *values;
	bool	   *nulls;
} AmScanColumn;

typedef struct AmScanState
{
	PfScanKind	kind;			/* PF_SCAN_AMUDAI; first, see parquet_fdw.h */
	MemoryContext scan_cxt;
	MemoryContext file_cxt;
	MemoryContext stripe_cxt;
	MemoryContext batch_cxt;

	Relation	rel;
	bool		missing_columns_error;
	bool		guid_dotnet;	/* table option guid_byte_order 'dotnet' */
	List	   *filenames;
	List	   *stripes;
	int			total_stripes;
	int			ncolumns;
	AmScanColumn *columns;
	uint32		batch_rows;
	List	   *attnos;			/* attnum of each column, in order */
	int64	   *field_ids;		/* each column's schema id in the shard, or -1 */

	/* run-time pruning with parameter values (as in scan.c) */
	List	   *param_quals;	/* PfPruneQual */
	List	   *param_states;	/* ExprState of each one's value */
	MemoryContext param_cxt;
	ExprContext *param_econtext;
	bool		params_pending;
	int64		stripes_skipped;

	/*
	 * Row ranges of the current stripe from RANGE_INDEX buffers: the plan's
	 * constant quals and the parameter ones (index_quals); ranges[2 i],
	 * ranges[2 i + 1] = [start, end) of range i.
	 */
	List	   *index_quals;
	uint64	   *ranges;
	int			nranges;
	int			next_range;
	uint64		range_end;		/* end of the range being read */
	int64		rows_skipped_by_index;
	int			bloom_pruned;	/* at plan time */
	int64		bloom_skipped;	/* at run time */

	int			file_index;
	PfShard    *shard;
	ListCell   *next_stripe;
	int			stripe;			/* current, -1 when none */
	uint64		stripe_rows;
	uint64		stripe_pos;		/* next position to decode */

	uint32		batch_size;
	uint32		next_row;
	const char *err_column;

	int64		stripes_read;
	Size		peak_memory;
} AmScanState;

/* ----------------------------------------------------------------
 * Format detection
 * ----------------------------------------------------------------
 */

/* The table's format option: 'auto' (NULL) unless set. */
static const char *
table_format(Oid foreigntableid)
{
	ForeignTable *table = GetForeignTable(foreigntableid);
	ListCell   *lc;

	foreach(lc, table->options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, "format") == 0)
			return defGetString(def);
	}
	return NULL;
}

bool
pf_table_is_amudai(Oid foreigntableid)
{
	const char *format = table_format(foreigntableid);
	PfTableOptions *opts;
	char	   *first;
	List	   *files;
	int			shards = 0;
	ListCell   *lc;

	if (format != NULL && pg_strcasecmp(format, "amudai") == 0)
		return true;
	if (format != NULL && pg_strcasecmp(format, "parquet") == 0)
		return false;

	opts = pf_get_table_options(foreigntableid);

	/*
	 * The first file decides; only shard tables look at every file (a
	 * shard among Parquet files is then reported by the Parquet reader),
	 * so planning a Parquet table lists and opens one file more, not all.
	 */
	first = pf_expand_first_filename(opts->filenames);
	if (first == NULL || !pf_file_is_amudai(first))
		return false;
	files = pf_expand_filenames(opts->filenames);
	foreach(lc, files)
		shards += pf_file_is_amudai((const char *) lfirst(lc));
	if (shards > 0 && shards < list_length(files))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("foreign table \"%s\" mixes Amudai shards and Parquet files",
						get_rel_name(foreigntableid)),
				 errdetail("%d of its %d files are Amudai shards.", shards,
						   list_length(files)),
				 errhint("Create one foreign table per format.")));
	return shards > 0;
}

bool
pf_plan_is_amudai(ForeignScanState *node)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	Node	   *first;

	if (plan->fdw_private == NIL)
		return false;
	first = (Node *) linitial(plan->fdw_private);
	return first != NULL && IsA(first, String) &&
		strcmp(strVal(first), AM_PLAN_MARKER) == 0;
}

char *
pf_amudai_create_table_sql(const char *table_name, const char *server_name,
						   const char *path, const char *filename_entry)
{
	MemoryContext tmp_cxt = AllocSetContextCreate(CurrentMemoryContext,
												  "parquet_fdw amudai import",
												  ALLOCSET_SMALL_SIZES);
	PfShard    *ps = pf_open_shard(path, tmp_cxt);
	const AmSchema *schema = am_shard_schema(ps->shard);
	StringInfoData buf;
	int			ncols = 0;

	initStringInfo(&buf);
	appendStringInfo(&buf, "CREATE FOREIGN TABLE %s (", quote_identifier(table_name));
	for (uint32 i = 0; i < schema->num_fields; i++)
	{
		const AmSchemaNode *n = &schema->nodes[schema->fields[i]];
		char	   *name = pnstrdup((const char *) n->name.data, n->name.len);
		Oid			typid;
		int32		typmod;

		if (!pf_amudai_default_type(schema, schema->fields[i], &typid, &typmod))
		{
			ereport(NOTICE,
					(errmsg("field \"%s\" of Amudai shard \"%s\" has no PostgreSQL type yet and is left out",
							name, path)));
			continue;
		}
		appendStringInfo(&buf, "%s\n  %s %s", ncols++ > 0 ? "," : "",
						 quote_identifier(name), format_type_with_typemod(typid, typmod));
	}
	appendStringInfo(&buf, "%s) SERVER %s OPTIONS (filename %s)",
					 ncols > 0 ? "\n" : "", quote_identifier(server_name),
					 quote_literal_cstr(filename_entry));
	pf_close_shard(ps);
	MemoryContextDelete(tmp_cxt);
	return buf.data;
}

bool
pf_rel_is_amudai(RelOptInfo *rel)
{
	return rel->reloptkind == RELOPT_BASEREL && rel->fdw_private != NULL &&
		*(const PfScanKind *) rel->fdw_private == PF_SCAN_AMUDAI;
}

/* ----------------------------------------------------------------
 * Planning
 * ----------------------------------------------------------------
 */

/* Schema id of the top-level field a column reads, or -1. */
int64
pf_amudai_find_field(AmShard *shard, const char *path, const char *attname,
					 const char *field_name, bool missing_error)
{
	const AmSchema *schema = am_shard_schema(shard);
	int64		id = am_shard_find_field(shard, field_name, strlen(field_name));
	int			matches = 0;

	if (id < 0)
	{
		for (uint32 i = 0; i < schema->num_fields; i++)
		{
			const AmSchemaNode *n = &schema->nodes[schema->fields[i]];

			if (n->name.len == strlen(field_name) &&
				pg_strncasecmp((const char *) n->name.data, field_name,
							   n->name.len) == 0)
			{
				id = schema->fields[i];
				matches++;
			}
		}
		if (matches > 1)
			ereport(ERROR,
					(errcode(ERRCODE_AMBIGUOUS_COLUMN),
					 errmsg("column \"%s\" matches %d fields of Amudai shard \"%s\" case-insensitively",
							attname, matches, path),
					 errhint("Set the column option \"column_name\" to the exact field name.")));
	}
	if (id < 0 && missing_error)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of foreign table is not in Amudai shard \"%s\"",
						field_name, path),
				 errhint("Set the table option missing_columns to 'null' to read missing columns as NULL.")));
	return id;
}

/* The attributes a scan must fill (targets and quals; all for whole rows). */
static List *
needed_attnos(RelOptInfo *baserel, Relation rel)
{
	Bitmapset  *attrs = NULL;
	List	   *result = NIL;
	TupleDesc	tupdesc = RelationGetDescr(rel);
	ListCell   *lc;
	bool		whole_row;

	pull_varattnos((Node *) baserel->reltarget->exprs, baserel->relid, &attrs);
	foreach(lc, baserel->baserestrictinfo)
		pull_varattnos((Node *) ((RestrictInfo *) lfirst(lc))->clause,
					   baserel->relid, &attrs);
	whole_row = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs);
	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(tupdesc, i);

		if (attr->attisdropped)
			continue;
		if (whole_row ||
			bms_is_member(attr->attnum - FirstLowInvalidHeapAttributeNumber, attrs))
			result = lappend_int(result, attr->attnum);
	}
	return result;
}

/*
 * Can min/max bounds of a column of type deftyp decide qual q?  NaN sorts
 * above everything in PostgreSQL and is in no bound (nor in a range
 * index's min/max), and numeric NaN values compare only with numerics.
 */
static bool
bounds_usable(PfPruneQual *q, Oid deftyp)
{
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

	if (fd->constant_value.kind != AM_VALUE_ABSENT)
	{
		if (!pf_amudai_stat_datum(schema, (uint32) field_ids[pos], deftyp,
								  &fd->constant_value, &min))
			return false;
		max = min;
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

	if (!bounds_usable(q, deftyp))
		return false;
	return pf_range_excludes(q, deftyp, min, max);
}

/* Bytes of the buffers of a field in a stripe (for the cost). */
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
		bytes += (double) (sfd.buffers[b].buffer.end - sfd.buffers[b].buffer.start);
	return bytes;
}

void
amudaiGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel,
						Oid foreigntableid)
{
	AmPlanState *st = palloc0(sizeof(AmPlanState));
	PfTableOptions *opts = pf_get_table_options(foreigntableid);
	MemoryContext tmp_cxt;
	MemoryContext old;
	Relation	rel;
	List	   *quals;
	double		all_rows = 0;
	int			natts;
	char	  **attnames;
	char	  **field_names;
	ListCell   *lc;

	st->kind = PF_SCAN_AMUDAI;
	st->filenames = pf_expand_filenames(opts->filenames);
	rel = table_open(foreigntableid, AccessShareLock);
	st->attnos = needed_attnos(baserel, rel);
	/*
	 * quals valued only at run time prune when the first stripe is chosen;
	 * text under any collation (constants compare in the qual's collation,
	 * Bloom filters need only deterministic equality; min/max are used only
	 * for byte order, see stripe_qual_excludes)
	 */
	quals = pf_file_prune_quals(baserel);
	foreach(lc, quals)
		if (!((PfPruneQual *) lfirst(lc))->value_known)
			st->param_quals = lappend(st->param_quals, lfirst(lc));

	natts = RelationGetDescr(rel)->natts;
	attnames = palloc0(sizeof(char *) * Max(1, natts));
	field_names = palloc0(sizeof(char *) * Max(1, natts));
	for (int i = 0; i < natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(RelationGetDescr(rel), i);

		if (attr->attisdropped)
			continue;
		attnames[i] = pstrdup(NameStr(attr->attname));
		field_names[i] = pf_get_column_name(foreigntableid, attr->attnum);
	}

	tmp_cxt = AllocSetContextCreate(CurrentMemoryContext,
									"parquet_fdw amudai planning",
									ALLOCSET_DEFAULT_SIZES);
	foreach(lc, st->filenames)
	{
		const char *path = (const char *) lfirst(lc);
		PfShard    *ps;
		int64	   *ids;
		List	   *chosen = NIL;
		uint32		nstripes;
		ListCell   *lc2;

		CHECK_FOR_INTERRUPTS();
		old = MemoryContextSwitchTo(tmp_cxt);
		ps = pf_open_shard(path, tmp_cxt);
		ids = palloc(sizeof(int64) * Max(1, list_length(st->attnos)));
		foreach(lc2, st->attnos)
		{
			AttrNumber	attnum = lfirst_int(lc2);

			ids[foreach_current_index(lc2)] =
				pf_amudai_find_field(ps->shard, path, attnames[attnum - 1],
						   field_names[attnum - 1], opts->missing_columns_error);
		}
		if (opts->missing_columns_error)
			for (int i = 0; i < natts; i++)
				if (field_names[i] != NULL)
					(void) pf_amudai_find_field(ps->shard, path, attnames[i],
									  field_names[i], true);

		nstripes = am_shard_stripe_count(ps->shard);
		for (uint32 s = 0; s < nstripes; s++)
		{
			uint64		rows = am_shard_stripe(ps->shard, s)->total_record_count;
			bool		skip = false;

			st->total_stripes++;
			all_rows += (double) rows;
			foreach(lc2, quals)
				if (stripe_qual_excludes(ps, s, (PfPruneQual *) lfirst(lc2),
										 st->attnos, ids, rel))
				{
					skip = true;
					break;
				}
			if (!skip)
				foreach(lc2, quals)
					if (stripe_bloom_excludes(ps, s, (PfPruneQual *) lfirst(lc2),
											  st->attnos, ids, rel, opts->guid_dotnet))
					{
						skip = true;
						st->bloom_pruned++;
						break;
					}
			if (skip)
				continue;
			st->total_rows += (double) rows;
			for (int f = 0; f < list_length(st->attnos); f++)
				if (ids[f] >= 0)
					st->bytes += stripe_field_bytes(ps, s, (uint32) ids[f]);
			MemoryContextSwitchTo(old);
			chosen = lappend_int(chosen, (int) s);
			MemoryContextSwitchTo(tmp_cxt);
		}
		pf_close_shard(ps);
		MemoryContextSwitchTo(old);
		MemoryContextReset(tmp_cxt);
		st->stripes = lappend(st->stripes, chosen);
	}
	MemoryContextDelete(tmp_cxt);
	table_close(rel, AccessShareLock);

	baserel->tuples = all_rows;
	baserel->rows = clamp_row_est(Min(st->total_rows,
									  all_rows *
									  clauselist_selectivity(root,
															 baserel->baserestrictinfo,
															 0, JOIN_INNER, NULL)));
	baserel->fdw_private = st;
}

void
amudaiGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel,
					  Oid foreigntableid)
{
	AmPlanState *st = (AmPlanState *) baserel->fdw_private;
	Cost		startup_cost = baserel->baserestrictcost.startup;
	Cost		run_cost;

	/* as for Parquet: sequential reads, a decode per value, a tuple per row */
	run_cost = seq_page_cost * ceil(st->bytes / BLCKSZ) +
		cpu_operator_cost * list_length(st->attnos) * st->total_rows +
		(cpu_tuple_cost + baserel->baserestrictcost.per_tuple) * st->total_rows;
	add_path(baserel, (Path *)
			 pf_create_foreignscan_path(root, baserel, NULL, baserel->rows,
									 startup_cost, startup_cost + run_cost,
									 NIL, NULL, NULL, NIL));
}

ForeignScan *
amudaiGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel,
					 Oid foreigntableid, ForeignPath *best_path,
					 List *tlist, List *scan_clauses, Plan *outer_plan)
{
	AmPlanState *st = (AmPlanState *) baserel->fdw_private;
	List	   *files = NIL;
	List	   *fdw_private;
	List	   *prune = NIL;
	List	   *prune_exprs = NIL;
	ListCell   *lc;

	scan_clauses = extract_actual_clauses(scan_clauses, false);
	foreach(lc, st->filenames)
		files = lappend(files, makeString(pstrdup((char *) lfirst(lc))));
	foreach(lc, st->param_quals)
	{
		PfPruneQual *q = (PfPruneQual *) lfirst(lc);

		prune = lappend(prune, list_make5_int(q->attnum, q->strategy,
											  (int) q->cmpproc,
											  (int) q->collation,
											  (int) q->valtype));
		prune_exprs = lappend(prune_exprs, q->expr);
	}
	fdw_private = list_make5(makeString(pstrdup(AM_PLAN_MARKER)), files,
							 st->attnos, st->stripes,
							 makeInteger(st->total_stripes));
	fdw_private = lappend(fdw_private, prune);
	fdw_private = lappend(fdw_private, makeInteger(st->bloom_pruned));
	/* the parameter expressions go in fdw_exprs, so setrefs sees them */
	return make_foreignscan(tlist, scan_clauses, baserel->relid, prune_exprs,
							fdw_private, NIL, NIL, outer_plan);
}

/* ----------------------------------------------------------------
 * Execution
 * ----------------------------------------------------------------
 */

static void
scan_error_callback(void *arg)
{
	AmScanState *st = (AmScanState *) arg;
	const char *path;

	if (st->file_index < 0 || st->file_index >= list_length(st->filenames))
		return;
	path = (const char *) list_nth(st->filenames, st->file_index);
	if (st->stripe >= 0 && st->err_column)
		errcontext("Amudai shard \"%s\", stripe %d, column \"%s\"",
				   path, st->stripe, st->err_column);
	else if (st->stripe >= 0)
		errcontext("Amudai shard \"%s\", stripe %d", path, st->stripe);
	else if (st->err_column)
		errcontext("Amudai shard \"%s\", column \"%s\"", path, st->err_column);
	else
		errcontext("Amudai shard \"%s\"", path);
}

void
amudaiBeginForeignScan(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	EState	   *estate = node->ss.ps.state;
	AmScanState *st;
	MemoryContext old;
	List	   *attnos;
	TupleDesc	tupdesc;
	ListCell   *lc;
	int			i;

	st = MemoryContextAllocZero(estate->es_query_cxt, sizeof(AmScanState));
	st->kind = PF_SCAN_AMUDAI;
	node->fdw_state = st;
	st->scan_cxt = AllocSetContextCreate(estate->es_query_cxt,
										 "parquet_fdw amudai scan",
										 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(st->scan_cxt);
	st->rel = node->ss.ss_currentRelation;
	foreach(lc, (List *) list_nth(plan->fdw_private, AmScanPrivateFiles))
		st->filenames = lappend(st->filenames, strVal(lfirst(lc)));
	attnos = (List *) list_nth(plan->fdw_private, AmScanPrivateAttnos);
	st->stripes = (List *) list_nth(plan->fdw_private, AmScanPrivateStripes);
	st->total_stripes = intVal(list_nth(plan->fdw_private,
										AmScanPrivateTotalStripes));
	if (list_length(plan->fdw_private) > AmScanPrivateBloomPruned)
		st->bloom_pruned = intVal(list_nth(plan->fdw_private,
										   AmScanPrivateBloomPruned));
	st->file_index = -1;
	st->stripe = -1;
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
	{
		MemoryContextSwitchTo(old);
		return;
	}

	{
		PfTableOptions *opts = pf_get_table_options(RelationGetRelid(st->rel));

		st->missing_columns_error = opts->missing_columns_error;
		st->guid_dotnet = opts->guid_dotnet;
	}
	st->file_cxt = AllocSetContextCreate(st->scan_cxt, "parquet_fdw amudai shard",
										 ALLOCSET_DEFAULT_SIZES);
	st->stripe_cxt = AllocSetContextCreate(st->scan_cxt, "parquet_fdw amudai stripe",
										   ALLOCSET_DEFAULT_SIZES);
	st->batch_cxt = AllocSetContextCreate(st->scan_cxt, "parquet_fdw amudai batch",
										  ALLOCSET_DEFAULT_SIZES);

	tupdesc = RelationGetDescr(st->rel);
	st->ncolumns = list_length(attnos);
	st->columns = palloc0(sizeof(AmScanColumn) * Max(1, st->ncolumns));
	st->attnos = attnos;
	st->field_ids = palloc(sizeof(int64) * Max(1, st->ncolumns));
	foreach(lc, (List *) list_nth(plan->fdw_private, AmScanPrivateParamQuals))
	{
		List	   *ints = (List *) lfirst(lc);
		PfPruneQual *q = palloc0(sizeof(PfPruneQual));

		q->attnum = (AttrNumber) linitial_int(ints);
		q->strategy = lsecond_int(ints);
		q->cmpproc = (Oid) lthird_int(ints);
		q->collation = (Oid) lfourth_int(ints);
		q->valtype = (Oid) list_nth_int(ints, 4);
		q->order_not_bytes = OidIsValid(q->collation) && !pf_collate_is_c(q->collation);
		fmgr_info_cxt(q->cmpproc, &q->cmp, st->scan_cxt);
		st->param_quals = lappend(st->param_quals, q);
	}
	if (st->param_quals != NIL)
	{
		st->param_states = ExecInitExprList(plan->fdw_exprs, (PlanState *) node);
		st->param_cxt = AllocSetContextCreate(st->scan_cxt, "parquet_fdw amudai parameters",
											  ALLOCSET_SMALL_SIZES);
	}
	/* range-index skipping: the plan's constant quals and the parameter ones */
	st->index_quals = list_concat(pf_prune_quals_from_clauses(plan->scan.plan.qual,
															  plan->scan.scanrelid),
								  st->param_quals);
	/* evaluated when the first stripe is chosen: InitPlans run on first use */
	st->param_econtext = node->ss.ps.ps_ExprContext;
	st->params_pending = true;
	st->batch_rows = AM_BATCH_ROWS;
	if (st->ncolumns > 0 &&
		(uint64) st->ncolumns * AM_BATCH_ROWS > AM_MAX_BATCH_DATUMS)
		st->batch_rows = Max(AM_MIN_BATCH_ROWS, AM_MAX_BATCH_DATUMS / st->ncolumns);
	i = 0;
	foreach(lc, attnos)
	{
		AmScanColumn *col = &st->columns[i++];
		Form_pg_attribute attr;

		col->attnum = lfirst_int(lc);
		attr = TupleDescAttr(tupdesc, col->attnum - 1);
		col->attname = pstrdup(NameStr(attr->attname));
		col->field_name = pf_get_column_name(RelationGetRelid(st->rel), col->attnum);
		col->typid = attr->atttypid;
		col->typmod = attr->atttypmod;
		col->values = palloc(sizeof(Datum) * st->batch_rows);
		col->nulls = palloc(sizeof(bool) * st->batch_rows);
	}
	MemoryContextSwitchTo(old);
}

static void
close_stripe(AmScanState *st)
{
	for (int i = 0; i < st->ncolumns; i++)
		if (st->columns[i].conv)
			pf_amudai_converter_end_stripe(st->columns[i].conv);
	st->stripe = -1;
	st->stripe_rows = 0;
	st->stripe_pos = 0;
	st->ranges = NULL;
	st->nranges = 0;
	st->next_range = 0;
	st->range_end = 0;
	MemoryContextReset(st->stripe_cxt);
}

static void
close_file(AmScanState *st)
{
	if (st->stripe >= 0)
		close_stripe(st);
	if (st->shard)
		pf_close_shard(st->shard);
	st->shard = NULL;
	for (int i = 0; i < st->ncolumns; i++)
		st->columns[i].conv = NULL;
	MemoryContextReset(st->file_cxt);
}

static void
open_file(AmScanState *st, int file_index)
{
	const char *path = (const char *) list_nth(st->filenames, file_index);
	const AmSchema *schema;

	st->file_index = file_index;
	st->shard = pf_open_shard(path, st->file_cxt);
	schema = am_shard_schema(st->shard->shard);
	for (int i = 0; i < st->ncolumns; i++)
	{
		AmScanColumn *col = &st->columns[i];
		int64		id;

		st->err_column = col->attname;
		id = pf_amudai_find_field(st->shard->shard, path, col->attname, col->field_name,
						st->missing_columns_error);
		st->field_ids[i] = id;
		col->conv = id < 0 ? NULL :
			pf_amudai_converter_create(schema, (uint32) id, col->typid,
									   col->typmod, col->attname, st->file_cxt);
		if (col->conv)
			pf_amudai_converter_set_guid_dotnet(col->conv, st->guid_dotnet);
	}
	st->err_column = NULL;
	st->next_stripe = list_head((List *) list_nth(st->stripes, file_index));
}

/* The run-time prune quals' values for this (re)scan (as scan.c does). */
static void
evaluate_prune_quals(AmScanState *st)
{
	ListCell   *lq;
	ListCell   *ls;

	st->params_pending = false;
	if (st->param_quals == NIL)
		return;
	MemoryContextReset(st->param_cxt);
	forboth(lq, st->param_quals, ls, st->param_states)
	{
		PfPruneQual *q = (PfPruneQual *) lfirst(lq);
		bool		isnull;
		Datum		value;
		int16		typlen;
		bool		typbyval;
		MemoryContext old;

		value = ExecEvalExprSwitchContext((ExprState *) lfirst(ls),
										  st->param_econtext, &isnull);
		get_typlenbyval(q->valtype, &typlen, &typbyval);
		old = MemoryContextSwitchTo(st->param_cxt);
		if (!isnull)
			value = datumCopy(value, typbyval, typlen);
		MemoryContextSwitchTo(old);
		pf_prune_qual_set_value(q, value, isnull);
	}
	ResetExprContext(st->param_econtext);
}

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
qual_block_mask(AmScanState *st, uint32 stripe, uint64 rows, PfPruneQual *q,
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
	if ((id = qual_field(shard, q, st->attnos, st->field_ids, st->rel, &deftyp)) < 0 ||
		!bounds_usable(q, deftyp))
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
 * when no qual can use one), in stripe_cxt; the rows left out are counted.
 */
static void
stripe_row_ranges(AmScanState *st, uint32 stripe)
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
	if (st->index_quals == NIL || rows == 0 ||
		(rows + AM_RANGE_BLOCK_ROWS - 1) / AM_RANGE_BLOCK_ROWS > (uint64) (MaxAllocSize / 16))
		return;
	nblocks = (int) ((rows + AM_RANGE_BLOCK_ROWS - 1) / AM_RANGE_BLOCK_ROWS);
	keep = palloc(nblocks);
	mask = palloc(nblocks);
	memset(keep, true, nblocks);
	foreach(lc, st->index_quals)
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
			st->rows_skipped_by_index += (int64) (end - start);
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
static bool
next_stripe(AmScanState *st)
{
	for (;;)
	{
		if (st->shard != NULL && st->next_stripe != NULL)
		{
			List	   *list = (List *) list_nth(st->stripes, st->file_index);
			int			s = lfirst_int(st->next_stripe);
			MemoryContext old;

			st->next_stripe = lnext(list, st->next_stripe);
			if (s < 0 || (uint32) s >= am_shard_stripe_count(st->shard->shard))
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("Amudai shard \"%s\" changed since the query was planned",
								st->shard->path),
						 errdetail("Stripe %d was planned, the shard now has %u.",
								   s, am_shard_stripe_count(st->shard->shard))));
			if (st->params_pending)
				evaluate_prune_quals(st);
			if (st->param_quals != NIL)
			{
				bool		skip = false;
				ListCell   *lq;

				foreach(lq, st->param_quals)
					if (stripe_qual_excludes(st->shard, (uint32) s,
											 (PfPruneQual *) lfirst(lq),
											 st->attnos, st->field_ids, st->rel))
					{
						skip = true;
						break;
					}
				if (skip)
				{
					st->stripes_skipped++;
					continue;
				}
				foreach(lq, st->param_quals)
					if (stripe_bloom_excludes(st->shard, (uint32) s,
											  (PfPruneQual *) lfirst(lq),
											  st->attnos, st->field_ids, st->rel,
											  st->guid_dotnet))
					{
						skip = true;
						break;
					}
				if (skip)
				{
					st->bloom_skipped++;
					continue;
				}
			}
			st->stripe = s;
			st->stripe_rows = am_shard_stripe(st->shard->shard, s)->total_record_count;
			old = MemoryContextSwitchTo(st->stripe_cxt);
			stripe_row_ranges(st, (uint32) s);
			if (st->nranges == 0)
			{
				/* the range indexes leave no row */
				MemoryContextSwitchTo(old);
				close_stripe(st);
				continue;
			}
			st->stripe_pos = st->ranges[0];
			st->range_end = st->ranges[1];
			st->next_range = 1;
			st->stripes_read++;
			for (int i = 0; i < st->ncolumns; i++)
			{
				if (st->columns[i].conv == NULL)
					continue;
				st->err_column = st->columns[i].attname;
				pf_amudai_converter_begin_stripe(st->columns[i].conv,
												 st->shard->shard,
												 st->shard->path, (uint32) s,
												 st->stripe_cxt);
				if (pf_amudai_converter_positions(st->columns[i].conv) < st->stripe_rows)
					ereport(ERROR,
							(errcode(ERRCODE_DATA_CORRUPTED),
							 errmsg("invalid Amudai shard \"%s\": field of column \"%s\" has fewer positions than its stripe has records",
									st->shard->path, st->columns[i].attname),
							 errdetail("Stripe %d has %llu records, the field %llu positions.",
									   s, (unsigned long long) st->stripe_rows,
									   (unsigned long long) pf_amudai_converter_positions(st->columns[i].conv))));
			}
			st->err_column = NULL;
			MemoryContextSwitchTo(old);
			if (st->stripe_rows == 0)
			{
				close_stripe(st);
				continue;
			}
			return true;
		}
		if (st->shard)
			close_file(st);
		if (st->file_index + 1 >= list_length(st->filenames))
			return false;
		open_file(st, st->file_index + 1);
	}
}

static bool
read_batch(AmScanState *st)
{
	uint32		want;
	MemoryContext old;

	CHECK_FOR_INTERRUPTS();
	MemoryContextReset(st->batch_cxt);
	st->batch_size = 0;
	st->next_row = 0;
	while (st->stripe < 0 || st->stripe_pos >= st->range_end)
	{
		if (st->stripe >= 0 && st->next_range < st->nranges)
		{
			/* the next row range the range indexes left */
			st->stripe_pos = st->ranges[2 * st->next_range];
			st->range_end = st->ranges[2 * st->next_range + 1];
			st->next_range++;
			continue;
		}
		if (st->stripe >= 0)
			close_stripe(st);
		if (!next_stripe(st))
			return false;
	}
	want = (uint32) Min((uint64) st->batch_rows, st->range_end - st->stripe_pos);

	old = MemoryContextSwitchTo(st->batch_cxt);
	for (int i = 0; i < st->ncolumns; i++)
	{
		AmScanColumn *col = &st->columns[i];

		if (col->conv == NULL)
		{
			for (uint32 r = 0; r < want; r++)
			{
				col->values[r] = (Datum) 0;
				col->nulls[r] = true;
			}
			continue;
		}
		st->err_column = col->attname;
		pf_amudai_converter_fill(col->conv, st->shard->path, st->stripe_pos, want,
								 col->values, col->nulls);
	}
	MemoryContextSwitchTo(old);
	st->err_column = NULL;
	st->peak_memory = Max(st->peak_memory,
						  MemoryContextMemAllocated(st->scan_cxt, true));
	st->stripe_pos += want;
	st->batch_size = want;
	return true;
}

TupleTableSlot *
amudaiIterateForeignScan(ForeignScanState *node)
{
	AmScanState *st = (AmScanState *) node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	ErrorContextCallback errcb;
	uint32		r;

	ExecClearTuple(slot);
	if (st->next_row >= st->batch_size)
	{
		bool		more;

		errcb.callback = scan_error_callback;
		errcb.arg = st;
		errcb.previous = error_context_stack;
		error_context_stack = &errcb;
		more = read_batch(st);
		error_context_stack = errcb.previous;
		if (!more)
			return slot;
	}
	r = st->next_row++;
	if (st->ncolumns < slot->tts_tupleDescriptor->natts)
		memset(slot->tts_isnull, true, sizeof(bool) * slot->tts_tupleDescriptor->natts);
	for (int i = 0; i < st->ncolumns; i++)
	{
		AmScanColumn *col = &st->columns[i];

		slot->tts_values[col->attnum - 1] = col->values[r];
		slot->tts_isnull[col->attnum - 1] = col->nulls[r];
	}
	return ExecStoreVirtualTuple(slot);
}

void
amudaiReScanForeignScan(ForeignScanState *node)
{
	AmScanState *st = (AmScanState *) node->fdw_state;

	close_file(st);
	MemoryContextReset(st->batch_cxt);
	st->file_index = -1;
	st->next_stripe = NULL;
	st->batch_size = 0;
	st->next_row = 0;
	st->params_pending = true;
}

void
amudaiEndForeignScan(ForeignScanState *node)
{
	AmScanState *st = (AmScanState *) node->fdw_state;

	if (st == NULL)
		return;
	if (st->file_cxt)
		close_file(st);
	MemoryContextDelete(st->scan_cxt);
	node->fdw_state = NULL;
}

void
amudaiExplainForeignScan(ForeignScanState *node, ExplainState *es)
{
	AmScanState *st = (AmScanState *) node->fdw_state;
	int			nread = 0;
	ListCell   *lc;

	if (list_length(st->filenames) == 1)
		ExplainPropertyText("Amudai Shard", linitial(st->filenames), es);
	else
		ExplainPropertyList("Amudai Shards", st->filenames, es);
	foreach(lc, st->stripes)
		nread += list_length((List *) lfirst(lc));
	ExplainPropertyText("Stripes",
						psprintf("%d of %d", nread, st->total_stripes), es);
	if (!es->analyze && st->bloom_pruned > 0)
		ExplainPropertyInteger("Stripes Skipped by Bloom Filters", NULL,
							   st->bloom_pruned, es);
	if (es->analyze)
	{
		ExplainPropertyInteger("Stripes Read", NULL, st->stripes_read, es);
		if (st->param_quals != NIL)
			ExplainPropertyInteger("Stripes Skipped at Run Time", NULL,
								   st->stripes_skipped, es);
		if (st->bloom_pruned + st->bloom_skipped > 0)
			ExplainPropertyInteger("Stripes Skipped by Bloom Filters", NULL,
								   st->bloom_pruned + st->bloom_skipped, es);
		if (st->rows_skipped_by_index > 0)
			ExplainPropertyInteger("Rows Skipped by Range Index", NULL,
								   st->rows_skipped_by_index, es);
		ExplainPropertyInteger("Peak Memory", "kB",
							   (int64) ((st->peak_memory + 1023) / 1024), es);
	}
}
