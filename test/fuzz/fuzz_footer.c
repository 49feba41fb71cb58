/*-------------------------------------------------------------------------
 *
 * fuzz_footer.c
 *	  libFuzzer target: pq_file_open on arbitrary bytes.
 *
 * Input: a whole file when it starts with "PAR1"; otherwise the bytes are
 * taken as the Thrift FileMetaData and wrapped as "PAR1", 256 zero data
 * bytes, footer, length, "PAR1", so the fuzzer spends its time in the
 * footer decoder rather than on the magic.
 *
 * Oracles: the status is OK, CORRUPT or UNSUPPORTED (IO only from the
 * failing allocator, with ENOMEM); an opened file satisfies the invariants
 * readers rely on (one chunk per leaf, chunk ranges inside the data region,
 * tree links consistent, levels in range), and every string and statistics
 * byte is read so ASan sees any dangling pointer.  The open is repeated
 * with an allocator that fails at the n-th call; LeakSanitizer checks that
 * a failed open releases everything.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_footer.c
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/parquet.h"
#include "fuzz_support.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
touch_str(const char *s)
{
	if (s != NULL)
		touch(s, strlen(s) + 1);
}

static void
check_node(const PqSchemaNode *node, const PqFileMeta *m, int depth)
{
	touch_str(node->name);
	if (depth > 200 || node->max_rep > node->max_def)
		abort();
	if (node->is_leaf)
	{
		if (node->leaf_index < 0 || node->leaf_index >= m->num_leaves ||
			m->leaves[node->leaf_index].node != node ||
			node->physical > PQ_FIXED_LEN_BYTE_ARRAY ||
			(node->physical == PQ_FIXED_LEN_BYTE_ARRAY && node->type_length <= 0) ||
			node->num_children != 0)
			abort();
		return;
	}
	for (int i = 0; i < node->num_children; i++)
	{
		if (node->children[i]->parent != node)
			abort();
		check_node(node->children[i], m, depth + 1);
	}
}

static void
check_meta(const PqFileMeta *m, uint64_t file_size)
{
	uint64_t	data_end = file_size - 8 - m->footer_length;

	touch_str(m->created_by);
	for (int i = 0; i < m->num_key_values; i++)
	{
		touch_str(m->key_values[i].key);
		if (m->key_values[i].value)
			touch(m->key_values[i].value, m->key_values[i].value_len + 1);
	}
	if (m->root == NULL || m->root->parent != NULL)
		abort();
	check_node(m->root, m, 0);
	for (int i = 0; i < m->num_leaves; i++)
	{
		touch_str(m->leaves[i].path);
		if (m->leaves[i].node->leaf_index != i)
			abort();
	}
	for (int rg = 0; rg < m->num_row_groups; rg++)
	{
		const PqRowGroupMeta *g = &m->row_groups[rg];

		if (g->num_columns != m->num_leaves || g->num_rows < 0)
			abort();
		for (int c = 0; c < g->num_columns; c++)
		{
			const PqColumnChunkMeta *cc = &g->columns[c];
			int64_t		start;

			touch_str(cc->file_path);
			touch(cc->encodings, sizeof(int32_t) * (size_t) cc->num_encodings);
			if (cc->has_statistics)
			{
				static const uint32_t widths[] = {1, 4, 8, 12, 4, 8, 0, 0};
				const PqSchemaNode *leaf = m->leaves[c].node;
				uint32_t	w = widths[leaf->physical];

				if (cc->statistics.has_min)
					touch(cc->statistics.min, cc->statistics.min_len);
				if (cc->statistics.has_max)
					touch(cc->statistics.max, cc->statistics.max_len);
				/* fixed-width values are exactly as wide as their type */
				if (!cc->is_encrypted && w > 0 &&
					((cc->statistics.has_min && cc->statistics.min_len != w) ||
					 (cc->statistics.has_max && cc->statistics.max_len != w)))
					abort();
			}
			for (int k = 0; k < cc->num_key_values; k++)
				touch_str(cc->key_values[k].key);
			if (cc->is_encrypted || cc->file_path != NULL)
				continue;
			if (cc->type != m->leaves[c].node->physical || cc->num_values < 0)
				abort();
			start = cc->has_dictionary_page_offset &&
				(cc->dictionary_page_offset < cc->data_page_offset ||
				 cc->data_page_offset < 4) ?
				cc->dictionary_page_offset : cc->data_page_offset;
			if (start < 4 || cc->total_compressed_size < 0 ||
				(uint64_t) start + (uint64_t) cc->total_compressed_size > data_end)
				abort();
			if (cc->has_column_index &&
				(cc->column_index_offset < 4 || cc->column_index_length < 0 ||
				 (uint64_t) cc->column_index_offset + (uint64_t) cc->column_index_length > data_end))
				abort();
			if (cc->has_offset_index &&
				(cc->offset_index_offset < 4 || cc->offset_index_length < 0 ||
				 (uint64_t) cc->offset_index_offset + (uint64_t) cc->offset_index_length > data_end))
				abort();
		}
	}
}

static void
open_once(const uint8_t *file, size_t len, const PfcAllocator *alloc, bool may_oom)
{
	MemFile		m = {file, len};
	PfcSource	src = {mem_read_at, len, &m};
	PqFile	   *pf = NULL;
	PqError		err;
	PqStatus	st;

	st = pq_file_open(&pf, &src, alloc, &err);
	switch (st)
	{
		case PQ_OK:
			if (pf == NULL)
				abort();
			check_meta(pq_file_meta(pf), len);
			pq_file_close(pf);
			break;
		case PQ_ERR_CORRUPT:
		case PQ_ERR_UNSUPPORTED:
			if (pf != NULL || err.message[0] == '\0')
				abort();
			break;
		case PQ_ERR_IO:
			if (!may_oom || err.sys_errno != ENOMEM)
				abort();
			break;
		default:
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *file;
	size_t		len;
	FailingAlloc fa;
	PfcAllocator failing = {failing_alloc, failing_release, &fa};

	if (size >= 4 && memcmp(data, "PAR1", 4) == 0)
	{
		file = malloc(size);
		memcpy(file, data, size);
		len = size;
	}
	else
	{
		len = 4 + 256 + size + 8;
		file = calloc(1, len);
		memcpy(file, "PAR1", 4);
		memcpy(file + 260, data, size);
		file[len - 8] = (uint8_t) size;
		file[len - 7] = (uint8_t) (size >> 8);
		file[len - 6] = (uint8_t) (size >> 16);
		file[len - 5] = (uint8_t) (size >> 24);
		memcpy(file + len - 4, "PAR1", 4);
	}

	open_once(file, len, &pfc_malloc_allocator, false);

	/* Fail at the n-th allocation; n from the input so runs differ. */
	fa.calls_left = size > 0 ? data[size - 1] % 6 : 0;
	open_once(file, len, &failing, true);

	free(file);
	return 0;
}
