/*-------------------------------------------------------------------------
 *
 * crc32.h
 *	  CRC-32 as Parquet page headers store it.
 *
 * The ISO-HDLC CRC-32 (reflected polynomial 0xEDB88320, initial value and
 * final xor 0xFFFFFFFF), the one zlib's crc32() computes, with the same
 * chaining convention: pass the CRC of the bytes so far (0 before any) and
 * get the CRC of them followed by buf.  Lengths are size_t, so callers need
 * not cut large pages into pieces.
 *
 * IDENTIFICATION
 *	  src/common/crc32.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PFC_CRC32_H
#define PFC_CRC32_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CRC of the bytes crc covered followed by buf[0..len). */
uint32_t	pfc_crc32_update(uint32_t crc, const void *buf, size_t len);

/* CRC of buf[0..len) alone. */
static inline uint32_t
pfc_crc32(const void *buf, size_t len)
{
	return pfc_crc32_update(0, buf, len);
}

#ifdef __cplusplus
}
#endif

#endif							/* PFC_CRC32_H */
