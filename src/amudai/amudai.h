/*-------------------------------------------------------------------------
 *
 * amudai.h
 *	  Contracts of the Amudai shard layer: framing, metadata, block maps,
 *	  encoded buffers, value decoding and field assembly.
 *
 * Plain C11, no PostgreSQL, no dependency on src/parquet.  The authority for
 * every byte layout is docs/amudai-format.md (section numbers below refer to
 * it); where it and the published Amudai book disagree, the document wins.
 *
 * The layer reads through a PfcSource (read-at callback) and allocates only
 * through a PfcAllocator the caller supplies, so the FDW can put everything
 * in memory contexts and unit tests and fuzzers can use malloc.  Stripe files
 * of two-level shards are opened through an AmResolver.  Functions return an
 * AmStatus and fill an AmError (with stripe, field and block context); they
 * never abort, longjmp or print, whatever the input bytes (the allocator may
 * longjmp on out-of-memory, as palloc does; the layer then holds nothing
 * that would leak beyond its allocator).
 *
 * Every count, offset and size read from a file is checked before use:
 * hostile bytes give AM_ERR_CORRUPT (or AM_ERR_CHECKSUM), never an
 * out-of-bounds access.  Decoders check bounds once per section, then run
 * tight loops.
 *
 * Files: framing.c (file frame, checksum32, envelopes), protobuf.c (bounded
 * wire-format reader), messages.c (protobuf messages of section 1.7),
 * flatbuf.c (the FlatBuffers schema of 1.10), dataref.c (shard open, DataRef
 * resolution for single-file and two-level shards), block_map.c (3.2),
 * encoded_buffer.c (3.1, 3.3-3.7: blocks, checksums, presence),
 * value_decode.c (section 4), field_reader.c (field assembly into batches),
 * writer.c (a streaming single-file writer, section 6.4),
 * decimal.c (KustoDecimal decimal128 values).
 *
 * IDENTIFICATION
 *	  src/amudai/amudai.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef AM_AMUDAI_H
#define AM_AMUDAI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------
 * Status, errors, I/O and memory
 * ----------------------------------------------------------------
 */
typedef enum AmStatus
{
	AM_OK = 0,
	AM_ERR_IO,					/* the source failed; AmError.sys_errno says why */
	AM_ERR_CORRUPT,				/* malformed shard: ERRCODE_DATA_CORRUPTED */
	AM_ERR_UNSUPPORTED,			/* valid but not supported by this build */
	AM_ERR_CHECKSUM,			/* a checksum32 does not match */
	AM_ERR_INVALID_ARGUMENT		/* caller broke the contract */
} AmStatus;

#define AM_ERROR_TEXT_LEN 256

typedef struct AmError
{
	AmStatus	status;
	int			sys_errno;		/* for AM_ERR_IO */
	int64_t		stripe;			/* stripe index, -1 when not applicable */
	int64_t		field;			/* schema id, -1 when not applicable */
	int64_t		block;			/* block index in its buffer, -1 when n/a */
	char		message[AM_ERROR_TEXT_LEN];	/* lowercase, no final period */
} AmError;

/* Reset to AM_OK with no context (stripe = field = block = -1). */
void		am_error_clear(AmError *err);

/* Lowercase name of a status, e.g. "corrupt". */
const char *am_status_name(AmStatus status);

/* Sources (PfcSource) and allocators (PfcAllocator) are common/common.h's. */

/*
 * Opens the stripe files of two-level shards.  `url` is the DataRef's url as
 * stored (not NUL-terminated), already checked to be a plain relative name
 * (no '/', no "." or ".." segment, no scheme, no percent sign); the resolver
 * opens it in the folder of the root file.  Returns 0 or an errno.
 */
typedef struct AmResolver
{
	int			(*open) (void *ctx, const char *url, size_t url_len,
						 PfcSource *out);
	void		(*close) (void *ctx, PfcSource *source);
	void	   *ctx;
} AmResolver;

/* A view of bytes inside a buffer the shard (or a decoder's output) owns. */
typedef struct AmBytes
{
	const uint8_t *data;
	size_t		len;
} AmBytes;

/* ----------------------------------------------------------------
 * Framing (framing.c), section 1.1-1.4
 * ----------------------------------------------------------------
 */
#define AM_FRAME_SIZE			8	/* "amud" + patch u8 + minor u16 + major u8 */
#define AM_MIN_ROOT_FILE_SIZE	28
#define AM_MAX_DIRECTORY_SIZE	(16u * 1024 * 1024)

/* checksum32 = lo32(h) ^ hi32(h), h = XXH3_64bits(data, len) (seed 0). */
uint32_t	am_checksum32(const void *data, size_t len);

/* Whether the 8 bytes are a frame this reader accepts (magic, major <= 0). */
bool		am_frame_is_valid(const uint8_t frame[AM_FRAME_SIZE]);

/*
 * Parse one message envelope [u32 len][payload][u32 checksum32(payload)]
 * that must fill exactly bytes[0..len).  *payload points into bytes.
 */
AmStatus	am_envelope_parse(const uint8_t *bytes, size_t len, AmBytes *payload,
							  AmError *err);

/* ----------------------------------------------------------------
 * Metadata messages (messages.c), section 1.7
 * ----------------------------------------------------------------
 */
typedef struct AmDataRef
{
	AmBytes		url;			/* empty = the file holding the reference */
	uint64_t	start;			/* [start, end) absolute file offsets */
	uint64_t	end;			/* start == end: no data */
} AmDataRef;

typedef struct AmDataRefArray
{
	uint32_t	count;
	AmBytes    *urls;
	uint64_t   *starts;
	uint64_t   *ends;
} AmDataRefArray;

typedef enum AmValueKind
{
	AM_VALUE_ABSENT = 0,		/* no value (oneof unset) */
	AM_VALUE_NULL,
	AM_VALUE_BOOL,
	AM_VALUE_U64,
	AM_VALUE_I64,
	AM_VALUE_DOUBLE,
	AM_VALUE_DATETIME,			/* u64 100 ns ticks since 0001-01-01 UTC */
	AM_VALUE_TIMESPAN,			/* u64 field holding signed 100 ns ticks */
	AM_VALUE_STRING,
	AM_VALUE_BYTES,
	AM_VALUE_DECIMAL,			/* 16 bytes decimal128 */
	AM_VALUE_LIST,				/* raw ListValue message in .bytes */
	AM_VALUE_STRUCT,			/* raw StructValue message in .bytes */
	AM_VALUE_DATA_REF
} AmValueKind;

typedef struct AmAnyValue
{
	AmValueKind kind;
	bool		b;
	uint64_t	u64;			/* U64, I64 (two's complement), DATETIME, TIMESPAN */
	double		d;
	AmBytes		bytes;			/* STRING, BYTES, DECIMAL, LIST, STRUCT */
	AmDataRef	ref;
} AmAnyValue;

typedef enum AmBufferKind
{
	AM_BUFFER_DATA = 0,
	AM_BUFFER_PRESENCE = 1,
	AM_BUFFER_OFFSETS = 2,
	AM_BUFFER_VALUE_DICTIONARY = 3,
	AM_BUFFER_OPAQUE_DICTIONARY = 4,
	AM_BUFFER_RANGE_INDEX = 5
} AmBufferKind;

typedef struct AmEncodedBuffer
{
	uint32_t	kind;			/* AmBufferKind (other values kept as read) */
	AmDataRef	buffer;			/* whole buffer incl. block map */
	bool		has_block_map;
	AmDataRef	block_map;		/* tail of buffer */
	bool		has_block_count;
	uint64_t	block_count;
	bool		block_checksums;
	bool		embedded_presence;
	bool		embedded_offsets;
} AmEncodedBuffer;

typedef struct AmFieldDescriptor
{
	uint64_t	position_count;
	bool		has_null_count;
	uint64_t	null_count;
	AmAnyValue	constant_value; /* kind ABSENT when not set */
	bool		has_dictionary_size;
	uint64_t	dictionary_size;
	bool		has_range_stats;	/* set even when empty (all null) */
	AmAnyValue	min_value;		/* range_stats, ABSENT when not set */
	AmAnyValue	max_value;
	bool		min_inclusive;
	bool		max_inclusive;
	bool		has_raw_data_size;
	uint64_t	raw_data_size;
	bool		has_cardinality;
	uint64_t	cardinality;
	bool		has_boolean_stats;
	uint64_t	true_count;
	uint64_t	false_count;
	/* StringStats (tag 20) or BinaryStats (25): sizes of non-null values */
	bool		has_string_stats;
	bool		has_binary_stats;
	uint64_t	min_size;
	uint64_t	max_size;
	bool		has_min_non_empty_size;
	uint64_t	min_non_empty_size;
	bool		has_ascii_count;	/* StringStats only */
	uint64_t	ascii_count;
	/* FloatingStats (tag 24): counts of zero, positive, negative, NaN,
	 * +infinity, -infinity values (positive/negative exclude infinities) */
	bool		has_floating_stats;
	uint64_t	floating_counts[6];
	AmBytes		sbbf_data;		/* Bloom filter blocks, len 0 when absent */
	uint64_t	sbbf_num_blocks;
	uint64_t	sbbf_hash_seed;
	AmBytes		sbbf_hash_algorithm;	/* "xxh3_64" from the reference */
} AmFieldDescriptor;

typedef struct AmStripeFieldDescriptor
{
	AmFieldDescriptor field;
	bool		has_native_encoding;	/* encodings[0] is native */
	uint32_t	num_buffers;	/* of encodings[0].native */
	AmEncodedBuffer *buffers;
} AmStripeFieldDescriptor;

typedef struct AmStripeDirectory
{
	AmDataRef	properties_ref;
	AmDataRef	field_list_ref;
	uint64_t	total_record_count;
	uint64_t	deleted_record_count;
	uint64_t	shard_position;
	bool		has_raw_data_size;
	uint64_t	raw_data_size;
} AmStripeDirectory;

typedef struct AmShardDirectory
{
	AmDataRef	schema_ref;
	AmDataRef	properties_ref;
	AmDataRef	field_list_ref;
	AmDataRef	stripe_list_ref;
	AmDataRef	url_list_ref;
	bool		has_schema_ref;
	bool		has_field_list_ref;
	bool		has_stripe_list_ref;
	bool		has_url_list_ref;
	uint64_t	total_record_count;
	uint64_t	deleted_record_count;
	uint64_t	stripe_count;
	bool		has_raw_data_size;
	uint64_t	raw_data_size;
} AmShardDirectory;

/*
 * Decoders of single messages from a payload.  Views (urls, strings,
 * bytes) point into the payload, which must outlive the result; arrays come
 * from alloc.  Unknown fields are skipped; wrong wire types are corrupt.
 */
AmStatus	am_parse_shard_directory(AmBytes payload, AmShardDirectory *out,
									 AmError *err);
AmStatus	am_parse_stripe_list(AmBytes payload, const PfcAllocator *alloc,
								 uint32_t *count, AmStripeDirectory **stripes,
								 AmError *err);
AmStatus	am_parse_data_ref_array(AmBytes payload, const PfcAllocator *alloc,
									AmDataRefArray *out, AmError *err);
AmStatus	am_parse_url_list(AmBytes payload, const PfcAllocator *alloc,
							  uint32_t *count, AmBytes **urls, AmError *err);
AmStatus	am_parse_field_descriptor(AmBytes payload, AmFieldDescriptor *out,
									  AmError *err);
AmStatus	am_parse_stripe_field_descriptor(AmBytes payload,
											 const PfcAllocator *alloc,
											 AmStripeFieldDescriptor *out,
											 AmError *err);
AmStatus	am_parse_any_value(AmBytes payload, AmAnyValue *out, AmError *err);

/* ----------------------------------------------------------------
 * Schema (flatbuf.c), section 1.10
 * ----------------------------------------------------------------
 */
typedef enum AmBasicType
{
	AM_TYPE_UNIT = 0,
	AM_TYPE_BOOLEAN = 1,
	AM_TYPE_INT8 = 2,
	AM_TYPE_INT16 = 3,
	AM_TYPE_INT32 = 4,
	AM_TYPE_INT64 = 5,
	AM_TYPE_FLOAT32 = 6,
	AM_TYPE_FLOAT64 = 7,
	AM_TYPE_BINARY = 8,
	AM_TYPE_FIXED_SIZE_BINARY = 9,
	AM_TYPE_STRING = 10,
	AM_TYPE_GUID = 11,
	AM_TYPE_DATETIME = 12,
	AM_TYPE_LIST = 13,
	AM_TYPE_FIXED_SIZE_LIST = 14,
	AM_TYPE_STRUCT = 15,
	AM_TYPE_MAP = 16,
	AM_TYPE_UNION = 17
} AmBasicType;

#define AM_NO_PARENT		UINT32_MAX	/* parent_schema_id of top-level fields */
#define AM_MAX_SCHEMA_DEPTH	64
#define AM_MAX_SCHEMA_NODES	(1u << 20)

typedef struct AmSchemaNode
{
	AmBasicType basic_type;
	uint32_t	schema_id;
	uint32_t	parent_id;		/* AM_NO_PARENT at top level */
	AmBytes		name;			/* may be empty (list/map children) */
	bool		is_signed;
	uint64_t	fixed_size;		/* FixedSizeBinary width, FixedSizeList count */
	AmBytes		extension_label;	/* e.g. "KustoDecimal"; empty when none */
	uint32_t	num_children;
	const uint32_t *children;	/* schema ids, in order */
} AmSchemaNode;

typedef struct AmSchema
{
	uint32_t	schema_id_count;	/* nodes are indexed by schema id */
	AmSchemaNode *nodes;		/* [schema_id_count]; basic_type UNIT and
								 * num_children 0 for ids no node uses */
	uint32_t	num_fields;
	const uint32_t *fields;		/* top-level schema ids, in order */
} AmSchema;

/*
 * Decode the FlatBuffers Schema table in payload (root uoffset at 0, no file
 * identifier, no alignment assumed).  Checks that every schema id is below
 * schema_id_count and used once, parents match, nesting is at most
 * AM_MAX_SCHEMA_DEPTH.  Names point into payload; arrays come from alloc.
 */
AmStatus	am_parse_schema(AmBytes payload, const PfcAllocator *alloc,
							AmSchema *out, AmError *err);

/* ----------------------------------------------------------------
 * Shards (dataref.c), sections 1.4-1.9
 * ----------------------------------------------------------------
 */
typedef struct AmShard AmShard;

/*
 * Open a shard: check the footer (and header), read the ShardDirectory,
 * the schema, the stripe list and the url list, verifying every envelope
 * checksum.  `resolver` may be NULL for single-file shards (then any
 * non-empty url is AM_ERR_UNSUPPORTED when used).  The root source must stay
 * valid until am_shard_close().
 */
AmStatus	am_shard_open(AmShard **shard, const PfcSource *root,
						  const AmResolver *resolver, const PfcAllocator *alloc,
						  AmError *err);
void		am_shard_close(AmShard *shard);

const AmShardDirectory *am_shard_directory(const AmShard *shard);
const AmSchema *am_shard_schema(const AmShard *shard);
uint32_t	am_shard_stripe_count(const AmShard *shard);
const AmStripeDirectory *am_shard_stripe(const AmShard *shard, uint32_t stripe);

/* Schema id of the top-level field named name[0..len), or -1. */
int64_t		am_shard_find_field(const AmShard *shard, const char *name,
								size_t len);

/*
 * Shard-level field descriptor of schema_id.  *present = false when the
 * shard field list holds an empty entry for it (no data anywhere).
 */
AmStatus	am_shard_field_descriptor(AmShard *shard, uint32_t schema_id,
									  bool *present, AmFieldDescriptor *out,
									  AmError *err);

/*
 * Stripe-level descriptor of schema_id in stripe.  *present = false when the
 * field has no stored data in the stripe (empty entry, or beyond the stripe's
 * truncated field list).  Views stay valid until am_shard_close().
 * *anchor_file receives the file index the descriptor came from, against
 * which its buffers' empty urls resolve.
 */
AmStatus	am_shard_stripe_field(AmShard *shard, uint32_t stripe,
								  uint32_t schema_id, bool *present,
								  AmStripeFieldDescriptor *out,
								  int *anchor_file, AmError *err);

/*
 * Resolve a DataRef found in a message of file `anchor_file` (0 = root):
 * empty url -> that file, otherwise a stripe file opened through the
 * resolver (once; kept open until close).  Checks the range against the file
 * size.
 */
AmStatus	am_shard_resolve(AmShard *shard, int anchor_file,
							 const AmDataRef *ref, int *file, AmError *err);

/* Read [start, end) of file `file` into a new allocation of the shard. */
AmStatus	am_shard_read(AmShard *shard, int file, uint64_t start,
						  uint64_t end, uint8_t **bytes, AmError *err);

/* The allocator the shard was opened with. */
const PfcAllocator *am_shard_allocator(const AmShard *shard);

/* ----------------------------------------------------------------
 * Block maps (block_map.c), section 3.2
 * ----------------------------------------------------------------
 */
#define AM_BLOCK_MAP_FOOTER_SIZE 40

typedef struct AmBlockMap
{
	uint64_t	value_count;
	uint64_t	block_count;
	uint64_t	segment_count;
	uint64_t	segment_size;
	uint64_t	data_size;
	uint64_t   *logical_offsets;	/* [block_count + 1], strictly increasing */
	uint64_t   *byte_offsets;		/* [block_count + 1], rel. to buffer start */
} AmBlockMap;

/*
 * Decode a whole block map (bytes = the block_map range) and expand it into
 * per-block offsets.  data_limit = bytes of the buffer before the block map:
 * every block must lie inside it.  Checks every rule of section 3.2.
 */
AmStatus	am_block_map_parse(const uint8_t *bytes, size_t len,
							   uint64_t data_limit, const PfcAllocator *alloc,
							   AmBlockMap *out, AmError *err);
void		am_block_map_free(AmBlockMap *map, const PfcAllocator *alloc);

/* Index of the block holding logical position pos (< value_count). */
uint64_t	am_block_map_find(const AmBlockMap *map, uint64_t pos);

/* ----------------------------------------------------------------
 * Blocks and presence (encoded_buffer.c), sections 3.3-3.7
 * ----------------------------------------------------------------
 */
typedef struct AmBlockView
{
	AmBytes		presence;		/* presence section, len 0 = no nulls */
	AmBytes		values;			/* value-encoding section, exact length */
} AmBlockView;

/*
 * Split one block (bytes = its whole byte range) into its sections.  With
 * checksums, the last 4 bytes must be checksum32 of the rest (AM_ERR_CHECKSUM
 * otherwise, if verify).  A presence section where presence is disabled is
 * corrupt.
 */
AmStatus	am_block_parse(const uint8_t *bytes, size_t len, bool checksums,
						   bool verify, bool embedded_presence,
						   AmBlockView *out, AmError *err);

/*
 * Decode a presence section for count positions into present[count]
 * (1 = value, 0 = null); *null_count gets the number of nulls.  An empty
 * section means no nulls.  Kinds: AllNulls, Plain bytes, Roaring (portable
 * serialization, optionally negated).
 */
AmStatus	am_presence_decode(AmBytes section, size_t count, uint8_t *present,
							   size_t *null_count, AmError *err);

/*
 * A block-structured encoded buffer of a stripe field.  Opening reads the
 * block map; blocks are read on demand.
 */
typedef struct AmBufferReader
{
	AmShard    *shard;
	int			file;
	AmEncodedBuffer desc;
	AmBlockMap	map;
	bool		verify_checksums;
} AmBufferReader;

AmStatus	am_buffer_open(AmBufferReader *reader, AmShard *shard,
						   int anchor_file, const AmEncodedBuffer *desc,
						   AmError *err);
void		am_buffer_close(AmBufferReader *reader);

/*
 * Read block `block` into *bytes (allocated by the shard's allocator; the
 * caller releases it) and split it into *view.
 */
AmStatus	am_buffer_read_block(AmBufferReader *reader, uint64_t block,
								 uint8_t **bytes, AmBlockView *view,
								 AmError *err);

/* ----------------------------------------------------------------
 * Value decoding (value_decode.c), section 4
 * ----------------------------------------------------------------
 */
typedef enum AmNumType
{
	AM_NUM_U8 = 0,
	AM_NUM_I8,
	AM_NUM_U16,
	AM_NUM_I16,
	AM_NUM_U32,
	AM_NUM_I32,
	AM_NUM_U64,
	AM_NUM_I64,
	AM_NUM_F32,
	AM_NUM_F64
} AmNumType;

/* Encoding kind codes (section 4.1). */
typedef enum AmEncoding
{
	AM_ENC_PLAIN = 1,
	AM_ENC_FLBITPACK = 2,
	AM_ENC_FOR = 3,
	AM_ENC_FFOR = 4,
	AM_ENC_DELTA = 5,
	AM_ENC_RUN_LENGTH = 6,
	AM_ENC_SINGLE_VALUE = 7,
	AM_ENC_TRUNCATE_U8 = 8,
	AM_ENC_TRUNCATE_U16 = 9,
	AM_ENC_TRUNCATE_U32 = 10,
	AM_ENC_TRUNCATE_U64 = 11,
	AM_ENC_ALP = 12,
	AM_ENC_ALPRD = 13,
	AM_ENC_BLOCK_DICTIONARY = 14,
	AM_ENC_FSST = 15,
	AM_ENC_ZSTD = 16,
	AM_ENC_LZ4 = 17,
	AM_ENC_ZIGZAG = 18,
	AM_ENC_SPARSE = 19
} AmEncoding;

/* Deepest cascade accepted (the reference writes at most 4 levels). */
#define AM_MAX_CASCADE_DEPTH 8

size_t		am_num_type_size(AmNumType type);

/*
 * Decode a numeric value-encoding section (exact length) of `count` values
 * of `type` into out[count] (little-endian host values; floats as their bit
 * patterns).  Temporaries come from alloc and are released before return.
 */
AmStatus	am_decode_numeric(const uint8_t *section, size_t len,
							  AmNumType type, size_t count, void *out,
							  const PfcAllocator *alloc, AmError *err);

/*
 * Decoded binary values of one block.  Variable size: offsets[count + 1]
 * into data, first 0.  Fixed size: offsets NULL, value i at data + i * width.
 * data either points into the section (plain) or into memory in `owned`,
 * which the caller releases with the same allocator.
 */
typedef struct AmBinaryValues
{
	size_t		count;
	uint32_t	fixed_width;	/* 0 = variable size */
	const uint8_t *data;
	size_t		data_len;
	uint64_t   *offsets;		/* allocated; NULL for fixed size */
	uint8_t    *owned;			/* NULL when data points into the section */
} AmBinaryValues;

/*
 * Decode a binary value-encoding section of `count` values.  fixed_width 0
 * for String/Binary, else the value width (16 for Guid).  present (may be
 * NULL = all present) says which positions are non-null: SingleValue fills
 * only those.
 */
AmStatus	am_decode_binary(const uint8_t *section, size_t len, size_t count,
							 uint32_t fixed_width, const uint8_t *present,
							 const PfcAllocator *alloc, AmBinaryValues *out,
							 AmError *err);
void		am_binary_values_free(AmBinaryValues *values,
								  const PfcAllocator *alloc);

/* ----------------------------------------------------------------
 * Pruning aids (pruning.c), sections 3.9, 5.4 and 5.5
 * ----------------------------------------------------------------
 */

/*
 * Split-block Bloom filter probe of a stripe field descriptor: false only
 * when the raw value bytes (UTF-8 for strings, the 16 stored bytes of a
 * Guid) are certainly absent.  Without a filter, or with a hash algorithm
 * other than "xxh3_64", the answer is true.
 */
bool		am_sbbf_might_contain(const AmFieldDescriptor *fd, const void *value,
								  size_t len);

/*
 * A RANGE_INDEX buffer: min/max (and invalid counts) of every block of
 * block_rows (256) positions.  mins/maxs hold `blocks` little-endian values
 * of elem_size bytes; invalid is NULL when the writer omitted it (all 0).
 */
typedef struct AmRangeIndex
{
	uint8_t		basic_type;
	uint64_t	span;			/* positions covered */
	uint32_t	block_rows;
	uint64_t	blocks;			/* ceil(span / block_rows) */
	uint32_t	elem_size;
	uint8_t    *mins;
	uint8_t    *maxs;
	uint16_t   *invalid;
} AmRangeIndex;

/* Parse a whole RANGE_INDEX buffer (3.9); elem_size from the field type. */
AmStatus	am_range_index_parse(const uint8_t *bytes, size_t len,
								 uint32_t elem_size, const PfcAllocator *alloc,
								 AmRangeIndex *out, AmError *err);
void		am_range_index_free(AmRangeIndex *index, const PfcAllocator *alloc);

/* ----------------------------------------------------------------
 * Field assembly (field_reader.c)
 * ----------------------------------------------------------------
 */

/*
 * A batch of positions [first, first + count) of one schema node in one
 * stripe.
 *
 * values (fixed width, value_width bytes each): ints in their own width and
 * signedness, floats as float/double, DateTime as uint64 ticks, Boolean as
 * uint8 0/1, Guid/FixedSizeBinary as fixed_width bytes.  String and Binary
 * use offsets[count + 1] (relative to bytes, first = 0) and bytes.
 * List and Map: offsets[count + 1] hold absolute child positions (the list
 * at i is child positions [offsets[i], offsets[i+1])).  Struct and
 * FixedSizeList carry only nulls.  nulls[i] = 1 for a null position; nulls
 * is NULL when the batch has none.  Null positions of fixed-width values
 * hold zeros; of strings, empty values.
 */
typedef struct AmColumnBatch
{
	size_t		count;
	uint32_t	value_width;	/* bytes per entry of values; 0 if none */
	const void *values;
	const uint8_t *nulls;
	const uint64_t *offsets;
	const uint8_t *bytes;
	size_t		bytes_len;
} AmColumnBatch;

typedef struct AmFieldReader AmFieldReader;

/*
 * Open a reader over schema node schema_id of stripe.  Constant fields,
 * all-null fields and absent fields need no buffers.  Position counts of
 * absent fields are derived from the parent as section 1.8 says.
 */
AmStatus	am_field_reader_open(AmFieldReader **reader, AmShard *shard,
								 uint32_t stripe, uint32_t schema_id,
								 AmError *err);

/* Number of logical positions of the node in the stripe. */
uint64_t	am_field_reader_position_count(const AmFieldReader *reader);

/*
 * Decode positions [first, first + count) into *batch (first + count must
 * not exceed the position count).  Buffers belong to the reader and stay
 * valid until the next read or close.
 */
AmStatus	am_field_reader_read(AmFieldReader *reader, uint64_t first,
								 size_t count, AmColumnBatch *batch,
								 AmError *err);
void		am_field_reader_close(AmFieldReader *reader);

/* ----------------------------------------------------------------
 * KustoDecimal values (decimal.c): IEEE 754 decimal128, DPD encoding
 * ----------------------------------------------------------------
 */
#define AM_DECIMAL_DIGITS 34

typedef enum AmDecimalKind
{
	AM_DECIMAL_FINITE = 0,
	AM_DECIMAL_INFINITY,
	AM_DECIMAL_NAN
} AmDecimalKind;

/* value = (-1)^negative * digits * 10^exponent (finite values) */
typedef struct AmDecimal
{
	AmDecimalKind kind;
	bool		negative;
	int32_t		exponent;		/* -6176 .. 6111 */
	uint32_t	ndigits;		/* 1 .. 34 */
	char		digits[AM_DECIMAL_DIGITS];	/* '0'..'9', no terminator;
											 * decode gives no leading
											 * zeros (except "0") */
} AmDecimal;

/*
 * Encode into the 16 stored bytes (little-endian decQuad).  Digits beyond
 * 34, a non-digit or an exponent out of range: AM_ERR_INVALID_ARGUMENT.
 */
AmStatus	am_decimal128_encode(const AmDecimal *value, uint8_t out[16],
								 AmError *err);

/* Decode 16 stored bytes; never fails (every bit pattern means a value). */
void		am_decimal128_decode(const uint8_t in[16], AmDecimal *out);

/*
 * Numeric order of two decoded values (-1, 0, 1): -Infinity < finite <
 * +Infinity; zeros of any sign and exponent are equal; 1.50 equals 1.5.
 * NaN is not ordered: callers leave it out.
 */
int			am_decimal_cmp(const AmDecimal *a, const AmDecimal *b);

/* ----------------------------------------------------------------
 * Writer (writer.c), section 6.4: whole shards in memory, or streamed
 * ----------------------------------------------------------------
 */

/*
 * One top-level column of flat data.  values: fixed-width values in the
 * batch layout of AmColumnBatch (Boolean as uint8 0/1, Guid and
 * FixedSizeBinary as fixed_size bytes each) or, for String/Binary, the
 * bytes that offsets[rows + 1] index.  nulls (may be NULL): 1 = null.
 * encoding: the value encoding of every block (AM_ENC_PLAIN, and for
 * integers AM_ENC_DELTA, AM_ENC_RUN_LENGTH, AM_ENC_FFOR; for floats
 * AM_ENC_ALP with an FFOR integer child; for String/Binary AM_ENC_FSST, and
 * AM_ENC_BLOCK_DICTIONARY with FFOR codes and lengths in blocks where at
 * most half the values are distinct (Plain in the others); for any numeric
 * or binary column AM_ENC_ZSTD or AM_ENC_LZ4); 0 means Plain.
 */
typedef struct AmWriterColumn
{
	const char *name;
	AmBasicType type;
	bool		is_signed;
	uint32_t	fixed_size;
	int			encoding;
	const void *values;
	const uint64_t *offsets;
	const uint8_t *nulls;
	/* non-NULL: a List column of these elements; list_offsets[rows + 1]
	 * index the element arrays above (values/offsets/nulls then count
	 * elements, not rows); list_nulls (may be NULL): 1 = null list */
	const uint64_t *list_offsets;
	const uint8_t *list_nulls;
	/* non-NULL: the schema node's extension label, e.g. "KustoDecimal" on
	 * FixedSizeBinary(16) or "KustoTimeSpan" on signed Int64 */
	const char *extension_label;
} AmWriterColumn;

/*
 * AmWriterColumn.encoding: per block, encode with each suitable candidate
 * (integers: Plain, FFOR, Delta of FFOR, BlockDictionary with FFOR codes,
 * RunLength, ZSTD; floats: Plain, ALP, ZSTD; strings: Plain, FSST, ZSTD,
 * with Delta-of-FFOR offsets, and BlockDictionary; fixed-size binary:
 * Plain, ZSTD) and keep the smallest.
 */
#define AM_WRITER_ENC_AUTO (-1)

/*
 * Values per block of parquet_fdw_write_amudai() (bench/AMUDAI.md, issue
 * #17): smaller blocks let a range-index skip decode less (a selective
 * range query 3.3x faster than at 65,536), larger ones repeat block
 * dictionaries less (2,048 makes the shard 49% larger than 65,536; this
 * 12%).  Any value up to 65,536 (one Roaring container) is valid.
 */
#define AM_WRITER_BLOCK_VALUES 16384

/*
 * Test-only: encode the value section of one block of column col, rows
 * [first, first + n) of col's arrays (values, offsets, nulls), instead of
 * the column's encoding.  Returns AM_OK with *section = NULL to leave the
 * block to the writer, or *section / *len = the whole section (u16 kind
 * first), valid until the next call.  The unit tests use it to build the
 * shards the reference writes and this writer does not (FLBitPack, FOR,
 * Truncate, ZigZag, Sparse, ALPRD, binary SingleValue, ...); production
 * callers leave it NULL.
 */
typedef AmStatus (*AmSectionHook) (void *ctx, const AmWriterColumn *col,
								   uint64_t first, size_t n,
								   const uint8_t **section, size_t *len,
								   AmError *err);

typedef struct AmWriterOptions
{
	uint32_t	block_values;	/* values (bit buffers: bytes) per block; 0 = 2048 */
	uint64_t	stripe_rows;	/* rows per stripe; 0 = one stripe */
	bool		detect_constants;	/* constant / all-null stripes store no buffers */
	bool		no_indexes;		/* no RANGE_INDEX buffers, no Bloom filters
								 * (as the reference's Plain profile) */
	/*
	 * Test-only: top-level String and Binary columns as the reference's
	 * field-level dictionary (sections 2.1, 3.8): DATA = u32 ids without
	 * presence, a VALUE_DICTIONARY buffer (null entry last when the stripe
	 * has nulls) and dictionary_size on the stripe descriptor.
	 */
	bool		value_dictionary;
	/*
	 * Test-only: the TwoLevel layout (section 1.6).  Non-NULL: each
	 * stripe's buffers go to a stripe file of their own, framed, handed
	 * whole to stripe_file(ctx, name, data, len) (returns 0 or an errno)
	 * and referred to by that relative name; the root file keeps all
	 * metadata.
	 */
	int			(*stripe_file) (void *ctx, const char *name, const void *data,
								size_t len);
	void	   *stripe_file_ctx;
	AmSectionHook section_hook;	/* test-only, see above; NULL normally */
	void	   *section_hook_ctx;
} AmWriterOptions;

/*
 * Write rows rows of the columns as a single-file shard into a new buffer
 * (*out, from alloc, *out_len bytes): 64-byte aligned block buffers with
 * checksums and block maps (segment size 1024), embedded presence (Roaring
 * below 1% or above 99% nulls, else Plain bytes) for numeric and binary
 * columns, bit buffers for booleans, stripe and shard field descriptors
 * with null counts, raw_data_size, min/max and String/Binary/Boolean/
 * Floating statistics, and a FlatBuffers schema with Schema.field_lookup
 * (signed only on integer types).  Unless options->no_indexes,
 * as the reference does (sections 2.1, 3.9, 5.2, 5.4): a RANGE_INDEX buffer
 * (min, max and invalid count of every 256 positions) per stripe of
 * Int*, Float*, DateTime and KustoDecimal fields, and in the stripe field
 * descriptors of String, Binary, Guid and FixedSizeBinary fields with at
 * most 1024 distinct values a split-block Bloom filter (xxh3_64).
 */
AmStatus	am_write_shard(const AmWriterColumn *columns, uint32_t num_columns,
						   uint64_t rows, const AmWriterOptions *options,
						   const PfcAllocator *alloc, uint8_t **out,
						   size_t *out_len, AmError *err);

/*
 * Streaming writer: the same shards as am_write_shard(), a stripe at a
 * time, handing the file's bytes to sink(ctx, data, len) (returns 0 or an
 * errno) as each stripe is done, so only one stripe's data and encoded
 * bytes are in memory.  begin() takes the columns' schema (names, types,
 * labels, encodings; list_offsets non-NULL marks a List column; the data
 * pointers are ignored); each add_stripe() gets the same columns with data
 * for rows rows starting at index 0 (a List column's list_offsets[0] may be
 * any value); finish() writes the stripe list, shard-level descriptors (the
 * stripes' statistics merged), schema and directory.  free() releases the
 * writer in any state; after an error only free() may be called.
 */
typedef struct AmShardWriter AmShardWriter;
typedef int (*AmWriteFn) (void *ctx, const void *data, size_t len);

AmStatus	am_shard_writer_begin(AmShardWriter **writer,
								  const AmWriterColumn *columns,
								  uint32_t num_columns,
								  const AmWriterOptions *options,
								  const PfcAllocator *alloc, AmWriteFn sink,
								  void *sink_ctx, AmError *err);
AmStatus	am_shard_writer_add_stripe(AmShardWriter *writer,
									   const AmWriterColumn *columns,
									   uint64_t rows, AmError *err);
AmStatus	am_shard_writer_finish(AmShardWriter *writer, AmError *err);
void		am_shard_writer_free(AmShardWriter *writer);

#ifdef __cplusplus
}
#endif

#endif							/* AM_AMUDAI_H */
