--
-- remote_options: settings and credentials for object-store URLs (no
-- network): the server and user-mapping options the validator accepts and
-- refuses, the role that may read URLs, and who sees a mapping's secrets.
--

-- errors as text: message, detail and hint (no secret may show up in them)
CREATE FUNCTION ro_try(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  msg text; det text; hnt text; st text;
BEGIN
  EXECUTE query;
  RETURN NEXT 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL,
                          hnt = PG_EXCEPTION_HINT, st = RETURNED_SQLSTATE;
  RETURN NEXT st || ' ERROR: ' || msg;
  IF det <> '' THEN RETURN NEXT 'DETAIL: ' || det; END IF;
  IF hnt <> '' THEN RETURN NEXT 'HINT: ' || hnt; END IF;
END $$;

-- ===== the role: created by the extension, cannot log in
SELECT rolname, rolcanlogin, rolsuper, rolinherit
  FROM pg_roles WHERE rolname = 'parquet_fdw_remote_read';
SELECT pg_catalog.shobj_description(oid, 'pg_authid') IS NOT NULL AS has_comment
  FROM pg_roles WHERE rolname = 'parquet_fdw_remote_read';

-- ===== server options
CREATE SERVER ro_s3 FOREIGN DATA WRAPPER parquet_fdw
  OPTIONS (endpoint 'http://127.0.0.1:9000', region 'eu-central-1', url_style 'path',
           verify_tls 'true', ca_file '/etc/ssl/certs/ca-certificates.crt');
SELECT srvoptions FROM pg_foreign_server WHERE srvname = 'ro_s3';
ALTER SERVER ro_s3 OPTIONS (SET url_style 'vhost', SET endpoint 'minio.example:9000',
                           ADD use_ssl 'off');
SELECT srvoptions FROM pg_foreign_server WHERE srvname = 'ro_s3';
-- an unknown option lists the valid ones; a typo gets the closest
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (bucket 'b')$$);
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (endpont 'h')$$);
-- credentials go into user mappings, not the server
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (secret 'x')$$);
-- bad values
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw
                OPTIONS (endpoint 'http://AKIAEXAMPLE:hunter2@minio:9000')$$);
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (endpoint 'ftp://h')$$);
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (endpoint 'h:9000/?x=1')$$);
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (endpoint 'http://')$$);
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (url_style 'virtual')$$);
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (use_ssl 'maybe')$$);
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (verify_tls 'sometimes')$$);
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (region '')$$);
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (ca_file 'ca.pem')$$);
SELECT ro_try($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw
                OPTIONS (endpoint 'https://r2.example', use_ssl 'false')$$);
-- the check across options holds after ALTER too
SELECT ro_try($$ALTER SERVER ro_s3 OPTIONS (SET endpoint 'https://minio.example:9000')$$);

-- ===== user-mapping options
CREATE USER MAPPING FOR CURRENT_USER SERVER ro_s3
  OPTIONS (key_id 'AKIAREGRESS', secret 'regress-secret-1', session_token 'tok');
SELECT ro_try($$CREATE USER MAPPING FOR PUBLIC SERVER ro_s3 OPTIONS (user 'x')$$);
SELECT ro_try($$CREATE USER MAPPING FOR PUBLIC SERVER ro_s3 OPTIONS (secrt 'regress-secret-2')$$);
SELECT ro_try($$CREATE USER MAPPING FOR PUBLIC SERVER ro_s3 OPTIONS (key_id 'AKIAREGRESS')$$);
SELECT ro_try($$CREATE USER MAPPING FOR PUBLIC SERVER ro_s3 OPTIONS (secret 'regress-secret-3')$$);
SELECT ro_try($$CREATE USER MAPPING FOR PUBLIC SERVER ro_s3 OPTIONS (session_token 'regress-secret-4')$$);
SELECT ro_try($$CREATE USER MAPPING FOR PUBLIC SERVER ro_s3 OPTIONS (key_id 'K', secret '')$$);
SELECT ro_try($$CREATE USER MAPPING FOR PUBLIC SERVER ro_s3
                OPTIONS (connection_string 'regress-secret-5')$$);
SELECT ro_try($$CREATE USER MAPPING FOR PUBLIC SERVER ro_s3
                OPTIONS (connection_string 'AccountName=a;AccountKey=regress-secret-6', account_key 'x')$$);
SELECT ro_try($$CREATE USER MAPPING FOR PUBLIC SERVER ro_s3
                OPTIONS (account_key 'regress-secret-7', sas_token 'sv=1&sig=regress-secret-8')$$);
-- Azure forms that are fine
CREATE SERVER ro_az FOREIGN DATA WRAPPER parquet_fdw;
CREATE USER MAPPING FOR CURRENT_USER SERVER ro_az
  OPTIONS (connection_string 'DefaultEndpointsProtocol=http;AccountName=devacct;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:10000/devacct');
CREATE USER MAPPING FOR PUBLIC SERVER ro_az OPTIONS (account_name 'devacct', sas_token 'sv=1&sig=x');
ALTER USER MAPPING FOR PUBLIC SERVER ro_az OPTIONS (DROP sas_token, ADD account_key 'a2V5');
-- the pair rule holds after ALTER too
SELECT ro_try($$ALTER USER MAPPING FOR CURRENT_USER SERVER ro_s3 OPTIONS (DROP secret)$$);

-- ===== who may set what, who sees the secrets
CREATE ROLE regress_ro_owner;
CREATE ROLE regress_ro_other;
GRANT USAGE ON FOREIGN DATA WRAPPER parquet_fdw TO regress_ro_owner;
SET ROLE regress_ro_owner;
CREATE SERVER ro_own FOREIGN DATA WRAPPER parquet_fdw OPTIONS (endpoint '127.0.0.1:9000');
-- ca_file makes the server read a file: not for this role
SELECT ro_try($$ALTER SERVER ro_own OPTIONS (ADD ca_file '/etc/ssl/certs/ca-certificates.crt')$$);
CREATE USER MAPPING FOR regress_ro_owner SERVER ro_own
  OPTIONS (key_id 'AKIAOWNER', secret 'regress-secret-owner');
-- the mapping's own user sees its options
SELECT srvname, usename, umoptions FROM pg_user_mappings WHERE srvname = 'ro_own';
RESET ROLE;
-- another role sees the mapping exists, not what it holds
GRANT USAGE ON FOREIGN SERVER ro_own TO regress_ro_other;
SET ROLE regress_ro_other;
SELECT srvname, usename = 'regress_ro_owner' AS owners, umoptions
  FROM pg_user_mappings WHERE srvname IN ('ro_own', 'ro_s3') ORDER BY srvname;
SELECT ro_try($$SELECT umoptions FROM pg_user_mapping$$);
RESET ROLE;
-- the superuser sees them all
SELECT srvname, usename, umoptions FROM pg_user_mappings WHERE srvname = 'ro_own';

-- no text above may hold a secret: every error went through ro_try
SELECT count(*) AS errors_with_a_secret
  FROM (SELECT ro_try(q) AS line FROM (VALUES
          ($$CREATE SERVER ro_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (endpoint 'http://AKIAEXAMPLE:hunter2@minio:9000')$$),
          ($$CREATE USER MAPPING FOR PUBLIC SERVER ro_s3 OPTIONS (connection_string 'regress-secret-5')$$),
          ($$CREATE USER MAPPING FOR PUBLIC SERVER ro_s3 OPTIONS (secrt 'regress-secret-2')$$),
          ($$CREATE USER MAPPING FOR PUBLIC SERVER ro_s3 OPTIONS (account_key 'regress-secret-7', sas_token 'sv=1&sig=regress-secret-8')$$)
        ) v(q)) t
 WHERE line LIKE '%hunter2%' OR line LIKE '%regress-secret%';

DROP SERVER ro_own CASCADE;
REVOKE USAGE ON FOREIGN DATA WRAPPER parquet_fdw FROM regress_ro_owner;
DROP ROLE regress_ro_owner;
DROP ROLE regress_ro_other;
DROP SERVER ro_s3 CASCADE;
DROP SERVER ro_az CASCADE;
DROP FUNCTION ro_try(text);
