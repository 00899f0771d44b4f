package debugger

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
)

// Source-level stepping, as gdb's infrun does it (gdb/infrun.c,
// process_event_stop_test): the thread is single-stepped while its PC
// stays in the address range of the line it started on, in the same frame
// (the CFA tells frames apart). A call is stepped over by "next" (a
// breakpoint at its return address, hit by the same thread with its SP
// back where it was before the call, so a recursive call returning to the
// same address does not count) and entered by "step" when the callee has
// line information, up to the end of the callee's first line (its
// prologue). A return lands in the middle of the caller's line, which is
// then stepped to its end. The step stops at the first instruction of a
// statement (is_stmt) of another line.

// stepMode is what a source-level step does with calls and loops.
type stepMode int

const (
	stepOver  stepMode = iota // next
	stepInto                  // step
	stepUntil                 // until: next that does not stop on a jump back
)

// maxLineSteps bounds the instructions one source-level step executes
// (a line that loops for longer is left to Ctrl-C or a breakpoint).
const maxLineSteps = 10_000_000

// lineOf is a line's address range [start, end) and its identity.
type lineOf struct {
	file       string
	line       int
	start, end uint64
	ok         bool
}

func (s *Session) lineAt(pc uint64) (lineOf, *frames.Module) {
	sp, err := s.space()
	if err != nil {
		return lineOf{}, nil
	}
	m := sp.Modules.Find(pc)
	if m == nil {
		return lineOf{}, nil
	}
	var l lineOf
	l.file, l.line, l.start, l.end, l.ok = m.LineRange(pc)
	return l, m
}

// cfaOf returns frame 0's CFA for registers regs: CFI's, else SFrame's,
// else the code's (0 when none knows it).
func (s *Session) cfaOf(regs frames.Regs) uint64 {
	sp, err := s.space()
	if err != nil {
		return 0
	}
	for _, u := range []frames.Unwinder{&frames.CFIUnwinder{Space: sp}, &frames.SFrameUnwinder{Space: sp}, &frames.CodeUnwinder{Space: sp}} {
		f := frames.Frame{Level: 0, PC: regs.PC(), Regs: regs, Method: frames.MethodRegs, Interrupted: true, Module: sp.Modules.Find(regs.PC())}
		if _, err := u.Step(&f); err == nil && f.CFA != 0 {
			return f.CFA
		}
	}
	return 0
}

// insnAt decodes the instruction at pc (the code as the program has it,
// breakpoints hidden): its class, length and direct target.
func (s *Session) insnAt(pc uint64) (arch.Inst, bool) {
	var in arch.Inst
	sp, err := s.space()
	if err != nil {
		return in, false
	}
	a := proc.HostArch
	if m := sp.Modules.Find(pc); m != nil {
		if ma, err := m.Arch(); err == nil {
			a = ma
		}
	}
	if a == nil || a.Decoder == nil {
		return in, false
	}
	var buf [16]byte
	n, _ := sp.Mem.ReadAt(buf[:], pc)
	if n == 0 || a.Decoder.Decode(buf[:n], pc, &in) != nil {
		return in, false
	}
	return in, true
}

// cmdStepLine implements "next [N]", "step [N]" and "until" (no argument).
func cmdStepLine(s *Session, args string, mode stepMode) error {
	if err := s.canRun(); err != nil {
		return err
	}
	n, err := parseCount(args, 1)
	if err != nil {
		return err
	}
	tid := s.thread
	for i := 0; i < n; i++ {
		s.frame = 0
		if mode == stepInto {
			// gdb's step at a call's inlined copy: it enters the inline
			// frame the stop hid, without running.
			if tr, err := s.trace(tid, compare.All); err == nil {
				if k := tr.SkippedInline(); k > 0 {
					s.inlineSkip = k - 1
					s.invalidate()
					if i == n-1 {
						return s.printStop(printSrcAndLoc, "")
					}
					continue
				}
			}
		}
		before := s.shownFunction(tid)
		stopped, newFunc, err := s.stepLine(tid, mode)
		if err != nil || stopped || s.tgt == nil {
			return err
		}
		// An inline function entered or left is another function too.
		newFunc = newFunc || s.shownFunction(tid) != before
		if i == n-1 {
			if newFunc {
				return s.printStop(printSrcAndLoc, "")
			}
			return s.printStop(printSrcLine, "")
		}
	}
	return nil
}

// stepLine runs one source-level step of thread tid. stopped is set when
// something else ended it and was reported (a breakpoint, a signal, the
// exit, an interrupt); newFunc when the step ends in another function than
// it began in.
func (s *Session) stepLine(tid int, mode stepMode) (stopped, newFunc bool, err error) {
	regs, err := s.tgt.Regs(tid)
	if err != nil {
		return false, false, err
	}
	pc := regs.PC()
	cur, m := s.lineAt(pc)
	startFunc := funcOf(m, pc)
	if !cur.ok {
		name := startFunc
		if name == "" {
			name = fmt.Sprintf("%#x", pc)
		}
		s.printf("Single stepping until exit from function %s,\nwhich has no line number information.\n", name)
		var stopped bool
		if regs, stopped, err = s.finishUnlined(tid); err != nil || stopped {
			return stopped, false, err
		}
		pc = regs.PC()
		if cur, m = s.lineAt(pc); !cur.ok {
			return false, true, nil
		}
	}
	cfa := s.cfaOf(regs)
	// The inline depth the step is at: the inlined calls at the PC, less
	// those the stop hides (a call's inlined copy not entered yet).
	startDepth := 0
	if m != nil {
		startDepth = len(m.InlinedAt(pc))
		if tr, err := s.trace(tid, compare.All); err == nil {
			startDepth -= tr.SkippedInline()
		}
	}
	for steps := 0; steps < maxLineSteps; steps++ {
		if s.interrupted.Load() || s.quitting.Load() {
			s.printf("\nThread %d \"%s\" stopped (interrupted).\n", s.threadNo[tid], s.tgt.ThreadName(tid))
			return true, false, s.printSelected()
		}
		in, known := s.insnAt(pc)
		spBefore := regs.SP()
		ev, err := s.resume(func() (Event, error) { return s.tgt.StepInstruction(tid) })
		if err != nil {
			return false, false, err
		}
		if ev.Kind == EventExited {
			return true, false, nil
		}
		if ev.Kind != EventStopped {
			return true, false, s.reportStop(ev)
		}
		if bp := s.changedWatch(); bp != nil {
			s.reportWatch(Event{Kind: EventWatchpoint, Thread: tid, Watch: bp.watch.addr})
			return true, false, nil
		}
		if regs, err = s.tgt.Regs(tid); err != nil {
			return false, false, err
		}
		next := pc + uint64(in.Len)
		pc2 := regs.PC()
		if stopped, err := s.steppedOntoBreak(tid, pc2); err != nil || stopped {
			return true, false, err
		}
		switch {
		case known && (in.Class == arch.Call || in.Class == arch.CallIndirect) && pc2 != next:
			// Entered a callee.
			if mode == stepInto {
				if l, cm := s.lineAt(pc2); l.ok && cm != nil {
					if stopped, err := s.runToPrologueEnd(tid, pc2, cm); err != nil || stopped {
						return stopped, false, err
					}
					return false, true, nil
				}
			}
			if stopped, err := s.runToReturn(tid, next, spBefore); err != nil || stopped {
				return stopped, false, err
			}
			if regs, err = s.tgt.Regs(tid); err != nil {
				return false, false, err
			}
			pc2 = regs.PC() // the return address: it may start the next line
		case known && (in.Class == arch.Return || in.Class == arch.CondReturn) && pc2 != next:
			// Back in the caller, in the middle of its line: step to
			// that line's end.
			pc = pc2
			if l, lm := s.lineAt(pc); l.ok && pc == l.start && lm.StmtAt(pc) {
				// Returned to the start of a line (the call was its
				// line's last instruction): gdb stops there.
				return false, true, nil
			}
			if cur, m = s.lineAt(pc); !cur.ok {
				// A caller without line information: step out of it too.
				var stopped bool
				if regs, stopped, err = s.finishUnlined(tid); err != nil || stopped {
					return stopped, false, err
				}
				pc = regs.PC()
				cur, m = s.lineAt(pc)
			}
			cfa = s.cfaOf(regs)
			continue
		}
		pc = pc2
		if pc >= cur.start && pc < cur.end {
			continue
		}
		l, lm := s.lineAt(pc)
		if !l.ok {
			// A jump into code without line information (a tail call
			// to a library function): run it to its return.
			var stopped bool
			if regs, stopped, err = s.finishUnlined(tid); err != nil || stopped {
				return stopped, false, err
			}
			pc = regs.PC()
			cur, m = s.lineAt(pc)
			cfa = s.cfaOf(regs)
			continue
		}
		if c := s.cfaOf(regs); c != 0 && cfa != 0 && c != cfa && funcOf(lm, pc) != funcOf(m, cur.start) {
			// Another frame reached without a call or a return (a tail
			// call into a function with lines): a new function.
			cfa = c
		}
		atStmt := pc == l.start && lm.StmtAt(pc)
		differs := l.line != cur.line || l.file != cur.file
		backward := pc < cur.start
		if chain := lm.InlinedAt(pc); len(chain) > startDepth {
			// Inside a call inlined into the stepping frame: at its
			// entry, gdb stops at the call's line with the inline frame
			// hidden (step then enters it); in its body, next and until
			// step over it, step stops in it.
			call := chain[len(chain)-1-startDepth]
			if call.StartsAt(pc) {
				if call.CallLine != cur.line && !(mode == stepUntil && backward) {
					return false, false, nil
				}
				cur, m = l, lm
				continue
			}
			if mode != stepInto {
				cur, m = l, lm
				continue
			}
		}
		if atStmt && differs && !(mode == stepUntil && backward) {
			return false, funcOf(lm, pc) != startFunc, nil
		}
		cur, m = l, lm
	}
	return false, funcOf(m, pc) != startFunc, nil
}

// finishUnlined runs thread tid out of its frame 0, code without line
// information a step reached (finishFrame), and returns its registers
// after; stopped is set when something else ended the run and was
// reported.
func (s *Session) finishUnlined(tid int) (regs frames.Regs, stopped bool, err error) {
	if stopped, err := s.finishFrame(tid); err != nil || stopped {
		return regs, stopped, err
	}
	regs, err = s.tgt.Regs(tid)
	return regs, false, err
}

// funcOf names the function holding pc in m ("" when none).
func funcOf(m *frames.Module, pc uint64) string {
	if m == nil {
		return ""
	}
	name, _, _ := m.FuncName(pc)
	return name
}

// runToReturn continues thread tid's process to the return address ra of
// a call made with SP at spBefore: a temporary breakpoint at ra, hit by
// tid with its SP back at or above spBefore. stopped is set when something
// else stopped the process first (reported).
func (s *Session) runToReturn(tid int, ra, spBefore uint64) (stopped bool, err error) {
	temp := s.bpAt(ra) == nil
	if temp {
		if err := s.tgt.SetBreakpoint(ra); err != nil {
			return false, err
		}
		defer func() {
			if s.tgt != nil {
				s.tgt.ClearBreakpoint(ra)
			}
		}()
	}
	for {
		ev, err := s.resume(s.cont)
		if err != nil {
			return false, err
		}
		if ev.Kind == EventExited {
			return true, nil
		}
		if ev.Kind == EventBreakpoint && ev.PC == ra && (temp || s.bpAt(ra) != nil) {
			regs, err := s.tgt.Regs(ev.Thread)
			if err != nil {
				return false, err
			}
			if ev.Thread != tid || regs.SP() < spBefore {
				continue // another thread, or a deeper recursive call
			}
			if !temp {
				// The user's own breakpoint at the return address: gdb
				// reports it.
				return true, s.reportStop(ev)
			}
			s.thread = tid
			return false, nil
		}
		return true, s.reportStop(ev)
	}
}

// finishFrame runs thread tid until its frame 0 returns to frame 1.
func (s *Session) finishFrame(tid int) (stopped bool, err error) {
	tr, err := s.trace(tid, compare.All)
	if err != nil {
		return false, err
	}
	if len(tr.Frames) < 2 {
		return false, errors.New(`"finish" not meaningful in the outermost frame.`)
	}
	regs, err := s.tgt.Regs(tid)
	if err != nil {
		return false, err
	}
	return s.runToReturn(tid, tr.Frames[1].PC, regs.SP()+1)
}

// runToPrologueEnd steps thread tid, just entered at the function entry
// entry of module m, to where gdb's "step" stops in a function it enters
// (infrun.c handle_step_into_function): past the prologue as the machine's
// skip_prologue finds it (for GCC's code on x86-64, amd64_analyze_prologue:
// past "push %rbp; mov %rsp,%rbp", else the entry), then, when that is in
// the middle of a line, to the end of that line if it is still in the
// function.
func (s *Session) runToPrologueEnd(tid int, entry uint64, m *frames.Module) (stopped bool, err error) {
	stop := s.prologueEnd(m, entry)
	_, _, fnEnd, _ := funcRange(m, entry)
	for steps := 0; steps < 10000; steps++ {
		regs, err := s.tgt.Regs(tid)
		if err != nil {
			return false, err
		}
		pc := regs.PC()
		if pc == stop || pc < entry || pc >= fnEnd {
			return false, nil
		}
		ev, err := s.resume(func() (Event, error) { return s.tgt.StepInstruction(tid) })
		if err != nil {
			return false, err
		}
		if ev.Kind != EventStopped {
			return true, s.reportStop(ev)
		}
		if regs, err = s.tgt.Regs(tid); err != nil {
			return false, err
		}
		if stopped, err := s.steppedOntoBreak(tid, regs.PC()); err != nil || stopped {
			return true, err
		}
	}
	return false, nil
}

// prologueEnd is where gdb puts a breakpoint on the function that starts
// at entry in m, and where its step into the function stops
// (symtab.c skip_prologue_sal, infrun.c handle_step_into_function): past
// the prologue as the machine's skip_prologue finds it (for GCC's code on
// x86-64, amd64_analyze_prologue: past "push %rbp; mov %rsp,%rbp", else
// the entry), then, when that is in the middle of a line, at the start of
// the next line if it is still in the function.
func (s *Session) prologueEnd(m *frames.Module, entry uint64) uint64 {
	stop := entry
	if a, err := m.Arch(); err == nil && a == arch.AMD64Arch {
		if sp, err := s.space(); err == nil {
			var b [8]byte
			n, _ := sp.Mem.ReadAt(b[:], entry)
			code := b[:n]
			if len(code) >= 4 && string(code[:4]) == "\xf3\x0f\x1e\xfa" { // endbr64
				code, stop = code[4:], stop+4
			}
			if len(code) >= 4 && code[0] == 0x55 && (string(code[1:4]) == "\x48\x89\xe5" || string(code[1:4]) == "\x48\x8b\xec") {
				stop += 4
			} else {
				stop = entry
			}
		}
	}
	_, _, fnEnd, _ := funcRange(m, entry)
	if l, _ := s.lineAt(stop); l.ok && l.start != stop && l.end < fnEnd {
		stop = l.end
	}
	return stop
}

// funcRange returns the function of m holding pc: its name and [start, end)
// (end is start+1 when the symbol has no size).
func funcRange(m *frames.Module, pc uint64) (name string, start, end uint64, ok bool) {
	name, off, ok := m.FuncName(pc)
	if !ok {
		return "", pc, pc + 1, false
	}
	start = pc - off
	if a, size, found := m.LookupSymbol(name); found && size > 0 && a == start {
		return name, start, start + size, true
	}
	return name, start, start + 1, true
}

// shownFunction names the function of thread tid's frame 0 as the stop
// shows it: an inline function's name inside its inlined copy.
func (s *Session) shownFunction(tid int) string {
	tr, err := s.trace(tid, compare.All)
	if err != nil || len(tr.Frames) == 0 {
		return ""
	}
	sh, ok := tr.ShownAt(0)
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(tr.ShownLocation(sh), " (")
	return name
}
