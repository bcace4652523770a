# Sourced by the run-*.sh wrappers after lib-sandbox.sh: starts fake-events.mjs (GET /v1/events answers
# a page holding event types this version of the document does not declare) on a free loopback port,
# sets $events_url, and stops it (by its pid) on exit, with the sandbox.
events_log=$(mktemp)
node "$here/fake-events.mjs" >"$events_log" 2>&1 &
events_pid=$!
stop_fake_events() {
  kill -TERM "$events_pid" 2>/dev/null || true
  wait "$events_pid" 2>/dev/null || true
  rm -f "$events_log"
}
if declare -F stop_sandbox >/dev/null; then
  trap 'stop_fake_events; stop_sandbox' EXIT
else
  trap stop_fake_events EXIT
fi
events_url=""
for _ in $(seq 1 100); do
  events_url=$(sed -n 's/^fake-events: listening on \(http:[^ ]*\)$/\1/p' "$events_log")
  [ -n "$events_url" ] && break
  kill -0 "$events_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$events_url" ] || { echo "$(basename "$0"): fake-events.mjs did not start:" >&2; cat "$events_log" >&2; exit 2; }
