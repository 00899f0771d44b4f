package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

func init() {
	c := &command{
		name:    "sample",
		usage:   "sample [-n N] [--interval D] [--independent=false] [--json] PID",
		summary: "stop a process N times, compare every thread's stack three ways each time, print the aggregate",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int { return runSample(c, args, stdout, stderr) }
	register(c)
}

func runSample(c *command, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(c, stderr)
	n := fs.Int("n", 100, "number of samples")
	interval := fs.Duration("interval", 10*time.Millisecond, "time the process runs between samples")
	jsonOut := fs.Bool("json", false, "print the aggregate as JSON")
	independent := fs.Bool("independent", true, "also run each method's own trace and match frames")
	if st, ok := parseFlags(fs, args); !ok {
		return st
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitError
	}
	pid, err := strconv.Atoi(fs.Arg(0))
	if err != nil || pid <= 0 {
		fmt.Fprintf(stderr, "sfdbg sample: %q is not a process ID\n", fs.Arg(0))
		return exitError
	}
	stop, err := proc.Seize(pid)
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg sample: %v\n", err)
		return exitError
	}
	// Whatever happens from here on, the process is detached and running.
	defer stop.Detach()
	defer func() {
		if p := recover(); p != nil {
			stop.Detach()
			panic(p)
		}
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	var bar *progressLine
	if isTerminal(stderr) && !*jsonOut {
		bar = newProgressLine(stderr, "sampling", *n)
	}
	agg := compare.NewAggregate()
	opts := compare.Options{Independent: *independent}
	start := time.Now()
	var interrupted os.Signal
	exited, reloaded, noReloadUntil := false, 0, 0
	var execs []string
	failed := false // stopped early by an error: the report is partial
	// The loop runs on the thread that traces the process: each stop and
	// resume then needs no hand-over between threads.
	stop.Run(func() {
	loop:
		for i := 0; i < *n; i++ {
			if i > 0 {
				if err := stop.Resume(); err != nil {
					fmt.Fprintf(stderr, "sfdbg sample: %v\n", err)
					failed = true
					break
				}
				if *interval > 0 {
					// The process runs; the events of its threads (new
					// threads, exits, an exec) are handled meanwhile.
					stop.Wait(*interval, func() bool {
						select {
						case interrupted = <-sigs:
							return true
						default:
							return false
						}
					})
					if interrupted != nil {
						break loop
					}
				}
				if err := stop.Interrupt(); err != nil {
					// The process exited (or cannot be stopped): report
					// what was seen.
					if errors.Is(err, proc.ErrExited) {
						exited = true
					} else {
						fmt.Fprintf(stderr, "sfdbg sample: %v\n", err)
						failed = true
					}
					break
				}
			}
			for _, e := range stop.Execs() {
				// The thread that called execve now runs the new program
				// as the only thread, under the process ID.
				execs = append(execs, fmt.Sprintf("process %d executed a new program, %s, before sample %d (thread %d called execve); the samples from then on are of the new program", pid, e.Path, i+1, e.Thread))
				fmt.Fprintf(stderr, "sfdbg sample: %s\n", execs[len(execs)-1])
			}
			space, err := stop.Space()
			if err != nil {
				fmt.Fprintf(stderr, "sfdbg sample: %v\n", err)
				failed = true
				break
			}
			if i >= noReloadUntil && stale(stop, space) {
				// A PC in no known module: the process executed a new
				// program (or mapped new code): read its maps again. Code
				// in no file (JIT) stays outside every module: then wait
				// 100 samples before trying again.
				stop.RefreshModules()
				if space, err = stop.Space(); err != nil {
					fmt.Fprintf(stderr, "sfdbg sample: %v\n", err)
					failed = true
					break
				}
				if stale(stop, space) {
					noReloadUntil = i + 100
				} else {
					reloaded++
					fmt.Fprintf(stderr, "sfdbg sample: sample %d: process %d runs code outside the modules it had mapped (a new program after exec, or a new library): its modules were read again\n", i, pid)
				}
			}
			for _, tid := range stop.Threads() {
				regs, err := stop.Regs(tid)
				if err != nil {
					continue
				}
				t := compare.Unwind(space, regs, opts)
				t.Thread = tid
				agg.Add(i, t)
			}
			agg.Samples++
			if bar != nil {
				bar.Add(1)
			}
			select {
			case interrupted = <-sigs:
				break loop
			default:
			}
		}
	})
	elapsed := time.Since(start)
	if bar != nil {
		bar.Finish()
	}
	stop.Detach()
	if *jsonOut {
		compare.WriteJSON(stdout, agg)
	} else {
		if interrupted != nil {
			fmt.Fprintf(stdout, "interrupted by %v: partial report\n", interrupted)
		}
		if exited {
			fmt.Fprintf(stdout, "process %d exited after %d samples: partial report\n", pid, agg.Samples)
		}
		if failed {
			fmt.Fprintf(stdout, "sampling stopped by an error after %d of %d samples: partial report\n", agg.Samples, *n)
		}
		for _, e := range execs {
			fmt.Fprintln(stdout, e)
		}
		if reloaded > 0 {
			fmt.Fprintf(stdout, "the process's modules were read again %d times (exec or new code)\n", reloaded)
		}
		agg.WriteText(stdout, compare.Style{Color: isTerminal(stdout)})
		fmt.Fprintf(stdout, "elapsed %v (%.0f samples/s, interval %v)\n", elapsed.Round(time.Millisecond),
			float64(agg.Samples)/elapsed.Seconds(), *interval)
	}
	switch {
	case interrupted != nil:
		return 128 + int(interrupted.(syscall.Signal))
	case failed:
		return exitError
	case agg.Disagreements() > 0:
		return exitFindings
	}
	return exitOK
}

// stale reports whether the PC of some stopped thread lies in no module of
// space: the module list is out of date.
func stale(stop *proc.Stop, space *frames.Space) bool {
	for _, tid := range stop.Threads() {
		if regs, err := stop.Regs(tid); err == nil && space.Modules.Find(regs.PC()) == nil {
			return true
		}
	}
	return false
}
