#!/usr/bin/env bash
# build-cold-fixture.sh - rebuilds testdata/codeoracle/cold/cold-stripped
# from cold.c with the host's gcc (Debian 12: gcc 12.2) at -O2, which moves
# the call of the cold function into work.cold, then strips it: no symbol
# pairs the cold part with work (compare's TestStrippedColdPartIsWalked).
set -euo pipefail
cd "$(dirname "$0")/../testdata/codeoracle/cold"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -o "$tmp/cold" cold.c
nm "$tmp/cold" | grep -q 'work\.cold' || { echo "gcc made no work.cold" >&2; exit 1; }
strip -o cold-stripped "$tmp/cold"
