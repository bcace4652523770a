#!/usr/bin/env bash
# Generates a Go client and server from openapi/malipo.yaml with ogen (the version tools/go.mod pins;
# OGEN names a binary already built, as make interop passes), builds tools/clientcheck/ogen/roundtrip,
# starts `malipo sandbox` from BIN_DIR and fake-events.mjs, and runs it: the oapi-codegen client's round
# trip, an event page holding event types the document does not declare, and the generated server.
# Usage: tools/interop/run-ogen.sh BIN_DIR
#
# Fails on any warning ogen prints about the document but those in ALLOWED_WARNINGS, each kept on
# purpose (below); a listed warning that no longer appears fails too, so the list stays exact.
set -euo pipefail
bin=${1:?usage: run-ogen.sh BIN_DIR}
bin=$(cd "$bin" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tools=$(cd "$here/.." && pwd)
go=${GO:-go}

# ogen's warnings that the document keeps on purpose, one regular expression a line (matched against
# the warning's message and fields, its `at` position left out so that an edit elsewhere does not
# move it):
#  - Header names: the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature)
#    and the key headers (public-key, secret-key) are written as the standards and the API's users
#    write them, and the rate-limit fields (RateLimit-Limit, -Remaining, -Reset) as the IETF httpapi
#    draft spells them; HTTP header names are case-insensitive, and ogen's canonical form is the same
#    header.
#  - `format: uri` strings (WebhookURL, the payment's redirect and return URLs): ogen decodes them
#    into url.URL and does not apply `maxLength` or `pattern` to it. The rules stay in the document
#    because the server enforces them (a 400 naming the field); a client that skips them is told so
#    by that 400, never sends a wrong URL silently. Dropping `format: uri` would make other
#    generators treat the URL as any string.
#  - `format: date-time` strings (Timestamp): ogen decodes them into time.Time and does not apply
#    their `maxLength` (35: RFC 3339 in UTC with at most nine fraction digits), which the document
#    keeps so that validators holding a date-time as text bound it, as OWASP's rules ask; a time.Time
#    cannot exceed it anyway.
ALLOWED_WARNINGS=(
  '^WARN	Header name is not canonical, canonical name will be used	\{"original_name": "(webhook-id|webhook-timestamp|webhook-signature|public-key|secret-key|RateLimit-Limit|RateLimit-Remaining|RateLimit-Reset)", "canonical_name": "[A-Za-z-]+"\}$'
  '^WARN	schemagen	String validator cannot be applied to generated type and will be ignored	\{"type": "string", "format": "uri", "go_type": "url.URL"\}$'
  '^WARN	schemagen	String validator cannot be applied to generated type and will be ignored	\{"type": "string", "format": "date-time", "go_type": "time.Time"\}$'
)

gen=$tools/clientcheck/ogen/gen
log=$(mktemp)
if [ -n "${OGEN:-}" ]; then
  "$OGEN" -clean -package gen -target "$gen" "$tools/../openapi/malipo.yaml" >"$log" 2>&1 || { cat "$log"; rm -f "$log"; exit 1; }
else
  (cd "$tools" && "$go" tool ogen -clean -package gen -target "$gen" ../openapi/malipo.yaml) >"$log" 2>&1 || { cat "$log"; rm -f "$log"; exit 1; }
fi
# Warnings without their "at" field (the first field when present).
warnings=$(grep -E '^(WARN|ERROR)' "$log" | sed -E 's/\{"at": "[^"]*", /{/' | sort -u || true)
rm -f "$log"
unexpected=0
while IFS= read -r w; do
  [ -n "$w" ] || continue
  ok=0
  for re in "${ALLOWED_WARNINGS[@]}"; do
    if grep -qE -- "$re" <<<"$w"; then ok=1; break; fi
  done
  if [ "$ok" = 0 ]; then
    echo "run-ogen: ogen warns about the document: $w" >&2
    unexpected=$((unexpected + 1))
  fi
done <<<"$warnings"
for re in "${ALLOWED_WARNINGS[@]}"; do
  grep -qE -- "$re" <<<"$warnings" || { echo "run-ogen: the allowed warning no longer appears; remove it from ALLOWED_WARNINGS: $re" >&2; unexpected=$((unexpected + 1)); }
done
[ "$unexpected" = 0 ] || exit 1
echo "run-ogen: ogen generated client and server, $(grep -c . <<<"$warnings") distinct warnings, all allowed"

(cd "$tools" && "$go" build -o "$bin/ogen-roundtrip" ./clientcheck/ogen/roundtrip && "$go" vet ./clientcheck/ogen/roundtrip)

# shellcheck source=lib-sandbox.sh
. "$here/lib-sandbox.sh"
# shellcheck source=lib-fake-events.sh
. "$here/lib-fake-events.sh"
"$bin/ogen-roundtrip" "$url" "$pk" "$sk" "$events_url"
