package code

import (
	"path/filepath"
	"syscall"
	"testing"
)

// cpuSeconds is the process's user+system CPU time: on a shared, loaded
// machine instructions per CPU-second say more than per wall-second.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// reportSpeed reports n instructions per iteration as instructions per
// wall-second and per CPU-second since cpu0.
func reportSpeed(b *testing.B, n int, cpu0 float64) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "instr/s")
	if c := cpuSeconds() - cpu0; c > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/c, "instr/cpu-s")
	}
}

// BenchmarkAnalyzeSQLite walks every function of the SQLite fixture (one
// pass, known noreturn names, jump tables resolved) and reports the speed in
// instructions per second (the linear sweep's count, the denominator of
// coverage).
func BenchmarkAnalyzeSQLite(b *testing.B) {
	p := loadProgram(b, filepath.Join("..", "..", "testdata", "bin", "sqlite-v3"))
	n := 0
	for _, fn := range p.funcs {
		n += sweep(fn.code, fn.addr)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		for _, fn := range p.funcs {
			Analyze(amd64, fn.code, fn.addr, &Options{NoReturn: p.noReturn, JumpTable: X86JumpTables(fn.code, fn.addr, p.read)})
		}
	}
	reportSpeed(b, n, cpu0)
}
