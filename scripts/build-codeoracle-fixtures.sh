#!/bin/bash
# build-codeoracle-fixtures.sh - rebuilds the code oracle's fixtures in
# testdata/codeoracle/x86_64 from the hand-written functions there (*.s):
#   NAME.o            as --gsframe of NAME.s (GNU as 2.47.50, SFrame v3)
#   codeoracle-x86_64 all the objects linked (ld, static, no libc, entry
#                     clean_fp): resolved .eh_frame, .sframe and jump table
# Each fault fixture marks its faulty instruction with a local label
# NAME.fault, which the tests read from the symbol table.
#
# Usage: scripts/build-codeoracle-fixtures.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains); the
#                          binutils come from scripts/toolchains.sh, run when missing.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host"
ensure_toolchains
AS=$TC/v3/bin/as
LD=$TC/v3/bin/ld
DIR=$REPO/testdata/codeoracle/x86_64
cd "$DIR"
rm -f ./*.o codeoracle-x86_64
objs=()
for s in *.s; do
  o=${s%.s}.o
  "$AS" --64 --gsframe -o "$o" "$s"
  objs+=("$o")
done
"$LD" -static -nostdlib -e clean_fp --build-id=none -z noexecstack -o codeoracle-x86_64 "${objs[@]}"
note "built ${#objs[@]} objects and codeoracle-x86_64 in $DIR"
