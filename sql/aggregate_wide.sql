--
-- aggregate_wide: pushed-down GROUP BY on integer and date keys whatever
-- the range of their values (bigint keys at -2^63 and 2^63-1, keys whose
-- row-group statistics span more than 2^31 values), NULL keys, several
-- keys mixed with text, and a tiny work_mem that spills them.  Each query
-- runs over the foreign table with pushdown on and over a heap table
-- holding the same rows; wide_same() compares the results as multisets
-- of rows as text and says whether the foreign query was pushed down and
-- whether it wrote temporary blocks.
--
LOAD 'parquet_fdw';
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 3;
SELECT current_setting('data_directory') || '/pf_wide.parquet' AS wide_file \gset

CREATE SERVER wide_srv FOREIGN DATA WRAPPER parquet_fdw;
-- i = 1..20000: b spread over the whole bigint range (each value 1..3
-- times, the two extremes included), i4 over the whole int range, s a
-- smallint, d dates 4000 years apart, t a text of 50 values, NULLs in all
CREATE TABLE wide_heap (b bigint, i4 int, s smallint, d date, t text, v int, f float8);
INSERT INTO wide_heap
SELECT CASE WHEN i % 97 = 0 THEN NULL
            WHEN i % 1000 = 1 THEN -9223372036854775808
            WHEN i % 1000 = 2 THEN 9223372036854775807
            ELSE ((i % 9000) - 4500)::bigint * 2049638230412172 END AS b,
       CASE WHEN i % 89 = 0 THEN NULL
            ELSE ((i % 7000) - 3500) * 613566 END AS i4,
       CASE WHEN i % 83 = 0 THEN NULL ELSE (i % 300 - 150) * 200 END AS s,
       CASE WHEN i % 79 = 0 THEN NULL
            ELSE date '0500-01-01' + (i % 5000) * 292 END AS d,
       CASE WHEN i % 73 = 0 THEN NULL ELSE 'tag-' || (i % 50) END AS t,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1000 - 5000000 END AS v,
       CASE WHEN i % 17 = 0 THEN NULL ELSE i * 0.1::float8 END AS f
FROM generate_series(1, 20000) i;
COPY wide_heap TO :'wide_file' (FORMAT parquet, row_group_size 4000);
CREATE FOREIGN TABLE wide_ft (b bigint, i4 int, s smallint, d date, t text, v int, f float8)
  SERVER wide_srv OPTIONS (filename :'wide_file');

\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION wide_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', 'wide_ft');
  pushed bool;
  spilled bool;
  d record;
BEGIN
  PERFORM set_config('parquet_fdw.enable_aggregate_pushdown', 'on', true);
  pushed := pf_plan_has(qf, 'Aggregate Pushdown');
  spilled := pf_plan_has(qf, 'temp .*written=',
                         'ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF');
  SELECT * INTO d FROM pf_diff(qf, replace(q, 'TBL', 'wide_heap'), false, '{enable_sort=off}');
  RETURN CASE WHEN pushed THEN 'pushed' ELSE 'not pushed' END ||
         CASE WHEN spilled THEN ', spilled' ELSE '' END ||
         ', ' || CASE WHEN d.rows_a = 0 THEN -1 ELSE d.differences END || ' differences';
END $$;

SET max_parallel_workers_per_gather = 0;

-- the statistics of b and i4 span the whole range: pushed all the same
SELECT min(b), max(b), min(i4), max(i4), min(d), max(d) FROM wide_heap;
SELECT wide_same($$SELECT b, count(*), sum(v), avg(f) FROM TBL GROUP BY b$$);
SELECT wide_same($$SELECT i4, count(*), min(v), max(t) FROM TBL GROUP BY i4$$);
SELECT wide_same($$SELECT s, d, count(*), sum(v) FROM TBL GROUP BY s, d$$);
-- the extremes and the NULL key are groups of their own
SELECT b, count(*) FROM wide_ft
WHERE b IN (-9223372036854775808, 9223372036854775807) GROUP BY b ORDER BY b;
SELECT b, count(*) FROM wide_ft WHERE b IS NULL GROUP BY b;
-- several keys mixed with text
SELECT wide_same($$SELECT t, b, count(*), sum(f) FROM TBL GROUP BY t, b$$);
SELECT wide_same($$SELECT b, t, i4, d, count(*), count(v) FROM TBL GROUP BY b, t, i4, d$$);
SELECT wide_same($$SELECT d, count(DISTINCT b), count(*) FROM TBL GROUP BY d$$);

-- a tiny work_mem: the groups of the wide keys spill, the answer is the same
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT wide_same($$SELECT b, count(*), sum(v), avg(f) FROM TBL GROUP BY b$$);
SELECT wide_same($$SELECT i4, b, count(*), min(v) FROM TBL GROUP BY i4, b$$);
SELECT wide_same($$SELECT t, b, d, count(*), sum(v) FROM TBL GROUP BY t, b, d$$);
SELECT wide_same($$SELECT b, count(DISTINCT i4) FROM TBL GROUP BY b$$);
RESET work_mem;
RESET hash_mem_multiplier;

DROP FOREIGN TABLE wide_ft;
DROP TABLE wide_heap;
DROP SERVER wide_srv;
