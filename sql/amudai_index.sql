--
-- amudai_index: the RANGE_INDEX buffers (min/max of every 256 rows of
-- numeric, decimal and DateTime fields) and the Bloom filters of string
-- fields that parquet_fdw_write_amudai() writes, and how scans use them:
-- Bloom filters leave out stripes for = and IN on strings, range indexes
-- skip 256-row blocks inside the stripes that stay.  Every query is also
-- run over the heap table the shard was written from, and the rows must
-- be the same.
--
-- ai_src: k = 1..10000 (the shard is written sorted by k, stripes of 2500
-- rows, so stripe s holds k = 2500 s + 1 .. 2500 (s + 1)); m = k % 1000
-- (every stripe holds all of 0..999); f = k / 8, NULL for multiples of 11;
-- num = k / 100; ts = 2024-01-01 + k minutes; tag = 'g' || stripe || '-'
-- || k % 3 (three values per stripe, none in another); h = md5(k), 2500
-- distinct values per stripe (too many for a Bloom filter).
--
SET timezone = 'UTC';
SET extra_float_digits = 0;
-- the EXPLAINs below show the scan's own filtering (aggregates over shards
-- are pushed down otherwise: sql/aggregate_amudai.sql)
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT current_setting('data_directory') || '/pf_amudai_index.amudai.shard' AS shard
\gset

CREATE TABLE ai_src AS
SELECT k, k % 1000 AS m,
       CASE WHEN k % 11 = 0 THEN NULL ELSE k / 8.0 END::float8 AS f,
       (k / 100.0)::numeric(12,2) AS num,
       timestamptz '2024-01-01' + k * interval '1 minute' AS ts,
       'g' || (k - 1) / 2500 || '-' || k % 3 AS tag,
       md5(k::text) AS h
  FROM generate_series(1, 10000) k;
SELECT parquet_fdw_write_amudai('SELECT * FROM ai_src ORDER BY k', :'shard', 2500);

CREATE SERVER ai_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE ai (k int, m int, f float8, num numeric, ts timestamptz,
                         tag text, h text)
  SERVER ai_srv OPTIONS (filename :'shard');

-- the shard's rows are the table's
SELECT count(*) AS differences FROM (
  (SELECT * FROM ai EXCEPT ALL SELECT * FROM ai_src)
  UNION ALL
  (SELECT * FROM ai_src EXCEPT ALL SELECT * FROM ai)) x;

-- EXPLAIN ANALYZE of a scan with the shard's path left out (and the peak
-- memory, which depends on the platform)
CREATE FUNCTION ai_explain(query text, with_analyze bool DEFAULT true)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE format('EXPLAIN (ANALYZE %s, COSTS OFF, TIMING OFF, SUMMARY OFF) ',
                           CASE WHEN with_analyze THEN 'on' ELSE 'off' END) || query LOOP
    -- PostgreSQL 18 shows planning buffers and rows=N.00: read as 15 prints
    CONTINUE WHEN ln ~ '^ *(Planning:|Buffers: )';
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    CONTINUE WHEN ln ~ 'Peak Memory';
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;
-- the rows of the shard and of the heap table where cond holds
CREATE FUNCTION ai_check(cond text, OUT matching bigint, OUT differences bigint)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT count(*) FROM ai WHERE %s', cond) INTO matching;
  EXECUTE format('SELECT count(*) FROM (
                    (SELECT * FROM ai WHERE %1$s EXCEPT ALL SELECT * FROM ai_src WHERE %1$s)
                    UNION ALL
                    (SELECT * FROM ai_src WHERE %1$s EXCEPT ALL SELECT * FROM ai WHERE %1$s)) x',
                 cond) INTO differences;
END $$;

-- ===== range indexes
-- k between 1000 and 1300: stripe 0 only, and in it blocks 3..5 (768 rows)
SELECT ai_explain('SELECT * FROM ai WHERE k BETWEEN 1000 AND 1300');
SELECT * FROM ai_check('k BETWEEN 1000 AND 1300');
-- m < 5: every stripe, but only the blocks holding some k % 1000 < 5
SELECT ai_explain('SELECT * FROM ai WHERE m < 5');
SELECT * FROM ai_check('m < 5');
-- OR: blocks either arm leaves; IN lists
SELECT ai_explain('SELECT * FROM ai WHERE k < 300 OR k > 9800');
SELECT * FROM ai_check('k < 300 OR k > 9800');
SELECT ai_explain('SELECT * FROM ai WHERE k IN (10, 4000, 4001, 9999)');
SELECT * FROM ai_check('k IN (10, 4000, 4001, 9999)');
-- floats (NULLs count as invalid; > cannot skip, NaN sorts above all),
-- decimals, timestamps
SELECT ai_explain('SELECT * FROM ai WHERE f <= 40');
SELECT * FROM ai_check('f <= 40');
SELECT ai_explain('SELECT * FROM ai WHERE f > 1240');
SELECT * FROM ai_check('f > 1240');
SELECT ai_explain('SELECT * FROM ai WHERE num = 50.00');
SELECT * FROM ai_check('num = 50.00');
SELECT ai_explain('SELECT * FROM ai WHERE ts >= ''2024-01-07 22:00+00''');
SELECT * FROM ai_check('ts >= ''2024-01-07 22:00+00''');
-- two columns: the blocks both leave
SELECT ai_explain('SELECT * FROM ai WHERE k > 5000 AND m < 3');
SELECT * FROM ai_check('k > 5000 AND m < 3');
-- nothing to skip: no "Rows Skipped" line
SELECT ai_explain('SELECT count(*) FROM ai WHERE m >= 0');

-- ===== Bloom filters
-- a tag of stripe 2 only: the other three stripes are left out
SELECT ai_explain('SELECT * FROM ai WHERE tag = ''g2-1''');
SELECT * FROM ai_check('tag = ''g2-1''');
-- plain EXPLAIN says so too: the planner left them out
SELECT ai_explain('SELECT * FROM ai WHERE tag = ''g2-1''', false);
SELECT ai_explain('SELECT * FROM ai WHERE tag IN (''g0-2'', ''g3-0'')');
SELECT * FROM ai_check('tag IN (''g0-2'', ''g3-0'')');
SELECT ai_explain('SELECT * FROM ai WHERE tag = ''nowhere''');
SELECT * FROM ai_check('tag = ''nowhere''');
-- with a range index on another column
SELECT ai_explain('SELECT * FROM ai WHERE tag = ''g1-0'' AND k < 3000');
SELECT * FROM ai_check('tag = ''g1-0'' AND k < 3000');
-- h has too many distinct values for a filter: nothing is left out
SELECT ai_explain('SELECT * FROM ai WHERE h = md5(''77'')');
SELECT * FROM ai_check('h = md5(''77'')');

-- ===== values known only at run time (generic plans)
SET plan_cache_mode = force_generic_plan;
PREPARE ai_k(int) AS SELECT count(*), min(k), max(k) FROM ai WHERE k >= $1 AND k < $1 + 100;
SELECT ai_explain('EXECUTE ai_k(6000)');
EXECUTE ai_k(6000);
SELECT count(*), min(k), max(k) FROM ai_src WHERE k >= 6000 AND k < 6100;
PREPARE ai_tag(text) AS SELECT count(*), min(k), max(k) FROM ai WHERE tag = $1;
SELECT ai_explain('EXECUTE ai_tag(''g3-2'')');
EXECUTE ai_tag('g3-2');
SELECT count(*), min(k), max(k) FROM ai_src WHERE tag = 'g3-2';
RESET plan_cache_mode;
DEALLOCATE ai_k;
DEALLOCATE ai_tag;

DROP SERVER ai_srv CASCADE;
DROP TABLE ai_src;
DROP FUNCTION ai_explain(text, bool), ai_check(text);
