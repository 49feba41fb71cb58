# shellcheck shell=bash
# Backend CPU time of queries, for benches on a shared machine: CPU time of
# the backend (user + system, from /proc) is steadier than wall time when
# other jobs run.  Sourced by the benches; needs PGHOST/PGPORT of a running
# server and psql on PATH.

# backend_cpu_ms SQL: milliseconds of backend CPU one serial run of SQL took
backend_cpu_ms() {
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

# backend_cpu_table RUNS TABLES_ARRAY QUERIES_ARRAY: a row per "name|template"
# query (template with one %s for the table), a column per table, the best
# of RUNS.  The tables alternate within each round so that load on the
# machine hits them alike.
backend_cpu_table() {
	local runs=$1
	local -n bct_tables=$2 bct_queries=$3
	local q name tmpl t ms
	printf '%-14s' query
	for t in "${bct_tables[@]}"; do printf ' %13s' "$t"; done
	echo "   (backend CPU ms, best of $runs)"
	for q in "${bct_queries[@]}"; do
		name=${q%%|*}; tmpl=${q#*|}
		local -A best=()
		for _ in $(seq "$runs"); do
			for t in "${bct_tables[@]}"; do
				# shellcheck disable=SC2059
				ms=$(backend_cpu_ms "$(printf "$tmpl" "$t")")
				if [ -z "${best[$t]:-}" ] || awk -v a="$ms" -v b="${best[$t]}" 'BEGIN{exit !(a<b)}'; then
					best[$t]=$ms
				fi
			done
		done
		printf '%-14s' "$name"
		for t in "${bct_tables[@]}"; do printf ' %13.1f' "${best[$t]}"; done
		echo
		unset best
	done
}
