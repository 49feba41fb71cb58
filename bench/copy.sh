#!/usr/bin/env bash
# COPY TO parquet against COPY TO csv and DuckDB's COPY TO parquet, one run:
#
#   bench/copy.sh                    # the bench's lineitem (TPC-H SF 1, ~6M rows)
#   BENCH_TABLE=t10m bench/copy.sh   # the bench's 10M-row t10m (a bigint,
#                                    # b int, c text, d float8, e date)
#
# Needs the data bench/run.sh caches (BENCH_DATA_DIR, default
# /var/tmp/parquet_fdw-bench/full-seed42/TABLE.csv; run
# BENCH_SCALE=full bench/run.sh once to make it), the extension installed
# for PG_CONFIG's server, and @duckdb/node-api in BENCH_NODE_MODULES
# (default: test/copy_interop/run.sh's folder, $HOME/.cache/parquet_fdw/
# copy_interop; run that once).  Starts a throwaway cluster, loads a
# heap table (not timed), then times, best of BENCH_RUNS (default 3):
# COPY TO csv, COPY TO parquet (snappy, zstd), and DuckDB 1 thread COPY of
# the same rows (loaded into a DuckDB table first) TO parquet (snappy,
# zstd).  Prints a markdown table with wall seconds, the writer's CPU
# seconds (the backend's, or the node process' for DuckDB) and file sizes.
# BENCH_BASELINE_LIB=/path/to/parquet_fdw.so (another build, say of main,
# readable by the server's user) adds its COPY TO parquet rows, timed in
# the same run: before and after under the same load.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../scripts/lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"
DATA=${BENCH_DATA_DIR:-/var/tmp/parquet_fdw-bench/full-seed42}
TABLE=${BENCH_TABLE:-lineitem}
CSV=$DATA/$TABLE.csv
RUNS=${BENCH_RUNS:-3}
MODULES=${BENCH_NODE_MODULES:-$HOME/.cache/parquet_fdw/copy_interop}
[ -f "$CSV" ] || { echo "copy bench: $CSV missing (BENCH_SCALE=full bench/run.sh makes it)" >&2; exit 1; }

OUT=$(mktemp -d "${TMPDIR:-/tmp}/pf-copy-bench.XXXXXX")
chmod 777 "$OUT"
trap 'pg_cluster_stop; rm -rf "$OUT"' EXIT
pg_cluster_start >/dev/null
case $TABLE in
lineitem)
	COLS='l_orderkey bigint, l_partkey bigint, l_suppkey bigint, l_linenumber int,
  l_quantity numeric(15,2), l_extendedprice numeric(15,2), l_discount numeric(15,2),
  l_tax numeric(15,2), l_returnflag text, l_linestatus text, l_shipdate date,
  l_commitdate date, l_receiptdate date, l_shipinstruct text, l_shipmode text,
  l_comment text'
	DUCK_TYPES="{'l_quantity': 'DECIMAL(15,2)', 'l_extendedprice': 'DECIMAL(15,2)', 'l_discount': 'DECIMAL(15,2)',
  'l_tax': 'DECIMAL(15,2)', 'l_linenumber': 'INTEGER', 'l_orderkey': 'BIGINT', 'l_partkey': 'BIGINT',
  'l_suppkey': 'BIGINT'}" ;;
t10m)
	COLS='a bigint, b int, c text, d float8, e date'
	DUCK_TYPES="{'a': 'BIGINT', 'b': 'INTEGER', 'c': 'VARCHAR', 'd': 'DOUBLE', 'e': 'DATE'}" ;;
*) echo "copy bench: BENCH_TABLE is lineitem or t10m" >&2; exit 1 ;;
esac
pg_psql -q -c "CREATE EXTENSION parquet_fdw" -c "CREATE TABLE $TABLE ($COLS)" \
	-c "\\copy $TABLE FROM '$CSV' (FORMAT csv, HEADER true)" -c "VACUUM ANALYZE $TABLE"
ROWS=$(pg_psql -At -c "SELECT count(*) FROM $TABLE")

# "wall cpu": the best of RUNS wall seconds of one statement and the best
# of its backend's CPU seconds (user + system, from /proc: less sensitive
# than wall time to the machine's load); a fresh session that LOADs the
# library $2, default the installed one, first
min_of() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }
time_pg() {
	local best= cbest= out t c
	for _ in $(seq "$RUNS"); do
		out=$(pg_psql -q -At -c "LOAD '${2:-parquet_fdw}'" \
			-c "SELECT 'cpu0 ' || pg_read_file('/proc/self/stat')" -c '\timing on' -c "$1" \
			-c '\timing off' -c "SELECT 'cpu1 ' || pg_read_file('/proc/self/stat')")
		t=$(echo "$out" | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' | tail -n 1)
		c=$(echo "$out" | awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu0" { a = $15 + $16 } $1 == "cpu1" { b = $15 + $16 } END { print (b - a) / hz }')
		best=$(min_of "$t" "$best")
		cbest=$(min_of "$c" "$cbest")
	done
	awk -v t="$best" -v c="$cbest" 'BEGIN { printf "%.2f %.2f", t / 1000, c }'
}
size_mib() { stat -c %s "$1" | awk '{ printf "%.1f", $1 / 1048576 }'; }

read -r csv_s csv_c <<<"$(time_pg "COPY $TABLE TO '$OUT/l.csv' (FORMAT csv)")"
read -r snappy_s snappy_c <<<"$(time_pg "COPY $TABLE TO '$OUT/l_snappy.parquet' (FORMAT parquet)")"
read -r zstd_s zstd_c <<<"$(time_pg "COPY $TABLE TO '$OUT/l_zstd.parquet' (FORMAT parquet, compression zstd)")"
BASE=${BENCH_BASELINE_LIB:-}
if [ -n "$BASE" ]; then
	read -r base_snappy_s base_snappy_c <<<"$(time_pg "COPY $TABLE TO '$OUT/b_snappy.parquet' (FORMAT parquet)" "$BASE")"
	read -r base_zstd_s base_zstd_c <<<"$(time_pg "COPY $TABLE TO '$OUT/b_zstd.parquet' (FORMAT parquet, compression zstd)" "$BASE")"
fi

cat >"$OUT/duck.mjs" <<'JS'
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
const [modules, csv, out, runs, table, types] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = 1`);
await con.run(`CREATE TABLE ${table} AS SELECT * FROM read_csv('${csv}', header = true, types = ${types})`);
for (const codec of ['snappy', 'zstd']) {
	let best = Infinity, cbest = Infinity;
	for (let r = 0; r < Number(runs); r++) {
		const t0 = performance.now();
		const c0 = process.cpuUsage();
		await con.run(`COPY ${table} TO '${out}/duck_${codec}.parquet' (FORMAT parquet, COMPRESSION ${codec})`);
		const c = process.cpuUsage(c0);
		best = Math.min(best, performance.now() - t0);
		cbest = Math.min(cbest, (c.user + c.system) / 1000);
	}
	console.log(`${codec} ${(best / 1000).toFixed(2)} ${(cbest / 1000).toFixed(2)}`);
}
JS
duck=$(node "$OUT/duck.mjs" "$MODULES" "$CSV" "$OUT" "$RUNS" "$TABLE" "$DUCK_TYPES")
duck_snappy=$(echo "$duck" | awk '$1 == "snappy" { print $2 }')
duck_snappy_c=$(echo "$duck" | awk '$1 == "snappy" { print $3 }')
duck_zstd=$(echo "$duck" | awk '$1 == "zstd" { print $2 }')
duck_zstd_c=$(echo "$duck" | awk '$1 == "zstd" { print $3 }')

cat <<MD
$TABLE: $ROWS rows, heap table; best of $RUNS runs; $(nproc) cores shared, PostgreSQL $(pg_psql -At -c 'SHOW server_version')

| writer | seconds | CPU seconds | file MiB |
|---|---:|---:|---:|
| PostgreSQL COPY TO csv | $csv_s | $csv_c | $(size_mib "$OUT/l.csv") |
| parquet_fdw COPY TO parquet (snappy) | $snappy_s | $snappy_c | $(size_mib "$OUT/l_snappy.parquet") |
| parquet_fdw COPY TO parquet (zstd) | $zstd_s | $zstd_c | $(size_mib "$OUT/l_zstd.parquet") |
| DuckDB 1 thread COPY TO parquet (snappy) | $duck_snappy | $duck_snappy_c | $(size_mib "$OUT/duck_snappy.parquet") |
| DuckDB 1 thread COPY TO parquet (zstd) | $duck_zstd | $duck_zstd_c | $(size_mib "$OUT/duck_zstd.parquet") |
MD
if [ -n "$BASE" ]; then
	cat <<MD
| baseline $(basename "$BASE") COPY TO parquet (snappy) | $base_snappy_s | $base_snappy_c | $(size_mib "$OUT/b_snappy.parquet") |
| baseline $(basename "$BASE") COPY TO parquet (zstd) | $base_zstd_s | $base_zstd_c | $(size_mib "$OUT/b_zstd.parquet") |
MD
fi
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo
echo "ours / DuckDB, wall: snappy $(ratio "$snappy_s" "$duck_snappy")x, zstd $(ratio "$zstd_s" "$duck_zstd")x; CPU: snappy $(ratio "$snappy_c" "$duck_snappy_c")x, zstd $(ratio "$zstd_c" "$duck_zstd_c")x"
echo "csv / ours (snappy), wall $(ratio "$csv_s" "$snappy_s")x, CPU $(ratio "$csv_c" "$snappy_c")x; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
