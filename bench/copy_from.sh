#!/usr/bin/env bash
# COPY FROM parquet into a heap table against COPY FROM csv of the same
# rows (issue #14), one command:
#
#   bench/copy_from.sh
#
# 1. builds and installs the extension unless BENCH_SKIP_BUILD=1 (with
#    PG_CONFIG set, into that server copy);
# 2. starts a throwaway cluster, makes a BENCH_ROWS-row (default 2M) heap
#    table of seven columns (int, bigint, float8, numeric(12,2), text,
#    date, timestamptz) and writes it with COPY TO as Parquet (the
#    writer's defaults: snappy, dictionaries) and as CSV;
# 3. times, interleaved, BENCH_RUNS (default 3) runs each of loading an
#    empty plain heap table (TRUNCATE and CHECKPOINT before each run):
#      parquet  COPY t FROM 'x.parquet' (FORMAT parquet)
#      csv      COPY t FROM 'x.csv' (FORMAT csv)
#      scan     INSERT INTO t SELECT * FROM a foreign table over x.parquet
#               (the same reader without COPY FROM's row function: what a
#               direct insertion could gain at most)
#    and prints the best of each with rows/s, and checks that every load
#    gave the source's rows (EXCEPT ALL both ways, once).
# The cluster is always stopped.  The machine is shared: compare the
# ratios of one run.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../scripts/lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"

ROWS=${BENCH_ROWS:-2000000}
RUNS=${BENCH_RUNS:-3}

trap pg_cluster_stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
	make -C "$ROOT" -j2 >/dev/null
	make -C "$ROOT" install >/dev/null
fi

pg_cluster_start >/dev/null
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION parquet_fdw;
LOAD 'parquet_fdw';
CREATE SERVER bench_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE TABLE src AS
SELECT i AS id, i::int8 * 1000003 AS big, i / 7.0::float8 AS f,
       (i % 100000 * 1.25)::numeric(12,2) AS amount,
       'customer ' || (i % 5000) || ' note ' || md5(i::text) AS note,
       date '2020-01-01' + i % 2000 AS day,
       timestamptz '2020-01-01 00:00:00+00' + i * interval '1 second' AS at
  FROM generate_series(1, $ROWS) i;
SELECT current_setting('data_directory') AS dd \gset
\set pq :dd '/bench_copy_from.parquet'
\set csv :dd '/bench_copy_from.csv'
COPY src TO :'pq' (FORMAT parquet);
COPY src TO :'csv' (FORMAT csv);
CREATE TABLE dst (LIKE src);
CREATE FOREIGN TABLE ft (id int, big int8, f float8, amount numeric(12,2),
  note text, day date, at timestamptz) SERVER bench_srv OPTIONS (filename :'pq');
SQL

dd=$(psql -X -A -t -c "SELECT current_setting('data_directory')")
psql -X -A -t -c "SELECT 'parquet file: ' || pg_size_pretty(size) FROM pg_stat_file('$dd/bench_copy_from.parquet')"
psql -X -A -t -c "SELECT 'csv file: ' || pg_size_pretty(size) FROM pg_stat_file('$dd/bench_copy_from.csv')"

declare -A best
time_one() {	# name, statement: milliseconds of the statement alone
	local ms
	ms=$(psql -X -q -A -t -v ON_ERROR_STOP=1 <<SQL | grep -E '^Time:' | tail -n 1 | sed -E 's/^Time: ([0-9.]+) ms.*/\1/'
LOAD 'parquet_fdw';
TRUNCATE dst;
CHECKPOINT;
\timing on
$2;
SQL
)
	echo "$1 run: $ms ms"
	if [ -z "${best[$1]:-}" ] || awk "BEGIN{exit !($ms < ${best[$1]})}"; then
		best[$1]=$ms
	fi
}

for ((r = 1; r <= RUNS; r++)); do
	time_one parquet "COPY dst FROM '$dd/bench_copy_from.parquet' (FORMAT parquet)"
	time_one csv "COPY dst FROM '$dd/bench_copy_from.csv' (FORMAT csv)"
	time_one scan "INSERT INTO dst SELECT * FROM ft"
done

# every way loads the source's rows
for how in parquet csv; do
	psql -X -q -A -t -v ON_ERROR_STOP=1 <<SQL
LOAD 'parquet_fdw';
TRUNCATE dst;
COPY dst FROM '$dd/bench_copy_from.$how' (FORMAT $how);
SELECT 'check ($how): missing ' ||
       (SELECT count(*) FROM (SELECT * FROM src EXCEPT ALL SELECT * FROM dst) x) ||
       ', extra ' ||
       (SELECT count(*) FROM (SELECT * FROM dst EXCEPT ALL SELECT * FROM src) x);
SQL
done

echo
echo "rows: $ROWS, best of $RUNS"
printf '%-8s %10s %12s %8s\n' load ms rows/s vs_csv
for k in parquet csv scan; do
	awk -v k="$k" -v ms="${best[$k]}" -v rows="$ROWS" -v csv="${best[csv]}" \
		'BEGIN{printf "%-8s %10.0f %12.0f %8.2f\n", k, ms, rows / (ms / 1000), ms / csv}'
done
