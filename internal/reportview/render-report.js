// Opens an HTML report of `malipo conform` in Debian's headless Chromium (driven by playwright-core,
// which never downloads a browser) and prints, as JSON, what a person would see in it, for
// html_test.go to assert on.
//
// Usage: NODE_PATH=tools/node_modules node render-report.js /abs/path/report.html [/usr/bin/chromium]
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { pathToFileURL } = require("url");
const { chromium } = require("playwright-core");

async function main() {
  const [report, executablePath = "/usr/bin/chromium"] = process.argv.slice(2);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "malipo-report-chromium-"));
  // A persistent context on a fresh profile directory: the browser starts from nothing, and its
  // background services (updates, sync, QUIC probes) are off, so that the requests seen are the page's.
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    timeout: 120000,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  const out = { requests: [], consoleErrors: [] };
  try {
    context.on("request", (r) => out.requests.push(r.url()));
    const page = context.pages()[0] || (await context.newPage());
    page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") out.consoleErrors.push(m.text()); });
    page.on("pageerror", (e) => out.consoleErrors.push(String(e)));
    await page.goto(pathToFileURL(report).href, { waitUntil: "load" });

    out.title = await page.title();
    out.text = await page.locator("body").innerText();
    // The checks in the order the page lists them, counting only what is rendered visibly.
    out.checkOrder = await page.$$eval("[data-check]", (els) =>
      els.filter((e) => e.checkVisibility()).map((e) => ({ id: e.dataset.check, tag: e.tagName.toLowerCase() })));

    const first = page.locator("article.check").first();
    out.firstFailure = {
      id: await first.getAttribute("data-check"),
      text: await first.innerText(),
      curl: await first.locator("code.curl-line").first().innerText(),
    };

    // An exchange is collapsed until its summary is clicked.
    const detail = first.locator("details.exchange-detail").first();
    const request = detail.locator(".http.request pre");
    out.exchangeVisibleBefore = await request.isVisible();
    await detail.locator("summary").click();
    out.exchangeVisibleAfter = await request.isVisible();
    out.exchangeText = await detail.innerText();

    // The copy button puts the command on the clipboard.
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const button = first.locator("button.copy").first();
    await button.click();
    await page.waitForFunction((b) => b.textContent !== "copy", await button.elementHandle(), { timeout: 10000 });
    out.copyLabel = await button.innerText();
    out.clipboard = await page.evaluate(() => navigator.clipboard.readText().catch((e) => "unreadable: " + e));

    out.columns = await page.$$eval("#coverage-matrix thead th[data-code]", (ths) =>
      ths.map((th) => ({ code: th.dataset.code, text: th.innerText, undocumented: th.classList.contains("undocumented") })));
    out.matrix = await page.$$eval("#coverage-matrix tbody tr", (rows) => Object.fromEntries(rows.map((tr) => [
      tr.dataset.operation,
      Object.fromEntries([...tr.querySelectorAll("td[data-code]")].map((td) => [td.dataset.code, { state: td.dataset.state, text: td.innerText, title: td.title }])),
    ])));
    out.webhooks = await page.$$eval("#webhook-types tbody tr", (rows) =>
      Object.fromEntries(rows.map((tr) => [tr.dataset.type, tr.querySelector("td").innerText])));
  } finally {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => { console.error(e); process.exit(1); });
