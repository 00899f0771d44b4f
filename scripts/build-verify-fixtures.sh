#!/bin/bash
# build-verify-fixtures.sh - rebuilds the fixture of `sfdbg verify`:
#   testdata/bin/verify-faults-v3   verify-faults.c with verify-faults-x86_64.s,
#                                   PIE, -O2, GNU as and ld 2.47.50 with
#                                   --gsframe (SFrame v3): two functions whose
#                                   CFI, and so SFrame, is wrong at labelled
#                                   instructions, and one clean function
#   testdata/bin/verify-shapes-v3   verify-shapes.cc, PIE, -O2, g++ with GNU as
#                                   and ld 2.47.50 --gsframe: alloca, a
#                                   realigned frame, setjmp/longjmp and a C++
#                                   exception, all with the compiler's CFI
# Usage: scripts/build-verify-fixtures.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains)
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
need gcc "builds verify-faults.c"
[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host"
ensure_toolchains
mkdir -p "$BIN"
cd "$REPO"
out=$BIN/verify-faults-v3
gcc -B "$TC/v3/bin/" -Wa,--gsframe -O2 -Wall -Wextra -ffile-prefix-map="$REPO"=. \
    -o "$out" testdata/src/verify-faults.c testdata/src/verify-faults-x86_64.s
check_version "$out" x86_64 3
[ "$("$out" 0)" = ready ] || die "verify-faults-v3 0 did not print ready"
echo "built verify-faults-v3 ($(stat -c %s "$out") bytes, SFrame v3)"

need g++ "builds verify-shapes.cc"
out=$BIN/verify-shapes-v3
g++ -B "$TC/v3/bin/" -Wa,--gsframe -O2 -Wall -Wextra -ffile-prefix-map="$REPO"=. \
    -o "$out" testdata/src/verify-shapes.cc
check_version "$out" x86_64 3
[ "$("$out" 0)" = ready ] || die "verify-shapes-v3 0 did not print ready"
echo "built verify-shapes-v3 ($(stat -c %s "$out") bytes, SFrame v3)"
