// Regenerates test/data/variant/variant.parquet, the pg_regress fixture of VARIANT
// columns written (and shredded) by DuckDB.
//
//   node /path/to/repo/test/data/variant/make_variant.mjs [OUT_DIR]   (default: its own folder)
//
// Run it from a folder whose node_modules holds @duckdb/node-api, outside
// the repository (e.g. ${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw, where
// test/generated/generate.sh installs it); OUT_DIR is then an absolute path.
//
// variant.parquet: 9000 rows in 2 row groups of 4500 (more than one scan
// batch of 4096 rows each), columns id bigint 1..9000 and v VARIANT whose
// value follows from id (DuckDB shreds the columns it finds, so the file
// mixes typed_value columns, residual values and partially shredded
// objects):
//   id % 100 = 99   NULL (DuckDB writes it as Variant null, value 00)
//   id % 8 = 0      id
//   id % 8 = 1      's' || id
//   id % 8 = 2      {a: id, b: 'x' || id}
//   id % 8 = 3      {a: 'str' || id, c: [id, id + 1]}
//   id % 8 = 4      [id, NULL, id * 2]
//   id % 8 = 5      {a: id, d: {deep: [{k: id}, {k: NULL}]}, z: id / 4.0 (DOUBLE)}
//   id % 8 = 6      id * 1.25 as DECIMAL(18,3)
//   id % 8 = 7      {b: 'only b', d: DATE '2020-02-29' + id % 1000, e: id % 16 = 7}
// The test builds the same values with jsonb_build_object() from id and
// compares every row.
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
await con.run(`CREATE TABLE t AS SELECT id, CASE
    WHEN id % 100 = 99 THEN NULL
    WHEN id % 8 = 0 THEN id::VARIANT
    WHEN id % 8 = 1 THEN ('s' || id)::VARIANT
    WHEN id % 8 = 2 THEN {'a': id, 'b': 'x' || id}::VARIANT
    WHEN id % 8 = 3 THEN {'a': 'str' || id, 'c': [id, id + 1]}::VARIANT
    WHEN id % 8 = 4 THEN [id, NULL, id * 2]::VARIANT
    WHEN id % 8 = 5 THEN {'a': id, 'd': {'deep': [{'k': id}, {'k': NULL}]}, 'z': id / 4.0}::VARIANT
    WHEN id % 8 = 6 THEN (id * 1.25)::DECIMAL(18,3)::VARIANT
    ELSE {'b': 'only b', 'd': DATE '2020-02-29' + (id % 1000)::INTEGER, 'e': id % 16 = 7}::VARIANT
  END AS v
  FROM range(1, 9001) r(id) ORDER BY id`);
await con.run(`COPY t TO '${q(path.join(dir, 'variant.parquet'))}' (FORMAT parquet, ROW_GROUP_SIZE 4500)`);
console.log('wrote', path.join(dir, 'variant.parquet'));
