#!/usr/bin/env bash
# Writes the generated interop files (NAME.parquet + NAME.parquet.expected.csv)
# that cover what the parquet-testing corpus lacks; see gen_duckdb.mjs for the
# list, plus the files of the project's own writer (writer_*.parquet, from
# test/unit/test_writer.c, checked value by value with DuckDB by
# check_writer.mjs).  scripts/test.sh then runs
# test/conformance/run_corpus.py --dir over them.
#
#   bash test/generated/generate.sh [OUT_DIR]     (default <repo>/build/generated)
#
# Checking the files and the harness without parquet_fdw (the mock serves
# DuckDB's own export through file_fdw): put OUT_DIR's files under C/data/,
# create empty C/bad_data/ and C/shredded_variant/, then run
#   PARQUET_TESTING_DIR=C test/conformance/mock/run.sh "$CACHE"
#
# DuckDB comes from npm (@duckdb/node-api, pinned to the DuckDB release that
# wrote the corpus' expected CSVs), installed on first use into a cache
# folder outside the repository: PARQUET_FDW_NODE_CACHE, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw.  Needs node and npm.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/build/generated}
DUCKDB_NODE_API=1.5.6-r.1

CACHE=${PARQUET_FDW_NODE_CACHE:-}
if [ -z "$CACHE" ]; then
	if [ -n "${HOME:-}" ] && mkdir -p "${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw" 2>/dev/null; then
		CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw
	else
		CACHE=${TMPDIR:-/tmp}/parquet_fdw-node-$(id -u)
	fi
fi
mkdir -p "$CACHE"

for tool in node npm; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "generate: $tool not found (install nodejs and npm)" >&2
		exit 1
	fi
done

installed=$(node -e 'try { console.log(require(process.argv[1]).version) } catch (e) { console.log("") }' \
	"$CACHE/node_modules/@duckdb/node-api/package.json")
if [ "$installed" != "$DUCKDB_NODE_API" ]; then
	echo "generate: installing @duckdb/node-api@$DUCKDB_NODE_API into $CACHE"
	(cd "$CACHE" && npm install --no-audit --no-fund --no-save --loglevel=error \
		"@duckdb/node-api@$DUCKDB_NODE_API" >/dev/null 2>&1) || {
		echo "generate: npm install @duckdb/node-api@$DUCKDB_NODE_API failed" >&2
		exit 1
	}
fi

# Only our own outputs are removed, so a mistaken OUT_DIR loses nothing else.
mkdir -p "$OUT"
find "$OUT" -maxdepth 1 -type f \( -name '*.parquet' -o -name '*.expected.csv' \) -delete
node "$HERE/gen_duckdb.mjs" "$CACHE" "$OUT"

# Files of the project's own writer: test_writer leaves them in OUT, DuckDB
# checks every value against the formulas that made them and writes their
# expected CSVs.  PF_TEST_BUILD picks test/Makefile's library build folder.
status=0
if make -s -C "$ROOT/test" ${PF_TEST_BUILD:+BUILD="$PF_TEST_BUILD"} unit/bin/test_writer >"$OUT/.writer-build.log" 2>&1; then
	if PQ_WRITER_OUT_DIR=$OUT "$ROOT/test/unit/bin/test_writer" >"$OUT/.writer-test.log" 2>&1; then
		node "$HERE/check_writer.mjs" "$CACHE" "$OUT" || status=1
	else
		tail -n 20 "$OUT/.writer-test.log"
		echo "generate: test_writer failed; writer files not checked" >&2
		status=1
	fi
else
	tail -n 20 "$OUT/.writer-build.log"
	echo "generate: could not build test/unit/bin/test_writer" >&2
	status=1
fi
rm -f "$OUT/.writer-build.log" "$OUT/.writer-test.log"
exit $status
