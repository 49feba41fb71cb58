--
-- compare.sql: helpers the tests share, read with \i (ECHO off around it;
-- the tests share one database, so each (re)creates them).
--
-- pf_diff(a, b, ordered, b_settings): runs two queries and compares their
-- results as multisets of rows as text (as lists, row number included,
-- when ordered).  rows_a and rows_b count each side's rows; differences
-- counts the rows in one and not the other.  b runs with the settings
-- b_settings names ('name=value', restored after), e.g. enable_sort=off:
-- a hash aggregate adds floats in scan order, as the foreign scan does,
-- where a sort (not stable) might not.
--
-- pf_plan_has(q, pattern, options): whether a line of EXPLAIN (options) q
-- matches the pattern; pf_plan_lines(q, pattern, options): those lines.
--
CREATE OR REPLACE FUNCTION pf_diff(a text, b text, ordered bool DEFAULT false,
                        b_settings text[] DEFAULT '{}',
                        OUT rows_a bigint, OUT rows_b bigint,
                        OUT differences bigint)
LANGUAGE plpgsql AS $$
DECLARE
  rn text := CASE WHEN ordered THEN 'row_number() OVER () AS rn, ' ELSE '' END;
  was text[] := '{}';
  setting text;
BEGIN
  EXECUTE 'CREATE TEMP TABLE pf_diff_a AS SELECT ' || rn || 't::text AS v FROM (' || a || ') t';
  FOREACH setting IN ARRAY b_settings LOOP
    was := was || current_setting(split_part(setting, '=', 1));
    PERFORM set_config(split_part(setting, '=', 1), split_part(setting, '=', 2), true);
  END LOOP;
  EXECUTE 'CREATE TEMP TABLE pf_diff_b AS SELECT ' || rn || 't::text AS v FROM (' || b || ') t';
  FOR i IN 1 .. coalesce(array_length(b_settings, 1), 0) LOOP
    PERFORM set_config(split_part(b_settings[i], '=', 1), was[i], true);
  END LOOP;
  SELECT count(*) INTO rows_a FROM pf_diff_a;
  SELECT count(*) INTO rows_b FROM pf_diff_b;
  SELECT count(*) INTO differences FROM
    ((SELECT * FROM pf_diff_a EXCEPT ALL SELECT * FROM pf_diff_b)
     UNION ALL (SELECT * FROM pf_diff_b EXCEPT ALL SELECT * FROM pf_diff_a)) d;
  DROP TABLE pf_diff_a;
  DROP TABLE pf_diff_b;
END $$;

CREATE OR REPLACE FUNCTION pf_plan_has(q text, pattern text,
                            options text DEFAULT 'COSTS OFF') RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
  ln text;
  found bool := false;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (' || options || ') ' || q LOOP
    IF ln ~ pattern THEN found := true; END IF;
  END LOOP;
  RETURN found;
END $$;

CREATE OR REPLACE FUNCTION pf_plan_lines(q text, pattern text,
                              options text DEFAULT 'COSTS OFF') RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (' || options || ') ' || q LOOP
    IF ln ~ pattern THEN RETURN NEXT ln; END IF;
  END LOOP;
END $$;
