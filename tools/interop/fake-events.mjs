// A stand-in for a newer implementation of the API: GET /v1/events answers unknown-event-page.json,
// a page holding two event types this version of the document does not declare (refund.succeeded,
// payout.reversed) beside a declared one (payout.failed). Each generated client's test lists events
// from it and must decode the whole page, which the document promises (the Events tag: new event
// types without a new API version). The page itself is held valid against the document by
// TestAnEventPageWithUnknownTypesIsValid (openapi). Prints "fake-events: listening on URL".
// Usage: node tools/interop/fake-events.mjs
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const page = readFileSync(new URL("unknown-event-page.json", import.meta.url));
const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  // The keys are checked only for presence: a client that sends none would fail against a real
  // implementation, and its test must fail here too.
  if (req.method !== "GET" || url.pathname !== "/v1/events" || !req.headers["public-key"] || !req.headers["secret-key"]) {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end(`fake-events serves only GET /v1/events with public-key and secret-key, not ${req.method} ${url.pathname}\n`);
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(page);
});
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  console.log(`fake-events: listening on http://127.0.0.1:${port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
