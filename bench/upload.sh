#!/usr/bin/env bash
# COPY TO an object store against COPY TO a local file, side by side in
# one run: the same table (BENCH_UPLOAD_ROWS rows, default 2,000,000:
# int8, two md5 texts, float8, timestamptz) written as Parquet to a file
# of the server, to s3rver on 127.0.0.1 (multipart, 8 MiB parts), and to
# s3rver behind the fault proxy with BENCH_DELAY_MS (default 20) added to
# every request.  Best of 3 each; prints seconds, the object's size and
# the ratios to the local file.
#
#   bench/upload.sh        (after make install with PG_CONFIG set)
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STAGE=bench-upload
# shellcheck source=../test/remote/servers.sh
. "$ROOT/test/remote/servers.sh"
# shellcheck source=../scripts/lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"

ROWS=${BENCH_UPLOAD_ROWS:-2000000}
DELAY=${BENCH_DELAY_MS:-20}
rs_install || { echo "$STAGE: npm install failed"; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pf-bench-upload.XXXXXX")
chmod 777 "$WORK"
cleanup() { pg_cluster_stop; rs_stop; rm -rf "$WORK"; }
trap cleanup EXIT

rs_start_s3_behind_proxy "$WORK/s3" || { echo "$STAGE: servers did not start"; exit 1; }
PORT=$S3_PORT
curl -s -X POST "http://127.0.0.1:$PROXY_PORT/__faults?delay=$DELAY" -o /dev/null
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
unset AWS_ENDPOINT_URL AWS_PROFILE AWS_SESSION_TOKEN
pg_cluster_start >"$WORK/cluster.log" 2>&1 || { cat "$WORK/cluster.log"; exit 1; }

psql -X -qAt -v ON_ERROR_STOP=1 >/dev/null <<SQL || { echo "$STAGE: setup failed"; exit 1; }
CREATE EXTENSION parquet_fdw;
CREATE SERVER direct FOREIGN DATA WRAPPER parquet_fdw
	OPTIONS (endpoint 'http://127.0.0.1:$PORT');
CREATE SERVER far FOREIGN DATA WRAPPER parquet_fdw
	OPTIONS (endpoint 'http://127.0.0.1:$PROXY_PORT');
CREATE TABLE t AS
SELECT g::int8 AS id, md5(g::text) AS a, md5((g * 7)::text) AS b,
       g / 7.0::float8 AS f, timestamptz '2020-01-01' + g * interval '1 s' AS ts
  FROM generate_series(1, $ROWS) g;
VACUUM ANALYZE t;
SQL

# best TARGET OPTIONS: the best of 3 COPY times in seconds
best() {
	local b=""
	for _ in 1 2 3; do
		local ms
		ms=$(psql -X -qAt -v ON_ERROR_STOP=1 -c "LOAD 'parquet_fdw'" -c '\timing on' \
			-c "COPY t TO '$1' (FORMAT parquet$2)" 2>&1 | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p')
		[ -z "$ms" ] && { echo "$STAGE: COPY TO $1 failed" >&2; echo 0; return; }
		if [ -z "$b" ] || awk "BEGIN{exit !($ms < $b)}"; then b=$ms; fi
	done
	awk "BEGIN{printf \"%.3f\", $b / 1000}"
}
local_s=$(best "$WORK/t.parquet" "")
direct_s=$(best "s3://test/t.parquet" ", server 'direct'")
far_s=$(best "s3://test/t.parquet" ", server 'far'")
size=$(stat -c %s "$WORK/t.parquet" 2>/dev/null || echo 0)
echo "rows $ROWS, file $size bytes ($(awk "BEGIN{printf \"%d\", $size / 8388608 + 1}") parts of 8 MiB); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %8s %8s\n' target seconds ratio
printf '%-28s %8s %8s\n' "local file" "$local_s" 1.00
printf '%-28s %8s %8s\n' "s3rver" "$direct_s" "$(awk "BEGIN{printf \"%.2f\", $direct_s / $local_s}")"
printf '%-28s %8s %8s\n' "s3rver + ${DELAY} ms/request" "$far_s" "$(awk "BEGIN{printf \"%.2f\", $far_s / $local_s}")"
