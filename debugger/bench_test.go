package debugger

import (
	"io"
	"testing"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

// BenchmarkSampleSeizedProcess measures one sample of a seized process:
// interrupt every thread, unwind each (SFrame alone, and the three methods
// compared with independent traces, as "sfdbg sample" does), resume. The
// fixture's spinning thread has a 14-frame stack.
func BenchmarkSampleSeizedProcess(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts compare.Options
	}{
		{"sframe", compare.Options{Methods: compare.OnlySFrame}},
		{"all-independent", compare.Options{Independent: true}},
	} {
		for _, onTracer := range []bool{false, true} {
			name := tc.name
			if onTracer {
				name += "-on-tracer"
			}
			b.Run(name, func(b *testing.B) { benchSample(b, tc.opts, onTracer) })
		}
	}
}

func benchSample(b *testing.B, opts compare.Options, onTracer bool) {
	cmd := startFixture(b, "deep-v3-O2", "spin")
	s, err := proc.Seize(cmd.Process.Pid)
	skipIfNoPtrace(b, err)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Detach()
	if err := s.Resume(); err != nil {
		b.Fatal(err)
	}
	nframes := 0
	loop := func() {
		for i := 0; i < b.N && err == nil; i++ {
			if err = s.Interrupt(); err != nil {
				return
			}
			var sp *frames.Space
			if sp, err = s.Space(); err != nil {
				return
			}
			for _, tid := range s.Threads() {
				regs, _ := s.Regs(tid)
				nframes += len(compare.Unwind(sp, regs, opts).Frames)
			}
			err = s.Resume()
		}
	}
	b.ResetTimer()
	if onTracer {
		s.Run(loop)
	} else {
		loop()
	}
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(nframes)/float64(b.N), "frames/sample")
}

// BenchmarkOneShotBacktrace measures what "sfdbg bt" does after start-up:
// seize, read the modules, unwind, detach, symbolize and print, with no
// data cached between iterations.
func BenchmarkOneShotBacktrace(b *testing.B) {
	for _, mode := range []compare.Methods{compare.OnlySFrame, compare.All} {
		b.Run(mode.String(), func(b *testing.B) {
			cmd := startFixture(b, "deep-v3-O2", "sleep")
			for i := 0; i < b.N; i++ {
				s, err := proc.Seize(cmd.Process.Pid)
				skipIfNoPtrace(b, err)
				if err != nil {
					b.Fatal(err)
				}
				pt, err := TraceProcess(s, compare.Options{Methods: mode})
				s.Detach()
				if err != nil {
					b.Fatal(err)
				}
				pt.WriteText(io.Discard, compare.TextOptions{})
				pt.Space.Modules.Close()
			}
		})
	}
}

// BenchmarkTraceStoppedStack unwinds the same stopped 12-frame stack again
// and again, with SFrame alone and with the three methods compared (as
// sample does, independent traces included): the unwinders and their
// memory reads through ProcMemory's page cache, without the stop and
// resume.
func BenchmarkTraceStoppedStack(b *testing.B) {
	cmd := startFixture(b, "deep-v3-O2", "spin")
	s, err := proc.Seize(cmd.Process.Pid)
	skipIfNoPtrace(b, err)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Detach()
	sp, err := s.Space()
	if err != nil {
		b.Fatal(err)
	}
	regs, err := s.Regs(s.Threads()[0])
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts compare.Options
	}{
		{"sframe", compare.Options{Methods: compare.OnlySFrame}},
		{"cfi", compare.Options{Methods: compare.OnlyCFI}},
		{"fp", compare.Options{Methods: compare.OnlyFP}},
		{"all", compare.Options{}},
		{"all-independent", compare.Options{Independent: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			frames := 0
			for b.Loop() {
				frames = len(compare.Unwind(sp, regs, tc.opts).Frames)
			}
			b.ReportMetric(float64(frames), "frames")
		})
	}
}
