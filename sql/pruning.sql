--
-- pruning: row groups skipped with bloom filters and dictionaries for
-- equality and IN quals that min/max statistics cannot decide.
--
-- test/data/pruning/pruning.parquet (DuckDB: dictionary chunks with bloom filters) and
-- test/data/pruning/pruning_dict.parquet (this project's writer: dictionary chunks, no
-- bloom filters), both from test/data/pruning/make_pruning.mjs: 16384 rows, i = 1..16384
-- in 8 row groups of 2048, rg = (i - 1) / 2048, j = (i - 1) % 2048;
-- id = i; k = k4 = (j % 100) * 10 + rg; t = 'v' || k;
-- d = 2024-01-01 + ((j % 50) * 10 + rg) days; dm = k / 100 (decimal(9,2),
-- INT32 in pruning.parquet), dl = k / 1000 (decimal(18,3), INT64).
-- Every row group's k spans
-- rg .. 990 + rg, so statistics overlap, but k % 10 = rg.
-- Expected counts follow from the formulas: k = 425 is rg 5 with
-- j % 100 = 42, j = 42, 142, ..., 2042: 21 rows, sum(id) = 21 * 10241 +
-- (21 * 42 + 100 * 210) = 236943.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set pbloom :abs_srcdir '/test/data/pruning/pruning.parquet'
\set pdict :abs_srcdir '/test/data/pruning/pruning_dict.parquet'
SET datestyle = 'ISO, YMD';
-- plain scans: aggregate pushdown would answer some queries without them
SET parquet_fdw.enable_aggregate_pushdown = off;

CREATE FUNCTION prune_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text; avg text[];
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
    -- PostgreSQL 18 shows planning buffers and rows=16.80 (the per-loop
    -- average, 15 rounds it): read as 15 prints
    CONTINUE WHEN ln ~ '^ *(Planning:|Buffers: )';
    avg := regexp_match(ln, 'rows=([0-9]+\.[0-9]+) ');
    IF avg IS NOT NULL THEN
      ln := replace(ln, 'rows=' || avg[1], 'rows=' || round(avg[1]::numeric));
    END IF;
    CONTINUE WHEN ln ~ 'Peak Memory';
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;

CREATE SERVER prune_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE pb (id bigint, k bigint, k4 int, t text, d date,
                         dm numeric(9,2), dl numeric(18,3))
  SERVER prune_srv OPTIONS (filename :'pbloom');
CREATE FOREIGN TABLE pd (id bigint, k bigint, k4 int, t text, d date,
                         dm numeric(9,2), dl numeric(18,3))
  SERVER prune_srv OPTIONS (filename :'pdict');
-- heap copies: the same rows where no pruning can happen
CREATE TABLE hb AS SELECT * FROM pb;
CREATE TABLE hd AS SELECT * FROM pd;
SELECT count(*), sum(id), sum(k), count(DISTINCT k) FROM hb;
SELECT count(*) FROM hb JOIN hd USING (id, k, k4, t, d, dm, dl)
 WHERE dm = k / 100.0 AND dl = k / 1000.0;

-- ===== bloom filters (pruning.parquet)
SELECT prune_explain('SELECT count(*), sum(id) FROM pb WHERE k = 425');
SELECT count(*), sum(id) FROM pb WHERE k = 425;
-- IN: 425 in rg 5, 427 in rg 7, 999999 nowhere
SELECT prune_explain('SELECT count(*) FROM pb WHERE k IN (425, 427, 999999)');
SELECT count(*) FROM pb WHERE k IN (425, 427, 999999);
-- OR of equalities: each arm prunes by the bloom filter
SELECT prune_explain('SELECT count(*) FROM pb WHERE k = 425 OR k = 427');
-- int4 column, bigint constant; text under the C collation; dates
-- (d = 2024-01-01 + 425: rg 5, j % 50 = 42: 41 rows)
SELECT prune_explain('SELECT count(*) FROM pb WHERE k4 = 425::bigint');
SELECT count(*) FROM pb WHERE k4 = 425::bigint;
SELECT prune_explain('SELECT count(*) FROM pb WHERE t = ''v425'' COLLATE "C"');
SELECT count(*) FROM pb WHERE t = 'v425' COLLATE "C";
-- equality compares bytes under any deterministic collation (the database
-- default here), but not under a case-insensitive one, where 'V425'
-- equals the stored 'v425'
SELECT prune_explain('SELECT count(*) FROM pb WHERE t = ''v425''');
CREATE COLLATION prune_ci (provider = icu, locale = 'und-u-ks-level2',
                           deterministic = false);
SELECT prune_explain('SELECT count(*) FROM pb WHERE t = ''V425'' COLLATE prune_ci');
SELECT count(*) FROM pb WHERE t = 'V425' COLLATE prune_ci;
SELECT prune_explain('SELECT count(*) FROM pd WHERE t COLLATE prune_ci IN (''V425'', ''v427'')');
SELECT count(*) FROM pd WHERE t COLLATE prune_ci IN ('V425', 'v427');
DROP COLLATION prune_ci;
SELECT prune_explain('SELECT count(*) FROM pb WHERE d = date ''2024-01-01'' + 425');
SELECT count(*) FROM pb WHERE d = date '2024-01-01' + 425;
-- numeric from DECIMAL: the unscaled integer's plain encoding (INT32 for
-- dm, INT64 for dl); a value with more decimals than the column has no
-- encoding and prunes nothing (and matches no row)
SELECT prune_explain('SELECT count(*), sum(id) FROM pb WHERE dm = 4.25');
SELECT count(*), sum(id) FROM pb WHERE dm = 4.25;
SELECT prune_explain('SELECT count(*) FROM pb WHERE dl IN (0.425, 0.4270)');
SELECT count(*) FROM pb WHERE dl IN (0.425, 0.4270);
SELECT prune_explain('SELECT count(*) FROM pb WHERE dm = 4.251');
-- and min/max statistics: dm >= 9.96 means k >= 996, rg 6 and 7 (j % 100 = 99)
SELECT prune_explain('SELECT count(*) FROM pb WHERE dm >= 9.96');
SELECT count(*), min(k), max(k) FROM pb WHERE dm >= 9.96;
SELECT prune_explain('SELECT count(*) FROM pd WHERE dl < 0.002 OR dl > 0.996');
SELECT count(*), sum(k) FROM pd WHERE dl < 0.002 OR dl > 0.996;
-- statistics first: k = 991 is above rg 0's max (990), in rg 1 only
SELECT prune_explain('SELECT count(*) FROM pb WHERE k = 991');
SELECT count(*) FROM pb WHERE k = 991;
-- the value is in every row group's filter: nothing to prune
SELECT prune_explain('SELECT count(*) FROM pb WHERE k = 425 OR k4 < 10');
-- parameters: pruned at run time (generic plan)
SET plan_cache_mode = force_generic_plan;
PREPARE pk(bigint) AS SELECT count(*) FROM pb WHERE k = $1;
SELECT prune_explain('EXECUTE pk(425)');
EXECUTE pk(425);
DEALLOCATE pk;
RESET plan_cache_mode;

-- ===== dictionaries (pruning_dict.parquet, no bloom filters)
SELECT prune_explain('SELECT count(*), sum(id) FROM pd WHERE k = 425');
SELECT count(*), sum(id) FROM pd WHERE k = 425;
SELECT prune_explain('SELECT count(*) FROM pd WHERE t COLLATE "C" IN (''v425'', ''v427'')');
SELECT count(*) FROM pd WHERE t COLLATE "C" IN ('v425', 'v427');
SELECT prune_explain('SELECT count(*) FROM pd WHERE d = date ''2024-01-01'' + 425');
SELECT prune_explain('SELECT count(*) FROM pd WHERE k4 = 425');
SELECT prune_explain('SELECT count(*) FROM pd WHERE dm = 4.25 OR dl = 0.427');
SELECT count(*) FROM pd WHERE dm = 4.25 OR dl = 0.427;

-- ===== results equal the heap copies', for every value of k and t and
-- more.  Parameters: a correlated subquery prunes at run time with each
-- value (420..427 are in one row group each, 428 and 429 in none).
SELECT prune_explain('SELECT (SELECT count(*) FROM pb WHERE k = v) FROM generate_series(420, 429) v');
SELECT count(*) AS values_checked,
       count(*) FILTER (WHERE (SELECT count(*) FROM pb WHERE k = v) <>
                              (SELECT count(*) FROM hb WHERE k = v)) AS bloom_mismatches,
       count(*) FILTER (WHERE (SELECT count(*) FROM pd WHERE k = v) <>
                              (SELECT count(*) FROM hd WHERE k = v)) AS dict_mismatches
  FROM generate_series(-5, 1005, 3) v;
SELECT count(*) AS values_checked,
       count(*) FILTER (WHERE (SELECT count(*) FROM pb WHERE t = ('v' || v) COLLATE "C") <>
                              (SELECT count(*) FROM hb WHERE t = 'v' || v)) AS bloom_mismatches,
       count(*) FILTER (WHERE (SELECT count(*) FROM pd WHERE t = ('v' || v) COLLATE "C") <>
                              (SELECT count(*) FROM hd WHERE t = 'v' || v)) AS dict_mismatches
  FROM generate_series(-5, 1005, 3) v;
SELECT count(*) AS values_checked,
       count(*) FILTER (WHERE (SELECT count(*) FROM pb WHERE dm = v / 100.0) <>
                              (SELECT count(*) FROM hb WHERE dm = v / 100.0)) AS bloom_mismatches,
       count(*) FILTER (WHERE (SELECT count(*) FROM pd WHERE dl = v / 1000.0) <>
                              (SELECT count(*) FROM hd WHERE dl = v / 1000.0)) AS dict_mismatches
  FROM generate_series(-3, 1003, 3) v;
-- constants (plan-time pruning): IN lists of dates, one query per list
CREATE FUNCTION prune_mismatches(ft text, heap text, cond text, vals text[])
RETURNS int LANGUAGE plpgsql AS $$
DECLARE v text; a bigint; b bigint; n int := 0;
BEGIN
  FOREACH v IN ARRAY vals LOOP
    EXECUTE format('SELECT count(*) FROM %1$I WHERE ' || cond, ft, v) INTO a;
    EXECUTE format('SELECT count(*) FROM %1$I WHERE ' || cond, heap, v) INTO b;
    IF a <> b THEN n := n + 1; END IF;
  END LOOP;
  RETURN n;
END $$;
SELECT prune_mismatches('pb', 'hb', 'd IN (date %2$L, date %2$L + 3, date %2$L + 500)', vals) AS bloom_mismatches,
       prune_mismatches('pd', 'hd', 'd IN (date %2$L, date %2$L + 3, date %2$L + 500)', vals) AS dict_mismatches,
       prune_mismatches('pd', 'hd', 'k4 IN (%2$s, %2$s + 1) OR k = %2$s + 2', ivals) AS dict_or_mismatches,
       cardinality(vals) AS lists
  FROM (SELECT array_agg((date '2023-12-25' + 3 * n)::text) AS vals,
               array_agg((7 * n - 4)::text) AS ivals
          FROM generate_series(0, 180) n) s;
DROP FUNCTION prune_mismatches(text, text, text, text[]);

-- ===== page indexes (test/data/pruning/pageindex.parquet, test/tools/gen_pageindex.c):
-- 20000 rows, i = 1..20000, 4 row groups of 5000, data pages of 500 rows;
-- id = i; g = (i - 1) % 1000 (even pages 0..499, odd pages 500..999);
-- n = i, NULL on every fourth page ((i - 1) / 500 % 4 = 3); s = 's' ||
-- lpad(i, 5, '0'); l = list of i % 3 elements 10 i, 10 i + 1.  Rows of
-- pages no qual can match are skipped in every column (lists included),
-- and the rows read stay aligned across columns.
\set ppage :abs_srcdir '/test/data/pruning/pageindex.parquet'
CREATE FOREIGN TABLE pi (id bigint, g int, n int, s text, l bigint[])
  SERVER prune_srv OPTIONS (filename :'ppage');
CREATE TABLE hi AS SELECT * FROM pi;
SELECT count(*), sum(id), count(n), sum(g), min(s), max(s) FROM hi;
-- id 7234..7300: row group 1, page 4 (i = 7001..7500); 67 rows
SELECT prune_explain('SELECT count(*), sum(id), min(s), max(s), sum(g) FROM pi WHERE id BETWEEN 7234 AND 7300');
SELECT count(*), sum(id), min(s), max(s), sum(g) FROM pi WHERE id BETWEEN 7234 AND 7300;
-- g < 100: even pages only, 100 rows of each 1000
SELECT prune_explain('SELECT count(*), sum(id), max(s), sum(n) FROM pi WHERE g < 100');
SELECT count(*), sum(id), max(s), sum(n) FROM pi WHERE g < 100;
SELECT count(*), sum(id), max(s), sum(n) FROM hi WHERE g < 100;
-- lists stay with their rows: every element is 10 * id + its position
SELECT count(*) AS elements, sum(x) AS sum_elements,
       count(*) FILTER (WHERE x <> 10 * id + o - 1) AS misplaced
  FROM pi, unnest(l) WITH ORDINALITY AS u(x, o) WHERE g < 100 OR id = 12845;
SELECT id, l FROM pi WHERE id IN (7234, 7235, 7236, 12845, 19999) ORDER BY id;
-- OR unites pages: id 12845 is on an odd page (row group 2, page 5)
SELECT prune_explain('SELECT count(*) FROM pi WHERE g < 100 OR id = 12845');
SELECT count(*), sum(id) FROM pi WHERE g < 100 OR id = 12845;
-- null pages: IS NULL reads only pages with nulls, comparisons skip them
SELECT prune_explain('SELECT count(*) FROM pi WHERE n IS NULL');
SELECT count(*), min(id), max(id) FROM pi WHERE n IS NULL;
SELECT prune_explain('SELECT count(*) FROM pi WHERE n > 19000');
SELECT count(*), min(id) FROM pi WHERE n > 19000;
-- parameters (generic plan): row groups by statistics, then pages
SET plan_cache_mode = force_generic_plan;
PREPARE pp(bigint) AS SELECT id, g, n, s FROM pi WHERE id = $1;
SELECT prune_explain('EXECUTE pp(12845)');
EXECUTE pp(12845);
DEALLOCATE pp;
RESET plan_cache_mode;
-- equal to the heap copy for many values and ranges
SELECT count(*) AS values_checked,
       count(*) FILTER (WHERE (SELECT array_agg(id ORDER BY id) FROM pi WHERE g = v) IS DISTINCT FROM
                              (SELECT array_agg(id ORDER BY id) FROM hi WHERE g = v)) AS mismatches
  FROM generate_series(-1, 1000, 7) v;
SELECT count(*) AS ranges_checked,
       count(*) FILTER (WHERE (SELECT sum(n) + sum(length(s)) FROM pi WHERE id >= v AND id < v + 777 AND (n IS NULL OR g > 250)) IS DISTINCT FROM
                              (SELECT sum(n) + sum(length(s)) FROM hi WHERE id >= v AND id < v + 777 AND (n IS NULL OR g > 250))) AS mismatches
  FROM generate_series(-100, 20100, 333) v;
DROP TABLE hi;

DROP TABLE hb, hd;
DROP SERVER prune_srv CASCADE;
DROP FUNCTION prune_explain(text);
