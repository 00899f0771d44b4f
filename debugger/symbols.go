package debugger

import (
	"debug/elf"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/sfdbg/sfdbg/frames"
)

// dataSym is a data symbol (STT_OBJECT, STT_COMMON, STT_TLS excluded) of a
// module at its link-time address, with its size in bytes and section.
type dataSym struct {
	name    string
	addr    uint64
	size    uint64
	section string
}

// dataSyms is a module's data symbols, sorted by address, and by name.
type dataSyms struct {
	byAddr []dataSym
	byName map[string]int // index into byAddr
}

// dataCache holds the data symbols of each module (*frames.Module ->
// *dataSyms). frames keeps only function symbols; see moduleDataSyms.
var dataCache sync.Map

// moduleDataSyms returns the data symbols of m's .symtab and .dynsym (the
// first name at an address wins), read once. frames.Module symbolizes
// code only, so print, x and info symbol read data symbols here.
func moduleDataSyms(m *frames.Module) *dataSyms {
	if v, ok := dataCache.Load(m); ok {
		return v.(*dataSyms)
	}
	ds := &dataSyms{byName: map[string]int{}}
	if f, err := m.File(); err == nil {
		seen := map[uint64]bool{}
		add := func(syms []elf.Symbol) {
			for _, sy := range syms {
				t := elf.ST_TYPE(sy.Info)
				if t != elf.STT_OBJECT && t != elf.STT_COMMON || sy.Name == "" || sy.Value == 0 {
					continue
				}
				if int(sy.Section) <= 0 || int(sy.Section) >= len(f.Sections) || seen[sy.Value] {
					continue
				}
				seen[sy.Value] = true
				ds.byAddr = append(ds.byAddr, dataSym{sy.Name, sy.Value, sy.Size, f.Sections[sy.Section].Name})
			}
		}
		if syms, err := f.Symbols(); err == nil {
			add(syms)
		}
		if syms, err := f.DynamicSymbols(); err == nil {
			add(syms)
		}
		sort.Slice(ds.byAddr, func(i, j int) bool { return ds.byAddr[i].addr < ds.byAddr[j].addr })
		for i, d := range ds.byAddr {
			if _, dup := ds.byName[d.name]; !dup {
				ds.byName[d.name] = i
			}
		}
	}
	v, _ := dataCache.LoadOrStore(m, ds)
	return v.(*dataSyms)
}

// find returns the data symbol covering link-time address a (a symbol of
// size 0 covers its address only).
func (ds *dataSyms) find(a uint64) (dataSym, bool) {
	i := sort.Search(len(ds.byAddr), func(i int) bool { return ds.byAddr[i].addr > a }) - 1
	if i < 0 {
		return dataSym{}, false
	}
	d := ds.byAddr[i]
	if a == d.addr || a-d.addr < d.size {
		return d, true
	}
	return dataSym{}, false
}

// symbolAt names the function or data symbol covering runtime address a:
// its name, a's offset into it in bytes, and its module; "" if none.
func symbolAt(sp *frames.Space, a uint64) (string, uint64, *frames.Module) {
	if sp == nil {
		return "", 0, nil
	}
	m := sp.Modules.Find(a)
	if m == nil {
		return "", 0, nil
	}
	if name, off, ok := m.FuncName(a); ok {
		return name, off, m
	}
	if d, ok := moduleDataSyms(m).find(a - m.Bias); ok {
		return d.name, a - m.Bias - d.addr, m
	}
	return "", 0, m
}

// pcArg is the address a command's argument names, or, with none, the
// selected frame's lookup PC (its PC, or PC-1 for a return address).
func (s *Session) pcArg(args string) (uint64, error) {
	if strings.TrimSpace(args) != "" {
		return s.evalAddr(args)
	}
	n, tr, err := s.selected()
	if err != nil {
		return 0, err
	}
	return tr.Frames[n].LookupPC(), nil
}

// symbolSuffix is " <name+off>" for a symbolized address (gdb's form,
// offset in decimal, omitted when 0), or "".
func symbolSuffix(sp *frames.Space, a uint64) string {
	name, off, m := symbolAt(sp, a)
	if m != nil {
		if n, o, ok := gdbFuncName(m, a); ok {
			name, off = n, o
		}
	}
	switch {
	case name == "":
		return ""
	case off == 0:
		return " <" + name + ">"
	}
	return fmt.Sprintf(" <%s+%d>", name, off)
}

// lookupData finds a data symbol by name, the main executable's first
// (modules that are not shared libraries first, as lookupFunction does).
// It returns the symbol's runtime address and size.
func lookupData(sp *frames.Space, name string) (addr, size uint64, ok bool) {
	for _, m := range mainFirst(sp) {
		ds := moduleDataSyms(m)
		if i, found := ds.byName[name]; found {
			d := ds.byAddr[i]
			return d.addr + m.Bias, d.size, true
		}
	}
	return 0, 0, false
}

// mainFirst lists the modules with those that are not shared libraries
// (the executable) first.
func mainFirst(sp *frames.Space) []*frames.Module {
	mods := sp.Modules.List()
	out := make([]*frames.Module, 0, len(mods))
	isLib := func(m *frames.Module) bool { return strings.Contains(m.Name, ".so") || strings.HasPrefix(m.Name, "[") }
	for _, m := range mods {
		if !isLib(m) {
			out = append(out, m)
		}
	}
	for _, m := range mods {
		if isLib(m) {
			out = append(out, m)
		}
	}
	return out
}

// sectionOf names the section of m holding runtime address a, or "".
func sectionOf(m *frames.Module, a uint64) string {
	f, err := m.File()
	if err != nil {
		return ""
	}
	link := a - m.Bias
	for _, sec := range f.Sections {
		if sec.Flags&elf.SHF_ALLOC != 0 && link >= sec.Addr && link-sec.Addr < sec.Size {
			return sec.Name
		}
	}
	return ""
}

// readCode reads n bytes of code at runtime address a: from the target's
// memory, and where that fails (a snapshot holds only stacks), from the
// module's file, as gdb reads a core file's code from its executable.
func readCode(sp *frames.Space, a uint64, n int) []byte {
	buf := make([]byte, n)
	got, _ := sp.Mem.ReadAt(buf, a)
	if got == n {
		return buf
	}
	m := sp.Modules.Find(a + uint64(got))
	if m == nil {
		return buf[:got]
	}
	for got < n {
		b := fileBytes(m, a+uint64(got), n-got)
		if len(b) == 0 {
			break
		}
		got += copy(buf[got:], b)
	}
	return buf[:got]
}
