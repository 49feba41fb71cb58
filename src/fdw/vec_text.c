/*-------------------------------------------------------------------------
 *
 * vec_text.c
 *	  String length kernels over a batch of string views (vec_text.h).
 *
 * UTF-8 is counted eight bytes at a time while the bytes are ASCII (a
 * word without a high bit is eight characters); a byte with the high bit
 * starts a sequence that is checked whole, as PostgreSQL's pg_utf8_islegal
 * does, so a string this code counts is one PostgreSQL would accept.
 *
 * IDENTIFICATION
 *	  src/fdw/vec_text.c
 *
 *-------------------------------------------------------------------------
 */
#include "fdw/vec_text.h"

#include "common/utf8.h"

#include <string.h>

#define VT_HIGH_BITS	UINT64_C(0x8080808080808080)

int64_t
vt_utf8_chars(const uint8_t *s, size_t len)
{
	int64_t		chars = 0;
	size_t		i = 0;

	while (i < len)
	{
		if (i + 8 <= len)
		{
			uint64_t	w;

			memcpy(&w, s + i, 8);
			/* eight ASCII bytes, none of them NUL */
			if ((w & VT_HIGH_BITS) == 0 &&
				((w - UINT64_C(0x0101010101010101)) & ~w & VT_HIGH_BITS) == 0)
			{
				chars += 8;
				i += 8;
				continue;
			}
		}
		{
			/* PostgreSQL text cannot hold NUL */
			size_t		k = s[i] == 0 ? 0 : pfc_utf8_sequence_length(s + i, len - i);

			if (k == 0)
				return -1;
			chars++;
			i += k;
		}
	}
	return chars;
}

/* One value's length; -1 when invalid. */
static inline int64_t
value_length(const CdcByteView *v, VtLengthKind kind)
{
	int64_t		chars = vt_utf8_chars(v->ptr, v->len);

	return chars < 0 ? -1 : kind == VT_UTF8_CHARS ? chars : (int64_t) v->len;
}

bool
vt_lengths(const CdcByteView *vals, const bool *is_null,
		   const uint32_t *dict_index, int32_t *memo, VtLengthKind kind,
		   const uint32_t *in, uint32_t n, int32_t *out, uint32_t *bad_row)
{
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	r = in[i];
		int64_t		len;

		if (is_null != NULL && is_null[r])
		{
			out[r] = 0;
			continue;
		}
		if (kind == VT_BYTES)
		{
			out[r] = (int32_t) vals[r].len;
			continue;
		}
		if (dict_index != NULL && dict_index[r] != UINT32_MAX)
		{
			int32_t    *m = &memo[dict_index[r]];

			if (*m == VT_LEN_UNKNOWN)
			{
				len = value_length(&vals[r], kind);
				if (len < 0)
				{
					*bad_row = r;
					return false;
				}
				*m = (int32_t) len;
			}
			out[r] = *m;
			continue;
		}
		len = value_length(&vals[r], kind);
		if (len < 0)
		{
			*bad_row = r;
			return false;
		}
		out[r] = (int32_t) len;
	}
	return true;
}
