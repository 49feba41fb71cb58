--
-- parallel: parallel foreign scans.  Participants (the leader too) claim
-- row groups one at a time from a counter shared in the DSM, so every row
-- group is read exactly once whatever the number of workers.
--
-- test/data/scan/rowgroups.parquet (test/data/scan/make_data.mjs): 20480 rows in 10 row groups
-- of 2048, id = 1..20480, grp = (id - 1) / 2048, n = id except NULL in row
-- group 3, s = 's' || lpad(id, 5, '0').  Expected values follow from these
-- formulas: sum(id) = 20480 * 20481 / 2 = 209725440; sum(n) = sum(id) minus
-- the ids 6145..8192 of row group 3 (14681088) = 195044352; the ids of group
-- g sum to 2048 * 2048 * g + 2048 * 2049 / 2 = 4194304 * g + 2098176.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
\set rg3 :rg ',' :rg ',' :rg

-- EXPLAIN with paths reduced to file names
CREATE FUNCTION par_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE query LOOP
    -- PostgreSQL 18 shows planning buffers and rows=N.00: read as 15 prints
    CONTINUE WHEN ln ~ '^ *(Planning:|Buffers: )';
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;

CREATE SERVER par_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE prg (id bigint, grp int, n int, d date, ts timestamp,
                          f float8, s text)
  SERVER par_srv OPTIONS (filename :'rg');
-- the same file three times: 30 row groups
CREATE FOREIGN TABLE prg3 (id bigint, grp int, n int, s text)
  SERVER par_srv OPTIONS (filename :'rg3');

-- parallel plans whatever their cost
SET parquet_fdw.enable_aggregate_pushdown = off;  -- aggregates here test the scan (sql/aggregate.sql tests the pushdown)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;

-- ===== a Gather over the parallel foreign scan
SELECT par_explain('EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM prg');
SELECT count(*), sum(id), count(n), sum(n), min(s), max(s), sum(f) FROM prg;
-- the workers really ran (their rows are in the result above); EXPLAIN
-- ANALYZE counts the row groups of all participants
SELECT line FROM par_explain('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
    SELECT sum(id) FROM prg') AS line WHERE line ~ 'Workers|Gather|Row Groups';
-- per group: each row group read exactly once
SELECT grp, count(*), sum(id), sum(id) = 4194304 * grp + 2098176 AS ok,
       min(s), max(s), count(n)
  FROM prg GROUP BY grp ORDER BY grp;
-- every value of every row, against the formulas
SELECT count(*) FROM prg WHERE s <> 's' || lpad(id::text, 5, '0')
   OR d <> date '2024-01-01' + ((id - 1) / 100)::int
   OR f <> id / 4.0 OR grp <> (id - 1) / 2048
   OR (n IS NULL) <> (grp = 3) OR n <> id;

-- the leader alone, and workers alone
SET parallel_leader_participation = off;
SELECT count(*), sum(id), count(n), sum(n) FROM prg;
RESET parallel_leader_participation;
SET max_parallel_workers = 0;
SELECT count(*), sum(id), count(n), sum(n) FROM prg;
RESET max_parallel_workers;

-- ===== several files: row groups of all of them in one list
SELECT par_explain('EXPLAIN (COSTS OFF) SELECT count(*) FROM prg3');
SELECT count(*), sum(id), count(n), sum(n), count(DISTINCT id) FROM prg3;

-- ===== pruning: at plan time, and at run time with an InitPlan's value
-- evaluated in the leader and passed to the workers
SELECT par_explain('EXPLAIN (COSTS OFF) SELECT sum(id) FROM prg WHERE id <= 4096');
SELECT count(*), sum(id) FROM prg WHERE id <= 4096;
-- (from PostgreSQL 17 EXPLAIN names an InitPlan's value (InitPlan 1).col1,
-- not $0, and Gather no longer lists it: expected/parallel_1.out)
SELECT par_explain('EXPLAIN (COSTS OFF)
    SELECT count(*), sum(id) FROM prg WHERE id > (SELECT 20000)');
SELECT count(*), sum(id) FROM prg WHERE id > (SELECT 20000);
SELECT count(*), sum(id) FROM prg3 WHERE id > (SELECT 20000);
-- 1 row group read, 9 skipped, whichever participant did it
SELECT line FROM par_explain('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
    SELECT sum(id) FROM prg WHERE id > (SELECT 20000)') AS line
  WHERE line ~ 'Row Groups|Workers Launched';

-- ===== rescans: a Gather on the inner side of a nested loop runs again
-- for each outer row, and the shared counter starts over each time
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
CREATE TEMP TABLE par_keys (x int);
INSERT INTO par_keys VALUES (0), (1), (9);
ANALYZE par_keys;
SELECT par_explain('EXPLAIN (COSTS OFF)
    SELECT x, count(*), sum(id) FROM par_keys JOIN prg ON prg.grp = par_keys.x
    GROUP BY x ORDER BY x');
SELECT x, count(*), sum(id) FROM par_keys JOIN prg ON prg.grp = par_keys.x
  GROUP BY x ORDER BY x;
-- three rounds of 10 row groups
SELECT line FROM par_explain('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
    SELECT x, count(*) FROM par_keys JOIN prg ON prg.grp = par_keys.x
    GROUP BY x') AS line
  WHERE line ~ 'Row Groups|Gather';
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- ===== LIMIT: the workers stop early
SELECT par_explain('EXPLAIN (COSTS OFF) SELECT id FROM prg LIMIT 3');
SELECT count(*) FROM (SELECT id FROM prg LIMIT 3) s;
SELECT id, s FROM prg ORDER BY id LIMIT 3;
SELECT id FROM prg ORDER BY id DESC LIMIT 2;

-- ===== a serial plan run in a worker (force_parallel_mode)
SET max_parallel_workers_per_gather = 0;
-- force_parallel_mode is named debug_parallel_query from PostgreSQL 16 on
SELECT CASE WHEN current_setting('server_version_num')::int < 160000
  THEN 'force_parallel_mode' ELSE 'debug_parallel_query' END AS debug_parallel \gset
SET :debug_parallel = on;
SELECT count(*), sum(id), count(n), sum(n) FROM prg;
RESET :debug_parallel;

-- serial again: the same answers
SELECT par_explain('EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM prg');
SELECT count(*), sum(id), count(n), sum(n), min(s), max(s), sum(f) FROM prg;

DROP SERVER par_srv CASCADE;
