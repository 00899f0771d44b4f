package cfi

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// Hostile CFI for the cost of building rows: sections that make each
// input byte cost as many stored register rules, or as much copying, as
// the interpreter lets it.

// hostileFDEInstr is the size of the instructions of each hostile FDE, in
// bytes: GNU as writes FDEs of a few hundred bytes at most, but nothing
// stops a section from holding FDEs of 64 KiB.
const hostileFDEInstr = 16 << 10

// hostileSection returns an .eh_frame of about size bytes made of FDEs of
// the CIE at cie, each with the instructions body(i) appends for its row
// i until they hold hostileFDEInstr bytes, after the prologue pro. Each
// row is one code byte: the FDE covers as many bytes as it has rows.
func hostileSection(size int, initial, pro []byte, body func(dst []byte, i int) []byte) Section {
	b := newBuilder(EHFrame, binary.LittleEndian, false)
	cie := b.cie(cieSpec{version: 1, initial: initial})
	start := uint64(0x100000)
	for len(b.buf) < size {
		ins := append([]byte(nil), pro...)
		rows := 0
		for len(ins) < hostileFDEInstr {
			ins = body(ins, rows)
			rows++
		}
		b.fde(cie, fdeSpec{start: start, length: uint64(rows + 1), instr: ins})
		start += uint64(rows+1) + 16
	}
	return b.section()
}

// offsetRows is the worst case per byte of a row that copies its rules: a
// prologue gives k registers a rule (DW_CFA_offset), then every three
// bytes (DW_CFA_advance_loc, DW_CFA_offset) end a row and change one of
// the k rules, so that each row differs from the one before. With k 40,
// just below what ruleEntriesPerByte allowed, each row copied 40 rules.
func offsetRows(size, k int) Section {
	var pro []byte
	for r := range k {
		pro = append(pro, in(cfaOffset|cfaOp(r), uleb(2))...)
	}
	return hostileSection(size, in(cfaDefCFA, uleb(7), uleb(8)), pro, func(dst []byte, i int) []byte {
		v := uint64(2 + (i/k+1)&1)
		return append(append(dst, in(cfaAdvanceLoc|1)...), in(cfaOffset|cfaOp(i%k), uleb(v))...)
	})
}

// initialRules gives 255 registers a rule in the CIE's initial
// instructions; then every three bytes of each FDE end a row and change
// one rule. Each row copied 255 rules: ruleEntriesPerByte refused such
// FDEs.
func initialRules(size int) Section {
	var init []byte
	init = append(init, in(cfaDefCFA, uleb(7), uleb(8))...)
	for r := uint64(0); r < 255; r++ {
		init = append(init, in(cfaOffsetExtended, uleb(r+20), uleb(1))...)
	}
	return hostileSection(size, init, nil, func(dst []byte, i int) []byte {
		return append(append(dst, in(cfaAdvanceLoc|1)...), in(cfaOffset|1, uleb(uint64(2+i&1)))...)
	})
}

// rememberRows gives 255 registers a rule in the CIE, then every FDE
// repeats DW_CFA_remember_state, DW_CFA_restore_state and an advance:
// each one-byte instruction copied the whole rule set.
func rememberRows(size int) Section {
	var init []byte
	init = append(init, in(cfaDefCFA, uleb(7), uleb(8))...)
	for r := uint64(0); r < 255; r++ {
		init = append(init, in(cfaOffsetExtended, uleb(r+20), uleb(1))...)
	}
	return hostileSection(size, init, nil, func(dst []byte, i int) []byte {
		return append(dst, in(cfaRememberState)[0], in(cfaRestoreState)[0], in(cfaAdvanceLoc | 1)[0])
	})
}

// churnRows gives registers 1-255 a rule in the CIE, then every FDE gives
// register 0 a rule and removes it again (DW_CFA_restore: the CIE has
// none) around each advance: each rule inserted or removed at the front
// of a sorted rule set moved the whole set.
func churnRows(size int) Section {
	var init []byte
	init = append(init, in(cfaDefCFA, uleb(7), uleb(8))...)
	for r := uint64(1); r < 256; r++ {
		init = append(init, in(cfaOffsetExtended, uleb(r), uleb(1))...)
	}
	return hostileSection(size, init, nil, func(dst []byte, i int) []byte {
		if i&1 == 0 {
			return append(append(dst, in(cfaOffset|0, uleb(3))...), in(cfaAdvanceLoc|1)...)
		}
		return append(dst, in(cfaRestore | 0)[0], in(cfaAdvanceLoc | 1)[0])
	})
}

// advanceRows ends a row at every byte (DW_CFA_advance_loc): the most rows
// a byte can make.
func advanceRows(size int) Section {
	return hostileSection(size, in(cfaDefCFA, uleb(7), uleb(8)), nil, func(dst []byte, i int) []byte {
		return append(dst, in(cfaAdvanceLoc|1)...)
	})
}

// cpuTime returns the CPU time the process has used (user and system, all
// threads: the garbage collector's work included). On a shared machine it
// varies less than the wall time.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// realEHFrame returns the .eh_frame of an ELF file on this machine, or
// skips.
func realEHFrame(b *testing.B, path string) Section {
	if _, err := os.Stat(path); err != nil {
		b.Skip(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	return cfiSections(b, f)[0]
}

// BenchmarkRowsCost measures what building every row of every FDE costs
// per byte of section, on real .eh_frame sections (libc, and LLVM's 5 MB
// one, a large C++ library) and on hostile ones of 2 MB: "B/in-byte" is
// the bytes allocated (Parse and the rows) per section byte, "ns/in-byte"
// the time per section byte ("cpu-ns/in-byte": the process's CPU time, GC
// included), "rows/s" the rows built per second (and per CPU second).
// FDEs refused are counted in "refused".
//
//	go test ./frames/cfi -run '^$' -bench RowsCost -benchtime 3x
func BenchmarkRowsCost(b *testing.B) {
	const size = 2 << 20
	cases := []struct {
		name string
		sec  func(b *testing.B) Section
	}{
		{"libc", func(b *testing.B) Section { return realEHFrame(b, libcPath) }},
		{"libLLVM-15", func(b *testing.B) Section { return realEHFrame(b, "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1") }},
		{"hostile offsets", func(*testing.B) Section { return offsetRows(size, 40) }},
		{"hostile initial rules", func(*testing.B) Section { return initialRules(size) }},
		{"hostile remember", func(*testing.B) Section { return rememberRows(size) }},
		{"hostile churn", func(*testing.B) Section { return churnRows(size) }},
		{"hostile advances", func(*testing.B) Section { return advanceRows(size) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			sec := c.sec(b)
			var rows, refused int
			var allocs uint64
			start, cpu := time.Now(), cpuTime()
			for b.Loop() {
				rows, refused = 0, 0
				allocs += sframetest.Allocs(func() {
					tab, err := Parse(sec)
					if err != nil {
						b.Fatal(err)
					}
					for _, f := range tab.FDEs() {
						r, err := f.Rows()
						if err != nil {
							refused++
						}
						rows += len(r)
					}
				})
			}
			el, cpuEl := time.Since(start), cpuTime()-cpu
			n := float64(b.N) * float64(len(sec.Data))
			b.ReportMetric(float64(allocs)/n, "B/in-byte")
			b.ReportMetric(float64(el.Nanoseconds())/n, "ns/in-byte")
			b.ReportMetric(float64(cpuEl.Nanoseconds())/n, "cpu-ns/in-byte")
			b.ReportMetric(float64(rows)*float64(b.N)/el.Seconds(), "rows/s")
			b.ReportMetric(float64(rows)*float64(b.N)/cpuEl.Seconds(), "rows/cpu-s")
			b.ReportMetric(float64(refused), "refused")
		})
	}
}
