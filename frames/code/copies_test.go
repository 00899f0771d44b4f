package code

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// x86 assembles objdump's hex bytes ("48 8d 04 24", ...) into code.
func x86(t *testing.T, insns ...string) []byte {
	t.Helper()
	var b []byte
	for _, s := range insns {
		h, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, h...)
	}
	return b
}

// stateAtOK returns the state before the instruction at off, failing the
// test when the walk has none.
func stateAtOK(t *testing.T, f *Func, off int) State {
	t.Helper()
	st, why, ok := f.StateAt(base + uint64(off))
	if !ok {
		t.Fatalf("+%#x: no state (%s)", off, why)
	}
	return st
}

func wantCFAVia(t *testing.T, f *Func, off int, reg rule.Reg, want int64) {
	t.Helper()
	st := stateAtOK(t, f, off)
	if k, ok := st.CFAVia(f.Arch, reg); !ok || k != want {
		t.Errorf("+%#x: CFAVia(%s) = %d, %v; want %d (%s)", off, f.Arch.RegName(reg), k, ok, want, st.Format(f.Arch))
	}
}

func wantNoCFAVia(t *testing.T, f *Func, off int, reg rule.Reg) {
	t.Helper()
	st := stateAtOK(t, f, off)
	if k, ok := st.CFAVia(f.Arch, reg); ok {
		t.Errorf("+%#x: CFAVia(%s) = %d, want not known (%s)", off, f.Arch.RegName(reg), k, st.Format(f.Arch))
	}
}

// DWARF numbers of AMD64 registers the tests name.
const (
	xRAX rule.Reg = 0
	xRDX rule.Reg = 1
	xRBX rule.Reg = 3
	xRDI rule.Reg = 5
	xRBP rule.Reg = 6
	xRSP rule.Reg = 7
	xR11 rule.Reg = 11
	xRIP rule.Reg = 16
)

// TestSPCopiedThroughRegister: OpenSSL's rsaz_1024_sqr_avx2 keeps the
// CFA in rax (lea (%rsp),%rax; .cfi_def_cfa_register %rax), then moves
// it to rbp (testdata/codeoracle/realworld/false-findings/sp_copy_via_reg.s).
func TestSPCopiedThroughRegister(t *testing.T) {
	code := x86(t,
		"48 8d 04 24",    // 0x00 lea (%rsp),%rax
		"55",             // 0x04 push %rbp
		"48 89 c5",       // 0x05 mov %rax,%rbp
		"48 83 ec 40",    // 0x08 sub $0x40,%rsp
		"48 89 3c 24",    // 0x0c mov %rdi,(%rsp)
		"48 89 fa",       // 0x10 mov %rdi,%rdx
		"48 8d 65 00",    // 0x13 lea 0x0(%rbp),%rsp
		"48 8b 6c 24 f8", // 0x17 mov -0x8(%rsp),%rbp
		"c3",             // 0x1c ret
	)
	f := Analyze(amd64, code, base, nil)
	wantKinds(t, f)
	wantCFAVia(t, f, 0x04, xRAX, 8) // CFI: CFA=rax+8
	wantCFAVia(t, f, 0x08, xRBP, 8) // CFI: CFA=rbp+8
	wantCFAVia(t, f, 0x13, xRBP, 8)
	wantCFAVia(t, f, 0x13, xRSP, 80)
	wantCFAVia(t, f, 0x17, xRSP, 8)
	wantState(t, f, 0x1c, "CFA=rsp+8 RA=c-8 FP=u")

	// A copy in a caller-saved register does not survive a call; one in
	// a callee-saved register does.
	code = x86(t,
		"48 89 e0",       // 0x00 mov %rsp,%rax
		"48 89 e3",       // 0x03 mov %rsp,%rbx
		"e8 00 00 00 00", // 0x06 call 0x0b
		"48 89 c5",       // 0x0b mov %rax,%rbp
		"c3",             // 0x0e ret
	)
	f = Analyze(amd64, code, base, nil)
	wantCFAVia(t, f, 0x06, xRAX, 8)
	wantNoCFAVia(t, f, 0x0b, xRAX)
	wantCFAVia(t, f, 0x0b, xRBX, 8)
	wantNoCFAVia(t, f, 0x0e, xRBP)

	// Implicit writes: cqo writes rdx, mul rax and rdx, cpuid rax-rdx,
	// syscall rax, rcx and r11: the copies there are gone.
	for _, tc := range []struct{ name, insn string }{
		{"cqo", "48 99"}, {"mul", "48 f7 e1"}, {"cpuid", "0f a2"}, {"syscall", "0f 05"},
	} {
		code = x86(t, "48 89 e0", "48 89 e2", "49 89 e3", tc.insn, "c3") // mov %rsp,%rax; mov %rsp,%rdx; mov %rsp,%r11
		f = Analyze(amd64, code, base, nil)
		end := len(code) - 1
		wantCFAVia(t, f, end-len(tc.insn)/3-1, xRAX, 8)
		switch tc.name {
		case "cqo":
			wantCFAVia(t, f, end, xRAX, 8)
			wantNoCFAVia(t, f, end, xRDX)
		case "syscall":
			wantNoCFAVia(t, f, end, xRAX)
			wantCFAVia(t, f, end, xRDX, 8)
			wantNoCFAVia(t, f, end, xR11)
		default:
			wantNoCFAVia(t, f, end, xRAX)
			wantNoCFAVia(t, f, end, xRDX)
		}
	}

	// add/sub $k on a register holding CFA+k follow it.
	code = x86(t,
		"48 89 e0",    // 0x00 mov %rsp,%rax
		"48 83 e8 08", // 0x03 sub $0x8,%rax
		"48 89 c5",    // 0x07 mov %rax,%rbp
		"c3",          // 0x0a ret
	)
	f = Analyze(amd64, code, base, nil)
	wantCFAVia(t, f, 0x07, xRAX, 16)
	wantCFAVia(t, f, 0x0a, xRBP, 16)
}

// TestFPCopiedToRegister: libgcrypt's blowfish keeps the caller's rbp in
// r11 (.cfi_register rbp, r11) while it uses rbp
// (false-findings/fp_copied_to_reg.s).
func TestFPCopiedToRegister(t *testing.T) {
	code := x86(t,
		"49 89 eb", // 0x0 mov %rbp,%r11
		"48 89 c5", // 0x3 mov %rax,%rbp
		"48 01 e8", // 0x6 add %rbp,%rax
		"4c 89 dd", // 0x9 mov %r11,%rbp
		"c3",       // 0xc ret
	)
	f := Analyze(amd64, code, base, nil)
	wantKinds(t, f)
	for off, want := range map[int]string{0x3: "same r11", 0x6: "r11", 0x9: "r11", 0xc: "same r11"} {
		st := stateAtOK(t, f, off)
		got := ""
		if st.InRegister(amd64, xRBP) {
			got = "same"
		}
		if r, ok := st.CopiedTo(amd64, xRBP); ok {
			got = strings.TrimSpace(got + " " + amd64.RegName(r))
		}
		if got != want {
			t.Errorf("+%#x: FP is %q, want %q (%s)", off, got, want, st.Format(amd64))
		}
	}
	if r, _ := stateAtOK(t, f, 0x6).Saved(amd64, xRBP); r != (rule.Rule{Kind: rule.Register, Reg: xR11}) {
		t.Errorf("+0x6: FP rule %s, want r11", amd64.Format(r))
	}
	// r11 is caller-saved: a call loses the copy.
	code = x86(t, "49 89 eb", "48 89 c5", "e8 00 00 00 00", "4c 89 dd", "c3")
	f = Analyze(amd64, code, base, nil)
	if r, _ := stateAtOK(t, f, 0xb).Saved(amd64, xRBP); r.Kind != rule.Undefined {
		t.Errorf("after the call: FP rule %s, want undefined", amd64.Format(r))
	}
}

// TestRAPoppedToRegister: glibc's and musl's vfork pop the return address
// into rdi (.cfi_register rip, rdi) and push it back before ret
// (false-findings/ra_popped_to_reg.s). Until the system call the popped
// slot is in the red zone and still holds it (OCaml's caml_raise_exn pops
// it into rsi with CFI still saying c-8: issue 30's fifth class); after
// it, vfork's child may have used the stack: rdi alone.
func TestRAPoppedToRegister(t *testing.T) {
	code := x86(t,
		"5f",             // 0x0 pop %rdi
		"b8 3a 00 00 00", // 0x1 mov $0x3a,%eax
		"0f 05",          // 0x6 syscall
		"57",             // 0x8 push %rdi
		"c3",             // 0x9 ret
	)
	f := Analyze(amd64, code, base, nil)
	wantKinds(t, f)
	ruleRDI := rule.Rule{Kind: rule.Register, Reg: xRDI}
	ruleC8 := rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8}
	for _, off := range []int{0x1, 0x6} {
		st := stateAtOK(t, f, off)
		if r, _ := st.Saved(amd64, xRIP); r != ruleC8 {
			t.Errorf("+%#x: RA %s, want c-8 (in the red zone)", off, amd64.Format(r))
		}
		if r, ok := st.CopiedTo(amd64, xRIP); !ok || r != xRDI {
			t.Errorf("+%#x: RA not also in rdi (%s)", off, st.Format(amd64))
		}
	}
	if r, _ := stateAtOK(t, f, 0x8).Saved(amd64, xRIP); r != ruleRDI {
		t.Errorf("+0x8: RA %s, want rdi (after the system call)", amd64.Format(r))
	}
	st := stateAtOK(t, f, 0x9)
	if r, _ := st.Saved(amd64, xRIP); r != (rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8}) {
		t.Errorf("+0x9: RA %s, want c-8", amd64.Format(r))
	}
	if r, ok := st.CopiedTo(amd64, xRIP); !ok || r != xRDI {
		t.Errorf("+0x9: RA not also in rdi (%s)", st.Format(amd64))
	}
	// Overwriting rdi before the push loses the RA: ret is a finding.
	code = x86(t, "5f", "31 ff", "57", "c3") // pop %rdi; xor %edi,%edi; push %rdi; ret
	f = Analyze(amd64, code, base, nil)
	wantKinds(t, f, KindRet)
	// A load that leaves the slot in the frame keeps both places.
	code = x86(t, "48 8b 3c 24", "c3") // mov (%rsp),%rdi; ret
	f = Analyze(amd64, code, base, nil)
	wantKinds(t, f)
	if r, ok := stateAtOK(t, f, 0x4).CopiedTo(amd64, xRIP); !ok || r != xRDI {
		t.Errorf("mov (%%rsp),%%rdi: RA not also in rdi")
	}
}

// TestCopiesOnOtherMachines: the same copy forms on AArch64 (mov x9, sp)
// and s390x (lgr %r1,%r15) are followed.
func TestCopiesOnOtherMachines(t *testing.T) {
	// AArch64: mov x9, sp; sub sp, sp, #32; mov sp, x9; ret
	code := x86(t, "e9 03 00 91", "ff 83 00 d1", "3f 01 00 91", "c0 03 5f d6")
	f := Analyze(arm64, code, base, nil)
	wantKinds(t, f)
	wantCFAVia(t, f, 4, 9, 0)
	wantCFAVia(t, f, 8, 31, 32)
	wantCFAVia(t, f, 12, 31, 0)
	// s390x: lgr %r1,%r15; aghi %r15,-160; lgr %r15,%r1; br %r14
	code = x86(t, "b9 04 00 1f", "a7 fb ff 60", "b9 04 00 f1", "07 fe")
	f = Analyze(s390x, code, base, nil)
	wantKinds(t, f)
	wantCFAVia(t, f, 4, 1, 160)
	wantCFAVia(t, f, 8, 15, 320)
	wantCFAVia(t, f, 12, 15, 160)
	_ = arch.WhyPAuthSignA
}

// TestRealignmentThroughCopy: OpenSSL's AVX-512 code keeps the CFA in a
// copy of SP while it realigns SP without a frame pointer (mov %rsp,%r9;
// .cfi_def_cfa_register %r9; and $-64,%rsp ... lea (%r9),%rsp): the walk
// goes on with the CFA on the copy.
func TestRealignmentThroughCopy(t *testing.T) {
	code := x86(t,
		"49 89 e1",    // 0x0 mov %rsp,%r9
		"48 83 ec 48", // 0x3 sub $0x48,%rsp
		"48 83 e4 c0", // 0x7 and $-64,%rsp
		"90",          // 0xb nop
		"49 8d 21",    // 0xc lea (%r9),%rsp
		"c3",          // 0xf ret
	)
	f := Analyze(amd64, code, base, nil)
	wantKinds(t, f)
	wantCFAVia(t, f, 0xb, 9, 8)
	wantNoCFAVia(t, f, 0xb, xRSP)
	wantState(t, f, 0xb, "CFA=r9+8 RA=c-8 FP=u SP=?")
	wantState(t, f, 0xf, "CFA=rsp+8 RA=c-8 FP=u")
	// A call loses a copy in a caller-saved register: the walk cannot go
	// on. One in a callee-saved register survives it.
	code = x86(t, "49 89 e1", "48 83 e4 c0", "e8 00 00 00 00", "49 8d 21", "c3")
	f = Analyze(amd64, code, base, nil)
	wantKinds(t, f, KindUnknown)
	code = x86(t, "49 89 e4", "48 83 e4 c0", "e8 00 00 00 00", "49 8d 24 24", "c3") // r12; lea (%r12),%rsp
	f = Analyze(amd64, code, base, nil)
	wantKinds(t, f)
}

// TestDRAPStopsWhereSavesCannotBePlaced: gcc's realigning prologue keeps
// the CFA in r10 and pushes rbp where SP is not known: the walk follows
// r10 until then and stops there (code-unknown), rather than calling FP
// lost when rbp is set.
func TestDRAPStopsWhereSavesCannotBePlaced(t *testing.T) {
	code := x86(t,
		"4c 8d 54 24 08", // 0x00 lea 0x8(%rsp),%r10
		"48 83 e4 f0",    // 0x05 and $-16,%rsp
		"41 ff 72 f8",    // 0x09 push -0x8(%r10)
		"55",             // 0x0d push %rbp
		"48 89 e5",       // 0x0e mov %rsp,%rbp
		"41 52",          // 0x11 push %r10
		"c3",             // 0x13 ret
	)
	f := Analyze(amd64, code, base, nil)
	wantKinds(t, f, KindUnknown)
	if f.Findings[0].PC != base+0xd {
		t.Errorf("stops at %#x, want push %%rbp", f.Findings[0].PC)
	}
	wantCFAVia(t, f, 0x9, 10, 0)
}

func TestDRAPStoreStops(t *testing.T) {
	// mov %rsp,%r9; and $-64,%rsp; mov %rbp,0x8(%rsp); mov %rax,%rbp:
	// rbp is stored where SP is not known, so the walk stops there.
	code := x86(t, "49 89 e1", "48 83 e4 c0", "48 89 6c 24 08", "48 89 c5", "c3")
	f := Analyze(amd64, code, base, nil)
	wantKinds(t, f, KindUnknown)
	if f.Findings[0].PC != base+7 {
		t.Errorf("stops at %#x, want the store", f.Findings[0].PC)
	}
}

// TestPushRetJumps: `push %reg; ret` with the frame still allocated jumps
// to the address in the register (gdb's linux_ptrace_test_ret_to_nx, inline
// asm `pushq %1; retq`); it is no return, so no return finding. With SP at
// the RA's slot it is a return, judged as before (TestRAPoppedToRegister).
func TestPushRetJumps(t *testing.T) {
	code := x86(t,
		"53",          // 0x0 push %rbx
		"48 83 ec 20", // 0x1 sub $0x20,%rsp
		"48 89 fb",    // 0x5 mov %rdi,%rbx
		"53",          // 0x8 push %rbx
		"c3",          // 0x9 ret
	)
	wantKinds(t, Analyze(amd64, code, base, nil))
	// Without the push, the same ret returns with the frame allocated.
	code = x86(t, "53", "48 83 ec 20", "48 89 fb", "c3")
	wantKinds(t, Analyze(amd64, code, base, nil), KindRet)
	// A push of the register holding the RA is a return.
	code = x86(t, "5f", "48 83 ec 20", "57", "c3") // pop %rdi; sub; push %rdi; ret
	wantKinds(t, Analyze(amd64, code, base, nil), KindRet)
}
