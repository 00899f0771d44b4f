package code

import (
	"path/filepath"
	"testing"
)

// BenchmarkAnalyzeSQLite walks every function of the SQLite fixture (one
// pass, known noreturn names, no jump tables) and reports the speed in
// instructions per second (the linear sweep's count, the denominator of
// coverage).
func BenchmarkAnalyzeSQLite(b *testing.B) {
	p := loadProgram(b, filepath.Join("..", "..", "testdata", "bin", "sqlite-v3"))
	n := 0
	for _, fn := range p.funcs {
		n += sweep(fn.code, fn.addr)
	}
	opts := &Options{NoReturn: p.noReturn}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, fn := range p.funcs {
			Analyze(amd64, fn.code, fn.addr, opts)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "instr/s")
}
