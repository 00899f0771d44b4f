package compare

import (
	"fmt"
	"sort"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// Ground truth by execution: a Verifier is fed every instruction a thread
// executes (its registers before the instruction runs) and keeps a shadow
// stack of the frames it saw entered. A call's callee has a CFA and a
// return address the call fixes: the CFA is the SP at entry plus the
// machine's entry offset (arch.Arch.Entry: 8 on x86-64, 0 on AArch64, 160
// on s390x), the return address the call's fall-through; both hold until
// the frame returns, whatever the function does in between (tail calls
// included: a jump keeps the frame). At every instruction of a frame the
// Verifier saw entered, it asks each method for frame 0's caller and
// compares the method's CFA and RA (and the caller's FP, where the method's
// row says where FP is saved) with that truth. No table and no model takes
// part in the truth; a difference is the method's.
//
// Frames entered before tracing began (the outermost ones, or a process
// attached to mid-run) have no truth and are not judged. A signal
// handler's frame is entered by the kernel; its truth is the entry rule at
// its first instruction. The signal trampoline the handler returns to is
// not judged (its frame is the kernel's signal frame). A longjmp, an
// exception or a setcontext leaves frames without returning: the shadow
// stack drops every frame whose entry SP lies below the SP
// ("resynchronised" counts them).

// VerifyMethods are the methods a Verifier judges, in the order it judges
// them: the code's before the frame pointer's, which is judged only where
// the code keeps its CFA on FP.
var VerifyMethods = []frames.Method{frames.MethodSFrame, frames.MethodCFI, frames.MethodCode, frames.MethodFP}

// VerifyFinding is one instruction where a method's frame-0 rule gave
// another CFA, RA or FP than the execution.
type VerifyFinding struct {
	Method frames.Method `json:"method"`
	// What is "cfa", "ra" or "fp".
	What string `json:"what"`
	// Level is the frame the method was wrong at: 0 for the instruction's
	// own frame, N for the Nth caller when the whole stack was unwound
	// on a call or a return (PC is then that frame's return address).
	Level    int    `json:"level,omitempty"`
	PC       uint64 `json:"pc"`
	Function string `json:"function"`
	Module   string `json:"module"`
	Insn     string `json:"insn"`
	// Truth is the execution's value; Got the method's (0 with Err set
	// when the method's rule could not be evaluated).
	Truth uint64 `json:"truth"`
	Got   uint64 `json:"got"`
	Err   string `json:"error,omitempty"`
	// Rule is the method's row at PC, as dump prints it.
	Rule string `json:"rule"`
	// Before are the instructions the thread executed before PC in this
	// function, oldest first (objdump syntax, with their addresses).
	Before []string `json:"before,omitempty"`
	// Count is how many times the instruction was executed with the
	// method wrong.
	Count int `json:"count"`
	// Oracle marks a finding of the code oracle (MethodCode): the static
	// walk's state differs from the execution, which is the oracle's bug,
	// not the binary's.
	Oracle bool `json:"oracle_bug,omitempty"`
}

// VerifyFunc is what Verify saw of one function.
type VerifyFunc struct {
	Name   string `json:"function"`
	Module string `json:"module"`
	// Executed counts the instructions executed in the function;
	// Verified those executed in a frame whose truth is known.
	Executed uint64 `json:"executed"`
	Verified uint64 `json:"verified"`
	// Judged counts, per method, the verified instructions the method
	// had a rule for; FirstWrong the first PC at which the method was
	// wrong (0: never).
	Judged     map[string]uint64 `json:"judged"`
	FirstWrong map[string]uint64 `json:"first_wrong,omitempty"`
}

// VerifyReport is a Verifier's result.
type VerifyReport struct {
	Executed uint64 `json:"executed"`
	Verified uint64 `json:"verified"`
	// Distinct counts the distinct instructions executed, and Text the
	// bytes of executable code of the modules they lie in: Distinct/Text
	// is how much of the code ran (by instructions, as a share of bytes).
	Distinct int    `json:"distinct_instructions"`
	TextSize uint64 `json:"text_bytes"`
	// Calls and Returns count the frames entered and left; Resynced the
	// frames left without a return (longjmp, exceptions); Signals the
	// handlers entered. SteppedOver counts the calls run at full speed
	// to their return (Returned), among Calls and Returns.
	Calls       uint64 `json:"calls"`
	Returns     uint64 `json:"returns"`
	Resynced    uint64 `json:"resynchronised"`
	Signals     uint64 `json:"signal_handlers"`
	SteppedOver uint64 `json:"stepped_over,omitempty"`
	// Judged and Wrong count, per method name, the verified instructions
	// the method had a rule for and those it was wrong at.
	Judged map[string]uint64 `json:"judged"`
	Wrong  map[string]uint64 `json:"wrong"`
	// NotJudged counts the method answers that differed from the
	// execution for a reason that is not the method's (NotJudgedOwnSP,
	// NotJudgedRewritten), by reason.
	NotJudged map[string]uint64 `json:"not_judged,omitempty"`
	Functions []*VerifyFunc     `json:"functions"`
	Findings  []*VerifyFinding  `json:"findings"`
}

// shadowFrame is one frame the Verifier saw entered.
type shadowFrame struct {
	cfa, ra uint64
	// entrySP is the SP at the frame's first instruction: the frame is
	// live while SP <= entrySP.
	entrySP uint64
	fp      uint64 // the caller's FP (the FP register at entry)
	signal  bool   // a signal handler's frame
	tramp   bool   // the signal trampoline after a handler: no truth
	// rewritten: the code rewrote the return address the call pushed
	// (libgcc's __builtin_eh_return): the frame no longer returns where
	// its call said, and is not judged.
	rewritten bool
}

// verifyThread is one thread's shadow stack and the instruction it
// executes next.
type verifyThread struct {
	stack []shadowFrame
	// pc, sp: the instruction about to execute and the SP before it; in
	// its decoded instruction (nil before the first).
	pc, sp uint64
	in     *decodedInsn
	// transit is set from a non-local exit's SP move (frames left
	// without a return) until the thread's next branch: the code is
	// between frames (longjmp's and eh_return's "mov ...,%rsp" then
	// "jmp *reg"), and no frame's truth holds there.
	transit bool
	// recent are the last PCs executed (a ring of len 4), for findings.
	recent [4]uint64
	nrec   int
}

type decodedInsn struct {
	class  arch.Class
	len    int
	target uint64 // a direct call's or branch's target
	text   string
	fn     *VerifyFunc
	mod    *frames.Module
}

type findKey struct {
	m     frames.Method
	what  string
	pc    uint64
	level int
}

// Verifier checks every executed instruction; see the comment above. It is
// not safe for concurrent use.
type Verifier struct {
	a       *arch.Arch
	space   *frames.Space
	refresh func() *frames.Space
	unw     []frames.Unwinder
	threads map[int]*verifyThread
	insns   map[uint64]*decodedInsn
	funcs   map[string]*VerifyFunc
	found   map[findKey]*VerifyFinding
	texts   map[*frames.Module]bool
	rep     VerifyReport
	broken  string
	// Match, when set, says which functions to judge (by name); the
	// others are executed and kept on the shadow stack, not judged.
	Match func(name string) bool
}

// NewVerifier returns a Verifier of machine a's code over space. refresh,
// called when an executed PC lies in no module of the space (a library
// loaded since), returns the space anew (nil: keep the old one).
func NewVerifier(a *arch.Arch, space *frames.Space, refresh func() *frames.Space) *Verifier {
	v := &Verifier{a: a, refresh: refresh, threads: map[int]*verifyThread{},
		insns: map[uint64]*decodedInsn{}, funcs: map[string]*VerifyFunc{}, found: map[findKey]*VerifyFinding{},
		texts: map[*frames.Module]bool{}}
	v.rep.Judged, v.rep.Wrong, v.rep.NotJudged = map[string]uint64{}, map[string]uint64{}, map[string]uint64{}
	v.setSpace(space)
	return v
}

func (v *Verifier) setSpace(space *frames.Space) {
	v.space = space
	v.unw = v.unw[:0]
	for _, m := range VerifyMethods {
		v.unw = append(v.unw, m.NewUnwinder(space))
	}
}

// Enter says that thread tid, whose registers are regs, is at the first
// instruction of a function a call entered (a breakpoint at its entry was
// hit): its frame's truth is the machine's entry rule there.
func (v *Verifier) Enter(tid int, regs frames.Regs) {
	th := v.threads[tid]
	if th == nil {
		th = &verifyThread{}
		v.threads[tid] = th
	}
	th.push(v.entryFrame(regs, false))
}

// Depth returns how many frames of thread tid the Verifier saw entered
// and not left.
func (v *Verifier) Depth(tid int) int {
	if th := v.threads[tid]; th != nil {
		return len(th.stack)
	}
	return 0
}

// Forget forgets every thread's frames and last instruction: the threads
// ran freely since, and their next instructions start afresh.
func (v *Verifier) Forget() { clear(v.threads) }

// Judging reports whether thread tid's next instruction is in a function
// the Verifier judges (Match; every function without it).
func (v *Verifier) Judging(tid int) bool {
	th := v.threads[tid]
	return th != nil && th.in != nil && th.in.fn != nil && (v.Match == nil || v.Match(th.in.fn.Name))
}

// Top returns the return address and the entry SP of thread tid's
// innermost frame (ok false without one): where and with what SP at
// least (entry SP + the call's RA slot) its call returns.
func (v *Verifier) Top(tid int) (ra, entrySP uint64, ok bool) {
	th := v.threads[tid]
	if th == nil || len(th.stack) == 0 {
		return 0, 0, false
	}
	f := th.stack[len(th.stack)-1]
	return f.ra, f.entrySP, true
}

// Resumed says that thread tid ran freely and stopped, its frames still
// live (it entered a judged function on the way: Enter follows): its next
// instruction starts afresh. The other threads ran freely too: they are
// forgotten.
func (v *Verifier) Resumed(tid int) {
	for id := range v.threads {
		if id != tid {
			delete(v.threads, id)
		}
	}
	if th := v.threads[tid]; th != nil {
		th.in, th.transit = nil, false
	}
}

// Returned says that thread tid's innermost frame returned while the
// thread ran freely (a call stepped over): the frame is left, and the
// thread's next instruction, at the return address, starts afresh. The
// other threads ran freely too: they are forgotten.
func (v *Verifier) Returned(tid int) {
	v.Resumed(tid)
	if th := v.threads[tid]; th != nil && len(th.stack) > 0 {
		th.stack = th.stack[:len(th.stack)-1]
		v.rep.Returns++
		v.rep.SteppedOver++
	}
}

// Broken says why the execution can no longer be trusted as the truth
// (the machine's single step did not follow a call), or "".
func (v *Verifier) Broken() string { return v.broken }

// funcStart reports whether pc is the first instruction of a function of
// mod (its symbol's value).
func (v *Verifier) funcStart(mod *frames.Module, pc uint64) bool {
	_, off, ok := mod.FuncName(pc)
	return ok && off == 0
}

// Exited forgets thread tid.
func (v *Verifier) Exited(tid int) { delete(v.threads, tid) }

// Reset forgets every thread and every decoded instruction (after an
// execve: a new address space).
func (v *Verifier) Reset(space *frames.Space) {
	clear(v.threads)
	clear(v.insns)
	v.setSpace(space)
}

// Step takes thread tid at its next instruction: regs are its registers
// before the instruction at regs.PC() executes; signal is the signal whose
// handler the thread has just entered (0 if none). Step first accounts for
// what the previous instruction did to the thread's frames (a call, a
// return, a handler entered, frames left by a jump), then judges every
// method at the new PC.
func (v *Verifier) Step(tid int, regs frames.Regs, signal int) {
	th := v.threads[tid]
	if th == nil {
		th = &verifyThread{}
		v.threads[tid] = th
	}
	pc, sp := regs.PC(), regs.SP()
	if signal != 0 {
		v.rep.Signals++
		if in := v.decode(pc); in.mod != nil && v.funcStart(in.mod, pc) {
			th.push(v.entryFrame(regs, true))
		} else {
			// The kernel reported the step after the handler's first
			// instructions (s390x: the stop comes from the next PER
			// event, not from the signal's delivery), or the handler has
			// no symbol: its entry state is not known. Nothing is
			// judged until sigreturn brings SP back above the signal
			// frame, which lies below the interrupted SP.
			th.push(shadowFrame{tramp: true, entrySP: th.sp - 1})
		}
	} else if th.in != nil {
		if th.in.class != arch.Other {
			th.transit = false
		}
		if v.transition(th, regs) {
			defer v.checkStack(th, regs)
		}
	}
	if v.broken != "" {
		return // the step did not do what the program does: nothing holds
	}
	// Frames whose entry SP is now below SP were left without a return.
	for len(th.stack) > 0 && sp > th.stack[len(th.stack)-1].entrySP {
		th.stack = th.stack[:len(th.stack)-1]
		v.rep.Resynced++
		th.transit = true
	}
	in := v.decode(pc)
	th.pc, th.sp, th.in = pc, sp, in
	v.rep.Executed++
	if in.fn != nil {
		in.fn.Executed++
	}
	if top := len(th.stack) - 1; top >= 0 && !th.stack[top].tramp && !th.stack[top].rewritten && in.fn != nil &&
		(v.Match == nil || v.Match(in.fn.Name)) {
		if th.transit {
			v.rep.NotJudged[NotJudgedTransit]++
		} else {
			v.judge(th, regs, in, &th.stack[len(th.stack)-1])
		}
	}
	th.recent[th.nrec%len(th.recent)] = pc
	th.nrec++
}

func (th *verifyThread) push(f shadowFrame) { th.stack = append(th.stack, f) }

// entryFrame is the truth of a frame at its first instruction, from the
// machine's entry rule: CFA = SP + k, RA where the entry rule puts it.
func (v *Verifier) entryFrame(regs frames.Regs, signal bool) shadowFrame {
	sp := regs.SP()
	f := shadowFrame{cfa: sp + uint64(v.a.Entry.CFA.Offset), entrySP: sp, signal: signal}
	f.fp, _ = regs.Get(v.a.FP)
	// The RA is at CFA+k where the call pushes it (AMD64), else in the
	// link register (a.RA: x30, r14).
	if ra := v.a.Entry.RA; ra.Kind == rule.Offset {
		f.ra, _ = frames.ReadUint64(v.space.Mem, f.cfa+uint64(ra.Offset))
	} else {
		f.ra, _ = regs.Get(v.a.RA)
		f.ra = v.strip(f.ra)
	}
	return f
}

// transition updates th's shadow stack for the instruction th.in that took
// the thread from th.pc to regs.PC(), and reports whether it was a call or
// a return.
func (v *Verifier) transition(th *verifyThread, regs frames.Regs) bool {
	pc, sp := regs.PC(), regs.SP()
	next := th.pc + uint64(th.in.len)
	switch th.in.class {
	case arch.Call, arch.CallIndirect:
		if th.in.class == arch.Call && pc == next && th.in.target != next && v.broken == "" {
			// The step did not follow the call: the truth is lost, and
			// the program no longer runs as it would.
			v.broken = fmt.Sprintf("a single step of the call at %#x (%s) stopped at its fall-through %#x, not at its target %#x: single-stepping on this machine does not follow calls, so no frame's truth can be known", th.pc, th.in.text, pc, th.in.target)
		}
		f := v.entryFrame(regs, false)
		f.ra = next // the return address is the call's fall-through
		th.push(f)
		v.rep.Calls++
		return true
	case arch.Return, arch.CondReturn:
		if th.in.class == arch.CondReturn && pc == next {
			return false
		}
		for i := len(th.stack) - 1; i >= 0; i-- {
			f := th.stack[i]
			if f.tramp || v.strip(pc) != f.ra {
				continue
			}
			// The return leaves frame i and every frame above it.
			th.stack = th.stack[:i]
			v.rep.Returns++
			if f.signal {
				// Back in the trampoline, which calls sigreturn: its SP
				// goes back above the handler's frame.
				th.push(shadowFrame{tramp: true, entrySP: sp})
			}
			return true
		}
	}
	return false
}

// maxStackCheck bounds the frames checkStack compares.
const maxStackCheck = 64

// checkStack unwinds thread th's whole stack with each table method (the
// frame-pointer chain is left out: in code without frame pointers it is
// broken by design) and compares frames 1 and up with the shadow stack:
// each frame's PC with the return address its call pushed, and its CFA.
// Frame 0 is judged at every instruction; a method wrong there is not
// followed further. Only the innermost frames entered since verify began
// (and not a signal handler's, whose caller is the kernel's frame) have a
// truth. Called after every call and return.
func (v *Verifier) checkStack(th *verifyThread, regs frames.Regs) {
	n := len(th.stack)
	depth := 0
	for i := n - 1; i >= 0 && depth < maxStackCheck; i-- {
		if f := &th.stack[i]; f.tramp || f.signal || f.rewritten {
			break
		}
		depth++
	}
	if depth < 2 || th.transit || v.broken != "" || th.in == nil || th.in.fn == nil || v.Match != nil && !v.Match(th.in.fn.Name) {
		return
	}
	for i, u := range v.unw {
		m := VerifyMethods[i]
		if m == frames.MethodFP {
			continue
		}
		st := frames.NewStack(u, regs, v.space, frames.StackOptions{MaxDepth: depth + 1})
		for level := 0; level < depth && st.Next(); level++ {
			f := st.Frame()
			t := &th.stack[n-1-level]
			if level == 0 {
				if f.CFA != t.cfa {
					break
				}
				continue
			}
			if !f.Row.Found() {
				break // the method has no data for this caller: coverage
			}
			below := &th.stack[n-level]
			what, truth, got := "", uint64(0), uint64(0)
			switch {
			case v.strip(f.PC) != below.ra:
				what, truth, got = "ra", below.ra, f.PC
			case f.CFA != t.cfa:
				what, truth, got = "cfa", t.cfa, f.CFA
			}
			if what != "" {
				v.wrongAt(th, m, what, level, f.PC, truth, got, f.Row.String())
				break
			}
		}
	}
}

// wrongAt records a method wrong at caller frame level (its PC a return
// address) in a whole-stack check.
func (v *Verifier) wrongAt(th *verifyThread, m frames.Method, what string, level int, pc, truth, got uint64, rowText string) {
	name := m.String()
	v.rep.Wrong[name]++
	k := findKey{m, what, pc, level}
	if fd := v.found[k]; fd != nil {
		fd.Count++
		return
	}
	fn, modName, insn := "??", "", ""
	if mod := v.space.Modules.Find(frames.LookupPC(pc, false)); mod != nil {
		modName = mod.Name
		if n, _, ok := mod.FuncName(frames.LookupPC(pc, false)); ok {
			fn = n
		}
	}
	if in := v.insns[pc]; in != nil {
		insn = in.text
	}
	v.found[k] = &VerifyFinding{Method: m, What: what, Level: level, PC: pc, Function: fn, Module: modName,
		Insn: insn, Truth: truth, Got: got, Rule: rowText, Count: 1, Oracle: m == frames.MethodCode}
}

// decode returns the instruction at pc, decoded once.
func (v *Verifier) decode(pc uint64) *decodedInsn {
	if in := v.insns[pc]; in != nil {
		return in
	}
	in := &decodedInsn{class: arch.Other, len: 1}
	v.insns[pc] = in
	v.rep.Distinct++
	mod := v.space.Modules.Find(pc)
	if mod == nil && v.refresh != nil {
		if sp := v.refresh(); sp != nil {
			v.setSpace(sp)
			mod = sp.Modules.Find(pc)
		}
	}
	in.mod = mod
	var buf [16]byte
	n, _ := v.space.Mem.ReadAt(buf[:], pc)
	if v.a.Decoder != nil && n > 0 {
		var ai arch.Inst
		if err := v.a.Decoder.Decode(buf[:n], pc, &ai); err == nil {
			in.class, in.len, in.target = ai.Class, ai.Len, ai.Target
			in.text = v.a.Decoder.Text(buf[:n], pc)
		}
	}
	if mod == nil {
		return in
	}
	if !v.texts[mod] {
		v.texts[mod] = true
		v.rep.TextSize += textSize(mod)
	}
	name, _, ok := mod.FuncName(pc)
	if !ok {
		name = fmt.Sprintf("?? (%s)", mod.Name)
	}
	key := mod.Path + "\x00" + name
	fn := v.funcs[key]
	if fn == nil {
		fn = &VerifyFunc{Name: name, Module: mod.Name, Judged: map[string]uint64{}}
		v.funcs[key] = fn
	}
	in.fn = fn
	return in
}

// textSize is the size of the executable sections of mod's file.
func textSize(mod *frames.Module) uint64 {
	f, err := mod.File()
	if err != nil {
		return 0
	}
	var n uint64
	for _, s := range f.Sections {
		if s.Flags&0x4 != 0 { // SHF_EXECINSTR
			n += s.Size
		}
	}
	return n
}

// judge compares every method's frame-0 caller at th.pc with the truth t.
func (v *Verifier) judge(th *verifyThread, regs frames.Regs, in *decodedInsn, t *shadowFrame) {
	v.rep.Verified++
	in.fn.Verified++
	pc := regs.PC()
	var codeFPFrame bool
	for i, u := range v.unw {
		m := VerifyMethods[i]
		f := frames.Frame{Level: 0, PC: pc, Regs: regs, Method: frames.MethodRegs, Interrupted: true, Module: in.mod}
		if m == frames.MethodFP && !codeFPFrame {
			continue // a frame-pointer unwind is only a claim where the code keeps one
		}
		caller, err := u.Step(&f)
		if !f.Row.Found() {
			continue // the method has nothing here: its coverage, not a fault
		}
		if m == frames.MethodCode && f.Row.CFA.Kind == rule.ValOffset && f.Row.CFA.Reg == v.a.FP {
			codeFPFrame = true
		}
		if err != nil || f.CFA != t.cfa && f.Row.CFA.Kind != rule.Undefined || v.strip(caller.PC) != t.ra {
			if why := v.excuse(&f, t); why != "" {
				v.rep.NotJudged[why]++
				if t.rewritten {
					return
				}
				continue
			}
		}
		name := m.String()
		v.rep.Judged[name]++
		in.fn.Judged[name]++
		rowText := f.Row.String()
		if err != nil {
			v.wrong(th, in, m, "cfa", pc, t.cfa, 0, err.Error(), rowText)
			continue
		}
		switch {
		case f.Row.CFA.Kind == rule.Undefined:
			// The method gives no CFA (the AArch64 and s390x frame
			// pointer chains link records, not CFAs): its RA and FP
			// are its claim.
			if v.strip(caller.PC) != t.ra {
				v.wrong(th, in, m, "ra", pc, t.ra, caller.PC, "", rowText)
			} else if fp, ok := caller.Regs.Get(v.a.FP); ok && fpSaved(f.Row.FP) && fp != t.fp {
				v.wrong(th, in, m, "fp", pc, t.fp, fp, "", rowText)
			}
		case f.CFA != t.cfa:
			v.wrong(th, in, m, "cfa", pc, t.cfa, f.CFA, "", rowText)
		case v.strip(caller.PC) != t.ra:
			v.wrong(th, in, m, "ra", pc, t.ra, caller.PC, "", rowText)
		case fpSaved(f.Row.FP):
			if fp, ok := caller.Regs.Get(v.a.FP); ok && fp != t.fp {
				v.wrong(th, in, m, "fp", pc, t.fp, fp, "", rowText)
			}
		}
	}
}

// Reasons an instruction where a method differs from the execution is not
// a finding (VerifyReport.NotJudged).
const (
	// NotJudgedOwnSP: the row gives the caller's SP by a rule of its own
	// (DWARF CFI's rule for the SP register), so its CFA is only a base
	// for the other rules: glibc's __longjmp describes the frame it jumps
	// to ("we add unwind information for the target here"), not its
	// caller.
	NotJudgedOwnSP = "the row gives the caller's SP itself (a non-local exit describing its target)"
	// NotJudgedRewritten: the code overwrote the return address the call
	// pushed (libgcc's __builtin_eh_return installing a handler), so the
	// frame returns elsewhere than its call said.
	NotJudgedRewritten = "the frame rewrote its return address (eh_return)"
	// NotJudgedTransit: a non-local exit moved SP above frames it leaves
	// without a return, and has not yet jumped to its target: the code is
	// between frames.
	NotJudgedTransit = "a non-local exit moved SP and has not jumped yet"
)

// excuse says why a method's difference from the truth t at frame f is
// not the method's fault, or "".
func (v *Verifier) excuse(f *frames.Frame, t *shadowFrame) string {
	// A caller's SP kept in another register (glibc's x86-64 __longjmp:
	// .cfi_register %rsp, %r8). An SP saved in memory (s390x's stmg saves
	// r15 with the others) is an ordinary row.
	ownSP := false
	f.Row.Other.Each(func(reg rule.Reg, r rule.Rule) { ownSP = ownSP || reg == v.a.SP && r.Kind == rule.Register })
	if ownSP {
		return NotJudgedOwnSP
	}
	if ra := v.a.Entry.RA; v.a.CallPushesRA && ra.Kind == rule.Offset {
		if got, err := frames.ReadUint64(v.space.Mem, t.cfa+uint64(ra.Offset)); err == nil && got != t.ra {
			t.rewritten = true
			return NotJudgedRewritten
		}
	}
	return ""
}

// strip removes a pointer-authentication code from a code address on a
// machine that signs them.
func (v *Verifier) strip(addr uint64) uint64 {
	if v.a.PAuth {
		return v.space.StripPAC(addr)
	}
	return addr
}

// fpSaved says whether a row's FP rule claims where the caller's FP is.
func fpSaved(r rule.Rule) bool {
	switch r.Kind {
	case rule.Offset, rule.ValOffset, rule.Register, rule.Expression, rule.ValExpression:
		return true
	}
	return false
}

func (v *Verifier) wrong(th *verifyThread, in *decodedInsn, m frames.Method, what string, pc, truth, got uint64, errText, rowText string) {
	name := m.String()
	v.rep.Wrong[name]++
	if in.fn.FirstWrong == nil {
		in.fn.FirstWrong = map[string]uint64{}
	}
	if _, ok := in.fn.FirstWrong[name]; !ok {
		in.fn.FirstWrong[name] = pc
	}
	k := findKey{m, what, pc, 0}
	if fd := v.found[k]; fd != nil {
		fd.Count++
		return
	}
	fd := &VerifyFinding{Method: m, What: what, PC: pc, Function: in.fn.Name, Module: in.fn.Module,
		Insn: in.text, Truth: truth, Got: got, Err: errText, Rule: rowText, Count: 1,
		Oracle: m == frames.MethodCode}
	for i := max(0, th.nrec-len(th.recent)); i < th.nrec; i++ {
		p := th.recent[i%len(th.recent)]
		if b := v.insns[p]; b != nil && b.fn == in.fn {
			fd.Before = append(fd.Before, fmt.Sprintf("%#x: %s", p, b.text))
		}
	}
	v.found[k] = fd
}

// Report returns what the Verifier saw so far: functions by executed
// instructions (most first), findings by module, function and PC.
func (v *Verifier) Report() *VerifyReport {
	r := v.rep
	r.Functions = r.Functions[:0:0]
	for _, f := range v.funcs {
		r.Functions = append(r.Functions, f)
	}
	sort.Slice(r.Functions, func(i, j int) bool {
		a, b := r.Functions[i], r.Functions[j]
		if a.Executed != b.Executed {
			return a.Executed > b.Executed
		}
		return a.Module+a.Name < b.Module+b.Name
	})
	r.Findings = nil
	for _, fd := range v.found {
		r.Findings = append(r.Findings, fd)
	}
	sort.Slice(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.PC != b.PC {
			return a.PC < b.PC
		}
		if a.Method != b.Method {
			return a.Method < b.Method
		}
		return a.What < b.What
	})
	return &r
}
