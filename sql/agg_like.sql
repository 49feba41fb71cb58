--
-- agg_like: LIKE / ILIKE / NOT LIKE filters evaluated by the aggregate
-- pushdown (vec_like.c) over text columns, against a heap table holding
-- the same rows.  like_same() runs a query over the foreign table with
-- pushdown on and over the heap table, compares the results as multisets
-- of rows as text, and says whether the foreign query was pushed down.
-- Strings mix ASCII of both cases, two-, three- and four-byte UTF-8
-- characters, the metacharacters % _ \ # themselves, '' and NULLs.
--
LOAD 'parquet_fdw';
SET max_parallel_workers_per_gather = 0;
SELECT current_setting('data_directory') || '/pf_like.parquet' AS like_file \gset

CREATE SERVER like_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE TABLE like_heap (i int, s text, v varchar(40), g int);
INSERT INTO like_heap
SELECT i,
       CASE WHEN i % 17 = 0 THEN NULL
            WHEN i % 23 = 0 THEN ''
            ELSE (ARRAY['http://www.google.com/', 'Google Maps', 'GOOGLE',
                        'gooGle', 'café', 'CAFÉ', 'naïve 日本語', '100%', '50_50',
                        'a\b', 'a#b', 'x', 'éé', '😀 smile', 'e', 'abcabc',
                        'abc', 'ab', 'google.de/search?q=%25'])[1 + i % 19]
                 || CASE WHEN i % 3 = 0 THEN '' ELSE ' ' || (i % 7)::text END
                 -- row groups of their own values: dictionaries differ
                 || CASE WHEN i % 4 = 0 THEN ' rg' || (i / 700)::text ELSE '' END
       END,
       CASE WHEN i % 13 = 0 THEN NULL ELSE 'v-' || (i % 11)::text || 'é' END,
       i % 5
FROM generate_series(1, 3000) i;
COPY like_heap TO :'like_file' (FORMAT parquet, row_group_size 700);
CREATE FOREIGN TABLE like_ft (i int, s text, v varchar(40), g int)
  SERVER like_srv OPTIONS (filename :'like_file');

\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION like_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', 'like_ft');
  d record;
BEGIN
  PERFORM set_config('parquet_fdw.enable_aggregate_pushdown', 'on', true);
  SELECT * INTO d FROM pf_diff(qf, replace(q, 'TBL', 'like_heap'));
  RETURN CASE WHEN pf_plan_has(qf, 'Aggregate Pushdown') THEN 'pushed' ELSE 'not pushed' END ||
         ', ' || d.rows_b || ' rows, ' || d.differences || ' differences';
END $$;

-- one pattern per kind: the count and a sum over the rows that pass, so a
-- wrong row changes the answer
CREATE TABLE like_patterns (p text);
INSERT INTO like_patterns VALUES
  ('%google%'), ('%Google%'), ('google%'), ('%.com/'), ('Google Maps%'),
  ('x'), ('x 1'), (''), ('%'), ('%%'), ('_'), ('__'), ('_%'), ('%_'),
  ('a_c%'), ('%b_'), ('g%g%e%'), ('%o%o%'), ('%abc%abc%'), ('ab%c'),
  ('caf_'), ('caf_%'), ('%é%'), ('_é%'), ('na_ve%'), ('%日本_'), ('%日_語%'),
  ('😀%'), ('_ smile%'), ('100\%%'), ('%\%%'), ('50\_50%'), ('50_50%'),
  ('a\\b%'), ('%\\%'), ('a#b%'), ('\x%'), ('%25'), ('e'), ('e%'), ('%e');
SELECT p, like_same(format('SELECT count(*), sum(i) FROM TBL WHERE s LIKE %L', p))
  FROM like_patterns ORDER BY p COLLATE "C";
SELECT p, like_same(format('SELECT count(*), sum(i) FROM TBL WHERE s NOT LIKE %L', p))
  FROM like_patterns WHERE p IN ('%google%', '', '%', '_%', '%é%', 'x') ORDER BY p COLLATE "C";
-- ILIKE folds ASCII letters under the C collation; É and é stay apart
SELECT p, like_same(format('SELECT count(*), sum(i) FROM TBL WHERE s COLLATE "C" ILIKE %L', p))
  FROM (VALUES ('%GOOGLE%'), ('%google%'), ('cafÉ%'), ('CAFÉ%'), ('%É%'), ('Abc%'),
               ('_BC%'), ('%NAÏVE%'), ('')) v(p) ORDER BY p COLLATE "C";
SELECT like_same($$SELECT count(*), sum(i) FROM TBL WHERE s COLLATE "C" NOT ILIKE '%GOOGLE%'$$);
SELECT like_same($$SELECT count(*), sum(i) FROM TBL WHERE s COLLATE "POSIX" ~~* 'Go%'$$);
-- ESCAPE: rewritten by like_escape() into the default escape
SELECT like_same($$SELECT count(*), sum(i) FROM TBL WHERE s LIKE '100#%%' ESCAPE '#'$$);
SELECT like_same($$SELECT count(*), sum(i) FROM TBL WHERE s LIKE 'a##b%' ESCAPE '#'$$);
SELECT like_same($$SELECT count(*), sum(i) FROM TBL WHERE s LIKE '%\%' ESCAPE ''$$);
-- under GROUP BY, with other filters, several LIKEs; varchar columns are
-- not compiled by the LIKE kernels (PostgreSQL's expression machinery
-- evaluates them inside the scan, agg_pgexpr.c)
SELECT like_same($$SELECT g, count(*), min(i) FROM TBL WHERE v LIKE 'v-1%' GROUP BY g$$);
SELECT like_same($$SELECT g, count(*), max(s) FROM TBL
  WHERE s LIKE '%o%' AND s NOT LIKE '%google%' AND i > 100 GROUP BY g$$);
SELECT like_same($$SELECT count(*) FROM TBL WHERE s LIKE '%o%' AND v LIKE '%é'$$);
-- left to PostgreSQL's expression machinery (inside the scan): ILIKE under
-- the database collation, a pattern that is not a constant, a pattern
-- ending with the escape (its error)
SELECT like_same($$SELECT count(*), sum(i) FROM TBL WHERE s ILIKE '%GOOGLE%'$$);
SELECT like_same($$SELECT count(*) FROM TBL WHERE s LIKE s || '%'$$);
\set VERBOSITY terse
SELECT count(*) FROM like_ft WHERE s LIKE 'abc\';
\set VERBOSITY default
-- the scan without aggregates: a LIKE conjunct matched by the scan on the
-- column's bytes, first (before the other columns are converted) or later
SELECT like_same($$SELECT * FROM TBL WHERE s LIKE '%google%'$$);
SELECT like_same($$SELECT * FROM TBL WHERE s LIKE '%o%' AND g > 1$$);
SELECT like_same($$SELECT * FROM TBL WHERE g > 1 AND s NOT LIKE '%o%'$$);
SELECT like_same($$SELECT * FROM TBL WHERE s LIKE '%_é%' OR s LIKE 'x%'$$);
SELECT like_same($$SELECT i, v FROM TBL WHERE s COLLATE "C" ILIKE '%GOOGLE%'$$);
SELECT like_same($$SELECT * FROM TBL WHERE v LIKE '%1_é' AND s NOT LIKE ''$$);
SELECT like_same($$SELECT * FROM TBL WHERE s LIKE '%google%' ORDER BY i DESC LIMIT 7$$);
SELECT like_same($$SELECT * FROM TBL WHERE s ILIKE '%google%' ORDER BY i LIMIT 5$$);
SELECT i, s FROM like_ft WHERE s LIKE '%\\%' AND s LIKE 'a%' ORDER BY i LIMIT 3;
-- EXPLAIN shows the filters (the file's path left out)
CREATE FUNCTION like_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF ln ~ 'Pushdown|Filter' THEN RETURN NEXT ln; END IF;
  END LOOP;
END $$;
SELECT like_explain($$SELECT count(*) FROM like_ft
  WHERE s NOT LIKE '%google%' AND s COLLATE "C" ILIKE 'A\_%'$$);

DROP FOREIGN TABLE like_ft;
DROP TABLE like_heap, like_patterns;
DROP FUNCTION like_same(text);
DROP FUNCTION like_explain(text);
DROP SERVER like_srv;
