package debugger

import (
	"fmt"
	"io"
	"syscall"

	"github.com/sfdbg/sfdbg/compare"
)

// Crash is a fatal signal that Catch stopped on, with the backtrace taken
// while the process was held before the signal was delivered.
type Crash struct {
	Pid int // the process (thread group) that received the signal
	Tid int // the thread it was delivered to
	// Thread is the thread's number as gdb numbers them: its position in
	// the process's threads, the main thread (Tid == Pid) being 1.
	Thread  int
	Threads int // how many threads the process had
	// First is set for the process Catch started (or what it executed),
	// clear for a forked child followed with FollowFork.
	First  bool
	Signal syscall.Signal
	// Code is the siginfo si_code (SEGV_MAPERR, SI_TKILL, ...); Addr the
	// faulting address (si_addr) when HasAddr, for SIGSEGV, SIGBUS,
	// SIGILL and SIGFPE raised by the CPU (si_code > 0). SenderPid and
	// SenderUID are set for a signal sent by kill, tgkill or sigqueue
	// (si_code <= 0).
	Code      int32
	Addr      uint64
	HasAddr   bool
	SenderPid int
	SenderUID int
	// Trace holds the crashing thread's trace (Thread first), or every
	// thread's with CatchOptions.AllThreads; Trace.Threads is empty and
	// TraceErr set when the process could not be read.
	Trace    *ProcessTrace
	TraceErr error
}

// ReceivedLine is gdb's line for the stop: "Program received signal
// SIGSEGV, Segmentation fault." for a single-threaded program, `Thread 2
// "name" received signal ...` for a thread of a multi-threaded one, and
// "Process N received signal ..." for a followed child process.
func (c *Crash) ReceivedLine() string {
	who := "Program"
	switch {
	case !c.First:
		who = fmt.Sprintf("Process %d", c.Pid)
		if c.Threads > 1 {
			who += fmt.Sprintf(", thread %d (LWP %d)", c.Thread, c.Tid)
		}
	case c.Threads > 1:
		who = fmt.Sprintf("Thread %d %q", c.Thread, threadName(c.Pid, c.Tid))
		if c.Trace != nil {
			for _, t := range c.Trace.Threads {
				if t.Tid == c.Tid {
					who = fmt.Sprintf("Thread %d %q", c.Thread, t.Name)
				}
			}
		}
	}
	return fmt.Sprintf("%s received signal %s.", who, signalText(c.Signal))
}

// InfoLine says what the siginfo says: the faulting address and si_code,
// or who sent the signal. Empty when there is nothing to add.
func (c *Crash) InfoLine() string {
	name, desc := siCodeText(c.Signal, c.Code)
	switch {
	case c.HasAddr:
		return fmt.Sprintf("Fault address %#x: %s (%s).", c.Addr, desc, name)
	case c.Code <= 0:
		return fmt.Sprintf("Sent by process %d (uid %d) with %s.", c.SenderPid, c.SenderUID, desc)
	case name != "":
		return fmt.Sprintf("Signal code %s: %s.", name, desc)
	}
	return ""
}

// WriteText prints the crash: gdb's line, the siginfo line, and the
// backtrace as "sfdbg bt" prints it.
func (c *Crash) WriteText(w io.Writer, opts compare.TextOptions) {
	fmt.Fprintf(w, "\n%s\n", c.ReceivedLine())
	if l := c.InfoLine(); l != "" {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	if c.TraceErr != nil {
		fmt.Fprintf(w, "cannot unwind process %d: %v\n", c.Pid, c.TraceErr)
		return
	}
	c.Trace.WriteText(w, opts)
}

// CatchResult is how a program run by Catch ended, and the crashes seen.
type CatchResult struct {
	Pid     int
	Crashes []*Crash
	// Exactly one of ExitCode (exited) or Signal (killed) is meaningful:
	// Signal is 0 when the program exited.
	ExitCode   int
	Signal     syscall.Signal
	CoreDumped bool
}

// Status is the program's end as a shell's $? gives it: the exit code, or
// 128 + the signal number.
func (r *CatchResult) Status() int {
	if r.Signal != 0 {
		return 128 + int(r.Signal)
	}
	return r.ExitCode
}

// TerminatedLine is gdb's line for a program killed by a signal ("Program
// terminated with signal SIGSEGV, Segmentation fault."), or "" if it
// exited.
func (r *CatchResult) TerminatedLine() string {
	if r.Signal == 0 {
		return ""
	}
	l := fmt.Sprintf("Program terminated with signal %s.", signalText(r.Signal))
	if r.CoreDumped {
		l += " (core dumped)"
	}
	return l
}

// JSON documents of "sfdbg catch --json" (schema compare.SchemaVersion).
type (
	// CatchDocument is the whole run.
	CatchDocument struct {
		SchemaVersion int             `json:"schema_version"`
		Command       []string        `json:"command"`
		Pid           int             `json:"pid"`
		Crashes       []CrashDocument `json:"crashes"`
		Exit          ExitDocument    `json:"exit"`
	}
	// CrashDocument is one Crash.
	CrashDocument struct {
		Pid          int    `json:"pid"`
		Tid          int    `json:"tid"`
		Thread       int    `json:"thread"`
		FirstProcess bool   `json:"first_process"`
		Message      string `json:"message"` // gdb's line
		Signal       string `json:"signal"`  // "SIGSEGV"
		SignalNumber int    `json:"signal_number"`
		Code         int32  `json:"si_code"`
		CodeName     string `json:"si_code_name,omitempty"`
		Info         string `json:"info,omitempty"`
		// FaultAddress is si_addr, present for CPU faults.
		FaultAddress *uint64                  `json:"fault_address,omitempty"`
		SenderPid    *int                     `json:"sender_pid,omitempty"`
		Process      *compare.ProcessDocument `json:"process,omitempty"`
		Error        string                   `json:"error,omitempty"`
	}
	// ExitDocument is how the program ended. Status is the shell's $?.
	ExitDocument struct {
		Status     int    `json:"status"`
		Code       *int   `json:"code,omitempty"`
		Signal     string `json:"signal,omitempty"`
		CoreDumped bool   `json:"core_dumped,omitempty"`
	}
)

// Document returns the JSON form of the run of argv.
func (r *CatchResult) Document(argv []string) *CatchDocument {
	d := &CatchDocument{SchemaVersion: compare.SchemaVersion, Command: argv, Pid: r.Pid,
		Crashes: []CrashDocument{}, Exit: ExitDocument{Status: r.Status(), CoreDumped: r.CoreDumped}}
	if r.Signal != 0 {
		d.Exit.Signal = signalName(r.Signal)
	} else {
		code := r.ExitCode
		d.Exit.Code = &code
	}
	for _, c := range r.Crashes {
		name, _ := siCodeText(c.Signal, c.Code)
		cd := CrashDocument{Pid: c.Pid, Tid: c.Tid, Thread: c.Thread, FirstProcess: c.First,
			Message: c.ReceivedLine(), Signal: signalName(c.Signal), SignalNumber: int(c.Signal),
			Code: c.Code, CodeName: name, Info: c.InfoLine()}
		if c.HasAddr {
			a := c.Addr
			cd.FaultAddress = &a
		}
		if c.Code <= 0 {
			p := c.SenderPid
			cd.SenderPid = &p
		}
		if c.TraceErr != nil {
			cd.Error = c.TraceErr.Error()
		} else {
			cd.Process = c.Trace.Document()
		}
		d.Crashes = append(d.Crashes, cd)
	}
	return d
}

func signalName(sig syscall.Signal) string {
	for _, si := range commonSignals {
		if si.sig == sig {
			return si.name
		}
	}
	return fmt.Sprintf("SIG%d", int(sig))
}

// siCode names one si_code value (Linux include/uapi/asm-generic/siginfo.h).
type siCode struct {
	sig  syscall.Signal // 0: any signal
	code int32
	name string
	desc string
}

var siCodes = []siCode{
	{0, 0, "SI_USER", "kill"},
	{0, 0x80, "SI_KERNEL", "sent by the kernel"},
	{0, -1, "SI_QUEUE", "sigqueue"},
	{0, -6, "SI_TKILL", "tgkill"},
	{0, -2, "SI_TIMER", "a POSIX timer"},
	{0, -4, "SI_ASYNCIO", "AIO completion"},
	{syscall.SIGSEGV, 1, "SEGV_MAPERR", "address not mapped to object"},
	{syscall.SIGSEGV, 2, "SEGV_ACCERR", "invalid permissions for mapped object"},
	{syscall.SIGSEGV, 3, "SEGV_BNDERR", "failed address bound checks"},
	{syscall.SIGSEGV, 4, "SEGV_PKUERR", "failed protection key checks"},
	{syscall.SIGSEGV, 10, "SEGV_CPERR", "control protection fault"},
	{syscall.SIGBUS, 1, "BUS_ADRALN", "invalid address alignment"},
	{syscall.SIGBUS, 2, "BUS_ADRERR", "non-existent physical address"},
	{syscall.SIGBUS, 3, "BUS_OBJERR", "object specific hardware error"},
	{syscall.SIGBUS, 4, "BUS_MCEERR_AR", "hardware memory error consumed on a machine check"},
	{syscall.SIGBUS, 5, "BUS_MCEERR_AO", "hardware memory error detected in process but not consumed"},
	{syscall.SIGFPE, 1, "FPE_INTDIV", "integer divide by zero"},
	{syscall.SIGFPE, 2, "FPE_INTOVF", "integer overflow"},
	{syscall.SIGFPE, 3, "FPE_FLTDIV", "floating-point divide by zero"},
	{syscall.SIGFPE, 4, "FPE_FLTOVF", "floating-point overflow"},
	{syscall.SIGFPE, 5, "FPE_FLTUND", "floating-point underflow"},
	{syscall.SIGFPE, 6, "FPE_FLTRES", "floating-point inexact result"},
	{syscall.SIGFPE, 7, "FPE_FLTINV", "floating-point invalid operation"},
	{syscall.SIGFPE, 8, "FPE_FLTSUB", "subscript out of range"},
	{syscall.SIGILL, 1, "ILL_ILLOPC", "illegal opcode"},
	{syscall.SIGILL, 2, "ILL_ILLOPN", "illegal operand"},
	{syscall.SIGILL, 3, "ILL_ILLADR", "illegal addressing mode"},
	{syscall.SIGILL, 4, "ILL_ILLTRP", "illegal trap"},
	{syscall.SIGILL, 5, "ILL_PRVOPC", "privileged opcode"},
	{syscall.SIGILL, 6, "ILL_PRVREG", "privileged register"},
	{syscall.SIGILL, 7, "ILL_COPROC", "coprocessor error"},
	{syscall.SIGILL, 8, "ILL_BADSTK", "internal stack error"},
	{syscall.SIGTRAP, 1, "TRAP_BRKPT", "process breakpoint"},
	{syscall.SIGTRAP, 2, "TRAP_TRACE", "process trace trap"},
}

// siCodeText returns the name and description of si_code for sig, or ""
// and "si_code N" when it has none.
func siCodeText(sig syscall.Signal, code int32) (string, string) {
	for _, c := range siCodes {
		if c.code == code && (c.sig == 0 && (code <= 0 || code == 0x80) || c.sig == sig && code > 0 && code != 0x80) {
			return c.name, c.desc
		}
	}
	return "", fmt.Sprintf("si_code %d", code)
}
