/*-------------------------------------------------------------------------
 *
 * variant.c
 *	  Variant binary encoding (Parquet VariantEncoding.md) to JSON text, and
 *	  the JSON writers for the value types Variant shares with Parquet.
 *
 * A value's size is known from its header alone (objects and arrays carry
 * their last field offset), so every value is checked to fit the bytes
 * its parent gave it before anything is read, then written in one pass.
 * See variant.h for the rendering of each type.
 *
 * IDENTIFICATION
 *	  src/parquet/variant.c
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "parquet/pq_internal.h"
#include "parquet/variant.h"

/* Primitive type ids (VariantEncoding.md, "Variant primitive types"). */
enum
{
	VT_NULL = 0,
	VT_TRUE = 1,
	VT_FALSE = 2,
	VT_INT8 = 3,
	VT_INT16 = 4,
	VT_INT32 = 5,
	VT_INT64 = 6,
	VT_DOUBLE = 7,
	VT_DECIMAL4 = 8,
	VT_DECIMAL8 = 9,
	VT_DECIMAL16 = 10,
	VT_DATE = 11,
	VT_TIMESTAMP = 12,
	VT_TIMESTAMP_NTZ = 13,
	VT_FLOAT = 14,
	VT_BINARY = 15,
	VT_STRING = 16,
	VT_TIME_NTZ = 17,
	VT_TIMESTAMP_NANOS = 18,
	VT_TIMESTAMP_NTZ_NANOS = 19,
	VT_UUID = 20
};

#define MAX_DECIMAL_SCALE 38

/* ----------------------------------------------------------------
 * Text buffer
 * ----------------------------------------------------------------
 */
void
pq_strbuf_init(PqStrBuf *buf, const PfcAllocator *alloc, size_t max_len)
{
	memset(buf, 0, sizeof(*buf));
	buf->alloc = *alloc;
	buf->max_len = max_len;
	buf->status = PQ_OK;
}

void
pq_strbuf_reset(PqStrBuf *buf)
{
	buf->len = 0;
	buf->status = PQ_OK;
	if (buf->data != NULL)
		buf->data[0] = '\0';
}

void
pq_strbuf_truncate(PqStrBuf *buf, size_t len)
{
	if (buf->status != PQ_OK || len > buf->len)
		return;
	buf->len = len;
	if (buf->data != NULL)
		buf->data[len] = '\0';
}

void
pq_strbuf_free(PqStrBuf *buf)
{
	if (buf->data != NULL && buf->alloc.release != NULL)
		buf->alloc.release(buf->alloc.ctx, buf->data);
	buf->data = NULL;
	buf->len = buf->cap = 0;
}

/* Make room for n more bytes and the NUL; false (status set) if impossible. */
static bool
strbuf_reserve(PqStrBuf *buf, size_t n)
{
	size_t		need;
	size_t		cap;
	char	   *data;

	if (buf->status != PQ_OK)
		return false;
	if (n > buf->max_len || buf->len > buf->max_len - n)
	{
		buf->status = PQ_ERR_CORRUPT;
		return false;
	}
	need = buf->len + n + 1;
	if (need <= buf->cap)
		return true;
	cap = buf->cap < 64 ? 64 : buf->cap;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	data = buf->alloc.alloc(buf->alloc.ctx, cap);
	if (data == NULL)
	{
		buf->status = PQ_ERR_IO;
		return false;
	}
	if (buf->len > 0)
		memcpy(data, buf->data, buf->len);
	if (buf->data != NULL && buf->alloc.release != NULL)
		buf->alloc.release(buf->alloc.ctx, buf->data);
	buf->data = data;
	buf->cap = cap;
	return true;
}

void
pq_strbuf_append(PqStrBuf *buf, const char *s, size_t n)
{
	if (!strbuf_reserve(buf, n))
		return;
	if (n > 0)
		memcpy(buf->data + buf->len, s, n);
	buf->len += n;
	buf->data[buf->len] = '\0';
}

void
pq_strbuf_append_char(PqStrBuf *buf, char c)
{
	if (!strbuf_reserve(buf, 1))
		return;
	buf->data[buf->len++] = c;
	buf->data[buf->len] = '\0';
}

PqStatus
pq_strbuf_status(const PqStrBuf *buf, PqError *err)
{
	if (buf->status == PQ_ERR_IO)
		pq_error_oom(err);
	else if (buf->status != PQ_OK)
		pq_error_set(err, buf->status,
					 "JSON text of a variant value longer than %zu bytes",
					 buf->max_len);
	return buf->status;
}

/* ----------------------------------------------------------------
 * JSON writers
 * ----------------------------------------------------------------
 */

bool
pq_json_string(PqStrBuf *buf, const uint8_t *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t		start = buf->len;
	size_t		i = 0;

	pq_strbuf_append_char(buf, '"');
	while (i < n)
	{
		size_t		run = i;

		/* copy runs of plain characters at once */
		while (run < n && s[run] >= 0x20 && s[run] < 0x80 &&
			   s[run] != '"' && s[run] != '\\')
			run++;
		if (run > i)
		{
			pq_strbuf_append(buf, (const char *) s + i, run - i);
			i = run;
			continue;
		}
		if (s[i] >= 0x80)
		{
			size_t		len = pfc_utf8_sequence_length(s + i, n - i);

			if (len == 0)
			{
				pq_strbuf_truncate(buf, start);
				return false;
			}
			pq_strbuf_append(buf, (const char *) s + i, len);
			i += len;
			continue;
		}
		switch (s[i])
		{
			case '"':
				pq_strbuf_append(buf, "\\\"", 2);
				break;
			case '\\':
				pq_strbuf_append(buf, "\\\\", 2);
				break;
			case '\n':
				pq_strbuf_append(buf, "\\n", 2);
				break;
			case '\r':
				pq_strbuf_append(buf, "\\r", 2);
				break;
			case '\t':
				pq_strbuf_append(buf, "\\t", 2);
				break;
			case '\b':
				pq_strbuf_append(buf, "\\b", 2);
				break;
			case '\f':
				pq_strbuf_append(buf, "\\f", 2);
				break;
			default:
				{
					char		esc[6] = {'\\', 'u', '0', '0',
					hex[s[i] >> 4], hex[s[i] & 0xF]};

					pq_strbuf_append(buf, esc, 6);
				}
		}
		i++;
	}
	pq_strbuf_append_char(buf, '"');
	return true;
}

void
pq_json_int64(PqStrBuf *buf, int64_t v)
{
	char		tmp[24];
	int			n = snprintf(tmp, sizeof(tmp), "%" PRId64, v);

	pq_strbuf_append(buf, tmp, (size_t) n);
}

/* NaN and infinities have no JSON number: the strings float8out prints. */
static bool
json_special_float(PqStrBuf *buf, double v)
{
	if (isnan(v))
		pq_strbuf_append(buf, "\"NaN\"", 5);
	else if (isinf(v))
	{
		if (v > 0)
			pq_strbuf_append(buf, "\"Infinity\"", 10);
		else
			pq_strbuf_append(buf, "\"-Infinity\"", 11);
	}
	else
		return false;
	return true;
}

/*
 * Shortest %g text that reads back to the same double: %.15g strips
 * trailing zeros, so it is the shortest whenever 15 digits suffice.
 */
void
pq_json_double(PqStrBuf *buf, double v)
{
	char		tmp[40];
	int			n = 0;

	if (json_special_float(buf, v))
		return;
	for (int prec = 15; prec <= 17; prec++)
	{
		n = snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	pq_strbuf_append(buf, tmp, (size_t) n);
}

void
pq_json_float(PqStrBuf *buf, float v)
{
	char		tmp[40];
	int			n = 0;

	if (json_special_float(buf, v))
		return;
	for (int prec = 6; prec <= 9; prec++)
	{
		n = snprintf(tmp, sizeof(tmp), "%.*g", prec, (double) v);
		if (strtof(tmp, NULL) == v)
			break;
	}
	pq_strbuf_append(buf, tmp, (size_t) n);
}

bool
pq_json_decimal128(PqStrBuf *buf, int64_t hi, uint64_t lo, int scale)
{
	unsigned __int128 mag = ((unsigned __int128) (uint64_t) hi << 64) | lo;
	bool		negative = hi < 0;
	char		digits[48];
	char		out[96];
	int			nd = 0;
	int			pos = 0;

	if (scale < 0 || scale > MAX_DECIMAL_SCALE)
		return false;
	if (negative)
		mag = ~mag + 1;			/* two's complement magnitude (also of -2^127) */
	do
	{
		digits[nd++] = (char) ('0' + (int) (mag % 10));
		mag /= 10;
	} while (mag != 0);
	/* at least one digit before the point */
	while (nd <= scale)
		digits[nd++] = '0';
	if (negative)
		out[pos++] = '-';
	for (int i = nd - 1; i >= 0; i--)
	{
		out[pos++] = digits[i];
		if (i == scale && scale > 0)
			out[pos++] = '.';
	}
	pq_strbuf_append(buf, out, (size_t) pos);
	return true;
}

bool
pq_json_decimal_be(PqStrBuf *buf, const uint8_t *p, size_t n, int scale)
{
	uint8_t		sign;
	uint64_t	hi = 0;
	uint64_t	lo = 0;

	if (n == 0)
		return false;
	sign = (p[0] & 0x80) ? 0xFF : 0x00;
	/* bytes beyond 16 may only repeat the sign */
	while (n > 16)
	{
		if (p[0] != sign || ((p[1] ^ sign) & 0x80) != 0)
			return false;
		p++;
		n--;
	}
	if (sign)
		hi = lo = UINT64_MAX;
	for (size_t i = 0; i < n; i++)
	{
		hi = (hi << 8) | (lo >> 56);
		lo = (lo << 8) | p[i];
	}
	return pq_json_decimal128(buf, (int64_t) hi, lo, scale);
}

/* Proleptic Gregorian date of a day number (days since 1970-01-01). */
static void
civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t		era;
	int64_t		doe;
	int64_t		yoe;
	int64_t		doy;
	int64_t		mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int) (doy - (153 * mp + 2) / 5 + 1);
	*m = (int) (mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* "YYYY-MM-DD" of a day number; *bc says the year is before 1 AD. */
static int
format_date(char *out, size_t cap, int64_t days, bool *bc)
{
	int64_t		y;
	int			m,
				d;

	civil_from_days(days, &y, &m, &d);
	*bc = y <= 0;
	if (*bc)
		y = 1 - y;				/* 0 is 1 BC */
	return snprintf(out, cap, "%04" PRId64 "-%02d-%02d", y, m, d);
}

void
pq_json_date(PqStrBuf *buf, int64_t days)
{
	char		tmp[48];
	bool		bc;
	int			n = format_date(tmp, sizeof(tmp), days, &bc);

	pq_strbuf_append_char(buf, '"');
	pq_strbuf_append(buf, tmp, (size_t) n);
	if (bc)
		pq_strbuf_append(buf, " BC", 3);
	pq_strbuf_append_char(buf, '"');
}

/* "HH:MM:SS" and the fraction without trailing zeros (digits: 6 or 9). */
static int
format_time_of_day(char *out, size_t cap, int64_t secs, int64_t frac, int digits)
{
	int			n = snprintf(out, cap, "%02d:%02d:%02d",
							 (int) (secs / 3600), (int) (secs / 60 % 60),
							 (int) (secs % 60));

	if (frac != 0)
	{
		char		f[16];
		int			len = snprintf(f, sizeof(f), "%0*" PRId64, digits, frac);

		while (len > 0 && f[len - 1] == '0')
			len--;
		n += snprintf(out + n, cap - n, ".%.*s", len, f);
	}
	return n;
}

bool
pq_json_time(PqStrBuf *buf, int64_t micros)
{
	char		tmp[40];
	int			n;

	/* 24:00:00 is a valid PostgreSQL time */
	if (micros < 0 || micros > INT64_C(86400000000))
		return false;
	n = format_time_of_day(tmp, sizeof(tmp), micros / 1000000, micros % 1000000, 6);
	pq_strbuf_append_char(buf, '"');
	pq_strbuf_append(buf, tmp, (size_t) n);
	pq_strbuf_append_char(buf, '"');
	return true;
}

void
pq_json_timestamp(PqStrBuf *buf, int64_t v, bool nanos, bool utc)
{
	int64_t		per_sec = nanos ? 1000000000 : 1000000;
	int64_t		secs = v / per_sec;
	int64_t		frac = v % per_sec;
	int64_t		days;
	int64_t		sod;
	char		tmp[96];
	bool		bc;
	int			n;

	if (frac < 0)
	{
		frac += per_sec;
		secs--;
	}
	days = secs / 86400;
	sod = secs % 86400;
	if (sod < 0)
	{
		sod += 86400;
		days--;
	}
	n = format_date(tmp, sizeof(tmp), days, &bc);
	tmp[n++] = 'T';
	n += format_time_of_day(tmp + n, sizeof(tmp) - n, sod, frac, nanos ? 9 : 6);
	pq_strbuf_append_char(buf, '"');
	pq_strbuf_append(buf, tmp, (size_t) n);
	if (utc)
		pq_strbuf_append(buf, "+00:00", 6);
	if (bc)
		pq_strbuf_append(buf, " BC", 3);
	pq_strbuf_append_char(buf, '"');
}

void
pq_json_binary(PqStrBuf *buf, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char		chunk[128];
	size_t		k = 0;

	pq_strbuf_append(buf, "\"\\\\x", 4);
	for (size_t i = 0; i < n; i++)
	{
		chunk[k++] = hex[p[i] >> 4];
		chunk[k++] = hex[p[i] & 0xF];
		if (k == sizeof(chunk))
		{
			pq_strbuf_append(buf, chunk, k);
			k = 0;
		}
	}
	pq_strbuf_append(buf, chunk, k);
	pq_strbuf_append_char(buf, '"');
}

void
pq_json_uuid(PqStrBuf *buf, const uint8_t *p)
{
	static const char hex[] = "0123456789abcdef";
	char		tmp[40];
	int			k = 0;

	tmp[k++] = '"';
	for (int i = 0; i < 16; i++)
	{
		if (i == 4 || i == 6 || i == 8 || i == 10)
			tmp[k++] = '-';
		tmp[k++] = hex[p[i] >> 4];
		tmp[k++] = hex[p[i] & 0xF];
	}
	tmp[k++] = '"';
	pq_strbuf_append(buf, tmp, (size_t) k);
}

/* ----------------------------------------------------------------
 * Metadata
 * ----------------------------------------------------------------
 */

/* Unsigned little-endian integer of size bytes (1..4). */
static inline uint32_t
read_le(const uint8_t *p, int size)
{
	uint32_t	v = 0;

	for (int i = size - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline uint64_t
read_le64(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

PqStatus
pq_variant_metadata_parse(const uint8_t *buf, size_t len,
						  PqVariantMetadata *md, PqError *err)
{
	uint8_t		header;
	int			osize;
	uint32_t	n;
	size_t		offsets_len;
	uint32_t	prev = 0;

	memset(md, 0, sizeof(*md));
	if (len < 1)
	{
		pq_error_set(err, PQ_ERR_CORRUPT, "empty variant metadata");
		return PQ_ERR_CORRUPT;
	}
	header = buf[0];
	if ((header & 0x0F) != 1)
	{
		pq_error_set(err, PQ_ERR_UNSUPPORTED, "variant metadata version %d is not supported",
					 header & 0x0F);
		return PQ_ERR_UNSUPPORTED;
	}
	osize = ((header >> 6) & 0x3) + 1;
	if (len < 1 + (size_t) osize)
	{
		pq_error_set(err, PQ_ERR_CORRUPT, "variant metadata truncated in its dictionary size");
		return PQ_ERR_CORRUPT;
	}
	n = read_le(buf + 1, osize);
	/* n + 1 offsets must fit (computed in 64 bits: n may be 2^32 - 1) */
	offsets_len = ((size_t) n + 1) * (size_t) osize;
	if (offsets_len > len - 1 - osize)
	{
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "variant metadata declares %" PRIu32 " keys but has %zu bytes", n, len);
		return PQ_ERR_CORRUPT;
	}
	md->num_keys = n;
	md->sorted_strings = (header & 0x10) != 0;
	md->offset_size = (uint8_t) osize;
	md->offsets = buf + 1 + osize;
	md->strings = md->offsets + offsets_len;
	md->strings_len = len - 1 - osize - offsets_len;
	for (uint32_t i = 0; i <= n; i++)
	{
		uint32_t	off = read_le(md->offsets + (size_t) i * osize, osize);

		if (off < prev || off > md->strings_len || (i == 0 && off != 0))
		{
			pq_error_set(err, PQ_ERR_CORRUPT,
						 "variant metadata key offset %" PRIu32 " (entry %" PRIu32 ") is out of order or beyond its %zu string bytes",
						 off, i, md->strings_len);
			return PQ_ERR_CORRUPT;
		}
		prev = off;
	}
	return PQ_OK;
}

bool
pq_variant_metadata_key(const PqVariantMetadata *md, uint32_t id,
						const uint8_t **key, size_t *len)
{
	uint32_t	start;
	uint32_t	end;

	if (id >= md->num_keys)
		return false;
	/* offsets were checked non-decreasing and in range by the parser */
	start = read_le(md->offsets + (size_t) id * md->offset_size, md->offset_size);
	end = read_le(md->offsets + ((size_t) id + 1) * md->offset_size, md->offset_size);
	*key = md->strings + start;
	*len = end - start;
	return true;
}

/* ----------------------------------------------------------------
 * Values
 * ----------------------------------------------------------------
 */

/* Layout of an object or array value, from its header. */
typedef struct Container
{
	uint32_t	num;
	int			id_size;		/* objects only */
	int			offset_size;
	const uint8_t *ids;
	const uint8_t *offsets;
	const uint8_t *fields;
	size_t		fields_len;		/* the last offset */
	size_t		size;			/* of the whole value */
} Container;

static PqStatus
corrupt(PqError *err, const char *what)
{
	pq_error_set(err, PQ_ERR_CORRUPT, "malformed variant value: %s", what);
	return PQ_ERR_CORRUPT;
}

/* Parse the header of an object (basic type 2) or array (3) at p[0..avail). */
static PqStatus
container_open(const uint8_t *p, size_t avail, Container *c, PqError *err)
{
	uint8_t		hdr = p[0] >> 2;
	bool		object = PQ_VARIANT_BASIC_TYPE(p[0]) == 2;
	int			nsize;
	size_t		pos = 1;
	size_t		ids_len;
	size_t		offs_len;

	c->offset_size = (hdr & 0x3) + 1;
	if (object)
	{
		c->id_size = ((hdr >> 2) & 0x3) + 1;
		nsize = (hdr & 0x10) ? 4 : 1;
	}
	else
	{
		c->id_size = 0;
		nsize = (hdr & 0x4) ? 4 : 1;
	}
	if (avail - pos < (size_t) nsize)
		return corrupt(err, "truncated element count");
	c->num = read_le(p + pos, nsize);
	pos += nsize;
	ids_len = (size_t) c->num * c->id_size;
	offs_len = ((size_t) c->num + 1) * c->offset_size;
	if (avail - pos < ids_len || avail - pos - ids_len < offs_len)
		return corrupt(err, "element count beyond the value's bytes");
	c->ids = p + pos;
	c->offsets = p + pos + ids_len;
	pos += ids_len + offs_len;
	c->fields = p + pos;
	c->fields_len = read_le(c->offsets + (size_t) c->num * c->offset_size, c->offset_size);
	if (c->fields_len > avail - pos)
		return corrupt(err, "fields beyond the value's bytes");
	c->size = pos + c->fields_len;
	return PQ_OK;
}

/*
 * Size of the value at p[0..avail) from its header (no recursion: objects
 * and arrays carry their size); error if it does not fit.
 */
static PqStatus
value_size(const uint8_t *p, size_t avail, size_t *size, PqError *err)
{
	size_t		need;

	if (avail < 1)
		return corrupt(err, "empty value");
	switch (PQ_VARIANT_BASIC_TYPE(p[0]))
	{
		case 1:					/* short string */
			need = 1 + (size_t) (p[0] >> 2);
			break;
		case 2:
		case 3:
			{
				Container	c;
				PqStatus	st = container_open(p, avail, &c, err);

				if (st != PQ_OK)
					return st;
				*size = c.size;
				return PQ_OK;
			}
		default:
			switch (p[0] >> 2)
			{
				case VT_NULL:
				case VT_TRUE:
				case VT_FALSE:
					need = 1;
					break;
				case VT_INT8:
					need = 2;
					break;
				case VT_INT16:
					need = 3;
					break;
				case VT_INT32:
				case VT_DATE:
				case VT_FLOAT:
					need = 5;
					break;
				case VT_INT64:
				case VT_DOUBLE:
				case VT_TIMESTAMP:
				case VT_TIMESTAMP_NTZ:
				case VT_TIME_NTZ:
				case VT_TIMESTAMP_NANOS:
				case VT_TIMESTAMP_NTZ_NANOS:
					need = 9;
					break;
				case VT_DECIMAL4:
					need = 6;
					break;
				case VT_DECIMAL8:
					need = 10;
					break;
				case VT_DECIMAL16:
					need = 18;
					break;
				case VT_UUID:
					need = 17;
					break;
				case VT_BINARY:
				case VT_STRING:
					if (avail < 5)
						return corrupt(err, "truncated string or binary length");
					need = 5 + (size_t) read_le(p + 1, 4);
					break;
				default:
					pq_error_set(err, PQ_ERR_UNSUPPORTED,
								 "variant primitive type %d is not supported", p[0] >> 2);
					return PQ_ERR_UNSUPPORTED;
			}
	}
	if (need > avail)
		return corrupt(err, "value extends beyond its bytes");
	*size = need;
	return PQ_OK;
}

static PqStatus to_json(const PqVariantMetadata *md, const uint8_t *p,
						size_t size, int depth, PqStrBuf *out, PqError *err);

/*
 * Child i of a container: its bytes, checked to lie in the fields area, and
 * counted against the container's size (*used).
 */
static PqStatus
container_child(const Container *c, uint32_t i, const uint8_t **child,
				size_t *child_size, size_t *used, PqError *err)
{
	size_t		off = read_le(c->offsets + (size_t) i * c->offset_size, c->offset_size);
	PqStatus	st;

	if (off >= c->fields_len)
		return corrupt(err, "field offset beyond the fields");
	st = value_size(c->fields + off, c->fields_len - off, child_size, err);
	if (st != PQ_OK)
		return st;
	/* children must not share bytes beyond the container's own size */
	*used += *child_size;
	if (*used > c->fields_len)
		return corrupt(err, "fields overlap");
	*child = c->fields + off;
	return PQ_OK;
}

static PqStatus
primitive_to_json(const uint8_t *p, size_t size, PqStrBuf *out, PqError *err)
{
	int			type = p[0] >> 2;

	switch (type)
	{
		case VT_NULL:
			pq_strbuf_append(out, "null", 4);
			break;
		case VT_TRUE:
			pq_strbuf_append(out, "true", 4);
			break;
		case VT_FALSE:
			pq_strbuf_append(out, "false", 5);
			break;
		case VT_INT8:
			pq_json_int64(out, (int8_t) p[1]);
			break;
		case VT_INT16:
			pq_json_int64(out, (int16_t) read_le(p + 1, 2));
			break;
		case VT_INT32:
			pq_json_int64(out, (int32_t) read_le(p + 1, 4));
			break;
		case VT_INT64:
			pq_json_int64(out, (int64_t) read_le64(p + 1));
			break;
		case VT_DOUBLE:
			{
				uint64_t	bits = read_le64(p + 1);
				double		d;

				memcpy(&d, &bits, sizeof(d));
				pq_json_double(out, d);
				break;
			}
		case VT_FLOAT:
			{
				uint32_t	bits = read_le(p + 1, 4);
				float		f;

				memcpy(&f, &bits, sizeof(f));
				pq_json_float(out, f);
				break;
			}
		case VT_DECIMAL4:
		case VT_DECIMAL8:
		case VT_DECIMAL16:
			{
				int			scale = p[1];
				int64_t		hi;
				uint64_t	lo;

				if (type == VT_DECIMAL4)
				{
					lo = (uint64_t) (int64_t) (int32_t) read_le(p + 2, 4);
					hi = (int64_t) lo < 0 ? -1 : 0;
				}
				else if (type == VT_DECIMAL8)
				{
					lo = read_le64(p + 2);
					hi = (int64_t) lo < 0 ? -1 : 0;
				}
				else
				{
					lo = read_le64(p + 2);
					hi = (int64_t) read_le64(p + 10);
				}
				if (!pq_json_decimal128(out, hi, lo, scale))
					return corrupt(err, "decimal scale above 38");
				break;
			}
		case VT_DATE:
			pq_json_date(out, (int32_t) read_le(p + 1, 4));
			break;
		case VT_TIMESTAMP:
		case VT_TIMESTAMP_NTZ:
		case VT_TIMESTAMP_NANOS:
		case VT_TIMESTAMP_NTZ_NANOS:
			pq_json_timestamp(out, (int64_t) read_le64(p + 1),
							  type == VT_TIMESTAMP_NANOS || type == VT_TIMESTAMP_NTZ_NANOS,
							  type == VT_TIMESTAMP || type == VT_TIMESTAMP_NANOS);
			break;
		case VT_TIME_NTZ:
			if (!pq_json_time(out, (int64_t) read_le64(p + 1)))
				return corrupt(err, "time of day out of range");
			break;
		case VT_BINARY:
			pq_json_binary(out, p + 5, size - 5);
			break;
		case VT_STRING:
			if (!pq_json_string(out, p + 5, size - 5))
				return corrupt(err, "string is not valid UTF-8");
			break;
		case VT_UUID:
			pq_json_uuid(out, p + 1);
			break;
		default:
			/* value_size() rejected the others */
			return corrupt(err, "unknown primitive type");
	}
	return PQ_OK;
}

/* Write the value p[0..size), whose size value_size() established. */
static PqStatus
to_json(const PqVariantMetadata *md, const uint8_t *p, size_t size, int depth,
		PqStrBuf *out, PqError *err)
{
	int			basic = PQ_VARIANT_BASIC_TYPE(p[0]);
	Container	c;
	size_t		used = 0;
	PqStatus	st;

	if (basic == 0)
		return primitive_to_json(p, size, out, err);
	if (basic == 1)
	{
		if (!pq_json_string(out, p + 1, size - 1))
			return corrupt(err, "string is not valid UTF-8");
		return PQ_OK;
	}
	if (depth >= PQ_VARIANT_MAX_DEPTH)
	{
		pq_error_set(err, PQ_ERR_CORRUPT,
					 "variant value nested deeper than %d levels", PQ_VARIANT_MAX_DEPTH);
		return PQ_ERR_CORRUPT;
	}
	st = container_open(p, size, &c, err);
	if (st != PQ_OK)
		return st;
	pq_strbuf_append_char(out, basic == 2 ? '{' : '[');
	for (uint32_t i = 0; i < c.num; i++)
	{
		const uint8_t *child;
		size_t		child_size;

		if (i > 0)
			pq_strbuf_append_char(out, ',');
		if (basic == 2)
		{
			uint32_t	id = read_le(c.ids + (size_t) i * c.id_size, c.id_size);
			const uint8_t *key;
			size_t		key_len;

			if (!pq_variant_metadata_key(md, id, &key, &key_len))
				return corrupt(err, "field id beyond the metadata dictionary");
			if (!pq_json_string(out, key, key_len))
				return corrupt(err, "object key is not valid UTF-8");
			pq_strbuf_append_char(out, ':');
		}
		st = container_child(&c, i, &child, &child_size, &used, err);
		if (st != PQ_OK)
			return st;
		st = to_json(md, child, child_size, depth + 1, out, err);
		if (st != PQ_OK)
			return st;
		if (out->status != PQ_OK)
			return pq_strbuf_status(out, err);
	}
	pq_strbuf_append_char(out, basic == 2 ? '}' : ']');
	return PQ_OK;
}

PqStatus
pq_variant_to_json(const PqVariantMetadata *md, const uint8_t *value,
				   size_t len, PqStrBuf *out, PqError *err)
{
	size_t		size;
	PqStatus	st = value_size(value, len, &size, err);

	if (st != PQ_OK)
		return st;
	if (size != len)
		return corrupt(err, "trailing bytes after the value");
	st = to_json(md, value, size, 0, out, err);
	if (st != PQ_OK)
		return st;
	return pq_strbuf_status(out, err);
}

PqStatus
pq_variant_object_open(const PqVariantMetadata *md, const uint8_t *value,
					   size_t len, PqVariantObject *obj, bool *is_object,
					   PqError *err)
{
	size_t		size;
	Container	c;
	PqStatus	st = value_size(value, len, &size, err);

	memset(obj, 0, sizeof(*obj));
	*is_object = false;
	if (st != PQ_OK)
		return st;
	if (size != len)
		return corrupt(err, "trailing bytes after the value");
	if (PQ_VARIANT_BASIC_TYPE(value[0]) != 2)
		return PQ_OK;
	st = container_open(value, len, &c, err);
	if (st != PQ_OK)
		return st;
	obj->md = md;
	obj->num_fields = c.num;
	obj->id_size = (uint8_t) c.id_size;
	obj->offset_size = (uint8_t) c.offset_size;
	obj->ids = c.ids;
	obj->offsets = c.offsets;
	obj->fields = c.fields;
	obj->fields_len = c.fields_len;
	*is_object = true;
	return PQ_OK;
}

PqStatus
pq_variant_object_field(const PqVariantObject *obj, uint32_t i,
						const uint8_t **key, size_t *key_len,
						const uint8_t **value, size_t *value_len,
						PqError *err)
{
	Container	c;
	uint32_t	id;
	size_t		used = 0;

	if (i >= obj->num_fields)
	{
		pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "object field %" PRIu32 " of %" PRIu32,
					 i, obj->num_fields);
		return PQ_ERR_INVALID_ARGUMENT;
	}
	id = read_le(obj->ids + (size_t) i * obj->id_size, obj->id_size);
	if (!pq_variant_metadata_key(obj->md, id, key, key_len))
		return corrupt(err, "field id beyond the metadata dictionary");
	memset(&c, 0, sizeof(c));
	c.num = obj->num_fields;
	c.offset_size = obj->offset_size;
	c.offsets = obj->offsets;
	c.fields = obj->fields;
	c.fields_len = obj->fields_len;
	return container_child(&c, i, value, value_len, &used, err);
}
