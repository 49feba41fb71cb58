/*-------------------------------------------------------------------------
 *
 * bench_codec.c
 *	  Throughput of the codec kernels per bit width and ISA, next to memcpy
 *	  of the same output size.
 *
 *	  bench/bin/bench_codec [-n VALUES] [-r REPS] [FILTER]
 *
 * For every row of the kernel table, every width it lists and every ISA
 * the CPU supports (once only for kernels without SIMD variants), the
 * benchmark prepares an input of n values (default 1M), runs the kernel
 * `reps` times (default 15) and keeps the best time, then does the same for
 * a memcpy of the kernel's output size between buffers of that size.  It
 * prints values per second, output GB/s (10^9 bytes of decoded output per
 * second) and the ratio to memcpy.  Each row's output is checked once
 * against a scalar-ISA run, so a fast wrong kernel cannot pass unnoticed.
 *
 * Design notes: kernels are table entries {name, widths, output value
 * size, prepare, run, has ISA variants}; adding one (delta, byte stream
 * split ...) is one prepare/run pair and one line in bench_kernels[].
 * Nothing here is built with -march=native: the kernels pick their ISA at
 * run time through cdc_set_isa().
 *
 * IDENTIFICATION
 *	  bench/bench_codec.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/codec.h"
#include "codec/alp.h"
#include "codec/chimp.h"
#include "codec/fastlanes.h"
#include "codec/fsst.h"
#include "codec/patched_bitpack.h"

/* State shared by a kernel's prepare and run functions. */
typedef struct BenchCtx
{
	size_t		n;				/* values per run */
	unsigned	width;			/* bit width (or byte width) of this row */
	uint8_t    *in;				/* encoded input */
	size_t		in_len;
	void	   *out;			/* decoded output, n + slack values */
	void	   *aux;			/* kernel-specific (dictionary, indexes) */
	uint32_t	aux_len;
	uint64_t	seed;
} BenchCtx;

typedef struct BenchKernel
{
	const char *name;
	const unsigned *widths;		/* list ending with UINT32_MAX */
	size_t		out_size;		/* bytes per decoded value (0: the width) */
	bool		isa_variants;	/* run once per supported ISA */
	void		(*prepare) (BenchCtx *ctx);
	CdcStatus	(*run) (BenchCtx *ctx);
} BenchKernel;

static uint64_t
rnd(uint64_t *s)
{
	uint64_t	x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * UINT64_C(2685821657736338717);
}

static double
now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

/* Fill ctx->in with n random values packed LSB first at ctx->width. */
static void
prepare_packed(BenchCtx *ctx, unsigned w, bool msb)
{
	uint32_t   *vals = xmalloc(ctx->n * sizeof(uint32_t));
	uint32_t	mask = w == 32 ? UINT32_MAX : (uint32_t) ((UINT64_C(1) << w) - 1);
	size_t		written;

	for (size_t i = 0; i < ctx->n; i++)
		vals[i] = (uint32_t) rnd(&ctx->seed) & mask;
	ctx->in_len = cdc_packed_size(ctx->n, w);
	ctx->in = xmalloc(ctx->in_len + CDC_INPUT_PADDING);
	memset(ctx->in + ctx->in_len, 0, CDC_INPUT_PADDING);
	if ((msb ? cdc_pack32_msb : cdc_pack32) (vals, ctx->n, w, ctx->in, ctx->in_len, &written) != CDC_OK)
		abort();
	free(vals);
}

/* ---- unpack32 / unpack64 / unpack32_msb ---- */
static void
prep_unpack(BenchCtx *ctx)
{
	prepare_packed(ctx, ctx->width, false);
}

static CdcStatus
run_unpack32(BenchCtx *ctx)
{
	return cdc_unpack32(ctx->in, ctx->in_len, ctx->width, ctx->out, ctx->n);
}

static void
prep_unpack64(BenchCtx *ctx)
{
	ctx->in_len = cdc_packed_size(ctx->n, ctx->width);
	ctx->in = xmalloc(ctx->in_len + CDC_INPUT_PADDING);
	for (size_t i = 0; i < ctx->in_len + CDC_INPUT_PADDING; i++)
		ctx->in[i] = (uint8_t) rnd(&ctx->seed);
}

static CdcStatus
run_unpack64(BenchCtx *ctx)
{
	return cdc_unpack64(ctx->in, ctx->in_len, ctx->width, ctx->out, ctx->n);
}

static void
prep_unpack_msb(BenchCtx *ctx)
{
	prepare_packed(ctx, ctx->width, true);
}

static CdcStatus
run_unpack32_msb(BenchCtx *ctx)
{
	return cdc_unpack32_msb(ctx->in, ctx->in_len, ctx->width, ctx->out, ctx->n);
}

/* ---- RLE hybrid: dictionary indexes, as literal runs or mixed runs ---- */
static void
prep_rle_common(BenchCtx *ctx, unsigned mean_run)
{
	uint32_t   *vals = xmalloc(ctx->n * sizeof(uint32_t));
	unsigned	w = ctx->width;
	uint32_t	mask = w == 32 ? UINT32_MAX : (uint32_t) ((UINT64_C(1) << w) - 1);
	size_t		cap = cdc_rle_max_size(ctx->n, w);
	size_t		i = 0;

	while (i < ctx->n)
	{
		size_t		len = mean_run <= 1 ? 1 : 1 + rnd(&ctx->seed) % (2 * mean_run);
		uint32_t	v = (uint32_t) rnd(&ctx->seed) & mask;

		for (size_t k = 0; k < len && i < ctx->n; k++)
			vals[i++] = v;
	}
	ctx->in = xmalloc(cap + CDC_INPUT_PADDING);
	if (cdc_rle_encode(vals, ctx->n, w, ctx->in, cap, &ctx->in_len) != CDC_OK)
		abort();
	memset(ctx->in + ctx->in_len, 0, CDC_INPUT_PADDING);
	free(vals);
}

static void
prep_rle_literal(BenchCtx *ctx)
{
	prep_rle_common(ctx, 1);
}

static void
prep_rle_runs(BenchCtx *ctx)
{
	prep_rle_common(ctx, 16);
}

static CdcStatus
run_rle(BenchCtx *ctx)
{
	CdcRleDecoder dec;
	CdcStatus	st = cdc_rle_init(&dec, ctx->in, ctx->in_len, ctx->width);

	return st != CDC_OK ? st : cdc_rle_decode(&dec, ctx->out, ctx->n);
}

/* Levels: decode in 1024-value batches into int16, as a column reader does. */
static CdcStatus
run_rle16(BenchCtx *ctx)
{
	CdcRleDecoder dec;
	CdcStatus	st = cdc_rle_init(&dec, ctx->in, ctx->in_len, ctx->width);
	int16_t    *out = ctx->out;

	for (size_t i = 0; i < ctx->n && st == CDC_OK; i += 1024)
		st = cdc_rle_decode16(&dec, out + i, ctx->n - i < 1024 ? ctx->n - i : 1024);
	return st;
}

/* ---- PLAIN booleans ---- */
static void
prep_bool(BenchCtx *ctx)
{
	prepare_packed(ctx, 1, false);
}

static CdcStatus
run_bool(BenchCtx *ctx)
{
	size_t		consumed;

	return cdc_plain_bool_decode(ctx->in, ctx->in_len, ctx->out, ctx->n, &consumed);
}

/* ---- dictionary gathers: dictionary of 2^width entries ---- */
static void
prep_dict(BenchCtx *ctx)
{
	uint32_t   *idx = xmalloc(ctx->n * sizeof(uint32_t));
	uint64_t   *dict;

	ctx->aux_len = 1u << ctx->width;
	dict = xmalloc(ctx->aux_len * sizeof(uint64_t));
	for (uint32_t i = 0; i < ctx->aux_len; i++)
		dict[i] = rnd(&ctx->seed);
	for (size_t i = 0; i < ctx->n; i++)
		idx[i] = (uint32_t) rnd(&ctx->seed) & (ctx->aux_len - 1);
	ctx->in = (uint8_t *) idx;
	ctx->in_len = ctx->n * sizeof(uint32_t);
	ctx->aux = dict;
}

static CdcStatus
run_gather32(BenchCtx *ctx)
{
	return cdc_dict_gather32(ctx->aux, ctx->aux_len, (const uint32_t *) ctx->in,
							 ctx->out, ctx->n);
}

static CdcStatus
run_gather64(BenchCtx *ctx)
{
	return cdc_dict_gather64(ctx->aux, ctx->aux_len, (const uint32_t *) ctx->in,
							 ctx->out, ctx->n);
}

static CdcStatus
run_max(BenchCtx *ctx)
{
	volatile uint32_t m = cdc_max_u32((const uint32_t *) ctx->in, ctx->n);

	(void) m;
	return CDC_OK;
}

/* ---- lightweight encodings (fastlanes.h, alp.h, fsst.h, chimp.h, ...) ----
 *
 * For the float rows the width column is the number of decimals of the
 * data: 2 = money-like (cents), 3 = sensor-like (a smooth signal). */

/* One allocation (main frees ctx->aux): parameters, then the arrays. */
typedef struct LwAux
{
	CdcAlpParams alp;
	CdcAlprdParams rd;
	uint8_t		rd_dict[16];
	uint64_t	ref;
	unsigned	fwidth;			/* FFOR width of the ALP integers */
	size_t		exc;
	size_t		packed_len;		/* FFOR bytes at the start of ctx->in */
	int64_t    *ints;			/* n values (scratch for the decode) */
	uint16_t   *codes;
	uint64_t   *rights;
	CdcFsstTable fsst;
} LwAux;

static LwAux *
lw_aux(BenchCtx *ctx)
{
	LwAux	   *a = xmalloc(sizeof(LwAux) + ctx->n * (8 + 2 + 8) + 64);

	memset(a, 0, sizeof(LwAux));
	a->ints = (int64_t *) (a + 1);
	a->rights = (uint64_t *) (a->ints + ctx->n);
	a->codes = (uint16_t *) (a->rights + ctx->n);
	ctx->aux = a;
	return a;
}

static void
prep_ffor_common(BenchCtx *ctx, unsigned bits)
{
	size_t		esize = bits / 8;
	uint8_t    *vals = xmalloc(ctx->n * esize);
	uint64_t	ref = 123456789;
	size_t		written;
	CdcStatus	st;

	for (size_t i = 0; i < ctx->n; i++)
	{
		uint64_t	v = ref + (ctx->width == 64 ? rnd(&ctx->seed) :
							   rnd(&ctx->seed) & ((UINT64_C(1) << ctx->width) - 1));

		memcpy(vals + i * esize, &v, esize);
	}
	ctx->in_len = cdc_fl_packed_size(ctx->n, ctx->width);
	ctx->in = xmalloc(ctx->in_len + CDC_INPUT_PADDING);
	ctx->aux_len = (uint32_t) ref;
	if (bits == 8)
		st = cdc_ffor_encode8(vals, ctx->n, (uint8_t) ref, ctx->width, ctx->in, ctx->in_len, &written);
	else if (bits == 16)
		st = cdc_ffor_encode16((uint16_t *) vals, ctx->n, (uint16_t) ref, ctx->width, ctx->in, ctx->in_len, &written);
	else if (bits == 32)
		st = cdc_ffor_encode32((uint32_t *) vals, ctx->n, (uint32_t) ref, ctx->width, ctx->in, ctx->in_len, &written);
	else
		st = cdc_ffor_encode64((uint64_t *) vals, ctx->n, ref, ctx->width, ctx->in, ctx->in_len, &written);
	if (st != CDC_OK)
		abort();
	free(vals);
}

static void
prep_ffor8(BenchCtx *ctx)
{
	prep_ffor_common(ctx, 8);
}

static void
prep_ffor16(BenchCtx *ctx)
{
	prep_ffor_common(ctx, 16);
}

static void
prep_ffor32(BenchCtx *ctx)
{
	prep_ffor_common(ctx, 32);
}

static void
prep_ffor64(BenchCtx *ctx)
{
	prep_ffor_common(ctx, 64);
}

static CdcStatus
run_ffor8(BenchCtx *ctx)
{
	return cdc_ffor_decode8(ctx->in, ctx->in_len, ctx->width, (uint8_t) ctx->aux_len, ctx->out, ctx->n);
}

static CdcStatus
run_ffor16(BenchCtx *ctx)
{
	return cdc_ffor_decode16(ctx->in, ctx->in_len, ctx->width, (uint16_t) ctx->aux_len, ctx->out, ctx->n);
}

static CdcStatus
run_ffor32(BenchCtx *ctx)
{
	return cdc_ffor_decode32(ctx->in, ctx->in_len, ctx->width, ctx->aux_len, ctx->out, ctx->n);
}

static CdcStatus
run_ffor64(BenchCtx *ctx)
{
	return cdc_ffor_decode64(ctx->in, ctx->in_len, ctx->width, ctx->aux_len, ctx->out, ctx->n);
}

/* Doubles with `decimals` decimals: 2 = prices in cents, 3 = a smooth
 * sensor signal; both as the nearest double to the decimal text. */
static double *
make_decimals(BenchCtx *ctx)
{
	double	   *v = xmalloc(ctx->n * sizeof(double));
	double		level = 20.0;

	for (size_t i = 0; i < ctx->n; i++)
	{
		if (ctx->width == 2)
			v[i] = (double) (int64_t) (rnd(&ctx->seed) % 1000000) / 100.0;
		else
		{
			level += ((double) (rnd(&ctx->seed) % 1001) - 500.0) / 100000.0;
			v[i] = (double) (int64_t) (level * 1000.0 + 0.5) / 1000.0;
		}
	}
	return v;
}

/* ALP with FFOR-packed integers, decoded as the Amudai cascade would be. */
static void
prep_alp_ffor(BenchCtx *ctx)
{
	LwAux	   *a = lw_aux(ctx);
	double	   *v = make_decimals(ctx);
	uint32_t   *pos = xmalloc(ctx->n * 4);
	double	   *excv = xmalloc(ctx->n * 8);
	int64_t		ref;
	size_t		written;

	cdc_alp_choose64(v, ctx->n, &a->alp);
	a->exc = cdc_alp_encode64(v, ctx->n, a->alp, a->ints, pos, excv);
	cdc_ffor_analyze_i64(a->ints, ctx->n, &ref, &a->fwidth);
	a->ref = (uint64_t) ref;
	a->packed_len = cdc_fl_packed_size(ctx->n, a->fwidth);
	ctx->in_len = a->packed_len + a->exc * 12;
	ctx->in = xmalloc(ctx->in_len + CDC_INPUT_PADDING);
	if (cdc_ffor_encode64((uint64_t *) a->ints, ctx->n, a->ref, a->fwidth, ctx->in,
						  a->packed_len, &written) != CDC_OK ||
		cdc_alp_write_exceptions64(pos, excv, a->exc, ctx->in + a->packed_len,
								   a->exc * 12, &written) != CDC_OK)
		abort();
	free(v);
	free(pos);
	free(excv);
}

static CdcStatus
run_alp_ffor(BenchCtx *ctx)
{
	LwAux	   *a = ctx->aux;
	CdcStatus	st;

	st = cdc_ffor_decode64(ctx->in, a->packed_len, a->fwidth, a->ref,
						   (uint64_t *) a->ints, ctx->n);
	if (st != CDC_OK)
		return st;
	return cdc_alp_decode64(a->ints, ctx->n, a->alp.exponent, a->alp.factor,
							ctx->in + a->packed_len, a->exc * 12, (uint32_t) a->exc,
							ctx->out);
}

static CdcStatus
run_alp_fused(BenchCtx *ctx)
{
	LwAux	   *a = ctx->aux;

	return cdc_alp_ffor_decode64(ctx->in, a->packed_len, a->fwidth, a->ref, ctx->n,
								 a->alp.exponent, a->alp.factor, ctx->in + a->packed_len,
								 a->exc * 12, (uint32_t) a->exc, ctx->out);
}

/* ALPRD on full-precision doubles in [1, 16); the decode of the kernel
 * itself (children already decoded). */
static void
prep_alprd(BenchCtx *ctx)
{
	LwAux	   *a = lw_aux(ctx);
	double	   *v = xmalloc(ctx->n * sizeof(double));
	uint32_t   *pos = xmalloc(ctx->n * 4);
	uint16_t   *left = xmalloc(ctx->n * 2);
	size_t		written;

	for (size_t i = 0; i < ctx->n; i++)
		v[i] = 1.0 + (double) (rnd(&ctx->seed) >> 11) / 9007199254740992.0 * 15.0;
	cdc_alprd_choose64(v, ctx->n, &a->rd);
	a->exc = cdc_alprd_encode64(v, ctx->n, &a->rd, a->codes, a->rights, pos, left);
	cdc_alprd_write_dict(&a->rd, a->rd_dict, sizeof(a->rd_dict), &written);
	ctx->in_len = a->exc * 6;
	ctx->in = xmalloc(ctx->in_len + CDC_INPUT_PADDING);
	cdc_alprd_write_exceptions(pos, left, a->exc, ctx->in, ctx->in_len, &written);
	free(v);
	free(pos);
	free(left);
}

static CdcStatus
run_alprd(BenchCtx *ctx)
{
	LwAux	   *a = ctx->aux;

	return cdc_alprd_decode64(a->codes, a->rights, ctx->n, a->rd.right_bit_width,
							  a->rd_dict, a->rd.dict_len, ctx->in, ctx->in_len,
							  (uint32_t) a->exc, ctx->out);
}

static void
prep_chimp(BenchCtx *ctx)
{
	double	   *v = make_decimals(ctx);
	size_t		cap = cdc_chimp_max_size64(ctx->n);

	ctx->in = xmalloc(cap + CDC_INPUT_PADDING);
	if (cdc_chimp_encode64(v, ctx->n, ctx->in, cap, &ctx->in_len) != CDC_OK)
		abort();
	free(v);
}

static CdcStatus
run_chimp(BenchCtx *ctx)
{
	size_t		consumed;

	return cdc_chimp_decode64(ctx->in, ctx->in_len, ctx->out, ctx->n, &consumed);
}

/* Values of `width` bits with 1 % random 64-bit outliers. */
static void
prep_pfor(BenchCtx *ctx)
{
	uint64_t   *v = xmalloc(ctx->n * 8);
	size_t		cap = cdc_pfor_max_size64(ctx->n);

	for (size_t i = 0; i < ctx->n; i++)
		v[i] = (i % 100 == 7) ? rnd(&ctx->seed) :
			rnd(&ctx->seed) & ((UINT64_C(1) << ctx->width) - 1);
	ctx->in = xmalloc(cap + CDC_INPUT_PADDING);
	if (cdc_pfor_encode64(v, ctx->n, ctx->in, cap, &ctx->in_len) != CDC_OK)
		abort();
	free(v);
}

static CdcStatus
run_pfor(BenchCtx *ctx)
{
	return cdc_pfor_decode64(ctx->in, ctx->in_len, ctx->out, ctx->n);
}

/* FSST: n bytes of word soup (URLs and English words), one string. */
static void
prep_fsst(BenchCtx *ctx)
{
	static const char *words[] = {
		"https://", "www.", "example", ".com/", "index", ".html", "the ", "quick ",
		"brown ", "fox ", "jumps ", "over ", "lazy ", "dog ", "postgres", "parquet",
		"2026-11-23", " ERROR ", "user_id=", "&session="
	};
	LwAux	   *a = lw_aux(ctx);
	uint8_t    *text = xmalloc(ctx->n + 16);
	CdcFsstBuilder *b = xmalloc(sizeof(CdcFsstBuilder));
	CdcByteView sample = {text, (uint32_t) (ctx->n < 65536 ? ctx->n : 65536)};
	size_t		len = 0;

	while (len < ctx->n)
	{
		const char *w = words[rnd(&ctx->seed) % 20];
		size_t		l = strlen(w);

		if (l > ctx->n - len)
			l = ctx->n - len;
		memcpy(text + len, w, l);
		len += l;
	}
	if (cdc_fsst_build(b, &sample, 1, &a->fsst) != CDC_OK)
		abort();
	ctx->in = xmalloc(cdc_fsst_max_compressed(ctx->n) + CDC_INPUT_PADDING);
	if (cdc_fsst_compress(&a->fsst, text, ctx->n, ctx->in,
						  cdc_fsst_max_compressed(ctx->n), &ctx->in_len) != CDC_OK)
		abort();
	free(b);
	free(text);
}

static CdcStatus
run_fsst(BenchCtx *ctx)
{
	LwAux	   *a = ctx->aux;
	size_t		out_len;

	return cdc_fsst_decompress(&a->fsst, ctx->in, ctx->in_len, ctx->out, ctx->n, &out_len);
}

/* ---- DELTA_BINARY_PACKED: deltas of `width` bits (128 / 4 layout) ---- */
static void
prep_delta_common(BenchCtx *ctx, bool is64)
{
	unsigned	w = ctx->width;
	uint64_t	mask = w >= 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
	int64_t    *v64 = xmalloc(ctx->n * sizeof(int64_t));
	int32_t    *v32 = xmalloc(ctx->n * sizeof(int32_t));
	size_t		cap = cdc_delta_binary_max_size(ctx->n, is64);
	uint64_t	acc = rnd(&ctx->seed);

	for (size_t i = 0; i < ctx->n; i++)
	{
		acc += rnd(&ctx->seed) & mask;
		v64[i] = (int64_t) acc;
		v32[i] = (int32_t) (uint32_t) acc;
	}
	ctx->in = xmalloc(cap + CDC_INPUT_PADDING);
	if ((is64 ? cdc_delta_binary_encode64(v64, ctx->n, 128, 4, ctx->in, cap, &ctx->in_len)
		 : cdc_delta_binary_encode32(v32, ctx->n, 128, 4, ctx->in, cap, &ctx->in_len)) != CDC_OK)
		abort();
	memset(ctx->in + ctx->in_len, 0, CDC_INPUT_PADDING);
	free(v64);
	free(v32);
}

static void
prep_delta32(BenchCtx *ctx)
{
	prep_delta_common(ctx, false);
}

static void
prep_delta64(BenchCtx *ctx)
{
	prep_delta_common(ctx, true);
}

static CdcStatus
run_delta32(BenchCtx *ctx)
{
	size_t		consumed;

	return cdc_delta_binary_decode32(ctx->in, ctx->in_len, ctx->out, ctx->n, &consumed);
}

static CdcStatus
run_delta64(BenchCtx *ctx)
{
	size_t		consumed;

	return cdc_delta_binary_decode64(ctx->in, ctx->in_len, ctx->out, ctx->n, &consumed);
}

/* ---- DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY: values of 0..2*width
 * bytes; for DELTA_BYTE_ARRAY sorted keys sharing about half their bytes ---- */
static void
prep_strings(BenchCtx *ctx, bool front_coded)
{
	uint8_t    *pool = xmalloc(ctx->n * 2 * ctx->width + 1);
	CdcByteView *views = xmalloc(ctx->n * sizeof(CdcByteView));
	size_t		p = 0;
	size_t		cap;

	for (size_t i = 0; i < ctx->n; i++)
	{
		size_t		len = rnd(&ctx->seed) % (2 * ctx->width + 1);
		size_t		keep = front_coded && i > 0 ? views[i - 1].len / 2 : 0;

		keep = keep < len ? keep : len;
		for (size_t k = 0; k < len; k++)
			pool[p + k] = k < keep ? views[i - 1].ptr[k] : (uint8_t) ('a' + rnd(&ctx->seed) % 26);
		views[i].ptr = pool + p;
		views[i].len = (uint32_t) len;
		p += len;
	}
	cap = front_coded ? cdc_delta_byte_array_max_size(views, ctx->n)
		: cdc_delta_length_max_size(views, ctx->n);
	ctx->in = xmalloc(cap + CDC_INPUT_PADDING);
	if ((front_coded ? cdc_delta_byte_array_encode(views, ctx->n, ctx->in, cap, &ctx->in_len)
		 : cdc_delta_length_encode(views, ctx->n, ctx->in, cap, &ctx->in_len)) != CDC_OK)
		abort();
	memset(ctx->in + ctx->in_len, 0, CDC_INPUT_PADDING);
	/* scratch arrays, then the arena */
	ctx->aux_len = (uint32_t) p + 64;	/* the slack measure() would add */
	ctx->aux = xmalloc(2 * (ctx->n + CDC_OUTPUT_SLACK) * sizeof(int32_t) + ctx->aux_len);
	free(pool);
	free(views);
}

static void
prep_dlba(BenchCtx *ctx)
{
	prep_strings(ctx, false);
}

static void
prep_dba(BenchCtx *ctx)
{
	prep_strings(ctx, true);
}

static CdcStatus
run_dlba(BenchCtx *ctx)
{
	size_t		consumed;

	return cdc_delta_length_decode(ctx->in, ctx->in_len, ctx->out, ctx->n,
								   ctx->aux, &consumed);
}

static CdcStatus
run_dba(BenchCtx *ctx)
{
	int32_t    *s1 = ctx->aux;
	int32_t    *s2 = s1 + ctx->n + CDC_OUTPUT_SLACK;
	uint8_t    *arena = (uint8_t *) (s2 + ctx->n + CDC_OUTPUT_SLACK);
	size_t		consumed;

	/* Same arena every run, so views compare equal across ISAs. */
	return cdc_delta_byte_array_decode(ctx->in, ctx->in_len, ctx->out, ctx->n, s1, s2,
									   arena, ctx->aux_len, &consumed);
}

/* ---- BYTE_STREAM_SPLIT: width = value bytes ---- */
static void
prep_bss(BenchCtx *ctx)
{
	ctx->in_len = ctx->n * ctx->width;
	ctx->in = xmalloc(ctx->in_len + CDC_INPUT_PADDING);
	for (size_t i = 0; i < ctx->in_len + CDC_INPUT_PADDING; i++)
		ctx->in[i] = (uint8_t) rnd(&ctx->seed);
}

static CdcStatus
run_bss(BenchCtx *ctx)
{
	return cdc_bss_decode(ctx->in, ctx->in_len, ctx->width, ctx->out, ctx->n);
}

/* ---- GroupVarInt: values of 1..width bytes ---- */
static void
prep_gv_common(BenchCtx *ctx, bool is64)
{
	uint64_t   *v64 = xmalloc(ctx->n * sizeof(uint64_t));
	uint32_t   *v32 = xmalloc(ctx->n * sizeof(uint32_t));
	size_t		cap = cdc_group_varint_max_size(ctx->n, is64);

	for (size_t i = 0; i < ctx->n; i++)
	{
		unsigned	bytes = 1 + rnd(&ctx->seed) % ctx->width;
		uint64_t	r = rnd(&ctx->seed);

		v64[i] = bytes >= 8 ? r : r & ((UINT64_C(1) << (8 * bytes)) - 1);
		v32[i] = (uint32_t) v64[i];
	}
	ctx->in = xmalloc(cap + CDC_INPUT_PADDING);
	if ((is64 ? cdc_group_varint_encode64(v64, ctx->n, ctx->in, cap, &ctx->in_len)
		 : cdc_group_varint_encode32(v32, ctx->n, ctx->in, cap, &ctx->in_len)) != CDC_OK)
		abort();
	memset(ctx->in + ctx->in_len, 0, CDC_INPUT_PADDING);
	free(v64);
	free(v32);
}

static void
prep_gv32(BenchCtx *ctx)
{
	prep_gv_common(ctx, false);
}

static void
prep_gv64(BenchCtx *ctx)
{
	prep_gv_common(ctx, true);
}

static CdcStatus
run_gv32(BenchCtx *ctx)
{
	size_t		consumed;

	return cdc_group_varint_decode32(ctx->in, ctx->in_len, ctx->out, ctx->n, &consumed);
}

static CdcStatus
run_gv64(BenchCtx *ctx)
{
	size_t		consumed;

	return cdc_group_varint_decode64(ctx->in, ctx->in_len, ctx->out, ctx->n, &consumed);
}


#define END UINT32_MAX
static const unsigned widths_all32[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, END};
static const unsigned widths_64[] = {1, 8, 16, 24, 32, 40, 48, 56, 63, 64, END};
static const unsigned widths_msb[] = {1, 2, 3, 4, 8, END};
static const unsigned widths_rle[] = {1, 2, 4, 8, 12, 16, 20, END};
static const unsigned widths_one[] = {1, END};
static const unsigned widths_dict[] = {2, 3, 4, 5, 6, 10, 16, 20, END};
static const unsigned widths_fl8[] = {1, 3, 8, END};
static const unsigned widths_fl16[] = {1, 7, 16, END};
static const unsigned widths_fl32[] = {1, 3, 7, 8, 12, 16, 20, 32, END};
static const unsigned widths_fl64[] = {1, 16, 24, 33, 48, 64, END};
static const unsigned widths_decimals[] = {2, 3, END};
static const unsigned widths_pfor[] = {8, 16, END};

static const unsigned widths_delta32[] = {0, 1, 8, 16, 24, 32, END};
static const unsigned widths_delta64[] = {0, 8, 16, 32, 48, 64, END};
static const unsigned widths_strings[] = {4, 16, END};
static const unsigned widths_bss[] = {2, 4, 8, 16, END};
static const unsigned widths_gv32[] = {1, 2, 4, END};
static const unsigned widths_gv64[] = {2, 4, 8, END};

static const BenchKernel bench_kernels[] = {
	{"unpack32", widths_all32, 4, true, prep_unpack, run_unpack32},
	{"unpack64", widths_64, 8, false, prep_unpack64, run_unpack64},
	{"unpack32_msb", widths_msb, 4, false, prep_unpack_msb, run_unpack32_msb},
	{"rle_literal", widths_rle, 4, true, prep_rle_literal, run_rle},
	{"rle_runs16", widths_rle, 4, true, prep_rle_runs, run_rle},
	{"rle16_levels", widths_msb, 2, true, prep_rle_runs, run_rle16},
	{"plain_bool", widths_one, 1, false, prep_bool, run_bool},
	{"dict_gather32", widths_dict, 4, true, prep_dict, run_gather32},
	{"dict_gather64", widths_dict, 8, true, prep_dict, run_gather64},
	{"max_u32", widths_dict, 4, true, prep_dict, run_max},
	{"ffor8", widths_fl8, 1, true, prep_ffor8, run_ffor8},
	{"ffor16", widths_fl16, 2, true, prep_ffor16, run_ffor16},
	{"ffor32", widths_fl32, 4, true, prep_ffor32, run_ffor32},
	{"ffor64", widths_fl64, 8, true, prep_ffor64, run_ffor64},
	{"alp64+ffor", widths_decimals, 8, true, prep_alp_ffor, run_alp_ffor},
	{"alp64_fused", widths_decimals, 8, true, prep_alp_ffor, run_alp_fused},
	{"alprd64", widths_one, 8, true, prep_alprd, run_alprd},
	{"chimp64", widths_decimals, 8, false, prep_chimp, run_chimp},
	{"pfor64", widths_pfor, 8, true, prep_pfor, run_pfor},
	{"fsst_text", widths_one, 1, false, prep_fsst, run_fsst},
	{"delta32", widths_delta32, 4, true, prep_delta32, run_delta32},
	{"delta64", widths_delta64, 8, true, prep_delta64, run_delta64},
	{"delta_length", widths_strings, sizeof(CdcByteView), true, prep_dlba, run_dlba},
	{"delta_bytearr", widths_strings, sizeof(CdcByteView), true, prep_dba, run_dba},
	{"bss", widths_bss, 0, true, prep_bss, run_bss},
	{"group_varint32", widths_gv32, 4, true, prep_gv32, run_gv32},
	{"group_varint64", widths_gv64, 8, false, prep_gv64, run_gv64},
};

/* Best time of reps calls of fn. */
static double
best_time(const BenchKernel *k, BenchCtx *ctx, int reps)
{
	double		best = 1e30;

	for (int r = 0; r < reps; r++)
	{
		double		t0 = now_sec();

		if (k->run(ctx) != CDC_OK)
		{
			fprintf(stderr, "%s width %u: kernel failed\n", k->name, ctx->width);
			exit(1);
		}
		t0 = now_sec() - t0;
		best = t0 < best ? t0 : best;
	}
	return best;
}

static double
best_memcpy(void *dst, const void *src, size_t bytes, int reps)
{
	double		best = 1e30;

	for (int r = 0; r < reps; r++)
	{
		double		t0 = now_sec();

		memcpy(dst, src, bytes);
		__asm__ volatile("" : : "r"(dst) : "memory");
		t0 = now_sec() - t0;
		best = t0 < best ? t0 : best;
	}
	return best;
}

int
main(int argc, char **argv)
{
	size_t		n = 1 << 20;
	int			reps = 15;
	const char *filter = NULL;
	CdcIsa		best_isa = cdc_isa_best();

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			n = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else
			filter = argv[i];
	}
	printf("values per run: %zu, best of %d; best ISA: %s\n\n", n, reps,
		   cdc_isa_name(best_isa));
	printf("| kernel        | width | isa    | Mvalues/s | out GB/s | memcpy GB/s | %% of memcpy |\n");
	printf("|---------------|------:|--------|----------:|---------:|------------:|------------:|\n");

	for (size_t k = 0; k < sizeof(bench_kernels) / sizeof(bench_kernels[0]); k++)
	{
		const BenchKernel *kern = &bench_kernels[k];

		if (filter && strstr(kern->name, filter) == NULL)
			continue;
		for (const unsigned *w = kern->widths; *w != END; w++)
		{
			BenchCtx	ctx = {0};
			size_t		out_bytes = n * (kern->out_size ? kern->out_size : *w);
			uint8_t    *ref = xmalloc(out_bytes + CDC_OUTPUT_SLACK * 8);
			uint8_t    *src = xmalloc(out_bytes);
			double		t_copy;

			ctx.n = n;
			ctx.width = *w;
			ctx.seed = 0x5EED0000 + k * 100 + *w;
			kern->prepare(&ctx);
			ctx.out = xmalloc(out_bytes + CDC_OUTPUT_SLACK * 8);
			memset(src, 1, out_bytes);
			memset(ctx.out, 0, out_bytes + CDC_OUTPUT_SLACK * 8);

			/* Scalar run: the reference output. */
			cdc_set_isa(CDC_ISA_SCALAR);
			if (kern->run(&ctx) != CDC_OK)
				abort();
			memcpy(ref, ctx.out, out_bytes);

			for (int isa = kern->isa_variants ? 0 : (int) best_isa;
				 isa <= (int) best_isa; isa++)
			{
				double		t;

				if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
					continue;
				memset(ctx.out, 0, out_bytes);
				t = best_time(kern, &ctx, reps);
				if (memcmp(ctx.out, ref, out_bytes) != 0)
				{
					fprintf(stderr, "%s width %u isa %s: output differs from scalar\n",
							kern->name, *w, cdc_isa_name((CdcIsa) isa));
					return 1;
				}
				t_copy = best_memcpy(ctx.out, src, out_bytes, reps);
				printf("| %-13s | %5u | %-6s | %9.0f | %8.2f | %11.2f | %10.0f%% |\n",
					   kern->name, *w, kern->isa_variants ? cdc_isa_name((CdcIsa) isa) : "-",
					   n / t / 1e6, out_bytes / t / 1e9, out_bytes / t_copy / 1e9,
					   100.0 * t_copy / t);
				fflush(stdout);
			}
			free(ctx.in);
			free(ctx.out);
			free(ctx.aux);
			free(ref);
			free(src);
		}
	}
	cdc_set_isa(best_isa);
	return 0;
}
