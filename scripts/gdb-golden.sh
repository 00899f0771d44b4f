#!/bin/bash
# gdb-golden.sh - reference backtraces from gdb for the deep.c, inline.c, tailcall.c and
# noreturn.c fixtures:
# starts testdata/bin/deep-* in a mode with ASLR off (setarch -R), waits for
# "ready", runs `gdb -batch -p PID -ex 'thread apply all bt'`, kills the
# process, and saves the output (PID/LWP numbers replaced by PID/LWP) as
# testdata/golden/gdb-NAME-MODE.txt.  These are for people and for eyeballing
# sfdbg's own unwinds; addresses inside libc depend on the host's libc.
#
# Usage: scripts/gdb-golden.sh [NAME:MODE ...]
#        default: deep-v3-O2:spin deep-v3-O0:signal deep-v3-O2:signal
#                 deep-v3-O2:threads deep-v3-O0:sleep inline-v3-O2:spin tailcall-v3-O2:spin
#                 noreturn-v3-O2:{spin,exit,abort,threads}
#                 noreturn-v{1,2}-O2:threads
# Needs: gdb, setarch (util-linux), ptrace permission over own children
#        (kernel.yama.ptrace_scope <= 1, or root), testdata/bin built.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
need gdb "attaches to the fixtures"
need setarch "disables ASLR for stable addresses" util-linux
need timeout "" coreutils

CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(deep-v3-O2:spin deep-v3-O0:signal deep-v3-O2:signal deep-v3-O2:threads deep-v3-O0:sleep inline-v3-O2:spin tailcall-v3-O2:spin
  noreturn-v3-O2:spin noreturn-v3-O2:exit noreturn-v3-O2:abort noreturn-v3-O2:threads
  noreturn-v1-O2:threads noreturn-v2-O2:threads)

TMP=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
cd "$REPO"   # DWARF says comp_dir ".", file testdata/src/deep.c: gdb finds the source from here

for c in "${CASES[@]}"; do
  name=${c%%:*} mode=${c#*:}
  [ -x "$BIN/$name" ] || die "$BIN/$name missing: run scripts/build-fixtures.sh first"
  setarch "$(uname -m)" -R "$BIN/$name" "$mode" > "$TMP/out" 2>&1 &
  PID=$!
  for _ in $(seq 100); do grep -q '^ready$' "$TMP/out" && break; sleep 0.05; done
  grep -q '^ready$' "$TMP/out" || die "$name $mode never printed ready"
  sleep 0.2   # let every thread reach its innermost function
  timeout 120 gdb -batch -nx -iex 'set debuginfod enabled off' -p "$PID" \
      -ex 'set pagination off' -ex 'thread apply all bt' > "$TMP/gdb" 2>&1 \
    || { cat "$TMP/gdb" >&2; die "gdb failed on $name $mode (ptrace not permitted?)"; }
  kill "$PID"; wait "$PID" 2>/dev/null || true; p=$PID; PID=
  {
    echo "# gdb -batch -p PID -ex 'thread apply all bt' on: $name $mode (setarch -R, $(gdb --version | head -1))"
    sed -e 's/LWP [0-9][0-9]*/LWP N/g' -e "s/\b$p\b/PID/g" "$TMP/gdb"
  } > "$GOLDEN/gdb-$name-$mode.txt"
  echo "wrote testdata/golden/gdb-$name-$mode.txt"
done
