#!/bin/bash
# Puts clang 22 and 23 with lld, llvm-readobj and llvm-objdump from Debian's
# binary packages beside the binutils made by scripts/toolchains.sh,
# without installing them: DIR/llvm-22 and DIR/llvm-23, from Debian sid
# (unstable), the one suite that has both (forky has clang-22 only,
# experimental neither). They run under sid's ld.so with sid's libraries, as
# scripts/cross-toolchains.sh does for the cross binutils.
# Usage: llvm-toolchains.sh [DIR]
#   then DIR/llvm-N/bin/{clang,ld.lld,llvm-readobj,llvm-objdump,llvm-readelf}
# Linking: clang runs the linker it finds beside itself directly, which
# cannot work here; pass -fuse-ld=lld --ld-path=DIR/llvm-N/bin/ld.lld.
# Headers, crt files and libc come from the host's gcc and libc6-dev.
# Needs: apt-get, dpkg-deb, and access to deb.debian.org (Debian packages).
set -euo pipefail
DIR=${1:-${SFDBG_TOOLCHAINS:-/tmp/sfdbg-toolchains}}
for t in apt-get dpkg-deb; do
  command -v "$t" >/dev/null || { echo "llvm-toolchains.sh: needs $t (Debian/Ubuntu host)" >&2; exit 1; }
done
mkdir -p "$DIR"
SUITE=sid
TOOLS="clang ld.lld llvm-readobj llvm-readelf llvm-objdump"
setup() { # llvm major version
  local v=$1 root="$DIR/llvm-$1"
  local ok=1 t
  for t in $TOOLS; do [ -x "$root/bin/$t" ] || ok=0; done
  [ $ok = 1 ] && return 0
  local apt="$root/apt"; mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$root/debs" "$root/root" "$root/bin"
  echo "deb http://deb.debian.org/debian $SUITE main" > "$apt/sources.list"; touch "$apt/status"
  local A=(-o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists="$apt/lists" -o Dir::Cache::Archives="$apt/archives" -o Dir::State::status="$apt/status")
  apt-get "${A[@]}" -qq update || { echo "llvm-toolchains.sh: apt-get update for $SUITE failed (network?)" >&2; exit 1; }
  # The packages and the shared libraries their programs load (Depends,
  # less what the host's gcc and libc6-dev already provide).
  local pkgs="clang-$v libclang-cpp$v libclang1-$v libllvm$v libclang-common-$v-dev lld-$v llvm-$v
    libc6 libstdc++6 libgcc-s1 libedit2 libffi8 libxml2-16 libz3-4 libzstd1 zlib1g libbsd0 libmd0 libtinfo6"
  local p list=
  for p in $pkgs; do list="$list $p/$SUITE"; done
  (cd "$root/debs" && apt-get "${A[@]}" -qq download $list 2>&1 | grep -v unsandboxed || true)
  ls "$root"/debs/clang-"$v"_*.deb "$root"/debs/libllvm"$v"_*.deb "$root"/debs/lld-"$v"_*.deb >/dev/null \
    || { echo "llvm-toolchains.sh: download of clang-$v, libllvm$v or lld-$v from $SUITE failed" >&2; exit 1; }
  for d in "$root"/debs/*.deb; do dpkg-deb -x "$d" "$root/root"; done
  local L="$root/root/usr/lib/x86_64-linux-gnu" B="$root/root/usr/lib/llvm-$v/bin"
  local LP="$L:$root/root/usr/lib/llvm-$v/lib"
  for t in $TOOLS; do
    [ -x "$B/$t" ] || { echo "llvm-toolchains.sh: $B/$t missing from the packages" >&2; exit 1; }
    # clang: -no-canonical-prefixes makes it take its directory from argv[0]
    # (which ld.so sets to the program) rather than /proc/self/exe (ld.so),
    # so it finds its resource directory.
    local extra=
    [ "$t" = clang ] && extra=-no-canonical-prefixes
    printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s %s %s "$@"\n' \
      "$L" "$LP" "$B/$t" "$extra" > "$root/bin/$t"
    chmod +x "$root/bin/$t"
    if "$L/ld-linux-x86-64.so.2" --library-path "$LP" --list "$B/$t" | grep 'not found' >&2; then
      echo "llvm-toolchains.sh: $t needs libraries not downloaded (above)" >&2; exit 1
    fi
  done
}
setup 22
setup 23
for v in 22 23; do
  echo "llvm-$v: $("$DIR/llvm-$v/bin/clang" --version | head -1); $("$DIR/llvm-$v/bin/ld.lld" --version | head -1)"
done
