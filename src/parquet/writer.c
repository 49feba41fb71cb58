/*-------------------------------------------------------------------------
 *
 * writer.c
 *	  Parquet writer: flat columns, LIST and STRUCT groups, PLAIN and
 *	  dictionary encodings, data pages v1 and v2, statistics, page CRCs.
 *
 * The file is written front to back through the sink.  Each column chunk of
 * the current row group is assembled in memory (data pages are encoded and
 * compressed as batches arrive, the dictionary grows alongside) and written
 * when the next column starts, because its dictionary page must come first.
 * What the footer needs of each chunk (offsets, sizes, encodings,
 * statistics) is kept in the writer until pq_writer_close().
 *
 * See writer.h for the contract.
 *
 * IDENTIFICATION
 *	  src/parquet/writer.c
 *
 *-------------------------------------------------------------------------
 */
#include "parquet/writer.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "common/crc32.h"
#include "common/sbbf.h"
#include "compress/compress.h"
#include "parquet/page_index.h"
#include "parquet/pq_internal.h"
#include "parquet/thrift.h"

/* Parquet enum values (parquet.thrift). */
#define PAGE_DATA			0
#define PAGE_DICTIONARY		2
#define PAGE_DATA_V2		3
#define ENC_PLAIN			0
#define ENC_RLE				3
#define ENC_DELTA_BINARY_PACKED	5
#define ENC_DELTA_LENGTH_BYTE_ARRAY	6
#define ENC_DELTA_BYTE_ARRAY	7
#define ENC_RLE_DICTIONARY	8
#define ENC_BYTE_STREAM_SPLIT	9

/* ColumnIndex.boundary_order values. */
typedef enum PqBoundaryOrderValue
{
	BOUNDARY_UNORDERED = 0,
	BOUNDARY_ASCENDING = 1,
	BOUNDARY_DESCENDING = 2
} PqBoundaryOrderValue;

/* DELTA_BINARY_PACKED layout: the one parquet-mr and Arrow write. */
#define DELTA_BLOCK_SIZE	128
#define DELTA_MINIBLOCKS	4

#define DEFAULT_PAGE_ROWS		8192
#define DEFAULT_DICT_ENTRIES	65536
#define DEFAULT_DICT_BYTES		((size_t) 1 << 20)
#define MAX_PAGE_BYTES			((size_t) 0x7FFFFFFF)

/* How a column's values order for statistics. */
typedef enum StatOrder
{
	ORD_NONE,					/* undefined order: no min/max */
	ORD_BOOL,
	ORD_INT32,
	ORD_UINT32,
	ORD_INT64,
	ORD_UINT64,
	ORD_FLOAT,
	ORD_DOUBLE,
	ORD_BYTES,					/* unsigned lexicographic */
	ORD_BYTES_SIGNED			/* big-endian two's complement (DECIMAL) */
} StatOrder;

/* A growable byte buffer whose memory comes from the PfcAllocator. */
typedef struct ByteBuf
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
} ByteBuf;

/* One data page, for the page index (offsets relative to the chunk's
 * first data page until the chunk is written; bounds index into a byte
 * buffer of the chunk). */
typedef struct PageRec
{
	int64_t		offset;
	int32_t		size;			/* header + stored bytes */
	int64_t		first_row;
	int64_t		null_count;
	bool		null_page;
	uint32_t	min_off;
	uint32_t	min_len;
	uint32_t	max_off;
	uint32_t	max_len;
} PageRec;

/* What the footer needs of one written column chunk. */
typedef struct ChunkMeta
{
	int64_t		num_rows;
	int64_t		num_values;		/* level entries */
	int64_t		total_uncompressed;
	int64_t		total_compressed;
	int64_t		data_page_offset;
	int64_t		dictionary_page_offset; /* -1: none */
	uint32_t	enc_mask;		/* 1 << Encoding of every encoding used */
	bool		has_levels;
	int64_t		null_count;
	bool		has_min;
	bool		has_max;
	bool		min_exact;
	bool		max_exact;
	uint8_t    *min;
	uint32_t	min_len;
	uint8_t    *max;
	uint32_t	max_len;

	/* bloom filter (owned), and where close() wrote it */
	uint8_t    *bloom;
	uint32_t	bloom_len;
	int64_t		bloom_offset;
	int32_t		bloom_total;	/* header + bitset */

	/* page index (write_page_index) */
	int			num_page_recs;
	PageRec    *page_recs;		/* absolute offsets */
	uint8_t    *page_bounds;
	bool		has_column_index;
	int64_t		column_index_offset;
	int32_t		column_index_length;
	int64_t		offset_index_offset;
	int32_t		offset_index_length;
} ChunkMeta;

typedef struct RowGroupMeta
{
	int64_t		num_rows;
	ChunkMeta  *chunks;			/* one per column */
} RowGroupMeta;

/* The chunk being assembled for one column of the current row group. */
typedef struct ChunkState
{
	ByteBuf		pages;			/* data page headers and bodies */
	int64_t		num_rows;
	int64_t		num_values;
	int64_t		null_count;
	int64_t		uncompressed;	/* of data pages, headers included */
	uint32_t	enc_mask;		/* encodings of the data pages */
	int			num_pages;

	/* dictionary: entries are kept plain-encoded, as the page stores them */
	bool		dict_active;
	ByteBuf		dict_plain;
	uint32_t	dict_count;
	uint32_t	dict_cap;		/* of dict_off / dict_len */
	uint32_t   *dict_off;		/* value bytes offset in dict_plain */
	uint32_t   *dict_len;
	uint64_t   *hash_slots;		/* hash << 32 | entry index + 1; 0 = empty */
	uint32_t	hash_size;		/* power of two */
	/* the indexes dictionary_decide() found for the first batch's values,
	 * in value order, taken by its pages instead of probing again */
	ByteBuf		decided;		/* uint32_t each */
	size_t		decided_pos;	/* values taken so far */

	/* statistics over the values seen so far */
	bool		has_minmax;
	ByteBuf		min;
	ByteBuf		max;

	/* bloom filter bitset of this chunk (bloom_filter_bytes) */
	uint8_t    *bloom;
	uint32_t	bloom_len;

	/* page index records (write_page_index) */
	ByteBuf		page_recs;		/* PageRec array */
	ByteBuf		page_bounds;	/* their min/max bytes */
	int64_t		rows_in_pages;	/* top-level rows of the pages so far */
	bool		index_ok;		/* every page has bounds: ColumnIndex possible */
} ChunkState;

typedef struct WColumn
{
	PqWriteColumn def;			/* name points into the writer's copy */
	int16_t		max_def;
	int16_t		max_rep;
	int			width;			/* fixed value width; 0 for BYTE_ARRAY */
	StatOrder	order;
	int			depth;			/* groups above the leaf */
	int32_t		chain[PQ_WRITE_MAX_DEPTH];	/* their indexes, root first */
} WColumn;

struct PqWriter
{
	PfcAllocator alloc;
	PqSink		sink;
	PqWriterOptions options;
	int			num_columns;
	WColumn    *columns;
	int			num_groups;
	PqWriteGroup *groups;		/* names point into the writer's copies */
	uint64_t	offset;			/* bytes written so far */
	bool		failed;			/* a write failed: only free is allowed */
	bool		closed;

	/* current row group */
	bool		in_row_group;
	int			current;		/* column receiving batches, -1 none yet */
	ChunkState	chunk;
	ChunkMeta  *pending;		/* chunks of the current row group */

	int			num_row_groups;
	int			row_groups_cap;
	RowGroupMeta *row_groups;

	PqThriftWriter tw;

	/* scratch reused across pages */
	ByteBuf		levels_buf;
	ByteBuf		values_buf;
	ByteBuf		body_buf;
	ByteBuf		comp_buf;
	ByteBuf		gather_buf;		/* dense values of a flat batch */
	ByteBuf		u32_buf;		/* levels or dictionary indexes as uint32 */
	ByteBuf		idx_buf;		/* a page's dictionary indexes */
};

/* ----------------------------------------------------------------
 * Memory
 * ----------------------------------------------------------------
 */
static void *
wr_alloc(PqWriter *w, size_t size)
{
	return w->alloc.alloc(w->alloc.ctx, size == 0 ? 1 : size);
}

static void
wr_release(PqWriter *w, void *p)
{
	if (p != NULL && w->alloc.release != NULL)
		w->alloc.release(w->alloc.ctx, p);
}

/* Make room for `need` more bytes; false on overflow or out of memory. */
static bool
buf_reserve(PqWriter *w, ByteBuf *b, size_t need)
{
	size_t		cap;
	uint8_t    *nd;

	if (need > SIZE_MAX / 2 - b->len)
		return false;
	if (b->len + need <= b->cap)
		return true;
	cap = b->cap < 256 ? 256 : b->cap;
	while (cap < b->len + need)
		cap *= 2;
	nd = wr_alloc(w, cap);
	if (nd == NULL)
		return false;
	if (b->len > 0)
		memcpy(nd, b->data, b->len);
	wr_release(w, b->data);
	b->data = nd;
	b->cap = cap;
	return true;
}

static bool
buf_append(PqWriter *w, ByteBuf *b, const void *data, size_t len)
{
	if (!buf_reserve(w, b, len))
		return false;
	if (len > 0)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	return true;
}

static void
buf_free(PqWriter *w, ByteBuf *b)
{
	wr_release(w, b->data);
	memset(b, 0, sizeof(*b));
}

/* Realloc-style hook for the Thrift writer, over the PfcAllocator: each block
 * carries its size in front so growing can copy it. */
static void *
pq_thrift_grow(void *ctx, void *old, size_t new_size)
{
	PqWriter   *w = ctx;
	uint8_t    *nb;

	if (new_size == 0)
	{
		if (old != NULL)
			wr_release(w, (uint8_t *) old - 16);
		return NULL;
	}
	nb = wr_alloc(w, new_size + 16);
	if (nb == NULL)
		return NULL;
	memcpy(nb, &new_size, sizeof(new_size));
	if (old != NULL)
	{
		size_t		old_size;

		memcpy(&old_size, (uint8_t *) old - 16, sizeof(old_size));
		memcpy(nb + 16, old, old_size < new_size ? old_size : new_size);
		wr_release(w, (uint8_t *) old - 16);
	}
	return nb + 16;
}

/* ----------------------------------------------------------------
 * Schema checks
 * ----------------------------------------------------------------
 */
int16_t
pq_write_column_max_def(const PqWriteColumn *c)
{
	int16_t		d = c->repetition == PQ_OPTIONAL;

	if (c->is_list)
		d += 1 + (c->element_repetition == PQ_OPTIONAL);
	return d;
}

int16_t
pq_write_column_max_rep(const PqWriteColumn *c)
{
	return c->is_list ? 1 : 0;
}

static int
physical_width(const PqWriteColumn *c)
{
	switch (c->physical)
	{
		case PQ_BOOLEAN:
			return 1;
		case PQ_INT32:
		case PQ_FLOAT:
			return 4;
		case PQ_INT64:
		case PQ_DOUBLE:
			return 8;
		case PQ_INT96:
			return 12;
		case PQ_FIXED_LEN_BYTE_ARRAY:
			return c->type_length;
		case PQ_BYTE_ARRAY:
			return 0;
	}
	return -1;
}

static StatOrder
stat_order(const PqWriteColumn *c)
{
	const PqLogicalType *lt = &c->logical;

	switch (c->physical)
	{
		case PQ_BOOLEAN:
			return ORD_BOOL;
		case PQ_INT32:
			return (lt->kind == PQ_LT_INTEGER && !lt->is_signed) ? ORD_UINT32 : ORD_INT32;
		case PQ_INT64:
			return (lt->kind == PQ_LT_INTEGER && !lt->is_signed) ? ORD_UINT64 : ORD_INT64;
		case PQ_FLOAT:
			return ORD_FLOAT;
		case PQ_DOUBLE:
			return ORD_DOUBLE;
		case PQ_INT96:
			return ORD_NONE;
		case PQ_BYTE_ARRAY:
		case PQ_FIXED_LEN_BYTE_ARRAY:
			if (lt->kind == PQ_LT_DECIMAL)
				return ORD_BYTES_SIGNED;
			if (lt->kind == PQ_LT_INTERVAL || lt->kind == PQ_LT_FLOAT16)
				return ORD_NONE;
			return ORD_BYTES;
	}
	return ORD_NONE;
}

/* Whether the value encoding is defined for the physical type. */
static bool
encoding_fits(const PqWriteColumn *c)
{
	PqPhysicalType p = c->physical;

	switch (c->encoding)
	{
		case PQ_WRITE_PLAIN:
		case PQ_WRITE_DICTIONARY:
			return true;
		case PQ_WRITE_DELTA_BINARY_PACKED:
			return p == PQ_INT32 || p == PQ_INT64;
		case PQ_WRITE_DELTA_LENGTH_BYTE_ARRAY:
			return p == PQ_BYTE_ARRAY;
		case PQ_WRITE_DELTA_BYTE_ARRAY:
			return p == PQ_BYTE_ARRAY || p == PQ_FIXED_LEN_BYTE_ARRAY;
		case PQ_WRITE_BYTE_STREAM_SPLIT:
			return p == PQ_FLOAT || p == PQ_DOUBLE || p == PQ_INT32 || p == PQ_INT64 ||
				p == PQ_FIXED_LEN_BYTE_ARRAY;
	}
	return false;
}

/* NULL if the annotation fits the physical type, else why not. */
static const char *
check_logical(const PqWriteColumn *c)
{
	const PqLogicalType *lt = &c->logical;
	PqPhysicalType p = c->physical;

	switch (lt->kind)
	{
		case PQ_LT_NONE:
		case PQ_LT_NULL:
			return NULL;
		case PQ_LT_STRING:
		case PQ_LT_ENUM:
		case PQ_LT_JSON:
		case PQ_LT_BSON:
			return p == PQ_BYTE_ARRAY ? NULL : "needs BYTE_ARRAY";
		case PQ_LT_UUID:
			return (p == PQ_FIXED_LEN_BYTE_ARRAY && c->type_length == 16) ? NULL :
				"needs FIXED_LEN_BYTE_ARRAY(16)";
		case PQ_LT_FLOAT16:
			return (p == PQ_FIXED_LEN_BYTE_ARRAY && c->type_length == 2) ? NULL :
				"needs FIXED_LEN_BYTE_ARRAY(2)";
		case PQ_LT_INTERVAL:
			return (p == PQ_FIXED_LEN_BYTE_ARRAY && c->type_length == 12) ? NULL :
				"needs FIXED_LEN_BYTE_ARRAY(12)";
		case PQ_LT_DATE:
			return p == PQ_INT32 ? NULL : "needs INT32";
		case PQ_LT_TIME:
			if (lt->unit == PQ_UNIT_MILLIS)
				return p == PQ_INT32 ? NULL : "TIME(MILLIS) needs INT32";
			return p == PQ_INT64 ? NULL : "TIME(MICROS|NANOS) needs INT64";
		case PQ_LT_TIMESTAMP:
			return p == PQ_INT64 ? NULL : "needs INT64";
		case PQ_LT_INTEGER:
			if (lt->bit_width == 64)
				return p == PQ_INT64 ? NULL : "INTEGER(64) needs INT64";
			if (lt->bit_width == 8 || lt->bit_width == 16 || lt->bit_width == 32)
				return p == PQ_INT32 ? NULL : "INTEGER(8|16|32) needs INT32";
			return "bit width must be 8, 16, 32 or 64";
		case PQ_LT_DECIMAL:
			if (lt->precision < 1 || lt->scale < 0 || lt->scale > lt->precision)
				return "bad precision or scale";
			if (p == PQ_INT32)
				return lt->precision <= 9 ? NULL : "precision above 9 on INT32";
			if (p == PQ_INT64)
				return lt->precision <= 18 ? NULL : "precision above 18 on INT64";
			if (p == PQ_FIXED_LEN_BYTE_ARRAY)
			{
				/* digits a type_length-byte two's complement holds (an
				 * integer precision is <= x exactly when <= floor(x); no
				 * floor() keeps libm out of the pure-C tools' links) */
				double		digits = log10(2.0) * (8.0 * c->type_length - 1);

				return lt->precision <= digits ? NULL : "precision too large for the width";
			}
			return p == PQ_BYTE_ARRAY ? NULL : "needs INT32, INT64 or a byte array";
		default:
			return "annotation not supported by the writer";
	}
}

/* ----------------------------------------------------------------
 * Statistics
 * ----------------------------------------------------------------
 */
static int
cmp_bytes_signed(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
	bool		aneg = alen > 0 && (a[0] & 0x80);
	bool		bneg = blen > 0 && (b[0] & 0x80);
	uint32_t	n = alen > blen ? alen : blen;

	if (aneg != bneg)
		return aneg ? -1 : 1;
	/* same sign: sign-extend the shorter one, then compare unsigned */
	for (uint32_t i = 0; i < n; i++)
	{
		uint8_t		x = i < n - alen ? (aneg ? 0xFF : 0) : a[i - (n - alen)];
		uint8_t		y = i < n - blen ? (bneg ? 0xFF : 0) : b[i - (n - blen)];

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* Compare two values of a column's order; floats here are never NaN. */
static int
cmp_values(StatOrder order, const uint8_t *a, uint32_t alen,
		   const uint8_t *b, uint32_t blen)
{
	switch (order)
	{
		case ORD_BOOL:
			return (a[0] != 0) - (b[0] != 0);
		case ORD_INT32:
			{
				int32_t		x, y;

				memcpy(&x, a, 4);
				memcpy(&y, b, 4);
				return (x > y) - (x < y);
			}
		case ORD_UINT32:
			{
				uint32_t	x, y;

				memcpy(&x, a, 4);
				memcpy(&y, b, 4);
				return (x > y) - (x < y);
			}
		case ORD_INT64:
			{
				int64_t		x, y;

				memcpy(&x, a, 8);
				memcpy(&y, b, 8);
				return (x > y) - (x < y);
			}
		case ORD_UINT64:
			{
				uint64_t	x, y;

				memcpy(&x, a, 8);
				memcpy(&y, b, 8);
				return (x > y) - (x < y);
			}
		case ORD_FLOAT:
			{
				float		x, y;

				memcpy(&x, a, 4);
				memcpy(&y, b, 4);
				return (x > y) - (x < y);
			}
		case ORD_DOUBLE:
			{
				double		x, y;

				memcpy(&x, a, 8);
				memcpy(&y, b, 8);
				return (x > y) - (x < y);
			}
		case ORD_BYTES:
			{
				uint32_t	n = alen < blen ? alen : blen;
				int			c = n > 0 ? memcmp(a, b, n) : 0;

				if (c != 0)
					return c < 0 ? -1 : 1;
				return (alen > blen) - (alen < blen);
			}
		case ORD_BYTES_SIGNED:
			return cmp_bytes_signed(a, alen, b, blen);
		case ORD_NONE:
			break;
	}
	return 0;
}

static bool
is_nan_value(StatOrder order, const uint8_t *v)
{
	if (order == ORD_FLOAT)
	{
		float		f;

		memcpy(&f, v, 4);
		return isnan(f);
	}
	if (order == ORD_DOUBLE)
	{
		double		d;

		memcpy(&d, v, 8);
		return isnan(d);
	}
	return false;
}

/* ----------------------------------------------------------------
 * Values of a page: fixed-width bytes or byte-array views, densely
 * ----------------------------------------------------------------
 */
typedef struct PageValues
{
	const uint8_t *fixed;		/* width bytes per value */
	const CdcByteView *views;	/* BYTE_ARRAY */
	int			width;
	size_t		count;
} PageValues;

static inline void
value_at(const PageValues *pv, size_t i, const uint8_t **ptr, uint32_t *len)
{
	if (pv->views != NULL)
	{
		*ptr = pv->views[i].ptr;
		*len = pv->views[i].len;
	}
	else
	{
		*ptr = pv->fixed + i * (size_t) pv->width;
		*len = (uint32_t) pv->width;
	}
}

/*
 * Typed bounds of fixed-width integers: a min/max pass the compiler can
 * vectorize, then the first value equal to each (equal integers have
 * equal bytes, so which one is returned does not matter).
 */
#define INT_BOUNDS(T) \
	do { \
		const uint8_t *base = pv->fixed; \
		T			mn, mx; \
		size_t		i; \
		memcpy(&mn, base, sizeof(T)); \
		mx = mn; \
		for (i = 1; i < pv->count; i++) \
		{ \
			T			v; \
			memcpy(&v, base + i * sizeof(T), sizeof(T)); \
			mn = v < mn ? v : mn; \
			mx = v > mx ? v : mx; \
		} \
		for (i = 0; i < pv->count; i++) \
		{ \
			T			v; \
			memcpy(&v, base + i * sizeof(T), sizeof(T)); \
			if (v == mn) { minp = base + i * sizeof(T); break; } \
		} \
		for (i = 0; i < pv->count; i++) \
		{ \
			T			v; \
			memcpy(&v, base + i * sizeof(T), sizeof(T)); \
			if (v == mx) { maxp = base + i * sizeof(T); break; } \
		} \
		minl = maxl = sizeof(T); \
	} while (0)

/*
 * Floats: the first non-NaN smallest and largest (strict comparisons keep
 * the first of -0.0 and +0.0, as the generic loop does).
 */
#define FLOAT_BOUNDS(T) \
	do { \
		const uint8_t *base = pv->fixed; \
		T			mn = 0, mx = 0; \
		for (size_t i = 0; i < pv->count; i++) \
		{ \
			T			v; \
			memcpy(&v, base + i * sizeof(T), sizeof(T)); \
			if (isnan(v)) \
				continue; \
			if (minp == NULL) \
			{ \
				mn = mx = v; \
				minp = maxp = base + i * sizeof(T); \
				continue; \
			} \
			if (v < mn) { mn = v; minp = base + i * sizeof(T); } \
			if (v > mx) { mx = v; maxp = base + i * sizeof(T); } \
		} \
		minl = maxl = sizeof(T); \
	} while (0)

/* cmp_values for ORD_BYTES, deciding most pairs on the first byte */
static inline int
cmp_bytes_quick(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
	if (alen > 0 && blen > 0 && a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return cmp_values(ORD_BYTES, a, alen, b, blen);
}

/* The smallest and largest non-NaN values of a page; *minp NULL if none. */
static void
page_bounds(const WColumn *col, const PageValues *pv, const uint8_t **minpp,
			uint32_t *minlp, const uint8_t **maxpp, uint32_t *maxlp)
{
	const uint8_t *minp = NULL,
			   *maxp = NULL;
	uint32_t	minl = 0,
				maxl = 0;

	if (col->order == ORD_NONE || pv->count == 0)
		;
	else if (col->order == ORD_INT32 && pv->views == NULL)
		INT_BOUNDS(int32_t);
	else if (col->order == ORD_UINT32 && pv->views == NULL)
		INT_BOUNDS(uint32_t);
	else if (col->order == ORD_INT64 && pv->views == NULL)
		INT_BOUNDS(int64_t);
	else if (col->order == ORD_UINT64 && pv->views == NULL)
		INT_BOUNDS(uint64_t);
	else if (col->order == ORD_FLOAT && pv->views == NULL)
		FLOAT_BOUNDS(float);
	else if (col->order == ORD_DOUBLE && pv->views == NULL)
		FLOAT_BOUNDS(double);
	else if (col->order == ORD_BYTES && pv->views != NULL)
	{
		minp = maxp = pv->views[0].ptr;
		minl = maxl = pv->views[0].len;
		for (size_t i = 1; i < pv->count; i++)
		{
			const uint8_t *p = pv->views[i].ptr;
			uint32_t	l = pv->views[i].len;

			if (cmp_bytes_quick(p, l, minp, minl) < 0)
			{
				minp = p;
				minl = l;
			}
			else if (cmp_bytes_quick(p, l, maxp, maxl) > 0)
			{
				maxp = p;
				maxl = l;
			}
		}
	}
	else
		for (size_t i = 0; i < pv->count; i++)
		{
			const uint8_t *p;
			uint32_t	l;

			value_at(pv, i, &p, &l);
			if (is_nan_value(col->order, p))
				continue;
			if (minp == NULL || cmp_values(col->order, p, l, minp, minl) < 0)
			{
				minp = p;
				minl = l;
			}
			if (maxp == NULL || cmp_values(col->order, p, l, maxp, maxl) > 0)
			{
				maxp = p;
				maxl = l;
			}
		}
	*minpp = minp;
	*minlp = minl;
	*maxpp = maxp;
	*maxlp = maxl;
}

/* Merge a page's bounds into the chunk's statistics. */
static bool
stats_update(PqWriter *w, const WColumn *col, ChunkState *cs,
			 const uint8_t *minp, uint32_t minl, const uint8_t *maxp, uint32_t maxl)
{
	if (minp == NULL || !w->options.write_statistics)
		return true;
	if (!cs->has_minmax ||
		cmp_values(col->order, minp, minl, cs->min.data, (uint32_t) cs->min.len) < 0)
	{
		cs->min.len = 0;
		if (!buf_append(w, &cs->min, minp, minl))
			return false;
	}
	if (!cs->has_minmax ||
		cmp_values(col->order, maxp, maxl, cs->max.data, (uint32_t) cs->max.len) > 0)
	{
		cs->max.len = 0;
		if (!buf_append(w, &cs->max, maxp, maxl))
			return false;
	}
	cs->has_minmax = true;
	return true;
}

/* Signed zero rule of the spec: a zero min is written -0.0, a zero max +0.0. */
static void
stats_fix_zero(StatOrder order, uint8_t *v, bool is_min)
{
	if (order == ORD_FLOAT)
	{
		float		f;

		memcpy(&f, v, 4);
		if (f == 0.0f)
		{
			f = is_min ? -0.0f : 0.0f;
			memcpy(v, &f, 4);
		}
	}
	else if (order == ORD_DOUBLE)
	{
		double		d;

		memcpy(&d, v, 8);
		if (d == 0.0)
		{
			d = is_min ? -0.0 : 0.0;
			memcpy(v, &d, 8);
		}
	}
}

/* ----------------------------------------------------------------
 * Dictionary
 *
 * Open addressing over a power-of-two table of 64-bit slots: the high half
 * holds the upper 32 bits of the value's hash, the low half the entry
 * index + 1 (0 = empty).  A probe compares the stored hash first, so the
 * entry's bytes are only read on a (near certain) match, and a rehash
 * never hashes the values again.
 * ----------------------------------------------------------------
 */
#define HASH_MUL1	UINT64_C(0x9e3779b97f4a7c15)
#define HASH_MUL2	UINT64_C(0xbf58476d1ce4e5b9)

static inline uint64_t
load_u64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t
load_u32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, 4);
	return v;
}

/* Word at a time; the short tails read overlapping words, not bytes. */
static inline uint64_t
hash_bytes(const uint8_t *p, uint32_t len)
{
	uint64_t	h = HASH_MUL1 ^ ((uint64_t) len * HASH_MUL2);

	if (len >= 8)
	{
		uint32_t	i = 0;

		for (; i + 8 <= len; i += 8)
			h = ((h ^ load_u64(p + i)) * HASH_MUL1) ^ (h >> 31);
		if (i < len)
			h = ((h ^ load_u64(p + len - 8)) * HASH_MUL2) ^ (h >> 31);
	}
	else if (len >= 4)
		h ^= (load_u32(p) << 32) | load_u32(p + len - 4);
	else if (len > 0)
		h ^= ((uint64_t) p[0] << 16) | ((uint64_t) p[len >> 1] << 8) | p[len - 1];
	/* final avalanche, so the low bits that pick the slot depend on all */
	h ^= h >> 30;
	h *= HASH_MUL2;
	h ^= h >> 27;
	h *= UINT64_C(0x94d049bb133111eb);
	return h ^ (h >> 31);
}

static inline bool
dict_entry_equals(const ChunkState *cs, uint32_t e, const uint8_t *p, uint32_t len,
				  int width)
{
	const uint8_t *q;

	/* fixed-width entries lie back to back: no dict_off load to wait for */
	q = cs->dict_plain.data + (width > 0 ? (size_t) e * (size_t) width : cs->dict_off[e]);
	/* the common fixed widths compare as one word */
	if (width == 8)
		return load_u64(q) == load_u64(p);
	if (width == 4)
		return load_u32(q) == load_u32(p);
	if (width > 0)
		return memcmp(q, p, len) == 0;
	return cs->dict_len[e] == len && (len == 0 || memcmp(q, p, len) == 0);
}

static bool
dict_rehash(PqWriter *w, ChunkState *cs, uint32_t size)
{
	uint64_t   *slots = wr_alloc(w, (size_t) size * sizeof(uint64_t));

	if (slots == NULL)
		return false;
	memset(slots, 0, (size_t) size * sizeof(uint64_t));
	for (uint32_t s0 = 0; s0 < cs->hash_size; s0++)
	{
		uint64_t	slot = cs->hash_slots[s0];
		uint32_t	s;

		if (slot == 0)
			continue;
		/* the table's size never passes 2^32: the stored upper half of the
		 * hash holds the bits that pick the slot in the larger table too */
		s = (uint32_t) (slot >> 32) & (size - 1);
		while (slots[s] != 0)
			s = (s + 1) & (size - 1);
		slots[s] = slot;
	}
	wr_release(w, cs->hash_slots);
	cs->hash_slots = slots;
	cs->hash_size = size;
	return true;
}

/* Add a value the table does not hold at free slot s (dict_lookup_add). */
static bool
dict_add(PqWriter *w, const WColumn *col, ChunkState *cs, const uint8_t *p,
		 uint32_t len, uint64_t tag, uint32_t s, uint32_t *index, bool *full)
{
	size_t		entry_bytes = len + (col->width == 0 ? 4 : 0);

	if (cs->dict_count >= w->options.dictionary_max_entries ||
		cs->dict_plain.len + entry_bytes > w->options.dictionary_max_bytes)
	{
		*full = true;
		return true;
	}
	if (cs->dict_count == cs->dict_cap)
	{
		uint32_t	ncap = cs->dict_cap == 0 ? 256 : cs->dict_cap * 2;
		uint32_t   *noff = wr_alloc(w, (size_t) ncap * sizeof(uint32_t));
		uint32_t   *nlen = wr_alloc(w, (size_t) ncap * sizeof(uint32_t));

		if (noff == NULL || nlen == NULL)
		{
			wr_release(w, noff);
			wr_release(w, nlen);
			return false;
		}
		if (cs->dict_count > 0)
		{
			memcpy(noff, cs->dict_off, cs->dict_count * sizeof(uint32_t));
			memcpy(nlen, cs->dict_len, cs->dict_count * sizeof(uint32_t));
		}
		wr_release(w, cs->dict_off);
		wr_release(w, cs->dict_len);
		cs->dict_off = noff;
		cs->dict_len = nlen;
		cs->dict_cap = ncap;
	}
	if (col->width == 0 && !buf_append(w, &cs->dict_plain, &len, 4))
		return false;
	cs->dict_off[cs->dict_count] = (uint32_t) cs->dict_plain.len;
	cs->dict_len[cs->dict_count] = len;
	if (!buf_append(w, &cs->dict_plain, p, len))
		return false;
	cs->hash_slots[s] = tag | (cs->dict_count + 1);
	*index = cs->dict_count++;
	if (cs->dict_count * 2 > cs->hash_size && !dict_rehash(w, cs, cs->hash_size * 2))
		return false;
	return true;
}

/*
 * Index of the value (whose hash_bytes() is h) in the dictionary, adding it
 * if new.  Returns false on out of memory; *full when adding it would pass
 * the limits (nothing added).
 */
static inline bool
dict_lookup_add(PqWriter *w, const WColumn *col, ChunkState *cs,
				const uint8_t *p, uint32_t len, uint64_t h, uint32_t *index,
				bool *full)
{
	uint64_t	tag = h & UINT64_C(0xffffffff00000000);
	uint32_t	mask;
	uint32_t	s;

	*full = false;
	if (cs->hash_size == 0 && !dict_rehash(w, cs, 1024))
		return false;
	mask = cs->hash_size - 1;
	s = (uint32_t) (h >> 32) & mask;
	for (;;)
	{
		uint64_t	slot = cs->hash_slots[s];

		if (slot == 0)
			return dict_add(w, col, cs, p, len, tag, s, index, full);
		if ((slot & UINT64_C(0xffffffff00000000)) == tag &&
			dict_entry_equals(cs, (uint32_t) slot - 1, p, len, col->width))
		{
			*index = (uint32_t) slot - 1;
			return true;
		}
		s = (s + 1) & mask;
	}
}

/*
 * Values are looked up in blocks: hash a block and prefetch its slots
 * first, so the cache misses of a large table overlap instead of queueing
 * one behind the other.
 */
#define DICT_BLOCK 32

static inline void
dict_hash_block(const ChunkState *cs, const PageValues *pv, size_t i0, size_t n,
				uint64_t *hashes)
{
	for (size_t j = 0; j < n; j++)
	{
		const uint8_t *p;
		uint32_t	l;

		value_at(pv, i0 + j, &p, &l);
		hashes[j] = hash_bytes(p, l);
		if (cs->hash_size > 0)
			__builtin_prefetch(&cs->hash_slots[(uint32_t) (hashes[j] >> 32) &
											   (cs->hash_size - 1)]);
	}
}

/* ----------------------------------------------------------------
 * Thrift helpers
 * ----------------------------------------------------------------
 */
static void
tw_i32(PqThriftWriter *tw, int16_t fid, int32_t v)
{
	pq_thrift_write_field(tw, fid, PQ_THRIFT_I32);
	pq_thrift_write_i32(tw, v);
}

static void
tw_i64(PqThriftWriter *tw, int16_t fid, int64_t v)
{
	pq_thrift_write_field(tw, fid, PQ_THRIFT_I64);
	pq_thrift_write_i64(tw, v);
}

static void
tw_binary(PqThriftWriter *tw, int16_t fid, const void *data, uint32_t len)
{
	pq_thrift_write_field(tw, fid, PQ_THRIFT_BINARY);
	pq_thrift_write_binary(tw, data, len);
}

static void
tw_string(PqThriftWriter *tw, int16_t fid, const char *s)
{
	tw_binary(tw, fid, s, (uint32_t) strlen(s));
}

/* An empty struct as a field (the members of Thrift unions Parquet uses). */
static void
tw_empty_struct(PqThriftWriter *tw, int16_t fid)
{
	pq_thrift_write_field(tw, fid, PQ_THRIFT_STRUCT);
	pq_thrift_write_struct_begin(tw);
	pq_thrift_write_struct_end(tw);
}

static void
tw_struct_begin(PqThriftWriter *tw, int16_t fid)
{
	pq_thrift_write_field(tw, fid, PQ_THRIFT_STRUCT);
	pq_thrift_write_struct_begin(tw);
}

/* ----------------------------------------------------------------
 * Pages
 * ----------------------------------------------------------------
 */
static unsigned
bits_for(uint32_t max_value)
{
	unsigned	b = 0;

	while (b < 32 && (max_value >> b) != 0)
		b++;
	return b;
}

/* RLE-encode levels[0..n) into b; prefixed with a 4-byte length for v1. */
static bool
encode_levels(PqWriter *w, ByteBuf *b, const int16_t *levels, size_t n,
			  int16_t max_level, bool prefixed)
{
	unsigned	bw = bits_for((uint32_t) max_level);
	size_t		cap = cdc_rle_max_size(n, bw);
	uint32_t   *u;
	size_t		written;
	size_t		start;

	w->u32_buf.len = 0;
	if (!buf_reserve(w, &w->u32_buf, n * sizeof(uint32_t)))
		return false;
	u = (uint32_t *) w->u32_buf.data;
	for (size_t i = 0; i < n; i++)
		u[i] = (uint32_t) levels[i];
	if (!buf_reserve(w, b, cap + 4))
		return false;
	start = b->len;
	if (prefixed)
		b->len += 4;
	if (cdc_rle_encode(u, n, bw, b->data + b->len, cap, &written) != CDC_OK)
		return false;
	b->len += written;
	if (prefixed)
	{
		uint32_t	l32 = (uint32_t) written;

		memcpy(b->data + start, &l32, 4);
	}
	return true;
}

static bool
encode_plain(PqWriter *w, const WColumn *col, const PageValues *pv, ByteBuf *b)
{
	size_t		written;

	if (col->def.physical == PQ_BOOLEAN)
	{
		size_t		cap = pv->count / 8 + 1;

		if (!buf_reserve(w, b, cap) ||
			cdc_plain_bool_encode(pv->fixed, pv->count, b->data + b->len, cap,
								  &written) != CDC_OK)
			return false;
		b->len += written;
		return true;
	}
	if (pv->views != NULL)
	{
		size_t		cap = 0;

		for (size_t i = 0; i < pv->count; i++)
			cap += 4 + (size_t) pv->views[i].len;
		if (!buf_reserve(w, b, cap) ||
			cdc_plain_byte_array_encode(pv->views, pv->count, b->data + b->len,
										cap, &written) != CDC_OK)
			return false;
		b->len += written;
		return true;
	}
	return buf_append(w, b, pv->fixed, pv->count * (size_t) pv->width);
}

/*
 * Encode a page's values with the column's non-dictionary encoding;
 * *encoding gets the Parquet Encoding id used.
 */
static PqStatus
encode_values(PqWriter *w, const WColumn *col, const PageValues *pv, ByteBuf *b,
			  int32_t *encoding, PqError *err)
{
	size_t		cap = 0;
	size_t		written = 0;
	CdcStatus	cs = CDC_OK;
	const CdcByteView *views = pv->views;
	ByteBuf		flba_views = {0};

	*encoding = ENC_PLAIN;
	switch (col->def.encoding)
	{
		case PQ_WRITE_DELTA_BINARY_PACKED:
			cap = cdc_delta_binary_max_size(pv->count, col->width == 8);
			*encoding = ENC_DELTA_BINARY_PACKED;
			break;
		case PQ_WRITE_DELTA_LENGTH_BYTE_ARRAY:
			cap = cdc_delta_length_max_size(views, pv->count);
			*encoding = ENC_DELTA_LENGTH_BYTE_ARRAY;
			break;
		case PQ_WRITE_DELTA_BYTE_ARRAY:
			if (views == NULL)
			{
				/* FIXED_LEN_BYTE_ARRAY: the encoder takes views */
				CdcByteView *v;

				if (!buf_reserve(w, &flba_views, (pv->count + 1) * sizeof(CdcByteView)))
				{
					pq_error_oom(err);
					return err->status;
				}
				v = (CdcByteView *) flba_views.data;
				for (size_t i = 0; i < pv->count; i++)
				{
					v[i].ptr = pv->fixed + i * (size_t) pv->width;
					v[i].len = (uint32_t) pv->width;
				}
				views = v;
			}
			cap = cdc_delta_byte_array_max_size(views, pv->count);
			*encoding = ENC_DELTA_BYTE_ARRAY;
			break;
		case PQ_WRITE_BYTE_STREAM_SPLIT:
			cap = pv->count * (size_t) pv->width;
			*encoding = ENC_BYTE_STREAM_SPLIT;
			break;
		default:
			if (!encode_plain(w, col, pv, b))
			{
				pq_error_oom(err);
				return err->status;
			}
			return PQ_OK;
	}
	if (!buf_reserve(w, b, cap + 1))
	{
		buf_free(w, &flba_views);
		pq_error_oom(err);
		return err->status;
	}
	switch (*encoding)
	{
		case ENC_DELTA_BINARY_PACKED:
			if (col->width == 8)
				cs = cdc_delta_binary_encode64((const int64_t *) (const void *) pv->fixed,
											   pv->count, DELTA_BLOCK_SIZE, DELTA_MINIBLOCKS,
											   b->data + b->len, cap, &written);
			else
				cs = cdc_delta_binary_encode32((const int32_t *) (const void *) pv->fixed,
											   pv->count, DELTA_BLOCK_SIZE, DELTA_MINIBLOCKS,
											   b->data + b->len, cap, &written);
			break;
		case ENC_DELTA_LENGTH_BYTE_ARRAY:
			cs = cdc_delta_length_encode(views, pv->count, b->data + b->len, cap, &written);
			break;
		case ENC_DELTA_BYTE_ARRAY:
			cs = cdc_delta_byte_array_encode(views, pv->count, b->data + b->len, cap, &written);
			break;
		case ENC_BYTE_STREAM_SPLIT:
			if (pv->count > 0)
				cs = cdc_bss_encode(pv->fixed, (size_t) pv->width, pv->count,
									b->data + b->len, cap, &written);
			break;
	}
	buf_free(w, &flba_views);
	if (cs != CDC_OK)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "could not encode values: %s",
					 cdc_status_message(cs));
		return err->status;
	}
	b->len += written;
	return PQ_OK;
}

/* Compress src into w->comp_buf (or point at src when uncompressed). */
static PqStatus
compress_bytes(PqWriter *w, const uint8_t *src, size_t len,
			   const uint8_t **out, size_t *out_len, PqError *err)
{
	int			codec = w->options.codec;
	size_t		bound;
	CmpStatus	cs;

	if (codec == CMP_UNCOMPRESSED)
	{
		*out = src;
		*out_len = len;
		return PQ_OK;
	}
	bound = cmp_compress_bound(codec, len);
	w->comp_buf.len = 0;
	if (!buf_reserve(w, &w->comp_buf, bound))
	{
		pq_error_oom(err);
		return err->status;
	}
	cs = cmp_compress(codec, w->options.compression_level, src, len,
					  w->comp_buf.data, bound, out_len);
	if (cs != CMP_OK)
	{
		pq_error_set(err, cs == CMP_ERR_NOMEM ? PQ_ERR_IO : PQ_ERR_UNSUPPORTED,
					 "could not compress a page with %s: %s",
					 cmp_codec_name(codec), cmp_status_message(cs));
		if (cs == CMP_ERR_NOMEM)
			err->sys_errno = ENOMEM;
		return err->status;
	}
	*out = w->comp_buf.data;
	return PQ_OK;
}

/*
 * Append one page (Thrift header, then the stored bytes) to dst.  For v2
 * pages `levels` holds the uncompressed level bytes in front of the values.
 */
static PqStatus
emit_page(PqWriter *w, ByteBuf *dst, int page_type, const uint8_t *levels,
		  size_t levels_len, const uint8_t *values, size_t values_len,
		  const int32_t *sub, int64_t *uncompressed_total, PqError *err)
{
	const uint8_t *stored = NULL;
	size_t		stored_len = 0;
	size_t		uncompressed = levels_len + values_len;
	uint32_t	crc = 0;
	PqThriftWriter *tw = &w->tw;
	PqStatus	st;
	bool		v2 = page_type == PAGE_DATA_V2;
	bool		compress_values = !v2 || w->options.codec != CMP_UNCOMPRESSED;

	if (compress_values)
		st = compress_bytes(w, values, values_len, &stored, &stored_len, err);
	else
	{
		stored = values;
		stored_len = values_len;
		st = PQ_OK;
	}
	if (st != PQ_OK)
		return st;
	if (uncompressed > MAX_PAGE_BYTES || levels_len + stored_len > MAX_PAGE_BYTES)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "page larger than 2 GB");
		return err->status;
	}
	if (w->options.write_crc)
	{
		/* the CRC covers the page's bytes as stored: v2 levels included */
		crc = pfc_crc32_update(pfc_crc32(levels, levels_len), stored, stored_len);
	}

	pq_thrift_writer_reset(tw);
	pq_thrift_write_struct_begin(tw);
	tw_i32(tw, 1, page_type);
	tw_i32(tw, 2, (int32_t) uncompressed);
	tw_i32(tw, 3, (int32_t) (levels_len + stored_len));
	if (w->options.write_crc)
		tw_i32(tw, 4, (int32_t) crc);
	if (page_type == PAGE_DATA)
	{
		tw_struct_begin(tw, 5);
		tw_i32(tw, 1, sub[0]);	/* num_values */
		tw_i32(tw, 2, sub[1]);	/* encoding */
		tw_i32(tw, 3, ENC_RLE);
		tw_i32(tw, 4, ENC_RLE);
		pq_thrift_write_struct_end(tw);
	}
	else if (page_type == PAGE_DICTIONARY)
	{
		tw_struct_begin(tw, 7);
		tw_i32(tw, 1, sub[0]);	/* num_values */
		tw_i32(tw, 2, ENC_PLAIN);
		pq_thrift_write_struct_end(tw);
	}
	else
	{
		tw_struct_begin(tw, 8);
		tw_i32(tw, 1, sub[0]);	/* num_values */
		tw_i32(tw, 2, sub[2]);	/* num_nulls */
		tw_i32(tw, 3, sub[3]);	/* num_rows */
		tw_i32(tw, 4, sub[1]);	/* encoding */
		tw_i32(tw, 5, sub[4]);	/* definition_levels_byte_length */
		tw_i32(tw, 6, sub[5]);	/* repetition_levels_byte_length */
		pq_thrift_write_bool_field(tw, 7, compress_values);
		pq_thrift_write_struct_end(tw);
	}
	pq_thrift_write_struct_end(tw);
	if (tw->failed)
	{
		pq_error_oom(err);
		return err->status;
	}
	if (!buf_append(w, dst, tw->buf, tw->len) ||
		!buf_append(w, dst, levels, levels_len) ||
		!buf_append(w, dst, stored, stored_len))
	{
		pq_error_oom(err);
		return err->status;
	}
	*uncompressed_total += (int64_t) (tw->len + uncompressed);
	return PQ_OK;
}

static bool stats_bound(PqWriter *w, const WColumn *col, const ByteBuf *v,
						bool is_min, uint8_t **out, uint32_t *out_len, bool *exact);

/* Copy a page bound (truncated and signed-zero fixed as chunk statistics
 * are) into the chunk's page_bounds; *ok false when it cannot be written. */
static bool
page_bound_copy(PqWriter *w, const WColumn *col, ChunkState *cs, const uint8_t *p,
				uint32_t len, bool is_min, uint32_t *off, uint32_t *out_len, bool *ok)
{
	ByteBuf		view = {(uint8_t *) p, len, len};
	uint8_t    *copy;
	uint32_t	clen;
	bool		exact;

	if (!stats_bound(w, col, &view, is_min, &copy, &clen, &exact))
		return false;
	if (copy == NULL)
	{
		*ok = false;
		return true;
	}
	*off = (uint32_t) cs->page_bounds.len;
	*out_len = clen;
	if (!buf_append(w, &cs->page_bounds, copy, clen))
	{
		wr_release(w, copy);
		return false;
	}
	wr_release(w, copy);
	return true;
}

/* Remember a data page for the OffsetIndex and ColumnIndex. */
static bool
page_record(PqWriter *w, const WColumn *col, ChunkState *cs, size_t page_start,
			size_t null_count, bool null_page, const uint8_t *minp, uint32_t minl,
			const uint8_t *maxp, uint32_t maxl)
{
	PageRec		rec;

	memset(&rec, 0, sizeof(rec));
	rec.offset = (int64_t) page_start;
	rec.size = (int32_t) (cs->pages.len - page_start);
	rec.first_row = cs->rows_in_pages;
	rec.null_count = (int64_t) null_count;
	rec.null_page = null_page;
	if (!null_page)
	{
		if (minp == NULL)
			cs->index_ok = false;	/* undefined order, or only NaNs */
		else if (!page_bound_copy(w, col, cs, minp, minl, true, &rec.min_off,
								  &rec.min_len, &cs->index_ok) ||
				 !page_bound_copy(w, col, cs, maxp, maxl, false, &rec.max_off,
								  &rec.max_len, &cs->index_ok))
			return false;
	}
	return buf_append(w, &cs->page_recs, &rec, sizeof(rec));
}

/*
 * Encode one data page of the current chunk: level entries [0, nlev) of
 * def/rep (either may be NULL when the column has no such levels), the
 * values pv (dense), and nrows top-level rows.
 */
static PqStatus
write_data_page(PqWriter *w, const WColumn *col, const int16_t *def,
				const int16_t *rep, size_t nlev, const PageValues *pv,
				size_t nrows, PqError *err)
{
	ChunkState *cs = &w->chunk;
	bool		v2 = w->options.data_page_v2;
	bool		use_dict = cs->dict_active;
	ByteBuf    *lv = &w->levels_buf;
	ByteBuf    *vb = &w->values_buf;
	size_t		rep_len = 0,
				def_len = 0;
	int32_t		sub[6];
	int32_t		value_encoding = ENC_PLAIN;
	size_t		page_start;
	const uint8_t *minp,
			   *maxp;
	uint32_t	minl,
				maxl;
	PqStatus	st;

	/* dictionary indexes first: a page that overflows the dictionary is
	 * written PLAIN, and so are all later pages of the chunk */
	vb->len = 0;
	if (use_dict)
	{
		uint32_t	saved_count = cs->dict_count;
		size_t		saved_bytes = cs->dict_plain.len;
		uint32_t   *idx;
		ByteBuf    *idx_buf = &w->idx_buf;
		bool		full = false;
		size_t		taken;

		idx_buf->len = 0;
		if (!buf_reserve(w, idx_buf, pv->count * sizeof(uint32_t) + 4))
		{
			pq_error_oom(err);
			return err->status;
		}
		idx = (uint32_t *) idx_buf->data;
		/* values dictionary_decide() looked up already */
		taken = cs->decided.len / sizeof(uint32_t) - cs->decided_pos;
		if (taken > pv->count)
			taken = pv->count;
		if (taken > 0)
		{
			memcpy(idx, (uint32_t *) cs->decided.data + cs->decided_pos,
				   taken * sizeof(uint32_t));
			cs->decided_pos += taken;
		}
		for (size_t i0 = taken; i0 < pv->count && !full; i0 += DICT_BLOCK)
		{
			uint64_t	hashes[DICT_BLOCK];
			size_t		m = pv->count - i0 < DICT_BLOCK ? pv->count - i0 : DICT_BLOCK;

			dict_hash_block(cs, pv, i0, m, hashes);
			for (size_t j = 0; j < m && !full; j++)
			{
				const uint8_t *p;
				uint32_t	l;

				value_at(pv, i0 + j, &p, &l);
				if (!dict_lookup_add(w, col, cs, p, l, hashes[j], &idx[i0 + j], &full))
				{
					pq_error_oom(err);
					return err->status;
				}
			}
		}
		if (full)
		{
			/* roll this page's entries back; the hash is not needed again */
			cs->dict_count = saved_count;
			cs->dict_plain.len = saved_bytes;
			cs->dict_active = false;
			use_dict = false;
		}
		else
		{
			unsigned	bw = bits_for(cs->dict_count > 0 ? cs->dict_count - 1 : 0);
			size_t		cap;
			size_t		written;

			if (bw == 0)
				bw = 1;			/* some readers reject width 0 */
			cap = cdc_rle_max_size(pv->count, bw) + 1;
			if (!buf_reserve(w, vb, cap))
			{
				pq_error_oom(err);
				return err->status;
			}
			vb->data[0] = (uint8_t) bw;
			if (cdc_rle_encode(idx, pv->count, bw, vb->data + 1, cap - 1,
							   &written) != CDC_OK)
			{
				pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
							 "could not encode dictionary indexes");
				return err->status;
			}
			vb->len = 1 + written;
		}
	}
	if (!use_dict && (st = encode_values(w, col, pv, vb, &value_encoding, err)) != PQ_OK)
		return st;

	/* levels: repetition first, then definition */
	lv->len = 0;
	if (rep != NULL)
	{
		size_t		before = lv->len;

		if (!encode_levels(w, lv, rep, nlev, col->max_rep, !v2))
		{
			pq_error_oom(err);
			return err->status;
		}
		rep_len = lv->len - before;
	}
	if (def != NULL)
	{
		size_t		before = lv->len;

		if (!encode_levels(w, lv, def, nlev, col->max_def, !v2))
		{
			pq_error_oom(err);
			return err->status;
		}
		def_len = lv->len - before;
	}

	sub[0] = (int32_t) nlev;
	sub[1] = use_dict ? ENC_RLE_DICTIONARY : value_encoding;
	sub[2] = (int32_t) (nlev - pv->count);
	sub[3] = (int32_t) nrows;
	sub[4] = (int32_t) def_len;
	sub[5] = (int32_t) rep_len;
	page_start = cs->pages.len;
	if (v2)
		st = emit_page(w, &cs->pages, PAGE_DATA_V2, lv->data, lv->len,
					   vb->data, vb->len, sub, &cs->uncompressed, err);
	else
	{
		/* v1: levels and values are compressed together */
		ByteBuf    *body = &w->body_buf;

		body->len = 0;
		if (!buf_append(w, body, lv->data, lv->len) ||
			!buf_append(w, body, vb->data, vb->len))
		{
			pq_error_oom(err);
			return err->status;
		}
		st = emit_page(w, &cs->pages, PAGE_DATA, NULL, 0, body->data, body->len,
					   sub, &cs->uncompressed, err);
	}
	if (st != PQ_OK)
		return st;

	cs->enc_mask |= 1u << sub[1];
	cs->num_pages++;
	cs->num_values += (int64_t) nlev;
	cs->null_count += (int64_t) (nlev - pv->count);
	page_bounds(col, pv, &minp, &minl, &maxp, &maxl);
	if (cs->bloom != NULL)
		for (size_t i = 0; i < pv->count; i++)
		{
			const uint8_t *p;
			uint32_t	l;

			value_at(pv, i, &p, &l);
			pfc_sbbf_insert(cs->bloom, cs->bloom_len, pfc_sbbf_hash_xxh64(p, l));
		}
	if (!stats_update(w, col, cs, minp, minl, maxp, maxl) ||
		(w->options.write_page_index &&
		 !page_record(w, col, cs, page_start, nlev - pv->count, pv->count == 0,
					  minp, minl, maxp, maxl)))
	{
		pq_error_oom(err);
		return err->status;
	}
	cs->rows_in_pages += (int64_t) nrows;
	return PQ_OK;
}

/* ----------------------------------------------------------------
 * Chunks
 * ----------------------------------------------------------------
 */
static bool
chunk_reset(PqWriter *w, const WColumn *col)
{
	ChunkState *cs = &w->chunk;

	cs->pages.len = 0;
	cs->num_rows = 0;
	cs->num_values = 0;
	cs->null_count = 0;
	cs->uncompressed = 0;
	cs->enc_mask = 0;
	cs->num_pages = 0;
	cs->dict_active = col->def.encoding == PQ_WRITE_DICTIONARY &&
		col->def.physical != PQ_BOOLEAN;
	cs->dict_plain.len = 0;
	cs->dict_count = 0;
	if (cs->hash_slots != NULL)
		memset(cs->hash_slots, 0, (size_t) cs->hash_size * sizeof(uint64_t));
	cs->decided.len = 0;
	cs->decided_pos = 0;
	cs->has_minmax = false;
	cs->min.len = 0;
	cs->max.len = 0;
	cs->page_recs.len = 0;
	cs->page_bounds.len = 0;
	cs->rows_in_pages = 0;
	cs->index_ok = col->order != ORD_NONE;
	wr_release(w, cs->bloom);
	cs->bloom = NULL;
	cs->bloom_len = 0;
	if (col->def.bloom_filter_bytes > 0)
	{
		uint32_t	n = 32;

		while (n < col->def.bloom_filter_bytes && n < (1u << 27))
			n *= 2;
		cs->bloom = wr_alloc(w, n);
		if (cs->bloom == NULL)
			return false;
		memset(cs->bloom, 0, n);
		cs->bloom_len = n;
	}
	return true;
}

static PqStatus
sink_write(PqWriter *w, const void *buf, size_t len, PqError *err)
{
	int			rc;

	if (len == 0)
		return PQ_OK;
	rc = w->sink.write(w->sink.ctx, buf, len);
	if (rc != 0)
	{
		w->failed = true;
		pq_error_set(err, PQ_ERR_IO, "could not write %zu bytes at offset %llu",
					 len, (unsigned long long) w->offset);
		err->sys_errno = rc;
		return err->status;
	}
	w->offset += len;
	return PQ_OK;
}

/* Copy a statistics bound, truncating long byte arrays (then inexact). */
static bool
stats_bound(PqWriter *w, const WColumn *col, const ByteBuf *v, bool is_min,
			uint8_t **out, uint32_t *out_len, bool *exact)
{
	uint32_t	len = (uint32_t) v->len;
	uint32_t	limit = w->options.statistics_max_len;
	uint8_t    *copy;

	*exact = true;
	if (col->order == ORD_BYTES && col->def.physical == PQ_BYTE_ARRAY &&
		limit > 0 && len > limit)
	{
		*exact = false;
		len = limit;
	}
	copy = wr_alloc(w, len);
	if (copy == NULL)
		return false;
	memcpy(copy, v->data, len);
	if (!*exact && !is_min)
	{
		/* round the truncated max up: bump the last byte below 0xFF */
		while (len > 0 && copy[len - 1] == 0xFF)
			len--;
		if (len == 0)
		{
			wr_release(w, copy);
			*out = NULL;
			*out_len = 0;
			return true;
		}
		copy[len - 1]++;
	}
	stats_fix_zero(col->order, copy, is_min);
	*out = copy;
	*out_len = len;
	return true;
}

/* Write the current column's chunk (dictionary page, data pages) to the sink. */
static PqStatus
chunk_flush(PqWriter *w, int column, PqError *err)
{
	const WColumn *col = &w->columns[column];
	ChunkState *cs = &w->chunk;
	ChunkMeta  *cm = &w->pending[column];
	ByteBuf		dict_page = {0};
	int64_t		dict_uncompressed = 0;
	PqStatus	st;

	/* an empty chunk still gets one (empty) data page to point at */
	if (cs->num_pages == 0)
	{
		PageValues	pv = {0};
		static const int16_t no_levels[1] = {0};

		pv.width = col->width;
		pv.fixed = (const uint8_t *) "";
		/* empty level sections still go in, as readers expect them */
		st = write_data_page(w, col, col->max_def > 0 ? no_levels : NULL,
							 col->max_rep > 0 ? no_levels : NULL, 0, &pv, 0, err);
		if (st != PQ_OK)
			return st;
	}

	memset(cm, 0, sizeof(*cm));
	cm->dictionary_page_offset = -1;
	if (cs->enc_mask & (1u << ENC_RLE_DICTIONARY))
	{
		int32_t		sub[6] = {(int32_t) cs->dict_count, 0, 0, 0, 0, 0};

		st = emit_page(w, &dict_page, PAGE_DICTIONARY, NULL, 0,
					   cs->dict_plain.data, cs->dict_plain.len, sub,
					   &dict_uncompressed, err);
		if (st != PQ_OK)
		{
			buf_free(w, &dict_page);
			return st;
		}
		cm->dictionary_page_offset = (int64_t) w->offset;
		st = sink_write(w, dict_page.data, dict_page.len, err);
		if (st != PQ_OK)
		{
			buf_free(w, &dict_page);
			return st;
		}
	}
	cm->data_page_offset = (int64_t) w->offset;
	st = sink_write(w, cs->pages.data, cs->pages.len, err);
	if (st != PQ_OK)
	{
		buf_free(w, &dict_page);
		return st;
	}
	/* no page index for an empty chunk: its one page starts at no row */
	if (w->options.write_page_index && cs->num_rows > 0)
	{
		int			n = (int) (cs->page_recs.len / sizeof(PageRec));
		PageRec    *recs = wr_alloc(w, cs->page_recs.len);
		uint8_t    *bounds = wr_alloc(w, cs->page_bounds.len);

		if (recs == NULL || bounds == NULL)
		{
			wr_release(w, recs);
			wr_release(w, bounds);
			pq_error_oom(err);
			return err->status;
		}
		memcpy(recs, cs->page_recs.data, cs->page_recs.len);
		if (cs->page_bounds.len > 0)
			memcpy(bounds, cs->page_bounds.data, cs->page_bounds.len);
		for (int i = 0; i < n; i++)
			recs[i].offset += cm->data_page_offset;
		cm->num_page_recs = n;
		cm->page_recs = recs;
		cm->page_bounds = bounds;
		cm->has_column_index = cs->index_ok;
	}
	cm->bloom = cs->bloom;
	cm->bloom_len = cs->bloom_len;
	cs->bloom = NULL;
	cs->bloom_len = 0;
	cm->num_rows = cs->num_rows;
	cm->num_values = cs->num_values;
	cm->total_compressed = (int64_t) (dict_page.len + cs->pages.len);
	cm->total_uncompressed = dict_uncompressed + cs->uncompressed;
	buf_free(w, &dict_page);
	cm->enc_mask = cs->enc_mask;
	if (cs->enc_mask & (1u << ENC_RLE_DICTIONARY))
		cm->enc_mask |= 1u << ENC_PLAIN;	/* the dictionary page */
	cm->has_levels = col->max_def > 0 || col->max_rep > 0;
	cm->null_count = cs->null_count;
	if (cs->has_minmax)
	{
		if (!stats_bound(w, col, &cs->min, true, &cm->min, &cm->min_len, &cm->min_exact) ||
			!stats_bound(w, col, &cs->max, false, &cm->max, &cm->max_len, &cm->max_exact))
		{
			pq_error_oom(err);
			return err->status;
		}
		cm->has_min = cm->min != NULL;
		cm->has_max = cm->max != NULL;
	}
	return PQ_OK;
}

/* Flush the current column and start the next ones up to `column`. */
static PqStatus
advance_to(PqWriter *w, int column, PqError *err)
{
	while (w->current < column)
	{
		PqStatus	st;

		if (w->current >= 0)
		{
			st = chunk_flush(w, w->current, err);
			if (st != PQ_OK)
			{
				w->failed = true;
				return st;
			}
		}
		w->current++;
		if (!chunk_reset(w, &w->columns[w->current]))
		{
			w->failed = true;
			pq_error_oom(err);
			return err->status;
		}
	}
	return PQ_OK;
}

static PqStatus
begin_row_group(PqWriter *w, PqError *err)
{
	w->pending = wr_alloc(w, (size_t) w->num_columns * sizeof(ChunkMeta));
	if (w->pending == NULL)
	{
		pq_error_oom(err);
		return err->status;
	}
	memset(w->pending, 0, (size_t) w->num_columns * sizeof(ChunkMeta));
	w->in_row_group = true;
	w->current = -1;
	return PQ_OK;
}

/* ----------------------------------------------------------------
 * Public API
 * ----------------------------------------------------------------
 */
void
pq_writer_options_init(PqWriterOptions *o)
{
	memset(o, 0, sizeof(*o));
	o->codec = CMP_UNCOMPRESSED;
	o->write_statistics = true;
}

static char *
wr_strdup(PqWriter *w, const char *s)
{
	size_t		n = strlen(s);
	char	   *d = wr_alloc(w, n + 1);

	if (d != NULL)
		memcpy(d, s, n + 1);
	return d;
}

PqStatus
pq_writer_open(PqWriter **writer, const PqWriteColumn *columns,
			   int num_columns, const PqWriterOptions *options,
			   const PqSink *sink, const PfcAllocator *alloc, PqError *err)
{
	return pq_writer_open_nested(writer, NULL, 0, columns, num_columns, options,
								 sink, alloc, err);
}

/*
 * The group chain of each leaf (root first), checked: parents before
 * children, a LIST with one child, every group's leaves consecutive.
 * Returns NULL or why not.
 */
static const char *
check_groups(const PqWriteGroup *groups, int num_groups, WColumn *cols,
			 int num_columns, const PqWriteColumn *columns, const PfcAllocator *alloc)
{
	int32_t    *children;
	int32_t    *last_child;
	bool	   *closed;
	const char *why = NULL;
	int			prev_depth = 0;
	const int32_t *prev_chain = NULL;

	for (int g = 0; g < num_groups; g++)
	{
		const PqWriteGroup *gr = &groups[g];

		if (gr->parent < -1 || gr->parent >= g)
			return "a group's parent must come before it";
		if (gr->kind != PQ_GROUP_STRUCT && gr->kind != PQ_GROUP_LIST)
			return "a group has an unknown kind";
		if (gr->repetition != PQ_REQUIRED && gr->repetition != PQ_OPTIONAL)
			return "a group must be REQUIRED or OPTIONAL";
		if ((gr->parent < 0 || groups[gr->parent].kind != PQ_GROUP_LIST) &&
			(gr->name == NULL || gr->name[0] == '\0'))
			return "a group has no name";
	}
	for (int i = 0; i < num_columns; i++)
	{
		int32_t		p = num_groups > 0 ? columns[i].parent : -1;
		int			d = 0;

		if (p < -1 || p >= num_groups)
			return "a column names no group as its parent";
		for (int32_t q = p; q >= 0; q = groups[q].parent)
			d++;
		if (d > PQ_WRITE_MAX_DEPTH)
			return "groups nest too deep";
		cols[i].depth = d;
		for (int32_t q = p; q >= 0; q = groups[q].parent)
			cols[i].chain[--d] = q;
	}
	if (num_groups == 0)
		return NULL;

	/* children per group, and consecutive leaves: a group left is closed */
	children = alloc->alloc(alloc->ctx, sizeof(int32_t) * 2 * (size_t) num_groups + num_groups);
	if (children == NULL)
		return "out of memory";
	last_child = children + num_groups;
	closed = (bool *) (last_child + num_groups);
	for (int g = 0; g < num_groups; g++)
	{
		children[g] = 0;
		last_child[g] = INT32_MIN;
		closed[g] = false;
	}
	for (int i = 0; i < num_columns && why == NULL; i++)
	{
		const WColumn *c = &cols[i];
		int			common = 0;

		while (common < c->depth && common < prev_depth &&
			   c->chain[common] == prev_chain[common])
			common++;
		for (int k = common; k < prev_depth; k++)
			closed[prev_chain[k]] = true;
		for (int k = 0; k < c->depth && why == NULL; k++)
		{
			int32_t		g = c->chain[k];
			/* the child of g on this path: a group, or the leaf (~i) */
			int32_t		child = k + 1 < c->depth ? c->chain[k + 1] : ~i;

			if (k >= common && closed[g])
				why = "a group's columns are not consecutive";
			else if (child != last_child[g])
			{
				children[g]++;
				last_child[g] = child;
			}
		}
		prev_depth = c->depth;
		prev_chain = c->chain;
	}
	for (int g = 0; g < num_groups && why == NULL; g++)
	{
		if (children[g] == 0)
			why = "a group has no columns";
		else if (groups[g].kind == PQ_GROUP_LIST && children[g] != 1)
			why = "a LIST group must have exactly one child";
	}
	if (alloc->release)
		alloc->release(alloc->ctx, children);
	return why;
}

static int16_t
chain_def(const PqWriter *w, const WColumn *c)
{
	int16_t		d = pq_write_column_max_def(&c->def);

	for (int k = 0; k < c->depth; k++)
	{
		const PqWriteGroup *g = &w->groups[c->chain[k]];

		d += (g->repetition == PQ_OPTIONAL) + (g->kind == PQ_GROUP_LIST);
	}
	return d;
}

static int16_t
chain_rep(const PqWriter *w, const WColumn *c)
{
	int16_t		r = pq_write_column_max_rep(&c->def);

	for (int k = 0; k < c->depth; k++)
		r += w->groups[c->chain[k]].kind == PQ_GROUP_LIST;
	return r;
}

int16_t
pq_writer_max_def(const PqWriter *w, int column)
{
	return w && column >= 0 && column < w->num_columns ? w->columns[column].max_def : -1;
}

int16_t
pq_writer_max_rep(const PqWriter *w, int column)
{
	return w && column >= 0 && column < w->num_columns ? w->columns[column].max_rep : -1;
}

PqStatus
pq_writer_open_nested(PqWriter **writer, const PqWriteGroup *groups,
					  int num_groups, const PqWriteColumn *columns,
					  int num_columns, const PqWriterOptions *options,
					  const PqSink *sink, const PfcAllocator *alloc, PqError *err)
{
	PqWriter   *w;

	pq_error_clear(err);
	*writer = NULL;
	if (columns == NULL || num_columns <= 0 || options == NULL || sink == NULL ||
		sink->write == NULL || alloc == NULL || alloc->alloc == NULL ||
		num_groups < 0 || (num_groups > 0 && groups == NULL))
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "invalid arguments to pq_writer_open");
		return err->status;
	}
	for (int k = 0; k < options->num_sorting_columns; k++)
		if (options->sorting_columns == NULL ||
			options->sorting_columns[k].column < 0 ||
			options->sorting_columns[k].column >= num_columns)
		{
			pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
						 "sorting column %d names no column", k);
			return err->status;
		}
	if (!cmp_codec_supported(options->codec) || options->codec == CMP_LZO)
	{
		pq_error_set(err, PQ_ERR_UNSUPPORTED, "cannot write codec %s",
					 cmp_codec_name(options->codec));
		return err->status;
	}
	for (int i = 0; i < num_columns; i++)
	{
		const PqWriteColumn *c = &columns[i];
		const char *why;

		if (c->name == NULL || c->name[0] == '\0')
			why = "has no name";
		else if (c->physical > PQ_FIXED_LEN_BYTE_ARRAY)
			why = "has an unknown physical type";
		else if (c->physical == PQ_FIXED_LEN_BYTE_ARRAY && c->type_length <= 0)
			why = "needs a positive type_length";
		else if (c->repetition == PQ_REPEATED ||
				 (c->is_list && c->element_repetition == PQ_REPEATED))
			why = "cannot be REPEATED (use is_list)";
		else if (!encoding_fits(c))
			why = "cannot use that encoding with its physical type";
		else
			why = check_logical(c);
		if (why != NULL)
		{
			pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "column %d (%s) %s", i,
						 c->name ? c->name : "?", why);
			err->column = i;
			return err->status;
		}
	}

	w = alloc->alloc(alloc->ctx, sizeof(PqWriter));
	if (w == NULL)
	{
		pq_error_oom(err);
		return err->status;
	}
	memset(w, 0, sizeof(*w));
	w->alloc = *alloc;
	w->sink = *sink;
	w->options = *options;
	if (w->options.page_row_limit == 0)
		w->options.page_row_limit = DEFAULT_PAGE_ROWS;
	if (w->options.dictionary_max_entries == 0)
		w->options.dictionary_max_entries = DEFAULT_DICT_ENTRIES;
	if (w->options.dictionary_max_bytes == 0)
		w->options.dictionary_max_bytes = DEFAULT_DICT_BYTES;
	if (w->options.created_by == NULL)
		w->options.created_by = "parquet_fdw writer";
	pq_thrift_writer_init(&w->tw);
	w->tw.grow = pq_thrift_grow;
	w->tw.grow_ctx = w;
	w->current = -1;
	*writer = w;

	w->columns = wr_alloc(w, (size_t) num_columns * sizeof(WColumn));
	if (w->columns == NULL)
	{
		pq_error_oom(err);
		return err->status;
	}
	memset(w->columns, 0, (size_t) num_columns * sizeof(WColumn));
	w->num_columns = num_columns;
	{
		const char *why = check_groups(groups, num_groups, w->columns, num_columns,
									   columns, &w->alloc);

		if (why != NULL)
		{
			pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "invalid schema: %s", why);
			return err->status;
		}
	}
	if (num_groups > 0)
	{
		w->groups = wr_alloc(w, (size_t) num_groups * sizeof(PqWriteGroup));
		if (w->groups == NULL)
		{
			pq_error_oom(err);
			return err->status;
		}
		memset(w->groups, 0, (size_t) num_groups * sizeof(PqWriteGroup));
		w->num_groups = num_groups;
		for (int g = 0; g < num_groups; g++)
		{
			w->groups[g] = groups[g];
			w->groups[g].name = wr_strdup(w, groups[g].name ? groups[g].name : "element");
			if (w->groups[g].name == NULL)
			{
				pq_error_oom(err);
				return err->status;
			}
		}
	}
	for (int i = 0; i < num_columns; i++)
	{
		WColumn    *c = &w->columns[i];

		c->def = columns[i];
		c->def.name = wr_strdup(w, columns[i].name);
		if (c->def.name == NULL)
		{
			pq_error_oom(err);
			return err->status;
		}
		c->def.parent = c->depth > 0 ? c->chain[c->depth - 1] : -1;
		c->max_def = chain_def(w, c);
		c->max_rep = chain_rep(w, c);
		c->width = physical_width(&c->def);
		c->order = stat_order(&c->def);
	}
	return sink_write(w, "PAR1", 4, err);
}

/*
 * Whether a dictionary pays off for this chunk, decided on its first batch
 * before any page is written: the batch's values go into the dictionary
 * (the pages find them there), and when they hold more distinct values
 * than dictionary_max_ratio of the values, or overflow the dictionary's
 * limits, the dictionary is dropped and the whole chunk is PLAIN.  A
 * dictionary whose entries are used a few times each costs its page plus
 * an index per value, and the indexes compress worse than the values
 * (sorted keys, prices, comments); a chunk that starts with a dictionary
 * and overflows it later would hold both.
 */
static PqStatus
dictionary_decide(PqWriter *w, const WColumn *col, const PqColumnBatch *batch,
				  bool flat, PqError *err)
{
	ChunkState *cs = &w->chunk;
	size_t		n = flat ? batch->num_rows : batch->num_values;
	size_t		used = 0;
	bool		full = false;
	double		limit = w->options.dictionary_max_ratio * (double) n;
	PageValues	pv = {0};
	uint32_t   *decided;

	if (!cs->dict_active || cs->num_pages > 0 || cs->dict_count > 0 ||
		n == 0 || batch->values == NULL || !(w->options.dictionary_max_ratio > 0.0) ||
		w->options.dictionary_max_ratio >= 1.0)
		return PQ_OK;
	cs->decided.len = 0;
	cs->decided_pos = 0;
	if (!buf_reserve(w, &cs->decided, n * sizeof(uint32_t)))
	{
		pq_error_oom(err);
		return err->status;
	}
	decided = (uint32_t *) cs->decided.data;
	pv.width = col->width;
	pv.count = n;
	if (col->width > 0)
		pv.fixed = batch->values;
	else
		pv.views = batch->values;
	/* past limit distinct values the ratio cannot come back under it */
	for (size_t i0 = 0; i0 < n && !full && (double) cs->dict_count <= limit;
		 i0 += DICT_BLOCK)
	{
		uint64_t	hashes[DICT_BLOCK];
		size_t		m = n - i0 < DICT_BLOCK ? n - i0 : DICT_BLOCK;

		if (flat && batch->is_null != NULL)
		{
			/* the values of NULL rows are not read */
			for (size_t j = 0; j < m; j++)
				if (!batch->is_null[i0 + j])
					dict_hash_block(cs, &pv, i0 + j, 1, &hashes[j]);
		}
		else
			dict_hash_block(cs, &pv, i0, m, hashes);
		for (size_t j = 0; j < m && !full && (double) cs->dict_count <= limit; j++)
		{
			const uint8_t *p;
			uint32_t	len;
			uint32_t	index;

			if (flat && batch->is_null != NULL && batch->is_null[i0 + j])
				continue;
			value_at(&pv, i0 + j, &p, &len);
			if (!dict_lookup_add(w, col, cs, p, len, hashes[j], &index, &full))
			{
				pq_error_oom(err);
				return err->status;
			}
			decided[used++] = index;
		}
	}
	if (full || (double) cs->dict_count > limit ||
		(double) cs->dict_count > w->options.dictionary_max_ratio * (double) used)
	{
		cs->dict_active = false;
		cs->dict_count = 0;
		cs->dict_plain.len = 0;
		if (cs->hash_slots != NULL)
			memset(cs->hash_slots, 0, (size_t) cs->hash_size * sizeof(uint64_t));
	}
	else
		cs->decided.len = used * sizeof(uint32_t);
	return PQ_OK;
}

PqStatus
pq_writer_write_column(PqWriter *w, int column, const PqColumnBatch *batch,
					   PqError *err)
{
	const WColumn *col;
	PqStatus	st;
	PageValues	pv = {0};
	uint32_t	page_rows;

	pq_error_clear(err);
	if (w == NULL || batch == NULL || w->failed || w->closed ||
		column < 0 || column >= w->num_columns)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "invalid arguments to pq_writer_write_column");
		return err->status;
	}
	if (w->in_row_group && column < w->current)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
					 "column %d written after column %d of the same row group",
					 column, w->current);
		return err->status;
	}
	if (!w->in_row_group && (st = begin_row_group(w, err)) != PQ_OK)
		return st;
	if ((st = advance_to(w, column, err)) != PQ_OK)
		return st;
	col = &w->columns[column];
	pv.width = col->width;
	page_rows = w->options.page_row_limit;
	if ((st = dictionary_decide(w, col, batch, col->max_rep == 0 && col->depth == 0,
								err)) != PQ_OK)
		return st;

	if (col->max_rep == 0 && col->depth == 0)
	{
		/* flat: rows are level entries; gather non-null values densely */
		uint32_t	n = batch->num_rows;
		const bool *isnull = batch->is_null;
		size_t		vsize = col->width > 0 ? (size_t) col->width : sizeof(CdcByteView);
		int16_t    *def = NULL;

		if (n > 0 && batch->values == NULL)
		{
			pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "batch without values");
			return err->status;
		}
		if (isnull != NULL && col->max_def == 0)
		{
			for (uint32_t i = 0; i < n; i++)
				if (isnull[i])
				{
					pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
								 "NULL in REQUIRED column %s (row %u)", col->def.name, i);
					err->column = column;
					return err->status;
				}
			isnull = NULL;
		}
		for (uint32_t r0 = 0; r0 < n;)
		{
			uint32_t	r1 = n - r0 < page_rows ? n : r0 + page_rows;
			const uint8_t *vals = (const uint8_t *) batch->values + (size_t) r0 * vsize;
			size_t		cnt = 0;

			if (col->max_def > 0)
			{
				w->gather_buf.len = 0;
				if (!buf_reserve(w, &w->gather_buf,
								 (size_t) (r1 - r0) * (vsize + sizeof(int16_t))))
				{
					pq_error_oom(err);
					return err->status;
				}
				def = (int16_t *) w->gather_buf.data;
				if (isnull != NULL)
				{
					/* dense copy after the levels, 8-byte aligned */
					size_t		lbytes = ((size_t) (r1 - r0) * sizeof(int16_t) + 7) & ~(size_t) 7;
					uint8_t    *dense;

					if (!buf_reserve(w, &w->gather_buf, lbytes + (size_t) (r1 - r0) * vsize))
					{
					pq_error_oom(err);
						return err->status;
					}
					def = (int16_t *) w->gather_buf.data;
					dense = w->gather_buf.data + lbytes;
					for (uint32_t i = r0; i < r1; i++)
					{
						def[i - r0] = isnull[i] ? 0 : 1;
						if (!isnull[i])
							memcpy(dense + cnt++ * vsize,
								   (const uint8_t *) batch->values + (size_t) i * vsize, vsize);
					}
					vals = dense;
				}
				else
				{
					for (uint32_t i = r0; i < r1; i++)
						def[i - r0] = 1;
					cnt = r1 - r0;
				}
			}
			else
				cnt = r1 - r0;
			pv.count = cnt;
			if (col->width > 0)
				pv.fixed = vals;
			else
				pv.views = (const CdcByteView *) vals;
			st = write_data_page(w, col, def, NULL, r1 - r0, &pv, r1 - r0, err);
			if (st != PQ_OK)
				return st;
			r0 = r1;
		}
		w->chunk.num_rows += n;
		return PQ_OK;
	}

	/* list or nested column: check the levels, then cut pages at row starts */
	{
		uint32_t	nlev = batch->num_levels;
		const int16_t *def = batch->def_levels;
		const int16_t *rep = batch->rep_levels;
		uint32_t	rows = 0,
					values = 0;
		size_t		vsize = col->width > 0 ? (size_t) col->width : sizeof(CdcByteView);
		uint32_t	l0 = 0,
					v0 = 0;

		if (nlev > 0 && ((rep == NULL && col->max_rep > 0) ||
						 (col->max_def > 0 && def == NULL)))
		{
			pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "list batch without levels");
			return err->status;
		}
		for (uint32_t i = 0; i < nlev; i++)
		{
			int16_t		d = def ? def[i] : 0;
			int16_t		r = rep ? rep[i] : 0;

			if (r < 0 || r > col->max_rep || d < 0 || d > col->max_def ||
				(i == 0 && r != 0))
			{
				pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
							 "level entry %u out of range (def %d, rep %d)", i, d, r);
				return err->status;
			}
			rows += r == 0;
			values += d == col->max_def;
		}
		if (rows != batch->num_rows || values != batch->num_values)
		{
			pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
						 "levels give %u rows and %u values, batch says %u and %u",
						 rows, values, batch->num_rows, batch->num_values);
			return err->status;
		}
		if (values > 0 && batch->values == NULL)
		{
			pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "batch without values");
			return err->status;
		}
		while (l0 < nlev)
		{
			uint32_t	l1 = l0,
						prow = 0,
						pvals = 0;

			while (l1 < nlev && !((rep ? rep[l1] : 0) == 0 && prow == page_rows))
			{
				prow += (rep ? rep[l1] : 0) == 0;
				pvals += (def ? def[l1] : 0) == col->max_def;
				l1++;
			}
			pv.count = pvals;
			if (col->width > 0)
				pv.fixed = (const uint8_t *) batch->values + (size_t) v0 * vsize;
			else
				pv.views = (const CdcByteView *) batch->values + v0;
			/* no repetition levels are stored where no LIST is above */
			st = write_data_page(w, col, def ? def + l0 : NULL,
								 rep && col->max_rep > 0 ? rep + l0 : NULL,
								 l1 - l0, &pv, prow, err);
			if (st != PQ_OK)
				return st;
			l0 = l1;
			v0 += pvals;
		}
		w->chunk.num_rows += rows;
	}
	return PQ_OK;
}

PqStatus
pq_writer_end_row_group(PqWriter *w, PqError *err)
{
	RowGroupMeta *rg;
	PqStatus	st;

	pq_error_clear(err);
	if (w == NULL || w->failed || w->closed)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "invalid arguments to pq_writer_end_row_group");
		return err->status;
	}
	if (!w->in_row_group && (st = begin_row_group(w, err)) != PQ_OK)
		return st;

	if ((st = advance_to(w, w->num_columns - 1, err)) != PQ_OK)
		return st;
	if ((st = chunk_flush(w, w->num_columns - 1, err)) != PQ_OK)
	{
		w->failed = true;
		return st;
	}
	for (int c = 1; c < w->num_columns; c++)
		if (w->pending[c].num_rows != w->pending[0].num_rows)
		{
			w->failed = true;
			pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
						 "column %d has %lld rows, column 0 has %lld", c,
						 (long long) w->pending[c].num_rows,
						 (long long) w->pending[0].num_rows);
			err->column = c;
			return err->status;
		}

	if (w->num_row_groups == w->row_groups_cap)
	{
		int			ncap = w->row_groups_cap == 0 ? 8 : w->row_groups_cap * 2;
		RowGroupMeta *n = wr_alloc(w, (size_t) ncap * sizeof(RowGroupMeta));

		if (n == NULL)
		{
			pq_error_oom(err);
			return err->status;
		}
		if (w->num_row_groups > 0)
			memcpy(n, w->row_groups, (size_t) w->num_row_groups * sizeof(RowGroupMeta));
		wr_release(w, w->row_groups);
		w->row_groups = n;
		w->row_groups_cap = ncap;
	}
	rg = &w->row_groups[w->num_row_groups++];
	rg->num_rows = w->pending[0].num_rows;
	rg->chunks = w->pending;
	w->pending = NULL;
	w->in_row_group = false;
	w->current = -1;
	return PQ_OK;
}

/* ----------------------------------------------------------------
 * Footer
 * ----------------------------------------------------------------
 */
static void
write_time_unit(PqThriftWriter *tw, PqTimeUnit unit)
{
	tw_struct_begin(tw, 2);
	tw_empty_struct(tw, unit == PQ_UNIT_MILLIS ? 1 : unit == PQ_UNIT_MICROS ? 2 : 3);
	pq_thrift_write_struct_end(tw);
}

/* SchemaElement.logicalType (field 10) and the matching converted_type. */
static void
write_leaf_annotation(PqThriftWriter *tw, const PqWriteColumn *c)
{
	const PqLogicalType *lt = &c->logical;
	int32_t		converted = -1;

	switch (lt->kind)
	{
		case PQ_LT_STRING:
			converted = PQ_CT_UTF8;
			break;
		case PQ_LT_ENUM:
			converted = PQ_CT_ENUM;
			break;
		case PQ_LT_JSON:
			converted = PQ_CT_JSON;
			break;
		case PQ_LT_BSON:
			converted = PQ_CT_BSON;
			break;
		case PQ_LT_DECIMAL:
			converted = PQ_CT_DECIMAL;
			break;
		case PQ_LT_DATE:
			converted = PQ_CT_DATE;
			break;
		case PQ_LT_INTERVAL:
			converted = PQ_CT_INTERVAL;
			break;
		case PQ_LT_TIME:
			/* the legacy types mean UTC-adjusted; NANOS has none */
			if (lt->utc_adjusted && lt->unit != PQ_UNIT_NANOS)
				converted = lt->unit == PQ_UNIT_MILLIS ? PQ_CT_TIME_MILLIS : PQ_CT_TIME_MICROS;
			break;
		case PQ_LT_TIMESTAMP:
			if (lt->utc_adjusted && lt->unit != PQ_UNIT_NANOS)
				converted = lt->unit == PQ_UNIT_MILLIS ? PQ_CT_TIMESTAMP_MILLIS :
					PQ_CT_TIMESTAMP_MICROS;
			break;
		case PQ_LT_INTEGER:
			switch (lt->bit_width)
			{
				case 8:
					converted = lt->is_signed ? PQ_CT_INT_8 : PQ_CT_UINT_8;
					break;
				case 16:
					converted = lt->is_signed ? PQ_CT_INT_16 : PQ_CT_UINT_16;
					break;
				case 32:
					converted = lt->is_signed ? PQ_CT_INT_32 : PQ_CT_UINT_32;
					break;
				default:
					converted = lt->is_signed ? PQ_CT_INT_64 : PQ_CT_UINT_64;
					break;
			}
			break;
		default:
			break;
	}
	if (converted >= 0)
		tw_i32(tw, 6, converted);
	if (lt->kind == PQ_LT_DECIMAL)
	{
		tw_i32(tw, 7, lt->scale);
		tw_i32(tw, 8, lt->precision);
	}
	if (c->field_id >= 0 && !c->is_list)
		tw_i32(tw, 9, c->field_id);
	if (lt->kind == PQ_LT_NONE || lt->kind == PQ_LT_INTERVAL)
		return;

	tw_struct_begin(tw, 10);
	switch (lt->kind)
	{
		case PQ_LT_STRING:
			tw_empty_struct(tw, 1);
			break;
		case PQ_LT_ENUM:
			tw_empty_struct(tw, 4);
			break;
		case PQ_LT_DECIMAL:
			tw_struct_begin(tw, 5);
			tw_i32(tw, 1, lt->scale);
			tw_i32(tw, 2, lt->precision);
			pq_thrift_write_struct_end(tw);
			break;
		case PQ_LT_DATE:
			tw_empty_struct(tw, 6);
			break;
		case PQ_LT_TIME:
		case PQ_LT_TIMESTAMP:
			tw_struct_begin(tw, lt->kind == PQ_LT_TIME ? 7 : 8);
			pq_thrift_write_bool_field(tw, 1, lt->utc_adjusted);
			write_time_unit(tw, lt->unit);
			pq_thrift_write_struct_end(tw);
			break;
		case PQ_LT_INTEGER:
			tw_struct_begin(tw, 10);
			pq_thrift_write_field(tw, 1, PQ_THRIFT_I8);
			pq_thrift_write_i8(tw, lt->bit_width);
			pq_thrift_write_bool_field(tw, 2, lt->is_signed);
			pq_thrift_write_struct_end(tw);
			break;
		case PQ_LT_NULL:
			tw_empty_struct(tw, 11);
			break;
		case PQ_LT_JSON:
			tw_empty_struct(tw, 12);
			break;
		case PQ_LT_BSON:
			tw_empty_struct(tw, 13);
			break;
		case PQ_LT_UUID:
			tw_empty_struct(tw, 14);
			break;
		case PQ_LT_FLOAT16:
			tw_empty_struct(tw, 15);
			break;
		default:
			break;
	}
	pq_thrift_write_struct_end(tw);
}

/* Whether a node (group g, or the leaf when g < 0) is a LIST's element. */
static bool
is_list_element(const PqWriter *w, int32_t parent)
{
	return parent >= 0 && w->groups[parent].kind == PQ_GROUP_LIST;
}

/* The schema elements of a LIST's outer group and its repeated "list". */
static void
write_list_groups(PqThriftWriter *tw, PqRepetition repetition, const char *name,
				  int32_t field_id)
{
	pq_thrift_write_struct_begin(tw);
	tw_i32(tw, 3, repetition);
	tw_string(tw, 4, name);
	tw_i32(tw, 5, 1);
	tw_i32(tw, 6, PQ_CT_LIST);
	if (field_id >= 0)
		tw_i32(tw, 9, field_id);
	tw_struct_begin(tw, 10);
	tw_empty_struct(tw, 3);
	pq_thrift_write_struct_end(tw);
	pq_thrift_write_struct_end(tw);

	pq_thrift_write_struct_begin(tw);
	tw_i32(tw, 3, PQ_REPEATED);
	tw_string(tw, 4, "list");
	tw_i32(tw, 5, 1);
	pq_thrift_write_struct_end(tw);
}

/* Children of group g (or of the root, g < 0) counted in leaf order. */
static int32_t
count_children(const PqWriter *w, int32_t g)
{
	int32_t		n = 0;
	int32_t		last = INT32_MIN;

	for (int i = 0; i < w->num_columns; i++)
	{
		const WColumn *c = &w->columns[i];
		int			k = 0;
		int32_t		child;

		if (g >= 0)
		{
			while (k < c->depth && c->chain[k] != g)
				k++;
			if (k == c->depth)
				continue;
			k++;
		}
		child = k < c->depth ? c->chain[k] : ~i;
		if (child != last)
			n++;
		last = child;
	}
	return n;
}

static void
write_schema(PqThriftWriter *tw, const PqWriter *w)
{
	int			elements = 1;
	int			prev_depth = 0;
	const int32_t *prev_chain = NULL;

	for (int i = 0; i < w->num_columns; i++)
		elements += w->columns[i].def.is_list ? 3 : 1;
	for (int g = 0; g < w->num_groups; g++)
		elements += w->groups[g].kind == PQ_GROUP_LIST ? 2 : 1;
	pq_thrift_write_field(tw, 2, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(tw, PQ_THRIFT_STRUCT, (uint32_t) elements);

	pq_thrift_write_struct_begin(tw);
	tw_string(tw, 4, "schema");
	tw_i32(tw, 5, count_children(w, -1));
	pq_thrift_write_struct_end(tw);

	/* preorder: the groups a leaf enters, then the leaf */
	for (int i = 0; i < w->num_columns; i++)
	{
		const WColumn *col = &w->columns[i];
		const PqWriteColumn *c = &col->def;
		PqRepetition leaf_rep = c->repetition;
		int			common = 0;
		bool		element = is_list_element(w, c->parent);

		while (common < col->depth && common < prev_depth &&
			   col->chain[common] == prev_chain[common])
			common++;
		for (int k = common; k < col->depth; k++)
		{
			const PqWriteGroup *g = &w->groups[col->chain[k]];
			const char *name = is_list_element(w, g->parent) ? "element" : g->name;

			if (g->kind == PQ_GROUP_LIST)
				write_list_groups(tw, g->repetition, name, g->field_id);
			else
			{
				pq_thrift_write_struct_begin(tw);
				tw_i32(tw, 3, g->repetition);
				tw_string(tw, 4, name);
				tw_i32(tw, 5, count_children(w, col->chain[k]));
				if (g->field_id >= 0)
					tw_i32(tw, 9, g->field_id);
				pq_thrift_write_struct_end(tw);
			}
		}
		prev_depth = col->depth;
		prev_chain = col->chain;

		if (c->is_list)
		{
			write_list_groups(tw, c->repetition, element ? "element" : c->name,
							  c->field_id);
			leaf_rep = c->element_repetition;
		}
		pq_thrift_write_struct_begin(tw);
		tw_i32(tw, 1, c->physical);
		if (c->physical == PQ_FIXED_LEN_BYTE_ARRAY)
			tw_i32(tw, 2, c->type_length);
		tw_i32(tw, 3, leaf_rep);
		tw_string(tw, 4, c->is_list || element ? "element" : c->name);
		write_leaf_annotation(tw, c);
		pq_thrift_write_struct_end(tw);
	}
}

/* path_in_schema of a leaf: group names (LIST adds "list"), then its own. */
static void
write_leaf_path(PqThriftWriter *tw, const PqWriter *w, const WColumn *col)
{
	uint32_t	n = 1 + (col->def.is_list ? 2 : 0);

	for (int k = 0; k < col->depth; k++)
		n += w->groups[col->chain[k]].kind == PQ_GROUP_LIST ? 2 : 1;
	pq_thrift_write_list_begin(tw, PQ_THRIFT_BINARY, n);
	for (int k = 0; k < col->depth; k++)
	{
		const PqWriteGroup *g = &w->groups[col->chain[k]];
		const char *name = is_list_element(w, g->parent) ? "element" : g->name;

		pq_thrift_write_binary(tw, name, (uint32_t) strlen(name));
		if (g->kind == PQ_GROUP_LIST)
			pq_thrift_write_binary(tw, "list", 4);
	}
	{
		const char *name = is_list_element(w, col->def.parent) ? "element" : col->def.name;

		pq_thrift_write_binary(tw, name, (uint32_t) strlen(name));
	}
	if (col->def.is_list)
	{
		pq_thrift_write_binary(tw, "list", 4);
		pq_thrift_write_binary(tw, "element", 7);
	}
}

static void
write_column_chunk(PqThriftWriter *tw, const PqWriter *w, const WColumn *col,
				   const ChunkMeta *cm, int32_t codec, bool write_statistics)
{
	int32_t		encodings[16];
	int			nenc = 0;
	int64_t		start = cm->dictionary_page_offset >= 0 ?
		cm->dictionary_page_offset : cm->data_page_offset;

	for (int e = 0; e < 16; e++)
		if ((cm->enc_mask & (1u << e)) || (e == ENC_RLE && cm->has_levels))
			encodings[nenc++] = e;

	pq_thrift_write_struct_begin(tw);
	tw_i64(tw, 2, start);		/* file_offset: deprecated, the chunk's start */
	tw_struct_begin(tw, 3);
	tw_i32(tw, 1, col->def.physical);
	pq_thrift_write_field(tw, 2, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(tw, PQ_THRIFT_I32, (uint32_t) nenc);
	for (int e = 0; e < nenc; e++)
		pq_thrift_write_i32(tw, encodings[e]);
	pq_thrift_write_field(tw, 3, PQ_THRIFT_LIST);
	write_leaf_path(tw, w, col);
	tw_i32(tw, 4, codec);
	tw_i64(tw, 5, cm->num_values);
	tw_i64(tw, 6, cm->total_uncompressed);
	tw_i64(tw, 7, cm->total_compressed);
	tw_i64(tw, 9, cm->data_page_offset);
	if (cm->dictionary_page_offset >= 0)
		tw_i64(tw, 11, cm->dictionary_page_offset);
	if (write_statistics)
	{
		tw_struct_begin(tw, 12);
		tw_i64(tw, 3, cm->null_count);
		if (cm->has_max)
			tw_binary(tw, 5, cm->max, cm->max_len);
		if (cm->has_min)
			tw_binary(tw, 6, cm->min, cm->min_len);
		if (cm->has_max)
			pq_thrift_write_bool_field(tw, 7, cm->max_exact);
		if (cm->has_min)
			pq_thrift_write_bool_field(tw, 8, cm->min_exact);
		pq_thrift_write_struct_end(tw);
	}
	if (cm->bloom_total > 0)
	{
		tw_i64(tw, 14, cm->bloom_offset);
		tw_i32(tw, 15, cm->bloom_total);
	}
	pq_thrift_write_struct_end(tw);	/* ColumnMetaData */
	if (cm->offset_index_length > 0)
	{
		tw_i64(tw, 4, cm->offset_index_offset);
		tw_i32(tw, 5, cm->offset_index_length);
	}
	if (cm->has_column_index && cm->column_index_length > 0)
	{
		tw_i64(tw, 6, cm->column_index_offset);
		tw_i32(tw, 7, cm->column_index_length);
	}
	pq_thrift_write_struct_end(tw);	/* ColumnChunk */
}

/* Whether the non-null pages' bounds never decrease (or never increase). */
static PqBoundaryOrderValue
boundary_order(const WColumn *col, const ChunkMeta *cm)
{
	bool		asc = true,
				desc = true;
	const PageRec *prev = NULL;

	for (int i = 0; i < cm->num_page_recs; i++)
	{
		const PageRec *r = &cm->page_recs[i];

		if (r->null_page)
			continue;
		if (prev != NULL)
		{
			int			cmin = cmp_values(col->order, cm->page_bounds + r->min_off, r->min_len,
										  cm->page_bounds + prev->min_off, prev->min_len);
			int			cmax = cmp_values(col->order, cm->page_bounds + r->max_off, r->max_len,
										  cm->page_bounds + prev->max_off, prev->max_len);

			if (cmin < 0 || cmax < 0)
				asc = false;
			if (cmin > 0 || cmax > 0)
				desc = false;
		}
		prev = r;
	}
	return asc ? BOUNDARY_ASCENDING : desc ? BOUNDARY_DESCENDING : BOUNDARY_UNORDERED;
}

/* Write one Thrift structure built in w->tw to the sink; its place in *off, *len. */
static PqStatus
flush_struct(PqWriter *w, int64_t *off, int32_t *len, PqError *err)
{
	if (w->tw.failed || w->tw.len > INT32_MAX)
	{
		pq_error_oom(err);
		return err->status;
	}
	*off = (int64_t) w->offset;
	*len = (int32_t) w->tw.len;
	return sink_write(w, w->tw.buf, w->tw.len, err);
}

/* BloomFilterHeader and bitset of every chunk that has one. */
static PqStatus
write_bloom_filters(PqWriter *w, PqError *err)
{
	PqThriftWriter *tw = &w->tw;
	PqStatus	st;

	for (int g = 0; g < w->num_row_groups; g++)
		for (int c = 0; c < w->num_columns; c++)
		{
			ChunkMeta  *cm = &w->row_groups[g].chunks[c];
			int32_t		header_len = 0;

			if (cm->bloom == NULL)
				continue;
			pq_thrift_writer_reset(tw);
			pq_thrift_write_struct_begin(tw);
			tw_i32(tw, 1, (int32_t) cm->bloom_len);
			tw_struct_begin(tw, 2);
			tw_empty_struct(tw, 1);		/* SPLIT BLOCK */
			pq_thrift_write_struct_end(tw);
			tw_struct_begin(tw, 3);
			tw_empty_struct(tw, 1);		/* XXHASH */
			pq_thrift_write_struct_end(tw);
			tw_struct_begin(tw, 4);
			tw_empty_struct(tw, 1);		/* UNCOMPRESSED */
			pq_thrift_write_struct_end(tw);
			pq_thrift_write_struct_end(tw);
			if ((st = flush_struct(w, &cm->bloom_offset, &header_len, err)) != PQ_OK ||
				(st = sink_write(w, cm->bloom, cm->bloom_len, err)) != PQ_OK)
				return st;
			cm->bloom_total = header_len + (int32_t) cm->bloom_len;
		}
	return PQ_OK;
}

/* ColumnIndex of every chunk that has one, then every OffsetIndex. */
static PqStatus
write_page_indexes(PqWriter *w, PqError *err)
{
	PqThriftWriter *tw = &w->tw;
	PqStatus	st;

	for (int g = 0; g < w->num_row_groups; g++)
		for (int c = 0; c < w->num_columns; c++)
		{
			ChunkMeta  *cm = &w->row_groups[g].chunks[c];

			if (!cm->has_column_index || cm->num_page_recs == 0)
				continue;
			pq_thrift_writer_reset(tw);
			pq_thrift_write_struct_begin(tw);
			pq_thrift_write_field(tw, 1, PQ_THRIFT_LIST);
			pq_thrift_write_list_begin(tw, PQ_THRIFT_BOOL_TRUE, (uint32_t) cm->num_page_recs);
			for (int i = 0; i < cm->num_page_recs; i++)
				pq_thrift_write_bool_elem(tw, cm->page_recs[i].null_page);
			for (int16_t fid = 2; fid <= 3; fid++)
			{
				pq_thrift_write_field(tw, fid, PQ_THRIFT_LIST);
				pq_thrift_write_list_begin(tw, PQ_THRIFT_BINARY, (uint32_t) cm->num_page_recs);
				for (int i = 0; i < cm->num_page_recs; i++)
				{
					const PageRec *r = &cm->page_recs[i];

					if (fid == 2)
						pq_thrift_write_binary(tw, cm->page_bounds + r->min_off, r->min_len);
					else
						pq_thrift_write_binary(tw, cm->page_bounds + r->max_off, r->max_len);
				}
			}
			tw_i32(tw, 4, boundary_order(&w->columns[c], cm));
			pq_thrift_write_field(tw, 5, PQ_THRIFT_LIST);
			pq_thrift_write_list_begin(tw, PQ_THRIFT_I64, (uint32_t) cm->num_page_recs);
			for (int i = 0; i < cm->num_page_recs; i++)
				pq_thrift_write_i64(tw, cm->page_recs[i].null_count);
			pq_thrift_write_struct_end(tw);
			if ((st = flush_struct(w, &cm->column_index_offset, &cm->column_index_length,
								   err)) != PQ_OK)
				return st;
		}
	for (int g = 0; g < w->num_row_groups; g++)
		for (int c = 0; c < w->num_columns; c++)
		{
			ChunkMeta  *cm = &w->row_groups[g].chunks[c];

			if (cm->num_page_recs == 0)
				continue;
			pq_thrift_writer_reset(tw);
			pq_thrift_write_struct_begin(tw);
			pq_thrift_write_field(tw, 1, PQ_THRIFT_LIST);
			pq_thrift_write_list_begin(tw, PQ_THRIFT_STRUCT, (uint32_t) cm->num_page_recs);
			for (int i = 0; i < cm->num_page_recs; i++)
			{
				pq_thrift_write_struct_begin(tw);
				tw_i64(tw, 1, cm->page_recs[i].offset);
				tw_i32(tw, 2, cm->page_recs[i].size);
				tw_i64(tw, 3, cm->page_recs[i].first_row);
				pq_thrift_write_struct_end(tw);
			}
			pq_thrift_write_struct_end(tw);
			if ((st = flush_struct(w, &cm->offset_index_offset, &cm->offset_index_length,
								   err)) != PQ_OK)
				return st;
		}
	return PQ_OK;
}

PqStatus
pq_writer_close(PqWriter *w, PqError *err)
{
	PqThriftWriter *tw;
	int64_t		total_rows = 0;
	uint8_t		tail[8];
	uint32_t	footer_len;
	PqStatus	st;

	pq_error_clear(err);
	if (w == NULL || w->failed || w->closed)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "invalid arguments to pq_writer_close");
		return err->status;
	}
	if (w->in_row_group && (st = pq_writer_end_row_group(w, err)) != PQ_OK)
		return st;
	if ((st = write_bloom_filters(w, err)) != PQ_OK)
		return st;
	if (w->options.write_page_index && (st = write_page_indexes(w, err)) != PQ_OK)
		return st;

	tw = &w->tw;
	pq_thrift_writer_reset(tw);
	pq_thrift_write_struct_begin(tw);
	tw_i32(tw, 1, w->options.data_page_v2 ? 2 : 1);
	write_schema(tw, w);
	for (int g = 0; g < w->num_row_groups; g++)
		total_rows += w->row_groups[g].num_rows;
	tw_i64(tw, 3, total_rows);

	pq_thrift_write_field(tw, 4, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(tw, PQ_THRIFT_STRUCT, (uint32_t) w->num_row_groups);
	for (int g = 0; g < w->num_row_groups; g++)
	{
		const RowGroupMeta *rg = &w->row_groups[g];
		int64_t		bytes = 0,
					compressed = 0;
		int64_t		first = rg->chunks[0].dictionary_page_offset >= 0 ?
			rg->chunks[0].dictionary_page_offset : rg->chunks[0].data_page_offset;

		pq_thrift_write_struct_begin(tw);
		pq_thrift_write_field(tw, 1, PQ_THRIFT_LIST);
		pq_thrift_write_list_begin(tw, PQ_THRIFT_STRUCT, (uint32_t) w->num_columns);
		for (int c = 0; c < w->num_columns; c++)
		{
			write_column_chunk(tw, w, &w->columns[c], &rg->chunks[c], w->options.codec,
							   w->options.write_statistics);
			bytes += rg->chunks[c].total_uncompressed;
			compressed += rg->chunks[c].total_compressed;
		}
		tw_i64(tw, 2, bytes);
		tw_i64(tw, 3, rg->num_rows);
		if (w->options.num_sorting_columns > 0)
		{
			pq_thrift_write_field(tw, 4, PQ_THRIFT_LIST);
			pq_thrift_write_list_begin(tw, PQ_THRIFT_STRUCT,
									   (uint32_t) w->options.num_sorting_columns);
			for (int k = 0; k < w->options.num_sorting_columns; k++)
			{
				const PqWriteSortingColumn *sc = &w->options.sorting_columns[k];

				pq_thrift_write_struct_begin(tw);
				tw_i32(tw, 1, sc->column);
				pq_thrift_write_bool_field(tw, 2, sc->descending);
				pq_thrift_write_bool_field(tw, 3, sc->nulls_first);
				pq_thrift_write_struct_end(tw);
			}
		}
		tw_i64(tw, 5, first);
		tw_i64(tw, 6, compressed);
		pq_thrift_write_field(tw, 7, PQ_THRIFT_I16);
		pq_thrift_write_i32(tw, g);	/* i16 and i32 share the zigzag varint */
		pq_thrift_write_struct_end(tw);
	}

	if (w->options.num_key_values > 0)
	{
		pq_thrift_write_field(tw, 5, PQ_THRIFT_LIST);
		pq_thrift_write_list_begin(tw, PQ_THRIFT_STRUCT, (uint32_t) w->options.num_key_values);
		for (int k = 0; k < w->options.num_key_values; k++)
		{
			const PqKeyValue *kv = &w->options.key_values[k];

			pq_thrift_write_struct_begin(tw);
			tw_string(tw, 1, kv->key);
			if (kv->value != NULL)
				tw_binary(tw, 2, kv->value, kv->value_len);
			pq_thrift_write_struct_end(tw);
		}
	}
	tw_string(tw, 6, w->options.created_by);

	pq_thrift_write_field(tw, 7, PQ_THRIFT_LIST);
	pq_thrift_write_list_begin(tw, PQ_THRIFT_STRUCT, (uint32_t) w->num_columns);
	for (int c = 0; c < w->num_columns; c++)
	{
		pq_thrift_write_struct_begin(tw);
		tw_empty_struct(tw, 1);		/* TYPE_DEFINED_ORDER */
		pq_thrift_write_struct_end(tw);
	}
	pq_thrift_write_struct_end(tw);
	if (tw->failed || tw->len > UINT32_MAX)
	{
		pq_error_oom(err);
		return err->status;
	}

	footer_len = (uint32_t) tw->len;
	memcpy(tail, &footer_len, 4);
	memcpy(tail + 4, "PAR1", 4);
	if ((st = sink_write(w, tw->buf, tw->len, err)) != PQ_OK ||
		(st = sink_write(w, tail, 8, err)) != PQ_OK)
		return st;
	w->closed = true;
	return PQ_OK;
}

static void
free_chunk_meta(PqWriter *w, ChunkMeta *chunks, int n)
{
	if (chunks == NULL)
		return;
	for (int c = 0; c < n; c++)
	{
		wr_release(w, chunks[c].min);
		wr_release(w, chunks[c].max);
		wr_release(w, chunks[c].page_recs);
		wr_release(w, chunks[c].page_bounds);
		wr_release(w, chunks[c].bloom);
	}
	wr_release(w, chunks);
}

void
pq_writer_free(PqWriter *w)
{
	ChunkState *cs;

	if (w == NULL)
		return;
	cs = &w->chunk;
	for (int g = 0; g < w->num_row_groups; g++)
		free_chunk_meta(w, w->row_groups[g].chunks, w->num_columns);
	wr_release(w, w->row_groups);
	free_chunk_meta(w, w->pending, w->num_columns);
	buf_free(w, &cs->pages);
	buf_free(w, &cs->dict_plain);
	buf_free(w, &cs->min);
	buf_free(w, &cs->max);
	buf_free(w, &cs->page_recs);
	buf_free(w, &cs->page_bounds);
	wr_release(w, cs->bloom);
	wr_release(w, cs->dict_off);
	wr_release(w, cs->dict_len);
	wr_release(w, cs->hash_slots);
	buf_free(w, &cs->decided);
	buf_free(w, &w->levels_buf);
	buf_free(w, &w->values_buf);
	buf_free(w, &w->body_buf);
	buf_free(w, &w->comp_buf);
	buf_free(w, &w->gather_buf);
	buf_free(w, &w->u32_buf);
	buf_free(w, &w->idx_buf);
	pq_thrift_writer_free(&w->tw);
	if (w->columns != NULL)
	{
		for (int c = 0; c < w->num_columns; c++)
			wr_release(w, (void *) w->columns[c].def.name);
		wr_release(w, w->columns);
	}
	if (w->groups != NULL)
	{
		for (int g = 0; g < w->num_groups; g++)
			wr_release(w, (void *) w->groups[g].name);
		wr_release(w, w->groups);
	}
	wr_release(w, w);
}

/* ----------------------------------------------------------------
 * List levels from offsets
 * ----------------------------------------------------------------
 */
size_t
pq_list_level_count(const int64_t *offsets, uint32_t num_rows)
{
	size_t		n = 0;

	for (uint32_t r = 0; r < num_rows; r++)
	{
		int64_t		len = offsets[r + 1] - offsets[r];

		n += len > 0 ? (size_t) len : 1;
	}
	return n;
}

PqStatus
pq_list_levels(const PqWriteColumn *column, uint32_t num_rows,
			   const int64_t *offsets, const bool *list_is_null,
			   const bool *element_is_null, int16_t *def_levels,
			   int16_t *rep_levels, int64_t *value_index,
			   uint32_t *num_values, PqError *err)
{
	int16_t		list_opt = column->repetition == PQ_OPTIONAL;
	int16_t		max_def = pq_write_column_max_def(column);
	size_t		k = 0;
	uint32_t	nv = 0;

	pq_error_clear(err);
	if (!column->is_list || offsets == NULL || def_levels == NULL || rep_levels == NULL)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "invalid arguments to pq_list_levels");
		return err->status;
	}
	for (uint32_t r = 0; r < num_rows; r++)
	{
		int64_t		b = offsets[r],
					e = offsets[r + 1];

		if (e < b || (list_is_null && list_is_null[r] && e != b))
		{
			pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "bad offsets for row %u", r);
			return err->status;
		}
		if (list_is_null && list_is_null[r])
		{
			if (!list_opt)
			{
				pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
							 "NULL list in REQUIRED column %s (row %u)", column->name, r);
				return err->status;
			}
			def_levels[k] = 0;
			rep_levels[k] = 0;
			if (value_index)
				value_index[k] = -1;
			k++;
			continue;
		}
		if (e == b)
		{
			/* empty list: defined up to the list, no repeated entry */
			def_levels[k] = list_opt;
			rep_levels[k] = 0;
			if (value_index)
				value_index[k] = -1;
			k++;
			continue;
		}
		for (int64_t i = b; i < e; i++)
		{
			bool		null_elem = element_is_null && element_is_null[i];

			if (null_elem && column->element_repetition != PQ_OPTIONAL)
			{
				pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
							 "NULL element in REQUIRED list elements of %s (row %u)",
							 column->name, r);
				return err->status;
			}
			def_levels[k] = null_elem ? max_def - 1 : max_def;
			rep_levels[k] = i == b ? 0 : 1;
			if (value_index)
				value_index[k] = null_elem ? -1 : i;
			nv += !null_elem;
			k++;
		}
	}
	*num_values = nv;
	return PQ_OK;
}
