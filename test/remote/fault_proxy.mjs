// A fault-injecting HTTP proxy for the object-store tests.
//   node fault_proxy.mjs LISTEN_PORT TARGET_HOST TARGET_PORT
// Requests are forwarded to the target unchanged.  A plan of faults, set by
// an unsigned "POST /__faults?plan=a,b,c" (answered 204), is consumed one
// token per forwarded request:
//   ok        forward as is
//   500 503   answer that status with an S3-style error document
//   429       answer 429 with Retry-After: 1
//   reset     destroy the connection without an answer
//   truncate  forward, but send only half the body, then cut the connection
//   etag      forward, with the ETag header replaced (the object "changed")
// "POST /__faults?delay=MS" adds MS milliseconds before every forwarded
// request from then on (a far-away store, for bench/remote.sh).
// "GET /__faults" answers the number of requests forwarded so far,
// "GET /__faults?lists" the number of those that were listings (S3's
// list-type=2, Azure's comp=list), "GET /__faults?heads" of HEADs,
// "GET /__faults?overlapped" of HEADs that arrived while another request
// was in flight (counted as they arrive, before any delay).
import http from 'node:http';

const [listenPort, targetHost, targetPort] = process.argv.slice(2);
let plan = [];
let forwarded = 0;
let listings = 0;
let heads = 0;
let overlapped = 0;
let inFlight = 0;
let delayMs = 0;

function errorDoc(res, status, extra = {}) {
  const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>Injected${status}</Code>` +
    `<Message>fault injected by the test proxy</Message></Error>`;
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': body.length, ...extra });
  res.end(body);
}

http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/__faults') {
    if (req.method === 'POST') {
      if (url.searchParams.has('delay')) delayMs = Number(url.searchParams.get('delay')) || 0;
      else plan = (url.searchParams.get('plan') || '').split(',').filter(Boolean);
      res.writeHead(204);
      res.end();
    } else {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(String(url.searchParams.has('lists') ? listings
        : url.searchParams.has('heads') ? heads
        : url.searchParams.has('overlapped') ? overlapped : forwarded));
    }
    return;
  }
  if (req.method === 'HEAD' && inFlight > 0) overlapped++;
  inFlight++;
  res.on('close', () => { inFlight--; });
  if (delayMs > 0) {
    req.pause();
    setTimeout(() => { req.resume(); forward(req, res); }, delayMs);
    return;
  }
  forward(req, res);
}).listen(Number(listenPort), '127.0.0.1');

function forward(req, res) {
  const fault = plan.length ? plan.shift() : 'ok';
  forwarded++;
  const query = new URL(req.url, 'http://x').searchParams;
  if (query.has('list-type') || query.get('comp') === 'list') listings++;
  if (req.method === 'HEAD') heads++;
  if (fault === '500' || fault === '503') return errorDoc(res, Number(fault));
  if (fault === '429') return errorDoc(res, 429, { 'Retry-After': '1' });
  if (fault === 'reset') return req.socket.destroy();
  const upstream = http.request({
    host: targetHost, port: targetPort, method: req.method, path: req.url, headers: req.headers,
  }, (up) => {
    const headers = { ...up.headers };
    if (fault === 'etag') headers.etag = '"00000000000000000000000000000000"';
    res.writeHead(up.statusCode, headers);
    if (fault !== 'truncate') return up.pipe(res);
    const chunks = [];
    up.on('data', (c) => chunks.push(c));
    up.on('end', () => {
      const all = Buffer.concat(chunks);
      res.write(all.subarray(0, Math.floor(all.length / 2)));
      res.socket.destroy();
    });
  });
  upstream.on('error', () => req.socket.destroy());
  req.pipe(upstream);
}
