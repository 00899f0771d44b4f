package proc

import "errors"

// s390x: sfdbg sets no hardware watchpoints (PER storage-alteration events
// through PTRACE_POKEUSR_AREA are not implemented).

const watchBeforeAccess = false

const watchRegNames = "PER"

func (s *Stop) watchSlots() (int, error) {
	return 0, errors.New("cannot set a hardware watchpoint: sfdbg does not set s390x PER storage-alteration events yet")
}

func (s *Stop) writeWatchRegs(int, bool) error {
	return errors.New("no hardware watchpoints on s390x")
}

func (s *Stop) watchHitSlot(int) (int, bool) { return 0, false }

func (s *Stop) watchPending(int) bool { return false }

func (s *Stop) clearWatchStatus(int) {}
