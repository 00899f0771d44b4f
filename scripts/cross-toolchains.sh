#!/bin/bash
# Puts aarch64 and s390x cross binutils from Debian's binary packages beside
# the x86-64 ones made by scripts/toolchains.sh, without installing them:
# trixie's 2.44 (emits SFrame v2) in DIR/cross-v2 and forky's 2.47.50 (v3) in
# DIR/cross-v3. They run under their own distribution's ld.so.
# Usage: cross-toolchains.sh [DIR]
#   then DIR/cross-vN/bin/{aarch64,s390x}-linux-gnu-{as,ld,objdump,readelf,objcopy}
# Needs: apt-get, dpkg-deb, and access to deb.debian.org (Debian packages).
set -euo pipefail
DIR=${1:-${SFDBG_TOOLCHAINS:-/tmp/sfdbg-toolchains}}
for t in apt-get dpkg-deb; do
  command -v "$t" >/dev/null || { echo "cross-toolchains.sh: needs $t (Debian/Ubuntu host)" >&2; exit 1; }
done
mkdir -p "$DIR"
ARCHES="aarch64 s390x"
setup() { # name suite libsframe-soversion
  local name=$1 suite=$2 ver=$3 root="$DIR/$1"
  local ok=1 a
  for a in $ARCHES; do [ -x "$root/bin/$a-linux-gnu-objdump" ] || ok=0; done
  [ $ok = 1 ] && return 0
  local apt="$root/apt"; mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$root/debs" "$root/root" "$root/bin"
  echo "deb http://deb.debian.org/debian $suite main" > "$apt/sources.list"; touch "$apt/status"
  local A=(-o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists="$apt/lists" -o Dir::Cache::Archives="$apt/archives" -o Dir::State::status="$apt/status")
  apt-get "${A[@]}" -qq update || { echo "cross-toolchains.sh: apt-get update for $suite failed (network?)" >&2; exit 1; }
  (cd "$root/debs" && apt-get "${A[@]}" -qq download \
      binutils-aarch64-linux-gnu/$suite binutils-s390x-linux-gnu/$suite binutils-common/$suite \
      libc6/$suite libjansson4/$suite libsframe$ver/$suite libzstd1/$suite zlib1g/$suite 2>&1 | grep -v unsandboxed || true)
  ls "$root"/debs/binutils-aarch64-linux-gnu_*.deb "$root"/debs/binutils-s390x-linux-gnu_*.deb >/dev/null \
    || { echo "cross-toolchains.sh: download of $suite cross binutils failed" >&2; exit 1; }
  for d in "$root"/debs/*.deb; do dpkg-deb -x "$d" "$root/root"; done
  local L="$root/root/usr/lib/x86_64-linux-gnu"
  for a in $ARCHES; do
    for t in as ld objdump readelf objcopy; do
      printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s %s/usr/bin/%s-linux-gnu-%s "$@"\n' \
        "$L" "$L" "$root/root" "$a" "$t" > "$root/bin/$a-linux-gnu-$t"
      chmod +x "$root/bin/$a-linux-gnu-$t"
    done
  done
}
setup cross-v2 trixie 1
setup cross-v3 forky 3
for v in cross-v2 cross-v3; do for a in $ARCHES; do
  echo "$v/$a: $("$DIR/$v/bin/$a-linux-gnu-as" --version | head -1)"
done; done
