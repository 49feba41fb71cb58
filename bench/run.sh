#!/usr/bin/env bash
# End-to-end benchmark, one command:
#
#   bench/run.sh                      # BENCH_SCALE=small: 1M-row t10m, ~600k lineitem
#   BENCH_SCALE=full bench/run.sh     # 10M-row t10m, ~6M lineitem (TPC-H SF 1)
#
# 1. installs the missing Debian packages (scripts/lib/pgcluster.sh's helper)
#    and @duckdb/node-api with npm into $BENCH_NODE_MODULES (default
#    $HOME/.cache/parquet_fdw, outside the repository);
# 2. builds and installs the extension (make && make install), unless
#    BENCH_SKIP_BUILD=1, and bench/bin/csv2parquet (this project's writer);
# 3. starts a throwaway PostgreSQL 15 cluster (Unix socket in a temp folder);
# 4. runs bench/e2e.mjs: generates the data with DuckDB (deterministic,
#    cached in $BENCH_DATA_DIR, default /var/tmp/parquet_fdw-bench), loads a
#    heap table, file_fdw and parquet_fdw tables, runs every query on every
#    form and with DuckDB, checks the results equal, prints medians and ratios;
# 5. stops the cluster and removes its folder (also on error or Ctrl-C).
#
# Other knobs (see bench/e2e.mjs): BENCH_SEED, BENCH_RUNS, BENCH_OUT (also
# write the markdown report there), PF_SKIP_DEPS=1 (no apt), PGC_PORT.
# Exit status: 0, or 1 when a form's result differs from the heap table's
# (or setup failed).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../scripts/lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"

DUCKDB_NODE_API_VERSION=1.5.6-r.1
export BENCH_NODE_MODULES=${BENCH_NODE_MODULES:-$HOME/.cache/parquet_fdw}

trap pg_cluster_stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- 1. dependencies
if [ "${PF_SKIP_DEPS:-0}" != 1 ]; then
	deps=("${PF_BUILD_DEPS[@]}" postgresql-contrib)	# contrib: file_fdw
	command -v node >/dev/null 2>&1 || deps+=(nodejs)
	command -v npm >/dev/null 2>&1 || deps+=(npm)
	pf_install_deps "${deps[@]}"
fi
have=$(node -e "try { const r = require('module').createRequire('$BENCH_NODE_MODULES/x.js');
	console.log(require(r.resolve('@duckdb/node-api/package.json')).version) } catch { }")
if [ "$have" != "$DUCKDB_NODE_API_VERSION" ]; then
	echo "bench: installing @duckdb/node-api@$DUCKDB_NODE_API_VERSION into $BENCH_NODE_MODULES"
	mkdir -p "$BENCH_NODE_MODULES"
	npm install --prefix "$BENCH_NODE_MODULES" --no-audit --no-fund \
		"@duckdb/node-api@$DUCKDB_NODE_API_VERSION" >/dev/null
fi

# ---- 2. the extension
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/${PF_PG_MAJOR}/bin/pg_config}
[ -x "$PG_CONFIG" ] || PG_CONFIG=pg_config
if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
	# A failed build is not fatal: the parquet_fdw forms then show the error
	# and heap, file_fdw and DuckDB are still measured.
	if ! { make -C "$ROOT" -j"$(nproc)" PG_CONFIG="$PG_CONFIG" >/dev/null &&
		pf_sudo make -C "$ROOT" install PG_CONFIG="$PG_CONFIG" >/dev/null; }; then
		echo "bench: building or installing parquet_fdw failed; continuing without it" >&2
	fi
fi

# This project's Parquet writer as a command (bench/csv2parquet.c); without
# it the "ours" files are left out.
if ! make -C "$ROOT/bench" csv2parquet >/dev/null 2>&1; then
	echo "bench: building bench/bin/csv2parquet failed (make -C bench csv2parquet);" \
		"continuing without it" >&2
	rm -f "$ROOT/bench/bin/csv2parquet"	# not an older build's binary
fi

# ---- 3. throwaway cluster
pg_cluster_start
export BENCH_PSQL="$PGC_BINDIR/psql"
# The files the server reads must be readable by its OS user.
export BENCH_DATA_DIR=${BENCH_DATA_DIR:-/var/tmp/parquet_fdw-bench}
mkdir -p "$BENCH_DATA_DIR"
chmod 755 "$BENCH_DATA_DIR"
if ! pf_readable_by "$PGC_RUNAS" "$BENCH_DATA_DIR"; then
	echo "bench: the server's OS user $PGC_RUNAS cannot read $BENCH_DATA_DIR; set BENCH_DATA_DIR" >&2
	exit 1
fi

# ---- 4. the benchmark
node "$ROOT/bench/e2e.mjs"
