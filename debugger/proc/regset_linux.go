package proc

import (
	"fmt"
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
	var n int
	var err error
	s.tr.do(func() { n, err = regset(unix.PTRACE_GETREGSET, tid, note, unsafe.Pointer(&buf[0]), size) })
	if err != nil {
		return nil, fmt.Errorf("PTRACE_GETREGSET %#x of thread %d: %w", note, tid, err)
	}
	return buf[:n], nil
}

// ELF note types of the regsets read here (include/uapi/linux/elf.h).
const (
	elfNTPRStatus   = 1
	elfNTARMHWWatch = 0x403
	elfNTARMPACMask = 0x406
)

// regset is PTRACE_GETREGSET or PTRACE_SETREGSET (req) of regset note of
// thread tid, on the size bytes at p; it returns the length the kernel
// read or wrote. It must run on the thread that traces tid.
func regset(req, tid int, note uint32, p unsafe.Pointer, size int) (int, error) {
	iov := unix.Iovec{Base: (*byte)(p)}
	iov.SetLen(size)
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, uintptr(req), uintptr(tid), uintptr(note), uintptr(unsafe.Pointer(&iov)), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(iov.Len), nil
}
