-- filters the scan can push down (dates, integers, strings)
\set d random(0, 2500)
\set g random(0, 20)
SELECT count(*), sum(l_quantity) FROM lf_lineitem WHERE l_shipdate > DATE '1992-01-01' + :d;
SELECT count(*), max(s) FROM lf_rowgroups WHERE grp = :g AND s > 'm';
SELECT count(*), min(ts) FROM lf_shard WHERE id BETWEEN :d * 4 AND :d * 4 + 500;
