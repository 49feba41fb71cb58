/*-------------------------------------------------------------------------
 *
 * framing.c
 *	  File frames, checksum32, message envelopes, errors and allocation
 *	  helpers of the Amudai layer.
 *
 * Every Amudai file starts and ends with the 8 bytes "amud", patch (u8),
 * minor (u16 LE), major (u8); the reference accepts any major <= 0.
 * Messages are stored as [u32 len][payload][u32 checksum32(payload)] with
 * checksum32 = lo32(h) ^ hi32(h), h = XXH3_64bits(payload) (seed 0).
 *
 * IDENTIFICATION
 *	  src/amudai/framing.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/amudai_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <xxhash.h>

static const uint8_t am_magic[4] = {'a', 'm', 'u', 'd'};

void
am_error_clear(AmError *err)
{
	if (err == NULL)
		return;
	err->status = AM_OK;
	err->sys_errno = 0;
	err->stripe = -1;
	err->field = -1;
	err->block = -1;
	err->message[0] = '\0';
}

const char *
am_status_name(AmStatus status)
{
	switch (status)
	{
		case AM_OK:
			return "ok";
		case AM_ERR_IO:
			return "i/o error";
		case AM_ERR_CORRUPT:
			return "corrupt";
		case AM_ERR_UNSUPPORTED:
			return "unsupported";
		case AM_ERR_CHECKSUM:
			return "checksum mismatch";
		case AM_ERR_INVALID_ARGUMENT:
			return "invalid argument";
	}
	return "unknown status";
}

AmStatus
am_fail(AmError *err, AmStatus status, const char *fmt, ...)
{
	va_list		ap;

	if (err == NULL)
		return status;
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return status;
}

void *
am_alloc(const PfcAllocator *alloc, size_t size, AmError *err)
{
	void	   *p = alloc->alloc(alloc->ctx, size > 0 ? size : 1);

	if (p == NULL && err != NULL)
	{
		am_fail(err, AM_ERR_IO, "out of memory allocating %zu bytes", size);
		err->sys_errno = ENOMEM;
	}
	return p;
}

void
am_release(const PfcAllocator *alloc, void *ptr)
{
	if (ptr != NULL && alloc->release != NULL)
		alloc->release(alloc->ctx, ptr);
}

uint32_t
am_checksum32(const void *data, size_t len)
{
	XXH64_hash_t h = XXH3_64bits(data, len);

	return (uint32_t) h ^ (uint32_t) (h >> 32);
}

bool
am_frame_is_valid(const uint8_t frame[AM_FRAME_SIZE])
{
	return memcmp(frame, am_magic, 4) == 0 && frame[7] == 0;
}

AmStatus
am_envelope_parse(const uint8_t *bytes, size_t len, AmBytes *payload,
				  AmError *err)
{
	uint32_t	payload_len;
	uint32_t	stored;

	if (len < 8)
		return am_fail(err, AM_ERR_CORRUPT,
					   "message envelope of %zu bytes is shorter than 8", len);
	payload_len = am_load_u32(bytes);
	if ((uint64_t) payload_len + 8 != len)
		return am_fail(err, AM_ERR_CORRUPT,
					   "message envelope declares %u payload bytes in a range of %zu",
					   payload_len, len);
	stored = am_load_u32(bytes + 4 + payload_len);
	if (am_checksum32(bytes + 4, payload_len) != stored)
		return am_fail(err, AM_ERR_CHECKSUM,
					   "message checksum mismatch (stored %08x)", stored);
	payload->data = bytes + 4;
	payload->len = payload_len;
	return AM_OK;
}
