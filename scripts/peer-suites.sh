#!/bin/bash
# peer-suites.sh - runs the producers' own SFrame test suites against sfdbg
# (issue 19) and prints a tally. Not part of .ci/run: it downloads.
#
# Usage: scripts/peer-suites.sh [--verbose] DIR [LLVM_TEST_DIR]
#   DIR            where the fetched inputs are kept (reused on later runs)
#   LLVM_TEST_DIR  LLVM 22's llvm/test directory, if you have one; else the
#                  llvm-toolchain-22 source package is fetched (~200 MB)
# Env:   SFDBG_TOOLCHAINS  binutils toolchains (default /tmp/sfdbg-toolchains;
#                          made by scripts/toolchains.sh and
#                          scripts/cross-toolchains.sh when missing)
#        SFDBG_BIN         an sfdbg binary to test (default: built from here)
#
# What it fetches, all from Debian forky without installing anything
# (apt-get download / source with a private apt directory, dpkg-deb -x,
# programs run under the package's own ld.so, as toolchains.sh does):
#   binutils-source       the 2.47.50.20261021 snapshot of the v3 toolchain:
#                         gas, ld, binutils and libsframe testsuites, include/
#   llvm-22, llvm-22-tools, libllvm22 and what they load: llvm-mc,
#                         llvm-readobj, yaml2obj
#   llvm-toolchain-22     source package (orig tarball): llvm/test/MC/ELF/
#                         cfi-sframe*.s, llvm/test/tools/llvm-readobj/ELF/sframe-*.test
# and, for libsframe, libsframe3 (the v3 toolchain has it) with the host's gcc.
# Then scripts/peer-suites.py runs the binutils .d tests with sfdbg dump in
# objdump's place, sfdbg check on every file built, sfdbg against
# llvm-readobj on LLVM's tests and against libsframe on its data files.
# Upstream's files stay in DIR; nothing of them is committed.
# Needs: apt-get, dpkg-deb, xz, python3, gcc, go (unless SFDBG_BIN).
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

VERBOSE=
if [ "${1:-}" = --verbose ]; then VERBOSE=--verbose; shift; fi
[ $# -ge 1 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
DIR=$(mkdir -p "$1" && cd "$1" && pwd)
LLVM_TESTS=${2:-}
need apt-get; need dpkg-deb "" dpkg; need python3; need xz "" xz-utils; need gcc

ensure_toolchains
ensure_cross
temp_dir
sfdbg_binary

SUITE=forky
BINUTILS_VERSION=2.47.50.20261021-1
APT=$DIR/apt
mkdir -p "$APT/lists/partial" "$APT/archives/partial"
A=(-o Dir::Etc::sourcelist="$APT/sources.list" -o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists="$APT/lists"
   -o Dir::Cache::Archives="$APT/archives" -o Dir::State::status="$APT/status")
apt_ready() {
  [ -f "$APT/sources.list" ] && ls "$APT"/lists/*Sources* >/dev/null 2>&1 && return 0
  printf 'deb http://deb.debian.org/debian %s main\ndeb-src http://deb.debian.org/debian %s main\n' "$SUITE" "$SUITE" > "$APT/sources.list"
  touch "$APT/status"
  apt-get "${A[@]}" -qq update || die "apt-get update for $SUITE failed (network?)"
}

# binutils testsuites.
BU=$DIR/binutils
if [ ! -f "$BU/include/ansidecl.h" ]; then
  apt_ready
  mkdir -p "$DIR/debs"
  (cd "$DIR/debs" && apt-get "${A[@]}" -qq download "binutils-source=$BINUTILS_VERSION" 2>&1 | grep -v unsandboxed || true)
  deb=$(ls "$DIR"/debs/binutils-source_*.deb 2>/dev/null | head -1)
  [ -n "$deb" ] || die "download of binutils-source $BINUTILS_VERSION from $SUITE failed"
  rm -rf "$DIR/binutils-source"; dpkg-deb -x "$deb" "$DIR/binutils-source"
  tarball=$(ls "$DIR"/binutils-source/usr/src/binutils/binutils-*.tar.xz | head -1)
  rm -rf "$BU"; mkdir -p "$BU"
  note "unpacking the SFrame testsuites of $(basename "$tarball")"
  tar -xJf "$tarball" -C "$BU" --strip-components=1 --wildcards \
    '*/gas/testsuite/gas/cfi-sframe/*' '*/ld/testsuite/ld-x86-64/*' '*/ld/testsuite/ld-aarch64/*' \
    '*/ld/testsuite/ld-s390/*' '*/ld/testsuite/ld-sframe/*' '*/binutils/testsuite/binutils-all/x86-64/*' \
    '*/libsframe/testsuite/*' '*/include/sframe-api.h' '*/include/sframe.h' '*/include/ansidecl.h'
fi

# LLVM 22 tools.
LL=$DIR/llvm-22
if [ ! -x "$LL/bin/yaml2obj" ]; then
  apt_ready
  mkdir -p "$LL/debs" "$LL/root" "$LL/bin"
  (cd "$LL/debs" && apt-get "${A[@]}" -qq download llvm-22 llvm-22-tools libllvm22 libc6 libstdc++6 libgcc-s1 libedit2 \
     libffi8 libxml2-16 libz3-4 libzstd1 zlib1g libbsd0 libmd0 libtinfo6 2>&1 | grep -v unsandboxed || true)
  ls "$LL"/debs/llvm-22_*.deb "$LL"/debs/llvm-22-tools_*.deb >/dev/null || die "download of llvm-22 from $SUITE failed"
  for d in "$LL"/debs/*.deb; do dpkg-deb -x "$d" "$LL/root"; done
  L=$LL/root/usr/lib/x86_64-linux-gnu
  for t in llvm-mc llvm-readobj yaml2obj; do
    printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s %s "$@"\n' \
      "$L" "$L:$LL/root/usr/lib/llvm-22/lib" "$LL/root/usr/lib/llvm-22/bin/$t" > "$LL/bin/$t"
    chmod +x "$LL/bin/$t"
  done
fi

# LLVM 22's tests.
if [ -z "$LLVM_TESTS" ]; then
  LLVM_TESTS=$DIR/llvm-test
  if [ ! -d "$LLVM_TESTS/tools/llvm-readobj/ELF" ]; then
    apt_ready
    mkdir -p "$DIR/llvm-src"
    # The .dsc may have moved on in the pool; the orig tarball is what is needed.
    (cd "$DIR/llvm-src" && apt-get "${A[@]}" -qq source --download-only llvm-toolchain-22 2>&1 | grep -v unsandboxed || true)
    orig=$(ls "$DIR"/llvm-src/llvm-toolchain-22_*.orig.tar.xz 2>/dev/null | head -1)
    [ -n "$orig" ] || die "download of the llvm-toolchain-22 source package from $SUITE failed; give LLVM_TEST_DIR"
    note "unpacking LLVM's SFrame tests from $(basename "$orig") (a minute)"
    mkdir -p "$TMP/llvm"
    tar -xJf "$orig" -C "$TMP/llvm" --wildcards '*/llvm/test/MC/ELF/cfi-sframe*' '*/llvm/test/tools/llvm-readobj/ELF/sframe*'
    mkdir -p "$LLVM_TESTS"
    cp -r "$TMP"/llvm/*/llvm/test/MC "$TMP"/llvm/*/llvm/test/tools "$LLVM_TESTS"/
  fi
fi
[ -d "$LLVM_TESTS/tools/llvm-readobj/ELF" ] || die "$LLVM_TESTS has no tools/llvm-readobj/ELF"

# libsframe's decoder, through our small program.
V3ROOT=$TC/v3/root
LSF=$DIR/libsframe-dump
LIBDIR=$V3ROOT/usr/lib/x86_64-linux-gnu
[ -e "$LIBDIR/libsframe.so.3" ] || die "no libsframe.so.3 in $LIBDIR (toolchains.sh unpacks libsframe3)"
gcc -O1 -I"$BU/include" -o "$LSF" "$REPO/scripts/peer-suites-libsframe.c" "$LIBDIR/libsframe.so.3" \
  || die "building scripts/peer-suites-libsframe.c failed"
printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s %s "$@"\n' "$LIBDIR" "$LIBDIR" "$LSF" > "$LSF.sh"
chmod +x "$LSF.sh"
# Sections libsframe's encoder builds, one per ABI (both byte orders).
gcc -O1 -I"$BU/include" -o "$DIR/libsframe-encode" "$REPO/scripts/peer-suites-libsframe-encode.c" "$LIBDIR/libsframe.so.3" \
  || die "building scripts/peer-suites-libsframe-encode.c failed"
mkdir -p "$DIR/encoded"
"$LIBDIR/ld-linux-x86-64.so.2" --library-path "$LIBDIR" "$DIR/libsframe-encode" "$DIR/encoded" \
  || die "libsframe's encoder failed"

mkdir -p "$DIR/work"
python3 "$REPO/scripts/peer-suites.py" $VERBOSE --sfdbg "$SFDBG" --toolchains "$TC" --binutils "$BU" \
  --llvm-tests "$LLVM_TESTS" --yaml2obj "$LL/bin/yaml2obj" --readobj "$LL/bin/llvm-readobj" --llvm-mc "$LL/bin/llvm-mc" \
  --libsframe-dump "$LSF.sh" --libsframe-encoded "$DIR/encoded" --work "$DIR/work"
