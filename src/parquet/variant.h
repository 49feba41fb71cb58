/*-------------------------------------------------------------------------
 *
 * variant.h
 *	  Contracts of the Variant decoder: Parquet VARIANT binary values
 *	  (metadata + value, VariantEncoding.md) rendered as JSON text, and the
 *	  JSON writers the shredding reassembly uses for typed Parquet values.
 *
 * Plain C11, no PostgreSQL.  Output goes to a PqStrBuf, a growable buffer
 * over the caller's PfcAllocator.  Every input byte is bounds-checked: hostile
 * bytes give PQ_ERR_CORRUPT (or PQ_ERR_UNSUPPORTED for a metadata version or
 * primitive type this build does not know), never an out-of-bounds access.
 * Nesting is bounded by PQ_VARIANT_MAX_DEPTH, and every object or array
 * must hold its children inside its own bytes with their sizes adding up to
 * at most that size, so the work per value is at most depth x input bytes
 * (children sharing bytes cannot blow the output up exponentially).
 *
 * JSON rendering of Variant types (the same text to_jsonb() gives for the
 * equivalent PostgreSQL values in a UTC session):
 *	null, booleans, integers, decimals (exact, with their scale), float and
 *	double (shortest text that reads back to the same value; NaN and
 *	infinities as the strings "NaN", "Infinity", "-Infinity") as JSON
 *	literals and numbers; strings as JSON strings; date "YYYY-MM-DD";
 *	time "HH:MM:SS[.ffffff]"; timestamps "YYYY-MM-DDTHH:MM:SS[.f...]" with
 *	"+00:00" when UTC-adjusted and all nanosecond digits for the NANOS
 *	types (years before 1 AD as PostgreSQL prints them, "... BC"); binary
 *	"\\x" followed by lowercase hex (bytea's text form); uuid lowercase
 *	8-4-4-4-12.  Object keys come out in the value's (sorted) field order.
 *
 * IDENTIFICATION
 *	  src/parquet/variant.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PQ_VARIANT_H
#define PQ_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/parquet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Deepest nesting of arrays and objects accepted. */
#define PQ_VARIANT_MAX_DEPTH 128

/* ----------------------------------------------------------------
 * Growable text buffer
 * ----------------------------------------------------------------
 */

/*
 * Appends never fail loudly: the first allocation failure or growth past
 * max_len sets status (PQ_ERR_IO / PQ_ERR_CORRUPT) and later appends are
 * ignored; check pq_strbuf_status() when done.  While the status is PQ_OK,
 * data[len] is a NUL (data may be NULL before the first append).
 */
typedef struct PqStrBuf
{
	char	   *data;
	size_t		len;
	size_t		cap;
	size_t		max_len;		/* longest text accepted */
	PqStatus	status;
	PfcAllocator alloc;
} PqStrBuf;

void		pq_strbuf_init(PqStrBuf *buf, const PfcAllocator *alloc, size_t max_len);
/* Empty the text (keeps the storage) and clear the status. */
void		pq_strbuf_reset(PqStrBuf *buf);
/* Drop the text after the first len bytes (len <= buf->len). */
void		pq_strbuf_truncate(PqStrBuf *buf, size_t len);
void		pq_strbuf_free(PqStrBuf *buf);
void		pq_strbuf_append(PqStrBuf *buf, const char *s, size_t n);
void		pq_strbuf_append_char(PqStrBuf *buf, char c);
/* PQ_OK, or fill err and return the failure (out of memory, too long). */
PqStatus	pq_strbuf_status(const PqStrBuf *buf, PqError *err);

/* ----------------------------------------------------------------
 * JSON writers (renderings as described above)
 * ----------------------------------------------------------------
 */

/* A JSON string of UTF-8 bytes; false (nothing appended) if not UTF-8. */
bool		pq_json_string(PqStrBuf *buf, const uint8_t *s, size_t n);
void		pq_json_int64(PqStrBuf *buf, int64_t v);
void		pq_json_double(PqStrBuf *buf, double v);
void		pq_json_float(PqStrBuf *buf, float v);
/*
 * Decimal of 128-bit two's complement unscaled value (hi:lo) and scale.
 * False (nothing appended) if scale is outside 0..38.
 */
bool		pq_json_decimal128(PqStrBuf *buf, int64_t hi, uint64_t lo, int scale);
/*
 * Decimal of a big-endian two's complement unscaled value of n bytes (the
 * Parquet BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY DECIMAL layout).  False if it
 * does not fit 128 bits, n is 0, or scale is outside 0..38.
 */
bool		pq_json_decimal_be(PqStrBuf *buf, const uint8_t *p, size_t n, int scale);
/* Days since 1970-01-01. */
void		pq_json_date(PqStrBuf *buf, int64_t days);
/* Microseconds since midnight; false (nothing appended) outside one day. */
bool		pq_json_time(PqStrBuf *buf, int64_t micros);
/* Micro- or nanoseconds since 1970-01-01 00:00:00 (UTC when utc). */
void		pq_json_timestamp(PqStrBuf *buf, int64_t v, bool nanos, bool utc);
void		pq_json_binary(PqStrBuf *buf, const uint8_t *p, size_t n);
void		pq_json_uuid(PqStrBuf *buf, const uint8_t *p);	/* 16 bytes */

/* ----------------------------------------------------------------
 * Variant values
 * ----------------------------------------------------------------
 */

/* A parsed metadata block; points into the caller's bytes. */
typedef struct PqVariantMetadata
{
	uint32_t	num_keys;
	bool		sorted_strings;
	uint8_t		offset_size;	/* 1..4 */
	const uint8_t *offsets;		/* num_keys + 1 offsets of offset_size bytes */
	const uint8_t *strings;
	size_t		strings_len;
} PqVariantMetadata;

/*
 * Parse and validate metadata bytes: version 1, offsets non-decreasing and
 * inside the buffer.  Keys are not checked for UTF-8 here (the JSON writer
 * checks the ones a value uses).
 */
PqStatus	pq_variant_metadata_parse(const uint8_t *buf, size_t len,
									  PqVariantMetadata *md, PqError *err);

/* Key id of md: *key / *len point into the metadata bytes; false if no such id. */
bool		pq_variant_metadata_key(const PqVariantMetadata *md, uint32_t id,
									const uint8_t **key, size_t *len);

/*
 * Append the JSON text of the Variant value in value[0..len) (exactly one
 * value: trailing bytes are an error) to out.  On error, out may hold part
 * of the text; err says what was wrong.
 */
PqStatus	pq_variant_to_json(const PqVariantMetadata *md,
							   const uint8_t *value, size_t len,
							   PqStrBuf *out, PqError *err);

/* The basic type of a value's first byte: 0 primitive, 1 short string, 2 object, 3 array. */
#define PQ_VARIANT_BASIC_TYPE(b) ((b) & 0x3)

/*
 * An object value opened for field-by-field access (the shredding
 * reassembly merges its fields with the shredded ones).
 */
typedef struct PqVariantObject
{
	const PqVariantMetadata *md;
	uint32_t	num_fields;
	uint8_t		id_size;
	uint8_t		offset_size;
	const uint8_t *ids;
	const uint8_t *offsets;
	const uint8_t *fields;		/* first byte of the first field value */
	size_t		fields_len;
} PqVariantObject;

/*
 * Open value[0..len) as an object.  *is_object false (and PQ_OK) when the
 * value is well-formed at its top but is not an object.  Checks the
 * object's header, ids and offsets against its bytes.
 */
PqStatus	pq_variant_object_open(const PqVariantMetadata *md,
								   const uint8_t *value, size_t len,
								   PqVariantObject *obj, bool *is_object,
								   PqError *err);

/*
 * Field i of an opened object: its key (pointing into the metadata) and
 * its value bytes (exactly the value's size, checked to lie inside the
 * object).
 */
PqStatus	pq_variant_object_field(const PqVariantObject *obj, uint32_t i,
									const uint8_t **key, size_t *key_len,
									const uint8_t **value, size_t *value_len,
									PqError *err);

#ifdef __cplusplus
}
#endif

#endif							/* PQ_VARIANT_H */
