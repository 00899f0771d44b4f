package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sfdbg/sfdbg/cmd/sfdbg/demotarget"
	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger"
)

// The fault section of the demo: GNU ld's SFrame for .plt.got stubs.
const faultStub = "labs@plt"

// faultStops bounds how often the demo stops the program to find it
// inside the stub, and faultTime how long it tries: the demo stays under
// 5 s. Variables for the tests, which on a loaded machine (a CI run)
// give it longer: there one stop in the stub took up to 2 s.
var (
	faultStops = 2000
	faultTime  = 2 * time.Second
)

const faultIntro = `
The bundled program %s (testdata/src/pltgot.c, built with GNU as and
ld 2.47.50) calls labs in a loop, main -> shout -> labs, through a .plt.got
stub: one "jmp *GOT" instruction that pushes nothing. For that stub GNU ld
writes an SFrame FDE that says CFA = SP+16, as if the stub had pushed 8
bytes; the code, and ld's own .eh_frame, say CFA = SP+8.

1. "sfdbg check" finds it in the file, without running it:

`

const faultMeaning = `What it means: in the stub, the return address is at SP+0. SFrame puts the
CFA 8 bytes too high and reads the return address from SP+8, which holds
something else (above: SFrame's RA is not shout's return address, CFI's
is). An unwinder that trusts SFrame loses shout and main from every stack
it takes in a .plt.got stub, or ends the stack there: the Linux kernel's
SFrame unwinder (the patch series for perf's user-space call chains)
charges those samples to a broken call chain, and glibc's backtrace()
(built with --enable-sframe, 2.42 on) tries SFrame first. gdb reads DWARF
CFI and shows the right callers, so the fault goes unseen until someone
compares the two, which is what sfdbg does. The fault is GNU ld's (binutils
PR 32298, in 2.44 and 2.47.50); a function gets a .plt.got stub when the
program both calls it and takes its address, as every PIE does with
__cxa_finalize.
`

// demoFault shows the fault: check's finding on the bundled program, then
// a live trace of it stopped inside the stub, then what that means.
// setCur and stopCur register the running program with runDemo's clean-up
// and kill it.
func demoFault(dir string, asJSON bool, stdout io.Writer, setCur func(*exec.Cmd), stopCur func()) error {
	bin := filepath.Join(dir, demotarget.FaultName)
	if err := os.WriteFile(bin, demotarget.FaultBinary, 0o755); err != nil {
		return err
	}
	rep, err := compare.CheckFile(bin, compare.CheckOptions{})
	if err != nil {
		return fmt.Errorf("check %s: %w", bin, err)
	}
	if !asJSON {
		fmt.Fprintf(stdout, faultIntro, demotarget.FaultName)
		found := false
		for _, f := range rep.Findings {
			if f.Kind != compare.KindPLT {
				continue
			}
			found = true
			fmt.Fprintf(stdout, "    %s (%#x): %s\n", f.Function, f.FuncStart, f.Kind)
			for _, l := range wrapWords(f.Message, 90) {
				fmt.Fprintf(stdout, "      %s\n", l)
			}
		}
		if !found {
			fmt.Fprintf(stdout, "    (no PLT finding: the bundled program is not the one built by GNU ld 2.47.50)\n")
		}
	}
	c, err := startDemo(bin, "30")
	if err != nil {
		return err
	}
	setCur(c)
	defer stopCur()
	pt, stops, err := catchInStub(c.Process.Pid, stubRange(rep))
	if err != nil {
		return err
	}
	if asJSON {
		if pt != nil {
			return pt.WriteJSON(stdout)
		}
		return nil
	}
	if pt == nil {
		fmt.Fprintf(stdout, "\n2. In %d stops of process %d none found it inside %s (one instruction of\n"+
			"the loop); run the demo again to see the live trace.\n\n", stops, c.Process.Pid, faultStub)
	} else {
		times := "once"
		if stops > 1 {
			times = fmt.Sprintf("%d times", stops)
		}
		fmt.Fprintf(stdout, "\n2. A live trace: sfdbg stopped process %d %s, until a stop found it\n"+
			"inside %s; frame #0 is where SFrame and CFI part ways:\n\n", c.Process.Pid, times, faultStub)
		pt.WriteText(stdout, compare.TextOptions{Style: compare.Style{Color: isTerminal(stdout)}})
		fmt.Fprintln(stdout)
	}
	fmt.Fprint(stdout, faultMeaning)
	return nil
}

// stubRange is the link-time PC range [lo, hi) of check's PLT finding on
// the stub (the whole PC-mask FDE), or zeros.
func stubRange(rep *compare.FileReport) [2]uint64 {
	for _, f := range rep.Findings {
		if f.Kind == compare.KindPLT && f.Function == faultStub {
			if f.PCEnd > f.PC {
				return [2]uint64{f.PC, f.PCEnd}
			}
			return [2]uint64{f.FuncStart, f.FuncStart + 16}
		}
	}
	return [2]uint64{}
}

// catchInStub stops process pid again and again (PTRACE_INTERRUPT, look
// at the PC, resume) until a stop finds a thread in stub (link-time PCs of
// the program) with SFrame disagreeing there, within faultStops stops and
// faultTime; only such a stop is unwound. It returns that trace (nil if
// none) and the number of stops.
func catchInStub(pid int, stub [2]uint64) (*debugger.ProcessTrace, int, error) {
	stop, err := debugger.Seize(pid)
	if err != nil {
		return nil, 0, err
	}
	defer stop.Detach()
	var found *debugger.ProcessTrace
	stops := 0
	deadline := time.Now().Add(faultTime)
	stop.Run(func() {
		for stops < faultStops && time.Now().Before(deadline) {
			if stops > 0 {
				if err = stop.Resume(); err != nil {
					return
				}
				// Let it run a little, a varying while from the last stop.
				time.Sleep(time.Duration(100+stops%7*30) * time.Microsecond)
				if err = stop.Interrupt(); err != nil {
					return
				}
			}
			stops++
			if !pcInStub(stop, stub) {
				continue
			}
			var pt *debugger.ProcessTrace
			pt, err = debugger.TraceProcess(stop, compare.Options{MaxDepth: 16})
			if err != nil {
				return
			}
			if pt.Disagreements() > 0 && inStub(pt) {
				found = pt
				return
			}
		}
	})
	return found, stops, err
}

// pcInStub reports whether a stopped thread's PC is in the stub (any PC,
// when the stub's range is unknown).
func pcInStub(stop *debugger.Stop, stub [2]uint64) bool {
	if stub[1] == 0 {
		return true
	}
	sp, err := stop.Space()
	if err != nil {
		return false
	}
	for _, tid := range stop.Threads() {
		regs, err := stop.Regs(tid)
		if err != nil {
			continue
		}
		pc := regs.PC()
		if m := sp.Modules.Find(pc); m != nil && m.Name == demotarget.FaultName &&
			pc-m.Bias >= stub[0] && pc-m.Bias < stub[1] {
			return true
		}
	}
	return false
}

// inStub reports whether a thread's frame 0 is the stub, judged by SFrame
// as disagreeing.
func inStub(pt *debugger.ProcessTrace) bool {
	for _, t := range pt.Threads {
		if t.Trace == nil || len(t.Trace.Frames) == 0 {
			continue
		}
		if f := t.Trace.Document(t.Tid, t.Name).Frames[0]; f.Function == faultStub && f.Verdict == compare.VerdictDisagree {
			return true
		}
	}
	return false
}

// wrapWords breaks text into lines of at most width columns at spaces.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
