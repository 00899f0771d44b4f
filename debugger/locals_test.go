package debugger

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// localsCommands lists the commands TestLocalsMatchGdbOnTheSameProcess runs
// in gdb and in sfdbg, in locals.c's frames: leaf, middle, outer.
var localsGdbCommands = []string{
	"bt cfi", "bt full cfi", "info args", "info locals",
	"up", "info args", "info locals", "print *r", "print r", "print p", "print c", "print unused",
	"ptype r", "ptype p", "print r->name", "print r->at.y", "ptype struct rec",
	"up", "info args", "info locals", "print r", "print r.name", "print r.tags", "print r.tags[1]",
	"print &r.at", "ptype r.at", "print r.col", "print r.weight",
	"frame 0", "print buf", "print zeros", "print zeros[1]", "print fn", "print w", "print label",
	"print small", "print ok", "print total", "ptype fn", "ptype buf", "ptype w", "ptype label",
	"print counter", "print &counter", "print greeting", "print *greeting", "ptype enum color", "ptype int",
	"print counter + 1", "ptype leaf", "whatis leaf", "ptype main", "ptype outer", "whatis r", "whatis zeros", "whatis fn", "whatis struct rec", "whatis w",
}

// localsGdbCommandsO0 are the commands on variables in memory that gdb
// and sfdbg evaluate as integer expressions (the -O0 fixture only: at
// -O2 these variables are optimized out).
var localsGdbCommandsO0 = []string{"print/x *r", "print/x zeros", "print/d small", "print/x buf", "print/x label", "print/c n",
	"print/x w", "print/t n", "print/o n", "print/x ok", "print/u small", "print/a fn", "print/x fn", "print/d r->col", "print zeros[n - 4]", "print r->tags[n - 3]", "print n + 1", "print total * 2", "x/4xw zeros", "print &buf", "x/s label", "print *label"}

// gdbCommand is gdb's spelling of an sfdbg command ("bt cfi": gdb's bt).
func gdbCommand(c string) string {
	return strings.TrimSuffix(c, " cfi")
}

var (
	frameArgsRE = regexp.MustCompile(`^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+ \(.*\))(?: at .*| from .*)?$`)
	gdbNoiseRE  = regexp.MustCompile(`^(\d+\t|\[|Using host libthread_db|warning: |    \S)`)
)

// comparable keeps the lines of a transcript gdb and sfdbg print alike:
// a frame line is reduced to its function and arguments ("leaf (r=0x...,
// n=5)"), gdb's source lines and sfdbg's 4-column notes under frame lines
// are dropped.
func comparable(out string) []string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if m := frameArgsRE.FindStringSubmatch(l); m != nil {
			keep = append(keep, m[1])
			continue
		}
		if l == "" || gdbNoiseRE.MatchString(l) {
			continue
		}
		keep = append(keep, l)
	}
	return keep
}

// TestLocalsMatchGdbOnTheSameProcess runs the same commands in gdb and in
// the REPL on one locals fixture process (gdb attaches and detaches
// first): bt and bt full with the arguments in frame lines (r=r@entry=...,
// <optimized out>), info args, info locals, print and ptype of locals,
// arguments and globals. Every line must be gdb's: the values are read in
// the same process, so addresses are equal too. The fixtures are -O0
// (DWARF 5, variables in memory), -O2 (location lists, entry values) and
// -O2 -gdwarf-4 (.debug_loc).
func TestLocalsMatchGdbOnTheSameProcess(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed: nothing to compare with")
	}
	for _, name := range []string{"locals-v3-O0", "locals-v3-O2", "locals-v3-O2-dwarf4"} {
		cmds := localsGdbCommands
		if name == "locals-v3-O0" {
			cmds = append(append([]string(nil), cmds...), localsGdbCommandsO0...)
		}
		t.Run(name, func(t *testing.T) {
			cmd := startFixture(t, name)
			pid := cmd.Process.Pid
			requirePtraceOf(t, pid)
			args := []string{"-nx", "-batch", "-iex", "set debuginfod enabled off", "-p", strconv.Itoa(pid)}
			for _, c := range cmds {
				args = append(args, "-ex", "echo ==="+c+"\\n", "-ex", gdbCommand(c))
			}
			g, err := exec.Command(gdb, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("gdb: %v\n%s", err, g)
			}
			gdbOut := map[string][]string{}
			var order []string
			for _, part := range strings.Split(string(g), "===")[1:] {
				c, out, _ := strings.Cut(part, "\n")
				key := strconv.Itoa(len(order)) + " " + c
				order = append(order, key)
				gdbOut[key] = comparable(out)
			}
			if len(order) != len(cmds) {
				t.Fatalf("gdb ran %d of %d commands:\n%s", len(order), len(cmds), g)
			}
			s, ui := attachBatch(t, pid)
			defer s.Close()
			for i, c := range cmds {
				n := ui.Out.Len()
				if err := s.Execute(c); err != nil {
					t.Errorf("%s: %v", c, err)
					continue
				}
				ours := comparable(strings.TrimPrefix(ui.Out.String()[n:], "(sfdbg) "+c+"\n"))
				want := gdbOut[order[i]]
				if strings.Join(ours, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s:\nsfdbg:\n%s\ngdb:\n%s", c, strings.Join(ours, "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
}

// requirePtraceOf skips the test when process pid cannot be traced.
func requirePtraceOf(t *testing.T, pid int) {
	t.Helper()
	tg, err := Attach(pid)
	skipIfNoPtrace(t, err)
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Detach(); err != nil {
		t.Fatal(err)
	}
}

// TestLocalsArgsAndSetVarOnTheFixture checks what the fixture's source
// says the values are, without gdb: the structure in outer, the arguments
// in frame lines (at -O2 with their entry values and the optimized-out
// argument of main), then "set var go = 1" ends leaf's loop: after detach
// the program exits with status 0.
func TestLocalsArgsAndSetVarOnTheFixture(t *testing.T) {
	type step struct {
		cmd  string
		want []string
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"locals-v3-O0", []step{
			{"bt cfi", []string{`leaf (r=0x`, `, n=5, label=0x`, ` "thirteen")`, `middle (r=0x`, `, unused=1000, c=GREEN)`, `outer (depth=1)`, `main (argc=1, argv=0x`}},
			{"info locals", []string{`zeros = {0, 7, 0 <repeats 14 times>}`, `fn = 0x`, ` <twice>`, `small = 200 '\310'`}},
			{"print fn", []string{`= (int (*)(int)) 0x`, ` <twice>`}},
			{"ptype w", []string{"type = union word {\n    unsigned int u;\n    unsigned char b[4];\n}"}},
			{"up 2", []string{`#2  0x`}},
			{"info locals", []string{`r = {key = 13, name = 0x`, `"thirteen", at = {x = 3, y = 4}, col = BLUE, flag = 5, weight = 2.5, tags = {1, -2, 3, 0}}`, "\nv = "}},
		}},
		{"locals-v3-O2", []step{
			{"bt cfi", []string{`leaf (r=r@entry=0x`, `n=n@entry=5, label=<optimized out>)`, `middle (r=r@entry=0x`, `unused=unused@entry=1000, c=c@entry=GREEN)`,
				`outer (depth=depth@entry=1)`, `main (argc=1, argv=<optimized out>)`}},
			{"info locals", []string{"zeros = <optimized out>", "fn = <optimized out>", "ok = true"}},
			{"print label", []string{"= <optimized out>"}},
			{"up", []string{"middle"}},
			{"print unused", []string{"= 1000"}},
			{"set var r = 0", nil}, // r is an entry value here: refused below
			// leaf's r is in r13: set var writes the register.
			{"frame 0", nil},
			{"print r", []string{"$3 = (struct rec *) 0x"}},
			{"set var r = 0x1234", nil},
			{"print r", []string{"= (struct rec *) 0x1234"}},
			{"print $r13", []string{"= 4660"}},
			{"set var r = $3", nil},
			{"print r->key", []string{"= 13"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := startFixture(t, tc.name)
			s, ui := attachBatch(t, cmd.Process.Pid)
			for _, st := range tc.steps {
				if st.cmd == "set var r = 0" {
					if err := s.Execute(st.cmd); err == nil || !strings.Contains(err.Error(), "not an lvalue") {
						t.Errorf("set var r = 0 in middle, where r is an entry value: %v", err)
					}
					continue
				}
				out := run(t, s, ui, st.cmd)
				for _, w := range st.want {
					if !strings.Contains(out, w) {
						t.Errorf("%s: lacks %q:\n%s", st.cmd, w, out)
					}
				}
			}
			run(t, s, ui, "frame 0")
			run(t, s, ui, "set var go = 1")
			if out := run(t, s, ui, "print go"); !strings.HasSuffix(out, " = 1\n") {
				t.Errorf("print go after set var go = 1: %q", out)
			}
			run(t, s, ui, "detach")
			s.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("after set var go = 1 and detach the fixture ended with %v, want status 0", err)
				}
			case <-time.After(5 * time.Second):
				t.Errorf("set var go = 1 did not end leaf's loop: the fixture still runs 5 s after detach")
			}
		})
	}
}

// TestLocalsCommandsRefuseWhatTheyDoNotTake: words a command does not
// take are errors, and a name that is no variable says so as gdb does.
func TestLocalsCommandsRefuseWhatTheyDoNotTake(t *testing.T) {
	cmd := startFixture(t, "locals-v3-O0")
	s, ui := attachBatch(t, cmd.Process.Pid)
	defer s.Close()
	for _, tc := range []struct{ line, want string }{
		{"info locals junk", `"info locals" takes no arguments ("junk" was given).`},
		{"info args junk", `"info args" takes no arguments ("junk" was given).`},
		{"bt full junk", `"junk" is neither a frame count`},
		{"print nosuchvar", `No symbol "nosuchvar" in current context.`},
		{"ptype nosuchvar", `No symbol "nosuchvar" in current context.`},
		{"ptype struct nosuch", `No struct type named nosuch.`},
		{"print r->nosuch", `There is no member named nosuch.`},
		{"set var n", `usage: set var VARIABLE = VALUE`},
		{"set var nosuch = 1", `No symbol "nosuch" in current context.`},
		{"set var r = {1}", `Invalid character '{' in expression.`},
	} {
		err := s.Execute(tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q\n%s", tc.line, err, tc.want, ui.Out.String())
		}
	}
}

// TestSetVarUnderRun: under "sfdbg run" set var
// writes memory (the global go) and a register (leaf's n, in rsi at its
// entry at -O2), and the program then runs to its end.
func TestSetVarUnderRun(t *testing.T) {
	tg, err := Launch([]string{fixture(t, "locals-v3-O2")}, "")
	skipIfNoPtrace(t, err)
	if err != nil {
		t.Fatal(err)
	}
	ui := &ScriptUI{Echo: true}
	s := NewSession(tg, ui)
	s.Batch = true
	defer s.Close()
	run(t, s, ui, "break leaf")
	if out := run(t, s, ui, "continue"); !strings.Contains(out, "Breakpoint 1, leaf (r=r@entry=0x") {
		t.Fatalf("continue did not stop in leaf with its arguments:\n%s", out)
	}
	run(t, s, ui, "set var n = 9")
	if out := run(t, s, ui, "print n"); out != "$1 = 9\n" {
		t.Errorf("print n after set var n = 9: %q", out)
	}
	if out := run(t, s, ui, "print $rsi"); out != "$2 = 9\n" {
		t.Errorf("print $rsi after set var n = 9: %q", out)
	}
	run(t, s, ui, "delete")
	run(t, s, ui, "set var go = 1")
	if out := run(t, s, ui, "continue"); !strings.Contains(out, "exited normally") {
		t.Errorf("after set var go = 1 the program did not run to its end:\n%s", out)
	}
}
