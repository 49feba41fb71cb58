#!/usr/bin/env bash
# Late materialization: best of BENCH_RUNS (default 5) backend CPU times of
# SELECT * queries over the heap table and parquet_fdw, with a needle, a
# selective, a non-selective filter, two conjuncts, a filter the scan
# cannot evaluate (a subplan) and none.  Needs a running server
# (PGHOST/PGPORT) where bench/latemat.sql ran and lm_pq is a foreign table
# over its file; extra tables to compare (e.g. one over a server whose
# handler is an older build of the library) go in BENCH_TABLES.  The forms
# alternate within each round so that load on the machine hits them alike.
set -euo pipefail
RUNS=${BENCH_RUNS:-5}
read -r -a tables <<<"${BENCH_TABLES:-lm_heap lm_pq}"
queries=(
	"needle|SELECT * FROM %s WHERE s18 = 'hash12345' ORDER BY event_time LIMIT 10"
	"selective|SELECT * FROM %s WHERE url LIKE '%%google%%' ORDER BY event_time LIMIT 10"
	"selective-int|SELECT * FROM %s WHERE i2 < 1000 ORDER BY event_time LIMIT 10"
	"non-selective|SELECT * FROM %s WHERE i3 <> 5 ORDER BY event_time LIMIT 10"
	"two-conjuncts|SELECT * FROM %s WHERE i3 = 4 AND url LIKE '%%google%%' ORDER BY event_time LIMIT 10"
	"subplan|SELECT * FROM %s WHERE i1 NOT IN (SELECT generate_series(1, 990)) ORDER BY event_time LIMIT 10"
	"no-filter|SELECT * FROM %s ORDER BY event_time LIMIT 10"
)
# CPU time of the backend (user + system) running the query, serially:
# steadier than wall time on a shared machine.
timed() {
	local tick
	tick=$(getconf CLK_TCK)
	{
		echo 'SET max_parallel_workers_per_gather = 0;'
		echo 'SELECT pg_backend_pid() AS pid \gset'
		echo '\setenv PFPID :pid'
		echo "\\! awk '{print \$14 + \$15}' /proc/\$PFPID/stat"
		echo '\o /dev/null'
		echo "$1;"
		echo '\o'
		echo "\\! awk '{print \$14 + \$15}' /proc/\$PFPID/stat"
	} | psql -X -q -At | awk -v tick="$tick" 'NR == 1 {a = $1} NR == 2 {print ($1 - a) * 1000 / tick}'
}
printf '%-14s' query
for t in "${tables[@]}"; do printf ' %13s' "$t"; done
echo "   (backend CPU ms, best of $RUNS)"
for q in "${queries[@]}"; do
	name=${q%%|*}; tmpl=${q#*|}
	declare -A best=()
	for _ in $(seq "$RUNS"); do
		for t in "${tables[@]}"; do
			# shellcheck disable=SC2059
			ms=$(timed "$(printf "$tmpl" "$t")")
			if [ -z "${best[$t]:-}" ] || awk -v a="$ms" -v b="${best[$t]}" 'BEGIN{exit !(a<b)}'; then
				best[$t]=$ms
			fi
		done
	done
	printf '%-14s' "$name"
	for t in "${tables[@]}"; do printf ' %13.1f' "${best[$t]}"; done
	echo
	unset best
done
