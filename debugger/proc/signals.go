package proc

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
)

// SignalInfo is a signal as gdb's "info signals" names it.
type SignalInfo struct {
	Sig  syscall.Signal
	Name string // "SIGSEGV"
	Desc string // gdb's description, "Segmentation fault"
}

// CommonSignals are the signals "info signals" lists, in gdb's order.
var CommonSignals = []SignalInfo{
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

// SignalByName finds a signal by name (SIGSEGV, SEGV, segv) or number.
func SignalByName(w string) (SignalInfo, bool) {
	if n, err := strconv.Atoi(w); err == nil {
		for _, si := range CommonSignals {
			if int(si.Sig) == n {
				return si, true
			}
		}
		return SignalInfo{}, false
	}
	w = strings.ToUpper(w)
	if !strings.HasPrefix(w, "SIG") {
		w = "SIG" + w
	}
	for _, si := range CommonSignals {
		if si.Name == w {
			return si, true
		}
	}
	return SignalInfo{}, false
}

// SignalName returns gdb's name and description of a Linux signal
// ("SIGSEGV", "Segmentation fault"); "SIG" and the number and "Unknown
// signal" for one it does not list.
func SignalName(sig int) (name, desc string) {
	for _, si := range CommonSignals {
		if int(si.Sig) == sig {
			return si.Name, si.Desc
		}
	}
	return fmt.Sprintf("SIG%d", sig), "Unknown signal"
}

// FatalSignal reports whether gdb stops and prints on sig by default and
// the program would usually die of it: SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT, SIGSYS (gdb's "handle" table: stop, print, pass).
func FatalSignal(sig syscall.Signal) bool {
	switch sig {
	case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGFPE, syscall.SIGILL, syscall.SIGABRT, syscall.SIGSYS:
		return true
	}
	return false
}

// SignalText is gdb's "SIGSEGV, Segmentation fault" for sig.
func SignalText(sig syscall.Signal) string {
	for _, si := range CommonSignals {
		if si.Sig == sig {
			return si.Name + ", " + si.Desc
		}
	}
	return fmt.Sprintf("signal %d, %v", int(sig), sig)
}

// CrashSignal reports whether a program that receives sig with no handler
// for it dies with a core because it faulted or asked to: FatalSignal's
// signals and SIGTRAP (an int3 or brk outside a debugger). These are the
// signals `catch` holds a process at.
func CrashSignal(sig syscall.Signal) bool {
	return FatalSignal(sig) || sig == syscall.SIGTRAP
}
