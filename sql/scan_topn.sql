--
-- scan_topn: top-N of plain scans.  SELECT ... ORDER BY key LIMIT n over
-- one foreign table gives the scan a threshold on the first sort key: rows
-- that sort after the n-th best key returned so far are dropped before
-- their other columns are converted, and row groups (stripes) whose
-- statistics show no row can beat it are skipped.  Sort and Limit stay
-- PostgreSQL's, so every answer here is compared with the heap table the
-- files were written from, over Parquet and Amudai, every sort key type,
-- both directions and null orders, ties at the cut and OFFSET.
--
LOAD 'parquet_fdw';
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT current_setting('data_directory') || '/pf_topn.parquet' AS pq_file,
       current_setting('data_directory') || '/pf_topn_bad.parquet' AS bad_file,
       current_setting('data_directory') || '/pf_topn.amudai.shard' AS am_file
\gset

CREATE SERVER topn_srv FOREIGN DATA WRAPPER parquet_fdw;
-- keys with ties (k), NULLs in every key, NaN and infinities in floats
CREATE TABLE topn_ref AS
SELECT i AS id,
       (i * 7919) % 97 AS k,
       CASE WHEN i % 11 = 0 THEN NULL ELSE ((i * 31) % 3000 - 1500)::int2 END AS i2,
       CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 104729) % 100003 * 1000000007::int8 END AS i8,
       CASE WHEN i % 17 = 0 THEN NULL WHEN i % 1001 = 5 THEN 'NaN'::float4
            ELSE ((i * 37) % 5000 / 8.0)::float4 END AS f4,
       CASE WHEN i % 19 = 0 THEN NULL WHEN i % 997 = 3 THEN '-Infinity'::float8
            WHEN i % 991 = 4 THEN 'NaN'::float8 ELSE (i * 53) % 7001 / 3.0 END AS f8,
       CASE WHEN i % 23 = 0 THEN NULL ELSE ((i * 61) % 9001 * 1.25 - 300)::numeric(9,2) END AS n,
       CASE WHEN i % 29 = 0 THEN NULL ELSE date '2000-01-01' + (i * 71) % 8000 END AS d,
       CASE WHEN i % 31 = 0 THEN NULL
            ELSE timestamp '1990-01-01' + ((i * 89) % 50000) * interval '1 hour 1 s' END AS ts,
       CASE WHEN i % 37 = 0 THEN NULL
            ELSE timestamptz '2020-02-29 12:00+00' - ((i * 97) % 40000) * interval '1 min' END AS tstz,
       CASE WHEN i % 41 = 0 THEN NULL
            ELSE (ARRAY['apple', 'Apple', 'banana', 'Banana', 'cherry', 'Éclair', 'eclair', 'zeta'])[i % 8 + 1]
                 || ((i * 7) % 500)::text END AS t,
       ('{"id": ' || i || ', "pos": [' || i % 5 || ']}')::jsonb AS j
  FROM generate_series(1, 20000) i;
COPY topn_ref TO :'pq_file' (FORMAT parquet, row_group_size 2000, page_size 4096);
SELECT parquet_fdw_write_amudai('SELECT id, k, i2, i8, f4, f8, n, d, ts, tstz, t, j::text AS j FROM topn_ref',
                                :'am_file', 2000);
CREATE FOREIGN TABLE topn_pq (id int, k int, i2 int2, i8 int8, f4 float4,
  f8 float8, n numeric(9,2), d date, ts timestamp, tstz timestamptz, t text,
  j jsonb) SERVER topn_srv OPTIONS (filename :'pq_file');
CREATE FOREIGN TABLE topn_am (id int, k int, i2 int2, i8 int8, f4 float4,
  f8 float8, n numeric(9,2), d date, ts timestamp, tstz timestamptz, t text,
  j text) SERVER topn_srv OPTIONS (filename :'am_file');

-- the plan lines that do not depend on the version or the data directory
CREATE FUNCTION topn_explain(query text, opts text DEFAULT 'VERBOSE, COSTS OFF')
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (' || opts || ') ' || query LOOP
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    IF ln ~ 'Limit|Gather|Sort Key|Foreign Scan|Top-N|Row Groups|Stripes|Rows Removed' THEN
      RETURN NEXT ln;
    END IF;
  END LOOP;
END $$;

-- the plan: the filter on the first key, n = count + offset
SELECT topn_explain('SELECT * FROM topn_pq ORDER BY i8 DESC, id LIMIT 5 OFFSET 2');
SELECT topn_explain('SELECT id FROM topn_am ORDER BY t NULLS FIRST LIMIT 3');

-- Every key type, both directions and null orders, with and without
-- OFFSET, on both formats: the ids in order equal the heap table's (id
-- breaks the ties, so the order is total).
CREATE FUNCTION topn_check(tab text, key text, lim int, off int, qual text,
                           ref text DEFAULT 'topn_ref')
RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  got int[];
  want int[];
  q text := 'SELECT array_agg(id) FROM (SELECT id FROM %I %s ORDER BY %s, id LIMIT %s OFFSET %s) s';
BEGIN
  EXECUTE format(q, tab, qual, key, lim, off) INTO got;
  EXECUTE format(q, ref, qual, key, lim, off) INTO want;
  RETURN got IS NOT DISTINCT FROM want;
END $$;
SELECT key, dir,
       bool_and(topn_check(tab, key || dir, lim, off, '')) AS same
  FROM unnest(ARRAY['k', 'i2', 'i8', 'f4', 'f8', 'n', 'd', 'ts', 'tstz', 't']) key,
       unnest(ARRAY['', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST']) dir,
       unnest(ARRAY['topn_pq', 'topn_am']) tab,
       (VALUES (1, 0), (7, 0), (10, 25), (400, 3)) l(lim, off)
 GROUP BY key, dir ORDER BY key, dir;

-- ties at the cut: k has ~206 rows per value; only the key decides, so
-- the multiset of keys is compared (the rows among the ties may differ)
SELECT (SELECT array_agg(k ORDER BY k) FROM (SELECT k FROM topn_pq ORDER BY k LIMIT 300) s) =
       (SELECT array_agg(k ORDER BY k) FROM (SELECT k FROM topn_ref ORDER BY k LIMIT 300) s)
       AS tied_keys_same;
SELECT count(*) = 300 AS right_count,
       bool_and(t.j = r.j::text AND t.n IS NOT DISTINCT FROM r.n) AS rows_whole
  FROM (SELECT * FROM topn_am ORDER BY k DESC LIMIT 300) t JOIN topn_ref r USING (id);
SELECT count(*) = 300 AS right_count,
       bool_and(t.j = r.j AND t.n IS NOT DISTINCT FROM r.n) AS rows_whole
  FROM (SELECT * FROM topn_pq ORDER BY k LIMIT 300) t JOIN topn_ref r USING (id);

-- quals the scan evaluates (pushed, LIKE, a later conjunct on a lazy column)
SELECT qual, bool_and(topn_check(tab, key, 9, 1, qual)) AS same
  FROM unnest(ARRAY['WHERE id > 15000', 'WHERE t LIKE ''%an%''',
                    'WHERE d > date ''2010-01-01'' AND t LIKE ''%e%''',
                    'WHERE i2 IS NULL']) qual,
       unnest(ARRAY['ts', 'f8 DESC', 'i2 NULLS FIRST']) key,
       unnest(ARRAY['topn_pq', 'topn_am']) tab
 GROUP BY qual ORDER BY qual;
SELECT topn_explain($$SELECT * FROM topn_pq WHERE t LIKE '%an%' ORDER BY f8 DESC, id LIMIT 4$$,
                    'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');

-- a text key in a collation that is not byte order: compared with the
-- sort operator's own comparison (no statistics skipping)
SELECT bool_and(topn_check(tab, 't COLLATE "en-x-icu"' || dir, 11, 2, '')) AS icu_same
  FROM unnest(ARRAY['topn_pq', 'topn_am']) tab, unnest(ARRAY['', ' DESC']) dir;

-- statistics skip the row groups that cannot beat the threshold: ids are
-- written in order, so after the first row group every other is skipped
SELECT topn_explain('SELECT * FROM topn_pq ORDER BY id LIMIT 3',
                    'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
SELECT topn_explain('SELECT * FROM topn_am ORDER BY id LIMIT 3',
                    'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
-- the opposite order: the stripe whose statistics promise the greatest ids
-- is read first (every row of it beats the ones before), the rest skipped
SELECT topn_explain('SELECT * FROM topn_am ORDER BY id DESC NULLS LAST LIMIT 3',
                    'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
-- nulls first: a unit is skipped only when it has no null
SELECT topn_explain('SELECT * FROM topn_pq ORDER BY id DESC LIMIT 3',
                    'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
SELECT topn_explain('SELECT * FROM topn_pq ORDER BY i2 NULLS FIRST LIMIT 3',
                    'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
SELECT * FROM topn_pq ORDER BY id LIMIT 3;
SELECT * FROM topn_am ORDER BY id DESC NULLS LAST LIMIT 3;

-- no top-N: a qual the scan leaves to the executor (a subplan), a system
-- column, an expression key, grouping, a join, no LIMIT, the setting off,
-- a Param LIMIT in a generic plan
CREATE FUNCTION topn_used(query text) RETURNS bool LANGUAGE sql
  AS $$ SELECT bool_or(ln ~ 'Top-N Filter') FROM topn_explain(query) ln $$;
SELECT label, topn_used(query) FROM (VALUES
  ('subplan qual', 'SELECT id FROM topn_pq WHERE id NOT IN (SELECT id FROM topn_ref WHERE id < 5) ORDER BY k LIMIT 3'),
  ('system column', 'SELECT id FROM topn_pq WHERE tableoid > 0 ORDER BY k LIMIT 3'),
  ('expression key', 'SELECT id FROM topn_pq ORDER BY k + 1 LIMIT 3'),
  ('distinct', 'SELECT DISTINCT k FROM topn_pq ORDER BY k LIMIT 3'),
  ('aggregate', 'SELECT k, count(*) FROM topn_pq GROUP BY k ORDER BY k LIMIT 3'),
  ('join', 'SELECT a.id FROM topn_pq a JOIN topn_ref b USING (id) ORDER BY a.k LIMIT 3'),
  ('no limit', 'SELECT id FROM topn_pq ORDER BY k'),
  ('plain key', 'SELECT id FROM topn_pq ORDER BY k LIMIT 3')) q(label, query);
SET parquet_fdw.enable_scan_topn = off;
SELECT topn_used('SELECT id FROM topn_pq ORDER BY k LIMIT 3') AS used_when_off;
RESET parquet_fdw.enable_scan_topn;
SET plan_cache_mode = force_generic_plan;
PREPARE topn_param(int) AS SELECT id FROM topn_pq ORDER BY k, id LIMIT $1;
SELECT topn_used('EXECUTE topn_param(3)') AS used_with_param_limit;
EXECUTE topn_param(3);
RESET plan_cache_mode;
SELECT id FROM topn_pq WHERE id NOT IN (SELECT id FROM topn_ref WHERE id < 500)
 ORDER BY k, id LIMIT 3;
SELECT id FROM topn_ref WHERE id NOT IN (SELECT id FROM topn_ref WHERE id < 500)
 ORDER BY k, id LIMIT 3;

-- rescans (a correlated subquery): the threshold starts over each time
SELECT r.id,
       (SELECT array_agg(id) FROM (SELECT p.id FROM topn_pq p WHERE p.k = r.k
                                    ORDER BY p.i8 DESC NULLS LAST, p.id LIMIT 2) s) AS pq,
       (SELECT array_agg(id) FROM (SELECT h.id FROM topn_ref h WHERE h.k = r.k
                                    ORDER BY h.i8 DESC NULLS LAST, h.id LIMIT 2) s) AS heap
  FROM topn_ref r WHERE r.id <= 4 ORDER BY r.id;

-- LIMIT 0 (planned as 1) and LIMIT beyond the table
SELECT * FROM topn_pq ORDER BY k LIMIT 0;
SELECT bool_and(topn_check(tab, 'n DESC', 50000, 0, '')) AS all_rows_same
  FROM unnest(ARRAY['topn_pq', 'topn_am']) tab;
SELECT bool_and(topn_check(tab, 'n DESC', 20, 19990, '')) AS offset_at_end_same
  FROM unnest(ARRAY['topn_pq', 'topn_am']) tab;

-- parallel workers: each keeps its own threshold
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT bool_or(ln ~ 'Gather') AND bool_or(ln ~ 'Top-N Filter: ts DESC') AS parallel_plan
  FROM topn_explain('SELECT * FROM topn_pq ORDER BY ts DESC, id LIMIT 13 OFFSET 4',
                    'VERBOSE, COSTS OFF') ln;
SELECT key, bool_and(topn_check(tab, key, 13, 4, '')) AS parallel_same
  FROM unnest(ARRAY['ts DESC', 'f4', 't NULLS FIRST']) key,
       unnest(ARRAY['topn_pq', 'topn_am']) tab
 GROUP BY key ORDER BY key;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- Columns other than the key are converted for the rows that can be in
-- the top n only: this file's text column "num" holds digits in rows 1-3
-- and words elsewhere, read as integer it fails on any other row.
CREATE TABLE topn_bad AS
SELECT i AS id, CASE WHEN i <= 3 THEN (i * 10)::text ELSE 'word' || i END AS num
  FROM generate_series(1, 10000) i;
COPY topn_bad TO :'bad_file' (FORMAT parquet, row_group_size 10000);
CREATE FOREIGN TABLE topn_bad_pq (id int, num int) SERVER topn_srv
  OPTIONS (filename :'bad_file');
SELECT * FROM topn_bad_pq ORDER BY id LIMIT 3;
-- the same query with an expression key (no top-N) converts every row
\set VERBOSITY terse
SELECT * FROM topn_bad_pq ORDER BY id + 0 LIMIT 3;
\set VERBOSITY default

-- Text keys whose values come from a dictionary are judged once per entry
-- and threshold, a row by its entry.  Every row group of topn_words has a
-- dictionary of the same size in another order (its first values rotate),
-- so entry numbers mean other words from one row group to the next; the
-- threshold tightens across row groups.  The same rows without
-- dictionaries take the per-value path.  Collations: the database's, "C",
-- ICU, and a case-insensitive (nondeterministic) one where "=" and "<>"
-- are not bytewise.
CREATE COLLATION topn_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE topn_words AS
SELECT i AS id,
       CASE WHEN i % 43 = 0 THEN NULL
            WHEN i % 7 = 0 THEN ''
            ELSE (ARRAY['apple', 'Apple', 'banana', 'Banana', 'Éclair', 'eclair', 'zeta', 'Zeta'])[(i + i / 1000) % 8 + 1]
                 || ((i * 7 + i / 1000 * 13) % 24)::text END AS w
  FROM generate_series(1, 12000) i;
COPY topn_words TO :'pq_file' (FORMAT parquet, row_group_size 1000, page_size 1024);
CREATE FOREIGN TABLE topn_words_pq (id int, w text) SERVER topn_srv
  OPTIONS (filename :'pq_file');
SELECT current_setting('data_directory') || '/pf_topn_plain.parquet' AS plain_file \gset
COPY topn_words TO :'plain_file' (FORMAT parquet, row_group_size 1000, dictionary false);
CREATE FOREIGN TABLE topn_words_plain (id int, w text) SERVER topn_srv
  OPTIONS (filename :'plain_file');
SELECT coll, qual,
       bool_and(topn_check(tab, 'w' || coll || dir, lim, off, qual, 'topn_words')) AS same
  FROM unnest(ARRAY['', ' COLLATE "C"', ' COLLATE "en-x-icu"', ' COLLATE topn_ci']) coll,
       unnest(ARRAY['', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST']) dir,
       unnest(ARRAY['', 'WHERE w <> ''''', 'WHERE w = ''zeta5''',
                    'WHERE w COLLATE topn_ci = ''ZETA5''',
                    'WHERE w COLLATE topn_ci <> ''apple1'' AND id > 100']) qual,
       unnest(ARRAY['topn_words_pq', 'topn_words_plain']) tab,
       (VALUES (1, 0), (10, 0), (57, 13)) l(lim, off)
 GROUP BY coll, qual ORDER BY coll, qual;
-- the threshold drops rows by their entry; "<> ''" is tested first, on the
-- batch's raw values (scan_filter.c), so it counts the rows both reject
SELECT topn_explain($$SELECT w FROM topn_words_pq WHERE w <> '' ORDER BY w COLLATE "en-x-icu" LIMIT 10$$,
                    'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
SELECT w FROM topn_words_pq WHERE w <> '' ORDER BY w COLLATE "en-x-icu" DESC LIMIT 10;
SELECT w FROM topn_words WHERE w <> '' ORDER BY w COLLATE "en-x-icu" DESC LIMIT 10;
DROP TABLE topn_words;
DROP COLLATION topn_ci;

-- A deferred column asked for row by row (few rows pass), then for the
-- rest of each batch (most do).  Without and with a top-N threshold (under
-- which the first conjunct's column is deferred too).
CREATE TABLE topn_late AS
SELECT i AS id, CASE WHEN i < 1500 THEN i % 97 = 0 ELSE i % 5 <> 0 END AS flag,
       'payload ' || i AS payload
  FROM generate_series(1, 9000) i;
SELECT current_setting('data_directory') || '/pf_topn_late.parquet' AS late_file \gset
COPY topn_late TO :'late_file' (FORMAT parquet, row_group_size 9000, page_size 1024);
CREATE FOREIGN TABLE topn_late_pq (id int, flag bool, payload text) SERVER topn_srv
  OPTIONS (filename :'late_file');
SELECT (SELECT md5(string_agg(payload, ',' ORDER BY id)) FROM topn_late_pq WHERE flag) =
       (SELECT md5(string_agg(payload, ',' ORDER BY id)) FROM topn_late WHERE flag) AS late_same;
SELECT (SELECT array_agg(payload) FROM (SELECT payload FROM topn_late_pq WHERE payload LIKE '%1%' ORDER BY id DESC LIMIT 30) s) =
       (SELECT array_agg(payload) FROM (SELECT payload FROM topn_late WHERE payload LIKE '%1%' ORDER BY id DESC LIMIT 30) s) AS late_topn_same;
DROP TABLE topn_late;

DROP FUNCTION topn_check, topn_used, topn_explain;
DROP SERVER topn_srv CASCADE;
DROP TABLE topn_ref, topn_bad;
