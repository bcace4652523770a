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
#   KEEP_DIR                    keep every log and report there (default: a temporary directory); a
#                               run whose results are there already is not repeated, so that a column
#                               can be added later (SKIP_SPECMATIC=1 KEEP_DIR=the same directory fills
#                               in conform's from the Specmatic runs kept). Empty it to start over.
#
# Which failures are the fault's. conform's checks are the same from run to run: a failed check is the
# fault's when it does not fail without faults. Specmatic's are not: it draws values at random and its
# tests share the sandbox's state (references, Idempotency-Keys), so about 65 of its ~2,000 failures
# without faults change from one run to the next (the none-again row), and a comparison by title alone
# is noise. A Specmatic failure is therefore the fault's when the response it failed on is the fault's
# own answer (signature below: the message or reason no fault-free sandbox sends), and it is new when
# its test (its title) failed in neither run without faults; "caught" is yes when there is a new one.
# A fault with no answer of its own (it changes stored values and its responses stay valid) has no
# signature: Specmatic, which compares no value sent with the value echoed and receives no webhooks,
# cannot fail a test because of it, and its row says so. The conform column reads "n/a" when the
# suite has no check matching CONFORM_RUN.
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

# signature FAULT: a fixed string that only the fault's own answers hold (internal/faults/inputs.go),
# empty for a fault that answers nothing of its own.
signature() {
  case $1 in
  non-ascii-crash) echo 'while trying to encode the request' ;;
  large-amount-refused) echo '"reason": "must be at most 1000000"' ;;
  pattern-char-refused) echo '"reason": "must match ^[A-Za-z0-9][A-Za-z0-9_.-]*$"' ;;
  esac
}

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

# specmatic_run LABEL FLAGS SIGNATURES: Specmatic's generative tests against a fresh sandbox started
# with FLAGS (the seed data belongs to the default keys, as in specmatic.sh). Writes LABEL.spec: tests,
# failed, seconds; LABEL.spec-tests: each test's outcome, whether its exchange holds one of the
# SIGNATURES (one a line), and title; and LABEL.spec-failed: the failed tests' titles, sorted.
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
  # Each test prints its request and response after a line of dashes, then its scenario line; a
  # failed one then prints its reason (and the exchange again). One line per test: its outcome,
  # whether its exchange holds the signature of the fault under test (of any, without faults), and
  # its title.
  awk -v sigs="$3" 'BEGIN { n = split(sigs, sig, "\n") }
    /^--------------------$/ { block = "" }
    { block = block "\n" $0 }
    /^[+-]ve  *Scenario: .* has (FAILED|SUCCEEDED)$/ {
      marked = 0
      for (i = 1; i <= n; i++) if (sig[i] != "" && index(block, sig[i]) > 0) marked = 1
      title = $0; sub(/^[+-]ve  *Scenario: /, "", title); sub(/ has (FAILED|SUCCEEDED)$/, "", title)
      print ($0 ~ /FAILED$/ ? "failed" : "passed") "\t" marked "\t" title
      block = ""
    }' "$work/$label/specmatic.log" >"$work/$label.spec-tests"
  awk -F '\t' '$1 == "failed" { print $3 }' "$work/$label.spec-tests" | sort >"$work/$label.spec-failed"
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

# attributed KIND LABEL: how many of LABEL's failures the first run without a fault does not have
# (failed tests' titles, or check ids, as multisets).
attributed() { comm -23 "$work/$2.$1-failed" "$work/none.$1-failed" | wc -l; }

# specmatic_own LABEL: how many of LABEL's failed tests failed on the fault's own answer.
specmatic_own() { awk -F '\t' '$1 == "failed" && $2 == 1' "$work/$1.spec-tests" | wc -l; }

# specmatic_new LABEL: how many of those are tests whose title failed in neither run without faults.
specmatic_new() {
  awk -F '\t' 'FILENAME != last { file++; last = FILENAME }
    file <= 2 && $1 == "failed" { before[$3] = 1 }
    file == 3 && $1 == "failed" && $2 == 1 && !($3 in before) { n++ }
    END { print n + 0 }' "$work/none.spec-tests" "$work/none-again.spec-tests" "$work/$1.spec-tests"
}

conform_available=yes
# The list is read whole before it is searched: grep -q stopping early would fail the pipeline.
checks=$("$bin/malipo" conform --list --run "$conform_run")
if [ -n "${SKIP_CONFORM:-}" ] || ! grep -q '^[a-z]' <<<"$checks"; then
  conform_available=""
fi

labels=(none none-again)
for f in $FAULTS; do labels+=("$f"); done
for label in "${labels[@]}"; do
  flags=""
  case $label in none | none-again) ;; *) flags="--fault $label" ;; esac
  if [ -z "${SKIP_SPECMATIC:-}" ] && [ ! -s "$work/$label.spec" ]; then
    echo "specmatic-generative.sh: Specmatic (generative, MAX_TEST_REQUEST_COMBINATIONS=$max_combinations) against malipo sandbox ${flags:-without faults}" >&2
    case $label in
    none | none-again) sigs=$(for f in $FAULTS; do signature "$f"; done) ;;
    *) sigs=$(signature "$label") ;;
    esac
    specmatic_run "$label" "$flags" "$sigs"
  fi
  if [ -n "$conform_available" ] && [ ! -s "$work/$label.conform" ]; then
    echo "specmatic-generative.sh: malipo conform --run '$conform_run' against malipo sandbox ${flags:-without faults}" >&2
    conform_run "$label" "$flags"
  fi
done

# spec_cells LABEL: Specmatic's tests, failed, failed titles the first run without faults lacks,
# failures on the fault's own answer (new ones), caught, seconds.
spec_cells() {
  if [ ! -s "$work/$1.spec" ]; then
    printf '| n/a | n/a | n/a | n/a | n/a | n/a '
    return
  fi
  local tests failed secs bytitle own caught
  read -r tests failed secs <"$work/$1.spec"
  bytitle=$(attributed spec "$1")
  case $1 in
  none) bytitle="-" own=$(specmatic_own none) caught="-" ;;
  none-again) own=$(specmatic_own none-again) caught="-" ;;
  *)
    if [ -z "$(signature "$1")" ]; then
      own="none of its own" caught="no: answers stay valid"
    else
      own="$(specmatic_own "$1") ($(specmatic_new "$1") new)"
      if [ "$(specmatic_new "$1")" -gt 0 ]; then
        caught=yes
      elif [ "$(specmatic_own "$1")" -gt 0 ]; then
        caught="no: only tests that fail without faults too"
      else
        caught="no: never triggered"
      fi
    fi
    ;;
  esac
  printf '| %s | %s | %s | %s | %s | %ss ' "$tests" "$failed" "$bytitle" "$own" "$caught" "$secs"
}

# conform_cells LABEL: conform's checks, failed, failed checks the run without faults lacks, caught,
# seconds; n/a when the suite has no such checks.
conform_cells() {
  if [ -z "$conform_available" ]; then
    printf '| n/a | n/a | n/a | n/a | n/a '
    return
  fi
  local tests failed secs extra caught
  read -r tests failed secs <"$work/$1.conform"
  extra=$(attributed conform "$1")
  case $1 in
  none) extra="-" caught="-" ;;
  none-again) caught="-" ;;
  *) caught=$([ "$extra" -gt 0 ] && echo yes || echo no) ;;
  esac
  printf '| %s | %s | %s | %s | %ss ' "$tests" "$failed" "$extra" "$caught" "$secs"
}

echo
echo "Specmatic $(sed -n 's/.*"version": "\(.*\)".*/\1/p' "$root/tools/node_modules/specmatic/package.json" | head -n 1), SPECMATIC_GENERATIVE_TESTS=true, MAX_TEST_REQUEST_COMBINATIONS=$max_combinations; malipo conform --run '$conform_run'"
echo
echo "| sandbox | Specmatic tests | failed | failed titles not failed without faults | failed on the fault's own answer | caught | time | conform checks | failed | not failed without faults | caught | time |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for label in "${labels[@]}"; do
  printf '| %s ' "$label"
  spec_cells "$label"
  conform_cells "$label"
  echo "|"
done
echo
if [ -s "$work/none.spec" ] && [ -s "$work/none-again.spec" ]; then
  for label in none none-again; do
    if [ "$(specmatic_own "$label")" -gt 0 ]; then
      echo "specmatic-generative.sh: a run without faults failed on a fault's signature; fix signature():" >&2
      awk -F '\t' '$1 == "failed" && $2 == 1 { print $3 }' "$work/$label.spec-tests" | head -n 5 >&2
      exit 1
    fi
  done
fi
for label in "${labels[@]}"; do
  case $label in none | none-again) continue ;; esac
  if [ -s "$work/$label.spec" ] && [ "$(specmatic_own "$label")" -gt 0 ]; then
    echo "Specmatic's tests that failed on the answer of $label (first 5):"
    awk -F '\t' '$1 == "failed" && $2 == 1 { print "  " $3 }' "$work/$label.spec-tests" | head -n 5
  fi
  if [ -n "$conform_available" ] && [ "$(attributed conform "$label")" -gt 0 ]; then
    echo "conform's checks that failed with $label and not without faults:"
    comm -23 "$work/$label.conform-failed" "$work/none.conform-failed" | sed 's/^/  /' | head -n 10
  fi
done
