#!/usr/bin/env bash
# ClickBench-shaped benchmark, one command:
#
#   bench/clickbench/run.sh                  # 2,000,000 rows
#   BENCH_QUICK=1 bench/clickbench/run.sh    # 200,000 rows
#   BENCH_OUT=/tmp/cb.md BENCH_QUERIES=0-9 bench/clickbench/run.sh
#
# 1. @duckdb/node-api into $BENCH_NODE_MODULES (as bench/run.sh does);
# 2. builds and installs the extension with PG_CONFIG (unless
#    BENCH_SKIP_BUILD=1);
# 3. starts a throwaway cluster (scripts/lib/pgcluster.sh);
# 4. bench.mjs: generates hits (gen.mjs, cached in BENCH_DATA_DIR), loads
#    the heap table, runs the 43 queries of queries.sql on the heap table,
#    parquet_fdw serial and with 2 workers, DuckDB 1 and 2 threads, checks
#    every answer against the heap table's and prints the markdown report;
# 5. stops the cluster (also on error or Ctrl-C).
# Knobs: see bench.mjs.  Exit status 1 when an answer differs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=../../scripts/lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"

DUCKDB_NODE_API_VERSION=1.5.6-r.1
export BENCH_NODE_MODULES=${BENCH_NODE_MODULES:-$HOME/.cache/parquet_fdw}

trap pg_cluster_stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

have=$(node -e "try { const r = require('module').createRequire('$BENCH_NODE_MODULES/x.js');
	console.log(require(r.resolve('@duckdb/node-api/package.json')).version) } catch { }")
if [ "$have" != "$DUCKDB_NODE_API_VERSION" ]; then
	echo "clickbench: installing @duckdb/node-api@$DUCKDB_NODE_API_VERSION into $BENCH_NODE_MODULES"
	mkdir -p "$BENCH_NODE_MODULES"
	npm install --prefix "$BENCH_NODE_MODULES" --no-audit --no-fund \
		"@duckdb/node-api@$DUCKDB_NODE_API_VERSION" >/dev/null
fi

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/${PF_PG_MAJOR}/bin/pg_config}
if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
	make -C "$ROOT" -j2 PG_CONFIG="$PG_CONFIG" >/dev/null
	if [ -w "$("$PG_CONFIG" --pkglibdir)" ]; then
		make -C "$ROOT" install PG_CONFIG="$PG_CONFIG" >/dev/null
	else
		pf_sudo make -C "$ROOT" install PG_CONFIG="$PG_CONFIG" >/dev/null
	fi
fi

pg_cluster_start
export BENCH_PSQL="$PGC_BINDIR/psql"
export BENCH_DATA_DIR=${BENCH_DATA_DIR:-/var/tmp/parquet_fdw-clickbench}
mkdir -p "$BENCH_DATA_DIR"
chmod 755 "$BENCH_DATA_DIR"
if ! pf_readable_by "$PGC_RUNAS" "$BENCH_DATA_DIR"; then
	echo "clickbench: the server's OS user $PGC_RUNAS cannot read $BENCH_DATA_DIR; set BENCH_DATA_DIR" >&2
	exit 1
fi
node "$HERE/bench.mjs"
