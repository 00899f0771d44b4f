package debugger

import (
	"strings"
	"testing"
)

// replTranscript runs lines through the REPL loop (Session.Run), as typed
// at the prompt, and returns the transcript with prompts and commands.
func replTranscript(t *testing.T, snap string, lines []string) string {
	t.Helper()
	ui := &ScriptUI{Echo: true, Lines: lines}
	s := NewSession(loadSnap(t, snap), ui)
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	return ui.Out.String()
}

// TestEmptyLineRepeatsTheLastCommand: at the prompt, an empty line runs the
// last command again, as in gdb: up and down move on, x continues where it
// stopped, stepi and continue run again; a command gdb does not repeat
// (frame, bt, break) is not repeated, and a -x script's empty lines do nothing.
func TestEmptyLineRepeatsTheLastCommand(t *testing.T) {
	got := replTranscript(t, "deep-spin", []string{"up", "", "", "down", "", "x/2xg $sp", "", "x", "si", "", "c", "", "list", "", "p $sp", "", "frame", ""})
	checkGolden(t, "repeat-last-command", got)
	for _, want := range []string{
		"(sfdbg) \n#2  0x", "(sfdbg) \n#3  0x", // up, up
		"(sfdbg) down\n#2  0x", "(sfdbg) \n#1  0x",
		"(sfdbg) x/2xg $sp\n0x7ffe7d924f60:",       // frame 1's SP
		"(sfdbg) \n0x7ffe7d924f70:",                // x/2xg continues 16 bytes on
		"(sfdbg) x\n0x7ffe7d924f80:",               // x continues, one unit
		"(sfdbg) list\n57\t",                       // around frame 0's line 62
		"(sfdbg) \n67\t",                           // list continues
		"(sfdbg) \n$2 = (void *) 0x7ffe7d924f58\n", // print repeats
	} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "not possible on a snapshot"); n != 4 {
		t.Errorf("si and c with their repetitions failed %d times, want 4:\n%s", n, got)
	}
	if !strings.HasSuffix(got, "(sfdbg) frame\n#0  spin_here () at testdata/src/deep.c:62\n62\t\twhile (!spin_release)\n    sframe agree, fp differs, code agree\n(sfdbg) \n") {
		t.Errorf("frame was repeated:\n%s", got)
	}
	batch, _ := transcript(t, "deep-spin", []string{"up", "", "frame"})
	if strings.Count(batch, "#1  0x") != 2 || strings.Contains(batch, "#2  0x") {
		t.Errorf("an empty line in a batch repeated a command:\n%s", batch)
	}
}
