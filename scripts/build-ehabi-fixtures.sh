#!/bin/sh
# Rebuilds the armhf fixtures of frames/ehabi (ELF files with .ARM.exidx
# and .ARM.extab built by arm-linux-gnueabihf-gcc -funwind-tables) and the
# readelf -u goldens of every fixture there, the generated ARM/C6000 ones
# included (go test -update writes those files and runs readelf).
# Needs: apt-get install gcc-arm-linux-gnueabihf libc6-dev-armhf-cross binutils-multiarch
set -eu
cd "$(dirname "$0")/../frames/ehabi/testdata"
CC=${CC:-arm-linux-gnueabihf-gcc}
for arch in arm thumb; do
	"$CC" -O2 -funwind-tables -m$arch -o armhf-calls-$arch.elf src/calls.c
	"$CC" -O2 -fexceptions -m$arch -o armhf-cleanup-$arch.elf src/cleanup.c
done
"$CC" -O0 -fno-omit-frame-pointer -funwind-tables -o armhf-calls-O0.elf src/calls.c
# With -g: .debug_frame, the CFI that check compares EHABI with
# (compare/ehabicheck_test.go).
for arch in arm thumb; do
	"$CC" -O2 -g -funwind-tables -m$arch -o armhf-check-$arch.elf src/check.c
done
"$CC" -O0 -g -fno-omit-frame-pointer -funwind-tables -o armhf-check-O0.elf src/check.c
# Relocatable objects: R_ARM_PREL31 relocations, one index section per
# function section, personality routines named by their relocation.
"$CC" -O2 -funwind-tables -c -o armhf-calls-obj.elf src/calls.c
"$CC" -O2 -fexceptions -ffunction-sections -c -o armhf-cleanup-fsections-obj.elf src/cleanup.c
"$CC" -O2 -fexceptions -mthumb -c -o armhf-cleanup-thumb-obj.elf src/cleanup.c
cd ../../..
go test ./frames/ehabi -run 'TestGeneratedFixturesAreCommitted|TestDumpEqualsReadelfGolden' -update
