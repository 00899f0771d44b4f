package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profiled runs f, writing a CPU profile (runtime/pprof; read it with
// `go tool pprof`) to the file named by $SFDBG_CPUPROFILE when it is set,
// and a profile of every allocation (each one sampled:
// runtime.MemProfileRate 1) to the file named by $SFDBG_MEMPROFILE. It is
// how sfdbg's own speed is studied (scripts/bench-bt.sh).
func profiled(f func() int) int {
	if path := os.Getenv("SFDBG_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 1
		defer func() {
			out, err := os.Create(path)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(out, 0)
				if cerr := out.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "sfdbg: SFDBG_MEMPROFILE: %v\n", err)
			}
		}()
	}
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
