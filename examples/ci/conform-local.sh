#!/usr/bin/env bash
# Runs `malipo conform --target` against `malipo sandbox` started as a separate process, the way a CI
# job checks a service it starts itself. Usage: examples/ci/conform-local.sh BIN_DIR [REPORT_DIR]
# CONFORM_FLAGS are added to the conform command; unset, they are --quiet (set it empty for every check).
set -euo pipefail
bin=${1:?usage: conform-local.sh BIN_DIR [REPORT_DIR]}
reports=${2:-$bin}
log=$(mktemp)
# Two merchants (--merchant adds the second), so that conform's cross-merchant isolation checks run too.
"$bin/malipo" sandbox --addr 127.0.0.1:0 --public-key pk_test_conform_ci --secret-key sk_test_conform_ci \
  --merchant pk_test_conform_ci_other:sk_test_conform_ci_other \
  --prompt-delay 20ms --payout-delay 20ms --webhook-retry-schedule 20ms,40ms,80ms,160ms,320ms \
  --webhook-timeout 500ms >"$log" 2>"$log.err" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null || true; rm -f "$log" "$log.err"' EXIT
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's/^ *listening on *\(http:[^ ]*\).*/\1/p' "$log")
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "conform-local: the sandbox did not start:"; cat "$log.err"; exit 2; }
echo "conform-local: malipo sandbox (pid $pid) at $url"
"$bin/malipo" conform --target "$url" --public-key pk_test_conform_ci --secret-key sk_test_conform_ci \
  --other-public-key pk_test_conform_ci_other --other-secret-key sk_test_conform_ci_other \
  --wait 10s --webhook-stall 2s ${CONFORM_FLAGS---quiet} \
  --junit "$reports/conform-target.junit.xml" --json "$reports/conform-target.json" --html "$reports/conform-target.html"
