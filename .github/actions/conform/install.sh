#!/usr/bin/env bash
# Installs a released malipo for this machine and puts it on PATH: the conform action's install step
# (action.yml, input install: release), runnable on Linux and macOS, and on Windows in Git Bash.
#
# It downloads the archive the release carries for this OS and architecture and the release's
# checksums file, refuses the archive unless its SHA-256 is the one the checksums file lists for it,
# unpacks the binary, checks that `malipo version` prints the tag, and appends its directory to
# $GITHUB_PATH, so that the job's later steps find malipo. A refused download installs nothing.
#
# The file names are not written here: they come from .goreleaser.cli.yml, three directories up, at
# the same ref as this script (GitHub checks out the whole repository for `uses:`): the build's
# binary, goos and goarch, the archive's name_template, formats and Windows override, the checksum
# name_template, rendered with .Version (the tag without its v), .Os and .Arch (Go's GOOS and GOARCH).
#
# Environment:
#   VERSION               a release tag such as v0.1.0, or latest: the tag GitHub's
#                         <releases>/latest redirects to (the newest release that is not a prerelease)
#   MALIPO_RELEASES_URL   where the releases are; default https://<go.mod's module path>/releases.
#                         Files are read from <releases>/download/<tag>/<file>.
#   RUNNER_OS, RUNNER_ARCH  the platform, as GitHub Actions names it; unset, uname's answer
#   RUNNER_TEMP           malipo goes to RUNNER_TEMP/malipo-<tag>/ (default: the system's temporary directory)
#   GITHUB_PATH           the file of directories GitHub Actions adds to PATH; unset, the directory is printed
# Exit status: 0 installed, 1 not installed (the message says why and what to do).
set -euo pipefail

die() {
  echo "install.sh: $*" >&2
  [ -z "${GITHUB_ACTIONS:-}" ] || echo "::error title=malipo install::$*"
  exit 1
}

case ${RUNNER_OS:-$(uname -s)} in
  Linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  Windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
  *) die "unknown operating system ${RUNNER_OS:-$(uname -s)}: set the action's input install: go to build malipo from source" ;;
esac
case ${RUNNER_ARCH:-$(uname -m)} in
  X64 | x86_64 | amd64) arch=amd64 ;;
  ARM64 | arm64 | aarch64) arch=arm64 ;;
  X86 | i386 | i686) arch=386 ;;
  ARM | armv*) arch=arm ;;
  *) die "unknown architecture ${RUNNER_ARCH:-$(uname -m)}: set the action's input install: go to build malipo from source" ;;
esac
here=$(cd "${GITHUB_ACTION_PATH:-$(dirname "${BASH_SOURCE[0]}")}" && pwd)
root=$(cd "$here/../../.." && pwd)
config=$root/.goreleaser.cli.yml
[ -f "$config" ] || die "$config is missing: this script reads the release's file names from it"

# flatten prints one `path=value` line for each scalar of a simple YAML file: block mappings and
# lists, one key or item a line, list items numbered from 0 (builds.0.goos.1=darwin), quotes removed,
# flow lists ([a, b]) kept as written, block scalars (| and >) skipped: enough for that file.
flatten() {
  awk -v sq="'" -v dq='"' '
    function uncomment(s,   i, c, q, out, prev) {
      q = ""; out = ""; prev = " "
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (q == "") {
          if (c == "#" && index(" \t", prev)) break
          if ((c == sq || c == dq) && index(" \t:,[{-", prev)) q = c
        } else if (c == q) q = ""
        out = out c; prev = c
      }
      return out
    }
    function unquote(v) {
      if (length(v) >= 2 && substr(v, 1, 1) == sq && substr(v, length(v), 1) == sq) {
        v = substr(v, 2, length(v) - 2); gsub(sq sq, sq, v)
      } else if (length(v) >= 2 && substr(v, 1, 1) == dq && substr(v, length(v), 1) == dq) {
        v = substr(v, 2, length(v) - 2)
      }
      return v
    }
    function path(   p, i) {
      p = ""
      for (i = 1; i <= n; i++) p = p (i > 1 ? "." : "") name[i]
      return p
    }
    function iskey(s) { return !index(" :#-" sq dq, substr(s, 1, 1)) && (s ~ /^[^:]*:$/ || s ~ /^[^:]*: /) }
    BEGIN { n = 0; block = -1 }
    {
      line = $0; sub(/\r$/, "", line)
      match(line, /^ */); ind = RLENGTH
      if (block >= 0 && (ind > block || line ~ /^[ \t]*$/)) next
      block = -1
      line = uncomment(line); sub(/[ \t]+$/, "", line)
      if (line ~ /^[ \t]*$/ || line ~ /^(---|\.\.\.)/) next
      s = substr(line, ind + 1)
      dash = (s ~ /^-( |$)/)
      while (n > 0 && (lvl[n] > ind || (lvl[n] == ind && !(dash && open[n])))) n--
      if (dash) {
        p = path(); idx = cnt[p] + 0; cnt[p] = idx + 1
        n++; name[n] = idx; lvl[n] = ind; open[n] = 0
        s = substr(s, 2); match(s, /^ */); ind += 1 + RLENGTH; s = substr(s, RLENGTH + 1)
        if (s == "") next
        if (!iskey(s)) { print path() "=" unquote(s); next }
      }
      c = index(s, ":")
      k = unquote(substr(s, 1, c - 1)); v = substr(s, c + 1); sub(/^ +/, "", v)
      p = path(); p = (p == "" ? k : p "." k)
      if (v == "") { n++; name[n] = k; lvl[n] = ind; open[n] = 1; next }
      if (v ~ /^[|>]/) { block = ind; next }
      print p "=" unquote(v)
    }' "$1"
}
flat=$(flatten "$config")

# render TEMPLATE sets rendered to the template with {{ .Version }}, {{ .Os }} and {{ .Arch }}
# replaced; any other action is refused rather than guessed.
render() {
  local t=$1 re='\{\{ *\.(Version|Os|Arch) *\}\}' m v
  while [[ $t =~ $re ]]; do
    m=${BASH_REMATCH[0]}
    case ${BASH_REMATCH[1]} in
      Version) v=$version ;;
      Os) v=$os ;;
      Arch) v=$arch ;;
    esac
    t=${t%%"$m"*}$v${t#*"$m"}
  done
  case $t in
    *'{{'*) die "cannot render '$1' from $config: this script knows only {{ .Version }}, {{ .Os }} and {{ .Arch }}" ;;
  esac
  rendered=$t
}

# The values this script needs, lists as their items after a space each: first the number of the
# archive's format override for this OS, if it has one, then the values.
override=
while IFS= read -r line; do
  case $line in
    "archives.0.format_overrides."*".goos=$os") override=${line#archives.0.format_overrides.}; override=${override%%.*} ;;
  esac
done <<<"$flat"
binary='' goos='' goarch='' formats='' template='' sums_template=''
while IFS= read -r line; do
  key=${line%%=*} val=${line#*=}
  case $key in
    *.[0-9] | *.[0-9][0-9]) key=${key%.*} ;; # an item of a block list
  esac
  case $val in
    \[*\]) val=${val#[}; val=${val%]}; val=${val//,/ }; val=${val//\'/}; val=${val//\"/} ;; # [a, b]
  esac
  case $key in
    builds.0.binary) binary=$val ;;
    builds.0.goos) goos="$goos $val" ;;
    builds.0.goarch) goarch="$goarch $val" ;;
    archives.0.formats) [ -n "$override" ] || formats="$formats $val" ;;
    "archives.0.format_overrides.$override.formats") formats="$formats $val" ;;
    archives.0.name_template) template=$val ;;
    checksum.name_template) sums_template=$val ;;
  esac
done <<<"$flat"
case "$goos " in *" $os "*) built=$os ;; *) built= ;; esac
case "$goarch " in *" $arch "*) ;; *) built= ;; esac
[ -n "$built" ] ||
  die "the release has no malipo for $os/$arch ($config builds it for$goos on$goarch): set the action's input install: go to build it from source"

releases=${MALIPO_RELEASES_URL:-}
if [ -z "$releases" ]; then
  module=$(awk '$1 == "module" { print $2; exit }' "$root/go.mod")
  case $module in
    github.com/*/*) releases=https://$module/releases ;;
    *) die "cannot tell where the releases are (go.mod's module is '$module'): set MALIPO_RELEASES_URL" ;;
  esac
fi
releases=${releases%/}

tag=${VERSION:-}
if [ "$tag" = latest ]; then
  # GitHub answers <releases>/latest with a redirect to <releases>/tag/<the latest tag>.
  location=$(curl -sS --retry 3 --connect-timeout 20 -o /dev/null -w '%{redirect_url}' "$releases/latest") ||
    die "cannot reach $releases/latest to find the latest release (curl's error above)"
  tag=${location##*/tag/}
  case $location in
    */tag/?*) echo "install.sh: latest is $tag" ;;
    *) die "$releases/latest does not redirect to a release's tag (is there a release yet?): set version to a tag such as v0.1.0" ;;
  esac
fi
# A tag names files and a directory below: v, a digit, then only what semantic versions spell.
if ! [[ $tag =~ ^v[0-9][0-9A-Za-z.+-]*$ ]]; then
  die "version '$tag' is not a release tag: give one such as v0.1.0, or latest"
fi
version=${tag#v}

format=${formats# }
format=${format%% *}
{ [ -n "$template" ] && [ -n "$format" ]; } || die "$config names no archive (archives' first entry: name_template, formats)"
render "$template"
archive=$rendered.$format
[ -n "$sums_template" ] || die "$config names no checksums file (checksum: name_template)"
render "$sums_template"
sums=$rendered
[ -n "$binary" ] || die "$config names no binary (builds' first entry: binary)"
[ "$os" != windows ] || binary=$binary.exe

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# download FILE fetches <releases>/download/<tag>/FILE into the work directory.
download() {
  local url=$releases/download/$tag/$1 code
  code=$(curl -sSL --retry 3 --connect-timeout 20 -o "$work/$1" -w '%{http_code}' "$url") ||
    die "cannot download $url (curl's error above)"
  [ "$code" = 200 ] ||
    die "cannot download $1: $url answered HTTP $code. Is $tag a release with malipo for $os/$arch? Or set the action's input install: go to build malipo from source."
}
download "$archive"
download "$sums"

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1"
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1"
  else
    openssl dgst -sha256 -r "$1"
  fi | awk '{ print tolower($1) }'
}
expected=$(awk -v f="$archive" '{ sub(/\r$/, ""); n = $2; sub(/^\*/, "", n) } n == f { print tolower($1); exit }' "$work/$sums")
[ -n "$expected" ] ||
  die "refusing $archive: $sums has no line for it, so its SHA-256 cannot be checked; nothing was installed"
actual=$(sha256 "$work/$archive")
[ "$actual" = "$expected" ] ||
  die "refusing $archive: its SHA-256 is $actual, but $sums says $expected (the download is corrupt or was tampered with); nothing was installed"
echo "install.sh: $archive: SHA-256 $actual, as $sums says"

mkdir "$work/unpacked"
case $format in
  tar.gz | tgz) tar -xzf "$work/$archive" -C "$work/unpacked" ;;
  zip)
    command -v unzip >/dev/null 2>&1 || die "unzip is needed to unpack $archive: install it, or set the action's input install: go"
    unzip -q "$work/$archive" -d "$work/unpacked"
    ;;
  *) die "$config gives the archive format $format, which this script cannot unpack" ;;
esac
[ -f "$work/unpacked/$binary" ] || die "$archive holds no $binary at its top level"

dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/malipo-$tag
rm -rf "$dir"
mkdir -p "$dir"
mv "$work/unpacked/$binary" "$dir/$binary"
chmod +x "$dir/$binary"
printed=$("$dir/$binary" version 2>&1) || printed="(it failed: $printed)"
if [ "${printed%%$'\n'*}" != "malipo $tag" ]; then
  rm -rf "$dir"
  die "$archive's $binary does not run as malipo $tag: \`malipo version\` printed: ${printed%%$'\n'*}"
fi
printf '%s\n' "$printed"

path_entry=$dir
if command -v cygpath >/dev/null 2>&1; then path_entry=$(cygpath -w "$dir"); fi
if [ -n "${GITHUB_PATH:-}" ]; then
  printf '%s\n' "$path_entry" >>"$GITHUB_PATH"
  echo "install.sh: malipo $tag is in $path_entry, on PATH for the next steps"
else
  echo "install.sh: malipo $tag is in $path_entry; add it to PATH"
fi
