\set VERBOSITY default
SET datestyle = ISO;
SET timezone = UTC;
SET client_min_messages = warning;
CREATE OR REPLACE FUNCTION t(c text, typ regtype, tm int DEFAULT -1) RETURNS text LANGUAGE sql AS $$ SELECT string_agg(coalesce(v, 'NULL'), ' | ') FROM pf_convert_test(c, typ, tm) v $$;
SELECT t('int32_opt','int4');
SELECT t('int32_opt','int8');
SELECT t('int32_opt','text');
SELECT t('int32_opt','numeric', ((5<<16)|1)+4);
SELECT t('int8_u','int2'), t('int16_s','int2'), t('int16_u','int4'), t('int32_u','int8');
SELECT t('uint64','numeric');
SELECT t('dec_int32','numeric', ((5<<16)|2)+4), t('dec_int64','numeric');
SELECT t('dec_flba','numeric');
SELECT t('dec_flba','numeric', ((25<<16)|1)+4);
SELECT t('dec_bytes','numeric');
SELECT t('text','text');
SELECT t('text','varchar', 7);
SELECT t('text','varchar', 10);
SELECT t('bytea','bytea');
SELECT t('bytea','text');
SELECT t('bytea','jsonb');
SELECT t('bytea','varchar', 6);
SELECT t('json','jsonb');
SELECT t('json','json');
SELECT t('json','text');
SELECT t('bad_utf8','text');
SELECT t('date','date');
SELECT t('bad_date','date');
SELECT t('ts_ms','timestamp'), t('ts_us','timestamp');
SELECT t('ts_ns','timestamp');
SELECT t('ts_ns_utc','timestamptz');
SELECT t('ts_ns_utc','timestamp');
-- a UTC-adjusted timestamp declared timestamp or date reads in UTC whatever
-- the session's TimeZone (the cast layer's direct path)
SET timezone = 'America/New_York';
SELECT t('ts_ns_utc','timestamp');
SELECT t('ts_ns_utc','date');
SET timezone = UTC;
SELECT t('time_ms','time'), t('time_ms_utc','timetz');
SELECT t('time_us_utc','timetz');
SELECT t('time_ns','time');
SELECT t('int96','timestamp');
SELECT t('float16','float4');
-- the cast layer's direct widenings and timestamp to date, next to the
-- default types above
SELECT t('int16_s','int4'), t('int16_s','int8'), t('int8_u','int4');
SELECT t('float16','float8');
SELECT t('ts_ms','date'), t('ts_us','date');
SELECT t('uuid','uuid'), t('interval','interval'), t('flba','bytea');
SELECT t('list3','int4[]');
SELECT t('list3','int8[]');
SELECT t('list3','text');
SELECT t('list3','jsonb');
SELECT t('list3_text','text[]');
SELECT t('list3_text','varchar[]', 6);
SELECT t('list2','int4[]');
SELECT t('list_array','jsonb');
SELECT t('map','jsonb');
SELECT t('struct','jsonb');
SELECT t('struct','json');
SELECT t('nested_list','jsonb');
SELECT t('int32_opt','date');
SELECT t('list3','int4');
CREATE TYPE st AS (a int8, b varchar(1), c float8);
SELECT t('struct','st');
CREATE TYPE st2 AS (b text, zz int);
SELECT t('struct','st2');
DROP TYPE st;
DROP TYPE st2;
-- DECIMAL in INT32, INT64 and BYTE_ARRAY at scales 0..18: every numeric the
-- converter builds is byte for byte the one PostgreSQL's int64 conversion
-- makes (4096 values per case)
SELECT count(*) AS values, count(*) FILTER (WHERE v <> 'ok') AS mismatches,
       min(v) FILTER (WHERE v <> 'ok') AS first_mismatch
  FROM unnest(ARRAY['32', '64', 'ba']) k, generate_series(0, 18) s,
       pf_convert_test('dec_sweep_' || k || '_' || s, 'numeric', -1) v;
