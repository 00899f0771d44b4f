package code

import (
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// maxVisitsPerInst bounds the visits of one instruction: the first, then
// one per loss of information of its stored state (SP, FP, SP's saved
// slot, the register holding a CFA-relative value, the
// frame-pointer flag, each tracked register being marked restored, losing
// the copy it was restored from, then going from "in its register" to
// lost), since a
// revisit happens only when the join lowers the state.
const maxVisitsPerInst = 6 + 3*MaxRegs

// checkFunc checks the invariants of a Func made from n bytes of code.
func checkFunc(t *testing.T, f *Func, n int) {
	t.Helper()
	if f.Visits > DefaultBudget(n) {
		t.Fatalf("%d visits for %d bytes, budget %d", f.Visits, n, DefaultBudget(n))
	}
	if f.Visits > maxVisitsPerInst*f.Decoded {
		t.Fatalf("%d visits for %d instructions decoded", f.Visits, f.Decoded)
	}
	if len(f.Findings) > MaxFindings {
		t.Fatalf("%d findings", len(f.Findings))
	}
	if f.Judged > f.Decoded || f.Decoded > n || len(f.Insts) != f.Decoded {
		t.Fatalf("judged %d decoded %d insts %d bytes %d", f.Judged, f.Decoded, len(f.Insts), n)
	}
	judged := 0
	for i, in := range f.Insts {
		if i > 0 && in.Off <= f.Insts[i-1].Off {
			t.Fatalf("insts not sorted at %d", i)
		}
		if int(in.Off)+int(in.Len) > n {
			t.Fatalf("inst at +%d len %d past %d bytes", in.Off, in.Len, n)
		}
		if in.State >= 0 {
			judged++
			if int(in.State) >= len(f.States) {
				t.Fatalf("state index %d of %d", in.State, len(f.States))
			}
			if _, _, ok := f.States[in.State].cfa(tableFor(f.Arch)); !ok {
				t.Fatalf("inst at +%d has a state without a CFA", in.Off)
			}
		} else if int(-1-in.State) >= len(f.Reasons) {
			t.Fatalf("reason index %d of %d", -1-in.State, len(f.Reasons))
		}
		pc := f.Start + uint64(in.Off)
		if j := f.Index(pc); j < 0 || f.Insts[j].Off != in.Off {
			t.Fatalf("Index(%#x) = %d, want %d", pc, j, i)
		}
		row, ok := f.RowAt(pc)
		if ok != (in.State >= 0) {
			t.Fatalf("RowAt(%#x) ok=%v", pc, ok)
		}
		_ = row
	}
	if judged != f.Judged {
		t.Fatalf("judged %d, counted %d", f.Judged, judged)
	}
	for _, fd := range f.Findings {
		_ = f.Describe(fd)
	}
}

// fuzzOptions derives options from the input: the first byte picks which
// calls do not return and which jumps go to another part; indirect jumps
// get two table targets from the code itself.
func fuzzOptions(sel byte, text []byte, start uint64) *Options {
	n := uint64(len(text))
	return &Options{
		NoReturn:  func(a uint64) bool { return sel&1 != 0 && a%3 == 0 },
		Partition: func(a uint64) bool { return sel&2 != 0 && a%2 == 0 },
		JumpTable: func(pc uint64) []uint64 {
			if sel&4 == 0 || n == 0 {
				return nil
			}
			o := pc - start
			return []uint64{start + (o*7+1)%n, start + uint64(text[o])%(n+4)}
		},
	}
}

func FuzzAnalyze(f *testing.F) {
	f.Add(byte(7), asm(push(rBP), setreg(rBP, rSP, 0), push(rBX), jcc(2), addsp(-2), andsp(), subspreg(0),
		setreg(rSP, rBP, -8), pop(rBX), pop(rBP), ret()))
	f.Add(byte(0), asm(push(rBX), jcc(-4), jmpind(), call(-8), farjmp(-100), ret()))
	f.Add(byte(3), asm(save(rBX, rSP, -8), clobber(rBX), restore(rBX, rSP, -8), jcc(-10), unknownOp(), stop()))
	f.Fuzz(func(t *testing.T, sel byte, text []byte) {
		const start = 0x400000
		a := fakeArch
		if sel&8 != 0 {
			a = fakeLR
		}
		fn := Analyze(a, text, start, fuzzOptions(sel, text, start))
		checkFunc(t, fn, len(text))
		// A cold part from each exit's state.
		for i, e := range fn.Exits {
			if i == 4 {
				break
			}
			st := e.State
			cold := Analyze(a, text, start, &Options{Entry: &st})
			checkFunc(t, cold, len(text))
		}
	})
}

// FuzzAnalyzeX86 walks arbitrary bytes with the x86-64 decoder.
func FuzzAnalyzeX86(f *testing.F) {
	f.Add(byte(0), []byte{0x55, 0x48, 0x89, 0xe5, 0x53, 0x48, 0x83, 0xec, 0x18, 0x74, 0x02, 0x5b, 0xc3, 0x48, 0x83, 0xe4, 0xf0, 0xc9, 0xc3})
	f.Add(byte(4), []byte{0x41, 0x54, 0x48, 0x29, 0xc4, 0xff, 0xe0, 0xe8, 0, 0, 0, 0, 0x0f, 0x0b})
	f.Fuzz(func(t *testing.T, sel byte, text []byte) {
		const start = 0x401000
		opts := fuzzOptions(sel, text, start)
		if sel&8 != 0 {
			// The x86 jump-table resolver, reading its tables from the
			// code itself.
			// With sel&16, a table no compare bounds is read too, up to
			// the code's end (nextRef).
			var next func(uint64) uint64
			if sel&16 != 0 {
				next = func(uint64) uint64 { return start + uint64(len(text)) }
			}
			opts.JumpTable = X86JumpTablesRefs(text, start, func(a uint64, n int) []byte {
				if a < start || a-start > uint64(len(text)) || uint64(n) > uint64(len(text))-(a-start) {
					return nil
				}
				return text[a-start:][:n]
			}, next)
		}
		fn := Analyze(amd64, text, start, opts)
		checkFunc(t, fn, len(text))
	})
}

var _ = arch.Other
