/*-------------------------------------------------------------------------
 *
 * test_amudai_block.c
 *	  Block maps (section 3.2), block framing (3.3-3.4) and presence
 *	  sections (3.5) of the Amudai format, from hand-built bytes.
 *
 * Block maps are laid out here from the document's table (segment record:
 * u64 first_logical_pos, u64 first_block_offset, u32 min_logical_size,
 * u32 min_block_size, u8 logical bits, u8 block bits, u16 count, packed
 * deltas, pads), Roaring presence from the RoaringFormatSpec.
 *
 * IDENTIFICATION
 *	  test/unit/test_amudai_block.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "amudai_test_util.h"

/* Append a segment record with the given per-block sizes. */
static void
put_segment(TBuf *m, uint64_t first_pos, uint64_t first_off, int n,
			const uint32_t *lsizes, const uint32_t *bsizes)
{
	uint32_t	lmin = UINT32_MAX,
				lmax = 0,
				bmin = UINT32_MAX,
				bmax = 0;
	unsigned	lb,
				bb;
	size_t		start = m->len;

	for (int i = 0; i < n; i++)
	{
		lmin = lsizes[i] < lmin ? lsizes[i] : lmin;
		lmax = lsizes[i] > lmax ? lsizes[i] : lmax;
		bmin = bsizes[i] < bmin ? bsizes[i] : bmin;
		bmax = bsizes[i] > bmax ? bsizes[i] : bmax;
	}
	lb = lmax - lmin <= 255 ? 8 : lmax - lmin <= 65535 ? 16 : 32;
	bb = bmax - bmin <= 255 ? 8 : bmax - bmin <= 65535 ? 16 : 32;
	tb_u64(m, first_pos);
	tb_u64(m, first_off);
	tb_u32(m, lmin);
	tb_u32(m, bmin);
	tb_byte(m, (uint8_t) lb);
	tb_byte(m, (uint8_t) bb);
	tb_u16(m, (uint16_t) n);
	for (int i = 0; i < n; i++)
		lb == 8 ? tb_byte(m, (uint8_t) (lsizes[i] - lmin)) :
			lb == 16 ? tb_u16(m, (uint16_t) (lsizes[i] - lmin)) : tb_u32(m, lsizes[i] - lmin);
	while ((m->len - start) % 4)
		tb_byte(m, 0);
	for (int i = 0; i < n; i++)
		bb == 8 ? tb_byte(m, (uint8_t) (bsizes[i] - bmin)) :
			bb == 16 ? tb_u16(m, (uint16_t) (bsizes[i] - bmin)) : tb_u32(m, bsizes[i] - bmin);
	while ((m->len - start) % 8)
		tb_byte(m, 0);
}

/* The block map of Appendix A, bytes 112-223 of the example file. */
static void
appendix_a_map(TBuf *m)
{
	tb_u64(m, 0);
	tb_u64(m, 0);
	tb_u32(m, 3);
	tb_u32(m, 40);
	tb_byte(m, 8);
	tb_byte(m, 8);
	tb_u16(m, 1);
	tb_byte(m, 0);
	tb_zeros(m, 3);
	tb_byte(m, 0);
	tb_zeros(m, 7);
	tb_u64(m, 0);
	tb_u64(m, 3);
	tb_u64(m, 0);
	tb_u64(m, 40);
	tb_u64(m, 3);
	tb_u64(m, 1);
	tb_u64(m, 1);
	tb_u64(m, 1024);
	tb_u64(m, 40);
}

/* Two segments of segment_size 2: blocks (5, 16 B), (7, 24 B), (300, 1000 B). */
static void
two_segment_map(TBuf *m)
{
	static const uint32_t l0[2] = {5, 7},
				b0[2] = {16, 24},
				l1[1] = {300},
				b1[1] = {1000};

	put_segment(m, 0, 0, 2, l0, b0);
	put_segment(m, 12, 40, 1, l1, b1);
	tb_u64(m, 0);
	tb_u64(m, 12);
	tb_u64(m, 312);
	tb_u64(m, 0);
	tb_u64(m, 40);
	tb_u64(m, 80);
	tb_u64(m, 312);
	tb_u64(m, 3);
	tb_u64(m, 2);
	tb_u64(m, 2);
	tb_u64(m, 1040);
}

static void
test_block_map_appendix_a(void)
{
	TBuf		m = {0};
	AmBlockMap	map;
	AmError		err;
	AmStatus	st;

	appendix_a_map(&m);
	UNIT_CHECK(m.len == 112);
	st = am_block_map_parse(m.data, m.len, 48, &pfc_malloc_allocator, &map, &err);
	UNIT_CHECKF(st == AM_OK, "%s", err.message);
	if (st == AM_OK)
	{
		UNIT_CHECK(map.value_count == 3 && map.block_count == 1);
		UNIT_CHECK(map.segment_count == 1 && map.segment_size == 1024);
		UNIT_CHECK(map.data_size == 40);
		UNIT_CHECK(map.logical_offsets[0] == 0 && map.logical_offsets[1] == 3);
		UNIT_CHECK(map.byte_offsets[0] == 0 && map.byte_offsets[1] == 40);
		UNIT_CHECK(am_block_map_find(&map, 0) == 0);
		UNIT_CHECK(am_block_map_find(&map, 2) == 0);
		am_block_map_free(&map, &pfc_malloc_allocator);
	}
	/* the data section (48 bytes) must hold the blocks (40 bytes) */
	st = am_block_map_parse(m.data, m.len, 39, &pfc_malloc_allocator, &map, &err);
	UNIT_CHECK(st == AM_ERR_CORRUPT);
	tb_free(&m);
}

static void
test_block_map_segments(void)
{
	TBuf		m = {0};
	AmBlockMap	map;
	AmError		err;
	AmStatus	st;
	static const uint64_t lexp[4] = {0, 5, 12, 312};
	static const uint64_t bexp[4] = {0, 16, 40, 1040};

	two_segment_map(&m);
	st = am_block_map_parse(m.data, m.len, 1040, &pfc_malloc_allocator, &map, &err);
	UNIT_CHECKF(st == AM_OK, "%s", err.message);
	if (st == AM_OK)
	{
		UNIT_CHECK(map.block_count == 3);
		for (int i = 0; i < 4; i++)
		{
			UNIT_CHECK(map.logical_offsets[i] == lexp[i]);
			UNIT_CHECK(map.byte_offsets[i] == bexp[i]);
		}
		UNIT_CHECK(am_block_map_find(&map, 0) == 0);
		UNIT_CHECK(am_block_map_find(&map, 4) == 0);
		UNIT_CHECK(am_block_map_find(&map, 5) == 1);
		UNIT_CHECK(am_block_map_find(&map, 11) == 1);
		UNIT_CHECK(am_block_map_find(&map, 12) == 2);
		UNIT_CHECK(am_block_map_find(&map, 311) == 2);
		am_block_map_free(&map, &pfc_malloc_allocator);
	}

	/* every byte flip gives either a consistent map or an error */
	for (size_t i = 0; i < m.len; i++)
		for (int bit = 0; bit < 8; bit++)
		{
			m.data[i] ^= (uint8_t) (1 << bit);
			st = am_block_map_parse(m.data, m.len, 1040, &pfc_malloc_allocator, &map, &err);
			if (st == AM_OK)
			{
				/* only padding bytes may change without an error */
				UNIT_CHECKF(map.logical_offsets[map.block_count] == map.value_count &&
							map.byte_offsets[map.block_count] == map.data_size,
							"flip at %zu accepted inconsistently", i);
				am_block_map_free(&map, &pfc_malloc_allocator);
			}
			m.data[i] ^= (uint8_t) (1 << bit);
		}
	/* truncations */
	for (size_t n = 0; n < m.len; n += 8)
		UNIT_CHECK(am_block_map_parse(m.data + m.len - n, n, 1040,
									  &pfc_malloc_allocator, &map, &err) != AM_OK);
	tb_free(&m);
}

static void
test_block_map_wide(void)
{
	TBuf		m = {0};
	AmBlockMap	map;
	AmError		err;
	AmStatus	st;
	static const uint32_t ls[2] = {1, 1000};
	static const uint32_t bs[2] = {8, 8 + 8 * 70000};

	put_segment(&m, 0, 0, 2, ls, bs);
	UNIT_CHECK(m.len == 40);
	UNIT_CHECK(m.data[24] == 16 && m.data[25] == 32);
	tb_u64(&m, 0);
	tb_u64(&m, 1001);
	tb_u64(&m, 0);
	tb_u64(&m, 40);
	tb_u64(&m, 1001);
	tb_u64(&m, 2);
	tb_u64(&m, 1);
	tb_u64(&m, 1024);
	tb_u64(&m, 16 + 8 * 70000);
	st = am_block_map_parse(m.data, m.len, 16 + 8 * 70000, &pfc_malloc_allocator, &map, &err);
	UNIT_CHECKF(st == AM_OK, "%s", err.message);
	if (st == AM_OK)
	{
		UNIT_CHECK(map.logical_offsets[1] == 1 && map.logical_offsets[2] == 1001);
		UNIT_CHECK(map.byte_offsets[1] == 8 && map.byte_offsets[2] == 16 + 8 * 70000);
		UNIT_CHECK(am_block_map_find(&map, 0) == 0);
		UNIT_CHECK(am_block_map_find(&map, 1) == 1);
		UNIT_CHECK(am_block_map_find(&map, 1000) == 1);
		am_block_map_free(&map, &pfc_malloc_allocator);
	}
	tb_free(&m);

	/* a zero-block map: footer + two one-element lists (56 bytes) */
	tb_u64(&m, 0);				/* segment_logical_offsets [0] */
	tb_u64(&m, 0);				/* segment_record_offsets [0] */
	tb_zeros(&m, 40);			/* footer: all counts 0 */
	UNIT_CHECK(m.len == 56);
	st = am_block_map_parse(m.data, m.len, 0, &pfc_malloc_allocator, &map, &err);
	UNIT_CHECKF(st == AM_OK && map.block_count == 0, "%s", err.message);
	if (st == AM_OK)
		am_block_map_free(&map, &pfc_malloc_allocator);
	tb_free(&m);
}

static void
test_block_parse(void)
{
	TBuf		b = {0};
	AmBlockView v;
	AmError		err;
	AmStatus	st;

	/* Appendix A block: 0, 26, [01 00 + 24 bytes], 2 pad, checksum */
	tb_u32(&b, 0);
	tb_u32(&b, 26);
	tb_u16(&b, 1);
	tb_u64(&b, 1);
	tb_u64(&b, 2);
	tb_u64(&b, 3);
	tb_zeros(&b, 2);
	tb_u32(&b, t_checksum32(b.data, 36));
	UNIT_CHECK(b.len == 40);
	st = am_block_parse(b.data, b.len, true, true, true, &v, &err);
	UNIT_CHECKF(st == AM_OK, "%s", err.message);
	UNIT_CHECK(v.presence.len == 0);
	UNIT_CHECK(v.values.data == b.data + 8 && v.values.len == 26);
	b.data[20] ^= 1;
	UNIT_CHECK(am_block_parse(b.data, b.len, true, true, true, &v, &err) == AM_ERR_CHECKSUM);
	UNIT_CHECK(am_block_parse(b.data, b.len, true, false, true, &v, &err) == AM_OK);
	b.data[20] ^= 1;
	/* values overrun (values_size 29 > 40 - 4 - 8) */
	b.data[4] = 29;
	UNIT_CHECK(am_block_parse(b.data, b.len, true, false, true, &v, &err) == AM_ERR_CORRUPT);
	/* without checksums 29 fits */
	UNIT_CHECK(am_block_parse(b.data, b.len, false, false, true, &v, &err) == AM_OK);
	b.data[4] = 26;
	tb_free(&b);

	/* a presence section of 3 bytes: values at 8 + 8 */
	tb_u32(&b, 3);
	tb_u32(&b, 2);
	tb_byte(&b, 2);
	tb_byte(&b, 1);
	tb_byte(&b, 0);
	tb_zeros(&b, 5);
	tb_u16(&b, 7);
	tb_zeros(&b, 2);
	tb_u32(&b, t_checksum32(b.data, b.len));
	st = am_block_parse(b.data, b.len, true, true, true, &v, &err);
	UNIT_CHECKF(st == AM_OK, "%s", err.message);
	UNIT_CHECK(v.presence.data == b.data + 8 && v.presence.len == 3);
	UNIT_CHECK(v.values.data == b.data + 16 && v.values.len == 2);
	/* presence where the buffer has none */
	UNIT_CHECK(am_block_parse(b.data, b.len, true, true, false, &v, &err) == AM_ERR_CORRUPT);
	tb_free(&b);

	for (size_t n = 0; n < 12; n++)
	{
		uint8_t		tiny[12] = {0};

		st = am_block_parse(tiny, n, true, false, true, &v, &err);
		UNIT_CHECK(n < 12 ? st == AM_ERR_CORRUPT : st == AM_OK);
	}
}

static void
test_presence(void)
{
	uint8_t		present[70000];
	size_t		nulls = 99;
	AmError		err;
	AmBytes		s;
	TBuf		b = {0};
	static const uint8_t plain[6] = {2, 1, 0, 1, 1, 0};
	static const uint8_t all_null[1] = {1};

	s.data = NULL;
	s.len = 0;
	UNIT_CHECK(am_presence_decode(s, 4, present, &nulls, &err) == AM_OK);
	UNIT_CHECK(nulls == 0 && present[0] == 1 && present[3] == 1);

	s.data = plain;
	s.len = 6;
	UNIT_CHECK(am_presence_decode(s, 5, present, &nulls, &err) == AM_OK);
	UNIT_CHECK(nulls == 2);
	UNIT_CHECK(present[0] == 1 && present[1] == 0 && present[2] == 1 &&
			   present[3] == 1 && present[4] == 0);
	UNIT_CHECK(am_presence_decode(s, 4, present, &nulls, &err) == AM_ERR_CORRUPT);

	s.data = all_null;
	s.len = 1;
	UNIT_CHECK(am_presence_decode(s, 3, present, &nulls, &err) == AM_OK);
	UNIT_CHECK(nulls == 3 && present[0] == 0 && present[2] == 0);

	/* Roaring, no runs, one array container {1, 5, 9}, lists values */
	tb_byte(&b, 3);
	tb_byte(&b, 0);
	tb_u32(&b, 12346);
	tb_u32(&b, 1);
	tb_u16(&b, 0);
	tb_u16(&b, 2);
	tb_u32(&b, 16);
	tb_u16(&b, 1);
	tb_u16(&b, 5);
	tb_u16(&b, 9);
	s.data = b.data;
	s.len = b.len;
	UNIT_CHECK(am_presence_decode(s, 10, present, &nulls, &err) == AM_OK);
	UNIT_CHECK(nulls == 7);
	UNIT_CHECK(present[1] && present[5] && present[9] && !present[0] && !present[8]);
	/* position 9 beyond 9 values */
	UNIT_CHECK(am_presence_decode(s, 9, present, &nulls, &err) == AM_ERR_CORRUPT);
	/* truncated */
	s.len = b.len - 1;
	UNIT_CHECK(am_presence_decode(s, 10, present, &nulls, &err) == AM_ERR_CORRUPT);
	tb_free(&b);

	/* Roaring with runs: one run container [2..4], [7], negated (nulls) */
	tb_byte(&b, 3);
	tb_byte(&b, 1);
	tb_u32(&b, 12347);			/* (1 - 1) << 16 | 12347 */
	tb_byte(&b, 0x01);			/* container 0 is a run container */
	tb_u16(&b, 0);
	tb_u16(&b, 3);				/* cardinality 4 */
	tb_u16(&b, 2);				/* 2 runs */
	tb_u16(&b, 2);
	tb_u16(&b, 2);
	tb_u16(&b, 7);
	tb_u16(&b, 0);
	s.data = b.data;
	s.len = b.len;
	UNIT_CHECK(am_presence_decode(s, 10, present, &nulls, &err) == AM_OK);
	UNIT_CHECK(nulls == 4);
	UNIT_CHECK(present[0] && present[1] && !present[2] && !present[3] &&
			   !present[4] && present[5] && present[6] && !present[7] &&
			   present[8] && present[9]);
	UNIT_CHECK(am_presence_decode(s, 7, present, &nulls, &err) == AM_ERR_CORRUPT);
	tb_free(&b);

	/* two containers: key 0 array {3}, key 1 bitmap of 65536..69632 */
	tb_byte(&b, 3);
	tb_byte(&b, 1);
	tb_u32(&b, 12346);
	tb_u32(&b, 2);
	tb_u16(&b, 0);
	tb_u16(&b, 0);
	tb_u16(&b, 1);
	tb_u16(&b, 4096);			/* 4097 values: a bitmap container */
	tb_u32(&b, 0);				/* offsets (skipped by the reader) */
	tb_u32(&b, 0);
	tb_u16(&b, 3);
	{
		uint8_t		bitmap[8192] = {0};

		for (int i = 0; i <= 4096; i++)
			bitmap[i / 8] |= (uint8_t) (1 << (i % 8));
		tb_put(&b, bitmap, sizeof(bitmap));
	}
	s.data = b.data;
	s.len = b.len;
	UNIT_CHECK(am_presence_decode(s, 70000, present, &nulls, &err) == AM_OK);
	UNIT_CHECK(nulls == 4098);
	UNIT_CHECK(!present[3] && present[2] && present[4] && present[65535]);
	UNIT_CHECK(!present[65536] && !present[65536 + 4096] && present[65536 + 4097]);
	UNIT_CHECK(am_presence_decode(s, 65536 + 4096, present, &nulls, &err) == AM_ERR_CORRUPT);
	/* keys must increase: make the second key 0 */
	b.data[2 + 8 + 4] = 0;
	UNIT_CHECK(am_presence_decode(s, 70000, present, &nulls, &err) == AM_ERR_CORRUPT);
	tb_free(&b);

	{
		static const uint8_t bad_kind[2] = {4, 0};
		static const uint8_t bad_neg[2] = {3, 2};

		s.data = bad_kind;
		s.len = 2;
		UNIT_CHECK(am_presence_decode(s, 3, present, &nulls, &err) == AM_ERR_CORRUPT);
		s.data = bad_neg;
		UNIT_CHECK(am_presence_decode(s, 3, present, &nulls, &err) == AM_ERR_CORRUPT);
		s.data = all_null;
		s.len = 2;
		UNIT_CHECK(am_presence_decode(s, 3, present, &nulls, &err) == AM_ERR_CORRUPT);
	}
}

int
main(void)
{
	test_block_map_appendix_a();
	test_block_map_segments();
	test_block_map_wide();
	test_block_parse();
	test_presence();
	UNIT_MAIN_END("test_amudai_block");
}
