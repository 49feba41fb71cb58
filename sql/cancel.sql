--
-- cancel: a long scan stops at a statement timeout (the scan checks for
-- interrupts per batch and per row group), with a clean ERROR, and the
-- session goes on.  test/data/scan/rowgroups.parquet (20480 rows) read 400 times is
-- 8,192,000 rows: seconds of work, far beyond the 100 ms allowed.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'

CREATE SERVER cancel_srv FOREIGN DATA WRAPPER parquet_fdw;
SELECT string_agg(:'rg', ',') AS files FROM generate_series(1, 400) \gset
CREATE FOREIGN TABLE cancel_big (id bigint, s text)
  SERVER cancel_srv OPTIONS (filename :'files');
SET parquet_fdw.enable_aggregate_pushdown = off;
SET max_parallel_workers_per_gather = 0;

-- terse: where the scan stands when the timeout fires varies
\set VERBOSITY terse
SET statement_timeout = '100ms';
SELECT count(*), sum(id), max(s) FROM cancel_big;
-- the same with the rows going through a sort
SELECT s FROM cancel_big ORDER BY s DESC LIMIT 1;
RESET statement_timeout;
\set VERBOSITY default

-- the session is fine, and so is the table
SELECT count(*), sum(id) FROM cancel_big WHERE id <= 10;

DROP SERVER cancel_srv CASCADE;
