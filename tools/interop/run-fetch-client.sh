#!/usr/bin/env bash
# Generates TypeScript types from openapi/malipo.yaml with openapi-typescript, type-checks
# fetch-client.ts with tsc (strict), starts `malipo sandbox` from BIN_DIR and fake-events.mjs, runs the
# compiled client against them (the event page holds event types the document does not declare), stops
# both. Usage: tools/interop/run-fetch-client.sh BIN_DIR
set -euo pipefail
bin=${1:?usage: run-fetch-client.sh BIN_DIR}
bin=$(cd "$bin" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tools=$(cd "$here/.." && pwd)
spec=$(cd "$tools/.." && pwd)/openapi/malipo.yaml
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

t=$(date +%s%N)
"$tools/node_modules/.bin/openapi-typescript" "$spec" -o "$here/gen/malipo.d.ts" --silent
echo "run-fetch-client: openapi-typescript $(ms "$t") ms"
t=$(date +%s%N)
rm -rf "$here/build"
"$tools/node_modules/.bin/tsc" -p "$here/tsconfig.json"
echo "run-fetch-client: tsc (strict) $(ms "$t") ms"

# shellcheck source=lib-sandbox.sh
. "$here/lib-sandbox.sh"
# shellcheck source=lib-fake-events.sh
. "$here/lib-fake-events.sh"
t=$(date +%s%N)
rc=0
node "$here/build/fetch-client.js" --base-url "$url" --events-url "$events_url" --public-key "$pk" --secret-key "$sk" || rc=$?
echo "run-fetch-client: exit $rc, client run $(ms "$t") ms"
exit $rc
