// An openapi-fetch client typed by the types openapi-typescript generates from openapi/malipo.yaml
// (gen/malipo.d.ts), run against a running implementation: reference data, a bank payout, and payments
// whose amounts must come back exactly unchanged, as numbers and as JSON text.
//
// Build and run (tools/interop/run-fetch-client.sh BIN_DIR does all of it against a fresh sandbox):
//   tools/node_modules/.bin/openapi-typescript openapi/malipo.yaml -o tools/interop/gen/malipo.d.ts
//   tools/node_modules/.bin/tsc -p tools/interop/tsconfig.json
//   node tools/interop/build/fetch-client.js --base-url URL [--events-url URL] [--public-key PK] [--secret-key SK]
// --events-url: a server whose GET /v1/events answers a page holding event types this version of the
// document does not declare (fake-events.mjs); the page must decode whole.
// Defaults: $MALIPO_BASE_URL, $MALIPO_PUBLIC_KEY (pk_test_malipo_sandbox), $MALIPO_SECRET_KEY
// (sk_test_malipo_sandbox). Exit status 0 only when every check passed.

import createClient from "openapi-fetch";
import type { components, paths } from "./gen/malipo.js";

// Only what this script uses of Node's globals; the tsconfig keeps @types/node out (it is not a
// declared dependency of tools/package.json).
declare const process: {
  argv: string[];
  env: Record<string, string | undefined>;
  exit(code: number): never;
};

type Schemas = components["schemas"];

interface Config {
  baseUrl: string;
  eventsUrl: string;
  publicKey: string;
  secretKey: string;
}

function parseArgs(argv: string[]): Config {
  const cfg: Config = {
    baseUrl: process.env["MALIPO_BASE_URL"] ?? "",
    eventsUrl: "",
    publicKey: process.env["MALIPO_PUBLIC_KEY"] || "pk_test_malipo_sandbox",
    secretKey: process.env["MALIPO_SECRET_KEY"] || "sk_test_malipo_sandbox",
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const eq = arg.indexOf("=");
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const value = (): string => (eq >= 0 ? arg.slice(eq + 1) : (argv[++i] ?? ""));
    if (flag === "--base-url") cfg.baseUrl = value();
    else if (flag === "--events-url") cfg.eventsUrl = value();
    else if (flag === "--public-key") cfg.publicKey = value();
    else if (flag === "--secret-key") cfg.secretKey = value();
    else if (!flag.startsWith("-") && !cfg.baseUrl) cfg.baseUrl = arg;
    else {
      console.error(`fetch-client: unknown argument ${arg}\nusage: fetch-client.js --base-url URL [--events-url URL] [--public-key PK] [--secret-key SK]`);
      process.exit(2);
    }
  }
  if (!cfg.baseUrl) {
    console.error("fetch-client: no base URL (--base-url or $MALIPO_BASE_URL)");
    process.exit(2);
  }
  cfg.baseUrl = cfg.baseUrl.replace(/\/+$/, "");
  return cfg;
}

const cfg = parseArgs(process.argv.slice(2));
const started = Date.now();

// ------------------------------------------------------------------ checks

let checks = 0;
const failures: string[] = [];
function check(cond: boolean, msg: string): boolean {
  checks++;
  if (!cond) {
    failures.push(msg);
    console.error(`FAIL ${msg}`);
  }
  return cond;
}

// ------------------------------------------------------------------ client

// The raw text of every response body, to compare the amount's JSON text and not only its value.
const rawBodies = new WeakMap<Response, string>();
const client = createClient<paths>({
  baseUrl: cfg.baseUrl,
  headers: { "public-key": cfg.publicKey, "secret-key": cfg.secretKey },
});
client.use({
  async onResponse({ response }) {
    rawBodies.set(response, await response.clone().text());
    return undefined;
  },
});

function raw(res: Response): string {
  return rawBodies.get(res) ?? "";
}

// The JSON text of data.amount in a `{status, code, message, data: {..., amount, ...}}` body.
function rawAmount(res: Response): string | undefined {
  const text = raw(res);
  const m = /"amount"\s*:\s*(-?[0-9][0-9.eE+-]*)/.exec(text);
  const all = text.match(/"amount"\s*:/g) ?? [];
  check(all.length === 1, `${res.url}: ${all.length} "amount" members in the body, want 1`);
  return m?.[1];
}

function checkAmount(what: string, res: Response, got: number, sent: number, sentText: string): void {
  check(Object.is(got, sent), `${what}: amount ${got}, sent ${sentText}`);
  const text = rawAmount(res);
  check(text === sentText, `${what}: amount JSON text ${text}, sent ${sentText}`);
}

let seq = 0;
const runId = Math.random().toString(16).slice(2, 10);
const nextRef = (): string => `fc-${runId}-${++seq}`;
const idemKey = (): string => crypto.randomUUID();
// Nothing listens on the discard port: deliveries fail and are retried, which this script ignores.
const webhookUrl = "http://127.0.0.1:9/malipo-interop-fetch-client";

function fail(msg: string): never {
  throw new Error(msg);
}

// ------------------------------------------------------------------ reference data

async function referenceData(): Promise<{ country: Schemas["Country"]; bank: Schemas["Bank"] }> {
  const countries = await client.GET("/v1/countries");
  if (countries.error !== undefined) fail(`GET /v1/countries: ${countries.response.status} ${raw(countries.response)}`);
  check(countries.response.status === 200, `GET /v1/countries: status ${countries.response.status}`);
  const list: Schemas["Country"][] = countries.data.data;
  check(list.length > 0, "GET /v1/countries: no country");
  const country = list.find((c) => c.country_code === "ZM") ?? list[0] ?? fail("no country");
  console.log(`countries: ${list.length} (${list.map((c) => c.country_code).join(" ")})`);

  const banks = await client.GET("/v1/payment/banks", { params: { query: { country: country.country_code } } });
  if (banks.error !== undefined) fail(`GET /v1/payment/banks: ${banks.response.status} ${raw(banks.response)}`);
  const bankList: Schemas["Bank"][] = banks.data.data;
  check(bankList.length > 0, `GET /v1/payment/banks?country=${country.country_code}: no bank`);
  for (const b of bankList) {
    check(b.country_code === country.country_code, `bank ${b.id} has country_code ${b.country_code}, want ${country.country_code}`);
  }
  console.log(`banks of ${country.country_code}: ${bankList.length} (${bankList.map((b) => b.id).join(" ")})`);

  const unknown = await client.GET("/v1/payment/banks", { params: { query: { country: "QQ" } } });
  check(unknown.response.status === 400, `GET /v1/payment/banks?country=QQ: status ${unknown.response.status}, want 400`);
  if (unknown.error !== undefined) {
    const e: Schemas["Error"] = unknown.error;
    check(e.errors.some((f) => f.field === "query.country") === true, `banks?country=QQ: errors ${JSON.stringify(e.errors)} do not name query.country`);
  }
  return { country, bank: bankList[0] ?? fail("no bank") };
}

// ------------------------------------------------------------------ payouts

async function bankPayout(country: Schemas["Country"], bank: Schemas["Bank"], amount: number): Promise<void> {
  const sentText = JSON.stringify(amount);
  const reference = nextRef();
  const created = await client.POST("/v1/payment/payouts/process", {
    params: { header: { "Idempotency-Key": idemKey() } },
    body: {
      amount, countryId: country.id, transfer_to: "bank", bank_id: bank.id, account_number: "0000000001",
      narration: `fetch-client ${reference}`, reference, webhook_url: webhookUrl,
    },
  });
  if (created.error !== undefined) {
    check(false, `create bank payout of ${sentText}: ${created.response.status} ${raw(created.response)}`);
    return;
  }
  check(created.response.status === 201, `create bank payout: status ${created.response.status}, want 201`);
  const p: Schemas["Payout"] = created.data.data;
  checkAmount(`payout ${sentText} create`, created.response, p.amount, amount, sentText);
  check(p.transfer_to === "bank" && p.bank_id === bank.id && p.account_number === "0000000001" && p.reference === reference,
    `payout ${p.payout_id}: fields not echoed: ${raw(created.response)}`);

  const final = await waitFinal(p.payout_id);
  check(final === "success", `payout ${p.payout_id} (account 0000000001) ended ${final}, want success`);
  const got = await client.GET("/v1/payment/payouts/{payout_id}", { params: { path: { payout_id: p.payout_id } } });
  if (got.error !== undefined) {
    check(false, `GET payout ${p.payout_id}: ${got.response.status} ${raw(got.response)}`);
  } else {
    checkAmount(`payout ${sentText} GET /v1/payment/payouts/{payout_id}`, got.response, got.data.data.amount, amount, sentText);
    check(got.data.data.status === "success", `GET payout ${p.payout_id}: status ${got.data.data.status}`);
  }
  for (const ref of [p.payout_id, reference]) {
    const tx = await client.GET("/v1/payment/transactions/{reference}/check", { params: { path: { reference: ref } } });
    if (tx.error !== undefined) {
      check(false, `check ${ref}: ${tx.response.status} ${raw(tx.response)}`);
      continue;
    }
    const t: Schemas["Transaction"] = tx.data.data;
    check(t.type === "payout" && t.id === p.payout_id, `check ${ref}: type ${t.type} id ${t.id}`);
    checkAmount(`payout ${sentText} check by ${ref === reference ? "reference" : "payout_id"}`, tx.response, t.amount, amount, sentText);
  }
  console.log(`bank payout ${p.payout_id}: amount ${sentText} read back exactly (create, GET payout, check x2)`);
}

async function waitFinal(ref: string): Promise<string> {
  let status = "";
  for (let i = 0; i < 200; i++) {
    const tx = await client.GET("/v1/payment/transactions/{reference}/check", { params: { path: { reference: ref } } });
    if (tx.error !== undefined) return `error ${tx.response.status}`;
    status = tx.data.data.status;
    if (status === "success" || status === "failed") return status;
    await new Promise((r) => setTimeout(r, 25));
  }
  return status;
}

// ------------------------------------------------------------------ payments

async function payment(country: Schemas["Country"], amount: number): Promise<void> {
  const sentText = JSON.stringify(amount);
  const reference = nextRef();
  const init = await client.POST("/v1/payment/init", {
    params: { header: { "Idempotency-Key": idemKey() } },
    body: {
      currency: country.currency_code, country: country.country_code, narration: `fetch-client ${reference}`,
      method: "mobilemoney", amount, reference, phone_number: "260970000001", webhook_url: webhookUrl, redirect_url: "",
    },
  });
  if (init.error !== undefined) {
    check(false, `init payment of ${sentText}: ${init.response.status} ${raw(init.response)}`);
    return;
  }
  check(init.response.status === 201, `init payment ${sentText}: status ${init.response.status}, want 201`);
  const p: Schemas["Payment"] = init.data.data;
  checkAmount(`payment ${sentText} init`, init.response, p.amount, amount, sentText);
  check(p.status === "pending", `payment ${p.paymentReference}: status ${p.status} after init`);

  const pending = await client.GET("/v1/payment/transactions/{reference}/check", { params: { path: { reference: p.paymentReference } } });
  if (pending.error === undefined) {
    checkAmount(`payment ${sentText} check while pending`, pending.response, pending.data.data.amount, amount, sentText);
  } else {
    check(false, `check ${p.paymentReference}: ${pending.response.status} ${raw(pending.response)}`);
  }

  const pay = await client.POST("/v1/payment/pay/{payment_reference}", {
    params: { path: { payment_reference: p.paymentReference }, header: { "Idempotency-Key": idemKey() } },
    headers: { "secret-key": null }, // complete-payment needs only the public key
  });
  if (pay.error !== undefined) {
    check(false, `complete payment ${p.paymentReference}: ${pay.response.status} ${raw(pay.response)}`);
    return;
  }
  check(pay.response.status === 202, `complete payment: status ${pay.response.status}, want 202`);
  checkAmount(`payment ${sentText} complete`, pay.response, pay.data.data.amount, amount, sentText);

  const final = await waitFinal(p.paymentReference);
  check(final === "success", `payment ${p.paymentReference} (260970000001) ended ${final}, want success`);
  for (const ref of [p.paymentReference, reference]) {
    const tx = await client.GET("/v1/payment/transactions/{reference}/check", { params: { path: { reference: ref } } });
    if (tx.error !== undefined) {
      check(false, `check ${ref}: ${tx.response.status} ${raw(tx.response)}`);
      continue;
    }
    const t: Schemas["Transaction"] = tx.data.data;
    check(t.type === "payment" && t.id === p.paymentReference, `check ${ref}: type ${t.type} id ${t.id}`);
    checkAmount(`payment ${sentText} check by ${ref === reference ? "reference" : "paymentReference"}`, tx.response, t.amount, amount, sentText);
  }
  console.log(`payment ${p.paymentReference}: amount ${sentText} read back exactly (init, check, complete, check x2)`);
}

async function invalidPaymentAmount(country: Schemas["Country"], amount: number): Promise<void> {
  const sentText = JSON.stringify(amount);
  const res = await client.POST("/v1/payment/init", {
    body: {
      currency: country.currency_code, country: country.country_code, narration: "fetch-client invalid amount",
      method: "mobilemoney", amount, phone_number: "260970000001", webhook_url: webhookUrl, redirect_url: "",
    },
  });
  check(res.response.status === 400, `init payment with invalid amount ${sentText}: status ${res.response.status}, want 400`);
  if (res.error !== undefined) {
    const e: Schemas["Error"] = res.error;
    check(e.errors.some((f) => f.field === "/amount") === true,
      `init payment with amount ${sentText}: errors ${JSON.stringify(e.errors)} do not name /amount`);
  }
}

// ------------------------------------------------------------------ event types added later

// What a client of this version does with an event: handles the types it knows and skips the others.
// The comparison with a type the document does not declare compiles only because `type` is an open
// string (AnyEventType); with a closed union tsc would reject it as a comparison that cannot be true.
function handles(e: Schemas["Event"]): boolean {
  if (e.type === "refund.succeeded") return false;
  return e.type === "payout.failed" || e.type === "payout.success" || e.type.startsWith("payment.");
}

// A page holding two types the document does not declare and a declared one must decode whole.
async function unknownEvents(eventsUrl: string): Promise<void> {
  const events = createClient<paths>({ baseUrl: eventsUrl.replace(/\/+$/, ""), headers: { "public-key": cfg.publicKey, "secret-key": cfg.secretKey } });
  const { data, response } = await events.GET("/v1/events");
  const items = data?.data.items ?? fail(`list events from ${eventsUrl}: HTTP ${response.status}`);
  const types = items.map((e) => e.type);
  check(JSON.stringify(types) === JSON.stringify(["refund.succeeded", "payout.reversed", "payout.failed"]),
    `list events with unknown types: decoded ${JSON.stringify(types)}`);
  for (const e of items) {
    check(e.payload.type === e.type && e.payload.data["object"] !== undefined, `event ${e.id} (${e.type}): the payload lost its type or data.object`);
  }
  console.log(`event page with 2 unknown types decoded whole; handled: ${items.filter(handles).map((e) => e.type).join(" ")}`);
}

// ------------------------------------------------------------------ main

// PaymentAmount: minimum 0.01, maximum 1000000000000, multipleOf 0.01.
const PAYMENT_AMOUNTS = [987654321.12, 999999999999.99, 1000000000000, 0.01, 0.07, 0.29, 1.1, 19.99, 150.5, 1234567.89, 4.35, 64.68, 0.3, 123456789.07];
// PayoutAmount: integer 1 .. 2^53-1.
const PAYOUT_AMOUNTS = [2500, 1, 9007199254740991];
const INVALID_PAYMENT_AMOUNTS = [0, -1, 0.001, 2.675, 1.005, 1000000000000.01];

let exitCode = 0;
try {
  const { country, bank } = await referenceData();
  for (const a of PAYOUT_AMOUNTS) await bankPayout(country, bank, a);
  for (const a of PAYMENT_AMOUNTS) await payment(country, a);
  for (const a of INVALID_PAYMENT_AMOUNTS) await invalidPaymentAmount(country, a);
  console.log(`invalid payment amounts rejected with 400 naming /amount: ${INVALID_PAYMENT_AMOUNTS.map((a) => JSON.stringify(a)).join(" ")}`);
  if (cfg.eventsUrl) await unknownEvents(cfg.eventsUrl);
} catch (e) {
  check(false, `aborted: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
}
console.log(`fetch-client: ${checks} checks, ${failures.length} failed; ${PAYOUT_AMOUNTS.length} payouts, ` +
  `${PAYMENT_AMOUNTS.length} payments, ${INVALID_PAYMENT_AMOUNTS.length} invalid amounts; ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (failures.length > 0) {
  console.error("fetch-client: FAILED");
  exitCode = 1;
} else {
  console.log("fetch-client: OK");
}
process.exit(exitCode);
