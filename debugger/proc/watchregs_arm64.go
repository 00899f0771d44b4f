package proc

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// AArch64 watchpoints, as gdb's aarch64 linux-nat sets them: the
// NT_ARM_HW_WATCH regset (struct user_hwdebug_state,
// arch/arm64/include/uapi/asm/ptrace.h): dbg_info (the number of
// watchpoints in its low byte), then per watchpoint its doubleword-aligned
// address and its control word (DBGWCR: enable, EL0 only, store, and the
// byte-address-select mask of the bytes watched). A thread whose store hits
// one stops with SIGTRAP, si_code TRAP_HWBKPT and si_addr the address,
// before the store: the kernel does not step over it for ptrace.

// elfNTARMHWWatch is NT_ARM_HW_WATCH (include/uapi/linux/elf.h).
const elfNTARMHWWatch = 0x403

// trapHWBkpt is si_code TRAP_HWBKPT (include/uapi/asm-generic/siginfo.h).
const trapHWBkpt = 4

// watchBeforeAccess: an AArch64 watchpoint traps before the store.
const watchBeforeAccess = true

// watchRegNames names the watchpoint registers in messages.
const watchRegNames = "DBGWVR/DBGWCR"

// hwDebugState is struct user_hwdebug_state.
type hwDebugState struct {
	Info uint32
	_    uint32
	Regs [16]struct {
		Addr uint64
		Ctrl uint32
		_    uint32
	}
}

// watchSupported reports whether the threads have watchpoints
// (dbg_info's count, read from a stopped thread).
func (s *Stop) watchSupported() error {
	if s.watchSlots() == 0 {
		return errors.New("cannot set a hardware watchpoint: this CPU or kernel gives user space no watchpoint registers (NT_ARM_HW_WATCH)")
	}
	return nil
}

// watchSlots is the number of watchpoints a thread can hold: dbg_info's,
// at most the 4 a Stop keeps. Called with s.mu held.
func (s *Stop) watchSlots() int {
	tid := s.anyStopped()
	if tid == 0 {
		return 0
	}
	var st hwDebugState
	var err error
	s.tr.do(func() { err = hwDebug(unix.PTRACE_GETREGSET, tid, &st, int(unsafe.Sizeof(st))) })
	if err != nil {
		return 0
	}
	return min(int(st.Info&0xff), len(s.watch.slots))
}

// hwDebug reads or writes size bytes of thread tid's NT_ARM_HW_WATCH.
func hwDebug(req, tid int, st *hwDebugState, size int) error {
	iov := unix.Iovec{Base: (*byte)(unsafe.Pointer(st))}
	iov.SetLen(size)
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, uintptr(req), uintptr(tid), elfNTARMHWWatch, uintptr(unsafe.Pointer(&iov)), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// writeWatchRegs writes thread tid's watchpoint registers from the used
// slots (on false: every one off). DBGWCR: E (bit 0), PAC = EL0 (0b10 in
// bits 1-2), LSC = store (0b10 in bits 3-4), BAS (bits 5-12): the bytes
// of the aligned doubleword watched.
func (s *Stop) writeWatchRegs(tid int, on bool) error {
	var st hwDebugState
	for i, sl := range s.watch.slots {
		if !on || !sl.used {
			continue
		}
		off := sl.addr & 7
		bas := uint32(1)<<sl.size - 1
		st.Regs[i].Addr = sl.addr &^ 7
		st.Regs[i].Ctrl = 1 | 2<<1 | 2<<3 | bas<<(5+off)
	}
	size := 8 + 16*len(s.watch.slots)
	if err := hwDebug(unix.PTRACE_SETREGSET, tid, &st, size); err != nil {
		return fmt.Errorf("PTRACE_SETREGSET NT_ARM_HW_WATCH: %w", err)
	}
	return nil
}

// watchHitSlot reports whether thread tid's SIGTRAP is a watchpoint's
// (si_code TRAP_HWBKPT), and which: the slot whose doubleword holds
// si_addr (-1 if none does).
func (s *Stop) watchHitSlot(tid int) (int, bool) {
	var si [128]byte
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_GETSIGINFO, uintptr(tid), 0, uintptr(unsafe.Pointer(&si[0])), 0, 0)
	if e != 0 {
		return 0, false
	}
	code := *(*int32)(unsafe.Pointer(&si[8]))
	if code != trapHWBkpt {
		return 0, false
	}
	addr := *(*uint64)(unsafe.Pointer(&si[16]))
	for i, sl := range s.watch.slots {
		if sl.used && addr&^7 == sl.addr&^7 {
			return i, true
		}
	}
	return -1, true
}

// watchPending: an AArch64 watchpoint's trap leaves no status to read;
// a pending one is taken when the thread runs.
func (s *Stop) watchPending(int) bool { return false }

// clearWatchStatus: nothing to clear on AArch64.
func (s *Stop) clearWatchStatus(int) {}
