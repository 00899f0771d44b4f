package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger"
)

func init() {
	c := &command{
		name:    "sample",
		usage:   "sample [-n N] [--interval D] [--json] PID",
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
	stop, err := debugger.Seize(pid)
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

	var bar *progressbar.ProgressBar
	if isTerminal(stderr) && !*jsonOut {
		bar = progressbar.NewOptions(*n, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("sampling"),
			progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	agg := compare.NewAggregate()
	opts := compare.Options{Independent: *independent}
	start := time.Now()
	interrupted := false
	exited := false
	// The loop runs on the thread that traces the process: each stop and
	// resume then needs no hand-over between threads.
	stop.Run(func() {
	loop:
		for i := 0; i < *n; i++ {
			if i > 0 {
				if err := stop.Resume(); err != nil {
					fmt.Fprintf(stderr, "sfdbg sample: %v\n", err)
					break
				}
				if *interval > 0 {
					select {
					case <-sigs:
						interrupted = true
						break loop
					case <-time.After(*interval):
					}
				}
				if err := stop.Interrupt(); err != nil {
					// The process exited (or cannot be stopped): report what we have.
					exited = true
					fmt.Fprintf(stderr, "sfdbg sample: %v\n", err)
					break
				}
			}
			space, err := stop.Space()
			if err != nil {
				fmt.Fprintf(stderr, "sfdbg sample: %v\n", err)
				break
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
			case <-sigs:
				interrupted = true
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
		if interrupted {
			fmt.Fprintln(stdout, "interrupted: partial report")
		}
		if exited {
			fmt.Fprintln(stdout, "the process stopped being sampleable: partial report")
		}
		agg.WriteText(stdout, compare.Style{Color: isTerminal(stdout)})
		fmt.Fprintf(stdout, "elapsed %v (%.0f samples/s, interval %v)\n", elapsed.Round(time.Millisecond),
			float64(agg.Samples)/elapsed.Seconds(), *interval)
	}
	if agg.Disagreements() > 0 {
		return exitFindings
	}
	return exitOK
}
