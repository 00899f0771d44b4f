package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sfdbg/sfdbg/cmd/sfdbg/demotarget"
	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger"
	"github.com/sfdbg/sfdbg/debugger/proc"
)

func init() {
	c := &command{
		name:    "demo",
		usage:   "demo [--mode spin|threads|sleep|signal|fault|both|all] [--json]",
		summary: "run the bundled SFrame programs, show their compared backtraces and a real SFrame fault, and clean up",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		mode := fs.String("mode", "all", "what the bundled program does: spin (one deep stack), threads (four threads), sleep (stopped inside libc), signal (a signal handler on the stack), fault (GNU ld's wrong SFrame for a .plt.got stub, found by check and live), both (spin, then threads), or all (spin, threads, fault)")
		asJSON := fs.Bool("json", false, "print the backtraces as JSON, without the explanations")
		if st, ok := parseFlags(fs, args); !ok {
			return st
		}
		if fs.NArg() != 0 {
			fs.Usage()
			return exitError
		}
		modes := []string{*mode}
		switch *mode {
		case "both":
			modes = []string{"spin", "threads"}
		case "all":
			modes = []string{"spin", "threads", "fault"}
		case "spin", "threads", "sleep", "signal", "fault":
		default:
			fmt.Fprintf(stderr, "sfdbg: demo: unknown mode %q (spin, threads, sleep, signal, fault, both, all)\n", *mode)
			return exitError
		}
		return runDemo(modes, *asJSON, stdout, stderr)
	}
	register(c)
}

// runDemo writes the embedded program to a temporary directory, and for
// each mode starts it, waits until it is in its deep stack, stops it with
// the lean ptrace path, prints every thread's compared backtrace, and kills
// it. The temporary directory is removed and no process is left behind,
// also on SIGINT or SIGTERM.
func runDemo(modes []string, asJSON bool, stdout, stderr io.Writer) int {
	dir, err := os.MkdirTemp("", "sfdbg-demo-")
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg: demo: %v\n", err)
		return exitError
	}
	// cur is the running demo program; the signal goroutine's cleanup
	// kills it too, hence the lock.
	var mu sync.Mutex
	var cur *exec.Cmd
	stopCur := func() {
		mu.Lock()
		defer mu.Unlock()
		if cur != nil && cur.Process != nil {
			cur.Process.Kill()
			cur.Wait()
		}
		cur = nil
	}
	cleanup := func() {
		stopCur()
		os.RemoveAll(dir)
	}
	defer cleanup()
	// SIGPIPE too: "sfdbg demo | head" must not kill sfdbg before it has
	// killed the demo program and removed its directory.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case sig := <-sigs:
			cleanup()
			if sig != syscall.SIGPIPE {
				fmt.Fprintf(stderr, "sfdbg: demo: %v: stopped the demo program and removed %s\n", sig, dir)
			}
			os.Exit(128 + int(sig.(syscall.Signal)))
		case <-done:
		}
	}()

	bin := filepath.Join(dir, demotarget.Name)
	if err := os.WriteFile(bin, demotarget.Binary, 0o755); err != nil {
		fmt.Fprintf(stderr, "sfdbg: demo: %v\n", err)
		return exitError
	}
	if !asJSON {
		fmt.Fprint(stdout, demoIntro)
		fmt.Fprintf(stdout, "The bundled program %s (testdata/src/deep.c, built with gcc -O2\n", demotarget.Name)
		fmt.Fprintf(stdout, "-fomit-frame-pointer and GNU as --gsframe: SFrame version 3) is written to\n%s and started.\n\n", dir)
		fmt.Fprint(stdout, debugger.CompareLegend)
	}
	status := exitOK
	for _, mode := range modes {
		if mode == "fault" {
			// The fault is the demo's point: its disagreement is expected
			// and does not change the status.
			if !asJSON {
				fmt.Fprintf(stdout, "\n=== mode fault: %s\n", demoModeText[mode])
			}
			setCur := func(c *exec.Cmd) { mu.Lock(); cur = c; mu.Unlock() }
			if err := demoFault(dir, asJSON, stdout, setCur, stopCur); err != nil {
				fmt.Fprintf(stderr, "sfdbg: demo: %v\n", err)
				return exitError
			}
			continue
		}
		c, err := startDemo(bin, mode)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: demo: %v\n", err)
			return exitError
		}
		mu.Lock()
		cur = c
		mu.Unlock()
		if !asJSON {
			fmt.Fprintf(stdout, "\n=== mode %s: %s\n", mode, demoModeText[mode])
			fmt.Fprintf(stdout, "Process %d printed \"ready\"; stopping every thread (PTRACE_SEIZE + PTRACE_INTERRUPT),\nunwinding, and resuming it:\n\n", c.Process.Pid)
		}
		stop, err := proc.Seize(c.Process.Pid)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: demo: %v\n", err)
			return exitError
		}
		pt, err := debugger.TraceProcess(stop, compare.Options{})
		stop.Detach()
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: demo: %v\n", err)
			return exitError
		}
		if asJSON {
			pt.WriteJSON(stdout)
		} else {
			pt.WriteText(stdout, compare.TextOptions{Style: compare.Style{Color: isTerminal(stdout)}})
		}
		if pt.Disagreements() > 0 {
			status = exitFindings
		}
		stopCur()
	}
	if !asJSON {
		fmt.Fprintf(stdout, "\nThe demo program was killed and %s removed.\n", dir)
		sfdbg := sfdbgCommand()
		fmt.Fprintf(stdout, "Try it on a process of your own: %s bt PID,\n", sfdbg)
		fmt.Fprintf(stdout, "or %s attach PID and then \"bt\", \"info frame\", \"info sframe\".\n", sfdbg)
	}
	return status
}

// demoIntro says, before anything else, what the demo shows and how to
// read it, for someone who has never heard of SFrame.
const demoIntro = `SFrame is a small table that GNU as (--gsframe) puts into a program's
.sframe section so that profilers and the kernel can walk its call stack
quickly, without DWARF or frame pointers. For each instruction it says
where the caller's frame is: the CFA (canonical frame address, the stack
pointer just before the call), with the return address and the saved
frame pointer at fixed offsets from it. This demo stops a small program
deep in a chain of calls and walks its stack with SFrame, with DWARF CFI
(the reference gdb uses) and with frame pointers, all from the same
registers. For every frame the SFRAME column then says whether SFrame
finds the same caller as CFI (agree), another one (DISAGREE, explained
below the stack), or has no data for that code (not covered).

`

// sfdbgCommand is how the user runs sfdbg: "sfdbg" when it is installed
// on $PATH, else "go run ./cmd/sfdbg" (the README's way, from the
// repository).
func sfdbgCommand() string {
	if _, err := exec.LookPath("sfdbg"); err == nil {
		return "sfdbg"
	}
	return "go run ./cmd/sfdbg"
}

var demoModeText = map[string]string{
	"spin": "one deep stack,\n    main -> run_chain -> level1 -> level2_alloca -> level3_indirect\n" +
		"    -> level4_recursive x3 -> level5_bigframe -> level6_leafish -> spin_here",
	"threads": "three threads spinning in spin_here at different depths;\n    the main thread sleeps in libc",
	"sleep":   "the main chain, stopped inside libc's nanosleep (no SFrame there: CFI takes over)",
	"signal":  "a SIGALRM handler running on top of the interrupted chain",
	"fault":   "a real fault that sfdbg exists to find: GNU ld's SFrame for .plt.got stubs",
}

// startDemo starts the demo program in mode and waits for its "ready".
func startDemo(bin, mode string) (*exec.Cmd, error) {
	cmd := exec.Command(bin, mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	ready := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(out).ReadString('\n')
		if err == nil && strings.TrimSpace(line) != "ready" {
			err = fmt.Errorf("unexpected output %q", line)
		}
		ready <- err
	}()
	select {
	case err := <-ready:
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("%s %s: %w", filepath.Base(bin), mode, err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, errors.New("the demo program did not get ready within 10 s")
	}
	// "ready" is written just before the last call: give the program a
	// moment to get from write(2) into its deepest function.
	time.Sleep(50 * time.Millisecond)
	return cmd, nil
}
