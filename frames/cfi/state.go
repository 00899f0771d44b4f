package cfi

import (
	"cmp"
	"slices"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// kindNone marks, where a register's rule is recorded (the rows' changes,
// the undo log), a register without a rule. It is no rule.Kind.
const kindNone rule.Kind = 0xff

var ruleNone = rule.Rule{Kind: kindNone, Reg: rule.CFA}

// initial is the state a CIE's initial instructions leave (DWARF 5
// §6.4.1: the rules every FDE of the CIE starts from). It is shared by
// the CIE's FDEs and their rows, and never modified.
type initial struct {
	cfa      rule.Rule
	regs     []RegRule // sorted by register
	raSigned bool
}

// get returns the initial rule of reg, if it has one.
func (n *initial) get(reg rule.Reg) (rule.Rule, bool) { return lookup(n.regs, reg) }

// lookup finds reg in regs, sorted by register.
func lookup(regs []RegRule, reg rule.Reg) (rule.Rule, bool) {
	lo, hi := 0, len(regs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if regs[m].Reg < reg {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(regs) && regs[lo].Reg == reg {
		return regs[lo].Rule, true
	}
	return rule.Rule{}, false
}

// state is the row the interpreter is building: the CFA rule, the AArch64
// RA signing state and the register rules, kept as the initial rules
// (init) and the registers whose rule differs from them (ents). Every
// operation costs time independent of the number of registers with a
// rule, so that no instruction is worth more work than a few bytes.
//
// For the rows, it also tracks which registers changed since the last row
// (dirty): flush hands the changes over.
type state struct {
	init     *initial
	cfa      rule.Rule
	raSigned bool
	// ents holds every register whose rule differs from its initial one
	// or changed since the last row, in no order; idx finds them once
	// there are more than smallEnts.
	ents  []ent
	idx   map[rule.Reg]int
	dirty []rule.Reg // the registers of ents changed since the last row
	live  int        // registers with a rule
}

// ent is one register of state.ents.
type ent struct {
	reg   rule.Reg
	dirty bool      // in state.dirty; prev is its rule in the last row
	r     rule.Rule // ruleNone: no rule
	prev  rule.Rule
}

// smallEnts is how many ents a linear search finds faster than a map.
const smallEnts = 16

// reset starts s from the initial rules init.
func (s *state) reset(init *initial) {
	s.init, s.cfa, s.raSigned, s.live = init, init.cfa, init.raSigned, len(init.regs)
	s.ents, s.idx, s.dirty = s.ents[:0], nil, s.dirty[:0]
}

// find returns the index of reg in s.ents, or -1.
func (s *state) find(reg rule.Reg) int {
	if s.idx != nil {
		if i, ok := s.idx[reg]; ok {
			return i
		}
		return -1
	}
	for i := range s.ents {
		if s.ents[i].reg == reg {
			return i
		}
	}
	return -1
}

// initRule returns reg's initial rule, or ruleNone.
func (s *state) initRule(reg rule.Reg) rule.Rule {
	if r, ok := s.init.get(reg); ok {
		return r
	}
	return ruleNone
}

// get returns the rule of reg, if it has one.
func (s *state) get(reg rule.Reg) (rule.Rule, bool) {
	if i := s.find(reg); i >= 0 {
		r := s.ents[i].r
		return r, r.Kind != kindNone
	}
	return s.init.get(reg)
}

// put gives reg the rule r (ruleNone: no rule); false when that would make
// more than maxRules registers with a rule.
func (s *state) put(reg rule.Reg, r rule.Rule) bool {
	i := s.find(reg)
	if i < 0 {
		old := s.initRule(reg)
		if old == r {
			return true
		}
		// Not in ents: its rule in the last row was the initial one.
		i = len(s.ents)
		s.ents = append(s.ents, ent{reg: reg, r: old, prev: old})
		if s.idx != nil {
			s.idx[reg] = i
		} else if len(s.ents) > smallEnts {
			s.idx = make(map[rule.Reg]int, 2*len(s.ents))
			for j, e := range s.ents {
				s.idx[e.reg] = j
			}
		}
	}
	e := &s.ents[i]
	if e.r == r {
		return true
	}
	switch had, has := e.r.Kind != kindNone, r.Kind != kindNone; {
	case has && !had:
		if s.live >= maxRules {
			return false
		}
		s.live++
	case had && !has:
		s.live--
	}
	if !e.dirty {
		e.dirty = true
		s.dirty = append(s.dirty, reg)
	}
	e.r = r
	return true
}

// changed returns how many registers have another rule than in the last
// row.
func (s *state) changed() int {
	n := 0
	for _, reg := range s.dirty {
		if e := &s.ents[s.find(reg)]; e.r != e.prev {
			n++
		}
	}
	return n
}

// flush ends a row: it appends to dst, when keep is set, the registers
// whose rule changed since the last row (ruleNone: it has none now), and
// starts the next row from here. Registers back to their initial rule
// leave ents.
func (s *state) flush(dst []RegRule, keep bool) []RegRule {
	for _, reg := range s.dirty {
		i := s.find(reg)
		e := &s.ents[i]
		if keep && e.r != e.prev {
			dst = append(dst, RegRule{Reg: reg, Rule: e.r})
		}
		e.dirty, e.prev = false, e.r
		if e.r == s.initRule(reg) {
			s.remove(i)
		}
	}
	s.dirty = s.dirty[:0]
	return dst
}

// remove takes ents[i] out of ents.
func (s *state) remove(i int) {
	last := len(s.ents) - 1
	if s.idx != nil {
		delete(s.idx, s.ents[i].reg)
		if i != last {
			s.idx[s.ents[last].reg] = i
		}
	}
	s.ents[i] = s.ents[last]
	s.ents = s.ents[:last]
}

// appendRules appends the rules of every register that has one to dst,
// sorted by register.
func (s *state) appendRules(dst []RegRule) []RegRule {
	slices.SortFunc(s.ents, func(a, b ent) int { return cmp.Compare(a.reg, b.reg) })
	if s.idx != nil {
		for j, e := range s.ents {
			s.idx[e.reg] = j
		}
	}
	init, ents := s.init.regs, s.ents
	for len(init) > 0 || len(ents) > 0 {
		switch {
		case len(ents) == 0 || len(init) > 0 && init[0].Reg < ents[0].reg:
			dst = append(dst, init[0])
			init = init[1:]
			continue
		case len(init) > 0 && init[0].Reg == ents[0].reg:
			init = init[1:]
		}
		if e := ents[0]; e.r.Kind != kindNone {
			dst = append(dst, RegRule{Reg: e.reg, Rule: e.r})
		}
		ents = ents[1:]
	}
	return dst
}
