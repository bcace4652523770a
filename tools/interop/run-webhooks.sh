#!/usr/bin/env bash
# Starts `malipo sandbox` from BIN_DIR, runs webhooks.mjs against it (standardwebhooks + svix verify
# every delivery, through secret rotations), stops the sandbox. Usage: tools/interop/run-webhooks.sh BIN_DIR
# Extra sandbox flags: MALIPO_SANDBOX_FLAGS="--fault rotation-keeps-older-secrets" (the check must then fail).
set -euo pipefail
bin=${1:?usage: run-webhooks.sh BIN_DIR}
bin=$(cd "$bin" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib-sandbox.sh
. "$here/lib-sandbox.sh"
start=$(date +%s%N)
rc=0
node "$here/webhooks.mjs" --base-url "$url" --public-key "$pk" --secret-key "$sk" || rc=$?
echo "run-webhooks: exit $rc, $(( ($(date +%s%N) - start) / 1000000 )) ms (node script; sandbox start not included)"
exit $rc
