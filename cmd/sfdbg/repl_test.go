package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// sfdbgBinary builds the sfdbg binary once per test run, for tests that
// must signal it or run it as another user.
func sfdbgBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "sfdbg-test-bin-")
		if buildErr != nil {
			return
		}
		os.Chmod(buildDir, 0o755) // runnable by the unprivileged user of the permission test
		out, err := exec.Command("go", "build", "-o", filepath.Join(buildDir, "sfdbg"), ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v", buildErr)
	}
	return filepath.Join(buildDir, "sfdbg")
}

func TestMain(m *testing.M) {
	// The decompressed DWARF sfdbg caches (frames.DebugCacheDir) goes to
	// a temporary directory, for this process and the sfdbg it starts,
	// not to the user's cache.
	cache, err := os.MkdirTemp("", "sfdbg-cmd-cache-")
	if err == nil {
		os.Setenv("SFDBG_CACHE_DIR", cache)
		frames.DebugCacheDir = cache
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	if cache != "" {
		os.RemoveAll(cache)
	}
	os.Exit(code)
}

// requirePtrace skips the test when this process may not trace fixtures.
func requirePtrace(t *testing.T, pid int) {
	t.Helper()
	st, err := proc.Seize(pid)
	if err != nil {
		var ae *proc.AttachError
		if errors.As(err, &ae) && (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES)) {
			t.Skipf("ptrace not permitted here: %v", err)
		}
		t.Fatal(err)
	}
	st.Detach()
}

// checkRunning fails unless pid is neither stopped nor traced.
func checkRunning(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := proc.ProcState(pid)
		status, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		traced := !strings.Contains(string(status), "TracerPid:\t0\n")
		if st != 't' && st != 'T' && st != 0 && !traced {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d in state %q (traced: %v)", pid, st, traced)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestEveryDebuggerCommandHasHelp(t *testing.T) {
	for _, name := range []string{"attach", "run", "bt", "demo", "commands"} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := runSfdbg(name, "--help")
			if code != exitOK || !strings.Contains(stderr, "usage: sfdbg "+name) {
				t.Errorf("sfdbg %s --help: status %d, output %q", name, code, stderr)
			}
		})
	}
}

func TestCommandsMarkdownListsTheREPLCommands(t *testing.T) {
	code, out, _ := runSfdbg("commands", "--markdown")
	if code != exitOK {
		t.Fatalf("status %d", code)
	}
	for _, want := range []string{"| `backtrace [full] [N\\|-N] [sframe\\|cfi\\|fp\\|code\\|ehabi\\|all\\|compare]` |", "| `info frame [N]` |", "| `x/NFU ADDR` |", "| `finish` |", "### backtrace"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestParseInterspersedAcceptsFlagsAfterThePID(t *testing.T) {
	for _, tc := range []struct {
		args []string
		pos  string
		ex   string
	}{
		{[]string{"-batch", "-ex", "bt", "123"}, "123", "bt"},
		{[]string{"123", "-batch", "-ex", "bt"}, "123", "bt"},
		{[]string{"-ex", "bt", "--", "123"}, "123", "bt"},
	} {
		c := commands["attach"]
		fs := newFlagSet(c, &strings.Builder{})
		sf := addSessionFlags(fs, false)
		pos, _, ok := parseInterspersed(fs, tc.args)
		if !ok || strings.Join(pos, " ") != tc.pos || strings.Join(sf.ex, ";") != tc.ex || !sf.batch && tc.args[0] == "-batch" {
			t.Errorf("%q: positional %q, -ex %q, ok %v", tc.args, pos, sf.ex, ok)
		}
	}
}

func filepathAbs(p string) (string, error) { return filepath.Abs(p) }

// The CLI's depth limit has the bounds of the REPL's "set backtrace limit".
func TestBtMaxDepthIsBoundedAndValidated(t *testing.T) {
	for _, v := range []string{"-1", "1000001", "many"} {
		code, out, errOut := runSfdbg("bt", "--max-depth", v, "1")
		if code != exitError || out != "" || errOut == "" {
			t.Errorf("bt --max-depth %s: status %d, stdout %q, stderr %q; want status 2 and one message", v, code, out, errOut)
		}
	}
}
