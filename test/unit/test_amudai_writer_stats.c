/*-------------------------------------------------------------------------
 *
 * test_amudai_writer_stats.c
 *	  What writer.c stores besides the values, as the reference writes it
 *	  (format notes 1.10, 2.1, 3.5, 5.2): signed only on integers, the
 *	  schema's field_lookup, raw_data_size on directory, stripes and fields,
 *	  String/Binary/Boolean/Floating statistics, an empty range_stats on
 *	  all-null numeric stripes, buffer_id and packed_group_index on
 *	  RANGE_INDEX descriptors, and the presence kind of each block.
 *
 * Expected values are computed here from the generated columns, and the
 * shard is read back through the reader (messages.c); the schema's lookup
 * table and the presence bytes, which the reader skips, are walked by hand.
 *
 * IDENTIFICATION
 *	  test/unit/test_amudai_writer_stats.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "amudai_test_util.h"

#include <math.h>

#define ROWS 5000
#define STRIPE 2000
#define NSTRIPES ((ROWS + STRIPE - 1) / STRIPE)

static int32_t i32[ROWS];
static double f64[ROWS];
static float f32[ROWS];
static uint8_t flags[ROWS];
static uint8_t str_bytes[ROWS * 8];
static uint64_t str_off[ROWS + 1];
static uint8_t bin_bytes[ROWS * 4];
static uint64_t bin_off[ROWS + 1];
static int64_t nothing[ROWS];
static uint8_t n_some[ROWS];	/* about 30% */
static uint8_t n_all[ROWS];
static uint8_t n_dense[ROWS];	/* 10 per stripe: 0.5% */
static uint8_t n_edge[ROWS];	/* 20 per stripe of 2000: exactly 1% */
static uint8_t n_sparse[ROWS];	/* all but 10 per stripe: 99.5% */
static uint8_t n_first_stripe[ROWS];	/* stripe 0 all null */

enum
{
	C_I32, C_F64, C_F32, C_FLAGS, C_STR, C_BIN, C_NOTHING, C_DENSE, C_EDGE,
	C_SPARSE, C_HALF, NCOLS
};

static AmWriterColumn cols[NCOLS] = {
	{"i32", AM_TYPE_INT32, true, 0, AM_ENC_PLAIN, i32, NULL, n_some},
	{"f64", AM_TYPE_FLOAT64, true, 0, AM_ENC_PLAIN, f64, NULL, n_some},
	{"f32", AM_TYPE_FLOAT32, true, 0, AM_ENC_PLAIN, f32, NULL, NULL},
	{"flags", AM_TYPE_BOOLEAN, true, 0, AM_ENC_PLAIN, flags, NULL, n_some},
	{"s", AM_TYPE_STRING, true, 0, AM_ENC_PLAIN, str_bytes, str_off, n_some},
	{"b", AM_TYPE_BINARY, false, 0, AM_ENC_PLAIN, bin_bytes, bin_off, NULL},
	{"nothing", AM_TYPE_INT64, true, 0, AM_ENC_PLAIN, nothing, NULL, n_all},
	{"dense", AM_TYPE_INT32, true, 0, AM_ENC_PLAIN, i32, NULL, n_dense},
	{"edge", AM_TYPE_INT32, true, 0, AM_ENC_PLAIN, i32, NULL, n_edge},
	{"sparse", AM_TYPE_INT32, true, 0, AM_ENC_PLAIN, i32, NULL, n_sparse},
	{"half", AM_TYPE_FLOAT64, false, 0, AM_ENC_PLAIN, f64, NULL, n_first_stripe},
};

static void
generate(void)
{
	uint64_t	seed = 17;
	static const char *const words[] = {"", "a", "abc", "h\xc3\xa9llo", "zz", "wxyz1234"};
	size_t		at = 0;

	for (int i = 0; i < ROWS; i++)
	{
		uint64_t	r = unit_rand(&seed);
		int			k = i % STRIPE;
		const char *w = words[r % 6];

		i32[i] = (int32_t) ((r >> 12) % (1u << 24)) - (1 << 20);
		switch (r % 9)
		{
			case 0:
				f64[i] = NAN;
				break;
			case 1:
				f64[i] = HUGE_VAL;
				break;
			case 2:
				f64[i] = -HUGE_VAL;
				break;
			case 3:
				f64[i] = -0.0;
				break;
			case 4:
				f64[i] = 0.0;
				break;
			default:
				f64[i] = ((double) (r >> 20) - 1e9) / 7;
		}
		f32[i] = (float) (i % 5) - 2.0f;
		flags[i] = (r >> 3) % 3 == 0;
		str_off[i] = at;
		memcpy(str_bytes + at, w, strlen(w));
		at += strlen(w);
		bin_off[i] = (uint64_t) i * 4 - (uint64_t) (i / 3) * 4;
		n_some[i] = (r >> 5) % 10 < 3;
		n_all[i] = 1;
		n_dense[i] = k % 200 == 7;
		n_edge[i] = k % 100 == 3;
		n_sparse[i] = k % 200 != 7;
		n_first_stripe[i] = i < STRIPE;
	}
	str_off[ROWS] = at;
	/* b: every third value empty, the others 4 bytes */
	for (int i = 0, o = 0; i < ROWS; i++)
	{
		bin_off[i] = (uint64_t) o;
		if (i % 3 != 0)
		{
			memset(bin_bytes + o, i & 0xff, 4);
			o += 4;
		}
		bin_off[i + 1] = (uint64_t) o;
	}
}

/* Independently computed statistics of rows [first, first + n) of column c. */
typedef struct Expect
{
	uint64_t	nulls;
	uint64_t	raw;
	uint64_t	min_size,
				max_size,
				min_non_empty,
				ascii;
	bool		any_non_empty;
	uint64_t	t,
				f;
	uint64_t	fc[6];
	uint8_t		hll[128];
} Expect;

/* The sketch of section 5.3, computed here: p = 7, XXH3 with its seed. */
static void
hll_add_test(uint8_t *counters, const uint8_t *v, size_t len)
{
	uint64_t	h = XXH3_64bits_withSeed(v, len, UINT64_C(0x416D7564484C4C31));
	uint64_t	low = h & ((UINT64_C(1) << 57) - 1);
	int			rank = 58;

	if (low != 0)
	{
		int			log2 = 0;

		while ((low >> (log2 + 1)) != 0)
			log2++;
		rank = 57 - log2;
	}
	if (rank > counters[h >> 57])
		counters[h >> 57] = (uint8_t) rank;
}

static uint64_t
hll_count_test(const uint8_t *counters)
{
	double		sum = 0,
				e;
	int			zeros = 0;

	for (int i = 0; i < 128; i++)
	{
		sum += pow(2.0, -counters[i]);
		zeros += counters[i] == 0;
	}
	e = 0.7213 / (1 + 1.079 / 128.0) * 128.0 * 128.0 / sum;
	if (e <= 2.5 * 128 && zeros > 0)
		e = 128 * log(128.0 / zeros);
	return (uint64_t) (e + 0.5);
}

static void
expect(int c, uint64_t first, uint64_t n, Expect *e)
{
	const AmWriterColumn *col = &cols[c];
	uint64_t	present;

	memset(e, 0, sizeof(*e));
	e->min_size = UINT64_MAX;
	for (uint64_t r = first; r < first + n; r++)
	{
		if (col->nulls && col->nulls[r])
		{
			e->nulls++;
			continue;
		}
		if (col->type == AM_TYPE_STRING || col->type == AM_TYPE_BINARY)
		{
			uint64_t	len = col->offsets[r + 1] - col->offsets[r];
			bool		ascii = true;

			for (uint64_t k = 0; k < len; k++)
				ascii &= ((const uint8_t *) col->values)[col->offsets[r] + k] < 128;
			e->ascii += ascii;
			e->raw += len;
			hll_add_test(e->hll, (const uint8_t *) col->values + col->offsets[r], (size_t) len);
			if (len < e->min_size)
				e->min_size = len;
			if (len > e->max_size)
				e->max_size = len;
			if (len > 0 && (!e->any_non_empty || len < e->min_non_empty))
			{
				e->any_non_empty = true;
				e->min_non_empty = len;
			}
		}
		else if (col->type == AM_TYPE_BOOLEAN)
			((const uint8_t *) col->values)[r] ? e->t++ : e->f++;
		else if (col->type == AM_TYPE_FLOAT64 || col->type == AM_TYPE_FLOAT32)
		{
			double		d = col->type == AM_TYPE_FLOAT64 ? ((const double *) col->values)[r] :
				((const float *) col->values)[r];

			e->fc[isnan(d) ? 3 : isinf(d) ? (d > 0 ? 4 : 5) : d == 0 ? 0 : d > 0 ? 1 : 2]++;
		}
	}
	present = n - e->nulls;
	if (col->type == AM_TYPE_BOOLEAN)
		e->raw = (present + 7) / 8;
	else if (col->type == AM_TYPE_INT32 || col->type == AM_TYPE_FLOAT32)
		e->raw = present * 4;
	else if (col->type == AM_TYPE_INT64 || col->type == AM_TYPE_FLOAT64)
		e->raw = present * 8;
	if (e->nulls > 0 && present > 0)
		e->raw += (n + 7) / 8;
	if (present == 0)
		e->raw = 0;
	if (e->min_size == UINT64_MAX)
		e->min_size = 0;
}

static void
check_descriptor(int c, const AmFieldDescriptor *fd, const Expect *e, const char *where)
{
	const AmWriterColumn *col = &cols[c];

	UNIT_CHECKF(fd->has_raw_data_size && fd->raw_data_size == e->raw,
				"%s %s: raw_data_size %llu, expected %llu", where, col->name,
				(unsigned long long) fd->raw_data_size, (unsigned long long) e->raw);
	if (col->type == AM_TYPE_STRING || col->type == AM_TYPE_BINARY)
	{
		bool		str = col->type == AM_TYPE_STRING;

		UNIT_CHECKF(str ? fd->has_string_stats && !fd->has_binary_stats :
					fd->has_binary_stats && !fd->has_string_stats, "%s %s: stats kind", where, col->name);
		UNIT_CHECKF(fd->min_size == e->min_size && fd->max_size == e->max_size,
					"%s %s: sizes %llu..%llu", where, col->name,
					(unsigned long long) fd->min_size, (unsigned long long) fd->max_size);
		UNIT_CHECK(fd->has_min_non_empty_size == e->any_non_empty &&
				   (!e->any_non_empty || fd->min_non_empty_size == e->min_non_empty));
		UNIT_CHECK(fd->has_ascii_count == str && (!str || fd->ascii_count == e->ascii));
	}
	else
		UNIT_CHECK(!fd->has_string_stats && !fd->has_binary_stats);
	/* the cardinality estimate of the sketch (strings and binaries only) */
	if (col->type == AM_TYPE_STRING || col->type == AM_TYPE_BINARY)
		UNIT_CHECKF(fd->has_cardinality && fd->cardinality == hll_count_test(e->hll),
					"%s %s: cardinality %llu, expected %llu", where, col->name,
					(unsigned long long) fd->cardinality,
					(unsigned long long) hll_count_test(e->hll));
	else
		UNIT_CHECK(!fd->has_cardinality);
	UNIT_CHECK(fd->has_boolean_stats == (col->type == AM_TYPE_BOOLEAN));
	if (col->type == AM_TYPE_BOOLEAN)
		UNIT_CHECK(fd->true_count == e->t && fd->false_count == e->f);
	UNIT_CHECK(fd->has_floating_stats ==
			   (col->type == AM_TYPE_FLOAT64 || col->type == AM_TYPE_FLOAT32));
	for (int k = 0; k < 6 && fd->has_floating_stats; k++)
		UNIT_CHECKF(fd->floating_counts[k] == e->fc[k], "%s %s: floating count %d: %llu, expected %llu",
					where, col->name, k, (unsigned long long) fd->floating_counts[k],
					(unsigned long long) e->fc[k]);
	/* an all-null numeric field still has range_stats, without bounds */
	if (e->nulls == fd->position_count && col->type != AM_TYPE_BOOLEAN &&
		col->type != AM_TYPE_STRING && col->type != AM_TYPE_BINARY)
		UNIT_CHECKF(fd->has_range_stats && fd->min_value.kind == AM_VALUE_ABSENT &&
					fd->max_value.kind == AM_VALUE_ABSENT, "%s %s: empty range_stats", where, col->name);
}

/* Payload of the envelope at [start, end): [u32 len][payload][u32 checksum]. */
static const uint8_t *
payload_at(const uint8_t *file, uint64_t start)
{
	return file + start + 4;
}

static uint32_t
u32_at(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t
u16_at(const uint8_t *p)
{
	uint16_t	v;

	memcpy(&v, p, 2);
	return v;
}

/* Position of the table that slot `slot` of the table at t points to, or 0. */
static size_t
fb_slot_ref(const uint8_t *fb, size_t t, int slot)
{
	size_t		vt = t - (int32_t) u32_at(fb + t);
	uint16_t	vt_len = u16_at(fb + vt);
	uint16_t	off;

	if (4 + 2 * slot + 2 > vt_len)
		return 0;
	off = u16_at(fb + vt + 4 + 2 * slot);
	if (off == 0)
		return 0;
	return t + off + u32_at(fb + t + off);
}

static void
check_field_lookup(const uint8_t *file, const AmShard *shard)
{
	const AmShardDirectory *dir = am_shard_directory(shard);
	const uint8_t *fb = payload_at(file, dir->schema_ref.start);
	size_t		root = u32_at(fb);
	size_t		lookup = fb_slot_ref(fb, root, 2);
	size_t		buckets,
				entries;
	uint32_t	nb,
				ne,
				expect_nb = 1;

	UNIT_CHECKF(lookup != 0, "Schema.field_lookup missing");
	if (lookup == 0)
		return;
	buckets = fb_slot_ref(fb, lookup, 0);
	entries = fb_slot_ref(fb, lookup, 1);
	UNIT_CHECK(buckets != 0 && entries != 0);
	if (buckets == 0 || entries == 0)
		return;
	nb = u32_at(fb + buckets) - 1;
	ne = u32_at(fb + entries);
	while (expect_nb < (NCOLS > 4 ? NCOLS : 4) / 2)
		expect_nb <<= 1;
	UNIT_CHECKF(nb == expect_nb, "lookup buckets %u, expected %u", nb, expect_nb);
	UNIT_CHECK(ne == NCOLS && u32_at(fb + buckets + 4) == 0 &&
			   u32_at(fb + buckets + 4 + 4 * nb) == ne);
	for (int c = 0; c < NCOLS && nb == expect_nb; c++)
	{
		uint32_t	b = (uint32_t) (XXH3_64bits(cols[c].name, strlen(cols[c].name)) & (nb - 1));
		uint32_t	lo = u32_at(fb + buckets + 4 + 4 * b),
					hi = u32_at(fb + buckets + 8 + 4 * b);
		bool		found = false;

		for (uint32_t k = lo; k < hi && k < ne; k++)
			found |= u32_at(fb + entries + 4 + 4 * k) == (uint32_t) c;
		UNIT_CHECKF(found, "lookup: %s not in its bucket %u", cols[c].name, b);
	}
}

/* Count the bytes of a RANGE_INDEX descriptor's buffer_id = 0 and
 * packed_group_index = 0 (fixed32 tags 20 and 21) in [p, p + n). */
static int
count_group_tags(const uint8_t *p, size_t n)
{
	static const uint8_t pat[12] = {0xa5, 0x01, 0, 0, 0, 0, 0xad, 0x01, 0, 0, 0, 0};
	int			hits = 0;

	for (size_t i = 0; i + sizeof(pat) <= n; i++)
		hits += memcmp(p + i, pat, sizeof(pat)) == 0;
	return hits;
}

static void
test_written_statistics(void)
{
	AmWriterOptions opt = {2048, STRIPE, false};
	uint8_t    *file = NULL;
	size_t		len = 0;
	AmError		err;
	AmStatus	st;
	MemFile		mf;
	PfcSource	src;
	AmShard    *shard;
	uint64_t	dir_raw = 0;

	st = am_write_shard(cols, NCOLS, ROWS, &opt, &pfc_malloc_allocator, &file, &len, &err);
	UNIT_CHECKF(st == AM_OK, "write: %s", err.message);
	if (st != AM_OK)
		return;
	mf = (MemFile) {file, len, 0};
	src = mem_source(&mf);
	st = am_shard_open(&shard, &src, NULL, &pfc_malloc_allocator, &err);
	UNIT_CHECKF(st == AM_OK, "open: %s", err.message);
	if (st != AM_OK)
	{
		free(file);
		return;
	}
	/* signed = false on all but integers (arrow_to_amudai_schema.rs) */
	for (int c = 0; c < NCOLS; c++)
	{
		const AmSchemaNode *n = &am_shard_schema(shard)->nodes[c];
		bool		integer = cols[c].type >= AM_TYPE_INT8 && cols[c].type <= AM_TYPE_INT64;

		UNIT_CHECKF(n->is_signed == (integer && cols[c].is_signed), "%s: signed", cols[c].name);
	}
	check_field_lookup(file, shard);

	for (uint32_t s = 0; s < NSTRIPES; s++)
	{
		uint64_t	first = (uint64_t) s * STRIPE;
		uint64_t	n = ROWS - first < STRIPE ? ROWS - first : STRIPE;
		uint64_t	stripe_raw = 0;
		int			numeric_present = 0,
					group_tags = 0;

		for (int c = 0; c < NCOLS; c++)
		{
			AmStripeFieldDescriptor sfd;
			bool		present;
			int			anchor;
			Expect		e;
			char		where[32];

			snprintf(where, sizeof(where), "stripe %u", s);
			st = am_shard_stripe_field(shard, s, (uint32_t) c, &present, &sfd, &anchor, &err);
			UNIT_CHECK(st == AM_OK && present);
			if (st != AM_OK || !present)
				continue;
			expect(c, first, n, &e);
			check_descriptor(c, &sfd.field, &e, where);
			stripe_raw += e.raw;
			for (uint32_t b = 0; b < sfd.num_buffers; b++)
			{
				const AmEncodedBuffer *eb = &sfd.buffers[b];

				if (eb->kind == AM_BUFFER_RANGE_INDEX)
					numeric_present++;
				/* presence kind of the first (only) block: section 3.5 */
				if (eb->kind == AM_BUFFER_DATA && eb->embedded_presence)
				{
					const uint8_t *blk = file + eb->buffer.start;
					uint32_t	psize = u32_at(blk);
					int			want = e.nulls == 0 ? 0 : e.nulls == n ? 1 :
						e.nulls * 100 < n ? 31 : e.nulls * 100 > n * 99 ? 30 : 2;
					int			got = psize == 0 ? 0 : blk[8] == 3 ? 30 + blk[9] : blk[8];

					UNIT_CHECKF(got == want, "stripe %u %s: presence %d, expected %d",
								s, cols[c].name, got, want);
					if (want == 2)
						UNIT_CHECK(psize == 1 + n);
				}
			}
		}
		/* the stripe field descriptors lie between the stripe's data and
		 * its field list: count the tags over the whole stripe span */
		{
			uint64_t	from = s == 0 ? 8 : 0;
			uint64_t	to = am_shard_stripe(shard, s)->field_list_ref.end;

			if (s > 0)
				from = am_shard_stripe(shard, s - 1)->field_list_ref.end;
			group_tags = count_group_tags(file + from, (size_t) (to - from));
		}
		UNIT_CHECKF(numeric_present > 0 && group_tags == numeric_present,
					"stripe %u: %d RANGE_INDEX buffers, %d with buffer_id/packed_group_index",
					s, numeric_present, group_tags);
		UNIT_CHECKF(am_shard_stripe(shard, s)->has_raw_data_size &&
					am_shard_stripe(shard, s)->raw_data_size == stripe_raw,
					"stripe %u raw_data_size %llu, expected %llu", s,
					(unsigned long long) am_shard_stripe(shard, s)->raw_data_size,
					(unsigned long long) stripe_raw);
		dir_raw += stripe_raw;
	}
	UNIT_CHECK(am_shard_directory(shard)->has_raw_data_size &&
			   am_shard_directory(shard)->raw_data_size == dir_raw);

	/* shard level: counts and sizes summed, sizes bounded over the stripes */
	for (int c = 0; c < NCOLS; c++)
	{
		AmFieldDescriptor fd;
		bool		present;
		Expect		e,
					part;

		st = am_shard_field_descriptor(shard, (uint32_t) c, &present, &fd, &err);
		UNIT_CHECK(st == AM_OK && present);
		if (st != AM_OK)
			continue;
		expect(c, 0, ROWS, &e);
		/* raw_data_size is the sum of the stripes', not the shard's own */
		e.raw = 0;
		for (uint32_t s = 0; s < NSTRIPES; s++)
		{
			uint64_t	first = (uint64_t) s * STRIPE;

			expect(c, first, ROWS - first < STRIPE ? ROWS - first : STRIPE, &part);
			e.raw += part.raw;
		}
		check_descriptor(c, &fd, &e, "shard");
	}
	am_shard_close(shard);
	free(file);
}

int
main(void)
{
	generate();
	test_written_statistics();
	UNIT_MAIN_END("test_amudai_writer_stats");
}
