/*-------------------------------------------------------------------------
 *
 * test_amudai_encodings.c
 *	  Whole shards with the value encodings the reference writer emits and
 *	  writer.c does not (issue #17): FLBitPack, FOR, Truncate, ZigZag,
 *	  Sparse, ALPRD, RunLength and BlockDictionary with any children,
 *	  numeric and binary SingleValue, LZ4 and ZSTD at any level, in small
 *	  and one-value blocks, with AllNulls, Plain and Roaring presence; and
 *	  String/Binary stripes as field-level dictionaries (u32 ids and a
 *	  VALUE_DICTIONARY buffer), one stripe or several; and TwoLevel
 *	  shards whose buffers live in stripe files beside the root.
 *
 * writer.c writes the shard (framing, block maps, presence, descriptors);
 * AmWriterOptions.section_hook replaces each block's value section with
 * one from amudai_test_encode.h, which lays the bytes out from the format
 * notes.  The reader (am_shard_open, field readers) must return exactly the
 * generated rows.  Every spec must be used for at least one block of every
 * value type it applies to, so a spec the encoder silently refuses fails.
 * The small sections are also decoded truncated and with flipped bytes
 * (an error status or values, never a crash: run-unit-san checks that)
 * and, with AMUDAI_SEED_DIR set, dumped as fuzz_amudai_block seeds; with
 * AMUDAI_SHARD_SEED_DIR set, a 10-row shard per spec (i32, f64, string,
 * guid) goes there as a fuzz_amudai_shard seed.
 *
 * IDENTIFICATION
 *	  test/unit/test_amudai_encodings.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"
#include "amudai_test_encode.h"

#include <math.h>

#define ROWS 3000

static const PfcAllocator *A = &pfc_malloc_allocator;

/* ---------------- the hook ---------------- */

typedef struct Hook
{
	const char *spec;
	TBuf		out;
	uint64_t	encoded;		/* blocks the spec encoded */
	uint64_t	refused;		/* blocks left to the writer */
	bool		check_hostile;	/* decode truncated / flipped sections */
	char		seed_name[96];	/* first small section as a fuzz seed */
} Hook;

static AmNumType
num_type_of(const AmWriterColumn *c)
{
	switch (c->type)
	{
		case AM_TYPE_INT8:
			return c->is_signed ? AM_NUM_I8 : AM_NUM_U8;
		case AM_TYPE_INT16:
			return c->is_signed ? AM_NUM_I16 : AM_NUM_U16;
		case AM_TYPE_INT32:
			return c->is_signed ? AM_NUM_I32 : AM_NUM_U32;
		case AM_TYPE_INT64:
			return c->is_signed ? AM_NUM_I64 : AM_NUM_U64;
		case AM_TYPE_FLOAT32:
			return AM_NUM_F32;
		case AM_TYPE_FLOAT64:
			return AM_NUM_F64;
		default:
			return AM_NUM_U64;	/* DateTime ticks */
	}
}

static uint32_t
fixed_width_of(const AmWriterColumn *c)
{
	return c->type == AM_TYPE_GUID ? 16 :
		c->type == AM_TYPE_FIXED_SIZE_BINARY ? c->fixed_size : 0;
}

static bool
is_binary(const AmWriterColumn *c)
{
	return c->type == AM_TYPE_STRING || c->type == AM_TYPE_BINARY ||
		c->type == AM_TYPE_GUID || c->type == AM_TYPE_FIXED_SIZE_BINARY;
}

static void hostile(const Hook *h, const AmWriterColumn *c, size_t n);

static AmStatus
hook(void *ctx, const AmWriterColumn *c, uint64_t first, size_t n,
	 const uint8_t **section, size_t *len, AmError *err)
{
	Hook	   *h = ctx;
	const char *spec = h->spec;
	const uint8_t *nulls = c->nulls ? c->nulls + first : NULL;
	bool		ok;

	(void) err;
	h->out.len = 0;
	if (is_binary(c))
	{
		uint32_t	w = fixed_width_of(c);
		uint64_t   *rel = malloc((n + 1) * 8);
		uint64_t	base = w ? first * w : c->offsets[first];

		for (size_t i = 0; i <= n; i++)
			rel[i] = w ? i * w : c->offsets[first + i] - base;
		ok = te_binary(&h->out, &spec, w, (const uint8_t *) c->values + base,
					   rel, n, nulls);
		free(rel);
	}
	else
	{
		AmNumType	t = num_type_of(c);
		size_t		size = te_size(t);
		uint64_t   *v = malloc(n * 8 + 8);

		for (size_t i = 0; i < n; i++)
		{
			uint64_t	x = 0;

			memcpy(&x, (const uint8_t *) c->values + (first + i) * size, size);
			v[i] = te_norm(t, x);
		}
		ok = te_numeric(&h->out, &spec, t, v, n, nulls);
		free(v);
	}
	if (!ok || *spec != '\0')
	{
		h->refused++;
		*section = NULL;
		return AM_OK;
	}
	h->encoded++;
	if (h->check_hostile)
		hostile(h, c, n);
	*section = h->out.data;
	*len = h->out.len;
	return AM_OK;
}

/*
 * Truncations must fail; flipped bytes may decode or fail, never crash.
 * The first section of each spec and type goes out as a seed.
 */
static void
hostile(const Hook *h, const AmWriterColumn *c, size_t n)
{
	const TBuf *s = &h->out;
	uint64_t	seed = s->len * 31 + n;
	uint8_t    *copy = malloc(s->len + 1);
	uint8_t    *out = malloc(n * 8 + 8);
	bool		bin = is_binary(c);
	uint32_t	w = fixed_width_of(c);
	AmNumType	t = num_type_of(c);

	if (h->seed_name[0] != '\0')
	{
		/* fuzz_amudai_block: [stream type][u16 count][bare section] */
		uint8_t		hdr[3] = {(uint8_t) (!bin ? t : w == 0 ? 10 : 11),
		(uint8_t) n, (uint8_t) (n >> 8)};

		if (!bin || w == 0 || w == 16)	/* types the target can name */
			t_dump_seed(h->seed_name, hdr, 3, s->data, s->len);
	}
	for (size_t k = 0; k < s->len; k++)
	{
		AmError		err;
		AmStatus	st;

		memcpy(copy, s->data, k);
		if (bin)
		{
			AmBinaryValues bv;

			st = am_decode_binary(copy, k, n, w, NULL, A, &bv, &err);
			if (st == AM_OK)
				am_binary_values_free(&bv, A);
		}
		else
			st = am_decode_numeric(copy, k, t, n, out, A, &err);
		/* a binary SingleValue is the rest of the section: any prefix is one */
		if (!(bin && strcmp(h->spec, "single") == 0))
			UNIT_CHECKF(st != AM_OK || n == 0, "%s: truncated to %zu of %zu accepted",
						h->spec, k, s->len);
	}
	for (int round = 0; round < 64; round++)
	{
		AmError		err;

		memcpy(copy, s->data, s->len);
		copy[unit_rand(&seed) % s->len] ^= (uint8_t) (1 + unit_rand(&seed) % 255);
		if (bin)
		{
			AmBinaryValues bv;

			if (am_decode_binary(copy, s->len, n, w, NULL, A, &bv, &err) == AM_OK)
				am_binary_values_free(&bv, A);
		}
		else
			(void) am_decode_numeric(copy, s->len, t, n, out, A, &err);
	}
	free(copy);
	free(out);
}

/* ---------------- data ---------------- */

enum Pattern
{
	P_RANDOM,					/* any value of the width */
	P_EDGE,						/* min, max, 0, -1, 1 of the width */
	P_SMALL,					/* -100..100: fits every truncation */
	P_RUNS,						/* runs of 1..40 equal values */
	P_EQUAL,					/* one value repeated */
	P_SPARSE,					/* 99.7% null, some zeros */
	P_ALL_NULL,
	P_COUNT
};

static const char *const pattern_names[] = {
	"random", "edge", "small", "runs", "equal", "sparse", "all-null"
};

static uint8_t narrow[ROWS * 8];	/* values at the type's width */
static uint8_t nulls[ROWS];
static uint8_t bytes[ROWS * 24];
static uint64_t offsets[ROWS + 1];

static uint64_t
edge_value(AmNumType t, uint64_t i)
{
	size_t		size = te_size(t);
	uint64_t	mask = te_mask(size);
	uint64_t	smin = te_signed(t) ? (uint64_t) 1 << (size * 8 - 1) : 0;
	uint64_t	choices[5] = {smin, te_signed(t) ? smin - 1 : mask, 0, mask, 1};

	if (te_float(t))
	{
		static const double d[] = {-0.0, 1e308, -1e-308, 0.1, 3.0, 1.5};
		static const float f[] = {-0.0f, 3.4e38f, -1e-38f, 0.1f, 3.0f, 1.5f};
		uint64_t	x = 0;

		if (t == AM_NUM_F64)
			memcpy(&x, &d[i % 6], 8);
		else
			memcpy(&x, &f[i % 6], 4);
		if (i % 97 == 0)
			x = t == AM_NUM_F64 ? UINT64_C(0x7FF8000000000123) : 0x7FC00123;
		return x;
	}
	return choices[i % 5] & mask;
}

static void
make_numeric(AmNumType t, enum Pattern p, uint64_t rows, uint64_t seed)
{
	size_t		size = te_size(t);
	uint64_t	run_left = 0,
				run_value = 0;

	for (uint64_t i = 0; i < rows; i++)
	{
		uint64_t	r = unit_rand(&seed);
		uint64_t	x;

		switch (p)
		{
			case P_RANDOM:
				x = r;
				if (t == AM_NUM_F64)
				{
					double		d = (double) (int64_t) (r % 2000001 - 1000000) / 100.0;

					memcpy(&x, &d, 8);
				}
				else if (t == AM_NUM_F32)
				{
					float		f = (float) (int32_t) (r % 20001 - 10000) / 8.0f;

					x = 0;
					memcpy(&x, &f, 4);
				}
				break;
			case P_EDGE:
				x = edge_value(t, i);
				break;
			case P_SMALL:
				x = (uint64_t) ((int64_t) (r % 201) - 100);
				if (!te_signed(t))
					x = r % 101;
				break;
			case P_RUNS:
				if (run_left == 0)
				{
					run_left = 1 + r % 40;
					run_value = (r >> 16) % 7;
				}
				run_left--;
				x = run_value;
				break;
			case P_EQUAL:
				x = te_float(t) ? (t == AM_NUM_F64 ? UINT64_C(0x4045000000000000) : 0x42280000) :
					(uint64_t) -42;
				break;
			default:
				x = i % 3 == 0 ? 0 : (r >> 3) % 1000;
				break;
		}
		if (te_float(t) && (p == P_SMALL || p == P_RUNS || p == P_SPARSE))
		{
			double		d = (double) (int64_t) x / 4.0;
			float		f = (float) d;

			x = 0;
			if (t == AM_NUM_F64)
				memcpy(&x, &d, 8);
			else
				memcpy(&x, &f, 4);
		}
		x &= te_mask(size);
		memcpy(narrow + i * size, &x, size);
		nulls[i] = p == P_ALL_NULL || (p == P_SPARSE && i % 331 != 7) ||
			(p == P_RANDOM && r % 11 == 0);
	}
}

static void
make_binary(uint32_t width, enum Pattern p, uint64_t rows, uint64_t seed)
{
	size_t		at = 0;

	for (uint64_t i = 0; i < rows; i++)
	{
		uint64_t	r = unit_rand(&seed);
		size_t		len = width ? width : (p == P_EDGE ? (i % 3 == 0 ? 0 : 20) : r % 17);

		offsets[i] = at;
		for (size_t k = 0; k < len; k++)
		{
			uint8_t		b;

			switch (p)
			{
				case P_EQUAL:
					b = (uint8_t) ('q' + k);
					break;
				case P_RUNS:
				case P_SMALL:
					b = (uint8_t) ('a' + (i / 25 + k) % 5);
					break;
				case P_EDGE:
					b = k % 2 ? 0xFF : 0x00;
					break;
				default:
					b = (uint8_t) (r >> (k % 8 * 8)) ^ (uint8_t) k;
					break;
			}
			bytes[at++] = b;
		}
		if (p == P_EQUAL && !width)
		{
			/* every value the same length too */
			at = offsets[i];
			for (size_t k = 0; k < 5; k++)
				bytes[at++] = (uint8_t) ('q' + k);
		}
		if ((p == P_RUNS || p == P_SMALL) && !width)
		{
			at = offsets[i];
			for (size_t k = 0; k < 1 + i / 25 % 4; k++)
				bytes[at++] = (uint8_t) ('a' + (i / 25 + k) % 5);
		}
		nulls[i] = p == P_ALL_NULL || (p == P_SPARSE && i % 331 != 7) ||
			(p == P_RANDOM && r % 11 == 0);
	}
	offsets[rows] = at;
}

/* ---------------- read back ---------------- */

/* Stripe files of a TwoLevel shard being checked, or NULL (single file). */
static MemDir *check_dir;

static void
check_shard(const uint8_t *file, size_t len, const AmWriterColumn *c,
			uint64_t rows, const char *what)
{
	MemFile		mf = {file, len, 0};
	PfcSource	src = mem_source(&mf);
	AmShard    *shard;
	AmFieldReader *fr;
	AmError		err;
	AmStatus	st;
	uint32_t	width = is_binary(c) ? fixed_width_of(c) : (uint32_t) te_size(num_type_of(c));
	uint64_t	seed = rows;
	uint64_t	bad = 0;

	AmResolver	res = {memdir_open, memdir_close, check_dir};

	st = am_shard_open(&shard, &src, check_dir ? &res : NULL, A, &err);
	UNIT_CHECKF(st == AM_OK, "%s: open: %s", what, err.message);
	if (st != AM_OK)
		return;
	for (uint32_t stripe = 0; stripe < am_shard_stripe_count(shard); stripe++)
	{
		uint64_t	first = am_shard_stripe(shard, stripe)->shard_position;
		uint64_t	srows = am_shard_stripe(shard, stripe)->total_record_count;

		st = am_field_reader_open(&fr, shard, stripe, 0, &err);
		UNIT_CHECKF(st == AM_OK, "%s: field: %s", what, err.message);
		if (st != AM_OK)
			continue;
		for (uint64_t pos = 0; pos < srows;)
		{
			size_t		k = 1 + unit_rand(&seed) % 900;
			AmColumnBatch b;

			if (k > srows - pos)
				k = (size_t) (srows - pos);
			st = am_field_reader_read(fr, pos, k, &b, &err);
			UNIT_CHECKF(st == AM_OK && b.count == k, "%s: read at %" PRIu64 ": %s",
						what, pos, err.message);
			if (st != AM_OK)
				break;
			for (size_t i = 0; i < k; i++)
			{
				uint64_t	row = first + pos + i;
				bool		is_null = c->nulls[row] != 0;

				if ((b.nulls != NULL && b.nulls[i]) != is_null)
					bad++;
				else if (is_null)
					continue;
				else if (width == 0 || is_binary(c))
				{
					/* fixed size: values at the width, no offsets */
					size_t		got_len = width ? width :
						(size_t) (b.offsets[i + 1] - b.offsets[i]);
					uint64_t	o = width ? row * width : c->offsets[row];
					size_t		exp_len = width ? width : (size_t) (c->offsets[row + 1] - o);
					const uint8_t *got = width ? (const uint8_t *) b.values + i * width :
						b.bytes + b.offsets[i];

					if (got_len != exp_len ||
						memcmp(got, (const uint8_t *) c->values + o, exp_len) != 0)
						bad++;
				}
				else if (memcmp((const uint8_t *) b.values + i * width,
								(const uint8_t *) c->values + row * width, width) != 0)
					bad++;
			}
			pos += k;
		}
		am_field_reader_close(fr);
	}
	UNIT_CHECKF(bad == 0, "%s: %" PRIu64 " rows differ", what, bad);
	am_shard_close(shard);
}

/* ---------------- cases ---------------- */

typedef struct TypeCase
{
	const char *name;
	AmBasicType type;
	bool		is_signed;
	uint32_t	fixed_size;
} TypeCase;

static const TypeCase num_types[] = {
	{"i8", AM_TYPE_INT8, true, 0}, {"u8", AM_TYPE_INT8, false, 0},
	{"i16", AM_TYPE_INT16, true, 0}, {"u16", AM_TYPE_INT16, false, 0},
	{"i32", AM_TYPE_INT32, true, 0}, {"u32", AM_TYPE_INT32, false, 0},
	{"i64", AM_TYPE_INT64, true, 0}, {"u64", AM_TYPE_INT64, false, 0},
	{"f32", AM_TYPE_FLOAT32, false, 0}, {"f64", AM_TYPE_FLOAT64, false, 0},
	{"datetime", AM_TYPE_DATETIME, false, 0},
};

static const TypeCase bin_types[] = {
	{"string", AM_TYPE_STRING, false, 0}, {"binary", AM_TYPE_BINARY, false, 0},
	{"guid", AM_TYPE_GUID, false, 16}, {"fixed3", AM_TYPE_FIXED_SIZE_BINARY, false, 3},
};

/* Which value types a spec must have encoded at least one block of. */
enum Applies
{
	ALL, INTS, UNSIGNED, SIGNED, SIGNED16, SIGNED32, SIGNED64, FLOATS, VARIABLE
};

typedef struct SpecCase
{
	const char *spec;
	enum Applies applies;
} SpecCase;

static const SpecCase num_specs[] = {
	{"plain", ALL},
	{"single", ALL},
	{"flbitpack", UNSIGNED},
	{"ffor", INTS},
	{"for(flbitpack)", INTS},
	{"for(plain)", INTS},
	{"for(rle(flbitpack,flbitpack))", INTS},
	{"for(lz4)", INTS},
	{"delta(ffor)", INTS},
	{"delta(plain)", INTS},
	{"rle", ALL},
	{"rle(raw,raw)", ALL},
	{"rle(single,ffor)", ALL},
	{"rle(dict(ffor),flbitpack)", ALL},
	{"trunc8", SIGNED},
	{"trunc8(flbitpack)", SIGNED},
	{"trunc16(raw)", SIGNED16},
	{"trunc16(for(flbitpack))", SIGNED16},
	{"trunc32(flbitpack)", SIGNED32},
	{"trunc64(ffor)", SIGNED64},
	{"zigzag", SIGNED},
	{"zigzag(flbitpack)", SIGNED},
	{"delta(zigzag(flbitpack))", SIGNED},
	{"dict(ffor)", ALL},
	{"dict(flbitpack,ffor)", INTS},
	{"dict(flbitpack,plain)", ALL},
	{"dict(rle(flbitpack,flbitpack),raw)", ALL},
	{"sparse", ALL},
	{"sparse(flbitpack,raw)", ALL},
	{"sparse(delta(flbitpack),plain)", ALL},
	{"sparse(raw,ffor)", INTS},
	{"sparse(ffor,alprd)", FLOATS},
	{"lz4", ALL},
	{"zstd", ALL},
	{"alprd", FLOATS},
	{"alprd(flbitpack,flbitpack)", FLOATS},
	{"alprd(rle(flbitpack,flbitpack),ffor)", FLOATS},
	{"alprd(dict(flbitpack,raw),lz4)", FLOATS},
	{"rle(alprd,flbitpack)", FLOATS},
};

static const SpecCase bin_specs[] = {
	{"plain", ALL},
	{"single", ALL},
	{"dict(ffor)", ALL},		/* fixed size: entries after the padded codes */
	{"dict(ffor,ffor)", VARIABLE},
	{"dict(flbitpack,raw)", VARIABLE},
	{"dict(rle(flbitpack,flbitpack),single)", VARIABLE},
	{"lz4", ALL},
	{"lz4(delta(ffor))", VARIABLE},
	{"lz4(plain)", VARIABLE},
	{"zstd(raw)", ALL},
	{"zstd(for(flbitpack))", VARIABLE},
};

/*
 * The VALUE_DICTIONARY buffer of each stripe, parsed here from format
 * notes 3.8: header checksum, the entry count (distinct values, plus the
 * null entry when the stripe has nulls), 16-aligned checksummed sections,
 * a 64-byte multiple, and sorted ids strictly ascending by value.  That
 * every row maps to its value the field reader has already shown.
 */
static void
check_value_dictionaries(const uint8_t *file, size_t len, const AmWriterColumn *c,
						 uint64_t rows, uint64_t stripe_rows, const char *what)
{
	MemFile		mf = {file, len, 0};
	PfcSource	src = mem_source(&mf);
	AmShard    *shard;
	AmError		err;

	if (am_shard_open(&shard, &src, NULL, A, &err) != AM_OK)
		return;
	for (uint32_t s = 0; s < am_shard_stripe_count(shard); s++)
	{
		AmStripeFieldDescriptor sfd;
		bool		present;
		int			anchor;
		const AmEncodedBuffer *data = NULL,
				   *dict = NULL;
		uint64_t	first = (uint64_t) s * stripe_rows;
		uint64_t	n = rows - first < stripe_rows ? rows - first : stripe_rows;
		bool		nulls_here = false;
		const uint8_t *d;
		uint64_t	dlen,
					count,
					sec[3][2],
					payload[3];
		bool		ok = true;

		if (am_shard_stripe_field(shard, s, 0, &present, &sfd, &anchor, &err) != AM_OK)
		{
			UNIT_CHECKF(false, "%s: stripe field %u", what, s);
			continue;
		}
		for (uint32_t b = 0; b < sfd.num_buffers; b++)
		{
			if (sfd.buffers[b].kind == AM_BUFFER_DATA)
				data = &sfd.buffers[b];
			if (sfd.buffers[b].kind == AM_BUFFER_VALUE_DICTIONARY)
				dict = &sfd.buffers[b];
		}
		for (uint64_t i = first; i < first + n; i++)
			nulls_here |= c->nulls[i] != 0;
		UNIT_CHECKF(data != NULL && dict != NULL && !data->embedded_presence &&
					!dict->has_block_map && sfd.field.has_dictionary_size,
					"%s: stripe %u buffers", what, s);
		if (data == NULL || dict == NULL)
			continue;
		d = file + dict->buffer.start;
		dlen = dict->buffer.end - dict->buffer.start;
		UNIT_CHECKF(dict->buffer.start % 64 == 0 && dlen % 64 == 0 && dlen >= 128 &&
					t_checksum32(d, 124) == (uint32_t) (d[124] | d[125] << 8 |
														d[126] << 16 | (uint32_t) d[127] << 24),
					"%s: dictionary header", what);
		if (dlen < 128)
			continue;
		memcpy(&count, d + 1, 4);
		count &= 0xFFFFFFFF;
		UNIT_CHECK(d[0] == c->type && d[5] == nulls_here &&
				   sfd.field.dictionary_size == count);
		for (int k = 0; k < 3; k++)
		{
			memcpy(&sec[k][0], d + 14 + 16 * k, 8);
			memcpy(&sec[k][1], d + 22 + 16 * k, 8);
			ok &= sec[k][0] % 16 == 0 && sec[k][1] % 16 == 0 && sec[k][0] >= 128 &&
				sec[k][1] <= dlen && sec[k][1] - sec[k][0] >= 8 + 64 + 4;
			if (!ok)
				break;
			memcpy(&payload[k], d + sec[k][0], 8);
			ok &= payload[k] + 8 + 64 + 4 <= sec[k][1] - sec[k][0] &&
				t_checksum32(d + sec[k][0] + 8, (size_t) payload[k]) ==
				(uint32_t) (d[sec[k][1] - 4] | d[sec[k][1] - 3] << 8 |
							d[sec[k][1] - 2] << 16 | (uint32_t) d[sec[k][1] - 1] << 24);
		}
		UNIT_CHECKF(ok, "%s: dictionary sections", what);
		if (!ok)
			continue;
		{
			const uint8_t *values = d + sec[0][0] + 8;
			const uint8_t *offs = d + sec[1][0] + 8;
			const uint8_t *ids = d + sec[2][0] + 8;
			uint64_t	nonnull = count - nulls_here;

			UNIT_CHECK(payload[1] == (count + 1) * 8 && payload[2] == nonnull * 4);
			for (uint64_t i = 1; ok && i < nonnull && payload[2] == nonnull * 4; i++)
			{
				uint32_t	a,
							b;
				uint64_t	oa[2],
							ob[2];
				size_t		la,
							lb;
				int			r;

				memcpy(&a, ids + (i - 1) * 4, 4);
				memcpy(&b, ids + i * 4, 4);
				if (a >= count || b >= count)
				{
					ok = false;
					break;
				}
				memcpy(oa, offs + a * 8, 16);
				memcpy(ob, offs + b * 8, 16);
				la = (size_t) (oa[1] - oa[0]);
				lb = (size_t) (ob[1] - ob[0]);
				r = memcmp(values + oa[0], values + ob[0], la < lb ? la : lb);
				ok = r < 0 || (r == 0 && la < lb);
			}
			UNIT_CHECKF(ok, "%s: sorted ids not ascending", what);
		}
	}
	am_shard_close(shard);
}

static bool
applies(enum Applies a, const TypeCase *t)
{
	bool		fl = t->type == AM_TYPE_FLOAT32 || t->type == AM_TYPE_FLOAT64;

	switch (a)
	{
		case ALL:
			return true;
		case INTS:
			return !fl;
		case UNSIGNED:
			return !fl && !t->is_signed;
		case SIGNED:
			return t->is_signed;
		case SIGNED16:			/* truncation never widens */
			return t->is_signed && t->type >= AM_TYPE_INT16;
		case SIGNED32:
			return t->is_signed && t->type >= AM_TYPE_INT32;
		case SIGNED64:
			return t->is_signed && t->type == AM_TYPE_INT64;
		case FLOATS:
			return fl;
		case VARIABLE:
			return t->fixed_size == 0;
	}
	return false;
}

/*
 * Write rows rows of the column with the spec and blocks of block_values,
 * read them back.  Returns the blocks the spec encoded.
 */
static void check_value_dictionaries(const uint8_t *file, size_t len,
									 const AmWriterColumn *c, uint64_t rows,
									 uint64_t stripe_rows, const char *what);

/* AmWriterOptions.stripe_file: keep each stripe file in check_dir. */
static int
keep_stripe_file(void *ctx, const char *name, const void *data, size_t len)
{
	MemDir	   *d = ctx;
	uint8_t    *copy;

	if (d->count == 8)
		return ENOSPC;
	copy = malloc(len);
	memcpy(copy, data, len);
	d->names[d->count] = strdup(name);
	d->files[d->count].data = copy;
	d->files[d->count].len = len;
	d->files[d->count].fail_errno = 0;
	d->count++;
	return 0;
}

static uint64_t
run_case_opt(const TypeCase *tc, const char *spec, enum Pattern p, uint64_t rows,
			 uint32_t block_values, bool hostile_checks, bool value_dictionary,
			 uint64_t stripe_rows)
{
	AmWriterColumn col = {"c", tc->type, tc->is_signed, tc->fixed_size, AM_ENC_PLAIN,
	NULL, NULL, nulls};
	AmWriterOptions opt = {0};
	Hook		h = {0};
	uint8_t    *file = NULL;
	size_t		len = 0;
	AmError		err;
	AmStatus	st;
	char		what[160];
	bool		bin = tc->type == AM_TYPE_STRING || tc->type == AM_TYPE_BINARY ||
		tc->type == AM_TYPE_GUID || tc->type == AM_TYPE_FIXED_SIZE_BINARY;

	if (bin)
	{
		make_binary(tc->fixed_size, p, rows, rows * 7 + (uint64_t) p);
		col.values = bytes;
		col.offsets = tc->fixed_size ? NULL : offsets;
	}
	else
	{
		make_numeric(num_type_of(&col), p, rows, rows * 7 + (uint64_t) p);
		col.values = narrow;
	}
	h.spec = spec;
	h.check_hostile = hostile_checks;
	if (hostile_checks && p == P_RANDOM)
	{
		snprintf(h.seed_name, sizeof(h.seed_name), "enc_%s_%s", tc->name, spec);
		for (char *q = h.seed_name; *q; q++)
			if (*q == '(' || *q == ')' || *q == ',')
				*q = '_';
	}
	opt.block_values = block_values;
	opt.value_dictionary = value_dictionary;
	opt.stripe_rows = stripe_rows;
	opt.section_hook = hook;
	opt.section_hook_ctx = &h;
	if (check_dir != NULL)
	{
		opt.stripe_file = keep_stripe_file;
		opt.stripe_file_ctx = check_dir;
	}
	snprintf(what, sizeof(what), "%s %s %s rows %" PRIu64 " block %u", tc->name, spec,
			 pattern_names[p], rows, block_values);
	st = am_write_shard(&col, 1, rows, &opt, A, &file, &len, &err);
	UNIT_CHECKF(st == AM_OK, "%s: write: %s", what, err.message);
	if (st == AM_OK)
		check_shard(file, len, &col, rows, what);
	if (st == AM_OK && value_dictionary && check_dir == NULL)
		check_value_dictionaries(file, len, &col, rows, stripe_rows ? stripe_rows : rows, what);
	/* fuzz_amudai_shard seeds: one small shard per spec (see header) */
	if (st == AM_OK && h.seed_name[0] != '\0' && rows == 10 &&
		(strcmp(tc->name, "i32") == 0 || strcmp(tc->name, "f64") == 0 ||
		 strcmp(tc->name, "string") == 0 || strcmp(tc->name, "guid") == 0) &&
		getenv("AMUDAI_SHARD_SEED_DIR") != NULL)
	{
		char		path[600];
		FILE	   *f;

		snprintf(path, sizeof(path), "%s/shard_%s", getenv("AMUDAI_SHARD_SEED_DIR"),
				 h.seed_name + 4);
		if ((f = fopen(path, "wb")) != NULL)
		{
			fwrite(file, 1, len, f);
			fclose(f);
		}
	}
	free(file);
	tb_free(&h.out);
	return h.encoded;
}

static uint64_t
run_case(const TypeCase *tc, const char *spec, enum Pattern p, uint64_t rows,
		 uint32_t block_values, bool hostile_checks)
{
	return run_case_opt(tc, spec, p, rows, block_values, hostile_checks, false, 0);
}

static void
test_specs(const TypeCase *types, size_t ntypes, const SpecCase *specs,
		   size_t nspecs)
{
	for (size_t s = 0; s < nspecs; s++)
		for (size_t t = 0; t < ntypes; t++)
		{
			uint64_t	encoded = 0;

			for (int p = 0; p < P_COUNT; p++)
			{
				encoded += run_case(&types[t], specs[s].spec, (enum Pattern) p, ROWS, 700, false);
				/* small blocks: one value, and 3 with a partial last */
				encoded += run_case(&types[t], specs[s].spec, (enum Pattern) p, 7, 1, true);
				encoded += run_case(&types[t], specs[s].spec, (enum Pattern) p, 10, 3, true);
			}
			/* the whole stripe in one block (the writer's limit is 65,536) */
			if (t == 0 || t == ntypes - 1)
				encoded += run_case(&types[t], specs[s].spec, P_RUNS, ROWS, 65536, false);
			if (applies(specs[s].applies, &types[t]))
				UNIT_CHECKF(encoded > 0, "%s on %s: no block encoded (%s)",
							specs[s].spec, types[t].name, te_error);
		}
}

/*
 * Field-level dictionaries (AmWriterOptions.value_dictionary): String and
 * Binary stripes as u32 ids, the ids in any numeric encoding, one stripe
 * or several (one dictionary each), with and without nulls.
 */
static void
test_value_dictionary(void)
{
	static const char *const id_specs[] = {
		"plain", "ffor", "flbitpack", "rle(flbitpack,flbitpack)", "dict(ffor)",
		"for(flbitpack)", "lz4", "sparse(raw,ffor)"
	};

	for (size_t t = 0; t < 2; t++)
		for (size_t s = 0; s < sizeof(id_specs) / sizeof(id_specs[0]); s++)
			for (int p = 0; p < P_COUNT; p++)
			{
				uint64_t	encoded;

				encoded = run_case_opt(&bin_types[t], id_specs[s], (enum Pattern) p,
									   ROWS, 700, false, true, 0);
				encoded += run_case_opt(&bin_types[t], id_specs[s], (enum Pattern) p,
										ROWS, 1000, false, true, 900);
				encoded += run_case_opt(&bin_types[t], id_specs[s], (enum Pattern) p,
										10, 3, false, true, 4);
				UNIT_CHECKF(encoded > 0, "value dictionary ids %s on %s %s: no block (%s)",
							id_specs[s], bin_types[t].name, pattern_names[p], te_error);
			}
}

/*
 * TwoLevel shards (AmWriterOptions.stripe_file, format notes 1.6): every
 * stripe's buffers in a framed stripe file of its own, named by a relative
 * DataRef url and opened through the resolver; the root file holds only
 * metadata.
 */
static void
test_two_level(void)
{
	static const struct
	{
		const TypeCase *type;
		const char *spec;
		bool		value_dictionary;
	}			cases[] = {
		{&num_types[4], "ffor", false},
		{&num_types[6], "sparse(flbitpack,raw)", false},
		{&num_types[9], "alprd", false},
		{&bin_types[0], "dict(ffor,ffor)", false},
		{&bin_types[2], "lz4", false},
		{&bin_types[0], "ffor", true},	/* ids of a field dictionary */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int p = 0; p < P_COUNT; p++)
		{
			MemDir		dir = {0};
			uint64_t	encoded;

			check_dir = &dir;
			encoded = run_case_opt(cases[i].type, cases[i].spec, (enum Pattern) p,
								   ROWS, 500, false, cases[i].value_dictionary, 700);
			/* all-null stripes need no buffer: their files stay closed */
			UNIT_CHECKF(encoded > 0 && dir.count == 5 &&
						dir.opened == (p == P_ALL_NULL ? 0 : 5),
						"two-level %s %s %s: %d stripe files, %d opened",
						cases[i].type->name, cases[i].spec, pattern_names[p],
						dir.count, dir.opened);
			for (int f = 0; f < dir.count; f++)
			{
				const uint8_t *d = dir.files[f].data;
				size_t		n = dir.files[f].len;

				/* framed at both ends, buffers 64-aligned after the header */
				UNIT_CHECK(n >= 16 && n % 8 == 0 && memcmp(d, "amud", 4) == 0 &&
						   memcmp(d + n - 8, d, 8) == 0);
				free((void *) dir.files[f].data);
				free((void *) dir.names[f]);
			}
			check_dir = NULL;
		}
}

int
main(void)
{
	test_two_level();
	test_value_dictionary();
	test_specs(num_types, sizeof(num_types) / sizeof(num_types[0]),
			   num_specs, sizeof(num_specs) / sizeof(num_specs[0]));
	test_specs(bin_types, sizeof(bin_types) / sizeof(bin_types[0]),
			   bin_specs, sizeof(bin_specs) / sizeof(bin_specs[0]));
	UNIT_MAIN_END("amudai_encodings");
}
