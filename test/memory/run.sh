#!/usr/bin/env bash
# Memory bounds through a running server (scripts/test.sh stage "memory").
#
#   test/memory/run.sh        (PGHOST/PGPORT/PGUSER/PGDATABASE of a server
#                              with parquet_fdw installed; superuser)
#
# Hostile files of test/tools/gen_hostile.c: a few KB whose string column
# holds one 100 MB value (HOSTILE_MB) that every row references, through
# the dictionary (12 and 30 rows) or stored per row (plain).  Each query
# runs in a fresh session; afterwards the session reads its own backend's
# peak resident size (VmHWM of /proc/<pg_backend_pid()>/status) and the
# check passes when the peak stays under the session's baseline plus
# HOSTILE_LIMIT (default 4) times the value size, and the query gave the
# exact answer.  Before dictionary values were shared, 30 rows took 3.2 GB.
# Then an Amudai shard written by parquet_fdw_write_amudai whose one
# AMUDAI_MB (32) MB string 16 rows share: the shard stores it once, its
# field readers expand it per row, so the bound is AMUDAI_LIMIT (10) times
# the value (batches of at most 64 MB of values; 1.7 GB before, for 24 rows).
# Prints one line per check and "memory: N passed, N failed" last.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MB=${HOSTILE_MB:-100}
LIMIT=${HOSTILE_LIMIT:-4}
# COPY's own output function and message buffer hold about two more copies
COPY_LIMIT=${HOSTILE_COPY_LIMIT:-$((LIMIT + 2))}
SLACK_KB=$((32 * 1024))		# allocator rounding, the query's own memory
VALUE_BYTES=$((MB * 1024 * 1024))
PASS=0
FAIL=0

check() { # check NAME OK MESSAGE
	if [ "$2" = 1 ]; then PASS=$((PASS + 1)); echo "ok   $1: $3"
	else FAIL=$((FAIL + 1)); echo "FAIL $1: $3"; fi
}

finish() { echo "memory: $PASS passed, $FAIL failed"; exit $([ $FAIL -eq 0 ] && echo 0 || echo 1); }

make -s -C "$ROOT/test" tools/bin/gen_hostile >/dev/null || { check build 0 "gen_hostile did not build"; finish; }

# The files go where the server's OS user can read them.
DIR=$(mktemp -d "${PGC_DIR:-${TMPDIR:-/tmp}}/memory.XXXXXX") || { check setup 0 "no temp dir"; finish; }
chmod 755 "$DIR"
trap 'rm -rf "$DIR"' EXIT
for spec in "dict12 12 dictionary" "dict30 30 dictionary" "plain6 6 plain"; do
	set -- $spec
	"$ROOT/test/tools/bin/gen_hostile" "$DIR/$1.parquet" "$2" "$VALUE_BYTES" "$3" ||
		{ check "generate $1" 0 "gen_hostile failed"; finish; }
done
chmod 644 "$DIR"/*.parquet
echo "files: $(cd "$DIR" && ls -l *.parquet | awk '{printf "%s %s B; ", $9, $5}')"

psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL || { check setup 0 "could not create the tables"; finish; }
DROP SCHEMA IF EXISTS memtest CASCADE;
CREATE EXTENSION IF NOT EXISTS parquet_fdw;
CREATE SCHEMA memtest;
DROP SERVER IF EXISTS memtest_srv CASCADE;
CREATE SERVER memtest_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE memtest.dict12 (id int, s text) SERVER memtest_srv OPTIONS (filename '$DIR/dict12.parquet');
CREATE FOREIGN TABLE memtest.dict30 (id int, s text) SERVER memtest_srv OPTIONS (filename '$DIR/dict30.parquet');
CREATE FOREIGN TABLE memtest.plain6 (id int, s text) SERVER memtest_srv OPTIONS (filename '$DIR/plain6.parquet');
SQL

# peak NAME EXPECTED QUERY: run QUERY in a fresh session between two
# readings of the backend's VmHWM; the first is the baseline.
HWM="SELECT (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'VmHWM:\\s+(\\d+) kB'))[1]::bigint"
peak() {
	local name=$1 expected=$2 query=$3 out base got answer
	out=$(psql -X -qAt -v ON_ERROR_STOP=1 \
		-c "SELECT 1 FROM memtest.dict12 WHERE false" -c "$HWM" \
		-c "$query" -c "$HWM" 2>&1)
	if [ $? -ne 0 ]; then check "$name" 0 "query failed: $(echo "$out" | tail -n 3 | tr '\n' ' ')"; return; fi
	base=$(echo "$out" | sed -n 1p)
	answer=$(echo "$out" | sed -n '2,$p' | sed '$d' | tr '\n' ' ' | sed 's/ $//')
	got=$(echo "$out" | tail -n 1)
	local bound=$((base + LIMIT * VALUE_BYTES / 1024 + SLACK_KB))
	local ok=1
	[ "$answer" = "$expected" ] || ok=0
	[ "$got" -le "$bound" ] || ok=0
	check "$name" $ok "answer '$answer' (want '$expected'), peak RSS $((got / 1024)) MB, baseline $((base / 1024)) MB, bound $((bound / 1024)) MB"
}

peak "12 rows, dictionary" "12|$VALUE_BYTES" \
	"SELECT count(*), max(length(s)) FROM memtest.dict12"
peak "30 rows, dictionary" "30|$VALUE_BYTES" \
	"SELECT count(*), max(length(s)) FROM memtest.dict30"
peak "30 rows, no aggregate pushdown" "30|$VALUE_BYTES" \
	"SET parquet_fdw.enable_aggregate_pushdown = off; SELECT count(*), max(length(s)) FROM memtest.dict30"
peak "30 rows, length per row" "30" \
	"SELECT count(*) FROM (SELECT length(s) AS l FROM memtest.dict30 OFFSET 0) x WHERE l = $VALUE_BYTES"
peak "30 rows, equality filter" "0" \
	"SELECT count(*) FROM memtest.dict30 WHERE s = 'x'"
peak "30 rows, prefix filter" "30" \
	"SELECT count(*) FROM memtest.dict30 WHERE s LIKE 'xxx%'"
peak "6 rows, plain values" "6|$VALUE_BYTES" \
	"SELECT count(*), max(length(s)) FROM memtest.plain6"

# SELECT * to a client: COPY streams the rows (a plain SELECT would make
# psql hold them all); the bytes that arrive are counted.
for t in dict30 plain6; do
	rows=30; [ $t = plain6 ] && rows=6
	bytes=$( { psql -X -qAt -v ON_ERROR_STOP=1 <<SQL
\o /dev/null
SELECT 1 FROM memtest.dict12 WHERE false;
\o
$HWM;
\o '|wc -c >$DIR/sent'
COPY (SELECT * FROM memtest.$t) TO STDOUT;
\o
$HWM;
SQL
	} 2>&1)
	base=$(echo "$bytes" | sed -n 1p)
	got=$(echo "$bytes" | sed -n 2p)
	if ! [[ "$base" =~ ^[0-9]+$ && "$got" =~ ^[0-9]+$ ]]; then
		check "select * $t" 0 "failed: $(echo "$bytes" | tail -n 3 | tr '\n' ' ')"
		continue
	fi
	bound=$((base + COPY_LIMIT * VALUE_BYTES / 1024 + SLACK_KB))
	# the rows' bytes themselves: id, tab, value, newline per row
	sleep 1	# psql closed the pipe; wc may still be writing
	sent=$(tr -d ' ' <"$DIR/sent")
	want=$(( rows * (VALUE_BYTES + 2) + $(seq 1 $rows | tr -d '\n' | wc -c) ))
	ok=1; [ "$got" -le "$bound" ] || ok=0; [ "$sent" -eq "$want" ] || ok=0
	check "select * $t" $ok "$sent bytes sent (want $want), peak RSS $((got / 1024)) MB, baseline $((base / 1024)) MB, bound $((bound / 1024)) MB"
done

# An Amudai shard: one AMUDAI_MB string in every row, stored once.
AM_MB=${AMUDAI_MB:-32}
AM_LIMIT=${AMUDAI_LIMIT:-10}
AM_ROWS=16
AM_BYTES=$((AM_MB * 1024 * 1024))
mkdir -p "$DIR/am" && chmod 777 "$DIR/am"
if ! psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL
SELECT parquet_fdw_write_amudai(\$q\$SELECT i AS id, repeat('x', $AM_BYTES) AS s FROM generate_series(1, $AM_ROWS) i\$q\$, '$DIR/am/hostile.amudai.shard');
CREATE FOREIGN TABLE memtest.am_hostile (id int, s text) SERVER memtest_srv OPTIONS (filename '$DIR/am/hostile.amudai.shard');
SQL
then
	check "amudai shard" 0 "parquet_fdw_write_amudai failed"
else
	echo "shard: $(stat -c %s "$DIR/am/hostile.amudai.shard") B"
	LIMIT=$AM_LIMIT VALUE_BYTES=$AM_BYTES peak "amudai $AM_ROWS rows, one value" "$AM_ROWS|$AM_BYTES" \
		"SELECT count(*), max(length(s)) FROM memtest.am_hostile"
	LIMIT=$AM_LIMIT VALUE_BYTES=$AM_BYTES peak "amudai $AM_ROWS rows, no aggregate pushdown" "$AM_ROWS|$AM_BYTES" \
		"SET parquet_fdw.enable_aggregate_pushdown = off; SELECT count(*), max(length(s)) FROM memtest.am_hostile"
	LIMIT=$AM_LIMIT VALUE_BYTES=$AM_BYTES peak "amudai $AM_ROWS rows, equality filter" "0" \
		"SELECT count(*) FROM memtest.am_hostile WHERE s = 'x'"
fi

psql -X -q -c "DROP SCHEMA memtest CASCADE; DROP SERVER memtest_srv CASCADE;" >/dev/null 2>&1
finish
