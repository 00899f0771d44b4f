package debugger

import (
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
)

// cmdBreak implements "break [LOCATION]".
func cmdBreak(s *Session, args string) error { return s.setBreakpoints(args, false) }

// cmdTbreak implements "tbreak [LOCATION]".
func cmdTbreak(s *Session, args string) error { return s.setBreakpoints(args, true) }

// setBreakpoints sets a breakpoint at every address of a location
// (resolveLocation; without one, the selected frame's PC, as in gdb).
func (s *Session) setBreakpoints(args string, temp bool) error {
	args = strings.TrimSpace(args)
	// gdb's "break LOCATION if CONDITION".
	cond := ""
	if m := breakIf.FindStringSubmatchIndex(args); m != nil {
		if m[2] >= 0 {
			cond = strings.TrimSpace(args[m[2]:])
		}
		args = strings.TrimSpace(args[:m[0]])
		if cond == "" {
			return errors.New("Argument required (boolean expression).")
		}
	}
	sp, err := s.space()
	if err != nil {
		return err
	}
	var loc location
	if args == "" {
		pc := s.selectedPC()
		if pc == 0 {
			return errors.New("No default breakpoint location: no stack.")
		}
		loc.addrs = []uint64{pc}
		args = fmt.Sprintf("*%#x", pc)
	} else if loc, err = s.resolveLocation(args); err != nil {
		return err
	}
	// As gdb: a function's breakpoint is past its prologue ("break
	// *FUNCTION" is its first instruction).
	loc = s.afterPrologues(loc)
	kind := "Breakpoint"
	if temp {
		kind = "Temporary breakpoint"
	}
	for _, addr := range loc.addrs {
		if bp := s.bpAt(addr); bp != nil {
			return fmt.Errorf("Breakpoint %d is already at %#x.", bp.id, addr)
		}
	}
	bp := &breakpoint{id: s.nextBP, desc: args, temp: temp, cond: cond}
	if loc.function {
		bp.function = args
	}
	if loc.function && loc.module != nil {
		for _, a := range loc.addrs {
			if _, off, ok := loc.module.FuncName(a); ok && off != 0 && len(loc.module.InlinedAt(a)) > 0 {
				if bp.inlineAt == nil {
					bp.inlineAt = map[uint64]bool{}
				}
				bp.inlineAt[a] = true
			}
		}
	}
	for _, addr := range loc.addrs {
		if err := s.tgt.SetBreakpoint(addr); err != nil {
			for _, a := range bp.addrs {
				s.tgt.ClearBreakpoint(a) // the locations set so far
			}
			return err
		}
		bp.addrs = append(bp.addrs, addr)
	}
	s.nextBP++
	s.bps = append(s.bps, bp)
	if len(bp.addrs) == 1 {
		addr := bp.addrs[0]
		// gdb's say_where: the location's line, else the address alone.
		if m := sp.Modules.Find(addr); m != nil {
			if sym := m.Symbolize(addr); sym.File != "" && sym.Line > 0 {
				s.printf("%s %d at %#x: file %s, line %d.\n", kind, bp.id, addr, sym.File, sym.Line)
				return nil
			}
		}
		s.printf("%s %d at %#x\n", kind, bp.id, addr)
	} else {
		// gdb: "Breakpoint 1 at 0x1139: weigh. (2 locations)"
		s.printf("%s %d at %#x: %s. (%d locations)\n", kind, bp.id, bp.addrs[0], args, len(bp.addrs))
	}
	return nil
}

// cmdDelete implements "delete [N...]".
func cmdDelete(s *Session, args string) error {
	ids := strings.Fields(args)
	var keep []*breakpoint
	var errs []error
	found := map[int]bool{}
	for _, bp := range s.bps {
		del := len(ids) == 0
		for _, w := range ids {
			if n, err := strconv.Atoi(w); err == nil && n == bp.id {
				del = true
				found[n] = true
			}
		}
		if !del {
			keep = append(keep, bp)
			continue
		}
		if s.tgt != nil {
			for _, a := range bp.addrs {
				if err := s.tgt.ClearBreakpoint(a); err != nil {
					errs = append(errs, err)
				}
			}
			if wt, ok := s.tgt.(watchTarget); ok && bp.watch != nil {
				if err := wt.ClearWatchpoint(bp.watch.addr); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	s.bps = keep
	for _, w := range ids {
		if n, err := strconv.Atoi(w); err != nil || !found[n] {
			errs = append(errs, fmt.Errorf("No breakpoint number %s.", w))
		}
	}
	return errors.Join(errs...)
}

// cmdInfoBreakpoints implements "info breakpoints".
func cmdInfoBreakpoints(s *Session, _ string) error { return s.listBreakpoints(s.bps, "breakpoints") }

// cmdInfoWatchpoints implements "info watchpoints": the watchpoints alone.
func cmdInfoWatchpoints(s *Session, _ string) error {
	var ws []*breakpoint
	for _, bp := range s.bps {
		if bp.watch != nil {
			ws = append(ws, bp)
		}
	}
	return s.listBreakpoints(ws, "watchpoints")
}

// listBreakpoints prints the table of "info breakpoints" for bps; what
// names them when there are none ("No breakpoints.").
func (s *Session) listBreakpoints(bps []*breakpoint, what string) error {
	if len(bps) == 0 {
		s.printf("No %s.\n", what)
		return nil
	}
	var sp *frames.Space
	if s.tgt != nil {
		sp, _ = s.space()
	}
	// gdb's table (breakpoint.c breakpoint_1): Num, Type, Disp, Enb,
	// Address, What, then a breakpoint's condition, ignore count and hits.
	s.printf("%-7s %-14s %-4s %-3s %-18s %s\n", "Num", "Type", "Disp", "Enb", "Address", "What")
	for _, bp := range sortedBreakpoints(bps) {
		where := func(a uint64) string {
			if sp != nil {
				if w := bpWhere(sp, a, bp.function); w != "" {
					return w
				}
			}
			return bp.desc
		}
		disp := "keep"
		if bp.temp {
			disp = "del"
		}
		switch {
		case bp.watch != nil:
			s.printf("%-7d %-14s %-4s %-3s %-18s %s\n", bp.id, bp.watch.kind.infoType(), disp, "y", "", bp.desc)
		case len(bp.addrs) == 1:
			s.printf("%-7d %-14s %-4s %-3s %-18s %s\n", bp.id, "breakpoint", disp, "y", hex16(bp.addrs[0]), where(bp.addrs[0]))
		default:
			s.printf("%-7d %-14s %-4s %-3s %-18s \n", bp.id, "breakpoint", disp, "y", "<MULTIPLE>")
		}
		if bp.cond != "" {
			s.printf("\tstop only if %s\n", bp.cond)
		}
		switch {
		case bp.hits == 1:
			s.printf("\tbreakpoint already hit 1 time\n")
		case bp.hits > 1:
			s.printf("\tbreakpoint already hit %d times\n", bp.hits)
		}
		if bp.ignore > 0 {
			s.printf("\tWill ignore next %d crossings of breakpoint.\n", bp.ignore)
		}
		if len(bp.addrs) > 1 {
			for k, a := range bp.addrs {
				s.printf("%-7s %-14s %-4s %-3s %-18s %s\n", fmt.Sprintf("%d.%d", bp.id, k+1), "", "", "y", hex16(a), where(a))
			}
		}
	}
	return nil
}

// bpWhere is gdb's What of a breakpoint location: "in FUNCTION at
// FILE:LINE" (function, for a breakpoint set on a function, else the
// innermost inlined function's, as gdb lists it), or "<SYMBOL+OFF>"
// without line information.
func bpWhere(sp *frames.Space, a uint64, function string) string {
	loc, _ := compare.InnermostLocation(sp, a)
	name, rest, ok := strings.Cut(loc, " () at ")
	if ok {
		if function != "" {
			name = function
		}
		return "in " + name + " at " + rest
	}
	if m := sp.Modules.Find(a); m != nil {
		if n, off, ok := m.FuncName(a); ok {
			return fmt.Sprintf("<%s+%d>", n, off)
		}
	}
	return ""
}

// breakIf finds " if CONDITION" in "LOCATION if CONDITION" (group 1: the
// condition).
var breakIf = regexp.MustCompile(`(?:^|\s)if(?:\s+(.*)|$)`)

// cont is Continue that passes the watchpoint hits gdb passes
// (watchStops) and the hits of a breakpoint whose ignore count is not
// used up or whose condition is false, as gdb does
// (breakpoint.c bpstat_check_breakpoint_conditions): each is evaluated in
// the hitting thread's frame 0. A condition that cannot be evaluated
// stops, with gdb's message.
func (s *Session) cont() (Event, error) {
	for {
		ev, err := s.tgt.Continue()
		if err == nil && ev.Kind == EventWatchpoint && !s.interrupted.Load() && !s.quitting.Load() && !s.watchStops(ev) {
			continue
		}
		if err != nil || ev.Kind != EventBreakpoint {
			return ev, err
		}
		if handled, stop := s.scopeEnded(ev); handled && s.bpAt(ev.PC) == nil {
			if stop {
				s.invalidate()
				return Event{Kind: EventStopped, Thread: ev.Thread, PC: ev.PC}, nil
			}
			continue
		}
		if bp := s.bpAt(ev.PC); bp == nil || s.breakHolds(bp, ev.Thread) {
			return ev, nil
		}
	}
}

// breakHolds says whether thread tid's hit of breakpoint bp stops the
// program, as gdb's bpstat_check_breakpoint_conditions: bp's condition,
// evaluated in the thread's frame 0, is not 0 (an error in it stops, with
// gdb's message), and then its ignore count is spent (a hit it passes
// still counts in hits). The selected thread and frame are kept.
func (s *Session) breakHolds(bp *breakpoint, tid int) bool {
	if bp.cond == "" && bp.ignore == 0 {
		return true
	}
	s.invalidate()
	thread, frame := s.thread, s.frame
	s.thread, s.frame = tid, 0
	stop := true
	if bp.cond != "" {
		v, err := s.evalExpr(bp.cond)
		if err != nil {
			s.printf("Error in testing condition for breakpoint %d:\n%v\n", bp.id, err)
			return true
		}
		stop = v.truth()
	}
	if stop && bp.ignore > 0 {
		bp.ignore--
		bp.hits++
		stop = false
	}
	if !stop {
		s.thread, s.frame = thread, frame
	}
	return stop
}

// steppedOntoBreak reports a breakpoint at pc, where a single step of
// thread tid has just put it, as gdb does (a software breakpoint's
// location reached by a step is a hit: its "Breakpoint N, ..." and the
// stop). stopped is set when it was reported.
func (s *Session) steppedOntoBreak(tid int, pc uint64) (stopped bool, err error) {
	bp := s.bpAt(pc)
	if bp == nil || bp.watch != nil || !s.breakHolds(bp, tid) {
		return false, nil
	}
	s.thread = tid
	return true, s.reportStop(Event{Kind: EventBreakpoint, Thread: tid, PC: pc})
}

// cmdCondition implements "condition N [COND]".
func cmdCondition(s *Session, args string) error {
	num, cond, _ := strings.Cut(strings.TrimSpace(args), " ")
	bp, err := s.breakpointByNumber(num)
	if err != nil {
		return err
	}
	bp.cond = strings.TrimSpace(cond)
	if bp.cond == "" && !s.Batch { // gdb says it from a terminal only (from_tty)
		s.printf("Breakpoint %d now unconditional.\n", bp.id)
	}
	return nil
}

// cmdIgnore implements "ignore N COUNT".
func cmdIgnore(s *Session, args string) error {
	f := strings.Fields(args)
	if len(f) != 2 {
		return errors.New("Argument required (a breakpoint number and a count).")
	}
	bp, err := s.breakpointByNumber(f[0])
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 0 {
		return fmt.Errorf("Invalid count %q.", f[1])
	}
	bp.ignore = n
	if s.Batch {
		return nil // gdb says it from a terminal only (from_tty)
	}
	switch n {
	case 0:
		s.printf("Will stop next time breakpoint %d is reached.\n", bp.id)
	case 1:
		s.printf("Will ignore next crossing of breakpoint %d.\n", bp.id)
	default:
		s.printf("Will ignore next %d crossings of breakpoint %d.\n", n, bp.id)
	}
	return nil
}

// breakpointByNumber finds breakpoint N, with gdb's messages.
func (s *Session) breakpointByNumber(num string) (*breakpoint, error) {
	if num == "" {
		return nil, errors.New("Argument required (breakpoint number).")
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return nil, fmt.Errorf("Bad breakpoint argument: '%s'", num)
	}
	for _, bp := range s.bps {
		if bp.id == n {
			return bp, nil
		}
	}
	return nil, fmt.Errorf("No breakpoint number %d.", n)
}

// resume runs fn (a Continue or StepInstruction), then reports the stop:
// a breakpoint hit, an interrupt, or the process's exit.
func (s *Session) resume(fn func() (Event, error)) (Event, error) {
	s.ranOnce = true
	s.inlineSkip = -1
	s.invalidate()
	ev, err := fn()
	s.invalidate()
	if err != nil {
		return ev, err
	}
	if ev.Kind == EventExited {
		if ev.Status >= 0 {
			code := ev.Status
			s.exitCode = &code
		}
		pid := s.tgt.Pid()
		s.setTarget(nil)
		if len(s.argv) == 0 {
			s.bps = nil // a program sfdbg started keeps them for run, as in gdb
		}
		switch {
		case ev.Status == 0:
			s.printf("[Inferior 1 (process %d) exited normally]\n", pid)
		case ev.Status < 0:
			// gdb's words, once the signal it stopped at was delivered.
			sig := syscall.Signal(-ev.Status)
			s.printf("\nProgram terminated with signal %s.\nThe program no longer exists.\n", proc.SignalText(sig))
		default:
			// gdb prints the code in octal (infrun.c print_exited_reason).
			s.printf("[Inferior 1 (process %d) exited with code %#o]\n", pid, ev.Status)
		}
		return ev, nil
	}
	if ev.Thread != 0 {
		s.thread = ev.Thread
	}
	s.threads()
	return ev, nil
}

// reportStop prints where the program stopped after continue or finish.
func (s *Session) reportStop(ev Event) error {
	switch ev.Kind {
	case EventExited:
		return nil
	case EventBreakpoint:
		if bp := s.bpAt(ev.PC); bp != nil {
			bp.hits++
			if bp.inlineAt[ev.PC] {
				s.inlineSkip = 0 // the user's breakpoint on the inline function
				s.invalidate()
			}
			kind := "Breakpoint"
			if bp.temp {
				kind = "Temporary breakpoint"
				s.deleteBreakpoint(bp)
			}
			// gdb: "Breakpoint 1, weigh (r=...) at clones.c:12", and
			// `Thread 2 "clones" hit Breakpoint 1, ...` once the program
			// has had two threads (print_bp_stop_message).
			s.printf("\n")
			if s.nextNo > 2 {
				return s.printStop(printSrcAndLoc, fmt.Sprintf("Thread %d \"%s\" hit %s %d, ", s.threadNo[ev.Thread], s.tgt.ThreadName(ev.Thread), kind, bp.id))
			}
			return s.printStop(printSrcAndLoc, fmt.Sprintf("%s %d, ", kind, bp.id))
		}
	case EventWatchpoint:
		s.reportWatch(ev)
	case EventInterrupt:
		s.printf("\nThread %d \"%s\" stopped (interrupted).\n", s.threadNo[s.thread], s.tgt.ThreadName(s.thread))
	case EventSignal:
		// gdb: `Thread 1 "prog" received signal SIGSEGV, Segmentation
		// fault.` once the program has had two threads, else "Program
		// received signal ..." (infrun.c, show_thread_that_caused_stop).
		s.thread = ev.Thread
		if s.nextNo > 2 {
			s.printf("\nThread %d \"%s\" received signal %s.\n", s.threadNo[ev.Thread], s.tgt.ThreadName(ev.Thread), ev.Signal)
		} else {
			s.printf("\nProgram received signal %s.\n", ev.Signal)
		}
	}
	return s.printStop(printSrcAndLoc, "")
}

// deleteBreakpoint removes bp (a temporary breakpoint that was hit).
func (s *Session) deleteBreakpoint(bp *breakpoint) {
	s.bps = slices.DeleteFunc(s.bps, func(b *breakpoint) bool { return b == bp })
	for _, a := range bp.addrs {
		if err := s.tgt.ClearBreakpoint(a); err != nil {
			s.ui.PrintErr(err.Error())
		}
	}
}

func (s *Session) bpAt(pc uint64) *breakpoint {
	for _, bp := range s.bps {
		if slices.Contains(bp.addrs, pc) {
			return bp
		}
	}
	return nil
}

// canRun says why the target cannot be run, if it cannot: a process that
// was stopped before the attach is kept stopped.
func (s *Session) canRun() error {
	if st, ok := s.tgt.(*stoppedTarget); ok {
		return st.errKeptStopped()
	}
	if _, ok := s.tgt.(*CoreTarget); ok {
		return errCore
	}
	return nil
}

// cmdContinue implements "continue".
func cmdContinue(s *Session, _ string) error {
	if err := s.canRun(); err != nil {
		return err
	}
	s.printf("Continuing.\n")
	ev, err := s.resume(s.cont) // passes the watchpoint hits gdb passes (watchStops)
	if err != nil {
		return err
	}
	return s.reportStop(ev)
}

// cmdStepi implements "stepi [N]".
func cmdStepi(s *Session, args string) error {
	n, err := parseCount(args, 1)
	if err != nil {
		return err
	}
	tid := s.thread
	startFunc := s.shownFunction(tid)
	for i := 0; i < n; i++ {
		if s.quitting.Load() {
			return nil // a signal ends the session: it detaches now
		}
		if s.interrupted.Load() {
			s.printf("\nThread %d \"%s\" stopped (interrupted) after %d of %d instructions.\n",
				s.threadNo[tid], s.tgt.ThreadName(tid), i, n)
			break
		}
		ev, err := s.resume(func() (Event, error) { return s.tgt.StepInstruction(tid) })
		if err != nil {
			return err
		}
		if ev.Kind == EventExited {
			return nil
		}
		s.thread = tid
		// The instruction wrote a new value to a watched location:
		// gdb reports the watchpoint and stops stepping. (Delve's
		// single step does not report the debug register's hit: the
		// values are compared.)
		if bp := s.changedWatch(); bp != nil {
			s.reportWatch(Event{Kind: EventWatchpoint, Thread: tid, Watch: bp.watch.addr})
			return s.printStop(printSrcAndLoc, "")
		}
		// gdb's stepi hides no inline frame (infrun.c skips them only
		// for a step over a range).
		s.inlineSkip = 0
		s.invalidate()
		if regs, err := s.tgt.Regs(tid); err == nil {
			if stopped, err := s.steppedOntoBreak(tid, regs.PC()); err != nil || stopped {
				return err
			}
		}
	}
	// gdb: the source line (after the PC in the middle of a line) while
	// in the same function, the location too once in another.
	if s.shownFunction(tid) != startFunc {
		return s.printStop(printSrcAndLoc, "")
	}
	return s.printStop(printSrcLine, "")
}

// cmdFinish implements "finish": a temporary breakpoint at the selected
// frame's return address, hit by the same thread with its SP above the
// frame's CFA (so that a recursive call returning to the same address does
// not count).
func cmdFinish(s *Session, _ string) error {
	if err := s.canRun(); err != nil {
		return err
	}
	sh, tr, err := s.selectedShown()
	if err != nil {
		return err
	}
	n := sh.Frame
	if sh.Inline {
		// gdb steps out of an inline frame line by line; the return
		// address of frame N+1 would run the rest of it too.
		return fmt.Errorf(`"finish" out of an inline frame is not supported: frame %d is inlined into frame %d, which "frame %d" then "finish" runs until it returns.`,
			sh.Level, sh.InlinedInto, tr.Level(n))
	}
	if sh.TailCall {
		return fmt.Errorf(`"finish" out of a tail-call frame is not supported: frame %d left by a jump and has no return address of its own; "frame %d" then "finish" runs until the function it jumped to returns.`,
			sh.Level, sh.Level-1)
	}
	if n+1 >= len(tr.Frames) {
		return errors.New(`"finish" not meaningful in the outermost frame.`)
	}
	f, caller := &tr.Frames[n], &tr.Frames[n+1]
	var retType dwarf.Type // gdb's "Value returned"
	if f.Module != nil {
		retType, _ = f.Module.ReturnType(f.LookupPC())
	}
	ra, cfa := caller.PC, caller.SP
	tid := s.thread
	if !s.Batch { // gdb says it from a terminal only (from_tty)
		s.printf("Run till exit from #%-3d%s\n", sh.Level, s.frameLocation(tr, sh))
	}
	temp := s.bpAt(ra) == nil
	if temp {
		if err := s.tgt.SetBreakpoint(ra); err != nil {
			return err
		}
	}
	defer func() {
		if temp && s.tgt != nil {
			s.tgt.ClearBreakpoint(ra)
		}
	}()
	for {
		ev, err := s.resume(s.cont)
		if err != nil {
			return err
		}
		if ev.Kind == EventBreakpoint && ev.PC == ra && s.bpAt(ra) == nil {
			regs, err := s.tgt.Regs(ev.Thread)
			if err == nil && (ev.Thread != tid || regs.SP() < cfa) {
				continue // another thread, or a deeper recursive call
			}
			s.thread = ev.Thread
			if err := s.printStop(printSrcAndLoc, ""); err != nil {
				return err
			}
			s.printReturnValue(retType, regs)
			return nil
		}
		return s.reportStop(ev)
	}
}

// maxStringChars is gdb's "print elements" default: a string shown by x/s
// stops there, followed by "...".
const maxStringChars = 200

// examineStrings implements x/s: n NUL-terminated strings from addr, each
// on a line as gdb prints them ("0x4006f4:\t\"hello\\n\""), C escapes for
// what is not printable, at most maxStringChars characters each.
func (s *Session) examineStrings(addr uint64, n int) error {
	sp, err := s.space()
	if err != nil {
		return err
	}
	for range n {
		var text []byte
		a, done, long := addr, false, false
		for !done {
			var buf [64]byte
			got, _ := sp.Mem.ReadAt(buf[:], a)
			if got == 0 {
				if a == addr {
					return fmt.Errorf("Cannot access memory at address %#x", addr)
				}
				break
			}
			for _, c := range buf[:got] {
				a++
				if c == 0 {
					done = true
					break
				}
				if len(text) == maxStringChars {
					long, done = true, true
					break
				}
				text = append(text, c)
			}
		}
		s.printf("%s:\t%s", symLabel(sp, addr), cString(text))
		if long {
			s.printf("...")
		}
		s.printf("\n")
		addr = a
		s.xNext = addr
	}
	return nil
}

// cString quotes b as gdb prints a C string: "\n", "\t", "\"", "\\" and
// octal escapes for other bytes that are not printable ASCII.
func cString(b []byte) string {
	out := []byte{'"'}
	for _, c := range b {
		switch {
		case c == '\n':
			out = append(out, `\n`...)
		case c == '\t':
			out = append(out, `\t`...)
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20 || c >= 0x7f:
			out = append(out, fmt.Sprintf("\\%03o", c)...)
		default:
			out = append(out, c)
		}
	}
	return string(append(out, '"'))
}

// printReturnValue prints what finish's function returned, as gdb does:
// "Value returned is $1 = 42", kept in the value history; nothing for a
// void function or one without DWARF.
func (s *Session) printReturnValue(t dwarf.Type, regs frames.Regs) {
	if t == nil {
		return
	}
	rax, ok := regs.Get(0) // DWARF 0: rax, the AMD64 integer return register
	if !ok {
		return
	}
	sp, err := s.space()
	if err != nil {
		return
	}
	text, v, why, ok := returnValue(sp, t, rax)
	switch {
	case ok:
		s.history = append(s.history, v)
		s.printf("Value returned is $%d = %s\n", len(s.history), text)
	case why != "":
		s.printf("%s\n", why)
	}
}

// cmdUntil implements "until LOCATION" (frameOnly) and "advance
// LOCATION": run until the selected thread reaches LOCATION or the
// selected frame returns, with temporary breakpoints, as gdb does. until
// stops at LOCATION only in the selected frame or a frame it returns to
// (its CFA not below the selected frame's), so a recursive call on the
// way does not count; advance stops at LOCATION in any frame. Without
// LOCATION, until is gdb's source-level stepping, which sfdbg refuses.
func cmdUntil(s *Session, args string, frameOnly bool) error {
	name := "advance"
	if frameOnly {
		name = "until"
	}
	if strings.TrimSpace(args) == "" {
		return errors.New("Argument required (a location).")
	}
	if err := s.canRun(); err != nil {
		return err
	}
	loc, err := s.resolveLocation(args)
	if err != nil {
		return err
	}
	loc = s.afterPrologues(loc)
	n, tr, err := s.selected()
	if err != nil {
		return err
	}
	cfa := tr.Frames[n].CFA
	if frameOnly && cfa == 0 {
		return fmt.Errorf("%s: the CFA of the selected frame is not known, so its return cannot be recognized; use advance.", name)
	}
	stops := slices.Clone(loc.addrs)
	var ra, callerSP uint64
	if n+1 < len(tr.Frames) {
		ra, callerSP = tr.Frames[n+1].PC, tr.Frames[n+1].SP
		stops = append(stops, ra)
	}
	tid := s.thread
	var temps []uint64
	defer func() {
		for _, a := range temps {
			if s.tgt != nil {
				s.tgt.ClearBreakpoint(a)
			}
		}
	}()
	for _, a := range stops {
		if s.bpAt(a) == nil && !slices.Contains(temps, a) {
			if err := s.tgt.SetBreakpoint(a); err != nil {
				return err
			}
			temps = append(temps, a)
		}
	}
	for {
		ev, err := s.resume(s.cont)
		if err != nil {
			return err
		}
		if ev.Kind != EventBreakpoint || !slices.Contains(temps, ev.PC) {
			return s.reportStop(ev)
		}
		if ev.Thread != tid {
			continue // the breakpoints are the selected thread's
		}
		regs, err := s.tgt.Regs(tid)
		if err != nil {
			return err
		}
		if slices.Contains(loc.addrs, ev.PC) {
			if frameOnly {
				tr, err := s.trace(tid, compare.All)
				if err != nil {
					return err
				}
				if len(tr.Frames) > 0 && tr.Frames[0].CFA != 0 && tr.Frames[0].CFA < cfa {
					continue // a deeper call (recursion) reached LOCATION
				}
			}
		} else if regs.SP() < callerSP {
			continue // a deeper recursive call returned to the same address
		}
		s.thread = tid
		return s.printStop(printSrcAndLoc, "")
	}
}

// cmdDetach implements "detach".
func cmdDetach(s *Session, _ string) error {
	pid := s.tgt.Pid()
	launched := s.tgt.Launched()
	t := s.tgt
	s.setTarget(nil)
	if err := s.detach(t); err != nil {
		return err
	}
	if launched {
		s.printf("[Inferior 1 (process %d) detached]\n", pid)
	} else {
		s.printf("Detaching from process %d.\n[Inferior 1 (process %d) detached]\n", pid, pid)
	}
	return nil
}

// cmdKill implements "kill".
func cmdKill(s *Session, _ string) error {
	if s.ui.IsTerminal() && !s.Batch && !s.confirmOff() {
		ans, err := s.ui.ReadLine("Kill the program being debugged? (y or n) ")
		if err != nil || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ans)), "y") {
			return errors.New("Not confirmed.")
		}
	}
	pid := s.tgt.Pid()
	t := s.tgt
	s.setTarget(nil)
	if len(s.argv) == 0 {
		s.bps = nil // a program sfdbg started keeps them for run, as in gdb
	}
	if err := t.Kill(); err != nil {
		return err
	}
	s.printf("[Inferior 1 (process %d) killed]\n", pid)
	return nil
}

// cmdQuit implements "quit".
func cmdQuit(s *Session, _ string) error {
	s.quitting.Store(true)
	return s.closeTarget()
}

// cmdSource implements "source FILE". Its errors are printed by the
// file's line that failed, so it returns one that says only that the file
// stopped.
func cmdSource(s *Session, args string) error {
	path := strings.TrimSpace(args)
	if path == "" {
		return errors.New("source command requires file name of file to source.")
	}
	if err := s.source(path, false); err != nil {
		return errSourced
	}
	return nil
}

// errSourced is the error of a source command whose file failed (the
// failure is printed already).
var errSourced = errors.New("(the sourced file stopped at its first error)")

// cmdHelp implements "help [COMMAND]".
func cmdHelp(s *Session, args string) error {
	args = strings.TrimSpace(args)
	if args == "" {
		s.printf("%s", helpText(s.cmds))
		return nil
	}
	c, err := s.cmds.lookupHelp(args)
	if err != nil {
		return err
	}
	s.printf("%s\n", commandHelp(s.cmds, c, args))
	return nil
}

// xFormat is the remembered format of the x command.
type xFormat struct {
	count  int
	format byte // x d u a
	unit   byte // b h w g
}

// cmdExamine implements "x/NFU ADDR".
func cmdExamine(s *Session, args string) (err error) {
	f := s.xfmt
	f.count = 1
	if rest, ok := strings.CutPrefix(args, "/"); ok {
		spec, a := splitWord(rest)
		args = a
		num := ""
		for _, c := range spec {
			switch {
			case c >= '0' && c <= '9':
				num += string(c)
			case strings.ContainsRune("xduais", c):
				f.format = byte(c)
				if c == 'a' {
					f.unit = 'g'
				}
			case strings.ContainsRune("bhwg", c):
				f.unit = byte(c)
			default:
				return fmt.Errorf("Invalid format letter %q in /%s (use N, x d u a i s, b h w g).", c, spec)
			}
		}
		if num != "" {
			n, _ := strconv.Atoi(num)
			f.count = n
		}
	}
	var addr uint64
	if strings.TrimSpace(args) == "" {
		// gdb: x without an address continues after the last unit shown.
		if s.xNext == 0 {
			return errors.New("Argument required (starting display address).")
		}
		addr = s.xNext
	} else if addr, err = s.evalAddr(args); err != nil {
		return err
	}
	if f.count > 4096 {
		return errors.New("Count too large (at most 4096 units).")
	}
	s.xfmt = f
	if f.format == 'i' {
		return s.examineInsns(addr, f.count)
	}
	if f.format == 's' {
		return s.examineStrings(addr, f.count)
	}
	size := map[byte]int{'b': 1, 'h': 2, 'w': 4, 'g': 8}[f.unit]
	perLine := map[byte]int{'b': 8, 'h': 8, 'w': 4, 'g': 2}[f.unit]
	if f.format == 'a' {
		perLine = 1
	}
	sp, err := s.space()
	if err != nil {
		return err
	}
	buf := make([]byte, f.count*size)
	n, rerr := sp.Mem.ReadAt(buf, addr)
	units := n / size
	s.xNext = addr + uint64(units*size)
	for i := 0; i < units; i++ {
		a := addr + uint64(i*size)
		if i%perLine == 0 {
			if i > 0 {
				s.printf("\n")
			}
			s.printf("%s:", symLabel(sp, a))
		}
		b := buf[i*size : (i+1)*size]
		var v uint64
		switch size {
		case 1:
			v = uint64(b[0])
		case 2:
			v = uint64(binary.NativeEndian.Uint16(b))
		case 4:
			v = uint64(binary.NativeEndian.Uint32(b))
		default:
			v = binary.NativeEndian.Uint64(b)
		}
		switch f.format {
		case 'd':
			sv := int64(v<<(64-8*size)) >> (64 - 8*size)
			s.printf("\t%d", sv)
		case 'u':
			s.printf("\t%d", v)
		case 'a':
			s.printf("\t%s", symAddr(sp, v))
		default:
			s.printf("\t0x%0*x", size*2, v)
		}
	}
	if units > 0 {
		s.printf("\n")
	}
	if units < f.count {
		if rerr == nil {
			rerr = errors.New("short read")
		}
		return fmt.Errorf("Cannot access memory at address %#x", addr+uint64(units*size))
	}
	return nil
}

// symLabel is an address with "<sym+off>" when a function or data symbol
// covers it.
func symLabel(sp *frames.Space, a uint64) string {
	return fmt.Sprintf("%#x%s", a, symbolSuffix(sp, a))
}

// applyThreads parses the arguments of "thread apply": "all", or thread
// numbers and ranges ("1 3", "2-4"), then the command. It returns the
// threads' IDs in the order given (all: in number order) and the command.
func (s *Session) applyThreads(args string) ([]int, string, error) {
	args = strings.TrimSpace(args)
	tids, err := s.threads()
	if err != nil {
		return nil, "", err
	}
	words := strings.Fields(args)
	var picked []int
	i := 0
	if len(words) > 0 && words[0] == "all" {
		picked, i = tids, 1
	} else {
		for ; i < len(words); i++ {
			lo, hi, ok := threadRange(words[i])
			if !ok && i == 0 {
				return nil, "", fmt.Errorf("Invalid thread ID %q: thread apply takes all, N, N-M or a list of them, then a command.", words[i])
			}
			if !ok {
				break // the command starts here
			}
			for n := lo; n <= hi; n++ {
				tid, ok := s.threadByNumber(n)
				if !ok {
					return nil, "", fmt.Errorf("Unknown thread %d.", n)
				}
				picked = append(picked, tid)
			}
		}
	}
	cmd := strings.Join(words[i:], " ")
	if len(words) == 0 || cmd == "" {
		return nil, "", fmt.Errorf("Please specify a command at the end of 'thread apply %s'.", args)
	}
	return picked, cmd, nil
}

// threadRange parses a thread number N or a range N-M.
func threadRange(w string) (lo, hi int, ok bool) {
	a, b, isRange := strings.Cut(w, "-")
	lo, err := strconv.Atoi(a)
	if err != nil || lo <= 0 {
		return 0, 0, false
	}
	hi = lo
	if isRange {
		if hi, err = strconv.Atoi(b); err != nil || hi < lo {
			return 0, 0, false
		}
	}
	return lo, hi, true
}

// cmdBacktraceNotes runs "bt" (cmdBacktrace), then says what the printed
// trace cannot show: that the backtrace limit cut it.
func cmdBacktraceNotes(s *Session, args string) error {
	if err := cmdBacktrace(s, args); err != nil {
		return err
	}
	tr := s.listed
	if tr == nil {
		return nil
	}
	count := 0
	for _, w := range strings.Fields(args) {
		if n, err := strconv.Atoi(w); err == nil {
			count = n
		}
	}
	if tr.Truncated && (count <= 0 || count >= len(tr.Frames)) {
		s.printf("(The backtrace limit of %d frames cut the trace; \"set backtrace limit N\" raises it.)\n", len(tr.Frames))
	}
	if tr.Methods == compare.All && len(tr.Frames) > 0 && !tr.Compared() {
		s.printf("Nothing was compared: no frame of this thread is covered by both SFrame and DWARF CFI%s.\n", withoutSFrame(tr))
	}
	return nil
}

// withoutSFrame names the modules of tr's frames that have no .sframe
// section: " (no .sframe section in libc.so.6, bash)", or "".
func withoutSFrame(tr *compare.Trace) string {
	var names []string
	for i := range tr.Frames {
		m := tr.Space().Modules.Find(tr.Frames[i].LookupPC())
		if m == nil {
			continue
		}
		if _, err := m.SFrame(); errors.Is(err, sframe.ErrNoSection) && !slices.Contains(names, m.Name) {
			names = append(names, m.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (no .sframe section in " + strings.Join(names, ", ") + ")"
}

// backtraceLimit is the depth limit of traces in frames.
func (s *Session) backtraceLimit() int {
	if s.maxDepth == 0 {
		return frames.DefaultMaxDepth
	}
	return s.maxDepth
}

// cmdSetBacktrace implements "set backtrace limit N|unlimited".
func cmdSetBacktrace(s *Session, args string) error {
	word, val := splitWord(args)
	if word == "past-main" {
		switch strings.TrimSpace(val) {
		case "on", "1", "yes", "enable", "":
			s.pastMain = true
		case "off", "0", "no", "disable":
			s.pastMain = false
		default:
			return fmt.Errorf("set backtrace past-main: %q is not on or off.", val)
		}
		clear(s.traces)
		s.listed = nil
		return nil
	}
	if word != "limit" {
		return errors.New(`Usage: set backtrace limit N|unlimited, or set backtrace past-main on|off`)
	}
	n, err := strconv.Atoi(val)
	switch {
	case val == "unlimited":
		n, err = compare.MaxDepthLimit, nil
	case err != nil:
		return fmt.Errorf("set backtrace limit: %q is not a frame count (1 to %d, or unlimited).", val, compare.MaxDepthLimit)
	case n == 0:
		n = compare.MaxDepthLimit // gdb: 0 is unlimited
	}
	if n < 0 || compare.CheckMaxDepth(n) != nil {
		return fmt.Errorf("set backtrace limit: %d is not a frame count (1 to %d, or unlimited).", n, compare.MaxDepthLimit)
	}
	s.maxDepth = n
	// Traces computed with the old limit are recomputed when next asked for.
	clear(s.traces)
	s.listed = nil
	return nil
}

// cmdShowBacktrace implements "show backtrace limit".
func cmdShowBacktrace(s *Session, args string) error {
	a := strings.TrimSpace(args)
	if a == "past-main" {
		s.printf("Whether backtraces should continue past \"main\" is %s.\n", map[bool]string{false: "off", true: "on"}[s.pastMain])
		return nil
	}
	if a != "limit" && a != "" {
		return errors.New(`Usage: show backtrace limit, or show backtrace past-main`)
	}
	switch n := s.backtraceLimit(); {
	case s.maxDepth == 0:
		s.printf("Backtrace limit: %d frames (the default).\n", n)
	case n == compare.MaxDepthLimit:
		s.printf("Backtrace limit: unlimited (at most %d frames).\n", n)
	default:
		s.printf("Backtrace limit: %d frames.\n", n)
	}
	return nil
}
