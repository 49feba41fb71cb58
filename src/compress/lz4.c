/*-------------------------------------------------------------------------
 *
 * lz4.c
 *	  Parquet LZ4_RAW (one raw LZ4 block) and LZ4 (Hadoop framing, or not).
 *
 * LZ4_RAW is a single LZ4 block, decoded with LZ4_decompress_safe().
 *
 * Parquet's older codec 5, "LZ4", was meant to be Hadoop's LZ4 codec, whose
 * stream is a sequence of blocks, each
 *
 *		[4-byte big-endian uncompressed size]
 *		one or more [4-byte big-endian compressed size][raw LZ4 block]
 *
 * where the chunks of a block decode to exactly the block's uncompressed
 * size (Hadoop's BlockCompressorStream; Arrow's writer emits one chunk per
 * block).  Other writers put a bare LZ4 block, or an LZ4 frame (the lz4
 * command's format, magic 0x184D2204), under the same codec id.  We try the
 * three in that order, as Arrow does; the Hadoop sizes have to tile the
 * input exactly and the chunks have to decode to them, so a stream of
 * another kind is essentially never taken for Hadoop framing.
 *
 * LZ4_decompress_safe() cannot tell "the data is longer than out_len" from
 * "the data is corrupt".  Only when decoding fails, lz4_block_measure() walks
 * a block's sequences without writing anything to learn how long it would
 * decode, so a valid stream of the wrong size is reported as
 * CMP_ERR_SIZE_MISMATCH and garbage as CMP_ERR_CORRUPT.
 *
 * Compression levels: 0 is LZ4's default fast mode; a negative level is the
 * fast mode's acceleration (-level); 1..12 use LZ4HC at that level (higher
 * is clamped).  CMP_LZ4_HADOOP writes Hadoop framing, one chunk per block,
 * blocks of at most CMP_LZ4_HADOOP_BLOCK input bytes, which Arrow, parquet-mr
 * and Hadoop itself all read.
 *
 * liblz4 counts in int, so a raw block and its output are limited to
 * LZ4_MAX_INPUT_SIZE and INT_MAX bytes.
 *
 * The LZ4 frame decoder's context is created on first use and kept for the
 * process, reset before each use (single-threaded, like zstd.c's).
 *
 * IDENTIFICATION
 *	  src/compress/lz4.c
 *
 *-------------------------------------------------------------------------
 */
#include "compress/compress_int.h"

#include <limits.h>

#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>

/* Uncompressed bytes per Hadoop block we write (Hadoop's default buffer). */
#define CMP_LZ4_HADOOP_BLOCK ((size_t) 256 * 1024)
#define CMP_LZ4_HADOOP_PREFIX 4

static LZ4F_dctx *lz4f_dctx;

static inline uint32_t
read_be32(const uint8_t *p)
{
	return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) |
		((uint32_t) p[2] << 8) | (uint32_t) p[3];
}

static inline void
write_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) (v >> 24);
	p[1] = (uint8_t) (v >> 16);
	p[2] = (uint8_t) (v >> 8);
	p[3] = (uint8_t) v;
}

/*
 * Walk the sequences of a raw LZ4 block without decoding it: true, with the
 * decoded length in *decoded, when every length stays inside the input,
 * every match offset points into what would already be decoded, and the
 * block ends on a literal-only sequence.  Looser than liblz4 about the format's
 * end-of-block margins, which is fine for telling a size mismatch from
 * garbage after liblz4 has refused the block.
 */
static bool
lz4_block_measure(const uint8_t *in, size_t in_len, size_t *decoded)
{
	size_t		ip = 0;
	size_t		op = 0;

	for (;;)
	{
		unsigned	token;
		size_t		literals;
		size_t		match;
		size_t		offset;
		uint8_t		b;

		if (ip >= in_len)
			return false;
		token = in[ip++];
		literals = token >> 4;
		if (literals == 15)
		{
			do
			{
				if (ip >= in_len)
					return false;
				b = in[ip++];
				literals += b;
			} while (b == 255);
		}
		if (literals > in_len - ip)
			return false;
		ip += literals;
		op += literals;
		if (ip == in_len)
		{
			/* the last sequence is literals only, its match nibble 0 */
			*decoded = op;
			return (token & 15) == 0;
		}

		if (in_len - ip < 2)
			return false;
		offset = (size_t) in[ip] | ((size_t) in[ip + 1] << 8);
		ip += 2;
		if (offset == 0 || offset > op)
			return false;
		match = token & 15;
		if (match == 15)
		{
			do
			{
				if (ip >= in_len)
					return false;
				b = in[ip++];
				match += b;
			} while (b == 255);
		}
		/* each length byte adds at most 255: no overflow in size_t */
		op += match + 4;
	}
}

/*
 * Decode one raw block into exactly out_len bytes; false on any failure.
 */
static bool
lz4_block_decode(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
	int			n;

	if (in_len > LZ4_MAX_INPUT_SIZE || out_len > INT_MAX)
		return false;
	n = LZ4_decompress_safe((const char *) in, (char *) out,
							(int) in_len, (int) out_len);
	return n >= 0 && (size_t) n == out_len;
}

/* Status for a raw block that did not decode to exactly out_len bytes. */
static CmpStatus
lz4_block_failure(const uint8_t *in, size_t in_len, size_t out_len)
{
	size_t		decoded;

	if (lz4_block_measure(in, in_len, &decoded) && decoded != out_len)
		return CMP_ERR_SIZE_MISMATCH;
	return CMP_ERR_CORRUPT;
}

CmpStatus
cmp_lz4_raw_decompress(const uint8_t *in, size_t in_len,
					   uint8_t *out, size_t out_len)
{
	if (lz4_block_decode(in, in_len, out, out_len))
		return CMP_OK;
	return lz4_block_failure(in, in_len, out_len);
}

/*
 * Hadoop framing.  With out != NULL, decode into exactly out_len bytes and
 * return whether that worked.  With out == NULL, only check the structure
 * (chunks measured, not decoded) and return its total decoded size in
 * *total.  A block holds at least one chunk, so Arrow's [0][1][0x00] for an
 * empty page parses.
 */
static bool
lz4_hadoop_walk(const uint8_t *in, size_t in_len,
				uint8_t *out, size_t out_len, size_t *total)
{
	size_t		ip = 0;
	size_t		op = 0;

	while (ip < in_len)
	{
		size_t		block_len;
		size_t		block_done = 0;

		if (in_len - ip < CMP_LZ4_HADOOP_PREFIX)
			return false;
		block_len = read_be32(in + ip);
		ip += CMP_LZ4_HADOOP_PREFIX;
		if (out != NULL && block_len > out_len - op)
			return false;
		do
		{
			size_t		chunk_len;
			size_t		chunk_out;

			if (in_len - ip < CMP_LZ4_HADOOP_PREFIX)
				return false;
			chunk_len = read_be32(in + ip);
			ip += CMP_LZ4_HADOOP_PREFIX;
			if (chunk_len > in_len - ip)
				return false;
			if (out != NULL)
			{
				int			n;

				/* a chunk may fill at most the rest of its block */
				if (chunk_len > LZ4_MAX_INPUT_SIZE ||
					block_len - block_done > INT_MAX)
					return false;
				n = LZ4_decompress_safe((const char *) in + ip,
										(char *) out + op,
										(int) chunk_len,
										(int) (block_len - block_done));
				if (n < 0)
					return false;
				chunk_out = (size_t) n;
			}
			else
			{
				if (!lz4_block_measure(in + ip, chunk_len, &chunk_out) ||
					chunk_out > block_len - block_done)
					return false;
			}
			ip += chunk_len;
			op += chunk_out;
			block_done += chunk_out;
		} while (block_done < block_len);
	}
	*total = op;
	return out == NULL || op == out_len;
}

/*
 * An LZ4 frame stream (one or more frames, skippable frames allowed) into
 * exactly out_len bytes.  Once out is full, decoding continues into scratch
 * space: any further byte makes it a size mismatch.
 */
static CmpStatus
lz4_frame_decompress(const uint8_t *in, size_t in_len,
					 uint8_t *out, size_t out_len)
{
	uint8_t		scratch[64];
	size_t		ip = 0;
	size_t		op = 0;
	size_t		hint = 1;

	if (lz4f_dctx == NULL)
	{
		if (LZ4F_isError(LZ4F_createDecompressionContext(&lz4f_dctx, LZ4F_VERSION)))
		{
			lz4f_dctx = NULL;
			return CMP_ERR_NOMEM;
		}
	}
	else
		LZ4F_resetDecompressionContext(lz4f_dctx);	/* after an error */

	/*
	 * Go on after the input is used up while a frame is still open: liblz4
	 * may hold decoded bytes it had no room for.
	 */
	while (ip < in_len || hint != 0)
	{
		bool		full = op == out_len;
		size_t		dst_size = full ? sizeof(scratch) : out_len - op;
		size_t		src_size = in_len - ip;

		hint = LZ4F_decompress(lz4f_dctx, full ? scratch : out + op, &dst_size,
							   in + ip, &src_size, NULL);
		if (LZ4F_isError(hint))
			return CMP_ERR_CORRUPT;
		if (full && dst_size > 0)
			return CMP_ERR_SIZE_MISMATCH;
		ip += src_size;
		op += full ? 0 : dst_size;
		if (src_size == 0 && dst_size == 0)
			break;				/* truncated: it wants input there is none of */
	}
	if (hint != 0)
		return CMP_ERR_CORRUPT;
	return op == out_len ? CMP_OK : CMP_ERR_SIZE_MISMATCH;
}

CmpStatus
cmp_lz4_hadoop_decompress(const uint8_t *in, size_t in_len,
						  uint8_t *out, size_t out_len)
{
	CmpStatus	frame_status;
	size_t		total;
	size_t		decoded;

	if (lz4_hadoop_walk(in, in_len, out, out_len, &total))
		return CMP_OK;

	/*
	 * A bare block, only if it is well formed by our stricter reading:
	 * liblz4 accepts match offset 0, and a Hadoop stream read as a block
	 * starts with exactly that (token 0, offset 0 from the high bytes of a
	 * small size), so a Hadoop stream asked for the wrong size could
	 * otherwise "decode" as a block of garbage.
	 */
	if (lz4_block_measure(in, in_len, &decoded) && decoded == out_len &&
		lz4_block_decode(in, in_len, out, out_len))
		return CMP_OK;
	frame_status = lz4_frame_decompress(in, in_len, out, out_len);
	if (frame_status != CMP_ERR_CORRUPT)
		return frame_status;

	/* nothing decoded to out_len bytes: was any reading valid at all? */
	if (lz4_hadoop_walk(in, in_len, NULL, 0, &total) && total != out_len)
		return CMP_ERR_SIZE_MISMATCH;
	return lz4_block_failure(in, in_len, out_len);
}

size_t
cmp_lz4_raw_bound(size_t in_len)
{
	/* LZ4_COMPRESSBOUND(), computed in size_t */
	return cmp_add_sat(cmp_add_sat(in_len, in_len / 255), 16);
}

size_t
cmp_lz4_hadoop_bound(size_t in_len)
{
	size_t		blocks = in_len / CMP_LZ4_HADOOP_BLOCK + 1;
	size_t		framing = blocks > SIZE_MAX / 24 ? SIZE_MAX : blocks * 24;

	/* per block: 8 bytes of sizes and LZ4_COMPRESSBOUND's 16 */
	return cmp_add_sat(cmp_add_sat(in_len, in_len / 255), framing);
}

/* One raw block at our level conventions; 0 when it does not fit. */
static int
lz4_block_compress(int level, const uint8_t *in, size_t in_len,
				   uint8_t *out, size_t out_cap)
{
	int			cap = out_cap > INT_MAX ? INT_MAX : (int) out_cap;

	if (level > 0)
		return LZ4_compress_HC((const char *) in, (char *) out, (int) in_len,
							   cap, level > LZ4HC_CLEVEL_MAX ? LZ4HC_CLEVEL_MAX : level);
	return LZ4_compress_fast((const char *) in, (char *) out, (int) in_len,
							 cap, level < 0 ? -level : 1);
}

CmpStatus
cmp_lz4_raw_compress(int level, const uint8_t *in, size_t in_len,
					 uint8_t *out, size_t out_cap, size_t *written)
{
	int			n;

	if (in_len > LZ4_MAX_INPUT_SIZE)
		return CMP_ERR_UNSUPPORTED;
	if (out_cap == 0)
		return CMP_ERR_OUTPUT_FULL;
	n = lz4_block_compress(level, in, in_len, out, out_cap);
	if (n <= 0)
		return CMP_ERR_OUTPUT_FULL;
	*written = (size_t) n;
	return CMP_OK;
}

CmpStatus
cmp_lz4_hadoop_compress(int level, const uint8_t *in, size_t in_len,
						uint8_t *out, size_t out_cap, size_t *written)
{
	size_t		ip = 0;
	size_t		op = 0;

	/* do-while: empty input still gets one (empty) block, as Arrow writes */
	do
	{
		size_t		block_len = in_len - ip;
		int			n;

		if (block_len > CMP_LZ4_HADOOP_BLOCK)
			block_len = CMP_LZ4_HADOOP_BLOCK;
		if (out_cap - op <= 2 * CMP_LZ4_HADOOP_PREFIX)
			return CMP_ERR_OUTPUT_FULL;
		n = lz4_block_compress(level, in + ip, block_len,
							   out + op + 2 * CMP_LZ4_HADOOP_PREFIX,
							   out_cap - op - 2 * CMP_LZ4_HADOOP_PREFIX);
		if (n <= 0)
			return CMP_ERR_OUTPUT_FULL;
		write_be32(out + op, (uint32_t) block_len);
		write_be32(out + op + CMP_LZ4_HADOOP_PREFIX, (uint32_t) n);
		op += 2 * CMP_LZ4_HADOOP_PREFIX + (size_t) n;
		ip += block_len;
	} while (ip < in_len);
	*written = op;
	return CMP_OK;
}
