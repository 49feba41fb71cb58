# shellcheck shell=bash
# COPY ... TO 's3://...' / 'az://...' (FORMAT parquet), sourced by
# fdw_run.sh with its servers, cluster and helpers (q, ok, bad,
# expect_error, compare, faults; PORT is s3rver's, AZ_PORT Azurite's, OUT
# a folder the server writes).  The
# environment's S3 settings point at s3rver through the fault proxy; the
# environment's Azure key is wrong, so az:// goes through a server whose
# user mapping has the right one.

# exists URL_PATH: the HTTP status of an unsigned GET of s3rver's object
exists() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/test/$1"; }

q >/dev/null <<SQL || bad "upload setup failed"
LOAD 'parquet_fdw';
CREATE TYPE up_mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN up_pos AS int CHECK (VALUE > 0);
-- the types of sql/copy_to.sql, NULLs in every column
CREATE TABLE up_types AS
SELECT i AS id,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END AS b,
       CASE WHEN i % 7 = 1 THEN NULL ELSE (i % 30000 - 15000)::int2 END AS i2,
       CASE WHEN i % 7 = 2 THEN NULL ELSE i * 1000 - 500000 END AS i4,
       CASE WHEN i % 7 = 3 THEN NULL ELSE i::int8 * 1000000007 END AS i8,
       CASE WHEN i % 7 = 4 THEN NULL ELSE (i / 8.0)::float4 END AS f4,
       CASE WHEN i % 7 = 5 THEN NULL ELSE i / 3.0::float8 END AS f8,
       CASE WHEN i % 7 = 6 THEN NULL ELSE (i * 1.25 - 300)::numeric(9,2) END AS n9,
       CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 12345.6789 - 99999)::numeric(18,4) END AS n18,
       CASE WHEN i % 7 = 1 THEN NULL ELSE (i::numeric * 10^25 + 0.123)::numeric(38,3) END AS n38,
       CASE WHEN i % 7 = 2 THEN NULL ELSE (CASE WHEN i % 2 = 0 THEN -1 ELSE 1 END * i::numeric / 7)::numeric(30,9) END AS nfree,
       CASE WHEN i % 7 = 3 THEN NULL ELSE 'text ' || i || repeat('é', i % 5) END AS t,
       CASE WHEN i % 7 = 4 THEN NULL ELSE ('v' || i)::varchar(10) END AS vc,
       CASE WHEN i % 7 = 5 THEN NULL ELSE ('c' || i % 10)::char(4) END AS ch,
       CASE WHEN i % 7 = 6 THEN NULL ELSE decode(lpad(to_hex(i), 6, '0'), 'hex') END AS by,
       CASE WHEN i % 7 = 0 THEN NULL ELSE date '2000-01-01' + (i * 37 - 20000) END AS d,
       CASE WHEN i % 7 = 1 THEN NULL ELSE time '00:00' + i * interval '17.123456 s' END AS tm,
       CASE WHEN i % 7 = 2 THEN NULL ELSE (time '00:00' + i * interval '13 s')::timetz END AS ttz,
       CASE WHEN i % 7 = 3 THEN NULL ELSE timestamp '1960-01-01' + i * interval '1 day 1.000001 s' END AS ts,
       CASE WHEN i % 7 = 4 THEN NULL ELSE timestamptz '2020-02-29 12:00+00' - i * interval '1 hour' END AS tstz,
       CASE WHEN i % 7 = 5 THEN NULL ELSE make_interval(months => i % 13, days => i % 40, secs => i * 1.5) END AS iv,
       CASE WHEN i % 7 = 6 THEN NULL ELSE md5(i::text)::uuid END AS u,
       CASE WHEN i % 7 = 0 THEN NULL ELSE ('{"k": ' || i || ', "a": [1, "x"]}')::jsonb END AS jb,
       CASE WHEN i % 7 = 1 THEN NULL ELSE ('{"k":' || i || '}')::json END AS js,
       CASE WHEN i % 7 = 2 THEN NULL ELSE (ARRAY['sad', 'ok', 'happy'])[i % 3 + 1]::up_mood END AS mood,
       CASE WHEN i % 7 = 3 THEN NULL ELSE (i % 100 + 1)::up_pos END AS pos,
       CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN '{}'::int[]
            ELSE ARRAY[i, NULL, i + 1] END AS ai,
       CASE WHEN i % 6 = 0 THEN NULL ELSE ARRAY['a' || i, NULL, ''] END AS at,
       CASE WHEN i % 4 = 0 THEN NULL ELSE ARRAY[(i / 3.0)::numeric(10,3)] END AS an,
       CASE WHEN i % 3 = 0 THEN NULL ELSE ARRAY[date '2024-01-01' + i, NULL] END AS ad
  FROM generate_series(1, 5000) i;
ALTER TABLE up_types ALTER n9 TYPE numeric(9,2), ALTER n18 TYPE numeric(18,4),
  ALTER n38 TYPE numeric(38,3), ALTER vc TYPE varchar(10), ALTER ch TYPE char(4);
CREATE VIEW up_types_cmp AS
SELECT id, b, i2, i4, i8, f4, f8, n9, n18, n38, nfree, t, vc, ch, by, d, tm,
       ttz, ts, tstz, iv, u, jb, js::text AS js, mood::text AS mood, pos::int AS pos,
       ai, at, an, ad FROM up_types;
-- the columns of a foreign table reading those files back
CREATE FUNCTION up_back(name text, url text, srv text) RETURNS void LANGUAGE plpgsql AS \$\$
BEGIN
	EXECUTE format('CREATE FOREIGN TABLE %I (
	    id int, b bool, i2 int2, i4 int, i8 int8, f4 float4, f8 float8,
	    n9 numeric(9,2), n18 numeric(18,4), n38 numeric(38,3), nfree numeric,
	    t text, vc varchar(10), ch char(4), by bytea, d date, tm time, ttz timetz,
	    ts timestamp, tstz timestamptz, iv interval, u uuid, jb jsonb, js json,
	    mood text, pos int, ai int[], at text[], an numeric(10,3)[], ad date[])
	  SERVER %I OPTIONS (filename %L)', name, srv, url);
END \$\$;
-- rows of the foreign table name missing from up_types_cmp and the reverse
CREATE FUNCTION up_diff(name text) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE a bigint; b bigint; n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM (SELECT id, b, i2, i4, i8, f4, f8, n9, n18, n38, nfree, t, vc, ch, by, d, tm,
	       ttz, ts, tstz, iv, u, jb, js::text, mood, pos, ai, at, an, ad FROM %I
	       EXCEPT SELECT * FROM up_types_cmp) x', name) INTO a;
	EXECUTE format('SELECT count(*) FROM (SELECT * FROM up_types_cmp EXCEPT
	       SELECT id, b, i2, i4, i8, f4, f8, n9, n18, n38, nfree, t, vc, ch, by, d, tm,
	       ttz, ts, tstz, iv, u, jb, js::text, mood, pos, ai, at, an, ad FROM %I) x', name) INTO b;
	EXECUTE format('SELECT count(*) FROM %I', name) INTO n;
	RETURN n || ' rows, ' || a || '/' || b || ' differ';
END \$\$;
-- a larger query: several 8 MiB parts uncompressed
CREATE VIEW up_big AS
SELECT g AS id, md5(g::text) AS a, md5((g * 7)::text) AS b
  FROM generate_series(1, 200000) g;
CREATE SERVER az FOREIGN DATA WRAPPER parquet_fdw
	OPTIONS (endpoint '127.0.0.1:$AZ_PORT/$AZ_ACCOUNT', use_ssl 'false');
CREATE USER MAPPING FOR CURRENT_USER SERVER az
	OPTIONS (account_name '$AZ_ACCOUNT', account_key '$AZ_KEY');
CREATE SERVER s3bad FOREIGN DATA WRAPPER parquet_fdw
	OPTIONS (endpoint '127.0.0.1:$PORT', use_ssl 'false', url_style 'path');
CREATE USER MAPPING FOR CURRENT_USER SERVER s3bad
	OPTIONS (key_id 'NOT-A-KEY', secret 'wrong');
CREATE ROLE up_none LOGIN;
CREATE ROLE up_writer LOGIN IN ROLE parquet_fdw_remote_write, parquet_fdw_remote_read;
SQL

# every type, to s3:// (environment settings) and read back
out=$(q -c "LOAD 'parquet_fdw'" -c "COPY up_types TO 's3://test/out/types.parquet' (FORMAT parquet, row_group_size 1000)" \
	-c "SELECT up_back('up_s3', 's3://test/out/types.parquet', 'pq')" -c "SELECT up_diff('up_s3')")
if [ "$(echo "$out" | tail -n 1)" = "5000 rows, 0/0 differ" ]; then ok "COPY TO s3://: every type read back equal"
else bad "COPY TO s3://: $out"; fi

# several parts: the same rows back, and DuckDB reads the object too
out=$(q -c "LOAD 'parquet_fdw'" \
	-c "COPY (SELECT * FROM up_big) TO 's3://test/out/big.parquet' (FORMAT parquet, compression 'uncompressed', dictionary 'false')" \
	-c "CREATE FOREIGN TABLE up_big_s3 (id int, a text, b text) SERVER pq OPTIONS (filename 's3://test/out/big.parquet')" \
	-c "SELECT (SELECT count(*) FROM (SELECT * FROM up_big_s3 EXCEPT SELECT * FROM up_big) x),
	           (SELECT count(*) FROM up_big_s3),
	           (SELECT sum(compressed_size) > 8 * 1024 * 1024 FROM parquet_metadata('s3://test/out/big.parquet'))")
if [ "$(echo "$out" | tail -n 1)" = "0|200000|t" ]; then ok "COPY TO s3://: a multipart object read back equal"
else bad "COPY TO s3:// multipart: $out"; fi

# numbered objects under a prefix
out=$(q -c "LOAD 'parquet_fdw'" \
	-c "COPY (SELECT * FROM up_big) TO 's3://test/out/split/' (FORMAT parquet, file_size_bytes 2000000, row_group_size 20000)" \
	-c "CREATE FOREIGN TABLE up_split (id int, a text, b text) SERVER pq OPTIONS (filename 's3://test/out/split/*.parquet')" \
	-c "SELECT (SELECT count(*) FROM (SELECT * FROM up_split EXCEPT SELECT * FROM up_big) x), (SELECT count(*) FROM up_split)")
if [ "$(echo "$out" | tail -n 1)" = "0|200000" ] && [ "$(exists out/split/data_1.parquet)" = 200 ]; then
	ok "COPY TO s3:// with file_size_bytes: numbered objects"
else bad "COPY TO s3:// split: $out"; fi

# an error raised mid-query, after parts went up: no object, the old one kept
expect_error "COPY TO s3:// failing mid-query" 22012 \
	"LOAD 'parquet_fdw'; COPY (SELECT id, a, b, 1 / (id - 190000) AS boom FROM up_big) TO 's3://test/out/failed.parquet' (FORMAT parquet, compression 'uncompressed', row_group_size 10000)"
[ "$(exists out/failed.parquet)" = 404 ] && ok "failed COPY: no object" || bad "failed COPY: the object exists"
expect_error "COPY over an object failing" 22012 \
	"LOAD 'parquet_fdw'; COPY (SELECT id, a, b, 1 / (id - 190000) AS boom FROM up_big) TO 's3://test/out/big.parquet' (FORMAT parquet, compression 'uncompressed')"
out=$(q -c "SELECT count(*) FROM up_big_s3")
[ "$out" = 200000 ] && ok "failed COPY over an object: the old one kept" || bad "failed COPY over an object: $out"

# a cancel (statement_timeout) mid-upload: no object
expect_error "COPY TO s3:// cancelled" 57014 \
	"LOAD 'parquet_fdw'; SET statement_timeout = '1500ms'; COPY (SELECT g, md5(g::text) FROM generate_series(1, 100000000) g) TO 's3://test/out/cancelled.parquet' (FORMAT parquet, compression 'uncompressed', row_group_size 20000)"
[ "$(exists out/cancelled.parquet)" = 404 ] && ok "cancelled COPY: no object" || bad "cancelled COPY: the object exists"

# a part failing once through the proxy is retried
faults "ok,ok,503"
out=$(q -c "LOAD 'parquet_fdw'" \
	-c "COPY (SELECT * FROM up_big) TO 's3://test/out/retried.parquet' (FORMAT parquet, compression 'uncompressed', dictionary 'false')" \
	-c "CREATE FOREIGN TABLE up_retried (id int, a text, b text) SERVER pq OPTIONS (filename 's3://test/out/retried.parquet')" \
	-c "SELECT count(*) FROM (SELECT * FROM up_retried EXCEPT SELECT * FROM up_big) x")
faults ""
[ "$(echo "$out" | tail -n 1)" = 0 ] && ok "COPY TO s3:// with a part failing once" || bad "COPY retried: $out"

# az:// through Azurite with a server and user mapping
out=$(q -c "LOAD 'parquet_fdw'" -c "COPY up_types TO 'az://test/out/types.parquet' (FORMAT parquet, server 'az')" \
	-c "SELECT up_back('up_az', 'az://test/out/types.parquet', 'az')" -c "SELECT up_diff('up_az')" \
	-c "COPY (SELECT * FROM up_big) TO 'az://test/out/big.parquet' (FORMAT parquet, server 'az', compression 'uncompressed', dictionary 'false')" \
	-c "CREATE FOREIGN TABLE up_big_az (id int, a text, b text) SERVER az OPTIONS (filename 'az://test/out/big.parquet')" \
	-c "SELECT count(*) FROM (SELECT * FROM up_big_az EXCEPT SELECT * FROM up_big) x")
if [ "$(echo "$out" | sed -n 2p)" = "5000 rows, 0/0 differ" ] && [ "$(echo "$out" | tail -n 1)" = 0 ]; then
	ok "COPY TO az://: every type and a block list read back equal"
else bad "COPY TO az://: $out"; fi

# wrong keys: 42501 and no object
expect_error "COPY TO az:// with a wrong key" 42501 \
	"LOAD 'parquet_fdw'; COPY up_types TO 'az://test/out/wrong.parquet' (FORMAT parquet)"
expect_error "no object after a wrong key" 58P01 \
	"CREATE FOREIGN TABLE up_wrong (id int) SERVER az OPTIONS (filename 'az://test/out/wrong.parquet'); SELECT * FROM up_wrong"
expect_error "COPY TO s3:// with a wrong key" 42501 \
	"LOAD 'parquet_fdw'; COPY (SELECT * FROM up_big) TO 's3://test/out/wrong.parquet' (FORMAT parquet, server 's3bad')"
[ "$(exists out/wrong.parquet)" = 404 ] && ok "wrong S3 key: no object" || bad "wrong S3 key: the object exists"

# privileges
expect_error "COPY TO s3:// without the privilege" 42501 \
	"LOAD 'parquet_fdw'; SET ROLE up_none; COPY (SELECT 1 AS x) TO 's3://test/out/role.parquet' (FORMAT parquet)"
expect_error "parquet_fdw_remote_read does not write" 42501 \
	"LOAD 'parquet_fdw'; GRANT parquet_fdw_remote_read TO up_none; SET ROLE up_none; COPY (SELECT 1 AS x) TO 's3://test/out/role.parquet' (FORMAT parquet)"
expect_error "a server without USAGE" 42501 \
	"LOAD 'parquet_fdw'; SET ROLE up_writer; COPY (SELECT 1 AS x) TO 'az://test/out/role.parquet' (FORMAT parquet, server 'az')"
out=$(q -c "LOAD 'parquet_fdw'" -c "SET ROLE up_writer" \
	-c "COPY (SELECT 42 AS x) TO 's3://test/out/role.parquet' (FORMAT parquet)" 2>&1)
if [ "$(exists out/role.parquet)" = 200 ]; then ok "parquet_fdw_remote_write may COPY TO s3://"
else bad "parquet_fdw_remote_write: $out"; fi
expect_error "server option with a local file" 22023 \
	"LOAD 'parquet_fdw'; COPY (SELECT 1 AS x) TO '/tmp/pf_up_local.parquet' (FORMAT parquet, server 'az')"
expect_error "COPY TO an http URL" 0A000 \
	"LOAD 'parquet_fdw'; COPY (SELECT 1 AS x) TO 'http://127.0.0.1:$PORT/test/x.parquet' (FORMAT parquet)"

# parquet_fdw_write_amudai to a URL: the same rows as the local shard
# fdw_run.sh wrote with the same query; a failing query leaves no object
out=$(q -c "SELECT parquet_fdw_write_amudai('SELECT g AS id, g % 2 = 0 AS bool_col, ''s'' || g AS string_col, 2000 + g % 3 AS year FROM generate_series(1, 5000) g', 's3://test/out/shard.amudai.shard', 1000)" 2>&1)
if [ "$out" = 5000 ] && [ -f "$OUT/shard.amudai.shard" ]; then
	compare amudai_upload "$OUT/shard.amudai.shard" "s3://test/out/shard.amudai.shard"
else bad "parquet_fdw_write_amudai to s3://: $out"; fi
expect_error "parquet_fdw_write_amudai to s3:// failing" 22012 \
	"SELECT parquet_fdw_write_amudai('SELECT g AS id, 1 / (g - 4000) AS x FROM generate_series(1, 5000) g', 's3://test/out/failed.amudai.shard', 1000)"
[ "$(exists out/failed.amudai.shard)" = 404 ] && ok "failed shard: no object" || bad "failed shard: the object exists"
expect_error "parquet_fdw_write_amudai to s3:// without the privilege" 42501 \
	"SET ROLE up_none; SELECT parquet_fdw_write_amudai('SELECT 1 AS a', 's3://test/out/role.amudai.shard')"

# DuckDB (from the node cache of test/generated, when present) reads the
# multipart object, downloaded as the store serves it
DUCK_PARENT=${PARQUET_FDW_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw}
if [ -f "$DUCK_PARENT/node_modules/@duckdb/node-api/package.json" ]; then
	curl -s -f -o "$WORK/big.parquet" "http://127.0.0.1:$PORT/test/out/big.parquet"
	out=$(node --input-type=module -e "
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const require = createRequire('$DUCK_PARENT/noop.js');
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const r = await c.runAndReadAll(\"SELECT count(*), sum(id), bool_and(a = md5(CAST(id AS VARCHAR)) AND b = md5(CAST(id * 7 AS VARCHAR))) FROM '$WORK/big.parquet'\");
console.log(r.getRows()[0].map(String).join('|'));
" 2>&1)
	[ "$out" = "200000|20000100000|true" ] && ok "DuckDB reads the multipart object: $out" ||
		bad "DuckDB on the multipart object: $out"
else
	echo "skip DuckDB check: @duckdb/node-api not in $DUCK_PARENT"
fi
