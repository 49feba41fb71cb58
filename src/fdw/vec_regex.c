/*-------------------------------------------------------------------------
 *
 * vec_regex.c
 *	  A matcher for a safe subset of PostgreSQL's regular expressions that
 *	  answers only when every parse agrees (see vec_regex.h).
 *
 * The pattern is parsed into a tree, checked against the subset's rules
 * and compiled into a backtracking program (CHAR, ANY, CLASS, BOL, EOL,
 * SPLIT, JMP, SAVE, MATCH).  The matcher explores every path of the
 * program from a start position, not only the first that succeeds: the
 * longest end found and whether the captures that matter agree among the
 * paths reaching it are the answer.  No quantified part can match empty,
 * so each loop consumes and the paths are finite; the work bound catches
 * the patterns whose paths are many.
 *
 * IDENTIFICATION
 *	  src/fdw/vec_regex.c
 *
 *-------------------------------------------------------------------------
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* memrchr */
#endif
#include "fdw/vec_regex.h"

#include "common/utf8.h"

#include <string.h>

enum
{
	VR_OP_CHAR = 1,
	VR_OP_ANY,
	VR_OP_CLASS,
	VR_OP_BOL,
	VR_OP_EOL,
	VR_OP_SPLIT,				/* try x, then y */
	VR_OP_JMP,
	VR_OP_SAVE,					/* slot x = position */
	VR_OP_SAVE_CONST,			/* slot x = y */
	VR_OP_MATCH,
	VR_OP_REPEAT,				/* item (CHAR, ANY, CLASS) min..max times */
	VR_OP_STR					/* literals[x, x+y): characters in a row */
};

/* VrInst.follow: what the REPEAT's continuation matches first */
#define VR_FOLLOW_ANY	0
#define VR_FOLLOW_EOL	1		/* only the string's end */
#define VR_FOLLOW_BYTE	2		/* only follow_byte */

/* ---------------------------------------------------------------- */
/* UTF-8 */

/* The code point of the valid character at s. */
static inline uint32_t
utf8_decode(const uint8_t *s, int *len)
{
	uint8_t		c = s[0];

	if (c < 0x80)
	{
		*len = 1;
		return c;
	}
	if (c < 0xE0)
	{
		*len = 2;
		return ((uint32_t) (c & 0x1F) << 6) | (s[1] & 0x3F);
	}
	if (c < 0xF0)
	{
		*len = 3;
		return ((uint32_t) (c & 0x0F) << 12) | ((uint32_t) (s[1] & 0x3F) << 6) |
			(s[2] & 0x3F);
	}
	*len = 4;
	return ((uint32_t) (c & 0x07) << 18) | ((uint32_t) (s[1] & 0x3F) << 12) |
		((uint32_t) (s[2] & 0x3F) << 6) | (s[3] & 0x3F);
}

/* Bytes of the character whose first byte is c (the string is valid). */
static inline int
utf8_step(uint8_t c)
{
	return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/* ---------------------------------------------------------------- */
/* The parse tree */

enum
{
	N_CAT = 1,					/* children in order (none: empty) */
	N_ALT,						/* children are the branches */
	N_CHAR,
	N_ANY,
	N_CLASS,
	N_BOL,
	N_EOL,
	N_GROUP,					/* group > 0 captures */
	N_REP						/* child repeated min..max (-1: no limit) */
};

#define VR_MAX_NODES 512

typedef struct VrNode
{
	uint8_t		kind;
	uint8_t		len;			/* N_CHAR: bytes; N_CLASS: negated */
	uint8_t		bytes[4];
	int16_t		group;
	int16_t		min;
	int16_t		max;
	int32_t		child;			/* first child, -1: none */
	int32_t		next;			/* next sibling, -1: none */
	int32_t		rstart;			/* N_CLASS: ranges */
	int32_t		rcount;
} VrNode;

typedef struct VrParser
{
	const uint8_t *p;
	size_t		len;
	size_t		pos;
	int			nnodes;
	VrNode		nodes[VR_MAX_NODES];
	VrProgram  *prog;
	VrStatus	status;			/* the first failure */
} VrParser;

static int
fail(VrParser *ps, VrStatus st)
{
	if (ps->status == VR_OK)
		ps->status = st;
	return -1;
}

static int
new_node(VrParser *ps, int kind)
{
	VrNode	   *n;

	if (ps->nnodes >= VR_MAX_NODES)
		return fail(ps, VR_TOO_BIG);
	n = &ps->nodes[ps->nnodes];
	memset(n, 0, sizeof(VrNode));
	n->kind = kind;
	n->child = n->next = -1;
	return ps->nnodes++;
}

/* Append node k to the children of parent. */
static void
add_child(VrParser *ps, int parent, int k)
{
	int		   *link = &ps->nodes[parent].child;

	while (*link >= 0)
		link = &ps->nodes[*link].next;
	*link = k;
}

static bool
is_ascii_punct(uint8_t c)
{
	return c > 0x20 && c < 0x7F &&
		!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

/* One character of the pattern at ps->pos into bytes; its code point. */
static bool
take_char(VrParser *ps, uint8_t *bytes, int *nbytes, uint32_t *cp)
{
	int			l = (int) pfc_utf8_sequence_length(ps->p + ps->pos, ps->len - ps->pos);

	if (l == 0)
		return false;
	memcpy(bytes, ps->p + ps->pos, l);
	*nbytes = l;
	*cp = utf8_decode(ps->p + ps->pos, &l);
	ps->pos += l;
	return true;
}

/*
 * A bracket expression after its '[': literal characters and ranges.  A
 * leading ']', '[' anywhere (classes, collating elements, equivalence
 * classes) and backslashes are refused; '-' is literal first or last.
 */
static int
parse_bracket(VrParser *ps)
{
	VrProgram  *prog = ps->prog;
	int			k = new_node(ps, N_CLASS);
	bool		first = true;

	if (k < 0)
		return -1;
	if (ps->pos < ps->len && ps->p[ps->pos] == '^')
	{
		ps->nodes[k].len = 1;
		ps->pos++;
	}
	ps->nodes[k].rstart = prog->nranges;
	for (;;)
	{
		uint8_t		b[4];
		int			nb;
		uint32_t	lo;
		uint32_t	hi;

		if (ps->pos >= ps->len)
			return fail(ps, VR_UNSUPPORTED);
		if (ps->p[ps->pos] == ']' && !first)
		{
			ps->pos++;
			break;
		}
		if (ps->p[ps->pos] == ']' || ps->p[ps->pos] == '[' || ps->p[ps->pos] == '\\')
			return fail(ps, VR_UNSUPPORTED);
		if (ps->p[ps->pos] == '-' && !first &&
			!(ps->pos + 1 < ps->len && ps->p[ps->pos + 1] == ']'))
			return fail(ps, VR_UNSUPPORTED);	/* "a-c-e", "--" */
		if (!take_char(ps, b, &nb, &lo))
			return fail(ps, VR_UNSUPPORTED);
		hi = lo;
		if (lo != '-' && ps->pos + 1 < ps->len && ps->p[ps->pos] == '-' &&
			ps->p[ps->pos + 1] != ']')
		{
			ps->pos++;
			if (ps->p[ps->pos] == '[' || ps->p[ps->pos] == '\\' ||
				ps->p[ps->pos] == '-' || !take_char(ps, b, &nb, &hi))
				return fail(ps, VR_UNSUPPORTED);
			if (hi < lo)
				return fail(ps, VR_UNSUPPORTED);	/* PostgreSQL raises it */
		}
		if (prog->nranges >= VR_MAX_RANGES)
			return fail(ps, VR_TOO_BIG);
		prog->ranges[prog->nranges][0] = lo;
		prog->ranges[prog->nranges][1] = hi;
		prog->nranges++;
		first = false;
	}
	ps->nodes[k].rcount = prog->nranges - ps->nodes[k].rstart;
	return k;
}

static int	parse_alt(VrParser *ps);

static int
parse_atom(VrParser *ps)
{
	uint8_t		c = ps->p[ps->pos];
	int			k;

	switch (c)
	{
		case '(':
			{
				int			group = 0;
				int			inner;

				ps->pos++;
				if (ps->pos < ps->len && ps->p[ps->pos] == '?')
				{
					if (ps->pos + 1 >= ps->len || ps->p[ps->pos + 1] != ':')
						return fail(ps, VR_UNSUPPORTED);	/* lookaround */
					ps->pos += 2;
				}
				else
				{
					if (ps->prog->ngroups >= VR_MAX_GROUPS)
						return fail(ps, VR_TOO_BIG);
					group = ++ps->prog->ngroups;
				}
				k = new_node(ps, N_GROUP);
				if (k < 0)
					return -1;
				ps->nodes[k].group = group;
				inner = parse_alt(ps);
				if (inner < 0)
					return -1;
				if (ps->pos >= ps->len || ps->p[ps->pos] != ')')
					return fail(ps, VR_UNSUPPORTED);
				ps->pos++;
				ps->nodes[k].child = inner;
				return k;
			}
		case '^':
			ps->pos++;
			return new_node(ps, N_BOL);
		case '$':
			ps->pos++;
			return new_node(ps, N_EOL);
		case '.':
			ps->pos++;
			return new_node(ps, N_ANY);
		case '[':
			ps->pos++;
			return parse_bracket(ps);
		case '\\':
			if (ps->pos + 1 >= ps->len || !is_ascii_punct(ps->p[ps->pos + 1]))
				return fail(ps, VR_UNSUPPORTED);	/* classes, constraints, ... */
			k = new_node(ps, N_CHAR);
			if (k < 0)
				return -1;
			ps->nodes[k].len = 1;
			ps->nodes[k].bytes[0] = ps->p[ps->pos + 1];
			ps->pos += 2;
			return k;
		case '*':
		case '+':
		case '?':
		case '{':
		case '}':
		case ']':
		case ')':
			return fail(ps, VR_UNSUPPORTED);
		default:
			{
				uint8_t		b[4];
				int			nb;
				uint32_t	cp;

				k = new_node(ps, N_CHAR);
				if (k < 0)
					return -1;
				if (!take_char(ps, b, &nb, &cp))
					return fail(ps, VR_UNSUPPORTED);
				ps->nodes[k].len = nb;
				memcpy(ps->nodes[k].bytes, b, nb);
				return k;
			}
	}
}

/* A number of a bound, at most VR_MAX_REPEAT; -1 if none. */
static int
parse_count(VrParser *ps)
{
	int			v = 0;
	bool		any = false;

	while (ps->pos < ps->len && ps->p[ps->pos] >= '0' && ps->p[ps->pos] <= '9')
	{
		v = v * 10 + (ps->p[ps->pos++] - '0');
		if (v > VR_MAX_REPEAT)
			return -1;
		any = true;
	}
	return any ? v : -1;
}

/* The quantifier at ps->pos, if any, applied to atom. */
static int
parse_quantifier(VrParser *ps, int atom)
{
	int			min;
	int			max;
	int			k;
	uint8_t		c;

	if (ps->pos >= ps->len)
		return atom;
	c = ps->p[ps->pos];
	if (c == '*' || c == '+' || c == '?')
	{
		min = c == '+' ? 1 : 0;
		max = c == '?' ? 1 : -1;
		ps->pos++;
	}
	else if (c == '{')
	{
		ps->pos++;
		min = max = parse_count(ps);
		if (min < 0)
			return fail(ps, VR_UNSUPPORTED);
		if (ps->pos < ps->len && ps->p[ps->pos] == ',')
		{
			ps->pos++;
			max = -1;
			if (ps->pos < ps->len && ps->p[ps->pos] != '}')
			{
				max = parse_count(ps);
				if (max < min)
					return fail(ps, VR_UNSUPPORTED);
			}
		}
		if (ps->pos >= ps->len || ps->p[ps->pos] != '}')
			return fail(ps, VR_UNSUPPORTED);
		ps->pos++;
	}
	else
		return atom;
	/* a second quantifier: non-greedy (PostgreSQL's preference changes) */
	if (ps->pos < ps->len &&
		(ps->p[ps->pos] == '*' || ps->p[ps->pos] == '+' ||
		 ps->p[ps->pos] == '?' || ps->p[ps->pos] == '{'))
		return fail(ps, VR_UNSUPPORTED);
	k = new_node(ps, N_REP);
	if (k < 0)
		return -1;
	ps->nodes[k].min = min;
	ps->nodes[k].max = max;
	ps->nodes[k].child = atom;
	return k;
}

static int
parse_cat(VrParser *ps)
{
	int			k = new_node(ps, N_CAT);

	if (k < 0)
		return -1;
	while (ps->pos < ps->len && ps->p[ps->pos] != '|' && ps->p[ps->pos] != ')')
	{
		int			a = parse_atom(ps);

		if (a < 0)
			return -1;
		a = parse_quantifier(ps, a);
		if (a < 0)
			return -1;
		add_child(ps, k, a);
	}
	return k;
}

static int
parse_alt(VrParser *ps)
{
	int			first = parse_cat(ps);
	int			k;

	if (first < 0)
		return -1;
	if (ps->pos >= ps->len || ps->p[ps->pos] != '|')
		return first;
	k = new_node(ps, N_ALT);
	if (k < 0)
		return -1;
	add_child(ps, k, first);
	while (ps->pos < ps->len && ps->p[ps->pos] == '|')
	{
		int			b;

		ps->pos++;
		b = parse_cat(ps);
		if (b < 0)
			return -1;
		add_child(ps, k, b);
	}
	return k;
}

/* ---------------------------------------------------------------- */
/* Checks of the subset's rules */

static bool
nullable(const VrParser *ps, int k)
{
	const VrNode *n = &ps->nodes[k];

	switch (n->kind)
	{
		case N_CAT:
			for (int c = n->child; c >= 0; c = ps->nodes[c].next)
				if (!nullable(ps, c))
					return false;
			return true;
		case N_ALT:
			for (int c = n->child; c >= 0; c = ps->nodes[c].next)
				if (nullable(ps, c))
					return true;
			return false;
		case N_GROUP:
			return nullable(ps, n->child);
		case N_REP:
			return n->min == 0 || nullable(ps, n->child);
		case N_BOL:
		case N_EOL:
			return true;
		default:
			return false;
	}
}

static bool
has_capture(const VrParser *ps, int k)
{
	const VrNode *n = &ps->nodes[k];

	if (n->kind == N_GROUP && n->group > 0)
		return true;
	for (int c = n->child; c >= 0; c = ps->nodes[c].next)
		if (has_capture(ps, c))
			return true;
	return false;
}

/* Every quantified part consumes and captures nothing. */
static bool
quantifiers_safe(const VrParser *ps, int k)
{
	const VrNode *n = &ps->nodes[k];

	if (n->kind == N_REP &&
		(nullable(ps, n->child) || has_capture(ps, n->child)))
		return false;
	for (int c = n->child; c >= 0; c = ps->nodes[c].next)
		if (!quantifiers_safe(ps, c))
			return false;
	return true;
}

/* Does every match of node k begin with '^'? */
static bool
starts_anchored(const VrParser *ps, int k)
{
	const VrNode *n = &ps->nodes[k];

	switch (n->kind)
	{
		case N_BOL:
			return true;
		case N_CAT:
			return n->child >= 0 && starts_anchored(ps, n->child);
		case N_GROUP:
			return starts_anchored(ps, n->child);
		case N_ALT:
			for (int c = n->child; c >= 0; c = ps->nodes[c].next)
				if (!starts_anchored(ps, c))
					return false;
			return true;
		default:
			return false;
	}
}

/* ---------------------------------------------------------------- */
/* Code generation */

/*
 * The preference slots follow the capture slots; prog->ngroups is final
 * when code generation begins.
 */
static int
pref_slot(const VrProgram *prog, int pref)
{
	return 2 * (prog->ngroups + 1) + pref;
}

static int
emit(VrParser *ps, int op)
{
	VrProgram  *prog = ps->prog;

	if (prog->ninsts >= VR_MAX_INSTS)
		return fail(ps, VR_TOO_BIG);
	memset(&prog->insts[prog->ninsts], 0, sizeof(VrInst));
	prog->insts[prog->ninsts].op = op;
	return prog->ninsts++;
}

static bool
gen(VrParser *ps, int k)
{
	VrProgram  *prog = ps->prog;
	const VrNode *n = &ps->nodes[k];
	int			i;

	switch (n->kind)
	{
		case N_CHAR:
			if ((i = emit(ps, VR_OP_CHAR)) < 0)
				return false;
			prog->insts[i].len = n->len;
			memcpy(prog->insts[i].bytes, n->bytes, 4);
			return true;
		case N_ANY:
			return emit(ps, VR_OP_ANY) >= 0;
		case N_BOL:
			return emit(ps, VR_OP_BOL) >= 0;
		case N_EOL:
			return emit(ps, VR_OP_EOL) >= 0;
		case N_CLASS:
			if ((i = emit(ps, VR_OP_CLASS)) < 0)
				return false;
			prog->insts[i].len = n->len;
			prog->insts[i].x = n->rstart;
			prog->insts[i].y = n->rcount;
			return true;
		case N_CAT:
			for (int c = n->child, str = -1; c >= 0; c = ps->nodes[c].next)
			{
				int			split_before = -1;
				int			split_after = -1;

				/* characters in a row: one STR instruction */
				if (ps->nodes[c].kind == N_CHAR)
				{
					const VrNode *ch = &ps->nodes[c];

					if (str < 0)
					{
						if ((str = emit(ps, VR_OP_STR)) < 0)
							return false;
						prog->insts[str].x = prog->nliterals;
					}
					if (prog->nliterals + ch->len > (int) sizeof(prog->literals))
					{
						fail(ps, VR_TOO_BIG);
						return false;
					}
					memcpy(prog->literals + prog->nliterals, ch->bytes, ch->len);
					prog->nliterals += ch->len;
					prog->insts[str].y += ch->len;
					continue;
				}
				str = -1;

				/*
				 * PostgreSQL dissects "prefix (atom rest)": the end of the
				 * prefix, then of the atom, before the atom's insides.
				 */
				if (has_capture(ps, c))
				{
					if (prog->nprefs + 2 > VR_MAX_PREFS)
					{
						fail(ps, VR_TOO_BIG);
						return false;
					}
					split_before = prog->nprefs++;
					split_after = prog->nprefs++;
					if ((i = emit(ps, VR_OP_SAVE)) < 0)
						return false;
					prog->insts[i].x = pref_slot(prog, split_before);
				}
				if (!gen(ps, c))
					return false;
				if (split_after >= 0)
				{
					if ((i = emit(ps, VR_OP_SAVE)) < 0)
						return false;
					prog->insts[i].x = pref_slot(prog, split_after);
				}
			}
			return true;
		case N_GROUP:
			if (n->group > 0)
			{
				if ((i = emit(ps, VR_OP_SAVE)) < 0)
					return false;
				prog->insts[i].x = 2 * n->group;
			}
			if (!gen(ps, n->child))
				return false;
			if (n->group > 0)
			{
				if ((i = emit(ps, VR_OP_SAVE)) < 0)
					return false;
				prog->insts[i].x = 2 * n->group + 1;
			}
			return true;
		case N_ALT:
			{
				int			jumps[VR_MAX_NODES];
				int			njumps = 0;
				int			branch_slot = -1;
				int			branch = 0;

				/* which branch, when one captures: the first that fits wins */
				if (has_capture(ps, k))
				{
					if (prog->nprefs + 1 > VR_MAX_PREFS)
					{
						fail(ps, VR_TOO_BIG);
						return false;
					}
					branch_slot = prog->nprefs++;
				}

				for (int c = n->child; c >= 0; c = ps->nodes[c].next)
				{
					int			split = -1;

					if (ps->nodes[c].next >= 0)
					{
						if ((split = emit(ps, VR_OP_SPLIT)) < 0)
							return false;
						prog->insts[split].x = split + 1;
					}
					if (branch_slot >= 0)
					{
						if ((i = emit(ps, VR_OP_SAVE_CONST)) < 0)
							return false;
						prog->insts[i].x = pref_slot(prog, branch_slot);
						prog->insts[i].y = -branch;
					}
					branch++;
					if (!gen(ps, c))
						return false;
					if (split >= 0)
					{
						if ((jumps[njumps++] = emit(ps, VR_OP_JMP)) < 0)
							return false;
						prog->insts[split].y = prog->ninsts;
					}
				}
				for (int j = 0; j < njumps; j++)
					prog->insts[jumps[j]].x = prog->ninsts;
				return true;
			}
		case N_REP:
			{
				int			splits[VR_MAX_REPEAT];
				int			nsplits = 0;
				const VrNode *item = &ps->nodes[n->child];

				/* one character repeated: one instruction, a run at a time */
				if (item->kind == N_CHAR || item->kind == N_ANY || item->kind == N_CLASS)
				{
					if (!gen(ps, n->child))
						return false;
					i = prog->ninsts - 1;
					prog->insts[i].item = prog->insts[i].op;
					prog->insts[i].op = VR_OP_REPEAT;
					prog->insts[i].min = n->min;
					prog->insts[i].max = n->max;
					return true;
				}

				for (int r = 0; r < n->min; r++)
					if (!gen(ps, n->child))
						return false;
				if (n->max < 0)
				{
					int			loop = emit(ps, VR_OP_SPLIT);

					if (loop < 0)
						return false;
					prog->insts[loop].x = loop + 1;
					if (!gen(ps, n->child) || (i = emit(ps, VR_OP_JMP)) < 0)
						return false;
					prog->insts[i].x = loop;
					prog->insts[loop].y = prog->ninsts;
					return true;
				}
				/* x{0,3} as (x(x(x)?)?)?: one path per count */
				for (int r = n->min; r < n->max; r++)
				{
					if ((splits[nsplits] = emit(ps, VR_OP_SPLIT)) < 0)
						return false;
					prog->insts[splits[nsplits]].x = splits[nsplits] + 1;
					nsplits++;
					if (!gen(ps, n->child))
						return false;
				}
				for (int j = 0; j < nsplits; j++)
					prog->insts[splits[j]].y = prog->ninsts;
				return true;
			}
	}
	return false;
}

VrStatus
vr_compile(const uint8_t *pattern, size_t len, VrProgram *prog)
{
	VrParser	parser;			/* about 16 kB */
	VrParser   *ps = &parser;
	VrStatus	st;
	int			root;

	memset(prog, 0, offsetof(VrProgram, insts));
	prog->ninsts = 0;
	ps->p = pattern;
	ps->len = len;
	ps->pos = 0;
	ps->nnodes = 0;
	ps->prog = prog;
	ps->status = VR_OK;
	/* "***=", "***:" and embedded options "(?x)" are directors: refused */
	root = parse_alt(ps);
	if (root >= 0 && ps->pos < len)
		root = fail(ps, VR_UNSUPPORTED);	/* an unmatched ')' */
	if (root < 0)
		return ps->status;
	if (!quantifiers_safe(ps, root))
		return VR_UNSUPPORTED;
	prog->anchored = starts_anchored(ps, root);
	if (!gen(ps, root) || emit(ps, VR_OP_MATCH) < 0)
		return ps->status == VR_OK ? VR_TOO_BIG : ps->status;
	st = ps->status;
	/* the first thing a REPEAT's continuation matches, past SAVEs */
	for (int i = 0; i < prog->ninsts; i++)
		if (prog->insts[i].op == VR_OP_REPEAT)
		{
			const VrInst *next = &prog->insts[i + 1];

			while (next->op == VR_OP_SAVE || next->op == VR_OP_SAVE_CONST)
				next++;
			if (next->op == VR_OP_EOL)
				prog->insts[i].follow = VR_FOLLOW_EOL;
			else if (next->op == VR_OP_CHAR)
			{
				prog->insts[i].follow = VR_FOLLOW_BYTE;
				prog->insts[i].follow_byte = next->bytes[0];
			}
			else if (next->op == VR_OP_STR)
			{
				prog->insts[i].follow = VR_FOLLOW_BYTE;
				prog->insts[i].follow_byte = prog->literals[next->x];
			}
		}
	return st;
}

VrStatus
vr_compile_replacement(const uint8_t *repl, size_t len, VrReplacement *r)
{
	size_t		i = 0;

	/* the counters (tokens and bytes are written as they are parsed) */
	r->ntokens = 0;
	r->used_groups = 0;
	r->literal_bytes = 0;
	r->nrefs = 0;
	if (len > VR_MAX_REPLACEMENT)
		return VR_TOO_BIG;
	memcpy(r->bytes, repl, len);
	while (i < len)
	{
		size_t		j = i;
		int			group = -1;

		while (j < len && repl[j] != '\\')
			j++;
		if (j > i)
		{
			r->tokens[r->ntokens].group = -1;
			r->tokens[r->ntokens].off = i;
			r->tokens[r->ntokens].len = j - i;
			r->ntokens++;
			r->literal_bytes += j - i;
		}
		if (j >= len)
			break;
		/* at a backslash */
		if (j + 1 < len && repl[j + 1] >= '1' && repl[j + 1] <= '9')
			group = repl[j + 1] - '0';
		else if (j + 1 < len && repl[j + 1] == '&')
			group = 0;
		if (group >= 0)
		{
			r->tokens[r->ntokens].group = group;
			r->ntokens++;
			r->nrefs++;
			r->used_groups |= 1u << group;
			i = j + 2;
		}
		else
		{
			/* "\\" gives one; a lone backslash stays, the next byte is read anew */
			r->tokens[r->ntokens].group = -1;
			r->tokens[r->ntokens].off = j;
			r->tokens[r->ntokens].len = 1;
			r->ntokens++;
			r->literal_bytes++;
			i = (j + 1 < len && repl[j + 1] == '\\') ? j + 2 : j + 1;
		}
	}
	return VR_OK;
}

/* ---------------------------------------------------------------- */
/* Matching */

static bool
class_has(const VrProgram *prog, const VrInst *in, uint32_t cp)
{
	bool		found = false;

	for (int i = 0; i < in->y && !found; i++)
		found = cp >= prog->ranges[in->x + i][0] && cp <= prog->ranges[in->x + i][1];
	return found != (in->len != 0);
}

/*
 * Which of two parses to the same end PostgreSQL takes: > 0 a, < 0 b.
 * The preference slots are in the order PostgreSQL dissects; each is a
 * split position (the longest first) or a branch's -index (the first).
 */
static int
compare_prefs(const VrProgram *prog, const int32_t *a, const int32_t *b)
{
	int			base = 2 * (prog->ngroups + 1);

	if (prog->unique_only)
		return 0;

	for (int i = base; i < base + prog->nprefs; i++)
		if (a[i] != b[i])
			return a[i] > b[i] ? 1 : -1;
	return 0;
}

static bool
captures_agree(const VrProgram *prog, uint32_t used, const int32_t *a,
			   const int32_t *b)
{
	for (int g = 1; g <= prog->ngroups; g++)
		if ((used & (1u << g)) && (a[2 * g] != b[2 * g] || a[2 * g + 1] != b[2 * g + 1]))
			return false;
	return true;
}

/* Bytes of the item of REPEAT in at pos, 0 when it does not match. */
static inline int
item_len(const VrProgram *prog, const VrInst *in, const uint8_t *s, int32_t len,
		 int32_t pos)
{
	int			l;

	if (pos >= len)
		return 0;
	switch (in->item)
	{
		case VR_OP_CHAR:
			if (pos + in->len > len || s[pos] != in->bytes[0] ||
				(in->len > 1 && memcmp(s + pos + 1, in->bytes + 1, in->len - 1) != 0))
				return 0;
			return in->len;
		case VR_OP_ANY:
			return utf8_step(s[pos]);
		default:
			return class_has(prog, in, utf8_decode(s + pos, &l)) ? l : 0;
	}
}

/* Can the REPEAT's continuation begin at pos?  False only when it cannot. */
static inline bool
follow_ok(const VrInst *in, const uint8_t *s, int32_t len, int32_t pos)
{
	if (in->follow == VR_FOLLOW_EOL)
		return pos == len;
	if (in->follow == VR_FOLLOW_BYTE)
		return pos < len && s[pos] == in->follow_byte;
	return true;
}

/*
 * The longest end of REPEAT in below pos, down to low, where its
 * continuation can begin; -1 if none.  Ends are character boundaries: a
 * follow byte is an ASCII or lead byte.
 */
static inline int32_t
repeat_shorter(const VrInst *in, const uint8_t *s, int32_t pos, int32_t low)
{
	const uint8_t *hit;

	if (pos <= low)
		return -1;
	switch (in->follow)
	{
		case VR_FOLLOW_EOL:
			return -1;			/* only the longest reached the end */
		case VR_FOLLOW_BYTE:
			hit = memrchr(s + low, in->follow_byte, pos - low);
			return hit != NULL ? (int32_t) (hit - s) : -1;
		default:
			pos--;
			while (pos > low && (s[pos] & 0xC0) == 0x80)
				pos--;
			return pos;
	}
}

/* The longest end at or below pos where the continuation can begin. */
static inline int32_t
repeat_end(const VrInst *in, const uint8_t *s, int32_t len, int32_t pos,
		   int32_t low)
{
	return follow_ok(in, s, len, pos) ? pos : repeat_shorter(in, s, pos, low);
}

typedef struct VrRun
{
	int32_t		start;
	int32_t		end;			/* longest end from start, -1: none */
	bool		ambiguous;		/* equally preferred paths disagree */
} VrRun;

/*
 * Every path of the program from start; *steps counts the instructions
 * run for the subject.  first_only: stop at the first match (vr_test).
 * Returns false when the work bound is hit.
 */
static bool
explore(const VrProgram *prog, const uint8_t *s, int32_t len, int32_t start,
		uint32_t used, bool first_only, VrScratch *sc, uint32_t *steps,
		VrRun *run)
{
	int			sp = 0;
	int			ncaps = 2 * (prog->ngroups + 1);
	int			nslots = ncaps + prog->nprefs;

	for (int i = 0; i < ncaps; i++)
		sc->caps[i] = -1;
	for (int i = ncaps; i < nslots; i++)
		sc->caps[i] = INT32_MIN;
	run->start = start;
	run->end = -1;
	run->ambiguous = false;
	sc->stack[sp].pc = 0;
	sc->stack[sp].pos = start;
	sc->stack[sp].low = -1;
	sp++;
	while (sp > 0)
	{
		int32_t		pc;
		int32_t		pos;

		sp--;
		pc = sc->stack[sp].pc;
		pos = sc->stack[sp].pos;
		if (pc < 0)
		{
			sc->caps[-pc - 1] = pos;
			continue;
		}
		if (sc->stack[sp].low >= 0)
		{
			/* a REPEAT one character shorter than last time */
			const VrInst *in = &prog->insts[pc];
			int32_t		low = sc->stack[sp].low;

			pos = repeat_shorter(in, s, pos, low);
			if (pos < 0)
				continue;
			if (pos > low)
			{
				sc->stack[sp].pos = pos;	/* the frame stays, at this end */
				sp++;
			}
			pc++;
		}
		for (;;)
		{
			const VrInst *in = &prog->insts[pc];

			if (++*steps > VR_MAX_STEPS)
				return false;
			switch (in->op)
			{
				case VR_OP_CHAR:
					if (pos + in->len > len || s[pos] != in->bytes[0] ||
						(in->len > 1 && memcmp(s + pos + 1, in->bytes + 1, in->len - 1) != 0))
						goto dead;
					pos += in->len;
					pc++;
					continue;
				case VR_OP_STR:
					if (pos + in->y > len ||
						memcmp(s + pos, prog->literals + in->x, in->y) != 0)
						goto dead;
					pos += in->y;
					pc++;
					continue;
				case VR_OP_ANY:
					if (pos >= len)
						goto dead;
					pos += utf8_step(s[pos]);
					pc++;
					continue;
				case VR_OP_CLASS:
					{
						int			l;

						if (pos >= len || !class_has(prog, in, utf8_decode(s + pos, &l)))
							goto dead;
						pos += l;
						pc++;
						continue;
					}
				case VR_OP_BOL:
					if (pos != 0)
						goto dead;
					pc++;
					continue;
				case VR_OP_EOL:
					if (pos != len)
						goto dead;
					pc++;
					continue;
				case VR_OP_JMP:
					pc = in->x;
					continue;
				case VR_OP_SPLIT:
					if (sp >= VR_MAX_STEPS)
						return false;
					sc->stack[sp].pc = in->y;
					sc->stack[sp].pos = pos;
					sc->stack[sp].low = -1;
					sp++;
					pc = in->x;
					continue;
				case VR_OP_SAVE:
				case VR_OP_SAVE_CONST:
					if (sp >= VR_MAX_STEPS)
						return false;
					sc->stack[sp].pc = -in->x - 1;
					sc->stack[sp].pos = sc->caps[in->x];
					sc->stack[sp].low = -1;
					sp++;
					sc->caps[in->x] = in->op == VR_OP_SAVE ? pos : in->y;
					pc++;
					continue;
				case VR_OP_REPEAT:
					{
						int32_t		low = -1;
						int32_t		end = pos;
						int			count = 0;
						int			l;

						/* the longest run, remembering where min items end */
						if (in->min == 0)
							low = pos;
						while ((in->max < 0 || count < in->max) &&
							   (l = item_len(prog, in, s, len, end)) > 0)
						{
							/* ".*": the rest of the string once min are in */
							if (in->item == VR_OP_ANY && in->max < 0 && count >= in->min)
							{
								if (low < 0)
									low = end;
								end = len;
								break;
							}
							end += l;
							if (++count == in->min)
								low = end;
							if ((count & 63) == 0 && (*steps += 64) > VR_MAX_STEPS)
								return false;
						}
						if (low < 0)
							goto dead;
						end = repeat_end(in, s, len, end, low);
						if (end < 0)
							goto dead;
						if (end > low && in->follow != VR_FOLLOW_EOL)
						{
							if (sp >= VR_MAX_STEPS)
								return false;
							sc->stack[sp].pc = pc;
							sc->stack[sp].pos = end;
							sc->stack[sp].low = low;
							sp++;
						}
						pos = end;
						pc++;
						continue;
					}
				case VR_OP_MATCH:
					if (pos > run->end)
					{
						run->end = pos;
						run->ambiguous = false;
						memcpy(sc->best, sc->caps, sizeof(int32_t) * nslots);
					}
					else if (pos == run->end)
					{
						int			cmp = compare_prefs(prog, sc->caps, sc->best);

						if (cmp > 0)
						{
							run->ambiguous = false;
							memcpy(sc->best, sc->caps, sizeof(int32_t) * nslots);
						}
						else if (cmp == 0 && !captures_agree(prog, used, sc->caps, sc->best))
							run->ambiguous = true;	/* not PostgreSQL's tree */
					}
					if (first_only || (pos == len && nslots == ncaps))
						return true;	/* nothing longer or preferred can come */
					goto dead;
			}
		}
dead:	;
	}
	return true;
}

/* The leftmost start's run; VR_NO_MATCH, VR_MATCH or VR_BUDGET. */
static VrResult
find(const VrProgram *prog, const uint8_t *s, int32_t len, uint32_t used,
	 bool first_only, VrScratch *sc, VrRun *run)
{
	uint32_t	steps = 0;
	int			first_byte = prog->insts[0].op == VR_OP_CHAR ? prog->insts[0].bytes[0] :
		prog->insts[0].op == VR_OP_STR ? prog->literals[prog->insts[0].x] : -1;

	for (int32_t start = 0; start <= len; start += start < len ? utf8_step(s[start]) : 1)
	{
		if (first_byte >= 0)
		{
			const uint8_t *hit = start < len ?
				memchr(s + start, first_byte, len - start) : NULL;

			if (hit == NULL)
				break;
			start = hit - s;
		}
		if (!explore(prog, s, len, start, used, first_only, sc, &steps, run))
			return VR_BUDGET;
		if (run->end >= 0)
			return VR_MATCH;
		if (prog->anchored)
			break;
	}
	return VR_NO_MATCH;
}

VrResult
vr_replace(const VrProgram *prog, const VrReplacement *r, const uint8_t *s,
		   size_t len, VrScratch *sc, uint8_t *out, size_t *out_len)
{
	VrRun		run;
	VrResult	res;
	uint8_t    *o = out;

	if (len > INT32_MAX / 2 || !pfc_utf8_valid(s, len))
		return VR_BAD_UTF8;
	res = find(prog, s, (int32_t) len, r->used_groups, false, sc, &run);
	if (res != VR_MATCH)
		return res;
	if (run.ambiguous)
		return VR_AMBIGUOUS;
	sc->best[0] = run.start;
	sc->best[1] = run.end;
	memcpy(o, s, run.start);
	o += run.start;
	for (int t = 0; t < r->ntokens; t++)
	{
		int			g = r->tokens[t].group;

		if (g < 0)
		{
			memcpy(o, r->bytes + r->tokens[t].off, r->tokens[t].len);
			o += r->tokens[t].len;
		}
		else if (g <= prog->ngroups && sc->best[2 * g] >= 0 && sc->best[2 * g + 1] >= 0)
		{
			memcpy(o, s + sc->best[2 * g], sc->best[2 * g + 1] - sc->best[2 * g]);
			o += sc->best[2 * g + 1] - sc->best[2 * g];
		}
	}
	memcpy(o, s + run.end, len - run.end);
	o += len - run.end;
	*out_len = o - out;
	return VR_MATCH;
}

VrResult
vr_test(const VrProgram *prog, const uint8_t *s, size_t len, VrScratch *sc)
{
	VrRun		run;

	if (len > INT32_MAX / 2 || !pfc_utf8_valid(s, len))
		return VR_BAD_UTF8;
	return find(prog, s, (int32_t) len, 0, true, sc, &run);
}
