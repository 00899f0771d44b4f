package frames

import "testing"

// BenchmarkCodeStep is BenchmarkCFIStep for the code: every step of the
// same snapshot (deep-v3-O2 in its signal handler's chain, through libc)
// with the modules' walks cached, then whole traces.
func BenchmarkCodeStep(b *testing.B) {
	regs, mem, maps := cfiSnapshot(b)
	mods, err := ModulesFromMappings(maps, "/", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer mods.Close()
	space := &Space{Mem: mem, Modules: mods}
	u := &CodeUnwinder{Space: space}
	frames, err := Trace(u, regs, space, StackOptions{})
	if err != nil || len(frames) < 10 {
		b.Fatalf("warm-up unwind: %d frames, %v", len(frames), err)
	}
	steps := frames[:len(frames)-1]
	b.Run("step", func(b *testing.B) {
		b.ReportAllocs()
		f := make([]Frame, len(steps))
		t := startCPU(b)
		for i := 0; i < b.N; i++ {
			copy(f, steps)
			for k := range f {
				if _, err := u.Step(&f[k]); err != nil {
					b.Fatal(err)
				}
			}
		}
		t.stopWall(len(steps), "step")
	})
	b.Run("trace", func(b *testing.B) {
		b.ReportAllocs()
		t := startCPU(b)
		for i := 0; i < b.N; i++ {
			if _, err := Trace(u, regs, space, StackOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		t.stopWall(len(steps), "step")
	})
}

// BenchmarkCodeFirstUnwind is BenchmarkCFIFirstUnwind for the code: fresh
// modules each time, so every function on the stack is read from its file
// and walked once (frames/code.Analyze), as a one-shot bt does.
func BenchmarkCodeFirstUnwind(b *testing.B) {
	regs, mem, maps := cfiSnapshot(b)
	b.ReportAllocs()
	t := startCPU(b)
	for i := 0; i < b.N; i++ {
		mods, err := ModulesFromMappings(maps, "/", nil)
		if err != nil {
			b.Fatal(err)
		}
		space := &Space{Mem: mem, Modules: mods}
		if _, err := Trace(&CodeUnwinder{Space: space}, regs, space, StackOptions{}); err != nil {
			b.Fatal(err)
		}
		mods.Close()
	}
	t.stopWall(1, "unwind")
}
