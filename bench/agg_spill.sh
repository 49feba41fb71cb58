#!/usr/bin/env bash
# Aggregate pushdown beyond memory: GROUP BY a ~all-distinct text key and
# count(DISTINCT), pushdown on and off, one run each, single process, on
# a file written by COPY TO (FORMAT parquet) from
#   k = 'user-' || md5(i), v = i, n = (i % 1000)::numeric(12,2), f = i * 0.5
# for i = 1..BENCH_ROWS (default 1M; the issue's case is 4M):
#
#   bench/agg_spill.sh        # against the server PGHOST/PGPORT point to,
#                             # parquet_fdw installed there
#
# The file goes into the server's data directory (pf_agg_spill_<rows>).
# Prints per query and setting: the time, the scan's bytes read and peak
# memory (EXPLAIN ANALYZE), temporary blocks written, and the backend's
# peak resident memory (VmHWM, read from /proc: run it on the server's
# machine).  work_mem is BENCH_WORK_MEM (default 4MB).
set -euo pipefail

ROWS=${BENCH_ROWS:-1000000}
WM=${BENCH_WORK_MEM:-4MB}

psql -X -qAt -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
LOAD 'parquet_fdw';
SELECT current_setting('data_directory') || '/pf_agg_spill_$ROWS.parquet' AS f \gset
CREATE SERVER IF NOT EXISTS agg_spill_srv FOREIGN DATA WRAPPER parquet_fdw;
DROP FOREIGN TABLE IF EXISTS agg_spill;
CREATE TEMP TABLE agg_spill_src AS
  SELECT 'user-' || md5(i::text) AS k, i AS v, (i % 1000)::numeric(12,2) AS n,
         i * 0.5::float8 AS f
  FROM generate_series(1, $ROWS) i;
COPY agg_spill_src TO :'f' (FORMAT parquet);
CREATE FOREIGN TABLE agg_spill (k text, v int, n numeric(12,2), f float8)
  SERVER agg_spill_srv OPTIONS (filename :'f');
SQL

run() {
	local push=$1 q=$2
	psql -X -qAt -v ON_ERROR_STOP=1 <<SQL
SET parquet_fdw.enable_aggregate_pushdown = $push;
SET work_mem = '$WM';
SET max_parallel_workers_per_gather = 0;
SELECT pg_backend_pid() AS pid \gset
CREATE TEMP TABLE plan (ln text);
DO \$\$ DECLARE ln text; BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) $q' LOOP
    INSERT INTO plan VALUES (ln);
  END LOOP; END \$\$;
SELECT '$push' AS pushdown,
  (SELECT substring(ln from 'Execution Time: ([0-9.]+)') FROM plan WHERE ln ~ 'Execution Time') || ' ms',
  coalesce((SELECT max(substring(ln from 'Bytes Read: ([0-9]+)')::bigint) FROM plan WHERE ln ~ 'Bytes Read'), 0) || ' bytes read',
  coalesce((SELECT max(substring(ln from 'Peak Memory: ([0-9]+)')::bigint) FROM plan WHERE ln ~ 'Peak Memory'), 0) || ' kB scan peak',
  coalesce((SELECT max(substring(ln from 'temp .*written=([0-9]+)')::bigint) FROM plan WHERE ln ~ 'temp .*written'), 0) || ' temp blocks written';
\setenv PID :pid
\! grep VmHWM /proc/\$PID/status
SQL
}

for q in "SELECT count(*), sum(c) FROM (SELECT k, count(*) c, sum(v) s, avg(n) a, max(f) m FROM agg_spill GROUP BY k) q" \
	"SELECT count(DISTINCT k), count(DISTINCT v) FROM agg_spill"; do
	echo "== $ROWS rows, work_mem $WM: $q"
	run on "$q"
	run off "$q"
done
