// A transparent HTTP recorder placed between `malipo conform` and `prism proxy`.
//
// Prism's CLI has no machine-readable log: it prints human-formatted lines, and a violation line
// ("Violation: response.body ...") does not say which request it belongs to. Prism does, however,
// attach every violation of an exchange to that exchange's response, as the JSON header
// `sl-violations` (prism-http-server addViolationHeader). This recorder forwards each request
// unchanged to Prism, streams the response back unchanged, and writes one JSON line per exchange:
//
//   {"seq":1,"method":"POST","path":"/v1/payment/init?x=1","status":400,"ms":12,
//    "violations":[{"location":["request","body","amount"],"severity":"Error","code":"type","message":"..."}],
//    "violations_truncated":false,"response_body":"..." (only when a response violation exists),
//    "error":"..." (only when the exchange did not complete)}
//
// Usage: node prism-recorder.mjs --upstream http://127.0.0.1:PORT --out FILE.jsonl [--listen 127.0.0.1:0]
// Prints `listening on http://HOST:PORT` once ready.
import http from 'node:http';
import fs from 'node:fs';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
if (!args.upstream || !args.out) {
  console.error('usage: node prism-recorder.mjs --upstream URL --out FILE.jsonl [--listen HOST:PORT]');
  process.exit(2);
}
const upstream = new URL(args.upstream);
const [listenHost, listenPort] = (args.listen || '127.0.0.1:0').split(/:(?=\d+$)/);
const out = fs.createWriteStream(args.out, { flags: 'a' });
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const KEEP_BODY = 16 * 1024;
let seq = 0;
let open = 0;

function parseViolations(raw) {
  if (raw === undefined) return { violations: [], truncated: false };
  const value = Array.isArray(raw) ? raw.join(',') : String(raw);
  const prefix = 'Too many violations! ';
  if (value.startsWith(prefix)) {
    // Prism cut the JSON at ~8 KiB; keep what parses, flag the rest.
    return { violations: [], truncated: true, raw: value.slice(prefix.length) };
  }
  try {
    return { violations: JSON.parse(value), truncated: false };
  } catch (e) {
    return { violations: [], truncated: true, raw: value };
  }
}

const server = http.createServer((req, res) => {
  const id = ++seq;
  open++;
  const started = Date.now();
  let done = false;
  const record = extra => {
    if (done) return;
    done = true;
    open--;
    out.write(JSON.stringify({ seq: id, method: req.method, path: req.url, ms: Date.now() - started, ...extra }) + '\n');
  };
  const headers = { ...req.headers, host: upstream.host };
  const preq = http.request(
    { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent },
    pres => {
      const v = parseViolations(pres.headers['sl-violations']);
      const responseViolation = v.truncated || v.violations.some(x => (x.location || [])[0] === 'response');
      const kept = [];
      let keptLen = 0;
      res.writeHead(pres.statusCode, pres.statusMessage, pres.rawHeaders);
      pres.on('data', chunk => {
        if (keptLen < KEEP_BODY) {
          kept.push(chunk);
          keptLen += chunk.length;
        }
        res.write(chunk);
      });
      pres.on('end', () => {
        res.end();
        const entry = { status: pres.statusCode, violations: v.violations, violations_truncated: v.truncated };
        if (v.raw !== undefined) entry.violations_raw = v.raw;
        if (responseViolation) entry.response_body = Buffer.concat(kept).toString('utf8').slice(0, KEEP_BODY);
        record(entry);
      });
      pres.on('error', e => record({ status: pres.statusCode, violations: v.violations, error: 'upstream response: ' + e.message }));
    },
  );
  preq.on('error', e => {
    record({ status: 0, violations: [], error: 'upstream: ' + e.message });
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end('prism-recorder: ' + e.message);
  });
  req.pipe(preq);
  res.on('close', () => {
    if (!done) {
      record({ status: 0, violations: [], error: 'client closed the connection before the response completed (Prism did not answer)' });
      preq.destroy();
    }
  });
});
server.keepAliveTimeout = 5000;
server.listen(Number(listenPort), listenHost, () => {
  const a = server.address();
  console.log(`listening on http://${a.address}:${a.port}`);
});
const stop = () => {
  server.close();
  out.end(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
