#!/usr/bin/env bash
# Scale-out benchmark: TPC-H Q1 and Q6 (the published texts, as bench/e2e.mjs
# runs them) over the bench's lineitem split by l_returnflag into hive
# folders, on this machine:
#
#   bench/cluster.sh
#
#   - one server, parquet_fdw over all files, no parallel workers;
#   - one server, up to 2 parallel workers, the planner's choice (parquet_fdw's
#     aggregate pushdown is serial), and with the pushdown off (a parallel
#     scan and partial aggregates);
#   - a coordinator over 1 node and over 2 nodes (A and R on node1, N on
#     node2), tables made by parquet_fdw_distribute, partitionwise
#     aggregation on: the coordinator's time, the nodes working at once.
#
# Best and median of BENCH_RUNS (default 5) after one warm-up run; the
# results of every form must equal the first's (exit 1 otherwise). Prints a
# markdown table and the load average before and after.
#
# Data: the source is BENCH_DATA_DIR/full-seed42/lineitem_snappy-v1-dict.parquet
# (BENCH_SCALE=full bench/run.sh makes it; BENCH_LINEITEM names another),
# split once by bench/cluster_split.mjs (DuckDB, @duckdb/node-api from
# BENCH_NODE_MODULES, as bench/run.sh installs it) into
# BENCH_DATA_DIR/cluster/lineitem. The servers: scripts/cluster.sh with
# PG_CONFIG's install (parquet_fdw installed there).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BENCH_DATA_DIR=${BENCH_DATA_DIR:-/var/tmp/parquet_fdw-bench}
export BENCH_NODE_MODULES=${BENCH_NODE_MODULES:-$HOME/.cache/parquet_fdw}
export BENCH_RUNS=${BENCH_RUNS:-5}
SPLIT=$BENCH_DATA_DIR/cluster/lineitem

if [ "${1:-}" != --inside ]; then
	src=${BENCH_LINEITEM:-$BENCH_DATA_DIR/full-seed42/lineitem_snappy-v1-dict.parquet}
	if [ ! -s "$src" ]; then
		echo "bench/cluster.sh: $src is missing; make it with BENCH_SCALE=full bench/run.sh" >&2
		exit 1
	fi
	# Split again when the source changed.
	stamp="$src $(stat -c '%s %Y' "$src")"
	if [ "$(cat "$SPLIT/.source" 2>/dev/null)" != "$stamp" ]; then
		rm -rf "$SPLIT"
		mkdir -p "$SPLIT"
		node "$ROOT/bench/cluster_split.mjs" "$src" "$SPLIT"
		echo "$stamp" >"$SPLIT/.source"
	fi
	chmod -R a+rX "$BENCH_DATA_DIR/cluster"
	exec "$ROOT/scripts/cluster.sh" run 2 "$0" --inside
fi

COLS='l_orderkey bigint, l_partkey bigint, l_suppkey bigint, l_linenumber int,
      l_quantity numeric(15,2), l_extendedprice numeric(15,2), l_discount numeric(15,2),
      l_tax numeric(15,2), l_returnflag text, l_linestatus text, l_shipdate date,
      l_commitdate date, l_receiptdate date, l_shipinstruct text, l_shipmode text,
      l_comment text'
# shellcheck disable=SC2034  # Q1 and Q6 are read as ${!qid}
Q1="SELECT l_returnflag, l_linestatus,
       sum(l_quantity) AS sum_qty,
       sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty,
       avg(l_extendedprice) AS avg_price,
       avg(l_discount) AS avg_disc,
       count(*) AS count_order
FROM {t}
WHERE l_shipdate <= DATE '1998-12-01' - 90
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus"
# shellcheck disable=SC2034
Q6="SELECT sum(l_extendedprice * l_discount) AS revenue
FROM {t}
WHERE l_shipdate >= DATE '1994-01-01'
  AND l_shipdate < DATE '1995-01-01'
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
  AND l_quantity < 24"

q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
q -c "SELECT * FROM parquet_fdw_distribute('lineitem_1n', \$\$$COLS\$\$, 'l_returnflag',
        ARRAY['node1'], ARRAY['$SPLIT'])" >/dev/null
q -c "SELECT * FROM parquet_fdw_distribute('lineitem_2n', \$\$$COLS\$\$, 'l_returnflag',
        ARRAY['node1', 'node2'],
        ARRAY['$SPLIT/l_returnflag=A,$SPLIT/l_returnflag=R', '$SPLIT/l_returnflag=N'])" >/dev/null
q -p "$PF_NODE1_PORT" -c "CREATE FOREIGN TABLE lineitem_one ($COLS) SERVER parquet_srv
        OPTIONS (filename '$SPLIT')"

# measure LABEL PORT SETUP QUERY: "best median plan" in ms, the result in
# $RESULT_FILE; plan: what the top of EXPLAIN shows
RESULT_FILE=$(mktemp)
trap 'rm -f "$RESULT_FILE"' EXIT
measure() {
	local port=$1 setup=$2 sql=$3 times plan
	plan=$(q -p "$port" -c "$setup" -c "EXPLAIN (VERBOSE) $sql" |
		grep -v 'Aggregate Pushdown: not used' |
		grep -oE 'Gather|Aggregate Pushdown|Async Foreign Scan|Relations: Aggregate|Partial|Remote SQL: SELECT [a-z_]+' |
		sort | uniq -c | awk '{ $1 = $1 "x"; print }' | paste -sd ',' -)
	local args=(-c "$setup" -c '\timing on')
	for _ in $(seq 0 "$BENCH_RUNS"); do args+=(-c "$sql"); done
	times=$(q -p "$port" "${args[@]}" | tee "$RESULT_FILE.out" | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' | tail -n +2)
	grep -vE '^Time: ' "$RESULT_FILE.out" | tail -n "$(($(grep -vcE '^Time: ' "$RESULT_FILE.out") / (BENCH_RUNS + 1)))" >"$RESULT_FILE"
	echo "$(echo "$times" | sort -n | head -n 1) $(echo "$times" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }') $plan"
}

status=0
echo
echo "| query | form | best ms | median ms | plan (EXPLAIN) |"
echo "|---|---|---:|---:|---|"
for qid in Q1 Q6; do
	sql=${!qid}
	ref=
	for form in one-serial one-2w one-2w-nopush coord-1n coord-2n; do
		case $form in
		one-serial) port=$PF_NODE1_PORT t=lineitem_one setup="SET max_parallel_workers_per_gather = 0"
			label="one server, no workers" ;;
		one-2w) port=$PF_NODE1_PORT t=lineitem_one setup="SET max_parallel_workers_per_gather = 2"
			label="one server, 2 workers allowed" ;;
		one-2w-nopush) port=$PF_NODE1_PORT t=lineitem_one
			setup="SET max_parallel_workers_per_gather = 2; SET parquet_fdw.enable_aggregate_pushdown = off"
			label="one server, 2 workers, pushdown off" ;;
		coord-1n) port=$PGPORT t=lineitem_1n setup="SET enable_partitionwise_aggregate = on"
			label="coordinator + 1 node" ;;
		coord-2n) port=$PGPORT t=lineitem_2n setup="SET enable_partitionwise_aggregate = on"
			label="coordinator + 2 nodes" ;;
		esac
		read -r best median plan < <(measure "$port" "$setup" "${sql//\{t\}/$t}")
		echo "| $qid | $label | $best | $median | $plan |"
		if [ -z "$ref" ]; then ref=$(cat "$RESULT_FILE")
		elif [ "$(cat "$RESULT_FILE")" != "$ref" ]; then
			echo "bench/cluster.sh: $qid $form differs from one-serial:" >&2
			diff <(echo "$ref") "$RESULT_FILE" >&2 || true
			status=1
		fi
	done
done
rm -f "$RESULT_FILE.out"
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
