--
-- aggregate_spill: pushed-down GROUP BY with more groups than work_mem
-- holds.  The groups that fit stay in memory, the rows of the others are
-- spilled to temporary files by key hash and aggregated partition by
-- partition (recursively), the Parquet file being read once.
--
-- A heap table is written to Parquet by COPY TO in row groups of 5000
-- rows; spill_same() runs a query over the foreign table with pushdown on
-- and over the heap table (PostgreSQL's own aggregates, which add floats
-- in scan order as the pushdown does), compares the results as multisets
-- of rows as text, and says whether the foreign query was pushed down and
-- wrote temporary blocks.
--
LOAD 'parquet_fdw';
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 3;
SELECT current_setting('data_directory') || '/pf_spill.parquet' AS spill_file \gset

CREATE SERVER spill_srv FOREIGN DATA WRAPPER parquet_fdw;
-- i = 1..30000: k mostly distinct (each of 1..3000 twice more), NULL keys,
-- v, n, w, f, r with NULLs, d 400 dates, b by i % 3
CREATE TABLE spill_heap (k text, k2 int, d date, b boolean, v int,
    n numeric(12,2), w numeric(38,4), f float8, r real, i8 bigint);
INSERT INTO spill_heap
SELECT CASE WHEN i % 101 = 0 THEN NULL
            WHEN i <= 24000 THEN 'key-' || md5(i::text)
            ELSE 'key-' || md5((i % 3000)::text) END AS k,
       CASE WHEN i % 53 = 0 THEN NULL ELSE i % 7000 END AS k2,
       CASE WHEN i % 89 = 0 THEN NULL ELSE date '2020-01-01' + i % 400 END AS d,
       CASE WHEN i % 10 = 0 THEN NULL ELSE i % 3 = 0 END AS b,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1000 - 5000000 END AS v,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 1.25 - 300)::numeric(12,2) END AS n,
       CASE WHEN i % 13 = 0 THEN NULL
            ELSE ((i % 10)::numeric * 10^30 + i / 10000.0)::numeric(38,4) END AS w,
       CASE WHEN i % 17 = 0 THEN NULL ELSE i * 0.1::float8 END AS f,
       CASE WHEN i % 19 = 0 THEN NULL ELSE (i / 8.0)::float4 END AS r,
       i::bigint AS i8
FROM generate_series(1, 30000) i;
COPY spill_heap TO :'spill_file' (FORMAT parquet, row_group_size 5000);
CREATE FOREIGN TABLE spill_ft (k text, k2 int, d date, b boolean, v int,
    n numeric(12,2), w numeric(38,4), f float8, r real, i8 bigint)
  SERVER spill_srv OPTIONS (filename :'spill_file');

\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION spill_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', 'spill_ft');
  pushed bool;
  spilled bool;
  d record;
BEGIN
  PERFORM set_config('parquet_fdw.enable_aggregate_pushdown', 'on', true);
  pushed := pf_plan_has(qf, 'Aggregate Pushdown');
  spilled := pf_plan_has(qf, 'temp .*written=',
                         'ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF');
  SELECT * INTO d FROM pf_diff(qf, replace(q, 'TBL', 'spill_heap'), false, '{enable_sort=off}');
  RETURN CASE WHEN pushed THEN 'pushed' ELSE 'not pushed' END ||
         CASE WHEN spilled THEN ', spilled' ELSE '' END ||
         ', ' || CASE WHEN d.rows_a = 0 THEN -1 ELSE d.differences END || ' differences';
END $$;

SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SET max_parallel_workers_per_gather = 0;

-- one text key, nearly all distinct: several levels of partitions
SELECT spill_same($$SELECT k, count(*), count(v), sum(v), avg(v), sum(n), avg(n),
  min(n), max(n), sum(w), avg(w), min(d), max(d), sum(f), avg(f), min(f), sum(r),
  max(r), max(i8), min(k), max(k) FROM TBL GROUP BY k$$);
-- min and max of text in few and many groups, by the column's collation
SELECT spill_same($$SELECT b, min(k), max(k), count(k) FROM TBL GROUP BY b$$);
SELECT spill_same($$SELECT k2, min(k), max(k), count(*) FROM TBL GROUP BY k2$$);
SELECT spill_same($$SELECT min(k), max(k) FROM TBL WHERE k2 > 100$$);
-- two keys (int, date), NULLs in both
SELECT spill_same($$SELECT k2, d, count(*), sum(n), avg(f), max(v)
  FROM TBL GROUP BY k2, d$$);
-- three keys, one of them boolean
SELECT spill_same($$SELECT b, k2, k, count(*), sum(v), min(w)
  FROM TBL GROUP BY b, k2, k$$);
-- HAVING on the aggregates, a filter on a column
SELECT spill_same($$SELECT k, count(*), sum(v) FROM TBL
  GROUP BY k HAVING count(*) > 1 AND sum(v) > 0$$);
SELECT spill_same($$SELECT k2, count(*), avg(n) FROM TBL
  WHERE v > 1000000 AND d <= DATE '2020-12-31' GROUP BY k2$$);
-- expressions of columns as arguments
SELECT spill_same($$SELECT k, sum(n * 2 + 1), sum(v - 7), avg(f * 3) FROM TBL GROUP BY k$$);
-- only the keys
SELECT spill_same($$SELECT k, d FROM TBL GROUP BY k, d$$);
-- no text kept: fixed-size rows read back column by column; nine columns
-- (a null bitmap of two bytes), 16-byte decimals
SELECT spill_same($$SELECT k2, d, b, count(*), sum(v), sum(n), sum(w), min(w), sum(f),
  max(r), max(i8) FROM TBL GROUP BY k2, d, b$$);
-- text keys longer than a spill block (8 kB), some NULL, among short ones
SELECT current_setting('data_directory') || '/pf_spill_long.parquet' AS spill_long_file \gset
CREATE TABLE spill_heap_long AS
SELECT CASE WHEN i % 97 = 0 THEN NULL
            WHEN i % 50 = 0 THEN repeat(md5(i::text), 400)
            ELSE md5(i::text) END AS k,
       i % 5 AS g
FROM generate_series(1, 4000) i;
COPY spill_heap_long TO :'spill_long_file' (FORMAT parquet, row_group_size 1000);
CREATE FOREIGN TABLE spill_ft_long (k text, g int)
  SERVER spill_srv OPTIONS (filename :'spill_long_file');
SELECT spill_same($$SELECT length(k), k, count(*), sum(g), max(k) FROM TBL_long GROUP BY k$$);

-- the groups that fit: none spilled with enough memory
SET work_mem = '64MB';
SELECT spill_same($$SELECT k, count(*), sum(v), sum(f) FROM TBL GROUP BY k$$);
SET work_mem = '64kB';

-- a rescan aggregates again, spilling again
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
SELECT spill_same($$SELECT x, count(*), sum(c) FROM generate_series(1, 3) x,
  (SELECT k2, count(*) c FROM TBL GROUP BY k2) s
  WHERE s.k2 % 1000 = x GROUP BY x$$);
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_material;

-- count(DISTINCT): (group, value) pairs, the new ones spilled past memory
-- (no float sums here: PostgreSQL sorts for DISTINCT, adding in another order)
-- by the hash of (keys, value) and counted partition by partition
SELECT spill_same($$SELECT count(DISTINCT k), count(DISTINCT k2), count(DISTINCT d),
  count(DISTINCT b), count(*), sum(v) FROM TBL$$);
SELECT spill_same($$SELECT b, count(DISTINCT k), count(DISTINCT i8), count(*) FROM TBL GROUP BY b$$);
SELECT spill_same($$SELECT k2, count(DISTINCT k), count(DISTINCT d), sum(v), max(f)
  FROM TBL GROUP BY k2$$);
SELECT spill_same($$SELECT k, count(DISTINCT k2), count(DISTINCT k), max(n) FROM TBL GROUP BY k$$);
SELECT spill_same($$SELECT d, count(DISTINCT k2) FROM TBL WHERE v > 0
  GROUP BY d HAVING count(DISTINCT k2) > 10$$);
SET work_mem = '64MB';
SELECT spill_same($$SELECT b, d, count(DISTINCT k), count(DISTINCT k2) FROM TBL GROUP BY b, d$$);
SET work_mem = '64kB';
-- not pushed: a value's expression, a type not coded
SELECT spill_same($$SELECT count(DISTINCT v + 1) FROM TBL$$);
SELECT spill_same($$SELECT count(DISTINCT n) FROM TBL$$);

-- the peak memory of the scan stays near work_mem's size while spilling
-- (batches and file buffers aside), far below the groups' own size
CREATE FUNCTION spill_peak_kb(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF ln ~ 'Peak Memory' THEN
      RETURN substring(ln from 'Peak Memory: ([0-9]+)')::bigint;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
SELECT spill_peak_kb('SELECT k, count(*), sum(v) FROM spill_ft GROUP BY k') AS peak_spill \gset
SET work_mem = '64MB';
SELECT spill_peak_kb('SELECT k, count(*), sum(v) FROM spill_ft GROUP BY k') AS peak_memory \gset
SELECT :peak_spill * 2 < :peak_memory AS spill_takes_less_memory;
RESET work_mem;
RESET hash_mem_multiplier;
RESET max_parallel_workers_per_gather;
