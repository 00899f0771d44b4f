#!/usr/bin/env bash
# sfdbg live on arm64 and s390x, in a full-system VM of that machine, its
# frames compared with gdb-multiarch's (issue 31, part 3).
#
# Usage: scripts/vm-test.sh ARCH        (ARCH: arm64 or s390x)
#   env: SFDBG_VM_DIR (default /tmp/sfdbg-vm): downloads and the VM's files;
#        SFDBG_TOOLCHAINS (default /tmp/sfdbg-toolchains): cross binutils.
#
# Nothing of the VM is committed: the script fetches it all from Debian's
# package registry (after "dpkg --add-architecture ARCH"):
#   - Debian 12's own kernel (linux-image-ARCH:ARCH), booted with
#     qemu-system-aarch64 -M virt -cpu max,sve=off (pointer authentication
#     on; SVE off because gdb-multiarch 13.1 loops on the SVE record of a
#     signal frame) or qemu-system-s390x, under TCG, with no disk;
#   - busybox-static:ARCH for the initramfs's shell;
#   - GNU binutils 2.47.50 for ARCH (scripts/cross-toolchains.sh), behind
#     Debian's cross gcc 12, which build the fixtures testdata/src/deep.c and
#     crash.c statically with --gsframe (arm64: -mbranch-protection=standard,
#     so return addresses are signed; s390x: -mbackchain);
#   - sfdbg itself, cross-built with GOARCH=ARCH.
#
# Inside the VM, /init runs sfdbg live (each step between "=== BEGIN NAME"
# and "=== END NAME rc=N" on the console):
#   bt-deep      bt --method all of deep.c's sleep mode (one thread, 13
#                frames through nanosleep); then SIGABRT, whose core (made by
#                the VM's kernel at the same stop) comes back to the host;
#   bt-threads   bt --method all of the threads mode (four threads), then
#                SIGABRT and its core, likewise;
#   attach       attach -batch to the sleep mode: break nanosleep (called
#                every second), continue, bt, info registers pc, x/3i $pc,
#                stepi, info registers pc, detach; the target must run on
#                after the detach;
#   catch        catch --all-threads of crash.c, whose SIGSEGV catch prints,
#                then delivers: the kernel's core is the same stop;
#   watch        attach -batch to the spin mode: watch spin_count, continue
#                twice (arm64: two stops, the store done at each; s390x:
#                refused with a sentence), detach; the target runs on;
#   sample       sample -n 200 of deep.c's spin mode;
#   core-*       sfdbg core on each core, inside the VM;
#   verify-signal  verify of presignal_spin, the SIGALRM handler on_signal
#                (entered by the kernel while presignal_spin is stepped)
#                and its callees sig_chain1, sig_chain2 and spin_here (which
#                never returns: run at full speed, as verify --function runs
#                other calls, it would not end), 20,000 steps;
#   verify-exit  verify of the static deep.c (exit mode, 0 ms) from its first
#                instruction, for 30,000 instructions (TCG steps about 800
#                instructions a second).
# The cores come back base64-encoded on the console. On the host,
# gdb-multiarch reads each core ("thread apply all bt"), and every frame
# gdb shows must name the function of sfdbg's frame of the same number,
# both in sfdbg's live output at that stop and in sfdbg core. The last line
# gives the counts; the exit status is 0 only if every step passed and every
# frame agreed.
#
# Needs: apt-get, dpkg-deb, qemu-system-arm or qemu-system-misc,
# gcc-aarch64-linux-gnu / gcc-s390x-linux-gnu with libc6-dev-ARCH-cross,
# gdb-multiarch, python3, go. About 3 minutes for arm64, 4 for s390x, once
# the downloads are cached.
set -euo pipefail
ARCH=${1:-}
case $ARCH in
arm64) GNU=aarch64 QEMU=qemu-system-aarch64 ;;
s390x) GNU=s390x QEMU=qemu-system-s390x ;;
*) echo "usage: scripts/vm-test.sh arm64|s390x" >&2; exit 2 ;;
esac
REPO=$(cd "$(dirname "$0")/.." && pwd)
VM=${SFDBG_VM_DIR:-/tmp/sfdbg-vm}/$ARCH
TC=${SFDBG_TOOLCHAINS:-/tmp/sfdbg-toolchains}
die() { echo "vm-test.sh: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null || die "needs $1 ($2)"; }
need apt-get "Debian's package tool"
need dpkg-deb "Debian's package tool"
need "$QEMU" "Debian package qemu-system-arm or qemu-system-misc"
need "$GNU-linux-gnu-gcc" "Debian package gcc-$GNU-linux-gnu and libc6-dev-$ARCH-cross"
need gdb-multiarch "Debian package gdb-multiarch"
need python3 "python3"
need go "Go"
mkdir -p "$VM/debs" "$VM/root"

# ---- downloads (cached in $VM/debs)
dpkg --print-foreign-architectures | grep -qx "$ARCH" || {
	dpkg --add-architecture "$ARCH" && apt-get -qq update
} || die "cannot add architecture $ARCH (run as root)"
fetch() { # PACKAGE:ARCH
	local pkg=${1%%:*}
	ls "$VM/debs/${pkg}_"*"_$ARCH.deb" >/dev/null 2>&1 && return 0
	(cd "$VM/debs" && apt-get -qq download "$1") || die "apt-get download $1 failed"
}
kpkg=$(apt-cache depends "linux-image-$ARCH:$ARCH" | sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -1)
[ -n "$kpkg" ] || die "no kernel package behind linux-image-$ARCH:$ARCH"
fetch "$kpkg:$ARCH"
fetch "busybox-static:$ARCH"
for d in "$VM"/debs/*.deb; do dpkg-deb -x "$d" "$VM/root"; done
KERNEL=$(ls "$VM"/root/boot/vmlinuz-* | head -1)
[ -s "$KERNEL" ] || die "no kernel in $kpkg"
"$REPO/scripts/cross-toolchains.sh" "$TC" >/dev/null

# ---- the initramfs
INIT=$VM/initramfs
rm -rf "$INIT"
mkdir -p "$INIT"/{bin,fx,proc,sys,dev,tmp}
cp "$VM/root/bin/busybox" "$INIT/bin/busybox"
(cd "$REPO" && CGO_ENABLED=0 GOARCH=$ARCH go build -trimpath -o "$INIT/bin/sfdbg" ./cmd/sfdbg)
B=$VM/as-bin
mkdir -p "$B"
ln -sf "$TC/cross-v3/bin/$GNU-linux-gnu-as" "$B/as"
ln -sf "$TC/cross-v3/bin/$GNU-linux-gnu-ld" "$B/ld"
case $ARCH in
arm64) FLAGS=(-fno-omit-frame-pointer -mbranch-protection=standard) ;;
s390x) FLAGS=(-mbackchain) ;;
esac
# crash.c is built as crash-GNU-vm, its name in testdata/cores: the name a
# core records is the program's.
CRASH=crash-$GNU-vm
for p in deep crash; do
	out=$p; [ $p = crash ] && out=$CRASH
	"$GNU-linux-gnu-gcc" -B "$B/" -Wa,--gsframe -g -O2 "${FLAGS[@]}" -static -pthread \
		-ffile-prefix-map="$REPO"=. -o "$INIT/fx/$out" "$REPO/testdata/src/$p.c"
done
# watch: arm64 continues twice to two hits; on s390x the watch is refused
# and there is no continue (the spinning target would never stop).
case $ARCH in
arm64) WATCH="-ex continue -ex continue" ;;
s390x) WATCH="" ;;
esac
printf '#!/bin/busybox sh\nCRASH=%s\nWATCH="%s"\n' "$CRASH" "$WATCH" >"$INIT/init"
cat >>"$INIT/init" <<'EOF'
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
echo '/tmp/core.%p' >/proc/sys/kernel/core_pattern
ulimit -c unlimited
export PATH=/bin
cd /fx
echo "=== VM $(uname -m) $(uname -r)"
step() { # NAME CMD...: run CMD, its output and status between markers
	name=$1; shift
	echo "=== BEGIN $name"
	"$@" 2>&1
	echo "=== END $name rc=$?"
}
# start MODE: deep.c in MODE, in the background, its stdout in /tmp/MODE.out;
# returns once it printed "ready" (deep.c's single write before its deepest
# call) and, but in spin mode, once its main thread sleeps (in nanosleep).
start() {
	./deep "$1" >/tmp/"$1".out 2>&1 &
	pid=$!
	while ! grep -q ready /tmp/"$1".out 2>/dev/null; do
		kill -0 $pid 2>/dev/null || return 1
		usleep 10000
	done
	[ "$1" = spin ] && return 0
	while [ "$(cut -d' ' -f3 /proc/$pid/stat)" != S ]; do usleep 10000; done
}
# abort_core PID NAME: SIGABRT, wait for the death, keep the core.
abort_core() {
	kill -ABRT "$1"
	wait "$1" 2>/dev/null
	mv /tmp/core."$1" /tmp/"$2".core
}
b64() { echo "=== B64 $1"; base64 "$2"; echo "=== B64END"; }

start sleep && step bt-deep sfdbg bt --method all $pid && abort_core $pid bt-deep
start threads && step bt-threads sfdbg bt --method all $pid && abort_core $pid bt-threads
start sleep
step attach sfdbg attach -batch -ex 'break nanosleep' -ex continue -ex bt -ex 'info registers pc' -ex 'x/3i $pc' -ex stepi -ex 'info registers pc' -ex detach $pid
echo "=== BEGIN attach-runs-on"
st=$(cut -d' ' -f3 /proc/$pid/stat); echo "state after detach: $st"
[ "$st" = R ] || [ "$st" = S ]
echo "=== END attach-runs-on rc=$?"
kill -9 $pid; wait $pid 2>/dev/null
start spin
step watch sfdbg attach -batch -ex 'watch spin_count' $WATCH -ex detach $pid
echo "=== BEGIN watch-runs-on"
st=$(cut -d' ' -f3 /proc/$pid/stat); echo "state after detach: $st"
[ "$st" = R ] || [ "$st" = S ]
echo "=== END watch-runs-on rc=$?"
step sample sfdbg sample -n 200 $pid
kill -9 $pid; wait $pid 2>/dev/null
step catch sfdbg catch --all-threads -- ./$CRASH
step verify-signal sfdbg verify --function presignal_spin --function on_signal --function 'sig_chain*' --function spin_here --max-instructions 20000 -- ./deep signal
step verify-exit sfdbg verify --max-instructions 30000 -- ./deep exit 0
for c in /tmp/core.*; do [ -e "$c" ] && mv "$c" /tmp/catch.core; done
for n in bt-deep bt-threads catch; do
	[ -s /tmp/$n.core ] || { echo "=== BEGIN core-$n"; echo "no core"; echo "=== END core-$n rc=1"; continue; }
	prog=deep; [ $n = catch ] && prog=$CRASH
	step core-$n sfdbg core /tmp/$n.core ./$prog
	b64 $n.core /tmp/$n.core
done
echo "=== VM-DONE"
poweroff -f
EOF
chmod +x "$INIT/init"
python3 "$REPO/scripts/vm-compare.py" cpio "$INIT" "$VM/initramfs.cpio"

# ---- boot
LOG=$VM/console.log
case $ARCH in
arm64) QARGS=(-M virt -cpu max,sve=off -m 1024 -smp 2 -append "console=ttyAMA0 panic=-1 quiet") ;;
s390x) QARGS=(-M s390-ccw-virtio -cpu max -m 1024 -smp 2 -append "console=ttysclp0 panic=-1 quiet") ;;
esac
echo "vm-test.sh: booting $(basename "$KERNEL") ($kpkg) under $QEMU; console in $LOG"
start=$(date +%s)
timeout 1800 "$QEMU" "${QARGS[@]}" -nographic -no-reboot -kernel "$KERNEL" -initrd "$VM/initramfs.cpio" </dev/null >"$LOG" 2>&1 || true
echo "vm-test.sh: the VM ran $(($(date +%s) - start)) s"
grep -q "=== VM-DONE" "$LOG" || die "the VM did not finish its steps (see $LOG)"
grep "=== VM " "$LOG" | tr -d '\r'

# ---- judge
OUT=$VM/out
rm -rf "$OUT"
python3 "$REPO/scripts/vm-compare.py" split "$LOG" "$OUT"
fail=0
cp "$INIT/fx/deep" "$INIT/fx/$CRASH" "$OUT/"
for f in "$OUT"/*.rc; do
	n=$(basename "$f" .rc)
	rc=$(cat "$f")
	want=0
	# catch exits as a shell would report the program: 128 + SIGSEGV.
	[ "$n" = catch ] && want=139
	# s390x: watch is refused (no PER events yet), so -batch exits 2.
	[ "$n" = watch ] && [ "$ARCH" = s390x ] && want=2
	# s390x under QEMU's TCG: verify stops, saying that the single step
	# does not follow calls (checked below), and exits 2.
	case $n in verify-*) [ "$ARCH" = s390x ] && grep -q "does not follow calls" "$OUT/$n.out" && want=2 ;; esac
	if [ "$rc" != $want ]; then
		echo "FAIL $n: exit status $rc"
		sed 's/^/    /' "$OUT/$n.out" | tail -20
		fail=1
	fi
done
# Every method compared at every frame: bt's "disagree" count.
for n in bt-deep bt-threads catch; do
	grep -h "frames; SFrame:" "$OUT/$n.out" | sed "s/^/$n: /" || true
done
# No method disagrees with CFI anywhere, live or in a core.
for n in bt-deep bt-threads attach catch core-bt-deep core-bt-threads core-catch; do
	if grep -q "DISAGREE\|Backtrace stopped: no module" "$OUT/$n.out"; then
		echo "FAIL $n: a disagreement or a lost frame:"
		grep "DISAGREE\|Backtrace stopped" "$OUT/$n.out" | sed 's/^/    /' | head -5
		fail=1
	fi
done
grep -q "disagrees 0," "$OUT/sample.out" || { echo "FAIL sample: SFrame disagreed"; fail=1; }
# watch: two stops, each with the store done (New value = Old value + 1),
# on arm64; the refusal's sentence on s390x.
if [ "$ARCH" = arm64 ]; then
	python3 - "$OUT/watch.out" <<'PY' || fail=1
import re, sys
t = open(sys.argv[1]).read()
pairs = re.findall(r"Old value = (\d+)\s+New value = (\d+)", t)
ok = len(pairs) == 2 and all(int(n) == int(o) + 1 for o, n in pairs)
print("watch: %d stops, %s" % (len(pairs), ", ".join("%s -> %s" % p for p in pairs)))
sys.exit(0 if ok else 1)
PY
else
	grep -q "does not set s390x PER" "$OUT/watch.out" || { echo "FAIL watch: no refusal sentence"; fail=1; }
fi
grep -q "Breakpoint 1, " "$OUT/attach.out" || { echo "FAIL attach: no breakpoint hit"; fail=1; }
# stepi moves the PC from the breakpoint (nanosleep's entry) to the next
# instruction x/3i showed.
python3 - "$OUT/attach.out" <<'PY' || fail=1
import re, sys
t = re.sub(r"\x1b\[[0-9;]*m", "", open(sys.argv[1]).read())
pcs = re.findall(r"^pc\w*\s+(0x[0-9a-f]+)", t, re.M)
insns = re.findall(r"^(?:=> )?\s*(0x[0-9a-f]+)\s*<[^>]*>:\s*(\S.*)$", t, re.M)
ok = len(pcs) == 2 and len(insns) >= 2 and int(insns[0][0], 16) == int(pcs[0], 16) and int(insns[1][0], 16) == int(pcs[1], 16)
print("stepi: %s -> %s; x/3i: %s" % (pcs[0] if pcs else "?", pcs[1] if len(pcs) > 1 else "?", " | ".join(i[1] for i in insns)))
sys.exit(0 if ok else 1)
PY
grep -q "Program terminated with signal SIGSEGV" "$OUT/catch.out" || { echo "FAIL catch: no SIGSEGV report"; fail=1; }
# verify: the handler entered by the kernel and its callees, and the
# static program's start, judged against the execution: no method wrong.
grep -q " 1 signal handlers\|does not follow calls" "$OUT/verify-signal.out" || { echo "FAIL verify-signal: the handler was not entered"; fail=1; }
for n in verify-signal verify-exit; do
	grep -h "^verify \|^sframe \|^cfi \|^code \|^fp \|verify stopped" "$OUT/$n.out" | sed "s/^/$n: /"
	if [ "$ARCH" = s390x ] && grep -q "does not follow calls" "$OUT/$n.out"; then
		# QEMU's s390x TCG (Debian 12: 7.2) stops a PTRACE_SINGLESTEP of
		# brasl at its fall-through: verify must say so and stop.
		echo "$n: s390x single-step does not follow calls under $QEMU: verify detected it and stopped"
		continue
	fi
	grep -q "No method disagreed" "$OUT/$n.out" || { echo "FAIL $n: a method disagreed with the execution:"; grep -A3 "findings:" "$OUT/$n.out" | head -12 | sed 's/^/    /'; fail=1; }
done
grep -h "^samples:\|^elapsed" "$OUT/sample.out" | sed 's/^/sample: /' || true
total_c=0 total_e=0
for n in bt-deep bt-threads catch; do
	prog=deep; [ $n = catch ] && prog=$CRASH
	gdb-multiarch -batch -ex 'set pagination off' -ex 'thread apply all bt' "$OUT/$prog" "$OUT/$n.core" >"$OUT/$n.gdb" 2>&1
	for src in "$n" "core-$n"; do
		if r=$(python3 "$REPO/scripts/vm-compare.py" frames "$OUT/$src.out" "$OUT/$n.gdb"); then :; else fail=1; fi
		echo "$r" | sed "s/^/$src vs gdb-multiarch: /"
		c=$(echo "$r" | sed -n 's/^frames: \([0-9]*\) compared, \([0-9]*\) equal$/\1 \2/p')
		total_c=$((total_c + ${c% *})) total_e=$((total_e + ${c#* }))
	done
done
echo "vm-test.sh $ARCH: $total_e of $total_c frames equal to gdb-multiarch's; steps $([ $fail = 0 ] && echo passed || echo FAILED)"
exit $fail
