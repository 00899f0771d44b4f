package arch

import (
	"debug/elf"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// x86Fixtures are the x86-64 fixtures with a testdata/golden/NAME.insn
// (scripts/fixtures-lib.sh insn_golden).
var x86Fixtures = []string{"deep-v1-O0", "deep-v1-O2", "deep-v2-O0", "deep-v2-O2", "deep-v3-O0", "deep-v3-O2",
	"features-v1", "features-v2", "features-v3", "sqlite-v2", "sqlite-v3", "deep-cet-v3-O0", "deep-cet-v3-O2", "cet-v3"}

const fixtures = "../../testdata/bin"

// fixture returns the path of a committed fixture binary.
func fixture(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(fixtures, name)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("fixture %s missing (run scripts/build-fixtures.sh): %v", name, err)
	}
	return p
}

// readInsnGolden reads testdata/golden/NAME.insn.
func readInsnGolden(tb testing.TB, name string) []sframetest.InsnBlock {
	tb.Helper()
	b, err := sframetest.ReadInsnGolden(filepath.Join("../../testdata/golden", name+".insn"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// forEachObjdumpInsn calls fn with each instruction objdump -d found in a
// fixture (its section's bytes from the instruction on, its address and
// objdump's length).
func forEachObjdumpInsn(tb testing.TB, name string, fn func(code []byte, pc uint64, want int)) int {
	tb.Helper()
	f, err := elf.Open(fixture(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	total := 0
	for _, b := range readInsnGolden(tb, name) {
		s := f.Section(b.Sec)
		if s == nil {
			tb.Fatalf("no section %s", b.Sec)
		}
		data, err := s.Data()
		if err != nil {
			tb.Fatal(err)
		}
		off := int(b.Start - s.Addr)
		for _, want := range b.Lens {
			total++
			fn(data[off:], s.Addr+uint64(off), want)
			off += want
		}
	}
	if total == 0 {
		tb.Fatal("no instructions in the golden file")
	}
	return total
}

func TestX86BoundariesMatchObjdump(t *testing.T) {
	decoders := []struct {
		name string
		len  func([]byte) (int, bool)
	}{{"Len", X86{}.Len}, {"the table decoder alone", x86LenTable}, {"Decode", func(code []byte) (int, bool) {
		var in Inst
		err := X86{}.Decode(code, 0, &in)
		return in.Len, err == nil
	}}, {"Format", func(code []byte) (int, bool) {
		_, n := X86{}.Format(code, 0, nil)
		return n, n > 0
	}}}
	for _, name := range x86Fixtures {
		for _, d := range decoders {
			t.Run(name+": "+d.name+" finds objdump's instructions in every executable section", func(t *testing.T) {
				bad := 0
				total := forEachObjdumpInsn(t, name, func(code []byte, pc uint64, want int) {
					if got, ok := d.len(code); !ok || got != want {
						if bad++; bad <= 10 {
							t.Errorf("%#x: length %d (ok %v), objdump %d: % x", pc, got, ok, want, code[:min(16, len(code))])
						}
					}
				})
				if bad > 0 {
					t.Errorf("%d of %d instructions differ from objdump's", bad, total)
				}
			})
		}
	}
}

func TestX86LenDelimitsWhatGNUToolsEmit(t *testing.T) {
	for _, tc := range []struct {
		name string
		code []byte
		want int
	}{
		{"endbr64 is one 4-byte instruction", []byte{0xf3, 0x0f, 0x1e, 0xfa, 0x55}, 4},
		{"endbr32 is one 4-byte instruction", []byte{0xf3, 0x0f, 0x1e, 0xfb, 0x55}, 4},
		{"rdsspq is 5 bytes", []byte{0xf3, 0x48, 0x0f, 0x1e, 0xc8}, 5},
		{"notrack jmp *%rax is 3 bytes", []byte{0x3e, 0xff, 0xe0}, 3},
		{"notrack call *(%rax) is 3 bytes", []byte{0x3e, 0xff, 0x10}, 3},
		{"bnd jmp *GOT(%rip) is 7 bytes", []byte{0xf2, 0xff, 0x25, 1, 2, 3, 4}, 7},
		{"bnd jmp rel32 is 6 bytes", []byte{0xf2, 0xe9, 1, 2, 3, 4}, 6},
		{"bnd ret is 2 bytes", []byte{0xf2, 0xc3}, 2},
		{"bnd call rel32 is 6 bytes", []byte{0xf2, 0xe8, 1, 2, 3, 4}, 6},
		{"the IBT PLT's nopw is 6 bytes", []byte{0x66, 0x0f, 0x1f, 0x44, 0, 0}, 6},
		{"the 10-byte cs nopw is one instruction", []byte{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0}, 10},
		{"movabs imm64 is 10 bytes", []byte{0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8}, 10},
		{"vzeroupper is 3 bytes", []byte{0xc5, 0xf8, 0x77}, 3},
		{"EVEX vmovdqu64 with disp8 is 7 bytes", []byte{0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x46, 0x01}, 7},
		{"enter $0x10,$0 is 4 bytes", []byte{0xc8, 0x10, 0, 0}, 4},
		{"data16 xor $imm32,%rax is 7 bytes: REX.W overrides 66", []byte{0x66, 0x48, 0x35, 1, 2, 3, 4}, 7},
		{"data16 mov $imm32,%rax is 8 bytes", []byte{0x66, 0x48, 0xc7, 0xc0, 1, 2, 3, 4}, 8},
		{"mov $imm16,%ax is 4 bytes", []byte{0x66, 0xb8, 1, 2}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := (X86{}).Len(tc.code); !ok || got != tc.want {
				t.Errorf("Len = %d, %v; want %d", got, ok, tc.want)
			}
			if got, ok := x86LenTable(tc.code); !ok || got != tc.want {
				t.Errorf("x86LenTable = %d, %v; want %d", got, ok, tc.want)
			}
		})
	}
	t.Run("truncated code is not delimited", func(t *testing.T) {
		for _, code := range [][]byte{{0xe8, 1, 2}, {0xf3, 0x0f}, {0x48}, {0x0f, 0x1f, 0x84, 0}, {0xc5}, {0xc8, 0x10, 0}} {
			if n, ok := x86LenTable(code); ok {
				t.Errorf("x86LenTable(% x) = %d, want not ok", code, n)
			}
		}
	})
}

// sqliteText returns sqlite-v3's .text, the benchmarks' code.
func sqliteText(b *testing.B) []byte {
	f, err := elf.Open(fixture(b, "sqlite-v3"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	text, err := f.Section(".text").Data()
	if err != nil {
		b.Fatal(err)
	}
	return text
}

// cpuSeconds is the process's user+system CPU time: on a shared, loaded
// machine instructions per CPU-second say more than per wall-second.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// benchSweep decodes sqlite-v3's .text from start to end b.N times with
// step (which returns an instruction's length, 0 for bytes that do not
// decode: one is skipped) and reports instructions per wall-second and per
// CPU-second.
func benchSweep(b *testing.B, step func(code []byte, pc uint64) int) {
	text := sqliteText(b)
	n := 0
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		for off := 0; off < len(text); n++ {
			l := step(text[off:], uint64(off))
			if l == 0 {
				l = 1
			}
			off += l
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "insts/s")
	if c := cpuSeconds() - cpu0; c > 0 {
		b.ReportMetric(float64(n)/c, "insts/cpu-s")
	}
}

// BenchmarkX86Len measures instruction delimiting alone over sqlite-v3's
// .text.
func BenchmarkX86Len(b *testing.B) {
	benchSweep(b, func(code []byte, _ uint64) int {
		n, _ := X86{}.Len(code)
		return n
	})
}

// BenchmarkX86Decode measures Decode (length, class, stack operations)
// over sqlite-v3's .text; the code oracle's target is 3 M instructions/s
// for the whole check.
func BenchmarkX86Decode(b *testing.B) {
	var in Inst
	benchSweep(b, func(code []byte, pc uint64) int {
		if (X86{}).Decode(code, pc, &in) != nil {
			return 0
		}
		return in.Len
	})
}

func TestX86RIPRef(t *testing.T) {
	for _, c := range []struct {
		name   string
		code   []byte
		n      int
		target uint64
		ref    bool
	}{
		{"lea 0xff1(%rip),%rcx", []byte{0x48, 0x8d, 0x0d, 0xf1, 0x0f, 0x00, 0x00}, 7, 0x1000 + 7 + 0xff1, true},
		{"movsd -0x10(%rip),%xmm0", []byte{0xf2, 0x0f, 0x10, 0x05, 0xf0, 0xff, 0xff, 0xff}, 8, 0x1000 + 8 - 0x10, true},
		{"cmpl $0x1,0x10(%rip): the immediate after the displacement", []byte{0x83, 0x3d, 0x10, 0x00, 0x00, 0x00, 0x01}, 7, 0x1000 + 7 + 0x10, true},
		{"vmovdqa 0x20(%rip),%ymm1 (VEX)", []byte{0xc5, 0xfd, 0x6f, 0x0d, 0x20, 0x00, 0x00, 0x00}, 8, 0x1000 + 8 + 0x20, true},
		{"mov 0x10(%rbp),%rax", []byte{0x48, 0x8b, 0x45, 0x10}, 4, 0, false},
		{"lea 0x10(,%rax,4),%rcx: SIB with no base, not RIP", []byte{0x48, 0x8d, 0x0c, 0x85, 0x10, 0x00, 0x00, 0x00}, 8, 0, false},
		{"lea 0x10(%eip),%ecx: 32-bit addressing", []byte{0x67, 0x8d, 0x0d, 0x10, 0x00, 0x00, 0x00}, 7, 0, false},
	} {
		n, target, ref, ok := X86{}.RIPRef(c.code, 0x1000)
		if !ok || n != c.n || ref != c.ref || ref && target != c.target {
			t.Errorf("%s: %d, %#x, %v, %v; want %d, %#x, %v", c.name, n, target, ref, ok, c.n, c.target, c.ref)
		}
	}
}
