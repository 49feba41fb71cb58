/*-------------------------------------------------------------------------
 *
 * brotli.c
 *	  Brotli streams through libbrotlidec / libbrotlienc.
 *
 * Decompression uses the streaming decoder rather than the one-shot
 * BrotliDecoderDecompress(), because only the streaming one says why it
 * stopped: a stream longer than out_len (NEEDS_MORE_OUTPUT once out is full)
 * is CMP_ERR_SIZE_MISMATCH, one that ends early is CMP_ERR_CORRUPT.  When out
 * is full the decoder is given a few scratch bytes, so a stream whose last
 * metablock header comes after its last byte still finishes cleanly.  A
 * brotli stream has one end; bytes after it are corrupt.
 *
 * The decoder state is small and created per call; its ring buffer is sized
 * by the stream's window, at most 16 MB, and freed before returning.
 *
 * Compression: level 0 means quality 8, Arrow's default for Parquet (the
 * library's own default, 11, is many times slower for a few percent);
 * other levels are clamped to 1..11.  Window 22 (4 MB), generic mode.
 *
 * IDENTIFICATION
 *	  src/compress/brotli.c
 *
 *-------------------------------------------------------------------------
 */
#include "compress/compress_int.h"

#include <brotli/decode.h>
#include <brotli/encode.h>

#define CMP_BROTLI_DEFAULT_QUALITY 8

CmpStatus
cmp_brotli_decompress(const uint8_t *in, size_t in_len,
					  uint8_t *out, size_t out_len)
{
	BrotliDecoderState *state;
	BrotliDecoderResult result;
	uint8_t		scratch[64];
	const uint8_t *next_in = in;
	size_t		avail_in = in_len;
	uint8_t    *next_out = out;
	size_t		avail_out = out_len;
	bool		in_scratch = false;
	CmpStatus	status;

	state = BrotliDecoderCreateInstance(cmp_lib_alloc, cmp_lib_free, NULL);
	if (state == NULL)
		return CMP_ERR_NOMEM;

	for (;;)
	{
		if (avail_out == 0 && !in_scratch)
		{
			/* out is full: a byte written to scratch means "too long" */
			in_scratch = true;
			next_out = scratch;
			avail_out = sizeof(scratch);
		}
		result = BrotliDecoderDecompressStream(state, &avail_in, &next_in,
											   &avail_out, &next_out, NULL);
		if (in_scratch && avail_out < sizeof(scratch))
		{
			status = result == BROTLI_DECODER_RESULT_ERROR
				? CMP_ERR_CORRUPT : CMP_ERR_SIZE_MISMATCH;
			break;
		}
		if (result == BROTLI_DECODER_RESULT_SUCCESS)
		{
			if (avail_in != 0)
				status = CMP_ERR_CORRUPT;	/* bytes after the stream's end */
			else if (in_scratch || (size_t) (next_out - out) == out_len)
				status = CMP_OK;
			else
				status = CMP_ERR_SIZE_MISMATCH;
			break;
		}
		if (result == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT)
		{
			if (!in_scratch)
				continue;
			/* wants room beyond out_len: longer (and never spin here) */
			status = CMP_ERR_SIZE_MISMATCH;
			break;
		}
		if (result == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT)
			status = CMP_ERR_CORRUPT;	/* truncated */
		else
		{
			BrotliDecoderErrorCode code = BrotliDecoderGetErrorCode(state);

			status = (code <= BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES &&
					  code >= BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES)
				? CMP_ERR_NOMEM : CMP_ERR_CORRUPT;
		}
		break;
	}
	BrotliDecoderDestroyInstance(state);
	return status;
}

size_t
cmp_brotli_bound(size_t in_len)
{
	size_t		bound = BrotliEncoderMaxCompressedSize(in_len);

	/* 0 means the bound overflows size_t */
	return bound == 0 ? SIZE_MAX : bound;
}

CmpStatus
cmp_brotli_compress(int level, const uint8_t *in, size_t in_len,
					uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		len = out_cap;

	if (level == 0)
		level = CMP_BROTLI_DEFAULT_QUALITY;
	else if (level < BROTLI_MIN_QUALITY + 1)
		level = BROTLI_MIN_QUALITY + 1;
	else if (level > BROTLI_MAX_QUALITY)
		level = BROTLI_MAX_QUALITY;
	if (!BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC,
							   in_len, in, &len, out))
		return CMP_ERR_OUTPUT_FULL;
	*written = len;
	return CMP_OK;
}
