#!/usr/bin/env bash
# Files that change while a query reads them (scripts/test.sh stage
# "memory", after test/memory/run.sh): a cursor reads the first row of a
# four-row-group file, then the file is written over in place with a
# larger one: the rest of the cursor must fail with "file ... changed while
# it was being read" (SQLSTATE 55000), saying what changed and hinting to
# retry -- never rows of the other file, never a damaged-file or I/O error.
# A file replaced by rename or removed is still the open descriptor's: the
# cursor reads on, every row of the file it began with.  A query started
# after the change reads the new file.  The same for an Amudai shard
# (written by parquet_fdw_write_amudai, stripes of 5000 rows).  Needs PGHOST etc. of a server with parquet_fdw
# (superuser); prints "file-changed: N passed, N failed" last.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PASS=0
FAIL=0
check() {
	if [ "$2" = 1 ]; then PASS=$((PASS + 1)); echo "ok   $1: $3"
	else FAIL=$((FAIL + 1)); echo "FAIL $1: $3"; fi
}
finish() { echo "file-changed: $PASS passed, $FAIL failed"; exit $([ $FAIL -eq 0 ] && echo 0 || echo 1); }

make -s -C "$ROOT/test" tools/bin/gen_pageindex >/dev/null || { check build 0 "gen_pageindex did not build"; finish; }
DIR=$(mktemp -d "${PGC_DIR:-${TMPDIR:-/tmp}}/changed.XXXXXX") || { check setup 0 "no temp dir"; finish; }
chmod 755 "$DIR"
trap 'rm -rf "$DIR"' EXIT
# four row groups of 5000 rows (20000 rows), and a file of six (30000)
"$ROOT/test/tools/bin/gen_pageindex" "$DIR/four.parquet" 4 &&
	"$ROOT/test/tools/bin/gen_pageindex" "$DIR/six.parquet" 6 ||
	{ check setup 0 "gen_pageindex failed"; finish; }
chmod 644 "$DIR"/*.parquet
SIZE4=$(stat -c %s "$DIR/four.parquet")
SIZE6=$(stat -c %s "$DIR/six.parquet")

psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL || { check setup 0 "could not create the table"; finish; }
CREATE EXTENSION IF NOT EXISTS parquet_fdw;
DROP SERVER IF EXISTS changed_srv CASCADE;
CREATE SERVER changed_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE changed_t (id bigint, s text) SERVER changed_srv OPTIONS (filename '$DIR/t.parquet');
SQL

# during NAME CHANGE-COMMAND DETAIL-REGEX
during() {
	local name=$1 change=$2 detail=$3 out
	cp "$DIR/four.parquet" "$DIR/t.parquet"
	chmod 644 "$DIR/t.parquet"
	out=$(psql -X -qAt -v VERBOSITY=verbose 2>&1 <<SQL
SET parquet_fdw.enable_aggregate_pushdown = off;
\\! cp "$DIR/four.parquet" "$DIR/t.parquet"
BEGIN;
DECLARE c CURSOR FOR SELECT id FROM changed_t;
FETCH 1 FROM c;
\\! $change
\\o /dev/null
FETCH ALL FROM c;
\\o
ROLLBACK;
SQL
)
	local ok=1
	echo "$out" | grep -q '^1$' || ok=0
	echo "$out" | grep -qE "ERROR: +55000: file \".*t\.parquet\" changed while it was being read" || ok=0
	echo "$out" | grep -qE "DETAIL: +$detail" || ok=0
	echo "$out" | grep -qE "HINT: +Retry the query\." || ok=0
	check "$name" $ok "$(echo "$out" | grep -E 'ERROR|DETAIL' | tr '\n' ' ' | cut -c1-300)"
}

during "written over in place" "cp '$DIR/six.parquet' '$DIR/t.parquet'" \
	"Its size changed from $SIZE4 to $SIZE6 bytes\."

# replaced by rename or removed: the open descriptor still reads the file
# the cursor began with, so the cursor gives its rows, all of them
# (ids 2..20000: sum 200009999)
reads_on() {
	local name=$1 change=$2 out
	cp "$DIR/four.parquet" "$DIR/t.parquet"
	chmod 644 "$DIR/t.parquet"
	out=$(psql -X -qAt 2>&1 <<SQL
SET parquet_fdw.enable_aggregate_pushdown = off;
BEGIN;
DECLARE c CURSOR FOR SELECT id FROM changed_t;
FETCH 1 FROM c;
\! $change
\o $DIR/rest.txt
FETCH ALL FROM c;
\o
COMMIT;
SQL
)
	local n sum
	n=$(wc -l <"$DIR/rest.txt")
	sum=$(awk '{s += $1} END {print s}' "$DIR/rest.txt")
	[ "$out" = "1" ] && [ "$n" -eq 19999 ] && [ "$sum" = 200009999 ]
	check "$name" $([ $? -eq 0 ] && echo 1 || echo 0) "first '$(echo "$out" | tr '\n' ' ' | cut -c1-200)', then $n rows summing to $sum (want 1, 19999, 200009999)"
}
reads_on "replaced by rename, cursor reads the old file" \
	"cp '$DIR/six.parquet' '$DIR/new.parquet' && mv '$DIR/new.parquet' '$DIR/t.parquet'"
reads_on "removed, cursor reads the old file" "rm '$DIR/t.parquet'"

# a query after the change reads the new file, whole
cp "$DIR/six.parquet" "$DIR/t.parquet"; chmod 644 "$DIR/t.parquet"
out=$(psql -X -qAt -c "SET parquet_fdw.enable_aggregate_pushdown = off" -c "SELECT count(*), sum(id) FROM changed_t" 2>&1)
[ "$out" = "30000|450015000" ]; check "next query reads the new file" $([ $? -eq 0 ] && echo 1 || echo 0) "$out (want 30000|450015000)"

# unchanged: the same cursor reads every row
reads_on "unchanged file, cursor reads on" "true"

# ---- Amudai shards: four and six stripes of 5000 rows
mkdir -p "$DIR/am" && chmod 777 "$DIR/am"
psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL || { check "amudai setup" 0 "could not write the shards"; finish; }
SELECT parquet_fdw_write_amudai('SELECT i::bigint AS id, md5(i::text) AS s FROM generate_series(1, 20000) i', '$DIR/am/four.amudai.shard', 5000);
SELECT parquet_fdw_write_amudai('SELECT i::bigint AS id, md5(i::text) AS s FROM generate_series(1, 30000) i', '$DIR/am/six.amudai.shard', 5000);
CREATE FOREIGN TABLE changed_am (id bigint, s text) SERVER changed_srv OPTIONS (filename '$DIR/am/t.amudai.shard');
SQL
AM4=$(stat -c %s "$DIR/am/four.amudai.shard")
AM6=$(stat -c %s "$DIR/am/six.amudai.shard")

# am_cursor CHANGE: first row, CHANGE, the rest into rest.txt; psql output
am_cursor() {
	rm -f "$DIR/am/t.amudai.shard"
	cp "$DIR/am/four.amudai.shard" "$DIR/am/t.amudai.shard"
	chmod 644 "$DIR/am/t.amudai.shard"
	psql -X -qAt -v VERBOSITY=verbose 2>&1 <<SQL
SET parquet_fdw.enable_aggregate_pushdown = off;
BEGIN;
DECLARE c CURSOR FOR SELECT id FROM changed_am;
FETCH 1 FROM c;
\! $1
\o $DIR/rest.txt
FETCH ALL FROM c;
\o
ROLLBACK;
SQL
}

out=$(am_cursor "cp '$DIR/am/six.amudai.shard' '$DIR/am/t.amudai.shard'")
ok=1
echo "$out" | grep -q '^1$' || ok=0
echo "$out" | grep -qE "ERROR: +55000: file \".*t\.amudai\.shard\" changed while it was being read" || ok=0
echo "$out" | grep -qE "DETAIL: +Its size changed from $AM4 to $AM6 bytes\." || ok=0
echo "$out" | grep -qE "HINT: +Retry the query\." || ok=0
check "amudai shard written over in place" $ok "$(echo "$out" | grep -E 'ERROR|DETAIL' | tr '\n' ' ' | cut -c1-300)"

out=$(am_cursor "truncate -s 4096 '$DIR/am/t.amudai.shard'")
ok=1
echo "$out" | grep -qE "ERROR: +55000: file \".*t\.amudai\.shard\" changed while it was being read" || ok=0
echo "$out" | grep -qE "DETAIL: +Its size changed from $AM4 to 4096 bytes\." || ok=0
check "amudai shard truncated" $ok "$(echo "$out" | grep -E 'ERROR|DETAIL' | tr '\n' ' ' | cut -c1-300)"

for change in "cp '$DIR/am/six.amudai.shard' '$DIR/am/new.shard' && mv '$DIR/am/new.shard' '$DIR/am/t.amudai.shard'" "true"; do
	out=$(am_cursor "$change")
	n=$(wc -l <"$DIR/rest.txt")
	sum=$(awk '{s += $1} END {print s}' "$DIR/rest.txt")
	[ "$out" = "1" ] && [ "$n" -eq 19999 ] && [ "$sum" = 200009999 ]
	check "amudai cursor reads on ($(echo "$change" | cut -c1-20))" $([ $? -eq 0 ] && echo 1 || echo 0) \
		"first '$(echo "$out" | tr '\n' ' ' | cut -c1-200)', then $n rows summing to $sum (want 1, 19999, 200009999)"
done

psql -X -q -c "DROP SERVER changed_srv CASCADE" >/dev/null 2>&1
finish
