#!/bin/sh
# Compares `sfdbg dump FILE` with `readelf -u FILE` on ARM/C6000 ELF files
# (default: every ELF file in /usr/arm-linux-gnueabihf/lib, Debian's armhf
# libc.so.6 among them: apt-get install libc6-armhf-cross binutils-multiarch).
# Prints one line per differing file and a tally; exit 1 if any differs.
set -eu
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/sfdbg
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/sfdbg
[ $# -gt 0 ] || set -- $(find /usr/arm-linux-gnueabihf/lib -type f -name '*.so*' 2>/dev/null | sort)
same=0 differ=0 entries=0
for f in "$@"; do
	want=$(readelf -u "$f" 2>/dev/null) || true
	got=$("$bin" dump "$f" 2>/dev/null) || true
	if [ "$want" = "$got" ]; then
		same=$((same + 1))
		n=$(printf '%s\n' "$want" | grep -c '^0x' || true)
		entries=$((entries + n))
	else
		differ=$((differ + 1))
		echo "differs: $f"
	fi
done
echo "ehabi-readelf-check: $same files identical ($entries index entries), $differ differ"
[ "$differ" -eq 0 ]
