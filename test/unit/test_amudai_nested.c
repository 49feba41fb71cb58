/*-------------------------------------------------------------------------
 *
 * test_amudai_nested.c
 *	  Field assembly of nested and special fields from a hand-built
 *	  two-level shard: a list of dictionary-encoded strings (OFFSETS,
 *	  PRESENCE, VALUE_DICTIONARY with a null entry), a struct with a
 *	  presence bit buffer, a float child with embedded presence and an
 *	  absent child, a boolean (DATA and PRESENCE bit buffers), a fixed-size
 *	  list, a top-level field beyond the stripe's truncated field list, and
 *	  an Int32 column whose buffer lives in a stripe file beside the root.
 *
 * Every byte is laid out here from the format notes (1.5, 1.8, 1.10, 2.1,
 * 3.1-3.8) with a test-local FlatBuffers layout and protobuf encoder.
 * With AMUDAI_FIXTURE_DIR set, the shard and its stripe file are also
 * written there (test/data/amudai/, the fixture of sql/amudai_nested.sql).
 *
 * IDENTIFICATION
 *	  test/unit/test_amudai_nested.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "amudai_test_util.h"

#include <math.h>

static const uint8_t frame[8] = {0x61, 0x6d, 0x75, 0x64, 0x00, 0x01, 0x00, 0x00};

/* ---- schema ---- */
typedef struct TNode
{
	const char *name;
	uint8_t		type;
	bool		is_signed;
	uint64_t	fixed_size;
	int			nchildren;
	const struct TNode *children[2];
} TNode;

static const TNode n_id = {"id", AM_TYPE_INT32, true, 0, 0, {NULL}};
static const TNode n_tag = {"", AM_TYPE_STRING, false, 0, 0, {NULL}};
static const TNode n_tags = {"tags", AM_TYPE_LIST, false, 0, 1, {&n_tag}};
static const TNode n_x = {"x", AM_TYPE_FLOAT64, false, 0, 0, {NULL}};
static const TNode n_y = {"y", AM_TYPE_INT64, true, 0, 0, {NULL}};
static const TNode n_pt = {"pt", AM_TYPE_STRUCT, false, 0, 2, {&n_x, &n_y}};
static const TNode n_ok = {"ok", AM_TYPE_BOOLEAN, false, 0, 0, {NULL}};
static const TNode n_el = {"", AM_TYPE_INT16, true, 0, 0, {NULL}};
static const TNode n_fsl = {"fsl", AM_TYPE_FIXED_SIZE_LIST, false, 2, 1, {&n_el}};
static const TNode n_gone = {"gone", AM_TYPE_INT8, true, 0, 0, {NULL}};
static const TNode *const top[6] = {&n_id, &n_tags, &n_pt, &n_ok, &n_fsl, &n_gone};

#define NUM_IDS 10

static void
patch_u32(TBuf *b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->data[at + i] = (uint8_t) (v >> (8 * i));
}

/*
 * A DataType table (vtable of 8 slots, then a 36-byte table: soffset,
 * schema_id, parent, name, children, unused, basic_type, signed, pad,
 * fixed_size), its name and children after it; returns the table position.
 */
static size_t
fb_data_type(TBuf *b, const TNode *n, uint32_t parent, uint32_t *next_id)
{
	size_t		vt = b->len,
				tab,
				name_at,
				vec;
	uint32_t	id = (*next_id)++;
	static const uint16_t vtable[10] = {20, 36, 24, 4, 8, 12, 0, 16, 25, 28};

	for (int i = 0; i < 10; i++)
		tb_u16(b, vtable[i]);
	tab = b->len;
	tb_u32(b, (uint32_t) (tab - vt));
	tb_u32(b, id);
	tb_u32(b, parent);
	tb_u32(b, 0);
	tb_u32(b, 0);
	tb_u32(b, 0);
	tb_byte(b, n->type);
	tb_byte(b, n->is_signed);
	tb_u16(b, 0);
	tb_u64(b, n->fixed_size);
	name_at = b->len;
	tb_u32(b, (uint32_t) strlen(n->name));
	tb_put(b, n->name, strlen(n->name));
	tb_byte(b, 0);
	tb_pad_to(b, 4);
	vec = b->len;
	tb_u32(b, (uint32_t) n->nchildren);
	for (int i = 0; i < n->nchildren; i++)
		tb_u32(b, 0);
	patch_u32(b, tab + 12, (uint32_t) (name_at - (tab + 12)));
	patch_u32(b, tab + 16, (uint32_t) (vec - (tab + 16)));
	for (int i = 0; i < n->nchildren; i++)
	{
		size_t		child = fb_data_type(b, n->children[i], id, next_id);
		size_t		slot = vec + 4 + 4 * (size_t) i;

		patch_u32(b, slot, (uint32_t) (child - slot));
	}
	return tab;
}

static void
fb_schema(TBuf *b)
{
	uint32_t	next_id = 0;
	size_t		vec;

	tb_u32(b, 12);
	tb_u16(b, 8);
	tb_u16(b, 12);
	tb_u16(b, 4);
	tb_u16(b, 8);
	tb_u32(b, 8);
	tb_u32(b, 8);
	tb_u32(b, NUM_IDS);
	vec = b->len;
	tb_u32(b, 6);
	tb_zeros(b, 24);
	for (int i = 0; i < 6; i++)
	{
		size_t		fvt = b->len,
					ftab,
					dt;

		tb_u16(b, 6);
		tb_u16(b, 8);
		tb_u16(b, 4);
		tb_u16(b, 0);
		ftab = b->len;
		tb_u32(b, (uint32_t) (ftab - fvt));
		tb_u32(b, 0);
		dt = fb_data_type(b, top[i], UINT32_MAX, &next_id);
		patch_u32(b, ftab + 4, (uint32_t) (dt - (ftab + 4)));
		patch_u32(b, vec + 4 + 4 * (size_t) i, (uint32_t) (ftab - (vec + 4 + 4 * (size_t) i)));
	}
}

/* ---- buffers ---- */
typedef struct TBufRef
{
	uint64_t	start;
	uint64_t	map;
	uint64_t	end;
} TBufRef;

/*
 * One-block buffer at the next 64-byte offset: block (header, presence,
 * values, pad, checksum), pad to 16, block map with one segment.
 */
static TBufRef
block_buffer(TBuf *f, const uint8_t *presence, size_t plen,
			 const TBuf *values, uint64_t logical)
{
	TBuf		blk = {0};
	TBufRef		r;
	size_t		bsize;

	tb_pad_to(f, 64);
	r.start = f->len;
	tb_u32(&blk, (uint32_t) plen);
	tb_u32(&blk, (uint32_t) values->len);
	tb_put(&blk, presence, plen);
	tb_pad_to(&blk, 8);
	tb_put(&blk, values->data, values->len);
	while ((blk.len + 4) % 8)
		tb_byte(&blk, 0);
	tb_u32(&blk, t_checksum32(blk.data, blk.len));
	bsize = blk.len;
	tb_put(f, blk.data, blk.len);
	tb_free(&blk);
	while ((f->len - r.start) % 16)
		tb_byte(f, 0);
	r.map = f->len;
	tb_u64(f, 0);
	tb_u64(f, 0);
	tb_u32(f, (uint32_t) logical);
	tb_u32(f, (uint32_t) bsize);
	tb_byte(f, 8);
	tb_byte(f, 8);
	tb_u16(f, 1);
	tb_byte(f, 0);
	tb_zeros(f, 3);
	tb_byte(f, 0);
	tb_zeros(f, 7);
	tb_u64(f, 0);
	tb_u64(f, logical);
	tb_u64(f, 0);
	tb_u64(f, 40);
	tb_u64(f, logical);
	tb_u64(f, 1);
	tb_u64(f, 1);
	tb_u64(f, 1024);
	tb_u64(f, bsize);
	r.end = f->len;
	return r;
}

/* A value-dictionary section: [u64 len][payload][64 zeros][pad][checksum]. */
static void
dict_section(TBuf *f, size_t base, const void *payload, size_t len,
			 uint64_t *start, uint64_t *end)
{
	*start = f->len - base;
	tb_u64(f, len);
	tb_put(f, payload, len);
	tb_zeros(f, 64);
	while ((f->len - base + 4) % 16)
		tb_byte(f, 0);
	tb_u32(f, t_checksum32(payload, len));
	*end = f->len - base;
}

/* VALUE_DICTIONARY of strings: entries "", "a", "b", "c"; null id 0. */
static TBufRef
value_dictionary(TBuf *f)
{
	TBufRef		r;
	size_t		base;
	uint8_t		header[128] = {0};
	uint64_t	vs,
				ve,
				os,
				oe,
				ss,
				se;
	static const uint64_t offsets[5] = {0, 0, 1, 2, 3};
	static const uint32_t sorted[3] = {1, 2, 3};

	tb_pad_to(f, 64);
	r.start = base = f->len;
	tb_zeros(f, 128);
	dict_section(f, base, "abc", 3, &vs, &ve);
	dict_section(f, base, offsets, sizeof(offsets), &os, &oe);
	dict_section(f, base, sorted, sizeof(sorted), &ss, &se);
	while ((f->len - base) % 64)
		tb_byte(f, 0);
	r.end = f->len;
	r.map = 0;
	header[0] = AM_TYPE_STRING;
	header[1] = 4;				/* value_count */
	header[5] = 1;				/* null entry present */
	/* null_id 0, fixed_value_size 0 */
	for (int i = 0; i < 8; i++)
	{
		header[14 + i] = (uint8_t) (vs >> (8 * i));
		header[22 + i] = (uint8_t) (ve >> (8 * i));
		header[30 + i] = (uint8_t) (os >> (8 * i));
		header[38 + i] = (uint8_t) (oe >> (8 * i));
		header[46 + i] = (uint8_t) (ss >> (8 * i));
		header[54 + i] = (uint8_t) (se >> (8 * i));
	}
	{
		uint32_t	c = t_checksum32(header, 124);

		for (int i = 0; i < 4; i++)
			header[124 + i] = (uint8_t) (c >> (8 * i));
	}
	memcpy(f->data + base, header, 128);
	return r;
}

/* ---- messages ---- */
static void
pb_data_ref_url(TBuf *b, unsigned tag, const char *url, uint64_t start, uint64_t end)
{
	TBuf		range = {0},
				ref = {0};

	if (url[0])
		pb_bytes(&ref, 1, url, strlen(url));
	pb_fixed64(&range, 1, start);
	pb_fixed64(&range, 2, end);
	pb_msg(&ref, 2, &range);
	pb_msg(b, tag, &ref);
}

typedef struct TBufDesc
{
	int			kind;
	TBufRef		ref;
	const char *url;
	bool		block;			/* block-structured (has a map) */
	bool		presence;		/* embedded presence */
} TBufDesc;

/* StripeFieldDescriptor envelope; returns its range. */
static void
stripe_field(TBuf *f, uint64_t positions, uint64_t nulls, bool dict_size,
			 const TBufDesc *bufs, int nbufs, uint64_t *s, uint64_t *e)
{
	TBuf		sfd = {0},
				fd = {0},
				enc = {0},
				nat = {0};

	pb_fixed64(&fd, 1, positions);
	pb_fixed64(&fd, 2, nulls);
	if (dict_size)
		pb_fixed64(&fd, 4, 4);
	pb_msg(&sfd, 1, &fd);
	for (int i = 0; i < nbufs; i++)
	{
		TBuf		eb = {0};

		if (bufs[i].kind)
			pb_uint(&eb, 1, (uint64_t) bufs[i].kind);
		pb_data_ref_url(&eb, 2, bufs[i].url, bufs[i].ref.start, bufs[i].ref.end);
		if (bufs[i].block)
		{
			pb_data_ref_url(&eb, 3, bufs[i].url, bufs[i].ref.map, bufs[i].ref.end);
			pb_fixed64(&eb, 4, 1);
			pb_uint(&eb, 5, 1);
		}
		if (bufs[i].presence)
			pb_uint(&eb, 6, 1);
		pb_msg(&nat, 1, &eb);
	}
	pb_msg(&enc, 1, &nat);
	pb_msg(&sfd, 2, &enc);
	tb_envelope(f, &sfd, s, e);
	tb_free(&sfd);
}

static void
put_ref_array(TBuf *f, const uint64_t *s, const uint64_t *e, int n,
			  uint64_t *as, uint64_t *ae)
{
	TBuf		a = {0};

	for (int i = 0; i < n; i++)
		pb_bytes(&a, 2, "", 0);
	pb_bytes(&a, 3, s, (size_t) n * 8);
	pb_bytes(&a, 4, e, (size_t) n * 8);
	tb_envelope(f, &a, as, ae);
	tb_free(&a);
}

static TBuf stripe_file;

static void
build_shard(TBuf *f)
{
	TBuf		v = {0};
	TBufRef		id_buf,
				tags_off,
				tags_pres,
				tag_ids,
				tag_dict,
				pt_pres,
				x_data,
				ok_data,
				ok_pres,
				el_data;
	uint64_t	fs[9],
				fe[9];
	uint64_t	ls,
				le,
				sls,
				sle,
				us,
				ue,
				shs,
				she,
				sas,
				sae,
				scs,
				sce,
				ds,
				de;

	/* the stripe file: header, the id buffer, footer */
	tb_put(&stripe_file, frame, 8);
	tb_u16(&v, AM_ENC_PLAIN);
	for (int i = 1; i <= 5; i++)
		tb_u32(&v, (uint32_t) i);
	id_buf = block_buffer(&stripe_file, NULL, 0, &v, 5);
	tb_free(&v);
	tb_put(&stripe_file, frame, 8);

	tb_put(f, frame, 8);
	/* tags: offsets [0,2,2,2,3,6], presence bits 11011 */
	tb_u16(&v, AM_ENC_PLAIN);
	{
		static const uint64_t off[6] = {0, 2, 2, 2, 3, 6};

		tb_put(&v, off, sizeof(off));
	}
	tags_off = block_buffer(f, NULL, 0, &v, 6);
	tb_free(&v);
	tb_u16(&v, AM_ENC_PLAIN);
	tb_byte(&v, 0x1B);
	tags_pres = block_buffer(f, NULL, 0, &v, 1);
	tb_free(&v);
	/* tag ids: 1, 2, 2, 3, 0 (null), 1 */
	tb_u16(&v, AM_ENC_PLAIN);
	{
		static const uint32_t ids[6] = {1, 2, 2, 3, 0, 1};

		tb_put(&v, ids, sizeof(ids));
	}
	tag_ids = block_buffer(f, NULL, 0, &v, 6);
	tb_free(&v);
	tag_dict = value_dictionary(f);
	/* pt presence bits 11101; x with Plain presence, null slot 99.0 */
	tb_u16(&v, AM_ENC_PLAIN);
	tb_byte(&v, 0x1D);
	pt_pres = block_buffer(f, NULL, 0, &v, 1);
	tb_free(&v);
	tb_u16(&v, AM_ENC_PLAIN);
	{
		double		xs[5] = {0.5, 99.0, -1.5, 2.0, NAN};

		tb_put(&v, xs, sizeof(xs));
	}
	{
		static const uint8_t pres[6] = {2, 1, 0, 1, 1, 1};

		x_data = block_buffer(f, pres, 6, &v, 5);
	}
	tb_free(&v);
	/* ok: values 1,0,1,0,(1 but null) -> 0x15; presence 01111 */
	tb_u16(&v, AM_ENC_PLAIN);
	tb_byte(&v, 0x15);
	ok_data = block_buffer(f, NULL, 0, &v, 1);
	tb_free(&v);
	tb_u16(&v, AM_ENC_PLAIN);
	tb_byte(&v, 0x0F);
	ok_pres = block_buffer(f, NULL, 0, &v, 1);
	tb_free(&v);
	/* fsl elements: 10 Int16 10..19 */
	tb_u16(&v, AM_ENC_PLAIN);
	for (int i = 10; i < 20; i++)
		tb_u16(&v, (uint16_t) i);
	el_data = block_buffer(f, NULL, 0, &v, 10);
	tb_free(&v);

	/* stripe field descriptors, ids 0..8 (9, "gone", beyond the list) */
	{
		TBufDesc	d_id[1] = {{0, id_buf, "f00d.amudai.stripe", true, true}};
		TBufDesc	d_tags[2] = {{AM_BUFFER_OFFSETS, tags_off, "", true, false},
		{AM_BUFFER_PRESENCE, tags_pres, "", true, false}};
		TBufDesc	d_tag[2] = {{0, tag_ids, "", true, false},
		{AM_BUFFER_VALUE_DICTIONARY, tag_dict, "", false, false}};
		TBufDesc	d_pt[1] = {{AM_BUFFER_PRESENCE, pt_pres, "", true, false}};
		TBufDesc	d_x[1] = {{0, x_data, "", true, true}};
		TBufDesc	d_ok[2] = {{0, ok_data, "", true, false},
		{AM_BUFFER_PRESENCE, ok_pres, "", true, false}};
		TBufDesc	d_el[1] = {{0, el_data, "", true, true}};

		stripe_field(f, 5, 0, false, d_id, 1, &fs[0], &fe[0]);
		stripe_field(f, 5, 1, false, d_tags, 2, &fs[1], &fe[1]);
		stripe_field(f, 6, 1, true, d_tag, 2, &fs[2], &fe[2]);
		stripe_field(f, 5, 1, false, d_pt, 1, &fs[3], &fe[3]);
		stripe_field(f, 5, 1, false, d_x, 1, &fs[4], &fe[4]);
		fs[5] = fe[5] = 0;		/* y: absent */
		stripe_field(f, 5, 1, false, d_ok, 2, &fs[6], &fe[6]);
		stripe_field(f, 5, 0, false, NULL, 0, &fs[7], &fe[7]);
		stripe_field(f, 10, 0, false, d_el, 1, &fs[8], &fe[8]);
	}
	put_ref_array(f, fs, fe, 9, &ls, &le);
	{
		TBuf		sl = {0},
					sd = {0};

		pb_data_ref(&sd, 2, ls, le);
		pb_fixed64(&sd, 4, 5);
		pb_msg(&sl, 1, &sd);
		tb_envelope(f, &sl, &sls, &sle);
		tb_free(&sl);
	}
	{
		TBuf		ul = {0};

		pb_bytes(&ul, 1, "f00d.amudai.stripe", 18);
		tb_envelope(f, &ul, &us, &ue);
		tb_free(&ul);
	}
	/* shard field list: only id 0 has a descriptor */
	{
		TBuf		fd = {0};
		uint64_t	s[NUM_IDS] = {0},
					e[NUM_IDS] = {0};

		pb_fixed64(&fd, 1, 5);
		tb_envelope(f, &fd, &shs, &she);
		tb_free(&fd);
		s[0] = shs;
		e[0] = she;
		put_ref_array(f, s, e, NUM_IDS, &sas, &sae);
	}
	{
		TBuf		sch = {0};

		fb_schema(&sch);
		tb_envelope(f, &sch, &scs, &sce);
		tb_free(&sch);
	}
	{
		TBuf		dir = {0};

		pb_data_ref(&dir, 1, scs, sce);
		pb_data_ref(&dir, 3, sas, sae);
		pb_data_ref(&dir, 4, sls, sle);
		pb_data_ref(&dir, 5, us, ue);
		pb_fixed64(&dir, 7, 5);
		pb_fixed64(&dir, 9, 1);
		tb_envelope(f, &dir, &ds, &de);
		tb_u32(f, (uint32_t) dir.len);
		tb_free(&dir);
	}
	tb_put(f, frame, 8);
}

static AmStatus
read_field(AmShard *shard, uint32_t id, AmFieldReader **fr, AmColumnBatch *b,
		   uint64_t expect_count)
{
	AmError		err;
	AmStatus	st = am_field_reader_open(fr, shard, 0, id, &err);

	UNIT_CHECKF(st == AM_OK, "open %u: %s", id, err.message);
	if (st != AM_OK)
		return st;
	UNIT_CHECKF(am_field_reader_position_count(*fr) == expect_count,
				"id %u: %" PRIu64 " positions", id, am_field_reader_position_count(*fr));
	st = am_field_reader_read(*fr, 0, (size_t) expect_count, b, &err);
	UNIT_CHECKF(st == AM_OK, "read %u: %s", id, err.message);
	if (st != AM_OK)
		am_field_reader_close(*fr);
	return st;
}

static void
test_nested(void)
{
	TBuf		f = {0};
	MemFile		root;
	MemDir		dir;
	PfcSource	src;
	AmResolver	res;
	AmShard    *shard;
	AmError		err;
	AmStatus	st;
	AmFieldReader *fr;
	AmColumnBatch b;

	build_shard(&f);
	t_dump_seed("nested_root", NULL, 0, f.data, f.len);
	/* the pg_regress fixture test/data/amudai/nested.amudai.shard (+ stripe file) */
	if (getenv("AMUDAI_FIXTURE_DIR") != NULL)
	{
		char		path[512];
		FILE	   *out;

		snprintf(path, sizeof(path), "%s/nested.amudai.shard", getenv("AMUDAI_FIXTURE_DIR"));
		if ((out = fopen(path, "wb")) != NULL)
		{
			fwrite(f.data, 1, f.len, out);
			fclose(out);
		}
		snprintf(path, sizeof(path), "%s/f00d.amudai.stripe", getenv("AMUDAI_FIXTURE_DIR"));
		if ((out = fopen(path, "wb")) != NULL)
		{
			fwrite(stripe_file.data, 1, stripe_file.len, out);
			fclose(out);
		}
	}
	memset(&dir, 0, sizeof(dir));
	dir.count = 1;
	dir.names[0] = "f00d.amudai.stripe";
	dir.files[0].data = stripe_file.data;
	dir.files[0].len = stripe_file.len;
	root.data = f.data;
	root.len = f.len;
	root.fail_errno = 0;
	src = mem_source(&root);
	res.open = memdir_open;
	res.close = memdir_close;
	res.ctx = &dir;

	st = am_shard_open(&shard, &src, &res, &pfc_malloc_allocator, &err);
	UNIT_CHECKF(st == AM_OK, "open: %s", err.message);
	if (st != AM_OK)
		goto out;
	{
		const AmSchema *s = am_shard_schema(shard);

		UNIT_CHECK(s->schema_id_count == NUM_IDS && s->num_fields == 6);
		UNIT_CHECK(s->nodes[1].basic_type == AM_TYPE_LIST && s->nodes[1].num_children == 1 &&
				   s->nodes[1].children[0] == 2);
		UNIT_CHECK(s->nodes[2].parent_id == 1 && s->nodes[2].name.len == 0);
		UNIT_CHECK(s->nodes[3].num_children == 2 && s->nodes[3].children[1] == 5);
		UNIT_CHECK(s->nodes[7].fixed_size == 2 && s->nodes[8].parent_id == 7);
		UNIT_CHECK(am_shard_find_field(shard, "gone", 4) == 9);
		UNIT_CHECK(am_shard_find_field(shard, "x", 1) == -1);	/* not top level */
	}
	{
		AmFieldDescriptor fd;
		bool		present;

		UNIT_CHECK(am_shard_field_descriptor(shard, 0, &present, &fd, &err) == AM_OK &&
				   present && fd.position_count == 5);
		UNIT_CHECK(am_shard_field_descriptor(shard, 4, &present, &fd, &err) == AM_OK &&
				   !present);
	}

	/* id: read through the stripe file */
	if (read_field(shard, 0, &fr, &b, 5) == AM_OK)
	{
		static const int32_t exp[5] = {1, 2, 3, 4, 5};

		UNIT_CHECK(memcmp(b.values, exp, 20) == 0 && b.nulls == NULL);
		am_field_reader_close(fr);
	}
	UNIT_CHECK(dir.opened == 1);

	/* tags: list offsets and presence */
	if (read_field(shard, 1, &fr, &b, 5) == AM_OK)
	{
		static const uint64_t exp[6] = {0, 2, 2, 2, 3, 6};

		UNIT_CHECK(memcmp(b.offsets, exp, sizeof(exp)) == 0);
		UNIT_CHECK(b.nulls != NULL && !b.nulls[0] && !b.nulls[1] && b.nulls[2] &&
				   !b.nulls[3] && !b.nulls[4]);
		UNIT_CHECK(b.values == NULL && b.bytes == NULL);
		am_field_reader_close(fr);
	}
	/* tag strings: dictionary ids with a null entry */
	if (read_field(shard, 2, &fr, &b, 6) == AM_OK)
	{
		static const char *const exp[6] = {"a", "b", "b", "c", "", "a"};

		for (int i = 0; i < 6; i++)
		{
			size_t		len = (size_t) (b.offsets[i + 1] - b.offsets[i]);

			UNIT_CHECKF(len == strlen(exp[i]) &&
						memcmp(b.bytes + b.offsets[i], exp[i], len) == 0, "tag %d", i);
			UNIT_CHECK(b.nulls != NULL && b.nulls[i] == (i == 4));
		}
		/* a batch inside the block */
		UNIT_CHECK(am_field_reader_read(fr, 3, 2, &b, &err) == AM_OK &&
				   b.offsets[0] == 0 && b.offsets[1] == 1 && b.offsets[2] == 1 &&
				   b.bytes[0] == 'c' && b.nulls[1] == 1);
		UNIT_CHECK(am_field_reader_read(fr, 0, 2, &b, &err) == AM_OK && b.nulls == NULL);
		am_field_reader_close(fr);
	}
	/* pt: struct presence only */
	if (read_field(shard, 3, &fr, &b, 5) == AM_OK)
	{
		UNIT_CHECK(b.nulls != NULL && b.nulls[1] && !b.nulls[0] && !b.nulls[4]);
		UNIT_CHECK(b.values == NULL && b.offsets == NULL);
		am_field_reader_close(fr);
	}
	/* x: embedded presence; the null slot comes back as 0.0 */
	if (read_field(shard, 4, &fr, &b, 5) == AM_OK)
	{
		const double *x = b.values;

		UNIT_CHECK(x[0] == 0.5 && x[1] == 0.0 && x[2] == -1.5 && x[3] == 2.0 && isnan(x[4]));
		UNIT_CHECK(b.nulls != NULL && b.nulls[1] && !b.nulls[0] && !b.nulls[4]);
		am_field_reader_close(fr);
	}
	/* y: absent, as many positions as its struct */
	if (read_field(shard, 5, &fr, &b, 5) == AM_OK)
	{
		UNIT_CHECK(b.nulls != NULL && b.values != NULL);
		for (int i = 0; b.nulls != NULL && b.values != NULL && i < 5; i++)
			UNIT_CHECK(b.nulls[i] == 1 && ((const int64_t *) b.values)[i] == 0);
		am_field_reader_close(fr);
	}
	/* ok: bit buffers */
	if (read_field(shard, 6, &fr, &b, 5) == AM_OK)
	{
		static const uint8_t exp[5] = {1, 0, 1, 0, 0};

		UNIT_CHECK(b.value_width == 1 && memcmp(b.values, exp, 5) == 0);
		UNIT_CHECK(b.nulls != NULL && b.nulls[4] && !b.nulls[3]);
		UNIT_CHECK(am_field_reader_read(fr, 2, 2, &b, &err) == AM_OK &&
				   ((const uint8_t *) b.values)[0] == 1 && b.nulls == NULL);
		am_field_reader_close(fr);
	}
	/* fsl: no buffers, no nulls; its child has 2 x 5 positions */
	if (read_field(shard, 7, &fr, &b, 5) == AM_OK)
	{
		UNIT_CHECK(b.nulls == NULL);
		am_field_reader_close(fr);
	}
	if (read_field(shard, 8, &fr, &b, 10) == AM_OK)
	{
		for (int i = 0; i < 10; i++)
			UNIT_CHECK(((const int16_t *) b.values)[i] == 10 + i);
		am_field_reader_close(fr);
	}
	/* gone: beyond the truncated stripe field list */
	if (read_field(shard, 9, &fr, &b, 5) == AM_OK)
	{
		UNIT_CHECK(b.nulls != NULL && b.nulls[0] && b.nulls[4]);
		am_field_reader_close(fr);
	}
	am_shard_close(shard);
	UNIT_CHECK(dir.closed == 1);

	/* without a resolver the stripe file is unsupported */
	UNIT_CHECK(am_shard_open(&shard, &src, NULL, &pfc_malloc_allocator, &err) == AM_OK);
	UNIT_CHECK(am_field_reader_open(&fr, shard, 0, 0, &err) == AM_ERR_UNSUPPORTED);
	UNIT_CHECK(err.stripe == 0 && err.field == 0);
	am_shard_close(shard);

	/* a missing stripe file is an I/O error */
	dir.names[0] = "other";
	UNIT_CHECK(am_shard_open(&shard, &src, &res, &pfc_malloc_allocator, &err) == AM_OK);
	UNIT_CHECK(am_field_reader_open(&fr, shard, 0, 0, &err) == AM_ERR_IO &&
			   err.sys_errno == ENOENT);
	am_shard_close(shard);
out:
	tb_free(&f);
	tb_free(&stripe_file);
}

int
main(void)
{
	test_nested();
	UNIT_MAIN_END("test_amudai_nested");
}
