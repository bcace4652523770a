#!/usr/bin/env bash
# make bench-http: the sandbox under sustained HTTP load, next to Prism's mock of the same document and
# a bare Go handler, with one load generator (wrk) for all of them. See docs/benchmarks.md.
#
#   tools/bench-http.sh BIN_DIR      (make bench-http builds BIN_DIR/malipo first)
#
# Operations:
#   create   POST process-payout: the document's bank payout example with a new reference and
#            Idempotency-Key on every request (tools/benchhttp/create-payout.lua)
#   read     GET list-countries (tools/benchhttp/read.lua)
# Targets:
#   sandbox      `malipo sandbox` (request log on stderr, to a file), a new process for every run
#   sandbox-1M   one `malipo sandbox` that first takes BENCH_PRELOAD payouts over HTTP from the same
#                wrk script, every one settled with its event; each preload chunk's throughput shows
#                whether it slides as the history grows; VmRSS and VmHWM after the preload
#   prism        `prism mock` of openapi/malipo.yaml (tools/node_modules, Prism's defaults)
#   bare         tools/benchhttp/bare: decodes the same body; no contract, no state, no log
# Both sandboxes run with --payout-delay 100ms, so that a run's payouts settle (and emit their events)
# within the run rather than in the next one.
#
# Each round runs every target and operation once, in turn, so that a change in the machine's load
# hits them all alike; the summary gives the median of BENCH_REPEAT rounds: req/s and p99 as wrk
# measures them, and the server's CPU time per request (from /proc/PID/stat), which other work on the
# machine disturbs less than throughput.
#
# Settings (environment): BENCH_DURATION (10s), BENCH_REPEAT (3), BENCH_PRELOAD (1000000),
# BENCH_PRELOAD_CHUNK (30s), BENCH_CONNECTIONS (16), BENCH_THREADS (2); BENCH_IDEMPOTENCY=0 creates
# payouts without an Idempotency-Key (the sandbox then keeps no response to replay, about half of
# what a payout costs it in memory); BENCH_MALIPO runs another malipo binary as the sandbox (an older
# build, to compare). Everything is written to BIN_DIR/bench-http/ (results.txt has one line per run,
# summary.txt the medians).
set -euo pipefail

bin=$(cd "${1:?usage: tools/bench-http.sh BIN_DIR}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
out="$bin/bench-http"
mkdir -p "$out"
results="$out/results.txt"
: >"$results"

duration=${BENCH_DURATION:-10s}
repeat=${BENCH_REPEAT:-3}
preload=${BENCH_PRELOAD:-1000000}
chunk=${BENCH_PRELOAD_CHUNK:-30s}
conns=${BENCH_CONNECTIONS:-16}
threads=${BENCH_THREADS:-2}
export BENCH_PUBLIC_KEY=${MALIPO_PUBLIC_KEY:-pk_test_malipo_sandbox}
export BENCH_SECRET_KEY=${MALIPO_SECRET_KEY:-sk_test_malipo_sandbox}
spec="$root/openapi/malipo.yaml"
ticks=$(getconf CLK_TCK)

# The paths come from the document, by operationId, so that the script follows the document.
path_of() {
  awk -v id="$1" '/^  \/[^ ]*:$/ {p=$1; sub(/:$/, "", p)} $0 ~ "operationId: "id"$" {print p; exit}' "$spec"
}
create_path=$(path_of processPayout)
read_path=$(path_of listCountries)
[ -n "$create_path" ] && [ -n "$read_path" ] || { echo "bench-http: cannot find the operations' paths in $spec" >&2; exit 2; }

if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "bench-http: no wrk on PATH; installing Debian's wrk"
    apt-get install -y -qq wrk >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk; }
  else
    echo "bench-http: needs wrk on PATH (apt-get install wrk)" >&2; exit 2
  fi
fi
prism="$root/tools/node_modules/.bin/prism"
[ -x "$prism" ] || { echo "bench-http: $prism missing (make deps)" >&2; exit 2; }
(cd "$root/tools" && go build -o "$bin/bench-bare" ./benchhttp/bare)

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

# wait_url FILE PID: the "listening on http://..." URL a server printed to FILE.
wait_url() {
  local u=""
  for _ in $(seq 1 300); do
    u=$(sed -n 's/^ *listening on *\(http:[^ ]*\).*/\1/p' "$1" | head -n 1)
    [ -n "$u" ] && { echo "$u"; return; }
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  echo "bench-http: a server did not start:" >&2; cat "$1" >&2; exit 2
}

# start_sandbox NAME: a malipo sandbox; sets pid[NAME] and url[NAME].
declare -A pid url
malipo=${BENCH_MALIPO:-$bin/malipo}
# wrk sends far more than a merchant's per-minute limit: it is turned off where the binary has one.
no_limit=()
"$malipo" sandbox --help 2>/dev/null | grep -q -- '--rate-limit' && no_limit=(--rate-limit 0)
start_sandbox() {
  "$malipo" sandbox --addr 127.0.0.1:0 --public-key "$BENCH_PUBLIC_KEY" --secret-key "$BENCH_SECRET_KEY" \
    --payout-delay 100ms "${no_limit[@]}" >"$out/$1.out" 2>"$out/$1.log" &
  pid[$1]=$!
  pids+=("${pid[$1]}")
  url[$1]=$(wait_url "$out/$1.out" "${pid[$1]}")
}
stop_sandbox() {
  kill -TERM "${pid[$1]}" 2>/dev/null || true
  wait "${pid[$1]}" 2>/dev/null || true
  rm -f "$out/$1.log" # a million request lines are not worth keeping
}
memory() { awk '/^(VmRSS|VmHWM):/ {printf "%s %d MB  ", $1, $2/1024}' "/proc/$1/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run_wrk TARGET OP [DURATION [LABEL]]: one wrk run against TARGET; its RESULT line, with the server's
# CPU time per request added, goes to $results (labelled LABEL, default TARGET) and to $last. Not to
# be called in a subshell: $run numbers the runs, which keeps references unique. A run with a failed
# request (an error status, a socket error, or no answer within 30 s) stops the script, except in the
# warm-up.
run=0 last=""
run_wrk() {
  local target=$1 op=$2 d=${3:-$duration} label=${4:-$1} script path line before n
  run=$((run + 1))
  if [ "$op" = create ]; then script=create-payout.lua path=$create_path; else script=read.lua path=$read_path; fi
  before=$(cpu_ticks "${pid[$target]}")
  line=$(BENCH_PATH="$path" BENCH_RUN="$$x$run" wrk -t"$threads" -c"$conns" -d"$d" --timeout 30s --latency \
    -s "$root/tools/benchhttp/$script" "${url[$target]}" | tee "$out/wrk-$run-$label-$op.txt" | grep '^RESULT')
  case "$label $line" in
    warmup*|*" non2xx=0 socket_errors=0") ;;
    *) echo "bench-http: $label $op: failed requests: $line (see $out/wrk-$run-$label-$op.txt)" >&2; exit 1 ;;
  esac
  n=$(sed -n 's/.* requests=\([0-9]*\) .*/\1/p' <<<"$line")
  last="$label $op ${line#RESULT } server_cpu_us=$(( ( $(cpu_ticks "${pid[$target]}") - before ) * 1000000 / ticks / n ))"
  echo "$last" >>"$results"
}

echo "bench-http: wrk -t$threads -c$conns -d$duration, $repeat rounds, Idempotency-Key ${BENCH_IDEMPOTENCY:-1}; sandbox $malipo;" \
  "$(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

"$bin/bench-bare" -addr 127.0.0.1:0 >"$out/bare.out" 2>&1 &
pid[bare]=$!
pids+=("${pid[bare]}")
url[bare]=$(wait_url "$out/bare.out" "${pid[bare]}")

# start_prism: Prism's mock on a port of its own. Prism is restarted (and warmed up again) when it is
# found gone before a run; the summary says how often that happened.
prism_port=$((20000 + $$ % 10000)) prism_restarts=0
start_prism() {
  "$prism" mock -h 127.0.0.1 -p "$prism_port" "$spec" >>"$out/prism.log" 2>&1 &
  pid[prism]=$!
  pids+=("${pid[prism]}")
  for _ in $(seq 1 600); do
    [ "$(grep -c "Prism is listening" "$out/prism.log")" -gt "$prism_restarts" ] && break
    kill -0 "${pid[prism]}" 2>/dev/null || { cat "$out/prism.log" >&2; exit 2; }
    sleep 0.1
  done
  url[prism]="http://127.0.0.1:$prism_port"
}
ensure_prism() {
  kill -0 "${pid[prism]}" 2>/dev/null && return
  prism_restarts=$((prism_restarts + 1))
  echo "bench-http: Prism (pid ${pid[prism]}) is gone; restarting it" | tee -a "$results"
  start_prism
  run_wrk prism create 5s warmup
  run_wrk prism read 5s warmup
}
: >"$out/prism.log"
start_prism

echo "--- preload: $preload payouts over HTTP in $chunk chunks"
start_sandbox sandbox-1M
created=0
while [ "$created" -lt "$preload" ]; do
  run_wrk sandbox-1M create "$chunk" preload
  n=$(sed -n 's/.* requests=\([0-9]*\) .*/\1/p' <<<"$last")
  created=$((created + n))
  echo "  $last  (payouts so far: $created)"
done
sleep 1 # the last payouts settle and emit their events
echo "sandbox-1M memory after $created payouts and as many events: $(memory "${pid[sandbox-1M]}")" | tee -a "$results"

echo "--- warm-up (not counted): Prism's JIT, the Go servers' heaps"
for t in prism bare; do for op in create read; do run_wrk "$t" "$op" 5s warmup; done; done

for rep in $(seq 1 "$repeat"); do
  echo "--- round $rep of $repeat (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  start_sandbox sandbox
  for op in create read; do
    for t in sandbox sandbox-1M bare prism; do
      [ "$t" != prism ] || ensure_prism
      run_wrk "$t" "$op"
      echo "$last"
      sleep 0.5 # a sandbox's last payouts settle before the next run
    done
  done
  stop_sandbox sandbox
done
echo "sandbox-1M memory at the end: $(memory "${pid[sandbox-1M]}")" | tee -a "$results"
stop_sandbox sandbox-1M

echo "--- medians of $repeat rounds (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
awk '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  $1 == "preload" { split($5, kv, "="); chunks = chunks sprintf(" %.0f", kv[2]); next }
  $1 == "warmup" || $2 !~ /^(create|read)$/ { next }
  {
    k = $1 " " $2
    for (i = 3; i <= NF; i++) { split($i, kv, "="); v[k, kv[1]] = v[k, kv[1]] " " kv[2] }
    keys[k] = 1
  }
  END {
    printf "%-18s %10s %9s %9s %14s\n", "target op", "req/s", "p50 ms", "p99 ms", "server CPU/req"
    n = split("sandbox create|sandbox-1M create|bare create|prism create|sandbox read|sandbox-1M read|bare read|prism read", order, "|")
    for (i = 1; i <= n; i++) {
      k = order[i]
      if (!(k in keys)) continue
      rps[k] = median(v[k, "rps"]); p99[k] = median(v[k, "p99_ms"]); cpu[k] = median(v[k, "server_cpu_us"])
      printf "%-18s %10.0f %9.2f %9.2f %11d us\n", k, rps[k], median(v[k, "p50_ms"]), p99[k], cpu[k]
    }
    print ""
    print "preload chunks, req/s in order:" chunks
    printf "writes: sandbox / prism              %6.2fx  (issue 15 asks >= 10x)\n", rps["sandbox create"] / rps["prism create"]
    printf "writes: p99 sandbox, prism           %6.2f ms, %.2f ms  (asks: below Prism)\n", p99["sandbox create"], p99["prism create"]
    printf "writes: sandbox-1M / sandbox         %6.2fx  (asks >= 0.90x)\n", rps["sandbox-1M create"] / rps["sandbox create"]
    printf "writes: CPU/req sandbox-1M / sandbox %6.2fx\n", cpu["sandbox-1M create"] / cpu["sandbox create"]
    printf "writes: sandbox / bare               %6.2fx\n", rps["sandbox create"] / rps["bare create"]
    printf "reads:  sandbox / bare               %6.2fx  (asks >= 0.6x)\n", rps["sandbox read"] / rps["bare read"]
    printf "reads:  sandbox-1M / bare            %6.2fx\n", rps["sandbox-1M read"] / rps["bare read"]
    printf "reads:  sandbox / prism              %6.2fx\n", rps["sandbox read"] / rps["prism read"]
  }' "$results" | tee "$out/summary.txt"
grep '^sandbox-1M memory' "$results" | tee -a "$out/summary.txt"
grep '^bench-http: Prism' "$results" | tee -a "$out/summary.txt" || true
