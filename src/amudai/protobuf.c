/*-------------------------------------------------------------------------
 *
 * protobuf.c
 *	  A small bounded reader (and writer) of the protobuf wire format.
 *
 * Amudai's metadata is proto3 (section 1.7 of the format notes).  The
 * reader walks one message's bytes field by field; it knows nothing of the
 * schema, so messages.c interprets tags.  Every length is checked against
 * the end of the enclosing message, varints are at most 10 bytes, groups
 * (deprecated wire types 3 and 4) are rejected, and nested messages are
 * counted so hostile nesting stops at AM_PB_MAX_DEPTH instead of exhausting
 * the stack.
 *
 * The writer appends to a growable buffer from a PfcAllocator and is used
 * by writer.c and the tests.
 *
 * IDENTIFICATION
 *	  src/amudai/protobuf.c
 *
 *-------------------------------------------------------------------------
 */
#include "amudai/amudai_int.h"

void
am_pb_init(AmPbReader *r, AmBytes msg)
{
	r->pos = msg.data;
	r->end = msg.data + msg.len;
	r->depth = 0;
}

AmStatus
am_pb_nested(const AmPbReader *parent, const AmPbField *f, AmPbReader *child,
			 AmError *err)
{
	if (f->wire_type != AM_PB_LEN)
		return am_fail(err, AM_ERR_CORRUPT,
					   "protobuf field %u: expected a message, wire type %d",
					   f->tag, (int) f->wire_type);
	if (parent->depth + 1 > AM_PB_MAX_DEPTH)
		return am_fail(err, AM_ERR_CORRUPT,
					   "protobuf messages nested deeper than %d", AM_PB_MAX_DEPTH);
	child->pos = f->bytes.data;
	child->end = f->bytes.data + f->bytes.len;
	child->depth = parent->depth + 1;
	return AM_OK;
}

bool
am_pb_read_varint(const uint8_t **pos, const uint8_t *end, uint64_t *value)
{
	const uint8_t *p = *pos;
	uint64_t	v = 0;

	for (int shift = 0; shift < 70; shift += 7)
	{
		uint8_t		b;

		if (p >= end)
			return false;
		b = *p++;
		/* the 10th byte may only carry the top bit of a 64-bit value */
		if (shift == 63 && b > 1)
			return false;
		v |= (uint64_t) (b & 0x7F) << shift;
		if ((b & 0x80) == 0)
		{
			*pos = p;
			*value = v;
			return true;
		}
	}
	return false;
}

AmStatus
am_pb_next(AmPbReader *r, AmPbField *f, bool *done, AmError *err)
{
	uint64_t	key;
	uint64_t	len;

	if (r->pos >= r->end)
	{
		*done = true;
		return AM_OK;
	}
	*done = false;
	if (!am_pb_read_varint(&r->pos, r->end, &key))
		return am_fail(err, AM_ERR_CORRUPT, "truncated protobuf field key");
	if ((key >> 3) == 0 || (key >> 3) > UINT32_MAX >> 3)
		return am_fail(err, AM_ERR_CORRUPT, "invalid protobuf tag %" PRIu64,
					   key >> 3);
	f->tag = (uint32_t) (key >> 3);
	f->wire_type = (AmPbWireType) (key & 7);
	f->u64 = 0;
	f->bytes.data = NULL;
	f->bytes.len = 0;
	switch (key & 7)
	{
		case AM_PB_VARINT:
			if (!am_pb_read_varint(&r->pos, r->end, &f->u64))
				return am_fail(err, AM_ERR_CORRUPT,
							   "truncated protobuf varint (field %u)", f->tag);
			return AM_OK;
		case AM_PB_FIXED64:
			if (r->end - r->pos < 8)
				return am_fail(err, AM_ERR_CORRUPT,
							   "truncated protobuf fixed64 (field %u)", f->tag);
			f->u64 = am_load_u64(r->pos);
			r->pos += 8;
			return AM_OK;
		case AM_PB_FIXED32:
			if (r->end - r->pos < 4)
				return am_fail(err, AM_ERR_CORRUPT,
							   "truncated protobuf fixed32 (field %u)", f->tag);
			f->u64 = am_load_u32(r->pos);
			r->pos += 4;
			return AM_OK;
		case AM_PB_LEN:
			if (!am_pb_read_varint(&r->pos, r->end, &len) ||
				len > (uint64_t) (r->end - r->pos))
				return am_fail(err, AM_ERR_CORRUPT,
							   "protobuf field %u overruns its message", f->tag);
			f->bytes.data = r->pos;
			f->bytes.len = (size_t) len;
			r->pos += len;
			return AM_OK;
		default:
			return am_fail(err, AM_ERR_CORRUPT,
						   "protobuf wire type %d (field %u) is not allowed",
						   (int) (key & 7), f->tag);
	}
}

AmStatus
am_pb_expect(const AmPbField *f, AmPbWireType wt, const char *msg,
			 AmError *err)
{
	if (f->wire_type == wt)
		return AM_OK;
	return am_fail(err, AM_ERR_CORRUPT,
				   "%s field %u has wire type %d, expected %d",
				   msg, f->tag, (int) f->wire_type, (int) wt);
}

AmStatus
am_pb_fixed64_values(const AmPbField *f, uint64_t *out, uint64_t cap,
					 uint64_t *n, AmError *err)
{
	uint64_t	k;

	if (f->wire_type == AM_PB_FIXED64)
	{
		if (out != NULL)
		{
			if (*n >= cap)
				return am_fail(err, AM_ERR_CORRUPT, "repeated fixed64 grew");
			out[*n] = f->u64;
		}
		(*n)++;
		return AM_OK;
	}
	if (f->wire_type != AM_PB_LEN || f->bytes.len % 8 != 0)
		return am_fail(err, AM_ERR_CORRUPT,
					   "packed fixed64 field %u is not a multiple of 8 bytes",
					   f->tag);
	k = f->bytes.len / 8;
	if (out != NULL)
	{
		if (k > cap - *n)
			return am_fail(err, AM_ERR_CORRUPT, "repeated fixed64 grew");
		memcpy(out + *n, f->bytes.data, k * 8);
	}
	*n += k;
	return AM_OK;
}

/* ----------------------------------------------------------------
 * Writer
 * ----------------------------------------------------------------
 */
void
am_pbw_init(AmPbWriter *w, const PfcAllocator *alloc)
{
	w->buf = NULL;
	w->len = 0;
	w->cap = 0;
	w->alloc = alloc;
	w->failed = false;
}

void
am_pbw_free(AmPbWriter *w)
{
	am_release(w->alloc, w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

void
am_pbw_raw(AmPbWriter *w, const void *data, size_t len)
{
	if (w->failed)
		return;
	if (w->cap - w->len < len)
	{
		size_t		cap = w->cap ? w->cap : 64;
		uint8_t    *nb;

		while (cap - w->len < len)
			cap *= 2;
		nb = w->alloc->alloc(w->alloc->ctx, cap);
		if (nb == NULL)
		{
			w->failed = true;
			return;
		}
		if (w->len > 0)
			memcpy(nb, w->buf, w->len);
		am_release(w->alloc, w->buf);
		w->buf = nb;
		w->cap = cap;
	}
	if (len > 0)
		memcpy(w->buf + w->len, data, len);
	w->len += len;
}

void
am_pbw_varint(AmPbWriter *w, uint64_t v)
{
	uint8_t		tmp[10];
	size_t		n = 0;

	do
	{
		tmp[n] = (uint8_t) (v & 0x7F);
		v >>= 7;
		if (v != 0)
			tmp[n] |= 0x80;
		n++;
	} while (v != 0);
	am_pbw_raw(w, tmp, n);
}

void
am_pbw_tag(AmPbWriter *w, uint32_t tag, AmPbWireType wt)
{
	am_pbw_varint(w, (uint64_t) tag << 3 | (uint64_t) wt);
}

void
am_pbw_uint(AmPbWriter *w, uint32_t tag, uint64_t v)
{
	am_pbw_tag(w, tag, AM_PB_VARINT);
	am_pbw_varint(w, v);
}

void
am_pbw_fixed64(AmPbWriter *w, uint32_t tag, uint64_t v)
{
	uint8_t		tmp[8];

	am_pbw_tag(w, tag, AM_PB_FIXED64);
	am_store_u64(tmp, v);
	am_pbw_raw(w, tmp, 8);
}

void
am_pbw_fixed32(AmPbWriter *w, uint32_t tag, uint32_t v)
{
	uint8_t		tmp[4];

	am_pbw_tag(w, tag, AM_PB_FIXED32);
	am_store_u32(tmp, v);
	am_pbw_raw(w, tmp, 4);
}

void
am_pbw_bytes(AmPbWriter *w, uint32_t tag, const void *data, size_t len)
{
	am_pbw_tag(w, tag, AM_PB_LEN);
	am_pbw_varint(w, len);
	am_pbw_raw(w, data, len);
}
