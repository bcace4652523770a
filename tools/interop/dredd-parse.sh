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
# Dredd reads only a parameter's singular `example` (dredd-transactions' validateParams) and refuses to
# compile any transaction when a required path or query parameter has none. The document gives its
# parameters named `examples` instead, because Specmatic pairs request and response examples by name,
# and OpenAPI forbids `example` beside `examples`. So Dredd gets a copy in which each parameter's first
# named example is its `example`; nothing else changes. (Its YAML 1.1 reading of the document itself is
# covered by the openapi package's TestDocumentReadsTheSameInYAML11.)
dredd_doc=$out/$(basename "$doc")
node --input-type=module -e '
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
const [, dir, src, dst] = process.argv;
const YAML = createRequire(dir + "/").call(null, "yaml");
const doc = YAML.parse(readFileSync(src, "utf8"));
let n = 0;
const visit = (node) => {
  if (Array.isArray(node)) return node.forEach(visit);
  if (node === null || typeof node !== "object") return;
  if ("in" in node && "name" in node && node.examples && typeof node.examples === "object") {
    // A named example may be a $ref to components.examples (the id of deleteWebhookEndpoint).
    let first = Object.values(node.examples)[0];
    if (first && typeof first.$ref === "string") first = doc.components.examples[first.$ref.split("/").pop()];
    node.example = first.value;
    delete node.examples;
    n++;
  }
  Object.values(node).forEach(visit);
};
visit(doc);
// Written for a YAML 1.1 reader: strings that YAML 1.1 would read as something else stay quoted.
writeFileSync(dst, YAML.stringify(doc, { version: "1.1" }));
console.log(`dredd-parse: ${n} parameters given their first named example as example, for Dredd`);
' "$root/tools/node_modules" "$doc" "$dredd_doc"
set +e
# Run from the scratch directory so that no ./dredd.yml of the caller's working directory applies.
(cd "$out" && "$dredd" "$dredd_doc" http://127.0.0.1:9 --dry-run --no-color --loglevel=warning) >"$out/dredd.log" 2>&1
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
