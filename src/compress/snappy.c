/*-------------------------------------------------------------------------
 *
 * snappy.c
 *	  Snappy raw format (not the framing format), through libsnappy's C API.
 *
 * A snappy stream starts with its uncompressed length as a varint, so a
 * wrong page size is caught before anything is decoded.  libsnappy's
 * decoder bounds every read by the input length and every write by the
 * declared length, and fails unless it produces exactly that many bytes.
 *
 * Snappy has no levels; the level argument is ignored.
 *
 * IDENTIFICATION
 *	  src/compress/snappy.c
 *
 *-------------------------------------------------------------------------
 */
#include "compress/compress_int.h"

#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

/*
 * The stream's declared length must be out_len.  When it is not, the status
 * is CMP_ERR_SIZE_MISMATCH only if the whole stream is otherwise valid
 * (libsnappy can check that without writing anything), else CMP_ERR_CORRUPT.
 */
CmpStatus
cmp_snappy_decompress(const uint8_t *in, size_t in_len,
					  uint8_t *out, size_t out_len)
{
	size_t		declared;
	size_t		produced;

	if (snappy_uncompressed_length((const char *) in, in_len, &declared) != SNAPPY_OK)
		return CMP_ERR_CORRUPT;
	if (declared != out_len)
	{
		if (snappy_validate_compressed_buffer((const char *) in, in_len) == SNAPPY_OK)
			return CMP_ERR_SIZE_MISMATCH;
		return CMP_ERR_CORRUPT;
	}
	produced = out_len;
	if (snappy_uncompress((const char *) in, in_len, (char *) out, &produced) != SNAPPY_OK)
		return CMP_ERR_CORRUPT;
	/* libsnappy already insists on the declared length; belt and braces */
	return produced == out_len ? CMP_OK : CMP_ERR_CORRUPT;
}

size_t
cmp_snappy_bound(size_t in_len)
{
	/* snappy_max_compressed_length() is 32 + n + n / 6; saturate instead */
	return cmp_add_sat(cmp_add_sat(in_len, in_len / 6), 32);
}

/*
 * libsnappy insists on a worst-case sized output buffer; with less room than
 * that we compress into a temporary one and copy if the result fits.
 */
CmpStatus
cmp_snappy_compress(int level, const uint8_t *in, size_t in_len,
					uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		bound;
	size_t		len;
	uint8_t    *tmp;
	snappy_status rc;

	(void) level;
	/* the stream's length prefix is a 32-bit varint */
	if (in_len > UINT32_MAX)
		return CMP_ERR_UNSUPPORTED;
	bound = snappy_max_compressed_length(in_len);
	if (out_cap >= bound)
	{
		len = out_cap;
		rc = snappy_compress((const char *) in, in_len, (char *) out, &len);
		if (rc != SNAPPY_OK)
			return CMP_ERR_OUTPUT_FULL;
		*written = len;
		return CMP_OK;
	}

	tmp = malloc(bound);
	if (tmp == NULL)
		return CMP_ERR_NOMEM;
	len = bound;
	rc = snappy_compress((const char *) in, in_len, (char *) tmp, &len);
	if (rc != SNAPPY_OK || len > out_cap)
	{
		free(tmp);
		return CMP_ERR_OUTPUT_FULL;
	}
	memcpy(out, tmp, len);
	free(tmp);
	*written = len;
	return CMP_OK;
}
