// Regenerates the pruning fixtures of test/data/pruning/ (sql/pruning.sql) with
// DuckDB (outside data/, whose folder tests expect rowgroups.parquet alone).
//
//   node /path/to/repo/test/data/pruning/make_pruning.mjs [OUT_DIR [csv2parquet]]   (default: its own folder)
//
// Run it from the folder holding node_modules (as test/data/scan/make_data.mjs).  With the
// path of bench/bin/csv2parquet (make -C bench csv2parquet), the same rows
// are also written by this project's writer into pruning_dict.parquet.
//
// 16384 rows, i = 1..16384, in 8 row groups of 2048 (rg = (i - 1) / 2048,
// j = (i - 1) % 2048), so that min/max statistics of k, k4, t and d
// overlap in every row group while each row group holds its own values:
//   id  bigint   i                                   (sorted)
//   k   bigint   (j % 100) * 10 + rg                 (k % 10 = row group)
//   k4  integer  the same as k
//   t   varchar  'v' || k
//   d   date     2024-01-01 + ((j % 50) * 10 + rg) days
//   dm  decimal(9,2)   k / 100 (INT32; INT64 in pruning_dict.parquet)
//   dl  decimal(18,3)  k / 1000 (INT64)
// pruning.parquet (DuckDB): dictionary-encoded chunks with bloom filters.
// pruning_dict.parquet (csv2parquet): dictionary chunks, no bloom filters.
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(path.join(process.cwd(), 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const dir = path.resolve(process.argv[2] ?? path.dirname(fileURLToPath(import.meta.url)));
const csv2parquet = process.argv[3];
const q = (s) => s.replaceAll("'", "''");
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = 1`);
await con.run(`
  CREATE TABLE p AS
  SELECT i::BIGINT AS id,
         (((i - 1) % 2048) % 100 * 10 + (i - 1) // 2048)::BIGINT AS k,
         (((i - 1) % 2048) % 100 * 10 + (i - 1) // 2048)::INTEGER AS k4,
         'v' || (((i - 1) % 2048) % 100 * 10 + (i - 1) // 2048)::VARCHAR AS t,
         (DATE '2024-01-01' + (((i - 1) % 2048) % 50 * 10 + (i - 1) // 2048)::INTEGER) AS d,
         ((((i - 1) % 2048) % 100 * 10 + (i - 1) // 2048) / 100)::DECIMAL(9,2) AS dm,
         ((((i - 1) % 2048) % 100 * 10 + (i - 1) // 2048) / 1000)::DECIMAL(18,3) AS dl
  FROM range(1, 16385) r(i)
  ORDER BY i`);
const out = path.join(dir, 'pruning.parquet');
await con.run(`COPY p TO '${q(out)}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 2048)`);
const r = await con.runAndReadAll(
  `SELECT path_in_schema, count(*) AS chunks, bool_and(bloom_filter_offset IS NOT NULL) AS bloom,
          any_value(encodings) AS encodings
   FROM parquet_metadata('${q(out)}') GROUP BY ALL ORDER BY ALL`);
console.log(`wrote ${out}:`, r.getRowObjects());
if (csv2parquet) {
  const csv = path.join(dir, 'pruning_dict.csv.tmp');
  await con.run(`COPY p TO '${q(csv)}' (FORMAT csv, HEADER)`);
  const out2 = path.join(dir, 'pruning_dict.parquet');
  execFileSync(csv2parquet, ['--codec', 'zstd', '--row-group', '2048',
    'i64,i64,i32,str,date,dec9.2,dec18.3', csv, out2], { stdio: 'inherit' });
  execFileSync('rm', ['-f', csv]);
  console.log(`wrote ${out2}`);
}
