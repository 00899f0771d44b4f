# fixtures-lib.sh - shared helpers for build-fixtures.sh, build-sqlite.sh,
# gdb-golden.sh, batch-compare.sh and bench.sh.  Source it; it sets REPO, TC,
# SRC, BIN, GOLDEN.
#
# Toolchains (see testdata/README.md):
#   $TC/v1/bin   host binutils 2.40   (SFrame v1)   x86-64
#   $TC/v2/bin   Debian trixie 2.44   (SFrame v2)   x86-64
#   $TC/v3/bin   Debian forky 2.47.50 (SFrame v3)   x86-64
#   $TC/cross-v2/bin/{aarch64,s390x}-linux-gnu-*   trixie 2.44
#   $TC/cross-v3/bin/{aarch64,s390x}-linux-gnu-*   forky 2.47.50
# TC is $SFDBG_TOOLCHAINS, default /tmp/sfdbg-toolchains.  The x86-64 ones
# come from scripts/toolchains.sh, the
# cross ones from scripts/cross-toolchains.sh; both are run when missing.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TC=${SFDBG_TOOLCHAINS:-/tmp/sfdbg-toolchains}
SRC=$REPO/testdata/src
BIN=$REPO/testdata/bin
GOLDEN=$REPO/testdata/golden
# Fixed, reproducible metadata.
export LC_ALL=C TZ=UTC SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}

die() { echo "$(basename "$0"): error: $*" >&2; exit 1; }
note() { echo "$(basename "$0"): $*" >&2; }

# need CMD [why]: fail clearly when a host command is missing.
need() {
  command -v "$1" >/dev/null 2>&1 || die "needs '$1'${2:+ ($2)}; install it (Debian: apt-get install ${3:-$1})"
}

# temp_dir: TMP, a temporary directory removed on exit, and PID, empty; a
# target process whose ID the script puts in PID is killed and reaped on
# exit.  INT and TERM exit with status 130 (through the EXIT trap).
temp_dir() {
  TMP=$(mktemp -d)
  PID=
  trap temp_cleanup EXIT
  trap 'exit 130' INT TERM
}
temp_cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}

# sfdbg_binary [VAR=VALUE...]: set SFDBG to $SFDBG_BIN if given, else build
# ./cmd/sfdbg of this checkout into $TMP (after temp_dir), with the
# environment assignments given.
sfdbg_binary() {
  if [ -n "${SFDBG_BIN:-}" ]; then
    [ -x "$SFDBG_BIN" ] || die "SFDBG_BIN=$SFDBG_BIN is not an executable"
    SFDBG=$SFDBG_BIN
    return 0
  fi
  need go "builds sfdbg" golang-go
  SFDBG=$TMP/sfdbg
  (cd "$REPO" && env "$@" go build -o "$SFDBG" ./cmd/sfdbg) || die "go build ./cmd/sfdbg failed"
}

# ensure_toolchains: the three x86-64 binutils.
ensure_toolchains() {
  local v t missing=0
  for v in v1 v2 v3; do for t in as ld objdump readelf; do
    [ -x "$TC/$v/bin/$t" ] || missing=1
  done; done
  [ $missing = 0 ] && return 0
  local script="$REPO/scripts/toolchains.sh"
  need apt-get "toolchains.sh downloads Debian binutils packages"
  need dpkg-deb "toolchains.sh unpacks Debian packages" dpkg
  note "installing x86-64 binutils into $TC with $script"
  bash "$script" "$TC" >&2 || die "$script failed"
  for v in v1 v2 v3; do for t in as ld objdump readelf; do
    [ -x "$TC/$v/bin/$t" ] || die "$TC/$v/bin/$t still missing after toolchains.sh"
  done; done
}

# ensure_cross: aarch64 and s390x binutils 2.44 and 2.47.50.
ensure_cross() {
  local v a missing=0
  for v in cross-v2 cross-v3; do for a in aarch64 s390x; do
    [ -x "$TC/$v/bin/$a-linux-gnu-objdump" ] || missing=1
  done; done
  [ $missing = 0 ] && return 0
  note "installing cross binutils into $TC with scripts/cross-toolchains.sh"
  bash "$REPO/scripts/cross-toolchains.sh" "$TC" >&2 || die "scripts/cross-toolchains.sh failed"
}

# tool ARCH VER NAME: path of binutils program NAME (as, ld, objdump, ...)
# for ARCH (x86_64, aarch64, s390x) and SFrame version VER (1, 2, 3).
tool() {
  case $1 in
    x86_64) echo "$TC/v$2/bin/$3" ;;
    *) [ "$2" != 1 ] || die "no v1 cross toolchain"; echo "$TC/cross-v$2/bin/$1-linux-gnu-$3" ;;
  esac
}

# trim: keep objdump/readelf output from the SFrame section header on.
trim() { sed -n '/^Contents of the SFrame section \.sframe:/,$p'; }

# sframe_version FILE ARCH: the SFrame version of FILE's .sframe section, as
# decoded by the newest binutils (or 2.40 for v1, which 2.47.50 rejects).
sframe_version() {
  local out
  out=$("$(tool "$2" 3 objdump)" --sframe=.sframe "$1" 2>/dev/null | trim || true)
  if [ -z "$out" ] && [ "$2" = x86_64 ]; then
    out=$("$(tool x86_64 1 objdump)" --sframe=.sframe "$1" 2>/dev/null | trim || true)
  fi
  sed -n 's/^ *Version: SFRAME_VERSION_\([0-9]*\).*/\1/p' <<<"$out" | head -1
}

# check_version FILE ARCH VER: fail unless FILE is an ELF file for ARCH
# (x86_64, aarch64, s390x) whose .sframe is version VER, as both the newest
# objdump and readelf of binutils VER (the one that made it; cross for
# aarch64 and s390x) decode it.
check_version() {
  local got machine
  machine=$("$(tool "$2" 3 readelf)" -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p')
  case $2:$machine in
    x86_64:*X86-64|aarch64:AArch64|s390x:*S/390) ;;
    *) die "$(basename "$1"): expected an $2 ELF file, readelf says machine '${machine:-none}'" ;;
  esac
  got=$(sframe_version "$1" "$2")
  [ "$got" = "$3" ] || die "$(basename "$1"): expected SFrame v$3, objdump says '${got:-no .sframe}'"
  got=$("$(tool "$2" "$3" readelf)" --sframe=.sframe "$1" 2>/dev/null | trim \
    | sed -n 's/^ *Version: SFRAME_VERSION_\([0-9]*\).*/\1/p' | head -1 || true)
  [ "$got" = "$3" ] || die "$(basename "$1"): expected SFrame v$3, readelf of binutils v$3 says '${got:-no .sframe}'"
}

# dump ARCH VER PROG FILE OUT: PROG (objdump|readelf) of binutils VER on FILE,
# trimmed, into OUT; fails when empty.
dump() {
  local p; p=$(tool "$1" "$2" "$3")
  local opt=--sframe=.sframe
  "$p" $opt "$4" 2>"$5.err" | trim > "$5" || true
  if [ ! -s "$5" ]; then
    cat "$5.err" >&2; rm -f "$5" "$5.err"
    die "$3 $2 produced no SFrame dump for $(basename "$4")"
  fi
  [ -s "$5.err" ] && { note "$(basename "$5"): stderr: $(cat "$5.err")"; }
  rm -f "$5.err"
}

# golden NAME ARCH VER: write testdata/golden/NAME.* for testdata/bin/NAME.
#   v2, v3: NAME.objdump, NAME.readelf (binutils 2.47.50, cross for other ABIs)
#   v2:     NAME.objdump-2.44 (binutils 2.44)
#   v1:     NAME.objdump-2.40, NAME.readelf-2.40, NAME.objdump-2.44
#           (2.47.50 cannot decode v1)
golden() {
  local name=$1 arch=$2 ver=$3 f=$BIN/$1 g=$GOLDEN/$1
  mkdir -p "$GOLDEN"
  rm -f "$g".objdump "$g".readelf "$g".objdump-2.44 "$g".objdump-2.40 "$g".readelf-2.40
  case $ver in
    1) dump "$arch" 1 objdump "$f" "$g.objdump-2.40"
       dump "$arch" 1 readelf "$f" "$g.readelf-2.40"
       dump "$arch" 2 objdump "$f" "$g.objdump-2.44" ;;
    2|3)
       dump "$arch" 3 objdump "$f" "$g.objdump"
       dump "$arch" 3 readelf "$f" "$g.readelf"
       [ "$ver" = 2 ] && dump "$arch" 2 objdump "$f" "$g.objdump-2.44" ;;
  esac
  return 0
}

# compat_summary: testdata/golden/objdump-2.44-vs-2.47.txt says, for every v2
# fixture, whether binutils 2.44 and 2.47.50 objdump print the same dump.
compat_summary() {
  local out=$GOLDEN/objdump-2.44-vs-2.47.txt f n
  {
    echo "# For each SFrame v2 fixture: is 'objdump --sframe=.sframe' output of"
    echo "# binutils 2.44 (NAME.objdump-2.44) byte-identical to 2.47.50's (NAME.objdump)?"
    echo "# Written by scripts/fixtures-lib.sh compat_summary."
    for f in "$GOLDEN"/*.objdump-2.44; do
      n=$(basename "$f" .objdump-2.44)
      [ -f "$GOLDEN/$n.objdump" ] || continue
      if cmp -s "$f" "$GOLDEN/$n.objdump"; then echo "$n: identical"
      else echo "$n: differs ($(diff "$f" "$GOLDEN/$n.objdump" | grep -c '^[<>]') lines)"; fi
    done
  } > "$out"
}

# insn_golden NAME: testdata/golden/NAME.insn, the instruction boundaries
# of every executable section of x86-64 testdata/bin/NAME as objdump -d -z
# (binutils 2.47.50) delimits them; compare/x86len_test.go checks sfdbg's
# decoder against it.  One line per block that objdump decodes from its
# start (a symbol, a synthetic PLT symbol or a section start): section
# name, start address in hex, and each instruction's length as one hex
# digit (objdump prints at most 15 bytes: --insn-width=16 keeps each
# instruction on one line).
insn_golden() {
  local f=$BIN/$1 out=$GOLDEN/$1.insn
  {
    echo "# objdump -d -z --insn-width=16 $1 ($("$(tool x86_64 3 objdump)" --version | head -1)): section, block start, instruction lengths"
    "$(tool x86_64 3 objdump)" -d -z --insn-width=16 "$f" | awk '
      /^Disassembly of section /{ sec=$4; sub(/:$/,"",sec); next }
      /^[0-9a-f]+ <.*>:$/ { if (line!="") print line; a=$1; sub(/^0+/,"",a); if (a=="") a="0"; line=sec " " a " "; next }
      /^ *[0-9a-f]+:\t/ { split($0, f, "\t"); n=split(f[2], b, " "); line=line sprintf("%x", n); next }
      END { if (line!="") print line }'
  } > "$out"
  grep -q '^\.text' "$out" || die "insn_golden $1: objdump found no instructions in .text*"
}
