#!/bin/bash
# build-locals-fixtures.sh - rebuilds the fixtures of the REPL's locals,
# arguments and values (info locals, info args, bt full, print, ptype,
# set var; debugger/locals_test.go), from testdata/src/locals.c:
#   testdata/bin/locals-v3-O0          -O0 -g (DWARF 5): every variable in
#                                      memory, at DW_OP_fbreg
#   testdata/bin/locals-v3-O2          -O2 -g (DWARF 5): location lists in
#                                      .debug_loclists, DW_OP_entry_value,
#                                      call-site parameters, <optimized out>
#   testdata/bin/locals-v3-O2-dwarf4   -O2 -gdwarf-4: the same in .debug_loc
# Built from the repo root with a relative source path and
# -ffile-prefix-map, as build-fixtures.sh builds deep.c.
#
# Usage: scripts/build-locals-fixtures.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains)
# Needs: gcc (Debian 12's gcc 12.2 was used), readelf.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
need gcc "builds locals.c"
need readelf "" binutils
[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host (the fixtures are built with host gcc)"
ensure_toolchains
mkdir -p "$BIN"

cd "$REPO"
for spec in O0: O2: O2-dwarf4:-gdwarf-4; do
  name=${spec%%:*} extra=${spec#*:}
  opt=-${name%%-*}
  out=$BIN/locals-v3-$name
  gcc -B "$TC/v3/bin/" -Wa,--gsframe -g $extra $opt -Wall -Wextra \
      -ffile-prefix-map="$REPO"=. -o "$out" testdata/src/locals.c
  check_version "$out" x86_64 3
  out_txt=$("$out" exit) || die "locals-v3-$name exit failed"
  [ "$out_txt" = ready ] || die "locals-v3-$name printed '$out_txt', not 'ready'"
  echo "built locals-v3-$name ($(stat -c %s "$out") bytes, SFrame v3)"
done
# What the tests rely on: location lists where gdb's tests need them.
loc=$(readelf --debug-dump=loc "$BIN/locals-v3-O2")
[[ $loc == *DW_OP_entry_value* ]] || die "locals-v3-O2 has no DW_OP_entry_value"
sections=$(readelf -S "$BIN/locals-v3-O2-dwarf4")
[[ $sections == *".debug_loc "* ]] || die "locals-v3-O2-dwarf4 has no .debug_loc"
