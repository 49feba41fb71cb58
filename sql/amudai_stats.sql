--
-- amudai_stats: stripe pruning with the type-specific statistics the shard
-- writer stores (issue #17): BooleanStats for bool, FloatingStats (no NaN:
-- > and >= may prune floats) and StringStats (byte lengths) for text.
-- Every count is checked against the heap table the shard was written from.
--
-- st_src: 4 stripes of 1500 rows (id 1..6000, written in id order).
--   b: stripe 1 false or NULL, stripe 2 true or NULL, stripes 3-4 both;
--   f: id / 4 plus a NaN in stripe 2 only;
--   s: distinct in every row (1500 per stripe: too many for a Bloom
--      filter), 5 bytes in stripe 1, 7 in stripe 2, 5..9 in stripes 3-4.
--
SET extra_float_digits = 0;
SELECT current_setting('data_directory') || '/pf_amudai_stats.amudai.shard' AS shard
\gset
CREATE TABLE st_src AS
  SELECT id,
         CASE WHEN id % 7 = 0 THEN NULL
              WHEN id <= 1500 THEN false
              WHEN id <= 3000 THEN true
              ELSE id % 2 = 0 END AS b,
         CASE WHEN id = 2000 THEN 'NaN'::float8 ELSE id / 4.0 END AS f,
         CASE WHEN id <= 1500 THEN 'x' || lpad(id::text, 4, '0')
              WHEN id <= 3000 THEN 'w' || lpad(id::text, 6, '0')
              ELSE 'z' || id || repeat('y', id % 5) END AS s
  FROM generate_series(1, 6000) id;
SELECT parquet_fdw_write_amudai('SELECT * FROM st_src ORDER BY id', :'shard', 1500);
CREATE SERVER st_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE st_am (id bigint, b boolean, f float8, s text)
  SERVER st_srv OPTIONS (filename :'shard');
CREATE FUNCTION st_stripes(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF ln ~ 'Stripes:' THEN RETURN regexp_replace(ln, '^.*Stripes: ', ''); END IF;
  END LOOP;
  RETURN NULL;
END $$;
-- the stripes a qual reads, and its rows from the shard and from the heap
CREATE FUNCTION st_check(qual text, OUT stripes text, OUT shard_rows bigint,
                         OUT heap_rows bigint) LANGUAGE plpgsql AS $$
BEGIN
  stripes := st_stripes('SELECT * FROM st_am WHERE ' || qual);
  EXECUTE 'SELECT count(*) FROM st_am WHERE ' || qual INTO shard_rows;
  EXECUTE 'SELECT count(*) FROM st_src WHERE ' || qual INTO heap_rows;
END $$;
SELECT count(*) AS differences FROM
  ((SELECT * FROM st_am EXCEPT ALL SELECT * FROM st_src)
   UNION ALL (SELECT * FROM st_src EXCEPT ALL SELECT * FROM st_am)) x;
-- booleans: a stripe without true (false) values is left out
SELECT * FROM st_check('b = true');
SELECT * FROM st_check('b = false');
SELECT * FROM st_check('b IS NULL');
-- floats: > and >= prune the stripes FloatingStats call NaN-free; the NaN
-- stripe stays, since NaN sorts above every number
SELECT * FROM st_check('f > 1200');
SELECT * FROM st_check('f >= 750');
SELECT * FROM st_check('f < 100');
SELECT * FROM st_check('f = ''NaN''');
-- strings: a value whose byte length lies outside a stripe's sizes
SELECT * FROM st_check('s = ''x0007''');
SELECT * FROM st_check('s = ''w002000''');
SELECT * FROM st_check('s IN (''zzzzzzzzzzzz'', ''q'')');
SELECT * FROM st_check('s = ''z5000''');
SELECT * FROM st_check('s = ''z5004yyyy''');
DROP FOREIGN TABLE st_am;
DROP SERVER st_srv;
DROP TABLE st_src;
DROP FUNCTION st_check(text);
DROP FUNCTION st_stripes(text);
