/*-------------------------------------------------------------------------
 *
 * alp.h
 *	  Contract of ALP (adaptive lossless floating point: decimal-scaled
 *	  integers with exceptions) and ALPRD (right/left split with a dictionary
 *	  of left parts), as Amudai stores them (amudai-format.md 4.2).
 *
 * These functions work on the decoded children of an ALP / ALPRD section:
 * the Amudai reader parses the section's metadata, decodes the cascaded
 * integer (ALP) or left-code/right-part (ALPRD) children, and hands them here
 * together with the raw trailing exception bytes, exactly as the section
 * stores them:
 *
 *	ALP exceptions:   exception_count u32 positions, then exception_count raw
 *	                  floats (f64 or f32 IEEE bit patterns), little-endian,
 *	                  unaligned, no padding.
 *	ALPRD dictionary: dict_len (<= 8) u16 left parts, little-endian.
 *	ALPRD exceptions: exception_count u32 positions, then exception_count
 *	                  u16 left parts.
 *
 * ALP decode: x = (T) ints[i] * F10[factor] * IF10[exponent], evaluated left
 * to right in T's own precision (no FMA: this file is built so), where
 * F10[i] = 10^i and IF10[i] = 10^-i rounded to T; then exceptions overwrite
 * their positions.  exponent and factor index tables of 24 (f64) or 11 (f32)
 * entries; larger values are CDC_ERR_CORRUPT.
 *
 * ALPRD decode: bits = ((uint) left << right_bit_width) | right, where left =
 * dict[code] or, at exception positions, the stored left part.
 * right_bit_width must be 1..T_BITS-1, codes < dict_len, positions < count;
 * otherwise CDC_ERR_CORRUPT.  Exception byte regions must be exactly
 * exception_count * (4 + element size) bytes: shorter is CDC_ERR_TRUNCATED,
 * longer CDC_ERR_CORRUPT.  out needs room for count values only.
 *
 * Encoders (ours, bit-exact): every value whose decode would not reproduce
 * its exact bit pattern becomes an exception, so -0.0, NaN payloads,
 * infinities and subnormals round-trip (unlike the reference writer, which
 * folds -0.0 into +0.0).  Exception arrays passed to encoders need room for
 * count entries; the caller checks the returned exception count against the
 * format's u16 limit.  Parameter search samples at most CDC_ALP_SAMPLE
 * values spread over the input.
 *
 * IDENTIFICATION
 *	  src/codec/alp.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_ALP_H
#define CDC_ALP_H

#include "codec/codec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CDC_ALP_MAX_EXPONENT64	23	/* F10/IF10 tables: 24 entries for f64 */
#define CDC_ALP_MAX_EXPONENT32	10	/* 11 entries for f32 */
#define CDC_ALP_SAMPLE			1024
#define CDC_ALPRD_MAX_DICT		8

/* ---------------- ALP ---------------- */

typedef struct CdcAlpParams
{
	uint8_t		exponent;		/* e: values are scaled by 10^e ... */
	uint8_t		factor;			/* f: ... and divided by 10^f on encode */
} CdcAlpParams;

CdcStatus	cdc_alp_decode64(const int64_t *ints, size_t count,
							 unsigned exponent, unsigned factor,
							 const uint8_t *exceptions, size_t exceptions_len,
							 uint32_t exception_count, double *out);
CdcStatus	cdc_alp_decode32(const int32_t *ints, size_t count,
							 unsigned exponent, unsigned factor,
							 const uint8_t *exceptions, size_t exceptions_len,
							 uint32_t exception_count, float *out);

/*
 * ALP whose integer child is FFOR (the usual cascade), fused: each
 * 1024-value FastLanes chunk is unpacked into an L1-resident buffer and
 * converted straight away, so the integers never travel through memory.
 * `packed` is the FFOR payload (exactly cdc_fl_packed_size(count, width)
 * bytes, as cdc_ffor_decode64 requires), reference and width come from the
 * FFOR metadata; the rest is as cdc_alp_decode64.  Same results as
 * cdc_ffor_decode64 followed by cdc_alp_decode64.
 */
CdcStatus	cdc_alp_ffor_decode64(const uint8_t *packed, size_t packed_len,
								  unsigned width, uint64_t reference, size_t count,
								  unsigned exponent, unsigned factor,
								  const uint8_t *exceptions, size_t exceptions_len,
								  uint32_t exception_count, double *out);

/* Best (exponent, factor) for the data, by encoded size on a sample. */
void		cdc_alp_choose64(const double *in, size_t count, CdcAlpParams *params);
void		cdc_alp_choose32(const float *in, size_t count, CdcAlpParams *params);

/*
 * Encode with the given parameters: ints[count], and the exceptions'
 * positions (ascending) and values; returns the exception count.  Exception
 * slots of ints hold the first non-exception integer (0 if none), as the
 * reference writer does, so they do not widen the integer child.
 */
size_t		cdc_alp_encode64(const double *in, size_t count, CdcAlpParams params,
							 int64_t *ints, uint32_t *exc_positions,
							 double *exc_values);
size_t		cdc_alp_encode32(const float *in, size_t count, CdcAlpParams params,
							 int32_t *ints, uint32_t *exc_positions,
							 float *exc_values);

/* Serialize exceptions in the section's layout (positions, then values). */
CdcStatus	cdc_alp_write_exceptions64(const uint32_t *positions, const double *values,
									   size_t exception_count, uint8_t *out,
									   size_t out_cap, size_t *written);
CdcStatus	cdc_alp_write_exceptions32(const uint32_t *positions, const float *values,
									   size_t exception_count, uint8_t *out,
									   size_t out_cap, size_t *written);

/* ---------------- ALPRD ---------------- */

typedef struct CdcAlprdParams
{
	uint8_t		right_bit_width;	/* R = T_BITS - left bits */
	uint8_t		dict_len;			/* 1..8 */
	uint16_t	dict[CDC_ALPRD_MAX_DICT];	/* most frequent left parts first */
} CdcAlprdParams;

CdcStatus	cdc_alprd_decode64(const uint16_t *left_codes, const uint64_t *right_parts,
							   size_t count, unsigned right_bit_width,
							   const uint8_t *dict, unsigned dict_len,
							   const uint8_t *exceptions, size_t exceptions_len,
							   uint32_t exception_count, double *out);
CdcStatus	cdc_alprd_decode32(const uint16_t *left_codes, const uint32_t *right_parts,
							   size_t count, unsigned right_bit_width,
							   const uint8_t *dict, unsigned dict_len,
							   const uint8_t *exceptions, size_t exceptions_len,
							   uint32_t exception_count, float *out);

/* Best split (left bits 1..16) and dictionary, by estimated size on a sample. */
void		cdc_alprd_choose64(const double *in, size_t count, CdcAlprdParams *params);
void		cdc_alprd_choose32(const float *in, size_t count, CdcAlprdParams *params);

/* Encode: codes, right parts and exceptions (positions ascending, left
 * parts); returns the exception count.  Exception slots get code 0. */
size_t		cdc_alprd_encode64(const double *in, size_t count,
							   const CdcAlprdParams *params, uint16_t *left_codes,
							   uint64_t *right_parts, uint32_t *exc_positions,
							   uint16_t *exc_left);
size_t		cdc_alprd_encode32(const float *in, size_t count,
							   const CdcAlprdParams *params, uint16_t *left_codes,
							   uint32_t *right_parts, uint32_t *exc_positions,
							   uint16_t *exc_left);

/* Serialize the dictionary (dict_len u16) and the exceptions (positions,
 * then u16 left parts) in the section's layout. */
CdcStatus	cdc_alprd_write_dict(const CdcAlprdParams *params, uint8_t *out,
								 size_t out_cap, size_t *written);
CdcStatus	cdc_alprd_write_exceptions(const uint32_t *positions, const uint16_t *left,
									   size_t exception_count, uint8_t *out,
									   size_t out_cap, size_t *written);

#ifdef __cplusplus
}
#endif

#endif							/* CDC_ALP_H */
