/*-------------------------------------------------------------------------
 *
 * snappy.c
 *	  Snappy raw format (not the framing format): compression through
 *	  libsnappy's C API, decompression by our own decoder.
 *
 * A snappy stream starts with its uncompressed length as a varint, so a
 * wrong page size is caught before anything is decoded.  The decoder
 * bounds every read by the input length and every write by the declared
 * length, and fails unless it produces exactly that many bytes.
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

/* Unaligned little-endian load and a fixed-size copy (plain moves). */
static inline uint32_t
load_le32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, 4);
	return v;
}

static inline void
copy16(uint8_t *dst, const uint8_t *src)
{
	uint8_t		v[16];

	memcpy(v, src, 16);
	memcpy(dst, v, 16);
}

/*
 * Decode the tags of a snappy stream into out[0..out_len).
 *
 * Why not libsnappy: Debian's build copies every match through an
 * out-of-line memmove call, so pages of short matches (PLAIN integers and
 * doubles: one tag per 4-8 bytes) decoded at under 1 GB/s.  Here a short
 * literal is one 16-byte move when that stays inside both buffers, a short
 * match two overlapping moves of exactly its length; everything else goes
 * the careful way.
 */
static CmpStatus
snappy_decode_tags(const uint8_t *ip, const uint8_t *ip_end,
				   uint8_t *out, size_t out_len)
{
	uint8_t    *op = out;
	uint8_t    *op_end = out + out_len;

	while (ip < ip_end)
	{
		uint32_t	tag = *ip++;
		size_t		len;
		size_t		off;

		if ((tag & 3) == 0)
		{
			/* literal: length - 1 in the tag, or in the 1-4 bytes after it */
			len = (tag >> 2) + 1;
			if (len <= 16 && ip_end - ip >= 16 && op_end - op >= 16)
			{
				copy16(op, ip);
				ip += len;
				op += len;
				continue;
			}
			if (len > 60)
			{
				size_t		nb = len - 60;

				if ((size_t) (ip_end - ip) < nb)
					return CMP_ERR_CORRUPT;
				len = 0;
				for (size_t i = 0; i < nb; i++)
					len |= (size_t) ip[i] << (8 * i);
				len += 1;
				ip += nb;
			}
			if ((size_t) (ip_end - ip) < len || (size_t) (op_end - op) < len)
				return CMP_ERR_CORRUPT;
			memcpy(op, ip, len);
			ip += len;
			op += len;
			continue;
		}

		/* copy of len bytes from off bytes back */
		switch (tag & 3)
		{
			case 1:
				if (ip_end - ip < 1)
					return CMP_ERR_CORRUPT;
				len = ((tag >> 2) & 7) + 4;
				off = ((size_t) (tag >> 5) << 8) | ip[0];
				ip += 1;
				break;
			case 2:
				if (ip_end - ip < 2)
					return CMP_ERR_CORRUPT;
				len = (tag >> 2) + 1;
				off = (size_t) ip[0] | ((size_t) ip[1] << 8);
				ip += 2;
				break;
			default:
				if (ip_end - ip < 4)
					return CMP_ERR_CORRUPT;
				len = (tag >> 2) + 1;
				off = load_le32(ip);
				ip += 4;
				break;
		}
		if (off == 0 || off > (size_t) (op - out) || len > (size_t) (op_end - op))
			return CMP_ERR_CORRUPT;
		if (len <= 8 && off >= 32 && op_end - op >= 8)
		{
			/* far back: the 8 bytes are long written, one move is cheapest */
			uint64_t	a;

			memcpy(&a, op - off, 8);
			memcpy(op, &a, 8);
		}
		else if (len <= 16 && off >= 32 && op_end - op >= 16)
			copy16(op, op - off);
		else if (off >= len)
		{
			const uint8_t *src = op - off;

			/*
			 * Near: two overlapping moves of exactly len bytes.  Loading
			 * nothing past the source matters: the byte after it was
			 * usually just stored by another tag, and a load spanning two
			 * pending stores stalls until both are written back (PLAIN
			 * int64s: a 1-byte literal, then 7 bytes from 8 back).
			 */
			if (len >= 8 && len <= 16)
			{
				uint64_t	a;
				uint64_t	b;

				memcpy(&a, src, 8);
				memcpy(&b, src + len - 8, 8);
				memcpy(op, &a, 8);
				memcpy(op + len - 8, &b, 8);
			}
			else if (len >= 4 && len < 8)
			{
				uint32_t	a;
				uint32_t	b;

				memcpy(&a, src, 4);
				memcpy(&b, src + len - 4, 4);
				memcpy(op, &a, 4);
				memcpy(op + len - 4, &b, 4);
			}
			else
				memcpy(op, src, len);
		}
		else
		{
			/* overlapping: the pattern repeats, byte by byte as the format says */
			const uint8_t *from = op - off;

			for (size_t i = 0; i < len; i++)
				op[i] = from[i];
		}
		op += len;
	}
	return op == op_end ? CMP_OK : CMP_ERR_CORRUPT;
}

/*
 * The stream's declared length must be out_len.  When it is not, the status
 * is CMP_ERR_SIZE_MISMATCH only if the whole stream is otherwise valid
 * (libsnappy can check that without writing anything), else CMP_ERR_CORRUPT.
 */
CmpStatus
cmp_snappy_decompress(const uint8_t *in, size_t in_len,
					  uint8_t *out, size_t out_len)
{
	uint64_t	declared = 0;
	size_t		i = 0;

	/* the uncompressed length: a varint of at most 5 bytes (32 bits) */
	for (;;)
	{
		if (i >= in_len || i >= 5)
			return CMP_ERR_CORRUPT;
		declared |= (uint64_t) (in[i] & 0x7f) << (7 * i);
		if ((in[i++] & 0x80) == 0)
			break;
	}
	if (declared > UINT32_MAX)
		return CMP_ERR_CORRUPT;
	if (declared != out_len)
	{
		if (snappy_validate_compressed_buffer((const char *) in, in_len) == SNAPPY_OK)
			return CMP_ERR_SIZE_MISMATCH;
		return CMP_ERR_CORRUPT;
	}
	return snappy_decode_tags(in + i, in + in_len, out, out_len);
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
