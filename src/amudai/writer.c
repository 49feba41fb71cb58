/*-------------------------------------------------------------------------
 *
 * writer.c
 *	  A single-file Amudai shard writer (format notes, section 6.4): the
 *	  export path of parquet_fdw_write_amudai() and the round-trip tests.
 *
 * Streaming: am_shard_writer_begin() writes the header, each
 * am_shard_writer_add_stripe() encodes one stripe and hands its bytes to
 * the caller's sink, am_shard_writer_finish() writes the metadata; only one
 * stripe is ever held.  am_write_shard() is the same into a memory buffer.
 *
 * Layout written (section 1.6): header; per stripe, for each schema node its
 * buffers, each starting on a 64-byte file offset (blocks, zero pad to 16
 * bytes, block map), then one StripeFieldDescriptor per node and the
 * stripe's field list; after the last stripe the StripeList, an empty
 * UrlList, the shard FieldDescriptors (the stripes' statistics merged) and
 * their list, the FlatBuffers schema, the ShardDirectory, its length again,
 * and the footer.
 *
 * Flat top-level columns and lists of flat values are written (no maps or
 * structs yet).  Blocks always carry checksums; numeric and binary blocks
 * carry embedded presence (AllNulls; below 1% nulls a negated Roaring
 * array of the null positions, above 99% one of the present positions,
 * Plain bytes in between, as the reference's presence.rs); booleans are bit
 * buffers with a separate PRESENCE bit buffer when a stripe has nulls.
 * Value encodings are the column's, or with AM_WRITER_ENC_AUTO the smallest
 * of a few candidates per block.  Statistics as the reference (section
 * 5.2): counts, raw_data_size, min/max, String/Binary/Boolean/Floating
 * stats; the schema carries the field_lookup hash table.  What this writer
 * never emits, per the document's advice: raw ZigZag, fixed-size binary
 * BlockDictionary, struct lookups, LZ4 frames.
 *
 * IDENTIFICATION
 *	  src/amudai/writer.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/amudai_int.h"
#include "amudai/string_dict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "codec/alp.h"
#include "codec/fastlanes.h"
#include "codec/fsst.h"
#include "common/sbbf.h"
#include "compress/compress.h"

#include <xxhash.h>

#define SEGMENT_SIZE	1024
/* words of AmShardWriter.stripes per stripe */
#define STRIPE_WORDS	5
#define DEFAULT_BLOCK	2048
/* String/Binary blocks end early once their values pass this many bytes */
#define BINARY_BLOCK_BYTES	((uint64_t) 1 << 20)

/* Candidates of AM_WRITER_ENC_AUTO beyond the public encoding codes. */
#define ENC_DELTA_FFOR		1001	/* Delta with an FFOR child */
#define ENC_INT_DICTIONARY	1002	/* BlockDictionary, FFOR codes */
#define ENC_STRING_DICTIONARY	1003	/* binary BlockDictionary, FFOR codes */

/* HyperLogLog sketches (section 5.3): p = 7, 128 one-byte counters */
#define HLL_BITS		7
#define HLL_COUNTERS	(1 << HLL_BITS)
#define HLL_SEED		UINT64_C(0x416D7564484C4C31)

/* RANGE_INDEX buffers (section 3.9): min/max of every 256 positions */
#define RANGE_BLOCK_ROWS	256

/* Split-block Bloom filters (section 5.4): at most 1024 distinct values */
#define SBBF_MAX_VALUES		1024
#define SBBF_SEED			UINT64_C(0x4D75646169424646)
#define SBBF_FPP			0.01
/* -ln(fpp) / ln(2)^2 for fpp = 0.01 */
#define SBBF_BITS_PER_VALUE	9.585058377367439

typedef struct Writer
{
	const PfcAllocator *alloc;
	AmError    *err;
	uint64_t	base;			/* file bytes already handed to the sink */
	AmPbWriter	file;			/* file bytes from base on */
	AmPbWriter	block;			/* scratch for one block */
	AmPbWriter	scratch;		/* scratch for compression */
	AmStatus	status;
	AmSectionHook section_hook;	/* test-only block encoder, or NULL */
	void	   *section_hook_ctx;
	const char *buffer_url;		/* the stripe file of the buffers, or NULL */
} Writer;

static uint64_t hll_estimate(const uint8_t *counters);

/* A buffer written to the file, for its EncodedBuffer message. */
typedef struct BufferOut
{
	uint32_t	kind;
	uint64_t	start;
	uint64_t	end;
	uint64_t	map_start;
	uint64_t	blocks;
	bool		embedded_presence;
	bool		embedded_offsets;
	bool		no_block_map;	/* RANGE_INDEX: not block-structured */
} BufferOut;

/* What one column holds in one stripe. */
typedef struct StripeColumn
{
	const AmWriterColumn *col;
	bool		is_list;		/* the List node of a list column */
	uint64_t	first;			/* first row of the stripe */
	uint64_t	rows;
	uint64_t	nulls;
	int			num_buffers;
	BufferOut	buffers[2];
	AmAnyValue	constant;		/* kind ABSENT unless constant */
	uint8_t		constant_bytes[16];
	bool		has_range;
	bool		range_signed;
	bool		range_double;	/* floats: dmin/dmax (NaN ignored) */
	double		dmin;
	double		dmax;
	bool		range_decimal;	/* KustoDecimal: dec_min/dec_max (NaN ignored) */
	uint8_t		dec_min[16];
	uint8_t		dec_max[16];
	uint64_t	min;
	uint64_t	max;
	bool		empty_range;	/* numeric, all null: an empty RangeStats */
	/* section 5.2: the type-specific statistics and raw_data_size */
	uint64_t	raw_size;
	bool		has_string_stats;	/* StringStats (String) or BinaryStats */
	uint64_t	min_size;
	uint64_t	max_size;
	bool		has_min_non_empty;
	uint64_t	min_non_empty;
	uint64_t	ascii_count;	/* String only */
	bool		sizes_seen;		/* shard totals: some stripe had values */
	bool		has_hll;		/* string-like: a HyperLogLog sketch (5.3) */
	uint8_t		hll[HLL_COUNTERS];
	bool		has_bool_stats;
	uint64_t	true_count;
	uint64_t	false_count;
	bool		has_float_stats;
	uint64_t	float_counts[6];	/* zero, +, -, NaN, +inf, -inf */
	bool		has_dictionary_size;	/* options->value_dictionary */
	uint64_t	dictionary_size;
	uint64_t	desc_start;
	uint64_t	desc_end;
	/* split-block Bloom filter of the stripe (binary types), or NULL */
	uint8_t    *sbbf;
	uint64_t	sbbf_blocks;
	uint64_t	sbbf_values;
} StripeColumn;

static bool
w_ok(Writer *w)
{
	if (w->status == AM_OK && (w->file.failed || w->block.failed || w->scratch.failed))
	{
		am_fail(w->err, AM_ERR_IO, "out of memory while writing a shard");
		w->status = AM_ERR_IO;
	}
	return w->status == AM_OK;
}

static void
put_u16(AmPbWriter *b, uint16_t v)
{
	uint8_t		t[2];

	am_store_u16(t, v);
	am_pbw_raw(b, t, 2);
}

static void
put_u32(AmPbWriter *b, uint32_t v)
{
	uint8_t		t[4];

	am_store_u32(t, v);
	am_pbw_raw(b, t, 4);
}

static void
put_u64(AmPbWriter *b, uint64_t v)
{
	uint8_t		t[8];

	am_store_u64(t, v);
	am_pbw_raw(b, t, 8);
}

static void
put_zeros(AmPbWriter *b, size_t n)
{
	static const uint8_t zeros[64] = {0};

	while (n > 0)
	{
		size_t		k = n < sizeof(zeros) ? n : sizeof(zeros);

		am_pbw_raw(b, zeros, k);
		n -= k;
	}
}

static void
pad_to(AmPbWriter *b, size_t base, size_t multiple)
{
	put_zeros(b, (size_t) (am_align_up(b->len - base, multiple) - (b->len - base)));
}

static bool
is_binary_type(AmBasicType t)
{
	return t == AM_TYPE_STRING || t == AM_TYPE_BINARY || t == AM_TYPE_GUID ||
		t == AM_TYPE_FIXED_SIZE_BINARY;
}

static AmNumType
column_num_type(const AmWriterColumn *c)
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
			return AM_NUM_U64;
	}
}

static uint32_t
column_width(const AmWriterColumn *c)
{
	if (c->type == AM_TYPE_GUID)
		return 16;
	if (c->type == AM_TYPE_FIXED_SIZE_BINARY)
		return c->fixed_size;
	if (c->type == AM_TYPE_BOOLEAN)
		return 1;
	if (c->type == AM_TYPE_STRING || c->type == AM_TYPE_BINARY)
		return 0;
	return (uint32_t) am_num_type_size(column_num_type(c));
}

/* Value i as a zero- or sign-extended 64-bit integer. */
static uint64_t
int_at(const AmWriterColumn *c, uint64_t i, bool sign)
{
	const uint8_t *p = (const uint8_t *) c->values + i * column_width(c);

	switch (column_width(c))
	{
		case 1:
			return sign ? (uint64_t) (int64_t) (int8_t) p[0] : p[0];
		case 2:
			return sign ? (uint64_t) (int64_t) (int16_t) am_load_u16(p) : am_load_u16(p);
		case 4:
			return sign ? (uint64_t) (int64_t) (int32_t) am_load_u32(p) : am_load_u32(p);
		default:
			return am_load_u64(p);
	}
}

/* ---------------- value sections ---------------- */

static void
numeric_plain(AmPbWriter *b, const uint8_t *vals, size_t n, size_t size)
{
	put_u16(b, AM_ENC_PLAIN);
	am_pbw_raw(b, vals, n * size);
}

static void
numeric_delta(AmPbWriter *b, const AmWriterColumn *c, uint64_t first, size_t n)
{
	size_t		size = column_width(c);

	put_u16(b, AM_ENC_DELTA);
	put_u64(b, int_at(c, first, false));	/* only the low bytes matter */
	b->len -= 8 - size;
	put_zeros(b, (size_t) am_align_up(2 + size, 8) - 2 - size);
	put_u16(b, AM_ENC_PLAIN);
	for (size_t i = 1; i < n; i++)
	{
		uint64_t	d = int_at(c, first + i, false) - int_at(c, first + i - 1, false);
		uint8_t		t[8];

		am_store_u64(t, d);
		am_pbw_raw(b, t, size);
	}
}

static void
numeric_run_length(AmPbWriter *b, const uint8_t *vals, size_t n, size_t size)
{
	size_t		runs = 0;
	size_t		start = b->len;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || memcmp(vals + i * size, vals + (i - 1) * size, size) != 0)
			runs++;
	put_u16(b, AM_ENC_RUN_LENGTH);
	put_u32(b, (uint32_t) (runs * size));
	put_u32(b, (uint32_t) runs);
	put_zeros(b, 2 + 4);		/* flags, pad to +16 */
	for (size_t i = 0; i < n; i++)
		if (i == 0 || memcmp(vals + i * size, vals + (i - 1) * size, size) != 0)
			am_pbw_raw(b, vals + i * size, size);
	pad_to(b, start + 16, 8);
	for (size_t i = 0; i < n;)
	{
		size_t		j = i + 1;

		while (j < n && memcmp(vals + j * size, vals + i * size, size) == 0)
			j++;
		put_u32(b, (uint32_t) (j - i));
		i = j;
	}
}

static void
numeric_ffor(Writer *w, AmPbWriter *b, const AmWriterColumn *c, uint64_t first,
			 size_t n)
{
	size_t		size = column_width(c);
	bool		sign = c->is_signed;
	uint64_t	lo = int_at(c, first, sign),
				hi = lo;
	uint64_t	range;
	unsigned	width = 0;
	size_t		written = 0;
	size_t		cap;
	CdcStatus	cst;
	const void *vals = (const uint8_t *) c->values + first * size;

	for (size_t i = 1; i < n; i++)
	{
		uint64_t	v = int_at(c, first + i, sign);

		if (sign ? (int64_t) v < (int64_t) lo : v < lo)
			lo = v;
		if (sign ? (int64_t) v > (int64_t) hi : v > hi)
			hi = v;
	}
	range = hi - lo;
	if (size < 8)
		range &= (UINT64_C(1) << (8 * size)) - 1;
	while (width < 64 && (range >> width) != 0)
		width++;
	if (width == 0)
	{
		put_u16(b, AM_ENC_SINGLE_VALUE);
		am_pbw_raw(b, vals, size);
		return;
	}
	put_u16(b, AM_ENC_FFOR);
	put_u64(b, lo);
	b->len -= 8 - size;
	put_u16(b, (uint16_t) width);
	b->len -= 1;
	put_zeros(b, (size_t) am_align_up(2 + size + 1, 8) - 2 - size - 1);
	cap = cdc_fl_packed_size(n, width);
	put_zeros(b, cap);
	if (!w_ok(w))
		return;
	switch (size)
	{
		case 1:
			cst = cdc_ffor_encode8(vals, n, (uint8_t) lo, width, b->buf + b->len - cap, cap, &written);
			break;
		case 2:
			cst = cdc_ffor_encode16(vals, n, (uint16_t) lo, width, b->buf + b->len - cap, cap, &written);
			break;
		case 4:
			cst = cdc_ffor_encode32(vals, n, (uint32_t) lo, width, b->buf + b->len - cap, cap, &written);
			break;
		default:
			cst = cdc_ffor_encode64(vals, n, lo, width, b->buf + b->len - cap, cap, &written);
			break;
	}
	if (cst != CDC_OK || written != cap)
	{
		am_fail(w->err, AM_ERR_INVALID_ARGUMENT, "FastLanes encoding failed: %s",
				cdc_status_message(cst));
		w->status = AM_ERR_INVALID_ARGUMENT;
	}
}

/*
 * Delta (5) whose child is FFOR of the n - 1 wrapping differences, for
 * sorted or slowly changing integers.  The child's reference and width are
 * chosen on the signed differences: FFOR decodes by wrapping addition, so
 * the bytes are right whatever the stream's signedness.
 */
static void
numeric_delta_ffor(Writer *w, AmPbWriter *b, const AmWriterColumn *c,
				   uint64_t first, size_t n)
{
	size_t		size = column_width(c);
	uint8_t    *deltas;
	AmWriterColumn dc;

	if (n < 2)
	{
		numeric_plain(b, (const uint8_t *) c->values + first * size, n, size);
		return;
	}
	deltas = am_alloc(w->alloc, (n - 1) * size + 8, w->err);
	if (deltas == NULL)
	{
		w->status = AM_ERR_IO;
		return;
	}
	for (size_t i = 1; i < n; i++)
	{
		uint64_t	d = int_at(c, first + i, false) - int_at(c, first + i - 1, false);
		uint8_t		t[8];

		am_store_u64(t, d);
		memcpy(deltas + (i - 1) * size, t, size);
	}
	put_u16(b, AM_ENC_DELTA);
	put_u64(b, int_at(c, first, false));
	b->len -= 8 - size;
	put_zeros(b, (size_t) am_align_up(2 + size, 8) - 2 - size);
	memset(&dc, 0, sizeof(dc));
	dc.type = c->type == AM_TYPE_DATETIME ? AM_TYPE_INT64 : c->type;
	dc.is_signed = true;
	dc.values = deltas;
	numeric_ffor(w, b, &dc, 0, n - 1);
	am_release(w->alloc, deltas);
}

/* A u64 stream (binary offsets) as a cascaded child: Delta of FFOR. */
static void
u64_child(Writer *w, AmPbWriter *b, const uint64_t *vals, size_t n)
{
	AmWriterColumn oc;

	memset(&oc, 0, sizeof(oc));
	oc.type = AM_TYPE_INT64;
	oc.is_signed = false;
	oc.values = vals;
	numeric_delta_ffor(w, b, &oc, 0, n);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * BlockDictionary (14) of integers: FFOR u32 codes (0 = null slot, c = entry
 * c - 1), then the sorted distinct values as Delta of FFOR.  Only tried
 * when at most half the block's values are distinct; returns false (nothing
 * written) otherwise.
 */
static bool
numeric_dictionary(Writer *w, AmPbWriter *b, const AmWriterColumn *c,
				   uint64_t first, size_t n)
{
	size_t		size = column_width(c);
	uint64_t   *sorted = am_alloc(w->alloc, n * 8 + 8, w->err);
	uint32_t   *codes = am_alloc(w->alloc, n * 4 + 4, w->err);
	uint8_t    *dict = am_alloc(w->alloc, n * size + 8, w->err);
	size_t		m = 0,
				distinct = 0,
				start = b->len,
				codes_at;
	AmWriterColumn cc,
				dc;
	bool		done = false;

	if (sorted == NULL || codes == NULL || dict == NULL)
	{
		w->status = AM_ERR_IO;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (c->nulls == NULL || !c->nulls[first + i])
			sorted[m++] = int_at(c, first + i, false);
	qsort(sorted, m, 8, cmp_u64);
	for (size_t i = 0; i < m; i++)
		if (i == 0 || sorted[i] != sorted[i - 1])
			sorted[distinct++] = sorted[i];
	if (distinct == 0 || distinct * 2 > n)
		goto out;
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	v;
		size_t		lo = 0,
					hi = distinct;

		if (c->nulls != NULL && c->nulls[first + i])
		{
			codes[i] = 0;
			continue;
		}
		v = int_at(c, first + i, false);
		while (lo < hi)
		{
			size_t		mid = (lo + hi) / 2;

			if (sorted[mid] < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		codes[i] = (uint32_t) lo + 1;
	}
	for (size_t i = 0; i < distinct; i++)
	{
		uint8_t		t[8];

		am_store_u64(t, sorted[i]);
		memcpy(dict + i * size, t, size);
	}
	put_u16(b, AM_ENC_BLOCK_DICTIONARY);
	put_u32(b, 0);				/* codes_size, patched */
	put_u32(b, (uint32_t) distinct);
	am_pbw_raw(b, "\1", 1);		/* values_cascading */
	put_zeros(b, 5);
	codes_at = b->len;
	memset(&cc, 0, sizeof(cc));
	cc.type = AM_TYPE_INT32;
	cc.values = codes;
	numeric_ffor(w, b, &cc, 0, n);
	if (!w_ok(w))
		goto out;
	am_store_u32(b->buf + start + 2, (uint32_t) (b->len - codes_at));
	memset(&dc, 0, sizeof(dc));
	dc.type = c->type == AM_TYPE_DATETIME ? AM_TYPE_INT64 : c->type;
	dc.is_signed = c->is_signed && c->type != AM_TYPE_DATETIME;
	dc.values = dict;
	numeric_delta_ffor(w, b, &dc, 0, distinct);
	done = true;
out:
	am_release(w->alloc, sorted);
	am_release(w->alloc, codes);
	am_release(w->alloc, dict);
	return done;
}

/* Compress raw bytes into the block: ZSTD frames, or u32 size + LZ4 block. */
static void
compress_into(Writer *w, AmPbWriter *b, int kind, const uint8_t *raw, size_t len)
{
	int			codec = kind == AM_ENC_ZSTD ? CMP_ZSTD : CMP_LZ4_RAW;
	size_t		cap = cmp_compress_bound(codec, len);
	size_t		written = 0;
	CmpStatus	cst;

	w->scratch.len = 0;
	put_zeros(&w->scratch, cap);
	if (!w_ok(w))
		return;
	cst = cmp_compress(codec, 0, raw, len, w->scratch.buf, cap, &written);
	if (cst != CMP_OK)
	{
		am_fail(w->err, AM_ERR_INVALID_ARGUMENT, "compression failed: %s",
				cmp_status_message(cst));
		w->status = AM_ERR_INVALID_ARGUMENT;
		return;
	}
	if (kind == AM_ENC_LZ4)
		put_u32(b, (uint32_t) len);
	am_pbw_raw(b, w->scratch.buf, written);
}

/*
 * ALP (12): integers (FFOR-encoded i32/i64 child) and exceptions, from the
 * codec layer's parameter search and bit-exact encoder (-0.0, NaN payloads
 * and infinities become exceptions, so they survive).
 */
static void
numeric_alp(Writer *w, AmPbWriter *b, const AmWriterColumn *c, uint64_t first,
			size_t n)
{
	bool		f64 = c->type == AM_TYPE_FLOAT64;
	size_t		size = f64 ? 8 : 4;
	const uint8_t *vals = (const uint8_t *) c->values + first * size;
	CdcAlpParams params;
	void	   *ints = am_alloc(w->alloc, n * size + 8, w->err);
	uint32_t   *positions = am_alloc(w->alloc, n * 4 + 4, w->err);
	void	   *exc_values = am_alloc(w->alloc, n * size + 8, w->err);
	uint8_t    *exc_bytes = am_alloc(w->alloc, n * (4 + size) + 8, w->err);
	size_t		exceptions,
				exc_len = 0;
	size_t		start = b->len,
				ints_at;
	AmWriterColumn ic;
	CdcStatus	cst;

	if (ints == NULL || positions == NULL || exc_values == NULL || exc_bytes == NULL)
	{
		w->status = AM_ERR_IO;
		goto done;
	}
	if (f64)
	{
		cdc_alp_choose64((const double *) (const void *) vals, n, &params);
		exceptions = cdc_alp_encode64((const double *) (const void *) vals, n, params,
									  ints, positions, exc_values);
		cst = cdc_alp_write_exceptions64(positions, exc_values, exceptions, exc_bytes,
										 n * 12 + 8, &exc_len);
	}
	else
	{
		cdc_alp_choose32((const float *) (const void *) vals, n, &params);
		exceptions = cdc_alp_encode32((const float *) (const void *) vals, n, params,
									  ints, positions, exc_values);
		cst = cdc_alp_write_exceptions32(positions, exc_values, exceptions, exc_bytes,
										 n * 8 + 8, &exc_len);
	}
	if (cst != CDC_OK || exceptions > UINT16_MAX)
	{
		/* too many exceptions for the format: store the block plainly */
		numeric_plain(b, vals, n, size);
		goto done;
	}
	put_u16(b, AM_ENC_ALP);
	put_u32(b, 0);				/* integers_size, patched */
	put_u16(b, (uint16_t) exceptions);
	am_pbw_raw(b, &params.exponent, 1);
	am_pbw_raw(b, &params.factor, 1);
	put_zeros(b, 6);
	ints_at = b->len;
	memset(&ic, 0, sizeof(ic));
	ic.type = f64 ? AM_TYPE_INT64 : AM_TYPE_INT32;
	ic.is_signed = true;
	ic.values = ints;
	numeric_ffor(w, b, &ic, 0, n);
	if (!w_ok(w))
		goto done;
	am_store_u32(b->buf + start + 2, (uint32_t) (b->len - ints_at));
	am_pbw_raw(b, exc_bytes, exc_len);
done:
	am_release(w->alloc, ints);
	am_release(w->alloc, positions);
	am_release(w->alloc, exc_values);
	am_release(w->alloc, exc_bytes);
}

static void numeric_section(Writer *w, AmPbWriter *b, const AmWriterColumn *c,
							uint64_t first, size_t n);
static void binary_section(Writer *w, AmPbWriter *b, const AmWriterColumn *c,
						   uint64_t first, size_t n);

/*
 * AM_WRITER_ENC_AUTO: encode the block with each candidate, keep the
 * smallest.  Candidates are only encodings whose layout the reference reader
 * decodes correctly (no fixed-size BlockDictionary, no raw ZigZag).
 */
static void
auto_section(Writer *w, AmPbWriter *b, const AmWriterColumn *c,
			 uint64_t first, size_t n, bool binary)
{
	static const int int_candidates[] = {AM_ENC_PLAIN, AM_ENC_FFOR,
		ENC_DELTA_FFOR, ENC_INT_DICTIONARY, AM_ENC_RUN_LENGTH, AM_ENC_ZSTD};
	static const int float_candidates[] = {AM_ENC_PLAIN, AM_ENC_ALP, AM_ENC_ZSTD};
	static const int binary_candidates[] = {AM_ENC_PLAIN, AM_ENC_FSST, AM_ENC_ZSTD,
		ENC_STRING_DICTIONARY};
	static const int fixed_candidates[] = {AM_ENC_PLAIN, AM_ENC_ZSTD};
	const int  *cands;
	int			ncands;
	AmWriterColumn trial = *c;
	size_t		start = b->len;
	size_t		best_len = SIZE_MAX;
	int			best = AM_ENC_PLAIN;

	if (binary)
	{
		bool		fixed = column_width(c) != 0;

		cands = fixed ? fixed_candidates : binary_candidates;
		ncands = fixed ? 2 : 4;
	}
	else if (c->type == AM_TYPE_FLOAT32 || c->type == AM_TYPE_FLOAT64)
	{
		cands = float_candidates;
		ncands = 3;
	}
	else
	{
		cands = int_candidates;
		ncands = 6;
	}
	for (int i = 0; i < ncands && w_ok(w); i++)
	{
		trial.encoding = cands[i];
		if (binary)
			binary_section(w, b, &trial, first, n);
		else
			numeric_section(w, b, &trial, first, n);
		if (w_ok(w) && b->len - start < best_len)
		{
			best_len = b->len - start;
			best = cands[i];
		}
		b->len = start;
	}
	trial.encoding = best;
	if (binary)
		binary_section(w, b, &trial, first, n);
	else
		numeric_section(w, b, &trial, first, n);
}

static void
numeric_section(Writer *w, AmPbWriter *b, const AmWriterColumn *c,
				uint64_t first, size_t n)
{
	size_t		size = column_width(c);
	const uint8_t *vals = (const uint8_t *) c->values + first * size;
	bool		integer = c->type != AM_TYPE_FLOAT32 && c->type != AM_TYPE_FLOAT64;

	switch (c->encoding)
	{
		case AM_WRITER_ENC_AUTO:
			auto_section(w, b, c, first, n, false);
			return;
		case ENC_DELTA_FFOR:
			if (integer)
			{
				numeric_delta_ffor(w, b, c, first, n);
				return;
			}
			break;
		case ENC_INT_DICTIONARY:
			if (integer && numeric_dictionary(w, b, c, first, n))
				return;
			break;
		case AM_ENC_DELTA:
			if (integer && n >= 2)
			{
				numeric_delta(b, c, first, n);
				return;
			}
			break;
		case AM_ENC_RUN_LENGTH:
			numeric_run_length(b, vals, n, size);
			return;
		case AM_ENC_FFOR:
			if (integer)
			{
				numeric_ffor(w, b, c, first, n);
				return;
			}
			break;
		case AM_ENC_ZSTD:
		case AM_ENC_LZ4:
			put_u16(b, (uint16_t) c->encoding);
			put_zeros(b, 6);
			compress_into(w, b, c->encoding, vals, n * size);
			return;
		case AM_ENC_ALP:
			if (!integer)
			{
				numeric_alp(w, b, c, first, n);
				return;
			}
			break;
		default:
			break;
	}
	numeric_plain(b, vals, n, size);
}

/* The n + 1 block-relative offsets of rows [first, first + n), cascaded. */
static void
block_offsets_child(Writer *w, AmPbWriter *b, const AmWriterColumn *c,
					uint64_t first, size_t n)
{
	uint64_t   *rel = am_alloc(w->alloc, (n + 1) * 8, w->err);

	if (rel == NULL)
	{
		w->status = AM_ERR_IO;
		return;
	}
	for (size_t i = 0; i <= n; i++)
		rel[i] = c->offsets[first + i] - c->offsets[first];
	u64_child(w, b, rel, n + 1);
	am_release(w->alloc, rel);
}

/*
 * FSST (15): a symbol table learnt from the block's values, the block's
 * concatenated bytes compressed as one string, then raw u64 offsets.
 */
static void
binary_fsst(Writer *w, AmPbWriter *b, const AmWriterColumn *c, uint64_t first,
			size_t n)
{
	const uint8_t *bytes = c->values;
	uint64_t	base = c->offsets[first];
	size_t		raw_len = (size_t) (c->offsets[first + n] - base);
	CdcFsstBuilder *builder = am_alloc(w->alloc, sizeof(CdcFsstBuilder), w->err);
	CdcByteView *views = am_alloc(w->alloc, n * sizeof(CdcByteView) + 1, w->err);
	CdcFsstTable table;
	size_t		start = b->len,
				codes_at,
				written = 0,
				table_len = 0,
				cap = cdc_fsst_max_compressed(raw_len);
	uint8_t		symbols;
	CdcStatus	cst;

	if (builder == NULL || views == NULL)
	{
		w->status = AM_ERR_IO;
		goto done;
	}
	for (size_t i = 0; i < n; i++)
	{
		views[i].ptr = bytes + c->offsets[first + i];
		views[i].len = (uint32_t) (c->offsets[first + i + 1] - c->offsets[first + i]);
	}
	cst = cdc_fsst_build(builder, views, n, &table);
	if (cst != CDC_OK)
		goto fail;
	symbols = (uint8_t) table.count;
	put_u16(b, AM_ENC_FSST);
	am_pbw_raw(b, &symbols, 1);
	put_u32(b, 0);				/* values_size, patched */
	put_u16(b, 1 | 8 << 8);		/* offsets_cascading 1, offset_width 8 */
	put_zeros(b, 7);
	put_zeros(b, cdc_fsst_table_size(&table));
	if (!w_ok(w))
		goto done;
	cst = cdc_fsst_table_write(&table, b->buf + b->len - cdc_fsst_table_size(&table),
							   cdc_fsst_table_size(&table), &table_len);
	if (cst != CDC_OK)
		goto fail;
	codes_at = b->len;
	put_zeros(b, cap);
	if (!w_ok(w))
		goto done;
	cst = cdc_fsst_compress(&table, bytes + base, raw_len, b->buf + codes_at, cap, &written);
	if (cst != CDC_OK)
		goto fail;
	b->len = codes_at + written;
	am_store_u32(b->buf + start + 3, (uint32_t) written);
	pad_to(b, start + 16, 8);
	block_offsets_child(w, b, c, first, n);
	goto done;
fail:
	am_fail(w->err, AM_ERR_INVALID_ARGUMENT, "FSST encoding failed: %s",
			cdc_status_message(cst));
	w->status = AM_ERR_INVALID_ARGUMENT;
done:
	am_release(w->alloc, builder);
	am_release(w->alloc, views);
}

/*
 * Binary BlockDictionary (14) of variable-size values: FFOR u32 codes (0 =
 * null, c = entry c - 1), pad to 8, FFOR u32 entry lengths, entry bytes.
 * Only when at most half the block's values are distinct; returns false
 * (nothing written) otherwise.  Entries repeat in every block, so this wins
 * for columns of a few thousand distinct values, where ZSTD or FSST still
 * pay for every value's bytes.
 */
static bool
binary_dictionary(Writer *w, AmPbWriter *b, const AmWriterColumn *c,
				  uint64_t first, size_t n)
{
	AmStringDict d;
	uint32_t   *lengths = NULL;
	size_t		start = b->len,
				at;
	AmWriterColumn cc;
	AmStatus	st;

	st = am_string_dict_build(w->alloc, c->values, c->offsets + first,
							  c->nulls ? c->nulls + first : NULL, n,
							  (uint32_t) (n / 2), &d, w->err);
	if (st != AM_OK)
	{
		w->status = st;
		return false;
	}
	if (d.count == 0)
		return false;
	lengths = am_alloc(w->alloc, (size_t) d.count * 4, w->err);
	if (lengths == NULL)
	{
		w->status = AM_ERR_IO;
		am_string_dict_free(w->alloc, &d);
		return false;
	}
	for (uint32_t e = 0; e < d.count; e++)
		lengths[e] = (uint32_t) (c->offsets[first + d.first[e] + 1] -
								 c->offsets[first + d.first[e]]);
	put_u16(b, AM_ENC_BLOCK_DICTIONARY);
	put_u32(b, 0);				/* codes_encoded_size, patched */
	put_u32(b, 0);				/* lengths_encoded_size, patched */
	put_u32(b, d.count);
	am_pbw_raw(b, "\1", 1);		/* lengths_cascading */
	put_zeros(b, 1);			/* payload at +16 */
	memset(&cc, 0, sizeof(cc));
	cc.type = AM_TYPE_INT32;	/* unsigned u32 streams */
	at = b->len;
	cc.values = d.codes;
	numeric_ffor(w, b, &cc, 0, n);
	if (w_ok(w))
		am_store_u32(b->buf + start + 2, (uint32_t) (b->len - at));
	pad_to(b, start + 16, 8);
	at = b->len;
	cc.values = lengths;
	numeric_ffor(w, b, &cc, 0, d.count);
	if (w_ok(w))
		am_store_u32(b->buf + start + 6, (uint32_t) (b->len - at));
	for (uint32_t e = 0; e < d.count; e++)
		am_pbw_raw(b, (const uint8_t *) c->values + c->offsets[first + d.first[e]],
				   lengths[e]);
	am_release(w->alloc, lengths);
	am_string_dict_free(w->alloc, &d);
	return true;
}

static void
binary_section(Writer *w, AmPbWriter *b, const AmWriterColumn *c,
			   uint64_t first, size_t n)
{
	uint32_t	fixed = column_width(c);
	const uint8_t *bytes = c->values;
	uint64_t	base = fixed ? first * fixed : c->offsets[first];
	uint64_t	end = fixed ? (first + n) * fixed : c->offsets[first + n];
	size_t		start = b->len;

	if (c->encoding == AM_WRITER_ENC_AUTO)
	{
		auto_section(w, b, c, first, n, true);
		return;
	}
	if (c->encoding == AM_ENC_ZSTD || c->encoding == AM_ENC_LZ4)
	{
		size_t		size_at;

		put_u16(b, (uint16_t) c->encoding);
		size_at = b->len;
		put_u32(b, 0);			/* values_size, patched below */
		/* offset_width, offsets_cascading (Delta of FFOR when variable) */
		put_u16(b, fixed ? 0 : 8 | 1 << 8);
		compress_into(w, b, c->encoding, bytes + base, (size_t) (end - base));
		if (!w_ok(w))
			return;
		am_store_u32(b->buf + size_at, (uint32_t) (b->len - start - 8));
		pad_to(b, start + 8, 8);
		if (!fixed)
			block_offsets_child(w, b, c, first, n);
		return;
	}
	if (c->encoding == AM_ENC_FSST && !fixed)
	{
		binary_fsst(w, b, c, first, n);
		return;
	}
	if ((c->encoding == ENC_STRING_DICTIONARY ||
		 c->encoding == AM_ENC_BLOCK_DICTIONARY) && !fixed &&
		binary_dictionary(w, b, c, first, n))
		return;
	if (!w_ok(w))
		return;
	put_u16(b, AM_ENC_PLAIN);
	am_pbw_raw(b, fixed ? "\0" : "\b", 1);
	if (!fixed)
		for (size_t i = 0; i <= n; i++)
			put_u64(b, c->offsets[first + i] - base);
	am_pbw_raw(b, bytes + base, (size_t) (end - base));
}

/* ---------------- blocks and buffers ---------------- */

/* One block's content: presence (when asked) and values. */
typedef struct BlockSource
{
	const AmWriterColumn *col;
	bool		bits;			/* bit buffer of values (false) or presence (true) */
	bool		presence_bits;
	bool		list_offsets;	/* u64 list offsets relative to the stripe */
	const uint8_t *nulls;		/* null flags of the node (1 = null) */
	uint64_t	stripe_first;
	uint64_t	stripe_rows;
} BlockSource;

/* Bitmap byte k of the stripe: LSB-first bits of values or presence. */
static uint8_t
bitmap_byte(const BlockSource *s, uint64_t k)
{
	uint8_t		v = 0;

	for (unsigned bit = 0; bit < 8; bit++)
	{
		uint64_t	row = k * 8 + bit;
		bool		set;

		if (row >= s->stripe_rows)
			break;
		row += s->stripe_first;
		if (s->presence_bits)
			set = s->nulls == NULL || !s->nulls[row];
		else
			set = ((const uint8_t *) s->col->values)[row] != 0 &&
				(s->nulls == NULL || !s->nulls[row]);
		v |= (uint8_t) set << bit;
	}
	return v;
}

/* AmWriterOptions.section_hook: true when it wrote the block's section. */
static bool
hooked_section(Writer *w, AmPbWriter *b, const AmWriterColumn *c,
			   uint64_t first, size_t n)
{
	const uint8_t *section = NULL;
	size_t		len = 0;
	AmStatus	st;

	st = w->section_hook(w->section_hook_ctx, c, first, n, &section, &len, w->err);
	if (st != AM_OK)
	{
		w->status = st;
		return true;
	}
	if (section == NULL)
		return false;
	am_pbw_raw(b, section, len);
	return true;
}

static void
block_body(Writer *w, const BlockSource *s, uint64_t first, size_t n)
{
	AmPbWriter *b = &w->block;
	const AmWriterColumn *c = s->col;
	size_t		nulls = 0;
	size_t		values_at;

	b->len = 0;
	put_u32(b, 0);
	put_u32(b, 0);
	if (s->list_offsets)
	{
		const uint64_t *off = s->col->list_offsets + s->stripe_first;

		put_u16(b, AM_ENC_PLAIN);
		for (size_t i = 0; i < n; i++)
			put_u64(b, off[first + i] - off[0]);
		if (w_ok(w))
			am_store_u32(b->buf + 4, (uint32_t) (b->len - 8));
		return;
	}
	if (s->bits)
	{
		put_u16(b, AM_ENC_PLAIN);
		for (size_t i = 0; i < n; i++)
		{
			uint8_t		v = bitmap_byte(s, first + i);

			am_pbw_raw(b, &v, 1);
		}
		if (w_ok(w))
			am_store_u32(b->buf + 4, (uint32_t) (b->len - 8));
		return;
	}
	first += s->stripe_first;
	for (size_t i = 0; c->nulls != NULL && i < n; i++)
		nulls += c->nulls[first + i] != 0;
	if (nulls == n && n > 0)
		am_pbw_raw(b, "\1", 1);
	else if (nulls > 0 && n <= 65536 && (nulls * 100 < n || nulls * 100 > n * 99))
	{
		/*
		 * Roaring as the reference chooses it (presence.rs): below 1% nulls
		 * a negated bitmap listing the nulls, above 99% one listing the
		 * present positions; in between Plain bytes.  Portable format
		 * without run containers: cookie 12346, one container (key 0; a
		 * block has at most 65536 positions) with an array of positions
		 * at byte 16.  Either list has fewer than 656 entries, well
		 * within an array container's 4096.
		 */
		bool		negated = nulls * 100 < n;
		bool		want_null = negated;

		am_pbw_raw(b, negated ? "\3\1" : "\3\0", 2);
		put_u32(b, 12346);
		put_u32(b, 1);
		put_u16(b, 0);
		put_u16(b, (uint16_t) ((negated ? nulls : n - nulls) - 1));
		put_u32(b, 16);
		for (size_t i = 0; i < n; i++)
			if ((c->nulls[first + i] != 0) == want_null)
				put_u16(b, (uint16_t) i);
	}
	else if (nulls > 0)
	{
		am_pbw_raw(b, "\2", 1);
		for (size_t i = 0; i < n; i++)
			am_pbw_raw(b, c->nulls[first + i] ? "\0" : "\1", 1);
	}
	if (!w_ok(w))
		return;
	am_store_u32(b->buf, (uint32_t) (b->len - 8));
	pad_to(b, 0, 8);
	values_at = b->len;
	if (w->section_hook != NULL && hooked_section(w, b, c, first, n))
		;
	else if (is_binary_type(c->type))
		binary_section(w, b, c, first, n);
	else
		numeric_section(w, b, c, first, n);
	if (w_ok(w))
		am_store_u32(b->buf + 4, (uint32_t) (b->len - values_at));
}

/* Segment records, offset lists and footer of a block map (3.2). */
static void
write_block_map(AmPbWriter *f, const uint64_t *lsize, const uint64_t *bsize,
				uint64_t blocks, uint64_t values, uint64_t data_size)
{
	uint64_t	segments = (blocks + SEGMENT_SIZE - 1) / SEGMENT_SIZE;
	uint64_t	logical = 0,
				offset = 0;
	/* records */
	for (uint64_t s = 0; s < segments; s++)
	{
		uint64_t	b0 = s * SEGMENT_SIZE;
		uint64_t	n = blocks - b0 < SEGMENT_SIZE ? blocks - b0 : SEGMENT_SIZE;
		uint64_t	lmin = UINT64_MAX,
					lmax = 0,
					bmin = UINT64_MAX,
					bmax = 0;
		unsigned	lb,
					bb;
		size_t		rec = f->len;

		for (uint64_t i = b0; i < b0 + n; i++)
		{
			lmin = lsize[i] < lmin ? lsize[i] : lmin;
			lmax = lsize[i] > lmax ? lsize[i] : lmax;
			bmin = bsize[i] < bmin ? bsize[i] : bmin;
			bmax = bsize[i] > bmax ? bsize[i] : bmax;
		}
		lb = lmax - lmin <= 255 ? 8 : lmax - lmin <= 65535 ? 16 : 32;
		bb = bmax - bmin <= 255 ? 8 : bmax - bmin <= 65535 ? 16 : 32;
		put_u64(f, logical);
		put_u64(f, offset);
		put_u32(f, (uint32_t) lmin);
		put_u32(f, (uint32_t) bmin);
		put_u16(f, (uint16_t) (lb | bb << 8));
		put_u16(f, (uint16_t) n);
		for (uint64_t i = b0; i < b0 + n; i++)
		{
			uint64_t	d = lsize[i] - lmin;

			lb == 8 ? am_pbw_raw(f, &d, 1) : lb == 16 ? put_u16(f, (uint16_t) d) : put_u32(f, (uint32_t) d);
			logical += lsize[i];
		}
		pad_to(f, rec, 4);
		for (uint64_t i = b0; i < b0 + n; i++)
		{
			uint64_t	d = bsize[i] - bmin;

			bb == 8 ? am_pbw_raw(f, &d, 1) : bb == 16 ? put_u16(f, (uint16_t) d) : put_u32(f, (uint32_t) d);
			offset += bsize[i];
		}
		pad_to(f, rec, 8);
	}
	/* segment logical offsets, then record offsets */
	{
		uint64_t	l = 0;

		put_u64(f, 0);
		for (uint64_t s = 0; s < segments; s++)
		{
			uint64_t	b0 = s * SEGMENT_SIZE;
			uint64_t	n = blocks - b0 < SEGMENT_SIZE ? blocks - b0 : SEGMENT_SIZE;

			for (uint64_t i = b0; i < b0 + n; i++)
				l += lsize[i];
			put_u64(f, l);
		}
		/* records have varying sizes: recompute their ends */
		put_u64(f, 0);
		{
			uint64_t	at = 0;

			for (uint64_t s = 0; s < segments; s++)
			{
				uint64_t	b0 = s * SEGMENT_SIZE;
				uint64_t	n = blocks - b0 < SEGMENT_SIZE ? blocks - b0 : SEGMENT_SIZE;
				uint64_t	lmin = UINT64_MAX,
							lmax = 0,
							bmin = UINT64_MAX,
							bmax = 0;
				unsigned	lb,
							bb;

				for (uint64_t i = b0; i < b0 + n; i++)
				{
					lmin = lsize[i] < lmin ? lsize[i] : lmin;
					lmax = lsize[i] > lmax ? lsize[i] : lmax;
					bmin = bsize[i] < bmin ? bsize[i] : bmin;
					bmax = bsize[i] > bmax ? bsize[i] : bmax;
				}
				lb = lmax - lmin <= 255 ? 8 : lmax - lmin <= 65535 ? 16 : 32;
				bb = bmax - bmin <= 255 ? 8 : bmax - bmin <= 65535 ? 16 : 32;
				at += am_align_up(am_align_up(28 + n * lb / 8, 4) + n * bb / 8, 8);
				put_u64(f, at);
			}
		}
	}
	put_u64(f, values);
	put_u64(f, blocks);
	put_u64(f, segments);
	put_u64(f, SEGMENT_SIZE);
	put_u64(f, data_size);
}

/* Write a block buffer of n values (bit buffers: n bytes) at a 64-byte offset. */
static void
write_buffer(Writer *w, const BlockSource *src, uint64_t n, uint32_t per_block,
			 BufferOut *out)
{
	AmPbWriter *f = &w->file;
	uint64_t	cap = (n + per_block - 1) / per_block + 1;
	uint64_t	blocks = 0;
	uint64_t   *lsize,
			   *bsize;
	uint64_t	data_size = 0;
	uint64_t	first = 0;
	bool		variable = !src->bits && !src->list_offsets &&
		column_width(src->col) == 0;

	pad_to(f, 0, 64);			/* base is a multiple of 64 */
	out->start = w->base + f->len;
	lsize = am_alloc(w->alloc, (size_t) cap * 16, w->err);
	if (lsize == NULL)
	{
		w->status = AM_ERR_IO;
		return;
	}
	bsize = lsize + cap;
	while (first < n && w_ok(w))
	{
		size_t		k = (size_t) (n - first < per_block ? n - first : per_block);
		AmPbWriter *blk = &w->block;

		/* strings: a block ends early past BINARY_BLOCK_BYTES of values */
		if (variable)
		{
			const uint64_t *off = src->col->offsets + src->stripe_first + first;

			while (k > 1 && off[k] - off[0] > BINARY_BLOCK_BYTES)
				k = k / 2;
		}
		if (blocks + 1 >= cap)
		{
			uint64_t   *bigger = am_alloc(w->alloc, (size_t) cap * 32, w->err);

			if (bigger == NULL)
			{
				w->status = AM_ERR_IO;
				break;
			}
			memcpy(bigger, lsize, (size_t) blocks * 8);
			memcpy(bigger + 2 * cap, bsize, (size_t) blocks * 8);
			am_release(w->alloc, lsize);
			lsize = bigger;
			cap *= 2;
			bsize = lsize + cap;
		}
		block_body(w, src, first, k);
		if (!w_ok(w))
			break;
		/* pad so that block + checksum is a multiple of 8 */
		put_zeros(blk, (size_t) (am_align_up(blk->len + 4, 8) - blk->len - 4));
		put_u32(blk, am_checksum32(blk->buf, blk->len));
		if (!w_ok(w))
			break;
		am_pbw_raw(f, blk->buf, blk->len);
		lsize[blocks] = k;
		bsize[blocks] = blk->len;
		data_size += blk->len;
		blocks++;
		first += k;
	}
	out->blocks = blocks;
	if (w_ok(w))
	{
		pad_to(f, (size_t) (out->start - w->base), 16);
		out->map_start = w->base + f->len;
		write_block_map(f, lsize, bsize, blocks, n, data_size);
		out->end = w->base + f->len;
	}
	am_release(w->alloc, lsize);
}

/* ---------------- messages ---------------- */

/* DataRef {url, range} (1.5); url NULL: the file holding the message. */
static void
msg_data_ref_in(AmPbWriter *m, uint32_t tag, const char *url, uint64_t start,
				uint64_t end)
{
	AmPbWriter	range,
				ref;

	am_pbw_init(&range, m->alloc);
	am_pbw_init(&ref, m->alloc);
	if (url != NULL)
		am_pbw_bytes(&ref, 1, url, strlen(url));
	am_pbw_fixed64(&range, 1, start);
	am_pbw_fixed64(&range, 2, end);
	am_pbw_bytes(&ref, 2, range.buf, range.len);
	am_pbw_bytes(m, tag, ref.buf, ref.len);
	m->failed |= range.failed | ref.failed;
	am_pbw_free(&range);
	am_pbw_free(&ref);
}

static void
msg_data_ref(AmPbWriter *m, uint32_t tag, uint64_t start, uint64_t end)
{
	msg_data_ref_in(m, tag, NULL, start, end);
}

static void
msg_nested(AmPbWriter *m, uint32_t tag, AmPbWriter *child)
{
	am_pbw_bytes(m, tag, child->buf, child->len);
	m->failed |= child->failed;
	am_pbw_free(child);
}

/* Append [len][payload][checksum32] to the file; frees payload. */
static void
envelope(Writer *w, AmPbWriter *payload, uint64_t *start, uint64_t *end)
{
	*start = w->base + w->file.len;
	put_u32(&w->file, (uint32_t) payload->len);
	am_pbw_raw(&w->file, payload->buf, payload->len);
	put_u32(&w->file, payload->len ? am_checksum32(payload->buf, payload->len) :
			am_checksum32("", 0));
	*end = w->base + w->file.len;
	w->file.failed |= payload->failed;
	am_pbw_free(payload);
}

static void
msg_any_value(AmPbWriter *m, uint32_t tag, const AmAnyValue *v)
{
	AmPbWriter	a;

	am_pbw_init(&a, m->alloc);
	switch (v->kind)
	{
		case AM_VALUE_NULL:
			am_pbw_bytes(&a, 1, "", 0);
			break;
		case AM_VALUE_BOOL:
			am_pbw_uint(&a, 2, v->b);
			break;
		case AM_VALUE_U64:
			am_pbw_uint(&a, 3, v->u64);
			break;
		case AM_VALUE_I64:
			am_pbw_uint(&a, 4, v->u64);
			break;
		case AM_VALUE_DOUBLE:
			{
				uint64_t	bits;

				memcpy(&bits, &v->d, 8);
				am_pbw_fixed64(&a, 5, bits);
			}
			break;
		case AM_VALUE_STRING:
		case AM_VALUE_BYTES:
			am_pbw_bytes(&a, v->kind == AM_VALUE_STRING ? 8 : 9, v->bytes.data,
						 v->bytes.len);
			break;
		case AM_VALUE_DECIMAL:
			am_pbw_bytes(&a, 10, v->bytes.data, v->bytes.len);
			break;
		default:
			break;
	}
	msg_nested(m, tag, &a);
}

/* proto3 non-optional fixed64: left out when 0 */
static void
put_count(AmPbWriter *m, uint32_t tag, uint64_t v)
{
	if (v != 0)
		am_pbw_fixed64(m, tag, v);
}

/* FieldDescriptor 20, 22, 24, 25: the type-specific statistics (5.2). */
static void
msg_type_stats(AmPbWriter *m, const StripeColumn *sc)
{
	AmPbWriter	st;

	am_pbw_init(&st, m->alloc);
	if (sc->has_string_stats)
	{
		/* StringStats and BinaryStats share tags 1-3; 4 is String's */
		put_count(&st, 1, sc->min_size);
		if (sc->has_min_non_empty)
			am_pbw_fixed64(&st, 2, sc->min_non_empty);
		put_count(&st, 3, sc->max_size);
		if (sc->col->type == AM_TYPE_STRING)
			am_pbw_fixed64(&st, 4, sc->ascii_count);
		msg_nested(m, sc->col->type == AM_TYPE_STRING ? 20 : 25, &st);
	}
	else if (sc->has_bool_stats)
	{
		put_count(&st, 1, sc->true_count);
		put_count(&st, 2, sc->false_count);
		msg_nested(m, 22, &st);
	}
	else if (sc->has_float_stats)
	{
		for (int k = 0; k < 6; k++)
			put_count(&st, (uint32_t) k + 1, sc->float_counts[k]);
		msg_nested(m, 24, &st);
	}
	else
		am_pbw_free(&st);
}

static void
msg_field_descriptor(AmPbWriter *m, const StripeColumn *sc, uint64_t rows,
					 uint64_t nulls)
{
	am_pbw_fixed64(m, 1, rows);
	am_pbw_fixed64(m, 2, nulls);
	if (sc->has_dictionary_size)
		am_pbw_fixed64(m, 4, sc->dictionary_size);
	if (sc->constant.kind != AM_VALUE_ABSENT)
		msg_any_value(m, 3, &sc->constant);
	if (sc->has_range)
	{
		AmPbWriter	rs;
		AmAnyValue	v;

		am_pbw_init(&rs, m->alloc);
		memset(&v, 0, sizeof(v));
		v.kind = sc->range_decimal ? AM_VALUE_DECIMAL :
			sc->range_double ? AM_VALUE_DOUBLE :
			sc->range_signed ? AM_VALUE_I64 : AM_VALUE_U64;
		v.u64 = sc->min;
		v.d = sc->dmin;
		v.bytes.data = sc->dec_min;
		v.bytes.len = 16;
		msg_any_value(&rs, 1, &v);
		am_pbw_uint(&rs, 2, 1);
		v.u64 = sc->max;
		v.d = sc->dmax;
		v.bytes.data = sc->dec_max;
		msg_any_value(&rs, 3, &v);
		am_pbw_uint(&rs, 4, 1);
		msg_nested(m, 6, &rs);
	}
	else if (sc->empty_range)
	{
		AmPbWriter	rs;

		am_pbw_init(&rs, m->alloc);
		msg_nested(m, 6, &rs);
	}
	if (sc->has_hll)
	{
		/* CardinalityInfo {count, is_estimate, HllSketchV1} (section 5.3) */
		AmPbWriter	ci,
					hs;

		am_pbw_init(&ci, m->alloc);
		am_pbw_init(&hs, m->alloc);
		am_pbw_fixed64(&ci, 1, hll_estimate(sc->hll));
		am_pbw_uint(&ci, 2, 1);
		am_pbw_bytes(&hs, 1, "xxh3_64", 7);
		am_pbw_fixed64(&hs, 2, HLL_SEED);
		am_pbw_fixed32(&hs, 3, HLL_BITS);
		am_pbw_bytes(&hs, 4, sc->hll, HLL_COUNTERS);
		msg_nested(&ci, 3, &hs);
		msg_nested(m, 7, &ci);
	}
	if (sc->sbbf != NULL)
	{
		/* MembershipFilters.sbbf (section 5.4); stripe descriptors only */
		AmPbWriter	mf,
					sb;
		double		fpp = SBBF_FPP;
		uint64_t	fpp_bits;

		am_pbw_init(&mf, m->alloc);
		am_pbw_init(&sb, m->alloc);
		memcpy(&fpp_bits, &fpp, 8);
		am_pbw_fixed64(&sb, 1, sc->sbbf_blocks);
		am_pbw_fixed64(&sb, 2, fpp_bits);
		am_pbw_fixed64(&sb, 3, sc->sbbf_values);
		am_pbw_bytes(&sb, 4, "xxh3_64", 7);
		am_pbw_fixed64(&sb, 5, SBBF_SEED);
		am_pbw_bytes(&sb, 6, sc->sbbf, (size_t) sc->sbbf_blocks * 32);
		msg_nested(&mf, 1, &sb);
		msg_nested(m, 8, &mf);
	}
	msg_type_stats(m, sc);
	/* optional: written even when 0 */
	am_pbw_fixed64(m, 41, sc->raw_size);
}

static void
msg_stripe_field(Writer *w, StripeColumn *sc)
{
	AmPbWriter	sfd,
				fd,
				enc,
				nat;

	am_pbw_init(&sfd, w->alloc);
	am_pbw_init(&fd, w->alloc);
	am_pbw_init(&enc, w->alloc);
	am_pbw_init(&nat, w->alloc);
	msg_field_descriptor(&fd, sc, sc->rows, sc->nulls);
	msg_nested(&sfd, 1, &fd);
	for (int i = 0; i < sc->num_buffers; i++)
	{
		const BufferOut *b = &sc->buffers[i];
		AmPbWriter	eb;

		am_pbw_init(&eb, w->alloc);
		if (b->kind != AM_BUFFER_DATA)
			am_pbw_uint(&eb, 1, b->kind);
		msg_data_ref_in(&eb, 2, w->buffer_url, b->start, b->end);
		if (b->no_block_map)
		{
			/*
			 * section 3.9: block_count 0, no block map, no block checksums;
			 * buffer_id and packed_group_index 0 as the reference writes
			 */
			am_pbw_fixed64(&eb, 4, 0);
			am_pbw_fixed32(&eb, 20, 0);
			am_pbw_fixed32(&eb, 21, 0);
			msg_nested(&nat, 1, &eb);
			continue;
		}
		msg_data_ref_in(&eb, 3, w->buffer_url, b->map_start, b->end);
		am_pbw_fixed64(&eb, 4, b->blocks);
		am_pbw_uint(&eb, 5, 1);
		if (b->embedded_presence)
			am_pbw_uint(&eb, 6, 1);
		if (b->embedded_offsets)
			am_pbw_uint(&eb, 7, 1);
		msg_nested(&nat, 1, &eb);
	}
	/* always one DataEncoding, even without buffers (section 6.4) */
	msg_nested(&enc, 1, &nat);
	msg_nested(&sfd, 2, &enc);
	envelope(w, &sfd, &sc->desc_start, &sc->desc_end);
}

static void
msg_ref_array(Writer *w, const uint64_t *starts, const uint64_t *ends,
			  uint32_t n, uint64_t *start, uint64_t *end)
{
	AmPbWriter	a;

	am_pbw_init(&a, w->alloc);
	for (uint32_t i = 0; i < n; i++)
		am_pbw_bytes(&a, 2, "", 0);
	am_pbw_bytes(&a, 3, starts, (size_t) n * 8);
	am_pbw_bytes(&a, 4, ends, (size_t) n * 8);
	envelope(w, &a, start, end);
}

/*
 * One DataType table (8-slot vtable, 36-byte table) with its name and
 * children vector (n_children slots, patched by the caller); returns the
 * table position, *children_at the vector's.
 */
static size_t
schema_data_type(AmPbWriter *fb, const char *name, AmBasicType type,
				 bool is_signed, uint64_t fixed_size, uint32_t id,
				 uint32_t parent, uint32_t n_children, size_t *children_at,
				 const char *label)
{
	size_t		vt = fb->len,
				tab,
				name_at;
	size_t		name_len = strlen(name);
	/* slot 8 (extended_type) at +20 only with a label; slot 9 absent */
	static const uint16_t vtable[12] = {20, 36, 24, 4, 8, 12, 0, 16, 25, 28, 20, 0};
	int			entries = label ? 12 : 10;

	put_u16(fb, (uint16_t) (entries * 2));
	for (int i = 1; i < entries; i++)
		put_u16(fb, vtable[i]);
	tab = fb->len;
	put_u32(fb, (uint32_t) (tab - vt));
	put_u32(fb, id);
	put_u32(fb, parent);
	put_u32(fb, 0);				/* name, patched */
	put_u32(fb, 0);				/* children, patched */
	put_u32(fb, 0);				/* +20: unused */
	put_u16(fb, (uint16_t) ((uint8_t) type | (is_signed ? 1 : 0) << 8));
	put_u16(fb, 0);
	put_u64(fb, fixed_size);
	name_at = fb->len;
	put_u32(fb, (uint32_t) name_len);
	am_pbw_raw(fb, name, name_len);
	put_zeros(fb, 1);
	pad_to(fb, 0, 4);
	*children_at = fb->len;
	put_u32(fb, n_children);
	put_zeros(fb, (size_t) n_children * 4);
	if (label != NULL)
	{
		/* ExtendedTypeAnnotation {label, properties: []} */
		size_t		ann_vt = fb->len,
					ann_tab,
					label_at,
					props_at;
		size_t		label_len = strlen(label);

		put_u16(fb, 8);
		put_u16(fb, 12);
		put_u16(fb, 4);
		put_u16(fb, 8);
		ann_tab = fb->len;
		put_u32(fb, (uint32_t) (ann_tab - ann_vt));
		put_u32(fb, 0);			/* label, patched */
		put_u32(fb, 0);			/* properties, patched */
		label_at = fb->len;
		put_u32(fb, (uint32_t) label_len);
		am_pbw_raw(fb, label, label_len);
		put_zeros(fb, 1);
		pad_to(fb, 0, 4);
		props_at = fb->len;
		put_u32(fb, 0);
		if (fb->failed)
			return tab;
		am_store_u32(fb->buf + ann_tab + 4, (uint32_t) (label_at - (ann_tab + 4)));
		am_store_u32(fb->buf + ann_tab + 8, (uint32_t) (props_at - (ann_tab + 8)));
		am_store_u32(fb->buf + tab + 20, (uint32_t) (ann_tab - (tab + 20)));
	}
	if (fb->failed)
		return tab;
	am_store_u32(fb->buf + tab + 12, (uint32_t) (name_at - (tab + 12)));
	am_store_u32(fb->buf + tab + 16, (uint32_t) (*children_at - (tab + 16)));
	return tab;
}

/*
 * Schema.field_lookup (format notes 1.10; the reference's schema_builder.rs
 * always writes one, and its reader trusts it): names hashed with XXH3-64
 * into nb = next_power_of_two(max(n, 4) / 2) buckets; buckets holds nb + 1
 * prefix offsets into entries, entries the field indexes bucket by bucket.
 * Appended at the end of fb; the table's offset goes into slot_at.
 */
static void
schema_field_lookup(AmPbWriter *fb, const AmWriterColumn *cols, uint32_t n,
					size_t slot_at)
{
	uint32_t	nb = 1;
	uint32_t	want = (n > 4 ? n : 4) / 2;
	size_t		vt,
				tab,
				buckets_at,
				entries_at;

	while (nb < want)
		nb <<= 1;
	pad_to(fb, 0, 4);
	vt = fb->len;
	put_u16(fb, 8);				/* HashLookup vtable: 2 slots */
	put_u16(fb, 12);
	put_u16(fb, 4);
	put_u16(fb, 8);
	tab = fb->len;
	put_u32(fb, (uint32_t) (tab - vt));
	put_u32(fb, 0);				/* buckets, patched */
	put_u32(fb, 0);				/* entries, patched */
	buckets_at = fb->len;
	put_u32(fb, nb + 1);
	/* prefix offsets: a counting pass per bucket keeps this allocation-free */
	{
		uint32_t	at = 0;

		put_u32(fb, 0);
		for (uint32_t b = 0; b < nb; b++)
		{
			for (uint32_t i = 0; i < n; i++)
				at += (XXH3_64bits(cols[i].name, strlen(cols[i].name)) & (nb - 1)) == b;
			put_u32(fb, at);
		}
	}
	entries_at = fb->len;
	put_u32(fb, n);
	for (uint32_t b = 0; b < nb; b++)
		for (uint32_t i = 0; i < n; i++)
			if ((XXH3_64bits(cols[i].name, strlen(cols[i].name)) & (nb - 1)) == b)
				put_u32(fb, i);
	if (fb->failed)
		return;
	am_store_u32(fb->buf + tab + 4, (uint32_t) (buckets_at - (tab + 4)));
	am_store_u32(fb->buf + tab + 8, (uint32_t) (entries_at - (tab + 8)));
	am_store_u32(fb->buf + slot_at, (uint32_t) (tab - slot_at));
}

/* The FlatBuffers Schema (layout in flatbuf.c); lists get a child node. */
static void
write_schema(Writer *w, const AmWriterColumn *cols, uint32_t n,
			 uint32_t num_nodes, uint64_t *start, uint64_t *end)
{
	AmPbWriter	fb;
	size_t		vec;
	uint32_t	next_id = 0;

	am_pbw_init(&fb, w->alloc);
	put_u32(&fb, 16);			/* root: Schema table at 16 */
	put_u16(&fb, 10);			/* Schema vtable: 3 slots */
	put_u16(&fb, 16);
	put_u16(&fb, 4);
	put_u16(&fb, 8);
	put_u16(&fb, 12);
	put_u16(&fb, 0);			/* pad: tables are 4-aligned */
	put_u32(&fb, 12);			/* Schema table: vtable at 4 */
	put_u32(&fb, 12);			/* fields -> 32 */
	put_u32(&fb, num_nodes);	/* schema_id_count */
	put_u32(&fb, 0);			/* field_lookup, patched */
	vec = fb.len;
	put_u32(&fb, n);
	put_zeros(&fb, (size_t) n * 4);
	for (uint32_t i = 0; i < n && w_ok(w); i++)
	{
		const AmWriterColumn *c = &cols[i];
		bool		list = c->list_offsets != NULL;
		uint64_t	fixed = c->type == AM_TYPE_GUID ? 16 :
			c->type == AM_TYPE_FIXED_SIZE_BINARY ? c->fixed_size : 0;
		size_t		field_vt,
					field_tab,
					dt_tab,
					children_at,
					child_tab,
					child_children;
		uint32_t	id = next_id++;
		/* signed only on integers (arrow_to_amudai_schema.rs): floats,
		 * strings, booleans and DateTime say false */
		bool		is_signed = c->is_signed &&
			c->type >= AM_TYPE_INT8 && c->type <= AM_TYPE_INT64;

		field_vt = fb.len;
		put_u16(&fb, 6);
		put_u16(&fb, 8);
		put_u16(&fb, 4);
		put_u16(&fb, 0);
		field_tab = fb.len;
		put_u32(&fb, (uint32_t) (field_tab - field_vt));
		put_u32(&fb, 0);		/* data_type, patched */
		if (list)
			dt_tab = schema_data_type(&fb, c->name, AM_TYPE_LIST, false, 0, id,
									  AM_NO_PARENT, 1, &children_at, NULL);
		else
			dt_tab = schema_data_type(&fb, c->name, c->type, is_signed, fixed,
									  id, AM_NO_PARENT, 0, &children_at,
									  c->extension_label);
		if (list)
		{
			child_tab = schema_data_type(&fb, "", c->type, is_signed, fixed,
										 next_id++, id, 0, &child_children,
										 c->extension_label);
			if (w_ok(w))
				am_store_u32(fb.buf + children_at + 4,
							 (uint32_t) (child_tab - (children_at + 4)));
		}
		if (!w_ok(w))
			break;
		am_store_u32(fb.buf + vec + 4 + 4 * i, (uint32_t) (field_tab - (vec + 4 + 4 * i)));
		am_store_u32(fb.buf + field_tab + 4, (uint32_t) (dt_tab - (field_tab + 4)));
	}
	if (w_ok(w))
		schema_field_lookup(&fb, cols, n, 28);
	envelope(w, &fb, start, end);
}

/* ---------------- stripes ---------------- */

static bool
is_kusto_decimal(const AmWriterColumn *c)
{
	return c->type == AM_TYPE_FIXED_SIZE_BINARY && c->fixed_size == 16 &&
		c->extension_label != NULL && strcmp(c->extension_label, "KustoDecimal") == 0;
}

static void type_stats(StripeColumn *sc);

/*
 * HyperLogLog as the reference's sketch (section 5.3): counter h >> 57 of
 * h = XXH3_64bits_withSeed(value, HLL_SEED) keeps the largest rank of the
 * low 57 bits (58 for 0, else 57 - floor(log2(low))).
 */
static void
hll_add(uint8_t *counters, const void *value, size_t len)
{
	uint64_t	h = XXH3_64bits_withSeed(value, len, HLL_SEED);
	uint64_t	low = h & ((UINT64_C(1) << (64 - HLL_BITS)) - 1);
	uint8_t		rank = low == 0 ? 64 - HLL_BITS + 1 :
		(uint8_t) (64 - HLL_BITS - (63 - __builtin_clzll(low)));
	uint8_t    *slot = &counters[h >> (64 - HLL_BITS)];

	if (rank > *slot)
		*slot = rank;
}

/* The sketch's estimate: raw HLL, linear counting while small. */
static uint64_t
hll_estimate(const uint8_t *counters)
{
	double		m = HLL_COUNTERS;
	double		sum = 0;
	int			zeros = 0;
	double		e;

	for (int i = 0; i < HLL_COUNTERS; i++)
	{
		sum += ldexp(1.0, -counters[i]);
		zeros += counters[i] == 0;
	}
	e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
	if (e <= 2.5 * m && zeros > 0)
		e = m * log(m / zeros);
	return (uint64_t) (e + 0.5);
}

static void
column_stats(StripeColumn *sc)
{
	const AmWriterColumn *c = sc->col;
	uint32_t	width = column_width(c);
	bool		integer = (c->type >= AM_TYPE_INT8 && c->type <= AM_TYPE_INT64) ||
		c->type == AM_TYPE_DATETIME;
	bool		all_equal = true;
	int64_t		prev = -1;
	bool		decimal = is_kusto_decimal(c);
	AmDecimal	dmin,
				dmax;

	sc->nulls = 0;
	memset(&sc->constant, 0, sizeof(sc->constant));
	if (sc->is_list)
	{
		for (uint64_t i = 0; c->list_nulls != NULL && i < sc->rows; i++)
			sc->nulls += c->list_nulls[sc->first + i] != 0;
		type_stats(sc);
		return;
	}
	for (uint64_t i = 0; i < sc->rows; i++)
	{
		uint64_t	row = sc->first + i;

		if (c->nulls != NULL && c->nulls[row])
		{
			sc->nulls++;
			continue;
		}
		if (decimal)
		{
			const uint8_t *p = (const uint8_t *) c->values + row * 16;
			AmDecimal	v;

			am_decimal128_decode(p, &v);
			if (v.kind != AM_DECIMAL_NAN)
			{
				if (!sc->has_range)
				{
					sc->has_range = true;
					sc->range_decimal = true;
					dmin = dmax = v;
					memcpy(sc->dec_min, p, 16);
					memcpy(sc->dec_max, p, 16);
				}
				if (am_decimal_cmp(&v, &dmin) < 0)
				{
					dmin = v;
					memcpy(sc->dec_min, p, 16);
				}
				if (am_decimal_cmp(&v, &dmax) > 0)
				{
					dmax = v;
					memcpy(sc->dec_max, p, 16);
				}
			}
		}
		if (c->type == AM_TYPE_FLOAT32 || c->type == AM_TYPE_FLOAT64)
		{
			double		d;

			if (c->type == AM_TYPE_FLOAT64)
				memcpy(&d, (const uint8_t *) c->values + row * 8, 8);
			else
			{
				float		f;

				memcpy(&f, (const uint8_t *) c->values + row * 4, 4);
				d = f;
			}
			if (d == d)
			{
				if (!sc->has_range)
				{
					sc->has_range = true;
					sc->range_double = true;
					sc->dmin = sc->dmax = d;
				}
				if (d < sc->dmin)
					sc->dmin = d;
				if (d > sc->dmax)
					sc->dmax = d;
			}
		}
		if (integer)
		{
			uint64_t	v = int_at(c, row, c->is_signed);

			if (!sc->has_range)
			{
				sc->has_range = true;
				sc->min = sc->max = v;
			}
			if (c->is_signed ? (int64_t) v < (int64_t) sc->min : v < sc->min)
				sc->min = v;
			if (c->is_signed ? (int64_t) v > (int64_t) sc->max : v > sc->max)
				sc->max = v;
		}
		if (prev >= 0 && all_equal)
		{
			const uint8_t *a,
					   *b;
			size_t		la,
						lb;

			if (width == 0)
			{
				a = (const uint8_t *) c->values + c->offsets[prev];
				la = (size_t) (c->offsets[prev + 1] - c->offsets[prev]);
				b = (const uint8_t *) c->values + c->offsets[row];
				lb = (size_t) (c->offsets[row + 1] - c->offsets[row]);
			}
			else
			{
				a = (const uint8_t *) c->values + (uint64_t) prev * width;
				b = (const uint8_t *) c->values + row * width;
				la = lb = width;
			}
			all_equal = la == lb && memcmp(a, b, la) == 0;
		}
		prev = (int64_t) row;
	}
	sc->range_signed = c->is_signed;
	if (!integer || c->type == AM_TYPE_DATETIME)
		sc->range_signed = false;

	memset(&sc->constant, 0, sizeof(sc->constant));
	if (sc->rows > 0 && sc->nulls == sc->rows)
		sc->constant.kind = AM_VALUE_NULL;
	else if (sc->rows > 0 && sc->nulls == 0 && all_equal)
	{
		uint64_t	row = sc->first;

		if (integer)
		{
			sc->constant.kind = c->is_signed ? AM_VALUE_I64 : AM_VALUE_U64;
			sc->constant.u64 = int_at(c, row, c->is_signed);
		}
		else if (c->type == AM_TYPE_FLOAT64)
		{
			sc->constant.kind = AM_VALUE_DOUBLE;
			memcpy(&sc->constant.d, (const uint8_t *) c->values + row * 8, 8);
		}
		else if (c->type == AM_TYPE_FLOAT32)
		{
			float		f;

			memcpy(&f, (const uint8_t *) c->values + row * 4, 4);
			sc->constant.kind = AM_VALUE_DOUBLE;
			sc->constant.d = f;
		}
		else if (c->type == AM_TYPE_BOOLEAN)
		{
			sc->constant.kind = AM_VALUE_BOOL;
			sc->constant.b = ((const uint8_t *) c->values)[row] != 0;
		}
		else
		{
			sc->constant.kind = c->type == AM_TYPE_STRING ? AM_VALUE_STRING : AM_VALUE_BYTES;
			/* section 5.2: decimal constants are decimal_value */
			if (c->extension_label != NULL &&
				strcmp(c->extension_label, "KustoDecimal") == 0)
				sc->constant.kind = AM_VALUE_DECIMAL;
			if (width == 0)
			{
				sc->constant.bytes.data = (const uint8_t *) c->values + c->offsets[row];
				sc->constant.bytes.len = (size_t) (c->offsets[row + 1] - c->offsets[row]);
			}
			else
			{
				sc->constant.bytes.data = (const uint8_t *) c->values + row * width;
				sc->constant.bytes.len = width;
			}
		}
	}
	type_stats(sc);
}

/*
 * Section 5.2: raw_data_size and the type-specific statistics the
 * reference writes (StringStats, BinaryStats, BooleanStats, FloatingStats;
 * its amudai-data-stats crate).  raw_data_size counts the bytes of the
 * non-null values (booleans: their bits; strings and binaries: their
 * bytes) plus ceil(count / 8) of null bitmap when some are null, and 0 when
 * all are; a list node counts its null bitmap only, its element node the
 * elements.  FloatingStats' positive and negative exclude the infinities,
 * as the reference's finite_count = zero + positive + negative says.
 */
static void
type_stats(StripeColumn *sc)
{
	const AmWriterColumn *c = sc->col;
	uint32_t	width = column_width(c);
	uint64_t	present = sc->rows - sc->nulls;
	uint64_t	data = 0;
	bool		binary = is_binary_type(c->type) && !sc->is_list;

	sc->has_string_stats = binary && !is_kusto_decimal(c);
	sc->has_hll = sc->has_string_stats;
	sc->has_bool_stats = c->type == AM_TYPE_BOOLEAN && !sc->is_list;
	sc->has_float_stats = (c->type == AM_TYPE_FLOAT32 ||
						   c->type == AM_TYPE_FLOAT64) && !sc->is_list;
	sc->min_size = UINT64_MAX;
	sc->max_size = 0;
	for (uint64_t i = 0; !sc->is_list && i < sc->rows; i++)
	{
		uint64_t	row = sc->first + i;

		if (c->nulls != NULL && c->nulls[row])
			continue;
		if (sc->has_string_stats)
		{
			uint64_t	len = width ? width : c->offsets[row + 1] - c->offsets[row];
			const uint8_t *p = (const uint8_t *) c->values +
				(width ? row * width : c->offsets[row]);
			bool		ascii = true;

			sc->min_size = len < sc->min_size ? len : sc->min_size;
			sc->max_size = len > sc->max_size ? len : sc->max_size;
			if (len > 0 && (!sc->has_min_non_empty || len < sc->min_non_empty))
			{
				sc->has_min_non_empty = true;
				sc->min_non_empty = len;
			}
			for (uint64_t k = 0; c->type == AM_TYPE_STRING && k < len && ascii; k++)
				ascii = p[k] < 0x80;
			sc->ascii_count += c->type == AM_TYPE_STRING && ascii;
			data += len;
			hll_add(sc->hll, p, (size_t) len);
		}
		else if (sc->has_bool_stats)
		{
			if (((const uint8_t *) c->values)[row] != 0)
				sc->true_count++;
			else
				sc->false_count++;
		}
		else if (sc->has_float_stats)
		{
			double		d;
			int			k;

			if (c->type == AM_TYPE_FLOAT64)
				memcpy(&d, (const uint8_t *) c->values + row * 8, 8);
			else
			{
				float		f;

				memcpy(&f, (const uint8_t *) c->values + row * 4, 4);
				d = f;
			}
			if (d != d)
				k = 3;
			else if (d == HUGE_VAL)
				k = 4;
			else if (d == -HUGE_VAL)
				k = 5;
			else
				k = d == 0 ? 0 : d > 0 ? 1 : 2;
			sc->float_counts[k]++;
		}
	}
	if (sc->min_size == UINT64_MAX)
		sc->min_size = 0;
	if (sc->is_list)
		data = 0;
	else if (sc->has_bool_stats)
		data = (present + 7) / 8;
	else if (!sc->has_string_stats)
		data = present * (width ? width : 0);
	if (binary && !sc->has_string_stats)
		data = present * width;
	sc->raw_size = present == 0 ? 0 :
		data + (sc->nulls > 0 ? (sc->rows + 7) / 8 : 0);
	/* all-null numeric stripes: an empty RangeStats, as the reference */
	sc->empty_range = !sc->has_range && !sc->is_list && sc->rows > 0 &&
		((c->type >= AM_TYPE_INT8 && c->type <= AM_TYPE_FLOAT64) ||
		 c->type == AM_TYPE_DATETIME);
}

/* ---------------- range index and Bloom filter ---------------- */

/* Does the stripe field get a RANGE_INDEX buffer (sections 2.1, 5.2)? */
static bool
wants_range_index(const StripeColumn *sc)
{
	const AmWriterColumn *c = sc->col;

	if (sc->is_list)
		return false;
	return (c->type >= AM_TYPE_INT8 && c->type <= AM_TYPE_FLOAT64) ||
		c->type == AM_TYPE_DATETIME || is_kusto_decimal(c);
}

/* One range-index payload: a block of raw bytes as a Plain u8 stream. */
static void
range_payload(Writer *w, const uint8_t *raw, size_t len, uint64_t *size)
{
	AmPbWriter *b = &w->block;

	b->len = 0;
	put_u32(b, 0);				/* presence disabled */
	put_u32(b, (uint32_t) (2 + len));
	put_u16(b, AM_ENC_PLAIN);
	am_pbw_raw(b, raw, len);
	put_zeros(b, (size_t) (am_align_up(b->len + 4, 8) - b->len - 4));
	if (!w_ok(w))
		return;
	put_u32(b, am_checksum32(b->buf, b->len));
	if (!w_ok(w))
		return;
	am_pbw_raw(&w->file, b->buf, b->len);
	*size = b->len;
}

/*
 * The RANGE_INDEX buffer of a numeric, DateTime or KustoDecimal stripe
 * field (section 3.9): per 256 positions the min and max of the valid
 * values in the field's own width and the count of invalid ones (nulls,
 * NaNs), each array one checksummed block; the invalid counts are left
 * out when all are 0.  Blocks without a valid value hold zeros.
 */
static void
write_range_index(Writer *w, const StripeColumn *sc, BufferOut *out)
{
	const AmWriterColumn *c = sc->col;
	AmPbWriter *f = &w->file;
	uint32_t	width = column_width(c);
	uint64_t	blocks = (sc->rows + RANGE_BLOCK_ROWS - 1) / RANGE_BLOCK_ROWS;
	bool		decimal = is_kusto_decimal(c);
	bool		integer = c->type != AM_TYPE_FLOAT32 && c->type != AM_TYPE_FLOAT64 &&
		!decimal;
	bool		sign = c->is_signed && c->type != AM_TYPE_DATETIME;
	uint8_t    *mins,
			   *maxs;
	uint16_t   *invalid;
	bool		any_invalid = false;
	size_t		hdr;
	uint64_t	sizes[3] = {0, 0, 0};

	mins = am_alloc(w->alloc, (size_t) (blocks * width * 2 + blocks * 2 + 16), w->err);
	if (mins == NULL)
	{
		w->status = AM_ERR_IO;
		return;
	}
	memset(mins, 0, (size_t) (blocks * width * 2 + blocks * 2 + 16));
	maxs = mins + blocks * width;
	invalid = (uint16_t *) (maxs + blocks * width);
	for (uint64_t b = 0; b < blocks; b++)
	{
		uint64_t	lo = b * RANGE_BLOCK_ROWS;
		uint64_t	hi = lo + RANGE_BLOCK_ROWS < sc->rows ? lo + RANGE_BLOCK_ROWS : sc->rows;
		int64_t		imin = -1,
					imax = -1;	/* rows of the min and max */
		uint16_t	bad = 0;
		AmDecimal	dmin,
					dmax;
		double		fmin = 0,
					fmax = 0;
		uint64_t	umin = 0,
					umax = 0;

		for (uint64_t i = lo; i < hi; i++)
		{
			uint64_t	row = sc->first + i;

			if (c->nulls != NULL && c->nulls[row])
			{
				bad++;
				continue;
			}
			if (decimal)
			{
				AmDecimal	v;

				am_decimal128_decode((const uint8_t *) c->values + row * 16, &v);
				if (v.kind == AM_DECIMAL_NAN)
				{
					bad++;
					continue;
				}
				if (imin < 0 || am_decimal_cmp(&v, &dmin) < 0)
				{
					dmin = v;
					imin = (int64_t) row;
				}
				if (imax < 0 || am_decimal_cmp(&v, &dmax) > 0)
				{
					dmax = v;
					imax = (int64_t) row;
				}
			}
			else if (!integer)
			{
				double		d;

				if (c->type == AM_TYPE_FLOAT64)
					memcpy(&d, (const uint8_t *) c->values + row * 8, 8);
				else
				{
					float		fl;

					memcpy(&fl, (const uint8_t *) c->values + row * 4, 4);
					d = fl;
				}
				if (d != d)
				{
					bad++;
					continue;
				}
				if (imin < 0 || d < fmin)
				{
					fmin = d;
					imin = (int64_t) row;
				}
				if (imax < 0 || d > fmax)
				{
					fmax = d;
					imax = (int64_t) row;
				}
			}
			else
			{
				uint64_t	v = int_at(c, row, sign);

				if (imin < 0 || (sign ? (int64_t) v < (int64_t) umin : v < umin))
				{
					umin = v;
					imin = (int64_t) row;
				}
				if (imax < 0 || (sign ? (int64_t) v > (int64_t) umax : v > umax))
				{
					umax = v;
					imax = (int64_t) row;
				}
			}
		}
		/* the values' own little-endian bytes */
		if (imin >= 0)
		{
			memcpy(mins + b * width, (const uint8_t *) c->values + (uint64_t) imin * width, width);
			memcpy(maxs + b * width, (const uint8_t *) c->values + (uint64_t) imax * width, width);
		}
		am_store_u16((uint8_t *) &invalid[b], bad);
		any_invalid |= bad > 0;
	}

	pad_to(f, 0, 64);			/* base is a multiple of 64 */
	out->start = w->base + f->len;
	out->blocks = 0;
	out->no_block_map = true;
	hdr = f->len;
	put_u16(f, 1);				/* version */
	am_pbw_raw(f, (const uint8_t[]) {(uint8_t) c->type, 1}, 2);
	put_u64(f, sc->rows);
	put_zeros(f, 24);			/* payload sizes, patched below */
	put_u16(f, RANGE_BLOCK_ROWS);
	put_u16(f, 0);
	range_payload(w, mins, (size_t) (blocks * width), &sizes[0]);
	if (w_ok(w))
		range_payload(w, maxs, (size_t) (blocks * width), &sizes[1]);
	if (w_ok(w) && any_invalid)
		range_payload(w, (const uint8_t *) invalid, (size_t) blocks * 2, &sizes[2]);
	am_release(w->alloc, mins);
	if (!w_ok(w))
		return;
	for (int i = 0; i < 3; i++)
		am_store_u64(f->buf + hdr + 12 + 8 * i, sizes[i]);
	pad_to(f, hdr, 64);
	out->map_start = out->end = w->base + f->len;
}

/* Bytes of non-null position i (a row of the column) for hashing. */
static const uint8_t *
value_bytes(const AmWriterColumn *c, uint64_t row, size_t *len)
{
	uint32_t	width = column_width(c);

	if (width == 0)
	{
		*len = (size_t) (c->offsets[row + 1] - c->offsets[row]);
		return (const uint8_t *) c->values + c->offsets[row];
	}
	*len = width;
	return (const uint8_t *) c->values + row * width;
}

/*
 * The split-block Bloom filter of a String, Binary, Guid or FixedSizeBinary
 * (not KustoDecimal) stripe field, section 5.4: the distinct values' hashes
 * XXH3_64bits_withSeed(value, 0x4D75646169424646) are collected (more than
 * 1024: no filter), then inserted into bits_per_key * n / 8 bytes rounded
 * up to 32-byte blocks, bits_per_key = ceil(ceil(-n ln(0.01) / ln(2)^2) / n).
 */
static void
build_sbbf(Writer *w, StripeColumn *sc)
{
	const AmWriterColumn *c = sc->col;
	const size_t slots = 4 * SBBF_MAX_VALUES;	/* power of two */
	uint64_t   *set;
	bool		has_zero = false;
	uint64_t	n = 0;
	double		x;
	uint64_t	bits,
				per_key,
				bytes;

	sc->sbbf = NULL;
	if (sc->is_list || !is_binary_type(c->type) || is_kusto_decimal(c) ||
		sc->rows == 0 || sc->nulls == sc->rows)
		return;
	set = am_alloc(w->alloc, slots * 8, w->err);
	if (set == NULL)
	{
		w->status = AM_ERR_IO;
		return;
	}
	memset(set, 0, slots * 8);
	for (uint64_t i = 0; i < sc->rows && n <= SBBF_MAX_VALUES; i++)
	{
		uint64_t	row = sc->first + i;
		const uint8_t *p;
		size_t		len;
		uint64_t	h;
		size_t		k;

		if (c->nulls != NULL && c->nulls[row])
			continue;
		p = value_bytes(c, row, &len);
		h = pfc_sbbf_hash_xxh3(p, len, SBBF_SEED);
		if (h == 0)
		{
			n += !has_zero;
			has_zero = true;
			continue;
		}
		for (k = (size_t) (h ^ (h >> 29)) & (slots - 1); set[k] != 0 && set[k] != h;
			 k = (k + 1) & (slots - 1))
			;
		if (set[k] == 0)
		{
			set[k] = h;
			n++;
		}
	}
	if (n == 0 || n > SBBF_MAX_VALUES)
	{
		am_release(w->alloc, set);
		return;
	}
	x = (double) n * SBBF_BITS_PER_VALUE;
	bits = (uint64_t) x;
	bits += (double) bits < x;
	per_key = (bits + n - 1) / n;
	bytes = am_align_up((per_key * n + 7) / 8, 32);
	sc->sbbf = am_alloc(w->alloc, (size_t) bytes, w->err);
	if (sc->sbbf == NULL)
	{
		am_release(w->alloc, set);
		w->status = AM_ERR_IO;
		return;
	}
	memset(sc->sbbf, 0, (size_t) bytes);
	sc->sbbf_blocks = bytes / 32;
	sc->sbbf_values = n;
	for (size_t k = 0; k < slots; k++)
		if (set[k] != 0)
			pfc_sbbf_insert(sc->sbbf, (size_t) bytes, set[k]);
	if (has_zero)
		pfc_sbbf_insert(sc->sbbf, (size_t) bytes, 0);
	am_release(w->alloc, set);
}

/* ---------------- field-level value dictionaries (test-only) ---------------- */

/* Bytes of value row of a String/Binary column. */
static const uint8_t *
binary_value(const AmWriterColumn *c, uint64_t row, size_t *len)
{
	*len = (size_t) (c->offsets[row + 1] - c->offsets[row]);
	return (const uint8_t *) c->values + c->offsets[row];
}

/* Byte-lexicographic order of the values of entries a and b. */
static int
entry_cmp(const AmWriterColumn *c, const uint64_t *entry_row, uint32_t a,
		  uint32_t b)
{
	size_t		la,
				lb;
	const uint8_t *pa = binary_value(c, entry_row[a], &la);
	const uint8_t *pb = binary_value(c, entry_row[b], &lb);
	int			r = memcmp(pa, pb, la < lb ? la : lb);

	return r != 0 ? r : (la > lb) - (la < lb);
}

/* Merge sort of ids[0..n) by value (tmp: n scratch slots). */
static void
sort_entries(const AmWriterColumn *c, const uint64_t *entry_row, uint32_t *ids,
			 uint32_t *tmp, size_t n)
{
	size_t		half = n / 2;

	if (n < 2)
		return;
	sort_entries(c, entry_row, ids, tmp, half);
	sort_entries(c, entry_row, ids + half, tmp, n - half);
	for (size_t i = 0, j = half, k = 0; k < n; k++)
		tmp[k] = j >= n || (i < half && entry_cmp(c, entry_row, ids[i], ids[j]) <= 0) ?
			ids[i++] : ids[j++];
	memcpy(ids, tmp, n * 4);
}

/*
 * One section of a VALUE_DICTIONARY buffer (3.8): [u64 len][payload]
 * [64 zero bytes][zeros so the section ends 16-aligned][u32 checksum32
 * (payload)].  Records its [start, end) relative to base.
 */
static void
dictionary_section(AmPbWriter *f, size_t base, const AmPbWriter *payload,
				   uint64_t range[2])
{
	range[0] = f->len - base;
	put_u64(f, payload->len);
	am_pbw_raw(f, payload->buf, payload->len);
	put_zeros(f, 64);
	put_zeros(f, (size_t) (am_align_up(f->len - base + 4, 16) - (f->len - base) - 4));
	put_u32(f, am_checksum32(payload->buf, payload->len));
	range[1] = f->len - base;
}

/*
 * DATA as u32 ids (blocks without presence, the column's encoding or the
 * section hook) and the VALUE_DICTIONARY buffer: entries in order of first
 * appearance, the null entry last.  Entries are found with an open-address
 * table of xxh3 hashes.
 */
static void
write_value_dictionary(Writer *w, StripeColumn *sc, uint32_t per_block)
{
	const AmWriterColumn *c = sc->col;
	AmPbWriter *f = &w->file;
	uint64_t	rows = sc->rows;
	uint64_t	slots = 16;
	uint32_t   *ids,
			   *table,
			   *sorted,
			   *tmp;
	uint64_t   *entry_row;
	uint32_t	entries = 0;
	bool		any_null = false;
	AmWriterColumn idcol;
	BlockSource src;
	AmPbWriter	values,
				offsets,
				sorted_ids;
	uint64_t	ranges[3][2];
	size_t		base;

	while (slots < rows * 2)
		slots *= 2;
	ids = am_alloc(w->alloc, (size_t) rows * 4 + 4, w->err);
	table = am_alloc(w->alloc, (size_t) slots * 4, w->err);
	entry_row = am_alloc(w->alloc, (size_t) rows * 8 + 8, w->err);
	sorted = am_alloc(w->alloc, (size_t) rows * 4 + 4, w->err);
	tmp = am_alloc(w->alloc, (size_t) rows * 4 + 4, w->err);
	if (ids == NULL || table == NULL || entry_row == NULL || sorted == NULL || tmp == NULL)
	{
		w->status = AM_ERR_IO;
		goto done;
	}
	memset(table, 0xFF, (size_t) slots * 4);
	for (uint64_t i = 0; i < rows; i++)
	{
		uint64_t	row = sc->first + i;
		size_t		len;
		const uint8_t *p;
		uint64_t	h;

		if (c->nulls != NULL && c->nulls[row])
		{
			any_null = true;
			continue;
		}
		p = binary_value(c, row, &len);
		h = XXH3_64bits(p, len) & (slots - 1);
		for (;; h = (h + 1) & (slots - 1))
		{
			size_t		elen;
			const uint8_t *e;

			if (table[h] == UINT32_MAX)
			{
				table[h] = entries;
				entry_row[entries++] = row;
				break;
			}
			e = binary_value(c, entry_row[table[h]], &elen);
			if (elen == len && memcmp(e, p, len) == 0)
				break;
		}
		ids[i] = table[h];
	}
	for (uint64_t i = 0; any_null && i < rows; i++)
		if (c->nulls[sc->first + i])
			ids[i] = entries;	/* the null entry */

	/* DATA: the ids, as an unsigned Int32 column without nulls */
	idcol = *c;
	idcol.type = AM_TYPE_INT32;
	idcol.is_signed = false;
	idcol.values = ids;
	idcol.offsets = NULL;
	idcol.nulls = NULL;
	memset(&src, 0, sizeof(src));
	src.col = &idcol;
	src.stripe_rows = rows;
	sc->buffers[0].kind = AM_BUFFER_DATA;
	write_buffer(w, &src, rows, per_block, &sc->buffers[0]);
	sc->num_buffers = 1;
	if (!w_ok(w))
		goto done;

	/* VALUE_DICTIONARY: header, values, offsets, sorted ids (3.8) */
	am_pbw_init(&values, w->alloc);
	am_pbw_init(&offsets, w->alloc);
	am_pbw_init(&sorted_ids, w->alloc);
	put_u64(&offsets, 0);
	for (uint32_t e = 0; e < entries; e++)
	{
		size_t		len;
		const uint8_t *p = binary_value(c, entry_row[e], &len);

		am_pbw_raw(&values, p, len);
		put_u64(&offsets, values.len);
		sorted[e] = e;
	}
	if (any_null)
		put_u64(&offsets, values.len);	/* the null entry is empty */
	sort_entries(c, entry_row, sorted, tmp, entries);
	for (uint32_t e = 0; e < entries; e++)
		put_u32(&sorted_ids, sorted[e]);
	pad_to(f, 0, 64);			/* base is a multiple of 64 */
	base = f->len;
	sc->buffers[1].kind = AM_BUFFER_VALUE_DICTIONARY;
	sc->buffers[1].start = w->base + base;
	sc->buffers[1].no_block_map = true;
	put_zeros(f, 128);
	dictionary_section(f, base, &values, ranges[0]);
	dictionary_section(f, base, &offsets, ranges[1]);
	dictionary_section(f, base, &sorted_ids, ranges[2]);
	pad_to(f, base, 64);
	if (w_ok(w) && !values.failed && !offsets.failed && !sorted_ids.failed)
	{
		uint8_t    *h = f->buf + base;

		h[0] = (uint8_t) c->type;
		am_store_u32(h + 1, entries + any_null);
		h[5] = any_null;
		am_store_u32(h + 6, any_null ? entries : 0);
		am_store_u32(h + 10, 0);	/* variable size */
		for (int k = 0; k < 3; k++)
		{
			am_store_u64(h + 14 + 16 * k, ranges[k][0]);
			am_store_u64(h + 22 + 16 * k, ranges[k][1]);
		}
		am_store_u32(h + 124, am_checksum32(h, 124));
		sc->buffers[1].end = w->base + f->len;
		sc->num_buffers = 2;
		sc->has_dictionary_size = true;
		sc->dictionary_size = entries + any_null;
	}
	else if (w->status == AM_OK)
	{
		am_fail(w->err, AM_ERR_IO, "out of memory while writing a shard");
		w->status = AM_ERR_IO;
	}
	am_pbw_free(&values);
	am_pbw_free(&offsets);
	am_pbw_free(&sorted_ids);
done:
	am_release(w->alloc, ids);
	am_release(w->alloc, table);
	am_release(w->alloc, entry_row);
	am_release(w->alloc, sorted);
	am_release(w->alloc, tmp);
}

static void
write_stripe_buffers(Writer *w, StripeColumn *sc, const AmWriterOptions *opt)
{
	const AmWriterColumn *c = sc->col;
	uint32_t	per_block = opt->block_values ? opt->block_values : DEFAULT_BLOCK;
	BlockSource src;

	column_stats(sc);
	sc->num_buffers = 0;
	if (opt->detect_constants && sc->constant.kind != AM_VALUE_ABSENT)
		return;
	if (!opt->detect_constants)
		memset(&sc->constant, 0, sizeof(sc->constant));
	if (sc->rows == 0)
		return;
	memset(&src, 0, sizeof(src));
	src.col = c;
	src.stripe_first = sc->first;
	src.stripe_rows = sc->rows;
	src.nulls = c->nulls;
	if (sc->is_list)
	{
		/* OFFSETS: rows + 1 u64 values from 0, then PRESENCE if any null */
		src.list_offsets = true;
		sc->buffers[0].kind = AM_BUFFER_OFFSETS;
		write_buffer(w, &src, sc->rows + 1, per_block, &sc->buffers[0]);
		sc->num_buffers = 1;
		if (sc->nulls > 0 && w_ok(w))
		{
			src.list_offsets = false;
			src.bits = true;
			src.presence_bits = true;
			src.nulls = c->list_nulls;
			sc->buffers[1].kind = AM_BUFFER_PRESENCE;
			write_buffer(w, &src, (sc->rows + 7) / 8, per_block, &sc->buffers[1]);
			sc->num_buffers = 2;
		}
		return;
	}
	if (c->type == AM_TYPE_BOOLEAN)
	{
		src.bits = true;
		sc->buffers[0].kind = AM_BUFFER_DATA;
		write_buffer(w, &src, (sc->rows + 7) / 8, per_block, &sc->buffers[0]);
		sc->num_buffers = 1;
		if (sc->nulls > 0 && w_ok(w))
		{
			src.presence_bits = true;
			sc->buffers[1].kind = AM_BUFFER_PRESENCE;
			write_buffer(w, &src, (sc->rows + 7) / 8, per_block, &sc->buffers[1]);
			sc->num_buffers = 2;
		}
		return;
	}
	if (opt->value_dictionary && c->list_offsets == NULL &&
		(c->type == AM_TYPE_STRING || c->type == AM_TYPE_BINARY))
	{
		write_value_dictionary(w, sc, per_block);
		return;
	}
	sc->buffers[0].kind = AM_BUFFER_DATA;
	sc->buffers[0].embedded_presence = true;
	sc->buffers[0].embedded_offsets = column_width(c) == 0;
	write_buffer(w, &src, sc->rows, per_block, &sc->buffers[0]);
	sc->num_buffers = 1;
	if (!opt->no_indexes && wants_range_index(sc) && w_ok(w))
	{
		sc->buffers[1].kind = AM_BUFFER_RANGE_INDEX;
		write_range_index(w, sc, &sc->buffers[1]);
		sc->num_buffers = 2;
	}
}

static bool
columns_valid(const AmWriterColumn *cols, uint32_t n, bool need_data, Writer *w)
{
	for (uint32_t i = 0; i < n; i++)
	{
		const AmWriterColumn *c = &cols[i];
		bool		ok = c->name != NULL && (c->values != NULL || !need_data);

		switch (c->type)
		{
			case AM_TYPE_BOOLEAN:
			case AM_TYPE_INT8:
			case AM_TYPE_INT16:
			case AM_TYPE_INT32:
			case AM_TYPE_INT64:
			case AM_TYPE_FLOAT32:
			case AM_TYPE_FLOAT64:
			case AM_TYPE_DATETIME:
			case AM_TYPE_GUID:
				break;
			case AM_TYPE_FIXED_SIZE_BINARY:
				ok &= c->fixed_size > 0;
				break;
			case AM_TYPE_STRING:
			case AM_TYPE_BINARY:
				ok &= c->offsets != NULL || !need_data;
				break;
			default:
				ok = false;
		}
		if (!ok)
		{
			am_fail(w->err, AM_ERR_INVALID_ARGUMENT,
					"column %u: unsupported type or missing values", i);
			w->status = AM_ERR_INVALID_ARGUMENT;
			return false;
		}
	}
	return true;
}

/* ---------------- the streaming writer ---------------- */

struct AmShardWriter
{
	Writer		w;
	AmWriterOptions opt;
	AmWriteFn	sink;
	void	   *sink_ctx;
	uint32_t	num_columns;
	AmWriterColumn *schema;		/* copies; list_offsets marks List columns */
	uint32_t	num_nodes;
	uint32_t   *node_col;		/* column of each schema node */
	uint8_t    *node_role;		/* 0 flat, 1 list, 2 list element */
	StripeColumn *stripe;		/* per node: the stripe being written */
	StripeColumn *totals;		/* per node: merged over the stripes */
	bool	   *constant_dead;	/* per node: stripes disagree on a constant */
	uint64_t   *starts;			/* 2 * num_nodes descriptor ranges */
	uint64_t   *stripes;		/* STRIPE_WORDS per stripe: field list range,
								 * rows, first row, raw_data_size */
	uint64_t	nstripes;
	uint64_t	stripes_cap;
	uint64_t	rows;
	bool		finished;
	/* options.stripe_file: the root file while a stripe file is written */
	AmPbWriter	root_file;
	uint64_t	root_base;
	char		stripe_name[40];
};

static const uint8_t am_frame[AM_FRAME_SIZE] = {'a', 'm', 'u', 'd', 0, 1, 0, 0};

/* list_offsets of the schema copies: marks List columns, one empty row */
static const uint64_t zero_offsets[2] = {0, 0};

/* Hand the buffered bytes to the sink (the buffer then starts at base). */
static void
flush_file(AmShardWriter *sw)
{
	Writer	   *w = &sw->w;
	int			rc;

	if (!w_ok(w) || w->file.len == 0)
		return;
	rc = sw->sink(sw->sink_ctx, w->file.buf, w->file.len);
	if (rc != 0)
	{
		am_fail(w->err, AM_ERR_IO, "could not write the shard");
		w->err->sys_errno = rc;
		w->status = AM_ERR_IO;
		return;
	}
	w->base += w->file.len;
	w->file.len = 0;
}

AmStatus
am_shard_writer_begin(AmShardWriter **out, const AmWriterColumn *columns,
					  uint32_t num_columns, const AmWriterOptions *options,
					  const PfcAllocator *alloc, AmWriteFn sink, void *sink_ctx,
					  AmError *err)
{
	AmShardWriter *sw;
	uint32_t	nodes = num_columns;

	*out = NULL;
	am_error_clear(err);
	sw = am_alloc(alloc, sizeof(AmShardWriter), err);
	if (sw == NULL)
		return AM_ERR_IO;
	memset(sw, 0, sizeof(*sw));
	sw->w.alloc = alloc;
	sw->w.err = err;
	am_pbw_init(&sw->w.file, alloc);
	am_pbw_init(&sw->w.block, alloc);
	am_pbw_init(&sw->w.scratch, alloc);
	if (options != NULL)
	{
		sw->opt = *options;
		sw->w.section_hook = options->section_hook;
		sw->w.section_hook_ctx = options->section_hook_ctx;
	}
	sw->sink = sink;
	sw->sink_ctx = sink_ctx;
	sw->num_columns = num_columns;
	*out = sw;
	if (!columns_valid(columns, num_columns, false, &sw->w))
		return sw->w.status;
	for (uint32_t i = 0; i < num_columns; i++)
		nodes += columns[i].list_offsets != NULL;
	sw->num_nodes = nodes;
	sw->schema = am_alloc(alloc, sizeof(AmWriterColumn) * (num_columns + 1), err);
	sw->node_col = am_alloc(alloc, (size_t) nodes * 4 + 4, err);
	sw->node_role = am_alloc(alloc, (size_t) nodes + 1, err);
	sw->stripe = am_alloc(alloc, sizeof(StripeColumn) * (nodes + 1), err);
	if (sw->stripe != NULL)
		memset(sw->stripe, 0, sizeof(StripeColumn) * (nodes + 1));
	sw->totals = am_alloc(alloc, sizeof(StripeColumn) * (nodes + 1), err);
	sw->constant_dead = am_alloc(alloc, (size_t) nodes + 1, err);
	sw->starts = am_alloc(alloc, (size_t) (nodes + 1) * 16, err);
	if (sw->schema == NULL || sw->node_col == NULL || sw->node_role == NULL ||
		sw->stripe == NULL || sw->totals == NULL || sw->constant_dead == NULL ||
		sw->starts == NULL)
	{
		sw->w.status = AM_ERR_IO;
		return AM_ERR_IO;
	}
	memset(sw->totals, 0, sizeof(StripeColumn) * (nodes + 1));
	memset(sw->constant_dead, 0, (size_t) nodes + 1);
	for (uint32_t i = 0; i < num_columns; i++)
	{
		size_t		len = strlen(columns[i].name);
		char	   *name = am_alloc(alloc, len + 1, err);
		char	   *label = NULL;

		if (name == NULL)
		{
			sw->w.status = AM_ERR_IO;
			return AM_ERR_IO;
		}
		memcpy(name, columns[i].name, len + 1);
		if (columns[i].extension_label != NULL)
		{
			size_t		llen = strlen(columns[i].extension_label);

			label = am_alloc(alloc, llen + 1, err);
			if (label == NULL)
			{
				sw->w.status = AM_ERR_IO;
				return AM_ERR_IO;
			}
			memcpy(label, columns[i].extension_label, llen + 1);
		}
		sw->schema[i] = columns[i];
		sw->schema[i].name = name;
		sw->schema[i].extension_label = label;
		sw->schema[i].values = NULL;
		sw->schema[i].offsets = NULL;
		sw->schema[i].nulls = NULL;
		sw->schema[i].list_nulls = NULL;
		if (columns[i].list_offsets != NULL)
			sw->schema[i].list_offsets = zero_offsets;
	}
	/* schema ids in pre-order: a list node, then its element */
	for (uint32_t i = 0, k = 0; i < num_columns; i++)
	{
		sw->node_col[k] = i;
		sw->node_role[k++] = columns[i].list_offsets ? 1 : 0;
		if (columns[i].list_offsets)
		{
			sw->node_col[k] = i;
			sw->node_role[k++] = 2;
		}
	}
	am_pbw_raw(&sw->w.file, am_frame, sizeof(am_frame));
	return w_ok(&sw->w) ? AM_OK : sw->w.status;
}

/* Fold a stripe's statistics into the shard-level ones (section 5.1). */
static void
merge_totals(AmShardWriter *sw, uint32_t k, const StripeColumn *c)
{
	StripeColumn *t = &sw->totals[k];
	bool		first = sw->nstripes == 0;

	t->rows += c->rows;
	t->nulls += c->nulls;
	t->is_list = c->is_list;
	/* the schema copy: the stripe's columns are gone by finish() */
	t->col = &sw->schema[sw->node_col[k]];
	t->raw_size += c->raw_size;
	t->empty_range |= c->empty_range;
	t->has_bool_stats = c->has_bool_stats;
	t->true_count += c->true_count;
	t->false_count += c->false_count;
	t->has_float_stats = c->has_float_stats;
	for (int i = 0; i < 6; i++)
		t->float_counts[i] += c->float_counts[i];
	t->has_string_stats = c->has_string_stats;
	t->has_hll = c->has_hll;
	for (int i = 0; c->has_hll && i < HLL_COUNTERS; i++)
		t->hll[i] = c->hll[i] > t->hll[i] ? c->hll[i] : t->hll[i];
	t->ascii_count += c->ascii_count;
	if (c->rows > c->nulls)
	{
		/* sizes of all-null stripes (0, 0) do not bound the shard's */
		bool		seen = t->sizes_seen;

		t->min_size = !seen || c->min_size < t->min_size ? c->min_size : t->min_size;
		t->max_size = c->max_size > t->max_size ? c->max_size : t->max_size;
		t->sizes_seen = true;
	}
	if (c->has_min_non_empty &&
		(!t->has_min_non_empty || c->min_non_empty < t->min_non_empty))
	{
		t->has_min_non_empty = true;
		t->min_non_empty = c->min_non_empty;
	}
	if (c->has_range)
	{
		if (!t->has_range)
		{
			t->has_range = true;
			t->range_signed = c->range_signed;
			t->range_double = c->range_double;
			t->range_decimal = c->range_decimal;
			t->min = c->min;
			t->max = c->max;
			t->dmin = c->dmin;
			t->dmax = c->dmax;
			memcpy(t->dec_min, c->dec_min, 16);
			memcpy(t->dec_max, c->dec_max, 16);
		}
		else if (c->range_decimal)
		{
			AmDecimal	a,
						b;

			am_decimal128_decode(c->dec_min, &a);
			am_decimal128_decode(t->dec_min, &b);
			if (am_decimal_cmp(&a, &b) < 0)
				memcpy(t->dec_min, c->dec_min, 16);
			am_decimal128_decode(c->dec_max, &a);
			am_decimal128_decode(t->dec_max, &b);
			if (am_decimal_cmp(&a, &b) > 0)
				memcpy(t->dec_max, c->dec_max, 16);
		}
		else if (c->range_double)
		{
			t->dmin = c->dmin < t->dmin ? c->dmin : t->dmin;
			t->dmax = c->dmax > t->dmax ? c->dmax : t->dmax;
		}
		else if (c->range_signed)
		{
			t->min = (int64_t) c->min < (int64_t) t->min ? c->min : t->min;
			t->max = (int64_t) c->max > (int64_t) t->max ? c->max : t->max;
		}
		else
		{
			t->min = c->min < t->min ? c->min : t->min;
			t->max = c->max > t->max ? c->max : t->max;
		}
	}
	/* a constant survives when every stripe has the same one */
	if (sw->constant_dead[k])
		return;
	if (c->constant.kind == AM_VALUE_ABSENT ||
		(c->constant.bytes.len > sizeof(t->constant_bytes)))
	{
		sw->constant_dead[k] = true;
		memset(&t->constant, 0, sizeof(t->constant));
		return;
	}
	if (first)
	{
		t->constant = c->constant;
		if (c->constant.bytes.len > 0)
			memcpy(t->constant_bytes, c->constant.bytes.data, c->constant.bytes.len);
		t->constant.bytes.data = t->constant_bytes;
		return;
	}
	if (t->constant.kind != c->constant.kind || t->constant.u64 != c->constant.u64 ||
		t->constant.b != c->constant.b ||
		memcmp(&t->constant.d, &c->constant.d, sizeof(double)) != 0 ||
		t->constant.bytes.len != c->constant.bytes.len ||
		(c->constant.bytes.len > 0 &&
		 memcmp(t->constant_bytes, c->constant.bytes.data, c->constant.bytes.len) != 0))
	{
		sw->constant_dead[k] = true;
		memset(&t->constant, 0, sizeof(t->constant));
	}
}

/* Release the Bloom filters of the stripe being written. */
static void
release_filters(AmShardWriter *sw)
{
	for (uint32_t k = 0; sw->stripe != NULL && k < sw->num_nodes; k++)
	{
		am_release(sw->w.alloc, sw->stripe[k].sbbf);
		sw->stripe[k].sbbf = NULL;
	}
}

/* Write rows [first, first + rows) of the columns as the next stripe. */
/*
 * AmWriterOptions.stripe_file: the stripe's buffers go to a framed file of
 * their own (section 1.6), written in place of the root file's bytes.
 */
static void
begin_stripe_file(AmShardWriter *sw)
{
	Writer	   *w = &sw->w;

	sw->root_file = w->file;
	sw->root_base = w->base;
	am_pbw_init(&w->file, w->alloc);
	w->base = 0;
	am_pbw_raw(&w->file, am_frame, sizeof(am_frame));
	snprintf(sw->stripe_name, sizeof(sw->stripe_name), "%" PRIx64 ".amudai.stripe",
			 UINT64_C(0x5a17e000) + sw->nstripes);
}

static void
end_stripe_file(AmShardWriter *sw)
{
	Writer	   *w = &sw->w;
	int			rc;

	pad_to(&w->file, 0, 8);
	am_pbw_raw(&w->file, am_frame, sizeof(am_frame));
	if (w_ok(w))
	{
		rc = sw->opt.stripe_file(sw->opt.stripe_file_ctx, sw->stripe_name,
								 w->file.buf, w->file.len);
		if (rc != 0)
		{
			am_fail(w->err, AM_ERR_IO, "could not write stripe file \"%s\"",
					sw->stripe_name);
			w->err->sys_errno = rc;
			w->status = AM_ERR_IO;
		}
	}
	am_pbw_free(&w->file);
	w->file = sw->root_file;
	w->base = sw->root_base;
	w->buffer_url = sw->stripe_name;
}

static AmStatus
add_stripe(AmShardWriter *sw, const AmWriterColumn *cols, uint64_t first,
		   uint64_t rows)
{
	Writer	   *w = &sw->w;
	uint32_t	nodes = sw->num_nodes;

	if (!w_ok(w))
		return w->status;
	if (sw->finished)
		return am_fail(w->err, AM_ERR_INVALID_ARGUMENT, "shard already finished");
	if (sw->nstripes + 1 >= sw->stripes_cap)
	{
		uint64_t	cap = sw->stripes_cap ? sw->stripes_cap * 2 : 64;
		uint64_t   *bigger = am_alloc(w->alloc, (size_t) cap * 8 * STRIPE_WORDS, w->err);

		if (bigger == NULL)
		{
			w->status = AM_ERR_IO;
			return AM_ERR_IO;
		}
		if (sw->stripes)
			memcpy(bigger, sw->stripes, (size_t) sw->nstripes * 8 * STRIPE_WORDS);
		am_release(w->alloc, sw->stripes);
		sw->stripes = bigger;
		sw->stripes_cap = cap;
	}
	release_filters(sw);
	memset(sw->stripe, 0, sizeof(StripeColumn) * nodes);
	if (sw->opt.stripe_file != NULL)
		begin_stripe_file(sw);
	for (uint32_t k = 0; k < nodes && w_ok(w); k++)
	{
		StripeColumn *c = &sw->stripe[k];
		const AmWriterColumn *col = &cols[sw->node_col[k]];

		c->col = col;
		c->is_list = sw->node_role[k] == 1;
		c->first = first;
		c->rows = rows;
		if (sw->node_role[k] == 2)
		{
			c->first = col->list_offsets[first];
			c->rows = col->list_offsets[first + rows] - c->first;
		}
		write_stripe_buffers(w, c, &sw->opt);
		if (!sw->opt.no_indexes && w_ok(w))
			build_sbbf(w, c);
	}
	if (sw->opt.stripe_file != NULL)
		end_stripe_file(sw);
	for (uint32_t k = 0; k < nodes && w_ok(w); k++)
	{
		msg_stripe_field(w, &sw->stripe[k]);
		sw->starts[k] = sw->stripe[k].desc_start;
		sw->starts[nodes + k] = sw->stripe[k].desc_end;
	}
	release_filters(sw);
	w->buffer_url = NULL;
	if (w_ok(w))
		msg_ref_array(w, sw->starts, sw->starts + nodes, nodes,
					  &sw->stripes[STRIPE_WORDS * sw->nstripes],
					  &sw->stripes[STRIPE_WORDS * sw->nstripes + 1]);
	if (!w_ok(w))
		return w->status;
	sw->stripes[STRIPE_WORDS * sw->nstripes + 4] = 0;
	for (uint32_t k = 0; k < nodes; k++)
	{
		merge_totals(sw, k, &sw->stripe[k]);
		sw->stripes[STRIPE_WORDS * sw->nstripes + 4] += sw->stripe[k].raw_size;
	}
	sw->stripes[STRIPE_WORDS * sw->nstripes + 2] = rows;
	sw->stripes[STRIPE_WORDS * sw->nstripes + 3] = sw->rows;
	sw->nstripes++;
	sw->rows += rows;
	pad_to(&w->file, 0, 64);
	flush_file(sw);
	return w_ok(w) ? AM_OK : w->status;
}

AmStatus
am_shard_writer_add_stripe(AmShardWriter *sw, const AmWriterColumn *columns,
						   uint64_t rows, AmError *err)
{
	sw->w.err = err;
	am_error_clear(err);
	if (!columns_valid(columns, sw->num_columns, true, &sw->w))
		return sw->w.status;
	for (uint32_t i = 0; i < sw->num_columns; i++)
		if (columns[i].type != sw->schema[i].type ||
			(columns[i].list_offsets != NULL) != (sw->schema[i].list_offsets != NULL))
		{
			sw->w.status = AM_ERR_INVALID_ARGUMENT;
			return am_fail(err, AM_ERR_INVALID_ARGUMENT,
						   "column %u does not match the shard's schema", i);
		}
	return add_stripe(sw, columns, 0, rows);
}

AmStatus
am_shard_writer_finish(AmShardWriter *sw, AmError *err)
{
	Writer	   *w = &sw->w;
	uint32_t	nodes = sw->num_nodes;
	uint64_t	sl_s = 0,
				sl_e = 0,
				url_s = 0,
				url_e = 0,
				sch_s = 0,
				sch_e = 0,
				sfl_s = 0,
				sfl_e = 0,
				dir_s = 0,
				dir_e = 0,
				raw_size = 0;

	w->err = err;
	if (!w_ok(w))
		return w->status;
	am_error_clear(err);
	/* a shard without rows still has one (empty) stripe */
	if (sw->nstripes == 0 && add_stripe(sw, sw->schema, 0, 0) != AM_OK)
		return w->status;
	sw->finished = true;
	{
		AmPbWriter	sl,
					url;

		am_pbw_init(&sl, w->alloc);
		for (uint64_t s = 0; s < sw->nstripes; s++)
		{
			AmPbWriter	sd;
			const uint64_t *st = &sw->stripes[STRIPE_WORDS * s];

			am_pbw_init(&sd, w->alloc);

			msg_data_ref(&sd, 2, st[0], st[1]);
			am_pbw_fixed64(&sd, 4, st[2]);
			am_pbw_fixed64(&sd, 6, st[4]);
			if (st[3] != 0)
				am_pbw_fixed64(&sd, 7, st[3]);
			raw_size += st[4];
			msg_nested(&sl, 1, &sd);
		}
		envelope(w, &sl, &sl_s, &sl_e);
		am_pbw_init(&url, w->alloc);
		envelope(w, &url, &url_s, &url_e);
	}
	/* shard-level descriptors: the stripes' statistics merged */
	for (uint32_t k = 0; k < nodes && w_ok(w); k++)
	{
		AmPbWriter	fd;
		StripeColumn *t = &sw->totals[k];

		if (sw->opt.detect_constants && t->rows > 0 && t->nulls == t->rows)
		{
			memset(&t->constant, 0, sizeof(t->constant));
			t->constant.kind = AM_VALUE_NULL;
		}
		am_pbw_init(&fd, w->alloc);
		msg_field_descriptor(&fd, t, t->rows, t->nulls);
		envelope(w, &fd, &sw->starts[k], &sw->starts[nodes + k]);
	}
	if (w_ok(w))
		msg_ref_array(w, sw->starts, sw->starts + nodes, nodes, &sfl_s, &sfl_e);
	if (w_ok(w))
		write_schema(w, sw->schema, sw->num_columns, nodes, &sch_s, &sch_e);
	if (w_ok(w))
	{
		AmPbWriter	dir;
		size_t		dir_len;

		am_pbw_init(&dir, w->alloc);
		msg_data_ref(&dir, 1, sch_s, sch_e);
		msg_data_ref(&dir, 3, sfl_s, sfl_e);
		msg_data_ref(&dir, 4, sl_s, sl_e);
		msg_data_ref(&dir, 5, url_s, url_e);
		am_pbw_fixed64(&dir, 7, sw->rows);
		am_pbw_fixed64(&dir, 9, sw->nstripes);
		am_pbw_fixed64(&dir, 10, raw_size);
		dir_len = dir.len;
		envelope(w, &dir, &dir_s, &dir_e);
		put_u32(&w->file, (uint32_t) dir_len);
		am_pbw_raw(&w->file, am_frame, sizeof(am_frame));
	}
	flush_file(sw);
	return w_ok(w) ? AM_OK : w->status;
}

void
am_shard_writer_free(AmShardWriter *sw)
{
	const PfcAllocator *alloc;

	if (sw == NULL)
		return;
	alloc = sw->w.alloc;
	if (sw->schema != NULL)
		for (uint32_t i = 0; i < sw->num_columns; i++)
		{
			am_release(alloc, (void *) sw->schema[i].name);
			am_release(alloc, (void *) sw->schema[i].extension_label);
		}
	am_release(alloc, sw->schema);
	am_release(alloc, sw->node_col);
	am_release(alloc, sw->node_role);
	release_filters(sw);
	am_release(alloc, sw->stripe);
	am_release(alloc, sw->totals);
	am_release(alloc, sw->constant_dead);
	am_release(alloc, sw->starts);
	am_release(alloc, sw->stripes);
	am_pbw_free(&sw->w.file);
	am_pbw_free(&sw->w.block);
	am_pbw_free(&sw->w.scratch);
	am_release(alloc, sw);
}

/* The memory sink of am_write_shard(). */
static int
memory_sink(void *ctx, const void *data, size_t len)
{
	AmPbWriter *out = (AmPbWriter *) ctx;

	am_pbw_raw(out, data, len);
	return out->failed ? ENOMEM : 0;
}

AmStatus
am_write_shard(const AmWriterColumn *cols, uint32_t num_columns, uint64_t rows,
			   const AmWriterOptions *options, const PfcAllocator *alloc,
			   uint8_t **out, size_t *out_len, AmError *err)
{
	AmShardWriter *sw = NULL;
	AmPbWriter	file;
	AmStatus	st;
	uint64_t	stripe_rows = options && options->stripe_rows ? options->stripe_rows :
		(rows ? rows : 1);

	*out = NULL;
	*out_len = 0;
	am_error_clear(err);
	am_pbw_init(&file, alloc);
	st = am_shard_writer_begin(&sw, cols, num_columns, options, alloc,
							   memory_sink, &file, err);
	if (st == AM_OK && !columns_valid(cols, num_columns, true, &sw->w))
		st = sw->w.status;
	for (uint64_t first = 0; st == AM_OK && first < rows; first += stripe_rows)
		st = add_stripe(sw, cols, first,
						rows - first < stripe_rows ? rows - first : stripe_rows);
	if (st == AM_OK)
		st = am_shard_writer_finish(sw, err);
	am_shard_writer_free(sw);
	if (st != AM_OK)
	{
		am_pbw_free(&file);
		return st;
	}
	*out = file.buf;
	*out_len = file.len;
	return AM_OK;
}
