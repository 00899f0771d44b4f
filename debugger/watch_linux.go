package debugger

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-delve/delve/pkg/proc"
)

// watchTarget is a Target with hardware watchpoints: a debug register
// that stops the process after an instruction writes to [addr, addr+size).
// DelveTarget (run) sets them through Delve, liveTarget (attach) itself
// (watch_seize_linux.go).
type watchTarget interface {
	SetWatchpoint(addr uint64, size int) error
	ClearWatchpoint(addr uint64) error
}

// SetWatchpoint implements watchTarget through Delve's
// proc.Target.SetWatchpoint (a debug register of every thread, DR0-DR3;
// amd64util.DebugRegisters). Delve evaluates the location itself, in its
// Go syntax over the program's DWARF, where C types are named C.TYPE: the
// location is given as an array of size C chars at addr, which needs a
// "char" type in the program's DWARF. size is 1, 2, 4 or 8, addr aligned
// to it (the debug registers' rule).
func (t *DelveTarget) SetWatchpoint(addr uint64, size int) error {
	tgt, err := t.live()
	if err != nil {
		return err
	}
	if size != 1 && size != 2 && size != 4 && size != 8 {
		return fmt.Errorf("cannot watch %d bytes: a hardware watchpoint watches 1, 2, 4 or 8 bytes", size)
	}
	if addr%uint64(size) != 0 {
		return fmt.Errorf("cannot watch %d bytes at %#x: a hardware watchpoint's address is a multiple of its size", size, addr)
	}
	scope, err := proc.ThreadScope(tgt, tgt.CurrentThread())
	if err != nil {
		return fmt.Errorf("cannot set a hardware watchpoint: %w", err)
	}
	expr := fmt.Sprintf("*(*[%d]C.char)(%#x)", size, addr)
	if _, err := tgt.SetWatchpoint(0, scope, expr, proc.WatchWrite, nil); err != nil {
		var exists proc.BreakpointExistsError
		if errors.As(err, &exists) {
			return fmt.Errorf("a watchpoint is already set at %#x", addr)
		}
		if strings.Contains(err.Error(), "no type entry found") || strings.Contains(err.Error(), "could not find symbol") {
			return fmt.Errorf("cannot set a hardware watchpoint on %#x: Delve reads the location through the program's DWARF, which has no C char type (built without -g?)", addr)
		}
		return fmt.Errorf("cannot set a hardware watchpoint on %#x (Delve: %w)", addr, err)
	}
	return nil
}

// ClearWatchpoint implements watchTarget.
func (t *DelveTarget) ClearWatchpoint(addr uint64) error {
	tgt, err := t.live()
	if err != nil {
		return err
	}
	if err := tgt.ClearBreakpoint(addr); err != nil {
		return fmt.Errorf("cannot remove the watchpoint at %#x: %w", addr, err)
	}
	return nil
}
