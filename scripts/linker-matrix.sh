#!/bin/bash
# linker-matrix.sh - every linker judged on the same SFrame objects.
#
# Assembles testdata/src/linkmat-{main,lib}.c and linkmat-asm.s once with GNU
# as 2.47.50 --gsframe (gcc -O2 -ffunction-sections), then links those same
# objects with each linker installed, with each option, and judges each
# output with `sfdbg diff --link OUTPUT OBJECT...`: what the linker did with
# the objects' .sframe sections (merged into one, concatenated back to back,
# or dropped), whether it wrote PT_GNU_SFRAME and whether that covers
# exactly .sframe, whether each object's functions keep their SFrame rows,
# and which of check's disagreements on the output are the linker's.
# Prints the matrix as Markdown (README's "Every linker judged" table).
#
# Usage: linker-matrix.sh [--build-only] OUTDIR
#   OUTDIR/obj/*.o                  the objects (as 2.47.50, SFrame v3)
#   OUTDIR/obj-v2/*.o               the same C and .s through as 2.44 (SFrame v2)
#   OUTDIR/LINKER/OPTION            each output; OUTDIR/LINKER/inputs lists its objects
#   OUTDIR/LINKER/OPTION.err        the linker's stderr
#   OUTDIR/LINKER/absent            why the linker was not run
# --build-only builds and stops (cmd/sfdbg's TestLinkerMatrix judges in-process).
#
# Linkers: GNU ld 2.47.50 and 2.44 ($SFDBG_TOOLCHAINS/v3, v2), gold
# (ld.gold on PATH), lld 22 ($SFDBG_TOOLCHAINS/llvm-22/bin/ld.lld, from
# scripts/llvm-toolchains.sh, else ld.lld-22 or ld.lld on PATH), mold (on
# PATH; Debian: apt-get install mold).  An absent one gets a row saying so.
# Options: PIE (gcc's default here), -no-pie, --gc-sections, --icf=all
# (not GNU ld: it has none), -z separate-code, -static, -r.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
BUILD_ONLY=0
if [ "${1:-}" = --build-only ]; then BUILD_ONLY=1; shift; fi
[ $# = 1 ] || { echo "usage: $0 [--build-only] OUTDIR" >&2; exit 2; }
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
need gcc "compiles and drives the links"
ensure_toolchains
V3=$TC/v3/bin V2=$TC/v2/bin

# The objects, once per assembler.
CFLAGS=(-O2 -ffunction-sections -fno-stack-protector)
build_objs() { # DIR BINUTILS
  mkdir -p "$1"
  for f in main lib; do
    gcc -B "$2/" -Wa,--gsframe "${CFLAGS[@]}" -c "$SRC/linkmat-$f.c" -o "$1/$f.o"
  done
  "$2/as" --gsframe "$SRC/linkmat-asm.s" -o "$1/asm.o"
}
build_objs "$OUT/obj" "$V3"
build_objs "$OUT/obj-v2" "$V2"

# LINKER slug, objects dir, gcc flags that pick the linker, the linker for -r.
LINKERS=(ld-2.47.50 ld-2.44 ld-2.44-v2objects gold lld-22 mold)
mkdir -p "$OUT/lld-bin"
LLD=
for c in "$TC/llvm-22/bin/ld.lld" "$(command -v ld.lld-22 || true)" "$(command -v ld.lld || true)"; do
  if [ -n "$c" ] && [ -x "$c" ] && "$c" --version 2>/dev/null | grep -q 'LLD 22'; then LLD=$c; break; fi
done
[ -n "$LLD" ] && ln -sf "$LLD" "$OUT/lld-bin/ld.lld"
setup() { # sets OBJS, GCCLD (array), RLD; returns 1 with WHY when absent
  WHY= OBJS=$OUT/obj
  case $1 in
    ld-2.47.50) GCCLD=(-B "$V3/"); RLD=$V3/ld ;;
    ld-2.44) GCCLD=(-B "$V2/"); RLD=$V2/ld ;;
    ld-2.44-v2objects) OBJS=$OUT/obj-v2; GCCLD=(-B "$V2/"); RLD=$V2/ld ;;
    gold) command -v ld.gold >/dev/null || { WHY="no ld.gold on PATH (Debian: binutils-gold)"; return 1; }
      GCCLD=(-B "$V3/" -fuse-ld=gold); RLD=$(command -v ld.gold) ;;
    lld-22) [ -n "$LLD" ] || { WHY="no ld.lld 22 (scripts/llvm-toolchains.sh, or apt-get install lld-22)"; return 1; }
      GCCLD=(-B "$OUT/lld-bin/" -fuse-ld=lld); RLD=$LLD ;;
    mold) command -v mold >/dev/null || { WHY="no mold on PATH (Debian: apt-get install mold)"; return 1; }
      GCCLD=(-B "$V3/" -fuse-ld=mold); RLD=$(command -v mold) ;;
  esac
}
OPTIONS=(pie no-pie gc-sections icf-all separate-code static r)
link() { # LINKER OPTION OUTPUT: 0 linked, 1 failed, 2 not applicable
  local objs=("$OBJS/main.o" "$OBJS/lib.o" "$OBJS/asm.o")
  case $2 in
    r) "$RLD" -r "${objs[@]}" -o "$3" ;;
    pie) gcc "${GCCLD[@]}" "${objs[@]}" -o "$3" ;;
    no-pie) gcc "${GCCLD[@]}" -no-pie "${objs[@]}" -o "$3" ;;
    gc-sections) gcc "${GCCLD[@]}" -Wl,--gc-sections "${objs[@]}" -o "$3" ;;
    icf-all) case $1 in ld-*) return 2 ;; esac
      gcc "${GCCLD[@]}" -Wl,--icf=all "${objs[@]}" -o "$3" ;;
    separate-code) gcc "${GCCLD[@]}" -Wl,-z,separate-code "${objs[@]}" -o "$3" ;;
    static) gcc "${GCCLD[@]}" -static "${objs[@]}" -o "$3" ;;
  esac
}
for l in "${LINKERS[@]}"; do
  d=$OUT/$l; rm -rf "$d"; mkdir -p "$d"
  if ! setup "$l"; then echo "$WHY" > "$d/absent"; continue; fi
  echo "$OBJS/main.o $OBJS/lib.o $OBJS/asm.o" > "$d/inputs"
  for o in "${OPTIONS[@]}"; do
    st=0; link "$l" "$o" "$d/$o" 2> "$d/$o.err" || st=$?
    case $st in
      0) ;;
      2) echo "not applicable" > "$d/$o.na"; rm -f "$d/$o.err" ;;
      *) rm -f "$d/$o" ;;
    esac
  done
done
[ $BUILD_ONLY = 1 ] && exit 0

temp_dir
sfdbg_binary
echo "| linker | option | .sframe | PT_GNU_SFRAME | SFrame rows vs the objects | disagreements the linker caused |"
echo "|---|---|---|---|---|---|"
for l in "${LINKERS[@]}"; do
  d=$OUT/$l
  if [ -f "$d/absent" ]; then echo "| $l | all | absent: $(cat "$d/absent") | | | |"; continue; fi
  for o in "${OPTIONS[@]}"; do
    if [ -f "$d/$o.na" ]; then echo "| $l | $o | not applicable | | | |"; continue; fi
    if [ ! -f "$d/$o" ]; then echo "| $l | $o | link fails: $(head -1 "$d/$o.err" | sed 's/.*: //; s/|/\\|/g') | | | |"; continue; fi
    # shellcheck disable=SC2046
    v=$("$SFDBG" diff --link "$d/$o" $(cat "$d/inputs") | sed -n 's/^verdict: //p' | sed 's/; / | /g') || true
    echo "| $l | $o | $v |"
  done
done
