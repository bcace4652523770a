#!/usr/bin/env bash
# make bench-conform-pace: `malipo conform` against a sandbox as slow as a staging service, at several
# settlement scales and with a network's round trip, and its wall time next to the target's slowest
# settlement. See docs/benchmarks.md, "conform against slow targets".
#
#   tools/bench-conform-pace.sh BIN_DIR      (make bench-conform-pace builds BIN_DIR/malipo first)
#
# Each target is a `malipo sandbox` of its own (a new process per run), identical but for its timings:
# every payment and payout settles between DELAY and DELAY+SPREAD (--prompt-delay, --payout-delay,
# --settle-spread: each object its own time), and, where a row says so, every answer and delivery
# crosses LATENCY (--latency). Retries and the delivery time-out are the same in every row (a first
# retry after 200 ms, a 1 s time-out, a 2 s receiver stall), so that only settlement and latency
# differ. conform waits (--wait) three times the slowest settlement, 20 s at the least, which is what
# docs/conform.md tells users of a slow target to pass: the settle windows are then as long as a fast
# run's, in proportion.
#
# It prints, per row: the settlement range, the latency, conform's wall time, the ratio of that time
# to the slowest settlement, and the verdict line (every row must be all passed: the same verdicts as
# the fast run). Settings (environment): BENCH_ROWS, the rows to run, by name (default: all);
# BENCH_MALIPO, another malipo binary to measure (an older build, to compare). Results go to
# BIN_DIR/bench-conform-pace/ (results.txt; each run's text and JSON reports).
set -euo pipefail

bin=${1:?usage: bench-conform-pace.sh BIN_DIR}
malipo=${BENCH_MALIPO:-$bin/malipo}
out=$bin/bench-conform-pace
mkdir -p "$out"

# name delay spread latency
rows=(
  "1s 800ms 1200ms none"
  "10s 6s 6s none"
  "45s 30s 30s none"
  "1s+latency 800ms 1200ms 100ms-300ms"
  "45s+latency 30s 30s 100ms-300ms"
)
want=${BENCH_ROWS:-}

seconds() { # a Go duration as seconds, for the durations this script uses (ms or s)
  case $1 in
    *ms) echo "scale=3; ${1%ms}/1000" | bc ;;
    *s) echo "${1%s}" ;;
  esac
}

printf '%-12s %-14s %-12s %10s %8s  %s\n' row settles latency "wall (s)" ratio verdict | tee "$out/results.txt"
for row in "${rows[@]}"; do
  read -r name delay spread latency <<<"$row"
  if [ -n "$want" ] && [[ " $want " != *" $name "* ]]; then continue; fi
  slowest=$(echo "$(seconds "$delay") + $(seconds "$spread")" | bc)
  wait=$(echo "w = 3 * $slowest; if (w < 20) w = 20; w" | bc)
  lat=()
  [ "$latency" != none ] && lat=(--latency "$latency")
  log=$(mktemp)
  "$malipo" sandbox --addr 127.0.0.1:0 --dashboard=false \
    --public-key pk_test_bench --secret-key sk_test_bench --merchant pk_test_bench_other:sk_test_bench_other \
    --prompt-delay "$delay" --payout-delay "$delay" --settle-spread "$spread" "${lat[@]}" \
    --webhook-retry-schedule 200ms,400ms,800ms,1600ms,3200ms --webhook-timeout 1s >"$log" 2>"$log.err" &
  pid=$!
  url=""
  for _ in $(seq 1 100); do
    url=$(sed -n 's/^ *listening on *\(http:[^ ]*\).*/\1/p' "$log")
    [ -n "$url" ] && break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    echo "bench-conform-pace: the sandbox did not start:"; cat "$log.err"; kill "$pid" 2>/dev/null || true; exit 2
  fi
  start=$(date +%s.%N)
  code=0
  "$malipo" conform --target "$url" --public-key pk_test_bench --secret-key sk_test_bench \
    --other-public-key pk_test_bench_other --other-secret-key sk_test_bench_other \
    --wait "${wait}s" --webhook-stall 2s --quiet --json "$out/$name.json" >"$out/$name.txt" 2>&1 || code=$?
  end=$(date +%s.%N)
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$log" "$log.err"
  wall=$(echo "$end - $start" | bc)
  verdict=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/$name.txt" | tail -1 | sed 's/; generated.*//')
  [ "$code" = 0 ] || verdict="exit $code: $verdict"
  printf '%-12s %-14s %-12s %10.1f %7.1fx  %s\n' "$name" "${delay}+${spread}" "$latency" "$wall" \
    "$(echo "$wall / $slowest" | bc -l)" "$verdict" | tee -a "$out/results.txt"
done
