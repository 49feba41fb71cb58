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
# shellcheck source=lib/backend_cpu.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/backend_cpu.sh"
backend_cpu_table "$RUNS" tables queries
