#!/usr/bin/env bash
# Checks that Dredd 14 parses openapi/malipo.yaml and compiles its HTTP transactions with no error and
# no warning about the document, other than the known limitations of Dredd's OpenAPI parser listed
# (by exact message text, with the evidence) in tools/interop/dredd-whitelist.txt.
#
# Dredd only parses and compiles: --dry-run skips every transaction, so nothing is sent to the dummy
# loopback URL (port 9, discard), and no server is needed.
#
# Usage: tools/interop/dredd-parse.sh [DOC]   (default openapi/malipo.yaml; output in tools/interop/out/dredd)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
doc=$(realpath "${1:-$root/openapi/malipo.yaml}")
dredd=$root/tools/node_modules/.bin/dredd
out=$here/out/dredd
[ -x "$dredd" ] || { echo "dredd-parse: no $dredd (cd tools && npm ci)"; exit 2; }
[ -f "$doc" ] || { echo "dredd-parse: no $doc"; exit 2; }
mkdir -p "$out"
start=$(date +%s.%N)
echo "dredd-parse: $("$dredd" --version 2>/dev/null | head -n1), node $(node --version); $doc"
set +e
# Run from the scratch directory so that no ./dredd.yml of the caller's working directory applies.
(cd "$out" && "$dredd" "$doc" http://127.0.0.1:9 --dry-run --no-color --loglevel=warning) >"$out/dredd.log" 2>&1
rc=$?
set -e
echo "dredd-parse: dredd exit $rc in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')s; full output in $out/dredd.log"
set +e
node "$here/dredd-filter.mjs" "$here/dredd-whitelist.txt" "$(basename "$doc")" <"$out/dredd.log"
frc=$?
set -e
if [ $rc -ne 0 ]; then
  echo "dredd-parse: FAIL: dredd exited $rc"
  exit 1
fi
exit $frc
