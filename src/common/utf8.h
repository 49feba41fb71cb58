/*-------------------------------------------------------------------------
 *
 * utf8.h
 *	  Well-formed UTF-8, as RFC 3629 and PostgreSQL's verifier define it.
 *
 * A sequence is well formed when its lead byte is 0x00-0x7F, 0xC2-0xDF,
 * 0xE0-0xEF or 0xF0-0xF4, its continuation bytes are 0x80-0xBF, and it is
 * neither overlong, a surrogate (U+D800-U+DFFF) nor above U+10FFFF.  NUL is
 * a well-formed character here: callers that build PostgreSQL text, which
 * cannot hold it, refuse it themselves.
 *
 * Header-only: the checks are small and sit in the inner loops of the
 * text kernels, which the compiler should inline.
 *
 * IDENTIFICATION
 *	  src/common/utf8.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PFC_UTF8_H
#define PFC_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Bytes of the well-formed sequence at s (1..4), or 0 when the bytes there
 * are malformed or cut short.  avail (the bytes left from s) must be >= 1.
 */
static inline size_t
pfc_utf8_sequence_length(const uint8_t *s, size_t avail)
{
	uint8_t		lead = s[0];
	uint8_t		lo = 0x80;		/* the second byte's legal range */
	uint8_t		hi = 0xBF;
	size_t		len;

	if (lead < 0x80)
		return 1;
	if (lead >= 0xC2 && lead <= 0xDF)
		len = 2;
	else if (lead >= 0xE0 && lead <= 0xEF)
	{
		len = 3;
		if (lead == 0xE0)
			lo = 0xA0;			/* overlong */
		else if (lead == 0xED)
			hi = 0x9F;			/* surrogates */
	}
	else if (lead >= 0xF0 && lead <= 0xF4)
	{
		len = 4;
		if (lead == 0xF0)
			lo = 0x90;			/* overlong */
		else if (lead == 0xF4)
			hi = 0x8F;			/* above U+10FFFF */
	}
	else
		return 0;
	if (avail < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if ((s[k] & 0xC0) != 0x80)
			return 0;
	return len;
}

/* Whether s[0..n) is a sequence of well-formed characters. */
static inline bool
pfc_utf8_valid(const uint8_t *s, size_t n)
{
	size_t		i = 0;

	while (i < n)
	{
		size_t		len;

		if (s[i] < 0x80)
		{
			i++;
			continue;
		}
		len = pfc_utf8_sequence_length(s + i, n - i);
		if (len == 0)
			return false;
		i += len;
	}
	return true;
}

#endif							/* PFC_UTF8_H */
