package corefile

import "fmt"

// Siginfo is the NT_SIGINFO note of a core: the siginfo_t of the signal
// that killed the process (include/uapi/asm-generic/siginfo.h; the
// kernel's fill_siginfo_note writes it once, for the thread that dumped).
type Siginfo struct {
	Signo, Errno, Code int
	// Addr is si_addr, the fault address, when HasAddr: a signal the
	// kernel raised for a fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
	// SIGTRAP with si_code > 0).
	Addr    uint64
	HasAddr bool
	// Pid is si_pid, the sender, for a signal a process sent
	// (si_code <= 0: kill, tkill, sigqueue); 0 otherwise.
	Pid int
}

// siginfoSize is the size of siginfo_t on every Linux ABI; the fields are
// at the same offsets on AMD64, AArch64 and s390x: si_signo 0, si_errno 4,
// si_code 8, the union from 16 (si_addr, or si_pid, si_uid). On 32-bit ARM
// the union starts at 12, and si_addr is 4 bytes.
const siginfoSize = 128

// Fault signals, by their Linux numbers (the same on AMD64, AArch64, s390x).
const (
	sigILL  = 4
	sigTRAP = 5
	sigBUS  = 7
	sigFPE  = 8
	sigSEGV = 11
)

func (c *Core) siginfoNote(d []byte, at int64) error {
	union := 16 // 12 with 4-byte pointers
	if c.word32 {
		union = 12
	}
	if len(d) < union+c.wordSize() {
		return &FormatError{c.Path, at, fmt.Sprintf("NT_SIGINFO of %d bytes, want %d", len(d), siginfoSize)}
	}
	o := c.Order
	si := &Siginfo{Signo: int(int32(o.Uint32(d))), Errno: int(int32(o.Uint32(d[4:]))), Code: int(int32(o.Uint32(d[8:])))}
	switch {
	case si.Code <= 0:
		si.Pid = int(int32(o.Uint32(d[union:])))
	case si.Signo == sigSEGV || si.Signo == sigBUS || si.Signo == sigILL || si.Signo == sigFPE || si.Signo == sigTRAP:
		si.Addr, si.HasAddr = c.uword(d[union:]), true
	}
	c.Siginfo = si
	return nil
}

// CodeName returns si_code's name and meaning as the kernel's headers give
// them ("SEGV_MAPERR", "address not mapped to object"); "", "" when
// unknown.
func (s *Siginfo) CodeName() (name, meaning string) { return SigCodeName(s.Signo, s.Code) }

// SigCodeName returns the name and meaning of si_code code for signal
// signo (Linux include/uapi/asm-generic/siginfo.h): "SEGV_MAPERR",
// "address not mapped to object"; "", "" when unknown. Signal numbers are
// Linux's, the same on every ABI sfdbg reads.
func SigCodeName(signo, code int) (name, meaning string) {
	switch code {
	case 0:
		return "SI_USER", "sent by kill"
	case 0x80:
		return "SI_KERNEL", "sent by the kernel"
	case -1:
		return "SI_QUEUE", "sent by sigqueue"
	case -2:
		return "SI_TIMER", "a POSIX timer expired"
	case -4:
		return "SI_ASYNCIO", "AIO completed"
	case -6:
		return "SI_TKILL", "sent by tkill or tgkill (abort, raise)"
	}
	var t []struct{ name, meaning string }
	switch signo {
	case sigSEGV:
		t = []struct{ name, meaning string }{{"SEGV_MAPERR", "address not mapped to object"},
			{"SEGV_ACCERR", "invalid permissions for mapped object"}, {"SEGV_BNDERR", "failed address bound checks"},
			{"SEGV_PKUERR", "failed protection key checks"}, {"SEGV_ACCADI", "ADI not enabled for mapped object"},
			{"SEGV_ADIDERR", "disrupting MCD error"}, {"SEGV_ADIPERR", "precise MCD exception"},
			{"SEGV_MTEAERR", "asynchronous MTE error"}, {"SEGV_MTESERR", "synchronous MTE tag check fault"},
			{"SEGV_CPERR", "control protection fault"}}
	case sigBUS:
		t = []struct{ name, meaning string }{{"BUS_ADRALN", "invalid address alignment"},
			{"BUS_ADRERR", "non-existent physical address"}, {"BUS_OBJERR", "object specific hardware error"},
			{"BUS_MCEERR_AR", "hardware memory error consumed on a machine check"},
			{"BUS_MCEERR_AO", "hardware memory error detected in process but not consumed"}}
	case sigILL:
		t = []struct{ name, meaning string }{{"ILL_ILLOPC", "illegal opcode"}, {"ILL_ILLOPN", "illegal operand"},
			{"ILL_ILLADR", "illegal addressing mode"}, {"ILL_ILLTRP", "illegal trap"}, {"ILL_PRVOPC", "privileged opcode"},
			{"ILL_PRVREG", "privileged register"}, {"ILL_COPROC", "coprocessor error"}, {"ILL_BADSTK", "internal stack error"}}
	case sigFPE:
		t = []struct{ name, meaning string }{{"FPE_INTDIV", "integer divide by zero"}, {"FPE_INTOVF", "integer overflow"},
			{"FPE_FLTDIV", "floating-point divide by zero"}, {"FPE_FLTOVF", "floating-point overflow"},
			{"FPE_FLTUND", "floating-point underflow"}, {"FPE_FLTRES", "floating-point inexact result"},
			{"FPE_FLTINV", "floating-point invalid operation"}, {"FPE_FLTSUB", "subscript out of range"}}
	case sigTRAP:
		t = []struct{ name, meaning string }{{"TRAP_BRKPT", "process breakpoint"}, {"TRAP_TRACE", "process trace trap"},
			{"TRAP_BRANCH", "process taken branch trap"}, {"TRAP_HWBKPT", "hardware breakpoint or watchpoint"}}
	}
	if code >= 1 && code <= len(t) {
		return t[code-1].name, t[code-1].meaning
	}
	return "", ""
}
