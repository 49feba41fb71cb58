// Data for bench/amudai.sh: the t10m table of bench/e2e_gen.sql (same
// seeded DuckDB generator, N rows) written as one ZSTD Parquet file.
//
//   node amudai_gen.mjs NODE_MODULES_PARENT ROWS OUT.parquet
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

const [modulesParent, rows, out] = process.argv.slice(2);
if (!modulesParent || !rows || !out) {
	console.error('usage: node amudai_gen.mjs NODE_MODULES_PARENT ROWS OUT.parquet');
	process.exit(2);
}
const require = createRequire(path.join(path.resolve(modulesParent), 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);
const here = path.dirname(new URL(import.meta.url).pathname);
const gen = fs.readFileSync(path.join(here, 'e2e_gen.sql'), 'utf8');
// only the t10m part of the generator
const t10m = gen.slice(0, gen.indexOf('CREATE TABLE lineitem_base'))
	.replaceAll('{{N_T10M}}', String(rows)).replaceAll('{{SEED}}', '42');
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run('SET threads = 1');
const sql = t10m.split('\n').filter((l) => !l.trim().startsWith('--')).join('\n');
for (const stmt of sql.split(';').map((s) => s.trim()).filter((s) => s))
	await con.run(stmt);
await con.run(`COPY t10m TO '${out}' (FORMAT parquet, COMPRESSION zstd)`);
console.log(`wrote ${out}`);
