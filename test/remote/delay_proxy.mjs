// A store far away, for bench/remote.sh: a TCP proxy that holds every
// chunk the client sends (a request, on a kept-alive connection) for
// DELAY_MS before passing it on, and streams the answers back untouched.
//   node delay_proxy.mjs LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS
// Each request thus waits DELAY_MS more for its first byte, as over a
// network with that round trip, while the bytes cost the proxy little CPU:
// it parses no HTTP.  fault_proxy.mjs's delay does the same per request
// but re-frames every response in JavaScript, which on a machine of few
// cores takes as much CPU as the scan it slows (bench/RESULTS.md).
import net from 'node:net';

const [listenPort, targetHost, targetPort, delayArg] = process.argv.slice(2);
const delayMs = Number(delayArg) || 0;

net.createServer((client) => {
  const upstream = net.connect(Number(targetPort), targetHost);
  client.setNoDelay(true);
  upstream.setNoDelay(true);
  // timers of one duration fire in the order they were set: bytes stay in order
  client.on('data', (chunk) => {
    setTimeout(() => { if (!upstream.destroyed) upstream.write(chunk); }, delayMs);
  });
  client.on('end', () => setTimeout(() => upstream.end(), delayMs));
  upstream.pipe(client);
  const close = () => { client.destroy(); upstream.destroy(); };
  client.on('error', close);
  upstream.on('error', close);
  client.on('close', close);
  upstream.on('close', close);
}).listen(Number(listenPort), '127.0.0.1');
