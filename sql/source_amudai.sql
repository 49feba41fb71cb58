--
-- source_amudai: the features of the one scan engine, on Amudai shards
-- written from the same rows as Parquet files: statistics and Bloom
-- pruning (plan time and run time), late quals, parallel scans, the sorted
-- merge, hive partitions and the filename column, rescans and ANALYZE.
-- Every result is compared with a heap table of the same rows, and the
-- units each table reads with the Parquet table's.
--
-- test/data/scan/rowgroups.parquet: 20480 rows, id = 1..20480; grp = (id - 1) / 2048;
-- n = id except NULL for grp 3; d = 2024-01-01 + (id - 1) / 100 days; ts =
-- 2024-01-01 + (id - 1) minutes; f = id / 4.0; s = 's' || lpad(id, 5, '0'),
-- in 10 row groups of 2048 rows.  The shard is written with stripes of 2048
-- rows, so stripe k holds the rows of row group k.
-- test/data/sorted/[abc].parquet: see sql/sorted.sql; one shard is written from
-- each file, in the files' order.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
\set sorted_files :abs_srcdir '/test/data/sorted/[abc].parquet'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT current_setting('data_directory') || '/pf_src_rg.amudai.shard' AS shard,
       current_setting('data_directory') || '/pf_src_parts' AS parts,
       current_setting('data_directory') || '/pf_src_sorted_' AS sorted_prefix
\gset

CREATE SERVER src_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE src_pq (id bigint, grp int, n int, d date, ts timestamp,
                             f float8, s text)
  SERVER src_srv OPTIONS (filename :'rg');
CREATE TABLE src_heap AS SELECT * FROM src_pq;
SELECT parquet_fdw_write_amudai('SELECT * FROM src_pq ORDER BY id', :'shard', 2048);
CREATE FOREIGN TABLE src_am (id bigint, grp int, n int, d date, ts timestamp,
                             f float8, s text)
  SERVER src_srv OPTIONS (filename :'shard');

-- how many rows of a query differ between two relations (0: the same rows)
CREATE FUNCTION src_diff(a text, b text, cond text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((SELECT * FROM %s WHERE %s EXCEPT ALL SELECT * FROM %s WHERE %s)
                  UNION ALL (SELECT * FROM %s WHERE %s EXCEPT ALL SELECT * FROM %s WHERE %s)) x',
                 a, cond, b, cond, b, cond, a, cond) INTO n;
  RETURN n;
END $$;
-- the EXPLAIN lines of a query that name units, with the format's words
-- made the same ("Stripes" and "Row Groups" both become "Units")
CREATE FUNCTION src_units(query text, with_analyze bool DEFAULT false) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE format('EXPLAIN (ANALYZE %s, COSTS OFF, TIMING OFF, SUMMARY OFF) %s',
                           CASE WHEN with_analyze THEN 'true' ELSE 'false' END, query) LOOP
    CONTINUE WHEN ln !~ '(Stripes|Row Groups)';
    RETURN NEXT regexp_replace(btrim(ln), 'Stripes|Row Groups', 'Units');
  END LOOP;
END $$;
-- the shard and the Parquet file of a query: the same unit lines?
CREATE FUNCTION src_same_units(cond text, with_analyze bool DEFAULT false) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE a text; p text;
BEGIN
  SELECT string_agg(u, '; ') INTO a FROM src_units('SELECT * FROM src_am WHERE ' || cond, with_analyze) u;
  SELECT string_agg(u, '; ') INTO p FROM src_units('SELECT * FROM src_pq WHERE ' || cond, with_analyze) u;
  RETURN CASE WHEN a = p THEN 'same: ' || a ELSE 'shard: ' || a || ' | parquet: ' || p END;
END $$;

-- ===== every row, every column
SELECT src_diff('src_am', 'src_heap', 'true') AS differences;
SELECT count(*), sum(id), count(n), sum(n), min(s), max(ts), sum(f) FROM src_am;
SELECT count(*), sum(id), count(n), sum(n), min(s), max(ts), sum(f) FROM src_heap;

-- ===== pruning by statistics at plan time: the same units as Parquet
SELECT src_same_units('id = 5000');
SELECT src_same_units('id BETWEEN 4000 AND 9000');
SELECT src_same_units('n IS NULL');
-- (date and timestamp columns are DateTime fields, timestamptz by default,
-- read through a cast: their bounds are not compared yet, so the shard
-- reads every stripe where Parquet prunes)
SELECT src_same_units('ts >= ''2024-01-14''');
SELECT src_same_units('d >= ''2024-07-01''');
SELECT src_same_units('id > 100000');
SELECT src_same_units('grp IN (1, 8) OR id < 3');
-- and what the scans read
SELECT src_same_units('id BETWEEN 4000 AND 9000', true);
SELECT src_same_units('n IS NULL AND id % 2 = 0', true);
SELECT cond, src_diff('src_am', 'src_heap', cond) AS differences
  FROM unnest(ARRAY['id = 5000', 'id BETWEEN 4000 AND 9000', 'n IS NULL',
                    'd >= ''2024-07-01''', 'id > 100000',
                    'grp IN (1, 8) OR id < 3', 's = ''s12345''']) cond;

-- ===== run-time pruning with parameters (generic plans), and rescans
SET plan_cache_mode = force_generic_plan;
PREPARE src_am_p(bigint) AS SELECT count(*), sum(id) FROM src_am WHERE id >= $1 AND id < $1 + 100;
PREPARE src_heap_p(bigint) AS SELECT count(*), sum(id) FROM src_heap WHERE id >= $1 AND id < $1 + 100;
SELECT line FROM src_units('EXECUTE src_am_p(6000)', true) line;
EXECUTE src_am_p(6000);
EXECUTE src_heap_p(6000);
EXECUTE src_am_p(20450);
EXECUTE src_heap_p(20450);
RESET plan_cache_mode;
-- a parameter per outer row: each rescan prunes again
SELECT x, (SELECT sum(f) FROM src_am WHERE id = x) AS am,
          (SELECT sum(f) FROM src_heap WHERE id = x) AS heap
  FROM generate_series(1, 20480, 4095) x;

-- ===== late quals: several conjuncts, columns converted for the rows that
-- reach them; the same rows as the heap
SET max_parallel_workers_per_gather = 0;
SELECT src_diff('src_am', 'src_heap',
                'grp <> 5 AND (n % 3 = 0 OR n IS NULL) AND s LIKE ''s1%''') AS differences;
SELECT src_diff('src_am', 'src_heap',
                'd >= ''2024-02-01'' AND n IS NULL AND f > 1600') AS differences;
SELECT count(*), sum(f), min(s), max(ts) FROM src_am
 WHERE id % 7 = 1 AND s > 's10000' AND ts < '2024-01-10';
SELECT count(*), sum(f), min(s), max(ts) FROM src_heap
 WHERE id % 7 = 1 AND s > 's10000' AND ts < '2024-01-10';
-- EXPLAIN ANALYZE's filtered rows, shard beside Parquet (a heap scan
-- filters more: it reads the row group "grp <> 5" prunes); Parquet also
-- prunes row groups by LIKE 's1%' (a prefix range), shard stripes do not
CREATE FUNCTION src_removed(tbl text, cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM %s WHERE %s',
                           tbl, cond) LOOP
    IF ln ~ 'Rows Removed by Filter' THEN RETURN btrim(ln); END IF;
  END LOOP;
  RETURN NULL;
END $$;
SELECT src_removed('src_am', cond) AS shard, src_removed('src_pq', cond) AS parquet
  FROM unnest(ARRAY['grp <> 5 AND (n % 3 = 0 OR n IS NULL) AND s LIKE ''s1%''',
                    'id % 7 = 1 AND s > ''s10000'' AND n % 2 = 0']) cond;
SELECT line FROM src_units('SELECT s FROM src_am WHERE id % 1000 = 0 AND s LIKE ''%5%''', true) line;
SELECT id, s FROM src_am WHERE id % 1000 = 0 AND s LIKE '%5%' ORDER BY id LIMIT 3;
SELECT id, s FROM src_heap WHERE id % 1000 = 0 AND s LIKE '%5%' ORDER BY id LIMIT 3;
RESET max_parallel_workers_per_gather;

-- ===== parallel scans: participants claim stripes from the DSM
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE FUNCTION src_plan(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    CONTINUE WHEN ln ~ '(Amudai Shard|Parquet File)s?:';
    RETURN NEXT ln;
  END LOOP;
END $$;
SELECT src_plan('SELECT count(*), sum(id) FROM src_am');
SELECT grp, count(*), sum(id), count(n), min(s), max(s) FROM src_am GROUP BY grp ORDER BY grp;
SELECT grp, count(*), sum(id), count(n), min(s), max(s) FROM src_heap GROUP BY grp ORDER BY grp;
SELECT src_units('SELECT sum(id) FROM src_am', true);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- ===== the sorted merge over shards
CREATE FOREIGN TABLE src_sorted_pq (k int, t text COLLATE "C", v int)
  SERVER src_srv OPTIONS (filename :'sorted_files');
SELECT parquet_fdw_write_amudai(format(
         'SELECT k, t, v FROM src_sorted_pq WHERE v %% 3 = %s ORDER BY k DESC NULLS FIRST, t, v', i),
         :'sorted_prefix' || chr(97 + i) || '.amudai.shard', 256)
  FROM generate_series(0, 2) i;
SELECT :'sorted_prefix' || '[abc].amudai.shard' AS sorted_shards \gset
CREATE FOREIGN TABLE src_sorted (k int, t text COLLATE "C", v int)
  SERVER src_srv OPTIONS (filename :'sorted_shards', sorted 'k DESC NULLS FIRST, t');
CREATE TABLE src_sorted_heap AS SELECT * FROM src_sorted_pq;
SELECT src_plan('SELECT * FROM src_sorted ORDER BY k DESC NULLS FIRST, t');
SELECT (SELECT string_agg(coalesce(k::text, 'N') || ':' || t, ',')
          FROM (SELECT k, t FROM src_sorted ORDER BY k DESC NULLS FIRST, t) s) =
       (SELECT string_agg(coalesce(k::text, 'N') || ':' || t, ',')
          FROM (SELECT k, t FROM src_sorted_heap ORDER BY k DESC NULLS FIRST, t) s) AS same_order;
SELECT k, t, v FROM src_sorted WHERE v % 100 = 1 ORDER BY k DESC NULLS FIRST, t LIMIT 5;
SELECT k, t, v FROM src_sorted_heap WHERE v % 100 = 1 ORDER BY k DESC NULLS FIRST, t LIMIT 5;
-- shards out of the declared order are an error, not a wrong answer
CREATE FUNCTION src_try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN regexp_replace(SQLSTATE || ': ' || SQLERRM, '/[^ ,"]*/', '', 'g');
END $$;
ALTER FOREIGN TABLE src_sorted OPTIONS (SET sorted 'k');
SELECT src_try('SELECT count(*) FROM (SELECT k FROM src_sorted ORDER BY k) s');

-- ===== hive partitions of shards and the filename column (the folders
-- made by the server, as superuser: the writer makes none)
\set cmd0 'mkdir -p ' :parts '/grp=0 ' :parts '/grp=1 ' :parts '/grp=2'
COPY (SELECT 1 WHERE false) TO PROGRAM :'cmd0';
SELECT parquet_fdw_write_amudai(format('SELECT id, n, s FROM src_pq WHERE grp = %s ORDER BY id', g),
                                format('%s/grp=%s/part.amudai.shard', :'parts', g), 1024)
  FROM generate_series(0, 2) g;
SELECT :'parts' || '/**/*.amudai.shard' AS parts_glob \gset
CREATE FOREIGN TABLE src_parts (id bigint, n int, s text, grp int,
                                file text OPTIONS (filename_column 'true'))
  SERVER src_srv OPTIONS (filename :'parts_glob');
SELECT grp, count(*), sum(id), count(n),
       count(*) FILTER (WHERE file = format('%s/grp=%s/part.amudai.shard', :'parts', grp)) AS right_file
  FROM src_parts GROUP BY grp ORDER BY grp;
SELECT count(*) AS differences FROM (
  (SELECT id, n, s, grp FROM src_parts EXCEPT ALL SELECT id, n, s, grp FROM src_heap WHERE grp < 3)
  UNION ALL
  (SELECT id, n, s, grp FROM src_heap WHERE grp < 3 EXCEPT ALL SELECT id, n, s, grp FROM src_parts)) x;
-- a partition qual leaves out the other folders' shards at plan time
SELECT regexp_replace(line, '/[^ ,"]*/', '', 'g') FROM src_plan(
  'SELECT count(*) FROM src_parts WHERE grp = 1') line;
SELECT count(*), sum(id) FROM src_parts WHERE grp = 1;
SELECT count(*), sum(id) FROM src_heap WHERE grp = 1;
-- the filename column in a qual
SELECT count(*), min(id) FROM src_parts WHERE file LIKE '%grp=2%';

-- ===== ANALYZE: the whole small table is read, so the statistics are the
-- Parquet table's exactly
ANALYZE src_am;
ANALYZE src_pq;
SELECT c.relname, c.reltuples FROM pg_class c
 WHERE c.relname IN ('src_am', 'src_pq') ORDER BY 1;
SELECT count(*) AS columns_with_stats FROM pg_stats WHERE tablename = 'src_am';
SELECT count(*) AS differing_stats FROM (
  SELECT attname, null_frac, n_distinct, most_common_vals::text, histogram_bounds::text, correlation
    FROM pg_stats WHERE tablename = 'src_am'
  EXCEPT
  SELECT attname, null_frac, n_distinct, most_common_vals::text, histogram_bounds::text, correlation
    FROM pg_stats WHERE tablename = 'src_pq') x;

DROP SERVER src_srv CASCADE;
DROP TABLE src_heap, src_sorted_heap;
