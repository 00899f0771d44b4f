#!/bin/bash
# build-codeoracle-realworld.sh - rebuilds testdata/codeoracle/realworld:
# NAME.o is as --gsframe (GNU as 2.47.50, SFrame v3) of NAME.s, a minimal
# copy of a CFI fault found in Debian's hand-written assembly (README.md
# there names package, file and function); in false-findings/, the NAME.o
# of each false finding fixed (those with a NAME.o already: the others'
# sources still give one), NAME_aarch64.o and NAME_s390x.o with the cross
# assemblers (scripts/cross-toolchains.sh).
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
  case $s in
    *_aarch64.s) ensure_cross; "$(tool aarch64 3 as)" --gsframe -o "${s%.s}.o" "$s" ;;
    *_s390x.s) ensure_cross; "$(tool s390x 3 as)" --gsframe -o "${s%.s}.o" "$s" ;;
    *) "$AS" --64 --gsframe -o "${s%.s}.o" "$s" ;;
  esac
  n=$((n + 1))
done
note "built $n objects in $PWD"
cd false-findings
n=0
for o in *.o; do
  [ -e "$o" ] || continue
  case $o in
    *_aarch64.o) ensure_cross; "$(tool aarch64 3 as)" --gsframe -o "$o" "${o%.o}.s" ;;
    *_s390x.o) ensure_cross; "$(tool s390x 3 as)" --gsframe -o "$o" "${o%.o}.s" ;;
    *) "$AS" --64 --gsframe -o "$o" "${o%.o}.s" ;;
  esac
  n=$((n + 1))
done
note "rebuilt $n fixed false findings in $PWD"
