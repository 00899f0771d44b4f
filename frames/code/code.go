// Package code is the code oracle's machine-neutral walk: it follows a
// function's machine code from its entry along every branch, applies each
// instruction's stack operations (sframe/arch.Decoder) to a stack state,
// and says, for every instruction it reaches, where the CFA is and where
// the return address, the frame pointer and the other callee-saved
// registers of the caller are kept. It is an independent witness for DWARF
// CFI and SFrame: both are made from the same .cfi_* directives, the code
// is not.
//
// The model is the Linux kernel's objtool (tools/objtool/check.c:
// validate_branch follows the branches, update_cfi_state applies one stack
// operation, insn_cfi_match compares the states where paths meet). Like
// objtool the walk visits each instruction once per distinct state, so its
// cost is linear in the code, reports where two paths meet with different
// states, checks the frame at returns and tail calls, and says what it
// cannot follow (an indirect jump, a realignment or alloca without a frame
// pointer, an unknown instruction) instead of guessing.
//
// The state (State) is CFA-relative: SP = CFA + sp and FP = CFA + fp when
// known, and so is any other register that holds a copy of them (lea
// (%rsp),%rax); each tracked register (the return address, the frame
// pointer and the callee-saved registers of the machine) is still in its
// register, saved at CFA + k, copied to another register (s390x ldgr; x86
// mov %rbp,%r11; the RA popped into rdi), saved and also in another
// register (the RA pushed back from rdi), or lost. A
// register saved and not yet overwritten, or loaded back, is in both
// places; a table may name either (State.InRegister, State.SavedAt,
// State.CopiedTo), except a slot it was loaded back from that is below SP
// beyond the red zone. The CFA rule of a row is
// derived from it: FP-based once FP is a frame pointer (it was set from SP
// and points at the caller's saved FP) or when SP is no longer known,
// SP-based otherwise, based on a copy of SP after a realignment without FP
// (State.Row); a table may use any base the state knows (State.CFAVia).
//
// To judge a table's row at an instruction against the code: its CFA rule
// reg+k agrees when CFAVia(reg) is k (a rule on a register the state does
// not know cannot be judged); a register without a rule or with "same value" agrees when
// InRegister; "saved at CFA+k" when SavedAt is k; "in register r" when
// CopiedTo is r.
//
// The package knows nothing of files or processes: the caller gives the
// function's bytes, its address and what it knows about the rest of the
// program (Options).
package code

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// Options is what the caller knows beyond the function's bytes. The zero
// value (or nil) is valid: no call is known not to return, no jump table is
// resolved, every jump out of the function is a tail call, the entry state
// is the machine's (arch.Arch.Entry) and the work budget is the default.
type Options struct {
	// NoReturn reports whether the direct call target never returns (the
	// path ends after the call); nil: every call returns.
	NoReturn func(target uint64) bool
	// NoReturnCall is NoReturn given the call's own address pc too, and
	// is asked instead of it when set: in a relocatable object a call to
	// another file's function holds no target (its field is 0, so target
	// is the call itself or the next instruction); the relocation at pc
	// names the callee.
	NoReturnCall func(pc, target uint64) bool
	// CallKeeps returns the registers (a bit per DWARF number) that the
	// function at a direct call's target leaves as they were, beyond the
	// callee-saved ones, or 0 (LeafKeeps). The walk keeps the constants
	// in them across the call: `mov $0xaaf8,%eax; call __rust_probestack;
	// sub %rax,%rsp` allocates a frame of known size.
	CallKeeps func(target uint64) uint64
	// JumpTable returns the targets of the indirect jump at pc (a jump
	// table read through relocations or .rodata), or nil when they are not
	// known.
	JumpTable func(pc uint64) []uint64
	// BranchReloc returns the target of the direct jump or call of n
	// bytes at pc when a relocation gives it (a relocatable object, where
	// the instruction's own displacement is 0: jmp f is e9 00 00 00 00
	// with R_X86_64_PLT32 f-4), and ok; a symbol the object does not
	// define gives an address outside every function (a tail call).
	BranchReloc func(pc uint64, n int) (target uint64, ok bool)
	// Stub returns the bytes at target, a jump's target outside the
	// function that no FDE covers, when they may be a linker-made stub
	// (AArch64's erratum 843419 veneer: the copied load, then b back), or
	// nil. The walk follows a stub of at most four instructions without
	// stack effect that jumps back into the function as part of it.
	Stub func(target uint64) []byte
	// LandingPad returns the landing pad of the call at pc (the C++ or
	// Rust cleanup or catch block an exception thrown through the call
	// enters, from the function's LSDA), or 0, and the bytes of pushed
	// arguments the unwinder pops on the way (the CFI's
	// DW_CFA_GNU_args_size at the call). The walk enters the pad with the
	// state after the call, less those bytes: the unwinder restores the
	// frame as the call left it.
	LandingPad func(pc uint64) (pad uint64, argsSize int64)
	// Partition reports whether a jump to target, outside the function,
	// enters another part of the same function (foo.cold, or foo from
	// foo.cold) rather than being a tail call. Such jumps are recorded in
	// Func.Exits with their state, from which the caller analyses the other
	// part (Entry).
	Partition func(target uint64) bool
	// Entry is the state at the first instruction; nil: the machine's entry
	// state, unless Entries are given (then the walk starts only from
	// them). A cold part (foo.cold) starts from the state at its jump site
	// in the parent (an Exit's State).
	Entry *State
	// Entries are more places where the function is entered with a known
	// state (a cold part entered by jumps to several of its
	// instructions, from Exits): the walk starts from each of them too.
	// Entries outside the function are ignored.
	Entries []Exit
	// UntilReturns stops the walk as soon as a path may leave the
	// function to its caller (Func.Returns): for a caller that asks only
	// whether the function returns (a noreturn test of a callee). The
	// Func is then partial; only Returns is meaningful.
	UntilReturns bool
	// Budget bounds the instruction visits (decodes) of the walk; 0: the
	// default, DefaultBudget(len(text)). When it is spent the walk stops
	// with an Unknown finding.
	Budget int
}

// DefaultBudget is the default work budget for n bytes of code: every
// instruction may be visited a few times as states at merge points lose
// information (State joins), and there are at most n instructions.
func DefaultBudget(n int) int { return 8*n + 64 }

// Kind is the kind of a finding.
type Kind uint8

// Finding kinds.
const (
	// KindState: two paths reach PC with different states (A is the state
	// the instruction was first reached with, B the other).
	KindState Kind = iota + 1
	// KindRet: at a return the stack is not the caller's: SP is not back
	// at the return address's slot or RA is not where the call put it (A).
	KindRet
	// KindTailCall: an unconditional jump out of the function (a sibling
	// call) with the stack frame still modified (A), as objtool's "sibling
	// call from callable instruction with modified stack frame". A
	// conditional one is KindUnknown (__builtin_unreachable's jump).
	KindTailCall
	// KindUnknown: the walk cannot follow the code from PC: an undecodable
	// or unmodelled instruction, an indirect jump whose targets are not
	// known, a realignment or alloca with the CFA on SP, or the work budget.
	// A coverage note, not a fault.
	KindUnknown
	// KindFallThrough: a path runs past the function's end (usually a call
	// to a function that does not return that Options.NoReturn did not
	// name). A coverage note.
	KindFallThrough
)

func (k Kind) String() string {
	switch k {
	case KindState:
		return "state"
	case KindRet:
		return "ret"
	case KindTailCall:
		return "tail-call"
	case KindUnknown:
		return "unknown"
	case KindFallThrough:
		return "fall-through"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Finding is one thing the walk found at an instruction.
type Finding struct {
	Kind Kind
	// PC is the instruction's address; Insn its text as objdump prints it.
	PC   uint64
	Insn string
	// Why says what is wrong or why the walk cannot go on.
	Why string
	// A is the state at PC (KindState: the first one; KindRet,
	// KindTailCall: the state before the return or jump); B is the other
	// state of KindState.
	A, B State
}

// Exit is a jump out of the function into another part of it
// (Options.Partition), with the state at the jump.
type Exit struct {
	PC, Target uint64
	State      State
	// Cond marks a conditional jump: the out-of-range branch of a switch
	// whose default is __builtin_unreachable goes anywhere, another
	// function's cold part included, with any frame.
	Cond bool
}

// Inst is one instruction the walk reached.
type Inst struct {
	// Off is the instruction's offset from Func.Start; Len its length in
	// bytes (0 when it could not be decoded).
	Off uint32
	Len uint8
	// State indexes Func.States when >= 0; otherwise the state is unknown
	// and -1-State indexes Func.Reasons.
	State int32
}

// Func is the result of Analyze for one function. It holds no pointer into
// the code it was made from, so it can be cached on a module.
type Func struct {
	// Arch is the machine (the rows' register numbers and entry rules).
	Arch *arch.Arch
	// Start and End delimit the function: [Start, End).
	Start, End uint64
	// Insts are the instructions reached from the entry, by address.
	Insts []Inst
	// States are the distinct states of Insts; Reasons the reasons of
	// instructions whose state is unknown.
	States  []State
	Reasons []string
	// Findings by PC (in the order found at one PC), at most MaxFindings;
	// Dropped counts those past it.
	Findings []Finding
	Dropped  int
	// Exits are the jumps into other parts of the function.
	Exits []Exit
	// Returns is false when no path of the walk can leave the function
	// to its caller: none reaches a return, a tail call or an indirect
	// jump that may be one, and none stops at what the walk cannot follow.
	// Such a function does not return (objtool's dead_end_function): a
	// caller that walks the program can add it to Options.NoReturn and
	// walk the callers again.
	Returns bool
	// PresumedNoReturn are the addresses of the calls the walk presumed
	// not to return: the call's fall-through (through padding at most)
	// meets a path with another state, so the block after it is entered
	// by its jumps, not by the call (a call to a noreturn function the
	// Options did not name: glib's g_assertion_message_expr through the
	// PLT). Their paths end there; no KindState finding is made.
	PresumedNoReturn []uint64
	// Decoded counts the instructions decoded (reached); Judged those with
	// a known state; Visits the instruction visits of the walk (at most the
	// budget).
	Decoded, Judged, Visits int
}

// Index returns the index in f.Insts of the instruction that covers pc,
// or -1. Cost: O(log n).
func (f *Func) Index(pc uint64) int {
	if f == nil || pc < f.Start || pc >= f.End {
		return -1
	}
	off := pc - f.Start
	i := sort.Search(len(f.Insts), func(i int) bool { return uint64(f.Insts[i].Off) > off }) - 1
	if i < 0 {
		return -1
	}
	in := f.Insts[i]
	if off >= uint64(in.Off)+uint64(max(in.Len, 1)) {
		return -1
	}
	return i
}

// StateAt returns the state before the instruction that covers pc. ok is
// false when no instruction reached by the walk covers pc (why is empty)
// or when its state is unknown (why says why).
func (f *Func) StateAt(pc uint64) (st State, why string, ok bool) {
	i := f.Index(pc)
	if i < 0 {
		return State{}, "", false
	}
	if s := f.Insts[i].State; s >= 0 {
		return f.States[s], "", true
	} else {
		return State{}, f.Reasons[-1-s], false
	}
}

// RowAt returns the code's row before the instruction that covers pc (see
// State.Row), and false where StateAt has no state.
func (f *Func) RowAt(pc uint64) (rule.Row, bool) {
	st, _, ok := f.StateAt(pc)
	if !ok {
		return rule.Row{}, false
	}
	return st.Row(f.Arch), true
}

// Describe formats a finding for people, with f's register names: "push
// %rbx at 0x401012: two paths meet with CFA=rsp+16 RA=c-8 and CFA=rsp+24
// RA=c-8".
func (f *Func) Describe(fd Finding) string {
	var b strings.Builder
	if fd.Insn != "" {
		fmt.Fprintf(&b, "%s at %#x: ", fd.Insn, fd.PC)
	} else {
		fmt.Fprintf(&b, "%#x: ", fd.PC)
	}
	b.WriteString(fd.Why)
	switch fd.Kind {
	case KindState:
		fmt.Fprintf(&b, " (%s, then %s)", fd.A.Format(f.Arch), fd.B.Format(f.Arch))
	case KindRet, KindTailCall:
		fmt.Fprintf(&b, " (%s)", fd.A.Format(f.Arch))
	}
	return b.String()
}
