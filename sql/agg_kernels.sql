--
-- agg_kernels: vector kernels of the aggregate pushdown (agg_kernel.c):
-- length(), char_length(), octet_length() of text columns as aggregate
-- arguments, group keys and conditions, over dictionary-coded and plain
-- pages (one file written with dictionaries, one without, row groups
-- whose dictionaries differ) and over an Amudai shard; bool_and, bool_or
-- and every over boolean columns and conditions; min and max of
-- expressions; ORDER BY ... LIMIT pushed with HAVING; float4/float8
-- GROUP BY keys; text filters on dictionary codes.
--
-- kern_same() runs a query over the foreign table (pushdown on) and over a
-- heap table holding the same rows, compares the results as multisets of
-- rows as text, and says whether the foreign query was pushed down.
--
LOAD 'parquet_fdw';
SET extra_float_digits = 3;
SET max_parallel_workers_per_gather = 0;
SELECT current_setting('data_directory') || '/pf_kern_dict.parquet' AS dict_file,
       current_setting('data_directory') || '/pf_kern_plain.parquet' AS plain_file,
       current_setting('data_directory') || '/pf_kern_*.parquet' AS kern_glob,
       current_setting('data_directory') || '/pf_kern.amudai.shard' AS kern_shard \gset

CREATE SERVER kern_srv FOREIGN DATA WRAPPER parquet_fdw;
-- s: a few values per row group, multibyte (2, 3 and 4 bytes), empty and
-- NULL, different in each row group of 1000 rows; u: almost unique
CREATE TABLE kern_heap (id int, x int, s text, u text, b boolean);
INSERT INTO kern_heap
SELECT i, i % 7,
       CASE WHEN i % 13 = 0 THEN NULL
            WHEN i % 11 = 0 THEN ''
            ELSE repeat(CASE (i / 1000) % 4 WHEN 0 THEN 'é' WHEN 1 THEN '€'
                             WHEN 2 THEN '😀' ELSE 'a' END, (i / 1000 + i % 5) % 9)
                 || CASE WHEN i % 3 = 0 THEN 'x' ELSE '' END END,
       CASE WHEN i % 17 = 0 THEN NULL
            ELSE 'ü' || i || repeat('ß', i % 6) END,
       -- x = 0: NULL or true; x = 1: all NULL; else mixed
       CASE WHEN i % 7 = 1 OR i % 19 = 0 THEN NULL
            WHEN i % 7 = 0 THEN true ELSE i % 4 <> 0 END
FROM generate_series(1, 8000) i;
COPY (SELECT * FROM kern_heap WHERE id <= 4000) TO :'dict_file'
  (FORMAT parquet, row_group_size 1000, dictionary true);
COPY (SELECT * FROM kern_heap WHERE id > 4000) TO :'plain_file'
  (FORMAT parquet, row_group_size 1000, dictionary false);
CREATE FOREIGN TABLE kern_ft (id int, x int, s text, u text, b boolean)
  SERVER kern_srv OPTIONS (filename :'kern_glob');
SELECT parquet_fdw_write_amudai('SELECT * FROM kern_heap', :'kern_shard', 1000);
CREATE FOREIGN TABLE kern_am (id int, x int, s text, u text, b boolean)
  SERVER kern_srv OPTIONS (filename :'kern_shard');

\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION kern_same(q text, ft text DEFAULT 'kern_ft') RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', ft);
  d record;
BEGIN
  SELECT * INTO d FROM pf_diff(qf, replace(q, 'TBL', 'kern_heap'));
  RETURN CASE WHEN pf_plan_has(qf, 'Aggregate Pushdown') THEN 'pushed' ELSE 'not pushed' END ||
         ', ' || d.rows_a || ' rows, ' || d.differences || ' differences';
END $$;

-- the files hold the heap's rows
SELECT count(*) AS rows_not_in_both FROM
  ((SELECT * FROM kern_ft EXCEPT ALL SELECT * FROM kern_heap)
   UNION ALL (SELECT * FROM kern_heap EXCEPT ALL SELECT * FROM kern_ft)) d;

-- aggregate arguments
SELECT kern_same($$SELECT avg(length(s)), sum(char_length(s)), sum(octet_length(s)),
  count(length(s)), avg(character_length(u)), sum(octet_length(u)) FROM TBL$$);
SELECT kern_same($$SELECT x, avg(length(s)), sum(octet_length(s)), count(*),
  avg(length(u)) FROM TBL GROUP BY x$$);
-- ClickBench Q27/Q28 shapes: a text key, avg(length()), HAVING
SELECT kern_same($$SELECT s, avg(length(u)) AS l, count(*) AS c FROM TBL
  WHERE u <> '' GROUP BY s HAVING count(*) > 100$$);
SELECT kern_same($$SELECT x, avg(length(s)) AS l, count(*) AS c, min(s) FROM TBL
  WHERE s <> '' GROUP BY x HAVING count(*) > 10$$);
-- group keys
SELECT kern_same($$SELECT length(s), octet_length(s), count(*) FROM TBL GROUP BY 1, 2$$);
SELECT kern_same($$SELECT length(u) AS k, count(*), min(id) FROM TBL GROUP BY k$$);
-- conditions: either side, every operator, int2/int8 constants
SELECT kern_same($$SELECT count(*), sum(id) FROM TBL WHERE length(s) > 3$$);
SELECT kern_same($$SELECT count(*), sum(id) FROM TBL WHERE 3 >= length(s)$$);
SELECT kern_same($$SELECT count(*) FROM TBL WHERE length(s) = 0$$);
SELECT kern_same($$SELECT count(*) FROM TBL WHERE length(s) <> 2$$);
SELECT kern_same($$SELECT count(*) FROM TBL WHERE octet_length(s) < 9::int2$$);
SELECT kern_same($$SELECT count(*) FROM TBL WHERE char_length(u) <= 7::int8$$);
SELECT kern_same($$SELECT x, count(*) FROM TBL WHERE length(u) >= 8 AND x > 2
  AND octet_length(s) > 4 GROUP BY x$$);
SELECT kern_same($$SELECT count(*) FROM TBL WHERE length(s) > 100$$);
-- an integer expression PostgreSQL computes, compared by the vector filter
SELECT kern_same($$SELECT count(*) FROM TBL WHERE length(s || u) > 12$$);
SELECT kern_same($$SELECT count(*) FROM TBL WHERE id % 10 = 3$$);
-- the Amudai shard (values through convert(), no dictionary codes)
SELECT kern_same($$SELECT x, avg(length(s)), sum(octet_length(u)) FROM TBL
  WHERE length(s) > 1 GROUP BY x$$, 'kern_am');
SELECT kern_same($$SELECT length(s), count(*) FROM TBL GROUP BY 1$$, 'kern_am');
-- bool_and, bool_or, every: columns and conditions, all-NULL groups
SELECT kern_same($$SELECT bool_and(b), bool_or(b), every(b), count(b) FROM TBL$$);
SELECT kern_same($$SELECT x, bool_and(b), bool_or(b), every(b) FROM TBL GROUP BY x$$);
SELECT kern_same($$SELECT x, bool_and(length(s) > 2), bool_or(id % 1000 = 0),
  bool_or(NOT b) FROM TBL GROUP BY x$$);
SELECT kern_same($$SELECT bool_and(b), bool_or(b) FROM TBL WHERE x = 1$$);
SELECT kern_same($$SELECT bool_and(b), bool_or(b) FROM TBL WHERE id < 0$$);
SELECT kern_same($$SELECT s, bool_or(b) AS any_b, count(*) FROM TBL GROUP BY s
  HAVING bool_or(b) AND NOT bool_and(b)$$);
SELECT kern_same($$SELECT x, bool_and(b), bool_or(b) FROM TBL GROUP BY x$$, 'kern_am');
-- conditions a vector filter evaluates, NULL where their column is
SELECT kern_same($$SELECT x, bool_and(id > 10), bool_or(s = 'éé'), bool_and(s <> ''),
  bool_or(u LIKE '%ß'), every(NOT b), count(*) FROM TBL GROUP BY x$$);
SELECT kern_same($$SELECT s > 'b' COLLATE "C" AS k, x > 3, count(*), bool_or(u ILIKE 'Ü1%' COLLATE "C")
  FROM TBL GROUP BY 1, 2$$);
SELECT kern_same($$SELECT bool_and(x < 7), bool_or(id = 1234), bool_and(length(s) < 9) FROM TBL$$, 'kern_am');
-- min, max of expressions: vector arithmetic (integers, numeric, floats
-- with NaN) or computed by PostgreSQL (length(), casts, CASE)
CREATE TABLE kern_num_heap AS
SELECT i AS id, i % 5 AS g, (i * 37) % 1001 - 500 AS a, i % 13 AS k,
       CASE WHEN i % 9 = 0 THEN NULL ELSE ((i * 7) % 1000) / 8.0 END::numeric(10,3) AS p,
       CASE WHEN i % 11 = 0 THEN NULL WHEN i % 97 = 0 THEN 'NaN'::float8
            ELSE ((i * 13) % 2000) / 3.0 - 300 END AS f,
       CASE WHEN i % 6 = 0 THEN NULL ELSE 'v' || repeat('é', i % 10) END AS s
FROM generate_series(1, 6000) i;
SELECT current_setting('data_directory') || '/pf_kernnum.parquet' AS num_file \gset
COPY kern_num_heap TO :'num_file' (FORMAT parquet, row_group_size 1500);
CREATE FOREIGN TABLE kern_num (id int, g int, a int, k int, p numeric(10,3), f float8, s text)
  SERVER kern_srv OPTIONS (filename :'num_file');
CREATE FUNCTION kern_num_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', 'kern_num');
  d record;
BEGIN
  SELECT * INTO d FROM pf_diff(qf, replace(q, 'TBL', 'kern_num_heap'));
  RETURN CASE WHEN pf_plan_has(qf, 'Aggregate Pushdown') THEN 'pushed' ELSE 'not pushed' END ||
         ', ' || d.rows_a || ' rows, ' || d.differences || ' differences';
END $$;
SELECT kern_num_same($$SELECT min(a + k), max(a * k), min(-a), max(a - 2 * k) FROM TBL$$);
SELECT kern_num_same($$SELECT g, min(a * 3 + k), max(a + id), min(p * 2), max(p + 1.5) FROM TBL GROUP BY g$$);
SELECT kern_num_same($$SELECT g, min(f * 2), max(f + 1), min(f - a), max(f * k) FROM TBL GROUP BY g$$);
SELECT kern_num_same($$SELECT g, min(length(s)), max(octet_length(s) + 1), min(k::int8 * 1000000000000),
  max(CASE WHEN a > 0 THEN a ELSE NULL END) FROM TBL GROUP BY g$$);
SELECT kern_num_same($$SELECT k, max(a / (k + 1)), min(abs(a)) FROM TBL GROUP BY k HAVING max(a + 1) > 0$$);
SELECT kern_num_same($$SELECT min(a + k), max(f * 2) FROM TBL WHERE id < 0$$);
-- overflow is PostgreSQL's error
\set VERBOSITY terse
SELECT max(a * 2147483647) FROM kern_num;
SELECT max(a * 2147483647) FROM kern_num_heap;
\set VERBOSITY default
-- text filters over dictionary-coded pages (each entry judged once per
-- row group) and plain ones: =, <>, ranges (C collation), IN, LIKE, ILIKE
SELECT kern_same($$SELECT count(*), sum(id) FROM TBL WHERE s = 'éé'$$);
SELECT kern_same($$SELECT x, count(*) FROM TBL WHERE s <> '' GROUP BY x$$);
SELECT kern_same($$SELECT count(*) FROM TBL WHERE s > 'aa' COLLATE "C" AND s <= '€€€' COLLATE "C"$$);
SELECT kern_same($$SELECT count(*) FROM TBL WHERE s < 'b' COLLATE "C"$$);
SELECT kern_same($$SELECT count(*) FROM TBL WHERE s IN ('aaa', '€€x', '', '😀')$$);
SELECT kern_same($$SELECT s, count(*) FROM TBL WHERE s LIKE '%x' GROUP BY s$$);
SELECT kern_same($$SELECT count(*) FROM TBL WHERE s NOT LIKE '_é%'$$);
SELECT kern_same($$SELECT count(*) FROM TBL WHERE s ILIKE 'AA%' COLLATE "C"$$);
SELECT kern_same($$SELECT count(*) FROM TBL WHERE s LIKE '%€€%' AND s <> '€€€€'$$);
-- top-N with HAVING: the best groups among those HAVING keeps, compared
-- row by row in order (the sort keys leave no ties)
CREATE FUNCTION kern_topn(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', 'kern_ft');
  d record;
BEGIN
  SELECT * INTO d FROM pf_diff(qf, replace(q, 'TBL', 'kern_heap'), true);
  RETURN CASE WHEN pf_plan_has(qf, 'Pushed Top-N') THEN 'top-N pushed' ELSE 'top-N not pushed' END ||
         ', ' || d.rows_a || ' rows, ' || d.differences || ' differences';
END $$;
SELECT kern_topn($$SELECT s, count(*) AS c FROM TBL GROUP BY s
  HAVING count(*) < 150 ORDER BY c DESC, s LIMIT 5$$);
SELECT kern_topn($$SELECT s, count(*) AS c FROM TBL GROUP BY s
  HAVING count(*) < 225 ORDER BY c DESC LIMIT 1$$);
SELECT kern_topn($$SELECT x, length(s) AS l, avg(length(u)) AS a, count(*) FROM TBL
  GROUP BY 1, 2 HAVING avg(length(u)) > 6 AND bool_or(b) ORDER BY a DESC, x, l LIMIT 7 OFFSET 2$$);
SELECT kern_topn($$SELECT u, count(*) AS c FROM TBL GROUP BY u
  HAVING min(id) % 3 = 0 ORDER BY c DESC, u LIMIT 4$$);
SELECT kern_topn($$SELECT s, count(*) AS c FROM TBL GROUP BY s
  HAVING count(*) > 100000 ORDER BY c DESC LIMIT 3$$);
-- float4/float8 group keys: -0 and +0 one group, every NaN one group,
-- NULL its own; infinities; float keys computed by PostgreSQL.  Keys are
-- shown as k + 0 (-0 + 0 is +0): which zero names the group is the first
-- row's in PostgreSQL, so it depends on the plan.
CREATE TABLE kern_flt_heap AS
SELECT i AS id,
       (CASE i % 9 WHEN 0 THEN '-0' WHEN 1 THEN '0' WHEN 2 THEN 'NaN'
                   WHEN 3 THEN '-NaN' WHEN 4 THEN 'Infinity' WHEN 5 THEN '-Infinity'
                   WHEN 6 THEN NULL ELSE (i % 37)::text || '.25' END)::float8 AS d,
       (CASE i % 7 WHEN 0 THEN '-0' WHEN 1 THEN '0' WHEN 2 THEN 'NaN'
                   WHEN 3 THEN NULL ELSE (i % 11)::text || '.5' END)::float4 AS r,
       i % 3 AS g
FROM generate_series(1, 5000) i;
SELECT current_setting('data_directory') || '/pf_kernflt.parquet' AS flt_file \gset
COPY kern_flt_heap TO :'flt_file' (FORMAT parquet, row_group_size 1200);
CREATE FOREIGN TABLE kern_flt (id int, d float8, r float4, g int)
  SERVER kern_srv OPTIONS (filename :'flt_file');
CREATE FUNCTION kern_flt_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', 'kern_flt');
  d record;
BEGIN
  SELECT * INTO d FROM pf_diff(qf, replace(q, 'TBL', 'kern_flt_heap'));
  RETURN CASE WHEN pf_plan_has(qf, 'Aggregate Pushdown') THEN 'pushed' ELSE 'not pushed' END ||
         ', ' || d.rows_a || ' rows, ' || d.differences || ' differences';
END $$;
SELECT kern_flt_same($$SELECT d + 0, count(*), sum(id) FROM TBL GROUP BY d$$);
SELECT kern_flt_same($$SELECT r + 0, count(*), min(id) FROM TBL GROUP BY r$$);
SELECT kern_flt_same($$SELECT d + 0, r + 0, g, count(*) FROM TBL GROUP BY d, r, g$$);
SELECT kern_flt_same($$SELECT d * 2 + 0, count(*) FROM TBL GROUP BY d * 2$$);
SELECT kern_flt_same($$SELECT d + 0, count(*) FROM TBL WHERE g = 1 GROUP BY d HAVING count(*) > 100$$);
-- the groups of the zeros, the NaNs and NULL, by name
SELECT d + 0 AS d, count(*) FROM kern_flt WHERE d = 0 OR d = 'NaN' OR d IS NULL
  GROUP BY d ORDER BY d NULLS FIRST;
SELECT r + 0 AS r, count(*) FROM kern_flt WHERE r = 0 OR r = 'NaN' OR r IS NULL
  GROUP BY r ORDER BY r NULLS FIRST;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT kern_flt_same($$SELECT d + 0, r + 0, id % 400, count(*) FROM TBL GROUP BY d, r, id % 400$$);
RESET work_mem;
RESET hash_mem_multiplier;
-- a tiny work_mem: length keys spill and are read back
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT kern_same($$SELECT u, length(u), count(*) FROM TBL WHERE length(s) >= 1 GROUP BY 1, 2$$);
SELECT kern_same($$SELECT u, bool_and(b), bool_or(b) FROM TBL GROUP BY 1$$);
RESET work_mem;
RESET hash_mem_multiplier;
-- the filter shows as pushed
SELECT pf_plan_lines('SELECT count(*) FROM kern_ft WHERE length(s) > 3 AND 2 <> octet_length(u)',
                     'Pushed Filters');
-- EXPLAIN names the aggregates as the query does, not as they are computed
SELECT pf_plan_lines('SELECT bool_and(b), every(b), bool_or(b), min(x), count(DISTINCT x) FROM kern_ft',
                     'Aggregate Pushdown');
