/*-------------------------------------------------------------------------
 *
 * dataref.c
 *	  Opening a shard and resolving DataRefs, for single-file and two-level
 *	  shards (format notes, sections 1.4-1.9).
 *
 * The root file ends with [u32 L][ShardDirectory][u32 checksum][u32 L]
 * [footer]; everything else is reached through DataRefs {url, [start,end)}.
 * An empty url names the file holding the reference (its "anchor"); in the
 * reference writer's output every message lives in the root file and only
 * encoded buffers of two-level shards live in stripe files
 * "<hex>.amudai.stripe" beside it.  Non-empty urls are accepted only as a
 * plain file name in the root's folder (the reference refuses anything
 * outside it too) and opened through the caller's AmResolver, once each.
 *
 * Every message read is kept until am_shard_close(), because the decoded
 * structs point into their payloads.  Stripe field lists are read on first
 * use and cached.
 *
 * IDENTIFICATION
 *	  src/amudai/dataref.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/amudai_int.h"

#include <errno.h>

typedef struct ShardFile
{
	PfcSource	source;
	AmBytes		url;			/* points into a message payload; root: empty */
} ShardFile;

typedef struct StripeFieldList
{
	bool		loaded;
	int			file;			/* the file the list came from */
	AmDataRefArray list;
} StripeFieldList;

struct AmShard
{
	PfcAllocator alloc;
	AmResolver	resolver;
	bool		has_resolver;

	ShardFile  *files;			/* [0] = root */
	int			num_files;
	int			cap_files;

	void	  **owned;			/* allocations released at close */
	size_t		num_owned;
	size_t		cap_owned;

	AmShardDirectory dir;
	AmSchema	schema;
	uint32_t	stripe_count;
	AmStripeDirectory *stripes;
	uint32_t	url_count;
	AmBytes    *urls;

	bool		shard_fields_loaded;
	int			shard_fields_file;
	AmDataRefArray shard_fields;
	StripeFieldList *stripe_fields;	/* [stripe_count] */
};

/* Remember an allocation to release at close. */
static AmStatus
keep(AmShard *shard, void *ptr, AmError *err)
{
	if (shard->num_owned == shard->cap_owned)
	{
		size_t		cap = shard->cap_owned ? shard->cap_owned * 2 : 32;
		void	  **n = am_alloc(&shard->alloc, cap * sizeof(void *), err);

		if (n == NULL)
		{
			am_release(&shard->alloc, ptr);
			return AM_ERR_IO;
		}
		if (shard->num_owned > 0)
			memcpy(n, shard->owned, shard->num_owned * sizeof(void *));
		am_release(&shard->alloc, shard->owned);
		shard->owned = n;
		shard->cap_owned = cap;
	}
	shard->owned[shard->num_owned++] = ptr;
	return AM_OK;
}

static AmStatus
read_source(const PfcSource *src, uint64_t offset, void *buf, size_t len,
			AmError *err)
{
	int			rc;

	if (len == 0)
		return AM_OK;
	if (offset > src->size || len > src->size - offset)
		return am_fail(err, AM_ERR_CORRUPT,
					   "range [%" PRIu64 ", %" PRIu64 ") is outside the file of %" PRIu64 " bytes",
					   offset, offset + len, src->size);
	rc = src->read_at(src->ctx, offset, buf, len);
	if (rc != 0)
	{
		if (err != NULL)
			err->sys_errno = rc;
		return am_fail(err, AM_ERR_IO, "could not read %zu bytes at offset %" PRIu64,
					   len, offset);
	}
	return AM_OK;
}

AmStatus
am_shard_read(AmShard *shard, int file, uint64_t start, uint64_t end,
			  uint8_t **bytes, AmError *err)
{
	uint8_t    *buf;
	AmStatus	st;

	*bytes = NULL;
	if (file < 0 || file >= shard->num_files || end < start)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT, "bad file or range");
	if (end - start > SIZE_MAX - 64)
		return am_fail(err, AM_ERR_CORRUPT, "range too large");
	if (end > shard->files[file].source.size)
		return am_fail(err, AM_ERR_CORRUPT,
					   "range [%" PRIu64 ", %" PRIu64 ") is outside the file of %" PRIu64 " bytes",
					   start, end, shard->files[file].source.size);
	buf = am_alloc(&shard->alloc, (size_t) (end - start), err);
	if (buf == NULL)
		return AM_ERR_IO;
	st = read_source(&shard->files[file].source, start, buf,
					 (size_t) (end - start), err);
	if (st != AM_OK)
	{
		am_release(&shard->alloc, buf);
		return st;
	}
	*bytes = buf;
	return AM_OK;
}

/* A url we may hand to the resolver: one plain file name. */
static bool
url_is_plain_name(AmBytes url)
{
	if (url.len == 0 || url.len > 4096)
		return false;
	if ((url.len == 1 && url.data[0] == '.') ||
		(url.len == 2 && url.data[0] == '.' && url.data[1] == '.'))
		return false;
	for (size_t i = 0; i < url.len; i++)
	{
		uint8_t		c = url.data[i];

		if (c == '/' || c == '\\' || c == ':' || c == '%' || c < 0x20)
			return false;
	}
	return true;
}

AmStatus
am_shard_resolve(AmShard *shard, int anchor_file, const AmDataRef *ref,
				 int *file, AmError *err)
{
	PfcSource	src;
	int			rc;

	if (anchor_file < 0 || anchor_file >= shard->num_files)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT, "bad anchor file");
	if (ref->url.len == 0)
		*file = anchor_file;
	else
	{
		int			i;

		for (i = 1; i < shard->num_files; i++)
			if (shard->files[i].url.len == ref->url.len &&
				memcmp(shard->files[i].url.data, ref->url.data, ref->url.len) == 0)
				break;
		if (i == shard->num_files)
		{
			if (!url_is_plain_name(ref->url))
				return am_fail(err, AM_ERR_UNSUPPORTED,
							   "data reference url \"%.*s\" is not a file beside the shard",
							   (int) (ref->url.len > 200 ? 200 : ref->url.len),
							   (const char *) ref->url.data);
			if (!shard->has_resolver)
				return am_fail(err, AM_ERR_UNSUPPORTED,
							   "stripe file \"%.*s\" needs a resolver",
							   (int) (ref->url.len > 200 ? 200 : ref->url.len),
							   (const char *) ref->url.data);
			if (shard->num_files == shard->cap_files)
			{
				int			cap = shard->cap_files * 2;
				ShardFile  *n = am_alloc(&shard->alloc, cap * sizeof(ShardFile), err);

				if (n == NULL)
					return AM_ERR_IO;
				memcpy(n, shard->files, shard->num_files * sizeof(ShardFile));
				am_release(&shard->alloc, shard->files);
				shard->files = n;
				shard->cap_files = cap;
			}
			rc = shard->resolver.open(shard->resolver.ctx,
									  (const char *) ref->url.data,
									  ref->url.len, &src);
			if (rc != 0)
			{
				if (err != NULL)
					err->sys_errno = rc;
				return am_fail(err, AM_ERR_IO, "could not open stripe file \"%.*s\"",
							   (int) (ref->url.len > 200 ? 200 : ref->url.len),
							   (const char *) ref->url.data);
			}
			shard->files[i].source = src;
			shard->files[i].url = ref->url;
			shard->num_files++;
		}
		*file = i;
	}
	if (ref->end < ref->start || ref->end > shard->files[*file].source.size)
		return am_fail(err, AM_ERR_CORRUPT,
					   "data reference [%" PRIu64 ", %" PRIu64 ") is outside its file of %" PRIu64 " bytes",
					   ref->start, ref->end, shard->files[*file].source.size);
	return AM_OK;
}

/*
 * Read the message envelope ref points to (from a message of anchor_file):
 * *payload stays valid until close; *file = the file it came from.
 */
static AmStatus
read_message(AmShard *shard, int anchor_file, const AmDataRef *ref,
			 const char *what, AmBytes *payload, int *file, AmError *err)
{
	uint8_t    *bytes;
	AmStatus	st;

	if ((st = am_shard_resolve(shard, anchor_file, ref, file, err)) != AM_OK)
		return st;
	if (ref->end - ref->start > AM_MAX_DIRECTORY_SIZE * (uint64_t) 16)
		return am_fail(err, AM_ERR_CORRUPT, "%s of %" PRIu64 " bytes is too large",
					   what, ref->end - ref->start);
	if ((st = am_shard_read(shard, *file, ref->start, ref->end, &bytes, err)) != AM_OK)
		return st;
	if ((st = keep(shard, bytes, err)) != AM_OK)
		return st;
	st = am_envelope_parse(bytes, (size_t) (ref->end - ref->start), payload, err);
	if (st != AM_OK && err != NULL)
	{
		char		msg[AM_ERROR_TEXT_LEN];

		memcpy(msg, err->message, sizeof(msg));
		am_fail(err, st, "%s: %s", what, msg);
	}
	return st;
}

static AmStatus
open_root(AmShard *shard, AmError *err)
{
	const PfcSource *root = &shard->files[0].source;
	uint8_t		head[AM_FRAME_SIZE];
	uint8_t		tail[4 + AM_FRAME_SIZE];
	uint64_t	end;
	uint32_t	len;
	AmDataRef	ref = {{NULL, 0}, 0, 0};
	AmBytes		payload;
	int			file;
	AmStatus	st;

	if (root->size < AM_MIN_ROOT_FILE_SIZE)
		return am_fail(err, AM_ERR_CORRUPT,
					   "file of %" PRIu64 " bytes is too small to be an Amudai shard",
					   root->size);
	if ((st = read_source(root, 0, head, sizeof(head), err)) != AM_OK ||
		(st = read_source(root, root->size - sizeof(tail), tail, sizeof(tail), err)) != AM_OK)
		return st;
	if (!am_frame_is_valid(tail + 4) || !am_frame_is_valid(head))
		return am_fail(err, AM_ERR_CORRUPT,
					   "not an Amudai shard (bad magic or unsupported major version)");
	end = root->size - AM_FRAME_SIZE;
	len = am_load_u32(tail);
	if (len >= AM_MAX_DIRECTORY_SIZE || (uint64_t) len + 12 > end - AM_FRAME_SIZE)
		return am_fail(err, AM_ERR_CORRUPT, "shard directory length %u is impossible", len);
	ref.start = end - 4 - ((uint64_t) len + 8);
	ref.end = end - 4;
	if ((st = read_message(shard, 0, &ref, "shard directory", &payload, &file, err)) != AM_OK)
		return st;
	return am_parse_shard_directory(payload, &shard->dir, err);
}

static AmStatus
open_metadata(AmShard *shard, AmError *err)
{
	AmBytes		payload;
	int			file;
	uint64_t	position = 0;
	AmStatus	st;

	if ((st = open_root(shard, err)) != AM_OK)
		return st;

	if ((st = read_message(shard, 0, &shard->dir.schema_ref, "schema",
						   &payload, &file, err)) != AM_OK ||
		(st = am_parse_schema(payload, &shard->alloc, &shard->schema, err)) != AM_OK ||
		(st = keep(shard, shard->schema.nodes, err)) != AM_OK ||
		(st = keep(shard, (void *) shard->schema.fields, err)) != AM_OK)
		return st;

	if ((st = read_message(shard, 0, &shard->dir.stripe_list_ref, "stripe list",
						   &payload, &file, err)) != AM_OK ||
		(st = am_parse_stripe_list(payload, &shard->alloc, &shard->stripe_count,
								   &shard->stripes, err)) != AM_OK ||
		(st = keep(shard, shard->stripes, err)) != AM_OK)
		return st;
	if (shard->stripe_count != shard->dir.stripe_count)
		return am_fail(err, AM_ERR_CORRUPT,
					   "stripe list holds %u stripes, the directory says %" PRIu64,
					   shard->stripe_count, shard->dir.stripe_count);
	for (uint32_t i = 0; i < shard->stripe_count; i++)
	{
		const AmStripeDirectory *s = &shard->stripes[i];

		if (s->shard_position != position ||
			s->total_record_count > UINT64_MAX - position)
			return am_fail(err, AM_ERR_CORRUPT,
						   "stripe %u starts at record %" PRIu64 ", expected %" PRIu64,
						   i, s->shard_position, position);
		position += s->total_record_count;
	}
	if (position != shard->dir.total_record_count)
		return am_fail(err, AM_ERR_CORRUPT,
					   "stripes hold %" PRIu64 " records, the directory says %" PRIu64,
					   position, shard->dir.total_record_count);

	if ((st = read_message(shard, 0, &shard->dir.url_list_ref, "url list",
						   &payload, &file, err)) != AM_OK ||
		(st = am_parse_url_list(payload, &shard->alloc, &shard->url_count,
								&shard->urls, err)) != AM_OK ||
		(st = keep(shard, shard->urls, err)) != AM_OK)
		return st;

	shard->stripe_fields = am_alloc(&shard->alloc,
									(size_t) shard->stripe_count * sizeof(StripeFieldList),
									err);
	if (shard->stripe_fields == NULL)
		return AM_ERR_IO;
	memset(shard->stripe_fields, 0,
		   (size_t) shard->stripe_count * sizeof(StripeFieldList));
	return keep(shard, shard->stripe_fields, err);
}

AmStatus
am_shard_open(AmShard **shard_out, const PfcSource *root,
			  const AmResolver *resolver, const PfcAllocator *alloc,
			  AmError *err)
{
	AmShard    *shard;
	AmStatus	st;

	*shard_out = NULL;
	am_error_clear(err);
	if (root == NULL || root->read_at == NULL || alloc == NULL)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT, "missing source or allocator");
	shard = am_alloc(alloc, sizeof(AmShard), err);
	if (shard == NULL)
		return AM_ERR_IO;
	memset(shard, 0, sizeof(*shard));
	shard->alloc = *alloc;
	if (resolver != NULL && resolver->open != NULL)
	{
		shard->resolver = *resolver;
		shard->has_resolver = true;
	}
	shard->cap_files = 4;
	shard->files = am_alloc(alloc, shard->cap_files * sizeof(ShardFile), err);
	if (shard->files == NULL)
	{
		am_release(alloc, shard);
		return AM_ERR_IO;
	}
	shard->files[0].source = *root;
	shard->files[0].url.data = NULL;
	shard->files[0].url.len = 0;
	shard->num_files = 1;

	st = open_metadata(shard, err);
	if (st != AM_OK)
	{
		am_shard_close(shard);
		return st;
	}
	*shard_out = shard;
	return AM_OK;
}

void
am_shard_close(AmShard *shard)
{
	if (shard == NULL)
		return;
	for (int i = 1; i < shard->num_files; i++)
		if (shard->resolver.close != NULL)
			shard->resolver.close(shard->resolver.ctx, &shard->files[i].source);
	for (size_t i = 0; i < shard->num_owned; i++)
		am_release(&shard->alloc, shard->owned[i]);
	am_release(&shard->alloc, shard->owned);
	am_release(&shard->alloc, shard->files);
	am_release(&shard->alloc, shard);
}

const AmShardDirectory *
am_shard_directory(const AmShard *shard)
{
	return &shard->dir;
}

const AmSchema *
am_shard_schema(const AmShard *shard)
{
	return &shard->schema;
}

uint32_t
am_shard_stripe_count(const AmShard *shard)
{
	return shard->stripe_count;
}

const AmStripeDirectory *
am_shard_stripe(const AmShard *shard, uint32_t stripe)
{
	return stripe < shard->stripe_count ? &shard->stripes[stripe] : NULL;
}

const PfcAllocator *
am_shard_allocator(const AmShard *shard)
{
	return &shard->alloc;
}

int64_t
am_shard_find_field(const AmShard *shard, const char *name, size_t len)
{
	for (uint32_t i = 0; i < shard->schema.num_fields; i++)
	{
		const AmSchemaNode *n = &shard->schema.nodes[shard->schema.fields[i]];

		if (n->name.len == len && memcmp(n->name.data, name, len) == 0)
			return n->schema_id;
	}
	return -1;
}

/* Read a DataRefArray message; keeps its arrays until close. */
static AmStatus
read_field_list(AmShard *shard, int anchor, const AmDataRef *ref,
				AmDataRefArray *list, int *file, AmError *err)
{
	AmBytes		payload;
	AmStatus	st;

	if ((st = read_message(shard, anchor, ref, "field list", &payload, file,
						   err)) != AM_OK ||
		(st = am_parse_data_ref_array(payload, &shard->alloc, list, err)) != AM_OK)
		return st;
	return keep(shard, list->urls, err);
}

/* Entry i of list as a DataRef; false when empty or beyond the list. */
static bool
list_entry(const AmDataRefArray *list, uint32_t i, AmDataRef *ref)
{
	if (i >= list->count || list->starts[i] == list->ends[i])
		return false;
	ref->url = list->urls[i];
	ref->start = list->starts[i];
	ref->end = list->ends[i];
	return true;
}

AmStatus
am_shard_field_descriptor(AmShard *shard, uint32_t schema_id, bool *present,
						  AmFieldDescriptor *out, AmError *err)
{
	AmDataRef	ref;
	AmBytes		payload;
	int			file;
	AmStatus	st;

	*present = false;
	memset(out, 0, sizeof(*out));
	if (schema_id >= shard->schema.schema_id_count)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT, "no schema id %u", schema_id);
	if (!shard->shard_fields_loaded)
	{
		if ((st = read_field_list(shard, 0, &shard->dir.field_list_ref,
								  &shard->shard_fields,
								  &shard->shard_fields_file, err)) != AM_OK)
			return st;
		shard->shard_fields_loaded = true;
	}
	if (!list_entry(&shard->shard_fields, schema_id, &ref))
		return AM_OK;
	if ((st = read_message(shard, shard->shard_fields_file, &ref,
						   "field descriptor", &payload, &file, err)) != AM_OK ||
		(st = am_parse_field_descriptor(payload, out, err)) != AM_OK)
		return st;
	*present = true;
	return AM_OK;
}

AmStatus
am_shard_stripe_field(AmShard *shard, uint32_t stripe, uint32_t schema_id,
					  bool *present, AmStripeFieldDescriptor *out,
					  int *anchor_file, AmError *err)
{
	StripeFieldList *sl;
	AmDataRef	ref;
	AmBytes		payload;
	AmStatus	st;

	*present = false;
	memset(out, 0, sizeof(*out));
	if (stripe >= shard->stripe_count ||
		schema_id >= shard->schema.schema_id_count)
		return am_fail(err, AM_ERR_INVALID_ARGUMENT,
					   "no stripe %u or schema id %u", stripe, schema_id);
	sl = &shard->stripe_fields[stripe];
	if (!sl->loaded)
	{
		if ((st = read_field_list(shard, 0, &shard->stripes[stripe].field_list_ref,
								  &sl->list, &sl->file, err)) != AM_OK)
			return st;
		sl->loaded = true;
	}
	if (!list_entry(&sl->list, schema_id, &ref))
		return AM_OK;
	if ((st = read_message(shard, sl->file, &ref, "stripe field descriptor",
						   &payload, anchor_file, err)) != AM_OK ||
		(st = am_parse_stripe_field_descriptor(payload, &shard->alloc, out,
											   err)) != AM_OK)
		return st;
	if (out->buffers != NULL && (st = keep(shard, out->buffers, err)) != AM_OK)
		return st;
	*present = true;
	return AM_OK;
}
