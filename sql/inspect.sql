--
-- inspect: parquet_fdw_version, parquet_schema, parquet_metadata,
-- parquet_file_metadata, parquet_kv_metadata.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv corpus_root PARQUET_TESTING_DIR
\set corpus :corpus_root '/data'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;

SELECT version, compression <> '' AS has_compression,
       simd IN ('scalar', 'avx2', 'avx512') AS simd_ok
  FROM parquet_fdw_version();

-- schema trees: one row per node, with the default PostgreSQL type
\set f :corpus '/nullable.impala.parquet'
SELECT * FROM parquet_schema(:'f');
\set f :corpus '/fixed_length_decimal.parquet'
SELECT * FROM parquet_schema(:'f');
\set f :corpus '/int96_from_spark.parquet'
SELECT position, path, physical_type, logical_type, postgres_type FROM parquet_schema(:'f');
\set f :corpus '/float16_nonzeros_and_nans.parquet'
SELECT position, path, physical_type, type_length, logical_type, postgres_type FROM parquet_schema(:'f');
\set f :corpus '/list_columns.parquet'
SELECT position, path, repetition, logical_type, converted_type, max_def, max_rep, postgres_type
  FROM parquet_schema(:'f');
\set f :corpus '/repeated_primitive_no_list.parquet'
SELECT position, path, repetition, max_def, max_rep, postgres_type FROM parquet_schema(:'f');

-- column chunks and statistics, decoded per type
\set f :corpus '/alltypes_plain.parquet'
SELECT row_group, row_group_rows, column_id, path, physical_type, codec,
       encodings, num_values, compressed_size, uncompressed_size,
       data_page_offset, dictionary_page_offset, has_statistics
  FROM parquet_metadata(:'f');
\set f :corpus '/int32_decimal.parquet'
SELECT column_id, stats_min, stats_max, null_count, distinct_count, min_exact, max_exact
  FROM parquet_metadata(:'f');
\set f :corpus '/fixed_length_decimal.parquet'
SELECT column_id, stats_min, stats_max, null_count FROM parquet_metadata(:'f');
\set f :corpus '/float16_nonzeros_and_nans.parquet'
SELECT column_id, stats_min, stats_max, null_count FROM parquet_metadata(:'f');
\set f :corpus '/list_columns.parquet'
SELECT column_id, path, stats_min, stats_max, null_count FROM parquet_metadata(:'f');
\set f :corpus '/data_index_bloom_encoding_stats.parquet'
SELECT column_id, path, stats_min, stats_max,
       bloom_filter_offset IS NOT NULL AS has_bloom, bloom_filter_length,
       column_index_offset IS NOT NULL AS has_column_index,
       offset_index_offset IS NOT NULL AS has_offset_index
  FROM parquet_metadata(:'f');

-- file-level metadata (file name scrubbed)
\set f :corpus '/alltypes_plain.parquet'
SELECT regexp_replace(filename, '^.*/', '') AS file, version, num_rows,
       num_row_groups, num_columns, created_by, footer_size
  FROM parquet_file_metadata(:'f');
\set f :corpus '/nested_structs.rust.parquet'
SELECT regexp_replace(filename, '^.*/', '') AS file, version, num_rows,
       num_row_groups, num_columns, created_by
  FROM parquet_file_metadata(:'f');

-- key/value metadata
\set f :corpus '/int96_from_spark.parquet'
SELECT key, length(value) AS value_bytes, left(value_text, 40) AS value_text
  FROM parquet_kv_metadata(:'f');

-- privileges: superuser or pg_read_server_files
CREATE ROLE parquet_inspect_user;
SET ROLE parquet_inspect_user;
\set f :corpus '/int32_decimal.parquet'
SELECT count(*) FROM parquet_schema(:'f');
SELECT count(*) FROM parquet_metadata(:'f');
SELECT count(*) FROM parquet_file_metadata(:'f');
SELECT count(*) FROM parquet_kv_metadata(:'f');
SELECT version FROM parquet_fdw_version();
RESET ROLE;
GRANT pg_read_server_files TO parquet_inspect_user;
SET ROLE parquet_inspect_user;
SELECT count(*) FROM parquet_schema(:'f');
RESET ROLE;
DROP ROLE parquet_inspect_user;

-- a missing file, a file that is not Parquet (errors, paths scrubbed)
\set VERBOSITY sqlstate
\set f :corpus '/no_such_file.parquet'
SELECT * FROM parquet_schema(:'f');
\set f :corpus '/int32_decimal.parquet.expected.csv'
SELECT * FROM parquet_schema(:'f');
\set VERBOSITY default
