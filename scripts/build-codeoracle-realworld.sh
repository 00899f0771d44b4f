#!/bin/bash
# build-codeoracle-realworld.sh - rebuilds testdata/codeoracle/realworld:
# NAME.o is as --gsframe (GNU as 2.47.50, SFrame v3) of NAME.s, a minimal
# copy of a CFI fault found in Debian's hand-written assembly (README.md
# there names package, file and function), and the committed objects of
# false-findings/ (the false findings that are fixed) from their sources.
#
# Usage: scripts/build-codeoracle-realworld.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains); the
#                          binutils come from scripts/toolchains.sh, run when missing.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host"
ensure_toolchains
AS=$TC/v3/bin/as
cd "$REPO/testdata/codeoracle/realworld"
rm -f ./*.o
n=0
for s in *.s; do
  "$AS" --64 --gsframe -o "${s%.s}.o" "$s"
  n=$((n + 1))
done
# The false findings that are fixed (false-findings/README.md): rebuild
# the objects that are committed.
for o in false-findings/*.o; do
  [ -e "$o" ] || continue
  "$AS" --64 --gsframe -o "$o" "${o%.o}.s"
  n=$((n + 1))
done
note "built $n objects in $PWD"
