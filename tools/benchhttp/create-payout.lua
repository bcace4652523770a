-- wrk script for make bench-http: POST the document's bank payout example, with a reference and an
-- Idempotency-Key of its own on every request, so that every request creates a payout (a repeated key
-- would be a replay, a repeated reference a 409). Set by tools/bench-http.sh:
--   BENCH_PATH        the process-payout path
--   BENCH_PUBLIC_KEY, BENCH_SECRET_KEY  the merchant's keys
--   BENCH_RUN         a token unique to this wrk run (references must never repeat in one sandbox)
--   BENCH_IDEMPOTENCY "0" leaves the Idempotency-Key out (the server then stores no response to replay)
-- done() prints one "RESULT ..." line that the script parses.
local path = os.getenv("BENCH_PATH")
local run = os.getenv("BENCH_RUN") or tostring(os.time())
local headers = {
  ["public-key"] = os.getenv("BENCH_PUBLIC_KEY"),
  ["secret-key"] = os.getenv("BENCH_SECRET_KEY"),
  ["Content-Type"] = "application/json",
}
local body = '{"amount":2500,"countryId":"ctry_zm","transfer_to":"bank","bank_id":"bank_zm_zanaco",' ..
  '"account_number":"0000000001","narration":"Supplier invoice 88","reference":"%s"}'

local next_id = 1
function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
end

local with_key = os.getenv("BENCH_IDEMPOTENCY") ~= "0"
local n = 0
function request()
  n = n + 1
  local ref = string.format("b%s-%d-%d", run, tid, n)
  if with_key then headers["Idempotency-Key"] = ref end
  return wrk.format("POST", path, headers, string.format(body, ref))
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT requests=%d seconds=%.3f rps=%.1f p50_ms=%.3f p99_ms=%.3f non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, e.status, e.connect + e.read + e.write + e.timeout))
end
