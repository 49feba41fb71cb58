--
-- scan_filter: a plain scan's leading conjuncts evaluated on a batch's raw
-- values (scan_filter.c, agg_filter.c's kernels) before any Datum is
-- built; only the selected rows are converted.  Every answer is compared
-- with the heap table the files were written from: integers, dates,
-- floats with NaN, -0 and infinities, numerics, booleans, text = <> < and
-- LIKE / ILIKE with escapes, IS [NOT] NULL and IN, NULLs, dictionary and
-- plain pages, a file whose field does not fit (the row path), a
-- collation that is not C (the row path), and under forced parallel
-- workers.  EXPLAIN (ANALYZE, VERBOSE) shows "Raw Filters" when they are
-- used; "Rows Removed by Filter" stays the executor's count.
--
\set ECHO none
\i sql/include/compare.sql
\set ECHO all
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT current_setting('data_directory') || '/pf_sf_dict.parquet' AS dict_file,
       current_setting('data_directory') || '/pf_sf_plain.parquet' AS plain_file,
       current_setting('data_directory') || '/pf_sf_wide.parquet' AS wide_file
\gset
\set both_files :dict_file ',' :plain_file

CREATE SERVER sf_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE TABLE sf_ref AS
SELECT i::int8 AS id,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919) % 1000 - 500 END::int4 AS i4,
       CASE WHEN i % 13 = 0 THEN NULL ELSE ((i * 31) % 300 - 150) END::int2 AS i2,
       CASE WHEN i % 17 = 0 THEN NULL ELSE date '2000-01-01' + (i * 71) % 800 END AS d,
       CASE WHEN i % 19 = 0 THEN NULL WHEN i % 101 = 3 THEN 'NaN'::float8
            WHEN i % 103 = 4 THEN '-Infinity'::float8 WHEN i % 107 = 5 THEN '-0'::float8
            ELSE (i * 53) % 701 / 4.0 END AS f8,
       CASE WHEN i % 23 = 0 THEN NULL WHEN i % 109 = 6 THEN 'NaN'::float4
            ELSE ((i * 37) % 500 / 8.0)::float4 END AS f4,
       CASE WHEN i % 29 = 0 THEN NULL ELSE ((i * 61) % 9001 * 1.25 - 300)::numeric(9,2) END AS n,
       CASE WHEN i % 31 = 0 THEN NULL ELSE i % 3 = 0 END AS b,
       CASE WHEN i % 37 = 0 THEN NULL
            ELSE (ARRAY['apple', 'Apple', '', 'a%b', 'a_b', 'a\b', 'éclair', 'zeta'])[i % 8 + 1]
       END AS t,
       CASE WHEN i % 41 = 0 THEN NULL ELSE 'u' || lpad(((i * 7) % 5000)::text, 5, '0') END AS u
  FROM generate_series(1, 20000) i;
ALTER TABLE sf_ref ALTER n TYPE numeric(9,2);
COPY sf_ref TO :'dict_file' (FORMAT parquet, row_group_size 3000);
COPY sf_ref TO :'plain_file' (FORMAT parquet, row_group_size 3000, dictionary false);
-- i4 written as int8: a table reading it as int4 converts (no raw filter)
COPY (SELECT id, i4::int8 AS i4, t FROM sf_ref) TO :'wide_file' (FORMAT parquet, row_group_size 3000);

CREATE FOREIGN TABLE sf_dict (id int8, i4 int4, i2 int2, d date, f8 float8, f4 float4,
                              n numeric(9,2), b bool, t text, u text)
  SERVER sf_srv OPTIONS (filename :'dict_file');
CREATE FOREIGN TABLE sf_plain (id int8, i4 int4, i2 int2, d date, f8 float8, f4 float4,
                               n numeric(9,2), b bool, t text, u text)
  SERVER sf_srv OPTIONS (filename :'plain_file');
CREATE FOREIGN TABLE sf_both (id int8, i4 int4, i2 int2, d date, f8 float8, f4 float4,
                              n numeric(9,2), b bool, t text, u text)
  SERVER sf_srv OPTIONS (filename :'both_files');
CREATE FOREIGN TABLE sf_wide (id int8, i4 int4, t text)
  SERVER sf_srv OPTIONS (filename :'wide_file');

-- each condition over each table: rows, differences with the heap table
-- (sf_both holds every heap row twice)
CREATE FUNCTION sf_check(tab text, cond text, cols text DEFAULT '*')
RETURNS text LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  SELECT * INTO r FROM pf_diff(format('SELECT %s FROM %s WHERE %s', cols, tab, cond),
                               format('SELECT %s FROM %s r WHERE %s', cols,
                                      CASE WHEN tab = 'sf_both'
                                      THEN '(SELECT * FROM sf_ref UNION ALL SELECT * FROM sf_ref)'
                                      ELSE 'sf_ref' END, cond));
  RETURN format('%s rows (heap %s), %s differences', r.rows_a, r.rows_b, r.differences);
END $$;
-- does EXPLAIN ANALYZE show raw filters?
CREATE FUNCTION sf_raw(q text) RETURNS bool LANGUAGE sql AS $$
  SELECT pf_plan_has(q, 'Raw Filters', 'ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF')
$$;

CREATE TABLE sf_conds (k int, cond text);
INSERT INTO sf_conds VALUES
  (1, 'i4 = 17'), (2, 'i4 <> 17'), (3, 'i4 < -100'), (4, 'i4 >= 250 AND i4 <= 260'),
  (5, 'i4 > 3000000000'), (6, 'i4 < 3000000000'), (7, 'i2 = -20'), (8, 'i2 > 100::int8'),
  (9, 'id BETWEEN 100 AND 200'), (10, 'd = ''2000-03-01'''), (11, 'd < ''2000-01-15'''),
  (12, 'f8 > 170'), (13, 'f8 = ''NaN'''), (14, 'f8 >= ''NaN'''), (15, 'f8 < 0'),
  (16, 'f8 = 0'), (17, 'f8 <> 12.5'), (18, 'f4 > 60'), (19, 'f4 <= 1.5'),
  (20, 'n > 10000.5'), (21, 'n = 12.50'), (22, 'b'), (23, 'NOT b'), (24, 'b = false'),
  (25, 't = ''apple'''), (26, 't <> ''apple'''), (27, 't = '''''), (28, 't <> '''''),
  (29, 't < ''b'' COLLATE "C"'), (30, 't >= ''a_b'' COLLATE "C"'),
  (31, 't LIKE ''a%'''), (32, 't LIKE ''a\%b'''), (33, 't LIKE ''a\_b'''),
  (34, 't LIKE ''a\\b'''), (35, 't LIKE ''a#%b'' ESCAPE ''#'''), (36, 't NOT LIKE ''%a%'''),
  (37, 't ILIKE ''APP%'' COLLATE "C"'), (38, 't LIKE ''_clair'''), (39, 'u LIKE ''%12%'''),
  (40, 'u = ''u01234'''), (41, 't IS NULL'), (42, 't IS NOT NULL'), (43, 'i4 IS NULL'),
  (44, 'i4 IN (1, 17, -500, NULL)'), (45, 't IN (''zeta'', ''a%b'')'),
  (46, 'i4 > 0 AND t LIKE ''a%'' AND u < ''u02'''), (47, 'i4 = 17 AND f8 > 1'),
  (48, 't = ''apple'' AND id % 2 = 0'), (49, 'id % 2 = 0 AND t = ''apple'''),
  (50, 'f4 > ''NaN''::float4'), (51, 'i4 = 17 AND i2 IS NULL');

SELECT k, cond, sf_check('sf_dict', cond) AS dict, sf_check('sf_plain', cond) AS plain,
       sf_check('sf_both', cond) AS both_files
  FROM sf_conds ORDER BY k;

-- which conditions the raw filters take (the others: the row path)
SELECT k, cond, sf_raw(format('SELECT * FROM sf_both WHERE %s', cond)) AS raw
  FROM sf_conds ORDER BY k;

-- a collation that is not C orders text its own way: the row path; its
-- equality is still bytewise (deterministic), and so is LIKE
SELECT sf_check('sf_dict', 't < ''b'' COLLATE "und-x-icu"') AS icu_less,
       sf_raw('SELECT * FROM sf_dict WHERE t < ''b'' COLLATE "und-x-icu"') AS raw;
SELECT sf_check('sf_dict', 't = ''Apple'' COLLATE "und-x-icu"') AS icu_equal,
       sf_raw('SELECT * FROM sf_dict WHERE t = ''Apple'' COLLATE "und-x-icu"') AS raw;
SELECT sf_check('sf_dict', 't LIKE ''%a%'' COLLATE "und-x-icu"') AS icu_like,
       sf_raw('SELECT * FROM sf_dict WHERE t LIKE ''%a%'' COLLATE "und-x-icu"') AS raw;
-- a field that is not the declared type's: converted, then compared (the
-- row path)
SELECT sf_check('sf_wide', 'i4 = 17', 'id, i4, t') AS wide,
       sf_raw('SELECT * FROM sf_wide WHERE i4 = 17') AS raw;
-- the rows the filters remove, as the executor counts them
SELECT pf_plan_lines('SELECT id FROM sf_both WHERE i4 = 17',
                     'Rows Removed|Raw Filters|^ *Filter',
                     'ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF');
SELECT pf_plan_lines('SELECT id FROM sf_both WHERE t LIKE ''a%'' AND id % 5 = 0',
                     'Rows Removed|Raw Filters|^ *Filter',
                     'ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF');
-- LIMIT: stops early, rescans start over
SELECT count(*) FROM (SELECT id FROM sf_dict WHERE t = 'apple' LIMIT 5) x;
SELECT (SELECT count(*) FROM sf_dict f WHERE f.i4 = r.i4) = (SELECT count(*) FROM sf_ref g WHERE g.i4 = r.i4) AS same
  FROM (VALUES (17), (-3), (499)) r(i4);

-- ORDER BY ... LIMIT: filters on the top-N key select before its threshold
-- (ties on the key at the cut decided by id, as the heap's Sort does)
CREATE FUNCTION sf_topn(tab text, cond text, ord text, n int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  SELECT * INTO r FROM pf_diff(
    format('SELECT t, id, i4 FROM %s WHERE %s ORDER BY %s LIMIT %s', tab, cond, ord, n),
    format('SELECT t, id, i4 FROM %s r WHERE %s ORDER BY %s LIMIT %s',
           CASE WHEN tab = 'sf_both'
           THEN '(SELECT * FROM sf_ref UNION ALL SELECT * FROM sf_ref)'
           ELSE 'sf_ref' END, cond, ord, n), true);
  RETURN format('%s rows (heap %s), %s differences', r.rows_a, r.rows_b, r.differences);
END $$;
SELECT tab, cond, ord, sf_topn(tab, cond, ord, 25) AS top25
  FROM unnest(ARRAY['sf_dict', 'sf_plain', 'sf_both']) tab,
       unnest(ARRAY['t <> ''''', 't LIKE ''a%''', 't <> ''apple'' AND i4 > 0']) cond,
       unnest(ARRAY['t COLLATE "C", id', 't COLLATE "C" DESC, id',
                    't COLLATE "und-x-icu" NULLS FIRST, id']) ord
 ORDER BY 1, 2, 3;
SELECT sf_raw('SELECT t FROM sf_dict WHERE t <> '''' ORDER BY t COLLATE "C" LIMIT 10') AS key_raw,
       sf_raw('SELECT t FROM sf_dict WHERE i4 > 0 ORDER BY t COLLATE "C" LIMIT 10') AS other_raw;

-- forced parallel workers: the same rows
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT pf_plan_has('SELECT * FROM sf_both WHERE i4 = 17', 'Parallel Foreign Scan') AS parallel;
SELECT k, cond, sf_check('sf_both', cond) AS both_files
  FROM sf_conds WHERE k IN (1, 12, 25, 28, 31, 44, 46, 49) ORDER BY k;
SELECT cond, sf_topn('sf_both', cond, 't COLLATE "C", id', 25) AS top25
  FROM unnest(ARRAY['t <> ''''', 't LIKE ''a%''']) cond ORDER BY 1;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

DROP FUNCTION sf_check(text, text, text);
DROP FUNCTION sf_raw(text);
DROP FUNCTION sf_topn(text, text, text, int);
DROP TABLE sf_conds;
DROP TABLE sf_ref;
DROP SERVER sf_srv CASCADE;
