#!/bin/bash
# hostile-cfi.sh - issue 18's 20 MB target for DWARF CFI: adds an 18 MB
# hostile .debug_frame to a copy of testdata/bin/sqlite-v3 (1,178 FDEs
# that start 64 bytes apart in .text, each declaring the rest of .text and
# advancing one byte 16,000 times: overlapping FDEs with a row at every
# byte, the worst case of rows per input byte) and runs `sfdbg check` on it
# under /usr/bin/time, printing the wall time and peak RSS. The target:
# < 2 s and < 256 MB. (Before CFI rows were bounded by the code and by the
# next FDE's start: 67 s and 8.9 GB.)
#
# Usage: scripts/hostile-cfi.sh [SFDBG]   (default: builds ./cmd/sfdbg)
# Needs: python3, objcopy, readelf, GNU time (/usr/bin/time).
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
need python3 "writes the hostile section" python3
need objcopy "adds it to the fixture" binutils
need /usr/bin/time "measures time and memory" time
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SFDBG=${1:-}
if [ -z "$SFDBG" ]; then
  (cd "$REPO" && go build -o "$TMP/sfdbg" ./cmd/sfdbg)
  SFDBG=$TMP/sfdbg
fi
read -r text size < <(readelf -SW "$BIN/sqlite-v3" | awk '$2 == ".text" { print strtonum("0x" $4), strtonum("0x" $6) }')
python3 - "$text" "$size" "$TMP/hostile.debug_frame" <<'PY'
import struct, sys
text, size, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def rec(body):
    while (4 + len(body)) % 8:
        body += b'\x00'
    return struct.pack('<I', len(body)) + body
# CIE: id 0xffffffff, version 1, no augmentation, code align 1, data align
# -8, RA column 16; CFA = rsp+8, RA at CFA-8.
buf = bytearray(rec(struct.pack('<I', 0xffffffff) + bytes([1, 0, 1, 0x78, 16, 0x0c, 7, 8, 0x90, 1])))
k = 0
while len(buf) < 18 << 20:
    start = text + 64 * k
    buf += rec(struct.pack('<IQQ', 0, start, text + size - start) + bytes([0x41]) * 16000)  # DW_CFA_advance_loc 1
    k += 1
open(out, 'wb').write(buf)
print(f"hostile .debug_frame: {len(buf)} bytes, {k} FDEs")
PY
objcopy --add-section .debug_frame="$TMP/hostile.debug_frame" "$BIN/sqlite-v3" "$TMP/sqlite-hostile"
echo "input: $(stat -c %s "$TMP/sqlite-hostile") bytes"
status=0
/usr/bin/time -f "check: %e s wall, %U s user, %M KB peak RSS" "$SFDBG" check "$TMP/sqlite-hostile" > "$TMP/out" 2>"$TMP/err" || status=$?
tail -1 "$TMP/err"
echo "exit status $status (1: the hostile rows disagree with SFrame): $(grep -c . "$TMP/out") lines of report"
