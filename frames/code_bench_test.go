package frames

import "testing"

// BenchmarkCodeStep is BenchmarkCFIStep for the code: every step of the
// same snapshot (deep-v3-O2 in its signal handler's chain, through libc)
// with the modules' walks cached, then whole traces.
func BenchmarkCodeStep(b *testing.B) {
	benchSteps(b, func(sp *Space) Unwinder { return &CodeUnwinder{Space: sp} })
}

// BenchmarkCodeFirstUnwind is BenchmarkCFIFirstUnwind for the code: fresh
// modules each time, so every function on the stack is read from its file
// and walked once (frames/code.Analyze), as a one-shot bt does.
func BenchmarkCodeFirstUnwind(b *testing.B) {
	benchFirstUnwind(b, func(sp *Space) Unwinder { return &CodeUnwinder{Space: sp} })
}
