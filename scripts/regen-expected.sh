#!/usr/bin/env bash
# Regenerates the *.expected.csv files of the parquet-testing corpus with
# the DuckDB release that made them (MANIFEST.tsv's header: DuckDB 1.5.6
# through @duckdb/node-api 1.5.6-r.1, COPY ... TO csv HEADER, threads=1,
# TimeZone=UTC), or checks that a regeneration gives the shipped bytes.
#
#   scripts/regen-expected.sh [--check] [PATH...]
#
# PATH: Parquet files or folders (searched recursively); by default the
# corpus' data/, bad_data/ and shredded_variant/ under PARQUET_TESTING_DIR
# (default <repo>/../shared/parquet-testing).  Without --check the CSVs are
# rewritten in place: point it at a copy when the corpus is shared.
#
# DuckDB comes from npm, installed on first use into a cache folder outside
# the repository: PARQUET_FDW_NODE_CACHE, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw (the one
# test/generated/generate.sh uses).  Needs node and npm.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DUCKDB_NODE_API=1.5.6-r.1

mode=write
if [ "${1:-}" = --check ]; then
	mode=check
	shift
fi
if [ $# -eq 0 ]; then
	corpus=${PARQUET_TESTING_DIR:-$ROOT/../shared/parquet-testing}
	[ -d "$corpus" ] || { echo "regen-expected: no corpus at $corpus (set PARQUET_TESTING_DIR)" >&2; exit 1; }
	for sub in data bad_data shredded_variant; do
		[ -d "$corpus/$sub" ] && set -- "$@" "$corpus/$sub"
	done
fi

for tool in node npm; do
	command -v "$tool" >/dev/null 2>&1 || { echo "regen-expected: $tool not found (install nodejs and npm)" >&2; exit 1; }
done

CACHE=${PARQUET_FDW_NODE_CACHE:-}
if [ -z "$CACHE" ]; then
	if [ -n "${HOME:-}" ] && mkdir -p "${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw" 2>/dev/null; then
		CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw
	else
		CACHE=${TMPDIR:-/tmp}/parquet_fdw-node-$(id -u)
	fi
fi
mkdir -p "$CACHE"

# The CSVs depend on the DuckDB version (float and nested-value rendering),
# so the pinned one, not whatever is installed.
installed=$(node -e 'try { console.log(require(process.argv[1]).version) } catch (e) { console.log("") }' \
	"$CACHE/node_modules/@duckdb/node-api/package.json")
if [ "$installed" != "$DUCKDB_NODE_API" ]; then
	echo "regen-expected: installing @duckdb/node-api@$DUCKDB_NODE_API into $CACHE"
	(cd "$CACHE" && npm install --no-audit --no-fund --no-save --loglevel=error \
		"@duckdb/node-api@$DUCKDB_NODE_API" >/dev/null) || {
		echo "regen-expected: npm install @duckdb/node-api@$DUCKDB_NODE_API failed" >&2
		exit 1
	}
fi

exec node "$ROOT/test/conformance/regen_expected.mjs" "$CACHE" "$mode" "$@"
