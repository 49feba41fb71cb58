/*-------------------------------------------------------------------------
 *
 * test_amudai_pruning.c
 *	  Split-block Bloom filters (format notes 5.4) and RANGE_INDEX buffers
 *	  (3.9) from hand-built bytes.
 *
 * The filter is filled here by an insert written from the document (block
 * = ((h >> 32) * num_blocks) >> 32, bit (u32 h * SALT[i]) >> 27 of word i,
 * h = XXH3_64bits_withSeed), and carried in a FieldDescriptor message so
 * the protobuf path is covered too.
 *
 * IDENTIFICATION
 *	  test/unit/test_amudai_pruning.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "amudai_test_util.h"

static const uint32_t salt[8] = {
	0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d,
	0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31
};

#define SEED UINT64_C(0x4D75646169424646)

static void
sbbf_insert(uint8_t *data, uint64_t blocks, const char *v)
{
	uint64_t	h = XXH3_64bits_withSeed(v, strlen(v), SEED);
	uint64_t	b = ((h >> 32) * blocks) >> 32;

	for (int i = 0; i < 8; i++)
	{
		uint32_t	bit = ((uint32_t) h * salt[i]) >> 27;
		uint8_t    *w = data + b * 32 + 4 * i;

		w[bit / 8] |= (uint8_t) (1 << (bit % 8));
	}
}

static void
test_sbbf(void)
{
	uint8_t		filter[64] = {0};
	static const char *const in[3] = {"apple", "banana", "cherry"};
	TBuf		fdm = {0},
				mf = {0},
				sb = {0};
	AmFieldDescriptor fd;
	AmError		err;
	AmBytes		payload;
	int			false_pos = 0;

	for (int i = 0; i < 3; i++)
		sbbf_insert(filter, 2, in[i]);
	pb_fixed64(&sb, 1, 2);		/* num_blocks */
	pb_fixed64(&sb, 3, 3);		/* num_values */
	pb_bytes(&sb, 4, "xxh3_64", 7);
	pb_fixed64(&sb, 5, SEED);
	pb_bytes(&sb, 6, filter, sizeof(filter));
	pb_msg(&mf, 1, &sb);
	pb_fixed64(&fdm, 1, 3);
	pb_msg(&fdm, 8, &mf);
	payload.data = fdm.data;
	payload.len = fdm.len;
	UNIT_CHECK(am_parse_field_descriptor(payload, &fd, &err) == AM_OK);
	UNIT_CHECK(fd.sbbf_num_blocks == 2 && fd.sbbf_data.len == 64 && fd.sbbf_hash_seed == SEED);
	for (int i = 0; i < 3; i++)
		UNIT_CHECK(am_sbbf_might_contain(&fd, in[i], strlen(in[i])));
	for (int i = 0; i < 2000; i++)
	{
		char		v[32];

		snprintf(v, sizeof(v), "value-%d", i);
		false_pos += am_sbbf_might_contain(&fd, v, strlen(v));
	}
	/* 24 of 512 bits set: about (24/256)^8 per probe */
	UNIT_CHECKF(false_pos < 5, "%d false positives", false_pos);

	/* unknown hash algorithm or no filter: cannot prune */
	fd.sbbf_hash_algorithm.len = 3;
	UNIT_CHECK(am_sbbf_might_contain(&fd, "zzz", 3));
	fd.sbbf_data.len = 0;
	UNIT_CHECK(am_sbbf_might_contain(&fd, "zzz", 3));
	tb_free(&fdm);

	/* data that does not hold num_blocks blocks is corrupt */
	pb_fixed64(&sb, 1, 3);
	pb_bytes(&sb, 6, filter, sizeof(filter));
	pb_msg(&mf, 1, &sb);
	pb_msg(&fdm, 8, &mf);
	payload.data = fdm.data;
	payload.len = fdm.len;
	UNIT_CHECK(am_parse_field_descriptor(payload, &fd, &err) == AM_ERR_CORRUPT);
	tb_free(&fdm);
}

/* A block of raw bytes as a Plain u8 stream, with checksum. */
static void
raw_block(TBuf *b, const void *raw, size_t len, bool checksum)
{
	size_t		start = b->len;

	tb_u32(b, 0);
	tb_u32(b, (uint32_t) (2 + len));
	tb_u16(b, 1);
	tb_put(b, raw, len);
	while ((b->len - start + (checksum ? 4 : 0)) % 8)
		tb_byte(b, 0);
	if (checksum)
		tb_u32(b, t_checksum32(b->data + start, b->len - start));
}

static void
test_range_index(void)
{
	static const int32_t mins[3] = {1, 257, 513};
	static const int32_t maxs[3] = {256, 512, 600};
	static const uint16_t invalid[3] = {0, 256, 3};
	TBuf		p0 = {0},
				p1 = {0},
				p2 = {0},
				buf = {0};
	AmRangeIndex ri;
	AmError		err;

	raw_block(&p0, mins, sizeof(mins), true);
	raw_block(&p1, maxs, sizeof(maxs), true);
	raw_block(&p2, invalid, sizeof(invalid), true);
	tb_u16(&buf, 1);
	tb_byte(&buf, AM_TYPE_INT32);
	tb_byte(&buf, 1);
	tb_u64(&buf, 600);
	tb_u64(&buf, p0.len);
	tb_u64(&buf, p1.len);
	tb_u64(&buf, p2.len);
	tb_u16(&buf, 256);
	tb_u16(&buf, 0);
	tb_put(&buf, p0.data, p0.len);
	tb_put(&buf, p1.data, p1.len);
	tb_put(&buf, p2.data, p2.len);
	tb_pad_to(&buf, 64);

	UNIT_CHECKF(am_range_index_parse(buf.data, buf.len, 4, &pfc_malloc_allocator, &ri, &err) == AM_OK,
				"%s", err.message);
	UNIT_CHECK(ri.basic_type == AM_TYPE_INT32 && ri.span == 600 && ri.block_rows == 256 &&
			   ri.blocks == 3);
	UNIT_CHECK(ri.mins && memcmp(ri.mins, mins, 12) == 0);
	UNIT_CHECK(ri.maxs && memcmp(ri.maxs, maxs, 12) == 0);
	UNIT_CHECK(ri.invalid && memcmp(ri.invalid, invalid, 6) == 0);
	am_range_index_free(&ri, &pfc_malloc_allocator);

	/* a wrong element size does not match the payload */
	UNIT_CHECK(am_range_index_parse(buf.data, buf.len, 8, &pfc_malloc_allocator, &ri, &err) == AM_ERR_CORRUPT);
	/* corrupt checksum of the max payload */
	buf.data[40 + p0.len + 10] ^= 1;
	UNIT_CHECK(am_range_index_parse(buf.data, buf.len, 4, &pfc_malloc_allocator, &ri, &err) == AM_ERR_CHECKSUM);
	buf.data[40 + p0.len + 10] ^= 1;
	/* truncations */
	for (size_t n = 0; n < 40 + p0.len + p1.len + p2.len; n += 5)
		UNIT_CHECK(am_range_index_parse(buf.data, n, 4, &pfc_malloc_allocator, &ri, &err) != AM_OK);
	/* without the invalid counts */
	memset(buf.data + 28, 0, 8);
	UNIT_CHECK(am_range_index_parse(buf.data, buf.len, 4, &pfc_malloc_allocator, &ri, &err) == AM_OK &&
			   ri.invalid == NULL);
	am_range_index_free(&ri, &pfc_malloc_allocator);
	tb_free(&p0);
	tb_free(&p1);
	tb_free(&p2);
	tb_free(&buf);
}

int
main(void)
{
	test_sbbf();
	test_range_index();
	UNIT_MAIN_END("test_amudai_pruning");
}
