#!/bin/bash
# build-sframe-libc.sh - builds the host distribution's glibc (Debian's
# source package, its patches applied) with SFrame: every file assembled by
# GNU as 2.47.50 with --gsframe (SFrame v3) and linked by its ld, so that
# libc.so.6 has an .sframe section. Debian's and forky's libc6 have none,
# and glibc only gained --enable-sframe in 2.42. It is what check's speed
# target (issue 22: at least 5 M instructions per second without the code
# oracle) is measured on beside SQLite:
#   SFDBG_BENCH_LIBC=DIR/build/libc.so go test ./compare -bench CheckFile
#   hyperfine "sfdbg check --no-code DIR/build/libc.so"
# Not in .ci/run: it runs apt-get source and builds for 20-40 minutes on
# 2 cores.
#
# Usage: scripts/build-sframe-libc.sh [DIR]   (default /tmp/sfdbg-glibc)
# Needs: deb-src lines for the host's suite, gcc, gawk, bison, python3,
#        scripts/toolchains.sh (binutils 2.47.50, fetched if missing).
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
DIR=${1:-/tmp/sfdbg-glibc}
TC=${SFDBG_TOOLCHAINS:-/tmp/sfdbg-toolchains}
need gawk "glibc's configure" gawk
need bison "glibc's configure" bison
[ -x "$TC/v3/bin/as" ] || bash "$(dirname "$0")/toolchains.sh" "$TC"
mkdir -p "$DIR"
cd "$DIR"
if ! ls -d glibc-*/ > /dev/null 2>&1; then
  apt-get source -qq glibc || die "apt-get source glibc failed: add a deb-src line (Types: deb deb-src) and run apt-get update"
fi
SRC=$(ls -d "$DIR"/glibc-*/ | head -1)
mkdir -p build
cd build
CC="gcc -B$TC/v3/bin/ -Wa,--gsframe"
[ -f config.status ] || CC="$CC" CXX="g++ -B$TC/v3/bin/ -Wa,--gsframe" \
  "$SRC/configure" --prefix=/usr --disable-werror --disable-profile --without-selinux > configure.log 2>&1 ||
  die "configure failed: see $DIR/build/configure.log"
make -j"$(nproc)" > make.log 2>&1 || die "make failed: see $DIR/build/make.log"
SECS=$(readelf -S -W libc.so)
grep -q ' \.sframe ' <<< "$SECS" || die "$DIR/build/libc.so has no .sframe section"
DUMP=$("$TC/v3/bin/objdump" --sframe=.sframe libc.so)
note "$DIR/build/libc.so: $(grep -m1 'Version:' <<< "$DUMP" | xargs), $(grep -m1 'Num FDEs:' <<< "$DUMP" | xargs)"
