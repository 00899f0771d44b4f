package frames

// Tail-call frames: the functions that left a frame by jumping to the next
// one (a sibling call), which gdb shows as virtual frames between a frame
// and its caller, built from the DWARF call-site information (DWARF 5
// §3.4, DW_TAG_call_site; GCC's DWARF 4 extension DW_TAG_GNU_call_site),
// the way gdb does it (gdb/dwarf2/frame-tailcall.c, call_site_find_chain):
// the caller's call site at the return address names the function it
// called; when that is not the callee's function, the chains of tail-call
// sites from it to the callee's function are the missing frames.

import (
	"debug/dwarf"
	"fmt"
	"slices"

	"github.com/sirupsen/logrus"
)

// TailCall is one virtual frame gdb shows for a tail call: the function
// that jumped, at the address after its jump (its tail-call site's return
// PC, DW_AT_call_return_pc), with that address's source line.
type TailCall struct {
	Function string
	PC       uint64 // runtime address
	File     string
	Line     int
}

// DWARF's GNU call-site extension (GCC before DWARF 5).
const (
	tagGNUCallSite        dwarf.Tag  = 0x4109
	attrGNUTailCall       dwarf.Attr = 0x2115
	attrGNUCallSiteTarget dwarf.Attr = 0x2113 // DW_AT_GNU_call_site_target
	maxTailChain                     = 16     // tail calls in one chain, as gdb's bound on the search
	maxTailFunctions                 = 256    // functions searched for chains from one call site
	maxCallSites                     = 4096   // call sites read from one subprogram
)

// callSite is one call site of a subprogram: its return PC (link-time)
// and its target's entry addresses (link-time), tail says it is a jump.
type callSite struct {
	ret    uint64
	origin dwarf.Offset // the DIE of the called function (DW_AT_call_origin), if hasOrigin
	d      *dwarf.Data  // the DWARF origin is an offset in
	tail   bool
	off    dwarf.Offset // the call site's own DIE (its parameters are its children)
	// hasOrigin is false for an indirect call (a function pointer):
	// target is then its DW_AT_call_target, a DWARF expression giving
	// the address called, in the caller's frame.
	hasOrigin bool
	target    []byte
}

// maxTailChains bounds the chains a search keeps: where that many fit,
// their common ends are all that would be shown anyway.
const maxTailChains = 64

// TailCallsBetween returns the virtual frames gdb shows between a callee
// frame whose function starts at calleeStart and its caller frame whose
// return address is ra (both runtime addresses in m), innermost first:
// the function that jumped to the callee, then the one that jumped to it,
// up to the function the caller's call site called. It is nil when the
// call site called the callee's function itself, when the DWARF has no
// call-site information for ra, or when no chain of tail-call sites leads
// from the called function to the callee. Where several chains do, only
// the frames all chains share at either end are given, as gdb does.
func (m *Module) TailCallsBetween(ra, calleeStart uint64) []TailCall {
	lt := m.lines()
	if lt == nil || ra < m.Bias || calleeStart < m.Bias {
		return nil
	}
	link, callee := ra-m.Bias, calleeStart-m.Bias
	sites, targets := m.callSiteCache(lt)
	var site *callSite
	for _, cs := range sites(link - 1) {
		if cs.ret == link {
			site = &cs
			break
		}
	}
	if site == nil {
		return nil
	}
	siteTargets := targets(site)
	if len(siteTargets) == 0 || slices.Contains(siteTargets, callee) {
		return nil
	}
	return m.tailChain(siteTargets, callee, sites, targets)
}

// TailCallsAcross is TailCallsBetween for a caller frame in module caller
// whose return address ra (runtime) follows a call into another module,
// callee, where the callee frame's function starts at calleeStart
// (runtime): the caller's call site names a function caller does not
// define (a declaration: qsort, called through the PLT), which is looked
// up by name in callee; when that is not the callee's function, the
// chains of callee's tail-call sites from it lead to the callee's
// function (glibc's qsort jumping to qsort_r), as gdb finds them with
// the library's separate debug information. nil when there are none.
func TailCallsAcross(caller *Module, ra uint64, callee *Module, calleeStart uint64) []TailCall {
	if caller == nil || callee == nil || caller == callee || ra < caller.Bias || calleeStart < callee.Bias {
		return nil
	}
	clt, lt := caller.lines(), callee.lines()
	if clt == nil || lt == nil {
		return nil
	}
	link := ra - caller.Bias
	var name string
	for _, cs := range clt.callSites(link - 1) {
		if cs.ret != link {
			continue
		}
		if !cs.hasOrigin || len(entries(caller, cs.d, cs.origin)) > 0 {
			return nil // a function pointer, or a function of the caller's own module
		}
		r := cs.d.Reader()
		r.Seek(cs.origin)
		if e, err := r.Next(); err == nil && e != nil {
			name = originName(cs.d, e)
		}
		break
	}
	if name == "" || name == "??" {
		return nil
	}
	var from []uint64
	for _, a := range callee.LookupFunction(name) {
		from = append(from, a-callee.Bias)
	}
	target := calleeStart - callee.Bias
	if len(from) == 0 || slices.Contains(from, target) {
		return nil
	}
	sites, targets := callee.callSiteCache(lt)
	return callee.tailChain(from, target, sites, targets)
}

// callSiteCache returns the lookups of a tail-call search in m (line
// table lt): a function's call sites (by a link-time PC in it) and a
// site's targets (link-time entries), each read once per search, a
// site's targets only when the search follows it.
func (m *Module) callSiteCache(lt *lineTable) (sites func(uint64) []callSite, targets func(*callSite) []uint64) {
	sitesOf := map[uint64][]callSite{}
	targetsOf := map[dwarf.Offset][]uint64{}
	sites = func(pc uint64) []callSite {
		if cs, ok := sitesOf[pc]; ok {
			return cs
		}
		cs := lt.callSites(pc)
		sitesOf[pc] = cs
		return cs
	}
	targets = func(cs *callSite) []uint64 {
		if !cs.hasOrigin {
			return nil // a function pointer: not followed
		}
		if t, ok := targetsOf[cs.origin]; ok {
			return t
		}
		t := entries(m, cs.d, cs.origin)
		targetsOf[cs.origin] = t
		return t
	}
	return sites, targets
}

// tailChain searches m's tail-call sites for the chains from the
// functions at link-time entries from to the function at link-time entry
// callee, and returns the frames gdb shows for them (TailCallsBetween),
// innermost first; sites and targets read and resolve m's call sites,
// each once per search.
func (m *Module) tailChain(from []uint64, callee uint64, sites func(uint64) []callSite, targets func(*callSite) []uint64) []TailCall {
	lt := m.lines()
	if lt == nil {
		return nil
	}
	siteTargets := from
	// Depth-first search of the chains of tail calls from the call
	// site's target to the callee's function; a chain lists the tail-call
	// sites taken, outermost first.
	var chains [][]callSite
	seen := 0
	var walk func(fn uint64, path []callSite)
	walk = func(fn uint64, path []callSite) {
		if len(path) >= maxTailChain || seen >= maxTailFunctions || len(chains) >= maxTailChains {
			return
		}
		seen++
		for _, cs := range sites(fn) {
			if !cs.tail {
				continue
			}
			to := targets(&cs)
			next := append(slices.Clip(path), cs)
			if slices.Contains(to, callee) {
				chains = append(chains, next)
				continue
			}
			for _, t := range to {
				if t != fn && !onPath(next, t, lt) {
					walk(t, next)
				}
			}
		}
	}
	for _, t := range siteTargets {
		walk(t, nil)
	}
	if len(chains) == 0 {
		return nil
	}
	// gdb keeps the longest prefix and suffix common to every chain.
	pre, suf := chains[0], chains[0]
	for _, c := range chains[1:] {
		n := 0
		for n < len(pre) && n < len(c) && pre[n].ret == c[n].ret {
			n++
		}
		pre = pre[:n]
		k := 0
		for k < len(suf) && k < len(c) && suf[len(suf)-1-k].ret == c[len(c)-1-k].ret {
			k++
		}
		suf = suf[len(suf)-k:]
	}
	chain := pre
	if len(chains) > 1 {
		chain = append(slices.Clip(pre), suf...)
	}
	out := make([]TailCall, 0, len(chain))
	for i := len(chain) - 1; i >= 0; i-- { // innermost first
		pc := chain[i].ret + m.Bias
		sym := m.SymbolizeAt(pc, pc-1)
		name := sym.Name
		if in := m.InlinedAt(pc - 1); len(in) > 0 {
			// gdb names a tail-call frame by the innermost function
			// block at its PC, an inlined one included (the tail call
			// was made from __pthread_kill_internal, inlined into
			// __pthread_kill).
			name = in[0].Function
		}
		out = append(out, TailCall{Function: name, PC: pc, File: sym.File, Line: sym.Line})
	}
	return out
}

// onPath reports whether function fn (link-time entry) already made one
// of the tail calls of path: chains are not followed round a cycle.
func onPath(path []callSite, fn uint64, lt *lineTable) bool {
	for _, cs := range path {
		for u := range lt.units(cs.ret - 1) {
			if f, ok := u.subprogramAt(cs.ret - 1); ok && f.lo == fn {
				return true
			}
		}
	}
	return false
}

// callSites returns the call sites of the subprogram holding link-time
// address pc: every DW_TAG_call_site (or DW_TAG_GNU_call_site) under it,
// inlined subroutines and lexical blocks included, with their targets
// resolved to entry addresses (the target's own ranges, else the
// addresses of the function of that name and its clones). Malformed DWARF
// gives what was read before it.
func (lt *lineTable) callSites(pc uint64) []callSite {
	for u := range lt.units(pc) {
		f, ok := u.subprogramAt(pc)
		if !ok || !f.children {
			continue
		}
		var sites []callSite
		func() {
			defer func() {
				if r := recover(); r != nil { // debug/dwarf on hostile input
					logrus.Debugf("frames: call sites of the subprogram at %#x: %v", f.off, r)
				}
			}()
			var err error
			if sites, err = readCallSites(u.d, f.off, &sites); err != nil {
				logrus.Debugf("frames: call sites of the subprogram at %#x: %v", f.off, err)
			}
		}()
		return sites
	}
	return nil
}

// readCallSites reads the call sites under the subprogram at off into
// *out as it goes (so that a panic leaves what was read) and returns them.
func readCallSites(d *dwarf.Data, off dwarf.Offset, out *[]callSite) ([]callSite, error) {
	r := d.Reader()
	r.Seek(off)
	sub, err := r.Next()
	if err != nil || sub == nil || !sub.Children {
		return nil, err
	}
	var sites []callSite
	depth := 1
	for n := 0; depth > 0; n++ {
		if n >= maxInlineEntries {
			return sites, fmt.Errorf("more than %d entries under the subprogram at %#x", maxInlineEntries, off)
		}
		e, err := r.Next()
		if err != nil {
			return sites, err
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			depth--
			continue
		}
		if e.Tag == dwarf.TagSubprogram { // a nested function's call sites are its own
			if e.Children {
				r.SkipChildren()
			}
			continue
		}
		if e.Tag == dwarf.TagCallSite || e.Tag == tagGNUCallSite {
			if len(sites) >= maxCallSites {
				return sites, fmt.Errorf("more than %d call sites under the subprogram at %#x", maxCallSites, off)
			}
			cs := callSite{d: d}
			ret, ok := e.Val(dwarf.AttrCallReturnPC).(uint64)
			if !ok {
				ret, ok = e.Val(dwarf.AttrLowpc).(uint64) // GNU: the return address
			}
			tail, _ := e.Val(dwarf.AttrCallTailCall).(bool)
			gnuTail, _ := e.Val(attrGNUTailCall).(bool)
			cs.ret, cs.tail, cs.off = ret, tail || gnuTail, e.Offset
			origin, hasOrigin := e.Val(dwarf.AttrCallOrigin).(dwarf.Offset)
			if !hasOrigin {
				origin, hasOrigin = e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
			}
			target, hasTarget := e.Val(dwarf.AttrCallTarget).([]byte)
			if !hasTarget {
				target, hasTarget = e.Val(attrGNUCallSiteTarget).([]byte)
			}
			if ok && (hasOrigin || hasTarget) {
				cs.origin, cs.hasOrigin, cs.target = origin, hasOrigin, target
				sites = append(sites, cs)
				*out = sites
			}
		}
		if e.Children {
			depth++
		}
	}
	return sites, nil
}

// entries returns the link-time entry addresses of the function whose
// DIE is at off (a call site's DW_AT_call_origin, often a declaration):
// its DW_AT_low_pc, else those of the function of its name and the
// clones GCC made of it (Module.LookupFunction).
func entries(m *Module, d *dwarf.Data, off dwarf.Offset) []uint64 {
	r := d.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return nil
	}
	if lo, ok := e.Val(dwarf.AttrLowpc).(uint64); ok {
		return []uint64{lo}
	}
	name := originName(d, e)
	if name == "??" {
		return nil
	}
	var out []uint64
	for _, a := range m.LookupFunction(name) {
		out = append(out, a-m.Bias)
	}
	return out
}
