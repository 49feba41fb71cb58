/*-------------------------------------------------------------------------
 *
 * fuzz_amudai_shard.c
 *	  libFuzzer target: arbitrary bytes as a whole Amudai shard file.
 *
 * Opens the bytes as a root file (a resolver serves the same bytes for
 * every stripe-file url, so two-level paths run too), then reads the shard
 * field descriptor, probes each stripe field's Bloom filter, and reads every
 * field of every stripe in batches, up to a bounded number of positions per
 * field so a hostile position count cannot stall the run.
 *
 * Oracles: no crash, no leak; a successful read returns exactly the asked
 * count, offsets of strings start at 0 and never decrease, and null flags
 * are 0 or 1.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_amudai_shard.c
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "amudai/amudai.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_POSITIONS	4096
#define BATCH			700
#define MAX_FIELDS		64
#define MAX_STRIPES		8

typedef struct FuzzFile
{
	const uint8_t *data;
	size_t		len;
} FuzzFile;

static int
fuzz_read_at(void *ctx, uint64_t off, void *buf, size_t len)
{
	FuzzFile   *f = ctx;

	if (off > f->len || len > f->len - off)
		return EIO;
	memcpy(buf, f->data + off, len);
	return 0;
}

static int
fuzz_open(void *ctx, const char *url, size_t url_len, PfcSource *out)
{
	(void) url;
	(void) url_len;
	out->read_at = fuzz_read_at;
	out->size = ((FuzzFile *) ctx)->len;
	out->ctx = ctx;
	return 0;
}

static void
fuzz_close(void *ctx, PfcSource *s)
{
	(void) ctx;
	(void) s;
}

static void
read_field(AmShard *shard, uint32_t stripe, uint32_t id)
{
	AmFieldReader *fr;
	AmColumnBatch b;
	AmError		err;
	uint64_t	n;

	if (am_field_reader_open(&fr, shard, stripe, id, &err) != AM_OK)
		return;
	n = am_field_reader_position_count(fr);
	if (n > MAX_POSITIONS)
		n = MAX_POSITIONS;
	for (uint64_t pos = 0; pos < n; pos += BATCH)
	{
		size_t		k = n - pos < BATCH ? (size_t) (n - pos) : BATCH;

		if (am_field_reader_read(fr, pos, k, &b, &err) != AM_OK)
			break;
		if (b.count != k)
			abort();
		for (size_t i = 0; b.nulls != NULL && i < k; i++)
			if (b.nulls[i] > 1)
				abort();
		if (b.bytes != NULL)
		{
			if (b.offsets[0] != 0 || b.offsets[k] != b.bytes_len)
				abort();
			for (size_t i = 0; i < k; i++)
				if (b.offsets[i + 1] < b.offsets[i])
					abort();
		}
	}
	am_field_reader_close(fr);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzFile	file;
	PfcSource	src;
	AmResolver	res;
	AmShard    *shard;
	AmError		err;
	uint8_t    *copy = malloc(size > 0 ? size : 1);

	memcpy(copy, data, size);
	file.data = copy;
	file.len = size;
	src.read_at = fuzz_read_at;
	src.size = size;
	src.ctx = &file;
	res.open = fuzz_open;
	res.close = fuzz_close;
	res.ctx = &file;
	if (am_shard_open(&shard, &src, &res, &pfc_malloc_allocator, &err) == AM_OK)
	{
		const AmSchema *schema = am_shard_schema(shard);
		uint32_t	nfields = schema->schema_id_count < MAX_FIELDS ?
			schema->schema_id_count : MAX_FIELDS;
		uint32_t	nstripes = am_shard_stripe_count(shard) < MAX_STRIPES ?
			am_shard_stripe_count(shard) : MAX_STRIPES;

		for (uint32_t id = 0; id < nfields; id++)
		{
			AmFieldDescriptor fd;
			bool		present;

			(void) am_shard_field_descriptor(shard, id, &present, &fd, &err);
			for (uint32_t s = 0; s < nstripes; s++)
			{
				AmStripeFieldDescriptor sfd;
				int			anchor;

				if (am_shard_stripe_field(shard, s, id, &present, &sfd, &anchor,
										  &err) == AM_OK && present)
					(void) am_sbbf_might_contain(&sfd.field, data, size < 16 ? size : 16);
				read_field(shard, s, id);
			}
		}
		am_shard_close(shard);
	}
	free(copy);
	return 0;
}
