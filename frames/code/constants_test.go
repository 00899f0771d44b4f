package code

import (
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// TestLargeFrameSizedByAConstant: a frame too large for an immediate is
// allocated by loading its size into a register first (AArch64 `mov x13,
// #0x4160; sub sp, sp, x13`, Debian arm64's 948 false findings; x86-64
// `mov $N,%eax; sub %rax,%rsp`; s390x `lgfi %r1,-N; agr %r15,%r1`). The
// walk follows the constant to the SP update, so SP stays known and the
// CFI's CFA=sp+16832 agrees, as does x29+96: both are true.
func TestLargeFrameSizedByAConstant(t *testing.T) {
	for _, tc := range []struct {
		name     string
		a        *arch.Arch
		code     []byte
		at       uint64 // where the frame is allocated
		cfa      int64  // CFA - SP there
		fp       rule.Reg
		fpCFA    int64 // CFA - FP there (when fp >= 0)
		freed    uint64
		freedCFA int64
	}{
		{"aarch64 movz, sub and add (extended register)", arm64, words(
			0xa9ba7bfd, // stp x29, x30, [sp, #-96]!
			0x910003fd, // mov x29, sp
			0xd2882c0d, // mov x13, #0x4160
			0xcb2d63ff, // sub sp, sp, x13
			0x910043e0, // add x0, sp, #0x10
			0xd2882c0d, // mov x13, #0x4160
			0x8b2d63ff, // add sp, sp, x13
			0xa8c67bfd, // ldp x29, x30, [sp], #96
			0xd65f03c0, // ret
		), 0x10, 16832, 29, 96, 0x1c, 96},
		{"aarch64 movz and movk", arm64, words(
			0xa9bf7bfd, // stp x29, x30, [sp, #-16]!
			0xd2800010, // mov x16, #0x0
			0xf2a00030, // movk x16, #0x1, lsl #16
			0xcb3063ff, // sub sp, sp, x16
			0x8b3063ff, // add sp, sp, x16
			0xa8c17bfd, // ldp x29, x30, [sp], #16
			0xd65f03c0, // ret
		), 0x10, 0x10010, -1, 0, 0x14, 16},
		{"aarch64 the size loaded early, another constant between (rsync's prologue)", arm64, words(
			0xa9ba7bfd, // stp x29, x30, [sp, #-96]!
			0xd284600d, // mov x13, #0x2300
			0x910003fd, // mov x29, sp
			0x52800054, // mov w20, #0x2
			0xa90573fb, // stp x27, x28, [sp, #80]
			0xcb2d63ff, // sub sp, sp, x13
			0x910003bf, // mov sp, x29
			0xa8c67bfd, // ldp x29, x30, [sp], #96
			0xd65f03c0, // ret
		), 0x18, 96 + 0x2300, 29, 96, 0x1c, 96},
		{"aarch64 five constants after the size (glibc's largest frames)", arm64, words(
			0xa9ba7bfd, // stp x29, x30, [sp, #-96]!
			0x910003fd, // mov x29, sp
			0xd282380d, // mov x13, #0x11c0
			0xd2800009, // mov x9, #0x0
			0xd280000f, // mov x15, #0x0
			0xd2800010, // mov x16, #0x0
			0xd2800011, // mov x17, #0x0
			0xd2800003, // mov x3, #0x0
			0xcb2d63ff, // sub sp, sp, x13
			0x910003bf, // mov sp, x29
			0xa8c67bfd, // ldp x29, x30, [sp], #96
			0xd65f03c0, // ret
		), 0x24, 96 + 0x11c0, 29, 96, 0x28, 96},
		{"x86-64 mov $imm32,%eax and sub %rax,%rsp", amd64, []byte{
			0xb8, 0x00, 0x50, 0x00, 0x00, // mov $0x5000,%eax
			0x48, 0x29, 0xc4, // sub %rax,%rsp
			0x90,             // nop
			0x48, 0x01, 0xc4, // add %rax,%rsp
			0xc3, // ret
		}, 8, 0x5008, -1, 0, 12, 8},
		{"s390x lgfi and agr", s390x, []byte{
			0xc0, 0x11, 0xff, 0xff, 0xb0, 0x00, // lgfi %r1,-20480
			0xb9, 0x08, 0x00, 0xf1, // agr %r15,%r1
			0xa7, 0x1b, 0x50, 0x00, // aghi %r1,20480 (r1 is 0 now, not the frame size)
			0xa7, 0xfb, 0x50, 0x00, // aghi %r15,20480
			0x07, 0xfe, // br %r14
		}, 10, 160 + 20480, -1, 0, 18, 160},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Analyze(tc.a, tc.code, base, nil)
			for _, fd := range f.Findings {
				t.Errorf("finding: %s", f.Describe(fd))
			}
			check := func(pc uint64, reg rule.Reg, want int64) {
				t.Helper()
				st, _, ok := f.StateAt(base + pc)
				if !ok {
					t.Fatalf("+%#x not walked", pc)
				}
				if got, ok := st.CFAVia(tc.a, reg); !ok || got != want {
					t.Errorf("+%#x: CFA = r%d + %d (known %v), want + %d", pc, reg, got, ok, want)
				}
			}
			check(tc.at, tc.a.SP, tc.cfa)
			if tc.fp >= 0 {
				check(tc.at, tc.fp, tc.fpCFA)
			}
			check(tc.freed, tc.a.SP, tc.freedCFA)
		})
	}
	t.Run("a constant overwritten before the SP update is not used", func(t *testing.T) {
		code := words(
			0xd2882c0d, // mov x13, #0x4160
			0x9100058d, // add x13, x12, #0x1
			0xcb2d63ff, // sub sp, sp, x13
			0xd65f03c0, // ret
		)
		f := Analyze(arm64, code, base, nil)
		if st, _, ok := f.StateAt(base + 12); ok {
			if _, known := st.CFAVia(arm64, arm64.SP); known {
				t.Errorf("SP known after sub sp, sp, x13 with x13 = x12 + 1")
			}
		}
	})
}

// words encodes AArch64 instruction words, little-endian.
func words(ws ...uint32) []byte {
	b := make([]byte, 0, 4*len(ws))
	for _, w := range ws {
		b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
	}
	return b
}

// TestReturnsThroughOtherRegisters: an AArch64 function that keeps the RA
// in x15 and returns with `ret x15` returns (Debian arm64's false RA
// findings); one whose x15 does not hold the RA does not. An s390x `br
// %r14` after r14 was saved and overwritten is a jump through a table
// (Rust's match on s390x), not a return with the frame modified.
func TestReturnsThroughOtherRegisters(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    *arch.Arch
		code []byte
		want []Kind
	}{
		{"ret x15 with the RA copied to x15", arm64, words(
			0xaa1e03ef, // mov x15, x30
			0xd280001e, // mov x30, #0x0 (x30 as scratch)
			0xd65f01e0, // ret x15
		), nil},
		{"ret x15 without the RA in x15", arm64, words(
			0xd280001e, // mov x30, #0x0
			0xd65f01e0, // ret x15
		), []Kind{KindRet}},
		{"ret x15 after a call: the code bets the callee keeps x15 (glibc's __rawmemchr)", arm64, words(
			0xaa1e03ef, // mov x15, x30
			0x94000002, // bl +8
			0xd65f01e0, // ret x15
			0xd65f03c0, // ret (the callee)
		), nil},
		{"s390x br %r14 through a jump table after stmg", s390x, []byte{
			0xeb, 0xdf, 0xf0, 0x68, 0x00, 0x24, // stmg %r13,%r15,104(%r15)
			0xc0, 0xe0, 0x00, 0x00, 0x00, 0x10, // larl %r14,.+32
			0xe3, 0xee, 0x10, 0x00, 0x00, 0x18, // agf %r14,0(%r14,%r1)
			0x07, 0xfe, // br %r14
		}, nil},
		{"s390x br %r14 after lmg restored it", s390x, []byte{
			0xeb, 0xdf, 0xf0, 0x68, 0x00, 0x24, // stmg %r13,%r15,104(%r15)
			0xa7, 0xe9, 0x00, 0x00, // lghi %r14,0
			0xeb, 0xdf, 0xf0, 0x68, 0x00, 0x04, // lmg %r13,%r15,104(%r15)
			0x07, 0xfe, // br %r14
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Analyze(tc.a, tc.code, base, nil)
			var got []Kind
			for _, fd := range f.Findings {
				if fd.Kind != KindUnknown {
					got = append(got, fd.Kind)
				}
				t.Log(f.Describe(fd))
			}
			if len(got) != len(tc.want) || len(got) > 0 && got[0] != tc.want[0] {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
		})
	}
}

// TestInlineStackProbeLoop: LLVM's inline stack probe moves SP by a page
// each turn until it equals the bound in r11 (its CFI puts the CFA on r11
// meanwhile). The loop's head meets itself with another SP: SP is not
// known there, the CFA is r11's; on the way out of `cmp %r11,%rsp; jne`
// SP equals r11, so the epilogue is judged with the whole frame (issue
// 30's third class: it was judged with one turn's).
func TestInlineStackProbeLoop(t *testing.T) {
	code := []byte{
		0x55,             // push %rbp
		0x53,             // push %rbx
		0x49, 0x89, 0xe3, // mov %rsp,%r11
		0x49, 0x81, 0xeb, 0x00, 0x50, 0x00, 0x00, // sub $0x5000,%r11
		0x48, 0x81, 0xec, 0x00, 0x10, 0x00, 0x00, // 0xc: sub $0x1000,%rsp
		0x48, 0xc7, 0x04, 0x24, 0x00, 0x00, 0x00, 0x00, // movq $0x0,(%rsp)
		0x4c, 0x39, 0xdc, // cmp %r11,%rsp
		0x75, 0xec, // jne 0xc
		0x48, 0x83, 0xec, 0x28, // 0x20: sub $0x28,%rsp
		0x48, 0x89, 0xe7, // mov %rsp,%rdi
		0xe8, 0x00, 0x00, 0x00, 0x00, // call
		0x48, 0x81, 0xc4, 0x28, 0x50, 0x00, 0x00, // add $0x5028,%rsp
		0x5b, // pop %rbx
		0x5d, // pop %rbp
		0xc3, // ret
	}
	f := Analyze(amd64, code, base, nil)
	for _, fd := range f.Findings {
		t.Errorf("finding: %s", f.Describe(fd))
	}
	for _, c := range []struct {
		pc  uint64
		reg rule.Reg
		cfa int64
	}{
		{0xc, 11, 24 + 0x5000},      // the loop's head: CFA = r11 + 20504
		{0x20, 7, 24 + 0x5000},      // out of the loop: rsp = r11
		{0x24, 7, 24 + 0x5000 + 40}, // the CFI's rsp+20544
		{0x35, 7, 8},                // ret
	} {
		st, _, ok := f.StateAt(base + c.pc)
		if !ok {
			t.Fatalf("+%#x not walked", c.pc)
		}
		if got, ok := st.CFAVia(amd64, c.reg); !ok || got != c.cfa {
			t.Errorf("+%#x: CFA = r%d + %d (known %v), want + %d", c.pc, c.reg, got, ok, c.cfa)
		}
	}
	if _, ok := mustState(t, f, 0xc).CFAVia(amd64, 7); ok {
		t.Error("SP known at the loop's head, where each turn has another")
	}
}

func mustState(t *testing.T, f *Func, off uint64) State {
	t.Helper()
	st, _, ok := f.StateAt(base + off)
	if !ok {
		t.Fatalf("+%#x not walked", off)
	}
	return st
}

// TestVeneerBranchesBack: GNU ld's erratum 843419 veneer, outside every
// FDE, holds the load it moved out of the function and branches back;
// the walk follows it as part of the function, where it took `b veneer`
// for a tail call with the frame modified (perl, libicu, libprotobuf on
// Debian arm64).
func TestVeneerBranchesBack(t *testing.T) {
	code := words(
		0xa9bf7bfd, // stp x29, x30, [sp, #-16]!
		0x1400003f, // b base+0x100 (the veneer)
		0xa8c17bfd, // ldp x29, x30, [sp], #16
		0xd65f03c0, // ret
	)
	veneer := words(
		0xf94002e0, // ldr x0, [x23]
		0x17ffffc1, // b base+8
	)
	f := Analyze(arm64, code, base, &Options{Stub: func(target uint64) []byte {
		if target == base+0x100 {
			return veneer
		}
		return nil
	}})
	for _, fd := range f.Findings {
		t.Errorf("finding: %s", f.Describe(fd))
	}
	if got, ok := mustState(t, f, 8).CFAVia(arm64, arm64.SP); !ok || got != 16 {
		t.Errorf("after the veneer: CFA = sp + %d (known %v), want sp + 16", got, ok)
	}
	f = Analyze(arm64, code, base, nil)
	if len(f.Findings) == 0 || f.Findings[0].Kind != KindTailCall {
		t.Errorf("without the stub's bytes: findings %v, want a tail call with the frame modified", kinds(f))
	}
}

// TestLandingPadKeepsTheUnwindersState: two calls of one call-site range
// share a landing pad; the first has an argument still pushed and cannot
// throw (GCC covers it with the range but writes no DW_CFA_GNU_args_size
// for it: libgdal), the second can. The pad is entered with the state
// that has the fewest bytes on the stack, the one the unwinder leaves, not
// with the first one met (a false code-state and code-ret before).
func TestLandingPadKeepsTheUnwindersState(t *testing.T) {
	code := []byte{
		0x53,                         // push %rbx
		0x50,                         // push %rax (an argument)
		0xe8, 0x00, 0x10, 0x00, 0x00, // 0x2: call (cannot throw)
		0x58,                         // pop %rax
		0xe8, 0x00, 0x10, 0x00, 0x00, // 0x8: call (may throw)
		0x5b, // pop %rbx
		0xc3, // ret
		0x5b, // 0xf: the pad: pop %rbx
		0xc3, // ret
	}
	f := Analyze(amd64, code, base, &Options{LandingPad: func(pc uint64) (uint64, int64) {
		if pc == base+2 || pc == base+8 {
			return base + 0xf, 0
		}
		return 0, 0
	}})
	for _, fd := range f.Findings {
		t.Errorf("finding: %s", f.Describe(fd))
	}
	if got, ok := mustState(t, f, 0xf).CFAVia(amd64, 7); !ok || got != 16 {
		t.Errorf("the pad: CFA = rsp + %d (known %v), want rsp + 16", got, ok)
	}
}

// TestPaddingAfterACallThatDoesNotReturn: `push %rax; call vpanic; nopl`
// and then a jump table's target that returns (valgrind's objects, where
// vpanic is an undefined symbol no list names): the fall-through would
// return with the frame modified; a compiler pads after a call only when
// the call ends its block, so the call is presumed not to return (issue
// 30's fourth class) instead of a code-ret finding.
func TestPaddingAfterACallThatDoesNotReturn(t *testing.T) {
	code := []byte{
		0x50,                         // push %rax
		0xe8, 0x00, 0x10, 0x00, 0x00, // call vpanic
		0x0f, 0x1f, 0x40, 0x00, // nopl 0x0(%rax)
		0x48, 0x8d, 0x05, 0x00, 0x00, 0x00, 0x00, // lea 0x0(%rip),%rax
		0xc3, // ret
	}
	f := Analyze(amd64, code, base, nil)
	for _, fd := range f.Findings {
		t.Errorf("finding: %s", f.Describe(fd))
	}
	if len(f.PresumedNoReturn) != 1 || f.PresumedNoReturn[0] != base+1 {
		t.Errorf("presumed not to return: %#x, want the call at %#x", f.PresumedNoReturn, base+1)
	}
	// Without the padding the fall-through is code: a return with the
	// frame modified is a finding.
	code = append(code[:6:6], code[10:]...)
	if f = Analyze(amd64, code, base, nil); len(f.Findings) == 0 || f.Findings[0].Kind != KindRet {
		t.Errorf("without padding: findings %v, want a code-ret", kinds(f))
	}
}

// TestLandingPadOrderIsFixed: two pads entered with different states run
// into one block; which reaches it first decides what is judged there. The
// pads are walked in offset order, so the same code gives the same
// findings on every run (a Go map's order made librsvg's counts differ).
func TestLandingPadOrderIsFixed(t *testing.T) {
	code := []byte{
		0x53,                         // push %rbx
		0xe8, 0x00, 0x10, 0x00, 0x00, // 0x1: call (pad A)
		0x50,                         // 0x6: push %rax
		0xe8, 0x00, 0x10, 0x00, 0x00, // 0x7: call (pad B)
		0x58,       // pop %rax
		0x5b,       // pop %rbx
		0xc3,       // ret
		0xeb, 0x01, // 0xf: pad A: jmp 0x12
		0x90, // 0x11: pad B: nop
		0x5b, // 0x12: pop %rbx
		0xc3, // ret
	}
	opts := &Options{LandingPad: func(pc uint64) (uint64, int64) {
		switch pc {
		case base + 1:
			return base + 0xf, 0
		case base + 7:
			return base + 0x11, 0
		}
		return 0, 0
	}}
	describe := func() string {
		f := Analyze(amd64, code, base, opts)
		var b strings.Builder
		for _, fd := range f.Findings {
			b.WriteString(f.Describe(fd) + "\n")
		}
		return b.String()
	}
	first := describe()
	if first == "" {
		t.Fatal("no finding where two pads meet with different SPs")
	}
	for i := 0; i < 50; i++ {
		if got := describe(); got != first {
			t.Fatalf("run %d judged differently:\n%s\nwant\n%s", i+2, got, first)
		}
	}
	// Pad A (the lower offset) is walked first: its path returns cleanly
	// and pad B meets it with SP 8 bytes lower.
	if strings.Contains(first, "return with the stack frame modified") {
		t.Errorf("pad B walked first:\n%s", first)
	}
}

// TestLinkRegisterAsAContinuation: glibc's AArch64 swapcontext saves the
// RA in the ucontext it fills (stp xzr, x30, [x0, #184]), points x30 at
// a label of its own (adr x30, 2f) for the saved context to resume at,
// and then returns or tail-calls __syscall_error with x30 still holding
// that label (through x22 across bl __setcontext). Those are jumps to a
// place in the function, not returns: the walk cannot know where the RA
// is (the ucontext), so they are notes, not findings (issue 30, Debian
// arm64 libc6's 2 false code-state findings). The CFI's RA=u while x30
// holds the label stays a finding for check: that is the rows' fault.
func TestLinkRegisterAsAContinuation(t *testing.T) {
	code := words(
		0xa90bf81f, // 0x00 stp xzr, x30, [x0, #184]
		0x100000fe, // 0x04 adr x30, 0x20
		0xb50000a0, // 0x08 cbnz x0, 0x1c
		0xaa1e03f6, // 0x0c mov x22, x30
		0x94000040, // 0x10 bl +0x100 (setcontext)
		0xaa1603fe, // 0x14 mov x30, x22
		0xd65f03c0, // 0x18 ret
		0x14000040, // 0x1c b +0x100 (__syscall_error)
		0xd503201f, // 0x20 nop (2:, resumed by the saved context)
		0xaa0103fe, // 0x24 mov x30, x1
		0xd65f03c0, // 0x28 ret
	)
	f := Analyze(arm64, code, base, nil)
	notes := 0
	for _, fd := range f.Findings {
		t.Log(f.Describe(fd))
		if fd.Kind != KindUnknown {
			t.Errorf("finding %s", f.Describe(fd))
		} else if strings.Contains(f.Describe(fd), "address in this function") {
			notes++
		}
	}
	if notes != 2 {
		t.Errorf("%d notes on the ret and the b through the label, want 2", notes)
	}
	// Without the adr, the same ret with the RA lost is a finding.
	code = words(
		0xa90bf81f, // stp xzr, x30, [x0, #184]
		0xd280001e, // mov x30, #0x0
		0xd65f03c0, // ret
	)
	wantKinds(t, Analyze(arm64, code, base, nil), KindRet)
}

// TestRALoadedFromAnUntrackedSlot: glibc's AArch64 _dl_runtime_profile,
// entered from PLT0 with the RA both in x30 and at [sp+8], copies that
// word into its frame (ldr x1, [x29, #504]; stp x0, x1, [x29, #464]) and
// returns with `ldr x30, [x29, #472]; ... br x30`. The walk does not
// follow that copy, so it cannot say x30 does not hold the RA: its saved
// slot is one right rule, x30 may be another (the CFI's RA=u there was 4
// false code-ra findings on Debian arm64's ld.so). A return through it is
// not judged either. A load of x30 from its own slot, or a write of
// anything else, still decides.
func TestRALoadedFromAnUntrackedSlot(t *testing.T) {
	prologue := []uint32{
		0xd107c3ff, // 0x00 sub sp, sp, #0x1f0
		0xa9007bfd, // 0x04 stp x29, x30, [sp]
		0x910003fd, // 0x08 mov x29, sp
		0xf940ffa1, // 0x0c ldr x1, [x29, #504] (above the CFA)
		0xf900efa1, // 0x10 str x1, [x29, #472]
		0x94000040, // 0x14 bl +0x100
		0xf940efbe, // 0x18 ldr x30, [x29, #472]
		0x910003bf, // 0x1c mov sp, x29
		0xf94003bd, // 0x20 ldr x29, [x29]
		0x9107c3ff, // 0x24 add sp, sp, #0x1f0
	}
	for _, tc := range []struct {
		name string
		last uint32
	}{
		{"br x30", 0xd61f03c0},
		{"ret", 0xd65f03c0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Analyze(arm64, words(append(prologue, tc.last)...), base, nil)
			for _, fd := range f.Findings {
				if fd.Kind != KindUnknown {
					t.Errorf("finding %s", f.Describe(fd))
				}
			}
			for _, off := range []int{0x1c, 0x20, 0x24} {
				st := mustState(t, f, uint64(off))
				if !st.MayHoldCaller(arm64, arm64.RA) {
					t.Errorf("+%#x: x30 not taken as maybe the RA (%s)", off, st.Format(arm64))
				}
			}
			if st := mustState(t, f, 0x18); st.MayHoldCaller(arm64, arm64.RA) {
				t.Errorf("+0x18: after bl, x30 taken as maybe the RA")
			}
		})
	}
	// x30 loaded from the FP's slot holds the caller's FP, not the RA.
	code := words(
		0xa9bf7bfd, // stp x29, x30, [sp, #-16]!
		0xf94003fe, // ldr x30, [sp]
		0x910043ff, // add sp, sp, #0x10
		0xd65f03c0, // ret
	)
	f := Analyze(arm64, code, base, nil)
	if mustState(t, f, 0x8).MayHoldCaller(arm64, arm64.RA) {
		t.Error("x30 loaded from x29's slot taken as maybe the RA")
	}
	wantKinds(t, f, KindRet)
}

// TestContinuationAndMaybeRAAreRegisters: what makes a return through
// the link register unjudged is what the register holds, not a mark the
// path keeps: x30 set to a label and then overwritten is an ordinary lost
// RA again, and x30 loaded from a local slot the function never filled
// (rather than a copy of the caller's area, as _dl_runtime_profile's) is
// not "maybe the RA". Both returns are findings, as before those cases
// were special.
func TestContinuationAndMaybeRAAreRegisters(t *testing.T) {
	for _, tc := range []struct {
		name string
		code []byte
	}{
		{"adr x30 then overwritten", words(
			0x1000005e, // adr x30, +0x8 (the ret: in the function)
			0xd280001e, // mov x30, #0x0
			0xd65f03c0, // ret
		)},
		{"x30 loaded from a slot never written", words(
			0xd10083ff, // sub sp, sp, #0x20
			0xf94007fe, // ldr x30, [sp, #8]
			0x910083ff, // add sp, sp, #0x20
			0xd65f03c0, // ret
		)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantKinds(t, Analyze(arm64, tc.code, base, nil), KindRet)
		})
	}
	// A continuation copied through a callee-saved register survives a
	// call (swapcontext: mov x22, x30; bl; mov x30, x22; ret).
	f := Analyze(arm64, words(
		0x1000009e, // adr x30, +0x10
		0xaa1e03f6, // mov x22, x30
		0x94000040, // bl +0x100
		0xaa1603fe, // mov x30, x22
		0xd65f03c0, // ret
	), base, nil)
	for _, fd := range f.Findings {
		if fd.Kind != KindUnknown {
			t.Errorf("finding %s", f.Describe(fd))
		}
	}
}

// rustProbestack is __rust_probestack as rustc's compiler-builtins builds
// it (Debian 12's fd, at 0x21406c): it touches each page of the rax bytes
// below SP and returns with every register but r11 as it was.
var rustProbestack = []byte{
	0x55,             // push %rbp
	0x48, 0x89, 0xe5, // mov %rsp,%rbp
	0x49, 0x89, 0xc3, // mov %rax,%r11
	0x49, 0x81, 0xfb, 0x00, 0x10, 0x00, 0x00, // cmp $0x1000,%r11
	0x76, 0x1c, // jbe +0x2c
	0x48, 0x81, 0xec, 0x00, 0x10, 0x00, 0x00, // 0x10: sub $0x1000,%rsp
	0x48, 0x85, 0x64, 0x24, 0x08, // test %rsp,0x8(%rsp)
	0x49, 0x81, 0xeb, 0x00, 0x10, 0x00, 0x00, // sub $0x1000,%r11
	0x49, 0x81, 0xfb, 0x00, 0x10, 0x00, 0x00, // cmp $0x1000,%r11
	0x77, 0xe4, // ja 0x10
	0x4c, 0x29, 0xdc, // 0x2c: sub %r11,%rsp
	0x48, 0x85, 0x64, 0x24, 0x08, // test %rsp,0x8(%rsp)
	0x48, 0x01, 0xc4, // add %rax,%rsp
	0xc9, // leave
	0xc3, // ret
}

// TestProbestackKeepsTheFrameSize: rustc allocates a frame over a page
// with `mov $N,%eax; call __rust_probestack; sub %rax,%rsp`. The helper
// keeps rax (LeafKeeps), so the walk keeps the constant across the call
// and SP stays known (Debian 12's fd, zoxide: 125,056 instructions of
// Rust code were "not reached" after the sub).
func TestProbestackKeepsTheFrameSize(t *testing.T) {
	keeps := LeafKeeps(amd64, rustProbestack, 0x9000)
	if keeps>>0&1 == 0 || keeps>>11&1 != 0 || keeps>>6&1 != 0 {
		t.Errorf("LeafKeeps = %#x, want rax kept, r11 and rbp written", keeps)
	}
	// A helper that writes rax, or calls out, keeps nothing of it.
	writes := append([]byte{0x31, 0xc0}, rustProbestack...) // xor %eax,%eax
	if k := LeafKeeps(amd64, writes, 0x9000); k&1 != 0 {
		t.Errorf("LeafKeeps of a helper that zeroes eax = %#x, want rax not kept", k)
	}
	if k := LeafKeeps(amd64, []byte{0xe8, 0, 0, 0, 0, 0xc3}, 0x9000); k != 0 {
		t.Errorf("LeafKeeps of a helper that calls = %#x, want 0", k)
	}
	if k := LeafKeeps(arm64, words(0xd65f03c0), 0x9000); k != 0 {
		t.Errorf("LeafKeeps on AArch64 = %#x, want 0 (its decoder reports only the writes it follows)", k)
	}

	code := []byte{
		0x55,                         // push %rbp
		0x53,                         // push %rbx
		0xb8, 0xf8, 0xaa, 0x00, 0x00, // mov $0xaaf8,%eax
		0xe8, 0xf4, 0x8f, 0x00, 0x00, // call 0x9000 (base-relative)
		0x48, 0x29, 0xc4, // 0xc: sub %rax,%rsp
		0x48, 0x89, 0xe7, // 0xf: mov %rsp,%rdi
		0x48, 0x81, 0xc4, 0xf8, 0xaa, 0x00, 0x00, // add $0xaaf8,%rsp
		0x5b, // pop %rbx
		0x5d, // pop %rbp
		0xc3, // ret
	}
	for _, withKeeps := range []bool{false, true} {
		var opts *Options
		if withKeeps {
			opts = &Options{CallKeeps: func(target uint64) uint64 {
				if target != base+0x9000 {
					t.Errorf("CallKeeps(%#x), want the call's target %#x", target, base+0x9000)
				}
				return keeps
			}}
		}
		f := Analyze(amd64, code, base, opts)
		st, _, ok := f.StateAt(base + 0xf)
		switch {
		case !withKeeps && ok:
			if _, known := st.CFAVia(amd64, 7); known {
				t.Error("without CallKeeps SP is known after the sub: rax should be the call's")
			}
		case withKeeps && !ok:
			t.Fatalf("+0xf not walked: %v", f.Findings)
		case withKeeps:
			if got, known := st.CFAVia(amd64, 7); !known || got != 24+0xaaf8 {
				t.Errorf("CFA = rsp + %d (known %v), want rsp + %d", got, known, 24+0xaaf8)
			}
			for _, fd := range f.Findings {
				t.Errorf("finding: %s", f.Describe(fd))
			}
		}
	}
}

// TestLeafKeepsOnlyPlainInstructions: a leaf whose instructions the x86
// decoder may not report every write of (cmpbexadd writes eax; xbegin's
// abort path does) keeps nothing.
func TestLeafKeepsOnlyPlainInstructions(t *testing.T) {
	for name, code := range map[string][]byte{
		"cmpbexadd %ecx,%eax,(%rdi); ret": {0xc4, 0xe2, 0x71, 0xe6, 0x07, 0xc3},
		"xbegin +0; ret":                  {0xc7, 0xf8, 0, 0, 0, 0, 0xc3},
	} {
		if k := LeafKeeps(amd64, code, 0x9000); k&1 != 0 {
			t.Errorf("%s: LeafKeeps = %#x, want rax not kept", name, k)
		}
	}
}
