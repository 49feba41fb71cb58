--
-- nested: LIST of scalars as arrays (3-level, 2-level and unannotated
-- repeated fields; null lists, empty lists and null elements), MAP, STRUCT
-- and deeper nesting as jsonb, structs as composite types.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv corpus_root PARQUET_TESTING_DIR
\set corpus :corpus_root '/data'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;

CREATE SERVER nested_srv FOREIGN DATA WRAPPER parquet_fdw;

-- LIST<INT64>, LIST<STRING> with null elements and a null list
\set f :corpus '/list_columns.parquet'
CREATE FOREIGN TABLE list_columns (int64_list bigint[], utf8_list text[])
  SERVER nested_srv OPTIONS (filename :'f');
SELECT int64_list, utf8_list, cardinality(utf8_list) FROM list_columns;
-- element casts: bigint[] as numeric[], text[] as varchar(3)[]
CREATE FOREIGN TABLE list_columns_cast (int64_list numeric[], utf8_list varchar(3)[])
  SERVER nested_srv OPTIONS (filename :'f');
SELECT * FROM list_columns_cast;
-- a list as jsonb, and as text (cast of the array)
CREATE FOREIGN TABLE list_columns_json (int64_list jsonb, utf8_list text)
  SERVER nested_srv OPTIONS (filename :'f');
SELECT * FROM list_columns_json;
-- no cast from an array to a scalar
CREATE FOREIGN TABLE list_columns_bad (int64_list bigint)
  SERVER nested_srv OPTIONS (filename :'f');
\set VERBOSITY terse
SELECT * FROM list_columns_bad;  -- ERROR
\set VERBOSITY default

-- one row with an empty list of UNKNOWN (null-typed) elements
\set f :corpus '/null_list.parquet'
CREATE FOREIGN TABLE null_list (emptylist text[])
  SERVER nested_srv OPTIONS (filename :'f');
SELECT emptylist, emptylist IS NULL AS is_null, cardinality(emptylist) FROM null_list;

-- repeated fields without LIST annotation, at top level and in a group
\set f :corpus '/repeated_primitive_no_list.parquet'
CREATE FOREIGN TABLE repeated_no_list (
    "Int32_list" int[], "String_list" text[], group_of_lists jsonb)
  SERVER nested_srv OPTIONS (filename :'f');
SELECT * FROM repeated_no_list;

-- lists of lists of lists
\set f :corpus '/nested_lists.snappy.parquet'
CREATE FOREIGN TABLE nested_lists (a jsonb, b int)
  SERVER nested_srv OPTIONS (filename :'f');
SELECT * FROM nested_lists;

-- MAP<STRING, MAP<INT32, BOOLEAN>>, with null and empty inner maps
\set f :corpus '/nested_maps.snappy.parquet'
CREATE FOREIGN TABLE nested_maps (a jsonb, b int, c float8)
  SERVER nested_srv OPTIONS (filename :'f');
SELECT * FROM nested_maps;

-- Impala-style nesting: arrays of arrays, maps, arrays of maps, structs
-- holding lists of lists of structs and maps of structs
\set f :corpus '/nullable.impala.parquet'
CREATE FOREIGN TABLE nullable_impala (
    id bigint, int_array int[], "int_array_Array" jsonb, int_map jsonb,
    "int_Map_Array" jsonb, nested_struct jsonb)
  SERVER nested_srv OPTIONS (filename :'f');
SELECT id, int_array, "int_array_Array", int_map, "int_Map_Array" FROM nullable_impala;
SELECT id, nested_struct FROM nullable_impala;

-- a struct with a null field
\set f :corpus '/nulls.snappy.parquet'
CREATE FOREIGN TABLE nulls_struct (b_struct jsonb)
  SERVER nested_srv OPTIONS (filename :'f');
SELECT b_struct, count(*) FROM nulls_struct GROUP BY 1;

-- structs as composite types
CREATE TYPE b_struct_t AS (b_c_int int);
CREATE FOREIGN TABLE nulls_composite (b_struct b_struct_t)
  SERVER nested_srv OPTIONS (filename :'f');
SELECT b_struct, (b_struct).b_c_int IS NULL AS field_null, count(*)
  FROM nulls_composite GROUP BY 1, 2;
\set f :corpus '/nested_structs.rust.parquet'
CREATE TYPE stats_t AS (min bigint, max bigint, mean bigint, count numeric, sum bigint, variance bigint);
CREATE FOREIGN TABLE nested_structs ("roll_num" stats_t, "PC_CUR" jsonb)
  SERVER nested_srv OPTIONS (filename :'f');
SELECT * FROM nested_structs;

DROP SERVER nested_srv CASCADE;
DROP TYPE b_struct_t;
DROP TYPE stats_t;
