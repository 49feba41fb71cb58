--
-- aggregate_amudai: aggregate pushdown over Amudai shards.
--
-- A heap table holds the rows of the aggregate test's Parquet file
-- (test/data/aggregate/aggregate.parquet, see sql/aggregate.sql), but
-- for "wide" divided by 10^4 (an Amudai decimal holds 34 digits at most),
-- and parquet_fdw_write_amudai writes them, in the same order, to a shard
-- in stripes of 2048 rows.  agg_am_same() runs each query of sql/aggregate.sql
-- over the shard with pushdown on and compares it, row by row as text,
-- with the same query over the heap table (PostgreSQL's own aggregates)
-- and, when it does not read "wide", over the Parquet table (the Parquet
-- pushdown), and says whether the shard's query was pushed down.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set agg :abs_srcdir '/test/data/aggregate/aggregate.parquet'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 3;
SET max_parallel_workers_per_gather = 0;
SELECT current_setting('data_directory') || '/pf_agg_am.amudai.shard' AS shard
\gset

CREATE SERVER agg_am_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE agg_pq (
    l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate date, q2 numeric(9,2), wide numeric(38,4),
    i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, fn float8, b boolean)
  SERVER agg_am_srv OPTIONS (filename :'agg');
CREATE TABLE agg_heap AS
  SELECT l_orderkey, l_quantity, l_extendedprice, l_discount, l_tax,
         l_returnflag, l_linestatus, l_shipdate, q2,
         (wide / 10000)::numeric(38,4) AS wide, i2, i4, i8, f4, f8, fn, b
  FROM agg_pq ORDER BY l_orderkey;
SELECT parquet_fdw_write_amudai('SELECT * FROM agg_heap', :'shard', 2048);
CREATE FOREIGN TABLE agg_am (
    l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate date, q2 numeric(9,2), wide numeric(38,4),
    i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, fn float8, b boolean)
  SERVER agg_am_srv OPTIONS (filename :'shard');
-- the shard and the heap hold the same rows
SELECT count(*) AS rows_not_in_both FROM
  ((SELECT * FROM agg_am EXCEPT ALL SELECT * FROM agg_heap)
   UNION ALL (SELECT * FROM agg_heap EXCEPT ALL SELECT * FROM agg_am)) d;

-- Query q with TBL read as the shard (pushdown on), the heap table and the
-- Parquet table (pushdown on): 'pushed' or 'not pushed' for the shard, and
-- the rows that differ (as text) from the heap's and from the Parquet
-- table's results.  Sorts are off: float sums depend on the order of the
-- additions, and a hash aggregate adds in scan order, as the pushdown does.
\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION agg_am_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qa text := replace(q, 'TBL', 'agg_am');
  pushed bool;
  d_heap bigint;
  d_pq text := 'n/a';
BEGIN
  PERFORM set_config('parquet_fdw.enable_aggregate_pushdown', 'on', true);
  PERFORM set_config('enable_sort', 'off', true);
  pushed := pf_plan_has(qa, 'Aggregate Pushdown');
  SELECT differences INTO d_heap FROM pf_diff(qa, replace(q, 'TBL', 'agg_heap'), true);
  IF q !~ 'wide' THEN
    SELECT differences::text INTO d_pq FROM pf_diff(qa, replace(q, 'TBL', 'agg_pq'), true);
  END IF;
  PERFORM set_config('enable_sort', 'on', true);
  RETURN CASE WHEN pushed THEN 'pushed' ELSE 'not pushed' END ||
         ', ' || d_heap || ' differences from heap, ' || d_pq || ' from Parquet';
END $$;

-- EXPLAIN with paths reduced to file names, without memory sizes
CREATE FUNCTION agg_am_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE query LOOP
    CONTINUE WHEN ln ~ 'Peak Memory';
    -- PostgreSQL 18 shows planning buffers and rows=N.00: read as 15 prints
    CONTINUE WHEN ln ~ '^ *(Planning:|Buffers: )';
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    -- PostgreSQL 17 dropped "(returns $0)" after an InitPlan: print as 17
    ln := regexp_replace(ln, 'InitPlan ([0-9]+) \(returns [$][0-9]+\)', 'InitPlan \1');
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;

-- ===== the plan: stripes instead of row groups, no statistics shortcuts
SELECT agg_am_explain($$EXPLAIN (COSTS OFF)
SELECT l_returnflag, l_linestatus, sum(l_quantity), avg(l_extendedprice), count(*)
FROM agg_am WHERE l_shipdate <= DATE '1998-12-01' - 90
GROUP BY l_returnflag, l_linestatus$$);
SELECT agg_am_explain($$EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*), sum(l_quantity) FROM agg_am WHERE l_orderkey >= (SELECT 10000::bigint)$$);
SELECT count(*), sum(l_quantity) FROM agg_am WHERE l_orderkey >= (SELECT 10000::bigint);
SELECT count(*), sum(l_quantity) FROM agg_heap WHERE l_orderkey >= (SELECT 10000::bigint);
SELECT agg_am_explain($$EXPLAIN (COSTS OFF) SELECT count(*), min(i8), max(l_shipdate) FROM agg_am$$);

-- ===== the queries of sql/aggregate.sql over its Parquet table
SELECT agg_am_same($$
SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
       sum(l_extendedprice * (1 - l_discount)),
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
       avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*)
FROM TBL WHERE l_shipdate <= DATE '1998-12-01' - 90
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus$$);
SELECT agg_am_same($$
SELECT sum(l_extendedprice * l_discount) FROM TBL
WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24$$);
SELECT agg_am_same($$
SELECT sum(i2), sum(i4), sum(i8), avg(i2), avg(i4), avg(i8),
  min(i2), max(i2), min(i4), max(i4), min(i8), max(i8) FROM TBL$$);
SELECT agg_am_same($$
SELECT sum(i8), avg(i8), sum(i8 - 4611686018427387904) FROM TBL$$);
SELECT agg_am_same($$
SELECT sum(q2), avg(q2), min(q2), max(q2), sum(q2 * q2 * q2),
  sum(q2 - 1.005), sum(q2 + l_tax * 2) FROM TBL$$);
SELECT agg_am_same($$
SELECT sum(wide), avg(wide), min(wide), max(wide),
  sum(wide * wide), sum(wide * l_tax), avg(wide - q2) FROM TBL$$);
SELECT agg_am_same($$
SELECT l_linestatus, sum(wide), sum(wide * wide * wide)
  FROM TBL GROUP BY l_linestatus ORDER BY 1$$);
SELECT agg_am_same($$
SELECT sum(f4), avg(f4), sum(f8), avg(f8), min(f8), max(f8),
  sum(f8 * 3.3), sum(f4 * f4), sum(f8 - f4) FROM TBL$$);
SELECT agg_am_same($$
SELECT min(fn), max(fn), sum(fn), avg(fn), count(fn)
  FROM TBL WHERE l_orderkey > 5$$);
SELECT agg_am_same($$
SELECT b, sum(fn), max(fn), min(fn) FROM TBL GROUP BY b ORDER BY b$$);
SELECT agg_am_same($$
SELECT l_returnflag, min(l_shipdate), max(l_shipdate)
  FROM TBL GROUP BY 1 ORDER BY 1$$);
SELECT agg_am_same($$
SELECT count(*), count(i4), sum(i4), avg(i4), min(i4), max(i4)
  FROM TBL WHERE l_quantity > 1000$$);
SELECT agg_am_same($$
SELECT l_returnflag, b, count(*), count(b), sum(i4), max(l_extendedprice)
  FROM TBL GROUP BY l_returnflag, b ORDER BY 1, 2$$);
SELECT agg_am_same($$
SELECT l_shipdate, count(*) FROM TBL GROUP BY l_shipdate ORDER BY 1$$);
SELECT agg_am_same($$
SELECT i2, count(*), sum(i4) FROM TBL GROUP BY i2 ORDER BY 1$$);
SELECT agg_am_same($$
SELECT l_linestatus, l_returnflag, count(*) FROM TBL
  GROUP BY l_returnflag, l_linestatus ORDER BY 1, 2$$);
SELECT agg_am_same($$
SELECT lower(l_returnflag) || '-' || l_linestatus AS k,
  sum(l_quantity) / count(*), max(i4) - min(i4) FROM TBL
  GROUP BY l_returnflag, l_linestatus ORDER BY 1, 2$$);
SELECT agg_am_same($$
SELECT l_returnflag, sum(l_quantity) FROM TBL GROUP BY 1
  HAVING avg(i4) > 1000000 OR min(l_shipdate) < '1992-01-02' ORDER BY 1$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL HAVING count(*) > 50000$$);
SELECT agg_am_same($$
SELECT generate_series(1, 2), count(*) FROM TBL$$);
SELECT agg_am_same($$
SELECT l_returnflag FROM TBL GROUP BY l_returnflag ORDER BY 1$$);
SELECT agg_am_same($$
SELECT count(*), sum(l_quantity) FROM TBL
  WHERE l_returnflag = 'N' AND l_linestatus <> 'F'$$);
SELECT agg_am_same($$
SELECT count(*), sum(i4) FROM TBL WHERE i4 >= 0 AND i4 < 2000000$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE i2 BETWEEN -100 AND 100$$);
SELECT agg_am_same($$
SELECT count(*), sum(l_tax) FROM TBL WHERE l_tax > 0.035 AND l_tax <= 0.07$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_discount = 0.055$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_discount <> 0.055$$);
SELECT agg_am_same($$
SELECT count(*), sum(q2) FROM TBL WHERE q2 < -3.333 AND q2 >= -5.5$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE wide > 5000000000000000000000000000000000.5$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE wide < 9000000000000000000000000000000000.99995$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE wide >= 99999999999999999999999999999999999999$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_discount < 1e40 AND q2 > -1e40$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE q2 <= -0.00000000000000000000000000000000000000001$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE q2 = 0.00000000000000000000000000000000000000001$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_discount <> 'NaN' AND l_tax < 'Infinity'$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_discount >= 'NaN'$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_discount > '-Infinity'$$);
SELECT agg_am_same($$
SELECT count(*), sum(f8) FROM TBL WHERE fn > 2000 AND f4 <= 1200.5$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE fn = 'NaN'$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE fn >= 'NaN'$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE fn < 'Infinity'$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE f4 > 1000::float8$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE b = true$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE b <> true$$);
SELECT agg_am_same($$
SELECT count(*), count(b) FROM TBL WHERE NOT b AND l_quantity < 20$$);
SELECT agg_am_same($$
SELECT count(*), sum(l_quantity) FROM TBL
  WHERE l_shipdate BETWEEN '1995-01-01' AND '1995-06-30'$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_shipdate > '-infinity'$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_orderkey < 5000000000$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_returnflag < 'N' COLLATE "C"$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE 100 > l_quantity$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_quantity = NULL::numeric$$);
SELECT agg_am_same($$
SELECT count(*), sum(l_quantity) FROM TBL WHERE i4 IN (1000, 2000, -4999000, NULL)$$);
SELECT agg_am_same($$
SELECT l_linestatus, count(*) FROM TBL WHERE l_returnflag IN ('A', 'R', 'x') GROUP BY 1 ORDER BY 1$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_shipdate IN ('1994-01-01', '1995-03-04') AND l_discount IN (0.05, 0.055, 0.1)$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE fn IN ('NaN', 2.5, '-Infinity') AND q2 IN (0.001, 0.0)$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_quantity IN (0.005, 1e40)$$);
SELECT agg_am_same($$
SELECT count(*), count(l_shipdate) FROM TBL WHERE l_shipdate IS NULL$$);
SELECT agg_am_same($$
SELECT l_returnflag IS NULL, count(*) FROM TBL WHERE l_returnflag IS NOT NULL AND b IS NULL GROUP BY 1 ORDER BY 1$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_quantity < 10 OR l_tax > 0.05$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_quantity < l_tax * 100$$);
SELECT agg_am_same($$
SELECT count(DISTINCT l_quantity) FROM TBL$$);
-- count(DISTINCT) of coded columns
SELECT agg_am_same($$
SELECT count(DISTINCT l_returnflag) FROM TBL$$);
SELECT agg_am_same($$
SELECT l_linestatus, count(DISTINCT l_returnflag), count(DISTINCT l_shipdate),
  count(DISTINCT i2), count(DISTINCT b), count(*) FROM TBL GROUP BY 1 ORDER BY 1$$);
SELECT agg_am_same($$
SELECT sum(l_quantity) FILTER (WHERE i4 > 0) FROM TBL$$);
SELECT agg_am_same($$
SELECT min(l_returnflag || l_linestatus), max(l_linestatus) FROM TBL$$);
SELECT agg_am_same($$
SELECT sum(l_quantity / 2) FROM TBL$$);
SELECT agg_am_same($$
SELECT l_orderkey % 3, count(*) FROM TBL GROUP BY 1 ORDER BY 1$$);
SELECT agg_am_same($$
SELECT i4, count(*) FROM TBL GROUP BY 1 ORDER BY 1$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_returnflag LIKE 'N%'$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE i4 IN (1000, i2)$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_returnflag NOT IN ('A', 'R')$$);
SELECT agg_am_same($$
SELECT string_agg(l_returnflag, '') FROM TBL WHERE l_orderkey < 10$$);
SELECT agg_am_same($$
SELECT sum(l_quantity), random() >= 0 FROM TBL$$);
SELECT agg_am_same($$
SELECT sum(i4 + i2), sum(i2 - i4), avg(i4 * 2), count(i4 + i2),
  sum(i8 - i4), sum(i2 * 2) FROM TBL$$);
SELECT agg_am_same($$
SELECT l_linestatus, sum(i4 + i2), sum(q2 * l_tax), sum(f8 - f4 * 0.5)
  FROM TBL GROUP BY 1 ORDER BY 1$$);
SELECT agg_am_same($$
SELECT sum(i2 * i2 * i2) FROM TBL WHERE i2 BETWEEN -1000 AND 1000$$);
SELECT agg_am_same($$
SELECT count(*), min(l_quantity), max(l_extendedprice), count(l_returnflag) FROM TBL$$);
SELECT agg_am_same($$
SELECT x, (SELECT count(*) FROM TBL WHERE l_quantity < x) FROM generate_series(1, 3) x$$);
SELECT agg_am_same($$
SELECT x, (SELECT string_agg(l_returnflag || ':' || c, ',')
  FROM (SELECT l_returnflag, count(*) c FROM TBL WHERE x > l_quantity GROUP BY 1 ORDER BY 1) s)
  FROM generate_series(1, 3) x$$);
SELECT agg_am_same($$
SELECT x, s.* FROM generate_series(1, 3) x, LATERAL (SELECT l_linestatus,
  count(*), sum(i4) FROM TBL WHERE l_orderkey < x * 100 GROUP BY 1) s ORDER BY 1, 2$$);
SELECT agg_am_same($$
SELECT count(*) FROM TBL WHERE l_shipdate < (SELECT max(l_shipdate) FROM TBL) - 1000$$);
SELECT agg_am_same($$
SELECT l_orderkey, l_returnflag, count(*), sum(f8), avg(l_quantity),
  min(l_shipdate), sum(wide) FROM TBL GROUP BY 1, 2 ORDER BY 1, 2$$);
SELECT agg_am_same($$
SELECT l_returnflag, l_shipdate, i2, count(*), sum(fn)
  FROM TBL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3$$);
SELECT agg_am_same($$
SELECT x, count(*), sum(c) FROM generate_series(1, 3) x,
  (SELECT l_orderkey, count(*) c FROM TBL GROUP BY 1) s
  WHERE s.l_orderkey % 1000 = x GROUP BY x ORDER BY 1$$);
SELECT agg_am_same($$
SELECT l_returnflag, l_linestatus, count(*), sum(l_extendedprice * (1 - l_discount)),
  avg(l_quantity), sum(f8), min(l_shipdate) FROM TBL WHERE l_shipdate <= DATE '1998-09-02'
  GROUP BY 1, 2 ORDER BY 1, 2$$);

-- ===== generic plans: parameters evaluated at each execution
SET plan_cache_mode = force_generic_plan;
PREPARE am_p(bigint, numeric) AS
  SELECT l_returnflag, count(*), sum(l_extendedprice), min(l_orderkey)
  FROM agg_am WHERE l_orderkey < $1 AND l_discount >= $2
  GROUP BY l_returnflag ORDER BY l_returnflag;
PREPARE heap_p(bigint, numeric) AS
  SELECT l_returnflag, count(*), sum(l_extendedprice), min(l_orderkey)
  FROM agg_heap WHERE l_orderkey < $1 AND l_discount >= $2
  GROUP BY l_returnflag ORDER BY l_returnflag;
SELECT agg_am_explain('EXPLAIN (COSTS OFF) EXECUTE am_p(3000, 0.05)');
EXECUTE am_p(3000, 0.05);
EXECUTE heap_p(3000, 0.05);
EXECUTE am_p(11000, 0.09);
EXECUTE heap_p(11000, 0.09);
RESET plan_cache_mode;
DEALLOCATE am_p;
DEALLOCATE heap_p;

-- more groups and pairs than work_mem holds: spilled from the shard's
-- converted values (aggregate_spill tests the Parquet side)
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT agg_am_same($$
SELECT l_orderkey, l_returnflag, count(*), sum(f8), avg(l_quantity), min(l_shipdate),
  count(DISTINCT i2) FROM TBL GROUP BY 1, 2 ORDER BY 1, 2$$);
SELECT agg_am_same($$
SELECT l_linestatus, count(DISTINCT l_orderkey), count(DISTINCT l_shipdate), sum(wide)
  FROM TBL GROUP BY 1 ORDER BY 1$$);
RESET work_mem;
RESET hash_mem_multiplier;

DROP TABLE agg_heap;
DROP FUNCTION agg_am_same(text);
DROP FUNCTION agg_am_explain(text);
DROP SERVER agg_am_srv CASCADE;
