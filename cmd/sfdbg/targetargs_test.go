package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestAttachAcceptsGDBsForms(t *testing.T) {
	prog := dumpFixture(t, "deep-v3-O2")
	tests := []struct {
		name    string
		pos     []string
		p       string
		pid     int
		prog    string
		wantErr string
	}{
		{"PID", []string{"42"}, "", 42, "", ""},
		{"-p PID", nil, "42", 42, "", ""},
		{"-p PID PROG", []string{prog}, "42", 42, prog, ""},
		{"PROG PID", []string{prog, "42"}, "", 42, prog, ""},
		{"PID PROG is out of order", []string{"42", prog}, "", 0, "", "the program comes first"},
		{"no operand", nil, "", 0, "", "no process ID given"},
		{"three operands", []string{prog, "42", "x"}, "", 0, "", "too many operands"},
		{"-p with two operands", []string{prog, "x"}, "42", 0, "", "too many operands with -p 42"},
		{"a -p that is not a number", nil, "abc", 0, "", `"abc" is not a process ID`},
		{"a program that does not exist", []string{"/nonexistent/prog", "42"}, "", 0, "", "program /nonexistent/prog: no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pid, p, err := attachTarget(tc.pos, tc.p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Count(err.Error(), ". ") > 0 {
					t.Errorf("error %v, want one sentence with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || pid != tc.pid || p != tc.prog {
				t.Errorf("got %d %q %v, want %d %q", pid, p, err, tc.pid, tc.prog)
			}
		})
	}
}

func TestAttachWithGDBsFormsRunsTheSession(t *testing.T) {
	prog := dumpFixture(t, "deep-v3-O2")
	fx := startFixture(t, prog, "spin")
	pid := strconv.Itoa(fx.Process.Pid)
	requirePtrace(t, fx.Process.Pid)
	for _, tc := range []struct {
		name string
		args []string
	}{{"-p PID", []string{"-p", pid}}, {"PROG PID", []string{prog, pid}}, {"-p PID PROG", []string{"-p", pid, prog}}} {
		t.Run(tc.name, func(t *testing.T) {
			// with the settings every gdb script carries: still status 0
			code, out, errOut := runSfdbg(append([]string{"attach", "-batch", "-ex", "set pagination off", "-ex", "set confirm off",
				"-ex", "set width 0", "-ex", "bt 1"}, tc.args...)...)
			if code != exitOK || !strings.Contains(out, "Attached to process "+pid) || !strings.Contains(out, "#0") || errOut != "" {
				t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			checkRunning(t, fx.Process.Pid)
		})
	}
	t.Run("another program warns", func(t *testing.T) {
		code, _, errOut := runSfdbg("attach", "-batch", "-ex", "bt 1", dumpFixture(t, "deep-v1-O2"), pid)
		if code != exitOK || !strings.Contains(errOut, "is not the program of process "+pid) {
			t.Errorf("status %d, stderr %q", code, errOut)
		}
		checkRunning(t, fx.Process.Pid)
	})
}

func TestCoreAcceptsGDBsOrder(t *testing.T) {
	core, prog := filepath.Join(coreFixtures, "crash-v3.core"), filepath.Join(coreFixtures, "crash-v3")
	_, want, _ := runSfdbg("core", core, prog)
	code, got, errOut := runSfdbg("core", prog, core)
	if code != exitOK && code != exitFindings || got != want || errOut != "" {
		t.Errorf("core PROG CORE: status %d, stderr %q; output differs from core CORE PROG:\n%s\nwant:\n%s", code, errOut, got, want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{prog, prog}, "neither"},
		{[]string{core, core}, "are both core files"},
		{[]string{core, prog, prog}, "too many operands"},
		{nil, "no core file given"},
		{[]string{prog, "/nonexistent/core"}, "/nonexistent/core"},
	} {
		code, _, errOut := runSfdbg(append([]string{"core"}, tc.args...)...)
		if code != exitError || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("core %v: status %d, stderr %q, want one line with %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestCoreSaysWhatKilledTheProcess(t *testing.T) {
	prog := filepath.Join(coreFixtures, "crash-v3")
	t.Run("a kernel core gives gdb's line, the fault address and si_code", func(t *testing.T) {
		_, out, errOut := runSfdbg("core", prog, filepath.Join(coreFixtures, "crash-v3.core"))
		want := "Program terminated with signal SIGSEGV, Segmentation fault.\nFault address 0x0, si_code SEGV_MAPERR (1): address not mapped to object.\n"
		if !strings.Contains(out, want) {
			t.Errorf("want %q in\n%s%s", want, out, errOut)
		}
		_, js, _ := runSfdbg("core", "--json", prog, filepath.Join(coreFixtures, "crash-v3.core"))
		var doc struct {
			Terminated struct {
				Signal   int     `json:"signal"`
				Name     string  `json:"name"`
				Code     *int    `json:"si_code"`
				CodeName string  `json:"si_code_name"`
				Addr     *uint64 `json:"addr"`
				Source   string  `json:"source"`
			} `json:"terminated"`
		}
		if err := json.Unmarshal([]byte(js), &doc); err != nil {
			t.Fatal(err)
		}
		d := doc.Terminated
		if d.Signal != 11 || d.Name != "SIGSEGV" || d.Code == nil || *d.Code != 1 || d.CodeName != "SEGV_MAPERR" || d.Addr == nil || *d.Addr != 0 || d.Source != "NT_SIGINFO" {
			t.Errorf("terminated %+v", d)
		}
	})
	t.Run("a qemu-user core without NT_SIGINFO says what it lacks", func(t *testing.T) {
		_, out, errOut := runSfdbg("core", prog, filepath.Join(coreFixtures, "crash-v3-qemu.core"))
		want := "Program terminated with signal SIGSEGV, Segmentation fault.\n(No si_code or fault address: the core has no NT_SIGINFO note, only pr_cursig.)\n"
		if !strings.Contains(out, want) {
			t.Errorf("want %q in\n%s%s", want, out, errOut)
		}
	})
}
