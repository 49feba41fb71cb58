--
-- qual: the one qual analyzer (src/fdw/qual.c) that row-group pruning,
-- late quals and pushed aggregate filters share.
--
-- Every query runs on a foreign table and on a heap table holding the same
-- rows (qual_same: row counts and differences as multisets), so a pruned
-- row group or a pushed filter that drops or adds a row shows up as a
-- difference; EXPLAIN pins what was pruned or pushed.
--
-- test/data/scan/rowgroups.parquet (sql/scan.sql): 20480 rows in 10 row groups of
-- 2048, sorted: id 1..20480, grp = row group, n = id (NULL in row group 3),
-- d = 2024-01-01 + (id - 1) / 100 days, ts = 2024-01-01 + (id - 1) minutes,
-- f = id / 4.0, s = 's' || lpad(id, 5, '0').
-- test/data/aggregate/aggregate.parquet (sql/aggregate.sql): 12000 lineitem-like
-- rows in 4 row groups, i2/i4/i8 sorted, b boolean, l_shipdate a date.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set q_rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
\set q_agg :abs_srcdir '/test/data/aggregate/aggregate.parquet'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;

CREATE SERVER qual_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE q_rg (id bigint, grp int, n int, d date, ts timestamp,
                         f float8, s text)
  SERVER qual_srv OPTIONS (filename :'q_rg');
CREATE FOREIGN TABLE q_agg (
    l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate date, q2 numeric(9,2), wide numeric(38,4),
    i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, fn float8, b boolean)
  SERVER qual_srv OPTIONS (filename :'q_agg');
CREATE FOREIGN TABLE q_rgv (id bigint, s varchar(10))
  SERVER qual_srv OPTIONS (filename :'q_rg');
SET parquet_fdw.enable_aggregate_pushdown = off;
CREATE TABLE q_rg_heap AS SELECT * FROM q_rg;
CREATE TABLE q_agg_heap AS SELECT * FROM q_agg;
CREATE TABLE q_rgv_heap AS SELECT * FROM q_rgv;
RESET parquet_fdw.enable_aggregate_pushdown;

-- q with $T replaced by the foreign table, then by the heap table
\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION qual_same(q text, ft text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, '$T', ft);
  d record;
BEGIN
  SELECT * INTO d FROM pf_diff(qf, replace(q, '$T', ft || '_heap'));
  RETURN format('%s rows, %s differences%s', d.rows_b, d.differences,
                CASE WHEN pf_plan_has(qf, 'Aggregate Pushdown') THEN ', pushed' ELSE '' END);
END $$;

-- what was pruned (at plan or run time) and pushed
CREATE FUNCTION qual_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
    CONTINUE WHEN ln !~ '(Row Groups|Run-Time|Pushdown|Pushed|Filter:|Scan)';
    CONTINUE WHEN ln ~ 'Row Groups Read';
    -- PostgreSQL 18 prints rows=N.00: read as 15 and 17 print
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;

-- ===== date against timestamp: exact bounds, midnight matters
SELECT qual_same('SELECT id FROM $T WHERE d <= timestamp ''2024-01-05 12:00''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d < timestamp ''2024-01-05 00:00''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d < timestamp ''2024-01-05 00:00:00.000001''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d <= timestamp ''2024-01-05 00:00''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d >= timestamp ''2024-08-20 00:00:01''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d > timestamp ''2024-08-20''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d = timestamp ''2024-02-01''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d = timestamp ''2024-02-01 00:00:01''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d <> timestamp ''2024-02-01''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d < timestamp ''infinity''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d > timestamp ''-infinity'' AND d < ''2024-01-03''', 'q_rg');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE d < timestamp ''2024-01-05 00:00''');
-- the column on the right
SELECT qual_same('SELECT id FROM $T WHERE timestamp ''2024-08-20 00:00'' < d', 'q_rg');
-- a timestamp column against a date
SELECT qual_same('SELECT id FROM $T WHERE ts < date ''2024-01-02''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE ts >= date ''2024-01-15''', 'q_rg');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE ts < date ''2024-01-02''');

-- ===== date against timestamptz: the session TimeZone decides, at run time
SET timezone = 'Asia/Tokyo';
SELECT qual_same('SELECT id FROM $T WHERE d < timestamptz ''2024-01-21 03:00+00''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d >= timestamptz ''2024-01-21 03:00+00''', 'q_rg');
SELECT count(*) FROM q_rg WHERE d < timestamptz '2024-01-21 03:00+00';
SET timezone = 'America/Los_Angeles';
SELECT qual_same('SELECT id FROM $T WHERE d < timestamptz ''2024-01-21 03:00+00''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d >= timestamptz ''2024-01-21 03:00+00''', 'q_rg');
SELECT count(*) FROM q_rg WHERE d < timestamptz '2024-01-21 03:00+00';
-- a plan made under one TimeZone and run under another
PREPARE tz AS SELECT count(*) FROM q_rg WHERE d < timestamptz '2024-01-21 03:00+00';
EXECUTE tz;
SET timezone = 'Asia/Tokyo';
EXECUTE tz;
DEALLOCATE tz;
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE d < timestamptz ''2024-01-21 03:00+00''');
SET timezone = 'UTC';

-- ===== integers against numeric and float8: fractions, NaN, -0.0, range
SELECT qual_same('SELECT id FROM $T WHERE id < 100.5', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE id <= 100.5', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE id > 20379.5', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE id >= 20379.5', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE id = 100.0', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE id = 100.5', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE id <> 100.5', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE id < 1e30', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE id > -1e30 AND id < 3', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE id < ''NaN''::numeric', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE id >= ''NaN''::numeric', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE grp < 2.5::float8', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE grp <= ''-0''::float8', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE grp > ''NaN''::float8', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE grp < ''NaN''::float8', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE grp = ''-0''::float8', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE grp < ''Infinity''::float8', 'q_rg');
SELECT qual_same('SELECT i2 FROM $T WHERE i2 < 40000', 'q_agg');
SELECT qual_same('SELECT i2 FROM $T WHERE i2 > 40000', 'q_agg');
SELECT qual_same('SELECT i2 FROM $T WHERE i2 > -14000.25', 'q_agg');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE id < 100.5');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE grp < ''NaN''::float8 AND grp > 8.5::float8');
-- floats against floats: NaN and -0.0 in the column
SELECT qual_same('SELECT fn FROM $T WHERE fn > 2000', 'q_agg');
SELECT qual_same('SELECT fn FROM $T WHERE fn >= ''NaN''', 'q_agg');
SELECT qual_same('SELECT f4 FROM $T WHERE f4 < 10.5::float8', 'q_agg');
-- pushed aggregate filters from cross-type quals
SELECT qual_same('SELECT count(*), sum(l_quantity) FROM $T WHERE i4 < 2500.5', 'q_agg');
SELECT qual_same('SELECT count(*), sum(l_quantity) FROM $T WHERE i4 >= -2.5::float8', 'q_agg');
SELECT qual_same('SELECT count(*), min(i2) FROM $T WHERE i2 > 1e9', 'q_agg');
SELECT qual_same('SELECT count(*) FROM $T WHERE l_shipdate < timestamp ''1995-06-01 08:00''', 'q_agg');
SELECT qual_same('SELECT count(*) FROM $T WHERE l_shipdate >= timestamp ''1995-06-01 00:00''', 'q_agg');

-- ===== text against varchar and bpchar
SELECT qual_same('SELECT id FROM $T WHERE s = ''s00100''::varchar', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE s = ''s00100  ''::bpchar', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE s COLLATE "C" < ''s00100''::varchar', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE s = ''s00100''::text', 'q_rgv');
SELECT qual_same('SELECT id FROM $T WHERE s IN (''s00100'', ''s20000'')', 'q_rgv');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE s COLLATE "C" < ''s00100''::varchar');

-- ===== stable functions and parameters: values at executor start
SELECT qual_same('SELECT id FROM $T WHERE d < to_date(''2024-01-05'', ''YYYY-MM-DD'')', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE ts < date_trunc(''month'', to_timestamp(''2024-02-10'', ''YYYY-MM-DD''))', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d > current_date', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE ts > now()', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d < current_date', 'q_rg');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE d < to_date(''2024-01-05'', ''YYYY-MM-DD'')');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE d > current_date');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE ts > now()');
SELECT qual_same('SELECT count(*), sum(l_quantity) FROM $T WHERE l_shipdate < current_date', 'q_agg');
SELECT qual_same('SELECT count(*), sum(l_quantity) FROM $T WHERE l_shipdate < to_date(''1995-01-01'', ''YYYY-MM-DD'')', 'q_agg');
-- generic plans: after five custom plans, and forced
PREPARE gd(timestamp) AS SELECT count(*) FROM q_rg WHERE d <= $1;
EXECUTE gd('2024-01-05 12:00');
EXECUTE gd('2024-01-05 12:00');
EXECUTE gd('2024-01-05 12:00');
EXECUTE gd('2024-01-05 12:00');
EXECUTE gd('2024-01-05 12:00');
EXECUTE gd('2024-01-05 12:00');
EXECUTE gd('2024-01-06 00:00');
SELECT qual_explain('EXECUTE gd(''2024-01-05 12:00'')');
SET plan_cache_mode = force_generic_plan;
PREPARE gn(numeric) AS SELECT count(*) FROM q_rg WHERE id < $1;
EXECUTE gn(100.5);
SELECT count(*) FROM q_rg_heap WHERE id < 100.5;
EXECUTE gn('NaN');
SELECT qual_explain('EXECUTE gn(100.5)');
PREPARE gi(bigint, bigint) AS SELECT count(*) FROM q_rg WHERE id IN ($1, $2);
EXECUTE gi(5, 20000);
SELECT qual_explain('EXECUTE gi(5, 20000)');
PREPARE ga(bigint[]) AS SELECT count(*) FROM q_rg WHERE id = ANY ($1);
EXECUTE ga(ARRAY[5, NULL, 20000]);
EXECUTE ga(ARRAY[NULL]::bigint[]);
SELECT qual_explain('EXECUTE ga(ARRAY[5, NULL, 20000])');
SET parquet_fdw.enable_aggregate_pushdown = off;
PREPARE gb(bigint[]) AS SELECT count(*) FROM q_rg WHERE id = ANY ($1);
SELECT qual_explain('EXECUTE gb(ARRAY[5, NULL, 20000])');
RESET parquet_fdw.enable_aggregate_pushdown;
PREPARE gq(timestamp) AS SELECT count(*), sum(l_quantity) FROM q_agg WHERE l_shipdate <= $1;
EXECUTE gq('1995-06-01 12:00');
SELECT count(*), sum(l_quantity) FROM q_agg_heap WHERE l_shipdate <= '1995-06-01 12:00'::timestamp;
SELECT qual_explain('EXECUTE gq(''1995-06-01 12:00'')');
-- a stable function and a parameter together, in a generic plan
PREPARE gc(int) AS SELECT count(*) FROM q_rg WHERE d > current_date - $1;
EXECUTE gc(0);
SELECT qual_explain('EXECUTE gc(0)');
PREPARE gt(interval) AS SELECT count(*), sum(l_quantity) FROM q_agg WHERE l_shipdate < now() - $1;
EXECUTE gt('0 days');
SELECT count(*), sum(l_quantity) FROM q_agg_heap WHERE l_shipdate < now() - interval '0 days';
SELECT qual_explain('EXECUTE gt(''0 days'')');
RESET plan_cache_mode;
DEALLOCATE ALL;

-- ===== IN lists with NULL elements
SELECT qual_same('SELECT id FROM $T WHERE id IN (5, NULL, 4000)', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE id = ANY (ARRAY[NULL::bigint])', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE id = ANY (NULL::bigint[])', 'q_rg');
SELECT qual_same('SELECT count(*) FROM $T WHERE i4 = ANY (NULL::int[])', 'q_agg');
SELECT qual_same('SELECT count(*) FROM $T WHERE i4 = ANY (''{NULL}''::int[])', 'q_agg');
SELECT qual_same('SELECT id FROM $T WHERE id IN (100.5, 200, 300.0)', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE d IN (timestamp ''2024-01-02'', timestamp ''2024-03-01 10:00'')', 'q_rg');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE id IN (5, NULL, 4000)');
SELECT qual_same('SELECT count(*), sum(l_quantity) FROM $T WHERE i2 IN (-15000, NULL, -14000.5, 1e9)', 'q_agg');

-- ===== NOT, IS [NOT] NULL, OR of ANDs, boolean columns
SELECT qual_same('SELECT id FROM $T WHERE NOT (id < 20000)', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE NOT (n IS NULL) AND id < 8000', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE NOT (id > 100 OR id < 50)', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE (id < 100 AND grp = 0) OR (id > 20400 AND s > ''s20450'')', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE (d < timestamp ''2024-01-02'' AND id < 50) OR (id > 20000.5 AND n IS NOT NULL)', 'q_rg');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE NOT (id > 100 OR id < 50)');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE (id < 100 AND grp = 0) OR (id > 20400 AND s > ''s20450'')');
SELECT qual_same('SELECT count(*), sum(l_quantity) FROM $T WHERE b', 'q_agg');
SELECT qual_same('SELECT count(*), sum(l_quantity) FROM $T WHERE NOT b', 'q_agg');
SELECT qual_same('SELECT count(*), sum(l_quantity) FROM $T WHERE b IS NOT TRUE', 'q_agg');
SELECT qual_same('SELECT count(*), sum(l_quantity) FROM $T WHERE b IS TRUE', 'q_agg');
SELECT qual_same('SELECT count(*), sum(l_quantity) FROM $T WHERE NOT (b IS NOT FALSE)', 'q_agg');
SELECT qual_same('SELECT count(*), sum(l_quantity) FROM $T WHERE b IS FALSE AND i2 IN (-15000, -14997, -14000.0)', 'q_agg');

-- ===== LIKE 'prefix%': pruning only, under C and non-C collations
SELECT qual_same('SELECT id FROM $T WHERE s LIKE ''s001%''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE s COLLATE "C" LIKE ''s2045_''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE s COLLATE "C.utf8" LIKE ''s001%''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE s COLLATE "en-x-icu" LIKE ''s1\_%''', 'q_rg');
SELECT qual_same('SELECT id FROM $T WHERE s NOT LIKE ''s0%''', 'q_rg');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE s COLLATE "C" LIKE ''s2045_''');
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE s COLLATE "C.utf8" LIKE ''s001%''');
-- a non-C comparison cannot use byte-ordered statistics; LIKE can
SELECT qual_explain('SELECT count(*) FROM q_rg WHERE s COLLATE "C.utf8" < ''s00100''');

-- ===== sweeps: every operator against values at and around row-group
-- boundaries, midnight and fractions; counts on the foreign table (with
-- aggregate pushdown, then through the scan's late quals) against the heap
CREATE FUNCTION qual_mismatches(ft text, cond text, vals text[])
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
SELECT qual_mismatches('q_rg', 'd %s timestamp %L',
  (SELECT array_agg((date '2024-01-01' + (2048 * k) / 100 + dd + t)::text)
     FROM generate_series(0, 9) k, generate_series(-1, 0) dd,
          unnest(ARRAY[interval '0', interval '1 microsecond', interval '12 hours',
                       interval '1 day' - interval '1 microsecond']) t));
SET timezone = 'America/Los_Angeles';
SELECT qual_mismatches('q_rg', 'd %s timestamptz %L',
  (SELECT array_agg((timestamptz '2024-01-01 00:00+00' + 2048 * k * interval '864 seconds' + t)::text)
     FROM generate_series(0, 9) k,
          unnest(ARRAY[interval '0', interval '8 hours', interval '17 hours']) t));
SET timezone = 'UTC';
SELECT qual_mismatches('q_rg', 'id %s %s::numeric',
  (SELECT array_agg((2048 * k + e)::text)
     FROM generate_series(0, 10) k, unnest(ARRAY[-1, -0.5, 0, 0.5, 1]) e));
SELECT qual_mismatches('q_rg', 'grp %s %L::float8',
  ARRAY['-0', '0', '0.5', '3', '8.9999999', '9', '9.0000001', 'NaN', 'Infinity',
        '-Infinity', '1e300']);
SELECT qual_mismatches('q_rg', 'ts %s date %L',
  (SELECT array_agg((date '2024-01-01' + 2048 * k / 1440 + dd)::text)
     FROM generate_series(0, 10) k, generate_series(0, 1) dd));
SELECT qual_mismatches('q_agg', 'i2 %s %s',
  ARRAY['-15000', '-14999.5', '-3000.5', '0', '40000', '-40000', '1e20', '''NaN''::numeric']);
SELECT qual_mismatches('q_agg', 'i8 %s %s::float8',
  (SELECT array_agg((4611686018427387904 + k + e)::text)
     FROM generate_series(0, 12000, 1500) k, unnest(ARRAY[-513, -512, 0, 511, 512, 1023]) e));
SELECT qual_mismatches('q_agg', 'i4 %s %s::float4',
  ARRAY['-5000000', '-4999999.5', '16777217', '3e9', '-3e9', '''NaN''']);
DROP FUNCTION qual_mismatches(text, text, text[]);

-- ===== TPC-H Q1 as published: a date against a date minus an interval
SELECT qual_same($$
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty,
       sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price,
       avg(l_discount) AS avg_disc, count(*) AS count_order
FROM $T
WHERE l_shipdate <= date '1998-12-01' - interval '90 day'
GROUP BY l_returnflag, l_linestatus$$, 'q_agg');
SELECT qual_explain($$
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, count(*) AS count_order
FROM q_agg
WHERE l_shipdate <= date '1998-12-01' - interval '90 day'
GROUP BY l_returnflag, l_linestatus$$);
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, count(*) AS count_order
FROM q_agg
WHERE l_shipdate <= date '1998-12-01' - interval '90 day'
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus;

DROP SERVER qual_srv CASCADE;
DROP TABLE q_rg_heap, q_agg_heap, q_rgv_heap;
DROP FUNCTION qual_same(text, text), qual_explain(text);
