--
-- agg_pgexpr: aggregate pushdown with the pieces the vector code cannot
-- evaluate (conditions, GROUP BY expressions, aggregate arguments)
-- computed by PostgreSQL's own expression machinery over the batch rows.
--
-- pg_same() runs a query over the foreign table (pushdown on) and over a
-- heap table holding the same rows, compares the results as multisets of
-- rows as text, and says whether the foreign query was pushed down.
--
LOAD 'parquet_fdw';
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 3;
SET max_parallel_workers_per_gather = 0;
SELECT current_setting('data_directory') || '/pf_pgexpr.parquet' AS pgexpr_file \gset

CREATE SERVER pgexpr_srv FOREIGN DATA WRAPPER parquet_fdw;
-- i = 1..20000: timestamps over three days (NULLs), urls with NULLs and
-- a few shapes, a divisor that is zero for some rows
CREATE TABLE pgexpr_heap (id int, t timestamp, tz timestamptz, url text,
    ref text, n int, x int, d date, f float8, p numeric(10,2));
INSERT INTO pgexpr_heap
SELECT i,
       CASE WHEN i % 97 = 0 THEN NULL
            ELSE timestamp '2024-03-30 20:00:00' + (i * 13) * interval '1 second' END,
       CASE WHEN i % 89 = 0 THEN NULL
            ELSE timestamptz '2024-03-30 20:00:00+00' + (i * 17) * interval '1 second' END,
       CASE WHEN i % 53 = 0 THEN NULL
            WHEN i % 5 = 0 THEN 'http://www.google.com/search?q=' || (i % 300)
            WHEN i % 5 = 1 THEN 'https://Example.ORG/page/' || (i % 40)
            ELSE 'http://site' || (i % 17) || '.net/' || repeat('x', i % 9) END,
       CASE WHEN i % 7 = 0 THEN NULL
            ELSE 'https://ref' || (i % 11) || '.com/path' || (i % 3) END,
       CASE WHEN i % 31 = 0 THEN NULL ELSE i % 1000 END,
       i % 13,
       CASE WHEN i % 41 = 0 THEN NULL ELSE date '2023-12-25' + i % 20 END,
       CASE WHEN i % 23 = 0 THEN NULL ELSE i / 7.0 END,
       CASE WHEN i % 29 = 0 THEN NULL ELSE (i % 500) / 4.0 END
FROM generate_series(1, 20000) i;
COPY pgexpr_heap TO :'pgexpr_file' (FORMAT parquet, row_group_size 4000);
CREATE FOREIGN TABLE pgexpr_ft (id int, t timestamp, tz timestamptz, url text,
    ref text, n int, x int, d date, f float8, p numeric(10,2))
  SERVER pgexpr_srv OPTIONS (filename :'pgexpr_file');

\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION pg_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', 'pgexpr_ft');
  d record;
BEGIN
  SELECT * INTO d FROM pf_diff(qf, replace(q, 'TBL', 'pgexpr_heap'), false, '{enable_sort=off}');
  RETURN CASE WHEN pf_plan_has(qf, 'Aggregate Pushdown') THEN 'pushed' ELSE 'not pushed' END ||
         ', ' || d.rows_a || ' rows, ' || d.differences || ' differences';
END $$;

-- GROUP BY extract / date_trunc of a timestamp (numeric and timestamp keys)
SELECT pg_same($$SELECT extract(minute FROM t) AS m, count(*) FROM TBL GROUP BY m$$);
SELECT pg_same($$SELECT extract(epoch FROM t), count(*) FROM TBL GROUP BY 1$$);
SELECT pg_same($$SELECT date_trunc('minute', t) AS m, count(*), sum(n) FROM TBL GROUP BY m$$);
SELECT pg_same($$SELECT id, date_trunc('hour', t), count(*) FROM TBL WHERE id < 3000 GROUP BY 1, 2$$);
-- timestamptz: the session's time zone decides the keys
SET timezone = 'America/New_York';
SELECT pg_same($$SELECT date_trunc('day', tz) AS day, extract(hour FROM tz) AS h, count(*)
  FROM TBL GROUP BY 1, 2$$);
SELECT pg_same($$SELECT tz::date, count(*), max(n) FROM TBL GROUP BY 1$$);
SET timezone = 'Asia/Kolkata';
SELECT pg_same($$SELECT date_trunc('day', tz) AS day, extract(hour FROM tz) AS h, count(*)
  FROM TBL GROUP BY 1, 2$$);
SELECT pg_same($$SELECT tz::date, count(*), max(n) FROM TBL GROUP BY 1$$);
SET timezone = 'UTC';
-- CASE, regexp_replace, lower() as text keys, with NULLs
SELECT pg_same($$SELECT CASE WHEN n > 500 THEN ref ELSE '' END AS src, count(*)
  FROM TBL GROUP BY 1$$);
SELECT pg_same($$SELECT regexp_replace(ref, '^https?://(?:www\.)?([^/]+)/.*$', '\1') AS k,
  avg(length(url)), count(*), min(url) FROM TBL GROUP BY k$$);
SELECT pg_same($$SELECT lower(url) AS u, count(*) FROM TBL GROUP BY 1 HAVING count(*) > 10$$);
SELECT pg_same($$SELECT x, lower(substr(url, 1, 12)) AS u, count(*), sum(n) FROM TBL GROUP BY 1, 2$$);
-- an expression of a computed key above the scan
SELECT pg_same($$SELECT upper(lower(url)), count(*) FROM TBL GROUP BY lower(url)$$);
-- conditions: LIKE, ILIKE, regular expressions, with vector ones
SELECT pg_same($$SELECT count(*) FROM TBL WHERE url LIKE '%google%'$$);
SELECT pg_same($$SELECT x, count(*), sum(n) FROM TBL WHERE url ILIKE '%example.org%' AND n > 100 GROUP BY x$$);
SELECT pg_same($$SELECT count(*), min(id) FROM TBL WHERE url ~ 'site1[0-9]\.net' OR ref IS NULL$$);
SELECT pg_same($$SELECT count(*) FROM TBL WHERE url NOT LIKE 'http:%'$$);
-- aggregate arguments PostgreSQL computes
SELECT pg_same($$SELECT avg(length(url)), sum(length(url)), count(length(ref)) FROM TBL$$);
SELECT pg_same($$SELECT count(length(ref)), count(lower(url)) FROM TBL$$);
SELECT pg_same($$SELECT x, avg(length(url)), sum(f / 2 + length(ref)) FROM TBL GROUP BY x$$);
SELECT pg_same($$SELECT count(*) FROM TBL WHERE d + 1 > date '2024-01-05'$$);
-- numeric keys of one scale; a date key
SELECT pg_same($$SELECT p * 2, count(*) FROM TBL GROUP BY 1$$);
SELECT pg_same($$SELECT d + x, count(*) FROM TBL GROUP BY 1$$);
-- no row passes
SELECT pg_same($$SELECT lower(url), count(*) FROM TBL WHERE url LIKE 'nothing%' GROUP BY 1$$);

-- a parameter of a generic plan inside a computed key and condition
SET plan_cache_mode = force_generic_plan;
PREPARE pq_ft(text, int) AS SELECT lower(url) || $1 AS k, count(*) FROM pgexpr_ft
  WHERE length(url) > $2 GROUP BY 1 ORDER BY 2 DESC, (lower(url) || $1) COLLATE "C" LIMIT 4;
PREPARE pq_heap(text, int) AS SELECT lower(url) || $1 AS k, count(*) FROM pgexpr_heap
  WHERE length(url) > $2 GROUP BY 1 ORDER BY 2 DESC, (lower(url) || $1) COLLATE "C" LIMIT 4;
EXECUTE pq_ft('!', 30);
EXECUTE pq_heap('!', 30);
EXECUTE pq_ft('?', 25);
EXECUTE pq_heap('?', 25);
RESET plan_cache_mode;

-- errors are PostgreSQL's: a division by zero inside the scan
\set VERBOSITY terse
SELECT sum(100 / x) FROM pgexpr_ft;
SELECT 100 / x AS q, count(*) FROM pgexpr_ft GROUP BY 1;
SELECT count(*) FROM pgexpr_ft WHERE 100 / x > 1;
SELECT count(*) FROM pgexpr_heap WHERE 100 / x > 1;
\set VERBOSITY default
-- no error when the vector filter drops those rows first
SELECT pg_same($$SELECT 100 / x AS q, count(*) FROM TBL WHERE x > 0 GROUP BY 1$$);

-- a tiny work_mem: the computed keys spill and are read back
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT pg_same($$SELECT lower(url) || id AS k, count(*), sum(n) FROM TBL GROUP BY 1$$);
SELECT pg_same($$SELECT date_trunc('second', t) AS k, extract(second FROM t), avg(length(url)) FROM TBL GROUP BY 1, 2$$);
RESET work_mem;
RESET hash_mem_multiplier;

-- still refused, with the reason
CREATE FUNCTION pgexpr_why(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE ln text; r text := '';
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    IF ln ~ 'Aggregate Pushdown: not used' THEN r := trim(ln); END IF;
  END LOOP;
  RETURN r;
END $$;
SELECT pgexpr_why($$SELECT count(*) FROM pgexpr_ft WHERE n > random() * 1000$$);
SELECT pgexpr_why($$SELECT (random() * 10)::int, count(*) FROM pgexpr_ft GROUP BY 1$$);
SELECT pgexpr_why($$SELECT count(*) FROM pgexpr_ft f
  WHERE n > (SELECT max(x) FROM pgexpr_heap h WHERE h.id = f.id)$$);
-- a value of the outer query
SELECT pgexpr_why($$SELECT (SELECT count(*) FROM pgexpr_ft f WHERE f.n + h.x > 990)
  FROM pgexpr_heap h WHERE h.id < 3$$);
SELECT (SELECT count(*) FROM pgexpr_ft f WHERE f.n + h.x > 990)
  FROM pgexpr_heap h WHERE h.id < 3 ORDER BY 1;
SELECT (SELECT count(*) FROM pgexpr_heap f WHERE f.n + h.x > 990)
  FROM pgexpr_heap h WHERE h.id < 3 ORDER BY 1;

-- an expression of one column is computed once per distinct input
-- (byte-equal Datums; NULL and '' are inputs of their own)
CREATE TABLE memo_heap (id int, v numeric(10,2), s text, u text, w int);
INSERT INTO memo_heap
SELECT i,
       CASE WHEN i % 11 = 0 THEN NULL WHEN i % 3 = 0 THEN 1.0
            WHEN i % 3 = 1 THEN 1.00 ELSE (i % 7)::numeric / 4 END,
       CASE WHEN i % 13 = 0 THEN NULL WHEN i % 17 = 0 THEN ''
            ELSE 'k' || (i % 5) END,
       md5(i::text),
       i / 2
FROM generate_series(1, 200000) i;
SELECT current_setting('data_directory') || '/pf_pgexpr_memo.parquet' AS memo_file \gset
COPY memo_heap TO :'memo_file' (FORMAT parquet, row_group_size 50000);
CREATE FOREIGN TABLE memo_ft (id int, v numeric(10,2), s text, u text, w int)
  SERVER pgexpr_srv OPTIONS (filename :'memo_file');
CREATE FUNCTION memo_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', 'memo_ft');
  d record;
BEGIN
  SELECT * INTO d FROM pf_diff(qf, replace(q, 'TBL', 'memo_heap'));
  RETURN CASE WHEN pf_plan_has(qf, 'Aggregate Pushdown') THEN 'pushed' ELSE 'not pushed' END ||
         ', ' || d.differences || ' differences';
END $$;
-- how many of the computed values PostgreSQL evaluated
CREATE FUNCTION memo_evaluated(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE ln text; r text := '';
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF ln ~ 'Computed Values' THEN r := trim(ln); END IF;
  END LOOP;
  RETURN r;
END $$;
SELECT memo_same($$SELECT v::text, count(*) FROM TBL GROUP BY 1$$);
SELECT memo_evaluated($$SELECT v::text, count(*) FROM memo_ft GROUP BY 1$$);
SELECT memo_same($$SELECT upper(s) || '!', count(*), min(id) FROM TBL GROUP BY 1$$);
SELECT memo_evaluated($$SELECT upper(s) || '!', count(*) FROM memo_ft GROUP BY 1$$);
-- inputs that do not repeat: once full, the memo is dropped
SELECT memo_same($$SELECT left(u, 1) || 'x', count(*) FROM TBL GROUP BY 1$$);
SELECT memo_evaluated($$SELECT left(u, 1) || 'x', count(*) FROM memo_ft GROUP BY 1$$);
-- 100,000 inputs, each twice: the memo fills up and starts over
SELECT memo_same($$SELECT substr(lpad(w::text, 8, '0'), 1, 5), count(*) FROM TBL GROUP BY 1$$);
SELECT memo_evaluated($$SELECT substr(lpad(w::text, 8, '0'), 1, 5), count(*) FROM memo_ft GROUP BY 1$$);
-- a memoized condition and an aggregate argument
SELECT memo_same($$SELECT count(*), sum(length(s || 'ab')) FROM TBL WHERE upper(s) <> 'K1'$$);
-- with parallel workers, EXPLAIN ANALYZE adds up every participant's values
-- (the leader not reading, it would count none itself)
SET parallel_leader_participation = off;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT pf_plan_has($$SELECT v::text, count(*) FROM memo_ft GROUP BY 1$$,
                   'Parallel Foreign Scan') AS parallel,
       substring(memo_evaluated($$SELECT v::text, count(*) FROM memo_ft GROUP BY 1$$)
                 from '^Computed Values: [0-9]+') AS computed;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
