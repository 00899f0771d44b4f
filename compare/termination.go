package compare

import (
	"fmt"
	"io"
)

// Termination is what killed a process whose core is read, printed as gdb
// prints it ("Program terminated with signal SIGSEGV, Segmentation
// fault.") with what gdb leaves out: si_code and the fault address, from
// the core's NT_SIGINFO note, else pr_cursig of its NT_PRSTATUS.
type Termination struct {
	Signal      int    `json:"signal"`      // Linux signal number
	Name        string `json:"name"`        // "SIGSEGV"
	Description string `json:"description"` // gdb's "Segmentation fault"
	// Code is si_code; CodeName and CodeMeaning its name and meaning in
	// the kernel's headers ("SEGV_MAPERR", "address not mapped to
	// object"). Absent with Source "pr_cursig".
	Code        *int   `json:"si_code,omitempty"`
	CodeName    string `json:"si_code_name,omitempty"`
	CodeMeaning string `json:"si_code_meaning,omitempty"`
	// Addr is the fault address (si_addr) of a fault the kernel raised.
	Addr *uint64 `json:"addr,omitempty"`
	// SenderPid is si_pid, for a signal a process sent.
	SenderPid int `json:"sender_pid,omitempty"`
	// Source is "NT_SIGINFO" or "pr_cursig" (a core without NT_SIGINFO,
	// such as qemu-user's: the signal number only).
	Source string `json:"source"`
	// Snapshot is set when the signal is one that stops a process
	// (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU): nothing terminated it; the core
	// is a snapshot of a live process (gdb's gcore dumps a process it
	// stopped).
	Snapshot bool `json:"snapshot,omitempty"`
}

// WriteText writes gdb's line, then the fault's details in one line.
func (t *Termination) WriteText(w io.Writer) {
	if t.Snapshot {
		fmt.Fprintf(w, "Program stopped by signal %s, %s: the core is a snapshot of a running process (as gcore makes), not of its end.\n", t.Name, t.Description)
		return
	}
	fmt.Fprintf(w, "Program terminated with signal %s, %s.\n", t.Name, t.Description)
	switch {
	case t.Code == nil:
		fmt.Fprintf(w, "(No si_code or fault address: the core has no NT_SIGINFO note, only pr_cursig.)\n")
	default:
		code := fmt.Sprintf("si_code %d", *t.Code)
		if t.CodeName != "" {
			code = fmt.Sprintf("si_code %s (%d): %s", t.CodeName, *t.Code, t.CodeMeaning)
		}
		switch {
		case t.Addr != nil:
			fmt.Fprintf(w, "Fault address %#x, %s.\n", *t.Addr, code)
		case t.SenderPid != 0:
			fmt.Fprintf(w, "Sent by process %d, %s.\n", t.SenderPid, code)
		default:
			fmt.Fprintf(w, "%s.\n", code)
		}
	}
}
