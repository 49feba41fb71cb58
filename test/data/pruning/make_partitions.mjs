// Regenerates test/data/pruning/partitions/ (sql/partitions.sql) with DuckDB: hive-style
// partitioned folders, the partition columns only in the folder names.
//
//   node /path/to/repo/test/data/pruning/make_partitions.mjs [OUT_DIR]   (default: its own folder)
//
// Run it from the folder holding node_modules (as test/data/scan/make_data.mjs).
//
// sales/year=Y/region=R/data_0.parquet: 600 rows, i = 1..600:
//   id bigint = i, amount bigint = i * 10 % 997,
//   year = 2022 + i % 3, region = ('eu', 'us')[i % 2]
//   (6 folders of 100 rows each)
// events/day=D/data_0.parquet: 90 rows, i = 1..90:
//   id bigint = i, day = 2024-01-01 + i % 3 days
//   (3 folders of 30 rows; one more level, events/day=D/ below nested/)
// nulls/k=K/data_0.parquet: copies of sales' year=2022/region=eu file for
//   K = 7, %2D3 (escaped -3) and __HIVE_DEFAULT_PARTITION__ (NULL)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(path.join(process.cwd(), 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const dir = path.resolve(process.argv[2] ?? path.dirname(fileURLToPath(import.meta.url)), 'partitions');
const q = (s) => s.replaceAll("'", "''");
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(path.join(dir, 'nested'), { recursive: true });
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = 1`);
await con.run(`
  CREATE TABLE sales AS
  SELECT i::BIGINT AS id, (i * 10 % 997)::BIGINT AS amount,
         (2022 + i % 3)::INTEGER AS year,
         CASE WHEN i % 2 = 0 THEN 'eu' ELSE 'us' END AS region
  FROM range(1, 601) r(i) ORDER BY i`);
await con.run(`COPY sales TO '${q(path.join(dir, 'sales'))}'
  (FORMAT parquet, PARTITION_BY (year, region), FILENAME_PATTERN 'data_{i}')`);
await con.run(`
  CREATE TABLE events AS
  SELECT i::BIGINT AS id, (DATE '2024-01-01' + (i % 3)::INTEGER) AS day
  FROM range(1, 91) r(i) ORDER BY i`);
await con.run(`COPY events TO '${q(path.join(dir, 'nested', 'events'))}'
  (FORMAT parquet, PARTITION_BY (day), FILENAME_PATTERN 'data_{i}')`);
for (const k of ['7', '%2D3', '__HIVE_DEFAULT_PARTITION__']) {
  fs.mkdirSync(path.join(dir, 'nulls', `k=${k}`), { recursive: true });
  fs.copyFileSync(path.join(dir, 'sales', 'year=2022', 'region=eu', 'data_0.parquet'),
                  path.join(dir, 'nulls', `k=${k}`, 'data_0.parquet'));
}
const r = await con.runAndReadAll(
  `SELECT filename, count(*) AS n FROM read_parquet('${q(dir)}/**/*.parquet', filename = true) GROUP BY ALL ORDER BY ALL`);
console.log(r.getRowObjects());
