#!/usr/bin/env node
// Interop check of Malipo webhook signatures against the official Standard Webhooks library
// (`standardwebhooks`) and Svix's (`svix`), run against a running implementation (the sandbox).
//
// Usage: node tools/interop/webhooks.mjs [--base-url URL] [--public-key PK] [--secret-key SK] [--wait-ms N]
//   defaults: $MALIPO_BASE_URL, $MALIPO_PUBLIC_KEY (pk_test_malipo_sandbox), $MALIPO_SECRET_KEY
//   (sk_test_malipo_sandbox), 15000 ms to wait for the deliveries of each phase.
//
// A Node HTTP receiver on 127.0.0.1:0 gets two kinds of deliveries:
//   own       /own/...      the payment's or payout's own webhook_url; documented signing secret
//                           "whsec_" + base64(secret key as UTF-8)
//   endpoint  /endpoint     a webhook endpoint subscribed to every event type; its whsec_ secret
// The session creates the endpoint, then runs phases, each triggering payments and payouts with every
// outcome of the spec's x-malipo-test-values (first phase) or a few of them (later phases):
//   p0 created               valid {S0}
//   p1 rotate grace 3600     valid {S1, S0}
//   p2 rotate grace 3600     valid {S2, S1}     (S0, retired by an earlier rotation, stops at once)
//   p3 rotate grace 0        valid {S3}
//   p4 rotate grace 0        valid {S4}
//   p5 rotate grace 3        valid {S5, S4}
//   p6 (grace of p5 over)    valid {S5}
// Every delivery (retries included) must verify with BOTH libraries for EVERY valid secret, must NOT
// verify with any other known secret, and must carry exactly one signature per valid secret (each
// signature is also matched to its secret with node:crypto). Every expected event must arrive at both
// receivers. Exit status 0 only when every check passed.

import http from "node:http";
import crypto from "node:crypto";
import { Webhook as StdWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";

// ---------------------------------------------------------------- arguments

function parseArgs(argv) {
  const out = {
    baseUrl: process.env.MALIPO_BASE_URL ?? "",
    publicKey: process.env.MALIPO_PUBLIC_KEY || "pk_test_malipo_sandbox",
    secretKey: process.env.MALIPO_SECRET_KEY || "sk_test_malipo_sandbox",
    waitMs: 15000,
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => (inline !== undefined ? inline : argv[++i]);
    switch (flag) {
      case "--base-url": out.baseUrl = value(); break;
      case "--public-key": out.publicKey = value(); break;
      case "--secret-key": out.secretKey = value(); break;
      case "--wait-ms": out.waitMs = Number(value()); break;
      case "-h": case "--help":
        console.log("usage: webhooks.mjs --base-url URL [--public-key PK] [--secret-key SK] [--wait-ms N]");
        process.exit(0);
      default:
        if (!out.baseUrl && !flag.startsWith("-")) { out.baseUrl = argv[i]; break; }
        console.error(`webhooks: unknown argument ${argv[i]}`);
        process.exit(2);
    }
  }
  if (!out.baseUrl) {
    console.error("webhooks: no base URL (--base-url or $MALIPO_BASE_URL)");
    process.exit(2);
  }
  out.baseUrl = out.baseUrl.replace(/\/+$/, "");
  return out;
}

const cfg = parseArgs(process.argv.slice(2));
const started = Date.now();

// ---------------------------------------------------------------- test values (spec x-malipo-test-values)

const PAYMENT_OUTCOMES = [
  ["260970000001", "success", undefined],
  ["260970000002", "failed", "declined_transaction"],
  ["260970000003", "failed", "abandoned_transaction"],
  ["260970000004", "failed", "insufficient_funds"],
  ["260970000005", "failed", "invalid_pin"],
  ["260970000006", "failed", "transaction_limit_exceeded"],
  ["260970000007", "failed", "account_blocked"],
  ["260970000008", "failed", "provider_timeout"],
  ["260970000009", "failed", "transaction_failed"],
];
const MOBILE_PAYOUT_OUTCOMES = [
  [undefined, "success", undefined], // the merchant's own wallet
  ["260960000001", "success", undefined],
  ["260960000002", "failed", "account_not_found"],
  ["260960000003", "failed", "account_blocked"],
  ["260960000004", "failed", "transaction_limit_exceeded"],
  ["260960000005", "failed", "insufficient_funds"],
  ["260960000006", "failed", "provider_timeout"],
  ["260960000007", "failed", "transaction_failed"],
];
const BANK_PAYOUT_OUTCOMES = [
  ["0000000001", "success", undefined],
  ["0000000002", "failed", "account_not_found"],
  ["0000000003", "failed", "account_blocked"],
  ["0000000004", "failed", "insufficient_funds"],
  ["0000000005", "failed", "provider_timeout"],
  ["0000000006", "failed", "transaction_failed"],
];
const ALL_EVENT_TYPES = ["payment.processing", "payment.success", "payment.failed", "payout.success", "payout.failed"];

// ---------------------------------------------------------------- failures and counters

const failures = [];
function fail(msg) {
  failures.push(msg);
  if (failures.length <= 60) console.error(`FAIL ${msg}`);
}
function check(cond, msg) {
  if (!cond) fail(msg);
  return cond;
}

// per phase, per kind: counters
const stats = new Map();
function counter(phase, kind) {
  const k = `${phase}\u0000${kind}`;
  if (!stats.has(k)) {
    stats.set(k, { phase, kind, attempts: 0, events: new Set(), byType: {}, sigs: 0, stdOk: 0, svixOk: 0,
      negChecks: 0, negRejected: 0, retries: 0 });
  }
  return stats.get(k);
}

// ---------------------------------------------------------------- secrets

const merchantSecret = "whsec_" + Buffer.from(cfg.secretKey, "utf8").toString("base64");
const endpointSecrets = []; // every whsec_ secret the endpoint ever had, in order: S0, S1, ...

function hmacKey(secret) {
  return Buffer.from(secret.slice("whsec_".length), "base64");
}
function expectedSig(secret, id, ts, body) {
  return crypto.createHmac("sha256", hmacKey(secret)).update(`${id}.${ts}.`).update(body).digest("base64");
}
function label(secret) {
  if (secret === merchantSecret) return "merchant-key";
  const i = endpointSecrets.indexOf(secret);
  return i >= 0 ? `S${i}` : "unknown";
}

// The phase state: which secrets must sign endpoint deliveries right now.
let phase = { name: "setup", endpointValid: [] };

// ---------------------------------------------------------------- receiver

const seenAttempts = new Map(); // `${kind}:${webhook-id}` -> attempts received
const received = new Map(); // `${kind}|${type}|${objectId}` -> { count, webhookIds:Set, phase }
const flakyFirstRefused = new Map(); // `${object}|${type}` on /own/flaky -> webhook-id of the refused first attempt
const pendingContent = []; // deliveries whose content is checked once the phase's objects are all known

// Content: type, object, status, failure reason as the test values say.
function checkContent({ name, id, kind, path, ev, objectId, phase: at }) {
  const obj = ev.data?.object ?? {};
  const exp = expectedObjects.get(objectId);
  if (!check(exp, `${name} ${id}: event ${ev.type} about an object this session did not create (${objectId})`)) return;
  check(ALL_EVENT_TYPES.includes(ev.type) && ev.type === `${exp.kind}.${obj.status}`,
    `${name} ${id}: type ${ev.type} but data.object.status ${obj.status} (object ${objectId})`);
  check(exp.types.includes(ev.type), `${name} ${id}: unexpected event ${ev.type} for ${objectId} (want ${exp.types.join(", ")})`);
  if (ev.type.endsWith(".failed")) {
    check(obj.failure_reason === exp.failureReason,
      `${name} ${id}: ${objectId} failure_reason ${obj.failure_reason}, want ${exp.failureReason}`);
  }
  if (kind === "own") {
    check(path === exp.ownPath, `${name} ${id}: own delivery for ${objectId} went to ${path}, want ${exp.ownPath}`);
  }
  if (exp.phase !== at) {
    console.log(`note: ${kind} delivery ${id} (${ev.type}) for a ${exp.phase} object arrived during ${at}`);
  }
}
function drainContent() {
  for (const d of pendingContent.splice(0)) checkContent(d);
}

function verifyDelivery(kind, path, headers, body) {
  const name = `${phase.name} ${kind} ${path}`;
  const c = counter(phase.name, kind);
  c.attempts++;
  const id = headers["webhook-id"];
  const ts = headers["webhook-timestamp"];
  const sigHeader = headers["webhook-signature"];
  if (!check(id && ts && sigHeader, `${name}: missing Standard Webhooks headers (${JSON.stringify({ id, ts, sigHeader })})`)) {
    return;
  }
  const lib = { "webhook-id": id, "webhook-timestamp": ts, "webhook-signature": sigHeader };
  const text = body.toString("utf8");
  let ev;
  try {
    ev = JSON.parse(text);
  } catch (e) {
    fail(`${name} ${id}: body is not JSON: ${e.message}`);
    return;
  }
  check(ev.id === id, `${name}: body id ${ev.id} != webhook-id ${id}`);
  check(/^[0-9]{1,12}$/.test(ts) && Math.abs(Date.now() / 1000 - Number(ts)) < 300,
    `${name} ${id}: webhook-timestamp ${ts} is not within 5 minutes of now`);

  const valid = kind === "own" ? [merchantSecret] : phase.endpointValid;
  const known = [merchantSecret, ...endpointSecrets];
  const invalid = known.filter((s) => !valid.includes(s));

  // Signature count and the secret behind every signature (independent of both libraries).
  check(/^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$/.test(sigHeader),
    `${name} ${id}: webhook-signature ${JSON.stringify(sigHeader)} does not match the spec's pattern`);
  const sigs = sigHeader.split(" ").filter((s) => s !== "");
  c.sigs += sigs.length;
  check(sigs.length === valid.length,
    `${name} ${id} ${ev.type}: ${sigs.length} signature(s), want ${valid.length} (one per valid secret ${valid.map(label).join(",")})`);
  const matched = new Set();
  for (const sig of sigs) {
    const [version, value] = sig.split(/,(.*)/s, 2);
    if (!check(version === "v1" && value, `${name} ${id}: malformed signature ${sig}`)) continue;
    const who = known.filter((s) => expectedSig(s, id, ts, body) === value);
    if (who.length === 0) {
      fail(`${name} ${id} ${ev.type}: a signature matches no known secret`);
      continue;
    }
    for (const s of who) {
      matched.add(s);
      check(valid.includes(s), `${name} ${id} ${ev.type}: signed with ${label(s)}, which must no longer sign (valid: ${valid.map(label).join(",")})`);
    }
  }

  // Both official libraries, one valid secret at a time: each must accept.
  for (const s of valid) {
    check(matched.has(s), `${name} ${id} ${ev.type}: no signature by valid secret ${label(s)}`);
    try {
      new StdWebhook(s).verify(text, lib);
      c.stdOk++;
    } catch (e) {
      fail(`${name} ${id} ${ev.type}: standardwebhooks rejects valid secret ${label(s)}: ${e.message}`);
    }
    try {
      new SvixWebhook(s).verify(text, lib);
      c.svixOk++;
    } catch (e) {
      fail(`${name} ${id} ${ev.type}: svix rejects valid secret ${label(s)}: ${e.message}`);
    }
  }
  // ... and every secret that must not sign must be rejected by both.
  for (const s of invalid) {
    for (const [libName, W] of [["standardwebhooks", StdWebhook], ["svix", SvixWebhook]]) {
      c.negChecks++;
      let accepted = false;
      try {
        new W(s).verify(text, lib);
        accepted = true;
      } catch {
        c.negRejected++;
      }
      if (accepted) fail(`${name} ${id} ${ev.type}: ${libName} ACCEPTS ${label(s)}, a secret that must no longer sign`);
    }
  }

  const obj = ev.data?.object ?? {};
  const objectId = obj.paymentReference ?? obj.payout_id;
  pendingContent.push({ name, id, kind, path, ev, objectId, phase: phase.name });
  const attemptKey = `${kind}:${id}`;
  const n = (seenAttempts.get(attemptKey) ?? 0) + 1;
  seenAttempts.set(attemptKey, n);
  if (n > 1) c.retries++;

  // The flaky own URL refuses the first attempt of each event, to check that retries verify too and
  // keep the webhook-id (the spec: "the same on every retry of the delivery").
  let status = 204;
  const flakyKey = `${objectId}|${ev.type}`;
  if (path === "/own/flaky" && !flakyFirstRefused.has(flakyKey)) {
    flakyFirstRefused.set(flakyKey, id);
    status = 503;
  } else {
    if (path === "/own/flaky") {
      check(flakyFirstRefused.get(flakyKey) === id,
        `${name}: the retry of ${ev.type} for ${objectId} has webhook-id ${id}, the refused attempt had ${flakyFirstRefused.get(flakyKey)}`);
    }
    const rk = `${kind}|${ev.type}|${objectId}`;
    const r = received.get(rk) ?? { count: 0, webhookIds: new Set() };
    r.count++;
    r.webhookIds.add(id);
    received.set(rk, r);
    c.events.add(id);
    c.byType[ev.type] = (c.byType[ev.type] ?? 0) + 1;
  }
  return status;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (d) => chunks.push(d));
  req.on("end", () => {
    const path = req.url ?? "";
    const kind = path === "/endpoint" ? "endpoint" : path.startsWith("/own/") ? "own" : "";
    let status = 404;
    if (req.method === "POST" && kind) {
      try {
        status = verifyDelivery(kind, path, req.headers, Buffer.concat(chunks)) ?? 204;
      } catch (e) {
        fail(`receiver: ${e.stack ?? e}`);
        status = 204;
      }
    } else {
      fail(`receiver: unexpected ${req.method} ${path}`);
    }
    res.writeHead(status).end();
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const hookBase = `http://127.0.0.1:${server.address().port}`;

// ---------------------------------------------------------------- API

async function api(method, path, body, { secret = true, expect } = {}) {
  const headers = { "public-key": cfg.publicKey };
  if (secret) headers["secret-key"] = cfg.secretKey;
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method === "POST") headers["idempotency-key"] = crypto.randomUUID();
  const res = await fetch(cfg.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (expect !== undefined && res.status !== expect) {
    throw new Error(`${method} ${path} -> ${res.status}, want ${expect}: ${text.slice(0, 400)}`);
  }
  return { status: res.status, json, text };
}

const runId = crypto.randomBytes(4).toString("hex");
let seq = 0;
const expectedObjects = new Map(); // object id -> { kind, types, failureReason, ownPath, phase }

const countries = (await api("GET", "/v1/countries", undefined, { secret: false, expect: 200 })).json.data;
const zm = countries.find((c) => c.country_code === "ZM") ?? countries[0];
const banks = (await api("GET", `/v1/payment/banks?country=${zm.country_code}`, undefined, { secret: false, expect: 200 })).json.data;
if (!banks.length) throw new Error(`no bank in ${zm.country_code}`);

async function payment(phone, status, reason, ownPath) {
  const reference = `wh-${runId}-${++seq}`;
  const init = await api("POST", "/v1/payment/init", {
    currency: zm.currency_code, country: zm.country_code, narration: `interop ${reference}`, method: "mobilemoney",
    amount: 150.5, reference, phone_number: phone, webhook_url: hookBase + ownPath, redirect_url: "",
  }, { expect: 201 });
  const id = init.json.data.paymentReference;
  expectedObjects.set(id, { kind: "payment", types: ["payment.processing", `payment.${status}`], failureReason: reason, ownPath, phase: phase.name });
  await api("POST", `/v1/payment/pay/${id}`, undefined, { secret: false, expect: 202 });
  return id;
}

async function payout(transferTo, dest, status, reason, ownPath) {
  const reference = `wh-${runId}-${++seq}`;
  const body = { amount: 2500, countryId: zm.id, transfer_to: transferTo, narration: `interop ${reference}`, reference, webhook_url: hookBase + ownPath };
  if (transferTo === "bank") Object.assign(body, { bank_id: banks[0].id, account_number: dest });
  else if (dest !== undefined) body.momo_phone_number = dest;
  const res = await api("POST", "/v1/payment/payouts/process", body, { expect: 201 });
  const id = res.json.data.payout_id;
  expectedObjects.set(id, { kind: "payout", types: [`payout.${status}`], failureReason: reason, ownPath, phase: phase.name });
  return id;
}

async function batch(full) {
  const ids = [];
  const own = `/own/${phase.name}`;
  if (full) {
    for (const [phone, st, r] of PAYMENT_OUTCOMES) ids.push(await payment(phone, st, r, own));
    ids.push(await payment("260970000001", "success", undefined, "/own/flaky"));
    ids.push(await payment("260970000002", "failed", "declined_transaction", "/own/flaky"));
    for (const [n, st, r] of MOBILE_PAYOUT_OUTCOMES) ids.push(await payout("mobile_number", n, st, r, own));
    for (const [a, st, r] of BANK_PAYOUT_OUTCOMES) ids.push(await payout("bank", a, st, r, own));
    ids.push(await payout("bank", "0000000002", "failed", "account_not_found", "/own/flaky"));
  } else {
    ids.push(await payment("260970000001", "success", undefined, own));
    ids.push(await payment("260970000004", "failed", "insufficient_funds", own));
    ids.push(await payout("bank", "0000000001", "success", undefined, own));
    ids.push(await payout("mobile_number", "260960000003", "failed", "account_blocked", own));
  }
  return ids;
}

function missingFor(ids) {
  const missing = [];
  for (const id of ids) {
    const exp = expectedObjects.get(id);
    for (const type of exp.types) {
      for (const kind of ["own", "endpoint"]) {
        if (!received.has(`${kind}|${type}|${id}`)) missing.push(`${kind} ${type} ${id}`);
      }
    }
  }
  return missing;
}

async function runPhase(name, endpointValid, full, deadline) {
  phase = { name, endpointValid };
  const t0 = Date.now();
  const ids = await batch(full);
  let missing = missingFor(ids);
  while (missing.length && Date.now() - t0 < cfg.waitMs) {
    await new Promise((r) => setTimeout(r, 20));
    missing = missingFor(ids);
  }
  // A short quiet period so that duplicates or stray deliveries are attributed to this phase.
  await new Promise((r) => setTimeout(r, 150));
  drainContent();
  for (const m of missing) fail(`${name}: expected delivery never arrived: ${m}`);
  if (deadline !== undefined) {
    check(Date.now() < deadline, `${name}: the phase ended after the grace period expired; rerun on a less loaded machine`);
  }
  const expected = ids.reduce((n, id) => n + expectedObjects.get(id).types.length * 2, 0);
  console.log(`phase ${name}: ${ids.length} objects, ${expected - missing.length}/${expected} expected deliveries arrived, ` +
    `endpoint secrets ${endpointValid.map(label).join("+")} in ${Date.now() - t0} ms`);
}

async function rotate(endpointId, grace) {
  const before = Date.now();
  const res = await api("POST", `/v1/webhooks/${endpointId}/rotate-secret`, { grace_period_seconds: grace }, { expect: 200 });
  const d = res.json.data;
  check(/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(d.secret ?? ""), `rotate: bad secret format ${d.secret}`);
  check(!endpointSecrets.includes(d.secret), "rotate: the new secret was used before");
  let expiresAt;
  if (grace > 0) {
    expiresAt = Date.parse(d.previous_secret_expires_at);
    check(Number.isFinite(expiresAt) && Math.abs(expiresAt - (before + grace * 1000)) < 5000,
      `rotate grace ${grace}: previous_secret_expires_at ${d.previous_secret_expires_at} is not now + ${grace}s`);
  } else if (d.previous_secret_expires_at !== undefined) {
    const t = Date.parse(d.previous_secret_expires_at);
    check(Number.isFinite(t) && t <= Date.now() + 1000,
      `rotate grace 0: previous_secret_expires_at ${d.previous_secret_expires_at} is in the future`);
  }
  endpointSecrets.push(d.secret);
  return { secret: d.secret, expiresAt };
}

// ---------------------------------------------------------------- session

let exitCode = 0;
try {
  const ep = await api("POST", "/v1/webhooks", {
    url: hookBase + "/endpoint", events: ALL_EVENT_TYPES, description: `interop ${runId}`,
  }, { expect: 201 });
  const epId = ep.json.data.id;
  check(/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(ep.json.data.secret ?? ""), `create: bad secret format ${ep.json.data.secret}`);
  endpointSecrets.push(ep.json.data.secret);
  const S = endpointSecrets;

  await runPhase("p0-created", [S[0]], true);
  await rotate(epId, 3600);
  await runPhase("p1-grace3600", [S[1], S[0]], false);
  await rotate(epId, 3600);
  await runPhase("p2-grace3600-again", [S[2], S[1]], false);
  await rotate(epId, 0);
  await runPhase("p3-grace0", [S[3]], false);
  await rotate(epId, 0);
  await runPhase("p4-grace0-again", [S[4]], false);
  const short = await rotate(epId, 3);
  await runPhase("p5-grace3", [S[5], S[4]], false, short.expiresAt);
  const wait = short.expiresAt + 1100 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  await runPhase("p6-grace3-expired", [S[5]], false);

  await api("DELETE", `/v1/webhooks/${epId}`, undefined, { expect: 204 });
} catch (e) {
  fail(`session aborted: ${e.stack ?? e}`);
}
await new Promise((r) => setTimeout(r, 100));
drainContent();
server.close();

// ---------------------------------------------------------------- report

console.log("\nphase                kind      attempts events retries sigs std-ok svix-ok rejected/neg  by type");
let totals = { attempts: 0, events: 0, stdOk: 0, svixOk: 0, neg: 0, negRejected: 0 };
for (const c of [...stats.values()].sort((a, b) => a.phase.localeCompare(b.phase) || b.kind.localeCompare(a.kind))) {
  const byType = Object.entries(c.byType).map(([t, n]) => `${t}=${n}`).join(" ");
  console.log(`${c.phase.padEnd(20)} ${c.kind.padEnd(9)} ${String(c.attempts).padStart(8)} ${String(c.events.size).padStart(6)} ` +
    `${String(c.retries).padStart(7)} ${String(c.sigs).padStart(4)} ${String(c.stdOk).padStart(6)} ${String(c.svixOk).padStart(7)} ` +
    `${`${c.negRejected}/${c.negChecks}`.padStart(12)}  ${byType}`);
  totals.attempts += c.attempts;
  totals.events += c.events.size;
  totals.stdOk += c.stdOk;
  totals.svixOk += c.svixOk;
  totals.neg += c.negChecks;
  totals.negRejected += c.negRejected;
}
const perKind = {};
for (const [key, r] of received) {
  const [kind, type] = key.split("|");
  const objectKind = type.split(".")[0];
  const k = `${kind}(${objectKind})`;
  perKind[k] ??= { deliveries: 0, byType: {} };
  perKind[k].deliveries += r.count;
  perKind[k].byType[type] = (perKind[k].byType[type] ?? 0) + r.count;
}
for (const [k, v] of Object.entries(perKind).sort()) {
  console.log(`total ${k.padEnd(19)} ${String(v.deliveries).padStart(4)} accepted deliveries: ` +
    Object.entries(v.byType).sort().map(([t, n]) => `${t}=${n}`).join(" "));
}
const flakyRetried = [...flakyFirstRefused.values()].filter((id) => (seenAttempts.get(`own:${id}`) ?? 0) >= 2).length;
check(flakyFirstRefused.size > 0 && flakyRetried === flakyFirstRefused.size,
  `retries: ${flakyRetried} of ${flakyFirstRefused.size} refused first attempts were retried`);
console.log(`\nwebhooks: ${totals.attempts} delivery attempts (${totals.events} distinct deliveries, ${flakyRetried} retried after a 503), ` +
  `${totals.stdOk} standardwebhooks + ${totals.svixOk} svix verifications with valid secrets, ` +
  `${totals.negRejected}/${totals.neg} verifications with secrets that must not sign rejected, ` +
  `${endpointSecrets.length} endpoint secrets, ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (failures.length) {
  if (failures.length > 60) console.error(`... and ${failures.length - 60} more failures`);
  console.error(`webhooks: FAILED, ${failures.length} failure(s)`);
  exitCode = 1;
} else {
  console.log("webhooks: OK");
}
process.exit(exitCode);
