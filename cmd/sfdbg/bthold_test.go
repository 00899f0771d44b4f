package main

import (
	"bytes"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHeldWriterHoldsUntilRelease checks that what is written waits, in
// order, until release resumes (once) and writes it out, and that later
// writes go straight out.
func TestHeldWriterHoldsUntilRelease(t *testing.T) {
	var out bytes.Buffer
	resumed := 0
	w := newHeldWriter(&out, 1<<10, func() error { resumed++; return nil })
	w.Write([]byte("one\n"))
	w.Write([]byte("two\n"))
	if out.Len() != 0 || resumed != 0 {
		t.Fatalf("before release: %q written, resumed %d times", out.String(), resumed)
	}
	if err := w.release("to the end"); err != nil {
		t.Fatal(err)
	}
	w.release("again")
	w.Write([]byte("three\n"))
	if out.String() != "one\ntwo\nthree\n" || resumed != 1 || w.why != "to the end" {
		t.Errorf("after release: %q, resumed %d times, released %q", out.String(), resumed, w.why)
	}
}

// TestHeldWriterReleasesPastItsLimit checks that a write that would hold
// more than the limit resumes first and keeps the order of the output.
func TestHeldWriterReleasesPastItsLimit(t *testing.T) {
	var out bytes.Buffer
	var atResume string
	w := newHeldWriter(&out, 8, func() error { atResume = out.String(); return nil })
	w.Write([]byte("12345"))
	w.Write([]byte("6789"))
	if atResume != "" || out.String() != "123456789" || !strings.HasPrefix(w.why, "past 8 bytes") {
		t.Errorf("output %q (%q when resumed), released %q", out.String(), atResume, w.why)
	}
}

// TestHeldWriterReportsErrors checks that resume's error is returned by
// release and a write error is kept.
func TestHeldWriterReportsErrors(t *testing.T) {
	w := newHeldWriter(failWriter{}, 1<<10, func() error { return errors.New("detach failed") })
	w.Write([]byte("x"))
	if err := w.release("to the end"); err == nil || err.Error() != "detach failed" {
		t.Errorf("release: %v", err)
	}
	if w.err == nil {
		t.Error("the write error was lost")
	}
	if _, err := w.Write([]byte("y")); err == nil {
		t.Error("a write after a failed one succeeded")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestHeldWriterConcurrentRelease releases from another goroutine (bt's
// timer) while writes go on: every byte comes out once, in order (run
// with -race).
func TestHeldWriterConcurrentRelease(t *testing.T) {
	var out bytes.Buffer
	w := newHeldWriter(&out, 1<<20, func() error { return nil })
	var want strings.Builder
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(time.Millisecond)
		w.release("timer")
	}()
	for i := range 2000 {
		s := strconv.Itoa(i) + "\n"
		want.WriteString(s)
		w.Write([]byte(s))
	}
	wg.Wait()
	w.release("to the end")
	if out.String() != want.String() {
		t.Errorf("output differs: %d bytes, want %d", out.Len(), want.Len())
	}
}

// threadStates returns the state letter of every thread of pid.
func threadStates(pid int) string {
	ents, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	var s []byte
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + e.Name() + "/stat")
		if i := bytes.LastIndexByte(b, ')'); err == nil && i >= 0 && i+2 < len(b) {
			s = append(s, b[i+2])
		}
	}
	return string(s)
}

// TestBtNamesFramesWhileStopped checks on a threaded process that bt names
// the frames while every thread is still stopped (as eu-stack and gdb
// do) and resumes it afterwards; and that without a hold (the process
// resumed before any frame is named), the trace is the same.
func TestBtNamesFramesWhileStopped(t *testing.T) {
	path, _ := filepathAbs(dumpFixture(t, "deep-v3-O2"))
	fx := startFixture(t, path, "threads")
	pid := fx.Process.Pid
	requirePtrace(t, pid)
	var during string
	btNamed = func(pid int) { during = threadStates(pid) }
	oldFor := holdFor
	holdFor = time.Minute // naming under -race or load may take longer than bt's 250 ms
	defer func() { btNamed, holdFor = nil, oldFor }()
	code, held, errOut := runSfdbg("bt", "--method", "sframe", strconv.Itoa(pid))
	if code > exitFindings {
		t.Fatalf("bt: status %d: %s", code, errOut)
	}
	if during == "" || strings.Trim(during, "t") != "" {
		t.Errorf("threads in states %q while the frames were named, want every one 't' (traced stop)", during)
	}
	checkRunning(t, pid)

	holdFor = 0
	during = ""
	code, early, errOut := runSfdbg("bt", "--method", "sframe", strconv.Itoa(pid))
	if code > exitFindings {
		t.Fatalf("bt with no hold: status %d: %s", code, errOut)
	}
	checkRunning(t, pid)
	if strings.Contains(during, "t") {
		t.Errorf("threads in states %q after the hold ended, want none stopped", during)
	}
	// The spinning threads' PCs move between the runs: compare the
	// function names.
	frame := regexp.MustCompile(`(?m)^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(`)
	names := func(s string) string {
		var out []string
		for _, m := range frame.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		return strings.Join(out, " ")
	}
	if names(held) != names(early) || names(held) == "" {
		t.Errorf("frames differ when the hold ends at once:\n%s\nheld to the end:\n%s", early, held)
	}
}
