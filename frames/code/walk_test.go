package code

import (
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

const base = 0x1000

// states returns the formatted state at each given offset ("-" when the
// walk did not reach it, "?<reason>" when unknown).
func stateAt(t *testing.T, f *Func, off int) string {
	t.Helper()
	st, why, ok := f.StateAt(base + uint64(off))
	if !ok {
		if why == "" {
			return "-"
		}
		return "?" + why
	}
	return st.Format(f.Arch)
}

func kinds(f *Func) []Kind {
	var k []Kind
	for _, fd := range f.Findings {
		k = append(k, fd.Kind)
	}
	return k
}

func wantKinds(t *testing.T, f *Func, want ...Kind) {
	t.Helper()
	got := kinds(f)
	if len(got) != len(want) {
		for _, fd := range f.Findings {
			t.Log(f.Describe(fd))
		}
		t.Fatalf("findings %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			for _, fd := range f.Findings {
				t.Log(f.Describe(fd))
			}
			t.Fatalf("findings %v, want %v", got, want)
		}
	}
}

func wantState(t *testing.T, f *Func, off int, want string) {
	t.Helper()
	if got := stateAt(t, f, off); got != want {
		t.Errorf("state at +%d = %q, want %q", off, got, want)
	}
}

func TestFramePointer(t *testing.T) {
	code := asm(
		push(rBP),           // 0
		setreg(rBP, rSP, 0), // 2: mov %rsp,%rbp
		push(rBX),           // 6
		addsp(-2),           // 8: sub $16,%rsp
		nop(),               // 10
		addsp(2),            // 11
		pop(rBX),            // 13
		pop(rBP),            // 15
		ret(),               // 17
	)
	f := Analyze(fakeArch, code, base, nil)
	wantKinds(t, f)
	wantState(t, f, 0, "CFA=rsp+8 RA=c-8 FP=u")
	wantState(t, f, 2, "CFA=rsp+16 RA=c-8 FP=c-16")
	wantState(t, f, 6, "CFA=rbp+16 RA=c-8 FP=c-16")
	wantState(t, f, 8, "CFA=rbp+16 RA=c-8 FP=c-16 rbx=c-24")
	wantState(t, f, 10, "CFA=rbp+16 RA=c-8 FP=c-16 rbx=c-24")
	wantState(t, f, 15, "CFA=rbp+16 RA=c-8 FP=c-16")
	wantState(t, f, 17, "CFA=rsp+8 RA=c-8 FP=u")
	if f.Decoded != 9 || f.Judged != 9 || len(f.Insts) != 9 {
		t.Errorf("decoded %d judged %d insts %d, want 9", f.Decoded, f.Judged, len(f.Insts))
	}
	st, _, _ := f.StateAt(base + 10)
	if k, ok := st.CFAVia(fakeArch, rSP); !ok || k != 40 {
		t.Errorf("CFAVia(rsp) = %d, %v, want 40", k, ok)
	}
	if k, ok := st.CFAVia(fakeArch, rBP); !ok || k != 16 {
		t.Errorf("CFAVia(rbp) = %d, %v, want 16", k, ok)
	}
	row, ok := f.RowAt(base + 11)
	want := rule.Row{
		CFA: rule.Rule{Kind: rule.ValOffset, Reg: rBP, Offset: 16},
		RA:  rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8},
		FP:  rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -16},
	}
	if !ok || row != want {
		t.Errorf("RowAt(+11) = %+v, %v; want %+v", row, ok, want)
	}
	if r, tracked := st.Saved(fakeArch, rBX); !tracked || r != (rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -24}) {
		t.Errorf("Saved(rbx) = %v %v", r, tracked)
	}
	// RowAt inside an instruction (addsp is 2 bytes) and outside the
	// function.
	if _, ok := f.RowAt(base + 9); !ok {
		t.Error("RowAt in the middle of an instruction found nothing")
	}
	if _, ok := f.RowAt(base + 18); ok {
		t.Error("RowAt past the end found a row")
	}
	if _, ok := f.RowAt(base - 1); ok {
		t.Error("RowAt before the start found a row")
	}
}

func TestLeaveAndLeaRestore(t *testing.T) {
	// mov %rbp,%rsp (leave's first half) restores SP after an alloca.
	code := asm(
		push(rBP),
		setreg(rBP, rSP, 0),
		subspreg(0),         // 6: alloca
		nop(),               // 8
		setreg(rSP, rBP, 0), // 9
		pop(rBP),            // 13
		ret(),               // 15
	)
	f := Analyze(fakeArch, code, base, nil)
	wantKinds(t, f)
	wantState(t, f, 8, "CFA=rbp+16 RA=c-8 FP=c-16 SP=?")
	wantState(t, f, 13, "CFA=rbp+16 RA=c-8 FP=c-16")
	wantState(t, f, 15, "CFA=rsp+8 RA=c-8 FP=u")
}

func TestRealignment(t *testing.T) {
	withFP := asm(push(rBP), setreg(rBP, rSP, 0), andsp(), nop(), setreg(rSP, rBP, 0), pop(rBP), ret())
	f := Analyze(fakeArch, withFP, base, nil)
	wantKinds(t, f)
	if f.Judged != 7 {
		t.Errorf("judged %d, want 7", f.Judged)
	}
	noFP := asm(push(rBX), andsp(), nop(), ret())
	f = Analyze(fakeArch, noFP, base, nil)
	wantKinds(t, f, KindUnknown)
	if !strings.Contains(f.Findings[0].Why, "realignment") || f.Findings[0].PC != base+2 {
		t.Errorf("finding %s", f.Describe(f.Findings[0]))
	}
	wantState(t, f, 3, "-")
	if f.Judged != 2 {
		t.Errorf("judged %d, want 2", f.Judged)
	}
	alloca := asm(push(rBX), subspreg(0), nop(), ret())
	f = Analyze(fakeArch, alloca, base, nil)
	wantKinds(t, f, KindUnknown)
	if !strings.Contains(f.Findings[0].Why, "alloca") {
		t.Errorf("finding %s", f.Describe(f.Findings[0]))
	}
}

func TestStateMismatch(t *testing.T) {
	// jcc over a push: the paths meet at the nop with rsp+8 and rsp+16.
	code := asm(jcc(2), push(rBX), nop(), ret())
	f := Analyze(fakeArch, code, base, nil)
	wantKinds(t, f, KindState, KindRet)
	fd := f.Findings[0]
	if fd.PC != base+4 {
		t.Errorf("state finding at %#x, want %#x", fd.PC, base+4)
	}
	a, b := fd.A.Format(fakeArch), fd.B.Format(fakeArch)
	if a == b || !strings.Contains(a+b, "CFA=rsp+16") || !strings.Contains(a+b, "CFA=rsp+8") {
		t.Errorf("states %q %q", a, b)
	}
	t.Log(f.Describe(fd))
}

func TestLoopGrowingStack(t *testing.T) {
	// A loop that pushes on every turn: the second turn meets the first
	// with a different state, and the walk ends.
	code := asm(push(rBX), jcc(-4), ret())
	f := Analyze(fakeArch, code, base, nil)
	if len(f.Findings) == 0 || f.Findings[0].Kind != KindState {
		t.Fatalf("findings %v", kinds(f))
	}
	if f.Visits > 10 {
		t.Errorf("%d visits for 3 instructions", f.Visits)
	}
}

func TestJoinAux(t *testing.T) {
	// With the CFA on FP, paths that differ only in SP meet without a
	// finding; SP is unknown after, and mov %rbp,%rsp makes it known.
	code := asm(
		push(rBP),           // 0
		setreg(rBP, rSP, 0), // 2
		jcc(2),              // 6
		addsp(-2),           // 8
		nop(),               // 10: meet
		setreg(rSP, rBP, 0), // 11
		pop(rBP),            // 15
		ret(),               // 17
	)
	f := Analyze(fakeArch, code, base, nil)
	wantKinds(t, f)
	wantState(t, f, 10, "CFA=rbp+16 RA=c-8 FP=c-16 SP=?")
	wantState(t, f, 17, "CFA=rsp+8 RA=c-8 FP=u")
	// A register clobbered (not saved) on one path only is lost after.
	code = asm(jcc(2), clobber(rBX), nop(), ret())
	f = Analyze(fakeArch, code, base, nil)
	wantKinds(t, f)
	wantState(t, f, 4, "CFA=rsp+8 RA=c-8 FP=u rbx=undefined")
	// Saved on one path only, or kept in different registers (OCaml,
	// which saves no register): lost after, not a finding; the tables'
	// rules for callee-saved registers are not judged.
	code = asm(jcc(6), save(rBX, rSP, -8), clobber(rBX), nop(), ret())
	f = Analyze(fakeArch, code, base, nil)
	wantKinds(t, f)
	wantState(t, f, 8, "CFA=rsp+8 RA=c-8 FP=u rbx=undefined")
	code = asm(jcc(4), setreg(rDX, rBX, 0), clobber(rBX), nop(), ret())
	f = Analyze(fakeArch, code, base, nil)
	wantKinds(t, f)
	// The RA in two places is still a finding: no row can say where.
	code = asm(jcc(2), pop(rDX), push(rDX), nop(), ret())
	f = Analyze(fakeArch, code, base, nil)
	wantKinds(t, f, KindState)
}

func TestRet(t *testing.T) {
	f := Analyze(fakeArch, asm(push(rBX), ret()), base, nil)
	wantKinds(t, f, KindRet)
	if !strings.Contains(f.Findings[0].Why, "SP is at CFA-16, not CFA-8") {
		t.Error(f.Describe(f.Findings[0]))
	}
	// CFA on FP, SP unknown at the return.
	f = Analyze(fakeArch, asm(push(rBP), setreg(rBP, rSP, 0), subspreg(0), ret()), base, nil)
	wantKinds(t, f, KindRet)
	f = Analyze(fakeArch, asm(push(rBX), pop(rBX), ret()), base, nil)
	wantKinds(t, f)
}

func TestTailCall(t *testing.T) {
	f := Analyze(fakeArch, asm(push(rBX), farjmp(100)), base, nil)
	wantKinds(t, f, KindTailCall)
	f = Analyze(fakeArch, asm(push(rBX), pop(rBX), farjmp(100)), base, nil)
	wantKinds(t, f)
	// A conditional jump out with the frame modified is a note: GCC's
	// jump for __builtin_unreachable to whatever follows.
	f = Analyze(fakeArch, asm(push(rBX), jcc(100), pop(rBX), ret()), base, nil)
	wantKinds(t, f, KindUnknown)
	// A jump to a cold part is an exit, not a tail call.
	opts := &Options{Partition: func(a uint64) bool { return a == base+2+5+100 }}
	f = Analyze(fakeArch, asm(push(rBX), farjmp(100)), base, opts)
	wantKinds(t, f)
	if len(f.Exits) != 1 || f.Exits[0].PC != base+2 || f.Exits[0].Target != base+107 {
		t.Fatalf("exits %+v", f.Exits)
	}
	// The cold part starts from the exit's state and returns after pop.
	cold := Analyze(fakeArch, asm(nop(), pop(rBX), ret()), base+107, &Options{Entry: &f.Exits[0].State})
	wantKinds(t, cold)
	if got := stateAtPC(cold, base+107); got != "CFA=rsp+16 RA=c-8 FP=u rbx=c-16" {
		t.Errorf("cold entry %q", got)
	}
	// Without the pop, the cold part's ret is checked against the
	// function's entry, not the cold part's.
	cold = Analyze(fakeArch, asm(nop(), ret()), base+107, &Options{Entry: &f.Exits[0].State})
	wantKinds(t, cold, KindRet)
}

func stateAtPC(f *Func, pc uint64) string {
	st, why, ok := f.StateAt(pc)
	if !ok {
		return "?" + why
	}
	return st.Format(f.Arch)
}

func TestCalls(t *testing.T) {
	code := asm(push(rBX), call(50), pop(rBX), ret())
	f := Analyze(fakeArch, code, base, nil)
	wantKinds(t, f)
	wantState(t, f, 4, "CFA=rsp+16 RA=c-8 FP=u rbx=c-16")
	// Calls to a function that does not return end the path.
	noret := func(a uint64) bool { return a == base+4+50 }
	f = Analyze(fakeArch, code, base, &Options{NoReturn: noret})
	wantKinds(t, f)
	wantState(t, f, 4, "-")
	// Without knowing it, a call at the end falls through past the end.
	f = Analyze(fakeArch, asm(push(rBX), call(50)), base, nil)
	wantKinds(t, f, KindFallThrough)
}

func TestIndirectJumps(t *testing.T) {
	// jmp *reg with the frame as at entry: a tail call, no finding.
	f := Analyze(fakeArch, asm(jmpind()), base, nil)
	wantKinds(t, f)
	// With a modified frame and no table: unknown.
	code := asm(push(rBX), jmpind(), pop(rBX), ret(), pop(rBX), ret())
	f = Analyze(fakeArch, code, base, nil)
	wantKinds(t, f, KindUnknown)
	wantState(t, f, 3, "-")
	// With a table: both targets followed.
	tab := func(pc uint64) []uint64 {
		if pc == base+2 {
			return []uint64{base + 3, base + 6}
		}
		return nil
	}
	f = Analyze(fakeArch, code, base, &Options{JumpTable: tab})
	wantKinds(t, f)
	wantState(t, f, 3, "CFA=rsp+16 RA=c-8 FP=u rbx=c-16")
	wantState(t, f, 6, "CFA=rsp+16 RA=c-8 FP=u rbx=c-16")
	if f.Judged != 6 {
		t.Errorf("judged %d", f.Judged)
	}
}

func TestUnknownInstructions(t *testing.T) {
	code := asm(push(rBX), unknownOp(), pop(rBX), ret())
	f := Analyze(fakeArch, code, base, nil)
	wantKinds(t, f, KindUnknown)
	if f.Findings[0].Why != "fake: unmodelled" || f.Findings[0].Insn != "op17" {
		t.Error(f.Describe(f.Findings[0]))
	}
	// The unknown instruction's own state is known; what follows is not reached.
	wantState(t, f, 2, "CFA=rsp+16 RA=c-8 FP=u rbx=c-16")
	wantState(t, f, 3, "-")
	// Bytes that are no instruction.
	f = Analyze(fakeArch, []byte{0, 0xff, 0}, base, nil)
	wantKinds(t, f, KindUnknown)
	if got := stateAt(t, f, 1); !strings.HasPrefix(got, "?not an instruction") {
		t.Errorf("state %q", got)
	}
	if f.Decoded != 2 || f.Judged != 1 {
		t.Errorf("decoded %d judged %d", f.Decoded, f.Judged)
	}
	// A truncated instruction at the end.
	f = Analyze(fakeArch, []byte{0, 1}, base, nil)
	wantKinds(t, f, KindUnknown)
	// Stop ends a path quietly.
	f = Analyze(fakeArch, asm(push(rBX), stop()), base, nil)
	wantKinds(t, f)
}

func TestBudget(t *testing.T) {
	code := asm(nop(), nop(), nop(), nop(), ret())
	f := Analyze(fakeArch, code, base, &Options{Budget: 3})
	wantKinds(t, f, KindUnknown)
	if f.Visits != 3 || !strings.Contains(f.Findings[0].Why, "budget") {
		t.Errorf("visits %d: %s", f.Visits, f.Describe(f.Findings[0]))
	}
}

func TestNoDecoder(t *testing.T) {
	a := *fakeArch
	a.Decoder = nil
	f := Analyze(&a, []byte{0x13}, base, nil)
	wantKinds(t, f, KindUnknown)
	f = Analyze(nil, []byte{0x13}, base, nil)
	wantKinds(t, f, KindUnknown)
	if f.Index(base) != -1 {
		t.Error("index in an empty Func")
	}
}

func TestLinkRegister(t *testing.T) {
	const sp, fp, lr = 31, 29, 30
	// stp x29, x30, [sp, #-16]!; mov x29, sp; ...; ldp x29, x30, [sp], #16; ret
	code := asm(
		addsp(-2),          // 0
		save(fp, sp, 0),    // 2
		save(lr, sp, 8),    // 6
		setreg(fp, sp, 0),  // 10
		clobber(lr),        // 14: bl
		restore(fp, sp, 0), // 16
		restore(lr, sp, 8), // 20
		addsp(2),           // 24
		ret(),              // 26
	)
	f := Analyze(fakeLR, code, base, nil)
	wantKinds(t, f)
	wantState(t, f, 0, "CFA=r31+0 RA=r30 FP=u")
	wantState(t, f, 14, "CFA=r29+16 RA=c-8 FP=c-16")
	wantState(t, f, 26, "CFA=r31+0 RA=r30 FP=u")
	// A leaf that overwrites x30 without saving it cannot return.
	f = Analyze(fakeLR, asm(clobber(lr), ret()), base, nil)
	wantKinds(t, f, KindRet)
	if !strings.Contains(f.Findings[0].Why, "RA is undefined") {
		t.Error(f.Describe(f.Findings[0]))
	}
	if row, _ := f.RowAt(base + 2); row.RA.Kind != rule.Undefined {
		t.Errorf("RA %v", row.RA)
	}
}

func TestEntryState(t *testing.T) {
	st, ok := EntryState(fakeArch)
	if !ok {
		t.Fatal("no entry state")
	}
	if got := st.Format(fakeArch); got != "CFA=rsp+8 RA=c-8 FP=u" {
		t.Errorf("entry %q", got)
	}
	if k, ok := st.SPOffset(); !ok || k != -8 {
		t.Errorf("SPOffset %d %v", k, ok)
	}
	if _, ok := st.FPOffset(); ok {
		t.Error("FP known at entry")
	}
	bad := *fakeArch
	bad.Entry.CFA.Reg = rBP
	if _, ok := EntryState(&bad); ok {
		t.Error("FP-based entry CFA accepted")
	}
	f := Analyze(&bad, []byte{0x13}, base, nil)
	wantKinds(t, f, KindUnknown)
	var zero State
	f = Analyze(fakeArch, []byte{0x13}, base, &Options{Entry: &zero})
	_ = f // the zero State has SP = CFA+0: valid; nothing to assert but no panic
	if got := Tracked(fakeArch); len(got) != 7 || got[0] != rRA || got[1] != rBP {
		t.Errorf("tracked %v", got)
	}
	_ = arch.Other
}

func TestPAuth(t *testing.T) {
	const sp, fp, lr = 31, 29, 30
	pac, aut, retaa := []byte{0x19}, []byte{0x1a}, []byte{0x1b}
	// paciasp; stp; ...; ldp; autiasp; ret: clean, RA mangled in between.
	code := asm(pac, addsp(-2), save(fp, sp, 0), save(lr, sp, 8), restore(fp, sp, 0), restore(lr, sp, 8), addsp(2), aut, ret())
	f := Analyze(fakeLR, code, base, nil)
	wantKinds(t, f)
	if row, _ := f.RowAt(base + 1); !row.MangledRA || row.PAuthKey != rule.PAuthKeyA {
		t.Errorf("row after paciasp: %+v", row)
	}
	if row, _ := f.RowAt(base + 0); row.MangledRA {
		t.Error("RA mangled before paciasp")
	}
	// retaa authenticates itself.
	f = Analyze(fakeLR, asm(pac, retaa), base, nil)
	wantKinds(t, f)
	// A signed RA returned with a plain ret: a fault.
	f = Analyze(fakeLR, asm(pac, ret()), base, nil)
	wantKinds(t, f, KindRet)
	// Signed on one path only: the paths disagree.
	f = Analyze(fakeLR, asm(jcc(1), pac, nop(), aut, ret()), base, nil)
	wantKinds(t, f, KindState)
}

func TestValueInRegister(t *testing.T) {
	// mov %rsp,%r12; sub $32,%rsp; mov %rbx,-8(%r12); mov %r12,%rsp; ret:
	// SP comes back from r12, and a save through r12 is placed.
	code := asm(
		setreg(r12, rSP, 0),   // 0
		addsp(-4),             // 4
		save(rBX, r12, -8),    // 6
		clobber(rBX),          // 10
		restore(rBX, r12, -8), // 12
		setreg(rSP, r12, 0),   // 16
		ret(),                 // 20
	)
	f := Analyze(fakeArch, code, base, nil)
	wantKinds(t, f)
	wantState(t, f, 12, "CFA=rsp+40 RA=c-8 FP=u rbx=c-16 r12=undefined")
	wantState(t, f, 20, "CFA=rsp+8 RA=c-8 FP=u r12=undefined")
	// Once r12 is overwritten, SP cannot come back from it.
	code = asm(setreg(r12, rSP, 0), addsp(-4), clobber(r12), setreg(rSP, r12, 0), ret())
	f = Analyze(fakeArch, code, base, nil)
	wantKinds(t, f, KindUnknown)
}

func TestHostileJumpTable(t *testing.T) {
	// Every byte an indirect jump whose table is every byte, with the
	// frame modified so no jump is a tail call: the queue, the visits and
	// the findings stay bounded.
	const n = 1 << 12
	code := make([]byte, n)
	code[0] = 1 // push %rbx, then jmp * everywhere
	code[1] = rBX
	for i := 2; i < n; i++ {
		code[i] = 0x14
	}
	all := make([]uint64, n)
	for i := range all {
		all[i] = base + uint64(i)
	}
	f := Analyze(fakeArch, code, base, &Options{JumpTable: func(uint64) []uint64 { return all }})
	if f.Visits > DefaultBudget(n) || len(f.Findings) > MaxFindings {
		t.Errorf("%d visits, %d findings", f.Visits, len(f.Findings))
	}
	// The first jump queues what the queue holds (maxQueued) and says
	// that it dropped the rest.
	if f.Judged < maxQueued(n) || f.Judged > n {
		t.Errorf("judged %d of %d", f.Judged, n)
	}
	found := false
	for _, fd := range f.Findings {
		found = found || strings.Contains(fd.Why, "too many branches")
	}
	if !found {
		t.Error("no finding says branches were dropped")
	}
}

func TestCallPresumedNotToReturn(t *testing.T) {
	// GCC places the next block right after a call to a function that
	// does not return (qemu's g_assertion_message_expr through the PLT,
	// which no name list knows): the call's fall-through, through padding,
	// meets the block's jumps with another state. The call's path ends
	// there instead of a "two paths meet" finding, in either order of the
	// walk.
	second := asm(
		push(rBX), // 0: CFA=rsp+16
		jcc(5),    // 2: to 9 with rsp+16
		pop(rBX),  // 4
		jcc(4),    // 6: to 12 with rsp+8
		ret(),     // 8
		call(50),  // 9: the error path
		nop(),     // 11: padding
		nop(),     // 12: the block the jcc at 6 enters
		ret(),     // 13
	)
	first := asm(
		jcc(10),   // 0: to 12 with rsp+8, walked last
		push(rBX), // 2
		jcc(3),    // 4: to 9 with rsp+16, walked first
		pop(rBX),  // 6
		ret(),     // 8
		call(50),  // 9
		nop(),     // 11
		nop(),     // 12
		ret(),     // 13
	)
	for name, code := range map[string][]byte{"fall-through second": second, "fall-through first": first} {
		f := Analyze(fakeArch, code, base, nil)
		wantKinds(t, f)
		if len(f.PresumedNoReturn) != 1 || f.PresumedNoReturn[0] != base+9 {
			t.Errorf("%s: presumed %#x, want [%#x]", name, f.PresumedNoReturn, base+9)
		}
		wantState(t, f, 12, "CFA=rsp+8 RA=c-8 FP=u")
	}
	// A path that does something after the call is not a fall-through
	// into padding: the meeting is a finding.
	f := Analyze(fakeArch, asm(push(rBX), jcc(5), pop(rBX), jcc(5), ret(), call(50), push(r12), nop(), ret()), base, nil)
	if len(f.Findings) == 0 || f.Findings[0].Kind != KindState || len(f.PresumedNoReturn) != 0 {
		t.Errorf("findings %v, presumed %#x", kinds(f), f.PresumedNoReturn)
	}
}

func TestIndirectCallAndSyscallPresumedNotToReturn(t *testing.T) {
	// Tcl_PanicVA: call *%r10 to the panic procedure after pushing its
	// arguments, then the block its jumps enter; the sanitizers'
	// internal_clone: the child's exit syscall, then the parent's label.
	for name, last := range map[string][]byte{"indirect call": callind(), "syscall": sysc()} {
		code := asm(
			jcc(int8(2+len(last))), // 0: to the block with rsp+8
			push(rBX),              // 2: rsp+16
			last,                   // 4
			nop(),                  // the block
			ret(),
		)
		f := Analyze(fakeArch, code, base, nil)
		wantKinds(t, f)
		if len(f.PresumedNoReturn) != 1 || f.PresumedNoReturn[0] != base+4 {
			t.Errorf("%s: presumed %#x, want [%#x]", name, f.PresumedNoReturn, base+4)
		}
	}
	// Any other instruction before the block is a real meeting.
	f := Analyze(fakeArch, asm(jcc(4), push(rBX), clobber(rBX), nop(), ret()), base, nil)
	if len(f.Findings) == 0 || f.Findings[0].Kind != KindState {
		t.Errorf("findings %v", kinds(f))
	}
}
