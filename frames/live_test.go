package frames

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sfdbg/sfdbg/frames/livetest"
)

// Live tests: start testdata/bin/deep-*, stop it with ptrace, unwind its
// threads from their registers through /proc/PID/maps and /proc/PID/mem,
// and compare with the call chains deep.c builds and with gdb's backtrace.

// The call chain of "deep spin" from spin_here up to main (deep.c).
var spinChain = []string{"spin_here", "level6_leafish", "level5_bigframe", "level4_recursive",
	"level4_recursive", "level4_recursive", "level3_indirect", "level2_alloca", "level1", "run_chain", "main"}

// The chains of the three spinning threads of "deep threads", keyed by
// their outermost deep.c function.
var threadChains = map[string][]string{
	"thread_alpha": {"spin_here", "alpha_2", "alpha_1", "thread_alpha"},
	"thread_beta":  {"spin_here", "beta_3", "beta_2", "beta_1", "thread_beta"},
	"thread_gamma": {"spin_here", "gamma_1", "thread_gamma"},
}

// The chain of "deep signal" in the handler, down to the trampoline.
var signalChain = []string{"spin_here", "sig_chain2", "sig_chain1", "on_signal"}

// liveProc is a started fixture process.
type liveProc struct {
	cmd *exec.Cmd
	pid int
}

// startDeep starts a fixture in mode and waits until it has printed
// "ready" and spun for a moment. The process is killed at the end of the
// test.
func startDeep(t *testing.T, bin, mode string) *liveProc {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("live tests need linux/amd64")
	}
	cmd := startReady(t, fixture(t, bin), mode)
	return &liveProc{cmd: cmd, pid: cmd.Process.Pid}
}

// startReady starts path with args, waits for its "ready" line, then for
// its threads to settle (the chain goes on to spin_here after printing
// it: livetest.Settle), and returns the running command, killed at the end
// of the test.
func startReady(t testing.TB, path string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(path, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	ready := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(out).ReadString('\n')
		if err == nil && line != "ready\n" {
			err = fmt.Errorf("printed %q", line)
		}
		ready <- err
		io.Copy(io.Discard, out)
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("%s %v: %v", path, args, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s %v did not print ready", path, args)
	}
	if err := livetest.Settle(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// ProcMemory reads the memory of process Pid through /proc/PID/mem, for the
// tests that have the process ptrace-stopped (or are allowed to read it).
// sfdbg itself reads with debugger.ProcMemory (process_vm_readv, cached).
// The file is opened on first use; Close releases it.
type ProcMemory struct {
	Pid int

	mu  sync.Mutex
	f   *os.File
	err error
}

// ReadAt implements Memory.
func (m *ProcMemory) ReadAt(p []byte, addr uint64) (int, error) {
	m.mu.Lock()
	if m.f == nil && m.err == nil {
		m.f, m.err = os.Open(fmt.Sprintf("/proc/%d/mem", m.Pid))
	}
	f, err := m.f, m.err
	m.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if addr > 1<<63-1 || addr+uint64(len(p)) < addr {
		return 0, fmt.Errorf("address %#x out of range", addr)
	}
	n, err := f.ReadAt(p, int64(addr))
	if n == len(p) {
		return n, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// Close closes /proc/PID/mem.
func (m *ProcMemory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.f == nil {
		return nil
	}
	err := m.f.Close()
	m.f, m.err = nil, errors.New("ProcMemory closed")
	return err
}

// space returns the stopped process's modules over /proc/PID/mem, and a
// function that closes them.
func (p *liveProc) space() (*Space, func(), error) {
	mem := &ProcMemory{Pid: p.pid}
	mods, err := ModulesFromMaps(p.pid, mem)
	if err != nil {
		mem.Close()
		return nil, nil, err
	}
	return &Space{Mem: mem, Modules: mods}, func() { mods.Close(); mem.Close() }, nil
}

// threadRegs is the register set of one stopped thread.
type threadRegs struct {
	tid  int
	regs Regs
}

// stopped attaches to every thread of p with PTRACE_ATTACH, reads their
// registers, runs fn with them and p's address space (see space) while
// they are stopped, then closes the space and detaches. All ptrace
// requests come from one locked OS thread. It skips the test when ptrace
// is not permitted.
func (p *liveProc) stopped(t *testing.T, fn func(*Space, []threadRegs)) {
	t.Helper()
	done := make(chan struct{})
	var ferr error
	skip := ""
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tids, err := tasks(p.pid)
		if err != nil {
			ferr = err
			return
		}
		var attached []int
		defer func() {
			for _, tid := range attached {
				unix.PtraceDetach(tid)
			}
		}()
		var out []threadRegs
		for _, tid := range tids {
			if err := unix.PtraceAttach(tid); err != nil {
				if len(attached) == 0 && (err == unix.EPERM || err == unix.EACCES) {
					skip = fmt.Sprintf("ptrace not permitted: %v", err)
					return
				}
				ferr = fmt.Errorf("PTRACE_ATTACH %d: %w", tid, err)
				return
			}
			attached = append(attached, tid)
			var ws unix.WaitStatus
			if _, err := unix.Wait4(tid, &ws, unix.WALL, nil); err != nil {
				ferr = fmt.Errorf("wait4 %d: %w", tid, err)
				return
			}
			r, err := threadRegsOf(tid)
			if err != nil {
				ferr = err
				return
			}
			out = append(out, threadRegs{tid, r})
		}
		sp, closeSpace, err := p.space()
		if err != nil {
			ferr = err
			return
		}
		defer closeSpace()
		fn(sp, out)
	}()
	<-done
	if skip != "" {
		t.Skip(skip)
	}
	if ferr != nil {
		t.Fatal(ferr)
	}
}

// tasks lists the thread IDs of pid.
func tasks(pid int) ([]int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// liveTrace is one unwind of a live thread.
type liveTrace struct {
	frames []Frame
	names  []string // function names ("" when unknown)
	stop   *StopError
}

func unwindLive(sp *Space, u Unwinder, r Regs) liveTrace {
	st := NewStack(u, r, sp, StackOptions{})
	var lt liveTrace
	for st.Next() {
		f := st.Frame()
		lt.frames = append(lt.frames, f)
		name := ""
		if m := sp.Modules.Find(f.PC); m != nil {
			name, _, _ = m.FuncName(f.PC)
		}
		lt.names = append(lt.names, name)
	}
	lt.stop = st.Stop()
	return lt
}

// mainModuleNames returns the names of the leading frames in module mod.
func (lt liveTrace) mainModuleNames(mod string) []string {
	var out []string
	for _, f := range lt.frames {
		if f.Module == nil || f.Module.Name != mod {
			break
		}
		out = append(out, lt.names[len(out)])
	}
	return out
}

func (lt liveTrace) String() string {
	var b strings.Builder
	for i, n := range lt.names {
		fmt.Fprintf(&b, "#%d %#x %s; ", i, lt.frames[i].PC, n)
	}
	fmt.Fprintf(&b, "stop: %v", lt.stop)
	return b.String()
}

// gdbBacktrace attaches gdb to pid (which must not be traced) and returns
// the function names of "bt" for the thread gdb selects (the first).
func gdbBacktrace(t *testing.T, pid int) []string {
	t.Helper()
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	cmd := exec.Command(gdb, "-nx", "-batch", "-p", strconv.Itoa(pid), "-ex", "bt")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	re := regexp.MustCompile(`(?m)^#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+) \(`)
	var names []string
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		names = append(names, m[2])
	}
	if len(names) == 0 {
		t.Fatalf("no frames in gdb output:\n%s", out)
	}
	return names
}

func TestLiveSpin(t *testing.T) {
	if testing.Short() {
		t.Skip("live test")
	}
	for _, bin := range []string{"deep-v1-O0", "deep-v1-O2", "deep-v2-O0", "deep-v2-O2", "deep-v3-O0", "deep-v3-O2"} {
		t.Run(bin, func(t *testing.T) {
			p := startDeep(t, bin, "spin")
			var sf, fp liveTrace
			p.stopped(t, func(sp *Space, ths []threadRegs) {
				sf = unwindLive(sp, &SFrameUnwinder{Space: sp}, ths[0].regs)
				fp = unwindLive(sp, &FPUnwinder{Space: sp}, ths[0].regs)
			})
			t.Logf("sframe: %v", sf)
			t.Logf("fp: %v", fp)
			got := sf.mainModuleNames(bin)
			if !reflect.DeepEqual(got, spinChain) {
				t.Errorf("SFrame unwind in %s = %q, want %q", bin, got, spinChain)
			}
			// Above main the PC is in libc, which has no .sframe here (or,
			// with a libc that has one, the unwind goes on).
			if sf.stop == nil || (sf.stop.Reason != ReasonNoData && sf.stop.Reason != ReasonOutermost && sf.stop.Reason != ReasonNoFDE) {
				t.Errorf("SFrame unwind stopped with %v", sf.stop)
			}
			if strings.HasSuffix(bin, "-O0") {
				// Built with frame pointers: the RBP chain finds the same
				// frames (spin_here has set up its frame: it spins in its body).
				if got := fp.mainModuleNames(bin); !reflect.DeepEqual(got, spinChain) {
					t.Errorf("FP unwind in %s = %q, want %q", bin, got, spinChain)
				}
			}
			// gdb, attached after we detached, sees the same chain.
			if g := gdbBacktrace(t, p.pid); len(g) < len(spinChain) || !reflect.DeepEqual(g[:len(spinChain)], spinChain) {
				t.Errorf("gdb bt = %q, want it to start with %q", g, spinChain)
			}
		})
	}
}

func TestLiveThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("live test")
	}
	const bin = "deep-v3-O2"
	p := startDeep(t, bin, "threads")
	var traces []liveTrace
	p.stopped(t, func(sp *Space, ths []threadRegs) {
		for _, th := range ths {
			traces = append(traces, unwindLive(sp, &SFrameUnwinder{Space: sp}, th.regs))
		}
	})
	found := map[string]bool{}
	for _, lt := range traces {
		t.Logf("thread: %v", lt)
		got := lt.mainModuleNames(bin)
		if len(got) == 0 {
			// The main thread sleeps in libc's nanosleep: no SFrame there.
			if lt.stop == nil || lt.stop.Reason != ReasonNoData {
				t.Errorf("a thread outside %s stopped with %v", bin, lt.stop)
			}
			continue
		}
		want, ok := threadChains[got[len(got)-1]]
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("thread chain %q matches none of %v", got, threadChains)
		}
		found[got[len(got)-1]] = true
	}
	if len(found) != len(threadChains) {
		t.Errorf("found threads %v, want %d spinning threads", found, len(threadChains))
	}
}

func TestLiveSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("live test")
	}
	for _, bin := range []string{"deep-v3-O0", "deep-v3-O2"} {
		t.Run(bin, func(t *testing.T) {
			p := startDeep(t, bin, "signal")
			var sf liveTrace
			var libcHasSFrame bool
			p.stopped(t, func(sp *Space, ths []threadRegs) {
				mods := sp.Modules
				sf = unwindLive(sp, &SFrameUnwinder{Space: sp}, ths[0].regs)
				for _, m := range mods.List() {
					if strings.HasPrefix(m.Name, "libc.so") {
						_, err := m.SFrame()
						libcHasSFrame = err == nil
					}
				}
			})
			t.Logf("sframe: %v", sf)
			if got := sf.mainModuleNames(bin); !reflect.DeepEqual(got, signalChain) {
				t.Errorf("SFrame unwind in the handler = %q, want %q", got, signalChain)
			}
			if !libcHasSFrame {
				// The handler returns into libc's __restore_rt, which has no
				// SFrame on this system: the unwind must say so.
				if sf.stop == nil || sf.stop.Reason != ReasonNoData || !strings.Contains(sf.stop.Error(), "libc") {
					t.Errorf("stopped with %v, want no SFrame in libc", sf.stop)
				}
			}
		})
	}
}

// sigRestorerC is a program whose signal handler returns (would return)
// into its own restorer, an assembly trampoline marked .cfi_signal_frame,
// so that gas v3 gives it an SFrame FDE with the signal bit; the handler
// spins, so a stop finds the kernel's signal frame on the stack.
const sigRestorerC = `
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

volatile int got;
volatile unsigned long n;

__attribute__((noipa)) void spin_here(void) { for (;;) n++; }
__attribute__((noipa)) void handler_inner(void) { spin_here(); n++; /* no tail call */ }
__attribute__((noipa)) void handler(int sig) {
	got = sig;
	ssize_t r = write(1, "ready\n", 6);
	(void)r;
	handler_inner();
	n++;
}
__attribute__((noipa)) int interrupted(void) { while (!got) n++; return got; }

extern void my_restorer(void);
__asm__(".text\n"
	"	nop\n"
	"	.globl my_restorer\n"
	"	.type my_restorer, @function\n"
	"my_restorer:\n"
	"	.cfi_startproc\n"
	"	.cfi_signal_frame\n"
	"	.cfi_def_cfa_offset 160\n"
	"	movq $15, %rax\n"
	"	syscall\n"
	"	.cfi_endproc\n"
	"	.size my_restorer, .-my_restorer\n");

struct ksigaction { void (*handler)(int); unsigned long flags; void (*restorer)(void); unsigned long mask; };

int main(int argc, char **argv) {
	struct ksigaction k = { handler, 0x04000000 /* SA_RESTORER */, my_restorer, 0 };
	if (syscall(SYS_rt_sigaction, SIGALRM, &k, NULL, 8) != 0)
		return 1;
	struct itimerval it;
	memset(&it, 0, sizeof it);
	it.it_value.tv_usec = 20000;
	setitimer(ITIMER_REAL, &it, NULL);
	return interrupted() + argc;
}
`

// TestLiveSignalFrame checks the AMD64 ucontext layout against the kernel:
// a handler that never returns is stopped, and the SFrame unwind must cross
// the signal frame into the interrupted function. It builds its program
// with the SFrame v3 toolchain and skips without one.
func TestLiveSignalFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("live test")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("live tests need linux/amd64")
	}
	tc := os.Getenv("SFDBG_TOOLCHAINS")
	if tc == "" {
		tc = "/tmp/sfdbg-toolchains"
	}
	tc += "/v3/bin/"
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	if _, err := os.Stat(tc + "as"); err != nil {
		t.Skipf("no SFrame v3 toolchain at %s (scripts/toolchains.sh)", tc)
	}
	dir := t.TempDir()
	src, bin := dir+"/sigrestorer.c", dir+"/sigrestorer"
	if err := os.WriteFile(src, []byte(sigRestorerC), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-B", tc, "-Wa,--gsframe", "-O2", "-fomit-frame-pointer", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	cmd := startReady(t, bin)
	p := &liveProc{cmd: cmd, pid: cmd.Process.Pid}
	var sf liveTrace
	p.stopped(t, func(sp *Space, ths []threadRegs) {
		sf = unwindLive(sp, &SFrameUnwinder{Space: sp}, ths[0].regs)
	})
	t.Logf("sframe: %v", sf)
	want := []string{"spin_here", "handler_inner", "handler", "my_restorer", "interrupted", "main"}
	if got := sf.mainModuleNames("sigrestorer"); !reflect.DeepEqual(got, want) {
		t.Fatalf("SFrame unwind = %q, want %q", got, want)
	}
	if !sf.frames[3].Row.Signal || !sf.frames[4].Interrupted || sf.frames[5].Interrupted {
		t.Errorf("signal row %v, interrupted frames: %v %v", sf.frames[3].Row, sf.frames[4].Interrupted, sf.frames[5].Interrupted)
	}
}
