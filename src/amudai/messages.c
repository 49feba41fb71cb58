/*-------------------------------------------------------------------------
 *
 * messages.c
 *	  The protobuf messages of an Amudai shard (format notes, section 1.7)
 *	  into C structs.
 *
 * Tags are the ones of common.proto / shard.proto at the reference commit,
 * not the book's (DataRef is url = 1, range = 2).  proto3 rules: absent
 * scalars are zero, the last occurrence of a scalar wins, repeated fixed64
 * arrives packed or unpacked, unknown fields are skipped.  A field with the
 * wrong wire type is corrupt rather than skipped, because a reader that
 * guessed would silently misread renumbered fields (the format changed tags
 * several times in 2025).
 *
 * Views (urls, strings, bytes) point into the payload; arrays come from the
 * caller's allocator.
 *
 * IDENTIFICATION
 *	  src/amudai/messages.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/amudai_int.h"

/* Iterate the fields of a message: `st` must be declared by the caller. */
#define PB_FOREACH(r, f, done, err) \
	for (bool done = false; \
		 (st = am_pb_next((r), (f), &done, (err))) == AM_OK && !done;)

#define EXPECT(f, wt, what) \
	do { \
		if ((st = am_pb_expect((f), (wt), (what), err)) != AM_OK) \
			return st; \
	} while (0)

static AmStatus
parse_range(const AmPbReader *parent, const AmPbField *pf, AmDataRef *ref,
			AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;

	if ((st = am_pb_nested(parent, pf, &r, err)) != AM_OK)
		return st;
	PB_FOREACH(&r, &f, done, err)
	{
		if (f.tag == 1 || f.tag == 2)
		{
			EXPECT(&f, AM_PB_FIXED64, "UInt64Range");
			if (f.tag == 1)
				ref->start = f.u64;
			else
				ref->end = f.u64;
		}
	}
	return st;
}

static AmStatus
parse_data_ref(const AmPbReader *parent, const AmPbField *pf, AmDataRef *ref,
			   AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;

	memset(ref, 0, sizeof(*ref));
	if ((st = am_pb_nested(parent, pf, &r, err)) != AM_OK)
		return st;
	PB_FOREACH(&r, &f, done, err)
	{
		if (f.tag == 1)
		{
			EXPECT(&f, AM_PB_LEN, "DataRef");
			ref->url = f.bytes;
		}
		else if (f.tag == 2)
		{
			ref->start = ref->end = 0;
			if ((st = parse_range(&r, &f, ref, err)) != AM_OK)
				return st;
		}
	}
	if (st == AM_OK && ref->end < ref->start)
		return am_fail(err, AM_ERR_CORRUPT,
					   "DataRef range [%" PRIu64 ", %" PRIu64 ") is reversed",
					   ref->start, ref->end);
	return st;
}

static AmStatus
parse_ticks(const AmPbReader *parent, const AmPbField *pf, uint64_t *ticks,
			AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;

	*ticks = 0;
	if ((st = am_pb_nested(parent, pf, &r, err)) != AM_OK)
		return st;
	PB_FOREACH(&r, &f, done, err)
	{
		if (f.tag == 1)
		{
			EXPECT(&f, AM_PB_FIXED64, "DateTimeUtc");
			*ticks = f.u64;
		}
	}
	return st;
}

static AmStatus
parse_any_value_at(const AmPbReader *r, AmBytes msg, AmAnyValue *out,
				   AmError *err)
{
	AmPbReader	vr;
	AmPbField	f;
	AmStatus	st;

	memset(out, 0, sizeof(*out));
	vr.pos = msg.data;
	vr.end = msg.data + msg.len;
	vr.depth = r ? r->depth + 1 : 0;
	if (vr.depth > AM_PB_MAX_DEPTH)
		return am_fail(err, AM_ERR_CORRUPT, "AnyValue nested too deeply");
	PB_FOREACH(&vr, &f, done, err)
	{
		switch (f.tag)
		{
			case 1:
				EXPECT(&f, AM_PB_LEN, "AnyValue");
				out->kind = AM_VALUE_NULL;
				break;
			case 2:
				EXPECT(&f, AM_PB_VARINT, "AnyValue");
				out->kind = AM_VALUE_BOOL;
				out->b = f.u64 != 0;
				break;
			case 3:
			case 4:
				EXPECT(&f, AM_PB_VARINT, "AnyValue");
				out->kind = f.tag == 3 ? AM_VALUE_U64 : AM_VALUE_I64;
				out->u64 = f.u64;
				break;
			case 5:
				EXPECT(&f, AM_PB_FIXED64, "AnyValue");
				out->kind = AM_VALUE_DOUBLE;
				memcpy(&out->d, &f.u64, 8);
				break;
			case 6:
			case 7:
				out->kind = f.tag == 6 ? AM_VALUE_DATETIME : AM_VALUE_TIMESPAN;
				if ((st = parse_ticks(&vr, &f, &out->u64, err)) != AM_OK)
					return st;
				break;
			case 8:
			case 9:
			case 10:
			case 20:
			case 21:
				EXPECT(&f, AM_PB_LEN, "AnyValue");
				out->kind = f.tag == 8 ? AM_VALUE_STRING :
					f.tag == 9 ? AM_VALUE_BYTES :
					f.tag == 10 ? AM_VALUE_DECIMAL :
					f.tag == 20 ? AM_VALUE_LIST : AM_VALUE_STRUCT;
				out->bytes = f.bytes;
				if (f.tag == 10 && f.bytes.len != 16)
					return am_fail(err, AM_ERR_CORRUPT,
								   "decimal value of %zu bytes, expected 16",
								   f.bytes.len);
				break;
			case 22:
				out->kind = AM_VALUE_DATA_REF;
				if ((st = parse_data_ref(&vr, &f, &out->ref, err)) != AM_OK)
					return st;
				break;
			default:
				break;			/* annotation (30) and unknown fields */
		}
	}
	return st;
}

AmStatus
am_parse_any_value(AmBytes payload, AmAnyValue *out, AmError *err)
{
	return parse_any_value_at(NULL, payload, out, err);
}

static AmStatus
parse_nested_any_value(const AmPbReader *r, const AmPbField *f,
					   AmAnyValue *out, AmError *err)
{
	AmStatus	st;

	if ((st = am_pb_expect(f, AM_PB_LEN, "AnyValue", err)) != AM_OK)
		return st;
	return parse_any_value_at(r, f->bytes, out, err);
}

AmStatus
am_parse_shard_directory(AmBytes payload, AmShardDirectory *out, AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;

	memset(out, 0, sizeof(*out));
	am_pb_init(&r, payload);
	PB_FOREACH(&r, &f, done, err)
	{
		AmDataRef  *ref = NULL;

		switch (f.tag)
		{
			case 1:
				ref = &out->schema_ref;
				out->has_schema_ref = true;
				break;
			case 2:
				ref = &out->properties_ref;
				break;
			case 3:
				ref = &out->field_list_ref;
				out->has_field_list_ref = true;
				break;
			case 4:
				ref = &out->stripe_list_ref;
				out->has_stripe_list_ref = true;
				break;
			case 5:
				ref = &out->url_list_ref;
				out->has_url_list_ref = true;
				break;
			case 7:
			case 8:
			case 9:
			case 10:
				EXPECT(&f, AM_PB_FIXED64, "ShardDirectory");
				if (f.tag == 7)
					out->total_record_count = f.u64;
				else if (f.tag == 8)
					out->deleted_record_count = f.u64;
				else if (f.tag == 9)
					out->stripe_count = f.u64;
				else
				{
					out->has_raw_data_size = true;
					out->raw_data_size = f.u64;
				}
				break;
			default:
				break;			/* indexes_ref (6) and unknown fields */
		}
		if (ref != NULL && (st = parse_data_ref(&r, &f, ref, err)) != AM_OK)
			return st;
	}
	if (st != AM_OK)
		return st;
	if (!out->has_schema_ref || !out->has_field_list_ref ||
		!out->has_stripe_list_ref || !out->has_url_list_ref)
		return am_fail(err, AM_ERR_CORRUPT,
					   "shard directory lacks a required reference (schema, field list, stripe list or url list)");
	return AM_OK;
}

static AmStatus
parse_stripe_directory(const AmPbReader *parent, const AmPbField *pf,
					   AmStripeDirectory *out, AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;
	bool		has_field_list = false;

	memset(out, 0, sizeof(*out));
	if ((st = am_pb_nested(parent, pf, &r, err)) != AM_OK)
		return st;
	PB_FOREACH(&r, &f, done, err)
	{
		switch (f.tag)
		{
			case 1:
				if ((st = parse_data_ref(&r, &f, &out->properties_ref, err)) != AM_OK)
					return st;
				break;
			case 2:
				if ((st = parse_data_ref(&r, &f, &out->field_list_ref, err)) != AM_OK)
					return st;
				has_field_list = true;
				break;
			case 4:
			case 5:
			case 6:
			case 7:
				EXPECT(&f, AM_PB_FIXED64, "StripeDirectory");
				if (f.tag == 4)
					out->total_record_count = f.u64;
				else if (f.tag == 5)
					out->deleted_record_count = f.u64;
				else if (f.tag == 6)
				{
					out->has_raw_data_size = true;
					out->raw_data_size = f.u64;
				}
				else
					out->shard_position = f.u64;
				break;
			default:
				break;
		}
	}
	if (st == AM_OK && !has_field_list)
		return am_fail(err, AM_ERR_CORRUPT, "stripe directory lacks its field list");
	return st;
}

AmStatus
am_parse_stripe_list(AmBytes payload, const PfcAllocator *alloc,
					 uint32_t *count, AmStripeDirectory **stripes,
					 AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;
	uint64_t	n = 0;
	AmStripeDirectory *arr;

	*count = 0;
	*stripes = NULL;
	am_pb_init(&r, payload);
	PB_FOREACH(&r, &f, done, err)
	{
		if (f.tag == 1)
			n++;
	}
	if (st != AM_OK)
		return st;
	/* each entry takes at least 2 bytes, so n is bounded by the payload */
	arr = am_alloc(alloc, n * sizeof(AmStripeDirectory), err);
	if (arr == NULL)
		return AM_ERR_IO;
	n = 0;
	am_pb_init(&r, payload);
	PB_FOREACH(&r, &f, done, err)
	{
		if (f.tag == 1 &&
			(st = parse_stripe_directory(&r, &f, &arr[n++], err)) != AM_OK)
			break;
	}
	if (st != AM_OK)
	{
		am_release(alloc, arr);
		return st;
	}
	*count = (uint32_t) n;
	*stripes = arr;
	return AM_OK;
}

AmStatus
am_parse_data_ref_array(AmBytes payload, const PfcAllocator *alloc,
						AmDataRefArray *out, AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;
	uint64_t	n_urls = 0,
				n_starts = 0,
				n_ends = 0;
	uint8_t    *mem;

	memset(out, 0, sizeof(*out));
	am_pb_init(&r, payload);
	PB_FOREACH(&r, &f, done, err)
	{
		if (f.tag == 2)
		{
			EXPECT(&f, AM_PB_LEN, "DataRefArray");
			n_urls++;
		}
		else if (f.tag == 3 || f.tag == 4)
		{
			st = am_pb_fixed64_values(&f, NULL, 0,
									  f.tag == 3 ? &n_starts : &n_ends, err);
			if (st != AM_OK)
				return st;
		}
	}
	if (st != AM_OK)
		return st;
	if (n_urls != n_starts || n_urls != n_ends || n_urls > UINT32_MAX)
		return am_fail(err, AM_ERR_CORRUPT,
					   "DataRefArray lists %" PRIu64 " urls, %" PRIu64 " starts and %" PRIu64 " ends",
					   n_urls, n_starts, n_ends);
	mem = am_alloc(alloc, n_urls * (sizeof(AmBytes) + 16), err);
	if (mem == NULL)
		return AM_ERR_IO;
	out->urls = (AmBytes *) mem;
	out->starts = (uint64_t *) (mem + n_urls * sizeof(AmBytes));
	out->ends = out->starts + n_urls;
	out->count = (uint32_t) n_urls;
	n_urls = n_starts = n_ends = 0;
	am_pb_init(&r, payload);
	PB_FOREACH(&r, &f, done, err)
	{
		if (f.tag == 2)
			out->urls[n_urls++] = f.bytes;
		else if (f.tag == 3)
			st = am_pb_fixed64_values(&f, out->starts, out->count, &n_starts, err);
		else if (f.tag == 4)
			st = am_pb_fixed64_values(&f, out->ends, out->count, &n_ends, err);
		if (st != AM_OK)
			break;
	}
	for (uint32_t i = 0; st == AM_OK && i < out->count; i++)
		if (out->ends[i] < out->starts[i])
			st = am_fail(err, AM_ERR_CORRUPT,
						 "DataRefArray entry %u has a reversed range", i);
	if (st != AM_OK)
	{
		am_release(alloc, mem);
		memset(out, 0, sizeof(*out));
	}
	return st;
}

AmStatus
am_parse_url_list(AmBytes payload, const PfcAllocator *alloc, uint32_t *count,
				  AmBytes **urls, AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;
	uint64_t	n = 0;
	AmBytes    *arr;

	*count = 0;
	*urls = NULL;
	am_pb_init(&r, payload);
	PB_FOREACH(&r, &f, done, err)
	{
		if (f.tag == 1)
		{
			EXPECT(&f, AM_PB_LEN, "UrlList");
			n++;
		}
	}
	if (st != AM_OK)
		return st;
	arr = am_alloc(alloc, n * sizeof(AmBytes), err);
	if (arr == NULL)
		return AM_ERR_IO;
	n = 0;
	am_pb_init(&r, payload);
	PB_FOREACH(&r, &f, done, err)
	{
		if (f.tag == 1)
			arr[n++] = f.bytes;
	}
	*count = (uint32_t) n;
	*urls = arr;
	return st;
}

static AmStatus
parse_range_stats(const AmPbReader *parent, const AmPbField *pf,
				  AmFieldDescriptor *out, AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;

	if ((st = am_pb_nested(parent, pf, &r, err)) != AM_OK)
		return st;
	out->has_range_stats = true;
	PB_FOREACH(&r, &f, done, err)
	{
		switch (f.tag)
		{
			case 1:
			case 3:
				st = parse_nested_any_value(&r, &f, f.tag == 1 ?
											&out->min_value : &out->max_value,
											err);
				if (st != AM_OK)
					return st;
				break;
			case 2:
			case 4:
				EXPECT(&f, AM_PB_VARINT, "RangeStats");
				if (f.tag == 2)
					out->min_inclusive = f.u64 != 0;
				else
					out->max_inclusive = f.u64 != 0;
				break;
			default:
				break;
		}
	}
	return st;
}

/* StringStats, BinaryStats, BooleanStats, FloatingStats,
 * CardinalityInfo.count, SBBF. */
static AmStatus
parse_small_stats(const AmPbReader *parent, const AmPbField *pf,
				  AmFieldDescriptor *out, AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;

	if ((st = am_pb_nested(parent, pf, &r, err)) != AM_OK)
		return st;
	PB_FOREACH(&r, &f, done, err)
	{
		if ((pf->tag == 20 || pf->tag == 25) && f.tag >= 1 && f.tag <= 4)
		{
			/* StringStats / BinaryStats; tag 4 (ascii_count) is String's */
			EXPECT(&f, AM_PB_FIXED64, "StringStats");
			if (pf->tag == 20)
				out->has_string_stats = true;
			else
				out->has_binary_stats = true;
			if (f.tag == 1)
				out->min_size = f.u64;
			else if (f.tag == 2)
			{
				out->has_min_non_empty_size = true;
				out->min_non_empty_size = f.u64;
			}
			else if (f.tag == 3)
				out->max_size = f.u64;
			else if (pf->tag == 20)
			{
				out->has_ascii_count = true;
				out->ascii_count = f.u64;
			}
		}
		else if (pf->tag == 24 && f.tag >= 1 && f.tag <= 6)
		{
			EXPECT(&f, AM_PB_FIXED64, "FloatingStats");
			out->floating_counts[f.tag - 1] = f.u64;
		}
		else if (pf->tag == 22 && (f.tag == 1 || f.tag == 2))
		{
			EXPECT(&f, AM_PB_FIXED64, "BooleanStats");
			out->has_boolean_stats = true;
			if (f.tag == 1)
				out->true_count = f.u64;
			else
				out->false_count = f.u64;
		}
		else if (pf->tag == 7 && f.tag == 1)
		{
			EXPECT(&f, AM_PB_FIXED64, "CardinalityInfo");
			out->has_cardinality = true;
			out->cardinality = f.u64;
		}
		else if (pf->tag == 8 && f.tag == 1)
		{
			/* MembershipFilters.sbbf -> SplitBlockBloomFilter */
			AmPbReader	sr;
			AmPbField	sf;

			if ((st = am_pb_nested(&r, &f, &sr, err)) != AM_OK)
				return st;
			PB_FOREACH(&sr, &sf, sdone, err)
			{
				if (sf.tag == 1 || sf.tag == 5)
				{
					EXPECT(&sf, AM_PB_FIXED64, "SplitBlockBloomFilter");
					if (sf.tag == 1)
						out->sbbf_num_blocks = sf.u64;
					else
						out->sbbf_hash_seed = sf.u64;
				}
				else if (sf.tag == 6 || sf.tag == 4)
				{
					EXPECT(&sf, AM_PB_LEN, "SplitBlockBloomFilter");
					if (sf.tag == 6)
						out->sbbf_data = sf.bytes;
					else
						out->sbbf_hash_algorithm = sf.bytes;
				}
			}
			if (st != AM_OK)
				return st;
			if (out->sbbf_data.len != 0 &&
				(out->sbbf_num_blocks == 0 ||
				 out->sbbf_data.len / 32 != out->sbbf_num_blocks ||
				 out->sbbf_data.len % 32 != 0))
				return am_fail(err, AM_ERR_CORRUPT,
							   "Bloom filter of %zu bytes does not hold %" PRIu64 " blocks",
							   out->sbbf_data.len, out->sbbf_num_blocks);
		}
	}
	return st;
}

AmStatus
am_parse_field_descriptor(AmBytes payload, AmFieldDescriptor *out,
						  AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;

	memset(out, 0, sizeof(*out));
	am_pb_init(&r, payload);
	PB_FOREACH(&r, &f, done, err)
	{
		switch (f.tag)
		{
			case 1:
			case 2:
			case 4:
			case 41:
				EXPECT(&f, AM_PB_FIXED64, "FieldDescriptor");
				if (f.tag == 1)
					out->position_count = f.u64;
				else if (f.tag == 2)
				{
					out->has_null_count = true;
					out->null_count = f.u64;
				}
				else if (f.tag == 4)
				{
					out->has_dictionary_size = true;
					out->dictionary_size = f.u64;
				}
				else
				{
					out->has_raw_data_size = true;
					out->raw_data_size = f.u64;
				}
				break;
			case 3:
				if ((st = parse_nested_any_value(&r, &f, &out->constant_value,
												 err)) != AM_OK)
					return st;
				break;
			case 6:
				if ((st = parse_range_stats(&r, &f, out, err)) != AM_OK)
					return st;
				break;
			case 7:
			case 8:
			case 20:
			case 22:
			case 24:
			case 25:
				if ((st = parse_small_stats(&r, &f, out, err)) != AM_OK)
					return st;
				/* a message whose counts are all 0 is still present */
				if (f.tag == 20)
					out->has_string_stats = true;
				else if (f.tag == 22)
					out->has_boolean_stats = true;
				else if (f.tag == 24)
					out->has_floating_stats = true;
				else if (f.tag == 25)
					out->has_binary_stats = true;
				break;
			default:
				break;
		}
	}
	if (st == AM_OK && out->has_null_count &&
		out->null_count > out->position_count)
		return am_fail(err, AM_ERR_CORRUPT,
					   "null count %" PRIu64 " exceeds position count %" PRIu64,
					   out->null_count, out->position_count);
	return st;
}

static AmStatus
parse_encoded_buffer(const AmPbReader *parent, const AmPbField *pf,
					 AmEncodedBuffer *out, AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;

	memset(out, 0, sizeof(*out));
	if ((st = am_pb_nested(parent, pf, &r, err)) != AM_OK)
		return st;
	PB_FOREACH(&r, &f, done, err)
	{
		switch (f.tag)
		{
			case 1:
			case 5:
			case 6:
			case 7:
				EXPECT(&f, AM_PB_VARINT, "EncodedBuffer");
				if (f.tag == 1)
					out->kind = (uint32_t) f.u64;
				else if (f.tag == 5)
					out->block_checksums = f.u64 != 0;
				else if (f.tag == 6)
					out->embedded_presence = f.u64 != 0;
				else
					out->embedded_offsets = f.u64 != 0;
				break;
			case 2:
				if ((st = parse_data_ref(&r, &f, &out->buffer, err)) != AM_OK)
					return st;
				break;
			case 3:
				if ((st = parse_data_ref(&r, &f, &out->block_map, err)) != AM_OK)
					return st;
				out->has_block_map = true;
				break;
			case 4:
				EXPECT(&f, AM_PB_FIXED64, "EncodedBuffer");
				out->has_block_count = true;
				out->block_count = f.u64;
				break;
			default:
				break;			/* buffer_id, packed_group_index: ignored */
		}
	}
	return st;
}

/* Count (out == NULL) or parse the buffers of a NativeDataEncoding. */
static AmStatus
parse_native_encoding(const AmPbReader *parent, const AmPbField *pf,
					  AmEncodedBuffer *out, uint32_t *n, AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;

	if ((st = am_pb_nested(parent, pf, &r, err)) != AM_OK)
		return st;
	PB_FOREACH(&r, &f, done, err)
	{
		if (f.tag == 1)
		{
			if (out != NULL &&
				(st = parse_encoded_buffer(&r, &f, &out[*n], err)) != AM_OK)
				return st;
			(*n)++;
		}
	}
	return st;
}

AmStatus
am_parse_stripe_field_descriptor(AmBytes payload, const PfcAllocator *alloc,
								 AmStripeFieldDescriptor *out, AmError *err)
{
	AmPbReader	r;
	AmPbField	f;
	AmStatus	st;
	bool		has_field = false;
	bool		seen_encoding = false;
	AmPbField	native = {0};
	AmPbReader	enc_reader = {0};

	memset(out, 0, sizeof(*out));
	am_pb_init(&r, payload);
	PB_FOREACH(&r, &f, done, err)
	{
		if (f.tag == 1)
		{
			EXPECT(&f, AM_PB_LEN, "StripeFieldDescriptor");
			if ((st = am_parse_field_descriptor(f.bytes, &out->field, err)) != AM_OK)
				return st;
			has_field = true;
		}
		else if (f.tag == 2 && !seen_encoding)
		{
			AmPbField	ef;

			/* only the first (preferred) DataEncoding is used */
			seen_encoding = true;
			if ((st = am_pb_nested(&r, &f, &enc_reader, err)) != AM_OK)
				return st;
			PB_FOREACH(&enc_reader, &ef, edone, err)
			{
				if (ef.tag == 1)
				{
					native = ef;
					out->has_native_encoding = true;
				}
			}
			if (st != AM_OK)
				return st;
		}
	}
	if (st != AM_OK)
		return st;
	if (!has_field)
		return am_fail(err, AM_ERR_CORRUPT,
					   "stripe field descriptor lacks its field descriptor");
	if (out->has_native_encoding)
	{
		uint32_t	n = 0;

		if ((st = parse_native_encoding(&enc_reader, &native, NULL, &n, err)) != AM_OK)
			return st;
		out->buffers = am_alloc(alloc, (size_t) n * sizeof(AmEncodedBuffer), err);
		if (out->buffers == NULL)
			return AM_ERR_IO;
		out->num_buffers = 0;
		st = parse_native_encoding(&enc_reader, &native, out->buffers,
								   &out->num_buffers, err);
		if (st != AM_OK)
		{
			am_release(alloc, out->buffers);
			out->buffers = NULL;
			out->num_buffers = 0;
		}
	}
	else if (seen_encoding)
		return am_fail(err, AM_ERR_UNSUPPORTED,
					   "field encoding is not native (external Parquet encodings are not supported)");
	return st;
}
