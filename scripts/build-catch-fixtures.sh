#!/bin/bash
# build-catch-fixtures.sh - rebuilds the fixtures of `sfdbg catch` and of the
# fault `sfdbg demo` shows:
#   testdata/bin/sortcrash-v3          static x86-64, -O2 -g, SFrame v3 (GNU as
#                                      2.47.50); crashes inside a qsort callback
#   testdata/golden/catch-gdb-sortcrash-v3-MODE.txt   gdb's backtrace at the fatal
#                                      signal (gdb -batch -ex run -ex bt, past-main
#                                      on), for MODE crash, abort and thread
#   testdata/bin/pltgot-v3             pltgot.c, PIE, -O2 -g -fno-builtin, GNU as
#                                      and ld 2.47.50: calls labs through a .plt.got
#                                      stub, whose SFrame FDE GNU ld gets wrong
#                                      (CFA = SP+16, the code's is SP+8; PR 32298)
#   cmd/sfdbg/demotarget/pltgot-v3     the copy sfdbg demo embeds (go generate)
# The program is static so that its addresses, and gdb's golden backtrace, do
# not depend on the host's libc (static glibc has no SFrame: its frames are
# "not covered").
#
# Usage: scripts/build-catch-fixtures.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains)
# Needs: gcc with static glibc (Debian 12's gcc 12 and glibc 2.36 were used),
#        gdb, ptrace permission over own children.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
need gcc "builds sortcrash.c"
need gdb "writes the golden backtraces"
need timeout "" coreutils
[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host (the fixture is built with host gcc)"
ensure_toolchains
mkdir -p "$BIN" "$GOLDEN"

cd "$REPO"
out=$BIN/sortcrash-v3
gcc -B "$TC/v3/bin/" -Wa,--gsframe -g -O2 -static -pthread -Wall -Wextra \
    -ffile-prefix-map="$REPO"=. -o "$out" testdata/src/sortcrash.c
check_version "$out" x86_64 3
[ "$("$out" handled)" = "recovered 1 usr1 1" ] || die "sortcrash-v3 handled did not recover"
echo "built sortcrash-v3 ($(stat -c %s "$out") bytes, SFrame v3)"

# gdb's view at the fatal signal: only the lines from "Program received" /
# "Thread N received" on, frames and thread headers, LWP numbers removed.
for mode in crash abort thread; do
  g=$GOLDEN/catch-gdb-sortcrash-v3-$mode.txt
  {
    echo "# gdb -batch -ex 'set backtrace past-main on' -ex run -ex 'thread apply all bt' --args sortcrash-v3 $mode ($(gdb --version | head -1))"
    timeout 120 gdb -nx -batch -iex 'set debuginfod enabled off' -ex 'set backtrace past-main on' \
        -ex run -ex 'thread apply all bt' --args "$out" "$mode" 2>&1 \
      | grep -E '^(#|Thread |Program received)' | sed -e 's/LWP [0-9][0-9]*/LWP N/g'
  } > "$g"
  grep -q '^#0 .* check_leaf\|^#[0-9].* in check_leaf ' "$g" || die "gdb's backtrace of sortcrash-v3 $mode lacks check_leaf:
$(cat "$g")"
  echo "wrote testdata/golden/$(basename "$g")"
done

# ---------------------------------------------------------------- pltgot.c
out=$BIN/pltgot-v3
gcc -B "$TC/v3/bin/" -Wa,--gsframe -g -O2 -fno-builtin -Wall -Wextra \
    -ffile-prefix-map="$REPO"=. -o "$out" testdata/src/pltgot.c
check_version "$out" x86_64 3
"$TC/v3/bin/objdump" -d -j .plt.got "$out" | grep -q '<labs@plt>:' || die "pltgot-v3 calls labs elsewhere than through .plt.got"
[ "$("$out" 0)" = ready ] || die "pltgot-v3 0 did not print ready"
cp "$out" "$REPO/cmd/sfdbg/demotarget/pltgot-v3"
echo "built pltgot-v3 ($(stat -c %s "$out") bytes, SFrame v3, labs@plt in .plt.got)"
