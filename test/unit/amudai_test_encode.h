/*-------------------------------------------------------------------------
 *
 * amudai_test_encode.h
 *	  A test-only encoder of Amudai value sections: any cascade the format
 *	  allows, from a small spec string, so the unit tests can write (through
 *	  AmWriterOptions.section_hook) the encodings the reference writes and
 *	  writer.c never does.
 *
 * Spec grammar: name [ "(" spec [ "," spec ] ")" ], where "raw" as a child
 * means "not cascading" (raw values) and a missing child means raw too.
 * Numeric names and their children (format notes 4.2; the reference's
 * encoder of each is in rust/amudai-encodings/src/encodings/numeric/, file
 * named on the right; its framing in primitive_block_encoder.rs):
 *	plain, single                      plain.rs, single_value.rs
 *	flbitpack                          bitpacking.rs (unsigned only)
 *	ffor, for(deltas)                  frame_of_reference.rs
 *	delta(differences)                 delta.rs
 *	rle(values, lengths)               run_length.rs
 *	trunc8|trunc16|trunc32|trunc64(c)  truncation.rs (signed, never wider)
 *	zigzag(c)                          zigzag.rs (signed only)
 *	alprd(left codes, right parts)     alprd.rs (floats; left defaults to
 *	                                   plain, right to flbitpack)
 *	dict(codes, dictionary)            dictionary.rs (codes required)
 *	sparse(positions, values)          sparse.rs
 *	zstd, lz4                          generic.rs
 * Binary names (4.3; encodings/binary/, binary_block_encoder.rs):
 *	plain, single                      plain.rs, single_value.rs
 *	dict(codes, lengths)               dictionary.rs
 *	zstd(offsets), lz4(offsets)        generic.rs, offsets.rs
 *
 * Layouts are written here from docs/amudai-format.md, not from
 * src/amudai/; only the bit packers, the ALPRD split search and the
 * compressors come from the codec and compress layers, which have tests of
 * their own.
 *
 * IDENTIFICATION
 *	  test/unit/amudai_test_encode.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef AMUDAI_TEST_ENCODE_H
#define AMUDAI_TEST_ENCODE_H

#include "amudai_test_util.h"

#include "codec/alp.h"
#include "codec/fastlanes.h"
#include "compress/compress.h"

/* Why the last te_* call failed (a spec that does not fit the data). */
static char te_error[160];

static inline size_t
te_size(AmNumType t)
{
	return am_num_type_size(t);
}

static inline bool
te_signed(AmNumType t)
{
	return t == AM_NUM_I8 || t == AM_NUM_I16 || t == AM_NUM_I32 || t == AM_NUM_I64;
}

static inline bool
te_float(AmNumType t)
{
	return t == AM_NUM_F32 || t == AM_NUM_F64;
}

static inline AmNumType
te_unsigned_of(size_t size)
{
	return size == 1 ? AM_NUM_U8 : size == 2 ? AM_NUM_U16 :
		size == 4 ? AM_NUM_U32 : AM_NUM_U64;
}

static inline uint64_t
te_mask(size_t size)
{
	return size >= 8 ? UINT64_MAX : ((uint64_t) 1 << (size * 8)) - 1;
}

/* Canonical 64-bit form of a T value: sign-extended if signed, else masked. */
static inline uint64_t
te_norm(AmNumType t, uint64_t x)
{
	size_t		size = te_size(t);

	x &= te_mask(size);
	if (te_signed(t) && size < 8)
	{
		unsigned	sh = (unsigned) (64 - size * 8);

		x = (uint64_t) ((int64_t) (x << sh) >> sh);
	}
	return x;
}

static inline bool
te_less(AmNumType t, uint64_t a, uint64_t b)
{
	return te_signed(t) ? (int64_t) a < (int64_t) b : a < b;
}

static inline unsigned
te_bitlen(uint64_t x)
{
	return x == 0 ? 0 : 64 - (unsigned) __builtin_clzll(x);
}

static inline void
te_put_vals(TBuf *b, AmNumType t, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tb_put(b, &v[i], te_size(t));	/* low bytes: little-endian host */
}

static inline bool
te_fail(const char *what, const char *spec)
{
	snprintf(te_error, sizeof(te_error), "%s at \"%.40s\"", what, spec);
	return false;
}

/* The name at *spec, advanced past it. */
static inline void
te_name(const char **spec, char *name, size_t cap)
{
	size_t		k = 0;

	while ((**spec >= 'a' && **spec <= 'z') || (**spec >= '0' && **spec <= '9'))
	{
		if (k + 1 < cap)
			name[k++] = **spec;
		(*spec)++;
	}
	name[k] = '\0';
}

/* Child specs: "(" opens, "," separates, ")" closes; absent = raw. */
static inline bool
te_open(const char **spec)
{
	if (**spec != '(')
		return false;
	(*spec)++;
	return true;
}

static inline bool
te_is_raw(const char *spec)
{
	return strncmp(spec, "raw", 3) == 0;
}

static inline void
te_skip(const char **spec, char c)
{
	if (**spec == c)
		(*spec)++;
}

static bool te_numeric(TBuf *b, const char **spec, AmNumType t,
					   const uint64_t *v, size_t n, const uint8_t *nulls);

/*
 * A child in an open child list: raw values (returns cascading = false) or
 * a nested section; moves past a following ',' or ')'.
 */
static inline bool
te_child(TBuf *b, const char **spec, bool have_list, AmNumType t,
		 const uint64_t *v, size_t n, bool *cascading)
{
	bool		ok = true;

	*cascading = false;
	if (!have_list || **spec == ')' || **spec == '\0' || te_is_raw(*spec))
	{
		if (have_list && te_is_raw(*spec))
			*spec += 3;
		te_put_vals(b, t, v, n);
	}
	else
	{
		*cascading = true;
		ok = te_numeric(b, spec, t, v, n, NULL);
	}
	if (have_list && **spec == ',')
		(*spec)++;
	return ok;
}

static inline void
te_close(const char **spec, bool have_list)
{
	if (have_list)
		te_skip(spec, ')');
}

/* FastLanes chunks of v (already reduced to unsigned T, width bits). */
static inline bool
te_fastlanes(TBuf *b, size_t size, const uint64_t *v, size_t n, unsigned width,
			 uint64_t reference, bool ffor)
{
	size_t		cap = cdc_fl_packed_size(n, width);
	uint8_t    *out = malloc(cap + 1);
	void	   *typed = malloc(n * size + 1);
	size_t		written = 0;
	CdcStatus	st;

	for (size_t i = 0; i < n; i++)
		memcpy((uint8_t *) typed + i * size, &v[i], size);
	switch (size)
	{
		case 1:
			st = ffor ? cdc_ffor_encode8(typed, n, (uint8_t) reference, width, out, cap, &written) :
				cdc_fl_pack8(typed, n, width, out, cap, &written);
			break;
		case 2:
			st = ffor ? cdc_ffor_encode16(typed, n, (uint16_t) reference, width, out, cap, &written) :
				cdc_fl_pack16(typed, n, width, out, cap, &written);
			break;
		case 4:
			st = ffor ? cdc_ffor_encode32(typed, n, (uint32_t) reference, width, out, cap, &written) :
				cdc_fl_pack32(typed, n, width, out, cap, &written);
			break;
		default:
			st = ffor ? cdc_ffor_encode64(typed, n, reference, width, out, cap, &written) :
				cdc_fl_pack64(typed, n, width, out, cap, &written);
			break;
	}
	if (st == CDC_OK)
		tb_put(b, out, written);
	free(out);
	free(typed);
	return st == CDC_OK && written == cap;
}

static inline bool
te_compress(TBuf *b, int kind, const uint8_t *raw, size_t len)
{
	int			codec = kind == AM_ENC_ZSTD ? CMP_ZSTD : CMP_LZ4_RAW;
	size_t		cap = cmp_compress_bound(codec, len);
	uint8_t    *out = malloc(cap + 1);
	size_t		written = 0;
	bool		ok = cmp_compress(codec, 0, raw, len, out, cap, &written) == CMP_OK;

	if (ok && kind == AM_ENC_LZ4)
		tb_u32(b, (uint32_t) len);
	if (ok)
		tb_put(b, out, written);
	free(out);
	return ok;
}

static int
te_cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* Distinct values of v (sorted) into *dict; codes[i] = 1 + index, 0 = null. */
static inline size_t
te_dictionary(const uint64_t *v, size_t n, const uint8_t *nulls,
			  uint64_t **dict, uint64_t *codes)
{
	uint64_t   *d = malloc(n * 8 + 8);
	size_t		k = 0,
				u = 0;

	for (size_t i = 0; i < n; i++)
		if (nulls == NULL || !nulls[i])
			d[k++] = v[i];
	qsort(d, k, 8, te_cmp_u64);
	for (size_t i = 0; i < k; i++)
		if (u == 0 || d[u - 1] != d[i])
			d[u++] = d[i];
	for (size_t i = 0; i < n; i++)
	{
		uint64_t   *hit;

		if (nulls != NULL && nulls[i])
		{
			codes[i] = 0;
			continue;
		}
		hit = bsearch(&v[i], d, u, 8, te_cmp_u64);
		codes[i] = (uint64_t) (hit - d) + 1;
	}
	*dict = d;
	return u;
}

/* ALPRD (13), format notes 4.2: parameters from the codec's search. */
static inline bool
te_alprd(TBuf *b, const char **spec, AmNumType t, const uint64_t *v, size_t n)
{
	bool		f64 = t == AM_NUM_F64;
	bool		list = te_open(spec);
	CdcAlprdParams p;
	uint16_t   *codes = malloc(n * 2 + 2);
	uint64_t   *right64 = malloc(n * 8 + 8);
	uint32_t   *right32 = malloc(n * 4 + 4);
	uint32_t   *pos = malloc(n * 4 + 4);
	uint16_t   *left = malloc(n * 2 + 2);
	void	   *vals = malloc(n * 8 + 8);
	uint64_t   *w = malloc(n * 8 + 8);
	size_t		exc;
	uint8_t		tmp[64];
	size_t		written;
	TBuf		lc = {0},
				rc = {0};
	bool		casc,
				ok = true;

	for (size_t i = 0; i < n; i++)
		memcpy((uint8_t *) vals + i * te_size(t), &v[i], te_size(t));
	if (f64)
	{
		cdc_alprd_choose64(vals, n, &p);
		exc = cdc_alprd_encode64(vals, n, &p, codes, right64, pos, left);
	}
	else
	{
		cdc_alprd_choose32(vals, n, &p);
		exc = cdc_alprd_encode32(vals, n, &p, codes, right32, pos, left);
	}
	if (exc > UINT16_MAX)
		ok = te_fail("more exceptions than u16 counts", *spec);
	for (size_t i = 0; i < n; i++)
		w[i] = codes[i];
	if (ok && list && **spec != ')')
	{
		ok = te_child(&lc, spec, true, AM_NUM_U16, w, n, &casc);
		if (ok && !casc)
			ok = te_fail("alprd children must cascade", *spec);
	}
	else if (ok)
	{
		const char *plain = "plain";

		ok = te_numeric(&lc, &plain, AM_NUM_U16, w, n, NULL);
	}
	for (size_t i = 0; i < n; i++)
		w[i] = f64 ? right64[i] : right32[i];
	if (ok && list && **spec != ')')
		ok = te_child(&rc, spec, true, f64 ? AM_NUM_U64 : AM_NUM_U32, w, n, &casc) && casc;
	else if (ok)
	{
		const char *fl = "flbitpack";

		ok = te_numeric(&rc, &fl, f64 ? AM_NUM_U64 : AM_NUM_U32, w, n, NULL);
	}
	te_close(spec, list);
	if (ok)
	{
		tb_u16(b, AM_ENC_ALPRD);
		tb_u32(b, (uint32_t) lc.len);
		tb_u32(b, (uint32_t) rc.len);
		tb_u16(b, (uint16_t) exc);
		tb_byte(b, p.right_bit_width);
		tb_byte(b, p.dict_len);
		tb_zeros(b, 2);			/* own 12: payload at +16 */
		ok = cdc_alprd_write_dict(&p, tmp, sizeof(tmp), &written) == CDC_OK;
		tb_put(b, tmp, written);
		tb_put(b, lc.data, lc.len);
		tb_put(b, rc.data, rc.len);
		for (size_t i = 0; i < exc; i++)
			tb_u32(b, pos[i]);
		for (size_t i = 0; i < exc; i++)
			tb_u16(b, left[i]);
	}
	tb_free(&lc);
	tb_free(&rc);
	free(codes);
	free(right64);
	free(right32);
	free(pos);
	free(left);
	free(vals);
	free(w);
	return ok;
}

/*
 * Append one numeric section for n values v (canonical T form, see
 * te_norm) of type t; nulls (may be NULL) only steer dict and sparse.
 * False (te_error says why) when the spec does not fit the values.
 */
static bool
te_numeric(TBuf *b, const char **spec, AmNumType t, const uint64_t *v,
		   size_t n, const uint8_t *nulls)
{
	const char *at = *spec;
	char		name[16];
	size_t		size = te_size(t);
	uint64_t	mn = 0,
				mx = 0;
	bool		ok = true;

	te_name(spec, name, sizeof(name));
	for (size_t i = 0; i < n; i++)
	{
		if (i == 0 || te_less(t, v[i], mn))
			mn = v[i];
		if (i == 0 || te_less(t, mx, v[i]))
			mx = v[i];
	}
	if (strcmp(name, "plain") == 0)
	{
		tb_u16(b, AM_ENC_PLAIN);
		te_put_vals(b, t, v, n);
	}
	else if (strcmp(name, "single") == 0)
	{
		for (size_t i = 1; i < n; i++)
			if (v[i] != v[0])
				return te_fail("single: values differ", at);
		tb_u16(b, AM_ENC_SINGLE_VALUE);
		if (n > 0)
			te_put_vals(b, t, v, 1);
		else
			tb_zeros(b, size);
	}
	else if (strcmp(name, "flbitpack") == 0 || strcmp(name, "ffor") == 0)
	{
		bool		ffor = name[0] == 'f' && name[1] == 'f';
		uint64_t	ref = ffor ? mn : 0;
		unsigned	width = te_bitlen((mx - ref) & te_mask(size));
		size_t		own = ffor ? size + 1 : 1;

		if (te_float(t) || (!ffor && te_signed(t)))
			return te_fail("bit packing: wrong value type", at);
		if (width == 0)
			width = 1;			/* the writer would pick SingleValue */
		tb_u16(b, (uint16_t) (ffor ? AM_ENC_FFOR : AM_ENC_FLBITPACK));
		if (ffor)
			tb_put(b, &ref, size);
		tb_byte(b, (uint8_t) width);
		tb_zeros(b, (size_t) ((2 + own + 7) / 8 * 8 - 2 - own));
		{
			uint64_t   *u = malloc(n * 8 + 8);

			for (size_t i = 0; i < n; i++)
				u[i] = v[i] & te_mask(size);
			ok = te_fastlanes(b, size, u, n, width, ref & te_mask(size), ffor);
			free(u);
		}
	}
	else if (strcmp(name, "for") == 0 || strcmp(name, "delta") == 0)
	{
		bool		is_for = name[0] == 'f';
		bool		list = te_open(spec);
		uint64_t   *d = malloc(n * 8 + 8);
		size_t		m = is_for ? n : (n > 0 ? n - 1 : 0);
		AmNumType	ct = is_for ? te_unsigned_of(size) : t;
		bool		casc;
		TBuf		child = {0};

		if (te_float(t) || (!is_for && n == 0))
		{
			free(d);
			return te_fail("for/delta: wrong value type or no values", at);
		}
		for (size_t i = 0; i < m; i++)
			d[i] = is_for ? (v[i] - mn) & te_mask(size) :
				te_norm(t, v[i + 1] - v[i]);
		ok = te_child(&child, spec, list, ct, d, m, &casc);
		te_close(spec, list);
		if (ok && !casc)
			ok = te_fail("for/delta children must cascade", at);
		tb_u16(b, (uint16_t) (is_for ? AM_ENC_FOR : AM_ENC_DELTA));
		tb_put(b, is_for ? &mn : &v[0], size);
		tb_zeros(b, (size_t) ((2 + size + 7) / 8 * 8 - 2 - size));
		tb_put(b, child.data, child.len);
		tb_free(&child);
		free(d);
	}
	else if (strcmp(name, "rle") == 0)
	{
		bool		list = te_open(spec);
		uint64_t   *rv = malloc(n * 8 + 8);
		uint64_t   *rl = malloc(n * 8 + 8);
		size_t		runs = 0;
		TBuf		vals = {0},
					lens = {0};
		bool		vc = false,
					lc = false;

		for (size_t i = 0; i < n; i++)
		{
			if (runs > 0 && rv[runs - 1] == v[i])
				rl[runs - 1]++;
			else
			{
				rv[runs] = v[i];
				rl[runs++] = 1;
			}
		}
		ok = te_child(&vals, spec, list, t, rv, runs, &vc) &&
			te_child(&lens, spec, list, AM_NUM_U32, rl, runs, &lc);
		te_close(spec, list);
		tb_u16(b, AM_ENC_RUN_LENGTH);
		tb_u32(b, (uint32_t) vals.len);
		tb_u32(b, (uint32_t) runs);
		tb_byte(b, vc);
		tb_byte(b, lc);
		tb_zeros(b, 4);			/* own 10: payload at +16 */
		tb_put(b, vals.data, vals.len);
		tb_zeros(b, (vals.len + 7) / 8 * 8 - vals.len);
		tb_put(b, lens.data, lens.len);
		tb_free(&vals);
		tb_free(&lens);
		free(rv);
		free(rl);
	}
	else if (strncmp(name, "trunc", 5) == 0 || strcmp(name, "zigzag") == 0)
	{
		bool		zz = name[0] == 'z';
		size_t		narrow = zz ? size : (size_t) atoi(name + 5) / 8;
		bool		list = te_open(spec);
		uint64_t   *u = malloc(n * 8 + 8);
		AmNumType	ct = te_unsigned_of(narrow);
		bool		casc;
		TBuf		child = {0};

		if (!te_signed(t) || narrow > size ||
			(narrow != 1 && narrow != 2 && narrow != 4 && narrow != 8))
			ok = te_fail("truncate/zigzag: signed values, no wider", at);
		for (size_t i = 0; ok && i < n; i++)
		{
			int64_t		s = (int64_t) v[i];

			if (zz)
				u[i] = ((uint64_t) s << 1 ^ (uint64_t) (s >> 63)) & te_mask(size);
			else if (te_norm(AM_NUM_I8 + 2 * (narrow == 2) + 4 * (narrow == 4) +
							 6 * (narrow == 8), v[i]) != v[i])
				ok = te_fail("truncate: value does not fit", at);
			else
				u[i] = v[i] & te_mask(narrow);
		}
		ok = ok && te_child(&child, spec, list, ct, u, n, &casc);
		te_close(spec, list);
		if (ok)
		{
			tb_u16(b, (uint16_t) (zz ? AM_ENC_ZIGZAG :
								  AM_ENC_TRUNCATE_U8 + __builtin_ctz((unsigned) narrow)));
			tb_byte(b, casc);
			tb_zeros(b, 5);
			tb_put(b, child.data, child.len);
		}
		tb_free(&child);
		free(u);
	}
	else if (strcmp(name, "alprd") == 0)
	{
		if (!te_float(t))
			return te_fail("alprd: float values only", at);
		ok = te_alprd(b, spec, t, v, n);
	}
	else if (strcmp(name, "dict") == 0)
	{
		bool		list = te_open(spec);
		uint64_t   *codes = malloc(n * 8 + 8);
		uint64_t   *dict;
		size_t		u = te_dictionary(v, n, nulls, &dict, codes);
		TBuf		cb = {0},
					db = {0};
		bool		cc = false,
					dc = false;

		ok = te_child(&cb, spec, list, AM_NUM_U32, codes, n, &cc) &&
			te_child(&db, spec, list, t, dict, u, &dc);
		te_close(spec, list);
		if (ok && !cc)
			ok = te_fail("dict: codes must cascade", at);
		tb_u16(b, AM_ENC_BLOCK_DICTIONARY);
		tb_u32(b, (uint32_t) cb.len);
		tb_u32(b, (uint32_t) u);
		tb_byte(b, dc);
		tb_zeros(b, 5);			/* own 9: payload at +16 */
		tb_put(b, cb.data, cb.len);
		tb_put(b, db.data, db.len);	/* no padding before the dictionary */
		tb_free(&cb);
		tb_free(&db);
		free(codes);
		free(dict);
	}
	else if (strcmp(name, "sparse") == 0)
	{
		bool		list = te_open(spec);
		uint64_t   *pos = malloc(n * 8 + 8);
		uint64_t   *sv = malloc(n * 8 + 8);
		size_t		k = 0;
		TBuf		pb = {0},
					vb = {0};
		bool		pc = false,
					vc = false;

		/* decode zero-fills, so only non-null, non-zero slots are listed */
		for (size_t i = 0; i < n; i++)
			if ((nulls == NULL || !nulls[i]) && v[i] != 0)
			{
				pos[k] = i;
				sv[k++] = v[i];
			}
		ok = te_child(&pb, spec, list, AM_NUM_U32, pos, k, &pc) &&
			te_child(&vb, spec, list, t, sv, k, &vc);
		te_close(spec, list);
		tb_u16(b, AM_ENC_SPARSE);
		tb_u32(b, (uint32_t) k);
		tb_u32(b, (uint32_t) pb.len);
		tb_byte(b, pc);
		tb_byte(b, vc);
		tb_zeros(b, 4);			/* own 10: payload at +16 */
		tb_put(b, pb.data, pb.len);
		tb_zeros(b, (pb.len + 7) / 8 * 8 - pb.len);
		tb_put(b, vb.data, vb.len);
		tb_free(&pb);
		tb_free(&vb);
		free(pos);
		free(sv);
	}
	else if (strcmp(name, "zstd") == 0 || strcmp(name, "lz4") == 0)
	{
		int			kind = name[0] == 'z' ? AM_ENC_ZSTD : AM_ENC_LZ4;
		TBuf		raw = {0};

		te_put_vals(&raw, t, v, n);
		tb_u16(b, (uint16_t) kind);
		tb_zeros(b, 6);
		ok = te_compress(b, kind, raw.data, raw.len);
		tb_free(&raw);
	}
	else
		return te_fail("unknown numeric encoding", at);
	return ok;
}

/*
 * Append one binary section for n values: variable size (width 0,
 * offsets[n + 1] relative to data) or fixed size width.
 */
static bool
te_binary(TBuf *b, const char **spec, uint32_t width, const uint8_t *data,
		  const uint64_t *offsets, size_t n, const uint8_t *nulls)
{
	const char *at = *spec;
	char		name[16];
	uint64_t	total = width ? (uint64_t) n * width : offsets[n];
	bool		ok = true;

	te_name(spec, name, sizeof(name));
	if (strcmp(name, "plain") == 0)
	{
		tb_u16(b, AM_ENC_PLAIN);
		tb_byte(b, width ? 0 : 8);
		for (size_t i = 0; !width && i <= n; i++)
			tb_u64(b, offsets[i]);
		tb_put(b, data, (size_t) total);
	}
	else if (strcmp(name, "single") == 0)
	{
		const uint8_t *first = NULL;
		size_t		flen = 0;

		for (size_t i = 0; i < n; i++)
		{
			const uint8_t *p = width ? data + i * width : data + offsets[i];
			size_t		len = width ? width : (size_t) (offsets[i + 1] - offsets[i]);

			if (nulls != NULL && nulls[i])
				continue;
			if (first == NULL)
			{
				first = p;
				flen = len;
			}
			else if (len != flen || memcmp(p, first, len) != 0)
				return te_fail("single: values differ", at);
		}
		if (first == NULL)
			return te_fail("single: no value", at);
		tb_u16(b, AM_ENC_SINGLE_VALUE);
		tb_put(b, first, flen);
	}
	else if (strcmp(name, "zstd") == 0 || strcmp(name, "lz4") == 0)
	{
		int			kind = name[0] == 'z' ? AM_ENC_ZSTD : AM_ENC_LZ4;
		bool		list = te_open(spec);
		size_t		start = b->len;
		size_t		size_at;
		TBuf		off = {0};
		bool		casc = false;

		/* fixed size: no offsets, a child spec is parsed and dropped */
		ok = te_child(&off, spec, list, AM_NUM_U64, offsets, n + 1, &casc);
		if (width)
		{
			off.len = 0;
			casc = false;
		}
		te_close(spec, list);
		tb_u16(b, (uint16_t) kind);
		size_at = b->len;
		tb_u32(b, 0);
		tb_byte(b, width ? 0 : 8);
		tb_byte(b, casc);
		ok = ok && te_compress(b, kind, data, (size_t) total);
		if (ok)
		{
			uint32_t	vsize = (uint32_t) (b->len - start - 8);

			memcpy(b->data + size_at, &vsize, 4);
			tb_zeros(b, (8 - (b->len - start) % 8) % 8);
			tb_put(b, off.data, off.len);
		}
		tb_free(&off);
	}
	else if (strcmp(name, "dict") == 0)
	{
		/* entries: distinct values in order of first appearance */
		bool		list = te_open(spec);
		uint64_t   *codes = malloc(n * 8 + 8);
		uint64_t   *first_of = malloc(n * 8 + 8);	/* row of entry e */
		uint64_t   *lens = malloc(n * 8 + 8);
		size_t		u = 0;
		TBuf		cb = {0},
					lb = {0};
		bool		cc,
					lc = false;

		for (size_t i = 0; i < n; i++)
		{
			const uint8_t *p = width ? data + i * width : data + offsets[i];
			size_t		len = width ? width : (size_t) (offsets[i + 1] - offsets[i]);
			size_t		e;

			codes[i] = 0;
			if (nulls != NULL && nulls[i])
				continue;
			for (e = 0; e < u; e++)
			{
				uint64_t	r = first_of[e];
				const uint8_t *q = width ? data + r * width : data + offsets[r];

				if (lens[e] == len && memcmp(p, q, len) == 0)
					break;
			}
			if (e == u)
			{
				first_of[u] = i;
				lens[u++] = len;
			}
			codes[i] = e + 1;
		}
		ok = te_child(&cb, spec, list, AM_NUM_U32, codes, n, &cc);
		if (ok && !width)
			ok = te_child(&lb, spec, list, AM_NUM_U32, lens, u, &lc);
		te_close(spec, list);
		if (ok && !cc)
			ok = te_fail("dict: codes must cascade", at);
		tb_u16(b, AM_ENC_BLOCK_DICTIONARY);
		tb_u32(b, (uint32_t) cb.len);
		tb_u32(b, (uint32_t) lb.len);
		tb_u32(b, (uint32_t) u);
		tb_byte(b, lc);
		tb_zeros(b, 1);			/* own 13: payload at +16 */
		tb_put(b, cb.data, cb.len);
		tb_zeros(b, (cb.len + 7) / 8 * 8 - cb.len);
		tb_put(b, lb.data, lb.len);
		for (size_t e = 0; e < u; e++)
		{
			uint64_t	r = first_of[e];

			tb_put(b, width ? data + r * width : data + offsets[r], (size_t) lens[e]);
		}
		tb_free(&cb);
		tb_free(&lb);
		free(codes);
		free(first_of);
		free(lens);
	}
	else
		return te_fail("unknown binary encoding", at);
	return ok;
}

#endif							/* AMUDAI_TEST_ENCODE_H */
