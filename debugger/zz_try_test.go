package debugger

import (
	"testing"
)

func TestTryREPL(t *testing.T) {
	cmd := startFixture(t, "deep-v3-O2", "threads")
	tg, err := Attach(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	ui := &ScriptUI{Echo: true}
	s := NewSession(tg, ui)
	s.Batch = true
	s.RunBatch([]string{"bt", "info threads", "thread 2", "bt", "bt sframe", "bt cfi", "bt fp", "up 2", "info frame", "info sframe", "info registers", "x/4xg $sp", "x/2a $cfa-16", "info shared", "thread apply all bt 3", "frame 1", "down", "down", "help", "help bt", "info", "foo", "s"})
	s.Close()
	t.Log("\n" + ui.Out.String())
	checkRunning(t, cmd.Process.Pid)
}
