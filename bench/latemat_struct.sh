#!/usr/bin/env bash
# Struct columns read as jsonb: best of BENCH_RUNS (default 5) backend CPU
# times of SELECT * ... ORDER BY id LIMIT 3 (every row's struct built, the
# sort keeps three) and of the same without the struct column, over the
# foreign tables named in BENCH_TABLES (id bigint, name text, loc jsonb;
# loc a STRUCT of two doubles, a string, an int64, a timestamp and a
# boolean, NULL every 11th row).  Needs PGHOST/PGPORT of a running server.
set -euo pipefail
RUNS=${BENCH_RUNS:-5}
read -r -a tables <<<"${BENCH_TABLES:?foreign tables to compare}"
queries=(
	"select-star|SELECT * FROM %s ORDER BY id LIMIT 3"
	"no-struct|SELECT id, name FROM %s ORDER BY id LIMIT 3"
	"struct-field|SELECT max(loc->>'city') FROM %s"
)
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
