--
-- sorted: the table option "sorted" declares the files' row order; a path
-- in that order lets ORDER BY and merge joins skip a Sort, the scan merges
-- the files' rows, and a file out of the declared order is an error.
--
-- test/data/sorted (test/data/sorted/make_sorted.mjs, DuckDB): a, b, c.parquet hold
-- the rows i = 0..2999 with i % 3 = 0, 1, 2, each stored in the order
-- k DESC NULLS FIRST, t, v (row groups of 256); k = NULL when i % 97 = 5,
-- else i / 7; t = 'w' || lpad(i * 37 % 1000, 4, '0'); v = i.
-- unsorted.parquet: the same rows in another order.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set files :abs_srcdir '/test/data/sorted/[abc].parquet'
\set unsorted :abs_srcdir '/test/data/sorted/unsorted.parquet'
SET parquet_fdw.enable_aggregate_pushdown = off;

CREATE FUNCTION sorted_plan(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    CONTINUE WHEN ln ~ 'Parquet Files?:';
    RETURN NEXT ln;
  END LOOP;
END $$;
CREATE FUNCTION sorted_try(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE msg text; det text;
BEGIN
  EXECUTE query;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL;
  RETURN regexp_replace(SQLSTATE || ': ' || SQLERRM || coalesce(' / ' || nullif(det, ''), ''), '/[^ ,"]*/', '', 'g');
END $$;

CREATE SERVER sorted_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE st (k int, t text COLLATE "C", v int)
  SERVER sorted_srv OPTIONS (filename :'files', sorted 'k DESC NULLS FIRST, t');
CREATE TABLE sh AS SELECT * FROM st;
SELECT count(*), count(k), sum(v) FROM sh;

-- ===== ORDER BY the declared keys (or a prefix): no Sort, rows merged
SELECT sorted_plan('SELECT * FROM st ORDER BY k DESC NULLS FIRST, t');
SELECT sorted_plan('SELECT k FROM st ORDER BY k DESC NULLS FIRST LIMIT 5');
-- the merged key sequence is the heap's sorted one, row for row
SELECT (SELECT string_agg(coalesce(k::text, 'N') || ':' || t, ',')
          FROM (SELECT k, t FROM st ORDER BY k DESC NULLS FIRST, t) s) =
       (SELECT string_agg(coalesce(k::text, 'N') || ':' || t, ',')
          FROM (SELECT k, t FROM sh ORDER BY k DESC NULLS FIRST, t) s) AS same_order;
SELECT k, t, v FROM st ORDER BY k DESC NULLS FIRST, t LIMIT 8;
-- keys tied across files come from the earlier file first (a, b, c)
SELECT k, t, v % 3 AS file FROM st ORDER BY k DESC NULLS FIRST, t OFFSET 40 LIMIT 6;
-- quals are still checked; the order holds
SELECT k, t, v FROM st WHERE v % 100 = 1 ORDER BY k DESC NULLS FIRST, t LIMIT 5;
-- another order needs a Sort
SELECT sorted_plan('SELECT * FROM st ORDER BY k');
SELECT sorted_plan('SELECT * FROM st ORDER BY t');

-- ===== files are opened when their rows may come next (their first row
-- group's statistics bound their first row) and closed when read
CREATE FUNCTION sorted_analyze(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
    -- PostgreSQL 18 shows planning buffers and rows=N.00: read as 15 prints
    CONTINUE WHEN ln ~ '^ *(Planning:|Buffers: )';
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    CONTINUE WHEN ln ~ 'Parquet Files?:';
    RETURN NEXT ln;
  END LOOP;
END $$;
-- test/data/sorted/in-order: p1..p4 hold k = 750..999, 0..249, 500..749, 250..499
\set inorder :abs_srcdir '/test/data/sorted/in-order'
CREATE FOREIGN TABLE ro (k int, t text) SERVER sorted_srv OPTIONS (filename :'inorder', sorted 'k');
SELECT sorted_analyze('SELECT k FROM ro ORDER BY k');
SELECT (SELECT string_agg(k::text, ',') FROM (SELECT k FROM ro ORDER BY k) s) =
       (SELECT string_agg(g::text, ',') FROM generate_series(0, 999) g) AS in_order;
SELECT sorted_analyze('SELECT k FROM ro ORDER BY k LIMIT 5');
SELECT k, t FROM ro ORDER BY k LIMIT 3;
-- overlapping files are all open at once
SELECT sorted_analyze('SELECT k FROM st ORDER BY k DESC NULLS FIRST');

-- ===== merge join of two tables in the same order, without Sort
CREATE FOREIGN TABLE st2 (k int, t text COLLATE "C", v int)
  SERVER sorted_srv OPTIONS (filename :'files', sorted 'k DESC NULLS FIRST');
SET enable_hashjoin = off; SET enable_nestloop = off;
SELECT sorted_plan('SELECT count(*) FROM st JOIN st2 USING (k)');
SELECT count(*), sum(st.v) FROM st JOIN st2 USING (k);
SELECT count(*), sum(sh.v) FROM sh JOIN sh sh2 USING (k);
RESET enable_hashjoin; RESET enable_nestloop;

-- ===== rescans: each opens the files again
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
SELECT x, (SELECT v FROM st WHERE k = x ORDER BY k DESC NULLS FIRST, t LIMIT 1)
  FROM generate_series(10, 12) x;
SELECT x, (SELECT v FROM sh WHERE k = x ORDER BY k DESC NULLS FIRST, t, v LIMIT 1)
  FROM generate_series(10, 12) x;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_material;

-- ===== a file out of the declared order is an error, not a wrong answer
CREATE FOREIGN TABLE st_bad (k int, t text COLLATE "C", v int)
  SERVER sorted_srv OPTIONS (filename :'unsorted', sorted 'k DESC NULLS FIRST');
SELECT sorted_try('SELECT * FROM st_bad ORDER BY k DESC NULLS FIRST');
-- declared NULLS LAST where the files hold them first
ALTER FOREIGN TABLE st OPTIONS (SET sorted 'k DESC NULLS LAST');
SELECT sorted_try('SELECT * FROM st ORDER BY k DESC NULLS LAST');
-- without an ORDER BY that uses the order, nothing is merged or checked
SELECT count(*) FROM st_bad;

-- ===== the option's syntax and columns
ALTER FOREIGN TABLE st OPTIONS (SET sorted 'k,');
ALTER FOREIGN TABLE st OPTIONS (SET sorted 'k sideways');
ALTER FOREIGN TABLE st OPTIONS (SET sorted 'k NULLS');
ALTER FOREIGN TABLE st OPTIONS (SET sorted '"K" DESC');
SELECT sorted_try('SELECT * FROM st ORDER BY k DESC');
ALTER FOREIGN TABLE st OPTIONS (SET sorted '"k" desc nulls first, T asc');
SELECT sorted_plan('SELECT * FROM st ORDER BY k DESC, t');
