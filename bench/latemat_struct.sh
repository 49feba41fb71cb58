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
# shellcheck source=lib/backend_cpu.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/backend_cpu.sh"
backend_cpu_table "$RUNS" tables queries
