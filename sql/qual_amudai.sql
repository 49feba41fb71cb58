--
-- qual_amudai: every qual form of sql/qual.sql on Amudai shards, whose
-- stripe statistics, Bloom filters and range indexes prune with the one
-- qual analyzer (src/fdw/qual.c) through source_amudai.c.
--
-- The shards are written with parquet_fdw_write_amudai from the rows of
-- qual.sql's fixtures, in several stripes, so pruning matters:
-- test/data/scan/rowgroups.parquet (20480 rows sorted by id; see qual.sql)
-- in 10 stripes of 2048 rows (stripe k = row group k), and
-- test/data/aggregate/aggregate.parquet (12000 rows) in 4 stripes of 3000.
-- Every query runs on the shard table and on a heap table of the same rows
-- (qa_same: row counts and differences as multisets); EXPLAIN pins the
-- stripes left out and the rows the range indexes skip.
--
-- Shards store dates and timestamps as DateTime, read as timestamptz by
-- default: qa_rgl declares d date and ts timestamp (qual.sql's forms as
-- written), qa_rgz the default timestamptz for both, and every qa_same and
-- sweep on qa_rgl also runs on qa_rgz (the same query, its own heap).
-- Likewise qa_agg (l_shipdate date) and qa_aggz (l_shipdate timestamptz).
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set q_rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
\set q_agg :abs_srcdir '/test/data/aggregate/aggregate.parquet'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;
SELECT current_setting('data_directory') || '/pf_qa_rg.amudai.shard' AS rg_shard,
       current_setting('data_directory') || '/pf_qa_agg.amudai.shard' AS agg_shard,
       current_setting('data_directory') || '/pf_qa_txt.amudai.shard' AS txt_shard,
       current_setting('data_directory') || '/pf_qa_flt.amudai.shard' AS flt_shard
\gset

CREATE SERVER qa_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE qa_rg_pq (id bigint, grp int, n int, d date, ts timestamp,
                               f float8, s text)
  SERVER qa_srv OPTIONS (filename :'q_rg');
CREATE FOREIGN TABLE qa_agg_pq (
    l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate date, q2 numeric(9,2), wide numeric(38,4),
    i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, fn float8, b boolean)
  SERVER qa_srv OPTIONS (filename :'q_agg');
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT parquet_fdw_write_amudai('SELECT * FROM qa_rg_pq ORDER BY id', :'rg_shard', 2048);
-- (wide, numeric(38,4), has more digits than an Amudai decimal: left out)
SELECT parquet_fdw_write_amudai('SELECT l_orderkey, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, q2, i2, i4, i8, f4, f8, fn, b
                                  FROM qa_agg_pq', :'agg_shard', 3000);
CREATE FOREIGN TABLE qa_rgl (id bigint, grp int, n int, d date, ts timestamp,
                             f float8, s text)
  SERVER qa_srv OPTIONS (filename :'rg_shard');
CREATE FOREIGN TABLE qa_rgz (id bigint, grp int, n int, d timestamptz,
                             ts timestamptz, f float8, s text)
  SERVER qa_srv OPTIONS (filename :'rg_shard');
CREATE FOREIGN TABLE qa_rgv (id bigint, s varchar(10))
  SERVER qa_srv OPTIONS (filename :'rg_shard');
CREATE FOREIGN TABLE qa_agg (
    l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate date, q2 numeric(9,2),
    i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, fn float8, b boolean)
  SERVER qa_srv OPTIONS (filename :'agg_shard');
CREATE FOREIGN TABLE qa_aggz (
    l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate timestamptz, q2 numeric(9,2),
    i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, fn float8, b boolean)
  SERVER qa_srv OPTIONS (filename :'agg_shard');
-- the heaps come from the Parquet files (a date is midnight UTC in a shard)
CREATE TABLE qa_rgl_heap AS SELECT * FROM qa_rg_pq;
CREATE TABLE qa_rgz_heap AS
  SELECT id, grp, n, d::timestamp AT TIME ZONE 'UTC' AS d, ts AT TIME ZONE 'UTC' AS ts, f, s
    FROM qa_rg_pq;
CREATE TABLE qa_rgv_heap AS SELECT id, s::varchar(10) AS s FROM qa_rg_pq;
CREATE TABLE qa_agg_heap AS SELECT l_orderkey, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, q2, i2, i4, i8, f4, f8, fn, b FROM qa_agg_pq;
CREATE TABLE qa_aggz_heap AS SELECT * FROM qa_agg_heap;
ALTER TABLE qa_aggz_heap ALTER l_shipdate TYPE timestamptz
  USING l_shipdate::timestamp AT TIME ZONE 'UTC';
RESET parquet_fdw.enable_aggregate_pushdown;

-- q with $T replaced by the foreign table, then by its heap table; for the
-- tables with a date column, also their timestamptz twin
\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION qa_same1(q text, ft text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d record;
BEGIN
  SELECT * INTO d FROM pf_diff(replace(q, '$T', ft), replace(q, '$T', ft || '_heap'));
  RETURN format('%s rows, %s differences', d.rows_b, d.differences);
END $$;
CREATE FUNCTION qa_same(q text, ft text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF ft IN ('qa_rgl', 'qa_agg') THEN
    RETURN qa_same1(q, ft) || '; timestamptz: ' ||
           qa_same1(q, CASE ft WHEN 'qa_rgl' THEN 'qa_rgz' ELSE 'qa_aggz' END);
  END IF;
  RETURN qa_same1(q, ft);
END $$;

-- what was pruned (at plan or run time), skipped and pushed
CREATE FUNCTION qa_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
    CONTINUE WHEN ln !~ '(Stripes|Skipped|Run-Time|Pushdown|Pushed|Filter:|Scan)';
    CONTINUE WHEN ln ~ 'Stripes Read';
    -- PostgreSQL 18 prints rows=N.00: read as 15 and 17 print
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;

-- every row of every table, before any qual
SELECT t, qa_same1('SELECT * FROM $T', t)
  FROM unnest(ARRAY['qa_rgl', 'qa_rgz', 'qa_rgv', 'qa_agg', 'qa_aggz']) t;
SELECT qa_explain('SELECT count(*) FROM qa_rgl');

-- ===== date against timestamp: exact bounds, midnight matters
SELECT qa_same('SELECT id FROM $T WHERE d <= timestamp ''2024-01-05 12:00''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d < timestamp ''2024-01-05 00:00''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d < timestamp ''2024-01-05 00:00:00.000001''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d <= timestamp ''2024-01-05 00:00''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d >= timestamp ''2024-08-20 00:00:01''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d > timestamp ''2024-08-20''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d = timestamp ''2024-02-01''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d = timestamp ''2024-02-01 00:00:01''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d <> timestamp ''2024-02-01''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d < timestamp ''infinity''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d > timestamp ''-infinity'' AND d < ''2024-01-03''', 'qa_rgl');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE d < timestamp ''2024-01-05 00:00''');
-- the column on the right
SELECT qa_same('SELECT id FROM $T WHERE timestamp ''2024-08-20 00:00'' < d', 'qa_rgl');
-- a timestamp column against a date
SELECT qa_same('SELECT id FROM $T WHERE ts < date ''2024-01-02''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE ts >= date ''2024-01-15''', 'qa_rgl');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE ts < date ''2024-01-02''');

-- ===== date against timestamptz: the session TimeZone decides, at run time
SET timezone = 'Asia/Tokyo';
SELECT qa_same('SELECT id FROM $T WHERE d < timestamptz ''2024-01-21 03:00+00''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d >= timestamptz ''2024-01-21 03:00+00''', 'qa_rgl');
SELECT count(*) FROM qa_rgl WHERE d < timestamptz '2024-01-21 03:00+00';
SET timezone = 'America/Los_Angeles';
SELECT qa_same('SELECT id FROM $T WHERE d < timestamptz ''2024-01-21 03:00+00''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d >= timestamptz ''2024-01-21 03:00+00''', 'qa_rgl');
SELECT count(*) FROM qa_rgl WHERE d < timestamptz '2024-01-21 03:00+00';
-- a plan made under one TimeZone and run under another
PREPARE tz AS SELECT count(*) FROM qa_rgl WHERE d < timestamptz '2024-01-21 03:00+00';
EXECUTE tz;
SET timezone = 'Asia/Tokyo';
EXECUTE tz;
DEALLOCATE tz;
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE d < timestamptz ''2024-01-21 03:00+00''');
SET timezone = 'UTC';

-- ===== integers against numeric and float8: fractions, NaN, -0.0, range
SELECT qa_same('SELECT id FROM $T WHERE id < 100.5', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE id <= 100.5', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE id > 20379.5', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE id >= 20379.5', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE id = 100.0', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE id = 100.5', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE id <> 100.5', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE id < 1e30', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE id > -1e30 AND id < 3', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE id < ''NaN''::numeric', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE id >= ''NaN''::numeric', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE grp < 2.5::float8', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE grp <= ''-0''::float8', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE grp > ''NaN''::float8', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE grp < ''NaN''::float8', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE grp = ''-0''::float8', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE grp < ''Infinity''::float8', 'qa_rgl');
SELECT qa_same('SELECT i2 FROM $T WHERE i2 < 40000', 'qa_agg');
SELECT qa_same('SELECT i2 FROM $T WHERE i2 > 40000', 'qa_agg');
SELECT qa_same('SELECT i2 FROM $T WHERE i2 > -14000.25', 'qa_agg');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE id < 100.5');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE grp < ''NaN''::float8 AND grp > 8.5::float8');
-- floats against floats: NaN and -0.0 in the column
SELECT qa_same('SELECT fn FROM $T WHERE fn > 2000', 'qa_agg');
SELECT qa_same('SELECT fn FROM $T WHERE fn >= ''NaN''', 'qa_agg');
SELECT qa_same('SELECT f4 FROM $T WHERE f4 < 10.5::float8', 'qa_agg');
-- pushed aggregate filters from cross-type quals
SELECT qa_same('SELECT count(*), sum(l_quantity) FROM $T WHERE i4 < 2500.5', 'qa_agg');
SELECT qa_same('SELECT count(*), sum(l_quantity) FROM $T WHERE i4 >= -2.5::float8', 'qa_agg');
SELECT qa_same('SELECT count(*), min(i2) FROM $T WHERE i2 > 1e9', 'qa_agg');
SELECT qa_same('SELECT count(*) FROM $T WHERE l_shipdate < timestamp ''1995-06-01 08:00''', 'qa_agg');
SELECT qa_same('SELECT count(*) FROM $T WHERE l_shipdate >= timestamp ''1995-06-01 00:00''', 'qa_agg');

-- ===== text against varchar and bpchar
SELECT qa_same('SELECT id FROM $T WHERE s = ''s00100''::varchar', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE s = ''s00100  ''::bpchar', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE s COLLATE "C" < ''s00100''::varchar', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE s = ''s00100''::text', 'qa_rgv');
SELECT qa_same('SELECT id FROM $T WHERE s IN (''s00100'', ''s20000'')', 'qa_rgv');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE s COLLATE "C" < ''s00100''::varchar');

-- ===== stable functions and parameters: values at executor start
SELECT qa_same('SELECT id FROM $T WHERE d < to_date(''2024-01-05'', ''YYYY-MM-DD'')', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE ts < date_trunc(''month'', to_timestamp(''2024-02-10'', ''YYYY-MM-DD''))', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d > current_date', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE ts > now()', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d < current_date', 'qa_rgl');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE d < to_date(''2024-01-05'', ''YYYY-MM-DD'')');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE d > current_date');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE ts > now()');
SELECT qa_same('SELECT count(*), sum(l_quantity) FROM $T WHERE l_shipdate < current_date', 'qa_agg');
SELECT qa_same('SELECT count(*), sum(l_quantity) FROM $T WHERE l_shipdate < to_date(''1995-01-01'', ''YYYY-MM-DD'')', 'qa_agg');
-- generic plans: after five custom plans, and forced
PREPARE gd(timestamp) AS SELECT count(*) FROM qa_rgl WHERE d <= $1;
EXECUTE gd('2024-01-05 12:00');
EXECUTE gd('2024-01-05 12:00');
EXECUTE gd('2024-01-05 12:00');
EXECUTE gd('2024-01-05 12:00');
EXECUTE gd('2024-01-05 12:00');
EXECUTE gd('2024-01-05 12:00');
EXECUTE gd('2024-01-06 00:00');
SELECT qa_explain('EXECUTE gd(''2024-01-05 12:00'')');
SET plan_cache_mode = force_generic_plan;
PREPARE gn(numeric) AS SELECT count(*) FROM qa_rgl WHERE id < $1;
EXECUTE gn(100.5);
SELECT count(*) FROM qa_rgl_heap WHERE id < 100.5;
EXECUTE gn('NaN');
SELECT qa_explain('EXECUTE gn(100.5)');
PREPARE gi(bigint, bigint) AS SELECT count(*) FROM qa_rgl WHERE id IN ($1, $2);
EXECUTE gi(5, 20000);
SELECT qa_explain('EXECUTE gi(5, 20000)');
PREPARE ga(bigint[]) AS SELECT count(*) FROM qa_rgl WHERE id = ANY ($1);
EXECUTE ga(ARRAY[5, NULL, 20000]);
EXECUTE ga(ARRAY[NULL]::bigint[]);
SELECT qa_explain('EXECUTE ga(ARRAY[5, NULL, 20000])');
SET parquet_fdw.enable_aggregate_pushdown = off;
PREPARE gb(bigint[]) AS SELECT count(*) FROM qa_rgl WHERE id = ANY ($1);
SELECT qa_explain('EXECUTE gb(ARRAY[5, NULL, 20000])');
RESET parquet_fdw.enable_aggregate_pushdown;
PREPARE gq(timestamp) AS SELECT count(*), sum(l_quantity) FROM qa_agg WHERE l_shipdate <= $1;
EXECUTE gq('1995-06-01 12:00');
SELECT count(*), sum(l_quantity) FROM qa_agg_heap WHERE l_shipdate <= '1995-06-01 12:00'::timestamp;
SELECT qa_explain('EXECUTE gq(''1995-06-01 12:00'')');
-- a stable function and a parameter together, in a generic plan
PREPARE gc(int) AS SELECT count(*) FROM qa_rgl WHERE d > current_date - $1;
EXECUTE gc(0);
SELECT qa_explain('EXECUTE gc(0)');
PREPARE gt(interval) AS SELECT count(*), sum(l_quantity) FROM qa_agg WHERE l_shipdate < now() - $1;
EXECUTE gt('0 days');
SELECT count(*), sum(l_quantity) FROM qa_agg_heap WHERE l_shipdate < now() - interval '0 days';
SELECT qa_explain('EXECUTE gt(''0 days'')');
RESET plan_cache_mode;
DEALLOCATE ALL;

-- ===== IN lists with NULL elements
SELECT qa_same('SELECT id FROM $T WHERE id IN (5, NULL, 4000)', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE id = ANY (ARRAY[NULL::bigint])', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE id = ANY (NULL::bigint[])', 'qa_rgl');
SELECT qa_same('SELECT count(*) FROM $T WHERE i4 = ANY (NULL::int[])', 'qa_agg');
SELECT qa_same('SELECT count(*) FROM $T WHERE i4 = ANY (''{NULL}''::int[])', 'qa_agg');
SELECT qa_same('SELECT id FROM $T WHERE id IN (100.5, 200, 300.0)', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE d IN (timestamp ''2024-01-02'', timestamp ''2024-03-01 10:00'')', 'qa_rgl');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE id IN (5, NULL, 4000)');
SELECT qa_same('SELECT count(*), sum(l_quantity) FROM $T WHERE i2 IN (-15000, NULL, -14000.5, 1e9)', 'qa_agg');

-- ===== NOT, IS [NOT] NULL, OR of ANDs, boolean columns
SELECT qa_same('SELECT id FROM $T WHERE NOT (id < 20000)', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE NOT (n IS NULL) AND id < 8000', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE NOT (id > 100 OR id < 50)', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE (id < 100 AND grp = 0) OR (id > 20400 AND s > ''s20450'')', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE (d < timestamp ''2024-01-02'' AND id < 50) OR (id > 20000.5 AND n IS NOT NULL)', 'qa_rgl');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE NOT (id > 100 OR id < 50)');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE (id < 100 AND grp = 0) OR (id > 20400 AND s > ''s20450'')');
SELECT qa_same('SELECT count(*), sum(l_quantity) FROM $T WHERE b', 'qa_agg');
SELECT qa_same('SELECT count(*), sum(l_quantity) FROM $T WHERE NOT b', 'qa_agg');
SELECT qa_same('SELECT count(*), sum(l_quantity) FROM $T WHERE b IS NOT TRUE', 'qa_agg');
SELECT qa_same('SELECT count(*), sum(l_quantity) FROM $T WHERE b IS TRUE', 'qa_agg');
SELECT qa_same('SELECT count(*), sum(l_quantity) FROM $T WHERE NOT (b IS NOT FALSE)', 'qa_agg');
SELECT qa_same('SELECT count(*), sum(l_quantity) FROM $T WHERE b IS FALSE AND i2 IN (-15000, -14997, -14000.0)', 'qa_agg');

-- ===== LIKE 'prefix%': pruning only, under C and non-C collations
SELECT qa_same('SELECT id FROM $T WHERE s LIKE ''s001%''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE s COLLATE "C" LIKE ''s2045_''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE s COLLATE "C.utf8" LIKE ''s001%''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE s COLLATE "en-x-icu" LIKE ''s1\_%''', 'qa_rgl');
SELECT qa_same('SELECT id FROM $T WHERE s NOT LIKE ''s0%''', 'qa_rgl');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE s COLLATE "C" LIKE ''s2045_''');
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE s COLLATE "C.utf8" LIKE ''s001%''');
-- a non-C comparison cannot use byte-ordered statistics; LIKE can
SELECT qa_explain('SELECT count(*) FROM qa_rgl WHERE s COLLATE "C.utf8" < ''s00100''');

-- ===== sweeps: every operator against values at and around row-group
-- boundaries, midnight and fractions; counts on the foreign table (with
-- aggregate pushdown, then through the scan's late quals) against the heap
CREATE FUNCTION qa_mismatches1(ft text, cond text, vals text[])
RETURNS text LANGUAGE plpgsql AS $$
DECLARE v text; op text; a bigint; b bigint; n int := 0; checks int := 0;
BEGIN
  FOREACH op IN ARRAY ARRAY['<', '<=', '=', '>=', '>', '<>'] LOOP
    FOREACH v IN ARRAY vals LOOP
      EXECUTE 'SELECT count(*) FROM ' || ft || '_heap WHERE ' || format(cond, op, v) INTO b;
      PERFORM set_config('parquet_fdw.enable_aggregate_pushdown', 'on', true);
      EXECUTE 'SELECT count(*) FROM ' || ft || ' WHERE ' || format(cond, op, v) INTO a;
      IF a <> b THEN n := n + 1; RAISE NOTICE 'pushed: % % %: % <> %', cond, op, v, a, b; END IF;
      PERFORM set_config('parquet_fdw.enable_aggregate_pushdown', 'off', true);
      EXECUTE 'SELECT count(*) FROM (SELECT t.* FROM ' || ft || ' t WHERE ' || format(cond, op, v) || ') s' INTO a;
      IF a <> b THEN n := n + 1; RAISE NOTICE 'scan: % % %: % <> %', cond, op, v, a, b; END IF;
      checks := checks + 2;
    END LOOP;
  END LOOP;
  PERFORM set_config('parquet_fdw.enable_aggregate_pushdown', 'on', true);
  RETURN format('%s checks, %s mismatches', checks, n);
END $$;
CREATE FUNCTION qa_mismatches(ft text, cond text, vals text[])
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF ft IN ('qa_rgl', 'qa_agg') THEN
    RETURN qa_mismatches1(ft, cond, vals) || '; timestamptz: ' ||
           qa_mismatches1(CASE ft WHEN 'qa_rgl' THEN 'qa_rgz' ELSE 'qa_aggz' END, cond, vals);
  END IF;
  RETURN qa_mismatches1(ft, cond, vals);
END $$;
SELECT qa_mismatches('qa_rgl', 'd %s timestamp %L',
  (SELECT array_agg((date '2024-01-01' + (2048 * k) / 100 + dd + t)::text)
     FROM generate_series(0, 9) k, generate_series(-1, 0) dd,
          unnest(ARRAY[interval '0', interval '1 microsecond', interval '12 hours',
                       interval '1 day' - interval '1 microsecond']) t));
SET timezone = 'America/Los_Angeles';
SELECT qa_mismatches('qa_rgl', 'd %s timestamptz %L',
  (SELECT array_agg((timestamptz '2024-01-01 00:00+00' + 2048 * k * interval '864 seconds' + t)::text)
     FROM generate_series(0, 9) k,
          unnest(ARRAY[interval '0', interval '8 hours', interval '17 hours']) t));
SET timezone = 'UTC';
SELECT qa_mismatches('qa_rgl', 'id %s %s::numeric',
  (SELECT array_agg((2048 * k + e)::text)
     FROM generate_series(0, 10) k, unnest(ARRAY[-1, -0.5, 0, 0.5, 1]) e));
SELECT qa_mismatches('qa_rgl', 'grp %s %L::float8',
  ARRAY['-0', '0', '0.5', '3', '8.9999999', '9', '9.0000001', 'NaN', 'Infinity',
        '-Infinity', '1e300']);
SELECT qa_mismatches('qa_rgl', 'ts %s date %L',
  (SELECT array_agg((date '2024-01-01' + 2048 * k / 1440 + dd)::text)
     FROM generate_series(0, 10) k, generate_series(0, 1) dd));
SELECT qa_mismatches('qa_agg', 'i2 %s %s',
  ARRAY['-15000', '-14999.5', '-3000.5', '0', '40000', '-40000', '1e20', '''NaN''::numeric']);
SELECT qa_mismatches('qa_agg', 'i8 %s %s::float8',
  (SELECT array_agg((4611686018427387904 + k + e)::text)
     FROM generate_series(0, 12000, 1500) k, unnest(ARRAY[-513, -512, 0, 511, 512, 1023]) e));
SELECT qa_mismatches('qa_agg', 'i4 %s %s::float4',
  ARRAY['-5000000', '-4999999.5', '16777217', '3e9', '-3e9', '''NaN''']);


-- ===== TPC-H Q1 as published: a date against a date minus an interval
SELECT qa_same($$
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty,
       sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price,
       avg(l_discount) AS avg_disc, count(*) AS count_order
FROM $T
WHERE l_shipdate <= date '1998-12-01' - interval '90 day'
GROUP BY l_returnflag, l_linestatus$$, 'qa_agg');
SELECT qa_explain($$
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, count(*) AS count_order
FROM qa_agg
WHERE l_shipdate <= date '1998-12-01' - interval '90 day'
GROUP BY l_returnflag, l_linestatus$$);
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, count(*) AS count_order
FROM qa_agg
WHERE l_shipdate <= date '1998-12-01' - interval '90 day'
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus;


-- ===== floats: NaN, -0.0, infinities and NULLs in the column, stripes of
-- 4 rows (some all NaN, all NULL, or mixed), every operator
CREATE TABLE qa_flt_heap (k int, f float8, r real);
INSERT INTO qa_flt_heap SELECT k, v, v::real FROM unnest(ARRAY[
    1, 2, 3, 4,                                   -- plain
    'NaN', 'NaN', 'NaN', 'NaN',                   -- all NaN
    NULL, NULL, NULL, NULL,                       -- all NULL
    '-0', '0', '-0', '0',                         -- both zeros
    '-0', '-0', '-0', '-0',                       -- one negative zero
    5, 'NaN', NULL, 6,                            -- mixed
    '-Infinity', 'Infinity', 'NaN', 0.5,
    7, 8, NULL, 'NaN']::float8[]) WITH ORDINALITY AS u(v, k);
SELECT parquet_fdw_write_amudai('SELECT k, f, r FROM qa_flt_heap ORDER BY k', :'flt_shard', 4);
CREATE FOREIGN TABLE qa_flt (k int, f float8, r real)
  SERVER qa_srv OPTIONS (filename :'flt_shard');
SELECT qa_same('SELECT * FROM $T', 'qa_flt');
SELECT qa_mismatches('qa_flt', 'f %s %L::float8',
  ARRAY['NaN', '-0', '0', '0.5', '1', '4', '5', '6', '8', '9', 'Infinity', '-Infinity', '-1']);
SELECT qa_mismatches('qa_flt', 'r %s %L::real',
  ARRAY['NaN', '-0', '0', '0.5', '4', '5', '8', 'Infinity', '-Infinity']);
SELECT qa_mismatches('qa_flt', 'r %s %L::float8',
  ARRAY['NaN', '-0', '0', '0.5', '4.0000001', 'Infinity']);
SELECT qa_mismatches('qa_flt', 'f %s %L::numeric',
  ARRAY['NaN', '0', '-0.0', '4.5', '8']);
SELECT qa_same('SELECT k FROM $T WHERE f IN (''NaN'', 5)', 'qa_flt');
SELECT qa_same('SELECT k FROM $T WHERE f IN (''-0'', NULL)', 'qa_flt');
SELECT qa_same('SELECT k FROM $T WHERE f IS NULL', 'qa_flt');
SELECT qa_same('SELECT k FROM $T WHERE f IS NOT NULL AND NOT (f > 1)', 'qa_flt');
SELECT qa_same('SELECT k FROM $T WHERE f BETWEEN ''-0'' AND 0', 'qa_flt');
SELECT qa_same('SELECT k FROM $T WHERE f = ''NaN'' OR f < 1', 'qa_flt');
SELECT qa_explain('SELECT count(*) FROM qa_flt WHERE f = ''-0''');
SELECT qa_explain('SELECT count(*) FROM qa_flt WHERE f < 1');
SELECT qa_explain('SELECT count(*) FROM qa_flt WHERE f > 1');

-- ===== text under non-C collations: strings whose byte order is not the
-- collation's, with common prefixes, stripes of 4
CREATE TABLE qa_txt_heap (k int, s text);
INSERT INTO qa_txt_heap SELECT k, v FROM unnest(ARRAY[
    'a', 'B', 'b', 'A',
    'ab', 'a-b', 'aB', 'Ab',
    'abc', 'abd', 'abc ', 'ab_',
    'x', 'y', 'z', 'Z',
    '_a', '-b', 'é', 'e',
    'ea', 'éa', 'eb', NULL,
    'abcd', 'abce', 'abcc', 'ab%']) WITH ORDINALITY AS u(v, k);
SELECT parquet_fdw_write_amudai('SELECT k, s FROM qa_txt_heap ORDER BY k', :'txt_shard', 4);
CREATE FOREIGN TABLE qa_txt (k int, s text)
  SERVER qa_srv OPTIONS (filename :'txt_shard');
CREATE FOREIGN TABLE qa_txti (k int, s text COLLATE "en-x-icu")
  SERVER qa_srv OPTIONS (filename :'txt_shard');
CREATE TABLE qa_txti_heap (k int, s text COLLATE "en-x-icu");
INSERT INTO qa_txti_heap SELECT * FROM qa_txt_heap;
SELECT qa_mismatches('qa_txt', 's COLLATE "C" %s %L',
  ARRAY['a', 'A', 'ab', 'abc', 'abc ', 'b', 'B', 'e', 'é', 'z', 'Z', '_', '-', '']);
SELECT qa_mismatches('qa_txt', 's COLLATE "en-x-icu" %s %L',
  ARRAY['a', 'A', 'ab', 'abc', 'abc ', 'b', 'B', 'e', 'é', 'z', 'Z', '_', '-', '']);
SELECT qa_mismatches('qa_txti', 's %s %L',
  ARRAY['a', 'A', 'ab', 'abc', 'abc ', 'b', 'B', 'e', 'é', 'z', 'Z', '_', '-', '']);
SELECT qa_mismatches('qa_txt', 's COLLATE "C.utf8" %s %L',
  ARRAY['a', 'A', 'ab', 'é', 'z', 'Z']);
SELECT p, qa_same(format('SELECT k FROM $T WHERE s LIKE %L', p), 'qa_txti') AS icu,
       qa_same(format('SELECT k FROM $T WHERE s COLLATE "C" LIKE %L', p), 'qa_txt') AS c
  FROM unnest(ARRAY['a%', 'ab%', 'abc%', 'abc_', 'A%', 'é%', 'e%', 'ab\_%', 'ab\%', 'z%', '%b']) p;
SELECT qa_same('SELECT k FROM $T WHERE s IN (''abc'', ''Z'', NULL)', 'qa_txti');
SELECT qa_same('SELECT k FROM $T WHERE s = ''abc ''::bpchar', 'qa_txti');
SELECT qa_same('SELECT k FROM $T WHERE s BETWEEN ''a'' AND ''b''', 'qa_txti');
SELECT qa_explain('SELECT count(*) FROM qa_txti WHERE s = ''Z''');
SELECT qa_explain('SELECT count(*) FROM qa_txti WHERE s < ''B''');
SELECT qa_explain('SELECT count(*) FROM qa_txt WHERE s COLLATE "C" < ''B''');
SELECT qa_explain('SELECT count(*) FROM qa_txti WHERE s LIKE ''abc%''');

-- ===== DateTime read as timestamptz, against timestamps and dates under
-- two TimeZones (the column's default type: stripes and range indexes prune)
SET timezone = 'Asia/Tokyo';
SELECT qa_same('SELECT id FROM $T WHERE d < timestamp ''2024-01-21 03:00''', 'qa_rgz');
SELECT qa_same('SELECT id FROM $T WHERE ts >= date ''2024-01-08''', 'qa_rgz');
SELECT qa_same('SELECT id FROM $T WHERE ts BETWEEN timestamp ''2024-01-08 09:00'' AND ''2024-01-08 10:00''', 'qa_rgz');
SELECT qa_explain('SELECT count(*) FROM qa_rgz WHERE ts >= date ''2024-01-08''');
PREPARE tzz AS SELECT count(*), sum(id) FROM qa_rgz WHERE ts < timestamp '2024-01-08 09:00';
EXECUTE tzz;
SELECT count(*), sum(id) FROM qa_rgz_heap WHERE ts < timestamp '2024-01-08 09:00';
SET timezone = 'America/Los_Angeles';
SELECT qa_same('SELECT id FROM $T WHERE d < timestamp ''2024-01-21 03:00''', 'qa_rgz');
SELECT qa_same('SELECT id FROM $T WHERE ts >= date ''2024-01-08''', 'qa_rgz');
SELECT qa_same('SELECT id FROM $T WHERE ts BETWEEN timestamp ''2024-01-08 09:00'' AND ''2024-01-08 10:00''', 'qa_rgz');
SELECT qa_explain('SELECT count(*) FROM qa_rgz WHERE ts >= date ''2024-01-08''');
EXECUTE tzz;
SELECT count(*), sum(id) FROM qa_rgz_heap WHERE ts < timestamp '2024-01-08 09:00';
DEALLOCATE tzz;
SELECT qa_mismatches('qa_rgz', 'ts %s timestamp %L',
  (SELECT array_agg((timestamp '2024-01-01' + 2048 * k * interval '1 minute' + t)::text)
     FROM generate_series(0, 10) k,
          unnest(ARRAY[interval '-1 minute', interval '0', interval '1 microsecond',
                       interval '7 hours', interval '8 hours', interval '-9 hours']) t));
SET timezone = 'UTC';

-- ===== generic plans: six executions of each, values across stripes
SET plan_cache_mode = force_generic_plan;
PREPARE xa(timestamptz, numeric) AS
  SELECT count(*) || '/' || coalesce(sum(id)::text, '-') FROM qa_rgz WHERE ts >= $1 AND id < $2;
PREPARE xh(timestamptz, numeric) AS
  SELECT count(*) || '/' || coalesce(sum(id)::text, '-') FROM qa_rgz_heap WHERE ts >= $1 AND id < $2;
PREPARE xs(text[]) AS SELECT count(*) || '/' || coalesce(min(k)::text, '-') FROM qa_txti WHERE s = ANY ($1);
PREPARE xt(text[]) AS SELECT count(*) || '/' || coalesce(min(k)::text, '-') FROM qa_txti_heap WHERE s = ANY ($1);
PREPARE xf(float8) AS SELECT count(*) || '/' || coalesce(sum(k)::text, '-') FROM qa_flt WHERE f <= $1;
PREPARE xg(float8) AS SELECT count(*) || '/' || coalesce(sum(k)::text, '-') FROM qa_flt_heap WHERE f <= $1;
CREATE TABLE qa_exec (i int, a text, b text);
INSERT INTO qa_exec VALUES (0, NULL, NULL);
DO $$
DECLARE ts text[] := ARRAY['2024-01-01', '2024-01-05 12:00+00', '2024-01-15 01:07:59.999999+00',
                           'infinity', '-infinity', '2024-01-08 10:00+09'];
        ids text[] := ARRAY['100.5', '20480', '6000', '1e30', '''NaN''', '-5'];
        ss text[] := ARRAY['{abc,Z}', '{NULL}', '{abc,NULL,é}', '{}', '{a,A,abc ,B}', '{zz}'];
        fs text[] := ARRAY['''NaN''', '''-0''', '0.5', '''-Infinity''', '4', '''Infinity'''];
        a text; b text;
BEGIN
  FOR i IN 1..6 LOOP
    EXECUTE format('EXECUTE xa(%L, %s)', ts[i], ids[i]) INTO a;
    EXECUTE format('EXECUTE xh(%L, %s)', ts[i], ids[i]) INTO b;
    INSERT INTO qa_exec VALUES (i, a, b);
    EXECUTE format('EXECUTE xs(%L)', ss[i]) INTO a;
    EXECUTE format('EXECUTE xt(%L)', ss[i]) INTO b;
    INSERT INTO qa_exec VALUES (10 + i, a, b);
    EXECUTE format('EXECUTE xf(%s)', fs[i]) INTO a;
    EXECUTE format('EXECUTE xg(%s)', fs[i]) INTO b;
    INSERT INTO qa_exec VALUES (20 + i, a, b);
  END LOOP;
END $$;
SELECT i, a AS shard, a IS NOT DISTINCT FROM b AS same FROM qa_exec WHERE i > 0 ORDER BY i;
SELECT qa_explain('EXECUTE xa(''2024-01-15 01:07:59.999999+00'', 6000)');
SELECT qa_explain('EXECUTE xs(''{abc,Z}'')');
RESET plan_cache_mode;
DEALLOCATE ALL;
DROP TABLE qa_exec;

-- ===== a parameter per outer row: every rescan prunes again (differing
-- rows, rows)
SET timezone = 'America/Los_Angeles';
SELECT count(*) FILTER (WHERE am IS DISTINCT FROM heap) AS differences, count(*) FROM (
  SELECT (SELECT count(*) || '/' || sum(id) FROM qa_rgz
           WHERE id < x AND ts >= (timestamp '2024-01-05' + x * interval '1 minute')::date) AS am,
         (SELECT count(*) || '/' || sum(id) FROM qa_rgz_heap
           WHERE id < x AND ts >= (timestamp '2024-01-05' + x * interval '1 minute')::date) AS heap
    FROM generate_series(0, 20480, 777) g, LATERAL (SELECT g + 0.5 AS x) l) s;
SET timezone = 'UTC';
SELECT count(*) FILTER (WHERE am IS DISTINCT FROM heap) AS differences, count(*) FROM (
  SELECT (SELECT count(*) FROM qa_flt WHERE f <= x) AS am,
         (SELECT count(*) FROM qa_flt_heap WHERE f <= x) AS heap
    FROM unnest(ARRAY['NaN', '-0', '0', '1', 'Infinity', '-Infinity', NULL]::float8[]) x) s;
SELECT count(*) FILTER (WHERE am IS DISTINCT FROM heap) AS differences, count(*) FROM (
  SELECT (SELECT count(*) FROM qa_txti WHERE s = ANY (x::text[])) AS am,
         (SELECT count(*) FROM qa_txti_heap WHERE s = ANY (x::text[])) AS heap
    FROM unnest(ARRAY['{a,Z}', '{NULL}', '{}', '{abc ,é}']) x) s;
SELECT line FROM qa_explain('SELECT (SELECT count(*) FROM qa_flt WHERE f <= x)
  FROM unnest(ARRAY[''NaN'', ''-0'', ''0'', ''1'', ''Infinity'', ''-Infinity'', NULL]::float8[]) x') line
 WHERE line ~ 'Stripes';

-- ===== cancel: a long shard scan stops at a statement timeout (the shard
-- read 400 times, 8,192,000 rows), and the session goes on
SELECT string_agg(:'rg_shard', ',') AS big_files FROM generate_series(1, 400) \gset
CREATE FOREIGN TABLE qa_big (id bigint, s text)
  SERVER qa_srv OPTIONS (filename :'big_files');
SET parquet_fdw.enable_aggregate_pushdown = off;
SET max_parallel_workers_per_gather = 0;
\set VERBOSITY terse
SET statement_timeout = '100ms';
SELECT count(*), sum(id), max(s) FROM qa_big;
SELECT s FROM qa_big ORDER BY s DESC LIMIT 1;
RESET statement_timeout;
\set VERBOSITY default
SELECT count(*), sum(id) FROM qa_big WHERE id <= 10;
RESET max_parallel_workers_per_gather;
RESET parquet_fdw.enable_aggregate_pushdown;

DROP SERVER qa_srv CASCADE;
DROP TABLE qa_rgl_heap, qa_rgz_heap, qa_rgv_heap, qa_agg_heap, qa_aggz_heap,
           qa_flt_heap, qa_txt_heap, qa_txti_heap;
DROP FUNCTION qa_same(text, text), qa_same1(text, text), qa_explain(text),
              qa_mismatches(text, text, text[]), qa_mismatches1(text, text, text[]);
