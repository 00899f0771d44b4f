package debugger

import (
	"fmt"
	"io"
	"syscall"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames/corefile"
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
		who = fmt.Sprintf("Thread %d %q", c.Thread, proc.ThreadName(c.Pid, c.Tid))
		if c.Trace != nil {
			for _, t := range c.Trace.Threads {
				if t.Tid == c.Tid {
					who = fmt.Sprintf("Thread %d %q", c.Thread, t.Name)
				}
			}
		}
	}
	return fmt.Sprintf("%s received signal %s.", who, proc.SignalText(c.Signal))
}

// InfoLine says what the siginfo says: the faulting address and si_code,
// or who sent the signal. Empty when there is nothing to add.
func (c *Crash) InfoLine() string {
	name, desc := siCodeText(c.Signal, c.Code)
	switch {
	case c.HasAddr:
		return fmt.Sprintf("Fault address %#x: %s (%s).", c.Addr, desc, name)
	case c.Code <= 0:
		return fmt.Sprintf("Sent by process %d (uid %d): %s.", c.SenderPid, c.SenderUID, desc)
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
	l := fmt.Sprintf("Program terminated with signal %s.", proc.SignalText(r.Signal))
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

// signalName is SignalName's name of sig ("SIGSEGV", or "SIG64").
func signalName(sig syscall.Signal) string {
	name, _ := proc.SignalName(int(sig))
	return name
}

// siCodeText returns the name and meaning of si_code for sig
// (corefile.SigCodeName), or "" and "si_code N" when it has none.
func siCodeText(sig syscall.Signal, code int32) (string, string) {
	if name, meaning := corefile.SigCodeName(int(sig), int(code)); name != "" {
		return name, meaning
	}
	return "", fmt.Sprintf("si_code %d", code)
}
