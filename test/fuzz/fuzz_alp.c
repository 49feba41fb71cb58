/*-------------------------------------------------------------------------
 *
 * fuzz_alp.c
 *	  libFuzzer target: ALP / ALPRD decoders on arbitrary parameters and
 *	  exception bytes, and the encoders' bit-exact round trip on arbitrary
 *	  floats.
 *
 * Input layout: byte 0 = mode (bits 0..1: ALP f64, ALP f32, ALPRD f64,
 * ALPRD f32); byte 1 = exponent (ALP) or right bit width (ALPRD); byte 2 =
 * factor (ALP) or dictionary length (ALPRD); bytes 3..4 = exception count;
 * bytes 5..6 = value count (modulo 3000).  The rest is split in two at a
 * point given by byte 7: the first part fills the decoded children
 * (integers, or codes then right parts; zero-extended when short), the
 * second is the exception region (dictionary first for ALPRD), given to the
 * decoder as an exact-size heap buffer.
 *
 * With byte 0 bit 3 set, the first part is instead an FFOR payload for the
 * fused cdc_alp_ffor_decode64 (width = byte 2 % 70, reference = bytes 3..4;
 * with bit 4 also set, cut to the exact FFOR size when it is longer),
 * checked against cdc_ffor_decode64 + cdc_alp_decode64 when it succeeds.
 *
 * Oracles: no out-of-bounds access (ASan), identical status and bits on
 * every ISA; then the same bytes read as floats must survive
 * choose/encode/decode bit for bit (ALP and ALPRD).
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_alp.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/alp.h"
#include "codec/fastlanes.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static CdcStatus
run_decode(unsigned mode, unsigned p1, unsigned p2, uint32_t exc_count,
		   const uint8_t *children, size_t count, const uint8_t *exc,
		   size_t exc_len, uint8_t *out)
{
	switch (mode)
	{
		case 0:
			return cdc_alp_decode64((const int64_t *) children, count, p1, p2, exc,
									exc_len, exc_count, (double *) out);
		case 1:
			return cdc_alp_decode32((const int32_t *) children, count, p1, p2, exc,
									exc_len, exc_count, (float *) out);
		case 2:
		{
			/* the dictionary is the first 2 * dict_len bytes (fewer if short) */
			unsigned	ndict = p2 % 16;
			size_t		dlen;

			if (2 * (size_t) ndict > exc_len)
				ndict = (unsigned) (exc_len / 2);
			dlen = 2 * (size_t) ndict;
			return cdc_alprd_decode64((const uint16_t *) children,
									  (const uint64_t *) (children + 8 * count), count,
									  p1, exc, ndict, exc + dlen, exc_len - dlen,
									  exc_count, (double *) out);
		}
		default:
		{
			/* the dictionary is the first 2 * dict_len bytes (fewer if short) */
			unsigned	ndict = p2 % 16;
			size_t		dlen;

			if (2 * (size_t) ndict > exc_len)
				ndict = (unsigned) (exc_len / 2);
			dlen = 2 * (size_t) ndict;
			return cdc_alprd_decode32((const uint16_t *) children,
									  (const uint32_t *) (children + 8 * count), count,
									  p1, exc, ndict, exc + dlen, exc_len - dlen,
									  exc_count, (float *) out);
		}
	}
}

static void
roundtrip(const uint8_t *bytes, size_t len, unsigned mode)
{
	size_t		esize = mode & 1 ? 4 : 8;
	size_t		n = len / esize;
	void	   *vals = malloc(n * esize + 1);
	void	   *out = malloc(n * esize + 1);
	void	   *ints = malloc(n * 8 + 1);
	uint16_t   *codes = malloc(n * 2 + 1);
	uint32_t   *pos = malloc(n * 4 + 1);
	void	   *excv = malloc(n * 8 + 1);
	uint8_t    *excb = malloc(n * 12 + 1);
	uint8_t		dictb[16];
	size_t		exc,
				wr,
				dw;

	memcpy(vals, bytes, n * esize);
	if (mode == 0)
	{
		CdcAlpParams p;

		cdc_alp_choose64(vals, n, &p);
		exc = cdc_alp_encode64(vals, n, p, ints, pos, excv);
		cdc_alp_write_exceptions64(pos, excv, exc, excb, exc * 12, &wr);
		if (cdc_alp_decode64(ints, n, p.exponent, p.factor, excb, wr, (uint32_t) exc, out) != CDC_OK)
			abort();
	}
	else if (mode == 1)
	{
		CdcAlpParams p;

		cdc_alp_choose32(vals, n, &p);
		exc = cdc_alp_encode32(vals, n, p, ints, pos, excv);
		cdc_alp_write_exceptions32(pos, excv, exc, excb, exc * 8, &wr);
		if (cdc_alp_decode32(ints, n, p.exponent, p.factor, excb, wr, (uint32_t) exc, out) != CDC_OK)
			abort();
	}
	else if (mode == 2)
	{
		CdcAlprdParams p;

		cdc_alprd_choose64(vals, n, &p);
		exc = cdc_alprd_encode64(vals, n, &p, codes, ints, pos, excv);
		cdc_alprd_write_exceptions(pos, excv, exc, excb, exc * 6, &wr);
		cdc_alprd_write_dict(&p, dictb, sizeof(dictb), &dw);
		if (cdc_alprd_decode64(codes, ints, n, p.right_bit_width, dictb, p.dict_len,
							   excb, wr, (uint32_t) exc, out) != CDC_OK)
			abort();
	}
	else
	{
		CdcAlprdParams p;

		cdc_alprd_choose32(vals, n, &p);
		exc = cdc_alprd_encode32(vals, n, &p, codes, ints, pos, excv);
		cdc_alprd_write_exceptions(pos, excv, exc, excb, exc * 6, &wr);
		cdc_alprd_write_dict(&p, dictb, sizeof(dictb), &dw);
		if (cdc_alprd_decode32(codes, ints, n, p.right_bit_width, dictb, p.dict_len,
							   excb, wr, (uint32_t) exc, out) != CDC_OK)
			abort();
	}
	if (memcmp(out, vals, n * esize) != 0)
		abort();
	free(vals);
	free(out);
	free(ints);
	free(codes);
	free(pos);
	free(excv);
	free(excb);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned	mode,
				p1,
				p2;
	uint32_t	exc_count;
	size_t		count,
				rest,
				split,
				child_len;
	uint8_t    *children,
			   *exc,
			   *out,
			   *out2;
	CdcStatus	st0,
				st;
	CdcIsa		saved = cdc_isa_current();

	if (size < 8)
		return 0;
	mode = data[0] & 3;
	p1 = data[1];
	p2 = data[2];
	exc_count = data[3] | (uint32_t) data[4] << 8;
	count = (data[5] | (size_t) data[6] << 8) % 3000;
	rest = size - 8;
	split = rest * data[7] / 255;
	/* children: ALP ints (8 bytes max) or ALPRD codes (2) + rights (8) */
	child_len = count * 16 + 8;
	children = calloc(child_len, 1);
	memcpy(children, data + 8, split < child_len ? split : child_len);
	/* ALPRD codes must mostly be small to get past the check */
	if (mode >= 2 && (data[0] & 4))
		for (size_t i = 0; i < count; i++)
			((uint16_t *) children)[i] %= 8;
	exc = malloc(rest - split + 1);
	memcpy(exc, data + 8 + split, rest - split);
	out = malloc(count * 8 + 1);
	out2 = malloc(count * 8 + 1);

	cdc_set_isa(CDC_ISA_SCALAR);
	st0 = run_decode(mode, p1, p2, exc_count, children, count, exc, rest - split, out);
	for (int isa = 1; isa < CDC_ISA_COUNT; isa++)
	{
		if (cdc_set_isa((CdcIsa) isa) != CDC_OK)
			continue;
		st = run_decode(mode, p1, p2, exc_count, children, count, exc, rest - split, out2);
		if (st != st0 || (st == CDC_OK && memcmp(out, out2, count * (mode & 1 ? 4 : 8)) != 0))
			abort();
	}
	cdc_set_isa(saved);

	if ((data[0] & 8) && mode == 0)
	{
		unsigned	w = p2 % 70;
		uint64_t	ref = exc_count;
		size_t		plen = split;
		uint8_t    *packed = malloc(split + 1);
		uint64_t   *ints = malloc(count * 8 + 1);

		if ((data[0] & 16) && w <= 64 && plen > cdc_fl_packed_size(count, w))
			plen = cdc_fl_packed_size(count, w);
		memcpy(packed, data + 8, plen);
		st0 = cdc_alp_ffor_decode64(packed, plen, w, ref, count, p1 % 30, p1 / 30 % 30,
									exc, rest - split, exc_count % 8, (double *) out);
		if (st0 == CDC_OK)
		{
			if (cdc_ffor_decode64(packed, plen, w, ref, ints, count) != CDC_OK ||
				cdc_alp_decode64((int64_t *) ints, count, p1 % 30, p1 / 30 % 30, exc,
								 rest - split, exc_count % 8, (double *) out2) != CDC_OK ||
				memcmp(out, out2, count * 8) != 0)
				abort();
		}
		free(packed);
		free(ints);
	}
	free(children);
	free(exc);
	free(out);
	free(out2);

	roundtrip(data + 8, rest, mode);
	return 0;
}
