#!/usr/bin/env bash
# Parallel scan and footer cache benchmark (issue #4), one command:
#
#   bench/parallel.sh
#
# 1. builds and installs the extension unless BENCH_SKIP_BUILD=1;
# 2. writes, once, a BENCH_ROWS-row (default 10M) t10m-like Parquet file
#    with DuckDB (bench/parallel_gen.mjs) and BENCH_FILES (default 10000)
#    copies of examples/sample.parquet, in $BENCH_DATA_DIR (default
#    /var/tmp/parquet_fdw-bench);
# 3. starts a throwaway cluster and checks count(*), sum(a), sum(b) through
#    parquet_fdw, serial and with two workers, against DuckDB's;
# 4. times SELECT sum(a), sum(b), sum(d) with 0 and 2 workers (aggregate
#    pushdown off: this measures the scan), BENCH_RUNS (5) runs each,
#    interleaved, and prints the best of each and their ratio;
# 5. times the planning of a table over the many small files with the
#    footer cache off and on (parquet_fdw.footer_cache_size 0 and 1GB): the
#    first planning of a session reads the footers, the next ones are warm;
# 6. partitions: BENCH_FILES hive folders k=1..N, each holding a hard link
#    to one BENCH_PART_ROWS-row (default 100000) DuckDB file; times (plan +
#    run, psql's \timing) a query whose qual on k keeps one folder against
#    the same query on that one file, interleaved, best of BENCH_RUNS;
# 7. sorted: ORDER BY a LIMIT 10 and a full ORDER BY a (as a sum over a
#    window, so no rows travel) on the big file with and without the table
#    option sorted 'a' (DuckDB wrote it ordered by a).
# The cluster is always stopped.  Numbers on a loaded machine are noisy:
# compare the ratios of one run.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../scripts/lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"

ROWS=${BENCH_ROWS:-10000000}
FILES=${BENCH_FILES:-10000}
RUNS=${BENCH_RUNS:-5}
DATA=${BENCH_DATA_DIR:-/var/tmp/parquet_fdw-bench}
export BENCH_NODE_MODULES=${BENCH_NODE_MODULES:-$HOME/.cache/parquet_fdw}

trap pg_cluster_stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
	make -C "$ROOT" -j"$(nproc)" >/dev/null
	pf_sudo make -C "$ROOT" install >/dev/null
fi

mkdir -p "$DATA"
big="$DATA/parallel-$ROWS.parquet"
if [ ! -s "$big" ] || [ ! -s "$big.json" ]; then
	echo "bench: writing $big with DuckDB"
	node "$ROOT/bench/parallel_gen.mjs" "$big.tmp" "$ROWS" >"$big.json.tmp"
	mv "$big.tmp" "$big"
	mv "$big.json.tmp" "$big.json"
fi
many="$DATA/many-$FILES"
if [ "$(find "$many" -name '*.parquet' 2>/dev/null | wc -l)" != "$FILES" ]; then
	echo "bench: copying examples/sample.parquet $FILES times into $many"
	rm -rf "$many"
	mkdir -p "$many"
	for i in $(seq 1 "$FILES"); do
		cp "$ROOT/examples/sample.parquet" "$many/f$i.parquet"
	done
fi
PART_ROWS=${BENCH_PART_ROWS:-100000}
part="$DATA/part-$PART_ROWS.parquet"
if [ ! -s "$part" ]; then
	echo "bench: writing $part with DuckDB"
	node "$ROOT/bench/parallel_gen.mjs" "$part.tmp" "$PART_ROWS" >/dev/null
	mv "$part.tmp" "$part"
fi
hive="$DATA/hive-$FILES-$PART_ROWS"
if [ "$(find "$hive" -name '*.parquet' 2>/dev/null | wc -l)" != "$FILES" ]; then
	echo "bench: linking $part into $FILES partition folders of $hive"
	rm -rf "$hive"
	mkdir -p "$hive"
	for i in $(seq 1 "$FILES"); do
		mkdir "$hive/k=$i"
		ln "$part" "$hive/k=$i/data.parquet" 2>/dev/null ||
			cp "$part" "$hive/k=$i/data.parquet"
	done
fi
chmod -R a+rX "$DATA"

pg_cluster_start >/dev/null
pg_psql -q <<SQL
CREATE EXTENSION parquet_fdw;
CREATE SERVER bench_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE big (a bigint, b int, d float8)
  SERVER bench_srv OPTIONS (filename '$big');
CREATE FOREIGN TABLE many (id bigint, name text)
  SERVER bench_srv OPTIONS (filename '$many');
CREATE FOREIGN TABLE big_sorted (a bigint, b int, d float8)
  SERVER bench_srv OPTIONS (filename '$big', sorted 'a');
CREATE FOREIGN TABLE hive (a bigint, b int, d float8, k int)
  SERVER bench_srv OPTIONS (filename '$hive');
CREATE FOREIGN TABLE hive_one (a bigint, b int, d float8)
  SERVER bench_srv OPTIONS (filename '$hive/k=$((FILES / 2))/data.parquet');
SQL

# ---- correctness: the same integers as DuckDB, serial and parallel
want=$(node -e "const j = require('$big.json'); console.log([j.count, j.sumA, j.sumB].join('|'))")
for w in 0 2; do
	got=$(pg_psql -qAt -c "SET parquet_fdw.enable_aggregate_pushdown = off" \
		-c "SET max_parallel_workers_per_gather = $w" \
		-c "SELECT count(*), sum(a), sum(b) FROM big")
	if [ "$got" != "$want" ]; then
		echo "bench: $w workers: got $got, DuckDB says $want" >&2
		exit 1
	fi
done
echo "results equal DuckDB's ($want), serial and with 2 workers"

# ---- scan: 0 vs 2 workers
query="SELECT sum(a), sum(b), sum(d) FROM big"
best0=; best2=
for _ in $(seq 1 "$RUNS"); do
	for w in 0 2; do
		t=$(pg_psql -qAt -c "SET parquet_fdw.enable_aggregate_pushdown = off" \
			-c "SET max_parallel_workers_per_gather = $w" -c '\timing on' \
			-c "$query" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
		if [ "$w" = 0 ]; then
			best0=$(echo "$t ${best0:-$t}" | awk '{print ($1 < $2 ? $1 : $2)}')
		else
			best2=$(echo "$t ${best2:-$t}" | awk '{print ($1 < $2 ? $1 : $2)}')
		fi
	done
done
echo "scan of $ROWS rows, $query (best of $RUNS):"
echo "  0 workers: $best0 ms; 2 workers: $best2 ms; speed-up $(echo "$best0 $best2" | awk '{printf "%.2f", $1 / $2}')x"

# ---- planning over many small files
plan_times() {
	{
		echo "SET parquet_fdw.footer_cache_size = '$1';"
		echo "SET parquet_fdw.enable_aggregate_pushdown = off;"
		for _ in $(seq 1 "$RUNS"); do
			echo "EXPLAIN (SUMMARY ON, COSTS OFF) SELECT sum(id) FROM many;"
		done
	} | pg_psql -qAt | sed -n 's/^Planning Time: \([0-9.]*\) ms/\1/p' |
		awk 'NR == 1 { first = $1 } NR > 1 && (best == "" || $1 < best) { best = $1 }
			END { printf "first %s ms, best of the next %s ms", first, best }'
}
echo "planning SELECT sum(id) over $FILES files:"
echo "  footer cache off: $(plan_times 0)"
echo "  footer cache on:  $(plan_times 1GB)"

# ---- partitions: one folder of many kept by a qual vs that file alone
key=$((FILES / 2))
q_hive="SELECT count(*), sum(b), sum(d) FROM hive WHERE k = $key"
q_one="SELECT count(*), sum(b), sum(d) FROM hive_one"
a=$(pg_psql -qAt -c "$q_hive")
b=$(pg_psql -qAt -c "$q_one")
if [ "$a" != "$b" ]; then
	echo "bench: partition query gave $a, the single file $b" >&2
	exit 1
fi
# one session each, warmed by a first run (the footer and listing caches
# are per backend, as in any long-lived connection)
best_of() {
	{
		echo '\timing on'
		for _ in $(seq 0 "$RUNS"); do echo "$1;"; done
	} | pg_psql -qAt | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' |
		awk 'NR > 1 && (best == "" || $1 < best) { best = $1 } END { print best }'
}
bh=; bo=
for _ in 1 2 3; do
	t=$(best_of "$q_hive"); bh=$(echo "$t ${bh:-$t}" | awk '{print ($1 < $2 ? $1 : $2)}')
	t=$(best_of "$q_one"); bo=$(echo "$t ${bo:-$t}" | awk '{print ($1 < $2 ? $1 : $2)}')
done
echo "partitions: $q_hive over $FILES folders of $PART_ROWS-row files (plan + run, best):"
echo "  $FILES folders: $bh ms; the one file: $bo ms; ratio $(echo "$bh $bo" | awk '{printf "%.2f", $1 / $2}')x"

# ---- the sorted option: a Sort avoided
q_top="SELECT a FROM %s ORDER BY a LIMIT 10"
q_all="SELECT sum(x) FROM (SELECT a - lag(a) OVER (ORDER BY a) AS x FROM %s) s"
for q in "$q_top" "$q_all"; do
	# shellcheck disable=SC2059
	a=$(pg_psql -qAt -c "SET parquet_fdw.enable_aggregate_pushdown = off" -c "$(printf "$q" big)")
	# shellcheck disable=SC2059
	b=$(pg_psql -qAt -c "SET parquet_fdw.enable_aggregate_pushdown = off" -c "$(printf "$q" big_sorted)")
	if [ "$a" != "$b" ]; then
		echo "bench: sorted: $(printf "$q" big) gave $a, with sorted 'a' $b" >&2
		exit 1
	fi
	best_s=; best_u=
	for _ in $(seq 1 "$RUNS"); do
		for tbl in big big_sorted; do
			# shellcheck disable=SC2059
			t=$(pg_psql -qAt -c "SET parquet_fdw.enable_aggregate_pushdown = off" \
				-c "SET max_parallel_workers_per_gather = 0" -c '\timing on' \
				-c "$(printf "$q" $tbl)" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
			if [ $tbl = big ]; then
				best_u=$(echo "$t ${best_u:-$t}" | awk '{print ($1 < $2 ? $1 : $2)}')
			else
				best_s=$(echo "$t ${best_s:-$t}" | awk '{print ($1 < $2 ? $1 : $2)}')
			fi
		done
	done
	# shellcheck disable=SC2059
	echo "sorted: $(printf "$q" t) (best of $RUNS, serial):"
	echo "  without the option (Sort): $best_u ms; sorted 'a' (no Sort): $best_s ms; ratio $(echo "$best_s $best_u" | awk '{printf "%.3f", $1 / $2}')"
done
