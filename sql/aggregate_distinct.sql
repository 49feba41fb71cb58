--
-- aggregate_distinct: pushed-down count(DISTINCT x).  Integers, floats
-- and booleans are kept as raw (value, group) pairs (agg_distinct.c) and
-- spilled past work_mem as raw records by hash, recursively; text goes
-- through the distinct's dictionary, each entry of a dictionary-coded
-- row group looked up once.
--
-- distinct_same() runs a query over the foreign tables with pushdown on
-- and over the heap table, compares the results as multisets of rows as
-- text, and says whether the foreign query was pushed down and wrote
-- temporary blocks.
--
LOAD 'parquet_fdw';
SET extra_float_digits = 3;
SET max_parallel_workers_per_gather = 0;
SELECT current_setting('data_directory') || '/pf_distinct_dict.parquet' AS dict_file \gset
SELECT current_setting('data_directory') || '/pf_distinct_plain.parquet' AS plain_file \gset

CREATE SERVER distinct_srv FOREIGN DATA WRAPPER parquet_fdw;
-- i = 1..120000: i8 nearly all distinct, i4 and i2 fewer, floats with
-- NaN and both zeros, t from a few hundred words, u nearly all distinct,
-- g 5000 groups, h 7 groups, NULLs in every column
CREATE TABLE distinct_heap (g int, h text, i2 smallint, i4 int, i8 bigint,
    f4 real, f8 float8, b boolean, t text, u text);
INSERT INTO distinct_heap
SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE i % 5000 END,
       CASE WHEN i % 83 = 0 THEN NULL ELSE 'h' || (i % 7) END,
       CASE WHEN i % 29 = 0 THEN NULL ELSE (i % 20011 - 10000)::smallint END,
       CASE WHEN i % 31 = 0 THEN NULL ELSE (i * 7919) % 60013 - 30000 END,
       CASE WHEN i % 37 = 0 THEN NULL
            ELSE (i::bigint * 2654435761) % 100000007 * 1000000007 END,
       CASE WHEN i % 41 = 0 THEN NULL WHEN i % 43 = 0 THEN 'NaN'::real
            WHEN i % 47 = 0 THEN '-0'::real ELSE (i % 3001) / 4.0 END,
       CASE WHEN i % 53 = 0 THEN NULL WHEN i % 59 = 0 THEN 'NaN'::float8
            WHEN i % 61 = 0 THEN '-0'::float8 WHEN i % 67 = 0 THEN 0
            ELSE (i % 40009) * 0.5 END,
       CASE WHEN i % 71 = 0 THEN NULL ELSE i % 3 = 0 END,
       CASE WHEN i % 73 = 0 THEN NULL ELSE 'word-' || (i * 31 % 457) END,
       CASE WHEN i % 79 = 0 THEN NULL ELSE md5((i % 90000)::text) END
FROM generate_series(1, 120000) i;
COPY distinct_heap TO :'dict_file' (FORMAT parquet, row_group_size 20000);
COPY distinct_heap TO :'plain_file' (FORMAT parquet, row_group_size 20000,
    dictionary false);
CREATE FOREIGN TABLE distinct_dict (g int, h text, i2 smallint, i4 int,
    i8 bigint, f4 real, f8 float8, b boolean, t text, u text)
  SERVER distinct_srv OPTIONS (filename :'dict_file');
CREATE FOREIGN TABLE distinct_plain (g int, h text, i2 smallint, i4 int,
    i8 bigint, f4 real, f8 float8, b boolean, t text, u text)
  SERVER distinct_srv OPTIONS (filename :'plain_file');

\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION distinct_same(q text, ft text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', ft);
  pushed bool;
  spilled bool;
  d record;
BEGIN
  PERFORM set_config('parquet_fdw.enable_aggregate_pushdown', 'on', true);
  pushed := pf_plan_has(qf, 'Aggregate Pushdown');
  spilled := pf_plan_has(qf, 'temp .*written=',
                         'ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF');
  SELECT * INTO d FROM pf_diff(qf, replace(q, 'TBL', 'distinct_heap'));
  RETURN CASE WHEN pushed THEN 'pushed' ELSE 'not pushed' END ||
         CASE WHEN spilled THEN ', spilled' ELSE '' END ||
         ', ' || CASE WHEN d.rows_a = 0 THEN -1 ELSE d.differences END || ' differences';
END $$;

-- enough memory: nothing spilled
SET work_mem = '64MB';
SELECT distinct_same($$SELECT count(DISTINCT i8), count(DISTINCT i4), count(DISTINCT i2),
  count(DISTINCT f4), count(DISTINCT f8), count(DISTINCT b), count(DISTINCT t),
  count(DISTINCT u), count(*) FROM TBL$$, ft) FROM (VALUES ('distinct_dict'), ('distinct_plain')) v(ft);
SELECT distinct_same($$SELECT g, count(DISTINCT i8), count(DISTINCT t), count(DISTINCT f8)
  FROM TBL GROUP BY g$$, ft) FROM (VALUES ('distinct_dict'), ('distinct_plain')) v(ft);

-- 64kB: the pairs spill, partitions spill again
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT distinct_same($$SELECT count(DISTINCT i8) FROM TBL$$, 'distinct_dict');
SELECT distinct_same($$SELECT count(DISTINCT i8), count(DISTINCT i4), count(DISTINCT i2),
  count(DISTINCT f4), count(DISTINCT f8), count(DISTINCT b), count(*) FROM TBL$$, 'distinct_dict');
SELECT distinct_same($$SELECT count(DISTINCT t), count(DISTINCT u) FROM TBL$$, ft)
  FROM (VALUES ('distinct_dict'), ('distinct_plain')) v(ft);
-- few groups, many groups (the groups spill too), two keys
SELECT distinct_same($$SELECT h, count(DISTINCT i8), count(DISTINCT i4), count(DISTINCT t),
  sum(i2), count(*) FROM TBL GROUP BY h$$, ft) FROM (VALUES ('distinct_dict'), ('distinct_plain')) v(ft);
SELECT distinct_same($$SELECT g, count(DISTINCT i8), count(DISTINCT u), count(DISTINCT f4),
  max(i4) FROM TBL GROUP BY g$$, 'distinct_dict');
SELECT distinct_same($$SELECT h, b, count(DISTINCT i4), count(DISTINCT i2) FROM TBL
  GROUP BY h, b$$, 'distinct_dict');
-- expressions, a filter, HAVING, the same column twice
SELECT distinct_same($$SELECT count(DISTINCT i4 + 1), count(DISTINCT i8 / 1000) FROM TBL$$,
  'distinct_dict');
SELECT distinct_same($$SELECT h, count(DISTINCT i8) FROM TBL WHERE i4 > 0
  GROUP BY h HAVING count(DISTINCT i8) > 100$$, 'distinct_dict');
SELECT distinct_same($$SELECT count(DISTINCT t), count(DISTINCT t), count(t) FROM TBL
  WHERE t > 'word-2'$$, 'distinct_dict');
-- the answers themselves, pushed
SELECT count(DISTINCT i8), count(DISTINCT b), count(DISTINCT t) FROM distinct_dict;
SELECT count(DISTINCT i8), count(DISTINCT b), count(DISTINCT t) FROM distinct_heap;

-- the smallest bigint (the one value the one-group table flags apart),
-- with and without spilling
SELECT current_setting('data_directory') || '/pf_distinct_min.parquet' AS min_file \gset
CREATE TABLE distinct_min_heap AS
SELECT CASE WHEN i % 5 = 0 THEN -9223372036854775808 WHEN i % 5 = 1 THEN 0
            WHEN i % 5 = 2 THEN NULL ELSE i END::bigint AS x
FROM generate_series(1, 30000) i;
COPY distinct_min_heap TO :'min_file' (FORMAT parquet, row_group_size 7000);
CREATE FOREIGN TABLE distinct_min (x bigint) SERVER distinct_srv OPTIONS (filename :'min_file');
SELECT (SELECT count(DISTINCT x) FROM distinct_min) AS pushed,
       (SELECT count(DISTINCT x) FROM distinct_min_heap) AS heap;
SET work_mem = '64MB';
SELECT (SELECT count(DISTINCT x) FROM distinct_min) AS pushed,
       (SELECT count(DISTINCT x) FROM distinct_min_heap) AS heap;
SET work_mem = '64kB';
DO $$
DECLARE
  ln text;
  pushed boolean := false;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) SELECT count(DISTINCT x) FROM distinct_min' LOOP
    IF ln ~ 'Aggregate Pushdown' THEN pushed := true; END IF;
  END LOOP;
  RAISE NOTICE 'pushed: %', pushed;
END $$;
DROP FOREIGN TABLE distinct_min;
DROP TABLE distinct_min_heap;

-- a rescan counts again (its spill files from the start)
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
SELECT distinct_same($$SELECT x, c FROM generate_series(1, 3) x,
  LATERAL (SELECT count(DISTINCT i8) + x AS c FROM TBL) s$$, 'distinct_dict');
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_material;

RESET work_mem;
RESET hash_mem_multiplier;
DROP FOREIGN TABLE distinct_dict, distinct_plain;
DROP TABLE distinct_heap;
DROP FUNCTION distinct_same(text, text);
DROP SERVER distinct_srv;
