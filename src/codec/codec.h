/*-------------------------------------------------------------------------
 *
 * codec.h
 *	  Contracts of the vectorized codec layer: Parquet value encodings.
 *
 * This layer is plain C11 and knows nothing of PostgreSQL.  Every decoder
 * follows the same rules, so callers can rely on them without reading the
 * implementation:
 *
 *	- Decoders never allocate, never abort and never longjmp.  They write into
 *	  buffers the caller owns and report failure through a CdcStatus.
 *	- Input: (pointer, length).  The caller guarantees that CDC_INPUT_PADDING
 *	  bytes after in + in_len are readable (their content is unspecified), so
 *	  SIMD kernels may over-read.  Whatever the input bytes say, a decoder never
 *	  reads before `in` or past in + in_len + CDC_INPUT_PADDING.
 *	- Output: fixed-width outputs must have room for count + CDC_OUTPUT_SLACK
 *	  values; kernels may scribble in the slack, never past it.
 *	- Bounds are checked once per block (page, miniblock, run), then tight
 *	  loops run unchecked.  Hostile bytes give CDC_ERR_CORRUPT or
 *	  CDC_ERR_TRUNCATED, never an out-of-bounds access.
 *	- Byte-array values are returned as CdcByteView (pointer + length) into the
 *	  input buffer, the dictionary, or a caller-provided arena; no per-value
 *	  copies where the encoding allows none.
 *
 * Encoders exist for every decoder (the writer and the tests need them).  They
 * take an output capacity and return CDC_ERR_OUTPUT_FULL when it is too small;
 * each has a *_max_size() helper giving a capacity that always suffices.
 *
 * This header covers the Parquet encodings, one file each: bitpack.c,
 * rle.c, plain.c, dict.c, delta_binary.c, delta_length.c and
 * delta_byte_array.c (sharing the internal delta.h), byte_stream_split.c,
 * and group_varint.c; varint.h holds ULEB128 and zigzag.  Their SIMD
 * kernels live in <encoding>_avx2.c and <encoding>_avx512.c behind the
 * internal kernels.h, chosen at run time by dispatch.c.
 *
 * The encodings of Amudai shards have contracts of their own, under the
 * same rules: fastlanes.h (FLBitPack and FFOR; kernels in
 * fastlanes_kernels.h), alp.h (ALP, ALPRD) and fsst.h.  chimp.h and
 * patched_bitpack.h are codecs no file format uses yet.
 *
 * IDENTIFICATION
 *	  src/codec/codec.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_CODEC_H
#define CDC_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Readable bytes the caller guarantees after every input buffer. */
#define CDC_INPUT_PADDING	64

/* Extra values every fixed-width output buffer must have room for. */
#define CDC_OUTPUT_SLACK	64

typedef enum CdcStatus
{
	CDC_OK = 0,
	CDC_ERR_TRUNCATED,			/* input ends before the data it declares */
	CDC_ERR_CORRUPT,			/* input is self-inconsistent or out of range */
	CDC_ERR_OUTPUT_FULL,		/* output buffer or arena too small */
	CDC_ERR_UNSUPPORTED,		/* valid but not implemented (e.g. a bit width) */
	CDC_ERR_INVALID_ARGUMENT	/* caller broke the contract */
} CdcStatus;

/* Lowercase, no final period: suitable for errdetail(). */
const char *cdc_status_message(CdcStatus status);

/* A byte-array value: borrowed pointer and length. */
typedef struct CdcByteView
{
	const uint8_t *ptr;
	uint32_t	len;
} CdcByteView;

/* ----------------------------------------------------------------
 * CPU dispatch (dispatch.c)
 *
 * The instruction set is chosen once, on first use, from CPUID/XGETBV of the
 * running CPU, never from the build machine.  The environment variable
 * PARQUET_FDW_SIMD (scalar|avx2|avx512|auto) and cdc_set_isa() override it;
 * forcing an ISA the CPU lacks fails with CDC_ERR_UNSUPPORTED.
 * ----------------------------------------------------------------
 */
typedef enum CdcIsa
{
	CDC_ISA_SCALAR = 0,
	CDC_ISA_AVX2,
	CDC_ISA_AVX512,
	CDC_ISA_COUNT
} CdcIsa;

CdcIsa		cdc_isa_best(void);			/* best the CPU supports */
bool		cdc_isa_supported(CdcIsa isa);
CdcIsa		cdc_isa_current(void);		/* what the kernels use now */
CdcStatus	cdc_set_isa(CdcIsa isa);
const char *cdc_isa_name(CdcIsa isa);	/* "scalar", "avx2", "avx512" */
bool		cdc_isa_from_name(const char *name, CdcIsa *isa);	/* "auto" = best */

/* ----------------------------------------------------------------
 * Bit packing (bitpack.c)
 *
 * LSB-first order is the one of the RLE/bit-packing hybrid; MSB-first is the
 * deprecated BIT_PACKED encoding.  Widths: 0..32 for 32-bit, 0..64 for 64-bit
 * output.  Input must hold ceil(count * bit_width / 8) bytes.
 * ----------------------------------------------------------------
 */
CdcStatus	cdc_unpack32(const uint8_t *in, size_t in_len, unsigned bit_width,
						 uint32_t *out, size_t count);
CdcStatus	cdc_unpack64(const uint8_t *in, size_t in_len, unsigned bit_width,
						 uint64_t *out, size_t count);
CdcStatus	cdc_unpack32_msb(const uint8_t *in, size_t in_len, unsigned bit_width,
							 uint32_t *out, size_t count);
size_t		cdc_packed_size(size_t count, unsigned bit_width);
CdcStatus	cdc_pack32(const uint32_t *in, size_t count, unsigned bit_width,
					   uint8_t *out, size_t out_cap, size_t *written);
CdcStatus	cdc_pack64(const uint64_t *in, size_t count, unsigned bit_width,
					   uint8_t *out, size_t out_cap, size_t *written);
CdcStatus	cdc_pack32_msb(const uint32_t *in, size_t count, unsigned bit_width,
						   uint8_t *out, size_t out_cap, size_t *written);

/* ----------------------------------------------------------------
 * RLE / bit-packing hybrid (rle.c)
 *
 * A streaming decoder: init once over the encoded bytes, then pull values in
 * batches.  Used for levels, dictionary indexes and RLE booleans.  Values
 * wider than bit_width bits never come out (a run value is checked once).
 * ----------------------------------------------------------------
 */
typedef struct CdcRleDecoder
{
	const uint8_t *pos;			/* next run header */
	const uint8_t *end;			/* end of the encoded bytes */
	unsigned	bit_width;
	uint32_t	run_left;		/* values left in the current run */
	bool		run_is_literal;	/* bit-packed run (else repeated value) */
	uint32_t	run_value;		/* value of a repeated run */
	const uint8_t *literal_pos;	/* next packed group of a literal run */
	uint32_t	literal_skip;	/* values already consumed of literal_pos's group */
} CdcRleDecoder;

/* Plain form: the caller knows where the encoded bytes end. */
CdcStatus	cdc_rle_init(CdcRleDecoder *dec, const uint8_t *in, size_t in_len,
						 unsigned bit_width);

/* Length-prefixed form (4-byte little-endian length, as v1 levels and RLE
 * booleans use); *consumed gets 4 + length. */
CdcStatus	cdc_rle_init_prefixed(CdcRleDecoder *dec, const uint8_t *in,
								  size_t in_len, unsigned bit_width,
								  size_t *consumed);

/* Decode exactly count values; CDC_ERR_TRUNCATED if the stream has fewer. */
CdcStatus	cdc_rle_decode(CdcRleDecoder *dec, uint32_t *out, size_t count);
CdcStatus	cdc_rle_decode16(CdcRleDecoder *dec, int16_t *out, size_t count);	/* levels */
CdcStatus	cdc_rle_skip(CdcRleDecoder *dec, size_t count);

size_t		cdc_rle_max_size(size_t count, unsigned bit_width);
CdcStatus	cdc_rle_encode(const uint32_t *in, size_t count, unsigned bit_width,
						   uint8_t *out, size_t out_cap, size_t *written);

/* ----------------------------------------------------------------
 * PLAIN (plain.c)
 *
 * Fixed-width values are copied little-endian as stored (INT32, INT64, FLOAT,
 * DOUBLE, INT96 = 12 bytes, FIXED_LEN_BYTE_ARRAY = its width).  BOOLEAN is
 * bit-packed LSB first and decodes to one byte 0/1 per value.  BYTE_ARRAY is a
 * 4-byte length then the bytes; views point into `in`.  *consumed gets the
 * bytes used.
 * ----------------------------------------------------------------
 */
CdcStatus	cdc_plain_fixed_decode(const uint8_t *in, size_t in_len, size_t width,
								   void *out, size_t count, size_t *consumed);
CdcStatus	cdc_plain_bool_decode(const uint8_t *in, size_t in_len,
								  uint8_t *out, size_t count, size_t *consumed);
CdcStatus	cdc_plain_byte_array_decode(const uint8_t *in, size_t in_len,
										CdcByteView *out, size_t count,
										size_t *consumed);
CdcStatus	cdc_plain_bool_encode(const uint8_t *in, size_t count,
								  uint8_t *out, size_t out_cap, size_t *written);
CdcStatus	cdc_plain_byte_array_encode(const CdcByteView *in, size_t count,
										uint8_t *out, size_t out_cap,
										size_t *written);

/* ----------------------------------------------------------------
 * Dictionary gather (dict.c)
 *
 * out[i] = dict[idx[i]].  Every index is checked against dict_len once per
 * call (a vectorized max, or fused into the AVX-512 gathers), then the
 * gather runs unchecked.  On CDC_ERR_CORRUPT out's contents are unspecified.
 * ----------------------------------------------------------------
 */
CdcStatus	cdc_dict_gather32(const uint32_t *dict, uint32_t dict_len,
							  const uint32_t *idx, uint32_t *out, size_t count);
CdcStatus	cdc_dict_gather64(const uint64_t *dict, uint32_t dict_len,
							  const uint32_t *idx, uint64_t *out, size_t count);
CdcStatus	cdc_dict_gather_fixed(const uint8_t *dict, size_t width, uint32_t dict_len,
								  const uint32_t *idx, uint8_t *out, size_t count);
CdcStatus	cdc_dict_gather_views(const CdcByteView *dict, uint32_t dict_len,
								  const uint32_t *idx, CdcByteView *out, size_t count);
/* Largest index in idx[0..count), 0 for count == 0. */
uint32_t	cdc_max_u32(const uint32_t *idx, size_t count);

/* ----------------------------------------------------------------
 * DELTA_BINARY_PACKED (delta_binary.c)
 *
 * Any block size (multiple of 128) and miniblock count (block size / count a
 * multiple of 32), widths 0..64, deltas wrap around (two's complement).
 * Decodes exactly count values (count may be below the header's total, never
 * above); *consumed gets the bytes of the whole encoded stream (all its
 * blocks), so DELTA_LENGTH_BYTE_ARRAY can find what follows.
 * cdc_delta_binary_max_size() suffices for every layout with a block size
 * up to 1024; larger layouts may get CDC_ERR_OUTPUT_FULL.
 * ----------------------------------------------------------------
 */
CdcStatus	cdc_delta_binary_decode32(const uint8_t *in, size_t in_len,
									  int32_t *out, size_t count, size_t *consumed);
CdcStatus	cdc_delta_binary_decode64(const uint8_t *in, size_t in_len,
									  int64_t *out, size_t count, size_t *consumed);
/* Total value count the header declares, without decoding. */
CdcStatus	cdc_delta_binary_header_count(const uint8_t *in, size_t in_len,
										  uint64_t *total_count);
size_t		cdc_delta_binary_max_size(size_t count, bool is64);
CdcStatus	cdc_delta_binary_encode32(const int32_t *in, size_t count,
									  uint32_t block_size, uint32_t miniblocks,
									  uint8_t *out, size_t out_cap, size_t *written);
CdcStatus	cdc_delta_binary_encode64(const int64_t *in, size_t count,
									  uint32_t block_size, uint32_t miniblocks,
									  uint8_t *out, size_t out_cap, size_t *written);

/* ----------------------------------------------------------------
 * DELTA_LENGTH_BYTE_ARRAY (delta_length.c) and DELTA_BYTE_ARRAY
 * (delta_byte_array.c)
 *
 * `scratch` must hold count + CDC_OUTPUT_SLACK int32 values.  Length-delta
 * views point into `in`.  DELTA_BYTE_ARRAY materializes values (prefix of the
 * previous value + suffix) into `arena`; cdc_delta_byte_array_measure() gives
 * the arena size it needs.
 * ----------------------------------------------------------------
 */
CdcStatus	cdc_delta_length_decode(const uint8_t *in, size_t in_len,
									CdcByteView *out, size_t count,
									int32_t *scratch, size_t *consumed);
CdcStatus	cdc_delta_length_encode(const CdcByteView *in, size_t count,
									uint8_t *out, size_t out_cap, size_t *written);
size_t		cdc_delta_length_max_size(const CdcByteView *in, size_t count);

CdcStatus	cdc_delta_byte_array_measure(const uint8_t *in, size_t in_len,
										 size_t count, int32_t *scratch,
										 size_t *arena_needed);
CdcStatus	cdc_delta_byte_array_decode(const uint8_t *in, size_t in_len,
										CdcByteView *out, size_t count,
										int32_t *scratch, int32_t *scratch2,
										uint8_t *arena, size_t arena_cap,
										size_t *consumed);
CdcStatus	cdc_delta_byte_array_encode(const CdcByteView *in, size_t count,
										uint8_t *out, size_t out_cap, size_t *written);
size_t		cdc_delta_byte_array_max_size(const CdcByteView *in, size_t count);

/* ----------------------------------------------------------------
 * BYTE_STREAM_SPLIT (byte_stream_split.c)
 *
 * Any width (FLOAT 4, DOUBLE 8, INT32 4, INT64 8, FLBA n).  Input holds
 * width * count bytes: stream k holds byte k of every value.  The page's
 * value count (the stream length) is in_len / width, so in_len must be a
 * multiple of width (else CDC_ERR_CORRUPT) and count may be below it;
 * _range decodes values first .. first + count - 1, for batched reads.
 * ----------------------------------------------------------------
 */
CdcStatus	cdc_bss_decode(const uint8_t *in, size_t in_len, size_t width,
						   uint8_t *out, size_t count);
CdcStatus	cdc_bss_decode_range(const uint8_t *in, size_t in_len, size_t width,
								 size_t first, uint8_t *out, size_t count);
CdcStatus	cdc_bss_encode(const uint8_t *in, size_t width, size_t count,
						   uint8_t *out, size_t out_cap, size_t *written);

/* ----------------------------------------------------------------
 * GroupVarInt (group_varint.c)
 *
 * INT32: groups of 4, one leading byte of four 2-bit (length - 1) fields,
 * lowest bits for the first value.  INT64: groups of 5, a 2-byte little-endian
 * leading field of five 3-bit (length - 1) fields.  An incomplete last group
 * is padded with zero values.
 * ----------------------------------------------------------------
 */
CdcStatus	cdc_group_varint_decode32(const uint8_t *in, size_t in_len,
									  uint32_t *out, size_t count, size_t *consumed);
CdcStatus	cdc_group_varint_decode64(const uint8_t *in, size_t in_len,
									  uint64_t *out, size_t count, size_t *consumed);
size_t		cdc_group_varint_max_size(size_t count, bool is64);
CdcStatus	cdc_group_varint_encode32(const uint32_t *in, size_t count,
									  uint8_t *out, size_t out_cap, size_t *written);
CdcStatus	cdc_group_varint_encode64(const uint64_t *in, size_t count,
									  uint8_t *out, size_t out_cap, size_t *written);

#ifdef __cplusplus
}
#endif

#endif							/* CDC_CODEC_H */
