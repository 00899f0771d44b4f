package debugger

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/golden")

func loadSnap(t *testing.T, name string) *Snapshot {
	t.Helper()
	s, err := LoadSnapshot(filepath.Join("testdata", "snap", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// transcript runs cmds in a session on a snapshot, the way the REPL runs
// them, and returns what a terminal would show.
func transcript(t *testing.T, snap string, cmds []string) (string, bool) {
	t.Helper()
	ui := &ScriptUI{Echo: true}
	s := NewSession(loadSnap(t, snap), ui)
	s.Batch = true
	ok := s.RunBatch(cmds)
	s.Close()
	return ui.Out.String(), ok
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("transcript %s differs from %s (go test -update rewrites it):\n%s", name, path, lineDiff(string(want), got))
	}
}

// lineDiff shows the first lines where want and got differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("  line " + itoa(i+1) + ":\n    want: " + wl + "\n    got:  " + gl + "\n")
			shown++
		}
	}
	return b.String()
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(i)) }

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

func TestTranscriptsMatchGoldenFiles(t *testing.T) {
	for _, tc := range []struct {
		name, snap string
		cmds       []string
		ok         bool // every command succeeds
	}{
		{"backtraces", "deep-spin", []string{"bt", "bt sframe", "bt cfi", "bt fp", "bt 3", "where 2 sframe"}, true},
		{"frame-selection", "deep-spin", []string{"frame", "up", "up 3", "down", "frame 7", "f", "down 100", "up 100", "up", "frame 99"}, false},
		{"info-frame", "deep-spin", []string{"info frame", "up", "info frame", "frame 6", "info frame", "bt sframe", "frame 10", "info frame"}, true},
		{"info-sframe", "deep-spin", []string{"info sframe", "up 4", "info sframe", "info sframe spin_here", "info sframe level2_alloca+12", "info sframe 0x10"}, false},
		{"registers-and-memory", "deep-spin", []string{"info registers", "up", "info registers", "i r rip rsp", "x/4xg $sp", "x/2a $cfa-16", "x/8xb $pc", "x/3dw $sp", "x/2ug", "x/s $sp", "x 0x10"}, false},
		{"threads", "deep-threads", []string{"info threads", "thread", "thread 3", "bt", "thread apply all bt 4", "thread 9", "thread apply all"}, false},
		{"signal-frame", "deep-signal", []string{"bt", "bt sframe", "frame 4", "info frame"}, true},
		{"sharedlibrary", "deep-threads", []string{"info sharedlibrary"}, true},
		{"errors-and-help", "deep-spin", []string{"foo", "info", "info bogus", "bt bogus", "x", "break", "break no_such_function", "break spin_here", "continue", "stepi", "finish", "d", "info breakpoints", "help", "help bt", "help info frame", "help x", "help nosuch", "s", "de"}, false},
		{"signals", "deep-spin", []string{"info signals", "handle SIGSEGV stop", "handle SEGV nostop noprint pass", "handle 11", "handle SIGFOO", "info signals abrt", "handle SIGINT sometimes"}, false},
		{"code", "deep-spin", []string{"x/4i $pc", "x", "disassemble", "up", "disassemble", "disassemble $pc,+8", "x/2i spin_here", "disassemble no_such_function", "disassemble 0x10"}, false},
		{"expressions", "deep-spin", []string{"p $sp+8", "p $pc", "p $sp", "p $rax", "p $rax+1", "p &spin_count", "p spin_here", "p spin_here+4",
			"p *$sp", "p/x *$sp", "p (2+3)*4-10/3", "p -5", "p/x -1", "p $", "p $1", "p $$2", "p $sp-$cfa", "p/a *($sp)", "p $sp*2", "p nosuch",
			"p 1+", "p (1", "p 1/0", "p spin_count", "x/2xg $sp+8", "x/a *&$sp", "x/a $sp", "info symbol $pc", "info symbol &spin_count",
			"info symbol spin_here", "info symbol $sp", "up", "p $pc", "p $rax", "p $rbx", "p/x $eflags"}, false},
		{"source-lines", "deep-spin", []string{"info line", "list", "list -", "list spin_here", "list deep.c:150", "list 10,12", "list",
			"info line spin_here", "info line *0x555ff9eeb39b", "info line deep.c:64", "info line testdata/src/deep.c:60",
			"info line nosuch.c:3", "up", "info line", "list", "frame 11", "info line", "list", "list nosuch", "frame 0", "break deep.c:62",
			"tbreak 158", "until 160", "advance 160", "until", "directory /nonexistent"}, false},
		{"detach-then-commands", "deep-spin", []string{"detach", "bt", "info threads", "quit", "bt"}, false},
		// inline-v3-O2 stopped at the start of a statement of spin_inline:
		// gdb's "#0  spin_inline () at ...", inline frames numbered.
		{"inline-frames", "inline-spin", []string{"bt", "bt cfi", "bt 2 cfi", "bt -4 cfi", "frame 1", "info frame", "frame 0",
			"info frame", "up 2", "info frame", "up", "list", "up", "down", "frame 8", "frame 9", "info threads", "frame 3", "finish"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := transcript(t, tc.snap, tc.cmds)
			if ok != tc.ok {
				t.Errorf("batch succeeded = %v, want %v", ok, tc.ok)
			}
			checkGolden(t, tc.name, got)
		})
	}
}

func TestCommandLookupUsesAliasesThenUniquePrefixes(t *testing.T) {
	tab := newCommandTable()
	for _, tc := range []struct{ line, want, args string }{
		{"bt", "backtrace", ""},
		{"where 3", "backtrace", "3"},
		{"back sframe", "backtrace", "sframe"},
		{"i r rip", "registers", "rip"},
		{"info shared", "sharedlibrary", ""},
		{"x/4xg $sp", "x", "/4xg $sp"},
		{"c", "continue", ""},
		{"si 3", "stepi", "3"},
		{"fin", "finish", ""},
		{"q", "quit", ""},
		{"thread apply all bt", "thread", "apply all bt"},
	} {
		c, args, err := tab.lookup(tc.line)
		if err != nil {
			t.Errorf("lookup(%q): %v", tc.line, err)
			continue
		}
		if c.name() != tc.want || args != tc.args {
			t.Errorf("lookup(%q) = %s %q, want %s %q", tc.line, c.name(), args, tc.want, tc.args)
		}
	}
	if _, _, err := tab.lookup("de"); err == nil || !strings.Contains(err.Error(), "Ambiguous") {
		t.Errorf(`lookup("de") = %v, want an ambiguity error`, err)
	}
}

func TestCompletionOffersCommandsSubcommandsAndFunctions(t *testing.T) {
	ui := &ScriptUI{}
	s := NewSession(loadSnap(t, "deep-spin"), ui)
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"", nil}, // every command: checked by length below
		{"fi", []string{"finish "}},
		{"info ", []string{"info frame ", "info sframe ", "info registers ", "info all-registers ", "info threads ", "info proc ", "info inferiors ", "info sharedlibrary ", "info signals ", "info line ", "info source ", "info symbol ", "info breakpoints ", "info watchpoints ", "info display ", "info locals ", "info args "}},
		{"info s", []string{"info sframe ", "info sharedlibrary ", "info signals ", "info source ", "info symbol "}},
		{"bt s", []string{"bt sframe "}},
		{"break level4", []string{"break level4_recursive "}},
		{"b spin_h", []string{"b spin_here "}},
		{"help con", []string{"help continue ", "help condition "}},
	} {
		got := ui.Completer(tc.line)
		if tc.line == "" {
			if len(got) != len(s.cmds.cmds) {
				t.Errorf("complete(%q) = %d names, want %d", tc.line, len(got), len(s.cmds.cmds))
			}
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("complete(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestMarkdownListsEveryCommand(t *testing.T) {
	md := CommandsMarkdown()
	for _, c := range newCommandTable().cmds {
		if c.run != nil && !strings.Contains(md, "| `"+c.name()) {
			t.Errorf("Markdown lacks %s", c.name())
		}
		for _, sc := range c.sub {
			if !strings.Contains(md, "| `"+c.name()+" "+sc.name()) {
				t.Errorf("Markdown lacks %s %s", c.name(), sc.name())
			}
		}
	}
	checkGolden(t, "commands.md", md)
}
