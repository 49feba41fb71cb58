#!/usr/bin/env bash
# Amudai shards against ZSTD Parquet on a t10m-shaped table (issue #5's
# goal: shards at least 15% smaller, scans no slower).
#
#   bench/amudai.sh [ROWS]        (default 1000000; needs make install done)
#
# Generates t10m (bench/e2e_gen.sql's generator, seed 42) as one ZSTD Parquet
# file with DuckDB, writes the same rows as a shard with
# parquet_fdw_write_amudai() (stripes of 122880 rows, DuckDB's row group
# size), checks both tables give the same rows, then prints the file sizes
# and, side by side in one run, the best of BENCH_RUNS (5) timings of each
# query on each table.  A throwaway cluster is started and always stopped.
set -euo pipefail
ROWS=${1:-1000000}
RUNS=${BENCH_RUNS:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
MODULES=${PF_NODE_MODULES:-$HOME/.cache/parquet_fdw}
WORK=$(mktemp -d /tmp/pf_amudai_bench.XXXXXX)
chmod 777 "$WORK"
# shellcheck source=../scripts/lib/pgcluster.sh
source "$HERE/../scripts/lib/pgcluster.sh"
trap 'pg_cluster_stop >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

node "$HERE/amudai_gen.mjs" "$MODULES" "$ROWS" "$WORK/t10m.parquet" >/dev/null
chmod 644 "$WORK/t10m.parquet"
pg_cluster_start >/dev/null
q() { pg_psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# PF_SO=/path/parquet_fdw.so: load that build instead of the installed one
# (the extension script run by hand with MODULE_PATHNAME replaced)
if [ -n "${PF_SO:-}" ]; then
	sed -e "s|MODULE_PATHNAME|$PF_SO|g" -e '/^\\echo/d' "$HERE/../parquet_fdw--1.0.sql" | q >/dev/null
else
	q -c 'CREATE EXTENSION parquet_fdw'
fi
q <<SQL
CREATE SERVER s FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE t_pq (a bigint, b int, c text, d float8, e date)
  SERVER s OPTIONS (filename '$WORK/t10m.parquet');
SELECT parquet_fdw_write_amudai('SELECT * FROM t_pq', '$WORK/t10m.amudai.shard', 122880);
CREATE FOREIGN TABLE t_am (a bigint, b int, c text, d float8, e date)
  SERVER s OPTIONS (filename '$WORK/t10m.amudai.shard');
SQL
diffs=$(q -c "SELECT count(*) FROM ((SELECT * FROM t_pq EXCEPT ALL SELECT * FROM t_am)
              UNION ALL (SELECT * FROM t_am EXCEPT ALL SELECT * FROM t_pq)) x")
pq_size=$(stat -c %s "$WORK/t10m.parquet")
am_size=$(stat -c %s "$WORK/t10m.amudai.shard")
echo "rows: $ROWS, rows differing between the tables: $diffs"
echo "size: parquet zstd $pq_size bytes, amudai $am_size bytes, amudai/parquet = $(awk "BEGIN{printf \"%.3f\", $am_size/$pq_size}")"

# best-of-RUNS milliseconds of a query (after one warm-up)
best_ms() {
	local best=""
	q -c "$1" >/dev/null
	for _ in $(seq "$RUNS"); do
		local t
		t=$(q -c '\timing on' -c "$1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
	done
	echo "$best"
}
# scans alone: no parallel workers, no aggregate pushdown (Parquet has both,
# shards neither yet), so the ratio compares decoding and conversion
export PGOPTIONS='-c max_parallel_workers_per_gather=0 -c parquet_fdw.enable_aggregate_pushdown=off'
printf '%-44s %12s %12s %8s\n' query parquet_ms amudai_ms am/pq
for query in 'SELECT count(*) FROM %s' \
	'SELECT sum(a), sum(b), sum(d) FROM %s' \
	'SELECT count(c), max(e) FROM %s' \
	'SELECT * FROM %s WHERE a = 8000016'; do
	p=$(best_ms "$(printf "$query" t_pq)")
	a=$(best_ms "$(printf "$query" t_am)")
	printf '%-44s %12s %12s %8s\n' "$(printf "$query" t)" "$p" "$a" "$(awk "BEGIN{printf \"%.2f\", $a/$p}")"
done
