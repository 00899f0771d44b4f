#!/bin/bash
# build-asm-corpus.sh - builds the real-world corpus of hand-written x86-64
# assembly (issue 20, "Real world") with SFrame: Debian bookworm source
# packages assembled by GNU as 2.47.50 (SFrame v3) with --gsframe, for
# `sfdbg check`.  Nothing it builds is committed: the corpus is big and is
# rebuilt from the Debian sources.
#
# Usage: build-asm-corpus.sh OUTDIR [PACKAGE...]
#   PACKAGE: openssl glibc gmp libgcrypt luajit libffi musl (default: all, in that order)
#
# Layout of OUTDIR:
#   src/                     the unpacked Debian sources (apt-get source)
#   PACKAGE/obj/*.o          one object per assembly source, with .sframe
#   PACKAGE/*.so             the objects linked into one shared library
#                            (-shared -nostdlib; see link_so), where it links
#   PACKAGE/build.log        the package's full build log
#   PACKAGE/how.txt          version, number of objects, how built
#   MANIFEST                 all how.txt files, one block per package
#
# Every package is time-boxed (SFDBG_CORPUS_TIMEOUT seconds, default 1200)
# and run under nice -n 10 with make -j${SFDBG_CORPUS_JOBS:-2}; a package
# that fails or times out is reported and skipped, the others go on.
#
# Env:   SFDBG_TOOLCHAINS      toolchain dir (default /tmp/sfdbg-toolchains)
#        SFDBG_CORPUS_TIMEOUT  seconds per package (default 1200)
#        SFDBG_CORPUS_JOBS     make -j (default 2)
# Needs: apt-get with deb-src lines for bookworm (see the note printed when
#        apt-get source finds nothing), dpkg-source, gcc, make, perl, m4,
#        libgpg-error-dev (libgcrypt's configure).
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

TIMEOUT=${SFDBG_CORPUS_TIMEOUT:-1200}
JOBS=${SFDBG_CORPUS_JOBS:-2}
ALL=(openssl glibc gmp libgcrypt luajit libffi musl)

# The Debian source package of each corpus package.
srcpkg() {
  case $1 in
    openssl) echo openssl ;; glibc) echo glibc ;; gmp) echo gmp ;;
    libgcrypt) echo libgcrypt20 ;; luajit) echo luajit ;; libffi) echo libffi ;; musl) echo musl ;;
    *) die "unknown package '$1' (known: ${ALL[*]})" ;;
  esac
}

# fetch PACKAGE: unpack the Debian source of PACKAGE under $OUT/src and set
# SRCDIR and VERSION.  When the newest version's files are not in the
# archive (a security index can list a version the pool no longer has),
# the other versions apt knows are tried, newest first.
fetch() {
  local sp v dir
  sp=$(srcpkg "$1")
  mkdir -p "$OUT/src"
  dir=$(find "$OUT/src" -maxdepth 1 -type d -name "$sp-[0-9]*" | sort | tail -1)
  if [ -z "$dir" ]; then
    apt-cache showsrc "$sp" 2>/dev/null | grep -q '^Version:' || die "apt-cache knows no source package '$sp':
add a deb-src entry (e.g. /etc/apt/sources.list.d/debian-src.sources with
'Types: deb-src', the URIs/Suites/Components/Signed-By of debian.sources), then apt-get update"
    local ok=0
    for v in $(apt-cache showsrc "$sp" | sed -n 's/^Version: //p' | sort -rV | uniq); do
      if (cd "$OUT/src" && apt-get source -q "$sp=$v"); then ok=1; break; fi
      note "$sp $v: apt-get source failed, trying an older version"
    done
    [ $ok = 1 ] || die "apt-get source $sp failed for every version"
    dir=$(find "$OUT/src" -maxdepth 1 -type d -name "$sp-[0-9]*" | sort | tail -1)
  fi
  SRCDIR=$dir
  VERSION=$(sed -n 's/^Version: //p' "$(ls "$OUT"/src/"$sp"_*.dsc | sort -V | tail -1)")
}

# link_so NAME OBJ...: link the objects into NAME, a shared library without
# libc that is never run, only read: every symbol the objects use and none
# defines gets a hidden 8-byte stand-in in .data (stub-NAME.o, no code, no CFI),
# so PC-relative references to hidden symbols (glibc's cpu features,
# OpenSSL's OPENSSL_cpuid_setup) link, and each symbol version the objects
# name (.symver) gets an empty version node; -Bsymbolic binds the objects'
# own global data (libmvec's tables, PC-relative) locally.  A failure is
# noted, not fatal.
link_so() {
  local name=$1 sym type v; shift
  local stub=$PKG_OUT/stub-${name%.so}
  # NAME TYPE of every global symbol: TYPE is UND for a use.
  readelf -sW "$@" | awk '$1 ~ /^[0-9]+:$/ && NF >= 8 && ($5 == "GLOBAL" || $5 == "WEAK") {
      n = $8; sub(/@.*/, "", n); print n, ($7 == "UND" ? "UND:" $4 : "DEF") }' | sort -u > "$stub.syms"
  {
    awk '$2 == "DEF" {def[$1] = 1} $2 ~ /^UND/ {use[$1] = $2}
         END {for (s in use) if (!(s in def)) print s, use[s]}' "$stub.syms" | sort |
    while read -r sym type; do
      case $sym in _GLOBAL_OFFSET_TABLE_|_DYNAMIC|"") continue ;; esac
      if [ "$type" = UND:TLS ]; then
        printf '.section .tbss,"awT",@nobits\n.type %s,@tls_object\n' "$sym"
      else
        printf '.data\n.type %s,@object\n' "$sym"
      fi
      printf '.globl %s\n.hidden %s\n.size %s,8\n%s: .zero 8\n' "$sym" "$sym" "$sym" "$sym"
    done
    echo '.section .note.GNU-stack,"",@progbits'
  } > "$stub.s"
  { readelf -sW "$@" | grep -o '@@*[A-Za-z_][A-Za-z0-9_.]*' || true; } | sed 's/^@*//' | sort -u |
    while read -r v; do echo "$v { };"; done > "$stub.map"
  local vs=; [ -s "$stub.map" ] && vs=-Wl,--version-script="$stub.map"
  if $CC -c -o "$stub.o" "$stub.s" && $CC -shared -nostdlib -Wl,-z,noexecstack -Wl,-Bsymbolic $vs \
       -o "$PKG_OUT/$name" "$@" "$stub.o"; then
    echo "linked $name from $# objects ($(grep -c '^\.globl' "$stub.s") undefined symbols stubbed)"
  else
    note "$PKG: linking $name failed (the objects are still there)"
    rm -f "$PKG_OUT/$name"
  fi
}

# ---------------------------------------------------------------- openssl
# perlasm: each crypto/**/asm/*-x86_64.pl (and the AVX2/AVX-512 RSA ones)
# prints GNU as source with .cfi_* directives for the "elf" flavour.  The
# scripts ask $CC's assembler for its version to decide which instruction
# sets (AVX, AVX2, AVX-512, ADX, SHA) to emit: with as 2.47.50 they emit all.
build_openssl() {
  local gen name pl
  cd "$SRCDIR"
  mkdir -p "$PKG_OUT/s"
  # GENERATE[out.s]=script.pl from every build.info (the script's path is
  # relative to that build.info), x86-64 ones only.
  grep -r --include=build.info -o 'GENERATE\[[^]]*x86_64[^]]*\.s\]=[^ ]*\.pl\|GENERATE\[rsaz-avx[^]]*\.s\]=[^ ]*\.pl' . |
  sort -u | while IFS=: read -r bi gen; do
    name=${gen#GENERATE[}; name=${name%%]*}
    pl=$(dirname "$bi")/${gen#*=}
    case $name in uplink-*) continue ;; esac   # Windows only
    echo "perlasm $pl -> $name"
    CC="$CC" perl "$pl" elf "$PKG_OUT/s/$name" || { note "openssl: $pl failed"; continue; }
    $CC -c -o "$PKG_OUT/obj/${name%.s}.o" "$PKG_OUT/s/$name" || note "openssl: assembling $name failed"
  done
  link_so libcrypto-asm.so "$PKG_OUT"/obj/*.o
  HOW="perl crypto/.../asm/X.pl elf X.s (every x86_64 GENERATE of build.info, less uplink); \$CC -c X.s; linked -shared -nostdlib"
}

# ---------------------------------------------------------------- glibc
# Configure in a build dir, then make only parts of some subdirs (the
# generated headers they need come first; about 8 min on 2 busy cores):
#   string, wcsmbs (subdir_lib): the x86-64 string and wide-string functions,
#     sysdeps/x86_64{,/multiarch}/*.S -> libc-string-asm.so;
#   setjmp (subdir_lib): setjmp, __longjmp (pointer mangling of SP/FP/PC);
#   mathvec (objects): libmvec's SVML functions,
#     sysdeps/x86_64/fpu/multiarch/svml_*.S (stack realignment with a frame
#     pointer, DW_CFA_expression) -> libmvec-asm.so;
#   the other x86-64 .S files of libc, libm and ld.so, one object each
#     (GLIBC_EXTRA below; their gen-as-const headers are made first from csu
#     and misc): dl-trampoline (xsave, realignment), dl-tlsdesc, start,
#     crti/crtn, *context, clone, vfork, syscall, ____longjmp_chk, mpn
#     helpers, x87 long double math -> libc-misc-asm.so.
# Of each subdir it keeps the shared-library objects (.os) whose source (the
# first prerequisite in the .os.d or .os.dt dependency file) is a .S.  Their
# ENTRY and END macros emit .cfi_startproc/.cfi_endproc.
GLIBC_EXTRA=(
  "csu: start crti crtn"
  "elf: dl-trampoline dl-tlsdesc tls_get_addr"
  "stdlib: getcontext setcontext swapcontext __start_context add_n addmul_1 lshift mul_1 rshift sub_n submul_1"
  "misc: clone clone3 syscall"
  "posix: vfork"
  "debug: ____longjmp_chk"
  "math: e_exp10l e_exp2l e_expl e_fmodl e_ilogbl e_log10l e_log2l e_logl e_powl e_remainderl e_scalbl
   s_ceill s_expm1l s_finitel s_floorl s_fmax s_fmaxf s_fmaxl s_fmin s_fminf s_fminl s_llrint s_llrintf
   s_llrintl s_log1pl s_lrint s_lrintf s_lrintl s_nearbyintl s_scalbnl s_signbit s_signbitf s_truncl"
)
build_glibc() {
  local b=$PKG_OUT/build dt src o dir line names n
  mkdir -p "$b"; cd "$b"
  "$SRCDIR/configure" --prefix=/usr --disable-werror --disable-nscd --disable-profile \
    CC="$CC" CXX=no > configure.log 2>&1 || { tail -20 configure.log; die "glibc: configure failed"; }
  # setjmp first and alone: the generated headers every subdir needs
  # (libc-abis.h, Versions.mk, ...) race under make -j2 (a cmp of a file
  # another job just moved, a Versions.mk with NUL bytes).
  make -j1 setjmp/subdir_lib
  # Then the gen-as-const headers that csu and misc make in a full build
  # before any other subdir: without tcb-offsets.h the generic
  # sysdeps/nptl/tcb-offsets.h leaves POINTER_GUARD a symbol.  setjmp is
  # made again with them.
  (cd "$SRCDIR/csu" && make objdir="$b" subdir=csu ..=../ "$b"/{cpu-features-offsets,link-defines,tlsdesc,rtld-offsets,ucontext_i,tcb-offsets}.h)
  (cd "$SRCDIR/misc" && make objdir="$b" subdir=misc ..=../ "$b/sigaltstack-offsets.h")
  rm -f setjmp/*.o setjmp/*.os setjmp/*.d setjmp/*.dt setjmp/stamp.*
  make -j"$JOBS" setjmp/subdir_lib string/subdir_lib wcsmbs/subdir_lib
  make -j"$JOBS" mathvec/objects
  for line in "${GLIBC_EXTRA[@]}"; do
    dir=${line%%:*}; names=${line#*:}
    (cd "$SRCDIR/$dir" && make -k -j"$JOBS" objdir="$b" subdir="$dir" ..=../ $(for n in $names; do echo "$b/$dir/$n.os"; done)) ||
      note "glibc: some of $dir's objects failed: $names"
  done
  for dir in string wcsmbs setjmp mathvec csu elf stdlib misc posix debug math; do
    mkdir -p "$PKG_OUT/obj-$dir"
    for o in "$dir"/*.os; do
      [ -e "$o" ] || continue
      dt=$o.d; [ -f "$dt" ] || dt=$o.dt
      [ -f "$dt" ] || { note "glibc: no dependency file for $o"; continue; }
      src=$(sed 's/\\$//' "$dt" | tr '\n' ' ' | sed 's/^[^:]*: *//' | awk '{print $1}')
      case $src in *.S) ;; *) continue ;; esac
      n=$(basename "${o%.os}").o
      [ -e "$PKG_OUT/obj/$n" ] && die "glibc: two objects named $n"
      cp "$o" "$PKG_OUT/obj/$n"
      ln -s "../obj/$n" "$PKG_OUT/obj-$dir/$n"
      echo "$dir: ${src#../} -> $n"
    done
  done
  link_so libc-string-asm.so "$PKG_OUT"/obj-string/*.o "$PKG_OUT"/obj-wcsmbs/*.o
  link_so libmvec-asm.so "$PKG_OUT"/obj-mathvec/*.o
  link_so libc-misc-asm.so $(ls "$PKG_OUT"/obj-{setjmp,csu,elf,stdlib,misc,posix,debug,math}/*.o 2>/dev/null)
  HOW="configure --disable-werror CC=\$CC; make string/subdir_lib wcsmbs/subdir_lib setjmp/subdir_lib mathvec/objects, then single .os targets in csu elf stdlib misc posix debug math (GLIBC_EXTRA); the .os objects built from .S (obj-DIR/ links them per subdir); string+wcsmbs, mathvec and the rest each linked -shared -nostdlib"
}

# ---------------------------------------------------------------- gmp
# mpn's x86-64 assembly (m4 -> .s -> .o) for every CPU: a fat build
# (--enable-fat) assembles each CPU's variant of every mpn function.  The
# Debian source lacks doc/ (DFSG), so an empty doc/Makefile.in stands in.
# gmp's x86-64 assembly has no .cfi_* directives: gas emits neither
# .eh_frame nor .sframe for it, and the code oracle has only the symbols.
build_gmp() {
  local b=$PKG_OUT/build s
  [ -f "$SRCDIR/doc/Makefile.in" ] || { mkdir -p "$SRCDIR/doc"; printf 'all:\n\t@:\n%%:\n\t@:\n' > "$SRCDIR/doc/Makefile.in"; }
  mkdir -p "$b"; cd "$b"
  "$SRCDIR/configure" --enable-fat --disable-static --build=x86_64-pc-linux-gnu \
    CC="$CC" > configure.log 2>&1 || { tail -20 configure.log; die "gmp: configure failed"; }
  make -j"$JOBS" $(sed -n '/^BUILT_SOURCES *=/,/[^\\]$/p' Makefile | sed 's/BUILT_SOURCES *=//; s/\\//g')
  make -j"$JOBS" -C mpn
  for s in mpn/*.asm; do
    s=$(basename "${s%.asm}")
    [ -f "mpn/.libs/$s.o" ] && cp "mpn/.libs/$s.o" "$PKG_OUT/obj/$s.o"
  done
  link_so libgmp-mpn-asm.so "$PKG_OUT"/obj/*.o
  HOW="configure --enable-fat --disable-static CC=\$CC; make BUILT_SOURCES; make -C mpn; the PIC objects of mpn/*.asm; linked -shared -nostdlib (no CFI in the sources: no .sframe)"
}

# ---------------------------------------------------------------- libgcrypt
# cipher/*-amd64.S and the mpi/amd64 assembly (configure links them as
# mpi/mpih-*-asm.S).  Their CFI comes from asm-common-amd64.h's CFI_*
# macros, on when config.h has HAVE_GCC_ASM_CFI_DIRECTIVES.
build_libgcrypt() {
  local b=$PKG_OUT/build f
  mkdir -p "$b"; cd "$b"
  "$SRCDIR/configure" --disable-doc CC="$CC" > configure.log 2>&1 || { tail -20 configure.log; die "libgcrypt: configure failed"; }
  grep -q '^#define HAVE_GCC_ASM_CFI_DIRECTIVES 1' config.h || note "libgcrypt: config.h has no HAVE_GCC_ASM_CFI_DIRECTIVES: no CFI"
  make -C cipher $(cd "$SRCDIR/cipher" && ls *-amd64.S | sed 's/\.S$/.lo/')
  make -C mpi $(cd mpi && ls *-asm.S | sed 's/\.S$/.lo/')
  for f in cipher/.libs/*.o mpi/.libs/*.o; do cp "$f" "$PKG_OUT/obj/"; done
  link_so libgcrypt-asm.so "$PKG_OUT"/obj/*.o
  HOW="configure --disable-doc CC=\$CC; make -C cipher *-amd64.lo; make -C mpi mpih-*-asm.lo; the PIC objects; linked -shared -nostdlib"
}

# ---------------------------------------------------------------- luajit
# The interpreter: buildvm turns src/vm_x64.dasc into lj_vm.S (elfasm mode),
# which $CC assembles.  lj_vm.S has no .cfi_* directives: buildvm writes the
# interpreter's .eh_frame as raw bytes, so gas makes no .sframe for it; the
# C parts of libluajit.so do have .sframe.
build_luajit() {
  local b=$PKG_OUT/build
  rm -rf "$b"; cp -a "$SRCDIR" "$b"; cd "$b"
  make -j"$JOBS" -C src CC="$CC" Q=
  cp src/lj_vm.o src/lj_vm_dyn.o "$PKG_OUT/obj/"
  cp src/lj_vm.S "$PKG_OUT/"
  cp src/libluajit.so "$PKG_OUT/libluajit.so"
  HOW="make -C src CC=\$CC (buildvm -m elfasm -> lj_vm.S -> lj_vm.o, lj_vm_dyn.o); libluajit.so as built (C with .sframe, lj_vm without)"
}

# ---------------------------------------------------------------- libffi
# src/x86/unix64.S and win64.S (ffi_call_unix64, the closure trampolines):
# their CFI is a hand-written .eh_frame section (the .cfi_* lines are
# comments), so gas makes no .sframe for them; libffi.so's C parts have it.
build_libffi() {
  local b=$PKG_OUT/build f
  mkdir -p "$b"; cd "$b"
  "$SRCDIR/configure" --disable-docs --disable-static CC="$CC" > configure.log 2>&1 || { tail -20 configure.log; die "libffi: configure failed"; }
  make -j"$JOBS"
  for f in "$SRCDIR"/src/x86/*.S; do
    f=$(basename "${f%.S}")
    [ -f "src/x86/.libs/$f.o" ] && cp "src/x86/.libs/$f.o" "$PKG_OUT/obj/"
  done
  cp "$(find . -name 'libffi.so.*.*' -type f | head -1)" "$PKG_OUT/libffi.so"
  HOW="configure --disable-docs --disable-static CC=\$CC; make; the PIC objects of src/x86/*.S that x86-64 builds; libffi.so as built (C with .sframe, the .S without: hand-written .eh_frame)"
}

# ---------------------------------------------------------------- musl
# src/*/x86_64/*.s: string, setjmp, signal (__restore_rt), thread (clone,
# __syscall_cp_asm), ldso (tlsdesc, dlsym), math (x87) and fenv.  musl's
# sources have no CFI: with --enable-debug its Makefile pipes each .s
# through tools/add-cfi.x86_64.awk, which writes .cfi_* directives from the
# instructions it reads (push, pop, add/sub on rsp, mov rsp to rbp) - CFI
# made from the code by a script, not by hand.
build_musl() {
  local b=$PKG_OUT/build src o
  mkdir -p "$b"; cd "$b"
  "$SRCDIR/configure" --enable-debug CC="$CC" > configure.log 2>&1 || { tail -20 configure.log; die "musl: configure failed"; }
  grep -q '^ADD_CFI = yes' config.mak || note "musl: ADD_CFI is not yes: no CFI"
  make -j"$JOBS" $(cd "$SRCDIR" && ls src/*/x86_64/*.[sS] | sed 's/^/obj\//; s/\.[sS]$/.lo/')
  for src in $(cd "$SRCDIR" && ls src/*/x86_64/*.[sS]); do
    o=$(basename "${src%.[sS]}").o
    [ -e "$PKG_OUT/obj/$o" ] && die "musl: two objects named $o"
    cp "obj/${src%.[sS]}.lo" "$PKG_OUT/obj/$o"
  done
  link_so libc-asm.so "$PKG_OUT"/obj/*.o
  HOW="configure --enable-debug CC=\$CC (ADD_CFI=yes: CFI from tools/add-cfi.x86_64.awk); make obj/src/*/x86_64/*.lo; the PIC objects; linked -shared -nostdlib"
}

# ---------------------------------------------------------------- dispatch
# one PACKAGE: build one package (run under timeout by the main loop).
one() {
  PKG=$1
  PKG_OUT=$OUT/$PKG
  rm -rf "$PKG_OUT"
  mkdir -p "$PKG_OUT/obj"
  fetch "$PKG"
  echo "== $PKG $VERSION in $SRCDIR"
  HOW=
  "build_$PKG"
  local n
  n=$(find "$PKG_OUT" -name '*.o' -path '*/obj/*' | wc -l)
  [ "$n" -gt 0 ] || die "$PKG: no objects built"
  {
    echo "package: $PKG (Debian source $(srcpkg "$PKG") $VERSION)"
    echo "objects: $n in $PKG_OUT/obj"
    for so in "$PKG_OUT"/*.so; do [ -e "$so" ] && echo "library: $so"; done
    echo "how: $HOW"
    echo "files:"
    (cd "$PKG_OUT/obj" && ls *.o) | sed 's/\.o$//' | tr '\n' ' ' | fold -s -w 96 | sed 's/^/  /; s/ *$//'
    echo
  } > "$PKG_OUT/how.txt"
  cat "$PKG_OUT/how.txt"
}

# All of the rest is one function, read whole before it runs.
main() {
  if [ "${1:-}" = --link ]; then   # --link OUTDIR PACKAGE NAME [OBJ...]: link again only
    OUT=$2 PKG=$3 PKG_OUT=$2/$3
    CC="gcc -B $TC/v3/bin/ -Wa,--gsframe"
    local name=$4; shift 4
    [ $# -gt 0 ] || set -- "$PKG_OUT"/obj/*.o
    link_so "$name" "$@"
    exit 0
  fi
  if [ "${1:-}" = --one ]; then
    OUT=$2
    CC="gcc -B $TC/v3/bin/ -Wa,--gsframe"
    export LC_ALL=C
    one "$3"
    exit 0
  fi

  [ $# -ge 1 ] || die "usage: $(basename "$0") OUTDIR [${ALL[*]}]"
  OUT=$(mkdir -p "$1" && cd "$1" && pwd); shift
  PKGS=("$@"); [ ${#PKGS[@]} -gt 0 ] || PKGS=("${ALL[@]}")
  need apt-get; need dpkg-source "unpacks Debian sources" dpkg-dev
  need gcc; need make; need perl; need m4; need timeout "" coreutils
  ensure_toolchains

  failed=()
  for p in "${PKGS[@]}"; do
    srcpkg "$p" >/dev/null
    start=$(date +%s)
    if nice -n 10 timeout "$TIMEOUT" bash "$0" --one "$OUT" "$p" > "$OUT/$p.log" 2>&1; then
      echo "$p: built in $(( $(date +%s) - start )) s: $(sed -n 's/^objects: //p' "$OUT/$p/how.txt")"
    else
      rc=$?
      [ $rc = 124 ] && why="timed out after $TIMEOUT s" || why="failed (exit $rc)"
      echo "$p: $why; see $OUT/$p.log:"; tail -5 "$OUT/$p.log" | sed 's/^/    /'
      failed+=("$p")
    fi
    mkdir -p "$OUT/$p"; mv -f "$OUT/$p.log" "$OUT/$p/build.log"
  done
  cat "$OUT"/*/how.txt > "$OUT/MANIFEST" 2>/dev/null || true
  echo "corpus in $OUT; manifest $OUT/MANIFEST${failed:+; failed: ${failed[*]}}"
}
main "$@"; exit
