package main

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// attachTarget reads attach's operands as gdb does: "PID", "-p PID",
// "PROG PID" and "PROG -p PID" (PROG is checked against the process's
// executable, which is what sfdbg reads). pflag is -p's value ("" when not
// given). The error is one sentence saying what was wrong.
func attachTarget(pos []string, pflag string) (pid int, prog string, err error) {
	pidOf := func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q is not a process ID", s)
		}
		return n, nil
	}
	switch {
	case pflag != "" && len(pos) > 1:
		return 0, "", fmt.Errorf("too many operands with -p %s: %s (want at most the program)", pflag, strings.Join(pos, " "))
	case pflag != "":
		pid, err = pidOf(pflag)
		if len(pos) == 1 {
			prog = pos[0]
		}
	case len(pos) == 0:
		return 0, "", errors.New("no process ID given (attach PID, attach -p PID or attach PROG PID)")
	case len(pos) == 1:
		pid, err = pidOf(pos[0])
	case len(pos) == 2:
		if _, e := pidOf(pos[0]); e == nil {
			return 0, "", fmt.Errorf("%s %s: the program comes first, then the process ID (attach PROG PID)", pos[0], pos[1])
		}
		prog = pos[0]
		pid, err = pidOf(pos[1])
	default:
		return 0, "", fmt.Errorf("too many operands: %s (want PID, -p PID or PROG PID)", strings.Join(pos, " "))
	}
	if err != nil {
		return 0, "", err
	}
	if prog != "" {
		if _, err := os.Stat(prog); err != nil {
			return 0, "", fmt.Errorf("program %s: %w", prog, errors.Unwrap(err))
		}
	}
	return pid, prog, nil
}

// sameProgram says, when prog is not the executable of process pid, what
// sfdbg reads instead (a warning; "" when they are the same file or the
// process's cannot be read).
func sameProgram(prog string, pid int) string {
	exe := fmt.Sprintf("/proc/%d/exe", pid)
	a, errA := os.Stat(prog)
	b, errB := os.Stat(exe)
	if errA != nil || errB != nil {
		return ""
	}
	sa, okA := a.Sys().(*syscall.Stat_t)
	sb, okB := b.Sys().(*syscall.Stat_t)
	if !okA || !okB || (sa.Dev == sb.Dev && sa.Ino == sb.Ino) {
		return ""
	}
	target, _ := os.Readlink(exe)
	return fmt.Sprintf("warning: %s is not the program of process %d (%s); sfdbg reads the process's own files", prog, pid, target)
}

// coreOperands orders core's operands: "CORE", "CORE PROG" (sfdbg's
// order) or "PROG CORE" (gdb's), told apart by which file is an ELF core
// (ET_CORE). The error is one sentence saying what was wrong.
func coreOperands(pos []string) (core, prog string, err error) {
	switch len(pos) {
	case 0:
		return "", "", errors.New("no core file given (core CORE, core PROG CORE or core CORE PROG)")
	case 1:
		return pos[0], "", nil
	case 2:
	default:
		return "", "", fmt.Errorf("too many operands: %s (want CORE, PROG CORE or CORE PROG)", strings.Join(pos, " "))
	}
	a, errA := isCore(pos[0])
	b, errB := isCore(pos[1])
	switch {
	case errA != nil:
		return "", "", errA
	case errB != nil:
		return "", "", errB
	case a && b:
		return "", "", fmt.Errorf("%s and %s are both core files (want one core and its program)", pos[0], pos[1])
	case b:
		return pos[1], pos[0], nil // gdb's order
	case a:
		return pos[0], pos[1], nil
	}
	return "", "", fmt.Errorf("neither %s nor %s is a core file", pos[0], pos[1])
}

// isCore reports whether the file at path is an ELF core file; the error
// names the file when it cannot be read.
func isCore(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	ef, err := elf.NewFile(f)
	if err != nil {
		return false, nil // not ELF: corefile.Open or the program loader says why
	}
	return ef.Type == elf.ET_CORE, nil
}
