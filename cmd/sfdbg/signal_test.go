package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY returns the master and the slave of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// session is a running sfdbg whose output is collected; wait blocks until
// a line containing want has appeared.
type session struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	seen chan struct{}
}

func (s *session) collect(r io.Reader) {
	br := bufio.NewReader(r)
	buf := make([]byte, 4096)
	for {
		n, err := br.Read(buf)
		s.mu.Lock()
		s.out.Write(buf[:n])
		s.mu.Unlock()
		select {
		case s.seen <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

func (s *session) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

func (s *session) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for !strings.Contains(s.text(), want) {
		select {
		case <-s.seen:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no %q within 15 s; output:\n%s", want, s.text())
		}
	}
}

// waitPrompt waits until sfdbg prompts for the next command (input typed
// before the prompt is lost when line editing puts the terminal in raw
// mode).
func (s *session) waitPrompt(t *testing.T) {
	t.Helper()
	s.waitPromptAfter(t, -1)
}

// waitPromptAfter waits for the prompt that answers a line typed when the
// output was n bytes long: the line's end (a newline past n) must have been
// echoed before a prompt counts, so the prompt the line was typed at is
// not taken for the next one however slowly the terminal echoes. n < 0
// takes any prompt.
func (s *session) waitPromptAfter(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(15 * time.Second)
	answered := func(text string) bool {
		return n < 0 || (len(text) > n && strings.Contains(text[n:], "\n"))
	}
	for text := s.text(); !answered(text) || !strings.HasSuffix(text, "(sfdbg) "); text = s.text() {
		select {
		case <-s.seen:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no prompt within 15 s; output:\n%s", s.text())
		}
	}
}

// exit waits for sfdbg to end (at most limit) and returns its status.
func (s *session) exit(t *testing.T, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(limit):
		s.cmd.Process.Kill()
		<-done
		t.Fatalf("sfdbg did not end within %v of the signal; output:\n%s", limit, s.text())
	}
	return -1
}

func noPanic(t *testing.T, out string) {
	t.Helper()
	for _, bad := range []string{"panic", "goroutine ", "internal error", "nil pointer"} {
		if strings.Contains(out, bad) {
			t.Errorf("output has %q:\n%s", bad, out)
		}
	}
}

func TestSIGTERMDuringALongStepiDetachesPromptly(t *testing.T) {
	fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "spin")
	pid := fx.Process.Pid
	requirePtrace(t, pid)
	s := startPiped(t, "attach", "-batch", "-ex", "si 1000000", strconv.Itoa(pid))
	s.waitFor(t, "Attached to process")
	time.Sleep(500 * time.Millisecond) // well into the million steps
	s.cmd.Process.Signal(syscall.SIGTERM)
	code := s.exit(t, 5*time.Second)
	if code != 128+int(syscall.SIGTERM) {
		t.Errorf("status %d, want 143; output:\n%s", code, s.text())
	}
	noPanic(t, s.text())
	checkRunning(t, pid)
}

// startPiped starts sfdbg with args, its output collected through a pipe
// (closed when the test ends, which ends the collection).
func startPiped(t *testing.T, args ...string) *session {
	t.Helper()
	s := &session{seen: make(chan struct{}, 1)}
	s.cmd = exec.Command(sfdbgBinary(t), args...)
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	s.cmd.Stdout, s.cmd.Stderr = w, w
	go s.collect(r)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return s
}

// startAtTerminal starts "sfdbg attach PID" with a pseudo-terminal as its
// standard streams and controlling terminal, as a user at a shell would.

func startAtTerminal(t *testing.T, pid int) (*session, *os.File) {
	t.Helper()
	s, master := startSfdbgAtTerminal(t, "attach", strconv.Itoa(pid))
	s.waitFor(t, "(sfdbg) ")
	return s, master
}

// startSfdbgAtTerminal starts sfdbg with args and a pseudo-terminal as its
// standard streams and controlling terminal, in a session of its own.
func startSfdbgAtTerminal(t *testing.T, args ...string) (*session, *os.File) {
	t.Helper()
	master, slave := openPTY(t)
	s := &session{seen: make(chan struct{}, 1)}
	s.cmd = exec.Command(sfdbgBinary(t), args...)
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = slave, slave, slave
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	home := t.TempDir()
	s.cmd.Env = append(os.Environ(), "TERM=xterm", "HOME="+home, "XDG_STATE_HOME="+home)
	go s.collect(master)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	return s, master
}

func TestSIGTERMDuringAnInteractiveContinueDetachesWithStatus143(t *testing.T) {
	for _, mode := range []string{"spin", "sleep", "threads"} {
		t.Run("a process in mode "+mode+" runs on", func(t *testing.T) {
			fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), mode)
			pid := fx.Process.Pid
			requirePtrace(t, pid)
			s, master := startAtTerminal(t, pid)
			s.waitPrompt(t)
			master.Write([]byte("continue\r"))
			s.waitFor(t, "Continuing.")
			time.Sleep(300 * time.Millisecond)
			s.cmd.Process.Signal(syscall.SIGTERM)
			code := s.exit(t, 10*time.Second)
			if code != 128+int(syscall.SIGTERM) {
				t.Errorf("status %d, want 143; output:\n%s", code, s.text())
			}
			noPanic(t, s.text())
			checkRunning(t, pid)
		})
	}
}

func TestCtrlCInterruptsALongStepiAtATerminal(t *testing.T) {
	fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "spin")
	pid := fx.Process.Pid
	requirePtrace(t, pid)
	s, master := startAtTerminal(t, pid)
	s.waitPrompt(t)
	master.Write([]byte("si 1000000\r"))
	s.waitFor(t, "si 1000000")
	time.Sleep(500 * time.Millisecond)
	master.Write([]byte{3}) // Ctrl-C: the terminal sends SIGINT to sfdbg
	start := time.Now()
	s.waitFor(t, "interrupted")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("si stopped %v after Ctrl-C", d)
	}
	s.waitPrompt(t)
	master.Write([]byte("bt 1\r"))
	s.waitFor(t, "(More stack frames follow...)")
	s.waitPrompt(t)
	quitAtTerminal(t, s, master)
	checkRunning(t, pid)
}

// quitAtTerminal types quit and expects sfdbg to exit 0 without a panic.
func quitAtTerminal(t *testing.T, s *session, master *os.File) {
	t.Helper()
	master.Write([]byte("quit\r"))
	if code := s.exit(t, 10*time.Second); code != 0 {
		t.Errorf("status %d after quit; output:\n%s", code, s.text())
	}
	noPanic(t, s.text())
}

// TestRunGivesTheProgramTheTerminal: under run at a terminal, the program
// has the terminal while it runs, as in gdb: it reads what is typed (in
// the terminal modes it started with, not the line editor's), and Ctrl-C
// stops it with gdb's "Program received signal SIGINT, Interrupt." without
// killing it; continue resumes it, and quit kills it.
func TestRunGivesTheProgramTheTerminal(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	src, bin := dir+"/ask.c", dir+"/ask"
	os.WriteFile(src, []byte(`#include <stdio.h>
int main(void) {
  char b[64];
  printf("name? "); fflush(stdout);
  if (!fgets(b, sizeof b, stdin)) return 1;
  printf("hello %s", b); fflush(stdout);
  for (volatile int i = 0;; i++) ;
}
`), 0o644)
	if out, err := exec.Command(cc, "-g", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cc: %v: %s", err, out)
	}
	s, master := startSfdbgAtTerminal(t, "run", bin)
	s.waitFor(t, "Started process")
	if strings.Contains(s.text(), "operation not permitted") {
		t.Skip("ptrace not permitted")
	}
	s.waitPrompt(t)
	master.Write([]byte("continue\r"))
	s.waitFor(t, "name? ")
	master.Write([]byte("bob\r"))
	s.waitFor(t, "hello bob")
	master.Write([]byte{3}) // Ctrl-C: the terminal sends SIGINT to the program
	s.waitFor(t, "Program received signal SIGINT, Interrupt.")
	s.waitPrompt(t)
	n := len(s.text())
	master.Write([]byte("continue\r"))
	s.waitFor(t, "Continuing.")
	time.Sleep(200 * time.Millisecond)
	master.Write([]byte{3})
	s.waitPromptAfter(t, n)
	if c := strings.Count(s.text(), "Program received signal SIGINT, Interrupt."); c != 2 {
		t.Errorf("%d SIGINT stops, want 2 (the program must survive the first):\n%s", c, s.text())
	}
	quitAtTerminal(t, s, master)
}
