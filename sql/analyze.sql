--
-- analyze: ANALYZE of Parquet foreign tables.  The row count comes from the
-- footers; the sample from ten times the rows ANALYZE wants (300 *
-- statistics target), spread over row groups picked at random.
--
-- test/data/scan/rowgroups.parquet (test/data/scan/make_data.mjs): 20480 rows in 10 row groups
-- of 2048, id = 1..20480 (sorted), grp = (id - 1) / 2048, n = id except
-- NULL in row group 3, d = 2024-01-01 + (id - 1) / 100 days, ts one minute
-- apart, f = id / 4.0, s = 's' || lpad(id, 5, '0').
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
\set rg3 :rg ',' :rg ',' :rg

CREATE SERVER ana_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE arg (id bigint, grp int, n int, d date, ts timestamp,
                          f float8, s text)
  SERVER ana_srv OPTIONS (filename :'rg');
CREATE FOREIGN TABLE arg3 (id bigint, grp int, n int)
  SERVER ana_srv OPTIONS (filename :'rg3');

-- PostgreSQL 18's ANALYZE VERBOSE adds I/O rates and timings no expected
-- file can hold, so from 18 on these run without VERBOSE and our sampling
-- report (the INFO lines) is not shown: expected/analyze_1.out
SELECT CASE WHEN current_setting('server_version_num')::int < 180000
  THEN 'VERBOSE' ELSE '' END AS analyze_verbose \gset

-- ===== a small table: the sample (30000 rows wanted) is the whole table,
-- so every statistic is exact: n is NULL in 1 of 10 row groups, its other
-- values distinct (n_distinct -(1 - 0.1)); grp has 10 values; d changes
-- every 100 rows (205 values); the rest are distinct; all sorted.
ANALYZE :analyze_verbose arg;
SELECT reltuples FROM pg_class WHERE relname = 'arg';
SELECT attname, null_frac, n_distinct, correlation
  FROM pg_stats WHERE tablename = 'arg' ORDER BY attname;
-- the 10 values of grp, each 2048 / 20480 of the rows
SELECT most_common_vals, most_common_freqs
  FROM pg_stats WHERE tablename = 'arg' AND attname = 'grp';
SELECT histogram_bounds FROM pg_stats WHERE tablename = 'arg' AND attname = 'id'
  \gset
SELECT (:'histogram_bounds'::bigint[])[1] AS lowest,
       (:'histogram_bounds'::bigint[])[101] AS highest;

-- ===== sampling: statistics target 1 wants 300 rows, so 3000 are read:
-- the first 1024 rows (the least per row group) of 3 of the 10 row groups,
-- picked at random.  Which ones is random; what holds whatever they are:
-- the row count is the table's, grp has exactly 3 values in the sample
-- (each row group holds one), the ids are distinct, the non-null n too.
SET default_statistics_target = 1;
ANALYZE :analyze_verbose arg;
SELECT reltuples FROM pg_class WHERE relname = 'arg';
-- the sample stays in file order, so the sorted columns keep correlation 1
SELECT attname, n_distinct, correlation
  FROM pg_stats WHERE tablename = 'arg' AND attname IN ('grp', 'id', 's')
  ORDER BY attname;
SELECT null_frac IN (0, 1) OR null_frac BETWEEN 0.2 AND 0.8 AS plausible,
       abs(n_distinct + (1 - null_frac)) < 1e-6 AS distinct_nonnull
  FROM pg_stats WHERE tablename = 'arg' AND attname = 'n';
RESET default_statistics_target;

-- ===== several files: 61440 rows; every row group read (budget 300000
-- rows), 30000 of them sampled
ANALYZE :analyze_verbose arg3;
SELECT reltuples FROM pg_class WHERE relname = 'arg3';
SELECT attname, n_distinct < 0 AS scales_with_table
  FROM pg_stats WHERE tablename = 'arg3' AND attname IN ('grp', 'id')
  ORDER BY attname;

DROP SERVER ana_srv CASCADE;
