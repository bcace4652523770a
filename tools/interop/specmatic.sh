#!/usr/bin/env bash
# Specmatic's contract tests, generated from openapi/malipo.yaml and its own examples, against a fresh
# `malipo sandbox` from BIN_DIR (the default merchant starts with the objects the examples name; see
# internal/sandbox/seed.go). Usage: tools/interop/specmatic.sh BIN_DIR
#
# Exit status: non-zero when the sandbox does not start, Specmatic fails, any test fails that is not
# listed in LIMITATIONS below, a listed limitation no longer fails (the list must stay exact), or
# Specmatic prints a warning about the document (an unpaired example, a schema it cannot parse).
#
# Offline: SPECMATIC_DISABLE_TELEMETRY (and its system property) stops the only outbound call,
# the usage report to insights.specmatic.io; everything else stays on loopback.
#
# Specmatic pairs request and response examples by name and runs tests in document order, in one
# plain pass, as a user runs it (`specmatic test malipo.yaml`). That works because every destructive
# example names seed objects of its own: DELETE /v1/webhooks/{id} deletes we_7d3f5a1c9e2b4d60 (its
# own `id` example), never the endpoint that rotate-secret and resend, later in the document, use.
set -euo pipefail
bin=${1:?usage: specmatic.sh BIN_DIR}
bin=$(cd "$bin" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
spec=$root/openapi/malipo.yaml
jar=$root/tools/node_modules/specmatic/specmatic.jar
[ -f "$jar" ] || { echo "specmatic.sh: $jar is missing; run npm ci in tools/" >&2; exit 2; }

# Tests that fail because of a Specmatic limitation, one exact scenario title a line, each with its
# reason on the line above. Empty today: every generated test passes.
LIMITATIONS=(
)

start=$(date +%s)
unset MALIPO_PUBLIC_KEY MALIPO_SECRET_KEY # the seed data belongs to the default keys
# shellcheck source=lib-sandbox.sh
source "$here/lib-sandbox.sh"

work=$(mktemp -d)
trap 'stop_sandbox; rm -rf "$work"' EXIT
cd "$work" # Specmatic writes build/reports/ into the working directory

export SPECMATIC_DISABLE_TELEMETRY=true
export PublicKey=$pk SecretKey=$sk # Specmatic reads API keys from variables named after the security schemes

pass() { # pass NAME
  local name=$1 rc=0
  java -Dspecmatic.disable.telemetry=true -jar "$jar" test --testBaseURL="$url" \
    --junitReportDir="$work/junit-$name" "$spec" >"$work/$name.log" 2>&1 || rc=$?
  sed -n 's/^Tests run: \(.*\)$/specmatic.sh: one plain pass: \1/p' "$work/$name.log"
  echo "$rc" >"$work/$name.rc"
}
pass main

status=0
total=0 failed=0
for name in main; do
  line=$(grep '^Tests run:' "$work/$name.log" || true)
  if [ -z "$line" ]; then
    echo "specmatic.sh: pass $name did not run (exit $(cat "$work/$name.rc")):" >&2
    tail -n 40 "$work/$name.log" >&2
    exit 2
  fi
  run=$(sed -n 's/^Tests run: \([0-9]*\).*/\1/p' <<<"$line")
  if [ "${run:-0}" -eq 0 ]; then
    echo "specmatic.sh: pass $name ran no test: Specmatic paired no request and response examples (see $work/$name.log)" >&2
    exit 1
  fi
  fails=$(sed -n 's/.*Failures: \([0-9]*\).*Errors: \([0-9]*\).*/\1 \2/p' <<<"$line")
  total=$((total + run))
  failed=$((failed + ${fails% *} + ${fails#* }))
done

# Warnings about the document (Specmatic prints them while it parses, before any test).
# The JVM's own notices (newer JDKs warn about Unsafe and native access when Netty loads) are not
# about the document and are left out.
warnings=$(cat "$work/main.log" | grep -E '^\s*(WARNING|WARN)\b' |
  grep -vE '^WARNING: (A (restricted|terminally deprecated) method|sun\.misc\.Unsafe|Use --enable-native-access|Restricted methods will be blocked|Please consider reporting)' | sort -u || true)
if [ -n "$warnings" ]; then
  echo "specmatic.sh: Specmatic warns about the document:" >&2
  echo "$warnings" >&2
  status=1
fi

# Failed scenarios, by title, against the list of known limitations.
failures=$(cat "$work/main.log" | sed -n 's/^ *"Scenario: \(.*\) FAILED"$/\1/p' | sort -u)
unexpected=0 known=0
while IFS= read -r f; do
  [ -n "$f" ] || continue
  if printf '%s\n' "${LIMITATIONS[@]}" | grep -qxF -- "$f"; then
    known=$((known + 1))
  else
    unexpected=$((unexpected + 1))
    echo "specmatic.sh: FAILED: $f" >&2
  fi
done <<<"$failures"
for l in "${LIMITATIONS[@]}"; do
  if ! grep -qxF -- "$l" <<<"$failures"; then
    echo "specmatic.sh: the listed limitation passes now; remove it from LIMITATIONS: $l" >&2
    status=1
  fi
done
if [ "$unexpected" -gt 0 ]; then
  grep -A 12 'FAILED"$' "$work/main.log" >&2 || true
  status=1
fi
if [ "$failed" -ne $((unexpected + known)) ] && [ "$unexpected" -eq 0 ]; then
  echo "specmatic.sh: Specmatic counts $failed failures but $known are listed; see the logs" >&2
  cat "$work/main.log" >&2
  status=1
fi
# A Specmatic exit status of non-zero with only listed limitations failing is expected; otherwise
# it must agree with the counts.
for name in main; do
  rc=$(cat "$work/$name.rc")
  if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    echo "specmatic.sh: Specmatic exited $rc in pass $name with no failed test:" >&2
    tail -n 40 "$work/$name.log" >&2
    status=1
  fi
done

echo "specmatic.sh: one plain pass: $total tests, $((total - failed)) passed, $failed failed ($known known Specmatic limitations of ${#LIMITATIONS[@]} listed), $(($(date +%s) - start))s"
exit $status
