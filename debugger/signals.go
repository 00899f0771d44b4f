package debugger

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
)

// signalInfo is a signal as gdb's "info signals" names it.
type signalInfo struct {
	sig  syscall.Signal
	name string // "SIGSEGV"
	desc string // gdb's description, "Segmentation fault"
}

// commonSignals are the signals "info signals" lists, in gdb's order.
var commonSignals = []signalInfo{
	{syscall.SIGHUP, "SIGHUP", "Hangup"},
	{syscall.SIGINT, "SIGINT", "Interrupt"},
	{syscall.SIGQUIT, "SIGQUIT", "Quit"},
	{syscall.SIGILL, "SIGILL", "Illegal instruction"},
	{syscall.SIGTRAP, "SIGTRAP", "Trace/breakpoint trap"},
	{syscall.SIGABRT, "SIGABRT", "Aborted"},
	{syscall.SIGFPE, "SIGFPE", "Arithmetic exception"},
	{syscall.SIGKILL, "SIGKILL", "Killed"},
	{syscall.SIGBUS, "SIGBUS", "Bus error"},
	{syscall.SIGSEGV, "SIGSEGV", "Segmentation fault"},
	{syscall.SIGSYS, "SIGSYS", "Bad system call"},
	{syscall.SIGPIPE, "SIGPIPE", "Broken pipe"},
	{syscall.SIGALRM, "SIGALRM", "Alarm clock"},
	{syscall.SIGTERM, "SIGTERM", "Terminated"},
	{syscall.SIGURG, "SIGURG", "Urgent I/O condition"},
	{syscall.SIGSTOP, "SIGSTOP", "Stopped (signal)"},
	{syscall.SIGTSTP, "SIGTSTP", "Stopped (user)"},
	{syscall.SIGCONT, "SIGCONT", "Continued"},
	{syscall.SIGCHLD, "SIGCHLD", "Child status changed"},
	{syscall.SIGTTIN, "SIGTTIN", "Stopped (tty input)"},
	{syscall.SIGTTOU, "SIGTTOU", "Stopped (tty output)"},
	{syscall.SIGIO, "SIGIO", "I/O possible"},
	{syscall.SIGXCPU, "SIGXCPU", "CPU time limit exceeded"},
	{syscall.SIGXFSZ, "SIGXFSZ", "File size limit exceeded"},
	{syscall.SIGVTALRM, "SIGVTALRM", "Virtual timer expired"},
	{syscall.SIGPROF, "SIGPROF", "Profiling timer expired"},
	{syscall.SIGWINCH, "SIGWINCH", "Window size changed"},
	{syscall.SIGUSR1, "SIGUSR1", "User defined signal 1"},
	{syscall.SIGUSR2, "SIGUSR2", "User defined signal 2"},
}

// signalByName finds a signal by name (SIGSEGV, SEGV, segv) or number.
func signalByName(w string) (signalInfo, bool) {
	if n, err := strconv.Atoi(w); err == nil {
		for _, si := range commonSignals {
			if int(si.sig) == n {
				return si, true
			}
		}
		return signalInfo{}, false
	}
	w = strings.ToUpper(w)
	if !strings.HasPrefix(w, "SIG") {
		w = "SIG" + w
	}
	for _, si := range commonSignals {
		if si.name == w {
			return si, true
		}
	}
	return signalInfo{}, false
}

// SignalName returns gdb's name and description of a Linux signal
// ("SIGSEGV", "Segmentation fault"); "SIG" and the number and "Unknown
// signal" for one it does not list.
func SignalName(sig int) (name, desc string) {
	for _, si := range commonSignals {
		if int(si.sig) == sig {
			return si.name, si.desc
		}
	}
	return fmt.Sprintf("SIG%d", sig), "Unknown signal"
}

// fatalSignal reports whether gdb stops and prints on sig by default and
// the program would usually die of it: SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT, SIGSYS (gdb's "handle" table: stop, print, pass).
func fatalSignal(sig syscall.Signal) bool {
	switch sig {
	case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGFPE, syscall.SIGILL, syscall.SIGABRT, syscall.SIGSYS:
		return true
	}
	return false
}

// signalText is gdb's "SIGSEGV, Segmentation fault" for sig.
func signalText(sig syscall.Signal) string {
	for _, si := range commonSignals {
		if si.sig == sig {
			return si.name + ", " + si.desc
		}
	}
	return fmt.Sprintf("signal %d, %v", int(sig), sig)
}

// How sfdbg handles signals: its own ptrace loop (liveTarget, under run
// and attach alike) stops the program for SIGTRAP (breakpoints, steps,
// Ctrl-C) and at a fatal signal (fatalSignal), as gdb does, and passes
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

func (s *Session) signalRow(si signalInfo) {
	h := signalHandling
	switch {
	case si.sig == syscall.SIGTRAP:
		h = "Yes\tYes\tNo\t" // the debugger's own: breakpoints and steps
	case si.sig == syscall.SIGINT && s.stopsAtSIGINT():
		h = "Yes\tYes\tNo\t" // gdb's default for the terminal's Ctrl-C
	case fatalSignal(si.sig):
		h = signalStop
	}
	s.printf("%-13s %s\t%s\n", si.name, h, si.desc)
}

func (s *Session) signalHeader() {
	s.printf("Signal        Stop\tPrint\tPass to program\tDescription\n")
}

// cmdInfoSignals implements "info signals [SIG]".
func cmdInfoSignals(s *Session, args string) error {
	if w := strings.TrimSpace(args); w != "" {
		si, ok := signalByName(w)
		if !ok {
			return fmt.Errorf("Unknown signal %q: give a name such as SIGSEGV, SEGV, or its number.", w)
		}
		s.signalHeader()
		s.signalRow(si)
		return nil
	}
	s.signalHeader()
	s.printf("\n")
	for _, si := range commonSignals {
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
	si, ok := signalByName(words[0])
	if !ok {
		return fmt.Errorf("Unrecognized or ambiguous signal %q: give a name such as SIGSEGV, SEGV, or its number.", words[0])
	}
	for _, a := range words[1:] {
		if si.sig == syscall.SIGTRAP {
			return fmt.Errorf("handle SIGTRAP: sfdbg keeps SIGTRAP for its breakpoints and steps.")
		}
		if si.sig == syscall.SIGINT && s.stopsAtSIGINT() {
			if a = strings.ToLower(a); a != "stop" && a != "print" && a != "nopass" && a != "ignore" {
				return fmt.Errorf("handle SIGINT %s: not possible in sfdbg: the terminal's Ctrl-C stops the program it started, is printed and is not passed on (see \"info signals\").", a)
			}
			continue
		}
		stops := fatalSignal(si.sig)
		switch a = strings.ToLower(a); {
		case stops && (a == "stop" || a == "print" || a == "pass" || a == "noignore"):
		case stops:
			return fmt.Errorf("handle %s %s: not possible in sfdbg: %s stops the program, is printed and is passed on (see \"info signals\").", si.name, a, si.name)
		case a == "nostop" || a == "noprint" || a == "pass" || a == "noignore":
		case a == "stop" || a == "print" || a == "nopass" || a == "ignore":
			return fmt.Errorf("handle %s %s: not possible in sfdbg: %s is passed to the program at once, without stopping or printing (see \"info signals\").", si.name, a, si.name)
		default:
			return fmt.Errorf("Unrecognized action %q: use stop, nostop, print, noprint, pass, nopass.", a)
		}
	}
	s.signalHeader()
	s.signalRow(si)
	return nil
}
