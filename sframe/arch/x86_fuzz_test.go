package arch_test

import (
	"debug/elf"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// Budgets of FuzzX86Decode for a linear sweep over the input: each
// instruction is at least one byte, so at most one Decode per byte, and
// an x86-64 instruction has at most 3 stack operations (enter). Decode
// allocates nothing; Format builds a string of a few hundred bytes per
// instruction (4 KiB per byte is generous headroom).
var (
	x86DecodeInsts  = sframetest.Budget{What: "instructions decoded", PerByte: 1, Const: 0}
	x86DecodeOps    = sframetest.Budget{What: "stack operations", PerByte: 3, Const: 0}
	x86DecodeAllocs = sframetest.AllocBudget(4 << 10)
)

func FuzzX86Decode(f *testing.F) {
	for _, seed := range [][]byte{
		{0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, 0xc9, 0xc3},             // push, mov, sub, leave, ret
		{0xf3, 0x0f, 0x1e, 0xfa, 0xc8, 0x20, 0x00, 0x00, 0x48, 0x8d, 0x65, 0xf0}, // endbr64, enter, lea
		{0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x46, 0x01, 0xc4, 0xe2, 0xf0, 0xf2, 0xd8}, // EVEX, VEX
		{0x66, 0x48, 0x35, 0x01, 0x02, 0x03, 0x04, 0x8f, 0x40, 0x10, 0x0f, 0xa2},
	} {
		f.Add(seed)
	}
	if ef, err := elf.Open("../../testdata/bin/deep-v3-O2"); err == nil {
		if text, err := ef.Section(".text").Data(); err == nil {
			for off := 0; off+256 <= len(text) && off < 4096; off += 256 {
				f.Add(text[off : off+256])
			}
		}
		ef.Close()
	}
	f.Fuzz(func(t *testing.T, code []byte) {
		var x arch.X86
		var in arch.Inst
		insts, ops := uint64(0), uint64(0)
		x86DecodeAllocs.CheckAllocs(t, len(code), func() {
			for off := 0; off < len(code); {
				err := x.Decode(code[off:], uint64(off), &in)
				n, ok := x.Len(code[off:])
				text, tn := x.Format(code[off:], uint64(off), nil)
				if err != nil {
					if ok {
						t.Fatalf("% x: Len %d but Decode fails: %v", code[off:], n, err)
					}
					off++
					continue
				}
				insts++
				ops += uint64(in.NOps)
				if in.Len < 1 || in.Len > 15 || in.Len > len(code)-off {
					t.Fatalf("% x: Len %d", code[off:], in.Len)
				}
				if !ok || n != in.Len {
					t.Fatalf("% x: Decode Len %d, Len %d %v", code[off:], in.Len, n, ok)
				}
				if in.NOps < 0 || in.NOps > len(in.Ops) {
					t.Fatalf("% x: NOps %d", code[off:], in.NOps)
				}
				if in.Class == arch.Unknown && in.Why == "" {
					t.Fatalf("% x: Unknown without a reason", code[off:])
				}
				if tn < 0 || tn > len(code)-off || (tn == 0) != (text == "") {
					t.Fatalf("% x: Format %q, %d", code[off:], text, tn)
				}
				off += in.Len
			}
		})
		x86DecodeInsts.Check(t, insts, len(code))
		x86DecodeOps.Check(t, ops, len(code))
	})
}
