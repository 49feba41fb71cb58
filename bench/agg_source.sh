#!/usr/bin/env bash
# Aggregate pushdown over the table source: TPC-H Q1- and Q6-like queries
# on a lineitem-like Parquet file and on an Amudai shard written from the
# same rows, pushdown on and off, best of BENCH_RUNS (default 5), single
# process:
#
#   bench/agg_source.sh       # against the server PGHOST/PGPORT point to,
#                             # parquet_fdw installed there
#
# The Parquet file (BENCH_ROWS rows, default 2M, row groups of 122880,
# snappy) is written once into BENCH_DATA_DIR (default
# /var/tmp/parquet_fdw-aggsrc) by make -C bench csv2parquet; the shard
# (stripes of 65536 rows) into the server's data directory by
# parquet_fdw_write_amudai.  Prints one line per table, query and setting
# (BENCH_TABLES: aggsrc_pq, aggsrc_am or both, the default).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${BENCH_DATA_DIR:-/var/tmp/parquet_fdw-aggsrc}
ROWS=${BENCH_ROWS:-2000000}
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

COLS="l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
  l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
  l_linestatus text, l_shipdate date"
Q1="SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
  sum(l_extendedprice * (1 - l_discount)),
  sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
  avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*)
FROM TBL WHERE l_shipdate <= date '1998-12-01' - 90
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"
Q6="SELECT sum(l_extendedprice * l_discount) FROM TBL
WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01'
  AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
{
	echo "SET client_min_messages = warning;"
	echo "DROP SERVER IF EXISTS aggsrc_srv CASCADE;"
	echo "CREATE SERVER aggsrc_srv FOREIGN DATA WRAPPER parquet_fdw;"
	echo "CREATE FOREIGN TABLE aggsrc_pq ($COLS) SERVER aggsrc_srv OPTIONS (filename '$FILE');"
	echo "SELECT current_setting('data_directory') || '/aggsrc_$ROWS.amudai.shard' AS shard \\gset"
	echo "SELECT parquet_fdw_write_amudai('SELECT * FROM aggsrc_pq', :'shard', 65536);"
} | psql -X -q -v ON_ERROR_STOP=1 >/dev/null
SHARD=$(psql -X -qAt -c "SELECT current_setting('data_directory') || '/aggsrc_$ROWS.amudai.shard'")

for tbl in ${BENCH_TABLES:-aggsrc_pq aggsrc_am}; do
	for qn in Q1 Q6; do
		for push in on off; do
			q=${!qn}
			q=${q//TBL/$tbl}
			{
				echo "SET client_min_messages = warning;"
				echo "CREATE FOREIGN TABLE IF NOT EXISTS aggsrc_am ($COLS) SERVER aggsrc_srv OPTIONS (filename '$SHARD');"
				echo "SET max_parallel_workers_per_gather = 0;"
				echo "SET parquet_fdw.enable_aggregate_pushdown = $push;"
				echo "EXPLAIN (COSTS OFF) $q;"
				echo "\\timing on"
				echo "$q;"	# warm-up: footer cache, page cache
				for _ in $(seq "$RUNS"); do echo "$q;"; done
				echo "\\timing off"
			} | psql -X -q -v ON_ERROR_STOP=1 >"$out"
			best=$(grep '^Time:' "$out" | tail -n "$RUNS" | awk '{print $2}' | sort -n | head -n 1)
			if grep -q 'Aggregate Pushdown' "$out"; then pushed=pushed; else pushed='not pushed'; fi
			printf '%-10s %-3s pushdown=%-3s %-11s best of %s: %s ms\n' "$tbl" "$qn" "$push" "$pushed" "$RUNS" "$best"
		done
	done
done
psql -X -q -c "SET client_min_messages = warning; DROP SERVER aggsrc_srv CASCADE;" >/dev/null
