/*-------------------------------------------------------------------------
 *
 * thrift.h
 *	  Thrift compact protocol: a bounded reader and a growable writer.
 *
 * Parquet metadata (FileMetaData, PageHeader, ColumnIndex, OffsetIndex,
 * BloomFilterHeader) is Thrift-compact encoded.  The reader walks a byte
 * range it never leaves; every read checks the remaining length first and
 * returns false on truncation, overlong varints, bad type nibbles, lengths
 * beyond the buffer, or nesting deeper than THRIFT_MAX_DEPTH.  The first
 * failure is latched in ThriftReader.failed, so a decoder may run a whole
 * struct and test once at the end.
 *
 * Struct decoders follow one pattern:
 *
 *	 int16_t fid; uint8_t type;
 *	 thrift_struct_begin(r);
 *	 while (thrift_field_next(r, &fid, &type))		// false at STOP or error
 *	 {
 *		 switch (fid) {
 *		 case 1: if (type == THRIFT_I32) x = thrift_i32(r); else thrift_skip(r, type); break;
 *		 default: thrift_skip(r, type);
 *		 }
 *	 }
 *	 thrift_struct_end(r);
 *	 if (r->failed) ...
 *
 * IDENTIFICATION
 *	  src/parquet/thrift.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PQ_THRIFT_H
#define PQ_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Compact protocol type nibbles. */
typedef enum ThriftType
{
	THRIFT_STOP = 0,
	THRIFT_BOOL_TRUE = 1,
	THRIFT_BOOL_FALSE = 2,
	THRIFT_I8 = 3,
	THRIFT_I16 = 4,
	THRIFT_I32 = 5,
	THRIFT_I64 = 6,
	THRIFT_DOUBLE = 7,
	THRIFT_BINARY = 8,
	THRIFT_LIST = 9,
	THRIFT_SET = 10,
	THRIFT_MAP = 11,
	THRIFT_STRUCT = 12
} ThriftType;

/* Nesting bound: Parquet needs < 10; hostile input cannot recurse deeper. */
#define THRIFT_MAX_DEPTH 64

typedef struct ThriftReader
{
	const uint8_t *pos;
	const uint8_t *end;
	bool		failed;
	int			depth;
	int16_t		last_fid[THRIFT_MAX_DEPTH];	/* delta base per struct level */
	bool		pending_bool;	/* value of a bool field header */
} ThriftReader;

void		thrift_reader_init(ThriftReader *r, const uint8_t *buf, size_t len);

/* Bytes consumed so far from buf (valid after decoding a top-level struct). */
size_t		thrift_reader_offset(const ThriftReader *r, const uint8_t *buf);

void		thrift_struct_begin(ThriftReader *r);
void		thrift_struct_end(ThriftReader *r);

/* Next field of the current struct; false at STOP or on failure. */
bool		thrift_field_next(ThriftReader *r, int16_t *fid, uint8_t *type);

/* Scalars.  For a bool field, pass the field's type (bool is in the header);
 * for a bool list element pass THRIFT_BOOL_TRUE (element reads a byte). */
bool		thrift_bool(ThriftReader *r, uint8_t type);
int8_t		thrift_i8(ThriftReader *r);
int16_t		thrift_i16(ThriftReader *r);
int32_t		thrift_i32(ThriftReader *r);
int64_t		thrift_i64(ThriftReader *r);
double		thrift_double(ThriftReader *r);
/* Binary/string: points into the buffer (not NUL-terminated). */
bool		thrift_binary(ThriftReader *r, const uint8_t **data, uint32_t *len);

/* List/set header: element type and count (count bounded by bytes left). */
bool		thrift_list_begin(ThriftReader *r, uint8_t *elem_type, uint32_t *count);

/* Skip a value of the given type (recursing within THRIFT_MAX_DEPTH). */
void		thrift_skip(ThriftReader *r, uint8_t type);

/* ---- writer (for the Parquet writer and for tests) ---- */

typedef struct ThriftWriter
{
	uint8_t    *buf;
	size_t		len;
	size_t		cap;
	bool		failed;			/* allocation failed */
	int			depth;
	int16_t		last_fid[THRIFT_MAX_DEPTH];
	/* allocation hooks; NULL means realloc/free; new_size 0 frees old */
	void	   *(*grow) (void *ctx, void *old, size_t new_size);
	void	   *grow_ctx;
} ThriftWriter;

void		thrift_writer_init(ThriftWriter *w);
void		thrift_writer_reset(ThriftWriter *w);	/* len = 0, keep buffer */
void		thrift_writer_free(ThriftWriter *w);

void		thrift_write_struct_begin(ThriftWriter *w);
void		thrift_write_struct_end(ThriftWriter *w);	/* writes STOP */
void		thrift_write_field(ThriftWriter *w, int16_t fid, uint8_t type);
void		thrift_write_bool_field(ThriftWriter *w, int16_t fid, bool value);
void		thrift_write_i32(ThriftWriter *w, int32_t v);
void		thrift_write_i64(ThriftWriter *w, int64_t v);
void		thrift_write_double(ThriftWriter *w, double v);
void		thrift_write_binary(ThriftWriter *w, const void *data, uint32_t len);
void		thrift_write_list_begin(ThriftWriter *w, uint8_t elem_type, uint32_t count);
void		thrift_write_i8(ThriftWriter *w, int8_t v);
void		thrift_write_bool_elem(ThriftWriter *w, bool v);	/* list<bool> element */
void		thrift_write_map_begin(ThriftWriter *w, uint8_t key_type,
								   uint8_t value_type, uint32_t count);

#endif							/* PQ_THRIFT_H */
