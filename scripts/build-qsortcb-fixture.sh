#!/bin/bash
# build-qsortcb-fixture.sh - rebuilds testdata/bin/qsortcb-v3-O2: qsortcb.c,
# PIE, dynamically linked, -O2 -g, GNU as and ld 2.47.50 with --gsframe.
# Its callback faults at a line-table row that is not a statement (GCC 12
# splits line 8 at the store), and its qsort call enters glibc, whose
# qsort jumps to qsort_r (a tail call across modules).
# Usage: scripts/build-qsortcb-fixture.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains)
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
need gcc "builds qsortcb.c"
[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host"
ensure_toolchains
mkdir -p "$BIN"
cd "$REPO"
out=$BIN/qsortcb-v3-O2
gcc -B "$TC/v3/bin/" -Wa,--gsframe -g -O2 -Wall -Wextra -ffile-prefix-map="$REPO"=. \
    -o "$out" testdata/src/qsortcb.c
check_version "$out" x86_64 3
echo "built qsortcb-v3-O2 ($(stat -c %s "$out") bytes, SFrame v3)"
