package main

import (
	"bytes"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger"
	"github.com/sfdbg/sfdbg/debugger/proc"
)

func init() {
	c := &command{
		name:    "bt",
		usage:   "bt [--method " + compare.MethodNames("|") + "|all] [--json] [--max-depth N] [--independent] PID",
		summary: "print every thread's backtrace, past main too, like eu-stack -p; every other method checked against CFI at every frame",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		tf := addTraceFlags(fs)
		pos, st, ok := parseInterspersed(fs, args)
		if !ok {
			return st
		}
		if len(pos) > 1 {
			fmt.Fprintf(stderr, "sfdbg: bt: one process ID expected, got %d (%s); run sfdbg bt once per process\n", len(pos), strings.Join(pos, " "))
			return exitError
		}
		if len(pos) != 1 {
			fs.Usage()
			return exitError
		}
		opts, err := tf.options()
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: bt: %v\n", err)
			return exitError
		}
		pid, err := strconv.Atoi(pos[0])
		if err != nil || pid <= 0 {
			fmt.Fprintf(stderr, "sfdbg: bt: %q is not a process ID\n", pos[0])
			return exitError
		}
		// A one-shot run allocates a few MB (CFI tables) and exits: garbage
		// collection would only slow it down.
		debug.SetGCPercent(800)
		// Stop, unwind every thread, name the frames, resume. The frames
		// are named while the threads are still stopped, as eu-stack and
		// gdb do: once resumed, a busy process's threads take the CPUs
		// the naming needs (on 2 cores with 3 spinning threads, naming
		// after the resume took 8-18 ms instead of 2-3). The hold is
		// bounded: the output waits in memory up to holdBytes, and the
		// process is resumed after holdFor whatever the naming's state
		// (naming reads the module files, not the process).
		t0 := time.Now()
		stop, err := proc.Seize(pid)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: %v\n", err)
			return exitError
		}
		t1 := time.Now()
		pt, err := debugger.TraceProcess(stop, opts)
		t2 := time.Now()
		if err != nil {
			if derr := stop.Detach(); derr != nil {
				fmt.Fprintf(stderr, "sfdbg: bt: %v\n", derr)
			}
			fmt.Fprintf(stderr, "sfdbg: bt: %v\n", err)
			return exitError
		}
		out := newHeldWriter(stdout, holdBytes, stop.Detach)
		if holdFor > 0 {
			hold := time.AfterFunc(holdFor, func() { out.release("after " + holdFor.String()) })
			defer hold.Stop()
		} else {
			out.release("no hold") // the tests' way to name after the resume
		}
		status := tf.print(pt, "bt", out, stderr)
		if btNamed != nil {
			btNamed(pid)
		}
		t3 := time.Now()
		derr := out.release("to the end")
		if out.err != nil && status != exitError {
			fmt.Fprintf(stderr, "sfdbg: bt: %v\n", out.err)
			status = exitError
		}
		if derr != nil {
			fmt.Fprintf(stderr, "sfdbg: bt: %v\n", derr)
			status = exitError
		}
		logrus.Debugf("bt: seize %v, unwind %v, name %v, detach %v, resumed after %v (held %s), total %v",
			t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), out.resumeTook, out.releasedAt.Sub(t0), out.why, time.Since(t0))
		return status
	}
	register(c)
}

// How long, and for how many bytes of output, bt keeps the process
// stopped while it names the frames (see bt's run). Variables for the
// tests.
var (
	holdFor   = 250 * time.Millisecond
	holdBytes = 4 << 20
	// btNamed, when set (by tests), runs after the frames are named and
	// before the process is resumed, unless the hold ended earlier.
	btNamed func(pid int)
)

// heldWriter keeps what is written in memory until release, which runs
// resume (once) and then writes it all out; later writes go straight out.
// Writing more than limit bytes releases it first. Safe for concurrent
// use: a timer may release it while the trace is being written.
type heldWriter struct {
	mu         sync.Mutex
	out        io.Writer
	buf        bytes.Buffer
	limit      int
	resume     func() error
	released   bool
	resumeErr  error
	releasedAt time.Time
	resumeTook time.Duration
	why        string // what released it: "to the end", "past N bytes", "after 250ms"
	err        error  // the first error writing to out
}

func newHeldWriter(out io.Writer, limit int, resume func() error) *heldWriter {
	return &heldWriter{out: out, limit: limit, resume: resume}
}

func (w *heldWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.released {
		if w.buf.Len()+len(p) <= w.limit {
			return w.buf.Write(p)
		}
		w.releaseLocked(fmt.Sprintf("past %d bytes", w.limit))
	}
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.out.Write(p)
	w.err = err
	return n, err
}

// release resumes the process, if not done yet, and writes out what was
// held; it returns resume's error. why says what released it, for the
// debug log.
func (w *heldWriter) release(why string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.releaseLocked(why)
	return w.resumeErr
}

func (w *heldWriter) releaseLocked(why string) {
	if w.released {
		return
	}
	w.released, w.why = true, why
	t0 := time.Now()
	w.resumeErr = w.resume()
	w.releasedAt = time.Now()
	w.resumeTook = w.releasedAt.Sub(t0)
	if w.buf.Len() > 0 {
		_, w.err = w.out.Write(w.buf.Bytes())
		w.buf = bytes.Buffer{}
	}
}
