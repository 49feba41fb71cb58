/*-------------------------------------------------------------------------
 *
 * thrift.h
 *	  Thrift compact protocol: a bounded reader and a growable writer.
 *
 * Parquet metadata (FileMetaData, PageHeader, ColumnIndex, OffsetIndex,
 * BloomFilterHeader) is Thrift-compact encoded.  The reader walks a byte
 * range it never leaves; every read checks the remaining length first and
 * returns false on truncation, overlong varints, bad type nibbles, lengths
 * beyond the buffer, or nesting deeper than PQ_THRIFT_MAX_DEPTH.  The first
 * failure is latched in PqThriftReader.failed, so a decoder may run a whole
 * struct and test once at the end.
 *
 * Struct decoders follow one pattern:
 *
 *	 int16_t fid; uint8_t type;
 *	 pq_thrift_struct_begin(r);
 *	 while (pq_thrift_field_next(r, &fid, &type))		// false at STOP or error
 *	 {
 *		 switch (fid) {
 *		 case 1: if (type == PQ_THRIFT_I32) x = pq_thrift_i32(r); else pq_thrift_skip(r, type); break;
 *		 default: pq_thrift_skip(r, type);
 *		 }
 *	 }
 *	 pq_thrift_struct_end(r);
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
typedef enum PqThriftType
{
	PQ_THRIFT_STOP = 0,
	PQ_THRIFT_BOOL_TRUE = 1,
	PQ_THRIFT_BOOL_FALSE = 2,
	PQ_THRIFT_I8 = 3,
	PQ_THRIFT_I16 = 4,
	PQ_THRIFT_I32 = 5,
	PQ_THRIFT_I64 = 6,
	PQ_THRIFT_DOUBLE = 7,
	PQ_THRIFT_BINARY = 8,
	PQ_THRIFT_LIST = 9,
	PQ_THRIFT_SET = 10,
	PQ_THRIFT_MAP = 11,
	PQ_THRIFT_STRUCT = 12
} PqThriftType;

/* Nesting bound: Parquet needs < 10; hostile input cannot recurse deeper. */
#define PQ_THRIFT_MAX_DEPTH 64

typedef struct PqThriftReader
{
	const uint8_t *pos;
	const uint8_t *end;
	bool		failed;
	int			depth;
	int16_t		last_fid[PQ_THRIFT_MAX_DEPTH];	/* delta base per struct level */
	bool		pending_bool;	/* value of a bool field header */
} PqThriftReader;

void		pq_thrift_reader_init(PqThriftReader *r, const uint8_t *buf, size_t len);

/* Bytes consumed so far from buf (valid after decoding a top-level struct). */
size_t		pq_thrift_reader_offset(const PqThriftReader *r, const uint8_t *buf);

void		pq_thrift_struct_begin(PqThriftReader *r);
void		pq_thrift_struct_end(PqThriftReader *r);

/* Next field of the current struct; false at STOP or on failure. */
bool		pq_thrift_field_next(PqThriftReader *r, int16_t *fid, uint8_t *type);

/* Scalars.  For a bool field, pass the field's type (bool is in the header);
 * for a bool list element pass PQ_THRIFT_BOOL_TRUE (element reads a byte). */
bool		pq_thrift_bool(PqThriftReader *r, uint8_t type);
int8_t		pq_thrift_i8(PqThriftReader *r);
int16_t		pq_thrift_i16(PqThriftReader *r);
int32_t		pq_thrift_i32(PqThriftReader *r);
int64_t		pq_thrift_i64(PqThriftReader *r);
double		pq_thrift_double(PqThriftReader *r);
/* Binary/string: points into the buffer (not NUL-terminated). */
bool		pq_thrift_binary(PqThriftReader *r, const uint8_t **data, uint32_t *len);

/* List/set header: element type and count (count bounded by bytes left). */
bool		pq_thrift_list_begin(PqThriftReader *r, uint8_t *elem_type, uint32_t *count);

/* Skip a value of the given type (recursing within PQ_THRIFT_MAX_DEPTH). */
void		pq_thrift_skip(PqThriftReader *r, uint8_t type);

/* ---- writer (for the Parquet writer and for tests) ---- */

typedef struct PqThriftWriter
{
	uint8_t    *buf;
	size_t		len;
	size_t		cap;
	bool		failed;			/* allocation failed */
	int			depth;
	int16_t		last_fid[PQ_THRIFT_MAX_DEPTH];
	/* allocation hooks; NULL means realloc/free; new_size 0 frees old */
	void	   *(*grow) (void *ctx, void *old, size_t new_size);
	void	   *grow_ctx;
} PqThriftWriter;

void		pq_thrift_writer_init(PqThriftWriter *w);
void		pq_thrift_writer_reset(PqThriftWriter *w);	/* len = 0, keep buffer */
void		pq_thrift_writer_free(PqThriftWriter *w);

void		pq_thrift_write_struct_begin(PqThriftWriter *w);
void		pq_thrift_write_struct_end(PqThriftWriter *w);	/* writes STOP */
void		pq_thrift_write_field(PqThriftWriter *w, int16_t fid, uint8_t type);
void		pq_thrift_write_bool_field(PqThriftWriter *w, int16_t fid, bool value);
void		pq_thrift_write_i32(PqThriftWriter *w, int32_t v);
void		pq_thrift_write_i64(PqThriftWriter *w, int64_t v);
void		pq_thrift_write_double(PqThriftWriter *w, double v);
void		pq_thrift_write_binary(PqThriftWriter *w, const void *data, uint32_t len);
void		pq_thrift_write_list_begin(PqThriftWriter *w, uint8_t elem_type, uint32_t count);
void		pq_thrift_write_i8(PqThriftWriter *w, int8_t v);
void		pq_thrift_write_bool_elem(PqThriftWriter *w, bool v);	/* list<bool> element */
void		pq_thrift_write_map_begin(PqThriftWriter *w, uint8_t key_type,
								   uint8_t value_type, uint32_t count);

#endif							/* PQ_THRIFT_H */
