# Sourced by the run-*.sh wrappers: starts `malipo sandbox` from $bin on a free loopback port with
# short delays, sets $url, $pk, $sk, and stops the sandbox (by its pid) on exit.
pk=${MALIPO_PUBLIC_KEY:-pk_test_malipo_sandbox}
sk=${MALIPO_SECRET_KEY:-sk_test_malipo_sandbox}
log=$(mktemp)
# shellcheck disable=SC2086 # MALIPO_SANDBOX_FLAGS is a list of extra flags, e.g. "--fault rotation-keeps-older-secrets"
"$bin/malipo" sandbox --addr 127.0.0.1:0 --public-key "$pk" --secret-key "$sk" \
  --prompt-delay 20ms --payout-delay 20ms --webhook-retry-schedule 20ms,40ms ${MALIPO_SANDBOX_FLAGS:-} \
  >"$log" 2>"$log.err" &
pid=$!
stop_sandbox() {
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [ -n "${KEEP_SANDBOX_LOG:-}" ]; then cp "$log.err" "$KEEP_SANDBOX_LOG"; fi
  rm -f "$log" "$log.err"
}
trap stop_sandbox EXIT
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's/^ *listening on *\(http:[^ ]*\).*/\1/p' "$log")
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$url" ] || { echo "$(basename "$0"): the sandbox did not start:" >&2; cat "$log" "$log.err" >&2; exit 2; }
echo "$(basename "$0"): malipo sandbox (pid $pid) at $url"
