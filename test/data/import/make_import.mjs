// Regenerates test/data/import/ (sql/import_hive.sql, sql/import_union.sql) with DuckDB.
//
//   node /path/to/repo/test/data/import/make_import.mjs [OUT_DIR]   (default: its own folder)
//
// Run it from the folder holding node_modules (as test/data/scan/make_data.mjs).
//
// drift/: one table whose later files changed the schema (union by name)
//   part-0.parquet  i = 1..100:   id INTEGER = i, a SMALLINT = i % 100,
//                   f REAL = i / 4, d DECIMAL(5,2) = i * 0.25,
//                   day DATE = 2024-01-01 + i days
//   part-1.parquet  i = 101..250: id BIGINT = i, a INTEGER = i * 1000,
//                   f DOUBLE = i / 3, d DECIMAL(12,4) = i * 1.0625,
//                   day TIMESTAMP = 2024-01-01 + i hours, extra VARCHAR = 'x' || i
//   part-2.parquet  i = 251..300: id BIGINT = i, extra VARCHAR = 'y' || i
// conflict/: a.parquet (id INTEGER = 1, v VARCHAR = 'one'),
//            b.parquet (id INTEGER = 2, v INTEGER = 2)
// tree/: an IMPORT root with one of each kind of entry
//   sales/year=Y/region=R/data.parquet  i = 1..60: id BIGINT = i,
//       amount BIGINT = i * 7 % 101, year = 2023 + i % 2,
//       region = 'eu' when i % 3 = 0 else 'us' (4 files); sales/_SUCCESS (empty)
//   flat.parquet      i = 1..5: id BIGINT = i, name VARCHAR = 'n' || i
//   notes/README.txt  a folder without Parquet files
//   README.txt, _tmp/flat.parquet, .hidden.parquet (copies of flat.parquet)
//   day=1/flat.parquet  a partition folder next to plain folders
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(path.join(process.cwd(), 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const dir = path.resolve(process.argv[2] ?? path.dirname(fileURLToPath(import.meta.url)));
const q = (s) => s.replaceAll("'", "''");
for (const d of ['drift', 'conflict', 'tree'])
  fs.rmSync(path.join(dir, d), { recursive: true, force: true });
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = 1`);
const copy = async (query, file) => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  await con.run(`COPY (${query}) TO '${q(path.join(dir, file))}' (FORMAT parquet)`);
};

await copy(`SELECT i::INTEGER AS id, (i % 100)::SMALLINT AS a, (i / 4)::REAL AS f,
                   (i * 0.25)::DECIMAL(5,2) AS d, DATE '2024-01-01' + i::INTEGER AS day
            FROM range(1, 101) r(i) ORDER BY i`, 'drift/part-0.parquet');
await copy(`SELECT i::BIGINT AS id, (i * 1000)::INTEGER AS a, (i / 3)::DOUBLE AS f,
                   (i * 1.0625)::DECIMAL(12,4) AS d,
                   TIMESTAMP '2024-01-01' + to_hours(i::BIGINT) AS day, 'x' || i AS extra
            FROM range(101, 251) r(i) ORDER BY i`, 'drift/part-1.parquet');
await copy(`SELECT i::BIGINT AS id, 'y' || i AS extra
            FROM range(251, 301) r(i) ORDER BY i`, 'drift/part-2.parquet');

await copy(`SELECT 1::INTEGER AS id, 'one' AS v`, 'conflict/a.parquet');
await copy(`SELECT 2::INTEGER AS id, 2::INTEGER AS v`, 'conflict/b.parquet');

for (const year of [2023, 2024])
  for (const region of ['eu', 'us'])
    await copy(`SELECT i::BIGINT AS id, (i * 7 % 101)::BIGINT AS amount
                FROM range(1, 61) r(i)
                WHERE 2023 + i % 2 = ${year} AND (CASE WHEN i % 3 = 0 THEN 'eu' ELSE 'us' END) = '${region}'
                ORDER BY i`, `tree/sales/year=${year}/region=${region}/data.parquet`);
fs.writeFileSync(path.join(dir, 'tree/sales/_SUCCESS'), '');
await copy(`SELECT i::BIGINT AS id, 'n' || i AS name FROM range(1, 6) r(i) ORDER BY i`, 'tree/flat.parquet');
fs.mkdirSync(path.join(dir, 'tree/notes'), { recursive: true });
fs.writeFileSync(path.join(dir, 'tree/notes/README.txt'), 'not data\n');
fs.writeFileSync(path.join(dir, 'tree/README.txt'), 'not data\n');
for (const f of ['_tmp/flat.parquet', '.hidden.parquet', 'day=1/flat.parquet']) {
  fs.mkdirSync(path.dirname(path.join(dir, 'tree', f)), { recursive: true });
  fs.copyFileSync(path.join(dir, 'tree/flat.parquet'), path.join(dir, 'tree', f));
}
const r = await con.runAndReadAll(
  `SELECT filename, count(*) AS n FROM read_parquet('${q(dir)}/**/*.parquet', filename = true, union_by_name = true) GROUP BY ALL ORDER BY ALL`);
console.log(r.getRowObjects());
