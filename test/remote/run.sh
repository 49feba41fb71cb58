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
STAGE=remote
# shellcheck source=test/remote/servers.sh
. "$HERE/servers.sh"
CORPUS=${PARQUET_TESTING_DIR:-$ROOT/../shared/parquet-testing}/data

fail_all() { echo "remote: $*"; echo "remote: 0 passed, 1 failed"; exit 1; }
rs_install || fail_all "npm install of s3rver and azurite failed"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pf-remote.XXXXXX")
cleanup() {
	rs_stop
	rm -rf "$WORK"
}
trap cleanup EXIT

make -s -C "$ROOT/test" remote/bin/store_check || fail_all "build of store_check failed"

read -r PORT AZ_PORT PROXY_PORT <<<"$(rs_free_ports 3)"
rs_start_s3rver "$PORT" "$WORK/data"
rs_start_azurite "$AZ_PORT" "$WORK/azurite"
rs_start_proxy "$PROXY_PORT" "$PORT"
rs_wait_port "$PORT" || fail_all "s3rver did not start"
rs_wait_port "$PROXY_PORT" || fail_all "the fault proxy did not start"
rs_wait_port "$AZ_PORT" || fail_all "azurite did not start"

KEYS=(alltypes_plain.parquet nation.dict-malformed.parquet datapage_v2.snappy.parquet
	single_nan.parquet binary.parquet)
for k in "${KEYS[@]}"; do
	rs_s3_put "$PORT" "$k" "$CORPUS/$k" || {
		tail -5 "$WORK/data.log"; fail_all "upload of $k to s3rver failed"; }
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
