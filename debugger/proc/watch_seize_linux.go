package proc

import (
	"errors"
	"fmt"

	"github.com/sirupsen/logrus"
)

// Hardware watchpoints of a Stop: write watchpoints of 1, 2, 4 or 8
// bytes, set in every thread (a new thread starts with none: it gets them
// at its first stop), cleared before a detach. The registers are the
// host's (watchregs_*.go): x86-64's DR0-DR7, AArch64's NT_ARM_HW_WATCH.

// watchState is a Stop's watchpoints.
type watchState struct {
	slots [4]struct {
		addr uint64
		size int
		used bool
		// access: the watchpoint traps on loads too (gdb's rwatch and
		// awatch), not only on stores.
		access bool
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

// applyWatches writes the watchpoint registers of stopped thread tid,
// unless they are current. Runs on the tracer thread with s.mu held.
func (s *Stop) applyWatches(tid int) error {
	w := &s.watch
	if w.gen == 0 || w.done[tid] == w.gen {
		return nil
	}
	if err := s.writeWatchRegs(tid, true); err != nil {
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
func (s *Stop) InsertWatch(addr uint64, size int) error { return s.insertWatch(addr, size, false) }

// InsertAccessWatch is InsertWatch for a watchpoint that traps on loads
// as well as stores (x86-64 DR7 R/W 11, AArch64 DBGWCR LSC 11; x86 has no
// load-only watchpoint, so gdb's rwatch is one of these too, its hits
// told apart by the value). Errors: InsertWatch's.
func (s *Stop) InsertAccessWatch(addr uint64, size int) error {
	return s.insertWatch(addr, size, true)
}

func (s *Stop) insertWatch(addr uint64, size int, access bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.closed {
		return ErrRunning
	}
	slots, err := s.watchSlots()
	if err != nil {
		return err
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
	if slot < 0 || slot >= slots {
		return fmt.Errorf("cannot set a hardware watchpoint: the %d watchpoint registers (%s) are in use", slots, watchRegNames)
	}
	w.slots[slot].addr, w.slots[slot].size, w.slots[slot].used, w.slots[slot].access = addr, size, true, access
	w.gen++
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

// watchTrapped handles a SIGTRAP stop of t that a watchpoint caused
// (watchHitSlot): the hit is recorded and the thread kept stopped. Where
// the trap comes before the write (AArch64: watchBeforeAccess), the thread
// first steps over the store with its watchpoints off, so that the write
// is done at the stop as on x86-64. It reports whether the trap was a
// watchpoint's.
func (s *Stop) watchTrapped(t *seizedThread) bool {
	if s.watch.gen == 0 {
		return false
	}
	slot, ok := s.watchHitSlot(t.tid)
	if !ok {
		return false
	}
	if slot >= 0 && slot < len(s.watch.slots) && s.watch.slots[slot].used {
		sl := s.watch.slots[slot]
		logrus.Debugf("ptrace: thread %d: watchpoint %#x hit", t.tid, sl.addr)
		s.watch.hits = append(s.watch.hits, WatchHit{t.tid, sl.addr})
		t.want, t.regsOK = true, false
	}
	if watchBeforeAccess {
		if err := s.writeWatchRegs(t.tid, false); err == nil {
			delete(s.watch.done, t.tid)
			err = s.stepOver(t)
			if err == nil {
				err = s.applyWatches(t.tid)
			}
			if err != nil {
				logrus.Debugf("ptrace: thread %d: stepping over a watched store: %v", t.tid, err)
			}
		}
		if s.threads[t.tid] != t {
			return true // it exited in the step
		}
	}
	s.hold(t, false)
	return true
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
