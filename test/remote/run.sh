#!/usr/bin/env bash
# The object-store client (src/remote) against live servers on 127.0.0.1:
# s3rver (npm, S3-compatible; files uploaded with curl's own SigV4) and
# Azurite (npm, Microsoft's Azure Storage emulator; files uploaded by
# azure_put.mjs with its own Shared Key signature).  Runs store_check
# (test/remote/store_check.c) against each and stops the servers.
# Then store_check's faults mode through fault_proxy.mjs in front of
# s3rver (injected 5xx, 429, resets, truncated bodies, a changed ETag).
# Then HTTPS against nginx with a private CA (test/remote/https.sh).
# Last line "remote: N passed, N failed" (the sum of the four).
#
#   test/remote/run.sh
#
# Both come from npm into remote-servers/ under the node cache
# (PARQUET_FDW_NODE_CACHE or ~/.cache/parquet_fdw).  s3rver checks access
# key ids but not SigV4 signatures (test_sigv4 checks those against AWS's
# published examples); Azurite verifies Shared Key signatures.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
S3RVER_VERSION=3.7.1
AZURITE_VERSION=3.35.0
# Azurite's well-known development account (public, in Microsoft's docs).
AZ_ACCOUNT=devstoreaccount1
AZ_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
CORPUS=${PARQUET_TESTING_DIR:-$ROOT/../shared/parquet-testing}/data

# A folder of their own: npm install --no-save prunes what it did not list,
# which would remove the DuckDB package test/generated keeps in the parent.
CACHE=${PARQUET_FDW_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw}/remote-servers
mkdir -p "$CACHE"
# A package.json of its own keeps npm from installing into a parent folder.
[ -f "$CACHE/package.json" ] || echo '{"private": true}' >"$CACHE/package.json"
fail_all() { echo "remote: $*"; echo "remote: 0 passed, 1 failed"; exit 1; }
version_of() {
	node -e 'try { console.log(require(process.argv[1]).version) } catch (e) { console.log("") }' \
		"$CACHE/node_modules/$1/package.json"
}
if [ "$(version_of s3rver)" != "$S3RVER_VERSION" ] || [ "$(version_of azurite)" != "$AZURITE_VERSION" ]; then
	echo "remote: installing s3rver@$S3RVER_VERSION azurite@$AZURITE_VERSION into $CACHE"
	npm install --prefix "$CACHE" --no-audit --no-fund --no-save --loglevel=error \
		"s3rver@$S3RVER_VERSION" "azurite@$AZURITE_VERSION" >/dev/null 2>&1 ||
		fail_all "npm install of s3rver and azurite failed"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pf-remote.XXXXXX")
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT

make -s -C "$ROOT/test" remote/bin/store_check || fail_all "build of store_check failed"

# Free ports: let the kernel pick them, then hand them to the servers.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
	for _ in $(seq 1 100); do
		curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
		sleep 0.2
	done
	return 1
}
PORT=$(free_port)
AZ_PORT=$(free_port)
PROXY_PORT=$(free_port)
# s3rver 3 makes continuation tokens with a cipher Node's OpenSSL 3 hides.
NODE_OPTIONS=--openssl-legacy-provider "$CACHE/node_modules/.bin/s3rver" \
	-d "$WORK/data" -a 127.0.0.1 -p "$PORT" --configure-bucket test \
	>"$WORK/s3rver.log" 2>&1 &
PIDS+=($!)
"$CACHE/node_modules/.bin/azurite-blob" --silent --disableTelemetry --skipApiVersionCheck \
	--location "$WORK/azurite" --blobHost 127.0.0.1 --blobPort "$AZ_PORT" \
	>"$WORK/azurite.log" 2>&1 &
PIDS+=($!)
node "$HERE/fault_proxy.mjs" "$PROXY_PORT" 127.0.0.1 "$PORT" >"$WORK/proxy.log" 2>&1 &
PIDS+=($!)
wait_port "$PORT" || fail_all "s3rver did not start"
wait_port "$PROXY_PORT" || fail_all "the fault proxy did not start"
wait_port "$AZ_PORT" || fail_all "azurite did not start"

KEYS=(alltypes_plain.parquet nation.dict-malformed.parquet datapage_v2.snappy.parquet
	single_nan.parquet binary.parquet)
for k in "${KEYS[@]}"; do
	curl -s -f --aws-sigv4 "aws:amz:us-east-1:s3" --user S3RVER:S3RVER \
		-H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -T "$CORPUS/$k" \
		"http://127.0.0.1:$PORT/test/$k" -o /dev/null || {
		tail -5 "$WORK/s3rver.log"; fail_all "upload of $k to s3rver failed"; }
done
node "$HERE/azure_put.mjs" "http://127.0.0.1:$AZ_PORT/$AZ_ACCOUNT" "$AZ_ACCOUNT" "$AZ_KEY" \
	test "$CORPUS" "${KEYS[@]}" || fail_all "upload to azurite failed"

pass=0
fail=0
for args in "s3 127.0.0.1:$PORT test" "azure 127.0.0.1:$AZ_PORT/$AZ_ACCOUNT $AZ_ACCOUNT $AZ_KEY test" \
	"faults 127.0.0.1:$PROXY_PORT test"; do
	if [ "${args%% *}" = faults ]; then files=("${KEYS[0]}"); else files=("${KEYS[@]}"); fi
	# shellcheck disable=SC2086
	"$ROOT/test/remote/bin/store_check" $args "$CORPUS" "${files[@]}" >"$WORK/check.log" 2>&1
	rc=$?
	cat "$WORK/check.log"
	line=$(grep -E 'passed, [0-9]+ failed' "$WORK/check.log" | tail -n 1)
	p=$(echo "$line" | sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed.*/\1/p')
	f=$(echo "$line" | sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed.*/\2/p')
	[ -z "$p" ] && { p=0; f=1; }
	[ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p))
	fail=$((fail + f))
done

# HTTPS with a private CA through nginx (test/remote/https.sh).
"$HERE/https.sh" >"$WORK/https.log" 2>&1
rc=$?
cat "$WORK/https.log"
line=$(grep -E '^https: [0-9]+ passed, [0-9]+ failed' "$WORK/https.log" | tail -n 1)
p=$(echo "$line" | sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed.*/\1/p')
f=$(echo "$line" | sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed.*/\2/p')
[ -z "$p" ] && { p=0; f=1; }
[ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
pass=$((pass + p))
fail=$((fail + f))
echo "remote: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
