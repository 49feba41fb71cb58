/*-------------------------------------------------------------------------
 *
 * test_amudai_shard.c
 *	  The worked example of the Amudai format notes (Appendix A: one Int64
 *	  column, 3 rows, Plain, single file), built byte by byte from the
 *	  document's tables, then read through every layer; plus hostile
 *	  variations of it (bad magic, checksums, truncations, ranges).
 *
 * The shard bytes come from this file only: a test-local protobuf encoder
 * (amudai_test_util.h), a hand-laid FlatBuffers schema, the block and block
 * map exactly at the offsets Appendix A lists, and checksums from libxxhash
 * directly.
 *
 * IDENTIFICATION
 *	  test/unit/test_amudai_shard.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "amudai_test_util.h"

static const int64_t example_values[3] = {42, -7, (INT64_C(1) << 40) + 5};

/*
 * The Schema of Appendix A as FlatBuffers bytes, laid out by hand:
 * Schema{fields:[Field{DataType{basic_type Int64 (5), schema_id 0 (default,
 * omitted), parent 0xFFFFFFFF, field_name "x", children [], signed true}}],
 * schema_id_count 1}.
 */
static const uint8_t example_schema[100] = {
	/* 0: root uoffset -> Schema table at 12 */
	12, 0, 0, 0,
	/* 4: Schema vtable: 8 bytes, table 12 bytes, fields @4, count @8 */
	8, 0, 12, 0, 4, 0, 8, 0,
	/* 12: Schema table: soffset 8 (vtable at 4) */
	8, 0, 0, 0,
	/* 16: fields uoffset -> 24 */
	8, 0, 0, 0,
	/* 20: schema_id_count = 1 */
	1, 0, 0, 0,
	/* 24: fields vector: 1 element, uoffset at 28 -> 40 */
	1, 0, 0, 0, 12, 0, 0, 0,
	/* 32: Field vtable: 6 bytes, table 8, data_type @4; 2 pad bytes */
	6, 0, 8, 0, 4, 0, 0, 0,
	/* 40: Field table: soffset 8 (vtable at 32); data_type uoffset at 44 -> 68 */
	8, 0, 0, 0, 24, 0, 0, 0,
	/* 48: DataType vtable: 18 bytes, table 20; slots basic_type @16,
	 * schema_id absent, parent @4, name @8, aliases absent, children @12,
	 * signed @17; 2 pad bytes */
	18, 0, 20, 0, 16, 0, 0, 0, 4, 0, 8, 0, 0, 0, 12, 0, 17, 0, 0, 0,
	/* 68: DataType table: soffset 20 (vtable at 48) */
	20, 0, 0, 0,
	/* 72: parent_schema_id 0xFFFFFFFF */
	0xFF, 0xFF, 0xFF, 0xFF,
	/* 76: name uoffset -> 88; 80: children uoffset -> 96 */
	12, 0, 0, 0, 16, 0, 0, 0,
	/* 84: basic_type Int64, signed true, 2 pad bytes */
	5, 1, 0, 0,
	/* 88: "x" NUL, padded */
	1, 0, 0, 0, 'x', 0, 0, 0,
	/* 96: children: empty vector */
	0, 0, 0, 0
};

/* FieldDescriptor of Appendix A: position_count 3, null_count 0, min/max. */
static void
example_field_descriptor(TBuf *fd)
{
	TBuf		rs = {0},
				minv = {0},
				maxv = {0};

	pb_fixed64(fd, 1, 3);
	pb_fixed64(fd, 2, 0);		/* optional: written although zero */
	pb_uint(&minv, 4, (uint64_t) example_values[1]);	/* 10-byte varint */
	pb_uint(&maxv, 4, (uint64_t) example_values[2]);
	pb_msg(&rs, 1, &minv);
	pb_uint(&rs, 2, 1);
	pb_msg(&rs, 3, &maxv);
	pb_uint(&rs, 4, 1);
	pb_msg(fd, 6, &rs);
}

/* A DataRefArray with one entry (url ""). */
static void
example_ref_array(TBuf *a, uint64_t start, uint64_t end)
{
	uint8_t		packed[8];

	pb_bytes(a, 2, "", 0);
	for (int i = 0; i < 8; i++)
		packed[i] = (uint8_t) (start >> (8 * i));
	pb_bytes(a, 3, packed, 8);
	for (int i = 0; i < 8; i++)
		packed[i] = (uint8_t) (end >> (8 * i));
	pb_bytes(a, 4, packed, 8);
}

typedef struct ExampleOffsets
{
	size_t		sfd_start;		/* StripeFieldDescriptor envelope */
	size_t		schema_start;
	size_t		dir_start;
} ExampleOffsets;

/* The whole Appendix A file. */
static void
build_example(TBuf *f, ExampleOffsets *off)
{
	TBuf		blk = {0},
				sfd = {0},
				fd = {0},
				enc = {0},
				nat = {0},
				buf = {0},
				arr = {0},
				sl = {0},
				sd = {0},
				url = {0},
				dir = {0},
				schema = {0};
	uint64_t	sfd_s,
				sfd_e,
				arr_s,
				arr_e,
				sl_s,
				sl_e,
				url_s,
				url_e,
				fd_s,
				fd_e,
				sarr_s,
				sarr_e,
				sch_s,
				sch_e,
				dir_s,
				dir_e;
	static const uint8_t frame[8] = {0x61, 0x6d, 0x75, 0x64, 0x00, 0x01, 0x00, 0x00};

	/* 0-7 header, 8-63 zeros */
	tb_put(f, frame, 8);
	tb_zeros(f, 56);

	/* 64-103: block 0 */
	tb_u32(&blk, 0);			/* presence_size */
	tb_u32(&blk, 26);			/* values_size */
	tb_u16(&blk, 1);			/* Plain */
	for (int i = 0; i < 3; i++)
		tb_u64(&blk, (uint64_t) example_values[i]);
	tb_zeros(&blk, 2);
	tb_u32(&blk, t_checksum32(blk.data, 36));
	tb_put(f, blk.data, blk.len);
	tb_free(&blk);
	/* 104-111: pad to 48 bytes of data section */
	tb_zeros(f, 8);
	/* 112-151: segment record */
	tb_u64(f, 0);				/* first_logical_pos */
	tb_u64(f, 0);				/* first_block_offset */
	tb_u32(f, 3);				/* min_logical_size */
	tb_u32(f, 40);				/* min_block_size */
	tb_byte(f, 8);				/* logical_size_bits */
	tb_byte(f, 8);				/* block_size_bits */
	tb_u16(f, 1);				/* block_count */
	tb_byte(f, 0);				/* packed logical delta */
	tb_zeros(f, 3);				/* pad to 32 */
	tb_byte(f, 0);				/* packed block delta */
	tb_zeros(f, 7);				/* pad to 40 */
	/* segment logical offsets [0, 3], record offsets [0, 40] */
	tb_u64(f, 0);
	tb_u64(f, 3);
	tb_u64(f, 0);
	tb_u64(f, 40);
	/* footer */
	tb_u64(f, 3);
	tb_u64(f, 1);
	tb_u64(f, 1);
	tb_u64(f, 1024);
	tb_u64(f, 40);

	/* StripeFieldDescriptor */
	example_field_descriptor(&fd);
	pb_msg(&sfd, 1, &fd);
	pb_data_ref(&buf, 2, 64, 224);
	pb_data_ref(&buf, 3, 112, 224);
	pb_fixed64(&buf, 4, 1);
	pb_uint(&buf, 5, 1);
	pb_uint(&buf, 6, 1);
	pb_msg(&nat, 1, &buf);
	pb_msg(&enc, 1, &nat);
	pb_msg(&sfd, 2, &enc);
	tb_envelope(f, &sfd, &sfd_s, &sfd_e);
	off->sfd_start = sfd_s;
	tb_free(&sfd);

	/* stripe field list */
	example_ref_array(&arr, sfd_s, sfd_e);
	tb_envelope(f, &arr, &arr_s, &arr_e);
	tb_free(&arr);

	/* StripeList */
	pb_data_ref(&sd, 2, arr_s, arr_e);
	pb_fixed64(&sd, 4, 3);
	pb_msg(&sl, 1, &sd);
	tb_envelope(f, &sl, &sl_s, &sl_e);
	tb_free(&sl);

	/* UrlList: empty */
	tb_envelope(f, &url, &url_s, &url_e);

	/* shard FieldDescriptor and its list */
	example_field_descriptor(&fd);
	tb_envelope(f, &fd, &fd_s, &fd_e);
	tb_free(&fd);
	example_ref_array(&arr, fd_s, fd_e);
	tb_envelope(f, &arr, &sarr_s, &sarr_e);
	tb_free(&arr);

	/* schema */
	tb_put(&schema, example_schema, sizeof(example_schema));
	tb_envelope(f, &schema, &sch_s, &sch_e);
	off->schema_start = sch_s;
	tb_free(&schema);

	/* ShardDirectory, L, footer */
	pb_data_ref(&dir, 1, sch_s, sch_e);
	pb_data_ref(&dir, 3, sarr_s, sarr_e);
	pb_data_ref(&dir, 4, sl_s, sl_e);
	pb_data_ref(&dir, 5, url_s, url_e);
	pb_fixed64(&dir, 7, 3);
	pb_fixed64(&dir, 9, 1);
	tb_envelope(f, &dir, &dir_s, &dir_e);
	off->dir_start = dir_s;
	tb_u32(f, (uint32_t) dir.len);
	tb_free(&dir);
	tb_put(f, frame, 8);
}

static AmStatus
open_bytes(const uint8_t *data, size_t len, AmShard **shard, AmError *err)
{
	static MemFile mf;
	PfcSource	src;

	mf.data = data;
	mf.len = len;
	mf.fail_errno = 0;
	src = mem_source(&mf);
	return am_shard_open(shard, &src, NULL, &pfc_malloc_allocator, err);
}

static void
test_example_metadata(void)
{
	TBuf		f = {0};
	ExampleOffsets off;
	AmShard    *shard = NULL;
	AmError		err;
	AmStatus	st;

	build_example(&f, &off);
	UNIT_CHECK(f.len > 224);
	t_dump_seed("appendix_a", NULL, 0, f.data, f.len);
	st = open_bytes(f.data, f.len, &shard, &err);
	UNIT_CHECKF(st == AM_OK, "open: %s", err.message);
	if (st != AM_OK)
	{
		tb_free(&f);
		return;
	}

	{
		const AmShardDirectory *d = am_shard_directory(shard);
		const AmSchema *s = am_shard_schema(shard);
		const AmStripeDirectory *sd = am_shard_stripe(shard, 0);

		UNIT_CHECK(d->total_record_count == 3);
		UNIT_CHECK(d->stripe_count == 1);
		UNIT_CHECK(d->deleted_record_count == 0);
		UNIT_CHECK(!d->has_raw_data_size);
		UNIT_CHECK(s->schema_id_count == 1);
		UNIT_CHECK(s->num_fields == 1);
		UNIT_CHECK(s->fields[0] == 0);
		UNIT_CHECK(s->nodes[0].basic_type == AM_TYPE_INT64);
		UNIT_CHECK(s->nodes[0].is_signed);
		UNIT_CHECK(s->nodes[0].parent_id == AM_NO_PARENT);
		UNIT_CHECK(s->nodes[0].name.len == 1 && s->nodes[0].name.data[0] == 'x');
		UNIT_CHECK(s->nodes[0].num_children == 0);
		UNIT_CHECK(s->nodes[0].fixed_size == 0);
		UNIT_CHECK(s->nodes[0].extension_label.len == 0);
		UNIT_CHECK(am_shard_find_field(shard, "x", 1) == 0);
		UNIT_CHECK(am_shard_find_field(shard, "y", 1) == -1);
		UNIT_CHECK(am_shard_stripe_count(shard) == 1);
		UNIT_CHECK(sd != NULL && sd->total_record_count == 3 && sd->shard_position == 0);
		UNIT_CHECK(am_shard_stripe(shard, 1) == NULL);
	}

	{
		AmFieldDescriptor fd;
		bool		present = false;

		st = am_shard_field_descriptor(shard, 0, &present, &fd, &err);
		UNIT_CHECKF(st == AM_OK, "shard fd: %s", err.message);
		UNIT_CHECK(present);
		UNIT_CHECK(fd.position_count == 3);
		UNIT_CHECK(fd.has_null_count && fd.null_count == 0);
		UNIT_CHECK(fd.constant_value.kind == AM_VALUE_ABSENT);
		UNIT_CHECK(fd.min_value.kind == AM_VALUE_I64 &&
				   (int64_t) fd.min_value.u64 == -7);
		UNIT_CHECK(fd.max_value.kind == AM_VALUE_I64 &&
				   (int64_t) fd.max_value.u64 == example_values[2]);
		UNIT_CHECK(fd.min_inclusive && fd.max_inclusive);
	}

	{
		AmStripeFieldDescriptor sfd;
		bool		present = false;
		int			anchor = -1;

		st = am_shard_stripe_field(shard, 0, 0, &present, &sfd, &anchor, &err);
		UNIT_CHECKF(st == AM_OK, "stripe fd: %s", err.message);
		UNIT_CHECK(present && anchor == 0);
		UNIT_CHECK(sfd.field.position_count == 3);
		UNIT_CHECK(sfd.has_native_encoding && sfd.num_buffers == 1);
		if (sfd.num_buffers == 1)
		{
			const AmEncodedBuffer *b = &sfd.buffers[0];

			UNIT_CHECK(b->kind == AM_BUFFER_DATA);
			UNIT_CHECK(b->buffer.url.len == 0);
			UNIT_CHECK(b->buffer.start == 64 && b->buffer.end == 224);
			UNIT_CHECK(b->has_block_map && b->block_map.start == 112 &&
					   b->block_map.end == 224);
			UNIT_CHECK(b->has_block_count && b->block_count == 1);
			UNIT_CHECK(b->block_checksums && b->embedded_presence &&
					   !b->embedded_offsets);
		}
		if (sfd.num_buffers == 1)
		{
			AmBufferReader br;
			uint8_t    *bytes = NULL;
			AmBlockView view;

			st = am_buffer_open(&br, shard, anchor, &sfd.buffers[0], &err);
			UNIT_CHECKF(st == AM_OK, "buffer: %s", err.message);
			if (st == AM_OK)
			{
				UNIT_CHECK(br.map.block_count == 1 && br.map.value_count == 3);
				st = am_buffer_read_block(&br, 0, &bytes, &view, &err);
				UNIT_CHECKF(st == AM_OK, "block: %s", err.message);
				if (st == AM_OK)
				{
					UNIT_CHECK(view.presence.len == 0);
					UNIT_CHECK(view.values.len == 26);
					UNIT_CHECK(view.values.data[0] == 1 && view.values.data[1] == 0);
					for (int i = 0; i < 3; i++)
					{
						int64_t		v;

						memcpy(&v, view.values.data + 2 + 8 * i, 8);
						UNIT_CHECK(v == example_values[i]);
					}
					free(bytes);
				}
				UNIT_CHECK(am_buffer_read_block(&br, 1, &bytes, &view, &err) ==
						   AM_ERR_INVALID_ARGUMENT);
				am_buffer_close(&br);
			}
		}
	}
	{
		AmFieldReader *fr = NULL;
		AmColumnBatch batch;

		st = am_field_reader_open(&fr, shard, 0, 0, &err);
		UNIT_CHECKF(st == AM_OK, "field reader: %s", err.message);
		if (st == AM_OK)
		{
			UNIT_CHECK(am_field_reader_position_count(fr) == 3);
			st = am_field_reader_read(fr, 0, 3, &batch, &err);
			UNIT_CHECKF(st == AM_OK, "read: %s", err.message);
			UNIT_CHECK(batch.count == 3 && batch.value_width == 8);
			UNIT_CHECK(batch.nulls == NULL && batch.offsets == NULL);
			if (st == AM_OK)
				UNIT_CHECK(memcmp(batch.values, example_values, 24) == 0);
			st = am_field_reader_read(fr, 1, 2, &batch, &err);
			UNIT_CHECK(st == AM_OK && memcmp(batch.values, example_values + 1, 16) == 0);
			UNIT_CHECK(am_field_reader_read(fr, 2, 2, &batch, &err) == AM_ERR_INVALID_ARGUMENT);
			am_field_reader_close(fr);
		}
		UNIT_CHECK(am_field_reader_open(&fr, shard, 0, 1, &err) == AM_ERR_INVALID_ARGUMENT);
		UNIT_CHECK(am_field_reader_open(&fr, shard, 1, 0, &err) == AM_ERR_INVALID_ARGUMENT);
	}
	am_shard_close(shard);
	tb_free(&f);
}

/* Every single-byte corruption of the metadata is an error, never a crash. */
static void
test_example_hostile(void)
{
	TBuf		f = {0};
	ExampleOffsets off;
	AmShard    *shard;
	AmError		err;
	AmStatus	st;
	uint8_t    *copy;
	size_t		bad_magic = 0,
				opened_after_flip = 0;

	build_example(&f, &off);
	copy = malloc(f.len);

	/* bad footer magic, bad header magic, higher major version */
	memcpy(copy, f.data, f.len);
	copy[f.len - 8] = 'X';
	st = open_bytes(copy, f.len, &shard, &err);
	UNIT_CHECK(st == AM_ERR_CORRUPT && shard == NULL);
	memcpy(copy, f.data, f.len);
	copy[0] = 'X';
	UNIT_CHECK(open_bytes(copy, f.len, &shard, &err) == AM_ERR_CORRUPT);
	memcpy(copy, f.data, f.len);
	copy[f.len - 1] = 1;
	UNIT_CHECK(open_bytes(copy, f.len, &shard, &err) == AM_ERR_CORRUPT);
	/* minor/patch bytes may differ */
	memcpy(copy, f.data, f.len);
	copy[f.len - 4] = 7;
	copy[4] = 9;
	st = open_bytes(copy, f.len, &shard, &err);
	UNIT_CHECKF(st == AM_OK, "minor version: %s", err.message);
	if (st == AM_OK)
		am_shard_close(shard);

	/* a wrong directory checksum is a checksum error */
	memcpy(copy, f.data, f.len);
	copy[off.dir_start + 4] ^= 0x01;
	UNIT_CHECK(open_bytes(copy, f.len, &shard, &err) == AM_ERR_CHECKSUM);
	/* so is a wrong schema payload byte */
	memcpy(copy, f.data, f.len);
	copy[off.schema_start + 4 + 84] = 6;	/* basic type */
	UNIT_CHECK(open_bytes(copy, f.len, &shard, &err) == AM_ERR_CHECKSUM);

	/* truncated files */
	for (size_t n = 0; n < f.len; n += 7)
	{
		st = open_bytes(f.data, n, &shard, &err);
		UNIT_CHECK(st != AM_OK);
		if (st == AM_OK)
			am_shard_close(shard);
	}

	/* flip each byte after the buffer: never a crash; opening must fail
	 * unless the byte is outside every checksummed message */
	for (size_t i = 224; i < f.len; i++)
	{
		memcpy(copy, f.data, f.len);
		copy[i] ^= 0x5A;
		st = open_bytes(copy, f.len, &shard, &err);
		if (st == AM_OK)
		{
			opened_after_flip++;
			am_shard_close(shard);
		}
		else if (st == AM_ERR_CORRUPT)
			bad_magic++;
	}
	/* the stripe field descriptor and its list are read lazily: the
	 * flipped bytes there (and nowhere else) still open */
	UNIT_CHECKF(opened_after_flip < f.len - 224, "%zu opened", opened_after_flip);
	UNIT_CHECK(bad_magic > 0);
	free(copy);
	tb_free(&f);
}

static void
test_io_error(void)
{
	TBuf		f = {0};
	ExampleOffsets off;
	MemFile		mf;
	PfcSource	src;
	AmShard    *shard;
	AmError		err;

	build_example(&f, &off);
	mf.data = f.data;
	mf.len = f.len;
	mf.fail_errno = EACCES;
	src = mem_source(&mf);
	UNIT_CHECK(am_shard_open(&shard, &src, NULL, &pfc_malloc_allocator, &err) == AM_ERR_IO);
	UNIT_CHECK(err.sys_errno == EACCES);
	tb_free(&f);
}

int
main(void)
{
	test_example_metadata();
	test_example_hostile();
	test_io_error();
	UNIT_MAIN_END("test_amudai_shard");
}
