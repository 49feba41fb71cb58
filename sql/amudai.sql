--
-- amudai: foreign tables over Amudai shards written by
-- parquet_fdw_write_amudai() from a query over test/data/scan/rowgroups.parquet.
--
-- test/data/scan/rowgroups.parquet: 20480 rows, id = 1..20480; grp = (id - 1) / 2048;
-- n = id except NULL for grp 3 (ids 6145..8192); d = 2024-01-01 +
-- (id - 1) / 100 days; ts = 2024-01-01 + (id - 1) minutes; f = id / 4.0;
-- s = 's' || lpad(id, 5, '0').  Shards are written with stripes of 2048
-- rows, so stripe k holds ids 2048 k + 1 .. 2048 (k + 1), like the row
-- groups.  Every scan is compared row for row with the query it was
-- written from; the sums are checked against these formulas.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;
SELECT current_setting('data_directory') || '/pf_amudai_rg.amudai.shard' AS shard,
       current_setting('data_directory') || '/pf_amudai_empty.amudai.shard' AS empty_shard,
       current_setting('data_directory') || '/pf_amudai_cut.amudai.shard' AS cut_shard,
       current_setting('data_directory') || '/pf_amudai_flip.amudai.shard' AS flip_shard,
       current_setting('data_directory') || '/pf_amudai_list.amudai.shard' AS list_shard
\gset

CREATE SERVER am_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE am_rg (id bigint, grp int, n int, d date, ts timestamp,
                            f float8, s text)
  SERVER am_srv OPTIONS (filename :'rg');

-- every written type, with NULLs in some columns
CREATE VIEW am_src AS
SELECT id, grp, n, d, ts, f, s,
       id % 7 = 0 AS b,
       (id % 100)::int2 AS i2,
       CASE WHEN id % 5 = 0 THEN NULL ELSE (id * 1.5)::float4 END AS f4,
       ts::timestamptz AS tstz,
       CASE WHEN id % 4 = 0 THEN NULL ELSE (id / 100.0)::numeric(12,2) END AS num,
       CASE WHEN id % 3 = 0 THEN NULL ELSE decode(lpad(to_hex(id), 8, '0'), 'hex') END AS bin,
       md5(id::text)::uuid AS u,
       make_interval(secs => id) AS iv,
       CASE WHEN id > 20000 THEN NULL ELSE 'k' || (id % 10) END AS s2
  FROM am_rg;

SELECT parquet_fdw_write_amudai('SELECT * FROM am_src ORDER BY id', :'shard', 2048);

CREATE FOREIGN TABLE am (id bigint, grp int, n int, d date, ts timestamp,
                         f float8, s text, b bool, i2 int2, f4 real,
                         tstz timestamptz, num numeric, bin bytea, u uuid,
                         iv interval, s2 text)
  SERVER am_srv OPTIONS (filename :'shard');

-- the shard gives exactly the query's rows
SELECT count(*) AS differences FROM (
  (SELECT * FROM am EXCEPT ALL SELECT * FROM am_src)
  UNION ALL
  (SELECT * FROM am_src EXCEPT ALL SELECT * FROM am)) x;
-- the aggregates next to the same numbers from the formulas: num is NULL
-- for multiples of 4, so sum(num) = (sum(id) - 4 * (5120 * 5121 / 2)) / 100;
-- sum(i2) = 204 * (0 + ... + 99) + (1 + ... + 80); max(tstz) is minute 20479
-- (14 days 5:19), max(iv) 20480 seconds (5:41:20)
SELECT count(*), sum(id), count(n), sum(n), count(num), sum(num),
       count(bin), count(*) FILTER (WHERE b), count(f4), count(s2),
       sum(i2), min(ts), max(tstz), max(iv), sum(f)
  FROM am;
SELECT 20480 * 20481 / 2 AS sum_id,
       20480 * 20481 / 2 - (8192 * 8193 / 2 - 6144 * 6145 / 2) AS sum_n,
       (20480 * 20481 / 2 - 4 * (5120 * 5121 / 2)) / 100.0 AS sum_num,
       20480 - 20480 / 3 AS count_bin, 20480 / 7 AS count_b,
       20480 - 20480 / 5 AS count_f4, 20480 * 20481 / 2 / 4.0 AS sum_f,
       20480 - 20480 / 4 AS count_num, 204 * 4950 + 80 * 81 / 2 AS sum_i2;
-- the same values row by row for a few rows, in the file's order
SELECT * FROM am WHERE id IN (1, 2048, 6145, 20480) ORDER BY id;
-- count(*) reads no column
SELECT count(*) FROM am;

-- ===== stripe pruning with the field descriptors' statistics
CREATE FUNCTION am_stripes(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF ln ~ 'Stripes:' THEN RETURN regexp_replace(ln, '^.*Stripes: ', ''); END IF;
  END LOOP;
  RETURN NULL;
END $$;
CREATE FUNCTION am_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE query LOOP
    -- PostgreSQL 18 shows planning buffers and rows=N.00: read as 15 prints
    CONTINUE WHEN ln ~ '^ *(Planning:|Buffers: )';
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;
SELECT am_explain('EXPLAIN (COSTS OFF) SELECT * FROM am WHERE id = 5000');
SELECT am_stripes('SELECT * FROM am WHERE id = 5000'), count(*), min(id) FROM am WHERE id = 5000;
SELECT am_stripes('SELECT * FROM am WHERE id < 100'), count(*) FROM am WHERE id < 100;
SELECT am_stripes('SELECT * FROM am WHERE id >= 18432'), count(*) FROM am WHERE id >= 18432;
SELECT am_stripes('SELECT * FROM am WHERE id > 1000 AND id < 3000'), count(*) FROM am WHERE id > 1000 AND id < 3000;
SELECT am_stripes('SELECT * FROM am WHERE id = 1 OR id = 20480'), count(*) FROM am WHERE id = 1 OR id = 20480;
SELECT am_stripes('SELECT * FROM am WHERE id IN (3, 4097)'), count(*) FROM am WHERE id IN (3, 4097);
SELECT am_stripes('SELECT * FROM am WHERE id = 0'), count(*) FROM am WHERE id = 0;
-- grp is constant in each stripe; n is all NULL in stripe 3
SELECT am_stripes('SELECT * FROM am WHERE grp = 3'), count(*) FROM am WHERE grp = 3;
SELECT am_stripes('SELECT * FROM am WHERE grp <> 4'), count(*) FROM am WHERE grp <> 4;
SELECT am_stripes('SELECT * FROM am WHERE n = 7000'), count(*) FROM am WHERE n = 7000;
SELECT am_stripes('SELECT * FROM am WHERE n IS NULL'), count(*), min(id), max(id) FROM am WHERE n IS NULL;
SELECT am_stripes('SELECT * FROM am WHERE n IS NOT NULL'), count(*) FROM am WHERE n IS NOT NULL;
-- floats (< prunes; > too where FloatingStats count no NaN), timestamptz (DateTime ticks)
SELECT am_stripes('SELECT * FROM am WHERE f < 10'), count(*) FROM am WHERE f < 10;
SELECT am_stripes('SELECT * FROM am WHERE f > 5000'), count(*) FROM am WHERE f > 5000;
SELECT am_stripes('SELECT * FROM am WHERE tstz >= ''2024-01-15 00:00+00'''), count(*), min(id)
  FROM am WHERE tstz >= '2024-01-15 00:00+00';
SELECT am_stripes('SELECT * FROM am WHERE i2 > 200'), count(*) FROM am WHERE i2 > 200;
-- numeric (KustoDecimal min/max): num = id / 100, NULL for multiples of 4;
-- > does not prune (NaN sorts above everything and is not in the bounds)
SELECT am_stripes('SELECT * FROM am WHERE num < 10'), count(*) FROM am WHERE num < 10;
SELECT am_stripes('SELECT * FROM am WHERE num = 150.5'), count(*), min(id) FROM am WHERE num = 150.5;
SELECT am_stripes('SELECT * FROM am WHERE num > 200'), count(*) FROM am WHERE num > 200;
SELECT am_stripes('SELECT * FROM am WHERE num = ''NaN'''), count(*) FROM am WHERE num = 'NaN';
-- values known only at run time (generic plans, InitPlans) prune when the
-- first stripe is chosen
CREATE FUNCTION am_stripes_run(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
    IF ln ~ 'Stripes' THEN RETURN NEXT btrim(ln); END IF;
  END LOOP;
END $$;
PREPARE am_by_id(bigint) AS SELECT count(*), min(s) FROM am WHERE id = $1;
SET plan_cache_mode = force_generic_plan;
SELECT am_stripes_run('EXECUTE am_by_id(5000)');
EXECUTE am_by_id(5000);
EXECUTE am_by_id(20480);
RESET plan_cache_mode;
DEALLOCATE am_by_id;
SELECT am_stripes_run('SELECT count(*) FROM am WHERE id >= (SELECT 18433::bigint)');
SELECT count(*), min(id) FROM am WHERE id >= (SELECT 18433::bigint);
-- pruning never changes results: the same counts from the Parquet table
SELECT count(*) FROM am_src WHERE id > 1000 AND id < 3000;
SELECT count(*) FROM am_src WHERE tstz >= '2024-01-15 00:00+00';

-- ===== declared types other than the default ones
-- errors with paths reduced to file names
CREATE FUNCTION am_try(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  msg text;
BEGIN
  EXECUTE query;
  RETURN NEXT 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
  RETURN NEXT SQLSTATE || ': ' || regexp_replace(msg, '/[^"]*/', '', 'g');
END $$;
CREATE FOREIGN TABLE am_cast (id numeric, i2 bigint, ts date, tstz timestamp,
                              num numeric(10,1), f4 float8, s varchar(6))
  SERVER am_srv OPTIONS (filename :'shard');
SELECT count(*) AS differences FROM (
  (SELECT * FROM am_cast EXCEPT ALL
   SELECT id, i2, ts::date, tstz AT TIME ZONE 'UTC', num::numeric(10,1), f4, s::varchar(6) FROM am_src)
  UNION ALL
  (SELECT id, i2, ts::date, tstz AT TIME ZONE 'UTC', num::numeric(10,1), f4, s::varchar(6) FROM am_src
   EXCEPT ALL SELECT * FROM am_cast)) x;
SELECT * FROM am_cast WHERE id IN (1, 20480) ORDER BY id;
-- a type without a cast from the shard's
CREATE FOREIGN TABLE am_badtype (u int) SERVER am_srv OPTIONS (filename :'shard');
SELECT am_try('SELECT count(u) FROM am_badtype');
-- missing columns
CREATE FOREIGN TABLE am_missing (id bigint, nope int) SERVER am_srv OPTIONS (filename :'shard');
SELECT am_try('SELECT count(*) FROM am_missing');
ALTER FOREIGN TABLE am_missing OPTIONS (ADD missing_columns 'null');
SELECT count(*), count(nope), sum(id) FROM am_missing;

-- ===== an empty result
SELECT parquet_fdw_write_amudai('SELECT * FROM am_src WHERE false', :'empty_shard');
CREATE FOREIGN TABLE am_empty (id bigint, s text) SERVER am_srv OPTIONS (filename :'empty_shard');
SELECT count(*), sum(id) FROM am_empty;

-- ===== an array's lower bound cannot be stored: refused, and [:] renumbers
SELECT parquet_fdw_write_amudai('SELECT 1 AS id, ''[5:7]={1,2,3}''::int[] AS a', :'empty_shard');
SELECT parquet_fdw_write_amudai('SELECT 1 AS id, a[:] AS a FROM (SELECT ''[5:7]={1,2,3}''::int[] AS a) s',
                                :'empty_shard');
CREATE FOREIGN TABLE am_lbound (id bigint, a int[]) SERVER am_srv OPTIONS (filename :'empty_shard');
SELECT id, a, array_lower(a, 1) FROM am_lbound;

-- ===== the format option
CREATE FOREIGN TABLE am_fmt (id bigint) SERVER am_srv OPTIONS (filename :'shard', format 'amudai');
SELECT count(*), sum(id) FROM am_fmt;
CREATE FOREIGN TABLE am_bad_fmt (id bigint) SERVER am_srv OPTIONS (filename :'shard', format 'orc');
CREATE FOREIGN TABLE am_as_parquet (id bigint) SERVER am_srv OPTIONS (filename :'shard', format 'parquet');
\set VERBOSITY sqlstate
SELECT count(*) FROM am_as_parquet;
\set VERBOSITY default
CREATE FOREIGN TABLE am_mixed (id bigint) SERVER am_srv
  OPTIONS (filename :'shard');
ALTER FOREIGN TABLE am_mixed OPTIONS (SET filename :'rg');
SELECT count(*) FROM am_mixed;
-- a shard first: every file must be a shard (0A000); a Parquet file first:
-- the Parquet reader rejects the shard (XX001)
SELECT :'shard' || ', ' || :'rg' AS both, :'rg' || ', ' || :'shard' AS both2 \gset
ALTER FOREIGN TABLE am_mixed OPTIONS (SET filename :'both');
\set VERBOSITY sqlstate
SELECT count(*) FROM am_mixed;
ALTER FOREIGN TABLE am_mixed OPTIONS (SET filename :'both2');
SELECT count(*) FROM am_mixed;
\set VERBOSITY default

-- ===== damaged shards: a clean XX001 naming the shard, the server lives on
-- cut 100 bytes off the end (the footer and directory are gone)
SELECT lo_from_bytea(0, substr(pg_read_binary_file(:'shard'), 1,
                               length(pg_read_binary_file(:'shard')) - 100)) AS lo \gset
SELECT lo_export(:lo, :'cut_shard') = 1 AS exported, lo_unlink(:lo);
CREATE FOREIGN TABLE am_cut (id bigint) SERVER am_srv OPTIONS (filename :'cut_shard', format 'amudai');
SELECT am_try('SELECT count(*) FROM am_cut');
-- flip a byte inside the first block of the first buffer (offset 64 + 16):
-- the block checksum fails when that column is read
SELECT lo_from_bytea(0, set_byte(pg_read_binary_file(:'shard'), 80,
                                 get_byte(pg_read_binary_file(:'shard'), 80) # 255)) AS lo \gset
SELECT lo_export(:lo, :'flip_shard') = 1 AS exported, lo_unlink(:lo);
CREATE FOREIGN TABLE am_flip (id bigint, s text) SERVER am_srv OPTIONS (filename :'flip_shard');
SELECT am_try('SELECT sum(id) FROM am_flip');
SELECT count(*), max(s) FROM am_flip;
SELECT 1 AS alive;

-- ===== writer errors
SELECT parquet_fdw_write_amudai('SELECT 1 AS a', 'relative.amudai.shard');
SELECT parquet_fdw_write_amudai('SELECT point(1, 2) AS p', :'empty_shard');
SELECT parquet_fdw_write_amudai('SELECT 1 AS a, 2 AS a', :'empty_shard');
SELECT parquet_fdw_write_amudai('SELECT 1e40::numeric + 1 AS big', :'empty_shard');
SELECT parquet_fdw_write_amudai('SELECT ''infinity''::timestamp AS t', :'empty_shard');
SELECT parquet_fdw_write_amudai('SELECT 1 AS a', :'empty_shard', 0);
SELECT parquet_fdw_write_amudai('CREATE TABLE am_nope (a int)', :'empty_shard');
CREATE ROLE regress_am_nobody;
SET ROLE regress_am_nobody;
SELECT parquet_fdw_write_amudai('SELECT 1 AS a', :'empty_shard');
RESET ROLE;
DROP ROLE regress_am_nobody;
-- numerics keep their digits and scale; specials survive
SELECT parquet_fdw_write_amudai($$SELECT * FROM (VALUES
  (1, 0.000::numeric), (2, -123456789012345678901234567890.1234), (3, 'NaN'),
  (4, 'Infinity'), (5, '-Infinity'), (6, 1e30), (7, NULL), (8, 1.10)) v(k, x)$$,
  :'empty_shard');
CREATE FOREIGN TABLE am_num (k int, x numeric) SERVER am_srv OPTIONS (filename :'empty_shard');
SELECT k, x, scale(x) FROM am_num ORDER BY k;

-- non-ASCII text survives (UTF-8 checked per value), next to ASCII values
SELECT parquet_fdw_write_amudai($$SELECT * FROM (VALUES (1, 'abc'), (2, 'héllo wörld'),
  (3, '日本語'), (4, ''), (5, NULL), (6, '😀 emoji')) v(k, t)$$, :'empty_shard');
CREATE FOREIGN TABLE am_utf8 (k int, t text) SERVER am_srv OPTIONS (filename :'empty_shard');
SELECT k, t, length(t), octet_length(t) FROM am_utf8 ORDER BY k;

-- one-dimensional arrays are List columns: empty, NULL and NULL elements
CREATE VIEW am_lists AS
SELECT id, ARRAY[id, id * 2] AS ia,
       CASE WHEN id % 3 = 0 THEN NULL WHEN id % 3 = 1 THEN '{}'::text[]
            ELSE ARRAY['x' || id, NULL] END AS ta,
       ARRAY[d, d + 1] AS da,
       CASE WHEN id % 2 = 0 THEN ARRAY[f, -f, 'NaN'] END AS fa
  FROM am_rg;
SELECT parquet_fdw_write_amudai('SELECT * FROM am_lists', :'list_shard', 4096);
CREATE FOREIGN TABLE am_list (id bigint, ia bigint[], ta text[], da date[], fa float8[])
  SERVER am_srv OPTIONS (filename :'list_shard');
SELECT count(*) AS differences FROM (
  (SELECT * FROM am_list EXCEPT ALL SELECT * FROM am_lists)
  UNION ALL
  (SELECT * FROM am_lists EXCEPT ALL SELECT * FROM am_list)) x;
SELECT * FROM am_list WHERE id IN (1, 2, 3, 20480) ORDER BY id;
-- sum of all elements of ia = 3 * sum(id) = 629176320; ta is NULL for the
-- 6826 multiples of 3 and empty for the 6827 ids with id % 3 = 1
SELECT sum(e), (SELECT count(*) FROM am_list WHERE ta IS NULL) AS null_lists,
       (SELECT count(*) FROM am_list WHERE ta = '{}') AS empty_lists
  FROM am_list, unnest(ia) e;
SELECT parquet_fdw_write_amudai('SELECT ''{{1,2},{3,4}}''::int[] AS m', :'empty_shard');

-- parquet_create_foreign_table over a shard: the default types (appendix B
-- of the format notes; dates and timestamps were written as DateTime)
SELECT parquet_create_foreign_table('am_auto', 'am_srv', :'shard');
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'am_auto'::regclass AND attnum > 0 ORDER BY attnum;
SELECT count(*) AS differences FROM (
  (SELECT id, d, ts, num, iv, u FROM am_auto EXCEPT ALL
   SELECT id, d::timestamptz, ts::timestamptz, num, iv, u FROM am_src)
  UNION ALL
  (SELECT id, d::timestamptz, ts::timestamptz, num, iv, u FROM am_src EXCEPT ALL
   SELECT id, d, ts, num, iv, u FROM am_auto)) x;

-- Guid byte order (producers differ): by default the stored bytes in order
-- (the writer stores uuid's RFC 4122 bytes); guid_byte_order 'dotnet' reads
-- the first three groups little-endian, i.e. byte-swapped here
CREATE FOREIGN TABLE am_guid (id bigint, u uuid)
  SERVER am_srv OPTIONS (filename :'shard', guid_byte_order 'dotnet');
SELECT count(*) AS rows,
       count(*) FILTER (WHERE g.u = (
         substr(t, 7, 2) || substr(t, 5, 2) || substr(t, 3, 2) || substr(t, 1, 2) ||
         substr(t, 11, 2) || substr(t, 9, 2) || substr(t, 15, 2) || substr(t, 13, 2) ||
         substr(t, 17))::uuid) AS swapped
  FROM am_guid g JOIN (SELECT id, replace(u::text, '-', '') AS t FROM am_src) s USING (id);
SELECT u FROM am_guid WHERE id = 1;
SELECT md5('1')::uuid AS stored;
ALTER FOREIGN TABLE am_guid OPTIONS (SET guid_byte_order 'RFC4122');
SELECT count(*) FILTER (WHERE g.u = s.u) AS same
  FROM am_guid g JOIN am_src s USING (id);
ALTER FOREIGN TABLE am_guid OPTIONS (SET guid_byte_order 'big');  -- ERROR
DROP FOREIGN TABLE am_guid;

-- IMPORT FOREIGN SCHEMA makes a table of each shard of a folder too (here
-- the data directory, where this test writes its shards; LIMIT TO keeps
-- out the damaged ones)
SELECT current_setting('data_directory') AS datadir \gset
CREATE SCHEMA am_imp;
IMPORT FOREIGN SCHEMA :"datadir" LIMIT TO (pf_amudai_rg, no_such_table)
  FROM SERVER am_srv INTO am_imp;
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
 WHERE c.relnamespace = 'am_imp'::regnamespace ORDER BY c.relname, a.attnum;
SELECT count(*) AS differences FROM (
  (SELECT * FROM am_imp.pf_amudai_rg EXCEPT ALL SELECT * FROM am_auto)
  UNION ALL
  (SELECT * FROM am_auto EXCEPT ALL SELECT * FROM am_imp.pf_amudai_rg)) x;
SELECT count(*) FROM am_imp.pf_amudai_rg;
DROP SCHEMA am_imp CASCADE;

-- a shard scan inside a parallel plan (parallel-safe, not parallel-aware):
-- joined with the Parquet table it was written from, every row matches once
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT count(*), sum(am.id), sum(am_rg.n) FROM am_rg JOIN am ON am.id = am_rg.id AND am.s = am_rg.s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- aggregates over a shard are pushed down (sql/aggregate_amudai.sql)
SELECT am_explain('EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM am');
SELECT count(*), sum(id) FROM am;

-- ANALYZE samples chunks of 1024 rows, ten times the rows it wants: the
-- 20480 rows of this shard are fewer than the 30000 wanted, so all are read
-- and the statistics are exact: n is NULL for the 2048 ids of grp 3, grp
-- has 10 values of 2048 rows each, d changes every 100 ids (205 values),
-- id and s are distinct; ids were written in order
ANALYZE am;
SELECT reltuples FROM pg_class WHERE relname = 'am';
SELECT attname, null_frac, n_distinct, correlation
  FROM pg_stats WHERE tablename = 'am' AND attname IN ('id', 'grp', 'n', 'd', 's')
  ORDER BY attname;
SELECT most_common_vals, most_common_freqs
  FROM pg_stats WHERE tablename = 'am' AND attname = 'grp';
-- statistics target 1 wants 300 rows: 3 chunks of 1024 rows are read, at
-- random; each chunk holds distinct ids, and the table's row count stays
SET default_statistics_target = 1;
ANALYZE am;
SELECT reltuples FROM pg_class WHERE relname = 'am';
SELECT attname, n_distinct, correlation
  FROM pg_stats WHERE tablename = 'am' AND attname = 'id';
RESET default_statistics_target;
-- the planner now knows how many rows a filter keeps
SELECT substring(e, 'rows=\d+') AS estimate
  FROM am_explain('EXPLAIN SELECT * FROM am WHERE grp = 4') e LIMIT 1;

DROP SERVER am_srv CASCADE;
DROP FUNCTION am_stripes(text), am_stripes_run(text), am_explain(text), am_try(text);
