/*-------------------------------------------------------------------------
 *
 * test_amudai_meta.c
 *	  The metadata decoders of the Amudai layer on hand-written wire bytes:
 *	  the protobuf reader (varints, wire types, bounds, nesting), message
 *	  decoding (packed and unpacked fixed64, AnyValue kinds, proto3
 *	  defaults, wrong wire types), envelopes and checksums, and hostile
 *	  FlatBuffers schemas.
 *
 * IDENTIFICATION
 *	  test/unit/test_amudai_meta.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "amudai_test_util.h"

#include "amudai/amudai_int.h"

static const PfcAllocator *A = &pfc_malloc_allocator;

static AmBytes
bytes_of(const void *p, size_t n)
{
	AmBytes		b;

	b.data = p;
	b.len = n;
	return b;
}

static void
test_varints(void)
{
	/* 1, 300, 2^64 - 1 (10 bytes), then an 11-byte varint */
	static const uint8_t v1[] = {0x01};
	static const uint8_t v300[] = {0xAC, 0x02};
	static const uint8_t vmax[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
	static const uint8_t vbad10[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02};
	static const uint8_t v11[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
	static const uint8_t vtrunc[] = {0x80, 0x80};
	const uint8_t *p;
	uint64_t	v;

	p = v1;
	UNIT_CHECK(am_pb_read_varint(&p, v1 + 1, &v) && v == 1 && p == v1 + 1);
	p = v300;
	UNIT_CHECK(am_pb_read_varint(&p, v300 + 2, &v) && v == 300);
	p = vmax;
	UNIT_CHECK(am_pb_read_varint(&p, vmax + 10, &v) && v == UINT64_MAX);
	p = vbad10;
	UNIT_CHECK(!am_pb_read_varint(&p, vbad10 + 10, &v));
	p = v11;
	UNIT_CHECK(!am_pb_read_varint(&p, v11 + 11, &v));
	p = vtrunc;
	UNIT_CHECK(!am_pb_read_varint(&p, vtrunc + 2, &v));
}

static void
test_fields(void)
{
	/* field 1 varint 150 (the protobuf docs' example 08 96 01), field 2
	 * "testing" (12 07 74 65 73 74 69 6e 67), field 3 fixed64, field 4
	 * fixed32 */
	static const uint8_t msg[] = {
		0x08, 0x96, 0x01,
		0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g',
		0x19, 1, 2, 3, 4, 5, 6, 7, 8,
		0x25, 9, 0, 0, 0
	};
	AmPbReader	r;
	AmPbField	f;
	bool		done;
	AmError		err;

	am_pb_init(&r, bytes_of(msg, sizeof(msg)));
	UNIT_CHECK(am_pb_next(&r, &f, &done, &err) == AM_OK && !done);
	UNIT_CHECK(f.tag == 1 && f.wire_type == AM_PB_VARINT && f.u64 == 150);
	UNIT_CHECK(am_pb_next(&r, &f, &done, &err) == AM_OK);
	UNIT_CHECK(f.tag == 2 && f.wire_type == AM_PB_LEN && f.bytes.len == 7 &&
			   memcmp(f.bytes.data, "testing", 7) == 0);
	UNIT_CHECK(am_pb_next(&r, &f, &done, &err) == AM_OK);
	UNIT_CHECK(f.tag == 3 && f.u64 == UINT64_C(0x0807060504030201));
	UNIT_CHECK(am_pb_next(&r, &f, &done, &err) == AM_OK);
	UNIT_CHECK(f.tag == 4 && f.wire_type == AM_PB_FIXED32 && f.u64 == 9);
	UNIT_CHECK(am_pb_next(&r, &f, &done, &err) == AM_OK && done);

	/* every truncation of the message fails cleanly or ends early */
	for (size_t n = 0; n < sizeof(msg); n++)
	{
		AmStatus	st = AM_OK;

		am_pb_init(&r, bytes_of(msg, n));
		for (int i = 0; i < 5 && st == AM_OK; i++)
		{
			st = am_pb_next(&r, &f, &done, &err);
			if (done)
				break;
		}
		UNIT_CHECKF(n == 0 || n == 3 || n == 12 || n == 21 || st == AM_ERR_CORRUPT,
					"truncation at %zu", n);
	}

	/* groups, tag 0, overrun length */
	{
		static const uint8_t group[] = {0x0B, 0x0C};
		static const uint8_t tag0[] = {0x00, 0x01};
		static const uint8_t overrun[] = {0x12, 0x05, 'a'};

		am_pb_init(&r, bytes_of(group, 2));
		UNIT_CHECK(am_pb_next(&r, &f, &done, &err) == AM_ERR_CORRUPT);
		am_pb_init(&r, bytes_of(tag0, 2));
		UNIT_CHECK(am_pb_next(&r, &f, &done, &err) == AM_ERR_CORRUPT);
		am_pb_init(&r, bytes_of(overrun, 3));
		UNIT_CHECK(am_pb_next(&r, &f, &done, &err) == AM_ERR_CORRUPT);
	}
}

static void
test_messages(void)
{
	TBuf		m = {0};
	AmDataRefArray arr;
	AmError		err;
	uint8_t		packed[16];

	/* DataRefArray: 2 urls, starts packed, ends unpacked */
	for (int i = 0; i < 8; i++)
	{
		packed[i] = (uint8_t) (i == 0 ? 10 : 0);
		packed[8 + i] = (uint8_t) (i == 0 ? 20 : 0);
	}
	pb_bytes(&m, 2, "", 0);
	pb_bytes(&m, 2, "x.amudai.stripe", 15);
	pb_bytes(&m, 3, packed, 16);
	pb_fixed64(&m, 4, 15);
	pb_fixed64(&m, 4, 25);
	pb_uint(&m, 99, 7);			/* unknown field */
	UNIT_CHECK(am_parse_data_ref_array(bytes_of(m.data, m.len), A, &arr, &err) == AM_OK);
	UNIT_CHECK(arr.count == 2 && arr.starts[0] == 10 && arr.starts[1] == 20 &&
			   arr.ends[0] == 15 && arr.ends[1] == 25 && arr.urls[0].len == 0 &&
			   arr.urls[1].len == 15);
	free(arr.urls);
	/* a third end without url/start: arrays of different lengths */
	pb_fixed64(&m, 4, 30);
	UNIT_CHECK(am_parse_data_ref_array(bytes_of(m.data, m.len), A, &arr, &err) == AM_ERR_CORRUPT);
	tb_free(&m);
	/* reversed range */
	pb_bytes(&m, 2, "", 0);
	pb_fixed64(&m, 3, 9);
	pb_fixed64(&m, 4, 8);
	UNIT_CHECK(am_parse_data_ref_array(bytes_of(m.data, m.len), A, &arr, &err) == AM_ERR_CORRUPT);
	tb_free(&m);

	/* AnyValue kinds */
	{
		AmAnyValue	v;
		TBuf		dt = {0};
		uint64_t	bits;
		double		d = -2.5;

		pb_uint(&m, 4, (uint64_t) INT64_C(-3));
		UNIT_CHECK(am_parse_any_value(bytes_of(m.data, m.len), &v, &err) == AM_OK &&
				   v.kind == AM_VALUE_I64 && (int64_t) v.u64 == -3);
		tb_free(&m);
		memcpy(&bits, &d, 8);
		pb_fixed64(&m, 5, bits);
		UNIT_CHECK(am_parse_any_value(bytes_of(m.data, m.len), &v, &err) == AM_OK &&
				   v.kind == AM_VALUE_DOUBLE && v.d == -2.5);
		tb_free(&m);
		pb_fixed64(&dt, 1, UINT64_C(621355968000000000));
		pb_msg(&m, 6, &dt);
		UNIT_CHECK(am_parse_any_value(bytes_of(m.data, m.len), &v, &err) == AM_OK &&
				   v.kind == AM_VALUE_DATETIME && v.u64 == UINT64_C(621355968000000000));
		tb_free(&m);
		pb_bytes(&m, 10, "0123456789abcdef", 16);
		UNIT_CHECK(am_parse_any_value(bytes_of(m.data, m.len), &v, &err) == AM_OK &&
				   v.kind == AM_VALUE_DECIMAL && v.bytes.len == 16);
		tb_free(&m);
		pb_bytes(&m, 10, "0123", 4);
		UNIT_CHECK(am_parse_any_value(bytes_of(m.data, m.len), &v, &err) == AM_ERR_CORRUPT);
		tb_free(&m);
		pb_bytes(&m, 1, "", 0);
		UNIT_CHECK(am_parse_any_value(bytes_of(m.data, m.len), &v, &err) == AM_OK &&
				   v.kind == AM_VALUE_NULL);
		tb_free(&m);
		/* bool sent as fixed64: wrong wire type */
		pb_fixed64(&m, 2, 1);
		UNIT_CHECK(am_parse_any_value(bytes_of(m.data, m.len), &v, &err) == AM_ERR_CORRUPT);
		tb_free(&m);
	}

	/* FieldDescriptor: null_count > position_count */
	{
		AmFieldDescriptor fd;

		pb_fixed64(&m, 1, 3);
		pb_fixed64(&m, 2, 4);
		UNIT_CHECK(am_parse_field_descriptor(bytes_of(m.data, m.len), &fd, &err) == AM_ERR_CORRUPT);
		tb_free(&m);
		/* position_count as a varint: wrong wire type */
		pb_uint(&m, 1, 3);
		UNIT_CHECK(am_parse_field_descriptor(bytes_of(m.data, m.len), &fd, &err) == AM_ERR_CORRUPT);
		tb_free(&m);
	}

	/* ShardDirectory without a url list */
	{
		AmShardDirectory d;

		pb_data_ref(&m, 1, 8, 20);
		pb_data_ref(&m, 3, 8, 20);
		pb_data_ref(&m, 4, 8, 20);
		UNIT_CHECK(am_parse_shard_directory(bytes_of(m.data, m.len), &d, &err) == AM_ERR_CORRUPT);
		pb_data_ref(&m, 5, 8, 20);
		UNIT_CHECK(am_parse_shard_directory(bytes_of(m.data, m.len), &d, &err) == AM_OK &&
				   d.url_list_ref.start == 8 && d.url_list_ref.end == 20);
		tb_free(&m);
	}

	/* a StripeFieldDescriptor whose first encoding is not native */
	{
		AmStripeFieldDescriptor sfd;
		TBuf		inner = {0};

		pb_fixed64(&inner, 1, 1);
		pb_msg(&m, 1, &inner);
		{
			TBuf		enc = {0},
						pq = {0};

			pb_uint(&pq, 99, 1);
			pb_msg(&enc, 2, &pq);
			pb_msg(&m, 2, &enc);
		}
		UNIT_CHECK(am_parse_stripe_field_descriptor(bytes_of(m.data, m.len), A, &sfd, &err) ==
				   AM_ERR_UNSUPPORTED);
		tb_free(&m);
	}
}

static void
test_envelope(void)
{
	TBuf		e = {0};
	TBuf		p = {0};
	uint64_t	s,
				end;
	AmBytes		payload;
	AmError		err;

	tb_put(&p, "hello", 5);
	tb_envelope(&e, &p, &s, &end);
	UNIT_CHECK(e.len == 13);
	UNIT_CHECK(am_envelope_parse(e.data, e.len, &payload, &err) == AM_OK &&
			   payload.len == 5 && memcmp(payload.data, "hello", 5) == 0);
	UNIT_CHECK(am_checksum32("hello", 5) == t_checksum32("hello", 5));
	e.data[12] ^= 1;
	UNIT_CHECK(am_envelope_parse(e.data, e.len, &payload, &err) == AM_ERR_CHECKSUM);
	e.data[12] ^= 1;
	UNIT_CHECK(am_envelope_parse(e.data, e.len - 1, &payload, &err) == AM_ERR_CORRUPT);
	e.data[0] = 200;
	UNIT_CHECK(am_envelope_parse(e.data, e.len, &payload, &err) == AM_ERR_CORRUPT);
	tb_free(&e);
	tb_free(&p);
}

/* A schema whose two fields share one DataType table (a DAG). */
static void
test_schema_hostile(void)
{
	static const uint8_t dag[] = {
		12, 0, 0, 0,
		8, 0, 12, 0, 4, 0, 8, 0,
		8, 0, 0, 0, 8, 0, 0, 0, 2, 0, 0, 0,
		/* 24: 2 fields, both -> the Field table at 44 */
		2, 0, 0, 0, 16, 0, 0, 0, 12, 0, 0, 0,
		/* 36: Field vtable (6 bytes) + 2 pad */
		6, 0, 8, 0, 4, 0, 0, 0,
		/* 44: Field table: soffset 8 -> vtable 36; data_type -> 68 */
		8, 0, 0, 0, 20, 0, 0, 0,
		/* 52: DataType vtable: 16 bytes, table 16; basic_type and
		 * schema_id absent (Unit, 0), parent @4, name @8, children @12 */
		16, 0, 16, 0, 0, 0, 0, 0, 4, 0, 8, 0, 0, 0, 12, 0,
		/* 68: DataType table: soffset 16; parent 0xFFFFFFFF; name -> 84;
		 * children -> 88 */
		16, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 8, 0, 0, 0, 8, 0, 0, 0,
		/* 84: "" (its NUL is the first byte at 88) */
		0, 0, 0, 0,
		/* 88: children: empty vector */
		0, 0, 0, 0
	};
	AmSchema	s;
	AmError		err;
	AmStatus	st;
	uint8_t		buf[sizeof(dag)];

	/* both fields lead to the same node: schema id 0 twice */
	memcpy(buf, dag, sizeof(dag));
	st = am_parse_schema(bytes_of(buf, sizeof(buf)), A, &s, &err);
	UNIT_CHECKF(st == AM_ERR_CORRUPT && strstr(err.message, "twice") != NULL,
				"%s", err.message);
	/* with one field (and schema_id_count 1) the same bytes are valid */
	buf[20] = 1;
	buf[24] = 1;
	st = am_parse_schema(bytes_of(buf, sizeof(buf)), A, &s, &err);
	UNIT_CHECKF(st == AM_OK, "%s", err.message);
	if (st == AM_OK)
	{
		UNIT_CHECK(s.schema_id_count == 1 && s.num_fields == 1 &&
				   s.nodes[0].basic_type == AM_TYPE_UNIT && s.nodes[0].name.len == 0 &&
				   s.nodes[0].parent_id == AM_NO_PARENT);
		free(s.nodes);
		free((void *) s.fields);
	}

	/* random corruption never crashes (the oracle is ASan in replay runs) */
	{
		uint64_t	seed = 7;

		for (int i = 0; i < 20000; i++)
		{
			memcpy(buf, dag, sizeof(dag));
			for (int k = 0; k < 3; k++)
				buf[unit_rand(&seed) % sizeof(buf)] = (uint8_t) unit_rand(&seed);
			st = am_parse_schema(bytes_of(buf, sizeof(buf)), A, &s, &err);
			if (st == AM_OK)
			{
				free(s.nodes);
				free((void *) s.fields);
			}
		}
	}
	/* too short */
	UNIT_CHECK(am_parse_schema(bytes_of(dag, 3), A, &s, &err) == AM_ERR_CORRUPT);
	/* root offset beyond the end */
	memcpy(buf, dag, sizeof(dag));
	buf[0] = 200;
	UNIT_CHECK(am_parse_schema(bytes_of(buf, sizeof(buf)), A, &s, &err) == AM_ERR_CORRUPT);
}

int
main(void)
{
	test_varints();
	test_fields();
	test_messages();
	test_envelope();
	test_schema_hostile();
	UNIT_MAIN_END("test_amudai_meta");
}
