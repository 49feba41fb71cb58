#!/usr/bin/env bash
# The bench's lineitem file read from object storage against the same file
# read locally: a full scan, TPC-H Q1 and Q6, once from s3rver on 127.0.0.1
# and once with 20 ms added to every request by the fault proxy (a store
# across a network).  Prints seconds, ratios to the local file, and the
# requests and bytes the proxy forwarded per query: the best of three runs
# after a warm-up of each form (so the local file is in the page cache and
# every footer in the footer cache).
#
#   bench/remote.sh        (after bench/run.sh made the data; PG_CONFIG set)
#
# BENCH_LINEITEM names another lineitem Parquet file; BENCH_DELAY_MS the
# added latency (20); BENCH_SERIAL=1 plans without parallel workers (each
# form alike), where readahead alone hides the latency; BENCH_QUERIES the
# queries to run (scan q1 q6); BENCH_TTL=S adds a column: the delayed form
# with parquet_fdw.remote_metadata_ttl = S (no HEAD before each statement).
# "peak MB" is the backend's VmHWM after the timed run (the leader's; a
# parallel worker's is its own).
#
# BENCH_GAP=BYTES adds a row per query read through a server whose
# coalesce_gap option pins the gap (1048576: the fixed gap before the
# adaptive one), side by side with the default (adaptive) row in one run.
# BENCH_NGINX=1 adds the same file as an http:// URL served by nginx
# (a fast server: curl alone takes a third of s3rver's time), directly,
# and through its own fault proxy for the delayed column and the count.
# BENCH_TCP=1 adds forms whose store is reached directly (no proxy) and,
# for the delayed column, through test/remote/delay_proxy.mjs, which
# delays each request as the fault proxy does but passes the bytes on
# without parsing HTTP: the fault proxy's own CPU (it re-frames every
# response in JavaScript) competes with the backend on a small machine.
# These forms count requests with EXPLAIN ANALYZE.
# BENCH_NGINX=1 with BENCH_TCP=1 also adds nginx-c: the delayed column from
# a second nginx that answers each request BENCH_DELAY_MS late on a timer
# (the echo module's echo_sleep, libnginx-mod-http-echo): a delay that costs
# no CPU, so the ratio measures the latency hiding, not the rig.  (netem on
# the loopback would do the same; this kernel has no sch_netem.)  With them
# comes s3-nginx: the s3:// client (SigV4 signing, path-style requests,
# If-Match on the ETag) against those two nginx, which serve GET and HEAD
# of the bucket's path and ignore the signature: the S3 path's cost apart
# from s3rver's.
#
# "server ms" is the CPU time the servers behind the undelayed form spend
# per query (s3rver or nginx, and the fault proxy where the form has one),
# and "floor" the ratio no client could beat on this machine: the local
# query's CPU time (all of the machine's, parallel workers included) plus
# the server's, over the cores, against the local query's seconds.  On a
# small machine that serves its own store the server's CPU competes with
# the query's, so a ratio at its floor is bound by the server, not by the
# reads.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STAGE=bench-remote
# shellcheck source=../test/remote/servers.sh
. "$ROOT/test/remote/servers.sh"
# shellcheck source=../scripts/lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"

DATA=${BENCH_DATA_DIR:-/var/tmp/parquet_fdw-bench}
LINEITEM=${BENCH_LINEITEM:-$(ls "$DATA"/full-*/lineitem_snappy-v1-dict.parquet "$DATA"/*/lineitem_snappy-v1-dict.parquet 2>/dev/null | head -n 1)}
DELAY=${BENCH_DELAY_MS:-20}
[ -f "$LINEITEM" ] || { echo "bench-remote: no lineitem file (run bench/run.sh first)"; exit 1; }
rs_install || { echo "bench-remote: npm install failed"; exit 1; }
# nginx-c delays on nginx's timer: the echo module is a separate Debian package
if [ "${BENCH_NGINX:-0}" = 1 ] && [ "${BENCH_TCP:-0}" = 1 ]; then
	pf_install_deps nginx-light libnginx-mod-http-echo ||
		{ echo "bench-remote: cannot install nginx's echo module"; exit 1; }
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pf-bench-remote.XXXXXX")
chmod 755 "$WORK"
cleanup() { pg_cluster_stop; rs_stop; rm -rf "$WORK"; }
trap cleanup EXIT

rs_start_s3_behind_proxy "$WORK/s3" || { echo "bench-remote: servers did not start"; exit 1; }
PORT=$S3_PORT
rs_s3_put "$PORT" lineitem.parquet "$LINEITEM" || { echo "bench-remote: upload failed"; exit 1; }

export AWS_ENDPOINT_URL=http://127.0.0.1:$PROXY_PORT AWS_ACCESS_KEY_ID=S3RVER \
	AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
pg_cluster_start >/dev/null || exit 1
[ "${BENCH_SERIAL:-0}" = 1 ] && export PGOPTIONS='-c max_parallel_workers_per_gather=0'
COLS='l_orderkey bigint, l_partkey bigint, l_suppkey bigint,
	l_linenumber int, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
	l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
	l_linestatus text, l_shipdate date, l_commitdate date, l_receiptdate date,
	l_shipinstruct text, l_shipmode text, l_comment text'
psql -X -q -v ON_ERROR_STOP=1 <<SQL || exit 1
CREATE EXTENSION parquet_fdw;
CREATE SERVER pq FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE li_local ($COLS) SERVER pq OPTIONS (filename '$LINEITEM');
CREATE FOREIGN TABLE li_s3 ($COLS) SERVER pq OPTIONS (filename 's3://test/lineitem.parquet');
SQL
# a form: LABEL:TABLE:TABLE_BEHIND_THE_PROXY:PROXY_PORT:SERVER_PORTS, the
# last the comma-separated ports of the servers TABLE is read from
FORMS="s3:li_s3:li_s3:$PROXY_PORT:$PROXY_PORT,$S3_PORT"
DELAY_PORTS=$PROXY_PORT
if [ -n "${BENCH_GAP:-}" ]; then
	psql -X -q -v ON_ERROR_STOP=1 <<SQL || exit 1
CREATE SERVER pq_gap FOREIGN DATA WRAPPER parquet_fdw OPTIONS (coalesce_gap '$BENCH_GAP');
CREATE FOREIGN TABLE li_s3_gap ($COLS) SERVER pq_gap OPTIONS (filename 's3://test/lineitem.parquet');
SQL
	FORMS="$FORMS s3-gap:li_s3_gap:li_s3_gap:$PROXY_PORT:$PROXY_PORT,$S3_PORT"
fi
if [ "${BENCH_NGINX:-0}" = 1 ]; then
	read -r NGINX_PORT NGINX_PROXY_PORT <<<"$(rs_free_ports 2)"
	mkdir -p "$WORK/nginx/www/test"
	cp "$LINEITEM" "$WORK/nginx/www/test/lineitem.parquet"
	chmod -R a+rX "$WORK/nginx"
	rs_start_nginx "$NGINX_PORT" "$WORK/nginx"
	rs_start_proxy "$NGINX_PROXY_PORT" "$NGINX_PORT"
	rs_wait_port "$NGINX_PORT" && rs_wait_port "$NGINX_PROXY_PORT" ||
		{ echo "bench-remote: nginx did not start"; exit 1; }
	near=http://127.0.0.1:$NGINX_PORT/test/lineitem.parquet
	far=http://127.0.0.1:$NGINX_PROXY_PORT/test/lineitem.parquet
	psql -X -q -v ON_ERROR_STOP=1 <<SQL || exit 1
CREATE FOREIGN TABLE li_http ($COLS) SERVER pq OPTIONS (filename '$near');
CREATE FOREIGN TABLE li_http_far ($COLS) SERVER pq OPTIONS (filename '$far');
SQL
	FORMS="$FORMS nginx:li_http:li_http_far:$NGINX_PROXY_PORT:$NGINX_PORT"
	DELAY_PORTS="$DELAY_PORTS $NGINX_PROXY_PORT"
	if [ -n "${BENCH_GAP:-}" ]; then
		psql -X -q -v ON_ERROR_STOP=1 <<SQL || exit 1
CREATE FOREIGN TABLE li_http_gap ($COLS) SERVER pq_gap OPTIONS (filename '$near');
CREATE FOREIGN TABLE li_http_far_gap ($COLS) SERVER pq_gap OPTIONS (filename '$far');
SQL
		FORMS="$FORMS nginx-gap:li_http_gap:li_http_far_gap:$NGINX_PROXY_PORT:$NGINX_PORT"
	fi
fi

# s3_table TABLE PORT: TABLE reads s3://test/lineitem.parquet from the
# store on 127.0.0.1:PORT (path-style), through a server of its own
s3_table() {
	psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE SERVER pq_$1 FOREIGN DATA WRAPPER parquet_fdw
	OPTIONS (endpoint 'http://127.0.0.1:$2', url_style 'path');
CREATE FOREIGN TABLE $1 ($COLS) SERVER pq_$1 OPTIONS (filename 's3://test/lineitem.parquet');
SQL
}

if [ "${BENCH_TCP:-0}" = 1 ]; then
	read -r TCP_S3_PORT TCP_NGINX_PORT <<<"$(rs_free_ports 2)"
	rs_start_delay_proxy "$TCP_S3_PORT" "$S3_PORT" "$DELAY"
	rs_wait_port "$TCP_S3_PORT" || { echo "bench-remote: delay proxy did not start"; exit 1; }
	s3_table li_s3_direct "$S3_PORT" && s3_table li_s3_tcp "$TCP_S3_PORT" || exit 1
	FORMS="$FORMS s3-tcp:li_s3_direct:li_s3_tcp::$S3_PORT"
	if [ "${BENCH_NGINX:-0}" = 1 ]; then
		rs_start_delay_proxy "$TCP_NGINX_PORT" "$NGINX_PORT" "$DELAY"
		rs_wait_port "$TCP_NGINX_PORT" || { echo "bench-remote: delay proxy did not start"; exit 1; }
		psql -X -q -v ON_ERROR_STOP=1 <<SQL || exit 1
CREATE FOREIGN TABLE li_http_tcp ($COLS) SERVER pq OPTIONS (filename 'http://127.0.0.1:$TCP_NGINX_PORT/test/lineitem.parquet');
SQL
		FORMS="$FORMS nginx-tcp:li_http:li_http_tcp::$NGINX_PORT"
		read -r C_NGINX_PORT <<<"$(rs_free_ports 1)"
		mkdir -p "$WORK/nginx-c/www"
		ln -s "$WORK/nginx/www/test" "$WORK/nginx-c/www/test"
		chmod -R a+rX "$WORK/nginx-c"
		rs_start_nginx_delay "$C_NGINX_PORT" "$WORK/nginx-c" "$DELAY"
		rs_wait_port "$C_NGINX_PORT" || { echo "bench-remote: delayed nginx did not start"; exit 1; }
		psql -X -q -v ON_ERROR_STOP=1 <<SQL || exit 1
CREATE FOREIGN TABLE li_http_c ($COLS) SERVER pq OPTIONS (filename 'http://127.0.0.1:$C_NGINX_PORT/test/lineitem.parquet');
SQL
		s3_table li_s3_nginx "$NGINX_PORT" && s3_table li_s3_nginx_c "$C_NGINX_PORT" || exit 1
		FORMS="$FORMS nginx-c:li_http:li_http_c::$NGINX_PORT s3-nginx:li_s3_nginx:li_s3_nginx_c::$NGINX_PORT"
	fi
fi

declare -A SQLS
# every column of every row: the whole-row test keeps pushdown away
SQLS[scan]="SELECT count(*) FROM {t} t WHERE t IS NOT NULL"
SQLS[q1]="SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
	sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
	avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*)
	FROM {t} WHERE l_shipdate <= DATE '1998-12-01' - 90
	GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"
SQLS[q6]="SELECT sum(l_extendedprice * l_discount) FROM {t}
	WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
	AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"

proxy_count() { curl -s "http://127.0.0.1:$1/__faults"; }
TICK_MS=$(( 1000 / $(getconf CLK_TCK) ))
NCPU=$(nproc)
# CPU milliseconds the processes listening on the given ports (comma-
# separated) have used; those of the whole machine (no ports)
cpu_ms() {
	local pids p total=0
	if [ -z "${1:-}" ]; then
		awk -v t="$TICK_MS" '/^cpu /{print ($2+$3+$4+$7+$8+$9) * t}' /proc/stat
		return
	fi
	for p in ${1//,/ }; do
		pids="${pids:-} $(ss -Hltnp "sport = :$p" | grep -o 'pid=[0-9]*' | cut -d= -f2)"
	done
	for p in $(tr ' ' '\n' <<<"$pids" | sort -u); do
		[ -r "/proc/$p/stat" ] &&
			total=$(( total + $(awk '{print $14 + $15}' "/proc/$p/stat") * TICK_MS ))
	done
	echo "$total"
}
# cpu_per_query QUERY TABLE PORTS: the CPU milliseconds per run of three in
# one warm session, of the servers on PORTS (none: of the machine)
cpu_per_query() {
	local sql=${SQLS[$1]//\{t\}/$2} c0 c1
	psql -X -qAt -c "$sql" >/dev/null
	c0=$(cpu_ms "${3:-}")
	psql -X -qAt -c "$sql" -c "$sql" -c "$sql" >/dev/null
	c1=$(cpu_ms "${3:-}")
	echo $(( (c1 - c0) / 3 ))
}
set_delay() {
	for p in $DELAY_PORTS; do curl -s -X POST "http://127.0.0.1:$p/__faults?delay=$1" -o /dev/null; done
}
# run QUERY TABLE [SETTINGS]: the best seconds of three runs in one session
# (SETTINGS first) after a warm-up run there (footer cache, connections),
# and the backend's peak resident memory in MB (VmHWM), on one line
run() {
	local sql=${SQLS[$1]//\{t\}/$2} out
	psql -X -qAt -v ON_ERROR_STOP=1 -c "$sql" >/dev/null || return 1
	out=$(psql -X -qAt -v ON_ERROR_STOP=1 <<SQL
${3:-}
$sql \\g /dev/null
SELECT clock_timestamp() AS t0 \\gset
$sql \\g $WORK/out.txt
SELECT 's', round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)::numeric, 3);
SELECT clock_timestamp() AS t0 \\gset
$sql \\g /dev/null
SELECT 's', round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)::numeric, 3);
SELECT clock_timestamp() AS t0 \\gset
$sql \\g /dev/null
SELECT 's', round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)::numeric, 3);
SELECT 'm', (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'),
						  'VmHWM:\\s*(\\d+)'))[1]::bigint / 1024;
SQL
) || return 1
	echo "$(sed -n 's/^s|//p' <<<"$out" | sort -n | head -n 1) $(sed -n 's/^m|//p' <<<"$out")"
}

TTL_HEAD=""
[ -n "${BENCH_TTL:-}" ] && TTL_HEAD=$(printf ' | %9s | %6s' "ttl ${BENCH_TTL}s" ratio)
printf '%-5s | %-10s | %9s | %9s | %6s | %9s | %6s%s | %9s | %12s | %9s | %5s | %s\n' query form "local s" "remote s" ratio \
	"+${DELAY}ms" ratio "$TTL_HEAD" requests "bytes" "server ms" floor "peak MB local/remote/+${DELAY}ms"
for qid in ${BENCH_QUERIES:-scan q1 q6}; do
	set_delay 0
	read -r tl ml <<<"$(run "$qid" li_local)" || exit 1
	md5l=$(md5sum <"$WORK/out.txt")
	local_cpu=$(cpu_per_query "$qid" li_local)
	for form in $FORMS; do
		IFS=: read -r label near far port servers <<<"$form"
		set_delay 0
		read -r tr mr <<<"$(run "$qid" "$near")" || exit 1
		md5r=$(md5sum <"$WORK/out.txt")
		# requests and bytes of one cold-connection run (a new session,
		# footer from the store) of the undelayed form: the proxy's count
		# behind it, then EXPLAIN's (with workers: the leader's share) as the
		# direct nginx form has no proxy; the gap adapts to what it measures
		if [ -n "$port" ]; then
			before=$(proxy_count "$port")
			psql -X -qAt -c "${SQLS[$qid]//\{t\}/$far}" >/dev/null
			reqs=$(( $(proxy_count "$port") - before ))
		fi
		read -r ereqs bytes <<<"$(psql -X -qAt -c "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) ${SQLS[$qid]//\{t\}/$near}" |
			sed -nE 's/.*Requests: ([0-9]+)  Bytes Fetched: ([0-9]+).*/\1 \2/p' | head -1)"
		[ "$near" != "$far" ] || [ -z "$port" ] && reqs=$ereqs
		# ss (iproute2) finds the servers' processes by their ports
		server_cpu=n/a floor=n/a
		if command -v ss >/dev/null; then
			server_cpu=$(cpu_per_query "$qid" "$near" "$servers")
			floor=$(printf '%.2f' "$(echo "($local_cpu + $server_cpu) / $NCPU / ($tl * 1000)" | bc -l)")
		fi
		set_delay "$DELAY"
		read -r td md <<<"$(run "$qid" "$far")" || exit 1
		ttl_cols=""
		if [ -n "${BENCH_TTL:-}" ]; then
			read -r tt mt <<<"$(run "$qid" "$far" "SET parquet_fdw.remote_metadata_ttl = ${BENCH_TTL};")" || exit 1
			ttl_cols=$(printf ' | %9s | %6.2f' "$tt" "$(echo "$tt / $tl" | bc -l)")
		fi
		set_delay 0
		[ "$md5l" = "$md5r" ] || echo "bench-remote: $qid: $label result differs from the local file's" >&2
		printf '%-5s | %-10s | %9s | %9s | %6.2f | %9s | %6.2f%s | %9s | %12s | %9s | %5s | %s\n' "$qid" "$label" "$tl" "$tr" \
			"$(echo "$tr / $tl" | bc -l)" "$td" "$(echo "$td / $tl" | bc -l)" "$ttl_cols" "$reqs" "${bytes:-n/a}" \
			"$server_cpu" "$floor" "$ml/$mr/$md"
	done
done
