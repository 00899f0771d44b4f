package debugger

import (
	"fmt"

	"github.com/sfdbg/sfdbg/compare"
)

// How a stop or a frame is printed, as gdb's print_stack_frame does it
// (gdb/stack.c print_frame_info, with infrun.c print_stop_location
// choosing what): the location line ("[0x... in ]weigh (r=...) at
// clones.c:12"; the address when the PC is not the first of its line
// table entry, gdb's frame_show_address), then the source line
// ("12\t    return v;"), then sfdbg's verdict on the frame's unwinding.
type printWhat int

const (
	// printSrcLine: the source line alone, after the PC and a tab when
	// the PC is in the middle of the line (gdb's SRC_LINE: a step that
	// stayed in its function).
	printSrcLine printWhat = iota
	// printSrcAndLoc: the location, then the source line (gdb's
	// SRC_AND_LOC: a breakpoint, a signal, a step into another function).
	printSrcAndLoc
	// printLevelSrcAndLoc: as printSrcAndLoc, the location after the
	// frame's level ("#1  "), as "frame", "up" and "down" print it.
	printLevelSrcAndLoc
)

// frameLocation is the location of the frame shown as sh as gdb's
// print_frame writes it: "0x... in f (args) at file:line" where gdb shows
// the address (frame_show_address: compare.Trace.ShowPC), else "f (args)
// at file:line".
func (s *Session) frameLocation(tr *compare.Trace, sh compare.Shown) string {
	loc := s.locationWithArgs(tr, sh)
	if tr.ShowPC(sh) {
		loc = fmt.Sprintf("0x%016x in %s", tr.ShownPC(sh), loc)
	}
	return loc
}

// printFrame prints the frame shown as sh (see printWhat), prefix before
// the location ("Breakpoint 1, ").
func (s *Session) printFrame(tr *compare.Trace, sh compare.Shown, what printWhat, prefix string) {
	f := &tr.Frames[sh.Frame]
	file, line := tr.ShownLine(sh)
	hasSrc := file != "" && line > 0 && !f.SignalTrampoline()
	if what != printSrcLine || !hasSrc {
		loc := "<signal handler called>"
		if !f.SignalTrampoline() {
			loc = s.frameLocation(tr, sh)
		}
		if what == printLevelSrcAndLoc {
			loc = fmt.Sprintf("#%-3d%s", sh.Level, loc)
		}
		// Wrapped at the width as gdb's pager wraps print_frame's line.
		s.printf("%s\n", compare.WrapFrameLine(prefix+loc, s.width()))
	}
	if hasSrc {
		lead := ""
		if what == printSrcLine && tr.ShowPC(sh) {
			lead = fmt.Sprintf("0x%016x\t", tr.ShownPC(sh))
		}
		s.printf("%s%s\n", lead, s.sourceLineText(file, line, f))
	}
	if sum := frameSummary(tr, sh); sum != "" {
		s.printf("    %s\n", sum)
	}
}

// sourceLineText is "LINE\ttext" for a line of file, or gdb's words when
// the file cannot be read: "LINE\tFILE: No such file or directory." the
// first time, "LINE\tin FILE" after.
func (s *Session) sourceLineText(file string, line int, f *compare.Frame) string {
	if path, err := s.findSource(file, f.Module); err == nil {
		if lines, err := s.sourceLines(path); err == nil && line <= len(lines) {
			return fmt.Sprintf("%d\t%s", line, lines[line-1])
		}
	}
	if s.missingSrc[file] {
		return fmt.Sprintf("%d\tin %s", line, file)
	}
	if s.missingSrc == nil {
		s.missingSrc = map[string]bool{}
	}
	s.missingSrc[file] = true
	return fmt.Sprintf("%d\t%s: No such file or directory.", line, file)
}

// printStop prints the selected thread's frame 0 after a stop, as gdb's
// normal_stop does (what: printSrcAndLoc, or printSrcLine for a step that
// stayed in its function), after prefix.
func (s *Session) printStop(what printWhat, prefix string) error {
	s.frame = 0
	sh, tr, err := s.selectedShown()
	if err != nil {
		return err
	}
	s.listFile = ""
	s.printFrame(tr, sh, what, prefix)
	s.doDisplays()
	return nil
}
