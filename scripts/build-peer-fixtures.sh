#!/bin/bash
# build-peer-fixtures.sh - rebuilds testdata/peers: small files of the
# kinds the producers' own SFrame test suites build (issue 19;
# scripts/peer-suites.sh runs those suites), from testdata/src/peers-*.s
# with GNU binutils 2.47.50 (SFrame v3):
#   peers.o           as --gsframe peers-x86_64.s: a plain function, a signal
#                     trampoline GNU as marks "S" and gives no FRE, an FRE
#                     at a function's end (.cfi_* after the last instruction)
#   peers.so          ld -shared peers.o
#   peers-x32.o       objcopy -O elf32-x86-64 peers.o (x32: ELF32 AMD64,
#                     Elf32_Rela relocations), as ld-x86-64's sframe-x32 test
#   peers-x32.so      ld -shared -m elf32_x86_64 peers-x32.o
#   peers-renamed.o   objcopy --rename-section .sframe=.sframe2 peers.o
#   peers-nocfi.o     as --gsframe peers-nocfi.s (.cfi_sections .sframe: no CFI)
#   peers-nocfi.so    ld -shared --no-ld-generated-unwind-info peers-nocfi.o
#   peers-empty.o     as peers-empty.s: an empty .sframe section
#   peers-skip.o      as --gsframe peers-skip.s: a function GNU as skips
#   peers-skip-clang.o  the same with a .comment naming clang 22
#   peers.a           ar rcD of peers.o, peers-x32.o and peers-nocfi.o
# and NAME.objdump, objdump --sframe (--sframe=.sframe2 for the renamed
# one) run in testdata/peers, so the file is named NAME as given.
#
# Usage: scripts/build-peer-fixtures.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains),
#                          made by scripts/toolchains.sh when missing.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host"
ensure_toolchains
temp_dir
B=$TC/v3/bin
OUT=$REPO/testdata/peers
mkdir -p "$OUT"
rm -f "$OUT"/peers*
cd "$OUT"
"$B/as" --gsframe -o peers.o "$SRC/peers-x86_64.s" 2>/dev/null # warns of the signal trampoline's CFI
"$B/ld" -shared -o peers.so peers.o
"$B/objcopy" -O elf32-x86-64 peers.o peers-x32.o
"$B/ld" -shared -m elf32_x86_64 -o peers-x32.so peers-x32.o
"$B/objcopy" --rename-section .sframe=.sframe2 peers.o peers-renamed.o
"$B/as" --gsframe -o peers-nocfi.o "$SRC/peers-nocfi.s"
"$B/ld" -shared --no-ld-generated-unwind-info -o peers-nocfi.so peers-nocfi.o
"$B/as" -o peers-empty.o "$SRC/peers-empty.s"
"$B/as" --gsframe -o peers-skip.o "$SRC/peers-skip.s" 2>/dev/null # warns of the skipped function
{ cat "$SRC/peers-skip.s"; printf '\t.section .comment,"MS",@progbits,1\n\t.asciz "clang version 22.1.8"\n'; } > "$TMP/skip-clang.s"
"$B/as" --gsframe -o peers-skip-clang.o "$TMP/skip-clang.s" 2>/dev/null
for f in peers.o peers.so peers-x32.o peers-x32.so; do
  "$B/objdump" --sframe "$f" > "$f.objdump"
done
"$B/objdump" --sframe=.sframe2 peers-renamed.o > peers-renamed.o.objdump
ar rcD peers.a peers.o peers-x32.o peers-nocfi.o
"$B/objdump" --sframe peers.a > peers.a.objdump
for f in peers-nocfi.o peers-nocfi.so; do
  if "$B/readelf" -S "$f" | grep -q 'eh_frame\|debug_frame'; then die "$f has CFI"; fi
done
note "wrote $(ls | wc -l) files to $OUT"
