--
-- casts: one matrix of declared types read from a Parquet file and from an
-- Amudai shard written from the same rows, each compared with a heap table
-- whose values PostgreSQL itself cast: INSERT INTO heap SELECT the same
-- columns from the Parquet file's default types (an assignment, as the
-- foreign tables' declared typmods and domains are enforced).
--
-- test/data/scan/rowgroups.parquet: 20480 rows, id = 1..20480 (bigint); grp =
-- (id - 1) / 2048 (int); n = id except NULL for grp 3 (int); d = date;
-- ts = 2024-01-01 + (id - 1) minutes (timestamp); f = id / 4.0 (float8);
-- s = 's' || lpad(id, 5, '0') (text).  The shard maps d and ts to
-- DateTime, timestamptz by default, so the same declared types are reached
-- from other default types there.  list_columns.parquet (corpus): three
-- rows of int64 and string lists, with NULL elements and a NULL list.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
\getenv corpus_root PARQUET_TESTING_DIR
\set lists :corpus_root '/data/list_columns.parquet'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;
SET client_min_messages = warning;
SELECT current_setting('data_directory') || '/pf_casts_rg.amudai.shard' AS rg_shard,
       current_setting('data_directory') || '/pf_casts_lists.amudai.shard' AS lists_shard
\gset

CREATE SERVER casts_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE rg_src (id bigint, grp int, n int, d date, ts timestamp,
                             f float8, s text)
  SERVER casts_srv OPTIONS (filename :'rg');
CREATE FOREIGN TABLE lists_src (int64_list bigint[], utf8_list text[])
  SERVER casts_srv OPTIONS (filename :'lists');
SELECT parquet_fdw_write_amudai('SELECT * FROM rg_src', :'rg_shard', 2048);
SELECT parquet_fdw_write_amudai('SELECT * FROM lists_src', :'lists_shard');

-- SQLSTATE and message of a statement's error (paths cut to file names)
CREATE FUNCTION error_of(query text, with_context bool DEFAULT false)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  st text;
  msg text;
  ctx text;
BEGIN
  EXECUTE query;
  RETURN NULL;
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                          ctx = PG_EXCEPTION_CONTEXT;
  IF with_context THEN
    msg := msg || E'\n' || regexp_replace(
      regexp_replace(ctx, E'\nPL/pgSQL function.*$', ''), '"/[^"]*/', '"', 'g');
  END IF;
  RETURN st || ': ' || msg;
END $$;

-- One case: foreign tables name_pq (Parquet) and name_am (shard) with the
-- columns cols; heap table name_heap LIKE them, filled by INSERT ... SELECT
-- of the same column names from src.  Each outcome is "N rows, D
-- differences" (EXCEPT ALL both ways against the heap) or the error.
CREATE FUNCTION cast_case(name text, cols text, src regclass, parquet text,
                          shard text,
                          OUT heap text, OUT parquet_table text,
                          OUT amudai_table text)
LANGUAGE plpgsql AS $$
DECLARE
  heap_name text := name || '_heap';
  collist text;
  e text;
  ft text;
  res text;
BEGIN
  EXECUTE format('CREATE FOREIGN TABLE %I (%s) SERVER casts_srv OPTIONS (filename %L)',
                 name || '_pq', cols, parquet);
  EXECUTE format('CREATE FOREIGN TABLE %I (%s) SERVER casts_srv OPTIONS (filename %L)',
                 name || '_am', cols, shard);
  EXECUTE format('CREATE TABLE %I (LIKE %I)', heap_name, name || '_pq');
  SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO collist
    FROM pg_attribute WHERE attrelid = heap_name::regclass AND attnum > 0;
  e := error_of(format('INSERT INTO %I SELECT %s FROM %s', heap_name, collist, src));
  IF e IS NULL THEN
    EXECUTE format('SELECT count(*) || '' rows'' FROM %I', heap_name) INTO heap;
  ELSE
    heap := e;
  END IF;
  FOREACH ft IN ARRAY ARRAY[name || '_pq', name || '_am'] LOOP
    BEGIN
      EXECUTE format($q$SELECT count(*) || ' rows, ' ||
          (SELECT count(*) FROM ((TABLE %1$I EXCEPT ALL TABLE %2$I)
                                 UNION ALL (TABLE %2$I EXCEPT ALL TABLE %1$I)) x)
          || ' differences' FROM %1$I$q$, ft, heap_name) INTO res;
    EXCEPTION WHEN OTHERS THEN
      GET STACKED DIAGNOSTICS res = MESSAGE_TEXT, e = RETURNED_SQLSTATE;
      res := e || ': ' || res;
    END;
    IF ft LIKE '%_pq' THEN parquet_table := res; ELSE amudai_table := res; END IF;
  END LOOP;
END $$;

CREATE DOMAIN grp_ok AS int CHECK (VALUE < 10);
CREATE DOMAIN grp_small AS int CHECK (VALUE < 5);
CREATE DOMAIN n_required AS int NOT NULL;
CREATE DOMAIN s_code AS text CHECK (VALUE ~ '^s[0-9]{5}$');
CREATE DOMAIN s_not_42 AS varchar(6) CHECK (VALUE <> 's00042');
CREATE DOMAIN jan_day AS date CHECK (VALUE >= '2024-01-01');
CREATE DOMAIN early_day AS date CHECK (VALUE < '2024-01-10');
CREATE DOMAIN quarter AS numeric(8,2) CHECK (VALUE > 0);
CREATE DOMAIN elem_ok AS int CHECK (VALUE < 10);
CREATE DOMAIN elem_small AS int CHECK (VALUE < 4);
CREATE DOMAIN elem_word AS text CHECK (VALUE ~ '^[a-z]+$');

-- passing: every value of every column equals PostgreSQL's cast
\x on
SELECT * FROM cast_case('widen', 'id numeric, grp bigint, n numeric(7,2), f real',
                        'rg_src', :'rg', :'rg_shard');
SELECT * FROM cast_case('temporal', 'id bigint, d timestamp, ts date, f numeric(8,1)',
                        'rg_src', :'rg', :'rg_shard');
SELECT * FROM cast_case('tz', 'd timestamptz, ts timestamp(0), id int',
                        'rg_src', :'rg', :'rg_shard');
SELECT * FROM cast_case('strings', 's varchar(6), id text, f numeric',
                        'rg_src', :'rg', :'rg_shard');
-- float8 to smallint rounds half to even (0.5 -> 0, 2.5 -> 2)
SELECT * FROM cast_case('rounded', 'id bigint, f smallint', 'rg_src', :'rg', :'rg_shard');
-- the shard's DateTime (a UTC instant) read as timestamp or date is its UTC
-- wall clock, whatever the session's TimeZone: the naive timestamps it was
-- written from come back
SET timezone = 'America/New_York';
SELECT * FROM cast_case('temporal_ny', 'id bigint, d timestamp, ts date',
                        'rg_src', :'rg', :'rg_shard');
SET timezone = 'Asia/Tokyo';
SELECT * FROM cast_case('temporal_tokyo', 'id bigint, d date, ts timestamp(0)',
                        'rg_src', :'rg', :'rg_shard');
SET timezone = 'UTC';
SELECT * FROM cast_case('padded', 'id bigint, s char(8), grp text',
                        'rg_src', :'rg', :'rg_shard');
SELECT * FROM cast_case('domains', 'grp grp_ok, s s_code, ts jan_day, f quarter',
                        'rg_src', :'rg', :'rg_shard');
SELECT * FROM cast_case('arrays', 'int64_list int[], utf8_list varchar(3)[]',
                        'lists_src', :'lists', :'lists_shard');
SELECT * FROM cast_case('arrays2', 'int64_list numeric[], utf8_list char(4)[]',
                        'lists_src', :'lists', :'lists_shard');
SELECT * FROM cast_case('domain_arrays', 'int64_list elem_ok[], utf8_list elem_word[]',
                        'lists_src', :'lists', :'lists_shard');

-- failing: the same error as the INSERT, from both formats
SELECT * FROM cast_case('bad_domain', 'grp grp_small', 'rg_src', :'rg', :'rg_shard');
SELECT * FROM cast_case('bad_not_null', 'n n_required', 'rg_src', :'rg', :'rg_shard');
SELECT * FROM cast_case('bad_text_domain', 's s_not_42', 'rg_src', :'rg', :'rg_shard');
SELECT * FROM cast_case('bad_date_domain', 'ts early_day', 'rg_src', :'rg', :'rg_shard');
SELECT * FROM cast_case('bad_varchar', 's varchar(5)', 'rg_src', :'rg', :'rg_shard');
SELECT * FROM cast_case('bad_char', 's char(3)', 'rg_src', :'rg', :'rg_shard');
SELECT * FROM cast_case('bad_numeric', 'f numeric(3,1)', 'rg_src', :'rg', :'rg_shard');
SELECT * FROM cast_case('bad_elem_domain', 'int64_list elem_small[]',
                        'lists_src', :'lists', :'lists_shard');
SELECT * FROM cast_case('bad_elem_varchar', 'utf8_list varchar(2)[]',
                        'lists_src', :'lists', :'lists_shard');
\x off

-- a few of the values themselves: numeric rounds half away from zero,
-- smallint half to even; the timestamp's date; the shard's DateTime (from a
-- date) as a timestamp; char(8) pads
SELECT r.id, r.f, w.f AS f_real, t.f AS f_numeric_8_1, o.f AS f_int2, t.ts,
       t.d, p.s || '|' AS s_char_8
  FROM rg_src r JOIN widen_pq w USING (id) JOIN temporal_am t USING (id)
  JOIN padded_am p USING (id) JOIN rounded_pq o USING (id)
 WHERE r.id IN (1, 2, 3, 4, 6, 10, 1440, 1441) ORDER BY r.id;
SELECT * FROM arrays_am;
SELECT * FROM arrays2_pq;

-- the failing row is named: file (or shard and stripe), row and column
SELECT error_of('SELECT * FROM bad_domain_pq', true);
SELECT error_of('SELECT * FROM bad_domain_am', true);
SELECT error_of('SELECT * FROM bad_text_domain_pq', true);
SELECT error_of('SELECT * FROM bad_text_domain_am', true);
-- an array element: the row holding it (Parquet), its element position
-- in the stripe (shard): 4 is the sixth element, in the third list
SELECT error_of('SELECT * FROM bad_elem_domain_pq', true);
SELECT error_of('SELECT * FROM bad_elem_domain_am', true);

-- a declared type without a cast from the default type
CREATE FOREIGN TABLE nocast_pq (ts uuid) SERVER casts_srv OPTIONS (filename :'rg');
CREATE FOREIGN TABLE nocast_am (ts uuid) SERVER casts_srv OPTIONS (filename :'rg_shard');
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT * FROM nocast_pq;
SELECT * FROM nocast_am;
\set SHOW_CONTEXT errors

DROP SERVER casts_srv CASCADE;
DROP FUNCTION cast_case;
DROP FUNCTION error_of;
DROP TABLE widen_heap, temporal_heap, tz_heap, strings_heap, padded_heap,
  domains_heap, arrays_heap, arrays2_heap, domain_arrays_heap, bad_domain_heap,
  bad_not_null_heap, bad_text_domain_heap, bad_date_domain_heap,
  bad_varchar_heap, bad_char_heap, bad_numeric_heap, bad_elem_domain_heap,
  bad_elem_varchar_heap, rounded_heap, temporal_ny_heap, temporal_tokyo_heap;
DROP DOMAIN grp_ok, grp_small, n_required, s_code, s_not_42, jan_day,
  early_day, quarter, elem_ok, elem_small, elem_word;
