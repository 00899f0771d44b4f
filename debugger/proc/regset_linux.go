package proc

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// RegSet reads the regset note (an NT_* type of include/uapi/linux/elf.h:
// NT_X86_XSTATE, NT_PRFPREG ...) of stopped thread tid with
// PTRACE_GETREGSET, into a buffer of size bytes, and returns the bytes the
// kernel filled, in the host's byte order. Errors: ErrRunning, a thread
// that is not stopped, the ptrace errno.
func (s *Stop) RegSet(tid int, note uint32, size int) ([]byte, error) {
	s.mu.Lock()
	running := s.running
	th := s.threads[tid]
	stopped := th != nil && th.stopped
	s.mu.Unlock()
	if running {
		return nil, ErrRunning
	}
	if !stopped {
		return nil, fmt.Errorf("thread %d of process %d is not stopped", tid, s.pid)
	}
	buf := make([]byte, size)
	iov := unix.Iovec{Base: &buf[0]}
	iov.SetLen(len(buf))
	var errno syscall.Errno
	s.tr.do(func() {
		_, _, errno = syscall.Syscall6(syscall.SYS_PTRACE, unix.PTRACE_GETREGSET, uintptr(tid), uintptr(note), uintptr(unsafe.Pointer(&iov)), 0, 0)
	})
	if errno != 0 {
		return nil, fmt.Errorf("PTRACE_GETREGSET %#x of thread %d: %w", note, tid, errno)
	}
	return buf[:iov.Len], nil
}
