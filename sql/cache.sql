--
-- cache: the per-backend footer cache.  A file planned again is served from
-- the cache; a file replaced (new inode) or rewritten in place (new size,
-- mtime) is read again, never served stale; a scan keeps the footer it
-- started with even when the cache drops it; parquet_fdw.footer_cache_size
-- bounds the cache.
--
-- test/data/scan/rowgroups.parquet: 20480 rows, id = 1..20480 in 10 row groups of
-- 2048 (sum 209725440); examples/sample.parquet: 1000 rows, id = 1..1000
-- (sum 500500), one row group.  The test copies them over a file of its own
-- in the data directory with COPY ... TO PROGRAM.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
\set sample :abs_srcdir '/examples/sample.parquet'
SELECT current_setting('data_directory') || '/pf_cache_test' AS dir \gset
\set f :dir '/t.parquet'
\set tmp :dir '/t.tmp'
\set setup 'rm -rf ' :dir ' && mkdir ' :dir ' && cp ' :rg ' ' :f
-- a new file (new inode) renamed over f: what a writer replacing a file does
\set replace_by_sample 'cp ' :sample ' ' :tmp ' && mv ' :tmp ' ' :f
\set replace_by_rg 'cp ' :rg ' ' :tmp ' && mv ' :tmp ' ' :f
-- the same inode rewritten
\set overwrite_by_sample 'cp ' :sample ' ' :f
\set cleanup 'rm -rf ' :dir ' pf_cache_damaged.parquet'

COPY (SELECT 1 WHERE false) TO PROGRAM :'setup';

CREATE SERVER cache_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE cache_t (id bigint) SERVER cache_srv OPTIONS (filename :'f');
CREATE FOREIGN TABLE cache_rg (id bigint) SERVER cache_srv OPTIONS (filename :'rg');

-- what the cache did since the last call: read footers, served footers
CREATE TEMP TABLE cache_snap AS SELECT * FROM parquet_footer_cache_info();
CREATE FUNCTION cache_delta(OUT footers_read boolean, OUT served_from_cache boolean)
LANGUAGE plpgsql AS $$
DECLARE cur record; prev record;
BEGIN
  SELECT * INTO cur FROM parquet_footer_cache_info();
  SELECT * INTO prev FROM cache_snap;
  footers_read := cur.misses > prev.misses;
  served_from_cache := cur.hits > prev.hits;
  UPDATE cache_snap SET hits = cur.hits, misses = cur.misses;
END $$;

-- ===== first read, then served from the cache
SELECT count(*), sum(id) FROM cache_t;
SELECT footers_read FROM cache_delta();
SELECT count(*), sum(id) FROM cache_t;
SELECT * FROM cache_delta();
-- planning alone
DO $$ BEGIN EXECUTE 'EXPLAIN SELECT * FROM cache_t'; END $$;
SELECT * FROM cache_delta();

-- ===== a file replaced: read again
COPY (SELECT 1 WHERE false) TO PROGRAM :'replace_by_sample';
SELECT count(*), sum(id) FROM cache_t;
SELECT footers_read FROM cache_delta();
COPY (SELECT 1 WHERE false) TO PROGRAM :'replace_by_rg';
SELECT count(*), sum(id) FROM cache_t;
SELECT footers_read FROM cache_delta();
-- rewritten in place (same inode, another size)
COPY (SELECT 1 WHERE false) TO PROGRAM :'overwrite_by_sample';
SELECT count(*), sum(id) FROM cache_t;
SELECT footers_read FROM cache_delta();
COPY (SELECT 1 WHERE false) TO PROGRAM :'replace_by_rg';

-- ===== an open scan keeps its footer (and file) while the file is
-- replaced and the cache is emptied under it
BEGIN;
DECLARE cur CURSOR FOR SELECT id FROM cache_t WHERE id % 5000 = 0;
FETCH 1 FROM cur;
COPY (SELECT 1 WHERE false) TO PROGRAM :'replace_by_sample';
-- a new scan sees the new file
SELECT count(*), sum(id) FROM cache_t;
-- drop every entry nobody uses
SET LOCAL parquet_fdw.footer_cache_size = 0;
SELECT count(*) FROM cache_rg;
SELECT entries FROM parquet_footer_cache_info();
-- row groups 4, 7 and 9 of the old file, read after it was replaced
FETCH ALL FROM cur;
COMMIT;
SELECT count(*), sum(id) FROM cache_t;

-- ===== the size limit
SET parquet_fdw.footer_cache_size = 0;
SELECT count(*) FROM cache_t;
SELECT count(*) FROM cache_rg;
SELECT entries, bytes FROM parquet_footer_cache_info();
RESET parquet_fdw.footer_cache_size;
SELECT count(*) FROM cache_rg;
SELECT entries, bytes > 0 AS has_bytes FROM parquet_footer_cache_info();
-- room for this one footer only: the least recently used goes
SELECT bytes / 1024 + 1 AS one_kb, evictions AS evictions_before
  FROM parquet_footer_cache_info() \gset
SET parquet_fdw.footer_cache_size = :one_kb;
SELECT count(*) FROM cache_t;
SELECT entries, evictions > :evictions_before AS evicted,
       bytes <= :one_kb * 1024 AS within_limit
  FROM parquet_footer_cache_info();
RESET parquet_fdw.footer_cache_size;

-- ===== pins: a scan an error unwinds never unpins its footer; the end of
-- the transaction drops every pin.  A damaged page in row group 5 of id
-- (its header overwritten with 0xff), written with a large object.
SET parquet_fdw.enable_aggregate_pushdown = off;  -- the scan reads the rows
SELECT lo_from_bytea(0, overlay(pg_read_binary_file(:'rg')
         placing decode(repeat('ff', 64), 'hex')
         from (SELECT data_page_offset::int + 1 FROM parquet_metadata(:'rg')
                WHERE row_group = 5 AND path = 'id'))) AS lo \gset
SELECT lo_export(:lo, 'pf_cache_damaged.parquet'), lo_unlink(:lo);
CREATE FOREIGN TABLE cache_bad (id bigint) SERVER cache_srv
  OPTIONS (filename 'pf_cache_damaged.parquet');
SELECT pinned FROM parquet_footer_cache_info();
BEGIN;
DECLARE cur2 CURSOR FOR SELECT id FROM cache_rg WHERE id % 5000 = 0;
FETCH 1 FROM cur2;
DO $$
BEGIN
  PERFORM count(id) FROM cache_bad;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'scan failed: %', SQLSTATE;
END $$;
-- the unwound scan's pin and the cursor's
SELECT pinned FROM parquet_footer_cache_info();
-- the subtransaction's abort closed the cursor's descriptor: reopened
FETCH ALL FROM cur2;
SELECT count(*), sum(id) FROM cache_rg;
COMMIT;
SELECT pinned FROM parquet_footer_cache_info();
DO $$
BEGIN
  PERFORM count(id) FROM cache_bad;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'scan failed: %', SQLSTATE;
END $$;
SELECT pinned FROM parquet_footer_cache_info();
RESET parquet_fdw.enable_aggregate_pushdown;

-- ===== folder listings: a folder of 300 partition folders (listings of
-- 256 entries and more are kept once the folder has not changed for 2 s)
-- is listed again when an entry is added or removed, never served stale
\set parts :dir '/parts'
\set make_parts 'mkdir ' :parts ' && for i in $(seq 1 300); do mkdir ' :parts '/k=$i && cp ' :sample ' ' :parts '/k=$i/data.parquet; done'
\set add_part 'mkdir ' :parts '/k=301 && cp ' :sample ' ' :parts '/k=301/data.parquet'
\set drop_part 'rm -r ' :parts '/k=7'
COPY (SELECT 1 WHERE false) TO PROGRAM :'make_parts';
SELECT pg_sleep(2.2);
CREATE FOREIGN TABLE cache_parts (id bigint, k int) SERVER cache_srv OPTIONS (filename :'parts');
SELECT count(*), count(DISTINCT k), sum(id) FROM cache_parts;
SELECT count(*), sum(id) FROM cache_parts WHERE k = 7;
COPY (SELECT 1 WHERE false) TO PROGRAM :'add_part';
SELECT count(*), max(k) FROM cache_parts;
SELECT count(*), sum(id) FROM cache_parts WHERE k = 301;
COPY (SELECT 1 WHERE false) TO PROGRAM :'drop_part';
SELECT count(*) FROM cache_parts WHERE k = 7;
SELECT count(*), count(DISTINCT k) FROM cache_parts;

-- ===== a missing file, then the cache works
COPY (SELECT 1 WHERE false) TO PROGRAM :'cleanup';
DO $$
BEGIN
  PERFORM count(*) FROM cache_t;
EXCEPTION WHEN undefined_file THEN
  RAISE NOTICE 'file gone: %', SQLSTATE;
END $$;
SELECT count(*), sum(id) FROM cache_rg;

DROP SERVER cache_srv CASCADE;
