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

// watchSlots is the number of watchpoints a thread can hold: dbg_info's
// count, read from a stopped thread, at most the 4 a Stop keeps. Called
// with s.mu held. Errors: none to read, or a count of 0 (no watchpoint
// registers for user space).
func (s *Stop) watchSlots() (int, error) {
	none := errors.New("cannot set a hardware watchpoint: this CPU or kernel gives user space no watchpoint registers (NT_ARM_HW_WATCH)")
	tid := s.anyStopped()
	if tid == 0 {
		return 0, none
	}
	var st hwDebugState
	var err error
	s.tr.do(func() {
		_, err = regset(unix.PTRACE_GETREGSET, tid, elfNTARMHWWatch, unsafe.Pointer(&st), int(unsafe.Sizeof(st)))
	})
	if n := min(int(st.Info&0xff), len(s.watch.slots)); err == nil && n > 0 {
		return n, nil
	}
	return 0, none
}

// writeWatchRegs writes thread tid's watchpoint registers from the used
// slots (on false: every one off). DBGWCR: E (bit 0), PAC = EL0 (0b10 in
// bits 1-2), LSC (bits 3-4: 0b10 store, 0b11 load or store), BAS (bits
// 5-12): the bytes of the aligned doubleword watched.
func (s *Stop) writeWatchRegs(tid int, on bool) error {
	var st hwDebugState
	for i, sl := range s.watch.slots {
		if !on || !sl.used {
			continue
		}
		off := sl.addr & 7
		bas := uint32(1)<<sl.size - 1
		st.Regs[i].Addr = sl.addr &^ 7
		lsc := uint32(2)
		if sl.access {
			lsc = 3
		}
		st.Regs[i].Ctrl = 1 | 2<<1 | lsc<<3 | bas<<(5+off)
	}
	size := 8 + 16*len(s.watch.slots)
	if _, err := regset(unix.PTRACE_SETREGSET, tid, elfNTARMHWWatch, unsafe.Pointer(&st), size); err != nil {
		return fmt.Errorf("PTRACE_SETREGSET NT_ARM_HW_WATCH: %w", err)
	}
	return nil
}

// watchHitSlot reports whether thread tid's SIGTRAP is a watchpoint's
// (si_code TRAP_HWBKPT), and which: the slot whose doubleword holds
// si_addr (-1 if none does).
func (s *Stop) watchHitSlot(tid int) (int, bool) {
	var si [128]byte
	if ptrace4(unix.PTRACE_GETSIGINFO, tid, 0, uintptr(unsafe.Pointer(&si[0]))) != nil {
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
