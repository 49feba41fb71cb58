--
-- amudai_distinct: the HyperLogLog sketch an Amudai shard keeps for each
-- string field (CardinalityInfo) is the planner's distinct estimate when
-- ANALYZE has not run (distinct_stats.c, issue #17): GROUP BY sizes come
-- from it instead of PostgreSQL's default of 200 groups.  Estimates are
-- printed as ratios to the true group counts of the heap table, rounded
-- (the sketch has 128 counters: about 9% standard error, deterministic).
--
SELECT current_setting('data_directory') || '/pf_amudai_distinct.amudai.shard' AS shard
\gset
CREATE TABLE dd_src AS
  SELECT id,
         'k' || (id % 5000) AS many,      -- 5000 distinct
         'c' || (id % 37) AS few,         -- 37 distinct
         CASE WHEN id % 4 = 0 THEN NULL ELSE 'n' || (id % 900) END AS nullish,
         id % 1000 AS num                 -- no sketch for integers
  FROM generate_series(1, 40000) id;
SELECT parquet_fdw_write_amudai('SELECT * FROM dd_src ORDER BY id', :'shard', 10000);
CREATE SERVER dd_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE dd_am (id bigint, many text, few text, nullish text, num integer)
  SERVER dd_srv OPTIONS (filename :'shard');
-- the planner's group estimate of a GROUP BY over the foreign table
CREATE FUNCTION dd_groups(cols text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) SELECT ' || cols || ', count(*) FROM dd_am GROUP BY '
    || cols INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
CREATE FUNCTION dd_ratio(col text, OUT estimate_to_true numeric, OUT true_groups bigint)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'SELECT count(DISTINCT ' || col || ') + (count(*) > count(' || col || '))::int'
    || ' FROM dd_src' INTO true_groups;
  estimate_to_true := round((dd_groups(col) / true_groups)::numeric, 1);
END $$;
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT * FROM dd_ratio('many');
SELECT * FROM dd_ratio('few');
SELECT * FROM dd_ratio('nullish');
-- no sketch: PostgreSQL's default of 200 groups
SELECT dd_groups('num') AS num_groups;
-- the pushdown plans with the same estimate
SET parquet_fdw.enable_aggregate_pushdown = on;
SELECT * FROM dd_ratio('few');
RESET parquet_fdw.enable_aggregate_pushdown;
-- once ANALYZE has run, its statistics are used instead
ANALYZE dd_am;
SELECT * FROM dd_ratio('few');
DROP FOREIGN TABLE dd_am;
DROP SERVER dd_srv;
DROP FUNCTION dd_ratio(text);
DROP FUNCTION dd_groups(text);
DROP TABLE dd_src;
