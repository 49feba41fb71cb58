--
-- aggregate_shifted: sum and avg of "integer column + constant" pushed
-- into the scan as sum(column) + constant * count(column) (ClickBench's 90
-- sums of ResolutionWidth + k).  Exact only when no row's column +
-- constant overflows; where one would, the error is PostgreSQL's.
-- Every result is compared with the same query over a heap table.
--
LOAD 'parquet_fdw';
SELECT current_setting('data_directory') || '/pf_shifted.parquet' AS shifted_file \gset
CREATE SERVER shifted_srv FOREIGN DATA WRAPPER parquet_fdw;
-- i4 with NULLs, i2 in -29997..30000 (NULL every third row), i8 near its bounds, g 5 groups
CREATE TABLE shifted_heap (g int, i4 int, i2 smallint, i8 bigint);
INSERT INTO shifted_heap
SELECT i % 5,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i * 37 - 100000 END,
       CASE WHEN i % 3 = 0 THEN NULL ELSE ((i * 3) % 60001 - 30000)::smallint END,
       CASE WHEN i = 1 THEN 9223372036854775000 ELSE i::bigint * 1000003 END
FROM generate_series(1, 20000) i;
-- a group whose values are all NULL
INSERT INTO shifted_heap SELECT 9, NULL, NULL, NULL FROM generate_series(1, 10);
COPY shifted_heap TO :'shifted_file' (FORMAT parquet, row_group_size 3000);
CREATE FOREIGN TABLE shifted_ft (g int, i4 int, i2 smallint, i8 bigint)
  SERVER shifted_srv OPTIONS (filename :'shifted_file');

\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION shifted_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', 'shifted_ft');
  diff bigint;
BEGIN
  SELECT differences INTO diff FROM pf_diff(qf, replace(q, 'TBL', 'shifted_heap'));
  RETURN CASE WHEN pf_plan_has(qf, 'Aggregate Pushdown') THEN 'pushed' ELSE 'not pushed' END ||
         CASE WHEN diff = 0 THEN ', same rows' ELSE ', ' || diff || ' rows differ' END;
END $$;

SELECT shifted_same('SELECT sum(i4), sum(i4 + 1), sum(i4 + 89), sum(i4 - 7), sum(3 + i4), avg(i4 + 2) FROM TBL');
SELECT shifted_same('SELECT g, sum(i4 + 10), avg(i4 - 10), count(i4 + 1) FROM TBL GROUP BY g');
SELECT shifted_same('SELECT sum(i2 + 1), sum(i2 - 2767), avg(i2 + 100) FROM TBL');
SELECT shifted_same('SELECT g, sum(i2 + 2767) FROM TBL GROUP BY g');
SELECT shifted_same('SELECT sum(i8 + 807), avg(i8 - 5) FROM TBL WHERE g < 3');
SELECT shifted_same('SELECT g, sum(i8 + 1), avg(i8 + 1) FROM TBL GROUP BY g');
SELECT shifted_same('SELECT sum(i4 + 1) FROM TBL WHERE g = 9');
SELECT shifted_same('SELECT g, sum(i4 + 1) FROM TBL WHERE g = 9 GROUP BY g');
-- a row's value + constant overflows: the error PostgreSQL raises
\set VERBOSITY terse
SELECT sum(i2 + 2768::smallint) FROM shifted_ft;
SELECT sum(i2 + 2768::smallint) FROM shifted_heap;
SELECT avg(i2 - 2772::smallint) FROM shifted_ft;
SELECT g, avg(i2 - 2772::smallint) FROM shifted_ft GROUP BY g;
SELECT g, sum(i4 + 2147483647) FROM shifted_ft GROUP BY g;
SELECT g, sum(i4 + 2147483647) FROM shifted_heap GROUP BY g;
SELECT sum(i8 + 808) FROM shifted_ft;
SELECT sum(i8 + 808) FROM shifted_heap;
\set VERBOSITY default
-- the same bounds reached exactly: no error
SELECT shifted_same('SELECT sum(i2 + 2767::smallint), sum(i2 - 2771::smallint), sum(i8 + 807) FROM TBL');
SELECT shifted_same('SELECT g, sum(i2 + 2767::smallint), avg(i2 - 2771::smallint) FROM TBL GROUP BY g');
