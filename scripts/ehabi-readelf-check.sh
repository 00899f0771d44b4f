#!/bin/sh
# Compares `sfdbg dump FILE` with `readelf -u FILE` on ARM/C6000 ELF files
# (default: every shared library in /usr/arm-linux-gnueabihf/lib, Debian's
# armhf libc.so.6 among them: apt-get install libc6-armhf-cross
# binutils-multiarch). Objects work too (members extracted from libc.a).
# Prints one line per differing file and a tally; a file readelf prints
# nothing for counts as differing. Exit 1 if any differs.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)/sfdbg
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$root" && go build -o "$bin" ./cmd/sfdbg)
[ $# -gt 0 ] || set -- $(find /usr/arm-linux-gnueabihf/lib -type f -name '*.so*' 2>/dev/null | sort)
same=0 differ=0 entries=0
for f in "$@"; do
	case $(od -An -N4 -tx1 "$f" | tr -d ' \n') in
	7f454c46) ;;
	*) echo "not ELF, skipped: $f"; continue ;;
	esac
	want=$(readelf -u "$f" 2>/dev/null) || true
	got=$("$bin" dump "$f" 2>/dev/null) || true
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
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
