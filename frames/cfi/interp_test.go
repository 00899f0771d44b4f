package cfi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// formats are the record formats every hand-built case runs in.
var formats = []struct {
	kind    Kind
	order   binary.ByteOrder
	dwarf64 bool
}{
	{EHFrame, binary.LittleEndian, false},
	{EHFrame, binary.BigEndian, false},
	{EHFrame, binary.LittleEndian, true},
	{EHFrame, binary.BigEndian, true},
	{DebugFrame, binary.LittleEndian, false},
	{DebugFrame, binary.BigEndian, false},
	{DebugFrame, binary.LittleEndian, true},
	{DebugFrame, binary.BigEndian, true},
}

func formatName(kind Kind, order binary.ByteOrder, dwarf64 bool) string {
	bits := "32-bit"
	if dwarf64 {
		bits = "64-bit"
	}
	o := "little-endian"
	if order == binary.BigEndian {
		o = "big-endian"
	}
	return fmt.Sprintf("%v %s %s", kind, o, bits)
}

// Rule shorthands.
func cfaRule(reg rule.Reg, off int64) rule.Rule {
	return rule.Rule{Kind: rule.ValOffset, Reg: reg, Offset: off}
}
func atCFA(off int64) rule.Rule {
	return rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: off}
}
func valCFA(off int64) rule.Rule {
	return rule.Rule{Kind: rule.ValOffset, Reg: rule.CFA, Offset: off}
}
func rr(reg rule.Reg, r rule.Rule) RegRule { return RegRule{Reg: reg, Rule: r} }

// wantRow is the part of a row a case checks.
type wantRow struct {
	start, end uint64
	cfa        rule.Rule
	regs       []RegRule
	raSigned   bool
}

func (w wantRow) String() string {
	return fmt.Sprintf("[%#x,%#x) cfa=%v regs=%v signed=%v", w.start, w.end, w.cfa, w.regs, w.raSigned)
}

func gotRow(r Row) wantRow {
	return wantRow{r.Start, r.End, r.CFA, r.Regs.Append(nil), r.RASigned}
}

func sameRow(a, b wantRow) bool {
	if a.start != b.start || a.end != b.end || a.cfa != b.cfa || a.raSigned != b.raSigned || len(a.regs) != len(b.regs) {
		return false
	}
	for i := range a.regs {
		if a.regs[i] != b.regs[i] {
			return false
		}
	}
	return true
}

// ops builds instruction bytes that depend on the byte order.
type ops struct{ b *builder }

func (o ops) u16(v uint64) []byte { return o.b.fixed(2, v) }
func (o ops) u32(v uint64) []byte { return o.b.fixed(4, v) }
func (o ops) addr(v uint64) []byte {
	if o.b.kind == EHFrame {
		return o.b.fixed(8, v) // the CIE's FDE encoding is absptr
	}
	return o.b.fixed(8, v)
}

func TestInstructions(t *testing.T) {
	const start, length = 0x1000, 0x100
	end := uint64(start + length)
	cieInit := func(o ops) []byte {
		// CFA = rsp+8, RA (16) at CFA-8, rbx (3) at CFA-16.
		return prog(in(cfaDefCFA, uleb(7), uleb(8)), in(cfaOffset|16, uleb(1)), in(cfaOffset|3, uleb(2)))
	}
	base := []RegRule{rr(3, atCFA(-16)), rr(16, atCFA(-8))}
	with := func(extra ...RegRule) []RegRule {
		out := append([]RegRule(nil), base...)
		for _, e := range extra {
			placed := false
			for i := range out {
				if out[i].Reg == e.Reg {
					out[i], placed = e, true
				}
			}
			if !placed {
				out = append(out, e)
			}
		}
		// keep sorted
		for i := 1; i < len(out); i++ {
			for j := i; j > 0 && out[j].Reg < out[j-1].Reg; j-- {
				out[j], out[j-1] = out[j-1], out[j]
			}
		}
		return out
	}
	cases := []struct {
		name  string
		caf   uint64
		instr func(o ops) []byte
		want  []wantRow
	}{
		{"an FDE without instructions has the CIE's rules over its whole range", 1,
			func(o ops) []byte { return nil },
			[]wantRow{{start, end, cfaRule(7, 8), base, false}}},
		{"DW_CFA_advance_loc ends a row and DW_CFA_def_cfa_offset changes the unfactored CFA offset", 1,
			func(o ops) []byte { return prog(in(cfaAdvanceLoc|4), in(cfaDefCFAOffset, uleb(16))) },
			[]wantRow{{start, start + 4, cfaRule(7, 8), base, false}, {start + 4, end, cfaRule(7, 16), base, false}}},
		{"advances are factored by the code alignment factor", 4,
			func(o ops) []byte {
				return prog(in(cfaAdvanceLoc|1), in(cfaNop), in(cfaAdvanceLoc1, []byte{2}), in(cfaAdvanceLoc2, o.u16(3)), in(cfaAdvanceLoc4, o.u32(4)))
			},
			[]wantRow{{start, start + 4, cfaRule(7, 8), base, false}, {start + 4, start + 12, cfaRule(7, 8), base, false},
				{start + 12, start + 24, cfaRule(7, 8), base, false}, {start + 24, start + 40, cfaRule(7, 8), base, false},
				{start + 40, end, cfaRule(7, 8), base, false}}},
		{"an advance of zero makes no empty row", 1,
			func(o ops) []byte { return prog(in(cfaAdvanceLoc|0), in(cfaDefCFAOffset, uleb(24))) },
			[]wantRow{{start, end, cfaRule(7, 24), base, false}}},
		{"DW_CFA_set_loc moves to an absolute address", 1,
			func(o ops) []byte { return prog(in(cfaSetLoc, o.addr(start+0x20)), in(cfaDefCFAOffset, uleb(16))) },
			[]wantRow{{start, start + 0x20, cfaRule(7, 8), base, false}, {start + 0x20, end, cfaRule(7, 16), base, false}}},
		{"an advance past the end clips the last row and the instructions after it are not run", 1,
			func(o ops) []byte {
				return prog(in(cfaAdvanceLoc2, o.u16(0x200)), in(cfaRestoreState), in(0x17))
			},
			[]wantRow{{start, end, cfaRule(7, 8), base, false}}},
		{"DW_CFA_offset, offset_extended and offset_extended_sf save at factored offsets", 1,
			func(o ops) []byte {
				return prog(in(cfaOffset|6, uleb(3)), in(cfaOffsetExtended, uleb(12), uleb(4)), in(cfaOffsetExtendedSF, uleb(13), sleb(-5)), in(cfaOffsetExtendedSF, uleb(14), sleb(1)))
			},
			[]wantRow{{start, end, cfaRule(7, 8), with(rr(6, atCFA(-24)), rr(12, atCFA(-32)), rr(13, atCFA(40)), rr(14, atCFA(-8))), false}}},
		{"DW_CFA_GNU_negative_offset_extended negates the factored offset", 1,
			func(o ops) []byte { return in(cfaGNUNegativeOffsetExtended, uleb(12), uleb(2)) },
			[]wantRow{{start, end, cfaRule(7, 8), with(rr(12, atCFA(16))), false}}},
		{"DW_CFA_val_offset and val_offset_sf give CFA-relative values with factored offsets", 1,
			func(o ops) []byte {
				return prog(in(cfaValOffset, uleb(12), uleb(2)), in(cfaValOffsetSF, uleb(13), sleb(-1)))
			},
			[]wantRow{{start, end, cfaRule(7, 8), with(rr(12, valCFA(-16)), rr(13, valCFA(8))), false}}},
		{"DW_CFA_restore and restore_extended bring back the CIE's rule or none", 1,
			func(o ops) []byte {
				return prog(in(cfaOffset|3, uleb(5)), in(cfaOffset|6, uleb(3)), in(cfaOffsetExtended, uleb(16), uleb(4)), in(cfaAdvanceLoc|1),
					in(cfaRestore|3), in(cfaRestore|6), in(cfaRestoreExtended, uleb(16)))
			},
			[]wantRow{{start, start + 1, cfaRule(7, 8), []RegRule{rr(3, atCFA(-40)), rr(6, atCFA(-24)), rr(16, atCFA(-32))}, false},
				{start + 1, end, cfaRule(7, 8), base, false}}},
		{"DW_CFA_undefined, same_value and register set their rules", 1,
			func(o ops) []byte {
				return prog(in(cfaUndefined, uleb(16)), in(cfaSameValue, uleb(3)), in(cfaRegister, uleb(6), uleb(1)))
			},
			[]wantRow{{start, end, cfaRule(7, 8), []RegRule{rr(3, ruleSame), rr(6, rule.Rule{Kind: rule.Register, Reg: 1}), rr(16, ruleUndefined)}, false}}},
		{"DW_CFA_remember_state and restore_state bring back the CFA, the registers and the RA state", 1,
			func(o ops) []byte {
				return prog(in(cfaRememberState), in(cfaDefCFA, uleb(6), uleb(16)), in(cfaOffset|6, uleb(2)), in(cfaAArch64NegateRAState),
					in(cfaAdvanceLoc|2), in(cfaRestoreState))
			},
			[]wantRow{{start, start + 2, cfaRule(6, 16), with(rr(6, atCFA(-16))), true}, {start + 2, end, cfaRule(7, 8), base, false}}},
		{"DW_CFA_def_cfa_sf and def_cfa_offset_sf factor the CFA offset, def_cfa_register keeps it", 1,
			func(o ops) []byte {
				return prog(in(cfaDefCFASF, uleb(6), sleb(-2)), in(cfaAdvanceLoc|1), in(cfaDefCFAOffsetSF, sleb(-4)), in(cfaAdvanceLoc|1), in(cfaDefCFARegister, uleb(7)))
			},
			[]wantRow{{start, start + 1, cfaRule(6, 16), base, false}, {start + 1, start + 2, cfaRule(6, 32), base, false}, {start + 2, end, cfaRule(7, 32), base, false}}},
		{"DW_CFA_def_cfa_expression, expression and val_expression keep the expression bytes", 1,
			func(o ops) []byte {
				return prog(in(cfaDefCFAExpression, uleb(2), []byte{0x77, 0x08}), in(cfaExpression, uleb(6), uleb(2), []byte{0x76, 0x00}),
					in(cfaValExpression, uleb(12), uleb(1), []byte{0x30}))
			},
			[]wantRow{{start, end, rule.Rule{Kind: rule.ValExpression, Reg: rule.CFA, Expr: "\x77\x08"},
				with(rr(6, rule.Rule{Kind: rule.Expression, Reg: rule.CFA, Expr: "\x76\x00"}),
					rr(12, rule.Rule{Kind: rule.ValExpression, Reg: rule.CFA, Expr: "\x30"})), false}}},
		{"DW_CFA_nop and DW_CFA_GNU_args_size change nothing", 1,
			func(o ops) []byte { return prog(in(cfaNop), in(cfaGNUArgsSize, uleb(300)), in(cfaNop)) },
			[]wantRow{{start, end, cfaRule(7, 8), base, false}}},
		{"DW_CFA_AARCH64_negate_ra_state toggles the RA signing state", 4,
			func(o ops) []byte {
				return prog(in(cfaAdvanceLoc|1), in(cfaAArch64NegateRAState), in(cfaAdvanceLoc|1), in(cfaAArch64NegateRAState))
			},
			[]wantRow{{start, start + 4, cfaRule(7, 8), base, false}, {start + 4, start + 8, cfaRule(7, 8), base, true}, {start + 8, end, cfaRule(7, 8), base, false}}},
	}
	for _, f := range formats {
		for _, tc := range cases {
			t.Run(formatName(f.kind, f.order, f.dwarf64)+": "+tc.name, func(t *testing.T) {
				b := newBuilder(f.kind, f.order, f.dwarf64)
				o := ops{b}
				cie := b.cie(cieSpec{version: 3, caf: tc.caf, initial: cieInit(o)})
				fde := b.fde(cie, fdeSpec{start: start, length: length, instr: tc.instr(o)})
				tab, err := Parse(b.section())
				if err != nil {
					t.Fatal(err)
				}
				fdes := tab.FDEs()
				if len(fdes) != 1 || fdes[0].Off != fde || fdes[0].CIE.Off != cie {
					t.Fatalf("FDEs %v", fdes)
				}
				rows, err := fdes[0].Rows()
				if err != nil {
					t.Fatal(err)
				}
				var got []wantRow
				for _, r := range rows {
					got = append(got, gotRow(r))
					if r.FDEOff != fde || r.CIEOff != cie || r.Section != f.kind || r.RAReg != 16 {
						t.Errorf("row provenance %+v", r)
					}
				}
				if len(got) != len(tc.want) {
					t.Fatalf("rows:\n%v\nwant:\n%v", got, tc.want)
				}
				for i := range got {
					if !sameRow(got[i], tc.want[i]) {
						t.Errorf("row %d: %v, want %v", i, got[i], tc.want[i])
					}
				}
				// RowAt agrees with Rows at every address.
				for pc := uint64(start - 1); pc <= end; pc++ {
					r, err := fdes[0].RowAt(pc)
					if pc < start || pc >= end {
						if !errors.Is(err, ErrNoRow) {
							t.Errorf("RowAt(%#x) = %v, %v; want ErrNoRow", pc, r, err)
						}
						continue
					}
					if err != nil || r.Start > pc || pc >= r.End {
						t.Errorf("RowAt(%#x) = %v, %v", pc, gotRow(r), err)
					}
				}
			})
		}
	}
}

func TestInstructionErrors(t *testing.T) {
	many := func(n int, ins []byte) []byte { return []byte(strings.Repeat(string(ins), n)) }
	var manyRegs []byte
	for r := range 257 {
		manyRegs = append(manyRegs, in(cfaOffsetExtended, uleb(uint64(r)), uleb(1))...)
	}
	var manyRules []byte
	for r := range 256 {
		manyRules = append(manyRules, in(cfaOffsetExtended, uleb(uint64(r)), uleb(1))...)
	}
	for i := range 1100 {
		manyRules = append(manyRules, in(cfaOffset|0, uleb(uint64(i%2+1)))...)
		manyRules = append(manyRules, in(cfaAdvanceLoc|1)...)
	}
	cases := []struct {
		name    string
		instr   []byte
		caf     uint64
		want    error
		msg     string
		atInstr int // offset of the faulting instruction in instr
	}{
		{"DW_CFA_restore_state without remember_state is malformed", in(cfaRestoreState), 1, ErrMalformed, "no state remembered", 0},
		{"more than 128 nested DW_CFA_remember_state are refused", many(129, in(cfaRememberState)), 1, ErrUnsupported, "nested", 128},
		{"DW_CFA_def_cfa_offset on an expression CFA is malformed",
			prog(in(cfaDefCFAExpression, uleb(1), []byte{0x30}), in(cfaDefCFAOffset, uleb(8))), 1, ErrMalformed, "not register+offset", 3},
		{"DW_CFA_def_cfa_register on an expression CFA is malformed",
			prog(in(cfaDefCFAExpression, uleb(1), []byte{0x30}), in(cfaDefCFARegister, uleb(6))), 1, ErrMalformed, "not register+offset", 3},
		{"a reserved opcode is malformed", in(0x17), 1, ErrMalformed, "unknown instruction", 0},
		{"a vendor opcode we do not know is refused", in(0x1d), 1, ErrUnsupported, "vendor", 0},
		{"DW_CFA_AARCH64_negate_ra_state_with_pc is refused", prog(in(cfaNop), in(cfaAArch64NegateRAStateWithPC)), 1, ErrUnsupported, "negate_ra_state_with_pc", 1},
		{"a truncated operand is malformed", in(cfaDefCFA, uleb(7)), 1, ErrMalformed, "DW_CFA_def_cfa: truncated", 2},
		{"a truncated expression is malformed", in(cfaExpression, uleb(6), uleb(5), []byte{1, 2}), 1, ErrMalformed, "expression of 5 bytes runs past", 3},
		{"a LEB128 of more than 64 bits is malformed", in(cfaDefCFAOffset, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}), 1, ErrMalformed, "does not fit in 64 bits", 1},
		{"a factored offset that overflows is malformed", in(cfaOffset|3, uleb(1<<62)), 1, ErrMalformed, "overflows", 0},
		{"a register number beyond rule.Reg is refused", in(cfaUndefined, uleb(1<<20)), 1, ErrUnsupported, "does not fit rule.Reg", 1},
		{"DW_CFA_set_loc below the current location is malformed", prog(in(cfaAdvanceLoc|4), in(cfaSetLoc, make([]byte, 8))), 1, ErrMalformed, "below the current one", 1},
		{"an advance past the end of the address space is malformed", in(cfaAdvanceLoc4, []byte{0xff, 0xff, 0xff, 0x7f}), 1 << 40, ErrMalformed, "address space", 0},
		{"rules for more than 256 registers are refused", manyRegs, 1, ErrUnsupported, "more than 256 registers", 128*3 + 128*4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuilder(DebugFrame, binary.LittleEndian, false)
			cie := b.cie(cieSpec{version: 3, caf: tc.caf, initial: in(cfaDefCFA, uleb(7), uleb(8))})
			fdeOff := b.fde(cie, fdeSpec{start: 0x1000, length: 0x10000, instr: tc.instr})
			tab, err := Parse(b.section())
			if err != nil {
				t.Fatal(err)
			}
			_, err = tab.FDEs()[0].Rows()
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want %v with %q", err, tc.want, tc.msg)
			}
			if want := tab.FDEs()[0].InstructionsOff + int64(tc.atInstr); e.Off != want {
				t.Errorf("error at %#x, want %#x (FDE at %#x): %v", e.Off, want, fdeOff, err)
			}
			// The error is cached, and RowAt gives it too.
			if _, err2 := tab.FDEs()[0].RowAt(0x1000); err2 != err {
				t.Errorf("RowAt error %v, want %v", err2, err)
			}
		})
	}
	t.Run("rows that hold 2^18 register rules store only the rules that change", func(t *testing.T) {
		b := newBuilder(DebugFrame, binary.LittleEndian, false)
		cie := b.cie(cieSpec{version: 3, initial: in(cfaDefCFA, uleb(7), uleb(8))})
		b.fde(cie, fdeSpec{start: 0x1000, length: 0x10000, instr: manyRules})
		tab, err := Parse(b.section())
		if err != nil {
			t.Fatal(err)
		}
		rows, err := tab.FDEs()[0].Rows()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1101 {
			t.Fatalf("%d rows, want 1101", len(rows))
		}
		for i, r := range rows {
			want := -8 * int64(i%2+1)
			if i == 1100 {
				want = -8 * int64((i-1)%2+1)
			}
			if got, ok := r.Rule(0); r.Regs.Len() != 256 || !ok || got.Offset != want {
				t.Fatalf("row %d: %d rules, r0 %v; want 256, r0 at CFA%d", i, r.Regs.Len(), got, want)
			}
			if got, ok := r.Rule(255); !ok || got.Offset != -8 {
				t.Fatalf("row %d: r255 %v, %v", i, got, ok)
			}
		}
		// 281,600 rules in the rows, stored as at most three per
		// instruction that changes one.
		st := rows[0].Regs.t
		stored := len(st.deltas)
		for _, s := range st.snaps {
			stored += len(s)
		}
		if stored > 3*(256+1100) {
			t.Errorf("%d rules stored for 1356 rule changes", stored)
		}
	})
	t.Run("an error in the CIE's initial instructions fails the FDE's rows", func(t *testing.T) {
		b := newBuilder(EHFrame, binary.BigEndian, false)
		cie := b.cie(cieSpec{initial: prog(in(cfaDefCFA, uleb(7), uleb(8)), in(cfaRestoreState))})
		b.fde(cie, fdeSpec{start: 0x1000, length: 0x10})
		tab, err := Parse(b.section())
		if err != nil {
			t.Fatal(err)
		}
		_, err = tab.FDEs()[0].Rows()
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrMalformed) || e.Off != tab.FDEs()[0].CIE.InitialOff+3 || !strings.Contains(e.Msg, "initial instructions") {
			t.Fatalf("error %v", err)
		}
	})
}
