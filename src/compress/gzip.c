/*-------------------------------------------------------------------------
 *
 * gzip.c
 *	  Parquet GZIP: deflate in a gzip (or zlib) wrapper, through zlib.
 *
 * Decompression inflates with windowBits 15 + 32, so zlib detects a gzip or
 * a zlib header by itself, and keeps going after the end of a stream while
 * input remains: gzip allows several members back to back, and some writers
 * emit a page as more than one (data/concatenated_gzip_members.parquet).
 * Anything after the last member that is not another valid member is
 * corrupt; there is no tolerance for trailing padding.
 *
 * zlib counts in 32-bit uInt, so both buffers are fed to it in windows of
 * at most CMP_ZLIB_WINDOW bytes; everything else is counted in size_t.
 *
 * When out_len bytes have been produced and the stream has not ended, the
 * decoder continues into a small scratch buffer: one more byte of output
 * means the data is longer than out_len (CMP_ERR_SIZE_MISMATCH), without
 * inflating the rest of a possibly huge stream.
 *
 * Compression writes a single gzip member, levels 1..9 (0 means zlib's
 * default, 6; others are clamped).
 *
 * IDENTIFICATION
 *	  src/compress/gzip.c
 *
 *-------------------------------------------------------------------------
 */
#include "compress/compress_int.h"

#include <limits.h>
#include <string.h>

#include <zlib.h>

/* Largest piece of a buffer handed to zlib at once. */
#define CMP_ZLIB_WINDOW ((size_t) 1 << 30)

/* 15-bit window; +32: detect gzip or zlib header; +16: write gzip. */
#define CMP_INFLATE_WBITS (15 + 32)
#define CMP_DEFLATE_WBITS (15 + 16)

/* A buffer fed to zlib window by window. */
typedef struct ZlibFeed
{
	size_t		left;			/* bytes not yet handed to zlib */
} ZlibFeed;

/*
 * Hand zlib the next window of a buffer once it has used up the last one;
 * zlib's next pointer already points at it, the windows being contiguous.
 */
static inline void
zlib_refill(uInt *avail, ZlibFeed *feed)
{
	if (*avail == 0 && feed->left > 0)
	{
		size_t		n = feed->left < CMP_ZLIB_WINDOW ? feed->left : CMP_ZLIB_WINDOW;

		*avail = (uInt) n;
		feed->left -= n;
	}
}

/* zlib's allocation callbacks over the layer's counted hooks. */
static voidpf
zlib_alloc(voidpf opaque, uInt items, uInt size)
{
	void	   *p = cmp_lib_alloc(opaque, (size_t) items * size);

	return p ? p : Z_NULL;
}

static void
zlib_free(voidpf opaque, voidpf address)
{
	cmp_lib_free(opaque, address);
}

CmpStatus
cmp_gzip_decompress(const uint8_t *in, size_t in_len,
					uint8_t *out, size_t out_len)
{
	z_stream	zs;
	ZlibFeed	in_feed = {in_len};
	ZlibFeed	out_feed = {out_len};
	uint8_t		scratch[64];
	bool		in_scratch = false;
	CmpStatus	status;
	int			rc;

	memset(&zs, 0, sizeof(zs));
	zs.zalloc = zlib_alloc;
	zs.zfree = zlib_free;
	zs.next_in = (Bytef *) in;
	zs.next_out = out;
	rc = inflateInit2(&zs, CMP_INFLATE_WBITS);
	if (rc != Z_OK)
		return rc == Z_MEM_ERROR ? CMP_ERR_NOMEM : CMP_ERR_CORRUPT;

	for (;;)
	{
		zlib_refill(&zs.avail_in, &in_feed);
		zlib_refill(&zs.avail_out, &out_feed);
		if (zs.avail_out == 0 && !in_scratch)
		{
			/* out is full: anything more goes to scratch and is an error */
			in_scratch = true;
			zs.next_out = scratch;
			zs.avail_out = sizeof(scratch);
		}

		rc = inflate(&zs, Z_NO_FLUSH);

		if (in_scratch && zs.avail_out < sizeof(scratch))
		{
			status = (rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR)
				? CMP_ERR_SIZE_MISMATCH : CMP_ERR_CORRUPT;
			break;
		}
		if (rc == Z_STREAM_END)
		{
			if (zs.avail_in == 0 && in_feed.left == 0)
			{
				/* in scratch mode out is full; else count what it holds */
				if (in_scratch ||
					(size_t) (zs.next_out - out) == out_len)
					status = CMP_OK;
				else
					status = CMP_ERR_SIZE_MISMATCH;
				break;
			}
			/* another member follows; the header type is detected again */
			if (inflateReset(&zs) != Z_OK)
			{
				status = CMP_ERR_CORRUPT;
				break;
			}
			continue;
		}
		if (rc == Z_OK)
			continue;
		if (rc == Z_MEM_ERROR)
			status = CMP_ERR_NOMEM;
		else
		{
			/*
			 * Z_DATA_ERROR, Z_NEED_DICT, or Z_BUF_ERROR: no progress with
			 * room to write, i.e. the input ended inside the stream.
			 */
			status = CMP_ERR_CORRUPT;
		}
		break;
	}
	inflateEnd(&zs);
	return status;
}

size_t
cmp_gzip_bound(size_t in_len)
{
	/*
	 * zlib's compressBound() (zlib wrapper, 6 bytes) plus the 18 bytes of a
	 * gzip header and trailer, computed in size_t and saturated.
	 */
	size_t		bound = in_len;

	bound = cmp_add_sat(bound, in_len >> 12);
	bound = cmp_add_sat(bound, in_len >> 14);
	bound = cmp_add_sat(bound, in_len >> 25);
	return cmp_add_sat(bound, 13 + 18);
}

CmpStatus
cmp_gzip_compress(int level, const uint8_t *in, size_t in_len,
				  uint8_t *out, size_t out_cap, size_t *written)
{
	z_stream	zs;
	ZlibFeed	in_feed = {in_len};
	ZlibFeed	out_feed = {out_cap};
	CmpStatus	status;
	int			rc;

	if (level == 0)
		level = Z_DEFAULT_COMPRESSION;
	else if (level < 1)
		level = 1;
	else if (level > 9)
		level = 9;

	memset(&zs, 0, sizeof(zs));
	zs.zalloc = zlib_alloc;
	zs.zfree = zlib_free;
	zs.next_in = (Bytef *) in;
	zs.next_out = out;
	rc = deflateInit2(&zs, level, Z_DEFLATED, CMP_DEFLATE_WBITS, 8,
					  Z_DEFAULT_STRATEGY);
	if (rc != Z_OK)
		return rc == Z_MEM_ERROR ? CMP_ERR_NOMEM : CMP_ERR_UNSUPPORTED;

	for (;;)
	{
		zlib_refill(&zs.avail_in, &in_feed);
		zlib_refill(&zs.avail_out, &out_feed);
		if (zs.avail_out == 0)
		{
			status = CMP_ERR_OUTPUT_FULL;
			break;
		}
		rc = deflate(&zs, in_feed.left == 0 ? Z_FINISH : Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
		{
			*written = (size_t) (zs.next_out - out);
			status = CMP_OK;
			break;
		}
		if (rc == Z_OK || rc == Z_BUF_ERROR)
			continue;
		status = rc == Z_MEM_ERROR ? CMP_ERR_NOMEM : CMP_ERR_CORRUPT;
		break;
	}
	deflateEnd(&zs);
	return status;
}
