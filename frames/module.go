package frames

import (
	"sort"
	"sync"
)

// Module is one ELF file mapped into the target: the main executable, a
// shared library or the vDSO. Its unwind data and symbols are loaded once,
// lazily, the first time a PC in it is unwound or symbolized.
type Module struct {
	// Name is the file's base name ("libc.so.6", "[vdso]").
	Name string
	// Path is the file's path as the target sees it (/proc/PID/maps).
	Path string
	// OpenPath is the path sfdbg opens, e.g. "/proc/PID/root/usr/lib/...";
	// empty for modules given as bytes (ELF).
	OpenPath string
	// ELF holds the file's bytes for modules not read from a path (the vDSO
	// read from target memory, tests).
	ELF []byte
	// Start and End bound the runtime addresses of the module's mappings.
	Start, End uint64
	// Bias is the load bias: runtime address = link-time address + Bias.
	Bias uint64

	once sync.Once
	data *moduleData
	err  error
}

// Contains reports whether pc lies in the module's mappings.
func (m *Module) Contains(pc uint64) bool { return pc >= m.Start && pc < m.End }

// Modules is the set of modules of an address space, sorted by Start.
type Modules struct {
	list []*Module
}

// NewModules returns a set of the given modules.
func NewModules(mods ...*Module) *Modules {
	ms := &Modules{list: append([]*Module(nil), mods...)}
	sort.Slice(ms.list, func(i, j int) bool { return ms.list[i].Start < ms.list[j].Start })
	return ms
}

// List returns the modules sorted by start address.
func (ms *Modules) List() []*Module { return ms.list }

// Find returns the module containing pc, or nil.
func (ms *Modules) Find(pc uint64) *Module {
	if ms == nil {
		return nil
	}
	i := sort.Search(len(ms.list), func(i int) bool { return ms.list[i].End > pc })
	if i < len(ms.list) && ms.list[i].Contains(pc) {
		return ms.list[i]
	}
	return nil
}

// Space is what an unwinder reads: the target's memory and its modules.
type Space struct {
	Mem     Memory
	Modules *Modules
}
