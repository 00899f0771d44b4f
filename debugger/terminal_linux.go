package debugger

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// terminal hands sfdbg's controlling terminal to a program it started
// while the program runs, and takes it back when the program stops, as
// gdb does (gdb/inflow.c, child_terminal_inferior and
// child_terminal_ours): the program can read the terminal, and the
// terminal's Ctrl-C sends SIGINT to the program, which stops it there
// (Stop.sigintStops) instead of killing it. Each side keeps its own
// terminal modes: the program those it was started with (or last set),
// sfdbg those of its line editor. A nil *terminal does nothing.
type terminal struct {
	fd      int // sfdbg's standard input, the terminal
	ours    int // sfdbg's process group
	program int // the program's process group
	// modes are the program's terminal modes, restored when it gets
	// the terminal; saved, sfdbg's while the program has it.
	modes, saved *unix.Termios
}

// newTerminal returns the terminal to share with the program whose
// process group is pgrp, or nil when sfdbg's standard input is not a
// terminal whose foreground process group is sfdbg's (a pipe, a batch
// run, a job in the background).
func newTerminal(pgrp int) *terminal {
	fd := int(os.Stdin.Fd())
	fg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	if err != nil || fg != unix.Getpgrp() {
		return nil
	}
	// Taking the terminal back from the background raises SIGTTOU
	// unless it is ignored (the program was started before: it does not
	// inherit this).
	signal.Ignore(syscall.SIGTTOU)
	modes, _ := unix.IoctlGetTermios(fd, unix.TCGETS) // the user's, before any prompt
	return &terminal{fd: fd, ours: fg, program: pgrp, modes: modes}
}

// give makes the program's process group the terminal's foreground, with
// the program's terminal modes.
func (t *terminal) give() {
	if t == nil {
		return
	}
	t.saved, _ = unix.IoctlGetTermios(t.fd, unix.TCGETS)
	if t.modes != nil {
		unix.IoctlSetTermios(t.fd, unix.TCSETS, t.modes)
	}
	unix.IoctlSetPointerInt(t.fd, unix.TIOCSPGRP, t.program)
}

// take makes sfdbg's process group the terminal's foreground again, with
// sfdbg's terminal modes; the program's are kept for the next give.
func (t *terminal) take() {
	if t == nil {
		return
	}
	unix.IoctlSetPointerInt(t.fd, unix.TIOCSPGRP, t.ours)
	if m, err := unix.IoctlGetTermios(t.fd, unix.TCGETS); err == nil {
		t.modes = m
	}
	if t.saved != nil {
		unix.IoctlSetTermios(t.fd, unix.TCSETS, t.saved)
		t.saved = nil
	}
}
