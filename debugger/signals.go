package debugger

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

// How sfdbg handles signals: its own ptrace loop (liveTarget, under run
// and attach alike) stops the program for SIGTRAP (breakpoints, steps,
// Ctrl-C) and at a fatal signal (proc.FatalSignal), as gdb does, and passes
// every other signal on at once.
const (
	signalHandling = "No\tNo\tYes\t"
	signalStop     = "Yes\tYes\tYes\t"
	signalNote     = `sfdbg passes signals to the program at once, without stopping or printing. It
stops the program for SIGTRAP (breakpoints, stepi, Ctrl-C) and at a fatal signal
(SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS), as gdb does: continue,
stepi or detach then deliver it, and the program ends as it would have. A
program sfdbg started has the terminal while it runs: Ctrl-C then sends it
SIGINT, which stops it and is not passed on, as in gdb.
`
)

// stopsAtSIGINT reports whether the session's program stops at a SIGINT
// and does not get it: a program run by sfdbg that has the terminal while
// it runs (the terminal's Ctrl-C reaches it, not sfdbg).
func (s *Session) stopsAtSIGINT() bool {
	t, ok := s.tgt.(interface{ StopsAtSIGINT() bool })
	return ok && t.StopsAtSIGINT()
}

func (s *Session) signalRow(si proc.SignalInfo) {
	h := signalHandling
	switch {
	case si.Sig == syscall.SIGTRAP:
		h = "Yes\tYes\tNo\t" // the debugger's own: breakpoints and steps
	case si.Sig == syscall.SIGINT && s.stopsAtSIGINT():
		h = "Yes\tYes\tNo\t" // gdb's default for the terminal's Ctrl-C
	case proc.FatalSignal(si.Sig):
		h = signalStop
	}
	s.printf("%-13s %s\t%s\n", si.Name, h, si.Desc)
}

func (s *Session) signalHeader() {
	s.printf("Signal        Stop\tPrint\tPass to program\tDescription\n")
}

// cmdInfoSignals implements "info signals [SIG]".
func cmdInfoSignals(s *Session, args string) error {
	if w := strings.TrimSpace(args); w != "" {
		si, ok := proc.SignalByName(w)
		if !ok {
			return fmt.Errorf("Unknown signal %q: give a name such as SIGSEGV, SEGV, or its number.", w)
		}
		s.signalHeader()
		s.signalRow(si)
		return nil
	}
	s.signalHeader()
	s.printf("\n")
	for _, si := range proc.CommonSignals {
		s.signalRow(si)
	}
	s.printf("\n%s", signalNote)
	return nil
}

// cmdHandle implements "handle SIG [ACTION...]": the actions that describe
// what sfdbg does (nostop, noprint, pass, noignore) are accepted, the
// others refused with the reason; the signal's row is printed.
func cmdHandle(s *Session, args string) error {
	words := strings.Fields(args)
	if len(words) == 0 {
		return fmt.Errorf("Argument required (signal and actions to apply).")
	}
	si, ok := proc.SignalByName(words[0])
	if !ok {
		return fmt.Errorf("Unrecognized or ambiguous signal %q: give a name such as SIGSEGV, SEGV, or its number.", words[0])
	}
	for _, a := range words[1:] {
		if si.Sig == syscall.SIGTRAP {
			return fmt.Errorf("handle SIGTRAP: sfdbg keeps SIGTRAP for its breakpoints and steps.")
		}
		if si.Sig == syscall.SIGINT && s.stopsAtSIGINT() {
			if a = strings.ToLower(a); a != "stop" && a != "print" && a != "nopass" && a != "ignore" {
				return fmt.Errorf("handle SIGINT %s: not possible in sfdbg: the terminal's Ctrl-C stops the program it started, is printed and is not passed on (see \"info signals\").", a)
			}
			continue
		}
		stops := proc.FatalSignal(si.Sig)
		switch a = strings.ToLower(a); {
		case stops && (a == "stop" || a == "print" || a == "pass" || a == "noignore"):
		case stops:
			return fmt.Errorf("handle %s %s: not possible in sfdbg: %s stops the program, is printed and is passed on (see \"info signals\").", si.Name, a, si.Name)
		case a == "nostop" || a == "noprint" || a == "pass" || a == "noignore":
		case a == "stop" || a == "print" || a == "nopass" || a == "ignore":
			return fmt.Errorf("handle %s %s: not possible in sfdbg: %s is passed to the program at once, without stopping or printing (see \"info signals\").", si.Name, a, si.Name)
		default:
			return fmt.Errorf("Unrecognized action %q: use stop, nostop, print, noprint, pass, nopass.", a)
		}
	}
	s.signalHeader()
	s.signalRow(si)
	return nil
}
