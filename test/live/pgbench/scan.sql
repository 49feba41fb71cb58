-- full scans: every column of a Parquet file and of a shard, as text
SELECT count(*), sum(length(x::text)) FROM lf_lineitem x;
SELECT count(*), sum(length(x::text)) FROM lf_shard x;
