package code

import (
	"debug/elf"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// MaxRegs bounds the registers a State tracks: the return address, the
// frame pointer and the callee-saved registers of the machine, in that
// order (AArch64: x30, x29, x19-x28, d8-d15 is 20). Registers past it are
// not tracked.
const MaxRegs = 24

// MaxVals bounds the registers whose CFA-relative value a State follows:
// DWARF numbers 0 to MaxVals-1 (AMD64 rax-r15, AArch64 x0-x30 and sp,
// s390x r0-r15 and f0-f15). A copy of SP or FP, or of the CFA, in any of
// them is followed (lea (%rsp),%rax ... mov %rax,%rbp; mov x9, sp; lgr
// %r1,%r15); higher registers are not.
const MaxVals = 32

// Sentinels of the int32 fields of State: a register value that is not
// CFA-relative, and the two slots that are not a CFA offset.
const (
	unknown  int32 = math.MinInt32     // val: not known relative to the CFA
	slotSame int32 = math.MinInt32     // slot: the caller's value is still in its register
	slotLost int32 = math.MinInt32 + 1 // slot: the caller's value is overwritten and not saved
	// slotRegBase + r: the caller's value is in register r (0 <= r < 256),
	// copied there (s390x ldgr %f0,%r14).
	slotRegBase int32 = math.MinInt32 + 2
)

// isOff reports whether slot v is a CFA offset.
func isOff(v int32) bool { return v > -maxOff && v < maxOff }

// slotReg returns the slot "in register r", or slotLost for a register
// number outside 0-255.
func slotReg(r rule.Reg) int32 {
	if r < 0 || r > 255 {
		return slotLost
	}
	return slotRegBase + int32(r)
}

// maxOff bounds a known CFA-relative offset; an operation that leaves it
// makes the value unknown (no code has a 1 GiB frame).
const maxOff = 1 << 30

// State flags.
const (
	flagFPFrame = 1 // FP is the frame pointer: set from SP, pointing at the caller's saved FP
	flagMangled = 2 // the RA is signed (AArch64 paciasp/pacibsp)
	flagKeyB    = 4 // ... with key B
	// flagRealigned: SP is unknown because it was realigned (SP &= mask),
	// not set from a value the walk does not follow: the CFA may be on a
	// copy of SP in another register until SP is set again.
	flagRealigned = 8
)

// State is the code's stack state before an instruction, relative to the
// CFA (the caller's SP at the call, plus the machine's CFA offset). It is
// comparable with ==. The zero value is not a valid state.
type State struct {
	sp, fp int32 // SP = CFA + sp, FP = CFA + fp, or unknown
	// SP's value CFA + spVal is saved at CFA + spSlot (s390x stmg saves
	// r15 with the other registers and lmg loads it back), or spSlot is
	// unknown.
	spSlot, spVal int32
	// local has bit r set while register r (r < 32) holds an address in
	// the function (AArch64 adr x30, 2f: a continuation for a saved
	// context to resume at); a return or tail call through it jumps
	// within the function. maybe has bit r set while register r holds a
	// word the walk does not follow that may be the caller's RA: loaded
	// from the caller's area (at or above the entry SP, where PLT0 pushes
	// the RA before _dl_runtime_profile), or from maybeSlot, the
	// CFA-relative slot such a word was last stored to (unknown: none).
	local, maybe uint32
	maybeSlot    int32
	// val[r] ^ valNone is k when register r (other than SP and FP) holds
	// CFA + k, and valNone otherwise (so the zero value is "not known"):
	// SP or FP copied to another register and moved by constants (x86
	// lea (%rsp),%rax ... mov %rax,%rbp; s390x ldgr %f0,%r15 ... lgdr
	// %r15,%f0; lgr %r14,%r15 as a pointer for std). objtool follows the
	// same copies (arch/x86/decode.c: OP_SRC_REG/OP_DEST_REG stack ops,
	// check.c: cfi->vals). 16 bits keep the state small (it is copied and
	// compared at every instruction): a copy further than 32 KiB from the
	// CFA is not followed, which loses coverage, never gives a finding.
	// See value and setValue.
	val [MaxVals]int16
	// regs[i] is where the caller's value of the i-th tracked register
	// is: at CFA + regs[i], or slotSame (in the register), or slotLost, or
	// slotRegBase + r (in register r).
	// When bit i of inreg is set, the value is in both places: the
	// register was saved at CFA + regs[i] and not yet overwritten, or it
	// was loaded back from there (CFI may name either place).
	regs [MaxRegs]int32
	// cp[i], when not 0, is 1 + a register that holds the caller's value
	// of tracked register i besides its slot at CFA + regs[i]: the RA
	// popped into rdi and pushed back (vfork), a register loaded from the
	// slot that leaves it in the frame. Only set when regs[i] is a CFA
	// offset.
	cp    [MaxRegs]uint8
	inreg uint32
	// restored marks the registers of inreg that were loaded back from
	// their slot (rather than saved there and not yet overwritten).
	restored uint32
	flags    uint8
}

// same reports whether tracked register i holds the caller's value.
func (s *State) same(i int) bool { return s.regs[i] == slotSame || s.inreg>>i&1 != 0 }

// regTable is a machine's tracked registers, computed once per Arch.
type regTable struct {
	regs   []rule.Reg
	index  [256]int8 // DWARF number -> index in regs, or -1
	ra, fp int       // indexes of RA and FP in regs
	sp     rule.Reg
	fpReg  rule.Reg
	entry  State
	raRule rule.Rule // RA's rule while it is in its register
	// redZone is how many bytes below SP keep their value across a
	// signal (the AMD64 psABI's red zone, §3.2.2; none elsewhere): a
	// register's copy in a slot further below SP is not a copy.
	redZone int32
	// callClobbered has bit r set for each register r < 64 that a call
	// may overwrite (neither callee-saved nor SP, psABI): a copy there
	// does not survive a call.
	callClobbered uint64
	// follow has bit r set for SP, FP and each tracked register r < 64:
	// the registers whose write matters even in a plain state.
	follow uint64
	err    string // why the machine cannot be walked
}

// The rules without a base, as the other readers write them (frames/cfi,
// sframe): Reg is rule.CFA.
var (
	ruleSame      = rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	ruleUndefined = rule.Rule{Kind: rule.Undefined, Reg: rule.CFA}
)

var tables sync.Map // *arch.Arch -> *regTable

func tableFor(a *arch.Arch) *regTable {
	if t, ok := tables.Load(a); ok {
		return t.(*regTable)
	}
	t := newTable(a)
	v, _ := tables.LoadOrStore(a, t)
	return v.(*regTable)
}

func newTable(a *arch.Arch) *regTable {
	t := &regTable{sp: a.SP, fpReg: a.FP}
	if a.Machine == elf.EM_X86_64 { // TODO(arch): a RedZone field on Arch
		t.redZone = 128
	}
	for i := range t.index {
		t.index[i] = -1
	}
	add := func(r rule.Reg) {
		if r < 0 || int(r) >= len(t.index) || t.index[r] >= 0 || r == a.SP || len(t.regs) == MaxRegs {
			return
		}
		t.index[r] = int8(len(t.regs))
		t.regs = append(t.regs, r)
	}
	add(a.RA)
	add(a.FP)
	for _, r := range a.CalleeSaved {
		add(r)
	}
	t.callClobbered = ^uint64(0)
	for _, r := range append([]rule.Reg{a.SP}, a.CalleeSaved...) {
		if r >= 0 && r < 64 {
			t.callClobbered &^= 1 << r
		}
	}
	for _, r := range append([]rule.Reg{a.SP, a.FP}, t.regs...) {
		if r >= 0 && r < 64 {
			t.follow |= 1 << r
		}
	}
	t.ra, t.fp = t.idx(a.RA), t.idx(a.FP)
	if t.ra < 0 || t.fp < 0 || a.SP < 0 {
		t.err = fmt.Sprintf("machine %s: no SP, FP or RA register to track", a.Name)
		return t
	}
	e := &t.entry
	e.sp, e.fp, e.spSlot, e.spVal, e.maybeSlot = unknown, unknown, unknown, unknown, unknown
	for i := range e.regs {
		e.regs[i] = slotSame
	}
	if c := a.Entry.CFA; c.Kind != rule.ValOffset || c.Reg != a.SP || c.Offset <= -maxOff || c.Offset >= maxOff {
		t.err = fmt.Sprintf("machine %s: entry CFA %s is not SP-based", a.Name, a.Format(c))
		return t
	} else {
		e.sp = int32(-c.Offset)
	}
	switch r := a.Entry.RA; {
	case r.Kind == rule.Offset && r.Reg == rule.CFA && r.Offset > -maxOff && r.Offset < maxOff:
		e.regs[t.ra] = int32(r.Offset)
		t.raRule = rule.Rule{Kind: rule.Register, Reg: a.RA}
	case r.Kind == rule.Register || r.Kind == rule.SameValue:
		t.raRule = r
	default:
		t.err = fmt.Sprintf("machine %s: entry RA rule %s not understood", a.Name, a.Format(r))
	}
	return t
}

func (t *regTable) idx(r rule.Reg) int {
	if r < 0 || int(r) >= len(t.index) {
		return -1
	}
	return int(t.index[r])
}

// EntryState returns the state at a function's entry on machine a
// (arch.Arch.Entry), and false when a's entry rules are not ones the walk
// understands.
func EntryState(a *arch.Arch) (State, bool) {
	t := tableFor(a)
	return t.entry, t.err == ""
}

// cfa returns the register and offset the CFA is computed from: CFA =
// reg + off: FP for a frame pointer, else SP, else FP, else a register
// holding a copy of them.
func (s *State) cfa(t *regTable) (rule.Reg, int64, bool) {
	if s.flags&flagFPFrame != 0 && s.fp != unknown {
		return t.fpReg, -int64(s.fp), true
	}
	if s.sp != unknown {
		return t.sp, -int64(s.sp), true
	}
	if s.fp != unknown {
		return t.fpReg, -int64(s.fp), true
	}
	// Neither, after a realignment: a copy of SP in another register
	// (mov %rsp,%r9; and $-64,%rsp ... lea (%r9),%rsp; the register
	// objtool calls the DRAP), the lowest numbered. Not after SP was set
	// from a value the walk does not follow (eh_return: mov %rcx,%rsp).
	if s.flags&flagRealigned != 0 {
		for r, v := range s.val {
			if v != 0 {
				return rule.Reg(r), -int64(v ^ valNone), true
			}
		}
	}
	return 0, 0, false
}

// SPOffset returns SP - CFA in bytes (-8 at an AMD64 entry), and false when
// SP is not known relative to the CFA (after a realignment or an alloca).
func (s State) SPOffset() (int64, bool) { return int64(s.sp), s.sp != unknown }

// FPOffset returns FP - CFA in bytes, and false when FP does not hold a
// CFA-relative value (it holds the caller's FP or anything else).
func (s State) FPOffset() (int64, bool) { return int64(s.fp), s.fp != unknown }

// CFAVia returns k such that CFA = reg + k, for reg the SP or FP of a or
// any register below MaxVals that holds a copy of them (lea (%rsp),%rax:
// CFA=rax+8), and false when reg's value is not known relative to the CFA.
// A table whose CFA rule is reg+k agrees with the code exactly when CFAVia
// returns k, whichever base Row prefers. For a rule based on a register
// the walk cannot place (gcc's eh_return epilogue: CFA=rcx+8; __longjmp:
// rdi) CFAVia says false, which means "cannot judge", not "differs".
func (s State) CFAVia(a *arch.Arch, reg rule.Reg) (int64, bool) {
	var v int32
	switch {
	case reg == a.SP:
		v = s.sp
	case reg == a.FP:
		v = s.fp
	case reg < 0 || reg >= MaxVals:
		return 0, false
	default:
		v = s.value(nil, reg)
	}
	return -int64(v), v != unknown
}

// value returns k when register r holds CFA + k, else unknown (t nil: r
// is neither SP nor FP).
func (s *State) value(t *regTable, r rule.Reg) int32 {
	switch {
	case t != nil && r == t.sp:
		return s.sp
	case t != nil && r == t.fpReg:
		return s.fp
	case r < 0 || r >= MaxVals:
		return unknown
	}
	if v := s.val[r] ^ valNone; v != valNone {
		return int32(v)
	}
	return unknown
}

// valNone is the sentinel of an unknown val.
const valNone int16 = math.MinInt16

// setValue records that register r, neither SP nor FP, holds CFA + v (v
// may be unknown).
func (s *State) setValue(r rule.Reg, v int32) {
	if r >= 0 && r < MaxVals {
		if v <= math.MinInt16 || v > math.MaxInt16 {
			s.val[r] = 0 // unknown, or too far to keep
		} else {
			s.val[r] = int16(v) ^ valNone
		}
	}
}

// Saved returns the rule for the caller's value of register reg: Offset
// from the CFA when saved, SameValue while still in its register (for the
// RA: the machine's entry rule, Register x30 or r14), Undefined when it was
// overwritten without being saved. tracked is false for a register the
// state does not track (not RA, FP or callee-saved).
func (s State) Saved(a *arch.Arch, reg rule.Reg) (r rule.Rule, tracked bool) {
	t := tableFor(a)
	i := t.idx(reg)
	if i < 0 {
		return ruleSame, false
	}
	return s.slotRule(t, i), true
}

func (s *State) slotRule(t *regTable, i int) rule.Rule {
	v := s.regs[i]
	// In both places: the slot while it is in the frame and a copy, the
	// register once it was popped from it.
	if s.inreg>>i&1 != 0 && (s.sp != unknown && v < s.sp || !s.copyValid(t, i)) {
		v = slotSame
	}
	switch v {
	case slotSame:
		if i == t.ra {
			return t.raRule
		}
		return ruleSame
	case slotLost:
		return ruleUndefined
	}
	if !isOff(v) {
		return rule.Rule{Kind: rule.Register, Reg: rule.Reg(v - slotRegBase)}
	}
	return rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: int64(v)}
}

// SavedAt returns the CFA offset of a stack slot that holds the caller's
// value of reg: where it is saved, or where it was saved and loaded back
// from (a CFI rule that still names that slot after the epilogue's pop is
// right too), and false when there is none.
func (s State) SavedAt(a *arch.Arch, reg rule.Reg) (int64, bool) {
	t := tableFor(a)
	i := t.idx(reg)
	if i < 0 || !isOff(s.regs[i]) {
		return 0, false
	}
	if !s.copyValid(t, i) {
		return 0, false
	}
	return int64(s.regs[i]), true
}

// copyValid reports whether the slot of tracked register i, a CFA offset,
// still counts as holding the caller's value. A register loaded back from
// it leaves a copy while the slot is live: not below SP beyond the red
// zone, where a signal frame may overwrite it (the s390x register save
// area in the caller's frame stays live after lmg).
func (s *State) copyValid(t *regTable, i int) bool {
	v := s.regs[i]
	if !isOff(v) {
		return false
	}
	if s.restored>>i&1 != 0 && s.sp != unknown && v < s.sp-t.redZone {
		return false
	}
	return true
}

// CopiedTo returns the register that holds a copy of the caller's value
// of reg (s390x: ldgr %f0,%r14 keeps the RA in f0; x86 mov %rbp,%r11;
// the RA popped into rdi, also after it is pushed back), and false when
// there is none. A table whose rule says reg is in that register is right.
func (s State) CopiedTo(a *arch.Arch, reg rule.Reg) (rule.Reg, bool) {
	i := tableFor(a).idx(reg)
	if i < 0 {
		return 0, false
	}
	v := s.regs[i]
	if isOff(v) && s.cp[i] != 0 {
		return rule.Reg(s.cp[i] - 1), true
	}
	if v == slotSame || v == slotLost || isOff(v) {
		return 0, false
	}
	return rule.Reg(v - slotRegBase), true
}

// MayHoldCaller reports whether reg, the RA's register, was loaded from
// a stack slot whose content the walk does not follow and not written
// since: it may hold the caller's value besides where Saved says, so a
// rule naming the register cannot be refuted (glibc's AArch64
// _dl_runtime_profile: ldr x30, [x29, #472] of the RA copied there from
// PLT0's push). False for any other register.
func (s State) MayHoldCaller(a *arch.Arch, reg rule.Reg) bool {
	return reg == a.RA && s.maybe&regBit(reg) != 0
}

// InRegister reports whether register reg holds the caller's value (it
// was not overwritten, or was loaded back from its slot): a table that
// says "same value" for it is right.
func (s State) InRegister(a *arch.Arch, reg rule.Reg) bool {
	i := tableFor(a).idx(reg)
	return i >= 0 && s.same(i)
}

// Tracked returns the registers a State tracks on a: RA, FP, then the
// callee-saved registers.
func Tracked(a *arch.Arch) []rule.Reg { return tableFor(a).regs }

// Row returns the state as a row: CFA = ValOffset of FP or SP plus k (see
// the package doc for which), RA and FP as Saved gives them, SPOffset from
// a's entry row. The CFA is Undefined for an invalid state.
func (s State) Row(a *arch.Arch) rule.Row {
	t := tableFor(a)
	row := rule.Row{SPOffset: a.Entry.SPOffset}
	if reg, off, ok := s.cfa(t); ok {
		row.CFA = rule.Rule{Kind: rule.ValOffset, Reg: reg, Offset: off}
	}
	if t.err != "" {
		return row
	}
	row.RA = s.slotRule(t, t.ra)
	row.FP = s.slotRule(t, t.fp)
	if s.flags&flagMangled != 0 {
		row.MangledRA = true
		if s.flags&flagKeyB != 0 {
			row.PAuthKey = rule.PAuthKeyB
		}
	}
	return row
}

// Format formats the state with a's register names: "CFA=rsp+16 RA=c-8
// FP=c-16 rbx=c-24", listing the callee-saved registers that are saved or
// lost, and "SP=?" when SP is not known.
func (s State) Format(a *arch.Arch) string {
	t := tableFor(a)
	var b strings.Builder
	row := s.Row(a)
	fmt.Fprintf(&b, "CFA=%s RA=%s FP=%s", a.Format(row.CFA), a.Format(row.RA), a.Format(row.FP))
	for i, r := range t.regs {
		rr := s.slotRule(t, i)
		if i == t.ra || i == t.fp || rr.Kind == rule.SameValue {
			continue
		}
		fmt.Fprintf(&b, " %s=%s", a.RegName(r), a.Format(rr))
	}
	if reg, _, ok := s.cfa(t); ok && reg != t.sp && s.sp == unknown {
		b.WriteString(" SP=?")
	}
	return b.String()
}

// join merges the states of two paths that meet. Values that differ but
// do not decide the CFA or a saved register (SP while the CFA is FP-based,
// FP while it is SP-based, the frame-pointer flag, a register lost on one
// path) become unknown or lost. ok is false when the paths disagree on
// where the CFA is or where a register is saved: a finding.
func join(t *regTable, a, b State) (State, bool) {
	j := a
	if a.sp != b.sp {
		j.sp = unknown
	}
	if a.fp != b.fp {
		j.fp = unknown
	}
	if a.spSlot != b.spSlot || a.spVal != b.spVal {
		j.spSlot, j.spVal = unknown, unknown
	}
	if a.val != b.val {
		for r := range j.val {
			if a.val[r] != b.val[r] {
				j.val[r] = 0 // not known
			}
		}
	}
	if (a.flags^b.flags)&(flagMangled|flagKeyB) != 0 {
		return a, false // the RA signed on one path only
	}
	// Realigned on one path: the CFA may be on a copy that both keep.
	// A register that may hold the RA, or a continuation, on one path
	// may on the joined one.
	j.flags = a.flags&b.flags | (a.flags|b.flags)&flagRealigned
	j.local, j.maybe = a.local|b.local, a.maybe|b.maybe
	if a.maybeSlot != b.maybeSlot {
		j.maybeSlot = unknown
	}
	for i := range t.regs {
		x, y := a.regs[i], b.regs[i]
		xs, ys := a.same(i), b.same(i)
		bit := uint32(1) << i
		switch {
		case x == y && a.inreg&bit == b.inreg&bit && a.restored&bit == b.restored&bit:
		case x == y && x != slotSame && x != slotLost && a.inreg&bit == b.inreg&bit: // restored on one path
			j.restored |= bit
		case x == y && x != slotSame && x != slotLost: // saved alike; in the register on one path only
			j.inreg &^= bit
			j.restored &^= bit
		case xs && ys: // in the register on both paths, a copy in different places
			j.regs[i], j.inreg, j.restored = slotSame, j.inreg&^bit, j.restored&^bit
		case (xs || x == slotLost) && (ys || y == slotLost), i != t.ra:
			// Two paths keep the caller's value in different places
			// (OCaml saves no register, PHP's VM keeps globals in
			// r14/r15): after they meet it is in neither for sure. Only
			// the RA's place is a fault of the code's frame; the tables'
			// rules for the other registers are not judged, so a
			// disagreement there is no finding (issue 30's first class).
			j.regs[i], j.inreg, j.restored = slotLost, j.inreg&^bit, j.restored&^bit
		default:
			return a, false
		}
		if a.cp[i] != b.cp[i] || !isOff(j.regs[i]) {
			j.cp[i] = 0 // in that register on one path only: the slot has it
		}
	}
	_, _, ok := j.cfa(t)
	return j, ok
}

// joinBound joins a and b, states whose SP differs where a loop meets
// itself (LLVM's inline stack probe: sub $0x1000,%rsp each turn until
// rsp equals r11), when register r, which the loop compares with SP, holds
// the same CFA-relative value in both, at or below both SPs: SP is not
// known after, and the CFA is on the copies of SP (the table's CFA rule
// is r11-based there). It reports false when that does not hold or the
// states differ otherwise too.
func joinBound(t *regTable, a, b State, r rule.Reg) (State, bool) {
	if a.sp == b.sp || a.sp == unknown || b.sp == unknown || r == t.sp || r == t.fpReg {
		return a, false
	}
	v := a.value(t, r)
	if v == unknown || v != b.value(t, r) || v > a.sp || v > b.sp {
		return a, false
	}
	a.sp, b.sp = unknown, unknown
	a.flags |= flagRealigned
	b.flags |= flagRealigned
	return join(t, a, b)
}

// learnSP sets SP to register r's value, which a compare and the way of a
// conditional jump it took say SP equals; it reports false when r's value
// is not known relative to the CFA (then s is unchanged).
func (s *State) learnSP(t *regTable, r rule.Reg) bool {
	v := s.value(t, r)
	if v == unknown || r == t.sp {
		return false
	}
	s.sp = v
	s.flags &^= flagRealigned
	return true
}

// AtEntry reports whether s is the caller's frame as at a call's entry
// on a: SP at the return address's slot, RA where the call put it, and
// every tracked register holding the caller's value. A jump with such a
// state is a tail call as far as the stack is concerned; one with another
// state enters another part of the function (or is a fault).
func (s State) AtEntry(a *arch.Arch) bool {
	t := tableFor(a)
	if t.err != "" || frameAtEntry(t, a, &s, false) != "" {
		return false
	}
	for i := range t.regs {
		if i != t.ra && !s.same(i) {
			return false
		}
	}
	return true
}

// frameAtEntry reports whether s is the caller's frame as at the entry:
// SP at the return address's slot and RA where the call put it. It returns
// why not.
func frameAtEntry(t *regTable, a *arch.Arch, s *State, authenticates bool) string {
	e := &t.entry
	if s.sp != e.sp {
		if s.sp == unknown {
			return "SP is not known relative to the CFA"
		}
		return fmt.Sprintf("SP is at CFA%+d, not CFA%+d", s.sp, e.sp)
	}
	if s.same(t.ra) != e.same(t.ra) || !s.same(t.ra) && s.regs[t.ra] != e.regs[t.ra] {
		return fmt.Sprintf("RA is %s, not %s", a.Format(s.slotRule(t, t.ra)), a.Format(e.slotRule(t, t.ra)))
	}
	if s.flags&flagMangled != 0 && !authenticates {
		return "RA is still signed (no autiasp/autibsp before it)"
	}
	return ""
}

// pushJumps reports whether a return right after a push of register r
// jumps rather than returns: SP is known and not at the RA's slot of the
// entry (the frame is still allocated) and r does not hold the RA.
func pushJumps(t *regTable, a *arch.Arch, s *State, r rule.Reg) bool {
	if s.sp == unknown || s.sp == t.entry.sp {
		return false
	}
	return !holdsRA(a, s, r)
}

// raNotJudged says why a return or tail call through register reg
// (the link register, or ret x15's), with state s whose frame is not as
// at the entry, cannot be judged, or returns "": reg holds a
// continuation in the function (the jump goes there, or the callee
// returns there), or the frame is as at the entry but for the RA, and
// reg may hold the RA (State.maybe). authenticated: the RA was
// authenticated, or never signed.
func raNotJudged(t *regTable, a *arch.Arch, s *State, reg rule.Reg, authenticated bool) string {
	if reg < 0 || reg >= 32 {
		return ""
	}
	name := func() string { return a.Format(rule.Rule{Kind: rule.Register, Reg: reg}) }
	if s.local>>reg&1 != 0 {
		return name() + ", which was set to an address in this function (a continuation, as swapcontext's adr x30): a jump the walk does not follow"
	}
	if s.maybe>>reg&1 != 0 && reg == t.regs[t.ra] {
		in := *s
		in.inreg |= 1 << t.ra
		if frameAtEntry(t, a, &in, authenticated) == "" {
			return name() + ", loaded from the caller's area or a copy of it (it may hold the RA)"
		}
	}
	return ""
}

// holdsRA reports whether register r holds a copy of the caller's RA.
func holdsRA(a *arch.Arch, s *State, r rule.Reg) bool {
	c, ok := s.CopiedTo(a, a.RA)
	return ok && c == r
}

// pauth applies an AArch64 pointer-authentication hint, which the decoder
// reports in Inst.Why (arch.WhyPAuthSignA ...). It reports whether the
// instruction authenticates the RA.
func (s *State) pauth(why string) (authenticates bool) {
	switch why {
	case arch.WhyPAuthSignA:
		s.flags = s.flags&^flagKeyB | flagMangled
	case arch.WhyPAuthSignB:
		s.flags |= flagMangled | flagKeyB
	case arch.WhyPAuthAuthA, arch.WhyPAuthAuthB:
		s.flags &^= flagMangled | flagKeyB
		return true
	}
	return false
}

// idle reports whether register r holds nothing the state follows: it is
// not SP or FP nor a tracked register, holds no CFA-relative value and no
// caller's value. Writing it changes nothing.
func (s *State) idle(t *regTable, r rule.Reg) bool {
	if r == t.sp || r == t.fpReg || t.idx(r) >= 0 || s.value(t, r) != unknown {
		return false
	}
	if (s.local|s.maybe)&regBit(r) != 0 {
		return false
	}
	if c := slotReg(r); c != slotLost {
		for i := range t.regs {
			if s.regs[i] == c || s.cp[i] != 0 && rule.Reg(s.cp[i]-1) == r {
				return false
			}
		}
	}
	return true
}

// plain reports whether no register other than SP, FP and the tracked
// ones holds anything the state follows: no CFA-relative value and no
// caller's value (most states of compiled code). In a plain state, an
// operation on registers outside regTable.follow changes nothing
// (inertPlain).
func (s *State) plain() bool {
	if s.val != [MaxVals]int16{} || s.cp != [MaxRegs]uint8{} || s.local|s.maybe != 0 {
		return false
	}
	for _, v := range s.regs {
		if v != slotSame && v != slotLost && !isOff(v) {
			return false
		}
	}
	return true
}

// inertPlain is inert for a plain state: every operation is on registers
// outside t.follow (a store or load through such a base is not placed).
func inertPlain(t *regTable, in *arch.Inst) bool {
	for k := 0; k < in.NOps && k < len(in.Ops); k++ {
		op := &in.Ops[k]
		switch op.Kind {
		case arch.OpClobber, arch.OpSetReg, arch.OpSave, arch.OpRestore:
			if op.Reg < 0 || op.Reg >= 64 || t.follow>>op.Reg&1 != 0 {
				if op.Kind != arch.OpSave { // a store of a followed register through an unknown base is still nothing
					return false
				}
			}
			if op.Kind != arch.OpClobber && (op.Base < 0 || op.Base >= 64 || t.follow>>op.Base&1 != 0) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// inert reports whether the stack operations of in certainly leave s as
// it is: writes of registers that hold nothing followed, and stores and
// loads through a base that is not known relative to the CFA (most
// instructions of compiled code), so that the walk need not copy the
// state to apply them.
func (s *State) inert(t *regTable, in *arch.Inst) bool {
	for k := 0; k < in.NOps && k < len(in.Ops); k++ {
		op := &in.Ops[k]
		switch op.Kind {
		case arch.OpClobber:
			if !s.idle(t, op.Reg) {
				return false
			}
		case arch.OpSetReg:
			if op.Reg == op.Base && op.Imm == 0 {
				continue
			}
			if !s.idle(t, op.Reg) || t.idx(op.Base) >= 0 || s.addr(t, op.Base, op.Imm) != unknown {
				return false
			}
		case arch.OpSave:
			if op.Base == t.sp || s.addr(t, op.Base, op.Imm) != unknown {
				return false // a save at an SP not known may end the path (apply)
			}
		case arch.OpRestore:
			if !s.idle(t, op.Reg) || s.addr(t, op.Base, op.Imm) != unknown {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// apply applies one instruction's stack operations to s. It returns a
// reason when the CFA can no longer be computed from SP or FP, and
// changed false when s is certainly unchanged (a write of a register that
// holds nothing followed: most of them).
func apply(t *regTable, s *State, in *arch.Inst) (why string, changed bool) {
	for k := 0; k < in.NOps && k < len(in.Ops); k++ {
		op := &in.Ops[k]
		switch op.Kind {
		case arch.OpClobber:
			if s.idle(t, op.Reg) {
				continue
			}
		case arch.OpSetReg:
			if s.idle(t, op.Reg) && t.idx(op.Base) < 0 && s.addr(t, op.Base, op.Imm) == unknown {
				continue // mov %rdi,%rdx: neither holds anything followed
			}
		}
		changed = true
		switch op.Kind {
		case arch.OpPush:
			if s.sp == unknown && s.fp == unknown {
				// The CFA is on a copy of SP (after a realignment): a
				// caller's value pushed now is saved where the state
				// cannot say (gcc's DRAP prologue: push %rbp after and
				// $-16,%rsp), so it could not say where it is later.
				if i := t.idx(op.Reg); i >= 0 && s.same(i) {
					return "a register saved where SP is not known (after a realignment, FP not set)", true
				}
			}
			old := s.sp
			addr := addOff(s.sp, -op.Imm)
			s.sp = addr
			if addr != unknown {
				s.overwrite(t, addr)
				s.save(t, op.Reg, addr)
				s.storeMaybe(op.Reg, addr)
				if op.Reg == t.sp {
					s.spSlot, s.spVal = addr, old
				}
			}
		case arch.OpPop:
			if s.sp != unknown {
				// A pop frees its slot, unless the red zone keeps it: then
				// the value is there and in the register (the RA popped
				// into rsi: CFI may still say c-8).
				s.restore(t, op.Reg, s.sp, t.redZone == 0)
			} else {
				s.write(t, op.Reg)
			}
			if op.Reg == t.sp {
				s.flags &^= flagRealigned
				if s.sp != unknown && s.sp == s.spSlot {
					s.sp = s.spVal
				} else {
					s.sp = unknown
				}
				why = "SP loaded from the stack"
			} else {
				s.sp = addOff(s.sp, op.Imm)
			}
		case arch.OpAddSP:
			s.sp = addOff(s.sp, op.Imm)
		case arch.OpSetReg:
			if op.Reg == op.Base && op.Imm == 0 {
				break // mov %rbx,%rbx
			}
			v := s.addr(t, op.Base, op.Imm) // the value, CFA-relative
			switch op.Reg {
			case t.sp:
				s.sp = v
				s.flags &^= flagRealigned
				why = "SP set from a register the walk does not follow"
			case t.fpReg:
				if op.Imm == 0 && s.regs[t.fp] == slotReg(op.Base) && s.regs[t.fp] != slotLost {
					s.inreg |= 1 << t.fp // FP back from the register that kept it
					s.restored |= 1 << t.fp
					s.fp, s.flags = unknown, s.flags&^flagFPFrame
					break
				}
				s.write(t, op.Reg)
				s.fp = v
				// A frame pointer: FP set from SP, pointing at the
				// caller's saved FP (a frame record).
				if op.Base == t.sp && v != unknown && s.regs[t.fp] == v {
					s.flags |= flagFPFrame
				}
			default:
				s.copyReg(t, op.Reg, op.Base, op.Imm)
				s.setValue(op.Reg, v)
			}
		case arch.OpAndSP:
			s.sp = unknown
			s.flags |= flagRealigned
			why = "stack realignment (SP &= mask) with the CFA on SP: unsupported"
		case arch.OpSubSPReg, arch.OpAddSPReg:
			s.sp = unknown
			s.flags &^= flagRealigned
			why = "alloca (SP -= register) with the CFA on SP: unsupported"
			if op.Kind == arch.OpAddSPReg {
				why = "SP += register with the CFA on SP: unsupported"
			}
		case arch.OpSave:
			if op.Base == t.sp && s.sp == unknown && s.fp == unknown {
				if i := t.idx(op.Reg); i >= 0 && s.same(i) {
					return "a register saved where SP is not known (after a realignment, FP not set)", true
				}
			}
			if addr := s.addr(t, op.Base, op.Imm); addr != unknown {
				s.store(t, op.Reg, addr)
				s.save(t, op.Reg, addr)
				if op.Reg == t.sp && s.sp != unknown {
					s.spSlot, s.spVal = addr, s.sp
				}
			}
		case arch.OpRestore:
			addr := s.addr(t, op.Base, op.Imm)
			if addr != unknown {
				s.restore(t, op.Reg, addr, s.sp != unknown && addr < s.sp)
			} else {
				s.write(t, op.Reg)
			}
			if op.Reg == t.sp {
				s.flags &^= flagRealigned
				if addr != unknown && addr == s.spSlot {
					s.sp = s.spVal // lmg %r14,%r15,272(%r15): the caller's SP back
				} else {
					s.sp = unknown
				}
				why = "SP loaded from memory"
			}
		case arch.OpClobber:
			s.write(t, op.Reg)
			if op.Reg == t.sp {
				s.sp = unknown
				s.flags &^= flagRealigned
				why = "SP set to a value the walk does not follow"
			}
		default:
			return fmt.Sprintf("stack operation of unknown kind %d", op.Kind), true
		}
	}
	if _, _, ok := s.cfa(t); !ok {
		if why == "" {
			why = "neither SP nor FP is known relative to the CFA"
		}
		return why, true
	}
	return "", changed
}

// addOff returns v + d, or unknown when v is unknown or the result leaves
// ±maxOff.
func addOff(v int32, d int64) int32 {
	if v == unknown || d <= -maxOff || d >= maxOff {
		return unknown
	}
	r := int64(v) + d
	if r <= -maxOff || r >= maxOff {
		return unknown
	}
	return int32(r)
}

// addr returns the CFA-relative address base+imm, or unknown.
func (s *State) addr(t *regTable, base rule.Reg, imm int64) int32 {
	return addOff(s.value(t, base), imm)
}

// save records that reg's current value is stored at CFA+addr: the
// caller's value is saved there if reg held it and had no copy yet (a
// later store of a register already saved is a spill, not a save); a
// caller's value kept in reg (the RA popped into rdi, then pushed back)
// is now in both places.
func (s *State) save(t *regTable, reg rule.Reg, addr int32) {
	if i := t.idx(reg); i >= 0 && s.regs[i] == slotSame {
		s.regs[i] = addr
		s.inreg |= 1 << i
		s.restored &^= 1 << i
		s.cp[i] = 0
		return
	}
	c := slotReg(reg)
	if c == slotLost || reg >= 255 {
		return
	}
	for i := range t.regs {
		if s.regs[i] == c {
			s.regs[i], s.cp[i] = addr, uint8(reg)+1
			s.restored &^= 1 << i
		}
	}
}

// store records a store of reg at CFA+addr (OpSave) over a slot that
// holds another register's caller value: that copy is gone, unless reg
// holds the same value.
func (s *State) store(t *regTable, reg rule.Reg, addr int32) {
	if s.spSlot == addr && reg != t.sp {
		s.spSlot, s.spVal = unknown, unknown
	}
	s.storeMaybe(reg, addr)
	for i := range t.regs {
		if s.regs[i] != addr {
			continue
		}
		if t.regs[i] == reg && s.inreg>>i&1 != 0 || s.cp[i] != 0 && rule.Reg(s.cp[i]-1) == reg {
			continue // the same value again
		}
		s.dropCopy(i)
	}
}

// storeMaybe records a store of reg at CFA+addr for the maybe-RA words
// (State.maybe): the slot now holds one when reg does, and no longer
// when reg does not.
func (s *State) storeMaybe(reg rule.Reg, addr int32) {
	switch {
	case s.maybe&regBit(reg) != 0:
		s.maybeSlot = addr
	case addr == s.maybeSlot:
		s.maybeSlot = unknown
	}
}

// dropCopy records that register i's caller value is no longer where
// s.regs[i] says (a slot overwritten or freed, a register reused): it is
// still the same value when the register holds it, or in the register
// that also has it (cp), else it is lost.
func (s *State) dropCopy(i int) {
	if c := s.cp[i]; c != 0 {
		s.regs[i], s.cp[i] = slotRegBase+int32(c-1), 0
		s.restored &^= 1 << i
		return
	}
	if s.inreg>>i&1 != 0 {
		s.regs[i] = slotSame
	} else {
		s.regs[i] = slotLost
	}
	s.inreg &^= 1 << i
	s.restored &^= 1 << i
}

// overwrite records a push's store at CFA+addr over a slot left below SP:
// a register also in its register keeps its value there; one whose only
// copy was there is lost.
func (s *State) overwrite(t *regTable, addr int32) {
	if s.spSlot == addr {
		s.spSlot, s.spVal = unknown, unknown
	}
	for i := range t.regs {
		if s.regs[i] != addr {
			continue
		}
		s.dropCopy(i)
	}
}

// call records what a call may overwrite: the registers that are not
// callee-saved (a copy there is gone, and so is a CFA-relative value) and
// everything below SP (the return address it pushes, the callee's frame):
// slots there no longer hold a register, which is lost when that was its
// only copy. SP unknown: slots cannot be placed.
func (s *State) call(t *regTable) {
	for r := range s.val {
		if t.callClobbered>>r&1 != 0 {
			s.val[r] = 0
		}
	}
	s.local &^= uint32(t.callClobbered)
	s.maybe &^= uint32(t.callClobbered)
	for i := range t.regs {
		if i == t.ra {
			// The RA kept in a register a call may clobber is the code's
			// own bet on its callee (glibc's AArch64 __rawmemchr: mov x15,
			// x30; bl __memchr; ret x15, with CFI saying RA=x15): the
			// callee is not checked here, so neither is the bet.
			continue
		}
		if c := s.cp[i]; c != 0 && c-1 < 64 && t.callClobbered>>(c-1)&1 != 0 {
			s.cp[i] = 0
		}
		if v := s.regs[i]; v != slotSame && v != slotLost && !isOff(v) {
			if r := v - slotRegBase; r < 64 && t.callClobbered>>r&1 != 0 {
				s.dropCopy(i)
			}
		}
	}
	s.dropBelowSP(t)
}

// dropBelowSP forgets the copies of caller values in slots below SP: a
// call's own return address and its callee's frame overwrite them, and
// so may a vfork child, which runs on the same stack before the system
// call returns in the parent.
func (s *State) dropBelowSP(t *regTable) {
	if s.sp == unknown {
		return
	}
	for i := range t.regs {
		if v := s.regs[i]; !isOff(v) || v >= s.sp {
			continue
		}
		s.dropCopy(i)
	}
}

// copyReg records dst = base + imm for a dst that is neither SP nor FP:
// copying a register back from where its caller's value was kept restores
// it; copying one that holds its caller's value keeps a copy in dst;
// anything else overwrites dst.
func (s *State) copyReg(t *regTable, dst, base rule.Reg, imm int64) {
	if imm == 0 {
		if i := t.idx(dst); i >= 0 && s.regs[i] == slotReg(base) && s.regs[i] != slotLost {
			s.inreg |= 1 << i
			s.restored |= 1 << i
			return
		}
	}
	s.write(t, dst)
	if imm == 0 {
		// A continuation or a maybe-RA moves with the register (mov x22,
		// x30 ... mov x30, x22).
		if s.local&regBit(base) != 0 {
			s.local |= regBit(dst)
		}
		if s.maybe&regBit(base) != 0 {
			s.maybe |= regBit(dst)
		}
	}
	if imm != 0 || slotReg(dst) == slotLost || dst >= 255 {
		return
	}
	if i := t.idx(base); i >= 0 && s.regs[i] == slotSame {
		s.regs[i] = slotReg(dst)
		s.inreg |= 1 << i
		s.restored &^= 1 << i
	} else if i >= 0 && isOff(s.regs[i]) && s.inreg>>i&1 != 0 {
		s.cp[i] = uint8(dst) + 1 // saved, and copied while it still holds it
	}
}

// restore records that reg is loaded from CFA+addr: the caller's value
// comes back if that is where it was saved; otherwise reg is overwritten,
// and holds the caller's value of another register saved there (pop
// %rdi of the RA: vfork): only there when the load frees the slot (freed:
// a pop, or a slot below SP), there and in the slot otherwise.
func (s *State) restore(t *regTable, reg rule.Reg, addr int32, freed bool) {
	if i := t.idx(reg); i >= 0 && s.regs[i] == addr {
		s.maybe &^= regBit(reg)
		s.inreg |= 1 << i
		s.restored |= 1 << i
		s.cp[i] = 0
		if reg == t.fpReg {
			s.fp = unknown
			s.flags &^= flagFPFrame
		}
		return
	}
	s.write(t, reg)
	c := slotReg(reg)
	if c == slotLost || reg >= 255 || reg == t.sp || !isOff(addr) {
		return
	}
	if addr >= t.entry.sp || addr == s.maybeSlot {
		s.maybe |= regBit(reg) // the caller's area, or a copy of it: perhaps the RA
	}
	for i := range t.regs {
		if s.regs[i] != addr {
			continue
		}
		s.maybe &^= regBit(reg) // another register's caller value
		if freed {
			s.regs[i], s.cp[i] = c, 0
			s.restored &^= 1 << i
		} else {
			s.cp[i] = uint8(reg) + 1
		}
	}
}

// regBit is register r's bit in State.local and State.maybe, 0 for a
// register they do not hold (r < 0 or r >= 32).
func regBit(r rule.Reg) uint32 {
	if r >= 0 && r < 32 {
		return 1 << r
	}
	return 0
}

// write records that reg gets a value the walk does not follow: the
// caller's value survives only in a slot still in the frame.
func (s *State) write(t *regTable, reg rule.Reg) {
	s.local &^= regBit(reg)
	s.maybe &^= regBit(reg)
	if i := t.idx(reg); i >= 0 {
		v := s.regs[i]
		switch {
		case v == slotSame:
			s.regs[i] = slotLost
		case isOff(v) && s.sp != unknown && v < s.sp-t.redZone:
			// its copy was popped: below SP, volatile
			s.inreg &^= 1 << i
			s.dropCopy(i)
		}
		s.inreg &^= 1 << i
		s.restored &^= 1 << i
	}
	// Copies held in reg are gone.
	s.setValue(reg, unknown)
	if c := slotReg(reg); c != slotLost {
		for j := range t.regs {
			if s.regs[j] == c {
				s.dropCopy(j)
			} else if s.cp[j] != 0 && rule.Reg(s.cp[j]-1) == reg {
				s.cp[j] = 0
			}
		}
	}
	if reg == t.fpReg {
		s.fp = unknown
		s.flags &^= flagFPFrame
	}
}
