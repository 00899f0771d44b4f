package code

import (
	"debug/elf"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"golang.org/x/arch/x86/x86asm"
)

// hostLibc is the host's C library: stripped of .symtab on Debian, so its
// functions are the FDEs' ranges. Tests and benchmarks on it skip when it
// is absent; their figures are logged, not asserted (the file is the
// host's).
const hostLibc = "/lib/x86_64-linux-gnu/libc.so.6"

// fdeProgram loads an x86-64 file whose functions are its FDEs' ranges.
func fdeProgram(t testing.TB, path string) *program {
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s: %v", path, err)
	}
	p := loadProgram(t, path)
	if p.eh == nil {
		t.Skip("no .eh_frame")
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := f.Section(".text")
	data, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	p.funcs = p.funcs[:0]
	for _, fde := range p.eh.FDEs() {
		if fde.Start < text.Addr || fde.End <= fde.Start || fde.End > text.Addr+uint64(len(data)) {
			continue
		}
		p.funcs = append(p.funcs, elfFunc{addr: fde.Start, code: data[fde.Start-text.Addr : fde.End-text.Addr]})
	}
	sort.Slice(p.funcs, func(i, j int) bool { return p.funcs[i].addr < p.funcs[j].addr })
	return p
}

// analyzeFDEs walks every FDE's function. A jump from one to the start
// of another with the frame modified makes the other a part of the first
// (a cold partition, unnamed in a stripped file): it is walked again from
// the state at the jump.
func analyzeFDEs(p *program, judge bool) *result {
	r := &result{findings: map[Kind]int{}, bad: map[string]bool{}}
	starts := map[uint64]int{}
	for i, fn := range p.funcs {
		starts[fn.addr] = i
	}
	// owner returns the index of the function that holds a, or -1.
	owner := func(a uint64) int {
		i := sort.Search(len(p.funcs), func(i int) bool { return p.funcs[i].addr+uint64(len(p.funcs[i].code)) > a })
		if i < len(p.funcs) && a >= p.funcs[i].addr {
			return i
		}
		return -1
	}
	part := func(a uint64) bool { return owner(a) >= 0 }
	funcs := make([]*Func, len(p.funcs))
	var entries map[int][]Exit
	for round := 0; round < 4; round++ {
		before := len(p.dead)
		entries = map[int][]Exit{}
		for i, fn := range p.funcs {
			funcs[i] = Analyze(amd64, fn.code, fn.addr, &Options{NoReturn: p.noReturn, Partition: part,
				JumpTable: X86JumpTables(fn.code, fn.addr, p.read)})
			if !funcs[i].Returns {
				p.dead[fn.addr] = true
			}
			for _, e := range funcs[i].Exits {
				if !e.State.AtEntry(amd64) {
					o := owner(e.Target)
					entries[o] = append(entries[o], e)
				}
			}
		}
		if len(p.dead) == before {
			break
		}
	}
	for i, fn := range p.funcs {
		f := funcs[i]
		if len(entries[i]) == 0 && !standardEntry(p, fn.addr) {
			// A part entered other than by a call (a cold partition
			// reached from a landing pad, a PLT trampoline): its entry
			// state is not known, it is not judged.
			f = &Func{Arch: amd64}
		}
		if e := entries[i]; len(e) > 0 {
			f = Analyze(amd64, fn.code, fn.addr, &Options{NoReturn: p.noReturn, Partition: part, Entries: e,
				JumpTable: X86JumpTables(fn.code, fn.addr, p.read)})
		}
		r.funcs++
		r.swept += sweep(fn.code, fn.addr)
		r.decoded += f.Decoded
		r.judged += f.Judged
		r.visits += f.Visits
		for _, x := range x86Sweep(fn.code, fn.addr) {
			if x.ok && x.in.Op == x86asm.NOP && f.Index(x.pc) < 0 {
				r.padding++
			}
		}
		for _, fd := range f.Findings {
			r.findings[fd.Kind]++
			if fd.Kind != KindUnknown && fd.Kind != KindFallThrough && len(r.examples) < 30 {
				r.examples = append(r.examples, f.Describe(fd))
			}
		}
		if judge {
			if d := judgeCFIAll(p.elfFixture, f); len(d) > 0 {
				r.dis = append(r.dis, d...)
				r.disFuncs++
				if len(r.examples) < 60 {
					r.examples = append(r.examples, fmt.Sprintf("%#x: %s", d[0].pc, d[0].what))
				}
			}
		}
	}
	return r
}

// TestHostLibc logs the walk's coverage and its differences with CFI over
// the host's libc.so.6 (run with -v; skipped with -short).
func TestHostLibc(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	p := fdeProgram(t, hostLibc)
	t0 := time.Now()
	r := analyzeFDEs(p, true)
	t.Logf("%s: %d functions (FDEs), %d instructions (%d unreached nops), %d judged (%.1f%% of the non-padding), %d visits, %v; findings %v; %d disagreements in %d functions",
		hostLibc, r.funcs, r.swept, r.padding, r.judged, 100*float64(r.judged)/float64(r.swept-r.padding), r.visits, time.Since(t0), r.findings, len(r.dis), r.disFuncs)
	for _, e := range r.examples {
		t.Log(e)
	}
}

// BenchmarkAnalyzeLibc walks every FDE function of the host's libc.so.6
// (jump tables resolved, noreturn names known) and reports instructions
// per second.
func BenchmarkAnalyzeLibc(b *testing.B) {
	p := fdeProgram(b, hostLibc)
	n := 0
	for _, fn := range p.funcs {
		n += sweep(fn.code, fn.addr)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		for _, fn := range p.funcs {
			Analyze(amd64, fn.code, fn.addr, &Options{NoReturn: p.noReturn, JumpTable: X86JumpTables(fn.code, fn.addr, p.read)})
		}
	}
	reportSpeed(b, n, cpu0)
}

// standardEntry reports whether CFI's row at a function's first
// instruction is the call's entry state (CFA=rsp+8).
func standardEntry(p *program, pc uint64) bool {
	fde, err := p.eh.FDEForPC(pc)
	if err != nil {
		return false
	}
	row, err := fde.RowAt(pc)
	return err == nil && row.CFA.Reg == amd64.SP && row.CFA.Offset == 8
}
