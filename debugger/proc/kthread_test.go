package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestKernelThreadIsSaidToBeOne: ptrace refuses a kernel thread with EPERM;
// the sentence says it is a kernel thread, not "a setuid program, ...".
func TestKernelThreadIsSaidToBeOne(t *testing.T) {
	if isKernelThread(os.Getpid()) {
		t.Error("the test process is taken for a kernel thread")
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || !isKernelThread(pid) {
			continue
		}
		msg := AttachErrorOf(pid, syscall.EPERM).Error()
		if !strings.Contains(msg, "it is a kernel thread, with no user space to unwind") || strings.Contains(msg, "setuid") {
			t.Errorf("process %d: %q", pid, msg)
		}
		return
	}
	t.Skip("no kernel thread visible in /proc (a PID namespace without them)")
}
