#!/bin/bash
# build-compressed-fixtures.sh - testdata/compressed/: fixtures whose DWARF
# sections are SHF_COMPRESSED, as in distributions' separate debug files
# (libc6-dbg), for frames/lazylines_test.go:
#   inline2-v3-O2-zlib  inline.c and objlib.c (two compilation units, so
#                       that the second starts past byte 0 of .debug_info)
#                       built as testdata/bin/inline-v3-O2 is, with the
#                       .debug_* sections compressed (objcopy
#                       --compress-debug-sections=zlib)
# Needs: binutils 2.47.50 ($SFDBG_TOOLCHAINS/v3/bin/objcopy, scripts/toolchains.sh)
# and gcc.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
ensure_toolchains
OBJCOPY=$TC/v3/bin/objcopy
[ -x "$OBJCOPY" ] || die "$OBJCOPY missing"
need gcc
mkdir -p "$REPO/testdata/compressed"
temp_dir
out=$REPO/testdata/compressed/inline2-v3-O2-zlib
cd "$REPO"
gcc -B "$TC/v3/bin/" -Wa,--gsframe -g -O2 -fomit-frame-pointer -Wall -Wextra \
    -ffile-prefix-map="$REPO"=. -o "$TMP/plain" testdata/src/inline.c testdata/src/objlib.c
"$OBJCOPY" --compress-debug-sections=zlib "$TMP/plain" "$out"
[ "$(readelf --debug-dump=info "$out" | grep -c 'Compilation Unit @')" -ge 2 ] || die "$out has fewer than two units"
[ "$(readelf -SW "$out" | grep -c '\.debug_.* C ')" -gt 0 ] || die "$out has no compressed section"
echo "built $out"
