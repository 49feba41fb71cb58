#!/usr/bin/env bash
# Listing a hive tree in object storage: one day's rows out of years of
# daily folders (year=/month=/day=, 2 small files a day) in s3rver, read
# through the fault proxy with BENCH_DELAY_MS (20) added to every request.
# Side by side in one run, the same rows both ways:
#   walk  filename 's3://test/t', the quals prune year=/month=/day=
#         prefixes before anything below them is listed (delimiter
#         listings, one a level);
#   flat  filename 's3://test/t/**/*.parquet': one flat listing of every
#         key, the folders judged afterwards (how every pattern was
#         listed before the walk).
# Each query runs in a new session (the listing cache lives for one
# statement anyway); prints listing requests, all requests and the best
# of BENCH_RUNS (3) times.
#
#   bench/hive_listing.sh      (PG_CONFIG set, after make install)
#
# BENCH_YEARS (3) years of days.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STAGE=bench-hive
# shellcheck source=../test/remote/servers.sh
. "$ROOT/test/remote/servers.sh"
# shellcheck source=../scripts/lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"

YEARS=${BENCH_YEARS:-3}
DELAY=${BENCH_DELAY_MS:-20}
RUNS=${BENCH_RUNS:-3}
FILE=${PARQUET_TESTING_DIR:-$ROOT/../shared/parquet-testing}/data/alltypes_plain.parquet
[ -f "$FILE" ] || { echo "bench-hive: $FILE not found (set PARQUET_TESTING_DIR)"; exit 1; }
rs_install || { echo "bench-hive: npm install failed"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pf-bench-hive.XXXXXX")
chmod 755 "$WORK"
cleanup() { pg_cluster_stop; rs_stop; rm -rf "$WORK"; }
trap cleanup EXIT

rs_start_s3_behind_proxy "$WORK/s3" || { echo "bench-hive: servers did not start"; exit 1; }
PORT=$S3_PORT

# The keys: every day of YEARS years from 2021, 2 files each.  s3rver 3.7
# misses a common prefix holding only folders (S3 does not): the year=
# and month= folders get a hidden _keep object.
: >"$WORK/empty"
{
	for y in $(seq 2021 $((2020 + YEARS))); do
		echo "t/year=$y/_keep $WORK/empty"
		for m in $(seq 1 12); do
			echo "t/year=$y/month=$m/_keep $WORK/empty"
			days=$(date -d "$y-$m-01 +1 month -1 day" +%d)
			for d in $(seq 1 "$days"); do
				echo "t/year=$y/month=$m/day=$d/part-0.parquet $FILE"
				echo "t/year=$y/month=$m/day=$d/part-1.parquet $FILE"
			done
		done
	done
} >"$WORK/keys"
export PORT
export -f rs_s3_put
xargs -P 4 -L 1 bash -c 'rs_s3_put "$PORT" "$0" "$1" || echo "upload of $0 failed"' <"$WORK/keys" |
	grep . && { echo "bench-hive: uploads failed"; exit 1; }
NKEYS=$(wc -l <"$WORK/keys")

export AWS_ENDPOINT_URL=http://127.0.0.1:$PROXY_PORT AWS_ACCESS_KEY_ID=S3RVER \
	AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
pg_cluster_start >/dev/null || exit 1
psql -X -q -v ON_ERROR_STOP=1 <<SQL || exit 1
CREATE EXTENSION parquet_fdw;
CREATE SERVER pq FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE walk (id int, string_col text, year int, month int, day int)
	SERVER pq OPTIONS (filename 's3://test/t', format 'parquet');
CREATE FOREIGN TABLE flat (id int, string_col text, year int, month int, day int)
	SERVER pq OPTIONS (filename 's3://test/t/**/*.parquet', format 'parquet');
SQL
curl -s -X POST "http://127.0.0.1:$PROXY_PORT/__faults?delay=$DELAY" -o /dev/null

WHERE="WHERE year = $((2020 + YEARS)) AND month = 6 AND day = 15"
echo "bench-hive: $NKEYS keys, one day's rows ($WHERE), ${DELAY} ms added per request, best of $RUNS"
printf '%-6s %8s %9s %9s %10s\n' form rows listings requests seconds
for form in flat walk; do
	best=
	for _ in $(seq 1 "$RUNS"); do
		l0=$(curl -s "http://127.0.0.1:$PROXY_PORT/__faults?lists")
		r0=$(curl -s "http://127.0.0.1:$PROXY_PORT/__faults")
		t0=$(date +%s.%N)
		rows=$(psql -X -qAt -c "SELECT count(*) FROM $form $WHERE") || exit 1
		t1=$(date +%s.%N)
		l1=$(curl -s "http://127.0.0.1:$PROXY_PORT/__faults?lists")
		r1=$(curl -s "http://127.0.0.1:$PROXY_PORT/__faults")
		s=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; then best=$s; fi
	done
	printf '%-6s %8s %9s %9s %10.3f\n' "$form" "$rows" $((l1 - l0)) $((r1 - r0)) "$best"
done
