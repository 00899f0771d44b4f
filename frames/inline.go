package frames

// Inline frames: the functions a compiler inlined at a PC, from the
// DW_TAG_inlined_subroutine entries of the DWARF debugging information
// (DWARF 5 section 3.3.8.2), found the way gdb finds them (gdb/inline-frame.c,
// block.c): the chain of inlined-subroutine entries whose address ranges
// contain the PC, nested inside the subprogram that contains it.

import (
	"debug/dwarf"
	"fmt"
	"iter"
	"sort"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"
)

// InlinedCall is one function inlined at a PC: gdb shows it as a frame of
// its own, below the frame of the function it was inlined into.
type InlinedCall struct {
	// Function is the inlined function's name (the DW_AT_name of the
	// entry's DW_AT_abstract_origin); "??" when it cannot be read.
	Function string
	// CallFile and CallLine are DW_AT_call_file and DW_AT_call_line: the
	// source line of the call that was inlined, in the function it was
	// inlined into (the next call of the chain, or the physical function).
	// CallFile is a full path as Symbol.File is; "" and 0 when absent.
	CallFile string
	CallLine int
	// TailCall marks a virtual frame gdb shows for a tail call
	// (Module.TailCallsBetween) rather than an inlined function: it is
	// shown at PC, the address after the function's jump, with CallFile
	// and CallLine the line of that jump.
	TailCall bool
	PC       uint64
	// Entry is the inlined subroutine's entry (DW_AT_entry_pc, else its
	// lowest address), runtime; 0 when unknown or for a tail call. gdb
	// hides an inline frame whose entry is the PC of a stop (it shows the
	// caller at the call's line until "step" enters it), and does the same
	// at the start of each of its ranges (Starts; block_starting_point_at).
	Entry  uint64
	Starts []uint64
}

// StartsAt reports whether pc is the inlined copy's entry or the start of
// one of its ranges: where gdb hides its frame at a stop.
func (c *InlinedCall) StartsAt(pc uint64) bool {
	if c.TailCall || pc == 0 {
		return false
	}
	if pc == c.Entry {
		return true
	}
	for _, a := range c.Starts {
		if a == pc {
			return true
		}
	}
	return false
}

// Bounds on what an inline lookup reads, against malformed DWARF.
const (
	maxInlineDepth   = 64      // nested inlined subroutines at one PC
	maxInlineEntries = 1 << 20 // DIEs read under one subprogram
	maxOriginHops    = 8       // DW_AT_abstract_origin / DW_AT_specification links followed for a name
)

// attrMIPSLinkageName is DW_AT_MIPS_linkage_name, the linkage name of
// producers before DWARF 4's DW_AT_linkage_name.
const attrMIPSLinkageName dwarf.Attr = 0x2007

// funcRange is one address range [lo, hi) of a subprogram DIE at offset
// off; children says whether the DIE has children (only those can hold
// inlined subroutines).
type funcRange struct {
	lo, hi   uint64
	off      dwarf.Offset
	children bool
}

// inlineIndex is what inline lookups need of one compilation unit,
// decoded on the first lookup in it: its subprograms' ranges and the file
// names DW_AT_call_file indexes.
type inlineIndex struct {
	funcs []funcRange // sorted by lo
	files []string    // the line table's file entries, full paths
}

// InlinedAt returns the functions inlined at runtime address pc, innermost
// first: gdb's inline frames for a frame whose lookup PC is pc
// (Frame.LookupPC). It is nil when the module has no DWARF debugging
// information, when pc is in no inlined subroutine, or when the DWARF
// cannot be read (malformed data is logged at debug level, never a panic).
// The DWARF of a compilation unit is indexed on its first lookup.
func (m *Module) InlinedAt(pc uint64) []InlinedCall {
	lt := m.lines()
	if lt == nil {
		return nil
	}
	link := pc - m.Bias
	for u := range lt.units(link) {
		if calls, ok := u.inlinedAt(link); ok {
			for i := range calls {
				if calls[i].Entry != 0 {
					calls[i].Entry += m.Bias
				}
				for j := range calls[i].Starts {
					calls[i].Starts[j] += m.Bias
				}
			}
			return calls
		}
	}
	return nil
}

// units yields the compilation units whose ranges contain link-time
// address pc or, when none does, the units without ranges (as find), without
// allocating: it runs for every frame named.
func (lt *lineTable) units(pc uint64) iter.Seq[*lineUnit] {
	return func(yield func(*lineUnit) bool) {
		if lt.sparse != nil {
			u, ok := lt.sparse.unitAt(pc)
			if ok {
				if u != nil {
					yield(u)
				}
				return
			}
			if lt = lt.sparse.fullTable(); lt == nil {
				return
			}
		}
		i := sort.Search(len(lt.ranges), func(i int) bool { return lt.ranges[i].lo > pc })
		inUnit := false
		for k := i - 1; k >= 0 && lt.maxHi[k] > pc; k-- {
			if c := &lt.ranges[k]; pc < c.hi {
				inUnit = true
				if !yield(c.unit) {
					return
				}
			}
		}
		if inUnit {
			return
		}
		for _, u := range lt.noRange {
			if !yield(u) {
				return
			}
		}
	}
}

// index returns the unit's inline index, building it on first use.
func (u *lineUnit) index() *inlineIndex {
	u.inlOnce.Do(func() {
		var err error
		if u.inl, err = buildInlineIndex(u.d, u.cu); err != nil {
			name, _ := u.cu.Val(dwarf.AttrName).(string)
			logrus.Debugf("frames: inline index of %q: %v", name, err)
		}
	})
	return &u.inl
}

// buildInlineIndex reads the unit's top-level entries (the children of
// the unit DIE) for the ranges of its subprograms, skipping their
// children, and the file names of its line table. A panic in debug/dwarf
// is returned as an error, with what was read before it.
func buildInlineIndex(d *dwarf.Data, cu *dwarf.Entry) (idx inlineIndex, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("DWARF: %v", r)
		}
	}()
	defer func() {
		sort.Slice(idx.funcs, func(i, j int) bool { return idx.funcs[i].lo < idx.funcs[j].lo })
	}()
	if lr, lerr := d.LineReader(cu); lerr == nil && lr != nil {
		for _, f := range lr.Files() {
			name := ""
			if f != nil {
				name = fullPath(f.Name, cu)
			}
			idx.files = append(idx.files, name)
		}
	}
	if !cu.Children {
		return idx, nil
	}
	r := d.Reader()
	r.Seek(cu.Offset)
	if _, err := r.Next(); err != nil { // the unit DIE itself
		return idx, err
	}
	for {
		e, err := r.Next()
		if err != nil {
			return idx, err
		}
		if e == nil || e.Tag == 0 { // the end of the unit's children
			return idx, nil
		}
		if e.Tag == dwarf.TagSubprogram {
			if rs, err := d.Ranges(e); err == nil {
				for _, rg := range rs {
					if rg[1] > rg[0] {
						idx.funcs = append(idx.funcs, funcRange{rg[0], rg[1], e.Offset, e.Children})
					}
				}
			}
		}
		if e.Children {
			r.SkipChildren()
		}
	}
}

// subprogramAt returns the subprogram of the unit whose ranges contain
// link-time address pc; ok is false when there is none.
func (u *lineUnit) subprogramAt(pc uint64) (f funcRange, ok bool) {
	idx := u.index()
	i := sort.Search(len(idx.funcs), func(i int) bool { return idx.funcs[i].lo > pc })
	for k := i - 1; k >= 0; k-- {
		if f := idx.funcs[k]; pc < f.hi {
			return f, true
		}
	}
	return funcRange{}, false
}

// inlinedAt returns the inline chain at link-time address pc in this
// unit; ok is false when no subprogram of the unit contains pc.
func (u *lineUnit) inlinedAt(pc uint64) (calls []InlinedCall, ok bool) {
	if f, ok := u.subprogramAt(pc); ok {
		if !f.children {
			return nil, true
		}
		calls, err := inlineChain(u.d, f.off, pc, u.index().files)
		if err != nil {
			logrus.Debugf("frames: inline frames at %#x: %v", pc, err)
		}
		return calls, true
	}
	return nil, false
}

// inlineChain walks the subprogram at off for the inlined subroutines
// containing pc, descending only into entries whose ranges contain pc (or
// that have none, as lexical blocks of an abstract instance), and returns
// them innermost first.
func inlineChain(d *dwarf.Data, off dwarf.Offset, pc uint64, files []string) (calls []InlinedCall, err error) {
	defer func() {
		if r := recover(); r != nil {
			calls, err = nil, fmt.Errorf("DWARF: %v", r)
		}
	}()
	r := d.Reader()
	r.Seek(off)
	sub, err := r.Next()
	if err != nil || sub == nil || !sub.Children {
		return nil, err
	}
	var outer []InlinedCall // outermost first
	depth := 1              // entries open: the subprogram
	for n := 0; depth > 0; n++ {
		if n >= maxInlineEntries {
			return nil, fmt.Errorf("more than %d entries under the subprogram at %#x", maxInlineEntries, off)
		}
		e, err := r.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break // end of the section: malformed, keep what was found
		}
		if e.Tag == 0 {
			depth--
			continue
		}
		switch e.Tag {
		case dwarf.TagInlinedSubroutine, dwarf.TagLexDwarfBlock:
		default: // nested functions, types, variables: no code of this chain
			if e.Children {
				r.SkipChildren()
			}
			continue
		}
		rs, rerr := d.Ranges(e)
		has := rerr == nil && len(rs) > 0
		in := false
		for _, rg := range rs {
			if rg[0] <= pc && pc < rg[1] {
				in = true
			}
		}
		if e.Tag == dwarf.TagInlinedSubroutine {
			if !in {
				if e.Children {
					r.SkipChildren()
				}
				continue
			}
			if len(outer) >= maxInlineDepth {
				return nil, fmt.Errorf("more than %d nested inlined subroutines", maxInlineDepth)
			}
			c := InlinedCall{Function: originName(d, e)}
			for _, rg := range rs {
				if c.Entry == 0 || rg[0] < c.Entry {
					c.Entry = rg[0]
				}
				c.Starts = append(c.Starts, rg[0])
			}
			switch v := e.Val(dwarf.AttrEntrypc).(type) {
			case uint64: // an address
				c.Entry = v
			case int64: // DWARF 5: an offset from the lowest address
				if c.Entry != 0 && v >= 0 {
					c.Entry += uint64(v)
				}
			}
			if fi, ok := e.Val(dwarf.AttrCallFile).(int64); ok && fi >= 0 && fi < int64(len(files)) {
				c.CallFile = files[fi]
			}
			if ln, ok := e.Val(dwarf.AttrCallLine).(int64); ok && ln > 0 && ln <= 1<<30 {
				c.CallLine = int(ln)
			}
			outer = append(outer, c)
		} else if has && !in { // a lexical block elsewhere
			if e.Children {
				r.SkipChildren()
			}
			continue
		}
		if e.Children {
			depth++
		}
	}
	for i, j := 0, len(outer)-1; i < j; i, j = i+1, j-1 {
		outer[i], outer[j] = outer[j], outer[i]
	}
	return outer, nil
}

// FunctionName returns the name gdb gives the function of a frame whose
// lookup address is pc (Frame.LookupPC), from the DWARF subprogram whose
// ranges contain pc: "weigh" for GCC's clone weigh.isra.0, the parent's
// name in a .cold or .part partition, "__GI___clock_nanosleep" for glibc's
// internal alias (see originName). ok is false when the module has no
// DWARF subprogram covering pc (assembly, no debug information): callers
// then name the frame by its ELF symbol, as gdb falls back on minimal
// symbols.
func (m *Module) FunctionName(pc uint64) (name string, ok bool) {
	lt := m.lines()
	if lt == nil {
		return "", false
	}
	link := pc - m.Bias
	for u := range lt.units(link) {
		if f, ok := u.subprogramAt(link); ok {
			return subprogramName(u.d, f.off), true
		}
	}
	return "", false
}

// subprogramName is originName of the entry at off, or "??" when it cannot
// be read.
func subprogramName(d *dwarf.Data, off dwarf.Offset) (name string) {
	defer func() {
		if r := recover(); r != nil { // debug/dwarf on hostile input
			logrus.Debugf("frames: DWARF subprogram at %#x: %v", off, r)
			name = "??"
		}
	}()
	r := d.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return "??"
	}
	return originName(d, e)
}

// originName returns the name gdb gives a subprogram or an inlined
// subroutine (gdb's dwarf2_physname): its DW_AT_linkage_name when that is
// not a C++ mangled name (C functions with an asm label: glibc's internal
// aliases such as __GI___qsort_r), else its DW_AT_name, following
// DW_AT_abstract_origin (clones, inlined and out-of-line instances) and
// DW_AT_specification (a C++ member defined outside its class) a few
// links; "??" when there is none. C++ names stay unqualified: sfdbg has no
// demangler.
func originName(d *dwarf.Data, e *dwarf.Entry) string {
	r := d.Reader()
	for range maxOriginHops {
		for _, a := range [...]dwarf.Attr{dwarf.AttrLinkageName, attrMIPSLinkageName} {
			if ln, ok := e.Val(a).(string); ok && ln != "" && !strings.HasPrefix(ln, "_Z") {
				return ln
			}
		}
		if name, ok := e.Val(dwarf.AttrName).(string); ok && name != "" {
			return name
		}
		off, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		if !ok {
			if off, ok = e.Val(dwarf.AttrSpecification).(dwarf.Offset); !ok {
				break
			}
		}
		r.Seek(off)
		next, err := r.Next()
		if err != nil || next == nil {
			break
		}
		e = next
	}
	return "??"
}

// StmtAt reports whether runtime address pc is the address of a row of
// the DWARF line table marked is_stmt (the start of a statement, where a
// breakpoint on the line would be placed): gdb then prints a frame whose
// PC is exact without its address. It decodes the line program of the
// unit holding pc again, rows are not kept: it is for the few frames
// printed, not for lookups in bulk.
func (m *Module) StmtAt(pc uint64) bool {
	lt := m.lines()
	if lt == nil {
		return false
	}
	link := pc - m.Bias
	for u := range lt.units(link) {
		if stmtAt(u.d, u.cu, link) {
			return true
		}
	}
	return false
}

func stmtAt(d *dwarf.Data, cu *dwarf.Entry, pc uint64) (found bool) {
	defer func() {
		if r := recover(); r != nil {
			found = false
		}
	}()
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return false
	}
	var e dwarf.LineEntry
	for lr.Next(&e) == nil {
		if e.Address == pc && e.IsStmt && !e.EndSequence {
			return true
		}
	}
	return false
}

// inlineState is the part of a lineUnit that inline lookups use.
type inlineState struct {
	inlOnce sync.Once
	inl     inlineIndex
}

// ReturnType returns the DWARF type the function holding pc returns (a
// *dwarf.VoidType for a void function), from its subprogram's DW_AT_type,
// following DW_AT_abstract_origin and DW_AT_specification; ok is false
// when no DWARF subprogram covers pc or its type cannot be read.
func (m *Module) ReturnType(pc uint64) (t dwarf.Type, ok bool) {
	lt := m.lines()
	if lt == nil {
		return nil, false
	}
	defer func() {
		if r := recover(); r != nil { // debug/dwarf on hostile input
			t, ok = nil, false
		}
	}()
	link := pc - m.Bias
	for u := range lt.units(link) {
		f, found := u.subprogramAt(link)
		if !found {
			continue
		}
		d := u.d
		r := d.Reader()
		r.Seek(f.off)
		e, err := r.Next()
		for hop := 0; err == nil && e != nil && hop < maxOriginHops; hop++ {
			if off, has := e.Val(dwarf.AttrType).(dwarf.Offset); has {
				if !typeChainEnds(d, off) {
					return nil, false
				}
				ty, err := d.Type(off)
				return ty, err == nil
			}
			off, has := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
			if !has {
				if off, has = e.Val(dwarf.AttrSpecification).(dwarf.Offset); !has {
					return &dwarf.VoidType{}, true // no DW_AT_type: void
				}
			}
			r.Seek(off)
			e, err = r.Next()
		}
		return nil, false
	}
	return nil, false
}

// maxTypeHops bounds the typedefs and qualifiers followed to a type.
const maxTypeHops = 32

// typeChainEnds reports whether the type DIE at off reaches a type that
// is not a typedef or qualifier within maxTypeHops links, without a cycle:
// debug/dwarf's Data.Type recurses without end on a typedef whose
// DW_AT_type names itself (a Go stack overflow, which recover cannot
// catch), so hostile DWARF is refused before it is asked.
func typeChainEnds(d *dwarf.Data, off dwarf.Offset) bool {
	r := d.Reader()
	seen := map[dwarf.Offset]bool{}
	for range maxTypeHops {
		if seen[off] {
			return false
		}
		seen[off] = true
		r.Seek(off)
		e, err := r.Next()
		if err != nil || e == nil {
			return false
		}
		switch e.Tag {
		case dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType, dwarf.TagAtomicType:
			next, ok := e.Val(dwarf.AttrType).(dwarf.Offset)
			if !ok {
				return true // void
			}
			off = next
		default:
			return true
		}
	}
	return false
}
