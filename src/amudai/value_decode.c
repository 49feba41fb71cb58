/*-------------------------------------------------------------------------
 *
 * value_decode.c
 *	  The value-encoding sections of Amudai blocks: the cascade grammar of
 *	  section 4 of the format notes, for numeric and binary streams.
 *
 * A section is [u16 kind][metadata padded so the payload starts at
 * align(2 + own_meta, 8)][payload]; numeric Plain and SingleValue have no
 * metadata (payload at +2).  A section's length always comes from its
 * parent (block header, an explicit size in the parent's metadata, or "the
 * rest"), and children are sections of their own, to any depth (bounded by
 * AM_MAX_CASCADE_DEPTH).  Layouts are the code's, not the book's; see the
 * per-encoding comments.
 *
 * Safety: every size in a section's metadata is checked against the slice
 * the section was given before anything is read; element counts of children
 * (runs, dictionary entries, sparse positions) are bounded by the parent's
 * value count, so temporaries never exceed count * 8 bytes; codes, run
 * lengths and positions are validated before they index anything.  Loops
 * then run without per-value bounds checks.
 *
 * FastLanes (FLBitPack, FFOR), ALP/ALPRD and FSST kernels come from the
 * codec layer (codec/fastlanes.h, codec/alp.h, codec/fsst.h), which
 * dispatches them per CPU.
 *
 * IDENTIFICATION
 *	  src/amudai/value_decode.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/amudai_int.h"

#include "codec/alp.h"
#include "codec/fastlanes.h"
#include "codec/fsst.h"
#include "compress/compress.h"

/* Largest decoded byte size of one binary block we materialize. */
#define AM_MAX_BLOCK_BYTES	((uint64_t) 1 << 30)

typedef struct DecodeCtx
{
	const PfcAllocator *alloc;
	AmError    *err;
} DecodeCtx;

static const uint8_t num_type_size[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};

size_t
am_num_type_size(AmNumType type)
{
	return (unsigned) type <= AM_NUM_F64 ? num_type_size[type] : 0;
}

static inline bool
type_is_signed(AmNumType t)
{
	return t == AM_NUM_I8 || t == AM_NUM_I16 || t == AM_NUM_I32 || t == AM_NUM_I64;
}

static inline bool
type_is_float(AmNumType t)
{
	return t == AM_NUM_F32 || t == AM_NUM_F64;
}

static inline AmNumType
unsigned_of_size(size_t size)
{
	return size == 1 ? AM_NUM_U8 : size == 2 ? AM_NUM_U16 :
		size == 4 ? AM_NUM_U32 : AM_NUM_U64;
}

static AmStatus
corrupt(DecodeCtx *c, const char *what, int kind)
{
	return am_fail(c->err, AM_ERR_CORRUPT, "encoding %d: %s", kind, what);
}

/* Payload of a section with own_meta metadata bytes after the kind. */
static bool
section_payload(const uint8_t *s, size_t len, size_t own_meta,
				const uint8_t **payload, size_t *payload_len)
{
	size_t		at = (size_t) am_align_up(2 + own_meta, 8);

	if (len < at)
		return false;
	*payload = s + at;
	*payload_len = len - at;
	return true;
}

static void *
tmp_alloc(DecodeCtx *c, size_t n, size_t size)
{
	uint64_t	bytes;

	if (!am_mul_ok(n, size, &bytes) || bytes > SIZE_MAX / 2)
	{
		am_fail(c->err, AM_ERR_CORRUPT, "value count too large");
		return NULL;
	}
	return am_alloc(c->alloc, (size_t) bytes, c->err);
}

static AmStatus decode_numeric(DecodeCtx *c, const uint8_t *s, size_t len,
							   AmNumType t, size_t n, void *out, int depth);

/* A child section, or raw values when not cascading. */
static AmStatus
child_or_raw(DecodeCtx *c, bool cascading, const uint8_t *p, size_t len,
			 AmNumType t, size_t n, void *out, int depth)
{
	size_t		size = am_num_type_size(t);

	if (cascading)
		return decode_numeric(c, p, len, t, n, out, depth + 1);
	if (len / size != n || len % size != 0)
		return am_fail(c->err, AM_ERR_CORRUPT,
					   "raw values: %zu bytes for %zu values of %zu bytes",
					   len, n, size);
	if (len > 0)
		memcpy(out, p, len);
	return AM_OK;
}

static AmStatus
codec_status(DecodeCtx *c, CdcStatus st, int kind)
{
	if (st == CDC_OK)
		return AM_OK;
	return am_fail(c->err, st == CDC_ERR_UNSUPPORTED ? AM_ERR_UNSUPPORTED : AM_ERR_CORRUPT,
				   "encoding %d: %s", kind, cdc_status_message(st));
}

/* Width-generic loops: instantiate BODY for the unsigned type of `size`. */
#define BY_WIDTH(size, BODY) \
	do { \
		switch (size) \
		{ \
			case 1: { typedef uint8_t T; BODY; } break; \
			case 2: { typedef uint16_t T; BODY; } break; \
			case 4: { typedef uint32_t T; BODY; } break; \
			default: { typedef uint64_t T; BODY; } break; \
		} \
	} while (0)

/*
 * FOR (3): reference T at +2; child(unsigned T) of n deltas.
 * Delta (5): base T at +2; child(T) of n - 1 differences.
 */
static AmStatus
decode_for_delta(DecodeCtx *c, int kind, const uint8_t *s, size_t len,
				 AmNumType t, size_t n, void *out, int depth)
{
	size_t		size = am_num_type_size(t);
	const uint8_t *payload;
	size_t		plen;
	uint64_t	ref = 0;
	AmStatus	st;

	if (type_is_float(t))
		return corrupt(c, "not allowed for floating-point values", kind);
	if (!section_payload(s, len, size, &payload, &plen))
		return corrupt(c, "truncated metadata", kind);
	memcpy(&ref, s + 2, size);
	if (kind == AM_ENC_FOR)
	{
		if ((st = decode_numeric(c, payload, plen, unsigned_of_size(size), n,
								 out, depth + 1)) != AM_OK)
			return st;
		BY_WIDTH(size, {
			T *o = out;
			T r = (T) ref;
			for (size_t i = 0; i < n; i++)
				o[i] = (T) (o[i] + r);
		});
		return AM_OK;
	}
	if (n == 0)
		return plen == 0 ? AM_OK : corrupt(c, "differences without values", kind);
	if ((st = decode_numeric(c, payload, plen, t, n - 1,
							 (uint8_t *) out + size, depth + 1)) != AM_OK)
		return st;
	BY_WIDTH(size, {
		T *o = out;
		o[0] = (T) ref;
		for (size_t i = 1; i < n; i++)
			o[i] = (T) (o[i - 1] + o[i]);
	});
	return AM_OK;
}

/*
 * FLBitPack (2): width u8 at +2, payload at +8 (unsigned only).
 * FFOR (4): reference T at +2, width u8 at +2+size, payload after.
 */
static AmStatus
decode_fastlanes(DecodeCtx *c, int kind, const uint8_t *s, size_t len,
				 AmNumType t, size_t n, void *out)
{
	size_t		size = am_num_type_size(t);
	size_t		own = kind == AM_ENC_FFOR ? size + 1 : 1;
	const uint8_t *payload;
	size_t		plen;
	uint64_t	ref = 0;
	unsigned	width;
	CdcStatus	cst;

	if (type_is_float(t) || (kind == AM_ENC_FLBITPACK && type_is_signed(t)))
		return corrupt(c, "not allowed for this value type", kind);
	if (!section_payload(s, len, own, &payload, &plen))
		return corrupt(c, "truncated metadata", kind);
	if (kind == AM_ENC_FFOR)
		memcpy(&ref, s + 2, size);
	width = s[2 + own - 1];
	if (width > size * 8)
		return corrupt(c, "bit width larger than the value type", kind);
	switch (size)
	{
		case 1:
			cst = cdc_ffor_decode8(payload, plen, width, (uint8_t) ref, out, n);
			break;
		case 2:
			cst = cdc_ffor_decode16(payload, plen, width, (uint16_t) ref, out, n);
			break;
		case 4:
			cst = cdc_ffor_decode32(payload, plen, width, (uint32_t) ref, out, n);
			break;
		default:
			cst = cdc_ffor_decode64(payload, plen, width, ref, out, n);
			break;
	}
	return codec_status(c, cst, kind);
}

/*
 * RunLength (6): meta values_size u32, runs_count u32, values_cascading u8,
 * lengths_cascading u8; payload at +16: run values (values_size bytes), pad
 * to 8, run lengths (u32, rest).
 */
static AmStatus
decode_run_length(DecodeCtx *c, const uint8_t *s, size_t len, AmNumType t,
				  size_t n, void *out, int depth)
{
	size_t		size = am_num_type_size(t);
	const uint8_t *payload;
	size_t		plen;
	uint32_t	values_size,
				runs;
	bool		values_cascading,
				lengths_cascading;
	uint64_t	lengths_at;
	void	   *values = NULL;
	uint32_t   *lengths = NULL;
	AmStatus	st;
	uint64_t	total = 0;

	if (!section_payload(s, len, 10, &payload, &plen))
		return corrupt(c, "truncated metadata", AM_ENC_RUN_LENGTH);
	values_size = am_load_u32(s + 2);
	runs = am_load_u32(s + 6);
	values_cascading = s[10] != 0;
	lengths_cascading = s[11] != 0;
	lengths_at = am_align_up(values_size, 8);
	if (values_size > plen || lengths_at > plen)
		return corrupt(c, "run values overrun the section", AM_ENC_RUN_LENGTH);
	if (runs > n || (runs == 0 && n > 0))
		return corrupt(c, "run count does not match the value count", AM_ENC_RUN_LENGTH);
	values = tmp_alloc(c, runs, size);
	lengths = tmp_alloc(c, runs, 4);
	if (values == NULL || lengths == NULL)
	{
		st = c->err ? c->err->status : AM_ERR_IO;
		goto done;
	}
	if ((st = child_or_raw(c, values_cascading, payload, values_size, t, runs,
						   values, depth)) != AM_OK ||
		(st = child_or_raw(c, lengths_cascading, payload + lengths_at,
						   plen - (size_t) lengths_at, AM_NUM_U32, runs,
						   lengths, depth)) != AM_OK)
		goto done;
	for (uint32_t j = 0; j < runs; j++)
		total += lengths[j];
	if (total != n)
	{
		st = corrupt(c, "run lengths do not add up to the value count", AM_ENC_RUN_LENGTH);
		goto done;
	}
	BY_WIDTH(size, {
		T *o = out;
		const T *v = values;
		size_t k = 0;
		for (uint32_t j = 0; j < runs; j++)
		{
			T x = v[j];
			for (uint32_t r = 0; r < lengths[j]; r++)
				o[k++] = x;
		}
	});
done:
	am_release(c->alloc, values);
	am_release(c->alloc, lengths);
	return st;
}

/*
 * TruncateU8..U64 (8-11), signed only: cascading u8 at +2; payload at +8:
 * the low bits as an unsigned stream; decode sign-extends.
 */
static AmStatus
decode_truncate(DecodeCtx *c, int kind, const uint8_t *s, size_t len,
				AmNumType t, size_t n, void *out, int depth)
{
	size_t		size = am_num_type_size(t);
	size_t		narrow = (size_t) 1 << (kind - AM_ENC_TRUNCATE_U8);
	const uint8_t *payload;
	size_t		plen;
	void	   *tmp;
	AmStatus	st;

	if (!type_is_signed(t) || narrow > size)
		return corrupt(c, "truncation not allowed for this value type", kind);
	if (!section_payload(s, len, 1, &payload, &plen))
		return corrupt(c, "truncated metadata", kind);
	if (narrow == size)
		return child_or_raw(c, s[2] != 0, payload, plen, unsigned_of_size(size),
							n, out, depth);
	tmp = tmp_alloc(c, n, narrow);
	if (tmp == NULL)
		return c->err ? c->err->status : AM_ERR_IO;
	st = child_or_raw(c, s[2] != 0, payload, plen, unsigned_of_size(narrow), n,
					  tmp, depth);
	if (st == AM_OK)
	{
		/* widen through the signed type of the stored width */
		switch (narrow)
		{
			case 1:
				BY_WIDTH(size, {
					T *o = out;
					const int8_t *in = tmp;
					for (size_t i = 0; i < n; i++)
						o[i] = (T) (int64_t) in[i];
				});
				break;
			case 2:
				BY_WIDTH(size, {
					T *o = out;
					const int16_t *in = tmp;
					for (size_t i = 0; i < n; i++)
						o[i] = (T) (int64_t) in[i];
				});
				break;
			default:
				{
					uint64_t   *o = out;
					const int32_t *in = tmp;

					for (size_t i = 0; i < n; i++)
						o[i] = (uint64_t) (int64_t) in[i];
				}
				break;
		}
	}
	am_release(c->alloc, tmp);
	return st;
}

/* ZigZag (18), signed only: cascading u8 at +2; payload at +8. */
static AmStatus
decode_zigzag(DecodeCtx *c, const uint8_t *s, size_t len, AmNumType t,
			  size_t n, void *out, int depth)
{
	size_t		size = am_num_type_size(t);
	const uint8_t *payload;
	size_t		plen;
	AmStatus	st;

	if (!type_is_signed(t))
		return corrupt(c, "not allowed for this value type", AM_ENC_ZIGZAG);
	if (!section_payload(s, len, 1, &payload, &plen))
		return corrupt(c, "truncated metadata", AM_ENC_ZIGZAG);
	if ((st = child_or_raw(c, s[2] != 0, payload, plen, unsigned_of_size(size),
						   n, out, depth)) != AM_OK)
		return st;
	BY_WIDTH(size, {
		T *o = out;
		for (size_t i = 0; i < n; i++)
			o[i] = (T) ((o[i] >> 1) ^ (T) (0 - (o[i] & 1)));
	});
	return AM_OK;
}

/*
 * BlockDictionary (14): meta codes_size u32, unique_values_count u32,
 * values_cascading u8; payload at +16: child(u32) codes, then (no pad) the
 * dictionary.  Code 0 = null slot (zero); c >= 1 = dict[c - 1].
 */
static AmStatus
decode_block_dictionary(DecodeCtx *c, const uint8_t *s, size_t len,
						AmNumType t, size_t n, void *out, int depth)
{
	size_t		size = am_num_type_size(t);
	const uint8_t *payload;
	size_t		plen;
	uint32_t	codes_size,
				unique;
	uint32_t   *codes = NULL;
	void	   *dict = NULL;
	AmStatus	st;

	if (!section_payload(s, len, 9, &payload, &plen))
		return corrupt(c, "truncated metadata", AM_ENC_BLOCK_DICTIONARY);
	codes_size = am_load_u32(s + 2);
	unique = am_load_u32(s + 6);
	if (codes_size > plen || unique > n)
		return corrupt(c, "codes overrun the section or dictionary too large",
					   AM_ENC_BLOCK_DICTIONARY);
	/* one extra zero entry for code 0 in front of the dictionary */
	codes = tmp_alloc(c, n, 4);
	dict = tmp_alloc(c, (size_t) unique + 1, size);
	if (codes == NULL || dict == NULL)
	{
		st = c->err ? c->err->status : AM_ERR_IO;
		goto done;
	}
	memset(dict, 0, size);
	if ((st = decode_numeric(c, payload, codes_size, AM_NUM_U32, n, codes,
							 depth + 1)) != AM_OK ||
		(st = child_or_raw(c, s[10] != 0, payload + codes_size,
						   plen - codes_size, t, unique,
						   (uint8_t *) dict + size, depth)) != AM_OK)
		goto done;
	for (size_t i = 0; i < n; i++)
		if (codes[i] > unique)
		{
			st = corrupt(c, "dictionary code out of range", AM_ENC_BLOCK_DICTIONARY);
			goto done;
		}
	BY_WIDTH(size, {
		T *o = out;
		const T *d = dict;
		for (size_t i = 0; i < n; i++)
			o[i] = d[codes[i]];
	});
done:
	am_release(c->alloc, codes);
	am_release(c->alloc, dict);
	return st;
}

/*
 * Sparse (19): meta positions_count u32, positions_size u32,
 * positions_cascading u8, values_cascading u8; payload at +16: positions
 * (u32, ascending), pad to 8, values (rest).  Other slots are zero.
 */
static AmStatus
decode_sparse(DecodeCtx *c, const uint8_t *s, size_t len, AmNumType t,
			  size_t n, void *out, int depth)
{
	size_t		size = am_num_type_size(t);
	const uint8_t *payload;
	size_t		plen;
	uint32_t	count,
				positions_size;
	uint64_t	values_at;
	uint32_t   *positions = NULL;
	void	   *values = NULL;
	AmStatus	st;

	if (!section_payload(s, len, 10, &payload, &plen))
		return corrupt(c, "truncated metadata", AM_ENC_SPARSE);
	count = am_load_u32(s + 2);
	positions_size = am_load_u32(s + 6);
	values_at = am_align_up(positions_size, 8);
	if (count > n || positions_size > plen || values_at > plen)
		return corrupt(c, "positions overrun the section", AM_ENC_SPARSE);
	positions = tmp_alloc(c, count, 4);
	values = tmp_alloc(c, count, size);
	if (positions == NULL || values == NULL)
	{
		st = c->err ? c->err->status : AM_ERR_IO;
		goto done;
	}
	if ((st = child_or_raw(c, s[10] != 0, payload, positions_size, AM_NUM_U32,
						   count, positions, depth)) != AM_OK ||
		(st = child_or_raw(c, s[11] != 0, payload + values_at,
						   plen - (size_t) values_at, t, count, values,
						   depth)) != AM_OK)
		goto done;
	for (uint32_t i = 0; i < count; i++)
		if (positions[i] >= n || (i > 0 && positions[i] <= positions[i - 1]))
		{
			st = corrupt(c, "positions out of range or not ascending", AM_ENC_SPARSE);
			goto done;
		}
	memset(out, 0, n * size);
	BY_WIDTH(size, {
		T *o = out;
		const T *v = values;
		for (uint32_t i = 0; i < count; i++)
			o[positions[i]] = v[i];
	});
done:
	am_release(c->alloc, positions);
	am_release(c->alloc, values);
	return st;
}

/*
 * ZSTD (16) / LZ4 (17): 6 zero metadata bytes, payload at +8.  ZSTD: frames
 * of the raw LE bytes; LZ4: u32 uncompressed size + one raw LZ4 block.
 */
static AmStatus
decode_generic(DecodeCtx *c, int kind, const uint8_t *s, size_t len,
			   size_t n, size_t size, void *out)
{
	const uint8_t *payload;
	size_t		plen;
	CmpStatus	cst;

	if (!section_payload(s, len, 6, &payload, &plen))
		return corrupt(c, "truncated metadata", kind);
	if (kind == AM_ENC_LZ4)
	{
		if (plen < 4 || am_load_u32(payload) != (uint64_t) n * size)
			return corrupt(c, "uncompressed size does not match the value count", kind);
		cst = cmp_decompress(CMP_LZ4_RAW, payload + 4, plen - 4, out, n * size);
	}
	else
		cst = cmp_decompress(CMP_ZSTD, payload, plen, out, n * size);
	if (cst != CMP_OK)
		return am_fail(c->err, cst == CMP_ERR_NOMEM ? AM_ERR_IO : AM_ERR_CORRUPT,
					   "encoding %d: %s", kind, cmp_status_message(cst));
	return AM_OK;
}

/*
 * ALP (12): meta integers_size u32, exceptions_count u16, exponent u8,
 * factor u8; payload at +16: child(i32/i64) integers, then the exceptions.
 */
static AmStatus
decode_alp(DecodeCtx *c, const uint8_t *s, size_t len, AmNumType t, size_t n,
		   void *out, int depth)
{
	const uint8_t *payload;
	size_t		plen;
	uint32_t	ints_size;
	uint16_t	exceptions;
	unsigned	e,
				f;
	void	   *ints;
	AmStatus	st;
	CdcStatus	cst;

	if (!type_is_float(t))
		return corrupt(c, "not allowed for integer values", AM_ENC_ALP);
	if (!section_payload(s, len, 8, &payload, &plen))
		return corrupt(c, "truncated metadata", AM_ENC_ALP);
	ints_size = am_load_u32(s + 2);
	exceptions = am_load_u16(s + 6);
	e = s[8];
	f = s[9];
	if (ints_size > plen || exceptions > n)
		return corrupt(c, "integers overrun the section", AM_ENC_ALP);
	ints = tmp_alloc(c, n, am_num_type_size(t));
	if (ints == NULL)
		return c->err ? c->err->status : AM_ERR_IO;
	st = decode_numeric(c, payload, ints_size,
						t == AM_NUM_F64 ? AM_NUM_I64 : AM_NUM_I32, n, ints,
						depth + 1);
	if (st == AM_OK)
	{
		if (t == AM_NUM_F64)
			cst = cdc_alp_decode64(ints, n, e, f, payload + ints_size,
								   plen - ints_size, exceptions, out);
		else
			cst = cdc_alp_decode32(ints, n, e, f, payload + ints_size,
								   plen - ints_size, exceptions, out);
		st = codec_status(c, cst, AM_ENC_ALP);
	}
	am_release(c->alloc, ints);
	return st;
}

/*
 * ALPRD (13): meta left_parts_size u32, right_parts_size u32,
 * exceptions_count u16, right_bit_width u8, dictionary_len u8; payload at
 * +16: dictionary (u16 each), child(u16) left codes, child(u32/u64) right
 * parts, exceptions.
 */
static AmStatus
decode_alprd(DecodeCtx *c, const uint8_t *s, size_t len, AmNumType t,
			 size_t n, void *out, int depth)
{
	size_t		size = am_num_type_size(t);
	const uint8_t *payload;
	size_t		plen;
	uint32_t	left_size,
				right_size;
	uint16_t	exceptions;
	unsigned	right_width,
				dict_len;
	uint64_t	left_at,
				right_at,
				exc_at;
	uint16_t   *left = NULL;
	void	   *right = NULL;
	AmStatus	st;
	CdcStatus	cst;

	if (!type_is_float(t))
		return corrupt(c, "not allowed for integer values", AM_ENC_ALPRD);
	if (!section_payload(s, len, 12, &payload, &plen))
		return corrupt(c, "truncated metadata", AM_ENC_ALPRD);
	left_size = am_load_u32(s + 2);
	right_size = am_load_u32(s + 6);
	exceptions = am_load_u16(s + 10);
	right_width = s[12];
	dict_len = s[13];
	left_at = 2 * (uint64_t) dict_len;
	right_at = left_at + left_size;
	exc_at = right_at + right_size;
	if (dict_len > CDC_ALPRD_MAX_DICT || exc_at > plen || exceptions > n)
		return corrupt(c, "parts overrun the section", AM_ENC_ALPRD);
	left = tmp_alloc(c, n, 2);
	right = tmp_alloc(c, n, size);
	if (left == NULL || right == NULL)
	{
		st = c->err ? c->err->status : AM_ERR_IO;
		goto done;
	}
	if ((st = decode_numeric(c, payload + left_at, left_size, AM_NUM_U16, n,
							 left, depth + 1)) != AM_OK ||
		(st = decode_numeric(c, payload + right_at, right_size,
							 unsigned_of_size(size), n, right, depth + 1)) != AM_OK)
		goto done;
	if (t == AM_NUM_F64)
		cst = cdc_alprd_decode64(left, right, n, right_width, payload, dict_len,
								 payload + exc_at, plen - (size_t) exc_at,
								 exceptions, out);
	else
		cst = cdc_alprd_decode32(left, right, n, right_width, payload, dict_len,
								 payload + exc_at, plen - (size_t) exc_at,
								 exceptions, out);
	st = codec_status(c, cst, AM_ENC_ALPRD);
done:
	am_release(c->alloc, left);
	am_release(c->alloc, right);
	return st;
}

static AmStatus
decode_numeric(DecodeCtx *c, const uint8_t *s, size_t len, AmNumType t,
			   size_t n, void *out, int depth)
{
	size_t		size = am_num_type_size(t);
	int			kind;

	if (depth > AM_MAX_CASCADE_DEPTH)
		return am_fail(c->err, AM_ERR_CORRUPT, "encodings nested deeper than %d",
					   AM_MAX_CASCADE_DEPTH);
	if (len < 2)
		return am_fail(c->err, AM_ERR_CORRUPT,
					   "value section of %zu bytes has no encoding kind", len);
	kind = am_load_u16(s);
	switch (kind)
	{
		case AM_ENC_PLAIN:
			return child_or_raw(c, false, s + 2, len - 2, t, n, out, depth);
		case AM_ENC_SINGLE_VALUE:
			if (len - 2 != size)
				return corrupt(c, "single value of the wrong size", kind);
			BY_WIDTH(size, {
				T *o = out;
				T v;
				memcpy(&v, s + 2, sizeof(T));
				for (size_t i = 0; i < n; i++)
					o[i] = v;
			});
			return AM_OK;
		case AM_ENC_FLBITPACK:
		case AM_ENC_FFOR:
			return decode_fastlanes(c, kind, s, len, t, n, out);
		case AM_ENC_FOR:
		case AM_ENC_DELTA:
			return decode_for_delta(c, kind, s, len, t, n, out, depth);
		case AM_ENC_RUN_LENGTH:
			return decode_run_length(c, s, len, t, n, out, depth);
		case AM_ENC_TRUNCATE_U8:
		case AM_ENC_TRUNCATE_U16:
		case AM_ENC_TRUNCATE_U32:
		case AM_ENC_TRUNCATE_U64:
			return decode_truncate(c, kind, s, len, t, n, out, depth);
		case AM_ENC_ZIGZAG:
			return decode_zigzag(c, s, len, t, n, out, depth);
		case AM_ENC_ALP:
			return decode_alp(c, s, len, t, n, out, depth);
		case AM_ENC_ALPRD:
			return decode_alprd(c, s, len, t, n, out, depth);
		case AM_ENC_BLOCK_DICTIONARY:
			return decode_block_dictionary(c, s, len, t, n, out, depth);
		case AM_ENC_SPARSE:
			return decode_sparse(c, s, len, t, n, out, depth);
		case AM_ENC_ZSTD:
		case AM_ENC_LZ4:
			return decode_generic(c, kind, s, len, n, size, out);
		case AM_ENC_FSST:
			return corrupt(c, "FSST is not a numeric encoding", kind);
		default:
			return am_fail(c->err, AM_ERR_CORRUPT, "unknown encoding kind %d", kind);
	}
}

AmStatus
am_decode_numeric(const uint8_t *section, size_t len, AmNumType type,
				  size_t count, void *out, const PfcAllocator *alloc,
				  AmError *err)
{
	DecodeCtx	c;

	c.alloc = alloc;
	c.err = err;
	if ((unsigned) type > AM_NUM_F64 || count >= SIZE_MAX / 16)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT, "bad numeric type %d or count %zu",
					   (int) type, count);
	return decode_numeric(&c, section, len, type, count, out, 0);
}

/* ----------------------------------------------------------------
 * Binary sections
 * ----------------------------------------------------------------
 */
void
am_binary_values_free(AmBinaryValues *values, const PfcAllocator *alloc)
{
	am_release(alloc, values->offsets);
	am_release(alloc, values->owned);
	values->offsets = NULL;
	values->owned = NULL;
	values->data = NULL;
}

/* Check offsets[0..n] start at 0, never decrease and end at data_len. */
static AmStatus
check_offsets(DecodeCtx *c, const uint64_t *off, size_t n, uint64_t data_len,
			  int kind)
{
	if (off[0] != 0 || off[n] != data_len)
		return corrupt(c, "offsets do not span the value bytes", kind);
	for (size_t i = 0; i < n; i++)
		if (off[i + 1] < off[i])
			return corrupt(c, "offsets decrease", kind);
	return AM_OK;
}

/* Allocate offsets (variable size) and, if bytes >= 0, owned data. */
static AmStatus
binary_alloc(DecodeCtx *c, AmBinaryValues *out, uint64_t bytes)
{
	if (out->fixed_width == 0)
	{
		out->offsets = tmp_alloc(c, out->count + 1, 8);
		if (out->offsets == NULL)
			return c->err ? c->err->status : AM_ERR_IO;
	}
	if (bytes > AM_MAX_BLOCK_BYTES)
		return am_fail(c->err, AM_ERR_UNSUPPORTED,
					   "block of %" PRIu64 " value bytes is too large", bytes);
	out->owned = am_alloc(c->alloc, (size_t) bytes, c->err);
	if (out->owned == NULL)
		return AM_ERR_IO;
	out->data = out->owned;
	out->data_len = (size_t) bytes;
	return AM_OK;
}

/* Plain (1): [u8 offset_width]; 8: (n+1) u64 offsets then bytes; 0: fixed. */
static AmStatus
binary_plain(DecodeCtx *c, const uint8_t *s, size_t len, AmBinaryValues *out)
{
	size_t		n = out->count;
	unsigned	width;
	uint64_t	off_bytes;

	if (len < 3)
		return corrupt(c, "truncated header", AM_ENC_PLAIN);
	width = s[2];
	if (width == 0)
	{
		uint64_t	need;

		if (out->fixed_width == 0 || !am_mul_ok(n, out->fixed_width, &need) ||
			need != len - 3)
			return corrupt(c, "fixed-size values do not fill the section", AM_ENC_PLAIN);
		out->data = s + 3;
		out->data_len = len - 3;
		return AM_OK;
	}
	if (width != 8)
		return corrupt(c, "offset width is neither 0 nor 8", AM_ENC_PLAIN);
	if (!am_mul_ok(n + 1, 8, &off_bytes) || off_bytes > len - 3)
		return corrupt(c, "offsets overrun the section", AM_ENC_PLAIN);
	out->offsets = tmp_alloc(c, n + 1, 8);
	if (out->offsets == NULL)
		return c->err ? c->err->status : AM_ERR_IO;
	memcpy(out->offsets, s + 3, (size_t) off_bytes);
	out->data = s + 3 + off_bytes;
	out->data_len = len - 3 - (size_t) off_bytes;
	if (check_offsets(c, out->offsets, n, out->data_len, AM_ENC_PLAIN) != AM_OK)
		return AM_ERR_CORRUPT;
	if (out->fixed_width != 0)
	{
		/* a fixed-size stream stored with offsets: every value full width */
		for (size_t i = 0; i < n; i++)
			if (out->offsets[i + 1] - out->offsets[i] != out->fixed_width)
				return corrupt(c, "fixed-size value of the wrong length", AM_ENC_PLAIN);
		am_release(c->alloc, out->offsets);
		out->offsets = NULL;
	}
	return AM_OK;
}

/* SingleValue (7): the value is the rest; present positions get it. */
static AmStatus
binary_single(DecodeCtx *c, const uint8_t *s, size_t len,
			  const uint8_t *present, AmBinaryValues *out)
{
	size_t		n = out->count;
	size_t		vlen = len - 2;
	size_t		k = 0;
	uint64_t	total;
	AmStatus	st;

	if (out->fixed_width != 0)
	{
		if (vlen != out->fixed_width)
			return corrupt(c, "single value of the wrong size", AM_ENC_SINGLE_VALUE);
		if (!am_mul_ok(n, vlen, &total))
			return corrupt(c, "too many values", AM_ENC_SINGLE_VALUE);
		if ((st = binary_alloc(c, out, total)) != AM_OK)
			return st;
		for (size_t i = 0; i < n; i++)
			if (present == NULL || present[i])
				memcpy(out->owned + i * vlen, s + 2, vlen);
			else
				memset(out->owned + i * vlen, 0, vlen);
		return AM_OK;
	}
	for (size_t i = 0; i < n; i++)
		k += present == NULL || present[i];
	if (!am_mul_ok(k, vlen, &total))
		return corrupt(c, "too many values", AM_ENC_SINGLE_VALUE);
	if ((st = binary_alloc(c, out, total)) != AM_OK)
		return st;
	out->offsets[0] = 0;
	for (size_t i = 0, at = 0; i < n; i++)
	{
		if (present == NULL || present[i])
		{
			memcpy(out->owned + at, s + 2, vlen);
			at += vlen;
		}
		out->offsets[i + 1] = at;
	}
	return AM_OK;
}

/*
 * BlockDictionary (14): meta codes_encoded_size u32, lengths_encoded_size
 * u32, unique_values_count u32, lengths_cascading u8; payload at +16: codes
 * (child u32), pad to 8, lengths (variable size only), entry bytes.
 */
static AmStatus
binary_dictionary(DecodeCtx *c, const uint8_t *s, size_t len, int depth,
				  AmBinaryValues *out)
{
	size_t		n = out->count;
	const uint8_t *payload;
	size_t		plen;
	uint32_t	codes_size,
				lengths_size,
				unique;
	uint64_t	lengths_at,
				entries_at;
	uint32_t   *codes = NULL;
	uint64_t   *entry_off = NULL;
	uint32_t   *lengths = NULL;
	uint64_t	total = 0;
	AmStatus	st;
	const int	kind = AM_ENC_BLOCK_DICTIONARY;

	if (!section_payload(s, len, 13, &payload, &plen))
		return corrupt(c, "truncated metadata", kind);
	codes_size = am_load_u32(s + 2);
	lengths_size = am_load_u32(s + 6);
	unique = am_load_u32(s + 10);
	lengths_at = am_align_up(codes_size, 8);
	entries_at = lengths_at + (out->fixed_width ? 0 : lengths_size);
	if (codes_size > plen || entries_at > plen || unique > n)
		return corrupt(c, "codes or lengths overrun the section", kind);
	codes = tmp_alloc(c, n, 4);
	entry_off = tmp_alloc(c, (size_t) unique + 2, 8);
	if (codes == NULL || entry_off == NULL)
	{
		st = c->err ? c->err->status : AM_ERR_IO;
		goto done;
	}
	if ((st = decode_numeric(c, payload, codes_size, AM_NUM_U32, n, codes,
							 depth + 1)) != AM_OK)
		goto done;
	/* entry_off[e] .. entry_off[e + 1]: bytes of entry e - 1; entry 0 = null */
	entry_off[0] = entry_off[1] = 0;
	if (out->fixed_width)
	{
		if ((uint64_t) unique * out->fixed_width != plen - entries_at)
		{
			st = corrupt(c, "entry bytes do not match the entry count", kind);
			goto done;
		}
		for (uint32_t e = 0; e < unique; e++)
			entry_off[e + 2] = entry_off[e + 1] + out->fixed_width;
	}
	else
	{
		lengths = tmp_alloc(c, unique, 4);
		if (lengths == NULL)
		{
			st = c->err ? c->err->status : AM_ERR_IO;
			goto done;
		}
		if ((st = child_or_raw(c, s[14] != 0, payload + lengths_at, lengths_size,
							   AM_NUM_U32, unique, lengths, depth)) != AM_OK)
			goto done;
		for (uint32_t e = 0; e < unique; e++)
			entry_off[e + 2] = entry_off[e + 1] + lengths[e];
		if (entry_off[unique + 1] != plen - entries_at)
		{
			st = corrupt(c, "entry lengths do not match the entry bytes", kind);
			goto done;
		}
	}
	for (size_t i = 0; i < n; i++)
	{
		if (codes[i] > unique)
		{
			st = corrupt(c, "dictionary code out of range", kind);
			goto done;
		}
		total += entry_off[codes[i] + 1] - entry_off[codes[i]];
	}
	if (out->fixed_width)
		total = (uint64_t) n * out->fixed_width;	/* nulls get zero bytes */
	if ((st = binary_alloc(c, out, total)) != AM_OK)
		goto done;
	{
		const uint8_t *entries = payload + entries_at;
		uint64_t	at = 0;

		if (out->offsets)
			out->offsets[0] = 0;
		for (size_t i = 0; i < n; i++)
		{
			uint32_t	code = codes[i];
			uint64_t	elen = entry_off[code + 1] - entry_off[code];

			if (out->fixed_width && code == 0)
			{
				memset(out->owned + at, 0, out->fixed_width);
				elen = out->fixed_width;
			}
			else if (elen > 0)
				memcpy(out->owned + at, entries + entry_off[code], elen);
			at += elen;
			if (out->offsets)
				out->offsets[i + 1] = at;
		}
	}
done:
	am_release(c->alloc, codes);
	am_release(c->alloc, entry_off);
	am_release(c->alloc, lengths);
	return st;
}

/*
 * ZSTD (16) / LZ4 (17): meta values_size u32, offset_width u8,
 * offsets_cascading u8; payload at +8: compressed bytes, pad to 8, offsets.
 */
static AmStatus
binary_generic(DecodeCtx *c, int kind, const uint8_t *s, size_t len,
			   int depth, AmBinaryValues *out)
{
	size_t		n = out->count;
	const uint8_t *payload;
	size_t		plen;
	uint32_t	values_size;
	unsigned	width;
	uint64_t	offsets_at,
				raw_len;
	uint64_t   *offsets = NULL;
	const uint8_t *comp;
	size_t		comp_len;
	CmpStatus	cst;
	AmStatus	st;

	if (!section_payload(s, len, 6, &payload, &plen))
		return corrupt(c, "truncated metadata", kind);
	values_size = am_load_u32(s + 2);
	width = s[6];
	offsets_at = am_align_up(values_size, 8);
	if (values_size > plen || offsets_at > plen || (width != 0 && width != 8))
		return corrupt(c, "compressed bytes overrun the section", kind);
	if (width == 8)
	{
		if (out->fixed_width != 0)
			return corrupt(c, "offsets for fixed-size values", kind);
		offsets = tmp_alloc(c, n + 1, 8);
		if (offsets == NULL)
			return c->err ? c->err->status : AM_ERR_IO;
		out->offsets = offsets;
		if ((st = child_or_raw(c, s[7] != 0, payload + offsets_at,
							   plen - (size_t) offsets_at, AM_NUM_U64, n + 1,
							   offsets, depth)) != AM_OK)
			return st;
		raw_len = offsets[n];
		if ((st = check_offsets(c, offsets, n, raw_len, kind)) != AM_OK)
			return st;
	}
	else
	{
		if (out->fixed_width == 0 || plen != offsets_at)
			return corrupt(c, "variable-size values without offsets", kind);
		if (!am_mul_ok(n, out->fixed_width, &raw_len))
			return corrupt(c, "too many values", kind);
	}
	if (raw_len > AM_MAX_BLOCK_BYTES)
		return am_fail(c->err, AM_ERR_UNSUPPORTED,
					   "block of %" PRIu64 " value bytes is too large", raw_len);
	out->owned = am_alloc(c->alloc, (size_t) raw_len, c->err);
	if (out->owned == NULL)
		return AM_ERR_IO;
	out->data = out->owned;
	out->data_len = (size_t) raw_len;
	comp = payload;
	comp_len = values_size;
	if (kind == AM_ENC_LZ4)
	{
		if (comp_len < 4 || am_load_u32(comp) != raw_len)
			return corrupt(c, "uncompressed size does not match the offsets", kind);
		comp += 4;
		comp_len -= 4;
		cst = cmp_decompress(CMP_LZ4_RAW, comp, comp_len, out->owned, (size_t) raw_len);
	}
	else
		cst = cmp_decompress(CMP_ZSTD, comp, comp_len, out->owned, (size_t) raw_len);
	if (cst != CMP_OK)
		return am_fail(c->err, cst == CMP_ERR_NOMEM ? AM_ERR_IO : AM_ERR_CORRUPT,
					   "encoding %d: %s", kind, cmp_status_message(cst));
	return AM_OK;
}

/*
 * FSST (15): meta symbols_count u8, values_size u32 (unaligned),
 * offsets_cascading u8, offset_width u8; payload at +16: the symbol table
 * (symbols_count u64 symbols, then their u8 lengths), values_size bytes of
 * codes for the block's concatenated bytes, pad to 8, then the offsets of
 * the decompressed bytes (child(u64) or raw, n + 1, when offset_width 8).
 */
static AmStatus
binary_fsst(DecodeCtx *c, const uint8_t *s, size_t len, int depth,
			AmBinaryValues *out)
{
	size_t		n = out->count;
	const uint8_t *payload;
	size_t		plen;
	unsigned	symbols,
				width;
	uint32_t	values_size;
	uint64_t	codes_at,
				offsets_at,
				raw_len;
	CdcFsstTable table;
	uint8_t    *codes = NULL;
	size_t		produced = 0;
	CdcStatus	cst;
	AmStatus	st;
	const int	kind = AM_ENC_FSST;

	if (!section_payload(s, len, 7, &payload, &plen))
		return corrupt(c, "truncated metadata", kind);
	symbols = s[2];
	values_size = am_load_u32(s + 3);
	width = s[8];
	codes_at = 9 * (uint64_t) symbols;
	offsets_at = am_align_up(codes_at + values_size, 8);
	if (offsets_at > plen || (width != 0 && width != 8))
		return corrupt(c, "symbols or codes overrun the section", kind);
	if ((cst = cdc_fsst_table_parse(payload, (size_t) codes_at, symbols, &table)) != CDC_OK)
		return codec_status(c, cst, kind);
	if (width == 8)
	{
		if (out->fixed_width != 0)
			return corrupt(c, "offsets for fixed-size values", kind);
		out->offsets = tmp_alloc(c, n + 1, 8);
		if (out->offsets == NULL)
			return c->err ? c->err->status : AM_ERR_IO;
		if ((st = child_or_raw(c, s[7] != 0, payload + offsets_at,
							   plen - (size_t) offsets_at, AM_NUM_U64, n + 1,
							   out->offsets, depth)) != AM_OK)
			return st;
		raw_len = out->offsets[n];
		if ((st = check_offsets(c, out->offsets, n, raw_len, kind)) != AM_OK)
			return st;
	}
	else
	{
		if (out->fixed_width == 0 || plen != offsets_at)
			return corrupt(c, "variable-size values without offsets", kind);
		if (!am_mul_ok(n, out->fixed_width, &raw_len))
			return corrupt(c, "too many values", kind);
	}
	/* FSST output is at most 8 bytes per code */
	if (raw_len > AM_MAX_BLOCK_BYTES || raw_len > 8 * (uint64_t) values_size)
		return corrupt(c, "decompressed size impossible for the codes", kind);
	/* the decoder may read CDC_INPUT_PADDING bytes past the codes and
	 * write CDC_FSST_OUTPUT_SLACK past the output */
	codes = am_alloc(c->alloc, (size_t) values_size + CDC_INPUT_PADDING, c->err);
	out->owned = am_alloc(c->alloc, (size_t) raw_len + CDC_FSST_OUTPUT_SLACK, c->err);
	if (codes == NULL || out->owned == NULL)
	{
		am_release(c->alloc, codes);
		return AM_ERR_IO;
	}
	memcpy(codes, payload + codes_at, values_size);
	memset(codes + values_size, 0, CDC_INPUT_PADDING);
	cst = cdc_fsst_decompress(&table, codes, values_size, out->owned,
							  (size_t) raw_len, &produced);
	am_release(c->alloc, codes);
	if (cst != CDC_OK)
		return codec_status(c, cst, kind);
	if (produced != raw_len)
		return corrupt(c, "decompressed size disagrees with the offsets", kind);
	out->data = out->owned;
	out->data_len = (size_t) raw_len;
	return AM_OK;
}

AmStatus
am_decode_binary(const uint8_t *section, size_t len, size_t count,
				 uint32_t fixed_width, const uint8_t *present,
				 const PfcAllocator *alloc, AmBinaryValues *out, AmError *err)
{
	DecodeCtx	c;
	AmStatus	st;
	int			kind;

	c.alloc = alloc;
	c.err = err;
	memset(out, 0, sizeof(*out));
	out->count = count;
	out->fixed_width = fixed_width;
	if (count >= SIZE_MAX / 16)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT, "value count too large");
	if (len < 2)
		return am_fail(err, AM_ERR_CORRUPT,
					   "value section of %zu bytes has no encoding kind", len);
	kind = am_load_u16(section);
	switch (kind)
	{
		case AM_ENC_PLAIN:
			st = binary_plain(&c, section, len, out);
			break;
		case AM_ENC_SINGLE_VALUE:
			st = binary_single(&c, section, len, present, out);
			break;
		case AM_ENC_BLOCK_DICTIONARY:
			st = binary_dictionary(&c, section, len, 0, out);
			break;
		case AM_ENC_ZSTD:
		case AM_ENC_LZ4:
			st = binary_generic(&c, kind, section, len, 0, out);
			break;
		case AM_ENC_FSST:
			st = binary_fsst(&c, section, len, 0, out);
			break;
		default:
			st = am_fail(err, AM_ERR_CORRUPT,
						 "encoding %d is not a binary encoding", kind);
			break;
	}
	if (st != AM_OK)
		am_binary_values_free(out, alloc);
	return st;
}
