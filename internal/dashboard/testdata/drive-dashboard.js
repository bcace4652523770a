// Drives the sandbox dashboard in Debian's headless Chromium (through playwright-core, which never
// downloads a browser) as a person would, for dashboard_test.go, and prints what it saw as JSON on its
// last line of output.
//
// The conversation with the test, over stdin and stdout: the script opens the page and prints READY
// once the live stream is connected; the test then creates a payout through the API and writes its id
// on a line; the script waits for the payout to appear (live, no reload), clicks "Settle success",
// waits for the status and the event with its attempt, opens the attempt's request, clicks "Resend"
// and waits for the second attempt (the request still open). With a third argument it also saves a screenshot of the whole page there.
//
// Usage: NODE_PATH=tools/node_modules node drive-dashboard.js URL /usr/bin/chromium [screenshot.png]
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const readline = require("readline");
const { chromium } = require("playwright-core");

const step = 20000; // ms for each thing to appear

async function main() {
  const [url, executablePath = "/usr/bin/chromium", screenshot] = process.argv.slice(2);
  const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "malipo-dashboard-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    timeout: 120000,
    viewport: { width: 1400, height: 1000 },
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  const out = { requests: [], consoleErrors: [] };
  try {
    context.on("request", (r) => out.requests.push(r.url()));
    const page = context.pages()[0] || (await context.newPage());
    page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") out.consoleErrors.push(m.text()); });
    page.on("pageerror", (e) => out.consoleErrors.push(String(e)));
    await page.goto(url, { waitUntil: "load" });
    await page.locator('#live[data-state="live"]').waitFor({ timeout: step });
    // A mark on this document: if anything reloaded the page, it is gone.
    await page.evaluate(() => { window.__sameDocument = true; });

    process.stdout.write("READY\n");
    const { value: payoutID } = await lines.next();
    out.payoutID = payoutID.trim();

    const row = page.locator(`tr[data-payout="${out.payoutID}"]`);
    await row.waitFor({ timeout: step });
    out.statusBefore = await row.locator("td.status").innerText();

    await row.locator("button.settle-success").click();
    await page.locator(`tr[data-payout="${out.payoutID}"] td.status`, { hasText: "success" }).waitFor({ timeout: step });
    out.statusAfter = await page.locator(`tr[data-payout="${out.payoutID}"] td.status`).innerText();
    out.messageAfterSettle = await page.locator("#message").innerText();

    const event = page.locator(`tbody[data-object="${out.payoutID}"]`);
    await event.locator("tr.attempt").first().waitFor({ timeout: step });
    out.eventID = await event.getAttribute("data-event");
    out.eventType = await event.locator("td.type").innerText();
    out.attemptsAfterSettle = await event.locator("tr.attempt").count();
    out.firstAttempt = await event.locator("tr.attempt").first().innerText();

    // Open the first attempt's request, as a person checking what was sent; it stays open while the
    // tables are re-rendered live.
    await event.locator("tr.request summary").first().click();
    await event.locator("tr.request details[open] pre.request").first().waitFor({ state: "visible", timeout: step });

    await event.locator("button.resend").click();
    await page.locator(`tbody[data-object="${out.payoutID}"] tr.attempt[data-resend]`).first().waitFor({ timeout: step });
    out.requestOpenAfterResend = await page.locator(`tbody[data-object="${out.payoutID}"] tr.request details`).first().evaluate((d) => d.open);
    out.firstRequest = await page.locator(`tbody[data-object="${out.payoutID}"] tr.request pre.request`).first().innerText();
    out.attemptsAfterResend = await page.locator(`tbody[data-object="${out.payoutID}"] tr.attempt`).count();
    out.resendAttempt = await page.locator(`tbody[data-object="${out.payoutID}"] tr.attempt[data-resend]`).first().innerText();
    out.messageAfterResend = await page.locator("#message").innerText();
    out.sameDocument = await page.evaluate(() => window.__sameDocument === true);
    out.liveState = await page.locator("#live").getAttribute("data-state");

    if (screenshot) {
      fs.mkdirSync(path.dirname(screenshot), { recursive: true });
      await page.screenshot({ path: screenshot, fullPage: true });
      out.screenshot = screenshot;
    }
  } finally {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
