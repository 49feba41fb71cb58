/*-------------------------------------------------------------------------
 *
 * fuzz_variant.c
 *	  libFuzzer target: the Variant decoder (metadata + value to JSON text)
 *	  and its object accessors on arbitrary bytes.
 *
 * Input layout: bytes 0..1 = metadata length m (little-endian, clamped to
 * what is there); the next m bytes are the metadata and the rest is the
 * value.  Both are copied to heap buffers of exactly their size, so any
 * read past them is an ASan report.
 *
 * Oracles: a failure is one of the documented statuses with a message; a
 * success is one syntactically valid JSON value (checked by a small
 * recursive-descent parser here), decoding twice gives the same text, and
 * when the value is an object every field the accessors return decodes on
 * its own, to text that appears in the whole value's text.
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_variant.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/variant.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- a strict JSON syntax check (RFC 8259), returns the end or NULL ---- */
static const char *json_value(const char *p, int depth);

static const char *
json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *
json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (;;)
	{
		unsigned char c = (unsigned char) *p;

		if (c == '"')
			return p + 1;
		if (c < 0x20)
			return NULL;		/* also the terminating NUL */
		if (c == '\\')
		{
			p++;
			if (*p == 'u')
			{
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || p[i] == '\0')
						return NULL;
				p += 5;
				continue;
			}
			if (!*p || !strchr("\"\\/bfnrt", *p))
				return NULL;
		}
		p++;
	}
}

static const char *
json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.')
	{
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E')
	{
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return p;
}

static const char *
json_value(const char *p, int depth)
{
	p = json_ws(p);
	if (depth > PQ_VARIANT_MAX_DEPTH + 1)
		return NULL;
	switch (*p)
	{
		case '{':
		case '[':
			{
				char		close = *p == '{' ? '}' : ']';
				bool		object = *p == '{';

				p = json_ws(p + 1);
				if (*p == close)
					return p + 1;
				for (;;)
				{
					if (object)
					{
						p = json_string(json_ws(p));
						if (p == NULL)
							return NULL;
						p = json_ws(p);
						if (*p++ != ':')
							return NULL;
					}
					p = json_value(p, depth + 1);
					if (p == NULL)
						return NULL;
					p = json_ws(p);
					if (*p == close)
						return p + 1;
					if (*p++ != ',')
						return NULL;
				}
			}
		case '"':
			return json_string(p);
		case 't':
			return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
		case 'f':
			return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
		case 'n':
			return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
		default:
			return json_number(p);
	}
}

static void
check_error(PqStatus st, const PqError *err)
{
	if (st != PQ_ERR_CORRUPT && st != PQ_ERR_UNSUPPORTED)
		abort();
	if (err->message[0] == '\0')
		abort();
}

/* Decode into a fresh buffer; returns the status, *text malloc'ed on success. */
static PqStatus
decode(const PqVariantMetadata *md, const uint8_t *v, size_t len, char **text,
	   PqError *err)
{
	PqStrBuf	buf;
	PqStatus	st;

	*text = NULL;
	pq_error_clear(err);
	pq_strbuf_init(&buf, &pfc_malloc_allocator, (size_t) 64 << 20);
	st = pq_variant_to_json(md, v, len, &buf, err);
	if (st == PQ_OK)
		*text = strdup(buf.data ? buf.data : "");
	pq_strbuf_free(&buf);
	return st;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		md_len;
	uint8_t    *md_bytes;
	uint8_t    *value;
	size_t		value_len;
	PqVariantMetadata md;
	PqError		err;
	PqStatus	st;
	char	   *text = NULL;
	char	   *again = NULL;

	if (size < 2)
		return 0;
	md_len = (size_t) data[0] | ((size_t) data[1] << 8);
	if (md_len > size - 2)
		md_len = size - 2;
	value_len = size - 2 - md_len;
	md_bytes = malloc(md_len ? md_len : 1);
	value = malloc(value_len ? value_len : 1);
	memcpy(md_bytes, data + 2, md_len);
	memcpy(value, data + 2 + md_len, value_len);

	pq_error_clear(&err);
	st = pq_variant_metadata_parse(md_bytes, md_len, &md, &err);
	if (st != PQ_OK)
	{
		check_error(st, &err);
		goto done;
	}
	/* every key lies inside the metadata */
	for (uint32_t i = 0; i < md.num_keys && i < 1000; i++)
	{
		const uint8_t *key;
		size_t		len;

		if (!pq_variant_metadata_key(&md, i, &key, &len) ||
			key < md_bytes || key + len > md_bytes + md_len)
			abort();
	}

	st = decode(&md, value, value_len, &text, &err);
	if (st != PQ_OK)
	{
		check_error(st, &err);
		goto done;
	}
	{
		const char *end = json_value(text, 0);

		if (end == NULL || *json_ws(end) != '\0')
			abort();
	}
	if (decode(&md, value, value_len, &again, &err) != PQ_OK || strcmp(text, again) != 0)
		abort();

	/* the object accessors agree with the whole decode */
	{
		PqVariantObject obj;
		bool		is_object;

		if (pq_variant_object_open(&md, value, value_len, &obj, &is_object, &err) != PQ_OK)
			abort();
		if (is_object != (value_len > 0 && PQ_VARIANT_BASIC_TYPE(value[0]) == 2))
			abort();
		for (uint32_t i = 0; is_object && i < obj.num_fields; i++)
		{
			const uint8_t *key;
			const uint8_t *fv;
			size_t		key_len;
			size_t		fv_len;
			char	   *field_text;

			if (pq_variant_object_field(&obj, i, &key, &key_len, &fv, &fv_len, &err) != PQ_OK)
				abort();
			if (fv < value || fv + fv_len > value + value_len)
				abort();
			if (decode(&md, fv, fv_len, &field_text, &err) != PQ_OK)
				abort();
			if (strstr(text, field_text) == NULL)
				abort();
			free(field_text);
		}
	}

done:
	free(text);
	free(again);
	free(md_bytes);
	free(value);
	return 0;
}
