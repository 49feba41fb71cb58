--
-- scan: reading through foreign tables (projections, count(*), rescans,
-- several files), EXPLAIN, row-group pruning with statistics, flat memory
-- across row groups, and errors from bad files.
--
-- test/data/scan/rowgroups.parquet (test/data/scan/make_data.mjs): 20480 rows in 10 row groups
-- of 2048, sorted by id = 1..20480; grp = (id - 1) / 2048; n = id except
-- NULL in row group 3; d = 2024-01-01 + (id - 1) / 100 days;
-- ts = 2024-01-01 + (id - 1) minutes; f = id / 4.0; s = 's' || lpad(id, 5, '0').
-- Expected values below follow from these formulas (e.g. sum(id) =
-- 20480 * 20481 / 2 = 209725440).
--
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv corpus_root PARQUET_TESTING_DIR
\set corpus :corpus_root
\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET parquet_fdw.enable_aggregate_pushdown = off;  -- aggregates here test the scan (sql/aggregate.sql tests the pushdown)
SET extra_float_digits = 0;

-- EXPLAIN with paths reduced to file names
CREATE FUNCTION explain_filter(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE query LOOP
    -- PostgreSQL 18 shows planning buffers, rows=N.00 and "Disabled": read as 15 prints
    CONTINUE WHEN ln ~ '^ *(Planning:|Buffers: )';
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    ln := regexp_replace(ln, '\n *"Disabled": false,', '', 'g');
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;

-- row groups read according to EXPLAIN
CREATE FUNCTION rowgroups(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF ln ~ 'Row Groups:' THEN RETURN regexp_replace(ln, '^.*Row Groups: ', ''); END IF;
  END LOOP;
  RETURN NULL;
END $$;

CREATE SERVER scan_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE rg (id bigint, grp int, n int, d date, ts timestamp,
                         f float8, s text)
  SERVER scan_srv OPTIONS (filename :'rg');

-- ===== whole scans, projections, count(*)
SELECT count(*) FROM rg;
SELECT count(*), sum(id), min(id), max(id), count(n), sum(n) FROM rg;
SELECT * FROM rg WHERE id IN (1, 100, 101, 2048, 2049, 6145, 20480) ORDER BY id;
SELECT rg FROM rg WHERE id = 2;
SELECT grp, count(*), min(id), max(id), count(n), min(s), max(s)
  FROM rg GROUP BY grp ORDER BY grp;
SELECT id, s FROM rg LIMIT 3;
SELECT count(*) FROM rg WHERE s <> 's' || lpad(id::text, 5, '0')
   OR d <> date '2024-01-01' + ((id - 1) / 100)::int
   OR ts <> timestamp '2024-01-01' + (id - 1) * interval '1 minute'
   OR f <> id / 4.0 OR grp <> (id - 1) / 2048;

-- ===== rescans: a correlated subquery rescans the foreign table
SELECT x, (SELECT count(*) FROM rg WHERE rg.grp = x) AS rows,
       (SELECT max(id) FROM rg WHERE rg.grp = x) AS max_id
  FROM generate_series(0, 2) x;
-- a join of the table with itself
SELECT count(*), sum(a.id - b.id)
  FROM rg a JOIN rg b ON a.id = b.id + 2048 WHERE b.grp = 0;

-- ===== several files, in order
\set two :rg ',' :rg
CREATE FOREIGN TABLE rg2 (id bigint) SERVER scan_srv OPTIONS (filename :'two');
SELECT count(*), sum(id), count(DISTINCT id) FROM rg2;
SELECT array_agg(id) FROM (SELECT id FROM rg2 OFFSET 20478 LIMIT 4) s;
-- rescans of a list of files start again from the first file, also after
-- the end of the scan and in the middle of it
SELECT x, (SELECT count(*) FROM rg2 WHERE id = x) AS both_files,
       (SELECT id FROM rg2 WHERE id > x LIMIT 1) AS next_id
  FROM generate_series(20479, 20481) x;

-- ===== EXPLAIN: files and row groups
SELECT explain_filter('EXPLAIN (COSTS OFF) SELECT * FROM rg');
SELECT explain_filter('EXPLAIN (COSTS OFF) SELECT id FROM rg2 WHERE id = 42');
SELECT explain_filter('EXPLAIN (COSTS OFF, FORMAT JSON) SELECT count(*) FROM rg2');
-- the estimate comes from the metadata
SELECT explain_filter('EXPLAIN SELECT * FROM rg') LIMIT 1;

-- ===== row-group pruning: the result is checked on every row anyway
SELECT rowgroups('SELECT * FROM rg WHERE id = 5000'), count(*), min(id) FROM rg WHERE id = 5000;
SELECT rowgroups('SELECT * FROM rg WHERE 5000 = id'), count(*) FROM rg WHERE 5000 = id;
SELECT rowgroups('SELECT * FROM rg WHERE id < 100'), count(*) FROM rg WHERE id < 100;
SELECT rowgroups('SELECT * FROM rg WHERE id <= 2049'), count(*) FROM rg WHERE id <= 2049;
SELECT rowgroups('SELECT * FROM rg WHERE id > 18432'), count(*) FROM rg WHERE id > 18432;
SELECT rowgroups('SELECT * FROM rg WHERE id >= 18432'), count(*) FROM rg WHERE id >= 18432;
SELECT rowgroups('SELECT * FROM rg WHERE 100 > id'), count(*) FROM rg WHERE 100 > id;
SELECT rowgroups('SELECT * FROM rg WHERE id = 5000::int'), count(*) FROM rg WHERE id = 5000::int;
SELECT rowgroups('SELECT * FROM rg WHERE id > 1000 AND id < 3000'), count(*) FROM rg WHERE id > 1000 AND id < 3000;
SELECT rowgroups('SELECT * FROM rg WHERE id = 0'), count(*) FROM rg WHERE id = 0;
SELECT rowgroups('SELECT * FROM rg WHERE grp = 3'), count(*) FROM rg WHERE grp = 3;
-- dates (2024-03-01 is day 60: ids 6001..6100) and timestamps
-- (2024-01-15 is minute 20160: ids 20161..20480)
SELECT rowgroups('SELECT * FROM rg WHERE d = ''2024-03-01'''), count(*), min(id), max(id)
  FROM rg WHERE d = '2024-03-01';
SELECT rowgroups('SELECT * FROM rg WHERE ts >= ''2024-01-15'''), count(*), min(id)
  FROM rg WHERE ts >= '2024-01-15';
-- floats: < and = prune; > does not (NaN sorts above everything)
SELECT rowgroups('SELECT * FROM rg WHERE f < 10'), count(*) FROM rg WHERE f < 10;
SELECT rowgroups('SELECT * FROM rg WHERE f > 5000'), count(*) FROM rg WHERE f > 5000;
-- text prunes under the C collation only
SELECT rowgroups('SELECT * FROM rg WHERE s = ''s10000'' COLLATE "C"'), count(*), min(id)
  FROM rg WHERE s = 's10000' COLLATE "C";
SELECT rowgroups('SELECT * FROM rg WHERE s < ''s00100'' COLLATE "C"'), count(*)
  FROM rg WHERE s < 's00100' COLLATE "C";
-- an all-null chunk (n in row group 3) fails every comparison
SELECT rowgroups('SELECT * FROM rg WHERE n = 7000'), count(*) FROM rg WHERE n = 7000;
SELECT rowgroups('SELECT * FROM rg WHERE n > 0'), count(*) FROM rg WHERE n > 0;
-- <> prunes a row group holding only that value
SELECT rowgroups('SELECT * FROM rg WHERE grp <> 4'), count(*) FROM rg WHERE grp <> 4;
SELECT rowgroups('SELECT * FROM rg WHERE id BETWEEN 4000 AND 4200'), count(*) FROM rg WHERE id BETWEEN 4000 AND 4200;
-- IS [NOT] NULL with the null counts
SELECT rowgroups('SELECT * FROM rg WHERE n IS NULL'), count(*), min(id), max(id) FROM rg WHERE n IS NULL;
SELECT rowgroups('SELECT * FROM rg WHERE n IS NOT NULL'), count(*) FROM rg WHERE n IS NOT NULL;
SELECT rowgroups('SELECT * FROM rg WHERE id IS NULL'), count(*) FROM rg WHERE id IS NULL;
-- IN lists and = ANY (constant arrays)
SELECT rowgroups('SELECT * FROM rg WHERE id IN (1, 20480)'), count(*) FROM rg WHERE id IN (1, 20480);
SELECT rowgroups('SELECT * FROM rg WHERE id IN (0, 30000, NULL)'), count(*) FROM rg WHERE id IN (0, 30000, NULL);
SELECT rowgroups('SELECT * FROM rg WHERE grp = ANY (''{3,5}'')'), count(*) FROM rg WHERE grp = ANY ('{3,5}');
SELECT rowgroups('SELECT * FROM rg WHERE f IN (1, ''NaN'')'), count(*) FROM rg WHERE f IN (1, 'NaN');
SELECT rowgroups('SELECT * FROM rg WHERE s COLLATE "C" IN (''s00001'', ''s20000'')'), count(*)
  FROM rg WHERE s COLLATE "C" IN ('s00001', 's20000');
SELECT rowgroups('SELECT * FROM rg WHERE id NOT IN (1, 2)'), count(*) FROM rg WHERE id NOT IN (1, 2);
-- OR prunes when every arm does, AND when one does
SELECT rowgroups('SELECT * FROM rg WHERE id = 1 OR id = 20480'), count(*)
  FROM rg WHERE id = 1 OR id = 20480;
SELECT rowgroups('SELECT * FROM rg WHERE id < 10 OR (grp = 5 AND id + 0 > 0)'), count(*)
  FROM rg WHERE id < 10 OR (grp = 5 AND id + 0 > 0);
SELECT rowgroups('SELECT * FROM rg WHERE id < 10 OR id + 0 = 20000'), count(*)
  FROM rg WHERE id < 10 OR id + 0 = 20000;
-- what cannot prune: functions of the column, parameters of custom plans
SELECT rowgroups('SELECT * FROM rg WHERE id + 0 = 5000'), count(*) FROM rg WHERE id + 0 = 5000;
PREPARE q(bigint) AS SELECT count(*) FROM rg WHERE id < $1;
EXECUTE q(10);
EXECUTE q(4097);
DEALLOCATE q;

-- ===== run-time pruning: parameter values are known at executor start
-- (generic plans) and at each rescan (correlated subqueries)
CREATE FUNCTION explain_analyze(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
    -- PostgreSQL 18 shows planning buffers and rows=N.00: read as 15 prints
    CONTINUE WHEN ln ~ '^ *(Planning:|Buffers: )';
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    CONTINUE WHEN ln ~ 'Peak Memory';
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;
SET plan_cache_mode = force_generic_plan;
PREPARE q(bigint) AS SELECT count(*) FROM rg WHERE id < $1;
EXECUTE q(4097);
SELECT explain_analyze('EXECUTE q(4097)');
SELECT explain_analyze('EXECUTE q(NULL)');
EXECUTE q(NULL);
DEALLOCATE q;
RESET plan_cache_mode;
SELECT explain_analyze('SELECT x, (SELECT count(*) FROM rg WHERE grp = x) FROM generate_series(0, 2) x');
SELECT x, (SELECT sum(id) FROM rg WHERE grp = x) FROM generate_series(0, 2) x;
-- an InitPlan's value is computed on first use, after executor start: the
-- last row group is read (sum(id) of row group 9 is 2048 * (18433 + 20480) / 2)
-- (from PostgreSQL 17 EXPLAIN names an InitPlan's value (InitPlan 1).col1,
-- not $0, and its header loses "(returns $0)": expected/scan_1.out)
SELECT explain_analyze('SELECT id FROM rg WHERE id = (SELECT max(id) FROM rg)');
SELECT id FROM rg WHERE id = (SELECT max(id) FROM rg);
SELECT count(*), sum(id) FROM rg WHERE grp = (SELECT max(grp) FROM rg);
-- a nested loop's inner side with the outer value as parameter
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
SELECT x, count(*) FROM generate_series(3, 5) x JOIN rg ON rg.grp = x GROUP BY x ORDER BY x;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_material;
-- a stable comparison (timestamp column against a timestamptz) prunes only
-- at executor start: a plan made under one TimeZone runs under another.
-- ts < 12:00 UTC of Jan 2: 07:00 local in New York (1860 rows, row group 0
-- only), 21:00 local in Tokyo (2700 rows, row groups 0 and 1)
SET timezone = 'America/New_York';
PREPARE tzq AS SELECT count(*) FROM rg WHERE ts < '2024-01-02 12:00+00'::timestamptz;
EXECUTE tzq;
SET timezone = 'Asia/Tokyo';
EXECUTE tzq;
DEALLOCATE tzq;
SET timezone = 'UTC';
-- pruning per file of a list
SELECT rowgroups('SELECT * FROM rg2 WHERE id = 42'), count(*) FROM rg2 WHERE id = 42;

-- ===== memory stays flat across row groups and files: the peak of the
-- scan's memory reading 200 row groups (20 files) is that of 10
CREATE FUNCTION peak_kb(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || query INTO plan;
  RETURN (plan -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Peak Memory')::bigint;
END $$;
SELECT string_agg(:'rg', ',') AS twenty FROM generate_series(1, 20) \gset
CREATE FOREIGN TABLE rg20 (id bigint, grp int, n int, d date, ts timestamp, f float8, s text)
  SERVER scan_srv OPTIONS (filename :'twenty');
SELECT count(*), sum(id) FROM rg20;
SELECT peak_kb('SELECT sum(id), max(s), max(ts) FROM rg') AS one_file \gset
SELECT peak_kb('SELECT sum(id), max(s), max(ts) FROM rg20') AS twenty_files \gset
SELECT :one_file > 0 AS measured, :twenty_files <= :one_file * 1.25 + 64 AS flat;

-- ===== EXPLAIN ANALYZE's "Bytes Read": the pages the scan read, which for
-- whole column chunks is the chunks' compressed size from the footer
CREATE FUNCTION explain_analyze_timed(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) ' || query;
END $$;
CREATE FUNCTION bytes_read(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || query INTO plan;
  RETURN (plan -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Bytes Read')::bigint;
END $$;
SELECT bytes_read('SELECT sum(id) FROM rg') =
       (SELECT sum(compressed_size) FROM parquet_metadata(:'rg') WHERE path = 'id') AS id_chunks;
SELECT bytes_read('SELECT sum(id), max(s) FROM rg') =
       (SELECT sum(compressed_size) FROM parquet_metadata(:'rg') WHERE path IN ('id', 's')) AS id_s_chunks;
-- pruned to row group 4: only its chunk of id
SELECT bytes_read('SELECT sum(id) FROM rg WHERE id BETWEEN 8193 AND 8200') =
       (SELECT compressed_size FROM parquet_metadata(:'rg') WHERE path = 'id' AND row_group = 4) AS one_chunk;
-- count(*) reads no pages
SELECT bytes_read('SELECT count(*) FROM rg') AS count_star_bytes;
-- "Decode Time" only when timed
SELECT count(*) FILTER (WHERE ln ~ 'Decode Time: [0-9.]+ ms') AS timed
  FROM explain_analyze_timed('SELECT sum(id) FROM rg') ln;

-- ===== errors: SQLSTATE and where (file, row group, column)
CREATE FUNCTION pf_try(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  ctx text;
BEGIN
  EXECUTE query;
  RETURN NEXT 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS ctx = PG_EXCEPTION_CONTEXT;
  RETURN NEXT SQLSTATE;
  RETURN QUERY SELECT 'CONTEXT: ' || regexp_replace(l, '/[^"]*/', '', 'g')
    FROM regexp_split_to_table(ctx, E'\n') l WHERE l ~ '^(Parquet|converting)';
END $$;
-- a damaged page in row group 5 of column s (its header overwritten with
-- 0xff), written into the data directory with a large object: columns
-- before it and count(*) still read, s fails naming file, row group,
-- column and page
SELECT lo_from_bytea(0, overlay(pg_read_binary_file(:'rg')
         placing decode(repeat('ff', 64), 'hex')
         from (SELECT data_page_offset::int + 1 FROM parquet_metadata(:'rg')
                WHERE row_group = 5 AND path = 's'))) AS lo \gset
SELECT lo_export(:lo, 'pf_regress_damaged.parquet'), lo_unlink(:lo);
CREATE FOREIGN TABLE damaged (id bigint, s text)
  SERVER scan_srv OPTIONS (filename 'pf_regress_damaged.parquet');
SELECT count(*), sum(id) FROM damaged;
SELECT pf_try('SELECT max(s) FROM damaged');
SELECT pf_try('SELECT s FROM damaged WHERE id = 20480');
-- a value the declared type cannot hold: the converter's error, with the
-- position
CREATE FOREIGN TABLE rg_small (id bigint, n numeric(3,0))
  SERVER scan_srv OPTIONS (filename :'rg');
SELECT pf_try('SELECT sum(n) FROM rg_small');
\set f :corpus '/bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet'
CREATE FOREIGN TABLE bad1 (nation_key int, name bytea) SERVER scan_srv OPTIONS (filename :'f');
SELECT pf_try('SELECT * FROM bad1');
SELECT pf_try('SELECT count(*) FROM bad1');
\set f :corpus '/bad_data/PARQUET-1481.parquet'
CREATE FOREIGN TABLE bad2 ("Handle" int) SERVER scan_srv OPTIONS (filename :'f');
SELECT pf_try('SELECT * FROM bad2');
-- not a Parquet file, a missing file
\set f :corpus '/data/alltypes_plain.parquet.expected.csv'
CREATE FOREIGN TABLE bad3 (id int) SERVER scan_srv OPTIONS (filename :'f');
SELECT pf_try('SELECT * FROM bad3');
ALTER FOREIGN TABLE bad3 OPTIONS (SET filename '/nonexistent/x.parquet');
SELECT pf_try('SELECT * FROM bad3');
-- the server is still alive
SELECT count(*) FROM rg;

DROP SERVER scan_srv CASCADE;
DROP FUNCTION explain_filter(text), explain_analyze(text), rowgroups(text), peak_kb(text), pf_try(text);
