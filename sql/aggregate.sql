--
-- aggregate: aggregate pushdown (parquet_fdw.enable_aggregate_pushdown).
--
-- Every pushed query runs twice, with pushdown on and off, and
-- agg_same() checks that the two results are equal as text, row by row
-- (so numeric display scales, float digits and NULLs must match exactly what
-- PostgreSQL's own aggregates give), and says whether the query was pushed
-- down.  Printed results were also checked against DuckDB over the same
-- files and against the formulas below.
--
-- test/data/aggregate/aggregate.parquet (DuckDB dictionaries) and aggregate_plain.parquet
-- (no dictionaries), from test/data/aggregate/make_aggregate.mjs: 12000 rows, i = 0..11999:
--   l_orderkey = i, l_quantity = 1 + i % 50, l_extendedprice = 900 +
--   ((i * 7919) % 1000000) / 100, l_discount = (i % 11) / 100, l_tax =
--   (i % 9) / 100 (all numeric(15,2), INT64), l_returnflag 'A'/'N'/'R' by
--   i % 3 (NULL when i % 97 = 0), l_linestatus 'F'/'O' by (i / 5) % 2,
--   l_shipdate = 1992-01-01 + (i * 13) % 2500 (NULL when i % 89 = 0),
--   q2 numeric(9,2) (INT32) = ((i % 2000) - 1000) / 100, wide numeric(38,4)
--   (FIXED_LEN_BYTE_ARRAY) = (i % 10) * 10^33 + (i % 10000) / 10^4,
--   i2 = i % 30000 - 15000, i4 = i * 1000 - 5000000 (NULL when i % 7 = 0),
--   i8 = 2^62 + i, f4 = i / 8, f8 = i * 0.1, fn = i / 4 (NaN when
--   i % 4001 = 0, -Infinity when i = 5), b = i % 3 = 0 (NULL when i % 10 = 0).
-- test/data/scan/rowgroups.parquet: see sql/scan.sql.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set agg :abs_srcdir '/test/data/aggregate/aggregate.parquet'
\set aggplain :abs_srcdir '/test/data/aggregate/aggregate_plain.parquet'
\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 3;

CREATE SERVER agg_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE agg (
    l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate date, q2 numeric(9,2), wide numeric(38,4),
    i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, fn float8, b boolean)
  SERVER agg_srv OPTIONS (filename :'agg');
CREATE FOREIGN TABLE aggplain (
    l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate date, q2 numeric(9,2), wide numeric(38,4),
    i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, fn float8, b boolean)
  SERVER agg_srv OPTIONS (filename :'aggplain');
CREATE FOREIGN TABLE rg (id bigint, grp int, n int, d date, ts timestamp,
                         f float8, s text)
  SERVER agg_srv OPTIONS (filename :'rg');

-- Run query q with pushdown on and off: 'pushed' or 'not pushed', and the
-- number of rows that differ (as text) between the two results.  Sorts
-- are discouraged: float sums depend on the order of the additions, and a
-- hash aggregate adds in scan order, as the pushdown does, where a sort
-- (not stable) may reorder the rows of a group.
\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION agg_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  pushed bool;
  diff bigint;
BEGIN
  PERFORM set_config('parquet_fdw.enable_aggregate_pushdown', 'on', true);
  PERFORM set_config('enable_sort', 'off', true);
  pushed := pf_plan_has(q, 'Aggregate Pushdown');
  SELECT differences INTO diff
    FROM pf_diff(q, q, true, '{parquet_fdw.enable_aggregate_pushdown=off}');
  PERFORM set_config('enable_sort', 'on', true);
  RETURN CASE WHEN pushed THEN 'pushed' ELSE 'not pushed' END ||
         ', ' || diff || ' differences';
END $$;

-- EXPLAIN with paths reduced to file names, without memory sizes
CREATE FUNCTION agg_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE query LOOP
    -- PostgreSQL 18 shows planning buffers and rows=N.00: read as 15 prints
    CONTINUE WHEN ln ~ '^ *(Planning:|Buffers: )';
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    CONTINUE WHEN ln ~ 'Peak Memory';
    ln := regexp_replace(ln, 'Partition Passes: [0-9]+', 'Partition Passes: several');
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;

-- ===== TPC-H Q1 and Q6 shapes: the planner folds the date arithmetic
SELECT agg_explain($$EXPLAIN (VERBOSE, COSTS OFF)
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty,
       sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price,
       avg(l_discount) AS avg_disc, count(*) AS count_order
FROM agg WHERE l_shipdate <= DATE '1998-12-01' - 90
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus$$);
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty,
       sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price,
       avg(l_discount) AS avg_disc, count(*) AS count_order
FROM agg WHERE l_shipdate <= DATE '1998-12-01' - 90
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus;
SELECT agg_same($$
SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
       sum(l_extendedprice * (1 - l_discount)),
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
       avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*)
FROM agg WHERE l_shipdate <= DATE '1998-12-01' - 90
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus$$);
SELECT agg_same($$
SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
       sum(l_extendedprice * (1 - l_discount)),
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
       avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*)
FROM aggplain WHERE l_shipdate <= DATE '1998-12-01' - 90
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus$$);

SELECT agg_explain($$EXPLAIN (COSTS OFF)
SELECT sum(l_extendedprice * l_discount) AS revenue FROM agg
WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24$$);
SELECT sum(l_extendedprice * l_discount) AS revenue FROM agg
WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24;
SELECT agg_same($$
SELECT sum(l_extendedprice * l_discount) FROM agg
WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24$$);
SELECT agg_same($$
SELECT sum(l_extendedprice * l_discount) FROM aggplain
WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24$$);

-- ===== result types and display scales
SELECT agg_same($$SELECT sum(i2), sum(i4), sum(i8), avg(i2), avg(i4), avg(i8),
  min(i2), max(i2), min(i4), max(i4), min(i8), max(i8) FROM agg$$);
SELECT pg_typeof(sum(i2)), pg_typeof(sum(i4)), pg_typeof(sum(i8)),
       pg_typeof(avg(i4)), pg_typeof(sum(f4)), pg_typeof(avg(f4)),
       pg_typeof(sum(q2)), pg_typeof(min(l_shipdate)) FROM agg;
-- i8 = 2^62 + i: the sum passes 2^63 (numeric, exact):
-- 12000 * 2^62 + 11999 * 12000 / 2 = 55340232221128654848000 + 71994000
SELECT sum(i8), avg(i8), min(i8), max(i8) FROM agg;
SELECT agg_same($$SELECT sum(i8), avg(i8), sum(i8 - 4611686018427387904) FROM agg$$);
-- decimals: INT32 (q2), INT64, FIXED_LEN_BYTE_ARRAY beyond int128 (wide)
SELECT sum(q2), avg(q2), min(q2), max(q2), sum(q2 * q2), sum(q2 * 3) FROM agg;
SELECT agg_same($$SELECT sum(q2), avg(q2), min(q2), max(q2), sum(q2 * q2 * q2),
  sum(q2 - 1.005), sum(q2 + l_tax * 2) FROM agg$$);
-- sum(wide) = 1200 * 45 * 10^33 + (0..9999 + 0..1999) / 10^4
SELECT sum(wide), min(wide), max(wide), count(wide) FROM agg;
SELECT agg_same($$SELECT sum(wide), avg(wide), min(wide), max(wide),
  sum(wide * wide), sum(wide * l_tax), avg(wide - q2) FROM agg$$);
SELECT agg_same($$SELECT l_linestatus, sum(wide), sum(wide * wide * wide)
  FROM agg GROUP BY l_linestatus ORDER BY 1$$);
-- floats: sums in scan order, NaN and -Infinity
SELECT sum(f4), avg(f4), sum(f8), avg(f8), min(fn), max(fn), sum(fn) FROM agg;
SELECT agg_same($$SELECT sum(f4), avg(f4), sum(f8), avg(f8), min(f8), max(f8),
  sum(f8 * 3.3), sum(f4 * f4), sum(f8 - f4) FROM agg$$);
SELECT agg_same($$SELECT min(fn), max(fn), sum(fn), avg(fn), count(fn)
  FROM agg WHERE l_orderkey > 5$$);
SELECT agg_same($$SELECT b, sum(fn), max(fn), min(fn) FROM agg GROUP BY b ORDER BY b$$);
-- dates
SELECT min(l_shipdate), max(l_shipdate), count(l_shipdate) FROM agg;
SELECT agg_same($$SELECT l_returnflag, min(l_shipdate), max(l_shipdate)
  FROM agg GROUP BY 1 ORDER BY 1$$);

-- ===== NULLs, empty inputs, groups
SELECT agg_same($$SELECT count(*), count(i4), sum(i4), avg(i4), min(i4), max(i4)
  FROM agg WHERE l_quantity > 1000$$);
SELECT count(*), count(i4), sum(i4), avg(i4), min(l_shipdate), sum(wide)
  FROM agg WHERE l_quantity > 1000;
SELECT l_returnflag, count(*) FROM agg WHERE l_quantity > 1000 GROUP BY l_returnflag;
SELECT agg_same($$SELECT l_returnflag, b, count(*), count(b), sum(i4), max(l_extendedprice)
  FROM agg GROUP BY l_returnflag, b ORDER BY 1, 2$$);
SELECT agg_same($$SELECT l_shipdate, count(*) FROM agg GROUP BY l_shipdate ORDER BY 1$$);
SELECT agg_same($$SELECT i2, count(*), sum(i4) FROM agg GROUP BY i2 ORDER BY 1$$);
SELECT agg_same($$SELECT l_linestatus, l_returnflag, count(*) FROM agg
  GROUP BY l_returnflag, l_linestatus ORDER BY 1, 2$$);
-- expressions over the aggregates and the keys, in the projection
SELECT agg_same($$SELECT lower(l_returnflag) || '-' || l_linestatus AS k,
  sum(l_quantity) / count(*), max(i4) - min(i4) FROM agg
  GROUP BY l_returnflag, l_linestatus ORDER BY 1$$);
-- HAVING: the ForeignScan's filter over the groups
SELECT agg_explain($$EXPLAIN (COSTS OFF) SELECT l_returnflag, count(*) FROM agg
  GROUP BY 1 HAVING count(*) > 3958 AND l_returnflag <> 'R' ORDER BY 1$$);
SELECT l_returnflag, count(*) FROM agg
  GROUP BY 1 HAVING count(*) > 3958 AND l_returnflag <> 'R' ORDER BY 1;
SELECT agg_same($$SELECT l_returnflag, sum(l_quantity) FROM agg GROUP BY 1
  HAVING avg(i4) > 1000000 OR min(l_shipdate) < '1992-01-02' ORDER BY 1$$);
SELECT agg_same($$SELECT count(*) FROM agg HAVING count(*) > 50000$$);
-- set-returning functions in the target list: not pushed
SELECT agg_same($$SELECT generate_series(1, 2), count(*) FROM agg$$);
-- GROUP BY without aggregates
SELECT agg_same($$SELECT l_returnflag FROM agg GROUP BY l_returnflag ORDER BY 1$$);

-- ===== filters: each comparison and type
SELECT agg_same($$SELECT count(*), sum(l_quantity) FROM agg
  WHERE l_returnflag = 'N' AND l_linestatus <> 'F'$$);
SELECT agg_same($$SELECT count(*), sum(i4) FROM agg WHERE i4 >= 0 AND i4 < 2000000$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE i2 BETWEEN -100 AND 100$$);
SELECT agg_same($$SELECT count(*), sum(l_tax) FROM agg WHERE l_tax > 0.035 AND l_tax <= 0.07$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_discount = 0.055$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_discount <> 0.055$$);
SELECT agg_same($$SELECT count(*), sum(q2) FROM agg WHERE q2 < -3.333 AND q2 >= -5.5$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE wide > 5000000000000000000000000000000000.5$$);
-- decimal values of any size and scale: beyond int128, NaN, infinities,
-- more decimals than the column
SELECT agg_same($$SELECT count(*) FROM agg WHERE wide < 9000000000000000000000000000000000.99995$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE wide >= 99999999999999999999999999999999999999$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_discount < 1e40 AND q2 > -1e40$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE q2 <= -0.00000000000000000000000000000000000000001$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE q2 = 0.00000000000000000000000000000000000000001$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_discount <> 'NaN' AND l_tax < 'Infinity'$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_discount >= 'NaN'$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_discount > '-Infinity'$$);
SELECT agg_same($$SELECT count(*), sum(f8) FROM agg WHERE fn > 2000 AND f4 <= 1200.5$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE fn = 'NaN'$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE fn >= 'NaN'$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE fn < 'Infinity'$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE f4 > 1000::float8$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE b = true$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE b <> true$$);
SELECT agg_same($$SELECT count(*), count(b) FROM agg WHERE NOT b AND l_quantity < 20$$);
SELECT agg_same($$SELECT count(*), sum(l_quantity) FROM agg
  WHERE l_shipdate BETWEEN '1995-01-01' AND '1995-06-30'$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_shipdate > '-infinity'$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_orderkey < 5000000000$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_returnflag < 'N' COLLATE "C"$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE 100 > l_quantity$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_quantity = NULL::numeric$$);
-- IN lists and IS [NOT] NULL
SELECT agg_same($$SELECT count(*), sum(l_quantity) FROM agg WHERE i4 IN (1000, 2000, -4999000, NULL)$$);
SELECT agg_same($$SELECT l_linestatus, count(*) FROM agg WHERE l_returnflag IN ('A', 'R', 'x') GROUP BY 1 ORDER BY 1$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_shipdate IN ('1994-01-01', '1995-03-04') AND l_discount IN (0.05, 0.055, 0.1)$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE fn IN ('NaN', 2.5, '-Infinity') AND q2 IN (0.001, 0.0)$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_quantity IN (0.005, 1e40)$$);
SELECT agg_same($$SELECT count(*), count(l_shipdate) FROM agg WHERE l_shipdate IS NULL$$);
SELECT agg_same($$SELECT l_returnflag IS NULL, count(*) FROM agg WHERE l_returnflag IS NOT NULL AND b IS NULL GROUP BY 1 ORDER BY 1$$);

-- ===== min and max of text (see also aggregate_spill)
SELECT agg_same($$SELECT l_linestatus, min(l_returnflag), max(l_returnflag), count(*)
  FROM agg GROUP BY 1 ORDER BY 1$$);
SELECT agg_same($$SELECT min(l_linestatus), max(l_returnflag) FROM agg WHERE i2 > 0$$);

-- ===== count(DISTINCT) of coded columns (see also aggregate_spill)
SELECT agg_same($$SELECT count(DISTINCT l_returnflag) FROM agg$$);
SELECT agg_same($$SELECT l_linestatus, count(DISTINCT l_returnflag), count(DISTINCT l_shipdate),
  count(DISTINCT i2), count(DISTINCT b), count(*) FROM agg GROUP BY 1 ORDER BY 1$$);

-- ===== not pushed down, same results
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_quantity < 10 OR l_tax > 0.05$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_quantity < l_tax * 100$$);
SELECT agg_same($$SELECT count(DISTINCT l_quantity) FROM agg$$);
SELECT agg_same($$SELECT sum(l_quantity) FILTER (WHERE i4 > 0) FROM agg$$);
SELECT agg_same($$SELECT min(l_returnflag || l_linestatus), max(l_linestatus) FROM agg$$);
SELECT agg_same($$SELECT sum(l_quantity / 2) FROM agg$$);
SELECT agg_same($$SELECT l_orderkey % 3, count(*) FROM agg GROUP BY 1 ORDER BY 1$$);
-- a key whose statistics span many values (i4: -4999000 .. 6999000): pushed,
-- groups beyond memory would spill (aggregate_spill)
SELECT agg_same($$SELECT i4, count(*) FROM agg GROUP BY 1 ORDER BY 1$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_returnflag LIKE 'N%'$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE i4 IN (1000, i2)$$);
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_returnflag NOT IN ('A', 'R')$$);
SELECT agg_same($$SELECT string_agg(l_returnflag, '') FROM agg WHERE l_orderkey < 10$$);
SELECT agg_same($$SELECT sum(l_quantity), random() >= 0 FROM agg$$);

-- integer arithmetic with NULLs (i4) and mixed widths
SELECT agg_same($$SELECT sum(i4 + i2), sum(i2 - i4), avg(i4 * 2), count(i4 + i2),
  sum(i8 - i4), sum(i2 * 2) FROM agg$$);
SELECT agg_same($$SELECT l_linestatus, sum(i4 + i2), sum(q2 * l_tax), sum(f8 - f4 * 0.5)
  FROM agg GROUP BY 1 ORDER BY 1$$);

-- ===== errors: as without pushdown
\set VERBOSITY terse
SELECT sum(i8 + i8) FROM agg;
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT sum(i8 + i8) FROM agg;
SET parquet_fdw.enable_aggregate_pushdown = on;
SELECT sum(i2 * i2 * i2) FROM agg;
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT sum(i2 * i2 * i2) FROM agg;
SET parquet_fdw.enable_aggregate_pushdown = on;
\set VERBOSITY default
-- no error where the overflowing rows are filtered out
SELECT agg_same($$SELECT sum(i2 * i2 * i2) FROM agg WHERE i2 BETWEEN -1000 AND 1000$$);

-- ===== statistics: count(*), count(col), min and max without decoding
SELECT agg_explain('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*), count(n), min(id), max(id), min(d), max(n) FROM rg');
SELECT count(*), count(n), min(id), max(id), min(d), max(n) FROM rg;
SELECT agg_same($$SELECT count(*), count(n), min(id), max(id), min(d), max(d), min(n), max(n) FROM rg$$);
SELECT agg_same($$SELECT count(*), min(l_quantity), max(l_extendedprice), count(l_returnflag) FROM agg$$);
-- a sum needs the values
SELECT agg_explain('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*), sum(id) FROM rg');
-- pruned row groups are not read (rows 2049..4096 = row group 1)
SELECT agg_explain('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*), sum(id) FROM rg WHERE id > 2048 AND id <= 4096');
SELECT count(*), sum(id) FROM rg WHERE id > 2048 AND id <= 4096;
-- IS NULL skips row groups without nulls: only row group 3 has n NULL
SELECT agg_explain('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*), min(id) FROM rg WHERE n IS NULL');
SELECT count(*), min(id) FROM rg WHERE n IS NULL;
-- and with a parameter's value, at run time: only row group 9 holds
-- id > 18432 (2048 rows, sum 2048 * (18433 + 20480) / 2 = 39846912)
PREPARE rgq(bigint) AS SELECT count(*), sum(id) FROM rg WHERE id > $1;
SET plan_cache_mode = force_generic_plan;
SELECT agg_explain('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE rgq(18432)');
EXECUTE rgq(18432);
RESET plan_cache_mode;
DEALLOCATE rgq;

-- ===== rescans, parameters, prepared statements, subqueries
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
SELECT x, s.l_returnflag, s.c FROM generate_series(1, 3) x,
  (SELECT l_returnflag, count(*) AS c FROM agg GROUP BY 1) s
  WHERE s.c > x ORDER BY 1, 2;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_material;
-- filters on parameters: their values are evaluated at each (re)scan
-- (l_quantity < x: x = 2 keeps quantity 1, 240 rows; x = 3, 480)
SELECT agg_explain($$EXPLAIN (COSTS OFF)
  SELECT x, (SELECT count(*) FROM agg WHERE l_quantity < x) FROM generate_series(1, 3) x$$);
SELECT x, (SELECT count(*) FROM agg WHERE l_quantity < x) FROM generate_series(1, 3) x;
SELECT agg_same($$SELECT x, (SELECT count(*) FROM agg WHERE l_quantity < x) FROM generate_series(1, 3) x$$);
SELECT agg_same($$SELECT x, (SELECT string_agg(l_returnflag || ':' || c, ',')
  FROM (SELECT l_returnflag, count(*) c FROM agg WHERE x > l_quantity GROUP BY 1 ORDER BY 1) s)
  FROM generate_series(1, 3) x$$);
SELECT agg_same($$SELECT x, s.* FROM generate_series(1, 3) x, LATERAL (SELECT l_linestatus,
  count(*), sum(i4) FROM agg WHERE l_orderkey < x * 100 GROUP BY 1) s ORDER BY 1, 2$$);
SELECT agg_same($$SELECT id FROM rg WHERE id = (SELECT max(id) FROM rg)$$);
-- an InitPlan's value: 7145 rows ship before 1998-11-04 - 1000 days
SELECT count(*) FROM agg WHERE l_shipdate < (SELECT max(l_shipdate) FROM agg) - 1000;
SELECT agg_same($$SELECT count(*) FROM agg WHERE l_shipdate < (SELECT max(l_shipdate) FROM agg) - 1000$$);
-- prepared statements, custom and generic plans (values from the formulas:
-- 712 rows with quantity < 10 and flag 'A', 1505 with < 20 and 'N')
PREPARE q(numeric, text) AS SELECT count(*), sum(l_quantity) FROM agg
  WHERE l_quantity < $1 AND l_returnflag = $2;
EXECUTE q(10, 'A');
SET plan_cache_mode = force_generic_plan;
SELECT agg_explain('EXPLAIN (COSTS OFF) EXECUTE q(10, ''A'')');
EXECUTE q(10, 'A');
EXECUTE q(20, 'N');
EXECUTE q(NULL, 'N');
RESET plan_cache_mode;
DEALLOCATE q;
-- the pushdown GUC at plan time
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT agg_explain('EXPLAIN (COSTS OFF) SELECT count(*) FROM agg');
RESET parquet_fdw.enable_aggregate_pushdown;

-- ===== more groups than memory allows: the rows of the groups that do not
-- fit are spilled to temporary files by key hash (each group's rows in scan
-- order) and aggregated partition by partition; the file is read once
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT agg_explain('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT l_orderkey, count(*), sum(f8) FROM agg GROUP BY 1');
SELECT agg_same($$SELECT l_orderkey, l_returnflag, count(*), sum(f8), avg(l_quantity),
  min(l_shipdate), sum(wide) FROM agg GROUP BY 1, 2 ORDER BY 1, 2$$);
SELECT agg_same($$SELECT l_returnflag, l_shipdate, i2, count(*), sum(fn)
  FROM agg GROUP BY 1, 2, 3 ORDER BY 1, 2, 3$$);
-- a rescan aggregates (and spills) again
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
SELECT agg_same($$SELECT x, count(*), sum(c) FROM generate_series(1, 3) x,
  (SELECT l_orderkey, count(*) c FROM agg GROUP BY 1) s
  WHERE s.l_orderkey % 1000 = x GROUP BY x ORDER BY 1$$);
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_material;
RESET work_mem;
RESET hash_mem_multiplier;

-- ===== in a parallel worker (the plan travels as text: every fdw_private
-- node must read back as written)
-- force_parallel_mode is named debug_parallel_query from PostgreSQL 16 on
SELECT CASE WHEN current_setting('server_version_num')::int < 160000
  THEN 'force_parallel_mode' ELSE 'debug_parallel_query' END AS debug_parallel \gset
SET :debug_parallel = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SELECT agg_same($$SELECT l_returnflag, l_linestatus, count(*), sum(l_extendedprice * (1 - l_discount)),
  avg(l_quantity), sum(f8), min(l_shipdate) FROM agg WHERE l_shipdate <= DATE '1998-09-02'
  GROUP BY 1, 2 ORDER BY 1, 2$$);
SELECT agg_same($$SELECT x, (SELECT count(*) FROM agg WHERE l_quantity < x) FROM generate_series(1, 3) x$$);
-- (CREATE TABLE AS may keep those in the leader; these run in the worker)
SELECT agg_explain('EXPLAIN (COSTS OFF) SELECT l_returnflag, count(*) FROM agg GROUP BY 1 ORDER BY 1');
SELECT l_returnflag, count(*) FROM agg GROUP BY 1 ORDER BY 1;
SELECT x, (SELECT count(*) FROM agg WHERE l_quantity < x) FROM generate_series(1, 3) x;
RESET :debug_parallel;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;

-- ===== several files: the groups span them
\set both :agg ', ' :aggplain
CREATE FOREIGN TABLE agg2 (
    l_orderkey bigint, l_quantity numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate date, i4 int, f8 float8)
  SERVER agg_srv OPTIONS (filename :'both');
SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity), avg(i4)
  FROM agg2 GROUP BY 1, 2 ORDER BY 1, 2;
SELECT agg_same($$SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity),
  avg(i4), sum(f8) FROM agg2 GROUP BY 1, 2 ORDER BY 1, 2$$);

-- ===== declared types other than the files': not pushed (casts)
CREATE FOREIGN TABLE aggcast (l_quantity numeric, l_tax numeric(16,3), i4 bigint,
    l_returnflag varchar(1))
  SERVER agg_srv OPTIONS (filename :'agg');
SELECT agg_same($$SELECT sum(l_quantity) FROM aggcast$$);
SELECT agg_same($$SELECT sum(l_tax) FROM aggcast$$);
SELECT agg_same($$SELECT sum(i4) FROM aggcast$$);
SELECT agg_same($$SELECT l_returnflag, count(*) FROM aggcast GROUP BY 1 ORDER BY 1$$);
-- a column missing from the file reads as NULL with missing_columns 'null'
CREATE FOREIGN TABLE aggmiss (l_quantity numeric(15,2), nosuch int, l_returnflag text)
  SERVER agg_srv OPTIONS (filename :'agg', missing_columns 'null');
SELECT agg_same($$SELECT l_returnflag, count(nosuch), sum(nosuch), count(*), sum(l_quantity)
  FROM aggmiss GROUP BY 1 ORDER BY 1$$);
SELECT agg_same($$SELECT nosuch, count(*) FROM aggmiss WHERE nosuch IS NULL GROUP BY 1$$);
SELECT agg_same($$SELECT count(*) FROM aggmiss WHERE nosuch = 1$$);
SELECT agg_same($$SELECT count(*), sum(l_quantity) FROM aggmiss WHERE nosuch IS NULL$$);
SELECT agg_same($$SELECT count(*) FROM aggmiss WHERE nosuch IS NOT NULL$$);
SELECT agg_same($$SELECT count(*) FROM aggmiss WHERE nosuch IN (1, 2)$$);
