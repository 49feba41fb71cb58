/*-------------------------------------------------------------------------
 *
 * pqcat.c
 *	  Print the leaf columns of a Parquet file as text, through the column
 *	  readers of the format layer (a debugging aid).
 *
 *	  pqcat [-b BATCH] [-c] FILE [column...]
 *
 * For each row group and selected leaf column (all by default; a column
 * is named by its dotted path or its leaf index) it prints one line per
 * level entry: "rg.col row: value", with "def=D rep=R" for columns that have
 * levels.  Byte arrays are printed as text when printable, else as \xNN.
 * -c verifies page checksums.  Exit status 1 on the first error.
 *
 * IDENTIFICATION
 *	  test/tools/pqcat.c
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parquet/parquet.h"

static int
fd_read_at(void *ctx, uint64_t offset, void *buf, size_t len)
{
	int			fd = *(int *) ctx;
	size_t		done = 0;

	while (done < len)
	{
		ssize_t		n = pread(fd, (char *) buf + done, len - done, (off_t) (offset + done));

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (n == 0)
			return EIO;
		done += (size_t) n;
	}
	return 0;
}

static void
print_bytes(const uint8_t *p, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
	{
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			putchar(p[i]);
		else
			printf("\\x%02x", p[i]);
	}
}

static void
print_value(const PqLeaf *leaf, const uint8_t *v)
{
	switch (leaf->node->physical)
	{
		case PQ_BOOLEAN:
			printf("%s", *v ? "true" : "false");
			break;
		case PQ_INT32:
			{
				int32_t		x;

				memcpy(&x, v, 4);
				printf("%" PRId32, x);
				break;
			}
		case PQ_INT64:
			{
				int64_t		x;

				memcpy(&x, v, 8);
				printf("%" PRId64, x);
				break;
			}
		case PQ_FLOAT:
			{
				float		x;

				memcpy(&x, v, 4);
				printf("%.9g", x);
				break;
			}
		case PQ_DOUBLE:
			{
				double		x;

				memcpy(&x, v, 8);
				printf("%.17g", x);
				break;
			}
		case PQ_INT96:
			print_bytes(v, 12);
			break;
		case PQ_FIXED_LEN_BYTE_ARRAY:
			print_bytes(v, (uint32_t) leaf->node->type_length);
			break;
		case PQ_BYTE_ARRAY:
			{
				CdcByteView view;

				memcpy(&view, v, sizeof(view));
				print_bytes(view.ptr, view.len);
				break;
			}
	}
}

static bool
selected(const PqFileMeta *meta, int leaf, int argc, char **argv)
{
	if (argc == 0)
		return true;
	for (int i = 0; i < argc; i++)
	{
		char	   *end;
		long		n = strtol(argv[i], &end, 10);

		if ((*end == '\0' && n == leaf) || strcmp(argv[i], meta->leaves[leaf].path) == 0)
			return true;
	}
	return false;
}

static int
dump_column(PqFile *file, int rg, int leaf, uint32_t batch_rows, bool verify_crc)
{
	const PqFileMeta *meta = pq_file_meta(file);
	const PqLeaf *lf = &meta->leaves[leaf];
	PqColumnReaderOptions options = {.verify_crc = verify_crc};
	PqColumnReader *reader;
	PqColumnBatch batch;
	PqError		err;
	uint64_t	row = 0;

	if (pq_column_reader_open(&reader, file, rg, leaf, &options,
							  &pfc_malloc_allocator, &err) != PQ_OK)
		goto fail;
	for (;;)
	{
		uint32_t	v = 0;

		if (pq_column_reader_read(reader, batch_rows, &batch, &err) != PQ_OK)
		{
			pq_column_reader_close(reader);
			goto fail;
		}
		if (batch.num_rows == 0)
			break;
		for (uint32_t i = 0; i < batch.num_levels; i++)
		{
			bool		is_value;

			if (lf->max_rep > 0)
			{
				if (batch.rep_levels[i] == 0 && i > 0)
					row++;
				is_value = batch.def_levels == NULL || batch.def_levels[i] == lf->max_def;
			}
			else
				is_value = batch.is_null == NULL || !batch.is_null[i];
			printf("%d.%s %" PRIu64 ":", rg, lf->path, row);
			if (lf->max_def > 0 || lf->max_rep > 0)
				printf(" def=%d rep=%d", batch.def_levels ? batch.def_levels[i] : 0,
					   batch.rep_levels ? batch.rep_levels[i] : 0);
			putchar(' ');
			if (!is_value)
				printf("NULL");
			else if (lf->max_rep > 0)
				print_value(lf, (const uint8_t *) batch.values + (size_t) (v++) * batch.value_width);
			else
				print_value(lf, (const uint8_t *) batch.values + (size_t) i * batch.value_width);
			putchar('\n');
			if (lf->max_rep == 0)
				row++;
		}
		if (lf->max_rep > 0)
			row++;
	}
	pq_column_reader_close(reader);
	return 0;

fail:
	fprintf(stderr, "pqcat: row group %d column %s page %d: %s%s%s\n",
			err.row_group, lf->path, err.page, err.message,
			err.detail[0] ? ": " : "", err.detail);
	return 1;
}

int
main(int argc, char **argv)
{
	uint32_t	batch_rows = 1024;
	bool		verify_crc = false;
	int			fd;
	struct stat st;
	PfcSource	source;
	PqFile	   *file;
	PqError		err;
	const PqFileMeta *meta;
	int			opt;

	while ((opt = getopt(argc, argv, "b:c")) != -1)
	{
		if (opt == 'b')
			batch_rows = (uint32_t) strtoul(optarg, NULL, 10);
		else if (opt == 'c')
			verify_crc = true;
		else
			return 2;
	}
	if (optind >= argc || batch_rows == 0)
	{
		fprintf(stderr, "usage: pqcat [-b BATCH] [-c] FILE [column...]\n");
		return 2;
	}
	fd = open(argv[optind], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0)
	{
		perror(argv[optind]);
		return 1;
	}
	source.read_at = fd_read_at;
	source.size = (uint64_t) st.st_size;
	source.ctx = &fd;
	if (pq_file_open(&file, &source, &pfc_malloc_allocator, &err) != PQ_OK)
	{
		fprintf(stderr, "pqcat: %s\n", err.message);
		return 1;
	}
	meta = pq_file_meta(file);
	for (int rg = 0; rg < meta->num_row_groups; rg++)
		for (int leaf = 0; leaf < meta->num_leaves; leaf++)
			if (selected(meta, leaf, argc - optind - 1, argv + optind + 1) &&
				dump_column(file, rg, leaf, batch_rows, verify_crc) != 0)
			{
				pq_file_close(file);
				return 1;
			}
	pq_file_close(file);
	close(fd);
	return 0;
}
