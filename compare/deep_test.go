package compare

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
)

// stackMem is a stack image mapped at base, for synthetic stacks.
type stackMem struct {
	base uint64
	b    []byte
}

func (m *stackMem) ReadAt(p []byte, addr uint64) (int, error) {
	if addr < m.base || addr-m.base >= uint64(len(m.b)) {
		return 0, fmt.Errorf("address %#x not in the stack image", addr)
	}
	n := copy(p, m.b[addr-m.base:])
	if n < len(p) {
		return n, fmt.Errorf("read past the stack image at %#x", addr+uint64(n))
	}
	return n, nil
}

func (m *stackMem) ReadUint64(addr uint64) (uint64, error) {
	if addr < m.base || addr-m.base+8 > uint64(len(m.b)) {
		return 0, &frames.MemoryError{Addr: addr, Err: fmt.Errorf("not in the stack image")}
	}
	return binary.LittleEndian.Uint64(m.b[addr-m.base:]), nil
}

// Link-time addresses in testdata/bin/deep-v3-O2 (objdump -d): the return
// address of level4_recursive's call to itself, whose row is CFA = rsp+16,
// RA at c-8, RBX at c-16 (push %rbx; call level4_recursive).
const (
	deepBias        = 0x555555554000
	recursiveRetPC  = 0x1662
	recursiveFrame  = 16
	deepStackBase   = 0x7ff000000000
	deepModuleLimit = 0x5000
)

// deepStack builds a stack of n frames of level4_recursive calling itself,
// the outermost returning to 0 (the end of the trace), and returns the
// space and frame 0's registers.
func deepStack(tb testing.TB, n int) (*frames.Space, frames.Regs) {
	tb.Helper()
	p := filepath.Join("..", "testdata", "bin", "deep-v3-O2")
	mod := &frames.Module{Name: "deep-v3-O2", Path: p, OpenPath: p, Start: deepBias, End: deepBias + deepModuleLimit, Bias: deepBias}
	mem := &stackMem{base: deepStackBase, b: make([]byte, n*recursiveFrame+64)}
	for k := range n {
		cfa := uint64((k + 1) * recursiveFrame)
		ra := uint64(deepBias + recursiveRetPC)
		if k == n-1 {
			ra = 0
		}
		binary.LittleEndian.PutUint64(mem.b[cfa-8:], ra)
		binary.LittleEndian.PutUint64(mem.b[cfa-16:], uint64(k)) // saved RBX
	}
	regs := frames.NewRegs(arch.AMD64Arch)
	regs.Set(frames.RIP, deepBias+recursiveRetPC)
	regs.Set(frames.RSP, deepStackBase)
	regs.Set(frames.RBP, 0)
	return &frames.Space{Mem: mem, Modules: frames.NewModules(mod)}, regs
}

func TestDeepSyntheticStackIsUnwoundWholeAndAgrees(t *testing.T) {
	const n = 5000
	space, regs := deepStack(t, n)
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"all methods", Options{MaxDepth: n + 1}},
		{"all methods with independent traces", Options{MaxDepth: n + 1, Independent: true}},
		{"sframe alone", Options{Methods: OnlySFrame, MaxDepth: n + 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := Unwind(space, regs, tc.opts)
			if len(tr.Frames) != n || !tr.Complete() || tr.Truncated {
				t.Fatalf("%d frames, stop %v, truncated %v; want %d complete", len(tr.Frames), tr.Stop, tr.Truncated, n)
			}
			if tc.opts.Methods == All && (tr.Agree != n || tr.Disagree != 0) {
				t.Errorf("SFrame agrees at %d, disagrees at %d of %d frames", tr.Agree, tr.Disagree, n)
			}
			for _, it := range tr.Independent {
				if it.Method == frames.MethodSFrame && (len(it.Frames) != n || it.Frames[n-1].Matches != n-1) {
					t.Errorf("independent SFrame trace: %d frames, last matches %d", len(it.Frames), it.Frames[len(it.Frames)-1].Matches)
				}
			}
		})
	}
	t.Run("a depth limit cuts the trace and says so", func(t *testing.T) {
		tr := Unwind(space, regs, Options{MaxDepth: 100})
		if len(tr.Frames) != 100 || !tr.Truncated || tr.Complete() {
			t.Fatalf("%d frames, truncated %v", len(tr.Frames), tr.Truncated)
		}
		doc := tr.Document(1, "t")
		if !doc.Truncated {
			t.Error(`JSON lacks "truncated": true`)
		}
	})
}

// BenchmarkUnwindDeepStack unwinds a synthetic 100,000-frame stack with the
// three methods compared (and alone, and with independent traces), and
// reports time and allocated bytes per frame.
func BenchmarkUnwindDeepStack(b *testing.B) {
	const n = 100_000
	space, regs := deepStack(b, n)
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"all", Options{MaxDepth: n}},
		{"all-independent", Options{MaxDepth: n, Independent: true}},
		{"sframe", Options{Methods: OnlySFrame, MaxDepth: n}},
		{"cfi", Options{Methods: OnlyCFI, MaxDepth: n}},
		{"fp", Options{Methods: OnlyFP, MaxDepth: n}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			Unwind(space, regs, tc.opts) // load the module's data once
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			frames := 0
			for b.Loop() {
				frames += len(Unwind(space, regs, tc.opts).Frames)
			}
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames), "ns/frame")
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(frames), "B/frame")
		})
	}
}

// BenchmarkUnwindMillionFrames unwinds a synthetic 1,000,000-frame stack
// with the three methods compared (what "sfdbg bt --max-depth 1000000"
// does per thread) and reports seconds and peak heap per trace.
func BenchmarkUnwindMillionFrames(b *testing.B) {
	const n = MaxDepthLimit
	space, regs := deepStack(b, n)
	Unwind(space, regs, Options{MaxDepth: 16}) // load the module's data once
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	for b.Loop() {
		tr := Unwind(space, regs, Options{MaxDepth: n})
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc-base)
		if len(tr.Frames) != n {
			b.Fatalf("%d frames", len(tr.Frames))
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/trace")
	b.ReportMetric(float64(peak)/(1<<20), "MiB-heap")
}
