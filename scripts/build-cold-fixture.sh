#!/usr/bin/env bash
# build-cold-fixture.sh - rebuilds testdata/codeoracle/cold/cold-stripped
# from cold.c with the host's gcc (Debian 12: gcc 12.2) at -O2, which moves
# the call of the cold function into work.cold, then strips it: no symbol
# pairs the cold part with work (compare's TestStrippedColdPartIsWalked);
# and cold-states-stripped from cold-states.s with the host's as and ld: a
# cold part entered from two states that differ in a scratch register.
set -euo pipefail
cd "$(dirname "$0")/../testdata/codeoracle/cold"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -o "$tmp/cold" cold.c
nm "$tmp/cold" | grep -q 'work\.cold' || { echo "gcc made no work.cold" >&2; exit 1; }
strip -o cold-stripped "$tmp/cold"
as -o "$tmp/cold-states.o" cold-states.s
ld -static -nostdlib --build-id=none -z noexecstack -o "$tmp/cold-states" "$tmp/cold-states.o"
strip -o cold-states-stripped "$tmp/cold-states"
