// Summarises a Prism validating-proxy run: the recorder's JSON lines (one per exchange, with the
// `sl-violations` Prism attached) cross-checked against Prism's own text log.
//
// Usage: node prism-summary.mjs EXCHANGES.jsonl PRISM.log SPEC.yaml
// Exit 0: no response violation, every exchange completed, and the two sources agree.
// Exit 1: otherwise (each problem is printed).
import fs from 'node:fs';
import { createRequire } from 'node:module';

const [exchangesFile, prismLog, specFile] = process.argv.slice(2);
if (!exchangesFile || !prismLog || !specFile) {
  console.error('usage: node prism-summary.mjs EXCHANGES.jsonl PRISM.log SPEC.yaml');
  process.exit(2);
}

// Operation lookup: METHOD + concrete path -> operationId, from the document's paths.
const require = createRequire(new URL('../package.json', import.meta.url));
let routes = [];
try {
  const YAML = require('yaml');
  const doc = YAML.parse(fs.readFileSync(specFile, 'utf8'));
  for (const [tpl, item] of Object.entries(doc.paths || {})) {
    const re = new RegExp('^' + tpl.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$');
    for (const [m, op] of Object.entries(item || {})) {
      if (['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(m)) {
        routes.push({ method: m.toUpperCase(), re, tpl, id: op.operationId || `${m.toUpperCase()} ${tpl}` });
      }
    }
  }
} catch (e) {
  console.error(`prism-summary: cannot index ${specFile} (${e.message}); operations are shown as method and path`);
}
const opOf = (method, path) => {
  const p = path.split('?')[0];
  const r = routes.find(r => r.method === method && r.re.test(p));
  return r ? r.id : `${method} ${p} (undocumented)`;
};


// Prism validates with Ajv, whose `multipleOf` (without the multipleOfPrecision option, which Prism does
// not set) tests `value / multipleOf` for being an integer in binary floating point: 2188118558.01 / 0.01
// is 218811855801.00003 there, so Ajv rejects an amount JSON Schema accepts (multipleOf is defined on the
// mathematical value). Such a violation is re-checked here in exact decimal arithmetic on the JSON text
// the sandbox sent; when the value is a multiple after all, it is a verified false positive of Prism.
// PRISM_PROXY_STRICT=1 counts those as failures too.
function rawAt(text, path) {
  // Returns the JSON text of the value at path (keys and array indexes) in text, or undefined.
  let i = 0;
  const ws = () => { while (/\s/.test(text[i])) i++; };
  const skipString = () => { i++; while (text[i] !== '"') { if (text[i] === '\\') i++; i++; if (i >= text.length) throw 0; } i++; };
  const readString = () => { const s = i; skipString(); return JSON.parse(text.slice(s, i)); };
  const skipValue = () => {
    ws();
    const c = text[i];
    if (c === '"') return skipString();
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++; ws();
      if (text[i] === close) { i++; return; }
      for (;;) {
        if (c === '{') { ws(); skipString(); ws(); i++; }
        skipValue(); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === close) { i++; return; }
        throw 0;
      }
    }
    while (i < text.length && !/[\s,}\]]/.test(text[i])) i++;
  };
  const find = depth => {
    ws();
    if (depth === path.length) { const s = i; skipValue(); return text.slice(s, i); }
    const want = String(path[depth]);
    const c = text[i];
    if (c !== '{' && c !== '[') return undefined;
    i++; ws();
    for (let n = 0; text[i] !== (c === '{' ? '}' : ']'); n++) {
      let key = String(n);
      if (c === '{') { ws(); key = readString(); ws(); i++; }
      if (key === want) return find(depth + 1);
      skipValue(); ws();
      if (text[i] === ',') { i++; ws(); }
    }
    return undefined;
  };
  try { return find(0); } catch { return undefined; }
}
function isDecimalMultiple(value, step) {
  const dec = /^-?\d+(\.\d+)?$/;
  if (!dec.test(value) || !dec.test(step)) return false;
  const places = Math.max((value.split('.')[1] || '').length, (step.split('.')[1] || '').length);
  const scaled = t => { const [a, b = ''] = t.split('.'); return BigInt(a + b.padEnd(places, '0')); };
  const st = scaled(step);
  return st !== 0n && scaled(value) % st === 0n;
}
function verifiedFalsePositive(x, v) {
  const loc = v.location || [];
  const m = /must be multiple of (\S+)$/.exec(v.message || '');
  if (v.code !== 'multipleOf' || !m || loc[0] !== 'response' || loc[1] !== 'body' || !x.response_body) return null;
  const raw = rawAt(x.response_body, loc.slice(2));
  if (raw === undefined || !isDecimalMultiple(raw, m[1])) return null;
  return `${raw} is ${m[1]} × ${(() => { const p = Math.max((raw.split('.')[1] || '').length, (m[1].split('.')[1] || '').length); const sc = t => { const [a, b = ''] = t.split('.'); return BigInt(a + b.padEnd(p, '0')); }; return (sc(raw) / sc(m[1])).toString(); })()} exactly; Ajv divides in binary floating point (${Number(raw)} / ${Number(m[1])} = ${Number(raw) / Number(m[1])})`;
}

const exchanges = fs
  .readFileSync(exchangesFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map(l => JSON.parse(l));

const where = v => (v.location || []).join('.');
let requestViolations = 0;
let requestWarnings = 0;
const requestByKind = new Map();
const responseViolations = [];
const falsePositives = [];
const incomplete = [];
const truncated = [];
const statuses = new Map();
for (const x of exchanges) {
  statuses.set(x.status, (statuses.get(x.status) || 0) + 1);
  if (x.error) incomplete.push(x);
  if (x.violations_truncated) truncated.push(x);
  for (const v of x.violations || []) {
    const side = (v.location || [])[0];
    if (side === 'response') {
      const why = verifiedFalsePositive(x, v);
      if (why && process.env.PRISM_PROXY_STRICT !== '1') falsePositives.push({ x, v, why });
      else responseViolations.push({ x, v });
    } else {
      requestViolations++;
      if (String(v.severity) !== 'Error') requestWarnings++;
      const key = `${opOf(x.method, x.path)} | ${v.severity} | ${where(v)} | ${v.message}`;
      requestByKind.set(key, (requestByKind.get(key) || 0) + 1);
    }
  }
}

// Prism's own log (human format, one line per event) as a cross-check of the counts above.
const log = fs.readFileSync(prismLog, 'utf8').replace(/\x1b\[[0-9;]*m/g, '').split('\n');
const logReceived = log.filter(l => /\[HTTP SERVER\] .* Request received$/.test(l)).length;
const logReqViol = log.filter(l => /\[VALIDATOR\].*Violation: request\b/.test(l)).length;
const logRespViol = log.filter(l => /\[VALIDATOR\].*Violation: response\b/.test(l));
const logTerminated = log.filter(l => /Request terminated with error/.test(l));
const logFatal = log.filter(l => /\b(fatal|error)\b/.test(l) && !/\[VALIDATOR\]/.test(l) && !/Request terminated/.test(l));

console.log('');
console.log('== Prism validating proxy: summary ==');
console.log(`exchanges proxied:       ${exchanges.length}   (Prism log "Request received": ${logReceived})`);
console.log(`  by status:             ${[...statuses.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ')}`);
console.log(`request violations:      ${requestViolations}   (${requestWarnings} of them warnings; Prism log: ${logReqViol}) — expected, counted only`);
console.log(`response violations:     ${responseViolations.length}   (Prism log: ${logRespViol.length}${falsePositives.length ? `, of which ${falsePositives.length} verified Prism false positives, listed below` : ''}) — must be 0`);
console.log(`  Prism false positives: ${falsePositives.length}   (multipleOf re-checked in exact decimal; PRISM_PROXY_STRICT=1 fails on them)`);
console.log(`incomplete exchanges:    ${incomplete.length}`);
console.log(`"Request terminated with error" in Prism log: ${logTerminated.length}`);

if (process.env.PRISM_SUMMARY_VERBOSE === '1' || requestByKind.size <= 60) {
  console.log('\nrequest violations by operation | severity | location | message (count):');
  for (const [k, n] of [...requestByKind.entries()].sort()) console.log(`  ${String(n).padStart(3)}  ${k}`);
} else {
  console.log(`\n${requestByKind.size} distinct request violations (PRISM_SUMMARY_VERBOSE=1 lists them)`);
}

let failed = false;
if (falsePositives.length > 0) {
  console.log('\nPrism false positives (not failures; verified on the JSON text the sandbox sent):');
  for (const { x, v, why } of falsePositives) {
    console.log(`  #${x.seq} ${opOf(x.method, x.path)} ${x.method} ${x.path} -> ${x.status}: ${where(v)}: ${v.message}`);
    console.log(`      ${why}`);
  }
}
if (responseViolations.length > 0) {
  failed = true;
  // Grouped by operation, status, location and message; one example exchange (with its body) per group.
  const groups = new Map();
  for (const { x, v } of responseViolations) {
    const key = `${opOf(x.method, x.path)} -> ${x.status} | ${v.severity} at ${where(v)}: ${v.message}${v.code !== undefined ? ` [${v.code}]` : ''}`;
    if (!groups.has(key)) groups.set(key, { n: 0, x });
    groups.get(key).n++;
  }
  console.log(`\nRESPONSE VIOLATIONS (the sandbox answered something Prism says the document does not allow), ${groups.size} distinct:`);
  for (const [key, { n, x }] of [...groups.entries()].sort()) {
    console.log(`  ${String(n).padStart(3)}× ${key}`);
    console.log(`        e.g. #${x.seq} ${x.method} ${x.path}`);
    if (x.response_body) console.log(`        body: ${x.response_body.slice(0, 400).replace(/\s+$/, '')}`);
  }
}
if (truncated.length > 0) {
  failed = true;
  console.log('\nExchanges whose sl-violations header Prism truncated (treated as failing):');
  for (const x of truncated) console.log(`  #${x.seq} ${x.method} ${x.path} -> ${x.status}: ${String(x.violations_raw).slice(0, 300)}`);
}
if (incomplete.length > 0) {
  failed = true;
  console.log('\nExchanges that did not complete:');
  for (const x of incomplete) console.log(`  #${x.seq} ${opOf(x.method, x.path)} ${x.method} ${x.path}: ${x.error}`);
}
if (logRespViol.length !== responseViolations.length + falsePositives.length) {
  failed = true;
  console.log(`\nMISMATCH: Prism logged ${logRespViol.length} response violations, the recorder saw ${responseViolations.length + falsePositives.length}:`);
  for (const l of logRespViol) console.log('  ' + l);
}
if (logReceived !== exchanges.length) {
  // Not fatal on its own (a request Prism never parsed is logged by neither), but worth seeing.
  console.log(`\nnote: Prism logged ${logReceived} received requests, the recorder ${exchanges.length} exchanges`);
}
if (logTerminated.length > 0) {
  failed = true;
  console.log('\nPrism terminated requests with an error:');
  for (const l of logTerminated) console.log('  ' + l);
}
if (logFatal.length > 0) {
  console.log('\nother error lines in the Prism log:');
  for (const l of logFatal.slice(0, 20)) console.log('  ' + l);
}
console.log(failed ? '\nprism-proxy: FAIL' : '\nprism-proxy: OK (0 response violations)');
process.exit(failed ? 1 : 0);
