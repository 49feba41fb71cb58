/*-------------------------------------------------------------------------
 *
 * qual.h
 *	  The one analyzer of a foreign table's restriction clauses: which
 *	  "column op value" forms row-group, page, stripe, file and folder
 *	  pruning, the scan's late quals and pushed aggregate filters may use.
 *
 * Every consumer reads the same PfQual.  A qual is classified once (at
 * planning, or from the plan's quals at executor start); its value is
 * known then if it is a constant under an immutable comparison, else it is
 * computed at executor start (Params, stable functions, array
 * expressions) with pf_qual_evaluate.  A qual the analyzer does not return
 * is simply not used: PostgreSQL evaluates every qual itself anyway, so
 * every consumer must only ever be conservative.
 *
 * IDENTIFICATION
 *	  src/fdw/qual.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_QUAL_H
#define PF_QUAL_H

#include "access/stratnum.h"
#include "fmgr.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "nodes/primnodes.h"

/* a strategy number of our own for "<>" (btree has none) */
#define PF_NOT_EQUAL_STRATEGY	(BTMaxStrategyNumber + 1)

/*
 * The qual as an exact same-type comparison on the column, once its value
 * is known (pf_prune_qual_set_value): what late quals and aggregate filters
 * evaluate row by row.
 */
typedef enum PfQualNorm
{
	PF_NORM_NONE = 0,			/* no exact same-type form: prune only */
	PF_NORM_CMP,				/* column norm_strategy norm_value */
	PF_NORM_ALWAYS,				/* true for every non-null value */
	PF_NORM_NEVER				/* true for no value */
} PfQualNorm;

typedef struct PfPruneQual
{
	AttrNumber	attnum;			/* the column */
	int			strategy;		/* BTLessStrategyNumber..., column on the left */
	Oid			cmpproc;		/* btree order proc: cmp(column, value) */
	Oid			collation;
	Expr	   *expr;			/* the value: a Const, or an expression of
								 * Params evaluated at executor start */
	Oid			valtype;		/* the value's type (an IN list's elements') */
	/* the value, once known */
	bool		value_known;
	bool		value_null;		/* NULL: the qual is never true */
	bool		value_is_nan;	/* float NaN: never prunes */
	Datum		value;
	/* AND / OR of other prune quals (args), when is_bool */
	bool		is_bool;
	BoolExprType bool_op;
	List	   *args;
	/* "column IS [NOT] NULL": decided by the null count alone */
	NullTestType null_test;
	bool		is_null_test;
	/* "column = ANY (array)": the non-null elements, if in_list */
	bool		in_list;
	int			num_elems;
	Datum	   *elems;
	FmgrInfo	cmp;
	/* a collation whose order is not byte order: only virtual columns'
	 * values (file pruning) may be compared, never file statistics */
	bool		order_not_bytes;
	/* file pruning: the column, looked up in the catalogs on first use */
	bool		virt_resolved;
	bool		virt_is_filename;	/* the filename_column */
	char	   *virt_field;		/* else the field (partition key) it reads */
	Oid			virt_typinput;	/* to read a partition value as the type */
	Oid			virt_typioparam;

	/* --- set by the analyzer (qual.c) --- */
	Oid			coltype;		/* the column's declared type */
	Oid			exprtype;		/* type of expr (the array type for IN) */
	Oid			castfunc;		/* column cast before comparing (int4 to
								 * numeric, int8 to float8...: casts that
								 * keep the order), else InvalidOid */
	FmgrInfo	cast;
	bool		prune_only;		/* LIKE 'prefix%': a range that bounds the
								 * matches, not the qual itself */
	/* the same-type form, computed with the value */
	PfQualNorm	norm;
	int			norm_strategy;
	Datum		norm_value;		/* of norm_type */
	Oid			norm_type;		/* coltype, or a float type for a float
								 * column (compared as double) */
	int			norm_num_elems; /* IN: elements a column value can equal */
	Datum	   *norm_elems;
} PfPruneQual;

typedef PfPruneQual PfQual;

/*
 * Classify one clause over relation relid (0: any Var at level 0 is the
 * relation's, as in an aggregate plan's private quals); NULL when no
 * consumer can use it.
 */
extern PfQual *pf_qual_classify(Node *clause, Index relid);

/* The prunable quals among baserel's restriction clauses (byte order). */
extern List *pf_prune_quals(RelOptInfo *baserel);
/* Those for pf_file_excluded: text compared under any collation too. */
extern List *pf_file_prune_quals(RelOptInfo *baserel);
/* The prunable quals of a plan's qual list over relid, values known now. */
extern List *pf_prune_quals_from_clauses(List *clauses, Index relid);

/*
 * Set a qual's value, once known: notes float NaN, takes an IN array's
 * elements (copied into the current memory context), and computes the
 * same-type form.
 */
extern void pf_prune_qual_set_value(PfQual *q, Datum value, bool isnull);

/*
 * Evaluate q->expr's state for this (re)scan and set the value, the
 * result kept in cxt (the caller resets it before the next rescan).
 */
extern void pf_qual_evaluate(PfQual *q, ExprState *state,
							 ExprContext *econtext, MemoryContext cxt);

/*
 * The type of q's same-type form once its value is known (the column's
 * type, or the value's for a same-type or float comparison), InvalidOid
 * when it has none.
 */
extern Oid	pf_qual_same_type(PfQual *q);

/* Does q's value contain a parameter that may change on a rescan? */
extern bool pf_qual_has_exec_param(PfQual *q);

/*
 * A top-level qual whose value is known only at executor start, as
 * integers for a plan's fdw_private and back (with the value expression
 * given separately, in fdw_exprs).
 */
extern List *pf_qual_to_list(PfQual *q);
extern PfQual *pf_qual_from_list(List *ints, MemoryContext cxt);

/*
 * Compare a column value (of the column's type) with the qual's value
 * (or elem, for IN lists), as PostgreSQL's operator would order them.
 */
extern int	pf_qual_compare(PfQual *q, Datum column_value, Datum value);

/*
 * Do bounds [min, max] of the non-null values of a column of type deftyp
 * (a chunk, a page, a stripe, a 256-row range) show that comparison qual q
 * holds for none of them?  min and max are of the column's type.
 */
extern bool pf_range_excludes(PfQual *q, Oid deftyp, Datum min, Datum max);

/*
 * What a pruner knows of one column in one unit (a row group, a page, a
 * stripe): min and max of its non-null values (of type, the column's
 * type; text in byte order) and its null count.
 */
typedef struct PfQualBounds
{
	Oid			type;
	bool		has_min_max;
	Datum		min;
	Datum		max;
	bool		has_null_count;
	int64		null_count;
	int64		num_rows;
} PfQualBounds;

/*
 * Do a unit's bounds show that leaf qual q (a comparison, IN list or null
 * test on that column) holds for none of its rows?  A qual true for no
 * value (a NULL value, an empty IN list, a bound no column value reaches)
 * excludes every unit.  The usual leaf_excludes of pf_qual_excludes, after
 * the pruner has found the unit's bounds for q->attnum.
 */
extern bool pf_qual_bounds_exclude(PfQual *q, const PfQualBounds *b);

/*
 * AND/OR evaluation for pruners: does q exclude every row of a unit (row
 * group, stripe, file...), given leaf_excludes, which answers for a leaf
 * qual (comparison, IN, null test) with the unit's own bounds?  AND
 * excludes when some arm does, OR when every arm does.
 */
typedef bool (*PfQualLeafExcludes) (PfQual *leaf, void *arg);
extern bool pf_qual_excludes(PfQual *q, PfQualLeafExcludes leaf_excludes,
							 void *arg);

#endif							/* PF_QUAL_H */
