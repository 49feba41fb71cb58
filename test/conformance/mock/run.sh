#!/usr/bin/env bash
# Self-check of the conformance harness WITHOUT parquet_fdw: DuckDB exports
# every corpus file that has an expected CSV into a PostgreSQL-loadable CSV,
# file_fdw serves them, and a PL/pgSQL parquet_create_foreign_table() mock
# creates the foreign tables.  The harness then compares PostgreSQL's
# rendering of DuckDB's values with DuckDB's own rendering: every file
# should PASS except VARIANT columns (DuckDB's to_json of VARIANT is a
# string) and values PostgreSQL cannot hold.  A failure elsewhere is a
# harness (normalizer) bug.
#
#   test/conformance/mock/run.sh [DUCKDB_NODE_DIR]
#
# DUCKDB_NODE_DIR holds node_modules/@duckdb/node-api; by default the cache
# test/generated/generate.sh installs it into.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
DUCK=${1:-${PARQUET_FDW_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw}}
CORPUS=${PARQUET_TESTING_DIR:-$ROOT/../shared/parquet-testing}
. "$ROOT/scripts/lib/pgcluster.sh"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/pfmock.XXXXXX")
trap 'pg_cluster_stop; rm -rf "$OUT"' EXIT
(cd "$DUCK" && node "$HERE/export.mjs" "$CORPUS" "$OUT")
python3 "$HERE/load.py" "$OUT" >/dev/null
chmod -R a+rX "$OUT"; chmod 755 "$OUT"
pg_cluster_start >/dev/null
pg_psql -q -f "$OUT/setup.sql" >/dev/null
python3 "$ROOT/test/conformance/run_corpus.py" --skip-setup --corpus "$CORPUS" --label mock-selfcheck
