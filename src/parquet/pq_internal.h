/*-------------------------------------------------------------------------
 *
 * pq_internal.h
 *	  Private helpers of the Parquet format layer: arena, errors, the raw
 *	  schema element list handed from the footer decoder to the schema
 *	  builder.
 *
 * Not part of the contract (parquet.h); only src/parquet/ includes it.
 *
 * IDENTIFICATION
 *	  src/parquet/pq_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PQ_INTERNAL_H
#define PQ_INTERNAL_H

#include "parquet/parquet.h"

/* Deepest schema tree accepted (levels are int16; real files need < 20). */
#define PQ_MAX_SCHEMA_DEPTH 100

/* Legacy ConvertedType values (parquet.thrift). */
enum
{
	PQ_CT_UTF8 = 0,
	PQ_CT_MAP = 1,
	PQ_CT_MAP_KEY_VALUE = 2,
	PQ_CT_LIST = 3,
	PQ_CT_ENUM = 4,
	PQ_CT_DECIMAL = 5,
	PQ_CT_DATE = 6,
	PQ_CT_TIME_MILLIS = 7,
	PQ_CT_TIME_MICROS = 8,
	PQ_CT_TIMESTAMP_MILLIS = 9,
	PQ_CT_TIMESTAMP_MICROS = 10,
	PQ_CT_UINT_8 = 11,
	PQ_CT_UINT_16 = 12,
	PQ_CT_UINT_32 = 13,
	PQ_CT_UINT_64 = 14,
	PQ_CT_INT_8 = 15,
	PQ_CT_INT_16 = 16,
	PQ_CT_INT_32 = 17,
	PQ_CT_INT_64 = 18,
	PQ_CT_JSON = 19,
	PQ_CT_BSON = 20,
	PQ_CT_INTERVAL = 21
};

/*
 * Bump allocator over PfcAllocator chunks: everything a PqFile owns is freed
 * at once by pq_arena_release().  pq_arena_alloc() returns 8-byte aligned
 * memory, or NULL when the allocator returned NULL.
 */
typedef struct PqArenaChunk PqArenaChunk;

typedef struct PqArena
{
	PfcAllocator alloc;
	PqArenaChunk *chunks;
	uint8_t    *cur;
	size_t		left;
} PqArena;

void		pq_arena_init(PqArena *arena, const PfcAllocator *alloc);
void	   *pq_arena_alloc(PqArena *arena, size_t size);
/* Zeroed array of n elements of size bytes; NULL on overflow or OOM. */
void	   *pq_arena_calloc(PqArena *arena, size_t n, size_t size);
/* Copy len bytes and add a NUL; NULL on OOM. */
char	   *pq_arena_strndup(PqArena *arena, const uint8_t *s, uint32_t len);
void		pq_arena_release(PqArena *arena);

/* Fill err (status, message from fmt); row_group/column/page set to -1. */
void		pq_error_set(PqError *err, PqStatus status, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));
/* Replace control characters and malformed UTF-8 in msg with '?'. */
void		pq_message_sanitize(char *msg);
/* Out of memory: PQ_ERR_IO with sys_errno = ENOMEM. */
void		pq_error_oom(PqError *err);

/*
 * One SchemaElement as decoded from the footer, before the tree is built.
 * Absent optional fields: has_* false, or -1 where noted.
 */
typedef struct PqRawSchemaElement
{
	const char *name;			/* NUL-terminated, arena-owned */
	bool		has_type;
	int32_t		type;
	int32_t		type_length;	/* -1 if absent */
	bool		has_repetition;
	int32_t		repetition;
	bool		has_num_children;
	int32_t		num_children;
	int32_t		converted_type; /* -1 if absent */
	bool		has_scale;
	int32_t		scale;
	bool		has_precision;
	int32_t		precision;
	int32_t		field_id;		/* -1 if absent */
	bool		has_logical;
	PqLogicalType logical;		/* decoded LogicalType union when present */
} PqRawSchemaElement;

/*
 * Build the schema tree, levels and leaves of meta from the flat element
 * list (element 0 is the root).  Sets meta->root, num_leaves, leaves.
 */
PqStatus	pq_schema_build(PqArena *arena, const PqRawSchemaElement *elems,
							int num_elems, PqFileMeta *meta, PqError *err);

/*
 * First byte of a column chunk: its dictionary page when it has one (a
 * chunk with only a dictionary page may say data_page_offset 0), else its
 * first data page.  metadata.c validates [start, start + compressed size).
 */
int64_t		pq_chunk_start(const PqColumnChunkMeta *cc);

/* Bytes of one plain-encoded value of a fixed-width leaf; 0 if variable. */
uint32_t	pq_fixed_value_width(const PqSchemaNode *leaf);

/* First byte after the data region: size - 8 - footer length. */
uint64_t	pq_file_data_end(const PqFile *file);

/* Fold a legacy ConvertedType into a logical type (PQ_LT_NONE if none). */
PqLogicalType pq_logical_from_converted(int32_t converted_type,
										int32_t precision, int32_t scale);

#endif							/* PQ_INTERNAL_H */
