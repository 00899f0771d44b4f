#!/bin/bash
# build-gdb-fixtures.sh - rebuilds the fixtures the REPL's tests against gdb
# use beside locals and clones: PIE, -O2 -g, GNU as and ld 2.47.50 with
# --gsframe, sources in testdata/src:
#   synthptr-v3-O2  GCC gives the inlined sum's pointer s a
#                   DW_OP_implicit_pointer location (a synthetic pointer);
#   qsortcb-v3-O2   dynamically linked: its qsort callback faults at a
#                   line-table row that is not a statement, and glibc's
#                   qsort jumps to qsort_r (a tail call across modules).
# Usage: scripts/build-gdb-fixtures.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains)
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
need gcc "builds the C fixtures"
[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host"
ensure_toolchains
mkdir -p "$BIN"
cd "$REPO"
for name in synthptr qsortcb; do
	out=$BIN/$name-v3-O2
	gcc -B "$TC/v3/bin/" -Wa,--gsframe -g -O2 -Wall -Wextra -ffile-prefix-map="$REPO"=. \
		-o "$out" "testdata/src/$name.c"
	check_version "$out" x86_64 3
	echo "built $name-v3-O2 ($(stat -c %s "$out") bytes, SFrame v3)"
done
readelf --debug-dump=info,loc "$BIN/synthptr-v3-O2" | grep -q "DW_OP_implicit_pointer\|DW_OP_GNU_implicit_pointer" ||
	die "synthptr-v3-O2 has no implicit pointer: GCC kept s in memory"
