//go:build !amd64

package frames

import (
	"fmt"
	"runtime"
)

// threadRegsOf is not needed on other hosts: the live tests of this
// package trace x86-64 fixtures, and they skip where the test binary is
// not x86-64.
func threadRegsOf(tid int) (Regs, error) {
	return Regs{}, fmt.Errorf("thread %d: the live tests read x86-64 registers; this test binary is %s", tid, runtime.GOARCH)
}
