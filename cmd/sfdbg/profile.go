package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profiled runs f, writing a CPU profile (runtime/pprof; read it with
// `go tool pprof`) to the file named by $SFDBG_CPUPROFILE when it is set.
// It is how sfdbg's own speed is studied (scripts/bench-bt.sh).
func profiled(f func() int) int {
	path := os.Getenv("SFDBG_CPUPROFILE")
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sfdbg: SFDBG_CPUPROFILE: %v\n", err)
		return f()
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		fmt.Fprintf(os.Stderr, "sfdbg: SFDBG_CPUPROFILE: %v\n", err)
		return f()
	}
	defer pprof.StopCPUProfile()
	return f()
}
