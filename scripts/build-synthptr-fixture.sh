#!/bin/bash
# build-synthptr-fixture.sh - rebuilds testdata/bin/synthptr-v3-O2: synthptr.c,
# PIE, -O2 -g, GNU as and ld 2.47.50 with --gsframe: GCC gives the inlined
# sum's pointer s a DW_OP_implicit_pointer location (a synthetic pointer).
# Usage: scripts/build-synthptr-fixture.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains)
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
need gcc "builds synthptr.c"
[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host"
ensure_toolchains
mkdir -p "$BIN"
cd "$REPO"
out=$BIN/synthptr-v3-O2
gcc -B "$TC/v3/bin/" -Wa,--gsframe -g -O2 -Wall -Wextra -ffile-prefix-map="$REPO"=. \
    -o "$out" testdata/src/synthptr.c
check_version "$out" x86_64 3
readelf --debug-dump=info,loc "$out" | grep -q "DW_OP_implicit_pointer\|DW_OP_GNU_implicit_pointer" ||
	die "synthptr-v3-O2 has no implicit pointer: GCC kept s in memory"
echo "built synthptr-v3-O2 ($(stat -c %s "$out") bytes, SFrame v3)"
