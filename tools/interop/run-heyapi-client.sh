#!/usr/bin/env bash
# Generates a TypeScript client from openapi/malipo.yaml with @hey-api/openapi-ts (its fetch client and
# SDK, heyapi/openapi-ts.config.mjs), compiles heyapi/heyapi-client.ts with tsc --strict, starts
# `malipo sandbox` from BIN_DIR and fake-events.mjs, and runs it: the round trip the oapi-codegen
# client runs, then an event page holding event types the document does not declare.
# Fails on any warning or error the generator prints about the document.
# Usage: tools/interop/run-heyapi-client.sh BIN_DIR
set -euo pipefail
bin=${1:?usage: run-heyapi-client.sh BIN_DIR}
bin=$(cd "$bin" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tools=$(cd "$here/.." && pwd)

rm -rf "$here/heyapi/gen" "$here/heyapi/build"
log=$(mktemp)
(cd "$here/heyapi" && NO_COLOR=1 FORCE_COLOR=0 "$tools/node_modules/.bin/openapi-ts" -f openapi-ts.config.mjs --no-log-file) >"$log" 2>&1 ||
  { cat "$log"; rm -f "$log"; echo "run-heyapi-client: @hey-api/openapi-ts failed (above)" >&2; exit 1; }
# openapi-ts prints its banner, the job's input and "Done!"; anything that says warn, error or
# deprecated is about the document or the configuration and fails the run.
if grep -qiE 'warn|error|deprecat|⚠|❌' "$log"; then
  cat "$log"; rm -f "$log"; echo "run-heyapi-client: @hey-api/openapi-ts warned (above)" >&2; exit 1
fi
rm -f "$log"
"$tools/node_modules/.bin/tsc" -p "$here/heyapi/tsconfig.json"
echo "run-heyapi-client: @hey-api/openapi-ts $("$tools/node_modules/.bin/openapi-ts" --version) generated a client that compiles under tsc --strict"

# shellcheck source=lib-sandbox.sh
. "$here/lib-sandbox.sh"
# shellcheck source=lib-fake-events.sh
. "$here/lib-fake-events.sh"
node "$here/heyapi/build/heyapi-client.js" --base-url "$url" --events-url "$events_url" --public-key "$pk" --secret-key "$sk"
