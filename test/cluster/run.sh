#!/usr/bin/env bash
# The scale-out stage (scripts/test.sh "cluster"): a coordinator and three
# nodes (scripts/cluster.sh), hive-partitioned Parquet files split across
# the nodes by year, a distributed table made by parquet_fdw_distribute.
# Checks, each one line "ok|FAIL name":
#   - results of scans, filters, parameters, GROUP BY aggregates, ORDER BY
#     LIMIT and a join with a local table equal the same query over one
#     server's parquet_fdw table and over a heap table built from the same
#     generator (outputs sorted unless the query orders them);
#   - the coordinator's EXPLAIN: Async Foreign Scan, partitionwise
#     aggregates pushed to the nodes, pruning of nodes by the key, row
#     estimates read back with use_remote_estimate;
#   - each node's own plans for what postgres_fdw sent (auto_explain in the
#     node logs): parquet_fdw's aggregate pushdown and row-group pruning;
#   - a node that is down: the error names its server.
# Last line: "cluster: N passed, N failed". Needs PG_CONFIG's server with
# parquet_fdw installed and postgres_fdw (PostgreSQL's contrib), and a C
# compiler for bench/bin/csv2parquet (this project's Parquet writer).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../scripts/lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"

if [ "${1:-}" != --inside ]; then
	make -C "$ROOT/bench" csv2parquet >/dev/null 2>&1 ||
		{ echo "cluster: building bench/bin/csv2parquet failed"; echo "cluster: 0 passed, 1 failed"; exit 1; }
	PF_CLUSTER_AUTO_EXPLAIN=1 "$ROOT/scripts/cluster.sh" run 3 "$0" --inside
	exit $?
fi

PASS=0
FAIL=0
ok() { echo "ok $1"; PASS=$((PASS + 1)); }
bad() { echo "FAIL $1"; shift; [ $# -gt 0 ] && printf '%s\n' "$@" | head -n 30 | sed 's/^/    /'; FAIL=$((FAIL + 1)); }
finish() { echo "cluster: $PASS passed, $FAIL failed"; [ $FAIL -eq 0 ]; exit $?; }

q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# ---- data: 3 years x 2 regions, 1000 rows per file, row groups of 250;
# the key is also a field of the files (as Spark and DuckDB can write it)
DATA=$PF_CLUSTER_DIR/data
mkdir -p "$DATA"
GEN="SELECT g AS id, 2022 + (g - 1) / 2000 AS year,
            CASE WHEN (g - 1) / 1000 % 2 = 0 THEN 'eu' ELSE 'us' END AS region,
            (g * 7919) % 97 AS qty,
            (((g * 104729) % 100000) / 100.0)::numeric(12,2) AS price,
            date '2022-01-01' + (g % 700) AS day,
            CASE WHEN g % 13 = 0 THEN NULL ELSE 'n' || (g % 17) END AS note
       FROM generate_series(1, 6000) g"
for y in 2022 2023 2024; do
	for r in eu us; do
		d=$DATA/sales/year=$y/region=$r
		mkdir -p "$d"
		q -c "COPY (SELECT id, year, region, qty, price, day, note FROM ($GEN) s
		            WHERE year = $y AND region = '$r' ORDER BY id) TO STDOUT (FORMAT csv, HEADER)" >"$d/part.csv" &&
			"$ROOT/bench/bin/csv2parquet" --row-group 250 i64,i64,str,i32,dec12.2,date,str \
				"$d/part.csv" "$d/part.parquet" >/dev/null 2>"$DATA/csv2parquet.log" && rm -f "$d/part.csv" ||
			{ bad "generate $y/$r" "$(cat "$DATA/csv2parquet.log")"; finish; }
	done
done
chmod -R a+rX "$DATA"

# ---- the distributed table, the one-server table and the heap reference
out=$(q -c "SELECT * FROM parquet_fdw_distribute('sales',
              'id bigint, year bigint, region text, qty int, price numeric(12,2), day date, note text',
              'year', ARRAY['node1', 'node2', 'node3'],
              ARRAY['$DATA/sales/year=2022', '$DATA/sales/year=2023', '$DATA/sales/year=2024'])" 2>&1)
if [ "$out" = "node1|sales_node1|'2022'
node2|sales_node2|'2023'
node3|sales_node3|'2024'" ]; then ok "parquet_fdw_distribute makes 3 partitions"
else bad "parquet_fdw_distribute makes 3 partitions" "$out"; finish; fi

# columns inferred from the files (the first node), here over the corpus'
# hive folders whose key is only in the folder names
SALES_V=$ROOT/test/data/pruning/partitions/sales
out=$(q -c "SELECT node, key_values FROM parquet_fdw_distribute('sales_v', NULL, 'year',
              ARRAY['node1', 'node2', 'node3'],
              ARRAY['$SALES_V/year=2022', '$SALES_V/year=2023', '$SALES_V/year=2024'])" \
	-c "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)
	      FROM pg_attribute WHERE attrelid = 'sales_v'::regclass AND attnum > 0" 2>&1)
if [ "$out" = "node1|'2022'
node2|'2023'
node3|'2024'
id bigint, amount bigint, year bigint, region text" ]; then ok "parquet_fdw_distribute infers columns"
else bad "parquet_fdw_distribute infers columns" "$out"; fi

# without a key: the node tables inherit from a plain table
out=$(q -c "SELECT node, key_values IS NULL FROM parquet_fdw_distribute('sales_i',
              'id bigint, year bigint, region text, qty int', NULL, ARRAY['node1', 'node3'],
              ARRAY['$DATA/sales/year=2022', '$DATA/sales/year=2024'])" \
	-c "SELECT count(*), sum(qty), min(year), max(year) FROM sales_i" \
	-c "SELECT count(*), sum(qty), min(year), max(year) FROM ($GEN) g WHERE year <> 2023" 2>&1)
if [ "$(echo "$out" | sed -n 3p)" = "$(echo "$out" | sed -n 4p)" ] && echo "$out" | head -n 2 | grep -qx "node1|t"
then ok "parquet_fdw_distribute without a key (inheritance)"
else bad "parquet_fdw_distribute without a key (inheritance)" "$out"; fi
# mistakes are named
out=$(q -c "SELECT * FROM parquet_fdw_distribute('x', 'a int', 'a', ARRAY['node1', 'node2'], ARRAY['/a'])" 2>&1)
if echo "$out" | grep -q "2 nodes but 1 file lists"; then ok "distribute: lengths differ"
else bad "distribute: lengths differ" "$out"; fi
out=$(q -c "CREATE SERVER not_pg FOREIGN DATA WRAPPER parquet_fdw" \
	-c "SELECT * FROM parquet_fdw_distribute('x', 'a int', 'a', ARRAY['not_pg'], ARRAY['/a'])" 2>&1)
if echo "$out" | grep -q '"not_pg" is not a postgres_fdw server'; then ok "distribute: not a postgres_fdw server"
else bad "distribute: not a postgres_fdw server" "$out"; fi
out=$(q -c "CREATE TABLE canary (a int)" \
	-c "INSERT INTO parquet_fdw_node_tables (table_name, filename, column_names, column_types)
	      VALUES ('bad', '/a', ARRAY['a'], ARRAY['int) SERVER parquet_srv; DROP TABLE canary; --'])" 2>&1)
if echo "$out" | grep -q 'ERROR' && q -c "SELECT count(*) FROM canary" >/dev/null 2>&1 &&
	[ "$(q -c "SELECT count(*) FROM pg_class WHERE relname = 'bad'")" = 0 ]; then
	ok "node view: a type name is checked, not run"
else bad "node view: a type name is checked, not run" "$out"; fi

q -c "CREATE SERVER IF NOT EXISTS parquet_srv FOREIGN DATA WRAPPER parquet_fdw" \
	-c "CREATE FOREIGN TABLE sales_one (id bigint, year bigint, region text, qty int,
	      price numeric(12,2), day date, note text) SERVER parquet_srv OPTIONS (filename '$DATA/sales')" \
	-c "CREATE TABLE sales_ref AS $GEN" \
	-c "CREATE FOREIGN TABLE sales_v_one (id bigint, amount bigint, year bigint, region text)
	      SERVER parquet_srv OPTIONS (filename '$SALES_V')" \
	-c "CREATE TABLE sales_v_ref AS SELECT * FROM sales_v_one" \
	-c "CREATE TABLE regions (region text PRIMARY KEY, name text)" \
	-c "INSERT INTO regions VALUES ('eu', 'Europe'), ('us', 'United States')" \
	-c "ANALYZE sales_ref, sales_v_ref, regions" || { bad "reference tables"; finish; }

# same NAME SETUP QUERY: QUERY with {T} over the distributed table, the
# one-server table and the heap reference gives the same rows (sorted unless
# the query has ORDER BY); SETUP runs first in the same session.
same() {
	local name=$1 setup=$2 sql=$3 dist one ref sort=sort
	case $sql in *"ORDER BY"*) sort="cat" ;; esac
	dist=$(q -c "$setup" -c "${sql//\{T\}/sales}" 2>&1 | $sort)
	one=$(q -c "$setup" -c "${sql//\{T\}/sales_one}" 2>&1 | $sort)
	ref=$(q -c "$setup" -c "${sql//\{T\}/sales_ref}" 2>&1 | $sort)
	if [ -z "$ref" ]; then bad "$name" "the reference returned nothing"
	elif echo "$dist$one$ref" | grep -qE '^(psql:|ERROR:)'; then bad "$name" "an error:" "$dist" "$one" "$ref"
	elif [ "$dist" = "$ref" ] && [ "$one" = "$ref" ]; then ok "$name ($(echo "$ref" | wc -l) rows)"
	else bad "$name" "distributed/one-server/reference differ:" \
		"$(diff <(echo "$dist") <(echo "$ref") | head -n 8)" "$(diff <(echo "$one") <(echo "$ref") | head -n 8)"; fi
}
PWA="SET enable_partitionwise_aggregate = on"
same "scan" "" "SELECT * FROM {T}"
same "filter" "" "SELECT id, qty, price FROM {T} WHERE qty > 50 AND region = 'eu' AND note IS NOT NULL"
same "filter on the key" "" "SELECT id, day FROM {T} WHERE year = 2023 AND price < 100"
same "parameters (generic plan)" "SET plan_cache_mode = force_generic_plan" \
	"PREPARE p(bigint, int) AS SELECT id, qty FROM {T} WHERE id > \$1 AND qty < \$2; EXECUTE p(3000, 20)"
same "count and sums" "" "SELECT count(*), count(note), sum(qty), sum(price), min(day), max(price) FROM {T}"
same "GROUP BY the key, partitionwise" "$PWA" \
	"SELECT year, count(*), sum(qty), avg(price), min(id), max(id) FROM {T} GROUP BY year"
same "GROUP BY other columns, partitionwise" "$PWA" \
	"SELECT region, note, count(*), sum(price) FROM {T} GROUP BY region, note"
same "GROUP BY the key with HAVING" "$PWA" \
	"SELECT year, region, sum(qty) FROM {T} WHERE qty > 10 GROUP BY year, region HAVING sum(qty) > 0"
same "ORDER BY LIMIT" "" "SELECT id, price, year FROM {T} ORDER BY price DESC, id LIMIT 15"
same "ORDER BY LIMIT on one node" "" "SELECT id, price FROM {T} WHERE year = 2023 ORDER BY price DESC, id LIMIT 5"
same "ORDER BY LIMIT OFFSET on the key" "" "SELECT id, year FROM {T} WHERE qty = 3 ORDER BY year, id LIMIT 5 OFFSET 7"
same "join with a local table" "$PWA" \
	"SELECT r.name, s.year, count(*), sum(s.qty) FROM {T} s JOIN regions r USING (region) GROUP BY 1, 2"
same "join with a local table, filtered" "" \
	"SELECT s.id, r.name FROM {T} s JOIN regions r ON r.region = s.region WHERE s.id % 500 = 1"
# the corpus' hive folders (the key only in folder names)
for qv in "SELECT * FROM {T}" "SELECT year, region, count(*), sum(amount) FROM {T} GROUP BY 1, 2" \
	"SELECT count(*), sum(amount) FROM {T} WHERE amount > 500" "SELECT * FROM {T} ORDER BY amount DESC, id LIMIT 4"; do
	dist=$(q -c "$PWA" -c "${qv//\{T\}/sales_v}" 2>&1 | sort)
	ref=$(q -c "${qv//\{T\}/sales_v_ref}" 2>&1 | sort)
	if [ -n "$ref" ] && [ "$dist" = "$ref" ] && ! echo "$ref" | grep -qE '^(psql:|ERROR:)'; then ok "key in folder names only: $qv"
	else bad "key in folder names only: $qv" "$(diff <(echo "$dist") <(echo "$ref") | head)"; fi
done

# ---- the coordinator's plans
expect() {	# expect NAME PATTERN COUNT SETUP QUERY: EXPLAIN has COUNT lines matching
	local name=$1 pat=$2 want=$3 plan n
	plan=$(q -c "$4" -c "EXPLAIN (VERBOSE, COSTS OFF) $5" 2>&1)
	n=$(echo "$plan" | grep -cE "$pat")
	if [ "$n" -eq "$want" ]; then ok "$name"; else bad "$name" "want $want lines matching /$pat/, got $n:" "$plan"; fi
}
expect "Async Foreign Scan on every node" "Async Foreign Scan on" 3 "" "SELECT * FROM sales WHERE qty > 50"
expect "partitionwise aggregate pushed to every node" "Relations: Aggregate on" 3 "$PWA" \
	"SELECT year, count(*), sum(qty) FROM sales GROUP BY year"
expect "pushed aggregates run asynchronously" "^ *->  Async Foreign Scan$" 3 "$PWA" \
	"SELECT year, count(*), sum(qty) FROM sales GROUP BY year"
expect "the key prunes nodes" "Foreign Scan" 1 "" "SELECT * FROM sales WHERE year = 2023"
# the node sorts; the LIMIT stays on the coordinator (postgres_fdw pushes it
# only when the query's own relation is the foreign table, not a partition)
expect "ORDER BY LIMIT on one node sorts there" "Remote SQL: .*ORDER BY price DESC" 1 "" \
	"SELECT id, price FROM sales WHERE year = 2023 ORDER BY price DESC, id LIMIT 5"
total=$(q -c "SELECT count(*) FROM sales_ref")
plan=$(q -c "EXPLAIN SELECT * FROM sales" 2>&1)
if echo "$plan" | head -n 1 | grep -qE "^Append .*rows=$total "; then ok "use_remote_estimate reads the nodes' row counts ($total)"
else bad "use_remote_estimate reads the nodes' row counts ($total)" "$plan"; fi
# without the nodes' estimates: the same rows, by other plans
for i in 1 2 3; do
	q -c "ALTER FOREIGN TABLE sales_node$i OPTIONS (SET use_remote_estimate 'false', SET fetch_size '100')"
done
same "results with local estimates and FETCH 100" "$PWA" \
	"SELECT year, region, count(*), sum(price) FROM {T} WHERE qty < 40 GROUP BY 1, 2"
same "scan with FETCH 100" "" "SELECT id, note FROM {T} WHERE qty < 30"
for i in 1 2 3; do
	q -c "ALTER FOREIGN TABLE sales_node$i OPTIONS (SET use_remote_estimate 'true', SET fetch_size '10000')"
done

# ---- the nodes' own plans for postgres_fdw's cursors (auto_explain)
q -c "$PWA" -c "SELECT year, count(*), sum(qty) FROM sales GROUP BY year" \
	-c "SELECT count(*) FROM sales WHERE id <= 100" >/dev/null
for i in 1 2 3; do
	log=$PF_CLUSTER_DIR/node$i.log
	# the plan logged right after the cursor's query text
	plan=$(awk '/Query Text: DECLARE c[0-9]+ CURSOR FOR/ { p = 1; n = 0 } p && n++ < 12 { print }' "$log" |
		grep -A 8 "SELECT year, count(\*), sum(qty) FROM public.sales GROUP BY 1" | head -n 9)
	if echo "$plan" | grep -q "Aggregate Pushdown: count(\*), sum"; then ok "node$i pushes the aggregate down"
	else bad "node$i pushes the aggregate down" "$plan"; fi
done
plan=$(grep -A 8 "SELECT NULL FROM public.sales WHERE ((id <= 100))" "$PF_CLUSTER_DIR/node1.log" | head -n 9)
if echo "$plan" | grep -q "Row Groups: 1 of 8"; then ok "node1 prunes row groups of a pushed WHERE"
else bad "node1 prunes row groups of a pushed WHERE" "$plan"; fi

# a generic plan's parameters reach the nodes as $1, $2; a node plans the
# cursor with their values, so its pruning sees them (node1 holds ids
# 1..2000, none above 3000)
plan=$(grep -A 10 'WHERE ((id > $1::bigint)) AND ((qty < $2::integer))' "$PF_CLUSTER_DIR/node1.log" | head -n 11)
if echo "$plan" | grep -q "Filter: ((sales.id > '3000'::bigint) AND (sales.qty < 20))" &&
	echo "$plan" | grep -q "Row Groups: 0 of 8"; then ok "node1 prunes with the parameters' values"
else bad "node1 prunes with the parameters' values" "$plan"; fi

# ---- a node that is down
pg_runas "$PGC_BINDIR/pg_ctl" -D "$PF_CLUSTER_DIR/node2" -m fast -w stop >/dev/null 2>&1
err=$(q -c "SELECT count(*) FROM sales" 2>&1)
if echo "$err" | grep -q 'server "node2"'; then ok "a node down: the error names it"
else bad "a node down: the error names it" "$err"; fi
out=$(q -c "SELECT count(*) FROM sales WHERE year <> 2023" 2>&1)
if [ "$out" = 4000 ]; then ok "a node down: queries pruned to the others still run"
else bad "a node down: queries pruned to the others still run" "$out"; fi
echo "$err" | head -n 2 | sed 's/^/    node down: /'
finish
