-- stale_plan: a file replaced between planning and execution.  A plan
-- chooses units (row groups, stripes) of the file it saw; executed over
-- another file those units would give part of its rows without a word.
-- The execution checks each file's identity (size, modification time,
-- inode) against the plan's, refuses with 55000, and resets cached plans
-- so that the next run is planned for the file as it is now.
\getenv abs_srcdir PG_ABS_SRCDIR
\set src_a :abs_srcdir '/test/data/sorted/a.parquet'
\set src_b :abs_srcdir '/test/data/sorted/unsorted.parquet'
SELECT current_setting('data_directory') || '/pf_stale.parquet' AS target \gset
SELECT format('cat >/dev/null; cp %s %s', :'src_a', :'target') AS cp_a,
       format('cat >/dev/null; cp %s %s', :'src_b', :'target') AS cp_b \gset
CREATE SERVER stale_srv FOREIGN DATA WRAPPER parquet_fdw;
COPY (SELECT 1 WHERE false) TO PROGRAM :'cp_a';
SELECT parquet_create_foreign_table('stale_t', 'stale_srv', :'target');

-- messages without the data directory's path
CREATE FUNCTION stale_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  EXECUTE q INTO r;
  RETURN r::text;
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || replace(SQLERRM, current_setting('data_directory'), '$PGDATA');
END $$;

SET plan_cache_mode = force_generic_plan;
PREPARE agg AS SELECT count(*), sum(k) FROM stale_t;
PREPARE scan AS SELECT count(k), min(k), max(k) FROM (SELECT k FROM stale_t OFFSET 0) s;
SELECT stale_try('EXECUTE agg'), stale_try('EXECUTE scan');
SELECT count(*), sum(k) FROM stale_t;

-- the file is replaced by one with more row groups: refused, not a part
COPY (SELECT 1 WHERE false) TO PROGRAM :'cp_b';
SELECT stale_try('EXECUTE agg');
-- planned anew: the whole new file
SELECT stale_try('EXECUTE agg');
-- the same for a plain scan (no aggregate pushdown)
PREPARE scan2 AS SELECT count(k), min(k), max(k) FROM (SELECT k FROM stale_t OFFSET 0) s;
SELECT stale_try('EXECUTE scan2');
COPY (SELECT 1 WHERE false) TO PROGRAM :'cp_a';
SELECT stale_try('EXECUTE scan2');
SELECT stale_try('EXECUTE scan2');
-- what a fresh query reads, for comparison
SELECT count(*), sum(k) FROM stale_t;
SELECT count(k), min(k), max(k) FROM stale_t;

-- the same for an Amudai shard (stripes of 1000 rows), rewritten by
-- parquet_fdw_write_amudai (a new file renamed over the path)
SELECT current_setting('data_directory') || '/pf_stale.amudai.shard' AS shard \gset
SELECT parquet_fdw_write_amudai('SELECT i AS k FROM generate_series(1, 3000) i', :'shard', 1000);
CREATE FOREIGN TABLE stale_am (k int) SERVER stale_srv OPTIONS (filename :'shard');
PREPARE am_scan AS SELECT count(k), min(k), max(k) FROM (SELECT k FROM stale_am OFFSET 0) s;
PREPARE am_agg AS SELECT count(*), sum(k) FROM stale_am;
SELECT stale_try('EXECUTE am_scan'), stale_try('EXECUTE am_agg');
SELECT parquet_fdw_write_amudai('SELECT i AS k FROM generate_series(1, 5000) i', :'shard', 1000);
SELECT stale_try('EXECUTE am_agg');
SELECT stale_try('EXECUTE am_agg'), stale_try('EXECUTE am_scan');
SELECT parquet_fdw_write_amudai('SELECT i AS k FROM generate_series(1, 2000) i', :'shard', 1000);
SELECT stale_try('EXECUTE am_scan');
SELECT stale_try('EXECUTE am_scan');
SELECT count(*), sum(k) FROM stale_am;

RESET plan_cache_mode;
DROP SERVER stale_srv CASCADE;
DROP FUNCTION stale_try(text);
SELECT format('rm -f %s %s; cat >/dev/null', :'target', :'shard') AS rm_target \gset
COPY (SELECT 1 WHERE false) TO PROGRAM :'rm_target';
