package proc

import (
	"errors"
	"fmt"

	"github.com/sirupsen/logrus"
)

// Hardware watchpoints of a Stop, as gdb's x86 linux-nat sets them: the
// address in a debug register DR0-DR3 and its enable, write-only and
// length bits in DR7, in every thread (a new thread starts with none: it
// gets them at its first stop); a thread whose write hits one stops with
// SIGTRAP after the instruction and its bit set in DR6 (Intel SDM vol. 3,
// 18.2). Detach clears them first.

// Offsets in struct user (arch/x86/include/asm/user_64.h): u_debugreg.
const (
	userDebugReg = 848
	dr6          = 6
	dr7          = 7
)

// watchState is a Stop's watchpoints.
type watchState struct {
	slots [4]struct {
		addr uint64
		size int
		used bool
	}
	gen  int         // changes with every insert and remove; 0: never any
	hits []WatchHit  // since the last Resume, in order
	done map[int]int // thread -> gen its debug registers hold
}

// WatchHit is a thread's write to a watched location.
type WatchHit struct {
	Tid  int
	Addr uint64
}

// dr7Value is DR7 for the used slots: L0-L3 (bit 2n), R/W = 01 (write,
// bits 16+4n), LEN (bits 18+4n: 00 1, 01 2, 11 4, 10 8 bytes).
func (w *watchState) dr7Value() uint64 {
	var v uint64
	for i, sl := range w.slots {
		if !sl.used {
			continue
		}
		length := map[int]uint64{1: 0, 2: 1, 4: 3, 8: 2}[sl.size]
		v |= 1<<(2*i) | 1<<(16+4*i) | length<<(18+4*i)
	}
	return v
}

// applyWatches writes the debug registers of stopped thread tid, unless
// they are current. Runs on the tracer thread with s.mu held.
func (s *Stop) applyWatches(tid int) error {
	w := &s.watch
	if w.gen == 0 || w.done[tid] == w.gen {
		return nil
	}
	for i, sl := range w.slots {
		if sl.used {
			if err := s.ops.pokeUser(tid, userDebugReg+8*uintptr(i), sl.addr); err != nil {
				return err
			}
		}
	}
	if err := s.ops.pokeUser(tid, userDebugReg+8*dr7, w.dr7Value()); err != nil {
		return err
	}
	if w.done == nil {
		w.done = map[int]int{}
	}
	w.done[tid] = w.gen
	return nil
}

// InsertWatch sets a write watchpoint on size bytes (1, 2, 4 or 8) at
// addr, a multiple of size, in every stopped thread. Errors: ErrRunning,
// four watchpoints already, a bad size or alignment, the ptrace errno.
func (s *Stop) InsertWatch(addr uint64, size int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.closed {
		return ErrRunning
	}
	if !hostHasDebugRegs {
		return fmt.Errorf("cannot set a hardware watchpoint: sfdbg sets them only through x86-64's debug registers, not yet on %s (NT_ARM_HW_WATCH, s390x PER)", HostArch.Name)
	}
	if size != 1 && size != 2 && size != 4 && size != 8 {
		return fmt.Errorf("cannot watch %d bytes: a hardware watchpoint watches 1, 2, 4 or 8 bytes", size)
	}
	if addr%uint64(size) != 0 {
		return fmt.Errorf("cannot watch %d bytes at %#x: a hardware watchpoint's address is a multiple of its size", size, addr)
	}
	w := &s.watch
	slot := -1
	for i, sl := range w.slots {
		if sl.used && sl.addr == addr {
			return fmt.Errorf("a watchpoint is already set at %#x", addr)
		}
		if !sl.used && slot < 0 {
			slot = i
		}
	}
	if slot < 0 {
		return errors.New("cannot set a hardware watchpoint: the four debug registers (DR0-DR3) are in use")
	}
	w.slots[slot].addr, w.slots[slot].size, w.slots[slot].used = addr, size, true
	w.gen++
	var err error
	s.tr.do(func() { err = s.applyAll() })
	if err != nil {
		w.slots[slot].used = false
		w.gen++
		s.tr.do(func() { s.applyAll() })
		return fmt.Errorf("cannot set a hardware watchpoint on %#x: %w", addr, err)
	}
	return nil
}

// RemoveWatch removes the watchpoint at addr from every stopped thread.
func (s *Stop) RemoveWatch(addr uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.closed {
		return ErrRunning
	}
	for i := range s.watch.slots {
		if sl := &s.watch.slots[i]; sl.used && sl.addr == addr {
			sl.used = false
			s.watch.gen++
			var err error
			s.tr.do(func() { err = s.applyAll() })
			return err
		}
	}
	return nil
}

// applyAll writes the debug registers of every stopped thread.
func (s *Stop) applyAll() error {
	var errs []error
	for tid, t := range s.threads {
		if t.stopped {
			if err := s.applyWatches(tid); err != nil {
				errs = append(errs, fmt.Errorf("thread %d: %w", tid, err))
			}
		}
	}
	return errors.Join(errs...)
}

// watchTrapped handles a SIGTRAP stop of t that a watchpoint caused (DR6
// B0-B3): DR6 is cleared, the hit recorded and the thread kept stopped.
// It reports whether the trap was a watchpoint's.
func (s *Stop) watchTrapped(t *seizedThread) bool {
	if s.watch.gen == 0 {
		return false
	}
	v, err := s.ops.peekUser(t.tid, userDebugReg+8*dr6)
	if err != nil || v&0xf == 0 {
		return false
	}
	s.ops.pokeUser(t.tid, userDebugReg+8*dr6, 0)
	for i, sl := range s.watch.slots {
		if sl.used && v&(1<<i) != 0 {
			logrus.Debugf("ptrace: thread %d: watchpoint %#x hit", t.tid, sl.addr)
			s.watch.hits = append(s.watch.hits, WatchHit{t.tid, sl.addr})
			t.want, t.regsOK = true, false
			break
		}
	}
	s.hold(t, false)
	return true
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

// clearWatches disables every debug register of the stopped threads
// before a detach. Runs on the tracer thread.
func (s *Stop) clearWatches() {
	if s.watch.gen == 0 {
		return
	}
	for i := range s.watch.slots {
		s.watch.slots[i].used = false
	}
	s.watch.gen++
	if err := s.applyAll(); err != nil {
		logrus.Debugf("ptrace: clearing the watchpoints: %v", err)
	}
}

// WatchHits returns the watchpoint hits since the last Resume.
func (s *Stop) WatchHits() []WatchHit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]WatchHit(nil), s.watch.hits...)
}
