package proc

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"
)

// startTraced starts path with arguments argv under PTRACE_TRACEME, on
// the tracer thread, and seizes it after its execve (seizeAfterExec with
// the options o; run: leave it running, else stopped at its first
// instruction). A program that ends before that stop is not an error:
// ended is true, with pid and its wait status ws. On an error no process
// is left behind; EPERM means ptrace is refused.
func startTraced(path string, argv []string, attr *os.ProcAttr, o int, run bool) (pid int, ws unix.WaitStatus, ended bool, err error) {
	a := *attr
	sys := syscall.SysProcAttr{}
	if a.Sys != nil {
		sys = *a.Sys
	}
	sys.Ptrace = true
	a.Sys = &sys
	p, err := os.StartProcess(path, argv, &a)
	if errors.Is(err, syscall.EPERM) {
		// PTRACE_TRACEME failed in the child (exec itself fails with EACCES).
		return 0, 0, false, fmt.Errorf("ptrace is not permitted here (a seccomp filter or a container's policy forbids it): %w", err)
	}
	if err != nil {
		return 0, 0, false, err
	}
	pid = p.Pid
	p.Release() // waited for with Wait4 on this thread
	// PTRACE_TRACEME: the child stops with SIGTRAP after its execve.
	if _, err := wait4(pid, &ws, unix.WALL); err != nil {
		return 0, 0, false, fmt.Errorf("wait for process %d: %w", pid, err)
	}
	if !ws.Stopped() {
		return pid, ws, true, nil
	}
	if err := seizeAfterExec(pid, o, run); err != nil {
		unix.Kill(pid, syscall.SIGKILL)
		for {
			if _, err := wait4(pid, &ws, unix.WALL); err != nil || ws.Exited() || ws.Signaled() {
				break
			}
		}
		return 0, 0, false, fmt.Errorf("trace process %d: %w", pid, err)
	}
	return pid, 0, false, nil
}

// seizeAfterExec turns the PTRACE_TRACEME tracee pid, in its stop after
// execve, into a PTRACE_SEIZE one with the options o: it detaches it into
// a SIGSTOP group stop, seizes it, and ends the group stop with a SIGCONT
// whose delivery is suppressed (the program sees neither signal). With
// run it leaves the program running; else stopped at its first
// instruction, in the SIGCONT's signal-delivery stop (resumed with
// PTRACE_CONT and no signal, the SIGCONT is dropped). It runs on the
// tracer thread.
func seizeAfterExec(pid int, o int, run bool) error {
	if err := ptrace4(unix.PTRACE_DETACH, pid, 0, uintptr(syscall.SIGSTOP)); err != nil {
		return fmt.Errorf("detach: %w", err)
	}
	var ws unix.WaitStatus
	for {
		// As its parent: WUNTRACED reports the group stop.
		if _, err := wait4(pid, &ws, unix.WUNTRACED); err != nil {
			return err
		}
		if !ws.Stopped() {
			return fmt.Errorf("process %d ended before it ran (%v)", pid, ws)
		}
		if ws.StopSignal() == syscall.SIGSTOP {
			break
		}
	}
	if err := ptrace4(unix.PTRACE_SEIZE, pid, 0, uintptr(o)); err != nil {
		return fmt.Errorf("seize: %w", err)
	}
	// Seizing a stopped process makes it report its group stop.
	for {
		if _, err := wait4(pid, &ws, unix.WALL); err != nil {
			return err
		}
		if !ws.Stopped() {
			return fmt.Errorf("process %d ended before it ran (%v)", pid, ws)
		}
		if int(ws)>>16 == unix.PTRACE_EVENT_STOP {
			break
		}
	}
	// The SIGCONT ends the group stop as it is sent; its delivery (a
	// signal-delivery stop) is suppressed below.
	if err := unix.Kill(pid, syscall.SIGCONT); err != nil {
		return err
	}
	if err := unix.PtraceCont(pid, 0); err != nil {
		return err
	}
	for {
		if _, err := wait4(pid, &ws, unix.WALL); err != nil {
			return err
		}
		if !ws.Stopped() {
			return fmt.Errorf("process %d ended before it ran (%v)", pid, ws)
		}
		sig := ws.StopSignal()
		if sig == syscall.SIGCONT && int(ws)>>16 == 0 {
			if run {
				contSig(pid, 0)
			}
			return nil
		}
		contSig(pid, 0)
	}
}

// TgidOf returns the process (thread group) of thread tid, or tid.
func TgidOf(tid int) int {
	if n, err := strconv.Atoi(ProcStatus(tid)["Tgid"]); err == nil && n > 0 {
		return n
	}
	return tid
}

// wait4 is unix.Wait4, retried on EINTR.
func wait4(pid int, ws *unix.WaitStatus, opts int) (int, error) {
	for {
		wpid, err := unix.Wait4(pid, ws, opts, nil)
		if err != syscall.EINTR {
			return wpid, err
		}
	}
}

// ptrace4 issues a ptrace request with an address and data.
func ptrace4(req, tid int, addr, data uintptr) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, uintptr(req), uintptr(tid), addr, data, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// contSig resumes thread tid with PTRACE_CONT, delivering sig (0: none);
// a thread that is gone is not an error.
func contSig(tid int, sig syscall.Signal) {
	if err := unix.PtraceCont(tid, int(sig)); err != nil && !errors.Is(err, syscall.ESRCH) {
		logrus.Debugf("ptrace: resume thread %d: %v", tid, err)
	}
}
