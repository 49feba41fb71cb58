#!/usr/bin/env bash
# COPY TO interop: writes test/copy_interop/source.sql's table with COPY ...
# TO (FORMAT parquet) under several option sets (and once with psql's
# \copy, through COPY TO STDOUT), then check.mjs reads every file with
# DuckDB, hyparquet and arrow-rs (parquet-wasm) and compares the values with
# the table's canonical export.
#
#   bash test/copy_interop/run.sh        (needs PGHOST/PGPORT of a running
#                                         server with parquet_fdw installed,
#                                         node and npm)
#
# The npm packages are installed on first use into copy_interop/ under the
# cache folder of test/generated/generate.sh (PARQUET_FDW_NODE_CACHE, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw): a folder of its own, since
# "npm install --no-save" removes the packages it was not asked for.
# Last line: "N passed, N failed".
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DUCKDB_NODE_API=1.5.6-r.1
PACKAGES=("@duckdb/node-api@$DUCKDB_NODE_API" hyparquet@1.33.0 hyparquet-compressors@1.1.2
	parquet-wasm@0.8.0 apache-arrow@21.2.0)

CACHE=${PARQUET_FDW_NODE_CACHE:-}
if [ -z "$CACHE" ]; then
	if [ -n "${HOME:-}" ] && mkdir -p "${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw" 2>/dev/null; then
		CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw
	else
		CACHE=${TMPDIR:-/tmp}/parquet_fdw-node-$(id -u)
	fi
fi
CACHE=$CACHE/copy_interop
mkdir -p "$CACHE"
# a package.json makes this folder npm's prefix (else npm uses the parent's)
[ -f "$CACHE/package.json" ] || echo '{ "private": true }' >"$CACHE/package.json"
missing=0
for p in @duckdb/node-api hyparquet hyparquet-compressors parquet-wasm apache-arrow; do
	[ -f "$CACHE/node_modules/$p/package.json" ] || missing=1
done
if [ $missing = 1 ]; then
	echo "copy-interop: installing ${PACKAGES[*]} into $CACHE"
	(cd "$CACHE" && npm install --no-audit --no-fund --no-save --loglevel=error "${PACKAGES[@]}" >/dev/null 2>&1) || {
		echo "copy-interop: npm install failed"; echo "0 passed, 1 failed"; exit 1; }
fi

OUT=$(mktemp -d "${TMPDIR:-/tmp}/pf-copy-interop.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
chmod 777 "$OUT"
DB=pf_copy_interop
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
q() { psql -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
q -c "CREATE EXTENSION parquet_fdw" -f "$HERE/source.sql"
# Every COPY runs in a session that loaded the library (LOAD), as
# session_preload_libraries would.
q <<SQL
LOAD 'parquet_fdw';
COPY interop TO '$OUT/default.parquet' (FORMAT parquet);
COPY interop TO '$OUT/zstd_v2_plain.parquet' (FORMAT parquet, compression zstd, data_page_version 2, dictionary false, row_group_size 1000);
COPY interop TO '$OUT/gzip_small_pages.parquet' (FORMAT parquet, compression gzip, page_size 2048, row_group_size 700);
COPY interop TO '$OUT/lz4_raw.parquet' (FORMAT parquet, compression lz4_raw);
COPY interop TO '$OUT/brotli.parquet' (FORMAT parquet, compression brotli);
COPY interop TO '$OUT/bloom_uncompressed.parquet' (FORMAT parquet, compression uncompressed, bloom_filter_columns 't,id', row_group_size 500, statistics false);
COPY (SELECT * FROM interop ORDER BY i4 DESC NULLS LAST, id) TO '$OUT/sorted_i4_desc.parquet' (FORMAT parquet, sorting_columns 'i4 desc nulls last, id', row_group_size 1000);
SQL
q -c "LOAD 'parquet_fdw'" -c "\\copy interop TO '$OUT/client_copy.parquet' (FORMAT parquet, compression zstd)"
q -At -c "SELECT row_to_json(c) FROM interop_canonical c ORDER BY id" > "$OUT/expected.jsonl"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB"
node "$HERE/check.mjs" "$CACHE" "$OUT"
