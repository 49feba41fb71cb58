--
-- aggregate_topn: ORDER BY <aggregate or group key> LIMIT n over a
-- pushed-down aggregate, computed inside the scan (agg_topn.c): the scan
-- returns only the top rows.  topn_same() runs a query over the foreign
-- table with pushdown on and over a heap table holding the same rows and
-- compares the results row by row in order; it says whether the foreign
-- query's plan pushed the top-N.  Ties on the first sort key are resolved
-- by a second one, so every answer is deterministic.
--
LOAD 'parquet_fdw';
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 3;
SET max_parallel_workers_per_gather = 0;
SELECT current_setting('data_directory') || '/pf_topn.parquet' AS topn_file \gset

CREATE SERVER topn_srv FOREIGN DATA WRAPPER parquet_fdw;
-- i = 1..12000: k 1..700 (some NULL), t 40 texts (some NULL), b wide
-- bigints, v with NULLs (all NULL for k % 50 = 0), f floats, d dates
CREATE TABLE topn_heap (k int, t text, b bigint, v int, f float8, d date);
INSERT INTO topn_heap
SELECT CASE WHEN i % 211 = 0 THEN NULL ELSE (i * 7919) % 700 END AS k,
       CASE WHEN i % 97 = 0 THEN NULL ELSE 'text-' || (i % 40) END AS t,
       CASE WHEN i % 101 = 0 THEN NULL
            WHEN i % 1000 = 3 THEN 9223372036854775807
            WHEN i % 1000 = 4 THEN -9223372036854775808
            ELSE (i % 900 - 450) * 20496382304121724 END AS b,
       CASE WHEN ((i * 7919) % 700) % 50 = 0 OR i % 9 = 0 THEN NULL
            ELSE (i * 37) % 1000 - 300 END AS v,
       CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 77) * 0.5::float8 END AS f,
       date '2001-01-01' + (i * 13) % 3000 AS d
FROM generate_series(1, 12000) i;
COPY topn_heap TO :'topn_file' (FORMAT parquet, row_group_size 3000);
CREATE FOREIGN TABLE topn_ft (k int, t text, b bigint, v int, f float8, d date)
  SERVER topn_srv OPTIONS (filename :'topn_file');

\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION topn_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', 'topn_ft');
  d record;
BEGIN
  SELECT * INTO d FROM pf_diff(qf, replace(q, 'TBL', 'topn_heap'), true);
  RETURN CASE WHEN pf_plan_has(qf, 'Pushed Top-N', 'VERBOSE, COSTS OFF')
              THEN 'top-n pushed' ELSE 'top-n not pushed' END ||
         ', ' || d.rows_a || ' rows, ' || d.differences || ' differences';
END $$;

-- EXPLAIN with paths reduced to file names
CREATE FUNCTION topn_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE query LOOP
    CONTINUE WHEN ln ~ '^ *(Planning:|Buffers: )';
    -- the file's footer names the server version: its size varies
    CONTINUE WHEN ln ~ 'Peak Memory|Bytes Read';
    -- PostgreSQL 18 shows rows=N.00: read as 15 prints
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;

-- the scan returns the 10 rows; no Sort or Limit above it
SELECT topn_explain($$EXPLAIN (VERBOSE, COSTS OFF)
SELECT k, count(*) FROM topn_ft GROUP BY k ORDER BY count(*) DESC, k LIMIT 10$$);
SELECT topn_explain($$EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT t, sum(v) AS s FROM topn_ft GROUP BY t ORDER BY s NULLS FIRST, t LIMIT 3 OFFSET 2$$);
SELECT k, count(*) FROM topn_ft GROUP BY k ORDER BY count(*) DESC, k LIMIT 10;
-- a count first: the groups it cannot keep are skipped before the sort
SELECT topn_explain($$EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT k, count(*) FROM topn_ft GROUP BY k ORDER BY count(*) DESC, k LIMIT 10$$);

-- aggregates ASC and DESC, NULLS FIRST and LAST, ties broken by the key
SELECT topn_same($$SELECT k, count(*) FROM TBL GROUP BY k ORDER BY count(*) DESC, k LIMIT 10$$);
SELECT topn_same($$SELECT k, count(*) FROM TBL GROUP BY k ORDER BY count(*), k DESC LIMIT 10$$);
SELECT topn_same($$SELECT k, sum(v) FROM TBL GROUP BY k ORDER BY sum(v), k LIMIT 8$$);
SELECT topn_same($$SELECT k, sum(v) FROM TBL GROUP BY k ORDER BY sum(v) NULLS FIRST, k LIMIT 8$$);
SELECT topn_same($$SELECT k, sum(v) FROM TBL GROUP BY k ORDER BY sum(v) DESC, k NULLS FIRST LIMIT 8$$);
SELECT topn_same($$SELECT k, sum(v) FROM TBL GROUP BY k ORDER BY sum(v) DESC NULLS LAST, k LIMIT 8$$);
SELECT topn_same($$SELECT k, avg(f) AS a, min(d) FROM TBL GROUP BY k ORDER BY a DESC, k LIMIT 6$$);
SELECT topn_same($$SELECT k, min(d) FROM TBL GROUP BY k ORDER BY 2, 1 LIMIT 6$$);
SELECT topn_same($$SELECT t, max(t), count(DISTINCT k) FROM TBL GROUP BY t ORDER BY 3 DESC, 1 LIMIT 5$$);
-- many ties with the tenth value, and on an integer key, prefiltered too
SELECT topn_same($$SELECT b, t, count(*) FROM TBL GROUP BY b, t ORDER BY count(*) DESC, b, t LIMIT 20$$);
SELECT topn_same($$SELECT b, t, count(t) FROM TBL GROUP BY b, t ORDER BY count(t), b DESC, t LIMIT 20 OFFSET 7$$);
SELECT topn_same($$SELECT b, count(*) FROM TBL GROUP BY b ORDER BY b DESC NULLS FIRST LIMIT 3$$);
-- group keys: NULL first with DESC, last with ASC, or as asked
SELECT topn_same($$SELECT k, count(*) FROM TBL GROUP BY k ORDER BY k DESC LIMIT 5$$);
SELECT topn_same($$SELECT k, count(*) FROM TBL GROUP BY k ORDER BY k LIMIT 5$$);
SELECT topn_same($$SELECT k, count(*) FROM TBL GROUP BY k ORDER BY k NULLS FIRST LIMIT 5$$);
SELECT topn_same($$SELECT t, count(*) FROM TBL GROUP BY t ORDER BY t DESC NULLS LAST LIMIT 5$$);
SELECT topn_same($$SELECT b, count(*) FROM TBL GROUP BY b ORDER BY b DESC NULLS LAST LIMIT 4$$);
SELECT topn_same($$SELECT b, count(*) FROM TBL GROUP BY b ORDER BY b LIMIT 4$$);
SELECT topn_same($$SELECT t, k, sum(v) FROM TBL WHERE k < 300 GROUP BY t, k ORDER BY sum(v) DESC NULLS LAST, t, k LIMIT 7$$);
-- an expression of the outputs in the select list, the sort key hidden
SELECT topn_same($$SELECT k * 2, count(*) + 1 FROM TBL GROUP BY k ORDER BY sum(v) DESC NULLS LAST, k LIMIT 5$$);
-- LIMIT 0, LIMIT beyond the groups, OFFSET, OFFSET beyond the groups
SELECT topn_same($$SELECT k, count(*) FROM TBL GROUP BY k ORDER BY count(*) DESC, k LIMIT 0$$);
SELECT topn_same($$SELECT k, count(*) FROM TBL GROUP BY k ORDER BY count(*) DESC, k LIMIT 100000$$);
SELECT topn_same($$SELECT k, count(*) FROM TBL GROUP BY k ORDER BY count(*) DESC, k LIMIT 5 OFFSET 5$$);
SELECT topn_same($$SELECT k, count(*) FROM TBL GROUP BY k ORDER BY count(*) DESC, k LIMIT 5 OFFSET 1000$$);
-- no GROUP BY: one row
SELECT topn_same($$SELECT count(*), sum(v) FROM TBL ORDER BY 1 LIMIT 3$$);
-- ties not broken: any valid answer, the sort key's values as the heap's
SELECT array_agg(c) FROM (SELECT count(*) AS c FROM topn_ft GROUP BY t ORDER BY count(*) LIMIT 12) s;
SELECT array_agg(c) FROM (SELECT count(*) AS c FROM topn_heap GROUP BY t ORDER BY count(*) LIMIT 12) s;
SELECT array_agg(c) FROM (SELECT count(*) AS c FROM topn_ft GROUP BY b, t ORDER BY count(*) DESC LIMIT 30) s;
SELECT array_agg(c) FROM (SELECT count(*) AS c FROM topn_heap GROUP BY b, t ORDER BY count(*) DESC LIMIT 30) s;
SELECT array_agg(c) FROM (SELECT count(*) AS c FROM topn_ft GROUP BY b, t ORDER BY count(*) LIMIT 30 OFFSET 3) s;
SELECT array_agg(c) FROM (SELECT count(*) AS c FROM topn_heap GROUP BY b, t ORDER BY count(*) LIMIT 30 OFFSET 3) s;
-- the rows returned are groups of the table: their counts are right
SELECT count(*) FROM (SELECT b, t, count(*) AS c FROM topn_ft GROUP BY b, t ORDER BY count(*) DESC LIMIT 30) f
  JOIN (SELECT b, t, count(*) AS c FROM topn_heap GROUP BY b, t) h
  ON f.b IS NOT DISTINCT FROM h.b AND f.t IS NOT DISTINCT FROM h.t AND f.c = h.c;

-- groups spilled past a tiny work_mem, then the top rows
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT topn_same($$SELECT b, t, count(*), sum(v) FROM TBL GROUP BY b, t ORDER BY sum(v) DESC NULLS LAST, b, t LIMIT 6$$);
SELECT topn_same($$SELECT b, d, count(*) FROM TBL GROUP BY b, d ORDER BY b DESC NULLS LAST, d LIMIT 6$$);
SELECT topn_same($$SELECT b, t, count(*) FROM TBL GROUP BY b, t ORDER BY count(*), b, t LIMIT 9$$);
RESET work_mem;
RESET hash_mem_multiplier;

-- rescans with a new parameter value each time (a lateral join)
SELECT topn_same($$SELECT x, s.* FROM (VALUES (100), (400), (650)) v(x),
  LATERAL (SELECT k, count(*) FROM TBL WHERE k > x GROUP BY k ORDER BY count(*) DESC, k LIMIT 2) s$$);

-- HAVING is applied to the groups before the bounded sort
SELECT topn_same($$SELECT k, count(*) FROM TBL GROUP BY k HAVING count(*) > 10 ORDER BY count(*) DESC, k LIMIT 5$$);
-- not pushed as a top-N (the aggregation still is): a LIMIT parameter,
-- a sort key the scan does not return, DISTINCT, WITH TIES
SELECT topn_same($$SELECT k, count(*) FROM TBL GROUP BY k ORDER BY count(*) + k DESC, k LIMIT 5$$);
SELECT topn_same($$SELECT DISTINCT count(*) FROM TBL GROUP BY k ORDER BY 1 DESC LIMIT 5$$);
SELECT topn_same($$SELECT k, count(*) FROM TBL GROUP BY k ORDER BY count(*) DESC, k FETCH FIRST 3 ROWS WITH TIES$$);
SET plan_cache_mode = force_generic_plan;
PREPARE topn_p(int) AS SELECT k, count(*) FROM topn_ft GROUP BY k ORDER BY count(*) DESC, k LIMIT $1;
SELECT topn_explain('EXPLAIN (COSTS OFF) EXECUTE topn_p(3)');
EXECUTE topn_p(3);
DEALLOCATE topn_p;
RESET plan_cache_mode;

DROP FOREIGN TABLE topn_ft;
DROP TABLE topn_heap;
DROP SERVER topn_srv;
