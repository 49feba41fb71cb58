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

-- scale-out over postgres_fdw (README "Scale out")
--
-- On a node: parquet_fdw_node_tables lists the node's parquet_fdw foreign
-- tables, and an INSERT into it creates one (replacing a table of that
-- name), with the inserting user's rights. postgres_fdw sends a node only
-- queries and DML, never DDL, so this view is how a coordinator creates a
-- node's table through the postgres_fdw server it already has for it. The
-- columns come as names and type names (each checked as a type, so no SQL
-- fragment is run); with column_names NULL they are inferred from the files
-- as parquet_create_foreign_table does. The server is created when missing.

CREATE FUNCTION parquet_fdw_node_table_insert()
RETURNS trigger
LANGUAGE plpgsql
AS $fn$
DECLARE
    ext_schema text;
    schema_name text := coalesce(NEW.schema_name, 'public');
    server_name text := coalesce(NEW.server_name, 'parquet_srv');
    column_defs text;
    saved_path text;
    i int;
BEGIN
    IF NEW.table_name IS NULL OR NEW.filename IS NULL THEN
        RAISE EXCEPTION 'parquet_fdw_node_tables: table_name and filename must not be null'
            USING ERRCODE = 'not_null_violation';
    END IF;
    IF coalesce(array_length(NEW.column_names, 1), 0)
       <> coalesce(array_length(NEW.column_types, 1), 0) THEN
        RAISE EXCEPTION 'parquet_fdw_node_tables: % column names but % column types',
            coalesce(array_length(NEW.column_names, 1), 0),
            coalesce(array_length(NEW.column_types, 1), 0)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT n.nspname INTO ext_schema
      FROM pg_catalog.pg_extension e
      JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'parquet_fdw';
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_foreign_server s WHERE s.srvname = server_name) THEN
        EXECUTE pg_catalog.format('CREATE SERVER %I FOREIGN DATA WRAPPER parquet_fdw', server_name);
    END IF;
    EXECUTE pg_catalog.format('DROP FOREIGN TABLE IF EXISTS %I.%I', schema_name, NEW.table_name);
    IF NEW.column_names IS NULL THEN
        -- parquet_create_foreign_table takes the name unqualified: create
        -- in the wanted schema (postgres_fdw's sessions run with
        -- search_path pg_catalog).
        saved_path := pg_catalog.current_setting('search_path');
        PERFORM pg_catalog.set_config('search_path', pg_catalog.quote_ident(schema_name), true);
        EXECUTE pg_catalog.format('SELECT %I.parquet_create_foreign_table($1, $2, $3)', ext_schema)
          USING NEW.table_name, server_name, NEW.filename;
        PERFORM pg_catalog.set_config('search_path', saved_path, true);
    ELSE
        column_defs := '';
        FOR i IN 1 .. pg_catalog.array_length(NEW.column_names, 1) LOOP
            IF pg_catalog.to_regtype(NEW.column_types[i]) IS NULL THEN
                RAISE EXCEPTION 'parquet_fdw_node_tables: "%" is not a type', NEW.column_types[i]
                    USING ERRCODE = 'undefined_object';
            END IF;
            column_defs := column_defs || CASE WHEN i > 1 THEN ', ' ELSE '' END
                || pg_catalog.format('%I %s', NEW.column_names[i], NEW.column_types[i]);
        END LOOP;
        EXECUTE pg_catalog.format('CREATE FOREIGN TABLE %I.%I (%s) SERVER %I OPTIONS (filename %L)',
                                  schema_name, NEW.table_name, column_defs, server_name, NEW.filename);
    END IF;
    NEW.schema_name := schema_name;
    NEW.server_name := server_name;
    RETURN NEW;
END
$fn$;

CREATE VIEW parquet_fdw_node_tables AS
SELECT n.nspname::text AS schema_name,
       c.relname::text AS table_name,
       s.srvname::text AS server_name,
       (SELECT pg_catalog.substr(o, 10) FROM pg_catalog.unnest(ft.ftoptions) o
         WHERE o LIKE 'filename=%') AS filename,
       ARRAY(SELECT a.attname::text FROM pg_catalog.pg_attribute a
              WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
              ORDER BY a.attnum) AS column_names,
       ARRAY(SELECT pg_catalog.format_type(a.atttypid, a.atttypmod)
               FROM pg_catalog.pg_attribute a
              WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
              ORDER BY a.attnum) AS column_types
  FROM pg_catalog.pg_foreign_table ft
  JOIN pg_catalog.pg_class c ON c.oid = ft.ftrelid
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_catalog.pg_foreign_server s ON s.oid = ft.ftserver
  JOIN pg_catalog.pg_foreign_data_wrapper w ON w.oid = s.srvfdw
 WHERE w.fdwname = 'parquet_fdw';

CREATE TRIGGER parquet_fdw_node_tables_insert
  INSTEAD OF INSERT ON parquet_fdw_node_tables
  FOR EACH ROW EXECUTE FUNCTION parquet_fdw_node_table_insert();

-- Rights stay the inserting user's own (CREATE on the schema, and
-- pg_read_server_files or superuser for filename).
GRANT SELECT, INSERT ON parquet_fdw_node_tables TO PUBLIC;

-- On the coordinator: one call makes a distributed table. For each node
-- (a postgres_fdw server), its parquet_fdw table over node_files[i] (the
-- filename option: files, folders or patterns on that node) is created
-- through the node's parquet_fdw_node_tables; on the coordinator,
-- table_name becomes a table partitioned by LIST (partition_key) with one
-- postgres_fdw foreign partition per node (async_capable), bounded by the
-- key values the node's files hold (asked from the node: a grouped scan on
-- a hive key reads folder names and statistics). The partitions ask their
-- node for row counts and costs when planning (use_remote_estimate: an
-- EXPLAIN per path, cheap over parquet_fdw's cached footers; without it an
-- unanalyzed partition looks tiny and aggregates are not pushed to it) and
-- fetch 10000 rows per round trip. Without partition_key the
-- parent is a plain table the node tables inherit from (no pruning and no
-- partitionwise aggregation over nodes). columns: 'a int, b text', or NULL
-- to infer them from the first node's files. The node tables get the same
-- schema and name as table_name, in a parquet_fdw server node_server. The
-- nodes must have parquet_fdw in the schema it has here. Returns one row per
-- node.
CREATE FUNCTION parquet_fdw_distribute(table_name text, columns text,
                                       partition_key text, nodes text[],
                                       node_files text[],
                                       node_server text DEFAULT 'parquet_srv')
RETURNS TABLE (node text, partition_table regclass, key_values text)
LANGUAGE plpgsql
AS $fn$
DECLARE
    name_parts text[] := pg_catalog.parse_ident(table_name);
    target_schema text;
    target_name text;
    ext_schema text;
    request_table text;
    parent regclass;
    col_names text[];
    col_types text[];
    col_defs text;
    part_name text;
    bound text;
    i int;
BEGIN
    IF pg_catalog.array_length(name_parts, 1) = 2 THEN
        target_schema := name_parts[1];
        target_name := name_parts[2];
    ELSIF pg_catalog.array_length(name_parts, 1) = 1 THEN
        target_schema := pg_catalog.current_schema();
        target_name := name_parts[1];
    ELSE
        RAISE EXCEPTION 'parquet_fdw_distribute: table name "%" has too many dots', table_name
            USING ERRCODE = 'invalid_name';
    END IF;
    IF coalesce(pg_catalog.array_length(nodes, 1), 0) = 0
       OR pg_catalog.array_length(nodes, 1) <> coalesce(pg_catalog.array_length(node_files, 1), 0) THEN
        RAISE EXCEPTION 'parquet_fdw_distribute: % nodes but % file lists',
            coalesce(pg_catalog.array_length(nodes, 1), 0),
            coalesce(pg_catalog.array_length(node_files, 1), 0)
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Give one filename entry (files, folders or patterns) per node.';
    END IF;
    FOR i IN 1 .. pg_catalog.array_length(nodes, 1) LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_foreign_server s
                         JOIN pg_catalog.pg_foreign_data_wrapper w ON w.oid = s.srvfdw
                        WHERE s.srvname = nodes[i] AND w.fdwname = 'postgres_fdw') THEN
            RAISE EXCEPTION 'parquet_fdw_distribute: "%" is not a postgres_fdw server', nodes[i]
                USING ERRCODE = 'undefined_object';
        END IF;
    END LOOP;
    SELECT n.nspname INTO ext_schema
      FROM pg_catalog.pg_extension e
      JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'parquet_fdw';

    -- The coordinator parses the column list: the nodes get names and
    -- type names.
    IF columns IS NOT NULL THEN
        EXECUTE pg_catalog.format('CREATE TABLE %I.%I (%s)', target_schema, target_name, columns);
        parent := pg_catalog.format('%I.%I', target_schema, target_name)::regclass;
        SELECT pg_catalog.array_agg(a.attname::text ORDER BY a.attnum),
               pg_catalog.array_agg(pg_catalog.format_type(a.atttypid, a.atttypmod) ORDER BY a.attnum)
          INTO col_names, col_types
          FROM pg_catalog.pg_attribute a
         WHERE a.attrelid = parent AND a.attnum > 0 AND NOT a.attisdropped;
        EXECUTE pg_catalog.format('DROP TABLE %s', parent);
    END IF;

    -- A postgres_fdw table over each node's parquet_fdw_node_tables, for
    -- the length of this call.
    request_table := target_name || '_node_request';
    FOR i IN 1 .. pg_catalog.array_length(nodes, 1) LOOP
        EXECUTE pg_catalog.format(
            'CREATE FOREIGN TABLE %I.%I (schema_name text, table_name text, server_name text,'
            ' filename text, column_names text[], column_types text[]) SERVER %I'
            ' OPTIONS (schema_name %L, table_name %L)',
            target_schema, request_table, nodes[i], ext_schema, 'parquet_fdw_node_tables');
        EXECUTE pg_catalog.format(
            'INSERT INTO %I.%I VALUES ($1, $2, $3, $4, $5, $6)', target_schema, request_table)
          USING target_schema, target_name, node_server, node_files[i], col_names, col_types;
        IF col_names IS NULL THEN
            EXECUTE pg_catalog.format(
                'SELECT column_names, column_types FROM %I.%I WHERE schema_name = $1 AND table_name = $2',
                target_schema, request_table)
              INTO col_names, col_types USING target_schema, target_name;
        END IF;
        EXECUTE pg_catalog.format('DROP FOREIGN TABLE %I.%I', target_schema, request_table);
    END LOOP;

    col_defs := '';
    FOR i IN 1 .. pg_catalog.array_length(col_names, 1) LOOP
        col_defs := col_defs || CASE WHEN i > 1 THEN ', ' ELSE '' END
            || pg_catalog.format('%I %s', col_names[i], col_types[i]);
    END LOOP;
    IF partition_key IS NULL THEN
        EXECUTE pg_catalog.format('CREATE TABLE %I.%I (%s)', target_schema, target_name, col_defs);
    ELSE
        EXECUTE pg_catalog.format('CREATE TABLE %I.%I (%s) PARTITION BY LIST (%I)',
                                  target_schema, target_name, col_defs, partition_key);
    END IF;
    parent := pg_catalog.format('%I.%I', target_schema, target_name)::regclass;

    FOR i IN 1 .. pg_catalog.array_length(nodes, 1) LOOP
        part_name := target_name || '_' || nodes[i];
        EXECUTE pg_catalog.format(
            'CREATE FOREIGN TABLE %I.%I (%s) SERVER %I'
            ' OPTIONS (schema_name %L, table_name %L, async_capable %L,'
            ' use_remote_estimate %L, fetch_size %L)',
            target_schema, part_name, col_defs, nodes[i], target_schema, target_name,
            'true', 'true', '10000');
        bound := NULL;
        IF partition_key IS NULL THEN
            EXECUTE pg_catalog.format('ALTER TABLE %I.%I INHERIT %s', target_schema, part_name, parent);
        ELSE
            EXECUTE pg_catalog.format(
                'SELECT pg_catalog.string_agg(pg_catalog.quote_nullable(k::text), '', '' ORDER BY k NULLS LAST)'
                ' FROM (SELECT %I AS k FROM %I.%I GROUP BY 1) keys',
                partition_key, target_schema, part_name) INTO bound;
            IF bound IS NULL THEN
                RAISE EXCEPTION 'parquet_fdw_distribute: node "%" has no rows under %',
                    nodes[i], node_files[i]
                    USING ERRCODE = 'no_data_found',
                          HINT = 'A partition needs at least one key value; check the node''s files.';
            END IF;
            EXECUTE pg_catalog.format('ALTER TABLE %s ATTACH PARTITION %I.%I FOR VALUES IN (%s)',
                                      parent, target_schema, part_name, bound);
        END IF;
        node := nodes[i];
        partition_table := pg_catalog.format('%I.%I', target_schema, part_name)::regclass;
        key_values := bound;
        RETURN NEXT;
    END LOOP;
END
$fn$;

-- Reading object-store URLs (s3://, gs://, az://, https://...) reads no
-- server file, but it makes the server send requests wherever a URL or a
-- foreign server's endpoint points, with the credentials of the server's
-- OS user when no user mapping gives others.  So it needs superuser,
-- pg_read_server_files, or membership in this role (checked in C).  Roles
-- are cluster-wide: an existing one is kept, and DROP EXTENSION leaves it.
DO $role$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'parquet_fdw_remote_read') THEN
        CREATE ROLE parquet_fdw_remote_read NOLOGIN;
        COMMENT ON ROLE parquet_fdw_remote_read IS
            'parquet_fdw: may make the server send requests to object stores and HTTP(S) URLs';
    END IF;
END
$role$;

-- Writing object-store URLs (COPY ... TO 's3://...') writes no server
-- file, but it makes the server send requests and store objects with the
-- credentials of a user mapping or of the server's OS user.  So it needs
-- superuser, pg_write_server_files, or membership in this role (checked in
-- C).  Kept and left like parquet_fdw_remote_read.
DO $role$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'parquet_fdw_remote_write') THEN
        CREATE ROLE parquet_fdw_remote_write NOLOGIN;
        COMMENT ON ROLE parquet_fdw_remote_write IS
            'parquet_fdw: may make the server write objects to object stores (COPY TO s3://...)';
    END IF;
END
$role$;
