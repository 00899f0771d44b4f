#!/bin/bash
# build-known-fault-fixtures.sh - rebuilds testdata/known, the fixtures of
# the known producer faults (compare/known_faults.json):
#   known-as-v{1,2,3}.o   testdata/src/known-faults-x86_64.s, GNU as 2.40, 2.44,
#                         2.47.50 --gsframe (SFrame v1, v2, v3)
#   known-ld-v{2,3}       known-main.c and known-faults-x86_64.s, gcc -O2 with
#                         GNU as/ld 2.44 and 2.47.50, linked with
#                         --enable-linker-version, so .comment names the linker
#                         ("Linker: GNU ld (GNU Binutils for Debian) 2.44")
# Usage: scripts/build-known-fault-fixtures.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains)
# Needs: gcc (host, Debian 12's gcc 12 was used).
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

need gcc "links the fixtures"
[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host"
ensure_toolchains

OUT=$REPO/testdata/known
mkdir -p "$OUT"
rm -f "$OUT"/*
cd "$REPO"
for v in 1 2 3; do
  "$TC/v$v/bin/as" --gsframe -o "$OUT/known-as-v$v.o" testdata/src/known-faults-x86_64.s 2>/dev/null
done
for v in 2 3; do
  gcc -B "$TC/v$v/bin/" -Wa,--gsframe -O2 -g -ffile-prefix-map="$REPO"=. -Wl,--enable-linker-version \
      -Wl,--build-id=none -o "$OUT/known-ld-v$v" testdata/src/known-main.c testdata/src/known-faults-x86_64.s 2>/dev/null
done
ls -l "$OUT"
