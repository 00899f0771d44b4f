package compare

import (
	"bufio"
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// x86Fixtures are the x86-64 fixtures with a testdata/golden/NAME.insn
// (scripts/fixtures-lib.sh insn_golden).
var x86Fixtures = []string{"deep-v1-O0", "deep-v1-O2", "deep-v2-O0", "deep-v2-O2", "deep-v3-O0", "deep-v3-O2",
	"features-v1", "features-v2", "features-v3", "sqlite-v2", "sqlite-v3", "deep-cet-v3-O0", "deep-cet-v3-O2", "cet-v3"}

// insnBlock is one line of a .insn golden file: the instruction lengths
// objdump found decoding section sec from start.
type insnBlock struct {
	sec   string
	start uint64
	lens  []int
}

func readInsnGolden(t *testing.T, name string) []insnBlock {
	t.Helper()
	return readInsnGoldenAt(t, filepath.Join("../testdata/golden", name+".insn"))
}

// readInsnGoldenAt reads the .insn golden file at path.
func readInsnGoldenAt(t *testing.T, path string) []insnBlock {
	t.Helper()
	name := filepath.Base(path)
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []insnBlock
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			t.Fatalf("%s.insn: bad line %q", name, sc.Text())
		}
		start, err := strconv.ParseUint(f[1], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		b := insnBlock{sec: f[0], start: start, lens: make([]int, len(f[2]))}
		for i, c := range f[2] {
			n, err := strconv.ParseUint(string(c), 16, 8)
			if err != nil {
				t.Fatal(err)
			}
			b.lens[i] = int(n)
		}
		out = append(out, b)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestX86BoundariesMatchObjdump(t *testing.T) {
	decoders := []struct {
		name string
		len  func([]byte) (int, bool)
	}{{"x86Len", x86Len}, {"the table decoder alone", x86LenTable}}
	for _, name := range x86Fixtures {
		for _, d := range decoders {
			t.Run(name+": "+d.name+" finds objdump's instructions in every executable section", func(t *testing.T) {
				f, err := elf.Open(fixture(t, name))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				total, bad := 0, 0
				for _, b := range readInsnGolden(t, name) {
					s := f.Section(b.sec)
					if s == nil {
						t.Fatalf("no section %s", b.sec)
					}
					data, err := s.Data()
					if err != nil {
						t.Fatal(err)
					}
					off := int(b.start - s.Addr)
					for _, want := range b.lens {
						total++
						if got, ok := d.len(data[off:]); !ok || got != want {
							if bad++; bad <= 10 {
								t.Errorf("%s %#x: length %d (ok %v), objdump %d: % x", b.sec, s.Addr+uint64(off), got, ok, want,
									data[off:min(off+16, len(data))])
							}
						}
						off += want
					}
				}
				if total == 0 {
					t.Fatal("no instructions in the golden file")
				}
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := x86Len(tc.code); !ok || got != tc.want {
				t.Errorf("x86Len = %d, %v; want %d", got, ok, tc.want)
			}
			if got, ok := x86LenTable(tc.code); !ok || got != tc.want {
				t.Errorf("x86LenTable = %d, %v; want %d", got, ok, tc.want)
			}
		})
	}
	t.Run("truncated code is not delimited", func(t *testing.T) {
		for _, code := range [][]byte{{0xe8, 1, 2}, {0xf3, 0x0f}, {0x48}, {0x0f, 0x1f, 0x84, 0}} {
			if n, ok := x86LenTable(code); ok {
				t.Errorf("x86LenTable(% x) = %d, want not ok", code, n)
			}
		}
	})
}

func TestCheckBoundariesAreObjdumps(t *testing.T) {
	for _, name := range x86Fixtures {
		t.Run(name+": check compares at exactly objdump's instructions in every SFrame FDE", func(t *testing.T) {
			f, sec := openSFrame(t, fixture(t, name))
			c := &checker{f: f, sec: sec}
			for _, s := range f.Sections {
				if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS {
					c.text = append(c.text, textRange{addr: s.Addr, size: s.Size, r: s})
				}
			}
			var want []uint64
			for _, b := range readInsnGolden(t, name) {
				pc := b.start
				for _, n := range b.lens {
					want = append(want, pc)
					pc += uint64(n)
				}
			}
			slices.Sort(want)
			fdes := sec.FDEs()
			total := 0
			for i, own := range c.owned() {
				if len(own) == 0 {
					continue
				}
				got := slices.Clone(c.boundaries(&fdes[i], own, nil, nil))
				var exp []uint64
				for _, r := range own {
					lo, _ := slices.BinarySearch(want, r.Start)
					hi, _ := slices.BinarySearch(want, r.End)
					exp = append(exp, want[lo:hi]...)
				}
				total += len(exp)
				if !slices.Equal(got, exp) {
					t.Errorf("FDE %d [%#x, %#x): %d boundaries, objdump %d", i, fdes[i].Start, fdes[i].End(), len(got), len(exp))
				}
			}
			t.Logf("%d instructions in SFrame FDEs, as objdump delimits them", total)
		})
	}
}

// BenchmarkCheckFile measures a whole static check, reporting compared
// instructions per second (the figure for -j 1).
func BenchmarkCheckFile(b *testing.B) {
	for _, name := range []string{"sqlite-v3", "deep-cet-v3-O2", "cet-v3"} {
		b.Run(name, func(b *testing.B) {
			path := filepath.Join(fixtures, name)
			n := 0
			for i := 0; i < b.N; i++ {
				rep, err := CheckFile(path, CheckOptions{})
				if err != nil {
					b.Fatal(err)
				}
				n += rep.Summary.Instructions
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "insts/s")
		})
	}
}

// BenchmarkX86Len measures instruction delimiting alone over sqlite-v3's
// .text.
func BenchmarkX86Len(b *testing.B) {
	f, err := elf.Open(filepath.Join(fixtures, "sqlite-v3"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	text, err := f.Section(".text").Data()
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for off := 0; off < len(text); n++ {
			l, ok := x86Len(text[off:])
			if !ok {
				l = 1
			}
			off += l
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "insts/s")
}
