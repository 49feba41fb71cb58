/*-------------------------------------------------------------------------
 *
 * bench_float.c
 *	  Compressed size and decode speed of the lightweight encodings on a
 *	  few data shapes: ALP (integers FFOR-packed), ALPRD (codes and right
 *	  parts FastLanes-packed), Chimp and PLAIN for doubles; FFOR and patched
 *	  bit packing (PFOR) for integers.
 *
 *	  bench/bin/bench_float [-n VALUES] [-r REPS]
 *
 * Data is cut into blocks of 2048 values (the reference Amudai writer's
 * numeric block size) and every block chooses its own parameters, as a
 * writer would.  Sizes count what an Amudai section would hold (kind and
 * metadata headers, children, exceptions); Chimp and PFOR use this
 * project's own layouts (chimp.h, patched_bitpack.h).  Decode speed is the
 * best of `reps` full passes over all blocks at the best ISA, in million
 * values per second, every pass checked bit for bit against the input.
 *
 * IDENTIFICATION
 *	  bench/bench_float.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/alp.h"
#include "codec/chimp.h"
#include "codec/codec.h"
#include "codec/fastlanes.h"
#include "codec/patched_bitpack.h"

#define BLOCK		2048

static uint64_t seed = 0xF10A7;

static uint64_t
rnd(void)
{
	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	return seed * UINT64_C(2685821657736338717);
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
		abort();
	return p;
}

static unsigned
bit_length(uint64_t v)
{
	return v == 0 ? 0 : 64 - (unsigned) __builtin_clzll(v);
}

/* One encoded block of any scheme: bytes + what decoding needs. */
typedef struct EncBlock
{
	uint8_t    *bytes;			/* packed children / stream, + padding */
	size_t		len;			/* bytes a section would hold */
	size_t		n;
	unsigned	w1,
				w2;				/* FFOR / FL widths */
	uint64_t	ref;
	size_t		off2,
				off3;			/* offsets of second child, exceptions */
	size_t		exc;
	CdcAlpParams alp;
	CdcAlprdParams rd;
	uint8_t		dict[16];
} EncBlock;

typedef enum Scheme
{
	S_PLAIN, S_ALP, S_ALPRD, S_CHIMP, S_FFOR, S_PFOR
} Scheme;

static const char *const scheme_names[] = {"PLAIN", "ALP+FFOR", "ALPRD+FL", "Chimp", "FFOR", "PFOR"};

/* Scratch for encoders/decoders (one block). */
static int64_t ints[BLOCK];
static uint16_t codes[BLOCK];
static uint64_t rights[BLOCK];
static uint32_t pos[BLOCK];
static double excv[BLOCK];
static uint16_t excl[BLOCK];

static void
encode_block(Scheme s, const void *in, size_t n, EncBlock *b)
{
	size_t		cap = 24 * n + 4096,
				w;

	memset(b, 0, sizeof(*b));
	b->n = n;
	b->bytes = xmalloc(cap + CDC_INPUT_PADDING);
	switch (s)
	{
		case S_PLAIN:
			memcpy(b->bytes, in, n * 8);
			b->len = 2 + n * 8;
			break;
		case S_ALP:
			{
				int64_t		ref;

				cdc_alp_choose64(in, n, &b->alp);
				b->exc = cdc_alp_encode64(in, n, b->alp, ints, pos, excv);
				cdc_ffor_analyze_i64(ints, n, &ref, &b->w1);
				b->ref = (uint64_t) ref;
				b->off3 = cdc_fl_packed_size(n, b->w1);
				cdc_ffor_encode64((uint64_t *) ints, n, b->ref, b->w1, b->bytes, cap, &w);
				cdc_alp_write_exceptions64(pos, excv, b->exc, b->bytes + b->off3, cap, &w);
				/* ALP header 16 + FFOR child (16 + chunks) + exceptions */
				b->len = 16 + 16 + b->off3 + 12 * b->exc;
				break;
			}
		case S_ALPRD:
			{
				cdc_alprd_choose64(in, n, &b->rd);
				b->exc = cdc_alprd_encode64(in, n, &b->rd, codes, rights, pos, excl);
				cdc_alprd_write_dict(&b->rd, b->dict, sizeof(b->dict), &w);
				b->w1 = bit_length(b->rd.dict_len - 1);
				b->w2 = b->rd.right_bit_width;
				b->off2 = cdc_fl_packed_size(n, b->w1);
				b->off3 = b->off2 + cdc_fl_packed_size(n, b->w2);
				cdc_fl_pack16(codes, n, b->w1, b->bytes, cap, &w);
				cdc_fl_pack64(rights, n, b->w2, b->bytes + b->off2, cap, &w);
				cdc_alprd_write_exceptions(pos, excl, b->exc, b->bytes + b->off3, cap, &w);
				/* header 16 + dict + codes (FLBitPack, or SingleValue 4 bytes
				 * when one entry) + rights (FLBitPack 8 + chunks) + exceptions */
				b->len = 16 + 2 * b->rd.dict_len + (b->w1 ? 8 + b->off2 : 4) +
					8 + (b->off3 - b->off2) + 6 * b->exc;
				break;
			}
		case S_CHIMP:
			cdc_chimp_encode64(in, n, b->bytes, cap, &b->len);
			break;
		case S_FFOR:
			cdc_ffor_analyze_u64(in, n, &b->ref, &b->w1);
			cdc_ffor_encode64(in, n, b->ref, b->w1, b->bytes, cap, &w);
			b->len = 16 + w;
			break;
		case S_PFOR:
			cdc_pfor_encode64(in, n, b->bytes, cap, &b->len);
			break;
	}
}

static CdcStatus
decode_block(Scheme s, EncBlock *b, void *out)
{
	CdcStatus	st = CDC_OK;
	size_t		used;

	switch (s)
	{
		case S_PLAIN:
			memcpy(out, b->bytes, b->n * 8);
			break;
		case S_ALP:
			st = cdc_ffor_decode64(b->bytes, b->off3, b->w1, b->ref, (uint64_t *) ints, b->n);
			if (st == CDC_OK)
				st = cdc_alp_decode64(ints, b->n, b->alp.exponent, b->alp.factor,
									  b->bytes + b->off3, 12 * b->exc, (uint32_t) b->exc, out);
			break;
		case S_ALPRD:
			st = cdc_fl_unpack16(b->bytes, b->off2, b->w1, codes, b->n);
			if (st == CDC_OK)
				st = cdc_fl_unpack64(b->bytes + b->off2, b->off3 - b->off2, b->w2, rights, b->n);
			if (st == CDC_OK)
				st = cdc_alprd_decode64(codes, rights, b->n, b->w2, b->dict, b->rd.dict_len,
										b->bytes + b->off3, 6 * b->exc, (uint32_t) b->exc, out);
			break;
		case S_CHIMP:
			st = cdc_chimp_decode64(b->bytes, b->len, out, b->n, &used);
			break;
		case S_FFOR:
			st = cdc_ffor_decode64(b->bytes, b->len - 16, b->w1, b->ref, out, b->n);
			break;
		case S_PFOR:
			st = cdc_pfor_decode64(b->bytes, b->len, out, b->n);
			break;
	}
	return st;
}

static void
run(const char *shape, const Scheme *schemes, int nschemes, const uint64_t *data,
	size_t n, int reps)
{
	size_t		nblocks = (n + BLOCK - 1) / BLOCK;
	EncBlock   *blocks = xmalloc(nblocks * sizeof(EncBlock));
	uint64_t   *out = xmalloc(n * 8 + 64);

	for (int k = 0; k < nschemes; k++)
	{
		Scheme		s = schemes[k];
		size_t		total = 0;
		double		best = 1e30;

		for (size_t b = 0; b < nblocks; b++)
		{
			size_t		len = n - b * BLOCK < BLOCK ? n - b * BLOCK : BLOCK;

			encode_block(s, data + b * BLOCK, len, &blocks[b]);
			total += blocks[b].len;
		}
		for (int r = 0; r < reps; r++)
		{
			double		t0 = now_sec();

			for (size_t b = 0; b < nblocks; b++)
				if (decode_block(s, &blocks[b], out + b * BLOCK) != CDC_OK)
				{
					fprintf(stderr, "%s %s: decode failed\n", shape, scheme_names[s]);
					exit(1);
				}
			t0 = now_sec() - t0;
			best = t0 < best ? t0 : best;
		}
		if (memcmp(out, data, n * 8) != 0)
		{
			fprintf(stderr, "%s %s: round trip differs\n", shape, scheme_names[s]);
			exit(1);
		}
		printf("| %-26s | %-9s | %10.2f | %16.0f |\n", shape, scheme_names[s],
			   8.0 * total / n, n / best / 1e6);
		fflush(stdout);
		for (size_t b = 0; b < nblocks; b++)
			free(blocks[b].bytes);
	}
	free(blocks);
	free(out);
}

int
main(int argc, char **argv)
{
	size_t		n = 1 << 20;
	int			reps = 7;
	uint64_t   *data;
	double	   *d;
	double		level = 20.0;
	static const Scheme fs[] = {S_PLAIN, S_ALP, S_ALPRD, S_CHIMP};
	static const Scheme is[] = {S_PLAIN, S_FFOR, S_PFOR};

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			n = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
	}
	data = xmalloc(n * 8);
	d = (double *) data;
	printf("values: %zu in blocks of %d, best of %d, ISA: %s\n\n", n, BLOCK, reps,
		   cdc_isa_name(cdc_isa_current()));
	printf("| data shape                 | encoding  | bits/value | decode Mvalues/s |\n");
	printf("|----------------------------|-----------|-----------:|-----------------:|\n");

	for (size_t i = 0; i < n; i++)
		d[i] = (double) (int64_t) (rnd() % 10000000) / 100.0;
	run("money (2 decimals)", fs, 4, data, n, reps);
	for (size_t i = 0; i < n; i++)
	{
		level += ((double) (rnd() % 1001) - 500.0) / 100000.0;
		d[i] = (double) (int64_t) (level * 1000.0 + 0.5) / 1000.0;
	}
	run("sensor (3 decimals)", fs, 4, data, n, reps);
	for (size_t i = 0; i < n; i++)
		d[i] = 20.0 + 5.0 * sin((double) i / 1000.0) + (double) (rnd() >> 11) / 9007199254740992.0;
	run("sensor (full precision)", fs, 4, data, n, reps);
	for (size_t i = 0; i < n; i++)
		d[i] = (double) (rnd() >> 11) / 9007199254740992.0;
	run("random [0, 1)", fs, 4, data, n, reps);
	for (size_t i = 0; i < n; i++)
		data[i] = 1000 + rnd() % 4096 + ((i % 100 == 7) ? (rnd() >> 8) : 0);
	run("int: 12 bits, 1% outliers", is, 3, data, n, reps);
	for (size_t i = 0; i < n; i++)
		data[i] = rnd() >> 44;
	run("int: uniform 20 bits", is, 3, data, n, reps);
	free(data);
	return 0;
}
