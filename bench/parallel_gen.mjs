// Data for bench/parallel.sh, written by DuckDB (one thread, so the file is
// the same on every run): t10m.parquet, N rows of (a bigint, b int, d double)
// shaped like e2e_gen.sql's t10m (a sorted and unique, b uniform, d 1% NULL),
// SNAPPY, 122880-row row groups; prints DuckDB's count and sums as JSON.
//
//   node bench/parallel_gen.mjs OUT.parquet N
//
// @duckdb/node-api is loaded from $BENCH_NODE_MODULES (default
// ~/.cache/parquet_fdw), as bench/e2e.mjs does.
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [out, n] = process.argv.slice(2);
if (!out || !/^[0-9]+$/.test(n ?? '')) {
	console.error('usage: node parallel_gen.mjs OUT.parquet ROWS');
	process.exit(2);
}
const modules = process.env.BENCH_NODE_MODULES ?? path.join(os.homedir(), '.cache', 'parquet_fdw');
const requireFrom = createRequire(path.join(modules, 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(requireFrom.resolve('@duckdb/node-api')).href);

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run('SET threads = 1');
const q = (s) => s.replaceAll("'", "''");
await c.run(`COPY (SELECT (i * 16 + hash(i, 0, 42) % 16)::BIGINT AS a,
    ((hash(i, 1, 42) % 2000001)::BIGINT - 1000000)::INTEGER AS b,
    CASE WHEN hash(i, 5, 42) % 100 = 0 THEN NULL
         ELSE (hash(i, 6, 42) % 100000000)::DOUBLE / 1000 END AS d
  FROM range(${n}) r(i) ORDER BY a)
  TO '${q(out)}' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 122880)`);
const r = await c.runAndReadAll(`SELECT count(*)::VARCHAR, sum(a)::VARCHAR, sum(b)::VARCHAR
  FROM read_parquet('${q(out)}')`);
const [count, sumA, sumB] = r.getRows()[0];
console.log(JSON.stringify({ count, sumA, sumB }));
