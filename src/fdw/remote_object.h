/*-------------------------------------------------------------------------
 *
 * remote_object.h
 *	  One object of an object store read as a file: a PfcSource over
 *	  ranged GETs, fit for 10-100 ms per request.
 *
 * open() sends a HEAD (served from a per-statement cache when the same
 * URL was HEADed in this statement): the object's size and ETag.  Every
 * read carries If-Match on that ETag, so an object replaced while it is
 * read is an error (55000), never bytes of two versions.
 *
 * Requests are few and large:
 *  - the first read in the last 64 KiB fetches all of that tail in one
 *    suffix GET, so a Parquet footer (and usually its page indexes, which
 *    writers put just before it) costs one request; a larger footer costs
 *    a second one;
 *  - pf_remote_object_prefetch() fetches the byte ranges a row group will
 *    read (its projected column chunks) in one rmt_store_read_many call:
 *    near ranges coalesced, requests concurrent; fetch_tagged() does the
 *    same in the background for the row groups ahead, several at once.
 *    Later reads inside those ranges are copied from the buffers; taking
 *    the next row group's drops them, so memory stays at the row groups
 *    in flight (the caller's budget) and the one being read;
 *  - any other read under 64 KiB fetches the 256 KiB from its offset and
 *    keeps them until the next such read (metadata read piece by piece
 *    lies close together); a larger one is one ranged GET of exactly
 *    what was asked.
 *
 * read_at raises failed requests as PostgreSQL errors (pf_remote_report:
 * 58P01, 42501, 55000, 58030, or the pending cancel) instead of returning
 * an errno: the format layers allocate from memory contexts, so unwinding
 * through them leaks nothing, and the user sees the store's reason.
 *
 * IDENTIFICATION
 *	  src/fdw/remote_object.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PF_REMOTE_OBJECT_H
#define PF_REMOTE_OBJECT_H

#include "postgres.h"

#include "common/common.h"

/* Requests sent (retries included) and bytes received, for EXPLAIN. */
typedef struct PfRemoteStats
{
	int64		requests;
	int64		bytes_fetched;
} PfRemoteStats;

/* A byte range of the object a reader is about to read. */
typedef struct PfRemoteRange
{
	uint64		offset;
	uint64		len;
} PfRemoteRange;

typedef struct PfRemoteObject PfRemoteObject;

/*
 * The object's size and ETag (etag: at least 128 bytes), by a HEAD or from
 * this statement's earlier HEAD of the same URL and server, or from this
 * backend's HEAD less than parquet_fdw.remote_metadata_ttl seconds ago
 * (reads are bound to the ETag, so a stale one fails, never misleads).
 * Errors as pf_remote_report (58P01 when absent).
 */
extern void pf_remote_head(const char *url, Oid serverid, uint64 *size,
						   char *etag);

/*
 * Planning without waiting for the HEAD (the first wave of a scan shares
 * its round trip).  pf_remote_head_speculate: when this statement has not
 * asked about url, no identity is trusted (remote_metadata_ttl) and the
 * footer cache holds url's footer, the statement takes that footer's
 * identity for now (pf_remote_head returns it; true) and the planner may
 * start the reads its scan will begin with (pf_remote_object_speculate),
 * bound to that ETag.  It must then call pf_remote_settle before it plans
 * from anything it read: a HEAD, true when the object is unchanged; false
 * when it was replaced, and the statement's identity is now the new one
 * (plan again; the speculative reads are to be cancelled).  Settling an
 * identity that was not speculative returns true at once.
 */
extern bool pf_remote_head_speculate(const char *url, Oid serverid);
extern bool pf_remote_settle(const char *url, Oid serverid);

/* Ask about url again: its reads met another ETag (a 412). */
extern void pf_remote_forget(const char *url);

/*
 * Before a scan answers from what it did not read from the store this
 * statement (rows in a cached tail, row groups pruned by a cached footer):
 * an identity taken on trust (remote_metadata_ttl) and not yet confirmed
 * by a read is checked with a HEAD, 55000 when the object changed.
 * pf_remote_object_verify checks one object, pf_remote_verify_statement
 * every object this statement used.  No-ops when nothing is on trust.
 */
extern void pf_remote_object_verify(PfRemoteObject *obj);
extern void pf_remote_verify_statement(void);

/*
 * Parallel query: the leader hands its workers this statement's object
 * identities and the footer tails it holds (up to 16 MiB of them) in the
 * scan's DSM, so that a worker neither HEADs the objects nor fetches their
 * footers again.  pf_remote_handoff_estimate reserves the bytes for the
 * scan node key (MAXALIGNed); pf_remote_handoff_write fills them (never
 * more) and returns the bytes reserved (0: none, nothing written); each
 * worker calls pf_remote_handoff_read on them before its scan reads.
 */
extern Size pf_remote_handoff_estimate(const void *key);
extern Size pf_remote_handoff_write(const void *key, char *dst);
extern void pf_remote_handoff_read(const char *src);

extern PGDLLIMPORT int pf_remote_metadata_ttl_s;	/* parquet_fdw.remote_metadata_ttl */

/*
 * Open url (pf_remote_store decides the client and the privilege) in a
 * child context of cxt; pf_remote_object_close() frees it.
 */
extern PfRemoteObject *pf_remote_object_open(const char *url, Oid serverid,
											 MemoryContext cxt);
extern void pf_remote_object_close(PfRemoteObject *obj);

/* A PfcSource reading the object (valid until close). */
extern PfcSource pf_remote_object_source(PfRemoteObject *obj);
/* The object a source of pf_remote_object_source() reads; NULL: not one. */
extern PfRemoteObject *pf_remote_object_of(const PfcSource *source);
extern uint64 pf_remote_object_size(const PfRemoteObject *obj);
extern const char *pf_remote_object_etag(const PfRemoteObject *obj);
extern const char *pf_remote_object_url(const PfRemoteObject *obj);

/*
 * Add the requests and bytes of this object's reads from now on to stats
 * (NULL: count them nowhere).  A scan points it at its own counters when
 * it starts a unit, so objects shared through the footer cache charge the
 * scan that reads them.
 */
extern void pf_remote_object_charge(PfRemoteObject *obj, PfRemoteStats *stats);
/* Stop charging stats (when it is the one charged): its owner goes away. */
extern void pf_remote_object_uncharge(PfRemoteObject *obj, PfRemoteStats *stats);

/*
 * Fetch ranges (any order, may overlap) into buffers later reads are
 * served from, dropping the buffers taken before.  Ranges past the end
 * are an error of the file (read_at would give EIO); empty ones are
 * ignored.
 */
extern void pf_remote_object_prefetch(PfRemoteObject *obj,
									  const PfRemoteRange *ranges, int nranges);

/*
 * Sets of ranges fetched in the background, several at once, so the
 * store's latency overlaps decoding: each set is what one row group will
 * read, named by the caller's tag.  fetch_tagged() starts a set's requests
 * and returns (all sets share the store's connections); poll() lets every
 * set move without waiting (call it between batches); take_tagged() waits
 * (interruptibly) for that set alone and makes its buffers the ones reads
 * are served from, dropping those taken before: false when no set of that
 * tag is being fetched.  cancel_tagged() stops and frees a set the scan
 * will not read.  A read inside a set still being fetched takes it
 * itself.  pending_bytes(): the bytes of the sets not taken yet, the
 * caller's memory budget.  fetch_tagged() returns false, fetching
 * nothing, when 31 sets are held already.  Errors as pf_remote_report,
 * raised when a set is taken.
 */
extern bool pf_remote_object_fetch_tagged(PfRemoteObject *obj, int tag,
										  const PfRemoteRange *ranges,
										  int nranges);
extern void pf_remote_object_poll(PfRemoteObject *obj);
extern bool pf_remote_object_take_tagged(PfRemoteObject *obj, int tag);
extern void pf_remote_object_cancel_tagged(PfRemoteObject *obj, int tag);
extern uint64 pf_remote_object_pending_bytes(const PfRemoteObject *obj);

/*
 * A set fetched by planning, before any scan asks for it (see
 * pf_remote_head_speculate): no scan's tag, budget or buffers until a scan
 * of the same statement asks fetch_tagged() for the same tag and ranges it
 * holds, which adopts it (its requests and bytes are charged to that scan
 * then) instead of fetching again; asked for other ranges, it is dropped.
 * Nothing is fetched when no room is left.  Sets no scan adopted are
 * dropped when the transaction ends or the next statement begins, or by
 * cancel_speculative().
 */
extern void pf_remote_object_speculate(PfRemoteObject *obj, int tag,
									   const PfRemoteRange *ranges,
									   int nranges);
extern void pf_remote_object_cancel_speculative(PfRemoteObject *obj);

/*
 * A scan is done with the object: stop its background fetch and free the
 * buffers, which the footer cache would otherwise keep with the object.
 * Sets fetched by planning stay for the scan to come.
 */
extern void pf_remote_object_drop_buffers(PfRemoteObject *obj);

/*
 * EXPLAIN ANALYZE of a scan that read object-store URLs: in text format
 * one line "Requests: N  Bytes Fetched: N", else two properties.
 */
struct ExplainState;
extern void pf_explain_remote(const PfRemoteStats *stats, struct ExplainState *es);

/*
 * Memory for what is cached for one statement (HEADs, listings): emptied
 * when a new statement (or transaction) begins, which *generation then
 * tells (a cache whose generation differs holds nothing).
 */
extern MemoryContext pf_remote_statement_cxt(uint64 *generation);

/* The identity of a URL as plans record it: "size:etag". */
extern char *pf_remote_identity(const char *url, Oid serverid);

#endif							/* PF_REMOTE_OBJECT_H */
