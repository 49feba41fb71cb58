/*-------------------------------------------------------------------------
 *
 * sorted.c
 *	  The table option "sorted": the order the files' rows are stored in.
 *
 * `sorted 'a, b DESC, c NULLS FIRST'` declares that the rows of every file
 * of the table come in that order (each key ASC or DESC, NULLS FIRST or
 * LAST, with PostgreSQL's defaults; compared with the column's default
 * btree operator class and collation).  The planner then gets a path with
 * those pathkeys, so ORDER BY, merge joins and GROUP BY on a prefix of the
 * keys need no Sort, and the scan of that path returns rows in that order:
 * one file is read as stored, several are merged row by row through a
 * binary heap of one reader per file (ties go to the earlier file).
 *
 * A file is opened only when its rows may come next: its first planned row
 * group's statistics bound its first row (min ascending, max descending),
 * and until the heap's smallest row reaches that bound the file stays
 * closed; a file read to its end is closed.  Files written in order (each
 * starting where the previous ends) are so read one or two at a time, in
 * bounded memory, however many there are.
 *
 * The declaration is checked, not trusted: each row is compared with the
 * one before it from the same file, and a file out of order is an error
 * (ERRCODE_DATA_CORRUPTED) rather than a silently wrong ORDER BY.
 *
 * IDENTIFICATION
 *	  src/fdw/sorted.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "access/stratnum.h"
#include "executor/tuptable.h"
#include "lib/binaryheap.h"
#include "nodes/makefuncs.h"
#include "optimizer/paths.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/sortsupport.h"
#include "utils/typcache.h"

#include "fdw/parquet_fdw.h"
#include "fdw/source.h"

/* ----------------------------------------------------------------
 * Parsing the declaration
 * ----------------------------------------------------------------
 */

/* Next token of spec at *pos: an identifier (maybe quoted) or a comma. */
static char *
next_token(const char *spec, int *pos, bool *quoted)
{
	const char *p = spec + *pos;
	StringInfoData tok;

	*quoted = false;
	while (isspace((unsigned char) *p))
		p++;
	if (*p == '\0')
	{
		*pos = p - spec;
		return NULL;
	}
	initStringInfo(&tok);
	if (*p == ',')
	{
		appendStringInfoChar(&tok, ',');
		p++;
	}
	else if (*p == '"')
	{
		*quoted = true;
		for (p++;; p++)
		{
			if (*p == '\0')
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("unterminated quoted name in option \"sorted\": \"%s\"",
								spec)));
			if (*p == '"' && p[1] == '"')
			{
				appendStringInfoChar(&tok, '"');
				p++;
				continue;
			}
			if (*p == '"')
			{
				p++;
				break;
			}
			appendStringInfoChar(&tok, *p);
		}
	}
	else
	{
		while (*p != '\0' && *p != ',' && !isspace((unsigned char) *p))
		{
			/* unquoted names fold to lower case, as in SQL */
			appendStringInfoChar(&tok, pg_tolower((unsigned char) *p));
			p++;
		}
	}
	*pos = p - spec;
	return tok.data;
}

static void
sorted_syntax_error(const char *spec, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
			 errmsg("invalid value for option \"sorted\": \"%s\"", spec),
			 errdetail("%s", detail),
			 errhint("Write a list of columns, each optionally followed by ASC or DESC and NULLS FIRST or NULLS LAST, e.g. 'id, ts DESC'.")));
}

/*
 * pf_parse_sorted
 *		The keys of a "sorted" option value (PfSortKey *), by column name;
 *		rel NULL (the validator) checks the syntax only.
 */
List *
pf_parse_sorted(const char *spec, Relation rel)
{
	List	   *keys = NIL;
	int			pos = 0;

	for (;;)
	{
		bool		quoted;
		char	   *name = next_token(spec, &pos, &quoted);
		char	   *word;
		PfSortKey  *key;
		bool		nulls_set = false;

		if (name == NULL || (!quoted && strcmp(name, ",") == 0))
			sorted_syntax_error(spec, name == NULL ? "A column name is missing at the end." :
								"A column name is missing before a comma.");
		key = palloc0(sizeof(PfSortKey));
		key->name = name;
		while ((word = next_token(spec, &pos, &quoted)) != NULL &&
			   (quoted || strcmp(word, ",") != 0))
		{
			if (quoted)
				sorted_syntax_error(spec, "Only ASC, DESC and NULLS FIRST/LAST may follow a column name.");
			if (strcmp(word, "asc") == 0)
				key->descending = false;
			else if (strcmp(word, "desc") == 0)
				key->descending = true;
			else if (strcmp(word, "nulls") == 0)
			{
				char	   *which = next_token(spec, &pos, &quoted);

				if (which == NULL || quoted ||
					(strcmp(which, "first") != 0 && strcmp(which, "last") != 0))
					sorted_syntax_error(spec, "NULLS must be followed by FIRST or LAST.");
				key->nulls_first = strcmp(which, "first") == 0;
				nulls_set = true;
			}
			else
				sorted_syntax_error(spec, "Only ASC, DESC and NULLS FIRST/LAST may follow a column name.");
		}
		/* PostgreSQL's default: NULLS LAST ascending, NULLS FIRST descending */
		if (!nulls_set)
			key->nulls_first = key->descending;

		if (rel != NULL)
		{
			TupleDesc	tupdesc = RelationGetDescr(rel);
			TypeCacheEntry *tc;
			Form_pg_attribute attr = NULL;

			for (int i = 0; i < tupdesc->natts; i++)
			{
				Form_pg_attribute a = TupleDescAttr(tupdesc, i);

				if (!a->attisdropped && strcmp(NameStr(a->attname), name) == 0)
					attr = a;
			}
			if (attr == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_COLUMN),
						 errmsg("column \"%s\" named in option \"sorted\" of foreign table \"%s\" does not exist",
								name, RelationGetRelationName(rel))));
			key->attnum = attr->attnum;
			key->type = attr->atttypid;
			key->typmod = attr->atttypmod;
			key->collation = attr->attcollation;
			key->typlen = attr->attlen;
			key->typbyval = attr->attbyval;
			tc = lookup_type_cache(attr->atttypid, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
			key->sortop = key->descending ? tc->gt_opr : tc->lt_opr;
			if (!OidIsValid(key->sortop))
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_FUNCTION),
						 errmsg("column \"%s\" named in option \"sorted\" has type %s, which has no default ordering",
								name, format_type_be(attr->atttypid))));
		}
		keys = lappend(keys, key);
		if (word == NULL)
			break;
	}
	return keys;
}

/* ----------------------------------------------------------------
 * Planning
 * ----------------------------------------------------------------
 */

/*
 * pf_sorted_pathkeys
 *		The pathkeys of the keys' order over baserel: as many leading keys as
 *		the planner can use (a key equal to a constant adds nothing).
 */
List *
pf_sorted_pathkeys(PlannerInfo *root, RelOptInfo *baserel, List *keys)
{
	List	   *pathkeys = NIL;
	ListCell   *lc;

	foreach(lc, keys)
	{
		PfSortKey  *key = (PfSortKey *) lfirst(lc);
		Oid			opfamily;
		Oid			opcintype;
		PfOrderingDirection strategy;
		Oid			equality_op;
		Var		   *var;
		EquivalenceClass *ec;
		PathKey    *pk;

		if (!get_ordering_op_properties(key->sortop, &opfamily, &opcintype,
										&strategy))
			break;
		var = makeVar(baserel->relid, key->attnum, key->type, key->typmod,
					  key->collation, 0);
		/* the equivalence class the planner makes of an ORDER BY on var */
		equality_op = get_opfamily_member(opfamily, opcintype, opcintype,
										  BTEqualStrategyNumber);
		if (!OidIsValid(equality_op))
			break;
		ec = pf_get_eclass_for_sort_expr(root, (Expr *) var,
									  get_mergejoin_opfamilies(equality_op),
									  opcintype,
									  key->collation, 0,
									  bms_make_singleton(baserel->relid), true);
		if (EC_MUST_BE_REDUNDANT(ec))
			continue;
		pk = make_canonical_pathkey(root, ec, opfamily, strategy, key->nulls_first);
		if (!list_member_ptr(pathkeys, pk))
			pathkeys = lappend(pathkeys, pk);
	}
	return pathkeys;
}

/* ----------------------------------------------------------------
 * Execution: merging the files' rows
 * ----------------------------------------------------------------
 */

typedef struct PfMergeInput
{
	PfScanState *scan;			/* over one file, while open */
	const char *path;
	Datum	   *values;			/* its current row (natts) */
	bool	   *isnull;
	bool		has_row;
	int64		row;			/* ordinal of the current row in the file */
	bool		eager;			/* no usable bound: opened at the start */
	Datum		bound;			/* else the first key of its first row sorts
								 * at or after this */
} PfMergeInput;

struct PfMerge
{
	Relation	rel;
	const PfSourceOps *source;	/* the files' format */
	int			natts;
	int			nkeys;
	PfSortKey **keys;
	SortSupport ssup;			/* per key */
	int			ninputs;
	PfMergeInput *inputs;
	int		   *order;			/* inputs: eager ones, then by bound */
	int			next_open;		/* into order: the next input to open */
	int			open_now;		/* for EXPLAIN ANALYZE */
	int			open_max;
	int			opened;
	binaryheap *heap;			/* of input indexes; top = smallest row */
	bool		started;
	int			last_input;		/* the input the last row came from */
	MemoryContext last_cxt;		/* copies of that row's keys */
	Datum	   *last_keys;
	bool	   *last_null;
	/* what each input's scan needed to start: the plan's lists */
	List	   *filenames;
	List	   *rowgroups;
	List	   *attnos;
	MemoryContext cxt;
};

/* Input a's current row against input b's, in the declared order. */
static int
compare_inputs(PfMerge *m, const PfMergeInput *a, const PfMergeInput *b)
{
	for (int k = 0; k < m->nkeys; k++)
	{
		int			i = m->keys[k]->attnum - 1;
		int			c = ApplySortComparator(a->values[i], a->isnull[i],
											b->values[i], b->isnull[i],
											&m->ssup[k]);

		if (c != 0)
			return c;
	}
	return 0;
}

/* Input a's current row against the keys of the row returned last. */
static int
compare_to_last(PfMerge *m, const PfMergeInput *a)
{
	for (int k = 0; k < m->nkeys; k++)
	{
		int			i = m->keys[k]->attnum - 1;
		int			c = ApplySortComparator(a->values[i], a->isnull[i],
											m->last_keys[k], m->last_null[k],
											&m->ssup[k]);

		if (c != 0)
			return c;
	}
	return 0;
}

/* binaryheap keeps its largest on top: the row that sorts first is largest */
static int
heap_compare(Datum a, Datum b, void *arg)
{
	PfMerge    *m = (PfMerge *) arg;
	int			ia = DatumGetInt32(a);
	int			ib = DatumGetInt32(b);
	int			c = compare_inputs(m, &m->inputs[ia], &m->inputs[ib]);

	if (c == 0)
		c = ia < ib ? -1 : (ia > ib ? 1 : 0);	/* stable: earlier file first */
	return -c;
}

static bool input_advance(PfMerge *m, int i, bool check);

/* Close input i's file, if open. */
static void
input_close(PfMerge *m, int i)
{
	PfMergeInput *in = &m->inputs[i];

	if (in->scan != NULL)
	{
		pf_scan_close(in->scan);
		in->scan = NULL;
		m->open_now--;
	}
}

/* Open input i's scan (again). */
static void
input_open(PfMerge *m, int i)
{
	PfMergeInput *in = &m->inputs[i];

	input_close(m, i);
	in->scan = pf_scan_open(m->rel, m->source, list_make1(list_nth(m->filenames, i)),
							list_make1(list_nth(m->rowgroups, i)), m->attnos,
							0, m->cxt);
	in->has_row = false;
	in->row = -1;
	m->opened++;
	m->open_now++;
	m->open_max = Max(m->open_max, m->open_now);
}

/*
 * The bound of input i's first row from its first planned unit's bounds
 * of the first key (the source's statistics); eager when there is none
 * that holds.
 */
static void
input_bound(PfMerge *m, int i)
{
	PfMergeInput *in = &m->inputs[i];
	PfSortKey  *key = m->keys[0];
	List	   *rgs = (List *) list_nth(m->rowgroups, i);
	PfSourceScan io = {0};
	PfSourceColumn col = {0};
	PfSource   *src;
	Datum		min;
	Datum		max;
	int64		nulls;

	in->eager = true;
	if (rgs == NIL)
		return;
	/* text statistics are in byte order */
	if (OidIsValid(key->collation) && !pf_collate_is_c(key->collation))
		return;
	io.cxt = CurrentMemoryContext;
	src = m->source->open(in->path, m->rel, &io, CurrentMemoryContext);
	col.attnum = key->attnum;
	col.attname = key->name;
	col.field_name = pf_get_column_name(RelationGetRelid(m->rel), key->attnum);
	col.typid = key->type;
	col.typmod = key->typmod;
	m->source->bind(src, &col, 1, false, false);

	/* a leading null would sort before any bound */
	if (src->present[0] &&
		m->source->column_bounds(src, linitial_int(rgs), 0, key->type,
								 &min, &max, &nulls) &&
		nulls >= 0 && (nulls == 0 || !key->nulls_first))
	{
		in->bound = datumCopy(key->descending ? max : min, key->typbyval,
							  key->typlen);
		in->eager = false;
	}
	m->source->close(src);
}

/* qsort_arg: eager inputs first (in file order), then by bound */
static int
compare_bounds(const void *a, const void *b, void *arg)
{
	PfMerge    *m = (PfMerge *) arg;
	int			ia = *(const int *) a;
	int			ib = *(const int *) b;
	PfMergeInput *x = &m->inputs[ia];
	PfMergeInput *y = &m->inputs[ib];
	int			c = 0;

	if (x->eager != y->eager)
		return x->eager ? -1 : 1;
	if (!x->eager)
		c = ApplySortComparator(x->bound, false, y->bound, false, &m->ssup[0]);
	return c != 0 ? c : (ia < ib ? -1 : ia > ib);
}

/*
 * Open the inputs whose first row may sort at or before the heap's
 * smallest row (all of them while the heap is empty), in bound order.
 */
static void
open_due_inputs(PfMerge *m)
{
	while (m->next_open < m->ninputs)
	{
		int			j = m->order[m->next_open];

		if (!binaryheap_empty(m->heap) && !m->inputs[j].eager)
		{
			PfMergeInput *top = &m->inputs[DatumGetInt32(binaryheap_first(m->heap))];
			AttrNumber	a = m->keys[0]->attnum;

			if (ApplySortComparator(top->values[a - 1], top->isnull[a - 1],
									m->inputs[j].bound, false, &m->ssup[0]) < 0)
				break;
		}
		m->next_open++;
		input_open(m, j);
		if (input_advance(m, j, false))
			binaryheap_add(m->heap, Int32GetDatum(j));
		else
			input_close(m, j);
	}
}

/*
 * Advance input i; with check, its new row must not sort before the one it
 * replaces (whose keys last_keys hold).
 */
static bool
input_advance(PfMerge *m, int i, bool check)
{
	PfMergeInput *in = &m->inputs[i];

	in->has_row = pf_scan_next(in->scan, in->values, in->isnull, m->natts);
	if (!in->has_row)
		return false;
	in->row++;
	if (check && compare_to_last(m, in) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s \"%s\" is not in the order option \"sorted\" of foreign table \"%s\" declares",
						m->source->file_noun, in->path,
						RelationGetRelationName(m->rel)),
				 errdetail("Row %lld of the file sorts before the row preceding it.",
						   (long long) in->row + 1),
				 errhint("Correct the option with ALTER FOREIGN TABLE ... OPTIONS (SET sorted '...'), or drop it.")));
	return true;
}

PfMerge *
pf_merge_begin(Relation rel, const PfSourceOps *source, List *keys,
			   List *filenames, List *rowgroups,
			   List *attnos, MemoryContext parent)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "parquet_fdw sorted merge",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	PfMerge    *m = palloc0(sizeof(PfMerge));
	ListCell   *lc;
	int			k = 0;

	m->cxt = cxt;
	m->rel = rel;
	m->source = source;
	m->natts = RelationGetDescr(rel)->natts;
	m->nkeys = list_length(keys);
	m->keys = palloc(sizeof(PfSortKey *) * Max(1, m->nkeys));
	m->ssup = palloc0(sizeof(SortSupportData) * Max(1, m->nkeys));
	foreach(lc, keys)
	{
		PfSortKey  *key = (PfSortKey *) lfirst(lc);

		m->keys[k] = key;
		m->ssup[k].ssup_cxt = cxt;
		m->ssup[k].ssup_collation = key->collation;
		m->ssup[k].ssup_nulls_first = key->nulls_first;
		PrepareSortSupportFromOrderingOp(key->sortop, &m->ssup[k]);
		k++;
	}
	m->filenames = filenames;
	m->rowgroups = rowgroups;
	m->attnos = attnos;
	m->ninputs = list_length(filenames);
	m->inputs = palloc0(sizeof(PfMergeInput) * Max(1, m->ninputs));
	for (int i = 0; i < m->ninputs; i++)
	{
		m->inputs[i].path = (const char *) list_nth(filenames, i);
		m->inputs[i].values = palloc0(sizeof(Datum) * Max(1, m->natts));
		m->inputs[i].isnull = palloc0(sizeof(bool) * Max(1, m->natts));
	}
	m->heap = binaryheap_allocate(Max(1, m->ninputs), heap_compare, m);
	m->order = palloc(sizeof(int) * Max(1, m->ninputs));
	for (int i = 0; i < m->ninputs; i++)
	{
		input_bound(m, i);
		m->order[i] = i;
	}
	qsort_arg(m->order, m->ninputs, sizeof(int), compare_bounds, m);
	m->last_cxt = AllocSetContextCreate(cxt, "parquet_fdw sorted merge keys",
										ALLOCSET_SMALL_SIZES);
	m->last_keys = palloc0(sizeof(Datum) * Max(1, m->nkeys));
	m->last_null = palloc0(sizeof(bool) * Max(1, m->nkeys));
	m->last_input = -1;
	MemoryContextSwitchTo(old);
	return m;
}

/*
 * pf_merge_next
 *		The next row in the declared order into slot (virtual; valid until
 *		the next call); an empty slot at the end.
 */
TupleTableSlot *
pf_merge_next(PfMerge *m, TupleTableSlot *slot)
{
	int			i;
	PfMergeInput *in;

	ExecClearTuple(slot);
	if (!m->started)
	{
		binaryheap_reset(m->heap);
		for (i = 0; i < m->ninputs; i++)
			input_close(m, i);
		m->next_open = 0;
		m->started = true;
	}
	else if (m->last_input >= 0)
	{
		/* the input of the row returned last moves on */
		i = m->last_input;
		if (input_advance(m, i, true))
			binaryheap_replace_first(m->heap, Int32GetDatum(i));
		else
		{
			(void) binaryheap_remove_first(m->heap);
			input_close(m, i);	/* its memory goes now */
		}
	}
	m->last_input = -1;
	open_due_inputs(m);
	if (binaryheap_empty(m->heap))
		return slot;

	i = DatumGetInt32(binaryheap_first(m->heap));
	in = &m->inputs[i];

	/* its keys outlive its batch: the next row of this input is checked against them */
	MemoryContextReset(m->last_cxt);
	{
		MemoryContext old = MemoryContextSwitchTo(m->last_cxt);

		for (int k = 0; k < m->nkeys; k++)
		{
			PfSortKey  *key = m->keys[k];

			m->last_null[k] = in->isnull[key->attnum - 1];
			m->last_keys[k] = m->last_null[k] ? (Datum) 0 :
				datumCopy(in->values[key->attnum - 1], key->typbyval, key->typlen);
		}
		MemoryContextSwitchTo(old);
	}
	m->last_input = i;
	memcpy(slot->tts_values, in->values, sizeof(Datum) * m->natts);
	memcpy(slot->tts_isnull, in->isnull, sizeof(bool) * m->natts);
	return ExecStoreVirtualTuple(slot);
}

/* Start over (a rescan): files are opened again at the next row. */
void
pf_merge_rescan(PfMerge *m)
{
	m->started = false;
	m->last_input = -1;
}

/* Close every input's file. */
void
pf_merge_end(PfMerge *m)
{
	for (int i = 0; i < m->ninputs; i++)
		input_close(m, i);
}

/* EXPLAIN ANALYZE: files opened (over rescans), and the most open at once. */
void
pf_merge_counts(const PfMerge *m, int *opened, int *open_max)
{
	*opened = m->opened;
	*open_max = m->open_max;
}
