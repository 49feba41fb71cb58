// Upload files to Azurite as block blobs, with a Shared Key signature of
// this script's own (Node's crypto), independent of src/remote/azure.c.
//   node azure_put.mjs ENDPOINT ACCOUNT KEY CONTAINER DIR NAME...
// ENDPOINT is the blob endpoint with the account path, e.g.
// http://127.0.0.1:10000/devstoreaccount1.  Creates the container first.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [endpoint, account, key, container, dir, ...names] = process.argv.slice(2);
const version = '2021-08-06';

async function send(method, path, query, body) {
  const date = new Date().toUTCString();
  const length = body ? String(body.length) : '';
  const extra = body ? { 'x-ms-blob-type': 'BlockBlob' } : {};
  const msHeaders = { 'x-ms-date': date, 'x-ms-version': version, ...extra };
  const canonHeaders = Object.keys(msHeaders).sort().map((h) => `${h}:${msHeaders[h]}\n`).join('');
  const url = new URL(endpoint + path);
  const canonQuery = Object.keys(query).sort().map((q) => `\n${q}:${query[q]}`).join('');
  for (const q of Object.keys(query)) url.searchParams.set(q, query[q]);
  const contentType = body ? 'application/octet-stream' : '';
  const toSign = [method, '', '', length, '', contentType, '', '', '', '', '', ''].join('\n') + '\n' +
    canonHeaders + `/${account}${url.pathname}` + canonQuery;
  const sig = createHmac('sha256', Buffer.from(key, 'base64')).update(toSign, 'utf8').digest('base64');
  const headers = { ...msHeaders, Authorization: `SharedKey ${account}:${sig}` };
  if (body) headers['Content-Type'] = contentType;
  const res = await fetch(url, { method, headers, body });
  if (res.status >= 300 && !(res.status === 409 && !body)) {
    throw new Error(`${method} ${url.pathname}: ${res.status} ${await res.text()}`);
  }
}

await send('PUT', `/${container}`, { restype: 'container' }, null);
for (const name of names) {
  await send('PUT', `/${container}/${name}`, {}, readFileSync(`${dir}/${name}`));
}
