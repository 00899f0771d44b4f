package debugger

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/sfdbg/sfdbg/frames"
)

// watchpoint is what a breakpoint watches: size bytes at addr, of type
// typ, whose value was old when last seen.
type watchpoint struct {
	addr uint64
	size int
	typ  dwarf.Type
	old  []byte
	kind watchKind
	// A watch on a local variable (or a part of one) ends when its frame
	// returns, as gdb's: scopeRA is the frame's return address, where an
	// internal breakpoint is, hit by thread scopeTid with its SP above
	// scopeSP (the frame's own SP), 0 for a global.
	scopeRA, scopeSP uint64
	scopeTid         int
}

// watchKind is what a watchpoint stops at: gdb's watch, rwatch, awatch.
type watchKind int

const (
	watchWrite  watchKind = iota // watch: a write that changes the value
	watchRead                    // rwatch: a read
	watchAccess                  // awatch: a read or a write
)

// name is gdb's "Hardware watchpoint", "Hardware read watchpoint",
// "Hardware access (read/write) watchpoint" (breakpoint.c mention).
func (k watchKind) name() string {
	switch k {
	case watchRead:
		return "Hardware read watchpoint"
	case watchAccess:
		return "Hardware access (read/write) watchpoint"
	}
	return "Hardware watchpoint"
}

// infoType is the Type column of info breakpoints.
func (k watchKind) infoType() string {
	switch k {
	case watchRead:
		return "read watchpoint"
	case watchAccess:
		return "acc watchpoint"
	}
	return "hw watchpoint"
}

// castRE matches gdb's "*(TYPE *)ADDR".
var castRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\*\s*\(\s*([A-Za-z_][A-Za-z0-9_ ]*?)\s*(\*+)\s*\)\s*(.+)$`)
})

// identRE matches a C identifier.
var identRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`) })

// cTypes are the C types "*(TYPE *)ADDR" may name, with their sizes on
// AMD64 (System V psABI table 3.1) and signedness.
var cTypes = map[string]struct {
	size   int64
	signed bool
}{
	"char": {1, true}, "signed char": {1, true}, "unsigned char": {1, false},
	"short": {2, true}, "short int": {2, true}, "unsigned short": {2, false}, "unsigned short int": {2, false},
	"int": {4, true}, "signed": {4, true}, "signed int": {4, true}, "unsigned": {4, false}, "unsigned int": {4, false},
	"long": {8, true}, "long int": {8, true}, "unsigned long": {8, false}, "unsigned long int": {8, false},
	"long long": {8, true}, "long long int": {8, true}, "unsigned long long": {8, false}, "unsigned long long int": {8, false},
	"int8_t": {1, true}, "uint8_t": {1, false}, "int16_t": {2, true}, "uint16_t": {2, false},
	"int32_t": {4, true}, "uint32_t": {4, false}, "int64_t": {8, true}, "uint64_t": {8, false},
	"size_t": {8, false}, "ssize_t": {8, true}, "intptr_t": {8, true}, "uintptr_t": {8, false},
}

// intType returns a DWARF integer type of size bytes, named name.
func intType(name string, size int64, signed bool) dwarf.Type {
	b := dwarf.BasicType{CommonType: dwarf.CommonType{ByteSize: size, Name: name}}
	if name == "char" || name == "signed char" {
		return &dwarf.CharType{BasicType: b}
	}
	if name == "unsigned char" {
		return &dwarf.UcharType{BasicType: b}
	}
	if signed {
		return &dwarf.IntType{BasicType: b}
	}
	return &dwarf.UintType{BasicType: b}
}

// watchLocation resolves gdb's watch expressions: VAR (a data symbol, of
// its DWARF type when the program has one, else a signed integer of the
// symbol's size), *ADDR (an int, as gdb reads *INTEGER) and *(TYPE *)ADDR
// (TYPE a C integer type, or any pointer type: TYPE **).
func (s *Session) watchLocation(expr string) (*watchpoint, error) {
	sp, err := s.space()
	if err != nil {
		return nil, err
	}
	if m := castRE().FindStringSubmatch(expr); m != nil {
		addr, err := s.evalAddr(m[3])
		if err != nil {
			return nil, err
		}
		name := strings.Join(strings.Fields(m[1]), " ")
		if len(m[2]) > 1 { // TYPE **: a pointer
			return &watchpoint{addr: addr, size: 8, typ: &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: 8}, Type: intType(name, 0, true)}}, nil
		}
		ct, ok := cTypes[name]
		if !ok {
			return nil, fmt.Errorf("No symbol \"%s\" in current context (watch *(TYPE *)ADDR takes a C integer type: int, long, unsigned char, uint32_t, ...).", name)
		}
		return &watchpoint{addr: addr, size: int(ct.size), typ: intType(name, ct.size, ct.signed)}, nil
	}
	if rest, ok := strings.CutPrefix(expr, "*"); ok {
		addr, err := s.evalAddr(rest)
		if err != nil {
			return nil, err
		}
		return &watchpoint{addr: addr, size: 4, typ: intType("int", 4, true)}, nil
	}
	// A variable of the selected frame, or a part of one (r->key,
	// tags[1], p.x), in memory.
	if vp, ok := parseVarPath(expr); ok && vp.derefs == 0 && !vp.addrOf {
		if w, found, err := s.watchVar(vp); found {
			return w, err
		}
	}
	if !identRE().MatchString(expr) {
		return nil, fmt.Errorf("watch %s: sfdbg watches a variable or a part of one (VAR, p->f, a[i]), *ADDR or *(TYPE *)ADDR", expr)
	}
	addr, size, ok := lookupData(sp, expr)
	if !ok {
		return nil, fmt.Errorf("No symbol \"%s\" in current context.", expr)
	}
	w := &watchpoint{addr: addr, size: int(size)}
	if m := sp.Modules.Find(addr); m != nil {
		if t, ok := m.GlobalType(expr); ok {
			w.typ = t
			if t.Size() > 0 {
				w.size = int(t.Size())
			}
		}
	}
	if w.typ == nil {
		w.typ = intType("long", int64(w.size), true)
	}
	return w, nil
}

// watchVar makes the watchpoint of a variable path: its bytes in memory,
// of its type. A local's watch ends when the selected frame returns.
func (s *Session) watchVar(vp varPath) (w *watchpoint, found bool, err error) {
	_, sc, v, _, ok, err := s.lookupVar(vp.name)
	if err != nil || !ok {
		return nil, false, nil
	}
	local := false
	if sc != nil {
		for i := range sc.Locals {
			local = local || &sc.Locals[i] == v
		}
		for i := range sc.Params {
			local = local || &sc.Params[i] == v
		}
	}
	t, _, found, err := s.evalPath(vp)
	if !found {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	if !t.inMem {
		return nil, true, fmt.Errorf("Cannot watch %s: it is not in memory here (a register or an optimized-out value); watch *ADDR watches memory.", vp.name)
	}
	size := int(t.t.Size())
	if size != 1 && size != 2 && size != 4 && size != 8 {
		return nil, true, fmt.Errorf("Cannot watch %d bytes: a hardware watchpoint covers 1, 2, 4 or 8 (watch a member or an element of it).", size)
	}
	w = &watchpoint{addr: t.addr, size: size, typ: t.t}
	if local {
		n, tr, err := s.selected()
		if err != nil {
			return nil, true, err
		}
		if n+1 >= len(tr.Frames) {
			return nil, true, errors.New("Cannot watch a local of the outermost frame: its return is not known.")
		}
		w.scopeRA, w.scopeSP, w.scopeTid = tr.Frames[n+1].PC, tr.Frames[n].SP, s.thread
	}
	return w, true, nil
}

// read reads the watched bytes.
func (w *watchpoint) read(sp *frames.Space) ([]byte, error) {
	b := make([]byte, w.size)
	if n, _ := sp.Mem.ReadAt(b, w.addr); n < w.size {
		return nil, fmt.Errorf("Cannot access memory at address %#x", w.addr)
	}
	return b, nil
}

// text formats watched bytes as gdb prints the value (returnValue's
// scalars), else in hex.
func (w *watchpoint) text(sp *frames.Space, b []byte) string {
	var v uint64
	for i := len(b) - 1; i >= 0 && i < 8; i-- {
		v = v<<8 | uint64(b[i])
	}
	if t, _, _, ok := returnValue(sp, w.typ, v); ok {
		return t
	}
	return fmt.Sprintf("%#x", v)
}

// cmdWatch implements "watch EXPR": a hardware watchpoint, as gdb's
// "Hardware watchpoint N: EXPR".
func cmdWatch(s *Session, args string) error { return s.watch(args, watchWrite) }

// cmdRwatch implements "rwatch EXPR": a watchpoint that stops where the
// program reads EXPR.
func cmdRwatch(s *Session, args string) error { return s.watch(args, watchRead) }

// cmdAwatch implements "awatch EXPR": a watchpoint that stops where the
// program reads or writes EXPR.
func cmdAwatch(s *Session, args string) error { return s.watch(args, watchAccess) }

// watch sets a hardware watchpoint of kind on expr.
func (s *Session) watch(args string, kind watchKind) error {
	expr := strings.TrimSpace(args)
	if expr == "" {
		return errors.New("Argument required (expression to compute).")
	}
	if err := s.canRun(); err != nil {
		return err
	}
	wt, ok := s.tgt.(watchTarget)
	if !ok {
		return errors.New("watch: this target has no hardware watchpoints (it cannot run)")
	}
	w, err := s.watchLocation(expr)
	if err != nil {
		return err
	}
	sp, err := s.space()
	if err != nil {
		return err
	}
	if w.old, err = w.read(sp); err != nil {
		return err
	}
	for _, bp := range s.bps {
		if bp.watch != nil && bp.watch.addr == w.addr {
			return fmt.Errorf("Watchpoint %d already watches %#x.", bp.id, w.addr)
		}
	}
	w.kind = kind
	set := wt.SetWatchpoint
	if kind != watchWrite {
		set = wt.SetAccessWatchpoint
	}
	if err := set(w.addr, w.size); err != nil {
		return err
	}
	if w.scopeRA != 0 && !s.scopeBreakAt(w.scopeRA) && s.bpAt(w.scopeRA) == nil {
		if err := s.tgt.SetBreakpoint(w.scopeRA); err != nil {
			wt.ClearWatchpoint(w.addr)
			return err
		}
	}
	bp := &breakpoint{id: s.nextBP, desc: expr, watch: w}
	s.nextBP++
	s.bps = append(s.bps, bp)
	s.printf("%s %d: %s\n", kind.name(), bp.id, expr)
	return nil
}

// watchAt returns the watchpoint on addr, or nil.
func (s *Session) watchAt(addr uint64) *breakpoint {
	for _, bp := range s.bps {
		if bp.watch != nil && bp.watch.addr == addr {
			return bp
		}
	}
	return nil
}

// watchHit reads the value a watchpoint stop changed. changed is false
// when the write left the value as it was: gdb does not stop then.
func (s *Session) watchHit(ev Event) (bp *breakpoint, old, now []byte, changed bool) {
	bp = s.watchAt(ev.Watch)
	if bp == nil {
		return nil, nil, nil, true
	}
	sp, err := s.space()
	if err != nil {
		return bp, bp.watch.old, nil, true
	}
	now, err = bp.watch.read(sp)
	if err != nil {
		return bp, bp.watch.old, nil, true
	}
	return bp, bp.watch.old, now, string(now) != string(bp.watch.old)
}

// changedWatch returns the first watchpoint whose value is no longer the
// one last seen, or nil.
func (s *Session) changedWatch() *breakpoint {
	sp, err := s.space()
	if err != nil {
		return nil
	}
	for _, bp := range sortedBreakpoints(s.bps) {
		if bp.watch == nil {
			continue
		}
		if now, err := bp.watch.read(sp); err == nil && string(now) != string(bp.watch.old) {
			return bp
		}
	}
	return nil
}

// watchStops reports whether the watchpoint hit ev stops the program, as
// gdb's bpstat_check_watchpoint: a watch when the value changed (a write
// of the same value passes); an rwatch when it did not (a write that
// changed it is not a read: the hardware watches both, and the new value
// is kept); an awatch always.
func (s *Session) watchStops(ev Event) bool {
	bp, _, now, changed := s.watchHit(ev)
	if bp == nil {
		return true
	}
	switch bp.watch.kind {
	case watchRead:
		if changed && now != nil {
			bp.watch.old = now
			return false
		}
		return true
	case watchAccess:
		return true
	}
	return changed
}

// reportWatch prints a watchpoint stop as gdb does:
// "Hardware watchpoint N: EXPR", then the old and new values ("Value =
// ..." for a read, and for an access that left the value as it was).
func (s *Session) reportWatch(ev Event) {
	bp, old, now, changed := s.watchHit(ev)
	if bp == nil {
		s.printf("\nThread %d \"%s\" stopped at a watchpoint on %#x.\n", s.threadNo[ev.Thread], s.tgt.ThreadName(ev.Thread), ev.Watch)
		return
	}
	bp.hits++
	sp, _ := s.space()
	s.printf("\n%s %d: %s\n\n", bp.watch.kind.name(), bp.id, bp.desc)
	if bp.watch.kind != watchWrite && (!changed || now == nil) {
		s.printf("Value = %s\n", bp.watch.text(sp, old))
		return
	}
	s.printf("Old value = %s\n", bp.watch.text(sp, old))
	if now != nil {
		s.printf("New value = %s\n", bp.watch.text(sp, now))
		bp.watch.old = now
	}
}

// scopeBreakAt reports whether a local's watchpoint has its internal
// breakpoint at addr.
func (s *Session) scopeBreakAt(addr uint64) bool {
	for _, bp := range s.bps {
		if bp.watch != nil && bp.watch.scopeRA == addr {
			return true
		}
	}
	return false
}

// scopeEnded handles a hit of a local watchpoint's internal breakpoint:
// when it is the watch's thread with its frame gone (SP above the frame's),
// the watchpoint is deleted with gdb's words and the stop is reported
// (stop); another thread, or a deeper recursive call, passes (no stop).
// handled is false when addr is no such breakpoint.
func (s *Session) scopeEnded(ev Event) (handled, stop bool) {
	var ended []*breakpoint
	for _, bp := range s.bps {
		if w := bp.watch; w != nil && w.scopeRA == ev.PC {
			handled = true
			if regs, err := s.tgt.Regs(ev.Thread); err == nil && ev.Thread == w.scopeTid && regs.SP() > w.scopeSP {
				ended = append(ended, bp)
			}
		}
	}
	if len(ended) == 0 {
		return handled, false
	}
	wt, _ := s.tgt.(watchTarget)
	for _, bp := range ended {
		s.printf("\nWatchpoint %d deleted because the program has left the block in\nwhich its expression is valid.\n", bp.id)
		if wt != nil {
			wt.ClearWatchpoint(bp.watch.addr)
		}
		s.bps = slices.DeleteFunc(s.bps, func(b *breakpoint) bool { return b == bp })
	}
	if !s.scopeBreakAt(ev.PC) && s.bpAt(ev.PC) == nil {
		s.tgt.ClearBreakpoint(ev.PC)
	}
	s.thread = ev.Thread
	return true, true
}
