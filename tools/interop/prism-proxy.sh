#!/usr/bin/env bash
# Runs the whole `malipo conform` suite through Stoplight Prism 5 used as a validating proxy in front of
# `malipo sandbox`, so a second, independent OpenAPI implementation judges every response the sandbox gives:
#
#   malipo conform --target R  ->  prism-recorder.mjs (R)  ->  prism proxy openapi/malipo.yaml S  ->  malipo sandbox (S)
#         ^                                                                                              |
#         +------------------ webhook deliveries go straight from the sandbox to conform's receiver -----+
#
# Prism runs without --errors: it forwards everything and reports violations. Its CLI log is human text in
# which a violation line does not name its request, so prism-recorder.mjs (a transparent pass-through)
# records each exchange with the violations Prism attaches to its response (header `sl-violations`);
# prism-summary.mjs counts them and cross-checks the counts against Prism's log.
#
# Fails (exit 1) when Prism reports any response violation, when an exchange does not complete, or when
# conform fails. Request violations are expected (the suite sends deliberately bad requests): counted only.
#
# Usage: tools/interop/prism-proxy.sh BIN_DIR [OUT_DIR]
#   BIN_DIR  holds the malipo binary (go build -o BIN_DIR/malipo ./cmd/malipo)
#   OUT_DIR  scratch output (default tools/interop/out/prism): exchanges.jsonl, prism.log, sandbox.log,
#            conform.txt, conform.json, conform.junit.xml
# Env: MALIPO_SANDBOX_FLAGS  extra `malipo sandbox` flags, for a negative control that this script
#                            catches a broken sandbox, e.g. MALIPO_SANDBOX_FLAGS='--fault drop-required-response-field'
#      PRISM_PROXY_EXCLUDE    ERE of check ids not to run (default: the malformed-JSON checks and the
#                             150-field one, see step 4)
#      PRISM_PROXY_ONLY       ERE of check ids to run at most (default: all), for debugging
#      PRISM_SUMMARY_VERBOSE=1  list every distinct request violation
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$(cd "${1:?usage: prism-proxy.sh BIN_DIR [OUT_DIR]}" && pwd)
out=${2:-$here/out/prism}
malipo=$bin/malipo
prism=$root/tools/node_modules/.bin/prism
spec=$root/openapi/malipo.yaml
pk=pk_test_prism_interop
sk=sk_test_prism_interop
[ -x "$malipo" ] || { echo "prism-proxy: no $malipo (go build -o $bin/malipo ./cmd/malipo)"; exit 2; }
[ -x "$prism" ] || { echo "prism-proxy: no $prism (cd tools && npm ci)"; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/{exchanges.jsonl,prism.log,recorder.log,sandbox.log,sandbox.err,conform.txt,conform.json,conform.junit.xml}
echo "prism-proxy: $("$prism" --version | sed 's/^/prism /'), node $(node --version); output in $out"

# Prism validates against the working-tree document; the sandbox serves from the one embedded at build
# time. Results are only meaningful when they are the same document.
if ! "$malipo" spec | cmp -s - "$spec"; then
  echo "prism-proxy: $malipo embeds a different openapi/malipo.yaml than the working tree; rebuild it:"
  echo "  go build -o $bin/malipo ./cmd/malipo"
  exit 2
fi

pids=()
cleanup() {
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill -TERM "${pids[i]}" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

# wait_for FILE SED_EXPR PID WHAT: prints the URL a process announces in FILE, or fails.
wait_for() {
  local file=$1 expr=$2 pid=$3 what=$4 url=""
  for _ in $(seq 1 300); do
    url=$(sed 's/\x1b\[[0-9;]*m//g' "$file" 2>/dev/null | sed -n "$expr" | head -n1)
    [ -n "$url" ] && { echo "$url"; return 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "prism-proxy: $what did not start:" >&2
  cat "$file" "${file%.log}.err" 2>/dev/null >&2 || true
  return 1
}

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
t0=$(date +%s.%N)
# 1. The sandbox, with the fast timings of examples/ci/conform-local.sh.
"$malipo" sandbox --addr 127.0.0.1:0 --public-key $pk --secret-key $sk \
  --prompt-delay 20ms --payout-delay 20ms --webhook-retry-schedule 20ms,40ms,80ms,160ms,320ms \
  --webhook-timeout 500ms ${MALIPO_SANDBOX_FLAGS:-} >"$out/sandbox.log" 2>"$out/sandbox.err" &
pids+=($!)
sandbox_url=$(wait_for "$out/sandbox.log" 's/^ *listening on *\(http:[^ ]*\).*/\1/p' "${pids[-1]}" "malipo sandbox")
echo "prism-proxy: malipo sandbox at $sandbox_url"

# 2. Prism as a validating proxy (no --errors). Prism needs a concrete --port: take a free one from the
#    kernel and retry on the (unlikely) race with another process.
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
prism_url=""
for attempt in 1 2 3; do
  port=$(free_port)
  : >"$out/prism.log"
  NO_COLOR=1 FORCE_COLOR=0 "$prism" proxy "$spec" "$sandbox_url" --host 127.0.0.1 --port "$port" >"$out/prism.log" 2>&1 &
  pids+=($!)
  if prism_url=$(wait_for "$out/prism.log" 's/.*Prism is listening on \(http:[^ ]*\).*/\1/p' "${pids[-1]}" "prism proxy (attempt $attempt)"); then
    break
  fi
  prism_url=""
done
[ -n "$prism_url" ] || exit 2
echo "prism-proxy: prism proxy at $prism_url (forwarding to the sandbox; violations are logged, not enforced)"

# 3. The recorder in front of Prism.
node "$here/prism-recorder.mjs" --upstream "$prism_url" --out "$out/exchanges.jsonl" >"$out/recorder.log" 2>&1 &
pids+=($!)
target=$(wait_for "$out/recorder.log" 's/^listening on \(http:[^ ]*\).*/\1/p' "${pids[-1]}" "prism-recorder")
t_ready=$(date +%s.%N)
echo "prism-proxy: recorder at $target; stack ready in $(secs "$t0" "$t_ready")s"

# 4. Which checks. A request whose application/json body does not parse never gets an answer from Prism
#    5.16.0: in @stoplight/prism-http-server/dist/server.js, parseRequestBody's .catch waits for 'end' or
#    'close' of a request body micri's json() has already consumed, so neither the error nor a forward
#    ever happens (stoplightio/prism#2664 reports the malformed-JSON handling; 5.12 answered with a raw
#    micri error instead). The checks that send one — negative.*.malformed-json, body `{"amount": 1,` —
#    are excluded. So is negative.processPayout.over-100-fields: its body has 150 unknown members, and
#    Prism's sl-violations header, cut at its length limit, cannot list their violations, so the summary
#    could not tell whether a response violation is among them (it counts a cut header as failing).
#    conform has no --skip, and Go's RE2 has no negative look-ahead, so the kept ids are listed explicitly.
exclude_re=${PRISM_PROXY_EXCLUDE-'\.malformed-json$|^negative\.processPayout\.over-100-fields$'}
all_ids=$("$malipo" conform --list | awk 'NF >= 2 && $1 ~ /^[a-z]+\./ {print $1}')
excluded=$(grep -E "${exclude_re:-^$}" <<<"$all_ids" || true)
kept=$(grep -Ev "${exclude_re:-^$}" <<<"$all_ids" | grep -E "${PRISM_PROXY_ONLY:-.}" || true)
[ -n "$kept" ] || { echo "prism-proxy: no check left to run"; exit 2; }
n_all=$(wc -l <<<"$all_ids")
n_excl=$(grep -c . <<<"$excluded" || true)
n_kept=$(wc -l <<<"$kept")
run_re="^(?:$(sed 's/\./\\./g' <<<"$kept" | paste -sd'|'))\$"
n_sel=$("$malipo" conform --list --run "$run_re" | sed -n 's/^\([0-9]*\) checks$/\1/p')
[ "$n_sel" = "$n_kept" ] || { echo "prism-proxy: the --run expression selects $n_sel checks, expected $n_kept"; exit 2; }
echo "prism-proxy: running $n_kept of $n_all checks; $n_excl excluded (a malformed JSON body hangs Prism 5, stoplightio/prism#2664; 150 unknown members overflow its sl-violations header):"
sed 's/^/  - /' <<<"$excluded"

# 5. The suite, through recorder -> Prism -> sandbox. Webhooks: conform's receiver listens on loopback and
#    the sandbox delivers to it directly (the default --webhook-url), not through Prism.
set +e
"$malipo" conform --target "$target" --public-key $pk --secret-key $sk --wait 10s --webhook-stall 2s \
  --run "$run_re" --json "$out/conform.json" --junit "$out/conform.junit.xml" >"$out/conform.txt" 2>&1
conform_rc=$?
set -e
t_done=$(date +%s.%N)
grep -E '^(FAIL|SKIP)' "$out/conform.txt" | head -n 40 || true
tail -n 1 "$out/conform.txt"
echo "prism-proxy: conform exit $conform_rc in $(secs "$t_ready" "$t_done")s"

# 6. Stop the stack (flushes the recorder), then summarise.
cleanup
pids=()
set +e
node "$here/prism-summary.mjs" "$out/exchanges.jsonl" "$out/prism.log" "$spec"
summary_rc=$?
set -e
echo "prism-proxy: excluded checks: $n_excl (malformed JSON bodies, stoplightio/prism#2664; the 150-member body); wall time $(secs "$t0" "$(date +%s.%N)")s"
if [ $conform_rc -ne 0 ]; then
  echo "prism-proxy: FAIL: malipo conform through Prism exited $conform_rc (see $out/conform.txt)"
  exit 1
fi
exit $summary_rc
