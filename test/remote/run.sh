#!/usr/bin/env bash
# The object-store client (src/remote) against a live S3-compatible server:
# starts s3rver (npm) on 127.0.0.1, uploads corpus files with curl's own
# SigV4, runs store_check (test/remote/store_check.c) and stops the server.
# Last line "store_check: N passed, N failed".
#
#   test/remote/run.sh
#
# s3rver comes from npm into the same cache as DuckDB's node package
# (PARQUET_FDW_NODE_CACHE or ~/.cache/parquet_fdw).  It checks access key
# ids but not SigV4 signatures; test_sigv4 checks those against AWS's
# published examples.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
S3RVER_VERSION=3.7.1
CORPUS=${PARQUET_TESTING_DIR:-$ROOT/../shared/parquet-testing}/data

CACHE=${PARQUET_FDW_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw}
mkdir -p "$CACHE"
if [ ! -x "$CACHE/node_modules/.bin/s3rver" ]; then
	echo "remote: installing s3rver@$S3RVER_VERSION into $CACHE"
	(cd "$CACHE" && npm install --no-audit --no-fund --no-save --loglevel=error \
		"s3rver@$S3RVER_VERSION" >/dev/null 2>&1) || {
		echo "remote: npm install s3rver failed"; echo "store_check: 0 passed, 1 failed"; exit 1; }
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pf-remote.XXXXXX")
SERVER_PID=
cleanup() {
	[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

make -s -C "$ROOT/test" remote/bin/store_check || {
	echo "store_check: 0 passed, 1 failed"; exit 1; }

# A free port: let the kernel pick one, then hand it to s3rver.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# s3rver 3 makes continuation tokens with a cipher Node's OpenSSL 3 hides.
NODE_OPTIONS=--openssl-legacy-provider "$CACHE/node_modules/.bin/s3rver" \
	-d "$WORK/data" -a 127.0.0.1 -p "$PORT" --configure-bucket test \
	>"$WORK/s3rver.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 50); do
	curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break
	sleep 0.2
done

KEYS=(alltypes_plain.parquet nation.dict-malformed.parquet datapage_v2.snappy.parquet
	single_nan.parquet binary.parquet)
for k in "${KEYS[@]}"; do
	curl -s -f --aws-sigv4 "aws:amz:us-east-1:s3" --user S3RVER:S3RVER \
		-H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -T "$CORPUS/$k" \
		"http://127.0.0.1:$PORT/test/$k" -o /dev/null || {
		echo "remote: upload of $k failed"; tail -5 "$WORK/s3rver.log"
		echo "store_check: 0 passed, 1 failed"; exit 1; }
done

"$ROOT/test/remote/bin/store_check" "127.0.0.1:$PORT" test "$CORPUS" "${KEYS[@]}"
