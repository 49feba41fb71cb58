/*-------------------------------------------------------------------------
 *
 * vec_like.h
 *	  LIKE / ILIKE over a batch of string views: a pattern compiled once
 *	  into '%'-separated segments, matched row by row with memmem/memcmp
 *	  under a selection vector.
 *
 * Pure C (no PostgreSQL calls): the caller decides whether the database
 * encoding and collation give PostgreSQL's answer here (see vl_compile)
 * and keeps the clause to PostgreSQL otherwise.
 *
 * Semantics are PostgreSQL's textlike/texticlike with the default escape
 * (backslash; "ESCAPE 'x'" reaches the executor already rewritten by
 * like_escape()): '%' any run of characters, '_' one character (one UTF-8
 * code point when utf8, else one byte), "\c" the character c.  ILIKE folds
 * ASCII letters only, which is PostgreSQL's lower() under the C collation.
 *
 * IDENTIFICATION
 *	  src/fdw/vec_like.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_VEC_LIKE_H
#define PF_VEC_LIKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/codec.h"

#define VL_MAX_SEGMENTS 32

typedef enum VlStatus
{
	VL_OK = 0,
	VL_TRAILING_ESCAPE,			/* PostgreSQL raises an error: leave it to it */
	VL_TOO_COMPLEX				/* more than VL_MAX_SEGMENTS '%'-separated parts */
} VlStatus;

/* A run of the pattern between two '%': literal bytes and '_' wildcards. */
typedef struct VlSegment
{
	uint32_t	off;			/* first token in VlMatcher.bytes/any */
	uint32_t	len;			/* tokens */
	uint32_t	nchars;			/* characters the segment matches */
	bool		has_any;		/* some token is '_' */
} VlSegment;

typedef struct VlMatcher
{
	bool		utf8;			/* '_' matches a UTF-8 code point */
	bool		icase;			/* ILIKE: ASCII letters fold */
	bool		has_percent;	/* else the one segment must match whole */
	bool		anchored_start; /* the pattern does not begin with '%' */
	bool		anchored_end;	/* the pattern does not end with '%' */
	int			nsegments;		/* non-empty segments, in order */
	VlSegment	segments[VL_MAX_SEGMENTS];
	uint8_t    *bytes;			/* tokens' literal bytes (folded if icase) */
	uint8_t    *any;			/* 1 where the token is '_' */
} VlMatcher;

/* Bytes of the buffer vl_compile needs for a pattern of len bytes. */
static inline size_t
vl_buffer_size(size_t pattern_len)
{
	return 2 * pattern_len + 1;
}

/*
 * Compile pattern (len bytes) into m; buf (vl_buffer_size(len) bytes,
 * owned by the caller) holds the tokens and must outlive m.
 */
extern VlStatus vl_compile(const uint8_t *pattern, size_t len, bool icase,
						   bool utf8, uint8_t *buf, VlMatcher *m);

/* Does the string (len bytes) match? */
extern bool vl_match(const VlMatcher *m, const uint8_t *s, size_t len);

/*
 * The rows of in (n of them, indexes into vals/is_null) that are not null
 * and whose value matches (does not match when negate: NOT LIKE) go to
 * out, in order; returns how many.  is_null may be NULL; out may be in.
 */
extern uint32_t vl_select(const VlMatcher *m, bool negate, const CdcByteView *vals,
						  const bool *is_null, const uint32_t *in, uint32_t n,
						  uint32_t *out);

/*
 * vl_select for a dictionary-coded batch: dict_index[r] is row r's
 * dictionary entry (UINT32_MAX when the row is not from the dictionary),
 * memo (one byte per entry, zeroed by the caller for each new dictionary)
 * remembers each entry's answer so every entry is matched once.
 */
extern uint32_t vl_select_dict(const VlMatcher *m, bool negate,
							   const CdcByteView *vals, const bool *is_null,
							   const uint32_t *dict_index, uint8_t *memo,
							   const uint32_t *in, uint32_t n, uint32_t *out);

#endif							/* PF_VEC_LIKE_H */
