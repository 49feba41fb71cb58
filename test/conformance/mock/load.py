# Turns the DuckDB export into file_fdw foreign tables + a mock parquet_create_foreign_table().
import sys
sys.dont_write_bytecode = True
import json, csv, os, re, subprocess, sys
idx = json.load(open(sys.argv[1] + '/index.json'))
def arr(v, elem):
    if v is None: return 'NULL'
    if isinstance(v, list): return '{' + ','.join(arr(x, elem) for x in v) + '}'
    if isinstance(v, bool): return 't' if v else 'f'
    s = v if isinstance(v, str) else json.dumps(v)
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'
def fixbc(s):
    m = re.match(r'^(.*?) \(BC\)(.*)$', s)
    return (m.group(1) + m.group(2) + ' BC') if m else s
stmts = []
for i, e in enumerate(idx):
    rows = list(csv.reader(open(e['csv'], newline=''), ))
    raw = open(e['csv'], newline='').read()
    # re-read keeping NULL vs "" distinction: DuckDB writes NULL as empty, "" as ""
    import sys as _s; _s.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')); import normalize as nz
    rows = nz.parse_csv(raw)
    outp = e['csv'] + '.pg.csv'
    with open(outp, 'w', newline='') as f:
        for r in rows:
            cells = []
            for c, (name, pgt, kind) in zip(r, e['cols']):
                if c.is_null: cells.append(''); continue
                t = c.text
                if kind == 'list':
                    t = arr(json.loads(t), pgt)
                elif pgt.startswith('timestamp') or pgt == 'date':
                    t = fixbc(t)
                cells.append('"' + t.replace('"', '""') + '"')
            f.write(','.join(cells) + '\n')
    os.chmod(outp, 0o644)
    coldefs = ', '.join('"%s" %s' % (n.replace('"', '""'), t) for n, t, k in e['cols'])
    stmts.append("INSERT INTO mock_index VALUES (%s, %s, %s);" % tuple("'" + x.replace("'", "''") + "'" for x in (e['file'], outp, coldefs)))
sql = """
CREATE EXTENSION IF NOT EXISTS file_fdw;
CREATE SERVER pf_conformance_srv FOREIGN DATA WRAPPER file_fdw;
CREATE TABLE mock_index (path text primary key, csv text, coldefs text);
CREATE FUNCTION parquet_create_foreign_table(t text, s text, p text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  SELECT * INTO r FROM mock_index WHERE path = p;
  IF NOT FOUND THEN
    IF p LIKE '%.encrypted' THEN RAISE EXCEPTION 'encrypted' USING ERRCODE = '0A000'; END IF;
    RAISE EXCEPTION 'mock: cannot read %', p USING ERRCODE = 'XX001';
  END IF;
  EXECUTE format('CREATE FOREIGN TABLE %I (%s) SERVER %I OPTIONS (filename %L, format %L)', t, r.coldefs, s, r.csv, 'csv');
END $$;
""" + "\n".join(stmts)
open(sys.argv[1] + '/setup.sql', 'w').write(sql)
print(len(stmts))
