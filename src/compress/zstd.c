/*-------------------------------------------------------------------------
 *
 * zstd.c
 *	  Zstandard frames through libzstd.
 *
 * Decompression is one ZSTD_decompressDCtx() call: it walks every frame in
 * the input (several concatenated frames, skippable frames, frames whose
 * header omits the content size), writes straight into out, and fails
 * rather than exceed out_len.  Its error codes tell a stream that is longer
 * than out_len (dstSize_tooSmall: CMP_ERR_SIZE_MISMATCH) from a corrupt or
 * truncated one.
 *
 * Contexts are costly to create (hundreds of KB of tables), so one
 * decompression and one compression context live for the whole process,
 * created on first use (through compress.c's counted allocation hooks,
 * see cmp_memory_stats()).  A PostgreSQL backend is single-threaded; a
 * multi-threaded caller would need a context per thread.
 *
 * Compression levels are zstd's own, 0 meaning its default (3), clamped to
 * [ZSTD_minCLevel(), ZSTD_maxCLevel()].
 *
 * IDENTIFICATION
 *	  src/compress/zstd.c
 *
 *-------------------------------------------------------------------------
 */
#include "compress/compress_int.h"

/* for ZSTD_createDCtx_advanced(): contexts allocate through our hooks */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

static ZSTD_DCtx *zstd_dctx;
static ZSTD_CCtx *zstd_cctx;
static const ZSTD_customMem zstd_mem = {cmp_lib_alloc, cmp_lib_free, NULL};

/* Map a libzstd error result onto our statuses. */
static CmpStatus
zstd_error_status(size_t result, CmpStatus too_small)
{
	switch (ZSTD_getErrorCode(result))
	{
		case ZSTD_error_dstSize_tooSmall:
			return too_small;
		case ZSTD_error_memory_allocation:
			return CMP_ERR_NOMEM;
		default:
			return CMP_ERR_CORRUPT;
	}
}

CmpStatus
cmp_zstd_decompress(const uint8_t *in, size_t in_len,
					uint8_t *out, size_t out_len)
{
	size_t		produced;

	if (zstd_dctx == NULL)
	{
		zstd_dctx = ZSTD_createDCtx_advanced(zstd_mem);
		if (zstd_dctx == NULL)
			return CMP_ERR_NOMEM;
	}
	produced = ZSTD_decompressDCtx(zstd_dctx, out, out_len, in, in_len);
	if (ZSTD_isError(produced))
		return zstd_error_status(produced, CMP_ERR_SIZE_MISMATCH);
	return produced == out_len ? CMP_OK : CMP_ERR_SIZE_MISMATCH;
}

size_t
cmp_zstd_bound(size_t in_len)
{
	size_t		bound = ZSTD_compressBound(in_len);

	/* an error code (input too large for zstd): no capacity suffices */
	return ZSTD_isError(bound) ? SIZE_MAX : bound;
}

CmpStatus
cmp_zstd_compress(int level, const uint8_t *in, size_t in_len,
				  uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		len;

	if (level < ZSTD_minCLevel())
		level = ZSTD_minCLevel();
	else if (level > ZSTD_maxCLevel())
		level = ZSTD_maxCLevel();
	if (zstd_cctx == NULL)
	{
		zstd_cctx = ZSTD_createCCtx_advanced(zstd_mem);
		if (zstd_cctx == NULL)
			return CMP_ERR_NOMEM;
	}
	len = ZSTD_compressCCtx(zstd_cctx, out, out_cap, in, in_len, level);
	if (ZSTD_isError(len))
		return zstd_error_status(len, CMP_ERR_OUTPUT_FULL);
	*written = len;
	return CMP_OK;
}
