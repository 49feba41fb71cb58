// Regenerates test/data/range/out_of_range.parquet, the pg_regress fixture of
// values PostgreSQL cannot hold (sql/types.sql): 5000 rows in row groups of
// 2048, id = 0..4999, d = DATE '2020-01-01' + id % 100, except id 4321
// (row 225 of row group 2), whose d is DATE '5881000-01-01': a valid Parquet
// DATE (days since 1970 in an INT32) past PostgreSQL's last date, 5874897 AD.
// ok = d for the valid rows, NULL for id 4321.
//
//   node /path/to/repo/test/data/range/make_range.mjs [OUT_DIR]   (default: its own folder)
//
// Run it from a folder whose node_modules holds @duckdb/node-api, outside
// the repository (e.g. ${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw, where
// test/generated/generate.sh installs it); OUT_DIR is then an absolute path.
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(path.join(process.cwd(), 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const dir = path.resolve(process.argv[2] ?? path.dirname(fileURLToPath(import.meta.url)));
const q = (s) => s.replaceAll("'", "''");
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = 1`);
await con.run(`COPY (SELECT id,
    CASE WHEN id = 4321 THEN DATE '5881000-01-01'
         ELSE DATE '2020-01-01' + (id % 100)::INTEGER END AS d,
    CASE WHEN id = 4321 THEN NULL
         ELSE DATE '2020-01-01' + (id % 100)::INTEGER END AS ok
  FROM range(0, 5000) r(id) ORDER BY id)
  TO '${q(path.join(dir, 'out_of_range.parquet'))}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
console.log('wrote', path.join(dir, 'out_of_range.parquet'));
