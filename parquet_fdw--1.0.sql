/* parquet_fdw--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION parquet_fdw" to load this file. \quit

-- inspection functions
-- (superuser or pg_read_server_files, checked in C, for the ones reading files)

CREATE FUNCTION parquet_fdw_version()
RETURNS TABLE (version text, compression text, simd text)
AS 'MODULE_PATHNAME', 'parquet_fdw_version'
LANGUAGE C STRICT VOLATILE;

CREATE FUNCTION parquet_schema(filename text)
RETURNS TABLE ("position" int, path text, name text, repetition text,
               physical_type text, type_length int, logical_type text,
               converted_type text, max_def int, max_rep int, field_id int,
               num_children int, postgres_type text)
AS 'MODULE_PATHNAME', 'parquet_schema'
LANGUAGE C STRICT VOLATILE;

CREATE FUNCTION parquet_metadata(filename text)
RETURNS TABLE (row_group int, row_group_rows bigint, column_id int, path text,
               physical_type text, codec text, encodings text[],
               num_values bigint, compressed_size bigint,
               uncompressed_size bigint, data_page_offset bigint,
               dictionary_page_offset bigint, has_statistics boolean,
               stats_min text, stats_max text, null_count bigint,
               distinct_count bigint, min_exact boolean, max_exact boolean,
               bloom_filter_offset bigint, bloom_filter_length int,
               column_index_offset bigint, offset_index_offset bigint)
AS 'MODULE_PATHNAME', 'parquet_metadata'
LANGUAGE C STRICT VOLATILE;

CREATE FUNCTION parquet_file_metadata(filename text)
RETURNS TABLE (filename text, version int, num_rows bigint,
               num_row_groups int, num_columns int, created_by text,
               footer_size bigint)
AS 'MODULE_PATHNAME', 'parquet_file_metadata'
LANGUAGE C STRICT VOLATILE;

CREATE FUNCTION parquet_kv_metadata(filename text)
RETURNS TABLE (key text, value bytea, value_text text)
AS 'MODULE_PATHNAME', 'parquet_kv_metadata'
LANGUAGE C STRICT VOLATILE;

-- this backend's footer cache (parquet_fdw.footer_cache_size)
CREATE FUNCTION parquet_footer_cache_info(OUT entries bigint, OUT bytes bigint,
                                          OUT hits bigint, OUT misses bigint,
                                          OUT evictions bigint, OUT pinned bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'parquet_footer_cache_info'
LANGUAGE C STRICT VOLATILE;

-- the foreign-data wrapper

CREATE FUNCTION parquet_fdw_handler()
RETURNS fdw_handler
AS 'MODULE_PATHNAME', 'parquet_fdw_handler'
LANGUAGE C STRICT;

CREATE FUNCTION parquet_fdw_validator(text[], oid)
RETURNS void
AS 'MODULE_PATHNAME', 'parquet_fdw_validator'
LANGUAGE C STRICT;

CREATE FOREIGN DATA WRAPPER parquet_fdw
  HANDLER parquet_fdw_handler
  VALIDATOR parquet_fdw_validator;

-- a foreign table over one file, its columns inferred from the file's schema
-- (superuser or pg_read_server_files, checked in C)
CREATE FUNCTION parquet_create_foreign_table(table_name text, server text,
                                             filename text)
RETURNS void
AS 'MODULE_PATHNAME', 'parquet_create_foreign_table'
LANGUAGE C STRICT VOLATILE;

-- write a query's result as a single-file Amudai shard; returns the rows
-- written (superuser or pg_write_server_files, checked in C)
CREATE FUNCTION parquet_fdw_write_amudai(query text, path text,
                                         stripe_rows bigint DEFAULT 65536)
RETURNS bigint
AS 'MODULE_PATHNAME', 'parquet_fdw_write_amudai'
LANGUAGE C STRICT VOLATILE;

-- the rows of the COPY ... FROM ... (FORMAT parquet) running in this
-- backend, as the target table's row type; only COPY FROM calls it
CREATE FUNCTION parquet_fdw_copy_rows(anyelement)
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'parquet_fdw_copy_rows'
LANGUAGE C VOLATILE;
