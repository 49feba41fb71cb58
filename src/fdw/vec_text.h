/*-------------------------------------------------------------------------
 *
 * vec_text.h
 *	  String kernels over a batch of string views: character and byte
 *	  lengths (length(), char_length(), octet_length()) for the selected
 *	  rows, each dictionary entry measured once.
 *
 * Pure C (no PostgreSQL calls): the caller decides that the database
 * encoding makes these PostgreSQL's answers (UTF-8 characters when utf8,
 * else bytes: a single-byte encoding) and keeps the expression to
 * PostgreSQL otherwise.
 *
 * IDENTIFICATION
 *	  src/fdw/vec_text.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_VEC_TEXT_H
#define PF_VEC_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/codec.h"

/*
 * Characters of the UTF-8 string s (len bytes), or -1 when s is not valid
 * UTF-8 by PostgreSQL's rules (no overlong forms, no surrogates, nothing
 * above U+10FFFF, no NUL byte).
 */
extern int64_t vt_utf8_chars(const uint8_t *s, size_t len);

/* A dictionary entry whose length is not measured yet (memo). */
#define VT_LEN_UNKNOWN	(-1)

/* What vt_lengths measures. */
typedef enum VtLengthKind
{
	VT_BYTES,					/* bytes, unchecked (single-byte encodings) */
	VT_UTF8_BYTES,				/* bytes of valid UTF-8 */
	VT_UTF8_CHARS				/* characters of valid UTF-8 */
} VtLengthKind;

/*
 * The length of each of the n rows in (indexes into vals/is_null), written
 * to out at the row's index, as kind says; 0
 * for a null row.  dict_index (or NULL) gives each row's dictionary entry
 * (UINT32_MAX: not from the dictionary) and memo, one int32 per entry set
 * to VT_LEN_UNKNOWN by the caller for each new dictionary, remembers each
 * entry's length so each entry is measured once.  Returns true, or false
 * with *bad_row the first row that is not valid UTF-8 (out then partial).
 */
extern bool vt_lengths(const CdcByteView *vals, const bool *is_null,
					   const uint32_t *dict_index, int32_t *memo, VtLengthKind kind,
					   const uint32_t *in, uint32_t n, int32_t *out,
					   uint32_t *bad_row);

#endif							/* PF_VEC_TEXT_H */
