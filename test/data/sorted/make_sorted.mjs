// Regenerates the pg_regress fixture of the table option "sorted"
// (sql/sorted.sql), with DuckDB: three files holding the rows i = 0..2999
// with i % 3 = 0, 1, 2 (a.parquet, b.parquet, c.parquet), each stored in the
// order k DESC NULLS FIRST, t ASC, v ASC, in row groups of 256 rows, where
//   k = NULL when i % 97 = 5, else i / 7 (integer division)
//   t = 'w' || lpad((i * 37 % 1000)::text, 4, '0')
//   v = i
// and unsorted.parquet: the same 3000 rows in the order of (i * 7919) % 3000;
// in-order/p1..p4.parquet: k = 0..999 ascending in row groups of 100, in
// four disjoint quarters (p1: 750..999, p2: 0..249, p3: 500..749, p4:
// 250..499), t = 'r' || k.
//
//   node /path/to/repo/test/data/sorted/make_sorted.mjs [OUT_DIR]   (default: its own folder)
//
// Run it from a folder whose node_modules holds @duckdb/node-api, outside
// the repository (e.g. ${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw, where
// test/generated/generate.sh installs it); OUT_DIR is then an absolute path.
import fs from 'node:fs';
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
const rows = `SELECT CASE WHEN i % 97 = 5 THEN NULL ELSE (i // 7)::INTEGER END AS k,
    'w' || lpad(((i * 37) % 1000)::VARCHAR, 4, '0') AS t, i::INTEGER AS v
  FROM range(0, 3000) r(i)`;
for (const [f, name] of [[0, 'a'], [1, 'b'], [2, 'c']]) {
	const out = path.join(dir, `${name}.parquet`);
	await con.run(`COPY (SELECT * FROM (${rows}) WHERE v % 3 = ${f}
      ORDER BY k DESC NULLS FIRST, t, v)
    TO '${q(out)}' (FORMAT parquet, ROW_GROUP_SIZE 256)`);
	console.log('wrote', out);
}
const out = path.join(dir, 'unsorted.parquet');
await con.run(`COPY (SELECT * FROM (${rows}) ORDER BY (v * 7919) % 3000)
  TO '${q(out)}' (FORMAT parquet, ROW_GROUP_SIZE 256)`);
console.log('wrote', out);
const inOrder = path.join(dir, 'in-order');
fs.mkdirSync(inOrder, { recursive: true });
for (const [f, lo] of [[1, 750], [2, 0], [3, 500], [4, 250]]) {
	const out = path.join(inOrder, `p${f}.parquet`);
	await con.run(`COPY (SELECT i::INTEGER AS k, 'r' || i AS t FROM range(${lo}, ${lo + 250}) r(i) ORDER BY i)
    TO '${q(out)}' (FORMAT parquet, ROW_GROUP_SIZE 100)`);
	console.log('wrote', out);
}
