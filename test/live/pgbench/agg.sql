-- aggregates, grouped and not, over a file and a shard
\set g random(0, 20)
SELECT l_returnflag, l_linestatus, count(*), sum(l_extendedprice), avg(l_discount)
  FROM lf_lineitem GROUP BY 1, 2 ORDER BY 1, 2;
SELECT grp, min(ts), max(f), count(*) FROM lf_rowgroups WHERE grp <> :g GROUP BY grp ORDER BY grp LIMIT 5;
SELECT count(*), sum(n), avg(f) FROM lf_shard;
