-- wrk script for make bench-http: GET BENCH_PATH (the country list) with the merchant's public key,
-- the one key header the operation needs. done() prints the same "RESULT ..." line as create-payout.lua.
wrk.method = "GET"
wrk.path = os.getenv("BENCH_PATH")
wrk.headers["public-key"] = os.getenv("BENCH_PUBLIC_KEY")

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT requests=%d seconds=%.3f rps=%.1f p50_ms=%.3f p99_ms=%.3f non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, e.status, e.connect + e.read + e.write + e.timeout))
end
