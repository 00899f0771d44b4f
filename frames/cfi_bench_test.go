package frames

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sfdbg/sfdbg/sframe/elfobj"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// cfiSnapshot stops the deep fixture in signal mode (the deepest stack,
// through libc's signal trampoline) and returns its registers, a copy of
// its stack and its mappings; the process is gone when it returns.
func cfiSnapshot(b *testing.B) (Regs, *SliceMemory, []Mapping) {
	b.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		b.Skip("needs linux/amd64")
	}
	path, _ := filepath.Abs(filepath.Join("..", "testdata", "bin", "deep-v3-O2"))
	if _, err := os.Stat(path); err != nil {
		b.Skipf("fixture missing: %v", err)
	}
	cmd := cfiStartFixture(b, path, "signal")
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		b.Fatal(err)
	}
	maps, err := ReadMaps(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	type snap struct {
		regs Regs
		mem  *SliceMemory
		err  error
	}
	ch := make(chan snap)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var s snap
		if s.err = unix.PtraceAttach(pid); s.err != nil {
			ch <- s
			return
		}
		defer unix.PtraceDetach(pid)
		var ws unix.WaitStatus
		if _, s.err = unix.Wait4(pid, &ws, unix.WALL, nil); s.err != nil {
			ch <- s
			return
		}
		if s.regs, s.err = threadRegsOf(pid); s.err != nil {
			ch <- s
			return
		}
		for _, m := range maps {
			if m.Path == "[stack]" {
				lo := s.regs.SP() - 256
				s.mem = &SliceMemory{Base: lo, Data: make([]byte, m.End-lo)}
				_, s.err = (&ProcMemory{Pid: pid}).ReadAt(s.mem.Data, lo)
			}
		}
		if s.mem == nil && s.err == nil {
			s.err = fmt.Errorf("no [stack] mapping")
		}
		ch <- s
	}()
	s := <-ch
	if s.err != nil {
		b.Skipf("cannot snapshot the fixture: %v", s.err)
	}
	return s.regs, s.mem, maps
}

// BenchmarkCFIStep measures one CFIUnwinder step with the modules' CFI
// loaded and the row tables built, over the 18 steps of the signal-mode
// stack (19 frames, through libc's signal trampoline) of a stack snapshot:
// "step" calls Step alone on each frame, "trace" runs the whole unwind
// through Trace (the Stack iterator's checks and copies included).
func BenchmarkCFIStep(b *testing.B) {
	benchSteps(b, func(sp *Space) Unwinder { return &CFIUnwinder{Space: sp} })
}

// benchSteps is BenchmarkCFIStep's body for the unwinder mk makes on the
// snapshot's space (BenchmarkCodeStep uses it too).
func benchSteps(b *testing.B, mk func(*Space) Unwinder) {
	regs, mem, maps := cfiSnapshot(b)
	mods, err := ModulesFromMappings(maps, "/", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer mods.Close()
	space := &Space{Mem: mem, Modules: mods}
	u := mk(space)
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

// BenchmarkCFIFirstUnwind measures the first unwind of the same stack with
// fresh modules: opening the ELF files of the fixture, libc and ld.so,
// finding the FDEs the unwind touches through their .eh_frame_hdr,
// reading and parsing only those and their CIEs (cfi_hdr.go; a module
// without a usable .eh_frame_hdr, or with .debug_frame, parses all of its
// CFI instead), and building their rows.
func BenchmarkCFIFirstUnwind(b *testing.B) {
	benchFirstUnwind(b, func(sp *Space) Unwinder { return &CFIUnwinder{Space: sp} })
}

// benchFirstUnwind is BenchmarkCFIFirstUnwind's body for the unwinder mk
// makes (BenchmarkCodeFirstUnwind uses it too).
func benchFirstUnwind(b *testing.B, mk func(*Space) Unwinder) {
	regs, mem, maps := cfiSnapshot(b)
	b.ReportAllocs()
	t := startCPU(b)
	for i := 0; i < b.N; i++ {
		mods, err := ModulesFromMappings(maps, "/", nil)
		if err != nil {
			b.Fatal(err)
		}
		space := &Space{Mem: mem, Modules: mods}
		if _, err := Trace(mk(space), regs, space, StackOptions{}); err != nil {
			b.Fatal(err)
		}
		mods.Close()
	}
	t.stopWall(1, "unwind")
}

// cfiLibcPath returns the path of the system libc, the largest .eh_frame
// at hand.
func cfiLibcPath(b *testing.B) string {
	for _, p := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib64/libc.so.6", "/lib64/libc.so.6"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	b.Skip("no libc.so.6")
	return ""
}

// cfiLibc opens the system libc.
func cfiLibc(b *testing.B) *elf.File {
	f, err := elf.Open(cfiLibcPath(b))
	if err != nil {
		b.Skip(err)
	}
	return f
}

// BenchmarkCFIFirstRow measures the first CFI lookup in libc with a cold
// module, what a one-shot backtrace pays per library: opening the ELF file
// and finding the row at one PC (in clock_nanosleep, where a sleeping
// thread sits). "eager" parses every FDE of .eh_frame first (loadCFI),
// "lazy" finds the FDE through .eh_frame_hdr and parses only it and its
// CIE (loadCFIIndex); "open" only opens the file, the floor of both.
func BenchmarkCFIFirstRow(b *testing.B) {
	path := cfiLibcPath(b)
	m := &Module{Name: "libc.so.6", OpenPath: path, Start: 0, End: 1 << 47}
	pc, _, ok := m.LookupSymbol("clock_nanosleep")
	m.Close()
	if !ok {
		b.Skip("no clock_nanosleep in libc")
	}
	pc += 0x10
	for _, mode := range []string{"eager", "lazy", "open"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			t := startCPU(b)
			for i := 0; i < b.N; i++ {
				m := &Module{Name: "libc.so.6", OpenPath: path, Start: 0, End: 1 << 47}
				if _, err := m.load(); err != nil {
					b.Fatal(err)
				}
				switch mode {
				case "eager":
					m.data.cfiHdrOnce.Do(func() {}) // no index: CFIRow loads every FDE
				case "open":
					m.Close()
					continue
				}
				if _, err := m.CFIRow(pc); err != nil {
					b.Fatal(err)
				}
				m.Close()
			}
			t.stopWall(1, "lookup")
		})
	}
}

// BenchmarkLoadCFI measures loadCFI on libc: reading .eh_frame and parsing
// every CIE and FDE (row tables are built later, per FDE, on first use).
func BenchmarkLoadCFI(b *testing.B) {
	f := cfiLibc(b)
	defer f.Close()
	b.ReportAllocs()
	t := startCPU(b)
	for i := 0; i < b.N; i++ {
		if _, err := loadCFI(elfobj.Link(f), 0); err != nil {
			b.Fatal(err)
		}
	}
	t.stopWall(1, "load")
}

// BenchmarkCFIAllRows measures building the row tables of every FDE of
// libc, what a static check over the whole module needs, and the same
// rows obtained the other way, by Delve's EstablishFrame at each row start
// (which re-runs the CIE and FDE programs every time and still does not
// say where rows end).
func BenchmarkCFIAllRows(b *testing.B) {
	f := cfiLibc(b)
	defer f.Close()
	tab, err := loadCFI(elfobj.Link(f), 0)
	if err != nil {
		b.Fatal(err)
	}
	var starts []uint64
	for _, fde := range tab.fdes {
		rows, _ := tab.rowsOf(fde)
		for _, r := range rows {
			starts = append(starts, r.Start)
		}
	}
	b.Run("row tables", func(b *testing.B) {
		b.ReportAllocs()
		t := startCPU(b)
		for i := 0; i < b.N; i++ {
			t2, _ := loadCFI(elfobj.Link(f), 0)
			for _, fde := range t2.fdes {
				if _, err := t2.rowsOf(fde); err != nil {
					b.Fatal(err)
				}
			}
		}
		t.stopWall(len(starts), "row")
	})
}

// hostileEH returns an .eh_frame of about size bytes whose FDEs (16 KiB of
// instructions each) end a row every three bytes, each changing one of
// the k rules its prologue gives (DW_CFA_offset), or, with k 0, end a row
// at every byte (DW_CFA_advance_loc alone): the worst cases per byte of
// rows that copy their rules, and of rows (frames/cfi BenchmarkRowsCost).
func hostileEH(size, k int) *ehBuilder {
	eh := &ehBuilder{addr: 0x2000}
	cie := eh.stdCIE()
	start := uint64(0x100000)
	for len(eh.buf) < size {
		p := cfiProg()
		for r := range k {
			p.offset(byte(r), 2)
		}
		rows := 0
		for p.Len() < 16<<10 {
			p.advance(1)
			if k > 0 {
				p.offset(byte(rows%k), uint64(2+(rows/k+1)&1))
			}
			rows++
		}
		eh.fde(cie, start, uint64(rows+1), p.bytes())
		start += uint64(rows+1) + 16
	}
	return eh
}

// procCPU returns the CPU time the process has used (user and system, all
// threads: the garbage collector's work included).
func procCPU() time.Duration {
	var u unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkCFIRowsCost measures what a walk over every row of a module
// costs (parseCFI, then rowsOf for every FDE, what CFIRows and the static
// check do) per byte of .eh_frame: "B/in-byte" allocated, "ns/in-byte"
// and "cpu-ns/in-byte" (the process's, GC included), and "rows/s" (and
// per CPU second), on libc, LLVM's 5 MB .eh_frame, and hostile sections
// of 2 MB (hostileEH).
//
//	go test ./frames -run '^$' -bench CFIRowsCost -benchtime 3x
func BenchmarkCFIRowsCost(b *testing.B) {
	real := func(path string) func(b *testing.B) []byte {
		return func(b *testing.B) []byte {
			f, err := elf.Open(path)
			if err != nil {
				b.Skip(err)
			}
			defer f.Close()
			s := f.Section(".eh_frame")
			if s == nil {
				b.Skipf("%s has no .eh_frame", path)
			}
			d, err := s.Data()
			if err != nil {
				b.Fatal(err)
			}
			return d
		}
	}
	hostile := func(k int) func(b *testing.B) []byte {
		return func(*testing.B) []byte { return hostileEH(2<<20, k).section() }
	}
	for _, c := range []struct {
		name string
		data func(b *testing.B) []byte
	}{
		{"libc", real("/lib/x86_64-linux-gnu/libc.so.6")},
		{"libLLVM-15", real("/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1")},
		{"hostile offsets", hostile(40)},
		{"hostile advances", hostile(0)},
	} {
		b.Run(c.name, func(b *testing.B) {
			data := c.data(b)
			var rows int
			var allocs uint64
			start, cpu := time.Now(), procCPU()
			for b.Loop() {
				rows = 0
				allocs += sframetest.Allocs(func() {
					t, err := parseCFILE(data, 0x2000, nil, 0)
					if err != nil {
						b.Fatal(err)
					}
					for _, fde := range t.fdes {
						r, _ := t.rowsOf(fde)
						rows += len(r)
					}
				})
			}
			el, cpuEl := time.Since(start), procCPU()-cpu
			n := float64(b.N) * float64(len(data))
			b.ReportMetric(float64(allocs)/n, "B/in-byte")
			b.ReportMetric(float64(el.Nanoseconds())/n, "ns/in-byte")
			b.ReportMetric(float64(cpuEl.Nanoseconds())/n, "cpu-ns/in-byte")
			b.ReportMetric(float64(rows)*float64(b.N)/el.Seconds(), "rows/s")
			b.ReportMetric(float64(rows)*float64(b.N)/cpuEl.Seconds(), "rows/cpu-s")
		})
	}
}
