/*-------------------------------------------------------------------------
 *
 * fastlanes.c
 *	  FastLanes transposed bit packing (FLBitPack) and FFOR: entry points,
 *	  scalar kernel instances, packers and the writer's width analysis.
 *
 * The layout is described in fastlanes.h (and amudai-format.md 4.4).
 *
 * Design notes: the entry points check the width and the exact input size
 * once, then run one kernel per whole chunk, straight into the caller's
 * output.  The last partial chunk is decoded into a stack buffer and the
 * values asked for are copied, so outputs need no slack beyond count.  A
 * chunk whose input is not aligned to the value size is first copied to an
 * aligned buffer (128 * W bytes, at most 8 KB): the kernels use typed loads
 * and Amudai payloads are normally 8-aligned, so this path is rare.  The
 * packers are not hot and take the width at run time.
 *
 * IDENTIFICATION
 *	  src/codec/fastlanes.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/fastlanes.h"
#include "codec/fastlanes_kernels.h"

#include <string.h>

/* ----------------------------------------------------------------
 * Scalar kernel instances
 * ----------------------------------------------------------------
 */
#define DEFINE_SCALAR(T, BITS, W) \
static void \
fl_unpack##BITS##_w##W##_scalar(const T *in, T *out, T ref) \
{ \
	cdc_fl_unpack##BITS##_body(in, out, ref, W); \
}

#define DEF8(W) DEFINE_SCALAR(uint8_t, 8, W)
#define DEF16(W) DEFINE_SCALAR(uint16_t, 16, W)
#define DEF32(W) DEFINE_SCALAR(uint32_t, 32, W)
#define DEF64(W) DEFINE_SCALAR(uint64_t, 64, W)
CDC_FL_WIDTHS_8(DEF8)
CDC_FL_WIDTHS_16(DEF16)
CDC_FL_WIDTHS_32(DEF32)
CDC_FL_WIDTHS_64(DEF64)

#define REF8(W) fl_unpack8_w##W##_scalar,
#define REF16(W) fl_unpack16_w##W##_scalar,
#define REF32(W) fl_unpack32_w##W##_scalar,
#define REF64(W) fl_unpack64_w##W##_scalar,
const CdcFlUnpack8Fn cdc_fl_unpack8_scalar_table[9] = {CDC_FL_WIDTHS_8(REF8)};
const CdcFlUnpack16Fn cdc_fl_unpack16_scalar_table[17] = {CDC_FL_WIDTHS_16(REF16)};
const CdcFlUnpack32Fn cdc_fl_unpack32_scalar_table[33] = {CDC_FL_WIDTHS_32(REF32)};
const CdcFlUnpack64Fn cdc_fl_unpack64_scalar_table[65] = {CDC_FL_WIDTHS_64(REF64)};

size_t
cdc_fl_packed_size(size_t count, unsigned width)
{
	return (count + CDC_FL_CHUNK - 1) / CDC_FL_CHUNK * 128 * (size_t) width;
}

/*
 * Decoder entry point per type.  AVX-512 machines run the AVX2 instances:
 * the lane loops are memory-bound at 256 bits already.
 */
#define DEFINE_DECODE(T, BITS) \
CdcStatus \
cdc_ffor_decode##BITS(const uint8_t *in, size_t in_len, unsigned width, \
					  T reference, T *out, size_t count) \
{ \
	const CdcFlUnpack##BITS##Fn *table; \
	CdcFlUnpack##BITS##Fn kernel; \
	size_t		chunk_bytes = (size_t) 128 * width; \
	size_t		full = count / CDC_FL_CHUNK; \
	size_t		tail = count % CDC_FL_CHUNK; \
	size_t		need; \
	T			aligned[CDC_FL_CHUNK]; \
\
	if (width > BITS) \
		return CDC_ERR_CORRUPT; \
	need = cdc_fl_packed_size(count, width); \
	if (in_len < need) \
		return CDC_ERR_TRUNCATED; \
	if (in_len > need) \
		return CDC_ERR_CORRUPT; \
	if (width == 0) \
	{ \
		/* no bytes at all (in may be NULL) */ \
		for (size_t i = 0; i < count; i++) \
			out[i] = reference; \
		return CDC_OK; \
	} \
	table = cdc_isa_current() >= CDC_ISA_AVX2 ? \
		cdc_fl_unpack##BITS##_avx2_table : cdc_fl_unpack##BITS##_scalar_table; \
	kernel = table[width]; \
	if (((uintptr_t) in % sizeof(T)) == 0) \
	{ \
		/* aligned: every chunk is 128 * width bytes from in */ \
		for (size_t c = 0; c < full; c++) \
			kernel((const T *) (const void *) (in + c * chunk_bytes), \
				   out + c * CDC_FL_CHUNK, reference); \
	} \
	else \
	{ \
		for (size_t c = 0; c < full; c++) \
		{ \
			memcpy(aligned, in + c * chunk_bytes, chunk_bytes); \
			kernel(aligned, out + c * CDC_FL_CHUNK, reference); \
		} \
	} \
	if (tail > 0) \
	{ \
		T			packed[CDC_FL_CHUNK]; \
\
		memcpy(packed, in + full * chunk_bytes, chunk_bytes); \
		kernel(packed, aligned, reference); \
		memcpy(out + full * CDC_FL_CHUNK, aligned, tail * sizeof(T)); \
	} \
	return CDC_OK; \
} \
\
CdcStatus \
cdc_fl_unpack##BITS(const uint8_t *in, size_t in_len, unsigned width, \
					T *out, size_t count) \
{ \
	return cdc_ffor_decode##BITS(in, in_len, width, 0, out, count); \
}

DEFINE_DECODE(uint8_t, 8)
DEFINE_DECODE(uint16_t, 16)
DEFINE_DECODE(uint32_t, 32)
DEFINE_DECODE(uint64_t, 64)

/* ----------------------------------------------------------------
 * Packers
 *
 * Per chunk: gather each row's values (missing tail values are zero, i.e.
 * reference before subtraction), mask, and OR them into the lane words; a
 * value straddling two words puts its high bits at the bottom of the next.
 * ----------------------------------------------------------------
 */
#define DEFINE_ENCODE(T, BITS) \
static void \
fl_pack##BITS##_chunk(const T *in, size_t n, T ref, unsigned width, \
					  T *restrict words) \
{ \
	enum { LANES = 1024 / BITS }; \
	const T		mask = width >= BITS ? (T) ~(T) 0 : \
		(T) ((((uint64_t) 1) << width) - 1); \
\
	memset(words, 0, (size_t) width * LANES * sizeof(T)); \
	for (unsigned r = 0; r < BITS; r++) \
	{ \
		unsigned	bit = r * width; \
		unsigned	sh = bit % BITS; \
		T		   *restrict a = words + (bit / BITS) * LANES; \
		size_t		base = 128 * (r % 8) + 16 * cdc_fl_order[r / 8]; \
\
		for (unsigned l = 0; l < LANES; l++) \
		{ \
			size_t		idx = base + l; \
			T			v = idx < n ? (T) ((T) (in[idx] - ref) & mask) : 0; \
\
			a[l] |= (T) (v << sh); \
			if (sh + width > BITS) \
				a[l + LANES] |= (T) (v >> (BITS - sh)); \
		} \
	} \
} \
\
CdcStatus \
cdc_ffor_encode##BITS(const T *in, size_t count, T reference, unsigned width, \
					  uint8_t *out, size_t out_cap, size_t *written) \
{ \
	size_t		chunk_bytes = (size_t) 128 * width; \
	size_t		need; \
	T			words[CDC_FL_CHUNK]; \
\
	*written = 0; \
	if (width > BITS) \
		return CDC_ERR_INVALID_ARGUMENT; \
	need = cdc_fl_packed_size(count, width); \
	if (out_cap < need) \
		return CDC_ERR_OUTPUT_FULL; \
	if (width == 0) \
		return CDC_OK; \
	for (size_t start = 0; start < count; start += CDC_FL_CHUNK) \
	{ \
		size_t		n = count - start < CDC_FL_CHUNK ? count - start : CDC_FL_CHUNK; \
\
		fl_pack##BITS##_chunk(in + start, n, reference, width, words); \
		memcpy(out + start / CDC_FL_CHUNK * chunk_bytes, words, chunk_bytes); \
	} \
	*written = need; \
	return CDC_OK; \
} \
\
CdcStatus \
cdc_fl_pack##BITS(const T *in, size_t count, unsigned width, \
				  uint8_t *out, size_t out_cap, size_t *written) \
{ \
	return cdc_ffor_encode##BITS(in, count, 0, width, out, out_cap, written); \
}

DEFINE_ENCODE(uint8_t, 8)
DEFINE_ENCODE(uint16_t, 16)
DEFINE_ENCODE(uint32_t, 32)
DEFINE_ENCODE(uint64_t, 64)

/* ----------------------------------------------------------------
 * Writer analysis: reference = minimum, width = bit length of max - min
 * ----------------------------------------------------------------
 */
static unsigned
bit_length64(uint64_t v)
{
	return v == 0 ? 0 : 64 - (unsigned) __builtin_clzll(v);
}

#define DEFINE_ANALYZE(NAME, T, UT) \
void \
cdc_ffor_analyze_##NAME(const T *in, size_t count, T *reference, \
						unsigned *width) \
{ \
	T			lo, \
				hi; \
\
	if (count == 0) \
	{ \
		*reference = 0; \
		*width = 0; \
		return; \
	} \
	lo = hi = in[0]; \
	for (size_t i = 1; i < count; i++) \
	{ \
		lo = in[i] < lo ? in[i] : lo; \
		hi = in[i] > hi ? in[i] : hi; \
	} \
	*reference = lo; \
	*width = bit_length64((UT) ((UT) hi - (UT) lo)); \
}

DEFINE_ANALYZE(u64, uint64_t, uint64_t)
DEFINE_ANALYZE(i64, int64_t, uint64_t)
DEFINE_ANALYZE(u32, uint32_t, uint32_t)
DEFINE_ANALYZE(i32, int32_t, uint32_t)
