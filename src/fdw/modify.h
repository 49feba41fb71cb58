/*-------------------------------------------------------------------------
 *
 * modify.h
 *	  INSERT into parquet_fdw foreign tables: the FdwRoutine callbacks
 *	  fdw.c wires in (modify.c).
 *
 * Each INSERT statement adds new Parquet files to the table's folder (the
 * folder of its single file when the filename option names one file; a
 * hive-partitioned folder gets each row in its key=value folder) and never
 * rewrites a file.  A file is written to a temporary name, fsynced and
 * renamed when the statement ends, so readers see whole files only; the
 * files of a statement whose transaction (or subtransaction) aborts are
 * removed at abort.  UPDATE and DELETE are not offered.  Requires
 * superuser or pg_write_server_files.
 *
 * IDENTIFICATION
 *	  src/fdw/modify.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_MODIFY_H
#define PF_MODIFY_H

#include "postgres.h"

#include "foreign/fdwapi.h"

extern int	pfIsForeignRelUpdatable(Relation rel);
extern List *pfPlanForeignModify(PlannerInfo *root, ModifyTable *plan,
								 Index resultRelation, int subplan_index);
extern void pfBeginForeignModify(ModifyTableState *mtstate,
								 ResultRelInfo *rinfo, List *fdw_private,
								 int subplan_index, int eflags);
extern TupleTableSlot *pfExecForeignInsert(EState *estate, ResultRelInfo *rinfo,
										   TupleTableSlot *slot,
										   TupleTableSlot *planSlot);
extern TupleTableSlot **pfExecForeignBatchInsert(EState *estate,
												 ResultRelInfo *rinfo,
												 TupleTableSlot **slots,
												 TupleTableSlot **planSlots,
												 int *numSlots);
extern int	pfGetForeignModifyBatchSize(ResultRelInfo *rinfo);
extern void pfEndForeignModify(EState *estate, ResultRelInfo *rinfo);
extern void pfBeginForeignInsert(ModifyTableState *mtstate,
								 ResultRelInfo *rinfo);
extern void pfEndForeignInsert(EState *estate, ResultRelInfo *rinfo);

#endif							/* PF_MODIFY_H */
