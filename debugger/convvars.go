package debugger

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sfdbg/sfdbg/frames/corefile"
)

// siginfoTarget is a target that knows the siginfo of a thread's last
// signal: PTRACE_GETSIGINFO for a live thread, NT_SIGINFO for a core.
type siginfoTarget interface {
	Siginfo(tid int) (*corefile.Siginfo, error)
}

// Siginfo implements siginfoTarget: the core's NT_SIGINFO, which belongs
// to the thread that dumped it (the first).
func (t *CoreTarget) Siginfo(tid int) (*corefile.Siginfo, error) {
	if t.c.Siginfo == nil || len(t.c.Threads) == 0 || t.c.Threads[0].Tid != tid {
		return nil, errors.New("Unable to read siginfo")
	}
	return t.c.Siginfo, nil
}

// convenienceValue is gdb's convenience variables sfdbg has: $_exitcode
// (the exit code of the program that last exited) and $_siginfo's fields
// (si_signo, si_errno, si_code, _sifields._sigfault.si_addr,
// _sifields._kill.si_pid and si_uid), for the selected thread. ok is
// false for any other name.
func (s *Session) convenienceValue(name string) (v value, ok bool, err error) {
	switch {
	case name == "_exitcode":
		if s.exitCode == nil {
			return value{}, true, errors.New("$_exitcode is void: the program has not exited")
		}
		return value{v: uint64(int64(*s.exitCode)), kind: kindInt}, true, nil
	case name == "_siginfo":
		return value{}, true, errors.New("sfdbg prints $_siginfo's fields: $_siginfo.si_signo, .si_errno, .si_code, ._sifields._sigfault.si_addr, ._sifields._kill.si_pid")
	case !strings.HasPrefix(name, "_siginfo."):
		return value{}, false, nil
	}
	st, ok := s.tgt.(siginfoTarget)
	if !ok || s.tgt == nil {
		return value{}, true, errors.New("Unable to read siginfo")
	}
	si, err := st.Siginfo(s.thread)
	if err != nil {
		return value{}, true, err
	}
	switch field := strings.TrimPrefix(name, "_siginfo."); field {
	case "si_signo":
		return value{v: uint64(int64(si.Signo)), kind: kindInt}, true, nil
	case "si_errno":
		return value{v: uint64(int64(si.Errno)), kind: kindInt}, true, nil
	case "si_code":
		return value{v: uint64(int64(si.Code)), kind: kindInt}, true, nil
	case "_sifields._sigfault.si_addr":
		return value{v: si.Addr, kind: kindData}, true, nil
	case "_sifields._kill.si_pid":
		return value{v: uint64(int64(si.Pid)), kind: kindInt}, true, nil
	default:
		return value{}, true, fmt.Errorf("There is no member named %s.", field)
	}
}
