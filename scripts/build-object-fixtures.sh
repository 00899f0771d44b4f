#!/bin/bash
# build-object-fixtures.sh - rebuilds the relocatable object, archive and
# LLVM fixtures in testdata/obj from testdata/src/objsections.c and
# objlib.c:
#   objsections-v{1,2,3}.o      gcc -O2 -c with GNU as 2.40, 2.44, 2.47.50 (SFrame v1, v2, v3)
#   objsections-fs-v3.o         the same with -ffunction-sections (a section per function)
#   objlib-v3.o, objlib-nosframe.o   objlib.c with and without --gsframe
#   libobj-v3.a                 objsections-fs-v3.o, objlib-v3.o, objlib-nosframe.o
#   objsections-clang{22,23}.o, objlib-clang22.o   clang's integrated assembler (SFrame v2)
#   objsections-lld22           lld 22 links objsections-clang22.o and objlib-clang22.o:
#                               its .sframe is the two objects' sections back to back
# and the references in testdata/golden/obj:
#   NAME.objdump                objdump --sframe of the matching binutils (2.40 for v1,
#                               2.44 for v2, 2.47.50 for v3 and for clang's objects)
#   NAME.readobj                llvm-readobj --sframe (clang's objects and the lld link)
#   NAME.insn                   objdump -d instruction lengths (fixtures-lib.sh insn_golden)
#
# Usage: scripts/build-object-fixtures.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains); binutils
#                          from scripts/toolchains.sh, clang/lld from
#                          scripts/llvm-toolchains.sh, both run when missing.
# Needs: gcc (host, Debian 12's gcc 12 was used), ar, apt-get and dpkg-deb
#        plus Debian package access when the toolchains are missing.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

need gcc "builds the objects"; need ar "" binutils
[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host"
ensure_toolchains
if [ ! -x "$TC/llvm-22/bin/clang" ] || [ ! -x "$TC/llvm-23/bin/clang" ]; then
  note "installing clang 22 and 23 into $TC with scripts/llvm-toolchains.sh"
  bash "$REPO/scripts/llvm-toolchains.sh" "$TC" >&2 || die "scripts/llvm-toolchains.sh failed"
fi

OBJ=$REPO/testdata/obj
GOBJ=$GOLDEN/obj
mkdir -p "$OBJ" "$GOBJ"
rm -f "$OBJ"/* "$GOBJ"/*
cd "$REPO"
CFLAGS=(-O2 -Wall -Wextra -ffile-prefix-map="$REPO"=.)
LLVM_SFRAME=-Wa,--gsframe,--allow-experimental-sframe

# objgolden NAME OBJDUMP-VERSION: the objdump and instruction goldens.
objgolden() {
  local f=$OBJ/$1 g=$GOBJ/$1
  "$TC/v$2/bin/objdump" --sframe=.sframe "$f" | trim > "$g.objdump"
  [ -s "$g.objdump" ] || die "objdump $2 printed no SFrame section for $1"
  BIN=$OBJ GOLDEN=$GOBJ insn_golden "$1"
}

for v in 1 2 3; do
  gcc -B "$TC/v$v/bin/" -Wa,--gsframe "${CFLAGS[@]}" -c -o "$OBJ/objsections-v$v.o" testdata/src/objsections.c
  objgolden objsections-v$v.o $v
done
gcc -B "$TC/v3/bin/" -Wa,--gsframe "${CFLAGS[@]}" -ffunction-sections -c -o "$OBJ/objsections-fs-v3.o" testdata/src/objsections.c
objgolden objsections-fs-v3.o 3
gcc -B "$TC/v3/bin/" -Wa,--gsframe "${CFLAGS[@]}" -c -o "$OBJ/objlib-v3.o" testdata/src/objlib.c
objgolden objlib-v3.o 3
gcc -B "$TC/v3/bin/" "${CFLAGS[@]}" -c -o "$OBJ/objlib-nosframe.o" testdata/src/objlib.c
(cd "$OBJ" && ar rcD libobj-v3.a objsections-fs-v3.o objlib-v3.o objlib-nosframe.o)

for v in 22 23; do
  "$TC/llvm-$v/bin/clang" $LLVM_SFRAME "${CFLAGS[@]}" -c -o "$OBJ/objsections-clang$v.o" testdata/src/objsections.c
  objgolden objsections-clang$v.o 3
  "$TC/llvm-$v/bin/llvm-readobj" --sframe "$OBJ/objsections-clang$v.o" | sed 1,2d > "$GOBJ/objsections-clang$v.o.readobj"
done
"$TC/llvm-22/bin/clang" $LLVM_SFRAME "${CFLAGS[@]}" -c -o "$OBJ/objlib-clang22.o" testdata/src/objlib.c
objgolden objlib-clang22.o 3
# clang spawns its cc1 for a compile-and-link, which cannot run outside the
# wrapper: compile and link are separate steps.
"$TC/llvm-22/bin/clang" -fuse-ld=lld --ld-path="$TC/llvm-22/bin/ld.lld" -Wl,--build-id=none \
    -o "$OBJ/objsections-lld22" "$OBJ/objsections-clang22.o" "$OBJ/objlib-clang22.o"
"$TC/llvm-22/bin/llvm-readobj" --sframe "$OBJ/objsections-lld22" | sed 1,2d > "$GOBJ/objsections-lld22.readobj"
BIN=$OBJ GOLDEN=$GOBJ insn_golden objsections-lld22
out=$("$OBJ/objsections-lld22" 4) || die "objsections-lld22 failed"
echo "objsections-lld22 printed: $out"
ls -l "$OBJ"
