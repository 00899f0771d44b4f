package proc

import (
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// threadOps are the system calls that Stop makes on the threads of a
// process, one method each, so that its seize and stop loops can be run
// against a scripted process in tests (seize_ops_test.go). Every method but
// tasks, state and tracedByMe must be called on the tracer thread.
type threadOps interface {
	tasks(pid int) ([]int, error) // the IDs in /proc/PID/task, leader first
	state(pid, tid int) byte      // the state letter in /proc/PID/task/TID/stat; 0 if gone
	tracedByMe(pid, tid int) bool // TracerPid of the thread is sfdbg
	seize(tid int) error          // PTRACE_SEIZE with seizeOptions
	interrupt(tid int) error      // PTRACE_INTERRUPT
	cont(tid, sig int) error      // PTRACE_CONT, passing on signal sig
	listen(tid int) error         // PTRACE_LISTEN (back into a group stop)
	detach(tid, sig int) error    // PTRACE_DETACH, delivering signal sig
	eventMsg(tid int) (uint, error)
	// wait is wait4(tid, __WALL|WNOHANG): wpid 0 when tid has nothing to
	// report.
	wait(tid int) (wpid int, ws unix.WaitStatus, err error)
	// wake returns a channel closed when wait may have something new (the
	// next SIGCHLD: childWake); take it before calling wait.
	wake() <-chan struct{}
	regs(tid int, r *ptraceRegs) error
	setRegs(tid int, r *ptraceRegs) error
	singleStep(tid, sig int) error
	peek(tid int, addr uint64, out []byte) error
	poke(tid int, addr uint64, data []byte) error
	// peekUser and pokeUser read and write a word of the thread's struct
	// user (PTRACE_PEEKUSER, PTRACE_POKEUSER): its debug registers.
	peekUser(tid int, off uintptr) (uint64, error)
	pokeUser(tid int, off uintptr, v uint64) error
	// sigPending reports whether sig is pending for the thread alone
	// (SigPnd in /proc/PID/task/TID/status), as a SIGTRAP of an int3 is.
	sigPending(pid, tid int, sig syscall.Signal) bool
}

// seizeOptions: every thread a seized thread creates is traced from its
// birth (it starts in a PTRACE_EVENT_STOP), and an execve reports a
// PTRACE_EVENT_EXEC stop under the process ID, after the kernel has ended
// the other threads (whose exits sfdbg must reap, or the execve waits).
const seizeOptions = unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_TRACEEXEC

// sysOps is threadOps on Linux.
type sysOps struct{}

func (sysOps) tasks(pid int) ([]int, error) { return ListTasks(pid) }
func (sysOps) state(pid, tid int) byte      { return TaskState(pid, tid) }
func (sysOps) tracedByMe(pid, tid int) bool {
	st := StatusFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid) + "/status")
	return st["TracerPid"] == strconv.Itoa(os.Getpid())
}
func (sysOps) seize(tid int) error     { return ptrace4(unix.PTRACE_SEIZE, tid, 0, seizeOptions) }
func (sysOps) interrupt(tid int) error { return unix.PtraceInterrupt(tid) }
func (sysOps) cont(tid, sig int) error { return unix.PtraceCont(tid, sig) }
func (sysOps) listen(tid int) error    { return ptrace4(unix.PTRACE_LISTEN, tid, 0, 0) }
func (sysOps) detach(tid, sig int) error {
	if sig == 0 {
		return unix.PtraceDetach(tid)
	}
	return ptrace4(unix.PTRACE_DETACH, tid, 0, uintptr(sig))
}
func (sysOps) eventMsg(tid int) (uint, error) { return unix.PtraceGetEventMsg(tid) }
func (sysOps) wait(tid int) (int, unix.WaitStatus, error) {
	for {
		var ws unix.WaitStatus
		wpid, err := unix.Wait4(tid, &ws, unix.WALL|unix.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		return wpid, ws, err
	}
}
func (sysOps) wake() <-chan struct{}                { return childEvent() }
func (sysOps) regs(tid int, r *ptraceRegs) error    { return getRegs(tid, r) }
func (sysOps) setRegs(tid int, r *ptraceRegs) error { return setRegs(tid, r) }
func (sysOps) singleStep(tid, sig int) error {
	return ptrace4(unix.PTRACE_SINGLESTEP, tid, 0, uintptr(sig))
}
func (sysOps) peek(tid int, addr uint64, out []byte) error {
	n, err := unix.PtracePeekData(tid, uintptr(addr), out)
	if err == nil && n < len(out) {
		err = syscall.EIO
	}
	return err
}
func (sysOps) poke(tid int, addr uint64, data []byte) error {
	n, err := unix.PtracePokeData(tid, uintptr(addr), data)
	if err == nil && n < len(data) {
		err = syscall.EIO
	}
	return err
}
func (sysOps) sigPending(pid, tid int, sig syscall.Signal) bool {
	st := StatusFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid) + "/status")
	mask, err := strconv.ParseUint(st["SigPnd"], 16, 64)
	return err == nil && mask&(1<<(uint(sig)-1)) != 0
}

func (sysOps) peekUser(tid int, off uintptr) (uint64, error) {
	var v uint64
	err := ptrace4(unix.PTRACE_PEEKUSR, tid, off, uintptr(unsafe.Pointer(&v)))
	return v, err
}

func (sysOps) pokeUser(tid int, off uintptr, v uint64) error {
	return ptrace4(unix.PTRACE_POKEUSR, tid, off, uintptr(v))
}
