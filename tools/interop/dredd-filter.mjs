// Classifies the output of `dredd DOC URL --dry-run --no-color` (stdin) for dredd-parse.sh.
//
// Usage: node dredd-filter.mjs WHITELIST.txt DOC_BASENAME < dredd-output
// Exit 0 when Dredd compiled transactions with no error and every warning about the document is
// whitelisted by exact message text; 1 otherwise.
import fs from 'node:fs';

const [whitelistFile, docName] = process.argv.slice(2);
const whitelist = new Set(
  fs
    .readFileSync(whitelistFile, 'utf8')
    .split('\n')
    .map(l => l.trim())
    .filter(l => l && !l.startsWith('#')),
);
const lines = fs
  .readFileSync(0, 'utf8')
  .replace(/\x1b\[[0-9;]*m/g, '')
  .split('\n');

// "warn: API description parser warning in /abs/openapi/malipo.yaml:94 (from line 94 column 9 to column 17): MSG"
// "error: API description parser error in /abs/openapi/malipo.yaml:1368 (line 1368 column 12): MSG"
// "warn: API description URI parameters validation warning in /abs/doc.yaml (GET (200) /x): MSG"
const annotation =
  /^(warn|error): (API description(?: [a-zA-Z ]+?)?) (warning|error) in (.+?)(?::(\d+))?(?: \((?:from )?line [^)]*\)| \([^)]*\))?: (.*)$/;
const occurrences = / \((\d+) occurances?\)$/;

const docWarnings = [];
const docErrors = [];
const otherErrors = [];
const generic = [];
let complete = null;
for (const line of lines) {
  if (!line.trim()) continue;
  const m = annotation.exec(line);
  if (m) {
    const [, , component, type, , lineNo, rawMessage] = m;
    const n = occurrences.exec(rawMessage);
    const message = rawMessage.replace(occurrences, '');
    const entry = { component, line: lineNo ? Number(lineNo) : null, message, count: n ? Number(n[1]) : 1, text: line };
    (type === 'error' ? docErrors : docWarnings).push(entry);
    continue;
  }
  if (/^error:/.test(line)) otherErrors.push(line);
  else if (/^warn:/.test(line) || /\bWarning\b/.test(line)) generic.push(line);
  const c = /^complete: (\d+) passing, (\d+) failing, (\d+) errors, (\d+) skipped, (\d+) total/.exec(line);
  if (c) complete = { passing: +c[1], failing: +c[2], errors: +c[3], skipped: +c[4], total: +c[5] };
}

const tolerated = docWarnings.filter(w => whitelist.has(w.message));
const offending = docWarnings.filter(w => !whitelist.has(w.message));
const where = w => (w.line ? `${docName}:${w.line}` : docName);

console.log(`\n== Dredd parse of ${docName}: summary ==`);
console.log(`errors about the document:          ${docErrors.length}`);
console.log(`warnings about the document:        ${docWarnings.length} lines (${docWarnings.reduce((a, w) => a + w.count, 0)} occurrences)`);
console.log(`  tolerated (dredd-whitelist.txt):  ${tolerated.length} lines`);
console.log(`  NOT tolerated:                    ${offending.length} lines`);
if (complete) {
  console.log(`transactions compiled:              ${complete.total} (dry run: ${complete.skipped} skipped, ${complete.errors} errors)`);
} else {
  console.log('transactions compiled:              none (no "complete:" line)');
}

if (tolerated.length) {
  const byMessage = new Map();
  for (const w of tolerated) {
    if (!byMessage.has(w.message)) byMessage.set(w.message, []);
    byMessage.get(w.message).push(w.line ? `${w.line}${w.count > 1 ? `(+${w.count - 1})` : ''}` : '-');
  }
  console.log('\ntolerated warnings (Dredd parser limitations, see dredd-whitelist.txt), message: first lines:');
  for (const [msg, at] of byMessage) console.log(`  ${msg}  [${docName}:${at.slice(0, 8).join(',')}${at.length > 8 ? `,… ${at.length} places` : ''}]`);
}
if (generic.length) {
  console.log('\ngeneric warnings of Dredd or Node itself (not about the document; ignored):');
  for (const l of [...new Set(generic)]) console.log('  ' + l);
}

let failed = false;
if (docErrors.length) {
  failed = true;
  console.log('\nERRORS about the document:');
  for (const e of docErrors) console.log(`  ${where(e)}: ${e.message}`);
}
if (offending.length) {
  failed = true;
  console.log('\nWARNINGS about the document that are not whitelisted (fix the document, or, if Dredd is wrong,');
  console.log('add the exact message to tools/interop/dredd-whitelist.txt with the evidence):');
  for (const w of offending) console.log(`  ${where(w)}: ${w.message}${w.count > 1 ? ` (${w.count} occurrences)` : ''}`);
}
if (otherErrors.length) {
  failed = true;
  console.log('\nother errors:');
  for (const l of otherErrors) console.log('  ' + l);
}
if (!complete || complete.total === 0 || complete.errors > 0 || complete.failing > 0) {
  failed = true;
  console.log('\nDredd did not compile any transaction from the document (or reported errors)');
}
console.log(failed ? '\ndredd-parse: FAIL' : '\ndredd-parse: OK');
process.exit(failed ? 1 : 0);
