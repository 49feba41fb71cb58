# shellcheck shell=bash
# INSERT into foreign tables whose filename is an s3:// or az:// URL,
# sourced by fdw_run.sh after upload_fdw.sh (its servers, roles and
# helpers: q, ok, bad, expect_error, exists; PORT is s3rver's).  Every
# answer is compared with a heap table that took the same rows.

# objects URL_PREFIX: how many objects s3rver holds under the prefix
objects() {
	curl -s "http://127.0.0.1:$PORT/test?list-type=2&prefix=$1" | grep -o '<Key>' | wc -l
}

# ins_same TABLE: "N rows, D differ" against ins_heap
ins_same() {
	q -c "LOAD 'parquet_fdw'" -c "SELECT (SELECT count(*) FROM $1) || ' rows, ' ||
	  (SELECT count(*) FROM ((SELECT * FROM $1 EXCEPT ALL SELECT * FROM ins_heap)
	    UNION ALL (SELECT * FROM ins_heap EXCEPT ALL SELECT * FROM $1)) d) || ' differ'"
}

q >/dev/null <<'SQL' || bad "insert setup failed"
CREATE TABLE ins_heap (id int, t text, d date);
CREATE FOREIGN TABLE ins_s3 (id int, t text, d date)
  SERVER pq OPTIONS (filename 's3://test/ins/');
CREATE FOREIGN TABLE ins_az (id int, t text, d date)
  SERVER az OPTIONS (filename 'az://test/ins/');
SQL

# into an empty prefix, then again: two objects, the rows of both
out=$(q -c "LOAD 'parquet_fdw'" \
	-c "INSERT INTO ins_s3 SELECT g, 'row ' || g, date '2024-01-01' + g FROM generate_series(1, 1000) g" \
	-c "INSERT INTO ins_heap SELECT g, 'row ' || g, date '2024-01-01' + g FROM generate_series(1, 1000) g" \
	-c "INSERT INTO ins_s3 VALUES (1001, NULL, NULL), (1002, 'é', '2000-02-29')" \
	-c "INSERT INTO ins_heap VALUES (1001, NULL, NULL), (1002, 'é', '2000-02-29')")
same=$(ins_same ins_s3 | tail -n 1)
if [ "$same" = "1002 rows, 0 differ" ] && [ "$(objects ins/)" = 2 ]; then
	ok "INSERT into an s3:// table: two statements, two objects, rows equal"
else bad "INSERT into s3://: $out $same, $(objects ins/) objects"; fi

# read your own writes inside the transaction; ROLLBACK removes the object
out=$(q -c "LOAD 'parquet_fdw'" -c "BEGIN" \
	-c "INSERT INTO ins_s3 SELECT g, 'gone', NULL FROM generate_series(1, 500) g" \
	-c "SELECT count(*) FROM ins_s3" -c "ROLLBACK" -c "SELECT count(*) FROM ins_s3")
if [ "$(echo "$out" | paste -sd ' ')" = "1502 1002" ] && [ "$(objects ins/)" = 2 ]; then
	ok "INSERT into s3:// rolled back: seen inside, object removed"
else bad "INSERT into s3:// rolled back: $out, $(objects ins/) objects"; fi

# a subtransaction rolled back removes its object only
out=$(q -c "LOAD 'parquet_fdw'" -c "BEGIN" -c "SAVEPOINT a" \
	-c "INSERT INTO ins_s3 VALUES (-1, 'gone', NULL)" -c "ROLLBACK TO SAVEPOINT a" \
	-c "INSERT INTO ins_s3 VALUES (2000, 'kept', '1999-12-31')" -c "COMMIT" \
	-c "INSERT INTO ins_heap VALUES (2000, 'kept', '1999-12-31')")
same=$(ins_same ins_s3 | tail -n 1)
if [ "$same" = "1003 rows, 0 differ" ] && [ "$(objects ins/)" = 3 ]; then
	ok "INSERT into s3:// in a rolled-back savepoint: its object only removed"
else bad "INSERT into s3:// savepoint: $out $same, $(objects ins/) objects"; fi

# an error mid-statement: no object, nothing read back
expect_error "INSERT into s3:// failing mid-statement" 22012 \
	"LOAD 'parquet_fdw'; INSERT INTO ins_s3 SELECT g, 'x', NULL FROM generate_series(1, 5000) g WHERE 1 / (g - 4000) IS NOT NULL"
same=$(ins_same ins_s3 | tail -n 1)
[ "$same" = "1003 rows, 0 differ" ] && [ "$(objects ins/)" = 3 ] &&
	ok "failed INSERT into s3://: no object" || bad "failed INSERT into s3://: $same, $(objects ins/) objects"

# hive folders: the keys of the objects there, new rows under their folder
out=$(q -c "LOAD 'parquet_fdw'" \
	-c "COPY (SELECT 1 AS id, 'a' AS t) TO 's3://test/insh/region=eu/first.parquet' (FORMAT parquet)" \
	-c "CREATE FOREIGN TABLE ins_hive (id int, t text, region text) SERVER pq OPTIONS (filename 's3://test/insh/')" \
	-c "INSERT INTO ins_hive VALUES (2, 'b', 'us'), (3, 'c', 'eu'), (4, 'd', NULL)" \
	-c "SELECT string_agg(id || ':' || t || ':' || coalesce(region, 'null'), ',' ORDER BY id) FROM ins_hive" 2>&1)
if [ "$(echo "$out" | tail -n 1)" = "1:a:eu,2:b:us,3:c:eu,4:d:null" ] && [ "$(objects insh/region=us/)" = 1 ] &&
	[ "$(objects insh/region=__HIVE_DEFAULT_PARTITION__/)" = 1 ]; then
	ok "INSERT into a hive-partitioned s3:// table: one object per folder"
else bad "INSERT into s3:// hive folders: $out"; fi

# az:// through a server and user mapping
out=$(q -c "LOAD 'parquet_fdw'" -c "INSERT INTO ins_az SELECT * FROM ins_heap" \
	-c "SELECT count(*) FROM ((SELECT * FROM ins_az EXCEPT ALL SELECT * FROM ins_heap)
	    UNION ALL (SELECT * FROM ins_heap EXCEPT ALL SELECT * FROM ins_az)) d" -c "SELECT count(*) FROM ins_az")
[ "$(echo "$out" | paste -sd ' ')" = "0 1003" ] && ok "INSERT into an az:// table: rows equal" ||
	bad "INSERT into az://: $out"
out=$(q -c "LOAD 'parquet_fdw'" -c "BEGIN" -c "INSERT INTO ins_az VALUES (-3, 'gone', NULL)" \
	-c "ROLLBACK" -c "SELECT count(*) FROM ins_az" 2>&1)
[ "$out" = 1003 ] && ok "INSERT into az:// rolled back: the blob deleted" ||
	bad "INSERT into az:// rolled back: $out"

# privileges: writing objects needs parquet_fdw_remote_write (or more)
q >/dev/null -c "GRANT SELECT, INSERT ON ins_s3 TO up_none, up_writer" -c "GRANT USAGE ON FOREIGN SERVER pq TO up_none, up_writer"
expect_error "INSERT into s3:// without the privilege" 42501 \
	"LOAD 'parquet_fdw'; SET ROLE up_none; INSERT INTO ins_s3 VALUES (-2, 'no', NULL)"
out=$(q -c "LOAD 'parquet_fdw'" -c "SET ROLE up_writer" -c "INSERT INTO ins_s3 VALUES (3000, 'writer', NULL)" \
	-c "RESET ROLE" -c "INSERT INTO ins_heap VALUES (3000, 'writer', NULL)")
same=$(ins_same ins_s3 | tail -n 1)
[ "$same" = "1004 rows, 0 differ" ] && ok "parquet_fdw_remote_write may INSERT into s3://" ||
	bad "INSERT by parquet_fdw_remote_write: $out $same"
expect_error "INSERT into an http:// table" 0A000 \
	"LOAD 'parquet_fdw'; CREATE FOREIGN TABLE ins_http (id int) SERVER pq OPTIONS (filename 'http://127.0.0.1:$PORT/test/ins/'); INSERT INTO ins_http VALUES (1)"
