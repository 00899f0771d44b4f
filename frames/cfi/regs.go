package cfi

import (
	"cmp"
	"slices"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// RegSet is the register rules of a row: the registers that have a rule,
// each with its rule. The zero RegSet is empty.
//
// The rows of an FDE share their rules: each row stores only the rules
// that changed since the row before, after a snapshot of every rule that
// the FDE's rows share (the CIE's initial rules at first). A new snapshot
// is taken once the changes since the last one outnumber its rules (and
// 16), so the rows of an FDE store at most about three rules per rule an
// instruction changed, however many registers have one: a hostile FDE
// whose every advance ends a row of hundreds of rules costs the bytes of
// its instructions, not those of its rows. A lookup reads the changes
// since the snapshot, then the snapshot.
//
// RegSets are comparable with ==, which says whether they are the same
// stored set (rows with the same rules need not be ==: use Equal).
type RegSet struct {
	t *regTable
	// snap indexes t.snaps; t.deltas[lo:hi] are the changes since it,
	// oldest first; n is the number of registers with a rule.
	snap, lo, hi, n int32
}

// regTable holds the rules of an FDE's rows.
type regTable struct {
	snaps [][]RegRule // each sorted by register; snaps[0] is the CIE's initial rules
	// deltas are the rows' changes, in row order; a rule of kind
	// kindNone says the register has none any more.
	deltas []RegRule
	arena  []RegRule // where new snapshots are stored
}

// NewRegSet returns a RegSet of the given rules (one per register; they
// are copied and sorted): for rows of other readers (EHABI's pops) in the
// same form as CFI's.
func NewRegSet(rules []RegRule) RegSet {
	if len(rules) == 0 {
		return RegSet{}
	}
	snap := slices.Clone(rules)
	slices.SortFunc(snap, func(a, b RegRule) int { return cmp.Compare(a.Reg, b.Reg) })
	return RegSet{t: &regTable{snaps: [][]RegRule{snap}}, n: int32(len(snap))}
}

// Len returns the number of registers with a rule.
func (s RegSet) Len() int { return int(s.n) }

// Rule returns the rule of register reg, and false when the register has
// none (unspecified: the ABI's default applies).
func (s RegSet) Rule(reg rule.Reg) (rule.Rule, bool) {
	if s.t == nil {
		return rule.Rule{}, false
	}
	d := s.t.deltas[s.lo:s.hi]
	for i := len(d) - 1; i >= 0; i-- {
		if d[i].Reg == reg {
			if d[i].Rule.Kind == kindNone {
				return rule.Rule{}, false
			}
			return d[i].Rule, true
		}
	}
	return lookup(s.t.snaps[s.snap], reg)
}

// Append appends every register with a rule and its rule to dst, sorted
// by register, and returns the extended slice. It needs no memory beyond
// dst's: with room for the rules in dst, it allocates nothing.
func (s RegSet) Append(dst []RegRule) []RegRule {
	if s.t == nil {
		return dst
	}
	base := len(dst)
	dst = append(dst, s.t.snaps[s.snap]...)
	for _, d := range s.t.deltas[s.lo:s.hi] {
		i, found := slices.BinarySearchFunc(dst[base:], d.Reg, func(e RegRule, r rule.Reg) int { return cmp.Compare(e.Reg, r) })
		switch i += base; {
		case d.Rule.Kind == kindNone:
			if found {
				dst = slices.Delete(dst, i, i+1)
			}
		case found:
			dst[i].Rule = d.Rule
		default:
			dst = slices.Insert(dst, i, d)
		}
	}
	return dst
}

// Each calls fn with every register that has a rule and its rule, in no
// particular order, without allocating. It costs the snapshot's rules
// times the changes since it (at most 16 in GNU and LLVM output).
func (s RegSet) Each(fn func(reg rule.Reg, r rule.Rule)) {
	if s.t == nil {
		return
	}
	d := s.t.deltas[s.lo:s.hi]
	last := func(reg rule.Reg, from int) bool {
		for _, e := range d[from:] {
			if e.Reg == reg {
				return false
			}
		}
		return true
	}
	for _, r := range s.t.snaps[s.snap] {
		if last(r.Reg, 0) {
			fn(r.Reg, r.Rule)
		}
	}
	for i, r := range d {
		if r.Rule.Kind != kindNone && last(r.Reg, i+1) {
			fn(r.Reg, r.Rule)
		}
	}
}

// Equal reports whether s and o hold the same rules.
func (s RegSet) Equal(o RegSet) bool {
	if s == o {
		return true
	}
	if s.n != o.n {
		return false
	}
	return slices.Equal(s.Append(nil), o.Append(nil))
}

// rowBuilder collects the rows of one FDE, with their rules in one
// regTable.
type rowBuilder struct {
	rows []Row
	tmpl Row // the fields every row of the FDE has
	t    *regTable
	cur  RegSet // the rules of the last row
}

// start prepares b for the rows of an FDE whose CIE's initial rules are
// init.
func (b *rowBuilder) start(init *initial) {
	b.t = &regTable{snaps: [][]RegRule{init.regs}}
	b.cur = RegSet{t: b.t, n: int32(len(init.regs))}
}

// minChanges is the fewest changes since a snapshot that make a new one.
const minChanges = 16

// emit appends the row [start, end) with the rules of st, unless it is
// empty. The rules that changed since the row before are appended to the
// table, or, when the changes since the last snapshot would outnumber
// its rules, a new snapshot of every rule.
func (b *rowBuilder) emit(start, end uint64, st *state) {
	if end <= start {
		return
	}
	if n := st.changed(); n > 0 {
		t := b.t
		s := b.cur
		if int(s.hi-s.lo)+n > max(minChanges, len(t.snaps[s.snap])) {
			st.flush(nil, false)
			if cap(t.arena)-len(t.arena) < st.live {
				t.arena = make([]RegRule, 0, max(2*st.live, 16))
			}
			lo := len(t.arena)
			t.arena = st.appendRules(t.arena)
			t.snaps = append(t.snaps, t.arena[lo:len(t.arena):len(t.arena)])
			s.snap, s.lo = int32(len(t.snaps)-1), int32(len(t.deltas))
		} else {
			t.deltas = st.flush(room(t.deltas, n), true)
		}
		s.hi, s.n = int32(len(t.deltas)), int32(st.live)
		b.cur = s
	} else {
		st.flush(nil, false)
	}
	r := b.tmpl
	r.Start, r.End, r.CFA, r.Regs, r.RASigned = start, end, st.cfa, b.cur, st.raSigned
	b.rows = append(b.rows, r)
}

// room returns s with room for n more elements, doubling its capacity
// when it must grow: append grows large slices by a quarter, which
// allocates about five times the final size on the way.
func room[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	return slices.Grow(s, max(n, cap(s)))
}
