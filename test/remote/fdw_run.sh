#!/usr/bin/env bash
# The FDW reading object-store URLs (stage remote-fdw): s3rver behind the
# fault proxy (test/remote/servers.sh), a throwaway PostgreSQL whose
# environment points AWS_ENDPOINT_URL at the proxy, and comparisons of what
# s3:// URLs read with what the same files read locally:
#   - every *.parquet file of the parquet-testing corpus (md5 of the sorted
#     text of SELECT *, or the same SQLSTATE when the local read fails);
#   - a glob, a "**" glob, a folder, a hive dataset with a partition qual;
#   - an Amudai shard written by parquet_fdw_write_amudai;
#   - gs://, az:// and abfss:// with settings from a server and user mapping;
#   - COPY FROM an s3:// glob, by a member of parquet_fdw_remote_read;
#   - a point lookup pruned to one row group: at most 4 requests;
#   - errors: a missing object (58P01), an unsigned request the store
#     refuses (42501), an empty glob (58P01), 5xx then success, an object
#     that changes mid-scan (55000, never a wrong answer);
#   - COPY TO s3:// and az:// (test/remote/upload_fdw.sh): every type the
#     copy tests write, read back equal; a multipart object; numbered
#     objects; no object after an error, a cancel or a refused key; the
#     privileges of writing; parquet_fdw_write_amudai to s3://.
#   - INSERT into s3:// and az:// tables (test/remote/insert_fdw.sh):
#     rows equal to a heap table's, an object per statement, objects
#     removed by ROLLBACK and ROLLBACK TO SAVEPOINT, hive folders, the
#     privilege of writing.
# Last line "remote-fdw: N passed, N failed".
#
#   test/remote/fdw_run.sh      (after make install with PG_CONFIG set)
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
STAGE=remote-fdw
# shellcheck source=test/remote/servers.sh
. "$HERE/servers.sh"
# shellcheck source=scripts/lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"
CORPUS=${PARQUET_TESTING_DIR:-$ROOT/../shared/parquet-testing}/data

fail_all() { echo "$STAGE: $*"; echo "$STAGE: 0 passed, 1 failed"; exit 1; }
rs_install || fail_all "npm install of s3rver and azurite failed"
[ -d "$CORPUS" ] || fail_all "corpus not found at $CORPUS (set PARQUET_TESTING_DIR)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pf-remote-fdw.XXXXXX")
chmod 755 "$WORK"
cleanup() {
	pg_cluster_stop
	rs_stop
	rm -rf "$WORK"
}
trap cleanup EXIT

read -r PORT PROXY_PORT AZ_PORT AZ_PROXY_PORT <<<"$(rs_free_ports 4)"
rs_start_s3rver "$PORT" "$WORK/s3"
rs_start_proxy "$PROXY_PORT" "$PORT"
rs_start_azurite "$AZ_PORT" "$WORK/azurite"
rs_start_proxy "$AZ_PROXY_PORT" "$AZ_PORT"
rs_wait_port "$PORT" || fail_all "s3rver did not start"
rs_wait_port "$PROXY_PORT" || fail_all "the fault proxy did not start"
rs_wait_port "$AZ_PORT" || fail_all "azurite did not start"
rs_wait_port "$AZ_PROXY_PORT" || fail_all "the fault proxy of azurite did not start"
node "$HERE/azure_put.mjs" "http://127.0.0.1:$AZ_PORT/$AZ_ACCOUNT" "$AZ_ACCOUNT" "$AZ_KEY" \
	test "$CORPUS" alltypes_plain.parquet || fail_all "upload to azurite failed"

# The corpus, and the same files as a local tree the server can read.
LOCAL=$WORK/local
mkdir -p "$LOCAL/corpus" "$LOCAL/hive/year=2020" "$LOCAL/hive/year=2021" "$LOCAL/deep/a/b"
FILES=()
for f in "$CORPUS"/*.parquet; do
	k=$(basename "$f")
	cp "$f" "$LOCAL/corpus/$k"
	rs_s3_put "$PORT" "corpus/$k" "$f" || fail_all "upload of $k failed"
	FILES+=("$k")
done
put_both() {	# put_both KEY FILE: the same file locally and in the bucket
	mkdir -p "$(dirname "$LOCAL/$1")"
	cp "$2" "$LOCAL/$1"
	rs_s3_put "$PORT" "$1" "$2" || fail_all "upload of $1 failed"
}
put_both hive/year=2020/part-0.parquet "$CORPUS/alltypes_plain.parquet"
put_both hive/year=2021/part-0.parquet "$CORPUS/alltypes_plain.parquet"
put_both hive/year=2021/part-1.parquet "$CORPUS/alltypes_dictionary.parquet"
put_both deep/a/b/x.parquet "$CORPUS/alltypes_plain.parquet"
put_both deep/a/y.parquet "$CORPUS/alltypes_dictionary.parquet"
put_both deep/_skip/z.parquet "$CORPUS/alltypes_plain.parquet"
# A hive tree of three levels: 2 years x 3 months x 4 days, 2 files a day,
# in s3rver and in Azurite.  s3rver 3.7 leaves a common prefix out of a
# delimiter listing when it holds folders but no object of its own (S3,
# GCS and Azurite do not), so its year= and month= folders get a hidden
# "_keep" object; Azurite gets the tree without them.
H3_NAMES=()
: >"$WORK/empty"
for y in 2022 2023; do
	put_both "h3/year=$y/_keep" "$WORK/empty"
	for m in 1 2 3; do
		put_both "h3/year=$y/month=$m/_keep" "$WORK/empty"
		for d in 1 2 3 4; do
			put_both "h3/year=$y/month=$m/day=$d/part-0.parquet" "$CORPUS/alltypes_plain.parquet"
			put_both "h3/year=$y/month=$m/day=$d/part-1.parquet" "$CORPUS/alltypes_dictionary.parquet"
			H3_NAMES+=("h3/year=$y/month=$m/day=$d/part-0.parquet" "h3/year=$y/month=$m/day=$d/part-1.parquet")
		done
	done
done
node "$HERE/azure_put.mjs" "http://127.0.0.1:$AZ_PORT/$AZ_ACCOUNT" "$AZ_ACCOUNT" "$AZ_KEY" \
	test "$LOCAL" "${H3_NAMES[@]}" || fail_all "upload of the hive tree to azurite failed"
chmod -R a+rX "$LOCAL"
# what the server writes (it may run as another OS user)
OUT=$WORK/out
mkdir -p "$OUT" && chmod 777 "$OUT"

export AWS_ENDPOINT_URL=http://127.0.0.1:$PROXY_PORT AWS_ACCESS_KEY_ID=S3RVER \
	AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
unset AWS_PROFILE AWS_SESSION_TOKEN
# Azure with a key Azurite does not accept: requests must be refused (42501)
WRONG_KEY=$(printf 'not the account key, 64 bytes long...........................' | base64 -w0)
export AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=$AZ_ACCOUNT;AccountKey=$WRONG_KEY;BlobEndpoint=http://127.0.0.1:$AZ_PORT/$AZ_ACCOUNT"
pg_cluster_start >"$WORK/cluster.log" 2>&1 || { cat "$WORK/cluster.log"; fail_all "PostgreSQL did not start"; }

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
faults() { curl -s -X POST "http://127.0.0.1:$PROXY_PORT/__faults?plan=$1" -o /dev/null; }
q() { psql -X -qAt -v ON_ERROR_STOP=1 "$@" 2>&1; }

q >/dev/null <<'SQL' || fail_all "setup failed"
CREATE EXTENSION parquet_fdw;
CREATE SERVER pq FOREIGN DATA WRAPPER parquet_fdw;
-- md5 of the sorted text rows of a table, or its error's SQLSTATE
CREATE FUNCTION table_digest(t regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text;
BEGIN
	EXECUTE format('SELECT md5(coalesce(string_agg(x, E''\n'' ORDER BY x), '''')) || '' '' || count(*)
	                FROM (SELECT r::text AS x FROM %s r) s', t) INTO d;
	RETURN d;
EXCEPTION WHEN others THEN
	RETURN 'error ' || SQLSTATE;
END $$;
-- a table over path, or the SQLSTATE of the failure to make one
CREATE FUNCTION make_table(name text, path text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM parquet_create_foreign_table(name, 'pq', path);
	RETURN 'ok';
EXCEPTION WHEN others THEN
	RETURN 'error ' || SQLSTATE;
END $$;
SQL

# Every corpus file: the same rows through s3:// as from the local file.
i=0
for k in "${FILES[@]}"; do
	i=$((i + 1))
	out=$(q <<SQL
SELECT make_table('l$i', '$LOCAL/corpus/$k') || ' / ' || make_table('r$i', 's3://test/corpus/$k');
SELECT CASE WHEN to_regclass('l$i') IS NULL OR to_regclass('r$i') IS NULL THEN 'no table'
            ELSE table_digest('l$i') || ' / ' || table_digest('r$i') END;
SQL
)
	made=$(echo "$out" | sed -n 1p)
	digests=$(echo "$out" | sed -n 2p)
	lmade=${made%% / *}; rmade=${made##* / }
	ld=${digests%% / *}; rd=${digests##* / }
	if [ "$lmade" != "$rmade" ]; then
		bad "corpus $k: local table $lmade, remote $rmade"
	elif [ "$lmade" != ok ]; then
		ok "corpus $k: both refused ($lmade)"
	elif [ "$ld" = "$rd" ]; then
		ok "corpus $k: $ld"
	else
		bad "corpus $k: local $ld, remote $rd"
	fi
done

# compare NAME LOCAL_FILENAME REMOTE_FILENAME [QUERY_SUFFIX]
# (the remote table on server $RSERVER, default pq)
compare() {
	local out
	out=$(q <<SQL
CREATE FOREIGN TABLE "l_$1" (id int, bool_col bool, string_col text, year int)
	SERVER pq OPTIONS (filename '$2', missing_columns 'null');
CREATE FOREIGN TABLE "r_$1" (id int, bool_col bool, string_col text, year int)
	SERVER ${RSERVER:-pq} OPTIONS (filename '$3', missing_columns 'null');
SELECT (SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) || count(*) FROM "l_$1" t ${4:-}) = 
       (SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) || count(*) FROM "r_$1" t ${4:-}),
       (SELECT count(*) FROM "r_$1" t ${4:-});
SQL
)
	case "$out" in
	t\|[1-9]*) ok "$1: same rows (${out#t|})" ;;
	*) bad "$1: $out" ;;
	esac
}
compare glob "$LOCAL/corpus/alltypes_*.parquet" "s3://test/corpus/alltypes_*.parquet"
compare glob_class "$LOCAL/corpus/alltypes_[dp]*.parquet" "s3://test/corpus/alltypes_[dp]*.parquet"
compare recursive "$LOCAL/deep/**/*.parquet" "s3://test/deep/**/*.parquet"
compare folder "$LOCAL/deep" "s3://test/deep"
compare hive "$LOCAL/hive" "s3://test/hive"
compare hive_qual "$LOCAL/hive" "s3://test/hive" "WHERE year = 2021"

# a partition qual leaves the other folder's objects unread
out=$(q -c "EXPLAIN (COSTS OFF) SELECT * FROM r_hive_qual WHERE year = 2020")
if grep -q "Partition Folders Skipped: 1" <<<"$out"; then ok "hive pruning: one folder skipped"
else bad "hive pruning: $out"; fi

# Partition quals prune hive prefixes before anything below them is listed:
# the same rows as the local tree, and exactly one listing request per
# level walked (the proxies count them), in s3rver and Azurite.
q >/dev/null <<SQL || bad "hive walk: setup failed"
CREATE SERVER azp FOREIGN DATA WRAPPER parquet_fdw;
CREATE USER MAPPING FOR CURRENT_USER SERVER azp OPTIONS (connection_string
	'DefaultEndpointsProtocol=http;AccountName=$AZ_ACCOUNT;AccountKey=$AZ_KEY;BlobEndpoint=http://127.0.0.1:$AZ_PROXY_PORT/$AZ_ACCOUNT');
SQL
# hive3 NAME SERVER REMOTE_FILENAME PROXY_PORT WHERE WANT_LISTINGS [OPTIONS]
# (the local table reads the same path below $LOCAL)
hive3() {
	local before after out local_path
	local_path=$(sed -E "s#^[a-z0-9]+://test(@[^/]*)?#$LOCAL#" <<<"$3")
	q >/dev/null <<SQL || { bad "$1: setup failed"; return; }
CREATE FOREIGN TABLE "hl_$1" (id int, string_col text, year int, month int, day int)
	SERVER pq OPTIONS (filename '$local_path');
CREATE FOREIGN TABLE "hr_$1" (id int, string_col text, year int, month int, day int)
	SERVER $2 OPTIONS (filename '$3' ${7:-});
SQL
	before=$(curl -s "http://127.0.0.1:$4/__faults?lists")
	out=$(q <<SQL
SELECT (SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') || ' ' || count(*) FROM "hl_$1" t $5) =
       (SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') || ' ' || count(*) FROM "hr_$1" t $5),
       (SELECT count(*) FROM "hr_$1" t $5);
SQL
)
	after=$(curl -s "http://127.0.0.1:$4/__faults?lists")
	case "$out" in
	t\|[0-9]*) if [ $((after - before)) -eq "$6" ]; then ok "$1: same rows (${out#t|}), $6 listing requests"
		else bad "$1: $((after - before)) listing requests, want $6"; fi ;;
	*) bad "$1: $out" ;;
	esac
}
ONE_DAY="WHERE year = 2023 AND month = 2 AND day = 3"
# h3/, year=2023/, month=2/, day=3/: one listing each
P="format 'parquet'"
hive3 h3_day pq "s3://test/h3" "$PROXY_PORT" "$ONE_DAY" 4 ", $P"
hive3 h3_day_az azp "az://test/h3" "$AZ_PROXY_PORT" "$ONE_DAY" 4 ", $P"
hive3 h3_day_abfss azp "abfss://test@$AZ_ACCOUNT.dfs.core.windows.net/h3/" "$AZ_PROXY_PORT" "$ONE_DAY" 4 ", $P"
# without the format, telling it from the first file: the first page of a
# flat listing more
hive3 h3_day_sniff pq "s3://test/h3" "$PROXY_PORT" "$ONE_DAY" 5
# a literal key=value folder the quals reject is not listed at all (nor,
# with missing_columns, looked into for the columns of no file left)
hive3 h3_literal pq "s3://test/h3/year=2022" "$PROXY_PORT" "$ONE_DAY" 0 ", $P, missing_columns 'null'"
# month=*: 1 (2 of 3 rejected), then month=2/ and day=3/: 1 each
hive3 h3_glob pq "s3://test/h3/year=2023/month=*/day=*" "$PROXY_PORT" "$ONE_DAY" 3 ", $P"
hive3 h3_glob_az azp "az://test/h3/year=2023/month=*/day=*" "$AZ_PROXY_PORT" "$ONE_DAY" 3 ", $P"
# year=*: 1, neither year rejected: the rest of the pattern flat below: 1
hive3 h3_glob_flat pq "s3://test/h3/year=*/month=1/*/*.parquet" "$PROXY_PORT" "WHERE day = 2" 2 ", $P"
# "**" lists flat below it, judging each key's folders: 1
hive3 h3_recursive pq "s3://test/h3/**/*.parquet" "$PROXY_PORT" "WHERE year = 2022 AND day = 4" 1 ", $P"
# no partition qual: one flat listing, as before; without the format the
# first page of it is asked once more, to tell the format
hive3 h3_all pq "s3://test/h3" "$PROXY_PORT" "" 1 ", $P"
hive3 h3_all_sniff pq "s3://test/h3" "$PROXY_PORT" "" 2
# a level the quals leave whole is listed flat from there: h3/, then flat
hive3 h3_month pq "s3://test/h3" "$PROXY_PORT" "WHERE month = 3" 2 ", $P"
# without the format, a pattern whose names end in .parquet tells it by
# the suffix: no first page asked for it
hive3 h3_recursive_sniff pq "s3://test/h3/**/*.parquet" "$PROXY_PORT" "WHERE year = 2022 AND day = 4" 1
# list_page_size as a server option: 56 keys (with the _keep objects) in
# pages of 5 from s3rver, Azurite's 48 in pages of 5
q >/dev/null <<SQL || bad "list_page_size: setup failed"
CREATE SERVER pq_page5 FOREIGN DATA WRAPPER parquet_fdw OPTIONS (list_page_size '5');
CREATE SERVER azp_page5 FOREIGN DATA WRAPPER parquet_fdw OPTIONS (list_page_size '5');
CREATE USER MAPPING FOR CURRENT_USER SERVER azp_page5 OPTIONS (connection_string
	'DefaultEndpointsProtocol=http;AccountName=$AZ_ACCOUNT;AccountKey=$AZ_KEY;BlobEndpoint=http://127.0.0.1:$AZ_PROXY_PORT/$AZ_ACCOUNT');
SQL
hive3 h3_page5 pq_page5 "s3://test/h3" "$PROXY_PORT" "" 12 ", $P"
hive3 h3_page5_az azp_page5 "az://test/h3" "$AZ_PROXY_PORT" "" 10 ", $P"
# the walk's delimiter listings page too: h3/ (2 years), year=2023/
# (3 months and _keep), month=2/ (4 days and _keep), day=3/ (2 files)
hive3 h3_day_page5 pq_page5 "s3://test/h3" "$PROXY_PORT" "$ONE_DAY" 4 ", $P"
for opt in "list_page_size '0'" "list_page_size '1001'" "coalesce_gap '-1'" \
	"coalesce_gap '1MB'" "max_connections '0'"; do
	out=$(q -c "CREATE SERVER bad_opt FOREIGN DATA WRAPPER parquet_fdw OPTIONS ($opt)" 2>&1)
	case "$out" in
	*"invalid value for option"*) ok "server option $opt refused" ;;
	*) bad "server option $opt: $out"; q -c "DROP SERVER IF EXISTS bad_opt" >/dev/null ;;
	esac
done
out=$(q -c "EXPLAIN (COSTS OFF) SELECT * FROM hr_h3_day $ONE_DAY" -c "EXPLAIN (COSTS OFF) SELECT * FROM hl_h3_day $ONE_DAY")
if [ "$(grep -c "Partition Folders Skipped: 6" <<<"$out")" = 2 ]; then ok "hive walk: 6 folders skipped, as locally"
else bad "hive walk: $out"; fi

# IMPORT FOREIGN SCHEMA of a bucket folder: the tables of the same local
# folder, with the same columns and rows.
for d in deep hive corpus; do
	out=$(q 2>&1 <<SQL
CREATE SCHEMA "il_$d";
CREATE SCHEMA "ir_$d";
IMPORT FOREIGN SCHEMA "$LOCAL/$d" FROM SERVER pq INTO "il_$d";
IMPORT FOREIGN SCHEMA "s3://test/$d" FROM SERVER pq INTO "ir_$d";
SELECT count(*), count(*) FILTER (WHERE l.d IS DISTINCT FROM r.d OR l.cols IS DISTINCT FROM r.cols)
FROM (SELECT c.relname, table_digest(c.oid) AS d,
             (SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ',' ORDER BY attnum)
              FROM pg_attribute WHERE attrelid = c.oid AND attnum > 0) AS cols
      FROM pg_class c WHERE relnamespace = 'il_$d'::regnamespace) l
FULL JOIN
     (SELECT c.relname, table_digest(c.oid) AS d,
             (SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ',' ORDER BY attnum)
              FROM pg_attribute WHERE attrelid = c.oid AND attnum > 0) AS cols
      FROM pg_class c WHERE relnamespace = 'ir_$d'::regnamespace) r USING (relname);
SQL
)
	last=$(echo "$out" | tail -n 1)
	case "$last" in
	[1-9]*\|0) ok "import $d: ${last%|0} tables alike" ;;
	*) bad "import $d: $out" ;;
	esac
done

# An Amudai shard written here, read locally and from the bucket.
out=$(q -c "SELECT parquet_fdw_write_amudai('SELECT g AS id, g % 2 = 0 AS bool_col, ''s'' || g AS string_col, 2000 + g % 3 AS year FROM generate_series(1, 5000) g', '$OUT/shard.amudai.shard', 1000)" 2>&1)
if [ -f "$OUT/shard.amudai.shard" ]; then
	rs_s3_put "$PORT" "amudai/shard.amudai.shard" "$OUT/shard.amudai.shard" || bad "upload of the shard"
	compare amudai "$OUT/shard.amudai.shard" "s3://test/amudai/shard.amudai.shard"
	out=$(q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM r_amudai")
	if grep -qE "Requests: [1-9][0-9]*  Bytes Fetched: [1-9]" <<<"$out"; then ok "amudai: Requests line"
	else bad "amudai: no Requests line: $out"; fi
	# a shard larger than the tail read with the footer: each stripe's
	# field buffers come in one batch (prefetched), not one GET each, and
	# its descriptors with the 256 KiB after the first (63 requests
	# before, 47 with the prefetch alone, 16 with both)
	q -c "SELECT parquet_fdw_write_amudai('SELECT g AS id, g % 2 = 0 AS bool_col, md5(g::text) AS string_col, g % 1000 AS year FROM generate_series(1, 50000) g', '$OUT/big.amudai.shard', 10000)" >/dev/null
	rs_s3_put "$PORT" "amudai/big.amudai.shard" "$OUT/big.amudai.shard" || bad "upload of the big shard"
	compare amudai_big "$OUT/big.amudai.shard" "s3://test/amudai/big.amudai.shard"
	out=$(q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM r_amudai_big")
	n=$(sed -nE 's/.*Requests: ([0-9]+).*/\1/p' <<<"$out" | head -n 1)
	if [ -n "$n" ] && [ "$n" -le 20 ]; then ok "amudai: $n requests for 5 stripes"
	else bad "amudai: ${n:-no} requests for 5 stripes (at most 20): $out"; fi
else
	bad "amudai: the shard was not written: $out"
fi

# A point lookup pruned to one row group: HEAD, footer, one row group.
copy_out=$(q -c "LOAD 'parquet_fdw'" -c "COPY (SELECT g AS id, g % 2 = 0 AS bool_col, md5(g::text) AS string_col, 2000 + g % 5 AS year
          FROM generate_series(1, 100000) g) TO '$OUT/lookup.parquet'
      WITH (FORMAT parquet, row_group_size 10000)")
if [ -f "$OUT/lookup.parquet" ]; then
	rs_s3_put "$PORT" "lookup.parquet" "$OUT/lookup.parquet" || bad "upload of lookup.parquet"
	out=$(q <<SQL
CREATE FOREIGN TABLE lookup (id int, bool_col bool, string_col text, year int)
	SERVER pq OPTIONS (filename 's3://test/lookup.parquet');
SELECT string_col = md5('54321') FROM lookup WHERE id = 54321;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM lookup WHERE id = 54321;
SQL
)
	req=$(echo "$out" | sed -nE 's/.*Requests: ([0-9]+)  Bytes Fetched: ([0-9]+).*/\1/p')
	if [ "$(echo "$out" | head -n 1)" = t ] && [ -n "$req" ] && [ "$req" -le 4 ] &&
		grep -q "Row Groups: 1 of 10" <<<"$out"; then
		ok "point lookup: one row group, $req requests"
	else
		bad "point lookup: $out"
	fi
	out=$(q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT json) SELECT * FROM lookup WHERE id = 54321")
	if grep -q '"Requests"' <<<"$out" && grep -q '"Bytes Fetched"' <<<"$out"; then
		ok "explain json: Requests and Bytes Fetched properties"
	else bad "explain json: $out"; fi
	out=$(q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT year, sum(id) FROM lookup WHERE id > 90000 GROUP BY year")
	if grep -q "Aggregate Pushdown" <<<"$out" && grep -qE "Requests: [1-9][0-9]*  Bytes Fetched: [1-9]" <<<"$out"; then
		ok "aggregate pushdown: Requests line"
	else bad "aggregate pushdown: no Requests line: $out"; fi
	out=$(q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM l_glob LIMIT 1")
	if grep -q "Requests" <<<"$out"; then bad "local scan shows Requests"
	else ok "local scan: no Requests line"; fi
else
	bad "point lookup: COPY TO parquet failed: $copy_out"
fi

# (grep -q on a here-string: "echo | grep -q" fails under pipefail when
# grep stops reading early)
# expect_error NAME SQLSTATE SQL
expect_error() {
	local out
	out=$(psql -X -qAt -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "\\set VERBOSITY verbose" -c "$3" 2>&1)
	if grep -q "ERROR:  $2:" <<<"$out"; then ok "$1: $2"
	else bad "$1: expected $2, got: $(echo "$out" | head -3 | tr '\n' ' ')"; fi
}
q -c "CREATE FOREIGN TABLE missing (id int) SERVER pq OPTIONS (filename 's3://test/no/such.parquet')" >/dev/null
expect_error "missing object" 58P01 "SELECT * FROM missing"
expect_error "missing object, inspection" 58P01 "SELECT * FROM parquet_metadata('s3://test/no/such.parquet')"
q -c "CREATE FOREIGN TABLE empty_glob (id int) SERVER pq OPTIONS (filename 's3://test/none/*.parquet')" >/dev/null
expect_error "empty glob" 58P01 "SELECT * FROM empty_glob"
q -c "CREATE FOREIGN TABLE wrong_key (id int) SERVER pq OPTIONS (filename 'az://test/alltypes_plain.parquet')" >/dev/null
expect_error "wrong key" 42501 "SELECT * FROM wrong_key"
# an http(s) URL is one object, read with plain ranged GETs (s3rver serves
# them unsigned); its "*" is a character, not a glob
compare http "$LOCAL/corpus/alltypes_plain.parquet" "http://127.0.0.1:$PORT/test/corpus/alltypes_plain.parquet"
q -c "CREATE FOREIGN TABLE http_star (id int) SERVER pq OPTIONS (filename 'http://127.0.0.1:$PORT/test/corpus/*.parquet')" >/dev/null
expect_error "http URL with a star" 58P01 "SELECT * FROM http_star"
q -c "CREATE ROLE nobody LOGIN" >/dev/null
expect_error "role without the privilege" 42501 "SET ROLE nobody; SELECT * FROM parquet_metadata('s3://test/lookup.parquet')"

# Settings from a server and its user mapping instead of the environment:
# gs:// (GCS through its S3-compatible API with HMAC keys) at the server's
# endpoint; az:// and abfss:// with Azurite's key in a connection string
# (the environment's Azure key is wrong, so only the mapping can work).
q >/dev/null <<SQL || bad "servers with endpoints: setup failed"
CREATE SERVER gcs FOREIGN DATA WRAPPER parquet_fdw
	OPTIONS (endpoint 'http://127.0.0.1:$PORT', url_style 'path');
CREATE USER MAPPING FOR CURRENT_USER SERVER gcs OPTIONS (key_id 'S3RVER', secret 'S3RVER');
CREATE SERVER azs FOREIGN DATA WRAPPER parquet_fdw;
CREATE USER MAPPING FOR CURRENT_USER SERVER azs OPTIONS (connection_string
	'DefaultEndpointsProtocol=http;AccountName=$AZ_ACCOUNT;AccountKey=$AZ_KEY;BlobEndpoint=http://127.0.0.1:$AZ_PORT/$AZ_ACCOUNT');
SQL
RSERVER=gcs compare gs "$LOCAL/corpus/alltypes_*.parquet" "gs://test/corpus/alltypes_*.parquet"
RSERVER=azs compare az "$LOCAL/corpus/alltypes_plain.parquet" "az://test/alltypes_plain.parquet"
RSERVER=azs compare abfss "$LOCAL/corpus/alltypes_plain.parquet" \
	"abfss://test@$AZ_ACCOUNT.dfs.core.windows.net/alltypes_plain.parquet"

# COPY FROM a URL (a glob here) loads the rows the local files give; a role
# with parquet_fdw_remote_read may, one without it may not.
out=$(q <<SQL
CREATE TABLE cf_local (id int, bool_col bool, string_col text);
CREATE TABLE cf_remote (LIKE cf_local);
GRANT INSERT ON cf_remote TO nobody;
GRANT parquet_fdw_remote_read TO nobody;
LOAD 'parquet_fdw';
COPY cf_local FROM '$LOCAL/corpus/alltypes_*.parquet' (FORMAT parquet);
SET ROLE nobody;
COPY cf_remote FROM 's3://test/corpus/alltypes_*.parquet' (FORMAT parquet);
RESET ROLE;
SELECT (SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) || count(*) FROM cf_local t) =
       (SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) || count(*) FROM cf_remote t),
       (SELECT count(*) FROM cf_remote);
SQL
)
q -c "REVOKE parquet_fdw_remote_read FROM nobody" >/dev/null
case "$(echo "$out" | tail -n 1)" in
t\|[1-9]*) ok "COPY FROM s3:// glob by a parquet_fdw_remote_read member: same rows" ;;
*) bad "COPY FROM s3:// glob: $out" ;;
esac
expect_error "COPY FROM a URL without the privilege" 42501 \
	"LOAD 'parquet_fdw'; SET ROLE nobody; COPY cf_remote FROM 's3://test/corpus/alltypes_plain.parquet' (FORMAT parquet)"

# Inspection of a URL: the same metadata as of the local file.
out=$(q -c "SELECT (SELECT md5(string_agg(m::text, ',')) FROM parquet_metadata('$LOCAL/corpus/alltypes_plain.parquet') m) =
                  (SELECT md5(string_agg(m::text, ',')) FROM parquet_metadata('s3://test/corpus/alltypes_plain.parquet') m)")
[ "$out" = t ] && ok "parquet_metadata of a URL" || bad "parquet_metadata of a URL: $out"

# A cached plan of an object replaced since: 55000, then planned anew.
rs_s3_put "$PORT" swap.parquet "$CORPUS/alltypes_plain.parquet" || bad "upload of swap.parquet"
out=$(psql -X -qAt -v VERBOSITY=verbose 2>&1 <<SQL
CREATE FOREIGN TABLE swap (id int) SERVER pq OPTIONS (filename 's3://test/swap.parquet');
SET plan_cache_mode = force_generic_plan;
PREPARE p AS SELECT count(*) FROM swap;
EXECUTE p;
\! curl -s -f --aws-sigv4 "aws:amz:us-east-1:s3" --user S3RVER:S3RVER -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -T "$CORPUS/alltypes_dictionary.parquet" "http://127.0.0.1:$PORT/test/swap.parquet" -o /dev/null
EXECUTE p;
EXECUTE p;
SQL
)
if [ "$(echo "$out" | sed -n 1p)" = 8 ] && grep -q "ERROR:  55000: object .* changed after the query was planned" <<<"$out" &&
	[ "$(echo "$out" | tail -n 1)" = 2 ]; then
	ok "replaced object: 55000 for the cached plan, then the new rows"
else
	bad "replaced object: $(echo "$out" | tr '\n' ' ')"
fi

# With remote_metadata_ttl the backend trusts an object's identity and
# plans over its cached footer without a HEAD; the statement's first read
# from the store (If-Match) confirms it.  A statement that reads nothing
# from the store (its row groups pruned, or its rows in the cached tail of
# a small object) sends the HEAD before it answers.  A replaced object
# fails one statement with 55000 and the next reads it as it is now.
# Requests are counted by the proxy (GET /__faults).
if [ -f "$OUT/lookup.parquet" ]; then
	rs_s3_put "$PORT" swap2.parquet "$OUT/lookup.parquet" || bad "upload of swap2.parquet"
	put="curl -s -f --aws-sigv4 aws:amz:us-east-1:s3 --user S3RVER:S3RVER -H x-amz-content-sha256:UNSIGNED-PAYLOAD -o /dev/null"
	count="curl -s http://127.0.0.1:$PROXY_PORT/__faults; echo"
	out=$(psql -X -qAt -v VERBOSITY=verbose 2>&1 <<SQL
CREATE FOREIGN TABLE swap2 (id int) SERVER pq OPTIONS (filename 's3://test/swap2.parquet');
SET parquet_fdw.remote_metadata_ttl = 600;
SELECT sum(id) FROM swap2;
\! $count
SELECT sum(id) FROM swap2;
\! $count
SET parquet_fdw.remote_metadata_ttl = 0;
SELECT sum(id) FROM swap2;
\! $count
SET parquet_fdw.remote_metadata_ttl = 600;
SELECT count(*) FROM swap2 WHERE id < 0;
\! $count
\! $put -T "$CORPUS/alltypes_plain.parquet" "http://127.0.0.1:$PORT/test/swap2.parquet"
SELECT count(*) FROM swap2 WHERE id < 0;
SELECT sum(id) FROM swap2;
\! $put -T "$CORPUS/alltypes_dictionary.parquet" "http://127.0.0.1:$PORT/test/swap2.parquet"
SELECT sum(id) FROM swap2;
SELECT sum(id) FROM swap2;
\! $put -T "$OUT/lookup.parquet" "http://127.0.0.1:$PORT/test/swap2.parquet"
SELECT sum(id) FROM swap2;
SELECT sum(id) FROM swap2;
\! $put -T "$CORPUS/alltypes_plain.parquet" "http://127.0.0.1:$PORT/test/swap2.parquet"
SELECT sum(id) FROM swap2;
SELECT sum(id) FROM swap2;
SELECT num_rows FROM parquet_file_metadata('s3://test/swap2.parquet');
\! $put -T "$OUT/lookup.parquet" "http://127.0.0.1:$PORT/test/swap2.parquet"
SELECT num_rows FROM parquet_file_metadata('s3://test/swap2.parquet');
SQL
)
	# lines: sum, n0, sum, n1, sum, n2, 0, n3, then 28, 1, sum, 28 between
	# the errors: a pruned scan's HEAD, a cached tail's HEAD twice (both
	# "after the query was planned"), a read's 412 ("while it was being read");
	# then an inspection function, which always asks (8 rows, then 100000)
	n=($(echo "$out" | grep -vE '^(ERROR|DETAIL|HINT|LOCATION|CONTEXT)' | sed -n '2p;4p;6p;8p'))
	vals=$(echo "$out" | grep -vE '^(ERROR|DETAIL|HINT|LOCATION|CONTEXT)' | sed -n '1p;3p;5p;7p;9p;10p;11p;12p;13p;14p' | tr '\n' ' ')
	errs=$(echo "$out" | grep -E '^ERROR' | sed -E 's/ERROR:  (55000): object .* changed (after the query was planned|while it was being read)/\1 \2/' | tr '\n' ';')
	trusted=$((n[1] - n[0])) asked=$((n[2] - n[1])) pruned=$((n[3] - n[2]))
	if [ "$vals" = "5000050000 5000050000 5000050000 0 28 1 5000050000 28 8 100000 " ] &&
		[ "$errs" = "55000 after the query was planned;55000 after the query was planned;55000 after the query was planned;55000 while it was being read;" ] &&
		[ $((asked - trusted)) = 1 ] && [ "$pruned" = 1 ]; then
		ok "remote_metadata_ttl: no HEAD ($trusted requests, $asked without), a HEAD when nothing is read, 55000 once per replacement"
	else
		bad "remote_metadata_ttl: values $vals; errors $errs; requests $trusted/$asked/$pruned" "$out"
	fi
fi

# Without the TTL a statement over a cached footer sends its HEAD while the
# first row groups are on their way (planning fetches them, bound to the
# cached ETag): the HEAD arrives beside them, and the scan takes them, so
# the statement sends at most one request more than with the TTL (its
# HEAD; the adaptive gap may merge differently), not 7 row groups twice.
# EXPLAIN without ANALYZE never scans: it sends the HEAD alone.  An object
# replaced since is planned anew from its new footer, without an error;
# EXPLAIN alone answers too.
if [ -f "$OUT/lookup.parquet" ]; then
	rs_s3_put "$PORT" swap3.parquet "$OUT/lookup.parquet" || bad "upload of swap3.parquet"
	put="curl -s -f --aws-sigv4 aws:amz:us-east-1:s3 --user S3RVER:S3RVER -H x-amz-content-sha256:UNSIGNED-PAYLOAD -o /dev/null"
	count="curl -s http://127.0.0.1:$PROXY_PORT/__faults; echo"
	overlapped="curl -s http://127.0.0.1:$PROXY_PORT/__faults?overlapped; echo"
	delay="curl -s -X POST -o /dev/null http://127.0.0.1:$PROXY_PORT/__faults?delay"
	out=$(psql -X -qAt -v VERBOSITY=verbose 2>&1 <<SQL
CREATE FOREIGN TABLE swap3 (id int) SERVER pq OPTIONS (filename 's3://test/swap3.parquet');
SELECT sum(id) FROM swap3;
\! $delay=100
\! $count
\! $overlapped
SELECT sum(id) FROM swap3;
\! $count
\! $overlapped
SET parquet_fdw.remote_metadata_ttl = 600;
SELECT sum(id) FROM swap3;
\! $count
RESET parquet_fdw.remote_metadata_ttl;
EXPLAIN (COSTS OFF) SELECT sum(id) FROM swap3 \\g /dev/null
\! $count
\! $delay=0
\! $put -T "$CORPUS/alltypes_plain.parquet" "http://127.0.0.1:$PORT/test/swap3.parquet"
SELECT sum(id) FROM swap3;
\! $put -T "$OUT/lookup.parquet" "http://127.0.0.1:$PORT/test/swap3.parquet"
EXPLAIN (COSTS OFF) SELECT sum(id) FROM swap3 \\g /dev/null
SELECT sum(id) FROM swap3;
SQL
)
	curl -s -X POST -o /dev/null "http://127.0.0.1:$PROXY_PORT/__faults?delay=0"
	# lines: sum, n0, o0, sum, n1, o1, sum, n2, n3, 28, sum
	n=($(echo "$out" | sed -n '2p;3p;5p;6p;8p;9p'))
	vals=$(echo "$out" | sed -n '1p;4p;7p;10p;11p' | tr '\n' ' ')
	spec=$((n[2] - n[0])) trusted=$((n[4] - n[2])) beside=$((n[3] - n[1])) explain=$((n[5] - n[4]))
	if [ "$vals" = "5000050000 5000050000 5000050000 28 5000050000 " ] && ! grep -q ERROR <<<"$out" &&
		[ "$beside" = 1 ] && [ $((spec - trusted)) -le 1 ] && [ "$explain" = 1 ]; then
		ok "first row groups with the HEAD: $spec requests ($trusted with the TTL), the HEAD beside them; EXPLAIN alone sends only the HEAD; a replaced object planned anew"
	else
		bad "first row groups with the HEAD: values $vals; requests $spec/$trusted, EXPLAIN $explain; HEADs beside $beside" "$out"
	fi
fi

# Faults: 5xx and 429 are retried; a changed ETag mid-scan is 55000.
faults 503,500,429
out=$(q -c "SELECT (SELECT count(*) FROM r_glob) = (SELECT count(*) FROM l_glob), (SELECT count(*) FROM r_glob)")
case "$out" in
t\|*) ok "5xx, 5xx, 429, then success: ${out#t|} rows" ;;
*) bad "5xx then success: $out" ;;
esac
# HEAD and footer pass, the row group's read names another version
faults ok,ok,etag
expect_error "object changed mid-scan" 55000 "SELECT * FROM lookup"
faults ""

# Background fetches of the next row groups (lookup: 10 of them): the same
# answers as the local file serially, in parallel workers (which claim row
# groups ahead) and in the aggregate pushdown, also when 503s and a reset
# meet the fetches; a cancel while the proxy holds them stops the statement.
if [ -f "$OUT/lookup.parquet" ]; then
	q -c "CREATE FOREIGN TABLE lookup_local (id int, bool_col bool, string_col text, year int)
		SERVER pq OPTIONS (filename '$OUT/lookup.parquet')" >/dev/null
	PAR="SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
		SET max_parallel_workers_per_gather = 2;"
	for form in serial parallel; do
		set=""; [ $form = parallel ] && set=$PAR
		for sql in "SELECT count(*), sum(id), md5(string_agg(string_col, ',' ORDER BY id)) FROM {t} WHERE year <> 2001" \
			"SELECT year, count(*), sum(id) FROM {t} WHERE bool_col GROUP BY year ORDER BY year"; do
			l=$(q -c "$set ${sql//\{t\}/lookup_local}")
			for plan in "" "ok,ok,ok,503,ok,503,reset,ok,503"; do
				faults "$plan"
				r=$(q -c "$set ${sql//\{t\}/lookup}")
				faults ""
				if [ -n "$l" ] && [ "$l" = "$r" ]; then ok "readahead, $form${plan:+, faults $plan}: ${sql:0:40}"
				else bad "readahead, $form${plan:+, faults $plan}: ${sql:0:40}: local $l, s3 $r"; fi
			done
		done
	done
	out=$(q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM lookup")
	req=$(echo "$out" | sed -nE 's/.*Requests: ([0-9]+)  Bytes Fetched: ([0-9]+).*/\1/p')
	# row group 0 alone, then 1-9 in the background: 2 requests (every
	# column is read, so a fetch's adjacent chunks coalesce)
	if [ -n "$req" ] && [ "$req" -le 12 ]; then ok "readahead: $req requests for 10 row groups"
	else bad "readahead requests: $out"; fi
	# parallel workers take the leader's HEAD and footer (the DSM): one
	# HEAD per statement, whatever the number of workers
	heads="echo heads \$(curl -s http://127.0.0.1:$PROXY_PORT/__faults?heads)"
	for sql in "SELECT count(*), sum(id) FROM lookup WHERE year <> 2001" \
		"SELECT count(*) FROM lookup t WHERE t IS NOT NULL"; do
		# and with remote_metadata_ttl none: the workers confirm by reading
		out=$(psql -X -qAt 2>&1 <<SQL
$PAR
SET parallel_leader_participation = off;
$sql;
\! $heads
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $sql;
\! $heads
SET parquet_fdw.remote_metadata_ttl = 600;
$sql;
\! $heads
$sql;
\! $heads
SQL
)
		n=($(echo "$out" | sed -n 's/^heads //p'))
		if grep -q "Workers Launched: 2" <<<"$out" && [ $((n[1] - n[0])) = 1 ] && [ $((n[3] - n[2])) = 0 ]; then
			ok "parallel workers take the leader's HEAD: $((n[1] - n[0])) HEAD, 2 workers ($((n[3] - n[2])) with the TTL): ${sql:0:40}"
		else bad "parallel workers take the leader's HEAD: ${sql:0:40}" "$out"; fi
	done
	# EXPLAIN ANALYZE counts the requests and bytes of every participant:
	# with the leader reading nothing, the workers' are the serial scan's
	out=$(psql -X -qAt 2>&1 <<SQL
SELECT count(*) FROM lookup WHERE string_col <> '';
SET max_parallel_workers_per_gather = 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM lookup WHERE string_col <> '';
$PAR
SET parallel_leader_participation = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM lookup WHERE string_col <> '';
SQL
)
	b=($(echo "$out" | sed -nE 's/.*Bytes Fetched: ([0-9]+).*/\1/p'))
	if grep -q "Workers Launched: 2" <<<"$out" && [ "${b[0]:-0}" -gt 0 ] && [ "${b[0]}" = "${b[1]:-}" ]; then
		ok "EXPLAIN ANALYZE counts the workers' bytes: ${b[1]} as the serial scan's ${b[0]}"
	else bad "EXPLAIN ANALYZE of a parallel scan: serial ${b[0]:-none}, parallel ${b[1]:-none}" "$out"; fi
	# each request held 700 ms by the proxy (the footer is cached): the
	# HEAD with the first row groups (planning sends them together), then
	# the timeout falls while the background fetch of the next ones is
	# waited for; the session reads on afterwards
	start=$(date +%s)
	out=$(q -v ON_ERROR_STOP=0 <<SQL
\\set VERBOSITY verbose
SELECT count(*) FROM lookup WHERE string_col <> '';
\\! curl -s -X POST "http://127.0.0.1:$PROXY_PORT/__faults?delay=700" -o /dev/null
SET statement_timeout = '1s';
SELECT count(*) FROM lookup WHERE string_col <> '';
RESET statement_timeout;
\\! curl -s -X POST "http://127.0.0.1:$PROXY_PORT/__faults?delay=0" -o /dev/null
SELECT count(*) FROM lookup WHERE string_col <> '';
SQL
)
	took=$(( $(date +%s) - start ))
	curl -s -X POST "http://127.0.0.1:$PROXY_PORT/__faults?delay=0" -o /dev/null
	if grep -q "ERROR:  57014:" <<<"$out" && [ "$(echo "$out" | tail -n 1)" = 100000 ] && [ "$took" -lt 8 ]; then
		ok "cancel during a background fetch: 57014 after ${took}s, then 100000 rows"
	else
		bad "cancel during a background fetch (${took}s): $(echo "$out" | tr '\n' ' ')"
	fi
fi

# COPY TO object-store URLs (uploads); counts into pass/fail
# shellcheck source=test/remote/upload_fdw.sh
. "$HERE/upload_fdw.sh"
# shellcheck source=test/remote/insert_fdw.sh
. "$HERE/insert_fdw.sh"

pg_cluster_stop
echo "$STAGE: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
