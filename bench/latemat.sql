-- Late materialization reproducer: a 61-column table (bigint, int, float8,
-- numeric, date, timestamp, bool and 25 text columns), 1M rows, written
-- with COPY TO (FORMAT parquet) and read back through parquet_fdw and the
-- heap table.  Run with psql -v dir=<folder the server may write>;
-- bench/latemat.sh times the queries.
LOAD 'parquet_fdw';
DROP TABLE IF EXISTS lm_heap;
CREATE TABLE lm_heap AS
SELECT i AS id,
       (i * 7) % 1000 AS i1, (i * 13) % 100000 AS i2, i % 17 AS i3, (i * 31) % 65536 AS i4,
       (i * 3) % 255 AS i5, i % 2 AS i6, (i * 11) % 999 AS i7, (i * 5) % 12345 AS i8,
       (i * 29) % 86400 AS i9, i % 24 AS i10, (i * 37) % 1000000 AS i11, i % 60 AS i12,
       (i * 41) % 5000 AS i13, i % 3 AS i14, (i * 43) % 777 AS i15,
       i::float8 / 7 AS f1, (i % 1000)::float8 * 1.5 AS f2, sqrt(i::float8) AS f3,
       (i % 97)::float8 / 3 AS f4, ln(i + 1) AS f5,
       (i % 100000)::numeric / 100 AS n1, (i % 777)::numeric(12, 3) AS n2,
       date '2013-07-01' + (i % 31) AS d1, timestamp '2013-07-01' + (i % 2678400) * interval '1 second' AS event_time,
       timestamp '2013-07-01' + (i % 86400) * interval '1 second' AS t2,
       i % 5 = 0 AS b1, i % 7 = 0 AS b2,
       'http://' || CASE WHEN i % 97 = 0 THEN 'www.google.com' ELSE 'site' || (i % 5000) || '.example.org' END
         || '/path/' || md5(i::text) || '?q=' || (i % 1000) AS url,
       'http://referer' || (i % 3000) || '.example.net/' || substr(md5((i + 1)::text), 1, 12) AS referer,
       CASE WHEN i % 10 = 0 THEN NULL ELSE 'Title number ' || (i % 20000) || ' of the page ' || substr(md5((i * 3)::text), 1, 8) END AS title,
       'Mozilla/5.0 (agent ' || (i % 300) || ')' AS user_agent,
       CASE WHEN i % 3 = 0 THEN '' ELSE 'phrase ' || (i % 4000) END AS search_phrase,
       md5((i * 7)::text) AS s1, md5((i * 11)::text) AS s2, substr(md5((i * 13)::text), 1, 10) AS s3,
       'city' || (i % 1000) AS s4, 'region' || (i % 200) AS s5, 'country' || (i % 50) AS s6,
       CASE WHEN i % 4 = 0 THEN NULL ELSE 'tag' || (i % 123) END AS s7,
       'os' || (i % 20) AS s8, 'browser' || (i % 40) AS s9, 'lang' || (i % 30) AS s10,
       repeat('x', (i % 40)) AS s11, 'utm_source_' || (i % 500) AS s12, 'utm_medium_' || (i % 50) AS s13,
       'utm_campaign_' || (i % 5000) AS s14, 'utm_content_' || (i % 800) AS s15, 'utm_term_' || (i % 900) AS s16,
       substr(md5((i * 17)::text), 1, 20) AS s17, 'hash' || (i % 100003) AS s18,
       CASE WHEN i % 2 = 0 THEN NULL ELSE 'odd' || i END AS s19, 'param' || (i % 64) AS s20,
       (i * 47) % 3000 AS i16, (i * 53) % 4000 AS i17, (i * 59) % 5000 AS i18, (i * 61) % 6000 AS i19,
       (i * 67)::bigint * 1000003 AS i20
FROM generate_series(1, 1000000) i;
COPY lm_heap TO :'file' (FORMAT parquet);
VACUUM ANALYZE lm_heap;
