/*-------------------------------------------------------------------------
 *
 * vec_like.c
 *	  LIKE / ILIKE kernels over string views (see vec_like.h).
 *
 * A pattern is its '%'-separated segments.  A segment matches a fixed
 * number of characters, so the leftmost place each middle segment fits is
 * as good as any (it leaves the most room to the rest): the first segment
 * is tried at the start when anchored, the last at the end, the middle ones
 * searched left to right -- with memmem when they are plain literals.
 *
 * IDENTIFICATION
 *	  src/fdw/vec_like.c
 *
 *-------------------------------------------------------------------------
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* memmem */
#endif
#include <string.h>

#include "fdw/vec_like.h"

static inline uint8_t
fold(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') ? (uint8_t) (c + ('a' - 'A')) : c;
}

/* Bytes of the UTF-8 character starting with lead byte c (1 when invalid). */
static inline uint32_t
utf8_char_len(uint8_t c)
{
	if (c < 0xC0)
		return 1;
	if (c < 0xE0)
		return 2;
	if (c < 0xF0)
		return 3;
	return 4;
}

VlStatus
vl_compile(const uint8_t *pattern, size_t len, bool icase, bool utf8,
		   uint8_t *buf, VlMatcher *m)
{
	uint32_t	ntok = 0;
	VlSegment  *seg = NULL;
	bool		last_was_percent = false;

	memset(m, 0, sizeof(*m));
	m->utf8 = utf8;
	m->icase = icase;
	m->bytes = buf;
	m->any = buf + len;
	m->anchored_start = len == 0 || pattern[0] != '%';
	for (size_t i = 0; i < len; i++)
	{
		uint8_t		c = pattern[i];
		bool		is_any = false;

		last_was_percent = c == '%';
		if (c == '%')
		{
			m->has_percent = true;
			seg = NULL;
			continue;
		}
		if (c == '\\')
		{
			if (++i >= len)
				return VL_TRAILING_ESCAPE;
			c = pattern[i];
		}
		else if (c == '_')
			is_any = true;
		if (seg == NULL)
		{
			if (m->nsegments == VL_MAX_SEGMENTS)
				return VL_TOO_COMPLEX;
			seg = &m->segments[m->nsegments++];
			seg->off = ntok;
		}
		m->bytes[ntok] = icase ? fold(c) : c;
		m->any[ntok] = is_any;
		ntok++;
		seg->len++;
		seg->has_any |= is_any;
		/* one character per '_', per ASCII or lead byte */
		if (is_any || !utf8 || (c & 0xC0) != 0x80)
			seg->nchars++;
	}
	m->anchored_end = !last_was_percent;
	return VL_OK;
}

/*
 * Match segment g at s[at..limit): true with *end past the match when
 * every token matches.
 */
static inline bool
segment_at(const VlMatcher *m, const VlSegment *g, const uint8_t *s,
		   size_t at, size_t limit, size_t *end)
{
	const uint8_t *b = m->bytes + g->off;
	const uint8_t *any = m->any + g->off;

	if (!g->has_any)
	{
		if (limit - at < g->len)
			return false;
		if (!m->icase)
		{
			if (memcmp(s + at, b, g->len) != 0)
				return false;
		}
		else
			for (uint32_t t = 0; t < g->len; t++)
				if (fold(s[at + t]) != b[t])
					return false;
		*end = at + g->len;
		return true;
	}
	for (uint32_t t = 0; t < g->len; t++)
	{
		if (at >= limit)
			return false;
		if (any[t])
			at += m->utf8 ? utf8_char_len(s[at]) : 1;
		else if ((m->icase ? fold(s[at]) : s[at]) != b[t])
			return false;
		else
			at++;
	}
	if (at > limit)
		return false;
	*end = at;
	return true;
}

/* Leftmost match of segment g in s[from..limit); *end past it. */
static inline bool
segment_find(const VlMatcher *m, const VlSegment *g, const uint8_t *s,
			 size_t from, size_t limit, size_t *end)
{
	if (!g->has_any && !m->icase)
	{
		const uint8_t *hit;

		if (limit - from < g->len)
			return false;
		hit = memmem(s + from, limit - from, m->bytes + g->off, g->len);
		if (hit == NULL)
			return false;
		*end = (size_t) (hit - s) + g->len;
		return true;
	}
	while (from < limit)
	{
		if (segment_at(m, g, s, from, limit, end))
			return true;
		from += m->utf8 ? utf8_char_len(s[from]) : 1;
	}
	return false;
}

bool
vl_match(const VlMatcher *m, const uint8_t *s, size_t len)
{
	size_t		pos = 0;
	size_t		limit = len;
	size_t		end;
	int			first = 0;
	int			last = m->nsegments;

	if (!m->has_percent)
	{
		if (m->nsegments == 0)
			return len == 0;
		return segment_at(m, &m->segments[0], s, 0, len, &end) && end == len;
	}
	if (m->anchored_start && first < last)
	{
		if (!segment_at(m, &m->segments[0], s, 0, len, &pos))
			return false;
		first++;
	}
	if (m->anchored_end && first < last)
	{
		const VlSegment *g = &m->segments[last - 1];
		size_t		start;

		/* the last nchars characters */
		if (!m->utf8 || !g->has_any)
		{
			if (len - pos < g->len)
				return false;
			start = len - g->len;
		}
		else
		{
			start = len;
			for (uint32_t k = 0; k < g->nchars; k++)
			{
				if (start <= pos)
					return false;
				start--;
				while (start > pos && (s[start] & 0xC0) == 0x80)
					start--;
			}
		}
		if (start < pos || !segment_at(m, g, s, start, len, &end) || end != len)
			return false;
		limit = start;
		last--;
	}
	for (int i = first; i < last; i++)
		if (!segment_find(m, &m->segments[i], s, pos, limit, &pos))
			return false;
	return true;
}

uint32_t
vl_select(const VlMatcher *m, bool negate, const CdcByteView *vals,
		  const bool *is_null, const uint32_t *in, uint32_t n, uint32_t *out)
{
	uint32_t	k = 0;

	/* the common ClickBench shape, '%word%': one memmem per row */
	if (m->has_percent && !m->anchored_start && !m->anchored_end &&
		m->nsegments == 1 && !m->segments[0].has_any && !m->icase)
	{
		const uint8_t *needle = m->bytes + m->segments[0].off;
		uint32_t	nlen = m->segments[0].len;

		for (uint32_t i = 0; i < n; i++)
		{
			uint32_t	r = in[i];
			const CdcByteView *v = &vals[r];
			bool		hit;

			if (is_null != NULL && is_null[r])
				continue;
			hit = v->len >= nlen && memmem(v->ptr, v->len, needle, nlen) != NULL;
			out[k] = r;
			k += hit != negate;
		}
		return k;
	}
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	r = in[i];

		if (is_null != NULL && is_null[r])
			continue;
		out[k] = r;
		k += vl_match(m, vals[r].ptr, vals[r].len) != negate;
	}
	return k;
}

uint32_t
vl_select_dict(const VlMatcher *m, bool negate, const CdcByteView *vals,
			   const bool *is_null, const uint32_t *dict_index, uint8_t *memo,
			   const uint32_t *in, uint32_t n, uint32_t *out)
{
	uint32_t	k = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	r = in[i];
		uint32_t	e = dict_index[r];
		bool		hit;

		if (is_null != NULL && is_null[r])
			continue;
		if (e == UINT32_MAX)
			hit = vl_match(m, vals[r].ptr, vals[r].len);
		else
		{
			/* 0 not yet matched, 1 no, 2 yes */
			if (memo[e] == 0)
				memo[e] = vl_match(m, vals[r].ptr, vals[r].len) ? 2 : 1;
			hit = memo[e] == 2;
		}
		out[k] = r;
		k += hit != negate;
	}
	return k;
}
