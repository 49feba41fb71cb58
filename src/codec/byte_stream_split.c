/*-------------------------------------------------------------------------
 *
 * byte_stream_split.c
 *	  BYTE_STREAM_SPLIT decoder and encoder for any value width.
 *
 * Layout (parquet-format Encodings.md, BYTE_STREAM_SPLIT = 9): a page of N
 * values of W bytes is W streams of N bytes; stream k holds byte k of every
 * value in order.  W is 4 or 8 for FLOAT, DOUBLE, INT32 and INT64, and the
 * type length for FIXED_LEN_BYTE_ARRAY (2 for FLOAT16, 16 for UUID ...).
 *
 * Design notes: the stream length is the page's value count, which the
 * decoder derives from in_len / width, so decoding fewer values than the
 * page holds (or a range of them) still finds every stream.  Widths 2, 4
 * and 8 are byte transposes: AVX2 does 32 values per step with unpack
 * ladders (byte_stream_split_avx2.c); the scalar versions assemble each
 * value in a register.  The avx512 level runs the AVX2 kernels too: the
 * 512-bit ones (byte_stream_split_avx512.c) measured 2-11% slower on the
 * development CPU (bench/RESULTS.md), so for now they are only unit
 * tested.  Other widths walk stream by stream over chunks of values, so
 * reads are sequential and the strided writes stay in L1.
 *
 * IDENTIFICATION
 *	  src/codec/byte_stream_split.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <string.h>

/* Values per chunk of the generic-width loops. */
#define BSS_CHUNK	256

/* in points at value 0 of stream 0; stream k starts at in + k * stride. */
static void
bss_decode4_scalar(const uint8_t *in, size_t stride, uint8_t *out, size_t count)
{
	const uint8_t *s0 = in,
			   *s1 = in + stride,
			   *s2 = in + 2 * stride,
			   *s3 = in + 3 * stride;

	for (size_t i = 0; i < count; i++)
	{
		uint32_t	v = (uint32_t) s0[i] | (uint32_t) s1[i] << 8 |
			(uint32_t) s2[i] << 16 | (uint32_t) s3[i] << 24;

		memcpy(out + 4 * i, &v, 4);
	}
}

static void
bss_decode8_scalar(const uint8_t *in, size_t stride, uint8_t *out, size_t count)
{
	for (size_t i = 0; i < count; i++)
	{
		uint64_t	v = 0;

#pragma GCC unroll 8
		for (unsigned k = 0; k < 8; k++)
			v |= (uint64_t) in[k * stride + i] << (8 * k);
		memcpy(out + 8 * i, &v, 8);
	}
}

static void
bss_decode_generic(const uint8_t *in, size_t stride, size_t width,
				   uint8_t *out, size_t count)
{
	for (size_t c = 0; c < count; c += BSS_CHUNK)
	{
		size_t		n = count - c < BSS_CHUNK ? count - c : BSS_CHUNK;

		for (size_t k = 0; k < width; k++)
		{
			const uint8_t *src = in + k * stride + c;
			uint8_t    *dst = out + c * width + k;

			for (size_t i = 0; i < n; i++)
				dst[i * width] = src[i];
		}
	}
}

/*
 * Decode values first .. first + count - 1 of a page whose BYTE_STREAM_SPLIT
 * data is in[0..in_len): in_len / width values, so in_len must be a
 * multiple of width (else CDC_ERR_CORRUPT).  out gets count * width bytes.
 */
CdcStatus
cdc_bss_decode_range(const uint8_t *in, size_t in_len, size_t width,
					 size_t first, uint8_t *out, size_t count)
{
	size_t		stride;
	const uint8_t *base;
	CdcIsa		isa;

	if (width == 0)
		return CDC_ERR_INVALID_ARGUMENT;
	if (in_len % width != 0)
		return CDC_ERR_CORRUPT;
	stride = in_len / width;
	if (first > stride || count > stride - first)
		return CDC_ERR_TRUNCATED;
	if (count == 0)
		return CDC_OK;
	base = in + first;
	isa = cdc_isa_current();
	switch (width)
	{
		case 1:
			memcpy(out, base, count);
			break;
		case 2:
			if (isa >= CDC_ISA_AVX2)
				cdc_bss_decode2_avx2(base, stride, out, count);
			else
				bss_decode_generic(base, stride, 2, out, count);
			break;
		case 4:
			if (isa >= CDC_ISA_AVX2)
				cdc_bss_decode4_avx2(base, stride, out, count);
			else
				bss_decode4_scalar(base, stride, out, count);
			break;
		case 8:
			if (isa >= CDC_ISA_AVX2)
				cdc_bss_decode8_avx2(base, stride, out, count);
			else
				bss_decode8_scalar(base, stride, out, count);
			break;
		default:
			bss_decode_generic(base, stride, width, out, count);
			break;
	}
	return CDC_OK;
}

/* The first count values of the page. */
CdcStatus
cdc_bss_decode(const uint8_t *in, size_t in_len, size_t width,
			   uint8_t *out, size_t count)
{
	return cdc_bss_decode_range(in, in_len, width, 0, out, count);
}

/*
 * Split count values of width bytes (in: count * width bytes) into width
 * streams; *written = count * width.
 */
CdcStatus
cdc_bss_encode(const uint8_t *in, size_t width, size_t count,
			   uint8_t *out, size_t out_cap, size_t *written)
{
	if (width == 0)
		return CDC_ERR_INVALID_ARGUMENT;
	if (count > SIZE_MAX / width)
		return CDC_ERR_INVALID_ARGUMENT;
	if (out_cap < count * width)
		return CDC_ERR_OUTPUT_FULL;
	for (size_t c = 0; c < count; c += BSS_CHUNK)
	{
		size_t		n = count - c < BSS_CHUNK ? count - c : BSS_CHUNK;

		for (size_t k = 0; k < width; k++)
		{
			const uint8_t *src = in + c * width + k;
			uint8_t    *dst = out + k * count + c;

			for (size_t i = 0; i < n; i++)
				dst[i] = src[i * width];
		}
	}
	*written = count * width;
	return CDC_OK;
}
