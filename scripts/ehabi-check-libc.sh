#!/bin/sh
# Runs `sfdbg check` (EHABI against CFI at every call site) on Debian's
# armhf libc.so.6 joined with its .debug_frame and .symtab from
# libc6-dbg:armhf, then on a copy whose first inline "vsp += 4k+4"
# opcode has k raised by 4: the first must be clean (exit 0), the second
# caught (exit 1). Needs root for the armhf package lists (dpkg
# --add-architecture armhf; apt-get update) and eu-unstrip (elfutils).
# Usage: scripts/ehabi-check-libc.sh [WORKDIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
if ! ls libc6_*_armhf.deb >/dev/null 2>&1 || ! ls libc6-dbg_*_armhf.deb >/dev/null 2>&1; then
	dpkg --print-foreign-architectures | grep -qx armhf || { dpkg --add-architecture armhf && apt-get update -q; }
	apt-get download libc6:armhf libc6-dbg:armhf
fi
rm -rf libc dbg && mkdir libc dbg
dpkg-deb -x libc6_*_armhf.deb libc
dpkg-deb -x libc6-dbg_*_armhf.deb dbg
lib=$(find libc -name libc.so.6 | head -1)
id=$(readelf -n "$lib" | awk '/Build ID/ {print $3}')
eu-unstrip "$lib" "dbg/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" -o libc-full.so.6
(cd "$root" && go build -o "$work/sfdbg" ./cmd/sfdbg)
status=0
./sfdbg check libc-full.so.6 || status=$?
echo "clean libc.so.6: exit $status (want 0)"
python3 - libc-full.so.6 mutant.so.6 <<'PY'
import struct, subprocess, sys
d = bytearray(open(sys.argv[1], 'rb').read())
out = subprocess.run(['readelf', '-SW', sys.argv[1]], capture_output=True, text=True).stdout
off = next(int(l.split()[4], 16) if l.split()[0] != '[' else int(l.split()[5], 16) for l in out.splitlines() if '.ARM.exidx' in l)
size = next(int(l.split()[5], 16) if l.split()[0] != '[' else int(l.split()[6], 16) for l in out.splitlines() if '.ARM.exidx' in l)
for i in range(0, size, 8):
    w = struct.unpack_from('<I', d, off + i + 4)[0]
    if w >> 24 == 0x80 and (w >> 16) & 0xc0 == 0 and (w >> 16) & 0x3f <= 0x3b:
        struct.pack_into('<I', d, off + i + 4, w + (4 << 16))
        print('changed entry at .ARM.exidx+%#x: %#x -> %#x' % (i, w, w + (4 << 16)))
        break
open(sys.argv[2], 'wb').write(d)
PY
mstatus=0
./sfdbg check mutant.so.6 >mutant.txt || mstatus=$?
grep -v '^    skipped' mutant.txt
echo "changed opcode: exit $mstatus (want 1)"
[ "$status" -eq 0 ] && [ "$mstatus" -eq 1 ]
