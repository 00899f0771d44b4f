#!/bin/bash
# build-sqlite.sh - builds the large benchmark fixtures testdata/bin/sqlite-v2
# and sqlite-v3 (SQLite amalgamation + testdata/src/sqlite-main.c, gcc -O2,
# no -g) and their golden dumps in testdata/golden.  Called by
# build-fixtures.sh; can be run alone.
#
# The amalgamation comes from the Go module github.com/mattn/go-sqlite3
# (sqlite3-binding.c/.h, SQLite 3.54.1 in v1.14.53), fetched through the Go
# module proxy with `go mod download`.  The C code is compiled to assembler
# once and that same .s is assembled with binutils 2.44 and 2.47.50, so the
# two binaries differ only in their SFrame version.
#
# Env:   SFDBG_TOOLCHAINS      toolchain dir (default /tmp/sfdbg-toolchains)
#        SFDBG_SQLITE_MODULE   module@version (default github.com/mattn/go-sqlite3@v1.14.53)
# Needs: gcc, go (with module proxy access or a filled module cache), sed.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
MOD=${SFDBG_SQLITE_MODULE:-github.com/mattn/go-sqlite3@v1.14.53}

need gcc "compiles SQLite"
need go "fetches the SQLite amalgamation from the Go module proxy" golang-go
need sed
ensure_toolchains

TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
mkdir -p "$BIN" "$GOLDEN"

# `go mod download` of an explicit module@version works outside a module.
json=$(cd "$TMP" && GOFLAGS=-mod=mod GO111MODULE=on go mod download -json "$MOD") \
  || die "go mod download $MOD failed (no Go module proxy access?): $json"
DIR=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p' <<<"$json")
[ -n "$DIR" ] && [ -f "$DIR/sqlite3-binding.c" ] && [ -f "$DIR/sqlite3-binding.h" ] \
  || die "no sqlite3-binding.c/.h in the module dir '$DIR' of $MOD"
ver=$(sed -n 's/^#define SQLITE_VERSION *"\(.*\)"/\1/p' "$DIR/sqlite3-binding.h" | head -1)
echo "SQLite $ver from $MOD"

# sqlite3-binding.c is the plain amalgamation (it defines SQLITE_CORE and
# SQLITE_AMALGAMATION itself) wrapped in #ifndef USE_LIBSQLITE3; nothing else
# is needed.  No threads, no dlopen: only libc and libm.
CFLAGS=(-O2 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 -I"$DIR"
        -ffile-prefix-map="$DIR"=sqlite -ffile-prefix-map="$REPO"=.)
cd "$REPO"
echo "compiling the amalgamation (about 30 s)..."
gcc "${CFLAGS[@]}" -S -o "$TMP/sqlite3.s" "$DIR/sqlite3-binding.c"
gcc "${CFLAGS[@]}" -Wall -S -o "$TMP/main.s" testdata/src/sqlite-main.c

for v in 2 3; do
  out=$BIN/sqlite-v$v
  as=$(tool x86_64 $v as)
  "$as" --gsframe -o "$TMP/sqlite3-v$v.o" "$TMP/sqlite3.s"
  "$as" --gsframe -o "$TMP/main-v$v.o" "$TMP/main.s"
  gcc -B "$TC/v$v/bin/" -o "$out" "$TMP/main-v$v.o" "$TMP/sqlite3-v$v.o" -lm
  check_version "$out" x86_64 $v
  got=$("$out" 3) || die "sqlite-v$v 3 failed"
  [ "$got" = ready ] || die "sqlite-v$v printed '$got', not 'ready'"
  golden sqlite-v$v x86_64 $v
  hdr=$("$(tool x86_64 3 objdump)" --sframe=.sframe "$out" | sed -n 's/^ *Num \(FDEs\|FREs\): *\([0-9]*\)/\1=\2/p' | tr '\n' ' ')
  size=$(readelf -SW "$out" | sed -n 's/^ *\[ *[0-9]*\] \.sframe  *[^ ]*  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
  size=$((16#${size:-0}))
  echo "built sqlite-v$v: $(stat -c %s "$out") bytes, .sframe $size bytes, ${hdr}(SFrame v$v)"
done
compat_summary
