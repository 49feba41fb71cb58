#!/usr/bin/env bash
# Quick start: install build dependencies, build and install parquet_fdw,
# start a throwaway PostgreSQL 15 on a Unix socket in a temp folder, query the
# bundled examples/sample.parquet through a foreign table, then stop the
# server and remove the folder (always, also on error or Ctrl-C).
#
#   scripts/quickstart.sh
#
# Works as root (server runs as the 'postgres' OS user) and as an ordinary
# user with sudo (sudo is only used for apt-get and 'make install').
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"

trap 'pg_cluster_stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== 1. dependencies"
pf_install_deps "${PF_BUILD_DEPS[@]}"

echo "== 2. build and install"
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
[ -x "$PG_CONFIG" ] || PG_CONFIG=pg_config
JOBS=$(nproc 2>/dev/null || echo 2)
make -s -j"$JOBS" PG_CONFIG="$PG_CONFIG"
pf_sudo make -s install PG_CONFIG="$PG_CONFIG"

echo "== 3. throwaway PostgreSQL 15"
pg_cluster_start

# The server reads the sample file: give it a copy inside the cluster folder,
# which the server's OS user can always read.
SAMPLE="$PGC_DIR/sample.parquet"
cp "$ROOT/examples/sample.parquet" "$SAMPLE"
chmod 644 "$SAMPLE"

echo "== 4. example queries"
run() {
	echo
	echo "-- $1"
	pg_psql -c "$1"
}
run "CREATE EXTENSION parquet_fdw"
run "SELECT parquet_fdw_version()"
run "CREATE SERVER parquet_srv FOREIGN DATA WRAPPER parquet_fdw"
run "CREATE FOREIGN TABLE sample (
       id bigint, name text, price numeric(10,2), day date,
       ts timestamp, tags text[], ok boolean)
     SERVER parquet_srv OPTIONS (filename '$SAMPLE')"
run "SELECT * FROM sample ORDER BY id LIMIT 5"
run "SELECT count(*) AS n_rows, sum(price) AS total_price, min(day) AS first_day, max(ts) AS last_ts,
            count(*) FILTER (WHERE ok) AS n_ok, count(name) AS n_named FROM sample"
run "SELECT day, count(*) AS n, avg(price)::numeric(10,2) AS avg_price
     FROM sample WHERE day < DATE '2024-01-06' GROUP BY day ORDER BY day"
run "SELECT parquet_create_foreign_table('sample_auto', 'parquet_srv', '$SAMPLE')"
run "\\d sample_auto"
run "SELECT id, tags FROM sample_auto WHERE id BETWEEN 1 AND 4 ORDER BY id"
run "SELECT * FROM parquet_schema('$SAMPLE')"
run "SELECT * FROM parquet_metadata('$SAMPLE')"

echo
echo "quickstart: done (the throwaway cluster is removed on exit)"
