#!/usr/bin/env bash
# TPC-H Q1 as published (l_shipdate <= date '1998-12-01' - interval '90 day',
# a date against a timestamp) and as "- 90" (a date against a date): best
# of BENCH_RUNS (default 5) for each, single process, on a lineitem-like
# file of BENCH_ROWS rows (default 6M, about SF 1):
#
#   bench/q1_text.sh          # against the server PGHOST/PGPORT point to,
#                             # parquet_fdw installed there
#
# The file is written once into BENCH_DATA_DIR (default
# /var/tmp/parquet_fdw-q1) from generate_series through COPY and this
# project's writer (make -C bench csv2parquet), row groups of 122880 rows,
# snappy.  Prints one line per text: whether the aggregate was pushed
# down and the best time.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${BENCH_DATA_DIR:-/var/tmp/parquet_fdw-q1}
ROWS=${BENCH_ROWS:-6000000}
RUNS=${BENCH_RUNS:-5}
FILE=$DIR/lineitem_$ROWS.parquet

if [ ! -s "$FILE" ]; then
	make -s -C "$ROOT/bench" csv2parquet >/dev/null
	mkdir -p "$DIR"
	psql -X -qAt -v ON_ERROR_STOP=1 -c "COPY (SELECT i AS l_orderkey,
	    (1 + i % 50)::numeric(15,2) AS l_quantity,
	    (900 + ((i * 7919) % 1000000) / 100.0)::numeric(15,2) AS l_extendedprice,
	    ((i % 11) / 100.0)::numeric(15,2) AS l_discount,
	    ((i % 9) / 100.0)::numeric(15,2) AS l_tax,
	    (ARRAY['A','N','R'])[1 + i % 3] AS l_returnflag,
	    (ARRAY['F','O'])[1 + (i / 5) % 2] AS l_linestatus,
	    date '1992-01-01' + ((i * 13) % 2500)::int AS l_shipdate
	  FROM generate_series(0::bigint, $ROWS - 1) i) TO STDOUT WITH (FORMAT csv, HEADER)" \
		>"$DIR/lineitem.csv"
	"$ROOT/bench/bin/csv2parquet" --codec snappy --row-group 122880 \
		'i64,dec15.2,dec15.2,dec15.2,dec15.2,str,str,date' "$DIR/lineitem.csv" "$FILE"
	rm -f "$DIR/lineitem.csv"
	chmod 755 "$DIR"
	chmod 644 "$FILE"
fi

Q="SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty,
  sum(l_extendedprice) AS sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
  sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
  avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price,
  avg(l_discount) AS avg_disc, count(*) AS count_order
FROM q1_lineitem WHERE l_shipdate <= COND
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for cond in "date '1998-12-01' - interval '90 day'" "date '1998-12-01' - 90"; do
	q=${Q/COND/$cond}
	{
		echo "SET client_min_messages = warning;"
		echo "DROP SERVER IF EXISTS q1_srv CASCADE;"
		echo "CREATE SERVER q1_srv FOREIGN DATA WRAPPER parquet_fdw;"
		echo "CREATE FOREIGN TABLE q1_lineitem (l_orderkey bigint,
		  l_quantity numeric(15,2), l_extendedprice numeric(15,2),
		  l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
		  l_linestatus text, l_shipdate date)
		  SERVER q1_srv OPTIONS (filename '$FILE');"
		echo "SET max_parallel_workers_per_gather = 0;"
		echo "EXPLAIN (COSTS OFF) $q;"
		echo "\\timing on"
		echo "$q;"			# warm-up: footer cache, page cache
		for _ in $(seq "$RUNS"); do echo "$q;"; done
		echo "\\timing off"
		echo "DROP SERVER q1_srv CASCADE;"
	} | psql -X -q -v ON_ERROR_STOP=1 >"$out"
	best=$(grep '^Time:' "$out" | tail -n "$RUNS" | awk '{print $2}' | sort -n | head -n 1)
	if grep -q 'Aggregate Pushdown' "$out"; then pushed=pushed; else pushed='not pushed'; fi
	printf '%-40s %-11s best of %s: %s ms\n' "$cond" "$pushed" "$RUNS" "$best"
done
