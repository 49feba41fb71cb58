/*-------------------------------------------------------------------------
 *
 * fuzz_dictionary_probe.c
 *	  libFuzzer target: open a file from arbitrary bytes and probe every
 *	  column chunk's dictionary with pq_read_dictionary().
 *
 * Oracles: statuses are from the documented set; a returned dictionary's
 * entries lie inside its page body (every byte is read so ASan sees an
 * out-of-range view) and fixed-width entries have the type's width; the
 * source is never read outside the file.  A second pass runs with an
 * allocator that fails after a data-derived number of calls; LeakSanitizer
 * checks that error paths release everything.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_dictionary_probe.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/dictionary_probe.h"
#include "fuzz_support.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
probe_all(const uint8_t *data, size_t size, const PfcAllocator *alloc)
{
	MemFile		m = {data, size};
	PfcSource	source = {mem_read_at, size, &m};
	PqFile	   *file = NULL;
	PqError		err;
	const PqFileMeta *meta;

	if (pq_file_open(&file, &source, alloc, &err) != PQ_OK)
		return;
	meta = pq_file_meta(file);
	for (int rg = 0; rg < meta->num_row_groups && rg < 64; rg++)
		for (int leaf = 0; leaf < meta->num_leaves &&
			 leaf < meta->row_groups[rg].num_columns && leaf < 64; leaf++)
		{
			PqDictionary *d = NULL;
			PqStatus	st = pq_read_dictionary(file, rg, leaf, alloc, &d, &err);
			const PqSchemaNode *node = meta->leaves[leaf].node;

			if (st != PQ_OK && st != PQ_ERR_IO && st != PQ_ERR_CORRUPT &&
				st != PQ_ERR_UNSUPPORTED && st != PQ_ERR_CHECKSUM)
				abort();
			if (st != PQ_OK && d != NULL)
				abort();
			if (d == NULL)
				continue;
			for (uint32_t i = 0; i < d->num_values; i++)
			{
				if (node->physical == PQ_INT32 && d->values[i].len != 4)
					abort();
				if (node->physical == PQ_INT64 && d->values[i].len != 8)
					abort();
				for (uint32_t k = 0; k < d->values[i].len; k++)
					fuzz_sink ^= d->values[i].data[k];
			}
			pq_dictionary_free(d);
		}
	pq_file_close(file);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	probe_all(data, size, &pfc_malloc_allocator);
	if (size > 0)
	{
		FailingAlloc fa = {.calls_left = (long) (data[size / 2] % 64)};
		PfcAllocator alloc = {failing_alloc, failing_release, &fa};

		probe_all(data, size, &alloc);
	}
	return 0;
}
