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
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

// The fault section of the demo: GNU ld's SFrame for .plt.got stubs.
const faultStub = "labs@plt"

// faultTime bounds how long the demo waits for the program to reach the
// stub after it put a breakpoint there: the loop reaches it within
// microseconds, so this is a bound for a program that stopped calling it,
// not a pace.
const faultTime = 10 * time.Second

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
	pt, err := catchInStub(c.Process.Pid, stubRange(rep))
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
		fmt.Fprintf(stdout, "\n2. Process %d did not reach %s within %v, or SFrame agreed with\n"+
			"CFI there: this is not the program GNU ld 2.47.50 built.\n\n", c.Process.Pid, faultStub, faultTime)
	} else {
		fmt.Fprintf(stdout, "\n2. A live trace: sfdbg put a breakpoint on %s in process %d and\n"+
			"unwound it there; frame #0 is where SFrame and CFI part ways:\n\n", faultStub, c.Process.Pid)
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

// catchInStub stops process pid at the first instruction of stub (link-
// time PCs of the program) with a breakpoint, waits up to faultTime for a
// thread to hit it, and unwinds every thread there. It returns that trace
// if SFrame disagrees in the stub (nil if not, or if no thread came). The
// breakpoint is removed before the trace and the process runs on after.
func catchInStub(pid int, stub [2]uint64) (*debugger.ProcessTrace, error) {
	if stub[1] == 0 {
		return nil, nil
	}
	stop, err := proc.Seize(pid)
	if err != nil {
		return nil, err
	}
	defer stop.Detach()
	sp, err := stop.Space()
	if err != nil {
		return nil, err
	}
	var mod *frames.Module
	for _, m := range sp.Modules.List() {
		if m.Name == demotarget.FaultName {
			mod = m
		}
	}
	if mod == nil {
		return nil, fmt.Errorf("process %d has no module %s", pid, demotarget.FaultName)
	}
	at := stub[0] + mod.Bias
	if err := stop.InsertBreakpoint(at); err != nil {
		return nil, err
	}
	if err := stop.Resume(); err != nil {
		return nil, err
	}
	stop.WaitHit(faultTime)
	if err := stop.Interrupt(); err != nil {
		return nil, err
	}
	hit := len(stop.Hits()) > 0
	if err := stop.RemoveBreakpoint(at); err != nil || !hit {
		return nil, err
	}
	pt, err := debugger.TraceProcess(stop, compare.Options{MaxDepth: 16})
	if err != nil || pt.Disagreements() == 0 || !inStub(pt) {
		return nil, err
	}
	return pt, nil
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
