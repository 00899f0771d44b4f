package cfi

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// refState is the model the rows are checked against: every rule kept in
// a map, and DW_CFA_remember_state copying all of them, as DWARF 5
// §6.4.2.4 describes it.
type refState struct {
	cfa      rule.Rule
	regs     map[rule.Reg]rule.Rule
	raSigned bool
}

func (s refState) clone() refState {
	s.regs = maps.Clone(s.regs)
	return s
}

// refRow is a row of the model.
type refRow struct {
	start, end uint64
	st         refState
}

// randomProgram returns random call frame instructions for a CIE's
// initial instructions (cie) or an FDE, over registers regs, and the
// model's rows for the FDE [start, ...) after the CIE's state init. The
// FDE's length is where its last advance leads, plus one.
func randomProgram(r *rand.Rand, regs []rule.Reg, n int, cie bool, init refState, start uint64) ([]byte, []refRow, uint64) {
	var p []byte
	st := init.clone()
	var stack []refState
	var rows []refRow
	loc := start
	reg := func() rule.Reg { return regs[r.IntN(len(regs))] }
	for range n {
		x := reg()
		switch k := r.IntN(20); {
		case k < 4 && !cie:
			d := uint64(r.IntN(3))
			p = append(p, byte(cfaAdvanceLoc)|byte(d))
			if d > 0 {
				rows = append(rows, refRow{loc, loc + d, st.clone()})
				loc += d
			}
		case k < 8:
			off := uint64(r.IntN(4) + 1)
			if x < 64 {
				p = append(p, in(cfaOffset|cfaOp(x), uleb(off))...)
			} else {
				p = append(p, in(cfaOffsetExtended, uleb(uint64(x)), uleb(off))...)
			}
			st.regs[x] = rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8 * int64(off)}
		case k < 10:
			if x < 64 {
				p = append(p, byte(cfaRestore)|byte(x))
			} else {
				p = append(p, in(cfaRestoreExtended, uleb(uint64(x)))...)
			}
			if ir, ok := init.regs[x]; ok && !cie {
				st.regs[x] = ir
			} else {
				delete(st.regs, x)
			}
		case k < 11:
			p = append(p, in(cfaUndefined, uleb(uint64(x)))...)
			st.regs[x] = ruleUndefined
		case k < 12:
			p = append(p, in(cfaSameValue, uleb(uint64(x)))...)
			st.regs[x] = ruleSame
		case k < 13:
			y := reg()
			p = append(p, in(cfaRegister, uleb(uint64(x)), uleb(uint64(y)))...)
			st.regs[x] = rule.Rule{Kind: rule.Register, Reg: y}
		case k < 14:
			p = append(p, in(cfaValExpression, uleb(uint64(x)), uleb(2), []byte{0x77, byte(r.IntN(64))})...)
			st.regs[x] = rule.Rule{Kind: rule.ValExpression, Reg: rule.CFA, Expr: string(p[len(p)-2:])}
		case k < 16:
			if len(stack) < 8 {
				p = append(p, byte(cfaRememberState))
				stack = append(stack, st.clone())
			}
		case k < 18:
			if len(stack) > 0 {
				p = append(p, byte(cfaRestoreState))
				st = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		case k < 19:
			off := uint64(r.IntN(64))
			p = append(p, in(cfaDefCFA, uleb(7), uleb(off))...)
			st.cfa = rule.Rule{Kind: rule.ValOffset, Reg: 7, Offset: int64(off)}
		default:
			p = append(p, byte(cfaAArch64NegateRAState))
			st.raSigned = !st.raSigned
		}
	}
	if cie {
		return p, []refRow{{st: st}}, 0
	}
	rows = append(rows, refRow{loc, loc + 1, st})
	return p, rows, loc + 1 - start
}

// TestRowsMatchModel runs random programs (DW_CFA_offset, restore,
// undefined, same_value, register, val_expression, remember_state and
// restore_state, def_cfa, negate_ra_state and advances, over up to 60
// registers, after random initial instructions) and checks every row
// against a model that copies every rule at every row: the CFA, the RA
// signing state, and every register's rule through Rule, Append, Each
// and Len, at every point of a row chain between snapshots.
func TestRowsMatchModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	snaps := 0
	defer func() {
		if snaps == 0 && !t.Failed() {
			t.Errorf("no row chain took a snapshot")
		}
	}()
	for trial := range 300 {
		nregs := 1 + r.IntN(60)
		pool := make([]rule.Reg, 0, nregs)
		for range nregs {
			switch r.IntN(10) {
			case 0:
				pool = append(pool, rule.Reg(64+r.IntN(400)))
			default:
				pool = append(pool, rule.Reg(r.IntN(64)))
			}
		}
		ref0 := refState{cfa: ruleUndefined, regs: map[rule.Reg]rule.Rule{}}
		initial, irows, _ := randomProgram(r, pool, r.IntN(3*nregs), true, ref0, 0)
		initial = append(in(cfaDefCFA, uleb(7), uleb(8)), initial...)
		init := irows[0].st
		if init.cfa == ruleUndefined {
			init.cfa = rule.Rule{Kind: rule.ValOffset, Reg: 7, Offset: 8}
		}
		instr, want, length := randomProgram(r, pool, 50+r.IntN(2000), false, init, 0x1000)
		b := newBuilder(DebugFrame, binary.LittleEndian, false)
		cie := b.cie(cieSpec{version: 3, initial: initial})
		b.fde(cie, fdeSpec{start: 0x1000, length: length, instr: instr})
		tab, err := Parse(b.section())
		if err != nil {
			t.Fatal(err)
		}
		rows, err := tab.FDEs()[0].Rows()
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if len(rows) != len(want) {
			t.Fatalf("trial %d: %d rows, the model %d", trial, len(rows), len(want))
		}
		snaps += len(rows[0].Regs.t.snaps) - 1
		probe := append(slices.Clone(pool), 1000, 0)
		for i, row := range rows {
			w := want[i]
			if msg := rowDiff(row, w, probe); msg != "" {
				t.Fatalf("trial %d row %d [%#x,%#x): %s", trial, i, row.Start, row.End, msg)
			}
		}
	}
}

func rowDiff(row Row, w refRow, probe []rule.Reg) string {
	if row.Start != w.start || row.End != w.end {
		return fmt.Sprintf("range, model [%#x,%#x)", w.start, w.end)
	}
	if row.CFA != w.st.cfa || row.RASigned != w.st.raSigned {
		return fmt.Sprintf("CFA %v signed %v, model %v %v", row.CFA, row.RASigned, w.st.cfa, w.st.raSigned)
	}
	var wantRegs []RegRule
	for reg, ru := range w.st.regs {
		wantRegs = append(wantRegs, RegRule{reg, ru})
	}
	slices.SortFunc(wantRegs, func(a, b RegRule) int { return cmp.Compare(a.Reg, b.Reg) })
	if got := row.Regs.Append(nil); !slices.Equal(got, wantRegs) {
		return fmt.Sprintf("Append %v, model %v", got, wantRegs)
	}
	if row.Regs.Len() != len(wantRegs) {
		return fmt.Sprintf("Len %d, model %d", row.Regs.Len(), len(wantRegs))
	}
	var each []RegRule
	row.Regs.Each(func(reg rule.Reg, r rule.Rule) { each = append(each, RegRule{reg, r}) })
	slices.SortFunc(each, func(a, b RegRule) int { return cmp.Compare(a.Reg, b.Reg) })
	if !slices.Equal(each, wantRegs) {
		return fmt.Sprintf("Each %v, model %v", each, wantRegs)
	}
	pre := []RegRule{{Reg: -5}}
	if got := row.Regs.Append(pre); !slices.Equal(got[1:], wantRegs) || got[0] != pre[0] {
		return fmt.Sprintf("Append after a rule %v, model %v", got, wantRegs)
	}
	for _, reg := range probe {
		got, ok := row.Regs.Rule(reg)
		want, wok := w.st.regs[reg]
		if ok != wok || got != want {
			return fmt.Sprintf("Rule(%d) = %v, %v; model %v, %v", reg, got, ok, want, wok)
		}
	}
	return ""
}
