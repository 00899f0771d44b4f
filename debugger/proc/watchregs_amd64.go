package proc

// x86-64 watchpoints, as gdb's x86 linux-nat sets them: the address in a
// debug register DR0-DR3 and its enable, write-only and length bits in
// DR7; a thread whose write hits one stops with SIGTRAP after the
// instruction and its bit set in DR6 (Intel SDM vol. 3, 18.2).

// Offsets in struct user (arch/x86/include/asm/user_64.h): u_debugreg.
const (
	userDebugReg = 848
	dr6          = 6
	dr7          = 7
)

// watchBeforeAccess: an x86-64 data breakpoint traps after the write.
const watchBeforeAccess = false

// watchRegNames names the watchpoint registers in messages.
const watchRegNames = "DR0-DR3"

// watchSlots is the number of watchpoints a thread can hold: DR0-DR3.
func (s *Stop) watchSlots() (int, error) { return 4, nil }

// dr7Value is DR7 for the used slots: L0-L3 (bit 2n), R/W (bits 16+4n:
// 01 write, 11 read or write), LEN (bits 18+4n: 00 1, 01 2, 11 4, 10 8
// bytes).
func (w *watchState) dr7Value() uint64 {
	var v uint64
	for i, sl := range w.slots {
		if !sl.used {
			continue
		}
		length := map[int]uint64{1: 0, 2: 1, 4: 3, 8: 2}[sl.size]
		rw := uint64(1)
		if sl.access {
			rw = 3
		}
		v |= 1<<(2*i) | rw<<(16+4*i) | length<<(18+4*i)
	}
	return v
}

// writeWatchRegs writes thread tid's DR0-DR3 and DR7 from the used slots
// (on false: DR7 0, every watchpoint off).
func (s *Stop) writeWatchRegs(tid int, on bool) error {
	var v uint64
	if on {
		for i, sl := range s.watch.slots {
			if sl.used {
				if err := s.ops.pokeUser(tid, userDebugReg+8*uintptr(i), sl.addr); err != nil {
					return err
				}
			}
		}
		v = s.watch.dr7Value()
	}
	return s.ops.pokeUser(tid, userDebugReg+8*dr7, v)
}

// watchHitSlot reports whether thread tid's SIGTRAP is a watchpoint's
// (DR6 B0-B3), and which; it clears DR6.
func (s *Stop) watchHitSlot(tid int) (int, bool) {
	v, err := s.ops.peekUser(tid, userDebugReg+8*dr6)
	if err != nil || v&0xf == 0 {
		return 0, false
	}
	s.ops.pokeUser(tid, userDebugReg+8*dr6, 0)
	for i := range s.watch.slots {
		if v&(1<<i) != 0 {
			return i, true
		}
	}
	return -1, true
}

// watchPending reports whether thread tid's DR6 says a watchpoint hit
// (B0-B3) whose SIGTRAP may still be pending.
func (s *Stop) watchPending(tid int) bool {
	if s.watch.gen == 0 {
		return false
	}
	v, err := s.ops.peekUser(tid, userDebugReg+8*dr6)
	return err == nil && v&0xf != 0
}

// clearWatchStatus clears thread tid's DR6 after a single-step: a
// watchpoint the step hit set it too (the session compares the values),
// and the next trap would be taken for a watchpoint's.
func (s *Stop) clearWatchStatus(tid int) {
	s.ops.pokeUser(tid, userDebugReg+8*dr6, 0)
}
