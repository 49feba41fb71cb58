--
-- https_fdw.sql: object-store settings, credentials and privileges through
-- SQL, against nginx over HTTPS with a private CA (run by
-- test/remote/https.sh with -v port=PORT -v work=FOLDER; nginx serves
-- FOLDER/www/test/* as /test/*, /denied/* as 403 AccessDenied).
-- Last line "https_fdw: N passed, N failed".
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS parquet_fdw;
\set url_base 'https://127.0.0.1:' :port
\set ca :work '/ca.pem'
\set local :work '/www/test/alltypes_plain.parquet'

\o /dev/null
CREATE TEMP TABLE results (name text, ok boolean, got text);
-- 'ok', or SQLSTATE|message|detail|hint of the error
CREATE FUNCTION try(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  msg text; det text; hnt text; st text;
BEGIN
  EXECUTE query;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL,
                          hnt = PG_EXCEPTION_HINT, st = RETURNED_SQLSTATE;
  RETURN st || '|' || msg || '|' || det || '|' || hnt;
END $$;
CREATE FUNCTION explain_text(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE) ' || query LOOP
    RETURN NEXT line;
  END LOOP;
END $$;
CREATE FUNCTION check_that(name text, ok boolean, got text) RETURNS void
LANGUAGE sql AS $$ INSERT INTO results VALUES (name, coalesce(ok, false), got) $$;
-- the rows of a table as one digest
CREATE FUNCTION digest(tbl regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text;
BEGIN
  EXECUTE format('SELECT count(*) || '':'' || md5(string_agg(t::text, E''\n'' ORDER BY t::text)) FROM %s t', tbl)
    INTO d;
  RETURN d;
END $$;

CREATE SERVER local_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE SERVER tls FOREIGN DATA WRAPPER parquet_fdw OPTIONS (ca_file :'ca');
CREATE SERVER tls_noca FOREIGN DATA WRAPPER parquet_fdw;
CREATE SERVER s3tls FOREIGN DATA WRAPPER parquet_fdw
  OPTIONS (endpoint :'url_base', ca_file :'ca');
CREATE USER MAPPING FOR CURRENT_USER SERVER s3tls
  OPTIONS (key_id 'AKIDHTTPSFDW', secret 'https-fdw-secret-7a1c');

\set cols '(id int, bool_col bool, tinyint_col int, smallint_col int, int_col int, bigint_col bigint, float_col real, double_col float8, date_string_col bytea, string_col bytea, timestamp_col timestamp)'
CREATE FOREIGN TABLE ap_local :cols SERVER local_srv OPTIONS (filename :'local');
\set u :url_base '/test/alltypes_plain.parquet'
CREATE FOREIGN TABLE ap_https :cols SERVER tls OPTIONS (filename :'u');
CREATE FOREIGN TABLE ap_noca :cols SERVER tls_noca OPTIONS (filename :'u');
CREATE FOREIGN TABLE ap_s3 :cols SERVER s3tls OPTIONS (filename 's3://test/alltypes_plain.parquet');
CREATE FOREIGN TABLE ap_denied :cols SERVER s3tls OPTIONS (filename 's3://denied/alltypes_plain.parquet');
CREATE FOREIGN TABLE ap_missing :cols SERVER s3tls OPTIONS (filename 's3://test/no-such.parquet');

-- the same rows as the local file, over https:// and s3:// with ca_file
SELECT check_that('https rows', digest('ap_https') = digest('ap_local'), digest('ap_https'));
SELECT check_that('s3 via https endpoint rows', digest('ap_s3') = digest('ap_local'), digest('ap_s3'));
SELECT check_that('local rows', digest('ap_local') LIKE '8:%', digest('ap_local'));

-- no CA: the TLS failure, and where to fix it
SELECT try('SELECT count(*) FROM ap_noca') AS r \gset noca_
SELECT check_that('no CA is 58030', :'noca_r' LIKE '58030|%', :'noca_r');
SELECT check_that('no CA hints ca_file', :'noca_r' LIKE '%ca_file%', :'noca_r');

-- a refused signed request: 42501, the mapping named, no secret anywhere
SELECT try('SELECT count(*) FROM ap_denied') AS r \gset denied_
SELECT check_that('403 is 42501', :'denied_r' LIKE '42501|%', :'denied_r');
SELECT check_that('403 hint names the mapping', :'denied_r' LIKE '%user mapping for server "s3tls"%', :'denied_r');
SELECT check_that('403 error holds no secret', :'denied_r' NOT LIKE '%https-fdw-secret%', :'denied_r');
SELECT check_that('403 error holds no signature', :'denied_r' NOT LIKE '%Signature=%', :'denied_r');
SELECT check_that('EXPLAIN holds no secret',
  (SELECT count(*) FILTER (WHERE t LIKE '%https-fdw-secret%') = 0 AND count(*) > 0
     FROM explain_text('SELECT * FROM ap_s3') t), NULL);

-- credentials inside a URL: refused, and not printed back
\set uu 'https://AKIDX:https-fdw-secret-userinfo@127.0.0.1:' :port '/test/alltypes_plain.parquet'
CREATE FOREIGN TABLE ap_userinfo (id int) SERVER tls OPTIONS (filename :'uu');
SELECT try('SELECT count(*) FROM ap_userinfo') AS r \gset userinfo_
SELECT check_that('userinfo refused', :'userinfo_r' LIKE '22023|%', :'userinfo_r');
SELECT check_that('userinfo not printed', :'userinfo_r' NOT LIKE '%https-fdw-secret%', :'userinfo_r');

-- a missing object
SELECT try('SELECT count(*) FROM ap_missing') AS r \gset missing_
SELECT check_that('404 is 58P01', :'missing_r' LIKE '58P01|%', :'missing_r');

-- who may make the server send requests
CREATE ROLE regress_https_plain;
CREATE ROLE regress_https_member;
GRANT parquet_fdw_remote_read TO regress_https_member;
GRANT USAGE ON FOREIGN SERVER tls TO regress_https_plain, regress_https_member;
GRANT SELECT ON ap_https TO regress_https_plain, regress_https_member;
SET ROLE regress_https_plain;
SELECT try('SELECT count(*) FROM ap_https') AS r \gset plain_
RESET ROLE;
SELECT check_that('no role: 42501', :'plain_r' LIKE '42501|%parquet_fdw_remote_read%', :'plain_r');
SET ROLE regress_https_member;
SELECT try('SELECT count(*) FROM ap_https') AS r \gset member_
RESET ROLE;
SELECT check_that('member reads', :'member_r' = 'ok', :'member_r');
-- the inspection functions too (no server: no ca_file, so a member
-- gets past the privilege to the TLS failure)
SET ROLE regress_https_plain;
SELECT try('SELECT * FROM parquet_metadata(''s3://b/k'')') AS r \gset plain_meta_
RESET ROLE;
SELECT check_that('no role: parquet_metadata 42501', :'plain_meta_r' LIKE '42501|%parquet_fdw_remote_read%', :'plain_meta_r');
SET ROLE regress_https_member;
SELECT try(format('SELECT * FROM parquet_metadata(%L)', :'u')) AS r \gset member_meta_
RESET ROLE;
SELECT check_that('member: parquet_metadata sends the request', :'member_meta_r' LIKE '58030|%', :'member_meta_r');

-- a link-local endpoint on a server a superuser does not own: refused
-- before any connection (a superuser's own server would be trusted)
CREATE SERVER ll FOREIGN DATA WRAPPER parquet_fdw OPTIONS (endpoint 'http://169.254.169.254:9');
ALTER SERVER ll OWNER TO regress_https_member;
CREATE FOREIGN TABLE ap_ll (id int) SERVER ll OPTIONS (filename 's3://b/k.parquet');
SELECT try('SELECT count(*) FROM ap_ll') AS r \gset ll_
SELECT check_that('link-local endpoint refused', :'ll_r' LIKE '42501|%link-local%', :'ll_r');

-- once uncaught, so that the server logs the error: no secret in the log
\set ON_ERROR_STOP 0
SELECT count(*) FROM ap_denied;
\set ON_ERROR_STOP 1

\o
SELECT 'FAILED ' || name || ': ' || coalesce(got, '') FROM results WHERE NOT ok;
SELECT format('https_fdw: %s passed, %s failed',
              count(*) FILTER (WHERE ok), count(*) FILTER (WHERE NOT ok))
  FROM results;

\o /dev/null
DROP SERVER ll CASCADE;
DROP OWNED BY regress_https_plain, regress_https_member;
DROP ROLE regress_https_plain;
DROP ROLE regress_https_member;
