// For each corpus parquet file with an expected CSV: export a PG-loadable CSV + PG column types.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const require = createRequire(process.cwd() + '/noop.js');
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);
import fs from 'node:fs';
import path from 'node:path';
const [corpus, outdir] = process.argv.slice(2);
fs.mkdirSync(outdir, { recursive: true });
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads=1; SET TimeZone='UTC'`);
function pgType(t) {
  if (/^(STRUCT|MAP|UNION|VARIANT|JSON)/.test(t) || /\[\]\[\]$/.test(t) || (/\[\]$/.test(t) && /STRUCT|MAP/.test(t))) return ['jsonb', 'json'];
  const m = t.match(/^(.*)\[\]$/);
  if (m) { const e = pgType(m[1]); return [e[0] + '[]', 'list', e]; }
  const map = {BOOLEAN:'boolean',TINYINT:'smallint',SMALLINT:'smallint',INTEGER:'integer',BIGINT:'bigint',UTINYINT:'smallint',USMALLINT:'integer',UINTEGER:'bigint',UBIGINT:'numeric',HUGEINT:'numeric',FLOAT:'real',DOUBLE:'double precision',VARCHAR:'text',BLOB:'bytea',DATE:'date',TIMESTAMP:'timestamp','TIMESTAMP_NS':'timestamp','TIMESTAMP_MS':'timestamp','TIMESTAMP_S':'timestamp','TIMESTAMP WITH TIME ZONE':'timestamptz',TIME:'time',UUID:'uuid',INTERVAL:'interval'};
  if (map[t]) return [map[t], t === 'BLOB' ? 'blob' : 'plain'];
  const d = t.match(/^DECIMAL\((\d+),(\d+)\)$/); if (d) return [`numeric(${d[1]},${d[2]})`, 'plain'];
  return ['text', 'plain'];
}
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
const out = [];
const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap(e => e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]);
for (const f of ['data', 'shredded_variant', 'bad_data'].flatMap(s => walk(path.join(corpus, s)))) {
  if (!f.endsWith('.parquet') || !fs.existsSync(f + '.expected.csv')) continue;
  try {
    const desc = (await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${q(f)})`)).getRowObjects();
    const cols = desc.map(r => ({ name: r.column_name, t: r.column_type, pg: pgType(r.column_type) }));
    const sel = cols.map(c => {
      const id = '"' + c.name.replaceAll('"', '""') + '"';
      if (c.pg[1] === 'json') return `to_json(${id})::VARCHAR`;
      if (c.pg[1] === 'blob') return `'\\x' || hex(${id})`;
      if (c.pg[1] === 'list') return `to_json(${id})::VARCHAR`;
      if (c.t === 'UUID') return `${id}::VARCHAR`;
      return id;
    }).join(', ');
    const csv = path.join(outdir, out.length + '.csv');
    await con.run(`COPY (SELECT ${sel} FROM read_parquet(${q(f)})) TO ${q(csv)} (FORMAT csv, HEADER false)`);
    out.push({ file: f, csv, cols: cols.map(c => [c.name, c.pg[0], c.pg[1]]) });
  } catch (e) { console.error('skip', f, e.message.slice(0, 100)); }
}
fs.writeFileSync(path.join(outdir, 'index.json'), JSON.stringify(out));
console.log('exported', out.length);
