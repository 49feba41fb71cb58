// Splits the bench's lineitem into hive folders l_returnflag=A|N|R with
// DuckDB, the partition column also kept in the files (as Spark writes
// them), for bench/cluster.sh:
//
//   node bench/cluster_split.mjs SOURCE.parquet OUT_FOLDER
//
// BENCH_NODE_MODULES: where @duckdb/node-api is installed (bench/run.sh).
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [src, out] = process.argv.slice(2);
if (!src || !out) {
	console.error('usage: node bench/cluster_split.mjs SOURCE.parquet OUT_FOLDER');
	process.exit(2);
}
const MODULES = process.env.BENCH_NODE_MODULES || process.cwd();
const requireFrom = createRequire(path.join(MODULES, 'noop.js'));
const { DuckDBInstance } = await import(
	pathToFileURL(requireFrom.resolve('@duckdb/node-api')).href);

const lit = (s) => `'${s.replaceAll("'", "''")}'`;
const duck = await (await DuckDBInstance.create(':memory:')).connect();
// Row groups as the bench's own files have them; one file per folder.
await duck.run(`COPY (SELECT * FROM read_parquet(${lit(src)}))
	TO ${lit(out)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 122880,
	PARTITION_BY (l_returnflag), WRITE_PARTITION_COLUMNS true, OVERWRITE_OR_IGNORE true)`);
const r = await duck.runAndReadAll(`SELECT l_returnflag, count(*)::int AS n
	FROM read_parquet(${lit(out + '/*/*.parquet')}) GROUP BY 1 ORDER BY 1`);
for (const [flag, n] of r.getRows())
	console.log(`l_returnflag=${flag}: ${n} rows`);
