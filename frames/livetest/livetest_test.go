package livetest

import (
	"os"
	"os/exec"
	"testing"
)

func TestSettleAndFreezeWaitForTheStateOfEveryThread(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, tc := range []struct{ name, prog string }{
		{"a sleeping process", "exec sleep 600"},
		{"a spinning process", "while :; do :; done"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(sh, "-c", tc.prog)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			pid := cmd.Process.Pid
			if err := Settle(pid); err != nil {
				t.Fatal(err)
			}
			thaw, err := Freeze(pid)
			if err != nil {
				t.Fatal(err)
			}
			if err := Settle(pid); err == nil {
				t.Error("Settle accepted a stopped process")
			}
			if err := thaw(); err != nil {
				t.Fatal(err)
			}
			if err := Settle(pid); err != nil {
				t.Error(err)
			}
		})
	}
	if err := Settle(1 << 30); !os.IsNotExist(err) {
		t.Errorf("Settle of a process that does not exist: %v", err)
	}
}
