--
-- agg_regex: regular expressions in the aggregate pushdown by the vector
-- kernel of vec_regex.c (agg_kernel.c): regexp_replace(column, pattern,
-- replacement) as a group key, column ~ pattern and !~ as conditions and
-- keys.  Every answer is compared with the same query over a heap table
-- holding the same rows: 150 random patterns of the kernel's subset
-- (literals of one to three bytes, '.', brackets, anchors, quantifiers,
-- groups, alternation; some quantified groups the kernel refuses), a few
-- outside it, over random strings of / : . w h t p s é € and newlines,
-- '' and NULL, and the ClickBench Q28 pattern over URL-like strings.
--
-- rx_diff() runs a query over the foreign table (pushdown on) and over the
-- heap table and returns the number of rows in one result and not in the
-- other ('not pushed' when the foreign query was not pushed down; both
-- must raise the same error when one does).
--
LOAD 'parquet_fdw';
SET max_parallel_workers_per_gather = 0;
SELECT current_setting('data_directory') || '/pf_rx_dict.parquet' AS dict_file,
       current_setting('data_directory') || '/pf_rx_plain.parquet' AS plain_file,
       current_setting('data_directory') || '/pf_rx_*.parquet' AS rx_glob \gset
CREATE SERVER rx_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE TABLE rx_heap (id int, s text, u text);
INSERT INTO rx_heap
SELECT i,
  CASE WHEN i % 29 = 0 THEN NULL WHEN i % 31 = 0 THEN '' ELSE
    (SELECT string_agg((ARRAY['/', ':', '.', 'w', 'h', 't', 'p', 's', 'é', '€',
                              E'\n', 'w', 't', '/'])[1 + abs(hashint4(i * 37 + j)) % 14],
                       '' ORDER BY j)
     FROM generate_series(1, 1 + abs(hashint4(i)) % 24) j) END,
  CASE WHEN i % 37 = 0 THEN NULL ELSE
     (ARRAY['http://', 'https://', 'ftp://', '', 'http:/'])[1 + abs(hashint4(i + 1)) % 5] ||
     (ARRAY['www.', '', 'wwwx.', 'www.www.'])[1 + abs(hashint4(i + 2)) % 4] ||
     (ARRAY['example.com', 'yandex.ru', 'dé.€', 'a', 'x.y.z'])[1 + abs(hashint4(i + 3)) % 5] ||
     (ARRAY['/', '/path/to?q=1', '', E'/a\nb', '/é/€'])[1 + abs(hashint4(i + 4)) % 5] END
FROM generate_series(1, 4000) i;
COPY (SELECT * FROM rx_heap WHERE id <= 2000) TO :'dict_file'
  (FORMAT parquet, row_group_size 500, dictionary true);
COPY (SELECT * FROM rx_heap WHERE id > 2000) TO :'plain_file'
  (FORMAT parquet, row_group_size 500, dictionary false);
CREATE FOREIGN TABLE rx_ft (id int, s text, u text)
  SERVER rx_srv OPTIONS (filename :'rx_glob');
CREATE FUNCTION rx_diff(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  pushed boolean := false;
  ln text;
  diff bigint;
  err_ft text;
  err_heap text;
  qf text := replace(q, 'TBL', 'rx_ft');
  qh text := replace(q, 'TBL', 'rx_heap');
BEGIN
  BEGIN
    FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || qf LOOP
      IF ln ~ 'Aggregate Pushdown' THEN pushed := true; END IF;
    END LOOP;
    EXECUTE 'SELECT count(*) FROM (' || qf || ') t' INTO diff;
  EXCEPTION WHEN others THEN
    err_ft := SQLERRM;
  END;
  BEGIN
    EXECUTE 'SELECT count(*) FROM (' || qh || ') t' INTO diff;
  EXCEPTION WHEN others THEN
    err_heap := SQLERRM;
  END;
  IF err_ft IS DISTINCT FROM err_heap THEN
    RETURN 'errors differ: ' || coalesce(err_ft, 'none') || ' / ' || coalesce(err_heap, 'none');
  END IF;
  IF err_ft IS NOT NULL THEN
    RETURN 'error';
  END IF;
  EXECUTE format('SELECT count(*) FROM
                    ((SELECT t::text FROM (%s) t EXCEPT ALL SELECT t::text FROM (%s) t)
                     UNION ALL
                     (SELECT t::text FROM (%s) t EXCEPT ALL SELECT t::text FROM (%s) t)) x',
                 qf, qh, qh, qf) INTO diff;
  RETURN CASE WHEN pushed THEN diff::text ELSE 'not pushed' END;
END $$;
-- "rows (evaluated)" of EXPLAIN ANALYZE's Computed Values: the rows the
-- kernel left to PostgreSQL's function are the evaluated ones
CREATE FUNCTION rx_computed(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' ||
                    replace(q, 'TBL', 'rx_ft') LOOP
    IF ln ~ 'Computed Values' THEN
      RETURN substring(ln from 'Computed Values: (.*)$');
    END IF;
  END LOOP;
  RETURN 'none';
END $$;
-- the files hold the heap's rows
SELECT count(*) AS rows_not_in_both FROM
  ((SELECT * FROM rx_ft EXCEPT ALL SELECT * FROM rx_heap)
   UNION ALL (SELECT * FROM rx_heap EXCEPT ALL SELECT * FROM rx_ft)) d;
-- ClickBench Q28 over URL-like strings (www. optional: the prefix takes it)
SELECT rx_diff($$SELECT regexp_replace(u, '^https?://(?:www\.)?([^/]+)/.*$', '\1') AS k,
                        avg(length(u)) AS l, count(*) AS c, min(u)
                 FROM TBL WHERE u <> '' GROUP BY k$$) AS q28;
SELECT rx_computed($$SELECT regexp_replace(u, '^https?://(?:www\.)?([^/]+)/.*$', '\1') AS k,
                            count(*) FROM TBL WHERE u <> '' GROUP BY k$$) AS q28_computed;
SELECT regexp_replace(u, '^https?://(?:www\.)?([^/]+)/.*$', '\1') AS k, count(*) AS c
FROM rx_ft WHERE u <> '' GROUP BY k HAVING count(*) > 100 ORDER BY c DESC, k;
-- the kernel's verdicts as keys (NULL where the column is) and as filters
SELECT u ~ '^https://' AS secure, u !~ 'www' AS no_www, count(*)
FROM rx_ft GROUP BY 1, 2 ORDER BY 1, 2;
SELECT rx_diff($$SELECT u ~ '^https://' AS secure, u !~ 'www' AS no_www, count(*)
                 FROM TBL GROUP BY 1, 2$$) AS verdict_keys;
SELECT rx_computed($$SELECT count(*) FROM TBL WHERE u ~ '\.ru/'$$) AS filter_computed;
-- random patterns of the subset, and some outside it
CREATE TABLE rx_pat (n int, p text, r text);
INSERT INTO rx_pat VALUES
  (1, E'.(?:$t{2,}|(?:t{2,}w)$t{2})', E'<\\1|\\2>'),
  (2, E'€{2,}', E'\\\\\\1\\'),
  (3, E'((/^)[s-€p-t]h+)€^', E'\\\\\\1\\'),
  (4, E'[h-p]', E'X'),
  (5, E'$((?:é{2,})[^.\n](\\/{0,2}^[^h-t/]{1,3}))(?:(?:.|:[^/-€/é]{2}|[^.h-st]\\.)|[^w-€s-t]{0,2}.{0,2}|(:s.)é)', E'<\\1|\\2>'),
  (6, E'[é.][t-€:-w]:{2,}', E'<\\1|\\2>'),
  (7, E'[^h-é]', E'X'),
  (8, E'p/{1,3}', E'X'),
  (9, E'[^/-p\n]*(?:(:{1,3}éé)(s[./-€]{0,2})|[t-é]$.|[é-€t-w](?:[:-p/-€]+[.-ws]?[:h\n]{0,2})?é{2})?', E'\\\\\\1\\'),
  (10, E'$é([^w]+[^h-é](?:\\.?[^.h-tt-é]\\/{1,3})|($)|(h{1,3}s{2,}w))', E'X'),
  (11, E'(?:(wt)/{0,2})|(/{1,3}s)$t|t', E'\\&-\\3'),
  (12, E'€{2}[^sh.]*(?:[/h-€w]{2,}^)|[^:é:-€]{0,2}/|:{0,2}.', E'X'),
  (13, E'[^p/].[.]|é$(:)|((?:s{2,}h[s-wt-w\n]|[^h:t]{1,3}h{1,3}€))|p(?:(?:w{2})|(w{2,}[:]:+))+|(?:p)[p-ssh]', E'\\\\\\1\\'),
  (14, E'[.hs]?.', E'\\\\\\1\\'),
  (15, E'w?(?:(:{0,2}.?)(?:p{1,3}.:))p*', E'X'),
  (16, E'.€:', E'\\&-\\3'),
  (17, E'[^.\n]|([.-é])[/-t//](?:€*h?(.€p*))', E'\\\\\\1\\'),
  (18, E'[/]', E'[\\2\\&]'),
  (19, E'(?:(?:/pw?)){2}', E'[\\2\\&]'),
  (20, E'($[^.-t:-w/-h]{1,3})|(?:(s{2})s){1,3}(^(?:€*€.|t{2})+)€{2,}', E'<\\1|\\2>'),
  (21, E'(?:/(?:.:)€)(?:([s-w/-és]s{2})\\/*^)', E'X'),
  (22, E'(?:[^.t-w]ww){1,3}|(?:é?|:é{2}$)?(?:(?:$é{1,3}t).?|\\.é*s)', E'\\1'),
  (23, E'/(?:[p-s/-w/-t]{1,3}[^t-é:])$', E'<\\1|\\2>'),
  (24, E'((.[p-€w-€.]p|[/-t]*.^)(?:/[.-€.-w/-w]:)h)', E'[\\2\\&]'),
  (25, E'((w{1,3}^)|(?:.)+(?:[.p-s].|s)?(?:hh|^.){0,2})|.*^', E'<\\1|\\2>'),
  (26, E'.(?:[^w-€]+)', E'\\&-\\3'),
  (27, E'(/)', E'\\&-\\3'),
  (28, E'[t-€h-€]?', E'\\&-\\3'),
  (29, E'/:', E'\\&-\\3'),
  (30, E'(?:(:é)(?:/{2}\\/+))', E'<\\1|\\2>'),
  (31, E'([é-€]?)', E'[\\2\\&]'),
  (32, E'(p(w{1,3}))', E'X'),
  (33, E'(?:([h-pt]?€))', E'\\\\\\1\\'),
  (34, E'.{1,3}\\.([/][.hh-s]{2,}[^.-/]{2}|:*.?h+)|.{0,2}(?:.*)', E'\\&-\\3'),
  (35, E'$', E'[\\2\\&]'),
  (36, E'[é.p]*[h-w:/]([é][hh-p])', E'<\\1|\\2>'),
  (37, E'$', E'\\1'),
  (38, E'[^.]^', E'<\\1|\\2>'),
  (39, E'[h/:]', E'\\\\\\1\\'),
  (40, E'.^', E'[\\2\\&]'),
  (41, E'é|(?:[^:/-w](./w)(./t{2,})){2,}', E'[\\2\\&]'),
  (42, E'/(?:[s-w/-é.][.]){2,}h', E'\\\\\\1\\'),
  (43, E'(?:€(p))s', E'X'),
  (44, E'.([.-h])|(?:s.{2}(?:[^h-tt-€]^[^.-h]|€[^:-p/-s.]/))(?:[^t:-€]{0,2}(//)\\.|[é-€./]$.*)', E'[\\2\\&]'),
  (45, E'p{0,2}', E'<\\1|\\2>'),
  (46, E'[s-t](s{1,3}[.s](?:\\.é?:?)?|^|p)', E'[\\2\\&]'),
  (47, E'(?:t(?:/$p)[^.-p\n])[:-épt]', E'[\\2\\&]'),
  (48, E'[hw-é]{2}|(?:(?:€{1,3}\\..)|(p/{1,3}[^h/])(?:é+|$|é)[^:-p.-p])[^p.t](^.{1,3})', E'\\&-\\3'),
  (49, E'h(h{2,}$.*|:(/+))', E'X'),
  (50, E'(p.+|[^:-s].*)(?:(?:s{0,2}€/){0,2}[s-t.-hp-é]|.(?:s)p)', E'<\\1|\\2>'),
  (51, E'[w][^:-hhp-€\n]{2}((?:\\/p))', E'\\1'),
  (52, E'($(?:é+))s?', E'\\1'),
  (53, E'p|[^:./-€]w+.', E'<\\1|\\2>'),
  (54, E'.{2,}w?', E'X'),
  (55, E'ép+', E'<\\1|\\2>'),
  (56, E'(?:(?:\\.+w\\.{0,2})t*([^h-tw:]))s|€{1,3}(?:.(p{0,2})){0,2}[.-hsé]{2}|[/w.-€](t)', E'\\\\\\1\\'),
  (57, E'\\.+(t{2,}.{0,2}|(?:s/){1,3})[^p]', E'\\&-\\3'),
  (58, E'[.]{2,}', E'\\&-\\3'),
  (59, E'(/s{2,}$|.h[p:s-é]|^)', E'<\\1|\\2>'),
  (60, E'w{1,3}[h-s.-w.]{2}[/h]*|p([/.w]{0,2}(h{2}€.|/{2,}h)(?:^^))', E'\\1'),
  (61, E'p((t{2,})(ét{1,3}€).)[^hp-€]', E'<\\1|\\2>'),
  (62, E'(?:é(.*)|\\.)/', E'X'),
  (63, E'(?:^$)|(?:€{1,3}){0,2}[.h.]', E'\\\\\\1\\'),
  (64, E't.[s-t:-é]{2,}|(.|[.]{0,2}|[./-t:-w]*é+)', E'\\&-\\3'),
  (65, E't?s{1,3}(?:t^t+)|^|.', E'X'),
  (66, E':(?:w{2,}(?:$|t{2}w|.{0,2}\\.*))s', E'\\\\\\1\\'),
  (67, E'(?:[t-é:]{2}^|s(\\/ps{1,3})h?)((:*:|sp|€{0,2}é{2,}))([^p-t]w)', E'\\1'),
  (68, E'€.{2}', E'\\&-\\3'),
  (69, E'(?:(.)[/-w/-€.-p\n]{1,3})h{1,3}.?', E'[\\2\\&]'),
  (70, E'$€.{0,2}', E'[\\2\\&]'),
  (71, E'.s(h[:]{2,})', E'\\&-\\3'),
  (72, E'[^/-t][s-t]?', E'\\1'),
  (73, E'é{1,3}.|(?:.é{2,}.|(?:s.p*)é{1,3}(?:t{2,}[h-épp\n]+p)){1,3}', E'\\\\\\1\\'),
  (74, E'.((?:é{2,}))\\.+', E'X'),
  (75, E'(?::(\\.{0,2}/t))*', E'\\&-\\3'),
  (76, E'(.(s):)', E'X'),
  (77, E'p.|:{1,3}é', E'\\\\\\1\\'),
  (78, E':', E'[\\2\\&]'),
  (79, E'w{2}', E'\\\\\\1\\'),
  (80, E'w(?:(ph{2})){1,3}[/-p\n]*|((€sh{2}))é|.:{1,3}é{2}', E'X'),
  (81, E'[^:/-sh-s\n]{0,2}w{1,3}', E'[\\2\\&]'),
  (82, E'(?:/([.-t]{1,3}é+))+(?:(?:\\.{1,3}p?)+é)p|:', E'[\\2\\&]'),
  (83, E'pw(?:t[tt/-h]{1,3}|s)', E'[\\2\\&]'),
  (84, E'[p//-h]w(?:[é\n](h[t-wép-s]{2,})€)', E'\\\\\\1\\'),
  (85, E'h+|€(?:st+)', E'\\1'),
  (86, E'w', E'<\\1|\\2>'),
  (87, E'(?:[^/s-é])|([:p-€][é//][^é.-h]{2})\\.{2}(?:(?::*\\/)p|(?::+[.-h\n].{2}|s))', E'\\&-\\3'),
  (88, E'(:{2}s|^(t{2}h?.).)s', E'\\1'),
  (89, E'€.(?:(?:tw){2,})', E'X'),
  (90, E'[h-t]{1,3}(p$)[^:-é:-éh-w]+', E'\\1'),
  (91, E'[é/.][t-w](é)|€*[^:sh-€][^h-w.-é.]', E'<\\1|\\2>'),
  (92, E'/{1,3}(?:€{1,3}.[p-t]|w?:([t]^)){2,}€', E'<\\1|\\2>'),
  (93, E'é{0,2}€*', E'X'),
  (94, E'(:{1,3})w?', E'\\&-\\3'),
  (95, E'(?:(?:.{1,3}[^st-w]{1,3}[.:])é?|[h-€]{2,}[p-€h-€]*.)[::-p]([h-pph-€]*[.-€h\n]{0,2})', E'X'),
  (96, E'.(.)s', E'\\&-\\3'),
  (97, E'[w-€w\n]|w{2,}hs{1,3}', E'\\1'),
  (98, E'([^s-€].)', E'\\\\\\1\\'),
  (99, E'((s.p)[^p::]+(.|\\/{1,3}))h|(?:(w[^:-s]\\.{0,2}|€{0,2}€))', E'<\\1|\\2>'),
  (100, E'.{2}', E'\\1'),
  (101, E'[.-w]s{2,}', E'\\&-\\3'),
  (102, E'€(é|^(?:€{2}€|t+t/{2}){1,3})€', E'\\&-\\3'),
  (103, E'.\\.', E'\\1'),
  (104, E'^wp{1,3}', E'X'),
  (105, E'w?/t+|(?:h[^/w-€]){2}', E'\\\\\\1\\'),
  (106, E'h((?:é{1,3}[.h-w]p){1,3}é+)', E'\\\\\\1\\'),
  (107, E's', E'[\\2\\&]'),
  (108, E'(/|(/?h)é|[^t]?(?:wp{0,2}))(?:(?:.{2,}:))', E'X'),
  (109, E'.', E'<\\1|\\2>'),
  (110, E'h[^/-t.-t]{2}€', E'\\&-\\3'),
  (111, E':.|p{1,3}t{1,3}|/', E'<\\1|\\2>'),
  (112, E't.|[^w-€]{1,3}é*[^s]|([w-€]{1,3})w+:*|é(é(\\.?:p)|é[^.:-€p-€]p)|hs*|(?:[hw-€\n])(.{2,}[^p.])|(?:.){1,3}', E'<\\1|\\2>'),
  (113, E'.(.)$|[^whh-p]|[th/-€]{2}[^.]', E'<\\1|\\2>'),
  (114, E'(:*[.-é][^s-wh])é', E'\\&-\\3'),
  (115, E's([h/w-€].?)(s)|(p.(é|.{2,}é))[/s/-€]{2}', E'\\&-\\3'),
  (116, E'(^/|h.|(/$^|[sp-éh]{1,3}.w)(é?\\/*s))((h{2,}€?)([^//-wh-t]w$|p))', E'[\\2\\&]'),
  (117, E'(.)', E'\\&-\\3'),
  (118, E'hw{0,2}|(?:[.-sh]{0,2}|(?:.)w*)[/-é]{0,2}:', E'\\1'),
  (119, E'.{1,3}[^/-ppw-€]((\\.{0,2}\\.{0,2}h)|.{1,3})', E'<\\1|\\2>'),
  (120, E'(?:$)|($(./é))$p{2,}|t(?:\\/)|wé{0,2}', E'\\1'),
  (121, E'.$', E'\\\\\\1\\'),
  (122, E'€(:?(t{1,3}h)$)', E'\\\\\\1\\'),
  (123, E':(.*[/-s:]?(?:p?)*)', E'[\\2\\&]'),
  (124, E'€((:?é:+|[p:]\\.{2}|^té{0,2})^)', E'<\\1|\\2>'),
  (125, E'$[^.-h:/](?:.+)', E'\\1'),
  (126, E's+^', E'[\\2\\&]'),
  (127, E'(?:^)', E'[\\2\\&]'),
  (128, E'(€{1,3})', E'\\1'),
  (129, E'€{0,2}((/{1,3}p{0,2})(?:.{1,3}|s:\\.)+[p:\n]{0,2}|.(?:€{1,3}|é)(?:.s{1,3}))/*', E'\\\\\\1\\'),
  (130, E't(éé).|[^pt.]', E'\\\\\\1\\'),
  (131, E'(p+h{0,2})|\\..{2}', E'\\\\\\1\\'),
  (132, E'/{2}', E'[\\2\\&]'),
  (133, E'[^/:-pp-s\n]é', E'\\&-\\3'),
  (134, E'(([é-€:-é]{2,}.s))', E'\\&-\\3'),
  (135, E'((w|[:-€\n]é|€{2,}p+$|[^é-€]t[.w]))', E'X'),
  (136, E'(?:.[^w-€.-t:].)[:-t]([^/-é]{0,2}.)', E'<\\1|\\2>'),
  (137, E'wth?', E'\\1'),
  (138, E'$', E'\\\\\\1\\'),
  (139, E'w(.+.{2})(p?([^/]{0,2}))', E'X'),
  (140, E'.|[^:h-th-€]', E'[\\2\\&]'),
  (141, E'.^', E'\\1'),
  (142, E'€', E'\\1'),
  (143, E'(\\.(.{2,})(/{1,3}$p))', E'\\1'),
  (144, E'p', E'X'),
  (145, E'.{2}.{1,3}', E'\\1'),
  (146, E'p([^./.-:][wt-w]s)/?', E'\\1'),
  (147, E'([.h]|\\.{1,3})', E'<\\1|\\2>'),
  (148, E'.€{0,2}', E'\\&-\\3'),
  (149, E'(?:p(w?.{0,2})(?:€))', E'X'),
  (150, E'(?:(/+|[p-th])[//\n]{2,}(?:[^é]))', E'[\\2\\&]')
,
  (1001, E'w.*?t', E'<\\&>'),
  (1002, E'\\w+', E'<\\&>'),
  (1003, E'[[:alpha:]]+', E'<\\&>'),
  (1004, E'(?i)W', E'<\\&>'),
  (1005, E'(w)\\1', E'<\\1>'),
  (1006, E'(w|t)+', E'<\\1>'),
  (1007, E'(?:w|)+', E'<\\&>'),
  (1008, E'^(.*)(t+)(.*)$', E'\\1|\\2|\\3'),
  (1009, E'(w|wt)(tp|p)?', E'\\1|\\2'),
  (1010, E'((w)|(w)t)(.)', E'\\2|\\3|\\4');
CREATE TEMP TABLE rx_result AS
SELECT n, p, r,
       rx_diff(format('SELECT regexp_replace(s, %L, %L) AS k, count(*) FROM TBL GROUP BY 1',
                      p, r)) AS replace_diff,
       rx_diff(format('SELECT s ~ %L AS m, count(*) FROM TBL WHERE id %% 3 <> 0 GROUP BY 1',
                      p)) AS match_diff,
       rx_diff(format('SELECT count(*) FROM TBL WHERE s !~ %L', p)) AS filter_diff
FROM rx_pat;
SELECT count(*) AS patterns,
       count(*) FILTER (WHERE replace_diff = '0' AND match_diff = '0' AND filter_diff = '0')
         AS same_as_heap
FROM rx_result;
-- the patterns that differ, if any
SELECT * FROM rx_result
WHERE replace_diff <> '0' OR match_diff <> '0' OR filter_diff <> '0'
ORDER BY n;
-- how many patterns the kernel took, and rows it left to PostgreSQL
SELECT count(*) FILTER (WHERE c LIKE '% (0 evaluated)') AS all_rows_by_kernel,
       count(*) FILTER (WHERE c NOT LIKE '% (0 evaluated)') AS some_rows_by_postgres
FROM (SELECT rx_computed(format('SELECT regexp_replace(s, %L, %L) AS k, count(*) FROM TBL GROUP BY 1',
                                p, r)) AS c
      FROM rx_pat) x;
DROP TABLE rx_result;
DROP TABLE rx_pat;
DROP FOREIGN TABLE rx_ft;
DROP TABLE rx_heap;
DROP FUNCTION rx_diff(text);
DROP FUNCTION rx_computed(text);
DROP SERVER rx_srv;
