package debugger

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

// VerifyOptions says what Verify runs.
type VerifyOptions struct {
	// Functions are shell patterns (path.Match) of the function names to
	// judge; none judges every function. With them, the process runs at
	// full speed to a matching function's entry, every thread is then
	// single-stepped until that call returns, and calls from it into
	// functions that do not match run at full speed to their return.
	Functions []string
	// MaxInstructions ends the run after that many executed instructions
	// (0: until the process exits).
	MaxInstructions uint64
	// Stop, when set, is polled at every instruction: true ends the run
	// (the user's interrupt).
	Stop func() bool
	// Interrupt, when set, is closed by the user's interrupt: a run at
	// full speed (to the next entry, over a call) then stops at once, as
	// the stepping does at Stop.
	Interrupt <-chan struct{}
}

// VerifyResult is a Verify run: the report, how long it took, and how the
// run ended.
type VerifyResult struct {
	Report  *compare.VerifyReport
	Elapsed time.Duration
	// Exited is set when the process exited during the run, with Status
	// (the exit code, or minus the signal that killed it).
	Exited bool
	Status int
}

// Verify single-steps every thread of the stopped process st until it
// exits, opts.MaxInstructions are executed, or opts.Stop says so, and
// checks every executed instruction with a compare.Verifier (issue 32:
// ground truth by execution). The process is left stopped unless it
// exited; the caller resumes, detaches or kills it.
func Verify(st *proc.Stop, opts VerifyOptions) (*VerifyResult, error) {
	space, err := st.Space()
	if err != nil {
		return nil, err
	}
	pid := st.Pid()
	lastMaps := ""
	refresh := func() *frames.Space {
		maps, _ := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
		if string(maps) == lastMaps {
			return nil
		}
		lastMaps = string(maps)
		mods, err := frames.ModulesFromMaps(pid, space.Mem)
		if err != nil {
			return nil
		}
		space = &frames.Space{Mem: space.Mem, Modules: keepLoaded(space.Modules, mods), PACMask: space.PACMask}
		return space
	}
	v := compare.NewVerifier(proc.HostArch, space, refresh)
	if len(opts.Functions) > 0 {
		v.Match = func(name string) bool {
			for _, g := range opts.Functions {
				if ok, _ := path.Match(g, name); ok {
					return true
				}
			}
			return false
		}
	}
	var n uint64
	stopNow := func() bool {
		return opts.MaxInstructions != 0 && n >= opts.MaxInstructions || opts.Stop != nil && opts.Stop() || v.Broken() != ""
	}
	// until, when not 0, is the thread whose entered function ends the
	// stepping when it returns (--function); over is set when that thread
	// has just entered a function that is not judged, from the judged one:
	// the call runs at full speed to its return (runOverCall).
	until := 0
	over := false
	depth := 0 // until's frames at its last step
	each := func(ev *proc.StepEvent) bool {
		switch {
		case ev.Exited:
			v.Exited(ev.Tid)
			return true
		case ev.Exec:
			lastMaps = ""
			if sp := refresh(); sp != nil {
				v.Reset(sp)
			}
		}
		v.Step(ev.Tid, ev.Regs, ev.Signal)
		n++
		if v.Broken() != "" {
			return false
		}
		if until != 0 && ev.Tid == until && v.Depth(until) == 0 {
			return false
		}
		if until != 0 && ev.Tid == until {
			// A call from a judged function into one that is not: run
			// it at full speed to its return.
			d := v.Depth(until)
			entered := d > depth
			depth = d
			if entered && d >= 2 && !v.Judging(until) {
				over = true
				return false
			}
		}
		return !stopNow()
	}
	if opts.Interrupt != nil {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-opts.Interrupt:
				st.Kick() // a Wait in a run at full speed returns
			case <-done:
			}
		}()
	}
	start := time.Now()
	if len(opts.Functions) == 0 {
		err = st.StepAll(each)
	} else {
		err = verifyFunctions(st, v, opts, each, stopNow, &until, &over)
	}
	res := &VerifyResult{Report: v.Report(), Elapsed: time.Since(start)}
	res.Exited, res.Status = st.Exited()
	if why := v.Broken(); why != "" && err == nil {
		err = errors.New("verify stopped: " + why)
	}
	return res, err
}

// verifyFunctions runs the process freely to the entry of a function
// opts.Functions names, then single-steps every thread until that call
// returns, and again, until the process exits or stopNow says so.
func verifyFunctions(st *proc.Stop, v *compare.Verifier, opts VerifyOptions, each func(*proc.StepEvent) bool, stopNow func() bool, until *int, over *bool) error {
	space, err := st.Space()
	if err != nil {
		return err
	}
	entries := functionEntries(space, opts.Functions)
	if len(entries) == 0 {
		return fmt.Errorf("no function matches %s in the process's modules", strings.Join(opts.Functions, ", "))
	}
	for _, a := range entries {
		if err := st.InsertBreakpoint(a); err != nil {
			return err
		}
	}
	for _, a := range entries {
		defer st.RemoveBreakpoint(a)
	}
	// A thread already at an entry (run there by runToMain) starts the
	// first round.
	var first []int
	isEntry := map[uint64]bool{}
	for _, a := range entries {
		isEntry[a] = true
	}
	for _, tid := range st.Threads() {
		if regs, err := st.Regs(tid); err == nil && isEntry[regs.PC()] {
			first = append(first, tid)
			break
		}
	}
	for !stopNow() {
		hits := first
		first = nil
		if hits == nil {
			var exited bool
			hits, exited, err = runToBreakpoint(st, stopNow)
			if err != nil || exited || len(hits) == 0 {
				return err
			}
		}
		regs, err := st.Regs(hits[0])
		if err != nil {
			return err
		}
		v.Forget()
		v.Enter(hits[0], regs)
		*until = hits[0]
		for {
			if err := st.StepAll(each); err != nil {
				return err
			}
			if ex, _ := st.Exited(); ex {
				return nil
			}
			if !*over || stopNow() {
				break
			}
			*over = false
			if done, err := runOverCall(st, v, *until, isEntry, stopNow); err != nil || done {
				return err
			}
		}
	}
	return nil
}

// runOverCall runs the process at full speed until thread tid's innermost
// frame, a function the Verifier does not judge that the judged one has
// just called, returns: a breakpoint at its return address, hit by tid
// with SP at or above the frame's entry SP (a deeper recursive call
// returning there does not count), as gdb's next steps over a call. A
// judged function's entry hit by tid on the way (a callback, a signal
// handler) ends the run there: stepping goes on from it. Other threads'
// hits pass. done is set when the process exited or stop said so.
func runOverCall(st *proc.Stop, v *compare.Verifier, tid int, isEntry map[uint64]bool, stop func() bool) (done bool, err error) {
	ra, entrySP, ok := v.Top(tid)
	if !ok {
		return false, nil
	}
	if !isEntry[ra] {
		if err := st.InsertBreakpoint(ra); err != nil {
			return false, err
		}
		defer st.RemoveBreakpoint(ra)
	}
	for !stop() {
		hits, exited, err := runToBreakpoint(st, stop)
		if err != nil || exited {
			return true, err
		}
		for _, h := range hits {
			if h != tid {
				continue
			}
			regs, err := st.Regs(tid)
			switch {
			case err != nil:
			case regs.PC() == ra && regs.SP() >= entrySP:
				v.Returned(tid)
				return false, nil
			case isEntry[regs.PC()]:
				// A judged function entered from the one run over (a
				// callback, a signal handler): it is stepped and judged,
				// and so is the rest of the call.
				v.Resumed(tid)
				v.Enter(tid, regs)
				return false, nil
			}
		}
	}
	return true, nil
}

// runToBreakpoint resumes st until a thread hits a breakpoint (hits), the
// process exits (exited) or stop says so.
func runToBreakpoint(st *proc.Stop, stop func() bool) (hits []int, exited bool, err error) {
	if err := st.Resume(); err != nil {
		return nil, false, err
	}
	for {
		st.Wait(time.Hour, func() bool { return stop() || st.EventLocked() })
		if stop() || st.Detaching() || st.Event() {
			break
		}
	}
	pid := st.Pid()
	if ex, _ := st.Exited(); ex || !proc.ProcessExists(pid) {
		return nil, true, nil
	}
	if err := st.Interrupt(); err != nil {
		if ex, _ := st.Exited(); ex {
			return nil, true, nil
		}
		return nil, false, err
	}
	st.TakeSignal() // a signal that stopped it is passed on with the steps
	return st.Hits(), false, nil
}

// functionEntries returns the runtime addresses of the functions whose
// symbols match one of globs (path.Match), in every module of space.
func functionEntries(space *frames.Space, globs []string) []uint64 {
	seen := map[uint64]bool{}
	var out []uint64
	for _, m := range space.Modules.List() {
		f, err := m.File()
		if err != nil {
			continue
		}
		syms, _ := f.Symbols()
		dyn, _ := f.DynamicSymbols()
		for _, sy := range append(syms, dyn...) {
			if elf.ST_TYPE(sy.Info) != elf.STT_FUNC || sy.Value == 0 || sy.Section == elf.SHN_UNDEF {
				continue
			}
			for _, g := range globs {
				if ok, _ := path.Match(g, sy.Name); ok {
					if a := sy.Value + m.Bias; !seen[a] && m.Contains(a) {
						seen[a] = true
						out = append(out, a)
					}
					break
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// runToMain runs a program stopped at its first instruction to its main
// function, when it has one, and rereads its modules.
func runToMain(st *proc.Stop, stop func() bool) error {
	space, err := st.Space()
	if err != nil {
		return err
	}
	mains := functionEntries(space, []string{"main"})
	if len(mains) == 0 {
		return nil
	}
	for _, a := range mains {
		if err := st.InsertBreakpoint(a); err != nil {
			return err
		}
	}
	if stop == nil {
		stop = func() bool { return false }
	}
	_, exited, err := runToBreakpoint(st, stop)
	for _, a := range mains {
		st.RemoveBreakpoint(a)
	}
	if exited {
		return errors.New("the program exited before it reached main")
	}
	st.RefreshModules()
	return err
}

// keepLoaded returns the modules of now, each replaced by the module of
// old mapped at the same place from the same file, so that what was
// loaded of it (tables, symbols, code walks) is kept.
func keepLoaded(old, now *frames.Modules) *frames.Modules {
	byKey := map[string]*frames.Module{}
	for _, m := range old.List() {
		byKey[fmt.Sprintf("%s\x00%x\x00%x", m.Path, m.Start, m.End)] = m
	}
	var list []*frames.Module
	for _, m := range now.List() {
		if o := byKey[fmt.Sprintf("%s\x00%x\x00%x", m.Path, m.Start, m.End)]; o != nil {
			m = o
		}
		list = append(list, m)
	}
	return frames.NewModules(list...)
}

// WriteVerifyText writes a Verify result as text: totals, each method's
// judged and wrong instructions, the findings with the instructions before
// them, and the functions that were judged. name names the program.
func WriteVerifyText(w io.Writer, name string, res *VerifyResult) {
	r := res.Report
	pct := func(a, b uint64) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
	}
	rate := float64(r.Executed) / max(res.Elapsed.Seconds(), 1e-9)
	fmt.Fprintf(w, "verify %s: %s instructions executed, %s verified (%s), in %.1f s (%s instructions/s)\n",
		name, group(r.Executed), group(r.Verified), pct(r.Verified, r.Executed), res.Elapsed.Seconds(), group(uint64(rate)))
	fmt.Fprintf(w, "  %s distinct instructions in %s bytes of text; %s calls, %s returns, %s frames left without a return, %s signal handlers\n",
		group(uint64(r.Distinct)), group(r.TextSize), group(r.Calls), group(r.Returns), group(r.Resynced), group(r.Signals))
	if r.SteppedOver > 0 {
		fmt.Fprintf(w, "  %s calls into functions not verified run at full speed to their return\n", group(r.SteppedOver))
	}
	if res.Exited {
		if res.Status < 0 {
			fmt.Fprintf(w, "  the program was killed by signal %d\n", -res.Status)
		} else {
			fmt.Fprintf(w, "  the program exited with code %d\n", res.Status)
		}
	}
	fmt.Fprintf(w, "\n%-8s %14s %10s\n", "method", "judged", "wrong")
	for _, m := range compare.VerifyMethods {
		k := m.String()
		note := ""
		if m == frames.MethodCode {
			note = "  (a wrong instruction is the code oracle's bug)"
		}
		if m == frames.MethodFP {
			note = "  (only where the code keeps its CFA on FP)"
		}
		fmt.Fprintf(w, "%-8s %14s %10s%s\n", k, group(r.Judged[k]), group(r.Wrong[k]), note)
	}
	whys := make([]string, 0, len(r.NotJudged))
	for why := range r.NotJudged {
		whys = append(whys, why)
	}
	sort.Strings(whys)
	for _, why := range whys {
		fmt.Fprintf(w, "not judged: %s instructions where %s\n", group(r.NotJudged[why]), why)
	}
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "\nNo method disagreed with the execution.\n")
	} else {
		fmt.Fprintf(w, "\n%d findings:\n", len(r.Findings))
	}
	for _, fd := range r.Findings {
		label := fd.Method.String()
		if fd.Oracle {
			label += " (oracle bug)"
		}
		got := fmt.Sprintf("%#x", fd.Got)
		if fd.Err != "" {
			got = fd.Err
		}
		if fd.Level > 0 {
			fmt.Fprintf(w, "  %s %s of frame %d, return address %#x in <%s> in %s, seen %d times (the whole stack unwound at calls and returns)\n",
				label, strings.ToUpper(fd.What), fd.Level, fd.PC, fd.Function, fd.Module, fd.Count)
		} else {
			fmt.Fprintf(w, "  %s %s at %#x <%s> in %s, executed %d times: %s\n", label, strings.ToUpper(fd.What), fd.PC, fd.Function, fd.Module, fd.Count, fd.Insn)
		}
		fmt.Fprintf(w, "      execution %#x, %s %s (row %s)\n", fd.Truth, fd.Method.String(), got, fd.Rule)
		for _, b := range fd.Before {
			fmt.Fprintf(w, "      after %s\n", b)
		}
	}
	var judged []*compare.VerifyFunc
	for _, f := range r.Functions {
		if f.Verified > 0 {
			judged = append(judged, f)
		}
	}
	if len(judged) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%-40s %12s %12s  %s\n", "function", "executed", "verified", "first wrong PC")
	sort.SliceStable(judged, func(i, j int) bool { return len(judged[i].FirstWrong) > len(judged[j].FirstWrong) })
	for i, f := range judged {
		if i == 40 && len(f.FirstWrong) == 0 {
			fmt.Fprintf(w, "(%d more functions, none wrong)\n", len(judged)-i)
			break
		}
		var wrong []string
		for _, m := range compare.VerifyMethods {
			if pc, ok := f.FirstWrong[m.String()]; ok {
				wrong = append(wrong, fmt.Sprintf("%s %#x", m, pc))
			}
		}
		fmt.Fprintf(w, "%-40s %12s %12s  %s\n", clipName(f.Name+" ("+f.Module+")", 40), group(f.Executed), group(f.Verified), strings.Join(wrong, ", "))
	}
}

func clipName(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// group formats n with thousands separators.
func group(n uint64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// VerifyProcess runs Verify on process pid (attached, then detached and
// left running as it was) or, when pid is 0, on the program argv started
// for it (killed at the end if it has not exited: sfdbg started it).
func VerifyProcess(argv []string, pid int, opts VerifyOptions) (*VerifyResult, error) {
	if pid != 0 {
		st, err := proc.Seize(pid)
		if err != nil {
			return nil, err
		}
		res, err := Verify(st, opts)
		if exited, _ := st.Exited(); !exited {
			if derr := st.Detach(); err == nil {
				err = derr
			}
		}
		return res, err
	}
	t, err := Launch(argv, "")
	if err != nil {
		return nil, err
	}
	lt := t.(*liveTarget)
	if len(opts.Functions) > 0 {
		// The libraries are loaded by the time main runs: run there at
		// full speed, so that their functions can be found.
		if err := runToMain(lt.st, opts.Stop); err != nil {
			lt.Kill()
			return nil, err
		}
	}
	res, err := Verify(lt.st, opts)
	if kerr := lt.Kill(); err == nil && (res == nil || !res.Exited) {
		err = kerr
	}
	return res, err
}

// cmdVerify implements the REPL's "verify [N]": Verify on the live
// process for N instructions (default 10,000; Ctrl-C stops), its report,
// then the selected frame as after stepi.
func cmdVerify(s *Session, args string) error {
	if err := s.canRun(); err != nil {
		return err
	}
	lt, ok := s.tgt.(*liveTarget)
	if !ok {
		return errors.New("verify needs a running process: a core or a snapshot has no execution to check")
	}
	n, err := parseCount(args, 10000)
	if err != nil {
		return err
	}
	tid := s.thread
	_, err = s.resume(func() (Event, error) {
		lt.resumed()
		lt.interrupt.Store(false)
		res, err := Verify(lt.st, VerifyOptions{MaxInstructions: uint64(n),
			Stop: func() bool { return lt.interrupt.Load() || s.quitting.Load() }})
		if res != nil {
			WriteVerifyText(s.ui, fmt.Sprintf("process %d", lt.st.Pid()), res)
		}
		if err != nil {
			return Event{}, err
		}
		if ev, err, ok := lt.ended(); ok {
			return ev, err
		}
		return Event{Kind: EventStopped, Thread: tid}, nil
	})
	if err != nil || s.tgt == nil {
		return err
	}
	return s.printSelected()
}
