/*-------------------------------------------------------------------------
 *
 * vec_regex.h
 *	  A small matcher for a safe subset of PostgreSQL's advanced regular
 *	  expressions, exact by construction: it enumerates every way the
 *	  pattern can match a string and answers only when they all agree.
 *
 * Pure C (no PostgreSQL calls).  The subset: anchors ^ and $, literal
 * characters (UTF-8), a backslash before ASCII punctuation, '.', bracket
 * expressions of literal characters and ranges (code points, no [: :],
 * [. .] or [= =]), the greedy quantifiers ? * + {m} {m,} {m,n}, capturing
 * ( ) and non-capturing (?: ) groups and alternation |.  vr_compile
 * refuses anything else, and a quantified group that can match empty or
 * holds a capturing group, so that every parse consumes and the parses
 * are finitely many.  Without flags: '.' and [^...] match newline, '^'
 * and '$' only at the ends of the string; the subject is UTF-8.
 *
 * PostgreSQL takes the leftmost match and, the whole RE being greedy
 * here, its longest end; which parse sets the captures follows rules of
 * its own (regexec.c's dissection): a branch with a capturing atom is
 * split into "prefix (atom rest)", the prefix taking the longest span the
 * rest can follow, then the atom, then recursively the rest; of an
 * alternation with captures the first branch that fits wins.  vr_replace
 * takes the same leftmost start and longest end, enumerates every parse
 * that ends there and keeps the one those rules prefer.  Two parses the
 * rules cannot order that disagree on a capture used (VR_AMBIGUOUS: the
 * rules were not PostgreSQL's whole story), or the work bound hit
 * (VR_BUDGET): the caller asks PostgreSQL for that row.
 *
 * IDENTIFICATION
 *	  src/fdw/vec_regex.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_VEC_REGEX_H
#define PF_VEC_REGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VR_MAX_INSTS		512		/* compiled program */
#define VR_MAX_RANGES		128		/* bracket ranges of all brackets */
#define VR_MAX_GROUPS		9		/* capturing groups (\1 .. \9) */
#define VR_MAX_PREFS		48		/* choices PostgreSQL's dissection makes */
#define VR_MAX_STEPS		(1 << 16)	/* work bound per subject */
#define VR_MAX_REPLACEMENT	256		/* bytes of a replacement string */
#define VR_MAX_REPEAT		255		/* PostgreSQL's DUPMAX */

typedef enum VrStatus
{
	VR_OK = 0,
	VR_UNSUPPORTED,				/* outside the subset: leave it to PostgreSQL */
	VR_TOO_BIG					/* beyond the limits above */
} VrStatus;

/* The outcome for one subject. */
typedef enum VrResult
{
	VR_MATCH = 0,				/* the answer is known, a match */
	VR_NO_MATCH,				/* the answer is known, no match */
	VR_AMBIGUOUS,				/* equally preferred parses disagree */
	VR_BUDGET,					/* VR_MAX_STEPS reached */
	VR_BAD_UTF8					/* the subject is not valid UTF-8 */
} VrResult;

typedef struct VrInst
{
	uint8_t		op;				/* VR_OP_* of vec_regex.c */
	uint8_t		len;			/* CHAR: bytes; CLASS: 1 when negated */
	uint8_t		bytes[4];		/* CHAR: the character's UTF-8 bytes */
	uint8_t		item;			/* REPEAT: the op of the repeated character */
	uint8_t		follow;			/* REPEAT: what must come next (vec_regex.c) */
	uint8_t		follow_byte;
	int16_t		min;			/* REPEAT: counts, max -1: no limit */
	int16_t		max;
	int32_t		x;				/* SPLIT, JMP: target; SAVE: slot; CLASS: first range */
	int32_t		y;				/* SPLIT: second target; CLASS: ranges */
} VrInst;

typedef struct VrProgram
{
	int			ninsts;
	int			ngroups;		/* capturing groups */
	int			nprefs;			/* preference slots (vec_regex.c) */
	bool		anchored;		/* every match begins at the string's start */
	bool		unique_only;	/* no preference rules: answer only when all
								 * parses agree (set after vr_compile) */
	int			nranges;
	uint32_t	ranges[VR_MAX_RANGES][2];	/* inclusive code point ranges */
	int			nliterals;
	uint8_t		literals[4 * VR_MAX_INSTS];	/* STR instructions' bytes */
	VrInst		insts[VR_MAX_INSTS];
} VrProgram;

/* A replacement string: literal runs and references to captures. */
typedef struct VrReplacement
{
	int			ntokens;
	struct
	{
		int16_t		group;		/* -1: literal bytes[off, off+len); else 0..9 */
		uint16_t	off;
		uint16_t	len;
	}			tokens[VR_MAX_REPLACEMENT];
	uint32_t	used_groups;	/* bit g: \g appears (bit 0: \&) */
	size_t		literal_bytes;	/* bytes of the literal runs */
	int			nrefs;			/* references */
	uint8_t		bytes[VR_MAX_REPLACEMENT];
} VrReplacement;

/* Work space of the matcher, one per scan (large: keep it on the heap). */
typedef struct VrScratch
{
	struct
	{
		int32_t		pc;			/* >= 0: branch to try; < 0: restore slot -pc-1 */
		int32_t		pos;
		int32_t		low;		/* >= 0: REPEAT pc's shorter runs down to low */
	}			stack[VR_MAX_STEPS];
	int32_t		caps[2 * (VR_MAX_GROUPS + 1) + VR_MAX_PREFS];
	int32_t		best[2 * (VR_MAX_GROUPS + 1) + VR_MAX_PREFS];
} VrScratch;

/* Compile pattern (len bytes) into *prog. */
extern VrStatus vr_compile(const uint8_t *pattern, size_t len, VrProgram *prog);

/*
 * Parse regexp_replace's replacement string as PostgreSQL reads it: \1 to
 * \9 a capture, \& the match, \\ one backslash, a backslash before
 * anything else (or at the end) itself.
 */
extern VrStatus vr_compile_replacement(const uint8_t *repl, size_t len,
									   VrReplacement *r);

/* Bytes vr_replace may write for a subject of len bytes. */
static inline size_t
vr_replace_bound(const VrReplacement *r, size_t len)
{
	return len + r->literal_bytes + (size_t) r->nrefs * len;
}

/*
 * regexp_replace(s, pattern, replacement) without flags: the first match
 * replaced.  VR_MATCH: the result is written to out (vr_replace_bound
 * bytes available), its length in *out_len.  VR_NO_MATCH: the result is
 * s itself, nothing written.  Otherwise no answer: ask PostgreSQL.
 */
extern VrResult vr_replace(const VrProgram *prog, const VrReplacement *r,
						   const uint8_t *s, size_t len, VrScratch *scratch,
						   uint8_t *out, size_t *out_len);

/*
 * s ~ pattern: VR_MATCH or VR_NO_MATCH, or VR_BUDGET / VR_BAD_UTF8 (ask
 * PostgreSQL).  Whether some match exists is never ambiguous.
 */
extern VrResult vr_test(const VrProgram *prog, const uint8_t *s, size_t len,
						VrScratch *scratch);

#endif							/* PF_VEC_REGEX_H */
