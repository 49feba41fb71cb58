/*-------------------------------------------------------------------------
 *
 * test_amudai_roundtrip.c
 *	  Shards written by writer.c read back through the reader: every
 *	  supported column type and block encoding, nulls, constant and
 *	  all-null stripes, several stripes and block-map segments, batch
 *	  boundaries inside and across blocks.
 *
 * The data is generated here (adversarial values: extremes, -0.0, NaN
 * payloads, empty strings) and compared value by value with what the reader
 * returns; null slots must come back as zeros / empty strings.
 *
 * IDENTIFICATION
 *	  test/unit/test_amudai_roundtrip.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "amudai_test_util.h"

#include <math.h>

#define ROWS 2500

typedef struct Data
{
	int64_t		i64[ROWS];
	int32_t		i32[ROWS];
	uint16_t	u16[ROWS];
	double		f64[ROWS];
	double		price[ROWS];
	float		f32[ROWS];
	uint8_t		u8[ROWS];
	uint64_t	ticks[ROWS];
	uint8_t		flags[ROWS];
	uint8_t		guid[ROWS * 16];
	uint8_t		fixed3[ROWS * 3];
	int8_t		i8[ROWS];
	int32_t		constant[ROWS];
	int64_t		nothing[ROWS];
	uint8_t		str_bytes[ROWS * 12];
	uint64_t	str_off[ROWS + 1];
	uint8_t		uniq_bytes[ROWS * 8];
	uint64_t	uniq_off[ROWS + 1];
	uint8_t		nulls_some[ROWS];
	uint8_t		nulls_all[ROWS];
	uint8_t		nulls_sparse[ROWS];
} Data;

static Data D;

static void
make_data(void)
{
	uint64_t	seed = 12345;
	size_t		at = 0,
				uniq_at = 0;

	for (int i = 0; i < ROWS; i++)
	{
		uint64_t	r = unit_rand(&seed);

		D.i64[i] = i % 97 == 0 ? INT64_MIN : i % 89 == 0 ? INT64_MAX : (int64_t) (r % 100000) - 50000;
		D.i32[i] = 1000 + i * 3 - (int32_t) (r % 5);
		D.u16[i] = (uint16_t) (i / 37 * 11);
		D.f64[i] = (double) (int64_t) (r % 2000) / 8.0;
		if (i % 101 == 0)
			D.f64[i] = -0.0;
		if (i % 103 == 0)
		{
			uint64_t	nan = UINT64_C(0x7FF8000000000000) | (uint64_t) i;

			memcpy(&D.f64[i], &nan, 8);
		}
		D.f32[i] = (float) i * 0.25f;
		D.price[i] = (double) (int64_t) (r % 100000) / 100.0;
		if (i % 211 == 0)
			D.price[i] = i % 2 ? -HUGE_VAL : HUGE_VAL;
		if (i % 223 == 0)
			D.price[i] = -0.0;
		D.u8[i] = (uint8_t) (r >> 8);
		D.ticks[i] = UINT64_C(621355968000000000) + (uint64_t) i * 10000000;
		D.flags[i] = (r >> 20) & 1;
		for (int k = 0; k < 16; k++)
			D.guid[i * 16 + k] = (uint8_t) (r >> (k % 8 * 8)) ^ (uint8_t) k;
		for (int k = 0; k < 3; k++)
			D.fixed3[i * 3 + k] = (uint8_t) (i % 5 + k);
		D.i8[i] = (int8_t) (i % 256 - 128);
		D.constant[i] = 7;
		D.nothing[i] = i;
		D.str_off[i] = at;
		for (int k = 0; k < i % 12; k++)
			D.str_bytes[at++] = (uint8_t) ('a' + (i + k) % 26);
		D.uniq_off[i] = (uint64_t) (uniq_at);
		uniq_at += (size_t) snprintf((char *) D.uniq_bytes + uniq_at, 8, "u%d", i * 7);
		D.nulls_some[i] = r % 7 == 0;
		D.nulls_all[i] = 1;
		D.nulls_sparse[i] = i == 5 || i == 2000;
	}
	D.str_off[ROWS] = at;
	D.uniq_off[ROWS] = uniq_at;
}

static AmWriterColumn cols[] = {
	{"i64_ffor", AM_TYPE_INT64, true, 0, AM_ENC_FFOR, D.i64, NULL, D.nulls_some},
	{"i32_delta", AM_TYPE_INT32, true, 0, AM_ENC_DELTA, D.i32, NULL, NULL},
	{"u16_rle", AM_TYPE_INT16, false, 0, AM_ENC_RUN_LENGTH, D.u16, NULL, D.nulls_sparse},
	{"f64_plain", AM_TYPE_FLOAT64, false, 0, AM_ENC_PLAIN, D.f64, NULL, D.nulls_some},
	{"f32_zstd", AM_TYPE_FLOAT32, false, 0, AM_ENC_ZSTD, D.f32, NULL, NULL},
	{"u8_lz4", AM_TYPE_INT8, false, 0, AM_ENC_LZ4, D.u8, NULL, NULL},
	{"ts", AM_TYPE_DATETIME, false, 0, AM_ENC_FFOR, D.ticks, NULL, NULL},
	{"flag", AM_TYPE_BOOLEAN, false, 0, 0, D.flags, NULL, D.nulls_some},
	{"s_plain", AM_TYPE_STRING, false, 0, AM_ENC_PLAIN, D.str_bytes, D.str_off, D.nulls_some},
	{"s_zstd", AM_TYPE_STRING, false, 0, AM_ENC_ZSTD, D.str_bytes, D.str_off, NULL},
	{"b_lz4", AM_TYPE_BINARY, false, 0, AM_ENC_LZ4, D.str_bytes, D.str_off, D.nulls_sparse},
	{"guid", AM_TYPE_GUID, false, 16, AM_ENC_PLAIN, D.guid, NULL, D.nulls_some},
	{"fixed3", AM_TYPE_FIXED_SIZE_BINARY, false, 3, AM_ENC_ZSTD, D.fixed3, NULL, NULL},
	{"i8_ffor", AM_TYPE_INT8, true, 0, AM_ENC_FFOR, D.i8, NULL, NULL},
	{"constant", AM_TYPE_INT32, true, 0, AM_ENC_PLAIN, D.constant, NULL, NULL},
	{"nothing", AM_TYPE_INT64, true, 0, AM_ENC_PLAIN, D.nothing, NULL, D.nulls_all},
	{"f64_alp", AM_TYPE_FLOAT64, false, 0, AM_ENC_ALP, D.f64, NULL, D.nulls_sparse},
	{"price_alp", AM_TYPE_FLOAT64, false, 0, AM_ENC_ALP, D.price, NULL, NULL},
	{"f32_alp", AM_TYPE_FLOAT32, false, 0, AM_ENC_ALP, D.f32, NULL, NULL},
	{"s_fsst", AM_TYPE_STRING, false, 0, AM_ENC_FSST, D.str_bytes, D.str_off, D.nulls_some},
	/* 156 distinct values (one empty) and nulls: a dictionary per block */
	{"s_dict", AM_TYPE_STRING, false, 0, AM_ENC_BLOCK_DICTIONARY, D.str_bytes, D.str_off, D.nulls_some},
	/* all distinct: blocks fall back to Plain */
	{"b_dict_uniq", AM_TYPE_BINARY, false, 0, AM_ENC_BLOCK_DICTIONARY, D.uniq_bytes, D.uniq_off, D.nulls_sparse},
};

#define NCOLS ((int) (sizeof(cols) / sizeof(cols[0])))

/* Compare rows [first, first + count) of column c with a batch. */
static void
check_batch(const AmWriterColumn *c, uint64_t first, const AmColumnBatch *b)
{
	uint32_t	width = c->type == AM_TYPE_GUID ? 16 :
		c->type == AM_TYPE_FIXED_SIZE_BINARY ? c->fixed_size :
		c->type == AM_TYPE_BOOLEAN || c->type == AM_TYPE_INT8 ? 1 :
		c->type == AM_TYPE_INT16 ? 2 :
		c->type == AM_TYPE_INT32 || c->type == AM_TYPE_FLOAT32 ? 4 :
		c->type == AM_TYPE_STRING || c->type == AM_TYPE_BINARY ? 0 : 8;
	bool		any_null = false;

	for (size_t i = 0; i < b->count; i++)
	{
		uint64_t	row = first + i;
		bool		is_null = c->nulls != NULL && c->nulls[row];

		any_null |= is_null;
		UNIT_CHECKF((b->nulls != NULL && b->nulls[i]) == is_null,
					"%s row %" PRIu64 ": null flag", c->name, row);
		if (width == 0)
		{
			size_t		len = (size_t) (b->offsets[i + 1] - b->offsets[i]);
			size_t		exp = is_null ? 0 : (size_t) (c->offsets[row + 1] - c->offsets[row]);

			UNIT_CHECKF(len == exp && (len == 0 ||
									   memcmp(b->bytes + b->offsets[i],
											  (const uint8_t *) c->values + c->offsets[row],
											  len) == 0),
						"%s row %" PRIu64 ": string", c->name, row);
		}
		else
		{
			const uint8_t *got = (const uint8_t *) b->values + i * width;
			static const uint8_t zeros[16] = {0};

			if (is_null)
				UNIT_CHECKF(memcmp(got, zeros, width) == 0,
							"%s row %" PRIu64 ": null slot not zero", c->name, row);
			else if (c->type == AM_TYPE_BOOLEAN)
				UNIT_CHECKF(*got == (((const uint8_t *) c->values)[row] != 0),
							"%s row %" PRIu64 ": bool", c->name, row);
			else
				UNIT_CHECKF(memcmp(got, (const uint8_t *) c->values + row * width, width) == 0,
							"%s row %" PRIu64 ": value", c->name, row);
		}
	}
	if (!any_null)
		UNIT_CHECK(b->nulls == NULL);
	if (width == 0)
		UNIT_CHECK(b->offsets[0] == 0);
}

/*
 * The pruning aids of one stripe field, parsed back with the reader's
 * functions (format notes 3.9, 5.4): a RANGE_INDEX buffer on numeric,
 * DateTime and KustoDecimal fields with exactly the min, max and invalid
 * count (nulls, NaNs) of every 256 rows; a Bloom filter on binary fields
 * with at most 1024 distinct values that answers "maybe" for every value
 * written.  indexes false: the writer was asked for neither.
 */
static int	index_checks;

static bool
is_decimal_col(const AmWriterColumn *c)
{
	return c->extension_label != NULL && strcmp(c->extension_label, "KustoDecimal") == 0;
}

static void
check_indexes(const uint8_t *file, const AmWriterColumn *c,
			  const AmStripeFieldDescriptor *sfd, uint64_t first, uint64_t n,
			  bool indexes)
{
	const AmEncodedBuffer *rb = NULL;
	bool		numeric = (c->type >= AM_TYPE_INT8 && c->type <= AM_TYPE_FLOAT64) ||
		c->type == AM_TYPE_DATETIME || is_decimal_col(c);
	bool		binary = !numeric && (c->type == AM_TYPE_STRING || c->type == AM_TYPE_BINARY ||
									  c->type == AM_TYPE_GUID ||
									  c->type == AM_TYPE_FIXED_SIZE_BINARY);
	uint32_t	width = (uint32_t) (c->type == AM_TYPE_DATETIME ? 8 :
									is_decimal_col(c) ? 16 :
									c->type == AM_TYPE_INT8 ? 1 :
									c->type == AM_TYPE_INT16 ? 2 :
									c->type == AM_TYPE_INT32 || c->type == AM_TYPE_FLOAT32 ? 4 : 8);

	if (c->list_offsets != NULL)
		return;
	for (uint32_t b = 0; b < sfd->num_buffers; b++)
		if (sfd->buffers[b].kind == AM_BUFFER_RANGE_INDEX)
			rb = &sfd->buffers[b];
	if (!indexes || !numeric || sfd->num_buffers == 0)
		UNIT_CHECK(rb == NULL);
	else
	{
		AmRangeIndex ri;
		AmError		err;
		AmStatus	st;

		UNIT_CHECKF(rb != NULL && rb->buffer.url.len == 0, "%s: no range index", c->name);
		if (rb == NULL)
			return;
		UNIT_CHECK(rb->buffer.start % 64 == 0 && !rb->has_block_map);
		st = am_range_index_parse(file + rb->buffer.start, rb->buffer.end - rb->buffer.start,
								  width, &pfc_malloc_allocator, &ri, &err);
		UNIT_CHECKF(st == AM_OK, "%s: %s", c->name, err.message);
		if (st != AM_OK)
			return;
		UNIT_CHECK(ri.span == n && ri.block_rows == 256 && ri.blocks == (n + 255) / 256 &&
				   ri.basic_type == c->type);
		for (uint64_t blk = 0; blk < ri.blocks; blk++)
		{
			uint64_t	lo = blk * 256,
						hi = lo + 256 < n ? lo + 256 : n;
			uint16_t	bad = 0;
			bool		have = false;
			double		fmin = 0,
						fmax = 0;
			int64_t		smin = 0,
						smax = 0;
			uint64_t	umin = 0,
						umax = 0;
			AmDecimal	dmin,
						dmax,
						got;
			const uint8_t *pmin = ri.mins + blk * width,
					   *pmax = ri.maxs + blk * width;
			bool		ok = true;

			for (uint64_t i = first + lo; i < first + hi; i++)
			{
				const uint8_t *p = (const uint8_t *) c->values + i * width;

				if (c->nulls && c->nulls[i])
				{
					bad++;
					continue;
				}
				if (is_decimal_col(c))
				{
					AmDecimal	v;

					am_decimal128_decode(p, &v);
					if (v.kind == AM_DECIMAL_NAN)
					{
						bad++;
						continue;
					}
					if (!have || am_decimal_cmp(&v, &dmin) < 0)
						dmin = v;
					if (!have || am_decimal_cmp(&v, &dmax) > 0)
						dmax = v;
				}
				else if (c->type == AM_TYPE_FLOAT32 || c->type == AM_TYPE_FLOAT64)
				{
					double		d;
					float		f;

					if (width == 4)
					{
						memcpy(&f, p, 4);
						d = f;
					}
					else
						memcpy(&d, p, 8);
					if (isnan(d))
					{
						bad++;
						continue;
					}
					fmin = !have || d < fmin ? d : fmin;
					fmax = !have || d > fmax ? d : fmax;
				}
				else if (c->is_signed && c->type != AM_TYPE_DATETIME)
				{
					int64_t		v = width == 1 ? (int8_t) p[0] : width == 2 ? (int16_t) (p[0] | p[1] << 8) :
						width == 4 ? (int32_t) ((uint32_t) p[0] | (uint32_t) p[1] << 8 |
												(uint32_t) p[2] << 16 | (uint32_t) p[3] << 24) :
						(int64_t) ((const uint64_t *) c->values)[i];

					smin = !have || v < smin ? v : smin;
					smax = !have || v > smax ? v : smax;
				}
				else
				{
					uint64_t	v = 0;

					memcpy(&v, p, width);
					umin = !have || v < umin ? v : umin;
					umax = !have || v > umax ? v : umax;
				}
				have = true;
			}
			UNIT_CHECK((ri.invalid ? ri.invalid[blk] : 0) == bad);
			if (!have)
				continue;
			if (is_decimal_col(c))
			{
				am_decimal128_decode(pmin, &got);
				ok &= am_decimal_cmp(&got, &dmin) == 0;
				am_decimal128_decode(pmax, &got);
				ok &= am_decimal_cmp(&got, &dmax) == 0;
			}
			else if (c->type == AM_TYPE_FLOAT32)
			{
				float		a,
							b;

				memcpy(&a, pmin, 4);
				memcpy(&b, pmax, 4);
				ok = a == fmin && b == fmax;
			}
			else if (c->type == AM_TYPE_FLOAT64)
			{
				double		a,
							b;

				memcpy(&a, pmin, 8);
				memcpy(&b, pmax, 8);
				ok = a == fmin && b == fmax;
			}
			else if (c->is_signed && c->type != AM_TYPE_DATETIME)
			{
				int64_t		a = 0,
							b = 0;

				memcpy(&a, pmin, width);
				memcpy(&b, pmax, width);
				if (width < 8)	/* sign-extend */
				{
					a = (int64_t) ((uint64_t) a << (64 - 8 * width)) >> (64 - 8 * width);
					b = (int64_t) ((uint64_t) b << (64 - 8 * width)) >> (64 - 8 * width);
				}
				ok = a == smin && b == smax;
			}
			else
			{
				uint64_t	a = 0,
							b = 0;

				memcpy(&a, pmin, width);
				memcpy(&b, pmax, width);
				ok = a == umin && b == umax;
			}
			UNIT_CHECKF(ok, "%s: range index block %llu", c->name, (unsigned long long) blk);
		}
		index_checks++;
		am_range_index_free(&ri, &pfc_malloc_allocator);
	}

	/* Bloom filters: strings, binary, Guid, fixed-size binary */
	if (!indexes || !binary || sfd->field.null_count == n)
	{
		UNIT_CHECK(sfd->field.sbbf_data.len == 0);
		return;
	}
	{
		uint64_t	distinct = 0;
		uint64_t	absent_hits = 0;

		for (uint64_t i = first; i < first + n && distinct <= 1024; i++)
		{
			const uint8_t *p;
			size_t		len;
			bool		seen = false;

			if (c->nulls && c->nulls[i])
				continue;
			if (c->offsets)
			{
				p = (const uint8_t *) c->values + c->offsets[i];
				len = (size_t) (c->offsets[i + 1] - c->offsets[i]);
			}
			else
			{
				len = c->fixed_size;
				p = (const uint8_t *) c->values + i * len;
			}
			for (uint64_t j = first; j < i && !seen; j++)
			{
				const uint8_t *q;
				size_t		qlen;

				if (c->nulls && c->nulls[j])
					continue;
				if (c->offsets)
				{
					q = (const uint8_t *) c->values + c->offsets[j];
					qlen = (size_t) (c->offsets[j + 1] - c->offsets[j]);
				}
				else
				{
					qlen = c->fixed_size;
					q = (const uint8_t *) c->values + j * qlen;
				}
				seen = qlen == len && memcmp(p, q, len) == 0;
			}
			distinct += !seen;
			/* no false negative */
			UNIT_CHECKF(sfd->field.sbbf_data.len == 0 || am_sbbf_might_contain(&sfd->field, p, len),
						"%s: bloom filter misses row %llu", c->name, (unsigned long long) i);
		}
		if (distinct > 1024)
		{
			UNIT_CHECK(sfd->field.sbbf_data.len == 0);
			return;
		}
		UNIT_CHECKF(sfd->field.sbbf_data.len > 0 && sfd->field.sbbf_num_blocks * 32 ==
					sfd->field.sbbf_data.len && sfd->field.sbbf_hash_seed ==
					UINT64_C(0x4D75646169424646), "%s: no bloom filter", c->name);
		/* sized for ~1% false positives: values never written rarely hit */
		if (c->offsets)
		{
			for (int k = 0; k < 2000; k++)
			{
				char		probe[32];

				snprintf(probe, sizeof(probe), "#absent-%d#", k);
				absent_hits += am_sbbf_might_contain(&sfd->field, probe, strlen(probe));
			}
			UNIT_CHECKF(absent_hits < 100, "%s: %llu of 2000 absent values hit", c->name,
						(unsigned long long) absent_hits);
		}
		index_checks++;
	}
}

/* Whether the shards read_all() checks were written with indexes. */
static bool expect_indexes = true;

static void
read_all(const uint8_t *file, size_t len, const AmWriterColumn *cs, int ncols,
		 uint64_t rows, uint64_t stripe_rows, bool constants)
{
	MemFile		mf = {file, len, 0};
	PfcSource	src = mem_source(&mf);
	AmShard    *shard;
	AmError		err;
	AmStatus	st;
	uint64_t	seed = 99;

	st = am_shard_open(&shard, &src, NULL, &pfc_malloc_allocator, &err);
	UNIT_CHECKF(st == AM_OK, "open: %s", err.message);
	if (st != AM_OK)
		return;
	UNIT_CHECK(am_shard_directory(shard)->total_record_count == rows);
	UNIT_CHECK(am_shard_schema(shard)->num_fields == (uint32_t) ncols);
	UNIT_CHECK(am_shard_stripe_count(shard) == (rows + stripe_rows - 1) / stripe_rows);
	for (int c = 0; c < ncols; c++)
	{
		const AmSchemaNode *n = &am_shard_schema(shard)->nodes[c];

		UNIT_CHECK(am_shard_find_field(shard, cs[c].name, strlen(cs[c].name)) == c);
		UNIT_CHECK(n->basic_type == cs[c].type && n->is_signed == cs[c].is_signed);
		if (cs[c].type == AM_TYPE_GUID || cs[c].type == AM_TYPE_FIXED_SIZE_BINARY)
			UNIT_CHECK(n->fixed_size == cs[c].fixed_size);
	}
	for (uint32_t s = 0; s < am_shard_stripe_count(shard); s++)
	{
		uint64_t	first = s * stripe_rows;
		uint64_t	n = rows - first < stripe_rows ? rows - first : stripe_rows;

		UNIT_CHECK(am_shard_stripe(shard, s)->shard_position == first);
		for (int c = 0; c < ncols; c++)
		{
			AmFieldReader *fr;
			AmStripeFieldDescriptor sfd;
			bool		present;
			int			anchor;
			uint64_t	nulls = 0;

			for (uint64_t i = 0; cs[c].nulls && i < n; i++)
				nulls += cs[c].nulls[first + i];
			st = am_shard_stripe_field(shard, s, (uint32_t) c, &present, &sfd, &anchor, &err);
			UNIT_CHECK(st == AM_OK && present);
			UNIT_CHECK(sfd.field.position_count == n);
			UNIT_CHECK(sfd.field.has_null_count && sfd.field.null_count == nulls);
			check_indexes(file, &cs[c], &sfd, first, n, expect_indexes);
			if (constants && strcmp(cs[c].name, "constant") == 0)
				UNIT_CHECK(sfd.num_buffers == 0 && sfd.field.constant_value.kind == AM_VALUE_I64 &&
						   sfd.field.constant_value.u64 == 7);
			if (constants && strcmp(cs[c].name, "nothing") == 0)
				UNIT_CHECK(sfd.num_buffers == 0 && sfd.field.constant_value.kind == AM_VALUE_NULL);
			if (cs[c].type == AM_TYPE_INT32 && nulls < n)
			{
				int64_t		lo = INT64_MAX,
							hi = INT64_MIN;

				for (uint64_t i = 0; i < n; i++)
				{
					int32_t		v = ((const int32_t *) cs[c].values)[first + i];

					lo = v < lo ? v : lo;
					hi = v > hi ? v : hi;
				}
				UNIT_CHECK(sfd.field.min_value.kind == AM_VALUE_I64 &&
						   (int64_t) sfd.field.min_value.u64 == lo &&
						   (int64_t) sfd.field.max_value.u64 == hi);
			}

			st = am_field_reader_open(&fr, shard, s, (uint32_t) c, &err);
			UNIT_CHECKF(st == AM_OK, "%s stripe %u: %s", cs[c].name, s, err.message);
			if (st != AM_OK)
				continue;
			UNIT_CHECK(am_field_reader_position_count(fr) == n);
			for (uint64_t pos = 0; pos < n;)
			{
				size_t		k = 1 + unit_rand(&seed) % 333;
				AmColumnBatch b;

				if (k > n - pos)
					k = (size_t) (n - pos);
				st = am_field_reader_read(fr, pos, k, &b, &err);
				UNIT_CHECKF(st == AM_OK, "%s: %s", cs[c].name, err.message);
				if (st != AM_OK)
					break;
				UNIT_CHECK(b.count == k);
				check_batch(&cs[c], first + pos, &b);
				pos += k;
			}
			am_field_reader_close(fr);
		}
	}
	am_shard_close(shard);
}

static void
test_roundtrip(bool constants)
{
	AmWriterOptions opt = {100, 1000, constants};
	uint8_t    *file = NULL;
	size_t		len = 0;
	AmError		err;
	AmStatus	st;

	st = am_write_shard(cols, NCOLS, ROWS, &opt, &pfc_malloc_allocator, &file, &len, &err);
	UNIT_CHECKF(st == AM_OK, "write: %s", err.message);
	if (st != AM_OK)
		return;
	UNIT_CHECK(memcmp(file, "amud\0\1\0\0", 8) == 0);
	UNIT_CHECK(memcmp(file + len - 8, "amud\0\1\0\0", 8) == 0);
	read_all(file, len, cols, NCOLS, ROWS, 1000, constants);
	free(file);
}

/* 2100 one-value blocks: three block-map segments of 1024. */
static void
test_segments(void)
{
	AmWriterOptions opt = {1, 0, false};
	uint8_t    *file = NULL;
	size_t		len = 0;
	AmError		err;
	AmWriterColumn c[2] = {
		{"i32", AM_TYPE_INT32, true, 0, AM_ENC_PLAIN, D.i32, NULL, D.nulls_some},
		{"s", AM_TYPE_STRING, false, 0, AM_ENC_PLAIN, D.str_bytes, D.str_off, NULL},
	};

	UNIT_CHECK(am_write_shard(c, 2, 2100, &opt, &pfc_malloc_allocator, &file, &len, &err) == AM_OK);
	read_all(file, len, c, 2, 2100, 2100, false);
	free(file);
}

/* Small shards as fuzz seeds (AMUDAI_SEED_DIR), and an empty shard. */
static void
test_small_and_seeds(void)
{
	AmWriterOptions opt = {4, 6, true};
	uint8_t    *file = NULL;
	size_t		len = 0;
	AmError		err;

	for (int c = 0; c < NCOLS; c++)
	{
		char		name[64];

		opt.detect_constants = c % 2 == 0;
		if (am_write_shard(&cols[c], 1, 10, &opt, &pfc_malloc_allocator, &file, &len, &err) != AM_OK)
		{
			UNIT_CHECKF(false, "%s: %s", cols[c].name, err.message);
			continue;
		}
		snprintf(name, sizeof(name), "writer_%s", cols[c].name);
		t_dump_seed(name, NULL, 0, file, len);
		read_all(file, len, &cols[c], 1, 10, 6, opt.detect_constants);
		free(file);
	}
	UNIT_CHECK(am_write_shard(cols, 2, 0, NULL, &pfc_malloc_allocator, &file, &len, &err) == AM_OK);
	{
		MemFile		mf = {file, len, 0};
		PfcSource	src = mem_source(&mf);
		AmShard    *shard;

		UNIT_CHECK(am_shard_open(&shard, &src, NULL, &pfc_malloc_allocator, &err) == AM_OK);
		if (err.status == AM_OK)
		{
			UNIT_CHECK(am_shard_directory(shard)->total_record_count == 0);
			am_shard_close(shard);
		}
	}
	free(file);
}

/*
 * List columns: a list of strings (null lists, null elements) and a list
 * of FFOR integers, 3 stripes; schema ids 0 (list), 1 (element), 2, 3.
 */
static void
test_lists(void)
{
	static uint64_t loff[ROWS + 1];
	static uint8_t lnull[ROWS];
	AmWriterColumn c[2] = {
		{"words", AM_TYPE_STRING, false, 0, AM_ENC_PLAIN, D.str_bytes, D.str_off,
		 D.nulls_some, loff, lnull},
		{"nums", AM_TYPE_INT64, true, 0, AM_ENC_FFOR, D.i64, NULL, NULL, loff, NULL},
	};
	AmWriterOptions opt = {64, 1000, false};
	uint8_t    *file = NULL;
	size_t		len = 0;
	AmError		err;
	MemFile		mf;
	PfcSource	src;
	AmShard    *shard;

	loff[0] = 0;
	for (int i = 0; i < ROWS; i++)
	{
		lnull[i] = i % 9 == 4;
		loff[i + 1] = loff[i] + (lnull[i] ? 0 : (uint64_t) (i % 2));
	}
	/* a small one as a fuzz seed */
	{
		AmWriterOptions small = {4, 6, true};

		if (am_write_shard(c, 2, 12, &small, &pfc_malloc_allocator, &file, &len, &err) == AM_OK)
		{
			t_dump_seed("writer_lists", NULL, 0, file, len);
			free(file);
		}
	}
	UNIT_CHECKF(am_write_shard(c, 2, ROWS, &opt, &pfc_malloc_allocator, &file, &len, &err) == AM_OK,
				"%s", err.message);
	mf.data = file;
	mf.len = len;
	mf.fail_errno = 0;
	src = mem_source(&mf);
	if (am_shard_open(&shard, &src, NULL, &pfc_malloc_allocator, &err) != AM_OK)
	{
		UNIT_CHECKF(false, "open: %s", err.message);
		free(file);
		return;
	}
	{
		const AmSchema *sc = am_shard_schema(shard);

		UNIT_CHECK(sc->schema_id_count == 4 && sc->num_fields == 2);
		UNIT_CHECK(sc->nodes[0].basic_type == AM_TYPE_LIST && sc->nodes[0].num_children == 1 &&
				   sc->nodes[0].children[0] == 1 && sc->nodes[1].parent_id == 0 &&
				   sc->nodes[1].basic_type == AM_TYPE_STRING);
		UNIT_CHECK(sc->nodes[2].basic_type == AM_TYPE_LIST && sc->nodes[3].basic_type == AM_TYPE_INT64 &&
				   sc->nodes[3].is_signed && sc->nodes[3].parent_id == 2);
	}
	for (uint32_t s = 0; s < 3; s++)
	{
		uint64_t	first = s * 1000;
		uint64_t	n = s < 2 ? 1000 : 500;
		uint64_t	e0 = loff[first],
					ne = loff[first + n] - e0;

		for (int col = 0; col < 2; col++)
		{
			AmFieldReader *fr;
			AmColumnBatch b;

			if (am_field_reader_open(&fr, shard, s, (uint32_t) (2 * col), &err) != AM_OK)
			{
				UNIT_CHECKF(false, "list %d: %s", col, err.message);
				continue;
			}
			UNIT_CHECK(am_field_reader_read(fr, 0, (size_t) n, &b, &err) == AM_OK);
			for (uint64_t i = 0; i <= n; i++)
				UNIT_CHECK(b.offsets[i] == loff[first + i] - e0);
			for (uint64_t i = 0; i < n; i++)
				UNIT_CHECK((b.nulls != NULL && b.nulls[i]) == (col == 0 && lnull[first + i]));
			am_field_reader_close(fr);

			if (am_field_reader_open(&fr, shard, s, (uint32_t) (2 * col + 1), &err) != AM_OK)
			{
				UNIT_CHECKF(false, "element %d: %s", col, err.message);
				continue;
			}
			UNIT_CHECK(am_field_reader_position_count(fr) == ne);
			UNIT_CHECK(am_field_reader_read(fr, 0, (size_t) ne, &b, &err) == AM_OK);
			check_batch(&c[col], e0, &b);
			am_field_reader_close(fr);
		}
	}
	am_shard_close(shard);
	free(file);
}

/* The encodings really are used: ALP, FSST and BlockDictionary blocks are smaller. */
static size_t
shard_size(const AmWriterColumn *c)
{
	AmWriterOptions opt = {1024, 0, false};
	uint8_t    *file = NULL;
	size_t		len = 0;
	AmError		err;

	if (am_write_shard(c, 1, ROWS, &opt, &pfc_malloc_allocator, &file, &len, &err) != AM_OK)
		return 0;
	free(file);
	return len;
}

static void
test_sizes(void)
{
	AmWriterColumn alp = {"p", AM_TYPE_FLOAT64, false, 0, AM_ENC_ALP, D.price, NULL, NULL};
	AmWriterColumn plain = alp;
	AmWriterColumn fsst = {"s", AM_TYPE_STRING, false, 0, AM_ENC_FSST, D.str_bytes, D.str_off, NULL};
	AmWriterColumn splain = fsst;
	AmWriterColumn dict;
	AmWriterColumn uniq = {"u", AM_TYPE_STRING, false, 0, 0, D.uniq_bytes, D.uniq_off, NULL};
	size_t		d,
				a,
				p,
				f,
				sp;

	plain.encoding = AM_ENC_PLAIN;
	splain.encoding = AM_ENC_PLAIN;
	a = shard_size(&alp);
	p = shard_size(&plain);
	f = shard_size(&fsst);
	sp = shard_size(&splain);
	UNIT_CHECKF(a > 0 && a * 10 < p * 6, "ALP %zu bytes vs plain %zu", a, p);
	UNIT_CHECKF(f > 0 && f < sp, "FSST %zu bytes vs plain %zu", f, sp);
	dict = fsst;
	dict.encoding = AM_ENC_BLOCK_DICTIONARY;
	d = shard_size(&dict);
	UNIT_CHECKF(d > 0 && d * 2 < sp, "BlockDictionary %zu bytes vs plain %zu", d, sp);
	uniq.encoding = AM_ENC_BLOCK_DICTIONARY;
	d = shard_size(&uniq);
	uniq.encoding = AM_ENC_PLAIN;
	UNIT_CHECKF(d > 0 && d == shard_size(&uniq), "unique values: %zu bytes vs plain %zu",
				d, shard_size(&uniq));
}

/*
 * AM_WRITER_ENC_AUTO: every column reads back exactly; the chosen blocks
 * are never larger than Plain and smaller than Plain for compressible data.
 */
static void
test_auto(void)
{
	AmWriterColumn autos[NCOLS];
	AmWriterOptions opt = {100, 1000, true};
	uint8_t    *file = NULL;
	size_t		len = 0;
	AmError		err;
	AmStatus	st;
	AmWriterColumn price = {"p", AM_TYPE_FLOAT64, false, 0, AM_WRITER_ENC_AUTO, D.price, NULL, NULL};
	AmWriterColumn price_plain = price;
	AmWriterColumn ts = {"t", AM_TYPE_DATETIME, false, 0, AM_WRITER_ENC_AUTO, D.ticks, NULL, NULL};
	AmWriterColumn ts_plain = ts;
	AmWriterColumn str = {"s", AM_TYPE_STRING, false, 0, AM_WRITER_ENC_AUTO, D.str_bytes, D.str_off, NULL};
	AmWriterColumn str_plain = str;

	memcpy(autos, cols, sizeof(autos));
	for (int c = 0; c < NCOLS; c++)
		autos[c].encoding = AM_WRITER_ENC_AUTO;
	st = am_write_shard(autos, NCOLS, ROWS, &opt, &pfc_malloc_allocator, &file, &len, &err);
	UNIT_CHECKF(st == AM_OK, "write auto: %s", err.message);
	if (st == AM_OK)
		read_all(file, len, autos, NCOLS, ROWS, 1000, true);
	free(file);

	price_plain.encoding = AM_ENC_PLAIN;
	ts_plain.encoding = AM_ENC_PLAIN;
	str_plain.encoding = AM_ENC_PLAIN;
	UNIT_CHECKF(shard_size(&price) < shard_size(&price_plain), "auto %zu vs plain %zu",
				shard_size(&price), shard_size(&price_plain));
	UNIT_CHECKF(shard_size(&ts) < shard_size(&ts_plain), "auto %zu vs plain %zu",
				shard_size(&ts), shard_size(&ts_plain));
	UNIT_CHECKF(shard_size(&str) <= shard_size(&str_plain), "auto %zu vs plain %zu",
				shard_size(&str), shard_size(&str_plain));
}

/*
 * Extension labels reach the schema (KustoDecimal on FixedSizeBinary(16),
 * KustoTimeSpan on Int64), decimal constants are decimal_value, and float
 * columns get double min/max ignoring NaN.
 */
static void
test_labels_and_float_stats(void)
{
	static uint8_t dec[3 * 16];
	static uint8_t dec2[3 * 16];
	static int64_t span[3] = {-10, 0, 36000000000};
	static double fl[3] = {2.5, NAN, -7.25};
	AmWriterColumn c[4] = {
		{"d", AM_TYPE_FIXED_SIZE_BINARY, false, 16, AM_WRITER_ENC_AUTO, dec, NULL, NULL},
		{"span", AM_TYPE_INT64, true, 0, AM_WRITER_ENC_AUTO, span, NULL, NULL},
		{"fl", AM_TYPE_FLOAT64, false, 0, AM_WRITER_ENC_AUTO, fl, NULL, NULL},
		{"d2", AM_TYPE_FIXED_SIZE_BINARY, false, 16, AM_WRITER_ENC_AUTO, dec2, NULL, NULL},
	};
	AmDecimal	d2v[3];
	AmWriterOptions opt = {0, 0, true};
	uint8_t    *file = NULL;
	size_t		len = 0;
	AmError		err;
	MemFile		mf;
	PfcSource	src;
	AmShard    *shard = NULL;
	AmStripeFieldDescriptor sfd;
	bool		present = false;
	int			anchor;
	AmDecimal	one;

	memset(&one, 0, sizeof(one));
	one.ndigits = 1;
	one.digits[0] = '1';
	for (int i = 0; i < 3; i++)
		UNIT_CHECK(am_decimal128_encode(&one, dec + 16 * i, &err) == AM_OK);
	c[0].extension_label = "KustoDecimal";
	c[1].extension_label = "KustoTimeSpan";
	c[3].extension_label = "KustoDecimal";
	/* d2: 2.50, -7, NaN: range [-7, 2.50], NaN left out */
	memset(d2v, 0, sizeof(d2v));
	d2v[0].ndigits = 3;
	memcpy(d2v[0].digits, "250", 3);
	d2v[0].exponent = -2;
	d2v[1].ndigits = 1;
	d2v[1].digits[0] = '7';
	d2v[1].negative = true;
	d2v[2].kind = AM_DECIMAL_NAN;
	for (int i = 0; i < 3; i++)
		UNIT_CHECK(am_decimal128_encode(&d2v[i], dec2 + 16 * i, &err) == AM_OK);
	UNIT_CHECK(am_write_shard(c, 4, 3, &opt, &pfc_malloc_allocator, &file, &len, &err) == AM_OK);
	mf.data = file;
	mf.len = len;
	mf.fail_errno = 0;
	src = mem_source(&mf);
	UNIT_CHECK(am_shard_open(&shard, &src, NULL, &pfc_malloc_allocator, &err) == AM_OK);
	if (shard != NULL)
	{
		const AmSchema *schema = am_shard_schema(shard);

		UNIT_CHECK(schema->nodes[0].extension_label.len == 12 &&
				   memcmp(schema->nodes[0].extension_label.data, "KustoDecimal", 12) == 0);
		UNIT_CHECK(schema->nodes[1].extension_label.len == 13 &&
				   memcmp(schema->nodes[1].extension_label.data, "KustoTimeSpan", 13) == 0);
		UNIT_CHECK(schema->nodes[2].extension_label.len == 0);
		/* all three decimals equal: a decimal_value constant */
		UNIT_CHECK(am_shard_stripe_field(shard, 0, 0, &present, &sfd, &anchor, &err) == AM_OK);
		UNIT_CHECK(present && sfd.field.constant_value.kind == AM_VALUE_DECIMAL &&
				   sfd.field.constant_value.bytes.len == 16 &&
				   memcmp(sfd.field.constant_value.bytes.data, dec, 16) == 0);
		UNIT_CHECK(am_shard_stripe_field(shard, 0, 1, &present, &sfd, &anchor, &err) == AM_OK);
		UNIT_CHECK(sfd.field.min_value.kind == AM_VALUE_I64 &&
				   (int64_t) sfd.field.min_value.u64 == -10 &&
				   (int64_t) sfd.field.max_value.u64 == 36000000000);
		UNIT_CHECK(am_shard_stripe_field(shard, 0, 2, &present, &sfd, &anchor, &err) == AM_OK);
		UNIT_CHECK(sfd.field.min_value.kind == AM_VALUE_DOUBLE &&
				   sfd.field.min_value.d == -7.25 && sfd.field.max_value.d == 2.5 &&
				   sfd.field.min_inclusive && sfd.field.max_inclusive);
		UNIT_CHECK(am_shard_stripe_field(shard, 0, 3, &present, &sfd, &anchor, &err) == AM_OK);
		UNIT_CHECK(sfd.field.min_value.kind == AM_VALUE_DECIMAL &&
				   sfd.field.min_value.bytes.len == 16 &&
				   memcmp(sfd.field.min_value.bytes.data, dec2 + 16, 16) == 0 &&
				   sfd.field.max_value.kind == AM_VALUE_DECIMAL &&
				   memcmp(sfd.field.max_value.bytes.data, dec2, 16) == 0);
		{
			AmFieldDescriptor fd;

			UNIT_CHECK(am_shard_field_descriptor(shard, 3, &present, &fd, &err) == AM_OK &&
					   fd.min_value.kind == AM_VALUE_DECIMAL &&
					   memcmp(fd.min_value.bytes.data, dec2 + 16, 16) == 0 &&
					   memcmp(fd.max_value.bytes.data, dec2, 16) == 0);
		}
		am_shard_close(shard);
	}
	free(file);
}

/* Large strings: blocks end by bytes (1 MiB), not by value count. */
static void
test_big_strings(void)
{
	enum
	{
		N = 10, LEN = 300 * 1024
	};
	uint8_t    *bytes = malloc((size_t) N * LEN);
	uint64_t	offsets[N + 1];
	AmWriterColumn c = {"big", AM_TYPE_STRING, false, 0, AM_WRITER_ENC_AUTO, bytes, offsets, NULL};
	AmWriterOptions opt = {100, 0, false};
	uint8_t    *file = NULL;
	size_t		len = 0;
	AmError		err;
	MemFile		mf;
	PfcSource	src;
	AmShard    *shard = NULL;
	AmFieldReader *reader = NULL;
	AmColumnBatch batch;
	AmStripeFieldDescriptor sfd;
	bool		present;
	int			anchor;

	for (size_t i = 0; i < (size_t) N * LEN; i++)
		bytes[i] = (uint8_t) ('a' + (i * 7 + i / 13) % 26);
	for (int i = 0; i <= N; i++)
		offsets[i] = (uint64_t) i * LEN;
	UNIT_CHECK(am_write_shard(&c, 1, N, &opt, &pfc_malloc_allocator, &file, &len, &err) == AM_OK);
	mf.data = file;
	mf.len = len;
	mf.fail_errno = 0;
	src = mem_source(&mf);
	UNIT_CHECK(am_shard_open(&shard, &src, NULL, &pfc_malloc_allocator, &err) == AM_OK);
	if (shard != NULL)
	{
		UNIT_CHECK(am_shard_stripe_field(shard, 0, 0, &present, &sfd, &anchor, &err) == AM_OK);
		/* 3 values (900 KiB) fit under 1 MiB: ceil(10 / 3) = 4 blocks */
		UNIT_CHECKF(present && sfd.num_buffers == 1 && sfd.buffers[0].block_count == 4,
					"%" PRIu64 " blocks", sfd.buffers[0].block_count);
		UNIT_CHECK(am_field_reader_open(&reader, shard, 0, 0, &err) == AM_OK);
		UNIT_CHECK(reader && am_field_reader_read(reader, 0, N, &batch, &err) == AM_OK);
		UNIT_CHECK(batch.count == N && batch.bytes_len == (size_t) N * LEN &&
				   memcmp(batch.bytes, bytes, (size_t) N * LEN) == 0);
		if (reader)
			am_field_reader_close(reader);
		am_shard_close(shard);
	}
	free(file);
	free(bytes);
}

/* Sink of the streaming writer: a growing malloc buffer. */
typedef struct SinkBuf
{
	uint8_t    *data;
	size_t		len;
	int			fail_after;		/* > 0: that call fails with EIO */
	int			calls;
} SinkBuf;

static int
sink_write(void *ctx, const void *data, size_t len)
{
	SinkBuf    *b = (SinkBuf *) ctx;

	if (b->fail_after > 0 && ++b->calls >= b->fail_after)
		return EIO;
	b->data = realloc(b->data, b->len + len);
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

static size_t
value_width(const AmWriterColumn *c)
{
	switch (c->type)
	{
		case AM_TYPE_BOOLEAN:
		case AM_TYPE_INT8:
			return 1;
		case AM_TYPE_INT16:
			return 2;
		case AM_TYPE_INT32:
		case AM_TYPE_FLOAT32:
			return 4;
		case AM_TYPE_GUID:
			return 16;
		case AM_TYPE_FIXED_SIZE_BINARY:
			return c->fixed_size;
		case AM_TYPE_STRING:
		case AM_TYPE_BINARY:
			return 0;
		default:
			return 8;
	}
}

/*
 * The streaming writer, fed stripe by stripe with views starting at each
 * stripe's first row, writes the very bytes am_write_shard() writes; the
 * shard-level descriptors merge the stripes' statistics; a failing sink is
 * an I/O error.
 */
static void
test_streaming(void)
{
	AmWriterOptions opt = {100, 1000, true};
	AmShardWriter *sw = NULL;
	SinkBuf		sink = {NULL, 0, 0, 0};
	uint8_t    *whole = NULL;
	size_t		whole_len = 0;
	AmError		err;
	AmStatus	st;
	AmWriterColumn view[NCOLS];

	UNIT_CHECK(am_write_shard(cols, NCOLS, ROWS, &opt, &pfc_malloc_allocator,
							  &whole, &whole_len, &err) == AM_OK);
	st = am_shard_writer_begin(&sw, cols, NCOLS, &opt, &pfc_malloc_allocator,
							   sink_write, &sink, &err);
	UNIT_CHECKF(st == AM_OK, "begin: %s", err.message);
	for (uint64_t first = 0; st == AM_OK && first < ROWS; first += 1000)
	{
		uint64_t	n = ROWS - first < 1000 ? ROWS - first : 1000;

		for (int c = 0; c < NCOLS; c++)
		{
			size_t		wdt = value_width(&cols[c]);

			view[c] = cols[c];
			if (wdt > 0)
				view[c].values = (const uint8_t *) cols[c].values + first * wdt;
			else
				view[c].offsets = cols[c].offsets + first;
			if (cols[c].nulls)
				view[c].nulls = cols[c].nulls + first;
		}
		st = am_shard_writer_add_stripe(sw, view, n, &err);
		UNIT_CHECKF(st == AM_OK, "stripe at %" PRIu64 ": %s", first, err.message);
	}
	if (st == AM_OK)
		UNIT_CHECKF(am_shard_writer_finish(sw, &err) == AM_OK, "finish: %s", err.message);
	am_shard_writer_free(sw);
	UNIT_CHECKF(sink.len == whole_len && memcmp(sink.data, whole, whole_len) == 0,
				"streamed %zu bytes, whole %zu", sink.len, whole_len);

	/* shard-level descriptors: merged counts and ranges */
	{
		MemFile		mf = {whole, whole_len, 0};
		PfcSource	src = mem_source(&mf);
		AmShard    *shard = NULL;
		AmFieldDescriptor fd;
		bool		present;

		UNIT_CHECK(am_shard_open(&shard, &src, NULL, &pfc_malloc_allocator, &err) == AM_OK);
		for (int c = 0; shard != NULL && c < NCOLS; c++)
		{
			uint64_t	nulls = 0;

			for (int i = 0; cols[c].nulls && i < ROWS; i++)
				nulls += cols[c].nulls[i] != 0;
			UNIT_CHECK(am_shard_field_descriptor(shard, (uint32_t) c, &present, &fd, &err) == AM_OK);
			UNIT_CHECKF(present && fd.position_count == ROWS && fd.has_null_count &&
						fd.null_count == nulls, "%s: %" PRIu64 " nulls", cols[c].name, fd.null_count);
			if (strcmp(cols[c].name, "i32_delta") == 0)
			{
				int64_t		lo = INT64_MAX,
							hi = INT64_MIN;

				for (int i = 0; i < ROWS; i++)
				{
					lo = D.i32[i] < lo ? D.i32[i] : lo;
					hi = D.i32[i] > hi ? D.i32[i] : hi;
				}
				UNIT_CHECK((int64_t) fd.min_value.u64 == lo && (int64_t) fd.max_value.u64 == hi);
			}
			if (strcmp(cols[c].name, "constant") == 0)
				UNIT_CHECK(fd.constant_value.kind == AM_VALUE_I64 &&
						   (int64_t) fd.constant_value.u64 == D.constant[0]);
			if (strcmp(cols[c].name, "nothing") == 0)
				UNIT_CHECK(fd.constant_value.kind == AM_VALUE_NULL);
			if (strcmp(cols[c].name, "i64_ffor") == 0)
				UNIT_CHECK(fd.constant_value.kind == AM_VALUE_ABSENT);
		}
		if (shard)
			am_shard_close(shard);
	}

	/* the sink failing on its second call */
	sw = NULL;
	free(sink.data);
	memset(&sink, 0, sizeof(sink));
	sink.fail_after = 2;
	st = am_shard_writer_begin(&sw, cols, NCOLS, &opt, &pfc_malloc_allocator,
							   sink_write, &sink, &err);
	for (uint64_t first = 0; st == AM_OK && first < ROWS; first += 1000)
		st = am_shard_writer_add_stripe(sw, cols, ROWS - first < 1000 ? ROWS - first : 1000, &err);
	if (st == AM_OK)
		st = am_shard_writer_finish(sw, &err);
	UNIT_CHECK(st == AM_ERR_IO && err.sys_errno == EIO);
	am_shard_writer_free(sw);
	free(sink.data);
	free(whole);
}

/*
 * Pruning aids on realistic data: 10000 rows sorted by key in stripes of
 * 4000, a decimal column with NaNs and nulls, floats with NaNs, strings
 * of 10 and of 10000 distinct values (the second gets no Bloom filter),
 * Guids; then the same without indexes.
 */
#define IROWS 10000

static void
test_indexes(void)
{
	static int64_t key[IROWS];
	static double fl[IROWS];
	static uint8_t dec[IROWS * 16];
	static uint8_t guid[IROWS * 16];
	static uint8_t few[IROWS * 4],
				many[IROWS * 8];
	static uint64_t few_off[IROWS + 1],
				many_off[IROWS + 1];
	static uint8_t nulls[IROWS];
	static uint64_t ticks[IROWS];
	AmWriterColumn c[7];
	size_t		fa = 0,
				ma = 0;
	AmError		err;
	int			before = index_checks;

	for (int i = 0; i < IROWS; i++)
	{
		AmDecimal	d = {0};

		key[i] = (int64_t) i * 3 - 5000;
		fl[i] = i % 333 == 0 ? NAN : (double) (i % 1000) / 4.0;
		nulls[i] = i % 17 == 0 || (i >= 512 && i < 768);
		d.kind = i % 401 == 0 ? AM_DECIMAL_NAN : AM_DECIMAL_FINITE;
		d.negative = i % 3 == 0;
		d.exponent = -(i % 4);
		d.ndigits = (uint32_t) snprintf(d.digits, sizeof(d.digits), "%d", i % 9973 + 1);
		UNIT_CHECK(am_decimal128_encode(&d, dec + 16 * i, &err) == AM_OK);
		for (int k = 0; k < 16; k++)
			guid[i * 16 + k] = (uint8_t) ((i % 50) * 7 + k);
		ticks[i] = UINT64_C(630822816000000000) + (uint64_t) (IROWS - i) * 600000000;
		few_off[i] = fa;
		fa += (size_t) snprintf((char *) few + fa, 4, "k%d", i % 10);
		many_off[i] = ma;
		ma += (size_t) snprintf((char *) many + ma, 8, "s%05d", i);
	}
	few_off[IROWS] = fa;
	many_off[IROWS] = ma;
	memset(c, 0, sizeof(c));
	c[0] = (AmWriterColumn) {"key", AM_TYPE_INT64, true, 0, AM_WRITER_ENC_AUTO, key, NULL, NULL};
	c[1] = (AmWriterColumn) {"f", AM_TYPE_FLOAT64, false, 0, 0, fl, NULL, nulls};
	c[2] = (AmWriterColumn) {"dec", AM_TYPE_FIXED_SIZE_BINARY, false, 16, 0, dec, NULL, nulls};
	c[2].extension_label = "KustoDecimal";
	c[3] = (AmWriterColumn) {"few", AM_TYPE_STRING, false, 0, 0, few, few_off, nulls};
	c[4] = (AmWriterColumn) {"many", AM_TYPE_STRING, false, 0, AM_ENC_FSST, many, many_off, NULL};
	c[5] = (AmWriterColumn) {"g", AM_TYPE_GUID, false, 16, 0, guid, NULL, NULL};
	c[6] = (AmWriterColumn) {"t", AM_TYPE_DATETIME, false, 0, 0, ticks, NULL, nulls};
	for (int pass = 0; pass < 2; pass++)
	{
		AmWriterOptions opt = {2048, 4000, true, pass == 1};
		uint8_t    *file = NULL;
		size_t		len = 0;
		AmStatus	st;

		st = am_write_shard(c, 7, IROWS, &opt, &pfc_malloc_allocator, &file, &len, &err);
		UNIT_CHECKF(st == AM_OK, "write: %s", err.message);
		if (st != AM_OK)
			return;
		expect_indexes = pass == 0;
		read_all(file, len, c, 7, IROWS, 4000, true);
		expect_indexes = true;
		free(file);
	}
	/* key, f, dec, t: 4 range indexes; few, g: 2 filters; 3 stripes */
	UNIT_CHECKF(index_checks - before == 18, "%d index checks", index_checks - before);
}

int
main(void)
{
	make_data();
	test_roundtrip(false);
	test_roundtrip(true);
	test_segments();
	test_small_and_seeds();
	test_sizes();
	test_lists();
	test_auto();
	test_labels_and_float_stats();
	test_big_strings();
	test_streaming();
	test_indexes();
	UNIT_MAIN_END("test_amudai_roundtrip");
}
