/*-------------------------------------------------------------------------
 *
 * fuzz_column_reader.c
 *	  libFuzzer target: open a file from arbitrary bytes and read every
 *	  column of every row group through the column readers.
 *
 * The batch size comes from the last input byte (1..255 rows), and every
 * other chunk starts with a skip, so page skipping, rows spanning batches and
 * pages, and decode-and-drop all get exercised.  Oracles: statuses are from
 * the documented set; batches satisfy the contract of parquet.h (levels in
 * range, flat batches row-aligned, repeated batches start a row, dense value
 * counts match the definition levels); every value byte and every byte-array
 * view is read so ASan sees a dangling or out-of-range pointer.  A second
 * pass runs with an allocator that fails after a data-derived number of
 * calls; LeakSanitizer checks error paths release everything.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_column_reader.c
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

/* Stop a column after this many level entries (keeps each run fast). */
#define MAX_LEVELS_PER_COLUMN	(1 << 20)

static void
check_status(PqStatus s, const PqError *err)
{
	if (s != PQ_OK && s != PQ_ERR_CORRUPT && s != PQ_ERR_UNSUPPORTED &&
		s != PQ_ERR_CHECKSUM && !(s == PQ_ERR_IO && err->sys_errno == ENOMEM))
		abort();
	if (s != PQ_OK && err->status != s)
		abort();
}

static void
check_batch(const PqLeaf *leaf, const PqColumnBatch *b, uint32_t max_rows)
{
	uint32_t	defined = 0;

	if (b->num_rows > max_rows || b->num_values > b->num_levels)
		abort();
	if (leaf->max_rep == 0 && b->num_levels != b->num_rows)
		abort();
	if (leaf->max_rep > 0 && b->rep_levels[0] != 0)
		abort();
	for (uint32_t i = 0; i < b->num_levels; i++)
	{
		int16_t		d = b->def_levels ? b->def_levels[i] : leaf->max_def;

		if (d < 0 || d > leaf->max_def)
			abort();
		if (b->rep_levels && (b->rep_levels[i] < 0 || b->rep_levels[i] > leaf->max_rep))
			abort();
		defined += d == leaf->max_def;
		if (leaf->max_rep == 0 && b->is_null && b->is_null[i] != (d < leaf->max_def))
			abort();
	}
	if (defined != b->num_values)
		abort();
	if (leaf->max_rep == 0 && b->is_null == NULL && defined != b->num_levels)
		abort();

	/* read every value, and every byte a view points at */
	{
		uint32_t	n = leaf->max_rep > 0 ? b->num_values : b->num_levels;

		touch(b->values, (size_t) n * b->value_width);
		if (leaf->node->physical == PQ_BYTE_ARRAY)
		{
			const CdcByteView *v = b->values;

			for (uint32_t i = 0; i < n; i++)
				if (leaf->max_rep > 0 || b->is_null == NULL || !b->is_null[i])
					touch(v[i].ptr, v[i].len);
		}
	}
}

static void
read_all(const uint8_t *data, size_t size, const PfcAllocator *alloc,
		 uint32_t batch_rows)
{
	MemFile		mem = {data, size};
	PfcSource	source = {mem_read_at, size, &mem};
	PqFile	   *file;
	PqError		err;
	PqStatus	s;
	const PqFileMeta *meta;

	s = pq_file_open(&file, &source, alloc, &err);
	check_status(s, &err);
	if (s != PQ_OK)
		return;
	meta = pq_file_meta(file);
	for (int rg = 0; rg < meta->num_row_groups; rg++)
	{
		for (int leaf = 0; leaf < meta->num_leaves; leaf++)
		{
			PqColumnReaderOptions options = {.verify_crc = (leaf & 1) == 0};
			PqColumnReader *reader;
			PqColumnBatch batch;
			uint64_t	levels = 0;

			s = pq_column_reader_open(&reader, file, rg, leaf, &options, alloc, &err);
			check_status(s, &err);
			if (s != PQ_OK)
				continue;
			if ((rg + leaf) & 1)
			{
				s = pq_column_reader_skip(reader, batch_rows * 3 / 2, &err);
				check_status(s, &err);
			}
			while (s == PQ_OK && levels < MAX_LEVELS_PER_COLUMN)
			{
				s = pq_column_reader_read(reader, batch_rows, &batch, &err);
				check_status(s, &err);
				if (s != PQ_OK || batch.num_rows == 0)
					break;
				check_batch(&meta->leaves[leaf], &batch, batch_rows);
				levels += batch.num_levels;
			}
			pq_column_reader_close(reader);
		}
	}
	pq_file_close(file);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t	batch_rows;

	if (size < 12)
		return 0;
	batch_rows = data[size - 1] ? data[size - 1] : 1024;
	read_all(data, size, &pfc_malloc_allocator, batch_rows);

	{
		FailingAlloc fa = {.calls_left = (long) (data[size / 2] % 64)};
		PfcAllocator alloc = {failing_alloc, failing_release, &fa};

		read_all(data, size, &alloc, batch_rows);
	}
	return 0;
}
