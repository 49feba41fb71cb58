--
-- types: default type mapping and conversion of flat columns, casts to
-- declared types.  Values are checked against the corpus' expected CSVs.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv corpus_root PARQUET_TESTING_DIR
\set corpus :corpus_root '/data'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;

CREATE SERVER types_srv FOREIGN DATA WRAPPER parquet_fdw;

-- DECIMAL in INT32, INT64, FIXED_LEN_BYTE_ARRAY(11) and BYTE_ARRAY
\set f :corpus '/int32_decimal.parquet'
CREATE FOREIGN TABLE int32_decimal (value numeric(4,2))
  SERVER types_srv OPTIONS (filename :'f');
\set f :corpus '/int64_decimal.parquet'
CREATE FOREIGN TABLE int64_decimal (value numeric(10,2))
  SERVER types_srv OPTIONS (filename :'f');
\set f :corpus '/fixed_length_decimal.parquet'
CREATE FOREIGN TABLE fixed_length_decimal (value numeric(25,2))
  SERVER types_srv OPTIONS (filename :'f');
\set f :corpus '/byte_array_decimal.parquet'
CREATE FOREIGN TABLE byte_array_decimal (value numeric(4,2))
  SERVER types_srv OPTIONS (filename :'f');
SELECT a.value AS int32, b.value AS int64, c.value AS flba, d.value AS bytes
  FROM (SELECT row_number() OVER () AS n, value FROM int32_decimal) a
  JOIN (SELECT row_number() OVER () AS n, value FROM int64_decimal) b USING (n)
  JOIN (SELECT row_number() OVER () AS n, value FROM fixed_length_decimal) c USING (n)
  JOIN (SELECT row_number() OVER () AS n, value FROM byte_array_decimal) d USING (n)
 ORDER BY n;
SELECT sum(value), pg_typeof(sum(value)) FROM fixed_length_decimal;

-- declared numeric with another typmod: rounded as PostgreSQL does
\set f :corpus '/int64_decimal.parquet'
CREATE FOREIGN TABLE int64_decimal_1 (value numeric(10,1))
  SERVER types_srv OPTIONS (filename :'f');
SELECT value FROM int64_decimal_1 LIMIT 3;
-- too small a precision: numeric overflow
CREATE FOREIGN TABLE int64_decimal_2 (value numeric(2,1))
  SERVER types_srv OPTIONS (filename :'f');
\set VERBOSITY terse
SELECT value FROM int64_decimal_2;  -- ERROR
\set VERBOSITY default
-- decimal as float8 and as text (casts from numeric)
CREATE FOREIGN TABLE int64_decimal_3 (value float8)
  SERVER types_srv OPTIONS (filename :'f');
SELECT value FROM int64_decimal_3 LIMIT 2;
CREATE FOREIGN TABLE int64_decimal_4 (value text)
  SERVER types_srv OPTIONS (filename :'f');
SELECT value FROM int64_decimal_4 LIMIT 2;

-- INT96 timestamps (Spark), one null, one far in the future (year 290000,
-- stored as an overflowed nanosecond count that Spark's wrapping arithmetic
-- maps back; DuckDB's CSV is wrong there, see MANIFEST)
\set f :corpus '/int96_from_spark.parquet'
CREATE FOREIGN TABLE int96_from_spark (a timestamp)
  SERVER types_srv OPTIONS (filename :'f');
SELECT a FROM int96_from_spark;
CREATE FOREIGN TABLE int96_from_spark_tz (a timestamptz)
  SERVER types_srv OPTIONS (filename :'f');
SELECT a FROM int96_from_spark_tz LIMIT 2;

-- FLOAT16 to real: NaN, signed zeros, a null
\set f :corpus '/float16_nonzeros_and_nans.parquet'
CREATE FOREIGN TABLE float16 (x real)
  SERVER types_srv OPTIONS (filename :'f');
SELECT x, x::text AS text FROM float16;

-- all plain types, unannotated BYTE_ARRAY as bytea and as text
\set f :corpus '/alltypes_plain.parquet'
CREATE FOREIGN TABLE alltypes_plain (
    id int, bool_col boolean, tinyint_col int, smallint_col int, int_col int,
    bigint_col bigint, float_col real, double_col double precision,
    date_string_col bytea, string_col text, timestamp_col timestamp)
  SERVER types_srv OPTIONS (filename :'f');
SELECT * FROM alltypes_plain;

-- casts to declared types: int4 as int8, numeric, text; text as varchar(n)
CREATE FOREIGN TABLE alltypes_cast (
    id bigint, bool_col int, int_col numeric(5,1), string_col varchar(1),
    timestamp_col date)
  SERVER types_srv OPTIONS (filename :'f');
SELECT id, pg_typeof(id), bool_col, int_col, string_col, timestamp_col
  FROM alltypes_cast;
CREATE FOREIGN TABLE alltypes_short (date_string_col varchar(3))
  SERVER types_srv OPTIONS (filename :'f');
\set VERBOSITY terse
SELECT * FROM alltypes_short;  -- ERROR
\set VERBOSITY default
-- no cast from the default type: an error naming column and types
CREATE FOREIGN TABLE alltypes_bad (int_col date)
  SERVER types_srv OPTIONS (filename :'f');
\set VERBOSITY terse
SELECT * FROM alltypes_bad;  -- ERROR
\set VERBOSITY default
CREATE FOREIGN TABLE alltypes_bad2 (timestamp_col uuid)
  SERVER types_srv OPTIONS (filename :'f');
\set VERBOSITY terse
SELECT * FROM alltypes_bad2;  -- ERROR
\set VERBOSITY default

-- unannotated FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY: bytea
\set f :corpus '/fixed_length_byte_array.parquet'
CREATE FOREIGN TABLE flba (flba_field bytea)
  SERVER types_srv OPTIONS (filename :'f');
SELECT flba_field, count(*) FROM flba GROUP BY 1 ORDER BY 1 LIMIT 5;
\set f :corpus '/binary.parquet'
CREATE FOREIGN TABLE binary_t (foo bytea)
  SERVER types_srv OPTIONS (filename :'f');
SELECT foo FROM binary_t LIMIT 4;

-- an unknown logical type reads as its physical type (bytea); STRING as text
\set f :corpus '/unknown-logical-type.parquet'
CREATE FOREIGN TABLE unknown_logical (
    "column with known type" text, "column with unknown type" bytea)
  SERVER types_srv OPTIONS (filename :'f');
SELECT * FROM unknown_logical;

-- domains are checked
CREATE DOMAIN small_id AS int CHECK (VALUE < 5);
\set f :corpus '/alltypes_plain.parquet'
CREATE FOREIGN TABLE alltypes_domain (id small_id)
  SERVER types_srv OPTIONS (filename :'f');
\set VERBOSITY terse
SELECT * FROM alltypes_domain;  -- ERROR
\set VERBOSITY default

-- a value PostgreSQL cannot hold is an error naming the column and the row
-- (test/data/range/make_range.mjs: d of id 4321, row 225 of row group 2, is a
-- date past 5874897 AD; the other rows and columns are fine)
\set f :abs_srcdir '/test/data/range/out_of_range.parquet'
CREATE FOREIGN TABLE out_of_range (id bigint, d date, ok date)
  SERVER types_srv OPTIONS (filename :'f');
CREATE FUNCTION range_error(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  st text; msg text; det text; ctx text;
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
    det = PG_EXCEPTION_DETAIL, ctx = PG_EXCEPTION_CONTEXT;
  RETURN st || ': ' || msg || E'\n' || det || E'\n' ||
    regexp_replace(split_part(ctx, E'\n', 2), '"/[^"]*/', '"', 'g');
END $$;
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT range_error('SELECT * FROM out_of_range');
SELECT range_error('SELECT id FROM out_of_range WHERE d > ''2020-03-01''');
-- rows that do not need the column, and the other columns, read fine
SELECT count(*), count(ok), min(ok), max(ok) FROM out_of_range;
SELECT id, ok FROM out_of_range WHERE id BETWEEN 4320 AND 4322 ORDER BY id;
-- pushed-down aggregates: the statistics or the values name the column
RESET parquet_fdw.enable_aggregate_pushdown;
SELECT range_error('SELECT max(d) FROM out_of_range');
SELECT range_error('SELECT d, count(*) FROM out_of_range GROUP BY d');
DROP FUNCTION range_error(text);

DROP SERVER types_srv CASCADE;
DROP DOMAIN small_id;
