#!/usr/bin/env bash
# The Malipo Terraform walkthrough, end to end: start `malipo sandbox`, point Terraform at the
# locally built provider with a dev_overrides CLI configuration (no `terraform init`, no registry),
# then plan, apply, re-plan (must be empty), show the outputs and destroy. `make walkthrough` builds
# both binaries and runs this script; `make run` runs it last.
#
# Off a terminal (a log, a pipe) nothing is coloured: Terraform gets -no-color. Terraform warns that
# dev_overrides are in effect on every command; the warning is shown on the first and left out after.
# When every step passed, walkthrough/result.txt says in one line what was applied and destroyed, for
# make run's summary.
#
# usage: examples/sandbox/run.sh <dir holding malipo and terraform-provider-malipo>
set -euo pipefail

bin="$(cd "${1:?usage: run.sh <dir holding malipo and terraform-provider-malipo>}" && pwd)"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$bin/walkthrough"

for f in "$bin/malipo" "$bin/terraform-provider-malipo"; do
	[[ -x "$f" ]] || { echo "walkthrough: $f is missing; run 'make walkthrough'" >&2; exit 1; }
done
command -v terraform >/dev/null || { echo "walkthrough: no terraform binary on PATH; install Terraform (>= 1.0) first" >&2; exit 1; }

# Colour only on a terminal, and never under NO_COLOR (https://no-color.org).
if [[ -t 1 && -z ${NO_COLOR:-} ]]; then
	step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
else
	step() { printf '\n==> %s\n' "$*"; }
	export TF_CLI_ARGS="${TF_CLI_ARGS:+$TF_CLI_ARGS }-no-color"
fi

# drop_override_warning copies its input but the warning about dev_overrides, line by line as it comes.
# Terraform draws it in a box (╷ … ╵) when it colours, and plain (-no-color) as the summary line and a
# detail that ends "published releases."; a held block that ends neither way within 20 lines is
# printed after all.
drop_override_warning() {
	awk '
		function flush() { printf "%s", held; held = ""; mode = "" }
		mode == "" && /╷/ { mode = "box"; held = $0 ORS; next }
		mode == "" && /Provider development overrides are in effect/ { mode = "plain"; n = 0; held = $0 ORS; next }
		mode == "box" {
			held = held $0 ORS
			if (/╵/) { if (held ~ /Provider development overrides are in effect/) held = ""; flush() }
			next
		}
		mode == "plain" {
			held = held $0 ORS
			if (/releases\.$/) { held = ""; flush() } else if (++n > 20) flush()
			next
		}
		{ print; fflush() }
		END { flush() }'
}

# tf runs terraform; after the first command, without the dev_overrides warning it already showed. Its
# status is terraform's (pipefail; awk does not fail).
warned=""
tf() {
	if [[ -z $warned ]]; then
		warned=1
		terraform "$@"
		return
	fi
	terraform "$@" | drop_override_warning
}

rm -rf "$work" && mkdir -p "$work"
cp "$here/main.tf" "$work/"

step "Start malipo sandbox (payouts settle after 1s)"
"$bin/malipo" sandbox --addr 127.0.0.1:0 --payout-delay 1s \
	--public-key pk_test_malipo_sandbox --secret-key sk_test_malipo_sandbox >"$work/sandbox.out" 2>"$work/sandbox.log" &
sandbox_pid=$!
trap 'kill "$sandbox_pid" 2>/dev/null; wait "$sandbox_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
	url="$(sed -nE 's/^ *listening on +(http[^ ]+).*/\1/p' "$work/sandbox.out")"
	[[ -n "$url" ]] && break
	kill -0 "$sandbox_pid" 2>/dev/null || { cat "$work/sandbox.log" >&2; exit 1; }
	sleep 0.1
done
[[ -n "$url" ]] || { echo "walkthrough: the sandbox did not start" >&2; cat "$work/sandbox.log" >&2; exit 1; }
echo "sandbox at $url (log: $work/sandbox.log)"

step "Write a CLI configuration with dev_overrides for malipo/malipo -> $bin"
cat >"$work/dev.tfrc" <<TFRC
provider_installation {
  dev_overrides {
    "malipo/malipo" = "$bin"
  }
  direct {}
}
TFRC
cat "$work/dev.tfrc"

export TF_CLI_CONFIG_FILE="$work/dev.tfrc"
export MALIPO_BASE_URL="$url" MALIPO_PUBLIC_KEY=pk_test_malipo_sandbox MALIPO_SECRET_KEY=sk_test_malipo_sandbox
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
cd "$work"

step "terraform plan"
tf plan -input=false -out=tfplan

step "terraform apply"
tf apply -input=false tfplan

step "terraform apply -refresh-only: refresh picks up the final status of the payout that did not wait"
sleep 1
tf apply -input=false -refresh-only -auto-approve

step "terraform plan again: nothing to change"
set +e
tf plan -input=false -detailed-exitcode
code=$?
set -e
if [[ $code -ne 0 ]]; then
	echo "walkthrough: the plan after apply is not empty (exit $code)" >&2
	exit 1
fi

step "terraform output"
tf output
applied=$(terraform state list | grep -vc '^data\.' || true)
read_data=$(terraform state list | grep -c '^data\.' || true)

step "terraform destroy (payouts are only forgotten: they cannot be reversed)"
tf destroy -input=false -auto-approve

left=$(terraform state list | wc -l)
if [[ $left -ne 0 ]]; then
	echo "walkthrough: $left resources are still in the state after destroy:" >&2
	terraform state list >&2
	exit 1
fi

step "Walkthrough complete"
echo "$applied resources applied (and $read_data data sources read), the plan after apply empty, every resource destroyed" | tee "$work/result.txt"
echo "State and logs are in $work."
