package debugger

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// XState implements xstateReader.
func (t *liveTarget) XState(tid int) (*xstate, error) {
	if err := t.live(); err != nil {
		return nil, err
	}
	return t.st.XState(tid)
}

// XState implements xstateReader.
func (t *stoppedTarget) XState(tid int) (*xstate, error) { return t.st.XState(tid) }

// XState reads the XSAVE area of stopped thread tid (PTRACE_GETREGSET
// NT_X86_XSTATE, in the standard format; arch/x86/kernel/fpu/regset.c)
// and decodes it (decodeXSave). Errors: ErrRunning, a thread that is not
// stopped, the ptrace errno, an area shorter than its legacy region.
func (s *Stop) XState(tid int) (*xstate, error) {
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
	lay := hostXSave()
	buf := make([]byte, max(lay.size, 512+64))
	iov := unix.Iovec{Base: &buf[0], Len: uint64(len(buf))}
	var errno syscall.Errno
	s.tr.do(func() {
		_, _, errno = syscall.Syscall6(syscall.SYS_PTRACE, unix.PTRACE_GETREGSET, uintptr(tid), uintptr(elfNTX86XState), uintptr(unsafe.Pointer(&iov)), 0, 0)
	})
	if errno != 0 {
		return nil, fmt.Errorf("PTRACE_GETREGSET NT_X86_XSTATE of thread %d: %w", tid, errno)
	}
	x, err := decodeXSave(buf[:iov.Len], lay.xsaveLayout)
	if err != nil {
		return nil, fmt.Errorf("thread %d: %w", tid, err)
	}
	return x, nil
}

// elfNTX86XState is NT_X86_XSTATE (include/uapi/linux/elf.h).
const elfNTX86XState = 0x202

// hostXSave is this processor's XSAVE layout, read once from CPUID leaf
// 0DH (Intel SDM vol. 1, 13.2): ECX of sub-leaf 0 is the size of the area
// for every component the processor supports, EBX of sub-leaf i the
// offset of component i in the standard format.
var hostXSave = sync.OnceValue(func() (l struct {
	xsaveLayout
	size int
}) {
	if maxLeaf, _, _, _ := cpuidex(0, 0); maxLeaf < 0xd {
		return l
	}
	_, _, size, _ := cpuidex(0xd, 0)
	_, zmm, _, _ := cpuidex(0xd, 6)
	_, pkru, _, _ := cpuidex(0xd, 9)
	l.size, l.zmmHi256, l.pkru = int(size), int(zmm), int(pkru)
	return l
})

// cpuidex executes CPUID with EAX=leaf and ECX=subleaf (cpuid_amd64.s).
func cpuidex(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)
