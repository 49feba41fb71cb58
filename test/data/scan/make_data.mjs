// Regenerates the pg_regress fixtures of data/ with DuckDB.
//
//   node /path/to/repo/test/data/scan/make_data.mjs [OUT_DIR]   (default: its own folder)
//
// Run it from a folder whose node_modules holds @duckdb/node-api, outside
// the repository (e.g. ${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw, where
// test/generated/generate.sh installs it); OUT_DIR is then an absolute path.
//
// rowgroups.parquet: 20480 rows in 10 row groups of 2048 rows, sorted by id,
// so that every row group has disjoint min/max statistics:
//   id  bigint   1..20480
//   grp integer  (id - 1) / 2048, i.e. the row group number 0..9
//   n   integer  NULL in row group 3 (an all-null chunk), else id
//   d   date     2024-01-01 + (id - 1) / 100 days
//   ts  timestamp 2024-01-01 00:00:00 + (id - 1) minutes
//   f   double   id / 4.0
//   s   varchar  's' || lpad(id, 5, '0')
// Every value follows from id, so the tests' expected results are computed
// by hand from these formulas, not copied from our own output.
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
await con.run(`
  CREATE TABLE rg AS
  SELECT i::BIGINT                                           AS id,
         ((i - 1) // 2048)::INTEGER                          AS grp,
         CASE WHEN (i - 1) // 2048 = 3 THEN NULL ELSE i::INTEGER END AS n,
         (DATE '2024-01-01' + ((i - 1) // 100)::INTEGER)     AS d,
         (TIMESTAMP '2024-01-01 00:00:00' + to_minutes(i - 1)) AS ts,
         (i / 4.0)::DOUBLE                                   AS f,
         's' || lpad(i::VARCHAR, 5, '0')                     AS s
  FROM range(1, 20481) t(i)
  ORDER BY i`);
const out = path.join(dir, 'rowgroups.parquet');
await con.run(`COPY rg TO '${q(out)}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 2048)`);
const r = await con.runAndReadAll(
  `SELECT count(*) AS n, count(DISTINCT row_group_id) AS rgs FROM parquet_metadata('${q(out)}')`);
console.log(`wrote ${out}:`, r.getRowObjects()[0]);
