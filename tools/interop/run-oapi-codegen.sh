#!/usr/bin/env bash
# Generates a Go client from openapi/malipo.yaml with oapi-codegen's DEFAULT configuration
# (tools/clientcheck/oapi-codegen.yaml: no output options, pruning on), builds the round-trip program
# that uses it (tools/clientcheck/go/roundtrip), starts `malipo sandbox` from BIN_DIR and
# fake-events.mjs and runs it: countries, banks, a bank payout and payments with large two-decimal
# amounts, every amount unchanged; then an event page holding event types the document does not declare.
# Usage: tools/interop/run-oapi-codegen.sh BIN_DIR
set -euo pipefail
bin=${1:?usage: run-oapi-codegen.sh BIN_DIR}
bin=$(cd "$bin" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tools=$(cd "$here/.." && pwd)
go=${GO:-go}

rm -rf "$tools/clientcheck/go/gen"
mkdir -p "$tools/clientcheck/go/gen"
# OAPI_CODEGEN: an oapi-codegen binary already built (make interop passes the one make clients built);
# otherwise the version tools/go.mod pins, through `go tool`.
if [ -n "${OAPI_CODEGEN:-}" ]; then
  (cd "$tools" && "$OAPI_CODEGEN" -config clientcheck/oapi-codegen.yaml ../openapi/malipo.yaml)
else
  (cd "$tools" && "$go" tool oapi-codegen -config clientcheck/oapi-codegen.yaml ../openapi/malipo.yaml)
fi
(cd "$tools" && "$go" build -o "$bin/oapi-codegen-roundtrip" ./clientcheck/go/roundtrip)

# shellcheck source=lib-sandbox.sh
. "$here/lib-sandbox.sh"
# shellcheck source=lib-fake-events.sh
. "$here/lib-fake-events.sh"
"$bin/oapi-codegen-roundtrip" "$url" "$pk" "$sk" "$events_url"
