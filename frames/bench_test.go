package frames

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// threadCPU measures the CPU time of the benchmark's (locked) thread, so
// that figures stay meaningful on a loaded machine where wall time
// includes waiting for a CPU. It reports "cpu-ns/<unit>" (and, with
// stopWall, "ns/<unit>").
type threadCPU struct {
	b     *testing.B
	start int64
}

func threadNow() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return ts.Nano()
}

func startCPU(b *testing.B) *threadCPU {
	runtime.LockOSThread()
	b.ResetTimer()
	return &threadCPU{b: b, start: threadNow()}
}

// stop reports the thread's CPU time per unit, perOp units to an op.
func (c *threadCPU) stop(perOp int, unit string) {
	ns := threadNow() - c.start
	c.b.StopTimer()
	runtime.UnlockOSThread()
	c.b.ReportMetric(float64(ns)/float64(c.b.N*perOp), "cpu-ns/"+unit)
}

// stopWall is stop that also reports the wall time per unit.
func (c *threadCPU) stopWall(perOp int, unit string) {
	c.stop(perOp, unit)
	c.b.ReportMetric(float64(c.b.Elapsed().Nanoseconds())/float64(c.b.N*perOp), "ns/"+unit)
}

// recursionStack lays out n frames of mid (SP-based, 48 bytes) below a
// leaf, ending in a return address of 0, and returns the leaf's registers.
func recursionStack(s *stackImage, x uint64, n int) Regs {
	s.put(x, rt(fnMid+0x21))
	for i := 0; i < n; i++ {
		ra := rt(fnMid + 0x21)
		if i == n-1 {
			ra = 0
		}
		s.put(x+8+uint64(i)*48+40, ra)
	}
	return regs(rt(fnLeaf), x, 0)
}

// fpChainStack lays out n frame records, ending in FP 0.
func fpChainStack(s *stackImage, x uint64, n int) Regs {
	for i := 0; i < n; i++ {
		rec := x + 0x20 + uint64(i)*0x30
		next := rec + 0x30
		if i == n-1 {
			next = 0
		}
		s.put(rec, next)
		s.put(rec+8, rt(fnMain+0x31))
	}
	return regs(rt(fnMain+0x10), x, x+0x20)
}

// benchTrace unwinds the whole synthetic stack b.N times and reports the
// cost per frame.
func benchTrace(b *testing.B, mk func(*Space) Unwinder, build func(*stackImage, uint64, int) Regs) {
	const depth = 64
	s := newStack(stackBase, 4096)
	r := build(s, stackBase+0x100, depth)
	sp := progSpace(b, s.mem())
	u := mk(sp)
	frames := 0
	for st := NewStack(u, r, sp, StackOptions{}); st.Next(); {
		frames++
	}
	if frames != depth+1 {
		b.Fatalf("%d frames, want %d", frames, depth+1)
	}
	b.ReportAllocs()
	c := startCPU(b)
	for i := 0; i < b.N; i++ {
		st := NewStack(u, r, sp, StackOptions{})
		for st.Next() {
		}
	}
	c.stop(frames, "frame")
}

func BenchmarkSFrameTrace(b *testing.B) { benchTrace(b, sfu, recursionStack) }
func BenchmarkFPTrace(b *testing.B)     { benchTrace(b, fpu, fpChainStack) }

// benchStep measures one Step of an unwinder from a frame, module loaded.
func benchStep(b *testing.B, u Unwinder, f Frame) {
	if _, err := u.Step(&f); err != nil {
		b.Fatal(err)
	}
	g := new(Frame)
	b.ReportAllocs()
	c := startCPU(b)
	for i := 0; i < b.N; i++ {
		*g = f
		if _, err := u.Step(g); err != nil {
			b.Fatal(err)
		}
	}
	c.stop(1, "op")
}

// nopMemory returns zeros without touching anything: Step's cost without
// the memory reads.
type nopMemory struct{}

func (nopMemory) ReadAt(p []byte, addr uint64) (int, error) {
	clear(p)
	return len(p), nil
}

func (nopMemory) ReadUint64(addr uint64) (uint64, error) { return 0, nil }

func BenchmarkSFrameStep(b *testing.B) {
	for _, c := range []struct {
		name string
		mem  func(*stackImage) Memory
	}{
		{"SliceMemory", func(s *stackImage) Memory { return s.mem() }},
		{"NoMemory", func(*stackImage) Memory { return nopMemory{} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := newStack(stackBase, 4096)
			r := recursionStack(s, stackBase+0x100, 8)
			sp := progSpace(b, c.mem(s))
			u := &SFrameUnwinder{Space: sp}
			// A caller frame in mid's body (FRE 2 of 5).
			f := Frame{Level: 1, PC: rt(fnMid + 0x21), Regs: r, Module: sp.Modules.Find(rt(fnMid))}
			benchStep(b, u, f)
		})
	}
}

func BenchmarkFPStep(b *testing.B) {
	s := newStack(stackBase, 4096)
	r := fpChainStack(s, stackBase+0x100, 8)
	sp := progSpace(b, s.mem())
	benchStep(b, &FPUnwinder{Space: sp}, Frame{Level: 1, PC: rt(fnMain + 0x31), Regs: r})
}

// BenchmarkFirstUnwind measures the first step through a module: opening
// its ELF image, finding and parsing .sframe, then one step.
func BenchmarkFirstUnwind(b *testing.B) {
	b.Run("synthetic", func(b *testing.B) {
		s := newStack(stackBase, 4096)
		r := recursionStack(s, stackBase+0x100, 8)
		mem := s.mem()
		img := progELF(b)
		b.ReportAllocs()
		c := startCPU(b)
		for i := 0; i < b.N; i++ {
			m := &Module{Name: "prog", ELF: img, Start: progBias, End: progBias + 0x4000, Bias: progBias}
			sp := &Space{Mem: mem, Modules: NewModules(m)}
			f := Frame{PC: r.PC(), Regs: r, Interrupted: true}
			if _, err := (&SFrameUnwinder{Space: sp}).Step(&f); err != nil {
				b.Fatal(err)
			}
		}
		c.stop(1, "op")
	})
	b.Run("deep-v3-O2 file", func(b *testing.B) {
		path := fixture(b, "deep-v3-O2")
		probe := &Module{Name: "deep", OpenPath: path, Start: 0, End: 1 << 40}
		pc, _, ok := probe.LookupSymbol("spin_here")
		probe.Close()
		if !ok {
			b.Fatal("no spin_here")
		}
		s := newStack(stackBase, 64)
		mem := s.mem()
		r := regs(pc, stackBase+0x40, 0)
		b.ReportAllocs()
		c := startCPU(b)
		for i := 0; i < b.N; i++ {
			m := &Module{Name: "deep", OpenPath: path, Start: 0, End: 1 << 40}
			sp := &Space{Mem: mem, Modules: NewModules(m)}
			f := Frame{PC: pc, Regs: r, Interrupted: true}
			if _, err := (&SFrameUnwinder{Space: sp}).Step(&f); err != nil {
				b.Fatal(err)
			}
			m.Close()
		}
		c.stop(1, "op")
	})
}
