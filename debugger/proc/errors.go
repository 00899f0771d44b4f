package proc

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"
)

// ErrExited is returned (wrapped) by operations on a process that has
// exited.
var ErrExited = errors.New("the process has exited")

// ErrRunning is returned by operations that need a stopped process.
var ErrRunning = errors.New("the process is running")

// AttachError reports that a process cannot be attached to. Its message is
// one sentence that says why and what to do: no such process, ptrace
// restricted by Yama, a process of another user, a process already traced.
type AttachError struct {
	Pid int
	Msg string // the sentence, without the "sfdbg: " prefix
	Err error  // the underlying error (syscall.EPERM, syscall.ESRCH, ...)
}

func (e *AttachError) Error() string { return e.Msg }

func (e *AttachError) Unwrap() error { return e.Err }

// AttachErrorOf turns an error from PTRACE_ATTACH, PTRACE_SEIZE or Delve's
// Attach into an *AttachError with a sentence for humans.
func AttachErrorOf(pid int, err error) error {
	var ae *AttachError
	if errors.As(err, &ae) {
		return err
	}
	if errors.Is(err, syscall.ESRCH) || !ProcessExists(pid) {
		return &AttachError{Pid: pid, Err: err, Msg: fmt.Sprintf("cannot attach to process %d: no such process", pid)}
	}
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
		return &AttachError{Pid: pid, Err: err, Msg: permissionSentence(pid)}
	}
	return &AttachError{Pid: pid, Err: err, Msg: fmt.Sprintf("cannot attach to process %d: %v", pid, err)}
}

// ProcessExists reports whether /proc/PID exists.
func ProcessExists(pid int) bool {
	if pid <= 0 {
		return false
	}
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// CheckPid returns an *AttachError if pid names no process, or is sfdbg
// itself.
func CheckPid(pid int) error {
	if pid == os.Getpid() {
		return &AttachError{Pid: pid, Err: syscall.EPERM, Msg: fmt.Sprintf("cannot attach to process %d: it is sfdbg itself", pid)}
	}
	if !ProcessExists(pid) {
		return &AttachError{Pid: pid, Err: syscall.ESRCH, Msg: fmt.Sprintf("cannot attach to process %d: no such process", pid)}
	}
	if ProcState(pid) == 'Z' && !HasLiveThread(pid) {
		return &AttachError{Pid: pid, Err: syscall.ESRCH, Msg: fmt.Sprintf("cannot attach to process %d: it has exited (a zombie waiting for its parent)", pid)}
	}
	return nil
}

// permissionSentence explains an EPERM from ptrace: the process is traced
// already, belongs to another user, or Yama restricts ptrace.
func permissionSentence(pid int) string {
	if isKernelThread(pid) {
		return fmt.Sprintf("cannot attach to process %d (%s): it is a kernel thread, with no user space to unwind", pid, ProcessName(pid))
	}
	st := ProcStatus(pid)
	if t := st["TracerPid"]; t != "" && t != "0" {
		name := strings.TrimSpace(ReadFile("/proc/" + t + "/comm"))
		if name != "" {
			name = " (" + name + ")"
		}
		return fmt.Sprintf("cannot attach to process %d: it is already traced by process %s%s; detach that debugger first", pid, t, name)
	}
	if uids := strings.Fields(st["Uid"]); len(uids) > 0 && os.Geteuid() != 0 {
		if uids[0] != strconv.Itoa(os.Geteuid()) {
			return fmt.Sprintf("cannot attach to process %d: it belongs to user %s, not to you; run sfdbg as that user or as root", pid, userName(uids[0]))
		}
	}
	if scope := strings.TrimSpace(ReadFile("/proc/sys/kernel/yama/ptrace_scope")); scope != "" && scope != "0" {
		return fmt.Sprintf("cannot attach to process %d: ptrace is restricted by /proc/sys/kernel/yama/ptrace_scope=%s; run sfdbg as root or set it to 0", pid, scope)
	}
	return fmt.Sprintf("cannot attach to process %d: permission denied (a setuid program, a process in another container, or missing CAP_SYS_PTRACE)", pid)
}

// pfKthread is PF_KTHREAD, the flag of a kernel thread in the flags field
// of /proc/PID/stat (include/linux/sched.h).
const pfKthread = 0x00200000

// isKernelThread reports whether process pid is a kernel thread: the
// PF_KTHREAD flag of /proc/PID/stat's flags (field 9; the name in
// parentheses may hold spaces, so fields are counted after its ')').
func isKernelThread(pid int) bool {
	stat := ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 7 {
		return false
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	return err == nil && flags&pfKthread != 0
}

func userName(uid string) string {
	if u, err := user.LookupId(uid); err == nil {
		return u.Username
	}
	return "uid " + uid
}

// ProcessName returns a process's name (/proc/PID/comm), or "".
func ProcessName(pid int) string {
	return strings.TrimSpace(ReadFile(fmt.Sprintf("/proc/%d/comm", pid)))
}

// ThreadName returns the name of thread tid of process pid
// (/proc/PID/task/TID/comm), or "".
func ThreadName(pid, tid int) string {
	return strings.TrimSpace(ReadFile(fmt.Sprintf("/proc/%d/task/%d/comm", pid, tid)))
}

func ReadFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

// ProcStatus returns the "Key:\tvalue" lines of /proc/PID/status.
func ProcStatus(pid int) map[string]string {
	return StatusFile(fmt.Sprintf("/proc/%d/status", pid))
}

// StatusFile returns the "Key:\tvalue" lines of a /proc status file.
func StatusFile(path string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(ReadFile(path), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// ProcState returns the state letter of a process or thread from
// /proc/PID/stat ('R', 'S', 't', 'T', 'Z', ...), or 0 if it cannot be read.
func ProcState(pid int) byte { return statState(fmt.Sprintf("/proc/%d/stat", pid)) }

// TaskState returns the state letter of thread tid of process pid.
func TaskState(pid, tid int) byte { return statState(fmt.Sprintf("/proc/%d/task/%d/stat", pid, tid)) }

// HasLiveThread reports whether some thread of process pid has not exited:
// a process whose main thread called pthread_exit shows as a zombie while
// its other threads run.
func HasLiveThread(pid int) bool {
	tids, err := ListTasks(pid)
	if err != nil {
		return false
	}
	for _, tid := range tids {
		if st := TaskState(pid, tid); st != 'Z' && st != 'X' && st != 0 {
			return true
		}
	}
	return false
}

// statState returns the state letter of a /proc stat file, 0 if unknown.
func statState(path string) byte {
	s := ReadFile(path)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return 0
	}
	return s[i+2]
}
