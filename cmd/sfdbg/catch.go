package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger"
)

// Exit statuses of catch when the program did not run, as env(1) and
// timeout(1) give them: the program's own statuses are passed on.
const (
	exitCatchFailed   = 125 // sfdbg could not trace the program
	exitCannotExecute = 126 // found but not executable
	exitNotFound      = 127 // no such program
)

func init() {
	c := &command{
		name:    "catch",
		usage:   "catch [--all-threads] [--follow-fork] [--json] [-o FILE] [--method M] [--max-depth N] [--] PROG [ARGS...]",
		summary: "run a program and, if a fatal signal kills it, print the backtrace compared as bt does (catchsegv with SFrame)",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		allThreads := fs.Bool("all-threads", false, "print every thread's backtrace, not only the crashing thread's")
		followFork := fs.Bool("follow-fork", false, "also trace the processes the program forks, and report their crashes")
		output := fs.String("o", "", "write the report to `FILE` instead of standard error (with --json, keeps it apart from the program's output)")
		tf := addTraceFlags(fs)
		// Flags end at the program: "sfdbg catch prog --json" passes --json to prog.
		if st, ok := parseFlags(fs, args); !ok {
			return st
		}
		argv, ok := programArgs(fs)
		if !ok {
			return exitError
		}
		topts, err := tf.options()
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: catch: %v\n", err)
			return exitError
		}
		// The report goes to standard error, as catchsegv's did: the
		// program's standard output stays its own (sfdbg catch -- prog | sort).
		out := stderr
		if *output != "" {
			f, err := os.Create(*output)
			if err != nil {
				fmt.Fprintf(stderr, "sfdbg: catch: %v\n", err)
				return exitError
			}
			defer f.Close()
			out = f
		}
		return runCatch(argv, debugger.CatchOptions{Trace: topts, AllThreads: *allThreads, FollowFork: *followFork},
			*tf.asJSON, out, stderr)
	}
	register(c)
}

// runCatch runs argv under debugger.Catch, printing each crash as it
// happens (text) or the whole run at the end (JSON), and returns the
// program's status as a shell gives it.
func runCatch(argv []string, opts debugger.CatchOptions, asJSON bool, out, stderr io.Writer) int {
	textOpts := compare.TextOptions{Style: compare.Style{Color: isTerminal(out)}}
	if !asJSON {
		opts.OnCrash = func(c *debugger.Crash) { c.WriteText(out, textOpts) }
	}
	// Like a shell waiting for its child: the terminal's SIGINT and
	// SIGQUIT go to the whole process group, the program decides what
	// they do, and sfdbg keeps tracing until it ends. SIGTERM and SIGHUP
	// sent to sfdbg alone are passed to the program. SIGPIPE too: a
	// report cut short ("sfdbg catch prog 2>&1 | head") must not kill
	// sfdbg while it holds the program; the write fails instead.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	defer signal.Stop(sigs)
	started := make(chan int, 1)
	opts.Started = func(pid int) { started <- pid }
	done := make(chan struct{})
	defer close(done)
	go func() {
		pid := 0
		for {
			select {
			case <-done:
				return
			case pid = <-started:
			case s := <-sigs:
				if pid > 0 && (s == syscall.SIGTERM || s == syscall.SIGHUP) {
					syscall.Kill(pid, s.(syscall.Signal))
				}
			}
		}
	}()
	res, err := debugger.Catch(argv, opts)
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg: catch: %v\n", err)
		switch {
		case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
			return exitNotFound
		case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOEXEC):
			return exitCannotExecute
		}
		return exitCatchFailed
	}
	if asJSON {
		if err := compare.WriteJSON(out, res.Document(argv)); err != nil {
			fmt.Fprintf(stderr, "sfdbg: catch: %v\n", err)
		}
	} else if l := res.TerminatedLine(); l != "" {
		fmt.Fprintf(out, "\n%s\n", l)
	}
	return res.Status()
}
