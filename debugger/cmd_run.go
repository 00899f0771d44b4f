package debugger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sfdbg/sfdbg/frames"
)

// SetProgram records the program the session started (sfdbg run), so that
// "run" and "start" can start it again, as gdb's do.
func (s *Session) SetProgram(argv []string) {
	s.argv = append([]string(nil), argv...)
}

// cmdRun implements "run [ARGS]" and, with start set, "start [ARGS]": a
// program sfdbg started that has not run yet runs; one that has run, or
// has exited, is started again from the beginning (gdb asks first at a
// terminal), its breakpoints set again where their locations now are.
// ARGS, when given, replace the program's arguments.
func cmdRun(s *Session, args string, start bool) error {
	if len(s.argv) == 0 {
		if s.tgt != nil {
			return fmt.Errorf("run: process %d was attached to; sfdbg runs only a program it started (sfdbg run -- PROG)", s.tgt.Pid())
		}
		return errors.New(`No executable file specified. Use "sfdbg run -- PROG" to start one.`)
	}
	if f := strings.Fields(args); len(f) > 0 {
		s.argv = append(s.argv[:1], f...)
	}
	if s.tgt != nil && s.ranOnce {
		if s.ui.IsTerminal() && !s.Batch && !s.confirmOff() {
			ans, err := s.ui.ReadLine("The program being debugged has been started already.\nStart it from the beginning? (y or n) ")
			if err != nil || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ans)), "y") {
				return errors.New("Program not restarted.")
			}
		}
		t := s.tgt
		s.setTarget(nil)
		if err := t.Kill(); err != nil {
			return err
		}
	}
	if s.tgt == nil {
		if err := s.relaunch(); err != nil {
			return err
		}
	}
	if start {
		if err := s.setBreakpoints("main", true); err != nil {
			return err
		}
	}
	prog := s.argv[0]
	if abs, err := filepath.Abs(prog); err == nil && strings.Contains(prog, "/") {
		prog = abs
	}
	s.printf("Starting program: %s\n", strings.Join(append([]string{prog}, s.argv[1:]...), " "))
	return cmdContinueQuiet(s)
}

// relaunch starts the session's program again, stopped where the
// program's own code begins (the executable's entry, once the dynamic
// loader has mapped its libraries), and sets every breakpoint again at
// its location in the new process. A watchpoint is deleted, as gdb deletes
// one whose expression it cannot evaluate anew.
func (s *Session) relaunch() error {
	t, err := Launch(s.argv, "")
	if err != nil {
		return err
	}
	s.setTarget(t)
	s.invalidate()
	s.threadNo, s.nextNo = map[int]int{}, 1
	if tids, err := t.Threads(); err == nil {
		s.numberThreads(tids)
	}
	s.thread, s.frame, s.ranOnce = t.Pid(), 0, false
	if err := s.runToEntry(); err != nil {
		return err
	}
	var keep []*breakpoint
	for _, bp := range s.bps {
		if bp.watch != nil {
			s.printf("Watchpoint %d deleted: the program was started again.\n", bp.id)
			continue
		}
		if !strings.HasPrefix(bp.desc, "*") {
			loc, err := s.resolveLocation(bp.desc)
			if err != nil {
				s.printf("Breakpoint %d (%s) deleted: %v\n", bp.id, bp.desc, err)
				continue
			}
			bp.addrs = s.afterPrologues(loc).addrs
		}
		for _, a := range bp.addrs {
			if err := t.SetBreakpoint(a); err != nil {
				return err
			}
		}
		keep = append(keep, bp)
	}
	s.bps = keep
	return nil
}

// runToEntry runs a program just started to its executable's entry point
// (ELF e_entry plus the load bias): the dynamic loader has mapped the
// libraries by then, so breakpoints in them resolve.
func (s *Session) runToEntry() error {
	sp, err := s.space()
	if err != nil {
		return err
	}
	path, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", s.tgt.Pid()))
	if err != nil {
		return nil
	}
	var exe *frames.Module
	for _, m := range sp.Modules.List() {
		if m.Path == path {
			exe = m
			break
		}
	}
	if exe == nil {
		return nil
	}
	f, err := exe.File()
	if err != nil {
		return nil
	}
	entry := f.Entry + exe.Bias
	regs, err := s.tgt.Regs(s.thread)
	if err != nil || regs.PC() == entry {
		return err
	}
	if err := s.tgt.SetBreakpoint(entry); err != nil {
		return err
	}
	ev, err := s.tgt.Continue()
	s.tgt.ClearBreakpoint(entry)
	s.invalidate()
	if err != nil {
		return err
	}
	if ev.Kind != EventBreakpoint || ev.PC != entry {
		return s.reportStop(ev)
	}
	return nil
}

// cmdContinueQuiet is continue without its "Continuing." line (run's
// "Starting program" says it).
func cmdContinueQuiet(s *Session) error {
	ev, err := s.resume(s.cont)
	if err != nil {
		return err
	}
	return s.reportStop(ev)
}
