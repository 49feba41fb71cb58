/*-------------------------------------------------------------------------
 *
 * test_metadata.c
 *	  Unit and corpus tests of pq_file_open: footer, schema tree, levels,
 *	  logical types, row group metadata and its validation.
 *
 * Part 1 builds small files in memory (footers written with the Thrift
 * writer, field by field from parquet.thrift) and checks the decoded
 * metadata and the error for each kind of damage.
 *
 * Part 2 opens every Parquet file of the parquet-testing corpus and
 * compares the schema with COLUMNS.tsv and the row counts with
 * MANIFEST.tsv, references made with other tools (a separate Thrift
 * decoder and DuckDB).  ConvertedType-only columns are checked against the
 * backward-compatibility table of LogicalTypes.md written out below.
 * bad_data files must open or fail with PQ_ERR_CORRUPT/UNSUPPORTED.
 *
 * IDENTIFICATION
 *	  test/unit/test_metadata.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/parquet.h"
#include "parquet/thrift.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

/* ----------------------------------------------------------------
 * Sources
 * ----------------------------------------------------------------
 */

typedef struct MemFile
{
	const uint8_t *data;
	size_t		len;
} MemFile;

static int
mem_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	MemFile    *m = ctx;

	if (offset > m->len || len > m->len - offset)
		return EIO;
	memcpy(buf, m->data + offset, len);
	return 0;
}

static PqStatus
open_mem(const uint8_t *data, size_t len, PqFile **file, PqError *err)
{
	static MemFile m;
	PfcSource	src;

	m.data = data;
	m.len = len;
	src.read_at = mem_read_at;
	src.size = len;
	src.ctx = &m;
	return pq_file_open(file, &src, &pfc_malloc_allocator, err);
}

/* ----------------------------------------------------------------
 * Part 1: synthetic files
 * ----------------------------------------------------------------
 */

/* Kinds of damage build_file() can apply. */
typedef enum Damage
{
	DMG_NONE,
	DMG_EXTRA_COLUMN,			/* row group has 3 chunks for 2 leaves */
	DMG_CHUNK_PAST_FOOTER,		/* chunk overlaps the footer */
	DMG_CHUNK_AT_ZERO,			/* chunk starts inside the head magic */
	DMG_NEGATIVE_VALUES,		/* num_values = -1 */
	DMG_NEGATIVE_ROWS,			/* row group num_rows = -5 */
	DMG_CHILDREN_OVERRUN,		/* root claims 5 children */
	DMG_TYPE_MISMATCH,			/* chunk says INT64 for an INT32 leaf */
	DMG_BAD_PHYSICAL,			/* leaf type 9 */
	DMG_COLUMN_INDEX_PAST,		/* column index beyond the data */
	DMG_NO_SCHEMA,				/* FileMetaData without field 2 */
	DMG_DEEP_SCHEMA,			/* 200 nested groups */
	DMG_BAD_DECIMAL,			/* DECIMAL with scale 3 > precision 2 */
	DMG_SHORT_STATS,			/* 1-byte min/max for an INT32 column */
	DMG_BAD_NAME				/* bad type on a leaf named "a\x01\xff\xe2\x82\xac\xed\xa0\x80" */
} Damage;

static void
write_string_field(PqThriftWriter *w, int16_t fid, const char *s)
{
	pq_thrift_write_field(w, fid, PQ_THRIFT_BINARY);
	pq_thrift_write_binary(w, s, (uint32_t) strlen(s));
}

static void
write_i32_field(PqThriftWriter *w, int16_t fid, int32_t v)
{
	pq_thrift_write_field(w, fid, PQ_THRIFT_I32);
	pq_thrift_write_i32(w, v);
}

static void
write_i64_field(PqThriftWriter *w, int16_t fid, int64_t v)
{
	pq_thrift_write_field(w, fid, PQ_THRIFT_I64);
	pq_thrift_write_i64(w, v);
}

/* An empty struct as a union member (e.g. StringType, TypeDefinedOrder). */
static void
write_empty_member(PqThriftWriter *w, int16_t fid)
{
	pq_thrift_write_field(w, fid, PQ_THRIFT_STRUCT);
	pq_thrift_write_struct_begin(w);
	pq_thrift_write_struct_end(w);
}

/*
 * File: "PAR1", 100 data bytes, footer, length, "PAR1".
 * Schema: root { required int32 id (INT_32 converted);
 *				  optional group tags (LIST) { repeated group list {
 *					optional binary element (STRING logical) } } }
 * Two leaves: id (def 0, rep 0) and tags.list.element (def 2, rep 1).
 * One row group of 7 rows; chunks at [4, 54) and [54, 104).
 */
static size_t
build_file(uint8_t *out, size_t cap, Damage dmg)
{
	PqThriftWriter w;
	size_t		n = 0;
	const int	data_len = 100;

	pq_thrift_writer_init(&w);
	pq_thrift_write_struct_begin(&w);
	write_i32_field(&w, 1, 2);	/* version */

	if (dmg != DMG_NO_SCHEMA)
	{
		int			nodes = dmg == DMG_DEEP_SCHEMA ? 201 : 5;

		pq_thrift_write_field(&w, 2, PQ_THRIFT_LIST);
		pq_thrift_write_list_begin(&w, PQ_THRIFT_STRUCT, (uint32_t) nodes);
		if (dmg == DMG_DEEP_SCHEMA)
		{
			for (int i = 0; i < 200; i++)
			{
				pq_thrift_write_struct_begin(&w);
				write_string_field(&w, 4, "g");
				write_i32_field(&w, 5, 1);
				pq_thrift_write_struct_end(&w);
			}
			pq_thrift_write_struct_begin(&w);
			write_i32_field(&w, 1, 1);
			write_i32_field(&w, 3, 1);
			write_string_field(&w, 4, "x");
			pq_thrift_write_struct_end(&w);
		}
		else
		{
			/* root */
			pq_thrift_write_struct_begin(&w);
			write_string_field(&w, 4, "schema");
			write_i32_field(&w, 5, dmg == DMG_CHILDREN_OVERRUN ? 5 : 2);
			pq_thrift_write_struct_end(&w);
			/* id */
			pq_thrift_write_struct_begin(&w);
			write_i32_field(&w, 1, dmg == DMG_BAD_PHYSICAL || dmg == DMG_BAD_NAME ? 9 : 1);
			write_i32_field(&w, 3, 0);
			write_string_field(&w, 4, dmg == DMG_BAD_NAME ?
							   "a\x01\xff\xe2\x82\xac\xed\xa0\x80" : "id");
			if (dmg == DMG_BAD_DECIMAL)
			{
				write_i32_field(&w, 6, 5);	/* DECIMAL */
				write_i32_field(&w, 7, 3);	/* scale */
				write_i32_field(&w, 8, 2);	/* precision */
			}
			else
				write_i32_field(&w, 6, 17); /* INT_32 */
			write_i32_field(&w, 9, 42); /* field_id */
			pq_thrift_write_struct_end(&w);
			/* tags */
			pq_thrift_write_struct_begin(&w);
			write_i32_field(&w, 3, 1);
			write_string_field(&w, 4, "tags");
			write_i32_field(&w, 5, 1);
			write_i32_field(&w, 6, 3);	/* LIST */
			pq_thrift_write_struct_end(&w);
			/* list */
			pq_thrift_write_struct_begin(&w);
			write_i32_field(&w, 3, 2);
			write_string_field(&w, 4, "list");
			write_i32_field(&w, 5, 1);
			pq_thrift_write_struct_end(&w);
			/* element: BYTE_ARRAY, optional, UTF8 + LogicalType STRING */
			pq_thrift_write_struct_begin(&w);
			write_i32_field(&w, 1, 6);
			write_i32_field(&w, 3, 1);
			write_string_field(&w, 4, "element");
			write_i32_field(&w, 6, 0);
			pq_thrift_write_field(&w, 10, PQ_THRIFT_STRUCT);
			pq_thrift_write_struct_begin(&w);
			write_empty_member(&w, 1);
			pq_thrift_write_struct_end(&w);
			pq_thrift_write_struct_end(&w);
		}
	}

	write_i64_field(&w, 3, 7);	/* num_rows */

	/* row_groups */
	pq_thrift_write_field(&w, 4, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(&w, PQ_THRIFT_STRUCT, 1);
	pq_thrift_write_struct_begin(&w);
	{
		int			ncols = dmg == DMG_EXTRA_COLUMN ? 3 : 2;

		pq_thrift_write_field(&w, 1, PQ_THRIFT_LIST);
		pq_thrift_write_list_begin(&w, PQ_THRIFT_STRUCT, (uint32_t) ncols);
		for (int c = 0; c < ncols; c++)
		{
			int64_t		start = 4 + 50 * (c % 2);
			int64_t		size = 50;

			if (dmg == DMG_CHUNK_PAST_FOOTER && c == 1)
				size = 51;
			if (dmg == DMG_CHUNK_AT_ZERO && c == 0)
				start = 2;
			pq_thrift_write_struct_begin(&w);
			write_i64_field(&w, 2, start);	/* file_offset */
			pq_thrift_write_field(&w, 3, PQ_THRIFT_STRUCT);
			pq_thrift_write_struct_begin(&w);
			write_i32_field(&w, 1, (c % 2 == 0) ? (dmg == DMG_TYPE_MISMATCH ? 2 : 1) : 6);
			pq_thrift_write_field(&w, 2, PQ_THRIFT_LIST);
			pq_thrift_write_list_begin(&w, PQ_THRIFT_I32, 2);
			pq_thrift_write_i32(&w, 0);	/* PLAIN */
			pq_thrift_write_i32(&w, 3);	/* RLE */
			pq_thrift_write_field(&w, 3, PQ_THRIFT_LIST);
			pq_thrift_write_list_begin(&w, PQ_THRIFT_BINARY, 1);
			pq_thrift_write_binary(&w, "x", 1);
			write_i32_field(&w, 4, c == 0 ? 1 : 6);	/* SNAPPY, ZSTD */
			write_i64_field(&w, 5, dmg == DMG_NEGATIVE_VALUES ? -1 : 7 + c);
			write_i64_field(&w, 6, 80);
			write_i64_field(&w, 7, size);
			write_i64_field(&w, 9, start);
			if (c == 0)
			{
				/* Statistics: legacy max 9 (1), min 1 (2), null_count 0 (3),
				 * min_value 2 (6), is_min_value_exact true (8) */
				static const uint8_t nine[4] = {9, 0, 0, 0};
				static const uint8_t one[4] = {1, 0, 0, 0};
				static const uint8_t two[4] = {2, 0, 0, 0};
				uint32_t	vlen = dmg == DMG_SHORT_STATS ? 1 : 4;

				pq_thrift_write_field(&w, 12, PQ_THRIFT_STRUCT);
				pq_thrift_write_struct_begin(&w);
				pq_thrift_write_field(&w, 1, PQ_THRIFT_BINARY);
				pq_thrift_write_binary(&w, nine, vlen);
				pq_thrift_write_field(&w, 2, PQ_THRIFT_BINARY);
				pq_thrift_write_binary(&w, one, vlen);
				write_i64_field(&w, 3, 0);
				pq_thrift_write_field(&w, 6, PQ_THRIFT_BINARY);
				pq_thrift_write_binary(&w, two, vlen);
				pq_thrift_write_bool_field(&w, 8, true);
				pq_thrift_write_struct_end(&w);
			}
			pq_thrift_write_struct_end(&w);
			if (c == 1)
			{
				/* column index at [90, 100), offset index at [80, 90) */
				write_i64_field(&w, 4, 80);
				write_i32_field(&w, 5, 10);
				write_i64_field(&w, 6, dmg == DMG_COLUMN_INDEX_PAST ? 100 : 90);
				write_i32_field(&w, 7, 10);
			}
			pq_thrift_write_struct_end(&w);
		}
	}
	write_i64_field(&w, 2, 160);
	write_i64_field(&w, 3, dmg == DMG_NEGATIVE_ROWS ? -5 : 7);
	pq_thrift_write_struct_end(&w);

	/* key_value_metadata: {"k": "v"}, {"nokey-value": absent} */
	pq_thrift_write_field(&w, 5, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(&w, PQ_THRIFT_STRUCT, 2);
	pq_thrift_write_struct_begin(&w);
	write_string_field(&w, 1, "k");
	write_string_field(&w, 2, "v");
	pq_thrift_write_struct_end(&w);
	pq_thrift_write_struct_begin(&w);
	write_string_field(&w, 1, "only-key");
	pq_thrift_write_struct_end(&w);

	write_string_field(&w, 6, "unit test writer");

	/* column_orders: TYPE_DEFINED_ORDER for both leaves */
	pq_thrift_write_field(&w, 7, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(&w, PQ_THRIFT_STRUCT, 2);
	for (int i = 0; i < 2; i++)
	{
		pq_thrift_write_struct_begin(&w);
		write_empty_member(&w, 1);
		pq_thrift_write_struct_end(&w);
	}
	pq_thrift_write_struct_end(&w);

	if (w.failed || 4 + data_len + w.len + 8 > cap)
	{
		pq_thrift_writer_free(&w);
		return 0;
	}
	memcpy(out + n, "PAR1", 4);
	n += 4;
	memset(out + n, 0xAB, data_len);
	n += data_len;
	memcpy(out + n, w.buf, w.len);
	n += w.len;
	out[n++] = (uint8_t) w.len;
	out[n++] = (uint8_t) (w.len >> 8);
	out[n++] = (uint8_t) (w.len >> 16);
	out[n++] = (uint8_t) (w.len >> 24);
	memcpy(out + n, "PAR1", 4);
	n += 4;
	pq_thrift_writer_free(&w);
	return n;
}

static void
test_synthetic_file(void)
{
	static uint8_t buf[8192];
	size_t		len = build_file(buf, sizeof(buf), DMG_NONE);
	PqFile	   *file = NULL;
	PqError		err;
	const PqFileMeta *m;

	UNIT_CHECK(len > 0);
	UNIT_CHECKF(open_mem(buf, len, &file, &err) == PQ_OK, "%s", err.message);
	if (file == NULL)
		return;
	m = pq_file_meta(file);
	UNIT_CHECK(m->version == 2);
	UNIT_CHECK(m->num_rows == 7);
	UNIT_CHECK(m->created_by && strcmp(m->created_by, "unit test writer") == 0);
	UNIT_CHECK(m->footer_length == len - 4 - 100 - 8);

	/* schema tree */
	UNIT_CHECK(m->root && !m->root->is_leaf && m->root->num_children == 2);
	UNIT_CHECK(strcmp(m->root->name, "schema") == 0 && m->root->parent == NULL);
	UNIT_CHECK(m->num_leaves == 2);
	if (m->num_leaves == 2)
	{
		const PqLeaf *id = &m->leaves[0];
		const PqLeaf *el = &m->leaves[1];
		const PqSchemaNode *tags = m->root->children[1];

		UNIT_CHECK(strcmp(id->path, "id") == 0);
		UNIT_CHECK(id->node->physical == PQ_INT32 && id->node->repetition == PQ_REQUIRED);
		UNIT_CHECK(id->max_def == 0 && id->max_rep == 0);
		UNIT_CHECK(id->node->converted_type == 17 && id->node->field_id == 42);
		UNIT_CHECK(id->node->logical.kind == PQ_LT_INTEGER &&
				   id->node->logical.bit_width == 32 && id->node->logical.is_signed);
		UNIT_CHECK(id->node->leaf_index == 0 && id->node->parent == m->root);

		UNIT_CHECK(strcmp(el->path, "tags.list.element") == 0);
		UNIT_CHECK(el->max_def == 3 && el->max_rep == 1);
		UNIT_CHECK(el->node->logical.kind == PQ_LT_STRING);
		UNIT_CHECK(el->node->physical == PQ_BYTE_ARRAY && el->node->leaf_index == 1);
		UNIT_CHECK(tags->logical.kind == PQ_LT_LIST && tags->max_def == 1 &&
				   tags->max_rep == 0 && tags->leaf_index == -1);
		UNIT_CHECK(tags->children[0]->max_def == 2 && tags->children[0]->max_rep == 1);
		UNIT_CHECK(el->node->parent->parent == tags);
		UNIT_CHECK(id->type_defined_order && el->type_defined_order &&
				   !id->ieee754_total_order);
	}

	/* row groups and chunks */
	UNIT_CHECK(m->num_row_groups == 1);
	if (m->num_row_groups == 1 && m->row_groups[0].num_columns == 2)
	{
		const PqRowGroupMeta *rg = &m->row_groups[0];
		const PqColumnChunkMeta *c0 = &rg->columns[0];
		const PqColumnChunkMeta *c1 = &rg->columns[1];

		UNIT_CHECK(rg->num_rows == 7 && rg->total_byte_size == 160);
		UNIT_CHECK(rg->total_compressed_size == -1 && rg->file_offset == -1);
		UNIT_CHECK(c0->type == PQ_INT32 && c0->codec == 1 && c0->num_values == 7);
		UNIT_CHECK(c0->num_encodings == 2 && c0->encodings[0] == 0 && c0->encodings[1] == 3);
		UNIT_CHECK(c0->data_page_offset == 4 && c0->total_compressed_size == 50);
		UNIT_CHECK(!c0->has_dictionary_page_offset && c0->file_path == NULL);
		{
			uint64_t	start,
						length;

			pq_column_chunk_range(c1, &start, &length);
			UNIT_CHECK(start == 54 && length == 50);
		}
		UNIT_CHECK(c0->has_statistics);
		/* min_value (6) wins over legacy min (2); max only legacy (1) */
		UNIT_CHECK(c0->statistics.has_min && c0->statistics.min_len == 4 &&
				   c0->statistics.min[0] == 2 && !c0->statistics.min_is_legacy);
		UNIT_CHECK(c0->statistics.has_max && c0->statistics.max_len == 4 &&
				   c0->statistics.max[0] == 9 && c0->statistics.max_is_legacy);
		UNIT_CHECK(c0->statistics.has_min_exact && c0->statistics.min_exact);
		UNIT_CHECK(!c0->statistics.has_max_exact);
		UNIT_CHECK(c0->statistics.has_null_count && c0->statistics.null_count == 0);
		UNIT_CHECK(!c0->statistics.has_distinct_count);
		UNIT_CHECK(!c0->has_column_index && !c0->has_bloom_filter &&
				   c0->bloom_filter_length == -1);
		UNIT_CHECK(c1->type == PQ_BYTE_ARRAY && c1->codec == 6 && c1->num_values == 8);
		UNIT_CHECK(!c1->has_statistics);
		UNIT_CHECK(c1->has_offset_index && c1->offset_index_offset == 80 &&
				   c1->offset_index_length == 10);
		UNIT_CHECK(c1->has_column_index && c1->column_index_offset == 90 &&
				   c1->column_index_length == 10);
		UNIT_CHECK(!c1->is_encrypted);
	}

	/* key-value metadata */
	UNIT_CHECK(m->num_key_values == 2);
	if (m->num_key_values == 2)
	{
		UNIT_CHECK(strcmp(m->key_values[0].key, "k") == 0);
		UNIT_CHECK(m->key_values[0].value && strcmp(m->key_values[0].value, "v") == 0 &&
				   m->key_values[0].value_len == 1);
		UNIT_CHECK(strcmp(m->key_values[1].key, "only-key") == 0 &&
				   m->key_values[1].value == NULL);
	}
	pq_file_close(file);

	/* A min/max too short for INT32 is dropped; the file still opens. */
	{
		static uint8_t sbuf[8192];
		size_t		slen = build_file(sbuf, sizeof(sbuf), DMG_SHORT_STATS);

		UNIT_CHECK(open_mem(sbuf, slen, &file, &err) == PQ_OK);
		if (file)
		{
			const PqStatistics *st = &pq_file_meta(file)->row_groups[0].columns[0].statistics;

			UNIT_CHECK(!st->has_min && !st->has_max && st->min == NULL);
			UNIT_CHECK(st->has_null_count && st->has_min_exact);
			pq_file_close(file);
		}
	}

	/* Every truncation of the file fails cleanly (magic or footer checks). */
	for (size_t cut = 0; cut < len; cut++)
	{
		PqStatus	st = open_mem(buf, cut, &file, &err);

		UNIT_CHECKF(st == PQ_ERR_CORRUPT, "prefix %zu: status %d", cut, st);
	}
}

static void
test_damage(void)
{
	static const struct
	{
		Damage		dmg;
		int			row_group;
		int			column;
		const char *needle;
	}			cases[] = {
		{DMG_EXTRA_COLUMN, 0, -1, "3 column chunks"},
		{DMG_CHUNK_PAST_FOOTER, 0, 1, "outside the file's data"},
		{DMG_CHUNK_AT_ZERO, 0, 0, "outside the file's data"},
		{DMG_NEGATIVE_VALUES, 0, 0, "negative value count"},
		{DMG_NEGATIVE_ROWS, 0, -1, "negative row count"},
		{DMG_CHILDREN_OVERRUN, -1, -1, "children"},
		{DMG_TYPE_MISMATCH, 0, 0, "has type INT64 but the schema says INT32"},
		{DMG_BAD_PHYSICAL, -1, -1, "invalid physical type 9"},
		{DMG_COLUMN_INDEX_PAST, 0, 1, "column index"},
		{DMG_NO_SCHEMA, -1, -1, "schema"},
		{DMG_DEEP_SCHEMA, -1, -1, "nested deeper"},
		{DMG_BAD_DECIMAL, -1, -1, "invalid precision 2 and scale 3"},
		/* control byte, stray 0xFF and a surrogate become '?'; the euro sign stays */
		{DMG_BAD_NAME, -1, -1, "\"a??\xe2\x82\xac???\" has invalid physical type 9"},
	};
	static uint8_t buf[16384];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		size_t		len = build_file(buf, sizeof(buf), cases[i].dmg);
		PqFile	   *file = NULL;
		PqError		err;
		PqStatus	st;

		UNIT_CHECK(len > 0);
		st = open_mem(buf, len, &file, &err);
		UNIT_CHECKF(st == PQ_ERR_CORRUPT && file == NULL, "case %zu: status %d", i, st);
		UNIT_CHECKF(strstr(err.message, cases[i].needle) != NULL,
					"case %zu: message \"%s\"", i, err.message);
		UNIT_CHECKF(err.row_group == cases[i].row_group && err.column == cases[i].column,
					"case %zu: rg %d col %d", i, err.row_group, err.column);
	}

	/* Magic and footer length checks. */
	{
		size_t		len = build_file(buf, sizeof(buf), DMG_NONE);
		PqFile	   *file;
		PqError		err;

		memcpy(buf + len - 4, "PARE", 4);
		UNIT_CHECK(open_mem(buf, len, &file, &err) == PQ_ERR_UNSUPPORTED);
		UNIT_CHECK(strstr(err.message, "encrypted footer") != NULL);
		memcpy(buf + len - 4, "PAR2", 4);
		UNIT_CHECK(open_mem(buf, len, &file, &err) == PQ_ERR_CORRUPT);
		memcpy(buf + len - 4, "PAR1", 4);
		buf[0] = 'X';
		UNIT_CHECK(open_mem(buf, len, &file, &err) == PQ_ERR_CORRUPT);
		buf[0] = 'P';
		buf[len - 5] = 0x7F;	/* footer length about 2 GB */
		UNIT_CHECK(open_mem(buf, len, &file, &err) == PQ_ERR_CORRUPT);
		UNIT_CHECK(strstr(err.message, "footer length") != NULL);
		buf[len - 5] = 0;
		memset(buf + len - 8, 0, 4);	/* footer length 0 */
		UNIT_CHECK(open_mem(buf, len, &file, &err) == PQ_ERR_CORRUPT);
	}

	/* Every single-byte corruption of the footer opens or fails cleanly. */
	{
		size_t		len = build_file(buf, sizeof(buf), DMG_NONE);
		uint32_t	flen = (uint32_t) (len - 4 - 100 - 8);
		int			bad_status = 0;

		for (size_t pos = 104; pos < 104 + flen; pos++)
		{
			static const uint8_t patterns[] = {0x00, 0xFF, 0x80, 0x0F};

			for (size_t k = 0; k < sizeof(patterns); k++)
			{
				uint8_t		saved = buf[pos];
				PqFile	   *file = NULL;
				PqError		err;
				PqStatus	st;

				buf[pos] = patterns[k];
				st = open_mem(buf, len, &file, &err);
				if (st == PQ_OK)
					pq_file_close(file);
				else if (st != PQ_ERR_CORRUPT)
					bad_status++;
				buf[pos] = saved;
			}
		}
		UNIT_CHECK(bad_status == 0);
	}
}

/*
 * Logical type decoding: one leaf per case, no row groups.  Each leaf is
 * (physical type, type_length, converted type or -1, LogicalType member
 * or 0, member parameters), written from parquet.thrift.
 */
typedef struct TypeCase
{
	const char *name;
	int32_t		physical;
	int32_t		type_length;
	int32_t		converted;
	int32_t		scale;			/* SchemaElement scale/precision, -1 = absent */
	int32_t		precision;
	int16_t		member;			/* LogicalType union member, 0 = absent */
	int32_t		p1;				/* member parameters */
	int32_t		p2;
	/* expected */
	PqLogicalKind kind;
	int			e1;				/* precision / unit / bit_width */
	int			e2;				/* scale / utc_adjusted / is_signed */
} TypeCase;

static const TypeCase type_cases[] = {
	/* LogicalType wins: TIMESTAMP(NANOS, utc=false) over TIMESTAMP_MICROS */
	{"ts", 2, -1, 10, -1, -1, 8, 0, 3, PQ_LT_TIMESTAMP, PQ_UNIT_NANOS, 0},
	{"u16", 1, -1, -1, -1, -1, 10, 16, 0, PQ_LT_INTEGER, 16, 0},
	{"i8", 1, -1, -1, -1, -1, 10, 8, 1, PQ_LT_INTEGER, 8, 1},
	{"dec", 7, 16, -1, -1, -1, 5, 2, 30, PQ_LT_DECIMAL, 30, 2},
	{"time_us", 2, -1, -1, -1, -1, 7, 1, 2, PQ_LT_TIME, PQ_UNIT_MICROS, 1},
	/* unknown member 99: falls back to the converted type, else OTHER */
	{"unk_utf8", 6, -1, 0, -1, -1, 99, 0, 0, PQ_LT_STRING, 0, 0},
	{"unk", 6, -1, -1, -1, -1, 99, 0, 0, PQ_LT_OTHER, 0, 0},
	{"json", 6, -1, -1, -1, -1, 12, 0, 0, PQ_LT_JSON, 0, 0},
	{"null", 1, -1, -1, -1, -1, 11, 0, 0, PQ_LT_NULL, 0, 0},
	{"uuid", 7, 16, -1, -1, -1, 14, 0, 0, PQ_LT_UUID, 0, 0},
	{"f16", 7, 2, -1, -1, -1, 15, 0, 0, PQ_LT_FLOAT16, 0, 0},
	{"geo", 6, -1, -1, -1, -1, 17, 0, 0, PQ_LT_GEOMETRY, 0, 0},
	{"enum", 6, -1, -1, -1, -1, 4, 0, 0, PQ_LT_ENUM, 0, 0},
	{"bson", 6, -1, 20, -1, -1, 0, 0, 0, PQ_LT_BSON, 0, 0},
	/* legacy forms: TIME_MILLIS / TIMESTAMP_MILLIS are UTC-adjusted */
	{"t_ms", 1, -1, 7, -1, -1, 0, 0, 0, PQ_LT_TIME, PQ_UNIT_MILLIS, 1},
	{"ts_ms", 2, -1, 9, -1, -1, 0, 0, 0, PQ_LT_TIMESTAMP, PQ_UNIT_MILLIS, 1},
	{"dec64", 2, -1, 5, 4, 18, 0, 0, 0, PQ_LT_DECIMAL, 18, 4},
	{"u64", 2, -1, 14, -1, -1, 0, 0, 0, PQ_LT_INTEGER, 64, 0},
	{"interval", 7, 12, 21, -1, -1, 0, 0, 0, PQ_LT_INTERVAL, 0, 0},
	{"date", 1, -1, 6, -1, -1, 0, 0, 0, PQ_LT_DATE, 0, 0},
	{"plain", 3, -1, -1, -1, -1, 0, 0, 0, PQ_LT_NONE, 0, 0},
};

static size_t
build_types_file(uint8_t *out, size_t cap)
{
	PqThriftWriter w;
	size_t		ncases = sizeof(type_cases) / sizeof(type_cases[0]);
	size_t		n = 0;

	pq_thrift_writer_init(&w);
	pq_thrift_write_struct_begin(&w);
	write_i32_field(&w, 1, 1);
	pq_thrift_write_field(&w, 2, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(&w, PQ_THRIFT_STRUCT, (uint32_t) ncases + 1);
	pq_thrift_write_struct_begin(&w);
	write_string_field(&w, 4, "root");
	write_i32_field(&w, 5, (int32_t) ncases);
	pq_thrift_write_struct_end(&w);
	for (size_t i = 0; i < ncases; i++)
	{
		const TypeCase *tc = &type_cases[i];

		pq_thrift_write_struct_begin(&w);
		write_i32_field(&w, 1, tc->physical);
		if (tc->type_length >= 0)
			write_i32_field(&w, 2, tc->type_length);
		write_i32_field(&w, 3, 1);
		write_string_field(&w, 4, tc->name);
		if (tc->converted >= 0)
			write_i32_field(&w, 6, tc->converted);
		if (tc->scale >= 0)
			write_i32_field(&w, 7, tc->scale);
		if (tc->precision >= 0)
			write_i32_field(&w, 8, tc->precision);
		if (tc->member != 0)
		{
			pq_thrift_write_field(&w, 10, PQ_THRIFT_STRUCT);
			pq_thrift_write_struct_begin(&w);
			pq_thrift_write_field(&w, tc->member, PQ_THRIFT_STRUCT);
			pq_thrift_write_struct_begin(&w);
			if (tc->member == 5)	/* DecimalType {1: scale, 2: precision} */
			{
				write_i32_field(&w, 1, tc->p1);
				write_i32_field(&w, 2, tc->p2);
			}
			else if (tc->member == 7 || tc->member == 8)
			{
				/* {1: isAdjustedToUTC, 2: TimeUnit {1 MILLIS|2 MICROS|3 NANOS}} */
				pq_thrift_write_bool_field(&w, 1, tc->p1 != 0);
				pq_thrift_write_field(&w, 2, PQ_THRIFT_STRUCT);
				pq_thrift_write_struct_begin(&w);
				write_empty_member(&w, (int16_t) tc->p2);
				pq_thrift_write_struct_end(&w);
			}
			else if (tc->member == 10)
			{
				/* IntType {1: i8 bitWidth, 2: bool isSigned} */
				pq_thrift_write_field(&w, 1, PQ_THRIFT_I8);
				pq_thrift_write_i8(&w, (int8_t) tc->p1);
				pq_thrift_write_bool_field(&w, 2, tc->p2 != 0);
			}
			pq_thrift_write_struct_end(&w);
			pq_thrift_write_struct_end(&w);
		}
		pq_thrift_write_struct_end(&w);
	}
	write_i64_field(&w, 3, 0);
	pq_thrift_write_field(&w, 4, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(&w, PQ_THRIFT_STRUCT, 0);
	pq_thrift_write_struct_end(&w);

	if (w.failed || 4 + w.len + 8 > cap)
	{
		pq_thrift_writer_free(&w);
		return 0;
	}
	memcpy(out, "PAR1", 4);
	n = 4;
	memcpy(out + n, w.buf, w.len);
	n += w.len;
	for (int i = 0; i < 4; i++)
		out[n++] = (uint8_t) (w.len >> (8 * i));
	memcpy(out + n, "PAR1", 4);
	n += 4;
	pq_thrift_writer_free(&w);
	return n;
}

static void
test_logical_types(void)
{
	static uint8_t buf[8192];
	size_t		len = build_types_file(buf, sizeof(buf));
	PqFile	   *file = NULL;
	PqError		err;
	const PqFileMeta *m;
	size_t		ncases = sizeof(type_cases) / sizeof(type_cases[0]);

	UNIT_CHECK(len > 0);
	UNIT_CHECKF(open_mem(buf, len, &file, &err) == PQ_OK, "%s", err.message);
	if (file == NULL)
		return;
	m = pq_file_meta(file);
	UNIT_CHECK(m->num_leaves == (int) ncases && m->num_row_groups == 0);
	for (size_t i = 0; i < ncases && (int) i < m->num_leaves; i++)
	{
		const TypeCase *tc = &type_cases[i];
		const PqSchemaNode *node = m->leaves[i].node;
		const PqLogicalType *lt = &node->logical;
		bool		ok = lt->kind == tc->kind && strcmp(node->name, tc->name) == 0 &&
			node->converted_type == tc->converted;

		switch (tc->kind)
		{
			case PQ_LT_DECIMAL:
				ok &= lt->precision == tc->e1 && lt->scale == tc->e2;
				break;
			case PQ_LT_TIME:
			case PQ_LT_TIMESTAMP:
				ok &= (int) lt->unit == tc->e1 && lt->utc_adjusted == (tc->e2 != 0);
				break;
			case PQ_LT_INTEGER:
				ok &= lt->bit_width == tc->e1 && lt->is_signed == (tc->e2 != 0);
				break;
			default:
				break;
		}
		UNIT_CHECKF(ok, "type case %s: kind %s", tc->name, pq_logical_kind_name(lt->kind));
	}
	pq_file_close(file);
}

/* Names follow parquet.thrift's identifiers; unknown values are "UNKNOWN". */
static void
test_names(void)
{
	static const char *const encodings[] = {
		"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
		"DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
		"RLE_DICTIONARY", "BYTE_STREAM_SPLIT"
	};
	static const char *const physical[] = {
		"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
		"FIXED_LEN_BYTE_ARRAY"
	};

	for (int i = 0; i < 10; i++)
		UNIT_CHECKF(strcmp(pq_encoding_name(i), encodings[i]) == 0, "encoding %d", i);
	UNIT_CHECK(strcmp(pq_encoding_name(10), "UNKNOWN") == 0);
	UNIT_CHECK(strcmp(pq_encoding_name(-1), "UNKNOWN") == 0);
	for (int i = 0; i < 8; i++)
		UNIT_CHECKF(strcmp(pq_physical_type_name((PqPhysicalType) i), physical[i]) == 0,
					"physical %d", i);
	UNIT_CHECK(strcmp(pq_physical_type_name((PqPhysicalType) 8), "UNKNOWN") == 0);
	UNIT_CHECK(strcmp(pq_repetition_name(PQ_REQUIRED), "REQUIRED") == 0);
	UNIT_CHECK(strcmp(pq_repetition_name(PQ_OPTIONAL), "OPTIONAL") == 0);
	UNIT_CHECK(strcmp(pq_repetition_name(PQ_REPEATED), "REPEATED") == 0);
	UNIT_CHECK(strcmp(pq_repetition_name((PqRepetition) 3), "UNKNOWN") == 0);
	UNIT_CHECK(strcmp(pq_logical_kind_name(PQ_LT_STRING), "STRING") == 0);
	UNIT_CHECK(strcmp(pq_logical_kind_name(PQ_LT_NULL), "UNKNOWN") == 0);
	UNIT_CHECK(strcmp(pq_logical_kind_name(PQ_LT_MAP_KEY_VALUE), "MAP_KEY_VALUE") == 0);
	UNIT_CHECK(strcmp(pq_logical_kind_name(PQ_LT_GEOGRAPHY), "GEOGRAPHY") == 0);
	/* every kind has a distinct name */
	for (int a = PQ_LT_NONE; a <= PQ_LT_OTHER; a++)
		for (int b = a + 1; b <= PQ_LT_OTHER; b++)
			UNIT_CHECKF(strcmp(pq_logical_kind_name((PqLogicalKind) a),
							   pq_logical_kind_name((PqLogicalKind) b)) != 0,
						"kinds %d and %d share a name", a, b);
}

/* An allocator that fails from the n-th call on and counts live blocks. */
typedef struct CountingAlloc
{
	int			fail_at;
	int			calls;
	int			live;
} CountingAlloc;

static void *
counting_alloc(void *ctx, size_t size)
{
	CountingAlloc *ca = ctx;
	void	   *p;

	if (ca->calls++ >= ca->fail_at)
		return NULL;
	p = malloc(size);
	if (p)
		ca->live++;
	return p;
}

static void
counting_release(void *ctx, void *ptr)
{
	CountingAlloc *ca = ctx;

	ca->live--;
	free(ptr);
}

/* Out of memory at every allocation point: ENOMEM, nothing left behind. */
static void
test_out_of_memory(void)
{
	static uint8_t buf[8192];
	size_t		len = build_file(buf, sizeof(buf), DMG_NONE);
	MemFile		mf = {buf, len};
	PfcSource	src = {mem_read_at, len, &mf};
	bool		succeeded = false;

	for (int k = 0; k < 64 && !succeeded; k++)
	{
		CountingAlloc ca = {k, 0, 0};
		PfcAllocator alloc = {counting_alloc, counting_release, &ca};
		PqFile	   *file = NULL;
		PqError		err;
		PqStatus	st = pq_file_open(&file, &src, &alloc, &err);

		if (st == PQ_OK)
		{
			succeeded = true;
			UNIT_CHECK(ca.live > 0);
			pq_file_close(file);
		}
		else
			UNIT_CHECKF(st == PQ_ERR_IO && err.sys_errno == ENOMEM && file == NULL,
						"fail at %d: status %d", k, st);
		UNIT_CHECKF(ca.live == 0, "fail at %d: %d blocks leaked", k, ca.live);
	}
	UNIT_CHECK(succeeded);
}

/* ----------------------------------------------------------------
 * Part 2: the corpus
 * ----------------------------------------------------------------
 */

typedef struct DiskFile
{
	FILE	   *fp;
} DiskFile;

static int
disk_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	DiskFile   *f = ctx;
	ssize_t		n = pread(fileno(f->fp), buf, len, (off_t) offset);

	if (n < 0)
		return errno;
	return (size_t) n == len ? 0 : EIO;
}

/* ConvertedType names in enum order (parquet.thrift). */
static const char *const converted_names[] = {
	"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
	"TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS",
	"UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32",
	"INT_64", "JSON", "BSON", "INTERVAL"
};

/*
 * Logical type implied by a ConvertedType alone, per the compatibility
 * table of LogicalTypes.md, in COLUMNS.tsv's notation.  DECIMAL's
 * precision/scale are not in the TSV, so only the kind is compared.
 */
static const struct
{
	const char *converted;
	const char *logical;
}			converted_to_logical[] = {
	{"UTF8", "STRING"}, {"MAP", "MAP"}, {"MAP_KEY_VALUE", "MAP_KEY_VALUE"},
	{"LIST", "LIST"}, {"ENUM", "ENUM"}, {"DECIMAL", "DECIMAL"}, {"DATE", "DATE"},
	{"TIME_MILLIS", "TIME(MILLIS,utc=true)"}, {"TIME_MICROS", "TIME(MICROS,utc=true)"},
	{"TIMESTAMP_MILLIS", "TIMESTAMP(MILLIS,utc=true)"},
	{"TIMESTAMP_MICROS", "TIMESTAMP(MICROS,utc=true)"},
	{"UINT_8", "INTEGER(8,unsigned)"}, {"UINT_16", "INTEGER(16,unsigned)"},
	{"UINT_32", "INTEGER(32,unsigned)"}, {"UINT_64", "INTEGER(64,unsigned)"},
	{"INT_8", "INTEGER(8,signed)"}, {"INT_16", "INTEGER(16,signed)"},
	{"INT_32", "INTEGER(32,signed)"}, {"INT_64", "INTEGER(64,signed)"},
	{"JSON", "JSON"}, {"BSON", "BSON"}, {"INTERVAL", "INTERVAL"},
};

static const char *const codec_names[] = {
	"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"
};

static const char *
unit_text(PqTimeUnit u)
{
	return u == PQ_UNIT_MILLIS ? "MILLIS" : u == PQ_UNIT_MICROS ? "MICROS" : "NANOS";
}

/* Our logical type in COLUMNS.tsv notation. */
static void
logical_text(const PqLogicalType *lt, char *out, size_t cap)
{
	switch (lt->kind)
	{
		case PQ_LT_NONE:
			snprintf(out, cap, "%s", "");
			break;
		case PQ_LT_DECIMAL:
			snprintf(out, cap, "DECIMAL(%d,%d)", lt->precision, lt->scale);
			break;
		case PQ_LT_TIME:
		case PQ_LT_TIMESTAMP:
			snprintf(out, cap, "%s(%s,utc=%s)", lt->kind == PQ_LT_TIME ? "TIME" : "TIMESTAMP",
					 unit_text(lt->unit), lt->utc_adjusted ? "true" : "false");
			break;
		case PQ_LT_INTEGER:
			snprintf(out, cap, "INTEGER(%d,%s)", lt->bit_width,
					 lt->is_signed ? "signed" : "unsigned");
			break;
		case PQ_LT_NULL:
			snprintf(out, cap, "%s", "UNKNOWN(NULL)");
			break;
		default:
			snprintf(out, cap, "%s", pq_logical_kind_name(lt->kind));
			break;
	}
}

/* Does our text match the TSV's?  Parameters we do not keep are ignored. */
static bool
logical_matches(const char *ours, const char *tsv)
{
	size_t		n;

	if (strcmp(ours, tsv) == 0)
		return true;
	/* GEOMETRY(crs=...), GEOGRAPHY(alg=...): we keep the kind only */
	if ((strncmp(tsv, "GEOMETRY(", 9) == 0 && strcmp(ours, "GEOMETRY") == 0) ||
		(strncmp(tsv, "GEOGRAPHY(", 10) == 0 && strcmp(ours, "GEOGRAPHY") == 0))
		return true;
	/* an unknown union member (LOGICAL_<id>) is PQ_LT_OTHER */
	if (strncmp(tsv, "LOGICAL_", 8) == 0 && strcmp(ours, "OTHER") == 0)
		return true;
	/* converted DECIMAL: kind only */
	n = strlen(tsv);
	if (strcmp(tsv, "DECIMAL") == 0 && strncmp(ours, "DECIMAL(", 8) == 0)
		return true;
	(void) n;
	return false;
}

/* Split a TSV line in place; returns the number of fields. */
static int
split_tabs(char *line, char **fields, int max)
{
	int			n = 0;
	char	   *p = line;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max)
	{
		fields[n++] = p;
		p = strchr(p, '\t');
		if (p == NULL)
			break;
		*p++ = '\0';
	}
	return n;
}

/* Does the comma-separated TSV set equal the set of names? */
static bool
name_set_equals(const char *tsv, const char *const *names, int n)
{
	char		buf[512];
	int			count = 0;

	snprintf(buf, sizeof(buf), "%s", tsv);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
	{
		bool		found = false;

		for (int i = 0; i < n; i++)
			found |= strcmp(names[i], tok) == 0;
		if (!found)
			return false;
		count++;
	}
	return count == n;
}

typedef struct CorpusStats
{
	int			files;
	int			opened;
	int			columns_checked;
	int			mismatches;
	int			manifest_checked;
} CorpusStats;

/* Compare one COLUMNS.tsv row with the leaf of the same path. */
static void
check_column_row(const char *file, const PqFileMeta *m, char **f, CorpusStats *cs)
{
	const PqLeaf *leaf = NULL;
	char		ours[128];
	char		expect_logical[128];
	const char *ct_name;
	char		tl[16];
	bool		ok;

	for (int i = 0; i < m->num_leaves; i++)
		if (strcmp(m->leaves[i].path, f[1]) == 0)
			leaf = &m->leaves[i];
	UNIT_CHECKF(leaf != NULL, "%s: no leaf \"%s\"", file, f[1]);
	if (leaf == NULL)
	{
		cs->mismatches++;
		return;
	}
	cs->columns_checked++;

	ct_name = leaf->node->converted_type >= 0 &&
		leaf->node->converted_type < (int) (sizeof(converted_names) / sizeof(converted_names[0])) ?
		converted_names[leaf->node->converted_type] : "";
	if (leaf->node->physical == PQ_FIXED_LEN_BYTE_ARRAY)
		snprintf(tl, sizeof(tl), "%d", leaf->node->type_length);
	else
		tl[0] = '\0';

	/* expected logical text: the LogicalType, else the folded converted type */
	if (f[6][0] != '\0')
		snprintf(expect_logical, sizeof(expect_logical), "%s", f[6]);
	else
	{
		expect_logical[0] = '\0';
		for (size_t i = 0; i < sizeof(converted_to_logical) / sizeof(converted_to_logical[0]); i++)
			if (strcmp(converted_to_logical[i].converted, f[5]) == 0)
				snprintf(expect_logical, sizeof(expect_logical), "%s",
						 converted_to_logical[i].logical);
	}
	logical_text(&leaf->node->logical, ours, sizeof(ours));

	ok = strcmp(pq_physical_type_name(leaf->node->physical), f[2]) == 0 &&
		strcmp(tl, f[3]) == 0 &&
		strcmp(pq_repetition_name(leaf->node->repetition), f[4]) == 0 &&
		strcmp(ct_name, f[5]) == 0 &&
		logical_matches(ours, expect_logical) &&
		leaf->max_def == atoi(f[7]) && leaf->max_rep == atoi(f[8]);
	UNIT_CHECKF(ok, "%s: %s: ours %s/%s/%s/%s/%s/%d/%d, tsv %s/%s/%s/%s/%s/%s/%s",
				file, f[1], pq_physical_type_name(leaf->node->physical), tl,
				pq_repetition_name(leaf->node->repetition), ct_name, ours,
				leaf->max_def, leaf->max_rep, f[2], f[3], f[4], f[5], f[6], f[7], f[8]);
	if (!ok)
		cs->mismatches++;

	/* chunk-level facts: encodings and codecs (union), stats, indexes */
	{
		const char *encs[16];
		const char *codecs[8];
		int			nenc = 0,
					ncodec = 0;
		int			with_stats = 0,
					with_ci = 0,
					with_oi = 0,
					with_bloom = 0;
		int			li = (int) (leaf - m->leaves);
		bool		ok2;

		for (int rg = 0; rg < m->num_row_groups; rg++)
		{
			const PqColumnChunkMeta *cc = &m->row_groups[rg].columns[li];
			const char *cn = cc->codec >= 0 && cc->codec < 8 ? codec_names[cc->codec] : "?";
			bool		seen = false;

			for (int e = 0; e < cc->num_encodings; e++)
			{
				const char *en = pq_encoding_name(cc->encodings[e]);
				bool		dup = false;

				for (int k = 0; k < nenc; k++)
					dup |= strcmp(encs[k], en) == 0;
				if (!dup && nenc < 16)
					encs[nenc++] = en;
			}
			for (int k = 0; k < ncodec; k++)
				seen |= strcmp(codecs[k], cn) == 0;
			if (!seen && ncodec < 8)
				codecs[ncodec++] = cn;
			with_stats += cc->has_statistics;
			with_ci += cc->has_column_index;
			with_oi += cc->has_offset_index;
			with_bloom += cc->has_bloom_filter;
		}
		ok2 = name_set_equals(f[9], encs, nenc) &&
			(m->num_row_groups == 0 || name_set_equals(f[10], codecs, ncodec)) &&
			(strcmp(f[11], "all") != 0 || with_stats == m->num_row_groups) &&
			(strcmp(f[11], "none") != 0 || with_stats == 0) &&
			((f[12][0] == 'y') == (with_ci > 0)) &&
			((f[13][0] == 'y') == (with_oi > 0)) &&
			((f[14][0] == 'y') == (with_bloom > 0));
		UNIT_CHECKF(ok2, "%s: %s: chunk facts differ (enc %s codec %s stats %s ci %s oi %s bloom %s;"
					" ours stats %d ci %d oi %d bloom %d of %d)",
					file, f[1], f[9], f[10], f[11], f[12], f[13], f[14],
					with_stats, with_ci, with_oi, with_bloom, m->num_row_groups);
		if (!ok2)
			cs->mismatches++;
	}
}

/* Read a whole TSV into lines (skipping '#' comments and the header). */
static char **
read_lines(const char *path, int *nlines)
{
	FILE	   *fp = fopen(path, "r");
	char	  **lines = NULL;
	int			n = 0,
				cap = 0;
	char		buf[16384];
	bool		header = true;

	*nlines = 0;
	if (fp == NULL)
		return NULL;
	while (fgets(buf, sizeof(buf), fp))
	{
		if (buf[0] == '#')
			continue;
		if (header)
		{
			header = false;
			continue;
		}
		if (n == cap)
		{
			cap = cap ? cap * 2 : 256;
			lines = realloc(lines, cap * sizeof(char *));
		}
		lines[n++] = strdup(buf);
	}
	fclose(fp);
	*nlines = n;
	return lines;
}

static void
check_file(const char *root, const char *rel, char **col_lines, int ncol,
		   char **man_lines, int nman, CorpusStats *cs)
{
	char		path[4096];
	DiskFile	df;
	PfcSource	src;
	PqFile	   *file = NULL;
	PqError		err;
	PqStatus	st;
	struct stat sb;
	bool		bad = strncmp(rel, "bad_data/", 9) == 0;
	bool		in_columns = false;
	const char *man_rows = NULL;
	const char *man_rgs = NULL;
	char		man_copy[16384];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	df.fp = fopen(path, "rb");
	if (df.fp == NULL || fstat(fileno(df.fp), &sb) != 0)
	{
		UNIT_CHECKF(false, "%s: cannot open", path);
		return;
	}
	cs->files++;
	src.read_at = disk_read_at;
	src.ctx = &df;
	src.size = (uint64_t) sb.st_size;
	st = pq_file_open(&file, &src, &pfc_malloc_allocator, &err);

	for (int i = 0; i < nman; i++)
	{
		size_t		l = strcspn(man_lines[i], "\t");

		if (strlen(rel) == l && strncmp(man_lines[i], rel, l) == 0)
		{
			char	   *f[20];

			snprintf(man_copy, sizeof(man_copy), "%s", man_lines[i]);
			if (split_tabs(man_copy, f, 20) >= 4)
			{
				man_rows = f[2];
				man_rgs = f[3];
			}
		}
	}
	for (int i = 0; i < ncol; i++)
	{
		size_t		l = strcspn(col_lines[i], "\t");

		if (strlen(rel) == l && strncmp(col_lines[i], rel, l) == 0)
			in_columns = true;
	}

	if (st != PQ_OK)
	{
		bool		encrypted_footer = man_rows && strcmp(man_rows, "?") == 0;

		printf("  %s: %s (status %d)\n", rel, err.message, st);
		if (bad)
			UNIT_CHECKF(st == PQ_ERR_CORRUPT || st == PQ_ERR_UNSUPPORTED,
						"%s: status %d", rel, st);
		else if (encrypted_footer)
			UNIT_CHECKF(st == PQ_ERR_UNSUPPORTED, "%s: status %d", rel, st);
		else
		{
			UNIT_CHECKF(false, "%s: failed to open: %s", rel, err.message);
			cs->mismatches++;
		}
		fclose(df.fp);
		return;
	}
	cs->opened++;
	{
		const PqFileMeta *m = pq_file_meta(file);
		int64_t		sum = 0;

		for (int rg = 0; rg < m->num_row_groups; rg++)
			sum += m->row_groups[rg].num_rows;
		if (!bad)
			UNIT_CHECKF(sum == m->num_rows, "%s: num_rows %lld, row groups sum %lld",
						rel, (long long) m->num_rows, (long long) sum);
		if (man_rows && strcmp(man_rows, "?") != 0)
		{
			cs->manifest_checked++;
			UNIT_CHECKF(m->num_rows == atoll(man_rows) &&
						m->num_row_groups == atoi(man_rgs),
						"%s: rows %lld/%d, manifest %s/%s", rel,
						(long long) m->num_rows, m->num_row_groups, man_rows, man_rgs);
		}
		else if (!man_rows)
			printf("  %s: not in MANIFEST.tsv\n", rel);

		/*
		 * This file's chunks hold only a dictionary page, which the bytes
		 * show at offset 4 (header 15 04 = type DICTIONARY_PAGE), while the
		 * footer says data_page_offset 0.
		 */
		if (strcmp(rel, "data/column_chunk_key_value_metadata.parquet") == 0 &&
			m->num_row_groups == 1)
		{
			uint64_t	start,
						length;
			uint8_t		hdr[2];

			pq_column_chunk_range(&m->row_groups[0].columns[0], &start, &length);
			UNIT_CHECK(start == 4 && length > 0);
			UNIT_CHECK(disk_read_at(&df, start, hdr, 2) == 0 &&
					   hdr[0] == 0x15 && hdr[1] == 0x04);
		}

		/* leaf count equals the TSV's row count for the file */
		if (in_columns)
		{
			int			rows = 0;

			for (int i = 0; i < ncol; i++)
			{
				size_t		l = strcspn(col_lines[i], "\t");
				char		copy[4096];
				char	   *f[17];

				if (strlen(rel) != l || strncmp(col_lines[i], rel, l) != 0)
					continue;
				rows++;
				snprintf(copy, sizeof(copy), "%s", col_lines[i]);
				if (split_tabs(copy, f, 17) < 16)
				{
					UNIT_CHECKF(false, "COLUMNS.tsv: short line for %s", rel);
					continue;
				}
				check_column_row(rel, m, f, cs);
			}
			UNIT_CHECKF(rows == m->num_leaves, "%s: %d leaves, COLUMNS.tsv has %d",
						rel, m->num_leaves, rows);
		}
	}
	pq_file_close(file);
	fclose(df.fp);
}

static bool
is_parquet_name(const char *name)
{
	size_t		n = strlen(name);

	if (n >= 8 && strcmp(name + n - 8, ".parquet") == 0)
		return true;
	return n >= 18 && strcmp(name + n - 18, ".parquet.encrypted") == 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Collect relative paths of Parquet files below root/sub, recursively. */
static void
collect(const char *root, const char *sub, char ***list, int *n, int *cap)
{
	char		path[4096];
	DIR		   *dir;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/%s", root, sub);
	dir = opendir(path);
	if (dir == NULL)
		return;
	while ((de = readdir(dir)) != NULL)
	{
		char		rel[4096];
		char		full[8192];
		struct stat sb;

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", sub, de->d_name);
		snprintf(full, sizeof(full), "%s/%s", root, rel);
		if (stat(full, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode))
			collect(root, rel, list, n, cap);
		else if (is_parquet_name(de->d_name))
		{
			if (*n == *cap)
			{
				*cap = *cap ? *cap * 2 : 256;
				*list = realloc(*list, *cap * sizeof(char *));
			}
			(*list)[(*n)++] = strdup(rel);
		}
	}
	closedir(dir);
}

static const char *
find_corpus(void)
{
	static char buf[4096];
	const char *env = getenv("PARQUET_TESTING_DIR");
	static const char *const candidates[] = {
		"../../shared/parquet-testing",	/* from test/ */
		"../shared/parquet-testing",	/* from the repository root */
		"../../../shared/parquet-testing",	/* from test/unit/ */
	};
	struct stat sb;

	if (env && *env)
	{
		snprintf(buf, sizeof(buf), "%s/COLUMNS.tsv", env);
		if (stat(buf, &sb) == 0)
			return env;
	}
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
	{
		snprintf(buf, sizeof(buf), "%s/COLUMNS.tsv", candidates[i]);
		if (stat(buf, &sb) == 0)
			return candidates[i];
	}
	return NULL;
}

static void
test_corpus(void)
{
	const char *root = find_corpus();
	char		path[4096];
	char	  **col_lines;
	char	  **man_lines;
	int			ncol,
				nman;
	char	  **files = NULL;
	int			nfiles = 0,
				cap = 0;
	CorpusStats cs = {0};
	static const char *const subs[] = {"data", "bad_data", "shredded_variant"};

	if (root == NULL)
	{
		printf("corpus: ../shared/parquet-testing not found, skipped\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/COLUMNS.tsv", root);
	col_lines = read_lines(path, &ncol);
	snprintf(path, sizeof(path), "%s/MANIFEST.tsv", root);
	man_lines = read_lines(path, &nman);
	UNIT_CHECK(ncol > 0 && nman > 0);

	for (size_t i = 0; i < 3; i++)
		collect(root, subs[i], &files, &nfiles, &cap);
	qsort(files, nfiles, sizeof(char *), cmp_str);
	for (int i = 0; i < nfiles; i++)
		check_file(root, files[i], col_lines, ncol, man_lines, nman, &cs);

	/* every file COLUMNS.tsv lists was found */
	for (int i = 0; i < ncol; i++)
	{
		char		name[4096];
		bool		found = false;

		snprintf(name, sizeof(name), "%.*s", (int) strcspn(col_lines[i], "\t"), col_lines[i]);
		for (int k = 0; k < nfiles && !found; k++)
			found = strcmp(files[k], name) == 0;
		UNIT_CHECKF(found, "COLUMNS.tsv file %s not found", name);
	}

	printf("corpus: %d files, %d opened, %d columns compared with COLUMNS.tsv, "
		   "%d row counts with MANIFEST.tsv, %d mismatches\n",
		   cs.files, cs.opened, cs.columns_checked, cs.manifest_checked, cs.mismatches);
	for (int i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	for (int i = 0; i < ncol; i++)
		free(col_lines[i]);
	for (int i = 0; i < nman; i++)
		free(man_lines[i]);
	free(col_lines);
	free(man_lines);
}

int
main(void)
{
	test_synthetic_file();
	test_damage();
	test_logical_types();
	test_out_of_memory();
	test_names();
	test_corpus();
	UNIT_MAIN_END("test_metadata");
}
