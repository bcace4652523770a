#!/usr/bin/env bash
# Side by side (issue 25): Specmatic's generative mode and `malipo conform`'s generated checks against
# `malipo sandbox --fault NAME` for each fault that only generated inputs reveal, and against a
# sandbox without faults (twice: what fails there is a false alarm, and what differs between the two
# is the tool's own noise). Prints one table row per sandbox. Not part of make test or make interop:
# `make compare-generative` runs it (about 2 minutes of Specmatic per sandbox on 2 cores).
#
# Usage: tools/interop/specmatic-generative.sh BIN_DIR
#
# Environment:
#   FAULTS                      the faults to compare (default: the six below)
#   SPECMATIC_MAX_COMBINATIONS  Specmatic's MAX_TEST_REQUEST_COMBINATIONS, its cap on the requests it
#                               generates per example (default 16; unbounded, one sandbox took over
#                               17 minutes and had not reached the webhook operations)
#   CONFORM_RUN                 the --run regexp of the conform column (default '^generated\.'); '.'
#                               runs the whole suite, which shows that the example checks miss a fault
#   SKIP_SPECMATIC=1, SKIP_CONFORM=1   leave a column out
#   KEEP_DIR                    keep every log and report there (default: a temporary directory)
#
# A failure is attributed to a fault when the run with the fault has it and the first run without a
# fault does not: Specmatic's failed scenarios are compared by title, as a multiset (several generated
# tests share a title), conform's failed checks by id. "caught" is yes when at least one failure is
# attributed. The conform column reads "n/a" when the suite has no check matching CONFORM_RUN.
#
# Offline: as in specmatic.sh, telemetry is off and everything stays on loopback.
set -euo pipefail
bin=${1:?usage: specmatic-generative.sh BIN_DIR}
bin=$(cd "$bin" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
spec=$root/openapi/malipo.yaml
jar=$root/tools/node_modules/specmatic/specmatic.jar
[ -x "$bin/malipo" ] || { echo "specmatic-generative.sh: $bin/malipo is missing; run make build" >&2; exit 2; }
command -v jq >/dev/null || { echo "specmatic-generative.sh: jq is needed to read conform's JSON report (apt-get install jq)" >&2; exit 2; }

FAULTS=${FAULTS:-non-ascii-crash large-amount-refused long-text-truncated cents-rounded pattern-char-refused webhook-field-lost-for-one-status}
max_combinations=${SPECMATIC_MAX_COMBINATIONS:-16}
conform_run=${CONFORM_RUN:-'^generated\.'}

for f in $FAULTS; do
  "$bin/malipo" sandbox --fault list 2>/dev/null | awk -v f="$f" '$1 == f { found = 1 } END { exit !found }' ||
    { echo "specmatic-generative.sh: $bin/malipo sandbox knows no fault $f (see malipo sandbox --fault list)" >&2; exit 2; }
done
if [ -z "${SKIP_SPECMATIC:-}" ]; then
  [ -f "$jar" ] || { echo "specmatic-generative.sh: $jar is missing; run npm ci in tools/" >&2; exit 2; }
  command -v java >/dev/null || { echo "specmatic-generative.sh: Specmatic needs Java 17+ on PATH (apt-get install openjdk-17-jre-headless)" >&2; exit 2; }
fi

if [ -n "${KEEP_DIR:-}" ]; then
  work=$KEEP_DIR
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

# specmatic_run LABEL FLAGS: Specmatic's generative tests against a fresh sandbox started with FLAGS
# (the seed data belongs to the default keys, as in specmatic.sh). Writes LABEL.spec: tests, failed,
# seconds; and LABEL.spec-failed: the failed scenarios' titles, sorted.
specmatic_run() (
  local label=$1 rc=0 start line
  unset MALIPO_PUBLIC_KEY MALIPO_SECRET_KEY
  MALIPO_SANDBOX_FLAGS=$2
  # shellcheck source=lib-sandbox.sh
  source "$here/lib-sandbox.sh" >/dev/null
  mkdir -p "$work/$label"
  cd "$work/$label" # Specmatic writes build/reports/ into the working directory
  start=$(date +%s)
  SPECMATIC_DISABLE_TELEMETRY=true PublicKey=$pk SecretKey=$sk SPECMATIC_GENERATIVE_TESTS=true \
    MAX_TEST_REQUEST_COMBINATIONS=$max_combinations \
    java -Dspecmatic.disable.telemetry=true -jar "$jar" test --testBaseURL="$url" \
    --junitReportDir="$work/$label/junit" "$spec" >"$work/$label/specmatic.log" 2>&1 || rc=$?
  line=$(grep '^Tests run:' "$work/$label/specmatic.log" || true)
  if [ -z "$line" ]; then
    echo "specmatic-generative.sh: Specmatic did not run against the sandbox with '$2' (exit $rc):" >&2
    tail -n 40 "$work/$label/specmatic.log" >&2
    exit 2
  fi
  sed -n 's/^[+-]ve  *Scenario: \(.*\) has FAILED$/\1/p' "$work/$label/specmatic.log" | sort >"$work/$label.spec-failed"
  echo "$(sed -n 's/^Tests run: \([0-9]*\).*/\1/p' <<<"$line") $(wc -l <"$work/$label.spec-failed") $(($(date +%s) - start))" >"$work/$label.spec"
)

# conform_run LABEL FLAGS: malipo conform --run CONFORM_RUN against a fresh sandbox started with FLAGS,
# two merchants as examples/ci/conform-local.sh starts it. Writes LABEL.conform: checks, failed,
# seconds; and LABEL.conform-failed: the failed checks' ids, sorted.
conform_run() (
  local label=$1 rc=0 start log url="" pid
  log=$work/$label.sandbox.log
  # shellcheck disable=SC2086 # FLAGS is a list of flags
  "$bin/malipo" sandbox --addr 127.0.0.1:0 --public-key pk_test_compare --secret-key sk_test_compare \
    --merchant pk_test_compare_other:sk_test_compare_other \
    --prompt-delay 20ms --payout-delay 20ms --webhook-retry-schedule 20ms,40ms,80ms,160ms,320ms \
    --webhook-timeout 500ms $2 >"$log" 2>"$log.err" &
  pid=$!
  trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do
    url=$(sed -n 's/^ *listening on *\(http:[^ ]*\).*/\1/p' "$log")
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$url" ] || { echo "specmatic-generative.sh: the sandbox with '$2' did not start:" >&2; cat "$log" "$log.err" >&2; exit 2; }
  start=$(date +%s)
  "$bin/malipo" conform --target "$url" --public-key pk_test_compare --secret-key sk_test_compare \
    --other-public-key pk_test_compare_other --other-secret-key sk_test_compare_other \
    --wait 10s --webhook-stall 2s --quiet --run "$conform_run" --json "$work/$label.conform.json" \
    >"$work/$label.conform.log" 2>&1 || rc=$?
  if [ "$rc" -ge 2 ] || [ ! -s "$work/$label.conform.json" ]; then
    echo "specmatic-generative.sh: malipo conform did not finish against the sandbox with '$2' (exit $rc):" >&2
    tail -n 40 "$work/$label.conform.log" >&2
    exit 2
  fi
  jq -r '.results[] | select(.outcome == "fail") | .id' "$work/$label.conform.json" | sort >"$work/$label.conform-failed"
  echo "$(jq '.passed + .failed + .skipped' "$work/$label.conform.json") $(wc -l <"$work/$label.conform-failed") $(($(date +%s) - start))" >"$work/$label.conform"
)

# attributed KIND LABEL: how many of LABEL's failures the first run without a fault does not have.
attributed() { comm -23 "$work/$2.$1-failed" "$work/none.$1-failed" | wc -l; }

conform_available=yes
if [ -n "${SKIP_CONFORM:-}" ] || ! "$bin/malipo" conform --list --run "$conform_run" | grep -q '^[a-z]'; then
  conform_available=""
fi

labels=(none none-again)
for f in $FAULTS; do labels+=("$f"); done
for label in "${labels[@]}"; do
  flags=""
  case $label in none | none-again) ;; *) flags="--fault $label" ;; esac
  if [ -z "${SKIP_SPECMATIC:-}" ]; then
    echo "specmatic-generative.sh: Specmatic (generative, MAX_TEST_REQUEST_COMBINATIONS=$max_combinations) against malipo sandbox ${flags:-without faults}" >&2
    specmatic_run "$label" "$flags"
  fi
  if [ -n "$conform_available" ]; then
    echo "specmatic-generative.sh: malipo conform --run '$conform_run' against malipo sandbox ${flags:-without faults}" >&2
    conform_run "$label" "$flags"
  fi
done

# cells KIND LABEL AVAILABLE: tests, failed, attributed, caught, seconds; n/a when the column is off.
cells() {
  if [ -z "$3" ]; then
    printf '| n/a | n/a | n/a | n/a | n/a '
    return
  fi
  local tests failed secs extra caught
  read -r tests failed secs <"$work/$2.$1"
  extra=$(attributed "$1" "$2")
  case $2 in
  none) extra="-" caught="-" ;;
  none-again) caught="(noise)" ;;
  *) caught=$([ "$extra" -gt 0 ] && echo yes || echo no) ;;
  esac
  printf '| %s | %s | %s | %s | %ss ' "$tests" "$failed" "$extra" "$caught" "$secs"
}

echo
echo "Specmatic $(sed -n 's/.*"version": "\(.*\)".*/\1/p' "$root/tools/node_modules/specmatic/package.json" | head -n 1), SPECMATIC_GENERATIVE_TESTS=true, MAX_TEST_REQUEST_COMBINATIONS=$max_combinations; malipo conform --run '$conform_run'"
echo
echo "| sandbox | Specmatic tests | failed | not failed without faults | caught | time | conform checks | failed | not failed without faults | caught | time |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for label in "${labels[@]}"; do
  printf '| %s ' "$label"
  cells spec "$label" "$([ -z "${SKIP_SPECMATIC:-}" ] && echo yes)"
  cells conform "$label" "$conform_available"
  echo "|"
done
echo
for label in "${labels[@]}"; do
  case $label in none) continue ;; esac
  if [ -z "${SKIP_SPECMATIC:-}" ] && [ "$(attributed spec "$label")" -gt 0 ]; then
    echo "Specmatic's failures with $label that the run without faults does not have:"
    comm -23 "$work/$label.spec-failed" "$work/none.spec-failed" | uniq -c | head -n 10
  fi
  if [ -n "$conform_available" ] && [ "$(attributed conform "$label")" -gt 0 ]; then
    echo "conform's failures with $label that the run without faults does not have:"
    comm -23 "$work/$label.conform-failed" "$work/none.conform-failed" | head -n 10
  fi
done
